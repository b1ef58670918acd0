/*
 * session: a comparison run from named sides to selected rows; see
 * include/mmprof/diffengine.h.  The order of the steps is the order in
 * which a reader is told what is wrong: the files, the runs dropped, the
 * failed workloads, the sampling events, then the costs' work count; a
 * warning that does not stop the comparison (command lines that differ)
 * comes after every error, so that an error stays one line.
 */
#include <errno.h>
#include <malloc.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mmprof/diffengine.h"
#include "mmprof/keys.h"
#include "mmprof/xalloc.h"

#include "engine-int.h"

void diff_result__say(const struct diff_result *r, enum diff_say kind, const char *fmt, ...)
{
	va_list ap;
	char *s;
	int len;

	if (!r->o.say)
		return;
	va_start(ap, fmt);
	len = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	if (len < 0)
		return;
	s = xmalloc((size_t)len + 1);
	va_start(ap, fmt);
	vsnprintf(s, (size_t)len + 1, fmt, ap);
	va_end(ap);
	r->o.say(r->o.say_arg, kind, s);
	free(s);
}

/*
 * The files pooled into a side should be runs of one workload: say so
 * when two were recorded with different command lines (a mixed-up
 * artifact, another -F), naming both; the comparison goes on.
 */
static void warn_cmdlines(const struct diff_result *r)
{
	struct outbuf ca = { 0 }, cb = { 0 }, fa = { 0 }, fb = { 0 };	/* the files' text */
	const struct diff_side *s = r->s;
	size_t k, a, b;

	for (k = 0; k < r->nr_sides; k++) {
		if (!diff_side__cmdlines_differ(&s[k], &a, &b))
			continue;
		diff_result__say(r, DIFF_SAY_WARNING, "%s: its files were recorded with different command lines: "
		    "%s has '%s', %s has '%s'; the runs pooled may not be of one workload", s[k].name,
		    outbuf__text_safe(&fa, s[k].paths[a]),
		    outbuf__text_safe(&ca, profile__meta(s[k].profiles[a], "cmdline")),
		    outbuf__text_safe(&fb, s[k].paths[b]),
		    outbuf__text_safe(&cb, profile__meta(s[k].profiles[b], "cmdline")));
	}
	outbuf__release(&ca);
	outbuf__release(&cb);
	outbuf__release(&fa);
	outbuf__release(&fb);
}

/*
 * A side whose workload failed measured the failure, not the workload.
 * Failed in every run: an error unless allow_failed (a table, JSON or
 * gate must not pass it off as a measurement), else a warning; in some
 * runs: a warning naming them.  One line a side, or the error's one line
 * alone (the first side that has it).  Returns -EINVAL on the error.
 */
static int check_failed_runs(const struct diff_result *r)
{
	struct diff_side_failures *f = xcalloc(r->nr_sides, sizeof(*f));
	const struct diff_side *s = r->s;
	size_t k;

	for (k = 0; k < r->nr_sides; k++)
		diff_side__failures(&s[k], &f[k]);
	for (k = 0; k < r->nr_sides && !r->o.allow_failed; k++)
		if (f[k].failed && f[k].failed == f[k].total) {
			diff_result__say(r, DIFF_SAY_ERROR, "%s: the workload failed in every run (%zu of %zu, %s): its "
			    "numbers measure the failure; not compared (--allow-failed compares anyway)",
			    s[k].name, f[k].failed, f[k].total, f[k].statuses);
			free(f);
			return -EINVAL;
		}
	for (k = 0; k < r->nr_sides; k++) {
		if (!f[k].failed)
			continue;
		if (f[k].failed == f[k].total)
			diff_result__say(r, DIFF_SAY_WARNING, "%s: the workload failed in every run (%zu of %zu, %s): its "
			    "numbers measure the failure", s[k].name, f[k].failed, f[k].total, f[k].statuses);
		else
			diff_result__say(r, DIFF_SAY_WARNING, "%s: the workload failed in %zu of %zu runs: %s%s", s[k].name,
			    f[k].failed, f[k].total, f[k].runs, f[k].failed > 8 ? ", ..." : "");
	}
	free(f);
	return 0;
}

