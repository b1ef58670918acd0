/*
 * svg: lay a flame tree out and write it as one SVG document.
 *
 * Layout width of a frame = max(its own width, the sum of its children's):
 * equal to the value for a normal tree; larger only above the hatched
 * frames of a differential graph (absent on the width side, drawn at the
 * other side's width), so their callers make room for them.  Children
 * narrower than the minimum width are merged into one box; see flame.h.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "mmprof/chains.h"
#include "mmprof/flame.h"
#include "mmprof/outfile.h"
#include "mmprof/xalloc.h"

#define FONT_PX 12.0
#define CHAR_PX (FONT_PX * 0.59)	/* average glyph width of Verdana-like fonts */
#define FRAME_PX 16.0
#define PAD_PX 10.0

struct box {
	uint32_t node;		/* FLAME_NONE for a merged box */
	uint32_t depth, k;	/* k: frames in a merged box */
	double x, w;		/* layout units */
	double value;
	uint64_t samples, period;
	double base, cur;
};

struct layout {
	struct box *boxes;
	size_t nr, alloc;
	uint32_t max_depth;
	size_t omitted;
};

static void layout__add(struct layout *l, const struct box *bx)
{
	XGROW(l->boxes, l->alloc, l->nr);
	l->boxes[l->nr++] = *bx;
	if (bx->depth > l->max_depth)
		l->max_depth = bx->depth;
}

/* diff: 0 on the width side (wb: base), drawn hatched at the other side's width */
static bool absent(const struct flame *f, const struct flame_node *n, bool wb)
{
	return f->diff && n->depth && !((wb ? n->base : n->cur) > 0);
}

/*
 * A frame's own width.  Per op, a frame absent from the width side is not
 * drawn: widths are that side's costs, to scale with the other side's
 * graph, which shows it.
 */
static double own_width(const struct flame *f, const struct flame_node *n, bool wb)
{
	if (!f->diff)
		return n->depth ? n->value : f->total;
	if (absent(f, n, wb))
		return f->per_op ? 0 : wb ? n->cur : n->base;
	return wb ? n->base : n->cur;
}

static int cmp_name(const void *a, const void *b, void *ctx)
{
	const struct flame *f = ctx;
	const struct flame_node *x = &f->nodes[*(const uint32_t *)a], *y = &f->nodes[*(const uint32_t *)b];
	int c = strcmp(x->name, y->name);

	if (c)
		return c;
	if (x->kernel != y->kernel)
		return x->kernel - y->kernel;
	return *(const uint32_t *)a < *(const uint32_t *)b ? -1 : 1;
}

/*
 * Children of drawn frames, in name order (flamegraph.pl's order: stable,
 * so two graphs of similar profiles look alike).
 */
static void layout(struct layout *l, const struct flame *f, const double *lw, double thr)
{
	uint32_t *kids = xmalloc((f->nr + 1) * sizeof(*kids));
	struct stk {
		uint32_t node;
		double x;
	} *stack = xmalloc((f->nr + 1) * sizeof(*stack));
	size_t sp = 0;

	stack[sp++] = (struct stk){ 0, 0 };
	while (sp) {
		struct stk s = stack[--sp];
		const struct flame_node *n = &f->nodes[s.node];
		struct box bx = { s.node, n->depth, 0, s.x, lw[s.node], n->value, n->samples,
				  n->period, n->base, n->cur };
		struct box mg = { FLAME_NONE, n->depth + 1, 0, 0, 0, 0, 0, 0, 0, 0 };
		double x = s.x;
		size_t first = sp;
		uint32_t c;

		size_t nk = 0, k;

		layout__add(l, &bx);
		for (c = n->first_child; c != FLAME_NONE; c = f->nodes[c].next_sibling)
			if (lw[c] > 0)
				kids[nk++] = c;
		qsort_r(kids, nk, sizeof(*kids), cmp_name, (void *)f);
		for (k = 0; k < nk; k++) {
			const struct flame_node *cn = &f->nodes[kids[k]];

			c = kids[k];

			if (lw[c] < thr) {
				mg.k++;
				mg.w += lw[c];
				mg.value += cn->value;
				mg.samples += cn->samples;
				mg.period += cn->period;
				mg.base += cn->base;
				mg.cur += cn->cur;
				continue;
			}
			stack[sp++] = (struct stk){ c, x };
			x += lw[c];
		}
		/* pushed in order; reverse so the first child is drawn first */
		for (size_t i = first, j = sp; i + 1 < j; i++, j--) {
			struct stk t = stack[i];

			stack[i] = stack[j - 1];
			stack[j - 1] = t;
		}
		if (mg.k && mg.w >= thr) {
			mg.x = x;
			layout__add(l, &mg);
		} else {
			l->omitted += mg.k;
		}
	}
	free(stack);
	free(kids);
}

