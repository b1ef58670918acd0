/*
 * test-stats: the statistics behind `mmprof diff` against known values
 * (references computed with mpmath at 40 digits by direct integration of
 * the t density and by its betainc), and two simulations: A/A pairs keep
 * the BH-controlled false-positive rate under alpha, a 1-point shift with
 * realistic noise is found.
 */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>

#include "tap.h"
#include "mmprof/stats.h"

static uint64_t rng_state;

static double urand(void)
{
	/* xorshift64*: reproducible across libcs, unlike rand() */
	rng_state ^= rng_state >> 12;
	rng_state ^= rng_state << 25;
	rng_state ^= rng_state >> 27;
	return ((rng_state * 2685821657736338717ULL) >> 11) * (1.0 / 9007199254740992.0);
}

static double nrand(void)
{
	double u1 = urand(), u2 = urand();

	if (u1 < 1e-300)
		u1 = 1e-300;
	return sqrt(-2 * log(u1)) * cos(2 * M_PI * u2);
}

static void test_summary(void)
{
	double v[] = { 4, 1, 3, 2 }, s[4];
	double one[] = { 0.5, 0, 0 };
	struct stat_summary st;

	stats__summary(v, 4, s, &st);
	is_dbl(st.mean, 2.5, 1e-15, "mean");
	is_dbl(st.sd, sqrt(1.25), 1e-15, "population stddev divides by n");
	is_dbl(st.var1, 5.0 / 3, 1e-15, "sample variance divides by n-1");
	is_dbl(st.min, 1, 0, "min");
	is_dbl(st.max, 4, 0, "max");
	is_dbl(st.median, 2.5, 0, "median of an even count averages the middle two");
	is_dbl(v[0], 4, 0, "input left unsorted");
	/* one non-zero run of three: the robot's familiar +-141 % */
	stats__summary(one, 3, s, &st);
	is_dbl(100 * st.sd / st.mean, 100 * sqrt(2), 1e-9, "one of three runs non-zero gives 141 %");
	stats__summary(one, 1, s, &st);
	is_dbl(st.sd, 0, 0, "one run: stddev 0");
	is_dbl(st.var1, 0, 0, "one run: no sample variance");
}

static void test_betai_t(void)
{
	static const struct { double a, b, x, want; } bi[] = {
		{ 2, 3, 0.4, 0.52480000000000004 },
		{ 0.5, 0.5, 0.1, 0.20483276469913346 },
		{ 10, 20, 0.3, 0.36400408107194423 },
		{ 1.5, 0.5, 0.99, 0.87288857156953814 },
	};
	static const struct { double t, df, want; } tp[] = {
		{ 2.0, 10, 0.073388034770740366 },
		{ 1.0, 1, 0.5 },
		{ 3.0, 2.5, 0.072576095549031844 },
		{ 0.5, 30, 0.62072300488512729 },
		{ 4.2, 4, 0.013695810305096451 },
		{ 10, 3, 0.0021283990584141501 },
		{ 2.2281388519649385, 10, 0.050000000001808669 },
		{ 1.96, 1000, 0.050273184955748718 },
		{ 0.1, 7.3, 0.92303549713982961 },
		{ -2.0, 10, 0.073388034770740366 },
	};
	size_t i;

	for (i = 0; i < sizeof(bi) / sizeof(bi[0]); i++) {
		double got = stats__betai(bi[i].a, bi[i].b, bi[i].x);

		ok(fabs(got - bi[i].want) < 1e-12, "I_%g(%g,%g) = %.15g (want %.15g)",
		   bi[i].x, bi[i].a, bi[i].b, got, bi[i].want);
	}
	for (i = 0; i < sizeof(tp) / sizeof(tp[0]); i++) {
		double got = stats__t_p2(tp[i].t, tp[i].df);

		ok(fabs(got - tp[i].want) < 1e-12 * (1 + tp[i].want) + 1e-14,
		   "t=%g df=%g: two-sided p %.15g (want %.15g)", tp[i].t, tp[i].df, got, tp[i].want);
	}
	ok(isnan(stats__betai(-1, 1, 0.5)), "betai refuses a <= 0");
	ok(isnan(stats__betai(1, 1, 1.5)), "betai refuses x > 1");
	is_dbl(stats__t_p2(0, 5), 1, 1e-15, "t = 0 gives p = 1");
	is_dbl(stats__t_p2(INFINITY, 5), 0, 0, "infinite t gives p = 0");
}

