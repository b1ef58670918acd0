/*
 * presence: a share that is 0 in every run of one side and clearly
 * present in every run of the other is judged on that (issue 32;
 * Documentation/statistics.md, "Absent from every run of one side").
 *
 * The share test (verdict.c, family.c) is a normal approximation on the
 * shares, its variance the sampling plus the family's spread phi at the
 * pooled level.  Where the family swings (a stripped program, whose
 * named part moves from run to run), phi at a few points is a spread of
 * several points, and 0 against 0.7-1.7 points (15 samples a run) in
 * every run was "can't tell q=0.34": a normal curve that puts half its
 * mass below zero cannot say that a count of 0, three times, is unlikely
 * for a key seen 15 times in every run of the other side.
 *
 * The test here asks that directly, on the counts.  Under "no change"
 * both sides share one rate p; each run's own rate varies about it as a
 * gamma of the variance the share test gives a run at p, r (c(p) / n +
 * phi shape(p)) less the run's Poisson sampling c(p) / n, r the row's
 * moderated dispersion (at least 1: at least the family's spread), and
 * the run's count of its n samples is Poisson at its rate: a negative
 * binomial.  The statistic is T = the least share over the runs of the
 * present side when every run of the other is 0; P(T >= t) is the
 * product over the runs of P(count = 0) and P(count >= t n / 100), and
 * its largest value over p (the rate is unknown) is the p of the
 * observed t, twice over (either side may be the absent one).  It is
 * valid for any p, so it is a p-value whatever the shared rate is.
 *
 * "Clearly present": every run of the present side holds at least
 * PRESENCE_MIN_SAMPLES samples of the key.  verdict.c takes the smaller
 * of this p and the share test's; under no change that differs from the
 * share test's only when the pattern occurs, whose chance is at most this
 * test's p at the least pattern it takes (5 samples in every run): 1e-6
 * at 3 runs a side, and that bounds what it adds to the false discovery
 * rate (statistics.md has the figures).  At 1 or 2 samples a run the
 * pattern is common under no change (0.03 at 1 sample, 3 runs a side),
 * too common for the bound to mean anything.
 *
 * Work: only rows that show the pattern, each a few hundred evaluations
 * of the product over the runs.
 */
#include <math.h>
#include <stdlib.h>

#include "mmprof/diff.h"
#include "mmprof/stats.h"
#include "mmprof/xalloc.h"

#include "diff-int.h"

#define PRESENCE_MIN_SAMPLES 5

struct presence {
	const struct fam *f;
	double post;		/* the row's moderated dispersion */
	size_t n;
	const double *m;	/* per run, its samples */
	double *need;		/* per run, the count it must reach, 0: it must be 0 */
};

/* log P(every run as it must be | shared rate level) */
static double rect_log(const struct presence *ps, double level)
{
	double c = level * (100 - level), sp = ps->f->phi * fam__spread(ps->f, level), sum = 0;
	size_t i;

	for (i = 0; i < ps->n; i++) {
		double m = ps->m[i], lam = m * level / 100;
		double v = ps->post * (c / m + sp) - c / m;	/* a run's rate, points^2 */
		double var = v > 0 ? v * (m / 100) * (m / 100) : 0;	/* its expected count's */

		sum += ps->need[i] > 0 ? stats__nb_log_tail(lam, var, ps->need[i])
				       : stats__nb_log_p0(lam, var);
		if (sum == -INFINITY)
			break;
	}
	return sum;
}

/* The largest rect_log over the shared rate: a grid on the log scale, then a golden section. */
static double rect_sup(const struct presence *ps)
{
	enum { GRID = 97 };
	const double lo = log(1e-6), hi = log(100), step = (hi - lo) / (GRID - 1);
	const double g = (sqrt(5) - 1) / 2;
	double best = -INFINITY, a, b, x1, x2, f1, f2;
	int i, bi = 0, it;

	for (i = 0; i < GRID; i++) {
		double l = rect_log(ps, exp(lo + i * step));

		if (l > best) {
			best = l;
			bi = i;
		}
	}
	a = lo + (bi > 0 ? bi - 1 : 0) * step;
	b = lo + (bi < GRID - 1 ? bi + 1 : GRID - 1) * step;
	x1 = b - g * (b - a);
	x2 = a + g * (b - a);
	f1 = rect_log(ps, exp(x1));
	f2 = rect_log(ps, exp(x2));
	for (it = 0; it < 40; it++) {
		if (f1 > f2) {
			b = x2;
			x2 = x1;
			f2 = f1;
			x1 = b - g * (b - a);
			f1 = rect_log(ps, exp(x1));
		} else {
			a = x1;
			x1 = x2;
			f1 = f2;
			x2 = a + g * (b - a);
			f2 = rect_log(ps, exp(x2));
		}
	}
	return fmax(best, fmax(f1, f2));
}

/*
 * P(T >= t) at its worst rate with side zero absent (every run 0) and
 * the other's runs at least t points.
 */
static double direction_p(struct presence *ps, size_t nb, int zero, double t)
{
	size_t i;

	for (i = 0; i < ps->n; i++)
		ps->need[i] = (int)(i >= nb) == zero ? 0 : fmax(1, ceil(t * ps->m[i] / 100 - 1e-6));
	return exp(rect_sup(ps));
}

double tctx__presence_p(struct tctx *x, size_t i)
{
	const struct diff *d = x->d;
	const struct trow *t = &x->t[i];
	const struct fam *f = &x->fam[t->fam];
	size_t nb = d->nb, nn = d->nn, n = nb + nn, j;
	const double *v;
	double *m, tmin = INFINITY, p;
	bool zero[2] = { true, true }, full[2] = { true, true };
	int side;

	if (f->scale != SCALE_SHARE || d->pairs || !nb || !nn)
		return 1;
	v = diff_row__test_values(&d->rows[i], n, x->buf);
	for (j = 0; j < n; j++) {
		zero[j >= nb] &= v[j] == 0;
		full[j >= nb] &= v[j] > 0;
	}
	if (zero[0] && full[1])
		side = 0;
	else if (zero[1] && full[0])
		side = 1;
	else
		return 1;
	m = xmalloc(2 * n * sizeof(*m));
	for (j = 0; j < n; j++) {
		m[j] = 1 / f->inv_n[j];
		if ((int)(j >= nb) == side)
			continue;
		/* the least share of the present side, each run's a count of its samples */
		if (floor(v[j] * m[j] / 100 + 0.5) < PRESENCE_MIN_SAMPLES) {
			free(m);
			return 1;
		}
		tmin = fmin(tmin, v[j]);
	}
	{
		struct presence ps = { f, t->post, n, m, m + n };

		/* either side may be the one absent: the two events are apart */
		p = direction_p(&ps, nb, side, tmin) + direction_p(&ps, nb, !side, tmin);
	}
	free(m);
	return fmin(1, p);
}
