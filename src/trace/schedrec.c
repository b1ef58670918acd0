/*
 * schedrec: the sched tracepoints on every CPU, decoded and fed to struct
 * sched in time order; see include/mmprof/sched.h.
 *
 * Order: the ring buffers are per CPU and read one after the other, but a
 * task switched out on one CPU comes back in on another.  Records are
 * stamped with CLOCK_MONOTONIC (use_clockid) and copied into a reorderq
 * (perfsession.h); at each drain only those stamped before the drain
 * began are processed, in time order: anything later may still have an
 * earlier neighbour in a buffer not read yet.  The rest waits for the next drain (close processes
 * everything).  The queue holds a drain interval's worth of records, so
 * the caller drains often (record does every 10 ms with --sched).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <ctype.h>
#include <dirent.h>

#include <linux/perf_event.h>

#include "mmprof/perfsession.h"
#include "mmprof/sample.h"
#include "mmprof/sched.h"
#include "mmprof/trace.h"
#include "mmprof/xalloc.h"

#define DEFAULT_PAGES	512	/* 2 MiB per CPU: sched events come in bursts */
#define SAMPLE_TYPE	(PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | \
			 PERF_SAMPLE_CPU | PERF_SAMPLE_CALLCHAIN | PERF_SAMPLE_RAW)

enum sched_ev { EV_SWITCH, EV_WAKING, EV_WAKEUP_NEW, EV_MIGRATE, EV_FORK, NR_EV };

static const char *const ev_names[NR_EV] = {
	"sched_switch", "sched_waking", "sched_wakeup_new", "sched_migrate_task",
	"sched_process_fork",
};

struct schedrec {
	struct trace *trace;
	int ids[NR_EV];
	struct trace_field prev_comm, prev_pid, prev_state, next_pid;
	struct trace_field wake_pid, new_pid, mig_pid, fork_parent, fork_child;
	int mmap_pages;
	struct perfsession ps;
	struct sched sched;
	uint32_t offcpu_event;
	struct reorderq q;	/* records not processed yet */
	uint64_t records, lost, bad;
};

struct schedrec *schedrec__new(int mmap_pages, struct errmsg *e)
{
	struct schedrec *r = xcalloc(1, sizeof(*r));
	int i, err = 0;

	r->mmap_pages = mmap_pages > 0 ? mmap_pages : DEFAULT_PAGES;
	r->offcpu_event = UINT32_MAX;
	reorderq__init(&r->q);
	sched__init(&r->sched, true);
	r->trace = trace__new();
	if (!r->trace) {
		errmsg__set(e, -ENOMEM, "cannot set up libtraceevent");
		goto fail;
	}
	for (i = 0; i < NR_EV; i++) {
		r->ids[i] = trace__load(r->trace, "sched", ev_names[i], e);
		/* kernels before sched_waking (4.3) have only sched_wakeup */
		if (r->ids[i] < 0 && i == EV_WAKING)
			r->ids[i] = trace__load(r->trace, "sched", "sched_wakeup", e);
		if (r->ids[i] < 0) {
			err = r->ids[i];
			goto fail;
		}
	}
	err = trace__field(r->trace, r->ids[EV_SWITCH], "prev_comm", &r->prev_comm) ?:
	      trace__field(r->trace, r->ids[EV_SWITCH], "prev_pid", &r->prev_pid) ?:
	      trace__field(r->trace, r->ids[EV_SWITCH], "prev_state", &r->prev_state) ?:
	      trace__field(r->trace, r->ids[EV_SWITCH], "next_pid", &r->next_pid) ?:
	      trace__field(r->trace, r->ids[EV_WAKING], "pid", &r->wake_pid) ?:
	      trace__field(r->trace, r->ids[EV_WAKEUP_NEW], "pid", &r->new_pid) ?:
	      trace__field(r->trace, r->ids[EV_MIGRATE], "pid", &r->mig_pid) ?:
	      trace__field(r->trace, r->ids[EV_FORK], "parent_pid", &r->fork_parent) ?:
	      trace__field(r->trace, r->ids[EV_FORK], "child_pid", &r->fork_child);
	if (err) {
		errmsg__set(e, err, "the sched tracepoints of this kernel lack the fields "
			    "mmprof decodes (prev_pid, next_pid, pid, ...)");
		goto fail;
	}
	return r;
fail:
	schedrec__free(r);
	return NULL;
}

