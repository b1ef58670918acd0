/*
 * htmlverdict: the first screen of `mmprof diff --html`, the answer before
 * the graph: the gates' outcome, the runs that failed or were dropped, the
 * workload's own metrics, the cost waterfall, the functions whose share
 * moved (each with the call chain that moved most), and the recorded
 * settings that differ, above it all.  Written into the page html.c opens.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mmprof/ciout.h"
#include "mmprof/diffside.h"
#include "mmprof/flame.h"
#include "mmprof/html.h"
#include "mmprof/keykind.h"
#include "mmprof/waterfall.h"
#include "mmprof/xalloc.h"

#include "html-int.h"

/* The waterfall of the cost per operation, its heading and note (nothing without one). */
static void verdict_cost(struct outbuf *b, const struct html_cost *c)
{
	struct waterfall_render_opts wo = { .id = "mmwaterfall", .width = 1180 };

	if (!c || (!c->waterfall && !c->note))
		return;
	if (!c->waterfall) {
		outbuf__puts(b, "<p class=\"note\" id=\"cost\">");
		outbuf__xml_str(b, c->note);
		outbuf__puts(b, "</p>\n");
		return;
	}
	wo.title = c->title;
	wo.subtitle = c->subtitle;
	outbuf__puts(b, "<div id=\"cost\">\n");
	waterfall__svg(b, c->waterfall, &wo);
	if (c->note) {
		outbuf__puts(b, "<p class=\"note\">");
		outbuf__xml_str(b, c->note);
		outbuf__puts(b, "</p>\n");
	}
	outbuf__puts(b, "</div>\n");
}

/* One row of the first screen's tables: name, base, new, change, verdict. */
static void verdict_row(struct outbuf *b, const struct diff_row *r, const char *name)
{
	outbuf__printf(b, "<tr class=\"%s\"><td class=\"key\">", html__row_class(r));
	outbuf__xml_str(b, name);
	outbuf__puts(b, "</td>");
	html__num_cell(b, r->base.mean, CELL_VALUE);
	html__num_cell(b, r->cur.mean, CELL_VALUE);
	html__change_cell(b, r);
	outbuf__printf(b, "<td class=\"v\">%s%s</td>", diff_row__verdict_name(r),
		       strstr(html__row_class(r), "better") ? ", better" :
		       strstr(html__row_class(r), "worse") ? ", worse" : "");
}

static const char verdict_head[] =
	"<table><thead><tr><th>%s</th><th>base</th><th>new</th><th>change</th><th>verdict</th>%s"
	"</tr></thead><tbody>\n";

/* The gates' outcome: a line, then the rows that tripped them (nothing without gates). */
static void verdict_gates(struct outbuf *b, const struct diff *d, const struct ci_gates *gates)
{
	struct outbuf rows = { 0 };
	size_t k, j, tripped = 0;

	if (!gates || !gates->nr)
		return;
	for (k = 0; k < gates->nr; k++) {
		struct gate_trips t;
		char desc[512];

		gate__evaluate(&gates->g[k], d, gates->any, &t);
		gate__describe(&gates->g[k], desc, sizeof(desc));
		tripped += t.nr || t.absent;
		for (j = 0; j < t.nr; j++) {
			verdict_row(&rows, t.rows[j], t.rows[j]->key);
			outbuf__puts(&rows, "<td class=\"key\">");
			outbuf__xml_str(&rows, desc);
			outbuf__puts(&rows, "</td></tr>\n");
		}
		if (t.absent) {
			outbuf__puts(&rows, "<tr><td class=\"key\">");
			outbuf__xml_str(&rows, gates->g[k].glob);
			outbuf__puts(&rows, "</td><td class=\"n\">0</td><td class=\"n\">0</td><td></td>"
				     "<td class=\"v\">absent</td><td class=\"key\">");
			outbuf__xml_str(&rows, desc);
			outbuf__puts(&rows, "</td></tr>\n");
		}
		gate_trips__release(&t);
	}
	outbuf__printf(b, "<p class=\"gates %s\" id=\"gates\">%s: %zu of %zu gate%s tripped</p>\n",
		       tripped ? "fail" : "pass", tripped ? "FAILED" : "Passed", tripped, gates->nr,
		       gates->nr == 1 ? "" : "s");
	if (rows.len) {
		outbuf__printf(b, verdict_head, "what tripped", "<th>gate</th>");
		outbuf__add(b, rows.s, rows.len);
		outbuf__puts(b, "</tbody></table>\n");
	}
	outbuf__release(&rows);
}

