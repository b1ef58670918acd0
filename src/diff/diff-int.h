/*
 * diff-int.h: what the files of src/diff/ that compute a diff share, and
 * nothing outside them sees.  diff.c builds the rows from the runs and
 * orders them; keyname.c flags rows by what their keys are (keykind.h,
 * the keys module, owns the key grammar) and keeps their spellings;
 * verdict.c classifies and tests each row and spends each
 * family's FDR, calling power.c for a tested row's detectable change and
 * the runs advice, verdictgate.c to gate self and calltrace rows on
 * children and presence.c for a share absent from every run of one side
 * (none calls back); family.c
 * fits a family's noise model (phi and its shape, the prior, the
 * moderated variances) and names disturbed runs; robot.c holds the
 * robot's small-change rules; pairing.c pairs the runs (diff -p).
 * What the rows are written as is the table module's (src/table/), what
 * they cost the cost module's (src/cost/), above this one: they read the
 * rows through mmprof/diff.h.
 *
 * The test's types are diff__compute's scratch: a struct tctx lives for
 * one call, with one struct trow per row and one struct fam per family.
 *
 * The calls go one way: diff.c drives the test (verdict.c) over the rows
 * it built; verdict.c fits each family with family.c (tctx__fit_family)
 * and asks power.c what a row could have seen; family.c and verdict.c
 * both read a row's values through power.c's censoring rule
 * (diff_row__test_values), and the score row's runs are looked up where
 * the test records them (diff__score_runs, verdict.c).
 */
#ifndef MMPROF_DIFF_INT_H
#define MMPROF_DIFF_INT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "mmprof/diff.h"
#include "mmprof/keykind.h"
#include "mmprof/stats.h"

/* ---- rows by their keys (keyname.c; what a key is: keykind.h) ---- */

/* o->score's glob, or the default score keys (keykind__score). */
bool diff__is_score(const struct diff_opts *o, const char *key);
/* o->ambient's patterns, and the default ambient keys unless o->no_ambient_defaults. */
bool diff__is_ambient(const struct diff_opts *o, const char *key);
/* Flag DIFF_ADDRESS rows (and the ".other" of their histograms), counting them in d->nr_address. */
void diff__mark_addresses(struct diff *d);
/* Flag DIFF_ONE_SIDE the rows of families present (per row: 2 run counts) on one side only. */
void diff__mark_one_sided(struct diff *d, const uint32_t *present);
/* Row row was seen spelled s (len bytes) on side: see keyname.c. */
void diff__add_spelling(struct diff *d, uint32_t row, int side, const char *s, size_t len);

/* ---- the robot's filter (robot.c) ---- */

/*
 * Would the robot hide a row whose ranges separate as too small a change
 * (lib/stats.rb skip_small_change?)?  m: stats__robot_changed's metrics.
 */
bool diff__robot_small_change(const char *key, const struct stat_robot *m);

/* ---- the test (verdict.c, family.c; see "Verdicts" in diff.h) ---- */

enum scale {
	SCALE_SHARE,		/* perf-profile with samples known: counts out of a total */
	SCALE_RAW,		/* the key's own unit (absolute keys, negative values) */
	SCALE_LOG,		/* log(x + eps): relative keys, noise as a fraction of the level */
};

/* A family: keys whose noise is estimated together and whose FDR is controlled together. */
struct fam {
	char *name;
	enum scale scale;
	bool children;		/* perf-profile.children.<event>: judges disturbed runs */
	/*
	 * The prior follows the keys' level (limma-trend): shares, and the
	 * costs per op of cost.h, whose small functions (a few samples a run)
	 * jitter far more, relatively, than the large ones.
	 */
	bool trend;
	bool score;		/* the workload's score (DIFF_SCORE): a BH family apart */
	double *inv_n;		/* SHARE: per run (base then new) 1 / samples */
	double total[2];	/* SHARE: samples of each side */
	/*
	 * SHARE: between-run spread phi * shape: SHAPE_SQUARE, phi a squared
	 * coefficient of variation (a run is a few % slower everywhere), or
	 * SHAPE_COUNT, phi * p (100 - p), as if each run held 1 / phi more
	 * samples' worth of noise (small functions jitter more, relatively).
	 */
	double phi;
	enum { SHAPE_SQUARE, SHAPE_COUNT } shape;
	struct stat_prior prior;
	bool have_prior;
	size_t m, rejected;	/* rows tested, rows with q < alpha */
	/*
	 * The Benjamini-Hochberg family its rows are adjusted in (an index
	 * into the families): its own for perf-profile shares; one for all
	 * the other keys, and one for all the ambient keys, so that the
	 * workload's handful of metrics and each monitor do not each spend
	 * an alpha of their own.  bh_m, bh_rejected: that family's counts.
	 */
	size_t bh, bh_m, bh_rejected;
};

/* Per row, what the test sees (diff__compute's scratch). */
struct trow {
	uint32_t fam;
	bool tested;
	double delta;		/* new - base on the test scale */
	double s2;		/* RAW/LOG: pooled variance; SHARE: the dispersion (after phi) */
	double level;		/* SHARE: pooled share in points; LOG: the mean value */
	double c;		/* SHARE: 1e4 p (1 - p) at the pooled share: a run's sampling variance is c / n */
	double vfloor;		/* LOG of counts: the Poisson floor of a run's variance */
	double eps;		/* LOG: the test's log(x + eps) */
	double post;		/* the moderated variance (or dispersion) */
	double eb, en;		/* each side's variance of its mean before the dispersion (RAW/LOG: 1/n) */
	double known;		/* SHARE: the sampling part of eb + en */
	double s2alt;		/* SHARE: dispersion about each side's own level */
	double df;
	size_t runs;		/* the runs tested when not all (a score some runs lack), else 0 */
	/*
	 * One value in every run of each side (2 runs a side or more): no
	 * spread was seen.  same_values: and the two sides' values are
	 * equal.  exact: a count of the workload's own, whose only noise is
	 * its print (eb, en hold that, post 1, df infinite: family.c).
	 */
	bool constant, same_values, exact;
	double z;		/* t* + t_0.8 at the row's BH threshold */
	double wbh;		/* its weight in its family's weighted BH (a mean of 1) */
	uint32_t gate;		/* self/calltrace: the children row that raised its q, or HASHIDX_NONE */
};

