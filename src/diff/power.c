/*
 * power: what a tested row could have seen, once verdict.c's test has its
 * q values: the statistic's delta (with the continuity correction of
 * shares) and standard error, the row's detectable change at 80 % power
 * and the runs a side that would bring it to the effect floor, and the
 * runs advice over the first children family.  Calltrace rows are censored
 * at perf's cut (diff_row__censored), which the classification reads too,
 * and the test and the family fits see their values through that rule
 * (diff_row__test_values).  verdict.c and family.c call power.c, not
 * back: moved out of verdict.c (981 lines).
 */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>

#include "mmprof/diff.h"
#include "mmprof/keykind.h"
#include "mmprof/keys.h"
#include "mmprof/stats.h"
#include "mmprof/xalloc.h"

#include "diff-int.h"

/*
 * A calltrace key is perf's sum of chains over its 0.5 % cut, so a run
 * without the key had somewhere under the cut, not nothing.  The test and
 * the effect floor see such runs at the cut, the least favourable value:
 * a chain that merely crossed the cut is not called a change, and one
 * that is a change is still found.  The table keeps the robot's numbers.
 */
bool diff_row__censored(const struct diff_row *r)
{
	/* rows that are not keys (diff__test_shares: call paths) have no key */
	return r->key && keykind__profile(r->key) == KEYPROF_CALLTRACE && (r->base.min == 0 || r->cur.min == 0);
}

static void at_cut(const double *v, size_t n, double *out)
{
	size_t i;

	for (i = 0; i < n; i++)
		out[i] = v[i] == 0 ? KEYS_CALLTRACE_CUT : v[i];
}

/* The values the test sees (a calltrace key's absent runs at the cut), base then new. */
const double *diff_row__test_values(const struct diff_row *r, size_t n, double *buf)
{
	if (!diff_row__censored(r))
		return r->v;
	at_cut(r->v, n, buf);
	return buf;
}

/*
 * The delta the statistic uses: for shares, one sample's worth less (half
 * a sample a side, Yates' continuity correction).  A handful of samples
 * is a count, and the normal curve alone would make 0 against 6 samples
 * p = 0.014 where the exact binomial says 0.031.
 */
double trow__stat_delta(const struct trow *t, const struct fam *f)
{
	double cc;

	if (f->scale != SCALE_SHARE || !(f->total[0] > 0) || !(f->total[1] > 0))
		return t->delta;
	cc = 50 * (1 / f->total[0] + 1 / f->total[1]);
	return fabs(t->delta) <= cc ? 0 : t->delta - copysign(cc, t->delta);
}

/* Standard error of a tested row's delta. */
double trow__se(const struct trow *t)
{
	return sqrt(t->post * (t->eb + t->en));
}

/*
 * The row's detectable change (80 % power at its BH threshold) in the
 * row's change unit, and the runs a side that would bring it to the
 * effect floor at this run length.
 */
