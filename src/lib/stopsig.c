/*
 * stopsig: stop on SIGINT/SIGTERM/SIGHUP/SIGQUIT, wake on SIGCHLD/SIGIO, ignore
 * SIGPIPE (see include/mmprof/stopsig.h).
 */
#include <errno.h>
#include <signal.h>
#include <string.h>

#include "mmprof/stopsig.h"

volatile sig_atomic_t stopsig_count, stopsig_last;

static void on_stop(int sig)
{
	stopsig_last = sig;
	stopsig_count++;
}

static void on_wake(int sig)
{
	(void)sig;	/* cutting the wait short is the point */
}

int stopsig__install(void)
{
	/*
	 * SIGQUIT too: left alone, Ctrl-\\ killed mmprof before the file was
	 * written, and a shell's background job (which starts with SIGINT and
	 * SIGQUIT ignored) recorded on to the end; installing a handler
	 * takes it over either way.
	 */
	static const int stops[] = { SIGINT, SIGTERM, SIGHUP, SIGQUIT };
	struct sigaction sa;
	size_t i;

	memset(&sa, 0, sizeof(sa));
	sigemptyset(&sa.sa_mask);
	sa.sa_flags = 0;	/* no SA_RESTART: the signal must end a poll */
	sa.sa_handler = on_stop;
	for (i = 0; i < sizeof(stops) / sizeof(stops[0]); i++)
		if (sigaction(stops[i], &sa, NULL) < 0)
			return -errno;
	sa.sa_handler = on_wake;
	if (sigaction(SIGCHLD, &sa, NULL) < 0 || sigaction(SIGIO, &sa, NULL) < 0)
		return -errno;
	sa.sa_handler = SIG_IGN;
	return sigaction(SIGPIPE, &sa, NULL) < 0 ? -errno : 0;
}
