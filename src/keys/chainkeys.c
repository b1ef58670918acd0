/*
 * chainkeys: what a profile's whole chains (p->whole, chainsrc.h) add to
 * its perf-profile keys; see keys-int.h.
 *
 * The trie of a bounded recording holds some chains as "kept prefix ->
 * [elided] -> sampled frame".  Their children shares need every function
 * of the whole chain, and their calltrace lines the whole symbol path to
 * each function's innermost occurrence, which the stream alone has.  One
 * walk of the stream computes, chain by chain (its depth in memory), the
 * chain's symbol path as the view's build would (skipped frames, the
 * sampled frame's rule), each distinct entry's innermost occurrence, and
 * adds the chain's cells to rows per (run, event) slot: the slot's total,
 * the entries' children and self, and each occurrence's inner weight,
 * under v's own symnode where v has that symbol path (so that it adds to
 * the trie's own inner weight there before perf's 0.5 % floor), else
 * under the path itself, known by a hash of its entries and its last
 * CHAINKEYS_TAIL of them (the key's name).  A symbol path beyond v may
 * gather many light address paths (calltrace is per symbol path): the
 * floor is applied to the sum, as with every chain whole in the trie.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "mmprof/chainsrc.h"
#include "mmprof/keys.h"
#include "mmprof/xalloc.h"
#include "keys-int.h"

#define SKETCH_DEPTH 4
#define SKETCH_MIN ((size_t)1 << 10)
#define SKETCH_MAX ((size_t)1 << 18)	/* counters a row: 8 MB in all */

struct chainkey_path {
	uint64_t hash;		/* of every entry of the path, root first */
	uint32_t tail[CHAINKEYS_TAIL];	/* its innermost entries, innermost first */
	uint32_t nr;
};

struct chainkeys {
	const struct symview *v;
	size_t nr_slots;
	double *total;			/* [slot] */
	struct chainkey_row *rows;	/* by slot, then kind and id */
	size_t nr_rows, alloc_rows;
	size_t *slot_start;		/* [slot] .. [slot + 1] */
	struct chainkey_path *paths;
	size_t nr_paths, alloc_paths;
	uint8_t *node_elided;		/* [profile node] its path holds "[elided]" */
	uint64_t lost;
	int err;
	int pass;			/* 1: every row but the paths', 2: the paths'; 0: entries only */
	chain_entries_fn entries_fn;	/* pass 0's reader (chainkeys__each_entries) */
	void *entries_ctx;
	/*
	 * Pass 1 adds every path's inner weight, per slot, to a count-min
	 * sketch (SKETCH_DEPTH rows of counters): its estimate of a path is
	 * never below the path's weight, so pass 2 keeps exactly the paths
	 * whose estimate reaches their slot's floor, a superset of those
	 * perf's 0.5 % keeps.
	 */
	uint64_t *sketch;
	size_t sketch_mask;
	double *floor_w;		/* [slot] a path under it is no line */

	/* the walk's own, given back after it */
	struct hashidx row_idx, path_idx, node_idx;
	uint32_t *frame_entry;		/* symview__frame_map */
	uint8_t *entry_drops;		/* [entry] drops a calltrace line */
	uint32_t *stamp, gen;		/* [entry] seen in this chain */
	/* [position in the chain's symbol path] */
	uint32_t *seq, *vq, *occ, *pid, *ent;
	uint64_t *hash;
	uint8_t *drop;
	size_t alloc_seq;
	/* the last chain read whole: its frames, [i] its entries among frames 0 .. i - 1 */
	uint32_t *prev, *kept_upto, prev_nr, prev_s0;
};

static bool node_eq(const void *ctx, uint32_t row, const void *key)
{
	const struct symnode *a = &((const struct symview *)ctx)->nodes[row];
	const struct symnode *b = key;

	return a->parent == b->parent && a->entry == b->entry;
}

static uint64_t node_hash(uint32_t parent, uint32_t entry)
{
	return hash__u64(((uint64_t)parent << 32) | entry);
}

