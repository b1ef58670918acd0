/*
 * countrun: the perf-stat counting set as a run loop source, and one
 * counting-only run, the engine of `mmprof stat`.
 *
 * The source (countrun_source, runloop.h) opens the set (counting.h) on
 * the run's target: on a forked workload enabled at its exec, whatever
 * the sampling window, so that the counters cover the whole run.  At each
 * interval tick it stores a reading, at the end the final partial one and
 * the totals; on_interval sees each reading as it is stored.
 *
 * countrun__run is a run under that source alone: fork the workload (or
 * take -p pids, or every CPU), count, pass its stdout through (lines
 * "<name>.<metric>: <number>" become metrics), and add the counters,
 * intervals, the mm state and one struct run (status, rusage) to the
 * profile.  Signals are the caller's, as runloop.h says.
 *
 * Library rules: 0 or -errno with e filled; nothing printed.  Cost: one
 * wake-up per interval (and per 100 ms at most), nothing per event.
 */
#ifndef MMPROF_COUNTRUN_H
#define MMPROF_COUNTRUN_H

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "mmprof/errmsg.h"
#include "mmprof/profile.h"
#include "mmprof/runloop.h"
#include "mmprof/strlist.h"

/*
 * Called after each interval reading, the final partial one included,
 * with the profile and the index in p->intervals of the first interval
 * that reading added (stat prints them as they come).
 */
typedef void (*countrun_interval_fn)(void *ctx, const struct profile *p, size_t first);

/* The counting source's context: set the options, zero the rest. */
struct countrun_source {
	uint64_t events;		/* counting_target.events: 0 the whole set */
	bool intervals;			/* keep interval readings (runloop_opts.interval_ms) */
	countrun_interval_fn on_interval;	/* NULL: none */
	void *ctx;
	struct counting *cnt;		/* this run's */
};
extern const struct runsrc_ops countrun_source_ops;

struct countrun_opts {
	char *const *argv;		/* the command (NULL: none): runloop_opts.argv */
	const pid_t *pids;		/* -p */
	size_t nr_pids;
	bool system_wide;		/* -a */
	const char *cpu_list;		/* -a -C; NULL: every online CPU */
	int interval_ms;		/* counter readings every interval_ms; 0: totals only */
	uint64_t events;		/* counting_target.events: 0 the whole set */
	double duration;		/* -p/-a: stop after this many seconds; 0: no limit */
	countrun_interval_fn on_interval;	/* with interval_ms; NULL: none */
	void *ctx;
	volatile sig_atomic_t *nr_stops;	/* the caller's signal flags (may be NULL) */
	volatile sig_atomic_t *stop_sig;
};

/* One run into p as run number `run`.  0, or -errno with e filled. */
int countrun__run(const struct countrun_opts *o, struct profile *p, uint32_t run,
		  struct errmsg *e);

/*
 * Copy run 0 of src into dst as run `run`: the counters and intervals
 * named in sel (all when it is empty; "task-clock:u", the user-only
 * fallback, is task-clock), the metrics and the run itself.
 */
void countrun__copy_run(struct profile *dst, const struct profile *src, uint32_t run,
			const struct strlist *sel);

#endif
