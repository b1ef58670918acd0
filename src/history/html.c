/*
 * html: a history as one offline page (history.h): per series, a trend
 * chart per key (each run a dot, commits along the axis, each commit's
 * mean a line, change points marked), and at each change point of the
 * score the diff engine's table of the two sides, which the marks link
 * to.  No script, no fetch: an SVG per chart and a <pre> per diff.
 *
 * Every name (commits, machines, benchmarks, keys, the diff's text) goes
 * through the XML escaper (outbuf__xml_str, security.md): a store's
 * names are untrusted as a file's are.
 */
#include <math.h>
#include <string.h>

#include "mmprof/diff.h"
#include "mmprof/history.h"
#include "mmprof/keykind.h"

#define CHART_W 900
#define CHART_H 220
#define PAD_L 70
#define PAD_R 20
#define PAD_T 15
#define PAD_B 40

static double value(const struct history_key *k, size_t r, bool profile)
{
	double v = k->v[r];

	return isnan(v) && profile ? 0 : v;
}

static void chart(struct outbuf *b, size_t si, size_t ti, const struct history_series_scan *sc,
		  const struct history_trend *t)
{
	const struct history_series *hs = sc->hs;
	bool profile = keykind__profile(t->key->name) != KEYPROF_NONE;
	double lo = INFINITY, hi = -INFINITY, x0 = PAD_L, pw = CHART_W - PAD_L - PAD_R, ph = CHART_H - PAD_T - PAD_B;
	size_t c, r, k, nc = hs->nr_commits;
	bool first = true;

	for (r = 0; r < hs->nr_values; r++) {
		double v = value(t->key, r, profile);

		if (isfinite(v))
			lo = fmin(lo, v), hi = fmax(hi, v);
	}
	if (!isfinite(lo))
		return;
	if (hi - lo < 1e-12 * fmax(1, fabs(hi)))
		hi = lo + fmax(1e-9, fabs(lo) * 0.01), lo -= (hi - lo);
#define X(c) (x0 + (nc > 1 ? pw * (double)(c) / (double)(nc - 1) : pw / 2))
#define Y(v) (PAD_T + ph * (1 - ((v) - lo) / (hi - lo)))
	outbuf__printf(b, "<h3 id=\"k%zu-%zu\">", si, ti);
	outbuf__xml_str(b, t->key->name);
	outbuf__printf(b, "</h3>\n<svg width=\"%d\" height=\"%d\" viewBox=\"0 0 %d %d\" role=\"img\">\n",
		       CHART_W, CHART_H, CHART_W, CHART_H);
	outbuf__printf(b, "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" class=\"axis\"/>\n",
		       PAD_L, CHART_H - PAD_B, CHART_W - PAD_R, CHART_H - PAD_B);
	outbuf__printf(b, "<text x=\"%d\" y=\"%d\" class=\"lab\" text-anchor=\"end\">%.4g</text>\n",
		       PAD_L - 4, PAD_T + 8, hi);
	outbuf__printf(b, "<text x=\"%d\" y=\"%d\" class=\"lab\" text-anchor=\"end\">%.4g</text>\n",
		       PAD_L - 4, CHART_H - PAD_B, lo);
	/* the change points: a dashed mark, linking to the diff of its sides when the score has one there */
	for (k = 0; k < t->nr_cp; k++) {
		const struct history_change *ch = &t->cp[k];
		double x = (X(ch->at) + X(ch->at - 1)) / 2;
		size_t p, link = sc->nr_points;

		for (p = 0; p < sc->nr_points; p++)
			if (sc->points[p].score->cp[sc->points[p].cp].at + 1 >= ch->at + 0 &&
			    sc->points[p].score->cp[sc->points[p].cp].at <= ch->at + 1)
				link = p;
		if (link < sc->nr_points)
			outbuf__printf(b, "<a href=\"#p%zu-%zu\">", si, link);
		outbuf__printf(b, "<line x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%d\" class=\"cp\"><title>change point at ",
			       x, PAD_T, x, CHART_H - PAD_B);
		outbuf__xml_str(b, hs->commits[ch->at].commit);
		outbuf__printf(b, ": %.4g -&gt; %.4g (%+.2f%s)</title></line>", ch->before, ch->after, ch->change,
			       t->absolute ? " points" : " %");
		outbuf__puts(b, link < sc->nr_points ? "</a>\n" : "\n");
	}
	/* each commit's mean */
	outbuf__puts(b, "<polyline class=\"mean\" points=\"");
	for (c = 0; c < nc; c++)
		if (isfinite(t->mean[c])) {
			outbuf__printf(b, "%s%.1f,%.1f", first ? "" : " ", X(c), Y(t->mean[c]));
			first = false;
		}
	outbuf__puts(b, "\"/>\n");
	/* the runs */
	for (c = 0; c < nc; c++) {
		for (r = hs->first[c]; r < hs->first[c + 1]; r++) {
			double v = value(t->key, r, profile);

			if (!isfinite(v))
				continue;
			outbuf__printf(b, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"3\"><title>", X(c), Y(v));
			outbuf__xml_str(b, hs->commits[c].commit);
			outbuf__printf(b, " run %zu: %.6g</title></circle>\n", r - hs->first[c], v);
		}
		if (nc <= 40 || c % (nc / 20 + 1) == 0) {
			outbuf__printf(b, "<text x=\"%.1f\" y=\"%d\" class=\"lab\" text-anchor=\"end\" "
				       "transform=\"rotate(-40 %.1f %d)\">", X(c), CHART_H - PAD_B + 14, X(c),
				       CHART_H - PAD_B + 14);
			outbuf__xml_fit(b, hs->commits[c].commit, 12);
			outbuf__puts(b, "</text>\n");
		}
	}
	outbuf__puts(b, "</svg>\n");
#undef X
#undef Y
}

