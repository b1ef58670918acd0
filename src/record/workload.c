/*
 * workload: fork the command blocked, release it, pass its output through,
 * reap it with its rusage; see include/mmprof/workload.h.
 */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/wait.h>

#include "mmprof/clock.h"
#include "mmprof/workload.h"
#include "mmprof/xalloc.h"

static void close_fd(int *fd)
{
	if (*fd >= 0)
		close(*fd);
	*fd = -1;
}

/* In the child, between fork and exec: only async-signal-safe calls. */
static void __attribute__((noreturn))
child(char *const argv[], int go_rd, int err_wr, int out_wr, int errout_wr)
{
	static const int reset[] = { SIGINT, SIGTERM, SIGPIPE, SIGIO, SIGCHLD, SIGQUIT, SIGHUP };
	sigset_t none;
	size_t i;
	ssize_t n;
	char c;
	int err;

	/* Ignored dispositions and the mask survive exec: give the command
	 * the defaults it would have had without us. */
	for (i = 0; i < sizeof(reset) / sizeof(reset[0]); i++)
		signal(reset[i], SIG_DFL);
	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);

	if (out_wr >= 0) {
		if (dup2(out_wr, STDOUT_FILENO) < 0 || dup2(errout_wr, STDERR_FILENO) < 0)
			_exit(127);
		close(out_wr);
		close(errout_wr);
	}
	do
		n = read(go_rd, &c, 1);
	while (n < 0 && errno == EINTR);
	if (n != 1)		/* the parent gave up before releasing us */
		_exit(127);
	close(go_rd);

	execvp(argv[0], argv);
	err = errno;
	do
		n = write(err_wr, &err, sizeof(err));
	while (n < 0 && errno == EINTR);
	_exit(127);
}

/* Output wakes the poll loop through SIGIO (see the header). */
static int set_async(int fd)
{
	if (fcntl(fd, F_SETOWN, getpid()) < 0 || fcntl(fd, F_SETFL, O_NONBLOCK | O_ASYNC) < 0)
		return -errno;
	return 0;
}

int workload__start(struct workload *w, char *const argv[], bool capture,
		    struct errmsg *e)
{
	int go[2] = { -1, -1 }, er[2] = { -1, -1 }, out[2] = { -1, -1 }, eo[2] = { -1, -1 };
	int err;

	memset(w, 0, sizeof(*w));
	w->go_fd = w->err_fd = w->out_fd = w->errout_fd = -1;

	if (pipe2(go, O_CLOEXEC) < 0 || pipe2(er, O_CLOEXEC) < 0 ||
	    (capture && (pipe2(out, O_CLOEXEC) < 0 || pipe2(eo, O_CLOEXEC) < 0))) {
		err = -errno;
		errmsg__set(e, err, "cannot create a pipe for '%s': %s", argv[0], strerror(-err));
		goto fail;
	}
	w->pid = fork();
	if (w->pid < 0) {
		err = -errno;
		w->pid = 0;
		errmsg__set(e, err, "cannot fork for '%s': %s", argv[0], strerror(-err));
		goto fail;
	}
	if (w->pid == 0)
		child(argv, go[0], er[1], out[1], eo[1]);

	close(go[0]);
	close(er[1]);
	w->go_fd = go[1];
	w->err_fd = er[0];
	if (capture) {
		close(out[1]);
		close(eo[1]);
		w->out_fd = out[0];
		w->errout_fd = eo[0];
		if ((err = set_async(w->out_fd)) || (err = set_async(w->errout_fd))) {
			errmsg__set(e, err, "cannot set up the output pipe of '%s': %s",
				    argv[0], strerror(-err));
			workload__release(w);
			return err;
		}
	}
	return 0;

fail:
	close_fd(&go[0]);
	close_fd(&go[1]);
	close_fd(&er[0]);
	close_fd(&er[1]);
	close_fd(&out[0]);
	close_fd(&out[1]);
	close_fd(&eo[0]);
	close_fd(&eo[1]);
	return err;
}

int workload__go(struct workload *w, const char *name, struct errmsg *e)
{
	ssize_t n;
	int child_errno = 0;
	char c = 'g';

	w->start_ns = clock__ns(CLOCK_MONOTONIC);
	w->start_real_ns = clock__ns(CLOCK_REALTIME);
	do
		n = write(w->go_fd, &c, 1);
	while (n < 0 && errno == EINTR);
	close_fd(&w->go_fd);
	if (n != 1) {
		int err = n < 0 ? -errno : -EIO;

		return errmsg__set(e, err, "cannot start '%s': %s", name, strerror(-err));
	}
	/* EOF: the exec succeeded and closed the pipe; an int: its errno. */
	do
		n = read(w->err_fd, &child_errno, sizeof(child_errno));
	while (n < 0 && errno == EINTR);
	close_fd(&w->err_fd);
	if (n == (ssize_t)sizeof(child_errno) && child_errno > 0) {
		workload__reap(w, true);
		return errmsg__set(e, -child_errno, "cannot run '%s': %s", name,
				   strerror(child_errno));
	}
	return 0;
}

static void line_append(struct workload_line *l, const char *s, size_t len)
{
	if (l->overflow)
		return;
	if (l->len + len > WORKLOAD_LINE_MAX) {
		l->overflow = true;
		return;
	}
	if (l->len + len + 1 > l->alloc) {
		l->alloc = l->len + len + 1 < 256 ? 256 : l->len + len + 1;
		l->buf = xrealloc(l->buf, l->alloc);
	}
	memcpy(l->buf + l->len, s, len);
	l->len += len;
	l->buf[l->len] = '\0';
}

