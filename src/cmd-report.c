/*
 * cmd-report: `mmprof report [options] [FILE]`, a .data file shown as a
 * perf-like first screen (default: summary.c), the kernel test robot's
 * keys (--keys), a perf-style call tree (--tree), folded stacks (--folded),
 * JSON (--json) or a one-file HTML page (--html).  Reads aggregates only.
 */
#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mmprof/cmd.h"
#include "mmprof/datafile.h"
#include "mmprof/flame.h"
#include "mmprof/html.h"
#include "mmprof/keys.h"
#include "mmprof/message.h"
#include "mmprof/options.h"
#include "mmprof/report.h"
#include "mmprof/trace.h"
#include "mmprof/xalloc.h"

struct report_opts {
	int keys, tree, folded, json, runs, period, comm, no_graph, tracepoints, unresolved, html;
	int robot;		/* keys: the robot's own arithmetic (keycache__set_robot) */
	const char *graph, *output;
	const char *event, *pid;
	double percent_limit;
	int run, max_stack;
};

/* --keys, or --runs or --robot (keys options) alone: the LKP keys */
static bool show_keys(const struct report_opts *o)
{
	return o->keys || ((o->runs || o->robot) && !(o->tree || o->folded || o->json || o->tracepoints ||
					o->unresolved || o->html));
}

static const char *const report_usage[] = {
	"mmprof report [options] [FILE]  (default FILE: mmprof.data)",
	NULL,
};

/* "-e E, --run N, --pid P" for the filters given, or "" */
static void describe_filters(const struct report_opts *o, char *buf, size_t size)
{
	size_t n = 0;

	buf[0] = '\0';
	if (o->event)
		n += (size_t)snprintf(buf + n, size - n, "-e %s", o->event);
	if (o->run >= 0 && n < size)
		n += (size_t)snprintf(buf + n, size - n, "%s--run %d", n ? ", " : "", o->run);
	if (o->pid && n < size)
		snprintf(buf + n, size - n, "%s--pid %s", n ? ", " : "", o->pid);
}

/*
 * A view option of another view would be ignored in silence: say which
 * view it goes with instead.  0, or -1 with the line printed.
 */
static int check_view_options(const struct report_opts *o, bool percent_given)
{
	bool keys = show_keys(o);
	bool summary = !keys && !(o->tree || o->folded || o->json || o->tracepoints ||
				  o->unresolved || o->html);
	bool tree = o->tree && !o->json;
	const char *view = o->html ? "--html" : o->unresolved ? "--unresolved" :
			   o->tracepoints ? "--tracepoints" : o->json ? "--json" :
			   o->tree ? "--tree" : o->folded ? "--folded" :
			   keys ? "--keys" : "the first screen (no view option)";

	if ((o->runs || o->robot) && !keys) {
		error("%s goes with the keys view (--keys), not "
				"with %s", o->runs ? "--runs" : "--robot", view);
		return -1;
	}
	if ((o->graph || o->no_graph || o->max_stack != -1) && !tree) {
		error("%s goes with --tree, not with %s",
			o->graph ? "-g/--call-graph" : o->no_graph ? "--no-graph" : "--max-stack", view);
		return -1;
	}
	if (percent_given && !o->tree && !o->json) {
		error("--percent-limit goes with --tree or --json, not with %s",
			view);
		return -1;
	}
	if (o->event && (keys || summary || o->json || o->tracepoints)) {
		error("-e goes with --tree, --folded, --html or --unresolved, "
				"not with %s (which %s every event)", view,
			o->json || keys || summary ? "shows" : "counts");
		return -1;
	}
	if ((o->period || o->comm || o->run != -1) && !o->folded) {
		error("%s goes with --folded, not with %s",
			o->period ? "--period" : o->comm ? "--comm" : "--run", view);
		return -1;
	}
	return 0;
}

