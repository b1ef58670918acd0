/*
 * tree: `mmprof report --tree`, the call graph as `perf report --children`
 * shows it: entries (DSO, symbol) sorted by children %, each followed by
 * its graph, drawn in the expanded style kernel developers paste in mails:
 *
 *     55.02%     0.00%  [kernel.kallsyms]     [k] zap_pmd_range.isra.0
 *             - 55.02% zap_pmd_range.isra.0
 *                - 53.42% __split_huge_pmd
 *                     51.74% _raw_spin_lock
 *
 * Direction as perf's -g: callee (default) lists the entry's callers below
 * it, from its innermost occurrence outward; caller lists its callees, from
 * its outermost occurrence inward.  Percentages are of the event's total
 * period over every sample, summed over runs and comms, as perf report
 * without -U: a frame without a name is an "[unknown]" entry of its DSO
 * (perf's hex addresses of it summed), and the header says how much of the
 * total that is.  Stacks keep their innermost max_stack frames (perf's
 * --max-stack, 127), so one chain of depth d prints O(d) lines, not O(d^2).
 * The per-entry graph is merged from symnodes in a small trie (ctree) so
 * the cost is the size of the shown graphs, not the number of samples.
 * Names go through the text rule (escape.h): a symbol drives no terminal.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "mmprof/report.h"
#include "mmprof/symview.h"
#include "mmprof/xalloc.h"

struct cnode {
	uint32_t parent, entry;
	double weight;
};

struct ctree {
	struct cnode *nodes;
	size_t nr, alloc;
	struct hashidx idx;
};

static bool cnode_eq(const void *ctx, uint32_t row, const void *key)
{
	const struct cnode *a = &((const struct ctree *)ctx)->nodes[row];
	const struct cnode *b = key;

	return a->parent == b->parent && a->entry == b->entry;
}

static uint32_t ctree__child(struct ctree *t, uint32_t parent, uint32_t entry)
{
	struct cnode k = { .parent = parent, .entry = entry };
	uint64_t h = hash__u64(((uint64_t)parent << 32) | entry);
	uint32_t id = hashidx__find(&t->idx, h, cnode_eq, t, &k);

	if (id != HASHIDX_NONE)
		return id;
	XGROW(t->nodes, t->alloc, t->nr);
	id = (uint32_t)t->nr++;
	t->nodes[id] = k;
	hashidx__insert(&t->idx, h, id);
	return id;
}

static void ctree__reset(struct ctree *t, uint32_t root_entry)
{
	t->nr = 0;
	hashidx__release(&t->idx);
	XGROW(t->nodes, t->alloc, 0);
	t->nodes[0] = (struct cnode){ .parent = 0, .entry = root_entry };
	t->nr = 1;
}

struct tree_ctx {
	const struct symview *v;
	const struct tree_opts *o;
	struct outbuf *out;
	double total, min_weight;
	const double *sub, *inner;
	struct ctree t;
	uint32_t *stack;	/* DFS scratch, nr_nodes */
	uint32_t *by_entry;	/* symnodes grouped by entry: by_entry[off[e]..off[e+1]) */
	size_t *off;
	const uint8_t *inl;	/* per entry, 1: inlined code only; NULL: none */
};

/*
 * Entries every frame of which is an inline frame (record --inline),
 * printed "name (inlined)" as perf does; NULL when the profile has no
 * inline frames, so such profiles print as before.  A function inlined in
 * some places and called in others is one entry (symview keys on DSO and
 * name) and is left unmarked.
 */
