/*
 * sampler-stream: the records of the ring buffers, as they are read; see
 * src/record/sampler-int.h.
 *
 * Samples and side-band records (COMM, MMAP, FORK, EXIT) wait in one
 * reorderq (perfsession.h) and leave it in time order, as perf's ordered
 * events: side-band records are applied to the comms and the symbols
 * context, samples are aggregated with the comm and address space of
 * their own time (stackagg.h), their chains completed (the leaf exactly
 * once) and cut at the first junk frame; --call-graph dwarf samples are
 * unwound then.  LOST and THROTTLE are counted as read.
 *
 * Two sides: read_event is the reading thread's (what cannot wait, and a
 * copy into the worker's queue, sampler-queue.c), stream_event and
 * stream_round the worker's; a replay, or a recording with
 * no thread to be had, runs both on the calling thread in the same order.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sampler-int.h"
#include "mmprof/sample.h"
#include "mmprof/xalloc.h"

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

/*
 * Code built without frame pointers (most distro binaries) makes the
 * kernel's frame-pointer walk return junk after the leaf: whatever the
 * register and stack held.  Each junk chain is a new aggregate entry, so
 * memory grew with samples under such loads.  Cut the user part at its
 * first return address outside the pid's executable maps (the leaf IP is
 * kept always); perf keeps those frames and shows them as [unknown].
 * The maps are those of the sample's time (records are applied in time
 * order); when the pid's are unknown, nothing is cut.  Returns the new
 * length.
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
	if (i >= nr || chain[i] >= PERF_CONTEXT_MAX)
		return nr;
	s->chains_cut++;
	return i;
}

/*
 * Does the chain hold a value at or above PERF_CONTEXT_MAX that is no
 * context marker?  A frame-pointer walk through code built without frame
 * pointers can read 0xffffffffffffffff as a return address; perf then
 * drops the whole chain and keeps the sample at its IP (machine.c,
 * add_callchain_ip: "invalid callchain context"), and so do we: read as
 * a marker it made the frames after it kernel frames.
 */
static bool chain_rejected(const uint64_t *chain, uint64_t nr)
{
	uint64_t i;

	for (i = 0; i < nr; i++)
		if (chain[i] >= PERF_CONTEXT_MAX && chain[i] != PERF_CONTEXT_KERNEL &&
		    chain[i] != PERF_CONTEXT_USER && chain[i] != PERF_CONTEXT_HV &&
		    chain[i] != PERF_CONTEXT_GUEST && chain[i] != PERF_CONTEXT_GUEST_KERNEL &&
		    chain[i] != PERF_CONTEXT_GUEST_USER)
			return true;
	return false;
}

/* A sample in time order (parsed when queued: cannot fail). */
static void add_sample(struct sampler *s, const union perf_event *ev)
{
	const uint64_t *chain;
	struct sample smp;
	uint64_t nr, i;
	int event = 0;

	if (sample__parse(ev, s->sample_type, 0, &smp))
		return;
	if (s->nr_evs > 1)
		event = event_of(s, smp.id);
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
	if (chain_rejected(chain, nr)) {
		/* [context, ip, ~0]: resolve puts profile.h's marker frame for the ~0 */
		s->chains_rejected++;
		XGROW(s->scratch, s->alloc_scratch, 3);
		s->scratch[0] = context_of(smp.misc);
		s->scratch[1] = smp.ip;
		s->scratch[2] = PROFILE_REJECTED_ADDR;
		chain = s->scratch;
		nr = 3;
	}
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
	nr = cut_user_chain(s, smp.pid, chain, nr);
	stackagg__add(&s->agg, (uint32_t)event, sampler__space_key(s, smp.pid),
		      sampler__comm_of(s, smp.pid, smp.tid), chain, (uint32_t)nr, smp.period);
}

static void queue_sideband(struct sampler *s, const union perf_event *ev);

