/*
 * wholestack: the trie's cells under "[elided]" nodes told apart, and the
 * chains of p->whole checked against the profile; see
 * include/mmprof/wholestack.h.
 */
#include <errno.h>
#include <stdlib.h>

#include "mmprof/wholestack.h"
#include "mmprof/xalloc.h"

uint8_t *wholestack__elided_nodes(const struct profile *p)
{
	uint8_t *elided;
	size_t i;

	if (!p->whole)
		return NULL;
	elided = xcalloc(p->nr_nodes + 1, 1);
	for (i = 1; i < p->nr_nodes; i++) {	/* parent < id */
		const struct stack_node *n = &p->nodes[i];

		elided[i] = (n->parent < i && elided[n->parent]) ||
			    (n->frame < p->nr_frames && profile__frame_elided(p, n->frame));
	}
	return elided;
}

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
