/*
 * verdict: the test of each row of a diff (see "Verdicts" in
 * include/mmprof/diff.h, and Documentation/statistics.md for the method).
 * tctx__classify summarises a row, applies the robot's filter and, with
 * one run a side, the thresholds; it puts each row to be tested in its
 * family on its test scale (share, raw or log).  tctx__test then runs the
 * moderated t-tests once family.c has fitted each family, spends the FDR
 * per family with weighted BH, gates self and calltrace rows on their
 * children row (verdictgate.c) and gives the verdicts, detectable changes
 * and runs advice (power.c).
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mmprof/diff.h"
#include "mmprof/hashidx.h"
#include "mmprof/keykind.h"
#include "mmprof/keys.h"
#include "mmprof/stats.h"
#include "mmprof/xalloc.h"

#include "diff-int.h"

/*
 * The sampling variance of one run's value of a perf-profile row, in
 * points^2, averaged over a side's runs (the variance of the side's mean
 * is this over the runs): 1e4 p(1-p) mean(1/n_i) over the runs with
 * samples.  0 when no run of the side says how many samples it holds.
 */
static double sampling_var(double pct, const double *nsamp, size_t n)
{
	double p = pct / 100, inv = 0;
	size_t i, k = 0;

	if (!nsamp)
		return 0;
	for (i = 0; i < n; i++)
		if (nsamp[i] > 0) {
			inv += 1 / nsamp[i];
			k++;
		}
	if (!k || !(p > 0))
		return 0;
	if (p > 1)
		p = 1;
	return 1e4 * p * (1 - p) * inv / (double)k;
}

static uint32_t tctx__family(struct tctx *x, const char *name, enum scale scale, bool children,
			     const double *nsamp)
{
	size_t n = x->d->nb + x->d->nn, i;
	struct fam *f;

	if (x->last < x->nr_fam && !strcmp(x->fam[x->last].name, name))
		return (uint32_t)x->last;
	for (i = 0; i < x->nr_fam; i++)
		if (!strcmp(x->fam[i].name, name))
			return (uint32_t)(x->last = i);
	XGROW(x->fam, x->alloc_fam, x->nr_fam);
	f = &x->fam[x->nr_fam];
	memset(f, 0, sizeof(*f));
	f->name = xstrdup(name);
	f->scale = scale;
	f->children = children;
	/* costs per op (cost.h) share one unit per family: their spread follows their level */
	f->trend = keykind__cost(name) != KEYCOST_NONE;
	if (scale == SCALE_SHARE) {
		f->inv_n = xmalloc(n * sizeof(*f->inv_n));
		for (i = 0; i < n; i++) {
			f->inv_n[i] = 1 / (nsamp[i] >= 1 ? nsamp[i] : 1);
			f->total[i >= x->d->nb] += nsamp[i] >= 1 ? nsamp[i] : 1;
		}
	}
	return (uint32_t)(x->last = x->nr_fam++);
}

/* Pooled within-side variance of v (nb then nn values) with nb + nn - 2 df. */
static double pooled_var(const double *v, size_t nb, size_t nn, double *mb, double *mn)
{
	double sb = 0, sn = 0, ss = 0;
	size_t i;

	for (i = 0; i < nb; i++)
		sb += v[i];
	for (i = 0; i < nn; i++)
		sn += v[nb + i];
	*mb = sb / (double)nb;
	*mn = sn / (double)nn;
	for (i = 0; i < nb; i++)
		ss += (v[i] - *mb) * (v[i] - *mb);
	for (i = 0; i < nn; i++)
		ss += (v[nb + i] - *mn) * (v[nb + i] - *mn);
	return ss / (double)(nb + nn - 2);
}

/*
 * A RAW or LOG row's variance and delta from its test values v (base then
 * new): the pooled within-side variance (nb + nn - 2 df) and the
 * difference of the means, or on a paired diff the variance of the pairs'
 * differences (pairs - 1 df) and their mean, the variance of that mean
 * 1 / pairs of it (eb; en 0).  v holds nb then nn values; *mb, *mn: each
 * side's mean.
 */
