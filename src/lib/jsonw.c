/* jsonw: a small JSON writer; see include/mmprof/jsonw.h. */
#include <math.h>

#include "mmprof/jsonw.h"

void jsonw__init(struct jsonw *w, struct outbuf *out)
{
	w->out = out;
	w->depth = 0;
	w->line_indent = 0;
	w->brk = -1;
	w->from_margin = false;
}

void jsonw__from_margin(struct jsonw *w)
{
	w->from_margin = true;
}

static void newline(struct jsonw *w, unsigned indent)
{
	outbuf__printf(w->out, "\n%*s", (int)indent, "");
	w->line_indent = indent;
}

/* The separator before a member of the innermost container, and its key. */
static void member(struct jsonw *w, const char *key)
{
	if (w->depth) {
		struct jsonw_level *l = &w->lv[w->depth - 1];

		if (l->n)
			outbuf__putc(w->out, ',');
		if (l->style != JSONW_INLINE)
			newline(w, l->indent + 2);
		else if (w->brk >= 0)
			newline(w, l->indent + (unsigned)w->brk);
		else if (l->n)
			outbuf__putc(w->out, ' ');
		l->n++;
	}
	w->brk = -1;
	if (key) {
		outbuf__json_str(w->out, key);
		outbuf__puts(w->out, ": ");
	}
}

static void open(struct jsonw *w, const char *key, enum jsonw_style style, char open, char close)
{
	member(w, key);
	outbuf__putc(w->out, open);
	/* deeper than any document of ours: written, but laid out as the last level */
	if (w->depth < JSONW_MAX_DEPTH)
		w->depth++;
	w->lv[w->depth - 1] = (struct jsonw_level){
		.indent = w->from_margin ? 0 : w->line_indent, .n = 0, .style = style, .close = close,
	};
}

void jsonw__object(struct jsonw *w, const char *key, enum jsonw_style style)
{
	open(w, key, style, '{', '}');
}

void jsonw__array(struct jsonw *w, const char *key, enum jsonw_style style)
{
	open(w, key, style, '[', ']');
}

void jsonw__end(struct jsonw *w)
{
	struct jsonw_level *l;

	if (!w->depth)
		return;
	l = &w->lv[--w->depth];
	if (l->style == JSONW_LINES && l->n)
		newline(w, l->indent);
	outbuf__putc(w->out, l->close);
	w->brk = -1;
}

void jsonw__break(struct jsonw *w, unsigned more)
{
	w->brk = (int)more;
}

void jsonw__newline(struct jsonw *w, unsigned more)
{
	newline(w, (w->depth ? w->lv[w->depth - 1].indent : 0) + more);
}

void jsonw__str(struct jsonw *w, const char *key, const char *s)
{
	member(w, key);
	outbuf__json_str(w->out, s);
}

void jsonw__num(struct jsonw *w, const char *key, double v, int digits)
{
	member(w, key);
	outbuf__json_num(w->out, v, digits);
}

void jsonw__fixed(struct jsonw *w, const char *key, double v, int decimals)
{
	member(w, key);
	if (isfinite(v))
		outbuf__printf(w->out, "%.*f", decimals, v);
	else
		outbuf__puts(w->out, "null");
}

void jsonw__int(struct jsonw *w, const char *key, long long v)
{
	member(w, key);
	outbuf__printf(w->out, "%lld", v);
}

void jsonw__uint(struct jsonw *w, const char *key, unsigned long long v)
{
	member(w, key);
	outbuf__printf(w->out, "%llu", v);
}

void jsonw__bool(struct jsonw *w, const char *key, bool v)
{
	member(w, key);
	outbuf__puts(w->out, v ? "true" : "false");
}

void jsonw__null(struct jsonw *w, const char *key)
{
	member(w, key);
	outbuf__puts(w->out, "null");
}
