/*
 * test-mmstate-perfstat: every perf-stat.* key the robot defines
 * (lkp-format.md; intel/lkp-tests programs/perf-stat/parse) computed from
 * counter values chosen so that each formula has a round, hand-computed
 * answer: ps over the run time, total.instructions, each overall ratio with
 * its own denominator (Xs+misses, X-references, X-instructions), i.* as the
 * mean of per-interval rates over each interval's own length, the
 * multiplexing mark, and unsupported or never-scheduled counters absent.
 */
#include <stdlib.h>
#include <string.h>

#include "tap.h"
#include "mmprof/keys.h"

#define ABSENT -12345.0

static double get(const struct keyvals *kv, const char *key)
{
	size_t i;

	for (i = 0; i < kv->nr; i++)
		if (!strcmp(kv->items[i].key, key))
			return kv->items[i].value;
	return ABSENT;
}

static int count_prefix(const struct keyvals *kv, const char *prefix)
{
	size_t i;
	int n = 0;

	for (i = 0; i < kv->nr; i++)
		n += !strncmp(kv->items[i].key, prefix, strlen(prefix));
	return n;
}

static void counter(struct profile *p, const char *name, uint64_t v, uint64_t ena,
		    uint64_t run, int supported)
{
	struct counter c = { .run = 0, .name = profile__intern(p, name),
			     .supported = (uint8_t)supported, .value = v,
			     .enabled = ena, .running = run };

	profile__add_counter(p, &c);
}

static void interval(struct profile *p, const char *name, uint64_t t_ns, uint64_t v,
		     uint64_t ena, uint64_t run)
{
	struct counter_interval ci = { .run = 0, .name = profile__intern(p, name),
				       .t_ns = t_ns, .value = v, .enabled = ena,
				       .running = run };

	profile__add_interval(p, &ci);
}

#define SEC 1000000000ull

/*
 * A 4-second run.  Counted throughout (enabled == running == 4 s) unless
 * noted.  Values:
 *   cpu-cycles 8000, instructions 16000      ipc 2, cpi 0.5
 *   cache-references 400, cache-misses 40    rate 10 % (over references)
 *                                            MPKI 1000*40/16000 = 2.5
 *                                            cycles-between 8000/40 = 200
 *   branch-instructions 2000, -misses 50     rate 2.5 % (over instructions)
 *   dTLB-loads 900, dTLB-load-misses 100     rate 100/(900+100) = 10 %
 *   dTLB-stores 150, -store-misses 50        rate 50/200 = 25 %
 *   iTLB-loads 60, iTLB-load-misses 40       rate 40 %, insn per miss 400
 *   node-loads 30 raw, running half the time → scaled 60;
 *   node-load-misses 20                      rate 20/(60+20) = 25 %
 *   node-stores unsupported, node-store-misses 5: no rate (no denominator)
 *   task-clock 2e9 ns → 2000 msec            ps 500 msec/s
 *   page-faults 4000                         ps 1000/s
 *   major-faults: enabled but never running  → absent
 */
static struct profile *full_profile(void)
{
	struct profile *p = profile__new();
	struct run r = { .wall_ns = 4 * SEC };
	const uint64_t E = 4 * SEC;

	profile__add_run(p, &r);
	counter(p, "cpu-cycles", 8000, E, E, 1);
	counter(p, "instructions", 16000, E, E, 1);
	counter(p, "cache-references", 400, E, E, 1);
	counter(p, "cache-misses", 40, E, E, 1);
	counter(p, "branch-instructions", 2000, E, E, 1);
	counter(p, "branch-misses", 50, E, E, 1);
	counter(p, "dTLB-loads", 900, E, E, 1);
	counter(p, "dTLB-load-misses", 100, E, E, 1);
	counter(p, "dTLB-stores", 150, E, E, 1);
	counter(p, "dTLB-store-misses", 50, E, E, 1);
	counter(p, "iTLB-loads", 60, E, E, 1);
	counter(p, "iTLB-load-misses", 40, E, E, 1);
	counter(p, "node-loads", 30, E, E / 2, 1);
	counter(p, "node-load-misses", 20, E, E, 1);
	counter(p, "node-stores", 0, 0, 0, 0);
	counter(p, "node-store-misses", 5, E, E, 1);
	counter(p, "task-clock", 2 * SEC, E, E, 1);
	counter(p, "page-faults", 4000, E, E, 1);
	counter(p, "major-faults", 0, E, 0, 1);

	/* intervals of 1 s and 3 s (the second is the long one on purpose) */
	interval(p, "page-faults", 1 * SEC, 1000, SEC, SEC);
	interval(p, "page-faults", 4 * SEC, 3000 * 2, 3 * SEC, 3 * SEC);
	interval(p, "cpu-cycles", 1 * SEC, 1000, SEC, SEC);
	interval(p, "cpu-cycles", 4 * SEC, 7000, 3 * SEC, 3 * SEC);
	interval(p, "instructions", 1 * SEC, 4000, SEC, SEC);
	interval(p, "instructions", 4 * SEC, 7000, 3 * SEC, 3 * SEC);
	/* multiplexed in the first interval (x2), off the PMU in the second */
	interval(p, "node-loads", 1 * SEC, 10, SEC, SEC / 2);
	interval(p, "node-loads", 4 * SEC, 0, 3 * SEC, 0);
	/* the run's end 10 ms later: its partial interval is left out of i.* */
	interval(p, "page-faults", 4 * SEC + SEC / 100, 900, SEC / 100, SEC / 100);
	interval(p, "cpu-cycles", 4 * SEC + SEC / 100, 10, SEC / 100, SEC / 100);
	interval(p, "instructions", 4 * SEC + SEC / 100, 1000, SEC / 100, SEC / 100);
	return p;
}

