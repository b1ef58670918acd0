/*
 * test-hashidx: lib/hashidx against a naive model, a linear array.
 *
 * hashidx sits behind some 25 tables (strings, frames, trie nodes, count
 * cells, tids), so a wrong answer anywhere in it is a wrong profile.  Each
 * round draws thousands of random keys from a space about twice the size
 * of what gets inserted, so that finds hit and miss in about equal parts;
 * a key the model does not hold is inserted with probability 3/4.  Every
 * find is compared with a linear search of the model; after every growth
 * every row inserted so far must still be found.  The rounds differ in the
 * hash: a good one (hash__u64, a bijection, so no two keys share a hash),
 * hashes that only differ above the bits a table indexes (one long probe
 * chain), hashes shared by many keys (eq() decides), one hash for all,
 * hashes at the top of the table (chains wrap around to slot 0), and the
 * identity on consecutive keys (clusters).  eq() checks that it is only
 * asked about rows whose stored hash is the probe's.
 */
#include <inttypes.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "mmprof/hashidx.h"
#include "tap.h"

enum hash_mode { H_GOOD, H_HIGH_BITS, H_SHARED, H_CONSTANT, H_TOP, H_IDENTITY, H_NR };

static const char *const mode_name[H_NR] = {
	"good hash", "hashes equal in the indexed bits", "a hash per 13 keys",
	"one hash for all", "hashes at the top of the table", "identity hash",
};

static uint64_t hash_of(enum hash_mode m, uint64_t key)
{
	switch (m) {
	case H_GOOD:
		return hash__u64(key);
	case H_HIGH_BITS:
		return hash__u64(key) << 24;
	case H_SHARED:
		return hash__u64(key % 13);
	case H_CONSTANT:
		return 42;
	case H_TOP:
		return UINT64_MAX - key % 3;
	default:
		return key;
	}
}

/* the model: keys[row] for every row inserted, in insertion order */
struct model {
	uint64_t *keys;
	size_t nr;
	enum hash_mode mode;
	uint64_t probe_hash;	/* the hash of the find in progress */
	unsigned long eq_calls, eq_wrong_hash;
};

static uint32_t model__find(const struct model *m, uint64_t key)
{
	size_t i;

	for (i = 0; i < m->nr; i++)
		if (m->keys[i] == key)
			return (uint32_t)i;
	return HASHIDX_NONE;
}

static bool key_eq(const void *ctx, uint32_t row, const void *key)
{
	struct model *m = (struct model *)ctx;

	m->eq_calls++;
	if (row >= m->nr || hash_of(m->mode, m->keys[row]) != m->probe_hash)
		m->eq_wrong_hash++;
	return row < m->nr && m->keys[row] == *(const uint64_t *)key;
}

static uint64_t rng_next(uint64_t *s)
{
	*s ^= *s >> 12;
	*s ^= *s << 25;
	*s ^= *s >> 27;
	return *s * 0x2545f4914f6cdd1dULL;
}

static uint32_t find(struct hashidx *h, struct model *m, uint64_t key)
{
	m->probe_hash = hash_of(m->mode, key);
	return hashidx__find(h, m->probe_hash, key_eq, m, &key);
}

static void round_against_model(enum hash_mode mode, unsigned ops, uint64_t seed)
{
	const char *name = mode_name[mode];
	struct model m = { .mode = mode };
	struct hashidx h;
	uint64_t space = ops, s = seed;
	unsigned long finds = 0, hits = 0, wrong = 0, lost = 0, growths = 0, bad_shape = 0;
	unsigned long swept = 0;
	size_t cap = 0;
	unsigned i;

	m.keys = calloc(ops, sizeof(*m.keys));
	hashidx__init(&h);
	for (i = 0; i < ops; i++) {
		uint64_t key = rng_next(&s) % space;
		uint32_t want = model__find(&m, key), got = find(&h, &m, key);

		finds++;
		hits += want != HASHIDX_NONE;
		if (got != want && wrong++ == 0)
			printf("#   %s: op %u, key %" PRIu64 ": row %" PRIu32 ", want %" PRIu32 "\n",
			       name, i, key, got, want);
		if (want != HASHIDX_NONE || rng_next(&s) % 4 == 0)
			continue;
		m.keys[m.nr] = key;
		hashidx__insert(&h, hash_of(mode, key), (uint32_t)m.nr);
		m.nr++;
		if (h.nr != m.nr || (h.mask + 1) & h.mask || h.nr * 2 > h.mask + 1)
			bad_shape++;
		if (h.mask + 1 != cap) {
			size_t r;

			growths++;
			cap = h.mask + 1;
			for (r = 0; r < m.nr; r++)
				lost += find(&h, &m, m.keys[r]) != r;
			swept += m.nr;
		}
	}
	ok(wrong == 0, "%s: %lu finds (%lu hits) agree with the linear model (%lu differ)",
	   name, finds, hits, wrong);
	ok(m.nr > ops / 4 && hits > ops / 4 && finds - hits > ops / 8,
	   "%s: the round inserted %zu keys and missed as well as hit", name, m.nr);
	ok(bad_shape == 0, "%s: nr is the model's, capacity a power of 2, load <= 1/2", name);
	ok(growths >= 3 && lost == 0, "%s: every row still found after each of %lu growths (%lu lost)",
	   name, growths, lost);
	ok(m.eq_wrong_hash == 0, "%s: eq() only asked about rows of the probe's hash (%lu of %lu not)",
	   name, m.eq_wrong_hash, m.eq_calls);
	if (mode == H_GOOD || mode == H_HIGH_BITS)
		/* distinct hashes: eq() confirms a hit and is asked nothing else */
		is_int(m.eq_calls, hits + swept, "distinct hashes: one eq() per hit, none per miss");
	free(m.keys);
	hashidx__release(&h);
}

