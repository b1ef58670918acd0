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

#include "mmprof/diff.h"
#include "mmprof/errmsg.h"
#include "mmprof/jsonw.h"
#include "mmprof/keys.h"
#include "mmprof/outbuf.h"
#include "mmprof/parallel.h"
#include "mmprof/profile.h"
#include "mmprof/symview.h"

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
 *   2. else the one whose last component ends in "ops_per_sec", or
 *      will-it-scale.workload (the robot's total ops per second): a rate;
 *   3. several candidates at step 1 (or 2) - stress-ng with two stressors,
 *      whose bogo ops are not the same operation - or none (files of two
 *      workloads: each has its own count): SECONDS, with the note naming
 *      the candidates, or a file's own count, and --per.
 * A key named by per is a rate when it ends in "_per_sec", "_per_second"
 * or "/s", or is will-it-scale's workload, per_process_ops or
 * per_thread_ops; else a count.  0, or -EINVAL and e when per names a metric that
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
	double samples;		/* the run's samples of the event (every one: total's), for the test's sampling noise */
	size_t first, nr;	/* its cells: cells[first .. first + nr), self > 0 or children > 0 */
};

struct cost_profile {
	const struct profile *p;	/* borrowed */
	double *work;			/* per run: cost_work__run */
	/* the functions as keys spell them: fn.s[id], fn.nr of them, numbered by first entry */
	struct strintern fn;
	char **event;			/* per profile event: keys__event_name's spelling, owned */
	size_t nr_events;
	struct cost_slot *slot;		/* [run * nr_events + event] */
	struct cost_cell *cells;
	size_t nr_cells;
	/*
	 * The symbol trie the costs were summed on (a symview with every
	 * sample kept, "[unknown]" per DSO: a diff's file's collapse itself
	 * where it is the same, symview__derive), and each entry's function
	 * (index into fn), as long as the attribution's call chains read
	 * them: until cost_profile__drop_view.  Read through
	 * cost_profile__parent and cost_profile__fn_of.
	 */
	struct symview view;
	uint32_t *entry_fn;
	size_t nr_nodes;
	/*
	 * The key strings of cost_profile__keys, made on first use and shared
	 * by every run: [cost_profile__key_id] (cost.work, each event's total,
	 * then self, part and children per event and function).  A run's keys
	 * borrow them and diff__compute matches them by id, not by text: 20
	 * runs of 20 000 functions were 1.2 M copies of 60 000 strings.
	 */
	char **key;
	size_t nr_keys;
	/*
	 * [fn]: the function gets keys (cost_profiles__keep); NULL: every
	 * function does.
	 */
	bool *keep;
};

/*
 * The functions that get cost keys: those whose children cost reaches
 * COST_KEY_FLOOR of their event's total in some run of some profile of
 * cps, in every profile (so that no side reads a function under the floor
 * as absent, 0, where another has it).  The rest are in every total and
 * attribution, never a key: perf-profile's printing floor (0.05 %), below
 * which no row is shown, tested (DIFF_COST_TEST_FLOOR is ten times it) or
 * worth a gate.  20 000 functions of a few samples each made the cost
 * diff 110 MB of a 10 x 100 000-stack pair's 309.
 */
#define COST_KEY_FLOOR 0.0005
void cost_profiles__keep(struct cost_profile *const *cps, size_t n);

/* A run's cost keys (cost_profile__keys): items[i].key borrowed, ids[i] its id. */
struct cost_keys {
	struct key_value *items;
	uint32_t *ids;
	size_t nr, alloc;
};
void cost_keys__release(struct cost_keys *k);

/*
 * The costs of every run and event of p with work w.  NULL never
 * (allocation failure exits); free with cost_profile__free.  p is
 * borrowed for the result's life; from (NULL: none), a finer view of p
 * (diff_side.views), is the trie's when the two are the same, borrowed
 * until cost_profile__drop_view.
 */
struct cost_profile *cost_profile__new(const struct profile *p, const struct symview *from,
				       const struct cost_work *w);
void cost_profile__free(struct cost_profile *c);	/* NULL is fine */
#define COST_NO_NODE UINT32_MAX
/* The symbol trie goes: no call chain is taken from c after this. */
void cost_profile__drop_view(struct cost_profile *c);
/* Until then: the trie is there; symnode q's parent; q's function (q not the root). */
bool cost_profile__has_view(const struct cost_profile *c);
uint32_t cost_profile__parent(const struct cost_profile *c, uint32_t q);
uint32_t cost_profile__fn_of(const struct cost_profile *c, uint32_t q);
/*
 * Per symnode (c->nr_nodes), the period of event's samples on it summed
 * over runs, run r's times run_scale[r] (one per run of the profile; 0
 * leaves the run out): one pass for a sum over runs in which each run
 * weighs its own (1 / its work).  All 0 once the trie is dropped.
 */
