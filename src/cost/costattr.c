/*
 * costattr: the change of one event's cost per unit of work between the
 * base and a compared column, split by function (cost.h).  Each side's
 * mean self cost of a function is the mean over the side's runs (absent:
 * 0); since every run's self costs add up to its total, the functions'
 * deltas add up to the totals' delta, and the "elsewhere" row is defined
 * as the rest so that the listed column adds up exactly, not within
 * rounding.  Means are merged across files by the function's key spelling
 * (sort and merge: tens of thousands of functions, a few runs).
 */
#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mmprof/cost.h"
#include "mmprof/xalloc.h"

struct acc {
	const char *fn;		/* borrowed from a cost_profile */
	int side;		/* 0 base, 1 the column */
	double self, children;	/* already divided by the side's runs */
};

static int acc_by_fn(const void *a, const void *b)
{
	return strcmp(((const struct acc *)a)->fn, ((const struct acc *)b)->fn);
}

static int row_by_delta(const void *a, const void *b)
{
	const struct cost_attr_row *x = a, *y = b;

	if (fabs(x->delta) != fabs(y->delta))
		return fabs(x->delta) > fabs(y->delta) ? -1 : 1;
	return strcmp(x->fn, y->fn);
}

/*
 * Side k's (0: base, column) accumulations of event ev appended to *a: one
 * per function of each file (its runs summed first, in run order), not one
 * per run and function, which made 20 runs' arrays 20 times the functions.
 */
static double side_accs(const struct cost_side *cs, const char *ev, int side, struct acc **a,
			size_t *n, size_t *alloc)
{
	double total = 0, runs = cs->nr_runs ? (double)cs->nr_runs : 1;
	size_t f, i, j;

	for (f = 0; f < cs->nr_files; f++) {
		const struct cost_profile *cp = cs->cp[f];
		int e = cost_profile__event(cp, ev);
		double *self = xcalloc(2 * cp->fn.nr + 2, sizeof(*self)), *children = self + cp->fn.nr + 1;
		bool *seen = xcalloc(cp->fn.nr + 1, sizeof(*seen));

		for (i = 0; i < cs->nr_runs; i++) {
			const struct cost_slot *s = e >= 0 && cs->file[i] == f ?
				cost_profile__slot(cp, cs->run[i], (uint32_t)e) : NULL;

			if (!s || !isfinite(s->total))
				continue;
			total += s->total / runs;
			for (j = s->first; j < s->first + s->nr; j++) {
				self[cp->cells[j].fn] += cp->cells[j].self / runs;
				children[cp->cells[j].fn] += cp->cells[j].children / runs;
				seen[cp->cells[j].fn] = true;
			}
		}
		for (j = 0; j < cp->fn.nr; j++)
			if (seen[j]) {
				XGROW(*a, *alloc, *n);
				(*a)[(*n)++] = (struct acc){ cp->fn.s[j], side, self[j], children[j] };
			}
		free(self);
		free(seen);
	}
	return total;
}

/* ---- chains ---- */

struct chain_acc {
	char *chain;		/* owned */
	size_t row;		/* the listed row of its function */
	int side;
	double v;
};

static int chain_by_text(const void *a, const void *b)
{
	const struct chain_acc *x = a, *y = b;

	return strcmp(x->chain, y->chain);
}

/* One function's chains: by |delta|, then by text. */
static int chain_by_delta(const void *a, const void *b)
{
	const struct cost_chain *x = a, *y = b;

	if (fabs(x->delta) != fabs(y->delta))
		return fabs(x->delta) > fabs(y->delta) ? -1 : 1;
	return strcmp(x->chain, y->chain);
}

/* The chain of symnode q: up to depth callers root first, then its function, ';'-separated. */
static char *chain_text(const struct cost_profile *cp, uint32_t q, size_t depth)
{
	uint32_t path[64], n = 0, at = q;
	size_t len = 0, cap = 0, i;
	char *s = NULL;

	if (depth > 63)
		depth = 63;
	while (at != 0 && n <= depth) {
		path[n++] = at;
		at = cost_profile__parent(cp, at);
	}
	for (i = n; i-- > 0;) {
		const char *fn = cp->fn.s[cost_profile__fn_of(cp, path[i])];
		size_t l = strlen(fn);

		if (len + l + 2 > cap) {
			cap = 2 * (len + l + 2);
			s = xrealloc(s, cap);
		}
		memcpy(s + len, fn, l);
		len += l;
		s[len++] = i ? ';' : '\0';
	}
	return s ? s : xstrdup("");
}

