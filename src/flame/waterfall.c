/*
 * waterfall: lay out and write the waterfall of an attribution; see
 * include/mmprof/waterfall.h.  The geometry is fixed per row so that the
 * picture's height is known before the first element is written: a
 * title line, a legend line, one row per total and bar, an axis.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "mmprof/waterfall.h"

#define FONT_PX 11.0
#define CHAR_PX (FONT_PX * 0.59)	/* as svg.c: average glyph width of Verdana-like fonts */
#define ROW_PX 15.0			/* compact: a first screen holds it with the graph below */
#define BAR_PX 11.0
#define TEXT_DY 11.5			/* a row's text baseline below its top */
#define PAD_PX 10.0
#define TOP_PX 38.0			/* title and legend */
#define AXIS_PX 18.0			/* tick labels, the unit after the last */
#define LABEL_PX 300.0			/* label column: about 40 characters */
#define VALUE_PX 230.0			/* value column: "+1234.56 µs CPU per op (100 %)" at 11 px */

static const char *const fill_up = "#cc0000", *const fill_down = "#0040c0", *const fill_changed = "#aa6600",
		  *const fill_same = "#a8a8a8", *const fill_total = "#555555";

static const char *bar_fill(enum diff_verdict v)
{
	switch (v) {
	case DIFF_UP: return fill_up;
	case DIFF_DOWN: return fill_down;
	case DIFF_CHANGED: return fill_changed;
	default: return fill_same;
	}
}

const char *waterfall__verdict_class(enum diff_verdict v)
{
	switch (v) {
	case DIFF_UP: return "up";
	case DIFF_DOWN: return "down";
	case DIFF_CHANGED: return "changed";
	case DIFF_SMALL: return "small";
	case DIFF_CANT_TELL: return "cant-tell";
	default: return "same";
	}
}

static const char *verdict_words(enum diff_verdict v)
{
	switch (v) {
	case DIFF_UP: return "up (significant)";
	case DIFF_DOWN: return "down (significant)";
	case DIFF_CHANGED: return "changed (1 run on a side: past the threshold, untested)";
	case DIFF_SMALL: return "significant but under the effect floor";
	case DIFF_CANT_TELL: return "can't tell (the runs could not detect a change this size)";
	default: return "not significant";
	}
}

/* A value as a reader wants it: 3 significant digits, no exponent below 10^6; "-" if not finite. */
static void value(struct outbuf *b, double v, bool sign)
{
	if (!isfinite(v))
		outbuf__puts(b, "\xe2\x80\x94");
	else if (fabs(v) >= 1e6 || (v != 0 && fabs(v) < 1e-3))
		outbuf__printf(b, sign ? "%+.3g" : "%.3g", v);
	else if (fabs(v) >= 100)
		outbuf__printf(b, sign ? "%+.0f" : "%.0f", v);
	else
		outbuf__printf(b, sign ? "%+.3g" : "%.3g", v);
}

static void unit(struct outbuf *b, const struct waterfall *w)
{
	if (w->unit && *w->unit) {
		outbuf__putc(b, ' ');
		outbuf__xml_str(b, w->unit);
	}
}

/* An axis step of 1, 2 or 5 times a power of ten giving 4 to 10 ticks over range. */
static double tick_step(double range)
{
	double p = pow(10, floor(log10(range / 5))), m = range / p;

	return m <= 10 ? p : m <= 20 ? 2 * p : m <= 50 ? 5 * p : 10 * p;
}

struct wgeom {
	double lo, hi;		/* axis range, value units */
	double step;		/* between ticks, value units */
	double x0, bw;		/* bar area: left and width, px */
	double width, height;	/* the picture, px */
	size_t label_chars;	/* a row label's room */
};

static double wx(const struct wgeom *g, double v)
{
	return g->x0 + (v - g->lo) / (g->hi - g->lo) * g->bw;
}

