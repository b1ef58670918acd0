/*
 * diffengine: the diff engine — everything `mmprof diff` does between
 * reading its options and choosing its exit status, for each command that
 * compares recordings (diff; history and bisect call it the same way).
 *
 * A caller (1) names its sides (struct diff_side, diffside.h: a name and
 * the paths of the files whose runs it pools; two sides, or a base and up
 * to DIFF_MAX_COLUMNS compared columns), (2) fills struct diff_engine_opts
 * (zero means default), (3) calls diff_engine__run, which loads the files
 * (two at a time), leaves --drop-run's runs out, refuses a side whose
 * workload failed in every run and sides of different sampling events
 * (unless told), builds the costs per op on a helper thread while the keys
 * are compared, compares the base with every column (one diff each, with
 * its own statistics), compares the costs, gives the freed tries back to
 * the system (malloc_trim) and selects the rows an output shows; then
 * (4) reads the rows and their verdicts in struct diff_result, or writes
 * the documents: diff_report__write for the one on stdout (the robot's
 * table, JSON with its call chains, CSV, markdown), diff_report__files
 * for the HTML report, JUnit XML and the markdown summary (one of each
 * per column).  Gates (gate.h) read the result's diffs; the command
 * evaluates them and says what tripped.
 *
 *	struct diff_side s[2] = { { .name = "base", .paths = &a, .nr = 1 },
 *				  { .name = "new", .paths = &b, .nr = 1 } };
 *	struct diff_engine_opts o = { .say = print_line };
 *	struct diff_result r;
 *	if (diff_engine__run(&o, s, 2, &r) == 0)
 *		diff_report__write(&out, &r, DIFF_FORMAT_LKP);
 *	diff_result__release(&r);
 *
 * A side may come already opened: a caller that set its profiles[] (nr
 * of them, from datafile__load or a store) has them keyed, not loaded
 * again; its paths name them in the outputs all the same.
 *
 * Nothing here prints: every error, warning and note is one line handed
 * to opts.say as it happens, in the order a reader should see them; the
 * caller prefixes and prints it.  diff_engine__run's error is the last
 * line said.
 *
 * Memory: the keys of every run (one double per key and run, diff.h) and
 * the costs' keys live until the result is released, except with -g and
 * keep_rows false, when the table is written first and the keys freed
 * before the call chains take their place (diff_result__done_with_rows;
 * Documentation/performance.md measures it).
 */
#ifndef MMPROF_DIFFENGINE_H
#define MMPROF_DIFFENGINE_H

#include <stdbool.h>
#include <stddef.h>

#include "mmprof/chains.h"
#include "mmprof/ciout.h"
#include "mmprof/cost.h"
#include "mmprof/diff.h"
#include "mmprof/diffside.h"
#include "mmprof/outbuf.h"
#include "mmprof/strlist.h"

/* What a line said to diff_engine_opts.say is; the caller chooses its prefix. */
enum diff_say {
	DIFF_SAY_ERROR,		/* the comparison cannot go on ("nothing to compare") */
	DIFF_SAY_FILE,		/* a file could not be read or written: errmsg.h's line, naming it */
	DIFF_SAY_WARNING,	/* the comparison goes on, and may mislead */
	DIFF_SAY_ALERT,		/* a warning no reader may miss: --force's (its text says WARNING) */
	DIFF_SAY_NOTE,		/* for information */
};

struct diff_engine_opts {
	struct diff_opts stats;	/* the statistics (diff.h); robot and ambient set by the caller */
	bool all;		/* every row (--all) */
	bool robot;		/* the robot's rows (--robot), and no costs in the outputs */
	bool cost;		/* the table of cost rows too (--cost) */
	bool callchains;	/* -g: the changed call chains after the table */
	int limit;		/* at most this many call chains; 0: 20 */
	bool force;		/* compare sides of different sampling events */
	bool allow_failed;	/* compare a side whose workload failed in every run */
	const char *per;	/* the costs' work count key; NULL: the workload's .ops */
	const struct strlist *drop_run;	/* "SIDE:N" runs left out; NULL: none */
	/*
	 * The rows are read after the report on stdout (gates, HTML, JUnit,
	 * summary): with -g, they are kept while the call chains are built.
	 */
	bool keep_rows;
	/*
	 * The call chains are read after the report on stdout (the HTML's
	 * flame graph by share): -g's are kept for it, not computed twice,
	 * and the files' collapses (diff_side.views) for its paths, until
	 * the last column's graphs are drawn.
	 */
	bool keep_chains;
	void (*say)(void *arg, enum diff_say kind, const char *line);
	void *say_arg;
};

/*
 * A comparison's outcome.  d[k] compares the base with column k (side
 * k + 1), dc[k] their costs per op (d[k].cost points to it when they
 * were compared); rows/n the rows the outputs show (diff__select, or
 * diff__select_columns with several columns: n rows of nd), crows/cn the
 * cost rows a table of costs shows (one column, not --robot).
 */
