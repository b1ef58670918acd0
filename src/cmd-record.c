/*
 * cmd-record: `mmprof record`: its options, their checks, and what it
 * prints; the recording itself is recsession's (recsession.h) and its
 * run loop's (runloop.h).
 *
 * Per run the session forks the workload blocked and/or takes the -p
 * pids or every CPU (target.h), opens sampling, --sched and counting on
 * them, releases it and loops until it exits: sampling window (--delay, --duration),
 * interval readings, the workload's stdout passed through.  Here: the
 * options, their checks and the loop of runs (ABBA with --interleave);
 * in cmd-record-run.c each side's setup, the progress line, the sampler's
 * notes, the workload's status after each run, and the summary; in
 * cmd-record-pair.c --interleave's meta and --budget's stop (the split:
 * cmd-record-int.h).  The file is written once, atomically, after the
 * last run.
 *
 * Signals: SIGINT, SIGTERM, SIGHUP and SIGQUIT set a flag; the loop forwards the
 * signal to the workload (SIGKILL two seconds later or on a second signal),
 * finishes the run, starts no further run and writes the file: the user
 * who pressed Ctrl-C gets the data recorded so far and exit status 0.
 * Handlers only set flags; they are installed without SA_RESTART so that
 * they cut the poll short.  SIGCHLD and SIGIO (workload output) wake the
 * loop the same way.
 *
 * Exit status: 0 when the file was written, 3 when it was written but the
 * workload failed in a run (a non-zero exit status or a signal other than
 * the user's stop), so that CI tells a broken workload from a broken
 * recording; 2 on an error (nothing written).
 */
#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "mmprof/cmd.h"
#include "mmprof/datafile.h"
#include "mmprof/message.h"
#include "mmprof/options.h"
#include "mmprof/outbuf.h"
#include "mmprof/profile.h"
#include "mmprof/recsession.h"
#include "mmprof/stackagg.h"
#include "mmprof/unwind.h"
#include "mmprof/stopsig.h"
#include "mmprof/symbols.h"
#include "mmprof/taskcount.h"
#include "mmprof/xalloc.h"

#include "cmd-record-int.h"

#define DEFAULT_FREQ		4000


/*
 * --call-graph fp | dwarf[,SIZE] | lbr (value: the record_opts).  Callchains
 * are on by default; with --no-callchain (in either order) validate refuses.
 */
static int parse_call_graph(void *value, const char *arg)
{
	struct record_opts *o = value;
	char *end;
	unsigned long size;

	o->call_graph_given = true;
	o->stack_size = UNWIND__STACK_DEFAULT;
	if (!strcmp(arg, "fp")) {
		o->call_graph = CALL_GRAPH_FP;
	} else if (!strcmp(arg, "lbr")) {
		o->call_graph = CALL_GRAPH_LBR;
	} else if (!strncmp(arg, "dwarf", 5) && (!arg[5] || arg[5] == ',')) {
		o->call_graph = CALL_GRAPH_DWARF;
		if (arg[5]) {
			errno = 0;
			size = strtoul(arg + 6, &end, 0);
			if (errno || *end || end == arg + 6 || !size || size % 8 ||
			    size > UNWIND__STACK_MAX) {
				error("--call-graph dwarf,%s: the stack size must "
					"be a multiple of 8 from 8 to %u", arg + 6, UNWIND__STACK_MAX);
				return -1;
			}
			o->stack_size = (uint32_t)size;
		}
	} else {
		error("--call-graph '%s': expected fp, dwarf[,SIZE] or lbr",
			arg);
		return -1;
	}
	return 0;
}

/*
 * -e: split on commas outside a PMU term list, so that
 * "cpu/event=0x3c,umask=0/,page-faults" is two events.
 */
static int add_events(void *value, const char *arg)
{
	struct strlist *l = value;
	const char *s = arg;

	while (*s) {
		const char *p = s;
		bool in_terms = false;
		char *item;

		for (; *p && (in_terms || *p != ','); p++)
			if (*p == '/')
				in_terms = !in_terms;
		if (p > s) {
			item = xstrndup(s, (size_t)(p - s));
			strlist__add(l, item);
			free(item);
		}
		s = *p ? p + 1 : p;
	}
	if (!l->nr) {
		error("empty event list in -e '%s'", arg);
		return -1;
	}
	return 0;
}

