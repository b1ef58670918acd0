/*
 * cmd-diff: `mmprof diff [options] BASE NEW` or `B1 B2 ... -- N1 N2 ...`.
 *
 * Loads the two sides, every run as its flat keys (diffside.h), compares
 * the pooled sides (diff.h), prints the header (diffside.h) and the
 * robot's table (or JSON, CSV, markdown), the changed call chains on
 * request, and says which CI gates tripped (gate.h).  The command holds
 * the options, their checks, the messages and the exit status.
 * Exit: 0, 1 when a gate tripped, 2 on any error.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "mmprof/chains.h"
#include "mmprof/ciout.h"
#include "mmprof/cmd.h"
#include "mmprof/diff.h"
#include "mmprof/diffside.h"
#include "mmprof/flame.h"
#include "mmprof/gate.h"
#include "mmprof/keys.h"
#include "mmprof/options.h"
#include "mmprof/outfile.h"
#include "mmprof/term.h"
#include "mmprof/xalloc.h"

struct diff_cmd {
	const char *format;
	int all, robot, callchains, fail_on_any, force, limit, allow_unmatched, allow_failed;
	struct strlist fail_on;
	struct strlist drop_run;	/* "base:N" / "new:N" */
	struct strlist ambient;		/* globs of keys that are the machine's state */
	int no_ambient;
	const char *gate_file;
	const char *junit, *summary;	/* CI outputs (ciout.h) */
	const char *html;
	int color;		/* -1: on a terminal, unless NO_COLOR */
	struct diff_opts o;
	char alias_from[128], alias_to[128];	/* o.alias_from, o.alias_to under --force */
};

static const char *const usage[] = {
	"mmprof diff [options] BASE.data NEW.data",
	"mmprof diff [options] BASE1.data BASE2.data ... -- NEW1.data NEW2.data ...",
	NULL,
};

/* --fail-on's expressions and --gate-file's lines, parsed into *gates (*ng of them). */
static int parse_gates(struct diff_cmd *c, struct gate **gates, size_t *ng)
{
	struct errmsg e;

	if (c->gate_file && gate__read_file(c->gate_file, &c->fail_on, &e) < 0) {
		fprintf(stderr, "mmprof: %s\n", e.msg);
		return -1;
	}
	*gates = xcalloc(c->fail_on.nr + 1, sizeof(**gates));
	for (*ng = 0; *ng < c->fail_on.nr; (*ng)++)
		if (gate__parse(c->fail_on.items[*ng], &(*gates)[*ng], &e) < 0) {
			fprintf(stderr, "mmprof diff: %s\n", e.msg);
			return -1;
		}
	return 0;
}

/*
 * Gates that match no compared key can never trip: a typo in a CI gate
 * would pass forever.  Each is one line on stderr; an error (returns the
 * number of them) unless allow, when they are notes (returns 0).  A gate
 * naming a key that is absent from both sides of a measured domain (a
 * function never sampled, gate.h) is not one of them: it compares 0 with
 * 0, and says so in a note.
 */
static size_t unmatched_gates(const struct diff *d, const struct gate *g, size_t ng, bool allow)
{
	size_t i, bad = 0;

	for (i = 0; i < ng; i++) {
		struct gate_matches m;
		char desc[512];

		gate__count(&g[i], d, &m);
		if (m.rows)
			continue;
		gate__describe(&g[i], desc, sizeof(desc));
		if (m.absent) {
			fprintf(stderr, "mmprof diff: note: gate '%s' matches no key: %s is absent from "
					"both sides, compared as 0 -> 0\n", desc, g[i].glob);
			continue;
		}
		bad++;
		if (m.ambient)
			fprintf(stderr, "mmprof diff: %sgate '%s' matches only keys of the machine's state "
					"(meminfo, proc-vmstat levels), which a gate counts only when its "
					"first component names their family ('meminfo.*', not '*.X')%s\n",
				allow ? "note: " : "", desc, allow ? "" : " (--allow-unmatched accepts that)");
		else if (m.uncompared)
			fprintf(stderr, "mmprof diff: %sgate '%s' matches only keys that are not compared "
					"(address buckets, or families one side did not measure): it can never "
					"trip%s\n",
				allow ? "note: " : "", desc, allow ? "" : " (--allow-unmatched accepts that)");
		else
			fprintf(stderr, "mmprof diff: %sgate '%s' matches no key of either side, and no "
					"family and event they measured: a typo? 'mmprof report FILE' lists "
					"the keys%s\n",
				allow ? "note: " : "", desc, allow ? "" : " (--allow-unmatched accepts that)");
	}
	return allow ? 0 : bad;
}

