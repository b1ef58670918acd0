/*
 * sampler-queue: the reading thread and the worker; see
 * src/record/sampler-int.h.
 *
 * Under a heavy -a load the thread that reads the ring buffers lost
 * samples where perf lost none: it parsed, ordered, hashed and counted
 * each one before reading on, three times perf's CPU, and a thread that
 * asks for more of a shared CPU waits longer for it while the kernel's
 * buffers fill.  So a live recording has two threads.  The reading thread
 * (the run loop's) copies each record it keeps out of the ring buffers
 * into one bounded byte queue, with a mark at the end of each round that
 * read every buffer to its head, and does only what cannot wait (a
 * mapped file opened while its process lives, an exec's check, the raw
 * hook, LOST and THROTTLE counted).  The worker takes the records in the
 * same order and does the rest exactly as a replay does (sampler-stream.c,
 * through the take and round hooks it sets: this file calls neither it
 * nor the resolver): the time-order queue, the side band, the aggregate
 * and its spill.  The
 * same records in the same order and the same rounds give the same
 * profile, on one thread or two.
 *
 * Bounded: the queue is queue_bytes long.  When the worker falls behind
 * and it is full, the reader stops reading and leaves the records in the
 * ring buffers, where the kernel keeps them until its own buffer fills
 * and then counts what it drops in PERF_RECORD_LOST, as it does for a
 * slow perf: lost, counted, never a queue that grows.  A round cut short
 * so is not marked (a later record in a buffer not read to its head may
 * be older than those read), and is counted in queue_full.
 *
 * The reading thread never waits for the worker while it reads: a worker
 * preempted while holding a lock the reader wanted stopped the reader for
 * 64 ms on average, 1.7 s in a 10 s run under the heavy load, and the
 * ring buffers overflowed behind it.  So head and tail are atomics, the
 * reader wakes a sleeping worker only if its mutex is free (the worker
 * sleeps at most WORKER_NAP_NS anyway), and the symbols context, which
 * both use (the reader opens mapped files, the worker applies the side
 * band and reads the maps to cut chains: sym_lock, the worker's for one
 * record at a time), is only tried: an MMAP2 that finds it taken waits
 * in the reader's held list, with every MMAP2 after it, and is watched
 * and queued when the lock is free, at the end of that drain or a later
 * one; no round is marked while one waits, as if it were still in its
 * ring buffer.  The profile is the run loop's: where the arena is full
 * and cannot be spilled the worker hands the arena to the reading
 * thread, which resolves it into the profile at its next drain while
 * the worker waits (handoff).
 */
#include <errno.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "sampler-int.h"
#include "mmprof/xalloc.h"

enum { ENTRY_RECORD = 1, ENTRY_ROUND, ENTRY_PAD };

struct entry {
	uint32_t kind;
	uint32_t len;	/* bytes after the header (a record's header.size) */
};

/* Room an entry takes: the header and its bytes, 8-byte aligned. */
static size_t entry_room(size_t len)
{
	return sizeof(struct entry) + ((len + 7) & ~(size_t)7);
}

/* The most a record can take with the padding before it (header.size is 16 bits). */
#define RECORD_ROOM_MAX	(2 * (sizeof(struct entry) + 65536))

static __thread bool on_worker;

bool sampler__on_worker(void)
{
	return on_worker;
}

/* How long a worker with nothing to do sleeps before it looks again. */
#define WORKER_NAP_NS	20000000	/* a wake the reader could not give costs this at most */

/* The reader's side: write one entry at q->wpos (room was checked). */
static void put_entry(struct recq *q, uint32_t kind, const void *data, size_t len)
{
	size_t need = entry_room(len), off = (size_t)(q->wpos % q->cap);
	struct entry *en;

	if (off + need > q->cap) {
		en = (struct entry *)(q->buf + off);
		en->kind = ENTRY_PAD;
		en->len = (uint32_t)(q->cap - off - sizeof(*en));
		q->wpos += q->cap - off;
		off = 0;
	}
	en = (struct entry *)(q->buf + off);
	en->kind = kind;
	en->len = (uint32_t)len;
	if (len)
		memcpy(en + 1, data, len);
	q->wpos += need;
}