/* v's symnode (parent, entry), SYMVIEW_NONE where v has none. */
static uint32_t child_of(const struct chainkeys *ck, uint32_t parent, uint32_t entry)
{
	struct symnode k = { .parent = parent, .entry = entry };
	uint32_t id = hashidx__find(&ck->node_idx, node_hash(parent, entry), node_eq, ck->v, &k);

	return id == HASHIDX_NONE ? SYMVIEW_NONE : id;
}

static bool row_eq(const void *ctx, uint32_t row, const void *key)
{
	const struct chainkey_row *a = &((const struct chainkeys *)ctx)->rows[row];
	const struct chainkey_row *b = key;

	return a->slot == b->slot && a->kind == b->kind && a->id == b->id;
}

static void add_row(struct chainkeys *ck, uint32_t slot, uint32_t kind, uint32_t id, double w)
{
	struct chainkey_row k = { slot, kind, id, 0 };
	uint64_t h = hash__combine(hash__u64(((uint64_t)slot << 2) | kind), id);
	uint32_t row = hashidx__find(&ck->row_idx, h, row_eq, ck, &k);

	if (row == HASHIDX_NONE) {
		XGROW(ck->rows, ck->alloc_rows, ck->nr_rows);
		row = (uint32_t)ck->nr_rows++;
		ck->rows[row] = k;
		hashidx__insert(&ck->row_idx, h, row);
	}
	ck->rows[row].w += w;
}

static bool path_eq(const void *ctx, uint32_t row, const void *key)
{
	const struct chainkey_path *a = &((const struct chainkeys *)ctx)->paths[row];
	const struct chainkey_path *b = key;

	return a->hash == b->hash && a->nr == b->nr &&
	       !memcmp(a->tail, b->tail, a->nr * sizeof(*a->tail));
}

/* The path of the chain's symbol path up to position j; SYMVIEW_NONE past the budget. */
static uint32_t path_of(struct chainkeys *ck, uint32_t j)
{
	struct chainkey_path k = { .hash = ck->hash[j] };
	uint32_t id;

	for (; k.nr < CHAINKEYS_TAIL && k.nr <= j; k.nr++)
		k.tail[k.nr] = ck->seq[j - k.nr];
	id = hashidx__find(&ck->path_idx, k.hash, path_eq, ck, &k);
	if (id != HASHIDX_NONE)
		return id;
	if (ck->nr_paths >= CHAINKEYS_MAX_PATHS)
		return SYMVIEW_NONE;
	XGROW(ck->paths, ck->alloc_paths, ck->nr_paths);
	id = (uint32_t)ck->nr_paths++;
	ck->paths[id] = k;
	hashidx__insert(&ck->path_idx, k.hash, id);
	return id;
}

static void reserve_chain(struct chainkeys *ck, size_t n)
{
	if (n <= ck->alloc_seq)
		return;
	ck->alloc_seq = n * 2;
	ck->seq = xrealloc(ck->seq, ck->alloc_seq * sizeof(*ck->seq));
	ck->vq = xrealloc(ck->vq, ck->alloc_seq * sizeof(*ck->vq));
	ck->occ = xrealloc(ck->occ, ck->alloc_seq * sizeof(*ck->occ));
	ck->pid = xrealloc(ck->pid, ck->alloc_seq * sizeof(*ck->pid));
	ck->hash = xrealloc(ck->hash, ck->alloc_seq * sizeof(*ck->hash));
	ck->drop = xrealloc(ck->drop, ck->alloc_seq * sizeof(*ck->drop));
	ck->ent = xrealloc(ck->ent, ck->alloc_seq * sizeof(*ck->ent));
	ck->prev = xrealloc(ck->prev, ck->alloc_seq * sizeof(*ck->prev));
	ck->kept_upto = xrealloc(ck->kept_upto, (ck->alloc_seq + 1) * sizeof(*ck->kept_upto));
	ck->kept_upto[0] = 0;
}

static uint64_t sketch_key(const struct chainkeys *ck, uint32_t j, uint32_t slot)
{
	return hash__combine(ck->hash[j], slot);
}

static void sketch_add(struct chainkeys *ck, uint64_t key, uint64_t w)
{
	size_t d;

	for (d = 0; d < SKETCH_DEPTH; d++) {
		uint64_t *x = &ck->sketch[d * (ck->sketch_mask + 1) + (hash__combine(key, d) & ck->sketch_mask)];

		/* saturated, never wrapped: an estimate stays at or above the weight */
		*x = *x + w < *x ? UINT64_MAX : *x + w;
	}
}

