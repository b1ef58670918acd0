/*
 * test-cost: costs per unit of work (cost.h) on profiles computed by hand
 * (self, children and total per op, unresolved and frameless samples in
 * the total, the part keys, failed runs), the choice of the work count
 * (a count before a rate, a rate times the wall time, two counts or none:
 * per second, --per), the attribution of a change between two sides
 * (the listing rule, the elsewhere row that makes the column add up,
 * caller chains, a failed run's note), and on random profiles the
 * invariant the attribution rests on: the self costs of a run add up to
 * its total.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "tap.h"
#include "mmprof/cost.h"
#include "mmprof/diffside.h"

static uint32_t frame(struct profile *p, const char *sym, const char *dso, uint64_t addr)
{
	struct frame f = { .addr = addr, .sym = sym ? profile__intern(p, sym) : 0,
			   .dso = dso ? profile__intern(p, dso) : 0 };

	return profile__frame(p, &f);
}

static uint32_t stack(struct profile *p, const uint32_t *root_first, size_t n)
{
	uint32_t node = PROFILE_ROOT;
	size_t i;

	for (i = 0; i < n; i++)
		node = profile__node(p, node, root_first[i]);
	return node;
}

static double get(const struct cost_keys *kv, const char *key)
{
	size_t i;

	for (i = 0; i < kv->nr; i++)
		if (!strcmp(kv->items[i].key, key))
			return kv->items[i].value;
	return -1;	/* absent */
}

/*
 * Two runs of 2 s, cpu-clock; w.ops 10 and 20 (and w.ops_per_sec 5, 10).
 * Stacks, root first (period ns in run 0, run 1):
 *   main f leaf          1000, 2000
 *   main g               500,  500
 *   main f [unknown]     300,  0      (unresolved leaf in /lib/x.so)
 *   (no frame)           200,  0
 *   main f.isra.0        0,    1500   (f again, by key spelling)
 * Run 2 failed (exit status 1): its work is unknown.
 */
static struct profile *hand_profile(void)
{
	struct profile *p = profile__new();
	struct event_desc ev = { .name = profile__intern(p, "cpu-clock"),
				 .type = 1 /* PERF_TYPE_SOFTWARE */, .config = 0 };
	struct run r = { .wall_ns = 2000000000 }, failed = { .wall_ns = 2000000000, .exit_code = 1 };
	uint32_t comm = profile__intern(p, "w");
	uint32_t m = frame(p, "main", "/bin/w", 0x10), f = frame(p, "f", "/bin/w", 0x20);
	uint32_t leaf = frame(p, "leaf", "[kernel.kallsyms]", 0xffff0010);
	uint32_t g = frame(p, "g", "/bin/w", 0x30), unk = frame(p, NULL, "/lib/x.so", 0x7000);
	uint32_t fi = frame(p, "f.isra.0", "/bin/w", 0x40);
	uint32_t s1[] = { m, f, leaf }, s2[] = { m, g }, s3[] = { m, f, unk }, s5[] = { m, fi };
	uint32_t n1 = stack(p, s1, 3), n2 = stack(p, s2, 2), n3 = stack(p, s3, 3), n5 = stack(p, s5, 2);

	profile__add_event(p, &ev);
	profile__add_run(p, &r);
	profile__add_run(p, &r);
	profile__add_run(p, &failed);
	profile__add_count(p, 0, 0, comm, 1, n1, 10, 1000);
	profile__add_count(p, 0, 0, comm, 1, n2, 5, 500);
	profile__add_count(p, 0, 0, comm, 1, n3, 3, 300);
	profile__add_count(p, 0, 0, comm, 1, PROFILE_ROOT, 2, 200);
	profile__add_count(p, 1, 0, comm, 1, n1, 20, 2000);
	profile__add_count(p, 1, 0, comm, 1, n2, 5, 500);
	profile__add_count(p, 1, 0, comm, 1, n5, 15, 1500);
	profile__add_count(p, 2, 0, comm, 1, n1, 20, 2000);
	profile__add_metric(p, 0, "w.ops", 10);
	profile__add_metric(p, 0, "w.ops_per_sec", 5);
	profile__add_metric(p, 1, "w.ops", 20);
	profile__add_metric(p, 1, "w.ops_per_sec", 10);
	profile__add_metric(p, 2, "w.ops", 20);
	return p;
}

