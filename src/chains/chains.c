/* chains: changed call paths, caller -> callee, computed; see include/mmprof/chains.h (their text and the functions' verdicts: chainview.c). */
#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mmprof/chains.h"
#include "mmprof/diff.h"
#include "mmprof/diffside.h"
#include "mmprof/hashidx.h"
#include "mmprof/keykind.h"
#include "mmprof/keys.h"
#include "mmprof/parallel.h"
#include "mmprof/stats.h"
#include "mmprof/symview.h"
#include "mmprof/xalloc.h"

#include "chains-int.h"

#define MAX_FRAMES 6
/*
 * Shares: paths tested from a mean of this many points on a side, ten
 * times the table's floor.  A trie has far more paths than a table has
 * functions, and where stacks are broken (user code without frame
 * pointers or symbols) it splits one function's share over hundreds of
 * small paths of every length, each noisy from run to run: at 0.05 they
 * set the family's dispersion and its BH count, and a stripped
 * stress-ng's THP-off pair (2 + 3 runs) called every path "not
 * significant" (q 0.07, detectable 25 points for 0 -> 12.97) while the
 * table flagged the same functions at q 1e-7; at 0.5, q 0.014 and
 * detectable 8.5.  A path below it is shown untested.
 */
/* CHAINS_TEST_FLOOR, chains-int.h */

/*
 * The rows by path hash while they are made: open addressing over row
 * numbers alone, the hash read from the row (hashidx keeps a copy of it
 * in every slot: 12 bytes a slot where this takes 4, and its growth from
 * 2^20 to 2^21 slots was the peak of diff -g on two files of 573 k paths).
 */
struct cbuild {
	struct chain_diff *cd;
	uint32_t *slot;		/* UINT32_MAX: empty */
	size_t mask;		/* capacity - 1 */
};

static void cbuild__grow(struct cbuild *b)
{
	size_t cap = b->slot ? (b->mask + 1) * 2 : 1024, i, j;
	uint32_t *old = b->slot;
	size_t old_cap = old ? b->mask + 1 : 0;

	b->slot = xmalloc(cap * sizeof(*b->slot));
	memset(b->slot, 0xff, cap * sizeof(*b->slot));
	b->mask = cap - 1;
	for (i = 0; i < old_cap; i++) {
		if (old[i] == UINT32_MAX)
			continue;
		for (j = b->cd->rows[old[i]].hash & b->mask; b->slot[j] != UINT32_MAX;
		     j = (j + 1) & b->mask)
			;
		b->slot[j] = old[i];
	}
	free(old);
}

/* One profile's part: its event, its nodes' rows, its counts by run. */
struct cprof {
	const struct profile *p;
	struct symview *view;	/* the file's collapse (diff_side.views), or NULL: own */
	const char *event;
	uint32_t ev;		/* UINT32_MAX: the event is not in p (zero columns) */
	uint32_t *node_sym;	/* [node] its symnode (symview.h), until the rows are made */
	uint64_t *h;		/* [symnode] path hash, then its row (SYM_ROW) */
	uint8_t *sym_flags;	/* [symnode] SYM_CLONE, SYM_ROW */
	uint32_t *rows;		/* [node] row of the node's path: node_sym, converted in place */
	uint32_t *by_slot;	/* p's counts grouped by run and event (profile__group_counts; NULL: in place) */
	size_t *slot_start;
};

#define SYM_CLONE 1	/* the symnode's frame is spelled with a clone suffix */
#define SYM_ROW 2	/* its row is made: h holds the row number */

/*
 * file_new: p's index among the new side's files, UINT32_MAX for a base
 * file; clone: p spells the node's frame with a clone suffix.
 */
