/*
 * test-keykind: the key grammar's owner (keykind.h) against a naive model
 * of the prefix rules report, diff and flame wrote where they needed them
 * before it existed, over a corpus of keys of every family (and of keys
 * that only look like them), plus the table's own columns, the two family
 * lengths and the inner grammars of perf-profile and cost keys.
 */
#include <stdio.h>
#include <string.h>

#include "tap.h"
#include "mmprof/keykind.h"

static const char *const corpus[] = {
	"perf-profile.children.cpu-clock.main", "perf-profile.self.cpu-clock.f.cold",
	"perf-profile.calltrace.cpu-clock.leaf.f.main", "perf-profile.other.x", "perf-profile",
	"perf-profilex.self.a.b", "cost.total.cpu-clock", "cost.work", "cost.self.cpu-clock.f",
	"cost.children.cpu-clock.main", "cost.part.cpu-clock.[no_stack]", "cost.x.y", "cost",
	"costly.ops", "perf-stat.ps.page-faults", "perf-stat.scaled.cycles%", "perf-stat",
	"perf-sched.wait_and_delay.max.ms.x", "perf-sched.offcpu.sleep.avg.ms.y",
	"perf-sched.wait_and_delay.count.ms.z", "proc-vmstat.nr_dirty", "proc-vmstat.pgfault",
	"proc-vmstat.delta.nr_dirty", "proc-vmstat.rise.nr_anon_pages", "proc-vmstat",
	"meminfo.Dirty", "meminfo.rise.AnonHugePages", "meminfo",
	"tracepoint.kmem:kmalloc.call_site.0xffff", "tracepoint.exceptions:page_fault_user.address.0x7f3a00000000",
	"tracepoint.x:y.address.other", "tracepoint", "vmstat.cs", "slabinfo.dentry",
	"stress-ng.vm.ops_per_sec", "thp-zap.ops", "thp-zap.time.user_time", "hackbench.throughput",
	"will-it-scale.per_process_ops", "bench.latency", "fio.read_clat_mean_us", "nodot", "a.b%",
};
#define NR (sizeof(corpus) / sizeof(corpus[0]))

static bool pre(const char *k, const char *p)
{
	return !strncmp(k, p, strlen(p));
}

/* The rules as the call sites spelled them before keykind.h. */
static bool naive_profile(const char *k)
{
	return pre(k, "perf-profile.");
}

static bool naive_recorder(const char *k)
{
	return pre(k, "perf-sched.") || pre(k, "tracepoint.") || pre(k, "proc-vmstat.") ||
	       pre(k, "meminfo.");
}

static bool naive_work_excluded(const char *k)
{
	return naive_recorder(k) || pre(k, "perf-stat.") || pre(k, "cost.");
}

static size_t naive_noise_len(const char *key)
{
	size_t n = strcspn(key, ".");

	if (strncmp(key, "cost.", 5) || !strncmp(key, "cost.total.", 11) || !strcmp(key, "cost.work"))
		return n;
	n += 1 + strcspn(key + n + 1, ".");
	return key[n] ? n + 1 + strcspn(key + n + 1, ".") : n;
}

static void test_against_the_call_sites(void)
{
	size_t i;

	for (i = 0; i < NR; i++) {
		const char *k = corpus[i];
		size_t len;
		const char *ev = keykind__profile_event(k, &len);

		ok((keykind__profile(k) != KEYPROF_NONE) == naive_profile(k) &&
		   (keykind__profile(k) == KEYPROF_CHILDREN) == pre(k, "perf-profile.children.") &&
		   (keykind__profile(k) == KEYPROF_SELF) == pre(k, "perf-profile.self.") &&
		   (keykind__profile(k) == KEYPROF_CALLTRACE) == pre(k, "perf-profile.calltrace."),
		   "%s: the perf-profile kind as the prefixes said it", k);
		ok((keykind__cost(k) != KEYCOST_NONE) == pre(k, "cost.") &&
		   (keykind__cost(k) == KEYCOST_TOTAL) == pre(k, "cost.total.") &&
		   (keykind__cost(k) == KEYCOST_PART) == pre(k, "cost.part.") &&
		   (keykind__cost(k) == KEYCOST_WORK) == !strcmp(k, "cost.work"),
		   "%s: the cost kind as the prefixes said it", k);
		ok(keykind__under(k, KEYFAM_RECORDER) == naive_recorder(k) &&
		   keykind__under(k, KEYFAM_RECORDER | KEYFAM_COUNTER | KEYFAM_DERIVED) ==
			   naive_work_excluded(k) &&
		   keykind__under(k, KEYFAM_SYSTEM) == (pre(k, "meminfo.") || pre(k, "proc-vmstat.")),
		   "%s: the recorder's, the work's and the system's families as listed", k);
		ok(keykind__noise_family_len(k) == naive_noise_len(k) &&
		   keykind__sort_family_len(k) == strcspn(k, "."),
		   "%s: both family lengths", k);
		ok(keykind__profile_group_len(k) ==
			   (naive_profile(k) ? 13 + strcspn(k + 13, ".") : strlen(k)),
		   "%s: the perf-profile sort group", k);
		ok(naive_profile(k) && strchr(k + 13, '.') ? ev == strchr(k + 13, '.') + 1 : !ev,
		   "%s: the event component", k);
		{
			size_t clen = 0;
			const char *cev = keykind__cost_event(k, &clen);

			ok(pre(k, "cost.") && strchr(k + 5, '.') ?
				   cev == strchr(k + 5, '.') + 1 && clen == strcspn(cev, ".") : !cev,
			   "%s: the cost key's event component", k);
		}
	}
}

