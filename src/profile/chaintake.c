/*
 * chaintake: a stream of whole chains into p's bounded trie (chaintake.h
 * says what is made and why).  A node of src's own trie is named by its
 * rank in the stream's depth-first order (a chain of lcp l adds its
 * frames l+1 .. nr as the next ranks), the same in both walks, so that
 * the first walk can hand the second the kept nodes as a sorted list of
 * ranks: the second meets them in that order.  Whether a node of p is
 * heavy is known only after its subtree's chains, in post-order: walk 1
 * leaves p's nodes' weights in an array over them for walk 2.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mmprof/chainsrc.h"
#include "mmprof/chaintake.h"
#include "mmprof/profile.h"
#include "mmprof/xalloc.h"

/* The weights' histogram: a bucket each below EXACT, then STEPS an octave. */
#define EXACT_LOG 12u
#define EXACT (1u << EXACT_LOG)
#define STEP_LOG 6u
#define STEPS (1u << STEP_LOG)
#define NB (EXACT + (64u - EXACT_LOG) * STEPS)	/* buckets; NB: no new node kept */

static uint32_t bucket(uint64_t w)
{
	uint32_t k;

	if (w < EXACT)
		return (uint32_t)w;
	k = 63u - (uint32_t)__builtin_clzll(w);
	return EXACT + (k - EXACT_LOG) * STEPS + (uint32_t)((w >> (k - STEP_LOG)) & (STEPS - 1));
}

/* The least weight of bucket b: the threshold T that keeps buckets b and up. */
static uint64_t bucket_low(uint32_t b)
{
	uint32_t k, sub;

	if (b < EXACT)
		return b;
	if (b >= NB)
		return UINT64_MAX;
	k = EXACT_LOG + (b - EXACT) / STEPS;
	sub = (b - EXACT) % STEPS;
	return (uint64_t)(STEPS + sub) << (k - STEP_LOG);
}

static uint64_t add_sat(uint64_t a, uint64_t b)
{
	return a > UINT64_MAX - b ? UINT64_MAX : a + b;
}

static bool bit_get(const uint64_t *bits, uint64_t i)
{
	return bits[i / 64] >> (i % 64) & 1;
}

static void bit_set(uint64_t *bits, uint64_t i)
{
	bits[i / 64] |= 1ull << (i % 64);
}

static void bit_clear(uint64_t *bits, uint64_t i)
{
	bits[i / 64] &= ~(1ull << (i % 64));
}

/* One node of the current path (path[0] is the root). */
struct step {
	uint64_t rank;		/* in src's depth-first order */
	uint64_t w;		/* walk 1: src's samples through the node so far */
	uint64_t out;		/* walk 1: chains through it that leave p's trie (a new node) */
	uint64_t child_cost;	/* walk 1: the leaves made of its new children left out */
	uint32_t frame;
	uint32_t node;		/* p's node when in_p */
	uint32_t nkids;		/* walk 1: its children's entries on t->kids */
	bool in_p;		/* in p: there at the start (or, walk 2, kept and made) */
	bool heavy;		/* walk 2: weight >= T (the root: always) */
	bool ends;		/* walk 1: a chain ends here */
};

struct heavy {
	uint64_t w, rank;
};

/* Walk 1: a child of a node of the path, with chains that leave p's trie. */
struct kid {
	uint32_t b;		/* its weight's bucket */
	uint64_t deep;		/* its chains elided when it is light */
};

struct take {
	struct profile *p;
	size_t max_nodes;
	uint32_t n0, nr_frames0;
	/* p's nodes' weights: their own cells' samples, then (walk 1) plus src's */
	uint64_t *wp;
	struct step *path;
	size_t alloc_path;
	uint32_t depth;
	uint64_t ordinal, rank;

	/* sampled frames of src; those with no child of the root at the start */
	uint64_t *leaf_seen, *cut_pending;
	size_t cut_words;
	uint64_t nr_leaf;
	size_t cut_left;

	/* walk 1 */
	uint64_t *hist;
	int64_t *cost;		/* differences: the bound at bucket b is cost[0..b] summed */
	struct kid *kids;	/* a stack: the path's nodes' children done, theirs on top */
	size_t nr_kids, alloc_kids;
	struct heavy *heap;	/* a min-heap of the heaviest new nodes, heap_cap at most */
	size_t nr_heap, alloc_heap, heap_cap;
	uint64_t nr_new, max_w;	/* max_w: the heaviest node of src's paths but the root */