static uint32_t cbuild__row(struct cbuild *b, uint64_t h, uint32_t parent_row,
			    uint32_t file, uint32_t node, uint32_t file_new, bool clone)
{
	struct chain_diff *cd = b->cd;
	uint32_t row;
	size_t i;

	for (i = h & b->mask; (row = b->slot[i]) != UINT32_MAX; i = (i + 1) & b->mask)
		if (cd->rows[row].hash == h)
			break;
	if (row != UINT32_MAX) {
		cd->rows[row].clone |= clone;
		/* the new side's first spelling of the path, beside the base's */
		if (cd->rows[row].file_new == UINT32_MAX && file_new != UINT32_MAX) {
			cd->rows[row].file_new = file_new;
			cd->rows[row].node_new = node;
		}
		return row;
	}
	row = (uint32_t)cd->nr;
	/* cd->alloc is the bound chains__compute reserved: every node of every profile */
	memset(&cd->rows[row], 0, sizeof(cd->rows[row]));
	cd->rows[row].hash = h;
	cd->rows[row].parent_row = parent_row;
	cd->rows[row].file = file;
	cd->rows[row].node = node;
	cd->rows[row].file_new = file_new;
	cd->rows[row].node_new = node;
	cd->rows[row].clone = clone;
	cd->nr++;
	b->slot[i] = row;
	/* keep the load under 1/2 so probe runs stay short */
	if (cd->nr * 2 > b->mask + 1)
		cbuild__grow(b);
	return row;
}

/* chains__leaf_name of a symbol's name. */
static void leaf_name(const char *sym, char *out, size_t size)
{
	char a[512], k[600], n[600];
	size_t plen = strlen("perf-profile.x.");

	keys__strip_suffixes(sym, a, sizeof(a));
	snprintf(k, sizeof(k), "perf-profile.x.%s", a);
	keykind__normalize(k, n, sizeof(n));
	snprintf(out, size, "%s", n + plen);
}

/* chains__sym_hash of a symbol's name. */
static uint64_t sym_hash(const char *sym, bool *clone)
{
	char out[600];
	size_t len;

	leaf_name(sym, out, sizeof(out));
	len = strlen(out);
	*clone = strncmp(out, sym, len + 1) != 0;
	return hash__bytes(out, len);
}

void chains__leaf_name(const struct profile *p, uint32_t frame, char *out, size_t size)
{
	leaf_name(profile__frame_sym(p, frame), out, size);
}

uint64_t chains__sym_hash(const struct profile *p, uint32_t frame, bool *clone)
{
	return sym_hash(profile__frame_sym(p, frame), clone);
}

void chains__leaf_hashes(const struct chain_diff *cd, uint64_t *out)
{
	size_t nf = cd->nbp + cd->nnp, i;
	uint64_t **fh = xcalloc(nf + 1, sizeof(*fh));
	uint8_t **known = xcalloc(nf + 1, sizeof(*known));

	for (i = 0; i < cd->nr; i++) {
		const struct chain_row *r = &cd->rows[i];
		const struct profile *p = chain_row__profile(cd, r);
		uint32_t f = p->nodes[r->node].frame;
		bool clone;

		/* the string work once per frame of a file: rows share their leaves' frames */
		if (!fh[r->file]) {
			fh[r->file] = xmalloc((p->nr_frames + 1) * sizeof(**fh));
			known[r->file] = xcalloc(p->nr_frames + 1, 1);
		}
		if (!known[r->file][f]) {
			fh[r->file][f] = chains__sym_hash(p, f, &clone);
			known[r->file][f] = 1;
		}
		out[i] = fh[r->file][f];
	}
	for (i = 0; i < nf; i++) {
		free(fh[i]);
		free(known[i]);
	}
	free(fh);
	free(known);
}

/*
 * What needs no other profile: the event, and the profile's symbol trie
 * (symview.h, every frame an entry: unresolved ones, one "[unknown]", and
 * inline ones) with each symnode's path hash and clone flag, the string
 * work done once per entry.  A path is matched by its frames' names alone,
 * so the symnodes of one path (the same name in two DSOs) share a row:
 * the trie is finer than the rows, never coarser: a diff's collapse of
 * the file (cp->view, "[unknown]" per DSO) makes the same rows as a view
 * of the paths' own.  Profiles are prepared two at a time.
 */
