/*
 * waterfall: the picture of an attribution that adds up (issue 16): the
 * base side's total cost per operation, one bar per function that
 * accounts for part of the change (up or down from where the previous
 * bar ended), the caller's "elsewhere" bar for the rest, and the new
 * side's total, as one inline SVG element for the HTML diff's first
 * screen (html.h's pages).  The flame module's second picture: it draws
 * what it is given and computes nothing but the layout.
 *
 * Rows run down the page (labels are function names, long): a label
 * column, the bars on one axis from 0 (or below, when a running total
 * dips under it), the value column.  Colours are the diff's: red for more
 * cost (the table's "up"), blue for less ("down"), amber for a 1-run
 * "changed", grey for the rest (not significant, can't tell); totals dark
 * grey.  Readable without a script: every row has its label and value as
 * text; <title>s carry the full label and numbers (tooltips, and for a
 * screen reader the <svg>'s own title and desc).
 *
 * Machine-readable: the <svg> (class "mmwaterfall") carries data-base,
 * data-new and data-bars; each bar's <g class="wf ..."> data-from,
 * data-to and data-delta, all %.17g, so a test can check that the bars
 * add up without reading pixels.
 *
 * Labels are untrusted (names from profiled programs): XML-escaped
 * (escape.h) in the title, fitted to the label column with "..".  A
 * non-finite value is drawn as no bar and read as "-"; the running total
 * skips it.  Workload: tens of bars, O(n).  Writes into an outbuf only.
 */
#ifndef MMPROF_WATERFALL_H
#define MMPROF_WATERFALL_H

#include <stdbool.h>
#include <stddef.h>

#include "mmprof/diff.h"
#include "mmprof/outbuf.h"

struct waterfall_bar {
	const char *label;		/* borrowed; untrusted text */
	double base, cur;		/* the item's own value on each side (its title); NAN: not shown */
	double delta;			/* its change: the bar, signed */
	enum diff_verdict verdict;	/* the colour (see above) */
	bool rest;			/* the "elsewhere" row: drawn hatched */
	const char *note;		/* borrowed: a line of its title under the verdict; NULL: none */
};

struct waterfall {
	const struct waterfall_bar *bars;	/* borrowed, in drawing order */
	size_t nr;
	double base_total, cur_total;	/* the first and the last row */
	const char *unit;		/* after every value: "µs CPU per op"; NULL: none */
	const char *base_name, *cur_name;	/* the totals' rows; NULL: "base", "new" */
};

/* A verdict's CSS class ("up", "cant-tell"): the bars' and the HTML diff table's rows. */
const char *waterfall__verdict_class(enum diff_verdict v);

struct waterfall_render_opts {
	const char *id;		/* id of the <svg>, prefix of its own ids; NULL: "mmwaterfall" */
	const char *title;	/* first line, and the accessible name; NULL: "Change of the total by function" */
	const char *subtitle;	/* the second line's start, before the legend; NULL: the legend alone */
	double width;		/* px; 0 = 1200 */
};

/* Write the inline <svg> element into b. */
void waterfall__svg(struct outbuf *b, const struct waterfall *w, const struct waterfall_render_opts *o);

#endif
