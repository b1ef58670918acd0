/*
 * countrun: one counting-only run, the engine of `mmprof stat`.
 *
 * What `record` does around its sampler, without the sampler: fork the
 * workload blocked (or take -p pids, or every CPU), open the perf-stat
 * counting set on it (counting.h), read /proc/vmstat (mmstate.h), release
 * it, then wait for its exit, reading the counters every interval and
 * passing its stdout through (lines "<name>.<metric>: <number>" become
 * metrics, as in record).  Afterwards: counters, intervals, the mm state
 * and one struct run (status, rusage) are added to the profile.
 *
 * Signals are the caller's: it installs handlers (without SA_RESTART, and
 * for SIGCHLD and SIGIO too, whose wake-ups cut the wait short) that bump
 * *nr_stops and set *stop_sig; the run forwards the first stop signal to
 * the workload, SIGKILLs it two seconds later or on a second signal, and
 * ends a -p/-a run at once.
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
#include "mmprof/workload.h"

struct countrun_opts {
	char *const *argv;		/* the command; NULL with pids or system_wide */
	const pid_t *pids;		/* -p */
	size_t nr_pids;
	bool system_wide;		/* -a */
	const char *cpu_list;		/* -a -C; NULL: every online CPU */
	int interval_ms;		/* counter readings every interval_ms; 0: totals only */
	uint64_t events;		/* counting_target.events: 0 the whole set */
	double duration;		/* -p/-a: stop after this many seconds; 0: no limit */
	/*
	 * With interval_ms: called after each reading, the final partial one
	 * included, with the profile and the index in p->intervals of the
	 * first interval that reading added (stat prints them as they come).
	 * NULL: none.
	 */
	void (*on_interval)(void *ctx, const struct profile *p, size_t first);
	void *ctx;
	volatile sig_atomic_t *nr_stops;	/* the caller's signal flags (may be NULL) */
	volatile sig_atomic_t *stop_sig;
};

/* One run into p as run number `run`.  0, or -errno with e filled. */
int countrun__run(const struct countrun_opts *o, struct profile *p, uint32_t run,
		  struct errmsg *e);

/* The workload's status and rusage into r (wall_ns, exit_code, ...). */
void countrun__fill_run(struct run *r, const struct workload *w);

#endif
