/*
 * perfsession: one run's libperf evlist, and the time-order queue of the
 * records read from it; see include/mmprof/perfsession.h.
 */
#include <errno.h>
#include <poll.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include <perf/core.h>
#include <perf/cpumap.h>
#include <perf/evlist.h>
#include <perf/evsel.h>
#include <perf/mmap.h>
#include <perf/threadmap.h>

#include "mmprof/perfsession.h"
#include "mmprof/xalloc.h"

/* Present from the libperf that renamed the cpu map constructors on (6.8),
 * whose perf_evsel__delete puts the evsel's maps itself. */
extern struct perf_cpu_map *perf_cpu_map__new_any_cpu(void) __attribute__((weak));

static int libperf_quiet(enum libperf_print_level level, const char *fmt, va_list ap)
{
	/* library code does not print; errors come back as -errno */
	(void)level; (void)fmt; (void)ap;
	return 0;
}

/* 6.1's perf_evsel__delete leaves the maps the evlist gave the evsel. */
static void put_evsel_maps(struct perf_evsel *evsel)
{
	if (perf_cpu_map__new_any_cpu)
		return;
	perf_cpu_map__put(perf_evsel__cpus(evsel));
	perf_thread_map__put(perf_evsel__threads(evsel));
}

/* The evlist on cpus and threads (both ours to put, NULL: could not be made). */
static int set_maps(struct perfsession *ps, struct perf_cpu_map *cpus,
		    struct perf_thread_map *threads, struct errmsg *e)
{
	int err = 0;

	if (!cpus || !threads) {
		err = -ENOMEM;
		goto out;
	}
	ps->evlist = perf_evlist__new();
	if (!ps->evlist) {
		err = errmsg__set(e, -ENOMEM, "out of memory");
		goto out;
	}
	perf_evlist__set_maps(ps->evlist, cpus, threads);
out:
	perf_cpu_map__put(cpus);
	perf_thread_map__put(threads);
	return err;
}

int perfsession__open(struct perfsession *ps, const char *cpu_list, const pid_t *tids,
		      size_t nr_tids, struct errmsg *e)
{
	struct perf_cpu_map *cpus;

	perfsession__close(ps);
	libperf_init(libperf_quiet);
	cpus = perf_cpu_map__new(cpu_list);
	if (!cpus || !perf_cpu_map__nr(cpus)) {
		perf_cpu_map__put(cpus);
		return errmsg__set(e, -EINVAL, "cannot use CPU list '%s'",
				   cpu_list ? cpu_list : "(online CPUs)");
	}
	return set_maps(ps, cpus, tids ? perf_thread_map__new_array((int)nr_tids, (pid_t *)tids)
				       : perf_thread_map__new_dummy(), e);
}

int perfsession__open_threads(struct perfsession *ps, const pid_t *tids, size_t nr_tids,
			      struct errmsg *e)
{
	perfsession__close(ps);
	if (!nr_tids)
		return errmsg__set(e, -EINVAL, "no thread to count");
	libperf_init(libperf_quiet);
	return set_maps(ps, perf_cpu_map__dummy_new(),
			perf_thread_map__new_array((int)nr_tids, (pid_t *)tids), e);
}

int perfsession__add(struct perfsession *ps, const struct perf_event_attr *attr,
		     struct perf_evsel **evsel)
{
	*evsel = perf_evsel__new((struct perf_event_attr *)attr);
	if (!*evsel)
		return -ENOMEM;
	perf_evlist__add(ps->evlist, *evsel);
	return 0;
}

int perfsession__open_evsel(struct perf_evsel *evsel)
{
	int err = perf_evsel__open(evsel, perf_evsel__cpus(evsel), perf_evsel__threads(evsel));

	return err ? (err < 0 ? err : -EINVAL) : 0;
}

/* Take an added event out again and free it (its open failed). */
static void drop_event(struct perfsession *ps, struct perf_evsel *evsel)
{
	perf_evlist__remove(ps->evlist, evsel);
	put_evsel_maps(evsel);
	perf_evsel__delete(evsel);
}

