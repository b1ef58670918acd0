/*
 * Growing per-run key lists for synthetic diff sides, for the unit tests
 * that feed diff__compute runs of keys without a recording (test-diff,
 * test-diff-audit).
 */
#ifndef MMPROF_TEST_RUN_KEYS_H
#define MMPROF_TEST_RUN_KEYS_H

#include <stdlib.h>
#include <string.h>

#include "mmprof/diff.h"
#include "mmprof/xalloc.h"

struct run_keys {
	struct key_value *items;
	size_t nr, alloc;
};

static inline void rk_add(struct run_keys *r, const char *key, double v)
{
	XGROW(r->items, r->alloc, r->nr);
	r->items[r->nr].key = xstrdup(key);
	r->items[r->nr].value = v;
	r->nr++;
}

static inline void rk_release(struct run_keys *r, size_t n)
{
	size_t i, j;

	for (i = 0; i < n; i++) {
		for (j = 0; j < r[i].nr; j++)
			free(r[i].items[j].key);
		free(r[i].items);
		memset(&r[i], 0, sizeof(r[i]));
	}
}

#endif
