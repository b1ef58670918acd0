/*
 * test-history: the change points of one series (cpd.c) and of a key's
 * trend with its noise model (trend.c), on synthetic series.
 *   - PELT against the naive model: the optimal segmentation by dynamic
 *     programming over every split (no pruning), same objective, on
 *     random series with steps;
 *   - one step, several steps: found at their commits (several: within
 *     one), and nothing else;
 *   - outliers (single commits far off): no change point;
 *   - a drift: change points, if any, all in the drift's direction;
 *   - a change of the noise alone: no change point (the method finds
 *     levels; history.md says so);
 *   - the effect floor: a step under it is no change point;
 *   - calibration: noise only, 20 series of 1,000 commits of 3 runs at a
 *     12 % spread: at most 1 false change point per 1,000 commits (the
 *     rate history.md states; the count measured is printed);
 *   - a share's sampling noise: a key of 0.3 % in runs of 200 samples,
 *     its runs scattered by their binomial noise alone, has no change point;
 *   - the noise model's fit (history__noise): a run's spread from the
 *     runs within commits, and the spread between commits beyond it;
 *   - a share's noise follows its level: 10 % for 10 commits, 70 % for
 *     10, 10 % for 10 (t332's cost_mix_hot), runs of 4,000 samples with a
 *     12 % spread between runs and 5 % between commits (on the logit, so
 *     that the spread in points grows with p (100 - p)), 300 series: the
 *     two steps and at most 1 change point more per 1,000 commits.
 * Noise is made here (xorshift, Box-Muller): the same every run.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "mmprof/history.h"
#include "mmprof/xalloc.h"
#include "tap.h"

static uint64_t rng = 88172645463325252ULL;

static double uniform(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return ((double)(rng >> 11) + 0.5) / 9007199254740992.0;
}

static double gauss(void)
{
	return sqrt(-2 * log(uniform())) * cos(2 * M_PI * uniform());
}

/* The naive model: the least penalised cost over every segmentation with segments >= m. */
static double naive_best(const double *y, const double *w, size_t n, double beta, size_t m)
{
	double *f = xcalloc(n + 1, sizeof(*f)), best;
	size_t t, s, i;

	f[0] = -beta;
	for (t = 1; t <= n; t++) {
		f[t] = INFINITY;
		for (s = 0; s + m <= t; s++) {
			double sw = 0, swy = 0, swy2 = 0;

			if (s && s < m)
				continue;
			for (i = s; i < t; i++)
				sw += w[i], swy += w[i] * y[i], swy2 += w[i] * y[i] * y[i];
			if (f[s] + swy2 - swy * swy / sw + beta < f[t])
				f[t] = f[s] + swy2 - swy * swy / sw + beta;
		}
	}
	best = f[n];
	free(f);
	return best;
}

static double objective(const double *y, const double *w, size_t n, const size_t *cp, size_t k, double beta)
{
	double cost = 0;
	size_t j, i;

	for (j = 0; j <= k; j++) {
		size_t a = j ? cp[j - 1] : 0, b = j < k ? cp[j] : n;
		double sw = 0, swy = 0, swy2 = 0;

		for (i = a; i < b; i++)
			sw += w[i], swy += w[i] * y[i], swy2 += w[i] * y[i] * y[i];
		cost += swy2 - swy * swy / sw;
	}
	return cost + beta * (double)k;
}

/* A series of nc commits of r runs of one key, value(c, run) each (history_series__make). */
static struct history_series *series(size_t nc, size_t r, const char *name, double (*value)(size_t c, void *ctx),
				     void *ctx, double samples)
{
	size_t *runs = xcalloc(nc, sizeof(*runs)), c, i;
	double *v = xcalloc(nc * r, sizeof(*v)), *sm = xcalloc(nc * r, sizeof(*sm));
	struct history_series *hs;

	for (c = 0; c < nc; c++) {
		runs[c] = r;
		for (i = 0; i < r; i++) {
			v[c * r + i] = value(c, ctx);
			sm[c * r + i] = samples;
		}
	}
	hs = history_series__make(name, runs, nc, v, sm, false);
	free(runs);
	free(v);
	free(sm);
	return hs;
}