struct tctx {
	struct diff *d;
	/* the rows are call paths (diff__test_shares): no key, no self or calltrace rows to gate */
	bool paths;
	struct fam *fam;
	size_t nr_fam, alloc_fam, last;
	struct trow *t;
	double *buf;		/* n values */
	double *phi_buf;	/* a family's keys: phi's dispersions (family.c) */
	/*
	 * Costs per op (cost.h): each event's "cost.total.<event>" row and its
	 * mean over each side's runs (cost_total[2 i], [2 i + 1]), the levels
	 * its functions' rows are filtered by (DIFF_COST_TEST_FLOOR).
	 * Pointers into d's keys.
	 */
	const char **cost_event;
	double *cost_total;
	const double **cost_total_v;	/* the total's value in every run (its row's v) */
	size_t nr_cost;
	/* per run (base then new), its workload's elapsed seconds (*.time.elapsed_time), or NULL */
	double *secs;
};

/*
 * The residual degrees of freedom of a row: pairs - 1 when the diff is
 * paired (diff.h: the within-pair differences), else runs - 2 (each
 * side's mean).
 */
static inline double tctx__dfree(const struct tctx *x)
{
	return x->d->pairs ? (double)x->d->pairs - 1 : (double)(x->d->nb + x->d->nn - 2);
}

/*
 * A function's cost rows are tested when its mean self (children) cost
 * over both sides is at least this % of the event's mean total: below, a
 * few samples a run, whose log-scale jumps (0 in one run, 3 samples in the
 * next) would set the family's prior for every function.  The perf-profile
 * rows' test floor in the same spirit (independent filtering), higher
 * because the prior of a log scale is fitted to the spread of the runs:
 * a cost's Poisson floor (verdict.c, cost_counts) keeps a small function
 * no surer than its samples, not the prior from its noise (at 0.05, a
 * stress-ng --fork pair's children family was fitted over 442 keys
 * instead of 176, d0 0.37 against 1.6, and 8 more costs were "can't tell").
 */
#define DIFF_COST_TEST_FLOOR 0.5

/* Fill x's cost totals from d's rows (values set, before tctx__classify). */
void tctx__cost_totals(struct tctx *x);
/* x->secs from the rows, where every run has its elapsed time. */
void tctx__run_seconds(struct tctx *x);

/*
 * Summary, flags, the robot's filter and (with one run a side) the
 * verdict of row r; a row to be tested gets its family and test scale.
 * present: the runs of base and of new that had the key; have: for a
 * score row, which runs (base then new) had it, else NULL; nsamp: per run
 * (base then new) the samples behind the row's event, or NULL.
 */
void tctx__classify(struct tctx *x, struct diff_row *r, const uint32_t *present,
		    const uint8_t *have, bool base_has_pp, double *scratch, const double *nsamp);
/*
 * A share row (of its runs' samples nsamp, base then new) to be tested in
 * the SCALE_SHARE family name; children: a perf-profile.children family
 * (its runs are judged for disturbance).
 */
void tctx__prep_share(struct tctx *x, struct diff_row *r, const char *name, bool children,
		      const double *nsamp);
/* phi, the dispersions, the prior and the moderated variances of family fi. */
void tctx__fit_family(struct tctx *x, size_t fi);
/* A SHARE family's between-run spread at a level (points), before phi: its shape's. */
double fam__spread(const struct fam *f, double level);
/*
 * The presence test of tested SHARE row i (presence.c): the p of its
 * being 0 in every run of one side and at least its least share in every
 * run of the other, under one rate shared by both sides with the family's
 * spread; 1 where the row does not show that (or the diff is paired).
 */
double tctx__presence_p(struct tctx *x, size_t i);
/* Tests, BH per family, verdicts and detectable changes of the rows tctx__classify prepared. */
void tctx__test(struct tctx *x);
/* Free what x holds (its families, rows' scratch, buffers), not x->d. */
void tctx__release(struct tctx *x);
/* Self and calltrace rows gated on their children row (verdictgate.c). */
void tctx__gate_on_children(struct tctx *x);
/* ---- after the test: power (power.c) and the children gate (verdictgate.c) ---- */

/* A calltrace row with runs under perf's cut on a side: those runs are taken at the cut. */
bool diff_row__censored(const struct diff_row *r);
/* What the test sees, base then new: r->v, or buf (a calltrace key's absent runs at the cut). */
const double *diff_row__test_values(const struct diff_row *r, size_t n, double *buf);
/* The delta a tested row's statistic uses (Yates' correction for shares). */
double trow__stat_delta(const struct trow *t, const struct fam *f);
/* Standard error of a tested row's delta. */
double trow__se(const struct trow *t);
/* The row's detectable change (r->mde) and runs needed, in its change unit. */
void trow__power(const struct trow *t, const struct fam *fams, struct diff_row *r,
		 const struct diff *d);
/* d->advice from the first children family's rows (the median mde and runs needed). */
void tctx__runs_advice(struct tctx *x);

#endif
