/*
 * cmd-import: `mmprof import [options] perf.data|- [-o OUT]`, a .data file
 * made from what perf recorded (import.h): a perf.data file (read through
 * `perf script`) or `perf script` text on standard input.  The result has
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
	"mmprof import [options] perf.data [-o OUT]",
	"perf script | mmprof import [options] - [-o OUT]",
	NULL,
};

static int read_stdin(struct profile *p, struct errmsg *e)
{
	struct perfscript ps;
	char *line = NULL;
	size_t alloc = 0;
	ssize_t len;
	int err = 0;

	perfscript__init(&ps, p);
	while (!err && (len = getline(&line, &alloc, stdin)) >= 0) {
		if (len && line[len - 1] == '\n')
			len--;
		err = perfscript__line(&ps, line, (size_t)len, e);
	}
	if (!err && ferror(stdin))
		err = errmsg__set(e, -EIO, "cannot read standard input: %s", strerror(errno));
	if (!err)
		err = perfscript__finish(&ps, e);
	free(line);
	perfscript__release(&ps);
	return err ? errmsg__prefix(e, err, "cannot import standard input") : 0;
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
	profile__set_meta(p, "source", from_stdin ? "perf script" : "perf.data");
	copy = xstrdup(pos[0]);
	profile__set_meta(p, "source_file", from_stdin ? "-" : basename(copy));
	free(copy);
	profile__set_meta(p, "record_mode", "import");

	err = from_stdin ? read_stdin(p, &e) : import__perf_data(p, pos[0], o.perf, &e);
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