static const char *const record_usage[] = {
	"mmprof record [options] -- CMD [ARGS]",
	"mmprof record [options] -p PID[,PID...] [-- CMD [ARGS]]",
	"mmprof record [options] -a [-C CPU-LIST] [-- CMD [ARGS]]",
	"mmprof record [options] -o A.data --interleave B.data -- CMD-A [ARGS] -- CMD-B [ARGS]",
	NULL,
};

static bool is_pow2(int v)
{
	return v > 0 && (v & (v - 1)) == 0;
}

/*
 * --ops-pattern and --ops-name: compiled and named before anything runs,
 * so that a bad regex costs one line, not a recording.  -1 after printing.
 */
static int validate_ops(struct record *rec)
{
	struct record_opts *o = rec->o;
	struct errmsg e = { "" };

	if (!o->ops_pattern) {
		if (o->ops_name) {
			error("--ops-name needs --ops-pattern");
			return -1;
		}
		return 0;
	}
	if (!rec->cmd_argv) {
		error("--ops-pattern needs a command: it reads the "
			"command's output");
		return -1;
	}
	if (benchout_opts__set_ops(&rec->bench, o->ops_pattern, o->ops_name, rec->cmd_argv[0],
				   &e) < 0) {
		error("%s", e.msg);
		return -1;
	}
	return 0;
}

/*
 * --interleave: argv[first..] holds two commands, CMD-A [ARGS] -- CMD-B
 * [ARGS].  The first one's words are copied (then NULL) so that argv stays
 * whole for the stored command line; the second ends argv.  -1 after
 * printing.
 */
static int split_commands(struct record *rec, int argc, char **argv, int first,
			  char ***second)
{
	int k = first;

	while (k < argc && strcmp(argv[k], "--"))
		k++;
	if (rec->target.mode != TARGET_FORK || k == first || k >= argc - 1) {
		error("--interleave takes two commands and no -p or -a: "
			"-- CMD-A [ARGS] -- CMD-B [ARGS]");
		return -1;
	}
	if (!strcmp(rec->o->output, rec->o->interleave)) {
		error("--interleave '%s' is the -o file; name another",
			rec->o->interleave);
		return -1;
	}
	rec->own_argv = xcalloc((size_t)(k - first) + 1, sizeof(*rec->own_argv));
	memcpy(rec->own_argv, argv + first, (size_t)(k - first) * sizeof(*rec->own_argv));
	rec->cmd_argv = rec->own_argv;
	*second = argv + k + 1;
	return 0;
}

/* The checks options__parse cannot make: one line each, then exit 2. */
/* *out from the environment's name, lo to hi, else def; -1 after printing. */
static int knob_from_env(const char *name, const char *unit, uint64_t def, uint64_t lo,
			 uint64_t hi, uint64_t *out)
{
	const char *v = getenv(name);
	struct outbuf scratch = { 0 };
	char *end;

	*out = def;
	if (!v || !*v)
		return 0;
	errno = 0;
	*out = strtoull(v, &end, 10);
	if (errno || end == v || *end || v[0] == '-' || *out < lo || *out > hi) {
		error("invalid %s '%s'; expected %s from %llu to %llu",
			name, outbuf__text_safe(&scratch, v), unit, (unsigned long long)lo,
			(unsigned long long)hi);
		outbuf__release(&scratch);
		return -1;
	}
	return 0;
}

/*
 * The budget for distinct call chains (stackagg.h): STACKAGG_BUDGET, or
 * the bytes in MMPROF_STACK_BUDGET, past which the run's chains are
 * spilled (chainspill.h); and the trie's nodes, DATAFILE_TRIE_NODES (the
 * rule import follows too), or MMPROF_STACK_NODES, 3/4 of which record
 * fills as chains come, the chains past that sorted whole beside it
 * (chainsort.h) and taken in at the end (chaintake.h).  Not options: tests' knobs (t835 crosses a small budget
 * and a small trie with a short recording), as the second changes what a
 * recording keeps.
 * -1 after printing.
 */
static int stack_budget_from_env(struct record *rec)
{
	uint64_t nodes;

	if (knob_from_env("MMPROF_STACK_BUDGET", "bytes", STACKAGG_BUDGET, STACKAGG_BUDGET_MIN,
			  STACKAGG_BUDGET_MAX, &rec->stack_budget) ||
	    knob_from_env("MMPROF_STACK_NODES", "nodes", DATAFILE_TRIE_NODES, 1024,
			  DATAFILE_TRIE_NODES, &nodes))
		return -1;
	rec->stack_nodes = (size_t)nodes;
	return 0;
}

