/*
 * jsonw: a small JSON writer into an outbuf, for every JSON document mmprof
 * writes: report --json, history -f json, export -f json and diff -f json.
 * It owns the commas, the nesting and the layout; strings go through
 * json__escape's rules (escape.h: any bytes give valid JSON) and numbers
 * as they always were: doubles as outbuf__json_num (%.*g, null when not
 * finite), integers as %lld / %llu, true and false.
 *
 * Layout, so that a document reads well and stays byte-identical to what
 * the hand-written writers made: a container is JSONW_LINES (each member on
 * its own line, indented two spaces past the line the container opened on,
 * the closing bracket back on that line's indent; an empty one is {} or []),
 * JSONW_LINES_TIGHT (the same, but the closing bracket right after the last
 * member: history's lists) or JSONW_INLINE (members after ", " on the same
 * line); jsonw__break(w, more) puts an inline container's next member (the
 * first too) on a new line, indented more spaces past the line the container opened on (2:
 * as a LINES member), the comma before the break; jsonw__newline(w, more)
 * writes that line break now, so that the next member's ", " (or the
 * closing bracket) starts the new line.  After jsonw__from_margin(w) every container counts
 * its indent from the margin, not from the line it opened on: diff -f json's
 * layout, whose lists of rows, costs and call chains start two spaces in
 * wherever they open (inside a column of several too).  For example
 *
 *   {                                     an object, LINES
 *     "runs": [                           an array, LINES
 *       {"index": 0, "wall_ns": 5,        an object, INLINE
 *         "counters": []}                 after jsonw__break(w, 2)
 *     ]
 *   }
 *
 * A member of an object has a key (escaped as any string); an element of an
 * array or the document itself passes key NULL.  Depth is at most
 * JSONW_MAX_DEPTH containers (mmprof's documents nest 5 deep); the writer
 * keeps no other state and allocates nothing.
 */
#ifndef MMPROF_JSONW_H
#define MMPROF_JSONW_H

#include <stdbool.h>

#include "mmprof/outbuf.h"

#define JSONW_MAX_DEPTH 16

enum jsonw_style {
	JSONW_INLINE,
	JSONW_LINES,
	JSONW_LINES_TIGHT,
};

struct jsonw {
	struct outbuf *out;
	unsigned depth;
	unsigned line_indent;	/* spaces at the start of the current line */
	int brk;		/* jsonw__break()'s more, or -1: the next member on this line */
	bool from_margin;	/* jsonw__from_margin(): containers indent from column 0 */
	struct jsonw_level {
		unsigned indent;	/* line_indent where the container opened */
		unsigned n;		/* members written */
		enum jsonw_style style;
		char close;
	} lv[JSONW_MAX_DEPTH];
};

/* Start a document into out, at the start of a line. */
void jsonw__init(struct jsonw *w, struct outbuf *out);
/* From now on every container's indent counts from the margin (see above). */
void jsonw__from_margin(struct jsonw *w);

void jsonw__object(struct jsonw *w, const char *key, enum jsonw_style style);
void jsonw__array(struct jsonw *w, const char *key, enum jsonw_style style);
/* Close the innermost container. */
void jsonw__end(struct jsonw *w);
void jsonw__break(struct jsonw *w, unsigned more);
void jsonw__newline(struct jsonw *w, unsigned more);

void jsonw__str(struct jsonw *w, const char *key, const char *s);	/* s NULL: "" */
void jsonw__num(struct jsonw *w, const char *key, double v, int digits);
/* v as %.*f with decimals places, null when not finite (diff's shares and fractions) */
void jsonw__fixed(struct jsonw *w, const char *key, double v, int decimals);
void jsonw__int(struct jsonw *w, const char *key, long long v);
void jsonw__uint(struct jsonw *w, const char *key, unsigned long long v);
void jsonw__bool(struct jsonw *w, const char *key, bool v);
void jsonw__null(struct jsonw *w, const char *key);

#endif
