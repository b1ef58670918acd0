/*
 * stattable: `mmprof stat`'s output, in `perf stat`'s layout: the table of
 * each counter's mean over the runs with perf's comments ("# 0.73 insn per
 * cycle", "# 1.234 K/sec"), "<not supported>" for counters this machine
 * lacks (those perf stat would show: its default hardware events, or
 * -e's), "(scaled from NN%)" for multiplexed ones and, with several runs,
 * perf's "( +- N% )" (the standard error of the mean relative to the
 * mean), then the elapsed, user and system times; and with -I each
 * reading as it is taken.  See include/mmprof/stattable.h.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mmprof/stats.h"
#include "mmprof/stattable.h"
#include "mmprof/xalloc.h"

/*
 * Mean and perf's "+-": the standard error of the mean, relative (%).  The
 * values are kept (one per run) for stats__mean_sd's two passes.
 */
struct avg {
	double *v;
	size_t n, alloc;
};

static void avg__add(struct avg *a, double v)
{
	XGROW(a->v, a->alloc, a->n);
	a->v[a->n++] = v;
}

static void avg__release(struct avg *a)
{
	free(a->v);
	memset(a, 0, sizeof(*a));
}

static double avg__mean(const struct avg *a)
{
	struct stat_summary s;

	stats__mean_sd(a->v, a->n, &s);
	return s.mean;
}

static double avg__rel_err(const struct avg *a)
{
	struct stat_summary s;

	stats__mean_sd(a->v, a->n, &s);
	if (s.n < 2 || s.mean == 0)
		return 0;
	return 100.0 * sqrt(s.var1 / (double)s.n) / fabs(s.mean);
}

/*
 * Decimals for a mean and its error, as perf stat's footer: two digits past
 * the error's first significant one ("0.003306 +- 0.000683"), none when the
 * error is above 1 s.  An error of 0 (runs alike to the nanosecond, or
 * rusage's microsecond ticks all equal) keeps the clock's 9 digits.
 */
static int sd_precision(double sd)
{
	int p;

	if (sd > 1)
		return 0;
	if (!(sd > 0))
		return 9;
	p = (int)lround(ceil(-log10(sd))) + 2;
	return p > 9 ? 9 : p;
}

/* One counter name over all runs. */
struct stat_row {
	const char *name;	/* owned by the profile */
	bool supported, counted;	/* counted: on the PMU at least once */
	struct avg val;		/* scaled value; clocks in msec */
	double enabled, running;
};

static bool is_clock(const char *name)
{
	return !strncmp(name, "task-clock", 10) || !strncmp(name, "cpu-clock", 9);
}

static const struct stat_row *find_row(const struct stat_row *rows, size_t nr, const char *name)
{
	size_t i, len = strlen(name);

	for (i = 0; i < nr; i++)
		if (!strncmp(rows[i].name, name, len) &&
		    (rows[i].name[len] == '\0' || rows[i].name[len] == ':'))
			return rows[i].counted ? &rows[i] : NULL;
	return NULL;
}

/* "# <ratio> <what>" as perf stat prints beside a counter, or "" */
static void comment(const struct stat_row *rows, size_t nr, const struct stat_row *r,
		    double elapsed_s, char *buf, size_t size)
{
	static const char *const denoms[] = { "s", "-references", "-instructions" };
	const struct stat_row *task = find_row(rows, nr, "task-clock");
	const struct stat_row *cyc = find_row(rows, nr, "cpu-cycles");
	const char *name = r->name;
	size_t len = strcspn(name, ":");
	double v = avg__mean(&r->val), secs;

	buf[0] = '\0';
	if (is_clock(name)) {
		if (elapsed_s > 0)
			snprintf(buf, size, "# %8.3f %-25s", v / 1e3 / elapsed_s, "CPUs utilized");
		return;
	}
	if (!strncmp(name, "instructions", len) && len == 12) {
		if (cyc && avg__mean(&cyc->val) > 0)
			snprintf(buf, size, "# %8.2f %-25s", v / avg__mean(&cyc->val), "insn per cycle");
		return;
	}
	if (!strncmp(name, "cpu-cycles", len) && len == 10) {
		if (task && avg__mean(&task->val) > 0)
			snprintf(buf, size, "# %8.3f %-25s", v / (avg__mean(&task->val) * 1e6), "GHz");
		return;
	}
	if (len > 7 && !strncmp(name + len - 7, "-misses", 7)) {
		size_t d;

		for (d = 0; d < 3; d++) {
			char other[128];
			const struct stat_row *o;

			snprintf(other, sizeof(other), "%.*s%s", (int)(len - 7), name, denoms[d]);
			o = find_row(rows, nr, other);
			if (o && avg__mean(&o->val) > 0) {
				char what[160];

				snprintf(what, sizeof(what), "of all %.100s", other);
				snprintf(buf, size, "# %7.2f%% %-25s", 100.0 * v / avg__mean(&o->val), what);
				return;
			}
		}
	}
	/* rates per second of task-clock, as perf does; else of elapsed time */
	secs = task && avg__mean(&task->val) > 0 ? avg__mean(&task->val) / 1e3 : elapsed_s;
	if (secs > 0) {
		double rate = v / secs;
		const char *unit = "/sec";

		if (rate >= 1e9) {
			rate /= 1e9;
			unit = "G/sec";
		} else if (rate >= 1e6) {
			rate /= 1e6;
			unit = "M/sec";
		} else if (rate >= 1e3) {
			rate /= 1e3;
			unit = "K/sec";
		}
		snprintf(buf, size, "# %8.3f %-25s", rate, unit);
	}
}

