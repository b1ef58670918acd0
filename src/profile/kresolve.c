/*
 * kresolve: a loaded profile's kernel frames named and given their inline
 * chains from a vmlinux found after the recording; see
 * include/mmprof/resolve.h (resolve__attach_vmlinux, resolve__kernel).
 *
 * The file's meta says which kernel it was (kernel_build_id) and where
 * its text ran (kernel_ref_reloc_sym); both are text of a file that may
 * come from anywhere, so they are parsed strictly.  Workload: the file's
 * frames once, one DWARF lookup per distinct core-kernel frame, one pass
 * over the nodes and the counts when the trie is rebuilt.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mmprof/chainsrc.h"
#include "mmprof/resolve.h"
#include "mmprof/xalloc.h"

#define KERNEL_DSO "[kernel.kallsyms]"
#define MAX_CHAIN 32

/* "_text 0xffffffff81000000" as record writes it; false for anything else. */
static bool parse_ref(const char *v, struct kernel_ref *ref)
{
	char name[8];
	uint64_t addr;
	int n = 0;

	memset(ref, 0, sizeof(*ref));
	if (!v || sscanf(v, "%7s %" SCNx64 "%n", name, &addr, &n) != 2 || v[n] || !addr)
		return false;
	if (strcmp(name, "_text") && strcmp(name, "_stext"))
		return false;
	snprintf(ref->name, sizeof(ref->name), "%s", name);
	ref->addr = addr;
	return true;
}

static bool is_hex_id(const char *v)
{
	size_t n = v ? strspn(v, "0123456789abcdef") : 0;

	return n && !v[n] && n <= PROFILE_BUILD_ID_MAX;
}

int resolve__attach_vmlinux(const struct profile *p, struct symbols *syms, const char *path,
			    struct resolve_kernel *k, struct errmsg *e)
{
	const char *id = profile__meta(p, "kernel_build_id");
	struct kernel_ref ref;
	int err;

	memset(k, 0, sizeof(*k));
	if (!is_hex_id(id))
		return errmsg__set(e, -ENOKEY,
				   "the file keeps no build-id of its kernel (meta kernel_build_id: "
				   "recorded by an mmprof before 0.1.0's resolve --vmlinux, or "
				   "edited): cannot tell the vmlinux is its kernel's");
	if (!parse_ref(profile__meta(p, "kernel_ref_reloc_sym"), &ref))
		return errmsg__set(e, -ENODATA,
				   "the file keeps no address of its kernel's text (meta "
				   "kernel_ref_reloc_sym: kallsyms hid addresses while recording, "
				   "or mmprof strip removed it): "
				   "cannot place a vmlinux under KASLR");
	snprintf(k->build_id, sizeof(k->build_id), "%s", id);
	err = symbols__use_vmlinux_at(syms, path, id, &ref, e);
	if (err)
		return err;
	k->slide = symbols__vmlinux_slide(syms);
	return 0;
}

/* A core-kernel frame resolve may look up: its address kept, not inlined. */
static bool core_frame(const struct profile *p, const struct frame *f, uint32_t kdso,
		       struct resolve_kernel *k)
{
	if (!f->kernel || f->inlined || f->addr == PROFILE_REJECTED_ADDR)
		return false;
	if (f->dso && f->dso != kdso) {
		k->module_frames++;	/* a module, BPF or trampoline text */
		return false;
	}
	if (!f->addr) {
		k->hidden_frames++;
		return false;
	}
	return true;
}

/*
 * The inline frames at real frame fr, appended to ids as [n, outermost ..
 * innermost]; returns 1 + their offset, or 0 when nothing is inlined.
 */
static uint32_t chain_of(struct profile *p, struct symbols *syms, uint32_t fr, bool exact,
			 uint32_t **ids, size_t *nr, size_t *alloc)
{
	const char *names[MAX_CHAIN];
	struct frame f = p->frames[fr];
	size_t n = symbols__kernel_inline_chain(syms, exact ? f.addr : f.addr - 1, names, MAX_CHAIN);
	size_t at = *nr, k;

	if (n < 2)
		return 0;
	XGROW(*ids, *alloc, at + n);
	(*ids)[at] = (uint32_t)(n - 1);
	/* names: innermost first, the real function last (not repeated) */
	for (k = 0; k + 1 < n; k++) {
		f.sym = profile__intern(p, names[n - 2 - k]);
		f.sym_off = 0;
		f.raw = 0;
		f.inlined = 1;
		(*ids)[at + 1 + k] = profile__frame(p, &f);
	}
	*nr = at + n;
	return (uint32_t)at + 1;
}

struct chainins {
	struct chainsrc src;
	struct chainsrc *inner;
	uint32_t *ins, *ids;
	size_t nr_ins;
	chain_fn fn;
	void *ctx;
	uint32_t *out;		/* the chain with its inline frames */
	size_t alloc_out;
	size_t *off;		/* off[k]: where the chain's frame k is in out */
	size_t alloc_off;
	int err;
};

