/*
 * html-int.h: what the files of the HTML reports share (src/html/):
 * html.c writes the pages, htmlverdict.c the first screen of a diff's,
 * htmlcell.c the cells of a row that both show.  Calls go one way:
 * html.c -> htmlverdict.c -> htmlcell.c.
 */
#ifndef MMPROF_HTML_INT_H
#define MMPROF_HTML_INT_H

#include "mmprof/diff.h"
#include "mmprof/flame.h"
#include "mmprof/html.h"
#include "mmprof/outbuf.h"

struct ci_gates;

/* ---- cells (htmlcell.c) ---- */

enum cell { CELL_VALUE, CELL_SD, CELL_POINTS, CELL_PCT, CELL_Q, CELL_POINTS_ABS, CELL_PCT_ABS };

/* A row's class: its verdict's, "better" or "worse" where the key's direction is known. */
const char *html__row_class(const struct diff_row *r);
/* A number cell, how its column shows it ("—" when not finite); data-v sorts it. */
void html__num_cell(struct outbuf *b, double v, enum cell how);
/* A change cell: "new" / "gone" where a side is 0 (a ratio from 0 is no number). */
void html__change_cell(struct outbuf *b, const struct diff_row *r);

/* ---- the first screen of a diff (htmlverdict.c) ---- */

/* The recorded settings that differ between the sides (diff.h), first on the page. */
void html__settings_differ(struct outbuf *b, const struct html_side sides[2]);
/* Gates, runs, the workload's metrics, the cost waterfall; the movers too when there is no waterfall. */
void html__verdict(struct outbuf *b, const struct html_side sides[2], const struct diff *d,
		   const struct ci_gates *gates, const struct html_cost *cost);
/* The functions whose share moved, each with the call chain that moved most. */
void html__moved(struct outbuf *b, const struct diff *d);

#endif