/* 0, -errno, or 1 when it said why it failed */
static int print_keys(const struct profile *p, const struct report_opts *o, const char *path,
		      struct outbuf *out)
{
	struct keytab kt;
	size_t k, r;
	int err = o->robot ? keytab__build_robot(&kt, p) : keytab__build(&kt, p);

	if (err)
		return err;
	if (o->runs) {	/* every shown key's value in every run */
		struct errmsg e;
		size_t shown = 0;

		for (k = 0; k < kt.nr; k++)
			shown += keys__shown(kt.keys[k], keytab__mean(&kt, k));
		err = keytab__check_values(&kt, shown, "report --keys --runs prints",
					   "report --keys without --runs prints their means", &e);
		if (err) {
			error("cannot report '%s': %s", path, e.msg);
			keytab__release(&kt);
			return 1;
		}
	}
	keytab__sort(&kt);
	for (k = 0; k < kt.nr; k++) {
		double mean = keytab__mean(&kt, k);
		char buf[64];

		if (!keys__shown(kt.keys[k], mean))
			continue;
		keys__format_value(kt.keys[k], mean, buf, sizeof(buf));
		outbuf__text_str(out, kt.keys[k]);	/* keys hold symbol names: escape.h */
		outbuf__printf(out, ": %s", buf);
		if (o->runs) {
			outbuf__puts(out, "  runs:");
			for (r = 0; r < kt.nr_runs; r++) {
				keys__format_value(kt.keys[k], keytab__val(&kt, k, r), buf, sizeof(buf));
				outbuf__printf(out, " %s", buf);
			}
		}
		outbuf__putc(out, '\n');
	}
	keytab__release(&kt);
	return 0;
}

/*
 * --html: the event's functions by children share over every sample
 * (unresolved ones as "[unknown]", perf's default; the page says how many),
 * 0.05 % and up as the robot's floor, and its flame graph.
 */
static int write_html(const struct profile *p, const char *path, int ev, const char *output)
{
	const char *event = profile__str(p, p->events[ev].name);
	struct html_key_row *rows;
	struct report_entry *ents;
	size_t nr = 0, k;
	struct flame_opts fo = { .event = ev, .run = -1 };
	struct html_side side = { .name = "recording", .paths = (char *const *)&path,
				  .profiles = &p, .nr = 1, .nr_runs = p->nr_runs };
	struct outbuf b = { 0 };
	struct flame f = { 0 };
	struct errmsg e;
	char line[256];
	bool have_graph;
	int err;

	ents = report__entries(p, ev, false, 0.05, &nr);
	rows = xcalloc(nr + 1, sizeof(*rows));
	for (k = 0; k < nr; k++)
		rows[k] = (struct html_key_row){ ents[k].sym, ents[k].children, ents[k].self };
	have_graph = flame__build(&f, p, &fo, &e) == 0;
	if (!have_graph)
		note("no flame graph in the HTML report: %s", e.msg);
	html__report(&b, &side, rows, nr, have_graph ? &f : NULL, event,
		     report__unnamed_line(p, ev, true, line, sizeof(line)));
	err = flame__write_file(&b, output, &e);
	if (err)
		error("%s", e.msg);
	outbuf__release(&b);
	flame__release(&f);
	free(rows);
	free(ents);
	return err ? 1 : 0;	/* 1: failed, and said why */
}

/*
 * The view o asks for of p, into out.  0, -errno for the command to
 * explain, or 1 when the view said why it failed.
 */
