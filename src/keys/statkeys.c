/*
 * statkeys: the keys of a run that do not come from samples, as the
 * robot's perf-stat and time parsers make them: perf-stat.* from the run's
 * counters (totals, per second, per interval, derived ratios) and the
 * workload's own <name>.<metric> and <name>.time.* keys.  See
 * include/mmprof/keys.h.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mmprof/keykind.h"
#include "mmprof/keys.h"
#include "mmprof/xalloc.h"
#include "keys-int.h"

/*
 * perf-stat: counters of the run (scaled) and their intervals.  perf stat
 * prints clocks in msec, so the robot's cpu-clock/task-clock keys are msec.
 */
/*
 * Counter names of one run (or interval) and their summed values, in the
 * order first seen: a keymap (keys-int.h), found by a hash of the name: a
 * file may hold any number of distinct names (a linear search took 1.55 s
 * for 40,000).
 */
static double unit_scale(const char *name)
{
	return !strcmp(name, "cpu-clock") || !strcmp(name, "task-clock") ? 1e-6 : 1.0;
}

static double cycles_of(const struct keymap *s)
{
	double c = keymap__get(s, "cpu-cycles");

	return c ? c : keymap__get(s, "cycles");
}

/*
 * The robot's derived keys (calc_addon_keys): for every X-misses a miss
 * rate over Xs+misses, X-references or X-instructions (first that is
 * non-zero); cycles-between-cache-misses, MPKI, instructions-per-iTLB-miss,
 * ipc and cpi.  emit() receives each "<prefix><name>".
 */
static void derived_keys(const struct keymap *s, const char *prefix, struct keymap *m,
			 double weight)
{
	double instructions = keymap__get(s, "instructions");
	double cycles = cycles_of(s);
	char key[512];
	size_t i;

	for (i = 0; i < keymap__nr(s); i++) {
		const char *name = keymap__key(s, i);
		size_t len = strlen(name);
		static const char *const denoms[] = { "s", "-references", "-instructions" };
		double misses = s->vals[i];
		size_t d;

		if (len <= 7 || strcmp(name + len - 7, "-misses"))
			continue;
		for (d = 0; d < 3; d++) {
			char other[256];
			double a;

			snprintf(other, sizeof(other), "%.*s%s", (int)(len - 7), name, denoms[d]);
			a = keymap__get(s, other);
			if (!a)
				continue;
			snprintf(key, sizeof(key), "%s%.*s-miss-rate%%", prefix, (int)(len - 7), name);
			keymap__add(m, key, weight * 100.0 * misses / (d == 0 ? a + misses : a));
			break;
		}
		if (!misses)
			continue;
		if (!strcmp(name, "iTLB-load-misses") && instructions) {
			snprintf(key, sizeof(key), "%sinstructions-per-iTLB-miss", prefix);
			keymap__add(m, key, weight * instructions / misses);
		}
		if (!strcmp(name, "cache-misses")) {
			if (cycles) {
				snprintf(key, sizeof(key), "%scycles-between-cache-misses", prefix);
				keymap__add(m, key, weight * cycles / misses);
			}
			if (instructions) {
				snprintf(key, sizeof(key), "%sMPKI", prefix);
				keymap__add(m, key, weight * misses / instructions * 1000);
			}
		}
	}
	if (cycles && instructions) {
		snprintf(key, sizeof(key), "%sipc", prefix);
		keymap__add(m, key, weight * instructions / cycles);
		snprintf(key, sizeof(key), "%scpi", prefix);
		keymap__add(m, key, weight * cycles / instructions);
	}
}

static bool counter_usable(const struct counter *c)
{
	/* not supported, or enabled but never scheduled: no honest value */
	return c->supported && !(c->running == 0 && c->enabled > 0);
}

/* Rows whose uint32_t run is at run_of + i * stride, grouped by run: a
 * stable counting sort, rows of runs that do not exist left out. */