static void row_spread(struct tctx *x, struct trow *t, const double *v, size_t nb, size_t nn,
		       double *mb, double *mn)
{
	/* a score some runs lack (t->runs) is tested on the runs it has: no longer pairs */
	size_t m = t->runs ? 0 : x->d->pairs, i;
	double sd = 0, ss = 0, mean;

	t->s2 = pooled_var(v, nb, nn, mb, mn);
	t->delta = *mn - *mb;
	if (!m)
		return;
	for (i = 0; i < m; i++)
		sd += v[m + i] - v[i];
	mean = sd / (double)m;
	for (i = 0; i < m; i++)
		ss += (v[m + i] - v[i] - mean) * (v[m + i] - v[i] - mean);
	t->s2 = ss / (double)(m - 1);
	t->delta = mean;
	t->eb = 1 / (double)m;
	t->en = 0;
}

/* One value in every run of v (n of them). */
static bool one_value(const double *v, size_t n)
{
	size_t i;

	for (i = 1; i < n; i++)
		if (v[i] != v[0])
			return false;
	return true;
}

static bool all_integers(const double *v, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (v[i] != floor(v[i]) || fabs(v[i]) > 9e15)
			return false;
	return true;
}

void tctx__run_seconds(struct tctx *x)
{
	const struct diff *d = x->d;
	size_t n = d->nb + d->nn, i, j;

	for (i = 0; i < d->nr; i++) {
		if (!keykind__elapsed_time(d->rows[i].key))
			continue;
		for (j = 0; j < n && d->rows[i].v[j] > 0; j++)
			;
		if (j < n)
			continue;
		x->secs = xmalloc(n * sizeof(*x->secs));
		memcpy(x->secs, d->rows[i].v, n * sizeof(*x->secs));
		return;
	}
}

/*
 * A perf-stat counter printed as a rate (perf-stat.ps.X: events a second
 * over the run, .i.X: the mean of its intervals' rates) is still a count
 * of events: the mean over the runs of rate x the run's seconds, NAN when
 * it is not such a key (cpu-clock and task-clock count time, .metric.*
 * and the ratios are no counts) or the runs' times are unknown.
 */
static double rate_count(const struct tctx *x, const struct diff_row *r, size_t n)
{
	double c = 0;
	size_t i;

	if (!x->secs || !keykind__perf_stat_rate(r->key))
		return NAN;
	for (i = 0; i < n; i++)
		c += r->v[i] * x->secs[i];
	return c / (double)n;
}

/*
 * A row that is a share of its runs' samples (nsamp, base then new), to
 * be tested in the SCALE_SHARE family name: its pooled level and sampling
 * variance; its delta and dispersion come from family.c once phi is known.
 */
void tctx__prep_share(struct tctx *x, struct diff_row *r, const char *name, bool children,
		      const double *nsamp)
{
	size_t n = x->d->nb + x->d->nn, i;
	struct trow *t = &x->t[r - x->d->rows];
	const double *v = diff_row__test_values(r, n, x->buf);
	double sc = 0, sn = 0;

	t->tested = true;
	t->eb = 1 / (double)x->d->nb;
	t->en = 1 / (double)x->d->nn;
	t->fam = tctx__family(x, name, SCALE_SHARE, children, nsamp);
	for (i = 0; i < n; i++) {
		double ni = 1 / x->fam[t->fam].inv_n[i];

		sc += v[i] * ni;
		sn += ni;
	}
	t->level = sn > 0 ? sc / sn : 0;
	if (t->level > 100)
		t->level = 100;
	t->c = t->level * (100 - t->level);
}

/*
 * The finest decimal step that every one of v's values is a whole
 * multiple of (0.001 for 64.395): what the workload printed, so that a
 * score constant within each side is as exact as its print and no more.
 */