/* One row's bar from a to b (value units), its label and value text; the <g> is the caller's. */
static void row_shapes(struct outbuf *b, const struct wgeom *g, double y, double a, double e,
		       const char *fill, const char *label, size_t label_chars)
{
	if (isfinite(a) && isfinite(e)) {
		double xa = wx(g, fmin(a, e)), xb = wx(g, fmax(a, e));

		/* a change too small for a pixel still shows where it is */
		outbuf__printf(b, "<rect x=\"%.2f\" y=\"%.1f\" width=\"%.2f\" height=\"%.0f\" fill=\"%s\"/>",
			       xa, y + (ROW_PX - BAR_PX) / 2, fmax(xb - xa, 1.0), BAR_PX, fill);
	}
	outbuf__printf(b, "<text class=\"l\" x=\"%.0f\" y=\"%.1f\">", PAD_PX, y + TEXT_DY);
	outbuf__xml_fit(b, label, label_chars);
	outbuf__puts(b, "</text>");
}

/* The axis holds every running total and both totals, rounded out to ticks. */
static void wgeom__init(struct wgeom *g, const struct waterfall *w, double width)
{
	double run, lo = 0, hi = 0;
	size_t i;

	run = isfinite(w->base_total) ? w->base_total : 0;
	lo = fmin(lo, run);
	hi = fmax(hi, run);
	for (i = 0; i < w->nr; i++) {
		if (isfinite(w->bars[i].delta))
			run += w->bars[i].delta;
		lo = fmin(lo, run);
		hi = fmax(hi, run);
	}
	if (isfinite(w->cur_total)) {
		lo = fmin(lo, w->cur_total);
		hi = fmax(hi, w->cur_total);
	}
	if (!(hi > lo))
		hi = lo + 1;
	g->step = tick_step(hi - lo);
	g->lo = floor(lo / g->step) * g->step;
	g->hi = ceil(hi / g->step) * g->step;
	g->x0 = PAD_PX + LABEL_PX;
	g->width = width;
	g->bw = fmax(width - g->x0 - VALUE_PX - PAD_PX, 100);
	g->height = TOP_PX + (double)(w->nr + 2) * ROW_PX + AXIS_PX;
	g->label_chars = (size_t)((LABEL_PX - 14) / CHAR_PX);
}

/* The svg element, its accessible title and description (the totals and the top 3 bars), hatch and style. */
static void waterfall__head(struct outbuf *b, const struct waterfall *w, const struct wgeom *g,
			    const char *id, const char *title)
{
	const char *bn = w->base_name ? w->base_name : "base";
	size_t i;

	outbuf__printf(b, "<svg version=\"1.1\" xmlns=\"http://www.w3.org/2000/svg\" id=\"%s\" class=\"mmwaterfall\" "
			  "role=\"img\" aria-labelledby=\"%s-title %s-desc\" width=\"%.0f\" height=\"%.0f\" "
			  "viewBox=\"0 0 %.0f %.0f\" data-base=\"%.17g\" data-new=\"%.17g\" data-bars=\"%zu\">\n",
		       id, id, id, g->width, g->height, g->width, g->height, w->base_total, w->cur_total, w->nr);
	outbuf__printf(b, "<title id=\"%s-title\">", id);
	outbuf__xml_str(b, title);
	outbuf__printf(b, "</title>\n<desc id=\"%s-desc\">", id);
	outbuf__xml_str(b, bn);
	outbuf__puts(b, " ");
	value(b, w->base_total, false);
	outbuf__puts(b, ", new ");
	value(b, w->cur_total, false);
	unit(b, w);
	outbuf__puts(b, " (");
	value(b, w->cur_total - w->base_total, true);
	outbuf__printf(b, "), in %zu bars, largest first as given", w->nr);
	for (i = 0; i < w->nr && i < 3; i++) {
		outbuf__puts(b, i ? "; " : ": ");
		outbuf__xml_str(b, w->bars[i].label);
		outbuf__puts(b, " ");
		value(b, w->bars[i].delta, true);
	}
	outbuf__puts(b, ".</desc>\n");
	outbuf__printf(b, "<defs><pattern id=\"%s-hatch\" width=\"6\" height=\"6\" patternUnits=\"userSpaceOnUse\" "
			  "patternTransform=\"rotate(45)\"><rect width=\"6\" height=\"6\" fill=\"#d8d8d8\"/>"
			  "<line x1=\"0\" y1=\"0\" x2=\"0\" y2=\"6\" stroke=\"#888888\" stroke-width=\"2\"/></pattern></defs>\n",
		       id);
	outbuf__printf(b, "<style>\n"
			  "#%s text { font-family: Verdana, 'DejaVu Sans', sans-serif; font-size: %.0fpx; fill: #222; }\n"
			  "#%s .t { font-size: 14px; font-weight: bold; }\n"
			  "#%s .g, #%s .ax { font-size: 11px; fill: #555; }\n"
			  "#%s .v { font-family: 'DejaVu Sans Mono', monospace; font-size: 11px; text-anchor: end; }\n"
			  "#%s .ax { text-anchor: middle; }\n"
			  "#%s g.wf:hover rect { stroke: black; stroke-width: 0.6; }\n"
			  "</style>\n",
		       id, FONT_PX, id, id, id, id, id, id);
}

