/*
 * folded: `mmprof report --folded`, one "root;...;leaf count" line per
 * distinct symbol stack, the input of flamegraph.pl and difffolded.pl.
 *
 * Unlike the LKP view, unresolved frames stay (as "[unknown]", the name
 * stackcollapse-perf.pl uses) so that the widths add up to every sample.
 * Lines are sorted (strcmp), as stackcollapse sorts them, which also makes
 * the output stable for tests and diffs.  Counts are integers: samples,
 * or periods with --period.
 *
 * A profile whose trie holds some chains only in part (chainsrc.h) is
 * folded from the trie's cells that are not under an "[elided]" node and
 * p->whole's chains in their place (wholestack.h): a chain is collapsed
 * as the view collapses a trie node, frame by frame, to a symnode of the
 * view's or to one added past them, so that it lands on the same line as
 * the trie's stacks of the same symbols, and lines stay one per distinct
 * stack.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "mmprof/report.h"
#include "mmprof/symview.h"
#include "mmprof/wholestack.h"
#include "mmprof/xalloc.h"

struct fline {
	uint32_t comm, node;	/* comm string id (0 without --comm), symnode */
	uint64_t count;
};

struct fset {
	struct fline *lines;
	size_t nr, alloc;
	struct hashidx idx;
};

static bool fline_eq(const void *ctx, uint32_t row, const void *key)
{
	const struct fline *a = &((const struct fset *)ctx)->lines[row];
	const struct fline *b = key;

	return a->comm == b->comm && a->node == b->node;
}

/* The line of (comm, node), added with count 0 when new. */
static struct fline *fset__line(struct fset *s, uint32_t comm, uint32_t node)
{
	struct fline k = { comm, node, 0 };
	uint64_t h = hash__u64(((uint64_t)comm << 32) | node);
	uint32_t row = hashidx__find(&s->idx, h, fline_eq, s, &k);

	if (row == HASHIDX_NONE) {
		XGROW(s->lines, s->alloc, s->nr);
		row = (uint32_t)s->nr++;
		s->lines[row] = k;
		hashidx__insert(&s->idx, h, row);
	}
	return &s->lines[row];
}

static void fset__add(struct fset *s, uint32_t comm, uint32_t node, uint64_t count)
{
	fset__line(s, comm, node)->count += count;
}

/*
 * The symnodes of a fold: the view's, then those that p->whole's chains
 * add past them (ids v->nr_nodes on, the same rule: (parent, entry)).
 */
struct fold {
	const struct symview *v;
	const struct folded_opts *o;
	struct fset *set;
	struct symnode *ext;	/* [id - v->nr_nodes] */
	size_t nr_ext, alloc_ext;
	uint32_t *depth;	/* [symnode] its frames */
	size_t alloc_depth;
	struct hashidx idx;	/* (parent, entry) -> symnode, the view's and ext */
	uint32_t *frame_entry;	/* symview__frame_map */
	/* the walk's path: [d] the symnode of the chain's first d frames, and
	 * whether a sample there counts; valid for the first path_ok + 1 */
	uint32_t *path;
	uint8_t *keep;
	size_t alloc_path, path_ok;
	uint64_t frames;	/* the frames of the lines with a count */
};

static const struct symnode *fold__node(const struct fold *f, uint32_t q)
{
	return q < f->v->nr_nodes ? &f->v->nodes[q] : &f->ext[q - f->v->nr_nodes];
}


struct text {
	char *s;
	uint64_t count;
};

static int text_cmp(const void *a, const void *b)
{
	return strcmp(((const struct text *)a)->s, ((const struct text *)b)->s);
}

/*
 * "comm;root;...;leaf" of a line, allocated.  No name may add a frame, a
 * field or a line: each goes through the text rule (escape.h: a newline
 * is \x0a), with ';' as ':' (perf's stackcollapse.py) and, in the comm, ' '
 * as '_' (stackcollapse-perf.pl).  Spaces in frames stay (C++ names have
 * them): every reader of folded lines takes the count after the last one.
 */
