/*
 * sampler: callchain sampling through libperf; see include/mmprof/sampler.h.
 *
 * Per run: sampler__open builds a fresh evlist (one evsel per event, all
 * sharing per-CPU ring buffers), the caller polls and drains, sampler__close
 * tears the evlist down and sampler__end_run turns the raw aggregate into
 * profile counts.  Event choice (the default's fallback) is made once, on
 * the first open, and reused by later runs.
 *
 * libperf itself is perfsession's (perfsession.h); one quirk stays here:
 *  - read_format ID makes perf_evlist__mmap allocate per-evsel id tables
 *    nothing public frees: ids are read before mmap and the bit is cleared
 *    from libperf's copy of the attr (the kernel keeps its own).
 */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <linux/perf_event.h>
#include <perf/cpumap.h>
#include <perf/event.h>
#include <perf/evsel.h>
#include <perf/threadmap.h>

#include "mmprof/evspec.h"
#include "mmprof/hashidx.h"
#include "mmprof/perfsession.h"
#include "mmprof/sample.h"
#include "mmprof/sampler.h"
#include "mmprof/stackagg.h"
#include "mmprof/unwind.h"
#include "mmprof/xalloc.h"

#define DEFAULT_FREQ		4000	/* perf record's default -F */
#define DEFAULT_MMAP_PAGES	256	/* 1 MiB per CPU with 4 KiB pages */
#define DWARF_MMAP_PAGES	1024	/* --call-graph dwarf: samples of ~8 KiB each */
#define COMM_LEN		16	/* TASK_COMM_LEN */
/* branch_sample_type bits that only save work: dropped if the kernel refuses them */
#define LBR_OPTIONAL		(PERF_SAMPLE_BRANCH_NO_FLAGS | PERF_SAMPLE_BRANCH_NO_CYCLES)

struct sampler_event {
	struct evspec spec;	/* attr template: type, config, modifiers */
	char asked[128];	/* as the user wrote it ("cycles" for the default) */
	struct perf_evsel *evsel;	/* this run's, NULL when closed */
};

struct id_map {
	uint64_t id;
	uint32_t event;
};

/* Comm of a thread, with the one before so samples read late get the right one. */
struct tid_comm {
	int32_t tid;		/* -1 when the slot is free */
	uint32_t comm, prev;	/* local comm ids */
	uint64_t since;		/* perf clock time of the change */
};

struct frame_row {
	uint64_t addr;
	int32_t pid;		/* 0 for kernel addresses: one entry per address */
	uint32_t kernel;
	uint32_t frame;		/* profile frame id */
};

struct sampler {
	struct sampler_opts opts;
	struct symbols *syms;
	struct sampler_event *evs;
	size_t nr_evs;
	bool is_default;	/* no -e: cycles with fallback */
	bool chosen;		/* events settled by a successful open */
	char note[256];
	char freq_note[256];	/* this open lowered -F; empty: it did not */
	uint64_t sample_type;

	/* this run */
	struct perfsession ps;
	bool system_wide, need_proc;	/* read /proc at enable (no exec records) */
	pid_t *pids;
	size_t nr_pids;
	bool proc_done;
	struct id_map *ids;
	size_t nr_ids, alloc_ids;
	uint64_t lost, throttled, bad;
	uint64_t chains_cut;	/* all runs: user chains cut at a junk frame */
	struct stackagg agg;
	/*
	 * --call-graph dwarf: samples carry a user stack copy and wait in the
	 * side-band queue, so that each is unwound with the maps of its own
	 * time (an exec or dlopen read later from another CPU is applied
	 * first); counted when queued (in) and when unwound (out).
	 */
	struct unwinder *unwinder;
	uint64_t deferred_in, deferred_out;
	uint64_t *scratch;
	size_t alloc_scratch;
	/*
	 * --call-graph lbr: the branch_sample_type asked for (NO_FLAGS and
	 * NO_CYCLES dropped if the kernel refuses them) and the chain each
	 * sample's branch stack is turned into (sample__lbr_chain).
	 */
	uint64_t branch_type;
	uint64_t *lbr;
	size_t alloc_lbr;

	/*
	 * Side-band records (COMM, MMAP, FORK, EXIT), copied and applied to
	 * the symbols context in time order: the per-CPU buffers are read one
	 * after another, so an exec's COMM on one CPU can be read after the
	 * new image's MMAP2s from another, and applying it late would wipe
	 * those maps.  A record is held only until no earlier one can still
	 * come (perf's ordered-events rule): after each full drain round,
	 * those stamped no later than the newest time read by the end of the
	 * round before are applied, since they were written before this
	 * round began reading.  So the queue holds about one round of
	 * records, not the run's (fork-heavy loads made that grow with time).
	 */
	struct reorderq sb;
	uint64_t sb_last_time;
	uint64_t seen_max;	/* newest record time read */
	uint64_t sb_safe;	/* seen_max at the end of the last round, 0: none yet */

	/* comm strings (local ids, 1-based) and per-thread comm */
	char (*comms)[COMM_LEN + 8];
	size_t nr_comms, alloc_comms;
	struct hashidx comm_idx;
	struct tid_comm *tids;
	size_t tid_mask, nr_tids;

	/* resolution caches, valid for one profile (across its runs) */
	struct profile *cache_p;
	struct frame_row *frows;
	size_t nr_frows, alloc_frows;
	struct hashidx frow_idx;
	uint32_t *comm_str;	/* local comm id -> profile string id */
	size_t alloc_comm_str;
	/* --inline: per real frame id, 1 + where its inline frames start in inl_ids */
	uint32_t *inl_at, *inl_ids;	/* inl_ids: count, then the frame ids */
	size_t alloc_inl_at, nr_inl_ids, alloc_inl_ids;
	uint32_t *frames;
	size_t alloc_frames;
	uint32_t first_event;
};

/* ---- comm tracking ------------------------------------------------------ */

