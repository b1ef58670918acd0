/*
 * stopsig: the signal handling of the commands that run a workload
 * (record, stat).
 *
 * SIGINT, SIGTERM, SIGHUP and SIGQUIT ask the command to stop: each is counted and
 * the last one remembered, so that the run loop can forward it to the
 * workload (a second one escalates) and the file still gets written.
 * SIGCHLD and SIGIO only cut a poll short (handlers without SA_RESTART).
 * SIGPIPE is ignored: a closed stdout must not kill the command before its
 * file is saved.  The two counters are the process's only state a handler
 * touches; one command runs per process, so they are global.
 */
#ifndef MMPROF_STOPSIG_H
#define MMPROF_STOPSIG_H

#include <signal.h>

/* Stop signals received so far, and the last of them (0: none yet). */
extern volatile sig_atomic_t stopsig_count, stopsig_last;

/* Install the handlers: 0 or -errno. */
int stopsig__install(void);

#endif
