/*
 * libFuzzer harness for the perf script text parser (import.h, issue 9):
 * `mmprof import -` reads text a user got from elsewhere, so any byte
 * string must be refused with a message or parsed into a profile without
 * a crash, a sanitizer report, a leak or a hang.  A parsed profile must
 * keep the model's invariants: every count's node exists, every node's
 * parent precedes it, and the run's sample count equals the counts' sum.
 * Its names are the text's own, so the text views must hold the line
 * rule (issue 14, escape.h): report --folded --comm and --tree print no
 * control byte but their own newlines, every folded line ends in its
 * count, and the counts add up to no more than the samples (a name with
 * a newline once forged a line of its own).
 *
 * Built and run by `make fuzz`; by hand:
 *
 *   make build-fuzz/fuzz-perfscript
 *   build-fuzz/fuzz-perfscript -max_total_time=60 build-fuzz/corpus/perfscript \
 *         tests/fuzz/corpus/perfscript
 *
 * Seeds in tests/fuzz/corpus/perfscript/: perf script's default output with
 * callchains (kernel and user frames, [unknown]), -F output with pid/tid,
 * a --header block, a sample without a callchain, a tracepoint line,
 * perf.data without -g (comm right-padded, so sample lines start with
 * blanks; with and without a time field), an absurd time stamp that
 * once overflowed the wall time (regress-huge-time), and names (comm,
 * symbol, DSO) with ESC sequences, BEL, C1 controls, invalid UTF-8, ';'
 * and spaces (names-escapes), and a chain holding 0xffffffffffffffff (at
 * or above PERF_CONTEXT_MAX: the sample kept at its IP) next to a sample
 * without a frame (rejected-chain), and comms holding newlines, whose
 * headers perf script splits over lines (comm-newline).
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "mmprof/errmsg.h"
#include "mmprof/import.h"
#include "mmprof/report.h"

#include "check-views.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct profile *p = profile__new();
	struct errmsg e = { "" };
	uint64_t sum = 0;
	size_t i;

	if (!perfscript__parse(p, (const char *)data, size, &e)) {
		for (i = 0; i < p->nr_counts; i++) {
			if (p->counts[i].node >= p->nr_nodes || p->counts[i].event >= p->nr_events)
				abort();
			sum += p->counts[i].samples;
		}
		for (i = 1; i < p->nr_nodes; i++)
			if (p->nodes[i].parent >= i || p->nodes[i].frame >= p->nr_frames)
				abort();
		if (!p->nr_runs || p->runs[0].samples != sum)
			abort();
		check_views(p, sum);
	} else if (!e.msg[0]) {
		abort();	/* every refusal says why */
	}
	profile__free(p);
	return 0;
}