static char *line_text(const struct fold *f, const struct fline *l, uint32_t *path)
{
	const struct symview *v = f->v;
	const char *comm = l->comm ? profile__str(v->p, l->comm) : NULL;
	struct outbuf s = { 0 };
	size_t n = 0, i;
	uint32_t q;

	for (q = l->node; q; q = fold__node(f, q)->parent)
		path[n++] = fold__node(f, q)->entry;
	if (comm) {
		outbuf__text_swap(&s, comm, ";: _");
		outbuf__putc(&s, ';');
	}
	for (i = n; i-- > 0;) {
		outbuf__text_swap(&s, symview__entry_name(v, path[i]), ";:");
		if (i)
			outbuf__putc(&s, ';');
	}
	if (!s.s)
		outbuf__add(&s, "", 0);
	return s.s;	/* the caller's */
}

/*
 * The frames the lines of s print, each line its stack's depth: the lines
 * are held whole to be sorted, so this is their memory too.  A symnode's
 * depth is its stack's frames.
 */
static uint64_t folded_frames(const struct symview *v, const struct fset *s, uint32_t **depth_out)
{
	uint32_t *depth = xmalloc((v->nr_nodes + 1) * sizeof(*depth));
	uint64_t frames = 0;
	size_t i;

	depth[0] = 0;
	for (i = 1; i < v->nr_nodes; i++)	/* parents first */
		depth[i] = depth[v->nodes[i].parent] + 1;
	for (i = 0; i < s->nr; i++)
		if (s->lines[i].count && s->lines[i].node < v->nr_nodes)
			frames += depth[s->lines[i].node];
	if (depth_out)
		*depth_out = depth;	/* the caller's */
	else
		free(depth);
	return frames;
}

static bool fold_node_eq(const void *ctx, uint32_t row, const void *key)
{
	const struct symnode *a = fold__node(ctx, row), *b = key;

	return a->parent == b->parent && a->entry == b->entry;
}

/* The symnode (parent, entry), added past the view's when new. */
static uint32_t fold__child(struct fold *f, uint32_t parent, uint32_t entry)
{
	struct symnode k = { .parent = parent, .entry = entry, .same_anc = SYMVIEW_NONE };
	uint64_t h = hash__u64(((uint64_t)parent << 32) | entry);
	uint32_t id = hashidx__find(&f->idx, h, fold_node_eq, f, &k);

	if (id != HASHIDX_NONE)
		return id;
	XGROW(f->ext, f->alloc_ext, f->nr_ext);
	f->ext[f->nr_ext] = k;
	id = (uint32_t)(f->v->nr_nodes + f->nr_ext++);
	XGROW(f->depth, f->alloc_depth, id);
	f->depth[id] = f->depth[parent] + 1;
	hashidx__insert(&f->idx, h, id);
	return id;
}

static bool fold__takes(const struct folded_opts *o, const struct chain_cell *c)
{
	return (o->event < 0 || c->event == (uint32_t)o->event) &&
	       (o->run < 0 || c->run == (uint32_t)o->run) && (!o->one_pid || c->pid == o->pid);
}

/*
 * One chain of p->whole onto the lines: its frames collapsed as the view
 * collapses a trie node's (symview__init_opts: a skipped frame is its
 * caller's symnode, a skipped inline leaf's samples its caller's, a
 * skipped unresolved one's dropped), the path of the chain before reused
 * up to their common frames (lcp).  -E2BIG once the lines with a count
 * pass REPORT_MAX_FOLDED_FRAMES: the symnodes added are frames of those
 * lines, so the fold holds no more than the budget.
 */
static int fold_chain(void *ctx, const struct chain_rec *c)
{
	struct fold *f = ctx;
	const struct profile *p = f->v->p;
	uint64_t count = 0;
	uint32_t i, d;
	int err;

	if (f->path_ok > c->lcp)
		f->path_ok = c->lcp;
	for (i = 0; i < c->nr_cells; i++)
		if (fold__takes(f->o, &c->cells[i]))
			count += f->o->period ? c->cells[i].period : c->cells[i].samples;
	if (!count)
		return 0;	/* nothing to write: no symnode for it either */
	err = wholestack__check(p, c);
	if (err)
		return err;
	if (c->nr + 1 > f->alloc_path) {
		f->alloc_path = 2 * ((size_t)c->nr + 1);
		f->path = xrealloc(f->path, f->alloc_path * sizeof(*f->path));
		f->keep = xrealloc(f->keep, f->alloc_path * sizeof(*f->keep));
	}
	for (d = (uint32_t)f->path_ok; d < c->nr; d++) {
		uint32_t fr = c->frames[d], e = f->frame_entry[fr];

		if (e == SYMVIEW_NONE) {
			f->path[d + 1] = f->path[d];
			f->keep[d + 1] = p->frames[fr].inlined ? f->keep[d] : 0;
		} else {
			f->path[d + 1] = fold__child(f, f->path[d], e);
			f->keep[d + 1] = 1;
		}
	}
	f->path_ok = c->nr;
	if (!f->keep[c->nr])
		return 0;
	for (i = 0; i < c->nr_cells; i++) {
		const struct chain_cell *cell = &c->cells[i];
		uint64_t n = f->o->period ? cell->period : cell->samples;
		struct fline *l;

		if (!n || !fold__takes(f->o, cell))
			continue;
		l = fset__line(f->set, f->o->comm ? cell->comm : 0, f->path[c->nr]);
		if (!l->count)
			f->frames += f->depth[l->node];
		l->count += n;
	}
	return f->frames > REPORT_MAX_FOLDED_FRAMES ? -E2BIG : 0;
}