static void free_series(struct history_series *hs)
{
	history_series__free(hs);
}

/* Levels: steps[i] is the level's factor from commit at[i] on; spread: a run's CV. */
struct steps {
	size_t at[4];
	double factor[4];
	size_t n;
	double spread, spread2;	/* spread2: the spread from commit at2 on (noise change) */
	size_t at2;
	double drift;		/* a factor per commit */
	size_t outlier_every;
};

static double step_value(size_t c, void *ctx)
{
	struct steps *s = ctx;
	double level = 1000, sp = s->at2 && c >= s->at2 ? s->spread2 : s->spread;
	size_t i;

	for (i = 0; i < s->n; i++)
		if (c >= s->at[i])
			level *= s->factor[i];
	level *= pow(1 + s->drift, (double)c);
	if (s->outlier_every && c % s->outlier_every == s->outlier_every / 2)
		level *= 2.5;
	return level * exp(sp * gauss());
}

/* The trend of a series' one key, its change points' commits into at (n of them). */
static size_t trend_at(struct history_series *hs, size_t *at, double *change, size_t max)
{
	struct history_trend t;
	size_t k, n;

	history__trend(hs, &hs->keys[0], NULL, &t);
	n = t.nr_cp;
	for (k = 0; k < n && k < max; k++) {
		at[k] = t.cp[k].at;
		if (change)
			change[k] = t.cp[k].change;
	}
	history_trend__release(&t);
	return n;
}

static void test_naive(void)
{
	double y[40], w[40];
	size_t cp[40], k, n = 40, trial, bad = 0;

	for (trial = 0; trial < 200; trial++) {
		for (k = 0; k < n; k++) {
			y[k] = (k >= 13 ? 3 : 0) + (k >= 27 ? -2 : 0) + (trial % 3 ? gauss() : 0.3 * gauss());
			w[k] = 0.5 + uniform();
		}
		k = cpd__find(y, w, n, &(struct cpd_opts){ .penalty = 6, .min_segment = 3 }, cp);
		if (fabs(objective(y, w, n, cp, k, 6) - naive_best(y, w, n, 6, 3)) > 1e-6)
			bad++;
	}
	is_int(bad, 0, "PELT's segmentation is the optimum of every split's (200 random series of 40, 2 steps)");
}

static void test_steps(void)
{
	struct steps one = { .at = { 20 }, .factor = { 0.85 }, .n = 1, .spread = 0.12 };
	struct steps three = { .at = { 15, 40, 60 }, .factor = { 0.8, 1.3, 0.8 }, .n = 3, .spread = 0.12 };
	struct history_series *hs;
	size_t at[16], n;
	double ch[16];

	hs = series(40, 3, "wl.ops_per_sec", step_value, &one, 0);
	n = trend_at(hs, at, ch, 16);
	ok(n == 1 && at[0] == 20 && ch[0] < -8 && ch[0] > -22,
	   "a -15 %% step at commit 20 of 40 (3 runs, 12 %% spread) is the one change point (%zu found, at %zu, %.1f %%)",
	   n, n ? at[0] : 0, n ? ch[0] : 0);
	free_series(hs);
	hs = series(80, 3, "wl.ops_per_sec", step_value, &three, 0);
	n = trend_at(hs, at, NULL, 16);
	ok(n == 3 && at[0] + 1 >= 15 && at[0] <= 16 && at[1] + 1 >= 40 && at[1] <= 41 && at[2] + 1 >= 60 && at[2] <= 61,
	   "steps of -20, +30, -20 %% at 15, 40, 60 of 80 are the change points, within a commit (%zu found: %zu %zu %zu)", n, n > 0 ? at[0] : 0,
	   n > 1 ? at[1] : 0, n > 2 ? at[2] : 0);
	free_series(hs);
}