/*
 * The sampling events of the base and of column k's side into r->ev;
 * when they differ, an error unless force, which sets forced[k] and,
 * with one sampling event a side, pairs the perf-profile rows of the two
 * events in column k's options (the keys name their event), as a forced
 * comparison asks; several events a side stay apart.
 */
static int compare_events(struct diff_result *r, size_t k)
{
	struct outbuf sb = { 0 }, sn = { 0 };	/* the files' event names: the text rule (escape.h) */
	const struct diff_side *sk = &r->s[k + 1];
	char *eb = r->ev[0], *en = r->ev[k + 1];

	diff_side__events(&r->s[0], true, eb, sizeof(r->ev[0]));
	diff_side__events(sk, true, en, sizeof(r->ev[0]));
	if (!strcmp(eb, en))
		return 0;
	if (!r->o.force) {
		diff_result__say(r, DIFF_SAY_ERROR, "DIFFERENT SAMPLING EVENTS: base used '%s', %s used '%s'; their "
		    "perf-profile percentages are not comparable (--force compares anyway)",
		    outbuf__text_safe(&sb, eb), sk->name, outbuf__text_safe(&sn, en));
		outbuf__release(&sb);
		outbuf__release(&sn);
		return -EINVAL;
	}
	r->forced[k] = true;
	diff_result__say(r, DIFF_SAY_ALERT, "different sampling events (base '%s', %s '%s'), compared because of --force",
	    outbuf__text_safe(&sb, eb), sk->name, outbuf__text_safe(&sn, en));
	outbuf__release(&sb);
	outbuf__release(&sn);
	if (!strchr(eb, ',') && !strchr(en, ',') && *eb && *en) {
		keys__event_name(eb, r->alias_to[k], sizeof(r->alias_to[k]));
		keys__event_name(en, r->alias_from[k], sizeof(r->alias_from[k]));
		if (strcmp(r->alias_to[k], r->alias_from[k])) {
			r->co[k].alias_from = r->alias_from[k];
			r->co[k].alias_to = r->alias_to[k];
		}
	}
	return 0;
}

/* The sides loaded, runs dropped, failures and events checked: what may stop a comparison early. */
static int prepare(struct diff_result *r)
{
	struct errmsg e;
	size_t k;
	int err;

	err = diff_sides__load(r->s, r->nr_sides, &e);
	if (err < 0) {
		diff_result__say(r, DIFF_SAY_FILE, "%s", e.msg);
		return err;
	}
	if (r->o.drop_run) {
		err = diff_sides__drop(r->s, r->nr_sides, r->o.drop_run, &e);
		if (err < 0) {
			diff_result__say(r, DIFF_SAY_ERROR, "%s", e.msg);
			return err;
		}
	}
	err = check_failed_runs(r);
	for (k = 0; k < r->nd && !err; k++) {
		r->co[k] = r->o.stats;
		r->col_names[k] = r->s[k + 1].name;
		err = compare_events(r, k);
	}
	return err;
}

/*
 * The pairs of the base and column k's compared runs, 0 with why when
 * none; o->paired set (diff_opts__set_paired).
 */
static size_t pairing(const struct diff_side *s, size_t k, struct diff_opts *o, char *why, size_t size)
{
	bool *kb = diff_side__kept(&s[0]), *kn = diff_side__kept(&s[k + 1]);
	const bool *keep[2] = { kb, kn };
	size_t pairs = diff_opts__set_paired(o, (const struct profile *const *)s[0].profiles, s[0].nr,
					     (const struct profile *const *)s[k + 1].profiles, s[k + 1].nr,
					     keep, why, size);

	free(kb);
	free(kn);
	return pairs;
}