static bool comm_eq(const void *ctx, uint32_t row, const void *key)
{
	const struct sampler *s = ctx;

	return !strcmp(s->comms[row], key);
}

static uint32_t comm_intern(struct sampler *s, const char *name)
{
	char buf[COMM_LEN + 8];
	uint64_t h;
	uint32_t row;

	snprintf(buf, sizeof(buf), "%.*s", COMM_LEN, name);
	h = hash__bytes(buf, strlen(buf));
	row = hashidx__find(&s->comm_idx, h, comm_eq, s, buf);
	if (row != HASHIDX_NONE)
		return row;
	if (!s->nr_comms)
		s->nr_comms = 1;	/* id 0: unknown */
	XGROW(s->comms, s->alloc_comms, s->nr_comms);
	memcpy(s->comms[s->nr_comms], buf, sizeof(buf));
	hashidx__insert(&s->comm_idx, h, (uint32_t)s->nr_comms);
	return (uint32_t)s->nr_comms++;
}

static struct tid_comm *tid_slot(struct sampler *s, int32_t tid, bool create)
{
	size_t i;

	/* -1 marks a free slot: a record that says tid -1 must not match one */
	if (tid == -1)
		return NULL;
	if (!s->tids) {
		if (!create)
			return NULL;
		s->tid_mask = 255;
		s->tids = xmalloc((s->tid_mask + 1) * sizeof(*s->tids));
		for (i = 0; i <= s->tid_mask; i++)
			s->tids[i].tid = -1;
	}
	for (i = hash__u64((uint64_t)tid) & s->tid_mask;; i = (i + 1) & s->tid_mask) {
		if (s->tids[i].tid == tid)
			return &s->tids[i];
		if (s->tids[i].tid == -1)
			break;
	}
	if (!create)
		return NULL;
	if ((s->nr_tids + 1) * 2 > s->tid_mask + 1) {
		struct tid_comm *old = s->tids;
		size_t old_cap = s->tid_mask + 1, j;

		s->tid_mask = old_cap * 2 - 1;
		s->tids = xmalloc((s->tid_mask + 1) * sizeof(*s->tids));
		for (j = 0; j <= s->tid_mask; j++)
			s->tids[j].tid = -1;
		for (j = 0; j < old_cap; j++) {
			if (old[j].tid == -1)
				continue;
			for (i = hash__u64((uint64_t)old[j].tid) & s->tid_mask;
			     s->tids[i].tid != -1; i = (i + 1) & s->tid_mask)
				;
			s->tids[i] = old[j];
		}
		free(old);
		return tid_slot(s, tid, true);
	}
	s->nr_tids++;
	s->tids[i].tid = tid;
	s->tids[i].comm = s->tids[i].prev = 0;
	s->tids[i].since = 0;
	return &s->tids[i];
}

static void set_comm(struct sampler *s, int32_t tid, uint32_t comm, uint64_t time)
{
	struct tid_comm *t = tid_slot(s, tid, true);

	if (!t)
		return;
	t->prev = t->comm;	/* 0 when unknown before this change */
	t->comm = comm;
	t->since = time;
}

static uint32_t comm_of(struct sampler *s, uint32_t pid, uint32_t tid, uint64_t time)
{
	struct tid_comm *t = tid_slot(s, (int32_t)tid, false);
	char buf[32];

	if (!t)
		t = tid_slot(s, (int32_t)pid, false);
	if (t && t->comm && !(time && time < t->since))
		return t->comm;
	if (t && t->prev)
		return t->prev;
	/* perf's spelling for a thread whose name was not known then */
	snprintf(buf, sizeof(buf), ":%" PRIu32, tid);
	if (!t && (int32_t)tid != -1) {
		set_comm(s, (int32_t)tid, comm_intern(s, buf), 0);
		return tid_slot(s, (int32_t)tid, false)->comm;
	}
	return comm_intern(s, buf);
}

/* Comms of the threads of an existing process (no COMM records will come). */
static void read_proc_comms(struct sampler *s, pid_t pid)
{
	char path[320], comm[64];
	struct dirent *d;
	DIR *dir;

	snprintf(path, sizeof(path), "/proc/%d/task", (int)pid);
	dir = opendir(path);
	if (!dir)
		return;
	while ((d = readdir(dir))) {
		FILE *f;
		size_t n;

		if (!isdigit((unsigned char)d->d_name[0]))
			continue;
		snprintf(path, sizeof(path), "/proc/%d/task/%s/comm", (int)pid, d->d_name);
		f = fopen(path, "r");
		if (!f)
			continue;
		n = fread(comm, 1, sizeof(comm) - 1, f);
		fclose(f);
		comm[n] = '\0';
		if (n && comm[n - 1] == '\n')
			comm[n - 1] = '\0';
		set_comm(s, atoi(d->d_name), comm_intern(s, comm), 0);
	}
	closedir(dir);
}

/* ---- construction -------------------------------------------------------- */

struct sampler *sampler__new(const struct sampler_opts *o, struct symbols *syms,
			     struct errmsg *e)
{
	struct sampler *s;
	size_t i;

