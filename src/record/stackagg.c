/* stackagg: raw callchain aggregation hash; see include/mmprof/stackagg.h. */
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <linux/perf_event.h>

#include "mmprof/hashidx.h"
#include "mmprof/stackagg.h"
#include "mmprof/xalloc.h"

#define LINE_WORDS 8		/* 64-byte cache line */
#define TAG_BITS 24
#define TAG_MASK ((1ULL << TAG_BITS) - 1)

/* The hash's top bits: the slot index uses the low ones. */
static inline uint64_t tag_of(uint64_t h)
{
	return h >> (64 - TAG_BITS);
}

static inline size_t record_words(uint32_t nr)
{
	size_t w = sizeof(struct stackagg_entry) / 8 + nr;

	return (w + LINE_WORDS - 1) & ~(size_t)(LINE_WORDS - 1);
}

void stackagg__init(struct stackagg *a)
{
	memset(a, 0, sizeof(*a));
}

void stackagg__release(struct stackagg *a)
{
	unsigned i;

	for (i = 0; i < STACKAGG_AHEAD; i++)
		free(a->pend[i].chain);
	free(a->arena_raw);
	free(a->recs);
	free(a->slots);
	stackagg__init(a);
}

void stackagg__clear(struct stackagg *a)
{
	a->nr_entries = 0;
	a->arena_used = 0;
	if (a->slots)
		memset(a->slots, 0, (a->mask + 1) * sizeof(*a->slots));
}

void stackagg__reset(struct stackagg *a)
{
	stackagg__clear(a);
	a->samples = 0;
	a->cut = 0;
	a->leaf_only = false;
	a->pend_head = a->nr_pend = 0;
}

/*
 * The pages wholly inside the records before entry i: MADV_DONTNEED on
 * private memory of our own block (malloc keeps nothing inside an
 * allocation's user part) drops them; a later append faults in a zeroed
 * page and expects nothing of it.
 */
void stackagg__discard(struct stackagg *a, size_t i)
{
	uintptr_t lo = (uintptr_t)a->arena, hi = (uintptr_t)(a->arena + a->recs[i] * LINE_WORDS);
	uintptr_t page = (uintptr_t)sysconf(_SC_PAGESIZE);

	lo = (lo + page - 1) & ~(page - 1);
	hi &= ~(page - 1);
	if (hi > lo)
		madvise((void *)lo, hi - lo, MADV_DONTNEED);
}

/*
 * Chains are short (tens of words) and hashing them is much of the
 * per-sample cost when the keys are in cache: four independent lanes
 * (multiply, rotate) keep the multiplier busy instead of waiting on one
 * serial chain; the final avalanche mixes high bits down into the slot index.
 */
static inline uint64_t rotl64(uint64_t x, int r)
{
	return x << r | x >> (64 - r);
}

static inline uint64_t chain_hash(uint32_t event, uint32_t pid, uint32_t comm,
				  const uint64_t *chain, uint32_t nr)
{
	const uint64_t k0 = 0x9e3779b97f4a7c15ULL, k1 = 0xc2b2ae3d27d4eb4fULL;
	uint64_t h0 = ((uint64_t)event << 32 | pid) * k0, h1 = ((uint64_t)comm << 32 | nr) * k1;
	uint64_t h2 = k0 ^ nr, h3 = k1;
	uint32_t i = 0;

	for (; i + 4 <= nr; i += 4) {
		h0 = rotl64((h0 ^ chain[i]) * k0, 29);
		h1 = rotl64((h1 ^ chain[i + 1]) * k1, 31);
		h2 = rotl64((h2 ^ chain[i + 2]) * k0, 27);
		h3 = rotl64((h3 ^ chain[i + 3]) * k1, 33);
	}
	for (; i < nr; i++)
		h0 = rotl64((h0 ^ chain[i]) * k1, 29);
	return hash__u64(h0 ^ rotl64(h1, 17) ^ rotl64(h2, 35) ^ rotl64(h3, 49));
}

static inline struct stackagg_entry *record_at(const struct stackagg *a, uint64_t line)
{
	return (struct stackagg_entry *)(a->arena + line * LINE_WORDS);
}

static void grow_table(struct stackagg *a)
{
	size_t cap = a->slots ? (a->mask + 1) * 2 : 1024, i;

	free(a->slots);
	a->slots = xcalloc(cap, sizeof(*a->slots));
	a->mask = cap - 1;
	for (i = 0; i < a->nr_entries; i++) {
		uint64_t h = record_at(a, a->recs[i])->hash;
		size_t j = h & a->mask;

		while (a->slots[j])
			j = (j + 1) & a->mask;
		a->slots[j] = (a->recs[i] + 1) << TAG_BITS | tag_of(h);
	}
}

/*
 * The arena grows by realloc, which keeps malloc's alignment (16 bytes),
 * not the line's: allocate a line more and slide the records onto a line
 * boundary when the block moved to a different offset.
 */
static void grow_arena(struct stackagg *a, size_t need)
{
	size_t want = a->arena_alloc ? a->arena_alloc : 4096, shift;
	char *raw;

	while (want < need)
		want *= 2;
	raw = xrealloc(a->arena_raw, want * 8 + 64);
	shift = (size_t)(-(uintptr_t)raw & 63);
	if (shift != a->arena_shift && a->arena_used)
		memmove(raw + shift, raw + a->arena_shift, a->arena_used * 8);
	a->arena_raw = raw;
	a->arena_shift = shift;
	a->arena = (uint64_t *)(void *)(raw + shift);
	a->arena_alloc = want;
}

