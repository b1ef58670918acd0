/*
 * test-gate: the --fail-on expression parser (bare and quoted globs),
 * valid and invalid, evaluation, the rows a gate counts (ambient families,
 * uncompared rows) and the domains in which an absent key is a measured 0,
 * against a naive model of "some key D.<text> matches the glob".
 */
#include <errno.h>
#include <fnmatch.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "tap.h"
#include "mmprof/ciout.h"
#include "mmprof/diff.h"
#include "mmprof/gate.h"
#include "mmprof/strdist.h"
#include "mmprof/outbuf.h"

static void test_valid(void)
{
	static const struct {
		const char *expr, *glob;
		enum gate_op op;
		double value;
		int relative;
	} t[] = {
		{ "perf-profile.children.*.__split_huge_pmd > +1.0", "perf-profile.children.*.__split_huge_pmd", GATE_GT, 1.0, 0 },
		{ "perf-stat.ps.page-faults < -5%", "perf-stat.ps.page-faults", GATE_LT, -5, 1 },
		{ "  a.b>=2  ", "a.b", GATE_GE, 2, 0 },
		{ "a.b<=-0.5%", "a.b", GATE_LE, -0.5, 1 },
		{ "x.* > .5", "x.*", GATE_GT, 0.5, 0 },
		{ "x > 1e2%", "x", GATE_GT, 100, 1 },
		{ "mpstat.cpu.all.sys% > 1", "mpstat.cpu.all.sys%", GATE_GT, 1, 0 },
		/* quoted: blanks, '<' '>', the other quote, '#' */
		{ "'perf-profile.self.cpu-clock.void Hot.main(java.lang.String[])' > 1",
		  "perf-profile.self.cpu-clock.void Hot.main(java.lang.String[])", GATE_GT, 1, 0 },
		{ "\"perf-profile.self.cpu-clock.std::vector<int, std::allocator<int> >::push_back\">=0.5",
		  "perf-profile.self.cpu-clock.std::vector<int, std::allocator<int> >::push_back", GATE_GE, 0.5, 0 },
		{ "  'tracepoint.sched:sched_switch.lat.<=8'<-2%  ", "tracepoint.sched:sched_switch.lat.<=8", GATE_LT, -2, 1 },
		{ "\"it's.x\" <= 1", "it's.x", GATE_LE, 1, 0 },
		{ "'say \"hi\".#1' > 1", "say \"hi\".#1", GATE_GT, 1, 0 },
		{ "'*.operator<<' > 1", "*.operator<<", GATE_GT, 1, 0 },
		/* a quote inside a bare glob is a character */
		{ "it's.x > 1", "it's.x", GATE_GT, 1, 0 },
	};
	size_t i;

	for (i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		struct gate g;
		struct errmsg e = { "" };
		int rc = gate__parse(t[i].expr, &g, &e);

		ok(rc == 0 && g.glob && !strcmp(g.glob, t[i].glob) && g.op == t[i].op &&
		   g.value == t[i].value && g.relative == t[i].relative, "valid: '%s' %s", t[i].expr, e.msg);
		gate__release(&g);
	}
}

static void test_invalid(void)
{
	static const struct { const char *expr; int col; } t[] = {
		{ "", 1 },
		{ "   ", 4 },
		{ "> 1", 1 },
		{ "a.b 1", 5 },
		{ "a.b = 1", 5 },
		{ "a.b >", 6 },
		{ "a.b > x", 7 },
		{ "a.b > inf", 7 },
		{ "a.b > nan%", 7 },
		{ "a.b > 0x10", 8 },
		{ "a.b > 1 junk", 9 },
		{ "a.b > 1%%", 9 },
		{ "a.b > -", 8 },
		{ "a.b > 1e999", 7 },
		{ "'a.b > 1", 1 },
		{ "  \"a.b > 1", 3 },
		{ "'' > 1", 1 },
		{ "'a'b > 1", 4 },
		{ "'a' 'b' > 1", 5 },
		{ "'a' >", 6 },
		{ "a.b<int> > 1", 5 },	/* a bare glob ends at '<': quote it */
		{ "a b > 1", 3 },
	};
	size_t i;

	for (i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		struct gate g;
		struct errmsg e = { "" };
		char want[32];
		int rc = gate__parse(t[i].expr, &g, &e);

		snprintf(want, sizeof(want), "column %d:", t[i].col);
		ok(rc < 0 && strstr(e.msg, want) && !g.glob, "invalid: '%s' -> %s", t[i].expr, e.msg);
		gate__release(&g);
	}
}

