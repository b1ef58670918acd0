/*
 * entries: the (DSO, symbol) entries of one event with their children and
 * self shares over every sample (perf report --children without -U), for
 * a view that lists top functions without a graph (the HTML page) and
 * test-report's model of max-stack.  One symview build and a linear pass.
 * A profile with whole chains (p->whole) has its entries as with every
 * chain whole in the trie: the trie's cells under "[elided]" are left for
 * one walk of the chains (report__whole_entries).
 */
#include <stdlib.h>
#include <string.h>

#include "mmprof/chainsrc.h"
#include "mmprof/keys.h"
#include "mmprof/message.h"
#include "mmprof/report.h"
#include "mmprof/symview.h"
#include "mmprof/xalloc.h"

/* The whole chains' part of report's entry lines: flat, or per comm. */
struct whole_row {
	uint32_t comm, entry;
	double children, self;
};

struct whole_acc {
	uint32_t event;
	bool use_period;
	double total;
	uint32_t max_stack;
	uint64_t cut;			/* chains deeper than max_stack */
	double *children, *self;	/* flat: [entry] */
	bool by_comm;			/* else rows per (comm, entry) */
	struct whole_row *rows;
	size_t nr, alloc;
	struct hashidx idx;
};

static bool row_eq(const void *ctx, uint32_t row, const void *key)
{
	const struct whole_row *a = &((const struct whole_acc *)ctx)->rows[row], *b = key;

	return a->comm == b->comm && a->entry == b->entry;
}

static struct whole_row *comm_row(struct whole_acc *a, uint32_t comm, uint32_t entry)
{
	struct whole_row k = { .comm = comm, .entry = entry };
	uint64_t h = hash__u64(((uint64_t)comm << 32) | entry);
	uint32_t r = hashidx__find(&a->idx, h, row_eq, a, &k);

	if (r == HASHIDX_NONE) {
		XGROW(a->rows, a->alloc, a->nr);
		r = (uint32_t)a->nr++;
		a->rows[r] = k;
		hashidx__insert(&a->idx, h, r);
	}
	return &a->rows[r];
}

static void add_whole(void *ctx, const struct chain_entries *c)
{
	struct whole_acc *a = ctx;
	uint32_t i, k;

	if (a->max_stack && c->nr_frames > a->max_stack)
		a->cut++;
	for (i = 0; i < c->nr_cells; i++) {
		const struct chain_cell *cell = &c->cells[i];
		double x = (double)(a->use_period ? cell->period : cell->samples);

		if (cell->event != a->event)
			continue;
		a->total += x;
		if (!a->by_comm) {
			for (k = 0; k < c->nr; k++)
				a->children[c->entries[k]] += x;
			a->self[c->self] += x;
			continue;
		}
		for (k = 0; k < c->nr; k++)
			comm_row(a, cell->comm, c->entries[k])->children += x;
		comm_row(a, cell->comm, c->self)->self += x;
	}
}

/* The walk into a; its error, said once: the shares then lack those chains. */
static void walk_whole(const struct symview *v, struct whole_acc *a)
{
	int err = chainkeys__each_entries(v, add_whole, a);

	if (err)
		warning("the file's whole chains are unreadable (%s): entry shares lack part of "
			"their samples", strerror(err < 0 ? -err : err));
}

/* [count] indices of event's counts not under "[elided]"; how many in *n. */
static uint32_t *counts_not_elided(const struct profile *p, uint32_t event, size_t *n)
{
	uint8_t *el = profile__elided_nodes(p);
	uint32_t *idx = xmalloc((p->nr_counts + 1) * sizeof(*idx));
	size_t i;

	*n = 0;
	for (i = 0; i < p->nr_counts; i++) {
		const struct count *c = &p->counts[i];

		if (c->event == event && !(c->node < p->nr_nodes && el[c->node]))
			idx[(*n)++] = (uint32_t)i;
	}
	free(el);
	return idx;
}

