/*
 * symview: a profile's call-stack trie seen at the level of symbols, the
 * ground that keys (keys.h), report's views and diff's chains stand on.
 *
 * The profile's trie has one node per distinct *address* path; reports
 * want one node per distinct *symbol* path.  struct symview collapses it:
 *
 *   entry     a distinct (DSO, symbol) pair, as perf's `--sort=dso,symbol`
 *             entries; with keep_unresolved, one extra entry "[unknown]"
 *             stands for every unresolved frame (one per DSO with
 *             unknown_by_dso: symview__init_opts)
 *   symnode   a node of the symbol trie: (parent symnode, entry), root
 *             first, parent < id (same invariant as the profile's trie)
 *
 * Without keep_unresolved (the LKP view, perf report -U) unresolved frames
 * are skipped inside stacks and a sample whose sampled IP is unresolved is
 * dropped altogether, from the total as well: that is what perf does with
 * -U (measured: `Event count` shrinks by the unresolved-leaf samples).
 *
 * Building is O(trie nodes) hash operations; everything per (run, event)
 * afterwards is a linear pass over symnodes, never per sample.  Workload:
 * up to a few hundred thousand trie nodes, a handful of events and runs.
 */
#ifndef MMPROF_SYMVIEW_H
#define MMPROF_SYMVIEW_H

#include <stdbool.h>
#include <stdint.h>

#include "mmprof/hashidx.h"
#include "mmprof/profile.h"

#define SYMVIEW_NONE UINT32_MAX
#define SYMVIEW_ALL_RUNS UINT32_MAX

struct symview_entry {
	uint32_t dso, sym;	/* string ids of the profile; sym 0 = "[unknown]" */
	uint8_t kernel;
};

/* 12 bytes: a view's size at a diff's peak is mostly its symnodes. */
struct symnode {
	uint32_t parent;	/* < own id; root (0) is its own parent */
	uint32_t entry;		/* SYMVIEW_NONE for the root */
	uint32_t same_anc;	/* nearest ancestor with the same entry, or NONE */
};

struct symview {
	const struct profile *p;
	bool keep_unresolved;
	bool keep_inline;	/* inline frames (record --inline) as entries */
	bool unknown_by_dso;	/* one "[unknown]" entry per DSO, not one in all */
	uint32_t max_stack;	/* 0: whole stacks; else only the innermost frames */
	uint64_t nr_cut;	/* distinct sampled stacks cut to max_stack frames */

	struct symview_entry *entries;
	size_t nr_entries, alloc_entries;

	struct symnode *nodes;
	size_t nr_nodes, alloc_nodes;

	/*
	 * Per profile trie node: its symnode, and whether its samples count
	 * (leaf resolved).  Both NULL where the collapse is the identity
	 * (every node its own symnode, of the same id, every sample counted
	 * but the root's: a profile of one address per symbol): read them
	 * through symview__symnode and symview__counts.
	 */
	uint32_t *node_map;
	uint8_t *node_keep;
	/*
	 * [symnode] its children in increasing id order, SYMVIEW_NONE
	 * terminated: only with symview_opts.children, else NULL.
	 */
	uint32_t *first_child, *next_sibling;
	bool borrowed;		/* the arrays are another view's (symview__derive) */

	struct hashidx entry_idx, node_idx;	/* private, the build's */
};

/* Profile node n's symnode; do n's samples count? (n < the profile's nr_nodes) */
static inline uint32_t symview__symnode(const struct symview *v, uint32_t n)
{
	return v->node_map ? v->node_map[n] : n;
}

static inline bool symview__counts(const struct symview *v, uint32_t n)
{
	return v->node_keep ? v->node_keep[n] : n != 0;
}

void symview__init(struct symview *v, const struct profile *p, bool keep_unresolved);
/*
 * The same, choosing whether inline frames (frame.inlined) are entries of
 * their own (the tree shows the inline chain) or are folded into the real
 * function they were inlined into (symview__init: LKP keys, folded, so
 * that keys stay those of the real functions perf-profile names).
 */
void symview__init_inline(struct symview *v, const struct profile *p, bool keep_unresolved,
			  bool keep_inline);