static uint64_t name_hash(const char *s)
{
	uint64_t h = 1469598103934665603ULL;

	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 1099511628211ULL;
	return h;
}

/* Single graphs: kernel frames warm (red..orange), user frames blue-green, stable per name. */
static void single_fill(const struct flame_node *n, char *buf, size_t size)
{
	uint64_t h = name_hash(n->name);
	double a = (double)(h & 0xff) / 255, bb = (double)((h >> 8) & 0xff) / 255,
	       c = (double)((h >> 16) & 0xff) / 255;

	if (!strcmp(n->name, "[unknown]"))
		snprintf(buf, size, "rgb(190,190,180)");
	else if (n->kernel)
		snprintf(buf, size, "rgb(%d,%d,%d)", 220 + (int)(35 * a), 70 + (int)(120 * bb), 30 + (int)(40 * c));
	else
		snprintf(buf, size, "rgb(%d,%d,%d)", 40 + (int)(60 * a), 150 + (int)(70 * bb), 140 + (int)(90 * c));
}

static void diff_fill(enum flame_state st, double s, char *buf, size_t size)
{
	int v = (int)(235 - 205 * (0.15 + 0.85 * s));

	if (st == FLAME_GREW)
		snprintf(buf, size, "rgb(255,%d,%d)", v, v);
	else if (st == FLAME_SHRANK)
		snprintf(buf, size, "rgb(%d,%d,255)", v, v);
	else
		snprintf(buf, size, "rgb(200,200,200)");
}

static const char *state_class(enum flame_state st)
{
	return st == FLAME_GREW ? "grew" : st == FLAME_SHRANK ? "shrank" : "same";
}

static void title_single(struct outbuf *b, const struct flame *f, const struct box *bx,
			 const struct flame_node *n)
{
	outbuf__printf(b, "\n%.2f%% \xc2\xb7 %llu samples \xc2\xb7 ",
		       f->total > 0 ? 100 * bx->value / f->total : 0, (unsigned long long)bx->samples);
	/* a period in nanoseconds reads as time: "off-CPU 1029.08 ms", not "period 1029081995" */
	if (f->period_ns)
		outbuf__printf(b, "%s %.2f ms", f->period_name ? f->period_name : "period",
			       (double)bx->period / 1e6);
	else
		outbuf__printf(b, "period %llu", (unsigned long long)bx->period);
	if (n && n->dso_name) {
		outbuf__puts(b, "\n");
		outbuf__xml_str(b, n->dso_name);
	}
}

static void title_diff(struct outbuf *b, const struct flame *f, const struct box *bx,
		       const struct flame_node *n, bool wb)
{
	double d = bx->cur - bx->base;

	if (f->per_op) {
		outbuf__printf(b, "\nbase %.4g \xe2\x86\x92 new %.4g ", bx->base, bx->cur);
		outbuf__xml_str(b, f->unit);
		outbuf__printf(b, bx->base > 0 ? " (%+.4g, %+.0f%%" : " (%+.4g", d, 100 * d / bx->base);
	} else {
		outbuf__printf(b, "\nbase %.2f%% \xe2\x86\x92 new %.2f%% (%+.2f points", bx->base, bx->cur, d);
	}
	if (n && isfinite(n->q))
		outbuf__printf(b, ", q=%.3g", n->q);
	else if (n && n->depth)
		outbuf__printf(b, f->novar ? ", 1 run on a side: untested" : ", untested");
	outbuf__puts(b, ")");
	if (n && n->depth) {
		/* a part of a flagged function's change is significant with it: a grey one is small */
		outbuf__printf(b, "\n%s", n->state == FLAME_GREW ? "grew" : n->state == FLAME_SHRANK ?
			       "shrank" : n->with_fn == CHAIN_FN_WITH ? "under the effect floor" : "not significant");
		/* what an unflagged frame could have seen (the table's "can't tell") */
		if (n->state == FLAME_SAME && isfinite(n->mde) && n->with_fn != CHAIN_FN_WITH)
			outbuf__printf(b, "; detectable %.2g points", n->mde);
		/* how the frame stands to its function's table row (chains.h) */
		if (n->with_fn == CHAIN_FN_WITH)
			outbuf__puts(b, "; a part of its function's change (its table row)");
		else if (n->with_fn == CHAIN_FN_AGAINST)
			outbuf__puts(b, "; against its function's change (its table row)");
		else if (n->with_fn == CHAIN_FN_UNFLAGGED && n->state != FLAME_SAME)
			outbuf__puts(b, "; its function as a whole is not flagged in the table (its other paths "
					"moved otherwise)");
		if (absent(f, n, wb))
			outbuf__printf(b, wb ? "; absent from base (drawn at its new width)"
					     : "; gone in new (drawn at its base width)");
	}
	if (n && n->dso_name) {
		outbuf__puts(b, "\n");
		outbuf__xml_str(b, n->dso_name);
	}
}

