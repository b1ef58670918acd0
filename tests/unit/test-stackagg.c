/*
 * stackagg against a naive reference model: random sample streams with
 * many repeats and many distinct keys (past several table growths), then
 * totals and every per-key count must agree; reset empties and is reusable.
 *
 * `test-stackagg --bench [N]` (by hand, not under prove) measures the
 * aggregation on its own: N million adds of realistic 30-frame chains.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <linux/perf_event.h>

#include "mmprof/stackagg.h"
#include "tap.h"

#define MAXNR 200

struct key {
	uint32_t event, pid, comm, nr;
	uint64_t chain[MAXNR];
	uint64_t samples, period;
};

static uint64_t rng = 88172645463325252ULL;

static uint64_t next(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

static void random_key(struct key *k, unsigned universe)
{
	uint32_t i;

	memset(k, 0, sizeof(*k));
	k->event = next() % 2;
	k->pid = 100 + next() % 3;
	k->comm = next() % 2;
	/* mostly short (0 included), some long: records of many lines */
	k->nr = next() % 8 ? next() % 12 : next() % MAXNR;
	for (i = 0; i < k->nr; i++)
		k->chain[i] = next() % universe;
}

static struct key *model_find(struct key *m, size_t n, const struct key *k)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (m[i].event == k->event && m[i].pid == k->pid && m[i].comm == k->comm &&
		    m[i].nr == k->nr && !memcmp(m[i].chain, k->chain, k->nr * sizeof(uint64_t)))
			return &m[i];
	return NULL;
}

static void run_model(struct stackagg *a, unsigned universe, size_t nsamples, const char *what)
{
	struct key *m = calloc(nsamples, sizeof(*m)), k, *f;
	uint64_t total = 0, total_period = 0, sum = 0;
	size_t nm = 0, i;
	int bad = 0, order = 0;

	for (i = 0; i < nsamples; i++) {
		uint64_t period = 1 + next() % 1000;

		random_key(&k, universe);
		stackagg__add(a, k.event, k.pid, k.comm, k.chain, k.nr, period);
		f = model_find(m, nm, &k);
		if (!f) {
			f = &m[nm++];
			*f = k;
		}
		f->samples++;
		f->period += period;
		total++;
		total_period += period;
	}
	is_int(a->samples, total, "total samples agree");
	stackagg__flush(a);
	is_int(a->nr_entries, nm, "number of distinct keys agrees");
	for (i = 0; i < a->nr_entries; i++) {
		const struct stackagg_entry *e = stackagg__entry(a, i);

		memset(&k, 0, sizeof(k));
		k.event = e->event, k.pid = e->pid, k.comm = e->comm, k.nr = e->nr;
		if (e->nr > MAXNR) {
			bad++;
			continue;
		}
		memcpy(k.chain, stackagg__chain(a, e), e->nr * sizeof(uint64_t));
		f = model_find(m, nm, &k);
		if (!f || f->samples != e->samples || f->period != e->period)
			bad++;
		/* the model lists keys as first seen: the queue must not reorder */
		if (f != &m[i])
			order++;
		sum += e->period;
	}
	is_int(bad, 0, "every entry's samples and period equal the model's");
	is_int(sum, total_period, "total period agrees");
	is_int(order, 0, "entries in first-seen order");
	printf("# %s: %zu samples, %zu distinct\n", what, nsamples, nm);
	free(m);
}

static int bench(double millions)
{
	struct stackagg a;
	enum { NSTACKS = 5000, DEPTH = 30, NPICK = 1 << 16 };
	static uint16_t pick[NPICK];
	static uint64_t stacks[NSTACKS][DEPTH];
	size_t n = (size_t)(millions * 1e6), i;
	struct timespec t0, t1;
	double s;

	for (i = 0; i < NSTACKS; i++) {
		size_t j;

		stacks[i][0] = PERF_CONTEXT_KERNEL;
		for (j = 1; j < DEPTH; j++)
			stacks[i][j] = 0xffffffff81000000ULL + (next() % 4096) * 16;
	}
	/* skewed: a few hot stacks, a long tail; picked before timing */
	for (i = 0; i < NPICK; i++)
		pick[i] = (uint16_t)((next() % 4) ? next() % 64 : next() % NSTACKS);
	stackagg__init(&a);
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t0);
	for (i = 0; i < n; i++)
		stackagg__add(&a, 0, 1000, 1, stacks[pick[i % NPICK]], DEPTH, 250000);
	stackagg__flush(&a);
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t1);
	s = (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9;
	printf("stackagg: %zu adds of %d-word chains, %zu distinct: %.3f s, %.1f M adds/s\n",
	       n, DEPTH, a.nr_entries, s, (double)n / s / 1e6);
	stackagg__release(&a);
	return 0;
}

