/*
 * html: the one-file reports of `mmprof diff --html` and `mmprof report
 * --html`.  Everything is inline
 * (CSS, scripts, the SVG) so the file opens offline, from a CI artifact
 * store or a mail attachment.  The table's sort/filter script and the
 * flame graph script are independent; when both have run, <body> gets
 * data-ok="1" (the headless-browser test reads it back from the DOM), and
 * any uncaught script error is recorded as data-error on <html>.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mmprof/flame.h"
#include "mmprof/html.h"
#include "mmprof/keys.h"
#include "mmprof/xalloc.h"

#include "html-int.h"

static const char page_css[] =
	"body { font-family: 'DejaVu Sans', Verdana, sans-serif; margin: 1.5em; color: #222; background: #fff; }\n"
	"h1 { font-size: 1.5em; margin-bottom: 0.2em; }\n"
	"h2 { font-size: 1.15em; margin-top: 1.6em; border-bottom: 1px solid #ccc; }\n"
	"table { border-collapse: collapse; font-size: 0.85em; }\n"
	"th, td { padding: 2px 8px; border-bottom: 1px solid #eee; text-align: left; vertical-align: top; }\n"
	"td.n { text-align: right; font-family: 'DejaVu Sans Mono', monospace; }\n"
	"#rows th { cursor: pointer; background: #f2f2ee; position: sticky; top: 0; }\n"
	"#rows th.asc::after { content: ' \\25b2'; } #rows th.desc::after { content: ' \\25bc'; }\n"
	"tr.up td.v { color: #c00; font-weight: bold; } tr.down td.v { color: #0040c0; font-weight: bold; }\n"
	"tr.changed td.v { color: #a60; }\n"
	"tr.better td.v { color: #080; } tr.worse td.v { color: #c00; }\n"
	".note { color: #555; font-size: 0.85em; }\n"
	"#filter { width: 30em; margin: 0.5em 0; }\n"
	".key { font-family: 'DejaVu Sans Mono', monospace; min-width: 28em; word-break: break-all; }\n"
	".graph { overflow-x: auto; }\n"
	"#verdict { border: 1px solid #ccc; background: #fafaf6; padding: 0.4em 1em 0.8em; margin: 0.8em 0; }\n"
	"#verdict h2 { margin-top: 0.6em; font-size: 1.05em; border: 0; }\n"
	"#verdict table { margin-bottom: 0.7em; }\n"
	".gates { font-size: 1.1em; font-weight: bold; margin: 0.4em 0; }\n"
	".gates.fail { color: #c00; } .gates.pass { color: #070; }\n"
	".warn { color: #a00; font-weight: bold; }\n"
	".chain { color: #555; font-size: 0.9em; }\n"
	"details { margin: 1em 0; } summary { cursor: pointer; font-size: 1.15em; font-weight: bold; "
	"border-bottom: 1px solid #ccc; padding: 0.2em 0; }\n";

/*
 * The table and graph script both pages share; each page defines
 * rowText(tr), the text the filter matches (declarations are hoisted).
 * #mmprof-selftest[=TERM] exercises search (TERM, default split_huge) and
 * zoom; the headless-browser tests read the result back.
 */
