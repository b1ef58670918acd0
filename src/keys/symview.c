/*
 * symview: the profile's address trie collapsed to symbols; see
 * include/mmprof/symview.h.
 *
 * Recursion and "count once per sample" are solved once, at build time:
 * same_anc links every symnode to its nearest ancestor with the same
 * entry (one iterative DFS keeping, per entry, the innermost open node).
 * Then children%, self% and perf's folded chain weights are sums over
 * symnodes in id order, independent of stack depth.
 */
#include <stdlib.h>
#include <string.h>

#include "mmprof/symview.h"
#include "mmprof/xalloc.h"

struct entry_key {
	uint32_t dso, sym;
};

static bool entry_eq(const void *ctx, uint32_t row, const void *key)
{
	const struct symview_entry *e = &((const struct symview *)ctx)->entries[row];
	const struct entry_key *k = key;

	return e->dso == k->dso && e->sym == k->sym;
}

static bool symnode_eq(const void *ctx, uint32_t row, const void *key)
{
	const struct symnode *a = &((const struct symview *)ctx)->nodes[row];
	const struct symnode *b = key;

	return a->parent == b->parent && a->entry == b->entry;
}

/*
 * What only the build needs, per symnode: its child list and how many
 * children it has (12 bytes a symnode, given back before the view is
 * used unless the caller asks for the lists: symview_opts.children).
 */
struct symbuild {
	uint32_t *first_child, *next_sibling, *nr_children;
	size_t alloc;
};

static void symbuild__reserve(struct symbuild *b, size_t n)
{
	if (n <= b->alloc)
		return;
	b->alloc = n;
	b->first_child = xrealloc(b->first_child, n * sizeof(*b->first_child));
	b->next_sibling = xrealloc(b->next_sibling, n * sizeof(*b->next_sibling));
	b->nr_children = xrealloc(b->nr_children, n * sizeof(*b->nr_children));
}

static uint32_t entry_of(struct symview *v, const struct frame *f)
{
	struct entry_key k = { f->dso, f->sym };
	uint64_t h;
	uint32_t id;

	if (!f->sym && !v->unknown_by_dso)
		k.dso = 0;	/* every unresolved frame is the one "[unknown]" */
	h = hash__u64(((uint64_t)k.dso << 32) | k.sym);
	id = hashidx__find(&v->entry_idx, h, entry_eq, v, &k);
	if (id != HASHIDX_NONE)
		return id;
	XGROW(v->entries, v->alloc_entries, v->nr_entries);
	id = (uint32_t)v->nr_entries++;
	v->entries[id].dso = k.dso;
	v->entries[id].sym = k.sym;
	v->entries[id].kernel = f->kernel;
	hashidx__insert(&v->entry_idx, h, id);
	return id;
}

/*
 * Most symnodes have a handful of children, so a child is looked up along
 * its parent's list (first_child/next_sibling, rebuilt in id order once the
 * trie is complete); only a parent with more than FEW_CHILDREN children
 * has its children in node_idx, so a hostile or very flat trie stays
 * linear.  Hashing every node cost a tenth of a report.  Ids come out the
 * same whichever way the lookup goes.
 */
#define FEW_CHILDREN 8

static void symnode__index(struct symview *v, uint32_t id)
{
	const struct symnode *n = &v->nodes[id];

	hashidx__insert(&v->node_idx, hash__u64(((uint64_t)n->parent << 32) | n->entry), id);
}

