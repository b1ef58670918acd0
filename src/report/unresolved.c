/*
 * unresolved: where a recording's "[unknown]" frames come from, per DSO,
 * with the likely cause (report --unresolved).
 *
 * Two kinds of loss, counted over the samples of one event:
 *   - the sampled address itself has no name: counted for the DSO of that
 *     address ("[unmapped]" when no mapping was known), hint from the
 *     recorder's meta "symbols.hint <dso>" (no debuginfo, JIT without a
 *     map, deleted file, ...) or from the kind of frame;
 *   - the sampled address is named but its caller is not: the usual sign
 *     of code built without frame pointers, counted for the sampled DSO.
 * One pass over the counts; arrays indexed by DSO string id.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "mmprof/report.h"
#include "mmprof/xalloc.h"

struct unres_row {
	uint32_t dso;		/* string id, 0: no mapping */
	uint8_t kernel;
	uint8_t callers;	/* 1: the callers are lost, not the address */
	uint64_t samples;
};

static int row_cmp(const void *a, const void *b)
{
	const struct unres_row *x = a, *y = b;

	if (x->samples != y->samples)
		return x->samples < y->samples ? 1 : -1;
	if (x->callers != y->callers)
		return x->callers - y->callers;
	return x->dso < y->dso ? -1 : x->dso > y->dso;
}

static const char *hint_of(const struct profile *p, const struct unres_row *r, char *buf,
			   size_t size)
{
	const char *dso = profile__str(p, r->dso), *h;

	if (r->callers)
		return "callers unresolved: built without frame pointers? "
		       "rebuild with -fno-omit-frame-pointer";
	if (dso) {
		snprintf(buf, size, "symbols.hint %s", dso);
		if ((h = profile__meta(p, buf)))
			return h;
	}
	if (r->kernel)
		return "kernel address outside kallsyms (kptr_restrict, or a module or BPF "
		       "program gone at record end)";
	if (!dso)
		return "no mapping known for the address (process started before recording, "
		       "or MMAP records lost)";
	return "address outside every symbol (stripped code or hand-written assembly)";
}

int report__unresolved(const struct profile *p, int event, FILE *out)
{
	size_t nslots = (p->nr_strs ? p->nr_strs : 1) * 2, i, nr = 0;
	uint64_t *by = xcalloc(nslots, sizeof(*by)), total = 0, lost = 0;
	uint8_t *kern = xcalloc(nslots, sizeof(*kern));
	struct unres_row *rows;
	const char *ev;
	char buf[4352];

	if (event < 0)
		event = 0;
	for (i = 0; i < p->nr_counts; i++) {
		const struct count *c = &p->counts[i];
		const struct stack_node *n;
		const struct frame *f, *up;
		size_t slot;

		if (c->event != (uint32_t)event)
			continue;
		total += c->samples;
		if (c->node == PROFILE_ROOT || c->node >= p->nr_nodes)
			continue;
		n = &p->nodes[c->node];
		f = &p->frames[n->frame];
		/* the outermost of an inline chain stands for the address */
		while (f->inlined && n->parent != PROFILE_ROOT) {
			n = &p->nodes[n->parent];
			f = &p->frames[n->frame];
		}
		if (!f->sym) {
			slot = (f->dso < p->nr_strs ? f->dso : 0) * 2;
		} else if (!f->kernel && n->parent != PROFILE_ROOT &&
			   !(up = &p->frames[p->nodes[n->parent].frame])->sym && !up->kernel) {
			slot = (f->dso < p->nr_strs ? f->dso : 0) * 2 + 1;
		} else {
			continue;
		}
		by[slot] += c->samples;
		kern[slot] |= f->kernel;
		if (!(slot & 1))
			lost += c->samples;
	}
	rows = xcalloc(nslots, sizeof(*rows));
	for (i = 0; i < nslots; i++) {
		if (!by[i])
			continue;
		rows[nr++] = (struct unres_row){ .dso = (uint32_t)(i / 2), .kernel = kern[i],
						 .callers = (uint8_t)(i & 1), .samples = by[i] };
	}
	qsort(rows, nr, sizeof(*rows), row_cmp);
	ev = event < (int)p->nr_events ? profile__str(p, p->events[event].name) : NULL;
	fprintf(out, "# Unresolved samples of '%s': %.2f%% of %llu samples have no name for "
		"the sampled address\n", ev ? ev : "?", total ? 100.0 * (double)lost / (double)total : 0.0,
		(unsigned long long)total);
	fprintf(out, "#    Share  Samples  What       DSO: hint\n");
	for (i = 0; i < nr; i++) {
		const char *dso = profile__str(p, rows[i].dso);

		fprintf(out, "%8.2f%%  %7llu  %-9s  %s: %s\n",
			total ? 100.0 * (double)rows[i].samples / (double)total : 0.0,
			(unsigned long long)rows[i].samples, rows[i].callers ? "callers" : "address",
			dso ? dso : "[unmapped]", hint_of(p, &rows[i], buf, sizeof(buf)));
	}
	free(rows);
	free(by);
	free(kern);
	return ferror(out) ? -EIO : 0;
}
