/*
 * report: the document a comparison writes on stdout, whole: which parts
 * each format has and in which order; the parts themselves are written by
 * the modules whose data they show (diffside.h's header and sides,
 * diff.h's tables and JSON objects, cost.h's attribution, chains.h's call
 * chains), JSON's members through one writer (jsonw.h).  See
 * include/mmprof/diffengine.h.
 */
#include <stdlib.h>

#include "mmprof/diffengine.h"
#include "mmprof/xalloc.h"

/* -g: the changed call chains of column k, as text or (w) as the member "callchains" of w's object. */
static void callchains(struct outbuf *out, struct jsonw *w, struct diff_result *r, size_t k)
{
	struct chain_diff cd;
	size_t limit = r->o.limit > 0 ? (size_t)r->o.limit : 20;
	int err = diff_result__chains(r, k, &cd);

	if (err)
		return;
	if (w)
		chains__json(w, "callchains", &cd, limit);
	else
		chains__format(out, &cd, limit);
	diff_result__keep_chains(r, k, &cd);	/* for the HTML's flame graph, or released */
}

/* The recorded settings that differ between the sides, in fmt (w: JSON, the member "settings_differ"). */
static void settings(struct outbuf *out, struct jsonw *w, const struct diff_result *r,
		     enum diff_format fmt)
{
	struct diff_settings_side *ss = xcalloc(r->nr_sides, sizeof(*ss));
	const char **names = xcalloc(r->nr_sides, sizeof(*names));
	struct diff_setting *st;
	size_t k, n;

	for (k = 0; k < r->nr_sides; k++) {
		ss[k] = (struct diff_settings_side){ (const struct profile *const *)r->s[k].profiles,
						     r->s[k].nr };
		names[k] = r->s[k].name;
	}
	n = diff__settings_differ(ss, r->nr_sides, &st);
	if (w)
		diff__settings_json(w, st, n, names, r->nr_sides);
	else
		diff__settings_format(out, st, n, names, r->nr_sides, fmt);
	diff__settings_release(st, n);
	free(names);
	free(ss);
}

/* JSON with one column: the sides, the diff with its costs, cost rows and call chains. */
static void json_pair(struct jsonw *w, struct diff_result *r)
{
	diff_side__json(w, "base", &r->s[0], r->ev[0]);
	diff_side__json(w, "new", &r->s[1], r->ev[1]);
	diff__json_open(w, "diff", &r->d[0], r->rows, r->n);
	if (!r->o.robot)
		cost__json(w, "cost", &r->cs, 1, r->d[0].cost, &r->d[0]);
	if (r->crows) {
		diff__json_open(w, "cost_rows", &r->dc[0], r->crows, r->cn);
		jsonw__end(w);
		/* the object's line ends as a diff document's does: the next ", " starts a line */
		jsonw__newline(w, 0);
	}
	if (r->o.callchains) {
		/* the table is written: its rows' memory goes before the chains' */
		diff_result__done_with_rows(r);
		callchains(NULL, w, r, 0);
	}
	jsonw__end(w);
	jsonw__newline(w, 0);
}

/* JSON with several columns: the base, then per column its side and its diff with costs and chains. */
static void json_columns(struct jsonw *w, struct diff_result *r)
{
	const struct diff_row **colrows = xmalloc((r->n + 1) * sizeof(*colrows));
	size_t k, nk;

	diff_side__json(w, "base", &r->s[0], r->ev[0]);
	jsonw__array(w, "columns", JSONW_INLINE);
	for (k = 0; k < r->nd; k++) {
		jsonw__break(w, 1);
		jsonw__object(w, NULL, JSONW_INLINE);
		jsonw__str(w, "name", r->col_names[k]);
		diff_side__json(w, "side", &r->s[k + 1], r->ev[k + 1]);
		diff__column_rows(r->rows, r->n, r->nd, k, colrows, &nk);
		diff__json_open(w, "diff", &r->d[k], colrows, nk);
		if (!r->o.robot)
			cost__json(w, "cost", &r->cs, k + 1, r->d[k].cost, &r->d[k]);
		if (r->o.callchains)
			callchains(NULL, w, r, k);
		jsonw__end(w);	/* the diff */
		jsonw__end(w);	/* the column */
	}
	jsonw__end(w);
	free(colrows);
}

