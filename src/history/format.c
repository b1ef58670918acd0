/*
 * format: a history's scans as text (the default), JSON, CSV or markdown
 * (history.h).  Every name from the store (commits, machines, keys) goes
 * through the format's escaper: a store may come from anywhere.
 */
#include <errno.h>
#include <math.h>
#include <string.h>

#include "mmprof/history.h"
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

static void json_change(struct outbuf *b, const struct history_series *hs, const struct history_change *ch)
{
	outbuf__puts(b, "{\"commit\": ");
	outbuf__json_str(b, hs->commits[ch->at].commit);
	outbuf__printf(b, ", \"index\": %zu, \"before\": ", ch->at);
	outbuf__json_num(b, ch->before, 6);
	outbuf__puts(b, ", \"after\": ");
	outbuf__json_num(b, ch->after, 6);
	outbuf__puts(b, ", \"change\": ");
	outbuf__json_num(b, ch->change, 6);
	outbuf__puts(b, ", \"se\": ");
	outbuf__json_num(b, ch->se, 6);
	outbuf__puts(b, "}");
}

static void json_trend(struct outbuf *b, const struct history_series *hs, const struct history_trend *t)
{
	size_t c, k;

	outbuf__puts(b, "{\"key\": ");
	outbuf__json_str(b, t->key->name);
	outbuf__printf(b, ", \"score\": %s, \"unit\": \"%s\", \"mean\": [", t->key->score ? "true" : "false",
		       t->absolute ? "points" : "%");
	for (c = 0; c < hs->nr_commits; c++) {
		outbuf__puts(b, c ? ", " : "");
		outbuf__json_num(b, t->mean[c], 6);
	}
	outbuf__puts(b, "], \"sd\": [");
	for (c = 0; c < hs->nr_commits; c++) {
		outbuf__puts(b, c ? ", " : "");
		outbuf__json_num(b, t->sd[c], 6);
	}
	outbuf__puts(b, "], \"change_points\": [");
	for (k = 0; k < t->nr_cp; k++) {
		outbuf__puts(b, k ? ", " : "");
		json_change(b, hs, &t->cp[k]);
	}
	outbuf__puts(b, "]}");
}

static void json_point(struct outbuf *b, const struct history_series_scan *sc, const struct history_point *pt)
{
	const struct history_series *hs = sc->hs;
	size_t i;

	outbuf__puts(b, "{\"key\": ");
	outbuf__json_str(b, pt->score->key->name);
	outbuf__puts(b, ", \"change\": ");
	json_change(b, hs, &pt->score->cp[pt->cp]);
	outbuf__puts(b, ", \"score_alone_at\": ");
	outbuf__json_str(b, hs->commits[pt->score_at].commit);
	outbuf__puts(b, ", \"base\": [");
	for (i = pt->from; i < pt->score->cp[pt->cp].at; i++) {
		outbuf__puts(b, i > pt->from ? ", " : "");
		outbuf__json_str(b, hs->commits[i].commit);
	}
	outbuf__puts(b, "], \"new\": [");
	for (i = pt->score->cp[pt->cp].at; i < pt->to; i++) {
		outbuf__puts(b, i > pt->score->cp[pt->cp].at ? ", " : "");
		outbuf__json_str(b, hs->commits[i].commit);
	}
	outbuf__puts(b, "], \"diff\": ");
	if (!pt->r) {
		outbuf__puts(b, "null}");
		return;
	}
	if (pt->score_row) {
		outbuf__puts(b, "{\"verdict\": ");
		outbuf__json_str(b, diff_row__verdict_name(pt->score_row));
		outbuf__puts(b, ", \"change\": ");
		outbuf__json_num(b, pt->score_row->change, 6);
		outbuf__puts(b, ", \"q\": ");
		outbuf__json_num(b, pt->score_row->q, 6);
		outbuf__puts(b, "}");
	} else {
		outbuf__puts(b, "{}");
	}
	outbuf__puts(b, ", \"moved\": [");
	for (i = 0; i < pt->nr_moved; i++) {
		const struct diff_row *r = pt->moved[i];
		const char *fn = keykind__profile_symbol(r->key);

		outbuf__puts(b, i ? ", {\"key\": " : "{\"key\": ");
		outbuf__json_str(b, r->key);
		outbuf__puts(b, ", \"function\": ");
		if (fn)
			outbuf__json_str(b, fn);
		else
			outbuf__puts(b, "null");
		outbuf__puts(b, ", \"before\": ");
		outbuf__json_num(b, r->base.mean, 6);
		outbuf__puts(b, ", \"after\": ");
		outbuf__json_num(b, r->cur.mean, 6);
		outbuf__puts(b, ", \"change\": ");
		outbuf__json_num(b, r->change, 6);
		outbuf__puts(b, ", \"q\": ");
		outbuf__json_num(b, r->q, 6);
		outbuf__puts(b, ", \"verdict\": ");
		outbuf__json_str(b, diff_row__verdict_name(r));
		outbuf__puts(b, "}");
	}
	outbuf__puts(b, "]}");
}

static void json_series(struct outbuf *b, const struct history_series_scan *sc)
{
	const struct history_series *hs = sc->hs;
	size_t c, i;

	outbuf__puts(b, "{\"benchmark\": ");
	outbuf__json_str(b, hs->benchmark);
	outbuf__puts(b, ", \"machine\": ");
	outbuf__json_str(b, hs->machine);
	outbuf__printf(b, ", \"ordered_by\": \"%s\", \"commits\": [", hs->by_parents ? "parents" : "time");
	for (c = 0; c < hs->nr_commits; c++) {
		outbuf__puts(b, c ? ", {\"commit\": " : "{\"commit\": ");
		outbuf__json_str(b, hs->commits[c].commit);
		outbuf__printf(b, ", \"time\": %lld, \"pushes\": %zu, \"runs\": %zu}", (long long)hs->commits[c].time,
			       hs->commits[c].nr_pushes, hs->commits[c].nr_runs);
	}
	outbuf__puts(b, "],\n  \"keys\": [");
	for (i = 0; i < sc->nr_trends; i++) {
		outbuf__puts(b, i ? ",\n    " : "\n    ");
		json_trend(b, hs, &sc->trends[i]);
	}
	outbuf__puts(b, "],\n  \"score_changes\": [");
	for (i = 0; i < sc->nr_points; i++) {
		outbuf__puts(b, i ? ",\n    " : "\n    ");
		json_point(b, sc, &sc->points[i]);
	}
	outbuf__puts(b, "]}");
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
	size_t i;

	if (f == HISTORY_FORMAT_JSON)
		outbuf__puts(b, "{\"series\": [\n  ");
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
			if (i)
				outbuf__puts(b, ",\n  ");
			json_series(b, &sc[i]);
			break;
		case HISTORY_FORMAT_CSV:
			csv_series(b, &sc[i]);
			break;
		case HISTORY_FORMAT_MARKDOWN:
			md_series(b, &sc[i]);
			break;
		}
	}
	if (f == HISTORY_FORMAT_JSON)
		outbuf__puts(b, "\n]}\n");
}
