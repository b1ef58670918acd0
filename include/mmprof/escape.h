/*
 * escape: the one string escaper behind every text mmprof writes from
 * names a profiled program or a foreign file chose: JSON for report --json,
 * export --format json, diff --format json and the HTML pages' data; XML
 * for the SVG flame graphs and the HTML pages; plain text for every view
 * read on a terminal or parsed by line (report, diff, export -f folded,
 * warnings).  One function per language, writing through put(ctx, bytes, n)
 * so that any sink can take it; outbuf__json_str, outbuf__xml_str and
 * outbuf__text_str are the sinks' spellings of the same calls.
 *
 * JSON:
 *
 * Names come from data files that may have travelled from anywhere, so the
 * output must be valid JSON whatever the bytes: '"' and '\\' escaped,
 * control bytes and DEL as \u00XX (\n, \r, \t in their short forms), a bidi
 * control (utf8.h) as its \uXXXX, and a byte that does not start a
 * well-formed UTF-8 sequence as \ufffd.
 *
 * XML: & < > " ' as entities; a byte that starts no well-formed UTF-8
 * sequence, a character that is not an XML 1.0 Char (C0 controls but
 * tab and newline, U+FFFE, U+FFFF) or a bidi control, as '?' (one per byte
 * of it).  Valid in text and in
 * attribute values alike.
 *
 * Text (Documentation/robustness.md): a name must not drive the terminal
 * it is shown on nor break the line it is part of.  A C0 control byte
 * (newline, tab and ESC included), DEL, a C1 control (U+0080..U+009F,
 * whose 8-bit CSI a terminal may obey), a bidirectional formatting
 * character (U+061C, U+200E/F, U+202A..U+202E, U+2066..U+2069: they
 * reorder the line around them) and a byte that starts no well-formed
 * UTF-8 sequence are written as \xNN, one per byte (a character: all of
 * its bytes); everything else, backslash included, is copied.  The mapping is
 * for safety, not reversal: a name spelling "\x1b" itself reads the same.
 * A line format's own separators are the caller's: swap, a string of
 * pairs ("from to from to ..."), replaces each byte "from" by "to" (folded
 * stacks: ";:" as perf's stackcollapse.py does).
 *
 * Pure functions, no state; plain runs are handed on in one put (names are
 * long, escapes rare).
 */
#ifndef MMPROF_ESCAPE_H
#define MMPROF_ESCAPE_H

#include <stdbool.h>
#include <stddef.h>

/* Write s (NULL: "") as a quoted JSON string through put(ctx, bytes, n). */
void json__escape(const char *s, void (*put)(void *ctx, const char *p, size_t n), void *ctx);

/* Write at most max_chars characters (SIZE_MAX: all) of s (NULL: "") XML-escaped. */
void xml__escape(const char *s, size_t max_chars, void (*put)(void *ctx, const char *p, size_t n),
		 void *ctx);

/*
 * Write s (NULL: "") as terminal- and line-safe text through put(ctx, bytes, n),
 * each byte of swap's pairs replaced (NULL: none).  Ordinary names are one put.
 */
void text__escape(const char *s, const char *swap, void (*put)(void *ctx, const char *p, size_t n),
		  void *ctx);

/* Whether text__escape(s, swap, ...) would write anything but s itself. */
bool text__needs_escape(const char *s, const char *swap);

/*
 * Write s (NULL: "") as one POSIX shell word, for a command line a message
 * tells the user to run: as it is when it holds only letters, digits and
 * _./,:=+@%^-, else in single quotes (a ' inside as '\'').  Not terminal
 * safe by itself: pass the result through text__escape.
 */
void shell__quote(const char *s, void (*put)(void *ctx, const char *p, size_t n), void *ctx);

#endif
