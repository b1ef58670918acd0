/*
 * noise: the variance of each commit's mean of a key (history.h's noise
 * model), from the runs within commits and the commits' differences.
 *
 * Why a model and not one pooled number: a key's noise follows its level.
 * A function's share varies more at 60 % than at 10 % (its sampling, and
 * a run's over-dispersion, grow with p (100 - p)), so a series that steps
 * from 10 % to 60 % for ten commits had its plateau judged by the noise of
 * the 10 % commits, the majority: a fresh-clone make check cut
 * cost_mix_hot's 70 % plateau at two more commits (t332 13, 22).  Here each
 * commit's noise is the model's at its own level, as diff's is at a row's:
 *
 *   a run's variance    e(c) = samp(c) + phi g(level(c))
 *   a commit's mean     V(c) = e(c) d(c) / m(c) + rho h(level(c))
 *
 * samp is the binomial sampling of a share (known from the runs' sample
 * counts; 0 for other keys); phi the between-run spread beyond it,
 * fitted (robustly: the median of the commits' dispersions, as diff fits
 * a family's phi) from the replicate runs within commits, which a step
 * does not touch; d(c) a commit's own dispersion s^2 / e, shrunk to the
 * series' prior (stats__fit_prior, limma's empirical Bayes, diff's code)
 * and never below 1, so that a commit whose runs disagree says less;
 * rho the spread between commits beyond what their runs show (runs
 * recorded at other times differ more than runs recorded together), from
 * successive commits' differences (their median: a step moves one).
 *
 * The shape g (and h) of the spread in the level is not known from one
 * key: diff picks one per family of hundreds of keys; a series of one
 * key at two levels cannot tell them apart.  So three are fitted, and
 * each commit takes the largest: at the level of most commits they
 * agree (each is fitted there), and at a level few commits have, the
 * one that says more noise holds.  They are
 *   flat:  the same spread in points at every level;
 *   logit: (p (100 - p) / 100)^2, a constant spread of the log odds
 *          (two functions trading time; diff's count shape, p (100 - p),
 *          lies between it and flat);
 *   proportional: p^2, a constant coefficient of variation: a run's
 *          named part swings and moves every share of the run by one
 *          factor (a run bounded by time on a busy machine gets less
 *          CPU, and its start-up's fixed cost a larger part of it:
 *          cost_mix_hot 60 -> 40 % at a busy commit, 8 -> 5 % at the
 *          other level, in recordings beside four engineers' builds;
 *          the logit shape, fitted at 8 %, gives 60 % a third of that
 *          spread, and the plateau's two busy commits were a step).
 * Keys other than shares are on their scan's scale (log for relative
 * keys), where the spread is taken flat.
 *
 * Work: O(n log n) per evaluation, some 40 evaluations per shape.
 */
#include <math.h>
#include <stdlib.h>

#include "mmprof/history.h"
#include "mmprof/stats.h"
#include "mmprof/xalloc.h"

enum { SHAPE_FLAT, SHAPE_LOGIT, SHAPE_PROP, NR_SHAPES };

/* Commits each side whose dispersions a commit's is at least the mean of. */
#define NOISE_WINDOW 5

/* The median of chi-square(1): of a difference's square over its variance. */
#define CHISQ1_MEDIAN 0.45493642311957

static double shape_at(int shape, double level)
{
	double l = level * (100 - level) / 100;

	switch (shape) {
	case SHAPE_LOGIT:
		return l * l;
	case SHAPE_PROP:
		return level * level / 100;
	default:
		return 1;
	}
}

/*
 * The root of f(x) - 1 for f decreasing in x >= 0: 0 when f(0) <= 1;
 * found from guess by steps of 4 up and down, then bisection on log x
 * to 1e-3 (a variance to 0.1 % is plenty; to 1e-6, the scan of 200 keys
 * of 1,000 commits took 0.86 s of CPU, 0.72 s so).  f's context is arg.
 */
