/*
 * files: the documents a comparison writes beside stdout's, each whole or
 * not at all: the HTML report (html.h), JUnit XML and the markdown
 * summary (ciout.h), one of each per compared column, and with several
 * columns the page that chooses between their HTML reports.  See
 * include/mmprof/diffengine.h.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mmprof/diffengine.h"
#include "mmprof/flame.h"
#include "mmprof/html.h"
#include "mmprof/outfile.h"
#include "mmprof/xalloc.h"

#include "engine-int.h"

/*
 * diff --junit (html NULL) or --summary (html: the HTML report's path, ""
 * for none) of the base against column k into path, whole or not at all.
 * 0, or -errno with the line said.
 */
static int write_ci(const struct diff_result *r, size_t k, const char *path,
		    const struct ci_gates *ci, const char *html)
{
	struct diff_side two[2] = { r->s[0], r->s[k + 1] };	/* borrowed copies: ciout reads a pair */
	const struct diff *d = &r->d[k];
	struct outbuf b = { 0 };
	struct errmsg e;
	int err;

	if (html)
		ciout__summary(&b, two, d, ci, *html ? html : NULL);
	else
		ciout__junit(&b, two, d, ci);
	err = outfile__write(path, b.s, b.len, &e);
	if (err)
		diff_result__say(r, DIFF_SAY_FILE, "%s", e.msg);
	outbuf__release(&b);
	return err;
}

/*
 * The HTML report (html.h) of the base against column k: its rows, both
 * headers, the waterfall of the cost per op (verdicts from the costs'
 * diff), the differential flame graphs by share and per op.
 */
static int write_html(struct diff_result *r, size_t k, const char *path,
		      const struct diff_row *const *rows, size_t n, const struct ci_gates *ci)
{
	const struct diff_side *s0 = &r->s[0], *sk = &r->s[k + 1];
	const struct diff *d = &r->d[k];
	const struct cost_sides *cs = &r->cs;
	const char *events = r->ev[0];
	size_t column = k + 1;
	struct flame_diff_opts fo = { .alpha = d->o.alpha, .min_points = d->o.min_points,
				      .novar_points = d->o.novar_points, .paired = d->o.pair };
	const struct diff_side *two[2] = { s0, sk };
	struct chain_views views = { { s0->views, sk->views }, false };
	/* the runs the table compares: the graph by share leaves --drop-run's out too */
	bool *kb = diff_side__kept(s0), *kn = diff_side__kept(sk);
	const bool *keep[2] = { kb, kn };
	struct html_side hs[2];
	struct outbuf b = { 0 };
	struct html_cost_build hb;
	struct flame f;
	struct errmsg e;
	char ev[128];
	bool have_graph;
	int err;
	size_t i;

	snprintf(ev, sizeof(ev), "%.*s", (int)strcspn(events, ","), events);
	fo.event = ev;
	fo.keep = keep;
	fo.fns = &r->fns[k];
	fo.chains = r->have_chains[k] ? &r->chains[k] : NULL;	/* -g's, not computed again */
	fo.views = &views;	/* the files' collapses, the last column's last */
	for (i = 0; i < 2; i++)
		hs[i] = (struct html_side){ two[i]->name, two[i]->paths,
					    (const struct profile *const *)two[i]->profiles,
					    two[i]->nr, two[i]->nr_runs };
	have_graph = flame__build_diff(&f, (const struct profile *const *)s0->profiles, s0->nr,
				       (const struct profile *const *)sk->profiles, sk->nr, &fo, &e) == 0;
	/* drawn: the rows go before the graph per op computes its own */
	diff_result__drop_chains(r, k);
	if (!have_graph)
		diff_result__say(r, DIFF_SAY_NOTE, "no flame graph in the HTML report: %s", e.msg);
	html_cost__build(&hb, cs, column, d->cost, d, (const struct profile *const *)s0->profiles, s0->nr,
			 (const struct profile *const *)sk->profiles, sk->nr, have_graph ? ev : NULL, &fo);
	html__diff(&b, hs, d, rows, n, have_graph ? &f : NULL, ev, ci, &hb.hc);
	html_cost__release(&hb);
	if (k + 1 == r->nd)	/* the graphs are drawn: no view is read after */
		diff_result__drop_views(r);
	err = flame__write_file(&b, path, &e);
	if (err)
		diff_result__say(r, DIFF_SAY_FILE, "%s", e.msg);
	outbuf__release(&b);
	flame__release(&f);
	free(kb);
	free(kn);
	return err;
}