/*
 * -p's processes' running children: attached to with --children, else
 * counted, for the warning when the processes themselves took no sample.
 */
static void add_descendants(struct record *rec)
{
	pid_t *d;
	size_t n, i;

	if (taskcount__descendants(rec->pids, rec->nr_pids, &d, &n) < 0)
		return;
	if (!rec->o->children) {
		rec->nr_unfollowed = n;
		rec->unfollowed = n ? d[0] : 0;
		free(d);
		return;
	}
	for (i = 0; i < n; i++) {
		XGROW(rec->pids, rec->alloc_pids, rec->nr_pids);
		rec->pids[rec->nr_pids++] = d[i];
	}
	free(d);
}

static int validate(struct record *rec, int argc, char **argv, int first, char ***second)
{
	struct record_opts *o = rec->o;
	struct errmsg e = { "" };
	char *end;

	if (target__check(first < argc, o->pid_list, o->system_wide, o->cpu_list, "record",
			  &rec->target, &e) < 0) {
		error("%s", e.msg);
		return -1;
	}
	o->cpu_list = rec->target.cpu_list;	/* each CPU once (0-1,1 is 0-1) */
	rec->cmd_argv = rec->target.command ? argv + first : NULL;
	if (rec->o->interleave && split_commands(rec, argc, argv, first, second) < 0)
		return -1;
	if (o->budget && (!o->interleave || o->budget < o->repeat || o->budget > 10000)) {
		error("invalid --budget %d; expected pairs from -r (%d) to "
			"10000, with --interleave", o->budget, o->repeat);
		return -1;
	}
	if (o->score && !o->budget) {
		error("--score names what --budget judges; give --budget");
		return -1;
	}
	if (o->repeat != 1 && !rec->target.command) {
		error("-r needs a command to repeat");
		return -1;
	}
	if (o->repeat < 1 || o->repeat > 10000) {
		error("invalid value '%d' for -r; expected 1 to 10000",
			o->repeat);
		return -1;
	}
	/* either order: the later one would silently win over the other */
	if (o->call_graph_given && !o->callchain) {
		error("--no-callchain and --call-graph exclude each other; "
			"drop one");
		return -1;
	}
	if (o->freq != INT_MIN && o->period_str) {
		error("-F and -c exclude each other");
		return -1;
	}
	if (o->freq != INT_MIN && o->freq <= 0) {
		error("invalid value '%d' for -F; expected a frequency > 0",
			o->freq);
		return -1;
	}
	if (o->period_str) {
		errno = 0;
		rec->period = strtoull(o->period_str, &end, 0);
		if (errno || end == o->period_str || *end || !rec->period ||
		    o->period_str[0] == '-') {
			error("invalid value '%s' for -c; expected a period > 0",
				o->period_str);
			return -1;
		}
	}
	if (stack_budget_from_env(rec))
		return -1;
	if (!(o->duration >= 0 && o->duration < 1e7) || !(o->delay >= 0 && o->delay < 1e7)) {
		error("invalid --duration or --delay; expected seconds >= 0");
		return -1;
	}
	if (o->interval_ms < 0 || (o->interval_ms > 0 && o->interval_ms < 10)) {
		error("invalid value '%d' for -I; expected 0 (off) or >= 10 ms",
			o->interval_ms);
		return -1;
	}
	if (o->mmap_pages && !is_pow2(o->mmap_pages)) {
		error("invalid value '%d' for -m; expected a power of 2",
			o->mmap_pages);
		return -1;
	}
	if (!o->output[0]) {
		error("empty output file name");
		return -1;
	}
	if (rec->target.mode == TARGET_PID && options__parse_pids(o->pid_list, &rec->pids, &rec->nr_pids, &rec->alloc_pids) < 0)
		return -1;
	if (o->children && rec->target.mode != TARGET_PID) {
		error("--children follows the children of -p's processes; "
			"give -p PID (a command's children are always followed)");
		return -1;
	}
	if (rec->target.mode == TARGET_PID)
		add_descendants(rec);
	return validate_ops(rec);
}

