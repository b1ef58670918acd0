/*
 * flame: flame graphs (SVG) drawn from a profile's call-stack trie and
 * the differential flame graph of two sets of runs, which the HTML
 * reports (html.h) draw inline.
 *
 * A struct flame is a symbol-level tree built once, then laid out and
 * written as SVG by flame__svg:
 *   - flame__build   one profile: frames merged by (symbol, DSO, kernel)
 *                    along the path, weighted by period or samples, summed
 *                    over runs and comms; optionally callee-rooted (icicle);
 *   - flame__build_diff  two sides: the paths of chains.h (matched by
 *                    normalised symbol names, per-run % of the event's
 *                    total, Welch + Benjamini-Hochberg per path), width
 *                    from one side, colour from the change and its q; a
 *                    frame renamed between builds is drawn and titled
 *                    "hot.isra.0 → hot.isra.1"; or, given each run's
 *                    scale (unit over its work count), widths and colours
 *                    from the cost per operation (per_op), both sides to
 *                    one scale: a subtree that costs twice as much per
 *                    operation is twice as wide on the new side whatever
 *                    its share did (issue 16).
 * Invariants: nodes[0] is the root; parent < own id; a node's value is at
 * least the sum of its children's (inclusive weights).
 *
 * Output size is bounded by min-width merging: children narrower than the
 * limit are drawn as one "[N small frames]" box (or left out when even
 * that box is too narrow), so a profile of 10^5 distinct stacks yields at
 * most ~(100 / min_pct) boxes per depth level.  Building is O(trie nodes)
 * (icicle: O(sum of stack depths)); layout is one pass over drawn nodes.
 * Library code: writes into a struct outbuf, never to stdout.
 */
#ifndef MMPROF_FLAME_H
#define MMPROF_FLAME_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "mmprof/diff.h"
#include "mmprof/errmsg.h"
#include "mmprof/hashidx.h"
#include "mmprof/profile.h"

struct chain_fns;

#define FLAME_NONE UINT32_MAX

/* Colour state of a frame in a differential graph. */
enum flame_state {
	FLAME_SAME,		/* change not significant (or under the effect floor): grey */
	FLAME_GREW,		/* significant rise: red */
	FLAME_SHRANK,		/* significant fall: blue */
};

struct flame_node {
	uint32_t parent;
	uint32_t first_child, next_sibling;	/* FLAME_NONE terminated, set by flame__link */
	uint32_t depth;		/* root 0 */
	uint32_t sym, dso;	/* string ids of the profile (single graphs): the merge key */
	const char *name;	/* borrowed: from a profile (or a static "[unknown]") */
	const char *name_new;	/* diff: the new build's spelling when it differs from name
				 * (hot.isra.1 for hot.isra.0), else NULL; borrowed */
	const char *dso_name;	/* borrowed, may be NULL */
	double value;		/* inclusive width weight (single: period or samples; diff: % of total,
				 * or cost per op) */
	uint64_t samples, period;	/* single graphs: both, for the tooltip (exact: a double rounds above 2^53) */
	double base, cur, delta, q;	/* diff graphs: mean % of total (per_op: cost per op) per side;
					 * q NAN if untested */
	double mde;		/* diff graphs of shares: the detectable change in points (chains.h),
				 * NAN if untested or per op */
	enum flame_state state;
	bool absent;		/* diff: 0 on the width side, drawn hatched at the other side's width */
	int8_t with_fn;		/* diff: chain_row.with_fn, a flagged function's frame moved with (+1)
				 * or against (-1) its table row */
	uint8_t kernel;		/* a kernel frame (beside state and absent: no padding) */
	double lw;		/* layout width (private to the renderer) */
};

struct flame {
	struct flame_node *nodes;
	size_t nr, alloc;
	bool diff, icicle, novar;
	bool width_base;	/* diff: widths from base */
	bool per_op;		/* diff: values are cost per operation in unit, not % */
	double total;		/* root value */
	double scale_total;	/* per_op: the larger side's total, the full width of either side */
	const char *unit;	/* "period" or "samples" (single), "%" (diff), the cost's (per_op) */
	const char *period_name;	/* single: the tooltip's word for the period: "period",
					 * or "off-CPU" for --sched's offcpu event */
	bool period_ns;		/* single: the period is nanoseconds (cpu-clock, task-clock,
				 * offcpu): the tooltip shows it in ms */
	struct hashidx idx;	/* private: (parent, sym, dso, kernel) -> node */
};

struct flame_opts {
	int event;		/* event index; -1 = the first */
	bool samples;		/* weigh by samples instead of period */
	bool icicle;		/* callee-rooted: the root's children are the sampled functions */
	int run;		/* run index, -1 = all runs summed */
	const char *const *comms;	/* only these comms (NULL or nr_comms 0: all) */
	size_t nr_comms;
	const char *const *dsos;	/* keep stacks with a frame in one of these DSOs */
	size_t nr_dsos;
	const uint32_t *pids;	/* only these processes (count.pid; nr_pids 0: all) */
	size_t nr_pids;
};

/*
 * Build the graph of one profile.  0, or -EINVAL with e filled (no such
 * event or run), or -ENOENT (nothing left after the filters).
 */
