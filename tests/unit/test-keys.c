/*
 * test-keys: the LKP key builder on small profiles whose keys were
 * computed by hand (children vs self vs calltrace, recursion, suffix
 * collisions, unresolved frames, the 0.5 % chain floor, period weighting,
 * perf-stat formulas, workload keys, means over runs), plus a differential
 * check of the symbol trie against a naive per-sample model, and the same
 * keys from counts stored grouped by run and event or not.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tap.h"
#include "mmprof/keys.h"
#include "mmprof/report.h"

static uint32_t frame(struct profile *p, const char *sym, const char *dso, uint64_t addr)
{
	struct frame f = { .addr = addr, .sym = profile__intern(p, sym),
			   .dso = profile__intern(p, dso) };

	return profile__frame(p, &f);
}

/* stack given root first as frame ids, terminated by UINT32_MAX */
static uint32_t stack(struct profile *p, const uint32_t *root_first)
{
	uint32_t node = PROFILE_ROOT;

	for (; *root_first != UINT32_MAX; root_first++)
		node = profile__node(p, node, *root_first);
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

static int has_prefix(const struct keyvals *kv, const char *prefix)
{
	size_t i, n = 0;

	for (i = 0; i < kv->nr; i++)
		n += !strncmp(kv->items[i].key, prefix, strlen(prefix));
	return (int)n;
}

static struct profile *base_profile(void)
{
	struct profile *p = profile__new();
	struct event_desc ev = { .name = profile__intern(p, "cpu-clock"),
				 .asked = profile__intern(p, "cycles") };
	struct run r = { .wall_ns = 2000000000 };

	profile__add_event(p, &ev);
	profile__add_run(p, &r);
	return p;
}

/*
 * Stacks (root first; period, samples):
 *   S1 main f leaf                 100, 10
 *   S2 main rec rec leaf           200, 2   (recursion)
 *   S3 main g.isra.0               50,  1
 *   S4 main g.constprop.1          50,  1   (collides with S3 after stripping)
 *   S5 main [unknown] f            100, 1   (unresolved frame in the middle)
 *   S6 main f [unknown]            500, 5   (unresolved IP: dropped, -U)
 * Total of kept samples: 500.
 */
static void test_hand_example(void)
{
	struct profile *p = base_profile();
	uint32_t comm = profile__intern(p, "a.out");
	uint32_t m = frame(p, "main", "/bin/a.out", 0x10), f = frame(p, "f", "/bin/a.out", 0x20);
	uint32_t leaf = frame(p, "leaf", "[kernel.kallsyms]", 0xffff0010);
	uint32_t leaf2 = frame(p, "leaf", "[kernel.kallsyms]", 0xffff0018);
	uint32_t rec1 = frame(p, "rec", "/bin/a.out", 0x30), rec2 = frame(p, "rec", "/bin/a.out", 0x34);
	uint32_t gi = frame(p, "g.isra.0", "/bin/a.out", 0x40);
	uint32_t gc = frame(p, "g.constprop.1", "/lib/other.so", 0x50);
	struct frame uf = { .addr = 0x999 };
	uint32_t unk = profile__frame(p, &uf);
	uint32_t s1[] = { m, f, leaf, UINT32_MAX }, s2[] = { m, rec1, rec2, leaf2, UINT32_MAX };
	uint32_t s3[] = { m, gi, UINT32_MAX }, s4[] = { m, gc, UINT32_MAX };
	uint32_t s5[] = { m, unk, f, UINT32_MAX }, s6[] = { m, f, unk, UINT32_MAX };
	struct keyvals kv = { 0 };

	profile__add_count(p, 0, 0, comm, 0, stack(p, s1), 10, 100);
	profile__add_count(p, 0, 0, comm, 0, stack(p, s2), 2, 200);
	profile__add_count(p, 0, 0, comm, 0, stack(p, s3), 1, 50);
	profile__add_count(p, 0, 0, profile__intern(p, "other"), 0, stack(p, s4), 1, 50);
	profile__add_count(p, 0, 0, comm, 0, stack(p, s5), 1, 100);
	profile__add_count(p, 0, 0, comm, 0, stack(p, s6), 5, 500);

	is_int(keys__run(p, 0, &kv), 0, "keys__run succeeds");
	is_dbl(get(&kv, "perf-profile.children.cpu-clock.main"), 100, 1e-9, "children main 100");
	is_dbl(get(&kv, "perf-profile.children.cpu-clock.f"), 40, 1e-9, "children f: S1+S5");
	is_dbl(get(&kv, "perf-profile.children.cpu-clock.leaf"), 60, 1e-9,
	       "children leaf: two addresses, one symbol");
	is_dbl(get(&kv, "perf-profile.children.cpu-clock.rec"), 40, 1e-9,
	       "children rec counted once under recursion");
	is_dbl(get(&kv, "perf-profile.children.cpu-clock.g"), 20, 1e-9,
	       "children g: .isra/.constprop collide across DSOs and add");
	is_dbl(get(&kv, "perf-profile.self.cpu-clock.leaf"), 60, 1e-9, "self leaf");
	is_dbl(get(&kv, "perf-profile.self.cpu-clock.f"), 20, 1e-9, "self f (S5 only; S6 dropped)");
	is_dbl(get(&kv, "perf-profile.self.cpu-clock.g"), 20, 1e-9, "self g summed");
	is_dbl(get(&kv, "perf-profile.self.cpu-clock.main"), -1, 0, "no self key for main");
	is_dbl(get(&kv, "perf-profile.calltrace.cpu-clock.main"), 100, 1e-9, "calltrace main");
	is_dbl(get(&kv, "perf-profile.calltrace.cpu-clock.f.main"), 40, 1e-9,
	       "calltrace f.main: unknown frame skipped, chains merged");
	is_dbl(get(&kv, "perf-profile.calltrace.cpu-clock.leaf.f.main"), 20, 1e-9,
	       "calltrace leaf.f.main");
	is_dbl(get(&kv, "perf-profile.calltrace.cpu-clock.leaf.rec.rec.main"), 40, 1e-9,
	       "calltrace leaf.rec.rec.main");
	is_dbl(get(&kv, "perf-profile.calltrace.cpu-clock.rec.rec.main"), 40, 1e-9,
	       "calltrace of rec starts at its innermost occurrence");
	is_dbl(get(&kv, "perf-profile.calltrace.cpu-clock.rec.main"), -1, 0,
	       "no chain from the outer rec");
	is_dbl(get(&kv, "perf-profile.calltrace.cpu-clock.g.main"), 20, 1e-9,
	       "calltrace g.main summed over stripped names");
	ok(!has_prefix(&kv, "perf-profile.children.cpu-clock.[unknown]") &&
	   !has_prefix(&kv, "perf-profile.self.cpu-clock.[unknown]"), "unresolved frames hidden");
	is_int(has_prefix(&kv, "perf-profile.children."), 5, "5 children keys");
	is_int(has_prefix(&kv, "perf-profile.self."), 3, "3 self keys");
	is_int(has_prefix(&kv, "perf-profile.calltrace."), 6, "6 calltrace keys");
	ok(!has_prefix(&kv, "perf-stat.") && !has_prefix(&kv, "a.out.time"),
	   "no counters, no rusage: no perf-stat or time keys");
	keyvals__release(&kv);
	profile__free(p);
}

/* chain of n frames named <prefix>0 (leaf) .. <prefix>(n-1), root first in the trie */
static uint32_t chain(struct profile *p, const char *const *names, size_t n)
{
	uint32_t node = PROFILE_ROOT;
	size_t i;

	for (i = n; i-- > 0;)
		node = profile__node(p, node, frame(p, names[i], "/bin/x", 0x100 + i));
	return node;
}

/*
 * Total 1000.  Leaf-first chains:
 *   a b c d e f g   6 + x  (two chains sharing the 5-frame prefix, 0.3 % each:
 *   a b c d e f h   3         both dropped although their prefix sums 0.6 %)
 *   a b c d e f i   6      (0.6 %: kept)
 *   a b c d e f j   6      (kept; same prefix as the one above: summed 1.2 %)
 *   k m             976
 */
static void test_chain_floor(void)
{
	struct profile *p = base_profile();
	static const char *const c1[] = { "a", "b", "c", "d", "e", "f", "g" };
	static const char *const c2[] = { "a", "b", "c", "d", "e", "f", "h" };
	static const char *const c3[] = { "a", "b", "c", "d", "e", "f", "i" };
	static const char *const c4[] = { "a", "b", "c", "d", "e", "f", "j" };
	static const char *const c5[] = { "k", "m" };
	struct keyvals kv = { 0 };

	profile__add_count(p, 0, 0, 1, 0, chain(p, c1, 7), 3, 3);
	profile__add_count(p, 0, 0, 1, 0, chain(p, c2, 7), 3, 3);
	profile__add_count(p, 0, 0, 1, 0, chain(p, c3, 7), 6, 6);
	profile__add_count(p, 0, 0, 1, 0, chain(p, c4, 7), 6, 6);
	profile__add_count(p, 0, 0, 1, 0, chain(p, c5, 2), 982, 982);
	keys__run(p, 0, &kv);
	is_dbl(get(&kv, "perf-profile.calltrace.cpu-clock.a.b.c.d.e"), 1.2, 1e-9,
	       "chains under 0.5 % dropped before truncation; kept ones summed");
	is_dbl(get(&kv, "perf-profile.calltrace.cpu-clock.g"), -1, 0,
	       "the outermost caller's own 0.3 % chain dropped");
	is_dbl(get(&kv, "perf-profile.calltrace.cpu-clock.i"), 0.6, 1e-9, "its 0.6 % sibling kept");
	is_dbl(get(&kv, "perf-profile.calltrace.cpu-clock.f.g"), -1, 0,
	       "f.g: 0.3 % chains dropped for every entry");
	is_dbl(get(&kv, "perf-profile.calltrace.cpu-clock.f.j"), 0.6, 1e-9, "f.j kept");
	is_dbl(get(&kv, "perf-profile.children.cpu-clock.a"), 1.8, 1e-9,
	       "children are not floored");
	is_dbl(get(&kv, "perf-profile.calltrace.cpu-clock.k.m"), 98.2, 1e-9, "k.m");
	keyvals__release(&kv);
	profile__free(p);
}

/* Period, not sample count: 1 sample of period 300 outweighs 3 of 100 total. */
static void test_period_weighting(void)
{
	struct profile *p = base_profile();
	static const char *const x[] = { "x" }, *const y[] = { "y" };
	struct keyvals kv = { 0 };

	profile__add_count(p, 0, 0, 1, 0, chain(p, x, 1), 1, 300);
	profile__add_count(p, 0, 0, 1, 0, chain(p, y, 1), 3, 100);
	keys__run(p, 0, &kv);
	is_dbl(get(&kv, "perf-profile.self.cpu-clock.x"), 75, 1e-9, "self by period: 300/400");
	is_dbl(get(&kv, "perf-profile.self.cpu-clock.y"), 25, 1e-9, "self by period: 100/400");
	keyvals__release(&kv);
	profile__free(p);
}

static void counter(struct profile *p, const char *name, uint64_t v, int supported,
		    uint64_t enabled, uint64_t running)
{
	struct counter c = { .run = 0, .name = profile__intern(p, name), .supported = (uint8_t)supported,
			     .value = v, .enabled = enabled, .running = running };

	profile__add_counter(p, &c);
}

static void interval(struct profile *p, const char *name, uint64_t t_ns, uint64_t v)
{
	struct counter_interval ci = { .run = 0, .name = profile__intern(p, name), .t_ns = t_ns,
				       .value = v, .enabled = 1, .running = 1 };

	profile__add_interval(p, &ci);
}

static void test_perf_stat(void)
{
	struct profile *p = base_profile();
	struct keyvals kv = { 0 };

	counter(p, "instructions", 2000, 1, 0, 0);
	counter(p, "cpu-cycles", 1000, 1, 0, 0);
	counter(p, "cache-misses", 10, 1, 0, 0);
	counter(p, "cache-references", 100, 1, 0, 0);
	counter(p, "branch-misses", 5, 1, 0, 0);
	counter(p, "branch-instructions", 500, 1, 0, 0);
	counter(p, "dTLB-load-misses", 1, 1, 0, 0);
	counter(p, "dTLB-loads", 99, 1, 0, 0);
	counter(p, "iTLB-load-misses", 4, 1, 0, 0);
	counter(p, "cpu-clock", 2000000000, 1, 0, 0);
	counter(p, "context-switches", 50, 1, 200, 100);	/* multiplexed: scaled 100 */
	counter(p, "node-loads", 123, 0, 0, 0);			/* not supported */
	counter(p, "task-clock", 5, 1, 1000, 0);		/* never ran */
	interval(p, "page-faults", 1000000000, 10);
	interval(p, "page-faults", 3000000000ULL, 40);
	interval(p, "instructions", 1000000000, 300);
	interval(p, "cpu-cycles", 1000000000, 100);
	interval(p, "instructions", 3000000000ULL, 100);
	interval(p, "cpu-cycles", 3000000000ULL, 100);
	/* the run's end, 10 ms after the last tick: a burst that is no rate */
	interval(p, "page-faults", 3010000000ULL, 50);
	interval(p, "instructions", 3010000000ULL, 1000);
	interval(p, "cpu-cycles", 3010000000ULL, 10);
	keys__run(p, 0, &kv);

	is_dbl(get(&kv, "perf-stat.ps.instructions"), 1000, 1e-9, "ps = total / wall seconds");
	is_dbl(get(&kv, "perf-stat.ps.context-switches"), 50, 1e-9, "ps of a scaled counter");
	is_dbl(get(&kv, "perf-stat.ps.cpu-clock"), 1000, 1e-9, "clocks in msec per second");
	is_dbl(get(&kv, "perf-stat.total.instructions"), 2000, 1e-9, "total.instructions");
	is_dbl(get(&kv, "perf-stat.overall.ipc"), 2, 1e-12, "ipc");
	is_dbl(get(&kv, "perf-stat.overall.cpi"), 0.5, 1e-12, "cpi");
	is_dbl(get(&kv, "perf-stat.overall.MPKI"), 5, 1e-12, "MPKI");
	is_dbl(get(&kv, "perf-stat.overall.cache-miss-rate%"), 10, 1e-12, "cache-miss-rate% over references");
	is_dbl(get(&kv, "perf-stat.overall.branch-miss-rate%"), 1, 1e-12, "branch-miss-rate% over instructions");
	is_dbl(get(&kv, "perf-stat.overall.dTLB-load-miss-rate%"), 1, 1e-12, "dTLB-load-miss-rate% over loads+misses");
	is_dbl(get(&kv, "perf-stat.overall.instructions-per-iTLB-miss"), 500, 1e-12, "instructions-per-iTLB-miss");
	is_dbl(get(&kv, "perf-stat.overall.cycles-between-cache-misses"), 100, 1e-12, "cycles-between-cache-misses");
	is_dbl(get(&kv, "perf-stat.overall.iTLB-load-miss-rate%"), -1, 0, "no iTLB rate without iTLB-loads");
	is_dbl(get(&kv, "perf-stat.ps.node-loads"), -1, 0, "unsupported counter: no key");
	is_dbl(get(&kv, "perf-stat.ps.task-clock"), -1, 0, "counter that never ran: no key");
	is_dbl(get(&kv, "perf-stat.i.page-faults"), 15, 1e-9,
	       "i = mean of per-interval rates (10/1, 40/2), the 10 ms tail (5000/s) left out");
	is_dbl(get(&kv, "perf-stat.i.ipc"), 2, 1e-12, "i.ipc = mean of per-interval ipc (3, 1), not the tail's 100");
	keyvals__release(&kv);
	profile__free(p);

	/* a run shorter than -I: its one reading is the whole run, and kept */
	p = base_profile();
	interval(p, "page-faults", 500000000, 10);
	keys__run(p, 0, &kv);
	is_dbl(get(&kv, "perf-stat.i.page-faults"), 20, 1e-9, "a single interval is kept (10 in 0.5 s)");
	keyvals__release(&kv);
	profile__free(p);
}

static double kt_get(const struct keytab *kt, const char *key)
{
	size_t k;

	for (k = 0; k < kt->nr; k++)
		if (!strcmp(kt->keys[k], key))
			return keytab__val(kt, k, 0);
	return -1;	/* absent */
}

/*
 * #19 3: a perf-stat key of 0 is no key (dump-stat drops it), and the
 * robot's formulas under keytab__build_robot: ps.* the complete intervals
 * over the whole run, i.* an interval a key is missing from as 0.
 */
static void test_perf_stat_robot(void)
{
	struct profile *p = base_profile();
	struct keytab d, r;

	p->runs[0].wall_ns = 2300000000;
	counter(p, "page-faults", 330, 1, 0, 0);
	counter(p, "context-switches", 55, 1, 0, 0);
	counter(p, "major-faults", 0, 1, 0, 0);
	interval(p, "page-faults", 1000000000, 100);
	interval(p, "major-faults", 1000000000, 0);
	interval(p, "page-faults", 2000000000, 200);
	interval(p, "context-switches", 2000000000, 50);
	interval(p, "major-faults", 2000000000, 0);
	interval(p, "page-faults", 2300000000ULL, 30);
	interval(p, "context-switches", 2300000000ULL, 5);
	interval(p, "major-faults", 2300000000ULL, 0);
	keytab__build(&d, p);
	keytab__build_robot(&r, p);

	is_dbl(kt_get(&d, "perf-stat.ps.page-faults"), 330 / 2.3, 1e-9, "ps: the run's total over its time");
	is_dbl(kt_get(&r, "perf-stat.ps.page-faults"), 300 / 2.3, 1e-9,
	       "robot ps: the complete intervals (the last left out) over the whole time");
	is_dbl(kt_get(&r, "perf-stat.ps.context-switches"), 50 / 2.3, 1e-9, "robot ps of another counter");
	is_dbl(kt_get(&d, "perf-stat.i.page-faults"), 150, 1e-9, "i: the mean of the complete intervals");
	is_dbl(kt_get(&r, "perf-stat.i.page-faults"), 150, 1e-9, "robot i: the same when none is missing");
	is_dbl(kt_get(&d, "perf-stat.i.context-switches"), 50, 1e-9,
	       "i: the mean over the intervals that have the key");
	is_dbl(kt_get(&r, "perf-stat.i.context-switches"), 25, 1e-9,
	       "robot i: the interval that lacks it counts 0 (dump-stat's padding)");
	ok(kt_get(&d, "perf-stat.ps.major-faults") == -1 && kt_get(&d, "perf-stat.i.major-faults") == -1 &&
	   kt_get(&r, "perf-stat.ps.major-faults") == -1,
	   "a perf-stat key of 0 is no key, as dump-stat drops a stat 0 in every record");
	keytab__release(&d);
	keytab__release(&r);
	profile__free(p);
}

/* files of mmprof 2026-11 named the per-stack count "wait_and_delay.count.ms.<stack>" */
static void test_old_sched_count(void)
{
	struct profile *p = base_profile();
	struct keyvals kv = { 0 };

	profile__add_metric(p, 0, "perf-sched.wait_and_delay.count.ms.pipe_read.vfs_read", 7);
	profile__add_metric(p, 0, "perf-sched.wait_and_delay.count.a.b", 3);
	profile__add_metric(p, 0, "perf-sched.total_wait_and_delay.count.ms", 10);
	profile__add_metric(p, 0, "perf-sched.offcpu.wait_and_delay.count.c.d", 2);
	keys__run(p, 0, &kv);
	is_dbl(get(&kv, "perf-sched.wait_and_delay.count.pipe_read.vfs_read"), 7, 0,
	       "an old file's wait_and_delay.count.ms.<stack> reads as the robot's count.<stack>");
	is_dbl(get(&kv, "perf-sched.wait_and_delay.count.ms.pipe_read.vfs_read"), -1, 0,
	       "and the old name is gone");
	is_dbl(get(&kv, "perf-sched.wait_and_delay.count.a.b"), 3, 0, "the robot's name stays");
	is_dbl(get(&kv, "perf-sched.total_wait_and_delay.count.ms"), 10, 0, "the total stays");
	is_dbl(get(&kv, "perf-sched.offcpu.wait_and_delay.count.c.d"), 2, 0,
	       "mmprof's own view stays");
	keyvals__release(&kv);
	profile__free(p);
}

static void test_workload_and_runs(void)
{
	struct profile *p = base_profile();
	struct run r2 = { .wall_ns = 4000000000LL, .utime_us = 1000000, .maxrss_kb = 10 };
	static const char *const x[] = { "x" }, *const y[] = { "y" };
	struct keyvals kv = { 0 };
	struct keytab kt;
	size_t i;
	int found = 0;

	p->runs[0].utime_us = 1500000;
	p->runs[0].stime_us = 500000;
	p->runs[0].maxrss_kb = 2048;
	p->runs[0].minflt = 7;
	profile__add_run(p, &r2);
	profile__add_metric(p, 0, "bench.ops", 42);
	profile__add_metric(p, 1, "bench.ops", 44);
	profile__add_count(p, 0, 0, 1, 0, chain(p, x, 1), 1, 100);
	profile__add_count(p, 1, 0, 1, 0, chain(p, y, 1), 1, 100);

	keys__run(p, 0, &kv);
	is_dbl(get(&kv, "bench.ops"), 42, 0, "workload metric as its own key");
	is_dbl(get(&kv, "bench.time.user_time"), 1.5, 1e-12, "time.user_time in s");
	is_dbl(get(&kv, "bench.time.percent_of_cpu_this_job_got"), 100, 1e-9, "percent of cpu");
	is_dbl(get(&kv, "bench.time.elapsed_time"), 2, 1e-12, "elapsed_time");
	is_dbl(get(&kv, "bench.time.maximum_resident_set_size"), 2048, 0, "max rss in KB");
	is_dbl(get(&kv, "bench.time.minor_page_faults"), 7, 0, "minor faults");
	is_dbl(get(&kv, "bench.time.major_page_faults"), -1, 0,
	       "major faults of 0 are no key, as the robot's dump-stat drops them");
	keyvals__release(&kv);

	is_int(keytab__build(&kt, p), 0, "keytab over 2 runs");
	keytab__sort(&kt);
	for (i = 0; i < kt.nr; i++) {
		if (!strcmp(kt.keys[i], "perf-profile.self.cpu-clock.x")) {
			found++;
			is_dbl(keytab__mean(&kt, i), 50, 1e-9, "key missing from a run counts 0 in the mean");
			is_dbl(keytab__stddev(&kt, i), 50, 1e-9, "population stddev");
		}
		if (!strcmp(kt.keys[i], "bench.ops")) {
			found++;
			is_dbl(keytab__mean(&kt, i), 43, 1e-9, "metric mean");
		}
	}
	is_int(found, 2, "both keys present");
	ok(kt.nr > 2 && strcmp(kt.keys[0], kt.keys[1]) < 0 &&
	   !strncmp(kt.keys[0], "bench.", 6), "sorted by family then key");
	keytab__release(&kt);
	profile__free(p);
}

static void test_names(void)
{
	char buf[128];

	keys__event_name("cycles:pp", buf, sizeof(buf));
	is_str(buf, "cycles-pp", "event name ':' -> '-'");
	keys__event_name("'cpu/mem-loads/':u", buf, sizeof(buf));
	is_str(buf, "cpu/mem-loads/-u", "quotes removed");
	keys__strip_suffixes("zap_pmd_range.isra.0", buf, sizeof(buf));
	is_str(buf, "zap_pmd_range", "strip .isra.N");
	keys__strip_suffixes("f.constprop.12.isra.3.part.0", buf, sizeof(buf));
	is_str(buf, "f", "strip every occurrence");
	keys__strip_suffixes("f.cold", buf, sizeof(buf));
	is_str(buf, "f.cold", ".cold kept");
	keys__strip_suffixes("f.part.x", buf, sizeof(buf));
	is_str(buf, "f.part.x", ".part without digits kept");
	keys__strip_suffixes("f.isra.0", buf, 3);
	is_str(buf, "f", "bounded by the buffer");
	keys__key_symbol("std::vector<int, std::allocator<int> >::push_back(int\tx)", buf, sizeof(buf));
	is_str(buf, "std::vector<int,_std::allocator<int>_>::push_back(int_x)",
	       "a key's symbol: each space and tab is '_'");
	keys__key_symbol("operator new.isra.0", buf, sizeof(buf));
	is_str(buf, "operator_new", "suffixes stripped, then spaces");
}

/*
 * Differential test: random stacks with recursion and unresolved frames;
 * children/self/inner from the symbol trie against a naive per-sample model.
 */
static unsigned rnd_state = 12345;
static unsigned rnd(void)
{
	rnd_state = rnd_state * 1103515245u + 12345u;
	return (rnd_state >> 16) & 0x7fff;
}

static void test_against_naive(void)
{
	struct profile *p = base_profile();
	enum { NSYM = 6, NSTACK = 400, MAXD = 9 };
	uint32_t frames[NSYM + 1], st[NSTACK][MAXD];
	size_t depth[NSTACK], i, j, k, bad = 0;
	uint64_t per[NSTACK];
	double naive_children[NSYM + 1] = { 0 }, naive_self[NSYM + 1] = { 0 }, total = 0;
	struct symview v;
	double *w, *children, *self;

	for (i = 0; i < NSYM; i++) {
		char name[8];

		snprintf(name, sizeof(name), "s%zu", i);
		frames[i] = frame(p, name, "/bin/x", 0x100 * (i + 1));
	}
	{
		struct frame uf = { .addr = 0x1 };

		frames[NSYM] = profile__frame(p, &uf);	/* unresolved */
	}
	for (i = 0; i < NSTACK; i++) {
		uint32_t node = PROFILE_ROOT;

		depth[i] = 1 + rnd() % MAXD;
		per[i] = 1 + rnd() % 50;
		for (j = 0; j < depth[i]; j++) {
			st[i][j] = rnd() % (NSYM + 1);	/* root first */
			node = profile__node(p, node, frames[st[i][j]]);
		}
		profile__add_count(p, 0, 0, 1, 0, node, 1, per[i]);
		if (st[i][depth[i] - 1] == NSYM)
			continue;	/* unresolved IP: dropped */
		total += (double)per[i];
		naive_self[st[i][depth[i] - 1]] += (double)per[i];
		for (k = 0; k < NSYM; k++) {
			for (j = 0; j < depth[i]; j++)
				if (st[i][j] == k)
					break;
			if (j < depth[i])
				naive_children[k] += (double)per[i];
		}
	}
	symview__init(&v, p, false);
	w = calloc(v.nr_nodes, sizeof(*w));
	children = calloc(v.nr_entries + 1, sizeof(*children));
	self = calloc(v.nr_entries + 1, sizeof(*self));
	is_dbl(symview__weights(&v, 0, 0, true, w), total, 0, "total of resolved-IP samples");
	symview__cumulate(&v, w, NULL, NULL, children, self);
	for (i = 0; i < v.nr_entries; i++) {
		const char *name = symview__entry_name(&v, (uint32_t)i);
		size_t s = (size_t)(name[1] - '0');

		if (children[i] != naive_children[s] || self[i] != naive_self[s])
			bad++;
	}
	is_int(v.nr_entries, NSYM, "one entry per resolved symbol");
	is_int(bad, 0, "children and self agree with the naive model");
	free(w);
	free(children);
	free(self);
	symview__release(&v);
	profile__free(p);
}

/* The keycache's spelling of key, or "(none)" when it has no such key. */
static const char *spelling(const struct keycache *c, const char *key)
{
	const char *const *sp = keycache__spellings(c);
	size_t i;

	for (i = 0; i < keycache__nr(c); i++)
		if (!strcmp(keycache__name(c, (uint32_t)i), key))
			return sp && sp[i] ? sp[i] : "(as the key)";
	return "(none)";
}

/*
 * keycache__spellings: the raw names behind stripped keys.  Stacks (root
 * first, equal periods): main g.isra.0 / main g.constprop.1 / main h /
 * main h.isra.2 / main k.
 */
static void test_spellings(void)
{
	static const char *const stacks[][2] = {
		{ "main", "g.isra.0" }, { "main", "g.constprop.1" }, { "main", "h" },
		{ "main", "h.isra.2" }, { "main", "k" },
	};
	struct profile *p = base_profile();
	struct symview v;
	struct keycache *c;
	struct keyrun kr;
	size_t i;

	for (i = 0; i < 5; i++) {
		uint32_t f[3] = { frame(p, stacks[i][0], "/bin/app", 0x100),
				  frame(p, stacks[i][1], "/bin/app", 0x200 + 0x10 * i), UINT32_MAX };

		profile__add_count(p, 0, 0, profile__intern(p, "app"), 0, stack(p, f), 1, 100);
	}
	symview__init(&v, p, false);
	c = keycache__new(&v);
	keycache__run(c, 0, &kr);
	is_str(spelling(c, "perf-profile.children.cpu-clock.g"), "g.isra.0\ng.constprop.1",
	       "children g: both clones' spellings, first seen first");
	is_str(spelling(c, "perf-profile.self.cpu-clock.g"), "g.isra.0\ng.constprop.1", "self g too");
	is_str(spelling(c, "perf-profile.children.cpu-clock.h"), "h\nh.isra.2",
	       "children h: the key's own text listed when a frame was spelled so");
	is_str(spelling(c, "perf-profile.children.cpu-clock.k"), "(as the key)", "k: spelled as the key, NULL");
	is_str(spelling(c, "perf-profile.children.cpu-clock.main"), "(as the key)", "main: NULL");
	is_str(spelling(c, "perf-profile.calltrace.cpu-clock.g.main"), "g.isra.0.main\ng.constprop.1.main",
	       "calltrace: the raw chain, joined by dots");
	is_str(spelling(c, "perf-profile.calltrace.cpu-clock.k.main"), "(as the key)", "calltrace k: NULL");
	keycache__free(c);
	symview__release(&v);
	profile__free(p);

	/* no clone anywhere: no array at all */
	p = base_profile();
	{
		uint32_t f[3] = { frame(p, "main", "/bin/app", 0x100), frame(p, "k", "/bin/app", 0x200),
				  UINT32_MAX };

		profile__add_count(p, 0, 0, profile__intern(p, "app"), 0, stack(p, f), 1, 100);
	}
	symview__init(&v, p, false);
	c = keycache__new(&v);
	keycache__run(c, 0, &kr);
	ok(keycache__nr(c) > 2 && !keycache__spellings(c), "a file without clones: no spellings array");
	keycache__free(c);
	symview__release(&v);
	profile__free(p);
}

/* The robot's 0.05 floor is on the two-decimal print (#19 4): 0.0495 is "0.05" and shown. */
static void test_print_floor(void)
{
	const char *k = "perf-profile.self.cpu-clock.f";

	ok(keys__shown(k, 0.0495), "0.0495 prints as 0.05: shown, as the robot's parse keeps it");
	ok(keys__shown(k, 0.05), "0.05: shown");
	ok(!keys__shown(k, 0.0449), "0.0449 prints as 0.04: not shown");
	ok(!keys__shown(k, 0.0), "0: not shown");
	ok(keys__shown("perf-stat.i.minor-faults", 0.001), "other families have no floor");
}

/*
 * A profile's counts stored grouped by run and event are read in place
 * (keycache__start_work); any other order through profile__group_counts'
 * index.  The same counts in both orders: the same keys, in the same
 * order, of a run of few cells (walk_cells) and of one of many.
 */
static void test_counts_order(void)
{
	struct keyvals kv[2][2] = { { { 0 } } };
	struct run r2 = { .wall_ns = 2000000000 };
	uint32_t node[40];
	char names[40][8];
	size_t order, run, i, same;

	for (order = 0; order < 2; order++) {
		struct profile *p = base_profile();

		profile__add_run(p, &r2);
		for (i = 0; i < 40; i++) {
			const char *nm = names[i];

			snprintf(names[i], sizeof(names[i]), "f%zu", i);
			node[i] = chain(p, &nm, 1);
		}
		for (run = 0; run < 2; run++) {
			size_t r = order ? 1 - run : run;	/* order 1: run 1's counts first */

			for (i = 0; i < (r ? 40 : 2); i++)
				profile__add_count(p, (uint32_t)r, 0, 1, 0, node[i], 1, 10 * (i + 1));
		}
		for (run = 0; run < 2; run++)
			keys__run(p, (uint32_t)run, &kv[order][run]);
		profile__free(p);
	}
	for (run = 0; run < 2; run++) {
		same = kv[0][run].nr == kv[1][run].nr;
		for (i = 0; same && i < kv[0][run].nr; i++)
			same = !strcmp(kv[0][run].items[i].key, kv[1][run].items[i].key) &&
			       kv[0][run].items[i].value == kv[1][run].items[i].value;
		ok(same && kv[0][run].nr > 0, "run %zu: the same keys with its counts grouped or not", run);
		keyvals__release(&kv[0][run]);
		keyvals__release(&kv[1][run]);
	}
}

int main(void)
{
	test_print_floor();
	test_names();
	test_spellings();
	test_hand_example();
	test_chain_floor();
	test_period_weighting();
	test_perf_stat();
	test_perf_stat_robot();
	test_old_sched_count();
	test_workload_and_runs();
	test_against_naive();
	test_counts_order();
	return done_testing();
}
