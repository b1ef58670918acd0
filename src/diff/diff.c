/*
 * diff: rows from two sides of runs, and the robot's filter and order of
 * them.  See include/mmprof/diff.h.  This file builds the rows (one per
 * normalised key, matched by hash or by a run's key ids), hands each to
 * the test (verdict.c, family.c) and selects and sorts them for printing;
 * what a key is, keykind.h; the rows flagged by it, keyname.c.  src/diff/diff-int.h joins them.
 */
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mmprof/diff.h"
#include "mmprof/keykind.h"
#include "mmprof/keys.h"
#include "mmprof/xalloc.h"

#include "diff-int.h"

struct builder {
	struct diff *d;
	struct hashidx idx;
	uint32_t *present;	/* per row: runs of base, runs of new that had it (2 per row) */
	uint32_t *stamp;	/* per row: 1 + the last run that touched it */
	uint8_t **have;		/* per row: NULL, or for a score row which runs have it */
	size_t alloc_present, alloc_stamp, alloc_values, alloc_have;
	bool base_has_pp;
	/* per id space and side of the runs (diff_run.ids): id -> row, NONE when unseen */
	struct id_rows {
		const void *space;
		int side;
		uint32_t *row;
		size_t nr;
	} *spaces;
	size_t nr_spaces, alloc_spaces;
};

/* The id -> row array of a run's id space (nr_ids grows with later runs). */
static uint32_t *builder__space(struct builder *b, const struct diff_run *run, int side)
{
	struct id_rows *s = NULL;
	size_t i;

	/* by side too: an id's first sight on a side records its spellings there */
	for (i = 0; i < b->nr_spaces; i++)
		if (b->spaces[i].space == run->id_space && b->spaces[i].side == side)
			s = &b->spaces[i];
	if (!s) {
		XGROW(b->spaces, b->alloc_spaces, b->nr_spaces);
		s = &b->spaces[b->nr_spaces++];
		memset(s, 0, sizeof(*s));
		s->space = run->id_space;
		s->side = side;
	}
	if (run->nr_ids > s->nr) {
		s->row = xrealloc(s->row, run->nr_ids * sizeof(*s->row));
		memset(s->row + s->nr, 0xff, (run->nr_ids - s->nr) * sizeof(*s->row));
		s->nr = run->nr_ids;
	}
	return s->row;
}

/* A perf-profile key's spellings (list: its '\n'-separated raw names, or NULL) into row. */
static void builder__spell(struct builder *b, uint32_t row, int side, const char *key,
			   const char *list)
{
	const char *ksym = keykind__profile_symbol(key);

	if (!ksym || !keykind__profile_symbol(b->d->rows[row].key))
		return;
	if (!list) {
		/* .llvm.N and the like: the key itself is a spelling of the row */
		diff__add_spelling(b->d, row, side, ksym, strlen(ksym));
		return;
	}
	while (list) {
		const char *nl = strchr(list, '\n');
		size_t len = nl ? (size_t)(nl - list) : strlen(list);

		diff__add_spelling(b->d, row, side, list, len);
		list = nl ? nl + 1 : NULL;
	}
}

static bool row_eq(const void *ctx, uint32_t row, const void *key)
{
	const struct diff *d = ctx;

	return !strcmp(d->rows[row].key, key);
}

