/* stackagg: raw callchain aggregation hash; see include/mmprof/stackagg.h. */
#include <stdlib.h>
#include <string.h>

#include "mmprof/hashidx.h"
#include "mmprof/stackagg.h"
#include "mmprof/xalloc.h"

#define SLOT_EMPTY UINT32_MAX

void stackagg__init(struct stackagg *a)
{
	memset(a, 0, sizeof(*a));
}

void stackagg__release(struct stackagg *a)
{
	free(a->entries);
	free(a->arena);
	free(a->slots);
	stackagg__init(a);
}

void stackagg__reset(struct stackagg *a)
{
	a->nr_entries = 0;
	a->arena_used = 0;
	a->samples = 0;
	if (a->slots)
		memset(a->slots, 0xff, (a->mask + 1) * sizeof(*a->slots));
}

/*
 * Chains are short (tens of words) and hashing them is most of the
 * per-sample cost: four independent lanes (multiply, rotate) keep the
 * multiplier busy instead of waiting on one serial chain; the final
 * avalanche mixes high bits down into the slot index.
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

static void grow_table(struct stackagg *a)
{
	size_t cap = a->slots ? (a->mask + 1) * 2 : 1024, i;

	free(a->slots);
	a->slots = xmalloc(cap * sizeof(*a->slots));
	memset(a->slots, 0xff, cap * sizeof(*a->slots));
	a->mask = cap - 1;
	for (i = 0; i < a->nr_entries; i++) {
		size_t j = a->entries[i].hash & a->mask;

		while (a->slots[j].entry != SLOT_EMPTY)
			j = (j + 1) & a->mask;
		a->slots[j].entry = (uint32_t)i;
		a->slots[j].tag = (uint32_t)a->entries[i].hash;
	}
}

static void insert(struct stackagg *a, size_t slot, uint64_t h, uint32_t event,
		   uint32_t pid, uint32_t comm, const uint64_t *chain, uint32_t nr,
		   uint64_t period)
{
	struct stackagg_entry *e;

	if (a->arena_used + nr > a->arena_alloc) {
		size_t want = a->arena_alloc ? a->arena_alloc : 4096;

		while (want < a->arena_used + nr)
			want *= 2;
		a->arena = xrealloc(a->arena, want * sizeof(*a->arena));
		a->arena_alloc = want;
	}
	if (nr)
		memcpy(a->arena + a->arena_used, chain, nr * sizeof(*chain));
	XGROW(a->entries, a->alloc_entries, a->nr_entries);
	e = &a->entries[a->nr_entries];
	e->samples = 1;
	e->period = period;
	e->chain_off = a->arena_used;
	e->event = event;
	e->pid = pid;
	e->comm = comm;
	e->nr = nr;
	e->hash = h;
	a->arena_used += nr;
	a->slots[slot].entry = (uint32_t)a->nr_entries;
	a->slots[slot].tag = (uint32_t)h;
	a->nr_entries++;
	/* keep the load under 1/2 so probe runs stay short */
	if (a->nr_entries * 2 > a->mask + 1)
		grow_table(a);
}

void stackagg__add(struct stackagg *a, uint32_t event, uint32_t pid, uint32_t comm,
		   const uint64_t *chain, uint32_t nr, uint64_t period)
{
	uint64_t h = chain_hash(event, pid, comm, chain, nr);
	size_t i;

	if (!a->slots)
		grow_table(a);
	a->samples++;
	for (i = h & a->mask;; i = (i + 1) & a->mask) {
		const struct stackagg_slot *sl = &a->slots[i];
		struct stackagg_entry *e;

		if (sl->entry == SLOT_EMPTY)
			break;
		if (sl->tag != (uint32_t)h)
			continue;
		e = &a->entries[sl->entry];
		if (e->hash == h && e->nr == nr && e->pid == pid && e->event == event &&
		    e->comm == comm &&
		    (!nr || !memcmp(a->arena + e->chain_off, chain, nr * sizeof(*chain)))) {
			e->samples++;
			e->period += period;
			return;
		}
	}
	insert(a, i, h, event, pid, comm, chain, nr, period);
}