static uint8_t *inline_entries(const struct symview *v)
{
	const struct profile *p = v->p;
	uint8_t *mark;
	size_t i;

	for (i = 0; i < p->nr_frames && !p->frames[i].inlined; i++)
		;
	if (i == p->nr_frames)
		return NULL;
	mark = xcalloc(v->nr_entries + 1, 1);	/* bit 0: inline frame seen, bit 1: real */
	for (i = 1; i < p->nr_nodes; i++) {
		uint32_t f = p->nodes[i].frame, q = symview__symnode(v, (uint32_t)i);

		/* a frame without a name is skipped: q is its caller's */
		if (f < p->nr_frames && p->frames[f].sym && q)
			mark[v->nodes[q].entry] |= p->frames[f].inlined ? 1 : 2;
	}
	for (i = 0; i < v->nr_entries; i++)
		mark[i] = mark[i] == 1;
	return mark;
}

static const char *inline_tag(const struct tree_ctx *c, uint32_t entry)
{
	return c->inl && entry < c->v->nr_entries && c->inl[entry] ? " (inlined)" : "";
}

static void group_by_entry(struct tree_ctx *c)
{
	const struct symview *v = c->v;
	size_t *fill = xcalloc(v->nr_entries + 1, sizeof(*fill));
	size_t q;

	c->off = xcalloc(v->nr_entries + 2, sizeof(*c->off));
	c->by_entry = xmalloc(v->nr_nodes * sizeof(*c->by_entry));
	for (q = 1; q < v->nr_nodes; q++)
		c->off[v->nodes[q].entry + 1]++;
	for (q = 0; q < v->nr_entries; q++)
		c->off[q + 1] += c->off[q];
	for (q = 1; q < v->nr_nodes; q++) {
		uint32_t e = v->nodes[q].entry;

		c->by_entry[c->off[e] + fill[e]++] = (uint32_t)q;
	}
	free(fill);
}

/* callee direction: every innermost occurrence q of the entry, walked up to the root */
static void build_callers(struct tree_ctx *c, uint32_t entry)
{
	const struct symview *v = c->v;
	size_t i;

	for (i = c->off[entry]; i < c->off[entry + 1]; i++) {
		uint32_t q = c->by_entry[i], cn = 0, a;

		if (c->inner[q] <= 0)
			continue;
		c->t.nodes[0].weight += c->inner[q];
		for (a = v->nodes[q].parent; a; a = v->nodes[a].parent) {
			cn = ctree__child(&c->t, cn, v->nodes[a].entry);
			c->t.nodes[cn].weight += c->inner[q];
		}
	}
}

/* caller direction: the subtree of every outermost occurrence, merged by entry */
static void build_callees(struct tree_ctx *c, uint32_t entry)
{
	const struct symview *v = c->v;
	uint32_t *map = xmalloc(v->nr_nodes * sizeof(*map));	/* symnode -> cnode */
	size_t i;

	for (i = c->off[entry]; i < c->off[entry + 1]; i++) {
		uint32_t q = c->by_entry[i];
		size_t sp = 0;

		if (v->nodes[q].same_anc != SYMVIEW_NONE || c->sub[q] <= 0)
			continue;
		c->t.nodes[0].weight += c->sub[q];
		map[q] = 0;
		c->stack[sp++] = q;
		while (sp) {
			uint32_t n = c->stack[--sp], ch;

			for (ch = v->first_child[n]; ch != SYMVIEW_NONE; ch = v->next_sibling[ch]) {
				if (c->sub[ch] <= 0)
					continue;
				map[ch] = ctree__child(&c->t, map[n], v->nodes[ch].entry);
				c->t.nodes[map[ch]].weight += c->sub[ch];
				c->stack[sp++] = ch;
			}
		}
	}
	free(map);
}

struct kid {
	uint32_t id;
	double weight;
	const char *name;
};

static int kid_cmp(const void *a, const void *b)
{
	const struct kid *x = a, *y = b;

	if (x->weight != y->weight)
		return x->weight > y->weight ? -1 : 1;
	return strcmp(x->name, y->name);
}

const char *report__dso_short(const char *dso)
{
	const char *slash = dso[0] == '[' ? NULL : strrchr(dso, '/');

	return slash && slash[1] ? slash + 1 : dso;
}

