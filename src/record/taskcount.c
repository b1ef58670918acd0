/*
 * taskcount: page faults and context switches from rusage and /proc; see
 * include/mmprof/taskcount.h.
 *
 * A reading is four sums: page-faults, minor-faults, major-faults,
 * context-switches.  Of a process tree (fork, -p): every process of /proc
 * whose parent chain reaches a root, its own faults and its reaped
 * children's (stat's minflt + cminflt, majflt + cmajflt), and the switches
 * of its live threads (task/TID/status).  Of the machine (-a): vmstat and
 * stat.  Readings are taken once per interval, never per event.
 */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "mmprof/counting.h"
#include "mmprof/taskcount.h"
#include "mmprof/xalloc.h"

enum { TC_FAULTS, TC_MINOR, TC_MAJOR, TC_SWITCHES };

static const char *const tc_names[TASKCOUNT__NR] = {
	"page-faults", "minor-faults", "major-faults", "context-switches",
};

uint64_t taskcount__counting_mask(void)
{
	uint64_t mask = 0;
	size_t i;

	for (i = 0; i < TASKCOUNT__NR; i++)
		mask |= UINT64_C(1) << counting__find(tc_names[i]);
	return mask;
}

/* path's first size - 1 bytes, NUL-terminated; the length, or -1 */
static ssize_t read_small(const char *path, char *buf, size_t size)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t n, len = 0;

	if (fd < 0)
		return -1;
	while ((size_t)len < size - 1 && (n = read(fd, buf + len, size - 1 - (size_t)len)) > 0)
		len += n;
	close(fd);
	buf[len] = '\0';
	return len;
}

/* The number after "name" at the start of a line of buf (name includes its separator), or 0. */
static uint64_t field_after(const char *buf, const char *name)
{
	size_t len = strlen(name);
	const char *s = buf;

	while (s) {
		if (!strncmp(s, name, len))
			return strtoull(s + len, NULL, 10);
		s = strchr(s, '\n');
		if (s)
			s++;
	}
	return 0;
}

struct proc_row {
	pid_t pid, ppid;
	uint64_t minflt, majflt;
	int in;		/* -1 not known yet, 0 outside the tree, 1 in it */
};

static int row_cmp(const void *a, const void *b)
{
	const struct proc_row *x = a, *y = b;

	return (x->pid > y->pid) - (x->pid < y->pid);
}

/* /proc/PID/stat: parent, faults of the process and of its reaped children. */
static bool read_stat(pid_t pid, struct proc_row *row)
{
	char path[64], buf[1024], *s;
	unsigned long long v[11];
	int ppid;

	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	if (read_small(path, buf, sizeof(buf)) <= 0)
		return false;
	s = strrchr(buf, ')');		/* comm may hold anything, ") " too */
	/* state ppid pgrp session tty tpgid flags minflt cminflt majflt cmajflt */
	if (!s || sscanf(s + 1, " %*c %d %llu %llu %llu %llu %llu %llu %llu %llu %llu", &ppid,
			 &v[0], &v[1], &v[2], &v[3], &v[4], &v[5], &v[6], &v[7], &v[8]) != 10)
		return false;
	row->pid = pid;
	row->ppid = ppid;
	row->minflt = v[5] + v[6];
	row->majflt = v[7] + v[8];
	return true;
}

/* Voluntary and involuntary switches of the live threads of pid. */
static uint64_t read_switches(pid_t pid)
{
	char path[96], buf[4096];
	struct dirent *d;
	uint64_t n = 0;
	DIR *dir;

	snprintf(path, sizeof(path), "/proc/%d/task", (int)pid);
	dir = opendir(path);
	if (!dir)
		return 0;
	while ((d = readdir(dir))) {
		if (!isdigit((unsigned char)d->d_name[0]))
			continue;
		snprintf(path, sizeof(path), "/proc/%d/task/%.16s/status", (int)pid, d->d_name);
		if (read_small(path, buf, sizeof(buf)) <= 0)
			continue;
		n += field_after(buf, "voluntary_ctxt_switches:");
		n += field_after(buf, "nonvoluntary_ctxt_switches:");
	}
	closedir(dir);
	return n;
}

static bool is_root(const pid_t *roots, size_t nr, pid_t pid)
{
	size_t i;

	for (i = 0; i < nr; i++)
		if (roots[i] == pid)
			return true;
	return false;
}

/*
 * Is rows[i] in a root's tree?  Follows the parent chain (rows sorted by
 * pid) and remembers the answer of every process on it: each process is
 * settled once, O(n log n) for the machine's n processes.
 */
