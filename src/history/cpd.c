/*
 * cpd: change points of one series by PELT (history.h), exact penalised
 * segmentation under a Gaussian likelihood with known variances.
 *
 * Why PELT and not E-divisive (Documentation/history.md): the noise of a
 * commit's mean is known here (the noise model gives each its variance,
 * from the runs' spread and their sample counts), which is exactly what a
 * likelihood needs and what E-divisive's rank statistic throws away;
 * PELT's penalty sets the false-alarm rate directly, with no permutations
 * (E-divisive's test costs hundreds of passes per split: too slow for
 * every key of a benchmark), and it is exact, not greedy.
 *
 * The cost of a segment is its weighted sum of squares about its weighted
 * mean (-2 log likelihood up to a constant), from prefix sums in O(1);
 * splitting a segment never raises it, so PELT's pruning holds with no
 * constant (Killick et al.'s K = 0).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "mmprof/history.h"
#include "mmprof/xalloc.h"

struct prefix {
	double *w, *wy, *wy2;	/* [n + 1] */
};

static double seg_cost(const struct prefix *p, size_t a, size_t b)
{
	double w = p->w[b] - p->w[a], wy = p->wy[b] - p->wy[a], wy2 = p->wy2[b] - p->wy2[a];

	return w > 0 ? wy2 - wy * wy / w : 0;
}

void cpd__level(const double *y, const double *w, size_t a, size_t b, double *mean, double *var)
{
	double sw = 0, swy = 0;
	size_t i;

	for (i = a; i < b; i++)
		sw += w[i], swy += w[i] * y[i];
	*mean = sw > 0 ? swy / sw : NAN;
	*var = sw > 0 ? 1 / sw : INFINITY;
}

/* Drop the change point whose levels differ least while that is under min_change; the count left. */
static size_t cpd__floor(const double *y, const double *w, size_t n, size_t *cp, size_t k, double min_change)
{
	while (k) {
		size_t i, best = 0;
		double least = INFINITY;

		for (i = 0; i < k; i++) {
			double m1, m2, v;

			cpd__level(y, w, i ? cp[i - 1] : 0, cp[i], &m1, &v);
			cpd__level(y, w, cp[i], i + 1 < k ? cp[i + 1] : n, &m2, &v);
			if (fabs(m2 - m1) < least)
				least = fabs(m2 - m1), best = i;
		}
		if (!(least < min_change))
			break;
		memmove(cp + best, cp + best + 1, (k - best - 1) * sizeof(*cp));
		k--;
	}
	return k;
}

size_t cpd__find(const double *y, const double *w, size_t n, const struct cpd_opts *o, size_t *cp)
{
	double beta = o && o->penalty > 0 ? o->penalty : CPD_PENALTY;
	size_t m = o && o->min_segment ? o->min_segment : CPD_MIN_SEGMENT;
	struct prefix p;
	double *f;
	size_t *last, *r, *kill, nr = 0, t, i, k = 0;

	if (n < 2 * m)
		return 0;
	p.w = xcalloc(n + 1, sizeof(double));
	p.wy = xcalloc(n + 1, sizeof(double));
	p.wy2 = xcalloc(n + 1, sizeof(double));
	for (i = 0; i < n; i++) {
		p.w[i + 1] = p.w[i] + w[i];
		p.wy[i + 1] = p.wy[i] + w[i] * y[i];
		p.wy2[i + 1] = p.wy2[i] + w[i] * y[i] * y[i];
	}
	f = xcalloc(n + 1, sizeof(*f));
	last = xcalloc(n + 1, sizeof(*last));
	r = xcalloc(n + 1, sizeof(*r));
	kill = xcalloc(n + 1, sizeof(*kill));
	f[0] = -beta;
	for (t = m; t <= n; t++) {
		double best = INFINITY;
		size_t arg = 0, keep = 0;

		/* a segment may end at t - m: it is a candidate start from here on */
		if (t - m == 0 || t - m >= m)
			r[nr++] = t - m;
		for (i = 0; i < nr; i++)
			if (!kill[r[i]] || kill[r[i]] > t)
				r[keep++] = r[i];
		nr = keep;
		for (i = 0; i < nr; i++) {
			double c = f[r[i]] + seg_cost(&p, r[i], t) + beta;

			if (c < best)
				best = c, arg = r[i];
		}
		f[t] = best;
		last[t] = arg;
		/*
		 * Prune: a start s with F(s) + C(s, t) > F(t) can never beat t as
		 * the last change point before an end T, once t may be one: from
		 * T = t + m on (segments of at least m).  Before that it stays.
		 */
		for (i = 0; i < nr; i++)
			if (f[r[i]] + seg_cost(&p, r[i], t) > best && !kill[r[i]])
				kill[r[i]] = t + m;
	}
	for (t = last[n]; t > 0; t = last[t])
		cp[k++] = t;
	for (i = 0; i < k / 2; i++) {
		size_t x = cp[i];

		cp[i] = cp[k - 1 - i];
		cp[k - 1 - i] = x;
	}
	if (o && o->min_change > 0)
		k = cpd__floor(y, w, n, cp, k, o->min_change);
	free(p.w);
	free(p.wy);
	free(p.wy2);
	free(f);
	free(last);
	free(r);
	free(kill);
	return k;
}