static void test_hand(void)
{
	struct profile *p = hand_profile();
	const struct profile *ps[] = { p };
	struct cost_work w;
	struct cost_profile *c;
	struct cost_keys kv = { 0 };
	const char *ev[] = { "cpu-clock" };
	double base_total[] = { 200 };
	bool time;

	is_int(cost_work__choose(ps, NULL, 1, NULL, &w, NULL), 0, "work chosen");
	is_int(w.kind, COST_WORK_COUNT, "a count before a rate");
	is_str(w.key, "w.ops", "the ops count");
	c = cost_profile__new(p, NULL, &w);
	is_dbl(c->work[0], 10, 1e-12, "run 0 did 10 ops");
	ok(isnan(c->work[2]), "a failed run's work is unknown");
	is_str(cost_event__unit(p, 0, &time), "ns", "cpu-clock's unit");
	ok(time, "cpu-clock is a time");

	cost_profile__keys(c, 0, ev, base_total, 1, &kv);
	is_dbl(get(&kv, "cost.work"), 10, 1e-12, "cost.work");
	is_dbl(get(&kv, "cost.total.cpu-clock"), 200, 1e-9, "total: every sample, 2000 ns / 10 ops");
	is_dbl(get(&kv, "cost.self.cpu-clock.leaf"), 100, 1e-9, "leaf's self");
	is_dbl(get(&kv, "cost.self.cpu-clock.g"), 50, 1e-9, "g's self");
	is_dbl(get(&kv, "cost.self.cpu-clock.[unknown]@/lib/x.so"), 30, 1e-9,
	       "an unresolved leaf is [unknown]@its DSO");
	is_dbl(get(&kv, "cost.self.cpu-clock.[no_stack]"), 20, 1e-9, "a frameless sample is [no_stack]");
	is_dbl(get(&kv, "cost.children.cpu-clock.f"), 130, 1e-9, "f's children: leaf and the unknown");
	is_dbl(get(&kv, "cost.children.cpu-clock.main"), 180, 1e-9, "main's children");
	is_dbl(get(&kv, "cost.self.cpu-clock.f"), -1, 0, "f has no self cost in run 0");
	is_dbl(get(&kv, "cost.part.cpu-clock.leaf"), 50, 1e-9, "part: 100 * 100 / 200");
	is_dbl(get(&kv, "cost.part.cpu-clock.[no_stack]"), 10, 1e-9, "part of the frameless");
	cost_keys__release(&kv);

	cost_profile__keys(c, 1, ev, base_total, 1, &kv);
	is_dbl(get(&kv, "cost.total.cpu-clock"), 200, 1e-9, "run 1: 4000 ns / 20 ops");
	is_dbl(get(&kv, "cost.self.cpu-clock.f"), 75, 1e-9, "f.isra.0 is f's key");
	is_dbl(get(&kv, "cost.children.cpu-clock.f"), 175, 1e-9, "f's children in run 1");
	cost_keys__release(&kv);

	cost_profile__keys(c, 2, ev, base_total, 1, &kv);
	is_int((long)kv.nr, 0, "no keys for a run of unknown work");
	cost_keys__release(&kv);
	cost_profile__free(c);
	profile__free(p);
}

