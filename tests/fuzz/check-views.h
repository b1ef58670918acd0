/*
 * check-views.h: the fuzzers' check of what a profile they loaded renders
 * (fuzz-perfscript.c, fuzz-datafile.c): the folded, tree and JSON views of
 * any profile that loads are written without error (or refused whole,
 * -E2BIG, past their budgets: robustness.md, What a reader may cost),
 * every line is ended and carries no control byte (names from a profiled
 * program are escaped), and the folded counts add up to at most the
 * samples the profile holds.
 * Static functions only: included once per fuzzer.
 */
#ifndef MMPROF_TESTS_CHECK_VIEWS_H
#define MMPROF_TESTS_CHECK_VIEWS_H

#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "mmprof/outbuf.h"
#include "mmprof/report.h"

/* No control byte but newline; with counts, every line ends in " N", their sum into *sum. */
static void check_lines(const struct outbuf *b, bool counts, uint64_t *sum)
{
	const char *line = b->s ? b->s : "", *nl;

	for (; *line; line = nl + 1) {
		const char *sp, *c;

		nl = strchr(line, '\n');
		if (!nl)
			abort();	/* every view ends its lines */
		for (c = line; c < nl; c++)
			if ((unsigned char)*c < 0x20 || *c == 0x7f)
				abort();
		if (!counts)
			continue;
		for (sp = nl; sp > line && sp[-1] != ' '; sp--)
			;
		if (sp == line || sp == nl || strspn(sp, "0123456789") != (size_t)(nl - sp))
			abort();
		*sum += strtoull(sp, NULL, 10);
	}
}

static void check_views(const struct profile *p, uint64_t samples)
{
	struct folded_opts fo = { .event = -1, .comm = true, .run = -1 };
	struct tree_opts to = { .event = -1 };
	struct json_opts jo = { .tree = true };
	struct outbuf b = { 0 };
	uint64_t sum = 0;
	int rc;

	rc = report__folded(p, &fo, &b);
	if (rc && rc != -E2BIG)	/* frames past REPORT_MAX_FOLDED_FRAMES: refused */
		abort();
	check_lines(&b, true, &sum);
	if (sum > samples)
		abort();
	outbuf__release(&b);
	rc = report__tree(p, &to, &b);
	if (rc && rc != -E2BIG)	/* lines past REPORT_MAX_TREE_LINES: refused */
		abort();
	check_lines(&b, false, &sum);
	outbuf__release(&b);
	rc = report__json(p, &jo, &b, NULL);
	if (rc && rc != -E2BIG)	/* keys x runs past KEYS_MAX_VALUES: refused */
		abort();
	check_lines(&b, false, &sum);
	outbuf__release(&b);
}

/* The samples of every count: what folded may add up to at most. */
static uint64_t count_samples(const struct profile *p)
{
	uint64_t sum = 0;
	size_t i;

	for (i = 0; i < p->nr_counts; i++)
		sum += p->counts[i].samples;
	return sum;
}

#endif
