/*
 * test-term: colour and progress decisions (NO_COLOR, --no-color, ttys)
 * and the colouring of the robot's table, on rows copied from real
 * `mmprof diff` output.
 */
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tap.h"
#include "mmprof/term.h"

static const char table[] =
	"         %stddev     %change         %stddev\n"
	"             \\          |                \\  \n"
	"      1482 \xc2\xb1 16%    +788.8%      13178 \xc2\xb1 21%  thp-zap.ops\n"
	"      0.00       +3.3e+106%      32768        thp-zap.anon_huge_kb\n"
	"    759214 \xc2\xb1 16%     -98.3%      13265 \xc2\xb1 21%  thp-zap.time.minor_page_faults\n"
	"      4.05            -1.1%       4.01        thp-zap.time.elapsed_time  [same q=0.2]\n"
	"      0.00       +3.3e+106%         12        tracepoint.exceptions:page_fault_user.address.0x7f00  [address]\n"
	"    262144          -100.0%       0.00        page-fault.ops  [one-side]\n"
	"\n"
	"call chains whose share changed (caller \xe2\x86\x92 callee, points of the event's total):\n"
	"  __handle_mm_fault \xe2\x86\x92 do_anonymous_page  -51.7  (51.70 \xe2\x86\x92 0.00, q=0.0025)\n";

static char *colour(const char *text)
{
	size_t need = term__color_lkp(text, strlen(text), NULL, 0);
	char *out = malloc(need + 1);

	if (out)
		term__color_lkp(text, strlen(text), out, need + 1);
	return out;
}

int main(void)
{
	char *out, small[16];
	int devnull = open("/dev/null", O_WRONLY);
	size_t need;

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

	/* the table */
	out = colour(table);
	ok(out != NULL, "colouring allocates what the first call asked for");
	ok(strstr(out, "    \033[31m+788.8%\033[0m      13178") != NULL, "a rise is red (relative)");
	ok(strstr(out, "\033[31m+3.3e+106%\033[0m") != NULL, "a rise from zero is red");
	ok(strstr(out, "\033[34m-98.3%\033[0m") != NULL, "a fall after the stddev column is blue");
	ok(strstr(out, "      4.05            -1.1%       4.01") != NULL, "a [same] row stays plain");
	ok(strstr(out, "      0.00       +3.3e+106%         12") != NULL, "an [address] row stays plain");
	ok(strstr(out, "    262144          -100.0%       0.00") != NULL, "a [one-side] row stays plain");
	ok(strstr(out, "         %stddev     %change         %stddev\n") == out, "the header stays plain");
	ok(strstr(out, "do_anonymous_page  -51.7  (") != NULL, "call chain lines stay plain");
	is_int((long)strlen(out), (long)strlen(table) + 3 * (5 + 4), "exactly three rows gained escapes");
	free(out);

	/* snprintf-like: a short buffer is filled and terminated, the need reported */
	need = term__color_lkp(table, strlen(table), small, sizeof(small));
	ok(need > sizeof(small), "the length needed is returned for a short buffer");
	is_int((long)strlen(small), (long)sizeof(small) - 1, "a short buffer is NUL-terminated");
	is_int((long)term__color_lkp("", 0, small, sizeof(small)), 0L, "empty input, empty output");

	close(devnull);
	return done_testing();
}
