/*
 * cmd-stat: `mmprof stat`, counters only, printed the way `perf stat`
 * prints them.
 *
 * Each run goes through countrun (the perf-stat counting set, /proc/vmstat
 * around the run, the workload's status and rusage) into a scratch
 * profile, then copied into the file's profile.  With -e only the events
 * asked for are opened (and so stored and printed).  At the end the mean over runs of each
 * counter is printed with perf stat's comments ("# 0.73 insn per cycle",
 * "# 1.234 K/sec"), "<not supported>" for counters this machine lacks
 * (those perf stat would show: its default hardware events, or -e's),
 * "(scaled from NN%)" for multiplexed ones and, with -r, perf's "( +- N% )":
 * the standard error of the mean relative to the mean.  With -I each
 * reading is printed as it is taken, in perf stat -I's layout.  Like perf
 * stat the table goes to stderr, leaving stdout to the workload.
 *
 * Exit status: 0 when the runs were counted, 3 when they were (and -o
 * written) but the workload failed in one (as record), 2 on an error.
 */
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "mmprof/cmd.h"
#include "mmprof/counting.h"
#include "mmprof/countrun.h"
#include "mmprof/datafile.h"
#include "mmprof/mmstate.h"
#include "mmprof/options.h"
#include "mmprof/profile.h"
#include "mmprof/stats.h"
#include "mmprof/stopsig.h"
#include "mmprof/sysinfo.h"
#include "mmprof/target.h"
#include "mmprof/xalloc.h"

struct stat_opts {
	int repeat;
	struct strlist events;
	int interval_ms;
	int system_wide;
	const char *cpu_list;
	const char *pid_list;
	double duration;
	const char *output;
	struct target_spec target;	/* from the options (validate) */
};

/* perf's short names for events of the set */
static const struct {
	const char *alias, *name;
} aliases[] = {
	{ "cycles", "cpu-cycles" }, { "branches", "branch-instructions" },
	{ "faults", "page-faults" }, { "cs", "context-switches" },
	{ "migrations", "cpu-migrations" },
};

static const char *set_name(const char *ev)
{
	size_t i;

	for (i = 0; i < sizeof(aliases) / sizeof(aliases[0]); i++)
		if (!strcmp(ev, aliases[i].alias))
			ev = aliases[i].name;
	for (i = 0; i < counting_nr_events; i++)
		if (!strcmp(ev, counting_events[i].name))
			return counting_events[i].name;
	return NULL;
}

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
 * One counter line on stderr, as perf stat prints it: prefix (the time of
 * an interval, or ""), value (clocks in msec), name, comment, and with
 * several runs or multiplexing their notes.
 */