static void test_outliers_drift_noise(void)
{
	struct steps out = { .spread = 0.12, .outlier_every = 17 };
	struct steps drift = { .spread = 0.10, .drift = 0.003 };
	struct steps noise = { .spread = 0.05, .spread2 = 0.20, .at2 = 50 };
	struct steps small = { .at = { 30 }, .factor = { 1.008 }, .n = 1, .spread = 0.001 };
	struct history_series *hs;
	size_t at[64], n, k, against = 0;
	double ch[64];

	hs = series(100, 3, "wl.ops_per_sec", step_value, &out, 0);
	n = trend_at(hs, at, NULL, 64);
	is_int(n, 0, "single commits 2.5 times their neighbours (every 17th) are outliers, no change point");
	free_series(hs);
	hs = series(200, 3, "wl.ops_per_sec", step_value, &drift, 0);
	n = trend_at(hs, at, ch, 64);
	for (k = 0; k < n && k < 64; k++)
		against += ch[k] < 0;
	ok(!against, "a drift of +0.3 %% a commit: its change points (%zu) all rise", n);
	free_series(hs);
	hs = series(100, 3, "wl.ops_per_sec", step_value, &noise, 0);
	n = trend_at(hs, at, NULL, 64);
	is_int(n, 0, "the noise alone grows fourfold at commit 50: no change of level, no change point");
	free_series(hs);
	hs = series(60, 3, "wl.ops_per_sec", step_value, &small, 0);
	n = trend_at(hs, at, NULL, 64);
	is_int(n, 0, "a +0.8 % step under the 1 % effect floor (at 0.1 % spread) is no change point");
	free_series(hs);
}

static void test_calibration(void)
{
	struct steps quiet = { .spread = 0.12 };
	size_t i, at[256], total = 0;

	for (i = 0; i < 20; i++) {
		struct history_series *hs = series(1000, 3, "wl.ops_per_sec", step_value, &quiet, 0);

		total += trend_at(hs, at, NULL, 256);
		free_series(hs);
	}
	printf("# %zu false change points in 20,000 commits of noise (3 runs, 12 %% spread)\n", total);
	ok(total <= 20, "noise only: at most 1 false change point per 1,000 commits (%zu in 20,000)", total);
}

struct share {
	double p, n;
};

/* A share in points whose runs differ by their binomial sampling noise alone. */
static double share_value(size_t c, void *ctx)
{
	struct share *s = ctx;
	double k = 0;
	size_t i;

	(void)c;
	for (i = 0; i < (size_t)s->n; i++)
		k += uniform() < s->p;
	return 100 * k / s->n;
}

static void test_share(void)
{
	struct share s = { .p = 0.003, .n = 200 };
	struct history_series *hs = series(200, 1, "perf-profile.self.cpu-clock.f", share_value, &s, 200);
	size_t at[64];

	is_int(trend_at(hs, at, NULL, 64), 0,
	       "a 0.3 % share of 200-sample runs (1 run a commit): its sampling noise is no change point");
	free_series(hs);
}

/* history__noise on nc commits of 3 runs, log-normal at spread a run and between a commit. */
static void noise_fit(size_t nc, double spread, double between, struct history_noise *fit)
{
	struct history_noise_point *p = xcalloc(nc, sizeof(*p));
	double *v = xcalloc(nc, sizeof(*v));
	size_t c, r;

	for (c = 0; c < nc; c++) {
		double level = log(1000) + between * gauss(), x[3], s = 0, ss = 0;

		for (r = 0; r < 3; r++)
			s += x[r] = level + spread * gauss();
		for (r = 0; r < 3; r++)
			ss += (x[r] - s / 3) * (x[r] - s / 3);
		p[c] = (struct history_noise_point){ .y = s / 3, .s2 = ss / 2, .m = 3 };
	}
	history__noise(p, nc, false, v, fit);
	free(p);
	free(v);
}

static void test_noise_fit(void)
{
	struct history_noise fit;

	noise_fit(2000, 0.12, 0, &fit);
	ok(fabs(fit.phi[0] / (0.12 * 0.12) - 1) < 0.1 && fit.rho[0] < 0.1 * fit.phi[0],
	   "runs at a 12 %% spread, none between commits: a run's variance %.5f (0.0144), between commits %.5f (0)",
	   fit.phi[0], fit.rho[0]);
	noise_fit(2000, 0.12, 0.06, &fit);
	ok(fabs(fit.phi[0] / (0.12 * 0.12) - 1) < 0.1 && fabs(fit.rho[0] / (0.06 * 0.06) - 1) < 0.3,
	   "and 6 %% between commits: %.5f (0.0144), between commits %.5f (0.0036)", fit.phi[0], fit.rho[0]);
}