static void test_eval(void)
{
	struct gate g;
	struct errmsg e;
	char buf[128];

	gate__parse("perf-profile.children.*.__split_huge_pmd > +1.0", &g, &e);
	ok(gate__matches(&g, "perf-profile.children.cpu-clock.__split_huge_pmd"), "glob: * crosses the event");
	ok(!gate__matches(&g, "perf-profile.self.cpu-clock.__split_huge_pmd"), "glob: other family");
	ok(!gate__matches(&g, "perf-profile.children.cpu-clock.__split_huge_pmd_locked"), "glob: anchored");
	ok(gate__trips(&g, 1.5, 3), "absolute: +1.5 > 1.0 trips");
	ok(!gate__trips(&g, 1.0, 300), "absolute: +1.0 does not (relative ignored)");
	gate__describe(&g, buf, sizeof(buf));
	is_str(buf, "perf-profile.children.*.__split_huge_pmd > +1", "describe");
	gate__release(&g);
	gate__parse("perf-stat.ps.page-faults < -5%", &g, &e);
	ok(gate__trips(&g, -1e9, -6), "relative: -6 %% < -5 %% trips");
	ok(!gate__trips(&g, -1e9, -4), "relative: -4 %% does not");
	ok(!gate__trips(&g, 0, NAN), "NAN never trips");
	gate__release(&g);
	gate__parse("'perf-profile.self.cpu-clock.int[] f(char[])' > 1", &g, &e);
	ok(gate__matches(&g, "perf-profile.self.cpu-clock.int[] f(char[])"),
	   "a key equal to the glob matches, '[' and all");
	ok(fnmatch(g.glob, "perf-profile.self.cpu-clock.int[] f(char[])", 0) != 0,
	   "(which fnmatch alone would not)");
	gate__describe(&g, buf, sizeof(buf));
	is_str(buf, "'perf-profile.self.cpu-clock.int[] f(char[])' > +1", "describe quotes a glob with blanks");
	ok(gate__matches(&g, "perf-profile.self.cpu-clock.int[]_f(char[])"),
	   "the symbol's spelling matches its key, which writes the blank '_'");
	gate__release(&g);
	is_int(gate__parse("=perf-profile.self.cpu-clock.new_fn > 1", &g, &e), 0, "=GLOB parses");
	ok(g.meant && !strcmp(g.glob, "perf-profile.self.cpu-clock.new_fn"), "=GLOB: meant, the glob without '='");
	gate__describe(&g, buf, sizeof(buf));
	is_str(buf, "=perf-profile.self.cpu-clock.new_fn > +1", "describe keeps the '='");
	gate__release(&g);
	is_int(gate__parse("='a b' > 1", &g, &e), 0, "='quoted' parses");
	ok(g.meant && !strcmp(g.glob, "a b"), "='quoted': meant");
	gate__release(&g);
	is_int(gate__parse("=='x' > 1", &g, &e), -EINVAL, "==KEY is refused: a key that starts with '=' is quoted");
	ok(strstr(e.msg, "written quoted") && strstr(e.msg, "column 2"), "==KEY: says so at column 2");
	is_int(gate__parse("='=x' > 1", &g, &e), 0, "='=KEY' parses");
	ok(g.meant && !strcmp(g.glob, "=x"), "='=KEY': meant, the key starts with '='");
	gate__describe(&g, buf, sizeof(buf));
	is_str(buf, "='=x' > +1", "describe quotes the key that starts with '='");
	gate__release(&g);
	ok(strdist__within("clear_page_ermz", "clear_page_erms", 1), "strdist: one replaced byte");
	ok(strdist__within("dif", "diff", 1) && !strdist__within("dff", "diff", 0), "strdist: one inserted byte");
	ok(!strdist__within("clear_page", "clear_page_erms", 2), "strdist: five apart is not within 2");
	ok(strdist__within("kitten", "sitting", 3) && !strdist__within("kitten", "sitting", 2),
	   "strdist: kitten/sitting is 3");
}