	/* walk 2 */
	uint64_t *kept;		/* ranks of the new nodes made, ascending */
	size_t nr_kept, next_kept, kept_left;
	uint64_t threshold;
	uint32_t elided_frame;	/* UINT32_MAX until made */
	uint64_t *elided;	/* bitmap over src's ordinals */
	uint64_t nr_chains1;
	struct chainsrc out;	/* what p->whole yields: its counts */
	struct chaintake_stats st;
};

static int path_check(struct take *t, const struct chain_rec *c)
{
	uint32_t i;

	if (c->ordinal != t->ordinal || c->nr < 1 || c->nr > PROFILE_MAX_DEPTH || c->nr_cells < 1 ||
	    c->lcp > t->depth || c->lcp >= c->nr || (!t->ordinal && c->lcp))
		return -EPROTO;
	/* the order: after the shared frames, a greater one (or the one before ended) */
	if (t->ordinal && c->lcp < t->depth && c->frames[c->lcp] <= t->path[c->lcp + 1].frame)
		return -EPROTO;
	for (i = 0; i < c->lcp; i++)
		if (c->frames[i] != t->path[i + 1].frame)
			return -EPROTO;
	for (i = c->lcp; i < c->nr; i++)
		if (c->frames[i] >= t->nr_frames0)
			return -EPROTO;
	t->ordinal++;
	XGROW(t->path, t->alloc_path, c->nr);
	return 0;
}

static uint64_t cells_samples(const struct chain_rec *c)
{
	uint64_t s = 0;
	uint32_t i;

	for (i = 0; i < c->nr_cells; i++)
		s = add_sat(s, c->cells[i].samples);
	return s;
}

static void heap_offer(struct take *t, uint64_t w, uint64_t rank)
{
	struct heavy *h;
	size_t i = 0;

	if (!t->heap_cap)
		return;
	if (t->nr_heap < t->heap_cap) {
		XGROW(t->heap, t->alloc_heap, t->nr_heap);
		h = t->heap;
		for (i = t->nr_heap++; i && h[(i - 1) / 2].w > w; i = (i - 1) / 2)
			h[i] = h[(i - 1) / 2];
		h[i] = (struct heavy){ w, rank };
		return;
	}
	h = t->heap;
	if (w <= h[0].w)
		return;
	for (;;) {
		size_t l = 2 * i + 1, m = i;

		if (l < t->nr_heap && h[l].w < w)
			m = l;
		if (l + 1 < t->nr_heap && h[l + 1].w < (m == i ? w : h[m].w))
			m = l + 1;
		if (m == i)
			break;
		h[i] = h[m];
		i = m;
	}
	h[i] = (struct heavy){ w, rank };
}

static int kid_cmp(const void *a, const void *b)
{
	const struct kid *x = a, *y = b;

	return x->b < y->b ? -1 : x->b > y->b;
}

/*
 * Walk 1: a node of bucket b is done, its n children's entries on top of
 * t->kids.  At a threshold of bucket bt <= b (the node heavy), its
 * children of bucket < bt are light, and the chains through them that
 * leave p's trie hang under it: one [elided] and a leaf node per chain,
 * at most per sampled frame of src so far (the leaves under one [elided]
 * are distinct frames).  A step function of bt, into t->cost.
 */
static void elision_bound(struct take *t, uint32_t b, uint32_t n)
{
	struct kid *k = t->kids + t->nr_kids - n;
	uint64_t sum = 0, prev = 0;
	uint32_t i, j;

	if (n > 16) {
		qsort(k, n, sizeof(*k), kid_cmp);
	} else {
		for (i = 1; i < n; i++) {
			struct kid x = k[i];

			for (j = i; j && k[j - 1].b > x.b; j--)
				k[j] = k[j - 1];
			k[j] = x;
		}
	}
	for (i = 0; i < n && k[i].b < b; i++) {
		uint64_t c;

		sum = add_sat(sum, k[i].deep);
		c = 1 + (sum < t->nr_leaf ? sum : t->nr_leaf);
		t->cost[k[i].b + 1] += (int64_t)(c - prev);
		prev = c;
	}
	t->cost[b + 1] -= (int64_t)prev;
	t->nr_kids -= n;
}

/*
 * Walk 1: the deepest node of the path is done; its weight is final.  At
 * a threshold T in (its weight, its parent's], s is light under a heavy
 * parent: a new s where a chain ends is made as the leaf, and the chains
 * through s that leave p's trie hang under the parent (elision_bound).
 */
