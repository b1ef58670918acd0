/*
 * message: how a command speaks on stderr.  One prefix rule, for every
 * line a command (or main, or the option parser) writes there:
 *
 *   mmprof: [warning: |note: ]MESSAGE
 *
 * "mmprof: " says which program spoke among a script's or a CI job's
 * others; "warning: " marks what the reader should act on although the
 * command went on (samples lost, a side's failed runs compared), "note: "
 * what is only worth knowing; an error and a plain status line ("wrote
 * 'x.data' ...") carry neither.  The message is lower case and says what
 * failed and on what (STYLE.md); a usage error ends in "see 'mmprof CMD
 * --help'", which names the command.  Before this rule a third of the
 * lines named the command ("mmprof diff: ...") and two thirds did not, and
 * warnings came as "mmprof: warning:", "mmprof diff: warning:" and
 * "mmprof diff: WARNING:".
 *
 * fmt is printf's, without the final '\n' (one line, added here).  The
 * few lines built in pieces (record's progress line, resolve's kernel
 * summary, record --budget's verdict) write the same prefix themselves.  The
 * exit status stays the command's decision (cmd.h): error() only says, and
 * returns -1 for "return error(...)" in the helpers that return -1.
 */
#ifndef MMPROF_MESSAGE_H
#define MMPROF_MESSAGE_H

#include <stdarg.h>

int error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void warning(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void note(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void inform(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* kind: "", "warning: " or "note: "; for callers that take the kind as data */
void message__vsay(const char *kind, const char *fmt, va_list ap)
	__attribute__((format(printf, 2, 0)));
void message__line(const char *kind, const char *line);

#endif
