/*
 * unresolved: where a recording's "[unknown]" frames come from, per DSO,
 * with the likely cause (report --unresolved).
 *
 * Three kinds of loss, counted over the samples of one event:
 *   - the sampled address itself has no name: counted for the DSO of that
 *     address ("[unmapped]" when no mapping was known), hint from the
 *     recorder's meta "symbols.hint <dso>" (no debuginfo, JIT without a
 *     map, deleted file, ...) or from the kind of frame;
 *   - the sampled address is named but its caller is not: the usual sign
 *     of code built without frame pointers, counted for the sampled DSO;
 *   - the user stack stops short: no frame of it is a process or thread
 *     entry (_start, main, __libc_start_call_main, start_thread, ...).
 *     The kernel's frame-pointer walk ends quietly at a function that
 *     keeps no frame pointer, so nothing is [unknown] and the stack is
 *     just too short; counted for the DSO of its outermost frame.  The
 *     judgement is by the path, not the outermost frame: a static
 *     program's walk goes on past main into __do_global_dtors_aux (perf
 *     shows the same), and a junk return address past main adds an
 *     unnamed frame, yet both stacks reach main.  A stack whose outermost
 *     frame has no name and that reaches no entry is not called short
 *     either: its names are missing, not its frames (the address row says
 *     why), and --call-graph dwarf would not help.
 * One pass over the counts; arrays indexed by DSO string id.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "mmprof/chainsrc.h"
#include "mmprof/keys.h"
#include "mmprof/message.h"
#include "mmprof/report.h"
#include "mmprof/xalloc.h"

enum unres_kind { UNRES_ADDRESS, UNRES_CALLERS, UNRES_SHORT, UNRES_KINDS };

struct unres_row {
	uint32_t dso;		/* string id, 0: no mapping */
	uint8_t kernel;
	uint8_t kind;		/* enum unres_kind */
	uint64_t samples;
};

/*
 * Where a complete user stack begins: the C runtime's and the thread
 * library's entries (glibc, musl), main itself, and Go's.
 */
static bool stack_entry(const char *sym)
{
	static const char *const entries[] = {
		"_start", "__libc_start_main", "__libc_start_call_main", "_dl_start_user",
		"_dl_start", "main", "start_thread", "clone", "clone3", "__clone",
		"__clone3", "thread_start", "runtime.goexit", "runtime.goexit.abi0",
		"runtime.mstart", "runtime.rt0_go", "runtime.rt0_go.abi0",
	};
	size_t i;

	for (i = 0; i < sizeof(entries) / sizeof(entries[0]); i++)
		if (!strcmp(sym, entries[i]))
			return true;
	return false;
}

/*
 * [node] the outermost node of its stack (the root's child; the root for
 * itself), and *reaches[node]: some user frame on its path is an entry
 * (stack_entry), in one pass: parents precede their children (profile.h),
 * so every count then has both without walking its stack.
 */
static uint32_t *outermost_nodes(const struct profile *p, uint8_t **reaches)
{
	uint32_t *top = xmalloc((p->nr_nodes + 1) * sizeof(*top));
	uint8_t *r = xcalloc(p->nr_nodes + 1, 1);
	size_t i;

	top[PROFILE_ROOT] = PROFILE_ROOT;
	for (i = 1; i < p->nr_nodes; i++) {
		const struct stack_node *n = &p->nodes[i];
		const struct frame *f = n->frame < p->nr_frames ? &p->frames[n->frame] : NULL;
		const char *sym = f && !f->kernel ? profile__str(p, f->sym) : NULL;

		top[i] = n->parent == PROFILE_ROOT ? (uint32_t)i : top[n->parent];
		r[i] = r[n->parent] || (sym && stack_entry(sym));
	}
	*reaches = r;
	return top;
}

static int row_cmp(const void *a, const void *b)
{
	const struct unres_row *x = a, *y = b;

	if (x->samples != y->samples)
		return x->samples < y->samples ? 1 : -1;
	if (x->kind != y->kind)
		return x->kind - y->kind;
	return x->dso < y->dso ? -1 : x->dso > y->dso;
}

