/* xalloc: allocation that exits on failure; see include/mmprof/xalloc.h. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mmprof/xalloc.h"

void xalloc__die(size_t size)
{
	fprintf(stderr, "mmprof: out of memory (allocating %zu bytes)\n", size);
	exit(2);
}

void *xmalloc(size_t size)
{
	void *p = malloc(size ? size : 1);

	if (!p)
		xalloc__die(size);
	return p;
}

void *xcalloc(size_t nmemb, size_t size)
{
	void *p;

	if (size && nmemb > SIZE_MAX / size)
		xalloc__die(SIZE_MAX);
	p = calloc(nmemb ? nmemb : 1, size ? size : 1);
	if (!p)
		xalloc__die(nmemb * size);
	return p;
}

void *xrealloc(void *ptr, size_t size)
{
	void *p = realloc(ptr, size ? size : 1);

	if (!p)
		xalloc__die(size);
	return p;
}

char *xstrdup(const char *s)
{
	return xstrndup(s, strlen(s));
}

char *xstrndup(const char *s, size_t n)
{
	char *p = xmalloc(n + 1);

	memcpy(p, s, n);
	p[n] = '\0';
	return p;
}

void xgrow(void **ptr, size_t *alloc, size_t n, size_t elsize)
{
	size_t want;

	if (n < *alloc)
		return;
	want = *alloc ? *alloc : 16;
	while (want <= n) {
		if (want > SIZE_MAX / 2 / elsize)
			xalloc__die(SIZE_MAX);
		want *= 2;
	}
	*ptr = xrealloc(*ptr, want * elsize);
	memset((char *)*ptr + *alloc * elsize, 0, (want - *alloc) * elsize);
	*alloc = want;
}

void xshrink(void **ptr, size_t *alloc, size_t n, size_t elsize)
{
	if (!*ptr || !n || n >= *alloc)
		return;
	*ptr = xrealloc(*ptr, n * elsize);
	*alloc = n;
}
