/* outbuf: see include/mmprof/outbuf.h. */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mmprof/escape.h"
#include "mmprof/outbuf.h"
#include "mmprof/utf8.h"
#include "mmprof/xalloc.h"

/* A stream sink hands its text on in chunks of about this many bytes. */
enum { OUTBUF_CHUNK = 64 * 1024 };

void outbuf__init_file(struct outbuf *b, FILE *to, bool color)
{
	memset(b, 0, sizeof(*b));
	b->to = to;
	b->color = color;
}

/* Hand a stream sink's text on to its FILE; the buffer keeps its memory. */
static void hand_on(struct outbuf *b)
{
	if (!b->len)
		return;
	if (fwrite(b->s, 1, b->len, b->to) != b->len && !b->err)
		b->err = -EIO;
	b->handed += b->len;
	b->len = 0;
	b->s[0] = '\0';
}

static void grown(struct outbuf *b)
{
	if (b->to && b->len >= OUTBUF_CHUNK)
		hand_on(b);
}

void outbuf__printf(struct outbuf *b, const char *fmt, ...)
{
	va_list ap;
	int n;

	for (;;) {
		size_t room = b->alloc - b->len;

		va_start(ap, fmt);
		n = vsnprintf(b->s ? b->s + b->len : NULL, room, fmt, ap);
		va_end(ap);
		if (n < 0)
			return;
		if ((size_t)n < room) {
			b->len += (size_t)n;
			grown(b);
			return;
		}
		b->alloc = (b->alloc + (size_t)n + 1) * 2;
		b->s = xrealloc(b->s, b->alloc);
	}
}

void outbuf__add(struct outbuf *b, const char *s, size_t n)
{
	if (b->len + n + 1 > b->alloc) {
		b->alloc = (b->len + n + 1) * 2;
		b->s = xrealloc(b->s, b->alloc);
	}
	memcpy(b->s + b->len, s, n);
	b->len += n;
	b->s[b->len] = '\0';
	grown(b);
}

void outbuf__puts(struct outbuf *b, const char *s)
{
	outbuf__add(b, s, strlen(s));
}

void outbuf__putc(struct outbuf *b, char c)
{
	outbuf__add(b, &c, 1);
}

int outbuf__flush(struct outbuf *b)
{
	if (!b->to)
		return 0;
	hand_on(b);
	/* as a writer that printed to the FILE itself would have seen it */
	if (ferror(b->to) && !b->err)
		b->err = -EIO;
	return b->err;
}

size_t outbuf__written(const struct outbuf *b)
{
	return b->handed + b->len;
}

void outbuf__release(struct outbuf *b)
{
	free(b->s);
	memset(b, 0, sizeof(*b));
}

static void put_outbuf(void *ctx, const char *p, size_t n)
{
	outbuf__add(ctx, p, n);
}

void outbuf__json_str(struct outbuf *b, const char *s)
{
	json__escape(s, put_outbuf, b);
}

void outbuf__json_num(struct outbuf *b, double v, int digits)
{
	if (isfinite(v))
		outbuf__printf(b, "%.*g", digits, v);
	else
		outbuf__puts(b, "null");
}

void outbuf__xml_str(struct outbuf *b, const char *s)
{
	xml__escape(s ? s : "", SIZE_MAX, put_outbuf, b);
}

void outbuf__xml_fit(struct outbuf *b, const char *s, size_t max_chars)
{
	if (utf8__chars(s ? s : "") <= max_chars) {
		outbuf__xml_str(b, s);
		return;
	}
	xml__escape(s, max_chars >= 2 ? max_chars - 2 : 0, put_outbuf, b);
	outbuf__puts(b, "..");
}

void outbuf__text_str(struct outbuf *b, const char *s)
{
	text__escape(s, NULL, put_outbuf, b);
}

void outbuf__text_swap(struct outbuf *b, const char *s, const char *swap)
{
	text__escape(s, swap, put_outbuf, b);
}

void outbuf__md_code(struct outbuf *b, const char *s)
{
	struct outbuf safe = { 0 };

	for (s = outbuf__text_safe(&safe, s); *s; s++)
		outbuf__printf(b, *s == '|' ? "\\|" : *s == '`' ? "'" : "%c", *s);
	outbuf__release(&safe);
}

const char *outbuf__text_safe(struct outbuf *scratch, const char *s)
{
	if (!text__needs_escape(s, NULL))
		return s ? s : "";
	scratch->len = 0;
	text__escape(s, NULL, put_outbuf, scratch);
	return scratch->s;
}

const char *outbuf__shell_word(struct outbuf scratch[2], const char *s)
{
	scratch[0].len = 0;
	outbuf__add(&scratch[0], "", 0);	/* a NUL even for "" */
	shell__quote(s, put_outbuf, &scratch[0]);
	return outbuf__text_safe(&scratch[1], scratch[0].s);
}
