/*
 * trend: a key's per-commit means, the noise of each (history.h's noise
 * model), and its change points (cpd.c).
 *
 * A run without a perf-profile key counts 0, as in a diff (the function
 * was not sampled); a run without another key is left out (its family
 * was not measured).  A commit with no value is left out of the scan.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "mmprof/diff.h"
#include "mmprof/history.h"
#include "mmprof/keykind.h"
#include "mmprof/stats.h"
#include "mmprof/xalloc.h"

/*
 * A commit far off its neighbours is an outlier (a machine's bad night),
 * not a change: each mean is brought to within OUTLIER_SE standard
 * errors of the median of the 5 commits around it.  A step keeps its
 * commits: beside one, 3 of the 5 are on the commit's own side.
 */
#define OUTLIER_SE 3.0

static void clip_outliers(double *y, const double *w, size_t n)
{
	double *orig = xmalloc((n + 1) * sizeof(*orig)), win[5];
	size_t k, i, m;

	memcpy(orig, y, n * sizeof(*y));
	for (k = 0; n >= 5 && k < n; k++) {
		double med, lim = OUTLIER_SE / sqrt(w[k]);
		size_t a = k < 2 ? 0 : k - 2, b = k + 3 > n ? n : k + 3;

		for (i = a, m = 0; i < b; i++)
			win[m++] = orig[i];
		med = stats__median(win, m);
		y[k] = fmin(fmax(y[k], med - lim), med + lim);
	}
	free(orig);
}

static bool is_profile(const char *key)
{
	return keykind__profile(key) != KEYPROF_NONE;
}

/* Run r's value of key into *x: false when the run has none (a profile key absent is 0). */
static bool run_value(const struct history_key *key, size_t r, bool profile, double *x)
{
	*x = key->v[r];
	if (isnan(*x) && profile)
		*x = 0;
	return !isnan(*x);
}

/* Change point k from the segments [a, b) and [b, e) of the scan's points. */
static void set_change(struct history_trend *t, size_t k, size_t a, size_t b, size_t e)
{
	struct history_change *ch = &t->cp[k];
	double m1, m2, v1, v2;

	cpd__level(t->y, t->w, a, b, &m1, &v1);
	cpd__level(t->y, t->w, b, e, &m2, &v2);
	ch->at = t->at[b];
	if (t->log) {
		ch->before = exp(m1), ch->after = exp(m2);
		ch->change = 100 * expm1(m2 - m1);
		ch->se = 100 * exp(m2 - m1) * sqrt(v1 + v2);
	} else {
		ch->before = m1, ch->after = m2;
		ch->change = t->absolute ? m2 - m1 : 100 * (m2 - m1) / (m1 ? fabs(m1) : 1e-100);
		ch->se = t->absolute ? sqrt(v1 + v2) : 100 * sqrt(v1 + v2) / (m1 ? fabs(m1) : 1e-100);
	}
}

/* The scan's point of commit c (the first at or after it). */
static size_t point_of(const struct history_trend *t, size_t c)
{
	size_t i = 0;

	while (i < t->n && t->at[i] < c)
		i++;
	return i;
}

bool history_trend__move(struct history_trend *t, size_t k, size_t commit)
{
	size_t a = k ? point_of(t, t->cp[k - 1].at) : 0, e = k + 1 < t->nr_cp ? point_of(t, t->cp[k + 1].at) : t->n;
	size_t b = point_of(t, commit);

	if (b >= t->n || t->at[b] != commit || b <= a || b >= e)
		return false;
	set_change(t, k, a, b, e);
	return true;
}