int perfsession__open_event(struct perfsession *ps, const struct perf_event_attr *attr,
			    struct perf_evsel **evsel)
{
	int err = perfsession__add(ps, attr, evsel);

	if (err)
		return err;
	err = perfsession__open_evsel(*evsel);
	if (err) {
		drop_event(ps, *evsel);
		*evsel = NULL;
	}
	return err;
}

int perfsession__read_ids(struct perf_evsel *evsel, void (*fn)(void *ctx, uint64_t id),
			  void *ctx)
{
	int ncpu = perf_cpu_map__nr(perf_evsel__cpus(evsel));
	int nthr = perf_thread_map__nr(perf_evsel__threads(evsel));
	int c, t, err;

	if (!(perf_evsel__attr(evsel)->read_format & PERF_FORMAT_ID))
		return -EINVAL;
	for (c = 0; c < ncpu; c++)
		for (t = 0; t < nthr; t++) {
			struct perf_counts_values v;

			err = perf_evsel__read(evsel, c, t, &v);
			if (err)
				return err;
			fn(ctx, v.id);
		}
	return 0;
}

/* Whether perfsession__mmap hid evsel's read_format ID from libperf. */
static bool id_hidden(const struct perfsession *ps, const struct perf_evsel *evsel)
{
	size_t i;

	for (i = 0; i < ps->nr_id_hidden; i++)
		if (ps->id_hidden[i] == evsel)
			return true;
	return false;
}

/*
 * The ID bit the mmap hid is back while reading: libperf sizes the read by
 * its attr, the kernel writes by its own.
 */
int perfsession__read_counts(struct perfsession *ps, struct perf_evsel *evsel,
			     struct perfsession_counts *sum)
{
	struct perf_event_attr *attr = perf_evsel__attr(evsel);
	int ncpu = perf_cpu_map__nr(perf_evsel__cpus(evsel));
	int nthr = perf_thread_map__nr(perf_evsel__threads(evsel));
	bool id = id_hidden(ps, evsel);
	int c, t, err = 0;

	memset(sum, 0, sizeof(*sum));
	if (id)
		attr->read_format |= PERF_FORMAT_ID;
	for (c = 0; c < ncpu; c++)
		for (t = 0; t < nthr; t++) {
			struct perf_counts_values v;
			int r;

			memset(&v, 0, sizeof(v));
			r = perf_evsel__read(evsel, c, t, &v);
			if (r) {
				if (!err)
					err = r < 0 ? r : -EIO;
				continue;
			}
			sum->val += v.val;
			sum->ena += v.ena;
			sum->run += v.run;
			sum->lost += v.lost;
		}
	if (id)
		attr->read_format &= ~(uint64_t)PERF_FORMAT_ID;
	return err;
}

int perfsession__lost(struct perfsession *ps, uint64_t *lost)
{
	struct perf_evsel *evsel;

	*lost = 0;
	if (!ps->evlist)
		return 0;
	perf_evlist__for_each_evsel(ps->evlist, evsel) {
		struct perfsession_counts sum;
		int err;

		if (!(perf_evsel__attr(evsel)->read_format & PERF_FORMAT_LOST))
			continue;
		err = perfsession__read_counts(ps, evsel, &sum);
		if (err) {
			*lost = 0;
			return err;
		}
		*lost += sum.lost;
	}
	return 0;
}

int perfsession__mmap(struct perfsession *ps, int pages)
{
	struct perf_evsel *evsel;
	int err;

	perf_evlist__for_each_evsel(ps->evlist, evsel) {
		struct perf_event_attr *attr = perf_evsel__attr(evsel);

		if (!(attr->read_format & PERF_FORMAT_ID))
			continue;
		XGROW(ps->id_hidden, ps->alloc_id_hidden, ps->nr_id_hidden);
		ps->id_hidden[ps->nr_id_hidden++] = evsel;
		attr->read_format &= ~(uint64_t)PERF_FORMAT_ID;
	}
	err = perf_evlist__mmap(ps->evlist, pages);
	/* some paths of 6.1 return a bare -1 with errno set */
	if (err)
		err = err < 0 && err != -1 ? err : -(errno ? errno : EINVAL);
	return err;
}

