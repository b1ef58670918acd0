/*
 * cmd-help: `mmprof help [COMMAND]` shows the manual page.
 *
 * Looks for the page installed (man mmprof-CMD) and falls back to the one
 * in the source tree next to the binary, so it works before `make install`.
 */
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <sys/wait.h>

#include "mmprof/cmd.h"

static int run_man(const char *arg, int local)
{
	pid_t pid = fork();
	int status;

	if (pid < 0)
		return -1;
	if (pid == 0) {
		if (local)
			execlp("man", "man", "-l", arg, (char *)NULL);
		else
			execlp("man", "man", arg, (char *)NULL);
		_exit(127);
	}
	if (waitpid(pid, &status, 0) < 0)
		return -1;
	return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

int cmd_help(int argc, char **argv)
{
	char page[128], self[PATH_MAX], path[PATH_MAX + 160];
	ssize_t n;
	char *slash;

	if (argc > 1 && strchr(argv[1], '/') == NULL)
		snprintf(page, sizeof(page), "mmprof-%s", argv[1]);
	else
		snprintf(page, sizeof(page), "mmprof");

	/* the source tree's man/ (binary is build/mmprof or ./mmprof) */
	n = readlink("/proc/self/exe", self, sizeof(self) - 1);
	if (n > 0) {
		self[n] = '\0';
		slash = strrchr(self, '/');
		if (slash) {
			*slash = '\0';
			snprintf(path, sizeof(path), "%s/../man/%s.1", self, page);
			if (access(path, R_OK) == 0)
				return run_man(path, 1) == 0 ? 0 : EXIT_ERROR;
		}
	}
	if (run_man(page, 0) == 0)
		return 0;
	fprintf(stderr, "mmprof: no manual page for '%s'; try 'mmprof %s --help'\n",
		page, argc > 1 ? argv[1] : "");
	return EXIT_ERROR;
}
