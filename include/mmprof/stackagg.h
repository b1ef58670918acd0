/*
 * stackagg: the sampler's aggregate of raw callchains, counted as they are read.
 *
 * Key: (event index, pid, comm id, raw callchain as the kernel delivered it,
 * PERF_CONTEXT_* markers included, so kernel/user is part of the key at no
 * cost).  Value: samples and summed period.  The workload is one add() per
 * sample, millions per second, against a few thousand to a few hundred
 * thousand distinct keys, nothing allocated per sample.
 *
 * With many distinct keys the cost is memory latency, not instructions, so
 * the layout keeps a lookup to two cache-miss streams: an open-addressing
 * table of 8-byte slots (record offset and a 24-bit tag from the hash bits
 * the index does not use, so most probes of a wrong key stop at the slot),
 * and one 64-byte-aligned arena record per key holding the entry header and
 * its chain back to back.  add() does not count at once: it copies the
 * sample into a short queue, hashes it and prefetches its slot; half a
 * queue later the slot is read and the record prefetched; a queue later
 * the sample is counted, by then mostly from cache.  The queue keeps the
 * order, so entries, counts and their order are exactly those of counting
 * each sample at once.
 *
 * Invariants: samples counts every add() at once; entries (nr_entries,
 * stackagg__entry) hold only what has been counted: call flush() before
 * reading them.  Entries are kept in insertion order and read back by
 * index; reset() empties the aggregate (queue included) but keeps its
 * memory for the next run.
 *
 * Memory: a key costs its chain and a header, rounded up to 64-byte
 * lines, and the trie that record builds from the keys costs a few times
 * that again.  When every sample brings a new chain (random recursion at
 * 20 kHz: 800,000 chains of ~70 frames in 40 s) that grew without bound
 * (2.1 GB against perf's 355 MB).  With max_words set, a new key that
 * would take the arena past it keeps only its innermost frame (the
 * sampled address, with the context marker before it): the sample stays
 * counted and its self share right, its callers are lost, and cut says
 * how many samples that happened to.
 */
#ifndef MMPROF_STACKAGG_H
#define MMPROF_STACKAGG_H

#include <stddef.h>
#include <stdint.h>

/* Header of one arena record; the key's chain (nr words) follows it. */
struct stackagg_entry {
	uint64_t hash;
	uint64_t samples, period;
	uint32_t event, pid, comm, nr;
};

/* Samples added but not yet counted: a power of 2, two prefetch stages. */
#define STACKAGG_AHEAD 8

struct stackagg_pending {
	uint64_t hash, period;
	uint32_t event, pid, comm, nr;
	uint64_t *chain;	/* own copy: the caller's buffer is reused */
	size_t alloc;
};

struct stackagg {
	uint64_t *arena;	/* records, each starting on a 64-byte line */
	size_t arena_used, arena_alloc;	/* in words */
	size_t arena_shift;	/* bytes from arena_raw to the first aligned line */
	void *arena_raw;
	uint64_t *recs;		/* arena line of each entry, in insertion order */
	size_t nr_entries, alloc_recs;
	uint64_t *slots;	/* 0 empty, else (line + 1) << 24 | tag */
	size_t mask;		/* capacity - 1 (power of 2), 0 when no table */
	uint64_t samples;	/* total adds since the last reset */
	size_t max_words;	/* 0: no limit; else the arena's budget (see above) */
	uint64_t cut;		/* samples whose chain was cut to its leaf, since the last reset */
	struct stackagg_pending pend[STACKAGG_AHEAD];
	unsigned pend_head, nr_pend;
};

/* The default budget of record's aggregate: the arena's bytes. */
#define STACKAGG_BUDGET (64ull << 20)

void stackagg__init(struct stackagg *a);
void stackagg__release(struct stackagg *a);
void stackagg__reset(struct stackagg *a);

/* Count one sample (nr may be 0); chain may be reused once this returns. */
void stackagg__add(struct stackagg *a, uint32_t event, uint32_t pid, uint32_t comm,
		   const uint64_t *chain, uint32_t nr, uint64_t period);

/* Count every queued sample, so that the entries are complete. */
void stackagg__flush(struct stackagg *a);

/* Entry i (< nr_entries) in insertion order; valid until the next add/flush/reset. */
static inline struct stackagg_entry *stackagg__entry(const struct stackagg *a, size_t i)
{
	return (struct stackagg_entry *)(a->arena + a->recs[i] * 8);
}

static inline const uint64_t *stackagg__chain(const struct stackagg *a,
					      const struct stackagg_entry *e)
{
	(void)a;
	return (const uint64_t *)(e + 1);
}

#endif