	if (o->mmap_pages < 0 || (o->mmap_pages & (o->mmap_pages - 1))) {
		errmsg__set(e, -EINVAL, "ring buffer size of %d pages is not a power of 2",
			    o->mmap_pages);
		return NULL;
	}
	if (o->freq < 0) {
		errmsg__set(e, -EINVAL, "sampling frequency %d Hz is negative", o->freq);
		return NULL;
	}
	if (o->call_graph == CALL_GRAPH_DWARF &&
	    (!o->stack_size || o->stack_size % 8 || o->stack_size > UNWIND__STACK_MAX)) {
		errmsg__set(e, -EINVAL, "--call-graph dwarf: stack size %u is not a multiple of 8 "
			    "between 8 and %u", o->stack_size, UNWIND__STACK_MAX);
		return NULL;
	}
	if (o->call_graph == CALL_GRAPH_LBR && !o->no_callchain && o->events)
		for (i = 0; i < o->events->nr; i++) {
			struct evspec sp;

			/* software events and tracepoints never carry branch records */
			if (evspec__parse(o->events->items[i], &sp, NULL) == 0 &&
			    (sp.tracepoint || sp.attr.type == PERF_TYPE_SOFTWARE ||
			     sp.attr.type == PERF_TYPE_TRACEPOINT ||
			     sp.attr.type == PERF_TYPE_BREAKPOINT)) {
				errmsg__set(e, -EOPNOTSUPP, "--call-graph lbr: event '%s' has no "
					    "last branch records (only hardware events such as "
					    "cycles do); use --call-graph dwarf or fp",
					    o->events->items[i]);
				return NULL;
			}
		}
	s = xcalloc(1, sizeof(*s));
	s->opts = *o;
	s->opts.events = NULL;
	if (o->call_graph == CALL_GRAPH_DWARF && !o->no_callchain && !s->opts.mmap_pages)
		s->opts.mmap_pages = DWARF_MMAP_PAGES;
	if (!s->opts.freq && !s->opts.period)
		s->opts.freq = DEFAULT_FREQ;
	if (!s->opts.mmap_pages)
		s->opts.mmap_pages = DEFAULT_MMAP_PAGES;
	s->syms = syms;
	hashidx__init(&s->comm_idx);
	hashidx__init(&s->frow_idx);
	stackagg__init(&s->agg);
	reorderq__init(&s->sb);

	if (o->events && o->events->nr) {
		s->nr_evs = o->events->nr;
		s->evs = xcalloc(s->nr_evs, sizeof(*s->evs));
		for (i = 0; i < s->nr_evs; i++) {
			const char *spec = o->events->items[i];

			if (evspec__parse(spec, &s->evs[i].spec, e)) {
				sampler__free(s);
				return NULL;
			}
			snprintf(s->evs[i].asked, sizeof(s->evs[i].asked), "%s", spec);
		}
	} else {
		s->is_default = true;
		s->nr_evs = 1;
		s->evs = xcalloc(1, sizeof(*s->evs));
		evspec__parse("cycles", &s->evs[0].spec, NULL);
		snprintf(s->evs[0].asked, sizeof(s->evs[0].asked), "cycles");
	}

	s->sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME |
			 PERF_SAMPLE_CPU | PERF_SAMPLE_PERIOD;
	if (!o->no_callchain)
		s->sample_type |= PERF_SAMPLE_CALLCHAIN;
	if (!o->no_callchain && o->call_graph == CALL_GRAPH_DWARF) {
		s->sample_type |= PERF_SAMPLE_REGS_USER | PERF_SAMPLE_STACK_USER;
		s->unwinder = unwinder__new(syms);
	}
	if (!o->no_callchain && o->call_graph == CALL_GRAPH_LBR) {
		/*
		 * As perf: user calls only, as a call stack, without the cycle
		 * counts and flags nobody reads.  No HW_INDEX: mmprof does not
		 * stitch stacks deeper than the LBR (perf's --stitch-lbr).
		 */
		s->sample_type |= PERF_SAMPLE_BRANCH_STACK;
		s->branch_type = PERF_SAMPLE_BRANCH_USER | PERF_SAMPLE_BRANCH_CALL_STACK |
				 PERF_SAMPLE_BRANCH_NO_FLAGS | PERF_SAMPLE_BRANCH_NO_CYCLES;
	}
	/* tracepoint fields (trace.h decodes them) ride in the raw data */
	for (i = 0; i < s->nr_evs; i++)
		if (s->evs[i].spec.tracepoint)
			s->sample_type |= PERF_SAMPLE_RAW;
	/* samples of several events share a buffer: the id says whose they are */
	if (s->nr_evs > 1)
		s->sample_type |= PERF_SAMPLE_IDENTIFIER;
	return s;
}

static void teardown(struct sampler *s)
{
	size_t i;

	perfsession__close(&s->ps);
	for (i = 0; i < s->nr_evs; i++)
		s->evs[i].evsel = NULL;
}

void sampler__free(struct sampler *s)
{
	if (!s)
		return;
	teardown(s);
	free(s->evs);
	free(s->pids);
	free(s->ids);
	free(s->scratch);
	free(s->lbr);
	unwinder__free(s->unwinder);
	free(s->comms);
	hashidx__release(&s->comm_idx);
	free(s->tids);
	free(s->frows);
	hashidx__release(&s->frow_idx);
	free(s->comm_str);
	free(s->inl_at);
	free(s->inl_ids);
	free(s->frames);
	reorderq__release(&s->sb);
	stackagg__release(&s->agg);
	free(s);
}

/* ---- opening ------------------------------------------------------------- */

static void make_attr(const struct sampler *s, const struct evspec *sp, bool first,
		      bool enable_on_exec, struct perf_event_attr *a)
{
	*a = sp->attr;
	a->size = sizeof(*a);
	a->sample_type = s->sample_type;
	a->read_format = s->nr_evs > 1 ? PERF_FORMAT_ID : 0;
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
	}
}