static uint64_t sketch_get(const struct chainkeys *ck, uint64_t key)
{
	uint64_t est = UINT64_MAX;
	size_t d;

	for (d = 0; d < SKETCH_DEPTH; d++) {
		uint64_t x = ck->sketch[d * (ck->sketch_mask + 1) + (hash__combine(key, d) & ck->sketch_mask)];

		if (x < est)
			est = x;
	}
	return est;
}

/* One whole chain: its symbol path, then its cells on the slots' rows. */
static int add_chain(void *ctx, const struct chain_rec *c)
{
	struct chainkeys *ck = ctx;
	const struct symview *v = ck->v;
	const struct profile *p = v->p;
	uint32_t s0 = 0, m, nocc = 0, j, i, same = 0;
	bool counts = false;

	/* as deep as the view's stacks go (perf report --max-stack) */
	if (v->max_stack && c->nr > v->max_stack)
		s0 = c->nr - v->max_stack;
	/* do its samples count?  A skipped inline frame defers to its caller, another drops them */
	for (j = c->nr; j-- > s0;) {
		uint32_t f = c->frames[j];

		if (f < p->nr_frames && ck->frame_entry[f] != SYMVIEW_NONE) {
			counts = true;
			break;
		}
		if (f >= p->nr_frames || !p->frames[f].inlined)
			break;
	}
	if (!counts)
		return 0;
	reserve_chain(ck, c->nr);
	/*
	 * The frames this chain shares with the last one read whole (found
	 * here, not taken from the source's lcp) keep their positions: a
	 * stream of chains in order shares most of each path with the one
	 * before, and v's symnode of each position is a hash lookup.
	 */
	if (!s0 && !ck->prev_s0)
		while (same < c->nr && same < ck->prev_nr && ck->prev[same] == c->frames[same])
			same++;
	m = ck->kept_upto[same];
	for (j = same > s0 ? same : s0; j < c->nr; j++) {
		uint32_t f = c->frames[j], e;

		ck->prev[j] = f;
		if (f < p->nr_frames && (e = ck->frame_entry[f]) != SYMVIEW_NONE) {
			uint32_t up;

			ck->seq[m] = e;
			if (!ck->pass) {	/* entries only: no symnode, no path */
				ck->kept_upto[j + 1] = ++m;
				continue;
			}
			up = m ? ck->vq[m - 1] : 0;
			ck->vq[m] = up == SYMVIEW_NONE ? SYMVIEW_NONE : child_of(ck, up, e);
			ck->drop[m] = (m && ck->drop[m - 1]) || ck->entry_drops[e];
			ck->hash[m] = hash__combine(m ? ck->hash[m - 1] : 0x6368616eull, e);
			m++;
		}
		ck->kept_upto[j + 1] = m;
	}
	ck->prev_nr = s0 ? 0 : c->nr;
	ck->prev_s0 = s0;
	if (!++ck->gen) {	/* wrapped: forget every stamp */
		memset(ck->stamp, 0, (v->nr_entries + 1) * sizeof(*ck->stamp));
		ck->gen = 1;
	}
	/* each entry once, at its innermost occurrence (perf's he_cache; inner's rule) */
	for (j = m; j-- > 0;) {
		uint32_t e = ck->seq[j];

		if (ck->stamp[e] == ck->gen)
			continue;
		ck->stamp[e] = ck->gen;
		ck->ent[nocc] = e;
		ck->occ[nocc++] = j;
		ck->pid[j] = SYMVIEW_NONE;
	}
	if (!ck->pass) {
		struct chain_entries ce = { .entries = ck->ent, .nr = nocc, .self = ck->seq[m - 1],
					    .cells = c->cells, .nr_cells = c->nr_cells,
					    .nr_frames = c->nr };

		ck->entries_fn(ck->entries_ctx, &ce);
		return 0;
	}
	for (i = 0; i < c->nr_cells; i++) {
		const struct chain_cell *cell = &c->cells[i];
		double x = (double)cell->period;
		uint32_t slot, k;

		if (cell->run >= p->nr_runs || cell->event >= p->nr_events)
			continue;	/* in no slot, as a count of no run or event */
		slot = (uint32_t)(cell->run * p->nr_events + cell->event);
		if (ck->pass == 1) {
			ck->total[slot] += x;
			add_row(ck, slot, CHAINKEY_SELF, ck->seq[m - 1], x);
		}
		for (k = 0; k < nocc; k++) {
			j = ck->occ[k];
			if (ck->pass == 1)
				add_row(ck, slot, CHAINKEY_CHILDREN, ck->seq[j], x);
			if (ck->drop[j])
				continue;
			if (ck->vq[j] != SYMVIEW_NONE) {
				if (ck->pass == 1)
					add_row(ck, slot, CHAINKEY_INNER, ck->vq[j], x);
				continue;
			}
			if (ck->pass == 1) {
				sketch_add(ck, sketch_key(ck, j, slot), cell->period);
				continue;
			}
			if ((double)sketch_get(ck, sketch_key(ck, j, slot)) < ck->floor_w[slot])
				continue;	/* surely under perf's floor */
			if (ck->pid[j] == SYMVIEW_NONE)
				ck->pid[j] = path_of(ck, j);
			if (ck->pid[j] != SYMVIEW_NONE)
				add_row(ck, slot, CHAINKEY_PATH, ck->pid[j], x);
			else
				ck->lost += cell->period;
		}
	}
	return 0;
}