/* Free bytes for the reader, with the tail as last seen or (refresh) as it is. */
static size_t room(struct recq *q, bool refresh)
{
	if (refresh)
		q->rtail = atomic_load_explicit(&q->tail, memory_order_acquire);
	return q->cap - (size_t)(q->wpos - q->rtail);
}

bool sampler__queue_room(struct sampler *s)
{
	struct recq *q = &s->q;

	return room(q, false) >= RECORD_ROOM_MAX || room(q, true) >= RECORD_ROOM_MAX;
}

void sampler__queue_record(struct sampler *s, const union perf_event *ev)
{
	put_entry(&s->q, ENTRY_RECORD, ev, ev->header.size);
}

/* What was written so far to the worker, and a round's end mark when complete. */
void sampler__queue_publish(struct sampler *s, bool round_end)
{
	struct recq *q = &s->q;

	if (round_end)
		put_entry(q, ENTRY_ROUND, NULL, 0);	/* RECORD_ROOM_MAX left room for it */
	atomic_store_explicit(&q->head, q->wpos, memory_order_release);
	/* a worker about to sleep, or asleep: wake it if that costs no wait */
	if (atomic_load_explicit(&q->sleeping, memory_order_acquire) &&
	    pthread_mutex_trylock(&q->mu) == 0) {
		pthread_cond_signal(&q->more);
		pthread_mutex_unlock(&q->mu);
	}
}

/* Bytes of the entry at pos. */
static size_t entry_at(const struct recq *q, uint64_t pos)
{
	const struct entry *en = (const void *)(q->buf + pos % q->cap);

	return en->kind == ENTRY_PAD ? sizeof(*en) + en->len : entry_room(en->len);
}

/* The entries in [from, to): records into the stream, a round's end ends one. */
static void work(struct sampler *s, uint64_t from, uint64_t to)
{
	struct recq *q = &s->q;

	for (; from < to; from += entry_at(q, from)) {
		const struct entry *en = (const void *)(q->buf + from % q->cap);

		if (en->kind == ENTRY_RECORD)
			q->take(s, (const union perf_event *)(en + 1));
		else if (en->kind == ENTRY_ROUND)
			q->round(s);
	}
}

/* The worker's batches: at most this much before the tail moves on. */
#define BATCH_BYTES	(1u << 20)

/* Nothing queued: sleep until woken, stopped, or WORKER_NAP_NS. */
static void nap(struct recq *q, uint64_t tail)
{
	struct timespec until;

	clock_gettime(CLOCK_REALTIME, &until);
	until.tv_nsec += WORKER_NAP_NS;
	if (until.tv_nsec >= 1000000000) {
		until.tv_sec++;
		until.tv_nsec -= 1000000000;
	}
	pthread_mutex_lock(&q->mu);
	atomic_store_explicit(&q->sleeping, true, memory_order_release);
	if (atomic_load_explicit(&q->head, memory_order_acquire) == tail && !q->stop)
		pthread_cond_timedwait(&q->more, &q->mu, &until);
	atomic_store_explicit(&q->sleeping, false, memory_order_relaxed);
	pthread_mutex_unlock(&q->mu);
}

static void *worker_main(void *arg)
{
	struct sampler *s = arg;
	struct recq *q = &s->q;
	uint64_t tail = 0;

	on_worker = true;
	for (;;) {
		uint64_t head = atomic_load_explicit(&q->head, memory_order_acquire), to;
		bool stop;

		if (head == tail) {
			pthread_mutex_lock(&q->mu);
			stop = q->stop;
			pthread_mutex_unlock(&q->mu);
			/* the stop is set after the last publish: nothing comes after it */
			if (stop && atomic_load_explicit(&q->head, memory_order_acquire) == tail)
				break;
			nap(q, tail);
			continue;
		}
		/* whole entries only: stop at the first that ends past a batch */
		for (to = tail; to < head && to - tail < BATCH_BYTES; to += entry_at(q, to))
			;
		work(s, tail, to);
		tail = to;
		atomic_store_explicit(&q->tail, tail, memory_order_release);
		pthread_mutex_lock(&q->mu);
		pthread_cond_broadcast(&q->done);
		pthread_mutex_unlock(&q->mu);
	}
	pthread_mutex_lock(&q->mu);
	q->exited = true;
	pthread_cond_broadcast(&q->done);
	pthread_mutex_unlock(&q->mu);
	return NULL;
}

