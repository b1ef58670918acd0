/*
 * sampler-open: one run's events opened on the target, and when the kernel
 * refuses, one line saying why and what would work; see
 * src/record/sampler-int.h.
 *
 * libperf is perfsession's (perfsession.h), its quirks too: an open
 * refused for a setting is tried again as a new event without it, the
 * ids of several events are read before the ring buffers are mapped
 * (perfsession__mmap hides read_format ID from libperf), and the kernel's
 * lost count is perfsession__lost.
 */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "sampler-int.h"
#include "mmprof/sysinfo.h"
#include "mmprof/xalloc.h"

void sampler__teardown(struct sampler *s)
{
	size_t i;

	sampler__worker_stop(s);	/* takes what was queued */
	perfsession__close(&s->ps);
	for (i = 0; i < s->nr_evs; i++)
		s->evs[i].evsel = NULL;
}

static void make_attr(const struct sampler *s, const struct evspec *sp, bool first,
		      bool enable_on_exec, struct perf_event_attr *a)
{
	*a = sp->attr;
	a->size = sizeof(*a);
	a->sample_type = s->sample_type;
	a->read_format = s->nr_evs > 1 ? PERF_FORMAT_ID : 0;
	/* the kernel's own count of what it could not write (sampler__close) */
	a->read_format |= PERF_FORMAT_LOST;
	if (sp->tracepoint) {
		/* every hit, as perf does, unless -c says otherwise */
		a->sample_period = s->opts.period ? s->opts.period : 1;
	} else if (s->opts.period) {
		a->sample_period = s->opts.period;
	} else {
		a->freq = 1;
		a->sample_freq = (uint64_t)s->opts.freq;
	}
	if (s->unwinder) {
		/* perf's --call-graph dwarf: the kernel's chain stops at the user boundary */
		a->sample_regs_user = UNWIND__REGS_MASK;
		a->sample_stack_user = s->opts.stack_size;
		a->exclude_callchain_user = 1;
	}
	/*
	 * --call-graph lbr keeps the kernel's user chain, as perf does: its
	 * PERF_CONTEXT_USER marks where the LBR's part goes, and its first
	 * entry is the user IP of a sample taken in the kernel.
	 */
	a->branch_sample_type = s->branch_type;
	a->sample_id_all = 1;
	a->inherit = 1;
	a->disabled = 1;
	a->enable_on_exec = enable_on_exec;
	a->exclude_guest = 1;
	/* wake at a quarter full: three quarters of headroom while we drain */
	a->watermark = 1;
	a->wakeup_watermark = (uint32_t)((size_t)s->opts.mmap_pages * (size_t)getpagesize() / 4);
	if (first) {
		/* side-band records once, not once per event */
		a->mmap = 1;
		a->mmap2 = 1;
		a->comm = 1;
		a->comm_exec = 1;
		a->task = 1;
		/*
		 * BPF programs, trampolines and ftrace text as they come and
		 * go, with their lengths (symbols__ksymbol).  Not bpf_event:
		 * its records carry only a program's id and tag, for reading
		 * program info perf uses to annotate; the kernel sends
		 * KSYMBOL records whenever an event asks for them.
		 */
		a->ksymbol = 1;
	}
}

static int try_open(struct sampler *s, size_t i, const struct evspec *sp, bool eoe)
{
	struct perf_event_attr attr;
	struct perf_evsel *evsel;
	int err;

	make_attr(s, sp, i == 0, eoe, &attr);
	err = perfsession__open_event(&s->ps, &attr, &evsel);
	if (err == -EINVAL) {
		/* kernels before 6.0 do not give an event's lost count */
		attr.read_format &= ~(uint64_t)PERF_FORMAT_LOST;
		err = perfsession__open_event(&s->ps, &attr, &evsel);
	}
	if (err == -EINVAL && attr.ksymbol) {
		/* kernels before 5.1 have no KSYMBOL records */
		attr.ksymbol = 0;
		err = perfsession__open_event(&s->ps, &attr, &evsel);
	}
	if (err == -EINVAL && (s->branch_type & LBR_OPTIONAL)) {
		/* kernels before 4.7 know neither NO_FLAGS nor NO_CYCLES */
		attr.branch_sample_type &= ~(uint64_t)LBR_OPTIONAL;
		err = perfsession__open_event(&s->ps, &attr, &evsel);
		if (!err)
			s->branch_type &= ~(uint64_t)LBR_OPTIONAL;
	}
	if (err)
		return err;
	s->evs[i].evsel = evsel;
	return 0;
}