void trow__power(const struct trow *t, const struct fam *fams, struct diff_row *r,
		 const struct diff *d)
{
	const struct fam *f = &fams[t->fam];
	const struct fam *g = &fams[f->bh];
	double m = (double)g->bh_m, pstar = d->o.alpha * t->wbh * (double)(g->bh_rejected + 1) / m;
	double se = trow__se(t), mde, per_run, target;

	/*
	 * The row's own threshold in weighted BH (p / w against alpha k / m):
	 * a change of the detectable size is thus found, so a row whose
	 * change exceeds what it could detect is never "can't tell".
	 */
	if (pstar > d->o.alpha)
		pstar = d->o.alpha;
	mde = (stats__t_q2(pstar, t->df) + stats__t_q2(0.4, t->df)) * se;
	per_run = t->post * ((double)d->nb * t->eb + (double)d->nn * t->en);
	if (f->scale == SCALE_LOG) {
		/*
		 * The test's log(x + eps) in % of the base itself: a count of 2
		 * detectable at +166 % of 2.5 is +208 % of 2 (a real A/A pair's
		 * workingset_activate_file apart by 4 read "detectable 3.3").
		 */
		double b = fabs(r->base.mean);

		r->mde = 100 * expm1(mde) * (b > 0 ? (b + t->eps) / b : 1);
		target = log1p(d->o.min_pct / 100);
		/* a ratio has no end, but past 10 times the level "detectable" says nothing */
		if (r->mde > DIFF_MDE_MAX_PCT) {
			r->mde = DIFF_MDE_MAX_PCT;
			r->flags |= DIFF_MDE_ABOVE;
		}
	} else if (r->absolute) {
		/*
		 * A chain some runs had under the 0.5 % cut is tested with those
		 * runs at the cut (diff_row__censored()): what it shows from 0 must pass
		 * the cut as well before the test can see it.
		 */
		r->mde = mde + (diff_row__censored(r) ? KEYS_CALLTRACE_CUT : 0);
		target = d->o.min_points;
		/*
		 * a share moves 100 points at the most, whether tested as one
		 * or in its unit (a perf-profile key without its runs' samples)
		 */
		if ((f->scale == SCALE_SHARE || keykind__profile(r->key) != KEYPROF_NONE) && r->mde > 100) {
			r->mde = 100;
			r->flags |= DIFF_MDE_ABOVE;
		}
	} else {
		/* a relative key kept in its unit (negative values): % of the base */
		double lvl = fabs(r->base.mean) > 0 ? fabs(r->base.mean) : fabs(r->cur.mean);

		r->mde = lvl > 0 ? 100 * mde / lvl : INFINITY;
		target = lvl * d->o.min_pct / 100;
		/* as for a ratio: past 10 times the level it says nothing (nor at a level of 0) */
		if (!(r->mde <= DIFF_MDE_MAX_PCT)) {
			r->mde = DIFF_MDE_MAX_PCT;
			r->flags |= DIFF_MDE_ABOVE;
		}
	}
	{
		/* normal quantiles: the df of many runs */
		double z = stats__t_q2(pstar, INFINITY) + stats__t_q2(0.4, INFINITY);
		double k = target > 0 ? ceil(z * z * per_run / (target * target)) : INFINITY;

		r->runs_needed = k < 2 ? 2 : k > 1e6 ? 1e6 : k;
	}
	/*
	 * One value in every run of both sides: the data hold no spread to
	 * scale a detectable change by, and the family's prior would lend it
	 * one that the row itself contradicts ("same q=1, detectable
	 * >1e+03%" for a key never seen to move).  It says none.
	 */
	if (t->same_values && !t->runs)
		r->mde = r->runs_needed = NAN;
}

/* The median of the rows' detectable changes and runs needed, of the first children family. */
void tctx__runs_advice(struct tctx *x)
{
	struct diff *d = x->d;
	size_t fi, i, k;

	for (fi = 0; fi < x->nr_fam; fi++) {
		double *mde, *runs;

		if (!x->fam[fi].children || !x->fam[fi].m)
			continue;
		mde = xmalloc(x->fam[fi].m * sizeof(*mde));
		runs = xmalloc(x->fam[fi].m * sizeof(*runs));
		for (i = 0, k = 0; i < d->nr; i++)
			if (x->t[i].tested && x->t[i].fam == fi && isfinite(d->rows[i].mde)) {
				mde[k] = d->rows[i].mde;
				runs[k++] = d->rows[i].runs_needed;
			}
		if (!k) {	/* every row of one value: none says what it could see */
			free(mde);
			free(runs);
			continue;
		}
		d->advice.rows = k;
		d->advice.mde = stats__median(mde, k);
		d->advice.runs = stats__median(runs, k);
		d->advice.family = xstrdup(x->fam[fi].name);
		free(mde);
		free(runs);
		return;
	}
}