static void test_table(void)
{
	const struct keyfamily *f = keykind__family("perf-profile.self.cpu-clock.f");
	char buf[64];
	bool whole;

	ok(f && !strcmp(f->name, "perf-profile") && (f->flags & KEYFAM_MONITOR), "perf-profile is a monitor");
	ok(!keykind__family("stress-ng.vm.ops_per_sec") && !keykind__family("costly.ops"),
	   "a first component not in the table is the workload's own, a prefix of a name is not the name");
	ok(keykind__is("perf-stat", KEYFAM_MONITOR) && !keykind__under("perf-stat", KEYFAM_MONITOR) &&
	   keykind__under("perf-stat.ps.x", KEYFAM_COUNTER),
	   "a bare family name is the family's (is), not under it (under)");
	ok(keykind__is("cost.self.cpu-clock.f", KEYFAM_DERIVED) &&
	   !keykind__is("cost.self.cpu-clock.f", KEYFAM_MONITOR), "the costs are derived, no monitor");
	ok(keykind__noise_family_len("cost.self.cpu-clock.f") == strlen("cost.self.cpu-clock") &&
	   keykind__sort_family_len("cost.self.cpu-clock.f") == strlen("cost") &&
	   keykind__noise_family_len("cost.total.cpu-clock") == strlen("cost"),
	   "a cost kind and event is a noise family of its own, the costs sort as one family");
	ok(!strcmp(keykind__profile_symbol("perf-profile.calltrace.cpu-clock.a.b.c"), "a.b.c") &&
	   !keykind__profile_symbol("perf-profile.children.cpu-clock") &&
	   !keykind__profile_symbol("cost.self.cpu-clock.f"), "the symbol part");
	keykind__measured_unit("perf-profile.self.cycles.f", buf, sizeof(buf));
	ok(!strcmp(buf, "perf-profile.*.cycles"), "an event of the profile is measured as a whole");
	keykind__measured_unit("tracepoint.kmem:kmalloc.bytes.8", buf, sizeof(buf));
	ok(!strcmp(buf, "tracepoint.kmem:kmalloc"), "so is a tracepoint's event");
	ok(keykind__domain("cost.self.cpu-clock.f", buf, sizeof(buf), &whole) && !whole &&
	   !strcmp(buf, "cost.self.cpu-clock."), "a cost function's domain is its kind and event");
	ok(!keykind__domain("cost.total.cpu-clock", buf, sizeof(buf), &whole), "a total is its own domain");
	ok(keykind__domain("perf-stat.ps.cycles", buf, sizeof(buf), &whole) && whole &&
	   !strcmp(buf, "perf-stat.scaled.cycles%"), "a counter's domain is its scaled key");
	ok(keykind__score("stress-ng.vm.ops_per_sec") && !keykind__score("perf-stat.x.ops_per_sec") &&
	   !keykind__score("cost.x.throughput"), "a score is the workload's own, never a monitor's or a cost");
	ok(keykind__absolute("perf-profile.self.e.f") && keykind__absolute("cost.part.e.f") &&
	   keykind__absolute("a.b%") && !keykind__absolute("cost.self.e.f"), "absolute keys");
}

int main(void)
{
	test_against_the_call_sites();
	test_table();
	return done_testing();
}
