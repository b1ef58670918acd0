/* sample: bounds-checked PERF_RECORD_SAMPLE decoding; see include/mmprof/sample.h. */
#include <errno.h>
#include <stdbool.h>
#include <string.h>

#include "mmprof/sample.h"

#ifndef PERF_FORMAT_LOST
#define PERF_FORMAT_LOST (1U << 4)
#endif

/* {u32 a, b} fields in a u64 slot, in memory order (pid then tid, cpu then res). */
static inline void split_u32(const uint64_t *p, uint32_t *a, uint32_t *b)
{
	uint32_t v[2];

	memcpy(v, p, sizeof(v));
	*a = v[0];
	if (b)
		*b = v[1];
}

/* Words of one read_format block after (and including) its first word. */
static int read_words(const uint64_t *p, const uint64_t *end, uint64_t rf, uint32_t *words)
{
	uint64_t hdr = 1 + !!(rf & PERF_FORMAT_TOTAL_TIME_ENABLED) +
		       !!(rf & PERF_FORMAT_TOTAL_TIME_RUNNING);
	uint64_t per = 1 + !!(rf & PERF_FORMAT_ID) + !!(rf & PERF_FORMAT_LOST);
	uint64_t n;

	if (!(rf & PERF_FORMAT_GROUP)) {
		n = hdr + per - 1;
	} else {
		if (p >= end)
			return -EINVAL;
		/* nr first; bound it before multiplying */
		if (p[0] > (uint64_t)(end - p))
			return -EINVAL;
		n = hdr + p[0] * per;
	}
	if (n > (uint64_t)(end - p))
		return -EINVAL;
	*words = (uint32_t)n;
	return 0;
}

int sample__parse(const void *ev, uint64_t type, uint64_t rf, struct sample *s)
{
	if (type & PERF_SAMPLE_REGS_USER) {
		memset(s, 0, sizeof(*s));
		return -EOPNOTSUPP;
	}
	return sample__parse_regs(ev, type, rf, 0, s);
}

int sample__parse_regs(const void *ev, uint64_t type, uint64_t rf, uint64_t regs_mask,
		       struct sample *s)
{
	const struct perf_event_header *h = ev;
	const uint64_t *p, *end;

	memset(s, 0, sizeof(*s));
	if (h->type != PERF_RECORD_SAMPLE || h->size < sizeof(*h) || h->size % 8)
		return -EINVAL;
	if (type & ~(uint64_t)SAMPLE__SUPPORTED)
		return -EOPNOTSUPP;
	s->misc = h->misc;
	p = (const uint64_t *)(h + 1);
	end = (const uint64_t *)((const char *)ev + h->size);

#define NEED(n) do { if ((uint64_t)(end - p) < (uint64_t)(n)) return -EINVAL; } while (0)
	if (type & PERF_SAMPLE_IDENTIFIER) {
		NEED(1);
		s->id = *p++;
	}
	if (type & PERF_SAMPLE_IP) {
		NEED(1);
		s->ip = *p++;
	}
	if (type & PERF_SAMPLE_TID) {
		NEED(1);
		split_u32(p++, &s->pid, &s->tid);
	}
	if (type & PERF_SAMPLE_TIME) {
		NEED(1);
		s->time = *p++;
	}
	if (type & PERF_SAMPLE_ADDR) {
		NEED(1);
		s->addr = *p++;
	}
	if (type & PERF_SAMPLE_ID) {
		NEED(1);
		s->id = *p++;
	}
	if (type & PERF_SAMPLE_STREAM_ID) {
		NEED(1);
		s->stream_id = *p++;
	}
	if (type & PERF_SAMPLE_CPU) {
		NEED(1);
		split_u32(p++, &s->cpu, NULL);
	}
	if (type & PERF_SAMPLE_PERIOD) {
		NEED(1);
		s->period = *p++;
	}
	if (type & PERF_SAMPLE_READ) {
		if (read_words(p, end, rf, &s->read_words))
			return -EINVAL;
		s->read = p;
		p += s->read_words;
	}
	if (type & PERF_SAMPLE_CALLCHAIN) {
		NEED(1);
		s->nr_callchain = *p++;
		NEED(s->nr_callchain);
		s->callchain = p;
		p += s->nr_callchain;
	}
	if (type & PERF_SAMPLE_RAW) {
		uint32_t size;

		/* u32 size, then size bytes; the pair is padded to 8 bytes. */
		NEED(1);
		memcpy(&size, p, sizeof(size));
		if ((uint64_t)size + 4 > (uint64_t)(end - p) * 8)
			return -EINVAL;
		s->raw_size = size;
		s->raw = (const char *)p + 4;
		p = (const uint64_t *)((const char *)p + ((4 + (uint64_t)size + 7) & ~7ULL));
	}
	if (type & PERF_SAMPLE_BRANCH_STACK) {
		/* u64 nr, then nr {from, to, flags} (no hw_idx: see sample.h) */
		NEED(1);
		s->nr_branches = *p++;
		if (s->nr_branches > (uint64_t)(end - p) / 3)
			return -EINVAL;
		s->branches = (const struct perf_branch_entry *)p;
		p += s->nr_branches * 3;
	}
	if (type & PERF_SAMPLE_REGS_USER) {
		NEED(1);
		s->regs_user_abi = *p++;
		if (s->regs_user_abi != PERF_SAMPLE_REGS_ABI_NONE) {
			s->nr_regs_user = (uint32_t)__builtin_popcountll(regs_mask);
			NEED(s->nr_regs_user);
			s->regs_user = p;
			p += s->nr_regs_user;
		}
	}
	if (type & PERF_SAMPLE_STACK_USER) {
		/* u64 size, then (only when size > 0) size bytes and u64 dyn_size */
		NEED(1);
		s->stack_size = *p++;
		if (s->stack_size) {
			if (s->stack_size % 8)
				return -EINVAL;
			NEED(s->stack_size / 8 + 1);
			s->stack_user = p;
			p += s->stack_size / 8;
			s->stack_dyn_size = *p++;
			if (s->stack_dyn_size > s->stack_size)
				return -EINVAL;
		}
	}
#undef NEED
	return 0;
}

