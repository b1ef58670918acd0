/*
 * stats: summaries, Welch's t-test, Benjamini-Hochberg, the robot's filter.
 * See include/mmprof/stats.h.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "mmprof/stats.h"
#include "mmprof/xalloc.h"

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

void stats__summary(const double *v, size_t n, double *scratch, struct stat_summary *s)
{
	double sum = 0, ss = 0, mean;
	size_t i;

	memset(s, 0, sizeof(*s));
	s->n = n;
	if (!n)
		return;
	for (i = 0; i < n; i++)
		sum += v[i];
	mean = sum / (double)n;
	/* two passes: the one-pass formula loses digits when mean >> sd */
	for (i = 0; i < n; i++)
		ss += (v[i] - mean) * (v[i] - mean);
	s->mean = mean;
	s->sd = sqrt(ss / (double)n);
	s->var1 = n > 1 ? ss / (double)(n - 1) : 0;
	memcpy(scratch, v, n * sizeof(*v));
	qsort(scratch, n, sizeof(*scratch), cmp_double);
	s->min = scratch[0];
	s->max = scratch[n - 1];
	s->median = n % 2 ? scratch[n / 2] : (scratch[n / 2 - 1] + scratch[n / 2]) / 2;
}

/*
 * Continued fraction for I_x(a,b) by the modified Lentz method
 * (Numerical Recipes' betacf); converges fast for x < (a+1)/(a+b+2).
 */
static double betacf(double a, double b, double x)
{
	const double tiny = 1e-300, eps = 1e-16;
	double qab = a + b, qap = a + 1, qam = a - 1;
	double c = 1, d = 1 - qab * x / qap, h;
	int m;

	if (fabs(d) < tiny)
		d = tiny;
	d = 1 / d;
	h = d;
	for (m = 1; m <= 10000; m++) {
		int m2 = 2 * m;
		double aa = m * (b - m) * x / ((qam + m2) * (a + m2)), del;

		d = 1 + aa * d;
		if (fabs(d) < tiny)
			d = tiny;
		c = 1 + aa / c;
		if (fabs(c) < tiny)
			c = tiny;
		d = 1 / d;
		h *= d * c;
		aa = -(a + m) * (qab + m) * x / ((a + m2) * (qap + m2));
		d = 1 + aa * d;
		if (fabs(d) < tiny)
			d = tiny;
		c = 1 + aa / c;
		if (fabs(c) < tiny)
			c = tiny;
		d = 1 / d;
		del = d * c;
		h *= del;
		if (fabs(del - 1) < eps)
			break;
	}
	return h;
}

double stats__betai(double a, double b, double x)
{
	double lbt;

	if (!(a > 0) || !(b > 0) || !(x >= 0) || !(x <= 1))
		return NAN;
	if (x == 0 || x == 1)
		return x;
	lbt = lgamma(a + b) - lgamma(a) - lgamma(b) + a * log(x) + b * log1p(-x);
	/* use the symmetry I_x(a,b) = 1 - I_{1-x}(b,a) where the fraction converges */
	if (x < (a + 1) / (a + b + 2))
		return exp(lbt) * betacf(a, b, x) / a;
	return 1 - exp(lbt) * betacf(b, a, 1 - x) / b;
}

double stats__t_p2(double t, double df)
{
	if (isnan(t) || !(df > 0))
		return NAN;
	if (isinf(t))
		return 0;
	/* P(|T| > t) = I_{df/(df+t^2)}(df/2, 1/2) */
	return stats__betai(df / 2, 0.5, df / (df + t * t));
}

int stats__welch(const struct stat_summary *a, const struct stat_summary *b, struct welch *w)
{
	double va, vb, se2;

	if (a->n < 2 || b->n < 2)
		return -EINVAL;
	va = a->var1 / (double)a->n;
	vb = b->var1 / (double)b->n;
	se2 = va + vb;
	if (!(se2 > 0)) {
		w->df = (double)(a->n + b->n - 2);
		if (a->mean == b->mean) {
			w->t = 0;
			w->p = 1;
		} else {
			w->t = b->mean > a->mean ? INFINITY : -INFINITY;
			w->p = 0;
		}
		return 0;
	}
	w->t = (b->mean - a->mean) / sqrt(se2);
	/* Welch-Satterthwaite; a constant side contributes 0 to both sums */
	w->df = se2 * se2 / ((va ? va * va / (double)(a->n - 1) : 0) +
			     (vb ? vb * vb / (double)(b->n - 1) : 0));
	w->p = stats__t_p2(w->t, w->df);
	return 0;
}

struct pidx {
	double p;
	size_t i;
};

static int cmp_pidx(const void *a, const void *b)
{
	const struct pidx *x = a, *y = b;

	if (x->p != y->p)
		return x->p < y->p ? -1 : 1;
	return x->i < y->i ? -1 : x->i > y->i;
}

void stats__bh(const double *p, size_t n, double *q)
{
	struct pidx *s = xmalloc((n ? n : 1) * sizeof(*s));
	size_t m = 0, k;
	double run = 1;

	for (k = 0; k < n; k++) {
		q[k] = NAN;
		if (!isnan(p[k])) {
			s[m].p = p[k];
			s[m].i = k;
			m++;
		}
	}
	qsort(s, m, sizeof(*s), cmp_pidx);
	/* step-up: walk from the largest p down, keeping the running minimum */
	for (k = m; k-- > 0;) {
		double v = s[k].p * (double)m / (double)(k + 1);

		if (v < run)
			run = v;
		q[s[k].i] = run;
	}
	free(s);
}

static void robot_summary(double *sorted, size_t n, size_t max_margin,
			  double *min, double *median, double *max)
{
	size_t margin = n >> 5;

	if (margin > max_margin)
		margin = max_margin;
	sorted += margin;
	n -= 2 * margin;
	*min = sorted[0];
	*median = sorted[n / 2];
	*max = sorted[n - 1];
}

bool stats__robot_changed(const double *base, size_t nb, const double *newv, size_t nn,
			  double *scratch, double *ratio)
{
	double bmin, bmed, bmax, nmin, nmed, nmax;
	double *sb = scratch, *sn = scratch + nb;

	if (ratio)
		*ratio = 1;
	if (!nb || !nn)
		return false;
	memcpy(sb, base, nb * sizeof(*base));
	memcpy(sn, newv, nn * sizeof(*newv));
	qsort(sb, nb, sizeof(*sb), cmp_double);
	qsort(sn, nn, sizeof(*sn), cmp_double);
	robot_summary(sb, nb, 3, &bmin, &bmed, &bmax);
	robot_summary(sn, nn, nb <= 3 ? 1 : 3, &nmin, &nmed, &nmax);
	if (ratio) {
		double hi = nmed > bmed ? nmed : bmed, lo = nmed > bmed ? bmed : nmed;

		*ratio = lo > 0 ? hi / lo : 5;
		if (*ratio > 5)
			*ratio = 5;
	}
	return (nmin > bmed && nmed > bmax) || (bmin > nmed && bmed > nmax);
}