void schedrec__free(struct schedrec *r)
{
	if (!r)
		return;
	perfsession__close(&r->ps);
	trace__free(r->trace);
	sched__release(&r->sched);
	reorderq__release(&r->q);
	free(r);
}

static void watch_threads(struct schedrec *r, pid_t pid)
{
	char path[64];
	struct dirent *d;
	DIR *dir;

	sched__watch(&r->sched, pid);
	snprintf(path, sizeof(path), "/proc/%d/task", (int)pid);
	dir = opendir(path);
	if (!dir)
		return;
	while ((d = readdir(dir)))
		if (isdigit((unsigned char)d->d_name[0]))
			sched__watch(&r->sched, atoi(d->d_name));
	closedir(dir);
}

int schedrec__open(struct schedrec *r, const struct record_target *t, struct errmsg *e)
{
	int i, err = 0;
	size_t k;

	perfsession__close(&r->ps);
	sched__reset(&r->sched);
	r->sched.filter = !t->system_wide;
	for (k = 0; k < t->nr_pids && !t->system_wide; k++)
		watch_threads(r, t->pids[k]);
	reorderq__clear(&r->q);
	/* a task's switch-in runs in another task's context: every CPU, every task */
	err = perfsession__open(&r->ps, t->system_wide ? t->cpu_list : NULL, NULL, 0, e);
	if (err)
		return err;
	for (i = 0; i < NR_EV; i++) {
		struct perf_event_attr a;
		struct perf_evsel *evsel;

		memset(&a, 0, sizeof(a));
		a.size = sizeof(a);
		a.type = PERF_TYPE_TRACEPOINT;
		a.config = (uint64_t)r->ids[i];
		a.sample_period = 1;
		a.sample_type = SAMPLE_TYPE;
		a.sample_id_all = 1;
		a.disabled = 1;
		a.use_clockid = 1;
		a.clockid = CLOCK_MONOTONIC;
		a.watermark = 1;
		a.wakeup_watermark = (uint32_t)((size_t)r->mmap_pages * (size_t)getpagesize() / 4);
		err = perfsession__add(&r->ps, &a, &evsel);
		if (err) {
			errmsg__set(e, err, "out of memory");
			goto out_teardown;
		}
		err = perfsession__open_evsel(evsel);
		if (err) {
			errmsg__set(e, err, "cannot open tracepoint 'sched:%s' on every CPU: %s%s",
				    ev_names[i], strerror(-err),
				    err == -EACCES || err == -EPERM ?
				    "; --sched needs root or kernel.perf_event_paranoid=-1" : "");
			goto out_teardown;
		}
	}
	err = perfsession__mmap(&r->ps, r->mmap_pages);
	if (err) {
		errmsg__set(e, err, "cannot map the --sched ring buffers (%d pages per CPU): %s; "
			    "lower -m or raise kernel.perf_event_mlock_kb", r->mmap_pages,
			    strerror(-err));
		goto out_teardown;
	}
	return 0;
out_teardown:
	perfsession__close(&r->ps);
	return err;
}

void schedrec__enable(struct schedrec *r)
{
	perfsession__enable(&r->ps);
}

void schedrec__disable(struct schedrec *r)
{
	perfsession__disable(&r->ps);
}

