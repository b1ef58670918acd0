/*
 * countrun: a counting-only run; see include/mmprof/countrun.h.
 */
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/wait.h>

#include "mmprof/clock.h"
#include "mmprof/countrun.h"
#include "mmprof/counting.h"
#include "mmprof/mmstate.h"

#define KILL_GRACE_NS	(2 * NSEC_PER_SEC)
#define MAX_WAIT_MS	100	/* bounds the reaction to a SIGCHLD lost before poll */

static int64_t min64(int64_t a, int64_t b)
{
	return a < b ? a : b;
}

void countrun__fill_run(struct run *r, const struct workload *w)
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

/* An attached process is gone when kill(0) says so (zombies count as gone). */
static bool any_alive(const pid_t *pids, size_t nr)
{
	size_t i;

	for (i = 0; i < nr; i++) {
		char path[64], buf[512], *rp;
		FILE *f;
		size_t n;

		if (kill(pids[i], 0) < 0 && errno == ESRCH)
			continue;
		snprintf(path, sizeof(path), "/proc/%d/stat", (int)pids[i]);
		f = fopen(path, "re");
		if (!f)
			continue;
		n = fread(buf, 1, sizeof(buf) - 1, f);
		fclose(f);
		buf[n] = '\0';
		rp = strrchr(buf, ')');
		if (!(rp && rp[1] == ' ' && (rp[2] == 'Z' || rp[2] == 'X')))
			return true;
	}
	return false;
}

int countrun__run(const struct countrun_opts *o, struct profile *p, uint32_t run,
		  struct errmsg *e)
{
	struct workload w = { .pid = 0, .go_fd = -1, .err_fd = -1, .out_fd = -1 };
	struct counting_target ct;
	struct counting *cnt = NULL;
	struct mmstate ms;
	struct metric_sink lc = { p, run };
	struct run r;
	bool fork_mode = o->argv != NULL, forwarded = false;
	int64_t start, start_real, t, next_tick = INT64_MAX, kill_at = 0, end_at = INT64_MAX;
	int nr_seen = o->nr_stops ? *o->nr_stops : 0, err;
	size_t before;
	pid_t child;

	memset(&ct, 0, sizeof(ct));
	memset(&ms, 0, sizeof(ms));
	memset(&r, 0, sizeof(r));

	if (fork_mode) {
		err = workload__start(&w, o->argv, true, e);
		if (err)
			goto out;
		child = w.pid;
		ct.pids = &child;
		ct.nr_pids = 1;
		ct.enable_on_exec = true;
	} else if (o->system_wide) {
		ct.system_wide = true;
		ct.cpu_list = o->cpu_list;
	} else {
		ct.pids = o->pids;
		ct.nr_pids = o->nr_pids;
	}
	ct.events = o->events;
	cnt = counting__open(&ct, e);
	if (!cnt) {
		err = -EINVAL;
		goto out;
	}
	mmstate__begin(&ms);	/* unreadable /proc/vmstat: no proc-vmstat keys */
	if (fork_mode) {
		err = workload__go(&w, o->argv[0], e);
		if (err)
			goto out;
		start = w.start_ns;
		start_real = w.start_real_ns;
	} else {
		start = clock__ns(CLOCK_MONOTONIC);
		start_real = clock__ns(CLOCK_REALTIME);
		if (o->duration > 0)
			end_at = start + (int64_t)(o->duration * 1e9);
	}
	counting__start(cnt, start);
	if (o->interval_ms > 0)
		next_tick = start + (int64_t)o->interval_ms * 1000000;

	for (;;) {
		struct pollfd pfd = { .fd = w.out_fd, .events = POLLIN };
		int64_t deadline;

		t = clock__ns(CLOCK_MONOTONIC);
		if (o->nr_stops && nr_seen != *o->nr_stops) {
			nr_seen = *o->nr_stops;
			if (!fork_mode)
				break;
			/* first signal: pass it on; a second one, or a deaf workload: SIGKILL */
			workload__kill(&w, forwarded ? SIGKILL : (o->stop_sig ? *o->stop_sig : SIGTERM));
			if (!forwarded)
				kill_at = t + KILL_GRACE_NS;
			forwarded = true;
		}
		if (kill_at && t >= kill_at) {
			workload__kill(&w, SIGKILL);
			kill_at = 0;
		}
		if (t >= next_tick) {
			size_t first = p->nr_intervals;

			counting__interval(cnt, p, run, t);
			if (o->on_interval)
				o->on_interval(o->ctx, p, first);
			while (next_tick <= t)
				next_tick += (int64_t)o->interval_ms * 1000000;
		}
		if (w.out_fd >= 0)
			workload__read_output(&w, STDOUT_FILENO, workload__store_metric, &lc);
		if (fork_mode && workload__reap(&w, false))
			break;
		if (!fork_mode && (t >= end_at || (!o->system_wide && !any_alive(o->pids, o->nr_pids))))
			break;
		deadline = min64(min64(next_tick, end_at), kill_at ? kill_at : INT64_MAX);
		deadline = min64(deadline - t, (int64_t)MAX_WAIT_MS * 1000000);
		if (deadline < 0)
			deadline = 0;
		poll(&pfd, w.out_fd >= 0 ? 1 : 0, (int)((deadline + 999999) / 1000000));
	}

	t = clock__ns(CLOCK_MONOTONIC);
	if (fork_mode) {
		/* once more: what the child wrote just before it exited */
		workload__read_output(&w, STDOUT_FILENO, workload__store_metric, &lc);
		workload__reap(&w, true);
		countrun__fill_run(&r, &w);
	} else {
		r.wall_ns = t - start;
		r.exit_code = -1;
	}
	mmstate__end(&ms, p, run);
	before = p->nr_intervals;
	counting__finish(cnt, p, run, t, o->interval_ms > 0);
	if (o->on_interval && p->nr_intervals > before)
		o->on_interval(o->ctx, p, before);
	r.start_ns = start_real;
	profile__add_run(p, &r);
	err = 0;
out:
	counting__close(cnt);
	mmstate__release(&ms);
	workload__release(&w);
	return err;
}
