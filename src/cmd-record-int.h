/*
 * cmd-record-int.h: what cmd-record.c (options, checks, the loop of runs),
 * cmd-record-run.c (one side's recording: events, symbols, session, runs,
 * progress, summary, save) and cmd-record-pair.c (--interleave's meta and
 * --budget's score verdict) share.  Calls go one way: cmd-record.c ->
 * cmd-record-pair.c -> cmd-record-run.c, and cmd-record.c -> cmd-record-run.c.
 */
#ifndef MMPROF_CMD_RECORD_INT_H
#define MMPROF_CMD_RECORD_INT_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "mmprof/benchout.h"
#include "mmprof/errmsg.h"
#include "mmprof/sampler.h"
#include "mmprof/strlist.h"
#include "mmprof/target.h"

struct record_opts {
	struct strlist events;
	const char *pid_list;
	int system_wide;
	const char *cpu_list;
	double duration, delay;
	const char *output;
	int freq;
	const char *period_str;
	int repeat;
	int interval_ms;
	int no_stat;
	int strict_freq;
	int mmap_pages;
	int callchain;
	enum call_graph call_graph;	/* --call-graph */
	bool call_graph_given;		/* --call-graph on the command line */
	uint32_t stack_size;		/* --call-graph dwarf,SIZE */
	int inline_frames;
	const char *vmlinux;		/* --vmlinux: kernel DWARF for inline chains */
	int quiet;
	int sched;
	int mm;
	struct strlist fields;
	const char *ops_pattern;	/* --ops-pattern REGEX */
	const char *ops_name;		/* --ops-name NAME: the key NAME.ops */
	int children;			/* --children: -p's running descendants too */
	const char *interleave;		/* --interleave FILE: a second command's runs, ABBA */
	int budget;			/* --budget N: pairs at most, until the score is clear */
	const char *score;		/* --score KEY: the metric --budget judges */
};

/* Everything one record needs, passed down instead of kept in globals. */
struct record {
	struct record_opts *o;
	struct target_spec target;	/* mode, and whether a command runs */
	char **cmd_argv;		/* the command, NULL without one */
	pid_t *pids;			/* -p */
	size_t nr_pids, alloc_pids;
	size_t nr_unfollowed;		/* -p's running descendants left out (no --children) */
	pid_t unfollowed;		/* one of them, to name */
	uint64_t period;
	uint64_t stack_budget;		/* bytes for distinct chains (stackagg.h) */
	size_t stack_nodes;		/* the trie's nodes at most (stackagg.h) */
	char spill_dir[4096];		/* the output's folder: chains past the budget (chainspill.h) */
	struct profile *p;
	struct symbols *syms;
	struct recsession *sess;
	bool progress;			/* a terminal on stderr and not -q */
	bool progress_shown;
	char kernel_warning[512];	/* kallsyms unusable: said at the start unless sampling is user-only */
	struct benchout_opts bench;	/* --ops-pattern */
	uint32_t nr_failed;		/* runs whose workload failed */
	char failed_status[80];		/* the first one's: "run 1: exit status 1" */
	/*
	 * --interleave: the other side's record (NULL without), and the
	 * copy of the first command's words this record owns (argv holds
	 * both commands; NULL for the second, which ends argv).
	 */
	struct record *other;
	char **own_argv;
	bool second;			/* the second side: the setup's notes are the first's */
};

/* cmd-record-run.c */
int recordcmd__check_output(const char *path, struct errmsg *e);
int recordcmd__begin(struct record *rec, int argc, char **argv, bool events, struct errmsg *e);
int recordcmd__run(struct record *rec, uint32_t run);
int recordcmd__save(struct record *rec, bool interrupted, struct errmsg *e);
void recordcmd__progress_clear(struct record *rec);

/* cmd-record-pair.c */
void recordcmd__interleave_meta(struct record *rec, const char *side);
bool recordcmd__budget_done(struct record *rec, uint32_t pairs);

#endif
