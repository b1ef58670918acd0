/*
 * runloop: one run of a workload under a table of event sources; see
 * include/mmprof/runloop.h.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/wait.h>

#include "mmprof/benchout.h"
#include "mmprof/clock.h"
#include "mmprof/mmstate.h"
#include "mmprof/runloop.h"

#define KILL_GRACE_NS	(2 * NSEC_PER_SEC)
#define MAX_WAIT_MS	100	/* bounds the reaction to a signal lost before the wait */
#define NAP_NS		10000000	/* see wait_and_drain */

/* Where one run is. */
struct runloop {
	const struct runloop_opts *o;
	struct profile *p;
	uint32_t run;
	struct workload w;
	struct benchout bo;	/* the workload's output lines into metrics */
	struct mmstate *ms;	/* /proc/vmstat and meminfo, sampled during the run */
	bool fork_mode;
	int64_t start, start_real;
	int64_t next_tick, next_progress, kill_at;
	int64_t enable_at, disable_at, end_at;
	bool window_on, window_done, forwarded;
	int stops_seen;
	int max_wait_ms;
};

static int64_t min64(int64_t a, int64_t b)
{
	return a < b ? a : b;
}

void runloop__fill_run(struct run *r, const struct workload *w)
{
	r->wall_ns = w->wall_ns;
	r->exit_code = WIFEXITED(w->status) ? WEXITSTATUS(w->status) : -1;
	r->term_signal = WIFSIGNALED(w->status) ? WTERMSIG(w->status) : 0;
	r->utime_us = (int64_t)w->ru.ru_utime.tv_sec * 1000000 + w->ru.ru_utime.tv_usec;
	r->stime_us = (int64_t)w->ru.ru_stime.tv_sec * 1000000 + w->ru.ru_stime.tv_usec;
	r->maxrss_kb = w->ru.ru_maxrss;
	r->minflt = w->ru.ru_minflt;
	r->majflt = w->ru.ru_majflt;
	r->nvcsw = w->ru.ru_nvcsw;
	r->nivcsw = w->ru.ru_nivcsw;
}

bool runloop__pid_alive(pid_t pid)
{
	char path[64], buf[512], *rp;
	FILE *f;
	size_t n;

	if (kill(pid, 0) < 0 && errno == ESRCH)
		return false;
	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	f = fopen(path, "re");
	if (!f)
		return false;
	n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n] = '\0';
	rp = strrchr(buf, ')');	/* comm may contain anything, even ") " */
	return !(rp && rp[1] == ' ' && (rp[2] == 'Z' || rp[2] == 'X'));
}

static bool any_alive(const struct runloop_opts *o)
{
	size_t i;

	for (i = 0; i < o->nr_pids; i++)
		if (runloop__pid_alive(o->pids[i]))
			return true;
	return false;
}