static void pop1(struct take *t)
{
	struct step *s = &t->path[t->depth], *par = &t->path[t->depth - 1];
	uint64_t w = s->in_p ? add_sat(t->wp[s->node], s->w) : s->w;
	uint64_t deep = s->in_p ? s->out : s->out - s->ends;
	uint64_t ends = s->in_p ? 0 : s->ends;
	uint32_t b = bucket(w);

	if (s->in_p) {
		t->wp[s->node] = w;
	} else {
		t->hist[b]++;
		t->nr_new++;
		heap_offer(t, w, s->rank);
	}
	if (w > t->max_w)
		t->max_w = w;
	t->cost[b + 1] += (int64_t)ends;
	par->child_cost += ends;
	/* the children's leaves count while s is heavy */
	t->cost[b + 1] -= (int64_t)s->child_cost;
	elision_bound(t, b, s->nkids);
	if (deep) {
		XGROW(t->kids, t->alloc_kids, t->nr_kids);
		t->kids[t->nr_kids++] = (struct kid){ b, deep };
		par->nkids++;
	}
	par->w = add_sat(par->w, s->w);
	par->out += s->out;
	t->depth--;
}

static void push(struct take *t, uint32_t frame)
{
	struct step *s = &t->path[++t->depth];

	*s = (struct step){ .rank = t->rank++, .frame = frame };
}

static int walk1(void *ctx, const struct chain_rec *c)
{
	struct take *t = ctx;
	int err = path_check(t, c);
	uint32_t leaf, d;

	if (err)
		return err;
	leaf = c->frames[c->nr - 1];
	while (t->depth > c->lcp)
		pop1(t);
	for (d = c->lcp + 1; d <= c->nr; d++) {
		struct step *par = &t->path[d - 1], *s;
		uint32_t u = par->in_p ? profile__child(t->p, par->node, c->frames[d - 1]) : 0;

		push(t, c->frames[d - 1]);
		s = &t->path[d];
		s->in_p = u != PROFILE_ROOT;
		s->node = u;
	}
	t->path[c->nr].ends = true;
	t->path[c->nr].out += !t->path[c->nr].in_p;
	t->path[c->nr].w = add_sat(t->path[c->nr].w, cells_samples(c));
	if (!bit_get(t->leaf_seen, leaf)) {
		bit_set(t->leaf_seen, leaf);
		t->nr_leaf++;
		if (!profile__child(t->p, PROFILE_ROOT, leaf)) {
			bit_set(t->cut_pending, leaf);
			t->cut_left++;
		}
	}
	return 0;
}

