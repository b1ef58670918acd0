/*
 * chainsrc: a stream of whole call chains, the ones a profile's trie
 * holds only in part (issue 30: every chain kept, memory bounded).
 *
 * The trie of a profile (profile.h) is bounded (datafile.h's
 * DATAFILE_TRIE_NODES) so that every reader takes it.  A recording with
 * more distinct chains than that keeps them all: the trie holds each
 * chain as far as the heavy part of the call graph goes, down to a node
 * whose own subtree carries enough samples, then an "[elided]" node
 * (PROFILE_ELIDED below), then the sampled frame; the whole chain is in
 * the profile's chain source, read as a stream:
 *
 *   chain     frame ids, root (outermost caller) first, the sampled frame
 *             last, as the trie's path from its root would list them
 *   cells     its counts: (run, event, comm, pid) -> samples, period,
 *             sorted by (run, event, comm, pid), each once
 *
 * Order: the chains in increasing order of their frame ids compared one by
 * one from the root, a chain before every chain it is a prefix of; each
 * distinct chain once.  So the stream is the depth-first walk of the
 * chains' own trie, and a reader keeps one path (its depth) at a time.
 * lcp: how many leading frames the chain shares with the one before it
 * (0 for the first).
 *
 * Every cell of the stream is also a cell of the trie, under the chain's
 * "[elided]" node: a reader of counts or shares (costs, tree, flame
 * graph) reads the trie alone; a reader of whole chains (keys' children,
 * folded, export) reads the trie's cells that are not under an
 * "[elided]" node and the stream's chains in their place.
 */
#ifndef MMPROF_CHAINSRC_H
#define MMPROF_CHAINSRC_H

#include <stdint.h>

struct chain_cell {
	uint32_t run, event, comm, pid;	/* comm: a string id of the profile */
	uint64_t samples, period;
};

struct chain_rec {
	const uint32_t *frames;		/* root first; valid during the call */
	uint32_t nr;			/* >= 1 */
	uint32_t lcp;			/* frames shared with the chain before */
	const struct chain_cell *cells;	/* valid during the call */
	uint32_t nr_cells;		/* >= 1 */
	uint64_t ordinal;		/* 0, 1, 2, ... in stream order */
};

/* The order of a chain's cells: by run, event, comm, pid; <0, 0, >0. */
static inline int chain_cell__cmp(const struct chain_cell *x, const struct chain_cell *y)
{
	if (x->run != y->run)
		return x->run < y->run ? -1 : 1;
	if (x->event != y->event)
		return x->event < y->event ? -1 : 1;
	if (x->comm != y->comm)
		return x->comm < y->comm ? -1 : 1;
	return x->pid < y->pid ? -1 : x->pid > y->pid;
}

/* chain_cell__cmp for qsort. */
static inline int chain_cell__qcmp(const void *a, const void *b)
{
	return chain_cell__cmp(a, b);
}

/*
 * fn's non-zero return stops the walk and is returned by each; a source's
 * own error is a negative errno (-EIO: a block that does not decompress,
 * -EPROTO: a stream that breaks the order or its bounds).
 */
typedef int (*chain_fn)(void *ctx, const struct chain_rec *c);

struct chainsrc {
	/* Walk every chain once, in order; may be called again (0 or as above). */
	int (*each)(struct chainsrc *src, chain_fn fn, void *ctx);
	/* Free the source and what it holds (its temporary file). */
	void (*release)(struct chainsrc *src);
	uint64_t nr_chains;		/* chains the walk yields */
	uint64_t nr_frames;		/* their frames summed (each chain its nr) */
	uint64_t samples;		/* their cells' samples summed */
};

static inline int chainsrc__each(struct chainsrc *src, chain_fn fn, void *ctx)
{
	return src->each(src, fn, ctx);
}

static inline void chainsrc__release(struct chainsrc *src)
{
	if (src)
		src->release(src);
}

#endif
