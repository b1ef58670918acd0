/*
 * cmd-record: `mmprof record`: its options, their checks, and what it
 * prints; the recording itself is recsession's (recsession.h) and its
 * run loop's (runloop.h).
 *
 * Per run the session forks the workload blocked and/or takes the -p
 * pids or every CPU (target.h), opens sampling, --sched and counting on
 * them, releases it and loops until it exits: sampling window (--delay, --duration),
 * interval readings, the workload's stdout passed through.  Here: the
 * progress line, the sampler's notes, the workload's status after each
 * run, and the summary.  The file is written once, atomically, after the
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
#include <inttypes.h>
#include <limits.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>

#include "mmprof/benchout.h"
#include "mmprof/cmd.h"
#include "mmprof/datafile.h"
#include "mmprof/diff.h"
#include "mmprof/evspec.h"
#include "mmprof/mmstate.h"
#include "mmprof/options.h"
#include "mmprof/outbuf.h"
#include "mmprof/outfile.h"
#include "mmprof/profile.h"
#include "mmprof/recsession.h"
#include "mmprof/stackagg.h"
#include "mmprof/sampler.h"
#include "mmprof/unwind.h"
#include "mmprof/stopsig.h"
#include "mmprof/symbols.h"
#include "mmprof/sysinfo.h"
#include "mmprof/target.h"
#include "mmprof/taskcount.h"
#include "mmprof/trace.h"
#include "mmprof/xalloc.h"

#define DEFAULT_FREQ		4000
#define PROGRESS_NS		(250 * 1000000LL)

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
				fprintf(stderr, "mmprof record: --call-graph dwarf,%s: the stack size must "
					"be a multiple of 8 from 8 to %u\n", arg + 6, UNWIND__STACK_MAX);
				return -1;
			}
			o->stack_size = (uint32_t)size;
		}
	} else {
		fprintf(stderr, "mmprof record: --call-graph '%s': expected fp, dwarf[,SIZE] or lbr\n",
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
		fprintf(stderr, "mmprof record: empty event list in -e '%s'\n", arg);
		return -1;
	}
	return 0;
}

/* The event list being built by expand_events: names, and which came from a glob. */
struct event_set {
	struct strlist names, keys;	/* keys: the display names (event_key) */
	bool *from_glob;
	size_t alloc_glob;
	bool adding_glob;
};

/* The display name two specs would share in the profile (the spec itself if unparsable). */
static void event_key(const char *spec, char *key, size_t size)
{
	struct evspec ev;

	if (evspec__parse(spec, &ev, NULL) == 0)
		snprintf(key, size, "%s", ev.name);
	else
		snprintf(key, size, "%s", spec);
}

/*
 * Add spec unless its event is there already: a glob's match that repeats
 * an event is dropped (globs overlap by nature), but an event written twice
 * would be two events under one name in the file (its counts merged under
 * one key): refused.
 */
static int event_set__add(void *ctx, const char *spec)
{
	struct event_set *set = ctx;
	char key[128];
	size_t i;

	event_key(spec, key, sizeof(key));
	for (i = 0; i < set->names.nr; i++) {
		if (strcmp(key, set->keys.items[i]))
			continue;
		if (set->adding_glob || set->from_glob[i])
			return 0;
		fprintf(stderr, "mmprof record: event '%s' is given twice (-e %s and -e %s); "
			"give each event once\n", key, set->names.items[i], spec);
		return -EEXIST;
	}
	strlist__add(&set->names, spec);
	strlist__add(&set->keys, key);
	XGROW(set->from_glob, set->alloc_glob, set->names.nr - 1);
	set->from_glob[set->names.nr - 1] = set->adding_glob;
	return 0;
}

/*
 * -e after parsing: tracepoint globs (huge_memory:*) expanded against
 * tracefs, as perf expands them, and duplicate events refused.  0 or -1
 * (message printed).
 */
static int expand_events(struct strlist *events)
{
	struct event_set set = { { NULL, 0, 0 }, { NULL, 0, 0 }, NULL, 0, false };
	struct errmsg e = { "" };
	size_t i;
	int err = 0;

	for (i = 0; i < events->nr && !err; i++) {
		set.adding_glob = evspec__is_glob(events->items[i]);
		if (!set.adding_glob) {
			err = event_set__add(&set, events->items[i]);
			continue;
		}
		err = evspec__glob(events->items[i], event_set__add, &set, &e);
		if (err == -EEXIST)
			break;
		if (err < 0) {
			fprintf(stderr, "mmprof record: %s\n", e.msg);
			break;
		}
		err = 0;
	}
	free(set.from_glob);
	strlist__release(&set.keys);
	if (err) {
		strlist__release(&set.names);
		return -1;
	}
	strlist__release(events);
	*events = set.names;
	return 0;
}

/*
 * --mm: the memory-management tracepoints this kernel has (sampled every
 * hit, so their per-run counts are exact and their callchains kept).
 * Without -e the profile event is cpu-clock (an explicit event list has no
 * cycles fallback).  The preset's names that this kernel lacks (an older
 * kernel, a config without THP or compaction) go into missing, comma
 * separated, for one note and the file's meta.
 */
