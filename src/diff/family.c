/*
 * family: the noise model of one family of a diff's tested rows, fitted
 * before any of them is tested (see "Verdicts" in include/mmprof/diff.h).
 * For shares: the between-run spread phi and the shape of it that fits
 * best, each row's dispersion and weighted difference, and the runs of a
 * perf-profile.children family that disagree with their side (disturbed
 * runs).  For every family: the prior (limma's empirical Bayes, robustly)
 * and each row's moderated variance and degrees of freedom.  Work is
 * O(keys x runs) per evaluation of phi, 60 bisection steps a shape.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "mmprof/diff.h"
#include "mmprof/stats.h"
#include "mmprof/xalloc.h"

#include "diff-int.h"

/*
 * The scale of a share's between-run spread, in points^2: the share's
 * p (100 - p) / 100 squared, which is p^2 for the small shares and
 * (100 - p)^2 near 100 %, where what varies is the rest.
 */
static double spread_at(const struct fam *f, double level)
{
	double l = level * (100 - level) / 100;

	return f->shape == SHAPE_SQUARE ? l * l : level * (100 - level);
}

double fam__spread(const struct fam *f, double level)
{
	return spread_at(f, level);
}

static double share_spread(const struct fam *f, const struct trow *t)
{
	return spread_at(f, t->level);
}

/*
 * A SHARE row under the model: each run's variance is e_i = c / n_i (its
 * sampling) + phi * spread (between runs), so each side's mean is
 * weighted by 1 / e_i (a long run says more than a short one, but never
 * more than the spread between runs allows).  Returns the dispersion
 * (weighted squared residuals per df: 1 when the model holds); the
 * weighted difference, each side's variance of its mean and their
 * sampling part go to *fit when not NULL.
 */
struct share_fit {
	double delta, vb, vn, known;
};

/*
 * The same on a paired diff (diff.h): pair i's difference v[nb + i] -
 * v[i] has the variance e_i = c (1 / n_bi + 1 / n_ni) (both runs'
 * sampling) + phi * spread, phi now the spread of a pair's difference
 * beyond sampling (what the machine's drift, shared by the two runs of a
 * pair, leaves of twice the between-run spread); the differences'
 * weighted mean is the delta, its variance 1 / sum w (all in vb).
 */
static double share_dispersion_paired(const struct fam *f, const struct trow *t, const double *v,
				      size_t m, double phi, struct share_fit *fit)
{
	double extra = phi * share_spread(f, t), sw = 0, swy = 0, sw2s = 0, mean, ss = 0;
	size_t i;

	for (i = 0; i < m; i++) {
		double s = t->c * (f->inv_n[i] + f->inv_n[m + i]), e = s + extra, w = e > 0 ? 1 / e : 0;

		sw += w;
		swy += w * (v[m + i] - v[i]);
		sw2s += w * w * s;
	}
	mean = sw > 0 ? swy / sw : 0;
	for (i = 0; i < m; i++) {
		double e = t->c * (f->inv_n[i] + f->inv_n[m + i]) + extra, res = v[m + i] - v[i] - mean;

		ss += e > 0 ? res * res / e : 0;
	}
	if (fit) {
		fit->delta = mean;
		fit->vb = sw > 0 ? 1 / sw : 0;
		fit->vn = 0;
		fit->known = sw > 0 ? sw2s / (sw * sw) : 0;
	}
	return ss / (double)(m - 1);
}