static long read_sysctl(const char *path)
{
	char buf[32] = "";
	FILE *f = fopen(path, "r");
	long v = LONG_MIN;

	if (f) {
		if (fgets(buf, sizeof(buf), f))
			v = strtol(buf, NULL, 10);
		fclose(f);
	}
	return v;
}

/*
 * --call-graph lbr, an open refused for want of branch records: no
 * hardware PMU at all (virtual machines), or one without LBR (AMD before
 * Zen 4, or a hypervisor that does not pass it through).
 */
static int lbr_error(const char *name, int err, struct errmsg *e)
{
	const char *why;
	char caps[16] = "";
	FILE *f;

	if (access("/sys/bus/event_source/devices/cpu", F_OK) &&
	    access("/sys/bus/event_source/devices/cpu_core", F_OK)) {
		why = "no hardware PMU";
	} else {
		f = fopen("/sys/bus/event_source/devices/cpu/caps/branches", "r");
		if (!f)		/* hybrid Intel: the big cores' PMU */
			f = fopen("/sys/bus/event_source/devices/cpu_core/caps/branches", "r");
		if (f) {
			if (!fgets(caps, sizeof(caps), f))
				caps[0] = '\0';
			fclose(f);
		}
		why = atoi(caps) > 0 ? "the PMU refused them" : "the cpu PMU lists none";
	}
	return errmsg__set(e, err, "--call-graph lbr: this machine's PMU has no last branch "
			   "records (%s; %s: %s); use --call-graph dwarf or fp", why, name,
			   strerror(-err));
}

/* CAP_PERFMON (38) or CAP_SYS_ADMIN (21) in the effective set: paranoid does not apply. */
static bool perfmon_capable(void)
{
	char line[128];
	unsigned long long caps = 0;
	FILE *f = fopen("/proc/self/status", "r");

	if (!f)
		return geteuid() == 0;
	while (fgets(line, sizeof(line), f))
		if (!strncmp(line, "CapEff:", 7))
			caps = strtoull(line + 7, NULL, 16);
	fclose(f);
	return caps & (1ULL << 38 | 1ULL << 21);
}

/* A core PMU (hybrid Intel: cpu_core), where cycles can be sampled at all. */
static bool has_core_pmu(void)
{
	return !access("/sys/bus/event_source/devices/cpu", F_OK) ||
	       !access("/sys/bus/event_source/devices/cpu_core", F_OK);
}

/*
 * name with its kernel and hypervisor modifiers replaced by u (precision
 * kept): what a user may sample at kernel.perf_event_paranoid 2.  The
 * default event suggests what this machine can open: cycles with a core
 * PMU, cpu-clock without.
 */
static void user_only(const struct sampler *s, const char *name, char *buf, size_t size)
{
	const char *mods = strstr(name, "/:"), *m;
	size_t blen, n;

	if (s->is_default && !s->chosen)
		name = has_core_pmu() ? "cycles" : "cpu-clock";
	if (mods)
		mods++;
	else if (!strchr(name, '/'))
		mods = strchr(name, ':');
	blen = mods ? (size_t)(mods - name) : strlen(name);
	n = (size_t)snprintf(buf, size, "%.*s:u", (int)blen, name);
	for (m = mods ? mods + 1 : ""; *m && n + 1 < size; m++)
		if (*m == 'p')
			buf[n++] = 'p', buf[n] = '\0';
}