static void print_row(const struct stat_row *rows, size_t nr, const struct stat_row *r,
		      const char *prefix, double elapsed_s, unsigned nr_runs)
{
	char value[64], note[512], line[1024];
	int n;

	if (!r->supported || !r->counted) {
		fprintf(stderr, "%s%18s      %s\n", prefix,
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
	fprintf(stderr, "%s\n", line);
}

/* Where the interval printer is in the current run. */
struct interval_printer {
	uint64_t last_t_ns;	/* end of the previous interval of this run */
	bool header_done;
};

/*
 * countrun's on_interval: one block per reading, as `perf stat -I` prints
 * it ("     1.001234567              12345      page-faults  # ..."), the
 * header line once per run.  Rates are over the interval: its task-clock,
 * else its length.
 */
static void print_interval(void *ctx, const struct profile *p, size_t first)
{
	struct interval_printer *ip = ctx;
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
	fflush(stdout);		/* the workload's lines so far come first on a terminal */
	if (!ip->header_done)
		fprintf(stderr, "#           time             counts unit events\n");
	ip->header_done = true;
	snprintf(prefix, sizeof(prefix), "%6llu.%09llu ", (unsigned long long)(t_ns / 1000000000),
		 (unsigned long long)(t_ns % 1000000000));
	for (i = 0; i < nr; i++)
		if (rows[i].supported || unsupported_shown(p, rows[i].name))
			print_row(rows, nr, &rows[i], prefix,
				  t_ns > ip->last_t_ns ? (double)(t_ns - ip->last_t_ns) / 1e9 : 0, 1);
	ip->last_t_ns = t_ns;
	for (i = 0; i < nr; i++)
		avg__release(&rows[i].val);
	free(rows);
}

static void print_table(const struct profile *p, const char *what, unsigned nr_runs)
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

	fprintf(stderr, "\n Performance counter stats for %s", what);
	if (nr_runs > 1)
		fprintf(stderr, " (%u runs)", nr_runs);
	fprintf(stderr, ":\n\n");
	for (i = 0; i < nr; i++)
		if (rows[i].supported || unsupported_shown(p, rows[i].name))
			print_row(rows, nr, &rows[i], "", avg__mean(&elapsed), nr_runs);
	fprintf(stderr, "\n");
	if (nr_runs > 1) {
		double err = avg__rel_err(&elapsed);
		double sd = avg__mean(&elapsed) * err / 100;
		int prec = sd_precision(sd);

		fprintf(stderr, "%18.*f +- %.*f seconds time elapsed  ( +- %5.2f%% )\n",
			prec, avg__mean(&elapsed), prec, sd, err);
		if (forked) {
			sd = avg__mean(&user) * avg__rel_err(&user) / 100;
			prec = sd_precision(sd);
			fprintf(stderr, "\n%18.*f +- %.*f seconds user\n", prec, avg__mean(&user), prec, sd);
			sd = avg__mean(&sys) * avg__rel_err(&sys) / 100;
			prec = sd_precision(sd);
			fprintf(stderr, "%18.*f +- %.*f seconds sys\n", prec, avg__mean(&sys), prec, sd);
		}
	} else {
		fprintf(stderr, "%18.9f seconds time elapsed\n", avg__mean(&elapsed));
		if (forked)
			fprintf(stderr, "\n%18.9f seconds user\n%18.9f seconds sys\n",
				avg__mean(&user), avg__mean(&sys));
	}
	fprintf(stderr, "\n");
	for (i = 0; i < nr; i++)
		avg__release(&rows[i].val);
	free(rows);
	avg__release(&elapsed);
	avg__release(&user);
	avg__release(&sys);
}

static const char *const stat_usage[] = {
	"mmprof stat [options] -- CMD [ARGS]",
	"mmprof stat [options] -p PID[,PID...] [-- CMD [ARGS]]",
	"mmprof stat [options] -a [-C CPU-LIST] [-- CMD [ARGS]]",
	NULL,
};

static void add_meta(struct profile *p, const struct stat_opts *o, int argc, char **argv)
{
	char **full = xcalloc((size_t)argc + 2, sizeof(*full));
	char buf[1024];
	size_t i, n = 0;
	int k;

	full[0] = (char *)"mmprof";
	for (k = 0; k < argc; k++)
		full[k + 1] = argv[k];
	sysinfo__add_cmdline(p, argc + 1, full);
	free(full);
	profile__set_meta(p, "record_mode", target__mode_name(o->target.mode));
	profile__set_meta(p, "stat_only", "1");
	buf[0] = '\0';
	for (i = 0; i < o->events.nr && n < sizeof(buf); i++)
		n += (size_t)snprintf(buf + n, sizeof(buf) - n, "%s%s", i ? "," : "", o->events.items[i]);
	profile__set_meta(p, "counters_asked", o->events.nr ? buf : "default");
	snprintf(buf, sizeof(buf), "%d", o->interval_ms);
	profile__set_meta(p, "interval_ms", buf);
	if (o->target.mode == TARGET_PID)
		profile__set_meta(p, "target", o->pid_list);
	else if (o->target.mode == TARGET_SYSTEM)
		profile__set_meta(p, "target", o->cpu_list ? o->cpu_list : "all");
}

/* The checks options__parse cannot make, and -e's aliases: one line each, then exit 2. */
static int validate(struct stat_opts *o, int argc, int first)
{
	struct errmsg e = { "" };
	size_t i;

	if (target__check(first < argc, o->pid_list, o->system_wide, o->cpu_list, "count",
			  &o->target, &e) < 0) {
		fprintf(stderr, "mmprof stat: %s\n", e.msg);
		return -1;
	}
	o->cpu_list = o->target.cpu_list;	/* each CPU once (0-1,1 is 0-1) */
	if (o->repeat < 1 || o->repeat > 10000) {
		fprintf(stderr, "mmprof stat: invalid value '%d' for -r; expected 1 to 10000\n", o->repeat);
		return -1;
	}
	if (o->repeat != 1 && first >= argc) {
		fprintf(stderr, "mmprof stat: -r needs a command to repeat\n");
		return -1;
	}
	if (o->interval_ms < 0 || (o->interval_ms > 0 && o->interval_ms < 10)) {
		fprintf(stderr, "mmprof stat: invalid value '%d' for -I; expected 0 (off) or >= 10 ms\n",
			o->interval_ms);
		return -1;
	}
	/* it would be ignored: a command's end ends the count (-a -- CMD too) */
	if (o->duration > 0 && o->target.command) {
		fprintf(stderr, "mmprof stat: --duration goes with -p or -a without a command; "
			"with a command the count lasts as long as it runs\n");
		return -1;
	}
	if (!(o->duration >= 0 && o->duration < 1e7)) {
		fprintf(stderr, "mmprof stat: invalid --duration; expected seconds >= 0\n");
		return -1;
	}
	if (o->output && !o->output[0]) {
		fprintf(stderr, "mmprof stat: empty output file name\n");
		return -1;
	}
	for (i = 0; i < o->events.nr; i++) {
		const char *name = set_name(o->events.items[i]);

		if (!name) {
			fprintf(stderr, "mmprof stat: unknown counter '%s'; 'mmprof stat' counts the "
				"perf-stat set (see mmprof-stat(1)): task-clock, page-faults, cpu-cycles, ...\n",
				o->events.items[i]);
			return -1;
		}
		free(o->events.items[i]);
		o->events.items[i] = xstrdup(name);
	}
	return 0;
}

/*
 * The runs, each into a scratch profile copied into p (the selected
 * counters only), with the workload's status after each.  Stops before a
 * run once a signal came.  The number of runs whose workload failed (the
 * one a stop signal cut short is not), or -1 after printing the error.
 */
static int stat_runs(const struct countrun_opts *co, const struct stat_opts *o,
		     struct interval_printer *iprint, struct profile *p)
{
	struct errmsg e = { "" };
	char what[64];
	uint32_t run;
	int err, failed = 0;

	for (run = 0; run < (uint32_t)o->repeat && !stopsig_count; run++) {
		struct profile *one = profile__new();

		memset(iprint, 0, sizeof(*iprint));
		err = countrun__run(co, one, 0, &e);
		if (!err) {
			countrun__copy_run(p, one, run, &o->events);
			if (one->runs[0].term_signal)
				fprintf(stderr, "mmprof: workload killed by SIG%s in run %u\n",
					sigabbrev_np(one->runs[0].term_signal) ?
					sigabbrev_np(one->runs[0].term_signal) : "?", run);
			else if (co->argv && one->runs[0].exit_code)
				fprintf(stderr, "mmprof: workload exited with status %d in run %u\n",
					one->runs[0].exit_code, run);
			failed += run__status(&one->runs[0], what, sizeof(what)) && !stopsig_count;
		}
		profile__free(one);
		if (err) {
			fprintf(stderr, "mmprof: %s\n", e.msg[0] ? e.msg : strerror(-err));
			return -1;
		}
	}
	return failed;
}

/* What the table's title counts: "'CMD ARGS'", "process id 'PIDS'" or "'system wide'" (freed by the caller). */
static char *describe_target(const struct stat_opts *o, int argc, char **argv)
{
	char *what;
	size_t len;

	/* as perf: -a or -p with a command is titled by what was counted */
	if (argc > 0 && o->target.mode == TARGET_FORK) {
		char *q = sysinfo__quote_argv(argc, argv);

		len = strlen(q) + 3;
		what = xmalloc(len);
		snprintf(what, len, "'%s'", q);
		free(q);
		return what;
	}
	len = 64 + (o->pid_list ? strlen(o->pid_list) : 0);
	what = xmalloc(len);
	if (o->pid_list)
		snprintf(what, len, "process id '%s'", o->pid_list);
	else
		snprintf(what, len, "'system wide'");
	return what;
}

int cmd_stat(int argc, char **argv)
{
	struct stat_opts o = { .repeat = 1 };
	const struct option_desc opts[] = {
		{ OPT_GROUP, 0, NULL, NULL, NULL, "target (a command after '--', -p or -a; -p or -a with a command: for as long as it runs)", 0, NULL },
		{ OPT_STRING, 'p', "pid", &o.pid_list, "PID[,PID...]", "count running processes until they exit or Ctrl-C", 0, NULL },
		{ OPT_BOOL, 'a', "all-cpus", &o.system_wide, NULL, "system-wide, every CPU", 0, NULL },
		{ OPT_STRING, 'C', "cpu", &o.cpu_list, "CPU-LIST", "system-wide on these CPUs only (0-3,8); implies -a", 0, NULL },
		{ OPT_DOUBLE, 0, "duration", &o.duration, "SEC", "with -p or -a and no command: stop after SEC seconds", 0, NULL },
		{ OPT_GROUP, 0, NULL, NULL, NULL, "counting", 0, NULL },
		{ OPT_INT, 'r', "repeat", &o.repeat, "N", "run the command N times; print mean and +- error", 0, NULL },
		{ OPT_LIST, 'e', "event", &o.events, "EVENT[,EVENT]", "only these counters of the perf-stat set (repeatable)", OPT_SPLIT, NULL },
		{ OPT_INT, 'I', "interval", &o.interval_ms, "MS", "print and store counter readings every MS ms (perf-stat.i.* keys)", 0, NULL },
		{ OPT_GROUP, 0, NULL, NULL, NULL, "output", 0, NULL },
		{ OPT_STRING, 'o', "output", &o.output, "FILE", "also write the runs to FILE (for report and diff)", 0, NULL },
		{ OPT_END, 0, NULL, NULL, NULL, NULL, 0, NULL },
	};
	struct countrun_opts co;
	struct interval_printer iprint;
	struct profile *p = NULL;
	struct errmsg e = { "" };
	pid_t *pids = NULL;
	size_t nr_pids = 0, alloc_pids = 0, i;
	char *what = NULL;
	int first, ret = EXIT_ERROR, err, failed;

	first = options__parse(argc, argv, opts, stat_usage);
	if (first == -2)
		return 0;
	if (first < 0 || validate(&o, argc, first) < 0)
		goto out;
	if (o.pid_list && options__parse_pids("stat", o.pid_list, &pids, &nr_pids, &alloc_pids) < 0)
		goto out;
	err = stopsig__install();
	if (err) {
		fprintf(stderr, "mmprof: cannot install signal handlers: %s\n", strerror(-err));
		goto out;
	}

	p = profile__new();
	sysinfo__add_host(p);
	mmstate__add_settings(p, NULL);
	add_meta(p, &o, argc, argv);

	memset(&co, 0, sizeof(co));
	co.argv = first < argc ? argv + first : NULL;
	co.pids = pids;
	co.nr_pids = nr_pids;
	co.system_wide = o.target.mode == TARGET_SYSTEM;
	co.cpu_list = o.cpu_list;
	co.interval_ms = o.interval_ms;
	/* open only what is asked: each event costs descriptors and switch-time work */
	for (i = 0; i < o.events.nr; i++)
		co.events |= UINT64_C(1) << counting__find(o.events.items[i]);
	co.duration = o.duration;
	if (o.interval_ms > 0) {
		co.on_interval = print_interval;
		co.ctx = &iprint;
	}
	co.nr_stops = &stopsig_count;
	co.stop_sig = &stopsig_last;
	failed = stat_runs(&co, &o, &iprint, p);
	if (failed < 0 || !p->nr_runs)
		goto out;	/* an error, or interrupted before the first run */

	what = describe_target(&o, argc - first, argv + first);
	print_table(p, what, (unsigned)p->nr_runs);
	if (o.output) {
		struct errmsg warn;
		char buf[32];

		snprintf(buf, sizeof(buf), "%zu", p->nr_runs);
		profile__set_meta(p, "nr_runs", buf);
		err = datafile__save_recording(p, o.output, &warn, &e);
		if (warn.msg[0])
			fprintf(stderr, "mmprof: warning: %s\n", warn.msg);
		if (err) {
			fprintf(stderr, "mmprof: %s\n", e.msg[0] ? e.msg : strerror(-err));
			goto out;
		}
	}
	ret = 0;
	/* as record: CI tells a failed workload (3) from a failed stat (2) */
	if (failed) {
		fprintf(stderr, "mmprof: the workload failed in %d of %zu run%s: exit status %d\n",
			failed, p->nr_runs, p->nr_runs == 1 ? "" : "s", EXIT_WORKLOAD);
		ret = EXIT_WORKLOAD;
	}
out:
	free(what);
	free(pids);
	profile__free(p);
	target_spec__release(&o.target);
	strlist__release(&o.events);
	return ret;
}
