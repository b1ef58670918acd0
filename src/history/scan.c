/*
 * scan: a series' trends and, at each change point of the score, the
 * diff engine's comparison of the two sides (history.h).
 *
 * The profile rows named at a change point must pass two tests that see
 * different things: the diff's (the runs of a few commits each side,
 * with its family spread and sampling noise, FDR across the family) and
 * the key's own change point in its trend within a commit of the
 * score's (the whole series).  A row significant in one window alone is
 * a fluctuation the other test does not share.
 */
#include <fnmatch.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "mmprof/history.h"
#include "mmprof/keykind.h"
#include "mmprof/xalloc.h"

#define HISTORY_WINDOW 5

static bool wanted(const struct history_key *k, const struct history_scan_opts2 *o)
{
	size_t i;

	for (i = 0; i < o->nr_globs; i++)
		if (!fnmatch(o->globs[i], k->name, 0))
			return true;
	return false;
}

/*
 * The commit within one of at where key's trend changes, or SIZE_MAX.  A
 * key not read yet is read from the store.
 */
static size_t change_near(const struct history_series *hs, const char *key, size_t at,
			  const struct history_scan_opts *o)
{
	const struct history_key *k = history_series__key(hs, key);
	struct history_key read = { 0 };
	struct history_trend t;
	struct errmsg e;
	size_t i, near = SIZE_MAX;

	if (!k && hs->owner && history_series__read_key(hs, key, &read, &e) == 0)
		k = &read;
	if (!k) {
		history_key__release(&read);
		return SIZE_MAX;
	}
	history__trend(hs, k, o, &t);
	for (i = 0; i < t.nr_cp && near == SIZE_MAX; i++)
		if (t.cp[i].at + 1 >= at && t.cp[i].at <= at + 1)
			near = t.cp[i].at;
	history_trend__release(&t);
	history_key__release(&read);
	return near;
}

/*
 * The diff of the point's sides, and the profile rows that moved with
 * it; *moved_at: the commit where they all changed (SIZE_MAX: they do
 * not agree, or none moved).
 */
static void scan_point(const struct history_series *hs, const struct history_scan_opts2 *o,
		       struct history_point *pt, size_t *moved_at)
{
	const struct history_trend *t = pt->score;
	size_t w = o->window ? o->window : HISTORY_WINDOW, at = t->cp[pt->cp].at, i, k, n;
	size_t lo = pt->cp ? t->cp[pt->cp - 1].at : 0;
	size_t hi = pt->cp + 1 < t->nr_cp ? t->cp[pt->cp + 1].at : hs->nr_commits;
	struct diff_engine_opts eo = {
		.stats = { .alpha = o->alpha, .min_points = o->trend.min_points, .min_pct = o->trend.min_pct,
			   .score = o->score },
		.callchains = o->callchains, .keep_rows = true, .say = o->say, .say_arg = o->say_arg,
	};
	const struct diff_row **rows;

	pt->from = at - lo > w ? at - w : lo;
	pt->to = hi - at > w ? at + w : hi;
	pt->nr_paths = pt->to - pt->from;
	pt->paths = xcalloc(pt->nr_paths + 1, sizeof(*pt->paths));
	for (i = 0; i < pt->nr_paths; i++) {
		const char *c = hs->commits[pt->from + i].commit;
		size_t len = strlen(o->store) + strlen(c) + 2;

		pt->paths[i] = xmalloc(len);
		snprintf(pt->paths[i], len, "%s:%s", o->store, c);
	}
	pt->sides[0] = (struct diff_side){ .name = "base", .paths = pt->paths, .nr = at - pt->from,
					   .machine = hs->machine, .benchmark = hs->benchmark };
	pt->sides[1] = (struct diff_side){ .name = "new", .paths = pt->paths + (at - pt->from),
					   .nr = pt->to - at, .machine = hs->machine, .benchmark = hs->benchmark };
	pt->r = xcalloc(1, sizeof(*pt->r));
	if (diff_engine__run(&eo, pt->sides, 2, pt->r) < 0) {
		diff_result__release(pt->r);
		free(pt->r);
		pt->r = NULL;
		return;
	}
	rows = diff__select(&pt->r->d[0], DIFF_SELECT_ALL, &n);
	pt->moved = xcalloc(n + 1, sizeof(*pt->moved));
	*moved_at = SIZE_MAX;
	for (k = 0; k < n; k++) {
		size_t near;

		if ((rows[k]->flags & DIFF_SCORE) && !strcmp(rows[k]->key, t->key->name))
			pt->score_row = rows[k];
		if (keykind__profile(rows[k]->key) == KEYPROF_NONE || !diff_row__changed(rows[k]) ||
		    (rows[k]->flags & DIFF_AMBIENT) || (near = change_near(hs, rows[k]->key, at, &o->trend)) == SIZE_MAX)
			continue;
		*moved_at = !pt->nr_moved || *moved_at == near ? near : SIZE_MAX - 1;
		pt->moved[pt->nr_moved++] = rows[k];
	}
	if (*moved_at == SIZE_MAX - 1)
		*moved_at = SIZE_MAX;
	free(rows);
}