static uint32_t symnode_of(struct symview *v, struct symbuild *b, uint32_t parent,
			   uint32_t entry)
{
	struct symnode k = { .parent = parent, .entry = entry };
	uint32_t *nr_children = b->nr_children;
	uint32_t id, c;

	if (nr_children[parent] <= FEW_CHILDREN) {
		for (c = b->first_child[parent]; c != SYMVIEW_NONE; c = b->next_sibling[c])
			if (v->nodes[c].entry == entry)
				return c;
	} else {
		id = hashidx__find(&v->node_idx, hash__u64(((uint64_t)parent << 32) | entry),
				   symnode_eq, v, &k);
		if (id != HASHIDX_NONE)
			return id;
	}
	XGROW(v->nodes, v->alloc_nodes, v->nr_nodes);
	id = (uint32_t)v->nr_nodes++;
	k.same_anc = SYMVIEW_NONE;
	v->nodes[id] = k;
	b->first_child[id] = SYMVIEW_NONE;
	b->next_sibling[id] = b->first_child[parent];
	b->first_child[parent] = id;
	nr_children[id] = 0;
	if (++nr_children[parent] == FEW_CHILDREN + 1) {
		for (c = b->first_child[parent]; c != SYMVIEW_NONE; c = b->next_sibling[c])
			symnode__index(v, c);
	} else if (nr_children[parent] > FEW_CHILDREN + 1) {
		symnode__index(v, id);
	}
	return id;
}

/* same_anc for every symnode: DFS with, per entry, the innermost open node. */
static void link_same_ancestors(struct symview *v, const uint32_t *first_child,
				const uint32_t *next_sibling)
{
	uint32_t *top = xmalloc((v->nr_entries + 1) * sizeof(*top));
	uint32_t *stack = xmalloc(v->nr_nodes * sizeof(*stack));
	uint32_t *iter = xmalloc(v->nr_nodes * sizeof(*iter));
	size_t sp = 1, i;

	for (i = 0; i < v->nr_entries; i++)
		top[i] = SYMVIEW_NONE;
	stack[0] = 0;
	iter[0] = first_child[0];
	while (sp) {
		uint32_t q = stack[sp - 1], c = iter[sp - 1];
		struct symnode *n;

		if (c == SYMVIEW_NONE) {
			if (q)
				top[v->nodes[q].entry] = v->nodes[q].same_anc;
			sp--;
			continue;
		}
		iter[sp - 1] = next_sibling[c];
		n = &v->nodes[c];
		n->same_anc = top[n->entry];
		top[n->entry] = c;
		stack[sp] = c;
		iter[sp] = first_child[c];
		sp++;
	}
	free(top);
	free(stack);
	free(iter);
}

/*
 * A trie of one address per symbol collapses to itself: node_map and
 * node_keep then say nothing (5 bytes a node, 5.7 MB of a diff of two
 * 573,060-node files while its keys are diffed) and go.
 */
static void symview__identity(struct symview *v)
{
	const struct profile *p = v->p;
	size_t i;

	if (!p->nr_nodes || v->nr_nodes != p->nr_nodes || v->node_keep[0])
		return;
	for (i = 1; i < p->nr_nodes; i++)
		if (v->node_map[i] != i || !v->node_keep[i])
			return;
	free(v->node_map);
	free(v->node_keep);
	v->node_map = NULL;
	v->node_keep = NULL;
}

void symview__init(struct symview *v, const struct profile *p, bool keep_unresolved)
{
	struct symview_opts o = { .keep_unresolved = keep_unresolved };

	symview__init_opts(v, p, &o);
}

void symview__init_inline(struct symview *v, const struct profile *p, bool keep_unresolved,
			  bool keep_inline)
{
	struct symview_opts o = { .keep_unresolved = keep_unresolved, .keep_inline = keep_inline };

	symview__init_opts(v, p, &o);
}

/*
 * The stack of profile node leaf cut to its innermost v->max_stack frames,
 * entered from the root: its symnode in node_map, whether its samples count
 * in node_keep (the rule of the whole-stack pass: a skipped inline frame
 * defers to its caller, a skipped unresolved one drops the sample).
 * b grows with the symnodes it may add.
 */