static void group(size_t nr_runs, size_t nr, const uint32_t *run_of, size_t stride,
		  size_t **start, uint32_t **idx)
{
	size_t i, r;

	*start = xcalloc(nr_runs + 2, sizeof(**start));
	*idx = xmalloc((nr + 1) * sizeof(**idx));
	for (i = 0; i < nr; i++) {
		uint32_t run = *(const uint32_t *)((const char *)run_of + i * stride);

		if (run < nr_runs)
			(*start)[run + 2]++;
	}
	for (r = 0; r < nr_runs; r++)
		(*start)[r + 2] += (*start)[r + 1];
	for (i = 0; i < nr; i++) {
		uint32_t run = *(const uint32_t *)((const char *)run_of + i * stride);

		if (run < nr_runs)
			(*idx)[(*start)[run + 1]++] = (uint32_t)i;
	}
}

void statrows__build(struct statrows *s, const struct profile *p)
{
	static const uint32_t none;

	group(p->nr_runs, p->nr_counters, p->nr_counters ? &p->counters[0].run : &none,
	      sizeof(*p->counters), &s->start[STATROWS_COUNTERS], &s->idx[STATROWS_COUNTERS]);
	group(p->nr_runs, p->nr_intervals, p->nr_intervals ? &p->intervals[0].run : &none,
	      sizeof(*p->intervals), &s->start[STATROWS_INTERVALS], &s->idx[STATROWS_INTERVALS]);
	group(p->nr_runs, p->nr_metrics, p->nr_metrics ? &p->metrics[0].run : &none,
	      sizeof(*p->metrics), &s->start[STATROWS_METRICS], &s->idx[STATROWS_METRICS]);
	s->blocked = xcalloc(p->strs.nr + 1, 1);
	keys__workload_name(p, s->name, sizeof(s->name));
	s->built = true;
}

void statrows__release(struct statrows *s)
{
	int t;

	for (t = 0; t < STATROWS_NR; t++) {
		free(s->start[t]);
		free(s->idx[t]);
	}
	free(s->blocked);
	memset(s, 0, sizeof(*s));
}

static int interval_cmp(const void *a, const void *b)
{
	const struct counter_interval *x = *(const struct counter_interval *const *)a;
	const struct counter_interval *y = *(const struct counter_interval *const *)b;

	if (x->t_ns != y->t_ns)
		return x->t_ns < y->t_ns ? -1 : 1;
	return x->name < y->name ? -1 : x->name > y->name;
}

/*
 * The run's interval readings of usable counters, sorted by time, the
 * last reading (the run's partial tail) dropped unless it is the only
 * one; *last_ns is that dropped reading's time (0: none dropped).  NULL
 * when there are none; the caller frees.
 */
static const struct counter_interval **complete_intervals(const struct profile *p,
							   const struct statrows *rows,
							   uint32_t run, const uint8_t *blocked,
							   size_t *nr, uint64_t *last_ns)
{
	const size_t *start = rows->start[STATROWS_INTERVALS];
	const uint32_t *idx = rows->idx[STATROWS_INTERVALS];
	const struct counter_interval **iv = NULL;
	size_t n = 0, alloc = 0, i;

	*last_ns = 0;
	for (i = start[run]; i < start[run + 1]; i++) {
		const struct counter_interval *ci = &p->intervals[idx[i]];

		if (ci->name >= p->strs.nr || blocked[ci->name] ||
		    !profile__str(p, ci->name))
			continue;
		XGROW(iv, alloc, n);
		iv[n++] = ci;
	}
	if (n) {
		qsort(iv, n, sizeof(*iv), interval_cmp);
		if (iv[0]->t_ns != iv[n - 1]->t_ns) {
			*last_ns = iv[n - 1]->t_ns;
			while (iv[n - 1]->t_ns == *last_ns)
				n--;
		}
	}
	*nr = n;
	return iv;
}

/*
 * An interval reading's value, scaled for multiplexing; false when it was
 * multiplexed out for the whole interval (unknown, not 0).  The robot
 * reads perf's "<not counted>" as 0 (Ruby's to_f): robot counts it so.
 */