static void *prepare(void *arg)
{
	struct symview_opts so = { .keep_unresolved = true, .keep_inline = true };
	struct cprof *cp = arg;
	const struct profile *p = cp->p;
	struct symview own;
	const struct symview *vp = cp->view;
	uint64_t *eh;
	bool *eclone;
	size_t i;

	cp->ev = UINT32_MAX;
	for (i = 0; i < p->nr_events; i++)
		if (profile__str(p, p->events[i].name) &&
		    !strcmp(profile__str(p, p->events[i].name), cp->event))
			cp->ev = (uint32_t)i;
	if (cp->ev == UINT32_MAX)
		return NULL;
	if (!vp) {
		symview__init_opts(&own, p, &so);
		vp = &own;
	}
	eh = xmalloc((vp->nr_entries + 1) * sizeof(*eh));
	eclone = xmalloc((vp->nr_entries + 1) * sizeof(*eclone));
	for (i = 0; i < vp->nr_entries; i++)
		eh[i] = sym_hash(symview__entry_name(vp, (uint32_t)i), &eclone[i]);
	cp->h = xmalloc((vp->nr_nodes + 1) * sizeof(*cp->h));
	cp->sym_flags = xmalloc(vp->nr_nodes + 1);
	cp->h[0] = 0x6d6d70726f66ULL;
	cp->sym_flags[0] = 0;
	/* parents precede children (symview.h), so one forward pass */
	for (i = 1; i < vp->nr_nodes; i++) {
		const struct symnode *n = &vp->nodes[i];

		cp->h[i] = hash__combine(cp->h[n->parent], eh[n->entry]);
		cp->sym_flags[i] = eclone[n->entry] ? SYM_CLONE : 0;
	}
	/* every frame is an entry: each node but the root has a symnode of its own
	 * frame (the loader refuses a node whose frame is not in the file) */
	cp->node_sym = xmalloc((p->nr_nodes + 1) * sizeof(*cp->node_sym));
	for (i = 0; i < p->nr_nodes; i++)
		cp->node_sym[i] = symview__symnode(vp, (uint32_t)i);
	if (vp == &own)
		symview__release(&own);
	free(eh);
	free(eclone);
	return NULL;
}

/*
 * The counts of each run and event, in file order: a run then reads only
 * its own counts, and adds them in the same order.  Made once the rows
 * are, whose index is gone by then: the two were a tenth of diff -g's
 * peak together.
 */
static void group_by_run(struct cprof *cp)
{
	if (cp->ev != UINT32_MAX)
		cp->slot_start = profile__group_counts(cp->p, &cp->by_slot);
}

/* fa(a) on a helper thread and fb(b) on this one (both here, in order, without a thread). */
static void in_parallel(void (*fa)(void *), void *a, void (*fb)(void *), void *b)
{
	struct parallel_job j;

	parallel__start(&j, fa, a);
	fb(b);
	parallel__wait(&j);
}

struct prep_half {
	struct cprof *cps;
	size_t ncp, first;	/* profiles first, first + 2, ... */
};

static void prepare_half(void *arg)
{
	struct prep_half *h = arg;
	size_t i;

	for (i = h->first; i < h->ncp; i += 2)
		prepare(&h->cps[i]);
}

/*
 * The rows of the paths of file (base files first, then new); file_new:
 * its index among the new files, UINT32_MAX for a base file.  In order:
 * row numbers do not depend on threads.  1, or 0 without the event.
 */
static int add_profile(struct cbuild *b, struct cprof *cp, uint32_t file, uint32_t file_new)
{
	const struct profile *p = cp->p;
	size_t i;

	if (cp->ev == UINT32_MAX)
		return 0;
	cp->rows = cp->node_sym;
	cp->node_sym = NULL;
	for (i = 1; i < p->nr_nodes; i++) {
		uint32_t parent = p->nodes[i].parent, q = cp->rows[i];

		/*
		 * A symnode's first node makes (or finds) its row, as the
		 * first node of its path; the parent's row is made: parents
		 * precede children.
		 */
		if (!(cp->sym_flags[q] & SYM_ROW)) {
			cp->h[q] = cbuild__row(b, cp->h[q], parent ? cp->rows[parent] : CHAIN_NO_PARENT, file,
					       (uint32_t)i, file_new, cp->sym_flags[q] & SYM_CLONE);
			cp->sym_flags[q] |= SYM_ROW;
		}
		cp->rows[i] = (uint32_t)cp->h[q];
	}
	free(cp->h);
	free(cp->sym_flags);
	cp->h = NULL;
	cp->sym_flags = NULL;
	return 1;
}