static int add_mm_events(struct strlist *events, char *missing, size_t size)
{
	static const char *const mm[] = {
		"kmem:mm_page_alloc", "kmem:mm_page_free", "exceptions:page_fault_user",
		"huge_memory:mm_collapse_huge_page", "huge_memory:mm_khugepaged_scan_pmd",
		"thp:set_migration_pmd", "thp:remove_migration_pmd",
		"compaction:mm_compaction_begin", "compaction:mm_compaction_end",
		"migrate:mm_migrate_pages", "vmscan:mm_vmscan_direct_reclaim_begin",
		"mmap_lock:mmap_lock_start_locking", "mmap_lock:mmap_lock_acquire_returned",
	};
	struct errmsg e = { "" };
	const char *dir = evspec__tracefs(&e);
	char path[512];
	size_t i, n = 0;

	missing[0] = '\0';
	/* an unreadable tracefs is not a kernel without these tracepoints */
	if (!dir) {
		fprintf(stderr, "mmprof: --mm: %s\n", e.msg);
		return -1;
	}
	snprintf(path, sizeof(path), "%s/events", dir);
	if (access(path, R_OK | X_OK) < 0) {
		fprintf(stderr, "mmprof: --mm: cannot read '%s': %s; run as root\n", path,
			strerror(errno));
		return -1;
	}
	if (!events->nr)
		strlist__add(events, "cpu-clock");
	for (i = 0; i < sizeof(mm) / sizeof(mm[0]); i++) {
		/* sized by the name: a fixed buffer once cut the longer ones off */
		const char *colon = strchr(mm[i], ':');
		char *sys = xstrndup(mm[i], (size_t)(colon - mm[i]));
		size_t k;
		bool dup = false;

		for (k = 0; k < events->nr; k++)
			dup |= !strcmp(events->items[k], mm[i]);
		if (trace__exists(sys, colon + 1)) {
			if (!dup)
				strlist__add(events, mm[i]);
		} else if (n < size) {
			n += (size_t)snprintf(missing + n, size - n, "%s%s", n ? "," : "", mm[i]);
		}
		free(sys);
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
			fprintf(stderr, "mmprof record: --ops-name needs --ops-pattern\n");
			return -1;
		}
		return 0;
	}
	if (!rec->cmd_argv) {
		fprintf(stderr, "mmprof record: --ops-pattern needs a command: it reads the "
			"command's output\n");
		return -1;
	}
	if (benchout_opts__set_ops(&rec->bench, o->ops_pattern, o->ops_name, rec->cmd_argv[0],
				   &e) < 0) {
		fprintf(stderr, "mmprof record: %s\n", e.msg);
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
		fprintf(stderr, "mmprof record: --interleave takes two commands and no -p or -a: "
			"-- CMD-A [ARGS] -- CMD-B [ARGS]\n");
		return -1;
	}
	if (!strcmp(rec->o->output, rec->o->interleave)) {
		fprintf(stderr, "mmprof record: --interleave '%s' is the -o file; name another\n",
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
		fprintf(stderr, "mmprof record: invalid %s '%s'; expected %s from %llu to %llu\n",
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
 * rule import follows too), or MMPROF_STACK_NODES, past which a new chain
 * keeps its leaf.  Not options: tests' knobs (t835 crosses a small budget
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

/* A -p recording without a sample: say why, and what would follow the work (even with -q). */
static void warn_no_samples(const struct record *rec)
{
	if (rec->target.mode != TARGET_PID || recsession__totals(rec->sess)->samples)
		return;
	if (rec->nr_unfollowed)
		fprintf(stderr, "mmprof: warning: no samples: the attached process%s did not run on a CPU "
			"while attached, and %zu child process%s (pid %d%s) already ran when it began: "
			"the work is probably theirs; record -p %s --children attaches to them too "
			"(children started after the attach are followed anyway)\n",
			rec->nr_pids > 1 ? "es" : "", rec->nr_unfollowed,
			rec->nr_unfollowed > 1 ? "es" : "", (int)rec->unfollowed,
			rec->nr_unfollowed > 1 ? " among them" : "", rec->o->pid_list);
	else
		fprintf(stderr, "mmprof: warning: no samples: the attached process%s did not run on a "
			"CPU while attached (asleep, or another process does its work)\n",
			rec->nr_pids > 1 ? "es" : "");
}

static int validate(struct record *rec, int argc, char **argv, int first, char ***second)
{
	struct record_opts *o = rec->o;
	struct errmsg e = { "" };
	char *end;

	if (target__check(first < argc, o->pid_list, o->system_wide, o->cpu_list, "record",
			  &rec->target, &e) < 0) {
		fprintf(stderr, "mmprof record: %s\n", e.msg);
		return -1;
	}
	o->cpu_list = rec->target.cpu_list;	/* each CPU once (0-1,1 is 0-1) */
	rec->cmd_argv = rec->target.command ? argv + first : NULL;
	if (rec->o->interleave && split_commands(rec, argc, argv, first, second) < 0)
		return -1;
	if (o->budget && (!o->interleave || o->budget < o->repeat || o->budget > 10000)) {
		fprintf(stderr, "mmprof record: invalid --budget %d; expected pairs from -r (%d) to "
			"10000, with --interleave\n", o->budget, o->repeat);
		return -1;
	}
	if (o->score && !o->budget) {
		fprintf(stderr, "mmprof record: --score names what --budget judges; give --budget\n");
		return -1;
	}
	if (o->repeat != 1 && !rec->target.command) {
		fprintf(stderr, "mmprof record: -r needs a command to repeat\n");
		return -1;
	}
	if (o->repeat < 1 || o->repeat > 10000) {
		fprintf(stderr, "mmprof record: invalid value '%d' for -r; expected 1 to 10000\n",
			o->repeat);
		return -1;
	}
	/* either order: the later one would silently win over the other */
	if (o->call_graph_given && !o->callchain) {
		fprintf(stderr, "mmprof record: --no-callchain and --call-graph exclude each other; "
			"drop one\n");
		return -1;
	}
	if (o->freq != INT_MIN && o->period_str) {
		fprintf(stderr, "mmprof record: -F and -c exclude each other\n");
		return -1;
	}
	if (o->freq != INT_MIN && o->freq <= 0) {
		fprintf(stderr, "mmprof record: invalid value '%d' for -F; expected a frequency > 0\n",
			o->freq);
		return -1;
	}
	if (o->period_str) {
		errno = 0;
		rec->period = strtoull(o->period_str, &end, 0);
		if (errno || end == o->period_str || *end || !rec->period ||
		    o->period_str[0] == '-') {
			fprintf(stderr, "mmprof record: invalid value '%s' for -c; expected a period > 0\n",
				o->period_str);
			return -1;
		}
	}
	if (stack_budget_from_env(rec))
		return -1;
	if (!(o->duration >= 0 && o->duration < 1e7) || !(o->delay >= 0 && o->delay < 1e7)) {
		fprintf(stderr, "mmprof record: invalid --duration or --delay; expected seconds >= 0\n");
		return -1;
	}
	if (o->interval_ms < 0 || (o->interval_ms > 0 && o->interval_ms < 10)) {
		fprintf(stderr, "mmprof record: invalid value '%d' for -I; expected 0 (off) or >= 10 ms\n",
			o->interval_ms);
		return -1;
	}
	if (o->mmap_pages && !is_pow2(o->mmap_pages)) {
		fprintf(stderr, "mmprof record: invalid value '%d' for -m; expected a power of 2\n",
			o->mmap_pages);
		return -1;
	}
	if (!o->output[0]) {
		fprintf(stderr, "mmprof record: empty output file name\n");
		return -1;
	}
	if (rec->target.mode == TARGET_PID && options__parse_pids("record", o->pid_list, &rec->pids, &rec->nr_pids, &rec->alloc_pids) < 0)
		return -1;
	if (o->children && rec->target.mode != TARGET_PID) {
		fprintf(stderr, "mmprof record: --children follows the children of -p's processes; "
			"give -p PID (a command's children are always followed)\n");
		return -1;
	}
	if (rec->target.mode == TARGET_PID)
		add_descendants(rec);
	return validate_ops(rec);
}

/*
 * Fail before a long run, not after it, when the file cannot be written:
 * its folder is not writable, or the name is taken by something that is
 * not a regular file (a symlink, a folder), which datafile__save refuses
 * to replace.  Save checks again (the name may change meanwhile).
 */
/* The folder of path into dir (size bytes): "." for a bare name. */
static void output_dir(const char *path, char *dir, size_t size)
{
	char *slash;

	snprintf(dir, size, "%s", path);
	slash = strrchr(dir, '/');
	if (!slash)
		snprintf(dir, size, ".");
	else if (slash == dir)
		slash[1] = '\0';
	else
		*slash = '\0';
}

static int check_output_dir(const char *path)
{
	char *dir = xstrdup(path);
	struct errmsg e;
	int ret = 0;

	if (outfile__check_target(path, &e) < 0) {
		fprintf(stderr, "mmprof: %s\n", e.msg);
		free(dir);
		return -1;
	}
	output_dir(path, dir, strlen(dir) + 1);
	if (access(dir, W_OK | X_OK) < 0) {
		fprintf(stderr, "mmprof: cannot write '%s': %s\n", path, strerror(errno));
		ret = -1;
	}
	free(dir);
	return ret;
}

static void progress_clear(struct record *rec)
{
	if (rec->progress_shown) {
		fputs("\r\033[K", stderr);
		rec->progress_shown = false;
	}
}

/* runloop's on_progress: one line, rewritten in place */
static void progress_show(void *ctx, uint32_t run, int64_t elapsed_ns)
{
	struct record *rec = ctx;
	uint64_t samples = 0, lost = 0;

	recsession__progress(rec->sess, &samples, &lost);
	fprintf(stderr, "\r\033[Kmmprof: recording run %u/%d  %.1f s  %llu samples  %llu lost",
		run + 1, rec->o->repeat, (double)elapsed_ns / 1e9,
		(unsigned long long)samples, (unsigned long long)lost);
	rec->progress_shown = true;
}

/* runloop's on_output: the workload's output would be written over the progress line */
static void progress_clear_hook(void *ctx)
{
	progress_clear(ctx);
}

/* runloop's on_start: the sampler's notes, after the exec check (a missing binary gets one line) */
static void print_notes(void *ctx, uint32_t run, int64_t start_real_ns)
{
	struct record *rec = ctx;
	const struct sampler *s = recsession__sampler(rec->sess);
	bool first = run == 0 && !rec->second;

	if (first && !rec->o->quiet && sampler__note(s))
		fprintf(stderr, "mmprof: %s\n", sampler__note(s));
	/* user space only: that one warning covers the kernel's missing names too */
	if (first && sampler__user_note(s))
		fprintf(stderr, "mmprof: warning: %s\n", sampler__user_note(s));
	else if (first && rec->kernel_warning[0])
		fprintf(stderr, "mmprof: warning: %s; kernel frames stay unresolved\n",
			rec->kernel_warning);
	/* a warning, so even with -q: the file's frequency is not the one asked */
	if (sampler__freq_note(s))
		fprintf(stderr, "mmprof: warning: %s\n", sampler__freq_note(s));
}

/*
 * One run, and its lines: the workload's status, or the error.  0, or
 * -errno after printing one line (the record then writes nothing).
 */
static int record_run(struct record *rec, uint32_t run)
{
	struct runloop_result res;
	struct errmsg e = { "" };
	char what[64], of[PATH_MAX + 8] = "";
	int err = recsession__run(rec->sess, run, &res, &e);

	progress_clear(rec);
	/* --interleave: two files have a run of each number */
	if (rec->other)
		snprintf(of, sizeof(of), " of '%s'", rec->o->output);
	if (err) {
		fprintf(stderr, "mmprof: %s\n", e.msg[0] ? e.msg : strerror(-err));
		return err;
	}
	if (res.run.term_signal)
		fprintf(stderr, "mmprof: workload killed by SIG%s in run %u%s\n",
			sigabbrev_np(res.run.term_signal) ? sigabbrev_np(res.run.term_signal) : "?",
			run, of);
	else if (rec->target.command && res.run.exit_code)
		fprintf(stderr, "mmprof: workload exited with status %d in run %u%s\n",
			res.run.exit_code, run, of);
	/* the summary's sample count would not say why the profile stops (even with -q) */
	if (sampler__exec_note(recsession__sampler(rec->sess)))
		fprintf(stderr, "mmprof: warning: run %u%s: %s\n", run, of,
			sampler__exec_note(recsession__sampler(rec->sess)));
	/* no work count: say so, the cost per op of this run will be unknown */
	if (res.ops_over_budget)
		fprintf(stderr, "mmprof: warning: run %u%s: --ops-pattern took more than %.0f s of CPU "
			"on the command's output (a pattern that backtracks?); the rest was not "
			"matched: no %s stored\n", run, of, BENCHOUT_OPS_CPU, rec->bench.ops_key);
	else if (rec->bench.has_ops && !res.ops_matches)
		fprintf(stderr, "mmprof: warning: run %u%s: no output line matched --ops-pattern: "
			"no %s stored\n", run, of, rec->bench.ops_key);
	/* the run a stop signal cut short ended as the user asked: not a failure */
	if (run__status(&res.run, what, sizeof(what)) && !stopsig_count &&
	    !rec->nr_failed++)
		snprintf(rec->failed_status, sizeof(rec->failed_status), "run %u: %s", run,
			 what);
	return 0;
}

static void join_events(const struct strlist *asked, char *buf, size_t size)
{
	size_t i, n = 0;

	buf[0] = '\0';
	for (i = 0; i < asked->nr && n < size; i++)
		n += (size_t)snprintf(buf + n, size - n, "%s%s", i ? "," : "", asked->items[i]);
}

static void add_record_meta(struct record *rec, int argc, char **argv)
{
	struct record_opts *o = rec->o;
	char buf[1024];
	char **full = xcalloc((size_t)argc + 2, sizeof(*full));
	int i;

	/* argv[0] is "record": store the command line as typed */
	full[0] = (char *)"mmprof";
	for (i = 0; i < argc; i++)
		full[i + 1] = argv[i];
	sysinfo__add_cmdline(rec->p, argc + 1, full);
	free(full);

	profile__set_meta(rec->p, "record_mode", target__mode_name(rec->target.mode));
	if (o->events.nr) {
		join_events(&o->events, buf, sizeof(buf));
		profile__set_meta(rec->p, "events_asked", buf);
	} else {
		profile__set_meta(rec->p, "events_asked", "default");
	}
	if (rec->period) {
		snprintf(buf, sizeof(buf), "%llu", (unsigned long long)rec->period);
		profile__set_meta(rec->p, "sample_period", buf);
	} else {
		snprintf(buf, sizeof(buf), "%d", o->freq);
		profile__set_meta(rec->p, "sample_freq", buf);
	}
	snprintf(buf, sizeof(buf), "%d", o->interval_ms);
	profile__set_meta(rec->p, "interval_ms", buf);
	if (o->delay > 0) {
		snprintf(buf, sizeof(buf), "%g", o->delay);
		profile__set_meta(rec->p, "delay", buf);
	}
	if (o->duration > 0) {
		snprintf(buf, sizeof(buf), "%g", o->duration);
		profile__set_meta(rec->p, "duration", buf);
	}
	profile__set_meta(rec->p, "callchain", o->callchain ? "1" : "0");
	if (o->callchain && o->call_graph == CALL_GRAPH_DWARF) {
		char cg[32];

		snprintf(cg, sizeof(cg), "dwarf,%u", o->stack_size);
		profile__set_meta(rec->p, "call_graph", cg);
	}
	if (o->callchain && o->call_graph == CALL_GRAPH_LBR)
		profile__set_meta(rec->p, "call_graph", "lbr");
	if (rec->target.mode == TARGET_PID)
		profile__set_meta(rec->p, "target", o->pid_list);
	else if (rec->target.mode == TARGET_SYSTEM)
		profile__set_meta(rec->p, "target", o->cpu_list ? o->cpu_list : "all");
}

/*
 * Sampled JIT code whose perf map was not there at the end though its
 * process was started with the option that writes one (a JVM under -p
 * with -XX:+DumpPerfMapAtExit writes it when it exits, after us): say
 * how to name those frames later, even with -q.
 */
static void say_perfmaps_missing(const struct symbols *syms, const char *path)
{
	/* a path from a profiled program, and ours: through the text rule */
	struct outbuf scratch = { 0 }, word[2] = { { 0 }, { 0 } };
	size_t i, nr = symbols__nr_dsos(syms);
	int pid;

	for (i = 0; i < nr; i++) {
		struct dso_info di;

		symbols__dso(syms, i, &di);
		/*
		 * Only a JIT asked to write one: a map nobody asked for (a
		 * browser's JIT under -a) has report --unresolved's hint.
		 */
		if (!di.perfmap || !di.loaded || di.err != -ENOENT || !di.jit_flag)
			continue;
		if (di.jit_flag && !strcmp(di.jit_flag, "-XX:+DumpPerfMapAtExit") &&
		    sscanf(di.name, "/tmp/perf-%d.map", &pid) == 1)
			/* JDK 17+ writes the map on demand too */
			fprintf(stderr, "mmprof: warning: JIT code unnamed: %s is not written yet "
				"(its JVM runs with -XX:+DumpPerfMapAtExit, which writes it when the "
				"JVM exits, and record waits %g s for one quitting as the recording "
				"ends; 'jcmd %d Compiler.perfmap' writes it now); once it is, name "
				"those frames with: mmprof resolve %s\n",
				outbuf__text_safe(&scratch, di.name), SAMPLER_PERFMAP_WAIT_MS / 1000.0,
				pid, outbuf__shell_word(word, path));
		else
			fprintf(stderr, "mmprof: warning: JIT code unnamed: %s is not written yet "
				"(its process runs with %s, which writes it); once it is, name "
				"those frames with: mmprof resolve %s\n",
				outbuf__text_safe(&scratch, di.name), di.jit_flag,
				outbuf__shell_word(word, path));
		break;	/* one line: the others say the same */
	}
	outbuf__release(&scratch);
	outbuf__release(&word[0]);
	outbuf__release(&word[1]);
}

static void print_summary(struct record *rec, uint32_t nr_runs, bool interrupted)
{
	const struct recsession_totals *t = recsession__totals(rec->sess);
	const char *path = rec->o->output;
	struct stat sb;
	double size = 0, all;
	const char *unit = "B";

	if (!stat(path, &sb))
		size = (double)sb.st_size;
	if (size >= 1024 * 1024) {
		size /= 1024 * 1024;
		unit = "MiB";
	} else if (size >= 1024) {
		size /= 1024;
		unit = "KiB";
	}
	if (!rec->o->quiet || interrupted)
		fprintf(stderr, "mmprof: %s%u run%s, %llu samples, %llu lost, %llu throttled; "
			"wrote '%s' (%.*f %s)\n",
			interrupted ? "interrupted: " : "", nr_runs, nr_runs == 1 ? "" : "s",
			(unsigned long long)t->samples,
			(unsigned long long)t->lost,
			(unsigned long long)t->throttled,
			path, *unit == 'B' ? 0 : 1, size, unit);
	/* an empty file is not what --delay asked for: say why, even with -q */
	if (t->runs_before_delay == nr_runs)
		fprintf(stderr, "mmprof: warning: the workload ended within --delay %g s%s: no "
			"sampling window, no samples; lower --delay\n", rec->o->delay,
			nr_runs > 1 ? " in every run" : "");
	else if (t->runs_before_delay)
		fprintf(stderr, "mmprof: warning: the workload ended within --delay %g s in %u of %u "
			"runs: no samples from those runs; lower --delay\n", rec->o->delay,
			t->runs_before_delay, nr_runs);
	/* never silent about loss, even with -q */
	all = (double)(t->samples + t->lost);
	if (t->lost)
		fprintf(stderr, "mmprof: warning: %llu samples lost (%.1f%%); try -m %d or a lower -F\n",
			(unsigned long long)t->lost, 100.0 * (double)t->lost / all,
			rec->o->mmap_pages ? rec->o->mmap_pages * 4 : 1024);
	if (t->throttled)
		fprintf(stderr, "mmprof: warning: the kernel throttled sampling %llu times; "
			"lower -F or raise kernel.perf_event_max_sample_rate\n",
			(unsigned long long)t->throttled);
	if (t->stacks_cut)
		fprintf(stderr, "mmprof: warning: %llu samples (%.1f%%) kept only their innermost frame: "
			"their call chains were new when the trie of distinct chains was full (%zu "
			"nodes, what record keeps and every reader takes; meta stacks_cut_to_leaf); "
			"record fewer seconds or a lower -F\n",
			(unsigned long long)t->stacks_cut,
			t->samples ? 100.0 * (double)t->stacks_cut / (double)t->samples : 0.0,
			rec->stack_nodes);
	say_perfmaps_missing(rec->syms, path);
}

/*
 * What mmprof resolve --vmlinux needs to take a vmlinux found later: the
 * running kernel's build-id (to refuse another kernel's) and where
 * kallsyms put _text (KASLR's slide, perf's ref_reloc_sym).  Neither when
 * unknown: resolve then says it cannot check or place one.
 */
static void store_kernel_identity(struct record *rec)
{
	struct kernel_ref ref;
	char buf[80];

	if (!symbols__read_build_id_notes("/sys/kernel/notes", buf, sizeof(buf)))
		profile__set_meta(rec->p, "kernel_build_id", buf);
	if (!symbols__kernel_ref(rec->syms, &ref)) {
		snprintf(buf, sizeof(buf), "%s %#" PRIx64, ref.name, ref.addr);
		profile__set_meta(rec->p, "kernel_ref_reloc_sym", buf);
	}
}

/*
 * The kernel's symbols, and with --vmlinux or --inline its DWARF for
 * inline chains.  -1 after printing when --vmlinux cannot be used at all.
 */
static int load_symbols(struct record *rec, struct errmsg *e)
{
	struct record_opts *o = rec->o;
	int err;

	rec->syms = symbols__new();
	symbols__set_inline(rec->syms, o->inline_frames);
	err = symbols__load_kernel(rec->syms, e);
	if (err && !o->quiet)
		snprintf(rec->kernel_warning, sizeof(rec->kernel_warning), "%s", e->msg);
	store_kernel_identity(rec);
	/* BPF programs already loaded, at full length (root; else kallsyms' first page) */
	if (!err) {
		struct errmsg none = { "" };

		symbols__load_bpf_progs(rec->syms);
		/* module ranges, for addresses past a module's symbols; none without modules */
		symbols__load_modules(rec->syms, "/proc/modules", &none);
	}
	if (!o->vmlinux && !o->inline_frames)
		return 0;
	/*
	 * Kernel inline chains: --vmlinux asks for them; --inline looks for
	 * the running kernel's vmlinux and is silent when none is installed
	 * (the common case).
	 */
	e->msg[0] = '\0';
	err = symbols__load_vmlinux(rec->syms, o->vmlinux, e);
	if (o->vmlinux && err && err != -ESTALE && err != -ENOEXEC && err != -ENODATA) {
		fprintf(stderr, "mmprof: --vmlinux '%s': %s\n", o->vmlinux, e->msg);
		return -1;
	}
	if (o->vmlinux && err)
		fprintf(stderr, "mmprof: warning: --vmlinux %s: %s; kernel inline frames off\n",
			o->vmlinux, e->msg);
	if (!err)
		profile__set_meta(rec->p, "symbols.vmlinux", symbols__vmlinux(rec->syms));
	return 0;
}

/* -e expanded, --mm's tracepoints added, --field checked.  -1 after printing. */
static int prepare_events(struct record *rec)
{
	struct record_opts *o = rec->o;
	char missing[1024];

	if (expand_events(&o->events) < 0)
		return -1;
	if (o->mm) {
		if (add_mm_events(&o->events, missing, sizeof(missing)) < 0)
			return -1;
		if (missing[0]) {
			/* not an error: the preset takes what this kernel has */
			if (!o->quiet)
				fprintf(stderr, "mmprof: --mm: this kernel has no %s; recording "
					"the other memory-management tracepoints\n", missing);
			profile__set_meta(rec->p, "mm_events_missing", missing);
		}
	}
	if (!o->events.nr && o->fields.nr) {
		fprintf(stderr, "mmprof record: --field needs its tracepoint in -e\n");
		return -1;
	}
	/* before the workload runs, not at the save after it */
	if (o->events.nr + (o->sched ? 1 : 0) > DATAFILE_MAX_EVENTS) {
		fprintf(stderr, "mmprof record: %zu sampling events%s, more than a file holds (%u); "
			"ask for fewer (a narrower glob)\n", o->events.nr + (o->sched ? 1 : 0),
			o->sched ? " with --sched's" : "", DATAFILE_MAX_EVENTS);
		return -1;
	}
	return 0;
}

/* The recording session of the options (nothing opened yet).  -1 after printing. */
static int start_session(struct record *rec, struct errmsg *e)
{
	struct record_opts *o = rec->o;
	struct recsession_opts so;
	struct sampler_opts *sp = &so.sampling;
	struct runloop_opts *lo = &so.loop;

	memset(&so, 0, sizeof(so));
	sp->events = o->events.nr ? &o->events : NULL;
	sp->freq = rec->period ? 0 : o->freq;
	sp->period = rec->period;
	sp->strict_freq = o->strict_freq;
	sp->mmap_pages = o->mmap_pages;
	sp->no_callchain = !o->callchain;
	sp->call_graph = o->call_graph;
	sp->stack_size = o->stack_size;
	sp->stack_budget = rec->stack_budget;
	sp->max_nodes = rec->stack_nodes;
	output_dir(rec->o->output, rec->spill_dir, sizeof(rec->spill_dir));
	sp->spill_dir = rec->spill_dir;
	sp->runs = (uint32_t)(o->budget > o->repeat ? o->budget : o->repeat);
	so.fields = &o->fields;
	so.sched = o->sched;
	so.counting = !o->no_stat;

	lo->argv = rec->cmd_argv;
	lo->pids = rec->pids;
	lo->nr_pids = rec->nr_pids;
	lo->system_wide = rec->target.mode == TARGET_SYSTEM;
	lo->cpu_list = o->cpu_list;
	lo->delay = o->delay;
	lo->duration = o->duration;
	lo->interval_ms = o->interval_ms;
	lo->nr_stops = &stopsig_count;
	lo->stop_sig = &stopsig_last;
	lo->on_start = print_notes;
	if (rec->progress) {
		lo->on_progress = progress_show;
		lo->progress_ns = PROGRESS_NS;
		lo->on_output = progress_clear_hook;
	}
	lo->ctx = rec;
	lo->bench = &rec->bench;
	rec->sess = recsession__new(&so, rec->p, rec->syms, e);
	if (!rec->sess) {
		fprintf(stderr, "mmprof: %s\n", e->msg);
		return -1;
	}
	return 0;
}

/* The file, the one it replaces kept as NAME.old only once it is written. */
static int save_keeping_old(struct record *rec, struct errmsg *e)
{
	struct outfile_old k;
	struct errmsg warn;
	int err = outfile__old_begin(&k, rec->o->output, e);

	if (err)
		return err;
	err = datafile__save_recording(rec->p, rec->o->output, &warn, e);
	if (warn.msg[0])
		fprintf(stderr, "mmprof: warning: %s\n", warn.msg);
	if (outfile__old_end(&k, !err, err ? NULL : e) && !err)
		fprintf(stderr, "mmprof: warning: %s\n", e->msg);	/* the new file is written */
	return err;
}

/*
 * Before anything runs: the file's folder is writable and NAME.old (as
 * perf.data.old) can be kept, so that no run is wasted on a name that
 * cannot be written.  -1 after printing.
 */
static int check_output(const char *path, struct errmsg *e)
{
	if (check_output_dir(path) < 0)
		return -1;
	if (outfile__old_check(path, e) < 0) {
		fprintf(stderr, "mmprof: %s\n", e->msg);
		return -1;
	}
	return 0;
}

/* The profile, its meta, the symbols and the session.  -1 after printing. */
static int record_begin(struct record *rec, int argc, char **argv, bool events,
			struct errmsg *e)
{
	rec->p = profile__new();
	sysinfo__add_host(rec->p);
	mmstate__add_settings(rec->p, NULL);
	add_record_meta(rec, argc, argv);
	if (load_symbols(rec, e) < 0 || (events && prepare_events(rec) < 0) ||
	    start_session(rec, e) < 0)
		return -1;
	return 0;
}

/*
 * --interleave: which side the file is, its partner, and that run i of
 * one was recorded next to run i of the other (pairs a b, b a, a b, ...)
 */
static void add_interleave_meta(struct record *rec, const char *side)
{
	char buf[32];
	size_t pairs = rec->p->nr_runs < rec->other->p->nr_runs ? rec->p->nr_runs :
		       rec->other->p->nr_runs;

	profile__set_meta(rec->p, "interleave.side", side);
	profile__set_meta(rec->p, "interleave.with", rec->other->o->output);
	profile__set_meta(rec->p, "interleave.order", "abba");
	snprintf(buf, sizeof(buf), "%zu", pairs);
	profile__set_meta(rec->p, "interleave.pairs", buf);
}

/*
 * --budget's score: the first metric of the runs that --score's glob
 * matches, else the workload's rate of work as mmprof diff finds its score
 * (keykind__score: NAME.ops_per_sec, .throughput, ...).  NULL when no run
 * has one.
 */
static const char *score_key(const struct profile *p, const char *glob)
{
	size_t i;

	for (i = 0; i < p->nr_metrics; i++) {
		const char *key = profile__str(p, p->metrics[i].key);

		if (keykind__score_by(glob, key))
			return key;
	}
	return NULL;
}

/*
 * The score's verdict on the runs so far, as mmprof diff gives it: its
 * primary endpoint, tested on its own spread and apart from every other
 * key, so a diff of that one key says the same.  The verdict's name
 * ("up", "can't tell", ...), its change and detectable change (% of the
 * first side) in change and mde (NAN when untested; above: more than mde,
 * the end of the scale).
 */
static const char *score_verdict(const struct record *a, const struct record *b,
				 const char *key, const char *glob, double *change, double *mde, bool *above)
{
	const struct record *side[2] = { a, b };
	struct diff_run *runs[2];
	struct key_value *items[2];
	struct diff_opts opts = { .score = glob };	/* NULL: keykind__score, as key was chosen */
	struct diff d;
	const struct diff_row *row;
	const char *name = "-";
	size_t s, i, n[2];

	for (s = 0; s < 2; s++) {
		const struct profile *p = side[s]->p;

		n[s] = p->nr_runs;
		runs[s] = xcalloc(n[s] ? n[s] : 1, sizeof(*runs[s]));
		items[s] = xcalloc(n[s] ? n[s] : 1, sizeof(*items[s]));
		for (i = 0; i < p->nr_metrics; i++) {
			const struct metric *m = &p->metrics[i];

			if (m->run >= n[s] || strcmp(profile__str(p, m->key), key))
				continue;
			items[s][m->run].key = (char *)key;
			items[s][m->run].value = m->value;
			runs[s][m->run].items = &items[s][m->run];
			runs[s][m->run].nr = 1;
		}
	}
	*change = *mde = NAN;
	*above = false;
	if (!diff__compute(&d, runs[0], n[0], runs[1], n[1], &opts)) {
		row = diff__find(&d, key);
		if (row) {
			name = diff_row__verdict_name(row);
			*change = row->change;
			*mde = row->mde;
			*above = row->flags & DIFF_MDE_ABOVE;
		}
		diff__release(&d);
	}
	for (s = 0; s < 2; s++) {
		free(runs[s]);
		free(items[s]);
	}
	return name;
}

/*
 * --budget, after `pairs` pairs: true when the score's verdict is clear
 * (a change found, or "same": none above the effect floor) or the budget
 * is spent; says so, and the verdict, unless -q.
 */
static bool budget_done(struct record *rec, uint32_t pairs)
{
	const struct record_opts *o = rec->o;
	const char *key = score_key(rec->p, o->score);
	const char *v;
	double change, mde;
	bool clear, above, spent = pairs >= (uint32_t)o->budget;
	char buf[64];

	if (!key) {
		fprintf(stderr, "mmprof: warning: --budget: the runs have no %s%s; no more pairs\n",
			o->score ? "metric matching " : "score (a NAME.ops_per_sec, .throughput, "
			".per_process_ops or .per_thread_ops metric",
			o->score ? o->score : "; name one with --score)");
		profile__set_meta(rec->p, "interleave.stopped", "no score");
		profile__set_meta(rec->other->p, "interleave.stopped", "no score");
		return true;
	}
	v = score_verdict(rec, rec->other, key, o->score, &change, &mde, &above);
	clear = !strcmp(v, "up") || !strcmp(v, "down") || !strcmp(v, "same");
	if (!o->quiet || clear || spent) {
		progress_clear(rec);
		fprintf(stderr, "mmprof: %u pairs: %s %+.3g %% (%s", pairs, key, change, v);
		if (!isnan(mde))
			fprintf(stderr, ", detectable %s%.3g %%", above ? ">" : "", mde);
		fprintf(stderr, ")%s\n", clear ? ": clear, no more pairs" :
			spent ? ": the budget is spent" : "");
	}
	if (!clear && !spent)
		return false;
	snprintf(buf, sizeof(buf), "%s after %u pairs", clear ? "clear" : "budget spent", pairs);
	profile__set_meta(rec->p, "interleave.stopped", buf);
	profile__set_meta(rec->other->p, "interleave.stopped", buf);
	return true;
}

/*
 * Write the file, print its summary: 0, EXIT_WORKLOAD when the workload
 * failed in a run (the file is written), EXIT_ERROR when nothing was.
 */
static int record_save(struct record *rec, bool interrupted, struct errmsg *e)
{
	int err = save_keeping_old(rec, e);

	if (err) {
		fprintf(stderr, "mmprof: %s\n", e->msg[0] ? e->msg : strerror(-err));
		return EXIT_ERROR;
	}
	print_summary(rec, (uint32_t)rec->p->nr_runs, interrupted);
	warn_no_samples(rec);
	if (!rec->nr_failed)
		return 0;
	fprintf(stderr, "mmprof: the workload failed in %u of %zu run%s (%s%s%s); '%s' holds "
		"them: exit status %d\n", rec->nr_failed, rec->p->nr_runs,
		rec->p->nr_runs == 1 ? "" : "s", rec->nr_failed > 1 ? "first " : "",
		rec->failed_status,
		rec->p->nr_runs > 1 ? "; runs count from 0, as report and diff --drop-run name them" : "",
		rec->o->output, EXIT_WORKLOAD);
	return EXIT_WORKLOAD;
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
	if (validate_ops(rec2) < 0 || record_begin(rec2, argc, argv, false, e) < 0)
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
		{ OPT_GROUP, 0, NULL, NULL, NULL, "target (a command after '--', -p or -a; -p or -a with a command: for as long as it runs)", 0, NULL },
		{ OPT_STRING, 'p', "pid", &o.pid_list, "PID[,PID...]", "attach to running processes", 0, NULL },
		{ OPT_BOOL, 0, "children", &o.children, NULL, "with -p: attach to their running child processes too (new ones are followed anyway)", 0, NULL },
		{ OPT_BOOL, 'a', "all-cpus", &o.system_wide, NULL, "system-wide, every CPU", 0, NULL },
		{ OPT_STRING, 'C', "cpu", &o.cpu_list, "CPU-LIST", "system-wide on these CPUs only (0-3,8); implies -a", 0, NULL },
		{ OPT_DOUBLE, 0, "delay", &o.delay, "SEC", "start sampling SEC seconds after the start", 0, NULL },
		{ OPT_DOUBLE, 0, "duration", &o.duration, "SEC", "sample for SEC seconds (-p/-a: record that long)", 0, NULL },
		{ OPT_INT, 'r', "repeat", &o.repeat, "N", "run the command N times into one file", 0, NULL },
		{ OPT_GROUP, 0, NULL, NULL, NULL, "sampling and counting", 0, NULL },
		{ OPT_CALLBACK, 'e', "event", &o.events, "EVENT[,EVENT]", "sampling events (repeatable; tracepoint globs: sys:*); default cycles, else cpu-clock", 0, add_events },
		{ OPT_INT, 'F', "freq", &o.freq, "HZ", "sampling frequency (default 4000)", 0, NULL },
		{ OPT_STRING, 'c', "count", &o.period_str, "PERIOD", "sample every PERIOD events instead of -F", 0, NULL },
		{ OPT_BOOL, 'g', "callchain", &o.callchain, NULL, "record callchains (the default)", OPT_NEGATABLE, NULL },
		{ OPT_CALLBACK, 0, "call-graph", &o, "fp|dwarf[,SIZE]|lbr", "user stacks: frame pointers (default), DWARF unwinding of SIZE (8192) bytes of stack, or the PMU's last branch records (LBR: Intel, a hardware event)", 0, parse_call_graph },
		{ OPT_BOOL, 0, "inline", &o.inline_frames, NULL, "expand frames into their inline chains (user: DWARF; kernel: a vmlinux, see --vmlinux)", 0, NULL },
		{ OPT_STRING, 0, "vmlinux", &o.vmlinux, "PATH", "kernel image with DWARF (build-id of the running kernel): inline chains for kernel frames", 0, NULL },
		{ OPT_INT, 'm', "mmap-pages", &o.mmap_pages, "PAGES", "ring buffer pages per CPU, a power of 2", 0, NULL },
		{ OPT_BOOL, 0, "mm", &o.mm, NULL, "also sample the memory-management tracepoints this kernel has", 0, NULL },
		{ OPT_LIST, 0, "field", &o.fields, "SYS:NAME/FIELD", "per-run histogram of a tracepoint field (repeatable)", OPT_SPLIT, NULL },
		{ OPT_BOOL, 0, "sched", &o.sched, NULL, "scheduler latency by stack (perf-sched keys, offcpu event)", 0, NULL },
		{ OPT_STRING, 0, "ops-pattern", &o.ops_pattern, "REGEX", "work done per run: the sum of the number in the first group of REGEX (POSIX extended) over the command's output lines that match, stored as NAME.ops", 0, NULL },
		{ OPT_STRING, 0, "ops-name", &o.ops_name, "NAME", "the benchmark name of --ops-pattern's key NAME.ops (default: the command's file name)", 0, NULL },
		{ OPT_INT, 'I', "interval", &o.interval_ms, "MS", "counter readings every MS ms (default 1000, 0: off)", 0, NULL },
		{ OPT_BOOL, 0, "strict-freq", &o.strict_freq, NULL, "refuse a -F above kernel.perf_event_max_sample_rate (default: sample at that limit, with a warning)", 0, NULL },
		{ OPT_BOOL, 0, "no-stat", &o.no_stat, NULL, "no perf-stat counters (less overhead per page fault)", 0, NULL },
		{ OPT_GROUP, 0, NULL, NULL, NULL, "output", 0, NULL },
		{ OPT_STRING, 'o', "output", &o.output, "FILE", "write FILE (default mmprof.data)", 0, NULL },
		{ OPT_BOOL, 'q', "quiet", &o.quiet, NULL, "no progress and no summary (warnings stay)", 0, NULL },
		{ OPT_STRING, 0, "interleave", &o.interleave, "FILE", "also record a second command, after a second '--', into FILE: each of the -r runs of one command next to one of the other's, in ABBA order", 0, NULL },
		{ OPT_INT, 0, "budget", &o.budget, "N", "--interleave: after the -r pairs, add pairs until the score's verdict is clear or N pairs are made", 0, NULL },
		{ OPT_STRING, 0, "score", &o.score, "GLOB", "the metric --budget judges: the first matching GLOB, as diff --score (default: the workload's *.ops_per_sec, *.throughput, ...)", 0, NULL },
		{ OPT_END, 0, NULL, NULL, NULL, NULL, 0, NULL },
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
	if (check_output(o.output, &e) < 0 || (o.interleave && check_output(o.interleave, &e) < 0))
		goto out;
	err = stopsig__install();
	if (err) {
		fprintf(stderr, "mmprof: cannot install signal handlers: %s\n", strerror(-err));
		goto out;
	}
	rec.progress = !o.quiet && isatty(STDERR_FILENO);
	if (record_begin(&rec, argc, argv, true, &e) < 0)
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

		if (record_run(side, run) < 0)
			goto out;
		if (side->other && !stopsig_count && record_run(side->other, run) < 0)
			goto out;
		if (o.budget && run + 1 >= (uint32_t)o.repeat && !stopsig_count &&
		    budget_done(&rec, run + 1))
			break;
	}
	interrupted = stopsig_count != 0;
	recsession__finish(rec.sess, interrupted ? stopsig_last : 0);
	if (rec.other) {
		recsession__finish(rec2.sess, interrupted ? stopsig_last : 0);
		add_interleave_meta(&rec, "a");
		add_interleave_meta(&rec2, "b");
	}
	ret = record_save(&rec, interrupted, &e);
	if (rec.other && ret != EXIT_ERROR) {
		ret2 = record_save(&rec2, interrupted, &e);
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
