/*
 * test-import-perfscript: the perf script text parser (import.h) on known
 * texts: perf's default output with callchains, -F output with pid/tid, a
 * comm with spaces and a cpu column, the --header block, a sample without
 * a callchain, PERF_RECORD lines, and every refusal (garbage, NUL, long
 * line, deep stack, frame outside a sample, no samples) with its message,
 * and comms holding newlines (a header split over lines).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "mmprof/import.h"
#include "mmprof/xalloc.h"
#include "tap.h"

static const char default_text[] =
	"# ========\n"
	"# hostname : vm\n"
	"# os release : 6.18.44\n"
	"# perf version : 6.1.192\n"
	"# cmdline : /usr/bin/perf record -g -e cpu-clock -- ./w\n"
	"# event : name = cpu-clock, , id = { 1, 2 }, type = 1, size = 128, "
	"{ sample_period, sample_freq } = 4000, sample_type = IP|TID, freq = 1, inherit = 1\n"
	"# ========\n"
	"#\n"
	"page-fault 25644  1619.000650:     250000 cpu-clock: \n"
	"\tffffffff821e8f67 clear_page_erms+0x7 ([kernel.kallsyms])\n"
	"\tffffffff81000c82 asm_exc_page_fault+0x22 ([kernel.kallsyms])\n"
	"\t            1e2e pf_touch_pages+0x1e (/w/page-fault)\n"
	"\t               0 [unknown] ([unknown])\n"
	"\n"
	"page-fault 25646  1619.001650:     250000 cpu-clock: \n"
	"\tffffffff821e8f67 clear_page_erms+0x7 ([kernel.kallsyms])\n"
	"\tffffffff81000c82 asm_exc_page_fault+0x22 ([kernel.kallsyms])\n"
	"\t            1e2e pf_touch_pages+0x1e (/w/page-fault)\n"
	"\t               0 [unknown] ([unknown])\n"
	"\n"
	"Web Content 4242/4243 [001]  1620.000650:     500000 cpu-clock: \n"
	"\t  7f0011 js::Foo(int, char) const+0x10 (/usr/lib/x (deleted))\n"
	"\tffffffffc0123456 ext4_foo+0x1 ([ext4])\n";

static void test_default(void)
{
	struct profile *p = profile__new();
	struct errmsg e = { "" };
	const struct frame *f;
	uint32_t comm_w, c;
	size_t i;
	uint64_t samples = 0, period = 0;
	int err = perfscript__parse(p, default_text, strlen(default_text), &e);

	is_int(err, 0, "default output with header parses");
	if (err)
		printf("# %s\n", e.msg);
	is_int(p->nr_events, 1, "one event");
	is_str(profile__str(p, p->events[0].name), "cpu-clock", "event name");
	is_int(p->events[0].type, 1, "event type from the header");
	is_int(p->events[0].freq, 1, "freq from the header");
	is_int(p->events[0].sample, 4000, "frequency from the header");
	is_str(profile__meta(p, "perf_version"), "6.1.192", "perf version in meta");
	is_str(profile__meta(p, "kernel_release"), "6.18.44", "os release in meta");
	is_str(profile__meta(p, "perf_cmdline"), "/usr/bin/perf record -g -e cpu-clock -- ./w",
	       "perf's command line in meta");
	for (i = 0; i < p->nr_counts; i++) {
		samples += p->counts[i].samples;
		period += p->counts[i].period;
	}
	is_int(samples, 3, "three samples");
	is_int(period, 1000000, "periods summed");
	is_int(p->runs[0].samples, 3, "run sample count");
	is_int(p->runs[0].wall_ns, 1000000000, "run duration from the first and last times");
	comm_w = profile__str_id(p, "Web Content");
	ok(comm_w, "a comm with a space, before pid/tid and [cpu]");
	is_int(p->nr_counts, 2, "identical stacks of one comm share a count");
	for (i = 0, c = 0; i < p->nr_counts; i++)
		if (p->counts[i].comm == comm_w)
			c = p->counts[i].pid;
	is_int(c, 4242, "pid/tid gives the process");
	for (i = 0, c = 1; i < p->nr_counts; i++)
		if (p->counts[i].comm == profile__str_id(p, "page-fault"))
			c = p->counts[i].pid;
	is_int(c, 0, "a lone number (perf's tid) gives no pid");
	for (i = 0, c = 0; i < p->nr_counts; i++)
		if (p->counts[i].comm == profile__str_id(p, "page-fault"))
			c = p->counts[i].node;
	/* leaf of the page-fault stack: clear_page_erms, kernel, offset 7 */
	f = &p->frames[p->nodes[c].frame];
	is_str(profile__str(p, f->sym), "clear_page_erms", "leaf symbol");
	is_int(f->sym_off, 7, "symbol offset");
	is_int(f->kernel, 1, "kernel frame");
	is_int(f->addr, 0xffffffff821e8f67ull, "address");
	is_int(p->nodes[c].depth, 4, "stack depth 4 with the [unknown] root frame");
	f = &p->frames[p->nodes[p->nodes[c].parent].frame];
	is_str(profile__str(p, f->sym), "asm_exc_page_fault", "caller next");
	f = &p->frames[p->nodes[p->nodes[p->nodes[c].parent].parent].frame];
	is_int(f->kernel, 0, "user frame");
	is_str(profile__str(p, f->dso), "/w/page-fault", "user DSO");
	f = &p->frames[p->nodes[p->nodes[p->nodes[p->nodes[c].parent].parent].parent].frame];
	ok(!f->sym && !f->dso && !f->addr, "[unknown] ([unknown]) is unresolved");
	ok(profile__str_id(p, "js::Foo(int, char) const"), "a symbol with spaces and parentheses");
	ok(profile__str_id(p, "/usr/lib/x (deleted)"), "a DSO with parentheses");
	ok(profile__str_id(p, "[ext4]"), "a module DSO");
	for (i = 0; i < p->nr_frames; i++)
		if (p->frames[i].dso == profile__str_id(p, "[ext4]"))
			is_int(p->frames[i].kernel, 1, "module frame is kernel");
	profile__free(p);
}

