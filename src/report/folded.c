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
 * as the view collapses a trie node, frame by frame, down the view's
 * symnodes as far as they go, then as a tail of entries, so that it lands
 * on the line of the trie's stacks of the same symbols or on a line of
 * its own (deepest symnode, tail) shared with every chain of the same
 * symbols, and lines stay one per distinct stack.
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
 * A line of p->whole's chains whose symbol path leaves the view's
 * symnodes: the deepest symnode on it (anchor), then its other entries
 * (tail, in fold.tails), each line once by (comm, anchor, tail).  A path
 * the view has whole is a line of the trie's set.
 */
struct tline {
	uint32_t comm, anchor;
	size_t tail, nr;	/* fold.tails[tail .. tail + nr) */
	uint64_t count;
};

struct fold {
	const struct symview *v;
	const struct folded_opts *o;
	struct fset *set;
	uint32_t *depth;	/* [symnode] its frames */
	/* the view's children of each symnode, by entry: kids[kid_at[q] .. kid_at[q + 1]) */
	uint32_t *kid_at, *kids;
	uint32_t *frame_entry;	/* symview__frame_map */
	struct tline *lines;
	size_t nr_lines, alloc_lines;
	uint32_t *tails;
	size_t nr_tails, alloc_tails;
	struct hashidx idx;	/* over lines */
	/*
	 * The walk's path, [d] after the chain's first d frames: the anchor,
	 * the tail's length (its entries in tail[]) and whether a sample
	 * there counts; valid for d <= path_ok.
	 */
	uint32_t *anchor, *tail_nr, *tail;
	uint8_t *keep;
	size_t alloc_path, path_ok;
	uint64_t frames;	/* the frames of the lines with a count */
	uint32_t comm, at, nr;	/* the line looked up: (comm, anchor, tail[0 .. nr)) */
};

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
static char *line_text(const struct symview *v, uint32_t comm_id, uint32_t node,
		       const uint32_t *tail, size_t nr_tail, uint32_t *path)
{
	const char *comm = comm_id ? profile__str(v->p, comm_id) : NULL;
	struct outbuf s = { 0 };
	size_t n = 0, i;
	uint32_t q;

	for (i = nr_tail; i-- > 0;)
		path[n++] = tail[i];
	for (q = node; q; q = v->nodes[q].parent)
		path[n++] = v->nodes[q].entry;
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

/* The view's child of q by entry e, or SYMVIEW_NONE. */
static uint32_t fold__child(const struct fold *f, uint32_t q, uint32_t e)
{
	size_t lo = f->kid_at[q], hi = f->kid_at[q + 1];

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		uint32_t me = f->v->nodes[f->kids[mid]].entry;

		if (me == e)
			return f->kids[mid];
		if (me < e)
			lo = mid + 1;
		else
			hi = mid;
	}
	return SYMVIEW_NONE;
}

static int kid_cmp(const void *a, const void *b, void *ctx)
{
	const struct symview *v = ctx;
	uint32_t x = v->nodes[*(const uint32_t *)a].entry, y = v->nodes[*(const uint32_t *)b].entry;

	return x < y ? -1 : x > y;
}

/* kid_at and kids: the view's child lists sorted by entry (8 bytes a symnode). */
static void fold__index(struct fold *f)
{
	const struct symview *v = f->v;
	size_t i, q;

	f->kid_at = xcalloc(v->nr_nodes + 2, sizeof(*f->kid_at));
	f->kids = xmalloc((v->nr_nodes + 1) * sizeof(*f->kids));
	for (i = 1; i < v->nr_nodes; i++)
		f->kid_at[v->nodes[i].parent + 2]++;
	for (q = 2; q <= v->nr_nodes + 1; q++)
		f->kid_at[q] += f->kid_at[q - 1];
	for (i = 1; i < v->nr_nodes; i++)	/* kid_at[q + 1] runs up to q's end */
		f->kids[f->kid_at[v->nodes[i].parent + 1]++] = (uint32_t)i;
	for (q = 0; q < v->nr_nodes; q++)
		if (f->kid_at[q + 1] - f->kid_at[q] > 1)
			qsort_r(f->kids + f->kid_at[q], f->kid_at[q + 1] - f->kid_at[q], sizeof(*f->kids),
				kid_cmp, (void *)v);
}

