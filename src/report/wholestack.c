/*
 * wholestack: the chains of p->whole checked against the profile (the
 * trie's cells under "[elided]" nodes are told apart by
 * profile__elided_nodes); see include/mmprof/wholestack.h.
 */
#include <errno.h>

#include "mmprof/wholestack.h"

int wholestack__check(const struct profile *p, const struct chain_rec *c)
{
	uint32_t i;

	if (!c->nr)
		return -EPROTO;	/* chainsrc.h: a chain has its sampled frame */
	for (i = 0; i < c->nr; i++)
		if (c->frames[i] >= p->nr_frames)
			return -EPROTO;
	return 0;
}
