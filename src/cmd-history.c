/*
 * cmd-history: `mmprof history --store STORE [options] [KEY-GLOB...]`:
 * the score's series of each benchmark and machine in a results store,
 * its change points, and at each the profile rows that moved with it
 * (history.h); --report writes the robot's mail of each, --html a page
 * of trends.  Exit: 0, 1 when the score has a change point, 2 on error.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mmprof/cmd.h"
#include "mmprof/history.h"
#include "mmprof/message.h"
#include "mmprof/options.h"
#include "mmprof/outfile.h"
#include "mmprof/xalloc.h"

static const char *const usage[] = {
	"mmprof history --store STORE [options] [KEY-GLOB...]",
	NULL,
};

#define HISTORY_MAX_GLOBS 256

static void say_line(void *arg, enum diff_say kind, const char *line)
{
	/* the engine's ALERT (--force's) is a warning as any other */
	static const char *const prefix[] = {
		[DIFF_SAY_ERROR] = "",
		[DIFF_SAY_FILE] = "",
		[DIFF_SAY_WARNING] = "warning: ",
		[DIFF_SAY_ALERT] = "warning: ",
		[DIFF_SAY_NOTE] = "note: ",
	};

	(void)arg;
	message__line(prefix[kind], line);
}

int cmd_history(int argc, char **argv)
{
	const char *where = NULL, *format = "text", *html = NULL;
	struct store_series_filter f = { 0 };
	struct history_scan_opts2 o = { .say = say_line };
	int report = 0, window = 5;
	const struct option_desc opts[] = {
		OPT_STRING(0, "store", &where, "STORE", "the store: an SQLite file or a postgresql:// URL (required)"),
		OPT_STRING(0, "benchmark", &f.benchmark, "NAME", "only this benchmark's pushes (default: each, a series each)"),
		OPT_STRING(0, "machine", &f.machine, "NAME", "only this machine's pushes (default: each, a series each)"),
		OPT_STRING(0, "branch", &f.branch, "NAME", "only the pushes of this branch"),
		OPT_STRING('f', "format", &format, "FMT", "text (default), json, csv or markdown"),
		OPT_BOOL(0, "report", &report, "the robot's mail for each change point of the score, instead"),
		OPT_STRING(0, "html", &html, "FILE", "also write one offline HTML page: a trend chart per key"),
		OPT_STRING(0, "score", &o.score, "GLOB", "the score: keys matching GLOB (default: *.ops_per_sec, *.throughput, ...)"),
		OPT_INTEGER(0, "window", &window, "N", "commits a side of the diff at a change point (default 5)"),
		OPT_DOUBLE_F(0, "alpha", &o.alpha, "Q", "the diff's false discovery rate (default 0.05)", OPT_FRACTION),
		OPT_DOUBLE_F(0, "min-points", &o.trend.min_points, "P", "effect floor for perf-profile and % keys (default 0.1)", OPT_POINTS),
		OPT_DOUBLE(0, "min-pct", &o.trend.min_pct, "PCT", "effect floor for other keys, % (default 1)"),
		OPT_DOUBLE(0, "penalty", &o.trend.penalty, "B", "a change point's penalty, -2 log likelihood (default 15)"),
		OPT_END(),
	};
	char **pos = xcalloc(HISTORY_MAX_GLOBS + 1, sizeof(*pos));
	struct history_series_scan *sc = NULL;
	struct history h = { 0 };
	struct store *s = NULL;
	struct outbuf out = { 0 };
	struct errmsg e = { "" };
	enum history_format fmt;
	size_t i, changes = 0;
	int n, ret = EXIT_ERROR;

	n = options__parse_anywhere(argc, argv, opts, usage, pos, HISTORY_MAX_GLOBS);
	if (n < 0) {
		ret = n == -2 ? 0 : EXIT_ERROR;
		goto out;
	}
	if (n > HISTORY_MAX_GLOBS || !where || !*where) {
		error("%s; see 'mmprof history --help'",
			!where ? "--store is required" : !*where ? "--store: empty" : "at most 256 KEY-GLOBs");
		goto out;
	}
	if (history_format__parse(format, &fmt) < 0) {
		error("unknown format '%s'; use text, json, csv or markdown", format);
		goto out;
	}
	if (window < 1 || window > 1000) {
		error("--window %d: give 1 to 1000 commits a side", window);
		goto out;
	}
	o.window = (size_t)window;
	o.store = where;
	o.globs = (const char *const *)pos;
	o.nr_globs = (size_t)n;
	o.callchains = report;
	s = store__open_read(where, &e);
	if (!s || history__load(&h, s, &f, o.score, o.globs, o.nr_globs, &e) < 0) {
		error("%s", e.msg);
		goto out;
	}
	if (!h.nr_series) {
		error("store '%s' has no push%s%s%s%s%s%s; 'mmprof push' adds them",
			store__where(s), f.benchmark ? " of benchmark " : "", f.benchmark ? f.benchmark : "",
			f.machine ? " on machine " : "", f.machine ? f.machine : "",
			f.branch ? " on branch " : "", f.branch ? f.branch : "");
		goto out;
	}
	sc = xcalloc(h.nr_series, sizeof(*sc));
	for (i = 0; i < h.nr_series; i++) {
		history__scan(&h.series[i], &o, &sc[i]);
		changes += sc[i].nr_points;
	}
	outbuf__init_file(&out, stdout, false);
	if (report)
		history__report(&out, sc, h.nr_series);
	else
		history__format(&out, sc, h.nr_series, fmt);
	outbuf__flush(&out);
	if (html) {
		struct outbuf page = { 0 };

		history__html(&page, sc, h.nr_series);
		if (outfile__write(html, page.s, page.len, &e) < 0) {
			error("%s", e.msg);
			outbuf__release(&page);
			goto out;
		}
		outbuf__release(&page);
	}
	ret = changes ? 1 : 0;
out:
	outbuf__release(&out);
	for (i = 0; sc && i < h.nr_series; i++)
		history_series_scan__release(&sc[i]);
	free(sc);
	history__release(&h);
	store__close(s);
	free(pos);
	return ret;
}
