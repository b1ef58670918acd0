/*
 * sched-pingpong: two processes pass a one-byte token back and forth
 * through two pipes, so each spends nearly all its time blocked in
 * pipe_read, woken by the other: the sleep/wake pattern behind the robot's
 * perf-sched keys (wait time, scheduling delay per switch-out stack).
 *
 * The parent writes the token and waits for it in pp_wait_token; the child
 * waits in pp_wait_token and writes it back.  One op is one round trip.
 * The read is issued inline from pp_wait_token (see common.h) so the
 * function is in the switch-out callchain.  Output: round_trips and
 * ops_per_sec.
 */
#include <signal.h>
#include <sys/syscall.h>
#include <sys/wait.h>

#include "common.h"

WL_NAMED static long pp_wait_token(int fd, char *c)
{
	return wl_syscall6(SYS_read, fd, (long)c, 1, 0, 0, 0);
}

WL_NAMED static long pp_pass_token(int fd, const char *c)
{
	return wl_syscall6(SYS_write, fd, (long)c, 1, 0, 0, 0);
}

/* The child: echo every token until the pipe closes. */
static void pp_echo(int in, int out)
{
	char c;

	while (pp_wait_token(in, &c) == 1)
		if (pp_pass_token(out, &c) != 1)
			break;
	_exit(0);
}

int main(int argc, char **argv)
{
	struct wl_run r = { .name = "sched-pingpong" };
	int to_child[2], to_parent[2], status;
	uint64_t trips = 0;
	double elapsed;
	char c = 'x';
	pid_t pid;

	wl_parse(&r, "Two processes pass a token through pipes (sleep/wake ping-pong).",
		 NULL, argc, argv);
	if (pipe(to_child) < 0 || pipe(to_parent) < 0)
		wl_die(&r, "cannot create pipes: %s", strerror(errno));
	pid = fork();
	if (pid < 0)
		wl_die(&r, "cannot fork: %s", strerror(errno));
	if (pid == 0) {
		close(to_child[1]);
		close(to_parent[0]);
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		pp_echo(to_child[0], to_parent[1]);
	}
	close(to_child[0]);
	close(to_parent[1]);
	r.start = wl_now();
	while (!wl_done(&r, trips)) {
		if (pp_pass_token(to_child[1], &c) != 1 || pp_wait_token(to_parent[0], &c) != 1)
			wl_die(&r, "the token was lost: %s", strerror(errno));
		trips++;
	}
	elapsed = wl_now() - r.start;
	close(to_child[1]);
	close(to_parent[0]);
	waitpid(pid, &status, 0);
	printf("%s.round_trips: %llu\n", r.name, (unsigned long long)trips);
	printf("%s.ops_per_sec: %.2f\n", r.name, elapsed > 0 ? (double)trips / elapsed : 0.0);
	return 0;
}