void cost_profile__weights(const struct cost_profile *c, uint32_t event, const double *run_scale,
			   double *w);

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
			const double *base_total, size_t nr_events, struct cost_keys *out);

/* Key names: "cost.<kind>.<event>.<fn>" (fn NULL: "cost.<kind>.<event>") into buf. */
void cost__key(const char *kind, const char *event, const char *fn, char *buf, size_t size);

/* ---- the sides of a diff (costside.c) ---- */

struct diff_side;

/* One side's costs: a cost_profile per file, and each kept run's cost keys. */
struct cost_side {
	struct cost_profile **cp;	/* per file of the side, owned */
	size_t nr_files;
	/*
	 * Per run the side compares (after --drop-run, in diff_side.runs'
	 * order): its file and run index, its cost keys, and the diff_run of
	 * them (items borrow keys'), for diff__compute.
	 */
	uint32_t *file, *run;
	struct cost_keys *keys;
	struct diff_run *runs;
	size_t nr_runs;
	/*
	 * Per run and compared event (run-major): the run's samples of the
	 * event, which runs[r].samples points at: a function's cost per op is
	 * a count of its samples, and the test's floor is its Poisson noise.
	 */
	struct diff_samples *samp;
};

/*
 * The costs of a comparison: the work, the events compared (keys
 * spelling, those of every side, time events first), the base's mean
 * total per event, and a cost_side per diff_side.  When no cost can be
 * compared (a run of unknown work, no event in common), nr_events is 0
 * and note says why and what to do ("base run 2 (a.data run 2) has no
 * thp-zap.ops: a failed run; leave it out with --drop-run base:2");
 * otherwise note is the work's note (cost_work), often "".
 */
struct cost_sides {
	struct cost_work work;
	char **events;			/* owned */
	bool *time;			/* per event: a time in ns (cost_event__unit) */
	const char **unit;		/* per event: "ns" or "events" (static strings) */
	double *base_total;		/* per event */
	size_t nr_events;
	struct cost_side *side;		/* nr_sides, the base first */
	size_t nr_sides;
	/*
	 * Each compared column's attribution per event (cost_attr__compute,
	 * default options), [(column - 1) * nr_events + event]: made at build,
	 * while the files' symbol tries are there for its call chains; the
	 * tries go then (cost_profile__drop_view), a third of the costs'
	 * memory (33 of 57 MB for two 10-run files of 100,000 stacks).
	 */
	struct cost_attr *attr;
	char note[1024];
	/* cost_sides__start's helper thread and what it builds from */
	struct parallel_job builder;
	const struct diff_side *from;
	struct diff_side *drop_views;	/* the sides whose views go once built, or NULL */
};

/*
 * Build c from the nr loaded sides s (diffside.h, --drop-run applied),
 * with per the --per key or NULL.  0 (costs or a note), or -EINVAL and e
 * for a --per that names no metric of some file.  Release c either way.
 */
int cost_sides__build(struct cost_sides *c, const struct diff_side *s, size_t nr,
		      const char *per, struct errmsg *e);
/*
 * The same in two halves, so that the caller's own work (diff's keys)
 * runs while the costs are built: start chooses the work (its errors are
 * start's) and builds the rest on a helper thread, one file at a time;
 * wait returns once c is complete.  Nothing may change s, nor read c,
 * in between.  Without a thread to be had, start builds all itself.
 */
/*
 * drop_views: s again where the costs are the last to read the files'
 * collapses (diff_side.views, without -g): the helper drops them
 * (diff_side__drop_views) once the costs are built, not once the
 * caller's keys are diffed; NULL leaves them.
 */
int cost_sides__start(struct cost_sides *c, const struct diff_side *s, size_t nr,
		      const char *per, struct diff_side *drop_views, struct errmsg *e);
void cost_sides__wait(struct cost_sides *c);
void cost_sides__release(struct cost_sides *c);

/* Side k's mean over its runs of the cost key key ("cost.total.cpu-clock"), 0 when absent. */
double cost_sides__mean(const struct cost_sides *c, size_t k, const char *key);

