/*
 * entries: the (DSO, symbol) entries of one event with their children and
 * self shares over every sample (perf report --children without -U), for
 * a view that lists top functions without a graph (the HTML page) and
 * test-report's model of max-stack.  One symview build and a linear pass.
 */
#include <stdlib.h>
#include <string.h>

#include "mmprof/report.h"
#include "mmprof/symview.h"
#include "mmprof/xalloc.h"

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
	total = symview__weights(&v, SYMVIEW_ALL_RUNS, (uint32_t)event, true, w);
	if (total > 0) {
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

struct report_entry *report__comm_entries(const struct profile *p, int event, double floor_pct,
					  size_t *nr)
{
	struct symview_opts so = { .keep_unresolved = true, .unknown_by_dso = true,
				   .max_stack = REPORT_MAX_STACK };
	struct report_entry *rows = NULL;
	size_t n = 0, alloc = 0, nc = 0, i, j, e;
	double *w, *children, *self, total = 0;
	struct comm_count *cc;
	uint32_t *idx;
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
	total = symview__weights_of(&v, idx, nc, false, w);
	for (i = 0; total > 0 && i < nc; i = j) {
		uint32_t comm = p->counts[idx[i]].comm;

		for (j = i; j < nc && p->counts[idx[j]].comm == comm; j++)
			;
		symview__weights_of(&v, idx + i, j - i, false, w);
		symview__cumulate(&v, w, NULL, NULL, children, self);
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
	symview__release(&v);
	*nr = n;
	return rows;
}