/* Column k's options, with the values the comparison's tables before it left. */
static struct diff_opts *budgeted(struct diff_result *r, size_t k)
{
	/* 0 would be the default: 1 refuses any key (a table has 2 runs or more) */
	r->co[k].max_values = r->values_left ? r->values_left : 1;
	return &r->co[k];
}

/*
 * After diff__compute of d (nb + nn runs) returned err: err, said in one
 * line when -E2BIG, an error, or with what a warning that what is left out.
 */
static int values_left(struct diff_result *r, const struct diff *d, size_t nb, size_t nn,
		       const char *what, int err)
{
	char why[256];

	if (err == -E2BIG) {
		diff__values_refusal(nb, nn, r->values_left, why, sizeof(why));
		if (what)
			diff_result__say(r, DIFF_SAY_WARNING, "%s left out: %s", what, why);
		else
			diff_result__say(r, DIFF_SAY_ERROR, "%s", why);
	} else if (err == 0) {
		r->values_left -= d->nr * (nb + nn);
	}
	return err;
}

/*
 * The keys' diff of column k (the base against side k + 1) into r->d[k]:
 * paired as the files are, within the values the comparison has left,
 * and why its runs were not paired in r->d[k].unpaired.  0, or -errno
 * (-E2BIG said).
 */
static int column(struct diff_result *r, size_t k)
{
	const struct diff_side *s = r->s;
	char why[sizeof(r->d[k].unpaired)];
	size_t pairs = pairing(s, k, &r->co[k], why, sizeof(why));
	int err;

	if (pairs && !r->co[k].pair)
		snprintf(why, sizeof(why), "%zu pairs recorded interleaved (--paired tests within "
			 "pairs; on real recordings it has not gained: statistics.md, Pairs)", pairs);
	err = values_left(r, &r->d[k], s[0].nr_runs, s[k + 1].nr_runs, NULL,
			  diff__compute(&r->d[k], s[0].runs, s[0].nr_runs, s[k + 1].runs,
					s[k + 1].nr_runs, budgeted(r, k)));
	if (!err && !r->d[k].pairs && !r->d[k].unpaired[0])
		snprintf(r->d[k].unpaired, sizeof(r->d[k].unpaired), "%s", why);
	return err;
}

int diff_engine__run(const struct diff_engine_opts *o, struct diff_side *s, size_t nr_sides,
		     struct diff_result *r)
{
	struct errmsg e;
	size_t k;
	int err;

