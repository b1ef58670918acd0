/*
 * Sample decoding: a synthetic record for every PERF_SAMPLE_* bit we read,
 * parsed back field by field (as perf's sample-parsing test does); every
 * truncation of a valid record is refused.  If SAMPLE__SUPPORTED gains a bit
 * this test does not build, it fails until the bit is covered here.
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "mmprof/sample.h"
#include "tap.h"

#ifndef PERF_FORMAT_LOST
#define PERF_FORMAT_LOST (1U << 4)
#endif

static const uint64_t tested_bits[] = {
	PERF_SAMPLE_IDENTIFIER, PERF_SAMPLE_IP, PERF_SAMPLE_TID, PERF_SAMPLE_TIME,
	PERF_SAMPLE_ADDR, PERF_SAMPLE_ID, PERF_SAMPLE_STREAM_ID, PERF_SAMPLE_CPU,
	PERF_SAMPLE_PERIOD, PERF_SAMPLE_READ, PERF_SAMPLE_CALLCHAIN, PERF_SAMPLE_RAW,
	PERF_SAMPLE_BRANCH_STACK, PERF_SAMPLE_REGS_USER, PERF_SAMPLE_STACK_USER,
};
#define NR_BITS (sizeof(tested_bits) / sizeof(tested_bits[0]))

static const uint64_t chain[] = { PERF_CONTEXT_KERNEL, 0xffffffff81000010ULL,
				  0xffffffff81000020ULL, PERF_CONTEXT_USER, 0x401000 };
static const char raw_data[] = "raw tracepoint payload";	/* 23 bytes with NUL */
/* BRANCH_STACK: {from, to, flags} as the kernel copies struct perf_branch_entry */
static const uint64_t branch_words[] = { 0x401100, 0x401200, 0, 0x401300, 0x401400, 0 };
#define NR_BRANCHES 2
/* x86_64's mask for DWARF unwinding: 20 registers (no DS ES FS GS) */
#define REGS_MASK 0xff0fffULL
#define NR_REGS 20
#define STACK_WORDS 6		/* stack copy sent: 48 bytes */
#define STACK_DYN 40		/* of which valid */

/* Lay out a sample of this type the way the kernel does (perf_output_sample). */
static size_t build(uint64_t *buf, uint64_t type, uint64_t rf)
{
	struct perf_event_header *h = (void *)buf;
	uint64_t *p = buf + 1;
	uint32_t pt[2];

	if (type & PERF_SAMPLE_IDENTIFIER)
		*p++ = 0x1d;
	if (type & PERF_SAMPLE_IP)
		*p++ = 0xffffffff81234567ULL;
	if (type & PERF_SAMPLE_TID) {
		pt[0] = 1234, pt[1] = 1240;
		memcpy(p++, pt, 8);
	}
	if (type & PERF_SAMPLE_TIME)
		*p++ = 987654321;
	if (type & PERF_SAMPLE_ADDR)
		*p++ = 0x7fff0000;
	if (type & PERF_SAMPLE_ID)
		*p++ = 0x1d;
	if (type & PERF_SAMPLE_STREAM_ID)
		*p++ = 77;
	if (type & PERF_SAMPLE_CPU) {
		pt[0] = 3, pt[1] = 0;
		memcpy(p++, pt, 8);
	}
	if (type & PERF_SAMPLE_PERIOD)
		*p++ = 250000;
	if (type & PERF_SAMPLE_READ) {
		if (rf & PERF_FORMAT_GROUP) {
			uint64_t i;

			*p++ = 2;	/* nr */
			if (rf & PERF_FORMAT_TOTAL_TIME_ENABLED)
				*p++ = 100;
			if (rf & PERF_FORMAT_TOTAL_TIME_RUNNING)
				*p++ = 90;
			for (i = 0; i < 2; i++) {
				*p++ = 1000 + i;
				if (rf & PERF_FORMAT_ID)
					*p++ = 50 + i;
				if (rf & PERF_FORMAT_LOST)
					*p++ = 0;
			}
		} else {
			*p++ = 1000;
			if (rf & PERF_FORMAT_TOTAL_TIME_ENABLED)
				*p++ = 100;
			if (rf & PERF_FORMAT_TOTAL_TIME_RUNNING)
				*p++ = 90;
			if (rf & PERF_FORMAT_ID)
				*p++ = 50;
			if (rf & PERF_FORMAT_LOST)
				*p++ = 0;
		}
	}
	if (type & PERF_SAMPLE_CALLCHAIN) {
		*p++ = sizeof(chain) / sizeof(chain[0]);
		memcpy(p, chain, sizeof(chain));
		p += sizeof(chain) / sizeof(chain[0]);
	}
	if (type & PERF_SAMPLE_RAW) {
		/* u32 size + data, padded to 8: size counts the padding, as the kernel does */
		uint32_t size = (uint32_t)(((4 + sizeof(raw_data) + 7) & ~7UL) - 4);
		char *c = (char *)p;

		memset(c, 0, 4 + size);
		memcpy(c, &size, 4);
		memcpy(c + 4, raw_data, sizeof(raw_data));
		p = (uint64_t *)(c + 4 + size);
	}
	if (type & PERF_SAMPLE_BRANCH_STACK) {
		*p++ = NR_BRANCHES;
		memcpy(p, branch_words, sizeof(branch_words));
		p += NR_BRANCHES * 3;
	}
	if (type & PERF_SAMPLE_REGS_USER) {
		uint64_t i;

		*p++ = PERF_SAMPLE_REGS_ABI_64;
		for (i = 0; i < NR_REGS; i++)
			*p++ = 0x100 + i;
	}
	if (type & PERF_SAMPLE_STACK_USER) {
		uint64_t i;

		*p++ = STACK_WORDS * 8;
		for (i = 0; i < STACK_WORDS; i++)
			*p++ = 0x7ffd0000 + i;
		*p++ = STACK_DYN;
	}
	h->type = PERF_RECORD_SAMPLE;
	h->misc = PERF_RECORD_MISC_KERNEL;
	h->size = (uint16_t)((char *)p - (char *)buf);
	return h->size;
}

