/*
 * resolve: the frames of a loaded profile named again from the files of
 * this machine; see include/mmprof/resolve.h.
 *
 * Only user frames without a symbol whose DSO symbols__resolve_saved
 * knows how to read again are touched: perf maps, and ELF files for the
 * frames record saved a file address for (profile's frame_files); a
 * frame keeps its id, so nodes and counts (whatever their layout in the
 * file) need no change.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mmprof/resolve.h"
#include "mmprof/xalloc.h"

/* A JIT's perf map, as symbols names its DSO (perf's /tmp/perf-PID.map). */
static bool is_perfmap(const char *dso)
{
	int n = 0;

	return sscanf(dso, "/tmp/perf-%*d.map%n", &n) >= 0 && n && !dso[n];
}

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
	size_t nf = p->nr_frames ? p->nr_frames : 1;
	/* per frame: 0 untouched, 1 + index of its DSO in r; 1 + its frame_files row */
	uint32_t *of = xcalloc(nf, sizeof(*of)), *ff = xcalloc(nf, sizeof(*ff));
	bool *named = xcalloc(nf, sizeof(*named));
	size_t i, alloc = 0;
	bool changed = false;

	memset(r, 0, sizeof(*r));
	for (i = p->nr_frame_files; i-- > 0;)	/* from the end: the first row wins */
		if (p->frame_files[i].frame < p->nr_frames)
			ff[p->frame_files[i].frame] = (uint32_t)i + 1;
	for (i = 0; i < p->nr_frames; i++) {
		struct frame *f = &p->frames[i];
		struct saved_frame sf = { .dso = profile__str(p, f->dso), .addr = f->addr };
		struct symbol_info si;
		struct resolve_dso *d;
		int err;

		if (f->kernel || f->sym || f->inlined || !sf.dso)
			continue;
		if (ff[i]) {
			sf.vaddr = p->frame_files[ff[i] - 1].vaddr;
			sf.build_id = p->frame_files[ff[i] - 1].build_id;
		}
		err = symbols__resolve_saved(syms, &sf, &si);
		if (err == -EOPNOTSUPP)
			continue;
		d = dso_entry(r, &alloc, f->dso);
		d->err = err;
		d->perfmap = is_perfmap(sf.dso);
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
		const char *dso = profile__str(p, r->dsos[i].dso);
		char key[600];

		/*
		 * The hint said why the names were missing: a perf map's goes
		 * once the map was read, a file's once every frame is named.
		 */
		if (r->dsos[i].err ||
		    (!r->dsos[i].perfmap && r->dsos[i].named < r->dsos[i].frames))
			continue;
		snprintf(key, sizeof(key), "symbols.hint %s", dso);
		profile__del_meta(p, key);
	}
	if (changed)
		profile__frames_changed(p);
	free(of);
	free(ff);
	free(named);
	return 0;
}

void resolve_result__release(struct resolve_result *r)
{
	free(r->dsos);
	memset(r, 0, sizeof(*r));
}
