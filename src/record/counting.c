/*
 * counting: the perf-stat counter set through libperf; see
 * include/mmprof/counting.h.
 *
 * Readings are summed over every CPU and thread the event was opened on;
 * the previous sum is kept per event so interval deltas need no history.
 */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/perf_event.h>
#include <perf/cpumap.h>
#include <perf/evsel.h>
#include <perf/threadmap.h>

#include "mmprof/counting.h"
#include "mmprof/sysinfo.h"
#include "mmprof/xalloc.h"

#define HWC(id, op, res) ((uint64_t)(PERF_COUNT_HW_CACHE_##id) |		\
			  ((uint64_t)(PERF_COUNT_HW_CACHE_OP_##op) << 8) |	\
			  ((uint64_t)(PERF_COUNT_HW_CACHE_RESULT_##res) << 16))

const struct counting_event counting_events[] = {
	{ "task-clock",		PERF_TYPE_SOFTWARE, PERF_COUNT_SW_TASK_CLOCK },
	{ "cpu-clock",		PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_CLOCK },
	{ "context-switches",	PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CONTEXT_SWITCHES },
	{ "cpu-migrations",	PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_MIGRATIONS },
	{ "page-faults",	PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS },
	{ "minor-faults",	PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS_MIN },
	{ "major-faults",	PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS_MAJ },
	{ "cpu-cycles",		PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES },
	{ "instructions",	PERF_TYPE_HARDWARE, PERF_COUNT_HW_INSTRUCTIONS },
	{ "cache-references",	PERF_TYPE_HARDWARE, PERF_COUNT_HW_CACHE_REFERENCES },
	{ "cache-misses",	PERF_TYPE_HARDWARE, PERF_COUNT_HW_CACHE_MISSES },
	{ "branch-instructions", PERF_TYPE_HARDWARE, PERF_COUNT_HW_BRANCH_INSTRUCTIONS },
	{ "branch-misses",	PERF_TYPE_HARDWARE, PERF_COUNT_HW_BRANCH_MISSES },
	{ "dTLB-loads",		PERF_TYPE_HW_CACHE, HWC(DTLB, READ, ACCESS) },
	{ "dTLB-load-misses",	PERF_TYPE_HW_CACHE, HWC(DTLB, READ, MISS) },
	{ "dTLB-stores",	PERF_TYPE_HW_CACHE, HWC(DTLB, WRITE, ACCESS) },
	{ "dTLB-store-misses",	PERF_TYPE_HW_CACHE, HWC(DTLB, WRITE, MISS) },
	{ "iTLB-loads",		PERF_TYPE_HW_CACHE, HWC(ITLB, READ, ACCESS) },
	{ "iTLB-load-misses",	PERF_TYPE_HW_CACHE, HWC(ITLB, READ, MISS) },
	{ "node-loads",		PERF_TYPE_HW_CACHE, HWC(NODE, READ, ACCESS) },
	{ "node-load-misses",	PERF_TYPE_HW_CACHE, HWC(NODE, READ, MISS) },
	{ "node-stores",	PERF_TYPE_HW_CACHE, HWC(NODE, WRITE, ACCESS) },
	{ "node-store-misses",	PERF_TYPE_HW_CACHE, HWC(NODE, WRITE, MISS) },
};
const size_t counting_nr_events = sizeof(counting_events) / sizeof(counting_events[0]);

#define NR_EVENTS (sizeof(counting_events) / sizeof(counting_events[0]))
_Static_assert(NR_EVENTS <= 64, "counting_target.events is a 64-bit mask");

struct reading {
	uint64_t val, ena, run;
};

struct counting {
	struct perf_cpu_map *cpus;
	struct perf_thread_map *threads;
	struct perf_evsel *evsel[NR_EVENTS];	/* NULL: not supported here */
	struct reading last[NR_EVENTS];		/* sums at the previous reading */
	bool user_only[NR_EVENTS];		/* fell back to exclude_kernel: "name:u" */
	uint64_t asked;				/* bit i: event i was asked for */
	int64_t t0_ns, last_ns;			/* CLOCK_MONOTONIC */
};

/* The answers meaning "this machine cannot count that", not "you may not". */
static bool unsupported_errno(int err)
{
	return err == -ENOENT || err == -EOPNOTSUPP || err == -ENODEV ||
	       err == -ENXIO || err == -EINVAL;
}

/* Every thread of each pid (an existing process may already have many). */
static struct perf_thread_map *threads_of(const pid_t *pids, size_t nr, bool list_tasks)
{
	struct perf_thread_map *map;
	pid_t *tids = NULL;
	size_t n = 0, alloc = 0, i;

	for (i = 0; i < nr; i++) {
		char path[64];
		struct dirent *d;
		DIR *dir = NULL;

		if (list_tasks) {
			snprintf(path, sizeof(path), "/proc/%d/task", (int)pids[i]);
			dir = opendir(path);
		}
		if (!dir) {
			XGROW(tids, alloc, n);
			tids[n++] = pids[i];
			continue;
		}
		while ((d = readdir(dir))) {
			char *end;
			long tid = strtol(d->d_name, &end, 10);

			if (*end || tid <= 0)
				continue;
			XGROW(tids, alloc, n);
			tids[n++] = (pid_t)tid;
		}
		closedir(dir);
	}
	map = n ? perf_thread_map__new_array((int)n, tids) : NULL;
	free(tids);
	return map;
}

int counting__find(const char *name)
{
	size_t i;

	for (i = 0; i < NR_EVENTS; i++)
		if (!strcmp(name, counting_events[i].name))
			return (int)i;
	return -1;
}

struct counting *counting__open(const struct counting_target *t, struct errmsg *e)
{
	struct counting *c = xcalloc(1, sizeof(*c));
	uid_t owner = 0;
	pid_t other;
	size_t i;
	int err;

	if (t->system_wide) {
		c->cpus = perf_cpu_map__new(t->cpu_list);
		c->threads = perf_thread_map__new_dummy();
	} else {
		c->cpus = perf_cpu_map__dummy_new();
		/* a forked child is single-threaded before exec */
		c->threads = threads_of(t->pids, t->nr_pids, !t->enable_on_exec);
	}
	if (!c->cpus || !c->threads || perf_cpu_map__nr(c->cpus) <= 0) {
		errmsg__set(e, -EINVAL, "cannot count: bad CPU list '%s' or no target",
			    t->cpu_list ? t->cpu_list : "");
		counting__close(c);
		return NULL;
	}

	c->asked = t->events ? t->events : ~(uint64_t)0;
	for (i = 0; i < NR_EVENTS; i++) {
		struct perf_event_attr attr;

		if (!(c->asked & (UINT64_C(1) << i)))
			continue;
		memset(&attr, 0, sizeof(attr));
		attr.size = sizeof(attr);
		attr.type = counting_events[i].type;
		attr.config = counting_events[i].config;
		attr.read_format = PERF_FORMAT_TOTAL_TIME_ENABLED |
				   PERF_FORMAT_TOTAL_TIME_RUNNING;
		attr.inherit = !t->system_wide;
		attr.disabled = t->enable_on_exec;
		attr.enable_on_exec = t->enable_on_exec;

		c->evsel[i] = perf_evsel__new(&attr);
		err = perf_evsel__open(c->evsel[i], c->cpus, c->threads);
		if ((err == -EACCES || err == -EPERM) && !t->system_wide) {
			/* perf_event_paranoid 2 lets a user count only user space
			 * of its own tasks: do that, as perf stat does, and say so
			 * in the stored name ("task-clock:u"), never as a full count */
			perf_evsel__delete(c->evsel[i]);
			attr.exclude_kernel = attr.exclude_hv = 1;
			c->evsel[i] = perf_evsel__new(&attr);
			err = perf_evsel__open(c->evsel[i], c->cpus, c->threads);
			c->user_only[i] = !err;
		}
		if (!err)
			continue;
		perf_evsel__delete(c->evsel[i]);
		c->evsel[i] = NULL;
		if (unsupported_errno(err))
			continue;
		if ((err == -EACCES || err == -EPERM) && !t->system_wide &&
		    (other = sysinfo__foreign_pid(t->pids, t->nr_pids, &owner)))
			/* the kernel's ptrace check: no paranoid setting lets it */
			errmsg__set(e, err, "cannot count %s: %s; process %d is another user's "
				    "(uid %u): counting it needs CAP_SYS_PTRACE whatever "
				    "kernel.perf_event_paranoid is: run as root, or as uid %u",
				    counting_events[i].name, strerror(-err), (int)other,
				    (unsigned)owner, (unsigned)owner);
		else if (err == -EACCES || err == -EPERM)
			errmsg__set(e, err, "cannot count %s: %s; lower kernel.perf_event_paranoid "
				    "(sysctl kernel.perf_event_paranoid=1) or run as root",
				    counting_events[i].name, strerror(-err));
		else
			errmsg__set(e, err, "cannot count %s: %s", counting_events[i].name,
				    strerror(-err));
		counting__close(c);
		return NULL;
	}
	return c;
}

void counting__start(struct counting *c, int64_t t_start_ns)
{
	c->t0_ns = c->last_ns = t_start_ns;
}

size_t counting__nr_supported(const struct counting *c)
{
	size_t i, n = 0;

	for (i = 0; i < NR_EVENTS; i++)
		n += c->evsel[i] != NULL;
	return n;
}

static void read_sum(struct counting *c, size_t i, struct reading *out)
{
	int ncpu = perf_cpu_map__nr(c->cpus), nthr = perf_thread_map__nr(c->threads);
	int cpu, thr;

	memset(out, 0, sizeof(*out));
	for (cpu = 0; cpu < ncpu; cpu++)
		for (thr = 0; thr < nthr; thr++) {
			struct perf_counts_values v;

			memset(&v, 0, sizeof(v));
			if (perf_evsel__read(c->evsel[i], cpu, thr, &v))
				continue;
			out->val += v.val;
			out->ena += v.ena;
			out->run += v.run;
		}
}

/* Deltas are clamped at 0: a thread of a -p target that exits takes its
 * counts with it, and a negative interval would be nonsense. */
static uint64_t delta(uint64_t now, uint64_t before)
{
	return now > before ? now - before : 0;
}

static uint32_t intern_name(const struct counting *c, struct profile *p, size_t i)
{
	char name[64];

	snprintf(name, sizeof(name), "%s%s", counting_events[i].name, c->user_only[i] ? ":u" : "");
	return profile__intern(p, name);
}

static void add_interval(struct counting *c, struct profile *p, uint32_t run,
			 int64_t now_ns)
{
	size_t i;

	for (i = 0; i < NR_EVENTS; i++) {
		struct counter_interval ci;
		struct reading r;

		if (!c->evsel[i])
			continue;
		read_sum(c, i, &r);
		memset(&ci, 0, sizeof(ci));
		ci.run = run;
		ci.name = intern_name(c, p, i);
		ci.t_ns = (uint64_t)(now_ns - c->t0_ns);
		ci.value = delta(r.val, c->last[i].val);
		ci.enabled = delta(r.ena, c->last[i].ena);
		ci.running = delta(r.run, c->last[i].run);
		profile__add_interval(p, &ci);
		c->last[i] = r;
	}
	c->last_ns = now_ns;
}

void counting__interval(struct counting *c, struct profile *p, uint32_t run, int64_t now_ns)
{
	add_interval(c, p, run, now_ns);
}

void counting__finish(struct counting *c, struct profile *p, uint32_t run, int64_t now_ns,
		      bool intervals)
{
	size_t i;

	if (intervals && now_ns > c->last_ns)
		add_interval(c, p, run, now_ns);
	for (i = 0; i < NR_EVENTS; i++) {
		struct counter ct;
		struct reading r;

		if (!(c->asked & (UINT64_C(1) << i)))
			continue;
		memset(&ct, 0, sizeof(ct));
		ct.run = run;
		ct.name = intern_name(c, p, i);
		ct.supported = c->evsel[i] != NULL;
		if (c->evsel[i]) {
			/* with intervals, the totals are their sum exactly */
			if (intervals)
				r = c->last[i];
			else
				read_sum(c, i, &r);
			ct.value = r.val;
			ct.enabled = r.ena;
			ct.running = r.run;
		}
		profile__add_counter(p, &ct);
	}
}

void counting__close(struct counting *c)
{
	size_t i;

	if (!c)
		return;
	for (i = 0; i < NR_EVENTS; i++) {
		if (!c->evsel[i])
			continue;
		perf_evsel__close(c->evsel[i]);
		perf_evsel__delete(c->evsel[i]);
	}
	perf_cpu_map__put(c->cpus);
	perf_thread_map__put(c->threads);
	free(c);
}