static double solve_decreasing(double (*f)(double x, void *arg), void *arg, double guess)
{
	double lo, hi;
	int i;

	if (f(0, arg) <= 1)
		return 0;
	hi = guess > 1e-300 && isfinite(guess) ? guess : 1e-12;
	while (f(hi, arg) > 1 && hi < 1e300)
		hi *= 4;
	lo = hi;
	while (f(lo, arg) <= 1 && lo > 1e-300)
		lo /= 4;
	if (lo <= 1e-300)
		return 0;
	for (i = 0; i < 60 && hi > lo * (1 + 1e-3); i++) {
		double mid = sqrt(lo * hi);

		if (f(mid, arg) > 1)
			lo = mid;
		else
			hi = mid;
	}
	return sqrt(lo * hi);
}

struct fit {
	const struct history_noise_point *p;
	size_t n;
	int shape;
	const double *w;	/* the commits' within variance (rho's fit) */
	double *buf;		/* n doubles */
};

/* phi's criterion: the median dispersion of the commits with replicates, over its median under the model. */
static double within_disp(double phi, void *arg)
{
	struct fit *x = arg;
	size_t i, k = 0;

	for (i = 0; i < x->n; i++) {
		const struct history_noise_point *q = &x->p[i];
		double e = q->samp + phi * shape_at(x->shape, q->level);

		if (q->m < 2)
			continue;
		x->buf[k++] = (e > 0 ? q->s2 / e : q->s2 > 0 ? INFINITY : 0) /
			      stats__chisq_median_ratio((double)(q->m - 1));
	}
	return stats__median(x->buf, k);
}

/* rho's criterion: the median of successive differences' squares over their variance, over chi-square(1)'s. */
static double between_disp(double rho, void *arg)
{
	struct fit *x = arg;
	size_t i;

	for (i = 0; i + 1 < x->n; i++) {
		double d = x->p[i + 1].y - x->p[i].y;
		double v = x->w[i] + x->w[i + 1] +
			   rho * (shape_at(x->shape, x->p[i].level) + shape_at(x->shape, x->p[i + 1].level));

		x->buf[i] = (v > 0 ? d * d / v : d != 0 ? INFINITY : 0) / CHISQ1_MEDIAN;
	}
	return stats__median(x->buf, x->n - 1);
}

/* A first guess of a scale: the median of what each term alone would need. */
static double guess(const double *num, const double *den, size_t n, double *buf)
{
	size_t i, k = 0;

	for (i = 0; i < n; i++)
		if (den[i] > 0 && num[i] > 0)
			buf[k++] = num[i] / den[i];
	return k ? stats__median(buf, k) : 1;
}

/* phi per shape (into fit), and each commit's run variance e, the largest of the shapes'. */
static void fit_runs(struct fit *x, int shapes, double *num, double *den, double *e, struct history_noise *fit)
{
	const struct history_noise_point *p = x->p;
	size_t i, reps = 0;

	for (i = 0; i < x->n; i++)
		reps += p[i].m >= 2;
	for (x->shape = 0; x->shape < shapes; x->shape++) {
		int s = x->shape;

		for (i = 0; i < x->n; i++) {
			num[i] = p[i].m >= 2 ? p[i].s2 - p[i].samp : 0;
			den[i] = shape_at(s, p[i].level);
		}
		fit->phi[s] = reps ? solve_decreasing(within_disp, x, guess(num, den, x->n, x->buf)) : 0;
		for (i = 0; i < x->n; i++)
			e[i] = fmax(e[i], p[i].samp + fit->phi[s] * shape_at(s, p[i].level));
	}
}

/*
 * Each commit's variance of its mean from its runs, into w: e times its
 * dispersion (its own, shrunk to the series' prior; at least the mean of
 * its neighbours'; never below 1) over its runs.  d, df, post: n doubles.
 */