static int ins_chain(void *ctx, const struct chain_rec *c)
{
	struct chainins *x = ctx;
	struct chain_rec r = *c;
	size_t k, at;

	XGROW(x->off, x->alloc_off, c->nr);
	/* the shared frames' inline frames are shared: out[0 .. off[lcp]) stays */
	at = c->lcp ? x->off[c->lcp] : 0;
	for (k = c->lcp; k < c->nr; k++) {
		uint32_t f = c->frames[k], n = f < x->nr_ins && x->ins[f] ? x->ids[x->ins[f] - 1] : 0, j;

		x->off[k] = at;
		if (at + 1 + n > PROFILE_MAX_DEPTH) {
			x->err = -E2BIG;
			return 1;
		}
		XGROW(x->out, x->alloc_out, at + n);
		x->out[at++] = f;
		for (j = 1; j <= n; j++)
			x->out[at++] = x->ids[x->ins[f] - 1 + j];
	}
	x->off[c->nr] = at;
	r.frames = x->out;
	r.nr = (uint32_t)at;
	r.lcp = (uint32_t)(c->lcp ? x->off[c->lcp] : 0);
	return x->fn(x->ctx, &r);
}

static int ins_each(struct chainsrc *src, chain_fn fn, void *ctx)
{
	struct chainins *x = (struct chainins *)src;
	int ret;

	x->fn = fn;
	x->ctx = ctx;
	x->err = 0;
	ret = chainsrc__each(x->inner, ins_chain, x);
	return x->err ? x->err : ret;
}

static void ins_release(struct chainsrc *src)
{
	struct chainins *x = (struct chainins *)src;

	chainsrc__release(x->inner);
	free(x->ins);
	free(x->ids);
	free(x->out);
	free(x->off);
	free(x);
}

static int ins_count(void *ctx, const struct chain_rec *c)
{
	*(uint64_t *)ctx += c->nr;
	return 0;
}

struct chainsrc *resolve__chains_inlined(struct chainsrc *inner, const uint32_t *ins,
					 size_t nr_ins, const uint32_t *ids)
{
	struct chainins *x = xcalloc(1, sizeof(*x));
	size_t i, nr_ids = 0;

	for (i = 0; i < nr_ins; i++)
		if (ins[i] && ins[i] + ids[ins[i] - 1] > nr_ids)
			nr_ids = ins[i] + ids[ins[i] - 1];
	x->src.each = ins_each;
	x->src.release = ins_release;
	x->inner = inner;
	x->nr_ins = nr_ins;
	x->ins = xmalloc((nr_ins ? nr_ins : 1) * sizeof(*x->ins));
	memcpy(x->ins, ins, nr_ins * sizeof(*ins));
	x->ids = xmalloc((nr_ids ? nr_ids : 1) * sizeof(*x->ids));
	memcpy(x->ids, ids, nr_ids * sizeof(*ids));
	x->src.nr_chains = inner->nr_chains;
	x->src.samples = inner->samples;
	/* a walk that fails leaves the count short: the save's walk says why */
	ins_each(&x->src, ins_count, &x->src.nr_frames);
	return &x->src;
}

void resolve__kernel(struct profile *p, struct symbols *syms, struct resolve_kernel *k)
{
	size_t nf = p->nr_frames, i, nr_ids = 0, alloc_ids = 0;
	uint32_t kdso = profile__str_id(p, KERNEL_DSO), *ins, *ids = NULL;
	bool *leaf, *was_unnamed, changed = false;

	if (!nf)
		return;
	ins = xcalloc(nf, sizeof(*ins));
	leaf = xcalloc(nf, sizeof(*leaf));
	was_unnamed = xcalloc(nf, sizeof(*was_unnamed));
	k->had_chains = profile__meta(p, "symbols.vmlinux") != NULL;
	for (i = 0; i < p->nr_counts; i++) {
		uint32_t node = p->counts[i].node;

		if (node != PROFILE_ROOT && node < p->nr_nodes && p->nodes[node].frame < nf)
			leaf[p->nodes[node].frame] = true;
	}
	for (i = 0; i < nf; i++) {
		struct frame *f = &p->frames[i];
		struct symbol_info si;

		if (!core_frame(p, f, kdso, k))
			continue;
		if (!f->sym) {
			k->unnamed++;
			was_unnamed[i] = true;
			symbols__vmlinux_symbol(syms, f->addr, &si);
			if (si.sym) {
				f->sym = profile__intern(p, si.sym);
				f->sym_off = si.sym_off;
				f->dso = profile__intern(p, KERNEL_DSO);
				k->named++;
				changed = true;
			}
		}
	}
	/* before chain_of adds frames through the index */
	if (changed)
		profile__frames_changed(p);
	for (i = 0; i < nf && !k->had_chains; i++) {
		struct resolve_kernel scratch = { .slide = 0 };

		if (!p->frames[i].sym || !core_frame(p, &p->frames[i], kdso, &scratch))
			continue;
		ins[i] = chain_of(p, syms, (uint32_t)i, leaf[i], &ids, &nr_ids, &alloc_ids);
		if (ins[i]) {
			k->chained++;
			k->inline_frames += ids[ins[i] - 1];
		}
	}
	for (i = 0; i < p->nr_counts; i++) {
		const struct count *c = &p->counts[i];
		uint32_t fr;

		if (c->node == PROFILE_ROOT || c->node >= p->nr_nodes)
			continue;
		fr = p->nodes[c->node].frame;
		if (fr >= nf)
			continue;
		if (was_unnamed[fr]) {
			k->unnamed_samples += c->samples;
			if (p->frames[fr].sym)
				k->named_samples += c->samples;
		}
		if (ins[fr])
			k->chained_samples += c->samples;
	}
	if (k->chained) {
		profile__insert_frames(p, ins, nf, ids);
		if (p->whole)
			p->whole = resolve__chains_inlined(p->whole, ins, nf, ids);
		profile__set_meta(p, "symbols.vmlinux", symbols__vmlinux(syms));
	}
	free(ids);
	free(was_unnamed);
	free(leaf);
	free(ins);
}
