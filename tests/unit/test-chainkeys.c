/*
 * test-chainkeys: the keys of a profile whose trie elides part of some
 * chains ("[elided]" nodes, the whole chains in p->whole: chainsrc.h) are
 * the keys of the same profile with every chain whole in its trie.
 *
 * The same random chains (16 functions at several call sites each, depths
 * up to 40, unresolved frames in two DSOs, inline frames, a rejected
 * callchain, a name with a blank, several runs, events, comms and pids)
 * make two profiles: (a) every chain whole in the trie; (b) some chains
 * as the pruned insertion leaves them, "kept prefix -> [elided] -> sampled
 * frame" with their cells there, and those chains whole in an
 * array-backed chain source.  Every key of every run, children, self and
 * calltrace, with each view's choices (unresolved frames kept or not, by
 * DSO, inline frames, a derived view, the robot's arithmetic), must be the
 * same key with the same value, and "[elided]" no key nor part of one.
 * Before it, a profile by hand: a symbol path heavy over light address
 * paths, and an inlined sampled frame whose real function is elided.
 * After it, the same chains put into an empty trie by piece B's
 * profile__take_chains at 1/2 to 1/32 of the nodes, and one of them
 * saved and loaded (piece C's chain_blocks).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tap.h"
#include "mmprof/chainsrc.h"
#include "mmprof/chaintake.h"
#include "mmprof/datafile.h"
#include "mmprof/keys.h"

enum { NFUNC = 16, NSITE = 3, NRUN = 3, NEVENT = 2, NCOMM = 3, NCHAIN = 3000, MAXD = 40 };

struct tchain {
	uint32_t frames[MAXD];	/* frame ids, the same in both profiles */
	uint32_t nr;
	struct chain_cell cells[4];
	uint32_t nr_cells;
	bool elided;
};

static unsigned rnd_state = 2026;
static unsigned rnd(void)
{
	rnd_state = rnd_state * 1103515245u + 12345u;
	return (rnd_state >> 16) & 0x7fff;
}

/* The frames of the test, made in the same order in each profile (same ids). */
static uint32_t nr_test_frames;
static void make_frames(struct profile *p)
{
	size_t f, s;
	uint32_t n = 0;

	for (f = 0; f < NFUNC; f++)
		for (s = 0; s < NSITE; s++) {
			char name[64];
			struct frame fr = { .addr = 0x1000 * (f + 1) + 0x10 * s };

			if (f == 3)
				snprintf(name, sizeof(name), "fn%zu.isra.0", f);
			else if (f == 5)
				snprintf(name, sizeof(name), "operator new");	/* blank: robot drops */
			else
				snprintf(name, sizeof(name), "fn%zu", f);
			fr.sym = profile__intern(p, name);
			fr.dso = profile__intern(p, f < 12 ? "/bin/w" : "[kernel.kallsyms]");
			fr.kernel = f >= 12;
			fr.sym_off = 0x10 * s;
			profile__frame(p, &fr);
			n++;
		}
	/* unresolved, two DSOs */
	for (s = 0; s < 4; s++) {
		struct frame fr = { .addr = 0x900000 + 0x10 * s,
				    .dso = profile__intern(p, s & 1 ? "/lib/a.so" : "/lib/b.so") };

		profile__frame(p, &fr);
		n++;
	}
	/* inline frames (record --inline) */
	for (s = 0; s < 3; s++) {
		char name[32];
		struct frame fr = { .addr = 0x1000 * (s + 1), .inlined = 1 };

		snprintf(name, sizeof(name), "inl%zu", s);
		fr.sym = profile__intern(p, name);
		fr.dso = profile__intern(p, "/bin/w");
		profile__frame(p, &fr);
		n++;
	}
	{
		struct frame fr = { .addr = PROFILE_REJECTED_ADDR,
				    .sym = profile__intern(p, PROFILE_REJECTED_CHAIN),
				    .dso = profile__intern(p, PROFILE_REJECTED_CHAIN) };

		profile__frame(p, &fr);
		n++;
	}
	nr_test_frames = n;
}