static const char page_script[] =
	"(function () {\n"
	"'use strict';\n"
	"var table = document.getElementById('rows'), body = table.tBodies[0];\n"
	"var heads = table.tHead.rows[0].cells, filter = document.getElementById('filter');\n"
	"var shown = document.getElementById('shown');\n"
	"function val(tr, i) {\n"
	"  var c = tr.cells[i], v = c.getAttribute('data-v');\n"
	"  return v === null ? c.textContent : v === '' ? NaN : +v;\n"
	"}\n"
	"function sortBy(i) {\n"
	"  var h = heads[i], desc = h.className !== 'desc';\n"
	"  var rows = Array.prototype.slice.call(body.rows);\n"
	"  rows.sort(function (a, b) {\n"
	"    var x = val(a, i), y = val(b, i), r;\n"
	"    if (typeof x === 'number') {\n"
	"      if (isNaN(x)) return isNaN(y) ? 0 : 1;\n"
	"      if (isNaN(y)) return -1;\n"
	"      r = x - y;\n"
	"    } else r = x < y ? -1 : x > y ? 1 : 0;\n"
	"    return desc ? -r : r;\n"
	"  });\n"
	"  for (var k = 0; k < heads.length; k++) heads[k].className = '';\n"
	"  h.className = desc ? 'desc' : 'asc';\n"
	"  for (k = 0; k < rows.length; k++) body.appendChild(rows[k]);\n"
	"}\n"
	"function applyFilter() {\n"
	"  var re, n = 0;\n"
	"  try { re = new RegExp(filter.value, 'i'); } catch (e) { return; }\n"
	"  for (var k = 0; k < body.rows.length; k++) {\n"
	"    var tr = body.rows[k], ok = re.test(rowText(tr));\n"
	"    tr.style.display = ok ? '' : 'none';\n"
	"    n += ok;\n"
	"  }\n"
	"  shown.textContent = n + ' of ' + body.rows.length + ' rows';\n"
	"}\n"
	"for (var k = 0; k < heads.length; k++)\n"
	"  heads[k].addEventListener('click', (function (i) { return function () { sortBy(i); }; })(k));\n"
	"filter.addEventListener('input', applyFilter);\n"
	"applyFilter();\n"
	"var svg = document.querySelector('svg.mmflame');\n"
	"var ok = !svg || svg.getAttribute('data-ok') === '1';\n"
	"document.body.setAttribute('data-rows', String(body.rows.length));\n"
	"/* #mmprof-selftest: exercise search and zoom (the headless-browser test reads the result) */\n"
	"var term = location.hash.indexOf('#mmprof-selftest') === 0 ?\n"
	"  decodeURIComponent(location.hash.slice(17)) || 'split_huge' : null;\n"
	"if (svg && svg.mmflame && term) {\n"
	"  var fl = svg.mmflame, hits = fl.search(term), res = [];\n"
	"  res.push('hits=' + hits, svg.querySelector('.matched').textContent);\n"
	"  fl.search(null);\n"
	"  /* zoom into the first match: everything beside its stacks must hide */\n"
	"  var re = new RegExp(term);\n"
	"  for (var j = 0; j < fl.frames.length; j++) if (re.test(fl.frames[j].name)) { fl.zoom(j); break; }\n"
	"  var hidden = 0;\n"
	"  for (j = 0; j < fl.frames.length; j++) hidden += fl.frames[j].g.style.display === 'none';\n"
	"  res.push('hidden=' + hidden);\n"
	"  fl.unzoom();\n"
	"  document.body.setAttribute('data-selftest', res.join(';'));\n"
	"}\n"
	"/* where the first screen's parts are, and the folded table: read by the browser test */\n"
	"function shownNow(e) { return e.checkVisibility ? e.checkVisibility() : e.offsetParent !== null; }\n"
	"function topOf(sel) { var e = document.querySelector(sel); return e ? Math.round(e.getBoundingClientRect().top) : -1; }\n"
	"var det = document.getElementById('all'), lay = ['verdict=' + topOf('#verdict'), 'graph=' + topOf('svg.mmflame'),\n"
	"  'table-visible=' + shownNow(table), 'viewport=' + window.innerHeight];\n"
	"if (det && term) {\n"
	"  det.open = true;\n"
	"  filter.value = term; applyFilter();\n"
	"  lay.push('unfolded-visible=' + shownNow(table), 'filtered=' + shown.textContent);\n"
	"  filter.value = ''; applyFilter(); det.open = false;\n"
	"}\n"
	"document.body.setAttribute('data-layout', lay.join(';'));\n"
	"document.body.setAttribute('data-ok', ok ? '1' : '0');\n";

/*
 * The width switch of a diff with a graph per op: three radio buttons in
 * the graph's heading (no line of its own on the first screen), one of
 * three graphs shown by CSS alone; a browser without :has() shows the
 * share graph.
 */