void history__trend(const struct history_series *hs, const struct history_key *key,
		    const struct history_scan_opts *o, struct history_trend *t)
{
	size_t nc = hs->nr_commits, c, r, n = 0, k, *at, *cp;
	double *y, *w, tiny, min_points, min_pct;
	bool profile = is_profile(key->name), use_log = true;
	struct cpd_opts co = { .penalty = o ? o->penalty : 0 };
	struct history_noise_point *pt;
	size_t *runs;

	memset(t, 0, sizeof(*t));
	t->key = key;
	t->absolute = keykind__absolute(key->name);
	t->mean = xcalloc(nc + 1, sizeof(double));
	t->sd = xcalloc(nc + 1, sizeof(double));
	min_points = o && o->min_points > 0 ? o->min_points : 0.1;
	min_pct = o && o->min_pct > 0 ? o->min_pct : 1.0;
	y = xcalloc(nc + 1, sizeof(*y));
	w = xcalloc(nc + 1, sizeof(*w));
	pt = xcalloc(nc + 1, sizeof(*pt));
	runs = xcalloc(nc + 1, sizeof(*runs));
	at = xcalloc(nc + 1, sizeof(*at));
	/* the key's unit: a commit's mean and sd; the scale: log for relative keys, all > 0 */
	for (c = 0; c < nc; c++) {
		double s = 0, s2 = 0;
		size_t m = 0;

		for (r = hs->first[c]; r < hs->first[c + 1]; r++) {
			double x;

			if (!run_value(key, r, profile, &x))
				continue;
			s += x, s2 += x * x, m++;
			if (x <= 0)
				use_log = false;
		}
		t->mean[c] = m ? s / (double)m : NAN;
		t->sd[c] = m > 1 ? sqrt(fmax(0, (s2 - s * s / (double)m) / (double)(m - 1))) : m ? 0 : NAN;
		runs[c] = m;
	}
	if (t->absolute)
		use_log = false;
	for (c = 0; c < nc; c++) {
		struct history_noise_point *q = &pt[n];
		double s = 0, ss = 0;
		size_t m = 0;

		if (!runs[c])
			continue;
		q->level = fmin(fmax(t->mean[c], 0), 100);
		for (r = hs->first[c]; r < hs->first[c + 1]; r++) {
			double x;

			if (!run_value(key, r, profile, &x))
				continue;
			s += use_log ? log(x) : x, m++;
			/* a share's sampling noise: binomial over the run's samples, at the commit's level */
			if (profile && hs->samples[r] > 0) {
				double p = q->level / 100;

				q->samp += 1e4 * fmax(p * (1 - p), 1 / hs->samples[r]) / hs->samples[r];
			}
		}
		q->y = s / (double)m;
		for (r = hs->first[c]; r < hs->first[c + 1]; r++) {
			double x;

			if (!run_value(key, r, profile, &x))
				continue;
			x = use_log ? log(x) : x;
			ss += (x - q->y) * (x - q->y);
		}
		q->s2 = m > 1 ? ss / (double)(m - 1) : 0;
		q->samp /= (double)m;
		q->m = m;
		y[n] = q->y;
		at[n++] = c;
	}
	history__noise(pt, n, profile && !use_log, w, NULL);
	tiny = use_log ? 1e-8 : 1e-8 + 1e-6 * fabs(n ? y[0] : 0);
	for (k = 0; k < n; k++)
		w[k] = 1 / fmax(w[k], tiny);
	clip_outliers(y, w, n);
	co.min_change = t->absolute || !use_log ? (t->absolute ? min_points : 0) : log1p(min_pct / 100);
	cp = xcalloc(n + 1, sizeof(*cp));
	t->nr_cp = cpd__find(y, w, n, &co, cp);
	t->cp = xcalloc(t->nr_cp + 1, sizeof(*t->cp));
	t->y = y, t->w = w, t->at = at, t->n = n, t->log = use_log;
	for (k = 0; k < t->nr_cp; k++)
		set_change(t, k, k ? cp[k - 1] : 0, cp[k], k + 1 < t->nr_cp ? cp[k + 1] : n);
	/* a relative key that is not all positive: its floor applies after the fact */
	if (!t->absolute && !use_log) {
		size_t keep = 0;

		for (k = 0; k < t->nr_cp; k++)
			if (fabs(t->cp[k].change) >= min_pct)
				t->cp[keep++] = t->cp[k];
		t->nr_cp = keep;
	}
	free(cp);
	free(pt);
	free(runs);
}

void history_trend__release(struct history_trend *t)
{
	free(t->mean);
	free(t->sd);
	free(t->cp);
	free(t->y);
	free(t->w);
	free(t->at);
	memset(t, 0, sizeof(*t));
}