static int show_view(const struct profile *p, const struct report_opts *o, const char *path, int ev,
		     long pid, struct outbuf *out)
{
	if (o->html) {
		if (!p->nr_events) {
			error("'%s' has no sampling event to draw", path);
			return 1;
		}
		return write_html(p, path, ev < 0 ? 0 : ev, o->output ? o->output : "mmprof.html");
	}
	if (o->unresolved)
		return report__unresolved(p, ev, out);
	if (o->tracepoints)
		return tpstats__report(p, out);
	if (o->json) {
		struct json_opts jo = { .tree = o->tree, .percent_limit = o->percent_limit };
		struct errmsg e;
		int err = report__json(p, &jo, out, &e);

		if (err != -E2BIG)
			return err;
		error("cannot report '%s': %s", path, e.msg);
		return 1;
	}
	if (o->tree) {
		struct tree_opts to = { .event = ev, .percent_limit = o->percent_limit,
					.caller = o->graph && !strcmp(o->graph, "caller"),
					.no_graph = o->no_graph, .max_stack = (uint32_t)o->max_stack };
		uint64_t samples = 0;
		size_t k;

		/* the event asked for has nothing to show: as folded and flamegraph, an error */
		for (k = 0; ev >= 0 && k < p->nr_counts; k++)
			if (p->counts[k].event == (uint32_t)ev)
				samples += p->counts[k].samples;
		if (ev >= 0 && !samples) {
			error("'%s' has no samples of event '%s' to show",
				path, o->event);
			return 1;
		}
		int err = report__tree(p, &to, out);

		if (err != -E2BIG)
			return err;
		error("cannot report '%s': its call graphs are more than %zu lines "
			"(report --tree, at most 2^22 over the events shown; robustness.md); give -e "
			"EVENT, a higher --percent-limit, --max-stack N or --no-graph", path,
			REPORT_MAX_TREE_LINES);
		return 1;
	}
	if (o->folded) {
		struct folded_opts fo = { .event = ev < 0 ? (p->nr_events ? 0 : -1) : ev,
					  .period = o->period, .comm = o->comm, .run = o->run,
					  .one_pid = pid >= 0, .pid = (uint32_t)pid };
		int err = report__folded(p, &fo, out);
		char filters[256];

		if (err == -E2BIG) {
			error("cannot report '%s': %s", path, REPORT_FOLDED_TOO_BIG);
			return 1;
		}
		if (err || outbuf__written(out))
			return err;
		describe_filters(o, filters, sizeof(filters));
		if (filters[0])
			error("no samples left to fold in '%s' (%s)",
				path, filters);
		else
			error("'%s' has no samples to fold", path);
		return 1;
	}
	if (show_keys(o))
		return print_keys(p, o, path, out);
	return report__summary(p, path, out);
}

/*
 * The options together: views that exclude each other, a view's option
 * given to another (check_view_options), values out of range; *pid from
 * --pid.  Fills in the default --percent-limit.  0, or -1 with the line
 * printed.
 */
static int check_options(struct report_opts *o, long *pid)
{
	bool percent_given;

	if (o->keys && o->html + o->unresolved + o->tracepoints + o->tree + o->folded + o->json) {
		error("--keys excludes the other views");
		return -1;
	}
	if (o->html && o->unresolved + o->tracepoints + o->tree + o->folded + o->json) {
		error("--html excludes the other views");
		return -1;
	}
	if (o->output && !o->html) {
		error("-o goes with --html; the text views print to stdout");
		return -1;
	}
	if (o->unresolved && o->tracepoints + o->tree + o->folded + o->json) {
		error("--unresolved excludes the other views");
		return -1;
	}
	if (o->tracepoints && o->tree + o->folded + o->json) {
		error("--tracepoints excludes --tree, --folded and --json");
		return -1;
	}
	if (o->tree + o->folded + o->json > 1 && !(o->json && o->tree && !o->folded)) {
		error("--tree, --folded and --json are exclusive "
				"(except --json --tree)");
		return -1;
	}
	/* -1: not given (the option parser cannot say) */
	percent_given = o->percent_limit != -1;
	if (!percent_given)
		o->percent_limit = 0.5;
	if (check_view_options(o, percent_given))
		return -1;
	if (o->graph && strcmp(o->graph, "caller") && strcmp(o->graph, "callee")) {
		error("invalid value '%s' for --call-graph: "
				"use caller or callee", o->graph);
		return -1;
	}
	if (o->pid) {
		char *end;

		errno = 0;
		*pid = strtol(o->pid, &end, 10);
		if (errno || end == o->pid || *end || *pid < 0 || *pid > INT32_MAX || !o->folded) {
			error("--pid takes a process id and goes with --folded");
			return -1;
		}
	}
	if (o->max_stack == -1)
		o->max_stack = REPORT_MAX_STACK;
	else if (o->max_stack < 1 || o->max_stack > REPORT_MAX_STACK_LIMIT) {
		error("--max-stack must be between 1 and %d",
			REPORT_MAX_STACK_LIMIT);
		return -1;
	}
	if (!(o->percent_limit >= 0 && o->percent_limit <= 100)) {
		error("--percent-limit must be between 0 and 100");
		return -1;
	}
	return 0;
}