void perfsession__enable(struct perfsession *ps)
{
	if (ps->evlist)
		perf_evlist__enable(ps->evlist);
}

void perfsession__disable(struct perfsession *ps)
{
	if (ps->evlist)
		perf_evlist__disable(ps->evlist);
}

int perfsession__poll(struct perfsession *ps, int timeout_ms)
{
	int n;

	if (!ps->evlist)
		return 0;
	n = perf_evlist__poll(ps->evlist, timeout_ms);
	if (n < 0)
		return errno == EINTR ? -EINTR : -errno;
	if (n > 0)
		perf_evlist__filter_pollfd(ps->evlist, POLLERR | POLLHUP);
	return n;
}

void perfsession__read(struct perfsession *ps, perfsession_event_fn fn, void *ctx)
{
	struct perf_mmap *map;
	union perf_event *ev;

	if (!ps->evlist)
		return;
	perf_evlist__for_each_mmap(ps->evlist, map, false) {
		if (perf_mmap__read_init(map) < 0)
			continue;
		while ((ev = perf_mmap__read_event(map))) {
			fn(ctx, ev);
			perf_mmap__consume(map);
		}
		perf_mmap__read_done(map);
	}
}

bool perfsession__read_while(struct perfsession *ps, perfsession_event_fn fn,
			     bool (*room)(void *ctx), void *ctx)
{
	struct perf_mmap *map;
	union perf_event *ev;
	bool whole = true;

	if (!ps->evlist)
		return true;
	perf_evlist__for_each_mmap(ps->evlist, map, false) {
		if (perf_mmap__read_init(map) < 0)
			continue;
		/* no room: the rest stays in the buffer, for the next read */
		while ((whole = room(ctx)) && (ev = perf_mmap__read_event(map))) {
			fn(ctx, ev);
			perf_mmap__consume(map);
		}
		perf_mmap__read_done(map);
		if (!whole)
			break;
	}
	return whole;
}

void perfsession__close(struct perfsession *ps)
{
	struct perf_evsel *evsel;

	if (!ps->evlist)
		return;
	perf_evlist__munmap(ps->evlist);
	perf_evlist__close(ps->evlist);
	perf_evlist__for_each_evsel(ps->evlist, evsel)
		put_evsel_maps(evsel);
	perf_evlist__delete(ps->evlist);
	ps->evlist = NULL;
	free(ps->id_hidden);
	ps->id_hidden = NULL;
	ps->nr_id_hidden = ps->alloc_id_hidden = 0;
}

/* ---- the reorder queue --------------------------------------------------- */

void reorderq__init(struct reorderq *q)
{
	memset(q, 0, sizeof(*q));
}

void reorderq__release(struct reorderq *q)
{
	free(q->buf);
	free(q->spare);
	free(q->refs);
	free(q->tmp);
	free(q->runs);
	reorderq__init(q);
}

void reorderq__clear(struct reorderq *q)
{
	q->nr = q->len = 0;
}

void reorderq__push(struct reorderq *q, uint64_t time, const union perf_event *ev)
{
	size_t size = ev->header.size;
	size_t off = (q->len + 7) & ~(size_t)7;	/* keep records 8-byte aligned */

	XGROW(q->refs, q->alloc_refs, q->nr);
	q->refs[q->nr].time = time;
	q->refs[q->nr].off = off;
	q->refs[q->nr].seq = q->seq++;
	q->nr++;
	XGROW(q->buf, q->alloc, off + size);
	memcpy(q->buf + off, ev, size);
	q->len = off + size;
}

static bool ref_before(const struct reorderq_ref *x, const struct reorderq_ref *y)
{
	return x->time != y->time ? x->time < y->time : x->seq < y->seq;
}