/*
 * After pass 1: each slot's floor of perf's calltrace lines (keys.c's
 * min_hit over the slot's total: the trie's cells not under "[elided]"
 * and the chains'), a hair under it so that a sum in another order
 * cannot lose a line; pass 2 is needed when some path was sketched.
 */
static bool sketched(struct chainkeys *ck)
{
	const struct symview *v = ck->v;
	const struct profile *p = v->p;
	size_t i;

	for (i = 0; i <= ck->sketch_mask; i++)
		if (ck->sketch[i])
			break;
	if (i > ck->sketch_mask)
		return false;
	ck->floor_w = xcalloc(ck->nr_slots + 1, sizeof(*ck->floor_w));
	for (i = 0; i < ck->nr_slots; i++)
		ck->floor_w[i] = ck->total[i];
	for (i = 0; i < p->nr_counts; i++) {
		const struct count *c = &p->counts[i];

		if (c->run < p->nr_runs && c->event < p->nr_events && c->node < p->nr_nodes &&
		    symview__counts(v, c->node) && !ck->node_elided[c->node])
			ck->floor_w[c->run * p->nr_events + c->event] += (double)c->period;
	}
	for (i = 0; i < ck->nr_slots; i++) {
		double f = floor(ck->floor_w[i] * (KEYS_CALLTRACE_CUT / 100.0) * (1 - 1e-9));

		ck->floor_w[i] = f > 1 ? f : 1;
	}
	ck->pass = 2;
	return true;
}

static int row_cmp(const void *a, const void *b)
{
	const struct chainkey_row *x = a, *y = b;

	if (x->slot != y->slot)
		return x->slot < y->slot ? -1 : 1;
	if (x->kind != y->kind)
		return x->kind < y->kind ? -1 : 1;
	return x->id < y->id ? -1 : x->id > y->id;
}

static void drop_walk(struct chainkeys *ck)
{
	hashidx__release(&ck->row_idx);
	hashidx__release(&ck->path_idx);
	hashidx__release(&ck->node_idx);
	free(ck->frame_entry);
	free(ck->entry_drops);
	free(ck->stamp);
	free(ck->seq);
	free(ck->vq);
	free(ck->occ);
	free(ck->pid);
	free(ck->hash);
	free(ck->drop);
	free(ck->ent);
	ck->ent = NULL;
	free(ck->prev);
	free(ck->kept_upto);
	ck->prev = ck->kept_upto = NULL;
	ck->prev_nr = 0;
	free(ck->sketch);
	free(ck->floor_w);
	ck->sketch = NULL;
	ck->floor_w = NULL;
	ck->frame_entry = ck->stamp = ck->seq = ck->vq = ck->occ = ck->pid = NULL;
	ck->entry_drops = ck->drop = NULL;
	ck->hash = NULL;
}