/* Does a positional argument name an HTML page rather than a data file? */
static bool html_name(const char *s)
{
	size_t n = s ? strlen(s) : 0;

	return n > 5 && !strcmp(s + n - 5, ".html");
}

/*
 * The command line into o and *path (when a file is named): 1, 0 on a
 * usage error (said), -2 after --help.
 */
static int parse_args(int argc, char **argv, const struct option_desc *opts, struct report_opts *o,
		      const char **path)
{
	static char html_switch[] = "--html";
	const char *html_file = NULL;
	char *pos[2] = { NULL, NULL };
	int i;

	/*
	 * --html=FILE, as diff --html FILE writes it: the same as --html -o
	 * FILE (--html alone stays a switch: "report --html x.data" reads
	 * x.data).  Rewritten before the parser, which takes no value for a
	 * switch.
	 */
	for (i = 1; i < argc && strcmp(argv[i], "--"); i++)
		if (!strncmp(argv[i], "--html=", 7)) {
			html_file = argv[i] + 7;
			argv[i] = html_switch;
		}
	/* options may follow the file too ("mmprof report --html x.data -o x.html") */
	i = options__parse_anywhere(argc, argv, opts, report_usage, pos, 1);
	if (i < 0)
		return i == -2 ? -2 : 0;
	if (i >= 1 && o->html && html_name(pos[0])) {
		error("'%s' is read as the data file; the page is written "
			"with --html=%s (or -o %s), default mmprof.html", pos[0], pos[0], pos[0]);
		return 0;
	}
	if (i > 1) {
		error("one file at most; see 'mmprof report --help'");
		return 0;
	}
	if (i == 1)
		*path = pos[0];
	if (html_file && o->output && strcmp(html_file, o->output)) {
		error("--html=%s and -o %s name two files; give one",
			html_file, o->output);
		return 0;
	}
	if (html_file) {
		if (!*html_file) {
			error("--html= needs a file name");
			return 0;
		}
		o->output = html_file;
	}
	return 1;
}

/* What stderr says after the view: unnamed samples, unresolved DSOs, lost samples. */
static void say_notes(const struct profile *p, const struct report_opts *o, const char *path, int ev)
{
	char unnamed[256], unresolved[1024], lost[512];

	if ((o->folded || show_keys(o)) && p->nr_events) {
		int fev = o->folded ? (ev < 0 ? 0 : ev) : -1;

		/* stdout is a line format there: the one line on unresolved goes here */
		if (report__unnamed_notable(p, fev))
			note("'%s': %s", path,
				report__unnamed_line(p, fev, o->folded, unnamed, sizeof(unnamed)));
	}
	if (!o->unresolved && !o->tracepoints && p->nr_events &&
	    report__unresolved_warning(p, ev, unresolved, sizeof(unresolved)))
		warning("'%s': %s", path, unresolved);
	/* every view: each share printed is of the samples kept */
	if (report__lost_warning(p, lost, sizeof(lost)))
		warning("'%s': %s", path, lost);
}