/*
 * Sort refs by (time, seq): a natural merge sort.  The queue is a few
 * sorted runs end to end (what was left by the last flush, then each
 * CPU's buffer as read), so finding the runs and merging them pairwise
 * costs O(n log runs), and one pass when the records came in order.
 */
static void sort_refs(struct reorderq *q)
{
	struct reorderq_ref *src = q->refs, *dst, *t;
	size_t nr = q->nr, nruns = 0, i, r;

	XGROW(q->runs, q->alloc_runs, 0);
	q->runs[nruns++] = 0;
	for (i = 1; i < nr; i++)
		if (ref_before(&src[i], &src[i - 1])) {
			XGROW(q->runs, q->alloc_runs, nruns);
			q->runs[nruns++] = i;
		}
	if (nruns == 1)
		return;
	XGROW(q->tmp, q->alloc_tmp, nr);
	dst = q->tmp;
	XGROW(q->runs, q->alloc_runs, nruns);
	q->runs[nruns] = nr;	/* the end of the last run */
	while (nruns > 1) {
		size_t out = 0;

		for (r = 0; r < nruns; r += 2) {
			size_t a = q->runs[r], am = q->runs[r + 1];
			size_t bm = r + 2 <= nruns ? q->runs[r + 2] : am, k = a, b = am;

			q->runs[out++] = a;
			while (a < am && b < bm)
				dst[k++] = ref_before(&src[b], &src[a]) ? src[b++] : src[a++];
			while (a < am)
				dst[k++] = src[a++];
			while (b < bm)
				dst[k++] = src[b++];
		}
		q->runs[out] = nr;
		nruns = out;
		t = src;
		src = dst;
		dst = t;
	}
	if (src != q->refs) {
		/* the sorted copy is in tmp: swap the arrays, not their contents */
		size_t a = q->alloc_refs;

		q->tmp = q->refs;
		q->refs = src;
		q->alloc_refs = q->alloc_tmp;
		q->alloc_tmp = a;
	}
}

/*
 * What stays is mostly the last round's records, at the end of buf: they
 * stay where they are, and only when the space before them has grown
 * past DEAD_FACTOR times theirs do they move to the front of the spare
 * buffer, which becomes the queue.  So a record is copied in once and
 * moved about 1/DEAD_FACTOR times, and no allocation is made once both
 * buffers have grown.
 */
#define DEAD_FACTOR 1

size_t reorderq__flush(struct reorderq *q, uint64_t limit, perfsession_event_fn fn,
		       void *ctx)
{
	unsigned char *t;
	size_t i, j, len = 0, lo = SIZE_MAX;

	if (!q->nr)
		return 0;	/* q->refs may be NULL */
	sort_refs(q);
	for (i = 0; i < q->nr && q->refs[i].time <= limit; i++)
		fn(ctx, reorderq__event(q, i));
	for (j = i; j < q->nr; j++)
		if (q->refs[j].off < lo)
			lo = q->refs[j].off;
	if (i == q->nr) {
		q->nr = q->len = 0;
		return i;
	}
	if (lo <= DEAD_FACTOR * (q->len - lo)) {
		memmove(q->refs, q->refs + i, (q->nr - i) * sizeof(*q->refs));
		q->nr -= i;
		return i;
	}
	for (j = i; j < q->nr; j++) {
		const struct perf_event_header *h = (const void *)(q->buf + q->refs[j].off);
		size_t off = (len + 7) & ~(size_t)7;

		XGROW(q->spare, q->spare_alloc, off + h->size);
		memcpy(q->spare + off, h, h->size);
		q->refs[j - i] = q->refs[j];
		q->refs[j - i].off = off;
		len = off + h->size;
	}
	q->nr -= i;
	q->len = len;
	t = q->buf;
	q->buf = q->spare;
	q->spare = t;
	j = q->alloc;
	q->alloc = q->spare_alloc;
	q->spare_alloc = j;
	return i;
}