int main(int argc, char **argv)
{
	struct stackagg a;

	if (argc > 1 && !strcmp(argv[1], "--bench"))
		return bench(argc > 2 ? atof(argv[2]) : 20);

	stackagg__init(&a);
	stackagg__add(&a, 0, 1, 0, NULL, 0, 5);
	stackagg__add(&a, 0, 1, 0, NULL, 0, 7);
	stackagg__flush(&a);
	ok(a.nr_entries == 1 && stackagg__entry(&a, 0)->samples == 2 &&
	   stackagg__entry(&a, 0)->period == 12,
	   "empty chains aggregate too");
	stackagg__reset(&a);
	is_int(a.nr_entries, 0, "reset empties");

	/*
	 * Periods near 2^64 (a wrapped difference): the sum saturates, where
	 * it wrapped to 384 and passed for a small period; a sum that fits
	 * is exact up to 2^64 - 1.
	 */
	stackagg__add(&a, 0, 1, 0, NULL, 0, UINT64_MAX - 615);
	stackagg__add(&a, 0, 1, 0, NULL, 0, 1000);
	stackagg__add(&a, 0, 1, 0, NULL, 0, 1000);
	stackagg__add(&a, 0, 2, 0, NULL, 0, UINT64_MAX - 1000);
	stackagg__add(&a, 0, 2, 0, NULL, 0, 1000);
	stackagg__add(&a, 0, 3, 0, NULL, 0, UINT64_C(1) << 63);
	stackagg__add(&a, 0, 3, 0, NULL, 0, UINT64_C(1) << 63);
	stackagg__flush(&a);
	ok(a.nr_entries == 3 && stackagg__entry(&a, 0)->samples == 3 &&
	   stackagg__entry(&a, 0)->period == UINT64_MAX,
	   "a period sum past 2^64 saturates (%llu)", (unsigned long long)stackagg__entry(&a, 0)->period);
	ok(stackagg__entry(&a, 1)->period == UINT64_MAX - 1000 + 1000,
	   "a sum of exactly 2^64 - 1 is kept exact");
	ok(stackagg__entry(&a, 2)->period == UINT64_MAX, "2^63 + 2^63 saturates (it wrapped to 0)");
	stackagg__reset(&a);

	/* small universe: heavy repetition */
	run_model(&a, 3, 20000, "repetitive");
	stackagg__reset(&a);
	/* large universe: mostly distinct keys, several table growths */
	run_model(&a, 1u << 30, 6000, "distinct");
	stackagg__reset(&a);
	run_model(&a, 4, 8000, "after reset");
	stackagg__reset(&a);

	/* samples still queued when reset: gone, and the next run starts clean */
	{
		uint64_t c[2] = { 1, 2 };

		stackagg__add(&a, 0, 1, 0, c, 2, 3);
		stackagg__add(&a, 0, 1, 0, c, 1, 3);
		stackagg__reset(&a);
		stackagg__add(&a, 0, 1, 0, c, 2, 4);
		stackagg__flush(&a);
		stackagg__flush(&a);
		ok(a.samples == 1 && a.nr_entries == 1 && stackagg__entry(&a, 0)->samples == 1 &&
		   stackagg__entry(&a, 0)->period == 4 && stackagg__entry(&a, 0)->nr == 2,
		   "reset drops queued samples; flush twice counts once");
		/* the caller's buffer is reused at once: the queue keeps its own copy */
		c[1] = 5;
		stackagg__add(&a, 0, 1, 0, c, 2, 1);
		c[1] = 2;
		stackagg__flush(&a);
		ok(a.nr_entries == 2 && stackagg__chain(&a, stackagg__entry(&a, 1))[1] == 5,
		   "a chain changed by the caller after add() is counted as it was");
	}
	stackagg__release(&a);

	/*
	 * The budget (issue 14 item 11): full() once the arena reaches
	 * max_words; clear() empties the entries and keeps the counts of the
	 * run; with leaf_only a new chain keeps its context marker and sampled
	 * address only, a known one still counts whole, and every sample is
	 * counted somewhere; discard() leaves the entries after it intact.
	 */
	{
		uint64_t c[40], samples = 0, kept = 0, leaf = 0;
		size_t i, j, full_at = 0;

		stackagg__init(&a);
		a.max_words = 1024;	/* 8 KiB: 24 records of a 40-word chain */
		c[0] = PERF_CONTEXT_KERNEL;
		for (i = 0; i < 200 && !full_at; i++) {
			c[1] = 0xffffffff81000000ull + i % 3;	/* three sampled addresses */
			for (j = 2; j < 40; j++)
				c[j] = 0xffffffff82000000ull + i * 40 + j;	/* every chain new */
			stackagg__add(&a, 0, 1, 0, c, 40, 10);
			if (stackagg__full(&a))
				full_at = i + 1;
		}
		ok(full_at >= 24 && full_at <= 24 + STACKAGG_AHEAD && a.arena_used >= a.max_words,
		   "full once the arena reaches max_words (after %zu new chains)", full_at);
		stackagg__flush(&a);
		stackagg__discard(&a, a.nr_entries - 1);
		j = a.nr_entries - 1;
		ok(stackagg__entry(&a, j)->nr == 40 && stackagg__chain(&a, stackagg__entry(&a, j))[39] ==
			   0xffffffff82000000ull + j * 40 + 39,
		   "discard keeps the entries after it");
		stackagg__clear(&a);
		ok(a.nr_entries == 0 && a.arena_used == 0 && !stackagg__full(&a) &&
			   a.samples == full_at, "clear empties the entries, keeps the samples");
		a.leaf_only = true;
		for (i = 0; i < 200; i++) {
			c[1] = 0xffffffff81000000ull + i % 3;
			for (j = 2; j < 40; j++)
				c[j] = 0xffffffff83000000ull + i * 40 + j;
			stackagg__add(&a, 0, 1, 0, c, 40, 10);
			if (i == 0) {	/* the first one whole: known from here on */
				stackagg__flush(&a);
				a.leaf_only = false;
				stackagg__add(&a, 0, 1, 0, c, 40, 10);
				stackagg__flush(&a);
				a.leaf_only = true;
			}
		}
		for (j = 2; j < 40; j++)
			c[j] = 0xffffffff83000000ull + j;	/* chain 0 again: known, whole */
		c[1] = 0xffffffff81000000ull;
		stackagg__add(&a, 0, 1, 0, c, 40, 10);
		stackagg__flush(&a);
		for (i = 0; i < a.nr_entries; i++) {
			const struct stackagg_entry *en = stackagg__entry(&a, i);

			samples += en->samples;
			kept += en->nr == 40 ? en->samples : 0;
			leaf += en->nr == 2 ? en->samples : 0;
		}
		is_int(samples, 202, "every sample is counted");
		is_int(a.samples, full_at + 202, "samples counts every add since the reset");
		ok(leaf == a.cut && a.cut == 200 && kept == 2,
		   "new chains with leaf_only keep their leaf: %llu cut, %llu whole",
		   (unsigned long long)a.cut, (unsigned long long)kept);
		ok(a.nr_entries == 4, "the cut chains share their three leaves (%zu entries)",
		   a.nr_entries);
		stackagg__reset(&a);
		ok(a.cut == 0 && !a.leaf_only, "reset clears the cut count and leaf_only");
		stackagg__release(&a);
	}
	stackagg__release(&a);	/* release twice is harmless */
	return done_testing();
}