/*
 * Every choice at once, zero meaning the LKP default (symview__init with
 * false).  unknown_by_dso (with keep_unresolved): unresolved frames are one
 * "[unknown]" entry per DSO, as perf's per-address entries summed by DSO;
 * folded keeps the one "[unknown]" so that no two of its lines read the
 * same.  max_stack: a stack deeper than that keeps its innermost max_stack
 * frames, as perf report --max-stack (kernel.perf_event_max_stack, 127 by
 * default) does; frames beyond leave the stack, not the sample.  The cost
 * of a cut stack is max_stack lookups, once per distinct deep stack.
 */
struct symview_opts {
	bool keep_unresolved, keep_inline, unknown_by_dso;
	bool children;		/* keep the child lists (first_child, next_sibling) */
	uint32_t max_stack;
};
void symview__init_opts(struct symview *v, const struct profile *p, const struct symview_opts *o);
void symview__release(struct symview *v);	/* NULL is fine */

/*
 * v as symview__init_opts(v, from->p, o) makes it, from a finer view of
 * the same profile: one collapse per file serves every view of a diff
 * (diff_side.views: keys, costs, -g's chains).  Where the two come out
 * the same, entry for entry and symnode for symnode (no frame that one
 * keeps and the other skips, unresolved frames merged alike: a profile
 * whose every frame is a resolved, not inlined symbol, as most mmprof
 * records), v borrows from's arrays, which must outlive it, and costs
 * nothing; else it is derived from from's symnodes (one lookup per
 * symnode of from, none per profile node: unresolved and inline frames
 * skipped, "[unknown]"s merged), the same ids and arrays as the build.
 * Built from the profile only where no derivation is exact: from skips
 * a frame v keeps or keys together frames v keys apart, or either cuts
 * stacks (max_stack).  Returns true when borrowed.  Release v with
 * symview__release either way.
 */
bool symview__derive(struct symview *v, const struct symview *from, const struct symview_opts *o);

/*
 * [frame] of v's profile: the entry v keys it under, SYMVIEW_NONE for a
 * frame v skips (unresolved without keep_unresolved, inlined without
 * keep_inline): the build's rule, for frames met outside the trie (the
 * profile's whole chains, chainsrc.h).  One lookup per frame; the caller
 * frees it.
 */
uint32_t *symview__frame_map(const struct symview *v);

/* Display name of an entry: the symbol, or "[unknown]". */
const char *symview__entry_name(const struct symview *v, uint32_t entry);
const char *symview__entry_dso(const struct symview *v, uint32_t entry);

/*
 * Leaf weights per symnode (array of v->nr_nodes, zeroed here) of one
 * event, one run (or SYMVIEW_ALL_RUNS), summed over comms; period or
 * sample counts.  Returns the total (the sum of w).
 */
double symview__weights(const struct symview *v, uint32_t run, uint32_t event,
			bool use_period, double *w);
/*
 * The same total exactly, for printing: symview__weights' double rounds
 * a sum above 2^53 (a cell of 2^63 - 1 read ...808).  The loader keeps
 * all counts together below 2^63, so no sum of them wraps.
 */
uint64_t symview__total(const struct symview *v, uint32_t run, uint32_t event, bool use_period);
/*
 * The same for the counts listed (indices into the profile's counts, in
 * that order: a (run, event)'s part of an index grouped by them), so that
 * a caller passing over every run touches each count once, not once per
 * run.
 */
double symview__weights_of(const struct symview *v, const uint32_t *counts, size_t n,
			   bool use_period, double *w);
/* The same for the counts first .. first + n - 1 (a profile's counts already grouped by run and event). */
double symview__weights_span(const struct symview *v, size_t first, size_t n, bool use_period,
			     double *w);
/*
 * From leaf weights w: sub[q] = weight of q's subtree; inner[q] = weight of
 * samples whose innermost occurrence of q's entry is q (a callee-ordered
 * chain from q to the root, perf's folded line); children[e] (nr_entries)
 * = weight of samples with entry e anywhere (once per sample); self[e].
 * Any output may be NULL.  sub may be w itself: w is then summed in place
 * (its leaf weights are gone afterwards), one array of nodes less; inner
 * may be sub itself too (the subtree weights are then gone as well: each
 * symnode's is read before any below it takes its part, ids in order).
 */
void symview__cumulate(const struct symview *v, const double *w, double *sub,
		       double *inner, double *children, double *self);
/*
 * perf report --sort=dso,symbol's entries (the robot's mode): [entry] the
 * entry perf merges it into, the first of its (DSO file name, symbol) in
 * entry order; the caller frees it.
 */
uint32_t *symview__dso_reps(const struct symview *v);

#endif