void sampler__worker_start(struct sampler *s)
{
	struct recq *q = &s->q;
	sigset_t all, old;

	if (q->running || q->tried)
		return;
	q->tried = true;	/* once a run: sampler__open clears it */
	if (!q->buf) {
		q->cap = s->opts.queue_bytes ? s->opts.queue_bytes : SAMPLER_QUEUE_BYTES;
		if (q->cap < 2 * RECORD_ROOM_MAX)
			q->cap = 2 * RECORD_ROOM_MAX;
		q->cap &= ~(size_t)7;
		q->buf = xmalloc(q->cap);
	}
	atomic_store(&q->head, 0);
	atomic_store(&q->tail, 0);
	atomic_store(&q->handoff, false);
	atomic_store(&q->sleeping, false);
	q->wpos = q->rtail = 0;
	q->held_len = 0;
	q->stop = q->exited = false;
	/* signals are the run loop's: they must cut its poll short, not land here */
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	q->running = pthread_create(&q->thread, NULL, worker_main, s) == 0;
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	/* no thread to be had: the reading thread does it all, as a replay */
}

/* The reader's side of a handoff: resolve the arena while the worker waits. */
void sampler__serve_handoff(struct sampler *s)
{
	struct recq *q = &s->q;

	if (!q->running || !atomic_load_explicit(&q->handoff, memory_order_acquire))
		return;
	q->serve(s);
	pthread_mutex_lock(&q->mu);
	atomic_store_explicit(&q->handoff, false, memory_order_release);
	pthread_cond_broadcast(&q->more);
	pthread_mutex_unlock(&q->mu);
}

/* The worker's side: wait until the reading thread has resolved the arena. */
void sampler__ask_handoff(struct sampler *s)
{
	struct recq *q = &s->q;

	pthread_mutex_lock(&q->mu);
	atomic_store_explicit(&q->handoff, true, memory_order_release);
	pthread_cond_broadcast(&q->done);
	while (atomic_load_explicit(&q->handoff, memory_order_acquire))
		pthread_cond_wait(&q->more, &q->mu);
	pthread_mutex_unlock(&q->mu);
}

/* Wait until the worker moved on (took records, asked for a handoff or exited). */
void sampler__worker_wait(struct sampler *s)
{
	struct recq *q = &s->q;
	uint64_t tail;

	pthread_mutex_lock(&q->mu);
	tail = atomic_load(&q->tail);
	while (atomic_load(&q->tail) == tail && !atomic_load(&q->handoff) && !q->exited &&
	       atomic_load(&q->head) != tail)
		pthread_cond_wait(&q->done, &q->mu);
	pthread_mutex_unlock(&q->mu);
	sampler__serve_handoff(s);
}

void sampler__worker_sync(struct sampler *s)
{
	struct recq *q = &s->q;

	while (q->running && atomic_load(&q->tail) != atomic_load(&q->head))
		sampler__worker_wait(s);
}

void sampler__worker_stop(struct sampler *s)
{
	struct recq *q = &s->q;

	if (!q->running)
		return;
	pthread_mutex_lock(&q->mu);
	q->stop = true;
	pthread_cond_signal(&q->more);
	for (;;) {
		while (!q->exited && !atomic_load(&q->handoff))
			pthread_cond_wait(&q->done, &q->mu);
		if (q->exited)
			break;
		pthread_mutex_unlock(&q->mu);
		sampler__serve_handoff(s);
		pthread_mutex_lock(&q->mu);
	}
	pthread_mutex_unlock(&q->mu);
	pthread_join(q->thread, NULL);
	q->running = q->tried = false;
}

void sampler__queue_init(struct recq *q)
{
	memset(q, 0, sizeof(*q));
	pthread_mutex_init(&q->mu, NULL);
	pthread_cond_init(&q->more, NULL);
	pthread_cond_init(&q->done, NULL);
	pthread_mutex_init(&q->sym_lock, NULL);
}

void sampler__queue_release(struct recq *q)
{
	free(q->buf);
	free(q->held);
	pthread_mutex_destroy(&q->mu);
	pthread_cond_destroy(&q->more);
	pthread_cond_destroy(&q->done);
	pthread_mutex_destroy(&q->sym_lock);
}