/*
 * Is a counter this machine lacks printed "<not supported>"?  As perf
 * stat: only perf's own default hardware events (cycles, instructions,
 * branches, branch-misses), unless -e asked for the counters, when each
 * asked is.  Without a PMU mmprof's default set (the robot's) has 16
 * hardware events: perf prints 4 lines, so does this.
 */
static bool unsupported_shown(const struct profile *p, const char *name)
{
	static const char *const perf_default[] = {
		"cpu-cycles", "cycles", "instructions", "branch-instructions", "branches", "branch-misses",
	};
	const char *asked = profile__meta(p, "counters_asked");
	size_t i;

	if (asked && strcmp(asked, "default"))
		return true;
	for (i = 0; i < sizeof(perf_default) / sizeof(perf_default[0]); i++)
		if (!strcmp(name, perf_default[i]))
			return true;
	return false;
}

/*
 * One counter line, as perf stat prints it: prefix (the time of
 * an interval, or ""), value (clocks in msec), name, comment, and with
 * several runs or multiplexing their notes.
 */
static void print_row(struct outbuf *b, const struct stat_row *rows, size_t nr,
		      const struct stat_row *r, const char *prefix, double elapsed_s, unsigned nr_runs)
{
	char value[64], note[512], line[1024];
	int n;

	if (!r->supported || !r->counted) {
		outbuf__printf(b, "%s%18s      %s\n", prefix,
			r->supported ? "<not counted>" : "<not supported>", r->name);
		return;
	}
	if (is_clock(r->name))
		snprintf(value, sizeof(value), "%18.2f msec", avg__mean(&r->val));
	else
		snprintf(value, sizeof(value), "%18.0f     ", avg__mean(&r->val));
	comment(rows, nr, r, elapsed_s, note, sizeof(note));
	n = snprintf(line, sizeof(line), "%s%s %-32s %s", prefix, value, r->name, note);
	if (nr_runs > 1 && n > 0 && (size_t)n < sizeof(line))
		n += snprintf(line + n, sizeof(line) - (size_t)n, "( +- %5.2f%% )",
			      avg__rel_err(&r->val));
	if (r->running < r->enabled && n > 0 && (size_t)n < sizeof(line))
		snprintf(line + n, sizeof(line) - (size_t)n, "  (scaled from %.2f%%)",
			 100.0 * r->running / r->enabled);
	/* trailing blanks of an empty comment are noise */
	for (n = (int)strlen(line); n > 0 && line[n - 1] == ' '; n--)
		line[n - 1] = '\0';
	outbuf__printf(b, "%s\n", line);
}

