/* test-gate: the --fail-on expression parser, valid and invalid, and evaluation. */
#include <math.h>
#include <string.h>

#include "tap.h"
#include "mmprof/gate.h"

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
}

int main(void)
{
	test_valid();
	test_invalid();
	test_eval();
	return done_testing();
}
