/*
 * series: the pushes of a benchmark on a machine and their keys' values,
 * read back for a history (store.h: store__series, store__series_values).
 *
 * Two queries whatever the number of keys: the pushes (and their runs'
 * sample counts), then every (push, key) row of those pushes, joined with
 * the keys' names.  A filter left NULL matches every value
 * (p.x = coalesce($n, p.x)), so one statement serves each combination.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "mmprof/xalloc.h"
#include "store-int.h"

#define SERIES_WHERE							\
	" WHERE p.benchmark = coalesce($1, p.benchmark)"		\
	" AND p.machine = coalesce($2, p.machine)"			\
	" AND coalesce(p.branch, '') = coalesce($3, p.branch, '')"

struct series_read {
	struct store_series_push *p;
	size_t nr, alloc;
	const struct store_series_value_cb *cb;
	double *vals;
	size_t nvals;
};

static char *col_text(const struct store_val *c)
{
	return c->type == STORE_TEXT ? xstrndup(c->p, c->len) : NULL;
}

static int push_row(void *ctx, const struct store_val *col, size_t n)
{
	struct series_read *r = ctx;
	struct store_series_push *p;

	if (n < 8 || col[0].type != STORE_INT || col[6].type != STORE_INT || col[7].type != STORE_INT)
		return -EPROTO;
	XGROW(r->p, r->alloc, r->nr);
	p = &r->p[r->nr++];
	memset(p, 0, sizeof(*p));
	p->id = col[0].i;
	p->commit = col_text(&col[1]);
	p->parent = col_text(&col[2]);
	p->branch = col_text(&col[3]);
	p->machine = col_text(&col[4]);
	p->benchmark = col_text(&col[5]);
	p->time = col[6].i;
	p->nr_runs = col[7].i > 0 && col[7].i < (1 << 20) ? (size_t)col[7].i : 0;
	p->samples = xcalloc(p->nr_runs + 1, sizeof(*p->samples));
	if (!p->commit || !p->machine || !p->benchmark)
		return -EPROTO;
	return 0;
}

/* The push of id among r's (ids ascending): a binary search. */
static struct store_series_push *find_push(struct series_read *r, int64_t id)
{
	size_t lo = 0, hi = r->nr;

	while (lo < hi) {
		size_t mid = (lo + hi) / 2;

		if (r->p[mid].id == id)
			return &r->p[mid];
		if (r->p[mid].id < id)
			lo = mid + 1;
		else
			hi = mid;
	}
	return NULL;
}

static int run_row(void *ctx, const struct store_val *col, size_t n)
{
	struct series_read *r = ctx;
	struct store_series_push *p;

	if (n < 3 || col[0].type != STORE_INT || col[1].type != STORE_INT || col[2].type != STORE_INT)
		return -EPROTO;
	p = find_push(r, col[0].i);
	if (p && col[1].i >= 0 && (size_t)col[1].i < p->nr_runs)
		p->samples[col[1].i] = (double)col[2].i;
	return 0;
}

void store_series__free(struct store_series_push *p, size_t nr)
{
	size_t i;

	for (i = 0; i < nr; i++) {
		free(p[i].commit);
		free(p[i].parent);
		free(p[i].branch);
		free(p[i].machine);
		free(p[i].benchmark);
		free(p[i].samples);
	}
	free(p);
}

static void series_params(struct store_val v[3], const struct store_series_filter *f)
{
	v[0] = SV_TEXT(f->benchmark);
	v[1] = SV_TEXT(f->machine);
	v[2] = SV_TEXT(f->branch);
}

int store__series(struct store *s, const struct store_series_filter *f,
		  struct store_series_push **pushes, size_t *nr, struct errmsg *e)
{
	struct series_read r = { 0 };
	struct store_val v[3];
	int err;