/* recorded with --call-graph dwarf: advice to do so would be no advice */
static bool dwarf_recorded(const struct profile *p)
{
	const char *cg = profile__meta(p, "call_graph");

	return cg && !strncmp(cg, "dwarf", 5);
}

static const char *hint_of(const struct profile *p, const struct unres_row *r, char *buf,
			   size_t size)
{
	const char *dso = profile__str(p, r->dso), *h;

	if (r->kind == UNRES_CALLERS)
		return "callers unresolved: built without frame pointers? "
		       "rebuild with -fno-omit-frame-pointer";
	if (r->kind == UNRES_SHORT && dwarf_recorded(p))
		return "user stacks stop here, short of main or a thread entry, although recorded "
		       "with --call-graph dwarf: the unwinder found no CFI to go on with (a "
		       "binary without .eh_frame, or a layout it cannot place; "
		       "Documentation/symbols.md)";
	if (r->kind == UNRES_SHORT)
		return "user stacks stop here, short of main or a thread entry: built without "
		       "frame pointers? record with --call-graph dwarf, or rebuild with "
		       "-fno-omit-frame-pointer";
	if (dso) {
		snprintf(buf, size, "symbols.hint %s", dso);
		if ((h = profile__meta(p, buf)))
			return h;
	}
	if (r->kernel && dso && !strcmp(dso, "[kernel.kallsyms]") &&
	    profile__meta(p, "kernel_build_id") && profile__meta(p, "kernel_ref_reloc_sym")) {
		/* record kept what a vmlinux found later is checked and placed by */
		snprintf(buf, size, "kernel address outside kallsyms (kptr_restrict, or a module or "
			 "BPF program gone at record end); a vmlinux of the kernel recorded "
			 "names them: mmprof resolve --vmlinux PATH FILE");
		return buf;
	}
	if (r->kernel)
		return "kernel address outside kallsyms (kptr_restrict, or a module or BPF "
		       "program gone at record end)";
	if (!dso)
		return "no mapping known for the address (process started before recording, "
		       "or MMAP records lost)";
	return "address outside every symbol (stripped code or hand-written assembly)";
}

struct unres {
	size_t nslots;
	uint64_t *by;		/* [dso * UNRES_KINDS + kind] samples */
	uint8_t *kern;
	uint64_t total, lost, user, shorts;
};

/*
 * A profile's whole chains (p->whole): the trie's cells under "[elided]"
 * are judged on their whole chain instead (a chain whose whole version
 * reaches main is not short; its sampled frame's caller is the chain's),
 * in one walk of the stream, each chain's entry flags from its lcp on.
 */
struct unres_walk {
	struct unres *u;
	const struct profile *p;
	uint32_t event;
	bool nochain;
	uint8_t *is_entry;	/* [frame] 0 not known yet, 1 no, 2 an entry (stack_entry) */
	uint8_t *reach;		/* [depth] some user frame up to it is an entry */
	size_t alloc;
};

static int unres__chain(void *ctx, const struct chain_rec *c)
{
	struct unres_walk *w = ctx;
	struct unres *u = w->u;
	const struct profile *p = w->p;
	const struct frame *top, *f, *up;
	uint32_t j, k, n;
	uint64_t samples = 0;
	size_t slot;
	bool reaches;

	for (k = 0; k < c->nr_cells; k++)
		if (c->cells[k].event == w->event)
			samples += c->cells[k].samples;
	if (c->nr > w->alloc) {
		w->alloc = (size_t)c->nr * 2;
		w->reach = xrealloc(w->reach, w->alloc);
	}
	for (j = c->lcp < c->nr ? c->lcp : 0; j < c->nr; j++) {
		uint32_t fr = c->frames[j];

		if (fr < p->nr_frames && !w->is_entry[fr]) {
			const char *sym = !p->frames[fr].kernel ? profile__str(p, p->frames[fr].sym) : NULL;

			w->is_entry[fr] = sym && stack_entry(sym) ? 2 : 1;
		}
		w->reach[j] = (j && w->reach[j - 1]) || (fr < p->nr_frames && w->is_entry[fr] == 2);
	}
	if (!samples || c->frames[0] >= p->nr_frames)
		return 0;
	top = &p->frames[c->frames[0]];
	reaches = w->reach[c->nr - 1];
	if (!top->kernel)
		u->user += samples;
	if (!top->kernel && !reaches && top->sym && !w->nochain) {
		slot = (top->dso < p->strs.nr ? top->dso : 0) * UNRES_KINDS + UNRES_SHORT;
		u->by[slot] += samples;
		u->shorts += samples;
	}
	/* the outermost of an inline chain stands for the address */
	for (n = c->nr - 1; n && c->frames[n] < p->nr_frames && p->frames[c->frames[n]].inlined; n--)
		;
	if (c->frames[n] >= p->nr_frames)
		return 0;
	f = &p->frames[c->frames[n]];
	if (!f->sym) {
		slot = (f->dso < p->strs.nr ? f->dso : 0) * UNRES_KINDS + UNRES_ADDRESS;
	} else if (!f->kernel && n && c->frames[n - 1] < p->nr_frames &&
		   !(up = &p->frames[c->frames[n - 1]])->sym && !up->kernel) {
		slot = (f->dso < p->strs.nr ? f->dso : 0) * UNRES_KINDS + UNRES_CALLERS;
	} else {
		return 0;
	}
	u->by[slot] += samples;
	u->kern[slot] |= f->kernel;
	if (slot % UNRES_KINDS == UNRES_ADDRESS)
		u->lost += samples;
	return 0;
}