static uint32_t builder__row(struct builder *b, const char *key)
{
	struct diff *d = b->d;
	size_t n = d->nb + d->nn;
	uint64_t h = hash__bytes(key, strlen(key));
	uint32_t row = hashidx__find(&b->idx, h, row_eq, d, key);

	if (row != HASHIDX_NONE)
		return row;
	if ((d->nr + 1) * n > d->o.max_values)
		return HASHIDX_NONE;
	row = (uint32_t)d->nr;
	XGROW(d->rows, d->alloc, d->nr);
	memset(&d->rows[row], 0, sizeof(d->rows[row]));
	d->rows[row].key = xstrdup(key);
	d->nr++;
	XGROW(b->present, b->alloc_present, 2 * (size_t)row + 1);
	b->present[2 * row] = b->present[2 * row + 1] = 0;
	XGROW(b->stamp, b->alloc_stamp, row);
	b->stamp[row] = 0;
	XGROW(b->have, b->alloc_have, row);
	b->have[row] = !diff__is_ambient(&d->o, key) && diff__is_score(&d->o, key) ? xcalloc(n, 1) : NULL;
	if ((size_t)(row + 1) * n > b->alloc_values) {
		size_t want = b->alloc_values ? 2 * b->alloc_values : 64 * n;

		while (want < (size_t)(row + 1) * n)
			want *= 2;
		d->values = xrealloc(d->values, want * sizeof(*d->values));
		b->alloc_values = want;
	}
	memset(d->values + (size_t)row * n, 0, n * sizeof(*d->values));
	hashidx__insert(&b->idx, h, row);
	return row;
}

/* diff_opts.alias_from/to: key with its event token replaced (in tmp), or key itself. */
static const char *alias_key(const struct diff_opts *o, const char *key, char *tmp, size_t size)
{
	const char *ev;
	size_t len;

	if (!o->alias_from || !o->alias_to || !(ev = keykind__profile_event(key, &len)) || ev[len] != '.' ||
	    len != strlen(o->alias_from) || memcmp(ev, o->alias_from, len))
		return key;
	if (snprintf(tmp, size, "%.*s%s%s", (int)(ev - key), key, o->alias_to, ev + len) >=
	    (int)size)
		return key;
	return tmp;
}

/* false when a key more would pass DIFF_MAX_VALUES: the run is not all in */
static bool builder__add_run(struct builder *b, const struct diff_run *run, size_t col, int side)
{
	struct diff *d = b->d;
	size_t n = d->nb + d->nn, i;
	char small[1024], *buf = small;
	size_t bufsize = sizeof(small);

	uint32_t *id_row = run->ids ? builder__space(b, run, side) : NULL;

	for (i = 0; i < run->nr; i++) {
		char atmp[1024];
		const char *key = side ? alias_key(&d->o, run->items[i].key, atmp, sizeof(atmp))
				       : run->items[i].key;
		double *v;
		uint32_t row = HASHIDX_NONE;

		if (id_row && run->ids[i] < run->nr_ids)
			row = id_row[run->ids[i]];
		if (row == HASHIDX_NONE) {
			size_t need = keykind__normalize(key, buf, bufsize);

			if (need >= bufsize) {
				bufsize = need + 1;
				if (buf != small)
					free(buf);
				buf = xmalloc(bufsize);
				keykind__normalize(key, buf, bufsize);
			}
			row = builder__row(b, buf);
			if (row == HASHIDX_NONE)
				break;
			if (id_row && run->ids[i] < run->nr_ids) {
				id_row[run->ids[i]] = row;
				builder__spell(b, row, side, key,
					       run->spellings ? run->spellings[run->ids[i]] : NULL);
			} else {
				builder__spell(b, row, side, key, NULL);
			}
		}
		v = &d->values[(size_t)row * n + col];
		/* values alone cannot tell "absent" from "present with 0" */
		if (b->stamp[row] != col + 1) {
			b->stamp[row] = (uint32_t)(col + 1);
			b->present[2 * row + side]++;
			if (b->have[row])
				b->have[row][col] = 1;
		}
		if (!side && keykind__profile(key) != KEYPROF_NONE)
			b->base_has_pp = true;
		/* clones that normalise to one key add up, as the robot sums .isra */
		*v += run->items[i].value;
	}
	if (buf != small)
		free(buf);
	return i == run->nr;
}

static void fill_defaults(struct diff_opts *o)
{
	if (!(o->alpha > 0))
		o->alpha = 0.05;
	if (!(o->min_points > 0))
		o->min_points = 0.1;
	if (!(o->min_pct > 0))
		o->min_pct = 1.0;
	if (!(o->test_floor > 0))
		o->test_floor = 0.05;
	if (!(o->novar_points > 0))
		o->novar_points = 0.5;
	if (!(o->novar_pct > 0))
		o->novar_pct = 5.0;
	if (!o->max_values)
		o->max_values = DIFF_MAX_VALUES;
}

