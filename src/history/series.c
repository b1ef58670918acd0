/*
 * series: a store's pushes as series of commits (history.h), one per
 * benchmark and machine, with every key's value in every run.
 *
 * Order: a commit comes after its parent when the parent is in the same
 * series (a topological order of the parent links, Kahn's), ties and
 * commits without a parent there by the time of their first push, then
 * by name.  Runs recorded apart at the same commit (several pushes) are
 * pooled under it, as a diff's side pools its files.
 */
#include <errno.h>
#include <fnmatch.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "mmprof/diff.h"
#include "mmprof/history.h"
#include "mmprof/keykind.h"
#include "mmprof/xalloc.h"

/* Where a push's runs go: its series and the offset of its first run there. */
struct push_slot {
	size_t series, offset;
	bool used;
};

struct loader {
	struct history *h;
	struct push_slot *slot;
	const char *score;
	const char *const *globs;
	size_t nr_globs;
	int64_t *ids;		/* the keys to read */
	size_t nr_ids, alloc_ids;
	/* history_series__read_key: the one series and key read */
	size_t series;
	struct history_key *key;
};

static int cmp_push_group(const void *a, const void *b, void *ctx)
{
	const struct store_series_push *p = ctx;
	size_t i = *(const size_t *)a, j = *(const size_t *)b;
	int c = strcmp(p[i].benchmark, p[j].benchmark);

	if (!c)
		c = strcmp(p[i].machine, p[j].machine);
	return c ? c : p[i].id < p[j].id ? -1 : p[i].id > p[j].id;
}

/* The commit named name in hs (the index of its first sight while collecting), or n. */
static size_t find_commit(const struct history_series *hs, size_t n, const char *name)
{
	uint32_t row = strintern__find(&hs->commit_names, name, strlen(name));

	return row == STRINTERN_NONE ? n : row;
}

static int cmp_time(const void *a, const void *b, void *ctx)
{
	const struct history_commit *c = ctx, *x = &c[*(const size_t *)a], *y = &c[*(const size_t *)b];

	return x->time != y->time ? (x->time < y->time ? -1 : 1) : strcmp(x->commit, y->commit);
}

/* A min-heap of ranks (the order by time, then name). */
static void heap_push(size_t *h, size_t *n, size_t v)
{
	size_t i = (*n)++;

	while (i && h[(i - 1) / 2] > v) {
		h[i] = h[(i - 1) / 2];
		i = (i - 1) / 2;
	}
	h[i] = v;
}

static size_t heap_pop(size_t *h, size_t *n)
{
	size_t top = h[0], v = h[--(*n)], i = 0;

	for (;;) {
		size_t c = 2 * i + 1;

		if (c >= *n)
			break;
		if (c + 1 < *n && h[c + 1] < h[c])
			c++;
		if (h[c] >= v)
			break;
		h[i] = h[c];
		i = c;
	}
	if (*n)
		h[i] = v;
	return top;
}

/*
 * The commits of a series from its pushes idx[0..n), in commit order:
 * Kahn's topological order of the parent links, the earliest (by time,
 * then name) of the commits ready first; O(n log n).
 */
