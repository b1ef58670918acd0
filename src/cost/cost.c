/*
 * cost: a profile's self and children costs per unit of work, per run and
 * event, and the run's cost keys (cost.h).  One symbol trie per profile
 * (every sample kept, unresolved frames one "[unknown]" per DSO: a diff's
 * collapse of the file, diff_side.views, where the two are the same), its
 * entries of one name one function, then per (run, event) one pass over
 * the counts and one over the trie.
 */
#include <linux/perf_event.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mmprof/cost.h"
#include "mmprof/symview.h"
#include "mmprof/xalloc.h"

/* What a sample without a single frame is called: its period is in the total too. */
static const char no_stack[] = "[no_stack]";

void cost__key(const char *kind, const char *event, const char *fn, char *buf, size_t size)
{
	if (fn)
		snprintf(buf, size, "cost.%s.%s.%s", kind, event, fn);
	else
		snprintf(buf, size, "cost.%s.%s", kind, event);
}

const char *cost_event__unit(const struct profile *p, uint32_t event, bool *time)
{
	const struct event_desc *d = event < p->nr_events ? &p->events[event] : NULL;
	const char *name = d ? profile__str(p, d->name) : NULL;
	bool t = false;

	if (d && d->type == PERF_TYPE_SOFTWARE &&
	    (d->config == PERF_COUNT_SW_CPU_CLOCK || d->config == PERF_COUNT_SW_TASK_CLOCK))
		t = true;
	if (name && (!strcmp(name, "cpu-clock") || !strcmp(name, "task-clock") ||
		     !strcmp(name, PROFILE_OFFCPU_EVENT)))
		t = true;
	if (time)
		*time = t;
	return t ? "ns" : "events";
}

/* A symview entry as a cost key spells it: "[unknown]@<dso>" for an unresolved frame. */
static void entry_key(const struct symview *v, uint32_t e, char *buf, size_t size)
{
	char raw[1024];

	if (v->entries[e].sym)
		snprintf(raw, sizeof(raw), "%s", symview__entry_name(v, e));
	else if (v->entries[e].dso)
		snprintf(raw, sizeof(raw), "[unknown]@%s", symview__entry_dso(v, e));
	else
		snprintf(raw, sizeof(raw), "[unknown]");
	keys__key_symbol(raw, buf, size);
}

const struct cost_slot *cost_profile__slot(const struct cost_profile *c, uint32_t run,
					   uint32_t event)
{
	if (run >= c->p->nr_runs || event >= c->nr_events)
		return NULL;
	return &c->slot[(size_t)run * c->nr_events + event];
}

int cost_profile__event(const struct cost_profile *c, const char *event)
{
	size_t i;

	for (i = 0; i < c->nr_events; i++)
		if (!strcmp(c->event[i], event))
			return (int)i;
	return -1;
}

/*
 * c's view of p (every sample kept, "[unknown]" per DSO), from the file's
 * collapse when there is one, and its functions: the entries of one key
 * spelling (one name in two DSOs) are one, numbered in the order of their
 * first entry (c->fn's ids), c->entry_fn each entry's.
 */
static void cost_profile__view(struct cost_profile *c, const struct symview *from)
{
	struct symview_opts so = { .keep_unresolved = true, .unknown_by_dso = true };
	struct symview *v = &c->view;
	size_t i;

	if (from)
		symview__derive(v, from, &so);
	else
		symview__init_opts(v, c->p, &so);
	c->nr_nodes = v->nr_nodes;
	c->entry_fn = xmalloc((v->nr_entries + 1) * sizeof(*c->entry_fn));
	for (i = 0; i < v->nr_entries; i++) {
		char key[1024];

		entry_key(v, (uint32_t)i, key, sizeof(key));
		c->entry_fn[i] = strintern__xid(&c->fn, key, strlen(key));
	}
}

/* The symnode profile node n's samples count on, COST_NO_NODE where they do not. */
static uint32_t leaf_of(const struct cost_profile *c, uint32_t n)
{
	return symview__counts(&c->view, n) ? symview__symnode(&c->view, n) : COST_NO_NODE;
}