/*
 * Evaluate every gate; print each trip to stderr.  Returns the number
 * tripped.
 */
static int run_gates(const struct diff *d, const struct gate *g, size_t ng, bool any)
{
	struct outbuf text = { 0 };
	size_t i, j;
	int tripped = 0;

	for (i = 0; i < ng; i++) {
		struct gate_trips t;
		char desc[512];

		gate__describe(&g[i], desc, sizeof(desc));
		gate__evaluate(&g[i], d, any, &t);
		for (j = 0; j < t.nr + t.absent; j++) {
			outbuf__release(&text);
			gate__trip_text(&g[i], j < t.nr ? t.rows[j] : NULL, &text);
			fprintf(stderr, "mmprof diff: gate '%s' tripped: %s\n", desc, text.s);
			tripped++;
		}
		gate_trips__release(&t);
	}
	outbuf__release(&text);
	return tripped;
}

/*
 * The files pooled into a side should be runs of one workload: say so
 * when two were recorded with different command lines (a mixed-up
 * artifact, another -F), naming both; the comparison goes on.
 */
static void warn_cmdlines(const struct diff_side *sides)
{
	struct outbuf ca = { 0 }, cb = { 0 }, fa = { 0 }, fb = { 0 };	/* the files' text */
	size_t k, a, b;

	for (k = 0; k < 2; k++) {
		if (!diff_side__cmdlines_differ(&sides[k], &a, &b))
			continue;
		fprintf(stderr, "mmprof diff: warning: %s: its files were recorded with different "
				"command lines: %s has '%s', %s has '%s'; the runs pooled may not be of "
				"one workload\n", sides[k].name,
			outbuf__text_safe(&fa, sides[k].paths[a]),
			outbuf__text_safe(&ca, profile__meta(sides[k].profiles[a], "cmdline")),
			outbuf__text_safe(&fb, sides[k].paths[b]),
			outbuf__text_safe(&cb, profile__meta(sides[k].profiles[b], "cmdline")));
	}
	outbuf__release(&ca);
	outbuf__release(&cb);
	outbuf__release(&fa);
	outbuf__release(&fb);
}

/*
 * A side whose workload failed measured the failure, not the workload.
 * Failed in every run: an error unless allow (a table, JSON or gate must
 * not pass it off as a measurement), else a warning; in some runs: a
 * warning naming them.  One line a side, or the error's one line alone
 * (the first side that has it).  Returns -EINVAL on the error.
 */
static int check_failed_runs(const struct diff_side *sides, bool allow)
{
	struct diff_side_failures f[2];
	size_t k;

	for (k = 0; k < 2; k++)
		diff_side__failures(&sides[k], &f[k]);
	for (k = 0; k < 2 && !allow; k++)
		if (f[k].failed && f[k].failed == f[k].total) {
			fprintf(stderr, "mmprof diff: %s: the workload failed in every run (%zu of %zu, %s): "
					"its numbers measure the failure; not compared (--allow-failed "
					"compares anyway)\n", sides[k].name, f[k].failed, f[k].total,
				f[k].statuses);
			return -EINVAL;
		}
	for (k = 0; k < 2; k++) {
		if (!f[k].failed)
			continue;
		if (f[k].failed == f[k].total)
			fprintf(stderr, "mmprof diff: warning: %s: the workload failed in every run (%zu of %zu, "
					"%s): its numbers measure the failure\n", sides[k].name, f[k].failed,
				f[k].total, f[k].statuses);
		else
			fprintf(stderr, "mmprof diff: warning: %s: the workload failed in %zu of %zu runs: %s%s\n",
				sides[k].name, f[k].failed, f[k].total, f[k].runs, f[k].failed > 8 ? ", ..." : "");
	}
	return 0;
}

