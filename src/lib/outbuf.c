/* outbuf: see include/mmprof/outbuf.h. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mmprof/escape.h"
#include "mmprof/outbuf.h"
#include "mmprof/xalloc.h"

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
}

void outbuf__puts(struct outbuf *b, const char *s)
{
	outbuf__add(b, s, strlen(s));
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