static const char views_css[] =
	".views h2 .switch { font-size: 0.72em; font-weight: normal; margin-left: 1.5em; }\n"
	".views h2 label { margin-right: 1.2em; cursor: pointer; }\n"
	".views > .v-op-new, .views > .v-op-base { display: none; }\n"
	".views:has(#fw-op-new:checked) > .v-op-new, .views:has(#fw-op-base:checked) > .v-op-base "
	"{ display: block; }\n"
	".views:has(#fw-op-new:checked) > .v-share, .views:has(#fw-op-base:checked) > .v-share "
	"{ display: none; }\n"
	"#cost .note { margin-top: 0; }\n";

/*
 * #mmprof-selftest=TERM with the width switch: each view in turn, the
 * graph it shows and the rendered width of TERM's widest frame in it
 * (0 in a hidden graph), as body data-views for the browser test.
 */
static const char views_script[] =
	"(function () {\n"
	"'use strict';\n"
	"if (location.hash.indexOf('#mmprof-selftest') !== 0) return;\n"
	"var term = decodeURIComponent(location.hash.slice(17)) || 'split_huge', res = [];\n"
	"var views = ['share', 'op-new', 'op-base'];\n"
	"for (var v = 0; v < views.length; v++) {\n"
	"  document.getElementById('fw-' + views[v]).checked = true;\n"
	"  var svgs = document.querySelectorAll('svg.mmflame'), shown = [], w = 0;\n"
	"  for (var k = 0; k < svgs.length; k++) {\n"
	"    var s = svgs[k];\n"
	"    if (!s.getBoundingClientRect().width) continue;\n"
	"    shown.push(s.id);\n"
	"    for (var j = 0; s.mmflame && j < s.mmflame.frames.length; j++) {\n"
	"      var fr = s.mmflame.frames[j];\n"
	"      if (fr.name === term) w = Math.max(w, fr.r.getBoundingClientRect().width);\n"
	"    }\n"
	"  }\n"
	"  res.push(views[v] + ':' + shown.join(',') + ':' + w.toFixed(1));\n"
	"}\n"
	"document.getElementById('fw-share').checked = true;\n"
	"document.body.setAttribute('data-views', res.join(';'));\n"
	"})();\n";

/* the diff page's end of the shared script: its row text, and where its waterfall is (-1: none) */
static const char diff_row_text[] =
	"function rowText(tr) { return tr.cells[0].textContent + ' ' + tr.cells[7].textContent; }\n"
	"var wf = document.querySelector('svg.mmwaterfall'), wr = wf ? wf.getBoundingClientRect() : null;\n"
	"document.body.setAttribute('data-layout', document.body.getAttribute('data-layout') +\n"
	"  ';waterfall=' + (wr ? Math.round(wr.top) : -1) + ';waterfall-end=' + (wr ? Math.round(wr.bottom) : -1));\n"
	"})();\n";

static const char report_row_text[] =
	"function rowText(tr) { return tr.cells[0].textContent; }\n"
	"})();\n";

static void meta_values(struct outbuf *b, const struct html_side *s, const char *key)
{
	size_t i, j, shown = 0;

	for (i = 0; i < s->nr; i++) {
		const char *v = profile__meta(s->profiles[i], key);

		if (!v)
			continue;
		for (j = 0; j < i; j++) {
			const char *w = profile__meta(s->profiles[j], key);

			if (w && !strcmp(v, w))
				break;
		}
		if (j < i)
			continue;
		if (shown++)
			outbuf__puts(b, "<br>");
		outbuf__xml_str(b, v);
	}
	if (!shown)
		outbuf__puts(b, "\xe2\x80\x94");
}