static struct profile *base_profile(void)
{
	struct profile *p = profile__new();
	size_t i;

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
	make_frames(p);
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

		memset(c, 0, sizeof(*c));
		c->nr = 1 + rnd() % MAXD;
		for (k = 0; k < c->nr; k++) {
			unsigned r = rnd() % 100, f = rnd() % NFUNC, s = rnd() % NSITE;

			if (k == 0 && rnd() % 50 == 0)
				c->frames[k] = nr_test_frames - 1;	/* rejected callchain */
			else if (k < 3)	/* a heavy symbol path over light address paths */
				c->frames[k] = (uint32_t)((k + rnd() % 2) * NSITE + s);
			else if (r < 5)
				c->frames[k] = NFUNC * NSITE + rnd() % 4;	/* unresolved */
			else if (r < 9)
				c->frames[k] = NFUNC * NSITE + 4 + rnd() % 3;	/* inline */
			else
				c->frames[k] = f * NSITE + s;
		}
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

			/* the same chain again: its cells join the first's (room for 4) */
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
		/* elided as piece B would: something strictly between prefix and leaf */
		c->elided = c->nr >= 3 && rnd() % 3 != 0;
	}
	return n;
}

/* An array-backed chain source: the elided chains, in order. */
struct arraysrc {
	struct chainsrc src;
	const struct tchain *ch;
	size_t n;
	int released;
	int fail;	/* the error to give after the first chain (a bad block) */
};

static int arraysrc_each(struct chainsrc *src, chain_fn fn, void *ctx)
{
	struct arraysrc *a = (struct arraysrc *)src;
	const struct tchain *prev = NULL;
	uint64_t ord = 0;
	size_t i;

	for (i = 0; i < a->n; i++) {
		const struct tchain *c = &a->ch[i];
		struct chain_rec r = { .frames = c->frames, .nr = c->nr, .cells = c->cells,
				       .nr_cells = c->nr_cells, .ordinal = ord };
		int err;

		if (!c->elided)
			continue;
		while (prev && r.lcp < prev->nr && r.lcp < c->nr &&
		       prev->frames[r.lcp] == c->frames[r.lcp])
			r.lcp++;
		err = fn(ctx, &r);
		if (err)
			return err;
		if (a->fail)
			return a->fail;
		prev = c;
		ord++;
	}
	return 0;
}

static void arraysrc_release(struct chainsrc *src)
{
	((struct arraysrc *)src)->released++;
}

static void add_cells(struct profile *p, uint32_t node, const struct tchain *c)
{
	uint32_t k;

	for (k = 0; k < c->nr_cells; k++)
		profile__add_count(p, c->cells[k].run, c->cells[k].event, c->cells[k].comm,
				   c->cells[k].pid, node, c->cells[k].samples, c->cells[k].period);
}

static uint32_t path(struct profile *p, uint32_t node, const uint32_t *frames, uint32_t n)
{
	uint32_t k;

	for (k = 0; k < n; k++)
		node = profile__node(p, node, frames[k]);
	return node;
}

/* Every key of every run of v's profile, "run key" sorted, with values. */
static void all_keys(const struct symview *v, bool robot, struct keyvals *out)
{
	struct keycache *c = keycache__new(v);
	uint32_t r;
	size_t i;

	keycache__set_robot(c, robot);
	for (r = 0; r < v->p->nr_runs; r++) {
		struct keyrun kr;

		keycache__run(c, r, &kr);
		for (i = 0; i < kr.nr; i++) {
			char key[4200];

			snprintf(key, sizeof(key), "%u %s", r, keycache__name(c, kr.ids[i]));
			keyvals__add(out, key, kr.vals[i]);
		}
	}
	keycache__free(c);
	keyvals__sort(out);
}

