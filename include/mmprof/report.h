/*
 * report: the views `mmprof report` prints (the tree, folded stacks, JSON,
 * the unresolved-frames report and the warnings every view repeats), built
 * on the symbol-level view of the profile and the keys of keys.h.
 *
 * Each view is one pass over a struct symview (symview.h) or the profile's
 * samples; none keeps state between calls.  Workload: one view per
 * command, a file of up to a few hundred thousand trie nodes.
 */
#ifndef MMPROF_REPORT_H
#define MMPROF_REPORT_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "mmprof/outbuf.h"
#include "mmprof/profile.h"

/* The event's index by perf name or LKP name ("cycles:pp", "cycles-pp"); -1 if none. */
int report__find_event(const struct profile *p, const char *name);

/*
 * report --unresolved: the samples of event (-1: the first) whose address
 * has no name, and those whose caller has none (frame pointers missing),
 * per DSO with the likely cause; see src/report/unresolved.c.  0 or -EIO.
 */
int report__unresolved(const struct profile *p, int event, struct outbuf *out);

/*
 * One line for the reader of any other view when names or stacks are
 * missing on a scale that changes the answer: a DSO holding at least
 * REPORT_WARN_UNRESOLVED_PCT % of the samples unresolved, or at least
 * REPORT_WARN_SHORT_PCT % of them in user stacks that stop short of main
 * (no frame pointers).  buf, or NULL when nothing is worth a warning.
 */
#define REPORT_WARN_UNRESOLVED_PCT 10.0
#define REPORT_WARN_SHORT_PCT 20.0
const char *report__unresolved_warning(const struct profile *p, int event, char *buf, size_t size);

/*
 * One line when the file's runs lost samples (runs.lost > 0): the count, its
 * share of all samples (kept + lost, as record prints it) and how many runs
 * lost some.  buf, or NULL when nothing was lost.
 */
const char *report__lost_warning(const struct profile *p, char *buf, size_t size);

/* Options of the tree view; zero means the default. */
struct tree_opts {
	int event;		/* event index */
	bool caller;		/* graph toward callees (perf -g caller) */
	double percent_limit;	/* entries and graph nodes under this are hidden */
	bool no_graph;		/* entries only */
};

int report__tree(const struct profile *p, const struct tree_opts *o, struct outbuf *out);

struct folded_opts {
	int event;		/* event index, or -1: all events summed */
	bool period;		/* weigh by period instead of samples */
	bool comm;		/* first frame is the command name */
	int run;		/* run index, or -1: all runs */
	bool one_pid;		/* only the samples of process pid */
	uint32_t pid;
};

int report__folded(const struct profile *p, const struct folded_opts *o, struct outbuf *out);

struct json_opts {
	bool tree;		/* include the call tree of each event */
	double percent_limit;
};

int report__json(const struct profile *p, const struct json_opts *o, struct outbuf *out);

/*
 * `mmprof report --tracepoints`: from the tracepoint.* metrics, per event
 * its mean count over runs, then per field the values by mean count.
 * Returns 0 or -errno; prints to out (src/report/tracepoints.c; trace.h
 * records them).
 */
int tpstats__report(const struct profile *p, struct outbuf *out);

#endif
