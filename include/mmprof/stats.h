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

/* Regularized incomplete beta I_x(a, b), a, b > 0, 0 <= x <= 1 (NAN otherwise). */
double stats__betai(double a, double b, double x);

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

/*
 * The robot's "changed" test for one key (no statistics): with sorted
 * copies of each side, trimmed by n>>5 values at each end (at most 3; the
 * new side at most 1 when the base has <= 3 runs), "median" being
 * sorted[n/2]: changed when min_new > median_base && median_new > max_base
 * or the mirror image.  base/new are the per-run values (missing = 0);
 * scratch must hold nb + nn doubles.  *ratio (when not NULL) gets the
 * robot's ratio: higher trimmed median / lower one (5 when the lower is
 * not positive, capped at 5), used by its small-change rule.
 */
bool stats__robot_changed(const double *base, size_t nb, const double *newv, size_t nn,
			  double *scratch, double *ratio);

#endif