/* How many keys differ between a and b (absent on one side, or another value). */
static size_t keys_differ(const struct keyvals *a, const struct keyvals *b, const char *what)
{
	size_t i = 0, j = 0, bad = 0;

	while (i < a->nr || j < b->nr) {
		int d = i == a->nr ? 1 : j == b->nr ? -1 : strcmp(a->items[i].key, b->items[j].key);

		if (!d && a->items[i].value == b->items[j].value) {
			i++, j++;
			continue;
		}
		if (bad++ < 3)
			printf("# %s: %s %.17g / %s %.17g\n", what, i < a->nr ? a->items[i].key : "-",
			     i < a->nr ? a->items[i].value : 0, j < b->nr ? b->items[j].key : "-",
			     j < b->nr ? b->items[j].value : 0);
		if (d <= 0)
			i++;
		if (d >= 0)
			j++;
	}
	return bad;
}

static size_t count_family(const struct keyvals *kv, const char *family)
{
	size_t i, n = 0;

	for (i = 0; i < kv->nr; i++)
		n += strstr(kv->items[i].key, family) != NULL;
	return n;
}

static bool has_elided(const struct keyvals *kv)
{
	size_t i;

	for (i = 0; i < kv->nr; i++)
		if (strstr(kv->items[i].key, PROFILE_ELIDED))
			return true;
	return false;
}

