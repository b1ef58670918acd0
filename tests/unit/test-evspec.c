/* Event specification parsing: perf's spellings, modifiers, errors. */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "mmprof/evspec.h"
#include "tap.h"

struct row {
	const char *spec;
	int err;		/* expected return */
	uint32_t type;
	uint64_t config;
	const char *name;	/* expected display name */
};

static const struct row rows[] = {
	{ "cycles", 0, PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES, "cycles" },
	{ "cpu-cycles", 0, PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES, "cpu-cycles" },
	{ "instructions", 0, PERF_TYPE_HARDWARE, PERF_COUNT_HW_INSTRUCTIONS, "instructions" },
	{ "branches", 0, PERF_TYPE_HARDWARE, PERF_COUNT_HW_BRANCH_INSTRUCTIONS, "branches" },
	{ "branch-misses", 0, PERF_TYPE_HARDWARE, PERF_COUNT_HW_BRANCH_MISSES, "branch-misses" },
	{ "cache-references", 0, PERF_TYPE_HARDWARE, PERF_COUNT_HW_CACHE_REFERENCES, "cache-references" },
	{ "cache-misses", 0, PERF_TYPE_HARDWARE, PERF_COUNT_HW_CACHE_MISSES, "cache-misses" },
	{ "bus-cycles", 0, PERF_TYPE_HARDWARE, PERF_COUNT_HW_BUS_CYCLES, "bus-cycles" },
	{ "ref-cycles", 0, PERF_TYPE_HARDWARE, PERF_COUNT_HW_REF_CPU_CYCLES, "ref-cycles" },
	{ "stalled-cycles-frontend", 0, PERF_TYPE_HARDWARE,
	  PERF_COUNT_HW_STALLED_CYCLES_FRONTEND, "stalled-cycles-frontend" },
	{ "stalled-cycles-backend", 0, PERF_TYPE_HARDWARE,
	  PERF_COUNT_HW_STALLED_CYCLES_BACKEND, "stalled-cycles-backend" },
	{ "cpu-clock", 0, PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_CLOCK, "cpu-clock" },
	{ "task-clock", 0, PERF_TYPE_SOFTWARE, PERF_COUNT_SW_TASK_CLOCK, "task-clock" },
	{ "page-faults", 0, PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS, "page-faults" },
	{ "faults", 0, PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS, "faults" },
	{ "minor-faults", 0, PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS_MIN, "minor-faults" },
	{ "major-faults", 0, PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS_MAJ, "major-faults" },
	{ "context-switches", 0, PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CONTEXT_SWITCHES, "context-switches" },
	{ "cs", 0, PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CONTEXT_SWITCHES, "cs" },
	{ "cpu-migrations", 0, PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_MIGRATIONS, "cpu-migrations" },
	{ "migrations", 0, PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_MIGRATIONS, "migrations" },
	{ "alignment-faults", 0, PERF_TYPE_SOFTWARE, PERF_COUNT_SW_ALIGNMENT_FAULTS, "alignment-faults" },
	{ "emulation-faults", 0, PERF_TYPE_SOFTWARE, PERF_COUNT_SW_EMULATION_FAULTS, "emulation-faults" },
	{ "dummy", 0, PERF_TYPE_SOFTWARE, PERF_COUNT_SW_DUMMY, "dummy" },
	{ "r1a8", 0, PERF_TYPE_RAW, 0x1a8, "r1a8" },
	{ "r00C0", 0, PERF_TYPE_RAW, 0xc0, "r00C0" },	/* named as typed, as perf does */
	{ "r00c0:u", 0, PERF_TYPE_RAW, 0xc0, "r00c0:u" },
	{ "rffffffffffffffff", 0, PERF_TYPE_RAW, 0xffffffffffffffffULL, "rffffffffffffffff" },
	{ "L1-dcache-loads", 0, PERF_TYPE_HW_CACHE, 0x000000, "L1-dcache-loads" },
	{ "L1-dcache-load-misses", 0, PERF_TYPE_HW_CACHE, 0x010000, "L1-dcache-load-misses" },
	{ "L1-dcache-stores", 0, PERF_TYPE_HW_CACHE, 0x000100, "L1-dcache-stores" },
	{ "L1-icache-load-misses", 0, PERF_TYPE_HW_CACHE, 0x010001, "L1-icache-load-misses" },
	{ "LLC-loads", 0, PERF_TYPE_HW_CACHE, 0x000002, "LLC-loads" },
	{ "LLC-store-misses", 0, PERF_TYPE_HW_CACHE, 0x010102, "LLC-store-misses" },
	{ "dTLB-loads", 0, PERF_TYPE_HW_CACHE, 0x000003, "dTLB-loads" },
	{ "dTLB-load-misses", 0, PERF_TYPE_HW_CACHE, 0x010003, "dTLB-load-misses" },
	{ "dTLB-stores", 0, PERF_TYPE_HW_CACHE, 0x000103, "dTLB-stores" },
	{ "dTLB-store-misses", 0, PERF_TYPE_HW_CACHE, 0x010103, "dTLB-store-misses" },
	{ "iTLB-loads", 0, PERF_TYPE_HW_CACHE, 0x000004, "iTLB-loads" },
	{ "iTLB-load-misses", 0, PERF_TYPE_HW_CACHE, 0x010004, "iTLB-load-misses" },
	{ "branch-loads", 0, PERF_TYPE_HW_CACHE, 0x000005, "branch-loads" },
	{ "node-loads", 0, PERF_TYPE_HW_CACHE, 0x000006, "node-loads" },
	{ "node-load-misses", 0, PERF_TYPE_HW_CACHE, 0x010006, "node-load-misses" },
	{ "L1-dcache-prefetches", 0, PERF_TYPE_HW_CACHE, 0x000200, "L1-dcache-prefetches" },
	{ "llc-loads", 0, PERF_TYPE_HW_CACHE, 0x000002, "LLC-loads" },
	{ "cycles:pp", 0, PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES, "cycles:pp" },
	{ "cpu-clock:u", 0, PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_CLOCK, "cpu-clock:u" },
	{ "software/config=0/", 0, PERF_TYPE_SOFTWARE, 0, "software/config=0/" },
	{ "software/config=0x3/:k", 0, PERF_TYPE_SOFTWARE, 3, "software/config=0x3/:k" },
	{ "nosuchevent", -EINVAL, 0, 0, NULL },
	{ "r", -EINVAL, 0, 0, NULL },
	{ "rxyz", -EINVAL, 0, 0, NULL },
	{ "r0xc0", -EINVAL, 0, 0, NULL },		/* perf: hex digits only */
	{ "r-1", -EINVAL, 0, 0, NULL },
	{ "r10000000000000000", -EINVAL, 0, 0, NULL },	/* 17 digits */
	{ "L1-dcache-bogus", -EINVAL, 0, 0, NULL },
	{ "cycles:x", -EINVAL, 0, 0, NULL },
	{ "cycles:pppp", -EINVAL, 0, 0, NULL },
	{ "", -EINVAL, 0, 0, NULL },
	{ "nosuchpmu/config=1/", -EINVAL, 0, 0, NULL },
	{ "software/config=zz/", -EINVAL, 0, 0, NULL },
	{ "software/nosuchterm=1/", -EINVAL, 0, 0, NULL },
	{ "software/config=1", -EINVAL, 0, 0, NULL },
	{ "sched:no_such_tracepoint", -EINVAL, 0, 0, NULL },
	{ "../..:x", -EINVAL, 0, 0, NULL },
};

