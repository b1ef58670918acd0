/*
 * test-stattable: `mmprof stat`'s table and -I lines (stattable.h) from
 * counters made by hand: perf stat's layout line by line for one run (a
 * clock in msec with "CPUs utilized", insn per cycle, GHz, a miss ratio,
 * a rate, "<not supported>" when asked for, "<not counted>", "(scaled
 * from 50.00%)"), "( +- N% )" and the "+-" footer with several runs, and
 * the -I header once per run.
 */
#include <string.h>

#include "tap.h"
#include "mmprof/stattable.h"

static void counter(struct profile *p, uint32_t run, const char *name, bool supported,
		    uint64_t value, uint64_t running)
{
	struct counter c = { .run = run, .name = profile__intern(p, name), .supported = supported,
			     .value = value, .enabled = 1000000000, .running = running };

	profile__add_counter(p, &c);
}

static struct profile *made(uint32_t nr_runs)
{
	struct profile *p = profile__new();
	uint32_t run;

	for (run = 0; run < nr_runs; run++) {
		struct run r = { .wall_ns = 2000000000 + run * 100000000, .utime_us = 1500000,
				 .stime_us = 250000 + run * 50000 };

		profile__add_run(p, &r);
		counter(p, run, "task-clock", true, 1000000000 + run * 10000000, 1000000000);
		counter(p, run, "cpu-cycles", true, 3000000000, 1000000000);
		counter(p, run, "instructions", true, 6000000000, 1000000000);
		counter(p, run, "cache-references", true, 1000000, 1000000000);
		counter(p, run, "cache-misses", true, 250000, 1000000000);
		counter(p, run, "page-faults", true, 5000, 500000000);
		counter(p, run, "branch-misses", true, 7, 0);
		counter(p, run, "L1-icache-loads", false, 0, 0);
	}
	return p;
}

static const char *line_with(const char *text, const char *what, char *buf, size_t size)
{
	const char *at = text ? strstr(text, what) : NULL, *start, *end;

	if (!at)
		return "";
	for (start = at; start > text && start[-1] != '\n'; start--)
		;
	end = strchr(at, '\n');
	snprintf(buf, size, "%.*s", (int)((end ? end : at + strlen(at)) - start), start);
	return buf;
}

static void test_one_run(void)
{
	struct profile *p = made(1);
	struct outbuf b = { 0 };
	char l[512];

	stattable__write(&b, p, "'w'", 1);
	ok(b.s && !strncmp(b.s, "\n Performance counter stats for 'w':\n\n", 38), "the heading, one run");
	is_str(line_with(b.s, "task-clock", l, sizeof(l)),
	       "           1000.00 msec task-clock                       #    0.500 CPUs utilized",
	       "a clock in msec, CPUs utilized over the elapsed time");
	is_str(line_with(b.s, "instructions", l, sizeof(l)),
	       "        6000000000      instructions                     #     2.00 insn per cycle",
	       "instructions per cycle");
	is_str(line_with(b.s, "cpu-cycles", l, sizeof(l)),
	       "        3000000000      cpu-cycles                       #    3.000 GHz", "GHz of task-clock");
	is_str(line_with(b.s, "cache-misses", l, sizeof(l)),
	       "            250000      cache-misses                     #   25.00% of all cache-references",
	       "misses as a share of their references");
	is_str(line_with(b.s, "page-faults", l, sizeof(l)),
	       "             10000      page-faults                      #   10.000 K/sec                      (scaled from 50.00%)",
	       "a multiplexed counter scaled, its rate per second of task-clock");
	is_str(line_with(b.s, "branch-misses", l, sizeof(l)), "     <not counted>      branch-misses",
	       "never on the PMU: not counted");
	is_str(line_with(b.s, "L1-icache-loads", l, sizeof(l)), "",
	       "a counter this machine lacks, not one perf stat shows by default: left out");
	ok(strstr(b.s, "\n       2.000000000 seconds time elapsed\n\n       1.500000000 seconds user\n"
		  "       0.250000000 seconds sys\n\n"), "one run: the times to the nanosecond");
	ok(!strstr(b.s, "+-"), "one run: no +-");
	outbuf__release(&b);
	profile__set_meta(p, "counters_asked", "L1-icache-loads,task-clock");
	stattable__write(&b, p, "'w'", 1);
	is_str(line_with(b.s, "L1-icache-loads", l, sizeof(l)), "   <not supported>      L1-icache-loads",
	       "a counter this machine lacks, asked for with -e: shown");
	outbuf__release(&b);
	profile__free(p);
}

static void test_runs(void)
{
	struct profile *p = made(3);
	struct outbuf b = { 0 };
	char l[512];

	stattable__write(&b, p, "'w'", 3);
	ok(b.s && strstr(b.s, " Performance counter stats for 'w' (3 runs):"), "the heading names the runs");
	ok(strstr(line_with(b.s, "task-clock", l, sizeof(l)), "( +-  0.57% )"),
	   "the standard error of the mean, relative: %s", l);
	ok(strstr(line_with(b.s, "instructions", l, sizeof(l)), "( +-  0.00% )"), "runs alike: 0.00 %%");
	ok(strstr(b.s, "\n            2.1000 +- 0.0577 seconds time elapsed  ( +-  2.75% )\n"),
	   "the footer's +- to two digits of its error: %s", line_with(b.s, "elapsed", l, sizeof(l)));
	outbuf__release(&b);
	profile__free(p);
}

static void test_intervals(void)
{
	struct profile *p = profile__new();
	struct stattable_intervals s = { 0 };
	struct outbuf b = { 0 };
	struct counter_interval ci = { .name = profile__intern(p, "page-faults"), .t_ns = 1001234567,
				       .value = 12345, .enabled = 1000000000, .running = 1000000000 };
	const char *head = "#           time             counts unit events\n";

	profile__add_interval(p, &ci);
	stattable__interval(&b, &s, p, 0);
	ci.t_ns = 2001234567;
	profile__add_interval(p, &ci);
	stattable__interval(&b, &s, p, 1);
	ok(b.s && !strncmp(b.s, head, strlen(head)) && !strstr(b.s + 1, head), "the header once per run");
	ok(strstr(b.s, "     1.001234567              12345      page-faults                      #   12.330 K/sec\n"),
	   "a reading, its rate over the interval's length");
	ok(strstr(b.s, "     2.001234567              12345      page-faults                      #   12.345 K/sec\n"),
	   "the next over its own interval");
	outbuf__release(&b);
	profile__free(p);
}

int main(void)
{
	test_one_run();
	test_runs();
	test_intervals();
	return done_testing();
}