static int in_tree(struct proc_row *rows, size_t n, size_t i, const pid_t *roots, size_t nr)
{
	size_t chain = 0, k;
	struct proc_row *r = &rows[i], key;
	int ans;

	/* the chain is walked twice: to find the answer, then to remember it */
	for (;;) {
		if (r->in >= 0) {
			ans = r->in;
			break;
		}
		if (is_root(roots, nr, r->pid)) {
			ans = 1;
			break;
		}
		key.pid = r->ppid;
		r = r->ppid > 0 && chain++ < n ? bsearch(&key, rows, n, sizeof(*rows), row_cmp) : NULL;
		if (!r) {
			ans = 0;
			break;
		}
	}
	for (r = &rows[i], k = 0; r && r->in < 0 && k <= chain; k++) {
		r->in = ans;
		key.pid = r->ppid;
		r = r->ppid > 0 ? bsearch(&key, rows, n, sizeof(*rows), row_cmp) : NULL;
	}
	return ans;
}

/* Every process of /proc, sorted by pid, into *rows (the caller frees): their number, or -errno. */
static ssize_t read_rows(struct proc_row **rows)
{
	size_t n = 0, alloc = 0;
	struct dirent *d;
	DIR *dir = opendir("/proc");

	*rows = NULL;
	if (!dir)
		return -errno;
	while ((d = readdir(dir))) {
		if (!isdigit((unsigned char)d->d_name[0]))
			continue;
		XGROW(*rows, alloc, n);
		memset(&(*rows)[n], 0, sizeof((*rows)[n]));
		(*rows)[n].in = -1;
		if (read_stat((pid_t)atoi(d->d_name), &(*rows)[n]))
			n++;
	}
	closedir(dir);
	if (n)
		qsort(*rows, n, sizeof(**rows), row_cmp);
	return (ssize_t)n;
}

int taskcount__descendants(const pid_t *roots, size_t nr, pid_t **out, size_t *nout)
{
	struct proc_row *rows;
	ssize_t n = read_rows(&rows);
	size_t i, alloc = 0;

	*out = NULL;
	*nout = 0;
	if (n < 0)
		return (int)n;
	for (i = 0; i < (size_t)n; i++)
		if (!is_root(roots, nr, rows[i].pid) && in_tree(rows, (size_t)n, i, roots, nr)) {
			XGROW(*out, alloc, *nout);
			(*out)[(*nout)++] = rows[i].pid;
		}
	free(rows);
	return 0;
}

/* The sums of the trees under roots into v. */
static void read_tree(const pid_t *roots, size_t nr, uint64_t v[TASKCOUNT__NR])
{
	struct proc_row *rows;
	ssize_t sn = read_rows(&rows);
	size_t n = sn > 0 ? (size_t)sn : 0, i;

	memset(v, 0, TASKCOUNT__NR * sizeof(*v));
	for (i = 0; i < n; i++) {
		if (!in_tree(rows, n, i, roots, nr))
			continue;
		v[TC_MINOR] += rows[i].minflt;
		v[TC_MAJOR] += rows[i].majflt;
		v[TC_SWITCHES] += read_switches(rows[i].pid);
	}
	v[TC_FAULTS] = v[TC_MINOR] + v[TC_MAJOR];
	free(rows);
}

/* The machine's faults and switches (-a). */
static void read_machine(uint64_t v[TASKCOUNT__NR])
{
	/* /proc/stat's intr line has a number per interrupt: tens of KiB on big machines */
	const size_t size = 256 * 1024;
	char *buf = xmalloc(size);
	uint64_t all, maj;

	memset(v, 0, TASKCOUNT__NR * sizeof(*v));
	if (read_small("/proc/vmstat", buf, size) > 0) {
		all = field_after(buf, "pgfault ");
		maj = field_after(buf, "pgmajfault ");
		v[TC_FAULTS] = all;
		v[TC_MAJOR] = maj;
		v[TC_MINOR] = all > maj ? all - maj : 0;
	}
	if (read_small("/proc/stat", buf, size) > 0)
		v[TC_SWITCHES] = field_after(buf, "ctxt ");
	free(buf);
}

static void read_raw(const struct taskcount_source *tc, uint64_t v[TASKCOUNT__NR])
{
	if (tc->system_wide)
		read_machine(v);
	else
		read_tree(tc->pids, tc->nr_pids, v);
}

/* A reading of the run's target, less what it had at the open (clamped at 0). */
static void read_now(struct taskcount_source *tc, uint64_t v[TASKCOUNT__NR])
{
	size_t i;

	read_raw(tc, v);
	for (i = 0; i < TASKCOUNT__NR; i++)
		v[i] = v[i] > tc->base[i] ? v[i] - tc->base[i] : 0;
}