static int check(const struct sample *s, uint64_t type, uint64_t rf)
{
	int bad = 0;

	if (type & (PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_ID))
		bad += s->id != 0x1d;
	if (type & PERF_SAMPLE_IP)
		bad += s->ip != 0xffffffff81234567ULL;
	if (type & PERF_SAMPLE_TID)
		bad += s->pid != 1234 || s->tid != 1240;
	if (type & PERF_SAMPLE_TIME)
		bad += s->time != 987654321;
	if (type & PERF_SAMPLE_ADDR)
		bad += s->addr != 0x7fff0000;
	if (type & PERF_SAMPLE_STREAM_ID)
		bad += s->stream_id != 77;
	if (type & PERF_SAMPLE_CPU)
		bad += s->cpu != 3;
	if (type & PERF_SAMPLE_PERIOD)
		bad += s->period != 250000;
	if (type & PERF_SAMPLE_READ)
		bad += !s->read || s->read[0] != ((rf & PERF_FORMAT_GROUP) ? 2 : 1000);
	if (type & PERF_SAMPLE_CALLCHAIN)
		bad += s->nr_callchain != 5 || memcmp(s->callchain, chain, sizeof(chain));
	else
		bad += s->callchain != NULL;
	if (type & PERF_SAMPLE_RAW)
		bad += s->raw_size < sizeof(raw_data) || memcmp(s->raw, raw_data, sizeof(raw_data));
	if (type & PERF_SAMPLE_BRANCH_STACK)
		bad += s->nr_branches != NR_BRANCHES || !s->branches ||
		       s->branches[0].from != 0x401100 || s->branches[0].to != 0x401200 ||
		       s->branches[1].from != 0x401300 || s->branches[1].to != 0x401400;
	else
		bad += s->branches != NULL || s->nr_branches != 0;
	if (type & PERF_SAMPLE_REGS_USER)
		bad += s->regs_user_abi != PERF_SAMPLE_REGS_ABI_64 || s->nr_regs_user != NR_REGS ||
		       !s->regs_user || s->regs_user[0] != 0x100 || s->regs_user[NR_REGS - 1] != 0x100 + NR_REGS - 1;
	else
		bad += s->regs_user != NULL || s->nr_regs_user != 0;
	if (type & PERF_SAMPLE_STACK_USER) {
		uint64_t w[STACK_WORDS];

		bad += s->stack_size != STACK_WORDS * 8 || s->stack_dyn_size != STACK_DYN ||
		       !s->stack_user;
		if (s->stack_user) {
			memcpy(w, s->stack_user, sizeof(w));
			bad += w[0] != 0x7ffd0000 || w[STACK_WORDS - 1] != 0x7ffd0000 + STACK_WORDS - 1;
		}
	} else {
		bad += s->stack_user != NULL || s->stack_size != 0;
	}
	bad += s->misc != PERF_RECORD_MISC_KERNEL;
	return bad;
}