/* One pass over the counts of event (and one of p->whole's chains). */
static void unres__count(struct unres *u, const struct profile *p, int event)
{
	enum { TOP_UNJUDGED, TOP_KERNEL, TOP_ENTRY, TOP_UNNAMED, TOP_SHORT };
	uint32_t *tops, t;
	uint8_t *judged, *reaches, *elided = NULL;
	bool nochain;
	size_t i;

	memset(u, 0, sizeof(*u));
	u->nslots = (p->strs.nr ? p->strs.nr : 1) * UNRES_KINDS;
	u->by = xcalloc(u->nslots, sizeof(*u->by));
	u->kern = xcalloc(u->nslots, sizeof(*u->kern));
	tops = outermost_nodes(p, &reaches);
	judged = xcalloc(p->nr_nodes + 1, sizeof(*judged));
	/* recorded without callchains (record --no-callchain, an import of a
	 * perf.data without -g): every stack is one frame, none is "short" */
	nochain = profile__meta(p, "callchain") && !strcmp(profile__meta(p, "callchain"), "0");
	if (p->whole)
		elided = profile__elided_nodes(p);
	for (i = 0; i < p->nr_counts; i++) {
		const struct count *c = &p->counts[i];
		const struct stack_node *n;
		const struct frame *f, *up, *top;
		size_t slot;

		if (c->event != (uint32_t)event)
			continue;
		u->total += c->samples;
		if (c->node == PROFILE_ROOT || c->node >= p->nr_nodes || (elided && elided[c->node]))
			continue;
		/* user stacks (outermost frame in user space) that stop short
		 * of every entry; each stack is judged once, on its first count */
		t = tops[c->node];
		top = &p->frames[p->nodes[t].frame];
		if (!judged[c->node])
			judged[c->node] = top->kernel ? TOP_KERNEL : reaches[c->node] ? TOP_ENTRY :
					  !top->sym ? TOP_UNNAMED : TOP_SHORT;
		if (judged[c->node] != TOP_KERNEL)
			u->user += c->samples;
		if (judged[c->node] == TOP_SHORT && !nochain) {
			slot = (top->dso < p->strs.nr ? top->dso : 0) * UNRES_KINDS + UNRES_SHORT;
			u->by[slot] += c->samples;
			u->shorts += c->samples;
		}
		n = &p->nodes[c->node];
		f = &p->frames[n->frame];
		/* the outermost of an inline chain stands for the address */
		while (f->inlined && n->parent != PROFILE_ROOT) {
			n = &p->nodes[n->parent];
			f = &p->frames[n->frame];
		}
		if (!f->sym) {
			slot = (f->dso < p->strs.nr ? f->dso : 0) * UNRES_KINDS + UNRES_ADDRESS;
		} else if (!f->kernel && n->parent != PROFILE_ROOT &&
			   !(up = &p->frames[p->nodes[n->parent].frame])->sym && !up->kernel) {
			slot = (f->dso < p->strs.nr ? f->dso : 0) * UNRES_KINDS + UNRES_CALLERS;
		} else {
			continue;
		}
		u->by[slot] += c->samples;
		u->kern[slot] |= f->kernel;
		if (slot % UNRES_KINDS == UNRES_ADDRESS)
			u->lost += c->samples;
	}
	free(judged);
	free(reaches);
	free(tops);
	if (elided) {
		struct unres_walk w = { .u = u, .p = p, .event = (uint32_t)event, .nochain = nochain,
					.is_entry = xcalloc(p->nr_frames + 1, 1) };
		int err = chainsrc__each(p->whole, unres__chain, &w);

		if (err)
			warning("the file's whole chains are unreadable (%s): the unresolved counts "
				"lack part of their samples", strerror(err < 0 ? -err : err));
		free(w.is_entry);
		free(w.reach);
		free(elided);
	}
}

