/*
 * cost: a profile's self and children costs per unit of work, per run and
 * event, and the run's cost keys (cost.h).  One symbol trie per profile
 * (every sample kept, unresolved frames one "[unknown]" per DSO), then per
 * (run, event) one pass over the counts and one over the trie.
 */
#include <linux/perf_event.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mmprof/cost.h"
#include "mmprof/hashidx.h"
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

struct fn_names {
	char **name;
	size_t nr, alloc;
	struct hashidx idx;
};

static bool name_eq(const void *ctx, uint32_t row, const void *key)
{
	const struct fn_names *n = ctx;

	return !strcmp(n->name[row], key);
}

static uint32_t fn_names__intern(struct fn_names *n, const char *s)
{
	uint64_t h = hash__bytes(s, strlen(s));
	uint32_t row = hashidx__find(&n->idx, h, name_eq, n, s);

	if (row != HASHIDX_NONE)
		return row;
	XGROW(n->name, n->alloc, n->nr);
	n->name[n->nr] = xstrdup(s);
	hashidx__insert(&n->idx, h, (uint32_t)n->nr);
	return (uint32_t)n->nr++;
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
 * c's compact trie (cost_profile.parent, node_fn, leaf) from p's symview
 * with every sample kept, its functions into names, and per symnode
 * whether it is the outermost of its entry on its chain (*top, owned by
 * the caller): a sample counts once in the children of each function on
 * its stack.  The symview goes before the runs are summed.
 */
static void cost_profile__trie(struct cost_profile *c, struct fn_names *names, bool **top)
{
	struct symview_opts so = { .keep_unresolved = true, .unknown_by_dso = true };
	const struct profile *p = c->p;
	struct symview v;
	uint32_t *entry_fn;
	size_t i;

	symview__init_opts(&v, p, &so);
	entry_fn = xmalloc((v.nr_entries + 1) * sizeof(*entry_fn));
	for (i = 0; i < v.nr_entries; i++) {
		char key[1024];

		entry_key(&v, (uint32_t)i, key, sizeof(key));
		entry_fn[i] = fn_names__intern(names, key);
	}
	c->nr_nodes = v.nr_nodes;
	c->parent = xmalloc((v.nr_nodes + 1) * sizeof(*c->parent));
	c->node_fn = xmalloc((v.nr_nodes + 1) * sizeof(*c->node_fn));
	*top = xmalloc(v.nr_nodes + 1);
	for (i = 0; i < v.nr_nodes; i++) {
		const struct symnode *n = &v.nodes[i];

		c->parent[i] = n->parent;
		c->node_fn[i] = i ? entry_fn[n->entry] : COST_NO_NODE;
		(*top)[i] = n->same_anc == SYMVIEW_NONE;
	}
	/* the profile node's symnode, NONE where its samples do not count */
	c->leaf = v.node_map;
	v.node_map = NULL;
	for (i = 0; i < p->nr_nodes; i++)
		if (!v.node_keep[i])
			c->leaf[i] = COST_NO_NODE;
	free(entry_fn);
	symview__release(&v);
}

struct cost_profile *cost_profile__new(const struct profile *p, const struct cost_work *w)
{
	struct cost_profile *c = xcalloc(1, sizeof(*c));
	struct fn_names names = { 0 };
	double *wt, *fself, *fchildren;
	uint32_t *by_slot, nostack = UINT32_MAX;
	size_t i, *slot_start;
	uint32_t r, e;
	bool *top;

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

	hashidx__init(&names.idx);
	cost_profile__trie(c, &names, &top);
	slot_start = profile__group_counts(p, &by_slot);
	wt = xmalloc((c->nr_nodes + 1) * sizeof(*wt));
	/* the functions' sums: entries of one name (one function in two DSOs) are one key */
	fself = xcalloc(names.nr + 2, sizeof(*fself));
	fchildren = xcalloc(names.nr + 2, sizeof(*fchildren));

	/*
	 * Per (run, event): each sample's period on its symnode and its
	 * function's self, then subtree sums from the leaves up (a child's id
	 * is above its parent's), each added to its function's children where
	 * the symnode is the function's outermost on the chain.  Periods are
	 * integers: their sums in doubles are exact, in any order, below 2^53.
	 */
	for (r = 0; r < p->nr_runs; r++)
		for (e = 0; e < p->nr_events; e++) {
			struct cost_slot *s = &c->slot[(size_t)r * c->nr_events + e];
			double work = c->work[r], all = 0, kept = 0;
			size_t slot = (size_t)r * c->nr_events + e, f, more, q;

			s->first = c->nr_cells;
			s->total = NAN;
			if (!isfinite(work))
				continue;
			memset(wt, 0, c->nr_nodes * sizeof(*wt));
			for (i = slot_start[slot]; i < slot_start[slot + 1]; i++) {
				const struct count *ct = &p->counts[by_slot[i]];
				double x = (double)ct->period;
				uint32_t k = ct->node < p->nr_nodes ? c->leaf[ct->node] : COST_NO_NODE;

				all += x;
				if (k == COST_NO_NODE)
					continue;
				wt[k] += x;
				kept += x;
				if (k)
					fself[c->node_fn[k]] += x;
			}
			s->total = all / work;
			if (!(all > 0))
				continue;
			for (q = c->nr_nodes; q-- > 1;) {
				if (top[q])
					fchildren[c->node_fn[q]] += wt[q];
				wt[c->parent[q]] += wt[q];
			}
			/*
			 * A sample the trie keeps no frame of (an empty stack): in the
			 * total, so in some function's self, or the parts would not add up.
			 */
			if (all > kept) {
				/* one name more than the entries': fself has room for it */
				if (nostack == UINT32_MAX)
					nostack = fn_names__intern(&names, no_stack);
				fself[nostack] += all - kept;
				fchildren[nostack] += all - kept;
			}
			/* exactly the slot's cells more: doubling left a third of them slack */
			for (f = 0, more = 0; f < names.nr; f++)
				more += fself[f] > 0 || fchildren[f] > 0;
			c->cells = xrealloc(c->cells, (c->nr_cells + more + 1) * sizeof(*c->cells));
			for (f = 0; f < names.nr; f++) {
				if (fself[f] > 0 || fchildren[f] > 0) {
					c->cells[c->nr_cells++] = (struct cost_cell){
						(uint32_t)f, fself[f] / work, fchildren[f] / work };
				}
				fself[f] = fchildren[f] = 0;
			}
			s->nr = c->nr_cells - s->first;
		}
	c->fn = names.name;
	c->nr_fn = names.nr;
	/* cost.work, a total per event, then self, part and children per event and function */
	c->nr_keys = 1 + c->nr_events + 3 * c->nr_events * c->nr_fn;
	c->key = xcalloc(c->nr_keys + 1, sizeof(*c->key));
	hashidx__release(&names.idx);
	free(fself);
	free(fchildren);
	free(wt);
	free(top);
	free(by_slot);
	free(slot_start);
	return c;
}

void cost_profile__free(struct cost_profile *c)
{
	size_t i;

	if (!c)
		return;
	for (i = 0; i < c->nr_fn; i++)
		free(c->fn[i]);
	for (i = 0; i < c->nr_events; i++)
		free(c->event[i]);
	free(c->fn);
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
	free(c->parent);
	free(c->node_fn);
	free(c->leaf);
	c->parent = c->node_fn = c->leaf = NULL;
	c->nr_nodes = 0;
}

void cost_profile__weights(const struct cost_profile *c, uint32_t event, const double *run_scale,
			   double *w)
{
	const struct profile *p = c->p;
	size_t i;

	memset(w, 0, c->nr_nodes * sizeof(*w));
	for (i = 0; c->leaf && i < p->nr_counts; i++) {
		const struct count *ct = &p->counts[i];
		uint32_t k;

		if (ct->event != event || ct->run >= p->nr_runs || run_scale[ct->run] == 0 ||
		    ct->node >= p->nr_nodes || (k = c->leaf[ct->node]) == COST_NO_NODE)
			continue;
		w[k] += (double)ct->period * run_scale[ct->run];
	}
}

void cost_profiles__keep(struct cost_profile *const *cps, size_t n)
{
	struct fn_names kept = { 0 };
	size_t k, i, f;

	hashidx__init(&kept.idx);
	for (k = 0; k < n; k++) {
		const struct cost_profile *c = cps[k];

		for (i = 0; i < (size_t)c->p->nr_runs * c->nr_events; i++) {
			const struct cost_slot *s = &c->slot[i];

			if (!(s->total > 0))
				continue;
			for (f = s->first; f < s->first + s->nr; f++)
				if (c->cells[f].children >= COST_KEY_FLOOR * s->total)
					fn_names__intern(&kept, c->fn[c->cells[f].fn]);
		}
	}
	for (k = 0; k < n; k++) {
		struct cost_profile *c = cps[k];

		free(c->keep);
		c->keep = xcalloc(c->nr_fn + 1, sizeof(*c->keep));
		for (f = 0; f < c->nr_fn; f++) {
			const char *s = c->fn[f];

			c->keep[f] = hashidx__find(&kept.idx, hash__bytes(s, strlen(s)), name_eq,
						   &kept, s) != HASHIDX_NONE;
		}
	}
	for (i = 0; i < kept.nr; i++)
		free(kept.name[i]);
	free(kept.name);
	hashidx__release(&kept.idx);
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
	return (uint32_t)(1 + c->nr_events + ((size_t)e * 3 + (size_t)kind) * c->nr_fn + (size_t)fn);
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
				  fn < 0 ? NULL : c->fn[fn], key, sizeof(key));
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