/*
 * EACCES/EPERM: what kernel.perf_event_paranoid allows a user without
 * CAP_PERFMON, as perf's evsel__open_strerror lists it, and what works at
 * that level: user space only (:u) at 2, a command or -p at 1, -a at 0,
 * tracepoints (their raw data) only at -1.  3 and above is a distribution
 * patch (Debian, Android) that allows nothing.  Another user's process
 * (-p) is refused at every level (the kernel's ptrace check): paranoid
 * and :u are no remedy there, only root or that user.
 */
static int access_error(const struct sampler *s, const struct evspec *sp,
			const struct record_target *t, int err, struct errmsg *e)
{
	static const char *const allows[] = {
		"everything",
		"any event on their own processes and CPU-wide (-a), except tracepoints",
		"their own processes, user and kernel space, but not CPU-wide (-a)",
		"only the user space of their own processes",
		"no perf events at all",
	};
	char what[320], user[160];
	long v = read_sysctl("/proc/sys/kernel/perf_event_paranoid");
	const char *name = sp->name;
	pid_t other = 0;
	uid_t owner = 0;

	if (!t->system_wide && !t->fork)
		other = sysinfo__foreign_pid(t->pids, t->nr_pids, &owner);
	if (other)
		return errmsg__set(e, err, "cannot open event '%s': %s; process %d is another user's "
				   "(uid %u): perf events on it need CAP_SYS_PTRACE whatever "
				   "kernel.perf_event_paranoid is, so neither :u nor a lower setting "
				   "helps: run as root, or as uid %u", name, strerror(-err), (int)other,
				   (unsigned)owner, (unsigned)owner);
	if (perfmon_capable())
		return errmsg__set(e, err, "cannot open event '%s': %s, even with CAP_PERFMON: a "
				   "security module (SELinux, AppArmor, lockdown) refuses it",
				   name, strerror(-err));
	if (v == LONG_MIN)
		return errmsg__set(e, err, "cannot open event '%s': %s; cannot read "
				   "kernel.perf_event_paranoid: run as root", name, strerror(-err));
	if (v >= 3)
		snprintf(what, sizeof(what), "run as root (or `sysctl kernel.perf_event_paranoid=2` "
			 "allows user-space-only recording of your own processes)");
	else if (sp->tracepoint && v >= 0)
		snprintf(what, sizeof(what), "tracepoints need root or "
			 "`sysctl kernel.perf_event_paranoid=-1`");
	else if (t->system_wide && v >= 1)
		snprintf(what, sizeof(what), "-a needs root or `sysctl kernel.perf_event_paranoid=0`; "
			 "or record a command or -p PID%s", v >= 2 ? " with :u events" : "");
	else if (!sp->attr.exclude_kernel && v >= 2) {
		user_only(s, name, user, sizeof(user));
		snprintf(what, sizeof(what), "add :u (-e %s), or run as root "
			 "(`sysctl kernel.perf_event_paranoid=1` allows the kernel too)", user);
	} else
		snprintf(what, sizeof(what), "the process is not yours (or a security module "
			 "refuses it): run as root");
	return errmsg__set(e, err, "cannot open event '%s': %s; kernel.perf_event_paranoid is %ld, "
			   "which allows users without CAP_PERFMON %s: %s", name, strerror(-err), v,
			   allows[v < -1 ? 0 : v > 3 ? 4 : v + 1], what);
}

/*
 * perf's fallback (evsel__fallback): a user without CAP_PERFMON at
 * kernel.perf_event_paranoid 2 may sample only user space, so an event
 * that includes the kernel is opened again with exclude_kernel and
 * exclude_hv, and named NAME:u.  Not at 3 and above (nothing is allowed),
 * not for -a (refused at 2 whatever the modifiers), tracepoints (kernel
 * events) or another user's process (the ptrace check refuses :u too).
 */