static int src_open(void *ctx, const struct record_target *t, struct profile *p,
		    uint32_t run, struct errmsg *e)
{
	struct taskcount_source *tc = ctx;
	bool intervals = tc->intervals;

	free(tc->pids);
	memset(tc, 0, sizeof(*tc));
	tc->intervals = intervals;
	tc->fork = t->fork;
	tc->system_wide = t->system_wide;
	if (!t->system_wide && t->nr_pids) {
		tc->nr_pids = t->nr_pids;
		tc->pids = xmalloc(t->nr_pids * sizeof(*tc->pids));
		memcpy(tc->pids, t->pids, t->nr_pids * sizeof(*tc->pids));
	}
	/* fork: the child, blocked before its exec (perf's counters start at the exec) */
	read_raw(tc, tc->base);
	return 0;
}

static void src_start(void *ctx, int64_t start_ns)
{
	struct taskcount_source *tc = ctx;

	tc->t0_ns = tc->last_ns = start_ns;
}

static void add_interval(struct taskcount_source *tc, struct profile *p, uint32_t run,
			 int64_t now_ns, const uint64_t v[TASKCOUNT__NR])
{
	uint64_t len = (uint64_t)(now_ns > tc->last_ns ? now_ns - tc->last_ns : 1);
	size_t i;

	for (i = 0; i < TASKCOUNT__NR; i++) {
		struct counter_interval ci;

		memset(&ci, 0, sizeof(ci));
		ci.run = run;
		ci.name = profile__intern(p, tc_names[i]);
		ci.t_ns = (uint64_t)(now_ns - tc->t0_ns);
		/* a process that left the tree takes its counts along: never below 0 */
		ci.value = v[i] > tc->last[i] ? v[i] - tc->last[i] : 0;
		ci.enabled = ci.running = len;
		profile__add_interval(p, &ci);
		tc->sum[i] += ci.value;
		tc->last[i] = v[i];
	}
	tc->last_ns = now_ns;
}

static void src_tick(void *ctx, struct profile *p, uint32_t run, int64_t now_ns)
{
	struct taskcount_source *tc = ctx;
	uint64_t v[TASKCOUNT__NR];

	if (!tc->intervals)
		return;
	read_now(tc, v);
	add_interval(tc, p, run, now_ns, v);
}

static void src_stop(void *ctx, struct profile *p, uint32_t run, int64_t now_ns)
{
	struct taskcount_source *tc = ctx;

	tc->stop_ns = now_ns;
}

/*
 * The totals: fork mode's from the workload's rusage (r, filled by now),
 * the others' from a last reading; the last interval takes what the
 * readings did not see, so that the intervals sum to the totals.
 */
static int src_end_run(void *ctx, struct profile *p, uint32_t run, struct run *r,
		       struct errmsg *e)
{
	struct taskcount_source *tc = ctx;
	uint64_t v[TASKCOUNT__NR], total[TASKCOUNT__NR];
	uint64_t wall = (uint64_t)(tc->stop_ns > tc->t0_ns ? tc->stop_ns - tc->t0_ns : 1);
	size_t i;

	if (tc->fork) {
		v[TC_MINOR] = (uint64_t)(r->minflt > 0 ? r->minflt : 0);
		v[TC_MAJOR] = (uint64_t)(r->majflt > 0 ? r->majflt : 0);
		v[TC_FAULTS] = v[TC_MINOR] + v[TC_MAJOR];
		v[TC_SWITCHES] = (uint64_t)(r->nvcsw > 0 ? r->nvcsw : 0) +
				 (uint64_t)(r->nivcsw > 0 ? r->nivcsw : 0);
		for (i = 0; i < TASKCOUNT__NR; i++)
			v[i] = v[i] > tc->base[i] ? v[i] - tc->base[i] : 0;
		/* an orphan seen in the readings is not in the rusage: the readings stand */
		for (i = 0; i < TASKCOUNT__NR; i++)
			if (v[i] < tc->last[i])
				v[i] = tc->last[i];
	} else {
		read_now(tc, v);
	}
	if (tc->intervals && tc->stop_ns > tc->last_ns)
		add_interval(tc, p, run, tc->stop_ns, v);
	for (i = 0; i < TASKCOUNT__NR; i++) {
		struct counter ct;

		total[i] = tc->intervals ? tc->sum[i] : v[i];
		memset(&ct, 0, sizeof(ct));
		ct.run = run;
		ct.name = profile__intern(p, tc_names[i]);
		ct.supported = 1;
		ct.value = total[i];
		ct.enabled = ct.running = wall;
		profile__add_counter(p, &ct);
	}
	return 0;
}

static void src_close(void *ctx)
{
	struct taskcount_source *tc = ctx;

	free(tc->pids);
	tc->pids = NULL;
	tc->nr_pids = 0;
}

const struct runsrc_ops taskcount_source_ops = {
	.open = src_open,
	.start = src_start,
	.tick = src_tick,
	.stop = src_stop,
	.end_run = src_end_run,
	.close = src_close,
};