/* p->whole's chains onto f->set, whose trie lines are frames of depth. */
static int fold_whole(struct fold *f)
{
	const struct symview *v = f->v;
	size_t i;
	int err;

	hashidx__init(&f->idx);
	for (i = 1; i < v->nr_nodes; i++)
		hashidx__insert(&f->idx, hash__u64(((uint64_t)v->nodes[i].parent << 32) |
						   v->nodes[i].entry), (uint32_t)i);
	f->frame_entry = symview__frame_map(v);
	f->alloc_depth = v->nr_nodes + 1;
	f->alloc_path = 64;
	f->path = xmalloc(f->alloc_path * sizeof(*f->path));
	f->keep = xmalloc(f->alloc_path * sizeof(*f->keep));
	f->path[0] = 0;	/* the root: a sample there does not count */
	f->keep[0] = 0;
	f->path_ok = 0;
	err = chainsrc__each(v->p->whole, fold_chain, f);
	free(f->frame_entry);
	free(f->path);
	free(f->keep);
	hashidx__release(&f->idx);
	return err;
}

int report__folded(const struct profile *p, const struct folded_opts *o, struct outbuf *out)
{
	struct fset set = { 0 };
	struct symview v;
	struct fold f = { .v = &v, .o = o, .set = &set };
	struct text *texts;
	uint32_t *path;
	uint8_t *elided;
	size_t i, nr = 0;
	int err = 0;

	if (o->event >= (int)p->nr_events || o->run >= (int)p->nr_runs)
		return -EINVAL;
	symview__init(&v, p, true);
	hashidx__init(&set.idx);
	elided = wholestack__elided_nodes(p);
	for (i = 0; i < p->nr_counts; i++) {
		const struct count *c = &p->counts[i];

		if ((o->event >= 0 && c->event != (uint32_t)o->event) ||
		    (o->run >= 0 && c->run != (uint32_t)o->run) ||
		    (o->one_pid && c->pid != o->pid) || c->node >= p->nr_nodes ||
		    (elided && elided[c->node]) || !symview__counts(&v, c->node))
			continue;
		fset__add(&set, o->comm ? c->comm : 0, symview__symnode(&v, c->node),
			  o->period ? c->period : c->samples);
	}
	free(elided);
	f.frames = folded_frames(&v, &set, p->whole ? &f.depth : NULL);
	if (f.frames > REPORT_MAX_FOLDED_FRAMES)
		err = -E2BIG;
	else if (p->whole)
		err = fold_whole(&f);
	if (err) {
		free(f.depth);
		free(f.ext);
		free(set.lines);
		hashidx__release(&set.idx);
		symview__release(&v);
		return err;
	}
	path = xmalloc((v.nr_nodes + f.nr_ext + 1) * sizeof(*path));
	texts = xmalloc((set.nr + 1) * sizeof(*texts));
	for (i = 0; i < set.nr; i++) {
		if (!set.lines[i].count || !set.lines[i].node)
			continue;
		texts[nr].s = line_text(&f, &set.lines[i], path);
		texts[nr++].count = set.lines[i].count;
	}
	qsort(texts, nr, sizeof(*texts), text_cmp);
	for (i = 0; i < nr; i++) {
		outbuf__printf(out, "%s %llu\n", texts[i].s, (unsigned long long)texts[i].count);
		free(texts[i].s);
	}
	free(texts);
	free(path);
	free(f.depth);
	free(f.ext);
	free(set.lines);
	hashidx__release(&set.idx);
	symview__release(&v);
	return 0;
}