static double share_dispersion(const struct fam *f, const struct trow *t, const double *v,
			       size_t nb, size_t nn, size_t pairs, double phi, struct share_fit *fit)
{
	double extra = phi * share_spread(f, t), sw[2] = { 0, 0 }, swy[2] = { 0, 0 };
	double sw2s[2] = { 0, 0 }, m[2], ss = 0;
	size_t i;

	if (pairs)
		return share_dispersion_paired(f, t, v, pairs, phi, fit);
	for (i = 0; i < nb + nn; i++) {
		double e = t->c * f->inv_n[i] + extra, w = e > 0 ? 1 / e : 0;
		int sd = i >= nb;

		sw[sd] += w;
		swy[sd] += w * v[i];
		sw2s[sd] += w * w * t->c * f->inv_n[i];
	}
	for (i = 0; i < 2; i++)
		m[i] = sw[i] > 0 ? swy[i] / sw[i] : 0;
	for (i = 0; i < nb + nn; i++) {
		double e = t->c * f->inv_n[i] + extra, res = v[i] - m[i >= nb];

		ss += e > 0 ? res * res / e : 0;
	}
	if (fit) {
		fit->delta = m[1] - m[0];
		fit->vb = sw[0] > 0 ? 1 / sw[0] : 0;
		fit->vn = sw[1] > 0 ? 1 / sw[1] : 0;
		fit->known = (sw[0] > 0 ? sw2s[0] / (sw[0] * sw[0]) : 0) +
			     (sw[1] > 0 ? sw2s[1] / (sw[1] * sw[1]) : 0);
	}
	return ss / (double)(nb + nn - 2);
}

/*
 * A SHARE row's dispersion about each side's own level (not the pooled
 * one, the level under "no change"): the key's spread as it is if it
 * changed.  A function at 0 on one side and 5 % on the other varies
 * like a 5 % share on that side, twice what the pooled 2.5 % expects.
 */
static double share_dispersion_sides(const struct fam *f, const double *v, size_t nb, size_t nn,
				     size_t pairs, double phi)
{
	double m[2] = { 0, 0 }, ss = 0;
	size_t i;

	for (i = 0; i < nb + nn; i++)
		m[i >= nb] += v[i] / (double)(i < nb ? nb : nn);
	if (pairs) {
		/* paired: each difference's sampling at its sides' levels, the spread at their mean */
		double lb = fmin(fmax(m[0], 0), 100), ln = fmin(fmax(m[1], 0), 100);
		double sp = phi * (spread_at(f, lb) + spread_at(f, ln)) / 2, delta = m[1] - m[0];

		for (i = 0; i < pairs; i++) {
			double e = lb * (100 - lb) * f->inv_n[i] + ln * (100 - ln) * f->inv_n[pairs + i] + sp;
			double res = v[pairs + i] - v[i] - delta;

			ss += e > 0 ? res * res / e : 0;
		}
		return ss / (double)(pairs - 1);
	}
	for (i = 0; i < nb + nn; i++) {
		double l = fmin(fmax(m[i >= nb], 0), 100), res = v[i] - m[i >= nb];
		double e = l * (100 - l) * f->inv_n[i] + phi * spread_at(f, l);

		ss += e > 0 ? res * res / e : 0;
	}
	return ss / (double)(nb + nn - 2);
}

enum { FAMILY_PRIOR_KEYS = 10 };

struct phi_key {
	const struct diff_row *r;
	const struct trow *t;
};

static int cmp_phi_key(const void *a, const void *b)
{
	const struct phi_key *x = a, *y = b;

	return x->t->level < y->t->level ? 1 : x->t->level > y->t->level ? -1 : 0;
}

/* The median dispersion of keys[0..use-1] at phi over its median under the model. */
static double phi_dispersion(struct tctx *x, const struct fam *f, const struct phi_key *keys,
			     size_t use, double phi)
{
	size_t nb = x->d->nb, nn = x->d->nn, i;
	double *r = x->phi_buf;

	for (i = 0; i < use; i++)
		r[i] = share_dispersion(f, keys[i].t,
					diff_row__test_values(keys[i].r, nb + nn, x->buf), nb, nn,
					x->d->pairs, phi, NULL);
	return stats__median(r, use) / stats__chisq_median_ratio(tctx__dfree(x));
}

