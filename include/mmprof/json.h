/*
 * json: the one string escaper behind every JSON mmprof writes (report
 * --json, export --format json, diff --format json, the HTML pages' data).
 *
 * Names come from data files that may have travelled from anywhere, so the
 * output must be valid JSON whatever the bytes: '"' and '\\' escaped,
 * control bytes and DEL as \u00XX (\n, \r, \t in their short forms), and a
 * byte that does not start a well-formed UTF-8 sequence as \ufffd.  Pure
 * functions, no state.
 */
#ifndef MMPROF_JSON_H
#define MMPROF_JSON_H

#include <stddef.h>
#include <stdio.h>

/* Write s (NULL: "") as a quoted JSON string through put(ctx, bytes, n). */
void json__escape(const char *s, void (*put)(void *ctx, const char *p, size_t n), void *ctx);

/* s (NULL: "") as a quoted JSON string on out. */
void json__fputs(FILE *out, const char *s);

#endif