static void series_commits(struct history_series *hs, const struct store_series_push *p,
			   const size_t *idx, size_t n)
{
	struct history_commit *c;
	size_t *parent, *order, *rank, *child, *sibling, *heap, i, j, k, done, nh = 0, scan = 0;
	bool *placed;
	size_t nc = 0, alloc = 0;

	hs->commits = NULL;
	for (i = 0; i < n; i++) {
		const struct store_series_push *q = &p[idx[i]];

		k = strintern__xid(&hs->commit_names, q->commit, strlen(q->commit));
		if (k == nc) {	/* new: commits are rows in order of first sight */
			XGROW(hs->commits, alloc, nc);
			hs->commits[nc] = (struct history_commit){
				.commit = strintern__str(&hs->commit_names, (uint32_t)k), .time = q->time };
			nc++;
		}
		c = &hs->commits[k];
		c->pushes = xrealloc(c->pushes, (c->nr_pushes + 1) * sizeof(*c->pushes));
		c->pushes[c->nr_pushes++] = idx[i];
		c->nr_runs += q->nr_runs;
		if (q->time < c->time)
			c->time = q->time;
	}
	/* each commit's parent within the series (nc: none), and its children */
	parent = xcalloc(nc + 1, sizeof(*parent));
	child = xcalloc(nc + 1, sizeof(*child));
	sibling = xcalloc(nc + 1, sizeof(*sibling));
	placed = xcalloc(nc + 1, sizeof(*placed));
	for (k = 0; k < nc; k++)
		child[k] = nc;
	for (k = 0; k < nc; k++) {
		parent[k] = nc;
		for (j = 0; j < hs->commits[k].nr_pushes && parent[k] == nc; j++) {
			const char *pa = p[hs->commits[k].pushes[j]].parent;

			if (pa && strcmp(pa, hs->commits[k].commit))
				parent[k] = find_commit(hs, nc, pa);
		}
		if (parent[k] < nc) {
			sibling[k] = child[parent[k]];
			child[parent[k]] = k;
			hs->by_parents = true;
		}
	}
	strintern__drop_index(&hs->commit_names);	/* rows move now: no find after */
	order = xcalloc(nc + 1, sizeof(*order));
	rank = xcalloc(nc + 1, sizeof(*rank));
	heap = xcalloc(nc + 1, sizeof(*heap));
	for (k = 0; k < nc; k++)
		order[k] = k;
	qsort_r(order, nc, sizeof(*order), cmp_time, hs->commits);
	for (k = 0; k < nc; k++)
		rank[order[k]] = k;
	for (k = 0; k < nc; k++)
		if (parent[k] == nc)
			heap_push(heap, &nh, rank[k]);
	c = xcalloc(nc + 1, sizeof(*c));
	for (done = 0; done < nc; done++) {
		size_t best;

		if (nh) {
			best = order[heap_pop(heap, &nh)];
		} else {	/* a cycle of parent links: its earliest commit next */
			while (placed[order[scan]])
				scan++;
			best = order[scan];
		}
		placed[best] = true;
		c[done] = hs->commits[best];
		for (k = child[best]; k < nc; k = sibling[k])
			if (!placed[k])
				heap_push(heap, &nh, rank[k]);
	}
	free(hs->commits);
	hs->commits = c;
	hs->nr_commits = nc;
	free(parent);
	free(child);
	free(sibling);
	free(placed);
	free(order);
	free(rank);
	free(heap);
}

static bool is_score(const struct loader *l, const char *key)
{
	return keykind__score_by(l->score, key);
}

