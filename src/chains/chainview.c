/*
 * chainview: what a chain diff (chains.h) becomes once computed: its
 * paths given their functions' verdicts (chain_fns, from the table's
 * perf-profile.children rows), and its shown paths written as -g's text
 * or JSON.  chains.c makes the rows; this file reads them.
 */
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mmprof/chains.h"
#include "mmprof/keys.h"
#include "mmprof/xalloc.h"

#include "chains-int.h"

const char *chain_row__new_name(const struct chain_diff *cd, const struct chain_row *r)
{
	const struct profile *pn, *rp;
	const char *a, *n;

	/* spelled without a suffix on both sides: the same name, no lookup */
	if (!r->clone || r->file_new == UINT32_MAX || r->file_new >= cd->nnp)
		return NULL;
	pn = cd->cur[r->file_new];
	rp = chain_row__profile(cd, r);
	if (pn == rp || r->node_new >= pn->nr_nodes)
		return NULL;
	a = profile__frame_sym(rp, rp->nodes[r->node].frame);
	n = profile__frame_sym(pn, pn->nodes[r->node_new].frame);
	return strcmp(a, n) ? n : NULL;
}

static int cmp_fn(const void *a, const void *b)
{
	return strcmp(((const struct chain_fn *)a)->name, ((const struct chain_fn *)b)->name);
}

/* Does a shown chain hold a frame spelled differently in the new build? */
static bool chains__any_renamed(const struct chain_row *const *s, size_t m)
{
	size_t i;

	for (i = 0; i < m; i++)
		if (s[i]->renamed)
			return true;
	return false;
}

static int cmp_abs_delta(const void *a, const void *b)
{
	const struct chain_row *x = *(const struct chain_row *const *)a;
	const struct chain_row *y = *(const struct chain_row *const *)b;

	if (fabs(chain_row__delta(x)) != fabs(chain_row__delta(y)))
		return fabs(chain_row__delta(x)) > fabs(chain_row__delta(y)) ? -1 : 1;
	return strcmp(x->text, y->text);
}

/*
 * How a path stands to its function's table row where that says more than
 * the path (chain_row.with_fn): a part of a flagged function's change,
 * against it, or flagged itself where its function as a whole is not;
 * else CHAIN_FN_NONE.
 */
static int said_function(const struct chain_diff *cd, const struct chain_row *r)
{
	return r->with_fn == CHAIN_FN_UNFLAGGED && !(r->q < cd->alpha) ? CHAIN_FN_NONE : r->with_fn;
}

/* -g's words for said_function */
static void chains__say_function(struct outbuf *b, const struct chain_diff *cd, const struct chain_row *r)
{
	const struct profile *p = chain_row__profile(cd, r);
	char name[600];

	if (said_function(cd, r) == CHAIN_FN_NONE)
		return;
	chains__leaf_name(p, p->nodes[r->node].frame, name, sizeof(name));
	outbuf__puts(b, r->with_fn == CHAIN_FN_WITH ? ", a part of " : r->with_fn == CHAIN_FN_AGAINST ?
		     ", against " : ", where the table does not flag ");
	outbuf__text_str(b, name);
	outbuf__puts(b, r->with_fn == CHAIN_FN_UNFLAGGED ? " as a whole (its other paths moved otherwise)"
		     : "'s change in the table");
}

/* The shown rows by |change|, at most limit of them (*m); free the array. */
static const struct chain_row **shown(const struct chain_diff *cd, size_t limit, size_t *m)
{
	const struct chain_row **s = xmalloc((cd->nr + 1) * sizeof(*s));
	size_t i;

	*m = 0;
	for (i = 0; i < cd->nr; i++)
		if (cd->rows[i].shown)
			s[(*m)++] = &cd->rows[i];
	qsort(s, *m, sizeof(*s), cmp_abs_delta);
	if (*m > limit)
		*m = limit;
	return s;
}