static double print_step(const double *v, size_t n)
{
	double q;
	size_t i;

	for (q = 1e-9; q < 1e12; q *= 10) {
		for (i = 0; i < n; i++) {
			double k = v[i] / q;

			if (fabs(k - nearbyint(k)) > 1e-6 * fmax(1, fabs(k)))
				break;
		}
		if (i < n)
			return q / 10 > 1e-9 ? q / 10 : 1e-9;
	}
	return q;
}

/*
 * The workload's score, its primary endpoint: a family of its own
 * ("score", every score key of the diff), with no prior and no other
 * key's noise (the explanation keys' prior would lend it the spread of
 * hundreds of keys of other units), tested on its pooled within-side
 * variance, on the log scale (a change is a ratio) or in its unit when it
 * has negative values.  Its variance is never below the rounding of its
 * print (uniform, step^2 / 12).  Only the runs that have the key count
 * (have, NULL when all do): a run whose workload failed printed no score,
 * which is no measurement of 0 (diff.score_runs), so the test has the
 * present runs' n - 2 df, and none with a side that has no score.
 */
static void prep_score(struct tctx *x, struct diff_row *r, const double *v, const uint8_t *have)
{
	struct diff *d = x->d;
	size_t nb = d->nb, nn = d->nn, n = nb + nn, i, k = 0;
	struct trow *t = &x->t[r - d->rows];
	double mb, mn, step, lo = INFINITY, sum = 0, *w = NULL;

	for (i = 0; have && i < n && have[i]; i++)
		;
	if (have && i < n) {
		struct diff_score_runs *s;

		w = xmalloc(n * sizeof(*w));
		for (i = 0, nb = 0; i < n; i++)
			if (have[i]) {
				w[k++] = v[i];
				nb += i < d->nb;
			}
		nn = k - nb;
		XGROW(d->score_runs, d->alloc_score_runs, d->nr_score_runs);
		s = &d->score_runs[d->nr_score_runs++];
		*s = (struct diff_score_runs){ (size_t)(r - d->rows), nb, nn, 0, 0 };
		for (i = 0; i < k; i++)
			*(i < nb ? &s->mb : &s->mn) += w[i];
		s->mb = nb ? s->mb / (double)nb : NAN;
		s->mn = nn ? s->mn / (double)nn : NAN;
		if (!nb || !nn || k < 3) {
			t->tested = false;
			free(w);
			return;
		}
		v = w;
		n = k;
		t->runs = k;
		t->eb = 1 / (double)nb;
		t->en = 1 / (double)nn;
	}
	step = print_step(v, n);
	for (i = 0; i < n; i++) {
		lo = fmin(lo, v[i]);
		sum += v[i];
	}
	if (lo > 0) {
		for (i = 0; i < n; i++)
			x->buf[i] = log(v[i]);
		t->vfloor = step * step / 12 / (lo * lo);
		v = x->buf;
		t->fam = tctx__family(x, "(score)", SCALE_LOG, false, NULL);
		x->fam[t->fam].score = true;
	} else {
		t->vfloor = step * step / 12;
		t->fam = tctx__family(x, "(score)/raw", SCALE_RAW, false, NULL);
		x->fam[t->fam].score = true;
	}
	row_spread(x, t, v, nb, nn, &mb, &mn);
	t->level = sum / (double)n;
	free(w);
}

const struct diff_score_runs *diff__score_runs(const struct diff *d, const struct diff_row *r)
{
	size_t i;

	for (i = 0; i < d->nr_score_runs; i++)
		if (d->score_runs[i].row == (size_t)(r - d->rows))
			return &d->score_runs[i];
	return NULL;
}

/* Which of x's cost events (cost.total.<ev> rows) the len bytes at ev name, or -1. */
static int cost_index(const struct tctx *x, const char *ev, size_t len)
{
	size_t i;

	for (i = 0; i < x->nr_cost; i++)
		if (strlen(x->cost_event[i]) == len && !strncmp(x->cost_event[i], ev, len))
			return (int)i;
	return -1;
}

