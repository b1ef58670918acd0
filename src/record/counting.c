/*
 * counting: the perf-stat counter set, a perfsession never mapped; see
 * include/mmprof/counting.h.
 *
 * Readings are summed over every CPU and thread the event was opened on
 * (perfsession__read_counts: a thread of a -p target that is gone adds
 * nothing); the previous sum is kept per event so interval deltas need no
 * history.
 */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/perf_event.h>

#include "mmprof/counting.h"
#include "mmprof/perfsession.h"
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

struct counting {
	struct perfsession ps;			/* per thread on any CPU, or per CPU (-a) */
	struct perf_evsel *evsel[NR_EVENTS];	/* NULL: not supported here */
	struct perfsession_counts last[NR_EVENTS];	/* sums at the previous reading */
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

/* Every thread of each pid (an existing process may already have many): *nr_tids of them. */
static pid_t *threads_of(const pid_t *pids, size_t nr, bool list_tasks, size_t *nr_tids)
{
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
	*nr_tids = n;
	return tids;
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
	pid_t other, *tids;
	size_t i, nr_tids;
	int err;

	if (t->system_wide) {
		err = perfsession__open(&c->ps, t->cpu_list, NULL, 0, NULL);
	} else {
		/* a forked child is single-threaded before exec */
		tids = threads_of(t->pids, t->nr_pids, !t->enable_on_exec, &nr_tids);
		err = perfsession__open_threads(&c->ps, tids, nr_tids, NULL);
		free(tids);
	}
	if (err) {
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

		err = perfsession__open_event(&c->ps, &attr, &c->evsel[i]);
		if ((err == -EACCES || err == -EPERM) && !t->system_wide) {
			/* perf_event_paranoid 2 lets a user count only user space
			 * of its own tasks: do that, as perf stat does, and say so
			 * in the stored name ("task-clock:u"), never as a full count */
			attr.exclude_kernel = attr.exclude_hv = 1;
			err = perfsession__open_event(&c->ps, &attr, &c->evsel[i]);
			c->user_only[i] = !err;
		}
		if (!err)
			continue;
		/* not opened: c->evsel[i] is NULL */
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
		struct perfsession_counts r;

		if (!c->evsel[i])
			continue;
		perfsession__read_counts(&c->ps, c->evsel[i], &r);
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
		struct perfsession_counts r;

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
				perfsession__read_counts(&c->ps, c->evsel[i], &r);
			ct.value = r.val;
			ct.enabled = r.ena;
			ct.running = r.run;
		}
		profile__add_counter(p, &ct);
	}
}

void counting__close(struct counting *c)
{
	if (!c)
		return;
	perfsession__close(&c->ps);
	free(c);
}
