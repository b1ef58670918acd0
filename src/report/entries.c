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