/*
 * A function's cost per op (cost.self, cost.children) is a count of its
 * samples in the run times the cost of one sample (the run's total per
 * op over its samples of the event): its offset is half a sample's cost,
 * as a count's is half a count, and a run's variance on the log scale is
 * at least Poisson's, 1 / (its mean samples + 0.5), as a share's is at
 * least its binomial sampling.  Without them a function 0 in one run
 * was a ratio of thousands (log(x + a thousandth of the largest)):
 * __tlb_batch_free_encoded_pages at 9-36 samples an op in every base run
 * and 0-5 in the new, down as a share at q = 1e-5, was "can't tell,
 * detectable 1000 %" as a cost.  eps and vfloor are left as they are
 * where the samples or the event's total are unknown.
 */
static void cost_counts(const struct tctx *x, const struct diff_row *r, const double *nsamp,
			double *eps, double *vfloor)
{
	size_t n = x->d->nb + x->d->nn, i, len;
	const char *ev = keykind__cost_event(r->key, &len);
	const double *tot;
	double unit = 0, count = 0;
	int c;

	if (!nsamp || !ev || (keykind__cost(r->key) != KEYCOST_SELF && keykind__cost(r->key) != KEYCOST_CHILDREN))
		return;
	if ((c = cost_index(x, ev, len)) < 0)
		return;
	tot = x->cost_total_v[c];
	for (i = 0; i < n; i++) {
		if (!(nsamp[i] > 0) || !(tot[i] > 0))
			return;
		unit += tot[i] / nsamp[i] / (double)n;
		count += r->v[i] * nsamp[i] / tot[i] / (double)n;
	}
	*eps = fmax(*eps, 0.5 * unit);
	*vfloor = fmax(*vfloor, 1 / (count + 0.5));
}

/*
 * The family of a tested row and what its test needs.  perf-profile rows
 * with known samples are shares (SCALE_SHARE); other absolute rows and
 * rows with negative values stay in their unit; the rest are compared on
 * log(x + eps), eps 0.5 for counts (every value an integer) and a
 * thousandth of the largest value otherwise, so that a key absent from
 * one side is a large but finite change.
 */
