/* hashidx: open-addressing index of array rows; see include/mmprof/hashidx.h. */
#include <errno.h>
#include <stdint.h>
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

/* Move the rows to a table of cap slots; -ENOMEM (h unchanged) when it cannot be had. */
static int regrow(struct hashidx *h, size_t cap)
{
	size_t old_cap = h->rows ? h->mask + 1 : 0;
	uint32_t *old_rows = h->rows;
	uint64_t *old_hashes = h->hashes;
	uint32_t *rows;
	uint64_t *hashes;
	size_t i;

	if (cap > SIZE_MAX / sizeof(*hashes))
		return -ENOMEM;
	rows = malloc(cap * sizeof(*rows));
	hashes = malloc(cap * sizeof(*hashes));
	if (!rows || !hashes) {
		free(rows);
		free(hashes);
		return -ENOMEM;
	}
	memset(rows, 0xff, cap * sizeof(*rows));
	h->rows = rows;
	h->hashes = hashes;
	h->mask = cap - 1;
	for (i = 0; i < old_cap; i++)
		if (old_rows[i] != HASHIDX_NONE)
			place(h, old_hashes[i], old_rows[i]);
	free(old_rows);
	free(old_hashes);
	return 0;
}

/* The capacity that keeps nr rows under half full. */
static size_t cap_for(const struct hashidx *h, size_t nr)
{
	size_t cap = h->rows ? h->mask + 1 : 64;

	while (nr * 2 > cap && cap <= SIZE_MAX / 4)
		cap *= 2;
	return cap;
}

int hashidx__reserve(struct hashidx *h, size_t nr)
{
	size_t cap = cap_for(h, nr);

	if (h->rows && cap == h->mask + 1)
		return 0;
	return regrow(h, cap);
}

void hashidx__insert(struct hashidx *h, uint64_t hash, uint32_t row)
{
	/* the test inline: an insert that needs no room stays two compares */
	if ((!h->rows || (h->nr + 1) * 2 > h->mask + 1) && hashidx__reserve(h, h->nr + 1))
		xalloc__die(cap_for(h, h->nr + 1) * (sizeof(*h->rows) + sizeof(*h->hashes)));
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