/* A sample as the stream takes it: into the time-order queue. */
static void queue_sample(struct sampler *s, const union perf_event *ev)
{
	struct sample smp;
	int event = 0;
	int err = s->unwinder ? sample__parse_regs(ev, s->sample_type, 0, UNWIND__REGS_MASK, &smp)
			      : sample__parse(ev, s->sample_type, 0, &smp);

	if (err || (s->nr_evs > 1 && (event = event_of(s, smp.id)) < 0)) {
		s->bad++;
		return;
	}
	if (smp.time > s->seen_max)
		s->seen_max = smp.time;
	if (smp.time) {
		s->sb_last_time = smp.time;
		/* the buffers are read one CPU after another: the window is min to max */
		if (!s->first_sample || smp.time < s->first_sample)
			s->first_sample = smp.time;
		if (smp.time > s->last_sample)
			s->last_sample = smp.time;
	}
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
	stackagg__add(&s->agg, (uint32_t)event, sampler__space_key(s, smp.pid),
		      sampler__comm_of(s, smp.pid, smp.tid), chain, (uint32_t)nr, smp.period);
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
		/* an exec: samples taken before it keep the maps they were taken in */
		if (ev->header.misc & PERF_RECORD_MISC_COMM_EXEC)
			sampler__space_end(s, ev->comm.pid);
		symbols__comm(s->syms, (pid_t)ev->comm.pid, (pid_t)ev->comm.tid, ev->comm.comm,
			      ev->header.misc & PERF_RECORD_MISC_COMM_EXEC);
		sampler__set_comm(s, (int32_t)ev->comm.tid, sampler__comm_intern(s, ev->comm.comm));
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
	case PERF_RECORD_FORK: {
		/* a new task starts with its parent's name */
		struct tid_comm *parent = sampler__tid_comm(s, (int32_t)ev->fork.ptid, false);

		if (ev->fork.pid != ev->fork.ppid) {
			/* a reused pid: the samples of the one before keep its maps */
			sampler__space_end(s, ev->fork.pid);
			symbols__fork(s->syms, (pid_t)ev->fork.pid, (pid_t)ev->fork.ppid);
		}
		if (parent && parent->comm)
			sampler__set_comm(s, (int32_t)ev->fork.tid, parent->comm);
		break;
	}
	case PERF_RECORD_EXIT:
		symbols__exit(s->syms, (pid_t)ev->fork.pid, (pid_t)ev->fork.tid);
		break;
	case PERF_RECORD_KSYMBOL:
		symbols__ksymbol(s->syms, ev->ksymbol.addr, ev->ksymbol.len,
				 ev->ksymbol.flags & PERF_RECORD_KSYMBOL_FLAGS_UNREGISTER,
				 ev->ksymbol.name);
		break;
	case PERF_RECORD_SAMPLE:
		s->deferred_out++;
		if (!sampler__on_worker())
			s->reader_aggregated++;
		if (s->unwinder)
			add_unwound(s, ev);
		else
			add_sample(s, ev);
		break;
	default:
		break;
	}
}

/*
 * One record out of the time-order queue: under sym_lock, which the
 * reading thread takes to open a mapped file; a full arena is spilled
 * outside it (the spill may wait for the reading thread: sampler-queue.c).
 */
static void apply_record(void *ctx, const union perf_event *ev)
{
	struct sampler *s = ctx;

	pthread_mutex_lock(&s->q.sym_lock);
	apply_sideband(s, ev);
	pthread_mutex_unlock(&s->q.sym_lock);
	if (stackagg__full(&s->agg))
		sampler__spill(s);
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
	reorderq__flush(&s->sb, limit, apply_record, s);
}

/* The end of a round that read every buffer up to its head (see struct sampler). */
static void end_round(struct sampler *s)
{
	if (s->sb_safe)
		flush_sideband(s, s->sb_safe);
	s->sb_safe = s->seen_max;
}

/*
 * The stream's two steps, on the worker or (a replay, no thread to be
 * had) on the reading thread: one record kept by the reader, and the end
 * of a round that read every buffer to its head.
 */
static void stream_round(struct sampler *s)
{
	end_round(s);
}

static void stream_event(struct sampler *s, const union perf_event *ev)
{
	if (ev->header.type == PERF_RECORD_SAMPLE)
		queue_sample(s, ev);
	else
		queue_sideband(s, ev);
}

/* A record the stream takes: to the worker, or (none running) to the stream now. */
static void keep(struct sampler *s, const union perf_event *ev)
{
	if (s->q.running)
		sampler__queue_record(s, ev);
	else
		stream_event(s, ev);
}

/* The worker, with the stream's steps and the handoff's resolution for it to call. */
static void start_worker(struct sampler *s)
{
	s->q.take = stream_event;
	s->q.round = stream_round;
	s->q.serve = sampler__resolve_bound;
	sampler__worker_start(s);
}