static bool interval_value(const struct counter_interval *ci, bool robot, double *v)
{
	*v = (double)ci->value;
	if (!ci->running && ci->enabled) {
		*v = 0;
		return robot;
	}
	if (ci->running && ci->running != ci->enabled)
		*v *= (double)ci->enabled / (double)ci->running;
	return true;
}

/*
 * perf-stat.i.*: each interval gives per-second rates and its own derived
 * ratios; a key's value is the mean over the intervals where it exists.
 * An interval's length is its own: t_ns minus the previous reading's t_ns.
 * The last reading of a run is taken when the run ends, between two ticks:
 * its interval is a fraction of -I (often a few ms) and its rates are
 * noise (a 10 ms tail of process exit gave 3x the mean page-fault rate),
 * yet an unweighted mean gives it the weight of a full second.  The robot's
 * parser never uses the last interval of perf stat -I, so perf-stat.i.*
 * leaves it out too, as long as another interval remains (a run shorter
 * than -I has only that one, and it covers the whole run).  The robot also
 * leaves it out of the sums behind ps.* and overall.* yet divides ps.* by
 * the whole run time, so its ps.* run a little low; mmprof's ps.* and
 * overall.* use the exact totals of the run (robot_totals gives the
 * robot's).
 *
 * robot: the robot's mean instead, which divides a key's sum by the
 * number of intervals, those it was missing from counted as 0: its stats
 * value of a monitor's list is `v.sum(0.0) / stats_part_len`, the length
 * being the monitor's longest list, one entry per interval (lib/matrix.rb,
 * unite-stats), and dump-stat pads the gaps with 0 ("fill 0 for missing
 * values").
 */
static void interval_keys(const struct profile *p, const struct statrows *rows, uint32_t run,
			  const uint8_t *blocked, bool robot, struct keymap *m)
{
	const struct counter_interval **iv;
	struct keymap per_key = { 0 };	/* key -> intervals it counts over */
	struct keymap sums = { 0 };
	size_t n = 0, i, j, nth = 0;
	uint64_t prev_t = 0, last_ns;

	iv = complete_intervals(p, rows, run, blocked, &n, &last_ns);
	for (i = 0; i < n; i = j, nth++) {
		struct keymap s = { 0 };
		struct keymap one = { 0 };
		double secs = (double)(iv[i]->t_ns - prev_t) / 1e9;
		size_t k;

		for (j = i; j < n && iv[j]->t_ns == iv[i]->t_ns; j++) {
			const char *name = profile__str(p, iv[j]->name);
			double v;

			if (interval_value(iv[j], robot, &v))
				keymap__add(&s, name, v * unit_scale(name));
		}
		prev_t = iv[i]->t_ns;
		if (secs <= 0) {
			keymap__release(&s);
			continue;
		}
		for (k = 0; k < keymap__nr(&s); k++) {
			char key[512];

			snprintf(key, sizeof(key), "perf-stat.i.%s", keymap__key(&s, k));
			keymap__add(&one, key, s.vals[k] / secs);
		}
		derived_keys(&s, "perf-stat.i.", &one, 1.0);
		for (k = 0; k < keymap__nr(&one); k++) {
			keymap__add(&sums, keymap__key(&one, k), one.vals[k]);
			keymap__add(&per_key, keymap__key(&one, k), 1.0);
		}
		keymap__release(&one);
		keymap__release(&s);
	}
	/* sums and per_key were filled in the same order */
	for (i = 0; i < keymap__nr(&sums); i++)
		keymap__add(m, keymap__key(&sums, i),
			    sums.vals[i] / (robot ? (double)nth : per_key.vals[i]));
	keymap__release(&sums);
	keymap__release(&per_key);
	free(iv);
}

