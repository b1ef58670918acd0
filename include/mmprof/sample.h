/*
 * sample: decode one PERF_RECORD_SAMPLE as the attr's sample_type lays it out.
 *
 * Pure and bounds-checked: every field is read only after checking it lies
 * inside header.size, so a truncated or corrupt record yields -EINVAL, never
 * a read past the record.  Pointers in struct sample (callchain, raw, read)
 * point into the record and live as long as it does.  Called once per sample
 * on the recording's hot path: no allocation, no copying.
 *
 * Bits understood are SAMPLE__SUPPORTED (the layout of later bits depends on
 * earlier ones, so a record with any other bit is refused with -EOPNOTSUPP
 * rather than misread).  REGS_USER's length depends on the attr's
 * sample_regs_user mask, which only sample__parse_regs is given.
 * BRANCH_STACK is read as mmprof asks for it: without
 * PERF_SAMPLE_BRANCH_HW_INDEX or PERF_SAMPLE_BRANCH_COUNTERS in the attr's
 * branch_sample_type (either would add words the record does not say it
 * has).
 */
#ifndef MMPROF_SAMPLE_H
#define MMPROF_SAMPLE_H

#include <stdint.h>
#include <linux/perf_event.h>

#define SAMPLE__SUPPORTED (PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | PERF_SAMPLE_TID | \
			   PERF_SAMPLE_TIME | PERF_SAMPLE_ADDR | PERF_SAMPLE_ID |    \
			   PERF_SAMPLE_STREAM_ID | PERF_SAMPLE_CPU | PERF_SAMPLE_PERIOD | \
			   PERF_SAMPLE_READ | PERF_SAMPLE_CALLCHAIN | PERF_SAMPLE_RAW | \
			   PERF_SAMPLE_BRANCH_STACK | PERF_SAMPLE_REGS_USER |	     \
			   PERF_SAMPLE_STACK_USER)

struct sample {
	uint64_t id;		/* IDENTIFIER or ID */
	uint64_t ip;
	uint32_t pid, tid;
	uint64_t time;
	uint64_t addr;
	uint64_t stream_id;
	uint32_t cpu;
	uint64_t period;
	const uint64_t *read;	/* READ: the read_format block, read_words u64s */
	uint32_t read_words;
	const uint64_t *callchain;	/* CALLCHAIN: nr entries, context markers included */
	uint64_t nr_callchain;
	const void *raw;	/* RAW: raw_size bytes */
	uint32_t raw_size;
	/*
	 * BRANCH_STACK: nr_branches {from, to, flags} entries, newest first.
	 * With PERF_SAMPLE_BRANCH_CALL_STACK (--call-graph lbr) they are the
	 * calls not yet returned: branches[0].to is the entry of the function
	 * running, each .from a call site in its caller, outward.
	 */
	const struct perf_branch_entry *branches;
	uint64_t nr_branches;
	/*
	 * REGS_USER: abi (PERF_SAMPLE_REGS_ABI_*; NONE for a kernel thread,
	 * then no registers follow) and one u64 per set bit of the attr's
	 * sample_regs_user, lowest bit first: nr_regs_user of them.
	 */
	uint64_t regs_user_abi;
	const uint64_t *regs_user;
	uint32_t nr_regs_user;
	/*
	 * STACK_USER: the copy of the user stack from the sampled SP up;
	 * stack_size bytes sent, the first stack_dyn_size of them valid
	 * (dyn_size <= size, checked); both 0 when the kernel sent none.
	 */
	const void *stack_user;
	uint64_t stack_size, stack_dyn_size;
	uint16_t misc;		/* header.misc (cpumode of ip) */
};

/*
 * Decode ev (a PERF_RECORD_SAMPLE, header.size bytes) into s.  Fields whose
 * bit is absent are 0/NULL.  -EINVAL: not a sample or truncated;
 * -EOPNOTSUPP: a sample_type bit outside SAMPLE__SUPPORTED.
 */
int sample__parse(const void *ev, uint64_t sample_type, uint64_t read_format,
		  struct sample *s);

/*
 * The same for events with PERF_SAMPLE_REGS_USER, whose register block
 * holds one u64 per set bit of regs_user_mask (the attr's
 * sample_regs_user).  sample__parse refuses REGS_USER with -EOPNOTSUPP:
 * without the mask the rest of the record cannot be placed.
 */
int sample__parse_regs(const void *ev, uint64_t sample_type, uint64_t read_format,
		       uint64_t regs_user_mask, struct sample *s);

/*
 * Decode the sample_id trailer (sample_id_all) of a non-sample record:
 * TID, TIME, ID, STREAM_ID, CPU, IDENTIFIER bits of sample_type, at the end
 * of the record.  -EINVAL when the record is too short to hold it.
 */
int sample__parse_id_all(const void *ev, uint64_t sample_type, struct sample *s);

/*
 * --call-graph lbr: the callchain of a sample that has both CALLCHAIN and
 * BRANCH_STACK (call-stack mode), leaf first as the kernel lays chains out,
 * built as perf's resolve_lbr_callchain_sample does (callee order): the
 * kernel's part (every entry before its first PERF_CONTEXT_USER), then
 * PERF_CONTEXT_USER, the user leaf, and each branch's .from outward.  The
 * kernel's own user part (a frame-pointer walk) is dropped but for its
 * first entry, the user IP from the saved registers, which is the leaf:
 * for a user-mode sample that is the sample IP; where the kernel gave no
 * user part, the sample IP (user mode) or else branches[0].to (the entry
 * of the running function, perf's choice for every sample).  perf shows
 * branches[0].to, not the IP, as the leaf of the chain; both name the same
 * function, the IP keeps the line and inline scope.  Entries that are not
 * user addresses (0, or in the context-marker range) are skipped.
 *
 * A sample without a user part (a kernel thread: no PERF_CONTEXT_USER and
 * not user mode) keeps the kernel's chain unchanged, as perf does; an
 * empty branch stack (nothing on the call stack the LBR saw, e.g. _start,
 * or a PMU that gave none) leaves the user part at the leaf alone.
 * out must hold sample__lbr_chain_max(s) entries; returns the length.
 */
uint64_t sample__lbr_chain(const struct sample *s, uint64_t *out);

static inline uint64_t sample__lbr_chain_max(const struct sample *s)
{
	return s->nr_callchain + s->nr_branches + 2;
}

/* The id of a sample with PERF_SAMPLE_IDENTIFIER (first u64), or -EINVAL. */
int sample__identifier(const void *ev, uint64_t *id);

#endif
