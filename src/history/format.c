/*
 * format: a history's scans as text (the default), JSON, CSV or markdown
 * (history.h).  Every name from the store (commits, machines, keys) goes
 * through the format's escaper: a store may come from anywhere.
 */
#include <errno.h>
#include <math.h>
#include <string.h>

#include "mmprof/history.h"
#include "mmprof/jsonw.h"
#include "mmprof/keykind.h"

/* The diff's names of its formats, text for its lkp (history's text is no robot's table) */
int history_format__parse(const char *name, enum history_format *f)
{
	static const enum history_format as[] = {
		[DIFF_FORMAT_JSON] = HISTORY_FORMAT_JSON, [DIFF_FORMAT_CSV] = HISTORY_FORMAT_CSV,
		[DIFF_FORMAT_MARKDOWN] = HISTORY_FORMAT_MARKDOWN,
	};
	enum diff_format d;

	if (!strcmp(name, "text")) {
		*f = HISTORY_FORMAT_TEXT;
		return 0;
	}
	if (diff_format__parse(name, &d) < 0 || d == DIFF_FORMAT_LKP)
		return -EINVAL;
	*f = as[d];
	return 0;
}

void history_point__sides(struct outbuf *b, const struct history_series *hs, const struct history_point *pt,
			  void (*name)(struct outbuf *b, const char *s), const char *against)
{
	size_t at = pt->score->cp[pt->cp].at;

	name(b, hs->commits[pt->from].commit);
	outbuf__puts(b, "..");
	name(b, hs->commits[at - 1].commit);
	outbuf__puts(b, against);
	name(b, hs->commits[at].commit);
	outbuf__puts(b, "..");
	name(b, hs->commits[pt->to - 1].commit);
}

static const char *unit(const struct history_trend *t)
{
	return t->absolute ? " points" : " %";
}

/* ---- text ---- */

static void text_point(struct outbuf *b, const struct history_series_scan *sc, const struct history_point *pt)
{
	const struct history_series *hs = sc->hs;
	const struct history_change *ch = &pt->score->cp[pt->cp];
	size_t i;

	outbuf__puts(b, "  at ");
	outbuf__text_str(b, hs->commits[ch->at].commit);
	outbuf__printf(b, " (commit %zu of %zu): ", ch->at + 1, hs->nr_commits);
	outbuf__text_str(b, pt->score->key->name);
	outbuf__printf(b, " %.6g -> %.6g (%+.1f%s +- %.1f)\n", ch->before, ch->after, ch->change,
		       unit(pt->score), ch->se);
	if (pt->score_at != ch->at) {
		outbuf__puts(b, "    (the score alone put it at ");
		outbuf__text_str(b, hs->commits[pt->score_at].commit);
		outbuf__puts(b, "; every profile row that moved with it changed at ");
		outbuf__text_str(b, hs->commits[ch->at].commit);
		outbuf__puts(b, ")\n");
	}
	outbuf__puts(b, "    the diff of ");
	history_point__sides(b, hs, pt, outbuf__text_str, " against ");
	if (!pt->r) {
		outbuf__puts(b, ": could not be made (said above)\n");
		return;
	}
	if (pt->score_row)
		outbuf__printf(b, ": the score %s (%+.1f %%, q %.2g)\n", diff_row__verdict_name(pt->score_row),
			       pt->score_row->change, pt->score_row->q);
	else
		outbuf__puts(b, ": no row of the score\n");
	if (!pt->nr_moved) {
		outbuf__puts(b, "    no profile row moved with it\n");
		return;
	}
	outbuf__printf(b, "    profile rows that moved with it (%zu):\n", pt->nr_moved);
	for (i = 0; i < pt->nr_moved; i++) {
		const struct diff_row *r = pt->moved[i];
		const char *fn = keykind__profile_symbol(r->key);

		outbuf__puts(b, "      ");
		outbuf__text_str(b, r->key);
		outbuf__printf(b, "  %.2f -> %.2f (%+.2f points)", r->base.mean, r->cur.mean, r->change);
		if (fn) {
			outbuf__puts(b, keykind__profile(r->key) != KEYPROF_CALLTRACE ? "  function " : "  chain ");
			outbuf__text_str(b, fn);
		}
		outbuf__putc(b, '\n');
	}
}