static void tctx__prep(struct tctx *x, struct diff_row *r, const uint8_t *have, const double *nsamp)
{
	struct diff *d = x->d;
	size_t nb = d->nb, nn = d->nn, n = nb + nn, i;
	struct trow *t = &x->t[r - d->rows];
	const double *v = diff_row__test_values(r, n, x->buf);
	char name[256];
	const char *amb = (r->flags & DIFF_AMBIENT) ? "/ambient" : "";
	double mb, mn;
	bool neg = false;

	if (keykind__profile(r->key) != KEYPROF_NONE && nsamp) {
		size_t len, glen;
		const char *ev = keykind__profile_event(r->key, &len);

		glen = (size_t)(ev - r->key) - 1;
		snprintf(name, sizeof(name), "%.*s.%.*s", (int)glen, r->key, (int)len, ev);
		tctx__prep_share(x, r, name, keykind__profile(r->key) == KEYPROF_CHILDREN, nsamp);
		return;
	}
	t->tested = true;
	t->eb = 1 / (double)nb;
	t->en = 1 / (double)nn;
	for (i = 0; i < n; i++)
		neg |= v[i] < 0;
	if (r->flags & DIFF_SCORE) {
		prep_score(x, r, v, have);
		return;
	}
	if (r->absolute || neg) {
		snprintf(name, sizeof(name), "%.*s%s/raw", (int)keykind__noise_family_len(r->key), r->key, amb);
		t->fam = tctx__family(x, name, SCALE_RAW, false, NULL);
		row_spread(x, t, v, nb, nn, &mb, &mn);
		t->level = (mb * (double)nb + mn * (double)nn) / (double)n;
		return;
	}
	{
		double eps, mx = 0, sum = 0, cfloor = 0;
		bool counts = all_integers(v, n);

		for (i = 0; i < n; i++) {
			mx = fmax(mx, v[i]);
			sum += v[i];
		}
		eps = counts ? 0.5 : 1e-3 * mx;
		/*
		 * A perf-stat counter's rate is a count over the run's seconds
		 * (rate_count): its offset is half a count a run as a rate, as
		 * a count's, not a thousandth of its largest rate (0 against
		 * 0.2-0.4 cpu-migrations a second over 5 s, 1-2 a run, was a
		 * ratio of 500 and "up").
		 */
		if (!counts && isfinite(rate_count(x, r, n))) {
			double secs = 0;

			for (i = 0; i < n; i++)
				secs += x->secs[i] / (double)n;
			if (secs > 0)
				eps = fmax(eps, 0.5 / secs);
		}
		cost_counts(x, r, nsamp, &eps, &cfloor);
		t->eps = eps;
		for (i = 0; i < n; i++)
			x->buf[i] = log(v[i] + eps);
		/* the level of a family with a trend (costs per op): the key's mean */
		t->level = sum / (double)n;
		row_spread(x, t, x->buf, nb, nn, &mb, &mn);
		/*
		 * A monitor's count takes in whatever else ran on the machine:
		 * at least Poisson noise, var log(X + 0.5) about 1 / (mean + 0.5).
		 * The workload's own counts are its own, as exact as it says.
		 */
		t->vfloor = counts && keykind__is(r->key, KEYFAM_MONITOR) ? 1 / (sum / (double)n + 0.5) : 0;
		/*
		 * So is a perf-stat counter's rate: a run of 2.5 s at 1.5
		 * cpu-migrations a second saw about 4 of them (var log about
		 * 1 / 4), however steady the rates of 3 runs look.
		 */
		if (!counts && isfinite(rate_count(x, r, n)))
			t->vfloor = 1 / (rate_count(x, r, n) + 0.5);
		t->vfloor = fmax(t->vfloor, cfloor);
		snprintf(name, sizeof(name), "%.*s%s/log", (int)keykind__noise_family_len(r->key), r->key, amb);
		t->fam = tctx__family(x, name, SCALE_LOG, false, NULL);
		/*
		 * A count of the workload's own that is one value in every run
		 * of each side, a different one on each (stress-ng's instances
		 * 1 in every base run, 2 in every new run): it is exact as the
		 * workload printed it, so its only noise is that print, a whole
		 * count (uniform rounding, 1/12 a run; on the log scale over
		 * the level squared), known rather than borrowed from the
		 * family's prior (statistics.md, "Other keys").
		 */
		if (t->constant && !t->same_values && counts && keykind__workload_metric(r->key)) {
			t->exact = true;
			t->eb = 1.0 / 12 / ((r->v[0] + eps) * (r->v[0] + eps)) / (double)nb;
			t->en = 1.0 / 12 / ((r->v[nb] + eps) * (r->v[nb] + eps)) / (double)nn;
		}
	}
}

void tctx__cost_totals(struct tctx *x)
{
	const struct diff *d = x->d;
	size_t n = d->nb + d->nn, i, j;

	for (i = 0; i < d->nr; i++) {
		double sum[2] = { 0, 0 };

		if (keykind__cost(d->rows[i].key) != KEYCOST_TOTAL)
			continue;
		for (j = 0; j < n; j++)
			sum[j >= d->nb] += d->rows[i].v[j];
		x->cost_event = xrealloc(x->cost_event, (x->nr_cost + 1) * sizeof(*x->cost_event));
		x->cost_total_v = xrealloc(x->cost_total_v, (x->nr_cost + 1) * sizeof(*x->cost_total_v));
		x->cost_total_v[x->nr_cost] = d->rows[i].v;
		x->cost_total = xrealloc(x->cost_total, 2 * (x->nr_cost + 1) * sizeof(*x->cost_total));
		x->cost_event[x->nr_cost] = d->rows[i].key + 11;
		x->cost_total[2 * x->nr_cost] = sum[0] / (double)d->nb;
		x->cost_total[2 * x->nr_cost++ + 1] = sum[1] / (double)d->nn;
	}
}

