/*
 * term: terminal decisions and colour; see include/mmprof/term.h.
 */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "mmprof/term.h"

bool term__interactive(int fd)
{
	const char *term = getenv("TERM");

	return isatty(fd) && term && *term && strcmp(term, "dumb") != 0;
}

bool term__use_color(int fd, enum term_color_mode mode)
{
	const char *no = getenv("NO_COLOR");

	if (mode == TERM_COLOR_ALWAYS)
		return true;
	if (mode == TERM_COLOR_NEVER || (no && *no))
		return false;
	return term__interactive(fd);
}

bool term__show_progress(int fd, bool quiet)
{
	return !quiet && term__interactive(fd);
}

const char *term__sgr(enum term_style style, bool on)
{
	static const char *const sgr[] = {
		[TERM_RESET] = "\033[0m", [TERM_BOLD] = "\033[1m", [TERM_RED] = "\033[31m",
		[TERM_BLUE] = "\033[34m", [TERM_GREEN] = "\033[32m", [TERM_DIM] = "\033[2m",
	};

	if (!on || (unsigned)style >= sizeof(sgr) / sizeof(sgr[0]))
		return "";
	return sgr[style];
}