	memset(r, 0, sizeof(*r));
	/*
	 * The memory policy: arrays of 1 MiB or more are mapped on their
	 * own and unmapped when freed.  By default malloc raises that
	 * threshold to the largest block freed so far (up to 32 MiB) and
	 * trims an arena only past twice it, so the load's and the keys'
	 * freed arrays stayed resident under the costs' and the chains'
	 * (diff -g of the bench pair, two 10-run files of 573,060 nodes:
	 * 213 MB peak RSS for a heap of 194, 186 MB with this; no more CPU:
	 * Documentation/performance.md, "One symbol trie per file per diff").
	 */
	mallopt(M_MMAP_THRESHOLD, 1 << 20);
	r->o = *o;
	r->s = s;
	r->nr_sides = nr_sides;
	r->nd = nr_sides ? nr_sides - 1 : 0;
	r->multi = r->nd > 1;
	r->values_left = DIFF_MAX_VALUES;
	if (!r->nd || r->nd > DIFF_MAX_COLUMNS) {
		diff_result__say(r, DIFF_SAY_ERROR, "%zu sides: a base and 1 to %d compared columns are needed",
				 nr_sides, DIFF_MAX_COLUMNS);
		r->nd = 0;	/* nothing of r's to release */
		return -EINVAL;
	}
	err = prepare(r);
	if (err < 0)
		return err;
	/* the costs per op are built on a second thread while this one diffs the keys */
	/* the costs read the files' collapses last unless -g's chains or the HTML's graphs do */
	err = cost_sides__start(&r->cs, s, nr_sides, o->per, o->callchains || o->keep_chains ? NULL : s, &e);
	if (err < 0) {
		diff_result__say(r, DIFF_SAY_ERROR, "%s", e.msg);
		return err;
	}
	warn_cmdlines(r);	/* after the errors: an error stays one line */
	for (k = 0; k < r->nd; k++) {
		err = column(r, k);
		if (err == -E2BIG)
			return err;
		if (err < 0) {
			diff_result__say(r, DIFF_SAY_ERROR, "nothing to compare");
			return -EINVAL;
		}
	}
	for (k = 0; k < r->nd; k++) {
		char ev[128];

		snprintf(ev, sizeof(ev), "%.*s", (int)strcspn(r->ev[0], ","), r->ev[0]);
		chain_fns__from_diff(&r->fns[k], &r->d[k], ev);
	}
	/* the statistics' options with their defaults, for -g after the diffs are gone */
	r->min_points = r->d[0].o.min_points;
	r->alpha = r->d[0].o.alpha;
	cost_sides__wait(&r->cs);
	/*
	 * The costs' symbol tries went at the end of the build, freed by the
	 * thread that built them, in its own malloc arena: this thread cannot
	 * reuse those pages, which stay resident unless given back (20 of 214
	 * MB on two 10-run files of 100,000 stacks).
	 */
	malloc_trim(0);
	/* the costs per op: a diff of their own, which gates read too (diff.h) */
	for (k = 0; k < r->nd && r->cs.nr_events; k++) {
		err = values_left(r, &r->dc[k], r->cs.side[0].nr_runs, r->cs.side[k + 1].nr_runs,
				  "the costs per op", diff__compute(&r->dc[k], r->cs.side[0].runs,
						r->cs.side[0].nr_runs, r->cs.side[k + 1].runs,
						r->cs.side[k + 1].nr_runs, budgeted(r, k)));
		if (err == 0)
			r->d[k].cost = &r->dc[k];
	}
	r->sel = o->all ? DIFF_SELECT_ALL : o->robot ? DIFF_SELECT_ROBOT : DIFF_SELECT_DEFAULT;
	r->rows = r->multi ? diff__select_columns(r->d, r->nd, r->sel, &r->n)
			   : diff__select(&r->d[0], r->sel, &r->n);
	/* the robot's outputs stay the robot's: no costs in them */
	if (!r->multi && !o->robot && r->d[0].cost)
		r->crows = diff__select(&r->dc[0], o->all ? DIFF_SELECT_ALL : DIFF_SELECT_DEFAULT, &r->cn);
	return 0;
}

void diff_result__done_with_rows(struct diff_result *r)
{
	size_t k;

	/*
	 * With one column and nothing reading the rows after the table (the
	 * column rows of several point into the keys), the keys' memory goes
	 * before the chains' (on two 10-run files of 100,000 stacks, 66 MB of
	 * a 306 MB peak); the options are the same in every column.
	 */
	if (r->multi || r->o.keep_rows || r->rows_gone)
		return;
	for (k = 0; k < r->nd; k++) {
		diff__release(&r->d[k]);
		diff__release(&r->dc[k]);
	}
	free(r->crows);
	r->crows = NULL;
	cost_sides__release(&r->cs);
	for (k = 0; k < r->nr_sides; k++)
		diff_side__release_keys(&r->s[k]);
	r->rows_gone = true;
	/* freed in the middle of the heap: malloc keeps the pages (RSS stays) unless told to give them back */
	malloc_trim(0);
}

