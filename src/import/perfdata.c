/*
 * perfdata: a perf.data file imported through `perf script`.
 *
 * perf is the only reader that resolves symbols exactly as perf report
 * does on this machine (its own kallsyms, build-id cache, debuginfo), so
 * we run it rather than decode perf.data ourselves.  We ask for perf
 * script's default fields plus the header: that is the same text a user
 * would pipe into `mmprof import -`, so both paths give the same profile.
 * perf runs as a child with an argv array (never a shell: the file name
 * is untrusted) and "--input=PATH" (a name starting with '-' stays a
 * name); its stderr goes to an anonymous memory file so that a failure
 * can be reported with perf's own words.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include "mmprof/datafile.h"
#include "mmprof/import.h"
#include "mmprof/xalloc.h"

extern char **environ;

/* perf's first meaningful stderr line, trimmed, into buf. */
static void first_error_line(int fd, char *buf, size_t size)
{
	char text[4096];
	ssize_t n = pread(fd, text, sizeof(text) - 1, 0);
	char *line, *save = NULL;

	buf[0] = '\0';
	if (n <= 0)
		return;
	text[n] = '\0';
	for (line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		size_t len;

		while (*line == ' ' || *line == '\t')
			line++;
		len = strlen(line);
		while (len && (line[len - 1] == ' ' || line[len - 1] == '\r'))
			line[--len] = '\0';
		if (!len || !strncmp(line, "Warning:", 8))
			continue;
		if (!strncmp(line, "Error:", 6)) {
			line += 6;
			while (*line == ' ')
				line++;
			if (!*line)
				continue;
		}
		snprintf(buf, size, "%s", line);
		return;
	}
}

/*
 * An SQLite file is no perf.data, and perf would only say "incompatible
 * file format": name what it is instead, an mmprof .data file (its
 * application_id, big-endian at offset 68 of the 100-byte header) or
 * another SQLite database.  0 when the file is neither (or unreadable:
 * perf's own message then says why).
 */
static int refuse_sqlite(const char *path, struct errmsg *e)
{
	static const char magic[16] = "SQLite format 3";	/* with its NUL */
	unsigned char h[100];
	ssize_t n = -1;
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);

	if (fd >= 0) {
		n = pread(fd, h, sizeof(h), 0);
		close(fd);
	}
	if (n < (ssize_t)sizeof(magic) || memcmp(h, magic, sizeof(magic)))
		return 0;
	if (n >= 72 && ((uint32_t)h[68] << 24 | (uint32_t)h[69] << 16 | (uint32_t)h[70] << 8 |
			h[71]) == DATAFILE_APP_ID)
		return errmsg__set(e, -EINVAL, "cannot import '%s': it is already an mmprof .data "
				   "file; use it as it is (mmprof report '%s')", path, path);
	return errmsg__set(e, -EINVAL, "cannot import '%s': an SQLite database, not a perf.data "
			   "file", path);
}

/*
 * One `perf script --input=PATH [ARG]` into ps.  0, or -errno with e
 * filled (perf's own first error line when it fails).
 */
static int perf_script(struct perfscript *ps, const char *path, const char *perf,
		       const char *arg, struct errmsg *e)
{
	posix_spawn_file_actions_t fa;
	char *input = NULL, *line = NULL;
	char *argv[5];
	size_t alloc = 0;
	ssize_t len;
	int out[2] = { -1, -1 }, errfd, status = 0, err = 0, rc;
	pid_t pid;
	FILE *f;

	errfd = memfd_create("perf-stderr", MFD_CLOEXEC);
	if (errfd < 0)
		return errmsg__set(e, -errno, "cannot run perf: memfd_create: %s", strerror(errno));
	if (pipe2(out, O_CLOEXEC)) {
		err = errmsg__set(e, -errno, "cannot run perf: pipe: %s", strerror(errno));
		close(errfd);
		return err;
	}
	input = xmalloc(strlen(path) + 9);
	snprintf(input, strlen(path) + 9, "--input=%s", path);
	argv[0] = (char *)perf;
	argv[1] = (char *)"script";
	argv[2] = (char *)arg;
	argv[3] = input;
	argv[4] = NULL;

	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_addopen(&fa, STDIN_FILENO, "/dev/null", O_RDONLY, 0);
	posix_spawn_file_actions_adddup2(&fa, out[1], STDOUT_FILENO);
	posix_spawn_file_actions_adddup2(&fa, errfd, STDERR_FILENO);
	rc = posix_spawnp(&pid, perf, &fa, NULL, argv, environ);
	posix_spawn_file_actions_destroy(&fa);
	close(out[1]);
	free(input);
	if (rc) {
		close(out[0]);
		close(errfd);
		if (rc == ENOENT)
			return errmsg__set(e, -ENOENT, "cannot import '%s': perf is not installed "
					   "(Debian: apt-get install linux-perf)", path);
		return errmsg__set(e, -rc, "cannot import '%s': cannot run %s: %s", path, perf,
				   strerror(rc));
	}

	f = fdopen(out[0], "r");
	if (!f) {
		err = errmsg__set(e, -errno, "fdopen: %s", strerror(errno));
		close(out[0]);
	}
	while (f && !err && (len = getline(&line, &alloc, f)) >= 0) {
		if (len && line[len - 1] == '\n')
			len--;
		err = perfscript__line(ps, line, (size_t)len, e);
	}
	if (err)	/* stop perf: we will not read the rest */
		kill(pid, SIGTERM);
	if (f)
		fclose(f);
	free(line);
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	if (!err && !(WIFEXITED(status) && WEXITSTATUS(status) == 0)) {
		char msg[256];

		first_error_line(errfd, msg, sizeof(msg));
		err = errmsg__set(e, -EPROTO, "cannot import '%s': perf script failed: %s", path,
				  msg[0] ? msg : WIFSIGNALED(status) ? strsignal(WTERMSIG(status)) :
				  "no message");
	} else if (err) {
		errmsg__prefix(e, err, "cannot import '%s': perf script output", path);
	}
	close(errfd);
	return err;
}

int import__perf_data(struct profile *p, const char *path, const char *perf,
		      struct errmsg *e)
{
	struct perfscript ps;
	int err;

	if (!perf)
		perf = "perf";
	err = refuse_sqlite(path, e);
	if (err)
		return err;
	perfscript__init(&ps, p);
	ps.defer_frameless = 1;
	err = perf_script(&ps, path, perf, "--header", e);
	/*
	 * Samples whose callchain perf rejected have no frame in perf
	 * script's text; -G prints every sample's IP on its header line.
	 * Only then: it is a second read of the whole file.
	 */
	if (!err && perfscript__refill_begin(&ps))
		err = perf_script(&ps, path, perf, "-G", e);
	if (!err) {
		err = perfscript__finish(&ps, e);
		if (err)
			errmsg__prefix(e, err, "cannot import '%s'", path);
	}
	perfscript__release(&ps);
	return err;
}