	series_params(v, f);
	err = s->ops->query(s, "SELECT p.id, p.commit_id, p.parent, p.branch, p.machine, p.benchmark,"
			    " p.time, p.nr_runs FROM pushes p" SERIES_WHERE " ORDER BY p.id",
			    v, 3, push_row, &r, e);
	if (!err)
		err = s->ops->query(s, "SELECT r.push_id, r.run, r.samples FROM runs r"
				    " JOIN pushes p ON p.id = r.push_id" SERIES_WHERE,
				    v, 3, run_row, &r, e);
	if (err == -EPROTO)
		err = errmsg__set(e, err, "store '%s': a push row is not as the schema says", s->where);
	if (err < 0) {
		store_series__free(r.p, r.nr);
		return err;
	}
	*pushes = r.p;
	*nr = r.nr;
	return 0;
}

/* A keyvals row decoded (Documentation/history.md, "Values"): NAN for a run without the key. */
static int value_row(void *ctx, const struct store_val *col, size_t n)
{
	struct series_read *r = ctx;
	const unsigned char *b;
	size_t runs, i, at, need = 0;

	if (n < 4 || col[0].type != STORE_INT || col[1].type != STORE_INT || col[2].type != STORE_TEXT ||
	    col[3].type != STORE_BLOB || col[1].i < 0 || col[1].i >= (1 << 20))
		return -EPROTO;
	runs = (size_t)col[1].i;
	b = col[3].p;
	if (col[3].len < (runs + 7) / 8)
		return -EPROTO;
	for (i = 0; i < runs; i++)
		need += b[i / 8] >> (i % 8) & 1;
	if (col[3].len != (runs + 7) / 8 + need * 8)
		return -EPROTO;
	if (runs > r->nvals) {
		r->vals = xrealloc(r->vals, runs * sizeof(*r->vals));
		r->nvals = runs;
	}
	for (i = 0, at = (runs + 7) / 8; i < runs; i++) {
		uint64_t u = 0;
		int k;

		if (!(b[i / 8] >> (i % 8) & 1)) {
			r->vals[i] = NAN;
			continue;
		}
		for (k = 7; k >= 0; k--)
			u = u << 8 | b[at + (size_t)k];
		memcpy(&r->vals[i], &u, 8);
		at += 8;
	}
	return r->cb->fn(r->cb->ctx, col[0].i, col[2].p, r->vals, runs);
}

int store__series_values(struct store *s, const struct store_series_filter *f,
			 const struct store_series_value_cb *cb, struct errmsg *e)
{
	struct series_read r = { .cb = cb };
	struct store_val v[4];
	size_t i;
	int err = 0;

	series_params(v, f);
	if (!f->key_ids)
		err = s->ops->query(s, "SELECT v.push_id, p.nr_runs, k.name, v.vals FROM pushes p"
				    " JOIN keyvals v ON v.push_id = p.id JOIN keys k ON k.id = v.key_id"
				    SERIES_WHERE, v, 3, value_row, &r, e);
	/* a key at a time: one probe of (push, key) per push of the series */
	for (i = 0; f->key_ids && i < f->nr_key_ids && !err; i++) {
		v[3] = SV_INT(f->key_ids[i]);
		err = s->ops->query(s, "SELECT v.push_id, p.nr_runs, k.name, v.vals FROM pushes p"
				    " JOIN keyvals v ON v.push_id = p.id AND v.key_id = $4"
				    " JOIN keys k ON k.id = $4" SERIES_WHERE, v, 4, value_row, &r, e);
	}
	free(r.vals);
	if (err == -EPROTO)
		err = errmsg__set(e, err, "store '%s': a keyvals row is not as the schema says", s->where);
	return err;
}

struct names_read {
	int (*fn)(void *ctx, int64_t id, const char *name);
	void *ctx;
};

static int name_row(void *ctx, const struct store_val *col, size_t n)
{
	struct names_read *r = ctx;

	if (n < 2 || col[0].type != STORE_INT || col[1].type != STORE_TEXT)
		return -EPROTO;
	return r->fn(r->ctx, col[0].i, col[1].p);
}

int store__key_names(struct store *s, int (*fn)(void *ctx, int64_t id, const char *name), void *ctx,
		     struct errmsg *e)
{
	struct names_read r = { fn, ctx };
	int err = s->ops->query(s, "SELECT id, name FROM keys", NULL, 0, name_row, &r, e);

	if (err == -EPROTO)
		err = errmsg__set(e, err, "store '%s': a keys row is not as the schema says", s->where);
	return err;
}