/*
 * One column: cell[row] = % of run r's total in the path of row (0 where p
 * lacks the path or the event), or with a scale (> 0, not NAN) the path's
 * period times scale.  Sibling frames of one symbol (other addresses) are
 * one path: they add up.  Returns the run's total in the cells' unit;
 * *samples: the run's samples of the event.
 */
static double column(const struct cprof *cp, uint32_t r, double scale, double *incl, double *cell, size_t nr,
		     double *samples)
{
	const struct profile *p = cp->p;
	double total = 0, ns = 0;
	size_t i;

	memset(cell, 0, nr * sizeof(*cell));
	*samples = 0;
	if (cp->ev == UINT32_MAX)
		return 0;
	memset(incl, 0, p->nr_nodes * sizeof(*incl));
	for (i = cp->slot_start[(size_t)r * p->nr_events + cp->ev];
	     i < cp->slot_start[(size_t)r * p->nr_events + cp->ev + 1]; i++) {
		const struct count *c = &p->counts[cp->by_slot ? cp->by_slot[i] : i];

		if (c->node >= p->nr_nodes)
			continue;
		incl[c->node] += (double)c->period;
		total += (double)c->period;
		ns += (double)c->samples;
	}
	*samples = ns;
	for (i = p->nr_nodes; i-- > 1;)
		incl[p->nodes[i].parent] += incl[i];
	if (scale > 0) {
		for (i = 1; i < p->nr_nodes; i++)
			cell[cp->rows[i]] += incl[i] * scale;
		return total * scale;
	}
	if (total > 0)
		for (i = 1; i < p->nr_nodes; i++)
			cell[cp->rows[i]] += 100 * incl[i] / total;
	return total > 0 ? 100 : 0;
}

/*
 * Every path's mean on each side, then what its test needs, without
 * keeping the rows x runs matrix (160 bytes a path at 20 runs, 180 MB for
 * two 10-run files of 573 k nodes): two sweeps over the columns, each
 * rebuilt from the counts.  The first sums (sum holds the sum, then the
 * mean) and counts each run's samples; the second, once the tested paths
 * are known (they depend on both sides' means), either keeps the cells of
 * the tested paths alone (test: tested row k's run j at
 * test[k * stride + j], j counting this side's runs from off) or, scaled,
 * sums squared deviations from the mean in column order as
 * stats__summary does (ss).  One side's columns are its own: the two
 * sides sweep on two threads.
 */
struct side_sweep {
	const struct cprof *cps;	/* the side's profiles */
	size_t ncp, nr, n;		/* profiles, rows, runs */
	const double *scale;		/* [run of the side] or NULL: shares */
	const bool *keep;		/* [run of the side] or NULL: every run */
	double *sum, *ss;
	double *nsamp;			/* [run the side keeps]: its samples of the event */
	double total;			/* out: the mean run total in the cells' unit */
	const uint32_t *tested;		/* second sweep, test: the tested rows, nt of them */
	size_t nt, stride, off;
	double *test;
};

/* Is run (of the side, over its files) compared: kept, and of a known factor when scaled? */
static bool run_counts(const double *scale, const bool *keep, size_t run)
{
	return (!keep || keep[run]) && (!scale || scale[run] > 0);
}

