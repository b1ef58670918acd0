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
 * lines.  When every sample brings a new chain (random recursion at
 * 20 kHz: 800,000 chains of ~70 frames in 40 s) that grew without bound
 * (2.1 GB against perf's 355 MB).  So the arena has a size, max_words:
 * stackagg__full() says when it is reached, and the sampler then writes
 * the entries to its spill file (chainspill.h) and empties them (clear();
 * the counts of the run go on); the end of the run merges them back into
 * its profile's trie.  Past 3/4 of the trie's bound the sampler sorts new
 * chains whole beside it (chainsort.h), so keys are never cut then; only
 * where that sort has no file (a folder that is not writable) and the
 * trie itself is full (DATAFILE_TRIE_NODES, or the file would be one a
 * reader refuses) does the sampler set leaf_only: a new key keeps only
 * its innermost frame (the sampled address, with the context marker
 * before it), so the sample stays counted and its self share right, its
 * callers are lost, and cut says how many samples that happened to.
 *
 * A key's period sum saturates at 2^64 - 1 rather than wrap (two samples
 * of a period wrapped near 2^64 summed to a few hundred ns): the profile
 * then drops the cell as one past 2^63 and counts it (profile.h's
 * PROFILE_REPAIR_COUNT, meta repaired.count_over_2^63).
 */
#ifndef MMPROF_STACKAGG_H
#define MMPROF_STACKAGG_H

#include <stdbool.h>
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
	size_t max_words;	/* 0: no limit; else the arena's size (see above) */
	uint64_t cut;		/* samples whose chain was cut to its leaf, since the last reset */
	struct stackagg_pending pend[STACKAGG_AHEAD];
	unsigned pend_head, nr_pend;
	bool leaf_only;		/* new keys keep only their leaf (see above) */
};

/*
 * The default budget of a recording's distinct call chains, in bytes:
 * three eighths for the arena (15 MiB: the raw chains of 8 s of a busy
 * system-wide recording at 20 kHz were 10.6 MB, so the common case never
 * fills it; when it is full the sampler spills it, chainspill.h).  A test
 * sets it lower with MMPROF_STACK_BUDGET (cmd-record.c): the profile is
 * the same, only spilled more often.
 *
 * The trie record builds from the chains holds what datafile.h's rule
 * for record and import lets it (DATAFILE_TRIE_NODES, 2 Mi nodes, about
 * 100 MiB of record's memory at the end of a run, within what every
 * reader takes); record fills 3/4 of it as chains come.  The worst case
 * (a new chain of ~70 frames in almost every sample) fills that in
 * seconds: past it a new chain is sorted whole to the output's folder
 * (chainsort.h, its memory the arena's share again) and after the last
 * run taken into the trie within the whole bound (chaintake.h;
 * Documentation/performance.md, "The worst case").  With the arena and
 * the trie that is record's bound for chains.  A test sets a smaller trie
 * with MMPROF_STACK_NODES (cmd-record.c), of which 3/4 alike.
 */
#define STACKAGG_BUDGET (40ull << 20)
#define STACKAGG_ARENA_EIGHTHS 3
#define STACKAGG_BUDGET_MIN (64ull << 10)
#define STACKAGG_BUDGET_MAX (64ull << 30)

void stackagg__init(struct stackagg *a);
void stackagg__release(struct stackagg *a);
void stackagg__reset(struct stackagg *a);

/* Count one sample (nr may be 0); chain may be reused once this returns. */
void stackagg__add(struct stackagg *a, uint32_t event, uint32_t pid, uint32_t comm,
		   const uint64_t *chain, uint32_t nr, uint64_t period);

/* Count every queued sample, so that the entries are complete. */
void stackagg__flush(struct stackagg *a);

/* The arena has reached max_words: time to empty it (see above). */
static inline bool stackagg__full(const struct stackagg *a)
{
	return a->max_words && a->arena_used >= a->max_words;
}

/*
 * Give back the memory of the records of entries before i (< nr_entries),
 * which the caller has read and will not read again: their contents are
 * gone (the sampler, storing a full arena into its trie, so that the two
 * are not both whole at once).
 */
void stackagg__discard(struct stackagg *a, size_t i);

/* Empty the entries (flush() first), keeping samples, cut and the memory. */
void stackagg__clear(struct stackagg *a);

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