struct globbed {
	char names[64][128];
	int nr;
};

static int collect(void *ctx, const char *spec)
{
	struct globbed *g = ctx;

	if (g->nr < 64)
		snprintf(g->names[g->nr], sizeof(g->names[0]), "%s", spec);
	g->nr++;
	return 0;
}

static int refuse(void *ctx, const char *spec)
{
	(void)ctx;
	(void)spec;
	return -EEXIST;
}

/* Tracepoint globs (perf's sys:* and sys:prefix*), against this machine's tracefs. */
static void test_globs(void)
{
	struct globbed g = { .nr = 0 };
	struct errmsg e = { "" };
	struct evspec ev;
	int i, n, sorted = 1, all_parse = 1;

	ok(evspec__is_glob("huge_memory:*") && evspec__is_glob("sched:sched_s*:k") &&
	   evspec__is_glob("sch?d:sched_switch"), "sys:*, sys:prefix*:mods and sys? are globs");
	ok(!evspec__is_glob("sched:sched_switch") && !evspec__is_glob("cycles:pp") &&
	   !evspec__is_glob("cpu/event=0x3c/") && !evspec__is_glob("*") &&
	   !evspec__is_glob("sched:sched_switch:*"), "plain events, PMU terms, a bare * and "
	   "a * among the modifiers are not");
	n = evspec__glob("sched:sched_s*", collect, &g, &e);
	ok(n == g.nr && n >= 2, "sched:sched_s* matches %d tracepoints (%s)", n, e.msg);
	for (i = 0; i < g.nr && i < 64; i++) {
		sorted &= i == 0 || strcmp(g.names[i - 1], g.names[i]) < 0;
		all_parse &= !strncmp(g.names[i], "sched:sched_s", 13) &&
			     evspec__parse(g.names[i], &ev, NULL) == 0 && ev.tracepoint;
	}
	ok(sorted && all_parse, "each match is a sched:sched_s... tracepoint that parses, in name order");
	for (i = 0; i < g.nr && i < 64 && strcmp(g.names[i], "sched:sched_switch"); i++)
		;
	ok(i < g.nr, "sched:sched_switch is among them");
	g.nr = 0;
	n = evspec__glob("sch?d:sched_switch:k", collect, &g, &e);
	ok(n == 1 && !strcmp(g.names[0], "sched:sched_switch:k"), "a glob in sys, modifiers kept: %s",
	   g.nr ? g.names[0] : "(none)");
	g.nr = 0;
	e.msg[0] = '\0';
	n = evspec__glob("no_such_subsystem:*", collect, &g, &e);
	ok(n == -ENOENT && g.nr == 0 && strstr(e.msg, "no tracepoint matches 'no_such_subsystem:*'"),
	   "a glob that matches nothing: -ENOENT, %s", e.msg);
	n = evspec__glob("sched:*", refuse, NULL, &e);
	is_int(n, -EEXIST, "an add that fails stops the expansion with its error");
	n = evspec__parse("huge_memory:*", &ev, &e);
	ok(n < 0, "evspec__parse does not take a glob itself");
}