/* A symnode's function: the outermost of it on the chain has it in its children. */
static uint32_t fn_of(const struct cost_profile *c, uint32_t q)
{
	return c->entry_fn[c->view.nodes[q].entry];
}

/* The function no_stack's id, added after the entries' when no entry is spelled so. */
static uint32_t no_stack_fn(struct cost_profile *c)
{
	return strintern__xid(&c->fn, no_stack, sizeof(no_stack) - 1);
}

static int cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return x < y ? -1 : x > y;
}

/*
 * One (run, event)'s sums: what it touched of the trie and of the
 * functions.  A slot's work is its cells' paths, not the whole trie and
 * every function: 10,000 runs of one stack each over a trie of 200,000
 * symnodes walked it 10,000 times (15 s of a diff of the file with
 * itself).  Past an eighth of the trie (of the functions) a slot takes
 * the whole of it in order, as cheap as sorting what it touched.
 */
struct cost_sums {
	double *wt;		/* per symnode: its subtree's period in this slot */
	double *fself, *fchildren;	/* per function */
	uint32_t *node, *fn;	/* the touched symnodes, functions */
	size_t nr_node, nr_fn;
	size_t alloc_cells;	/* of cost_profile.cells */
	bool *node_seen, *fn_seen;
};

static void cost_sums__fn(struct cost_sums *s, uint32_t f)
{
	if (!s->fn_seen[f]) {
		s->fn_seen[f] = true;
		s->fn[s->nr_fn++] = f;
	}
}

/*
 * The children sums of the touched symnodes, their subtrees' from the
 * leaves up (a child's id is above its parent's); the trie's sums zeroed.
 */
static void cost_sums__subtrees(struct cost_sums *s, const struct cost_profile *c)
{
	const struct symnode *nodes = c->view.nodes;
	size_t i;

	if (s->nr_node * 8 < c->nr_nodes) {
		qsort(s->node, s->nr_node, sizeof(*s->node), cmp_u32);
		for (i = s->nr_node; i-- > 0;) {
			uint32_t q = s->node[i];

			/* q is not the root (the root is in no path) */
			if (nodes[q].same_anc == SYMVIEW_NONE) {
				s->fchildren[fn_of(c, q)] += s->wt[q];
				cost_sums__fn(s, fn_of(c, q));
			}
			s->wt[nodes[q].parent] += s->wt[q];
		}
	} else {
		for (i = c->nr_nodes; i-- > 1;) {
			if (nodes[i].same_anc == SYMVIEW_NONE && s->node_seen[i]) {
				s->fchildren[fn_of(c, (uint32_t)i)] += s->wt[i];
				cost_sums__fn(s, fn_of(c, (uint32_t)i));
			}
			s->wt[nodes[i].parent] += s->wt[i];
		}
	}
	for (i = 0; i < s->nr_node; i++) {
		s->wt[s->node[i]] = 0;
		s->node_seen[s->node[i]] = false;
	}
	s->wt[0] = 0;
	s->nr_node = 0;
}

/*
 * The slot's cells, in the functions' order (nr_fn of them), each sum over
 * work; none when work is NAN (nothing counted).  The sums are zeroed.
 */