/* describe parses back to the same gate, quoting when needed */
static void test_describe(void)
{
	static const char *const t[] = {
		"a.b > 1", "'a b' > 1", "'x<int>' >= 2%", "\"it's a\" < -1", "'\"q' > 1", "\"'q\" > 1",
		"'a#b c' <= 0",
	};
	size_t i;

	for (i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		struct gate g, back;
		struct errmsg e = { "" };
		char buf[256];
		int rc = gate__parse(t[i], &g, &e);

		gate__describe(&g, buf, sizeof(buf));
		ok(rc == 0 && gate__parse(buf, &back, &e) == 0 && !strcmp(back.glob, g.glob) &&
		   back.op == g.op && back.value == g.value && back.relative == g.relative,
		   "describe round-trips: '%s' -> '%s' %s", t[i], buf, e.msg);
		gate__release(&g);
		gate__release(&back);
	}
}

static void test_family(void)
{
	static const struct { const char *glob, *key; int names; } t[] = {
		{ "meminfo.Dirty", "meminfo.Dirty", 1 },
		{ "meminfo.*", "meminfo.Dirty", 1 },
		{ "meminfo.D[i]rty", "meminfo.Dirty", 1 },
		{ "proc-vmstat.nr_*", "proc-vmstat.nr_dirty", 1 },
		{ "*.Dirty", "meminfo.Dirty", 0 },
		{ "*", "meminfo.Dirty", 0 },
		{ "mem*.Dirty", "meminfo.Dirty", 0 },
		{ "meminf?.Dirty", "meminfo.Dirty", 0 },
		{ "[m]eminfo.Dirty", "meminfo.Dirty", 0 },
		{ "\\meminfo.Dirty", "meminfo.Dirty", 0 },
		{ "meminfo", "meminfo.Dirty", 0 },
		{ "meminfox.Dirty", "meminfo.Dirty", 0 },
		{ "memin.Dirty", "meminfo.Dirty", 0 },
		{ "proc-vmstat.nr_dirty", "meminfo.Dirty", 0 },
	};
	size_t i;

	for (i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		struct gate g = { .glob = (char *)t[i].glob };

		ok(gate__names_family(&g, t[i].key) == !!t[i].names, "family: '%s' %s %s", t[i].glob,
		   t[i].names ? "names" : "does not name", t[i].key);
	}
}

/*
 * The naive model of a prefix domain: does the glob match D + "." + some
 * text, for texts built from the glob's own literal pieces?  Enough for
 * the globs below (each names or misses for a reason a tail shows).
 */
static int model_names(const char *glob, const char *dom)
{
	static const char *const tails[] = {
		"", "x", "__split_huge_pmd", "foo.cold", "main", "void Hot.main(java.lang.String[])",
		"count", "order.9", "lat.<=8", "a.b", "a.b.c",
	};
	char buf[512];
	size_t i;

	for (i = 0; i < sizeof(tails) / sizeof(tails[0]); i++) {
		snprintf(buf, sizeof(buf), "%s.%s", dom, tails[i]);
		if (!fnmatch(glob, buf, 0))
			return 1;
	}
	return 0;
}