/* The quantile against the table above, and as the inverse of stats__t_p2 over a grid. */
static void test_t_quantile(void)
{
	static const double ps[] = { 1e-9, 1e-6, 1e-3, 0.01, 0.05, 0.4, 0.9, 0.999 };
	static const double dfs[] = { 1, 2.5, 5, 30, 1000, 2e7, INFINITY };
	size_t i, j, bad = 0;

	is_dbl(stats__t_q2(0.5, 1), 1, 1e-13, "p 0.5 at 1 df: t = 1 (Cauchy quartile)");
	is_dbl(stats__t_q2(0.073388034770740366, 10), 2.0, 1e-12, "p 0.0734 at 10 df: t = 2");
	is_dbl(stats__t_q2(0.050000000001808669, 10), 2.2281388519649385, 1e-12,
	       "p 0.05 at 10 df: qt(0.975, 10)");
	is_dbl(stats__t_q2(0.072576095549031844, 2.5), 3.0, 1e-12, "fractional df: t = 3 at 2.5 df");
	is_dbl(stats__t_q2(1, 5), 0, 0, "p = 1: t = 0");
	ok(isnan(stats__t_q2(0, 5)) && isnan(stats__t_q2(1.5, 5)) && isnan(stats__t_q2(0.05, 0)),
	   "p outside (0, 1] or df <= 0: NAN");
	for (i = 0; i < sizeof(ps) / sizeof(ps[0]); i++)
		for (j = 0; j < sizeof(dfs) / sizeof(dfs[0]); j++) {
			double t = stats__t_q2(ps[i], dfs[j]), back = stats__t_p2(t, dfs[j]);

			if (!(t > 0) || !(fabs(back - ps[i]) <= 1e-10 * ps[i])) {
				printf("# p %g df %g: t %.17g gives back p %.17g\n", ps[i], dfs[j], t, back);
				bad++;
			}
		}
	is_int((long)bad, 0, "t_q2 inverts t_p2 to 1e-10 over p 1e-9..0.999, df 1..infinity");
}

static void welch_of(const double *a, size_t na, const double *b, size_t nb, struct welch *w)
{
	double s[16];
	struct stat_summary sa, sb;

	stats__summary(a, na, s, &sa);
	stats__summary(b, nb, s, &sb);
	if (stats__welch(&sa, &sb, w))
		w->p = -1;
}

static void test_welch(void)
{
	double a1[] = { 1, 2, 3, 4, 5 }, b1[] = { 2, 4, 6, 8, 10 };
	double a2[] = { 0.56, 0.58, 0.54 }, b2[] = { 0.32, 0.33, 0.31, 0.30 };
	double a3[] = { 10.1, 9.8, 10.3, 10.0 }, b3[] = { 10.2, 10.4, 9.9, 10.6, 10.1 };
	double c1[] = { 1, 1, 1 }, c2[] = { 2, 2, 2 };
	struct welch w;
	struct stat_summary s1;
	double sc[4];

	welch_of(a1, 5, b1, 5, &w);
	is_dbl(w.t, 1.8973665961010276, 1e-12, "welch t (1..5 vs 2..10)");
	is_dbl(w.df, 5.8823529411764706, 1e-12, "welch df");
	is_dbl(w.p, 0.10753119493062724, 1e-12, "welch p");
	welch_of(a2, 3, b2, 4, &w);
	is_dbl(w.t, -18.520259177452158, 1e-9, "welch t, unequal n");
	is_dbl(w.df, 3.2347188264058743, 1e-9, "welch df, unequal n");
	is_dbl(w.p, 0.00021513663897867932, 1e-12, "welch p, unequal n");
	welch_of(a3, 4, b3, 5, &w);
	is_dbl(w.p, 0.2723273205594982, 1e-12, "welch p, overlapping");
	welch_of(c1, 3, c2, 3, &w);
	is_dbl(w.p, 0, 0, "two constant sides that differ: p = 0");
	welch_of(c1, 3, c1, 3, &w);
	is_dbl(w.p, 1, 0, "two equal constant sides: p = 1");
	stats__summary(c1, 1, sc, &s1);
	ok(stats__welch(&s1, &s1, &w) < 0, "welch refuses one run");
}