/*
 * The robot's totals (programs/perf-stat/parse): the sums of the complete
 * intervals, the last reading left out ("skip the last record, because
 * the interval hasn't run out"), and its run time, the time of the last
 * reading ($run_time = prev_time - begin): the run's whole time.  false
 * without two readings: the robot then has no sums (a run shorter than
 * -I) and mmprof's totals stand.
 */
static bool robot_totals(const struct profile *p, const struct statrows *rows, uint32_t run,
			 const uint8_t *blocked, struct keymap *s, double *secs)
{
	const struct counter_interval **iv;
	size_t n = 0, i;
	uint64_t last_ns;

	iv = complete_intervals(p, rows, run, blocked, &n, &last_ns);
	if (!last_ns) {
		free(iv);
		return false;
	}
	for (i = 0; i < n; i++) {
		const char *name = profile__str(p, iv[i]->name);
		double v;

		if (interval_value(iv[i], true, &v))
			keymap__add(s, name, v * unit_scale(name));
	}
	*secs = (double)last_ns / 1e9;
	free(iv);
	return true;
}

void keys__perf_stat(const struct profile *p, struct statrows *rows, uint32_t run,
		     bool robot, struct keymap *m)
{
	const size_t *start = rows->start[STATROWS_COUNTERS];
	const uint32_t *idx = rows->idx[STATROWS_COUNTERS];
	uint8_t *blocked = rows->blocked;	/* by name id: unsupported; cleared on return */
	double secs = (double)p->runs[run].wall_ns / 1e9;
	struct keymap s = { 0 }, rs = { 0 };
	struct keymap out = { 0 };
	char key[512];
	double instructions;
	size_t i;

	for (i = start[run]; i < start[run + 1]; i++) {
		const struct counter *c = &p->counters[idx[i]];
		const char *name = profile__str(p, c->name);

		if (!name)
			continue;
		if (!counter_usable(c)) {
			blocked[c->name] = 1;
			continue;
		}
		keymap__add(&s, name, counter__scaled(c) * unit_scale(name));
		/*
		 * Multiplexed: the value is extrapolated from the share of the
		 * run the counter was on the PMU.  Say how much was estimated,
		 * 100 * (1 - running/enabled); absent means counted throughout,
		 * which is what diff's "missing is 0" reads it as.
		 */
		if (c->running < c->enabled) {
			snprintf(key, sizeof(key), "perf-stat.scaled.%s%%", name);
			keymap__add(&out, key, 100.0 * (double)(c->enabled - c->running) /
					       (double)c->enabled);
		}
	}
	if (robot && robot_totals(p, rows, run, blocked, &rs, &secs)) {
		keymap__release(&s);
		s = rs;
	}
	if (secs > 0) {
		for (i = 0; i < keymap__nr(&s); i++) {
			snprintf(key, sizeof(key), "perf-stat.ps.%s", keymap__key(&s, i));
			keymap__add(&out, key, s.vals[i] / secs);
		}
	}
	instructions = keymap__get(&s, "instructions");
	if (instructions)
		keymap__add(&out, "perf-stat.total.instructions", instructions);
	derived_keys(&s, "perf-stat.overall.", &out, 1.0);
	interval_keys(p, rows, run, blocked, robot, &out);
	keymap__release(&s);
	for (i = start[run]; i < start[run + 1]; i++)
		blocked[p->counters[idx[i]].name] = 0;
	/*
	 * The robot never sees a perf-stat key that is 0: dump-stat drops a
	 * stat that is 0 in every record (sbin/dump-stat, zero_stats), so a
	 * 0 here (no major faults, an unsupported event's 0) is no key.
	 */
	for (i = 0; i < keymap__nr(&out); i++)
		if (out.vals[i] != 0)
			keymap__add(m, keymap__key(&out, i), out.vals[i]);
	keymap__release(&out);
}