static void symview__cut_stack(struct symview *v, const uint32_t *frame_entry, struct symbuild *b,
			       uint32_t leaf, uint32_t *path)
{
	const struct profile *p = v->p;
	uint32_t q = leaf, cur = 0, n = 0, j;

	while (q != PROFILE_ROOT && n < v->max_stack) {
		path[n++] = q;
		q = p->nodes[q].parent;
	}
	if (b->alloc < v->nr_nodes + n + 1)
		symbuild__reserve(b, 2 * (v->nr_nodes + n + 1));
	for (j = n; j-- > 0;) {
		uint32_t f = p->nodes[path[j]].frame;
		uint32_t e = f < p->nr_frames ? frame_entry[f] : SYMVIEW_NONE;

		if (e != SYMVIEW_NONE)
			cur = symnode_of(v, b, cur, e);
	}
	v->node_map[leaf] = cur;
	v->node_keep[leaf] = 0;
	for (j = 0; j < n; j++) {
		uint32_t f = p->nodes[path[j]].frame;

		if (f < p->nr_frames && frame_entry[f] != SYMVIEW_NONE) {
			v->node_keep[leaf] = 1;
			break;
		}
		if (f >= p->nr_frames || !p->frames[f].inlined)
			break;
	}
	v->nr_cut++;
}

/* v empty but for the root symnode, with o's choices (a build's start). */
static void symview__start(struct symview *v, const struct profile *p, const struct symview_opts *o)
{
	memset(v, 0, sizeof(*v));
	v->p = p;
	v->keep_unresolved = o->keep_unresolved;
	v->keep_inline = o->keep_inline;
	v->unknown_by_dso = o->keep_unresolved && o->unknown_by_dso;
	v->max_stack = o->max_stack;
	hashidx__init(&v->entry_idx);
	hashidx__init(&v->node_idx);
	XGROW(v->nodes, v->alloc_nodes, 0);
	v->nodes[0] = (struct symnode){ .parent = 0, .entry = SYMVIEW_NONE,
		.same_anc = SYMVIEW_NONE };
	v->nr_nodes = 1;
}

/* Whether a view of these choices keeps frame f as an entry of its own. */
static bool frame_kept(const struct frame *f, bool keep_unresolved, bool keep_inline)
{
	return (f->sym || keep_unresolved) && (keep_inline || !f->inlined);
}

/*
 * [frame] its entry, SYMVIEW_NONE for a frame v skips; the entries are
 * numbered in frame order, every frame's, whether a node has it or not.
 */
static uint32_t *symview__frame_entries(struct symview *v, const struct symview_opts *o)
{
	const struct profile *p = v->p;
	uint32_t *frame_entry = xmalloc((p->nr_frames + 1) * sizeof(*frame_entry));
	size_t i;

	for (i = 0; i < p->nr_frames; i++)
		/* skipped frames hand their samples to the frame above */
		frame_entry[i] = frame_kept(&p->frames[i], o->keep_unresolved, o->keep_inline) ?
				 entry_of(v, &p->frames[i]) : SYMVIEW_NONE;
	return frame_entry;
}

/* Room for n symnodes at once, root included, and their build lists. */
static void symview__reserve(struct symview *v, struct symbuild *b, size_t n)
{
	if (n > v->alloc_nodes) {
		v->nodes = xrealloc(v->nodes, n * sizeof(*v->nodes));
		v->alloc_nodes = n;
	}
	symbuild__reserve(b, n + 1);
	b->nr_children[0] = 0;
	b->first_child[0] = SYMVIEW_NONE;
}

/* Once every symnode is in: same_anc, the identity check, b given back. */
static void symview__finish(struct symview *v, struct symbuild *b, const struct symview_opts *o)
{
	size_t i;

	free(b->nr_children);
	XSHRINK(v->nodes, v->alloc_nodes, v->nr_nodes);
	/* the lookups are the build's alone */
	hashidx__release(&v->entry_idx);
	hashidx__release(&v->node_idx);

	/* child lists in increasing id order: push front while walking down */
	for (i = 0; i < v->nr_nodes; i++)
		b->first_child[i] = SYMVIEW_NONE;
	for (i = v->nr_nodes; i-- > 1;) {
		uint32_t parent = v->nodes[i].parent;

		b->next_sibling[i] = b->first_child[parent];
		b->first_child[parent] = (uint32_t)i;
	}
	link_same_ancestors(v, b->first_child, b->next_sibling);
	symview__identity(v);
	if (o->children) {
		v->first_child = xrealloc(b->first_child, (v->nr_nodes + 1) * sizeof(*v->first_child));
		v->next_sibling = xrealloc(b->next_sibling, (v->nr_nodes + 1) * sizeof(*v->next_sibling));
	} else {
		free(b->first_child);
		free(b->next_sibling);
	}
}

