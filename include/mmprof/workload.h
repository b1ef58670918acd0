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
 * Optionally the child's stdout and stderr are pipes the parent drains in
 * its poll loop (workload__read_output): every byte is copied to the
 * parent's own stdout or stderr, as it comes (so the two interleave by
 * line, or by chunk for a line written in pieces), and each complete line
 * of either is offered to a callback, which is how benchmark results
 * ("<name>.<metric>: <number>", stress-ng's metrics table on stderr:
 * benchout.h) become profile metrics.  Each stream keeps its own partial
 * line, at most WORKLOAD_LINE_MAX bytes: a longer one is passed through, not
 * offered.  The pipes are O_ASYNC with SIGIO sent to us, so output wakes a
 * poll() that waits on other descriptors (the ring buffers): the caller
 * must catch (or ignore) SIGIO before workload__start, whose default
 * action terminates.
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

/* Longest output line offered to the callback; longer ones are passed
 * through but not parsed (a metric line is short). */
#define WORKLOAD_LINE_MAX 4096

struct workload {
	pid_t pid;		/* 0 before start and after the child is reaped */
	int go_fd;		/* write end of the release pipe, -1 once released */
	int err_fd;		/* read end of the exec-error pipe, -1 once checked */
	int out_fd;		/* read end of the child's stdout, -1 if not captured */
	int errout_fd;		/* read end of the child's stderr, -1 if not captured */
	int64_t start_ns;	/* CLOCK_MONOTONIC at release */
	int64_t start_real_ns;	/* CLOCK_REALTIME at release */

	/* Filled when the child has been reaped. */
	bool exited;
	int status;		/* as from wait4() */
	int64_t wall_ns;
	struct rusage ru;

	/* Partial output line carried between reads: [0] stdout, [1] stderr. */
	struct workload_line {
		char *buf;
		size_t len, alloc;
		bool overflow;	/* current line too long to keep: skip to '\n' */
	} line[2];
};

/*
 * Fork the child for argv (argv[0] looked up in PATH), blocked before exec.
 * capture: the child's stdout and stderr become pipes read by
 * workload__read_output; otherwise it inherits ours.
 */
int workload__start(struct workload *w, char *const argv[], bool capture,
		    struct errmsg *e);

/*
 * Release the child and wait until its exec either succeeded or failed.
 * Failure: -errno (e.g. -ENOENT) with "cannot run 'x': No such file or
 * directory" in e; the child has been reaped.
 */
int workload__go(struct workload *w, const char *name, struct errmsg *e);

/*
 * Non-blocking: copy what the child wrote on its stdout to out_fd and on
 * its stderr to err_fd (normally 1 and 2; -1: drop it), calling line_cb
 * once per complete line of either (without the '\n').  At EOF the last
 * unterminated line of a stream is passed too.  Each stream is read until
 * it is empty, so a chatty workload never blocks on a full pipe.  Returns
 * bytes read (0: nothing or EOF), or -errno if writing to out_fd or err_fd
 * failed (the data is still consumed).
 */
typedef void (*workload_line_fn)(void *ctx, const char *line, size_t len);
ssize_t workload__read_output(struct workload *w, int out_fd, int err_fd,
			      workload_line_fn line_cb, void *ctx);

/* Whether the child still has an output pipe open (EOF not seen on both). */
bool workload__has_output(const struct workload *w);

/* Wait up to timeout_ms for output on either pipe (no pipe: just sleep).  >0: output. */
int workload__poll_output(const struct workload *w, int timeout_ms);

/* Reap the child if it has exited (block: wait for it).  1 reaped, 0 running. */
int workload__reap(struct workload *w, bool block);

/* Send sig to the child if it is still ours to signal.  0 or -errno. */
int workload__kill(struct workload *w, int sig);

/* Kill (SIGKILL) and reap a child still running, close the pipes, free buffers. */
void workload__release(struct workload *w);

/*
 * A key a workload may name: letters, digits and _-.%/, at least one dot,
 * neither first nor last (the robot's benchmark keys hold '%' and '/':
 * vm-scalability.median_stddev%).
 */
bool workload__key_ok(const char *key, size_t len);

/*
 * Parse "<name>.<metric>: <number>" (name and metric of [A-Za-z0-9_.%/-],
 * optional spaces, a number strtod accepts and nothing after it but
 * blanks).  The key is written NUL-terminated to key (at most key_size).
 * Returns true on a match.
 */
bool workload__parse_metric(const char *line, size_t len, char *key, size_t key_size,
			    double *value);

#endif
