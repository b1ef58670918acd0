/*
 * depth: what every export that writes each stack whole (pprof's samples,
 * export JSON's stacks) counts before its first byte, the frames it would
 * write (export.h, EXPORT_MAX_FRAMES).  Its own file so that json.c and
 * pprof.c both call it and neither calls the other.
 */
#include <errno.h>
#include <stdlib.h>

#include "mmprof/errmsg.h"
#include "mmprof/export.h"
#include "mmprof/xalloc.h"

uint32_t *export__depths(const struct profile *p)
{
	uint32_t *depth = xcalloc(p->nr_nodes + 1, sizeof(*depth));
	size_t i;

	for (i = 1; i < p->nr_nodes; i++)	/* a node's parent precedes it */
		depth[i] = depth[p->nodes[i].parent] + 1;
	return depth;
}

int export__check_frames(uint64_t frames, struct errmsg *e)
{
	if (frames <= EXPORT_MAX_FRAMES)
		return 0;
	return errmsg__set(e, -E2BIG, "its stacks are more than 2^25 frames, each written whole "
			   "(robustness.md); export one run (--run N, pprof and folded) or one "
			   "event (-f folded -e EVENT)");
}
