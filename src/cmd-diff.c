/*
 * cmd-diff: `mmprof diff [options] BASE NEW` or `B1 B2 ... -- N1 N2 ...`;
 * with more columns, `BASE C1 C2 ...` or `B1 B2 -- C1a C1b -- C2a ...`.
 *
 * Loads the sides, every run as its flat keys (diffside.h), compares the
 * pooled base with each compared column (diff.h: one diff per column,
 * each with its own statistics), prints the header (diffside.h) and the
 * robot's table (or JSON, CSV, markdown), the changed call chains on
 * request, and says which CI gates tripped (gate.h) in which column.  The
 * command holds the options, their checks, the messages and the exit
 * status.
 * Exit: 0, 1 when a gate tripped, 2 on any error.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <malloc.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "mmprof/chains.h"
#include "mmprof/ciout.h"
#include "mmprof/cmd.h"
#include "mmprof/cost.h"
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
	/* per compared column: its options (o with --force's alias) and the alias's names */
	struct diff_opts co[DIFF_MAX_COLUMNS];
	char alias_from[DIFF_MAX_COLUMNS][128], alias_to[DIFF_MAX_COLUMNS][128];
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

/* The recorded settings that differ between the sides, in fmt (diff__settings_format). */
static void print_settings(struct outbuf *out, const struct diff_side *s, size_t nr_sides,
			   enum diff_format fmt)
{
	struct diff_settings_side *ss = xcalloc(nr_sides, sizeof(*ss));
	const char **names = xcalloc(nr_sides, sizeof(*names));
	struct diff_setting *st;
	size_t k, n;

