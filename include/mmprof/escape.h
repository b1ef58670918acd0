/*
 * escape: the one string escaper behind every JSON and XML text mmprof
 * writes: JSON for report --json, export --format json, diff --format json
 * and the HTML pages' data; XML for the SVG flame graphs and the HTML
 * pages.  One function per language, writing through put(ctx, bytes, n) so
 * that any sink can take it; outbuf__json_str and outbuf__xml_str are the
 * sinks' spellings of the same calls.
 *
 * JSON:
 *
 * Names come from data files that may have travelled from anywhere, so the
 * output must be valid JSON whatever the bytes: '"' and '\\' escaped,
 * control bytes and DEL as \u00XX (\n, \r, \t in their short forms), and a
 * byte that does not start a well-formed UTF-8 sequence as \ufffd.
 *
 * XML: & < > " ' as entities; a byte that starts no well-formed UTF-8
 * sequence, or a character that is not an XML 1.0 Char (C0 controls but
 * tab and newline, U+FFFE, U+FFFF), as '?'.  Valid in text and in
 * attribute values alike.
 *
 * Pure functions, no state; plain runs are handed on in one put (names are
 * long, escapes rare).
 */
#ifndef MMPROF_ESCAPE_H
#define MMPROF_ESCAPE_H

#include <stddef.h>

/* Write s (NULL: "") as a quoted JSON string through put(ctx, bytes, n). */
void json__escape(const char *s, void (*put)(void *ctx, const char *p, size_t n), void *ctx);

/* Write at most max_chars characters (SIZE_MAX: all) of s (NULL: "") XML-escaped. */
void xml__escape(const char *s, size_t max_chars, void (*put)(void *ctx, const char *p, size_t n),
		 void *ctx);

#endif
