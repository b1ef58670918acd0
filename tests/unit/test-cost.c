/*
 * test-cost: costs per unit of work (cost.h) on profiles computed by hand
 * (self, children and total per op, unresolved and frameless samples in
 * the total, the part keys, failed runs), the choice of the work count
 * (a count before a rate, a rate times the wall time, two counts or none:
 * per second, --per), and on random profiles the invariant the
 * attribution rests on: the self costs of a run add up to its total.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "tap.h"
#include "mmprof/cost.h"

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

static double get(const struct keyvals *kv, const char *key)
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
	struct keyvals kv = { 0 };
	const char *ev[] = { "cpu-clock" };
	double base_total[] = { 200 };
	bool time;

	is_int(cost_work__choose(ps, NULL, 1, NULL, &w, NULL), 0, "work chosen");
	is_int(w.kind, COST_WORK_COUNT, "a count before a rate");
	is_str(w.key, "w.ops", "the ops count");
	c = cost_profile__new(p, &w);
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
	keyvals__release(&kv);

	cost_profile__keys(c, 1, ev, base_total, 1, &kv);
	is_dbl(get(&kv, "cost.total.cpu-clock"), 200, 1e-9, "run 1: 4000 ns / 20 ops");
	is_dbl(get(&kv, "cost.self.cpu-clock.f"), 75, 1e-9, "f.isra.0 is f's key");
	is_dbl(get(&kv, "cost.children.cpu-clock.f"), 175, 1e-9, "f's children in run 1");
	keyvals__release(&kv);

	cost_profile__keys(c, 2, ev, base_total, 1, &kv);
	is_int((long)kv.nr, 0, "no keys for a run of unknown work");
	keyvals__release(&kv);
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
	is_int(cost_work__choose(ps, names, 1, NULL, &w, &e), 0, "no metric");
	is_int(w.kind, COST_WORK_SECONDS, "no metric: per second");
	ok(strstr(w.note, "no work count") != NULL, "says so: %s", w.note);
	profile__free(a);
}

/* Random tries: for every run, Σ self = total (the attribution adds up). */
static void test_partition(void)
{
	unsigned seed = 16;
	int trial, bad = 0;

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
		c = cost_profile__new(p, &w);
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
}

int main(void)
{
	test_hand();
	test_work_choice();
	test_partition();
	return done_testing();
}