/* One picture's geometry and choices, shared by the parts of flame__svg. */
struct svg {
	const struct flame *f;
	const struct flame_render_opts *o;
	const char *id;
	double width, gw, height, gy;	/* picture, graph width, graph's top */
	double scale;			/* pixels per unit of width */
	double maxd;			/* the largest change coloured (diff) */
	bool wb;			/* widths from the base side */
	struct layout l;
};

/*
 * Each node's drawn width (its own, or its children's when wider), then
 * the boxes laid out down to the narrowest drawn, the scale and the
 * largest change the colours are relative to.
 */
static void svg__layout(struct svg *g)
{
	const struct flame *f = g->f;
	double min_pct = g->o->min_width_pct == 0 ? 0.1 : g->o->min_width_pct;
	double *lw = xcalloc(f->nr + 1, sizeof(*lw));
	double thr, full;
	size_t i;

	/* children have larger ids: when i is reached, lw[i] holds its children's sum */
	for (i = f->nr; i-- > 0;) {
		const struct flame_node *n = &f->nodes[i];

		lw[i] = fmax(lw[i], own_width(f, n, g->wb));
		if (i)
			lw[n->parent] += lw[i];
	}
	/* per op, both sides to one scale: the larger total is the whole width */
	full = fmax(lw[0], f->scale_total);
	thr = min_pct > 0 ? min_pct / 100 * full : 0;
	layout(&g->l, f, lw, thr);
	g->scale = full > 0 ? g->gw / full : 0;
	for (i = 0; i < f->nr; i++)
		if (f->diff && i && f->nodes[i].state != FLAME_SAME)
			g->maxd = fmax(g->maxd, fabs(f->nodes[i].delta));
	g->gy = f->diff ? 76 : 58;
	g->height = g->gy + (g->l.max_depth + 1) * FRAME_PX + 34;
	free(lw);
}

/* What a differential picture's colours and widths mean, under the title. */
static void svg__legend(struct outbuf *b, const struct svg *g)
{
	const struct flame *f = g->f;
	const char *novar = f->novar ? " (1 run on a side: change under the threshold)" : "";
	bool wb = g->wb;

	if (f->diff && f->per_op) {
		outbuf__printf(b, "<text class=\"legend\" x=\"%.1f\" y=\"60\">width: %s cost per op, base and new to "
				  "one scale \xc2\xb7 red grew, blue shrank (deepest at %.4g ", g->width / 2,
			       wb ? "base" : "new", g->maxd);
		outbuf__xml_str(b, f->unit);
		outbuf__printf(b, ") \xc2\xb7 grey: not significant%s \xc2\xb7 frames absent from %s are in the %s graph</text>\n",
			       novar, wb ? "base" : "new", wb ? "new" : "base");
	} else if (f->diff) {
		outbuf__printf(b, "<text class=\"legend\" x=\"%.1f\" y=\"60\">width: %s share \xc2\xb7 red grew, blue shrank "
				  "(deepest at %.2f points) \xc2\xb7 grey: not significant%s \xc2\xb7 hatched: absent from "
				  "%s, drawn at its %s width</text>\n",
			       g->width / 2, wb ? "base" : "new", g->maxd, novar, wb ? "base" : "new",
			       wb ? "new" : "base");
	}
}