/* Call fn(w, the run's cells) for each run the side keeps, in order. */
static void side_sweep__each(struct side_sweep *w, void (*fn)(struct side_sweep *, const double *))
{
	size_t k, run, kept = 0, maxn = 1;
	double *incl, *cell = xmalloc((w->nr + 1) * sizeof(*cell));
	uint32_t r;

	for (k = 0; k < w->ncp; k++)
		if (w->cps[k].p->nr_nodes > maxn)
			maxn = w->cps[k].p->nr_nodes;
	incl = xmalloc(maxn * sizeof(*incl));
	for (k = 0, run = 0; k < w->ncp; k++)
		for (r = 0; r < w->cps[k].p->nr_runs; r++, run++) {
			double ns;

			if (!run_counts(w->scale, w->keep, run))
				continue;
			w->total += column(&w->cps[k], r, w->scale ? w->scale[run] : 0, incl, cell, w->nr, &ns);
			w->nsamp[kept++] = ns;
			fn(w, cell);
		}
	free(incl);
	free(cell);
}

static void add_cells(struct side_sweep *w, const double *cell)
{
	size_t i;

	for (i = 0; i < w->nr; i++)
		w->sum[i] += cell[i];
}

static void sweep_means(void *arg)
{
	struct side_sweep *w = arg;
	size_t i;

	w->total = 0;
	side_sweep__each(w, add_cells);
	for (i = 0; i < w->nr; i++)
		w->sum[i] /= (double)w->n;
	w->total /= (double)w->n;
}

static void add_squares(struct side_sweep *w, const double *cell)
{
	size_t i;

	for (i = 0; i < w->nr; i++) {
		double d = cell[i] - w->sum[i];

		w->ss[i] += d * d;
	}
}

/* The tested rows' cells of this run, at the side's next place. */
static void keep_tested(struct side_sweep *w, const double *cell)
{
	size_t k;

	for (k = 0; k < w->nt; k++)
		w->test[k * w->stride + w->off] = cell[w->tested[k]];
	w->off++;
}

static void sweep_tests(void *arg)
{
	struct side_sweep *w = arg;
	double total = w->total;

	side_sweep__each(w, w->test ? keep_tested : add_squares);
	w->total = total;
}

static void make_text(struct chain_diff *cd, struct chain_row *r)
{
	const char *names[MAX_FRAMES + 1], *renamed[MAX_FRAMES + 1];
	const struct profile *pn = r->file_new < cd->nnp ? cd->cur[r->file_new] : NULL;
	const struct profile *rp = chain_row__profile(cd, r);
	struct chain_row *top = r;
	double delta = chain_row__delta(r);
	uint32_t node = r->node, node_new = r->node_new;
	size_t nf = 0, depth, i;
	struct outbuf b = { 0 };
	bool cut;

	/* the change starts at the highest ancestor with about the same change */
	for (;;) {
		uint32_t pr = top->parent_row;

		if (pr == CHAIN_NO_PARENT || fabs(chain_row__delta(&cd->rows[pr])) > 1.1 * fabs(delta) ||
		    chain_row__delta(&cd->rows[pr]) * delta <= 0)
			break;
		top = &cd->rows[pr];
	}
	depth = rp->nodes[r->node].depth -
		chain_row__profile(cd, top)->nodes[top->node].depth + 1;
	if (top->parent_row != CHAIN_NO_PARENT)
		depth++;	/* one caller of context */
	cut = depth > MAX_FRAMES;
	if (cut)
		depth = MAX_FRAMES;
	if (pn == rp || (pn && node_new >= pn->nr_nodes))
		pn = NULL;
	while (nf < depth && node) {
		/* the same path in the new build: its frames pair one to one */
		names[nf] = profile__frame_sym(rp, rp->nodes[node].frame);
		renamed[nf] = pn && node_new ? profile__frame_sym(pn, pn->nodes[node_new].frame) : NULL;
		if (renamed[nf] && !strcmp(renamed[nf], names[nf]))
			renamed[nf] = NULL;
		nf++;
		node = rp->nodes[node].parent;
		node_new = pn ? pn->nodes[node_new].parent : 0;
	}
	if (cut)
		outbuf__printf(&b, "\xe2\x80\xa6 \xe2\x86\x92 ");
	for (i = nf; i-- > 0;) {
		if (renamed[i]) {
			outbuf__printf(&b, "(%s \xe2\x86\x92 %s)", names[i], renamed[i]);
			r->renamed = true;
		}
		else
			outbuf__puts(&b, names[i]);
		outbuf__printf(&b, "%s", i ? " \xe2\x86\x92 " : "");
	}
	r->text = b.s;
}