/* The visible title and legend, then the axis: grid lines behind the bars, tick labels below. */
static void waterfall__axis(struct outbuf *b, const struct waterfall *w, const struct wgeom *g,
			    const char *title, const char *subtitle)
{
	double y, t, step = g->step;

	outbuf__printf(b, "<rect x=\"0\" y=\"0\" width=\"%.0f\" height=\"%.0f\" fill=\"#fafaf6\"/>\n", g->width,
		       g->height);
	outbuf__printf(b, "<text class=\"t\" x=\"%.0f\" y=\"17\">", PAD_PX);
	outbuf__xml_str(b, title);
	outbuf__printf(b, "</text>\n<text class=\"g\" x=\"%.0f\" y=\"31\">", PAD_PX);
	if (subtitle) {
		outbuf__xml_str(b, subtitle);
		outbuf__puts(b, " \xc2\xb7 ");
	}
	outbuf__puts(b, "red more, blue less (significant), grey not significant, hatched the rest; ");
	outbuf__xml_str(b, w->base_name ? w->base_name : "base");
	outbuf__puts(b, " + the bars = ");
	outbuf__xml_str(b, w->cur_name ? w->cur_name : "new");
	outbuf__puts(b, "</text>\n");

	y = TOP_PX + (double)(w->nr + 2) * ROW_PX;
	for (t = g->lo; t <= g->hi + step / 2; t += step) {
		double x = wx(g, t);

		outbuf__printf(b, "<line x1=\"%.2f\" y1=\"%.0f\" x2=\"%.2f\" y2=\"%.0f\" stroke=\"%s\" stroke-width=\"1\"/>"
				  "<text class=\"ax\" x=\"%.2f\" y=\"%.0f\">", x, TOP_PX, x, y + 4,
			       fabs(t) < step / 2 ? "#999999" : "#e4e4e0", x, y + 14);
		value(b, fabs(t) < step / 2 ? 0 : t, false);
		outbuf__puts(b, "</text>\n");
	}
	outbuf__printf(b, "<text class=\"ax\" x=\"%.2f\" y=\"%.0f\" style=\"text-anchor: start\">",
		       g->x0 + g->bw + 16, y + 14);
	outbuf__xml_str(b, w->unit && *w->unit ? w->unit : "value");
	outbuf__puts(b, "</text>\n");
}

/* The dashed connector from the row above to where the row at y starts (x at value v). */
static void waterfall__connector(struct outbuf *b, const struct wgeom *g, double y, double v)
{
	outbuf__printf(b, "<line x1=\"%.2f\" y1=\"%.1f\" x2=\"%.2f\" y2=\"%.1f\" stroke=\"#777777\" "
			  "stroke-dasharray=\"2,2\"/>\n", wx(g, v), y - (ROW_PX - BAR_PX) / 2, wx(g, v),
		       y + (ROW_PX - BAR_PX) / 2);
}

/* A total's row (name: total), from 0; change, when finite and not NAN, in its title. */
static void waterfall__total(struct outbuf *b, const struct waterfall *w, const struct wgeom *g, double y,
			     const char *name, double total, const double *change)
{
	outbuf__printf(b, "<g class=\"wf total\" data-from=\"0\" data-to=\"%.17g\" data-delta=\"%.17g\"><title>",
		       total, total);
	outbuf__xml_str(b, name);
	outbuf__puts(b, ": ");
	value(b, total, false);
	unit(b, w);
	if (change) {
		outbuf__puts(b, " (");
		value(b, *change, true);
		outbuf__puts(b, ")");
	}
	outbuf__puts(b, "</title>");
	row_shapes(b, g, y, 0, total, fill_total, name, g->label_chars);
	outbuf__printf(b, "<text class=\"v\" x=\"%.0f\" y=\"%.1f\">", g->width - PAD_PX, y + TEXT_DY);
	value(b, total, false);
	unit(b, w);
	outbuf__puts(b, "</text></g>\n");
}

