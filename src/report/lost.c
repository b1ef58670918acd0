/*
 * lost: the one-line warning every view of a file prints when its runs
 * lost samples (PERF_RECORD_LOST: ring buffers full).  record says it at
 * the end of the run; a file read later, elsewhere, must say it again,
 * since every share a view prints is of the samples that were kept.
 */
#include <stdio.h>

#include "mmprof/report.h"

const char *report__lost_warning(const struct profile *p, char *buf, size_t size)
{
	uint64_t kept, lost;
	size_t runs;

	lost = profile__run_lost(&p, 1, &kept, &runs);
	if (!lost)
		return NULL;
	/* the same share record prints: of all samples, kept and lost */
	snprintf(buf, size, "%llu samples lost while recording (%.1f%% of %llu, in %zu of %zu run%s); "
		 "shares are of the samples kept (record with a larger -m or a lower -F)",
		 (unsigned long long)lost, 100.0 * (double)lost / (double)(lost + kept),
		 (unsigned long long)(lost + kept), runs, p->nr_runs, p->nr_runs == 1 ? "" : "s");
	return buf;
}
