/*
 * htmlcell: the cells of a diff row in the HTML report, shared by its
 * first screen (htmlverdict.c) and the table of every row (html.c): a
 * row's class (its verdict, and better or worse where the key's
 * direction is known), a number as its column shows it, a change.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "mmprof/keykind.h"
#include "mmprof/waterfall.h"

#include "html-int.h"

/*
 * A row's class: its verdict's, and where the key's better direction is
 * known (keykind__goodness: the workload's operations up, costs and
 * latencies down) "better" or "worse" too, which the colours follow.
 */
const char *html__row_class(const struct diff_row *r)
{
	int good = keykind__goodness(r->key);

	if (good && r->verdict == DIFF_UP)
		return good > 0 ? "up better" : "up worse";
	if (good && r->verdict == DIFF_DOWN)
		return good > 0 ? "down worse" : "down better";
	return waterfall__verdict_class(r->verdict);
}

void html__num_cell(struct outbuf *b, double v, enum cell how)
{
	if (!isfinite(v)) {
		outbuf__puts(b, "<td class=\"n\" data-v=\"\">\xe2\x80\x94</td>");
		return;
	}
	outbuf__printf(b, "<td class=\"n\" data-v=\"%.17g\">", v);
	switch (how) {
	case CELL_VALUE: outbuf__printf(b, "%.4g", v); break;
	case CELL_SD: outbuf__printf(b, "%.2g", v); break;
	case CELL_POINTS: outbuf__printf(b, "%+.2f pt", v); break;
	case CELL_PCT: outbuf__printf(b, fabs(v) < 1e6 ? "%+.1f%%" : "%+.3g%%", v); break;
	case CELL_Q: outbuf__printf(b, "%.2g", v); break;
	case CELL_POINTS_ABS: outbuf__printf(b, "%.2g pt", v); break;
	case CELL_PCT_ABS: outbuf__printf(b, fabs(v) < 1e6 ? "%.2g%%" : "%.3g%%", v); break;
	}
	outbuf__puts(b, "</td>");
}

/* A change cell: "new" / "gone" where a side is 0 (a ratio from 0 is no number). */
void html__change_cell(struct outbuf *b, const struct diff_row *r)
{
	if (!r->base.mean && r->cur.mean)
		outbuf__puts(b, "<td class=\"n\" data-v=\"1e300\">new</td>");
	else if (r->base.mean && !r->cur.mean)
		outbuf__puts(b, "<td class=\"n\" data-v=\"-1e300\">gone</td>");
	else
		html__num_cell(b, r->change, r->absolute ? CELL_POINTS : CELL_PCT);
}
