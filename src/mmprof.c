/*
 * mmprof: main and the command table.
 *
 * Finds the subcommand, runs it, and checks that stdout was written and
 * closed without error (a full disk or a closed pipe must not pass as
 * success).
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "mmprof/cmd.h"
#include "mmprof/strdist.h"

struct command {
	const char *name;
	int (*fn)(int argc, char **argv);
	const char *summary;
};

static const struct command commands[] = {
	{ "record",  cmd_record,  "run a workload (or watch pids/the system) and write a .data file" },
	{ "stat",    cmd_stat,    "count events of a command like perf stat (mean +- error over -r runs)" },
	{ "report",  cmd_report,  "show a .data file: LKP keys, call tree, folded stacks, JSON" },
	{ "diff",    cmd_diff,    "compare two sets of runs: the robot's table with significance, CI gates" },
	{ "flamegraph", cmd_flamegraph, "draw an interactive SVG flame graph, or the differential graph of two files" },
	{ "export",  cmd_export,  "write a .data file as folded stacks, pprof or JSON" },
	{ "import",  cmd_import,  "make a .data file from perf.data or perf script text" },
	{ "resolve", cmd_resolve, "name the frames a .data file left unresolved, from perf maps and debuginfo that arrived since" },
	{ "history", cmd_history, "the trend of every key in a results store: change points, and the functions that moved" },
	{ "push",    cmd_push,    "keep .data files in a results store (SQLite file or PostgreSQL), by commit" },
	{ "bisect",  cmd_bisect,  "find the first bad commit of a regression, with runs spent where the noise needs them" },
	{ "strip",   cmd_strip,   "remove kernel addresses and host identity from a .data file before sharing it" },
	{ "help",    cmd_help,    "show the manual page of a command" },
	{ "version", cmd_version, "print mmprof's version" },
};

int cmd__exists(const char *name)
{
	size_t i;

	for (i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
		if (!strcmp(commands[i].name, name))
			return 1;
	return 0;
}

static void usage(FILE *f)
{
	size_t i;

	fprintf(f, "usage: mmprof <command> [options] [args]\n\ncommands:\n");
	for (i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
		fprintf(f, "    %-10s %s\n", commands[i].name, commands[i].summary);
	fprintf(f, "\n'mmprof <command> --help' lists a command's options; "
		   "'mmprof help <command>' shows its manual.\n");
}

int cmd_version(int argc, char **argv)
{
	(void)argc;
	(void)argv;
	printf("mmprof %s\n", MMPROF_VERSION);
	return 0;
}

int main(int argc, char **argv)
{
	const char *name;
	size_t i;
	int ret;

	if (argc < 2) {
		usage(stderr);
		return EXIT_ERROR;
	}
	name = argv[1];
	if (!strcmp(name, "--help") || !strcmp(name, "-h")) {
		usage(stdout);
		return 0;
	}
	if (!strcmp(name, "--version"))
		name = "version";
	for (i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
		if (!strcmp(commands[i].name, name))
			break;
	if (i == sizeof(commands) / sizeof(commands[0])) {
		const char *near = NULL;

		for (i = 0; i < sizeof(commands) / sizeof(commands[0]) && !near; i++)
			if (strdist__within(name, commands[i].name, strdist__typo_max(commands[i].name)))
				near = commands[i].name;
		if (near)
			fprintf(stderr, "mmprof: '%s' is not a command; did you mean 'mmprof %s'?\n",
				name, near);
		else
			fprintf(stderr, "mmprof: '%s' is not a command; see 'mmprof --help'\n", name);
		return EXIT_ERROR;
	}
	ret = commands[i].fn(argc - 1, argv + 1);

	if (fflush(stdout) || ferror(stdout) || fclose(stdout)) {
		if (errno != EPIPE) {
			fprintf(stderr, "mmprof: cannot write output: %s\n", strerror(errno));
			return EXIT_ERROR;
		}
	}
	return ret;
}