double report__whole_entries(const struct symview *v, uint32_t event, double *children,
			     double *self, uint64_t *nr_cut)
{
	const struct profile *p = v->p;
	struct whole_acc a = { .event = event, .use_period = true, .children = children,
			       .self = self, .max_stack = v->max_stack };
	double *w = xmalloc((v->nr_nodes + 1) * sizeof(*w));
	uint32_t *idx;
	size_t n;

	if (!p->whole) {
		a.total = symview__weights(v, SYMVIEW_ALL_RUNS, event, true, w);
		symview__cumulate(v, w, w, NULL, children, self);
		free(w);
		if (nr_cut)
			*nr_cut = v->nr_cut;
		return a.total;
	}
	idx = counts_not_elided(p, event, &n);
	a.total = symview__weights_of(v, idx, n, true, w);
	symview__cumulate(v, w, w, NULL, children, self);
	walk_whole(v, &a);
	if (nr_cut) {
		uint8_t *el = profile__elided_nodes(p), *seen = xcalloc(p->nr_nodes + 1, 1);
		size_t i;

		*nr_cut = a.cut;
		for (i = 0; v->max_stack && i < p->nr_counts; i++) {
			uint32_t q = p->counts[i].node;

			if (q < p->nr_nodes && p->nodes[q].depth > v->max_stack && !el[q] && !seen[q]) {
				seen[q] = 1;
				++*nr_cut;
			}
		}
		free(seen);
		free(el);
	}
	free(idx);
	free(w);
	return a.total;
}

static int by_children(const void *a, const void *b)
{
	const struct report_entry *x = a, *y = b;

	if (x->children != y->children)
		return x->children > y->children ? -1 : 1;
	if (x->self != y->self)
		return x->self > y->self ? -1 : 1;
	return strcmp(x->sym, y->sym);
}

struct report_entry *report__entries(const struct profile *p, int event, bool unknown_by_dso,
				     double floor_pct, size_t *nr)
{
	struct symview_opts so = { .keep_unresolved = true, .unknown_by_dso = unknown_by_dso,
				   .max_stack = REPORT_MAX_STACK };
	struct report_entry *rows = NULL;
	double *w, *children, *self, total;
	struct symview v;
	size_t i, n = 0;

	*nr = 0;
	if (event < 0 || (size_t)event >= p->nr_events)
		return NULL;
	symview__init_opts(&v, p, &so);
	w = xmalloc(v.nr_nodes * sizeof(*w));
	children = xmalloc((v.nr_entries + 1) * sizeof(*children));
	self = xmalloc((v.nr_entries + 1) * sizeof(*self));
	if (p->whole)
		total = report__whole_entries(&v, (uint32_t)event, children, self, NULL);
	else
		total = symview__weights(&v, SYMVIEW_ALL_RUNS, (uint32_t)event, true, w);
	if (total > 0) {
		if (!p->whole)
			symview__cumulate(&v, w, NULL, NULL, children, self);
		rows = xmalloc((v.nr_entries + 1) * sizeof(*rows));
		for (i = 0; i < v.nr_entries; i++) {
			double c = 100.0 * children[i] / total, s = 100.0 * self[i] / total;

			if (c < floor_pct || c <= 0)
				continue;
			rows[n++] = (struct report_entry){
				.sym = symview__entry_name(&v, (uint32_t)i),
				.dso = v.entries[i].dso ? symview__entry_dso(&v, (uint32_t)i) : NULL,
				.kernel = v.entries[i].kernel, .children = c, .self = s };
		}
		if (n)
			qsort(rows, n, sizeof(*rows), by_children);
	}
	free(w);
	free(children);
	free(self);
	symview__release(&v);
	*nr = n;
	return rows;
}

/* a count of the event with its comm, to group the counts by comm */
struct comm_count {
	uint32_t comm, count;
};

static int by_comm(const void *a, const void *b)
{
	const struct comm_count *x = a, *y = b;

	if (x->comm != y->comm)
		return x->comm < y->comm ? -1 : 1;
	return x->count < y->count ? -1 : x->count > y->count;
}

static int by_comm_entry(const void *a, const void *b)
{
	const struct whole_row *x = a, *y = b;

	if (x->comm != y->comm)
		return x->comm < y->comm ? -1 : 1;
	return x->entry < y->entry ? -1 : x->entry > y->entry;
}

