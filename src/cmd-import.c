/*
 * cmd-import: `mmprof import [options] perf.data|perf-stat.log|- [-o OUT]`,
 * a .data file made from what perf recorded (import.h): a perf.data file
 * (read through `perf script`), `perf script` text on standard input, or
 * `perf stat -x, -I` text (a file or standard input: a stat-only file).  The result has
 * one run and says where it came from in its meta ("source",
 * "source_file", perf's header).  Options may follow the input.
 */
#include <errno.h>
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mmprof/cmd.h"
#include "mmprof/datafile.h"
#include "mmprof/import.h"
#include "mmprof/options.h"
#include "mmprof/xalloc.h"

struct import_opts {
	const char *output, *perf;
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

int cmd_import(int argc, char **argv)
{
	struct import_opts o = { .output = "mmprof.data" };
	const struct option_desc opts[] = {
		{ OPT_STRING, 'o', "output", &o.output, "OUT", "write OUT (default mmprof.data)", 0, NULL },
		{ OPT_STRING, 0, "perf", &o.perf, "PATH",
		  "the perf binary to run on perf.data (default: perf on PATH)", 0, NULL },
		{ OPT_END },
	};
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
		fprintf(stderr, "mmprof import: expected one input, perf.data or - for perf script "
				"text; see 'mmprof import --help'\n");
		return EXIT_ERROR;
	}
	if (!o.output[0]) {
		fprintf(stderr, "mmprof import: empty output file name\n");
		return EXIT_ERROR;
	}
	from_stdin = !strcmp(pos[0], "-");

	p = profile__new();
	profile__set_meta(p, "mmprof_version", MMPROF_VERSION);
	snprintf(buf, sizeof(buf), "%d", PROFILE_FORMAT_VERSION);
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
	if (!err)
		err = datafile__save(p, o.output, &e);
	if (err) {
		fprintf(stderr, "mmprof: %s\n", e.msg);
		profile__free(p);
		return EXIT_ERROR;
	}
	profile__free(p);
	return 0;
}