static bool may_sample_user_only(const struct evspec *sp, const struct record_target *t, int err)
{
	long v;

	if ((err != -EACCES && err != -EPERM) || sp->attr.exclude_kernel || sp->tracepoint ||
	    t->system_wide || perfmon_capable())
		return false;
	if (!t->fork && sysinfo__foreign_pid(t->pids, t->nr_pids, &(uid_t){ 0 }))
		return false;
	v = read_sysctl("/proc/sys/kernel/perf_event_paranoid");
	return v == 2;
}

/* The one warning of the fallback, naming every event that fell back. */
static void note_user_only(struct sampler *s, const char *user)
{
	size_t n = strlen(s->user_note);

	if (!n)
		snprintf(s->user_note, sizeof(s->user_note), "kernel.perf_event_paranoid is 2 and "
			 "this user has no CAP_PERFMON: sampling user space only, as perf does (%s); "
			 "kernel functions are not in the profile (root, or `sysctl "
			 "kernel.perf_event_paranoid=1`, records them)", user);
	else if (n + strlen(user) + 8 < sizeof(s->user_note))
		/* one more event: named in the same parenthesis */
		snprintf(strstr(s->user_note, "); kernel"), sizeof(s->user_note) - n + 1,
			 ", %s); kernel functions are not in the profile (root, or `sysctl "
			 "kernel.perf_event_paranoid=1`, records them)", user);
}

/* sp as user space only, named as user_only spells it. */
static void fall_back_to_user(struct sampler *s, struct evspec *sp, const char *name)
{
	char user[sizeof(sp->name)];

	user_only(s, name, user, sizeof(user));
	snprintf(sp->name, sizeof(sp->name), "%s", user);
	sp->attr.exclude_kernel = 1;
	sp->attr.exclude_hv = 1;
	note_user_only(s, user);
}

static int open_error(const struct sampler *s, const struct evspec *sp,
		      const struct record_target *t, int err, struct errmsg *e)
{
	const char *name = sp->name;
	long v;

	switch (-err) {
	case EACCES:
	case EPERM:
		return access_error(s, sp, t, err, e);
	case ENOENT:
	case EOPNOTSUPP:
	case ENODEV:
	case ENXIO:
		if (s->branch_type)
			return lbr_error(name, err, e);
		return errmsg__set(e, err, "cannot open event '%s': %s; this machine does not "
				   "have it ('perf list' shows the events it has)", name, strerror(-err));
	case EINVAL:
		v = read_sysctl("/proc/sys/kernel/perf_event_max_sample_rate");
		if (s->opts.freq && v != LONG_MIN && s->opts.freq > v)
			return errmsg__set(e, err, "cannot open event '%s': -F %d is above "
					   "kernel.perf_event_max_sample_rate (%ld): lower -F, "
					   "or leave out --strict-freq to sample at %ld Hz",
					   name, s->opts.freq, v, v);
		if (s->branch_type)
			return lbr_error(name, err, e);
		return errmsg__set(e, err, "cannot open event '%s': %s; the event, its modifiers "
				   "or the sampling settings are not supported here", name,
				   strerror(-err));
	case EMFILE:
		return errmsg__set(e, err, "cannot open event '%s': %s; raise the limit with "
				   "`ulimit -n`", name, strerror(-err));
	case ESRCH:
		return errmsg__set(e, err, "cannot open event '%s': the target process is gone",
				   name);
	case EBUSY:
		return errmsg__set(e, err, "cannot open event '%s': %s; another tool holds the "
				   "PMU", name, strerror(-err));
	default:
		return errmsg__set(e, err, "cannot open event '%s': %s", name, strerror(-err));
	}
}

static bool no_pmu(int err)
{
	return err == -ENOENT || err == -EOPNOTSUPP || err == -ENODEV || err == -ENXIO;
}

/*
 * cycles:ppp down to cycles, then cpu-clock when there is no PMU at all;
 * refused for the kernel (paranoid 2), the same as user space only: the
 * name then says which one was tried (cycles:u, or cpu-clock:u where
 * there is no PMU).
 */