static void unres__release(struct unres *u)
{
	free(u->by);
	free(u->kern);
}

/* The rows with samples, largest first; *nr of them. */
static struct unres_row *unres__rows(const struct unres *u, size_t *nr)
{
	struct unres_row *rows = xcalloc(u->nslots + 1, sizeof(*rows));
	size_t i;

	*nr = 0;
	for (i = 0; i < u->nslots; i++)
		if (u->by[i])
			rows[(*nr)++] = (struct unres_row){ .dso = (uint32_t)(i / UNRES_KINDS),
				.kernel = u->kern[i], .kind = (uint8_t)(i % UNRES_KINDS),
				.samples = u->by[i] };
	qsort(rows, *nr, sizeof(*rows), row_cmp);
	return rows;
}

int report__unresolved(const struct profile *p, int event, struct outbuf *out)
{
	static const char *const what[UNRES_KINDS] = { "address", "callers", "stack" };
	struct unres u;
	struct unres_row *rows;
	const char *ev;
	char buf[4352];
	size_t i, nr;

	if (event < 0)
		event = 0;
	unres__count(&u, p, event);
	rows = unres__rows(&u, &nr);
	ev = event < (int)p->nr_events ? profile__str(p, p->events[event].name) : NULL;
	outbuf__puts(out, "# Unresolved samples of '");
	outbuf__text_str(out, ev ? ev : "?");
	outbuf__printf(out, "': %.2f%% of %llu samples have no name for the sampled address\n",
		u.total ? 100.0 * (double)u.lost / (double)u.total : 0.0, (unsigned long long)u.total);
	outbuf__printf(out, "# Short user stacks: %.2f%% of samples have a user stack that stops short "
		"of main or a thread entry (%llu of %llu with a user stack)\n",
		u.total ? 100.0 * (double)u.shorts / (double)u.total : 0.0,
		(unsigned long long)u.shorts, (unsigned long long)u.user);
	outbuf__printf(out, "#    Share  Samples  What       DSO: hint\n");
	for (i = 0; i < nr; i++) {
		const char *dso = profile__str(p, rows[i].dso);

		outbuf__printf(out, "%8.2f%%  %7llu  %-9s  ",
			u.total ? 100.0 * (double)rows[i].samples / (double)u.total : 0.0,
			(unsigned long long)rows[i].samples, what[rows[i].kind]);
		outbuf__text_str(out, dso ? dso : "[unmapped]");
		outbuf__puts(out, ": ");
		/* a hint from the file's meta is the file's text, as the DSO is */
		outbuf__text_str(out, hint_of(p, &rows[i], buf, sizeof(buf)));
		outbuf__putc(out, '\n');
	}
	free(rows);
	unres__release(&u);
	return outbuf__flush(out);
}

/*
 * The first row worth a line: names missing (the sampled address, or its
 * callers) before stacks cut short, since a stack of unnamed frames is no
 * shorter for it and --call-graph dwarf names nothing; the line says what
 * is missing (the recorder's hint for the DSO: stripped, unreadable, gone,
 * a JIT without a map; a kernel address outside kallsyms).
 */