static bool tline_eq(const void *ctx, uint32_t row, const void *key)
{
	const struct fold *f = ctx;
	const struct tline *l = &f->lines[row];

	(void)key;
	return l->comm == f->comm && l->anchor == f->at && l->nr == f->nr &&
	       !memcmp(f->tails + l->tail, f->tail, f->nr * sizeof(*f->tail));
}

static bool fold__takes(const struct folded_opts *o, const struct chain_cell *c)
{
	return (o->event < 0 || c->event == (uint32_t)o->event) &&
	       (o->run < 0 || c->run == (uint32_t)o->run) && (!o->one_pid || c->pid == o->pid);
}

/* Count n of comm on the line (anchor, f->tail[0 .. nr)): the trie's set's when nr is 0. */
static void fold__add(struct fold *f, uint32_t comm, uint32_t anchor, uint32_t nr, uint64_t n)
{
	struct tline *l;
	uint32_t row, i;
	uint64_t h;

	if (!nr) {
		struct fline *t = fset__line(f->set, comm, anchor);

		if (!t->count)
			f->frames += f->depth[anchor];
		t->count += n;
		return;
	}
	h = hash__combine(hash__u64(((uint64_t)comm << 32) | anchor), nr);
	for (i = 0; i < nr; i++)
		h = hash__combine(h, f->tail[i]);
	f->comm = comm;
	f->at = anchor;
	f->nr = nr;
	row = hashidx__find(&f->idx, h, tline_eq, f, NULL);
	if (row == HASHIDX_NONE) {
		XGROW(f->lines, f->alloc_lines, f->nr_lines);
		if (f->nr_tails + nr > f->alloc_tails) {
			f->alloc_tails = 2 * (f->nr_tails + nr);
			f->tails = xrealloc(f->tails, f->alloc_tails * sizeof(*f->tails));
		}
		memcpy(f->tails + f->nr_tails, f->tail, nr * sizeof(*f->tail));
		row = (uint32_t)f->nr_lines++;
		f->lines[row] = (struct tline){ comm, anchor, f->nr_tails, nr, 0 };
		f->nr_tails += nr;
		hashidx__insert(&f->idx, h, row);
		f->frames += f->depth[anchor] + nr;
	}
	l = &f->lines[row];
	l->count += n;
}

/*
 * One chain of p->whole onto the lines: its frames collapsed as the view
 * collapses a trie node's (symview__init_opts: a skipped frame is its
 * caller's, a skipped inline leaf's samples its caller's, a skipped
 * unresolved one's dropped), down the view's symnodes as far as they go,
 * then as a tail of entries; the path of the chain before reused up to
 * their common frames (lcp).  -E2BIG once the lines with a count pass
 * REPORT_MAX_FOLDED_FRAMES: a line's tail is held once, 4 bytes a frame
 * of a line it would write, so the fold holds no more than the budget.
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
		return 0;	/* nothing to write */
	err = wholestack__check(p, c);
	if (err)
		return err;
	if (c->nr + 1 > f->alloc_path) {
		f->alloc_path = 2 * ((size_t)c->nr + 1);
		f->anchor = xrealloc(f->anchor, f->alloc_path * sizeof(*f->anchor));
		f->tail_nr = xrealloc(f->tail_nr, f->alloc_path * sizeof(*f->tail_nr));
		f->tail = xrealloc(f->tail, f->alloc_path * sizeof(*f->tail));
		f->keep = xrealloc(f->keep, f->alloc_path * sizeof(*f->keep));
	}
	for (d = (uint32_t)f->path_ok; d < c->nr; d++) {
		uint32_t fr = c->frames[d], e = f->frame_entry[fr], q;

		f->anchor[d + 1] = f->anchor[d];
		f->tail_nr[d + 1] = f->tail_nr[d];
		if (e == SYMVIEW_NONE) {
			f->keep[d + 1] = p->frames[fr].inlined ? f->keep[d] : 0;
			continue;
		}
		f->keep[d + 1] = 1;
		q = f->tail_nr[d] ? SYMVIEW_NONE : fold__child(f, f->anchor[d], e);
		if (q != SYMVIEW_NONE)
			f->anchor[d + 1] = q;
		else
			f->tail[f->tail_nr[d + 1]++] = e;
	}
	f->path_ok = c->nr;
	if (!f->keep[c->nr])
		return 0;
	for (i = 0; i < c->nr_cells; i++) {
		const struct chain_cell *cell = &c->cells[i];
		uint64_t n = f->o->period ? cell->period : cell->samples;

		if (n && fold__takes(f->o, cell))
			fold__add(f, f->o->comm ? cell->comm : 0, f->anchor[c->nr], f->tail_nr[c->nr], n);
	}
	return f->frames > REPORT_MAX_FOLDED_FRAMES ? -E2BIG : 0;
}

