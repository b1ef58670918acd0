/*
 * pstok: the tokens of perf script's lines; see pstok.h.  The lexis of
 * perfscript.c's parser, apart because it is pure: what a piece of text
 * is, never what a line means.
 */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "pstok.h"

size_t pstok__split(const char *s, size_t len, struct pstok *t, size_t max)
{
	size_t i = 0, n = 0;

	while (n < max) {
		while (i < len && pstok__blank(s[i]))
			i++;
		if (i == len)
			break;
		t[n].s = s + i;
		while (i < len && !pstok__blank(s[i]))
			i++;
		t[n].len = (size_t)(s + i - t[n].s);
		n++;
	}
	return n;
}

bool pstok__digits(const char *s, size_t len)
{
	size_t i;

	if (!len)
		return false;
	for (i = 0; i < len; i++)
		if (!isdigit((unsigned char)s[i]))
			return false;
	return true;
}

bool pstok__is_time(const struct pstok *t)
{
	const char *dot = t->len > 1 ? memchr(t->s, '.', t->len) : NULL;

	return dot && t->s[t->len - 1] == ':' && pstok__digits(t->s, (size_t)(dot - t->s)) &&
	       pstok__digits(dot + 1, t->len - 2 - (size_t)(dot - t->s));
}

bool pstok__is_pid(const struct pstok *t)
{
	const char *slash = memchr(t->s, '/', t->len);

	if (!slash)
		return pstok__digits(t->s, t->len);
	return pstok__digits(t->s, (size_t)(slash - t->s)) &&
	       pstok__digits(slash + 1, t->len - 1 - (size_t)(slash - t->s));
}

uint32_t pstok__pid(const struct pstok *t)
{
	const char *slash = memchr(t->s, '/', t->len);
	uint64_t v = 0;
	size_t i;

	if (!slash)
		return 0;
	for (i = 0; t->s + i < slash; i++) {
		v = v * 10 + (uint64_t)(t->s[i] - '0');
		if (v > INT32_MAX)
			return 0;
	}
	return (uint32_t)v;
}

bool pstok__is_cpu(const struct pstok *t)
{
	return t->len > 2 && t->s[0] == '[' && t->s[t->len - 1] == ']' &&
	       pstok__digits(t->s + 1, t->len - 2);
}

bool pstok__hex(const char *s, size_t len, uint64_t *v)
{
	size_t i;

	if (!len || len > 16)
		return false;
	*v = 0;
	for (i = 0; i < len; i++) {
		int c = (unsigned char)s[i], d;

		if (c >= '0' && c <= '9')
			d = c - '0';
		else if (c >= 'a' && c <= 'f')
			d = c - 'a' + 10;
		else if (c >= 'A' && c <= 'F')
			d = c - 'A' + 10;
		else
			return false;
		*v = (*v << 4) | (uint64_t)d;
	}
	return true;
}

double pstok__time(const struct pstok *t)
{
	char buf[64];
	size_t n = t->len - 1 < sizeof(buf) - 1 ? t->len - 1 : sizeof(buf) - 1;

	memcpy(buf, t->s, n);
	buf[n] = '\0';
	return strtod(buf, NULL);
}
