/*
 * taskcount: a run's page faults and context switches counted by the
 * kernel's own accounting (rusage, /proc) instead of perf software events,
 * as a run loop source for `mmprof record`.
 *
 * Why: a page-faults (or minor-, major-faults, context-switches) software
 * counter enables the kernel's perf_swevent static key, so every page
 * fault on the machine enters __perf_sw_event and walks the CPU's
 * software-event list.  On a fault-bound workload that was 3 to 6% of the
 * samples (under exc_page_fault and handle_mm_fault) and 10% of its
 * throughput: a profiler for memory-management work must not add work to
 * the path it measures.  The kernel counts faults and switches per task
 * anyway (min_flt, maj_flt, nvcsw, nivcsw); reading them costs nothing per
 * fault.
 *
 * The counters keep perf's names and meanings (counting.h), so the keys
 * (perf-stat.ps.page-faults, perf-stat.i.minor-faults, ...) are the same:
 *   minor-faults, major-faults: the task's min_flt and maj_flt, counted
 *     where perf's software events of those names are (mm_account_fault);
 *   page-faults: minor + major (perf's page-faults event also counts
 *     faults that ended in a signal or were retried: a few per million);
 *   context-switches: voluntary + involuntary switches.
 * Where they come from:
 *   fork mode: the totals from the workload's rusage (wait4: itself and
 *     the descendants it reaped) less what the child had before its exec;
 *     interval readings from /proc/PID/stat and /proc/PID/task/TID/status of
 *     the workload's live process tree (a thread or child that exits
 *     between two readings shows in the next reading of its parent or in
 *     the totals);
 *   -p: the same readings of the given processes' trees (at the end the
 *     last reading: processes gone by then keep what was read before);
 *   -a: /proc/vmstat pgfault and pgmajfault, /proc/stat ctxt.
 * Interval readings sum exactly to the totals (the last one takes the rest).
 * Cost: one scan of /proc per interval (about a millisecond for a few
 * hundred processes), nothing per fault.
 */
#ifndef MMPROF_TASKCOUNT_H
#define MMPROF_TASKCOUNT_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "mmprof/runloop.h"

#define TASKCOUNT__NR	4

/* The source's context: set intervals, zero the rest. */
struct taskcount_source {
	bool intervals;			/* keep interval readings (runloop_opts.interval_ms) */
	/* this run's */
	bool fork, system_wide;
	pid_t *pids;
	size_t nr_pids;
	uint64_t base[TASKCOUNT__NR];	/* at the open: the child before its exec, -a's machine */
	uint64_t last[TASKCOUNT__NR];	/* the previous reading, less base */
	uint64_t sum[TASKCOUNT__NR];	/* the interval deltas stored */
	int64_t t0_ns, last_ns, stop_ns;
};
extern const struct runsrc_ops taskcount_source_ops;

/* The events of counting_events that taskcount counts instead (a counting_target.events mask). */
uint64_t taskcount__counting_mask(void);

/*
 * The running descendants of roots[0..nr) (children, theirs, ...) from
 * /proc's parent links, each once and none of roots itself, into *out
 * (*nout, the caller frees): 0, or -errno when /proc cannot be read.  The
 * kernel lets a sampling event opened on a task follow the tasks it
 * starts afterwards (inherit, as perf record -p does), not the children
 * it already has: record -p --children adds these.
 */
int taskcount__descendants(const pid_t *roots, size_t nr, pid_t **out, size_t *nout);

#endif