const char *report__unresolved_warning(const struct profile *p, int event, char *buf, size_t size)
{
	struct unres u;
	struct unres_row *rows;
	struct outbuf scratch = { 0 }, why = { 0 };	/* through the text rule (escape.h): a warning goes to a terminal */
	const char *ret = NULL;
	char hint[4352];
	size_t i, nr;
	int pass;

	if (event < 0)
		event = 0;
	unres__count(&u, p, event);
	rows = unres__rows(&u, &nr);
	for (pass = 0; pass < 2 && !ret; pass++)
		for (i = 0; i < nr && !ret; i++) {
			double share = u.total ? 100.0 * (double)rows[i].samples / (double)u.total : 0;
			const char *dso = outbuf__text_safe(&scratch, profile__str(p, rows[i].dso) ?
								       profile__str(p, rows[i].dso) : "[unmapped]");

			if (pass == 1 && rows[i].kind == UNRES_SHORT && share >= REPORT_WARN_SHORT_PCT &&
			    dwarf_recorded(p))
				snprintf(buf, size, "%.0f%% of samples have user stacks that stop in %s, short of "
					 "main, although recorded with --call-graph dwarf: the unwinder found "
					 "no CFI to go on with there (details: report --unresolved)", share, dso);
			else if (pass == 1 && rows[i].kind == UNRES_SHORT && share >= REPORT_WARN_SHORT_PCT)
				snprintf(buf, size, "%.0f%% of samples have user stacks that stop in %s, short of "
					 "main: built without frame pointers? record with --call-graph dwarf "
					 "(details: report --unresolved)", share, dso);
			else if (pass == 0 && rows[i].kind == UNRES_ADDRESS &&
				 share >= REPORT_WARN_UNRESOLVED_PCT)
				snprintf(buf, size, "%.0f%% of samples have no name for the sampled address "
					 "in %s: %s (details: report --unresolved)", share, dso,
					 outbuf__text_safe(&why, hint_of(p, &rows[i], hint, sizeof(hint))));
			else if (pass == 0 && rows[i].kind == UNRES_CALLERS &&
				 share >= REPORT_WARN_UNRESOLVED_PCT)
				snprintf(buf, size, "%.0f%% of samples have callers unresolved in %s "
					 "(details: report --unresolved)", share, dso);
			else
				continue;
			ret = buf;
		}
	free(rows);
	unres__release(&u);
	outbuf__release(&scratch);
	outbuf__release(&why);
	return ret;
}

/* The sampled address's frame is unnamed (an inline chain stands as its outermost frame). */
static bool leaf_unnamed(const struct profile *p, uint32_t node)
{
	const struct stack_node *n;

	if (node == PROFILE_ROOT || node >= p->nr_nodes)
		return true;
	n = &p->nodes[node];
	while (n->frame < p->nr_frames && p->frames[n->frame].inlined && n->parent != PROFILE_ROOT)
		n = &p->nodes[n->parent];
	return n->frame >= p->nr_frames || !p->frames[n->frame].sym;
}

uint64_t report__unnamed(const struct profile *p, int event, uint64_t *total)
{
	uint64_t unnamed = 0, all = 0;
	size_t i;

	for (i = 0; i < p->nr_counts; i++) {
		const struct count *c = &p->counts[i];

		if (event >= 0 && c->event != (uint32_t)event)
			continue;
		all += c->samples;
		if (leaf_unnamed(p, c->node))
			unnamed += c->samples;
	}
	*total = all;
	return unnamed;
}

bool report__unnamed_notable(const struct profile *p, int event)
{
	uint64_t total, unnamed = report__unnamed(p, event, &total);

	return total && 100.0 * (double)unnamed >= REPORT_NOTE_UNNAMED_PCT * (double)total;
}

const char *report__unnamed_line(const struct profile *p, int event, bool counted, char *buf,
				 size_t size)
{
	uint64_t total, unnamed = report__unnamed(p, event, &total);

	snprintf(buf, size, "unresolved: %.2f%% of %llu samples (%llu) have no name for the sampled "
		 "address; %s", total ? 100.0 * (double)unnamed / (double)total : 0.0,
		 (unsigned long long)total, (unsigned long long)unnamed,
		 counted ? "counted in, as [unknown] frames (perf's default; the LKP keys leave "
			   "them out)" :
			   "left out, as the LKP keys' -U rule (report --tree, --folded and flame "
			   "graphs count them)");
	return buf;
}