/* Call op (a member of struct runsrc_ops) of every source that has it. */
#define EACH_SOURCE(l, op, ...)							\
	do {									\
		size_t i_;							\
		for (i_ = 0; i_ < (l)->o->nr_sources; i_++)			\
			if ((l)->o->sources[i_].ops->op)			\
				(l)->o->sources[i_].ops->op((l)->o->sources[i_].ctx, \
							    ##__VA_ARGS__);	\
	} while (0)

static bool has_ticks(const struct runloop_opts *o)
{
	size_t i;

	for (i = 0; i < o->nr_sources; i++)
		if (o->sources[i].ops->tick)
			return true;
	return false;
}

/* Start the workload blocked and open the sources on it, in order. */
static int open_sources(struct runloop *l, pid_t *child, struct errmsg *e)
{
	const struct runloop_opts *o = l->o;
	struct record_target t;
	size_t i;
	int err;

	memset(&t, 0, sizeof(t));
	if (l->fork_mode) {
		err = workload__start(&l->w, o->argv, true, e);
		if (err)
			return err;
		*child = l->w.pid;
	}
	/* a command with -a or -p: they are watched, the command only times the run */
	if (o->system_wide) {
		t.system_wide = true;
		t.cpu_list = o->cpu_list;
	} else if (o->nr_pids) {
		t.pids = o->pids;
		t.nr_pids = o->nr_pids;
	} else {
		t.pids = child;
		t.nr_pids = 1;
		t.fork = true;
		/* whole-run sources always enable at exec; windowed ones only without --delay */
		t.enable_on_exec = o->delay == 0;
	}
	l->window_on = t.enable_on_exec;
	for (i = 0; i < o->nr_sources; i++) {
		const struct runsrc *src = &o->sources[i];

		if (src->ops->open && (err = src->ops->open(src->ctx, &t, l->p, l->run, e)))
			return err;
		if (src->wait_ms > 0 && src->wait_ms < l->max_wait_ms)
			l->max_wait_ms = src->wait_ms;
	}
	return 0;
}

/* Pass a stop signal on (fork mode); false: the run ends now. */
static bool handle_stop(struct runloop *l, int64_t t)
{
	const struct runloop_opts *o = l->o;

	if (!o->nr_stops || l->stops_seen == *o->nr_stops)
		return true;
	l->stops_seen = *o->nr_stops;
	if (!l->fork_mode)
		return false;
	/* first signal: pass it on; a second one, or a deaf workload: SIGKILL */
	workload__kill(&l->w, l->forwarded ? SIGKILL : o->stop_sig ? *o->stop_sig : SIGTERM);
	if (!l->forwarded)
		l->kill_at = t + KILL_GRACE_NS;
	l->forwarded = true;
	return true;
}

/* Open or close the window; false: a -p/-a run ends with it. */
static bool handle_window(struct runloop *l, int64_t t)
{
	if (!l->window_on && !l->window_done && t >= l->enable_at) {
		EACH_SOURCE(l, enable);
		l->window_on = true;
	}
	if (l->window_on && t >= l->disable_at) {
		EACH_SOURCE(l, disable);
		l->window_on = false;
		l->window_done = true;
		/* -p/-a: the window is the recording; fork: the workload runs on */
		if (!l->fork_mode)
			return false;
	}
	return true;
}

static void pass_output(struct runloop *l)
{
	if (!workload__has_output(&l->w))
		return;
	/* the caller's hook runs only when there is output to write */
	if (l->o->on_output && workload__poll_output(&l->w, 0) > 0)
		l->o->on_output(l->o->ctx);
	workload__read_output(&l->w, STDOUT_FILENO, STDERR_FILENO, benchout__line, &l->bo);
}

/*
 * Wait up to wait_ns on the first source that can be polled, else on the
 * workload's output, then drain every source.  Ring buffers of exited
 * tasks stay readable (POLLHUP) with nothing in them: do not spin on them.
 */
static void wait_and_drain(struct runloop *l, int64_t wait_ns)
{
	const struct runloop_opts *o = l->o;
	int timeout = (int)((wait_ns + 999999) / 1000000);
	int polled = -1, drained = 0;
	size_t i;

	for (i = 0; i < o->nr_sources && polled < 0; i++)
		if (o->sources[i].ops->poll) {
			polled = o->sources[i].ops->poll(o->sources[i].ctx, timeout);
			if (polled < 0)
				polled = 0;
		}
	if (polled < 0) {
		workload__poll_output(&l->w, timeout);
		polled = 0;
	}
	for (i = 0; i < o->nr_sources; i++)
		if (o->sources[i].ops->drain)
			drained += o->sources[i].ops->drain(o->sources[i].ctx);
	if (polled > 0 && drained == 0 && wait_ns > 0) {
		struct timespec nap = { 0, min64(wait_ns, NAP_NS) };

		nanosleep(&nap, NULL);
	}
}

static void loop(struct runloop *l)
{
	const struct runloop_opts *o = l->o;

	for (;;) {
		int64_t t = clock__ns(CLOCK_MONOTONIC), deadline, wait_ns;

		if (!handle_stop(l, t))
			break;
		if (l->kill_at && t >= l->kill_at) {
			workload__kill(&l->w, SIGKILL);
			l->kill_at = 0;
		}
		if (!handle_window(l, t))
			break;
		if (t >= l->next_tick) {
			EACH_SOURCE(l, tick, l->p, l->run, t);
			while (l->next_tick <= t)
				l->next_tick += (int64_t)o->interval_ms * 1000000;
		}
		mmstate__tick(l->ms, t);
		pass_output(l);
		if (l->fork_mode && workload__reap(&l->w, false))
			break;
		if (!l->fork_mode && (t >= l->end_at || (!o->system_wide && !any_alive(o))))
			break;
		if (o->on_progress && t >= l->next_progress) {
			o->on_progress(o->ctx, l->run, t - l->start);
			l->next_progress = t + o->progress_ns;
		}

		deadline = min64(min64(l->next_tick, l->next_progress), l->end_at);
		deadline = min64(deadline, mmstate__next(l->ms));
		if (!l->window_done)
			deadline = min64(deadline, l->window_on ? l->disable_at : l->enable_at);
		if (l->kill_at)
			deadline = min64(deadline, l->kill_at);
		wait_ns = deadline - t;
		if (wait_ns < 0)
			wait_ns = 0;
		wait_and_drain(l, min64(wait_ns, (int64_t)l->max_wait_ms * 1000000));
	}
}

/* Free what each source opened (close is safe on a source never opened). */
static void close_sources(struct runloop *l)
{
	EACH_SOURCE(l, close);
}

/* The run is over: stop the sources, fill the run, let them add to it, store it. */
static int finish(struct runloop *l, struct mmstate *ms, struct runloop_result *res,
		  struct errmsg *e)
{
	const struct runloop_opts *o = l->o;
	struct run *r = &res->run;
	int64_t t = clock__ns(CLOCK_MONOTONIC);
	size_t i;
	int err;

	/* sampling never started: the workload (or -p's processes) ended within --delay */
	res->window_missed = o->delay > 0 && !l->window_on && !l->window_done &&
			     !(o->nr_stops && *o->nr_stops);
	if (l->fork_mode) {
		/* whatever the child wrote before exiting; a grandchild holding
		 * the pipe open must not keep us here, so read once more only */
		pass_output(l);
		workload__reap(&l->w, true);
		res->ops_matches = benchout__end(&l->bo);
		res->ops_over_budget = l->bo.ops_over_budget;
	}
	mmstate__end(ms, l->p, l->run);
	EACH_SOURCE(l, stop, l->p, l->run, t);

	r->start_ns = l->start_real;
	if (l->fork_mode) {
		runloop__fill_run(r, &l->w);
	} else {
		r->wall_ns = t - l->start;
		r->exit_code = -1;
	}
	for (i = 0; i < o->nr_sources; i++) {
		const struct runsrc *src = &o->sources[i];

		if (src->ops->end_run && (err = src->ops->end_run(src->ctx, l->p, l->run, r, e)))
			return err;
	}
	profile__add_run(l->p, r);
	return 0;
}

int runloop__run(const struct runloop_opts *o, struct profile *p, uint32_t run,
		 struct runloop_result *res, struct errmsg *e)
{
	struct runloop l;
	struct mmstate ms;
	pid_t child = 0;
	int err;

	memset(&l, 0, sizeof(l));
	memset(&ms, 0, sizeof(ms));
	memset(res, 0, sizeof(*res));
	l.o = o;
	l.p = p;
	l.run = run;
	l.w.go_fd = l.w.err_fd = l.w.out_fd = l.w.errout_fd = -1;
	benchout__init(&l.bo, o->bench, p, run);
	l.fork_mode = o->argv != NULL;
	l.max_wait_ms = MAX_WAIT_MS;

	err = open_sources(&l, &child, e);
	if (err)
		goto out;
	/*
	 * A window from the start on sources that cannot enable at the exec
	 * (-a, -p, with or without a command): switched on before the
	 * release, as enable_on_exec does for the others, so that the
	 * workload's first samples and switch-outs (a sleep at its start) are
	 * seen; at the first turn of the loop they were not.
	 */
	if (!l.window_on && o->delay == 0) {
		EACH_SOURCE(&l, enable);
		l.window_on = true;
	}
	/* system-wide, so read as close to the release as possible; unreadable: left out */
	l.ms = &ms;
	mmstate__begin(&ms, clock__ns(CLOCK_MONOTONIC));
	if (l.fork_mode) {
		err = workload__go(&l.w, o->argv[0], e);
		if (err)
			goto out;
		l.start = l.w.start_ns;
		l.start_real = l.w.start_real_ns;
	} else {
		l.start = clock__ns(CLOCK_MONOTONIC);
		l.start_real = clock__ns(CLOCK_REALTIME);
	}
	/* after the exec check, so that a missing binary gets one line only */
	if (o->on_start)
		o->on_start(o->ctx, run, l.start_real);
	EACH_SOURCE(&l, start, l.start);

	l.enable_at = l.start + (int64_t)(o->delay * 1e9);
	l.disable_at = o->duration > 0 ? l.enable_at + (int64_t)(o->duration * 1e9) : INT64_MAX;
	l.end_at = !l.fork_mode && o->time_limit > 0 ?
		   l.start + (int64_t)(o->time_limit * 1e9) : INT64_MAX;
	l.next_tick = o->interval_ms > 0 && has_ticks(o) ?
		      l.start + (int64_t)o->interval_ms * 1000000 : INT64_MAX;
	l.next_progress = o->on_progress && o->progress_ns > 0 ? l.start + o->progress_ns
							       : INT64_MAX;
	loop(&l);
	err = finish(&l, &ms, res, e);
out:
	close_sources(&l);
	mmstate__release(&ms);
	workload__release(&l.w);
	benchout__release(&l.bo);
	return err;
}
