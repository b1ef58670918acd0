/*
 * stackagg: the sampler's aggregate of raw callchains, counted as they are read.
 *
 * Key: (event index, pid, comm id, raw callchain as the kernel delivered it,
 * PERF_CONTEXT_* markers included, so kernel/user is part of the key at no
 * cost).  Value: samples and summed period.  The workload is one add() per
 * sample, millions per second, against a few thousand to a few hundred
 * thousand distinct keys: chains are copied once into an arena when new,
 * the table is open addressing with a 32-bit tag per slot so most probes
 * never touch the entries, and nothing is allocated per sample.
 *
 * Entries are kept in insertion order and read back by index; reset()
 * empties the aggregate but keeps its memory for the next run.
 */
#ifndef MMPROF_STACKAGG_H
#define MMPROF_STACKAGG_H

#include <stddef.h>
#include <stdint.h>

struct stackagg_entry {
	uint64_t samples, period;
	uint64_t chain_off;	/* index of the chain's first word in the arena */
	uint32_t event, pid, comm, nr;
	uint64_t hash;
};

struct stackagg_slot {
	uint32_t entry;		/* index into entries, UINT32_MAX when empty */
	uint32_t tag;		/* low 32 bits of the entry's hash */
};

struct stackagg {
	struct stackagg_entry *entries;
	size_t nr_entries, alloc_entries;
	uint64_t *arena;	/* all distinct chains, back to back */
	size_t arena_used, arena_alloc;
	struct stackagg_slot *slots;
	size_t mask;		/* capacity - 1 (power of 2), 0 when no table */
	uint64_t samples;	/* total adds since the last reset */
};

void stackagg__init(struct stackagg *a);
void stackagg__release(struct stackagg *a);
void stackagg__reset(struct stackagg *a);

/* Count one sample (nr may be 0). */
void stackagg__add(struct stackagg *a, uint32_t event, uint32_t pid, uint32_t comm,
		   const uint64_t *chain, uint32_t nr, uint64_t period);

static inline const uint64_t *stackagg__chain(const struct stackagg *a,
					      const struct stackagg_entry *e)
{
	return a->arena + e->chain_off;
}

#endif