void chains__format(struct outbuf *b, const struct chain_diff *cd, size_t limit)
{
	size_t i, m;
	const struct chain_row **s = shown(cd, limit, &m);

	outbuf__printf(b, "\ncall chains whose share changed (caller \xe2\x86\x92 callee, points of the "
			  "event's total%s%s):\n", cd->novar ? "; one run on a side: no test" : "",
		       chains__any_renamed(s, m) ?
		       "; (a \xe2\x86\x92 b): a frame spelled a in base, b in new" : "");
	for (i = 0; i < m; i++) {
		/* the chain's frames are the programs' names: the text rule (escape.h) */
		outbuf__puts(b, "  ");
		outbuf__text_str(b, s[i]->text);
		outbuf__printf(b, "  %+.1f  (%.2f \xe2\x86\x92 %.2f", chain_row__delta(s[i]), s[i]->base,
			       s[i]->cur);
		if (isfinite(s[i]->q))
			outbuf__printf(b, ", q=%.2g%s", s[i]->q, s[i]->q < cd->alpha ? "" : ", not significant");
		if (isfinite(s[i]->mde))
			outbuf__printf(b, ", detectable %.2g", s[i]->mde);
		chains__say_function(b, cd, s[i]);
		outbuf__printf(b, ")\n");
	}
	if (!m)
		outbuf__printf(b, "  (none)\n");
	free(s);
}

void chains__json(struct jsonw *w, const char *key, const struct chain_diff *cd, size_t limit)
{
	size_t i, m;
	const struct chain_row **s = shown(cd, limit, &m);

	jsonw__array(w, key, JSONW_LINES);
	for (i = 0; i < m; i++) {
		jsonw__object(w, NULL, JSONW_INLINE);
		jsonw__str(w, "chain", s[i]->text);
		jsonw__fixed(w, "base", s[i]->base, 4);
		jsonw__fixed(w, "new", s[i]->cur, 4);
		jsonw__fixed(w, "change", chain_row__delta(s[i]), 4);
		jsonw__num(w, "q", s[i]->q, 4);
		jsonw__num(w, "detectable", s[i]->mde, 4);
		switch (said_function(cd, s[i])) {
		case CHAIN_FN_WITH:
			jsonw__str(w, "function_row", "with");
			break;
		case CHAIN_FN_AGAINST:
			jsonw__str(w, "function_row", "against");
			break;
		case CHAIN_FN_UNFLAGGED:
			jsonw__str(w, "function_row", "unflagged");
			break;
		}
		jsonw__end(w);
	}
	jsonw__end(w);
	free(s);
}

void chain_fns__from_diff(struct chain_fns *f, const struct diff *d, const char *event)
{
	char ev[256], prefix[300];
	size_t i, plen;

	memset(f, 0, sizeof(*f));
	keys__event_name(event, ev, sizeof(ev));
	plen = (size_t)snprintf(prefix, sizeof(prefix), "perf-profile.children.%s.", ev);
	f->v = xcalloc(d->nr + 1, sizeof(*f->v));
	for (i = 0; i < d->nr; i++) {
		const struct diff_row *r = &d->rows[i];

		if ((r->flags & DIFF_TESTED) && !strncmp(r->key, prefix, plen))
			f->v[f->nr++] = (struct chain_fn){ xstrdup(r->key + plen), r->q, r->mde, r->delta,
							   r->verdict == DIFF_UP ? 1 : r->verdict == DIFF_DOWN ? -1 : 0,
							   r->cur.max <= 0 ? -1 : r->base.max <= 0 ? 1 : 0 };
	}
	qsort(f->v, f->nr, sizeof(*f->v), cmp_fn);
}

void chain_fns__release(struct chain_fns *f)
{
	size_t i;

	for (i = 0; i < f->nr; i++)
		free(f->v[i].name);
	free(f->v);
	memset(f, 0, sizeof(*f));
}

