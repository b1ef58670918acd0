/*
 * Unit tests of the model keeping within the file format's rules: every
 * value kernel data or a workload can hand record that breaks one of
 * save's invariants (a pid past pid_t, a period read as a wrapped
 * difference, a run total at 2^63, a stack deeper than the format's
 * limit, a string over 4 MiB, meta full), given through the public
 * profile API, is repaired or dropped where it enters, counted, and the
 * profile saves and loads back with the repair; and datafile__salvage,
 * the last line of defence, writes a profile save refuses (rows broken
 * behind the API's back, as a bug would) without the rows that break it.
 */
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "mmprof/datafile.h"
#include "tap.h"

static char dir[64];

static const char *path_in(const char *name)
{
	static char buf[4][256];
	static int i;
	char *b = buf[i++ % 4];

	snprintf(b, sizeof(buf[0]), "%s/%s", dir, name);
	return b;
}

/* One run, one event, one frame: the smallest profile counts can go in. */
static struct profile *base_profile(uint32_t *frame)
{
	struct profile *p = profile__new();
	struct event_desc ev = { .name = profile__intern(p, "cpu-clock"), .freq = 1,
				 .sample = 4000 };
	struct frame f = { .addr = 0x1000, .sym = profile__intern(p, "main") };
	struct run r = { .exit_code = 0, .samples = 3 };

	profile__add_event(p, &ev);
	profile__add_run(p, &r);
	*frame = profile__frame(p, &f);
	return p;
}

/* Save through record's path, load it back: NULL (with a failed test) if either fails. */
static struct profile *round_trip(struct profile *p, const char *name, char *warn, size_t size)
{
	struct errmsg w, e;
	struct profile *q = NULL;
	int rc = datafile__save_recording(p, path_in(name), &w, &e);

	ok(rc == 0, "%s: saved (%s)", name, rc ? e.msg : "ok");
	snprintf(warn, size, "%s", w.msg);
	if (!rc && datafile__load(path_in(name), &q, &e))
		ok(0, "%s: loads back: %s", name, e.msg);
	return q;
}

static uint64_t counts_sum(const struct profile *p, bool period)
{
	uint64_t s = 0;
	size_t i;

	for (i = 0; i < p->nr_counts; i++)
		s += period ? p->counts[i].period : p->counts[i].samples;
	return s;
}

static void test_pid(void)
{
	uint32_t f;
	struct profile *p = base_profile(&f), *q;
	uint32_t comm = profile__intern(p, "stress-ng"), node = profile__stack(p, &f, 1);
	char warn[512];

	profile__add_count(p, 0, 0, comm, UINT32_MAX, node, 1, 1000);	/* perf's -1 */
	profile__add_count(p, 0, 0, comm, (uint32_t)INT32_MAX + 1, node, 1, 1000);
	profile__add_count(p, 0, 0, comm, 42, node, 1, 1000);
	q = round_trip(p, "pid.data", warn, sizeof(warn));
	ok(q && q->nr_counts == 2 && counts_sum(q, false) == 3,
	   "pids past pid_t are kept as pid 0: 3 samples in 2 cells");
	ok(q && profile__meta(q, "repaired.pid") && !strcmp(profile__meta(q, "repaired.pid"), "2"),
	   "meta repaired.pid says 2");
	ok(strstr(warn, "counts of a pid past pid_t stored as pid 0: 2") && !strchr(warn, '\n'),
	   "one warning line: %s", warn);
	profile__free(q);
	profile__free(p);
}

static void test_sums(void)
{
	uint32_t f;
	struct profile *p = base_profile(&f), *q;
	uint32_t comm = profile__intern(p, "sleep"), node = profile__stack(p, &f, 1);
	char warn[512];

	profile__add_count(p, 0, 0, comm, 7, node, 1, 5000);
	/* an off-CPU time computed as now - then with then > now */
	profile__add_count(p, 0, 0, comm, 7, node, 1, (uint64_t)-3000);
	profile__add_count(p, 0, 0, comm, 8, node, 1, (uint64_t)INT64_MAX);
	profile__add_count(p, 0, 0, comm, 9, node, (uint64_t)1 << 63, 1);
	profile__add_count(p, 0, 0, comm, 7, node, 2, 7000);
	q = round_trip(p, "sums.data", warn, sizeof(warn));
	ok(q && counts_sum(q, false) == 3 && counts_sum(q, true) == 12000,
	   "counts taking the sum to 2^63 are dropped, the others kept (%llu samples, %llu ns)",
	   q ? (unsigned long long)counts_sum(q, false) : 0,
	   q ? (unsigned long long)counts_sum(q, true) : 0);
	ok(q && profile__meta(q, "repaired.count_over_2^63") &&
	   !strcmp(profile__meta(q, "repaired.count_over_2^63"), "3"),
	   "meta repaired.count_over_2^63 says 3");
	ok(strstr(warn, "counts dropped that took the sum of all to 2^63: 3"), "the warning says so: %s", warn);
	profile__free(q);
	profile__free(p);
}