struct report_entry *report__comm_entries(const struct profile *p, int event, double floor_pct,
					  size_t *nr)
{
	struct symview_opts so = { .keep_unresolved = true, .unknown_by_dso = true,
				   .max_stack = REPORT_MAX_STACK };
	struct report_entry *rows = NULL;
	size_t n = 0, alloc = 0, nc = 0, i, j, e;
	double *w, *children, *self, total = 0;
	struct comm_count *cc;
	uint32_t *idx, *keep = NULL;
	uint8_t *el = NULL;
	size_t nk = 0, r = 0;
	struct whole_acc a = { .event = (uint32_t)event, .by_comm = true };
	struct symview v;

	*nr = 0;
	if (event < 0 || (size_t)event >= p->nr_events)
		return NULL;
	symview__init_opts(&v, p, &so);
	cc = xmalloc((p->nr_counts + 1) * sizeof(*cc));
	for (i = 0; i < p->nr_counts; i++)
		if (p->counts[i].event == (uint32_t)event)
			cc[nc++] = (struct comm_count){ p->counts[i].comm, (uint32_t)i };
	qsort(cc, nc, sizeof(*cc), by_comm);
	idx = xmalloc((nc + 1) * sizeof(*idx));
	for (i = 0; i < nc; i++)
		idx[i] = cc[i].count;
	w = xmalloc(v.nr_nodes * sizeof(*w));
	children = xmalloc((v.nr_entries + 1) * sizeof(*children));
	self = xmalloc((v.nr_entries + 1) * sizeof(*self));
	if (p->whole) {
		/* each comm's counts not under "[elided]", then the chains' rows by comm */
		el = profile__elided_nodes(p);
		keep = xmalloc((nc + 1) * sizeof(*keep));
		for (i = 0; i < nc; i++)
			if (!(p->counts[idx[i]].node < p->nr_nodes && el[p->counts[idx[i]].node]))
				keep[nk++] = idx[i];
		hashidx__init(&a.idx);
		walk_whole(&v, &a);
		hashidx__release(&a.idx);
		if (a.nr)
			qsort(a.rows, a.nr, sizeof(*a.rows), by_comm_entry);
		total = symview__weights_of(&v, keep, nk, false, w) + a.total;
	} else {
		total = symview__weights_of(&v, idx, nc, false, w);
	}
	for (i = 0; total > 0 && i < nc; i = j) {
		uint32_t comm = p->counts[idx[i]].comm;

		for (j = i; j < nc && p->counts[idx[j]].comm == comm; j++)
			;
		if (!p->whole) {
			symview__weights_of(&v, idx + i, j - i, false, w);
			symview__cumulate(&v, w, NULL, NULL, children, self);
		} else {
			size_t nkc = 0;

			for (e = i; e < j; e++)
				if (!(p->counts[idx[e]].node < p->nr_nodes && el[p->counts[idx[e]].node]))
					keep[nkc++] = idx[e];
			symview__weights_of(&v, keep, nkc, false, w);
			symview__cumulate(&v, w, NULL, NULL, children, self);
			while (r < a.nr && a.rows[r].comm < comm)
				r++;
			for (; r < a.nr && a.rows[r].comm == comm; r++) {
				children[a.rows[r].entry] += a.rows[r].children;
				self[a.rows[r].entry] += a.rows[r].self;
			}
		}
		for (e = 0; e < v.nr_entries; e++) {
			double c = 100.0 * children[e] / total, s = 100.0 * self[e] / total;

			if (c < floor_pct || c <= 0)
				continue;
			XGROW(rows, alloc, n);
			rows[n++] = (struct report_entry){
				.sym = symview__entry_name(&v, (uint32_t)e),
				.dso = v.entries[e].dso ? symview__entry_dso(&v, (uint32_t)e) : NULL,
				.comm = profile__str(p, comm), .kernel = v.entries[e].kernel,
				.children = c, .self = s };
		}
	}
	if (n)
		qsort(rows, n, sizeof(*rows), by_children);
	free(w);
	free(children);
	free(self);
	free(idx);
	free(cc);
	free(keep);
	free(el);
	free(a.rows);
	symview__release(&v);
	*nr = n;
	return rows;
}
