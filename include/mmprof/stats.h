/*
 * stats: the numbers behind `mmprof diff`, as pure functions.
 *
 * Per key and side: mean, population stddev (divide by n, as the kernel
 * test robot does), min/median/max.  Between sides: Welch's t-test (no
 * equal-variance assumption: a kernel change often changes the noise
 * too), Benjamini-Hochberg adjustment across all keys compared (a diff
 * tests thousands of keys; at 5 % each, an A/A pair would otherwise show
 * dozens of "significant" rows), and the robot's own row filter
 * (lkp-tests lib/stats.rb + lib/changed_stat.rb), kept for --robot.
 *
 * A leaf module (src/lib/): every mean and sd mmprof prints comes from
 * stats__mean_sd (report's and keytab's means over runs, stat's "+-",
 * diff's sides), the rest serves diff.
 *
 * Workload: called once per key (10^4..10^5 keys, 1..100 runs a side).
 * Nothing here allocates except stats__bh (one index array).
 */
#ifndef MMPROF_STATS_H
#define MMPROF_STATS_H

#include <stdbool.h>
#include <stddef.h>

struct stat_summary {
	size_t n;
	double mean;
	double sd;		/* population: sqrt(sum((x-mean)^2) / n) */
	double var1;		/* sample variance (n-1); 0 when n < 2 */
	double min, median, max;
};

/* Summary of v[0..n-1]; scratch must hold n doubles (it is sorted there). */
void stats__summary(const double *v, size_t n, double *scratch, struct stat_summary *s);

/*
 * The mean and spread of v[0..n-1] alone (n, mean, sd, var1; min, median
 * and max left 0), in two passes: the one-pass sum of squares loses
 * digits when mean >> sd.  What every mean and sd mmprof prints comes
 * from, stats__summary included.
 */
void stats__mean_sd(const double *v, size_t n, struct stat_summary *s);

/* The median of v[0..n-1], n > 0 (the mean of the middle two for even n); sorts v. */
double stats__median(double *v, size_t n);

/*
 * The same from a mean and a sum of squared deviations from it that the
 * caller gathered itself (diff's chains, two passes over per-thread
 * columns): sd and var1 as stats__mean_sd gives them.
 */
void stats__from_ss(size_t n, double mean, double ss, struct stat_summary *s);

/* Regularized incomplete beta I_x(a, b), a, b > 0, 0 <= x <= 1 (NAN otherwise). */
double stats__betai(double a, double b, double x);

/*
 * Regularized lower incomplete gamma P(a, x), a > 0, x >= 0 (NAN
 * otherwise): P(Y >= k) of a Poisson count Y of mean x is P(k, x).
 */
double stats__gammp(double a, double x);

/*
 * A count of a Poisson whose mean varies from one draw to the next as a
 * gamma of mean lam and variance var (a negative binomial; var 0 is
 * Poisson): log P(Y = 0), and log P(Y >= k) (0 for k <= 0).  lam > 0.
 */
double stats__nb_log_p0(double lam, double var);
double stats__nb_log_tail(double lam, double var, double k);

/* Two-sided p-value of Student's t with df degrees of freedom (df > 0, real). */
double stats__t_p2(double t, double df);

struct welch {
	double t, df, p;	/* p two-sided; p = 1 when both sides are constant and equal */
};

/*
 * Welch's t-test of the means of two summaries.  Needs n >= 2 on both
 * sides (-EINVAL otherwise).  Two constant sides with different means get
 * p = 0: the runs separate perfectly and there is no noise to weigh.
 */
int stats__welch(const struct stat_summary *a, const struct stat_summary *b, struct welch *w);

/*
 * Benjamini-Hochberg: q[i] = min_{j: p_j >= p_i} p_j * m / rank(j), capped
 * at 1, for the m = n p-values given (NAN entries are skipped and get
 * q = NAN; m counts only the others).  Rows with q < alpha form a set
 * whose expected share of false discoveries is at most alpha.
 */
void stats__bh(const double *p, size_t n, double *q);

/* Digamma and trigamma (psi, psi'), x > 0 (NAN otherwise); ~1e-12 relative. */
double stats__digamma(double x);
double stats__trigamma(double x);

/*
 * The prior of limma's moderated t (Smyth 2004, "Linear models and
 * empirical Bayes methods ...", section 6.2: moments of log s^2): the
 * keys' variances s2[i] on df[i] degrees of freedom are taken as draws
 * from a scaled inverse chi-square with d0 degrees of freedom around
 * s0(cov), log s0 following the covariate cov[i] when cov is not NULL
 * (limma-trend: variance depending on a key's level; here the mean of
 * log s^2 in bins of at least 10 keys by covariate, at most
 * STATS_PRIOR_BINS, linear between them).  s2[i] of 0 (or
 * not finite) take no part in the fit.  d0 = INFINITY when the variances
 * scatter no more than chance alone explains: every key then shares the
 * prior.  0, or -EINVAL when fewer than 3 (4 with a trend) keys can fit.
 */
#define STATS_PRIOR_BINS 16
struct stat_prior {
	double d0;		/* prior degrees of freedom */
	double s0;		/* prior variance at the keys' mean log variance (for reports) */
	/* log s0(x): linear between (bx[i], by[i]), flat past the ends, plus shift */
	double bx[STATS_PRIOR_BINS], by[STATS_PRIOR_BINS];
	size_t nbins;
	double shift;
	double excess;		/* the scatter of log s^2 beyond what df explain (< 0: none) */
};
int stats__fit_prior(const double *s2, const double *df, const double *cov, size_t n,
		     struct stat_prior *pr);
/* The prior variance at covariate cov. */
double stats__prior_var(const struct stat_prior *pr, double cov);
/* (d0 s0(cov) + df s2) / (d0 + df): a key's variance shrunk to the prior. */
double stats__posterior_var(const struct stat_prior *pr, double s2, double df, double cov);

/* P(F > f) of Fisher's F with d1, d2 degrees of freedom (d2 may be INFINITY). */
double stats__f_upper(double f, double d1, double d2);

/*
 * The median of chi-square(d) / d, d > 0 (Wilson and Hilferty's cube
 * root, within 2 % from d = 1): a variance's ratio to its true value at
 * its median, for a dispersion fitted by the median over many keys or
 * commits.
 */
double stats__chisq_median_ratio(double d);

/*
 * |t| whose two-sided p at df degrees of freedom is p (0 < p <= 1), to
 * 1e-14 relative: Newton's method kept inside a bracket by halving.
 */
double stats__t_q2(double p, double df);

/*
 * The robot's "changed" test for one key (no statistics): with sorted
 * copies of each side, trimmed by n>>5 values at each end (at most 3; the
 * new side at most 1 when the base has <= 3 runs), "median" being
 * sorted[n/2]: changed when min_new > median_base && median_new > max_base
 * or the mirror image.  base/new are the per-run values (missing = 0);
 * scratch must hold nb + nn doubles.  *m (when not NULL) gets what the
 * robot's small-change rules read (lib/stats.rb calc_stats_metrics): the
 * ratio, higher trimmed median / lower one (5 when the lower is not
 * positive, capped at 5); delta, higher median - lower; max, the larger
 * of the two trimmed maxima.
 */
struct stat_robot {
	double ratio, delta, max;
};
bool stats__robot_changed(const double *base, size_t nb, const double *newv, size_t nn,
			  double *scratch, struct stat_robot *m);

#endif
