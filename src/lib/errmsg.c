/* errmsg: one-line error explanations; see include/mmprof/errmsg.h. */
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "mmprof/errmsg.h"
#include "mmprof/escape.h"

struct bounded {
	char *s;
	size_t len, size;	/* size > len: room for the NUL */
	bool full;
};

/* A put that keeps what fits: whole escapes, plain runs cut at a character's start. */
static void put_bounded(void *ctx, const char *p, size_t n)
{
	struct bounded *b = ctx;

	if (b->full)
		return;
	if (b->len + n >= b->size) {
		b->full = true;
		if (n == 4 && p[0] == '\\')
			return;	/* an escape is written whole or not at all */
		n = b->size - 1 - b->len;
		while (n && ((unsigned char)p[n] & 0xc0) == 0x80)
			n--;
	}
	memcpy(b->s + b->len, p, n);
	b->len += n;
	b->s[b->len] = '\0';
}

/*
 * The message is one line whatever its arguments hold (a name from a
 * file, a line of perf script): the text rule of escape.h, so that a
 * command printing it drives no terminal and adds no line.
 */
static void set_text(char *dst, size_t size, const char *src)
{
	struct bounded b = { dst, 0, size, false };

	dst[0] = '\0';
	text__escape(src, NULL, put_bounded, &b);
}

int errmsg__set(struct errmsg *e, int err, const char *fmt, ...)
{
	char raw[2 * sizeof(e->msg)];	/* cut by set_text, between characters */
	va_list ap;

	if (!e)
		return err;
	va_start(ap, fmt);
	vsnprintf(raw, sizeof(raw), fmt, ap);
	va_end(ap);
	set_text(e->msg, sizeof(e->msg), raw);
	return err;
}

int errmsg__prefix(struct errmsg *e, int err, const char *fmt, ...)
{
	char head[256], raw[256];
	size_t hl, ol;
	va_list ap;

	if (!e)
		return err;
	va_start(ap, fmt);
	vsnprintf(raw, sizeof(raw), fmt, ap);
	va_end(ap);
	set_text(head, sizeof(head) - 2, raw);
	hl = strlen(head);
	memcpy(head + hl, ": ", 3);
	hl += 2;
	ol = strnlen(e->msg, sizeof(e->msg) - 1);
	if (hl + ol > sizeof(e->msg) - 1)
		ol = sizeof(e->msg) - 1 - hl;
	memmove(e->msg + hl, e->msg, ol);
	memcpy(e->msg, head, hl);
	e->msg[hl + ol] = '\0';
	return err;
}
