/*
 * cmd-import: `mmprof import [options] perf.data|perf-stat.log|- [-o OUT]`,
 * a .data file made from what perf recorded (import.h): a perf.data file
 * (read through `perf script`), `perf script` text on standard input, or
 * `perf stat -x, -I` text (a file or standard input: a stat-only file).  The result has
 * one run and says where it came from in its meta ("source",
 * "source_file", perf's header).  Options may follow the input.
 *
 * --workload-output FILE: the benchmark's own output of that recording
 * (a robot result folder's stress-ng or will-it-scale file, a saved
 * stdout/stderr) read as record reads a workload's (benchout.h), so that
 * an import knows the work done, with --ops-pattern as record's.
 */
#include <errno.h>
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "mmprof/benchout.h"
#include "mmprof/cmd.h"
#include "mmprof/datafile.h"
#include "mmprof/import.h"
#include "mmprof/infile.h"
#include "mmprof/message.h"
#include "mmprof/options.h"
#include "mmprof/stackagg.h"
#include "mmprof/xalloc.h"

struct import_opts {
	const char *output, *perf;
	const char *workload_output, *ops_pattern, *ops_name;
};

static const char *const import_usage[] = {
	"mmprof import [options] perf.data|PERF-STAT-LOG [-o OUT]",
	"perf script | mmprof import [options] - [-o OUT]",
	NULL,
};

/* perf script or perf stat text from standard input, or perf stat text from path. */
static int read_text(struct profile *p, const char *path, struct errmsg *e)
{
	FILE *f = path ? fopen(path, "re") : stdin;
	int err;

	if (!f)
		return errmsg__set(e, -errno, "cannot import '%s': %s", path, strerror(errno));
	err = import__text(p, f, e);
	if (path)
		fclose(f);
	if (!err)
		return 0;
	return path ? errmsg__prefix(e, err, "cannot import '%s'", path)
		    : errmsg__prefix(e, err, "cannot import standard input");
}

/* --workload-output: its lines as run 0's metrics, as record stores a workload's */
static int add_workload_output(struct profile *p, const struct benchout_opts *bench,
			       const char *path, struct errmsg *e)
{
	struct benchout b;
	int err;

	benchout__init(&b, bench, p, 0);
	err = benchout__file(&b, path, e);
	if (!err && b.ops_over_budget)
		warning("--ops-pattern took more than %.0f s of CPU on '%s' "
			"(a pattern that backtracks?); the rest was not matched: no %s stored",
			BENCHOUT_OPS_CPU, path, bench->ops_key);
	else if (!err && bench->has_ops && !b.ops_matches)
		warning("no line of '%s' matched --ops-pattern: no %s "
			"stored", path, bench->ops_key);
	benchout__release(&b);
	return err;
}

int cmd_import(int argc, char **argv)
{
	struct import_opts o = { .output = "mmprof.data" };
	const struct option_desc opts[] = {
		OPT_STRING('o', "output", &o.output, "OUT", "write OUT (default mmprof.data)"),
		OPT_STRING(0, "perf", &o.perf, "PATH",
			"the perf binary to run on perf.data (default: perf on PATH)"),
		OPT_STRING(0, "workload-output", &o.workload_output, "FILE",
			"the benchmark's output of that run (its metric lines, stress-ng's or will-it-scale's tables) as run 0's keys"),
		OPT_STRING(0, "ops-pattern", &o.ops_pattern, "REGEX",
			"work done: the sum of the first group of REGEX over FILE's matching lines, as NAME.ops"),
		OPT_STRING(0, "ops-name", &o.ops_name, "NAME",
			"the NAME of --ops-pattern's key (default: FILE's name)"),
		OPT_END(),
	};
	struct benchout_opts bench;
	char *pos[2] = { NULL, NULL };
	struct profile *p = NULL;
	struct errmsg e = { "" };
	char buf[32], *copy;
	int n, err, from_stdin;

	n = options__parse_anywhere(argc, argv, opts, import_usage, pos, 1);
	if (n == -2)
		return 0;
	if (n < 0)
		return EXIT_ERROR;
	if (n != 1) {
		error("expected one input, perf.data or - for perf script "
				"text; see 'mmprof import --help'");
		return EXIT_ERROR;
	}
	if (!o.output[0]) {
		error("empty output file name");
		return EXIT_ERROR;
	}
	memset(&bench, 0, sizeof(bench));
	/* before perf script runs on a large perf.data */
	if (o.workload_output && access(o.workload_output, R_OK) < 0) {
		error("cannot read --workload-output '%s': %s",
			o.workload_output, strerror(errno));
		return EXIT_ERROR;
	}
	/* a device never ends: /dev/zero grew one line without bound */
	if ((o.workload_output && infile__check(o.workload_output, "--workload-output", &e) < 0) ||
	    (strcmp(pos[0], "-") && infile__check(pos[0], "input", &e) < 0)) {
		error("%s", e.msg);
		return EXIT_ERROR;
	}
	if ((o.ops_pattern || o.ops_name) && !o.workload_output) {
		error("--ops-pattern and --ops-name read "
			"--workload-output FILE; give it");
		return EXIT_ERROR;
	}
	if (o.ops_name && !o.ops_pattern) {
		error("--ops-name needs --ops-pattern");
		return EXIT_ERROR;
	}
	if (o.ops_pattern &&
	    benchout_opts__set_ops(&bench, o.ops_pattern, o.ops_name, o.workload_output, &e) < 0) {
		error("%s", e.msg);
		return EXIT_ERROR;
	}
	from_stdin = !strcmp(pos[0], "-");

	p = profile__new();
	profile__set_meta(p, "mmprof_version", MMPROF_VERSION);
	snprintf(buf, sizeof(buf), "%d", PROFILE_FORMAT_PLAIN);
	profile__set_meta(p, "format_version", buf);
	profile__set_meta(p, "source", "perf.data");	/* text: its kind (import__text) */
	copy = xstrdup(pos[0]);
	profile__set_meta(p, "source_file", from_stdin ? "-" : basename(copy));
	free(copy);
	profile__set_meta(p, "record_mode", "import");

	if (from_stdin)
		err = read_text(p, NULL, &e);
	else if (import__is_perf_stat(pos[0]))
		err = read_text(p, pos[0], &e);
	else
		err = import__perf_data(p, pos[0], o.perf, &e);
	if (!err && o.workload_output)
		err = add_workload_output(p, &bench, o.workload_output, &e);
	if (!err) {
		char line[400];

		/* what the input held that the format cannot (pid -1, a period near 2^64) */
		if (profile__repairs(p, line, sizeof(line)))
			warning("kept within the file format: %s (meta repaired.*)",
				line);
		/* record's rule for distinct chains (datafile__trie_takes), and its words */
		if (profile__meta(p, "stacks_cut_to_leaf") && p->nr_runs)
			warning("%s samples (%.1f%%) kept only their innermost "
				"frame: their call chains were new when the trie of distinct chains was "
				"full (%u nodes, what record keeps and every reader takes; meta "
				"stacks_cut_to_leaf)", profile__meta(p, "stacks_cut_to_leaf"),
				p->runs[0].samples ? 100.0 * strtod(profile__meta(p, "stacks_cut_to_leaf"), NULL) /
				(double)p->runs[0].samples : 0.0, DATAFILE_TRIE_NODES);
		err = datafile__save(p, o.output, &e);
	}
	benchout_opts__release(&bench);
	if (err) {
		error("%s", e.msg);
		profile__free(p);
		return EXIT_ERROR;
	}
	profile__free(p);
	return 0;
}