static int open_default(struct sampler *s, const struct record_target *t, struct errmsg *e)
{
	struct evspec sp = s->evs[0].spec;
	bool eoe = t->enable_on_exec, user = false;
	int precise, err = 0;

	for (precise = 3; precise >= 0; precise--) {
		sp.attr.precise_ip = precise;
		err = try_open(s, 0, &sp, eoe);
		if (!err) {
			snprintf(sp.name, sizeof(sp.name), "cycles%s%s%.*s",
				 precise || user ? ":" : "", user ? "u" : "", precise, "ppp");
			if (user)
				note_user_only(s, sp.name);
			s->evs[0].spec = sp;
			return 0;
		}
		if (!user && may_sample_user_only(&sp, t, err)) {
			/* the kernel's paranoid check comes before the PMU lookup: try again */
			user = true;
			sp.attr.exclude_kernel = sp.attr.exclude_hv = 1;
			precise = 4;
			continue;
		}
		/* refused before the PMU lookup: without a PMU it is cpu-clock's error */
		if ((err == -EACCES || err == -EPERM) && !has_core_pmu() && !s->branch_type)
			break;
		if (err == -EACCES || err == -EPERM || err == -EMFILE || err == -ESRCH ||
		    err == -ENOMEM) {
			if (user)
				snprintf(sp.name, sizeof(sp.name), "cycles:u");
			return open_error(s, &sp, t, err, e);
		}
	}
	/* a software event has no branch records: no cpu-clock fallback for lbr */
	if ((!no_pmu(err) && has_core_pmu()) || s->branch_type) {
		if (user)
			snprintf(sp.name, sizeof(sp.name), "cycles:u");
		return open_error(s, &sp, t, err, e);
	}
	if (no_pmu(err))
		snprintf(s->note, sizeof(s->note), "no hardware PMU (cycles: %s); sampling "
			 "cpu-clock instead", strerror(-err));
	else
		snprintf(s->note, sizeof(s->note), "no hardware PMU; sampling cpu-clock instead");
	evspec__parse(user ? "cpu-clock:u" : "cpu-clock", &sp, NULL);
	err = try_open(s, 0, &sp, eoe);
	if (!user && may_sample_user_only(&sp, t, err)) {
		user = true;
		evspec__parse("cpu-clock:u", &sp, NULL);
		err = try_open(s, 0, &sp, eoe);
	}
	if (err)
		return open_error(s, &sp, t, err, e);
	if (user)
		note_user_only(s, sp.name);
	s->evs[0].spec = sp;
	return 0;
}

static int id_cmp(const void *a, const void *b)
{
	const struct id_map *x = a, *y = b;

	return x->id < y->id ? -1 : x->id > y->id;
}

struct id_sink {
	struct sampler *s;
	uint32_t event;
};

static void add_id(void *ctx, uint64_t id)
{
	struct id_sink *k = ctx;
	struct sampler *s = k->s;

	XGROW(s->ids, s->alloc_ids, s->nr_ids);
	s->ids[s->nr_ids].id = id;
	s->ids[s->nr_ids++].event = k->event;
}

/* Learn each fd's id (read_format ID), sorted, to tell the events' samples apart. */
static int read_ids(struct sampler *s, struct errmsg *e)
{
	size_t i;
	int err;

	s->nr_ids = 0;
	for (i = 0; i < s->nr_evs; i++) {
		struct id_sink k = { s, (uint32_t)i };

		err = perfsession__read_ids(s->evs[i].evsel, add_id, &k);
		if (err)
			return errmsg__set(e, err, "cannot read the id of event '%s': %s",
					   s->evs[i].spec.name, strerror(-err));
	}
	qsort(s->ids, s->nr_ids, sizeof(*s->ids), id_cmp);
	return 0;
}

/*
 * After the events are disabled: what the kernel could not write, by its
 * own count (PERF_FORMAT_LOST).  A loss still pending when the events
 * stop (the buffer full to the end) never becomes a LOST record; this
 * count has it.  0 where the kernel gives no count (before 6.0) or a
 * read fails.
 */