/* Now, while the process lives: the mapped file, deleted or replaced later (sym_lock held). */
static void watch(struct sampler *s, const union perf_event *ev)
{
	struct file_id fid;

	mmap2_file_id(ev, &fid);
	symbols__watch2(s->syms, (pid_t)ev->mmap2.pid, ev->mmap2.start, ev->mmap2.len,
			ev->mmap2.filename, &fid);
}

/*
 * Watch and queue the held MMAP2 records, in order, while the symbols are
 * free (wait: however long the worker holds them) and the queue has
 * room; those left wait for a later drain.
 */
static void release_held(struct sampler *s, bool wait)
{
	struct recq *q = &s->q;
	size_t off = 0;

	while (off < q->held_len && sampler__queue_room(s)) {
		const union perf_event *ev = (const void *)(q->held + off);

		if (wait)
			pthread_mutex_lock(&q->sym_lock);
		else if (pthread_mutex_trylock(&q->sym_lock))
			break;
		watch(s, ev);
		pthread_mutex_unlock(&q->sym_lock);
		sampler__queue_record(s, ev);
		off += (ev->header.size + 7) & ~(size_t)7;
	}
	memmove(q->held, q->held + off, q->held_len - off);
	q->held_len -= off;
}

/* The held list's bytes, past which the reader waits for the symbols after all. */
#define HELD_MAX	(256u << 10)

/* An MMAP2 record for later: the symbols were taken, or one before it waits. */
static void hold(struct sampler *s, const union perf_event *ev)
{
	struct recq *q = &s->q;
	size_t size = ev->header.size;

	/* a bound, never reached but by a flood of maps behind a full queue */
	while (q->held_len + size > HELD_MAX) {
		release_held(s, true);
		if (q->held_len + size > HELD_MAX)
			sampler__worker_wait(s);
	}
	XGROW(q->held, q->alloc_held, q->held_len + size + 7);
	memcpy(q->held + q->held_len, ev, size);
	q->held_len += (size + 7) & ~(size_t)7;
}

/* The raw hook of a tracepoint sample: as read, with the sample decoded here. */
static void raw_hook(struct sampler *s, const union perf_event *ev)
{
	struct sample smp;
	int event = 0;

	if (sample__parse(ev, s->sample_type, 0, &smp) ||
	    (s->nr_evs > 1 && (event = event_of(s, smp.id)) < 0))
		return;		/* the stream counts it as bad */
	if (smp.raw && s->evs[event].spec.tracepoint)
		s->opts.raw_hook(s->opts.raw_ctx, (uint32_t)event, &smp);
}

/*
 * The reading thread's part of a record: what must be done now, while the
 * process lives (its mapped file, an exec's check) or as read (the raw
 * hook, LOST and THROTTLE), then the record is kept for the stream.
 */