static void test_run(void)
{
	uint32_t f;
	struct profile *p = base_profile(&f), *q;
	struct run r = { .exit_code = 0, .samples = 10, .lost = (uint64_t)-5,
			 .throttled = (uint64_t)1 << 63 };
	char warn[512];

	profile__add_run(p, &r);
	q = round_trip(p, "run.data", warn, sizeof(warn));
	ok(q && q->nr_runs == 2 && q->runs[1].lost == INT64_MAX &&
	   q->runs[1].throttled == INT64_MAX && q->runs[1].samples == 10,
	   "a run's lost and throttled at 2^63 are capped below it");
	ok(q && profile__meta(q, "repaired.run_count"), "meta repaired.run_count");
	profile__free(q);
	profile__free(p);
}

static void test_depth(void)
{
	uint32_t f, g, *frames = malloc((PROFILE_MAX_DEPTH + 10) * sizeof(*frames));
	struct profile *p = base_profile(&f), *q;
	struct frame leaf = { .addr = 0x2000, .sym = profile__intern(p, "leaf") };
	uint32_t node, comm = profile__intern(p, "deep"), k;
	char warn[512];

	g = profile__frame(p, &leaf);
	frames[0] = g;	/* innermost first, as the kernel gives them */
	for (k = 1; k < PROFILE_MAX_DEPTH + 10; k++)
		frames[k] = f;
	node = profile__stack(p, frames, PROFILE_MAX_DEPTH + 10);
	profile__add_count(p, 0, 0, comm, 1, node, 1, 1000);
	/* and node by node from the root, past the limit */
	for (node = PROFILE_ROOT, k = 0; k < PROFILE_MAX_DEPTH + 2; k++)
		node = profile__node(p, node, k % 2 ? f : g);
	profile__add_count(p, 0, 0, comm, 2, node, 1, 1000);
	q = round_trip(p, "deep.data", warn, sizeof(warn));
	ok(q && q->nr_counts == 2, "stacks deeper than %u frames are kept, cut", PROFILE_MAX_DEPTH);
	ok(q && q->nr_counts && q->nodes[q->counts[0].node].depth == PROFILE_MAX_DEPTH &&
	   q->frames[q->nodes[q->counts[0].node].frame].addr == 0x2000,
	   "to their innermost %u frames: the sampled IP kept", PROFILE_MAX_DEPTH);
	ok(q && profile__meta(q, "repaired.stack") &&
	   !strcmp(profile__meta(q, "repaired.stack"), "3"),
	   "meta repaired.stack says 3 (one stack, two node adds)");
	profile__free(q);
	profile__free(p);
	free(frames);
}

static void test_strings(void)
{
	uint32_t f;
	struct profile *p = base_profile(&f), *q;
	size_t len = PROFILE_MAX_STR + 100, i;
	char *big = malloc(len + 1), warn[512];
	const char *s;
	uint32_t node;

	/* "é" (2 bytes) over and over: the cut at 4 MiB falls between characters */
	big[0] = 'x';
	for (i = 1; i + 1 < len; i += 2) {
		big[i] = (char)0xc3;
		big[i + 1] = (char)0xa9;
	}
	big[i] = '\0';
	node = profile__stack(p, &f, 1);
	profile__add_count(p, 0, 0, profile__intern(p, big), 1, node, 1, 1000);
	/* a workload's metric key with invalid UTF-8 and a control byte */
	profile__add_metric(p, 0, "bench.\xff\x01ops", INFINITY);
	profile__add_metric(p, 0, "bench.nan", NAN);
	q = round_trip(p, "strings.data", warn, sizeof(warn));
	s = q && q->nr_counts ? profile__str(q, q->counts[0].comm) : NULL;
	ok(s && strlen(s) <= PROFILE_MAX_STR && strlen(s) > PROFILE_MAX_STR - 2 &&
	   ((unsigned char)s[strlen(s) - 1] == 0xa9),
	   "a string over 4 MiB is cut to it, on a character's boundary (%zu bytes)",
	   s ? strlen(s) : 0);
	ok(q && profile__meta(q, "repaired.string"), "meta repaired.string");
	ok(q && q->nr_metrics == 2 && !strcmp(profile__str(q, q->metrics[0].key), "bench.\xff\x01ops") &&
	   isinf(q->metrics[0].value) && isnan(q->metrics[1].value),
	   "invalid UTF-8 in a key, inf and NaN values come back as they were");
	profile__free(q);
	profile__free(p);
	free(big);
}

