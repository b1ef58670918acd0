/*
 * sched-mix: the three ways a task blocks that the robot's perf-sched keys
 * see most, in one process of two threads.  One iteration (one op):
 *   - the main thread sleeps --sleep-us (default 1000) in nanosleep
 *     (do_nanosleep in the switch-out stack);
 *   - it wakes the helper thread through a futex and waits on another
 *     futex until the helper answers (futex_wait_queue);
 *   - it passes a byte to the helper through a pipe and waits for it to
 *     come back through another (pipe_read).
 * The sleep blocks exactly once per iteration, so a profiler's count of
 * switch-outs in do_nanosleep can be checked against the output's sleeps;
 * the futex and pipe waits block at most once (the helper may answer
 * before the main thread waits).  Output: sleeps.
 */
#include <linux/futex.h>
#include <pthread.h>
#include <stdatomic.h>
#include <sys/syscall.h>
#include <time.h>

#include "common.h"

struct mix {
	_Atomic uint32_t ping, pong;	/* futex words: the iteration number */
	int to_helper[2], to_main[2];
	uint64_t iterations;
	_Atomic int stop;
};

static long futex(_Atomic uint32_t *word, int op, uint32_t val)
{
	return syscall(SYS_futex, word, op, val, NULL, NULL, 0);
}

/* Wait until *word is no longer old. */
WL_NAMED static void mix_futex_wait(_Atomic uint32_t *word, uint32_t old)
{
	while (atomic_load(word) == old)
		futex(word, FUTEX_WAIT_PRIVATE, old);
}

WL_NAMED static void mix_futex_wake(_Atomic uint32_t *word)
{
	atomic_fetch_add(word, 1);
	futex(word, FUTEX_WAKE_PRIVATE, 1);
}

WL_NAMED static long mix_pipe_wait(int fd, char *c)
{
	return wl_syscall6(SYS_read, fd, (long)c, 1, 0, 0, 0);
}

WL_NAMED static void mix_sleep(long us)
{
	struct timespec ts = { us / 1000000, (us % 1000000) * 1000 };

	while (nanosleep(&ts, &ts) && errno == EINTR)
		;
}

static void *helper(void *arg)
{
	struct mix *m = arg;
	uint32_t seen = 0;
	char c;

	for (;;) {
		mix_futex_wait(&m->ping, seen);
		seen = atomic_load(&m->ping);
		if (atomic_load(&m->stop))
			break;
		mix_futex_wake(&m->pong);
		if (mix_pipe_wait(m->to_helper[0], &c) != 1 ||
		    wl_syscall6(SYS_write, m->to_main[1], (long)&c, 1, 0, 0, 0) != 1)
			break;
	}
	return NULL;
}

int main(int argc, char **argv)
{
	struct wl_run r = { .name = "sched-mix" };
	uint64_t sleep_us = 1000, done = 0;
	const struct wl_opt own[] = {
		{ "sleep-us", 0, WL_U64, &sleep_us, "US", "microseconds per sleep (default 1000)" },
		{ 0 },
	};
	struct mix m = { 0 };
	pthread_t th;
	char c = 'x';

	wl_parse(&r, "Sleep, then a futex and a pipe round trip with a helper thread; repeat.",
		 own, argc, argv);
	if (pipe(m.to_helper) < 0 || pipe(m.to_main) < 0)
		wl_die(&r, "cannot create pipes: %s", strerror(errno));
	if (pthread_create(&th, NULL, helper, &m))
		wl_die(&r, "cannot create the helper thread");
	r.start = wl_now();
	while (!wl_done(&r, done)) {
		uint32_t pong = atomic_load(&m.pong);

		mix_sleep((long)sleep_us);
		mix_futex_wake(&m.ping);
		mix_futex_wait(&m.pong, pong);
		if (wl_syscall6(SYS_write, m.to_helper[1], (long)&c, 1, 0, 0, 0) != 1 ||
		    mix_pipe_wait(m.to_main[0], &c) != 1)
			wl_die(&r, "the token was lost: %s", strerror(errno));
		done++;
	}
	atomic_store(&m.stop, 1);
	mix_futex_wake(&m.ping);
	pthread_join(th, NULL);
	wl_metric_u64(&r, "sleeps", done);
	return wl_finish(&r);
}
