/* message: a command's lines on stderr, one prefix rule; see include/mmprof/message.h. */
#include <stdio.h>
#include <stdlib.h>

#include "mmprof/message.h"

void message__vsay(const char *kind, const char *fmt, va_list ap)
{
	char *text = NULL;

	/*
	 * The whole line in one write, as one fprintf made it before: stderr
	 * is unbuffered, and a workload's own lines go to the same terminal.
	 */
	if (vasprintf(&text, fmt, ap) < 0)
		text = NULL;
	fprintf(stderr, "mmprof: %s%s\n", kind, text ? text : fmt);
	free(text);
}

void message__line(const char *kind, const char *line)
{
	fprintf(stderr, "mmprof: %s%s\n", kind, line);
}

int error(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	message__vsay("", fmt, ap);
	va_end(ap);
	return -1;
}

void warning(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	message__vsay("warning: ", fmt, ap);
	va_end(ap);
}

void note(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	message__vsay("note: ", fmt, ap);
	va_end(ap);
}

void inform(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	message__vsay("", fmt, ap);
	va_end(ap);
}