/* Every prefix of a valid record (header.size shrunk) must be refused. */
static int truncations_refused(uint64_t *buf, size_t size, uint64_t type, uint64_t rf)
{
	struct perf_event_header *h = (void *)buf;
	struct sample s;
	size_t cut;
	int wrong = 0;

	for (cut = 8; cut < size; cut += 8) {
		/* copy the prefix to its own allocation so ASan sees any overread */
		uint64_t *copy = malloc(cut);

		memcpy(copy, buf, cut);
		((struct perf_event_header *)copy)->size = (uint16_t)cut;
		wrong += sample__parse_regs(copy, type, rf, REGS_MASK, &s) != -EINVAL;
		free(copy);
	}
	h->size = (uint16_t)size;
	return wrong;
}

int main(void)
{
	uint64_t all = 0, buf[160], *heap;
	struct perf_event_header *hdr = (void *)buf;
	struct sample s;
	size_t i, size;
	int bad, wrong;

	for (i = 0; i < NR_BITS; i++)
		all |= tested_bits[i];
	ok(all == SAMPLE__SUPPORTED, "every supported sample_type bit is tested here "
	   "(untested: %#llx)", (unsigned long long)(SAMPLE__SUPPORTED & ~all));

	/* each bit alone, then all together */
	for (i = 0; i <= NR_BITS; i++) {
		uint64_t type = i < NR_BITS ? tested_bits[i] : all;
		uint64_t rf = PERF_FORMAT_TOTAL_TIME_ENABLED | PERF_FORMAT_ID;

		size = build(buf, type, rf);
		heap = malloc(size);
		memcpy(heap, buf, size);
		bad = sample__parse_regs(heap, type, rf, REGS_MASK, &s) ? 100 : check(&s, type, rf);
		is_int(bad, 0, i < NR_BITS ? "one bit parses back" : "all bits parse back");
		wrong = truncations_refused(heap, size, type, rf);
		is_int(wrong, 0, "every truncation of it is refused");
		free(heap);
	}

	/* read_format variants of PERF_SAMPLE_READ */
	{
		static const uint64_t rfs[] = {
			0, PERF_FORMAT_ID, PERF_FORMAT_TOTAL_TIME_ENABLED | PERF_FORMAT_TOTAL_TIME_RUNNING,
			PERF_FORMAT_GROUP, PERF_FORMAT_GROUP | PERF_FORMAT_ID,
			PERF_FORMAT_GROUP | PERF_FORMAT_ID | PERF_FORMAT_LOST |
			PERF_FORMAT_TOTAL_TIME_ENABLED | PERF_FORMAT_TOTAL_TIME_RUNNING,
		};
		uint64_t type = PERF_SAMPLE_IP | PERF_SAMPLE_READ | PERF_SAMPLE_CALLCHAIN;

		for (i = 0; i < sizeof(rfs) / sizeof(rfs[0]); i++) {
			size = build(buf, type, rfs[i]);
			bad = sample__parse(buf, type, rfs[i], &s) ? 100 : check(&s, type, rfs[i]);
			ok(bad == 0 && truncations_refused(buf, size, type, rfs[i]) == 0,
			   "read_format %#llx: parses, truncations refused",
			   (unsigned long long)rfs[i]);
		}
		/* a group read claiming a huge nr must not be believed */
		size = build(buf, type, PERF_FORMAT_GROUP);
		buf[2] = UINT64_MAX / 2;
		is_int(sample__parse(buf, type, PERF_FORMAT_GROUP, &s), -EINVAL,
		       "group nr larger than the record is refused");
	}

	/* a callchain nr pointing past the record */
	size = build(buf, PERF_SAMPLE_CALLCHAIN, 0);
	buf[1] = 1000;
	is_int(sample__parse(buf, PERF_SAMPLE_CALLCHAIN, 0, &s), -EINVAL,
	       "callchain longer than the record is refused");
	/* raw size past the record */
	size = build(buf, PERF_SAMPLE_RAW, 0);
	{
		uint32_t huge = 4000;

		memcpy(buf + 1, &huge, 4);
	}
	is_int(sample__parse(buf, PERF_SAMPLE_RAW, 0, &s), -EINVAL, "raw size past the record is refused");
	/* a branch stack claiming more entries than the record holds */
	size = build(buf, PERF_SAMPLE_BRANCH_STACK, 0);
	buf[1] = NR_BRANCHES + 1;
	is_int(sample__parse(buf, PERF_SAMPLE_BRANCH_STACK, 0, &s), -EINVAL,
	       "branch stack longer than the record is refused");
	buf[1] = UINT64_MAX / 3 + 1;	/* nr * 24 wraps to a small size */
	is_int(sample__parse(buf, PERF_SAMPLE_BRANCH_STACK, 0, &s), -EINVAL,
	       "branch stack nr that overflows a size is refused");
	/* the kernel writes nr = 0 alone when the PMU gave no stack */
	buf[1] = 0;
	hdr->size = 2 * 8;
	ok(sample__parse(buf, PERF_SAMPLE_BRANCH_STACK, 0, &s) == 0 && s.nr_branches == 0,
	   "an empty branch stack parses");

	/* user registers and stack */
	{
		uint64_t type = PERF_SAMPLE_IP | PERF_SAMPLE_REGS_USER | PERF_SAMPLE_STACK_USER;

		size = build(buf, type, 0);
		is_int(sample__parse(buf, type, 0, &s), -EOPNOTSUPP,
		       "REGS_USER without the register mask is refused, not misread");
		/* a kernel thread: abi NONE, no registers, stack size 0 */
		buf[2] = PERF_SAMPLE_REGS_ABI_NONE;
		buf[3] = 0;
		hdr->size = 4 * 8;
		ok(sample__parse_regs(buf, type, 0, REGS_MASK, &s) == 0 && !s.regs_user &&
		   s.nr_regs_user == 0 && !s.stack_user && s.stack_size == 0,
		   "abi NONE and an empty stack: no registers, no stack");
		size = build(buf, type, 0);
		buf[2 + 1 + NR_REGS + 1 + STACK_WORDS] = STACK_WORDS * 8 + 8;
		is_int(sample__parse_regs(buf, type, 0, REGS_MASK, &s), -EINVAL,
		       "stack dyn_size above its size is refused");
		size = build(buf, type, 0);
		buf[2 + 1 + NR_REGS] = 1ULL << 40;
		is_int(sample__parse_regs(buf, type, 0, REGS_MASK, &s), -EINVAL,
		       "stack size past the record is refused");
		buf[2 + 1 + NR_REGS] = 12;
		is_int(sample__parse_regs(buf, type, 0, REGS_MASK, &s), -EINVAL,
		       "stack size not a multiple of 8 is refused");
		size = build(buf, type, 0);
		is_int(sample__parse_regs(buf, type, 0, (1ULL << 62) - 1, &s), -EINVAL,
		       "a mask with more registers than the record holds is refused");
		(void)size;
	}

	/* bits we do not understand, and non-samples */
	size = build(buf, PERF_SAMPLE_IP, 0);
	is_int(sample__parse(buf, PERF_SAMPLE_IP | PERF_SAMPLE_WEIGHT, 0, &s), -EOPNOTSUPP,
	       "an unsupported bit is refused, not misread");
	hdr->type = PERF_RECORD_COMM;
	is_int(sample__parse(buf, PERF_SAMPLE_IP, 0, &s), -EINVAL, "a non-sample record is refused");
	hdr->type = PERF_RECORD_SAMPLE;
	hdr->size = 20;
	is_int(sample__parse(buf, PERF_SAMPLE_IP, 0, &s), -EINVAL, "an unaligned size is refused");

	/* identifier */
	size = build(buf, PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP, 0);
	{
		uint64_t id = 0;

		ok(sample__identifier(buf, &id) == 0 && id == 0x1d, "identifier read first");
		hdr->size = 8;
		is_int(sample__identifier(buf, &id), -EINVAL, "identifier of an empty sample refused");
	}

	/* sample_id_all trailer of a non-sample record (a COMM) */
	{
		uint64_t rec[8] = { 0 };
		struct perf_event_header *h = (void *)rec;
		uint64_t type = PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME |
				PERF_SAMPLE_CPU | PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_CALLCHAIN;
		uint32_t pt[2] = { 42, 43 }, cpu[2] = { 1, 0 };

		h->type = PERF_RECORD_COMM;
		/* pid/tid + "cat" padded: 16 bytes, then TID TIME CPU IDENTIFIER */
		memcpy(rec + 1, pt, 8);
		memcpy(rec + 2, "cat", 4);
		memcpy(rec + 3, pt, 8);
		rec[4] = 5555;
		memcpy(rec + 5, cpu, 8);
		rec[6] = 0x99;
		h->size = 7 * 8;
		ok(sample__parse_id_all(rec, type, &s) == 0 && s.pid == 42 && s.tid == 43 &&
		   s.time == 5555 && s.cpu == 1 && s.id == 0x99, "sample_id_all trailer parsed");
		h->size = 3 * 8;
		is_int(sample__parse_id_all(rec, type, &s), -EINVAL, "short trailer refused");
	}
	return done_testing();
}