struct chainkeys *chainkeys__new(const struct symview *v, bool robot)
{
	const struct profile *p = v->p;
	struct chainkeys *ck;
	size_t i, s, w;

	if (!p->whole || (uint64_t)p->nr_runs * p->nr_events >= UINT32_MAX)
		return NULL;
	ck = xcalloc(1, sizeof(*ck));
	ck->v = v;
	ck->nr_slots = p->nr_runs * p->nr_events;
	ck->total = xcalloc(ck->nr_slots + 1, sizeof(*ck->total));
	hashidx__init(&ck->row_idx);
	hashidx__init(&ck->path_idx);
	hashidx__init(&ck->node_idx);
	ck->frame_entry = symview__frame_map(v);
	ck->entry_drops = xcalloc(v->nr_entries + 1, 1);
	ck->stamp = xcalloc(v->nr_entries + 1, sizeof(*ck->stamp));
	for (i = 0; i < v->nr_entries; i++)
		ck->entry_drops[i] = keys__frame_drops_chain(symview__entry_name(v, (uint32_t)i), robot);
	for (w = SKETCH_MIN; w < SKETCH_MAX && w < p->whole->nr_frames; w *= 2)
		;
	ck->sketch = xcalloc(SKETCH_DEPTH * w, sizeof(*ck->sketch));
	ck->sketch_mask = w - 1;
	for (i = 1; i < v->nr_nodes; i++)
		hashidx__insert(&ck->node_idx, node_hash(v->nodes[i].parent, v->nodes[i].entry),
				(uint32_t)i);
	/* by the profile's node, not the symnode: a view's cut stack may leave "[elided]" out */
	ck->node_elided = profile__elided_nodes(p);

	ck->pass = 1;
	ck->err = chainsrc__each(p->whole, add_chain, ck);
	if (!ck->err && sketched(ck))
		ck->err = chainsrc__each(p->whole, add_chain, ck);
	drop_walk(ck);
	if (ck->nr_rows)
		qsort(ck->rows, ck->nr_rows, sizeof(*ck->rows), row_cmp);
	ck->slot_start = xcalloc(ck->nr_slots + 1, sizeof(*ck->slot_start));
	for (i = 0, s = 0; s <= ck->nr_slots; s++) {
		while (i < ck->nr_rows && ck->rows[i].slot < s)
			i++;
		ck->slot_start[s] = i;
	}
	return ck;
}

int chainkeys__each_entries(const struct symview *v, chain_entries_fn fn, void *ctx)
{
	struct chainkeys ck = { .v = v, .entries_fn = fn, .entries_ctx = ctx };
	int err;

	if (!v->p->whole)
		return 0;
	ck.frame_entry = symview__frame_map(v);
	ck.stamp = xcalloc(v->nr_entries + 1, sizeof(*ck.stamp));
	err = chainsrc__each(v->p->whole, add_chain, &ck);
	drop_walk(&ck);
	return err;
}

void chainkeys__free(struct chainkeys *ck)
{
	if (!ck)
		return;
	drop_walk(ck);
	free(ck->total);
	free(ck->rows);
	free(ck->slot_start);
	free(ck->paths);
	free(ck->node_elided);
	free(ck);
}

bool chainkeys__skip(const struct chainkeys *ck, uint32_t node)
{
	return ck && node < ck->v->p->nr_nodes && ck->node_elided[node];
}

double chainkeys__slot(const struct chainkeys *ck, size_t s, const struct chainkey_row **rows,
		       size_t *nr)
{
	if (!ck || s >= ck->nr_slots) {
		*rows = NULL;
		*nr = 0;
		return 0;
	}
	*rows = ck->rows + ck->slot_start[s];
	*nr = ck->slot_start[s + 1] - ck->slot_start[s];
	return ck->total[s];
}

size_t chainkeys__tail(const struct chainkeys *ck, uint32_t path, const uint32_t **entries)
{
	*entries = ck->paths[path].tail;
	return ck->paths[path].nr;
}

uint64_t chainkeys__lost(const struct chainkeys *ck)
{
	return ck ? ck->lost : 0;
}

int chainkeys__error(const struct chainkeys *ck)
{
	return ck ? ck->err : 0;
}
