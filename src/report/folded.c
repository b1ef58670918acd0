/*
 * folded: `mmprof report --folded`, one "root;...;leaf count" line per
 * distinct symbol stack, the input of flamegraph.pl and difffolded.pl.
 *
 * Unlike the LKP view, unresolved frames stay (as "[unknown]", the name
 * stackcollapse-perf.pl uses) so that the widths add up to every sample.
 * Lines are sorted (strcmp), as stackcollapse sorts them, which also makes
 * the output stable for tests and diffs.  Counts are integers: samples,
 * or periods with --period.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "mmprof/report.h"
#include "mmprof/symview.h"
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

static void fset__add(struct fset *s, uint32_t comm, uint32_t node, uint64_t count)
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
	s->lines[row].count += count;
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
static char *line_text(const struct symview *v, const struct fline *l, uint32_t *path)
{
	const char *comm = l->comm ? profile__str(v->p, l->comm) : NULL;
	struct outbuf s = { 0 };
	size_t n = 0, i;
	uint32_t q;

	for (q = l->node; q; q = v->nodes[q].parent)
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
static uint64_t folded_frames(const struct symview *v, const struct fset *s)
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
	free(depth);
	return frames;
}

int report__folded(const struct profile *p, const struct folded_opts *o, struct outbuf *out)
{
	struct fset set = { 0 };
	struct symview v;
	struct text *texts;
	uint32_t *path;
	size_t i, nr = 0;

	if (o->event >= (int)p->nr_events || o->run >= (int)p->nr_runs)
		return -EINVAL;
	symview__init(&v, p, true);
	hashidx__init(&set.idx);
	for (i = 0; i < p->nr_counts; i++) {
		const struct count *c = &p->counts[i];

		if ((o->event >= 0 && c->event != (uint32_t)o->event) ||
		    (o->run >= 0 && c->run != (uint32_t)o->run) ||
		    (o->one_pid && c->pid != o->pid) || c->node >= p->nr_nodes || !symview__counts(&v, c->node))
			continue;
		fset__add(&set, o->comm ? c->comm : 0, symview__symnode(&v, c->node),
			  o->period ? c->period : c->samples);
	}
	if (folded_frames(&v, &set) > REPORT_MAX_FOLDED_FRAMES) {
		free(set.lines);
		hashidx__release(&set.idx);
		symview__release(&v);
		return -E2BIG;
	}
	path = xmalloc((v.nr_nodes + 1) * sizeof(*path));
	texts = xmalloc((set.nr + 1) * sizeof(*texts));
	for (i = 0; i < set.nr; i++) {
		if (!set.lines[i].count || !set.lines[i].node)
			continue;
		texts[nr].s = line_text(&v, &set.lines[i], path);
		texts[nr++].count = set.lines[i].count;
	}
	qsort(texts, nr, sizeof(*texts), text_cmp);
	for (i = 0; i < nr; i++) {
		outbuf__printf(out, "%s %llu\n", texts[i].s, (unsigned long long)texts[i].count);
		free(texts[i].s);
	}
	free(texts);
	free(path);
	free(set.lines);
	hashidx__release(&set.idx);
	symview__release(&v);
	return 0;
}