/*
 * --interleave: rec2, the second command's recording into o2 (rec's
 * options but the file), paired with rec and begun.  0 or -1 (said).
 */
static int begin_second(struct record *rec, struct record *rec2, struct record_opts *o2, char **second,
			int argc, char **argv, struct errmsg *e)
{
	/* the same options but the file; the event lists are rec's, expanded once */
	*o2 = *rec->o;
	o2->output = rec->o->interleave;
	rec2->o = o2;
	rec2->target.mode = TARGET_FORK;
	rec2->target.command = true;
	rec2->cmd_argv = second;
	rec2->period = rec->period;
	rec2->stack_budget = rec->stack_budget;
	rec2->stack_nodes = rec->stack_nodes;
	rec2->progress = rec->progress;
	rec2->second = true;
	rec->other = rec2;
	rec2->other = rec;
	if (validate_ops(rec2) < 0 || recordcmd__begin(rec2, argc, argv, false, e) < 0)
		return -1;
	return 0;
}

int cmd_record(int argc, char **argv)
{
	struct record_opts o = {
		.output = "mmprof.data",
		.freq = INT_MIN,
		.repeat = 1,
		.interval_ms = 1000,
		.callchain = 1,
	};
	const struct option_desc opts[] = {
		OPT_GROUP("target (a command after '--', -p or -a; -p or -a with a command: for as long as it runs)"),
		OPT_STRING('p', "pid", &o.pid_list, "PID[,PID...]", "attach to running processes"),
		OPT_BOOL(0, "children", &o.children, "with -p: attach to their running child processes too (new ones are followed anyway)"),
		OPT_BOOL('a', "all-cpus", &o.system_wide, "system-wide, every CPU"),
		OPT_STRING('C', "cpu", &o.cpu_list, "CPU-LIST", "system-wide on these CPUs only (0-3,8); implies -a"),
		OPT_DOUBLE(0, "delay", &o.delay, "SEC", "start sampling SEC seconds after the start"),
		OPT_DOUBLE(0, "duration", &o.duration, "SEC", "sample for SEC seconds (-p/-a: record that long)"),
		OPT_INTEGER('r', "repeat", &o.repeat, "N", "run the command N times into one file"),
		OPT_GROUP("sampling and counting"),
		OPT_CALLBACK('e', "event", &o.events, "EVENT[,EVENT]", "sampling events (repeatable; tracepoint globs: sys:*); default cycles, else cpu-clock", add_events),
		OPT_INTEGER('F', "freq", &o.freq, "HZ", "sampling frequency (default 4000)"),
		OPT_STRING('c', "count", &o.period_str, "PERIOD", "sample every PERIOD events instead of -F"),
		OPT_BOOL_F('g', "callchain", &o.callchain, "record callchains (the default)", OPT_NEGATABLE),
		OPT_CALLBACK(0, "call-graph", &o, "fp|dwarf[,SIZE]|lbr", "user stacks: frame pointers (default), DWARF unwinding of SIZE (8192) bytes of stack, or the PMU's last branch records (LBR: Intel, a hardware event)", parse_call_graph),
		OPT_BOOL(0, "inline", &o.inline_frames, "expand frames into their inline chains (user: DWARF; kernel: a vmlinux, see --vmlinux)"),
		OPT_STRING(0, "vmlinux", &o.vmlinux, "PATH", "kernel image with DWARF (build-id of the running kernel): inline chains for kernel frames"),
		OPT_INTEGER('m', "mmap-pages", &o.mmap_pages, "PAGES", "ring buffer pages per CPU, a power of 2"),
		OPT_BOOL(0, "mm", &o.mm, "also sample the memory-management tracepoints this kernel has"),
		OPT_LIST_F(0, "field", &o.fields, "SYS:NAME/FIELD", "per-run histogram of a tracepoint field (repeatable)", OPT_SPLIT),
		OPT_BOOL(0, "sched", &o.sched, "scheduler latency by stack (perf-sched keys, offcpu event)"),
		OPT_STRING(0, "ops-pattern", &o.ops_pattern, "REGEX", "work done per run: the sum of the number in the first group of REGEX (POSIX extended) over the command's output lines that match, stored as NAME.ops"),
		OPT_STRING(0, "ops-name", &o.ops_name, "NAME", "the benchmark name of --ops-pattern's key NAME.ops (default: the command's file name)"),
		OPT_INTEGER('I', "interval", &o.interval_ms, "MS", "counter readings every MS ms (default 1000, 0: off)"),
		OPT_BOOL(0, "strict-freq", &o.strict_freq, "refuse a -F above kernel.perf_event_max_sample_rate (default: sample at that limit, with a warning)"),
		OPT_BOOL(0, "no-stat", &o.no_stat, "no perf-stat counters (less overhead per page fault)"),
		OPT_GROUP("output"),
		OPT_STRING('o', "output", &o.output, "FILE", "write FILE (default mmprof.data)"),
		OPT_BOOL('q', "quiet", &o.quiet, "no progress and no summary (warnings stay)"),
		OPT_STRING(0, "interleave", &o.interleave, "FILE", "also record a second command, after a second '--', into FILE: each of the -r runs of one command next to one of the other's, in ABBA order"),
		OPT_INTEGER(0, "budget", &o.budget, "N", "--interleave: after the -r pairs, add pairs until the score's verdict is clear or N pairs are made"),
		OPT_STRING(0, "score", &o.score, "GLOB", "the metric --budget judges: the first matching GLOB, as diff --score (default: the workload's *.ops_per_sec, *.throughput, ...)"),
		OPT_END(),
	};
	struct record rec, rec2;
	struct record_opts o2;
	struct errmsg e = { "" };
	char **second = NULL;
	uint32_t run;
	int first, ret = EXIT_ERROR, ret2, err;
	bool interrupted;

	memset(&rec, 0, sizeof(rec));
	memset(&rec2, 0, sizeof(rec2));
	rec.o = &o;
	first = options__parse(argc, argv, opts, record_usage);
	if (first == -2)
		return 0;
	if (first < 0)
		goto out;
	if (validate(&rec, argc, argv, first, &second) < 0)
		goto out;
	if (o.freq == INT_MIN)
		o.freq = rec.period ? 0 : DEFAULT_FREQ;
	if (recordcmd__check_output(o.output, &e) < 0 || (o.interleave && recordcmd__check_output(o.interleave, &e) < 0))
		goto out;
	err = stopsig__install();
	if (err) {
		error("cannot install signal handlers: %s", strerror(-err));
		goto out;
	}
	rec.progress = !o.quiet && isatty(STDERR_FILENO);
	if (recordcmd__begin(&rec, argc, argv, true, &e) < 0)
		goto out;
	if (o.interleave && begin_second(&rec, &rec2, &o2, second, argc, argv, &e) < 0)
		goto out;

	for (run = 0; run < (uint32_t)(o.budget ? o.budget : o.repeat) && !stopsig_count; run++) {
		/*
		 * ABBA: the side that runs first alternates from pair to pair,
		 * so that a drift of the machine (a linear one included) falls
		 * on both sides alike
		 */
		struct record *side = (run & 1) && rec.other ? rec.other : &rec;

		if (recordcmd__run(side, run) < 0)
			goto out;
		if (side->other && !stopsig_count && recordcmd__run(side->other, run) < 0)
			goto out;
		if (o.budget && run + 1 >= (uint32_t)o.repeat && !stopsig_count &&
		    recordcmd__budget_done(&rec, run + 1))
			break;
	}
	interrupted = stopsig_count != 0;
	recsession__finish(rec.sess, interrupted ? stopsig_last : 0);
	if (rec.other) {
		recsession__finish(rec2.sess, interrupted ? stopsig_last : 0);
		recordcmd__interleave_meta(&rec, "a");
		recordcmd__interleave_meta(&rec2, "b");
	}
	ret = recordcmd__save(&rec, interrupted, &e);
	if (rec.other && ret != EXIT_ERROR) {
		ret2 = recordcmd__save(&rec2, interrupted, &e);
		if (ret2)
			ret = ret2;
	}
out:
	if (rec.other) {
		benchout_opts__release(&rec2.bench);
		recsession__free(rec2.sess);
		symbols__free(rec2.syms);
		profile__free(rec2.p);
	}
	free(rec.own_argv);
	target_spec__release(&rec.target);
	benchout_opts__release(&rec.bench);
	recsession__free(rec.sess);
	strlist__release(&o.fields);
	symbols__free(rec.syms);
	profile__free(rec.p);
	free(rec.pids);
	strlist__release(&o.events);
	return ret;
}
