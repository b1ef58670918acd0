/*
 * datafile: the .data file, an SQLite database holding one profile.
 *
 * The schema is specified in Documentation/data-format.md and versioned by
 * PROFILE_FORMAT_VERSION (stored in PRAGMA user_version and in the meta
 * table).  Saving is atomic: the database is written to a temporary file
 * in the target's directory, made durable, then renamed over the target;
 * a failed or interrupted save never leaves a half-written file under the
 * target name.  Loading treats the file as untrusted: a foreign file, a
 * newer format, a truncated or inconsistent database (dangling ids, a
 * stack trie whose parents do not precede their children, absurd sizes) is
 * refused with -EINVAL or -EPROTO and one line in e.
 *
 * Loading reads aggregates only (stacks, counts, counters): a report never
 * replays samples.
 */
#ifndef MMPROF_DATAFILE_H
#define MMPROF_DATAFILE_H

#include "mmprof/errmsg.h"
#include "mmprof/profile.h"

/* Write p to path atomically.  0 or -errno with e filled. */
int datafile__save(const struct profile *p, const char *path, struct errmsg *e);

/* Read path into a new profile (*out, to be freed with profile__free). */
int datafile__load(const char *path, struct profile **out, struct errmsg *e);

#endif