/*
 * The samples behind a perf-profile row, or a function's cost row, in every
 * run (base then new) into nsamp, or NULL when the row is neither or no
 * run knows them.
 * Rows come event by event in practice: ev, ev_len and known cache the event
 * nsamp was last filled for.
 */
static const double *row_samples(const struct diff_opts *o, const char *key,
				 const struct diff_run *base, size_t nb,
				 const struct diff_run *cur, size_t nn, double *nsamp,
				 const char **ev, size_t *ev_len, bool *known)
{
	size_t len, i, j;
	const char *e = keykind__profile_event(key, &len);
	enum keykind_cost kc = keykind__cost(key);

	/* a function's cost per op (cost.self.<ev>.<fn>, .children.): its event's samples too */
	if (!e && (kc == KEYCOST_SELF || kc == KEYCOST_CHILDREN))
		e = keykind__cost_event(key, &len);
	if (!e)
		return NULL;
	if (*ev && *ev_len == len && !memcmp(*ev, e, len))
		return *known ? nsamp : NULL;
	*ev = e;
	*ev_len = len;
	*known = false;
	for (i = 0; i < nb + nn; i++) {
		const struct diff_run *run = i < nb ? &base[i] : &cur[i - nb];
		const char *want = e;
		size_t wlen = len;

		/* --force's alias: the new side's samples are of its own event */
		if (i >= nb && o->alias_from && o->alias_to && strlen(o->alias_to) == len &&
		    !memcmp(o->alias_to, e, len)) {
			want = o->alias_from;
			wlen = strlen(want);
		}
		nsamp[i] = 0;
		for (j = 0; j < run->nr_samples; j++)
			if (strlen(run->samples[j].event) == wlen &&
			    !memcmp(run->samples[j].event, want, wlen)) {
				nsamp[i] = run->samples[j].n;
				*known |= nsamp[i] > 0;
				break;
			}
	}
	return *known ? nsamp : NULL;
}

/* d emptied with the options (defaults filled) and the sides' run counts: 0, or -EINVAL for a side without runs. */
static int diff__start(struct diff *d, size_t nb, size_t nn, const struct diff_opts *o)
{
	memset(d, 0, sizeof(*d));
	if (o)
		d->o = *o;
	fill_defaults(&d->o);
	if (!nb || !nn)
		return -EINVAL;
	d->nb = nb;
	d->nn = nn;
	d->novar = nb < 2 || nn < 2;
	if (d->o.paired && nb == nn && nb >= DIFF_MIN_PAIRS)
		d->pairs = nb;
	else if (d->o.paired && nb == nn)
		snprintf(d->unpaired, sizeof(d->unpaired), "%zu pair%s: a paired test needs %d", nb,
			 nb == 1 ? "" : "s", DIFF_MIN_PAIRS);
	else if (d->o.paired)
		snprintf(d->unpaired, sizeof(d->unpaired), "%zu runs against %zu: not pairs", nb, nn);
	return 0;
}