static void process(void *ctx, const union perf_event *ev)
{
	struct schedrec *r = ctx;
	struct sample s;
	uint64_t a = 0, b = 0, c = 0;
	char comm[SCHED_COMM_LEN];
	int id;

	if (sample__parse(ev, SAMPLE_TYPE, 0, &s) ||
	    (id = trace__record_id(s.raw, s.raw_size)) < 0) {
		r->bad++;
		return;
	}
	if (id == r->ids[EV_SWITCH]) {
		if (trace__read_u64(r->trace, &r->prev_pid, s.raw, s.raw_size, &a) ||
		    trace__read_u64(r->trace, &r->prev_state, s.raw, s.raw_size, &b) ||
		    trace__read_u64(r->trace, &r->next_pid, s.raw, s.raw_size, &c) ||
		    trace__read_str(&r->prev_comm, s.raw, s.raw_size, comm, sizeof(comm))) {
			r->bad++;
			return;
		}
		sched__switch(&r->sched, s.time, s.cpu, (int32_t)s.tid, (int32_t)a, s.pid, comm, b,
			      s.callchain,
			      (uint32_t)s.nr_callchain, (int32_t)c);
	} else if (id == r->ids[EV_WAKING] || id == r->ids[EV_WAKEUP_NEW]) {
		const struct trace_field *f = id == r->ids[EV_WAKING] ? &r->wake_pid : &r->new_pid;

		if (!trace__read_u64(r->trace, f, s.raw, s.raw_size, &a))
			sched__wakeup(&r->sched, s.time, (int32_t)a);
	} else if (id == r->ids[EV_MIGRATE]) {
		if (!trace__read_u64(r->trace, &r->mig_pid, s.raw, s.raw_size, &a))
			sched__migrate(&r->sched, (int32_t)a);
	} else if (id == r->ids[EV_FORK]) {
		if (!trace__read_u64(r->trace, &r->fork_parent, s.raw, s.raw_size, &a) &&
		    !trace__read_u64(r->trace, &r->fork_child, s.raw, s.raw_size, &b))
			sched__fork(&r->sched, (int32_t)a, (int32_t)b);
	} else {
		r->bad++;
	}
}

static void enqueue(void *ctx, const union perf_event *ev)
{
	struct schedrec *r = ctx;
	struct sample s;
	size_t size = ev->header.size;

	if (ev->header.type == PERF_RECORD_LOST) {
		if (size >= sizeof(struct perf_record_lost))
			r->lost += ev->lost.lost;
		return;
	}
	if (ev->header.type == PERF_RECORD_LOST_SAMPLES) {
		if (size >= sizeof(struct perf_record_lost_samples))
			r->lost += ev->lost_samples.lost;
		return;
	}
	if (ev->header.type != PERF_RECORD_SAMPLE)
		return;
	if (sample__parse(ev, SAMPLE_TYPE, 0, &s)) {
		r->bad++;
		return;
	}
	r->records++;
	reorderq__push(&r->q, s.time, ev);
}

static int drain(struct schedrec *r, uint64_t until)
{
	uint64_t before = r->records;

	if (!perfsession__is_open(&r->ps))
		return 0;
	perfsession__read(&r->ps, enqueue, r);
	reorderq__flush(&r->q, until, process, r);
	return (int)(r->records - before);
}

int schedrec__drain(struct schedrec *r)
{
	struct timespec ts;

	/* whatever is stamped before now is already in some buffer */
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return drain(r, (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec);
}

void schedrec__close(struct schedrec *r)
{
	if (!perfsession__is_open(&r->ps))
		return;
	perfsession__disable(&r->ps);
	drain(r, UINT64_MAX);
	perfsession__close(&r->ps);
}

void schedrec__add_events(struct schedrec *r, struct profile *p)
{
	/* not a perf event: type and config say so (PERF_TYPE_MAX, 0) */
	struct event_desc d = {
		.name = profile__intern(p, PROFILE_OFFCPU_EVENT),
		.asked = profile__intern(p, "--sched"),
		.type = PERF_TYPE_MAX,
		.config = 0,
		.freq = 0,
		.sample = 1,
	};

	r->offcpu_event = profile__add_event(p, &d);
}

void schedrec__end_run(struct schedrec *r, struct profile *p, uint32_t run,
		       struct symbols *syms, uint64_t *records, uint64_t *lost)
{
	sched__end_run(&r->sched, p, run, syms, r->offcpu_event);
	if (records)
		*records += r->records;
	if (lost)	/* switch-outs whose interval nothing bounds count as lost records */
		*lost += r->lost + r->sched.lost;
	r->records = r->lost = r->bad = 0;
	sched__reset(&r->sched);
}