/* One bar's row, from the running total from; its title says both sides, the change and the verdict. */
static void waterfall__bar(struct outbuf *b, const struct waterfall *w, const struct wgeom *g, double y,
			   const struct waterfall_bar *bar, double from, const char *id)
{
	double change = w->cur_total - w->base_total;
	double to = isfinite(bar->delta) ? from + bar->delta : from;
	bool part = change != 0 && isfinite(change) && isfinite(bar->delta);

	waterfall__connector(b, g, y, from);
	outbuf__printf(b, "<g class=\"wf %s%s\" data-from=\"%.17g\" data-to=\"%.17g\" data-delta=\"%.17g\"><title>",
		       waterfall__verdict_class(bar->verdict), bar->rest ? " rest" : "", from, to, bar->delta);
	outbuf__xml_str(b, bar->label);
	outbuf__puts(b, "\n");
	if (isfinite(bar->base) || isfinite(bar->cur)) {
		outbuf__puts(b, "base ");
		value(b, bar->base, false);
		outbuf__puts(b, " \xe2\x86\x92 new ");
		value(b, bar->cur, false);
		unit(b, w);
		outbuf__puts(b, ": ");
	}
	value(b, bar->delta, true);
	if (!bar->rest || isfinite(bar->base))
		unit(b, w);
	if (part)
		outbuf__printf(b, ", %.0f%% of the change", 100 * bar->delta / change);
	outbuf__puts(b, "\n");
	outbuf__puts(b, bar->rest ? "the functions not listed above" : verdict_words(bar->verdict));
	if (bar->note) {
		outbuf__puts(b, "\n");
		outbuf__xml_str(b, bar->note);
	}
	outbuf__puts(b, "</title>");
	if (bar->rest) {
		char fill[96];

		snprintf(fill, sizeof(fill), "url(#%s-hatch)", id);
		row_shapes(b, g, y, from, isfinite(bar->delta) ? to : NAN, fill, bar->label, g->label_chars);
	} else {
		row_shapes(b, g, y, from, isfinite(bar->delta) ? to : NAN, bar_fill(bar->verdict),
			   bar->label, g->label_chars);
	}
	outbuf__printf(b, "<text class=\"v\" x=\"%.0f\" y=\"%.1f\">", g->width - PAD_PX, y + TEXT_DY);
	value(b, bar->delta, true);
	if (part)
		outbuf__printf(b, " (%.0f%%)", 100 * bar->delta / change);
	outbuf__puts(b, "</text></g>\n");
}

void waterfall__svg(struct outbuf *b, const struct waterfall *w, const struct waterfall_render_opts *o)
{
	const char *id = o && o->id ? o->id : "mmwaterfall";
	const char *title = o && o->title ? o->title : "Change of the total by function";
	double change = w->cur_total - w->base_total, run, y;
	struct wgeom g;
	size_t i;

	wgeom__init(&g, w, o && o->width > 0 ? o->width : 1200);
	waterfall__head(b, w, &g, id, title);
	waterfall__axis(b, w, &g, title, o ? o->subtitle : NULL);
	/* the rows: base total, the bars, new total */
	y = TOP_PX;
	waterfall__total(b, w, &g, y, w->base_name ? w->base_name : "base", w->base_total, NULL);
	run = isfinite(w->base_total) ? w->base_total : 0;
	for (i = 0; i < w->nr; i++) {
		y += ROW_PX;
		waterfall__bar(b, w, &g, y, &w->bars[i], run, id);
		if (isfinite(w->bars[i].delta))
			run += w->bars[i].delta;
	}
	y += ROW_PX;
	waterfall__connector(b, &g, y, run);
	waterfall__total(b, w, &g, y, w->cur_name ? w->cur_name : "new", w->cur_total, &change);
	outbuf__puts(b, "</svg>\n");
}
