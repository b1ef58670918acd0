/*
 * chainarr.h: an array-backed chain source (chainsrc.h) for the tests of
 * format 5 (test-chainfile, the fuzz seeds of datafile-seed.h), and the
 * trie a bounded record would make of its chains: each chain's cells
 * under deepest kept node -> "[elided]" -> its sampled frame, the kept
 * node its first `keep` frames (profile.h's PROFILE_ELIDED), as
 * profile__take_chains would.  Chains are added in the stream's order
 * (the test's duty); lcp and ordinal are worked out by the walk.  Static
 * functions only: each includer is one program.
 */
#ifndef MMPROF_TESTS_CHAINARR_H
#define MMPROF_TESTS_CHAINARR_H

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "mmprof/chainsrc.h"
#include "mmprof/profile.h"
#include "mmprof/xalloc.h"

struct chainarr_chain {
	size_t frame_off, cell_off;
	uint32_t nr, nr_cells;
};

struct chainarr {
	struct chainsrc src;
	uint32_t *frames;
	size_t nr_frames, alloc_frames;
	struct chain_cell *cells;
	size_t nr_cells, alloc_cells;
	struct chainarr_chain *chains;
	size_t nr_chains, alloc_chains;
	int fail_at;		/* > 0: the walk returns -EIO at that chain (a source's own error) */
};

static int chainarr__each(struct chainsrc *src, chain_fn fn, void *ctx)
{
	struct chainarr *a = (struct chainarr *)src;
	size_t i;

	for (i = 0; i < a->nr_chains; i++) {
		const struct chainarr_chain *c = &a->chains[i];
		const struct chainarr_chain *b = i ? &a->chains[i - 1] : NULL;
		struct chain_rec r = { .frames = a->frames + c->frame_off, .nr = c->nr,
				       .cells = a->cells + c->cell_off, .nr_cells = c->nr_cells,
				       .ordinal = i };
		int ret;

		if (a->fail_at && (size_t)a->fail_at == i)
			return -5;	/* -EIO */
		while (b && r.lcp < b->nr && r.lcp < c->nr &&
		       a->frames[b->frame_off + r.lcp] == r.frames[r.lcp])
			r.lcp++;
		if ((ret = fn(ctx, &r)))
			return ret;
	}
	return 0;
}

static void chainarr__release(struct chainsrc *src)
{
	struct chainarr *a = (struct chainarr *)src;

	free(a->frames);
	free(a->cells);
	free(a->chains);
	free(a);
}

static struct chainarr *chainarr__new(void)
{
	struct chainarr *a = xcalloc(1, sizeof(*a));

	a->src.each = chainarr__each;
	a->src.release = chainarr__release;
	return a;
}

static void chainarr__add(struct chainarr *a, const uint32_t *frames, uint32_t nr,
			  const struct chain_cell *cells, uint32_t nr_cells)
{
	uint32_t i;

	XGROW(a->chains, a->alloc_chains, a->nr_chains);
	a->chains[a->nr_chains++] = (struct chainarr_chain){ .frame_off = a->nr_frames,
		.cell_off = a->nr_cells, .nr = nr, .nr_cells = nr_cells };
	XGROW(a->frames, a->alloc_frames, a->nr_frames + nr);
	memcpy(a->frames + a->nr_frames, frames, nr * sizeof(*frames));
	a->nr_frames += nr;
	XGROW(a->cells, a->alloc_cells, a->nr_cells + nr_cells);
	memcpy(a->cells + a->nr_cells, cells, nr_cells * sizeof(*cells));
	a->nr_cells += nr_cells;
	a->src.nr_chains++;
	a->src.nr_frames += nr;
	for (i = 0; i < nr_cells; i++)
		a->src.samples += cells[i].samples;
}

/* The "[elided]" frame of p, added if new. */
static uint32_t chainarr__elided_frame(struct profile *p)
{
	uint32_t s = profile__intern(p, PROFILE_ELIDED);
	struct frame f = { .addr = PROFILE_ELIDED_ADDR, .sym = s, .dso = s };

	return profile__frame(p, &f);
}

/* Every chain of a (each longer than keep + 1 frames) into p's trie, elided after keep frames. */
static void chainarr__into_trie(struct profile *p, const struct chainarr *a, uint32_t keep)
{
	uint32_t el = chainarr__elided_frame(p);
	size_t i, k;

	for (i = 0; i < a->nr_chains; i++) {
		const struct chainarr_chain *c = &a->chains[i];
		const uint32_t *fr = a->frames + c->frame_off;
		uint32_t node = 0;

		for (k = 0; k < keep && k < c->nr; k++)
			node = profile__node(p, node, fr[k]);
		node = profile__node(p, node, el);
		node = profile__node(p, node, fr[c->nr - 1]);
		for (k = 0; k < c->nr_cells; k++) {
			const struct chain_cell *x = &a->cells[c->cell_off + k];

			profile__add_count(p, x->run, x->event, x->comm, x->pid, node, x->samples,
					   x->period);
		}
	}
}

#endif