static void test_work_choice(void)
{
	struct profile *a = profile__new(), *b = profile__new();
	const struct profile *ps[] = { a, b };
	const char *names[] = { "a.data", "b.data" };
	struct run r = { .wall_ns = 4000000000 };
	struct cost_work w;
	struct errmsg e;

	profile__add_run(a, &r);
	profile__add_run(b, &r);
	profile__add_metric(a, 0, "x.ops_per_sec", 2.5);
	profile__add_metric(b, 0, "x.ops_per_sec", 5);
	profile__add_metric(a, 0, "perf-sched.foo.ops", 3);
	is_int(cost_work__choose(ps, names, 2, NULL, &w, &e), 0, "rate chosen");
	is_int(w.kind, COST_WORK_RATE, "a rate when no count");
	is_dbl(cost_work__run(&w, a, 0), 10, 1e-12, "rate times the wall time");

	profile__add_metric(a, 0, "stress-ng.vm.ops", 7);
	profile__add_metric(a, 0, "stress-ng.cpu.ops", 9);
	profile__add_metric(b, 0, "stress-ng.vm.ops", 7);
	profile__add_metric(b, 0, "stress-ng.cpu.ops", 9);
	is_int(cost_work__choose(ps, names, 2, NULL, &w, &e), 0, "two counts: no error");
	is_int(w.kind, COST_WORK_SECONDS, "two counts: per second");
	ok(strstr(w.note, "stress-ng.vm.ops, stress-ng.cpu.ops") && strstr(w.note, "--per"),
	   "the note names both and --per: %s", w.note);
	is_dbl(cost_work__run(&w, a, 0), 4, 1e-12, "per second: the run's seconds");

	is_int(cost_work__choose(ps, names, 2, "stress-ng.vm.ops", &w, &e), 0, "--per a count");
	is_int(w.kind, COST_WORK_COUNT, "--per: a count");
	is_int(cost_work__choose(ps, names, 2, "x.ops_per_sec", &w, &e), 0, "--per a rate");
	is_int(w.kind, COST_WORK_RATE, "--per: _per_sec is a rate");
	profile__add_metric(a, 0, "x.only_here", 1);
	is_int(cost_work__choose(ps, names, 2, "x.only_here", &w, &e), -EINVAL, "--per absent from a file");
	ok(strstr(e.msg, "'b.data'") && strstr(e.msg, "x.only_here"), "says which: %s", e.msg);

	profile__free(a);
	profile__free(b);
	a = profile__new();
	profile__add_run(a, &r);
	ps[0] = a;
	profile__add_metric(a, 0, "will-it-scale.per_process_ops", 100);
	profile__add_metric(a, 0, "will-it-scale.workload", 200);
	is_int(cost_work__choose(ps, names, 1, NULL, &w, &e), 0, "will-it-scale");
	ok(w.kind == COST_WORK_RATE && !strcmp(w.key, "will-it-scale.workload"),
	   "will-it-scale: its total ops per second, a rate");
	is_dbl(cost_work__run(&w, a, 0), 800, 1e-9, "times the wall time");
	is_int(cost_work__choose(ps, names, 1, "will-it-scale.per_process_ops", &w, &e), 0, "--per per_process_ops");
	is_int(w.kind, COST_WORK_RATE, "per_process_ops is a rate");
	profile__free(a);
	a = profile__new();
	profile__add_run(a, &r);
	ps[0] = a;
	is_int(cost_work__choose(ps, names, 1, NULL, &w, &e), 0, "no metric");
	is_int(w.kind, COST_WORK_SECONDS, "no metric: per second");
	ok(strstr(w.note, "no work count") != NULL, "says so: %s", w.note);
	profile__free(a);
}

/* A side of two runs of 10 ops each; stacks (root first) and periods per run. */
static struct profile *attr_profile(bool is_new, bool fail_second)
{
	struct profile *p = profile__new();
	struct event_desc ev = { .name = profile__intern(p, "cpu-clock") };
	struct run r = { .wall_ns = 1000000000 }, bad = { .wall_ns = 1000000000, .exit_code = 3 };
	uint32_t comm = profile__intern(p, "w");
	uint32_t m = frame(p, "main", "/w", 1), a = frame(p, "a", "/w", 2), b = frame(p, "b", "/w", 3);
	uint32_t c = frame(p, "c", "/w", 4), x = frame(p, "x", "/w", 5);
	uint32_t sa[] = { m, a }, sb[] = { m, b }, sc[] = { m, c }, sxc[] = { m, x, c };
	uint32_t run;

	profile__add_event(p, &ev);
	profile__add_run(p, &r);
	profile__add_run(p, fail_second ? &bad : &r);
	for (run = 0; run < 2; run++) {
		profile__add_count(p, run, 0, comm, 1, stack(p, sa, 2), 1, is_new ? 1200 : 600);
		profile__add_count(p, run, 0, comm, 1, stack(p, sb, 2), 1, 300);
		profile__add_count(p, run, 0, comm, 1, stack(p, sc, 2), 1, 100);
		if (is_new)
			profile__add_count(p, run, 0, comm, 1, stack(p, sxc, 3), 1, 100);
		profile__add_metric(p, run, "w.ops", 10);
	}
	return p;
}