/*
 * The sides' sampling events into eb and en; when they differ, an error
 * unless --force, which sets *forced and, with one sampling event a side,
 * pairs the perf-profile rows of the two events (the keys name their
 * event), as a forced comparison asks; several events a side stay apart.
 */
static int compare_events(struct diff_cmd *c, const struct diff_side s[2], char *eb, char *en,
			  size_t size, bool *forced)
{
	struct outbuf sb = { 0 }, sn = { 0 };	/* the files' event names: the text rule (escape.h) */

	diff_side__events(&s[0], true, eb, size);
	diff_side__events(&s[1], true, en, size);
	if (!strcmp(eb, en))
		return 0;
	if (!c->force) {
		fprintf(stderr, "mmprof diff: DIFFERENT SAMPLING EVENTS: base used '%s', new used '%s'; "
				"their perf-profile percentages are not comparable (--force compares anyway)\n",
			outbuf__text_safe(&sb, eb), outbuf__text_safe(&sn, en));
		outbuf__release(&sb);
		outbuf__release(&sn);
		return -1;
	}
	*forced = true;
	fprintf(stderr, "mmprof diff: WARNING: different sampling events (base '%s', new '%s'), compared because of --force\n",
		outbuf__text_safe(&sb, eb), outbuf__text_safe(&sn, en));
	outbuf__release(&sb);
	outbuf__release(&sn);
	if (!strchr(eb, ',') && !strchr(en, ',') && *eb && *en) {
		keys__event_name(eb, c->alias_to, sizeof(c->alias_to));
		keys__event_name(en, c->alias_from, sizeof(c->alias_from));
		if (strcmp(c->alias_to, c->alias_from)) {
			c->o.alias_from = c->alias_from;
			c->o.alias_to = c->alias_to;
		}
	}
	return 0;
}

/* -g: the changed call chains of the first sampling event (eb), in the table's format. */
static void format_callchains(struct outbuf *out, const struct diff_side s[2], const struct diff *d,
			      const char *eb, enum diff_format fmt, int limit)
{
	struct chain_diff cd;
	char ev[128];

	snprintf(ev, sizeof(ev), "%.*s", (int)strcspn(eb, ","), eb);
	if (chains__compute(&cd, (const struct profile *const *)s[0].profiles, s[0].nr,
			    (const struct profile *const *)s[1].profiles, s[1].nr, ev,
			    d->o.min_points > 0.5 ? d->o.min_points : 0.5, d->o.alpha))
		return;
	/* in JSON a member of the diff object, before it closes */
	if (fmt == DIFF_FORMAT_JSON)
		outbuf__printf(out, ", \"callchains\": ");
	chains__format(out, &cd, (size_t)(limit > 0 ? limit : 20), fmt == DIFF_FORMAT_JSON);
	chains__release(&cd);
}

/* The HTML report (flame.h): the same rows, both headers, the differential flame graph. */
/*
 * diff --junit (html NULL) or --summary (html: the HTML report's path, ""
 * for none) into path, whole or not at all.  0, or -errno with the line said.
 */
static int write_ci(const char *path, const struct diff_side *s, const struct diff *d,
		    const struct ci_gates *ci, const char *html)
{
	struct outbuf b = { 0 };
	struct errmsg e;
	int err;

	if (html)
		ciout__summary(&b, s, d, ci, *html ? html : NULL);
	else
		ciout__junit(&b, s, d, ci);
	err = outfile__write(path, b.s, b.len, &e);
	if (err)
		fprintf(stderr, "mmprof: %s\n", e.msg);
	outbuf__release(&b);
	return err;
}