static int try_open(struct sampler *s, size_t i, const struct evspec *sp, bool eoe)
{
	struct perf_event_attr attr;
	struct perf_evsel *evsel;
	int err;

	make_attr(s, sp, i == 0, eoe, &attr);
	err = perfsession__add(&s->ps, &attr, &evsel);
	if (err)
		return err;
	err = perfsession__open_evsel(evsel);
	if (err == -EINVAL && (s->branch_type & LBR_OPTIONAL)) {
		/* kernels before 4.7 know neither NO_FLAGS nor NO_CYCLES */
		perf_evsel__attr(evsel)->branch_sample_type &= ~(uint64_t)LBR_OPTIONAL;
		err = perfsession__open_evsel(evsel);
		if (!err)
			s->branch_type &= ~(uint64_t)LBR_OPTIONAL;
	}
	if (err) {
		perfsession__drop(&s->ps, evsel);
		return err;
	}
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
		name = access("/sys/bus/event_source/devices/cpu", F_OK) &&
		       access("/sys/bus/event_source/devices/cpu_core", F_OK) ? "cpu-clock" : "cycles";
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
 * patch (Debian, Android) that allows nothing.
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

/* cycles:ppp down to cycles, then cpu-clock when there is no PMU at all. */
static int open_default(struct sampler *s, const struct record_target *t, struct errmsg *e)
{
	struct evspec sp = s->evs[0].spec;
	bool eoe = t->enable_on_exec;
	int precise, err = 0;

	for (precise = 3; precise >= 0; precise--) {
		sp.attr.precise_ip = precise;
		err = try_open(s, 0, &sp, eoe);
		if (!err) {
			snprintf(sp.name, sizeof(sp.name), "cycles%s%.*s", precise ? ":" : "",
				 precise, "ppp");
			s->evs[0].spec = sp;
			return 0;
		}
		if (err == -EACCES || err == -EPERM || err == -EMFILE || err == -ESRCH ||
		    err == -ENOMEM)
			return open_error(s, &sp, t, err, e);
	}
	/* a software event has no branch records: no cpu-clock fallback for lbr */
	if (!no_pmu(err) || s->branch_type)
		return open_error(s, &sp, t, err, e);
	snprintf(s->note, sizeof(s->note), "no hardware PMU (cycles: %s); sampling cpu-clock "
		 "instead", strerror(-err));
	evspec__parse("cpu-clock", &sp, NULL);
	err = try_open(s, 0, &sp, eoe);
	if (err)
		return open_error(s, &sp, t, err, e);
	s->evs[0].spec = sp;
	return 0;
}

static int id_cmp(const void *a, const void *b)
{
	const struct id_map *x = a, *y = b;

	return x->id < y->id ? -1 : x->id > y->id;
}

/* Learn each fd's id (read_format ID), then hide the bit from libperf. */
static int read_ids(struct sampler *s, struct errmsg *e)
{
	size_t i;

	s->nr_ids = 0;
	for (i = 0; i < s->nr_evs; i++) {
		struct perf_evsel *evsel = s->evs[i].evsel;
		int ncpu = perf_cpu_map__nr(perf_evsel__cpus(evsel));
		int nthr = perf_thread_map__nr(perf_evsel__threads(evsel));
		int c, t, err;

		for (c = 0; c < ncpu; c++)
			for (t = 0; t < nthr; t++) {
				struct perf_counts_values v;

				err = perf_evsel__read(evsel, c, t, &v);
				if (err)
					return errmsg__set(e, err, "cannot read the id of event "
							   "'%s': %s", s->evs[i].spec.name,
							   strerror(-err));
				XGROW(s->ids, s->alloc_ids, s->nr_ids);
				s->ids[s->nr_ids].id = v.id;
				s->ids[s->nr_ids++].event = (uint32_t)i;
			}
		perf_evsel__attr(evsel)->read_format &= ~(uint64_t)PERF_FORMAT_ID;
	}
	qsort(s->ids, s->nr_ids, sizeof(*s->ids), id_cmp);
	return 0;
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

int sampler__open(struct sampler *s, const struct record_target *t, struct errmsg *e)
{
	size_t i;
	int err;

	teardown(s);
	lower_freq(s);
	err = open_session(s, t, e);
	if (err)
		return err;

	for (i = 0; i < s->nr_evs; i++) {
		if (s->is_default && !s->chosen)
			err = open_default(s, t, e);
		else if ((err = try_open(s, i, &s->evs[i].spec, t->enable_on_exec)))
			open_error(s, &s->evs[i].spec, t, err, e);
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
		set_comm(s, 0, comm_intern(s, "swapper"), 0);
	return 0;

out_teardown:
	teardown(s);
	return err;
}

/*
 * Processes that exist already produce no COMM/MMAP records: read their
 * names and maps from /proc when sampling starts (as late as possible, so
 * a process that exec'd between open and enable is seen as it now is).
 */
static void read_proc(struct sampler *s)
{
	size_t i;

	if (s->proc_done || !s->need_proc)
		return;
	s->proc_done = true;
	if (s->system_wide) {
		DIR *dir = opendir("/proc");
		struct dirent *d;

		if (!dir)
			return;
		while ((d = readdir(dir))) {
			pid_t pid;

			if (!isdigit((unsigned char)d->d_name[0]))
				continue;
			pid = atoi(d->d_name);
			symbols__add_proc(s->syms, pid);
			read_proc_comms(s, pid);
		}
		closedir(dir);
		return;
	}
	for (i = 0; i < s->nr_pids; i++) {
		symbols__add_proc(s->syms, s->pids[i]);
		read_proc_comms(s, s->pids[i]);
	}
}

void sampler__enable(struct sampler *s)
{
	if (!perfsession__is_open(&s->ps))
		return;
	read_proc(s);
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

/* ---- draining ------------------------------------------------------------ */

static int event_of(const struct sampler *s, uint64_t id)
{
	size_t lo = 0, hi = s->nr_ids;

	while (lo < hi) {
		size_t mid = (lo + hi) / 2;

		if (s->ids[mid].id < id)
			lo = mid + 1;
		else if (s->ids[mid].id > id)
			hi = mid;
		else
			return (int)s->ids[mid].event;
	}
	return -1;
}

static uint64_t context_of(uint16_t misc)
{
	switch (misc & PERF_RECORD_MISC_CPUMODE_MASK) {
	case PERF_RECORD_MISC_KERNEL:
		return PERF_CONTEXT_KERNEL;
	case PERF_RECORD_MISC_HYPERVISOR:
		return PERF_CONTEXT_HV;
	case PERF_RECORD_MISC_GUEST_KERNEL:
		return PERF_CONTEXT_GUEST_KERNEL;
	case PERF_RECORD_MISC_GUEST_USER:
		return PERF_CONTEXT_GUEST_USER;
	default:
		return PERF_CONTEXT_USER;
	}
}

/* Does a side-band record of pid wait in the queue (its maps may be about to change)? */
static bool sideband_pending(const struct sampler *s, uint32_t pid)
{
	size_t i;

	for (i = 0; i < reorderq__nr(&s->sb); i++) {
		const union perf_event *ev = reorderq__event(&s->sb, i);

		/* COMM, MMAP, MMAP2, FORK and EXIT all start with the pid */
		if (ev->header.type != PERF_RECORD_SAMPLE && ev->comm.pid == pid)
			return true;
	}
	return false;
}

/*
 * Code built without frame pointers (most distro binaries) makes the
 * kernel's frame-pointer walk return junk after the leaf: whatever the
 * register and stack held.  Each junk chain is a new aggregate entry, so
 * memory grew with samples under such loads.  Cut the user part at its
 * first return address outside the pid's executable maps (the leaf IP is
 * kept always); perf keeps those frames and shows them as [unknown].
 * When the pid's maps are unknown, or side-band records of it are still
 * queued (an exec or mmap not applied yet), nothing is cut.  Returns the
 * new length.
 */
static uint64_t cut_user_chain(struct sampler *s, uint32_t pid, const uint64_t *chain,
			       uint64_t nr)
{
	uint64_t i, u;

	/*
	 * From the end: the user part is last and usually the shorter, and
	 * this first touch of a long kernel part was most of the cost.
	 */
	for (u = nr; u > 0 && chain[u - 1] != PERF_CONTEXT_USER; u--)
		;
	if (u == 0 || u + 1 >= nr)
		return nr;	/* no user part, or the leaf alone: chain[u] is the leaf */
	i = u + 1 + symbols__exec_mapped_prefix(s->syms, (pid_t)pid, chain + u + 1, nr - u - 1);
	/* a context marker after the user part (not expected): leave it all */
	if (i >= nr || chain[i] >= PERF_CONTEXT_MAX || sideband_pending(s, pid))
		return nr;
	s->chains_cut++;
	return i;
}

static void defer_sample(struct sampler *s, const union perf_event *ev);

static void handle_sample(struct sampler *s, const union perf_event *ev)
{
	const uint64_t *chain;
	struct sample smp;
	uint64_t nr, i;
	int event = 0;

	if (s->unwinder) {
		defer_sample(s, ev);
		return;
	}
	if (sample__parse(ev, s->sample_type, 0, &smp)) {
		s->bad++;
		return;
	}
	if (s->nr_evs > 1 && (event = event_of(s, smp.id)) < 0) {
		s->bad++;
		return;
	}
	if (smp.raw && s->opts.raw_hook && s->evs[event].spec.tracepoint)
		s->opts.raw_hook(s->opts.raw_ctx, (uint32_t)event, &smp);
	chain = smp.callchain;
	nr = smp.nr_callchain;
	if (s->branch_type) {
		/* --call-graph lbr: the user part comes from the branch stack */
		XGROW(s->lbr, s->alloc_lbr, sample__lbr_chain_max(&smp));
		nr = sample__lbr_chain(&smp, s->lbr);
		chain = s->lbr;
	}
	/*
	 * The kernel's chain starts with a context marker and then the IP.
	 * When it does not hold the IP (no callchain, an empty one, or an
	 * arch that leaves it out) put [context, ip] in front so the leaf is
	 * there exactly once.
	 */
	for (i = 0; i < nr && chain[i] >= PERF_CONTEXT_MAX; i++)
		;
	if (i == nr || chain[i] != smp.ip) {
		XGROW(s->scratch, s->alloc_scratch, nr + 2);
		s->scratch[0] = context_of(smp.misc);
		s->scratch[1] = smp.ip;
		if (nr)
			memcpy(s->scratch + 2, chain, nr * sizeof(*chain));
		chain = s->scratch;
		nr += 2;
	}
	if (smp.time > s->seen_max)
		s->seen_max = smp.time;
	nr = cut_user_chain(s, smp.pid, chain, nr);
	stackagg__add(&s->agg, (uint32_t)event, smp.pid, comm_of(s, smp.pid, smp.tid, smp.time),
		      chain, (uint32_t)nr, smp.period);
}

static void queue_sideband(struct sampler *s, const union perf_event *ev);

/* --call-graph dwarf, as read: what cannot wait (the raw hook), then into the queue. */
static void defer_sample(struct sampler *s, const union perf_event *ev)
{
	struct sample smp;
	int event = 0;

	if (sample__parse_regs(ev, s->sample_type, 0, UNWIND__REGS_MASK, &smp) ||
	    (s->nr_evs > 1 && (event = event_of(s, smp.id)) < 0)) {
		s->bad++;
		return;
	}
	if (smp.raw && s->opts.raw_hook && s->evs[event].spec.tracepoint)
		s->opts.raw_hook(s->opts.raw_ctx, (uint32_t)event, &smp);
	if (smp.time > s->seen_max)
		s->seen_max = smp.time;
	if (smp.time)
		s->sb_last_time = smp.time;
	queue_sideband(s, ev);
	s->deferred_in++;
}

/*
 * --call-graph dwarf, in time order with the side-band records: the
 * kernel's part of the chain (exclude_callchain_user leaves it without
 * user entries), then PERF_CONTEXT_USER and the unwound user stack.
 */
static void add_unwound(struct sampler *s, const union perf_event *ev)
{
	struct sample smp;
	uint64_t nr = 0, i, *chain;
	size_t n;
	int event = 0;

	s->deferred_out++;
	if (sample__parse_regs(ev, s->sample_type, 0, UNWIND__REGS_MASK, &smp))
		return;		/* parsed when queued: cannot fail */
	if (s->nr_evs > 1)
		event = event_of(s, smp.id);
	XGROW(s->scratch, s->alloc_scratch, smp.nr_callchain + 3 + UNWIND__MAX_FRAMES);
	chain = s->scratch;
	for (i = 0; i < smp.nr_callchain && smp.callchain[i] != PERF_CONTEXT_USER; i++)
		chain[nr++] = smp.callchain[i];
	for (i = 0; i < nr && chain[i] >= PERF_CONTEXT_MAX; i++)
		;
	if (i == nr) {
		/* no kernel frames: a kernel-mode sample keeps its IP as the leaf */
		nr = 0;
		if (context_of(smp.misc) != PERF_CONTEXT_USER) {
			chain[0] = context_of(smp.misc);
			chain[1] = smp.ip;
			nr = 2;
		}
	}
	n = unwinder__unwind(s->unwinder, (pid_t)smp.pid, &smp, chain + nr + 1,
			     UNWIND__MAX_FRAMES);
	if (n) {
		chain[nr] = PERF_CONTEXT_USER;
		nr += 1 + n;
	} else if (!nr) {
		chain[0] = context_of(smp.misc);
		chain[1] = smp.ip;
		nr = 2;
	}
	stackagg__add(&s->agg, (uint32_t)event, smp.pid, comm_of(s, smp.pid, smp.tid, smp.time),
		      chain, (uint32_t)nr, smp.period);
}

/* Length of a NUL-terminated string starting at off inside the record, or -1. */
static long record_str(const union perf_event *ev, size_t off)
{
	const char *p = (const char *)ev + off;
	const char *nul;

	if (ev->header.size <= off)
		return -1;
	nul = memchr(p, '\0', ev->header.size - off);
	return nul ? nul - p : -1;
}

/*
 * The mapped file's identity (device, inode, generation): symbols take
 * names only from that file.  A record carrying a build-id instead (we
 * do not ask for those) gives none.
 */
static void mmap2_file_id(const union perf_event *ev, struct file_id *id)
{
	memset(id, 0, sizeof(*id));
	if (ev->header.misc & PERF_RECORD_MISC_MMAP_BUILD_ID)
		return;
	id->maj = ev->mmap2.maj;
	id->min = ev->mmap2.min;
	id->ino = ev->mmap2.ino;
	id->gen = ev->mmap2.ino_generation;
}

/* Apply one side-band record to the symbols context (records were checked when queued). */
static void apply_sideband(void *ctx, const union perf_event *ev)
{
	struct sampler *s = ctx;

	switch (ev->header.type) {
	case PERF_RECORD_COMM:
		symbols__comm(s->syms, (pid_t)ev->comm.pid, (pid_t)ev->comm.tid, ev->comm.comm,
			      ev->header.misc & PERF_RECORD_MISC_COMM_EXEC);
		break;
	case PERF_RECORD_MMAP2: {
		struct file_id id;

		mmap2_file_id(ev, &id);
		symbols__mmap2(s->syms, (pid_t)ev->mmap2.pid, ev->mmap2.start, ev->mmap2.len,
			       ev->mmap2.pgoff, ev->mmap2.filename, &id);
		break;
	}
	case PERF_RECORD_MMAP:
		symbols__mmap(s->syms, (pid_t)ev->mmap.pid, ev->mmap.start, ev->mmap.len,
			      ev->mmap.pgoff, ev->mmap.filename);
		break;
	case PERF_RECORD_FORK:
		if (ev->fork.pid != ev->fork.ppid)
			symbols__fork(s->syms, (pid_t)ev->fork.pid, (pid_t)ev->fork.ppid);
		break;
	case PERF_RECORD_EXIT:
		symbols__exit(s->syms, (pid_t)ev->fork.pid, (pid_t)ev->fork.tid);
		break;
	case PERF_RECORD_SAMPLE:
		add_unwound(s, ev);
		break;
	default:
		break;
	}
}

/* A record without a time of its own takes the last one read. */
static void queue_sideband(struct sampler *s, const union perf_event *ev)
{
	struct sample id;

	/* (a deferred sample's time was taken from its body) */
	if (ev->header.type != PERF_RECORD_SAMPLE &&
	    sample__parse_id_all(ev, s->sample_type, &id) == 0 && id.time)
		s->sb_last_time = id.time;
	if (s->sb_last_time > s->seen_max)
		s->seen_max = s->sb_last_time;
	reorderq__push(&s->sb, s->sb_last_time, ev);
}

/* Apply the queued side-band records stamped no later than limit, in time order. */
static void flush_sideband(struct sampler *s, uint64_t limit)
{
	reorderq__flush(&s->sb, limit, apply_sideband, s);
}

/* The end of a round that read every buffer up to its head (see struct sampler). */
static void end_round(struct sampler *s)
{
	if (s->sb_safe)
		flush_sideband(s, s->sb_safe);
	s->sb_safe = s->seen_max;
}

static void handle_event(void *ctx, const union perf_event *ev)
{
	struct sampler *s = ctx;
	struct sample id;

	switch (ev->header.type) {
	case PERF_RECORD_SAMPLE:
		handle_sample(s, ev);
		break;
	case PERF_RECORD_COMM:
		if (record_str(ev, offsetof(struct perf_record_comm, comm)) < 0)
			break;
		if (sample__parse_id_all(ev, s->sample_type, &id))
			id.time = 0;
		queue_sideband(s, ev);
		set_comm(s, (int32_t)ev->comm.tid, comm_intern(s, ev->comm.comm), id.time);
		break;
	case PERF_RECORD_MMAP2:
		if (ev->mmap2.pid == UINT32_MAX ||
		    record_str(ev, offsetof(struct perf_record_mmap2, filename)) < 0)
			break;
		/* now, while the process lives: the mapped file, deleted or replaced later */
		{
			struct file_id fid;

			mmap2_file_id(ev, &fid);
			symbols__watch2(s->syms, (pid_t)ev->mmap2.pid, ev->mmap2.start,
					ev->mmap2.len, ev->mmap2.filename, &fid);
		}
		queue_sideband(s, ev);
		break;
	case PERF_RECORD_MMAP:
		if (ev->mmap.pid == UINT32_MAX ||
		    record_str(ev, offsetof(struct perf_record_mmap, filename)) < 0)
			break;
		queue_sideband(s, ev);
		break;
	case PERF_RECORD_FORK:
		if (ev->header.size < sizeof(struct perf_record_fork))
			break;
		queue_sideband(s, ev);
		{
			/* a new task starts with its parent's name */
			struct tid_comm *parent = tid_slot(s, (int32_t)ev->fork.ptid, false);

			if (parent && parent->comm)
				set_comm(s, (int32_t)ev->fork.tid, parent->comm, 0);
		}
		break;
	case PERF_RECORD_EXIT:
		if (ev->header.size >= sizeof(struct perf_record_fork))
			queue_sideband(s, ev);
		break;
	case PERF_RECORD_LOST:
		if (ev->header.size >= sizeof(struct perf_record_lost))
			s->lost += ev->lost.lost;
		break;
	case PERF_RECORD_LOST_SAMPLES:
		if (ev->header.size >= sizeof(struct perf_record_lost_samples))
			s->lost += ev->lost_samples.lost;
		break;
	case PERF_RECORD_THROTTLE:
		s->throttled++;
		break;
	default:
		break;
	}
}

int sampler__drain(struct sampler *s)
{
	uint64_t before = s->agg.samples - s->deferred_in + s->deferred_out;

	if (!perfsession__is_open(&s->ps))
		return 0;
	perfsession__read(&s->ps, handle_event, s);
	end_round(s);
	/* samples read: those queued for unwinding count when read */
	return (int)(s->agg.samples - s->deferred_in + s->deferred_out - before);
}

int sampler__replay(struct sampler *s, const void *buf, size_t len)
{
	uint64_t before = s->agg.samples;
	const char *p = buf, *end = p + len;

	while (p < end) {
		const struct perf_event_header *h = (const void *)p;

		if ((size_t)(end - p) < sizeof(*h) || h->size < sizeof(*h) ||
		    h->size > (size_t)(end - p))
			return -EINVAL;
		handle_event(s, (const union perf_event *)p);
		p += h->size;
	}
	/* one call is one round, as if its records were one drain's */
	end_round(s);
	return (int)(s->agg.samples - before);
}

uint64_t sampler__sample_type(const struct sampler *s)
{
	return s->sample_type;
}

void sampler__close(struct sampler *s)
{
	if (!perfsession__is_open(&s->ps))
		return;
	perfsession__disable(&s->ps);
	sampler__drain(s);
	teardown(s);
}

/* ---- results ------------------------------------------------------------- */

void sampler__add_events(struct sampler *s, struct profile *p)
{
	size_t i;

	s->first_event = (uint32_t)p->nr_events;
	for (i = 0; i < s->nr_evs; i++) {
		const struct evspec *sp = &s->evs[i].spec;
		struct event_desc d = {
			.name = profile__intern(p, sp->name),
			.asked = profile__intern(p, s->evs[i].asked),
			.type = sp->attr.type,
			.config = sp->attr.config,
		};

		if (sp->tracepoint || s->opts.period) {
			d.freq = 0;
			d.sample = s->opts.period ? s->opts.period : 1;
		} else {
			d.freq = 1;
			d.sample = (uint64_t)s->opts.freq;
		}
		profile__add_event(p, &d);
	}
}

static bool frow_eq(const void *ctx, uint32_t row, const void *key)
{
	const struct frame_row *a = &((const struct sampler *)ctx)->frows[row];
	const struct frame_row *b = key;

	return a->addr == b->addr && a->pid == b->pid && a->kernel == b->kernel;
}

/* The profile frame of an address, resolved once per profile. */
static uint32_t frame_of(struct sampler *s, struct profile *p, uint32_t pid, uint64_t addr,
			 bool kernel)
{
	struct frame_row key = { .addr = addr, .pid = kernel ? 0 : (int32_t)pid,
				 .kernel = kernel };
	uint64_t h = hash__combine(hash__u64(addr), ((uint64_t)(uint32_t)key.pid << 1) | kernel);
	uint32_t row = hashidx__find(&s->frow_idx, h, frow_eq, s, &key);
	struct symbol_info si = { 0 };
	struct frame f = { 0 };

	if (row != HASHIDX_NONE)
		return s->frows[row].frame;
	symbols__resolve(s->syms, (pid_t)pid, addr, kernel, &si);
	f.addr = addr;
	f.kernel = kernel;
	f.sym = profile__intern(p, si.sym);
	f.dso = profile__intern(p, si.dso);
	f.raw = profile__intern(p, si.raw_sym);	/* 0 unless demangled */
	f.sym_off = si.sym ? si.sym_off : 0;
	key.frame = profile__frame(p, &f);
	XGROW(s->frows, s->alloc_frows, s->nr_frows);
	s->frows[s->nr_frows] = key;
	hashidx__insert(&s->frow_idx, h, (uint32_t)s->nr_frows++);
	return key.frame;
}

/*
 * --inline: append to s->frames (from n) the functions inlined at the
 * real frame's address, innermost first, as frames flagged inlined; the
 * caller appends the real frame after them.  A caller's address is a
 * return address, so its inline scope is looked up at addr - 1 (exact:
 * the sampled IP).  Computed once per real frame.
 */
static size_t push_inline(struct sampler *s, struct profile *p, uint32_t pid, uint64_t addr,
			  bool exact, bool kernel, uint32_t real, size_t n)
{
	const char *names[32];
	size_t k, nr, at;

	if (real >= s->alloc_inl_at) {
		size_t old = s->alloc_inl_at;

		XGROW(s->inl_at, s->alloc_inl_at, real);
		memset(s->inl_at + old, 0, (s->alloc_inl_at - old) * sizeof(*s->inl_at));
	}
	if (!s->inl_at[real]) {
		struct frame f = p->frames[real];

		addr = exact ? addr : addr - 1;
		nr = kernel ? symbols__kernel_inline_chain(s->syms, addr, names,
							   sizeof(names) / sizeof(names[0]))
			    : symbols__inline_chain(s->syms, (pid_t)pid, addr, names,
						    sizeof(names) / sizeof(names[0]));
		at = s->nr_inl_ids;
		XGROW(s->inl_ids, s->alloc_inl_ids, at + nr);
		s->inl_ids[at] = 0;
		/* the last name is the real function itself */
		for (k = 0; k + 1 < nr; k++) {
			f.sym = profile__intern(p, names[k]);
			f.sym_off = 0;
			f.inlined = 1;
			s->inl_ids[at + 1 + s->inl_ids[at]++] = profile__frame(p, &f);
		}
		s->nr_inl_ids = at + 1 + s->inl_ids[at];
		s->inl_at[real] = (uint32_t)at + 1;
	}
	at = s->inl_at[real] - 1;
	XGROW(s->frames, s->alloc_frames, n + s->inl_ids[at] + 1);
	for (k = 0; k < s->inl_ids[at]; k++)
		s->frames[n++] = s->inl_ids[at + 1 + k];
	return n;
}

static void reset_caches(struct sampler *s, struct profile *p)
{
	s->cache_p = p;
	s->nr_frows = 0;
	if (s->inl_at)
		memset(s->inl_at, 0, s->alloc_inl_at * sizeof(*s->inl_at));
	s->nr_inl_ids = 0;
	hashidx__release(&s->frow_idx);
	hashidx__init(&s->frow_idx);
	if (s->comm_str)
		memset(s->comm_str, 0, s->alloc_comm_str * sizeof(*s->comm_str));
}

int sampler__end_run(struct sampler *s, struct profile *p, uint32_t run, struct run *r)
{
	size_t i;

	if (p != s->cache_p)
		reset_caches(s, p);
	/* a run whose open lowered -F: the file says the lowest frequency used */
	for (i = 0; i < s->nr_evs && s->first_event + i < p->nr_events; i++) {
		struct event_desc *d = &p->events[s->first_event + i];

		if (d->freq && s->opts.freq && (uint64_t)s->opts.freq < d->sample)
			d->sample = (uint64_t)s->opts.freq;
	}
	flush_sideband(s, UINT64_MAX);
	s->sb_safe = s->seen_max = s->sb_last_time = 0;
	stackagg__flush(&s->agg);	/* after the side band: it may add unwound samples */
	for (i = 0; i < s->agg.nr_entries; i++) {
		const struct stackagg_entry *en = stackagg__entry(&s->agg, i);
		const uint64_t *chain = stackagg__chain(&s->agg, en);
		bool kernel = false, leaf = true;
		size_t n = 0;
		uint32_t j, node, comm, f;

		XGROW(s->frames, s->alloc_frames, en->nr);
		for (j = 0; j < en->nr; j++) {
			if (chain[j] >= PERF_CONTEXT_MAX) {
				kernel = chain[j] != PERF_CONTEXT_USER &&
					 chain[j] != PERF_CONTEXT_GUEST_USER;
				continue;
			}
			f = frame_of(s, p, en->pid, chain[j], kernel);
			/* kernel frames: whenever record attached a vmlinux */
			if ((kernel ? symbols__vmlinux(s->syms) != NULL : symbols__inline(s->syms)) &&
			    p->frames[f].sym)
				n = push_inline(s, p, en->pid, chain[j], leaf, kernel, f, n);
			XGROW(s->frames, s->alloc_frames, n);
			s->frames[n++] = f;
			leaf = false;
		}
		if (!n)
			continue;
		node = profile__stack(p, s->frames, n);
		if (s->alloc_comm_str <= en->comm) {
			size_t old = s->alloc_comm_str;

			XGROW(s->comm_str, s->alloc_comm_str, en->comm);
			memset(s->comm_str + old, 0, (s->alloc_comm_str - old) * sizeof(*s->comm_str));
		}
		comm = s->comm_str[en->comm];
		if (!comm)
			comm = s->comm_str[en->comm] =
				profile__intern(p, en->comm ? s->comms[en->comm] : "[unknown]");
		/* a pid past pid_t cannot come from the kernel: keep the file valid */
		profile__add_count(p, run, s->first_event + en->event, comm,
				   en->pid <= INT32_MAX ? en->pid : 0, node, en->samples, en->period);
	}
	if (r) {
		r->samples = s->agg.samples;
		r->lost = s->lost;
		r->throttled = s->throttled;
	}
	if (s->chains_cut) {
		char v[32];

		snprintf(v, sizeof(v), "%" PRIu64, s->chains_cut);
		profile__set_meta(p, "user_chains_truncated", v);
	}
	stackagg__reset(&s->agg);
	s->lost = s->throttled = s->bad = 0;
	return 0;
}

const char *sampler__note(const struct sampler *s)
{
	return s->note[0] ? s->note : NULL;
}

const char *sampler__freq_note(const struct sampler *s)
{
	return s->freq_note[0] ? s->freq_note : NULL;
}

int sampler__freq(const struct sampler *s)
{
	return s->opts.freq;
}

size_t sampler__sideband_held(const struct sampler *s)
{
	return reorderq__nr(&s->sb);
}

void sampler__progress(const struct sampler *s, uint64_t *samples, uint64_t *lost)
{
	if (samples)
		*samples = s->agg.samples;
	if (lost)
		*lost = s->lost;
}