struct leaf {
	uint64_t hash;
	uint32_t row;
};

static int cmp_leaf(const void *a, const void *b)
{
	const struct leaf *x = a, *y = b;

	return x->hash < y->hash ? -1 : x->hash > y->hash;
}

/*
 * What a row's path knows of the rows of the functions on it, root to its
 * own frame.  Its own frame's function's row (NULL: none) and whether the
 * path is its function's (is_whole) are arrays of their own, made while
 * the rows are sorted by leaf: the three arrays at once were 64 bytes a
 * row, the peak of diff -g (5 MB above the chains' on the bench pair).
 */
struct onpath {
	double gate;			/* the least q of the rows on the path */
	double absent_q[2];		/* [0]: least q of a row on it 0 in every new run, [1]: every base run */
};

/*
 * Is row i the whole of its function, among the n paths l[0..n) that end
 * in it: the only one; or one that changed as the function's row did and
 * either holds 90 % of their share or more on each side where they hold
 * the paths' test floor, or carries 90 % of their change or more with no
 * other of them moving the other way.  Where stacks are broken (a
 * stripped program's unnamed frames) a function's samples reach it by one
 * path and crumbs of others; its change may also sit in one of two paths
 * (__tlb_batch_free_encoded_pages +0.96 points under tlb_flush_mmu, +0.09
 * under tlb_finish_mmu, the row up at q = 9e-05).
 */
static bool is_whole(const struct chain_diff *cd, const struct leaf *l, size_t n, uint32_t i,
		     const struct chain_fn *fn)
{
	const struct chain_row *r = &cd->rows[i];
	double base = 0, cur = 0, moved = 0, d = chain_row__delta(r);
	bool against = false;
	size_t k;

	if (n == 1)
		return true;
	if (d * fn->delta <= 0)
		return false;
	for (k = 0; k < n; k++) {
		const struct chain_row *o = &cd->rows[l[k].row];

		base += o->base;
		cur += o->cur;
		moved += chain_row__delta(o);
		against |= chain_row__delta(o) * d < 0;
	}
	/* a side where the function's paths hold less than the paths' test floor has no say */
	if (fmax(base, cur) >= CHAINS_TEST_FLOOR && (base < CHAINS_TEST_FLOOR || r->base >= 0.9 * base) &&
	    (cur < CHAINS_TEST_FLOOR || r->cur >= 0.9 * cur))
		return true;
	return !against && fabs(d) >= 0.9 * fabs(moved);
}