/* An empty index, release and reuse, and row numbers up to the largest. */
static void test_edges(void)
{
	struct model m = { .mode = H_GOOD };
	uint64_t keys[3] = { 7, 8, 9 };
	struct hashidx h;
	uint64_t key = 7;

	hashidx__init(&h);
	is_int(hashidx__find(&h, hash__u64(key), key_eq, &m, &key), HASHIDX_NONE,
	       "an empty index finds nothing (and calls no eq())");
	is_int(m.eq_calls, 0, "... eq() not called");
	hashidx__release(&h);
	hashidx__release(&h);
	ok(!h.rows && !h.nr, "release twice leaves an empty index");

	/* rows are the caller's numbers, not slots: the largest one fits */
	m.keys = keys;
	m.nr = 3;
	hashidx__insert(&h, hash__u64(7), 0);
	hashidx__insert(&h, hash__u64(9), 2);
	is_int(find(&h, &m, 9), 2, "a row inserted out of order is found");
	is_int(find(&h, &m, 8), HASHIDX_NONE, "the row between is not");
	hashidx__release(&h);
	hashidx__insert(&h, 5, HASHIDX_NONE - 1);
	ok(h.nr == 1 && h.rows[5 & h.mask] == HASHIDX_NONE - 1,
	   "row HASHIDX_NONE - 1 is stored as is after a release and reuse");
	hashidx__release(&h);
}

/* Interning strings, hashidx's commonest use: hash__bytes over the bytes. */
struct strtab {
	char (*s)[8];
	size_t nr;
};

static bool str_eq(const void *ctx, uint32_t row, const void *key)
{
	const struct strtab *t = ctx;

	return !strcmp(t->s[row], key);
}

static void test_strings(void)
{
	enum { N = 4000 };
	struct strtab t = { calloc(N, sizeof(*t.s)), 0 };
	struct hashidx h;
	uint64_t s = 0x5eed;
	unsigned long wrong = 0, hits = 0;
	unsigned i;
	size_t j;

	hashidx__init(&h);
	for (i = 0; i < N; i++) {
		char key[8];
		size_t len = 1 + rng_next(&s) % 3, k;
		uint32_t want = HASHIDX_NONE, got;
		uint64_t hash;

		/* 1-3 letters of "abcdefgh": 584 strings, so most repeat */
		for (k = 0; k < len; k++)
			key[k] = (char)('a' + rng_next(&s) % 8);
		key[len] = '\0';
		for (j = 0; j < t.nr; j++)
			if (!strcmp(t.s[j], key))
				want = (uint32_t)j;
		hash = hash__bytes(key, len);
		got = hashidx__find(&h, hash, str_eq, &t, key);
		wrong += got != want;
		if (want != HASHIDX_NONE) {
			hits++;
			continue;
		}
		memcpy(t.s[t.nr], key, len + 1);
		hashidx__insert(&h, hash, (uint32_t)t.nr++);
	}
	ok(wrong == 0 && hits > N / 2 && t.nr > 400,
	   "interning %d strings: %zu distinct, %lu repeats found, %lu wrong", N, t.nr, hits, wrong);
	ok(hash__bytes("ab", 2) != hash__bytes("ba", 2) && hash__bytes("a", 1) != hash__bytes("a", 2) &&
	   hash__bytes("", 0) == hash__bytes("x", 0),
	   "hash__bytes: order and length count, bytes past len do not");
	free(t.s);
	hashidx__release(&h);
}

int main(void)
{
	int mode;

	test_edges();
	for (mode = 0; mode < H_NR; mode++)
		/* one chain for all keys is quadratic: fewer operations there */
		round_against_model((enum hash_mode)mode,
				    mode == H_CONSTANT || mode == H_TOP ? 3000 : 20000,
				    0x9e3779b97f4a7c15ULL + (uint64_t)mode);
	test_strings();
	return done_testing();
}
