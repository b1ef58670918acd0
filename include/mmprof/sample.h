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
 */
#ifndef MMPROF_SAMPLE_H
#define MMPROF_SAMPLE_H

#include <stdint.h>
#include <linux/perf_event.h>

#define SAMPLE__SUPPORTED (PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | PERF_SAMPLE_TID | \
			   PERF_SAMPLE_TIME | PERF_SAMPLE_ADDR | PERF_SAMPLE_ID |    \
			   PERF_SAMPLE_STREAM_ID | PERF_SAMPLE_CPU | PERF_SAMPLE_PERIOD | \
			   PERF_SAMPLE_READ | PERF_SAMPLE_CALLCHAIN | PERF_SAMPLE_RAW | \
			   PERF_SAMPLE_REGS_USER | PERF_SAMPLE_STACK_USER)

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

/* The id of a sample with PERF_SAMPLE_IDENTIFIER (first u64), or -EINVAL. */
int sample__identifier(const void *ev, uint64_t *id);

#endif