static void side_summary(struct outbuf *b, const struct html_side *s, int what)
{
	double sum, lo, hi;
	size_t i, j, n;

	switch (what) {
	case 0:
		for (i = 0; i < s->nr; i++) {
			outbuf__puts(b, i ? "<br>" : "");
			outbuf__xml_str(b, s->paths[i]);
		}
		break;
	case 1:
		outbuf__printf(b, "%zu", s->nr_runs);
		break;
	case 2: {
		/* every run's status; failed ones stand out as lost samples do */
		char st[512];

		if (profile__run_statuses(s->profiles, s->nr, st, sizeof(st))) {
			outbuf__puts(b, "<b class=\"lost\">");
			outbuf__xml_str(b, st);
			outbuf__puts(b, "</b>");
		} else {
			outbuf__xml_str(b, st);
		}
		break;
	}
	case 3:
		for (i = 0; i < s->nr; i++)
			for (j = 0; j < s->profiles[i]->nr_events; j++) {
				const struct event_desc *ev = &s->profiles[i]->events[j];

				outbuf__puts(b, i || j ? "<br>" : "");
				outbuf__xml_str(b, profile__str(s->profiles[i], ev->name));
				outbuf__printf(b, ev->freq ? " (%llu Hz)" : " (period %llu)",
					       (unsigned long long)ev->sample);
			}
		break;
	case 4:
		if ((n = profile__run_walls(s->profiles, s->nr, &sum, &lo, &hi)))
			outbuf__printf(b, "%.3f s mean (%.3f .. %.3f)", sum / (double)n, lo, hi);
		break;
	case 5: {
		/* kept and lost (ring buffer full) over every run of the side */
		uint64_t kept, lost = profile__run_lost(s->profiles, s->nr, &kept, NULL);

		outbuf__printf(b, "%llu kept", (unsigned long long)kept);
		if (lost)
			outbuf__printf(b, ", <b class=\"lost\">%llu lost (%.1f%%)</b>",
				       (unsigned long long)lost,
				       100.0 * (double)lost / (double)(kept + lost));
		else
			outbuf__puts(b, ", none lost");
		break;
	}
	}
}

/* Union of the meta keys of every file, in first-seen order; a column per side. */
static void meta_table(struct outbuf *b, const struct html_side *sides, size_t nr_sides)
{
	static const char *const rows[] = { "files", "runs", "status", "events", "duration", "samples" };
	const char **keys = NULL;
	size_t nk = 0, alloc = 0, i, j, k, s;

	outbuf__puts(b, "<table id=\"meta\"><thead><tr><th></th>");
	for (s = 0; s < nr_sides; s++) {
		outbuf__puts(b, "<th>");
		outbuf__xml_str(b, sides[s].name);
		outbuf__puts(b, "</th>");
	}
	outbuf__puts(b, "</tr></thead><tbody>\n");
	for (i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		outbuf__printf(b, "<tr><th>%s</th>", rows[i]);
		for (s = 0; s < nr_sides; s++) {
			outbuf__puts(b, "<td>");
			side_summary(b, &sides[s], (int)i);
			outbuf__puts(b, "</td>");
		}
		outbuf__puts(b, "</tr>\n");
	}
	for (s = 0; s < nr_sides; s++)
		for (i = 0; i < sides[s].nr; i++) {
			const struct profile *p = sides[s].profiles[i];

			for (j = 0; j < p->nr_meta; j++) {
				const char *key = profile__str(p, p->meta[j].key);

				if (!key)
					continue;
				for (k = 0; k < nk; k++)
					if (!strcmp(keys[k], key))
						break;
				if (k < nk)
					continue;
				XGROW(keys, alloc, nk);
				keys[nk++] = key;
			}
		}
	for (k = 0; k < nk; k++) {
		outbuf__puts(b, "<tr><th>");
		outbuf__xml_str(b, keys[k]);
		outbuf__puts(b, "</th>");
		for (s = 0; s < nr_sides; s++) {
			outbuf__puts(b, "<td>");
			meta_values(b, &sides[s], keys[k]);
			outbuf__puts(b, "</td>");
		}
		outbuf__puts(b, "</tr>\n");
	}
	outbuf__puts(b, "</tbody></table>\n");
	free(keys);
}

/* One graph in its <div class="graph CLS"> (cls "": none). */
static void graph_div(struct outbuf *b, const struct flame *f, const char *cls, const char *id,
		      const char *subtitle, enum flame_side side)
{
	struct flame_render_opts ro = { .inline_html = true, .id = id, .subtitle = subtitle, .side = side };

	outbuf__printf(b, "<div class=\"graph%s%s\">\n", *cls ? " " : "", cls);
	flame__svg(b, f, &ro, NULL);
	outbuf__puts(b, "</div>\n");
}