static void test_absent(void)
{
	static const struct { const char *glob, *present; int names; } t[] = {
		/* perf-profile: family and event are the domain, the symbol may hold dots */
		{ "perf-profile.children.*.__split_huge_pmd", "perf-profile.children.cpu-clock.main", 1 },
		{ "perf-profile.children.cpu-clock.__split_huge_pmd", "perf-profile.children.cpu-clock.main", 1 },
		{ "perf-profile.children.cpu-clock.foo.cold", "perf-profile.children.cpu-clock.main", 1 },
		{ "perf-profile.*.__split_huge_pmd", "perf-profile.self.cpu-clock.main", 1 },
		{ "perf-profile.self.cpu-clock.void Hot.main(java.lang.String[])",
		  "perf-profile.self.cpu-clock.main", 1 },
		{ "perf-profile.children.cycles.x", "perf-profile.children.cpu-clock.main", 0 },
		{ "perf-profle.children.*.x", "perf-profile.children.cpu-clock.main", 0 },
		{ "perf-profile.self.*.x", "perf-profile.children.cpu-clock.main", 0 },
		{ "perf-profile.children.cpu-clock", "perf-profile.children.cpu-clock.main", 0 },
		{ "perf-profile.children.cpu-clock.a.b.c", "perf-profile.children.cpu-clock.x.y", 1 },
		{ "perf-profile.calltrace.cpu-clock.a.b", "perf-profile.calltrace.cpu-clock.x.y.z", 1 },
		{ "*.__split_huge_pmd", "perf-profile.children.cpu-clock.main", 1 },
		/* tracepoint: the event */
		{ "tracepoint.kmem:mm_page_alloc.order.9", "tracepoint.kmem:mm_page_alloc.count", 1 },
		{ "tracepoint.kmem:mm_page_alloc.order.9", "tracepoint.kmem:mm_page_free.count", 0 },
		{ "tracepoint.*:mm_page_alloc.lat.<=8", "tracepoint.kmem:mm_page_alloc.order.1", 1 },
		/* perf-sched: stat, aggregate and unit */
		{ "perf-sched.wait_time.avg.ms.a.b", "perf-sched.wait_time.avg.ms.x.y", 1 },
		{ "perf-sched.wait_time.max.ms.a.b", "perf-sched.wait_time.avg.ms.x.y", 0 },
		{ "perf-sched.total_wait_time.max.msx", "perf-sched.total_wait_time.max.ms", 0 },
		/* the robot's per-stack count has no unit; mmprof's view one component more */
		{ "perf-sched.wait_and_delay.count.a.b", "perf-sched.wait_and_delay.count.x.y", 1 },
		{ "perf-sched.wait_and_delay.count.a.b", "perf-sched.wait_time.avg.ms.x.y", 0 },
		{ "perf-sched.offcpu.wait_time.avg.ms.a.b", "perf-sched.offcpu.wait_time.avg.ms.x.y", 1 },
		{ "perf-sched.offcpu.wait_and_delay.count.a.b",
		  "perf-sched.offcpu.wait_and_delay.count.x.y", 1 },
		{ "perf-sched.offcpu.wait_time.avg.ms.a.b", "perf-sched.wait_time.avg.ms.x.y", 0 },
		/* whole keys: an absent one is not a measured 0 */
		{ "meminfo.Dirtyy", "meminfo.Dirty", 0 },
		{ "proc-vmstat.thp_split_pmdd", "proc-vmstat.thp_split_pmd", 0 },
		{ "thp-zap.opss", "thp-zap.ops", 0 },
		{ "thp-zap.time.elapsed_timee", "thp-zap.time.elapsed_time", 0 },
		{ "perf-stat.ps.page-falts", "perf-stat.ps.page-faults", 0 },
		{ "perf-stat.overall.ipc", "perf-stat.ps.cycles", 0 },
		/* ... but a counter that was never multiplexed has no scaled key */
		{ "perf-stat.scaled.page-faults%", "perf-stat.ps.page-faults", 1 },
		{ "perf-stat.scaled.*", "perf-stat.ps.page-faults", 1 },
		{ "perf-stat.scaled.cycles%", "perf-stat.ps.page-faults", 0 },
	};
	size_t i;

	for (i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		struct gate g = { .glob = (char *)t[i].glob };

		ok(gate__names_absent(&g, t[i].present) == !!t[i].names, "absent: '%s' %s a key beside %s",
		   t[i].glob, t[i].names ? "names" : "does not name", t[i].present);
	}
	/* the prefix search against the naive model, for every perf-profile case */
	for (i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		struct gate g = { .glob = (char *)t[i].glob };
		char dom[256];
		const char *p = t[i].present;
		int dots = 0;
		size_t n;

		if (strncmp(p, "perf-profile.", 13))
			continue;
		for (n = 0; p[n] && dots < 3; n++)
			dots += p[n] == '.';
		snprintf(dom, sizeof(dom), "%.*s", (int)n - 1, p);
		ok(gate__names_absent(&g, p) == !!model_names(t[i].glob, dom), "absent: '%s' beside %s as the model says",
		   t[i].glob, dom);
	}
}

