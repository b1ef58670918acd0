/*
 * cmd-help: `mmprof help [COMMAND]` shows the manual page.
 *
 * Looks for the page installed (man mmprof-CMD) and falls back to the one
 * in the source tree next to the binary, so it works before `make install`.
 */
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <sys/wait.h>

#include "mmprof/cmd.h"
#include "mmprof/message.h"

/* Run man; with where_only, only ask whether the page exists (man -w, silent). */
static int run_man(const char *arg, int local, int where_only)
{
	pid_t pid = fork();
	int status;

	if (pid < 0)
		return -1;
	if (pid == 0) {
		if (where_only) {
			int fd = open("/dev/null", O_WRONLY);

			if (fd >= 0) {
				dup2(fd, 1);
				dup2(fd, 2);
			}
			execlp("man", "man", "-w", arg, (char *)NULL);
		} else if (local) {
			execlp("man", "man", "-l", arg, (char *)NULL);
		} else {
			execlp("man", "man", arg, (char *)NULL);
		}
		_exit(127);
	}
	if (waitpid(pid, &status, 0) < 0)
		return -1;
	return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

/* PAGE.1 in dir, shown with man -l when it exists: 0 shown, -1 absent, 2 failed. */
static int show_local(const char *dir, const char *page)
{
	char path[PATH_MAX + 160];

	snprintf(path, sizeof(path), "%s/%s.1", dir, page);
	if (access(path, R_OK) != 0)
		return -1;
	return run_man(path, 1, 0) == 0 ? 0 : EXIT_ERROR;
}

int cmd_help(int argc, char **argv)
{
	char page[128], self[PATH_MAX], dir[PATH_MAX + 8];
	const char *topic = argc > 1 ? argv[1] : NULL;
	ssize_t n;
	char *slash;
	int ret;

	/* not a page to look for: the user mistyped a command */
	if (topic && !cmd__exists(topic)) {
		error("'%s' is not a command; 'mmprof --help' lists them",
			topic);
		return EXIT_ERROR;
	}
	if (topic && strchr(topic, '/') == NULL && strcmp(topic, "help") &&
	    strcmp(topic, "version"))
		snprintf(page, sizeof(page), "mmprof-%s", topic);
	else
		snprintf(page, sizeof(page), "mmprof");

	/* the source tree's man/: next to the binary (build/mmprof or ./mmprof) */
	n = readlink("/proc/self/exe", self, sizeof(self) - 1);
	if (n > 0) {
		self[n] = '\0';
		slash = strrchr(self, '/');
		if (slash) {
			*slash = '\0';
			snprintf(dir, sizeof(dir), "%s/../man", self);
			if ((ret = show_local(dir, page)) >= 0)
				return ret;
		}
	}
#ifdef MMPROF_SOURCE_MAN
	/* built elsewhere (make BUILD=/tmp/x): the tree it was built from */
	if ((ret = show_local(MMPROF_SOURCE_MAN, page)) >= 0)
		return ret;
#endif
	/* installed pages */
	if (run_man(page, 0, 1) == 0)
		return run_man(page, 0, 0) == 0 ? 0 : EXIT_ERROR;
	error("no manual page for '%s'; try 'mmprof %s --help'",
		page, topic ? topic : "");
	return EXIT_ERROR;
}