void chains__take_functions(struct chain_diff *cd, const struct chain_fns *f)
{
	const struct chain_fn **fn;
	struct leaf *l;
	struct onpath *on;
	uint64_t *h;
	bool *whole;
	size_t i, j;

	if (!f || !f->nr || cd->novar)
		return;
	h = xmalloc((cd->nr + 1) * sizeof(*h));
	chains__leaf_hashes(cd, h);
	l = xmalloc((cd->nr + 1) * sizeof(*l));
	for (i = 0; i < cd->nr; i++)
		l[i] = (struct leaf){ h[i], (uint32_t)i };
	free(h);
	fn = xcalloc(cd->nr + 1, sizeof(*fn));
	whole = xcalloc(cd->nr + 1, sizeof(*whole));
	qsort(l, cd->nr, sizeof(*l), cmp_leaf);
	for (i = 0; i < cd->nr; i = j) {
		const struct chain_row *r = &cd->rows[l[i].row];
		const struct profile *p = chain_row__profile(cd, r);
		struct chain_fn key, *hit;
		char name[600];
		size_t k;

		for (j = i + 1; j < cd->nr && l[j].hash == l[i].hash; j++)
			;
		chains__leaf_name(p, p->nodes[r->node].frame, name, sizeof(name));
		key.name = name;
		hit = bsearch(&key, f->v, f->nr, sizeof(*f->v), cmp_fn);
		if (!hit || !isfinite(hit->q))
			continue;
		for (k = i; k < j; k++) {
			fn[l[k].row] = hit;
			whole[l[k].row] = is_whole(cd, l + i, j - i, l[k].row, hit);
		}
	}
	free(l);
	on = xmalloc((cd->nr + 1) * sizeof(*on));
	/* a path's caller's row precedes it (chains.c makes rows parents first) */
	for (i = 0; i < cd->nr; i++) {
		const struct chain_row *r = &cd->rows[i];
		struct onpath *o = &on[i];
		const struct onpath *up = r->parent_row == CHAIN_NO_PARENT ? NULL : &on[r->parent_row];
		int s;

		o->gate = up ? up->gate : INFINITY;
		for (s = 0; s < 2; s++)
			o->absent_q[s] = up ? up->absent_q[s] : INFINITY;
		if (!fn[i])
			continue;
		o->gate = fmin(o->gate, fn[i]->q);
		if (fn[i]->absent)
			o->absent_q[fn[i]->absent > 0] = fmin(o->absent_q[fn[i]->absent > 0], fn[i]->q);
	}
	for (i = 0; i < cd->nr; i++) {
		struct chain_row *r = &cd->rows[i];
		const struct onpath *o = &on[i];
		const struct chain_fn *hit = fn[i];
		double own = r->q;

		if (hit && whole[i]) {
			/*
			 * Its function's row, tested or not as a path.  A share of
			 * every sample can move against the row's share of the named
			 * samples where the unnamed part differs between the sides
			 * (stripped stress-ng --vm: __madvise up at q = 0.008 in the
			 * table, its only frame down): no verdict of the row's then,
			 * nor one against it.
			 */
			r->q = chain_row__delta(r) * hit->delta < 0 ? 1 : hit->q;
			r->mde = hit->mde;
			continue;
		}
		/*
		 * A part of a flagged function's change: the table found the
		 * function moved, and this path moved with it.  Which of its
		 * paths moved by how much is no separate question of the table's,
		 * so the path answers as its function (its own test, where
		 * surer, stands).  A path against the row keeps its own test.
		 */
		if (hit && !hit->flag)
			r->with_fn = CHAIN_FN_UNFLAGGED;
		if (hit && hit->flag) {
			double d = chain_row__delta(r);

			r->with_fn = d * hit->flag > 0 ? CHAIN_FN_WITH : d * hit->flag < 0 ? CHAIN_FN_AGAINST
											: CHAIN_FN_NONE;
			if (r->with_fn == CHAIN_FN_WITH) {
				double gated = isfinite(r->q) ? fmax(r->q, o->gate) : INFINITY;

				r->q = fmin(hit->q, gated);
				r->mde = isfinite(r->mde) && isfinite(hit->mde) ? fmax(r->mde, hit->mde) : hit->mde;
				continue;
			}
		}
		if (!isfinite(r->q))
			continue;	/* untested: under the paths' floor */
		/*
		 * Gone or new with a function on it: a path seen on one side
		 * under a function never seen on the other is no more on the
		 * other side than that function is.
		 */
		if (r->cur <= 0 && r->base > 0)
			own = fmin(own, o->absent_q[0]);
		else if (r->base <= 0 && r->cur > 0)
			own = fmin(own, o->absent_q[1]);
		/*
		 * A part of its function's row, or a path whose own frame has
		 * none (an unnamed one) under functions that have: tested after
		 * the rows on it, as the table's chains stand on their
		 * functions' rows, significant only where one of them is, and
		 * seeing no less than its own function could.  A path's own move
		 * may still run against its function's (a caller that lost what
		 * another gained).
		 */
		r->q = isfinite(o->gate) ? fmax(own, o->gate) : own;
		if (hit && isfinite(hit->mde))
			r->mde = isfinite(r->mde) ? fmax(r->mde, hit->mde) : hit->mde;
	}
	free(on);
	free(fn);
	free(whole);
}
