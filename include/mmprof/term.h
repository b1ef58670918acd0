/*
 * term: when to colour and when to show progress, and the escapes to do it.
 *
 * Colour and progress lines are for people at a terminal: never in a pipe
 * or a file (CI logs, `| less` without -R, redirections), never on a dumb
 * terminal, and colour never when the NO_COLOR environment variable is set
 * to anything (https://no-color.org) or a command's --no-color is given.
 * Commands decide once, at start, and pass the answer down; library code
 * does not look at the terminal itself.
 *
 * Pure except for isatty(3) and getenv(3); nothing allocates.
 */
#ifndef MMPROF_TERM_H
#define MMPROF_TERM_H

#include <stdbool.h>

/* A command's colour choice: TERM_COLOR_AUTO follows the terminal. */
enum term_color_mode { TERM_COLOR_AUTO, TERM_COLOR_NEVER, TERM_COLOR_ALWAYS };

/* Is fd a terminal a person reads (a tty, TERM set and not "dumb")? */
bool term__interactive(int fd);

/* Colour output written to fd?  ALWAYS wins, then NO_COLOR, then the tty test. */
bool term__use_color(int fd, enum term_color_mode mode);

/* Show progress lines on fd (stderr, usually)? quiet: the command's -q. */
bool term__show_progress(int fd, bool quiet);

enum term_style { TERM_RESET, TERM_BOLD, TERM_RED, TERM_BLUE, TERM_GREEN, TERM_DIM };

/* The escape sequence of a style, or "" when on is false. */
const char *term__sgr(enum term_style style, bool on);

#endif