/*
 * Each tested scaled path's p (NAN untested) by limma's moderated t, as
 * diff tests keys that are not shares (diff.h): the pooled variance of the
 * path's runs shrunk to a prior fitted over every tested path at its level
 * (stats__fit_prior, trend on log level), on d0 + nb + nn - 2 degrees of
 * freedom.  Costs per op have no sampling variance to know; shares are
 * tested on the table's share model instead (diff__test_shares), which
 * knows it: on diff-sim's runs this test flagged a path in 8 % of A/A
 * pairs at 3 x 20 000 samples and found a function appearing at 5 points
 * in 61 % (test-chains-sim).  Tested: paths whose mean reaches 0.05 % of
 * the larger side's mean total on a side (floor_level), with >= 2 runs a
 * side.
 */
static void moderated_p(const struct chain_diff *cd, double *const ss[2], double floor_level, double *p)
{
	size_t i, n = 0, df = cd->nb + cd->nn - 2;
	double *s2 = NULL, *dfs = NULL, *cov = NULL;
	struct stat_prior pr;
	bool prior;

	for (i = 0; i < cd->nr; i++)
		p[i] = NAN;
	if (cd->novar)
		return;
	s2 = xmalloc((cd->nr + 1) * sizeof(*s2));
	dfs = xmalloc((cd->nr + 1) * sizeof(*dfs));
	cov = xmalloc((cd->nr + 1) * sizeof(*cov));
	for (i = 0; i < cd->nr; i++) {
		const struct chain_row *r = &cd->rows[i];
		double level = fmax(r->base, r->cur);

		if (level < floor_level)
			continue;
		s2[n] = (ss[0][i] + ss[1][i]) / (double)df;
		dfs[n] = (double)df;
		cov[n++] = log(level);
	}
	prior = stats__fit_prior(s2, dfs, cov, n, &pr) == 0;
	for (i = 0; i < cd->nr; i++) {
		const struct chain_row *r = &cd->rows[i];
		double level = fmax(r->base, r->cur), v, d, t, se;

		if (level < floor_level)
			continue;
		v = (ss[0][i] + ss[1][i]) / (double)df;
		d = (double)df;
		if (prior) {
			v = stats__posterior_var(&pr, v, d, log(level));
			d = isfinite(pr.d0) ? pr.d0 + d : INFINITY;
		}
		se = sqrt(v * (1.0 / (double)cd->nb + 1.0 / (double)cd->nn));
		if (!(se > 0)) {
			p[i] = chain_row__delta(r) ? 0 : 1;
			continue;
		}
		t = chain_row__delta(r) / se;
		p[i] = stats__t_p2(t, d);
	}
	free(s2);
	free(dfs);
	free(cov);
}

int chains__compute(struct chain_diff *cd, const struct profile *const *base, size_t nbp,
		    const struct profile *const *cur, size_t nnp, const char *event,
		    double min_points, double alpha, bool pair, const bool *const keep[2])
{
	return chains__compute_scaled(cd, base, nbp, cur, nnp, event, min_points, alpha, pair, NULL, keep,
				      NULL);
}