static void text_series(struct outbuf *b, const struct history_series_scan *sc)
{
	const struct history_series *hs = sc->hs;
	size_t i, c, k, runs = 0, pushes = 0;

	for (c = 0; c < hs->nr_commits; c++)
		runs += hs->commits[c].nr_runs, pushes += hs->commits[c].nr_pushes;
	outbuf__puts(b, "history of ");
	outbuf__text_str(b, hs->benchmark);
	outbuf__puts(b, " on ");
	outbuf__text_str(b, hs->machine);
	outbuf__printf(b, ": %zu commits (ordered by %s), %zu pushes, %zu runs\n", hs->nr_commits,
		       hs->by_parents ? "parent links" : "time", pushes, runs);
	if (!sc->nr_score)
		outbuf__puts(b, "  no score key (--score GLOB names it)\n");
	for (i = 0; i < sc->nr_score; i++) {
		const struct history_trend *t = &sc->trends[i];

		outbuf__puts(b, "\n  score ");
		outbuf__text_str(b, t->key->name);
		outbuf__printf(b, "\n  %-20s %5s %14s %10s\n", "commit", "runs", "mean", "sd");
		for (c = 0, k = 0; c < hs->nr_commits; c++) {
			struct outbuf safe = { 0 };

			outbuf__printf(b, "  %-20s %5zu %14.6g %10.4g", outbuf__text_safe(&safe, hs->commits[c].commit),
				       hs->commits[c].nr_runs, t->mean[c], t->sd[c]);
			outbuf__release(&safe);
			while (k < t->nr_cp && t->cp[k].at < c)
				k++;
			if (k < t->nr_cp && t->cp[k].at == c)
				outbuf__printf(b, "  << change point: %+.1f%s +- %.1f", t->cp[k].change, unit(t), t->cp[k].se);
			outbuf__putc(b, '\n');
		}
		outbuf__printf(b, "\n  %zu change point%s of the score\n", t->nr_cp, t->nr_cp == 1 ? "" : "s");
		for (k = 0; k < sc->nr_points; k++)
			if (sc->points[k].score == t)
				text_point(b, sc, &sc->points[k]);
	}
	if (sc->nr_trends > sc->nr_score) {
		size_t quiet = 0;

		outbuf__puts(b, "\n  keys asked for:\n");
		for (i = sc->nr_score; i < sc->nr_trends; i++) {
			const struct history_trend *t = &sc->trends[i];

			if (!t->nr_cp) {
				quiet++;
				continue;
			}
			outbuf__puts(b, "    ");
			outbuf__text_str(b, t->key->name);
			outbuf__puts(b, ":");
			for (k = 0; k < t->nr_cp; k++) {
				outbuf__puts(b, k ? ", " : " change at ");
				outbuf__text_str(b, hs->commits[t->cp[k].at].commit);
				outbuf__printf(b, " (%.4g -> %.4g, %+.2f%s +- %.2f)", t->cp[k].before, t->cp[k].after,
					       t->cp[k].change, unit(t), t->cp[k].se);
			}
			outbuf__putc(b, '\n');
		}
		outbuf__printf(b, "    %zu other key%s matched, with no change point\n", quiet, quiet == 1 ? "" : "s");
	}
}

/* ---- JSON ---- */

static void json_change(struct jsonw *w, const char *key, const struct history_series *hs,
			const struct history_change *ch)
{
	jsonw__object(w, key, JSONW_INLINE);
	jsonw__str(w, "commit", hs->commits[ch->at].commit);
	jsonw__uint(w, "index", ch->at);
	jsonw__num(w, "before", ch->before, 6);
	jsonw__num(w, "after", ch->after, 6);
	jsonw__num(w, "change", ch->change, 6);
	jsonw__num(w, "se", ch->se, 6);
	jsonw__end(w);
}

static void json_trend(struct jsonw *w, const struct history_series *hs, const struct history_trend *t)
{
	size_t c, k;

	jsonw__object(w, NULL, JSONW_INLINE);
	jsonw__str(w, "key", t->key->name);
	jsonw__bool(w, "score", t->key->score);
	jsonw__str(w, "unit", t->absolute ? "points" : "%");
	jsonw__array(w, "mean", JSONW_INLINE);
	for (c = 0; c < hs->nr_commits; c++)
		jsonw__num(w, NULL, t->mean[c], 6);
	jsonw__end(w);
	jsonw__array(w, "sd", JSONW_INLINE);
	for (c = 0; c < hs->nr_commits; c++)
		jsonw__num(w, NULL, t->sd[c], 6);
	jsonw__end(w);
	jsonw__array(w, "change_points", JSONW_INLINE);
	for (k = 0; k < t->nr_cp; k++)
		json_change(w, NULL, hs, &t->cp[k]);
	jsonw__end(w);
	jsonw__end(w);
}

