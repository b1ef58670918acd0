/*
 * test-chainreport: report's entry lines of a profile whose trie elides
 * part of some chains ("[elided]" nodes, the whole chains in p->whole:
 * chainsrc.h) are those of the same profile with every chain whole in
 * its trie, as test-chainkeys checks the keys.
 *
 * The same random chains (main, then 12 functions at two call sites each
 * recursing in random order up to 40 deep, kernel frames, unresolved
 * frames in two DSOs, an inline frame; 10 chains in 16 from clone3 at 1000
 * addresses, each light, so elided at the root, whose old report said
 * they stopped short of main in "[elided]"; one in 16 without an entry,
 * a short user stack; two events, two runs, three comms) make (a) a
 * profile with every chain whole in its trie and (b) the chains put into
 * an empty trie by profile__take_chains at 1/4 and 1/16 of (a)'s nodes.
 * report__entries, report__comm_entries, --tree's entry lines (by
 * children, by self, and with --max-stack 6 and its header's count of
 * stacks cut) and --unresolved must be byte for byte the
 * same (every count an integer: the sums are exact in either order), and
 * "[elided]" in no entry line.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tap.h"
#include "mmprof/chainsrc.h"
#include "mmprof/chaintake.h"
#include "mmprof/outbuf.h"
#include "mmprof/report.h"

enum { NFUNC = 12, NSITE = 2, NKERN = 4, NCLONE = 1000, NRUN = 2, NEVENT = 2, NCOMM = 3,
       NCHAIN = 2000, MAXD = 40 };

struct tchain {
	uint32_t frames[MAXD];
	uint32_t nr;
	struct chain_cell cells[4];
	uint32_t nr_cells;
};

static unsigned rnd_state = 3035;
static unsigned rnd(void)
{
	rnd_state = rnd_state * 1103515245u + 12345u;
	return (rnd_state >> 16) & 0x7fff;
}

/* frame ids: main 0, fnF site S 1 + F * NSITE + S, then kernel, unresolved, inline */
#define F_MAIN 0u
#define F_FN(f, s) (1u + (f) * NSITE + (s))
#define F_KERN(k) (1u + NFUNC * NSITE + (k))
#define F_UNRES(u) (F_KERN(NKERN) + (u))
#define F_INL (F_UNRES(2))
#define F_CLONE(c) (F_INL + 1 + (c))

static struct profile *base_profile(void)
{
	struct profile *p = profile__new();
	uint32_t w;
	size_t i, s;

	for (i = 0; i < NEVENT; i++) {
		struct event_desc ev = { .name = profile__intern(p, i ? "page-faults" : "cpu-clock") };

		profile__add_event(p, &ev);
	}
	for (i = 0; i < NRUN; i++) {
		struct run r = { .wall_ns = 1000000000 };

		profile__add_run(p, &r);
	}
	for (i = 0; i < NCOMM; i++) {
		char name[16];

		snprintf(name, sizeof(name), "comm%zu", i);
		profile__intern(p, name);
	}
	w = profile__intern(p, "/bin/w");
	{
		struct frame fr = { .addr = 0x500, .sym = profile__intern(p, "main"), .dso = w };

		profile__frame(p, &fr);
	}
	for (i = 0; i < NFUNC; i++)
		for (s = 0; s < NSITE; s++) {
			char name[16];
			struct frame fr = { .addr = 0x1000 * (i + 1) + 0x10 * s, .dso = w,
					    .sym_off = 0x10 * s };

			snprintf(name, sizeof(name), "fn%zu", i);
			fr.sym = profile__intern(p, name);
			profile__frame(p, &fr);
		}
	for (i = 0; i < NKERN; i++) {
		char name[16];
		struct frame fr = { .addr = 0xffff0000 + 0x100 * i, .kernel = 1,
				    .dso = profile__intern(p, "[kernel.kallsyms]") };

		snprintf(name, sizeof(name), "kfn%zu", i);
		fr.sym = profile__intern(p, name);
		profile__frame(p, &fr);
	}
	for (i = 0; i < 2; i++) {
		struct frame fr = { .addr = 0x900000 + 0x10 * i,
				    .dso = profile__intern(p, i ? "/lib/a.so" : "/lib/b.so") };

		profile__frame(p, &fr);
	}
	{
		struct frame fr = { .addr = 0x1000, .inlined = 1, .sym = profile__intern(p, "inl"),
				    .dso = w };

		profile__frame(p, &fr);
	}
	/* a thread entry at many addresses, each light: its chains elided at the root */
	for (i = 0; i < NCLONE; i++) {
		struct frame fr = { .addr = 0x700000 + 0x10 * i, .sym = profile__intern(p, "clone3"),
				    .dso = profile__intern(p, "/lib/libc.so"), .sym_off = 0x10 * i };

		profile__frame(p, &fr);
	}
	return p;
}