int main(void)
{
	struct errmsg e = { "" };
	struct evspec ev;
	size_t i;
	int err;

	for (i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		const struct row *r = &rows[i];

		e.msg[0] = '\0';
		err = evspec__parse(r->spec, &ev, &e);
		if (r->err) {
			is_int(err, r->err, r->spec);
			ok(e.msg[0] != '\0', "'%s' is refused with a message: %s", r->spec, e.msg);
			continue;
		}
		if (!ok(err == 0 && ev.attr.type == r->type && ev.attr.config == r->config &&
			!strcmp(ev.name, r->name) && ev.attr.size == sizeof(ev.attr),
			"%s -> type %u config %#llx name %s", r->spec, r->type,
			(unsigned long long)r->config, r->name))
			printf("#   got err %d type %u config %#llx name '%s' (%s)\n", err,
			       ev.attr.type, (unsigned long long)ev.attr.config, ev.name, e.msg);
	}

	/* the wording the brief promises for an unknown event */
	evspec__parse("bogus", &ev, &e);
	is_str(e.msg, "unknown event 'bogus'; 'perf list' shows the events this machine has",
	       "unknown event message");

	/* a raw event's errors quote it as typed */
	evspec__parse("r00c0:x", &ev, &e);
	is_str(e.msg, "unknown modifier 'x' in event 'r00c0:x' (known: u, k, h, p, pp, ppp)",
	       "raw event with a bad modifier: quoted as typed");
	evspec__parse("r0xc0", &ev, &e);
	is_str(e.msg, "unknown event 'r0xc0'; 'perf list' shows the events this machine has",
	       "r0xc0 is not raw (perf's rNNNN is hex digits only)");

	/* modifiers: u/k select, p raises precision */
	evspec__parse("cycles:u", &ev, NULL);
	ok(!ev.attr.exclude_user && ev.attr.exclude_kernel && ev.attr.exclude_hv,
	   ":u excludes kernel and hypervisor");
	evspec__parse("cycles:k", &ev, NULL);
	ok(ev.attr.exclude_user && !ev.attr.exclude_kernel, ":k excludes user");
	evspec__parse("cycles:uk", &ev, NULL);
	ok(!ev.attr.exclude_user && !ev.attr.exclude_kernel, ":uk excludes neither");
	evspec__parse("cycles", &ev, NULL);
	ok(!ev.attr.exclude_user && !ev.attr.exclude_kernel && !ev.attr.precise_ip,
	   "no modifier: nothing excluded, not precise");
	evspec__parse("cycles:ppp", &ev, NULL);
	is_int(ev.attr.precise_ip, 3, ":ppp is precise_ip 3");
	evspec__parse("instructions:upp", &ev, NULL);
	ok(ev.attr.precise_ip == 2 && ev.attr.exclude_kernel, ":upp combines");
	ok(!ev.tracepoint, "a hardware event is not a tracepoint");

	/* tracepoints: id from tracefs (mounted if needed) */
	err = evspec__parse("sched:sched_switch", &ev, &e);
	if (!ok(err == 0, "sched:sched_switch parses"))
		printf("#   %s\n", e.msg);
	ok(ev.attr.type == PERF_TYPE_TRACEPOINT && ev.attr.config > 0 && ev.tracepoint,
	   "tracepoint type and a non-zero id");
	is_str(ev.name, "sched:sched_switch", "tracepoint display name");
	{
		char path[256], buf[32] = "";
		const char *dir = evspec__tracefs(NULL);
		FILE *f;

		snprintf(path, sizeof(path), "%s/events/sched/sched_switch/id", dir ? dir : "");
		f = fopen(path, "r");
		if (f) {
			if (!fgets(buf, sizeof(buf), f))
				buf[0] = '\0';
			fclose(f);
		}
		is_int(ev.attr.config, strtoull(buf, NULL, 10), "id is the one tracefs shows");
	}
	err = evspec__parse("exceptions:page_fault_user:u", &ev, &e);
	ok(err == 0 && ev.attr.exclude_kernel && !strcmp(ev.name, "exceptions:page_fault_user:u"),
	   "tracepoint with a modifier");
	err = evspec__parse("sched:no_such_tracepoint", &ev, &e);
	ok(strstr(e.msg, "sched:no_such_tracepoint") != NULL, "unknown tracepoint named: %s", e.msg);
	test_globs();
	return done_testing();
}