static void json_point(struct jsonw *w, const struct history_series_scan *sc, const struct history_point *pt)
{
	const struct history_series *hs = sc->hs;
	size_t i, at = pt->score->cp[pt->cp].at;

	jsonw__object(w, NULL, JSONW_INLINE);
	jsonw__str(w, "key", pt->score->key->name);
	json_change(w, "change", hs, &pt->score->cp[pt->cp]);
	jsonw__str(w, "score_alone_at", hs->commits[pt->score_at].commit);
	jsonw__array(w, "base", JSONW_INLINE);
	for (i = pt->from; i < at; i++)
		jsonw__str(w, NULL, hs->commits[i].commit);
	jsonw__end(w);
	jsonw__array(w, "new", JSONW_INLINE);
	for (i = at; i < pt->to; i++)
		jsonw__str(w, NULL, hs->commits[i].commit);
	jsonw__end(w);
	if (!pt->r) {
		jsonw__null(w, "diff");
		jsonw__end(w);
		return;
	}
	jsonw__object(w, "diff", JSONW_INLINE);
	if (pt->score_row) {
		jsonw__str(w, "verdict", diff_row__verdict_name(pt->score_row));
		jsonw__num(w, "change", pt->score_row->change, 6);
		jsonw__num(w, "q", pt->score_row->q, 6);
	}
	jsonw__end(w);
	jsonw__array(w, "moved", JSONW_INLINE);
	for (i = 0; i < pt->nr_moved; i++) {
		const struct diff_row *r = pt->moved[i];
		const char *fn = keykind__profile_symbol(r->key);

		jsonw__object(w, NULL, JSONW_INLINE);
		jsonw__str(w, "key", r->key);
		if (fn)
			jsonw__str(w, "function", fn);
		else
			jsonw__null(w, "function");
		jsonw__num(w, "before", r->base.mean, 6);
		jsonw__num(w, "after", r->cur.mean, 6);
		jsonw__num(w, "change", r->change, 6);
		jsonw__num(w, "q", r->q, 6);
		jsonw__str(w, "verdict", diff_row__verdict_name(r));
		jsonw__end(w);
	}
	jsonw__end(w);
	jsonw__end(w);
}

static void json_series(struct jsonw *w, const struct history_series_scan *sc)
{
	const struct history_series *hs = sc->hs;
	size_t c, i;

	jsonw__object(w, NULL, JSONW_INLINE);
	jsonw__str(w, "benchmark", hs->benchmark);
	jsonw__str(w, "machine", hs->machine);
	jsonw__str(w, "ordered_by", hs->by_parents ? "parents" : "time");
	jsonw__array(w, "commits", JSONW_INLINE);
	for (c = 0; c < hs->nr_commits; c++) {
		jsonw__object(w, NULL, JSONW_INLINE);
		jsonw__str(w, "commit", hs->commits[c].commit);
		jsonw__int(w, "time", hs->commits[c].time);
		jsonw__uint(w, "pushes", hs->commits[c].nr_pushes);
		jsonw__uint(w, "runs", hs->commits[c].nr_runs);
		jsonw__end(w);
	}
	jsonw__end(w);
	jsonw__break(w, 0);
	jsonw__array(w, "keys", JSONW_LINES_TIGHT);
	for (i = 0; i < sc->nr_trends; i++)
		json_trend(w, hs, &sc->trends[i]);
	jsonw__end(w);
	jsonw__break(w, 0);
	jsonw__array(w, "score_changes", JSONW_LINES_TIGHT);
	for (i = 0; i < sc->nr_points; i++)
		json_point(w, sc, &sc->points[i]);
	jsonw__end(w);
	jsonw__end(w);
}

/* ---- CSV: a line per key and commit ---- */