static int chain_cmp(const void *a, const void *b)
{
	const struct tchain *x = a, *y = b;
	uint32_t i;

	for (i = 0; i < x->nr && i < y->nr; i++)
		if (x->frames[i] != y->frames[i])
			return x->frames[i] < y->frames[i] ? -1 : 1;
	return x->nr < y->nr ? -1 : x->nr > y->nr;
}

/* Random chains, distinct, in chainsrc.h's order, cells sorted and merged. */
static size_t make_chains(struct tchain *ch, uint32_t comm0)
{
	size_t i, j, n = 0;
	uint32_t k;

	for (i = 0; i < NCHAIN; i++) {
		struct tchain *c = &ch[i];
		uint32_t user = 2 + rnd() % (MAXD - 4);

		memset(c, 0, sizeof(*c));
		unsigned top = rnd() % 16;

		c->frames[c->nr++] = top < 1 ? F_FN(rnd() % NFUNC, 0) :
				     top < 11 ? F_CLONE(rnd() % NCLONE) : F_MAIN;
		while (c->nr < user) {
			unsigned r = rnd() % 100;

			if (r < 4)
				c->frames[c->nr++] = F_UNRES(rnd() % 2);
			else if (r < 7)
				c->frames[c->nr++] = F_INL;
			else
				c->frames[c->nr++] = F_FN(rnd() % NFUNC, rnd() % NSITE);
		}
		for (k = rnd() % 3; k; k--)
			c->frames[c->nr++] = F_KERN(rnd() % NKERN);
		c->nr_cells = 1 + rnd() % 3;
		for (k = 0; k < c->nr_cells; k++)
			c->cells[k] = (struct chain_cell){ .run = rnd() % NRUN, .event = rnd() % NEVENT,
				.comm = comm0 + rnd() % NCOMM, .pid = 100 + rnd() % 2,
				.samples = 1 + rnd() % 5, .period = 1 + rnd() % 1000 };
	}
	qsort(ch, NCHAIN, sizeof(*ch), chain_cmp);
	for (i = 0; i < NCHAIN; i++) {
		if (n && !chain_cmp(&ch[n - 1], &ch[i])) {
			struct tchain *d = &ch[n - 1];

			for (k = 0; k < ch[i].nr_cells && d->nr_cells < 4; k++)
				d->cells[d->nr_cells++] = ch[i].cells[k];
			continue;
		}
		ch[n++] = ch[i];
	}
	for (i = 0; i < n; i++) {
		struct tchain *c = &ch[i];
		uint32_t m = 0;

		qsort(c->cells, c->nr_cells, sizeof(*c->cells), chain_cell__qcmp);
		for (j = 0; j < c->nr_cells; j++) {
			if (m && !chain_cell__qcmp(&c->cells[m - 1], &c->cells[j])) {
				c->cells[m - 1].samples += c->cells[j].samples;
				c->cells[m - 1].period += c->cells[j].period;
				continue;
			}
			c->cells[m++] = c->cells[j];
		}
		c->nr_cells = m;
	}
	return n;
}

/* An array-backed chain source yielding every chain, in order. */
struct arraysrc {
	struct chainsrc src;
	const struct tchain *ch;
	size_t n;
};

static int arraysrc_each(struct chainsrc *src, chain_fn fn, void *ctx)
{
	struct arraysrc *a = (struct arraysrc *)src;
	size_t i;

	for (i = 0; i < a->n; i++) {
		const struct tchain *c = &a->ch[i], *prev = i ? &a->ch[i - 1] : NULL;
		struct chain_rec r = { .frames = c->frames, .nr = c->nr, .cells = c->cells,
				       .nr_cells = c->nr_cells, .ordinal = i };
		int err;

		while (prev && r.lcp < prev->nr && r.lcp < c->nr &&
		       prev->frames[r.lcp] == c->frames[r.lcp])
			r.lcp++;
		err = fn(ctx, &r);
		if (err)
			return err;
	}
	return 0;
}

static void arraysrc_release(struct chainsrc *src)
{
	(void)src;
}

