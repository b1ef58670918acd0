/*
 * cmd-record: `mmprof record`, the orchestration around the sampler.
 *
 * Per run: fork the workload blocked (or take the -p pids, or every CPU),
 * open sampling and counting on it, release it, then loop: wait on the ring
 * buffers until the next deadline (interval tick, --delay or --duration
 * boundary, progress refresh), drain them, read counters when an interval
 * is due, pass the workload's stdout through, notice its exit.  After the
 * run: close, resolve and store counts, totals and the run's status.  The
 * file is written once, atomically, after the last run.
 *
 * Signals: SIGINT, SIGTERM and SIGHUP set a flag; the loop forwards the
 * signal to the workload (SIGKILL two seconds later or on a second signal),
 * finishes the run, starts no further run and writes the file: the user
 * who pressed Ctrl-C gets the data recorded so far and exit status 0.
 * Handlers only set flags; they are installed without SA_RESTART so that
 * they cut the poll short.  SIGCHLD and SIGIO (workload output) wake the
 * loop the same way.
 *
 * Exit status: 0 when the file was written (whatever the workload's own
 * status, which is stored and printed), 2 on an error (nothing written).
 */
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/stat.h>

#include "mmprof/clock.h"
#include "mmprof/cmd.h"
#include "mmprof/counting.h"
#include "mmprof/countrun.h"
#include "mmprof/datafile.h"
#include "mmprof/evspec.h"
#include "mmprof/mmstate.h"
#include "mmprof/options.h"
#include "mmprof/profile.h"
#include "mmprof/sampler.h"
#include "mmprof/unwind.h"
#include "mmprof/sched.h"
#include "mmprof/stopsig.h"
#include "mmprof/symbols.h"
#include "mmprof/sysinfo.h"
#include "mmprof/trace.h"
#include "mmprof/workload.h"
#include "mmprof/xalloc.h"

#define DEFAULT_FREQ		4000
#define KILL_GRACE_NS		(2 * NSEC_PER_SEC)
#define PROGRESS_NS		(250 * 1000000LL)
#define MAX_WAIT_MS		100	/* bounds the reaction to a signal lost before poll */
#define SCHED_WAIT_MS		10	/* --sched: drain often, sched events come fast */

enum record_mode { MODE_FORK, MODE_PID, MODE_SYSTEM };

static const char *const mode_names[] = { "fork", "pid", "system" };

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
};

/* Everything one record needs, passed down instead of kept in globals. */
struct record {
	struct record_opts *o;
	enum record_mode mode;
	char **cmd_argv;		/* fork mode */
	pid_t *pids;			/* -p */
	size_t nr_pids, alloc_pids;
	uint64_t period;
	struct profile *p;
	struct symbols *syms;
	struct sampler *sampler;
	struct schedrec *sched;		/* --sched, else NULL */
	struct tpstats *tp;		/* tracepoint field statistics, NULL when none */
	bool events_added;
	bool progress;			/* a terminal on stderr and not -q */
	bool progress_shown;
	uint64_t total_samples, total_lost, total_throttled;
	uint32_t runs_before_delay;	/* runs that ended before --delay enabled sampling */
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
	"mmprof record [options] -p PID[,PID...]",
	"mmprof record [options] -a [-C CPU-LIST]",
	NULL,
};

static bool is_pow2(int v)
{
	return v > 0 && (v & (v - 1)) == 0;
}