static void point(struct outbuf *b, size_t si, size_t p, const struct history_series_scan *sc)
{
	const struct history_point *pt = &sc->points[p];
	const struct history_series *hs = sc->hs;
	const struct history_change *ch = &pt->score->cp[pt->cp];
	struct outbuf text = { 0 };

	outbuf__printf(b, "<h3 id=\"p%zu-%zu\">The score at ", si, p);
	outbuf__xml_str(b, hs->commits[ch->at].commit);
	outbuf__printf(b, ": %.6g &rarr; %.6g (%+.1f%s &plusmn; %.1f)</h3>\n<p>The diff of ", ch->before, ch->after,
		       ch->change, pt->score->absolute ? " points" : " %", ch->se);
	history_point__sides(b, hs, pt, outbuf__xml_str, " against ");
	outbuf__puts(b, ":</p>\n<pre>");
	if (pt->r)
		diff_report__write(&text, pt->r, DIFF_FORMAT_LKP);
	else
		outbuf__puts(&text, "(the diff could not be made)");
	outbuf__xml_str(b, text.s);
	outbuf__puts(b, "</pre>\n");
	outbuf__release(&text);
}

void history__html(struct outbuf *b, const struct history_series_scan *sc, size_t n)
{
	size_t i, k;

	outbuf__puts(b, "<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\">\n"
		     "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; style-src 'unsafe-inline'\">\n"
		     "<title>mmprof history</title>\n<style>\n"
		     "body{font-family:sans-serif;margin:1em 2em;color:#222}\n"
		     "svg{background:#fafafa;border:1px solid #ddd;display:block}\n"
		     "circle{fill:#3366cc;fill-opacity:.6}\n"
		     ".mean{fill:none;stroke:#999;stroke-width:1}\n"
		     ".cp{stroke:#d62728;stroke-width:2;stroke-dasharray:5,3}\n"
		     ".axis{stroke:#888}\n.lab{font-size:10px;fill:#555}\n"
		     "pre{font-size:12px;background:#f4f4f4;padding:.5em;overflow-x:auto}\n"
		     "</style></head><body>\n<h1>mmprof history</h1>\n");
	for (i = 0; i < n; i++) {
		const struct history_series *hs = sc[i].hs;

		outbuf__puts(b, "<h2>");
		outbuf__xml_str(b, hs->benchmark);
		outbuf__puts(b, " on ");
		outbuf__xml_str(b, hs->machine);
		outbuf__printf(b, "</h2>\n<p>%zu commits, ordered by %s; %zu change point%s of the score "
			       "(dashed red: a change point; each links to the diff of its two sides).</p>\n",
			       hs->nr_commits, hs->by_parents ? "parent links" : "time", sc[i].nr_points,
			       sc[i].nr_points == 1 ? "" : "s");
		for (k = 0; k < sc[i].nr_trends; k++)
			chart(b, i, k, &sc[i], &sc[i].trends[k]);
		for (k = 0; k < sc[i].nr_points; k++)
			point(b, i, k, &sc[i]);
	}
	outbuf__puts(b, "</body></html>\n");
}
