/*
 * options: a command's options as one table, from which both the parser
 * (getopt_long underneath) and the --help text are made.
 *
 * Each cmd-<name>.c keeps its table local; values land in the command's own
 * options struct.  Parsing stops at the first non-option argument (or
 * "--"), so `mmprof record -F 99 -- cmd -x` leaves "cmd -x" to the command.
 */
#ifndef MMPROF_OPTIONS_H
#define MMPROF_OPTIONS_H

#include <stddef.h>
#include <sys/types.h>

#include "mmprof/strlist.h"

enum opt_type {
	OPT_END = 0,
	OPT_BOOL,	/* int *: set to 1 (a --no-X form sets 0 when negatable) */
	OPT_INT,	/* int * */
	OPT_DOUBLE,	/* double * */
	OPT_STRING,	/* const char **: last one wins */
	OPT_LIST,	/* struct strlist *: each use appends (also splits on ',' if OPT_SPLIT) */
	OPT_CALLBACK,	/* int (*cb)(void *value, const char *arg): 0 or -1 (message printed) */
	OPT_GROUP,	/* a heading in --help (help is the heading text) */
};

#define OPT_SPLIT	1	/* OPT_LIST: split the argument on commas */
#define OPT_NEGATABLE	2	/* OPT_BOOL: also accept --no-<long> */
/*
 * OPT_INT is always 0 or more (counts, sizes, a run's index: -1 marks a
 * default).  OPT_DOUBLE (long options only) is always finite and 0 or more; with
 * OPT_FRACTION above 0 and at most 1 (a probability), with OPT_POINTS at
 * most 100 (points of a share).
 */
#define OPT_FRACTION	4
#define OPT_POINTS	8

struct option_desc {
	enum opt_type type;
	int short_name;		/* 0 if none */
	const char *long_name;	/* NULL if none */
	void *value;
	const char *argname;	/* for options with an argument, e.g. "HZ" */
	const char *help;
	int flags;
	int (*cb)(void *value, const char *arg);
};

/*
 * Parse argv[1..] (argv[0] is the command name).  Returns the index of the
 * first argument that is not an option, or -1 after printing one error
 * line (caller exits 2), or -2 after printing --help (caller exits 0).
 */
int options__parse(int argc, char **argv, const struct option_desc *opts,
		   const char *const *usage);

/*
 * For commands whose options may also follow their arguments
 * ("mmprof export FILE -o OUT"): parse opts anywhere in argv, collect up
 * to max_pos + 1 positional arguments in pos (everything after "--" is
 * positional).  Returns how many were found (more than max_pos means too
 * many), or -1 / -2 as options__parse.
 */
int options__parse_anywhere(int argc, char **argv, const struct option_desc *opts,
			    const char *const *usage, char **pos, int max_pos);

/*
 * A -p PID[,PID...] argument: appends each pid to *pids (grown with
 * *alloc); 0, or -1 after one error line naming cmd (a malformed list, a
 * pid that does not exist).
 */
int options__parse_pids(const char *cmd, const char *list, pid_t **pids, size_t *nr,
			size_t *alloc);

/* Print usage lines and the option table to stdout. */
void options__usage(const struct option_desc *opts, const char *const *usage);

#endif