static void test_elided_as_whole(void)
{
	static struct tchain ch[NCHAIN];
	struct profile *a = base_profile(), *b = base_profile();
	struct arraysrc src = { .src = { .each = arraysrc_each, .release = arraysrc_release } };
	struct frame ef = { .addr = PROFILE_ELIDED_ADDR };
	uint32_t elided, comm0 = profile__intern(a, "comm0");
	size_t n, i, elided_chains = 0;
	static const struct { struct symview_opts o; bool robot, derive; const char *name; } views[] = {
		{ { 0 }, false, false, "LKP view" },
		{ { 0 }, true, false, "robot" },
		{ { .keep_unresolved = true }, false, false, "unresolved kept" },
		{ { .keep_unresolved = true, .unknown_by_dso = true }, false, false, "unknown by DSO" },
		{ { .keep_inline = true }, false, false, "inline frames" },
		{ { .keep_unresolved = true, .keep_inline = true }, true, false, "both, robot" },
		{ { 0 }, false, true, "derived from the fine view" },
		{ { .max_stack = 12 }, false, false, "max-stack 12" },
		{ { .max_stack = 1 }, false, false, "max-stack 1" },
	};

	is_int(profile__intern(b, "comm0"), comm0, "comm ids alike in both profiles");
	n = make_chains(ch, comm0);
	ef.sym = ef.dso = profile__intern(b, PROFILE_ELIDED);
	elided = profile__frame(b, &ef);
	ok(profile__frame_elided(b, elided), "the [elided] frame as profile.h makes it");
	for (i = 0; i < n; i++) {
		const struct tchain *c = &ch[i];

		add_cells(a, path(a, PROFILE_ROOT, c->frames, c->nr), c);
		if (!c->elided) {
			add_cells(b, path(b, PROFILE_ROOT, c->frames, c->nr), c);
			continue;
		}
		/* kept prefix (0 .. nr - 2 frames), [elided], the sampled frame */
		{
			uint32_t k = rnd() % (c->nr - 1), node = path(b, PROFILE_ROOT, c->frames, k);

			node = profile__node(b, node, elided);
			add_cells(b, profile__node(b, node, c->frames[c->nr - 1]), c);
		}
		elided_chains++;
	}
	src.ch = ch;
	src.n = n;
	for (i = 0; i < n; i++) {	/* the counts a source gives (chainsrc.h) */
		uint32_t k;

		if (!ch[i].elided)
			continue;
		src.src.nr_chains++;
		src.src.nr_frames += ch[i].nr;
		for (k = 0; k < ch[i].nr_cells; k++)
			src.src.samples += ch[i].cells[k].samples;
	}
	b->whole = &src.src;
	printf("# %zu distinct chains, %zu elided; trie nodes whole %zu, pruned %zu\n", n, elided_chains,
	     a->nr_nodes, b->nr_nodes);
	ok(elided_chains > n / 2, "most chains elided");

	for (i = 0; i < sizeof(views) / sizeof(views[0]); i++) {
		struct symview va, vb, fa, fb;
		struct keyvals ka = { 0 }, kb = { 0 };
		struct symview_opts fine = { .keep_unresolved = true, .keep_inline = true,
					     .unknown_by_dso = true };

		if (views[i].derive) {
			symview__init_opts(&fa, a, &fine);
			symview__init_opts(&fb, b, &fine);
			symview__derive(&va, &fa, &views[i].o);
			symview__derive(&vb, &fb, &views[i].o);
		} else {
			symview__init_opts(&va, a, &views[i].o);
			symview__init_opts(&vb, b, &views[i].o);
		}
		all_keys(&va, views[i].robot, &ka);
		all_keys(&vb, views[i].robot, &kb);
		ok(!keys_differ(&ka, &kb, views[i].name), "%s: every key of the elided profile "
		   "is the whole one's (%zu keys, %zu calltrace)", views[i].name, ka.nr,
		   count_family(&ka, ".calltrace."));
		ok(!has_elided(&kb), "%s: [elided] is no key nor part of one", views[i].name);
		if (i == 0) {
			struct keyvals kt = { 0 };

			b->whole = NULL;	/* the trie alone: the test can tell */
			all_keys(&vb, false, &kt);
			b->whole = &src.src;
			ok(keys_differ(&ka, &kt, "trie alone") > 0 && has_elided(&kt),
			   "without the chains the keys differ and name [elided]");
			keyvals__release(&kt);
		}
		keyvals__release(&ka);
		keyvals__release(&kb);
		symview__release(&va);
		symview__release(&vb);
		if (views[i].derive) {
			symview__release(&fa);
			symview__release(&fb);
		}
	}
	{
		struct keytab ta, tb;
		size_t k, bad = 0;

		ok(!keytab__build(&ta, a) && !keytab__build(&tb, b), "keytab of both");
		keytab__sort(&ta);
		keytab__sort(&tb);
		is_int(tb.nr, ta.nr, "keytab: as many keys");
		for (k = 0; k < ta.nr && k < tb.nr; k++)
			bad += strcmp(ta.keys[k], tb.keys[k]) || keytab__mean(&ta, k) != keytab__mean(&tb, k);
		is_int(bad, 0, "keytab (report --keys, push): same keys, same means");
		keytab__release(&ta);
		keytab__release(&tb);
	}
	{
		struct keytab tb;

		src.fail = -EIO;
		is_int(keytab__build(&tb, b), -EIO, "a source's error is keytab__build's");
		src.fail = 0;
	}
	b->whole = NULL;	/* ours, not the profile's to release */
	profile__free(a);
	profile__free(b);
}

/* keyvals' value of key, -1 when absent. */
static double get(const struct keyvals *kv, const char *key)
{
	size_t i;

	for (i = 0; i < kv->nr; i++)
		if (!strcmp(kv->items[i].key, key))
			return kv->items[i].value;
	return -1;
}

/*
 * By hand: 300 chains main -> g -> h, main at 300 call sites (300
 * address paths of period 1, each under perf's 0.5 % floor of 5, one
 * symbol path of 300), one main -> f -> inl with inl inlined into f
 * (period 100), and x -> y (period 600), the first 301 elided at the
 * root: the trie holds root -> [elided] -> h and root -> [elided] -> inl.
 * The calltrace lines of main -> g -> h are 30 %, though no address path
 * reaches the floor; inl's samples are f's self, not [elided]'s.
 */
