/*
 * The pieces around counting in a record run: the workload runner (exec
 * failure reported through the pipe, exit status, signals, rusage, output
 * passed through and metric lines captured), metric-line parsing, and the
 * metadata helpers (sysfs choice files, shell quoting, ISO 8601).
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/wait.h>

#include "mmprof/sysinfo.h"
#include "mmprof/workload.h"
#include "tap.h"

static void test_parse_metric(void)
{
	static const struct {
		const char *line, *key;
		double value;
	} good[] = {
		{ "page_fault1.ops_per_sec: 12345.5", "page_fault1.ops_per_sec", 12345.5 },
		{ "thp-zap.time_ms:3", "thp-zap.time_ms", 3 },
		{ "a.b.c: -1e3  ", "a.b.c", -1000 },
		{ "x.y:\t42\r", "x.y", 42 },
		/* the robot's own keys (#19 4) */
		{ "vm-scalability.median_stddev%: 1.5", "vm-scalability.median_stddev%", 1.5 },
		{ "will-it-scale.per_thread_ops/s: 7", "will-it-scale.per_thread_ops/s", 7 },
	};
	static const char *const bad[] = {
		"", "hello world", "nodot: 5", ".x: 5", "x.: 5", "x.y: ", "x.y: 5 ops",
		"x y.z: 5", "x.y: nan", "x.y: inf", "x.y 5", "x.y: 0x", ": 5",
	};
	char key[64];
	double v;
	size_t i;
	int fails = 0;

	for (i = 0; i < sizeof(good) / sizeof(good[0]); i++) {
		if (!workload__parse_metric(good[i].line, strlen(good[i].line), key, sizeof(key), &v) ||
		    strcmp(key, good[i].key) || v != good[i].value) {
			printf("# rejected or misread: '%s'\n", good[i].line);
			fails++;
		}
	}
	is_int(fails, 0, "metric lines are parsed into key and value");
	fails = 0;
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		if (workload__parse_metric(bad[i], strlen(bad[i]), key, sizeof(key), &v)) {
			printf("# accepted: '%s'\n", bad[i]);
			fails++;
		}
	}
	is_int(fails, 0, "other lines are not metrics");
	ok(!workload__parse_metric("abcdefgh.ij: 1", 14, key, 8, &v), "a key too long for the buffer is refused");
	ok(workload__parse_metric("a.b: 7 trailing", 6, key, sizeof(key), &v) && v == 7,
	   "only len bytes are read (no NUL needed)");
}

struct lines {
	char keys[8][64];
	double vals[8];
	int n, all;
};

static void collect(void *ctx, const char *line, size_t len)
{
	struct lines *l = ctx;

	l->all++;
	if (l->n < 8 && workload__parse_metric(line, len, l->keys[l->n], 64, &l->vals[l->n]))
		l->n++;
}

static void test_run(void)
{
	char *argv[] = { "sh", "-c", "echo first; echo wl.ops: 250; echo wl.err: 4 >&2; "
			 "printf 'half' >&2; printf 'wl.tail: 9'; exit 3", NULL };
	struct workload w;
	struct errmsg e = { "" };
	struct lines l;
	int devnull = open("/dev/null", O_WRONLY | O_CLOEXEC);

	signal(SIGIO, SIG_IGN);
	memset(&l, 0, sizeof(l));
	is_int(workload__start(&w, argv, true, &e), 0, "a workload starts");
	ok(w.pid > 0 && !workload__reap(&w, false), "it waits for the release, not yet exited");
	is_int(workload__go(&w, argv[0], &e), 0, "release: exec succeeded");
	while (workload__has_output(&w)) {
		workload__read_output(&w, devnull, devnull, collect, &l);
		usleep(1000);
	}
	is_int(workload__reap(&w, true), 1, "reaped");
	ok(WIFEXITED(w.status) && WEXITSTATUS(w.status) == 3, "exit status 3 kept");
	ok(w.wall_ns > 0, "wall time measured");
	is_int(l.all, 5, "five output lines, on both streams, the last of each without a newline");
	ok(l.n == 3 && !strcmp(l.keys[0], "wl.ops") && l.vals[0] == 250 &&
	   ((!strcmp(l.keys[1], "wl.err") && l.vals[1] == 4) ||
	    (!strcmp(l.keys[2], "wl.err") && l.vals[2] == 4)),
	   "the metric lines of stdout and of stderr captured");
	workload__release(&w);
	close(devnull);
}

static void test_missing_binary(void)
{
	char *argv[] = { "/nonexistent/mmprof-test-binary", NULL };
	struct workload w;
	struct errmsg e = { "" };
	int err;

	is_int(workload__start(&w, argv, false, &e), 0, "fork works even for a missing binary");
	err = workload__go(&w, argv[0], &e);
	is_int(err, -ENOENT, "exec failure comes back as -ENOENT");
	is_str(e.msg, "cannot run '/nonexistent/mmprof-test-binary': No such file or directory",
	       "with the message the user sees");
	ok(w.exited && w.pid == 0, "the failed child is reaped");
	workload__release(&w);
}

static void test_signal_and_rusage(void)
{
	char *argv[] = { "sh", "-c", "i=0; while [ $i -lt 20000 ]; do i=$((i+1)); done; kill -SEGV $$", NULL };
	char *argv2[] = { "sleep", "100", NULL };
	struct workload w;
	struct errmsg e = { "" };

	workload__start(&w, argv, false, &e);
	workload__go(&w, argv[0], &e);
	workload__reap(&w, true);
	ok(WIFSIGNALED(w.status) && WTERMSIG(w.status) == SIGSEGV, "death by SIGSEGV is kept");
	ok(w.ru.ru_utime.tv_sec * 1000000 + w.ru.ru_utime.tv_usec > 0 && w.ru.ru_minflt > 0,
	   "rusage has user time and minor faults");
	workload__release(&w);

	workload__start(&w, argv2, false, &e);
	workload__go(&w, argv2[0], &e);
	is_int(workload__kill(&w, SIGTERM), 0, "a running workload can be signalled");
	workload__reap(&w, true);
	ok(WIFSIGNALED(w.status) && WTERMSIG(w.status) == SIGTERM, "and dies of it");
	is_int(workload__kill(&w, SIGTERM), -ESRCH, "a reaped workload is not signalled again");
	workload__release(&w);
}

static void test_sysinfo(void)
{
	char buf[64];
	char *q;
	char *args[] = { "mmprof", "record", "--", "sh", "-c", "echo 'a b'", "" };

	is_int(sysinfo__selected("always [madvise] never\n", buf, sizeof(buf)), 0, "bracketed choice");
	is_str(buf, "madvise", "the selected value is the bracketed word");
	sysinfo__selected("  2\n", buf, sizeof(buf));
	is_str(buf, "2", "plain values are trimmed");
	is_int(sysinfo__selected("always [madvise", buf, sizeof(buf)), -EINVAL, "unterminated bracket");
	is_int(sysinfo__selected("", buf, sizeof(buf)), -EINVAL, "empty text");

	q = sysinfo__quote_argv(7, args);
	is_str(q, "mmprof record -- sh -c 'echo '\\''a b'\\''' ''", "argv is shell-quoted");
	free(q);

	is_int(sysinfo__iso8601(1700000000LL * 1000000000LL + 5, buf, sizeof(buf)), 0, "iso 8601");
	is_str(buf, "2023-11-14T22:13:20Z", "UTC with a Z");
}

int main(void)
{
	test_parse_metric();
	test_run();
	test_missing_binary();
	test_signal_and_rusage();
	test_sysinfo();
	return done_testing();
}
