/*
 * schedrec: the sched tracepoints on every CPU, decoded and fed to struct
 * sched in time order; see include/mmprof/sched.h.
 *
 * Order: the ring buffers are per CPU and read one after the other, but a
 * task switched out on one CPU comes back in on another.  Records are
 * stamped with CLOCK_MONOTONIC (use_clockid), copied into a pending queue,
 * and at each drain only those stamped before the drain began are sorted
 * and processed: anything later may still have an earlier neighbour in a
 * buffer not read yet.  The rest waits for the next drain (close processes
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
#include <perf/core.h>
#include <perf/cpumap.h>
#include <perf/event.h>
#include <perf/evlist.h>
#include <perf/evsel.h>
#include <perf/mmap.h>
#include <perf/threadmap.h>

#include "mmprof/sample.h"
#include "mmprof/sched.h"
#include "mmprof/trace.h"
#include "mmprof/xalloc.h"

#define DEFAULT_PAGES	512	/* 2 MiB per CPU: sched events come in bursts */
#define SAMPLE_TYPE	(PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | \
			 PERF_SAMPLE_CPU | PERF_SAMPLE_CALLCHAIN | PERF_SAMPLE_RAW)

/* See sampler.c: present from the libperf whose evsel__delete puts its maps. */
extern struct perf_cpu_map *perf_cpu_map__new_any_cpu(void) __attribute__((weak));

enum sched_ev { EV_SWITCH, EV_WAKING, EV_WAKEUP_NEW, EV_MIGRATE, EV_FORK, NR_EV };

static const char *const ev_names[NR_EV] = {
	"sched_switch", "sched_waking", "sched_wakeup_new", "sched_migrate_task",
	"sched_process_fork",
};

struct queued {
	uint64_t time, seq;
	size_t off;		/* into the queue buffer */
};

struct schedrec {
	struct trace *trace;
	int ids[NR_EV];
	struct trace_field prev_comm, prev_pid, prev_state, next_pid;
	struct trace_field wake_pid, new_pid, mig_pid, fork_parent, fork_child;
	int mmap_pages;
	struct perf_evlist *evlist;
	struct sched sched;
	uint32_t offcpu_event;

	char *buf;		/* copies of records not processed yet */
	size_t buf_used, buf_alloc;
	struct queued *q;
	size_t nr_q, alloc_q;
	uint64_t seq;
	uint64_t records, lost, bad;
};

static int libperf_quiet(enum libperf_print_level level, const char *fmt, va_list ap)
{
	(void)level; (void)fmt; (void)ap;
	return 0;
}

struct schedrec *schedrec__new(int mmap_pages, struct errmsg *e)
{
	struct schedrec *r = xcalloc(1, sizeof(*r));
	int i, err = 0;

	r->mmap_pages = mmap_pages > 0 ? mmap_pages : DEFAULT_PAGES;
	r->offcpu_event = UINT32_MAX;
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

static void teardown(struct schedrec *r)
{
	struct perf_evsel *evsel;

	if (!r->evlist)
		return;
	perf_evlist__munmap(r->evlist);
	perf_evlist__close(r->evlist);
	if (!perf_cpu_map__new_any_cpu) {
		perf_evlist__for_each_evsel(r->evlist, evsel) {
			perf_cpu_map__put(perf_evsel__cpus(evsel));
			perf_thread_map__put(perf_evsel__threads(evsel));
		}
	}
	perf_evlist__delete(r->evlist);
	r->evlist = NULL;
}

void schedrec__free(struct schedrec *r)
{
	if (!r)
		return;
	teardown(r);
	trace__free(r->trace);
	sched__release(&r->sched);
	free(r->buf);
	free(r->q);
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
	struct perf_cpu_map *cpus = NULL;
	struct perf_thread_map *threads = NULL;
	int i, err = 0;
	size_t k;

	teardown(r);
	sched__reset(&r->sched);
	r->sched.filter = !t->system_wide;
	for (k = 0; k < t->nr_pids && !t->system_wide; k++)
		watch_threads(r, t->pids[k]);
	r->buf_used = r->nr_q = 0;
	libperf_init(libperf_quiet);
	cpus = perf_cpu_map__new(t->system_wide ? t->cpu_list : NULL);
	threads = perf_thread_map__new_dummy();
	r->evlist = perf_evlist__new();
	if (!cpus || !threads || !r->evlist) {
		err = errmsg__set(e, -ENOMEM, "out of memory");
		goto out;
	}
	perf_evlist__set_maps(r->evlist, cpus, threads);
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
		evsel = perf_evsel__new(&a);
		if (!evsel) {
			err = errmsg__set(e, -ENOMEM, "out of memory");
			goto out_teardown;
		}
		perf_evlist__add(r->evlist, evsel);
		err = perf_evsel__open(evsel, perf_evsel__cpus(evsel), perf_evsel__threads(evsel));
		if (err) {
			err = err < 0 ? err : -EINVAL;
			errmsg__set(e, err, "cannot open tracepoint 'sched:%s' on every CPU: %s%s",
				    ev_names[i], strerror(-err),
				    err == -EACCES || err == -EPERM ?
				    "; --sched needs root or kernel.perf_event_paranoid=-1" : "");
			goto out_teardown;
		}
	}
	err = perf_evlist__mmap(r->evlist, r->mmap_pages);
	if (err) {
		err = err < 0 && err != -1 ? err : -(errno ? errno : EINVAL);
		errmsg__set(e, err, "cannot map the --sched ring buffers (%d pages per CPU): %s; "
			    "lower -m or raise kernel.perf_event_mlock_kb", r->mmap_pages,
			    strerror(-err));
		goto out_teardown;
	}
	goto out;
out_teardown:
	teardown(r);
out:
	perf_cpu_map__put(cpus);
	perf_thread_map__put(threads);
	return err;
}