static void test_fields_and_nocallchain(void)
{
	static const char text[] =
		"w 10/11 5.5: 100 task-clock: ffffffff81000000 foo+0x0 ([kernel.kallsyms])\n"
		"w 10/11 5.6: 100 task-clock:       401000 main (/bin/w)\n"
		"w 10/11 5.7: PERF_RECORD_MMAP 10/11: [0x400000(0x1000) @ 0]: x /bin/w\n"
		"w 10 6.0: sched:sched_switch: prev_comm=w prev_pid=10 ==> next_comm=swapper\n";
	struct profile *p = profile__new();
	struct errmsg e = { "" };
	int err = perfscript__parse(p, text, strlen(text), &e);

	is_int(err, 0, "samples without callchains parse");
	if (err)
		printf("# %s\n", e.msg);
	is_int(p->nr_events, 2, "two events, PERF_RECORD lines skipped");
	is_int(p->runs[0].samples, 3, "three samples");
	ok(profile__str_id(p, "main"), "the ip after the event is the frame");
	is_str(profile__str(p, p->events[1].name), "sched:sched_switch", "tracepoint name");
	is_int(p->events[1].type, UINT32_MAX, "unknown type without a header");
	profile__free(p);
}

static void refused(const char *text, size_t len, int want, const char *needle, const char *what)
{
	struct profile *p = profile__new();
	struct errmsg e = { "" };
	int err = perfscript__parse(p, text, len, &e);

	ok(err == want && strstr(e.msg, needle), "%s: %d '%s'", what, err, e.msg);
	profile__free(p);
}

