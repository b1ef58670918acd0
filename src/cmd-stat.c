/*
 * cmd-stat: `mmprof stat`, counters only, printed the way `perf stat`
 * prints them.
 *
 * Each run goes through countrun (the perf-stat counting set, /proc/vmstat
 * around the run, the workload's status and rusage) into a scratch
 * profile, then copied into the file's profile.  With -e only the events
 * asked for are opened (and so stored and printed).  At the end the table
 * of the counters' means over the runs is printed (stattable.h, perf
 * stat's layout); with -I each reading as it is taken.  Like perf stat
 * the table goes to stderr, leaving stdout to the workload.
 *
 * Exit status: 0 when the runs were counted, 3 when they were (and -o
 * written) but the workload failed in one (as record), 2 on an error.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "mmprof/cmd.h"
#include "mmprof/counting.h"
#include "mmprof/countrun.h"
#include "mmprof/datafile.h"
#include "mmprof/message.h"
#include "mmprof/mmstate.h"
#include "mmprof/options.h"
#include "mmprof/profile.h"
#include "mmprof/stattable.h"
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

/* countrun's on_interval: the readings on stderr as they are taken (stattable.h). */
static void print_interval(void *ctx, const struct profile *p, size_t first)
{
	struct outbuf b = { 0 };

	fflush(stdout);		/* the workload's lines so far come first on a terminal */
	stattable__interval(&b, ctx, p, first);
	fwrite(b.s, 1, b.len, stderr);
	outbuf__release(&b);
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
		error("%s", e.msg);
		return -1;
	}
	o->cpu_list = o->target.cpu_list;	/* each CPU once (0-1,1 is 0-1) */
	if (o->repeat < 1 || o->repeat > 10000) {
		error("invalid value '%d' for -r; expected 1 to 10000", o->repeat);
		return -1;
	}
	if (o->repeat != 1 && first >= argc) {
		error("-r needs a command to repeat");
		return -1;
	}
	if (o->interval_ms < 0 || (o->interval_ms > 0 && o->interval_ms < 10)) {
		error("invalid value '%d' for -I; expected 0 (off) or >= 10 ms",
			o->interval_ms);
		return -1;
	}
	/* it would be ignored: a command's end ends the count (-a -- CMD too) */
	if (o->duration > 0 && o->target.command) {
		error("--duration goes with -p or -a without a command; "
			"with a command the count lasts as long as it runs");
		return -1;
	}
	if (!(o->duration >= 0 && o->duration < 1e7)) {
		error("invalid --duration; expected seconds >= 0");
		return -1;
	}
	if (o->output && !o->output[0]) {
		error("empty output file name");
		return -1;
	}
	for (i = 0; i < o->events.nr; i++) {
		const char *name = set_name(o->events.items[i]);

		if (!name) {
			error("unknown counter '%s'; 'mmprof stat' counts the "
				"perf-stat set (see mmprof-stat(1)): task-clock, page-faults, cpu-cycles, ...",
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
		     struct stattable_intervals *iprint, struct profile *p)
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
				error("workload killed by SIG%s in run %u",
					sigabbrev_np(one->runs[0].term_signal) ?
					sigabbrev_np(one->runs[0].term_signal) : "?", run);
			else if (co->argv && one->runs[0].exit_code)
				error("workload exited with status %d in run %u",
					one->runs[0].exit_code, run);
			failed += run__status(&one->runs[0], what, sizeof(what)) && !stopsig_count;
		}
		profile__free(one);
		if (err) {
			error("%s", e.msg[0] ? e.msg : strerror(-err));
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
		OPT_GROUP("target (a command after '--', -p or -a; -p or -a with a command: for as long as it runs)"),
		OPT_STRING('p', "pid", &o.pid_list, "PID[,PID...]", "count running processes until they exit or Ctrl-C"),
		OPT_BOOL('a', "all-cpus", &o.system_wide, "system-wide, every CPU"),
		OPT_STRING('C', "cpu", &o.cpu_list, "CPU-LIST", "system-wide on these CPUs only (0-3,8); implies -a"),
		OPT_DOUBLE(0, "duration", &o.duration, "SEC", "with -p or -a and no command: stop after SEC seconds"),
		OPT_GROUP("counting"),
		OPT_INTEGER('r', "repeat", &o.repeat, "N", "run the command N times; print mean and +- error"),
		OPT_LIST_F('e', "event", &o.events, "EVENT[,EVENT]", "only these counters of the perf-stat set (repeatable)", OPT_SPLIT),
		OPT_INTEGER('I', "interval", &o.interval_ms, "MS", "print and store counter readings every MS ms (perf-stat.i.* keys)"),
		OPT_GROUP("output"),
		OPT_STRING('o', "output", &o.output, "FILE", "also write the runs to FILE (for report and diff)"),
		OPT_END(),
	};
	struct countrun_opts co;
	struct stattable_intervals iprint;
	struct profile *p = NULL;
	struct errmsg e = { "" };
	pid_t *pids = NULL;
	size_t nr_pids = 0, alloc_pids = 0, i;
	struct outbuf table = { 0 };
	char *what = NULL;
	int first, ret = EXIT_ERROR, err, failed;

	first = options__parse(argc, argv, opts, stat_usage);
	if (first == -2)
		return 0;
	if (first < 0 || validate(&o, argc, first) < 0)
		goto out;
	if (o.pid_list && options__parse_pids(o.pid_list, &pids, &nr_pids, &alloc_pids) < 0)
		goto out;
	err = stopsig__install();
	if (err) {
		error("cannot install signal handlers: %s", strerror(-err));
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
	stattable__write(&table, p, what, (unsigned)p->nr_runs);
	fwrite(table.s, 1, table.len, stderr);
	if (o.output) {
		struct errmsg warn;
		char buf[32];

		snprintf(buf, sizeof(buf), "%zu", p->nr_runs);
		profile__set_meta(p, "nr_runs", buf);
		err = datafile__save_recording(p, o.output, &warn, &e);
		if (warn.msg[0])
			warning("%s", warn.msg);
		if (err) {
			error("%s", e.msg[0] ? e.msg : strerror(-err));
			goto out;
		}
	}
	ret = 0;
	/* as record: CI tells a failed workload (3) from a failed stat (2) */
	if (failed) {
		error("the workload failed in %d of %zu run%s: exit status %d",
			failed, p->nr_runs, p->nr_runs == 1 ? "" : "s", EXIT_WORKLOAD);
		ret = EXIT_WORKLOAD;
	}
out:
	outbuf__release(&table);
	free(what);
	free(pids);
	profile__free(p);
	target_spec__release(&o.target);
	strlist__release(&o.events);
	return ret;
}