uint64_t sampler__kernel_lost(struct sampler *s)
{
	uint64_t lost;

	return perfsession__lost(&s->ps, &lost) ? 0 : lost;
}

static int add_task_ids(pid_t pid, pid_t **tids, size_t *nr, size_t *alloc)
{
	char path[64];
	struct dirent *d;
	DIR *dir;

	snprintf(path, sizeof(path), "/proc/%d/task", (int)pid);
	dir = opendir(path);
	if (!dir)
		return -errno;
	while ((d = readdir(dir))) {
		if (!isdigit((unsigned char)d->d_name[0]))
			continue;
		xgrow((void **)tids, alloc, *nr, sizeof(**tids));
		(*tids)[(*nr)++] = atoi(d->d_name);
	}
	closedir(dir);
	return 0;
}

/* The session on the target: every thread of its processes, or per CPU (-a). */
static int open_session(struct sampler *s, const struct record_target *t, struct errmsg *e)
{
	pid_t *tids = NULL;
	size_t nr = 0, alloc = 0, i;
	int err;

	if (t->system_wide)
		return perfsession__open(&s->ps, t->cpu_list, NULL, 0, e);
	if (!t->nr_pids)
		return errmsg__set(e, -EINVAL, "no process to sample");
	for (i = 0; i < t->nr_pids; i++) {
		err = add_task_ids(t->pids[i], &tids, &nr, &alloc);
		if (err) {
			free(tids);
			return errmsg__set(e, err == -ENOENT ? -ESRCH : err,
					   "cannot sample process %d: %s", (int)t->pids[i],
					   err == -ENOENT ? "no such process" : strerror(-err));
		}
	}
	err = perfsession__open(&s->ps, t->cpu_list, tids, nr, e);
	free(tids);
	return err;
}

/*
 * The kernel refuses a frequency above kernel.perf_event_max_sample_rate,
 * and lowers that limit itself while sampling when its interrupts take too
 * long (a busy machine after a few high-frequency runs), so a -F that
 * worked a minute ago can fail now.  Sample at the limit and say so, as
 * perf record does, unless --strict-freq.
 */
static void lower_freq(struct sampler *s)
{
	bool sampled = false;
	size_t i;
	long max;

	s->freq_note[0] = '\0';
	for (i = 0; i < s->nr_evs; i++)
		sampled |= !s->evs[i].spec.tracepoint;	/* tracepoints: every hit */
	if (!sampled || !s->opts.freq || s->opts.strict_freq)
		return;
	max = read_sysctl("/proc/sys/kernel/perf_event_max_sample_rate");
	if (max == LONG_MIN || max <= 0 || s->opts.freq <= max)
		return;
	snprintf(s->freq_note, sizeof(s->freq_note), "-F %d is above "
		 "kernel.perf_event_max_sample_rate; sampling at %ld Hz (the kernel lowers "
		 "that limit when sampling interrupts take too long; --strict-freq refuses "
		 "instead)", s->opts.freq, max);
	s->opts.freq = (int)max;
}

/*
 * Ring buffers of -a without -m: a second of samples a CPU at the rate
 * asked (256 bytes a sample with a call chain, 64 without), a power of 2
 * between the default (1 MiB) and 8 MiB, all CPUs together at most
 * 128 MiB.  Under a heavy load the reading thread waits for a CPU for
 * hundreds of milliseconds at a time, and what the kernel writes
 * meanwhile must fit: at -F 20000 with -g, 20 s runs under section 8's
 * load lost 13 k to 53 k samples with 1 MiB a CPU, none in twelve with
 * 8 MiB (Documentation/performance.md).  Only root: the kernel locks
 * these pages, and a user's lock budget (kernel.perf_event_mlock_kb a
 * CPU) is less than the default already.  Per-process runs and -F up to
 * 4 kHz keep the default.
 */
