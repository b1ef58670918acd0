/*
 * chaintake: put a stream of whole call chains (chainsrc.h) into a
 * profile's bounded trie, pruned (issue 30 point 1: every chain kept,
 * memory bounded).
 *
 * The chains' own trie may be far bigger than the room (record's worst
 * case, tests/bench/rand-recurse: ~27 M nodes for a trie of 2 Mi), so
 * the trie takes its heavy part.  A node's weight is p's own cells under
 * it plus src's chains through it (every run, event, comm and pid
 * summed); heavy: a weight of at least T, the root always.  A path node
 * already in p's trie is used as it is; of the others ("new" nodes), the
 * heavy ones are made, T the smallest threshold at which they fit.  A
 * chain whose whole path is in p or made has its cells at its own leaf
 * node.  Any other has them at "deepest heavy node of its path ->
 * [elided] -> its sampled frame" (profile.h's PROFILE_ELIDED), and its
 * whole chain in p->whole; where nothing lies between that node and the
 * sampled frame, the leaf node itself is made (whole, not elided).  So a
 * light node of p keeps the cells it holds and the chains whole in p,
 * but gets no [elided] child: the chains through it that leave p's trie
 * hang under the heavy node above (record fills p's trie in arrival
 * order: the rule before, under the deepest node of p, gave each of p's
 * deep light nodes an [elided] node and leaves of its own, and cut 26 %
 * of the samples of 776 K chains of rand-recurse's shape into 2 Mi
 * nodes; this one cuts none, tests/bench/chaintake.c).  Where even the
 * elision nodes find no room, the chain is cut to its leaf under the
 * root, as record cut every chain before (counted in cut_samples).
 *
 * Two walks over src.  The first sums each node's weight in post-order
 * (a stack of the current path; p's nodes start from their own cells'
 * samples, summed over p's trie first) into a histogram of weights
 * (exact below 4096, then 64 steps an octave) and keeps the ids (their
 * rank in src's depth-first order) of the heaviest new nodes, as many as
 * the room; the histogram gives T.  The second makes the nodes and adds
 * the cells.  Memory: the path (O(depth)) and its nodes' children done
 * (12 bytes each), the histogram (7424 buckets, 116 KiB), a weight for
 * each node of p (8 bytes), the kept nodes' ids (16 bytes each, the room
 * at most), two bitmaps over p's frames and one over src's chains (the
 * elided ones, p->whole's); never anything per node of src's own trie.
 * Measured (tests/bench/chaintake, this 2-core VM): 776 K chains of 54 M
 * frames into a trie of 2 Mi nodes filled to 3/4, 1.8 s and 42 MiB of
 * peak RSS, 401 K nodes made (the rule before: 1.6 s, 30 MiB).
 *
 * The room: max_nodes - p->nr_nodes (PROFILE_MAX_ROWS at most).  T is
 * the smallest threshold (a step of the histogram) at which the kept
 * nodes plus a bound of the elision nodes fit it: per light node v of
 * src's paths under a heavy parent, 1 when v is new and a chain ends at
 * v (v made as a leaf); per heavy node K whose light children have
 * chains that leave p's trie (below a new child, through one of p's),
 * one [elided] and min(those chains, distinct sampled frames of src so
 * far) leaf nodes under it.  The bound holds whatever the stream's
 * order, so at T no chain is cut: the kept nodes are reserved and the
 * elision nodes taken in stream order from the rest.  When no threshold fits (even with no node heavy
 * but the root, the elision needs more than the room), no new node is
 * kept, T is one more than the heaviest node of src's paths (the root
 * aside), one node root -> f is reserved first for each distinct sampled
 * frame f of src that p's root has no child of (so that the cut always
 * fits), and the chains whose elision nodes (under the root) find no
 * room in what is left are cut.  When the room is less than that
 * reservation, the cuts go past max_nodes, as record's did (datafile.h:
 * the trie's nodes past its bound are cut chains' leaves).
 *
 * Deterministic: the result depends on p and the stream alone.
 */
#ifndef MMPROF_CHAINTAKE_H
#define MMPROF_CHAINTAKE_H

#include <stddef.h>
#include <stdint.h>

struct profile;
struct chainsrc;

struct chaintake_stats {
	uint64_t chains;		/* chains of src */
	uint64_t elided_chains, elided_samples;	/* under [elided] nodes */
	uint64_t cut_samples;		/* the fallback: cut to the leaf at the root */
	uint64_t threshold;		/* T: the weight of a heavy node (made, and elided under) */
	size_t nodes_added;
};

/*
 * Put every chain of src into p's trie within max_nodes nodes in all
 * (0: no room; DATAFILE_TRIE_NODES is not visible here -- take max_nodes
 * as given), and src into p->whole (owned by p from the call on, whatever
 * the result: released when no chain was elided, p->whole then NULL).
 * p->whole must be NULL on entry (else src is released and -EEXIST).
 *
 * p->whole yields exactly the elided chains, in src's order, with lcp and
 * ordinal recomputed over what it yields, and nr_chains, nr_frames and
 * samples of what it yields.  Meta chains_elided (elided samples) and
 * chains_elided_below (T, over the weights above: p's cells and src's)
 * are set when a chain was elided; the caller sets stacks_cut_to_leaf
 * from cut_samples.
 *
 * 0, or src's error (-errno), or -EPROTO for a stream that breaks
 * chainsrc.h's order or p's frames (a chain deeper than PROFILE_MAX_DEPTH,
 * a frame id p does not have, the second walk not the first): on an error
 * src is released, p->whole stays NULL and p's trie may hold part of
 * src's cells (the caller drops p).  st may be NULL.
 */
int profile__take_chains(struct profile *p, struct chainsrc *src, size_t max_nodes,
			 struct chaintake_stats *st);

#endif