void symview__init_opts(struct symview *v, const struct profile *p, const struct symview_opts *o)
{
	struct symbuild b = { 0 };
	uint32_t *frame_entry;
	size_t i;

	symview__start(v, p, o);
	frame_entry = symview__frame_entries(v, o);
	v->node_map = xcalloc(p->nr_nodes ? p->nr_nodes : 1, sizeof(*v->node_map));
	v->node_keep = xcalloc(p->nr_nodes ? p->nr_nodes : 1, sizeof(*v->node_keep));
	/*
	 * At most one symnode per profile node, plus the root: reserve that
	 * once rather than doubling (a doubled array of a 500 k-node trie is
	 * 12 MB of zeroed slack), and give back what is left after the build.
	 */
	symview__reserve(v, &b, p->nr_nodes);
	for (i = 1; i < p->nr_nodes; i++) {
		const struct stack_node *n = &p->nodes[i];
		uint32_t e = n->frame < p->nr_frames ? frame_entry[n->frame] : SYMVIEW_NONE;

		/* deeper than max_stack: only a stack's own leaf, cut below */
		if (v->max_stack && n->depth > v->max_stack)
			continue;
		if (e == SYMVIEW_NONE) {
			v->node_map[i] = v->node_map[n->parent];
			/* a skipped inline frame: its samples are the real function's */
			if (n->frame < p->nr_frames && p->frames[n->frame].inlined)
				v->node_keep[i] = v->node_keep[n->parent];
			continue;
		}
		v->node_map[i] = symnode_of(v, &b, v->node_map[n->parent], e);
		v->node_keep[i] = 1;
	}
	if (v->max_stack) {
		uint8_t *cut = xcalloc(p->nr_nodes ? p->nr_nodes : 1, 1);
		uint32_t *path = xmalloc(((size_t)v->max_stack + 1) * sizeof(*path));

		for (i = 0; i < p->nr_counts; i++) {
			uint32_t q = p->counts[i].node;

			if (q >= p->nr_nodes || p->nodes[q].depth <= v->max_stack || cut[q])
				continue;
			cut[q] = 1;
			symview__cut_stack(v, frame_entry, &b, q, path);
		}
		free(path);
		free(cut);
	}
	free(frame_entry);
	symview__finish(v, &b, o);
}

uint32_t *symview__frame_map(const struct symview *v)
{
	const struct profile *p = v->p;
	uint32_t *map = xmalloc((p->nr_frames + 1) * sizeof(*map));
	struct hashidx idx;
	size_t i;

	hashidx__init(&idx);
	for (i = 0; i < v->nr_entries; i++)
		hashidx__insert(&idx, hash__u64(((uint64_t)v->entries[i].dso << 32) |
						v->entries[i].sym), (uint32_t)i);
	for (i = 0; i < p->nr_frames; i++) {
		const struct frame *f = &p->frames[i];
		struct entry_key k = { f->dso, f->sym };
		uint32_t e;

		map[i] = SYMVIEW_NONE;
		if (!frame_kept(f, v->keep_unresolved, v->keep_inline))
			continue;
		if (!f->sym && !v->unknown_by_dso)
			k.dso = 0;	/* entry_of's key */
		e = hashidx__find(&idx, hash__u64(((uint64_t)k.dso << 32) | k.sym), entry_eq, v, &k);
		map[i] = e == HASHIDX_NONE ? SYMVIEW_NONE : e;
	}
	hashidx__release(&idx);
	return map;
}

/* Is frame f an entry of a view with these choices (symview__init_opts' rule)? */
#define ENTRY_UNSEEN (SYMVIEW_NONE - 1)

