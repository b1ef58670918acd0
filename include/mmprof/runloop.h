/*
 * runloop: one run of a workload under a table of event sources, the loop
 * of `mmprof record` and `mmprof stat`.
 *
 * A run: fork the workload blocked (workload.h), and/or take the -p pids
 * or every CPU; open each source on the pids, the CPUs or else the
 * workload, in table order; read
 * /proc/vmstat (mmstate.h); release the workload; then loop until it
 * exits (-p: until every process is gone or a zombie; -a: until stopped):
 * open and close the sampling window, take interval readings, pass the
 * workload's stdout and stderr through (their "<name>.<metric>: <number>"
 * lines, stress-ng's and will-it-scale's tables and --ops-pattern's lines
 * become metrics: benchout.h), wait for data and drain it.  With a command the run ends when
 * it exits, whatever is watched (perf's `-a -- CMD`).  Afterwards: reap, mmstate, stop
 * every source (drain the rest, store the totals), fill one struct run
 * (status, rusage, wall time), let the sources add to it, add it to the
 * profile, close the sources.
 *
 * Sources: sampling (sampler.h), the perf-stat counters (countrun.h),
 * the --sched tracepoints (sched.h).  Each is a struct runsrc, an ops
 * table and its context; every op may be NULL.  A source with enable and
 * disable is "windowed": it is opened disabled (or enabled at the child's
 * exec when the window starts at 0; -a and -p, which cannot enable at an
 * exec, are switched on just before the release then) and switched on for
 * the window [delay, delay + duration); one without them counts the whole
 * run.
 *
 * Signals are the caller's (stopsig.h): each one counted in *nr_stops
 * stops the run.  A forked workload gets the signal (*stop_sig) passed
 * on, and SIGKILL two seconds later or on the next one; a -p/-a run ends
 * at once.  The caller starts no further run after a stop.
 *
 * Waiting: the first source with a poll op is waited on (SIGCHLD and
 * SIGIO, caught without SA_RESTART, cut the wait short); without one the
 * workload's output is.  The wait is bounded by the next deadline, by 100
 * ms (a signal lost just before the wait) and by each source's wait_ms.
 * Cost per wake-up: one poll, one drain per source, no allocation.
 *
 * Library rules: 0 or -errno with e filled; nothing printed (the caller's
 * hooks may print).
 */
#ifndef MMPROF_RUNLOOP_H
#define MMPROF_RUNLOOP_H

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "mmprof/benchout.h"
#include "mmprof/errmsg.h"
#include "mmprof/profile.h"
#include "mmprof/workload.h"

/* What a source is opened on. */
struct record_target {
	const pid_t *pids;		/* fork mode: {child}; -p: the given processes */
	size_t nr_pids;
	bool system_wide;		/* -a */
	const char *cpu_list;		/* -C, NULL for all online CPUs */
	bool fork;			/* fork mode: pids is {child}, blocked before its exec */
	bool enable_on_exec;		/* fork mode, the window starting at 0 */
};

/* An event source: every op may be NULL; p and run are the run's. */
struct runsrc_ops {
	/* Open on t (windowed: disabled, or enabled at exec). */
	int (*open)(void *ctx, const struct record_target *t, struct profile *p, uint32_t run,
		    struct errmsg *e);
	/* The workload was released at start_ns (CLOCK_MONOTONIC). */
	void (*start)(void *ctx, int64_t start_ns);
	/* The window opens or closes. */
	void (*enable)(void *ctx);
	void (*disable)(void *ctx);
	/* Wait up to timeout_ms for data: >0 data, 0 timeout, <0 interrupted. */
	int (*poll)(void *ctx, int timeout_ms);
	/* Read what is there; returns the records read. */
	int (*drain)(void *ctx);
	/* An interval reading is due (runloop_opts.interval_ms). */
	void (*tick)(void *ctx, struct profile *p, uint32_t run, int64_t now_ns);
	/* The run is over at now_ns: disable, drain the rest, store totals. */
	void (*stop)(void *ctx, struct profile *p, uint32_t run, int64_t now_ns);
	/* Add to the run (samples, lost, ...) before it joins the profile. */
	int (*end_run)(void *ctx, struct profile *p, uint32_t run, struct run *r,
		       struct errmsg *e);
	/* Free what the run opened: after stop, after a failed open, or never opened. */
	void (*close)(void *ctx);
};

struct runsrc {
	const struct runsrc_ops *ops;
	void *ctx;
	int wait_ms;		/* drain at least this often; 0: no bound of its own */
};

struct runloop_opts {
	/*
	 * The command (NULL: none); with pids or system_wide as well, those
	 * are watched for as long as it runs (target.h), else the command.
	 */
	char *const *argv;
	const pid_t *pids;		/* -p */
	size_t nr_pids;
	bool system_wide;		/* -a */
	const char *cpu_list;		/* -a -C; NULL: every online CPU */

	const struct runsrc *sources;
	size_t nr_sources;

	const struct benchout_opts *bench;	/* --ops-pattern; NULL: none */

	/*
	 * The window of the windowed sources (record --delay, --duration; 0:
	 * to the end).  A -p/-a run ends when it closes.
	 */
	double delay, duration;
	/*
	 * -p/-a: the run ends this many seconds after the start, once the
	 * interval reading due then is taken (stat --duration); 0: no limit.
	 */
	double time_limit;
	int interval_ms;		/* tick the sources every interval_ms; 0: never */

	volatile sig_atomic_t *nr_stops;	/* the caller's signal flags (may be NULL) */
	volatile sig_atomic_t *stop_sig;	/* NULL: SIGTERM is passed on */

	/*
	 * Hooks (NULL: none), with ctx: after the release (run 0: before any
	 * sampling is read); every progress_ns (0: never) with the time since
	 * the start; and before output of the workload is copied to stdout.
	 */
	void (*on_start)(void *ctx, uint32_t run, int64_t start_real_ns);
	void (*on_progress)(void *ctx, uint32_t run, int64_t elapsed_ns);
	int64_t progress_ns;
	void (*on_output)(void *ctx);
	void *ctx;
};

struct runloop_result {
	struct run run;			/* as added to the profile */
	bool window_missed;		/* the run ended before the window opened */
	size_t ops_matches;		/* output lines bench->ops_re matched */
	bool ops_over_budget;		/* matching stopped past BENCHOUT_OPS_CPU: no sum stored */
};

/*
 * One run into p as run number `run`.  0, or -errno with e filled (a
 * failed exec: "cannot run 'x': ..."); then nothing is added to p but
 * what the sources stored on the way.
 */
int runloop__run(const struct runloop_opts *o, struct profile *p, uint32_t run,
		 struct runloop_result *res, struct errmsg *e);

/* The workload's status and rusage into r (wall_ns, exit_code, ...). */
void runloop__fill_run(struct run *r, const struct workload *w);

/* An attached process is gone when it no longer exists or is a zombie. */
bool runloop__pid_alive(pid_t pid);

#endif
