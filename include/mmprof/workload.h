/*
 * workload: the command `mmprof record -- CMD ARGS` runs, one run at a time.
 *
 * The child is forked blocked on a pipe so that counters and sampling
 * events can be opened on its pid (with enable_on_exec) before it execs;
 * workload__go() releases it.  If execvp fails the child writes its errno
 * to a close-on-exec pipe, so the parent learns the failure for certain
 * (EOF on that pipe means the exec succeeded) and can exit before writing
 * any file.
 *
 * Optionally the child's stdout is a pipe the parent drains in its poll
 * loop (workload__read_output): every byte is copied to the parent's own
 * stdout and each complete line is offered to a callback, which is how
 * benchmark results ("<name>.<metric>: <number>") become profile metrics.
 * The pipe is O_ASYNC with SIGIO sent to us, so output wakes a poll() that
 * waits on other descriptors (the ring buffers): the caller must catch (or
 * ignore) SIGIO before workload__start, whose default action terminates.
 *
 * Exit status and rusage come from wait4() on the child.  Library rules:
 * 0 or -errno with an errmsg; nothing here prints.
 */
#ifndef MMPROF_WORKLOAD_H
#define MMPROF_WORKLOAD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/resource.h>
#include <sys/types.h>

#include "mmprof/errmsg.h"

struct workload {
	pid_t pid;		/* 0 before start and after the child is reaped */
	int go_fd;		/* write end of the release pipe, -1 once released */
	int err_fd;		/* read end of the exec-error pipe, -1 once checked */
	int out_fd;		/* read end of the child's stdout, -1 if not captured */
	int64_t start_ns;	/* CLOCK_MONOTONIC at release */
	int64_t start_real_ns;	/* CLOCK_REALTIME at release */

	/* Filled when the child has been reaped. */
	bool exited;
	int status;		/* as from wait4() */
	int64_t wall_ns;
	struct rusage ru;

	/* Partial output line carried between reads. */
	char *line;
	size_t line_len, line_alloc;
	bool line_overflow;	/* current line too long to keep: skip to '\n' */
};

/*
 * Fork the child for argv (argv[0] looked up in PATH), blocked before exec.
 * capture_stdout: the child's stdout becomes a pipe read by
 * workload__read_output; otherwise it inherits ours.
 */
int workload__start(struct workload *w, char *const argv[], bool capture_stdout,
		    struct errmsg *e);

/*
 * Release the child and wait until its exec either succeeded or failed.
 * Failure: -errno (e.g. -ENOENT) with "cannot run 'x': No such file or
 * directory" in e; the child has been reaped.
 */
int workload__go(struct workload *w, const char *name, struct errmsg *e);

/*
 * Non-blocking: copy what the child wrote to out_fd (normally 1), calling
 * line_cb once per complete line (without the '\n').  At EOF the last
 * unterminated line is passed too.  Returns bytes read (0: nothing or EOF),
 * or -errno if writing to out_fd failed (the data is still consumed).
 */
typedef void (*workload_line_fn)(void *ctx, const char *line, size_t len);
ssize_t workload__read_output(struct workload *w, int out_fd,
			      workload_line_fn line_cb, void *ctx);

/* Reap the child if it has exited (block: wait for it).  1 reaped, 0 running. */
int workload__reap(struct workload *w, bool block);

/* Send sig to the child if it is still ours to signal.  0 or -errno. */
int workload__kill(struct workload *w, int sig);

/* Kill (SIGKILL) and reap a child still running, close the pipes, free buffers. */
void workload__release(struct workload *w);

/*
 * Parse "<name>.<metric>: <number>" (name and metric of [A-Za-z0-9_.%/-],
 * optional spaces, a number strtod accepts and nothing after it but
 * blanks).  The key is written NUL-terminated to key (at most key_size).
 * Returns true on a match.
 */
bool workload__parse_metric(const char *line, size_t len, char *key, size_t key_size,
			    double *value);

/*
 * A workload__read_output callback storing each metric line of the
 * workload's output as a metric of one run: ctx is a struct metric_sink.
 */
struct profile;
struct metric_sink {
	struct profile *p;
	uint32_t run;
};
void workload__store_metric(void *ctx, const char *line, size_t len);

#endif
