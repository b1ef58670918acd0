/*
 * chainspill against a naive model: random sample streams through an
 * aggregate whose arena is tiny, spilled as a run whenever it is full
 * (hundreds of runs, keys repeated across them, chains longer than a
 * block), then merged: every distinct key must come back exactly once
 * with the model's samples and period, in key order; the unnamed file
 * leaves nothing in its folder; a corrupt block is an error, not a crash.
 */
#include <dirent.h>
#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "mmprof/chainspill.h"
#include "tap.h"

#define MAXNR 5000

struct key {
	uint32_t event, pid, comm, nr;
	uint64_t *chain;
	uint64_t samples, period;
	int seen;
};

static uint64_t rng = 88172645463325252ULL;

static uint64_t next(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

static int key_eq(const struct key *k, uint32_t event, uint32_t pid, uint32_t comm,
		  const uint64_t *chain, uint32_t nr)
{
	return k->event == event && k->pid == pid && k->comm == comm && k->nr == nr &&
	       (!nr || !memcmp(k->chain, chain, nr * sizeof(uint64_t)));
}

struct model {
	struct key *k;
	size_t n;
	int bad, dup, order;
	size_t got;
	struct stackagg_entry last;
	int have_last;
};

static struct key *model_find(struct model *m, uint32_t event, uint32_t pid, uint32_t comm,
			      const uint64_t *chain, uint32_t nr)
{
	size_t i;

	for (i = 0; i < m->n; i++)
		if (key_eq(&m->k[i], event, pid, comm, chain, nr))
			return &m->k[i];
	return NULL;
}

static int check(void *ctx, const struct stackagg_entry *e, const uint64_t *chain)
{
	struct model *m = ctx;
	struct key *k = model_find(m, e->event, e->pid, e->comm, chain, e->nr);

	if (!k || k->samples != e->samples || k->period != e->period)
		m->bad++;
	else if (k->seen++)
		m->dup++;
	/* key order: hash first */
	if (m->have_last && m->last.hash > e->hash)
		m->order++;
	m->last = *e;
	m->have_last = 1;
	m->got++;
	return 0;
}

static size_t dir_entries(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *de;
	size_t n = 0;

	while (d && (de = readdir(d)))
		if (strcmp(de->d_name, ".") && strcmp(de->d_name, ".."))
			n++;
	if (d)
		closedir(d);
	return n;
}

static void run(size_t nsamples, unsigned universe, size_t max_words, const char *dir,
		const char *what)
{
	struct stackagg a;
	struct chainspill cs;
	struct model m = { 0 };
	uint64_t *chain = malloc(MAXNR * sizeof(*chain));
	size_t i;
	int err = 0;

	stackagg__init(&a);
	a.max_words = max_words;
	chainspill__init(&cs);
	ok(!chainspill__open(&cs, dir), "%s: the spill file opens", what);
	ok(dir_entries(dir) == 0, "%s: and has no name in its folder", what);
	m.k = calloc(nsamples, sizeof(*m.k));
	for (i = 0; i < nsamples && !err; i++) {
		uint32_t event = next() % 2, pid = 100 + next() % 3, comm = next() % 2, nr, j;
		uint64_t period = 1 + next() % 1000;
		struct key *k;

		/* mostly short, a few longer than a block (32 KiB: 4096 words) */
		nr = next() % 50 ? next() % 12 : next() % MAXNR;
		for (j = 0; j < nr; j++)
			chain[j] = next() % universe;
		stackagg__add(&a, event, pid, comm, chain, nr, period);
		if (!(k = model_find(&m, event, pid, comm, chain, nr))) {
			k = &m.k[m.n++];
			k->event = event, k->pid = pid, k->comm = comm, k->nr = nr;
			k->chain = malloc((nr ? nr : 1) * sizeof(*chain));
			memcpy(k->chain, chain, nr * sizeof(*chain));
		}
		k->samples++;
		k->period += period;
		if (stackagg__full(&a))
			err = chainspill__write(&cs, &a);
	}
	if (!err)
		err = chainspill__write(&cs, &a);
	is_int(err, 0, "every run written");
	ok(a.nr_entries == 0, "%s: the arena is empty after a write", what);
	err = chainspill__merge(&cs, check, &m);
	is_int(err, 0, "merge");
	is_int(m.got, m.n, "merge gives every distinct key once");
	is_int(m.bad, 0, "each with the model's samples and period");
	is_int(m.dup, 0, "none twice");
	is_int(m.order, 0, "in key order");
	printf("# %s: %zu samples, %zu distinct, %zu runs, %llu keys spilled, %llu bytes\n",
	       what, nsamples, m.n, cs.nr_runs, (unsigned long long)cs.keys,
	       (unsigned long long)cs.end);

	/* a second merge gives the same (the runs stay until reset) */
	memset(&m.bad, 0, sizeof(m) - offsetof(struct model, bad));
	for (i = 0; i < m.n; i++)
		m.k[i].seen = 0;
	ok(!chainspill__merge(&cs, check, &m) && m.got == m.n && !m.bad && !m.dup,
	   "%s: a second merge gives the same keys", what);
	chainspill__reset(&cs);
	m.got = 0;
	ok(!chainspill__merge(&cs, check, &m) && m.got == 0, "%s: reset forgets the runs", what);
	chainspill__release(&cs);
	ok(dir_entries(dir) == 0, "%s: nothing left in the folder", what);
	for (i = 0; i < m.n; i++)
		free(m.k[i].chain);
	free(m.k);
	free(chain);
	stackagg__release(&a);
}

static int stop_at(void *ctx, const struct stackagg_entry *e, const uint64_t *chain)
{
	(void)e, (void)chain;
	return ++*(int *)ctx == 3 ? -ECANCELED : 0;
}

/* The whole key's order (chainspill.c's key_cmp), checked entry after entry. */
struct full_order {
	struct stackagg_entry last;
	uint64_t chain[8];
	size_t got;
	int bad;
};

static int check_full_order(void *ctx, const struct stackagg_entry *e, const uint64_t *chain)
{
	struct full_order *o = ctx;
	const struct stackagg_entry *l = &o->last;
	int c = 0;

	if (o->got) {
		c = l->hash != e->hash ? (l->hash < e->hash ? -1 : 1) :
		    l->event != e->event ? (l->event < e->event ? -1 : 1) :
		    l->pid != e->pid ? (l->pid < e->pid ? -1 : 1) :
		    l->comm != e->comm ? (l->comm < e->comm ? -1 : 1) :
		    l->nr != e->nr ? (l->nr < e->nr ? -1 : 1) :
		    memcmp(o->chain, chain, e->nr * sizeof(*chain));
		o->bad += c >= 0;
	}
	o->last = *e;
	memcpy(o->chain, chain, e->nr * sizeof(*chain));
	o->got++;
	return 0;
}

/*
 * A run is sorted by hash without reading the records, then by the rest
 * of the key among equal hashes: forced here by rewriting 3,000 distinct
 * keys' hashes to four values (and to one), each key once, every
 * neighbour in key order.
 */
static void test_equal_hashes(const char *dir)
{
	uint64_t masks[] = { 3, 0, ~0ull };
	size_t i, k, distinct;

	for (k = 0; k < sizeof(masks) / sizeof(*masks); k++) {
		struct stackagg a;
		struct chainspill cs;
		struct full_order o = { 0 };
		uint64_t chain[8];

		stackagg__init(&a);
		chainspill__init(&cs);
		chainspill__open(&cs, dir);
		for (i = 0; i < 3000; i++) {
			uint32_t nr = 1 + next() % 6, j;

			for (j = 0; j < nr; j++)
				chain[j] = next() % 50;
			stackagg__add(&a, next() % 2, 100 + next() % 3, 0, chain, nr, 1);
		}
		stackagg__flush(&a);
		distinct = a.nr_entries;
		for (i = 0; i < a.nr_entries; i++)
			stackagg__entry(&a, i)->hash &= masks[k];
		ok(chainspill__write(&cs, &a) == 0, "hashes & %#llx: written",
		   (unsigned long long)masks[k]);
		is_int(chainspill__merge(&cs, check_full_order, &o), 0, "and merged");
		ok(o.got == distinct && !o.bad, "each of %zu keys once, in key order (%zu, %d out)",
		   distinct, o.got, o.bad);
		chainspill__release(&cs);
		stackagg__release(&a);
	}
}

int main(void)
{
	char dir[] = "/tmp/test-chainspill.XXXXXX";
	struct stackagg a;
	struct chainspill cs;
	uint64_t c[3] = { 1, 2, 3 };
	unsigned char junk[64];
	int calls = 0;

	if (!mkdtemp(dir)) {
		perror("mkdtemp");
		return 1;
	}
	/* repeated keys across many runs; then mostly distinct ones */
	run(20000, 4, 512, dir, "repetitive, 512-word arena");
	run(6000, 1u << 30, 2048, dir, "distinct, 2048-word arena");
	run(3000, 3, 0, dir, "one run (no limit)");
	test_equal_hashes(dir);

	/* fn's non-zero return stops the merge and is returned */
	stackagg__init(&a);
	chainspill__init(&cs);
	chainspill__open(&cs, dir);
	for (c[0] = 0; c[0] < 10; c[0]++)
		stackagg__add(&a, 0, 1, 0, c, 3, 1);
	chainspill__write(&cs, &a);
	is_int(chainspill__merge(&cs, stop_at, &calls), -ECANCELED, "fn's error stops the merge");
	is_int(calls, 3, "after its third key");

	/* a block that does not decompress: -EIO */
	memset(junk, 0x5a, sizeof(junk));
	ok(pwrite(cs.fd, junk, sizeof(junk), 8) == (ssize_t)sizeof(junk), "corrupt the block");
	calls = 0;
	is_int(chainspill__merge(&cs, stop_at, &calls), -EIO, "a corrupt block is -EIO");
	chainspill__release(&cs);
	chainspill__release(&cs);	/* released twice: harmless */
	stackagg__release(&a);

	chainspill__init(&cs);
	ok(chainspill__open(&cs, "/nonexistent/dir") == -ENOENT, "a missing folder is -ENOENT");
	stackagg__init(&a);
	stackagg__add(&a, 0, 1, 0, c, 3, 1);
	ok(chainspill__write(&cs, &a) == -EBADF && a.samples == 1,
	   "write without a file: -EBADF, the arena kept");
	stackagg__release(&a);
	chainspill__release(&cs);
	rmdir(dir);
	return done_testing();
}
