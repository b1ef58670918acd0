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
	OPTION_END = 0,
	OPTION_BOOL,	/* int *: set to 1 (a --no-X form sets 0 when negatable) */
	OPTION_INTEGER,	/* int * */
	OPTION_DOUBLE,	/* double * */
	OPTION_STRING,	/* const char **: last one wins */
	OPTION_LIST,	/* struct strlist *: each use appends (also splits on ',' if OPT_SPLIT) */
	OPTION_CALLBACK,	/* int (*cb)(void *value, const char *arg): 0 or -1 (message printed) */
	OPTION_GROUP,	/* a heading in --help (help is the heading text) */
};

#define OPT_SPLIT	1	/* OPTION_LIST: split the argument on commas */
#define OPT_NEGATABLE	2	/* OPTION_BOOL: also accept --no-<long> */
/*
 * OPTION_INTEGER is always 0 or more (counts, sizes, a run's index: -1 marks
 * a default).  OPTION_DOUBLE (long options only) is always finite and 0 or
 * more; with OPT_FRACTION above 0 and at most 1 (a probability), with
 * OPT_POINTS at most 100 (points of a share).
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
 * A table is written with these, one row an option, in the manner of git's
 * parse-options: s the short name (0: none), l the long name (NULL: none),
 * v where the value lands, a the argument's name in --help, h the help, f
 * the OPT_* flags above.  v's type is checked at compile time against what
 * the parser stores there (an int option given a double's address does not
 * build: "_Generic selector ... not compatible with any association"); only
 * OPT_CALLBACK's value is the callback's own business.
 */
#define OPT__VALUE(type, v)	_Generic((v), type: (v))

#define OPT_END()	{ OPTION_END, 0, NULL, NULL, NULL, NULL, 0, NULL }
#define OPT_GROUP(h)	{ OPTION_GROUP, 0, NULL, NULL, NULL, (h), 0, NULL }
#define OPT_BOOL_F(s, l, v, h, f) \
	{ OPTION_BOOL, (s), (l), OPT__VALUE(int *, v), NULL, (h), (f), NULL }
#define OPT_BOOL(s, l, v, h)	OPT_BOOL_F(s, l, v, h, 0)
#define OPT_INTEGER(s, l, v, a, h) \
	{ OPTION_INTEGER, (s), (l), OPT__VALUE(int *, v), (a), (h), 0, NULL }
#define OPT_DOUBLE_F(s, l, v, a, h, f) \
	{ OPTION_DOUBLE, (s), (l), OPT__VALUE(double *, v), (a), (h), (f), NULL }
#define OPT_DOUBLE(s, l, v, a, h)	OPT_DOUBLE_F(s, l, v, a, h, 0)
#define OPT_STRING(s, l, v, a, h) \
	{ OPTION_STRING, (s), (l), OPT__VALUE(const char **, v), (a), (h), 0, NULL }
#define OPT_LIST_F(s, l, v, a, h, f) \
	{ OPTION_LIST, (s), (l), OPT__VALUE(struct strlist *, v), (a), (h), (f), NULL }
#define OPT_LIST(s, l, v, a, h)	OPT_LIST_F(s, l, v, a, h, 0)
#define OPT_CALLBACK(s, l, v, a, h, cb) \
	{ OPTION_CALLBACK, (s), (l), (v), (a), (h), 0, (cb) }

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
 * *alloc); 0, or -1 after one error line (a malformed list, a pid that
 * does not exist).
 */
int options__parse_pids(const char *list, pid_t **pids, size_t *nr,
			size_t *alloc);

/* Print usage lines and the option table to stdout. */
void options__usage(const struct option_desc *opts, const char *const *usage);

#endif