static void choose_pages(struct sampler *s, const struct record_target *t)
{
	uint64_t want, most;
	long cpus, page = sysconf(_SC_PAGESIZE);
	int pages = DEFAULT_MMAP_PAGES;

	if (!s->auto_pages)
		return;
	s->opts.mmap_pages = DEFAULT_MMAP_PAGES;
	cpus = sysconf(_SC_NPROCESSORS_ONLN);
	if (!t->system_wide || !s->opts.freq || geteuid() != 0 || page <= 0 || cpus <= 0)
		return;
	want = (uint64_t)s->opts.freq *
	       (s->sample_type & (PERF_SAMPLE_CALLCHAIN | PERF_SAMPLE_BRANCH_STACK) ? 256 : 64);
	most = SYSWIDE_MMAP_BYTES_MAX / (uint64_t)cpus;
	while (pages < SYSWIDE_MMAP_PAGES_MAX && (uint64_t)pages * (uint64_t)page < want &&
	       (uint64_t)pages * 2 * (uint64_t)page <= most)
		pages *= 2;
	s->opts.mmap_pages = pages;
}

int sampler__open(struct sampler *s, const struct record_target *t, struct errmsg *e)
{
	size_t i;
	int err;

	sampler__teardown(s);
	s->q.tried = false;
	s->exec_note[0] = '\0';
	lower_freq(s);
	choose_pages(s, t);
	err = open_session(s, t, e);
	if (err)
		return err;

	for (i = 0; i < s->nr_evs; i++) {
		struct evspec *sp = &s->evs[i].spec;

		if (s->is_default && !s->chosen) {
			err = open_default(s, t, e);
		} else if ((err = try_open(s, i, sp, t->enable_on_exec))) {
			/* the first run settles it: later runs open the :u spec */
			if (!s->chosen && may_sample_user_only(sp, t, err)) {
				struct evspec user = *sp;

				fall_back_to_user(s, &user, sp->name);
				err = try_open(s, i, &user, t->enable_on_exec);
				if (!err)
					*sp = user;
				else
					s->user_note[0] = '\0';
			}
			if (err)
				open_error(s, sp, t, err, e);
		}
		if (err)
			goto out_teardown;
	}
	s->chosen = true;
	if (s->nr_evs > 1 && (err = read_ids(s, e)))
		goto out_teardown;
	err = perfsession__mmap(&s->ps, s->opts.mmap_pages);
	if (err) {
		if (err == -EPERM || err == -ENOMEM)
			errmsg__set(e, err, "cannot map %d-page ring buffers: %s; lower -m or "
				    "raise kernel.perf_event_mlock_kb", s->opts.mmap_pages,
				    strerror(-err));
		else
			errmsg__set(e, err, "cannot map the ring buffers: %s", strerror(-err));
		goto out_teardown;
	}

	s->system_wide = t->system_wide;
	s->need_proc = t->system_wide || !t->enable_on_exec;
	s->proc_done = false;
	free(s->pids);
	s->pids = NULL;
	s->nr_pids = t->system_wide ? 0 : t->nr_pids;
	if (s->nr_pids) {
		s->pids = xmalloc(s->nr_pids * sizeof(*s->pids));
		memcpy(s->pids, t->pids, s->nr_pids * sizeof(*s->pids));
	}
	if (t->system_wide)
		sampler__set_comm(s, 0, sampler__comm_intern(s, "swapper"));
	return 0;

out_teardown:
	sampler__teardown(s);
	return err;
}

void sampler__enable(struct sampler *s)
{
	if (!perfsession__is_open(&s->ps))
		return;
	/* the worker may be up (a --delay): the comms and maps are shared */
	pthread_mutex_lock(&s->q.sym_lock);
	sampler__read_proc(s);
	pthread_mutex_unlock(&s->q.sym_lock);
	perfsession__enable(&s->ps);
}

void sampler__disable(struct sampler *s)
{
	perfsession__disable(&s->ps);
}

int sampler__poll(struct sampler *s, int timeout_ms)
{
	return perfsession__poll(&s->ps, timeout_ms);
}