static void test_refusals(void)
{
	char *big;
	size_t i, n;

	refused("hello world\nthis is not it\n", 28, -EPROTO, "line 1: not perf script output",
		"prose");
	refused("", 0, -ENODATA, "no samples", "empty");
	refused("# just a comment\n\n", 18, -ENODATA, "no samples", "comments only");
	refused("\tffffffff81000000 foo ([k])\n", 28, -EPROTO, "outside a sample",
		"frame before any header");
	refused("w 1 1.0: 1 cpu-clock:\n\tnot-hex foo (x)\n", 38, -EPROTO,
		"line 2: not perf script output: expected a frame", "bad frame");
	refused("w 1 1.0: 1 cpu-clock:\n\t1 a\0b (x)\n", 32, -EPROTO, "NUL", "NUL byte");
	refused("w 1 1.0: 1\n", 11, -EPROTO, "event", "no event");

	n = PERFSCRIPT_MAX_LINE + 10;
	big = xmalloc(n);
	memset(big, 'a', n);
	refused(big, n, -EPROTO, "longer than", "long line");
	free(big);

	n = 64 + (size_t)(PERFSCRIPT_MAX_DEPTH + 1) * 7;
	big = xmalloc(n);
	i = (size_t)snprintf(big, n, "w 1 1.0: 1 cpu-clock:\n");
	while (i + 7 <= n) {
		memcpy(big + i, "\t1 foo\n", 7);
		i += 7;
	}
	refused(big, i, -EPROTO, "deeper than", "deep stack");
	free(big);
}

/* Found by fuzz-perfscript: timestamps far apart overflowed the wall time. */
static void test_huge_times(void)
{
	static const char text[] =
		"w 10/11 1.0: 100 task-clock: ffffffff81000000 foo+0x0 ([kernel.kallsyms])\n"
		"w 10/11 1000000000000000000000000000000000000000000000000000000000000.5: 100 "
		"task-clock: ffffffff81000000 foo+0x0 ([kernel.kallsyms])\n";
	struct profile *p = profile__new();
	struct errmsg e = { "" };
	int err = perfscript__parse(p, text, strlen(text), &e);

	ok(err == 0 || err == -EPROTO, "a 61-digit timestamp: parsed or refused, no overflow");
	if (!err)
		is_int(p->runs[0].wall_ns, 0, "no wall time from absurd timestamps");
	profile__free(p);
}

/*
 * perf record without -g: perf script right-aligns the comm, so every
 * sample line starts with blanks, and there are no blank lines between
 * samples (regression: "an indented line outside a sample").  The comm
 * "cc" is hex-shaped; perf indents frames with a tab, headers with spaces.
 */
static void test_padded_nocallchain(void)
{
	static const char text[] =
		"# cmdline : /usr/bin/perf record -F 1000 -o nog.perf -- ./prog \n"
		"# event : name = cpu-clock:ppp, , id = { 1354077, 1354078 }, type = 1, size = 128, "
		"{ sample_period, sample_freq } = 1000, sample_type = IP|TID|TIME|PERIOD, "
		"freq = 1, precise_ip = 3, sample_id_all = 1\n"
		"# event : name = page-faults, , id = { 3 }, type = 1, size = 128, config = 0x2, "
		"{ sample_period, sample_freq } = 1000, freq = 1\n"
		"#\n"
		"              sh 11592 21806.422200:    1000000 cpu-clock:ppp:      7fd6241d3910 "
		"__strcmp_avx2+0x0 (/usr/lib/x86_64-linux-gnu/libc.so.6)\n"
		"              cc 11593 21806.423208:    1000000 cpu-clock:ppp:      5624687ac130 "
		"[unknown] (/usr/bin/dash)\n"
		"     Web Content 4242 21806.424212:    1000000 cpu-clock:ppp:  ffffffff81000c82 "
		"asm_exc_page_fault+0x22 ([kernel.kallsyms])\n"
		"     fault-range 17328 21971.549306:          1 page-faults:  ffffffff8175336a "
		"elf_load+0x28a ([kernel.kallsyms])\n"
		"              dd 17329 page-faults:  ffffffff81b73c18 _copy_to_user\n";
	static const char tabbed[] = "w 1 1.0: 1 cpu-clock:\n\tcc 12 x: (y)\n\n";
	struct profile *p = profile__new();
	struct errmsg e = { "" };
	int err = perfscript__parse(p, text, strlen(text), &e);
	size_t i;
	int depth1 = 1;

	is_int(err, 0, "no-callchain output with padded comms parses");
	if (err)
		printf("# %s\n", e.msg);
	is_int(p->runs[0].samples, 5, "five samples");
	is_int(p->nr_events, 2, "two events");
	for (i = 0; i < p->nr_counts; i++)
		if (p->nodes[p->counts[i].node].depth != 1)
			depth1 = 0;
	ok(depth1 && p->nr_counts == 5, "each a stack of one frame, the ip");
	ok(profile__str_id(p, "cc") && profile__str_id(p, "dd") && profile__str_id(p, "Web Content"),
	   "hex-shaped and spaced comms are comms");
	ok(profile__str_id(p, "__strcmp_avx2") && profile__str_id(p, "_copy_to_user"),
	   "the ips' symbols");
	is_str(profile__meta(p, "callchain"), "0", "meta callchain 0: perf recorded none");
	profile__free(p);

	/* a tab-indented frame line still belongs to its sample */
	p = profile__new();
	err = perfscript__parse(p, tabbed, strlen(tabbed), &e);
	ok(!err && p->runs[0].samples == 1 && profile__str_id(p, "12 x:"),
	   "a tab-indented frame that looks like a header without time is a frame");
	is_str(profile__meta(p, "callchain"), "1", "meta callchain 1 with frames");
	profile__free(p);
}