static void cost_sums__cells(struct cost_sums *s, struct cost_profile *c, size_t nr_fn, double work)
{
	size_t i, more = 0;

	if (s->nr_fn * 8 < nr_fn) {
		qsort(s->fn, s->nr_fn, sizeof(*s->fn), cmp_u32);
	} else {
		for (i = 0, s->nr_fn = 0; i < nr_fn; i++)
			if (s->fn_seen[i])
				s->fn[s->nr_fn++] = (uint32_t)i;
	}
	for (i = 0; i < s->nr_fn; i++)
		more += s->fself[s->fn[i]] > 0 || s->fchildren[s->fn[i]] > 0;
	/*
	 * Doubling, cut to size once all are in (cost_profile__new): a slot's
	 * exact growth copied every cell so far per slot where realloc cannot
	 * move pages (ASan's), 10,000 slots in minutes.
	 */
	if (more && !isnan(work) && c->nr_cells + more + 1 > s->alloc_cells) {
		s->alloc_cells = 2 * s->alloc_cells > c->nr_cells + more + 1 ? 2 * s->alloc_cells
									: c->nr_cells + more + 1;
		c->cells = xrealloc(c->cells, s->alloc_cells * sizeof(*c->cells));
	}
	for (i = 0; i < s->nr_fn; i++) {
		uint32_t f = s->fn[i];

		if (!isnan(work) && (s->fself[f] > 0 || s->fchildren[f] > 0))
			c->cells[c->nr_cells++] = (struct cost_cell){ f, s->fself[f] / work,
								      s->fchildren[f] / work };
		s->fself[f] = s->fchildren[f] = 0;
		s->fn_seen[f] = false;
	}
	s->nr_fn = 0;
}

struct cost_profile *cost_profile__new(const struct profile *p, const struct symview *from,
				       const struct cost_work *w)
{
	struct cost_profile *c = xcalloc(1, sizeof(*c));
	struct cost_sums sums;
	uint32_t *by_slot, nostack = UINT32_MAX;
	size_t i, *slot_start;
	uint32_t r, e;

	c->p = p;
	c->work = xcalloc(p->nr_runs + 1, sizeof(*c->work));
	for (r = 0; r < p->nr_runs; r++)
		c->work[r] = cost_work__run(w, p, r);
	c->nr_events = p->nr_events;
	c->event = xcalloc(p->nr_events + 1, sizeof(*c->event));
	for (e = 0; e < p->nr_events; e++) {
		const char *name = profile__str(p, p->events[e].name);
		char buf[256];

		keys__event_name(name ? name : "unknown", buf, sizeof(buf));
		c->event[e] = xstrdup(buf);
	}
	c->slot = xcalloc((size_t)p->nr_runs * p->nr_events + 1, sizeof(*c->slot));

	cost_profile__view(c, from);
	slot_start = profile__group_counts(p, &by_slot);
	/* the functions' sums: entries of one name (one function in two DSOs) are one key */
	memset(&sums, 0, sizeof(sums));
	sums.wt = xcalloc(c->nr_nodes + 1, sizeof(*sums.wt));
	sums.node = xmalloc((c->nr_nodes + 1) * sizeof(*sums.node));
	sums.node_seen = xcalloc(c->nr_nodes + 1, sizeof(*sums.node_seen));
	/* one name more than the entries': room for no_stack */
	sums.fself = xcalloc(c->fn.nr + 2, sizeof(*sums.fself));
	sums.fchildren = xcalloc(c->fn.nr + 2, sizeof(*sums.fchildren));
	sums.fn = xmalloc((c->fn.nr + 2) * sizeof(*sums.fn));
	sums.fn_seen = xcalloc(c->fn.nr + 2, sizeof(*sums.fn_seen));

	/*
	 * Per (run, event): each sample's period on its symnode and its
	 * function's self, then subtree sums from the leaves up, each added
	 * to its function's children where the symnode is the function's
	 * outermost on the chain.  Periods are integers: their sums in
	 * doubles are exact, in any order, below 2^53.
	 */
	for (r = 0; r < p->nr_runs; r++)
		for (e = 0; e < p->nr_events; e++) {
			struct cost_slot *s = &c->slot[(size_t)r * c->nr_events + e];
			double work = c->work[r], all = 0, kept = 0;
			size_t slot = (size_t)r * c->nr_events + e;

			s->first = c->nr_cells;
			s->total = NAN;
			s->samples = 0;
			if (!isfinite(work))
				continue;
			for (i = slot_start[slot]; i < slot_start[slot + 1]; i++) {
				const struct count *ct = &p->counts[by_slot ? by_slot[i] : i];
				double x = (double)ct->period;
				uint32_t k = ct->node < p->nr_nodes ? leaf_of(c, ct->node) : COST_NO_NODE, q;

				all += x;
				s->samples += (double)ct->samples;
				if (k == COST_NO_NODE)
					continue;
				sums.wt[k] += x;
				kept += x;
				if (k) {
					sums.fself[fn_of(c, k)] += x;
					cost_sums__fn(&sums, fn_of(c, k));
				}
				for (q = k; q && !sums.node_seen[q]; q = c->view.nodes[q].parent) {
					sums.node_seen[q] = true;
					sums.node[sums.nr_node++] = q;
				}
			}
			s->total = all / work;
			cost_sums__subtrees(&sums, c);
			/*
			 * A sample the trie keeps no frame of (an empty stack): in the
			 * total, so in some function's self, or the parts would not add up.
			 */
			if (all > 0 && all > kept) {
				if (nostack == UINT32_MAX)
					nostack = no_stack_fn(c);
				sums.fself[nostack] += all - kept;
				sums.fchildren[nostack] += all - kept;
				cost_sums__fn(&sums, nostack);
			}
			cost_sums__cells(&sums, c, c->fn.nr, all > 0 ? work : NAN);
			s->nr = c->nr_cells - s->first;
		}
	/* exactly the cells: doubling left a third of them slack */
	if (c->cells)
		c->cells = xrealloc(c->cells, (c->nr_cells + 1) * sizeof(*c->cells));
	/* cost.work, a total per event, then self, part and children per event and function */
	c->nr_keys = 1 + c->nr_events + 3 * c->nr_events * c->fn.nr;
	c->key = xcalloc(c->nr_keys + 1, sizeof(*c->key));
	free(sums.wt);
	free(sums.node);
	free(sums.node_seen);
	free(sums.fself);
	free(sums.fchildren);
	free(sums.fn);
	free(sums.fn_seen);
	free(by_slot);
	free(slot_start);
	return c;
}