struct cost_attr;
/* Column column's attribution of event (keys spelling), or NULL when not compared. */
const struct cost_attr *cost_sides__attr(const struct cost_sides *c, size_t column, const char *event);

/* ---- the attribution (costattr.c) ---- */

/* One function's change in self cost per unit of work between the base and a column. */
struct cost_attr_row {
	const char *fn;		/* borrowed from a cost_profile; NULL: the "elsewhere" row */
	double base, cur;	/* mean self cost per unit of work */
	double delta;		/* cur - base */
	double share;		/* 100 * delta / the total's delta; NAN when the total did not move */
	double points;		/* 100 * delta / the base's total: the change of cost.part */
	double children_base, children_cur;	/* mean children costs (overlap: no sum) */
	size_t nr;		/* the functions the row stands for (1, or those elsewhere) */
};

/* A call chain carrying a listed function's change: its self cost under that chain. */
struct cost_chain {
	char *chain;		/* owned: callers root first, then the function, ';'-separated */
	const char *fn;		/* the listed function it ends in (borrowed) */
	double base, cur, delta;
};

struct cost_attr_opts {
	double cover;		/* list functions until they hold this % of Σ|delta| (0: 90) */
	size_t max_rows;	/* at most this many listed (0: 10) */
	size_t chain_depth;	/* callers shown above a listed function (0: 3) */
	size_t max_chains;	/* chains per listed function (0: 2) */
};

/*
 * The change of one event's cost per unit of work between the base (side
 * 0) and side column: totals, then the functions by |delta of self cost|,
 * largest first (ties by name), listed until they cover o->cover % of
 * Σ|delta| or o->max_rows are listed, the rest one "elsewhere" row last
 * (fn NULL, delta = the total's delta - Σ listed delta, so that the rows'
 * deltas add up to the total's exactly); every function in all (the
 * waterfall's input, same order).  Chains: for each listed function, its
 * heaviest caller chains by |delta| that carry at least 5 % of its delta,
 * taken from the files' symbol tries: cost_sides__build computes every
 * column's while they are there (cost_sides__attr), nothing after it.  0,
 * or -ENOENT when event is not one of c's.  Release with
 * cost_attr__release.
 */
struct cost_attr {
	const char *event, *unit;	/* borrowed from c */
	bool time;
	double base, cur, delta, rel;	/* mean totals; rel: 100 * delta / base */
	struct cost_attr_row *rows;	/* listed, then elsewhere (when any function is left) */
	size_t nr;
	struct cost_attr_row *all;	/* every function with a self cost on either side */
	size_t nr_all;
	struct cost_chain *chains;
	size_t nr_chains;
};
int cost_attr__compute(const struct cost_sides *c, size_t column, const char *event,
		       const struct cost_attr_opts *o, struct cost_attr *a);
void cost_attr__release(struct cost_attr *a);

/* ---- in diff's outputs (costfmt.c) ---- */

/*
 * The attribution of base against side column (1 with two sides) in
 * format f: lkp, the text block diff prints after its header (the
 * benchmark's change per event, the workload's throughput row of d, then
 * per time event the functions, elsewhere and total, and the chains);
 * json, cost__json below; markdown, a section; csv, a
 * second table after a blank line (event, function, base, new, change,
 * unit, share_pct, points, verdict).  Verdicts from dc, the diff of the
 * cost keys (NULL: "-"); lkp and markdown print no shares of the total's
 * change when its own row in dc is not a change.  Without costs, c->note
 * alone.
 */
void cost__format(struct outbuf *b, const struct cost_sides *c, size_t column,
		  const struct diff *dc, const struct diff *d, enum diff_format f);
/*
 * Where function fn's cost per op of event (dc's cost.self row) and its
 * self share (d's perf-profile.self row, tested) answer apart, one
 * flagged and the other not or the two flagged opposite ways, write lead
 * and the note that says both, with the event's total per op that parts
 * them (cost per op = share x total): "(its share down, the total per op
 * up: cost = share x total)" or "(its share: can't tell)"; true.  Else
 * nothing, false.  The text's and markdown's function lines and the HTML
 * waterfall's bar say it in these words; the JSON function's
 * share_verdict is the same test's.
 */
bool cost__share_note(struct outbuf *b, const char *lead, const struct diff *d, const struct diff *dc,
		      const char *event, const char *fn);
/* JSON: the same as the object member key of w's container (work, note, throughput, events). */
void cost__json(struct jsonw *w, const char *key, const struct cost_sides *c, size_t column,
		const struct diff *dc, const struct diff *d);

#endif