int diff__compute(struct diff *d, const struct diff_run *base, size_t nb,
		  const struct diff_run *cur, size_t nn, const struct diff_opts *o)
{
	struct builder b;
	struct tctx x;
	size_t i, n = nb + nn;
	double *scratch, *nsamp;
	const char *ev = NULL;
	size_t ev_len = 0;
	bool known = false, all_in = true;

	if (diff__start(d, nb, nn, o) < 0)
		return -EINVAL;
	memset(&b, 0, sizeof(b));
	b.d = d;
	hashidx__init(&b.idx);
	for (i = 0; i < n && all_in; i++)
		all_in = builder__add_run(&b, i < nb ? &base[i] : &cur[i - nb], i, i < nb ? 0 : 1);

	hashidx__release(&b.idx);
	for (i = 0; i < b.nr_spaces; i++)
		free(b.spaces[i].row);
	free(b.spaces);
	free(b.stamp);
	b.stamp = NULL;
	/*
	 * The rows' slack goes before the test's arrays: xgrow zeroed it, so
	 * it is resident, and it was the peak of diff (Documentation/
	 * performance.md, "One symbol trie per file per diff").
	 */
	XSHRINK(d->rows, d->alloc, d->nr);
	if (!all_in) {
		for (i = 0; i < d->nr; i++)
			free(b.have[i]);
		free(b.have);
		free(b.present);
		diff__release(d);
		return -E2BIG;
	}

	diff__mark_addresses(d);
	diff__mark_one_sided(d, b.present);
	memset(&x, 0, sizeof(x));
	x.d = d;
	x.t = xcalloc(d->nr + 1, sizeof(*x.t));
	x.buf = xmalloc((n + 1) * sizeof(*x.buf));
	scratch = xmalloc((n + 1) * sizeof(*scratch));
	nsamp = xmalloc((n + 1) * sizeof(*nsamp));
	for (i = 0; i < d->nr; i++)
		d->rows[i].v = d->values + i * n;
	tctx__cost_totals(&x);
	tctx__run_seconds(&x);
	for (i = 0; i < d->nr; i++) {
		tctx__classify(&x, &d->rows[i], &b.present[2 * i], b.have[i], b.base_has_pp, scratch,
			       row_samples(&d->o, d->rows[i].key, base, nb, cur, nn, nsamp, &ev,
					   &ev_len, &known));
	}
	free(nsamp);
	free(scratch);
	free(b.present);
	for (i = 0; i < d->nr; i++)
		free(b.have[i]);
	free(b.have);
	if (!d->novar)
		tctx__test(&x);
	tctx__release(&x);
	return 0;
}

void diff__values_refusal(size_t nb, size_t nn, size_t max_values, char *buf, size_t size)
{
	snprintf(buf, size, "%zu runs (%zu base, %zu new) and more than %zu keys are more values "
		 "than diff tests (keys x runs, at most 2^24 over its columns and costs; "
		 "robustness.md); compare files of fewer runs or fewer events", nb + nn, nb, nn,
		 (max_values ? max_values : DIFF_MAX_VALUES) / (nb + nn));
}

int diff__shares_init(struct diff *d, size_t nr, size_t nb, size_t nn, const struct diff_opts *o)
{
	size_t i;

	if (diff__start(d, nb, nn, o) < 0)
		return -EINVAL;
	d->nr = d->alloc = nr;
	d->rows = xcalloc(nr + 1, sizeof(*d->rows));
	d->values = xcalloc(nr * (nb + nn) + 1, sizeof(*d->values));
	for (i = 0; i < nr; i++)
		d->rows[i].v = d->values + i * (nb + nn);
	return 0;
}

void diff__test_shares(struct diff *d, const char *family, const double *nsamp)
{
	size_t n = d->nb + d->nn, i;
	double *scratch = xmalloc((n + 1) * sizeof(*scratch));
	struct tctx x;

	memset(&x, 0, sizeof(x));
	x.d = d;
	x.paths = true;
	x.t = xcalloc(d->nr + 1, sizeof(*x.t));
	x.buf = xmalloc((n + 1) * sizeof(*x.buf));
	for (i = 0; i < d->nr; i++) {
		struct diff_row *r = &d->rows[i];

		stats__summary(r->v, d->nb, scratch, &r->base);
		stats__summary(r->v + d->nb, d->nn, scratch, &r->cur);
		r->absolute = true;
		r->delta = r->change = r->cur.mean - r->base.mean;
		r->rel = 100.0 * r->delta / (r->base.mean == 0 ? 1e-100 : r->base.mean);
		r->p = r->q = r->mde = r->runs_needed = NAN;
		/* independent filtering on the level, as the table's rows */
		if (!d->novar && fmax(r->base.mean, r->cur.mean) >= d->o.test_floor)
			tctx__prep_share(&x, r, family, true, nsamp);
	}
	if (!d->novar)
		tctx__test(&x);
	tctx__release(&x);
	free(scratch);
}