int cmd_report(int argc, char **argv)
{
	struct report_opts o = { .percent_limit = -1, .run = -1, .max_stack = -1 };
	const struct option_desc opts[] = {
		OPT_GROUP("Views (default: a summary, top functions by children and self with their call chains)"),
		OPT_BOOL(0, "keys", &o.keys, "the LKP keys, mean over runs (the view scripts read)"),
		OPT_BOOL(0, "tree", &o.tree, "call graph as perf report --children prints it"),
		OPT_BOOL(0, "folded", &o.folded, "folded stacks for flamegraph.pl"),
		OPT_BOOL(0, "json", &o.json, "everything as one JSON object"),
		OPT_BOOL(0, "tracepoints", &o.tracepoints, "tracepoint counts and field values per run"),
		OPT_BOOL(0, "unresolved", &o.unresolved, "[unknown] samples per DSO, with the likely cause"),
		OPT_BOOL(0, "html", &o.html, "one self-contained HTML page: metadata, top functions, flame graph"),
		OPT_STRING('o', "output", &o.output, "FILE", "html: the file to write (default mmprof.html; - for stdout)"),
		OPT_GROUP("Options"),
		OPT_BOOL(0, "runs", &o.runs, "keys: also print each run's value (implies --keys)"),
		OPT_BOOL(0, "robot", &o.robot, "keys: the robot's own sums (of perf's two-decimal prints; perf-stat as its parser), to set beside a robot mail (implies --keys)"),
		OPT_STRING('g', "call-graph", &o.graph, "callee|caller",
			"tree: callers below each entry (callee, default) or callees (caller)"),
		OPT_BOOL(0, "no-graph", &o.no_graph, "tree: entries only"),
		OPT_INTEGER(0, "max-stack", &o.max_stack, "N",
			"tree: keep the innermost N frames of each stack (default 127, as perf)"),
		OPT_DOUBLE(0, "percent-limit", &o.percent_limit, "P",
			"tree, json: hide entries and graph nodes under P % (default 0.5)"),
		OPT_STRING('e', "event", &o.event, "EVENT",
			"tree, folded, html, unresolved: only this event (default: tree and unresolved all, else the first)"),
		OPT_BOOL(0, "period", &o.period, "folded: weigh stacks by period, not samples"),
		OPT_BOOL(0, "comm", &o.comm, "folded: the command name as the first frame"),
		OPT_INTEGER(0, "run", &o.run, "N", "folded: only run N (from 0; default all runs)"),
		OPT_STRING(0, "pid", &o.pid, "PID", "folded: only the samples of process PID"),
		OPT_END(),
	};
	const char *path = "mmprof.data";
	struct profile *p = NULL;
	struct errmsg e = { "" };
	int i, ev = -1, err = 0;
	long pid = -1;
	struct outbuf out;

	i = parse_args(argc, argv, opts, &o, &path);
	if (i <= 0)
		return i == -2 ? 0 : EXIT_ERROR;
	if (check_options(&o, &pid))
		return EXIT_ERROR;

	err = datafile__load(path, &p, &e);
	if (err) {
		error("%s", e.msg);
		return EXIT_ERROR;
	}
	if (o.event) {
		ev = report__find_event(p, o.event);
		if (ev < 0) {
			error("no event '%s' in '%s'; see 'mmprof report --json' "
					"for its events", o.event, path);
			goto fail;
		}
	}
	if (o.run >= (int)p->nr_runs || o.run < -1) {
		error("no run %d in '%s' (it has %zu, numbered from 0)", o.run, path, p->nr_runs);
		goto fail;
	}

	outbuf__init_file(&out, stdout, false);
	err = show_view(p, &o, path, ev, pid, &out);
	outbuf__flush(&out);	/* before the warnings; a failed write is main's to report */
	outbuf__release(&out);
	if (err > 0)
		goto fail;	/* already said why */
	if (err == -E2BIG) {	/* keytab__build */
		keytab__too_many_keys(&e);
		error("cannot report '%s': %s", path, e.msg);
		goto fail;
	}
	if (err) {
		error("cannot report '%s': %s", path, strerror(-err));
		goto fail;
	}
	say_notes(p, &o, path, ev);
	profile__free(p);
	return 0;
fail:
	profile__free(p);
	return EXIT_ERROR;
}