/* The index of push id in h->pushes (ids ascending), or nr_pushes. */
static size_t push_index(const struct history *h, int64_t id)
{
	size_t lo = 0, hi = h->nr_pushes;

	while (lo < hi) {
		size_t mid = (lo + hi) / 2;

		if (h->pushes[mid].id < id)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < h->nr_pushes && h->pushes[lo].id == id ? lo : h->nr_pushes;
}

static int value_fn(void *ctx, int64_t push, const char *key, const double *vals, size_t nr_runs)
{
	struct loader *l = ctx;
	struct history *h = l->h;
	size_t lo = push_index(h, push), i;
	struct history_series *hs;
	struct push_slot *sl;
	uint32_t row;

	if (lo == h->nr_pushes || !l->slot[lo].used)
		return 0;
	sl = &l->slot[lo];
	hs = &h->series[sl->series];
	row = strintern__xid(&hs->key_names, key, strlen(key));
	if (row == hs->nr_keys) {	/* new: keys are rows in order of first sight */
		struct history_key *k;

		XGROW(hs->keys, hs->alloc_keys, hs->nr_keys);
		k = &hs->keys[hs->nr_keys];
		k->name = strintern__str(&hs->key_names, row);
		k->v = xmalloc((hs->nr_values + 1) * sizeof(*k->v));
		for (i = 0; i < hs->nr_values; i++)
			k->v[i] = NAN;
		k->score = is_score(l, key);
		hs->nr_keys++;
	}
	for (i = 0; i < nr_runs && i < h->pushes[lo].nr_runs; i++)
		hs->keys[row].v[sl->offset + i] = vals[i];
	return 0;
}

static int cmp_key(const void *a, const void *b)
{
	return strcmp(((const struct history_key *)a)->name, ((const struct history_key *)b)->name);
}

/* A key name of the store: read its values when it is the score's or a glob's. */
static int name_fn(void *ctx, int64_t id, const char *name)
{
	struct loader *l = ctx;
	bool want = is_score(l, name);
	size_t i;

	for (i = 0; i < l->nr_globs && !want; i++)
		want = !fnmatch(l->globs[i], name, 0);
	if (want) {
		XGROW(l->ids, l->alloc_ids, l->nr_ids);
		l->ids[l->nr_ids++] = id;
	}
	return 0;
}

int history__load(struct history *h, struct store *s, const struct store_series_filter *f,
		  const char *score, const char *const *globs, size_t nr_globs, struct errmsg *e)
{
	struct store_series_value_cb cb;
	struct loader l = { .h = h, .score = score, .globs = globs, .nr_globs = nr_globs };
	struct store_series_filter fk;
	size_t *idx, i, j, c, r, from;
	int err;

	memset(h, 0, sizeof(*h));
	h->store = s;
	h->f = *f;
	h->f.key_ids = NULL, h->f.nr_key_ids = 0;
	err = store__series(s, f, &h->pushes, &h->nr_pushes, e);
	if (err < 0)
		return err;
	idx = xcalloc(h->nr_pushes + 1, sizeof(*idx));
	for (i = 0; i < h->nr_pushes; i++)
		idx[i] = i;
	qsort_r(idx, h->nr_pushes, sizeof(*idx), cmp_push_group, h->pushes);
	l.slot = xcalloc(h->nr_pushes + 1, sizeof(*l.slot));
	for (from = 0; from < h->nr_pushes; from = i) {
		struct history_series *hs;

		for (i = from + 1; i < h->nr_pushes && !strcmp(h->pushes[idx[i]].benchmark, h->pushes[idx[from]].benchmark) &&
		     !strcmp(h->pushes[idx[i]].machine, h->pushes[idx[from]].machine); i++)
			;
		h->series = xrealloc(h->series, (h->nr_series + 1) * sizeof(*h->series));
		hs = &h->series[h->nr_series];
		memset(hs, 0, sizeof(*hs));
		hs->benchmark = xstrdup(h->pushes[idx[from]].benchmark);
		hs->machine = xstrdup(h->pushes[idx[from]].machine);
		hs->owner = h;
		series_commits(hs, h->pushes, idx + from, i - from);
		hs->first = xcalloc(hs->nr_commits + 1, sizeof(*hs->first));
		for (c = 0; c < hs->nr_commits; c++)
			hs->first[c + 1] = hs->first[c] + hs->commits[c].nr_runs;
		hs->nr_values = hs->first[hs->nr_commits];
		hs->samples = xcalloc(hs->nr_values + 1, sizeof(*hs->samples));
		for (c = 0; c < hs->nr_commits; c++) {
			size_t off = hs->first[c];

			for (j = 0; j < hs->commits[c].nr_pushes; j++) {
				size_t pi = hs->commits[c].pushes[j];

				l.slot[pi] = (struct push_slot){ .series = h->nr_series, .offset = off, .used = true };
				for (r = 0; r < h->pushes[pi].nr_runs; r++)
					hs->samples[off + r] = h->pushes[pi].samples[r];
				off += h->pushes[pi].nr_runs;
			}
		}
		h->nr_series++;
	}
	free(idx);
	h->slot = l.slot;
	err = h->nr_pushes ? store__key_names(s, name_fn, &l, e) : 0;
	fk = *f;
	fk.key_ids = l.ids, fk.nr_key_ids = l.nr_ids;
	cb = (struct store_series_value_cb){ .fn = value_fn, .ctx = &l };
	if (!err && l.nr_ids)
		err = store__series_values(s, &fk, &cb, e);
	free(l.ids);
	for (i = 0; i < h->nr_series; i++) {
		strintern__drop_index(&h->series[i].key_names);	/* the rows are sorted now */
		qsort(h->series[i].keys, h->series[i].nr_keys, sizeof(struct history_key), cmp_key);
	}
	return err < 0 ? err : 0;
}

static int one_key_fn(void *ctx, int64_t push, const char *key, const double *vals, size_t nr_runs)
{
	struct loader *l = ctx;
	const struct history *h = l->h;
	const struct push_slot *slot = h->slot;
	size_t at = push_index(h, push), i;

	(void)key;
	if (at == h->nr_pushes || !slot[at].used || slot[at].series != l->series)
		return 0;
	for (i = 0; i < nr_runs && i < h->pushes[at].nr_runs; i++)
		l->key->v[slot[at].offset + i] = vals[i];
	return 0;
}

int history_series__read_key(const struct history_series *hs, const char *name, struct history_key *k,
			     struct errmsg *e)
{
	const struct history *h = hs->owner;
	struct loader l = { .h = (struct history *)h, .key = k, .series = (size_t)(hs - h->series) };
	struct store_series_filter f = h->f;
	struct store_series_value_cb cb = { .fn = one_key_fn, .ctx = &l };
	int64_t id = store__key_id(name);
	size_t i;

	memset(k, 0, sizeof(*k));
	k->name = name;
	k->v = xmalloc((hs->nr_values + 1) * sizeof(*k->v));
	for (i = 0; i < hs->nr_values; i++)
		k->v[i] = NAN;
	f.benchmark = hs->benchmark, f.machine = hs->machine;
	f.key_ids = &id, f.nr_key_ids = 1;
	return store__series_values(h->store, &f, &cb, e);
}

void history_key__release(struct history_key *k)
{
	free(k->v);
	memset(k, 0, sizeof(*k));
}

const struct history_key *history_series__key(const struct history_series *hs, const char *name)
{
	struct history_key k = { .name = name };

	return bsearch(&k, hs->keys, hs->nr_keys, sizeof(k), cmp_key);
}

static void series_release(struct history_series *hs)
{
	size_t c, k;

	for (c = 0; c < hs->nr_commits; c++)
		free(hs->commits[c].pushes);
	for (k = 0; k < hs->nr_keys; k++)
		free(hs->keys[k].v);
	strintern__release(&hs->commit_names);
	strintern__release(&hs->key_names);
	free(hs->keys);
	free(hs->commits);
	free(hs->first);
	free(hs->samples);
	free(hs->benchmark);
	free(hs->machine);
}

struct history_series *history_series__make(const char *key, const size_t *runs, size_t nc, const double *v,
					    const double *samples, bool score)
{
	struct history_series *hs = xcalloc(1, sizeof(*hs));
	size_t c;

	hs->benchmark = xstrdup("synthetic");
	hs->machine = xstrdup("synthetic");
	hs->nr_commits = nc;
	hs->commits = xcalloc(nc + 1, sizeof(*hs->commits));
	hs->first = xcalloc(nc + 1, sizeof(*hs->first));
	for (c = 0; c < nc; c++) {
		char name[32];

		snprintf(name, sizeof(name), "c%zu", c);
		hs->commits[c].commit = strintern__xptr(&hs->commit_names, name, strlen(name));
		hs->commits[c].nr_runs = runs[c];
		hs->first[c + 1] = hs->first[c] + runs[c];
	}
	hs->nr_values = hs->first[nc];
	hs->samples = xcalloc(hs->nr_values + 1, sizeof(*hs->samples));
	if (samples)
		memcpy(hs->samples, samples, hs->nr_values * sizeof(*samples));
	hs->keys = xcalloc(1, sizeof(*hs->keys));
	hs->nr_keys = hs->alloc_keys = 1;
	hs->keys[0].name = strintern__xptr(&hs->key_names, key, strlen(key));
	hs->keys[0].v = xmalloc((hs->nr_values + 1) * sizeof(double));
	memcpy(hs->keys[0].v, v, hs->nr_values * sizeof(double));
	hs->keys[0].score = score;
	return hs;
}

void history_series__free(struct history_series *hs)
{
	if (!hs)
		return;
	series_release(hs);
	free(hs);
}

void history__release(struct history *h)
{
	size_t i;

	for (i = 0; i < h->nr_series; i++)
		series_release(&h->series[i]);
	free(h->series);
	free(h->slot);
	store_series__free(h->pushes, h->nr_pushes);
	memset(h, 0, sizeof(*h));
}