	for (k = 0; k < nr_sides; k++) {
		ss[k] = (struct diff_settings_side){ (const struct profile *const *)s[k].profiles, s[k].nr };
		names[k] = s[k].name;
	}
	n = diff__settings_differ(ss, nr_sides, &st);
	diff__settings_format(out, st, n, names, nr_sides, fmt);
	diff__settings_release(st, n);
	free(names);
	free(ss);
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
			fprintf(stderr, "mmprof diff: %sgate '%s' matches no key; did you mean '%s'? (a key "
					"meant as written is written '=KEY'%s)\n", allow ? "note: " : "",
				desc, near, allow ? "" : "; --allow-unmatched accepts every unmatched gate");
			continue;
		}
		if (m.absent) {
			fprintf(stderr, "mmprof diff: note: gate '%s' matches no key: %s is absent from "
					"both sides, compared as 0 -> 0\n", desc, g[i].glob);
			continue;
		}
		bad++;
		if (!strncmp(g[i].glob, "cost.", 5) && !d[0].cost)
			fprintf(stderr, "mmprof diff: %sgate '%s' reads costs per op, and %s%s\n",
				allow ? "note: " : "", desc, *cost_note ? cost_note : "none were compared",
				allow ? "" : " (--allow-unmatched accepts that)");
		else if (m.cost)
			fprintf(stderr, "mmprof diff: %sgate '%s' matches only costs per op (cost.*), which a "
					"gate counts only when its first component is 'cost' ('cost.self.*.X', "
					"not '*.X')%s\n",
				allow ? "note: " : "", desc, allow ? "" : " (--allow-unmatched accepts that)");
		else if (m.ambient)
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
					"family and event they measured: a typo? 'mmprof report --keys FILE' "
					"lists the keys%s\n",
				allow ? "note: " : "", desc, allow ? "" : " (--allow-unmatched accepts that)");
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
			fprintf(stderr, "mmprof diff: gate '%s' tripped%s: %s\n", desc, in, text.s);
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
static void warn_cmdlines(const struct diff_side *sides, size_t nr_sides)
{
	struct outbuf ca = { 0 }, cb = { 0 }, fa = { 0 }, fb = { 0 };	/* the files' text */
	size_t k, a, b;

	for (k = 0; k < nr_sides; k++) {
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
static int check_failed_runs(const struct diff_side *sides, size_t nr_sides, bool allow)
{
	struct diff_side_failures *f = xcalloc(nr_sides, sizeof(*f));
	size_t k;

	for (k = 0; k < nr_sides; k++)
		diff_side__failures(&sides[k], &f[k]);
	for (k = 0; k < nr_sides && !allow; k++)
		if (f[k].failed && f[k].failed == f[k].total) {
			fprintf(stderr, "mmprof diff: %s: the workload failed in every run (%zu of %zu, %s): "
					"its numbers measure the failure; not compared (--allow-failed "
					"compares anyway)\n", sides[k].name, f[k].failed, f[k].total,
				f[k].statuses);
			free(f);
			return -EINVAL;
		}
	for (k = 0; k < nr_sides; k++) {
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
	free(f);
	return 0;
}

/*
 * The sampling events of the base (s0) and of compared side sk (its
 * column k) into eb and en; when they differ, an error unless --force,
 * which sets *forced and, with one sampling event a side, pairs the
 * perf-profile rows of the two events in column k's options (the keys
 * name their event), as a forced comparison asks; several events a side
 * stay apart.
 */
static int compare_events(struct diff_cmd *c, const struct diff_side *s0, const struct diff_side *sk,
			  size_t k, char *eb, char *en, size_t size, bool *forced)
{
	struct outbuf sb = { 0 }, sn = { 0 };	/* the files' event names: the text rule (escape.h) */

	diff_side__events(s0, true, eb, size);
	diff_side__events(sk, true, en, size);
	if (!strcmp(eb, en))
		return 0;
	if (!c->force) {
		fprintf(stderr, "mmprof diff: DIFFERENT SAMPLING EVENTS: base used '%s', %s used '%s'; "
				"their perf-profile percentages are not comparable (--force compares anyway)\n",
			outbuf__text_safe(&sb, eb), sk->name, outbuf__text_safe(&sn, en));
		outbuf__release(&sb);
		outbuf__release(&sn);
		return -1;
	}
	*forced = true;
	fprintf(stderr, "mmprof diff: WARNING: different sampling events (base '%s', %s '%s'), compared because of --force\n",
		outbuf__text_safe(&sb, eb), sk->name, outbuf__text_safe(&sn, en));
	outbuf__release(&sb);
	outbuf__release(&sn);
	if (!strchr(eb, ',') && !strchr(en, ',') && *eb && *en) {
		keys__event_name(eb, c->alias_to[k], sizeof(c->alias_to[k]));
		keys__event_name(en, c->alias_from[k], sizeof(c->alias_from[k]));
		if (strcmp(c->alias_to[k], c->alias_from[k])) {
			c->co[k].alias_from = c->alias_from[k];
			c->co[k].alias_to = c->alias_to[k];
		}
	}
	return 0;
}

/* -g: the changed call chains of the first sampling event (eb), base s0 against sk, in the table's format. */
static void format_callchains(struct outbuf *out, const struct diff_side *s0,
			      const struct diff_side *sk, double min_points, double alpha,
			      const char *eb, enum diff_format fmt, int limit)
{
	struct chain_diff cd;
	char ev[128];
	/* the runs the table compares: --drop-run's are left out here too */
	bool *kb = diff_side__kept(s0), *kn = diff_side__kept(sk);
	const bool *keep[2] = { kb, kn };
	int err;

	snprintf(ev, sizeof(ev), "%.*s", (int)strcspn(eb, ","), eb);
	err = chains__compute(&cd, (const struct profile *const *)s0->profiles, s0->nr,
			      (const struct profile *const *)sk->profiles, sk->nr, ev,
			      min_points > 0.5 ? min_points : 0.5, alpha, keep);
	free(kb);
	free(kn);
	if (err)
		return;
	/* in JSON a member of the diff object, before it closes */
	if (fmt == DIFF_FORMAT_JSON)
		outbuf__printf(out, ", \"callchains\": ");
	chains__format(out, &cd, (size_t)(limit > 0 ? limit : 20), fmt == DIFF_FORMAT_JSON);
	chains__release(&cd);
}

/*
 * diff --junit (html NULL) or --summary (html: the HTML report's path, ""
 * for none) of base s0 against sk (diff d) into path, whole or not at
 * all.  0, or -errno with the line said.
 */
static int write_ci(const char *path, const struct diff_side *s0, const struct diff_side *sk,
		    const struct diff *d, const struct ci_gates *ci, const char *html)
{
	struct diff_side two[2] = { *s0, *sk };	/* borrowed copies: ciout reads a pair */
	struct outbuf b = { 0 };
	struct errmsg e;
	int err;

	if (html)
		ciout__summary(&b, two, d, ci, *html ? html : NULL);
	else
		ciout__junit(&b, two, d, ci);
	err = outfile__write(path, b.s, b.len, &e);
	if (err)
		fprintf(stderr, "mmprof: %s\n", e.msg);
	outbuf__release(&b);
	return err;
}

/*
 * The HTML report (flame.h) of base s0 against sk, column of the costs cs:
 * the same rows, both headers, the waterfall of the cost per op (verdicts
 * from d->cost), the differential flame graphs by share and per op.
 */
static int write_html(const char *path, const struct diff_side *s0, const struct diff_side *sk,
		      const struct diff *d, const struct diff_row *const *rows, size_t n,
		      const char *events, const struct ci_gates *ci, const struct cost_sides *cs, size_t column)
{
	struct flame_diff_opts fo = { .alpha = d->o.alpha, .min_points = d->o.min_points,
				      .novar_points = d->o.novar_points };
	const struct diff_side *two[2] = { s0, sk };
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
	for (i = 0; i < 2; i++)
		hs[i] = (struct html_side){ two[i]->name, two[i]->paths,
					    (const struct profile *const *)two[i]->profiles,
					    two[i]->nr, two[i]->nr_runs };
	have_graph = flame__build_diff(&f, (const struct profile *const *)s0->profiles, s0->nr,
				       (const struct profile *const *)sk->profiles, sk->nr, &fo, &e) == 0;
	if (!have_graph)
		fprintf(stderr, "mmprof diff: note: no flame graph in the HTML report: %s\n", e.msg);
	html_cost__build(&hb, cs, column, d->cost, (const struct profile *const *)s0->profiles, s0->nr,
			 (const struct profile *const *)sk->profiles, sk->nr, have_graph ? ev : NULL, &fo);
	flame__html_diff(&b, hs, d, rows, n, have_graph ? &f : NULL, ev, ci, &hb.hc);
	html_cost__release(&hb);
	err = flame__write_file(&b, path, &e);
	if (err)
		fprintf(stderr, "mmprof: %s\n", e.msg);
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
static const char *column_path(const char *path, const char *name, char *buf, size_t size)
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
		fprintf(stderr, "mmprof diff: '%s': too long a name for one file per column\n", path);
		return NULL;
	}
	return buf;
}

/*
 * --html FILE with several columns: FILE chooses between the columns'
 * reports (written beside it as FILE-newK.EXT).  0, or -errno (said).
 */
static int write_html_index(const char *path, const struct diff_side *s, size_t nd,
			    const char *const *names)
{
	const char *slash = strrchr(path, '/');
	char **files = xcalloc(nd, sizeof(*files)), **labels = xcalloc(nd, sizeof(*labels));
	struct outbuf b = { 0 }, l = { 0 };
	struct errmsg e;
	size_t k, i;
	int err = 0;

	for (k = 0; k < nd && !err; k++) {
		char buf[4096];
		const char *f = column_path(path, names[k], buf, sizeof(buf));

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
		diff__html_columns_index(&b, s[0].paths[0], names, (const char *const *)labels,
					 (const char *const *)files, nd);
		err = outfile__write(path, b.s, b.len, &e);
		if (err)
			fprintf(stderr, "mmprof: %s\n", e.msg);
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
		fprintf(stderr, "mmprof diff: need BASE.data NEW.data, or BASE... -- NEW...; see 'mmprof diff --help'\n");
		return -1;
	}
	/* *nr_sides only once they fit: the caller releases that many of s */
	if (nr > DIFF_MAX_COLUMNS + 1) {
		fprintf(stderr, "mmprof diff: %zu sides: at most a base and %d compared columns\n",
			nr, DIFF_MAX_COLUMNS);
		return -1;
	}
	*nr_sides = nr;
	for (k = 0, from = 0; k < *nr_sides; k++) {
		size_t to = !nr_seps ? k + 1 : k < nr_seps ? seps[k] : pos->nr;

		if (to <= from) {
			fprintf(stderr, nr_seps == 1 ? "mmprof diff: both sides of '--' need at least one file\n"
				: "mmprof diff: each side between '--' needs at least one file\n");
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
	fprintf(stderr, "mmprof diff: --gate-column '%s': no such compared column; they are %s%s%s\n",
		c->gate_column, s[1].name, nr_sides > 2 ? " to " : "", nr_sides > 2 ? s[nr_sides - 1].name : "");
	return -1;
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
		{ OPT_BOOL, 0, "cost", &c.cost, NULL, "also the table of costs per op (cost.* rows); the attribution is shown anyway", 0, NULL },
		{ OPT_BOOL, 0, "color", &c.color, NULL, "colour rises red, falls blue (default: on a terminal, unless NO_COLOR)", OPT_NEGATABLE, NULL },
		{ OPT_GROUP, 0, NULL, NULL, NULL, "Statistics", 0, NULL },
		{ OPT_DOUBLE, 0, "alpha", &c.o.alpha, "Q", "false discovery rate (default 0.05)", OPT_FRACTION, NULL },
		{ OPT_DOUBLE, 0, "min-points", &c.o.min_points, "P", "effect floor for perf-profile and % keys (default 0.1)", OPT_POINTS, NULL },
		{ OPT_DOUBLE, 0, "min-pct", &c.o.min_pct, "PCT", "effect floor for other keys, % (default 1)", 0, NULL },
		{ OPT_DOUBLE, 0, "threshold-points", &c.o.novar_points, "P", "one-run threshold, points (default 0.5)", OPT_POINTS, NULL },
		{ OPT_DOUBLE, 0, "threshold-pct", &c.o.novar_pct, "PCT", "one-run threshold, % (default 5)", 0, NULL },
		{ OPT_STRING, 0, "machine", &c.machine, "NAME", "STORE:COMMIT sides: the pushes of this machine", 0, NULL },
		{ OPT_STRING, 0, "benchmark", &c.benchmark, "NAME", "STORE:COMMIT sides: the pushes of this benchmark", 0, NULL },
		{ OPT_BOOL, 0, "force", &c.force, NULL, "compare sides recorded with different events", 0, NULL },
		{ OPT_STRING, 0, "per", &c.per, "KEY", "costs per unit of workload metric KEY (default: its <name>.ops, else per second of run)", 0, NULL },
		{ OPT_LIST, 0, "drop-run", &c.drop_run, "SIDE:N", "leave run N (from 0) of base or new (new1, new2, ...) out, e.g. a disturbed run (repeatable)", 0, NULL },
		{ OPT_LIST, 0, "ambient", &c.ambient, "GLOB", "keys matching GLOB are the machine's state, not the workload's (repeatable)", 0, NULL },
		{ OPT_BOOL, 0, "no-ambient", &c.no_ambient, NULL, "no key is ambient but those of --ambient (default: meminfo.*, proc-vmstat levels)", 0, NULL },
		{ OPT_STRING, 0, "score", &c.o.score, "GLOB", "the workload's score: keys matching GLOB, tested first and alone ('' none; default: *.ops_per_sec, *.throughput, ...)", 0, NULL },
		{ OPT_GROUP, 0, NULL, NULL, NULL, "CI gates", 0, NULL },
		{ OPT_LIST, 0, "fail-on", &c.fail_on, "EXPR", "exit 1 when a change satisfies EXPR (repeatable)", 0, NULL },
		{ OPT_STRING, 0, "gate-file", &c.gate_file, "FILE", "gate expressions, one a line (# comments)", 0, NULL },
		{ OPT_STRING, 0, "gate-column", &c.gate_column, "NAME", "with several compared columns, gates read only NAME (new1, new2, ...; default: each)", 0, NULL },
		{ OPT_BOOL, 0, "fail-on-any", &c.fail_on_any, NULL, "gates count every change, not only significant ones", 0, NULL },
		{ OPT_BOOL, 0, "allow-unmatched", &c.allow_unmatched, NULL, "a gate that matches no compared key is a note, not an error", 0, NULL },
		{ OPT_BOOL, 0, "allow-failed", &c.allow_failed, NULL, "compare (and gate) a side whose workload failed in every run: a warning, not an error", 0, NULL },
		{ OPT_END, 0, NULL, NULL, NULL, NULL, 0, NULL },
	};
	struct strlist pos = { 0 };
	struct diff_side s[DIFF_MAX_COLUMNS + 1] = { { 0 } };
	char names[DIFF_MAX_COLUMNS + 1][24];	/* "new" and a size_t at most */
	const char *col_names[DIFF_MAX_COLUMNS];
	struct diff d[DIFF_MAX_COLUMNS] = { { 0 } };
	struct diff dc[DIFF_MAX_COLUMNS] = { { 0 } };	/* each column's costs per op */
	struct cost_sides cs = { 0 };
	const struct diff_row **crows = NULL;
	size_t cn = 0;
	bool forced[DIFF_MAX_COLUMNS] = { false };
	char ev[DIFF_MAX_COLUMNS + 1][512];	/* each side's sampling events */
	size_t *seps = xcalloc((size_t)argc + 1, sizeof(*seps));
	struct gate *gates = NULL;
	struct ci_gates ci;
	struct outbuf out = { 0 };
	const struct diff_row **rows = NULL, **colrows = NULL;
	struct errmsg e;
	enum diff_format fmt;
	enum diff_select sel;
	size_t ng = 0, i, k, n, nd = 0, nr_sides = 0, nr_seps, gk = 0;
	int err, ret = EXIT_ERROR, tripped = 0;
	bool multi;

	err = parse_args(argc, argv, opts, &pos, seps, &nr_seps);
	if (err < 0) {
		ret = err == -2 ? 0 : EXIT_ERROR;
		goto out;
	}
	if (diff_format__parse(c.format, &fmt) < 0) {
		fprintf(stderr, "mmprof diff: unknown format '%s'; use lkp, json, csv or markdown\n", c.format);
		goto out;
	}
	if (split_sides(&pos, seps, nr_seps, s, names, &nr_sides) < 0 ||
	    parse_gates(&c, &gates, &ng) < 0)
		goto out;
	nd = nr_sides - 1;
	multi = nd > 1;
	if (c.gate_column && gate_column(&c, s, nr_sides, &gk) < 0)
		goto out;
	for (k = 0; k < nr_sides; k++)
		s[k].machine = c.machine, s[k].benchmark = c.benchmark;
	if (diff_sides__load(s, nr_sides, &e) < 0) {
		fprintf(stderr, "mmprof: %s\n", e.msg);
		goto out;
	}
	if (diff_sides__drop(s, nr_sides, &c.drop_run, &e) < 0) {
		fprintf(stderr, "mmprof diff: %s\n", e.msg);
		goto out;
	}
	if (check_failed_runs(s, nr_sides, c.allow_failed) < 0)
		goto out;

	c.o.robot = c.robot && !c.all;
	c.o.ambient = (const char *const *)c.ambient.items;
	c.o.nr_ambient = c.ambient.nr;
	c.o.no_ambient_defaults = c.no_ambient;
	for (k = 0; k < nd; k++) {
		c.co[k] = c.o;
		col_names[k] = s[k + 1].name;
		if (compare_events(&c, &s[0], &s[k + 1], k, ev[0], ev[k + 1], sizeof(ev[0]), &forced[k]) < 0)
			goto out;
	}
	/* the costs per op are built on a second thread while this one diffs the keys */
	if (cost_sides__start(&cs, s, nr_sides, c.per, &e) < 0) {
		fprintf(stderr, "mmprof diff: %s\n", e.msg);
		goto out;
	}
	warn_cmdlines(s, nr_sides);	/* after the errors: an error stays one line */
	for (k = 0; k < nd; k++)
		if (diff__compute(&d[k], s[0].runs, s[0].nr_runs, s[k + 1].runs, s[k + 1].nr_runs,
				  &c.co[k]) < 0) {
			fprintf(stderr, "mmprof diff: nothing to compare\n");
			goto out;
		}
	cost_sides__wait(&cs);
	/*
	 * The costs' symbol tries went at the end of the build, freed by the
	 * thread that built them, in its own malloc arena: this thread cannot
	 * reuse those pages, which stay resident unless given back (20 of 214
	 * MB on two 10-run files of 100,000 stacks).
	 */
	malloc_trim(0);
	/* the costs per op: a diff of their own, which gates read too (diff.h) */
	for (k = 0; k < nd && cs.nr_events; k++)
		if (diff__compute(&dc[k], cs.side[0].runs, cs.side[0].nr_runs, cs.side[k + 1].runs,
				  cs.side[k + 1].nr_runs, &c.co[k]) == 0)
			d[k].cost = &dc[k];
	if (c.gate_column ? unmatched_gates(&d[gk], 1, gates, ng, c.allow_unmatched, cs.note)
			  : unmatched_gates(d, nd, gates, ng, c.allow_unmatched, cs.note))
		goto out;
	sel = c.all ? DIFF_SELECT_ALL : c.robot ? DIFF_SELECT_ROBOT : DIFF_SELECT_DEFAULT;
	rows = multi ? diff__select_columns(d, nd, sel, &n) : diff__select(&d[0], sel, &n);
	/* the robot's outputs stay the robot's: no costs in them */
	if (!multi && !c.robot && d[0].cost)
		crows = diff__select(&dc[0], c.all ? DIFF_SELECT_ALL : DIFF_SELECT_DEFAULT, &cn);
	/* the robot's table colours its changes on a terminal; the other formats are for programs */
	out.color = fmt == DIFF_FORMAT_LKP &&
		    term__use_color(STDOUT_FILENO, c.color < 0 ? TERM_COLOR_AUTO :
				    c.color ? TERM_COLOR_ALWAYS : TERM_COLOR_NEVER);

	colrows = xmalloc((n + 1) * sizeof(*colrows));
	/* the settings that differ come first in every format (JSON: the first member) */
	if (fmt == DIFF_FORMAT_JSON)
		outbuf__puts(&out, "{");
	print_settings(&out, s, nr_sides, fmt);
	if (fmt == DIFF_FORMAT_JSON && !multi) {
		diff_sides__json_head(&out, s, ev[0], ev[1]);
		diff__json_open(&out, &d[0], rows, n);
		if (!c.robot) {
			outbuf__puts(&out, ", \"cost\": ");
			cost__format(&out, &cs, 1, d[0].cost, &d[0], fmt);
		}
		if (crows) {
			outbuf__puts(&out, ", \"cost_rows\": ");
			diff__json_open(&out, &dc[0], crows, cn);
			diff__json_close(&out);
		}
	} else if (fmt == DIFF_FORMAT_JSON) {
		/* the base, each column's side, then one diff object per column */
		outbuf__printf(&out, "\"base\": ");
		diff_side__json(&out, &s[0], ev[0]);
		outbuf__printf(&out, ", \"columns\": [");
		for (k = 0; k < nd; k++) {
			size_t nk;

			outbuf__printf(&out, "%s\n {\"name\": \"%s\", \"side\": ", k ? "," : "", col_names[k]);
			diff_side__json(&out, &s[k + 1], ev[k + 1]);
			outbuf__printf(&out, ", \"diff\": ");
			diff__column_rows(rows, n, nd, k, colrows, &nk);
			diff__json_open(&out, &d[k], colrows, nk);
			if (!c.robot) {
				outbuf__puts(&out, ", \"cost\": ");
				cost__format(&out, &cs, k + 1, d[k].cost, &d[k], fmt);
			}
			if (c.callchains)
				format_callchains(&out, &s[0], &s[k + 1], d[k].o.min_points, d[k].o.alpha,
						  ev[0], fmt, c.limit);
			outbuf__printf(&out, "}}");	/* the diff, the column */
		}
		outbuf__printf(&out, "]");
	} else {
		bool attr = !multi && !c.robot;

		if (fmt == DIFF_FORMAT_LKP && !c.robot) {
			/* the benchmark's change per op, and who carries it, before the table */
			diff_sides__header_top(&out, s, nr_sides, d, forced);
			for (k = 0; k < nd; k++) {
				if (multi)
					outbuf__printf(&out, "%s against base: ", col_names[k]);
				cost__format(&out, &cs, k + 1, d[k].cost, &d[k], fmt);
				outbuf__puts(&out, "\n");
			}
			diff_sides__column_heads(&out, s, nr_sides);
		} else if (fmt == DIFF_FORMAT_LKP) {
			diff_sides__header(&out, s, nr_sides, d, forced);
		}
		if (multi)
			diff__format_columns(&out, d, nd, col_names, rows, n, fmt, sel);
		else
			diff__format(&out, &d[0], rows, n, fmt, c.all);
		if (crows && c.cost && fmt == DIFF_FORMAT_CSV) {
			/*
			 * The cost rows in the table's own columns, then the
			 * attribution's table; only when asked: a script reading
			 * the CSV of a pair reads what it read before, the lines of
			 * a column of several (t303).
			 */
			diff__csv_rows(&out, crows, cn);
			cost__format(&out, &cs, 1, d[0].cost, &d[0], fmt);
		} else if (attr && fmt == DIFF_FORMAT_MARKDOWN) {
			cost__format(&out, &cs, 1, d[0].cost, &d[0], fmt);
		}
		if (crows && c.cost && fmt == DIFF_FORMAT_LKP) {
			outbuf__printf(&out, "\ncosts per %s (cost.* rows; a diff of their own, --cost):\n",
				       cost_work__per(&cs.work));
			diff__format(&out, &dc[0], crows, cn, fmt, c.all);
			if (!cn)
				outbuf__printf(&out, "(no significant rows)\n");
		} else if (crows && c.cost && fmt == DIFF_FORMAT_MARKDOWN) {
			outbuf__printf(&out, "\n**costs per %s** (cost.* rows)\n\n", cost_work__per(&cs.work));
			diff__format(&out, &dc[0], crows, cn, fmt, c.all);
		}
	}
	if (fmt == DIFF_FORMAT_LKP && !n)
		outbuf__printf(&out, "(no %s rows)\n", c.robot ? "robot-visible" : "significant");
	/* CSV's rows have no place for call chains; JSON's several columns have them above */
	if (c.callchains && fmt != DIFF_FORMAT_CSV && !(multi && fmt == DIFF_FORMAT_JSON)) {
		double min_points = d[0].o.min_points, alpha = d[0].o.alpha;

		/*
		 * The table is written: with one column and without gates, HTML,
		 * JUnit or summary nothing reads the keys again (the column rows
		 * of several point into them), so their memory goes before the
		 * chains' (on two 10-run files of 100,000 stacks, 66 MB of a
		 * 306 MB peak); the options are the same in every column.
		 */
		if (!multi && !ng && !c.html && !c.junit && !c.summary) {
			for (k = 0; k < nd; k++) {
				diff__release(&d[k]);
				diff__release(&dc[k]);
			}
			free(crows);
			crows = NULL;
			cost_sides__release(&cs);
			for (k = 0; k < nr_sides; k++)
				diff_side__release_keys(&s[k]);
			/* freed in the middle of the heap: malloc keeps the pages
			 * (RSS stays) unless told to give them back */
			malloc_trim(0);
		}
		for (k = 0; k < nd; k++) {
			if (multi)
				outbuf__printf(&out, "\n%s against base:\n", col_names[k]);
			format_callchains(&out, &s[0], &s[k + 1], min_points, alpha, ev[0], fmt, c.limit);
		}
	}
	if (fmt == DIFF_FORMAT_JSON) {
		if (!multi)
			diff__json_close(&out);
		outbuf__printf(&out, "}\n");
	}
	if (out.len)
		fwrite(out.s, 1, out.len, stdout);
	ci.g = gates;
	ci.nr = ng;
	ci.any = c.fail_on_any;
	for (k = 0; k < nd; k++) {
		char hbuf[4096], jbuf[4096], sbuf[4096];
		const char *html = NULL, *junit = NULL, *summary = NULL, *name = multi ? col_names[k] : NULL;
		size_t nk;

		/* several columns: one file of each per column, FILE-newK.EXT */
		if ((c.html && !(html = column_path(c.html, name, hbuf, sizeof(hbuf)))) ||
		    (c.junit && !(junit = column_path(c.junit, name, jbuf, sizeof(jbuf)))) ||
		    (c.summary && !(summary = column_path(c.summary, name, sbuf, sizeof(sbuf)))))
			goto out;
		if (multi) {
			diff__column_rows(rows, n, nd, k, colrows, &nk);
		} else {
			memcpy(colrows, rows, n * sizeof(*rows));
			nk = n;
		}
		if (html && write_html(html, &s[0], &s[k + 1], &d[k], colrows, nk, ev[0], &ci, &cs, k + 1) < 0)
			goto out;
		if (c.gate_column && k != gk)
			continue;	/* the CI outputs are of the columns gates read */
		if ((junit && write_ci(junit, &s[0], &s[k + 1], &d[k], &ci, NULL) < 0) ||
		    (summary && write_ci(summary, &s[0], &s[k + 1], &d[k], &ci, html ? html : "") < 0))
			goto out;
	}

	if (c.html && multi && write_html_index(c.html, s, nd, col_names) < 0)
		goto out;

	fflush(stdout);
	for (k = 0; k < nd; k++)
		if (!c.gate_column || k == gk)
			tripped += run_gates(&d[k], multi ? col_names[k] : NULL, gates, ng, c.fail_on_any);
	ret = tripped ? EXIT_GATE : 0;
out:
	free(rows);
	free(crows);
	free(colrows);
	free(seps);
	outbuf__release(&out);
	for (k = 0; k < nd; k++) {
		diff__release(&d[k]);
		diff__release(&dc[k]);
	}
	cost_sides__release(&cs);
	for (i = 0; i < ng; i++)
		gate__release(&gates[i]);
	free(gates);
	for (k = 0; k < nr_sides; k++)
		diff_side__release(&s[k]);
	strlist__release(&pos);
	strlist__release(&c.fail_on);
	strlist__release(&c.drop_run);
	strlist__release(&c.ambient);
	return ret;
}