static void line_end(struct workload_line *l, workload_line_fn cb, void *ctx)
{
	if (!l->overflow && l->len && cb)
		cb(ctx, l->buf, l->len);
	l->len = 0;
	l->overflow = false;
}

static int write_all(int fd, const char *buf, size_t len)
{
	while (len) {
		ssize_t n = write(fd, buf, len);

		if (n < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		buf += n;
		len -= (size_t)n;
	}
	return 0;
}

/* One stream until it is empty: bytes read, or -errno of a failed copy to to_fd. */
static ssize_t read_stream(int *fd, struct workload_line *l, int to_fd,
			   workload_line_fn line_cb, void *ctx)
{
	char buf[65536];
	ssize_t total = 0;
	int werr = 0;

	while (*fd >= 0) {
		ssize_t n = read(*fd, buf, sizeof(buf));
		const char *p, *nl;

		if (n < 0) {
			if (errno == EINTR)
				continue;
			if (errno == EAGAIN)
				break;
			n = 0;	/* treat a broken pipe like EOF */
		}
		if (n == 0) {
			close_fd(fd);
			line_end(l, line_cb, ctx);
			break;
		}
		total += n;
		/* Keep consuming even if our stdout is gone: the child must not block. */
		if (!werr && to_fd >= 0)
			werr = write_all(to_fd, buf, (size_t)n);
		for (p = buf; p < buf + n; p = nl + 1) {
			nl = memchr(p, '\n', (size_t)(buf + n - p));
			if (!nl) {
				line_append(l, p, (size_t)(buf + n - p));
				break;
			}
			line_append(l, p, (size_t)(nl - p));
			line_end(l, line_cb, ctx);
		}
	}
	return werr ? werr : total;
}

ssize_t workload__read_output(struct workload *w, int out_fd, int err_fd,
			      workload_line_fn line_cb, void *ctx)
{
	ssize_t a = read_stream(&w->out_fd, &w->line[0], out_fd, line_cb, ctx);
	ssize_t b = read_stream(&w->errout_fd, &w->line[1], err_fd, line_cb, ctx);

	if (a < 0)
		return a;
	return b < 0 ? b : a + b;
}

bool workload__has_output(const struct workload *w)
{
	return w->out_fd >= 0 || w->errout_fd >= 0;
}

int workload__poll_output(const struct workload *w, int timeout_ms)
{
	struct pollfd pfd[2] = {
		{ .fd = w->out_fd, .events = POLLIN },
		{ .fd = w->errout_fd, .events = POLLIN },
	};

	/* a negative fd is ignored by poll(); with none it just waits */
	return poll(pfd, 2, timeout_ms);
}

int workload__reap(struct workload *w, bool block)
{
	pid_t r;

	if (w->exited)
		return 1;
	if (w->pid <= 0)
		return 0;
	do
		r = wait4(w->pid, &w->status, block ? 0 : WNOHANG, &w->ru);
	while (r < 0 && errno == EINTR);
	if (r == 0)
		return 0;
	if (r < 0) {
		/* ECHILD: someone else reaped it; no status to report */
		memset(&w->ru, 0, sizeof(w->ru));
		w->status = 0;
	}
	w->wall_ns = clock__ns(CLOCK_MONOTONIC) - w->start_ns;
	w->exited = true;
	w->pid = 0;
	return 1;
}

int workload__kill(struct workload *w, int sig)
{
	if (w->pid <= 0 || w->exited)
		return -ESRCH;
	return kill(w->pid, sig) < 0 ? -errno : 0;
}

void workload__release(struct workload *w)
{
	if (w->pid > 0 && !w->exited) {
		/* Closing the release pipe first lets a still-blocked child exit. */
		close_fd(&w->go_fd);
		kill(w->pid, SIGKILL);
		workload__reap(w, true);
	}
	close_fd(&w->go_fd);
	close_fd(&w->err_fd);
	close_fd(&w->out_fd);
	close_fd(&w->errout_fd);
	for (size_t i = 0; i < 2; i++) {
		free(w->line[i].buf);
		memset(&w->line[i], 0, sizeof(w->line[i]));
	}
}

/* the robot's benchmark keys hold '%' and '/' too (vm-scalability.median_stddev%) */
static bool key_char(int c)
{
	return isalnum(c) || c == '_' || c == '-' || c == '.' || c == '%' || c == '/';
}

bool workload__key_ok(const char *key, size_t len)
{
	bool dot = false;
	size_t i;

	if (!len || key[0] == '.' || key[len - 1] == '.')
		return false;
	for (i = 0; i < len; i++) {
		if (!key_char((unsigned char)key[i]))
			return false;
		dot |= key[i] == '.';
	}
	return dot;
}

bool workload__parse_metric(const char *line, size_t len, char *key, size_t key_size,
			    double *value)
{
	char num[64];
	const char *end = line + len, *p = line, *colon;
	char *numend;
	size_t klen;
	double v;

	while (p < end && key_char((unsigned char)*p))
		p++;
	colon = p;
	klen = (size_t)(colon - line);
	if (p == end || *p != ':' || !workload__key_ok(line, klen))
		return false;
	p++;
	while (p < end && (*p == ' ' || *p == '\t'))
		p++;
	while (end > p && isspace((unsigned char)end[-1]))
		end--;
	if (p == end || (size_t)(end - p) >= sizeof(num) || klen >= key_size)
		return false;
	memcpy(num, p, (size_t)(end - p));
	num[end - p] = '\0';
	errno = 0;
	v = strtod(num, &numend);
	if (errno || numend == num || *numend || !isfinite(v))
		return false;
	memcpy(key, line, klen);
	key[klen] = '\0';
	*value = v;
	return true;
}