int chains__compute_scaled(struct chain_diff *cd, const struct profile *const *base, size_t nbp,
			   const struct profile *const *cur, size_t nnp, const char *event,
			   double min_points, double alpha, bool pair, const double *const scale[2],
			   const bool *const keep[2], const struct chain_views *views)
{
	struct cbuild b;
	struct cprof *cps;
	size_t i, used = 0, ncp = nbp + nnp;
	double *p = NULL, *q, *best, *sum[2], *ss[2], *nsamp;
	struct diff_opts o = { .alpha = alpha, .min_points = min_points, .test_floor = CHAINS_TEST_FLOOR };
	struct diff sd;
	uint32_t *tested = NULL;
	size_t run, rr, nruns, nt = 0;

	memset(cd, 0, sizeof(*cd));
	/* a dropped run, or (scaled) one of no factor (its work unknown), is left out of its side */
	for (i = 0, run = 0; i < nbp; i++)
		for (rr = 0; rr < base[i]->nr_runs; rr++, run++)
			cd->nb += run_counts(scale ? scale[0] : NULL, keep ? keep[0] : NULL, run);
	for (i = 0, run = 0; i < nnp; i++)
		for (rr = 0; rr < cur[i]->nr_runs; rr++, run++)
			cd->nn += run_counts(scale ? scale[1] : NULL, keep ? keep[1] : NULL, run);
	if (!cd->nb || !cd->nn)
		return -EINVAL;
	cd->novar = cd->nb < 2 || cd->nn < 2;
	/* runs recorded pair by pair are tested on their differences, as the table's rows */
	o.pair = pair && !scale;
	diff_opts__set_paired(&o, base, nbp, cur, nnp, keep, NULL, 0);
	cd->alpha = alpha;
	cd->cur = cur;
	cd->nnp = nnp;
	cd->base = base;
	cd->nbp = nbp;
	memset(&b, 0, sizeof(b));
	b.cd = cd;
	cbuild__grow(&b);
	cps = xcalloc(ncp, sizeof(*cps));
	for (i = 0; i < ncp; i++) {
		struct symview *const *vs = views ? views->side[i >= nbp] : NULL;

		cps[i].p = i < nbp ? base[i] : cur[i - nbp];
		cps[i].view = vs ? vs[i < nbp ? i : i - nbp] : NULL;
		if (cps[i].view && !cps[i].view->nodes)	/* released by a last reader */
			cps[i].view = NULL;
		cps[i].event = event;
	}
	{
		struct prep_half h0 = { cps, ncp, 0 }, h1 = { cps, ncp, 1 };

		in_parallel(prepare_half, &h1, prepare_half, &h0);
	}
	/* the paths are hashed: the views are read no more, and go before the rows are made */
	for (i = 0; views && views->last && i < ncp; i++)
		symview__release(cps[i].view);
	/*
	 * A row per distinct path: at most one per node of every profile.
	 * Reserved at once and not zeroed (XGROW zeroes its slack, which is
	 * then resident): only the rows made cost memory.  Growing by
	 * doubling was the peak of diff -g, 84 MB of rows for 46 MB used
	 * (two 10-run files of 573 k nodes) and a copy of half of it.
	 */
	for (i = 0; i < ncp; i++)
		cd->alloc += cps[i].ev == UINT32_MAX ? 0 : cps[i].p->nr_nodes;
	cd->rows = xmalloc((cd->alloc ? cd->alloc : 1) * sizeof(*cd->rows));
	for (i = 0; i < ncp; i++)
		used += add_profile(&b, &cps[i], (uint32_t)i, i < nbp ? UINT32_MAX : (uint32_t)(i - nbp));
	/* the rows are complete and know their parents: the index and the
	 * reserve go before the sweep's columns */
	free(b.slot);
	XSHRINK(cd->rows, cd->alloc, cd->nr);
	for (i = 0; i < ncp; i++)
		group_by_run(&cps[i]);
	if (!used) {
		for (i = 0; i < ncp; i++) {
			free(cps[i].by_slot);	/* NULL: no profile had the event */
			free(cps[i].slot_start);
		}
		free(cps);
		free(cd->rows);
		cd->rows = NULL;
		cd->alloc = 0;
		return -EINVAL;
	}
	for (i = 0; i < 2; i++) {
		sum[i] = xcalloc(cd->nr + 1, sizeof(*sum[i]));
		ss[i] = scale ? xcalloc(cd->nr + 1, sizeof(*ss[i])) : NULL;
	}
	for (i = 0, nruns = 0; i < ncp; i++)
		nruns += cps[i].p->nr_runs;
	nsamp = xcalloc(nruns + 1, sizeof(*nsamp));
	{
		/* nsamp: the kept runs' samples, base then new, as the share test reads them */
		struct side_sweep wb = { cps, nbp, cd->nr, cd->nb, scale ? scale[0] : NULL,
					 keep ? keep[0] : NULL, sum[0], ss[0], nsamp, 0, NULL, 0, 0, 0, NULL };
		struct side_sweep wn = { cps + nbp, nnp, cd->nr, cd->nn, scale ? scale[1] : NULL,
					 keep ? keep[1] : NULL, sum[1], ss[1], nsamp + cd->nb, 0, NULL, 0, 0, 0, NULL };

		in_parallel(sweep_means, &wn, sweep_means, &wb);
		cd->total[0] = wb.total;
		cd->total[1] = wn.total;
		for (i = 0; i < cd->nr; i++) {
			cd->rows[i].base = sum[0][i];
			cd->rows[i].cur = sum[1][i];
		}
		/* shares: the tested paths' cells, for the table's share test */
		if (!scale && !cd->novar) {
			tested = xmalloc((cd->nr + 1) * sizeof(*tested));
			for (i = 0; i < cd->nr; i++)
				if (fmax(sum[0][i], sum[1][i]) >= CHAINS_TEST_FLOOR)
					tested[nt++] = (uint32_t)i;
			diff__shares_init(&sd, nt, cd->nb, cd->nn, &o);
			wb.tested = wn.tested = tested;
			wb.nt = wn.nt = nt;
			wb.stride = wn.stride = cd->nb + cd->nn;
			wn.off = cd->nb;
			wb.test = wn.test = sd.values;
		}
		if (scale || !cd->novar)
			in_parallel(sweep_tests, &wn, sweep_tests, &wb);
	}
	for (i = 0; i < ncp; i++) {
		free(cps[i].rows);
		free(cps[i].by_slot);
		free(cps[i].slot_start);
	}
	free(cps);
	if (scale) {
		p = xmalloc((cd->nr + 1) * sizeof(*p));
		moderated_p(cd, ss, 0.0005 * fmax(cd->total[0], cd->total[1]), p);
	}
	/* the sums have given the rows their means: theirs is the memory the tests take */
	for (i = 0; i < 2; i++) {
		free(sum[i]);
		free(ss[i]);
	}
	if (scale) {
		q = xmalloc((cd->nr + 1) * sizeof(*q));
		stats__bh(p, cd->nr, q);
		free(p);
		for (i = 0; i < cd->nr; i++) {
			cd->rows[i].q = q[i];
			cd->rows[i].mde = NAN;
		}
		free(q);
	} else {
		char family[256];

		for (i = 0; i < cd->nr; i++)
			cd->rows[i].q = cd->rows[i].mde = NAN;
		snprintf(family, sizeof(family), "callchains.%s", event);
		if (tested) {
			diff__test_shares(&sd, family, nsamp);
			for (i = 0; i < nt; i++) {
				cd->rows[tested[i]].q = sd.rows[i].q;
				cd->rows[tested[i]].mde = sd.rows[i].mde;
			}
			diff__release(&sd);
		}
		free(tested);
	}
	free(nsamp);
	best = xcalloc(cd->nr + 1, sizeof(*best));
	/* the biggest same-direction change among each path's children */
	for (i = 0; i < cd->nr; i++) {
		struct chain_row *r = &cd->rows[i];
		uint32_t pr = r->parent_row;

		if (pr != CHAIN_NO_PARENT && chain_row__delta(r) * chain_row__delta(&cd->rows[pr]) > 0 &&
		    fabs(chain_row__delta(r)) > best[pr])
			best[pr] = fabs(chain_row__delta(r));
	}
	for (i = 0; i < cd->nr; i++) {
		struct chain_row *r = &cd->rows[i];

		/* q is shown, not used to hide: BH over every path of a deep trie is harsh */
		r->shown = fabs(chain_row__delta(r)) >= min_points &&
			   best[i] < 0.9 * fabs(chain_row__delta(r));
		if (r->shown)
			make_text(cd, r);
	}
	free(best);
	return 0;
}

void chains__release(struct chain_diff *cd)
{
	size_t i;

	for (i = 0; i < cd->nr; i++)
		free(cd->rows[i].text);
	free(cd->rows);
	memset(cd, 0, sizeof(*cd));
}