int flame__build(struct flame *f, const struct profile *p, const struct flame_opts *o,
		 struct errmsg *e);

struct flame_diff_opts {
	const char *event;	/* perf's event name; NULL = the first event of the new side */
	bool width_base;	/* widths from base (default: new) */
	double alpha;		/* FDR level; 0 = 0.05 (diff's default) */
	bool paired;		/* test interleaved pairs on their differences (diff_opts.pair) */
	double min_points;	/* effect floor; 0 = 0.1 (diff's default) */
	double novar_points;	/* 1 run a side: coloured past this change; 0 = 0.5 */
	/*
	 * Per-op mode: scale[0][r], scale[1][r] multiply run r's period on each
	 * side (runs counted over the side's files in order, every factor > 0:
	 * the caller's check), e.g. 1e-3 / ops for µs of cpu-clock per op;
	 * unit names the result ("µs CPU per op", borrowed).  The effect floor
	 * and novar threshold are then min_points and novar_points % of the
	 * larger side's total.  NULL: shares.
	 */
	const double *const *scale;
	const char *unit;
	/*
	 * keep[0][r], keep[1][r] (runs counted as scale's): false leaves the
	 * run out, as diff --drop-run does (chains.h).  NULL: every run.
	 */
	const bool *const *keep;
	/*
	 * The table's perf-profile.children rows of the event (chains.h):
	 * the frames of a function reached by one path only take its row's
	 * verdict, and so do those of a flagged function that moved with
	 * it; other frames are gated on the rows on their path.
	 * NULL: every frame its path's own test.
	 */
	const struct chain_fns *fns;
	/*
	 * Shares only: the paths of these sides already computed with these
	 * options and fns taken (diff -g's, chains__compute of event, alpha,
	 * paired and keep; its min_points changes only which rows have text):
	 * drawn from, not computed again.  Borrowed.  NULL: computed here.
	 */
	const struct chain_diff *chains;
	/* The files' collapses the paths are taken from (chains.h), borrowed; NULL: collapsed here. */
	const struct chain_views *views;
};

/*
 * Build the differential graph of two sides (all runs of all files of each
 * side pooled, as `mmprof diff` pools them).  0, or -EINVAL with e filled.
 */
int flame__build_diff(struct flame *f, const struct profile *const *base, size_t nbp,
		      const struct profile *const *cur, size_t nnp, const struct flame_diff_opts *o,
		      struct errmsg *e);

void flame__release(struct flame *f);

/*
 * Per operation (issue 16, cost.h): how a graph per op reads.  The unit of
 * event (a profile's index) scaled for a reader from ref, a typical cost
 * per unit of work in the event's own unit (a side's mean total): ns, µs,
 * ms or s of CPU (off-CPU for the offcpu event), or the event's count,
 * "per op" or "per s" after the work (cost_work__per).  *mult converts the
 * event's unit into it; unit gets e.g. "µs CPU per op".
 */
struct cost_work;
struct cost_profile;
void flame__cost_unit(const struct profile *p, uint32_t event, const struct cost_work *w, double ref,
		      double *mult, char *unit, size_t size);

/* The mean total of event (perf's name) per unit of work over the runs of known work of nr files; 0: none. */
double flame__cost_mean(const struct cost_profile *const *cp, size_t nr, const char *event);

/*
 * flame_diff_opts.scale of one side: mult over each run's work, every run
 * of the side's nr files in order (cp[i] the costs of its file i), NAN for
 * a run of unknown work or not kept (keep NULL: all kept; else keep[j]
 * false leaves run j of the side out, as --drop-run).  Allocated: the
 * caller frees it.
 */
double *flame__work_scale(const struct cost_profile *const *cp, size_t nr, double mult, const bool *keep);

struct flame_render_opts {
	const char *title;	/* NULL: "Flame Graph" / "Differential Flame Graph" */
	const char *subtitle;	/* NULL: none */
	double width;		/* px; 0 = 1200 */
	double min_width_pct;	/* % of the total; 0 = 0.1, < 0 = draw everything */
	bool inline_html;	/* for an HTML page: no XML prolog, script left to flame__script */
	const char *id;		/* id of the <svg> element; NULL = "mmflame" */
	enum flame_side {	/* diff: the side whose values are the widths */
		FLAME_SIDE_BUILT,	/* as built (flame_diff_opts.width_base) */
		FLAME_SIDE_BASE,
		FLAME_SIDE_NEW,
	} side;
};

/* Statistics of the last render, for tests and the scale check. */
struct flame_render_stats {
	size_t drawn;		/* frame boxes written */
	size_t merged;		/* "[N small frames]" boxes among them */
	size_t omitted;		/* frames too narrow even when merged */
	uint32_t max_depth;
};

/* Write the SVG document (or the inline <svg> element) to b. */
void flame__svg(struct outbuf *b, const struct flame *f, const struct flame_render_opts *o,
		struct flame_render_stats *st);

/* The interaction script (plain JavaScript, no "]]>" nor "</script"). */
const char *flame__script(void);

/*
 * Write a buffer to path ("-" = stdout) as an outfile (outfile.h): whole or
 * not at all, a symlink replaced, a device refused.  0 or -errno with e.
 */
int flame__write_file(const struct outbuf *b, const char *path, struct errmsg *e);

#endif
