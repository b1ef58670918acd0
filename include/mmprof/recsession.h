/*
 * recsession: one `mmprof record`, run after run into one profile.
 *
 * The session owns the event sources of the recording and hands them to
 * the run loop (runloop.h) as one table, in this order: sampling
 * (sampler.h), the --sched tracepoints (sched.h), the perf-stat counters
 * (countrun.h, unless --no-stat) and the tracepoint field statistics
 * (tpstats, trace.h, fed by the sampler's raw samples).  The order is
 * the file's: the sampler's events come before the offcpu pseudo event,
 * and each run's results are stored source after source.
 *
 * Per run: the loop opens every source on the target, runs the workload,
 * stores what each source read as run `run` of the profile; the session
 * keeps the totals the summary prints.  After the last run
 * recsession__finish adds what the file says about the whole recording
 * (events used, number of runs, why a DSO stayed unresolved).
 *
 * Library rules: 0 or -errno with e filled; nothing printed (the hooks
 * of the options are the caller's and may print).
 */
#ifndef MMPROF_RECSESSION_H
#define MMPROF_RECSESSION_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "mmprof/errmsg.h"
#include "mmprof/profile.h"
#include "mmprof/runloop.h"
#include "mmprof/sampler.h"
#include "mmprof/strlist.h"
#include "mmprof/symbols.h"

struct recsession;

struct recsession_opts {
	struct sampler_opts sampling;	/* raw_hook and raw_ctx are the session's */
	const struct strlist *fields;	/* --field SYS:NAME/FIELD; NULL: none */
	bool sched;			/* --sched */
	bool counting;			/* perf-stat counters (not --no-stat) */

	/*
	 * The run loop's options for every run: the target, the window,
	 * interval_ms, the signal flags and the hooks; its sources are the
	 * session's.  on_start is called before the session notes the
	 * start time of run 0.
	 */
	struct runloop_opts loop;
};

/*
 * Set up the sources (nothing opened yet): tracepoints of o->sampling's
 * events, the sampler, --sched.  p and syms are borrowed for the
 * session's life.  NULL with e filled.
 */
struct recsession *recsession__new(const struct recsession_opts *o, struct profile *p,
				   struct symbols *syms, struct errmsg *e);
void recsession__free(struct recsession *s);	/* NULL is fine */

/* One run as run number `run`: 0, or -errno with e filled (nothing is written then). */
int recsession__run(struct recsession *s, uint32_t run, struct runloop_result *res,
		    struct errmsg *e);

/*
 * After the last run, before the profile is saved: the chains the trie
 * had no room for into it (sampler__take_chains); the totals' stacks_cut
 * then counts those cut there too.  0 or -errno with e filled: the
 * chains not read back are lost (meta chains_lost), the profile is
 * whole otherwise and is saved as it is.
 */
int recsession__take_chains(struct recsession *s, struct chaintake_stats *st, struct errmsg *e);

/* The sampler, for its notes and frequency (valid for the session's life). */
const struct sampler *recsession__sampler(const struct recsession *s);

/* Samples and losses of the finished runs. */
struct recsession_totals {
	uint64_t samples, lost, throttled;
	uint64_t stacks_cut;		/* samples whose chain kept only its leaf (sampler.h) */
	uint32_t runs_before_delay;	/* runs that ended before --delay opened the window */
};
const struct recsession_totals *recsession__totals(const struct recsession *s);
/* Samples and losses so far: the finished runs and the current one (progress line). */
void recsession__progress(const struct recsession *s, uint64_t *samples, uint64_t *lost);

/*
 * After the last run: the events used (when the default fell back or
 * tracepoints were expanded), nr_runs, "interrupted" (stop_sig: the
 * signal that stopped the recording, 0: none), and per DSO the hint why
 * its frames may stay unresolved.
 */
void recsession__finish(struct recsession *s, int stop_sig);

#endif