static void test_bh(void)
{
	/* hand-computed: sorted p 0.01 0.02 0.03 0.04 0.5, m = 5 */
	double p[] = { 0.04, 0.01, NAN, 0.5, 0.03, 0.02 }, q[6];

	stats__bh(p, 6, q);
	is_dbl(q[1], 0.05, 1e-15, "bh: smallest p 0.01 -> min(0.05, 0.05, ...) = 0.05");
	is_dbl(q[5], 0.05, 1e-15, "bh: 0.02*5/2 = 0.05");
	is_dbl(q[4], 0.05, 1e-15, "bh: 0.03*5/3 = 0.05");
	is_dbl(q[0], 0.05, 1e-15, "bh: 0.04*5/4 = 0.05");
	is_dbl(q[3], 0.5, 1e-15, "bh: largest keeps p*m/m");
	ok(isnan(q[2]), "bh: untested stays NAN");
	{
		double p2[] = { 0.001, 0.9, 0.02 }, q2[3];

		stats__bh(p2, 3, q2);
		is_dbl(q2[0], 0.003, 1e-15, "bh: 0.001*3/1");
		is_dbl(q2[2], 0.03, 1e-15, "bh: 0.02*3/2");
		is_dbl(q2[1], 0.9, 1e-15, "bh: 0.9*3/3");
	}
}

static void test_robot(void)
{
	double sc[128];
	/* the 004 report's _raw_spin_lock: clearly separated */
	double b1[] = { 0.56, 0.58, 0.54 }, n1[] = { 0.32, 0.33, 0.31 };
	/* overlapping */
	double b2[] = { 1, 2, 3 }, n2[] = { 2, 3, 4 };
	/* new min above base median, new median above base max */
	double b3[] = { 1, 2, 10 }, n3[] = { 3, 11, 12 };
	double b4[] = { 1, 2, 10 }, n4[] = { 3, 9, 12 };
	/* 40 runs: one outlier at each end is trimmed (40>>5 = 1) */
	double b5[40], n5[40];
	size_t i;

	ok(stats__robot_changed(b1, 3, n1, 3, sc, NULL), "robot: separated ranges shown");
	{
		struct stat_robot m;

		stats__robot_changed(b1, 3, n1, 3, sc, &m);
		is_dbl(m.ratio, 0.56 / 0.32, 1e-12, "robot: ratio of the medians, high over low");
		is_dbl(m.delta, 0.56 - 0.32, 1e-12, "robot: delta, high median - low median");
		is_dbl(m.max, 0.58, 1e-12, "robot: max, the larger maximum");
	}
	ok(stats__robot_changed(n1, 3, b1, 3, sc, NULL), "robot: mirror image shown");
	ok(!stats__robot_changed(b2, 3, n2, 3, sc, NULL), "robot: overlapping ranges hidden");
	ok(stats__robot_changed(b3, 3, n3, 3, sc, NULL), "robot: min_new > median_base && median_new > max_base");
	ok(!stats__robot_changed(b4, 3, n4, 3, sc, NULL), "robot: median_new below max_base hides");
	for (i = 0; i < 40; i++) {
		b5[i] = 10 + (double)i / 100;
		n5[i] = 20 + (double)i / 100;
	}
	b5[39] = 100;		/* one outlier above everything new */
	n5[0] = 0;		/* one below everything base */
	ok(stats__robot_changed(b5, 40, n5, 40, sc, NULL), "robot: outliers trimmed with 40 runs");
	ok(!stats__robot_changed(b5, 20, n5, 20, sc, NULL), "robot: no trimming under 32 runs");
}