/* The whole JSON document: the settings that differ first, then the pair or the columns. */
static void json(struct outbuf *out, struct diff_result *r)
{
	struct jsonw w;

	jsonw__init(&w, out);
	jsonw__from_margin(&w);
	jsonw__object(&w, NULL, JSONW_INLINE);
	settings(out, &w, r, DIFF_FORMAT_JSON);
	if (r->multi)
		json_columns(&w, r);
	else
		json_pair(&w, r);
	jsonw__end(&w);
	outbuf__putc(out, '\n');
}

/* The robot's header with the costs' attribution, and the table (lkp, CSV, markdown) with its cost rows. */
static void tables(struct outbuf *out, const struct diff_result *r, enum diff_format fmt)
{
	const struct diff *d = r->d;
	bool attr = !r->multi && !r->o.robot, costs = r->crows && r->o.cost;
	size_t k;

	if (fmt == DIFF_FORMAT_LKP && !r->o.robot) {
		/* the benchmark's change per op, and who carries it, before the table */
		diff_sides__header_top(out, r->s, r->nr_sides, d, r->forced);
		for (k = 0; k < r->nd; k++) {
			if (r->multi)
				outbuf__printf(out, "%s against base: ", r->col_names[k]);
			cost__format(out, &r->cs, k + 1, d[k].cost, &d[k], fmt);
			outbuf__puts(out, "\n");
		}
		diff_sides__column_heads(out, r->s, r->nr_sides);
	} else if (fmt == DIFF_FORMAT_LKP) {
		diff_sides__header(out, r->s, r->nr_sides, d, r->forced);
	}
	if (r->multi)
		diff__format_columns(out, d, r->nd, r->col_names, r->rows, r->n, fmt, r->sel);
	else
		diff__format(out, &d[0], r->rows, r->n, fmt, r->o.all);
	if (costs && fmt == DIFF_FORMAT_CSV) {
		/*
		 * The cost rows in the table's own columns, then the
		 * attribution's table; only when asked: a script reading the
		 * CSV of a pair reads what it read before, the lines of a
		 * column of several (t303).
		 */
		diff__csv_rows(out, r->crows, r->cn);
		cost__format(out, &r->cs, 1, d[0].cost, &d[0], fmt);
	} else if (attr && fmt == DIFF_FORMAT_MARKDOWN) {
		cost__format(out, &r->cs, 1, d[0].cost, &d[0], fmt);
	}
	if (costs && fmt == DIFF_FORMAT_LKP) {
		outbuf__printf(out, "\ncosts per %s (cost.* rows; a diff of their own, --cost):\n",
			       cost_work__per(&r->cs.work));
		diff__format(out, &r->dc[0], r->crows, r->cn, fmt, r->o.all);
		if (!r->cn)
			outbuf__printf(out, "(no significant rows)\n");
	} else if (costs && fmt == DIFF_FORMAT_MARKDOWN) {
		outbuf__printf(out, "\n**costs per %s** (cost.* rows)\n\n", cost_work__per(&r->cs.work));
		diff__format(out, &r->dc[0], r->crows, r->cn, fmt, r->o.all);
	}
}

void diff_report__write(struct outbuf *out, struct diff_result *r, enum diff_format fmt)
{
	size_t k;

	if (fmt == DIFF_FORMAT_JSON) {
		json(out, r);
		return;
	}
	/* the settings that differ come first in every format */
	settings(out, NULL, r, fmt);
	tables(out, r, fmt);
	if (fmt == DIFF_FORMAT_LKP && !r->n)
		outbuf__printf(out, "(no %s rows)\n", r->o.robot ? "robot-visible" : "significant");
	/* CSV's rows have no place for call chains */
	if (r->o.callchains && fmt != DIFF_FORMAT_CSV) {
		/* the table is written: its rows' memory goes before the chains' */
		diff_result__done_with_rows(r);
		for (k = 0; k < r->nd; k++) {
			if (r->multi)
				outbuf__printf(out, "\n%s against base:\n", r->col_names[k]);
			callchains(out, NULL, r, k);
		}
	}
}