static int write_html(const char *path, const struct diff_side *s, const struct diff *d,
		      const struct diff_row *const *rows, size_t n, const char *events,
		      const struct ci_gates *ci)
{
	struct flame_diff_opts fo = { .alpha = d->o.alpha, .min_points = d->o.min_points,
				      .novar_points = d->o.novar_points };
	struct html_side hs[2];
	struct outbuf b = { 0 };
	struct flame f;
	struct errmsg e;
	char ev[128];
	bool have_graph;
	int err;
	size_t i;

	snprintf(ev, sizeof(ev), "%.*s", (int)strcspn(events, ","), events);
	fo.event = ev;
	for (i = 0; i < 2; i++)
		hs[i] = (struct html_side){ s[i].name, s[i].paths, (const struct profile *const *)s[i].profiles,
					    s[i].nr, s[i].nr_runs };
	have_graph = flame__build_diff(&f, (const struct profile *const *)s[0].profiles, s[0].nr,
				       (const struct profile *const *)s[1].profiles, s[1].nr, &fo, &e) == 0;
	if (!have_graph)
		fprintf(stderr, "mmprof diff: note: no flame graph in the HTML report: %s\n", e.msg);
	flame__html_diff(&b, hs, d, rows, n, have_graph ? &f : NULL, ev, ci);
	err = flame__write_file(&b, path, &e);
	if (err)
		fprintf(stderr, "mmprof: %s\n", e.msg);
	outbuf__release(&b);
	flame__release(&f);
	return err;
}

static bool help_asked(int argc, char **argv)
{
	int i;

	for (i = 1; i < argc; i++)
		if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help"))
			return true;
	return false;
}

/*
 * Options and file names in any order; *dashdash: how many names came
 * before '--', or -1.  0; -1 on a usage error, -2 when help was asked for
 * (printed, or not when another option was wrong first: exit 0 either way).
 */
static int parse_args(int argc, char **argv, const struct option_desc *opts,
		      struct strlist *pos, int *dashdash)
{
	char **av = xcalloc((size_t)argc + 1, sizeof(*av));
	int ac, i = 1, idx;

	*dashdash = -1;
	/* options may come before, between or after the file names */
	while (i < argc) {
		ac = 0;
		av[ac++] = argv[0];
		while (i < argc)
			av[ac++] = argv[i++];
		av[ac] = NULL;
		idx = options__parse(ac, av, opts, usage);
		if (idx < 0) {
			free(av);
			return help_asked(argc, argv) ? -2 : -1;
		}
		if (idx > 1 && !strcmp(av[idx - 1], "--") && *dashdash < 0 && pos->nr)
			*dashdash = (int)pos->nr;
		i = i - ac + idx;
		while (i < argc && (argv[i][0] != '-' || !argv[i][1] || !strcmp(argv[i], "--"))) {
			if (!strcmp(argv[i], "--")) {
				if (*dashdash >= 0) {
					fprintf(stderr, "mmprof diff: '--' given twice\n");
					free(av);
					return help_asked(argc, argv) ? -2 : -1;
				}
				*dashdash = (int)pos->nr;
			} else {
				strlist__add(pos, argv[i]);
			}
			i++;
		}
	}
	free(av);
	return 0;
}

/* The files before '--' (or the first of two) are base's, the rest new's. */
static int split_sides(const struct strlist *pos, int dashdash, struct diff_side s[2])
{
	if (dashdash < 0) {
		if (pos->nr != 2) {
			fprintf(stderr, "mmprof diff: need BASE.data NEW.data, or BASE... -- NEW...; see 'mmprof diff --help'\n");
			return -1;
		}
		dashdash = 1;
	}
	if (dashdash == 0 || (size_t)dashdash == pos->nr) {
		fprintf(stderr, "mmprof diff: both sides of '--' need at least one file\n");
		return -1;
	}
	s[0].paths = pos->items;
	s[0].nr = (size_t)dashdash;
	s[1].paths = pos->items + dashdash;
	s[1].nr = pos->nr - (size_t)dashdash;
	return 0;
}