void stattable__interval(struct outbuf *b, struct stattable_intervals *ip, const struct profile *p,
			 size_t first)
{
	struct stat_row *rows;
	size_t nr = 0, i;
	uint64_t t_ns = p->intervals[first].t_ns;
	char prefix[32];

	rows = xcalloc(p->nr_intervals - first, sizeof(*rows));
	for (i = first; i < p->nr_intervals; i++) {
		const struct counter_interval *ci = &p->intervals[i];
		struct stat_row *r = &rows[nr++];
		const char *name = profile__str(p, ci->name);
		double v = (double)ci->value;

		r->name = name ? name : "?";
		r->supported = true;	/* only supported counters have intervals */
		r->enabled = (double)ci->enabled;
		r->running = (double)ci->running;
		if (ci->running == 0 && ci->enabled > 0)
			continue;
		r->counted = true;
		if (ci->running < ci->enabled)
			v = v * (double)ci->enabled / (double)ci->running;
		avg__add(&r->val, v / (is_clock(r->name) ? 1e6 : 1));
	}
	if (!ip->header_done)
		outbuf__printf(b, "#           time             counts unit events\n");
	ip->header_done = true;
	snprintf(prefix, sizeof(prefix), "%6llu.%09llu ", (unsigned long long)(t_ns / 1000000000),
		 (unsigned long long)(t_ns % 1000000000));
	for (i = 0; i < nr; i++)
		if (rows[i].supported || unsupported_shown(p, rows[i].name))
			print_row(b, rows, nr, &rows[i], prefix,
				  t_ns > ip->last_t_ns ? (double)(t_ns - ip->last_t_ns) / 1e9 : 0, 1);
	ip->last_t_ns = t_ns;
	for (i = 0; i < nr; i++)
		avg__release(&rows[i].val);
	free(rows);
}

void stattable__write(struct outbuf *b, const struct profile *p, const char *what, unsigned nr_runs)
{
	struct stat_row *rows = NULL;
	size_t nr = 0, alloc = 0, i, k;
	struct avg elapsed = { 0 }, user = { 0 }, sys = { 0 };
	uint32_t run;
	bool forked = false;

	for (i = 0; i < p->nr_counters; i++) {
		const struct counter *c = &p->counters[i];
		const char *name = profile__str(p, c->name);
		struct stat_row *r = NULL;

		if (!name)
			continue;
		for (k = 0; k < nr; k++)
			if (!strcmp(rows[k].name, name))
				r = &rows[k];
		if (!r) {
			XGROW(rows, alloc, nr);
			r = &rows[nr++];
			memset(r, 0, sizeof(*r));
			r->name = name;
		}
		if (!c->supported)
			continue;
		r->supported = true;
		r->enabled += (double)c->enabled;
		r->running += (double)c->running;
		if (c->running == 0 && c->enabled > 0)
			continue;
		r->counted = true;
		avg__add(&r->val, counter__scaled(c) / (is_clock(name) ? 1e6 : 1));
	}
	for (run = 0; run < p->nr_runs; run++) {
		const struct run *r = &p->runs[run];

		avg__add(&elapsed, (double)r->wall_ns / 1e9);
		avg__add(&user, (double)r->utime_us / 1e6);
		avg__add(&sys, (double)r->stime_us / 1e6);
		forked |= r->exit_code >= 0 || r->term_signal;
	}

	outbuf__printf(b, "\n Performance counter stats for %s", what);
	if (nr_runs > 1)
		outbuf__printf(b, " (%u runs)", nr_runs);
	outbuf__printf(b, ":\n\n");
	for (i = 0; i < nr; i++)
		if (rows[i].supported || unsupported_shown(p, rows[i].name))
			print_row(b, rows, nr, &rows[i], "", avg__mean(&elapsed), nr_runs);
	outbuf__printf(b, "\n");
	if (nr_runs > 1) {
		double err = avg__rel_err(&elapsed);
		double sd = avg__mean(&elapsed) * err / 100;
		int prec = sd_precision(sd);

		outbuf__printf(b, "%18.*f +- %.*f seconds time elapsed  ( +- %5.2f%% )\n",
			prec, avg__mean(&elapsed), prec, sd, err);
		if (forked) {
			sd = avg__mean(&user) * avg__rel_err(&user) / 100;
			prec = sd_precision(sd);
			outbuf__printf(b, "\n%18.*f +- %.*f seconds user\n", prec, avg__mean(&user), prec, sd);
			sd = avg__mean(&sys) * avg__rel_err(&sys) / 100;
			prec = sd_precision(sd);
			outbuf__printf(b, "%18.*f +- %.*f seconds sys\n", prec, avg__mean(&sys), prec, sd);
		}
	} else {
		outbuf__printf(b, "%18.9f seconds time elapsed\n", avg__mean(&elapsed));
		if (forked)
			outbuf__printf(b, "\n%18.9f seconds user\n%18.9f seconds sys\n",
				avg__mean(&user), avg__mean(&sys));
	}
	outbuf__printf(b, "\n");
	for (i = 0; i < nr; i++)
		avg__release(&rows[i].val);
	free(rows);
	avg__release(&elapsed);
	avg__release(&user);
	avg__release(&sys);
}