static int rank_cmp(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* The threshold from walk 1's histogram, and the ranks kept at it. */
static void choose(struct take *t)
{
	size_t room = t->max_nodes > t->n0 ? t->max_nodes - t->n0 : 0, i;
	uint64_t kept = t->nr_new;
	int64_t bound = 0;
	uint32_t b, top = t->ordinal ? bucket(t->max_w) + 1 : 0;

	/* top: no node heavy but the root (so no new node kept) */
	for (b = 0; b <= top; b++) {
		bound += t->cost[b];
		if (kept + (uint64_t)(bound > 0 ? bound : 0) <= room)
			break;
		if (b < top)
			kept -= t->hist[b];
	}
	t->threshold = b < top		   ? bucket_low(b) :
		       !t->ordinal	   ? 0 :
		       t->max_w < UINT64_MAX ? t->max_w + 1 :
					     UINT64_MAX;
	/* at a threshold that fits, no chain is cut: no room held for cuts */
	if (b <= top) {
		memset(t->cut_pending, 0, t->cut_words * sizeof(uint64_t));
		t->cut_left = 0;
	}
	for (i = 0; i < t->nr_heap; i++)
		if (t->heap[i].w >= t->threshold)
			t->heap[t->nr_kept++].rank = t->heap[i].rank;
	t->kept = xmalloc((t->nr_kept ? t->nr_kept : 1) * sizeof(*t->kept));
	for (i = 0; i < t->nr_kept; i++)
		t->kept[i] = t->heap[i].rank;
	qsort(t->kept, t->nr_kept, sizeof(*t->kept), rank_cmp);
	free(t->heap);
	t->heap = NULL;
	t->kept_left = t->nr_kept;
}

/* Nodes (parent, frame) costs beyond the reservations: 0 when there or reserved. */
static size_t need(struct take *t, uint32_t parent, uint32_t frame)
{
	if (profile__child(t->p, parent, frame))
		return 0;
	if (parent == PROFILE_ROOT && frame < t->nr_frames0 && bit_get(t->cut_pending, frame))
		return 0;
	return 1;
}

static bool fits(const struct take *t, size_t n)
{
	return !n || t->p->nr_nodes + n + t->kept_left + t->cut_left <= t->max_nodes;
}

static uint32_t make(struct take *t, uint32_t parent, uint32_t frame)
{
	size_t before = t->p->nr_nodes;
	uint32_t u = profile__node(t->p, parent, frame);

	if (t->p->nr_nodes > before && parent == PROFILE_ROOT && frame < t->nr_frames0 &&
	    bit_get(t->cut_pending, frame)) {
		bit_clear(t->cut_pending, frame);
		t->cut_left--;
	}
	return u;
}

static uint32_t elided_frame(struct take *t)
{
	if (t->elided_frame == UINT32_MAX) {
		uint32_t s = profile__intern(t->p, PROFILE_ELIDED);
		struct frame f = { .addr = PROFILE_ELIDED_ADDR, .sym = s, .dso = s };

		t->elided_frame = profile__frame(t->p, &f);
	}
	return t->elided_frame;
}

static int walk2(void *ctx, const struct chain_rec *c)
{
	struct take *t = ctx;
	struct profile *p = t->p;
	uint32_t leaf, kd, d, node;
	uint64_t samples;
	int err;

	if (c->ordinal >= t->nr_chains1)
		return -EPROTO;
	err = path_check(t, c);
	if (err)
		return err;
	leaf = c->frames[c->nr - 1];
	t->depth = c->lcp;
	for (d = c->lcp + 1; d <= c->nr; d++) {
		struct step *par = &t->path[d - 1], *s;
		uint64_t rank = t->rank;
		uint32_t u = par->in_p ? profile__child(p, par->node, c->frames[d - 1]) : 0;

		push(t, c->frames[d - 1]);
		s = &t->path[d];
		if (u != PROFILE_ROOT && u < t->n0) {
			s->in_p = true;
			s->node = u;
			s->heavy = t->wp[u] >= t->threshold;
		} else if (par->in_p && t->next_kept < t->nr_kept && t->kept[t->next_kept] == rank) {
			t->next_kept++;
			t->kept_left--;
			s->in_p = true;
			s->heavy = true;
			s->node = make(t, par->node, c->frames[d - 1]);
		}
	}
	/* the deepest heavy node: made (p's, or new and kept) */
	for (kd = c->nr; !t->path[kd].heavy; kd--)
		;
	samples = cells_samples(c);
	node = PROFILE_ROOT;
	if (t->path[c->nr].in_p) {
		node = t->path[c->nr].node;
	} else if (kd + 1 == c->nr) {
		if (fits(t, need(t, t->path[kd].node, leaf)))
			node = make(t, t->path[kd].node, leaf);
	} else {
		/* the [elided] frame made only when used: 2 nodes until then */
		uint32_t k = t->path[kd].node, ef = t->elided_frame, e = 0;
		size_t n = 2;

		if (ef != UINT32_MAX) {
			e = profile__child(p, k, ef);
			n = need(t, k, ef) + (e ? need(t, e, leaf) : 1);
		}
		if (fits(t, n)) {
			node = make(t, make(t, k, elided_frame(t)), leaf);
			bit_set(t->elided, c->ordinal);
			t->st.elided_chains++;
			t->st.elided_samples += samples;
			t->out.nr_chains++;
			t->out.nr_frames += c->nr;
			t->out.samples += samples;
		}
	}
	if (node == PROFILE_ROOT) {
		node = make(t, PROFILE_ROOT, leaf);
		t->st.cut_samples += samples;
	}
	for (d = 0; d < c->nr_cells; d++) {
		const struct chain_cell *x = &c->cells[d];

		profile__add_count(p, x->run, x->event, x->comm, x->pid, node, x->samples, x->period);
	}
	return 0;
}

/* p->whole: src's elided chains, lcp and ordinal over what it yields. */
struct whole {
	struct chainsrc src;
	struct chainsrc *from;
	uint64_t *elided;
	uint64_t nr_from;
};

struct whole_walk {
	const struct whole *w;
	chain_fn fn;
	void *ctx;
	uint64_t ordinal;
	uint32_t lcp;		/* least lcp since the chain yielded last */
};

static int whole_chain(void *ctx, const struct chain_rec *c)
{
	struct whole_walk *ww = ctx;
	struct chain_rec r;

	if (c->ordinal >= ww->w->nr_from)
		return -EPROTO;
	if (c->lcp < ww->lcp)
		ww->lcp = c->lcp;
	if (!bit_get(ww->w->elided, c->ordinal))
		return 0;
	r = *c;
	r.lcp = ww->ordinal ? ww->lcp : 0;
	r.ordinal = ww->ordinal++;
	ww->lcp = UINT32_MAX;
	return ww->fn(ww->ctx, &r);
}

static int whole_each(struct chainsrc *src, chain_fn fn, void *ctx)
{
	struct whole *w = (struct whole *)src;
	struct whole_walk ww = { .w = w, .fn = fn, .ctx = ctx, .lcp = UINT32_MAX };

	return chainsrc__each(w->from, whole_chain, &ww);
}

static void whole_release(struct chainsrc *src)
{
	struct whole *w = (struct whole *)src;

	chainsrc__release(w->from);
	free(w->elided);
	free(w);
}

static void set_meta_u64(struct profile *p, const char *key, uint64_t v)
{
	char buf[24];

	snprintf(buf, sizeof(buf), "%" PRIu64, v);
	profile__set_meta(p, key, buf);
}

int profile__take_chains(struct profile *p, struct chainsrc *src, size_t max_nodes,
			 struct chaintake_stats *st)
{
	struct take t = {
		.p = p,
		.max_nodes = max_nodes < PROFILE_MAX_ROWS ? max_nodes : PROFILE_MAX_ROWS,
		.n0 = (uint32_t)p->nr_nodes,
		.nr_frames0 = (uint32_t)p->nr_frames,
		.elided_frame = UINT32_MAX,
	};
	size_t fwords = (p->nr_frames + 63) / 64 + 1, i;
	int err;

	if (p->whole) {
		chainsrc__release(src);
		return -EEXIST;
	}
	t.wp = xcalloc(t.n0 ? t.n0 : 1, sizeof(*t.wp));
	for (i = 0; i < p->nr_counts; i++)
		if (p->counts[i].node < t.n0)
			t.wp[p->counts[i].node] = add_sat(t.wp[p->counts[i].node], p->counts[i].samples);
	for (i = t.n0; i-- > 1;)
		t.wp[p->nodes[i].parent] = add_sat(t.wp[p->nodes[i].parent], t.wp[i]);
	t.leaf_seen = xcalloc(fwords, sizeof(uint64_t));
	t.cut_pending = xcalloc(fwords, sizeof(uint64_t));
	t.cut_words = fwords;
	t.hist = xcalloc(NB + 2, sizeof(*t.hist));
	t.cost = xcalloc(NB + 2, sizeof(*t.cost));
	XGROW(t.path, t.alloc_path, 0);
	t.path[0] = (struct step){ .in_p = true, .heavy = true, .node = PROFILE_ROOT };
	/* kept nodes: the room at most */
	t.heap_cap = t.max_nodes > t.n0 ? t.max_nodes - t.n0 : 0;

	err = chainsrc__each(src, walk1, &t);
	if (err)
		goto out;
	while (t.depth)
		pop1(&t);
	/* the root: heavy at every threshold */
	elision_bound(&t, NB, t.path[0].nkids);
	t.nr_chains1 = t.ordinal;
	choose(&t);

	t.elided = xcalloc(t.nr_chains1 / 64 + 1, sizeof(uint64_t));
	t.depth = 0;
	t.ordinal = 0;
	t.rank = 0;
	err = chainsrc__each(src, walk2, &t);
	if (!err && (t.ordinal != t.nr_chains1 || t.next_kept != t.nr_kept))
		err = -EPROTO;
	if (err)
		goto out;

	t.st.chains = t.nr_chains1;
	t.st.threshold = t.threshold;
	t.st.nodes_added = p->nr_nodes - t.n0;
	if (t.st.elided_chains) {
		struct whole *w = xcalloc(1, sizeof(*w));

		w->src = t.out;
		w->src.each = whole_each;
		w->src.release = whole_release;
		w->from = src;
		w->elided = t.elided;
		w->nr_from = t.nr_chains1;
		t.elided = NULL;
		src = NULL;
		p->whole = &w->src;
		set_meta_u64(p, "chains_elided", t.st.elided_samples);
		set_meta_u64(p, "chains_elided_below", t.threshold);
	}
	if (st)
		*st = t.st;
out:
	chainsrc__release(src);
	free(t.elided);
	free(t.kept);
	free(t.heap);
	free(t.kids);
	free(t.cost);
	free(t.hist);
	free(t.path);
	free(t.cut_pending);
	free(t.leaf_seen);
	free(t.wp);
	return err;
}