/* Failed and disturbed runs: what makes the numbers suspect, in red. */
static void verdict_runs(struct outbuf *b, const struct html_side sides[2], const struct diff *d)
{
	size_t k;

	for (k = 0; k < 2; k++) {
		/* counted as the text outputs count them; the side only read */
		const struct diff_side s = { .name = sides[k].name, .paths = (char **)sides[k].paths,
					     .nr = sides[k].nr,
					     .profiles = (struct profile **)sides[k].profiles };
		struct diff_side_failures f;

		diff_side__failures(&s, &f);
		if (f.failed)
			outbuf__printf(b, "<p class=\"warn\" id=\"failed-%s\">The %s side's workload failed in %zu of "
					  "%zu runs: its numbers measure the failure.</p>\n",
				       sides[k].name, sides[k].name, f.failed, f.total);
	}
	if (d->nr_disturbed)
		outbuf__printf(b, "<p class=\"warn\" id=\"disturbed\">%zu disturbed run%s (far from their side across "
				  "many keys; see the runs below and diff --drop-run).</p>\n",
			       d->nr_disturbed, d->nr_disturbed == 1 ? "" : "s");
}

/*
 * The calltrace row of function sym (in event ev, len bytes) that moved
 * most: its chain, callers first, into b ("a → b → sym").  Nothing when
 * the function has none.
 */
static void moved_chain(struct outbuf *b, const struct diff *d, const char *ev, size_t len, const char *sym)
{
	const struct diff_row *best = NULL;
	size_t i, sl = strlen(sym);

	for (i = 0; i < d->nr; i++) {
		const char *k = d->rows[i].key, *e;
		size_t el;

		e = keykind__profile(k) == KEYPROF_CALLTRACE ? keykind__profile_event(k, &el) : NULL;
		if (!e || strncmp(e, ev, len) || e[len] != '.' || strncmp(e + len + 1, sym, sl) ||
		    e[len + 1 + sl] != '.')
			continue;
		if (!best || fabs(d->rows[i].delta) > fabs(best->delta))
			best = &d->rows[i];
	}
	if (!best)
		return;
	{
		/* callee first in the key: print it callers first */
		char *chain = xstrdup(best->key + 24 + len), *dot;
		bool first = true;

		outbuf__puts(b, "<div class=\"chain\">");
		while (true) {
			dot = strrchr(chain, '.');
			outbuf__puts(b, first ? "" : " \xe2\x86\x92 ");
			outbuf__xml_str(b, dot ? dot + 1 : chain);
			first = false;
			if (!dot)
				break;
			*dot = '\0';
		}
		outbuf__puts(b, "</div>");
		free(chain);
	}
}

/* The perf-profile children rows that moved most (ciout__moved), with their chains. */
void html__moved(struct outbuf *b, const struct diff *d)
{
	const struct diff_row *top[5];
	size_t i, n = ciout__moved(d, top, 5);

	outbuf__puts(b, "<h2>Functions that moved most</h2>\n");
	if (!n) {
		outbuf__puts(b, "<p class=\"note\">No perf-profile children share changed significantly.</p>\n");
		return;
	}
	if (n > 5)
		n = 5;
	outbuf__printf(b, verdict_head, "function (children share, call chain that moved most)", "");
	for (i = 0; i < n; i++) {
		const char *ev = top[i]->key + 22, *sym = strchr(ev, '.');

		if (!sym)
			continue;
		outbuf__printf(b, "<tr class=\"%s\"><td class=\"key\">", html__row_class(top[i]));
		outbuf__xml_str(b, sym + 1);
		moved_chain(b, d, ev, (size_t)(sym - ev), sym + 1);
		outbuf__puts(b, "</td>");
		html__num_cell(b, top[i]->base.mean, CELL_VALUE);
		html__num_cell(b, top[i]->cur.mean, CELL_VALUE);
		html__change_cell(b, top[i]);
		outbuf__printf(b, "<td class=\"v\">%s</td></tr>\n", diff_row__verdict_name(top[i]));
	}
	outbuf__puts(b, "</tbody></table>\n");
}

