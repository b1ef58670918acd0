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

/* Appends n bytes at *pos when they fit; counts them regardless. */
static void put(char *out, size_t size, size_t *pos, const char *s, size_t n)
{
	if (*pos < size) {
		size_t room = size - *pos;

		memcpy(out + *pos, s, n < room ? n : room);
	}
	*pos += n;
}

/*
 * A table row is "VALUE [± N%] CHANGE VALUE [± N%]  KEY": the change is
 * the first token after the base value and its optional "± N%".  Tokens
 * are found by spaces, so the fixed widths of the format do not matter.
 * Returns the change token's [start, end) in line, or false for a line that
 * is not a row (headers, call chains, blank lines).
 */
static bool change_token(const char *line, size_t len, size_t *start, size_t *end)
{
	size_t i = 0, tok = 0, s = 0;

	while (i < len) {
		while (i < len && line[i] == ' ')
			i++;
		if (i == len)
			break;
		s = i;
		while (i < len && line[i] != ' ')
			i++;
		tok++;
		if (tok == 1) {
			/* the base value: a number */
			if (!strchr("0123456789-+.", line[s]))
				return false;
		} else if (tok == 2 && !strncmp(line + s, "\xc2\xb1", 2)) {
			/* "±" then "N%": skip both */
			while (i < len && line[i] == ' ')
				i++;
			while (i < len && line[i] != ' ')
				i++;
		} else {
			if ((line[s] != '+' && line[s] != '-') || i - s < 2)
				return false;
			*start = s;
			*end = i;
			return true;
		}
	}
	return false;
}

size_t term__color_lkp(const char *text, size_t len, char *out, size_t size)
{
	size_t pos = 0, i = 0;

	while (i < len) {
		const char *nl = memchr(text + i, '\n', len - i);
		size_t ll = nl ? (size_t)(nl - (text + i)) + 1 : len - i;
		const char *line = text + i;
		size_t s, e;

		/*
		 * with --all, rows the test did not call changed stay plain:
		 * same, small, untested, and the uncompared address buckets
		 * and one-side families
		 */
		if (change_token(line, ll, &s, &e) && !memmem(line, ll, "  [same", 7) &&
		    !memmem(line, ll, "  [small", 8) && !memmem(line, ll, "  [-]", 5) &&
		    !memmem(line, ll, "  [address]", 11) && !memmem(line, ll, "  [one-side]", 12)) {
			const char *c = term__sgr(line[s] == '+' ? TERM_RED : TERM_BLUE, true);
			const char *r = term__sgr(TERM_RESET, true);

			put(out, size, &pos, line, s);
			put(out, size, &pos, c, strlen(c));
			put(out, size, &pos, line + s, e - s);
			put(out, size, &pos, r, strlen(r));
			put(out, size, &pos, line + e, ll - e);
		} else {
			put(out, size, &pos, line, ll);
		}
		i += ll;
	}
	if (size)
		out[pos < size ? pos : size - 1] = '\0';
	return pos;
}