/* The flame graph (f NULL: the note instead). */
static void graph(struct outbuf *b, const struct flame *f, const char *subtitle, const char *no_graph)
{
	if (f) {
		graph_div(b, f, "", "mmflame", subtitle, FLAME_SIDE_BUILT);
		outbuf__puts(b, "<script>\n");
		outbuf__puts(b, flame__script());
		outbuf__puts(b, "</script>\n");
	} else {
		outbuf__printf(b, "<p class=\"note\">%s</p>\n", no_graph);
	}
}

/*
 * The share graph f and the graph per op fc on either side behind the
 * width switch (views_css), the share graph first and checked.
 */
static void graph_views(struct outbuf *b, const struct flame *f, const struct flame *fc, const char *per,
			const char *event, const char *share_sub)
{
	char sub[384];

	outbuf__printf(b, "<div class=\"views\">\n<h2>Differential flame graph <span class=\"switch\">width: "
		       "<label><input type=\"radio\" name=\"fw\" id=\"fw-share\" checked> share of each run (new)</label>"
		       "<label><input type=\"radio\" name=\"fw\" id=\"fw-op-new\"> cost per %s, new</label>"
		       "<label><input type=\"radio\" name=\"fw\" id=\"fw-op-base\"> cost per %s, base</label>"
		       "</span></h2>\n", per ? per : "op", per ? per : "op");
	graph_div(b, f, "v-share", "mmflame", share_sub, FLAME_SIDE_BUILT);
	/* the subtitle is text of the SVG, escaped there: the unit goes in as it is */
	snprintf(sub, sizeof(sub), "%s, %s; base and new to one scale: a wider frame costs more per operation",
		 event ? event : "", fc->unit ? fc->unit : "");
	graph_div(b, fc, "v-op-new", "mmflame-op-new", sub, FLAME_SIDE_NEW);
	graph_div(b, fc, "v-op-base", "mmflame-op-base", sub, FLAME_SIDE_BASE);
	outbuf__puts(b, "</div>\n<script>\n");
	outbuf__puts(b, flame__script());
	outbuf__puts(b, "</script>\n");
}

/* The table's script, and the page's end. */
static void scripts(struct outbuf *b, const char *row_text)
{
	outbuf__puts(b, "<script>\n");
	outbuf__puts(b, page_script);
	outbuf__puts(b, row_text);
	outbuf__puts(b, "</script>\n</body></html>\n");
}

/* The flame graph and both scripts of a page (f NULL: the note instead). */
static void graph_and_scripts(struct outbuf *b, const struct flame *f, const char *subtitle,
			      const char *no_graph, const char *row_text)
{
	graph(b, f, subtitle, no_graph);
	scripts(b, row_text);
}

/* A key cell's tooltip: the raw names behind a key spelled otherwise (hot.isra.0 for ...hot). */
static void key_spellings(struct outbuf *b, const struct diff_spelling *sp)
{
	size_t i;
	int sd;

	if (!sp)
		return;
	outbuf__puts(b, " title=\"spelled");
	for (sd = 0; sd < 2; sd++) {
		outbuf__puts(b, sd ? "; new: " : " in base: ");
		for (i = 0; i < sp->nr[sd]; i++) {
			outbuf__puts(b, i ? ", " : "");
			outbuf__xml_str(b, sp->name[sd][i]);
		}
		if (!sp->nr[sd])
			outbuf__puts(b, "-");
	}
	outbuf__puts(b, "\"");
}

/*
 * The page up to its heading "mmprof WHAT": title "mmprof WHAT: first"
 * (" -> second" when given), the hook that records an uncaught error on
 * the document for the headless-browser tests, and the style sheet (css:
 * rules of this page's own after it, or NULL).
 */