/*
 * A/A: 300 simulated diffs of 200 keys, 5 runs a side, same distribution
 * (log-normal-ish noise around a per-key mean).  Under the complete null
 * BH's FDR equals the family-wise rate, so the share of diffs with any
 * discovery at q < 0.05 must stay under 0.05 (binomial sd at 300 trials
 * is 0.0126; the bound 0.07 leaves 1.6 sd).
 */
static void test_simulation(void)
{
	enum { SIMS = 300, KEYS = 200, RUNS = 5 };
	double p[KEYS], q[KEYS], a[RUNS], b[RUNS], sc[RUNS];
	int any = 0, sim;

	for (sim = 0; sim < SIMS; sim++) {
		int k, r, hit = 0;

		rng_state = 0x9e3779b97f4a7c15ULL * (uint64_t)(sim + 1);
		for (k = 0; k < KEYS; k++) {
			double mu = 0.1 + 10 * urand(), sd = 0.05 * mu + 0.05;
			struct stat_summary sa, sb;
			struct welch w;

			for (r = 0; r < RUNS; r++) {
				a[r] = fmax(0, mu + sd * nrand());
				b[r] = fmax(0, mu + sd * nrand());
			}
			stats__summary(a, RUNS, sc, &sa);
			stats__summary(b, RUNS, sc, &sb);
			p[k] = stats__welch(&sa, &sb, &w) ? NAN : w.p;
		}
		stats__bh(p, KEYS, q);
		for (k = 0; k < KEYS; k++)
			hit |= q[k] < 0.05;
		any += hit;
	}
	ok((double)any / SIMS < 0.07, "A/A: %d of %d diffs had a false discovery (nominal 5 %%)", any, SIMS);
}

/*
 * Shift: key 0 moves by 1 point (5 -> 6) among 199 null keys.  Power
 * depends on runs and noise: 10 runs with sd 0.3 points, or 5 runs with
 * sd 0.15 points, find it in >= 90 % of diffs despite BH over 200 keys.
 */
static void test_shift(int runs, double sd0)
{
	enum { SIMS = 300, KEYS = 200 };
	double p[KEYS], q[KEYS], a[16], b[16], sc[16];
	int found = 0, false_hits = 0, sim;

	for (sim = 0; sim < SIMS; sim++) {
		int k, r;

		rng_state = 0xdeadbeefcafef00dULL + (uint64_t)sim * 7919;
		for (k = 0; k < KEYS; k++) {
			double mu = k ? 0.1 + 10 * urand() : 5, sd = k ? 0.05 * mu + 0.05 : sd0;
			struct stat_summary sa, sb;
			struct welch w;

			for (r = 0; r < runs; r++) {
				a[r] = fmax(0, mu + sd * nrand());
				b[r] = fmax(0, mu + (k ? 0 : 1) + sd * nrand());
			}
			stats__summary(a, (size_t)runs, sc, &sa);
			stats__summary(b, (size_t)runs, sc, &sb);
			p[k] = stats__welch(&sa, &sb, &w) ? NAN : w.p;
		}
		stats__bh(p, KEYS, q);
		found += q[0] < 0.05;
		for (k = 1; k < KEYS; k++)
			false_hits += q[k] < 0.05;
	}
	ok(found >= SIMS * 9 / 10, "shift of 1 point (sd %.2f, %d runs) found in %d of %d diffs",
	   sd0, runs, found, SIMS);
	ok(false_hits < SIMS * KEYS / 200, "shift: %d false rows among %d null rows",
	   false_hits, SIMS * (KEYS - 1));
}