/* Every entry view of p as one text: entries, per-comm entries, --tree's, --unresolved. */
static char *views(const struct profile *p)
{
	struct outbuf b = { 0 };
	size_t e, i, n;

	for (e = 0; e < p->nr_events; e++) {
		struct report_entry *r = report__entries(p, (int)e, false, 0, &n);
		struct tree_opts by_children = { .event = (int)e, .no_graph = true };
		struct tree_opts by_self = { .event = (int)e, .no_graph = true, .self_order = true };
		struct tree_opts cut = { .event = (int)e, .no_graph = true, .max_stack = 6 };

		outbuf__printf(&b, "== entries %zu\n", e);
		for (i = 0; i < n; i++)
			outbuf__printf(&b, "%.17g %.17g %s %s %d\n", r[i].children, r[i].self, r[i].sym,
				       r[i].dso ? r[i].dso : "-", r[i].kernel);
		free(r);
		r = report__comm_entries(p, (int)e, 0, &n);
		outbuf__printf(&b, "== comm entries %zu\n", e);
		for (i = 0; i < n; i++)
			outbuf__printf(&b, "%.17g %.17g %s %s %s\n", r[i].children, r[i].self, r[i].comm,
				       r[i].sym, r[i].dso ? r[i].dso : "-");
		free(r);
		outbuf__puts(&b, "== tree\n");
		report__tree(p, &by_children, &b);
		report__tree(p, &by_self, &b);
		report__tree(p, &cut, &b);
		outbuf__puts(&b, "== unresolved\n");
		report__unresolved(p, (int)e, &b);
	}
	outbuf__putc(&b, '\0');
	return b.s;
}

/* The first line where a and b differ, printed; 0 when none. */
static int first_diff(const char *a, const char *b)
{
	size_t line = 1;

	while (*a && *a == *b) {
		line += *a == '\n';
		a++;
		b++;
	}
	if (*a == *b)
		return 0;
	while (line > 1 && a[-1] != '\n') {
		a--;
		b--;
	}
	printf("# line %zu:\n#  whole: %.*s\n#  taken: %.*s\n", line, (int)strcspn(a, "\n"), a,
	       (int)strcspn(b, "\n"), b);
	return 1;
}

int main(void)
{
	static struct tchain ch[NCHAIN];
	static const size_t div[] = { 4, 16 };
	struct profile *a = base_profile();
	uint32_t comm0 = profile__intern(a, "comm0");
	char *want;
	size_t n, i, k;

	n = make_chains(ch, comm0);
	for (i = 0; i < n; i++) {
		uint32_t node = PROFILE_ROOT, j;

		for (j = 0; j < ch[i].nr; j++)
			node = profile__node(a, node, ch[i].frames[j]);
		for (j = 0; j < ch[i].nr_cells; j++)
			profile__add_count(a, ch[i].cells[j].run, ch[i].cells[j].event, ch[i].cells[j].comm,
					   ch[i].cells[j].pid, node, ch[i].cells[j].samples,
					   ch[i].cells[j].period);
	}
	want = views(a);
	ok(!strstr(want, "[elided]") && strstr(want, "fn3") && strstr(want, "stack"),
	   "the all-whole profile's views (%zu chains, %zu nodes): fn3, a short stack, no [elided]",
	   n, a->nr_nodes);
	for (k = 0; k < sizeof(div) / sizeof(div[0]); k++) {
		struct arraysrc src = { .src = { .each = arraysrc_each, .release = arraysrc_release },
					.ch = ch, .n = n };
		struct profile *b = base_profile();
		struct chaintake_stats st;
		char *got, warn_a[512], warn_b[512];
		const char *wa, *wb;
		int err;

		for (i = 0; i < n; i++) {
			src.src.nr_chains++;
			src.src.nr_frames += ch[i].nr;
			for (err = 0; err < (int)ch[i].nr_cells; err++)
				src.src.samples += ch[i].cells[err].samples;
		}
		err = profile__take_chains(b, &src.src, a->nr_nodes / div[k], &st);
		if (err || st.cut_samples || !b->whole || !st.elided_chains) {
			ok(0, "1/%zu of the nodes: take %d, %llu samples cut, %llu chains elided", div[k],
			   err, (unsigned long long)st.cut_samples, (unsigned long long)st.elided_chains);
			profile__free(b);
			continue;
		}
		got = views(b);
		ok(!first_diff(want, got),
		   "1/%zu of the nodes (%zu, %llu of %zu chains elided): entries, per-comm entries, "
		   "--tree's entry lines and --unresolved the all-whole profile's", div[k], b->nr_nodes,
		   (unsigned long long)st.elided_chains, n);
		ok(!strstr(got, "[elided]"), "1/%zu: [elided] in no entry line", div[k]);
		for (i = 0; i < NEVENT; i++) {
			wa = report__unresolved_warning(a, (int)i, warn_a, sizeof(warn_a));
			wb = report__unresolved_warning(b, (int)i, warn_b, sizeof(warn_b));
			ok((!wa && !wb) || (wa && wb && !strcmp(wa, wb)),
			   "1/%zu, event %zu: the unresolved warning the all-whole profile's (%s)", div[k],
			   i, wb ? wb : "none");
		}
		free(got);
		profile__free(b);
	}
	free(want);
	profile__free(a);
	return done_testing();
}
