/*
 * perfsession: the one libperf layer under mmprof's recorders, the
 * sampler (sampler.h), the --sched tracepoints (schedrec, sched.h) and the
 * perf-stat counters (counting.h).
 *
 * struct perfsession is one run's evlist: a cpu map and a thread map, the
 * events added and opened one by one, per-CPU ring buffers mapped,
 * enabled and disabled together, polled and read record by record, then
 * torn down.  The counters are a session too, on the target's threads
 * on any CPU or per CPU, never mapped: their readings are summed over the
 * CPUs and threads each event was opened on (perfsession__read_counts).  Nothing above src/perf/ calls libperf or
 * includes its headers but the record layouts (<perf/event.h>, through
 * this header): src/scripts/include-cycles.sh fails otherwise.  It hides
 * the libperf 6.1 quirks once:
 *  - libperf_init() must run before mmap (it sets page_size), with a
 *    print hook that stays quiet: library code does not print, errors
 *    come back as -errno;
 *  - perf_evlist__set_maps() takes its own references, so ours are put;
 *  - perf_evsel__delete() of 6.1 does not put the maps the evlist gave the
 *    evsel: they are put here unless the library is new enough (it has
 *    perf_cpu_map__new_any_cpu, 6.8) to do it itself;
 *  - read_format ID makes perf_evlist__mmap allocate per-event id tables
 *    that nothing public frees: perfsession__mmap takes the bit out of
 *    libperf's copy of the attr (the kernel keeps its own), so the ids are
 *    read before (perfsession__read_ids), and the reads after put it back
 *    while they read (libperf sizes a read by its copy);
 *  - perf_evsel__open and perf_evlist__mmap may return a bare -1 or a
 *    positive value: these functions return -errno.
 *
 * struct reorderq puts records back into time order.  The ring buffers are
 * per CPU and read one after another, so a record read late may be older
 * than one already read from another CPU.  Records are copied into the
 * queue with their time; a flush hands those stamped no later than a limit
 * to a callback in (time, arrival) order, which is total and so the same
 * from run to run, and keeps the rest.  The sampler queues every sample
 * too (millions a second at most): a flush merges the queue's sorted runs
 * (one per buffer read) instead of sorting it, and what stays is moved
 * only once the space before it is several times its size.  Which limit is safe is the
 * caller's rule (the sampler's "seen by the end of the previous round",
 * schedrec's "before the drain began").  Memory is what waits: the caller
 * flushes often.
 *
 * Library rules: 0 or -errno, messages through errmsg, nothing printed.
 */
#ifndef MMPROF_PERFSESSION_H
#define MMPROF_PERFSESSION_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include <linux/perf_event.h>
#include <perf/event.h>

#include "mmprof/errmsg.h"

struct perf_evlist;
struct perf_evsel;

struct perfsession {
	struct perf_evlist *evlist;	/* NULL when closed */
	/* the events whose read_format ID perfsession__mmap hid from libperf */
	struct perf_evsel **id_hidden;
	size_t nr_id_hidden, alloc_id_hidden;
};

/*
 * A new evlist on cpu_list (NULL: every online CPU) and the threads tids
 * (NULL: one dummy thread, i.e. per CPU and every task).  Closes what was
 * open first.  -EINVAL "cannot use CPU list ..." or -ENOMEM.
 */
int perfsession__open(struct perfsession *ps, const char *cpu_list, const pid_t *tids,
		      size_t nr_tids, struct errmsg *e);
/*
 * A new evlist on the threads tids (nr_tids > 0) on whatever CPU they run
 * (cpu -1: one descriptor a thread), for counters, which are read and not
 * mapped (the kernel maps an inherited event only per CPU).  Closes what
 * was open first.  -EINVAL "no thread to count" or -ENOMEM.
 */
int perfsession__open_threads(struct perfsession *ps, const pid_t *tids, size_t nr_tids,
			      struct errmsg *e);
static inline bool perfsession__is_open(const struct perfsession *ps)
{
	return ps->evlist != NULL;
}

/* Add an event of attr (not opened yet) to the evlist: 0 or -ENOMEM. */
int perfsession__add(struct perfsession *ps, const struct perf_event_attr *attr,
		     struct perf_evsel **evsel);
/* Open an added event on the session's maps: 0 or -errno (never a bare -1). */
int perfsession__open_evsel(struct perf_evsel *evsel);
/*
 * perfsession__add, then perfsession__open_evsel: 0 with *evsel, or -errno
 * with the event taken out again and *evsel NULL.  An open refused for a
 * setting (EINVAL from an older kernel, EACCES for the kernel's part) is
 * tried again by the caller with another attr.
 */
