/*
 * benchout: benchmark output into a run's metrics.  Fixtures in
 * tests/golden/benchout/: NAME.input is a benchmark's output as the robot
 * reads it (lkp-sng-*, lkp-wis-*: lkp-tests' own spec fixtures; sng015-*:
 * stress-ng 0.15 on this machine; wis-page_fault1: will-it-scale's
 * runtest.py page_fault1, built from its repository, under mmprof record
 * here; sng-edge, wis-both: the cases of the parsers' comments), NAME.expected what lkp-tests' parser prints for it,
 * run as the oracle and prefixed with the program's name as the robot
 * stores its keys:
 *
 *   ruby programs/stress-ng/parse < X.input | sed 's/^/stress-ng./'
 *   ruby programs/will-it-scale/parse < X.input | sed 's/^/will-it-scale./'
 *
 * (the test itself needs neither ruby nor lkp-tests).  A key the robot
 * prints twice (will-it-scale's assertion lines) is one key here.  lkp-tests'
 * will-it-scale fixture 2 (assertion lines alone) is left out: without
 * runtest.py's header a glibc assert of any program would be read (see
 * benchout.h; test_refused).
 * Then --ops-pattern (sum, no match, a group that is no number, bad
 * patterns) and what the readers refuse to read.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mmprof/benchout.h"
#include "mmprof/strlist.h"
#include "tap.h"

#define GOLDEN "tests/golden/benchout/"

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* "key: value" with the value as a number, so 40704.00 and 40704 agree */
static void add_kv(struct strlist *l, const char *key, double v)
{
	char buf[600];
	size_t i;

	snprintf(buf, sizeof(buf), "%s: %.17g", key, v);
	for (i = 0; i < l->nr; i++)
		if (!strcmp(l->items[i], buf))
			return;
	strlist__add(l, buf);
}

static void sort(struct strlist *l)
{
	if (l->nr)
		qsort(l->items, l->nr, sizeof(*l->items), cmp_str);
}

/* Feed a file's lines (without '\n') to b. */
static int feed_file(struct benchout *b, const char *path)
{
	FILE *f = fopen(path, "r");
	char *line = NULL;
	size_t alloc = 0;
	ssize_t n;

	if (!f)
		return -errno;
	while ((n = getline(&line, &alloc, f)) >= 0) {
		if (n && line[n - 1] == '\n')
			n--;
		benchout__line(b, line, (size_t)n);
	}
	free(line);
	fclose(f);
	return 0;
}

static void metrics_of(const struct profile *p, uint32_t run, struct strlist *got)
{
	size_t i;

	for (i = 0; i < p->nr_metrics; i++)
		if (p->metrics[i].run == run)
			add_kv(got, profile__str(p, p->metrics[i].key), p->metrics[i].value);
	sort(got);
}

static void test_fixture(const char *name)
{
	struct strlist got = { 0 }, want = { 0 };
	struct profile *p = profile__new();
	struct benchout b;
	char path[256], *line = NULL;
	size_t alloc = 0, i;
	ssize_t n;
	FILE *f;
	int same;

	benchout__init(&b, NULL, p, 0);
	snprintf(path, sizeof(path), GOLDEN "%s.input", name);
	ok(feed_file(&b, path) == 0, "%s: input read", name);
	benchout__end(&b);
	benchout__release(&b);
	metrics_of(p, 0, &got);

	snprintf(path, sizeof(path), GOLDEN "%s.expected", name);
	f = fopen(path, "r");
	ok(f != NULL, "%s: expected keys read", name);
	while (f && (n = getline(&line, &alloc, f)) >= 0) {
		char *colon = strstr(line, ": ");

		if (!colon)
			continue;
		*colon = '\0';
		add_kv(&want, line, strtod(colon + 2, NULL));
	}
	if (f)
		fclose(f);
	free(line);
	sort(&want);

	same = got.nr == want.nr;
	for (i = 0; same && i < got.nr; i++)
		same = !strcmp(got.items[i], want.items[i]);
	if (!same) {
		for (i = 0; i < got.nr; i++)
			fprintf(stderr, "# got  %s\n", got.items[i]);
		for (i = 0; i < want.nr; i++)
			fprintf(stderr, "# want %s\n", want.items[i]);
	}
	ok(same && want.nr > 0, "%s: the robot's %zu keys and values, no other", name, want.nr);
	strlist__release(&got);
	strlist__release(&want);
	profile__free(p);
}

/* The metrics of lines fed to a fresh benchout with opts o, as sorted "key: value". */
static void run_lines(const struct benchout_opts *o, const char *const *lines, size_t nr,
		      struct strlist *got, size_t *matches)
{
	struct profile *p = profile__new();
	struct benchout b;
	size_t i;