int cmd_diff(int argc, char **argv)
{
	struct diff_cmd c = { .format = "lkp", .limit = 20, .color = -1 };
	const struct option_desc opts[] = {
		{ OPT_GROUP, 0, NULL, NULL, NULL, "Output", 0, NULL },
		{ OPT_STRING, 'f', "format", &c.format, "FMT", "lkp (default), json, csv or markdown", 0, NULL },
		{ OPT_BOOL, 'a', "all", &c.all, NULL, "every key, with its verdict", 0, NULL },
		{ OPT_BOOL, 0, "robot", &c.robot, NULL, "rows the kernel test robot would show (no test)", 0, NULL },
		{ OPT_BOOL, 'g', "callchains", &c.callchains, NULL, "also show changed call chains, caller -> callee", 0, NULL },
		{ OPT_INT, 0, "limit", &c.limit, "N", "at most N call chains (default 20)", 0, NULL },
		{ OPT_STRING, 0, "html", &c.html, "FILE", "also write a one-file HTML report (table, run metadata, differential flame graph)", 0, NULL },
		{ OPT_STRING, 0, "junit", &c.junit, "FILE", "also write the gates and failed runs as JUnit XML test cases", 0, NULL },
		{ OPT_STRING, 0, "summary", &c.summary, "FILE", "also write a short markdown summary (for $GITHUB_STEP_SUMMARY)", 0, NULL },
		{ OPT_BOOL, 0, "color", &c.color, NULL, "colour rises red, falls blue (default: on a terminal, unless NO_COLOR)", OPT_NEGATABLE, NULL },
		{ OPT_GROUP, 0, NULL, NULL, NULL, "Statistics", 0, NULL },
		{ OPT_DOUBLE, 0, "alpha", &c.o.alpha, "Q", "false discovery rate (default 0.05)", 0, NULL },
		{ OPT_DOUBLE, 0, "min-points", &c.o.min_points, "P", "effect floor for perf-profile and % keys (default 0.1)", 0, NULL },
		{ OPT_DOUBLE, 0, "min-pct", &c.o.min_pct, "PCT", "effect floor for other keys, % (default 1)", 0, NULL },
		{ OPT_DOUBLE, 0, "threshold-points", &c.o.novar_points, "P", "one-run threshold, points (default 0.5)", 0, NULL },
		{ OPT_DOUBLE, 0, "threshold-pct", &c.o.novar_pct, "PCT", "one-run threshold, % (default 5)", 0, NULL },
		{ OPT_BOOL, 0, "force", &c.force, NULL, "compare sides recorded with different events", 0, NULL },
		{ OPT_LIST, 0, "drop-run", &c.drop_run, "SIDE:N", "leave run N (from 0) of base or new out, e.g. a disturbed run (repeatable)", 0, NULL },
		{ OPT_LIST, 0, "ambient", &c.ambient, "GLOB", "keys matching GLOB are the machine's state, not the workload's (repeatable)", 0, NULL },
		{ OPT_BOOL, 0, "no-ambient", &c.no_ambient, NULL, "no key is ambient but those of --ambient (default: meminfo.*, proc-vmstat levels)", 0, NULL },
		{ OPT_GROUP, 0, NULL, NULL, NULL, "CI gates", 0, NULL },
		{ OPT_LIST, 0, "fail-on", &c.fail_on, "EXPR", "exit 1 when a change satisfies EXPR (repeatable)", 0, NULL },
		{ OPT_STRING, 0, "gate-file", &c.gate_file, "FILE", "gate expressions, one a line (# comments)", 0, NULL },
		{ OPT_BOOL, 0, "fail-on-any", &c.fail_on_any, NULL, "gates count every change, not only significant ones", 0, NULL },
		{ OPT_BOOL, 0, "allow-unmatched", &c.allow_unmatched, NULL, "a gate that matches no compared key is a note, not an error", 0, NULL },
		{ OPT_BOOL, 0, "allow-failed", &c.allow_failed, NULL, "compare (and gate) a side whose workload failed in every run: a warning, not an error", 0, NULL },
		{ OPT_END, 0, NULL, NULL, NULL, NULL, 0, NULL },
	};
	struct strlist pos = { 0 };
	struct diff_side s[2] = { { .name = "base" }, { .name = "new" } };
	struct diff d = { 0 };
	struct gate *gates = NULL;
	struct ci_gates ci;
	struct outbuf out = { 0 };
	const struct diff_row **rows = NULL;
	struct errmsg e;
	enum diff_format fmt;
	char eb[512], en[512];
	size_t ng = 0, i, n;
	int dashdash, err, ret = EXIT_ERROR;
	bool forced = false;

	err = parse_args(argc, argv, opts, &pos, &dashdash);
	if (err < 0) {
		ret = err == -2 ? 0 : EXIT_ERROR;
		goto out;
	}
	if (diff_format__parse(c.format, &fmt) < 0) {
		fprintf(stderr, "mmprof diff: unknown format '%s'; use lkp, json, csv or markdown\n", c.format);
		goto out;
	}
	if (split_sides(&pos, dashdash, s) < 0 || parse_gates(&c, &gates, &ng) < 0)
		goto out;
	if (diff_sides__load(s, &e) < 0) {
		fprintf(stderr, "mmprof: %s\n", e.msg);
		goto out;
	}
	if (diff_sides__drop(s, &c.drop_run, &e) < 0) {
		fprintf(stderr, "mmprof diff: %s\n", e.msg);
		goto out;
	}
	if (check_failed_runs(s, c.allow_failed) < 0 ||
	    compare_events(&c, s, eb, en, sizeof(eb), &forced) < 0)
		goto out;
	warn_cmdlines(s);	/* after the errors: an error stays one line */

	c.o.robot = c.robot && !c.all;
	c.o.ambient = (const char *const *)c.ambient.items;
	c.o.nr_ambient = c.ambient.nr;
	c.o.no_ambient_defaults = c.no_ambient;
	if (diff__compute(&d, s[0].runs, s[0].nr_runs, s[1].runs, s[1].nr_runs, &c.o) < 0) {
		fprintf(stderr, "mmprof diff: nothing to compare\n");
		goto out;
	}
	if (unmatched_gates(&d, gates, ng, c.allow_unmatched))
		goto out;
	rows = diff__select(&d, c.all ? DIFF_SELECT_ALL : c.robot ? DIFF_SELECT_ROBOT : DIFF_SELECT_DEFAULT, &n);
	/* the robot's table colours its changes on a terminal; the other formats are for programs */
	out.color = fmt == DIFF_FORMAT_LKP &&
		    term__use_color(STDOUT_FILENO, c.color < 0 ? TERM_COLOR_AUTO :
				    c.color ? TERM_COLOR_ALWAYS : TERM_COLOR_NEVER);

	if (fmt == DIFF_FORMAT_JSON) {
		diff_sides__json_head(&out, s, eb, en);
		diff__json_open(&out, &d, rows, n);
	} else {
		if (fmt == DIFF_FORMAT_LKP)
			diff_sides__header(&out, s, &d, forced);
		diff__format(&out, &d, rows, n, fmt, c.all);
	}
	if (fmt == DIFF_FORMAT_LKP && !n)
		outbuf__printf(&out, "(no %s rows)\n", c.robot ? "robot-visible" : "significant");
	if (c.callchains && fmt != DIFF_FORMAT_CSV)	/* CSV's rows have no place for them */
		format_callchains(&out, s, &d, eb, fmt, c.limit);
	if (fmt == DIFF_FORMAT_JSON) {
		diff__json_close(&out);
		outbuf__printf(&out, "}\n");
	}
	if (out.len)
		fwrite(out.s, 1, out.len, stdout);
	ci.g = gates;
	ci.nr = ng;
	ci.any = c.fail_on_any;
	if (c.html && write_html(c.html, s, &d, rows, n, eb, &ci) < 0)
		goto out;
	if ((c.junit && write_ci(c.junit, s, &d, &ci, NULL) < 0) ||
	    (c.summary && write_ci(c.summary, s, &d, &ci, c.html ? c.html : "") < 0))
		goto out;

	fflush(stdout);
	ret = run_gates(&d, gates, ng, c.fail_on_any) ? EXIT_GATE : 0;
out:
	free(rows);
	outbuf__release(&out);
	diff__release(&d);
	for (i = 0; i < ng; i++)
		gate__release(&gates[i]);
	free(gates);
	diff_side__release(&s[0]);
	diff_side__release(&s[1]);
	strlist__release(&pos);
	strlist__release(&c.fail_on);
	strlist__release(&c.drop_run);
	strlist__release(&c.ambient);
	return ret;
}