int perfsession__open_event(struct perfsession *ps, const struct perf_event_attr *attr,
			    struct perf_evsel **evsel);

/*
 * The id the kernel gave each of an opened event's descriptors (its attr
 * has read_format ID; samples carry it to say whose they are), to fn one
 * by one, CPU after CPU, thread after thread.  Before perfsession__mmap.
 * 0, -EINVAL without read_format ID, or the first failed read's -errno.
 */
int perfsession__read_ids(struct perf_evsel *evsel, void (*fn)(void *ctx, uint64_t id),
			  void *ctx);

/* One event's readings summed over the CPUs and threads it was opened on. */
struct perfsession_counts {
	uint64_t val;	/* the count */
	uint64_t ena;	/* time enabled (read_format TOTAL_TIME_ENABLED, else 0) */
	uint64_t run;	/* time running, less than ena when multiplexed (TOTAL_TIME_RUNNING) */
	uint64_t lost;	/* records the kernel could not write (read_format LOST, 6.0 on) */
};
/*
 * Read an opened event of ps on each of its CPUs and threads and sum: a
 * failed read (a thread of a -p target gone) adds nothing.  0, or the
 * first failed read's -errno (the others still summed).
 */
int perfsession__read_counts(struct perfsession *ps, struct perf_evsel *evsel,
			     struct perfsession_counts *sum);
/*
 * The kernel's own count of the records it could not write into the ring
 * buffers, summed over the session's events opened with read_format LOST
 * (kernels before 6.0 have none: they add nothing): 0 with *lost, or a
 * failed read's -errno with *lost 0 (a partial sum would say too little).
 * A closed session: 0 with *lost 0.
 */
int perfsession__lost(struct perfsession *ps, uint64_t *lost);

/*
 * Map pages-page ring buffers on every CPU: 0 or -errno.  Events with
 * read_format ID lose it in libperf's copy (see the top): read their ids
 * first.
 */
int perfsession__mmap(struct perfsession *ps, int pages);

void perfsession__enable(struct perfsession *ps);
void perfsession__disable(struct perfsession *ps);

/*
 * Wait for data up to timeout_ms: >0 data, 0 timeout, -EINTR on a signal.
 * Buffers of exited tasks hang up and are not polled again (poll() would
 * return at once forever); they stay readable.
 */
int perfsession__poll(struct perfsession *ps, int timeout_ms);

/* Hand every record in the ring buffers to fn, buffer after buffer. */
typedef void (*perfsession_event_fn)(void *ctx, const union perf_event *ev);
void perfsession__read(struct perfsession *ps, perfsession_event_fn fn, void *ctx);
/*
 * perfsession__read, asking room(ctx) before each record: when it says
 * no, the records not read stay in their buffer (the kernel counts what
 * it drops once that is full) and the read stops.  Returns whether every
 * buffer was read to its head.
 */
bool perfsession__read_while(struct perfsession *ps, perfsession_event_fn fn,
			     bool (*room)(void *ctx), void *ctx);

/* Unmap, close and free the events and the evlist.  A closed session is fine. */
void perfsession__close(struct perfsession *ps);

/* ---- the reorder queue ---- */

struct reorderq_ref {
	uint64_t time;
	uint64_t seq;		/* arrival order, to keep equal times stable */
	size_t off;		/* into buf */
};

struct reorderq {
	unsigned char *buf, *spare;	/* copies, 8-byte aligned; spare: for compaction */
	size_t len, alloc, spare_alloc;
	struct reorderq_ref *refs;
	size_t nr, alloc_refs;
	uint64_t seq;		/* records queued so far */
	struct reorderq_ref *tmp;	/* the merge sort's other half */
	size_t alloc_tmp;
	size_t *runs;		/* where each sorted run of refs starts */
	size_t alloc_runs;
};

void reorderq__init(struct reorderq *q);
void reorderq__release(struct reorderq *q);
/* Forget what waits, unprocessed. */
void reorderq__clear(struct reorderq *q);

/* Copy ev (ev->header.size bytes) into the queue, stamped time. */
void reorderq__push(struct reorderq *q, uint64_t time, const union perf_event *ev);

/*
 * Hand the records stamped no later than limit to fn in (time, arrival)
 * order and forget them; the rest stay.  fn must not push.  Returns the
 * number handed.
 */
size_t reorderq__flush(struct reorderq *q, uint64_t limit, perfsession_event_fn fn,
		       void *ctx);

/* The records waiting, in no particular order (valid until the next push or flush). */
static inline size_t reorderq__nr(const struct reorderq *q)
{
	return q->nr;
}
static inline const union perf_event *reorderq__event(const struct reorderq *q, size_t i)
{
	return (const union perf_event *)(const void *)(q->buf + q->refs[i].off);
}

#endif