void diff__release(struct diff *d)
{
	size_t i;

	size_t j;
	int sd;

	for (i = 0; i < d->nr; i++)
		free(d->rows[i].key);
	for (i = 0; i < d->nr_spellings; i++)
		for (sd = 0; sd < 2; sd++) {
			for (j = 0; j < d->spellings[i].nr[sd]; j++)
				free(d->spellings[i].name[sd][j]);
			free(d->spellings[i].name[sd]);
		}
	free(d->spellings);
	for (sd = 0; sd < 2; sd++) {
		for (j = 0; j < d->nr_one_side[sd]; j++)
			free(d->one_side[sd][j]);
		free(d->one_side[sd]);
	}
	free(d->rows);
	free(d->values);
	free(d->disturbed);
	free(d->score_runs);
	free(d->advice.family);
	for (i = 0; i < d->nr_families; i++)
		free(d->families[i].name);
	free(d->families);
	memset(d, 0, sizeof(*d));
}

const struct diff_row *diff__find(const struct diff *d, const char *key)
{
	size_t i;

	/* used by tests and gates on few keys: a scan is fine */
	for (i = 0; i < d->nr; i++)
		if (!strcmp(d->rows[i].key, key))
			return &d->rows[i];
	return NULL;
}

const char *diff_row__verdict_name(const struct diff_row *r)
{
	switch (r->verdict) {
	case DIFF_UP:
		return (r->flags & DIFF_NEW) ? "new" : "up";
	case DIFF_DOWN:
		return (r->flags & DIFF_GONE) ? "gone" : "down";
	case DIFF_SMALL:
		return "small";
	case DIFF_CANT_TELL:
		return "can't tell";
	case DIFF_CHANGED:
		return (r->flags & DIFF_NEW) ? "new?" : (r->flags & DIFF_GONE) ? "gone?" : "changed?";
	case DIFF_SAME:
	default:
		if (r->flags & DIFF_ADDRESS)
			return "address";
		if (r->flags & DIFF_ONE_SIDE)
			return "one-side";
		return (r->flags & DIFF_TESTED) ? "same" : "-";
	}
}

/* ---- selection and the robot's order ---- */

struct ordered {
	const struct diff_row *r;	/* the key's row in the first column that has it */
	const struct diff_row *const *cols;	/* the key's row per column (NULL where absent), or NULL: r's alone */
	size_t nr_cols;
	size_t family_count;
	size_t sort_len;	/* compare this many bytes of the key first */
};

/* A column's change (0 where the column lacks the key: 0 against 0). */
static double ordered__change(const struct ordered *x, size_t k)
{
	if (!x->cols)
		return x->r->change;
	return x->cols[k] ? x->cols[k]->change : 0;
}

static int cmp_ordered(const void *a, const void *b)
{
	const struct ordered *x = a, *y = b;
	size_t lx = x->sort_len, ly = y->sort_len, k;
	int c;

	if (x->family_count != y->family_count)
		return x->family_count < y->family_count ? -1 : 1;
	/* the sort keys, as strings of their own lengths */
	c = strncmp(x->r->key, y->r->key, lx < ly ? lx : ly);
	if (c)
		return c;
	if (lx != ly)
		return lx < ly ? -1 : 1;
	/* compare.rb sorts by the array of changes: the first column's, then the next */
	for (k = 0; k < x->nr_cols; k++) {
		double cx = ordered__change(x, k), cy = ordered__change(y, k);

		if (cx != cy)
			return cx < cy ? -1 : 1;
	}
	return strcmp(x->r->key, y->r->key);
}

static int cmp_family(const void *a, const void *b)
{
	const struct ordered *x = a, *y = b;
	size_t lx = keykind__sort_family_len(x->r->key), ly = keykind__sort_family_len(y->r->key);
	int c = strncmp(x->r->key, y->r->key, lx < ly ? lx : ly);

	return c ? c : lx < ly ? -1 : lx > ly;
}

static bool row_selected(const struct diff_row *r, enum diff_select sel)
{
	return sel == DIFF_SELECT_ALL || (sel == DIFF_SELECT_ROBOT && (r->flags & DIFF_ROBOT)) ||
	       (sel == DIFF_SELECT_DEFAULT && diff_row__changed(r) && !(r->flags & DIFF_AMBIENT)) ||
	       (sel == DIFF_SELECT_AMBIENT && diff_row__changed(r) && (r->flags & DIFF_AMBIENT));
}