void cost_profile__free(struct cost_profile *c)
{
	size_t i;

	if (!c)
		return;
	strintern__release(&c->fn);
	for (i = 0; i < c->nr_events; i++)
		free(c->event[i]);
	free(c->event);
	free(c->work);
	free(c->slot);
	free(c->cells);
	for (i = 0; i < c->nr_keys; i++)
		free(c->key[i]);
	free(c->key);
	free(c->keep);
	cost_profile__drop_view(c);
	free(c);
}

void cost_profile__drop_view(struct cost_profile *c)
{
	symview__release(&c->view);
	free(c->entry_fn);
	c->entry_fn = NULL;
	c->nr_nodes = 0;
}

bool cost_profile__has_view(const struct cost_profile *c)
{
	return c->view.nodes != NULL;
}

uint32_t cost_profile__parent(const struct cost_profile *c, uint32_t q)
{
	return c->view.nodes[q].parent;
}

uint32_t cost_profile__fn_of(const struct cost_profile *c, uint32_t q)
{
	return fn_of(c, q);
}

void cost_profile__weights(const struct cost_profile *c, uint32_t event, const double *run_scale,
			   double *w)
{
	const struct profile *p = c->p;
	size_t i;

	memset(w, 0, c->nr_nodes * sizeof(*w));
	for (i = 0; c->view.nodes && i < p->nr_counts; i++) {
		const struct count *ct = &p->counts[i];
		uint32_t k;

		if (ct->event != event || ct->run >= p->nr_runs || run_scale[ct->run] == 0 ||
		    ct->node >= p->nr_nodes || (k = leaf_of(c, ct->node)) == COST_NO_NODE)
			continue;
		w[k] += (double)ct->period * run_scale[ct->run];
	}
}