/*
 * The family's between-run spread phi (a run's variance is its sampling
 * variance + phi * share_spread): the phi at which the median dispersion
 * of the upper half of its keys by level (where phi can show against the
 * sampling noise) is the median it has when the model holds.  A median,
 * not Pearson's mean: where stacks are broken (stripped code) a few small
 * keys swing several-fold from run to run, and a mean made every key as
 * noisy as they are (phi 0.83, a coefficient of variation of 0.9 at every
 * level, on a stripped stress-ng --vm pair, where a function at 64-90
 * points in every run of one side and 0 in every run of the other was
 * "can't tell"); those keys are then the prior's outliers and keep their
 * own dispersion.  Residuals are within a side, so keys that changed do
 * not inflate it; a disturbed run does, which makes the tests more
 * careful until the run is named and dropped.  keys are left sorted by
 * level, highest first.
 */
static double family_phi(struct tctx *x, size_t fi, struct phi_key *keys, size_t nk)
{
	const struct fam *f = &x->fam[fi];
	double lo = 0, hi = 1e-4;
	size_t use, it;

	qsort(keys, nk, sizeof(*keys), cmp_phi_key);
	if (nk < 3)
		return 0;
	use = nk / 2 >= 3 ? nk / 2 : nk;
	if (phi_dispersion(x, f, keys, use, 0) <= 1)
		return 0;
	while (phi_dispersion(x, f, keys, use, hi) > 1 && hi < 1e6)
		hi *= 4;
	for (it = 0; it < 60; it++) {
		double mid = (lo + hi) / 2;

		if (phi_dispersion(x, f, keys, use, mid) > 1)
			lo = mid;
		else
			hi = mid;
	}
	return (lo + hi) / 2;
}

/*
 * Runs whose values disagree with their side across the keys of a
 * perf-profile.children family: per run, the root mean square over the
 * keys given (the upper half by level, where the spread shows against
 * sampling) of its distance from its side's median in units of the
 * model's noise of that run; a run is named when that is at least
 * DIFF_DISTURBED times the typical run's (the median over all runs of
 * sides of 3 or more) and 1.5 noise units.  Sides of fewer than 3 runs
 * have no median to stand out from.
 */
static void family_disturbed(struct tctx *x, size_t fi, struct phi_key *keys, size_t nk)
{
	struct diff *d = x->d;
	const struct fam *f = &x->fam[fi];
	size_t nb = d->nb, nn = d->nn, n = nb + nn, i, k, j;
	double *score, *tmp, ref;

	if (nk < 10 || (nb < 3 && nn < 3))
		return;
	score = xcalloc(n, sizeof(*score));
	tmp = xmalloc((n + 1) * sizeof(*tmp));
	for (k = 0; k < nk; k++) {
		const struct trow *t = keys[k].t;
		const double *v = diff_row__test_values(keys[k].r, n, x->buf);
		double med[2];

		memcpy(tmp, v, nb * sizeof(*v));
		med[0] = stats__median(tmp, nb);
		memcpy(tmp, v + nb, nn * sizeof(*v));
		med[1] = stats__median(tmp, nn);
		for (i = 0; i < n; i++) {
			/* paired, phi is a difference's spread: a run holds half of it */
			double e = t->c * f->inv_n[i] + f->phi * share_spread(f, t) / (d->pairs ? 2 : 1);
			double dv = v[i] - med[i >= nb];

			score[i] += e > 0 ? dv * dv / e : 0;
		}
	}
	for (i = 0, j = 0; i < n; i++) {
		score[i] = sqrt(score[i] / (double)nk);
		if ((i < nb ? nb : nn) >= 3)
			tmp[j++] = score[i];
	}
	ref = stats__median(tmp, j);
	for (i = 0; i < n; i++) {
		int side = i >= nb;
		size_t run = side ? i - nb : i;
		double ratio = ref > 0 ? score[i] / ref : INFINITY;

		if ((side ? nn : nb) < 3 || score[i] < 1.5 || ratio < DIFF_DISTURBED)
			continue;
		for (j = 0; j < d->nr_disturbed; j++)
			if (d->disturbed[j].side == side && d->disturbed[j].run == run)
				break;
		if (j == d->nr_disturbed) {
			XGROW(d->disturbed, d->alloc_disturbed, d->nr_disturbed);
			d->disturbed[d->nr_disturbed++] = (struct diff_disturbed){ side, run, ratio, nk };
		} else if (ratio > d->disturbed[j].ratio) {
			d->disturbed[j].ratio = ratio;
			d->disturbed[j].keys = nk;
		}
	}
	free(tmp);
	free(score);
}

