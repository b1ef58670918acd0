/* errmsg: one-line error explanations; see include/mmprof/errmsg.h. */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "mmprof/errmsg.h"

int errmsg__set(struct errmsg *e, int err, const char *fmt, ...)
{
	va_list ap;

	if (!e)
		return err;
	va_start(ap, fmt);
	vsnprintf(e->msg, sizeof(e->msg), fmt, ap);
	va_end(ap);
	return err;
}

int errmsg__prefix(struct errmsg *e, int err, const char *fmt, ...)
{
	char head[256];
	size_t hl, ol;
	va_list ap;

	if (!e)
		return err;
	va_start(ap, fmt);
	vsnprintf(head, sizeof(head) - 2, fmt, ap);
	va_end(ap);
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