/* The checks options__parse cannot make: one line each, then exit 2. */
static int validate(struct record *rec, int argc, char **argv, int first)
{
	struct record_opts *o = rec->o;
	int kinds = (first < argc) + (o->pid_list != NULL) + (o->system_wide != 0);
	char *end;

	if (kinds != 1) {
		fprintf(stderr, kinds ? "mmprof record: give only one of a command, -p or -a\n"
				      : "mmprof record: nothing to record: give a command after '--', -p PID or -a\n");
		return -1;
	}
	rec->mode = first < argc ? MODE_FORK : o->pid_list ? MODE_PID : MODE_SYSTEM;
	rec->cmd_argv = argv + first;
	if (o->cpu_list && rec->mode != MODE_SYSTEM) {
		fprintf(stderr, "mmprof record: -C needs -a\n");
		return -1;
	}
	if (o->repeat != 1 && rec->mode != MODE_FORK) {
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
	if (rec->mode == MODE_PID && options__parse_pids("record", o->pid_list, &rec->pids, &rec->nr_pids, &rec->alloc_pids) < 0)
		return -1;
	return 0;
}

/*
 * Fail before a long run, not after it, when the file cannot be written:
 * its folder is not writable, or the name is taken by something that is
 * not a regular file (a symlink, a folder), which datafile__save refuses
 * to replace.  Save checks again (the name may change meanwhile).
 */
static int check_output_dir(const char *path)
{
	char *dir = xstrdup(path), *slash = strrchr(dir, '/');
	struct stat st;
	int ret = 0;

	if (lstat(path, &st) == 0 && !S_ISREG(st.st_mode)) {
		fprintf(stderr, "mmprof: cannot write '%s': it exists and is not a regular file; "
			"remove it or choose another name\n", path);
		free(dir);
		return -1;
	}
	if (!slash)
		snprintf(dir, strlen(dir) + 1, ".");
	else if (slash == dir)
		slash[1] = '\0';
	else
		*slash = '\0';
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

static void progress_show(struct record *rec, uint32_t run, int64_t elapsed_ns)
{
	uint64_t samples = 0, lost = 0;

	sampler__progress(rec->sampler, &samples, &lost);
	fprintf(stderr, "\r\033[Kmmprof: recording run %u/%d  %.1f s  %llu samples  %llu lost",
		run + 1, rec->o->repeat, (double)elapsed_ns / 1e9,
		(unsigned long long)(rec->total_samples + samples),
		(unsigned long long)(rec->total_lost + lost));
	rec->progress_shown = true;
}

static void pass_output(struct record *rec, struct workload *w, struct metric_sink *lc)
{
	if (w->out_fd < 0)
		return;
	/* output would be written over the progress line: clear it first */
	if (rec->progress_shown) {
		struct pollfd pfd = { .fd = w->out_fd, .events = POLLIN };

		if (poll(&pfd, 1, 0) > 0)
			progress_clear(rec);
	}
	workload__read_output(w, STDOUT_FILENO, workload__store_metric, lc);
}

/* An attached process is gone when it no longer exists or is a zombie. */
static bool pid_alive(pid_t pid)
{
	char path[64], buf[512], *rp;
	FILE *f;
	size_t n;

	if (kill(pid, 0) < 0 && errno == ESRCH)
		return false;
	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	f = fopen(path, "re");
	if (!f)
		return false;
	n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n] = '\0';
	rp = strrchr(buf, ')');	/* comm may contain anything, even ") " */
	return !(rp && rp[1] == ' ' && (rp[2] == 'Z' || rp[2] == 'X'));
}

static bool any_pid_alive(const struct record *rec)
{
	size_t i;

	for (i = 0; i < rec->nr_pids; i++)
		if (pid_alive(rec->pids[i]))
			return true;
	return false;
}

static int64_t min64(int64_t a, int64_t b)
{
	return a < b ? a : b;
}

/*
 * One run, from opening the events to storing its aggregate.  Returns 0,
 * or -errno after printing one line (the record then writes nothing).
 */
static int record_run(struct record *rec, uint32_t run)
{
	struct record_opts *o = rec->o;
	struct workload w = { .pid = 0, .go_fd = -1, .err_fd = -1, .out_fd = -1 };
	struct counting *cnt = NULL;
	struct mmstate ms = { 0 };
	struct record_target st;
	struct counting_target ct;
	struct metric_sink lc = { rec->p, run };
	struct errmsg e = { "" };
	struct run r;
	pid_t child;
	int64_t start, start_real, t, next_tick, next_progress, kill_at = 0;
	int64_t enable_at, disable_at;
	bool sampling = false, sampling_done = false, forwarded = false;
	bool intervals = o->interval_ms > 0;
	int nr_stops_seen = 0, err;

	memset(&st, 0, sizeof(st));
	memset(&ct, 0, sizeof(ct));
	memset(&r, 0, sizeof(r));

	if (rec->mode == MODE_FORK) {
		err = workload__start(&w, rec->cmd_argv, true, &e);
		if (err)
			goto out_err;
		child = w.pid;
		st.pids = ct.pids = &child;
		st.nr_pids = ct.nr_pids = 1;
		/* counters always cover the whole run; sampling waits for --delay */
		ct.enable_on_exec = true;
		st.enable_on_exec = o->delay == 0;
	} else if (rec->mode == MODE_PID) {
		st.pids = ct.pids = rec->pids;
		st.nr_pids = ct.nr_pids = rec->nr_pids;
	} else {
		st.system_wide = ct.system_wide = true;
		st.cpu_list = ct.cpu_list = o->cpu_list;
	}

	err = sampler__open(rec->sampler, &st, &e);
	if (err)
		goto out_err;
	if (sampler__freq_note(rec->sampler)) {
		char hz[16];

		snprintf(hz, sizeof(hz), "%d", sampler__freq(rec->sampler));
		profile__set_meta(rec->p, "sample_freq_lowered", hz);
	}
	if (rec->sched && (err = schedrec__open(rec->sched, &st, &e)))
		goto out_close;
	if (!rec->events_added) {
		sampler__add_events(rec->sampler, rec->p);
		if (rec->sched)
			schedrec__add_events(rec->sched, rec->p);
		rec->events_added = true;
	}
	/* system-wide tracepoints cannot enable at exec: start them now */
	if (rec->sched && st.enable_on_exec)
		schedrec__enable(rec->sched);
	/* --no-stat: each counter is one more software event per page fault */
	if (!o->no_stat) {
		cnt = counting__open(&ct, &e);
		if (!cnt) {
			err = -EINVAL;
			goto out_close;
		}
	}

	/* system-wide, so read as close to the release as possible; unreadable: left out */
	mmstate__begin(&ms);
	if (rec->mode == MODE_FORK) {
		err = workload__go(&w, rec->cmd_argv[0], &e);
		if (err)
			goto out_close;
		start = w.start_ns;
		start_real = w.start_real_ns;
	} else {
		start = clock__ns(CLOCK_MONOTONIC);
		start_real = clock__ns(CLOCK_REALTIME);
	}
	/* after the exec check, so that a missing binary gets one line only */
	if (run == 0 && !o->quiet && sampler__note(rec->sampler))
		fprintf(stderr, "mmprof: %s\n", sampler__note(rec->sampler));
	/* a warning, so even with -q: the file's frequency is not the one asked */
	if (sampler__freq_note(rec->sampler))
		fprintf(stderr, "mmprof: warning: %s\n", sampler__freq_note(rec->sampler));
	if (cnt)
		counting__start(cnt, start);
	if (run == 0)
		sysinfo__add_start_time(rec->p, start_real);

	enable_at = start + (int64_t)(o->delay * 1e9);
	disable_at = o->duration > 0 ? enable_at + (int64_t)(o->duration * 1e9) : INT64_MAX;
	sampling = st.enable_on_exec;
	next_tick = intervals && cnt ? start + (int64_t)o->interval_ms * 1000000 : INT64_MAX;
	next_progress = rec->progress ? start + PROGRESS_NS : INT64_MAX;

	for (;;) {
		int64_t deadline, wait_ns;
		int polled, drained;

		t = clock__ns(CLOCK_MONOTONIC);
		if (nr_stops_seen != stopsig_count) {
			nr_stops_seen = stopsig_count;
			if (rec->mode != MODE_FORK)
				break;
			/* first signal: pass it on; a second one, or a deaf workload: SIGKILL */
			workload__kill(&w, forwarded ? SIGKILL : stopsig_last);
			if (!forwarded)
				kill_at = t + KILL_GRACE_NS;
			forwarded = true;
		}
		if (kill_at && t >= kill_at) {
			workload__kill(&w, SIGKILL);
			kill_at = 0;
		}
		if (!sampling && !sampling_done && t >= enable_at) {
			sampler__enable(rec->sampler);
			if (rec->sched)
				schedrec__enable(rec->sched);
			sampling = true;
		}
		if (sampling && t >= disable_at) {
			sampler__disable(rec->sampler);
			if (rec->sched)
				schedrec__disable(rec->sched);
			sampling = false;
			sampling_done = true;
			/* -p/-a: the window is the recording; fork: the workload runs on */
			if (rec->mode != MODE_FORK)
				break;
		}
		if (t >= next_tick) {
			counting__interval(cnt, rec->p, run, t);
			while (next_tick <= t)
				next_tick += (int64_t)o->interval_ms * 1000000;
		}
		pass_output(rec, &w, &lc);
		if (rec->mode == MODE_FORK && workload__reap(&w, false))
			break;
		if (rec->mode == MODE_PID && !any_pid_alive(rec))
			break;
		if (rec->progress && t >= next_progress) {
			progress_show(rec, run, t - start);
			next_progress = t + PROGRESS_NS;
		}

		deadline = min64(next_tick, next_progress);
		if (!sampling_done)
			deadline = min64(deadline, sampling ? disable_at : enable_at);
		if (kill_at)
			deadline = min64(deadline, kill_at);
		wait_ns = deadline - t;
		if (wait_ns < 0)
			wait_ns = 0;
		wait_ns = min64(wait_ns, (int64_t)(rec->sched ? SCHED_WAIT_MS : MAX_WAIT_MS) * 1000000);
		polled = sampler__poll(rec->sampler, (int)((wait_ns + 999999) / 1000000));
		drained = sampler__drain(rec->sampler);
		if (rec->sched)
			drained += schedrec__drain(rec->sched);
		/*
		 * Ring buffers of exited tasks stay readable (POLLHUP) with
		 * nothing in them: do not spin on them.
		 */
		if (polled > 0 && drained == 0 && wait_ns > 0) {
			struct timespec nap = { 0, min64(wait_ns, 10000000) };

			nanosleep(&nap, NULL);
		}
	}

	t = clock__ns(CLOCK_MONOTONIC);
	/* sampling never started: the workload (or -p's processes) ended within --delay */
	if (o->delay > 0 && !sampling && !sampling_done && !stopsig_count)
		rec->runs_before_delay++;
	if (rec->mode == MODE_FORK) {
		/* whatever the child wrote before exiting; a grandchild holding
		 * the pipe open must not keep us here, so read once more only */
		pass_output(rec, &w, &lc);
		workload__reap(&w, true);
	}
	mmstate__end(&ms, rec->p, run);
	sampler__close(rec->sampler);	/* drains the rest */
	if (rec->sched)
		schedrec__close(rec->sched);
	if (cnt)
		counting__finish(cnt, rec->p, run, t, intervals);

	r.start_ns = start_real;
	if (rec->mode == MODE_FORK) {
		countrun__fill_run(&r, &w);
	} else {
		r.wall_ns = t - start;
		r.exit_code = -1;
	}
	err = sampler__end_run(rec->sampler, rec->p, run, &r);
	if (err) {
		errmsg__set(&e, err, "cannot store the samples of run %u: %s", run + 1,
			    strerror(-err));
		goto out;
	}
	if (rec->sched)
		schedrec__end_run(rec->sched, rec->p, run, rec->syms, &r.samples, &r.lost);
	if (rec->tp)
		tpstats__end_run(rec->tp, rec->p, run);
	profile__add_run(rec->p, &r);
	rec->total_samples += r.samples;
	rec->total_lost += r.lost;
	rec->total_throttled += r.throttled;
	progress_clear(rec);
	if (r.term_signal)
		fprintf(stderr, "mmprof: workload killed by SIG%s in run %u\n",
			sigabbrev_np(r.term_signal) ? sigabbrev_np(r.term_signal) : "?", run + 1);
	else if (rec->mode == MODE_FORK && r.exit_code)
		fprintf(stderr, "mmprof: workload exited with status %d in run %u\n",
			r.exit_code, run + 1);
	goto out;

out_close:
	sampler__close(rec->sampler);
	if (rec->sched)
		schedrec__close(rec->sched);
out_err:
out:
	counting__close(cnt);
	mmstate__release(&ms);
	workload__release(&w);
	if (err) {
		progress_clear(rec);
		fprintf(stderr, "mmprof: %s\n", e.msg[0] ? e.msg : strerror(-err));
	}
	return err;
}

static void join_events(const struct profile *p, const struct strlist *asked,
			char *buf, size_t size)
{
	size_t i, n = 0;

	buf[0] = '\0';
	if (asked) {
		for (i = 0; i < asked->nr && n < size; i++)
			n += (size_t)snprintf(buf + n, size - n, "%s%s", i ? "," : "", asked->items[i]);
		return;
	}
	for (i = 0; i < p->nr_events && n < size; i++)
		n += (size_t)snprintf(buf + n, size - n, "%s%s", i ? "," : "",
				      profile__str(p, p->events[i].name));
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

	profile__set_meta(rec->p, "record_mode", mode_names[rec->mode]);
	if (o->events.nr) {
		join_events(rec->p, &o->events, buf, sizeof(buf));
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
	if (rec->mode == MODE_PID)
		profile__set_meta(rec->p, "target", o->pid_list);
	else if (rec->mode == MODE_SYSTEM)
		profile__set_meta(rec->p, "target", o->cpu_list ? o->cpu_list : "all");
}

static void print_summary(struct record *rec, uint32_t nr_runs, bool interrupted)
{
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
			(unsigned long long)rec->total_samples,
			(unsigned long long)rec->total_lost,
			(unsigned long long)rec->total_throttled,
			path, *unit == 'B' ? 0 : 1, size, unit);
	/* an empty file is not what --delay asked for: say why, even with -q */
	if (rec->runs_before_delay == nr_runs)
		fprintf(stderr, "mmprof: warning: the workload ended within --delay %g s%s: no "
			"sampling window, no samples; lower --delay\n", rec->o->delay,
			nr_runs > 1 ? " in every run" : "");
	else if (rec->runs_before_delay)
		fprintf(stderr, "mmprof: warning: the workload ended within --delay %g s in %u of %u "
			"runs: no samples from those runs; lower --delay\n", rec->o->delay,
			rec->runs_before_delay, nr_runs);
	/* never silent about loss, even with -q */
	all = (double)(rec->total_samples + rec->total_lost);
	if (rec->total_lost)
		fprintf(stderr, "mmprof: warning: %llu samples lost (%.1f%%); try -m %d or a lower -F\n",
			(unsigned long long)rec->total_lost, 100.0 * (double)rec->total_lost / all,
			rec->o->mmap_pages ? rec->o->mmap_pages * 4 : 1024);
	if (rec->total_throttled)
		fprintf(stderr, "mmprof: warning: the kernel throttled sampling %llu times; "
			"lower -F or raise kernel.perf_event_max_sample_rate\n",
			(unsigned long long)rec->total_throttled);
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
		{ OPT_GROUP, 0, NULL, NULL, NULL, "target (exactly one: a command after '--', -p or -a)", 0, NULL },
		{ OPT_STRING, 'p', "pid", &o.pid_list, "PID[,PID...]", "attach to running processes", 0, NULL },
		{ OPT_BOOL, 'a', "all-cpus", &o.system_wide, NULL, "system-wide, every CPU", 0, NULL },
		{ OPT_STRING, 'C', "cpu", &o.cpu_list, "CPU-LIST", "with -a: only these CPUs (0-3,8)", 0, NULL },
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
		{ OPT_INT, 'I', "interval", &o.interval_ms, "MS", "counter readings every MS ms (default 1000, 0: off)", 0, NULL },
		{ OPT_BOOL, 0, "strict-freq", &o.strict_freq, NULL, "refuse a -F above kernel.perf_event_max_sample_rate (default: sample at that limit, with a warning)", 0, NULL },
		{ OPT_BOOL, 0, "no-stat", &o.no_stat, NULL, "no perf-stat counters (less overhead per page fault)", 0, NULL },
		{ OPT_GROUP, 0, NULL, NULL, NULL, "output", 0, NULL },
		{ OPT_STRING, 'o', "output", &o.output, "FILE", "write FILE (default mmprof.data)", 0, NULL },
		{ OPT_BOOL, 'q', "quiet", &o.quiet, NULL, "no progress and no summary (warnings stay)", 0, NULL },
		{ OPT_END, 0, NULL, NULL, NULL, NULL, 0, NULL },
	};
	struct record rec;
	struct sampler_opts so;
	struct errmsg e = { "" };
	uint32_t run;
	int first, ret = EXIT_ERROR, err;
	bool interrupted;

	memset(&rec, 0, sizeof(rec));
	rec.o = &o;
	first = options__parse(argc, argv, opts, record_usage);
	if (first == -2)
		return 0;
	if (first < 0)
		goto out;
	if (validate(&rec, argc, argv, first) < 0)
		goto out;
	if (o.freq == INT_MIN)
		o.freq = rec.period ? 0 : DEFAULT_FREQ;
	if (check_output_dir(o.output) < 0)
		goto out;
	err = stopsig__install();
	if (err) {
		fprintf(stderr, "mmprof: cannot install signal handlers: %s\n", strerror(-err));
		goto out;
	}
	rec.progress = !o.quiet && isatty(STDERR_FILENO);

	rec.p = profile__new();
	sysinfo__add_host(rec.p);
	mmstate__add_settings(rec.p, NULL);
	add_record_meta(&rec, argc, argv);

	rec.syms = symbols__new();
	symbols__set_inline(rec.syms, o.inline_frames);
	err = symbols__load_kernel(rec.syms, &e);
	if (err && !o.quiet)
		fprintf(stderr, "mmprof: warning: %s; kernel frames stay unresolved\n", e.msg);
	if (o.vmlinux || o.inline_frames) {
		/*
		 * Kernel inline chains: --vmlinux asks for them; --inline looks
		 * for the running kernel's vmlinux and is silent when none is
		 * installed (the common case).
		 */
		e.msg[0] = '\0';
		err = symbols__load_vmlinux(rec.syms, o.vmlinux, &e);
		if (o.vmlinux && err && err != -ESTALE && err != -ENOEXEC && err != -ENODATA) {
			fprintf(stderr, "mmprof: --vmlinux '%s': %s\n", o.vmlinux, e.msg);
			goto out;
		}
		if (o.vmlinux && err)
			fprintf(stderr, "mmprof: warning: --vmlinux %s: %s; kernel inline frames off\n",
				o.vmlinux, e.msg);
		if (!err)
			profile__set_meta(rec.p, "symbols.vmlinux", symbols__vmlinux(rec.syms));
	}

	if (expand_events(&o.events) < 0)
		goto out;
	if (o.mm) {
		char missing[1024];

		if (add_mm_events(&o.events, missing, sizeof(missing)) < 0)
			goto out;
		if (missing[0]) {
			/* not an error: the preset takes what this kernel has */
			if (!o.quiet)
				fprintf(stderr, "mmprof: --mm: this kernel has no %s; recording "
					"the other memory-management tracepoints\n", missing);
			profile__set_meta(rec.p, "mm_events_missing", missing);
		}
	}
	if (o.events.nr) {
		rec.tp = tpstats__new(&o.events, &o.fields, &e);
		if (!rec.tp) {
			fprintf(stderr, "mmprof: %s\n", e.msg[0] ? e.msg : "cannot set up tracepoints");
			goto out;
		}
	} else if (o.fields.nr) {
		fprintf(stderr, "mmprof record: --field needs its tracepoint in -e\n");
		goto out;
	}

	memset(&so, 0, sizeof(so));
	so.events = o.events.nr ? &o.events : NULL;
	so.raw_hook = rec.tp ? tpstats__hook : NULL;
	so.raw_ctx = rec.tp;
	so.freq = rec.period ? 0 : o.freq;
	so.period = rec.period;
	so.strict_freq = o.strict_freq;
	so.mmap_pages = o.mmap_pages;
	so.no_callchain = !o.callchain;
	so.call_graph = o.call_graph;
	so.stack_size = o.stack_size;
	rec.sampler = sampler__new(&so, rec.syms, &e);
	if (!rec.sampler) {
		fprintf(stderr, "mmprof: %s\n", e.msg[0] ? e.msg : "cannot set up sampling");
		goto out;
	}
	if (o.sched) {
		rec.sched = schedrec__new(o.mmap_pages, &e);
		if (!rec.sched) {
			fprintf(stderr, "mmprof: %s\n", e.msg[0] ? e.msg : "cannot set up --sched");
			goto out;
		}
		profile__set_meta(rec.p, "sched", "1");
	}

	for (run = 0; run < (uint32_t)o.repeat; run++) {
		if (stopsig_count)
			break;
		if (record_run(&rec, run) < 0)
			goto out;
	}
	interrupted = stopsig_count != 0;

	if (rec.events_added) {
		char buf[1024];

		join_events(rec.p, NULL, buf, sizeof(buf));
		profile__set_meta(rec.p, "events_used", buf);
	}
	{
		char buf[32];

		snprintf(buf, sizeof(buf), "%zu", rec.p->nr_runs);
		profile__set_meta(rec.p, "nr_runs", buf);
		if (interrupted)
			profile__set_meta(rec.p, "interrupted", sigabbrev_np(stopsig_last) ?
					  sigabbrev_np(stopsig_last) : "signal");
	}
	{
		/* why a sampled DSO may stay [unknown], for report --unresolved */
		size_t i, nr = symbols__nr_dsos(rec.syms), kept = 0;

		for (i = 0; i < nr && kept < 256; i++) {
			char key[512], hint[512];
			struct dso_info di;

			symbols__dso(rec.syms, i, &di);
			if (!symbols__hint(&di, hint, sizeof(hint)))
				continue;
			snprintf(key, sizeof(key), "symbols.hint %s", di.name);
			profile__set_meta(rec.p, key, hint);
			kept++;
		}
	}

	err = datafile__save(rec.p, o.output, &e);
	if (err) {
		fprintf(stderr, "mmprof: %s\n", e.msg[0] ? e.msg : strerror(-err));
		goto out;
	}
	print_summary(&rec, (uint32_t)rec.p->nr_runs, interrupted);
	ret = 0;
out:
	schedrec__free(rec.sched);
	tpstats__free(rec.tp);
	strlist__release(&o.fields);
	sampler__free(rec.sampler);
	symbols__free(rec.syms);
	profile__free(rec.p);
	free(rec.pids);
	strlist__release(&o.events);
	return ret;
}
