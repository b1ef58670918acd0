/*
 * resolve: the frames of a loaded profile named again from the files of
 * this machine; see include/mmprof/resolve.h.
 *
 * Only user frames without a symbol whose DSO symbols__resolve_saved
 * knows how to read again are touched; a frame keeps its id, so nodes
 * and counts (whatever their layout in the file) need no change.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mmprof/resolve.h"
#include "mmprof/xalloc.h"

/* The entry of dso in r, made if new. */
static struct resolve_dso *dso_entry(struct resolve_result *r, size_t *alloc, uint32_t dso)
{
	size_t i;

	for (i = 0; i < r->nr; i++)
		if (r->dsos[i].dso == dso)
			return &r->dsos[i];
	XGROW(r->dsos, *alloc, r->nr);
	memset(&r->dsos[r->nr], 0, sizeof(r->dsos[r->nr]));
	r->dsos[r->nr].dso = dso;
	return &r->dsos[r->nr++];
}

int resolve__profile(struct profile *p, struct symbols *syms, struct resolve_result *r)
{
	/* per frame: 0 untouched, 1 + index of its DSO in r */
	uint32_t *of = xcalloc(p->nr_frames ? p->nr_frames : 1, sizeof(*of));
	bool *named = xcalloc(p->nr_frames ? p->nr_frames : 1, sizeof(*named));
	size_t i, alloc = 0;
	bool changed = false;

	memset(r, 0, sizeof(*r));
	for (i = 0; i < p->nr_frames; i++) {
		struct frame *f = &p->frames[i];
		const char *dso = profile__str(p, f->dso);
		struct symbol_info si;
		struct resolve_dso *d;
		int err;

		if (f->kernel || f->sym || f->inlined || !dso)
			continue;
		err = symbols__resolve_saved(syms, dso, f->addr, &si);
		if (err == -EOPNOTSUPP)
			continue;
		d = dso_entry(r, &alloc, f->dso);
		d->err = err;
		d->frames++;
		of[i] = (uint32_t)(d - r->dsos) + 1;
		if (err || !si.sym)
			continue;
		f->sym = profile__intern(p, si.sym);
		f->raw = profile__intern(p, si.raw_sym);
		f->sym_off = si.sym_off;
		named[i] = true;
		d->named++;
		changed = true;
	}
	for (i = 0; i < p->nr_counts; i++) {
		const struct count *c = &p->counts[i];
		uint32_t fr;

		r->total += c->samples;
		if (c->node == PROFILE_ROOT || c->node >= p->nr_nodes)
			continue;
		fr = p->nodes[c->node].frame;
		if (fr >= p->nr_frames || (p->frames[fr].sym && !named[fr]))
			continue;
		r->unresolved += c->samples;
		if (of[fr]) {
			r->dsos[of[fr] - 1].samples += c->samples;
			if (named[fr]) {
				r->dsos[of[fr] - 1].named_samples += c->samples;
				r->named += c->samples;
			}
		}
	}
	for (i = 0; i < r->nr; i++) {
		char key[600];

		if (r->dsos[i].err)
			continue;
		/* its symbols were read: the hint said why they were not */
		snprintf(key, sizeof(key), "symbols.hint %s", profile__str(p, r->dsos[i].dso));
		profile__del_meta(p, key);
	}
	if (changed)
		profile__frames_changed(p);
	free(of);
	free(named);
	return 0;
}

void resolve_result__release(struct resolve_result *r)
{
	free(r->dsos);
	memset(r, 0, sizeof(*r));
}