/*
 * v as symview__init_opts(v, from->p, o) builds it, from the finer view
 * from: one lookup per symnode of from, not per profile node, then one
 * pass over the profile's nodes with none.  Ids come out the same: a
 * profile node's symnode in v is a function M of its symnode in from
 * (from skips no frame v keeps, and the frames of one entry of from are
 * all kept or all skipped by v, and keyed alike), so v's symnode
 * (M(parent), entry) is first seen, walking from's symnodes in id order,
 * where the build first sees it walking profile nodes: at the first
 * profile node of the first of from's symnodes that M sends there.
 * Entries are numbered from the frames as the build does (every frame,
 * in frame order).  Whether a node's samples count (a skipped inline
 * frame defers to its caller, a skipped unresolved one drops them) is
 * the build's rule, node by node.
 *
 * Returns false, v released, where M is no function: a frame v keeps and
 * from skips (from without unresolved or inline frames), or one entry of
 * from whose frames v treats apart (a function both inlined and called,
 * v without inline frames; from's one "[unknown]" that v splits by DSO;
 * checked over every frame, a node's or not).  Cut stacks (max_stack)
 * are the build's last pass, per sampled leaf after the whole trie, and
 * a cut stack's symnodes follow an order that from's ids do not give:
 * those views are built from the profile.
 */
static bool symview__derive_walk(struct symview *v, const struct symview *from,
			      const struct symview_opts *o)
{
	const struct profile *p = from->p;
	uint32_t *frame_entry, *fine_entry, *map = NULL;
	struct symbuild b = { 0 };
	struct hashidx idx;
	size_t i;

	hashidx__init(&idx);
	if (o->max_stack || from->max_stack)
		return false;
	symview__start(v, p, o);
	frame_entry = symview__frame_entries(v, o);
	/*
	 * [entry of from] its entry in v, SYMVIEW_NONE where v skips it: the
	 * frames' entries of from found again by key (frames are few beside
	 * nodes: 20,192 against 573,060 on the bench pair).
	 */
	fine_entry = xmalloc((from->nr_entries + 1) * sizeof(*fine_entry));
	for (i = 0; i < from->nr_entries; i++) {
		fine_entry[i] = ENTRY_UNSEEN;
		hashidx__insert(&idx, hash__u64(((uint64_t)from->entries[i].dso << 32) |
						from->entries[i].sym), (uint32_t)i);
	}
	for (i = 0; i < p->nr_frames; i++) {
		const struct frame *f = &p->frames[i];
		struct entry_key k = { f->dso, f->sym };
		uint32_t fe;

		if (!frame_kept(f, from->keep_unresolved, from->keep_inline)) {
			if (frame_entry[i] != SYMVIEW_NONE)
				goto fail;
			continue;
		}
		if (!f->sym && !from->unknown_by_dso)
			k.dso = 0;
		fe = hashidx__find(&idx, hash__u64(((uint64_t)k.dso << 32) | k.sym), entry_eq, from, &k);
		if (fe == HASHIDX_NONE)
			goto fail;
		if (fine_entry[fe] == ENTRY_UNSEEN)
			fine_entry[fe] = frame_entry[i];
		else if (fine_entry[fe] != frame_entry[i])
			goto fail;
	}
	hashidx__release(&idx);

	map = xmalloc(from->nr_nodes * sizeof(*map));
	map[0] = 0;
	symview__reserve(v, &b, from->nr_nodes);
	for (i = 1; i < from->nr_nodes; i++) {
		const struct symnode *n = &from->nodes[i];
		uint32_t e = fine_entry[n->entry];

		if (e == ENTRY_UNSEEN)
			goto fail;	/* a symnode no profile node made */
		map[i] = e == SYMVIEW_NONE ? map[n->parent] : symnode_of(v, &b, map[n->parent], e);
	}

	v->node_map = xcalloc(p->nr_nodes ? p->nr_nodes : 1, sizeof(*v->node_map));
	v->node_keep = xcalloc(p->nr_nodes ? p->nr_nodes : 1, sizeof(*v->node_keep));
	for (i = 1; i < p->nr_nodes; i++) {
		const struct stack_node *n = &p->nodes[i];

		v->node_map[i] = map[symview__symnode(from, (uint32_t)i)];
		if (n->frame < p->nr_frames && frame_entry[n->frame] != SYMVIEW_NONE)
			v->node_keep[i] = 1;
		else if (n->frame < p->nr_frames && p->frames[n->frame].inlined)
			v->node_keep[i] = v->node_keep[n->parent];
	}
	free(map);
	free(fine_entry);
	free(frame_entry);
	symview__finish(v, &b, o);
	return true;
fail:
	hashidx__release(&idx);
	free(b.first_child);
	free(b.next_sibling);
	free(b.nr_children);
	free(map);
	free(fine_entry);
	free(frame_entry);
	symview__release(v);
	return false;
}

