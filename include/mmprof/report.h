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

#include "mmprof/errmsg.h"
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

/*
 * Samples of event (-1: every event) whose sampled address has no name:
 * those perf report -U, and so the LKP keys, leave out.  *total: all the
 * samples of event.
 */
uint64_t report__unnamed(const struct profile *p, int event, uint64_t *total);

/*
 * The one line every view gives about them: how much of the total, and
 * whether the view counts them (counted: as "[unknown]" frames, perf's
 * default) or leaves them out (the LKP keys' -U rule).  buf.
 */
const char *report__unnamed_line(const struct profile *p, int event, bool counted, char *buf,
				 size_t size);

/*
 * One function of report__entries: names borrowed from the profile (dso
 * NULL for "[unknown]" of no mapping), shares in % of every sample's
 * period, summed over runs.
 */
struct report_entry {
	const char *sym, *dso;
	const char *comm;	/* report__comm_entries: the command; else NULL */
	bool kernel;
	double children, self;
};

/* perf shows a DSO by its file name ("libc.so.6"), "[kernel.kallsyms]" as is. */
const char *report__dso_short(const char *dso);

/*
 * The (command, DSO, symbol) entries of event, perf report's default
 * --sort comm,dso,sym, for a system-wide recording where many commands
 * share the functions: each command's children and self shares of the
 * event's whole total, those at or above floor_pct, by children.  One
 * symview and a pass per command (each count once).  Allocated, the
 * caller frees; comm, sym and dso borrowed from p.
 */
struct report_entry *report__comm_entries(const struct profile *p, int event, double floor_pct,
					  size_t *nr);

/*
 * The entries of event whose children share is at or above floor_pct, by
 * children, unresolved frames as "[unknown]" (one per DSO with
 * unknown_by_dso).  Allocated, the caller frees; NULL and *nr 0 when there
 * is nothing.
 */
struct report_entry *report__entries(const struct profile *p, int event, bool unknown_by_dso,
				     double floor_pct, size_t *nr);

/*
 * The children and self (v->nr_entries each) of event's period over every
 * run, and its total, as they would be with every chain of v's profile
 * whole in its trie (p->whole, chainsrc.h): the trie's cells not under an
 * "[elided]" node, cumulated as symview__cumulate does, and each chain of
 * p->whole counted once in every entry it holds (one walk of the stream:
 * keys.h's chainkeys__each_entries).  "[elided]" gets 0, so that no entry
 * line names it.  Without p->whole: symview__weights and cumulate.
 * nr_cut (may be NULL): v->nr_cut with every chain whole, the distinct
 * stacks deeper than v->max_stack (the trie's not under "[elided]", and
 * the chains'; every chain counts in a view that keeps unresolved and
 * inline frames, as --tree's).
 */
struct symview;
double report__whole_entries(const struct symview *v, uint32_t event, double *children,
			     double *self, uint64_t *nr_cut);

/*
 * Views whose stdout is a line format (keys, folded, export) give that line
 * on stderr, and only from REPORT_NOTE_UNNAMED_PCT % of the samples of
 * event up: a few unnamed samples are in most recordings, and scripts read
 * a quiet stderr as a clean run.
 */
#define REPORT_NOTE_UNNAMED_PCT 1.0
bool report__unnamed_notable(const struct profile *p, int event);

/* perf report's default --max-stack: kernel.perf_event_max_stack's default */
#define REPORT_MAX_STACK 127
/* the most report --max-stack takes: N entries of up to N lines each must stay a page one can print */
#define REPORT_MAX_STACK_LIMIT 65535

