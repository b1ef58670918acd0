/*
 * judge: a candidate's recordings against the good and bad sides, through
 * the diff engine (diffengine.h) with the good side as the base and two
 * columns, bad and the candidate, so that the keys, their normalisation,
 * the score (keykind__score or --score) and the gates' glob rules are
 * the diff's own.  The keys judged are those of the good-bad comparison
 * that separate the sides by BISECT_MIN_SEPARATION runs' spreads or more,
 * the most separated first, at most BISECT_MAX_KEYS of them.
 *
 * One run's variance of a key, from the model the diff uses: the spread
 * of the good and bad runs pooled, never below the sampling noise of a
 * share of the run's samples (binomial, p(1 - p) / n, as diff.h's
 * Verdicts) nor below (BISECT_REL_FLOOR of the mean)^2, so that three
 * runs that happen to agree closely do not make the test overconfident.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "mmprof/bisect.h"
#include "mmprof/diffengine.h"
#include "mmprof/gate.h"
#include "mmprof/keykind.h"
#include "mmprof/store.h"
#include "mmprof/xalloc.h"

#define BISECT_MIN_SEPARATION	2.0
#define BISECT_MAX_KEYS		4
#define BISECT_REL_FLOOR	0.01

struct say_last {
	struct errmsg *e;
	bool said;
};

/* The engine's error (or a file's) becomes the judgement's one line; notes are not wanted here. */
static void keep_error(void *arg, enum diff_say kind, const char *line)
{
	struct say_last *l = arg;

	if (kind == DIFF_SAY_ERROR || kind == DIFF_SAY_FILE) {
		errmsg__set(l->e, -EINVAL, "%s", line);
		l->said = true;
	}
}

/* The samples of one run of a side, or 0 when its files do not say. */
static double run_samples(const struct diff_side *s)
{
	double named, all;

	if (!s->nr_runs || !diff_side__named(s, &named, &all))
		return 0;
	return named / (double)s->nr_runs;
}

static double run_variance(const struct diff_row *r, double ng_samples, double nb_samples)
{
	size_t ng = r->base.n, nb = r->cur.n, df = ng + nb >= 2 ? ng + nb - 2 : 0;
	double var = df ? ((ng - 1) * r->base.var1 + (nb - 1) * r->cur.var1) / (double)df : 0;
	double mean = (r->base.mean + r->cur.mean) / 2, floor = BISECT_REL_FLOOR * fabs(mean);
	double n = ng_samples > 0 && nb_samples > 0 ? fmin(ng_samples, nb_samples) : 0;

	if (floor * floor > var)
		var = floor * floor;
	if (r->absolute && keykind__profile(r->key) != KEYPROF_NONE && n > 0) {
		double p = fmin(fmax(mean / 100, 0), 1), sampling = 1e4 * p * (1 - p) / n;

		if (sampling > var)
			var = sampling;
	}
	return var;
}

struct scored {
	const struct diff_row *r;
	double var, sep;
};

static int by_separation(const void *a, const void *b)
{
	const struct scored *x = a, *y = b;

	return x->sep < y->sep ? 1 : x->sep > y->sep ? -1 : strcmp(x->r->key, y->r->key);
}

/* Is row r one the judgement reads: the score, or a match of a --key gate? */
static bool wanted(const struct diff_row *r, const struct gate *g, size_t ng)
{
	size_t i;

	if (!ng)
		return r->flags & DIFF_SCORE;
	for (i = 0; i < ng; i++)
		if (gate__matches(&g[i], r->key) && gate__applies(&g[i], r))
			return true;
	return false;
}

static int pick_keys(const struct bisect_judge_opts *o, const struct diff_result *r,
		     struct bisect_model *m, struct errmsg *e)
{
	const struct diff *d = &r->d[0];
	size_t i, n = 0, ng = o->keys ? o->keys->nr : 0;
	struct gate *g = xcalloc(ng + 1, sizeof(*g));
	struct scored *sc = xcalloc(d->nr + 1, sizeof(*sc));
	double sg = run_samples(&r->s[0]), sb = run_samples(&r->s[1]);
	const struct diff_row *closest = NULL;
	double closest_sep = -1;
	int err = 0;