/* The recorded settings that differ between the sides (diff.h), first on the page. */
void html__settings_differ(struct outbuf *b, const struct html_side sides[2])
{
	struct diff_settings_side ss[2] = { { sides[0].profiles, sides[0].nr },
					    { sides[1].profiles, sides[1].nr } };
	struct diff_setting *st;
	size_t i, n = diff__settings_differ(ss, 2, &st);

	if (n) {
		outbuf__puts(b, "<p class=\"settings\"><b>Settings that differ</b> (recorded with the "
				"files):");
		for (i = 0; i < n; i++) {
			outbuf__puts(b, i ? "; <code>" : " <code>");
			outbuf__xml_str(b, st[i].name);
			outbuf__puts(b, "</code> base <b>");
			outbuf__xml_str(b, st[i].value[0]);
			outbuf__puts(b, "</b>, new <b>");
			outbuf__xml_str(b, st[i].value[1]);
			outbuf__puts(b, "</b>");
		}
		outbuf__puts(b, "</p>\n");
	}
	diff__settings_release(st, n);
}

/* The workload's own metrics (NAME.metric) with their verdicts. */
static void verdict_metrics(struct outbuf *b, const struct html_side sides[2], const struct diff *d)
{
	size_t i, n = 0;
	int pass;

	if (!sides[1].nr)
		return;
	/* the score first (diff's primary endpoint, DIFF_SCORE), then the rest */
	for (pass = 0; pass < 2; pass++)
	for (i = 0; i < d->nr && n < 8; i++) {
		const struct diff_row *r = &d->rows[i];

		if (!ciout__workload_metric(r) || ((r->flags & DIFF_SCORE) == 0) != (pass == 1))
			continue;
		/* which colour is better, in the head: no line more on the first screen */
		if (!n++)
			outbuf__printf(b, verdict_head,
				       "the workload's metric <span class=\"note\" title=\"where a metric's "
				       "better direction is known: higher for operations and rates (.ops, "
				       "ops_per_sec, throughput), lower for latencies, times and costs per "
				       "op; any other change is red when it rose, blue when it fell\">"
				       "(green better, red worse)</span>", "");
		if (r->flags & DIFF_SCORE) {
			struct outbuf label = { 0 };

			outbuf__printf(&label, "%s (the score)", r->key);
			verdict_row(b, r, label.s);
			outbuf__release(&label);
		} else {
			verdict_row(b, r, r->key);
		}
		outbuf__puts(b, "</tr>\n");
	}
	if (n)
		outbuf__puts(b, "</tbody></table>\n");
	else
		outbuf__puts(b, "<p class=\"note\">No metric of the workload's own (keys NAME.metric) in the files.</p>\n");
}

void html__verdict(struct outbuf *b, const struct html_side sides[2], const struct diff *d,
		   const struct ci_gates *gates, const struct html_cost *cost)
{
	verdict_gates(b, d, gates);
	verdict_runs(b, sides, d);
	verdict_metrics(b, sides, d);
	/*
	 * With a waterfall, it is the functions that account for the change,
	 * and the share movers follow the graph: the first screen holds the
	 * verdict and the graph's start either way (t401 at 1280x900).
	 */
	verdict_cost(b, cost);
	if (!cost || !cost->waterfall)
		html__moved(b, d);
}