/*
 * One entry's graph as tree_graphs keeps it (t: its nodes at the limit,
 * root first, parents before children): visible children of every cnode,
 * sorted; kids[off[i]..off[i+1]).
 */
static void print_graph(struct tree_ctx *c, const struct ctree *t)
{
	size_t *count = xcalloc(t->nr + 1, sizeof(*count));
	size_t *off = xcalloc(t->nr + 1, sizeof(*off));
	struct kid *kids = xmalloc((t->nr + 1) * sizeof(*kids));
	uint32_t *stack = xmalloc((t->nr + 1) * sizeof(*stack));
	uint32_t *level = xmalloc((t->nr + 1) * sizeof(*level));
	size_t i, sp = 0;

	for (i = 1; i < t->nr; i++)
		if (t->nodes[i].weight >= c->min_weight)
			count[t->nodes[i].parent]++;
	for (i = 0; i < t->nr; i++)
		off[i + 1] = off[i] + count[i];
	memset(count, 0, (t->nr + 1) * sizeof(*count));
	for (i = 1; i < t->nr; i++) {
		uint32_t par = t->nodes[i].parent;

		if (t->nodes[i].weight < c->min_weight)
			continue;
		kids[off[par] + count[par]++] = (struct kid){ (uint32_t)i, t->nodes[i].weight,
			symview__entry_name(c->v, t->nodes[i].entry) };
	}
	for (i = 0; i < t->nr; i++)
		if (off[i + 1] > off[i])
			qsort(kids + off[i], off[i + 1] - off[i], sizeof(*kids), kid_cmp);

	stack[sp] = 0;
	level[sp++] = 0;
	while (sp) {
		uint32_t n = stack[--sp], l = level[sp];
		size_t k;

		outbuf__printf(c->out, "%*s%s%.2f%% ", 12 + 3 * (int)l, "",
			off[n + 1] > off[n] ? "- " : "  ",
			100.0 * t->nodes[n].weight / c->total);
		outbuf__text_str(c->out, symview__entry_name(c->v, t->nodes[n].entry));
		/* an unnamed frame of a known DSO: which one, as the entry's column says */
		if (t->nodes[n].entry < c->v->nr_entries && !c->v->entries[t->nodes[n].entry].sym &&
		    c->v->entries[t->nodes[n].entry].dso) {
			outbuf__puts(c->out, " (");
			outbuf__text_str(c->out, report__dso_short(symview__entry_dso(c->v, t->nodes[n].entry)));
			outbuf__putc(c->out, ')');
		}
		outbuf__printf(c->out, "%s\n", inline_tag(c, t->nodes[n].entry));
		/* push in reverse so the heaviest child prints first */
		for (k = off[n + 1]; k-- > off[n];) {
			stack[sp] = kids[k].id;
			level[sp++] = l + 1;
		}
	}
	outbuf__putc(c->out, '\n');
	free(count);
	free(off);
	free(kids);
	free(stack);
	free(level);
}

struct row {
	uint32_t entry;
	double children, self;
	const char *name;
};

static int row_cmp(const void *a, const void *b)
{
	const struct row *x = a, *y = b;

	if (x->children != y->children)
		return x->children > y->children ? -1 : 1;
	if (x->self != y->self)
		return x->self > y->self ? -1 : 1;
	return strcmp(x->name, y->name);
}

static int row_self_cmp(const void *a, const void *b)
{
	const struct row *x = a, *y = b;

	if (x->self != y->self)
		return x->self > y->self ? -1 : 1;
	return row_cmp(a, b);
}

/*
 * One event's weights and shown entries (sorted, cut to max_entries):
 * what counting its lines and printing them both start from.
 */
struct tree_event {
	double *w, *sub, *inner, *children, *self;
	struct row *rows;
	size_t nr;
	int dso_w;
	double total;
	double min_weight;	/* --percent-limit of total: what prints, entries and graph nodes */
	uint64_t nr_cut;	/* v->nr_cut, with every chain whole (report__whole_entries) */
};