	benchout__init(&b, o, p, 3);
	for (i = 0; i < nr; i++)
		benchout__line(&b, lines[i], strlen(lines[i]));
	*matches = benchout__end(&b);
	benchout__release(&b);
	metrics_of(p, 3, got);
	profile__free(p);
}

static void test_ops_pattern(void)
{
	static const char *const lines[] = {
		"warming up", "iteration 1: 1500 ops in 0.5 s", "iteration 2: 2500 ops in 0.5 s",
		"iteration 3: many ops in 0.5 s", "total: 4000 ops",
	};
	struct benchout_opts o;
	struct strlist got = { 0 };
	struct errmsg e = { "" };
	size_t m;

	memset(&o, 0, sizeof(o));
	is_int(benchout_opts__set_ops(&o, "^iteration [0-9]+: ([0-9.]+) ops", "fio", "x", &e), 0,
	       "a pattern with a group compiles");
	run_lines(&o, lines, sizeof(lines) / sizeof(lines[0]), &got, &m);
	is_int((int)m, 2, "two lines matched (a group that is no number does not count)");
	ok(got.nr == 1 && !strcmp(got.items[0], "fio.ops: 4000"),
	   "the matches are summed into the named key, stored once at the end");
	strlist__release(&got);
	run_lines(&o, lines, 1, &got, &m);
	ok(m == 0 && got.nr == 0, "no match: no key (no work count, not a zero)");
	strlist__release(&got);
	benchout_opts__release(&o);
	ok(!o.has_ops, "released");

	is_int(benchout_opts__set_ops(&o, "(x)", NULL, "/usr/bin/fio", &e), 0, "no name given");
	is_str(o.ops_key, "fio.ops", "the key is named after the command's file name");
	benchout_opts__release(&o);
	is_int(benchout_opts__set_ops(&o, "ops ([0-9]+", NULL, "x", &e), -EINVAL,
	       "an unbalanced group is refused");
	ok(!strncmp(e.msg, "--ops-pattern 'ops ([0-9]+': ", 29) && !strchr(e.msg, '\n'),
	   "in one line naming the pattern: %s", e.msg);
	is_int(benchout_opts__set_ops(&o, "ops [0-9]+", NULL, "x", &e), -EINVAL,
	       "a pattern without a group is refused");
	ok(strstr(e.msg, "no group") != NULL, "saying it needs one: %s", e.msg);
	is_int(benchout_opts__set_ops(&o, "(x)", NULL, "my bench", &e), -EINVAL,
	       "a command name that makes no key is refused");
	ok(strstr(e.msg, "--ops-name") != NULL && !o.has_ops, "pointing to --ops-name: %s", e.msg);
}

static void test_refused(void)
{
	static const char *const foreign[] = {
		/* the table of stress-ng, but not written by it: not read */
		"mine: metrc: [1]                           (secs)    (secs)    (secs)   (real time) (usr+sys time)",
		"mine: metrc: [1] vm               138427      2.02      1.40      0.61     68669.64       68800.83",
		/* will-it-scale's rows without runtest.py's header: not read */
		"1,523401,49.97,519876,49.95,523401",
		"Assertion `ret == 1' failed.",
		/* a workload's own metric line: stored as it is */
		"wl.ops: 7",
	};
	static const char *const hostile[] = {
		"stress-ng: metrc: [1]                           (secs)    (secs)    (secs)   (real time) (usr+sys time)",
		/* a stressor name no key may hold */
		"stress-ng: metrc: [1] v\x1b[31m          138427      2.02      1.40      0.61     68669.64       68800.83",
		"stress-ng: metrc: [1] vm               1e999      2.02      1.40      0.61     68669.64       68800.83",
		"stress-ng: metrc: [1] ok                  12      2.02      1.40      0.61        5.94           8.51",
	};
	struct strlist got = { 0 };
	size_t m;

	run_lines(NULL, foreign, sizeof(foreign) / sizeof(foreign[0]), &got, &m);
	ok(got.nr == 1 && !strcmp(got.items[0], "wl.ops: 7"),
	   "lines not from stress-ng or runtest.py give no table keys");
	strlist__release(&got);
	run_lines(NULL, hostile, sizeof(hostile) / sizeof(hostile[0]), &got, &m);
	ok(got.nr == 3 && !strcmp(got.items[0], "stress-ng.ok.ops: 12"),
	   "a stressor name with an escape or a count that is no finite number stores nothing");
	strlist__release(&got);
}

int main(void)
{
	static const char *const fixtures[] = {
		"lkp-sng-01", "lkp-sng-05", "lkp-sng-06", "lkp-sng-07", "lkp-sng-08",
		"sng015-brief", "sng015-metrics", "sng-edge",
		"lkp-wis-1", "wis-both", "wis-page_fault1",
	};
	size_t i;

	for (i = 0; i < sizeof(fixtures) / sizeof(fixtures[0]); i++)
		test_fixture(fixtures[i]);
	test_ops_pattern();
	test_refused();
	return done_testing();
}