bool symview__derive(struct symview *v, const struct symview *from, const struct symview_opts *o)
{
	const struct profile *p = from->p;
	bool by_dso = o->keep_unresolved && o->unknown_by_dso, unresolved = false;
	size_t i;

	/*
	 * The build's ids depend on which frames are entries and how an
	 * unresolved one is keyed, and on nothing else of the choices: the
	 * same answers for every frame make the same view.
	 */
	for (i = 0; i < p->nr_frames; i++) {
		const struct frame *f = &p->frames[i];
		bool kept = frame_kept(f, o->keep_unresolved, o->keep_inline);

		if (kept != frame_kept(f, from->keep_unresolved, from->keep_inline))
			break;
		unresolved |= kept && !f->sym;
	}
	if (i < p->nr_frames || (unresolved && by_dso != from->unknown_by_dso) ||
	    o->max_stack != from->max_stack || (o->children && !from->first_child)) {
		if (!symview__derive_walk(v, from, o))
			symview__init_opts(v, p, o);
		return false;
	}
	*v = *from;
	v->keep_unresolved = o->keep_unresolved;
	v->keep_inline = o->keep_inline;
	v->unknown_by_dso = by_dso;
	v->borrowed = true;
	return true;
}

void symview__release(struct symview *v)
{
	if (!v)
		return;
	if (v->borrowed) {
		memset(v, 0, sizeof(*v));
		return;
	}
	free(v->entries);
	free(v->nodes);
	free(v->node_map);
	free(v->node_keep);
	free(v->first_child);
	free(v->next_sibling);
	hashidx__release(&v->entry_idx);
	hashidx__release(&v->node_idx);
	memset(v, 0, sizeof(*v));
}

const char *symview__entry_name(const struct symview *v, uint32_t entry)
{
	const char *s = entry < v->nr_entries ? profile__str(v->p, v->entries[entry].sym) : NULL;

	return s ? s : "[unknown]";
}

const char *symview__entry_dso(const struct symview *v, uint32_t entry)
{
	const char *s = entry < v->nr_entries ? profile__str(v->p, v->entries[entry].dso) : NULL;

	return s ? s : "[unknown]";
}

/* Count c's period (or samples) on its symnode in w: what it adds, 0 when its samples do not count. */
static double add_leaf(const struct symview *v, const struct count *c, bool use_period, double *w)
{
	double x;

	if (c->node >= v->p->nr_nodes || !symview__counts(v, c->node))
		return 0;
	x = use_period ? (double)c->period : (double)c->samples;
	w[symview__symnode(v, c->node)] += x;
	return x;
}

double symview__weights(const struct symview *v, uint32_t run, uint32_t event,
			bool use_period, double *w)
{
	const struct profile *p = v->p;
	double total = 0;
	size_t i;

	memset(w, 0, v->nr_nodes * sizeof(*w));
	for (i = 0; i < p->nr_counts; i++) {
		const struct count *c = &p->counts[i];

		if (c->event == event && (run == SYMVIEW_ALL_RUNS || c->run == run))
			total += add_leaf(v, c, use_period, w);
	}
	return total;
}

uint64_t symview__total(const struct symview *v, uint32_t run, uint32_t event, bool use_period)
{
	const struct profile *p = v->p;
	uint64_t total = 0;
	size_t i;

	for (i = 0; i < p->nr_counts; i++) {
		const struct count *c = &p->counts[i];

		if (c->event == event && (run == SYMVIEW_ALL_RUNS || c->run == run) &&
		    c->node < p->nr_nodes && symview__counts(v, c->node))
			total += use_period ? c->period : c->samples;
	}
	return total;
}