/* Options of the tree view; zero means the default. */
struct tree_opts {
	int event;		/* event index */
	bool caller;		/* graph toward callees (perf -g caller) */
	double percent_limit;	/* entries and graph nodes under this are hidden */
	bool no_graph;		/* entries only */
	uint32_t max_stack;	/* innermost frames of a stack kept (0: REPORT_MAX_STACK) */
	size_t max_entries;	/* entries shown (0: all above percent_limit) */
	size_t max_graphs;	/* entries with their graph (0: all shown) */
	bool self_order;	/* entries by self share first (perf --no-children order) */
	bool no_header;		/* no "# Event" and unresolved lines (report's first screen) */
	size_t max_lines;	/* 0: REPORT_MAX_TREE_LINES */
};

/*
 * The lines report__tree prints, over every event asked for.  Each graph
 * is bounded by the percent limit (at most 100 / P nodes a level) and
 * max_stack (its levels), but their product over entries and events is
 * not: 256 events x 200 chains of 127 frames of their own, a 0.5 MB
 * file, drew more than 4 GB of graphs.  2^22 lines are about 300 MB and
 * a few seconds (robustness.md, What a reader may cost).
 */
#define REPORT_MAX_TREE_LINES ((size_t)1 << 22)

/*
 * 0, -EINVAL (no such event) or -E2BIG: more than o->max_lines lines,
 * counted before any is written.
 */
int report__tree(const struct profile *p, const struct tree_opts *o, struct outbuf *out);

/*
 * `mmprof report FILE`, the first screen: a header (workload, runs and
 * their status, events, samples, lost, the unresolved share, workload
 * metrics), then per event the top functions by children and by self,
 * the hottest with the call chains above REPORT_SUMMARY_CHAIN_PCT %: about a
 * screenful (src/report/summary.c).  path names the file.  0 or -errno.
 */
#define REPORT_SUMMARY_CHILDREN 12
#define REPORT_SUMMARY_SELF 4
#define REPORT_SUMMARY_CHAIN_PCT 5.0
int report__summary(const struct profile *p, const char *path, struct outbuf *out);

struct folded_opts {
	int event;		/* event index, or -1: all events summed */
	bool period;		/* weigh by period instead of samples */
	bool comm;		/* first frame is the command name */
	int run;		/* run index, or -1: all runs */
	bool one_pid;		/* only the samples of process pid */
	uint32_t pid;
};

/*
 * The frames of report__folded's lines, each its stack's depth (whole
 * chains' lines too): the lines are held whole to be sorted.  One chain of 65,535 frames with a sample
 * at each (a 1.2 MB file) is 2^31 frames, killed at 60 s after 15 GB.
 * 2^25 frames of 20 bytes are about 700 MB (robustness.md).
 */
#define REPORT_MAX_FOLDED_FRAMES ((uint64_t)1 << 25)

#define REPORT_FOLDED_TOO_BIG "its stacks are more frames than folded lines take (each line " \
	"its stack's depth, at most 2^25 in all; robustness.md); fold one run (--run N)"
/*
 * 0, -EINVAL (no such event or run) or -E2BIG (REPORT_MAX_FOLDED_FRAMES,
 * said as REPORT_FOLDED_TOO_BIG), before any line.  A profile with whole
 * chains (p->whole, chainsrc.h) folds them in place of the trie's cells
 * under "[elided]" nodes (wholestack.h), their frames in the budget; the
 * walk's own error (-EIO, -EPROTO) is returned as it is, before any line.
 */
int report__folded(const struct profile *p, const struct folded_opts *o, struct outbuf *out);

struct json_opts {
	bool tree;		/* include the call tree of each event */
	double percent_limit;
};

/*
 * 0 or -errno; -E2BIG, said in e, when its keys x runs pass
 * KEYS_MAX_VALUES (keys.h), before anything is written.
 */
int report__json(const struct profile *p, const struct json_opts *o, struct outbuf *out,
		 struct errmsg *e);

/*
 * `mmprof report --tracepoints`: from the tracepoint.* metrics, per event
 * its mean count over runs, then per field the values by mean count.
 * Returns 0 or -errno; prints to out (src/report/tracepoints.c; trace.h
 * records them).
 */
int tpstats__report(const struct profile *p, struct outbuf *out);

#endif