/*
 * A profile with whole chains (p->whole): the entry lines of an event as
 * its counting pass made them, so that the printing pass walks the chains
 * no second time.
 */
struct tree_rows {
	struct row *rows;
	size_t nr;
	int dso_w;
	uint64_t nr_cut;
	bool kept;
};

static void tree_event__init(struct tree_event *te, const struct symview *v,
			     const struct tree_opts *o, uint32_t event, const struct tree_rows *kept)
{
	struct outbuf scratch = { 0 };	/* a DSO's name through the text rule (escape.h) */
	size_t i, shown = o->max_entries ? o->max_entries : SIZE_MAX;

	te->w = xmalloc(v->nr_nodes * sizeof(*te->w));
	te->sub = xmalloc(v->nr_nodes * sizeof(*te->sub));
	te->inner = xmalloc(v->nr_nodes * sizeof(*te->inner));
	te->children = xmalloc((v->nr_entries + 1) * sizeof(*te->children));
	te->self = xmalloc((v->nr_entries + 1) * sizeof(*te->self));
	te->rows = xmalloc((v->nr_entries + 1) * sizeof(*te->rows));
	te->nr = 0;
	te->dso_w = 13;
	te->nr_cut = v->nr_cut;
	te->total = symview__weights(v, SYMVIEW_ALL_RUNS, event, true, te->w);
	te->min_weight = te->total * o->percent_limit / 100.0;
	if (te->total <= 0)
		return;
	symview__cumulate(v, te->w, te->sub, te->inner, te->children, te->self);
	if (kept && kept->kept) {
		memcpy(te->rows, kept->rows, kept->nr * sizeof(*te->rows));
		te->nr = kept->nr;
		te->dso_w = kept->dso_w;
		te->nr_cut = kept->nr_cut;
		return;
	}
	/* the entry lines as with every chain whole; the graphs stay the trie's, "[elided]" a frame */
	if (v->p->whole)
		report__whole_entries(v, event, te->children, te->self, &te->nr_cut);
	for (i = 0; i < v->nr_entries; i++) {
		const double *by = o->self_order ? te->self : te->children;
		const char *dso;

		if (by[i] <= 0 || by[i] < te->min_weight)
			continue;
		te->rows[te->nr++] = (struct row){ (uint32_t)i, te->children[i], te->self[i],
						   symview__entry_name(v, (uint32_t)i) };
		dso = outbuf__text_safe(&scratch, report__dso_short(symview__entry_dso(v, (uint32_t)i)));
		if ((int)strlen(dso) > te->dso_w)
			te->dso_w = (int)strlen(dso);
	}
	qsort(te->rows, te->nr, sizeof(*te->rows), o->self_order ? row_self_cmp : row_cmp);
	if (te->nr > shown)
		te->nr = shown;
	outbuf__release(&scratch);
}

static void tree_event__release(struct tree_event *te)
{
	free(te->w);
	free(te->sub);
	free(te->inner);
	free(te->children);
	free(te->self);
	free(te->rows);
}

static void tree_ctx__start(struct tree_ctx *c, const struct tree_event *te, const struct tree_opts *o)
{
	c->total = te->total;
	c->sub = te->sub;
	c->inner = te->inner;
	c->min_weight = te->min_weight;
	c->stack = xmalloc(c->v->nr_nodes * sizeof(*c->stack));
	hashidx__init(&c->t.idx);
	group_by_entry(c);
}

static void tree_ctx__release(struct tree_ctx *c)
{
	free(c->stack);
	free(c->by_entry);
	free(c->off);
	free(c->t.nodes);
	hashidx__release(&c->t.idx);
}

/* Shown entry i's graph in c->t, or false when it has none to print. */
static bool tree_graph(struct tree_ctx *c, const struct tree_event *te, size_t i)
{
	const struct tree_opts *o = c->o;

	if (o->no_graph || i >= (o->max_graphs ? o->max_graphs : SIZE_MAX))
		return false;
	ctree__reset(&c->t, te->rows[i].entry);
	if (o->caller)
		build_callees(c, te->rows[i].entry);
	else
		build_callers(c, te->rows[i].entry);
	return true;
}