static void point_release(struct history_point *pt)
{
	size_t j;

	if (pt->r) {
		diff_result__release(pt->r);
		free(pt->r);
	}
	for (j = 0; j < pt->nr_paths; j++)
		free(pt->paths[j]);
	free(pt->paths);
	free(pt->moved);
}

/* A line said, kept: its kind then its text. */
static void keep_line(void *arg, enum diff_say kind, const char *line)
{
	char k[16];

	snprintf(k, sizeof(k), "%d", (int)kind);
	strlist__add(arg, k);
	strlist__add(arg, line);
}

/*
 * No profile row moved with the score at change point p of trend t.
 * Where the profile moved a commit before the score's step (or after
 * it), one of the first diff's windows holds a commit of the profile's
 * other level: one commit of five carries the change, and whether its
 * rows flag is a draw of their test (t332 saw both on one series).  The
 * diff at that neighbour compares windows that do not mix the profile's
 * levels.  The neighbour (the earlier tried first) where every row that
 * moved changed at that very commit, the change point moved there; else
 * SIZE_MAX, the trend as it was.  The trial diffs' lines are not said.
 */
static size_t moved_neighbour(const struct history_series *hs, const struct history_scan_opts2 *o,
			      struct history_trend *t, size_t p)
{
	const struct history_change saved = t->cp[p];
	struct history_scan_opts2 quiet = *o;
	struct strlist lines = { 0 };
	size_t d;

	quiet.say = keep_line;
	quiet.say_arg = &lines;
	for (d = 0; d < 2; d++) {
		size_t nb = d ? saved.at + 1 : saved.at - 1, moved_at = SIZE_MAX;
		/* a point's diff keeps pointers to its sides: it stays where it was made */
		struct history_point *np;

		if ((!d && !saved.at) || !history_trend__move(t, p, nb))
			continue;
		np = xcalloc(1, sizeof(*np));
		np->score = t;
		np->cp = p;
		scan_point(hs, &quiet, np, &moved_at);
		point_release(np);
		free(np);
		strlist__release(&lines);
		if (moved_at == nb)
			return nb;
		t->cp[p] = saved;
	}
	return SIZE_MAX;
}

void history__scan(const struct history_series *hs, const struct history_scan_opts2 *o,
		   struct history_series_scan *out)
{
	struct history_scan_opts2 first = *o;
	struct strlist said = { 0 };
	size_t k, n = 0, p, i;

	memset(out, 0, sizeof(*out));
	out->hs = hs;
	out->trends = xcalloc(hs->nr_keys + 1, sizeof(*out->trends));
	for (k = 0; k < hs->nr_keys; k++)
		if (hs->keys[k].score)
			history__trend(hs, &hs->keys[k], &o->trend, &out->trends[n++]);
	out->nr_score = n;
	for (k = 0; k < hs->nr_keys; k++)
		if (!hs->keys[k].score && wanted(&hs->keys[k], o))
			history__trend(hs, &hs->keys[k], &o->trend, &out->trends[n++]);
	out->nr_trends = n;
	for (k = 0; k < out->nr_score; k++)
		n += out->trends[k].nr_cp;
	out->points = xcalloc(n + 1, sizeof(*out->points));
	for (k = 0; k < out->nr_score; k++)
		for (p = 0; p < out->trends[k].nr_cp; p++) {
			struct history_point *pt = &out->points[out->nr_points++];
			size_t moved_at = SIZE_MAX;	/* a diff that failed names none */

			pt->score = &out->trends[k];
			pt->cp = p;
			pt->score_at = out->trends[k].cp[p].at;
			/* the first diff's lines wait: a diff made again says its own */
			first.say = keep_line, first.say_arg = &said;
			scan_point(hs, &first, pt, &moved_at);
			/*
			 * The score alone, at a 10-30 % spread, may put its change
			 * a commit off; the profile rows that moved with it, shares
			 * of thousands of samples, place it to the commit: when they
			 * all changed at a neighbour, the change is there, and the
			 * diff is made again with the sides that split there.  Where
			 * none moved, the diffs at the neighbours ask the same
			 * (moved_neighbour).
			 */
			if ((moved_at != SIZE_MAX && moved_at != pt->score_at &&
			     history_trend__move(&out->trends[k], p, moved_at)) ||
			    (pt->r && !pt->nr_moved && moved_neighbour(hs, &first, &out->trends[k], p) != SIZE_MAX)) {
				size_t score_at = pt->score_at;

				point_release(pt);
				memset(pt, 0, sizeof(*pt));
				pt->score = &out->trends[k];
				pt->cp = p;
				pt->score_at = score_at;
				strlist__release(&said);
				scan_point(hs, o, pt, &moved_at);
			}
			for (i = 0; i + 1 < said.nr; i += 2)
				o->say(o->say_arg, (enum diff_say)atoi(said.items[i]), said.items[i + 1]);
			strlist__release(&said);
		}
}

void history_series_scan__release(struct history_series_scan *sc)
{
	size_t i;

	for (i = 0; i < sc->nr_points; i++)
		point_release(&sc->points[i]);
	free(sc->points);
	for (i = 0; i < sc->nr_trends; i++)
		history_trend__release(&sc->trends[i]);
	free(sc->trends);
	memset(sc, 0, sizeof(*sc));
}
