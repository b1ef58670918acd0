/*
 * depth: the limit every export that writes each stack whole (pprof's
 * samples, export JSON's stacks) checks before its first byte, on the
 * frames it would write: the depths (struct stack_node.depth) of its
 * stacks (export.h, EXPORT_MAX_FRAMES).  Its own file so that json.c and
 * pprof.c both call it and neither calls the other.
 */
#include <errno.h>

#include "mmprof/errmsg.h"
#include "mmprof/export.h"

int export__check_frames(uint64_t frames, struct errmsg *e)
{
	if (frames <= EXPORT_MAX_FRAMES)
		return 0;
	return errmsg__set(e, -E2BIG, "its stacks are more than 2^25 frames, each written whole "
			   "(robustness.md); export one run (--run N, pprof and folded) or one "
			   "event (-f folded -e EVENT)");
}