/*
 * The graphs of one event's shown entries, built once: each graph's nodes
 * that print (the root, and a node at the limit under a printed parent),
 * root first, parents before children, graph i at nodes[first[i] ..
 * first[i + 1]) (none: no graph).  So what prints is counted before the
 * first line is written, and the graphs are not built again to print.
 */
struct tree_graphs {
	struct cnode *nodes;
	size_t nr, alloc;
	size_t *first;
	struct tree_rows rows;
};

static void tree_graphs__release(struct tree_graphs *g)
{
	free(g->nodes);
	free(g->first);
	free(g->rows.rows);
}

/* The nodes of c->t that print, appended to g; returns their number. */
static size_t tree_graphs__keep(struct tree_graphs *g, const struct tree_ctx *c)
{
	const struct ctree *t = &c->t;
	uint32_t *map = xmalloc(t->nr * sizeof(*map));	/* cnode -> kept id + 1, 0: not kept */
	size_t base = g->nr, k;

	for (k = 0; k < t->nr; k++) {
		const struct cnode *n = &t->nodes[k];

		/* a child is made after its parent: map[n->parent] is known */
		map[k] = 0;
		if (k && (n->weight < c->min_weight || !map[n->parent]))
			continue;
		XGROW(g->nodes, g->alloc, g->nr);
		g->nodes[g->nr] = (struct cnode){ k ? map[n->parent] - 1 : 0, n->entry, n->weight };
		map[k] = (uint32_t)(g->nr++ - base + 1);
	}
	free(map);
	return g->nr - base;
}

/*
 * The lines tree_event prints for event, counted, or more than max once
 * past it, with the graphs it prints kept in g (tree_graphs__release).
 */
static size_t tree_event_graphs(const struct symview *v, const struct tree_opts *o,
				uint32_t event, size_t max, struct tree_graphs *g)
{
	struct tree_ctx c = { .v = v, .o = o };
	struct tree_event te;
	size_t lines = 5, i;	/* the header's, the column titles' and the last blank line */

	tree_event__init(&te, v, o, event, NULL);
	if (v->p->whole) {
		g->rows = (struct tree_rows){ .rows = xmalloc((te.nr + 1) * sizeof(*te.rows)),
					      .nr = te.nr, .dso_w = te.dso_w, .nr_cut = te.nr_cut,
					      .kept = true };
		memcpy(g->rows.rows, te.rows, te.nr * sizeof(*te.rows));
	}
	if (te.total > 0 && te.nr) {
		tree_ctx__start(&c, &te, o);
		g->first = xcalloc(te.nr + 1, sizeof(*g->first));
		for (i = 0; i < te.nr && lines <= max; i++) {
			lines++;
			if (tree_graph(&c, &te, i))
				lines += tree_graphs__keep(g, &c) + 1;	/* and the blank line after it */
			g->first[i + 1] = g->nr;
		}
		tree_ctx__release(&c);
	}
	tree_event__release(&te);
	return lines;
}

