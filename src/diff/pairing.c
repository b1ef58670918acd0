/*
 * pairing: whether two sides' runs were recorded pair by pair (record
 * --interleave, diffside.h's diff__pairing), so that a diff may test each
 * key on the within-pair differences (diff_opts.paired).  The files say
 * it in their meta (interleave.side, interleave.pairs); their runs' start
 * times must agree: every run of pair i starts before any run of pair
 * i + 1.  A side pools its files in order, so file j of one side pairs
 * with file j of the other, run for run.  Linear in the runs.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mmprof/diffside.h"

static bool interleaved(const struct profile *p)
{
	return profile__meta(p, "interleave.side") != NULL;
}

/* Say why in why (size bytes, may be 0) and return 0. */
#define UNPAIRED(...) (why && size ? (void)snprintf(why, size, __VA_ARGS__) : (void)0, (size_t)0)

size_t diff__pairing(const struct profile *const *base, size_t nbp, const struct profile *const *cur,
		     size_t nnp, const bool *const keep[2], char *why, size_t size)
{
	size_t j, any = 0, run = 0, pairs = 0;
	size_t i;

	if (why && size)
		why[0] = '\0';
	for (j = 0; j < nbp; j++)
		any += interleaved(base[j]);
	for (j = 0; j < nnp; j++)
		any += interleaved(cur[j]);
	if (!any)
		return 0;	/* nothing claims a pairing: nothing to say */
	if (nbp != nnp)
		return UNPAIRED("base has %zu file%s, new %zu: not the two files of one interleaved recording",
				nbp, nbp == 1 ? "" : "s", nnp);
	for (j = 0; j < nbp; j++) {
		const struct profile *b = base[j], *n = cur[j];
		const char *sb = profile__meta(b, "interleave.side"), *sn = profile__meta(n, "interleave.side");
		const char *pb = profile__meta(b, "interleave.pairs"), *pn = profile__meta(n, "interleave.pairs");

		if (!sb || !sn || !strcmp(sb, sn) || !pb || !pn || strcmp(pb, pn))
			return UNPAIRED("file %zu of base and of new are not the two sides of one "
					"interleaved recording (meta interleave.*)", j + 1);
		if (b->nr_runs != n->nr_runs)
			return UNPAIRED("file %zu holds %zu runs on base and %zu on new: a pair is incomplete",
					j + 1, b->nr_runs, n->nr_runs);
		for (i = 0; i < b->nr_runs; i++, run++) {
			bool kb = !keep || !keep[0] || keep[0][run], kn = !keep || !keep[1] || keep[1][run];
			int64_t last = b->runs[i].start_ns > n->runs[i].start_ns ? b->runs[i].start_ns :
				       n->runs[i].start_ns;

			if (i + 1 < b->nr_runs && (last > b->runs[i + 1].start_ns || last > n->runs[i + 1].start_ns))
				return UNPAIRED("file %zu: run %zu of base and of new were not recorded "
						"side by side (their start times)", j + 1, i);
			if (kb != kn)
				return UNPAIRED("run %zu is compared on %s and dropped on %s (--drop-run): "
						"drop both runs of a pair or neither", run, kb ? "base" : "new",
						kb ? "new" : "base");
			pairs += kb;
		}
	}
	return pairs;
}