/*
 * --html, --junit, --summary FILE with several compared columns: one file
 * per column, FILE with "-NAME" before its extension (r.html:
 * r-new1.html, ...).
 */
static const char *column_path(const struct diff_result *r, const char *path, const char *name, char *buf, size_t size)
{
	const char *slash = strrchr(path, '/'), *dot = strrchr(path, '.');
	int len;

	if (!name)
		return path;	/* two sides: the file named */
	if (!dot || (slash && dot < slash) || dot == (slash ? slash + 1 : path))
		len = snprintf(buf, size, "%s-%s", path, name);
	else
		len = snprintf(buf, size, "%.*s-%s%s", (int)(dot - path), path, name, dot);
	if (len < 0 || (size_t)len >= size) {
		diff_result__say(r, DIFF_SAY_ERROR, "'%s': too long a name for one file per column", path);
		return NULL;
	}
	return buf;
}

/*
 * --html FILE with several columns: FILE chooses between the columns'
 * reports (written beside it as FILE-newK.EXT).  0, or -errno (said).
 */
static int write_html_index(const struct diff_result *r, const char *path)
{
	const struct diff_side *s = r->s;
	size_t nd = r->nd;
	const char *slash = strrchr(path, '/');
	char **files = xcalloc(nd, sizeof(*files)), **labels = xcalloc(nd, sizeof(*labels));
	struct outbuf b = { 0 }, l = { 0 };
	struct errmsg e;
	size_t k, i;
	int err = 0;

	for (k = 0; k < nd && !err; k++) {
		char buf[4096];
		const char *f = column_path(r, path, r->col_names[k], buf, sizeof(buf));

		if (!f) {
			err = -ENAMETOOLONG;
			break;
		}
		/* beside the page: its name without the folder */
		files[k] = xstrdup(slash ? f + (slash - path) + 1 : f);
		outbuf__release(&l);
		for (i = 0; i < s[k + 1].nr; i++)
			outbuf__printf(&l, "%s%s", i ? " " : "", s[k + 1].paths[i]);
		labels[k] = xstrdup(l.s ? l.s : "");
	}
	if (!err) {
		diff__html_columns_index(&b, s[0].paths[0], r->col_names, (const char *const *)labels,
					 (const char *const *)files, nd);
		err = outfile__write(path, b.s, b.len, &e);
		if (err)
			diff_result__say(r, DIFF_SAY_FILE, "%s", e.msg);
	}
	for (k = 0; k < nd; k++) {
		free(files[k]);
		free(labels[k]);
	}
	free(files);
	free(labels);
	outbuf__release(&b);
	outbuf__release(&l);
	return err;
}

int diff_report__files(struct diff_result *r, const struct diff_report_files *f)
{
	const struct diff_row **colrows = xmalloc((r->n + 1) * sizeof(*colrows));
	size_t k, nk;
	int err = 0;

	for (k = 0; k < r->nd && !err; k++) {
		char hbuf[4096], jbuf[4096], sbuf[4096];
		const char *html = NULL, *junit = NULL, *summary = NULL;
		const char *name = r->multi ? r->col_names[k] : NULL;

		/* several columns: one file of each per column, FILE-newK.EXT */
		if ((f->html && !(html = column_path(r, f->html, name, hbuf, sizeof(hbuf)))) ||
		    (f->junit && !(junit = column_path(r, f->junit, name, jbuf, sizeof(jbuf)))) ||
		    (f->summary && !(summary = column_path(r, f->summary, name, sbuf, sizeof(sbuf))))) {
			err = -ENAMETOOLONG;
			break;
		}
		if (r->multi) {
			diff__column_rows(r->rows, r->n, r->nd, k, colrows, &nk);
		} else {
			memcpy(colrows, r->rows, r->n * sizeof(*r->rows));
			nk = r->n;
		}
		if (html)
			err = write_html(r, k, html, colrows, nk, f->gates);
		if (err || (f->gate_column >= 0 && k != (size_t)f->gate_column))
			continue;	/* the CI outputs are of the columns gates read */
		if (junit)
			err = write_ci(r, k, junit, f->gates, NULL);
		if (!err && summary)
			err = write_ci(r, k, summary, f->gates, html ? html : "");
	}
	if (!err && f->html && r->multi)
		err = write_html_index(r, f->html);
	free(colrows);
	return err;
}