static void read_event(void *ctx, const union perf_event *ev)
{
	struct sampler *s = ctx;

	switch (ev->header.type) {
	case PERF_RECORD_SAMPLE:
		s->read_samples++;
		if (s->raw_on_read)
			raw_hook(s, ev);
		keep(s, ev);
		break;
	case PERF_RECORD_COMM:
		if (record_str(ev, offsetof(struct perf_record_comm, comm)) < 0)
			break;
		keep(s, ev);
		/* now, while the process is likely alive: did this exec end its sampling? */
		if (ev->header.misc & PERF_RECORD_MISC_COMM_EXEC)
			sampler__check_exec(s, (pid_t)ev->comm.pid);
		break;
	case PERF_RECORD_MMAP2:
		if (ev->mmap2.pid == UINT32_MAX ||
		    record_str(ev, offsetof(struct perf_record_mmap2, filename)) < 0)
			break;
		/* the worker has the symbols: wait in the held list, not for it */
		if (s->q.running && (s->q.held_len || pthread_mutex_trylock(&s->q.sym_lock))) {
			hold(s, ev);
			break;
		}
		if (!s->q.running)
			pthread_mutex_lock(&s->q.sym_lock);
		watch(s, ev);
		pthread_mutex_unlock(&s->q.sym_lock);
		keep(s, ev);
		break;
	case PERF_RECORD_MMAP:
		if (ev->mmap.pid == UINT32_MAX ||
		    record_str(ev, offsetof(struct perf_record_mmap, filename)) < 0)
			break;
		keep(s, ev);
		break;
	case PERF_RECORD_FORK:
	case PERF_RECORD_EXIT:
		if (ev->header.size >= sizeof(struct perf_record_fork))
			keep(s, ev);
		break;
	case PERF_RECORD_KSYMBOL:
		/* in time order with the rest: text registered over a gone program's */
		if (record_str(ev, offsetof(struct perf_record_ksymbol, name)) >= 0)
			keep(s, ev);
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

static bool queue_room(void *ctx)
{
	return sampler__queue_room(ctx);
}

/*
 * One round: with the worker, copy what the queue has room for and mark
 * the round's end when every buffer was read to its head (a round cut
 * short is not one: sampler-queue.c); without, the stream takes each
 * record and the round's end itself.
 */
int sampler__drain(struct sampler *s)
{
	uint64_t before = s->read_samples;

	if (!perfsession__is_open(&s->ps))
		return 0;
	if (!s->q.running)
		start_worker(s);
	if (s->q.running) {
		sampler__serve_handoff(s);
		s->read_whole = perfsession__read_while(&s->ps, read_event, queue_room, s);
		if (!s->read_whole)
			s->queue_full++;
		if (s->q.held_len)
			release_held(s, false);
		/* a held record is as if still in its buffer: no round's end */
		s->read_whole = s->read_whole && !s->q.held_len;
		sampler__queue_publish(s, s->read_whole);
	} else {
		perfsession__read(&s->ps, read_event, s);
		s->read_whole = true;
		end_round(s);
	}
	return (int)(s->read_samples - before);
}

int sampler__replay(struct sampler *s, const void *buf, size_t len)
{
	const char *p = buf, *end = p + len;
	uint64_t before;
	int err = 0;

	if (s->opts.replay_worker)
		start_worker(s);
	/* samples taken by the stream (the worker is idle: the last replay waited) */
	before = s->agg.samples + s->deferred_in - s->deferred_out;
	while (p < end) {
		const struct perf_event_header *h = (const void *)p;

		if ((size_t)(end - p) < sizeof(*h) || h->size < sizeof(*h) ||
		    h->size > (size_t)(end - p)) {
			err = -EINVAL;
			break;
		}
		while (s->q.running && !sampler__queue_room(s)) {
			sampler__queue_publish(s, false);
			sampler__worker_wait(s);
		}
		read_event(s, (const union perf_event *)p);
		p += h->size;
	}
	if (s->q.running) {
		while (s->q.held_len) {
			release_held(s, true);
			sampler__queue_publish(s, false);
			sampler__worker_wait(s);
		}
		/* one call is one round, as if its records were one drain's */
		sampler__queue_publish(s, !err);
		sampler__worker_sync(s);
	} else if (!err) {
		end_round(s);
	}
	return err ? err : (int)(s->agg.samples + s->deferred_in - s->deferred_out - before);
}

void sampler__close(struct sampler *s)
{
	if (!perfsession__is_open(&s->ps))
		return;
	perfsession__disable(&s->ps);
	s->kernel_lost = sampler__kernel_lost(s);
	/* every record to its end, the worker making room as it goes */
	while (sampler__drain(s), !s->read_whole)
		sampler__worker_wait(s);
	/* a loss pending at the end has no LOST record: the kernel's count has it */
	if (s->kernel_lost > s->lost)
		s->lost = s->kernel_lost;
	sampler__worker_stop(s);
	sampler__teardown(s);
}

/*
 * The stream's end of a run: the last side-band records applied (they may
 * add unwound samples), then the aggregate to the resolver.
 */
int sampler__end_run(struct sampler *s, struct profile *p, uint32_t run, struct run *r)
{
	size_t i;

	sampler__worker_stop(s);	/* a replay's (a run's stopped at its close) */
	/* a run whose open lowered -F: the file says the lowest frequency used */
	for (i = 0; i < s->nr_evs && s->first_event + i < p->nr_events; i++) {
		struct event_desc *d = &p->events[s->first_event + i];

		if (d->freq && s->opts.freq && (uint64_t)s->opts.freq < d->sample)
			d->sample = (uint64_t)s->opts.freq;
	}
	flush_sideband(s, UINT64_MAX);
	/* a JVM quitting as the recording stops writes its map now: 1 s for it */
	symbols__await_perfmaps(s->syms, SAMPLER_PERFMAP_WAIT_MS);
	s->sb_safe = s->seen_max = s->sb_last_time = 0;
	s->window_ns += s->last_sample - s->first_sample;
	s->first_sample = s->last_sample = 0;
	return sampler__resolve_run(s, p, run, r);
}
