/*
 * html: the one-file HTML reports of `mmprof diff --html` and `mmprof
 * report --html` (src/html/), above diff (the rows, verdicts and gates
 * they show) and flame (the graphs and the cost waterfall drawn inline).
 * Self-contained pages: CSS, script and SVG inline, no network access.
 * Library code: writes into a struct outbuf, never to stdout.
 */
#ifndef MMPROF_HTML_H
#define MMPROF_HTML_H

#include <stdbool.h>
#include <stddef.h>

#include "mmprof/diff.h"
#include "mmprof/flame.h"
#include "mmprof/outbuf.h"
#include "mmprof/profile.h"
#include "mmprof/waterfall.h"

/* One side of an HTML diff report: the files and their loaded profiles. */
struct html_side {
	const char *name;		/* "base" / "new" */
	char *const *paths;
	const struct profile *const *profiles;
	size_t nr;			/* files */
	size_t nr_runs;
};

/*
 * The cost per operation parts of an HTML diff (issue 16); a member NULL
 * is left out, and so is all of it when the pointer is NULL.
 */
struct html_cost {
	const struct waterfall *waterfall;	/* the attribution, on the first screen */
	const char *title;		/* the waterfall's heading ("CPU per op: +3.2 µs (+41 %)") */
	const char *subtitle;		/* its second line's start: the work ("work: x.ops, 4 + 4 runs") */
	const char *note;		/* a line under it: that no work count is known, or why no cost */
	const struct flame *per_op;	/* the graph per op (flame_diff_opts.scale), beside f */
	const char *per;		/* its switch's word for the work: "op"; NULL: "op" */
};

/*
 * The cost parts of an HTML diff made from the cost model (cost.h): the
 * attribution of base (side 0) against column of c for the graph's event
 * (or the first time event c compares) as a waterfall in a unit scaled
 * for a reader, verdicts from dc (the diff of c's keys; NULL: grey), a
 * bar's note where its cost and its self share in d (the table's diff;
 * NULL: none) answer apart (cost__share_note, the text's words), the
 * title and note (the work, or that costs are per second of run, or c's
 * note alone when nothing is compared), and the graph per op of the two
 * sides' profiles with fo's options (fo NULL: none; the runs c leaves out,
 * --drop-run, are left out of it).  hb owns what hb->hc points to:
 * release it with html_cost__release.
 */
struct cost_sides;
struct cost_attr;
struct html_cost_build {
	struct html_cost hc;
	struct waterfall w;
	struct waterfall_bar *bars;
	char **labels, **notes;
	const struct cost_attr *attr;	/* borrowed from the cost_sides */
	struct flame per_op;
	bool have_flame;
	double *scale[2];
	char title[320], subtitle[400], note[2048], unit[64], flame_unit[64];
};
void html_cost__build(struct html_cost_build *hb, const struct cost_sides *c, size_t column,
		      const struct diff *dc, const struct diff *d, const struct profile *const *bp, size_t nbp,
		      const struct profile *const *np, size_t nnp, const char *event,
		      const struct flame_diff_opts *fo);
void html_cost__release(struct html_cost_build *hb);

/*
 * The self-contained HTML report of a diff.  The first screen is the
 * answer: the files, the gates' outcome (gates NULL or none: no line),
 * failed and disturbed runs, the workload's own metrics with their
 * verdicts, the waterfall of the cost per operation (cost), the
 * perf-profile children rows that moved most with the call chain that
 * moved most under each, then the differential flame graph f (NULL: a
 * note that there is none); with cost->per_op, a switch between widths by
 * share and by cost per op on either side (CSS radio buttons: no script
 * needed).  Below, folded: the rows (from diff__select) with verdicts in
 * a sortable, filterable table, and both sides' metadata.  A change from
 * or to 0 reads "new" / "gone".  No network access: CSS, script and SVG
 * are inline.
 */
struct ci_gates;
void html__diff(struct outbuf *b, const struct html_side sides[2], const struct diff *d,
		const struct diff_row *const *rows, size_t n, const struct flame *f,
		const char *event, const struct ci_gates *gates, const struct html_cost *cost);

/* A row of the single-profile report: a function's shares of the event's total, %. */
struct html_key_row {
	const char *sym;	/* borrowed */
	double children, self;
};

/*
 * The self-contained HTML report of one recording (`mmprof report --html`):
 * its metadata (s: one side, the file), the rows in a sortable, filterable
 * table, and the flame graph f inline (NULL: a note that there is none).
 * unresolved: the line saying how much of the total has no name and that
 * it is counted (report.h's report__unnamed_line), or NULL.
 */
void html__report(struct outbuf *b, const struct html_side *s, const struct html_key_row *rows,
		  size_t n, const struct flame *f, const char *event, const char *unresolved);

#endif