	for (i = 0; i < ng; i++) {
		size_t len = strlen(o->keys->items[i]) + 8;
		char *expr = xmalloc(len);

		snprintf(expr, len, "%s >= 0", o->keys->items[i]);
		err = gate__parse(expr, &g[i], e);
		free(expr);
		if (err < 0) {
			errmsg__prefix(e, err, "--key '%s'", o->keys->items[i]);
			goto out;
		}
	}
	for (i = 0; i < d->nr; i++) {
		const struct diff_row *row = &d->rows[i];
		double var;

		if (!wanted(row, g, ng) || row->flags & (DIFF_ADDRESS | DIFF_ONE_SIDE))
			continue;
		var = run_variance(row, sg, sb);
		sc[n] = (struct scored){ row, var, fabs(row->cur.mean - row->base.mean) / sqrt(var) };
		if (sc[n].sep > closest_sep) {
			closest_sep = sc[n].sep;
			closest = row;
		}
		if (sc[n].sep >= BISECT_MIN_SEPARATION)
			n++;
	}
	if (!n) {
		if (closest)
			err = errmsg__set(e, -EINVAL, "no %s separates good from bad: the nearest, %s, "
					  "moved %.3g -> %.3g, %.1f runs' spreads (%.1f needed); name a "
					  "key that moved with --key, or record more runs of each side",
					  ng ? "key named" : "score key", closest->key, closest->base.mean,
					  closest->cur.mean, closest_sep, BISECT_MIN_SEPARATION);
		else
			err = errmsg__set(e, -EINVAL, "%s of good and bad; name a key with --key "
					  "('mmprof report --keys FILE' lists them)",
					  ng ? "no key matches --key in the files" :
					  "no score key (*.ops_per_sec, *.throughput, ...) in the files");
		goto out;
	}
	qsort(sc, n, sizeof(*sc), by_separation);
	for (i = 0; i < n && i < BISECT_MAX_KEYS; i++)
		bisect_model__add(m, sc[i].r->key, sc[i].r->base.mean, sc[i].r->cur.mean, sc[i].var,
				  sc[i].r->base.n, sc[i].r->cur.n);
out:
	for (i = 0; i < ng; i++)
		gate__release(&g[i]);
	free(g);
	free(sc);
	return err;
}

/* A candidate file that cannot be a recording: missing or empty (the run or build failed). */
static bool missing(const char *path, char *why, size_t size)
{
	struct stat st;
	size_t split;

	if (store__is_ref(path, &split))
		return false;
	if (stat(path, &st) < 0 || !st.st_size) {
		snprintf(why, size, "'%s' is %s: the build or the runs failed", path,
			 stat(path, &st) < 0 ? "missing" : "empty");
		return true;
	}
	return false;
}

int bisect__judge(const struct bisect_judge_opts *o, char *const *files, size_t nr,
		  struct bisect_judgement *j, struct errmsg *e)
{
	struct diff_side s[3] = {
		{ .name = "good", .paths = o->good->items, .nr = o->good->nr },
		{ .name = "bad", .paths = o->bad->items, .nr = o->bad->nr },
		{ .name = "candidate", .paths = (char **)files, .nr = nr },
	};
	struct say_last l = { e, false };
	struct diff_engine_opts eo = {
		.stats = { .score = o->score },
		.allow_failed = true, .say = keep_error, .say_arg = &l,
	};
	struct diff_side_failures f;
	struct diff_result r;
	double *x = NULL;
	size_t i, k;
	int err;

	memset(j, 0, sizeof(*j));
	bisect_sprt__init(&j->t, o->alpha, o->beta);
	for (i = 0; i < nr; i++)
		if (missing(files[i], j->why, sizeof(j->why))) {
			j->verdict = BISECT_SKIP;
			return 0;
		}
	err = diff_engine__run(&eo, s, 3, &r);
	if (err < 0) {
		if (!l.said)
			errmsg__set(e, err, "the comparison failed: %s", strerror(-err));
		goto out;
	}
	for (i = 0; i < 2; i++) {
		diff_side__failures(&r.s[i], &f);
		if (f.failed == f.total) {
			err = errmsg__set(e, -EINVAL, "the %s side's workload failed in every run (%s): "
					  "record it again", s[i].name, f.statuses);
			goto out;
		}
	}
	diff_side__failures(&r.s[2], &f);
	if (f.failed) {
		j->verdict = BISECT_SKIP;
		snprintf(j->why, sizeof(j->why), "%zu of the candidate's %zu runs failed (%s)", f.failed,
			 f.total, f.statuses);
		goto out;
	}
	if (r.s[0].nr_runs < 2 || r.s[1].nr_runs < 2) {
		err = errmsg__set(e, -EINVAL, "the good and bad sides need 2 runs or more each for their "
				  "spread (good has %zu, bad %zu); record them with -r 3 or more",
				  r.s[0].nr_runs, r.s[1].nr_runs);
		goto out;
	}
	err = pick_keys(o, &r, &j->m, e);
	if (err < 0)
		goto out;
	j->runs = r.s[2].nr_runs;
	x = xcalloc(j->m.nr + 1, sizeof(*x));
	for (i = 0; i < j->runs; i++) {
		for (k = 0; k < j->m.nr; k++) {
			const struct diff_row *row = diff__find(&r.d[1], j->m.keys[k].key);

			x[k] = row ? row->v[r.d[1].nb + i] : 0;
		}
		j->llr += bisect_model__run_llr(&j->m, &j->t, x);
	}
	j->verdict = bisect_sprt__decide(&j->t, j->llr);
	if (j->verdict == BISECT_MORE)
		j->more = bisect_model__more_runs(&j->m, &j->t, j->llr);
	snprintf(j->why, sizeof(j->why), "%zu run%s: log-likelihood ratio %+.2f, %s", j->runs,
		 j->runs == 1 ? "" : "s", j->llr,
		 j->verdict == BISECT_BAD ? "past the bad threshold" :
		 j->verdict == BISECT_GOOD ? "past the good threshold" : "between the thresholds");
out:
	free(x);
	diff_result__release(&r);
	return err;
}

void bisect_judgement__release(struct bisect_judgement *j)
{
	bisect_model__release(&j->m);
}