static void test_meta_full(void)
{
	uint32_t f;
	struct profile *p = base_profile(&f), *q;
	char key[32], warn[512];
	size_t i;

	profile__set_meta(p, "format_version", "3");
	for (i = 0; i < PROFILE_MAX_META + 10; i++) {
		snprintf(key, sizeof(key), "hint.%zu", i);
		profile__set_meta(p, key, "x");
	}
	q = round_trip(p, "meta.data", warn, sizeof(warn));
	ok(q && q->nr_meta <= PROFILE_MAX_META - 1, "meta past its limit is dropped (%zu keys)",
	   q ? q->nr_meta : 0);
	ok(strstr(warn, "meta keys dropped: 12"), "the warning says so: %s", warn);
	profile__free(q);
	profile__free(p);
}

/* Rows broken behind the API's back, as a bug upstream would: salvage. */
static void test_salvage(void)
{
	uint32_t f;
	struct profile *p = base_profile(&f), *q = NULL;
	uint32_t comm = profile__intern(p, "x"), node = profile__stack(p, &f, 1);
	struct errmsg w, e;
	int rc;

	profile__add_count(p, 0, 0, comm, 1, node, 1, 1000);
	profile__add_count(p, 0, 0, comm, 2, node, 1, 1000);
	profile__add_count(p, 0, 0, comm, 3, node, 1, 1000);
	profile__add_metric(p, 0, "bench.ops", 5);
	p->counts[1].pid = UINT32_MAX;
	p->counts[2].event = 7;
	rc = datafile__save(p, path_in("salvage.data"), &e);
	ok(rc == -EINVAL && access(path_in("salvage.data"), F_OK),
	   "save refuses the profile, writes nothing: %s", e.msg);
	rc = datafile__save_recording(p, path_in("salvage.data"), &w, &e);
	ok(rc == 0, "record's save writes it all the same (%s)", rc ? e.msg : "ok");
	ok(strstr(w.msg, "without 2 rows that break the format") &&
	   strstr(w.msg, "counts row 1: pid 4294967295 is out of range"),
	   "one warning naming the first row left out: %s", w.msg);
	rc = datafile__load(path_in("salvage.data"), &q, &e);
	ok(rc == 0 && q->nr_counts == 1 && q->counts[0].pid == 1 && q->nr_metrics == 1,
	   "it loads, with the good count and the metrics");
	ok(q && profile__meta(q, DATAFILE_META_DROPPED) &&
	   !strcmp(profile__meta(q, DATAFILE_META_DROPPED), "2"), "meta %s says 2",
	   DATAFILE_META_DROPPED);
	profile__free(q);
	q = NULL;

	/* a table others refer to: the file keeps what needs no stack */
	p->counts[1].pid = 2;
	p->counts[2].event = 0;
	p->nodes[1].frame = 99;
	rc = datafile__save_recording(p, path_in("salvage.data"), &w, &e);
	ok(rc == 0 && strstr(w.msg, "nodes row 1: frame 99 does not exist; written without its stacks"),
	   "a broken trie: written without its stacks: %s", rc ? e.msg : w.msg);
	rc = datafile__load(path_in("salvage.data"), &q, &e);
	ok(rc == 0 && q->nr_counts == 0 && q->nr_metrics == 1 && q->nr_runs == 1 &&
	   !strcmp(profile__meta(q, DATAFILE_META_DROPPED), "3"),
	   "it loads: runs and metrics kept, the 3 counts counted as dropped");
	profile__free(q);
	profile__free(p);
}

static void cleanup(void)
{
	static const char *const names[] = { "pid.data", "sums.data", "run.data", "deep.data",
					     "strings.data", "meta.data", "salvage.data" };
	size_t i;

	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		unlink(path_in(names[i]));
	rmdir(dir);
}

int main(void)
{
	snprintf(dir, sizeof(dir), "/tmp/mmprof-test-repair.XXXXXX");
	if (!mkdtemp(dir)) {
		perror("mkdtemp");
		return 1;
	}
	test_pid();
	test_sums();
	test_run();
	test_depth();
	test_strings();
	test_meta_full();
	test_salvage();
	cleanup();
	return done_testing();
}