int sample__identifier(const void *ev, uint64_t *id)
{
	const struct perf_event_header *h = ev;

	if (h->type != PERF_RECORD_SAMPLE || h->size < sizeof(*h) + 8)
		return -EINVAL;
	memcpy(id, h + 1, sizeof(*id));
	return 0;
}

int sample__parse_id_all(const void *ev, uint64_t type, struct sample *s)
{
	const struct perf_event_header *h = ev;
	const uint64_t bits[] = { PERF_SAMPLE_TID, PERF_SAMPLE_TIME, PERF_SAMPLE_ID,
				  PERF_SAMPLE_STREAM_ID, PERF_SAMPLE_CPU,
				  PERF_SAMPLE_IDENTIFIER };
	const uint64_t *p;
	size_t i, n = 0;

	memset(s, 0, sizeof(*s));
	for (i = 0; i < sizeof(bits) / sizeof(bits[0]); i++)
		n += !!(type & bits[i]);
	if (h->size < sizeof(*h) + n * 8 || h->size % 8)
		return -EINVAL;
	s->misc = h->misc;
	p = (const uint64_t *)((const char *)ev + h->size) - n;
	if (type & PERF_SAMPLE_TID) {
		split_u32(p++, &s->pid, &s->tid);
	}
	if (type & PERF_SAMPLE_TIME)
		s->time = *p++;
	if (type & PERF_SAMPLE_ID)
		s->id = *p++;
	if (type & PERF_SAMPLE_STREAM_ID)
		s->stream_id = *p++;
	if (type & PERF_SAMPLE_CPU)
		split_u32(p++, &s->cpu, NULL);
	if (type & PERF_SAMPLE_IDENTIFIER)
		s->id = *p++;
	return 0;
}

/* Whether the sample's IP is user code (header.misc's cpumode). */
static bool ip_is_user(const struct sample *s)
{
	/* (guests are excluded from sampling: exclude_guest) */
	return (s->misc & PERF_RECORD_MISC_CPUMODE_MASK) == PERF_RECORD_MISC_USER;
}

uint64_t sample__lbr_chain(const struct sample *s, uint64_t *out)
{
	const uint64_t *chain = s->callchain;
	uint64_t nr = s->nr_callchain, u, n, k, leaf = 0;

	for (u = 0; u < nr && chain[u] != PERF_CONTEXT_USER; u++)
		;
	/* LBR only speaks of the user stack: no user part, nothing to add */
	if (u == nr && !ip_is_user(s)) {
		if (nr)
			memcpy(out, chain, nr * sizeof(*chain));
		return nr;
	}
	if (u)
		memcpy(out, chain, u * sizeof(*chain));
	n = u;
	if (u + 1 < nr && chain[u + 1] && chain[u + 1] < PERF_CONTEXT_MAX)
		leaf = chain[u + 1];	/* the user IP the kernel saved */
	else if (ip_is_user(s))
		leaf = s->ip;
	else if (s->nr_branches)
		leaf = s->branches[0].to;
	if (leaf && leaf < PERF_CONTEXT_MAX) {
		out[n++] = PERF_CONTEXT_USER;
		out[n++] = leaf;
	} else if (!s->nr_branches) {
		return n;	/* no user frame at all */
	} else {
		out[n++] = PERF_CONTEXT_USER;
	}
	for (k = 0; k < s->nr_branches; k++) {
		uint64_t from = s->branches[k].from;

		if (from && from < PERF_CONTEXT_MAX)
			out[n++] = from;
	}
	/* a lone marker (every entry skipped) is no frame */
	if (n && out[n - 1] == PERF_CONTEXT_USER)
		n--;
	return n;
}