struct diff_result {
	struct diff_engine_opts o;
	struct diff_side *s;		/* the caller's sides, loaded here */
	size_t nr_sides, nd;		/* nd = nr_sides - 1 compared columns */
	bool multi;			/* more than one compared column */
	size_t values_left;		/* of DIFF_MAX_VALUES, for the tables not yet made */
	struct diff d[DIFF_MAX_COLUMNS], dc[DIFF_MAX_COLUMNS];
	struct diff_opts co[DIFF_MAX_COLUMNS];	/* each column's statistics (--force's alias) */
	char alias_from[DIFF_MAX_COLUMNS][128], alias_to[DIFF_MAX_COLUMNS][128];
	bool forced[DIFF_MAX_COLUMNS];	/* column k was compared because of --force */
	char ev[DIFF_MAX_COLUMNS + 1][512];	/* each side's sampling events */
	const char *col_names[DIFF_MAX_COLUMNS];	/* the sides' names, columns only */
	struct cost_sides cs;
	enum diff_select sel;
	const struct diff_row **rows, **crows;
	size_t n, cn;
	double min_points, alpha;	/* the statistics' effect floor and FDR level, defaults filled in */
	/*
	 * Per column, the table's perf-profile.children rows of the first
	 * sampling event: the verdicts that -g's paths and the flame graph's
	 * colours take for a function (chains.h), kept when the rows are
	 * freed.
	 */
	struct chain_fns fns[DIFF_MAX_COLUMNS];
	bool rows_gone;			/* diff_result__done_with_rows freed them */
	/* -g's call chains of column k, kept (keep_chains) until the HTML report draws them */
	struct chain_diff chains[DIFF_MAX_COLUMNS];
	bool have_chains[DIFF_MAX_COLUMNS];
};

/*
 * Compare the nr_sides sides s (named, loaded here unless opened) as
 * described at the top; r is initialised here and borrows s.  0, or
 * -errno with the reason said.  Release r either way.
 */
int diff_engine__run(const struct diff_engine_opts *o, struct diff_side *s, size_t nr_sides,
		     struct diff_result *r);
/* Free r's diffs, costs and rows, and release its sides (diff_side__release). */
void diff_result__release(struct diff_result *r);

/*
 * The rows will not be read again: without keep_rows and with one
 * column, free the diffs, the costs and the sides' keys (not their
 * profiles), and give the pages back, before -g's call chains need the
 * memory.  Else nothing.
 */
void diff_result__done_with_rows(struct diff_result *r);

/*
 * The table's perf-profile.children rows of event (perf's spelling) for
 * profiles the caller holds and keeps (keyed here, run for run as a diff
 * keys them, and tested as diff_engine__run tests them, paired when the
 * files are pairs, through diff_engine__run's own steps): the verdicts
 * that a picture drawn apart from a diff (mmprof flamegraph BASE NEW)
 * gives a function's frames.  paths name the files in messages.  0, or
 * -errno with e (-E2BIG: past the values a comparison may hold).
 */
int diff_engine__functions(struct chain_fns *f, struct profile *const *base, size_t nbp,
			   struct profile *const *cur, size_t nnp, char **paths, const char *event,
			   const struct diff_opts *o, struct errmsg *e);

/*
 * The changed call chains of column k (the base against side k + 1) on
 * the first sampling event and the runs the table compared, into cd
 * (chains.h; release it).  0 or -EINVAL (no runs of the event).  The
 * last column's, unless keep_chains, is the views' last reader: it drops
 * them (diff_result__drop_views).
 */
int diff_result__chains(struct diff_result *r, size_t k, struct chain_diff *cd);
/*
 * The files' collapses (diff_side.views) go.  Their last reader drops
 * them: the costs' builder (neither -g nor keep_chains), the last
 * column's -g chains (not keep_chains), or its HTML.  Chains asked for
 * later collapse their files themselves.
 */
void diff_result__drop_views(struct diff_result *r);
/* cd (diff_result__chains' of column k) kept in r when keep_chains, else released. */
void diff_result__keep_chains(struct diff_result *r, size_t k, struct chain_diff *cd);
/* Column k's kept chains released (none kept: nothing). */
void diff_result__drop_chains(struct diff_result *r, size_t k);

/*
 * The document on stdout, whole, into out (its colour mode set by the
 * caller): the lkp header with the cost attribution and the robot's
 * table, JSON with its members (sides, costs, call chains), CSV or
 * markdown, as r's options ask.  With -g, frees the rows on the way
 * (diff_result__done_with_rows).
 */
void diff_report__write(struct outbuf *out, struct diff_result *r, enum diff_format fmt);

/*
 * The files beside the document: html, junit, summary (NULL: not
 * written) for every compared column (several columns: FILE-NAME.EXT
 * each, and FILE the page choosing between the HTML reports), the JUnit
 * and summary files only of column gate_column when it is >= 0; gates
 * the CI outputs show.  Each file whole or not at all.  0, or -errno
 * (said) at the first that failed.
 */
struct diff_report_files {
	const char *html, *junit, *summary;
	long gate_column;
	const struct ci_gates *gates;
};
int diff_report__files(struct diff_result *r, const struct diff_report_files *f);

#endif
