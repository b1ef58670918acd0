/*
 * outbuf: the one output sink every format writes through (diff tables,
 * call chains, report views, exports, SVG and HTML documents), so that
 * only the commands print.  A leaf utility: no knowledge of profiles or
 * formats beyond string escaping.
 *
 * Two kinds, one type.  A memory buffer ({ 0 }) keeps the whole text in s
 * for the command to print or save.  A stream sink (outbuf__init_file)
 * hands its text on to a FILE in chunks as it grows and at outbuf__flush,
 * so a view of any size costs one chunk of memory; s then holds only the
 * text not yet handed on, and no writer may read it back.  What a format
 * decides (colour, JSON structure) it decides while writing: the sink
 * carries the reader's colour choice (color, set by the command from
 * term.h) and counts what was written (outbuf__written), so nothing has
 * to re-read rendered text.
 *
 * Invariant: after any write, s is NUL-terminated at s[len] (s stays NULL
 * until the first write).  Release frees the text (without flushing) and
 * zeroes the struct.  Allocation failure exits (xalloc.h).
 * Workload: many small appends (one per table cell or SVG attribute) into
 * documents of up to tens of megabytes, so growth doubles.
 */
#ifndef MMPROF_OUTBUF_H
#define MMPROF_OUTBUF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

struct outbuf {
	char *s;
	size_t len, alloc;
	FILE *to;		/* a stream sink's FILE, or NULL for a memory buffer */
	size_t handed;		/* bytes already handed on to to */
	int err;		/* a stream sink's first failed write: -EIO, else 0 */
	bool color;		/* the reader wants colour escapes (term.h) */
};

/* A stream sink over to, colour as the command decided.  Nothing allocated yet. */
void outbuf__init_file(struct outbuf *b, FILE *to, bool color);

void outbuf__printf(struct outbuf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Append n bytes of s (which need not be NUL-terminated). */
void outbuf__add(struct outbuf *b, const char *s, size_t n);
void outbuf__puts(struct outbuf *b, const char *s);
void outbuf__putc(struct outbuf *b, char c);

/*
 * A stream sink hands on what it holds to its FILE; 0, or -EIO when a
 * write to it has failed (ferror).  The FILE's own buffer is left to its
 * owner (main flushes stdout).  A memory buffer: 0, nothing done.
 */
int outbuf__flush(struct outbuf *b);

/* Bytes written so far, handed on or not: whether a view printed anything. */
size_t outbuf__written(const struct outbuf *b);

void outbuf__release(struct outbuf *b);

/* s as a JSON string literal, as json__escape writes it (escape.h). */
void outbuf__json_str(struct outbuf *b, const char *s);
/* v as a JSON number of digits significant digits (%.*g), null when not finite. */
void outbuf__json_num(struct outbuf *b, double v, int digits);

/* XML/HTML-escape s (NULL: "") into b; control characters and invalid UTF-8 become '?'. */
void outbuf__xml_str(struct outbuf *b, const char *s);

/*
 * s XML-escaped as outbuf__xml_str when it has at most max_chars
 * characters (UTF-8 lead bytes), else its first max_chars - 2 and "..":
 * a label fitted to a box of a picture (flame frames, waterfall rows).
 */
void outbuf__xml_fit(struct outbuf *b, const char *s, size_t max_chars);

/*
 * A name in plain text (escape.h's text rule): control bytes, C1 controls
 * and invalid UTF-8 as \xNN; with swap, each pair's byte replaced too.
 */
void outbuf__text_str(struct outbuf *b, const char *s);
void outbuf__text_swap(struct outbuf *b, const char *s, const char *swap);

/*
 * s inside a markdown code span of a table cell (the backticks are the
 * caller's): the text rule, then '|' as "\|" and '`' as "'".
 */
void outbuf__md_code(struct outbuf *b, const char *s);

/*
 * s itself (NULL: "") when the text rule leaves it as is, else its
 * escaped text in the memory buffer scratch (emptied first), valid until
 * scratch's next use: for a name that goes through a printf's "%-*s".
 */
const char *outbuf__text_safe(struct outbuf *scratch, const char *s);

/*
 * s as one shell word (escape.h's shell__quote), then terminal-safe, in
 * scratch (emptied first; its own text's scratch is scratch + 1, so pass
 * an array of two), valid until scratch's next use.
 */
const char *outbuf__shell_word(struct outbuf scratch[2], const char *s);

#endif
