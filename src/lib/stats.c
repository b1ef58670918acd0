/*
 * stats: summaries, Welch's t-test, Benjamini-Hochberg, the robot's filter,
 * limma's empirical Bayes prior for variances, t quantiles.
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

void stats__from_ss(size_t n, double mean, double ss, struct stat_summary *s)
{
	memset(s, 0, sizeof(*s));
	s->n = n;
	if (!n)
		return;
	s->mean = mean;
	s->sd = sqrt(ss / (double)n);
	s->var1 = n > 1 ? ss / (double)(n - 1) : 0;
}

void stats__mean_sd(const double *v, size_t n, struct stat_summary *s)
{
	double sum = 0, ss = 0, mean;
	size_t i;

	if (!n) {
		stats__from_ss(0, 0, 0, s);
		return;
	}
	for (i = 0; i < n; i++)
		sum += v[i];
	mean = sum / (double)n;
	/* two passes: the one-pass formula loses digits when mean >> sd */
	for (i = 0; i < n; i++)
		ss += (v[i] - mean) * (v[i] - mean);
	stats__from_ss(n, mean, ss, s);
}

static double median_sorted(const double *v, size_t n)
{
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

double stats__median(double *v, size_t n)
{
	qsort(v, n, sizeof(*v), cmp_double);
	return median_sorted(v, n);
}

void stats__summary(const double *v, size_t n, double *scratch, struct stat_summary *s)
{
	stats__mean_sd(v, n, s);
	if (!n)
		return;
	memcpy(scratch, v, n * sizeof(*v));
	qsort(scratch, n, sizeof(*scratch), cmp_double);
	s->min = scratch[0];
	s->max = scratch[n - 1];
	s->median = median_sorted(scratch, n);
}

#define LENTZ_TINY	1e-300

/*
 * One step of the modified Lentz method for a continued fraction
 * b0 + a1 / (b1 + a2 / (b2 + ...)): the step's a and b update the running
 * c and d (each kept off zero), and the factor it multiplies the value by
 * is returned (1 when it has converged).
 */
static double lentz_step(double a, double b, double *c, double *d)
{
	*d = b + a * *d;
	if (fabs(*d) < LENTZ_TINY)
		*d = LENTZ_TINY;
	*c = b + a / *c;
	if (fabs(*c) < LENTZ_TINY)
		*c = LENTZ_TINY;
	*d = 1 / *d;
	return *d * *c;
}

/*
 * Continued fraction for I_x(a,b) by the modified Lentz method
 * (Numerical Recipes' betacf); converges fast for x < (a+1)/(a+b+2).
 */
static double betacf(double a, double b, double x)
{
	const double eps = 1e-16;
	double qab = a + b, qap = a + 1, qam = a - 1;
	double c = 1, d = 1 - qab * x / qap, h;
	int m;

	if (fabs(d) < LENTZ_TINY)
		d = LENTZ_TINY;
	d = 1 / d;
	h = d;
	for (m = 1; m <= 10000; m++) {
		int m2 = 2 * m;
		double del;

		h *= lentz_step(m * (b - m) * x / ((qam + m2) * (a + m2)), 1, &c, &d);
		del = lentz_step(-(a + m) * (qab + m) * x / ((a + m2) * (qap + m2)), 1, &c, &d);
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

/* Numerical Recipes' gser and gcf: the series below a + 1, the continued fraction above. */
double stats__gammp(double a, double x)
{
	const double eps = 1e-15;
	double gln, sum, del, ap, b, c, d, h;
	int n;

	if (!(a > 0) || !(x >= 0))
		return NAN;
	if (x == 0)
		return 0;
	gln = lgamma(a);
	if (x < a + 1) {
		ap = a;
		sum = del = 1 / a;
		for (n = 0; n < 100000; n++) {
			ap += 1;
			del *= x / ap;
			sum += del;
			if (fabs(del) < fabs(sum) * eps)
				break;
		}
		return sum * exp(-x + a * log(x) - gln);
	}
	b = x + 1 - a;
	c = 1 / LENTZ_TINY;
	d = 1 / b;
	h = d;
	for (n = 1; n < 100000; n++) {
		b += 2;
		del = lentz_step(-n * (n - a), b, &c, &d);
		h *= del;
		if (fabs(del - 1) < eps)
			break;
	}
	return 1 - exp(-x + a * log(x) - gln) * h;
}

/*
 * The gamma of mean lam and variance var has shape lam^2 / var and scale
 * s = var / lam; P(Y = 0) = (1 + s)^-shape, and P(Y >= k) = I_{s/(1+s)}(k,
 * shape).  Past a shape of 1e5 the count is Poisson to within 1e-5 of its
 * variance, and the incomplete beta's fraction would need ~sqrt(shape)
 * steps: Poisson then.
 */
double stats__nb_log_p0(double lam, double var)
{
	double s = var > 0 ? var / lam : 0;

	return s < 1e-12 ? -lam : -lam * log1p(s) / s;
}

double stats__nb_log_tail(double lam, double var, double k)
{
	double s = var > 0 ? var / lam : 0, shape = s > 0 ? lam / s : INFINITY, p;

	if (k <= 0)
		return 0;
	p = shape > 1e5 ? stats__gammp(k, lam) : stats__betai(k, shape, s / (1 + s));
	return p > 0 ? log(p) : -INFINITY;
}

double stats__t_p2(double t, double df)
{
	if (isnan(t) || !(df > 0))
		return NAN;
	if (isinf(t))
		return 0;
	/* the normal limit: past 1e7 df the two differ by < 1e-6 relative */
	if (df > 1e7)
		return erfc(fabs(t) / M_SQRT2);
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
			  double *scratch, struct stat_robot *m)
{
	double bmin, bmed, bmax, nmin, nmed, nmax;
	double *sb = scratch, *sn = scratch + nb;

	if (m)
		*m = (struct stat_robot){ .ratio = 1 };
	if (!nb || !nn)
		return false;
	memcpy(sb, base, nb * sizeof(*base));
	memcpy(sn, newv, nn * sizeof(*newv));
	qsort(sb, nb, sizeof(*sb), cmp_double);
	qsort(sn, nn, sizeof(*sn), cmp_double);
	robot_summary(sb, nb, 3, &bmin, &bmed, &bmax);
	robot_summary(sn, nn, nb <= 3 ? 1 : 3, &nmin, &nmed, &nmax);
	if (m) {
		/* lib/stats.rb calc_stats_metrics and calc_diff_metrics */
		double hi = nmed > bmed ? nmed : bmed, lo = nmed > bmed ? bmed : nmed;

		m->ratio = lo > 0 ? hi / lo : 5;
		if (m->ratio > 5)
			m->ratio = 5;
		m->delta = hi - lo;
		m->max = nmax > bmax ? nmax : bmax;
	}
	return (nmin > bmed && nmed > bmax) || (bmin > nmed && bmed > nmax);
}

/* ---- empirical Bayes (limma's squeezeVar) and quantiles ---- */

double stats__digamma(double x)
{
	double r = 0, f;

	if (!(x > 0))
		return NAN;
	/* recurrence up to x >= 6, then the asymptotic series */
	while (x < 6) {
		r -= 1 / x;
		x += 1;
	}
	f = 1 / (x * x);
	return r + log(x) - 0.5 / x -
	       f * (1.0 / 12 - f * (1.0 / 120 - f * (1.0 / 252 - f * (1.0 / 240 - f / 132))));
}

double stats__trigamma(double x)
{
	double r = 0, f;

	if (!(x > 0))
		return NAN;
	while (x < 6) {
		r += 1 / (x * x);
		x += 1;
	}
	f = 1 / (x * x);
	return r + 1 / x + f / 2 +
	       f / x * (1.0 / 6 - f * (1.0 / 30 - f * (1.0 / 42 - f * (1.0 / 30))));
}

/* y with trigamma(y) = v (v > 0): trigamma falls monotonically, so bisect in log y. */
static double trigamma_inverse(double v)
{
	double lo = log(1e-8), hi = log(1e12);
	int i;

	for (i = 0; i < 200; i++) {
		double mid = (lo + hi) / 2;

		if (stats__trigamma(exp(mid)) > v)
			lo = mid;
		else
			hi = mid;
	}
	return exp((lo + hi) / 2);
}

struct epair {
	double x, e;
};

static int cmp_epair(const void *a, const void *b)
{
	const struct epair *p = a, *q = b;

	return p->x < q->x ? -1 : p->x > q->x;
}

/* The binned trend at x: linear between the bins' centres, flat past the ends. */
static double trend_at(const struct stat_prior *pr, double x)
{
	size_t i;

	if (pr->nbins < 2 || x <= pr->bx[0])
		return pr->by[0];
	for (i = 1; i < pr->nbins; i++)
		if (x <= pr->bx[i]) {
			double w = pr->bx[i] > pr->bx[i - 1] ? (x - pr->bx[i - 1]) / (pr->bx[i] - pr->bx[i - 1]) : 1;

			return pr->by[i - 1] + w * (pr->by[i] - pr->by[i - 1]);
		}
	return pr->by[pr->nbins - 1];
}

int stats__fit_prior(const double *s2, const double *df, const double *cov, size_t n,
		     struct stat_prior *pr)
{
	struct epair *ep = xmalloc((n ? n : 1) * sizeof(*ep));
	double mtri = 0, evar = 0, sum = 0;
	size_t i, k = 0, b;

	memset(pr, 0, sizeof(*pr));
	pr->s0 = 1;
	for (i = 0; i < n; i++) {
		if (!(s2[i] > 0) || !isfinite(s2[i]) || !(df[i] > 0))
			continue;
		ep[k].e = log(s2[i]) - stats__digamma(df[i] / 2) + log(df[i] / 2);
		ep[k].x = cov ? cov[i] : 0;
		mtri += stats__trigamma(df[i] / 2);
		sum += ep[k].e;
		k++;
	}
	/* a trend: bins of at least 10 keys by covariate (limma's loess, coarsely) */
	pr->nbins = cov && k >= 20 ? k / 10 : 1;
	if (pr->nbins > STATS_PRIOR_BINS)
		pr->nbins = STATS_PRIOR_BINS;
	if (k < pr->nbins + 2) {
		free(ep);
		return -EINVAL;
	}
	qsort(ep, k, sizeof(*ep), cmp_epair);
	for (b = 0; b < pr->nbins; b++) {
		size_t lo = k * b / pr->nbins, hi = k * (b + 1) / pr->nbins;
		double sx = 0, se = 0;

		for (i = lo; i < hi; i++) {
			sx += ep[i].x;
			se += ep[i].e;
		}
		pr->bx[b] = sx / (double)(hi - lo);
		pr->by[b] = se / (double)(hi - lo);
	}
	for (i = 0; i < k; i++) {
		double r = ep[i].e - trend_at(pr, ep[i].x);

		evar += r * r;
	}
	free(ep);
	evar = evar / (double)(k - pr->nbins) - mtri / (double)k;
	pr->excess = evar;
	if (evar > 0) {
		pr->d0 = 2 * trigamma_inverse(evar);
		pr->shift = stats__digamma(pr->d0 / 2) - log(pr->d0 / 2);
	} else {
		/* the variances scatter no more than their own df explain */
		pr->d0 = INFINITY;
		pr->shift = 0;
	}
	pr->s0 = exp(sum / (double)k + pr->shift);
	return 0;
}

double stats__prior_var(const struct stat_prior *pr, double cov)
{
	return exp(trend_at(pr, cov) + pr->shift);
}

double stats__posterior_var(const struct stat_prior *pr, double s2, double df, double cov)
{
	double s0 = stats__prior_var(pr, cov);

	if (isinf(pr->d0))
		return s0;
	return (pr->d0 * s0 + df * s2) / (pr->d0 + df);
}

/* The density of |T| at t >= 0 (twice Student's t density): -d/dt of stats__t_p2. */
static double t_abs_density(double t, double df)
{
	if (df > 1e7)	/* stats__t_p2's normal limit */
		return 2 * exp(-t * t / 2) / sqrt(2 * M_PI);
	return 2 * exp(lgamma((df + 1) / 2) - lgamma(df / 2) - 0.5 * log(df * M_PI) -
		       (df + 1) / 2 * log1p(t * t / df));
}

double stats__t_q2(double p, double df)
{
	double lo = 0, hi = 1, t;
	int i;

	if (!(p > 0) || !(p <= 1) || !(df > 0))
		return NAN;
	if (p == 1)
		return 0;
	while (stats__t_p2(hi, df) > p && hi < 1e300)
		hi *= 2;
	lo = hi > 1 ? hi / 2 : 0;
	/*
	 * Newton's steps on p2(t) - p inside the bracket [lo, hi], a halving
	 * where a step would leave it: a handful of incomplete beta functions
	 * where bisection to 1e-12 took some forty, once per tested row of a
	 * diff (a fifth of diff's time on 40,000 keys).
	 */
	t = (lo + hi) / 2;
	for (i = 0; i < 200; i++) {
		double g = stats__t_p2(t, df) - p, d = t_abs_density(t, df), next;

		if (g == 0)
			break;
		if (g > 0)
			lo = t;
		else
			hi = t;
		next = d > 0 ? t + g / d : NAN;
		if (!(next > lo && next < hi))
			next = (lo + hi) / 2;
		if (fabs(next - t) <= 1e-14 * t || hi - lo <= 1e-14 * hi) {
			t = next;
			break;
		}
		t = next;
	}
	return t;
}

double stats__chisq_median_ratio(double d)
{
	double a = 1 - 2 / (9 * d);

	return a * a * a;
}

double stats__f_upper(double f, double d1, double d2)
{
	if (!(f >= 0) || !(d1 > 0) || !(d2 > 0))
		return NAN;
	/* past 1e5 denominator df, F is chi^2_d1 / d1 to within the fraction's accuracy */
	if (d2 > 1e5)
		d2 = 1e5;
	return stats__betai(d2 / 2, d1 / 2, d2 / (d2 + d1 * f));
}