int diff_result__chains(struct diff_result *r, size_t k, struct chain_diff *cd)
{
	const struct diff_side *s0 = &r->s[0], *sk = &r->s[k + 1];
	/* the runs the table compares: --drop-run's are left out here too */
	bool *kb = diff_side__kept(s0), *kn = diff_side__kept(sk);
	const bool *keep[2] = { kb, kn };
	/* the HTML's flame graphs read the views after the last column's chains */
	struct chain_views views = { { s0->views, sk->views }, k + 1 == r->nd && !r->o.keep_chains };
	char ev[128];
	int err;

	snprintf(ev, sizeof(ev), "%.*s", (int)strcspn(r->ev[0], ","), r->ev[0]);
	err = chains__compute_scaled(cd, (const struct profile *const *)s0->profiles, s0->nr,
				     (const struct profile *const *)sk->profiles, sk->nr, ev,
				     r->min_points > 0.5 ? r->min_points : 0.5, r->alpha, r->o.stats.pair,
				     NULL, keep, &views);
	if (!err)
		chains__take_functions(cd, &r->fns[k]);
	free(kb);
	free(kn);
	if (views.last)
		diff_result__drop_views(r);
	return err;
}

void diff_result__drop_views(struct diff_result *r)
{
	size_t k;

	for (k = 0; r->s && k < r->nr_sides; k++)
		diff_side__drop_views(&r->s[k]);
}

void diff_result__keep_chains(struct diff_result *r, size_t k, struct chain_diff *cd)
{
	if (!r->o.keep_chains || k >= r->nd) {
		chains__release(cd);
		return;
	}
	diff_result__drop_chains(r, k);
	r->chains[k] = *cd;
	r->have_chains[k] = true;
	memset(cd, 0, sizeof(*cd));
}

void diff_result__drop_chains(struct diff_result *r, size_t k)
{
	if (k < r->nd && r->have_chains[k])
		chains__release(&r->chains[k]);
	if (k < r->nd)
		r->have_chains[k] = false;
}

void diff_result__release(struct diff_result *r)
{
	size_t k;

	free(r->rows);
	free(r->crows);
	r->rows = r->crows = NULL;
	for (k = 0; k < r->nd; k++) {
		diff__release(&r->d[k]);
		diff__release(&r->dc[k]);
		chain_fns__release(&r->fns[k]);
		diff_result__drop_chains(r, k);
	}
	cost_sides__release(&r->cs);
	for (k = 0; r->s && k < r->nr_sides; k++)
		diff_side__release(&r->s[k]);
}

int diff_engine__functions(struct chain_fns *f, struct profile *const *base, size_t nbp,
			   struct profile *const *cur, size_t nnp, char **paths, const char *event,
			   const struct diff_opts *o, struct errmsg *e)
{
	struct diff_side s[2] = { { .name = "base", .paths = paths, .nr = nbp },
				  { .name = "new", .paths = paths + nbp, .nr = nnp } };
	/* no say: the caller draws a picture, and e says why there are no verdicts */
	struct diff_result r = { .s = s, .nr_sides = 2, .nd = 1, .values_left = DIFF_MAX_VALUES };
	size_t k, i;
	int err;

	memset(f, 0, sizeof(*f));
	r.co[0] = *o;
	s[0].profiles = xcalloc(nbp + 1, sizeof(*s[0].profiles));
	s[1].profiles = xcalloc(nnp + 1, sizeof(*s[1].profiles));
	memcpy(s[0].profiles, base, nbp * sizeof(*base));
	memcpy(s[1].profiles, cur, nnp * sizeof(*cur));
	/* the engine's steps: the sides' keys, then column 0 as diff_engine__run makes it */
	err = diff_sides__load(s, 2, e);
	if (!err)
		err = column(&r, 0);
	if (!err)
		chain_fns__from_diff(f, &r.d[0], event);
	/* the profiles stay the caller's */
	for (k = 0; k < 2; k++)
		for (i = 0; i < s[k].nr; i++)
			s[k].profiles[i] = NULL;
	diff_result__release(&r);
	return err;
}