/* p->whole's chains onto f's lines, the trie's in f->set already. */
static int fold_whole(struct fold *f)
{
	int err;

	fold__index(f);
	hashidx__init(&f->idx);
	f->frame_entry = symview__frame_map(f->v);
	f->alloc_path = 64;
	f->anchor = xmalloc(f->alloc_path * sizeof(*f->anchor));
	f->tail_nr = xmalloc(f->alloc_path * sizeof(*f->tail_nr));
	f->tail = xmalloc(f->alloc_path * sizeof(*f->tail));
	f->keep = xmalloc(f->alloc_path * sizeof(*f->keep));
	f->anchor[0] = 0;	/* the root: a sample there does not count */
	f->tail_nr[0] = 0;
	f->keep[0] = 0;
	f->path_ok = 0;
	err = chainsrc__each(f->v->p->whole, fold_chain, f);
	free(f->frame_entry);
	free(f->anchor);
	free(f->tail_nr);
	free(f->tail);
	free(f->keep);
	free(f->kid_at);
	free(f->kids);
	hashidx__release(&f->idx);
	return err;
}

static void fold__release(struct fold *f)
{
	free(f->depth);
	free(f->lines);
	free(f->tails);
}

int report__folded(const struct profile *p, const struct folded_opts *o, struct outbuf *out)
{
	struct fset set = { 0 };
	struct symview v;
	struct fold f = { .v = &v, .o = o, .set = &set };
	struct text *texts;
	uint32_t *path;
	uint8_t *elided;
	size_t i, nr = 0, longest;
	int err = 0;

	if (o->event >= (int)p->nr_events || o->run >= (int)p->nr_runs)
		return -EINVAL;
	symview__init(&v, p, true);
	hashidx__init(&set.idx);
	elided = profile__elided_nodes(p);
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
		fold__release(&f);
		free(set.lines);
		hashidx__release(&set.idx);
		symview__release(&v);
		return err;
	}
	for (i = 0, longest = 0; i < f.nr_lines; i++)
		if (f.lines[i].nr > longest)
			longest = f.lines[i].nr;
	path = xmalloc((v.nr_nodes + longest + 1) * sizeof(*path));
	texts = xmalloc((set.nr + f.nr_lines + 1) * sizeof(*texts));
	for (i = 0; i < set.nr; i++) {
		if (!set.lines[i].count || !set.lines[i].node)
			continue;
		texts[nr].s = line_text(&v, set.lines[i].comm, set.lines[i].node, NULL, 0, path);
		texts[nr++].count = set.lines[i].count;
	}
	for (i = 0; i < f.nr_lines; i++) {	/* a tail is never empty: no root line */
		const struct tline *l = &f.lines[i];

		texts[nr].s = line_text(&v, l->comm, l->anchor, f.tails + l->tail, l->nr, path);
		texts[nr++].count = l->count;
	}
	qsort(texts, nr, sizeof(*texts), text_cmp);
	for (i = 0; i < nr; i++) {
		outbuf__printf(out, "%s %llu\n", texts[i].s, (unsigned long long)texts[i].count);
		free(texts[i].s);
	}
	free(texts);
	free(path);
	fold__release(&f);
	free(set.lines);
	hashidx__release(&set.idx);
	symview__release(&v);
	return 0;
}