/*
 * stats__mean_sd, behind every mean and sd printed, against the textbook
 * formulas, and where the one-pass sum of squares (what stat's "+-" used)
 * fails: values around 1e9 a few units apart, as elapsed nanoseconds.
 */
static void test_mean_sd(void)
{
	double v[] = { 4, 1, 3, 2 }, big[] = { 1e9 + 4, 1e9 + 1, 1e9 + 3, 1e9 + 2 }, sc[4];
	double sum = 0, sumsq = 0, one_pass;
	struct stat_summary st, full, ss;
	size_t i;

	stats__mean_sd(v, 4, &st);
	stats__summary(v, 4, sc, &full);
	ok(st.mean == full.mean && st.sd == full.sd && st.var1 == full.var1,
	   "stats__mean_sd gives stats__summary's mean, sd and var1");
	ok(st.n == 4 && st.min == 0 && st.median == 0 && st.max == 0,
	   "stats__mean_sd leaves min, median and max 0");
	stats__from_ss(4, 2.5, 5, &ss);
	ok(ss.mean == st.mean && ss.sd == st.sd && ss.var1 == st.var1,
	   "stats__from_ss from a mean and sum of squares gives the same numbers");
	stats__mean_sd(v, 0, &st);
	ok(st.n == 0 && st.mean == 0 && st.sd == 0 && st.var1 == 0, "no values: all 0");
	stats__mean_sd(big, 4, &st);
	is_dbl(st.var1, 5.0 / 3, 1e-6, "two passes keep the variance of values near 1e9");
	for (i = 0; i < 4; i++) {
		sum += big[i];
		sumsq += big[i] * big[i];
	}
	one_pass = (sumsq - 4 * (sum / 4) * (sum / 4)) / 3;
	ok(fabs(one_pass - 5.0 / 3) > 0.1, "the one-pass formula loses it (%g)", one_pass);
}

/*
 * The counts of the presence test (src/diff/presence.c): Poisson's tail
 * from the incomplete gamma, the negative binomial's from the incomplete
 * beta, each against a sum of its probabilities.
 */
static void test_counts(void)
{
	double lam = 3, var = 6, shape = lam * lam / var, s = var / lam, q = 1 / (1 + s);
	double pois = 0, nbsum = 0, term;
	int y;

	for (y = 0, term = exp(-lam); y < 5; y++, term *= lam / y)
		pois += term;
	is_dbl(stats__gammp(5, lam), 1 - pois, 1e-12, "gammp: P(Poisson(3) >= 5) = 1 - its first five terms");
	is_dbl(stats__gammp(40, 30), 0.0463, 1e-3, "gammp: the continued fraction (a = 40, x = 30)");
	is_dbl(exp(stats__nb_log_tail(lam, 0, 5)), 1 - pois, 1e-12, "nb: variance 0 is Poisson");
	is_dbl(stats__nb_log_p0(lam, 0), -lam, 1e-15, "nb: P(0) of a Poisson is exp(-mean)");
	for (y = 0, term = pow(q, shape); y < 5; y++) {
		nbsum += term;
		term *= (shape + y) / (y + 1) * (1 - q);
	}
	is_dbl(exp(stats__nb_log_tail(lam, var, 5)), 1 - nbsum, 1e-10,
	       "nb: P(Y >= 5) at mean 3, variance of the mean 6, is 1 - its first five terms");
	is_dbl(stats__nb_log_p0(lam, var), shape * log(q), 1e-12, "nb: P(0) = (1 + scale)^-shape");
	is_dbl(stats__nb_log_tail(lam, var, 0), 0, 0, "nb: P(Y >= 0) = 1");
}

int main(void)
{
	test_summary();
	test_mean_sd();
	test_betai_t();
	test_t_quantile();
	test_welch();
	test_bh();
	test_counts();
	test_robot();
	test_simulation();
	test_shift(10, 0.3);
	test_shift(5, 0.15);
	return done_testing();
}