/*
 * Side side's chains of the listed functions into *out: per file, each
 * symnode's self cost summed over the side's runs of that file (one pass
 * over the file's counts, each run's period per its own work), then one
 * entry per symnode that carries a listed function's cost.
 */
static void side_chains(const struct cost_side *cs, const char *ev, int side,
			const struct cost_attr *a, size_t listed, size_t depth, struct chain_acc **out,
			size_t *n, size_t *alloc)
{
	double runs = cs->nr_runs ? (double)cs->nr_runs : 1;
	size_t f, i, q;

	for (f = 0; f < cs->nr_files; f++) {
		const struct cost_profile *cp = cs->cp[f];
		int e = cost_profile__event(cp, ev);
		double *w, *scale;
		size_t *row_of;
		bool any = false;

		if (e < 0 || !cost_profile__has_view(cp))
			continue;
		scale = xcalloc(cp->p->nr_runs + 1, sizeof(*scale));
		for (i = 0; i < cs->nr_runs; i++) {
			double work = cp->work[cs->run[i]];

			if (cs->file[i] == f && isfinite(work)) {
				scale[cs->run[i]] = 1 / work / runs;
				any = true;
			}
		}
		if (!any) {
			free(scale);
			continue;
		}
		w = xmalloc((cp->nr_nodes + 1) * sizeof(*w));
		cost_profile__weights(cp, (uint32_t)e, scale, w);
		free(scale);
		/* each function's listed row, SIZE_MAX when it is not listed */
		row_of = xmalloc((cp->fn.nr + 1) * sizeof(*row_of));
		for (q = 0; q < cp->fn.nr; q++) {
			size_t r;

			row_of[q] = SIZE_MAX;
			for (r = 0; r < listed; r++)
				if (!strcmp(a->rows[r].fn, cp->fn.s[q]))
					row_of[q] = r;
		}
		for (q = 1; q < cp->nr_nodes; q++) {
			size_t r = row_of[cost_profile__fn_of(cp, (uint32_t)q)];

			if (r == SIZE_MAX || !(w[q] > 0))
				continue;
			XGROW(*out, *alloc, *n);
			(*out)[(*n)++] = (struct chain_acc){ chain_text(cp, (uint32_t)q, depth), r, side,
							     w[q] };
		}
		free(row_of);
		free(w);
	}
}

static void attr_chains(const struct cost_sides *c, size_t column, struct cost_attr *a,
			size_t listed, const struct cost_attr_opts *o)
{
	struct chain_acc *ch = NULL;
	size_t n = 0, alloc = 0, i, j, nc = 0, per = o->max_chains ? o->max_chains : 2;
	struct cost_chain *all;

	if (!listed)
		return;
	side_chains(&c->side[0], a->event, 0, a, listed, o->chain_depth ? o->chain_depth : 3, &ch, &n, &alloc);
	side_chains(&c->side[column], a->event, 1, a, listed, o->chain_depth ? o->chain_depth : 3, &ch, &n, &alloc);
	if (n)
		qsort(ch, n, sizeof(*ch), chain_by_text);
	all = xcalloc(n + 1, sizeof(*all));
	for (i = 0; i < n; i = j) {
		double v[2] = { 0, 0 };

		for (j = i; j < n && !strcmp(ch[j].chain, ch[i].chain); j++)
			v[ch[j].side] += ch[j].v;
		all[nc++] = (struct cost_chain){ xstrdup(ch[i].chain), a->rows[ch[i].row].fn, v[0], v[1],
						 v[1] - v[0] };
	}
	for (i = 0; i < n; i++)
		free(ch[i].chain);
	free(ch);
	/* per listed function in its order, its chains by |delta|, the first per of them */
	a->chains = xcalloc(listed * per + 1, sizeof(*a->chains));
	for (i = 0; i < listed; i++) {
		size_t k = 0;

		for (j = 0; j < nc; j++)
			if (all[j].fn == a->rows[i].fn)
				k++;
		if (!k)
			continue;
		{
			struct cost_chain *mine = xcalloc(k, sizeof(*mine));
			size_t m = 0;

			for (j = 0; j < nc; j++)
				if (all[j].fn == a->rows[i].fn)
					mine[m++] = all[j];
			qsort(mine, m, sizeof(*mine), chain_by_delta);
			/* a chain that carries a twentieth of the function's change or more */
			for (j = 0; j < m && j < per &&
				    fabs(mine[j].delta) >= 0.05 * fabs(a->rows[i].delta); j++) {
				a->chains[a->nr_chains++] = mine[j];
				mine[j].chain = NULL;	/* now a->chains' */
			}
			free(mine);
		}
	}
	for (j = 0; j < nc; j++) {
		bool kept = false;

		for (i = 0; i < a->nr_chains && !kept; i++)
			kept = a->chains[i].chain == all[j].chain;
		if (!kept)
			free(all[j].chain);
	}
	free(all);
}

