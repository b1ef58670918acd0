/*
 * errmsg: the one-line explanation that travels with a -errno.
 *
 * Library code returns 0 or -errno and, where the caller passes a
 * struct errmsg, fills it with one lower-case line that says what failed
 * and on what ("cannot open 'x.data': not an mmprof data file").  Only
 * commands print it, prefixed with "mmprof: ".  One line whatever the
 * arguments hold: the message goes through escape.h's text rule (a name
 * from a file with a newline or an ESC in it is written \x0a, \x1b), cut
 * to fit between characters, never inside an escape.
 */
#ifndef MMPROF_ERRMSG_H
#define MMPROF_ERRMSG_H

#include <stddef.h>

struct errmsg {
	char msg[512];
};

/* Format the message (when e is not NULL) and return err, a -errno. */
int errmsg__set(struct errmsg *e, int err, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* Prefix an existing message: "ctx: old message". Returns err. */
int errmsg__prefix(struct errmsg *e, int err, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

#endif