/* The picture's head: the svg element, hatches, style, title, legend and controls. */
static void svg__head(struct outbuf *b, const struct svg *g)
{
	const struct flame_render_opts *o = g->o;
	const char *id = g->id;
	const char *title = o->title ? o->title : g->f->diff ? "Differential Flame Graph" : "Flame Graph";
	double width = g->width, height = g->height;
	size_t i;

	if (!o->inline_html)
		outbuf__puts(b, "<?xml version=\"1.0\" encoding=\"UTF-8\" standalone=\"no\"?>\n");
	outbuf__printf(b, "<svg version=\"1.1\" xmlns=\"http://www.w3.org/2000/svg\" id=\"%s\" class=\"mmflame\" "
			  "width=\"%.0f\" height=\"%.0f\" viewBox=\"0 0 %.0f %.0f\" data-gx=\"%.0f\" "
			  "data-gw=\"%.0f\" data-fw=\"%.2f\" data-fh=\"%.0f\" data-keys=\"%d\" data-frames=\"%zu\">\n",
		       id, width, height, width, height, PAD_PX, g->gw, CHAR_PX, FRAME_PX, !o->inline_html,
		       g->l.nr);
	outbuf__printf(b, "<defs>\n");
	for (i = 0; i < 3; i++) {
		static const char *const col[] = { "rgb(150,150,150)", "rgb(220,40,40)", "rgb(40,40,220)" };

		outbuf__printf(b, "<pattern id=\"%s-hatch-%s\" width=\"6\" height=\"6\" patternUnits=\"userSpaceOnUse\" "
				  "patternTransform=\"rotate(45)\"><rect width=\"6\" height=\"6\" fill=\"white\"/>"
				  "<line x1=\"0\" y1=\"0\" x2=\"0\" y2=\"6\" stroke=\"%s\" stroke-width=\"3\"/></pattern>\n",
			       id, state_class((enum flame_state)i), col[i]);
	}
	outbuf__printf(b, "</defs>\n<style>\n"
			  "#%s text { font-family: Verdana, 'DejaVu Sans', sans-serif; font-size: %.0fpx; fill: black; }\n"
			  "#%s g.f text { pointer-events: none; }\n"
			  "#%s g.f:hover rect { stroke: black; stroke-width: 0.5; }\n"
			  "#%s g.f { cursor: pointer; }\n"
			  "#%s .title { font-size: 17px; text-anchor: middle; }\n"
			  "#%s .sub, #%s .legend { font-size: 11px; text-anchor: middle; fill: rgb(60,60,60); }\n"
			  "#%s .reset, #%s .search { cursor: pointer; fill: rgb(30,60,160); }\n"
			  "#%s .search, #%s .matched { text-anchor: end; }\n"
			  "</style>\n",
		       id, FONT_PX, id, id, id, id, id, id, id, id, id, id);
	outbuf__printf(b, "<rect x=\"0\" y=\"0\" width=\"%.0f\" height=\"%.0f\" fill=\"rgb(250,250,245)\"/>\n",
		       width, height);
	outbuf__printf(b, "<text class=\"title\" x=\"%.1f\" y=\"24\">", width / 2);
	outbuf__xml_str(b, title);
	outbuf__puts(b, "</text>\n");
	if (o->subtitle) {
		outbuf__printf(b, "<text class=\"sub\" x=\"%.1f\" y=\"42\">", width / 2);
		outbuf__xml_str(b, o->subtitle);
		outbuf__puts(b, "</text>\n");
	}
	svg__legend(b, g);
	outbuf__printf(b, "<text class=\"reset\" x=\"%.0f\" y=\"24\">Reset Zoom</text>\n", PAD_PX);
	outbuf__printf(b, "<text class=\"search\" x=\"%.0f\" y=\"24\">Search</text>\n", width - PAD_PX);
	outbuf__printf(b, "<text class=\"matched\" x=\"%.0f\" y=\"%.0f\"></text>\n", width - PAD_PX, height - 10);
	outbuf__printf(b, "<text class=\"details\" x=\"%.0f\" y=\"%.0f\"></text>\n", PAD_PX, height - 10);
}

/* A box's class and fill: by change (diff), by kernel or user, the root and merged boxes grey. */
static const char *svg__paint(const struct svg *g, const struct box *bx, const struct flame_node *n,
			      char *fill, size_t size)
{
	const struct flame *f = g->f;
	const char *cls;

	if (f->diff) {
		enum flame_state s = n ? n->state : FLAME_SAME;

		cls = state_class(s);
		if (n && absent(f, n, g->wb))
			snprintf(fill, size, "url(#%s-hatch-%s)", g->id, cls);
		else
			diff_fill(s, g->maxd > 0 && n ? sqrt(fabs(n->delta) / g->maxd) : 0, fill, size);
	} else if (n && bx->depth) {
		cls = n->kernel ? "k" : "u";
		single_fill(n, fill, size);
	} else {
		cls = n ? "root" : "m";
		snprintf(fill, size, n ? "rgb(230,230,220)" : "rgb(215,215,215)");
	}
	return cls;
}

