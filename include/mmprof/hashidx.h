/*
 * hashidx: an open-addressing hash index over the rows of an array.
 *
 * The table stores row indexes (uint32_t) and their 64-bit hashes, never
 * keys: the caller's array is the storage and the caller's eq() compares
 * a probe key with a row.  This lets one structure intern strings, frames,
 * trie nodes and count cells without copying keys.  Lookups dominate
 * (every sample of a recording does one), inserts are amortised O(1), rows
 * are never removed.  Load factor is kept under 1/2.
 */
#ifndef MMPROF_HASHIDX_H
#define MMPROF_HASHIDX_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define HASHIDX_NONE UINT32_MAX

struct hashidx {
	uint32_t *rows;
	uint64_t *hashes;
	size_t mask;		/* capacity - 1; capacity is a power of 2 */
	size_t nr;
};

typedef bool (*hashidx_eq_fn)(const void *ctx, uint32_t row, const void *key);

void hashidx__init(struct hashidx *h);
void hashidx__release(struct hashidx *h);

/* The row equal to key, or HASHIDX_NONE. */
uint32_t hashidx__find(const struct hashidx *h, uint64_t hash,
		       hashidx_eq_fn eq, const void *ctx, const void *key);

/* Record that row (known absent) has this hash.  Exits when out of memory (xalloc.h). */
void hashidx__insert(struct hashidx *h, uint64_t hash, uint32_t row);

/*
 * Make room for nr rows in all, so that inserts up to nr allocate nothing
 * (and cannot exit): 0, or -ENOMEM with h unchanged.  For owners that
 * report running out of memory rather than exit (strintern.h).
 */
int hashidx__reserve(struct hashidx *h, size_t nr);

/* Hash helpers: 64-bit mixing of integers and FNV-1a-like bytes. */
static inline uint64_t hash__u64(uint64_t x)
{
	x ^= x >> 33;
	x *= 0xff51afd7ed558ccdULL;
	x ^= x >> 33;
	x *= 0xc4ceb9fe1a85ec53ULL;
	x ^= x >> 33;
	return x;
}

static inline uint64_t hash__combine(uint64_t seed, uint64_t v)
{
	return hash__u64(seed ^ (v + 0x9e3779b97f4a7c15ULL + (seed << 6) + (seed >> 2)));
}

uint64_t hash__bytes(const void *p, size_t len);

#endif