/* A share's run of n samples at logit lg, in points: its binomial count (normal, n p (1 - p) >> 1). */
static double share_run(double lg, double n)
{
	double p = 1 / (1 + exp(-lg));

	return 100 * (p + sqrt(p * (1 - p) / n) * gauss());
}

static void test_share_levels(void)
{
	size_t trial, c, r, at[64], n, extra = 0, found = 0, runs[30];
	double v[90], sm[90];
	const size_t trials = 300;

	for (c = 0; c < 30; c++)
		runs[c] = 3;
	for (r = 0; r < 90; r++)
		sm[r] = 4000;
	for (trial = 0; trial < trials; trial++) {
		struct history_series *hs;
		size_t k;

		for (c = 0; c < 30; c++) {
			double level = c >= 10 && c < 20 ? 70 : 10;
			double lg = log(level / (100 - level)) + 0.05 * gauss();

			for (r = 0; r < 3; r++)
				v[c * 3 + r] = share_run(lg + 0.12 * gauss(), 4000);
		}
		hs = history_series__make("perf-profile.self.cpu-clock.f", runs, 30, v, sm, false);
		n = trend_at(hs, at, NULL, 64);
		for (k = 0; k < n && k < 64; k++) {
			if (at[k] == 10 || at[k] == 20)
				found++;
			else
				extra++;
		}
		history_series__free(hs);
	}
	printf("# %zu change points besides the steps in %zu commits\n", extra, 30 * trials);
	ok(found == 2 * trials && extra <= 30 * trials / 1000,
	   "a share at 10, 70, 10 %% (10 commits each, 12 %% spread between runs): both steps in %zu series (%zu), "
	   "at most 1 more per 1,000 commits (%zu in %zu)", trials, found, extra, 30 * trials);
}

/*
 * A share's plateau where each commit's shares swing by one factor (a
 * busy machine: a run bounded by time spends more of it in its start-up,
 * every function's share falls together): 10, 60, 10 % for 10 commits
 * each, runs of 1,000 samples, a commit's factor log-normal at 8 %.  The
 * spread in points grows as the level itself, 6 times from 10 to 60 %,
 * where the logit shape grows 2.7 times: the plateau was cut.
 */
static void test_share_swing(void)
{
	size_t trial, c, r, at[64], n, extra = 0, found = 0, runs[30];
	double v[90], sm[90];
	const size_t trials = 300;

	for (c = 0; c < 30; c++)
		runs[c] = 3;
	for (r = 0; r < 90; r++)
		sm[r] = 1000;
	for (trial = 0; trial < trials; trial++) {
		struct history_series *hs;
		size_t k;

		for (c = 0; c < 30; c++) {
			double level = (c >= 10 && c < 20 ? 60 : 10) * exp(0.08 * gauss());
			double lg = log(level / (100 - level));

			for (r = 0; r < 3; r++)
				v[c * 3 + r] = share_run(lg, 1000);
		}
		hs = history_series__make("perf-profile.self.cpu-clock.f", runs, 30, v, sm, false);
		n = trend_at(hs, at, NULL, 64);
		for (k = 0; k < n && k < 64; k++) {
			if (at[k] == 10 || at[k] == 20)
				found++;
			else
				extra++;
		}
		history_series__free(hs);
	}
	printf("# %zu change points besides the steps in %zu commits\n", extra, 30 * trials);
	ok(found == 2 * trials && extra <= 30 * trials / 1000,
	   "a share at 10, 60, 10 %% whose commits swing by one factor (8 %%): both steps in %zu series (%zu), "
	   "at most 1 more per 1,000 commits (%zu in %zu)", trials, found, extra, 30 * trials);
}

int main(void)
{
	test_naive();
	test_steps();
	test_outliers_drift_noise();
	test_calibration();
	test_share();
	test_noise_fit();
	test_share_levels();
	test_share_swing();
	return done_testing();
}