int cost_attr__compute(const struct cost_sides *c, size_t column, const char *event,
		       const struct cost_attr_opts *o, struct cost_attr *a)
{
	struct cost_attr_opts dflt = { 0 };
	struct acc *acc = NULL;
	size_t n = 0, alloc = 0, i, j, listed = 0, maxr;
	double cover, sumabs = 0, covered = 0, listed_delta = 0;
	int ev = -1;

	memset(a, 0, sizeof(*a));
	if (!o)
		o = &dflt;
	for (i = 0; i < c->nr_events; i++)
		if (!strcmp(c->events[i], event))
			ev = (int)i;
	if (ev < 0 || column == 0 || column >= c->nr_sides)
		return -ENOENT;
	cover = o->cover > 0 ? o->cover : 90;
	maxr = o->max_rows ? o->max_rows : 10;
	a->event = c->events[ev];
	a->unit = c->unit[ev];
	a->time = c->time[ev];
	a->base = side_accs(&c->side[0], event, 0, &acc, &n, &alloc);
	a->cur = side_accs(&c->side[column], event, 1, &acc, &n, &alloc);
	a->delta = a->cur - a->base;
	a->rel = a->base > 0 ? 100 * a->delta / a->base : NAN;
	if (n)
		qsort(acc, n, sizeof(*acc), acc_by_fn);
	/* a row per function, not per (run, function): 20 runs made all 20 times too large */
	for (i = 0, j = 0; i < n; i++)
		j += !i || strcmp(acc[i].fn, acc[i - 1].fn);
	a->all = xcalloc(j + 1, sizeof(*a->all));
	for (i = 0; i < n; i = j) {
		struct cost_attr_row *r = &a->all[a->nr_all++];

		memset(r, 0, sizeof(*r));
		r->fn = acc[i].fn;
		r->nr = 1;
		for (j = i; j < n && !strcmp(acc[j].fn, acc[i].fn); j++) {
			if (acc[j].side) {
				r->cur += acc[j].self;
				r->children_cur += acc[j].children;
			} else {
				r->base += acc[j].self;
				r->children_base += acc[j].children;
			}
		}
		if (!(r->base > 0) && !(r->cur > 0)) {
			a->nr_all--;	/* a caller only: no self cost to attribute */
			continue;
		}
		r->delta = r->cur - r->base;
		r->share = a->delta != 0 ? 100 * r->delta / a->delta : NAN;
		r->points = a->base > 0 ? 100 * r->delta / a->base : NAN;
		sumabs += fabs(r->delta);
	}
	free(acc);
	if (a->nr_all)
		qsort(a->all, a->nr_all, sizeof(*a->all), row_by_delta);
	a->rows = xcalloc(maxr + 2, sizeof(*a->rows));
	while (listed < a->nr_all && listed < maxr && a->all[listed].delta != 0 &&
	       covered < cover / 100 * sumabs) {
		a->rows[listed] = a->all[listed];
		covered += fabs(a->all[listed].delta);
		listed_delta += a->all[listed].delta;
		listed++;
	}
	a->nr = listed;
	if (listed < a->nr_all) {
		struct cost_attr_row *r = &a->rows[a->nr++];
		double base = 0, cur = 0;

		for (i = listed; i < a->nr_all; i++) {
			base += a->all[i].base;
			cur += a->all[i].cur;
		}
		/* the rest by definition, so that the column adds up to the total's change */
		*r = (struct cost_attr_row){ .fn = NULL, .base = base, .cur = cur,
					     .delta = a->delta - listed_delta, .nr = a->nr_all - listed };
		r->share = a->delta != 0 ? 100 * r->delta / a->delta : NAN;
		r->points = a->base > 0 ? 100 * r->delta / a->base : NAN;
		r->children_base = r->children_cur = NAN;
	}
	attr_chains(c, column, a, listed, o);
	return 0;
}

void cost_attr__release(struct cost_attr *a)
{
	size_t i;

	for (i = 0; i < a->nr_chains; i++)
		free(a->chains[i].chain);
	free(a->chains);
	free(a->rows);
	free(a->all);
	memset(a, 0, sizeof(*a));
}