/*
 * The degrees of freedom of a share's standard error.  Its square is the
 * sampling variance, known from the runs' sample counts, plus the
 * between-run rest, estimated on t->df degrees of freedom; by
 * Satterthwaite, df = V^2 / (rest^2 / t->df), infinite when the sampling
 * explains it all.
 */
static double share_df(const struct trow *t)
{
	double v = t->post * (t->eb + t->en), rest = v - t->known;

	if (!(rest > 1e-12 * v))
		return INFINITY;
	return fmin(v * v / (rest * rest / t->df), 1e8);
}

/*
 * The shape of the family's between-run spread and its phi: of the two,
 * the one under which the keys' dispersions agree best (the least excess
 * scatter of log dispersion in the prior's fit, i.e. the largest prior
 * df).  Measured recordings show either, by workload and load.
 */
static void share_shape(struct tctx *x, size_t fi, struct phi_key *keys, size_t nk, double *s2,
			const double *df, const double *cov)
{
	struct fam *f = &x->fam[fi];
	size_t nb = x->d->nb, nn = x->d->nn, k;
	double best = INFINITY, best_phi = 0;
	int shape, best_shape = SHAPE_SQUARE;

	for (shape = SHAPE_SQUARE; shape <= SHAPE_COUNT; shape++) {
		struct stat_prior pr;

		f->shape = shape;
		f->phi = family_phi(x, fi, keys, nk);
		for (k = 0; k < nk; k++)
			s2[k] = share_dispersion(f, keys[k].t,
						 diff_row__test_values(keys[k].r, nb + nn, x->buf),
						 nb, nn, x->d->pairs, f->phi, NULL);
		if (stats__fit_prior(s2, df, nk >= 20 ? cov : NULL, nk, &pr) == 0 && pr.excess < best) {
			best = pr.excess;
			best_shape = shape;
			best_phi = f->phi;
		}
	}
	f->shape = best_shape;
	f->phi = best_phi;
}