static void page_open(struct outbuf *b, const char *what, const char *first, const char *second,
		      const char *css)
{
	outbuf__printf(b, "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n"
			  "<meta name=\"generator\" content=\"mmprof %s\">\n"
			  "<title>mmprof %s: ", MMPROF_VERSION, what);
	outbuf__xml_str(b, first);
	if (second) {
		outbuf__puts(b, " \xe2\x86\x92 ");
		outbuf__xml_str(b, second);
	}
	outbuf__puts(b, "</title>\n<script>window.addEventListener('error', function (e) {\n"
		     "  document.documentElement.setAttribute('data-error', String(e.message));\n});</script>\n<style>\n");
	outbuf__puts(b, page_css);
	if (css)
		outbuf__puts(b, css);
	outbuf__printf(b, "</style>\n</head>\n<body>\n<h1>mmprof %s</h1>\n", what);
}

void html__diff(struct outbuf *b, const struct html_side sides[2], const struct diff *d,
		const struct diff_row *const *rows, size_t n, const struct flame *f,
		const char *event, const struct ci_gates *gates, const struct html_cost *cost)
{
	const struct flame *fc = f && cost ? cost->per_op : NULL;
	bool waterfall = cost && cost->waterfall;
	char sub[256];
	size_t i;

	page_open(b, "diff", sides[0].nr ? sides[0].paths[0] : "base",
		  sides[1].nr ? sides[1].paths[0] : "new", fc || (cost && cost->waterfall) ? views_css : NULL);
	/* the first screen: the answer */
	outbuf__puts(b, "<p class=\"files\">");
	for (i = 0; i < 2; i++) {
		size_t j;

		outbuf__puts(b, i ? " \xe2\x86\x92 " : "");
		for (j = 0; j < sides[i].nr; j++) {
			outbuf__puts(b, j ? ", <b>" : "<b>");
			outbuf__xml_str(b, sides[i].paths[j]);
			outbuf__puts(b, "</b>");
		}
		outbuf__printf(b, " (%zu run%s)", sides[i].nr_runs, sides[i].nr_runs == 1 ? "" : "s");
	}
	outbuf__puts(b, "</p>\n");
	html__settings_differ(b, sides);
	outbuf__puts(b, "<div id=\"verdict\">\n");
	html__verdict(b, sides, d, gates, cost);
	outbuf__puts(b, fc ? "</div>\n" : "</div>\n<h2>Differential flame graph</h2>\n");
	snprintf(sub, sizeof(sub), "%s, %% of each run's total period; hover for values, click to zoom",
		 event ? event : "");
	if (fc)
		graph_views(b, f, fc, cost->per, event, sub);
	else
		graph(b, f, sub, "No flame graph: the sides have no samples of a common event.");
	if (waterfall) {
		outbuf__puts(b, "<div id=\"moved\">\n");
		html__moved(b, d);
		outbuf__puts(b, "</div>\n");
	}

	/* then everything, folded */
	outbuf__printf(b, "<details id=\"all\"><summary>All rows (%zu)</summary>\n", n);
	outbuf__puts(b, "<p class=\"note\">");
	{
		struct outbuf m = { 0 };

		diff__describe(&m, d);
		outbuf__xml_str(b, m.s ? m.s : "");
		outbuf__puts(b, ".");
		outbuf__release(&m);
	}
	if (d->nr_address)
		outbuf__printf(b, " Not compared: %zu tracepoint key%s bucketed by address (ASLR moves the "
				  "buckets every run).", d->nr_address, d->nr_address == 1 ? "" : "s");
	for (i = 0; i < 2; i++) {
		size_t j;

		if (!d->nr_one_side[i])
			continue;
		outbuf__printf(b, " Not compared, measured in %s only:", i ? "new" : "base");
		for (j = 0; j < d->nr_one_side[i]; j++) {
			outbuf__puts(b, j ? ", " : " ");
			outbuf__xml_str(b, d->one_side[i][j]);
		}
		outbuf__puts(b, ".");
	}
	outbuf__puts(b, "</p>\n<p><input id=\"filter\" type=\"search\" placeholder=\"filter: regular expression "
		     "on key or verdict\"> <span id=\"shown\" class=\"note\"></span></p>\n");
	outbuf__puts(b, "<table id=\"rows\"><thead><tr><th>key</th><th>base</th><th>\xc2\xb1sd</th><th>new</th>"
		     "<th>\xc2\xb1sd</th><th>change</th><th>q</th><th>verdict</th>"
		     "<th title=\"the smallest change the runs would detect with 80% power\">detectable</th>"
		     "</tr></thead><tbody>\n");
	for (i = 0; i < n; i++) {
		const struct diff_row *r = rows[i];

		outbuf__printf(b, "<tr class=\"%s\"><td class=\"key\"", html__row_class(r));
		key_spellings(b, diff__spelling(d, r));
		outbuf__puts(b, ">");
		outbuf__xml_str(b, r->key);
		outbuf__puts(b, "</td>");
		html__num_cell(b, r->base.mean, CELL_VALUE);
		html__num_cell(b, r->base.sd, CELL_SD);
		html__num_cell(b, r->cur.mean, CELL_VALUE);
		html__num_cell(b, r->cur.sd, CELL_SD);
		html__change_cell(b, r);
		html__num_cell(b, r->q, CELL_Q);
		outbuf__printf(b, "<td class=\"v\">%s</td>", diff_row__verdict_name(r));
		html__num_cell(b, r->mde, r->absolute ? CELL_POINTS_ABS : CELL_PCT_ABS);
		outbuf__puts(b, "</tr>\n");
	}
	outbuf__puts(b, "</tbody></table>\n");
	if (!n)
		outbuf__puts(b, "<p class=\"note\">No row to show (run mmprof diff with --all for every key).</p>\n");
	outbuf__puts(b, "</details>\n<details id=\"runs\"><summary>Runs and metadata</summary>\n");
	meta_table(b, sides, 2);
	outbuf__puts(b, "</details>\n");
	if (fc) {
		outbuf__puts(b, "<script>\n");
		outbuf__puts(b, views_script);
		outbuf__puts(b, "</script>\n");
	}
	scripts(b, diff_row_text);
}

