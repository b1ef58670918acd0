/*
 * cmd-export: `mmprof export --format folded|pprof|json FILE [-o OUT]`, a
 * .data file in a format other tools read (export.h).  Options may come
 * before or after FILE.  OUT is written to a temporary name beside it and
 * renamed when complete, so a failed export leaves no half file.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "mmprof/cmd.h"
#include "mmprof/datafile.h"
#include "mmprof/export.h"
#include "mmprof/message.h"
#include "mmprof/options.h"
#include "mmprof/outfile.h"
#include "mmprof/report.h"

struct export_opts {
	const char *format, *output, *event;
	int period, comm, run, no_gzip;
};

static const char *const export_usage[] = {
	"mmprof export --format folded|pprof|json [options] FILE [-o OUT]",
	NULL,
};

/* The format a name like "x.pb.gz" or "x.json" implies, or NULL. */
static const char *format_of(const char *out)
{
	static const struct { const char *suffix, *format; } by_suffix[] = {
		{ ".pb.gz", "pprof" }, { ".pprof", "pprof" }, { ".pb", "pprof" },
		{ ".json", "json" }, { ".folded", "folded" },
	};
	size_t i, n = out ? strlen(out) : 0;

	for (i = 0; i < sizeof(by_suffix) / sizeof(by_suffix[0]); i++) {
		size_t k = strlen(by_suffix[i].suffix);

		if (n > k && !strcmp(out + n - k, by_suffix[i].suffix))
			return by_suffix[i].format;
	}
	return NULL;
}

static int write_export(const struct profile *p, const struct export_opts *o, int ev,
			struct outbuf *out, struct errmsg *e)
{
	if (!strcmp(o->format, "folded")) {
		struct folded_opts fo = { .event = ev < 0 ? 0 : ev, .period = o->period,
					  .comm = o->comm, .run = o->run };
		int err = report__folded(p, &fo, out);

		return err ? errmsg__set(e, err, "cannot write folded stacks: %s", err == -E2BIG ?
					 REPORT_FOLDED_TOO_BIG : strerror(-err)) : 0;
	}
	if (!strcmp(o->format, "pprof")) {
		struct pprof_opts po = { .run = o->run, .no_gzip = o->no_gzip };

		return export__pprof(p, &po, out, e);
	}
	return export__json(p, out, e);
}

/*
 * The format (from OUT's suffix when not given), and options that fit it.
 * 0, or -1 after one line on stderr.
 */
static int check_opts(struct export_opts *o)
{
	if (!o->format)
		o->format = format_of(o->output);
	if (!o->format) {
		error("which format? use --format folded, pprof or json");
		return -1;
	}
	if (strcmp(o->format, "folded") && strcmp(o->format, "pprof") && strcmp(o->format, "json")) {
		error("invalid value '%s' for --format: use folded, pprof "
				"or json", o->format);
		return -1;
	}
	/*
	 * Options of another format would be ignored in silence: pprof and
	 * json carry every event with both its samples and its period (pprof's
	 * default sample type is the period) and the comm as a label; json
	 * holds every run.
	 */
	if (strcmp(o->format, "folded") && (o->event || o->period || o->comm)) {
		error("%s is for --format folded only; %s already has the "
				"samples, period and comm of every event's stacks",
			o->event ? "-e" : o->period ? "--period" : "--comm", o->format);
		return -1;
	}
	if (!strcmp(o->format, "json") && o->run != -1) {
		error("--run is for folded and pprof; json holds every run");
		return -1;
	}
	if (!strcmp(o->format, "pprof") && !o->output && isatty(STDOUT_FILENO)) {
		error("pprof is binary: not writing it to a terminal; "
				"use -o OUT");
		return -1;
	}
	return 0;
}

int cmd_export(int argc, char **argv)
{
	struct export_opts o = { .run = -1 };
	const struct option_desc opts[] = {
		OPT_STRING('f', "format", &o.format, "FORMAT",
			"folded, pprof or json (default: from OUT's suffix .folded, .pb.gz, .json)"),
		OPT_STRING('o', "output", &o.output, "OUT", "write OUT (default: standard output)"),
		OPT_GROUP("folded"),
		OPT_STRING('e', "event", &o.event, "EVENT", "only this event (default: the first)"),
		OPT_BOOL(0, "period", &o.period, "weigh stacks by period, not samples"),
		OPT_BOOL(0, "comm", &o.comm, "the command name as the first frame"),
		OPT_GROUP("folded and pprof"),
		OPT_INTEGER(0, "run", &o.run, "N", "only run N (from 0; default: all runs summed)"),
		OPT_GROUP("pprof"),
		OPT_BOOL(0, "no-gzip", &o.no_gzip, "write the protobuf uncompressed"),
		OPT_END(),
	};
	char *pos[2] = { NULL, NULL };
	struct profile *p = NULL;
	struct errmsg e = { "" };
	struct outfile out = { 0 };
	struct outbuf sink;
	int n, ev = -1, err, ret = EXIT_ERROR;

	n = options__parse_anywhere(argc, argv, opts, export_usage, pos, 1);
	if (n == -2)
		return 0;
	if (n < 0)
		return EXIT_ERROR;
	if (n != 1) {
		error("expected one FILE; see 'mmprof export --help'");
		return EXIT_ERROR;
	}
	if (check_opts(&o) < 0)
		return EXIT_ERROR;

	err = datafile__load(pos[0], &p, &e);
	if (err) {
		error("%s", e.msg);
		return EXIT_ERROR;
	}
	if (o.event) {
		ev = report__find_event(p, o.event);
		if (ev < 0) {
			error("no event '%s' in '%s'", o.event, pos[0]);
			goto out;
		}
	}
	if (o.run < -1 || o.run >= (int)p->nr_runs) {
		error("no run %d in '%s' (it has %zu, numbered from 0)", o.run, pos[0], p->nr_runs);
		goto out;
	}
	if (!p->nr_events && strcmp(o.format, "json")) {
		error("'%s' has no samples to export as %s", pos[0], o.format);
		goto out;
	}

	if (outfile__open(&out, o.output, &e) < 0) {
		error("%s", e.msg);
		goto out;
	}
	outbuf__init_file(&sink, out.fp, false);
	err = write_export(p, &o, ev, &sink, &e);
	outbuf__flush(&sink);	/* a failed write to stdout is main's to report, as before */
	outbuf__release(&sink);
	err = outfile__close(&out, err, &e);
	if (err) {
		error("export of '%s': %s", pos[0], e.msg);
		goto out;
	}
	if (p->nr_events) {
		int uev = strcmp(o.format, "folded") ? -1 : ev < 0 ? 0 : ev;
		char line[256];

		/* every format keeps the unnamed frames (as [unknown], or addresses): say how many */
		if (report__unnamed_notable(p, uev))
			note("'%s': %s", pos[0],
				report__unnamed_line(p, uev, true, line, sizeof(line)));
	}
	ret = 0;
out:
	outfile__close(&out, -ECANCELED, NULL);	/* after an error: no file */
	profile__free(p);
	return ret;
}