/*
 * perf adds precise modifiers by itself (cpu-clock:ppp on a machine
 * without a PMU, cycles:P), and H for its default exclude_guest
 * (cpu-clock:pppH); the import stores the plain name, so that it compares
 * with an mmprof recording of the same event.
 */
static void test_event_names(void)
{
	static const struct {
		const char *text, *name, *asked, *what;
	} cases[] = {
		{ "# event : name = cpu-clock:ppp, , type = 1, freq = 1\n"
		  "w 1 1.0: 1 cpu-clock:ppp: 1 f (x)\n", "cpu-clock", "cpu-clock:ppp",
		  "software event (header type 1): no precise levels" },
		{ "w 1 1.0: 1 cpu-clock:ppp: 1 f (x)\n", "cpu-clock", "cpu-clock:ppp",
		  "software event by name, no header" },
		{ "w 1 1.0: 1 task-clock:upp: 1 f (x)\n", "task-clock:u", "task-clock:upp",
		  "other modifiers stay" },
		{ "# event : name = cpu-clock:pppH, , type = 1, freq = 1\n"
		  "w 1 1.0: 1 cpu-clock:pppH: 1 f (x)\n", "cpu-clock", "cpu-clock:pppH",
		  "perf 6.1.1xx's default: H (exclude_guest, mmprof's too) goes with the precision" },
		{ "w 1 1.0: 1 cycles:uH: 1 f (x)\n", "cycles:u", "cycles:uH",
		  "H goes from a hardware event too, u stays" },
		{ "w 1 1.0: 1 cycles:G: 1 f (x)\n", "cycles:G", NULL,
		  "G (guest only) is not mmprof's default: it stays" },
		{ "# cmdline : /usr/bin/perf record -g -- ./w\n"
		  "# event : name = cycles:P, , type = 0, freq = 1\n"
		  "w 1 1.0: 1 cycles:P: 1 f (x)\n", "cycles", "cycles:P",
		  "perf's default event (no -e): its precision was perf's choice" },
		{ "# cmdline : /usr/bin/perf record -e cycles:pp -- ./w\n"
		  "# event : name = cycles:pp, , type = 0, freq = 1\n"
		  "w 1 1.0: 1 cycles:pp: 1 f (x)\n", "cycles:pp", NULL,
		  "a hardware event the user asked precise stays" },
		{ "# cmdline : /usr/bin/perf record -ge cycles:P -- ./w\n"
		  "w 1 1.0: 1 cycles:P: 1 f (x)\n", "cycles:P", NULL,
		  "-ge names an event too" },
		{ "w 1 1.0: 1 cycles:P: 1 f (x)\n", "cycles:P", NULL,
		  "a hardware event without a header stays" },
		{ "w 1 1.0: sched:sched_switch: prev_comm=w\n", "sched:sched_switch", NULL,
		  "a tracepoint is not a modifier list" },
	};
	size_t i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct profile *p = profile__new();
		struct errmsg e = { "" };
		int err = perfscript__parse(p, cases[i].text, strlen(cases[i].text), &e);
		const char *asked = p->nr_events ? profile__str(p, p->events[0].asked) : NULL;

		ok(!err && p->nr_events == 1 &&
		   !strcmp(profile__str(p, p->events[0].name), cases[i].name) &&
		   (cases[i].asked ? asked && !strcmp(asked, cases[i].asked) : !asked || !*asked),
		   "%s: '%s' (asked '%s') %s", cases[i].what,
		   p->nr_events ? profile__str(p, p->events[0].name) : "-", asked ? asked : "",
		   err ? e.msg : "");
		profile__free(p);
	}
}

