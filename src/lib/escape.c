/*
 * escape: the one string escaper for every JSON and XML writer; see
 * include/mmprof/escape.h.  Plain runs are handed on in one call: names
 * are long, escapes rare.
 */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "mmprof/escape.h"
#include "mmprof/utf8.h"

void json__escape(const char *s, void (*put)(void *ctx, const char *p, size_t n), void *ctx)
{
	const unsigned char *u = (const unsigned char *)(s ? s : ""), *run = u;

	put(ctx, "\"", 1);
	while (*u) {
		const char *esc = NULL;
		char hex[8];
		uint32_t cp;
		size_t n = utf8__len(u, &cp);

		if (!n)
			esc = "\\ufffd";
		else if (*u == '"')
			esc = "\\\"";
		else if (*u == '\\')
			esc = "\\\\";
		else if (*u == '\n')
			esc = "\\n";
		else if (*u == '\r')
			esc = "\\r";
		else if (*u == '\t')
			esc = "\\t";
		else if (*u < 0x20 || *u == 0x7f || utf8__is_bidi_control(cp)) {
			snprintf(hex, sizeof(hex), "\\u%04x", (unsigned)cp);
			esc = hex;
		}
		if (!esc) {
			u += n;
			continue;
		}
		if (u > run)
			put(ctx, (const char *)run, (size_t)(u - run));
		put(ctx, esc, strlen(esc));
		run = u += n ? n : 1;	/* an escape replaces one byte, or one bidi control */
	}
	if (u > run)
		put(ctx, (const char *)run, (size_t)(u - run));
	put(ctx, "\"", 1);
}


/*
 * Length of the valid UTF-8 sequence at s (1..4), 0 if invalid, not an
 * XML 1.0 Char (C0 controls but tab and newline, U+FFFE, U+FFFF) or a bidi
 * control (an entity would still reorder the text a browser draws).
 */
static size_t xml_char_len(const unsigned char *s)
{
	uint32_t cp;
	size_t n = utf8__len(s, &cp);

	if (!n || (cp < 0x20 && cp != '\t' && cp != '\n') || cp == 0xfffe || cp == 0xffff ||
	    utf8__is_bidi_control(cp))
		return 0;
	return n;
}

void xml__escape(const char *s, size_t max_chars, void (*put)(void *ctx, const char *p, size_t n),
		 void *ctx)
{
	const unsigned char *p = (const unsigned char *)(s ? s : "");
	size_t chars = 0;

	while (*p && chars < max_chars) {
		size_t n = xml_char_len(p);
		const unsigned char *run = p;
		const char *esc = NULL;

		while (*p && chars < max_chars && n == 1 && *p != '&' && *p != '<' && *p != '>' &&
		       *p != '"' && *p != '\'') {
			p++;
			chars++;
			n = xml_char_len(p);
		}
		if (p > run)
			put(ctx, (const char *)run, (size_t)(p - run));
		if (!*p || chars >= max_chars)
			break;
		switch (*p) {
		case '&': esc = "&amp;"; break;
		case '<': esc = "&lt;"; break;
		case '>': esc = "&gt;"; break;
		case '"': esc = "&quot;"; break;
		case '\'': esc = "&#39;"; break;
		default:
			if (!n)
				esc = "?";
		}
		if (esc)
			put(ctx, esc, strlen(esc));
		else
			put(ctx, (const char *)p, n);
		p += n ? n : 1;
		chars++;
	}
}

/* Bytes text__escape writes as \xNN at s: 0 for none (copy the sequence), else 1 to 3. */
static size_t text_bad_len(const unsigned char *s, size_t *seq)
{
	uint32_t cp;
	size_t n = utf8__len(s, &cp);

	*seq = n ? n : 1;
	if (!n || cp < 0x20 || cp == 0x7f || (cp >= 0x80 && cp <= 0x9f) || utf8__is_bidi_control(cp))
		return *seq;
	return 0;
}

static const char *swap_of(const char *swap, unsigned char c)
{
	for (; swap && swap[0] && swap[1]; swap += 2)
		if ((unsigned char)swap[0] == c)
			return swap + 1;
	return NULL;
}

bool text__needs_escape(const char *s, const char *swap)
{
	const unsigned char *u = (const unsigned char *)(s ? s : "");

	while (*u) {
		size_t seq;

		if (text_bad_len(u, &seq) || swap_of(swap, *u))
			return true;
		u += seq;
	}
	return false;
}

void text__escape(const char *s, const char *swap, void (*put)(void *ctx, const char *p, size_t n),
		  void *ctx)
{
	const unsigned char *u = (const unsigned char *)(s ? s : ""), *run = u;

	while (*u) {
		size_t seq, bad = text_bad_len(u, &seq), i;
		const char *to = swap_of(swap, *u);

		if (!bad && !to) {
			u += seq;
			continue;
		}
		if (u > run)
			put(ctx, (const char *)run, (size_t)(u - run));
		if (to) {
			put(ctx, to, 1);
			seq = 1;
		}
		for (i = 0; !to && i < bad; i++) {
			char hex[8];

			snprintf(hex, sizeof(hex), "\\x%02x", u[i]);
			put(ctx, hex, 4);
		}
		run = u += seq;
	}
	if (u > run)
		put(ctx, (const char *)run, (size_t)(u - run));
}

/* Bytes a POSIX shell word may hold unquoted (no globbing, no expansion). */
static bool shell_plain(const char *s)
{
	return *s && strspn(s, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
			    "0123456789_./,:=+@%^-") == strlen(s);
}

void shell__quote(const char *s, void (*put)(void *ctx, const char *p, size_t n), void *ctx)
{
	const char *q;

	s = s ? s : "";
	if (shell_plain(s)) {
		put(ctx, s, strlen(s));
		return;
	}
	put(ctx, "'", 1);
	while ((q = strchr(s, '\''))) {
		put(ctx, s, (size_t)(q - s));
		put(ctx, "'\\''", 4);
		s = q + 1;
	}
	put(ctx, s, strlen(s));
	put(ctx, "'", 1);
}