static void commit_within(const struct history_noise_point *p, size_t n, const double *e, double *d, double *df,
			  double *post, double *w, struct history_noise *fit)
{
	struct stat_prior pr;
	size_t i, k = 0;
	bool have_prior;

	for (i = 0; i < n; i++)
		if (p[i].m >= 2 && e[i] > 0) {
			d[k] = p[i].s2 / e[i];
			df[k++] = (double)(p[i].m - 1);
		}
	have_prior = stats__fit_prior(d, df, NULL, k, &pr) == 0;
	if (have_prior)
		fit->d0 = pr.d0;
	for (i = 0; i < n; i++) {
		d[i] = p[i].m >= 2 && e[i] > 0 ? p[i].s2 / e[i] : 1;
		post[i] = !have_prior ? 1 : p[i].m >= 2 && e[i] > 0 ?
				stats__posterior_var(&pr, d[i], (double)(p[i].m - 1), 0) : stats__prior_var(&pr, 0);
	}
	/*
	 * A stretch of commits noisier than the series (the machine busier
	 * for a while, the spread of a level few commits have) says so
	 * together: a commit's dispersion is at least the mean of the
	 * NOISE_WINDOW commits each side (the spread tripling mid-series was
	 * 5 false change points in 2,000 commits of the validation without).
	 */
	for (i = 0; i < n; i++) {
		size_t a = i > NOISE_WINDOW ? i - NOISE_WINDOW : 0;
		size_t b = i + NOISE_WINDOW + 1 < n ? i + NOISE_WINDOW + 1 : n, j;
		double sum = 0;

		for (j = a; j < b; j++)
			sum += d[j];
		w[i] = e[i] * fmax(fmax(post[i], sum / (double)(b - a)), 1) / (double)(p[i].m ? p[i].m : 1);
	}
}

/* rho per shape (into fit), from the differences of successive commits whose within variance is x->w. */
static void fit_between(struct fit *x, int shapes, double *num, double *den, struct history_noise *fit)
{
	const struct history_noise_point *p = x->p;
	size_t i;

	for (x->shape = 0; x->shape < shapes && x->n >= 4; x->shape++) {
		int s = x->shape;

		for (i = 0; i + 1 < x->n; i++) {
			double dy = p[i + 1].y - p[i].y;

			num[i] = dy * dy / 2 - (x->w[i] + x->w[i + 1]) / 2;
			den[i] = (shape_at(s, p[i].level) + shape_at(s, p[i + 1].level)) / 2;
		}
		fit->rho[s] = solve_decreasing(between_disp, x, guess(num, den, x->n - 1, x->buf));
	}
}

void history__noise(const struct history_noise_point *p, size_t n, bool share, double *v,
		    struct history_noise *out)
{
	struct fit x = { .p = p, .n = n, .buf = xcalloc(n + 1, sizeof(double)) };
	double *num = xcalloc(n + 1, sizeof(double)), *den = xcalloc(n + 1, sizeof(double));
	double *d = xcalloc(n + 1, sizeof(double)), *df = xcalloc(n + 1, sizeof(double));
	double *e = xcalloc(n + 1, sizeof(double)), *w = xcalloc(n + 1, sizeof(double));
	double *post = xcalloc(n + 1, sizeof(double));
	int shapes = share ? NR_SHAPES : 1, s;
	struct history_noise fit = { .d0 = NAN };
	size_t i;

	fit_runs(&x, shapes, num, den, e, &fit);
	commit_within(p, n, e, d, df, post, w, &fit);
	x.w = w;
	fit_between(&x, shapes, num, den, &fit);
	for (i = 0; i < n; i++) {
		double between = 0;

		for (s = 0; s < shapes; s++)
			between = fmax(between, fit.rho[s] * shape_at(s, p[i].level));
		v[i] = w[i] + between;
	}
	if (out)
		*out = fit;
	free(x.buf);
	free(num);
	free(den);
	free(d);
	free(df);
	free(e);
	free(w);
	free(post);
}
