/*
 * test-term: colour and progress decisions (NO_COLOR, --no-color, ttys)
 * and the escapes.  The colouring of the robot's table is decided by its
 * row writer and tested with it (test-diff).
 */
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tap.h"
#include "mmprof/term.h"

int main(void)
{
	int devnull = open("/dev/null", O_WRONLY);

	/* decisions: a file is never a terminal; ALWAYS and NEVER win */
	ok(!term__interactive(devnull), "/dev/null is not interactive");
	ok(!term__use_color(devnull, TERM_COLOR_AUTO), "no colour into a non-terminal");
	ok(term__use_color(devnull, TERM_COLOR_ALWAYS), "ALWAYS colours even a file");
	ok(!term__show_progress(devnull, false), "no progress into a non-terminal");
	setenv("NO_COLOR", "1", 1);
	ok(!term__use_color(devnull, TERM_COLOR_AUTO), "NO_COLOR turns colour off");
	unsetenv("NO_COLOR");
	setenv("TERM", "dumb", 1);
	ok(!term__interactive(STDIN_FILENO), "TERM=dumb is never interactive");
	ok(!term__use_color(STDIN_FILENO, TERM_COLOR_AUTO), "no colour on a dumb terminal");
	ok(!term__use_color(STDIN_FILENO, TERM_COLOR_NEVER), "NEVER wins");
	is_str(term__sgr(TERM_RED, false), "", "a style switched off is empty");
	is_str(term__sgr(TERM_RED, true), "\033[31m", "red is SGR 31");

	close(devnull);
	return done_testing();
}