static void test_attribution(void)
{
	struct profile *pb = attr_profile(false, false), *pn = attr_profile(true, false);
	char *pathb[] = { "b.data" }, *pathn[] = { "n.data" };
	size_t orig[] = { 0, 1 };
	struct diff_side s[2] = {
		{ .name = "base", .paths = pathb, .nr = 1, .profiles = &pb, .nr_runs = 2, .orig = orig },
		{ .name = "new", .paths = pathn, .nr = 1, .profiles = &pn, .nr_runs = 2, .orig = orig },
	};
	struct cost_sides c;
	const struct cost_attr *ap;
	struct cost_attr a;
	struct errmsg e;
	double sum = 0;
	size_t i;

	is_int(cost_sides__build(&c, s, 2, NULL, &e), 0, "sides' costs built");
	is_int((long)c.nr_events, 1, "one event compared");
	is_dbl(c.base_total[0], 100, 1e-9, "the base's mean total: 1000 ns / 10 ops");
	is_dbl(cost_sides__mean(&c, 1, "cost.part.cpu-clock.a"), 120, 1e-9,
	       "cost.part of the new side: in points of the base's total");
	ap = cost_sides__attr(&c, 1, "cpu-clock");
	ok(ap != NULL, "attribution computed at build");
	a = ap ? *ap : (struct cost_attr){ 0 };
	is_dbl(a.delta, 70, 1e-9, "the total rose by 70 ns per op");
	is_int((long)a.nr, 3, "listed a and c (90 % of the changes), then elsewhere");
	ok(a.rows[0].fn && !strcmp(a.rows[0].fn, "a") && a.rows[1].fn && !strcmp(a.rows[1].fn, "c"),
	   "largest change first: a, c");
	is_dbl(a.rows[0].delta, 60, 1e-9, "a: +60 ns per op");
	is_dbl(a.rows[0].share, 600.0 / 7, 1e-9, "a: 85.7 % of the change");
	is_dbl(a.rows[0].points, 60, 1e-9, "a: +60 points of the base cost");
	ok(!a.rows[2].fn && a.rows[2].nr == 1 && a.rows[2].delta == a.delta - a.rows[0].delta - a.rows[1].delta,
	   "elsewhere: the one function left, the rest of the change by definition");
	for (i = 0; i < a.nr; i++)
		sum += a.rows[i].delta;
	is_dbl(sum, a.delta, 1e-12, "the column adds up to the total's change");
	is_int((long)a.nr_all, 3, "every function with a self cost (main has none)");
	is_int((long)a.nr_chains, 2, "a chain for a, one for c (its unchanged chain under 5 %)");
	ok(a.nr_chains == 2 && !strcmp(a.chains[1].chain, "main;x;c") && a.chains[1].delta == 10,
	   "c's change came under x: main;x;c +10");
	ok(!cost_sides__attr(&c, 1, "cycles") && !cost_sides__attr(&c, 2, "cpu-clock") &&
	   !cost_sides__attr(&c, 0, "cpu-clock"), "no attribution of an event or column not compared");
	ok(!c.side[0].cp[0]->nr_nodes && !cost_profile__has_view(c.side[1].cp[0]),
	   "the symbol tries are gone after the build");
	cost_sides__release(&c);

	profile__free(pn);
	pn = attr_profile(true, true);
	s[1].profiles = &pn;
	is_int(cost_sides__build(&c, s, 2, NULL, &e), 0, "a failed run: no error");
	is_int((long)c.nr_events, 0, "but no costs");
	ok(strstr(c.note, "new run 1 (n.data run 1) failed (exit status 3)") &&
	   strstr(c.note, "--drop-run new:1"), "the note names the run and the way out: %s", c.note);
	cost_sides__release(&c);
	profile__free(pb);
	profile__free(pn);
}

