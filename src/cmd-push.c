/*
 * mmprof push: keep .data files in a results store (store.h), by commit,
 * so that a diff (and a history) reads them by commit later.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "mmprof/cmd.h"
#include "mmprof/message.h"
#include "mmprof/options.h"
#include "mmprof/outbuf.h"
#include "mmprof/store.h"
#include "mmprof/xalloc.h"

static const char *const push_usage[] = {
	"mmprof push [options] --store STORE --commit SHA FILE...",
	NULL,
};

/* The files of one push command: at most this many (each is a push of its own). */
#define PUSH_MAX_FILES 4096

/* --time: Unix seconds, or a UTC date "2026-12-06T20:12:28Z" / "2026-12-06"; 0 after an error line. */
static int64_t parse_time(const char *arg)
{
	struct tm tm = { 0 };
	const char *end;
	char *e;
	long long v;

	errno = 0;
	v = strtoll(arg, &e, 10);
	if (!errno && *arg && !*e && v > 0)
		return v;
	end = strptime(arg, "%Y-%m-%dT%H:%M:%SZ", &tm);
	if (!end || *end) {
		memset(&tm, 0, sizeof(tm));
		end = strptime(arg, "%Y-%m-%d", &tm);
	}
	if (end && !*end && timegm(&tm) > 0)
		return (int64_t)timegm(&tm);
	error("--time '%s': expected Unix seconds or a UTC date "
		"(2026-12-06T20:12:28Z, 2026-12-06)", arg);
	return 0;
}

int cmd_push(int argc, char **argv)
{
	const char *where = NULL, *when = NULL;
	struct store_push p = { 0 };
	int quiet = 0;
	const struct option_desc opts[] = {
		OPT_STRING(0, "store", &where, "STORE", "the store: a file (SQLite, made if absent) or a postgresql:// URL"),
		OPT_STRING(0, "commit", &p.commit, "SHA", "the commit the files were recorded on (required)"),
		OPT_STRING(0, "parent", &p.parent, "SHA", "its parent commit, for ordering a history"),
		OPT_STRING(0, "branch", &p.branch, "NAME", "the branch the commit was tested on"),
		OPT_STRING(0, "machine", &p.machine, "NAME", "the machine (default: the file's host name)"),
		OPT_STRING(0, "benchmark", &p.benchmark, "NAME", "the benchmark (default: the workload's score prefix or command)"),
		OPT_STRING(0, "time", &when, "T", "when it was recorded: Unix seconds or a UTC date (default: the recording's start)"),
		OPT_BOOL('q', "quiet", &quiet, "print nothing on success"),
		OPT_END(),
	};
	char **pos = xcalloc(PUSH_MAX_FILES + 1, sizeof(*pos));
	struct store *s = NULL;
	struct outbuf out = { 0 };
	struct errmsg e = { "" };
	int n, i, ret = EXIT_ERROR;

	outbuf__init_file(&out, stdout, false);
	n = options__parse_anywhere(argc, argv, opts, push_usage, pos, PUSH_MAX_FILES);
	if (n < 0) {
		ret = n == -2 ? 0 : EXIT_ERROR;
		goto out;
	}
	if (!n || n > PUSH_MAX_FILES || !where || !p.commit) {
		error("%s; see 'mmprof push --help'",
			!n ? "expected a FILE to push" : n > PUSH_MAX_FILES ? "at most 4096 files at once" :
			!where ? "--store is required" : "--commit is required");
		goto out;
	}
	if (!*where) {
		error("--store: empty");
		goto out;
	}
	if (when && !(p.time = parse_time(when)))
		goto out;
	s = store__open(where, &e);
	if (!s) {
		error("%s", e.msg);
		goto out;
	}
	for (i = 0; i < n; i++) {
		struct store_pushed r;

		if (store__push(s, pos[i], &p, &r, &e) < 0) {
			error("%s", e.msg);
			goto out;
		}
		if (quiet)
			continue;
		outbuf__puts(&out, "mmprof: ");
		outbuf__text_str(&out, pos[i]);
		if (r.existed) {
			outbuf__printf(&out, ": in the store already (sha256 %.16s...); nothing pushed\n", r.hash);
			continue;
		}
		outbuf__printf(&out, ": push %lld, commit ", (long long)r.id);
		outbuf__text_str(&out, p.commit);
		outbuf__puts(&out, ", machine ");
		outbuf__text_str(&out, r.machine);
		outbuf__puts(&out, ", benchmark ");
		outbuf__text_str(&out, r.benchmark);
		outbuf__printf(&out, ": %zu run%s, %zu keys, %zu values\n", r.nr_runs, r.nr_runs == 1 ? "" : "s",
			       r.nr_keys, r.nr_values);
	}
	ret = 0;
out:
	outbuf__flush(&out);
	outbuf__release(&out);
	store__close(s);
	free(pos);
	return ret;
}