static void tree_event(const struct symview *v, const struct tree_opts *o, uint32_t event,
		       const uint8_t *inl, const struct tree_graphs *g, struct outbuf *out)
{
	const struct profile *p = v->p;
	struct tree_ctx c = { .v = v, .o = o, .out = out, .inl = inl };
	struct tree_event te;
	const char *evname = profile__str(p, p->events[event].name);
	struct outbuf scratch = { 0 };	/* a DSO's name through the text rule (escape.h) */
	uint64_t samples = 0;
	size_t i;
	char line[256];

	for (i = 0; i < p->nr_counts; i++)
		if (p->counts[i].event == event && symview__counts(v, p->counts[i].node))
			samples += p->counts[i].samples;
	tree_event__init(&te, v, o, event, &g->rows);
	if (!o->no_header) {
		outbuf__puts(out, "# Event '");
		outbuf__text_str(out, evname ? evname : "?");
		outbuf__printf(out, "': %llu samples, total period %llu, %zu run%s\n",
			(unsigned long long)samples,
			(unsigned long long)symview__total(v, SYMVIEW_ALL_RUNS, event, true), p->nr_runs,
			p->nr_runs == 1 ? "" : "s");
		outbuf__printf(out, "# %s\n", report__unnamed_line(p, (int)event, true, line,
								    sizeof(line)));
	}
	if (te.nr_cut)
		outbuf__printf(out, "# %llu stack%s deeper than %u frames: the innermost %u shown "
			"(perf's --max-stack)\n", (unsigned long long)te.nr_cut,
			te.nr_cut == 1 ? "" : "s", v->max_stack, v->max_stack);
	if (te.total <= 0) {
		outbuf__printf(out, "# (no resolved samples)\n\n");
		goto out;
	}
	outbuf__printf(out, "# Children      Self  %-*s  Symbol\n#\n", te.dso_w, "Shared Object");
	c.total = te.total;
	c.min_weight = te.min_weight;
	for (i = 0; i < te.nr; i++) {
		const struct row *r = &te.rows[i];

		outbuf__printf(out, "%9.2f%%%9.2f%%  %-*s  [%c] ", 100.0 * r->children / c.total,
			100.0 * r->self / c.total, te.dso_w,
			outbuf__text_safe(&scratch, report__dso_short(symview__entry_dso(v, r->entry))),
			v->entries[r->entry].kernel ? 'k' : '.');
		outbuf__text_str(out, r->name);
		outbuf__printf(out, "%s\n", inline_tag(&c, r->entry));
		if (g->first && g->first[i + 1] > g->first[i]) {
			struct ctree t = { .nodes = g->nodes + g->first[i],
					   .nr = g->first[i + 1] - g->first[i] };

			print_graph(&c, &t);
		}
	}
	if (o->no_graph || !te.nr)
		outbuf__putc(out, '\n');
out:
	outbuf__release(&scratch);
	tree_event__release(&te);
}

int report__tree(const struct profile *p, const struct tree_opts *o, struct outbuf *out)
{
	struct symview_opts so = { .keep_unresolved = true, .unknown_by_dso = true,
				   .keep_inline = true, .children = true,
				   .max_stack = o->max_stack ? o->max_stack : REPORT_MAX_STACK };
	struct symview v;
	struct tree_graphs *g;
	uint8_t *inl;
	size_t e, lines = 0, max = o->max_lines ? o->max_lines : REPORT_MAX_TREE_LINES;
	int err = 0;

	if (o->event >= (int)p->nr_events)
		return -EINVAL;
	symview__init_opts(&v, p, &so);
	/*
	 * Counted before the first line: a 0.5 MB file drew more than 4 GB of
	 * graphs.  A few entries (report's first screen) need no limit: each
	 * graph has at most 100 / P nodes a level, max_stack levels.
	 */
	g = xcalloc(p->nr_events + 1, sizeof(*g));
	for (e = 0; e < p->nr_events && (o->max_entries || lines <= max); e++)
		if (o->event < 0 || (size_t)o->event == e)
			lines += tree_event_graphs(&v, o, (uint32_t)e,
						   o->max_entries ? SIZE_MAX : max - lines, &g[e]);
	if (!o->max_entries && lines > max) {
		err = -E2BIG;
		goto out;
	}
	inl = inline_entries(&v);
	for (e = 0; e < p->nr_events; e++)
		if (o->event < 0 || (size_t)o->event == e)
			tree_event(&v, o, (uint32_t)e, inl, &g[e], out);
	free(inl);
out:
	for (e = 0; e < p->nr_events; e++)
		tree_graphs__release(&g[e]);
	free(g);
	symview__release(&v);
	return err;
}
