/*
 * keytab: the keys of every run of a profile in one table (rows = keys,
 * columns = runs), and how report prints a key's value.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "mmprof/keys.h"
#include "mmprof/stats.h"
#include "mmprof/xalloc.h"

static bool keytab_eq(const void *ctx, uint32_t row, const void *key)
{
	return !strcmp(((const struct keytab *)ctx)->keys[row], key);
}

static size_t keytab__row(struct keytab *kt, const char *key)
{
	uint64_t h = hash__bytes(key, strlen(key));
	uint32_t row = hashidx__find(&kt->idx, h, keytab_eq, kt, key);
	size_t old = kt->alloc;

	if (row != HASHIDX_NONE)
		return row;
	XGROW(kt->keys, kt->alloc, kt->nr);
	if (kt->alloc != old) {
		kt->vals = xrealloc(kt->vals, kt->alloc * kt->nr_runs * sizeof(*kt->vals));
		memset(kt->vals + old * kt->nr_runs, 0,
		       (kt->alloc - old) * kt->nr_runs * sizeof(*kt->vals));
	}
	row = (uint32_t)kt->nr++;
	kt->keys[row] = xstrdup(key);
	hashidx__insert(&kt->idx, h, row);
	return row;
}

int keytab__build(struct keytab *kt, const struct profile *p)
{
	struct symview v;
	struct keycache *c;
	uint32_t *row_of = NULL;	/* key id of the cache -> row, UINT32_MAX: none yet */
	size_t alloc_row_of = 0, r, i;

	memset(kt, 0, sizeof(*kt));
	hashidx__init(&kt->idx);
	kt->nr_runs = p->nr_runs;
	symview__init(&v, p, false);
	c = keycache__new(&v);
	for (r = 0; r < p->nr_runs; r++) {
		struct keyrun kr;

		keycache__run(c, (uint32_t)r, &kr);
		if (keycache__nr(c) > alloc_row_of) {
			size_t old = alloc_row_of;

			alloc_row_of = keycache__nr(c) * 2;
			row_of = xrealloc(row_of, alloc_row_of * sizeof(*row_of));
			memset(row_of + old, 0xff, (alloc_row_of - old) * sizeof(*row_of));
		}
		for (i = 0; i < kr.nr; i++) {
			uint32_t id = kr.ids[i];

			if (row_of[id] == UINT32_MAX)	/* keytab__row may move vals */
				row_of[id] = (uint32_t)keytab__row(kt, keycache__name(c, id));
			kt->vals[row_of[id] * kt->nr_runs + r] += kr.vals[i];
		}
	}
	free(row_of);
	keycache__free(c);
	symview__release(&v);
	return 0;
}

void keytab__release(struct keytab *kt)
{
	size_t i;

	for (i = 0; i < kt->nr; i++)
		free(kt->keys[i]);
	free(kt->keys);
	free(kt->vals);
	hashidx__release(&kt->idx);
	memset(kt, 0, sizeof(*kt));
}

double keytab__mean(const struct keytab *kt, size_t k)
{
	struct stat_summary s;

	if (!kt->nr_runs)
		return 0;
	stats__mean_sd(kt->vals + k * kt->nr_runs, kt->nr_runs, &s);
	return s.mean;
}

double keytab__stddev(const struct keytab *kt, size_t k)
{
	struct stat_summary s;

	if (!kt->nr_runs)
		return 0;
	stats__mean_sd(kt->vals + k * kt->nr_runs, kt->nr_runs, &s);
	return s.sd;
}

static int family_cmp(const char *a, const char *b)
{
	size_t la = strcspn(a, "."), lb = strcspn(b, ".");
	int c = strncmp(a, b, la < lb ? la : lb);

	if (c)
		return c;
	if (la != lb)
		return la < lb ? -1 : 1;
	return strcmp(a + la, b + lb);
}

struct sort_row {
	char *key;
	size_t old;
};

static int sort_row_cmp(const void *a, const void *b)
{
	return family_cmp(((const struct sort_row *)a)->key, ((const struct sort_row *)b)->key);
}

void keytab__sort(struct keytab *kt)
{
	struct sort_row *rows;
	double *vals;
	size_t i;

	if (!kt->nr)
		return;
	rows = xmalloc(kt->nr * sizeof(*rows));
	for (i = 0; i < kt->nr; i++)
		rows[i] = (struct sort_row){ kt->keys[i], i };
	qsort(rows, kt->nr, sizeof(*rows), sort_row_cmp);
	vals = xmalloc(kt->alloc * (kt->nr_runs ? kt->nr_runs : 1) * sizeof(*vals));
	for (i = 0; i < kt->nr; i++) {
		kt->keys[i] = rows[i].key;
		memcpy(vals + i * kt->nr_runs, kt->vals + rows[i].old * kt->nr_runs,
		       kt->nr_runs * sizeof(*vals));
	}
	free(kt->vals);
	kt->vals = vals;
	free(rows);
	/* rebuild the index for the new row numbers */
	hashidx__release(&kt->idx);
	for (i = 0; i < kt->nr; i++)
		hashidx__insert(&kt->idx, hash__bytes(kt->keys[i], strlen(kt->keys[i])),
				(uint32_t)i);
}

static bool is_profile_key(const char *key)
{
	return !strncmp(key, "perf-profile.", 13);
}

bool keys__shown(const char *key, double value)
{
	return !is_profile_key(key) || value >= 0.05;
}

void keys__format_value(const char *key, double value, char *buf, size_t size)
{
	double a = fabs(value);

	if (is_profile_key(key))
		snprintf(buf, size, "%.2f", value);
	else if (a >= 1000 || value == floor(value))
		snprintf(buf, size, "%.0f", value);
	else
		snprintf(buf, size, "%.4g", value);
}
