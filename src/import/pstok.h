/*
 * Private to src/import: perf script's text cut into tokens and each
 * token's shape (a time, a pid, a CPU, a hex address), for perfscript.c.
 * Pure functions of the bytes given: no state, no allocation, every
 * index within len, so that the fuzzer of perfscript (fuzz-perfscript)
 * covers them through the parser.
 */
#ifndef MMPROF_IMPORT_PSTOK_H
#define MMPROF_IMPORT_PSTOK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* A token: len bytes at s, within the caller's line. */
struct pstok {
	const char *s;
	size_t len;
};

/* The blanks between tokens (a '\r' of a CRLF file among them). */
static inline bool pstok__blank(int c)
{
	return c == ' ' || c == '\t' || c == '\r';
}

/* The first max tokens of s (len bytes) into t; how many. */
size_t pstok__split(const char *s, size_t len, struct pstok *t, size_t max);
/* One digit or more, and nothing else. */
bool pstok__digits(const char *s, size_t len);
/* "1619.000146:" */
bool pstok__is_time(const struct pstok *t);
/* "25644" or "25644/25646" */
bool pstok__is_pid(const struct pstok *t);
/*
 * The process of a "pid/tid" token (pstok__is_pid); 0 (not known) for a
 * lone number, which perf script prints for its default field, the tid:
 * taking it for the process would split one process's threads.  0 past
 * pid_t.
 */
uint32_t pstok__pid(const struct pstok *t);
/* "[001]" */
bool pstok__is_cpu(const struct pstok *t);
/* 1 to 16 hex digits, either case, into *v; false if not that. */
bool pstok__hex(const char *s, size_t len, uint64_t *v);
/* The seconds of a pstok__is_time token (its ':' dropped). */
double pstok__time(const struct pstok *t);

#endif
