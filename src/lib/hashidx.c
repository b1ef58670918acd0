/* hashidx: open-addressing index of array rows; see include/mmprof/hashidx.h. */
#include <stdlib.h>
#include <string.h>

#include "mmprof/hashidx.h"
#include "mmprof/xalloc.h"

void hashidx__init(struct hashidx *h)
{
	memset(h, 0, sizeof(*h));
}

void hashidx__release(struct hashidx *h)
{
	free(h->rows);
	free(h->hashes);
	hashidx__init(h);
}

uint32_t hashidx__find(const struct hashidx *h, uint64_t hash,
		       hashidx_eq_fn eq, const void *ctx, const void *key)
{
	size_t i;

	if (!h->rows)
		return HASHIDX_NONE;
	for (i = hash & h->mask;; i = (i + 1) & h->mask) {
		uint32_t row = h->rows[i];

		if (row == HASHIDX_NONE)
			return HASHIDX_NONE;
		if (h->hashes[i] == hash && eq(ctx, row, key))
			return row;
	}
}

static void place(struct hashidx *h, uint64_t hash, uint32_t row)
{
	size_t i = hash & h->mask;

	while (h->rows[i] != HASHIDX_NONE)
		i = (i + 1) & h->mask;
	h->rows[i] = row;
	h->hashes[i] = hash;
}

static void grow(struct hashidx *h)
{
	size_t old_cap = h->rows ? h->mask + 1 : 0;
	size_t cap = old_cap ? old_cap * 2 : 64;
	uint32_t *old_rows = h->rows;
	uint64_t *old_hashes = h->hashes;
	size_t i;

	h->rows = xmalloc(cap * sizeof(*h->rows));
	h->hashes = xmalloc(cap * sizeof(*h->hashes));
	memset(h->rows, 0xff, cap * sizeof(*h->rows));
	h->mask = cap - 1;
	for (i = 0; i < old_cap; i++)
		if (old_rows[i] != HASHIDX_NONE)
			place(h, old_hashes[i], old_rows[i]);
	free(old_rows);
	free(old_hashes);
}

void hashidx__insert(struct hashidx *h, uint64_t hash, uint32_t row)
{
	if (!h->rows || (h->nr + 1) * 2 > h->mask + 1)
		grow(h);
	place(h, hash, row);
	h->nr++;
}

uint64_t hash__bytes(const void *p, size_t len)
{
	const unsigned char *s = p;
	uint64_t h = 0xcbf29ce484222325ULL;
	size_t i;

	for (i = 0; i < len; i++) {
		h ^= s[i];
		h *= 0x100000001b3ULL;
	}
	return hash__u64(h ^ len);
}