static void test_by_hand(void)
{
	static struct tchain ch[302];
	struct profile *p = profile__new();
	struct event_desc ev = { .name = profile__intern(p, "cpu-clock") };
	struct run r = { .wall_ns = 1 };
	struct arraysrc src = { .src = { .each = arraysrc_each, .release = arraysrc_release } };
	struct frame fr = { .addr = PROFILE_ELIDED_ADDR };
	uint32_t comm = profile__intern(p, "w"), elided, g, h, f, inl, x, y, i, node;
	struct keyvals kv = { 0 };
	struct symview v;

	profile__add_event(p, &ev);
	profile__add_run(p, &r);
	fr.sym = fr.dso = profile__intern(p, PROFILE_ELIDED);
	elided = profile__frame(p, &fr);
#define FR(name, a, inl_) profile__frame(p, &(struct frame){ .addr = (a), \
		.sym = profile__intern(p, name), .dso = profile__intern(p, "/bin/w"), .inlined = (inl_) })
	g = FR("g", 0x2000, 0);
	h = FR("h", 0x3000, 0);
	f = FR("f", 0x4000, 0);
	inl = FR("inl", 0x4000, 1);
	x = FR("x", 0x5000, 0);
	y = FR("y", 0x6000, 0);
	for (i = 0; i < 300; i++) {
		ch[i] = (struct tchain){ .frames = { FR("main", 0x1000 + i, 0), g, h }, .nr = 3,
			.cells = { { .comm = comm, .samples = 1, .period = 1 } }, .nr_cells = 1,
			.elided = true };
	}
	ch[300] = (struct tchain){ .frames = { FR("main", 0x1fff, 0), f, inl }, .nr = 3,
		.cells = { { .comm = comm, .samples = 1, .period = 100 } }, .nr_cells = 1, .elided = true };
#undef FR
	qsort(ch, 301, sizeof(*ch), chain_cmp);
	for (i = 0; i < 301; i++) {
		node = profile__node(p, profile__node(p, PROFILE_ROOT, elided), ch[i].frames[2]);
		add_cells(p, node, &ch[i]);
		src.src.nr_chains++;
		src.src.nr_frames += ch[i].nr;
	}
	node = profile__node(p, profile__node(p, PROFILE_ROOT, x), y);
	profile__add_count(p, 0, 0, comm, 0, node, 1, 600);
	src.ch = ch;
	src.n = 301;
	p->whole = &src.src;
	symview__init(&v, p, false);
	all_keys(&v, false, &kv);
	is_dbl(get(&kv, "0 perf-profile.calltrace.cpu-clock.h.g.main"), 30, 1e-9,
	       "a symbol path heavy over light address paths: its calltrace line");
	is_dbl(get(&kv, "0 perf-profile.calltrace.cpu-clock.main"), 40, 1e-9,
	       "main's own line: the 300 and f's 100");
	is_dbl(get(&kv, "0 perf-profile.children.cpu-clock.g"), 30, 1e-9, "children of an elided frame");
	is_dbl(get(&kv, "0 perf-profile.self.cpu-clock.h"), 30, 1e-9, "self of the sampled frame");
	is_dbl(get(&kv, "0 perf-profile.self.cpu-clock.f"), 10, 1e-9,
	       "an inlined sampled frame's self is its real function's, elided above it");
	is_dbl(get(&kv, "0 perf-profile.self.cpu-clock.y"), 60, 1e-9, "a whole chain's self");
	ok(!has_elided(&kv), "no [elided] key");
	is_int(src.released, 0, "the keys do not release the profile's source");
	keyvals__release(&kv);
	symview__release(&v);
	p->whole = NULL;
	profile__free(p);
}

/*
 * b saved (format 5: its whole chains in chain_blocks, piece C) and
 * loaded back (a file-backed chain source): the keys of the file are want.
 */