/* A diff of a few rows, by hand: what gate__count and gate__applies see. */
static void test_count(void)
{
	struct diff_row rows[] = {
		{ .key = "perf-profile.children.cpu-clock.main" },
		{ .key = "perf-profile.children.cpu-clock.clear_page" },
		{ .key = "meminfo.Dirty", .flags = DIFF_AMBIENT },
		{ .key = "proc-vmstat.nr_dirty", .flags = DIFF_AMBIENT },
		{ .key = "tracepoint.x:y.addr.0x7f00", .flags = DIFF_ADDRESS },
		{ .key = "tracepoint.x:y.count" },
		{ .key = "perf-stat.ps.cycles", .flags = DIFF_ONE_SIDE },
		{ .key = "perf-stat.ps.page-faults" },
		{ .key = "thp-zap.ops" },
	};
	struct diff d = { .rows = rows, .nr = sizeof(rows) / sizeof(rows[0]) };
	static const struct {
		const char *glob;
		size_t rows, uncompared, ambient;
		int absent;
	} t[] = {
		{ "perf-profile.children.*.main", 1, 0, 0, 0 },
		{ "perf-profile.children.*", 2, 0, 0, 0 },
		{ "perf-profile.children.*.__split_huge_pmd", 0, 0, 0, 1 },
		{ "perf-profile.children.cycles.main", 0, 0, 0, 0 },
		{ "perf-profle.children.*.main", 0, 0, 0, 0 },
		/* ambient: only a gate that names the family counts them */
		{ "meminfo.Dirty", 1, 0, 0, 0 },
		{ "meminfo.*", 1, 0, 0, 0 },
		{ "*.Dirty", 0, 0, 1, 0 },
		{ "*dirty", 0, 0, 1, 0 },
		{ "*", 5, 2, 2, 0 },
		{ "proc-vmstat.nr_*", 1, 0, 0, 0 },
		{ "meminfo.Dirtyy", 0, 0, 0, 0 },
		/* not compared */
		{ "tracepoint.x:y.addr.*", 0, 1, 0, 0 },
		{ "tracepoint.x:y.order.9", 0, 0, 0, 1 },
		{ "perf-stat.ps.cycles", 0, 1, 0, 0 },
		/* a one-sided counter is no domain: its scaled key is not a measured 0 */
		{ "perf-stat.scaled.cycles%", 0, 0, 0, 0 },
		{ "perf-stat.scaled.page-faults%", 0, 0, 0, 1 },
		{ "thp-zap.opss", 0, 0, 0, 0 },
	};
	size_t i, j;

	for (i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		struct gate g = { .glob = (char *)t[i].glob };
		struct gate_matches m;
		size_t applied = 0;

		gate__count(&g, &d, &m);
		for (j = 0; j < d.nr; j++)
			applied += gate__applies(&g, &rows[j]);
		ok(m.rows == t[i].rows && m.uncompared == t[i].uncompared && m.ambient == t[i].ambient &&
		   m.absent == !!t[i].absent && applied == m.rows,
		   "count '%s': rows %zu uncompared %zu ambient %zu absent %d (applies to %zu)", t[i].glob,
		   m.rows, m.uncompared, m.ambient, m.absent, applied);
	}
}

/* Which keys are the machine's state (keykind__ambient): the robot's levels, not event counts. */
static void test_ambient_key(void)
{
	ok(keykind__ambient("meminfo.Dirty") && keykind__ambient("proc-vmstat.nr_dirty") &&
	   keykind__ambient("meminfo.MemFree") && keykind__ambient("proc-vmstat.nr_file_pages"),
	   "meminfo and proc-vmstat levels of free memory and the page cache are ambient");
	ok(!keykind__ambient("meminfo.rise.AnonHugePages") &&
	   !keykind__ambient("proc-vmstat.rise.nr_anon_transparent_hugepages"),
	   "the rise while the workload ran of what processes hold is the workload's");
	ok(keykind__ambient("meminfo.AnonHugePages") && keykind__ambient("meminfo.PageTables"),
	   "the machine-wide level itself stays ambient (other processes hold memory too)");
	ok(keykind__ambient("proc-vmstat.workingset_refault_file"),
	   "a field the robot averages is ambient");
	ok(!keykind__ambient("proc-vmstat.pgfault") && !keykind__ambient("proc-vmstat.thp_split_pmd"),
	   "the robot's counters are not");
	ok(!keykind__ambient("proc-vmstat.delta.workingset_refault_file"),
	   "nor mmprof's proc-vmstat.delta.* (a change over the run)");
}