/* Random tries: for every run, Σ self = total (the attribution adds up). */
static void test_partition(void)
{
	unsigned seed = 16;
	int trial, bad = 0, shared_bad = 0;

	for (trial = 0; trial < 50; trial++) {
		struct profile *p = profile__new();
		struct event_desc ev = { .name = profile__intern(p, "task-clock") };
		struct run r = { .wall_ns = 1000000000 };
		uint32_t fr[12], comm = profile__intern(p, "x");
		struct cost_work w = { .kind = COST_WORK_SECONDS };
		struct cost_profile *c;
		int i, k;
		uint32_t run;

		profile__add_event(p, &ev);
		for (i = 0; i < 3; i++)
			profile__add_run(p, &r);
		for (i = 0; i < 12; i++) {
			char name[16];

			snprintf(name, sizeof(name), "fn%d", i % 9);	/* some names twice */
			fr[i] = frame(p, i % 5 == 4 ? NULL : name, i % 2 ? "/a" : "/b", 0x100 * (uint64_t)i);
		}
		for (k = 0; k < 60; k++) {
			uint32_t st[8];
			size_t depth = (size_t)(rand_r(&seed) % 8);

			for (i = 0; i < (int)depth; i++)
				st[i] = fr[rand_r(&seed) % 12];
			profile__add_count(p, (uint32_t)(rand_r(&seed) % 3), 0, comm, 1,
					   stack(p, st, depth), 1, 1 + (uint64_t)(rand_r(&seed) % 1000));
		}
		c = cost_profile__new(p, NULL, &w);
		{
			/* from a diff's collapse of the file (its unresolved frames are
			 * "[unknown]" per DSO there too): the same functions and cells */
			struct symview_opts fo = DIFF_SIDE_VIEW;
			struct symview fine;
			struct cost_profile *cf;
			size_t f;

			symview__init_opts(&fine, p, &fo);
			cf = cost_profile__new(p, &fine, &w);
			if (cf->fn.nr != c->fn.nr || cf->nr_cells != c->nr_cells || cf->nr_nodes != c->nr_nodes)
				shared_bad++;
			/* field by field: a cell's padding is not its value */
			for (f = 0; f < c->nr_cells && f < cf->nr_cells; f++)
				shared_bad += cf->cells[f].fn != c->cells[f].fn || cf->cells[f].self != c->cells[f].self ||
					      cf->cells[f].children != c->cells[f].children;
			for (f = 0; f < c->fn.nr && f < cf->fn.nr; f++)
				shared_bad += strcmp(c->fn.s[f], cf->fn.s[f]) != 0;
			cost_profile__free(cf);
			symview__release(&fine);
		}
		for (run = 0; run < 3; run++) {
			const struct cost_slot *s = cost_profile__slot(c, run, 0);
			double sum = 0, all = 0;
			size_t j;

			for (j = s->first; j < s->first + s->nr; j++)
				sum += c->cells[j].self;
			for (j = 0; j < p->nr_counts; j++)
				all += p->counts[j].run == run ? (double)p->counts[j].period : 0;
			if (fabs(sum - s->total) > 1e-9 * fmax(1, s->total) || fabs(all - s->total) > 1e-9 * fmax(1, all))
				bad++;
		}
		cost_profile__free(c);
		profile__free(p);
	}
	is_int(bad, 0, "over 50 random profiles of 3 runs: self costs add up to the total, every sample counted");
	is_int(shared_bad, 0, "... and from a diff's collapse of the file: the same functions, in order, and cells");
}

/*
 * cost_profiles__keep: a function under COST_KEY_FLOOR of every run's total
 * in every profile gets no key; one above it in some run of one profile
 * gets keys in every profile, so that no side reads it as absent.
 */
static void test_keep(void)
{
	struct profile *a = hand_profile(), *b = hand_profile();
	const struct profile *ps[] = { a, b };
	const char *ev[] = { "cpu-clock" };
	double base_total[] = { 200 };
	struct cost_profile *ca, *cb, *both[2];
	struct cost_keys ka = { 0 }, kb = { 0 };
	struct cost_work w;
	uint32_t comm = profile__intern(b, "w"), tiny[2], big[2], na, nb;

	/* tiny: 1 ns of 3000 in a's run 0 (under 0.05 %); big: 1 ns in a, 300 in b */
	tiny[0] = frame(a, "main", "/bin/w", 0x10);
	tiny[1] = frame(a, "tiny", "/bin/w", 0x50);
	na = stack(a, tiny, 2);
	profile__add_count(a, 0, 0, profile__intern(a, "w"), 1, na, 1, 1);
	big[0] = frame(a, "big", "/bin/w", 0x60);
	na = stack(a, big, 1);
	profile__add_count(a, 0, 0, profile__intern(a, "w"), 1, na, 1, 1);
	big[0] = frame(b, "big", "/bin/w", 0x60);
	nb = stack(b, big, 1);
	profile__add_count(b, 0, 0, comm, 1, nb, 3, 300);
	is_int(cost_work__choose(ps, NULL, 2, NULL, &w, NULL), 0, "keep: work chosen");
	ca = cost_profile__new(a, NULL, &w);
	cb = cost_profile__new(b, NULL, &w);
	both[0] = ca;
	both[1] = cb;
	cost_profiles__keep(both, 2);
	cost_profile__keys(ca, 0, ev, base_total, 1, &ka);
	cost_profile__keys(cb, 0, ev, base_total, 1, &kb);
	is_dbl(get(&ka, "cost.self.cpu-clock.tiny"), -1, 0, "a function under the floor everywhere has no key");
	is_dbl(get(&ka, "cost.self.cpu-clock.big"), 0.1, 1e-12,
	       "one under the floor here and above it in another file keeps its key here");
	is_dbl(get(&kb, "cost.self.cpu-clock.big"), 30, 1e-9, "and there");
	is_dbl(get(&ka, "cost.total.cpu-clock"), 200.2, 1e-9, "the total still holds every sample");
	cost_keys__release(&ka);
	cost_keys__release(&kb);
	cost_profile__free(ca);
	cost_profile__free(cb);
	profile__free(a);
	profile__free(b);
}

int main(void)
{
	test_hand();
	test_work_choice();
	test_attribution();
	test_partition();
	test_keep();
	return done_testing();
}
