/*
 * xalloc: allocation that cannot fail.
 *
 * In-memory models (profile tables, hash indexes, string pools) grow in
 * many small steps; threading ENOMEM through each would bury the logic.
 * As git does, these wrappers print one line and exit(2) when memory runs
 * out.  Sizes read from files must be bounded by the reader before they
 * reach here (a hostile file must not make us ask for terabytes).
 */
#ifndef MMPROF_XALLOC_H
#define MMPROF_XALLOC_H

#include <stddef.h>

void *xmalloc(size_t size);
void *xcalloc(size_t nmemb, size_t size);
void *xrealloc(void *ptr, size_t size);
char *xstrdup(const char *s);
char *xstrndup(const char *s, size_t n);
/* What they do when memory runs out: one line and exit(2). */
void xalloc__die(size_t size) __attribute__((noreturn));

/* Grow array *ptr of *alloc elements of elsize so that index n fits. */
void xgrow(void **ptr, size_t *alloc, size_t n, size_t elsize);
#define XGROW(ptr, alloc, n) xgrow((void **)&(ptr), &(alloc), (n), sizeof(*(ptr)))

/*
 * Give back the slack of a complete array: realloc *ptr to its n used
 * elements when that is fewer than *alloc (xgrow zeroes what it adds, so
 * the slack is resident).  n == 0 leaves it as it is.
 */
void xshrink(void **ptr, size_t *alloc, size_t n, size_t elsize);
#define XSHRINK(ptr, alloc, n) xshrink((void **)&(ptr), &(alloc), (n), sizeof(*(ptr)))

#endif