/* Sort the m entries of o in the robot's order (lkp-format.md). */
static void ordered__sort(struct ordered *o, size_t m)
{
	size_t i, j;

	/* families with fewer shown rows first; the workload's own first of all */
	qsort(o, m, sizeof(*o), cmp_family);
	for (i = 0; i < m; i = j) {
		size_t fl = keykind__sort_family_len(o[i].r->key), k;

		for (j = i + 1; j < m; j++)
			if (keykind__sort_family_len(o[j].r->key) != fl || strncmp(o[j].r->key, o[i].r->key, fl))
				break;
		for (k = i; k < j; k++)
			o[k].family_count = keykind__is(o[i].r->key, KEYFAM_MONITOR) ? j - i : 0;
	}
	qsort(o, m, sizeof(*o), cmp_ordered);
}

const struct diff_row **diff__select(const struct diff *d, enum diff_select sel, size_t *n)
{
	struct ordered *o = xmalloc((d->nr + 1) * sizeof(*o));
	const struct diff_row **out;
	size_t i, m = 0;

	for (i = 0; i < d->nr; i++) {
		const struct diff_row *r = &d->rows[i];

		if (row_selected(r, sel)) {
			o[m].r = r;
			o[m].cols = NULL;
			o[m].nr_cols = 1;
			o[m].sort_len = keykind__profile_group_len(r->key);
			m++;
		}
	}
	ordered__sort(o, m);
	out = xmalloc((m + 1) * sizeof(*out));
	for (i = 0; i < m; i++)
		out[i] = o[i].r;
	free(o);
	*n = m;
	return out;
}

static bool urow_eq(const void *ctx, uint32_t u, const void *key)
{
	const struct diff_row *const *first = ctx;

	return !strcmp(first[u]->key, key);
}

const struct diff_row **diff__select_columns(const struct diff *d, size_t nd,
					     enum diff_select sel, size_t *n)
{
	struct hashidx idx;
	const struct diff_row **cols = NULL, **first = NULL, **out;
	bool *shown = NULL;
	size_t nu = 0, alloc_cols = 0, alloc_first = 0, alloc_shown = 0, i, k, m = 0;
	struct ordered *o;

	/* one entry per key of any column: its row in each column */
	hashidx__init(&idx);
	for (k = 0; k < nd; k++)
		for (i = 0; i < d[k].nr; i++) {
			const struct diff_row *r = &d[k].rows[i];
			uint64_t h = hash__bytes(r->key, strlen(r->key));
			uint32_t u = hashidx__find(&idx, h, urow_eq, first, r->key);

			if (u == HASHIDX_NONE) {
				u = (uint32_t)nu++;
				XGROW(first, alloc_first, u);
				XGROW(shown, alloc_shown, u);
				while (alloc_cols < nu * nd) {
					alloc_cols = alloc_cols ? 2 * alloc_cols : 64 * nd;
					cols = xrealloc(cols, alloc_cols * sizeof(*cols));
				}
				memset(&cols[(size_t)u * nd], 0, nd * sizeof(*cols));
				first[u] = r;
				shown[u] = false;
				hashidx__insert(&idx, h, u);
			}
			cols[(size_t)u * nd + k] = r;
			shown[u] |= row_selected(r, sel);
		}
	hashidx__release(&idx);
	o = xmalloc((nu + 1) * sizeof(*o));
	for (i = 0; i < nu; i++)
		if (shown[i]) {
			o[m].r = first[i];
			o[m].cols = &cols[i * nd];
			o[m].nr_cols = nd;
			o[m].sort_len = keykind__profile_group_len(first[i]->key);
			m++;
		}
	ordered__sort(o, m);
	out = xmalloc((m * nd + 1) * sizeof(*out));
	for (i = 0; i < m; i++)
		memcpy(&out[i * nd], o[i].cols, nd * sizeof(*out));
	free(o);
	free(cols);
	free(first);
	free(shown);
	*n = m;
	return out;
}