/* phi, the dispersions, the prior and the moderated variances of family fi. */
void tctx__fit_family(struct tctx *x, size_t fi)
{
	struct diff *d = x->d;
	struct fam *f = &x->fam[fi];
	size_t nb = d->nb, nn = d->nn, n = nb + nn, i, k, nk = 0;
	double dfree = tctx__dfree(x);
	struct phi_key *keys = xmalloc((d->nr + 1) * sizeof(*keys));
	double *s2 = xmalloc((d->nr + 1) * sizeof(*s2)), *df = xmalloc((d->nr + 1) * sizeof(*df));
	double *cov = xmalloc((d->nr + 1) * sizeof(*cov));
	bool *out = xcalloc(d->nr + 1, sizeof(*out));

	for (i = 0; i < d->nr; i++)
		if (x->t[i].tested && x->t[i].fam == fi)
			keys[nk++] = (struct phi_key){ &d->rows[i], &x->t[i] };
	f->m = nk;
	x->phi_buf = xrealloc(x->phi_buf, (nk + 1) * sizeof(*x->phi_buf));
	for (k = 0; k < nk; k++) {
		df[k] = dfree;
		cov[k] = log(keys[k].t->level > 1e-3 ? keys[k].t->level : 1e-3);
	}
	if (f->scale == SCALE_SHARE)
		share_shape(x, fi, keys, nk, s2, df, cov);
	if (f->scale == SCALE_SHARE) {
		for (k = 0; k < nk; k++) {
			struct trow *t = (struct trow *)keys[k].t;
			struct share_fit sf;

			t->s2 = share_dispersion(f, t, diff_row__test_values(keys[k].r, n, x->buf),
						 nb, nn, d->pairs, f->phi, &sf);
			t->delta = sf.delta;
			t->s2alt = share_dispersion_sides(f, diff_row__test_values(keys[k].r, n, x->buf),
							  nb, nn, d->pairs, f->phi);
			t->eb = sf.vb;
			t->en = sf.vn;
			t->known = sf.known;
		}
	}
	for (k = 0; k < nk; k++)
		s2[k] = keys[k].t->s2;
	/*
	 * limma-trend for shares, whose spread may follow their level.  Fewer
	 * than FAMILY_PRIOR_KEYS keys say too little about how variances
	 * scatter (the moments of 4 log variances can put d0 anywhere): each
	 * key then keeps its own variance and df.
	 */
	f->have_prior = nk >= FAMILY_PRIOR_KEYS &&
			stats__fit_prior(s2, df, (f->scale == SCALE_SHARE || f->trend) && nk >= 20 ? cov : NULL,
					 nk, &f->prior) == 0;
	/*
	 * Robustly (in the spirit of limma's robust = TRUE): a key far noisier
	 * than the prior allows (upper tail < 0.01, e.g. timer interrupts that
	 * land where they will) would be shrunk to a noise it does not have,
	 * and would widen the prior for everyone else.  The prior is fitted
	 * again without such keys.  A share among them is held at its own
	 * dispersion by the floor below, with the prior's df (on its own 4 df
	 * a moved 11 % leaf of a loaded machine was "can't tell" at 16 % of
	 * 20 000 samples); another key keeps its own variance and df.
	 */
	if (f->have_prior) {
		size_t nout = 0;

		for (k = 0; k < nk; k++) {
			double s0 = stats__prior_var(&f->prior, cov[k]);

			out[k] = s2[k] > 0 && s0 > 0 &&
				 stats__f_upper(s2[k] / s0, dfree, f->prior.d0) < 0.01;
			if (out[k]) {
				s2[k] = 0;	/* out of the refit */
				nout++;
			}
		}
		if (nout)
			f->have_prior = stats__fit_prior(s2, df, (f->scale == SCALE_SHARE || f->trend) && nk >= 20 ? cov : NULL,
							 nk, &f->prior) == 0;
	}
	for (k = 0; k < nk; k++) {
		struct trow *t = (struct trow *)keys[k].t;
		bool own = !f->have_prior || (out[k] && f->scale != SCALE_SHARE);

		if (t->exact) {
			/* its print's rounding is all its noise, known (eb, en: verdict.c) */
			t->post = 1;
			t->df = INFINITY;
			continue;
		}
		t->post = own ? t->s2 : stats__posterior_var(&f->prior, t->s2, dfree, cov[k]);
		/*
		 * Never below the key's own spread about its sides' levels: a
		 * key noisier than the family's prior at its level (the top of
		 * the tree, whose split between subtrees varies from run to run
		 * more than the keys around it) is not shrunk into false flags.
		 */
		if (f->scale == SCALE_SHARE && t->post < t->s2alt)
			t->post = t->s2alt;
		t->df = (t->runs ? (double)t->runs - 2 : dfree) + (own ? 0 : f->prior.d0);
		/* never less noisy than the sampling, nor than Poisson counts */
		if (f->scale == SCALE_SHARE && t->post < 1)
			t->post = 1;
		/* a pair's difference: the floor of both its runs */
		if (t->post < t->vfloor * (d->pairs && !t->runs ? 2 : 1))
			t->post = t->vfloor * (d->pairs && !t->runs ? 2 : 1);
		if (f->scale == SCALE_SHARE)
			t->df = share_df(t);
	}
	if (f->scale == SCALE_SHARE && f->children)
		family_disturbed(x, fi, keys, nk / 2);	/* the upper half by level (sorted so by family_phi), where spread shows */
	free(out);
	free(cov);
	free(df);
	free(s2);
	free(keys);
}