void schedrec__enable(struct schedrec *r)
{
	if (r->evlist)
		perf_evlist__enable(r->evlist);
}

void schedrec__disable(struct schedrec *r)
{
	if (r->evlist)
		perf_evlist__disable(r->evlist);
}

static void process(struct schedrec *r, const union perf_event *ev)
{
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
		sched__switch(&r->sched, s.time, (int32_t)a, s.pid, comm, b, s.callchain,
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

static int queued_cmp(const void *x, const void *y)
{
	const struct queued *a = x, *b = y;

	if (a->time != b->time)
		return a->time < b->time ? -1 : 1;
	return a->seq < b->seq ? -1 : a->seq > b->seq;
}

/* Process the queued records stamped up to `until`; keep the later ones. */
static void flush(struct schedrec *r, uint64_t until)
{
	size_t i, n = 0, keep_used = 0;
	char *nbuf;

	qsort(r->q, r->nr_q, sizeof(*r->q), queued_cmp);
	for (i = 0; i < r->nr_q && r->q[i].time <= until; i++)
		process(r, (const union perf_event *)(r->buf + r->q[i].off));
	n = i;
	if (n == r->nr_q) {
		r->nr_q = r->buf_used = 0;
		return;
	}
	/* compact the rest (a small tail: records of the last moments) */
	for (i = n; i < r->nr_q; i++)
		keep_used += ((const struct perf_event_header *)(r->buf + r->q[i].off))->size;
	nbuf = xmalloc(keep_used + 1);
	keep_used = 0;
	for (i = n; i < r->nr_q; i++) {
		const struct perf_event_header *h = (const void *)(r->buf + r->q[i].off);

		memcpy(nbuf + keep_used, h, h->size);
		r->q[i - n] = r->q[i];
		r->q[i - n].off = keep_used;
		keep_used += h->size;
	}
	r->nr_q -= n;
	memcpy(r->buf, nbuf, keep_used);
	r->buf_used = keep_used;
	free(nbuf);
}

static void enqueue(struct schedrec *r, const union perf_event *ev)
{
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
	if (r->buf_alloc - r->buf_used < size) {
		r->buf_alloc = r->buf_alloc ? r->buf_alloc : 1 << 20;
		while (r->buf_alloc - r->buf_used < size)
			r->buf_alloc *= 2;
		r->buf = xrealloc(r->buf, r->buf_alloc);
	}
	memcpy(r->buf + r->buf_used, ev, size);
	XGROW(r->q, r->alloc_q, r->nr_q);
	r->q[r->nr_q].time = s.time;
	r->q[r->nr_q].seq = r->seq++;
	r->q[r->nr_q].off = r->buf_used;
	r->nr_q++;
	r->buf_used += size;
}

static int drain(struct schedrec *r, uint64_t until)
{
	uint64_t before = r->records;
	struct perf_mmap *map;
	union perf_event *ev;

	if (!r->evlist)
		return 0;
	perf_evlist__for_each_mmap(r->evlist, map, false) {
		if (perf_mmap__read_init(map) < 0)
			continue;
		while ((ev = perf_mmap__read_event(map))) {
			enqueue(r, ev);
			perf_mmap__consume(map);
		}
		perf_mmap__read_done(map);
	}
	flush(r, until);
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
	if (!r->evlist)
		return;
	perf_evlist__disable(r->evlist);
	drain(r, UINT64_MAX);
	teardown(r);
}

void schedrec__add_events(struct schedrec *r, struct profile *p)
{
	/* not a perf event: type and config say so (PERF_TYPE_MAX, 0) */
	struct event_desc d = {
		.name = profile__intern(p, SCHED_OFFCPU_EVENT),
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
	if (lost)
		*lost += r->lost;
	r->records = r->lost = r->bad = 0;
	sched__reset(&r->sched);
}