/* basename of the first word of s into buf */
static void first_word_base(const char *s, char *buf, size_t size)
{
	size_t len;
	const char *slash;

	while (*s == ' ' || *s == '\'')
		s++;
	len = strcspn(s, " '");
	slash = memrchr(s, '/', len);
	if (slash) {
		len -= (size_t)(slash + 1 - s);
		s = slash + 1;
	}
	snprintf(buf, size, "%.*s", (int)len, s);
}

void keys__workload_name(const struct profile *p, char *buf, size_t size)
{
	const char *s = profile__meta(p, "workload");
	const char *dd;
	size_t i;

	if (s && *s) {
		first_word_base(s, buf, size);
		return;
	}
	/* the benchmark's own metrics are "<name>.<metric>"; record's own
	 * families (--sched, tracepoint statistics, mm state) are not the benchmark */
	for (i = 0; i < p->nr_metrics; i++) {
		const char *k = profile__str(p, p->metrics[i].key);
		const char *dot = k ? strchr(k, '.') : NULL;

		if (p->metrics[i].run != p->metrics[0].run)
			break;
		if (!dot || dot == k || keykind__under(k, KEYFAM_RECORDER))
			continue;
		snprintf(buf, size, "%.*s", (int)(dot - k), k);
		return;
	}
	s = profile__meta(p, "cmdline");
	if (!s)
		s = profile__meta(p, "command");
	if (s && *s) {
		dd = strstr(s, " -- ");
		first_word_base(dd ? dd + 4 : s, buf, size);
		if (*buf)
			return;
	}
	snprintf(buf, size, "workload");
}

void keys__workload(const struct profile *p, const struct statrows *rows, uint32_t run,
		    struct keymap *m)
{
	const size_t *start = rows->start[STATROWS_METRICS];
	const uint32_t *idx = rows->idx[STATROWS_METRICS];
	const struct run *r = &p->runs[run];
	double wall = (double)r->wall_ns / 1e9;
	char key[512];
	size_t i;
	struct {
		const char *field;
		double value;
	} t[] = {
		{ "user_time", (double)r->utime_us / 1e6 },
		{ "system_time", (double)r->stime_us / 1e6 },
		{ "percent_of_cpu_this_job_got",
		  wall > 0 ? 100.0 * (double)(r->utime_us + r->stime_us) / 1e6 / wall : 0 },
		{ "elapsed_time", wall },
		{ "maximum_resident_set_size", (double)r->maxrss_kb },
		{ "minor_page_faults", (double)r->minflt },
		{ "major_page_faults", (double)r->majflt },
		{ "voluntary_context_switches", (double)r->nvcsw },
		{ "involuntary_context_switches", (double)r->nivcsw },
	};

	for (i = start[run]; i < start[run + 1]; i++) {
		const struct metric *mt = &p->metrics[idx[i]];
		const char *k = profile__str(p, mt->key);
		static const char old_count[] = "perf-sched.wait_and_delay.count.ms.";

		if (!k)
			continue;
		/*
		 * Files of mmprof 2026-11 say "wait_and_delay.count.ms.<stack>";
		 * the robot (lkp-tests programs/perf-sched/parse line 45, and
		 * record now) says "wait_and_delay.count.<stack>".  Renamed here
		 * so that diff pairs an old file's keys with a new one's.
		 */
		if (!strncmp(k, old_count, sizeof(old_count) - 1)) {
			size_t len = strlen(k);
			char *renamed = xmalloc(len);

			snprintf(renamed, len, "perf-sched.wait_and_delay.count.%s",
				 k + sizeof(old_count) - 1);
			keymap__add(m, renamed, mt->value);
			free(renamed);
			continue;
		}
		keymap__add(m, k, mt->value);
	}
	/* only a forked workload has rusage (attach and -a runs do not) */
	if (!(r->utime_us || r->stime_us || r->maxrss_kb))
		return;
	for (i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		/* dump-stat drops a stat that is 0 (major_page_faults mostly) */
		if (t[i].value == 0)
			continue;
		snprintf(key, sizeof(key), "%s.time.%s", rows->name, t[i].field);
		keymap__add(m, key, t[i].value);
	}
}