/*
 * A function's cost row (cost.self, cost.children, cost.part) that is
 * under DIFF_COST_TEST_FLOOR % of its event's total per op on both sides
 * (each side's mean against that side's total: a function that appears
 * on a side whose operations are 20 times cheaper is a large part of
 * that side, however small against the mean of both).
 */
static bool cost_below_floor(const struct tctx *x, const struct diff_row *r)
{
	const char *k = r->key, *ev;
	const double *tot;
	size_t len;
	double b, c;
	int i;

	ev = keykind__cost_event(k, &len);
	if (!ev || ev[len] != '.')
		return false;	/* cost.total.<ev>, cost.work */
	if (keykind__cost(k) == KEYCOST_PART)	/* points of the base's total already */
		return fmax(r->base.mean, r->cur.mean) < DIFF_COST_TEST_FLOOR;
	if ((i = cost_index(x, ev, len)) < 0)
		return false;
	tot = &x->cost_total[2 * (size_t)i];
	b = tot[0] > 0 ? 100 * r->base.mean / tot[0] : 0;
	c = tot[1] > 0 ? 100 * r->cur.mean / tot[1] : 0;
	return fmax(b, c) < DIFF_COST_TEST_FLOOR;
}

/* nsamp: per run (base then new), the samples behind the row's event, or NULL. */
void tctx__classify(struct tctx *x, struct diff_row *r, const uint32_t *present,
		    const uint8_t *have, bool base_has_pp, double *scratch, const double *nsamp)
{
	struct diff *d = x->d;
	const struct diff_opts *o = &d->o;
	bool pp = keykind__profile(r->key) != KEYPROF_NONE;
	struct stat_robot rm;
	double tdelta, vb = 0, vc = 0;
	size_t nb = d->nb, nn = d->nn;
	const double *tv;

	stats__summary(r->v, nb, scratch, &r->base);
	stats__summary(r->v + nb, nn, scratch, &r->cur);
	r->absolute = keykind__absolute(r->key);
	r->delta = r->cur.mean - r->base.mean;
	r->rel = 100.0 * r->delta / (r->base.mean == 0 ? 1e-100 : r->base.mean);
	r->change = r->absolute ? r->delta : r->rel;
	r->p = r->q = r->mde = r->runs_needed = NAN;
	if (!present[0])
		r->flags |= DIFF_NEW;
	if (!present[1])
		r->flags |= DIFF_GONE;
	if (diff__is_ambient(o, r->key))
		r->flags |= DIFF_AMBIENT;
	else if (diff__is_score(o, r->key))
		r->flags |= DIFF_SCORE;
	if (r->flags & (DIFF_ADDRESS | DIFF_ONE_SIDE))
		return;		/* not comparable: no verdict, not in any family's FDR */

	/*
	 * the robot: >= 3 runs on a side, in the base, ranges separate, not a
	 * small change; it has no costs per op (cost.h)
	 */
	if ((nb >= 3 || nn >= 3) && (present[0] || (pp && base_has_pp)) && keykind__cost(r->key) == KEYCOST_NONE &&
	    stats__robot_changed(r->v, nb, r->v + nb, nn, scratch, &rm) &&
	    !diff__robot_small_change(r->key, &rm))
		r->flags |= DIFF_ROBOT;

	tv = diff_row__test_values(r, nb + nn, x->buf);
	{
		double sb = 0, sc = 0;
		size_t i;

		for (i = 0; i < nb; i++)
			sb += tv[i];
		for (i = 0; i < nn; i++)
			sc += tv[nb + i];
		tdelta = sc / (double)nn - sb / (double)nb;
	}
	if (d->novar) {
		bool big = r->absolute ? fabs(tdelta) >= o->novar_points
				       : fabs(r->rel) >= o->novar_pct;

		if (pp && nsamp) {
			/* the share under "no change": pooled over both sides */
			double pooled = (r->base.mean * (double)nb + r->cur.mean * (double)nn) /
					(double)(nb + nn);

			vb = sampling_var(pooled, nsamp, nb);
			vc = sampling_var(pooled, nsamp + nb, nn);
		}
		if (pp && fmax(r->base.mean, r->cur.mean) < o->test_floor)
			big = false;
		/* nor a change that a few samples' luck explains */
		if (pp && fabs(tdelta) < 3 * sqrt(vb / (double)nb + vc / (double)nn))
			big = false;
		r->verdict = big ? DIFF_CHANGED : DIFF_SAME;
		return;
	}
	/* independent filtering: the pooled level, not the difference */
	if (pp ? fmax(r->base.mean, r->cur.mean) < o->test_floor
	       : (r->base.max == 0 && r->cur.max == 0 && r->base.min == 0 && r->cur.min == 0) ||
		 cost_below_floor(x, r))
		return;
	/* absolute keys: under the effect floor (at the cut) no verdict can come */
	if (r->absolute && fabs(tdelta) < o->min_points && diff_row__censored(r))
		return;
	if (nb >= 2 && nn >= 2 && one_value(tv, nb) && one_value(tv + nb, nn)) {
		x->t[r - d->rows].constant = true;
		x->t[r - d->rows].same_values = tv[0] == tv[nb];
	}
	tctx__prep(x, r, have, nsamp);
}

