/*
 * cmd-diff: `mmprof diff [options] BASE NEW` or `B1 B2 ... -- N1 N2 ...`;
 * with more columns, `BASE C1 C2 ...` or `B1 B2 -- C1a C1b -- C2a ...`.
 *
 * The command reads the options and the files into sides, makes one call
 * to the diff engine (diffengine.h: loading, statistics, costs, call
 * chains, the documents), prints what it wrote and said, and says which
 * CI gates (gate.h) tripped in which column.  It holds the options, their
 * checks, the gates, the messages' prefixes and the exit status.
 * Exit: 0, 1 when a gate tripped, 2 on any error.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "mmprof/cmd.h"
#include "mmprof/diffengine.h"
#include "mmprof/gate.h"
#include "mmprof/keykind.h"
#include "mmprof/message.h"
#include "mmprof/options.h"
#include "mmprof/outfile.h"
#include "mmprof/term.h"
#include "mmprof/xalloc.h"

struct diff_cmd {
	const char *format;
	int all, robot, callchains, fail_on_any, force, limit, allow_unmatched, allow_failed, paired;
	int cost;		/* the table of the cost rows too */
	const char *per;	/* --per: the work count's key */
	struct strlist fail_on;
	struct strlist drop_run;	/* "base:N" / "new:N" */
	struct strlist ambient;		/* globs of keys that are the machine's state */
	int no_ambient;
	const char *gate_file;
	const char *gate_column;	/* the column gates read (default: every compared column) */
	const char *junit, *summary;	/* CI outputs (ciout.h) */
	const char *html;
	const char *machine, *benchmark;	/* STORE:COMMIT sides: whose pushes */
	int color;		/* -1: on a terminal, unless NO_COLOR */
	struct diff_opts o;
};

static const char *const usage[] = {
	"mmprof diff [options] BASE.data NEW.data",
	"mmprof diff [options] BASE1.data BASE2.data ... -- NEW1.data NEW2.data ...",
	"mmprof diff [options] BASE.data NEW1.data NEW2.data ...",
	"mmprof diff [options] BASE1.data ... -- NEW1a.data ... -- NEW2a.data ...",
	"mmprof diff [options] STORE:COMMIT_A STORE:COMMIT_B ...",
	NULL,
};

/* --fail-on's expressions and --gate-file's lines, parsed into *gates (*ng of them). */
/*
 * --html, --junit, --summary: a target that is not a regular file is
 * refused before the sides are read (security.md: checked before the work
 * and again at the rename), not after the whole diff was printed.
 */
static int check_outputs(const struct diff_cmd *c)
{
	const char *paths[] = { c->html, c->junit, c->summary };
	struct errmsg e;
	size_t i;

	for (i = 0; i < sizeof(paths) / sizeof(paths[0]); i++)
		if (paths[i] && strcmp(paths[i], "-") && outfile__check_target(paths[i], &e)) {
			error("%s", e.msg);
			return -1;
		}
	return 0;
}

static int parse_gates(struct diff_cmd *c, struct gate **gates, size_t *ng)
{
	struct errmsg e;

	if (c->gate_file && gate__read_file(c->gate_file, &c->fail_on, &e) < 0) {
		error("%s", e.msg);
		return -1;
	}
	*gates = xcalloc(c->fail_on.nr + 1, sizeof(**gates));
	for (*ng = 0; *ng < c->fail_on.nr; (*ng)++)
		if (gate__parse(c->fail_on.items[*ng], &(*gates)[*ng], &e) < 0) {
			error("%s", e.msg);
			return -1;
		}
	return 0;
}