/* comm: the one comm of a parsed text's counts, or NULL when it has none */
static const char *only_comm(const char *text)
{
	static char buf[64];
	struct profile *p = profile__new();
	struct errmsg e = { "" };
	const char *r = NULL;

	if (!perfscript__parse(p, text, strlen(text), &e) && p->nr_counts) {
		snprintf(buf, sizeof(buf), "%s", profile__str(p, p->counts[0].comm));
		r = buf;
	} else {
		printf("# %s\n", e.msg);
	}
	profile__free(p);
	return r;
}

/*
 * A comm holding newlines (PR_SET_NAME takes any byte but NUL) splits
 * its header over lines; found on a real perf record -a, where import
 * failed at the split line and kept nothing.
 */
#define T_END "w 1 1.0: 1 cpu-clock:\n\t1 foo (x)\n\nab\n"
#define T_LONG "abcdefghij\nklmnopq 7 1.0: 1 cpu-clock:\n"
#define T_HEAD "abcdefghijklmnop\nq 7 1.0: 1 cpu-clock:\n"
#define T_FRAME "ab\n\tffff foo (x)\n"

static void test_comm_newline(void)
{
	const char *c;

	c = only_comm("a 99\n 7 [000] 1.0: 1 cpu-clock: \n\t1 foo (x)\n\n");
	is_str(c ? c : "(refused)", "a 99\n", "a comm ending in a newline");
	c = only_comm("a\nb\nc 7 1.0: 1 cpu-clock:\n\t1 foo (x)\n");
	is_str(c ? c : "(refused)", "a\nb\nc", "a comm of two newlines");
	c = only_comm("  a 99\n 7 [000] 1.0: 1 cpu-clock:  1 foo (x)\n");
	is_str(c ? c : "(refused)", "a 99\n", "padded on the left (no callchain)");
	c = only_comm("w 1 1.0: 1 cpu-clock:\n\t1 foo (x)\n\nab\ncd 7 1.0: 1 cpu-clock:\n");
	ok(c && !strcmp(c, "w"), "after a sample: the next sample's comm is its own");
	refused(T_END, strlen(T_END), -EPROTO,
		"line 4: not perf script output", "a comm's head at the end");
	refused(T_LONG, strlen(T_LONG), -EPROTO,
		"line 1: not perf script output", "a joined comm longer than the kernel's");
	refused(T_HEAD, strlen(T_HEAD), -EPROTO,
		"line 1: not perf script output", "a head longer than a comm");
	refused(T_FRAME, strlen(T_FRAME), -EPROTO, "line 1: not perf script output",
		"a head followed by a frame");
}

/*
 * Found by fuzz-perfscript: a period that takes the sum to 2^63 drops its
 * count (meta repaired.count_over_2^63), and the run's samples counted it
 * all the same.
 */
static void test_period_dropped(void)
{
	static const char text[] = "w 1 1.0: 18446744073709551615 cpu-clock:\n\t1 foo (x)\n\n"
				   "w 1 1.1: 1 cpu-clock:\n\t1 foo (x)\n";
	struct profile *p = profile__new();
	struct errmsg e = { "" };
	uint64_t sum = 0;
	size_t i;

	is_int(perfscript__parse(p, text, strlen(text), &e), 0, "a period past 2^63 parses");
	for (i = 0; i < p->nr_counts; i++)
		sum += p->counts[i].samples;
	is_int(sum, 1, "its count is dropped");
	is_int(p->nr_runs ? p->runs[0].samples : 0, sum, "and the run's samples are the counts'");
	profile__free(p);
}

int main(void)
{
	test_period_dropped();
	test_comm_newline();
	test_default();
	test_huge_times();
	test_fields_and_nocallchain();
	test_refusals();
	test_padded_nocallchain();
	test_event_names();
	return done_testing();
}