/* One box: its group, title (the tooltip), rectangle and the label that fits. */
static void svg__box(struct outbuf *b, const struct svg *g, const struct box *bx, const char *nm)
{
	const struct flame *f = g->f;
	const struct flame_node *n = bx->node != FLAME_NONE ? &f->nodes[bx->node] : NULL;
	double x = PAD_PX + bx->x * g->scale, w = bx->w * g->scale;
	double y = f->icicle ? g->gy + bx->depth * FRAME_PX : g->gy + (g->l.max_depth - bx->depth) * FRAME_PX;
	bool gone = n && absent(f, n, g->wb);
	char fill[64];
	const char *cls = svg__paint(g, bx, n, fill, sizeof(fill));
	size_t nc;

	outbuf__printf(b, "<g class=\"f %s%s%s\" data-d=\"%u\"><title>", cls, gone ? " absent" : "",
		       n ? "" : " m", bx->depth);
	outbuf__xml_str(b, nm);
	if (f->diff)
		title_diff(b, f, bx, n, g->wb);
	else
		title_single(b, f, bx, n);
	outbuf__printf(b, "</title><rect x=\"%.2f\" y=\"%.1f\" width=\"%.2f\" height=\"%.0f\" fill=\"%s\"%s/>",
		       x, y, w, FRAME_PX - 1, fill,
		       gone ? " stroke=\"rgb(90,90,90)\" stroke-width=\"0.6\"" : "");
	nc = w > 6 ? (size_t)((w - 6) / CHAR_PX) : 0;
	if (nc >= 3) {
		outbuf__printf(b, "<text x=\"%.2f\" y=\"%.1f\">", x + 3, y + FRAME_PX - 4);
		outbuf__xml_fit(b, nm, nc);
		outbuf__puts(b, "</text>");
	}
	outbuf__puts(b, "</g>\n");
}

void flame__svg(struct outbuf *b, const struct flame *f, const struct flame_render_opts *o,
		struct flame_render_stats *st)
{
	struct svg g = { .f = f, .o = o, .id = o->id ? o->id : "mmflame" };
	struct outbuf both = { 0 };	/* "a → b" of a renamed frame */
	size_t i, merged = 0;

	g.width = o->width > 0 ? o->width : 1200;
	g.gw = g.width - 2 * PAD_PX;
	g.wb = o->side == FLAME_SIDE_BUILT ? f->width_base : o->side == FLAME_SIDE_BASE;
	svg__layout(&g);
	svg__head(b, &g);
	for (i = 0; i < g.l.nr; i++) {
		const struct box *bx = &g.l.boxes[i];
		const struct flame_node *n = bx->node != FLAME_NONE ? &f->nodes[bx->node] : NULL;
		char name[64];
		const char *nm = name;

		if (n && n->name_new) {
			/* renamed between builds: both spellings, in the title and the label */
			both.len = 0;
			outbuf__printf(&both, "%s \xe2\x86\x92 %s", n->name, n->name_new);
			nm = both.s;
		} else if (n) {
			nm = n->name;
		} else {
			snprintf(name, sizeof(name), "[%u small frames]", bx->k);
			merged++;
		}
		svg__box(b, &g, bx, nm);
	}
	if (!o->inline_html) {
		outbuf__puts(b, "<script type=\"text/ecmascript\"><![CDATA[\n");
		outbuf__puts(b, flame__script());
		outbuf__puts(b, "]]></script>\n");
	}
	outbuf__puts(b, "</svg>\n");
	if (st) {
		st->drawn = g.l.nr;
		st->merged = merged;
		st->omitted = g.l.omitted;
		st->max_depth = g.l.max_depth;
	}
	free(g.l.boxes);
	outbuf__release(&both);
}

int flame__write_file(const struct outbuf *b, const char *path, struct errmsg *e)
{
	/* as export: beside path then renamed, a symlink replaced, not followed */
	return outfile__write(path, b->s, b->len, e);
}