static void insert(struct stackagg *a, size_t slot, const struct stackagg_pending *p)
{
	size_t words = record_words(p->nr);
	uint64_t line = a->arena_used / LINE_WORDS;
	struct stackagg_entry *e;

	if (a->arena_used + words > a->arena_alloc)
		grow_arena(a, a->arena_used + words);
	e = record_at(a, line);
	e->hash = p->hash;
	e->samples = 1;
	e->period = p->period;
	e->event = p->event;
	e->pid = p->pid;
	e->comm = p->comm;
	e->nr = p->nr;
	if (p->nr)
		memcpy(e + 1, p->chain, p->nr * sizeof(*p->chain));
	a->arena_used += words;
	XGROW(a->recs, a->alloc_recs, a->nr_entries);
	a->recs[a->nr_entries++] = line;
	a->slots[slot] = (line + 1) << TAG_BITS | tag_of(p->hash);
	/* keep the load under 1/2 so probe runs stay short */
	if (a->nr_entries * 2 > a->mask + 1)
		grow_table(a);
}

/*
 * Words of the chain up to its first address (the sampled one), context
 * markers before it included: what a cut chain keeps.
 */
static uint32_t leaf_words(const struct stackagg_pending *p)
{
	uint32_t i;

	for (i = 0; i < p->nr; i++)
		if (p->chain[i] < PERF_CONTEXT_MAX)
			return i + 1;
	return p->nr;
}

static void count(struct stackagg *a, struct stackagg_pending *p)
{
	uint64_t h = p->hash, tag = tag_of(h);
	size_t i;

	for (i = h & a->mask;; i = (i + 1) & a->mask) {
		uint64_t sl = a->slots[i];
		struct stackagg_entry *e;

		if (!sl)
			break;
		if ((sl & TAG_MASK) != tag)
			continue;
		e = record_at(a, (sl >> TAG_BITS) - 1);
		if (e->hash == h && e->nr == p->nr && e->pid == p->pid && e->event == p->event &&
		    e->comm == p->comm &&
		    (!p->nr || !memcmp(e + 1, p->chain, p->nr * sizeof(*p->chain)))) {
			e->samples++;
			/* saturating (stackagg.h): a wrapped sum would pass for a small period */
			if (__builtin_add_overflow(e->period, p->period, &e->period))
				e->period = UINT64_MAX;
			return;
		}
	}
	if (a->leaf_only && leaf_words(p) < p->nr) {
		p->nr = leaf_words(p);
		p->hash = chain_hash(p->event, p->pid, p->comm, p->chain, p->nr);
		a->cut++;
		count(a, p);	/* once: the leaf cannot be cut again */
		return;
	}
	insert(a, i, p);
}

/*
 * Second stage: the slot prefetched half a queue ago is likely in cache
 * now; if it names a record with the same tag, start loading that record
 * (header and chain) so that count() finds it there.
 */
static inline void prefetch_record(const struct stackagg *a, const struct stackagg_pending *p)
{
	uint64_t tag = tag_of(p->hash), sl;
	size_t i;

	for (i = p->hash & a->mask; (sl = a->slots[i]); i = (i + 1) & a->mask) {
		if ((sl & TAG_MASK) == tag) {
			const char *r = (const char *)record_at(a, (sl >> TAG_BITS) - 1);
			size_t n = record_words(p->nr) * 8, off;

			for (off = 0; off < n; off += 64)
				__builtin_prefetch(r + off);
			return;
		}
	}
}

void stackagg__add(struct stackagg *a, uint32_t event, uint32_t pid, uint32_t comm,
		   const uint64_t *chain, uint32_t nr, uint64_t period)
{
	struct stackagg_pending *p;

	if (!a->slots)
		grow_table(a);
	a->samples++;
	if (a->nr_pend == STACKAGG_AHEAD) {
		count(a, &a->pend[a->pend_head]);
		a->pend_head = (a->pend_head + 1) & (STACKAGG_AHEAD - 1);
		a->nr_pend--;
	}
	p = &a->pend[(a->pend_head + a->nr_pend) & (STACKAGG_AHEAD - 1)];
	if (nr > p->alloc) {
		free(p->chain);
		p->alloc = nr < 64 ? 64 : nr;
		p->chain = xmalloc(p->alloc * sizeof(*p->chain));
	}
	if (nr)
		memcpy(p->chain, chain, nr * sizeof(*chain));
	p->hash = chain_hash(event, pid, comm, chain, nr);
	p->period = period;
	p->event = event;
	p->pid = pid;
	p->comm = comm;
	p->nr = nr;
	__builtin_prefetch(&a->slots[p->hash & a->mask]);
	a->nr_pend++;
	if (a->nr_pend > STACKAGG_AHEAD / 2)
		prefetch_record(a, &a->pend[(a->pend_head + a->nr_pend - 1 - STACKAGG_AHEAD / 2) &
					    (STACKAGG_AHEAD - 1)]);
}

void stackagg__flush(struct stackagg *a)
{
	while (a->nr_pend) {
		count(a, &a->pend[a->pend_head]);
		a->pend_head = (a->pend_head + 1) & (STACKAGG_AHEAD - 1);
		a->nr_pend--;
	}
}
