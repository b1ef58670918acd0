/*
 * cost: what each function costs per unit of the benchmark's work, per run
 * (issue 16, Documentation/cost-per-op.md).
 *
 * Shares (perf-profile.*) are fractions of whatever a kernel spent: when
 * the throughput moves, a share can stay flat while the function's cost
 * per operation doubles.  A recording knows more: each sample's period
 * (nanoseconds for cpu-clock, task-clock and the offcpu event of record
 * --sched; an event count otherwise), and the workload's own work count
 * per run.  So per run r, event e and function f:
 *
 *   work(r)          the run's operations (cost_work: a "<name>.ops" count,
 *                    an ops_per_sec rate times the run's wall time, the key
 *                    of --per, or, when none is known, the run's seconds)
 *   self(r, e, f)    period of the samples whose innermost frame is f / work
 *   children(r,e,f)  period of the samples with f anywhere on the stack
 *                    (once per sample) / work
 *   total(r, e)      period of every sample of e in r / work
 *
 * Every sample counts, unresolved ones as "[unknown]@<dso>" ("[unknown]"
 * without a mapping), as the perf-like views count them (report's tree,
 * symview's keep_unresolved with unknown_by_dso), and a sample with no
 * frame at all as "[no_stack]": the self costs partition the total
 * exactly, Σ_f self(r, e, f) = total(r, e), so the change of the total
 * between two sides is the sum of the functions' self-cost changes.
 * Children costs overlap (a caller holds its callees) and do not add up.
 *
 * The keys (one set per run, for diff): values per unit of work, in the
 * event's unit (cost_event__unit: "ns" or "events"):
 *   cost.work                      the run's work (ops, or seconds)
 *   cost.total.<ev>                total(r, e)
 *   cost.self.<ev>.<fn>            self(r, e, f)
 *   cost.children.<ev>.<fn>        children(r, e, f)
 *   cost.part.<ev>.<fn>            100 * self(r, e, f) / the base side's
 *                                  mean total(e): the function's cost in
 *                                  points of the base's cost per op, so
 *                                  that its change is the function's
 *                                  contribution to the total's change in
 *                                  % of the base cost (gated as points)
 * <ev> is keys__event_name's spelling, <fn> keys__key_symbol's (suffixes
 * stripped, whitespace '_'), so a key names the function as perf-profile's
 * keys do.  Functions of one name in several DSOs are one key (summed).
 *
 * Workload: one pass over a profile's counts per (run, event) on a symbol
 * trie built once per profile; tens of thousands of functions, a handful
 * of events, up to a few dozen runs.  Nothing here prints.
 */
#ifndef MMPROF_COST_H
#define MMPROF_COST_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "mmprof/errmsg.h"
#include "mmprof/keys.h"
#include "mmprof/profile.h"

/* ---- the work of a run (work.c) ---- */

enum cost_work_kind {
	COST_WORK_SECONDS,	/* no work count: per second of the run's wall time */
	COST_WORK_COUNT,	/* the metric key is a count of operations */
	COST_WORK_RATE,		/* the metric key is a rate per second: times the wall time */
};

/*
 * How work is counted, the same for every run of every profile compared.
 * note: one line saying what was chosen and, for SECONDS, why and what to
 * do ("no work count in the workload's metrics (no <name>.ops or
 * .ops_per_sec key): costs are per second of run; name one with --per
 * KEY"), "" when nothing needs saying beyond the key.
 */
struct cost_work {
	enum cost_work_kind kind;
	char key[256];		/* the metric; "" for SECONDS */
	char note[512];
};

/*
 * Choose the work for the nr profiles ps (all sides of a comparison).
 * per: the key the user named (--per), or NULL for the automatic choice:
 *   1. the one workload metric (not perf-sched., tracepoint., proc-vmstat.,
 *      meminfo.) whose last component is "ops", present in every profile
 *      ("thp-zap.ops", "stress-ng.vm.ops"): a count;
 *   2. else the one whose last component ends in "ops_per_sec": a rate;
 *   3. several candidates at step 1 (or 2) - stress-ng with two stressors,
 *      whose bogo ops are not the same operation - or none: SECONDS, with
 *      the note naming the candidates and --per.
 * A key named by per is a rate when it ends in "_per_sec", "_per_second"
 * or "/s", else a count.  0, or -EINVAL and e when per names a metric that
 * some profile has in none of its runs ("--per 'x.ops': no run of 'y.data'
 * has that metric; its work metrics: a, b"; names[i] is ps[i]'s file name
 * for the message, NULL: "profile N").
 */
int cost_work__choose(const struct profile *const *ps, const char *const *names, size_t nr,
		      const char *per, struct cost_work *w, struct errmsg *e);

/*
 * Run run's work: a positive finite number, or NAN when not known (the
 * run failed, the metric is absent from it, not positive, or its wall time
 * is 0 for a rate or SECONDS).
 */
double cost_work__run(const struct cost_work *w, const struct profile *p, uint32_t run);

/* "op" for a count or a rate, "s" for SECONDS: what "per" means in the outputs ("ns/op"). */
const char *cost_work__per(const struct cost_work *w);

/* ---- one profile's costs per unit of work (cost.c) ---- */

/* One function's costs in one (run, event), per unit of work. */
struct cost_cell {
	uint32_t fn;		/* index into cost_profile.fn */
	double self, children;
};

/* One (run, event). */
struct cost_slot {
	double total;		/* per unit of work; NAN when the run's work is unknown */
	size_t first, nr;	/* its cells: cells[first .. first + nr), self > 0 or children > 0 */
};

struct cost_profile {
	const struct profile *p;	/* borrowed */
	double *work;			/* per run: cost_work__run */
	char **fn;			/* the functions as keys spell them, owned, distinct */
	size_t nr_fn;
	char **event;			/* per profile event: keys__event_name's spelling, owned */
	size_t nr_events;
	struct cost_slot *slot;		/* [run * nr_events + event] */
	struct cost_cell *cells;
	size_t nr_cells;
};

/*
 * The costs of every run and event of p with work w.  NULL never
 * (allocation failure exits); free with cost_profile__free.  p is
 * borrowed for the result's life.
 */
struct cost_profile *cost_profile__new(const struct profile *p, const struct cost_work *w);
void cost_profile__free(struct cost_profile *c);	/* NULL is fine */

/* The slot of (run, event), or NULL when out of range. */
const struct cost_slot *cost_profile__slot(const struct cost_profile *c, uint32_t run,
					   uint32_t event);
/* The event index whose keys spelling is event ("cpu-clock"), or -1. */
int cost_profile__event(const struct cost_profile *c, const char *event);

/*
 * The unit of event's period: "ns" for cpu-clock, task-clock and offcpu
 * (PROFILE_OFFCPU_EVENT), "events" for any other (cycles, a tracepoint's
 * hits).  *time: a time (CPU or off-CPU) that µs and ms print.
 */
const char *cost_event__unit(const struct profile *p, uint32_t event, bool *time);

/*
 * Run run's cost keys (above) appended to out, for the events named in
 * events (keys spelling; NULL and 0: every event of the profile), with
 * base_total[i] the base side's mean total of events[i] for cost.part (0
 * or NAN: no part keys for it).  Nothing when the run's work is unknown.
 */
void cost_profile__keys(const struct cost_profile *c, uint32_t run, const char *const *events,
			const double *base_total, size_t nr_events, struct keyvals *out);

/* Key names: "cost.<kind>.<event>.<fn>" (fn NULL: "cost.<kind>.<event>") into buf. */
void cost__key(const char *kind, const char *event, const char *fn, char *buf, size_t size);

#endif
