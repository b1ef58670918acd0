/*
 * robot: the kernel test robot's small-change rules, the last step of its
 * row filter (lkp-tests lib/stats.rb StatCompare#skip_small_change?, as
 * _get_changed_stats runs it with its default options): after the ranges
 * separate (stats__robot_changed), a row is shown only when
 *
 *   - the ratio of the medians is above 1.01, and above 1.05 unless the
 *     key is a "perf metric" (perf_metric?, lib/perf_metrics.rb);
 *   - reasonable_perf_change? (lib/stats.rb) holds: the first pattern of
 *     etc/perf-metrics-threshold.yaml the key matches sets a floor the
 *     larger maximum must reach (and, for an integer floor, half of it in
 *     Ruby's integer division that the difference of the medians must
 *     reach); keys no pattern matches meet the rules of its case
 *     statement for their family.
 *
 * Only the patterns and families that mmprof's keys can have are here
 * (perf-profile, proc-vmstat, meminfo, the workload's <name>.time.*);
 * Documentation/lkp-compat.md lists each rule with its source line.
 * Pure functions of the key and the robot's metrics: no state.
 */
#include <stdbool.h>
#include <string.h>

#include "mmprof/diff.h"
#include "mmprof/keykind.h"

#include "diff-int.h"

/*
 * Does s match pattern p, anchored at both ends, p in the regex subset
 * the threshold patterns use: '.' any byte, ".*" any run, "[..]" a set,
 * anything else itself.  Backtracks only at ".*" (at most two a pattern).
 */
static bool re_match(const char *p, const char *s)
{
	if (!*p)
		return !*s;
	if (p[0] == '.' && p[1] == '*') {
		do {
			if (re_match(p + 2, s))
				return true;
		} while (*s++);
		return false;
	}
	if (*p == '[') {
		const char *e = strchr(p, ']');

		return e && *s && memchr(p + 1, *s, (size_t)(e - p - 1)) && re_match(e + 1, s + 1);
	}
	return *s && (*p == '.' || *p == *s) && re_match(p + 1, s + 1);
}

/*
 * etc/perf-metrics-threshold.yaml's entries that can match mmprof's keys,
 * in the file's order (the first match decides).  integer: written
 * without a decimal point, so the half-floor on the difference applies.
 */
static const struct threshold {
	const char *pattern;
	double floor;
	bool integer;
} thresholds[] = {
	{ ".*.time.elapsed_time.*", 10, true },
	{ ".*.time.file_system_inputs", 10000, true },
	{ ".*.time.file_system_outputs", 10000, true },
	{ ".*.time.involuntary_context_switches", 1000, true },
	{ ".*.time.major_page_faults", 1000, true },
	{ ".*.time.minor_page_faults", 1000, true },
	{ ".*.time.socket_messages_received", 10000, true },
	{ ".*.time.socket_messages_sent", 10000, true },
	{ ".*.time.swaps", 1000, true },
	{ ".*.time.system_time", 10, true },
	{ ".*.time.user_time", 10, true },
	{ ".*.time.voluntary_context_switches", 1000, true },
	{ ".*vmstat.*nr_.*", 100, true },
	/* before the 2.00 of native_queued_spin_lock_slowpath, which it shadows */
	{ "perf-profile.*", 1, true },
	{ "proc-vmstat.allocstall", 100, true },
	{ "proc-vmstat.compact_fail", 100, true },
	{ "proc-vmstat.compact_stall", 100, true },
	{ "proc-vmstat.htlb_buddy_alloc_fail", 100, true },
	{ "proc-vmstat.kswapd_high_wmark_hit_quickly", 100, true },
	{ "proc-vmstat.kswapd_low_wmark_hit_quickly", 100, true },
	{ "proc-vmstat.nr_vmscan_immediate_reclaim", 100, true },
	{ "proc-vmstat.nr_vmscan_write", 100, true },
	{ "proc-vmstat.pgmigrate_fail", 100, true },
};

/* reasonable_perf_change? of lib/stats.rb for mmprof's key families. */
static bool reasonable_change(const char *key, const struct stat_robot *m)
{
	size_t i;

	for (i = 0; i < sizeof(thresholds) / sizeof(thresholds[0]); i++) {
		const struct threshold *t = &thresholds[i];

		if (!re_match(t->pattern, key))
			continue;
		if (m->max < t->floor)
			return false;
		/* Ruby's Integer / Integer: 1 / 2 is 0, so perf-profile's floor is on max alone */
		if (t->integer && m->delta < (double)((long long)t->floor / 2))
			return false;
		return true;
	}
	/* the case statement: proc-vmstat at the start, meminfo anywhere */
	if (!strncmp(key, "proc-vmstat", 11) || strstr(key, "meminfo"))
		return m->max > 1000;
	return true;
}

/*
 * perf_metric? (lib/perf_metrics.rb) for mmprof's keys: the prefixes of
 * etc/perf-metrics-prefixes mmprof has (perf-stat., proc-vmstat.), the
 * pattern ^(.*\.)?time..* of etc/perf-metrics-patterns, and, for the
 * robot's list of its benchmarks, the workload's own keys (the robot
 * knows its benchmarks by name; mmprof's workload is the benchmark).
 */
static bool perf_metric(const char *key)
{
	const char *c;

	if (keykind__under(key, KEYFAM_PERF_METRIC) || !keykind__is(key, KEYFAM_MONITOR))
		return true;
	for (c = key; (c = strstr(c, "time")); c++)
		if ((c == key || c[-1] == '.') && c[4])
			return true;
	return false;
}

bool diff__robot_small_change(const char *key, const struct stat_robot *m)
{
	/* time.elapsed_time only has 0.01 s precision, says the robot */
	if (!(m->ratio > 1.01))
		return true;
	if (!(m->ratio > 1.05 || perf_metric(key)))
		return true;
	return !reasonable_change(key, m);
}
