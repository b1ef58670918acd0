/*
 * outbuf: a growing text buffer that library code writes its output into
 * (diff tables, call chains, SVG and HTML documents), so that only the
 * commands print.  A leaf utility: no knowledge of profiles or formats
 * beyond string escaping.
 *
 * Invariant: after any write, s is NUL-terminated at s[len] (s stays NULL
 * until the first write).  Zero-initialise ({ 0 }) before use; release
 * frees the text and zeroes the struct.  Allocation failure exits (xalloc.h).
 * Workload: many small appends (one per table cell or SVG attribute) into
 * documents of up to tens of megabytes, so growth doubles.
 */
#ifndef MMPROF_OUTBUF_H
#define MMPROF_OUTBUF_H

#include <stddef.h>

struct outbuf {
	char *s;
	size_t len, alloc;
};

void outbuf__printf(struct outbuf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Append n bytes of s (which need not be NUL-terminated). */
void outbuf__add(struct outbuf *b, const char *s, size_t n);
void outbuf__puts(struct outbuf *b, const char *s);
void outbuf__release(struct outbuf *b);

/*
 * s as a JSON string literal: '"' and '\\' backslash-escaped, other bytes
 * below 0x20 as \u00XX, everything else copied (no UTF-8 check).
 */
void outbuf__json_str(struct outbuf *b, const char *s);

#endif
