/*
 * outfile: an output file that appears whole or not at all.  The text is
 * written to "<path>.tmp.<pid>" beside path (same directory, so the same
 * filesystem and rename(2) is atomic), created exclusively, and renamed
 * over path when complete; on failure the temporary is removed, so a
 * failed write leaves no half file and never clobbers the old one.  A
 * path that names something else than a regular file (a symlink, a
 * device, a directory, a FIFO) is refused: the rename would replace it
 * (security.md's one rule for every writer; datafile__save's too).  path
 * NULL or "-" is standard output, which is left to its owner (main
 * flushes and checks stdout).  One file per command run: no state beyond
 * the struct.
 */
#ifndef MMPROF_OUTFILE_H
#define MMPROF_OUTFILE_H

#include <stddef.h>
#include <stdbool.h>
#include <stdio.h>

#include "mmprof/errmsg.h"

struct outfile {
	FILE *fp;		/* where to write: stdout or the temporary */
	char *tmp;		/* owned: the temporary's name, NULL for stdout */
	const char *path;	/* borrowed: the name it will have */
	int fd;			/* the temporary's, under fp */
	int werr;		/* the errno of the first failed write (ENOSPC), or 0 */
};

/*
 * 0 when path may be written by a rename over it: nothing there, or a
 * regular file; else -EINVAL and e ("cannot write 'x': it exists and is
 * not a regular file; ...").  A symlink is refused, never followed nor
 * replaced.  Writers check before their work and again at the rename.
 */
int outfile__check_target(const char *path, struct errmsg *e);

/* Open f for path.  0, or -errno and e ("cannot create 'x.tmp.12': ...") with f released. */
int outfile__open(struct outfile *f, const char *path, struct errmsg *e);

/*
 * Finish f: with err 0, close the temporary and rename it to its path;
 * with err < 0 (the writer failed) or when that fails, remove it.
 * Returns err, else 0 or -errno and e ("cannot write 'x': No space left on device",
 * "cannot rename ..."); e is left alone when err was already set, but
 * for -EIO when a write failed: then e says that write's errno (a writer
 * that saw only ferror cannot tell a full disk).  f is
 * released either way (a NULL-initialised f too).
 */
int outfile__close(struct outfile *f, int err, struct errmsg *e);

/* Write n bytes of data as the whole of path (open, write, close above). */
int outfile__write(const char *path, const void *data, size_t n, struct errmsg *e);

/*
 * Keep what path holds as "<path>.old" when it is replaced, as perf keeps
 * perf.data.old, and only then: a failed write leaves path, an older
 * <path>.old and the folder as they were.
 *   outfile__old_check   before the work: -EEXIST (e filled) when path
 *                        is a file to keep and <path>.old is taken by
 *                        something else than a file or symlink (a folder
 *                        is the user's)
 *   outfile__old_begin   just before path is replaced: a regular file at
 *                        path is hard-linked as a temporary beside it (on
 *                        a filesystem without hard links: renamed; path
 *                        is then missing until the write or _end)
 *   outfile__old_end     after it: replaced, the temporary becomes
 *                        <path>.old (an older one replaced, atomically);
 *                        not, it is removed (or renamed back to path)
 * 0 also when path does not exist or is not a regular file; else -errno
 * and e ("cannot keep 'x.data' as 'x.data.old': ...").  _end frees k.
 */
struct outfile_old {
	char *tmp, *old;	/* owned; NULL: nothing kept */
	const char *path;	/* borrowed */
	bool moved;		/* renamed, not linked */
};
int outfile__old_check(const char *path, struct errmsg *e);
int outfile__old_begin(struct outfile_old *k, const char *path, struct errmsg *e);
int outfile__old_end(struct outfile_old *k, bool replaced, struct errmsg *e);

#endif