void cost_profiles__keep(struct cost_profile *const *cps, size_t n)
{
	struct strintern kept = { 0 };
	size_t k, i, f;

	/* the functions kept somewhere, by name */
	for (k = 0; k < n; k++) {
		struct cost_profile *c = cps[k];

		for (i = 0; i < (size_t)c->p->nr_runs * c->nr_events; i++) {
			const struct cost_slot *s = &c->slot[i];

			if (!(s->total > 0))
				continue;
			for (f = s->first; f < s->first + s->nr; f++)
				if (c->cells[f].children >= COST_KEY_FLOOR * s->total)
					strintern__xid(&kept, c->fn.s[c->cells[f].fn],
						       c->fn.lens[c->cells[f].fn]);
		}
	}
	for (k = 0; k < n; k++) {
		struct cost_profile *c = cps[k];

		free(c->keep);
		c->keep = xcalloc(c->fn.nr + 1, sizeof(*c->keep));
		for (f = 0; f < c->fn.nr && kept.nr; f++)
			c->keep[f] = strintern__find(&kept, c->fn.s[f], c->fn.lens[f]) !=
				     STRINTERN_NONE;
	}
	strintern__release(&kept);
}

void cost_keys__release(struct cost_keys *k)
{
	free(k->items);
	free(k->ids);
	memset(k, 0, sizeof(*k));
}

enum { KEY_SELF, KEY_PART, KEY_CHILDREN };
static const char *const key_kind[] = { "self", "part", "children" };

/* The id of cost.work (e < 0), of event e's total (fn < 0), or of a function's key of kind. */
static uint32_t key_id(const struct cost_profile *c, int e, int kind, int64_t fn)
{
	if (e < 0)
		return 0;
	if (fn < 0)
		return 1 + (uint32_t)e;
	return (uint32_t)(1 + c->nr_events + ((size_t)e * 3 + (size_t)kind) * c->fn.nr + (size_t)fn);
}

/* Append key id (its string made on first use: the table is the profile's cache) = value. */
static void add_key(const struct cost_profile *c, struct cost_keys *out, uint32_t id, int e,
		    int kind, int64_t fn, double value)
{
	if (!c->key[id]) {
		char key[1280];

		if (e < 0)
			snprintf(key, sizeof(key), "cost.work");
		else
			cost__key(fn < 0 ? "total" : key_kind[kind], c->event[e],
				  fn < 0 ? NULL : c->fn.s[fn], key, sizeof(key));
		c->key[id] = xstrdup(key);
	}
	if (out->nr == out->alloc) {
		out->alloc = out->alloc ? 2 * out->alloc : 64;
		out->items = xrealloc(out->items, out->alloc * sizeof(*out->items));
		out->ids = xrealloc(out->ids, out->alloc * sizeof(*out->ids));
	}
	out->items[out->nr] = (struct key_value){ .key = c->key[id], .value = value };
	out->ids[out->nr++] = id;
}

void cost_profile__keys(const struct cost_profile *c, uint32_t run, const char *const *events,
			const double *base_total, size_t nr_events, struct cost_keys *out)
{
	size_t k, n = events ? nr_events : c->nr_events, i;

	if (run >= c->p->nr_runs || !isfinite(c->work[run]))
		return;
	add_key(c, out, key_id(c, -1, 0, 0), -1, 0, 0, c->work[run]);
	for (k = 0; k < n; k++) {
		int e = events ? cost_profile__event(c, events[k]) : (int)k;
		const struct cost_slot *s = e >= 0 ? cost_profile__slot(c, run, (uint32_t)e) : NULL;
		double bt = events && base_total ? base_total[k] : NAN;

		if (!s || !isfinite(s->total))
			continue;
		add_key(c, out, key_id(c, e, 0, -1), e, 0, -1, s->total);
		for (i = s->first; i < s->first + s->nr; i++) {
			const struct cost_cell *cell = &c->cells[i];
			int64_t fn = cell->fn;

			if (c->keep && !c->keep[fn])
				continue;

			if (cell->self > 0) {
				add_key(c, out, key_id(c, e, KEY_SELF, fn), e, KEY_SELF, fn, cell->self);
				if (isfinite(bt) && bt > 0)
					add_key(c, out, key_id(c, e, KEY_PART, fn), e, KEY_PART, fn,
						100 * cell->self / bt);
			}
			add_key(c, out, key_id(c, e, KEY_CHILDREN, fn), e, KEY_CHILDREN, fn,
				cell->children);
		}
	}
}
