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

/* Is run `run` of a side (over its files in order) compared? */
static bool kept(const bool *const keep[2], int side, size_t run)
{
	return !keep || !keep[side] || keep[side][run];
}

size_t diff__pairing(const struct profile *const *base, size_t nbp, const struct profile *const *cur,
		     size_t nnp, const bool *const keep[2], char *why, size_t size)
{
	size_t j, any = 0, rb = 0, rn = 0, pairs = 0, i;

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
	for (j = 0; j < nbp; rb += base[j]->nr_runs, rn += cur[j]->nr_runs, j++) {
		const struct profile *b = base[j], *n = cur[j];
		const char *sb = profile__meta(b, "interleave.side"), *sn = profile__meta(n, "interleave.side");
		const char *pb = profile__meta(b, "interleave.pairs"), *pn = profile__meta(n, "interleave.pairs");
		size_t common = b->nr_runs < n->nr_runs ? b->nr_runs : n->nr_runs;

		if (!sb || !sn || !strcmp(sb, sn) || !pb || !pn || strcmp(pb, pn))
			return UNPAIRED("file %zu of base and of new are not the two sides of one "
					"interleaved recording (meta interleave.*)", j + 1);
		/* an interrupted recording's last run without its pair: compared, it breaks the pairing */
		for (i = common; i < b->nr_runs || i < n->nr_runs; i++) {
			int side = i < b->nr_runs ? 0 : 1;
			size_t run = (side ? rn : rb) + i;

			if (kept(keep, side, run))
				return UNPAIRED("%s run %zu has no pair on %s: --drop-run %s:%zu leaves it out",
						side ? "new" : "base", run, side ? "base" : "new",
						side ? "new" : "base", run);
		}
		for (i = 0; i < common; i++) {
			bool kb = kept(keep, 0, rb + i), kn = kept(keep, 1, rn + i);
			int64_t last = b->runs[i].start_ns > n->runs[i].start_ns ? b->runs[i].start_ns :
				       n->runs[i].start_ns;

			if (i + 1 < common && (last > b->runs[i + 1].start_ns || last > n->runs[i + 1].start_ns))
				return UNPAIRED("file %zu: run %zu of base and of new were not recorded "
						"side by side (their start times)", j + 1, i);
			if (kb != kn)
				return UNPAIRED("base run %zu is %s and new run %zu %s (--drop-run): drop both "
						"runs of a pair or neither", rb + i, kb ? "compared" : "dropped",
						rn + i, kn ? "compared" : "dropped");
			pairs += kb;
		}
	}
	return pairs;
}

size_t diff_opts__set_paired(struct diff_opts *o, const struct profile *const *base, size_t nbp,
			     const struct profile *const *cur, size_t nnp, const bool *const keep[2],
			     char *why, size_t size)
{
	size_t pairs = diff__pairing(base, nbp, cur, nnp, keep, why, size);

	o->paired = o->pair && pairs > 0;
	return pairs;
}
