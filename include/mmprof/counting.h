/*
 * counting: the perf-stat counter set of one run, read as totals and at
 * regular intervals.
 *
 * The set is the kernel test robot's (lkp-format.md, perf-stat), spelled as
 * `perf stat -e NAME` prints it, so report can build perf-stat.* keys from
 * the names: task-clock, cpu-clock, context-switches, cpu-migrations,
 * page-faults, minor-faults, major-faults, and where the PMU has them
 * cpu-cycles, instructions, cache-references, cache-misses,
 * branch-instructions, branch-misses, dTLB-loads, dTLB-load-misses,
 * dTLB-stores, dTLB-store-misses, iTLB-loads, iTLB-load-misses, node-loads,
 * node-load-misses, node-stores, node-store-misses.
 *
 * Each counter is its own event (no groups: a task-clock grouped under a
 * cpu-clock leader never runs on some kernels), opened through libperf with
 * read_format TOTAL_TIME_ENABLED|TOTAL_TIME_RUNNING so multiplexing shows
 * and the scaling is kept.  Targets: a forked workload (inherit, enabled at
 * exec), existing processes (all their threads, inherit for children born
 * later), or every CPU (-a, optionally a CPU list).  An event the machine
 * cannot count (ENOENT, EOPNOTSUPP, ENODEV, ENXIO, EINVAL) is kept with
 * supported = 0, never as a zero count.
 *
 * With inherit, a child's counts reach the parent's counter only when the
 * child exits (as in perf stat): interval readings of a multi-process
 * workload are late for children that are still running.
 *
 * Intervals: counting__interval() stores the deltas since the previous
 * reading; counting__finish() stores the last partial interval and the
 * totals, so the intervals of a counter sum exactly to its total.
 */
#ifndef MMPROF_COUNTING_H
#define MMPROF_COUNTING_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "mmprof/errmsg.h"
#include "mmprof/profile.h"

struct counting;

struct counting_target {
	const pid_t *pids;	/* fork: {child}; -p: the processes (threads found in /proc) */
	size_t nr_pids;
	bool system_wide;	/* -a: per CPU, every task */
	const char *cpu_list;	/* -a -C LIST; NULL: all online CPUs */
	bool enable_on_exec;	/* fork mode: start counting at the child's exec */
	/*
	 * Which events of the set to open: bit i is counting_events[i]; 0 is
	 * the whole set.  Events left out are neither opened nor stored (an
	 * open costs a descriptor per CPU or thread and a little work per
	 * context switch).
	 */
	uint64_t events;
};

/* One row of the built-in set (exposed for tests and documentation). */
struct counting_event {
	const char *name;	/* perf's spelling */
	uint32_t type;		/* PERF_TYPE_* */
	uint64_t config;
};
extern const struct counting_event counting_events[];
extern const size_t counting_nr_events;

/* Index of the event of the set named name (perf's spelling), or -1. */
int counting__find(const char *name);

/*
 * Open the set (or the events of t->events) on the target: enabled at once, or at the child's
 * exec with enable_on_exec.  Set the time origin with counting__start.
 * NULL with e filled when nothing could be opened for a reason other than
 * "not supported" (permissions, no such process, out of descriptors).
 */
struct counting *counting__open(const struct counting_target *t, struct errmsg *e);

/* Set the time origin of the run (the workload's release). */
void counting__start(struct counting *c, int64_t t_start_ns);

/* Number of events opened that this machine supports. */
size_t counting__nr_supported(const struct counting *c);

/* Add one interval per supported counter to p (deltas since the last reading). */
void counting__interval(struct counting *c, struct profile *p, uint32_t run, int64_t now_ns);

/*
 * End of the run: store the final partial interval (when intervals are
 * kept and time has passed since the last one) and the totals of every
 * event asked for (unsupported ones with supported = 0).
 */
void counting__finish(struct counting *c, struct profile *p, uint32_t run, int64_t now_ns,
		      bool intervals);

/* Close the events and free (NULL is fine). */
void counting__close(struct counting *c);

#endif