/* An unmatched gate: an error, or with --allow-unmatched a note. */
static void gate_say(bool allow, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void gate_say(bool allow, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	message__vsay(allow ? "note: " : "", fmt, ap);
	va_end(ap);
}

/*
 * Gates that match no compared key can never trip: a typo in a CI gate
 * would pass forever.  Each is one line on stderr; an error (returns the
 * number of them) unless allow, when they are notes (returns 0).  A gate
 * naming a key that is absent from both sides of a measured domain (a
 * function never sampled, gate.h) is not one of them: it compares 0 with
 * 0, and says so in a note.  d: the nd diffs the gates read; a gate
 * matches when it matches in one of them.
 */
static size_t unmatched_gates(const struct diff *d, size_t nd, const struct gate *g, size_t ng,
			      bool allow, const char *cost_note)
{
	size_t i, k, bad = 0;

	for (i = 0; i < ng; i++) {
		struct gate_matches m, mk;
		const char *near;
		char desc[512];

		gate__count(&g[i], &d[0], &m);
		for (k = 1; k < nd && !m.rows; k++) {
			gate__count(&g[i], &d[k], &mk);
			if (mk.rows)
				m = mk;
		}
		if (m.rows)
			continue;
		gate__describe(&g[i], desc, sizeof(desc));
		for (k = 0, near = NULL; k < nd && !near; k++)
			near = gate__near_key(&g[i], &d[k]);
		if (m.absent && near) {
			bad++;
			gate_say(allow, "gate '%s' matches no key; did you mean '%s'? (a key "
					"meant as written is written '=KEY'%s)", 
				desc, near, allow ? "" : "; --allow-unmatched accepts every unmatched gate");
			continue;
		}
		if (m.absent) {
			note("gate '%s' matches no key: %s is absent from "
					"both sides, compared as 0 -> 0", desc, g[i].glob);
			continue;
		}
		bad++;
		if (keykind__cost(g[i].glob) != KEYCOST_NONE && !d[0].cost)
			gate_say(allow, "gate '%s' reads costs per op, and %s%s",
				desc, *cost_note ? cost_note : "none were compared",
				allow ? "" : " (--allow-unmatched accepts that)");
		else if (m.cost)
			gate_say(allow, "gate '%s' matches only costs per op (cost.*), which a "
					"gate counts only when its first component is 'cost' ('cost.self.*.X', "
					"not '*.X')%s",
				desc, allow ? "" : " (--allow-unmatched accepts that)");
		else if (m.ambient)
			gate_say(allow, "gate '%s' matches only keys of the machine's state "
					"(meminfo, proc-vmstat levels), which a gate counts only when its "
					"first component names their family ('meminfo.*', not '*.X')%s",
				desc, allow ? "" : " (--allow-unmatched accepts that)");
		else if (m.uncompared)
			gate_say(allow, "gate '%s' matches only keys that are not compared "
					"(address buckets, or families one side did not measure): it can never "
					"trip%s",
				desc, allow ? "" : " (--allow-unmatched accepts that)");
		else
			gate_say(allow, "gate '%s' matches no key of either side, and no "
					"family and event they measured: a typo? 'mmprof report --keys FILE' "
					"lists the keys%s",
				desc, allow ? "" : " (--allow-unmatched accepts that)");
	}
	return allow ? 0 : bad;
}

/*
 * Evaluate every gate on d; print each trip to stderr, naming column
 * (NULL with two sides: there is one).  Returns the number tripped.
 */
static int run_gates(const struct diff *d, const char *column, const struct gate *g, size_t ng,
		     bool any)
{
	struct outbuf text = { 0 };
	char in[160] = "";
	size_t i, j;
	int tripped = 0;

	if (column)
		snprintf(in, sizeof(in), " in %s", column);
	for (i = 0; i < ng; i++) {
		struct gate_trips t;
		char desc[512];

		gate__describe(&g[i], desc, sizeof(desc));
		gate__evaluate(&g[i], d, any, &t);
		for (j = 0; j < t.nr + t.absent; j++) {
			outbuf__release(&text);
			gate__trip_text(&g[i], j < t.nr ? t.rows[j] : NULL, &text);
			error("gate '%s' tripped%s: %s", desc, in, text.s);
			tripped++;
		}
		gate_trips__release(&t);
	}
	outbuf__release(&text);
	return tripped;
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
 * Options and file names in any order; seps: for each '--', how many
 * names came before it (*nr_seps of them, room for argc).  0; -1 on a
 * usage error, -2 when help was asked for (printed, or not when another
 * option was wrong first: exit 0 either way).
 */
static int parse_args(int argc, char **argv, const struct option_desc *opts,
		      struct strlist *pos, size_t *seps, size_t *nr_seps)
{
	char **av = xcalloc((size_t)argc + 1, sizeof(*av));
	int ac, i = 1, idx;

	*nr_seps = 0;
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
		if (idx > 1 && !strcmp(av[idx - 1], "--") && pos->nr)
			seps[(*nr_seps)++] = pos->nr;
		i = i - ac + idx;
		while (i < argc && (argv[i][0] != '-' || !argv[i][1] || !strcmp(argv[i], "--"))) {
			if (!strcmp(argv[i], "--"))
				seps[(*nr_seps)++] = pos->nr;
			else
				strlist__add(pos, argv[i]);
			i++;
		}
	}
	free(av);
	return 0;
}

/*
 * The files into sides: without '--', two files are base and new and
 * three or more a column each, the first the base; with '--', the
 * files between two of them (or an end) are one side's, pooled.
 * *nr_sides set; names[k] holds side k's name.  0 or -1 (said).
 */
static int split_sides(const struct strlist *pos, const size_t *seps, size_t nr_seps,
		       struct diff_side *s, char (*names)[24], size_t *nr_sides)
{
	size_t k, from, nr = nr_seps ? nr_seps + 1 : pos->nr;

	if (!nr_seps && pos->nr < 2) {
		error("need BASE.data NEW.data, or BASE... -- NEW...; see 'mmprof diff --help'");
		return -1;
	}
	/* *nr_sides only once they fit: the caller releases that many of s */
	if (nr > DIFF_MAX_COLUMNS + 1) {
		error("%zu sides: at most a base and %d compared columns",
			nr, DIFF_MAX_COLUMNS);
		return -1;
	}
	*nr_sides = nr;
	for (k = 0, from = 0; k < *nr_sides; k++) {
		size_t to = !nr_seps ? k + 1 : k < nr_seps ? seps[k] : pos->nr;

		if (to <= from) {
			error("%s", nr_seps == 1 ? "both sides of '--' need at least one file"
			      : "each side between '--' needs at least one file");
			return -1;
		}
		if (!k)
			snprintf(names[k], sizeof(names[k]), "base");
		else if (*nr_sides == 2)
			snprintf(names[k], sizeof(names[k]), "new");
		else
			snprintf(names[k], sizeof(names[k]), "new%zu", k);
		s[k].name = names[k];
		s[k].paths = pos->items + from;
		s[k].nr = to - from;
		from = to;
	}
	return 0;
}

/* --gate-column NAME: the index of the compared column (0 = the first compared) into *k, or -1 (said). */
static int gate_column(const struct diff_cmd *c, const struct diff_side *s, size_t nr_sides,
		       size_t *k)
{
	for (*k = 1; *k < nr_sides; (*k)++)
		if (!strcmp(c->gate_column, s[*k].name)) {
			(*k)--;
			return 0;
		}
	error("--gate-column '%s': no such compared column; they are %s%s%s",
		c->gate_column, s[1].name, nr_sides > 2 ? " to " : "", nr_sides > 2 ? s[nr_sides - 1].name : "");
	return -1;
}

/* The engine's lines on stderr, each with the prefix of its kind. */
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

/* The options as the engine's: the flags mapped, nothing decided here. */
static void engine_opts(struct diff_cmd *c, bool gates, struct diff_engine_opts *eo)
{
	c->o.robot = c->robot && !c->all;
	c->o.pair = c->paired;
	c->o.ambient = (const char *const *)c->ambient.items;
	c->o.nr_ambient = c->ambient.nr;
	c->o.no_ambient_defaults = c->no_ambient;
	*eo = (struct diff_engine_opts){
		.stats = c->o, .all = c->all, .robot = c->robot, .cost = c->cost,
		.callchains = c->callchains, .limit = c->limit, .force = c->force,
		.allow_failed = c->allow_failed, .per = c->per, .drop_run = &c->drop_run,
		.keep_rows = gates || c->html || c->junit || c->summary, .keep_chains = c->html != NULL,
		.say = say_line,
	};
}

int cmd_diff(int argc, char **argv)
{
	struct diff_cmd c = { .format = "lkp", .limit = 20, .color = -1 };
	const struct option_desc opts[] = {
		OPT_GROUP("Output"),
		OPT_STRING('f', "format", &c.format, "FMT", "lkp (default), json, csv or markdown"),
		OPT_BOOL('a', "all", &c.all, "every key, with its verdict"),
		OPT_BOOL(0, "robot", &c.robot, "rows the kernel test robot would show (no test)"),
		OPT_BOOL('g', "callchains", &c.callchains, "also show changed call chains, caller -> callee"),
		OPT_INTEGER(0, "limit", &c.limit, "N", "at most N call chains (default 20)"),
		OPT_STRING(0, "html", &c.html, "FILE", "also write a one-file HTML report (table, run metadata, differential flame graph)"),
		OPT_STRING(0, "junit", &c.junit, "FILE", "also write the gates and failed runs as JUnit XML test cases"),
		OPT_STRING(0, "summary", &c.summary, "FILE", "also write a short markdown summary (for $GITHUB_STEP_SUMMARY)"),
		OPT_BOOL(0, "cost", &c.cost, "also the table of costs per op (cost.* rows); the attribution is shown anyway"),
		OPT_BOOL_F(0, "color", &c.color, "colour rises red, falls blue (default: on a terminal, unless NO_COLOR)", OPT_NEGATABLE),
		OPT_GROUP("Statistics"),
		OPT_DOUBLE_F(0, "alpha", &c.o.alpha, "Q", "false discovery rate (default 0.05)", OPT_FRACTION),
		OPT_DOUBLE_F(0, "min-points", &c.o.min_points, "P", "effect floor for perf-profile and % keys (default 0.1)", OPT_POINTS),
		OPT_DOUBLE(0, "min-pct", &c.o.min_pct, "PCT", "effect floor for other keys, % (default 1)"),
		OPT_DOUBLE_F(0, "threshold-points", &c.o.novar_points, "P", "one-run threshold, points (default 0.5)", OPT_POINTS),
		OPT_DOUBLE(0, "threshold-pct", &c.o.novar_pct, "PCT", "one-run threshold, % (default 5)"),
		OPT_STRING(0, "machine", &c.machine, "NAME", "STORE:COMMIT sides: the pushes of this machine"),
		OPT_STRING(0, "benchmark", &c.benchmark, "NAME", "STORE:COMMIT sides: the pushes of this benchmark"),
		OPT_BOOL(0, "force", &c.force, "compare sides recorded with different events"),
		OPT_STRING(0, "per", &c.per, "KEY", "costs per unit of workload metric KEY (default: its <name>.ops, else per second of run)"),
		OPT_LIST(0, "drop-run", &c.drop_run, "SIDE:N", "leave run N (from 0) of base or new (new1, new2, ...) out, e.g. a disturbed run (repeatable)"),
		OPT_LIST(0, "ambient", &c.ambient, "GLOB", "keys matching GLOB are the machine's state, not the workload's (repeatable)"),
		OPT_BOOL(0, "no-ambient", &c.no_ambient, "no key is ambient but those of --ambient (default: meminfo.*, proc-vmstat levels)"),
		OPT_BOOL(0, "paired", &c.paired, "files of one record --interleave: test each key on its pairs' differences"),
		OPT_STRING(0, "score", &c.o.score, "GLOB", "the workload's score: keys matching GLOB, tested first and alone ('' none; default: *.ops_per_sec, *.throughput, ...)"),
		OPT_GROUP("CI gates"),
		OPT_LIST(0, "fail-on", &c.fail_on, "EXPR", "exit 1 when a change satisfies EXPR (repeatable)"),
		OPT_STRING(0, "gate-file", &c.gate_file, "FILE", "gate expressions, one a line (# comments)"),
		OPT_STRING(0, "gate-column", &c.gate_column, "NAME", "with several compared columns, gates read only NAME (new1, new2, ...; default: each)"),
		OPT_BOOL(0, "fail-on-any", &c.fail_on_any, "gates count every change, not only significant ones"),
		OPT_BOOL(0, "allow-unmatched", &c.allow_unmatched, "a gate that matches no compared key is a note, not an error"),
		OPT_BOOL(0, "allow-failed", &c.allow_failed, "compare (and gate) a side whose workload failed in every run: a warning, not an error"),
		OPT_END(),
	};
	struct strlist pos = { 0 };
	struct diff_side s[DIFF_MAX_COLUMNS + 1] = { { 0 } };
	char names[DIFF_MAX_COLUMNS + 1][24];	/* "new" and a size_t at most */
	struct diff_result *r = xcalloc(1, sizeof(*r));
	struct diff_engine_opts eo;
	size_t *seps = xcalloc((size_t)argc + 1, sizeof(*seps));
	struct gate *gates = NULL;
	struct ci_gates ci;
	struct diff_report_files files;
	struct outbuf out = { 0 };
	enum diff_format fmt;
	size_t ng = 0, i, k, nr_sides = 0, nr_seps, gk = 0;
	int err, ret = EXIT_ERROR, tripped = 0;

	err = parse_args(argc, argv, opts, &pos, seps, &nr_seps);
	if (err < 0) {
		ret = err == -2 ? 0 : EXIT_ERROR;
		goto out;
	}
	if (diff_format__parse(c.format, &fmt) < 0) {
		error("unknown format '%s'; use lkp, json, csv or markdown", c.format);
		goto out;
	}
	if (split_sides(&pos, seps, nr_seps, s, names, &nr_sides) < 0 ||
	    check_outputs(&c) < 0 || parse_gates(&c, &gates, &ng) < 0 ||
	    (c.gate_column && gate_column(&c, s, nr_sides, &gk) < 0))
		goto out;
	for (k = 0; k < nr_sides; k++)
		s[k].machine = c.machine, s[k].benchmark = c.benchmark;
	engine_opts(&c, ng, &eo);
	if (diff_engine__run(&eo, s, nr_sides, r) < 0)
		goto out;
	if (c.gate_column ? unmatched_gates(&r->d[gk], 1, gates, ng, c.allow_unmatched, r->cs.note)
			  : unmatched_gates(r->d, r->nd, gates, ng, c.allow_unmatched, r->cs.note))
		goto out;
	/* the robot's table colours its changes on a terminal; the other formats are for programs */
	out.color = fmt == DIFF_FORMAT_LKP &&
		    term__use_color(STDOUT_FILENO, c.color < 0 ? TERM_COLOR_AUTO :
				    c.color ? TERM_COLOR_ALWAYS : TERM_COLOR_NEVER);
	diff_report__write(&out, r, fmt);
	if (out.len)
		fwrite(out.s, 1, out.len, stdout);
	ci = (struct ci_gates){ .g = gates, .nr = ng, .any = c.fail_on_any };
	files = (struct diff_report_files){ .html = c.html, .junit = c.junit, .summary = c.summary,
					    .gate_column = c.gate_column ? (long)gk : -1, .gates = &ci };
	if (diff_report__files(r, &files) < 0)
		goto out;
	fflush(stdout);
	for (k = 0; k < r->nd; k++)
		if (!c.gate_column || k == gk)
			tripped += run_gates(&r->d[k], r->multi ? r->col_names[k] : NULL, gates, ng,
					     c.fail_on_any);
	ret = tripped ? EXIT_GATE : 0;
out:
	free(seps);
	outbuf__release(&out);
	diff_result__release(r);
	free(r);
	for (i = 0; i < ng; i++)
		gate__release(&gates[i]);
	free(gates);
	strlist__release(&pos);
	strlist__release(&c.fail_on);
	strlist__release(&c.drop_run);
	strlist__release(&c.ambient);
	return ret;
}