double symview__weights_of(const struct symview *v, const uint32_t *counts, size_t n,
			   bool use_period, double *w)
{
	const struct profile *p = v->p;
	double total = 0;
	size_t i;

	memset(w, 0, v->nr_nodes * sizeof(*w));
	for (i = 0; i < n; i++)
		if (counts[i] < p->nr_counts)
			total += add_leaf(v, &p->counts[counts[i]], use_period, w);
	return total;
}

double symview__weights_span(const struct symview *v, size_t first, size_t n, bool use_period,
			     double *w)
{
	const struct profile *p = v->p;
	double total = 0;
	size_t i;

	memset(w, 0, v->nr_nodes * sizeof(*w));
	for (i = first; i < first + n; i++)
		if (i < p->nr_counts)
			total += add_leaf(v, &p->counts[i], use_period, w);
	return total;
}

void symview__cumulate(const struct symview *v, const double *w, double *sub,
		       double *inner, double *children, double *self)
{
	double *s = sub ? sub : xmalloc(v->nr_nodes * sizeof(*s));
	bool in_place = s == w;
	size_t i;

	if (self)
		memset(self, 0, v->nr_entries * sizeof(*self));
	/* summed over in place below: the leaves' weights are read first */
	for (i = 1; self && in_place && i < v->nr_nodes; i++)
		self[v->nodes[i].entry] += w[i];
	if (!in_place)
		memcpy(s, w, v->nr_nodes * sizeof(*s));
	for (i = v->nr_nodes; i-- > 1;)
		s[v->nodes[i].parent] += s[i];
	if (children)
		memset(children, 0, v->nr_entries * sizeof(*children));
	if (inner && inner != s)
		memcpy(inner, s, v->nr_nodes * sizeof(*inner));
	for (i = 1; i < v->nr_nodes; i++) {
		const struct symnode *n = &v->nodes[i];

		/* the outermost occurrence carries the whole subtree once */
		if (children && n->same_anc == SYMVIEW_NONE)
			children[n->entry] += s[i];
		/* samples under an inner occurrence belong to that one's chain */
		if (inner && n->same_anc != SYMVIEW_NONE)
			inner[n->same_anc] -= s[i];
		if (self && !in_place)
			self[n->entry] += w[i];
	}
	if (!sub)
		free(s);
}

struct dso_key {
	const char *base;	/* the DSO's file name, perf's short name */
	uint32_t sym, entry;
};

static const char *dso_base(const char *dso)
{
	const char *slash = strrchr(dso, '/');

	return slash ? slash + 1 : dso;
}

static int dso_key_cmp(const void *a, const void *b)
{
	const struct dso_key *x = a, *y = b;
	int d = strcmp(x->base, y->base);

	if (d)
		return d;
	if (x->sym != y->sym)
		return x->sym < y->sym ? -1 : 1;
	return x->entry < y->entry ? -1 : x->entry > y->entry;
}

/*
 * perf report --sort=dso,symbol (not -v) compares DSOs by their short
 * name (sort.c, _sort__dso_cmp): the same function of two files called
 * hot, or of two libc.so.6 of two containers, is one entry, printed
 * once, and the robot reads that one two-decimal share.  Each entry's
 * representative: the first of its (file name, symbol), in entry order.
 * perf also wants the symbol at one address of the file (copies of one
 * build); entries keep no such address, so two builds of one file name
 * are merged here and apart to perf (lkp-compat.md).
 */
uint32_t *symview__dso_reps(const struct symview *v)
{
	struct dso_key *k = xmalloc((v->nr_entries + 1) * sizeof(*k));
	uint32_t *rep = xmalloc((v->nr_entries + 1) * sizeof(*rep));
	size_t i, j;

	for (i = 0; i < v->nr_entries; i++)
		k[i] = (struct dso_key){ dso_base(symview__entry_dso(v, (uint32_t)i)),
					 v->entries[i].sym, (uint32_t)i };
	qsort(k, v->nr_entries, sizeof(*k), dso_key_cmp);
	for (i = 0; i < v->nr_entries; i = j)
		for (j = i; j < v->nr_entries && k[j].sym == k[i].sym &&
			    !strcmp(k[j].base, k[i].base); j++)
			rep[k[j].entry] = k[i].entry;
	free(k);
	return rep;
}
