/*
 * sampler-stream: the records of the ring buffers, as they are read; see
 * src/record/sampler-int.h.
 *
 * Samples are parsed, their chains completed (the leaf exactly once) and
 * cut at the first junk frame, and counted in the aggregate (stackagg.h);
 * --call-graph dwarf samples wait in the side-band queue to be unwound
 * with the maps of their own time.  Side-band records (COMM, MMAP, FORK,
 * EXIT) are applied to the symbols context in time order through a
 * reorderq (perfsession.h); LOST and THROTTLE are counted.
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
	stackagg__add(&s->agg, (uint32_t)event, smp.pid, sampler__comm_of(s, smp.pid, smp.tid, smp.time),
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
	stackagg__add(&s->agg, (uint32_t)event, smp.pid, sampler__comm_of(s, smp.pid, smp.tid, smp.time),
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
	case PERF_RECORD_KSYMBOL:
		symbols__ksymbol(s->syms, ev->ksymbol.addr, ev->ksymbol.len,
				 ev->ksymbol.flags & PERF_RECORD_KSYMBOL_FLAGS_UNREGISTER,
				 ev->ksymbol.name);
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
void sampler__flush_sideband(struct sampler *s, uint64_t limit)
{
	reorderq__flush(&s->sb, limit, apply_sideband, s);
}

/* The end of a round that read every buffer up to its head (see struct sampler). */
static void end_round(struct sampler *s)
{
	if (s->sb_safe)
		sampler__flush_sideband(s, s->sb_safe);
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
		sampler__set_comm(s, (int32_t)ev->comm.tid, sampler__comm_intern(s, ev->comm.comm), id.time);
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
			struct tid_comm *parent = sampler__tid_comm(s, (int32_t)ev->fork.ptid, false);

			if (parent && parent->comm)
				sampler__set_comm(s, (int32_t)ev->fork.tid, parent->comm, 0);
		}
		break;
	case PERF_RECORD_EXIT:
		if (ev->header.size >= sizeof(struct perf_record_fork))
			queue_sideband(s, ev);
		break;
	case PERF_RECORD_KSYMBOL:
		/* in time order with the rest: text registered over a gone program's */
		if (record_str(ev, offsetof(struct perf_record_ksymbol, name)) >= 0)
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

void sampler__close(struct sampler *s)
{
	if (!perfsession__is_open(&s->ps))
		return;
	perfsession__disable(&s->ps);
	sampler__drain(s);
	sampler__teardown(s);
}