static void test_overall(void)
{
	struct profile *p = full_profile();
	struct keyvals kv = { 0 };

	is_int(keys__run(p, 0, &kv), 0, "keys__run");
	is_dbl(get(&kv, "perf-stat.overall.ipc"), 2, 1e-12, "ipc = instructions / cycles");
	is_dbl(get(&kv, "perf-stat.overall.cpi"), 0.5, 1e-12, "cpi = cycles / instructions");
	is_dbl(get(&kv, "perf-stat.overall.MPKI"), 2.5, 1e-12, "MPKI = 1000 * cache-misses / instructions");
	is_dbl(get(&kv, "perf-stat.overall.cycles-between-cache-misses"), 200, 1e-12,
	       "cycles-between-cache-misses");
	is_dbl(get(&kv, "perf-stat.overall.instructions-per-iTLB-miss"), 400, 1e-12,
	       "instructions-per-iTLB-miss");
	is_dbl(get(&kv, "perf-stat.overall.cache-miss-rate%"), 10, 1e-12,
	       "cache-miss-rate% over cache-references");
	is_dbl(get(&kv, "perf-stat.overall.branch-miss-rate%"), 2.5, 1e-12,
	       "branch-miss-rate% over branch-instructions");
	is_dbl(get(&kv, "perf-stat.overall.dTLB-load-miss-rate%"), 10, 1e-12,
	       "dTLB-load-miss-rate% over loads + misses");
	is_dbl(get(&kv, "perf-stat.overall.dTLB-store-miss-rate%"), 25, 1e-12,
	       "dTLB-store-miss-rate% over stores + misses");
	is_dbl(get(&kv, "perf-stat.overall.iTLB-load-miss-rate%"), 40, 1e-12,
	       "iTLB-load-miss-rate% over loads + misses");
	is_dbl(get(&kv, "perf-stat.overall.node-load-miss-rate%"), 25, 1e-12,
	       "node-load-miss-rate% uses the scaled node-loads (60)");
	is_dbl(get(&kv, "perf-stat.overall.node-store-miss-rate%"), ABSENT, 0,
	       "node-stores unsupported: no node-store rate");
	is_int(count_prefix(&kv, "perf-stat.overall."), 11, "exactly the 11 overall keys (no node-store rate)");
	is_dbl(get(&kv, "perf-stat.total.instructions"), 16000, 0, "total.instructions");
	is_int(count_prefix(&kv, "perf-stat.total."), 1, "the robot's only total");

	is_dbl(get(&kv, "perf-stat.ps.instructions"), 4000, 1e-9, "ps = total / 4 s");
	is_dbl(get(&kv, "perf-stat.ps.task-clock"), 500, 1e-9, "ps.task-clock in msec per second");
	is_dbl(get(&kv, "perf-stat.ps.node-loads"), 15, 1e-9, "ps of a scaled counter: 60 / 4");
	is_dbl(get(&kv, "perf-stat.ps.node-stores"), ABSENT, 0, "unsupported: no ps key, not 0");
	is_dbl(get(&kv, "perf-stat.ps.major-faults"), ABSENT, 0, "never scheduled: no ps key");
	is_dbl(get(&kv, "perf-stat.scaled.node-loads%"), 50, 1e-12,
	       "multiplexed counter marked: 50 %% of its value extrapolated");
	is_int(count_prefix(&kv, "perf-stat.scaled."), 1, "only the multiplexed counter is marked");

	/* i.*: per-interval rates over each interval's own length, then the mean */
	is_dbl(get(&kv, "perf-stat.i.page-faults"), (1000.0 / 1 + 6000.0 / 3) / 2, 1e-9,
	       "i.page-faults = mean(1000/1 s, 6000/3 s) = 1500");
	is_dbl(get(&kv, "perf-stat.i.ipc"), (4.0 + 1.0) / 2, 1e-12,
	       "i.ipc = mean(4000/1000, 7000/7000) = 2.5");
	is_dbl(get(&kv, "perf-stat.i.cpi"), (0.25 + 1.0) / 2, 1e-12, "i.cpi = mean(0.25, 1)");
	is_dbl(get(&kv, "perf-stat.i.node-loads"), 20, 1e-9,
	       "i.node-loads: 10 scaled x2 over 1 s; the interval off the PMU is skipped");
	keyvals__release(&kv);
	profile__free(p);
}

/* No hardware counters at all (this machine): only software keys remain. */
static void test_software_only(void)
{
	struct profile *p = profile__new();
	struct run r = { .wall_ns = 2 * SEC };
	struct keyvals kv = { 0 };

	profile__add_run(p, &r);
	counter(p, "cpu-cycles", 0, 0, 0, 0);
	counter(p, "instructions", 0, 0, 0, 0);
	counter(p, "cache-misses", 0, 0, 0, 0);
	counter(p, "page-faults", 300, 2 * SEC, 2 * SEC, 1);
	keys__run(p, 0, &kv);
	is_int(count_prefix(&kv, "perf-stat.overall."), 0, "no hardware counters: no overall keys");
	is_int(count_prefix(&kv, "perf-stat.total."), 0, "no instructions: no total");
	is_dbl(get(&kv, "perf-stat.ps.cpu-cycles"), ABSENT, 0, "unsupported cpu-cycles absent");
	is_dbl(get(&kv, "perf-stat.ps.page-faults"), 150, 1e-9, "software counter present");
	keyvals__release(&kv);
	profile__free(p);
}

int main(void)
{
	test_overall();
	test_software_only();
	return done_testing();
}