void tctx__release(struct tctx *x)
{
	size_t i;

	for (i = 0; i < x->nr_fam; i++) {
		free(x->fam[i].name);
		free(x->fam[i].inv_n);
	}
	free(x->fam);
	free(x->t);
	free(x->buf);
	free(x->phi_buf);
	free(x->cost_event);
	free(x->cost_total_v);
	free(x->cost_total);
	free(x->secs);
	memset(x, 0, sizeof(*x));
}

/* Tests, BH per family, verdicts and detectable changes of the rows tctx__classify prepared. */
void tctx__test(struct tctx *x)
{
	struct diff *d = x->d;
	size_t fi, i, k;
	double *p = xmalloc((d->nr + 1) * sizeof(*p)), *q = xmalloc((d->nr + 1) * sizeof(*q));
	double *w = xmalloc((d->nr + 1) * sizeof(*w));
	size_t *idx = xmalloc((d->nr + 1) * sizeof(*idx));

	for (fi = 0; fi < x->nr_fam; fi++)
		tctx__fit_family(x, fi);
	for (i = 0; i < d->nr; i++) {
		struct trow *t = &x->t[i];
		struct diff_row *r = &d->rows[i];
		double se;

		if (!t->tested)
			continue;
		se = trow__se(t);
		r->p = se > 0 ? stats__t_p2(trow__stat_delta(t, &x->fam[t->fam]) / se, t->df)
			      : t->delta == 0 ? 1 : 0;
		/*
		 * A share 0 in every run of one side and clearly present in
		 * every run of the other: the smaller of the two tests' p
		 * (presence.c; why that keeps the FDR: statistics.md)
		 */
		{
			double pp = tctx__presence_p(x, i);

			if (pp < r->p)
				r->p = pp;
		}
		r->flags |= DIFF_TESTED;
		d->nr_tested++;
	}
	for (fi = 0; fi < x->nr_fam; fi++) {
		struct fam *f = &x->fam[fi];
		size_t g;

		f->bh = fi;
		if (f->scale == SCALE_SHARE)
			continue;
		for (g = 0; g < fi; g++)
			if (x->fam[g].scale != SCALE_SHARE &&
			    x->fam[g].score == f->score &&
			    !strstr(x->fam[g].name, "/ambient") == !strstr(f->name, "/ambient")) {
				f->bh = g;
				break;
			}
	}
	for (fi = 0; fi < x->nr_fam; fi++) {
		struct fam *f = &x->fam[fi];
		double wsum = 0;

		if (f->bh != fi)
			continue;	/* its rows are adjusted with family f->bh's */
		for (i = 0, k = 0; i < d->nr; i++)
			if (x->t[i].tested && x->fam[x->t[i].fam].bh == fi) {
				idx[k] = i;
				w[k] = f->scale == SCALE_SHARE ? fmin(x->t[i].level, 10) : 1;
				wsum += w[k];
				p[k++] = d->rows[i].p;
			}
		/* weighted BH: p / w, the weights scaled to a mean of 1 (see Verdicts) */
		for (i = 0; i < k; i++) {
			x->t[idx[i]].wbh = w[i] * (double)k / wsum;
			p[i] = fmin(1, p[i] / x->t[idx[i]].wbh);
		}
		stats__bh(p, k, q);
		for (i = 0; i < k; i++)
			d->rows[idx[i]].q = q[i];
		f->bh_m = k;
	}
	for (i = 0; i < d->nr; i++)
		x->t[i].gate = HASHIDX_NONE;
	if (!x->paths)
		tctx__gate_on_children(x);
	for (i = 0; i < d->nr; i++)
		if (x->t[i].tested && d->rows[i].q < d->o.alpha) {
			x->fam[x->t[i].fam].rejected++;
			x->fam[x->fam[x->t[i].fam].bh].bh_rejected++;
		}
	for (i = 0; i < d->nr; i++) {
		struct diff_row *r = &d->rows[i];
		const struct trow *t = &x->t[i];
		bool big;

		if (!t->tested)
			continue;
		big = r->absolute ? fabs(r->delta) >= d->o.min_points : fabs(r->rel) >= d->o.min_pct;
		if (t->runs) {	/* a score some runs lack: the change of the runs that have it */
			const struct diff_score_runs *s = diff__score_runs(d, r);

			big = fabs(s->mn - s->mb) >= d->o.min_pct / 100 * fabs(s->mb);
		}
		trow__power(t, x->fam, r, d);
		if (r->q < d->o.alpha)
			r->verdict = !big ? DIFF_SMALL : (t->runs ? t->delta : r->delta) > 0 ? DIFF_UP : DIFF_DOWN;
		else if (t->same_values && !t->runs)
			;	/* one value in every run of both sides: same, whatever the prior lends it */
		else if (r->mde > (r->absolute ? d->o.min_points : d->o.min_pct))
			r->verdict = DIFF_CANT_TELL;
	}
	/*
	 * A row its function held back can see no more than that function's
	 * row can: what it could detect is the larger of the two (a self
	 * share apart by 0.82 in every run, "can't tell, detectable 0.7",
	 * while get_page_from_freelist's children row could see 1.4).
	 */
	for (i = 0; i < d->nr; i++) {
		struct diff_row *r = &d->rows[i];
		uint32_t g = x->t[i].gate;

		if (!x->t[i].tested || g == HASHIDX_NONE || !(d->rows[g].mde > r->mde))
			continue;
		if (x->t[i].same_values)
			continue;	/* it did not move in any run, whatever its function did */
		r->mde = d->rows[g].mde;
		r->flags |= d->rows[g].flags & DIFF_MDE_ABOVE;
		if (r->verdict == DIFF_SAME && r->mde > d->o.min_points)
			r->verdict = DIFF_CANT_TELL;
	}
	tctx__runs_advice(x);
	d->families = xcalloc(x->nr_fam + 1, sizeof(*d->families));
	for (fi = 0; fi < x->nr_fam; fi++) {
		const struct fam *f = &x->fam[fi];

		d->families[fi] = (struct diff_family){ xstrdup(f->name), f->phi,
							 f->have_prior ? f->prior.d0 : 0,
							 f->have_prior ? f->prior.s0 : NAN, f->m, f->rejected };
	}
	d->nr_families = x->nr_fam;
	free(idx);
	free(w);
	free(q);
	free(p);
}