/*
 * The workload's own metrics (keykind__workload_metric, the summary's and
 * the HTML's "workload's metric"): every key a benchmark parser produces,
 * three components or two, never the monitors', the costs or the rusage.
 */
static void test_workload_metric_key(void)
{
	static const char *const own[] = {
		"stress-ng.vm.ops_per_sec", "stress-ng.vm.ops", "will-it-scale.per_process_ops",
		"will-it-scale.workload", "vm-scalability.throughput", "ebizzy.throughput",
		"hackbench.throughput", "thp-zap.ops",
	};
	static const char *const not_own[] = {
		"thp-zap.time.user_time", "stress-ng.time.elapsed_time", "perf-stat.ps.page-faults",
		"proc-vmstat.thp_fault_alloc", "meminfo.AnonHugePages", "cost.self.cpu-clock.f",
		"perf-profile.self.cpu-clock.f", "tracepoint.kmem:mm_page_alloc.count", "nodot",
	};
	struct diff_row r = { 0 };
	size_t i;

	for (i = 0; i < sizeof(own) / sizeof(own[0]); i++) {
		r.key = (char *)own[i];
		ok(ciout__workload_metric(&r), "%s is the workload's metric", own[i]);
	}
	for (i = 0; i < sizeof(not_own) / sizeof(not_own[0]); i++) {
		r.key = (char *)not_own[i];
		ok(!ciout__workload_metric(&r), "%s is not", not_own[i]);
	}
	r.key = (char *)"stress-ng.vm.ops_per_sec";
	r.flags = DIFF_ONE_SIDE;
	ok(!ciout__workload_metric(&r), "nor one that one side did not measure");
	ok(keykind__goodness("thp-zap.ops") > 0 && keykind__goodness("stress-ng.vm.ops_per_sec") > 0 &&
	   keykind__goodness("will-it-scale.per_process_ops") > 0 &&
	   keykind__goodness("hackbench.throughput") > 0, "more operations and throughput are better");
	ok(keykind__goodness("cost.self.cpu-clock.f") < 0 && keykind__goodness("bench.latency") < 0 &&
	   keykind__goodness("fio.read_clat_mean_us") < 0, "costs and latencies: less is better");
	ok(!keykind__goodness("perf-profile.self.cpu-clock.f") &&
	   !keykind__goodness("proc-vmstat.thp_fault_alloc") &&
	   !keykind__goodness("thp-zap.anon_huge_kb") && !keykind__goodness("thp-zap.time.user_time"),
	   "shares, counters and unknown metrics: no direction");
}

/* A tripped gate's line: a rise from zero reads "new", no percentage of 1e-100. */
static void test_trip_text(void)
{
	struct diff_row r = { .key = "perf-profile.children.cpu-clock.__split_huge_pmd",
			      .delta = 2.5, .rel = 2.5e102, .absolute = true, .q = 1e-9,
			      .verdict = DIFF_UP, .flags = DIFF_NEW | DIFF_TESTED };
	struct outbuf o = { 0 };
	struct errmsg e;
	struct gate g;

	r.base.mean = 0;
	r.cur.mean = 2.5;
	gate__parse("perf-profile.children.*.__split_huge_pmd > 1", &g, &e);
	gate__trip_text(&g, &r, &o);
	ok(o.s && strstr(o.s, " 0 -> 2.5 (+2.5 points, q=1e-09, new)") && !strstr(o.s, "e+102"),
	   "trip text: a rise from a zero base has no percentage of 1e-100 (%s)", o.s ? o.s : "");
	o.len = 0;
	r.base.mean = 1;
	r.cur.mean = 3.5;
	r.rel = 250;
	r.flags = DIFF_TESTED;
	gate__trip_text(&g, &r, &o);
	ok(o.s && strstr(o.s, " 1 -> 3.5 (+2.5 points, +250%, q=1e-09"),
	   "trip text: a rise from a base keeps its percentage (%s)", o.s ? o.s : "");
	outbuf__release(&o);
	gate__release(&g);
}

int main(void)
{
	test_valid();
	test_invalid();
	test_workload_metric_key();
	test_eval();
	test_describe();
	test_trip_text();
	test_family();
	test_absent();
	test_count();
	test_ambient_key();
	return done_testing();
}