static void saved_and_loaded(const struct profile *b, const struct keyvals *want)
{
	char dir[] = "/tmp/mmprof-chainkeys.XXXXXX", path[64];
	struct profile *c = NULL;
	struct keyvals kc = { 0 };
	struct errmsg e;
	struct symview v;

	if (!mkdtemp(dir)) {
		ok(0, "mkdtemp");
		return;
	}
	snprintf(path, sizeof(path), "%s/b.data", dir);
	ok(!datafile__save(b, path, &e) && !datafile__load(path, &c, &e) && c->whole,
	   "saved and loaded with its whole chains");
	if (c && c->whole) {
		symview__init(&v, c, false);
		all_keys(&v, false, &kc);
		symview__release(&v);
		ok(!keys_differ(want, &kc, "saved and loaded"),
		   "the loaded file's keys are the all-whole profile's (%zu)", kc.nr);
	}
	keyvals__release(&kc);
	profile__free(c);
	unlink(path);
	rmdir(dir);
}

/*
 * The same chains put into an empty trie by profile__take_chains (piece
 * B) at a fraction of the whole trie's nodes: where no chain is cut to its
 * leaf (the fallback, which loses callers by design), every key is the
 * all-whole profile's.
 */
static void test_take_chains(void)
{
	static struct tchain ch[NCHAIN];
	static const size_t div[] = { 2, 4, 8, 32 };
	struct profile *a = base_profile();
	uint32_t comm0 = profile__intern(a, "comm0");
	size_t n, i, k, tried = 0;
	struct keyvals ka = { 0 }, kr = { 0 };
	struct symview va, vr;
	struct symview_opts robot_o = { .keep_unresolved = true, .keep_inline = true };

	n = make_chains(ch, comm0);
	for (i = 0; i < n; i++) {
		ch[i].elided = true;	/* the source yields every chain */
		add_cells(a, path(a, PROFILE_ROOT, ch[i].frames, ch[i].nr), &ch[i]);
	}
	symview__init(&va, a, false);
	all_keys(&va, false, &ka);
	symview__release(&va);
	symview__init_opts(&va, a, &robot_o);
	all_keys(&va, true, &kr);
	symview__release(&va);
	for (k = 0; k < sizeof(div) / sizeof(div[0]); k++) {
		struct arraysrc src = { .src = { .each = arraysrc_each, .release = arraysrc_release },
					.ch = ch, .n = n };
		struct profile *b = base_profile();
		struct chaintake_stats st;
		struct keyvals kb = { 0 }, kbr = { 0 };
		int err;

		for (i = 0; i < n; i++) {
			src.src.nr_chains++;
			src.src.nr_frames += ch[i].nr;
		}
		err = profile__take_chains(b, &src.src, a->nr_nodes / div[k], &st);
		if (err || st.cut_samples || !b->whole) {
			printf("# 1/%zu of the nodes: take %d, %llu samples cut, whole %s: not compared\n",
			       div[k], err, (unsigned long long)st.cut_samples, b->whole ? "yes" : "no");
			profile__free(b);
			continue;
		}
		tried++;
		symview__init(&vr, b, false);
		all_keys(&vr, false, &kb);
		symview__release(&vr);
		symview__init_opts(&vr, b, &robot_o);
		all_keys(&vr, true, &kbr);
		symview__release(&vr);
		ok(!keys_differ(&ka, &kb, "take_chains") && !keys_differ(&kr, &kbr, "take_chains, robot"),
		   "take_chains into 1/%zu of the nodes (%zu nodes, %llu of %zu chains elided, T %llu): "
		   "every key the all-whole profile's, LKP and robot views", div[k], b->nr_nodes,
		   (unsigned long long)st.elided_chains, n, (unsigned long long)st.threshold);
		ok(!has_elided(&kb) && !has_elided(&kbr), "1/%zu: [elided] no key", div[k]);
		if (tried == 1)
			saved_and_loaded(b, &ka);
		keyvals__release(&kb);
		keyvals__release(&kbr);
		profile__free(b);	/* its whole: take_chains' source over ours */
	}
	ok(tried >= 2, "take_chains compared at %zu sizes without a cut", tried);
	keyvals__release(&ka);
	keyvals__release(&kr);
	profile__free(a);
}

int main(void)
{
	test_by_hand();
	test_elided_as_whole();
	test_take_chains();
	return done_testing();
}