void html__report(struct outbuf *b, const struct html_side *s, const struct html_key_row *rows,
		  size_t n, const struct flame *f, const char *event, const char *unresolved)
{
	char sub[256];
	size_t i;

	page_open(b, "report", s->nr ? s->paths[0] : "profile", NULL, NULL);
	outbuf__puts(b, "<p class=\"note\">Shares of the ");
	outbuf__xml_str(b, event ? event : "first event");
	outbuf__puts(b, " total period, summed over the runs, as perf report --children: <i>children</i> "
		     "counts every sample whose stack holds the function, <i>self</i> the samples it was "
		     "executing.</p>\n");
	if (unresolved) {
		outbuf__puts(b, "<p class=\"note\" id=\"unresolved\">");
		outbuf__xml_str(b, unresolved);
		outbuf__puts(b, "</p>\n");
	}
	outbuf__puts(b, "<h2>Run</h2>\n");
	meta_table(b, s, 1);

	outbuf__puts(b, "<h2>Top functions</h2>\n<p><input id=\"filter\" type=\"search\" placeholder=\"filter: regular "
		     "expression on the function\"> <span id=\"shown\" class=\"note\"></span></p>\n");
	outbuf__puts(b, "<table id=\"rows\"><thead><tr><th>function</th><th>children</th><th>self</th>"
		     "</tr></thead><tbody>\n");
	for (i = 0; i < n; i++) {
		outbuf__puts(b, "<tr><td class=\"key\">");
		outbuf__xml_str(b, rows[i].sym);
		outbuf__printf(b, "</td><td class=\"n\" data-v=\"%.17g\">%.2f%%</td>"
				  "<td class=\"n\" data-v=\"%.17g\">%.2f%%</td></tr>\n",
			       rows[i].children, rows[i].children, rows[i].self, rows[i].self);
	}
	outbuf__puts(b, "</tbody></table>\n");
	if (!n)
		outbuf__puts(b, "<p class=\"note\">No function at or above 0.05 % of the total.</p>\n");

	outbuf__puts(b, "<h2>Flame graph</h2>\n");
	snprintf(sub, sizeof(sub), "%s, period summed over the runs; hover for values, click to zoom",
		 event ? event : "");
	graph_and_scripts(b, f, sub, "No flame graph: the profile has no samples of this event.",
			  report_row_text);
}