static void csv_series(struct outbuf *b, const struct history_series_scan *sc)
{
	const struct history_series *hs = sc->hs;
	size_t i, c, k;

	for (i = 0; i < sc->nr_trends; i++) {
		const struct history_trend *t = &sc->trends[i];

		for (c = 0, k = 0; c < hs->nr_commits; c++) {
			diff__csv_str(b, hs->benchmark);
			outbuf__putc(b, ',');
			diff__csv_str(b, hs->machine);
			outbuf__putc(b, ',');
			diff__csv_str(b, t->key->name);
			outbuf__printf(b, ",%zu,", c);
			diff__csv_str(b, hs->commits[c].commit);
			outbuf__printf(b, ",%zu,", hs->commits[c].nr_runs);
			if (isfinite(t->mean[c]))
				outbuf__printf(b, "%.10g", t->mean[c]);
			outbuf__putc(b, ',');
			if (isfinite(t->sd[c]))
				outbuf__printf(b, "%.10g", t->sd[c]);
			while (k < t->nr_cp && t->cp[k].at < c)
				k++;
			if (k < t->nr_cp && t->cp[k].at == c)
				outbuf__printf(b, ",1,%.10g,%s,%.10g\n", t->cp[k].change, t->absolute ? "points" : "%",
					       t->cp[k].se);
			else
				outbuf__puts(b, ",0,,,\n");
		}
	}
}

/* ---- markdown ---- */

static void md_series(struct outbuf *b, const struct history_series_scan *sc)
{
	const struct history_series *hs = sc->hs;
	size_t i, k, j;

	outbuf__puts(b, "## `");
	outbuf__md_code(b, hs->benchmark);
	outbuf__puts(b, "` on `");
	outbuf__md_code(b, hs->machine);
	outbuf__printf(b, "`\n\n%zu commits, ordered by %s.\n\n", hs->nr_commits,
		       hs->by_parents ? "parent links" : "time");
	outbuf__puts(b, "| key | commit | before | after | change | ± |\n|---|---|---:|---:|---:|---:|\n");
	for (i = 0; i < sc->nr_trends; i++) {
		const struct history_trend *t = &sc->trends[i];

		for (k = 0; k < t->nr_cp; k++) {
			outbuf__puts(b, "| `");
			outbuf__md_code(b, t->key->name);
			outbuf__puts(b, "` | `");
			outbuf__md_code(b, hs->commits[t->cp[k].at].commit);
			outbuf__printf(b, "` | %.6g | %.6g | %+.2f%s | %.2f |\n", t->cp[k].before, t->cp[k].after,
				       t->cp[k].change, unit(t), t->cp[k].se);
		}
	}
	for (i = 0; i < sc->nr_points; i++) {
		const struct history_point *pt = &sc->points[i];

		outbuf__puts(b, "\n### The score at `");
		outbuf__md_code(b, hs->commits[pt->score->cp[pt->cp].at].commit);
		outbuf__puts(b, "`\n\n");
		if (!pt->r || !pt->nr_moved) {
			outbuf__puts(b, "No profile row moved with it.\n");
			continue;
		}
		outbuf__puts(b, "| profile row | function | before | after | change |\n|---|---|---:|---:|---:|\n");
		for (j = 0; j < pt->nr_moved; j++) {
			const struct diff_row *r = pt->moved[j];
			const char *fn = keykind__profile_symbol(r->key);

			outbuf__puts(b, "| `");
			outbuf__md_code(b, r->key);
			outbuf__puts(b, "` | `");
			outbuf__md_code(b, fn ? fn : "");
			outbuf__printf(b, "` | %.2f | %.2f | %+.2f |\n", r->base.mean, r->cur.mean, r->change);
		}
	}
	outbuf__putc(b, '\n');
}

void history__format(struct outbuf *b, const struct history_series_scan *sc, size_t n,
		     enum history_format f)
{
	struct jsonw w;
	size_t i;

	jsonw__init(&w, b);
	if (f == HISTORY_FORMAT_JSON) {
		jsonw__object(&w, NULL, JSONW_INLINE);
		jsonw__array(&w, "series", JSONW_LINES);
	}
	if (f == HISTORY_FORMAT_CSV)
		outbuf__puts(b, "benchmark,machine,key,index,commit,runs,mean,sd,change_point,change,unit,se\n");
	if (f == HISTORY_FORMAT_MARKDOWN)
		outbuf__puts(b, "# History\n\n");
	for (i = 0; i < n; i++) {
		switch (f) {
		case HISTORY_FORMAT_TEXT:
			if (i)
				outbuf__putc(b, '\n');
			text_series(b, &sc[i]);
			break;
		case HISTORY_FORMAT_JSON:
			json_series(&w, &sc[i]);
			break;
		case HISTORY_FORMAT_CSV:
			csv_series(b, &sc[i]);
			break;
		case HISTORY_FORMAT_MARKDOWN:
			md_series(b, &sc[i]);
			break;
		}
	}
	if (f == HISTORY_FORMAT_JSON) {
		jsonw__end(&w);
		jsonw__end(&w);
		outbuf__putc(b, '\n');
	}
}
