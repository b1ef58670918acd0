/*
 * outfile: write beside the target, then rename (outfile.h).  The temporary
 * is named after the process so that two writers of one path do not share
 * it, and opened "wx" (O_EXCL) so that a stale one is not written through.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "mmprof/outfile.h"
#include "mmprof/xalloc.h"

int outfile__check_target(const char *path, struct errmsg *e)
{
	struct stat st;

	/*
	 * The rename would replace whatever path names: as root, a device
	 * (/dev/null) would become a regular file, and a symlink a file of
	 * root's where the link's owner pointed it (security.md): only a
	 * regular file, or nothing, is taken.
	 */
	if (lstat(path, &st) == 0 && !S_ISREG(st.st_mode))
		return errmsg__set(e, -EINVAL, "cannot write '%s': it exists and is not a regular "
				   "file; remove it or choose another name", path);
	return 0;
}

/*
 * The temporary's writes go through here, so that a failed one keeps its
 * errno for the close: stdio only keeps that one failed (a full disk read
 * "Input/output error" when the write had said ENOSPC).
 *
 * A failed write returns what was written (0 when nothing), never -1, as
 * glibc's own file writer does: glibc 2.36's fwrite of a block larger than
 * the stream's buffer takes the count as a size_t, so -1 there made it copy
 * from past the caller's data (a crash on a full disk, issue 27).  The
 * short count sets the stream's error flag all the same.
 */
static ssize_t cookie_write(void *cookie, const char *buf, size_t n)
{
	struct outfile *f = cookie;
	size_t done = 0;

	while (done < n) {
		ssize_t w = write(f->fd, buf + done, n - done);

		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0) {
			f->werr = w < 0 ? errno : EIO;
			return (ssize_t)done;
		}
		done += (size_t)w;
	}
	return (ssize_t)done;
}

static int cookie_close(void *cookie)
{
	struct outfile *f = cookie;
	int err = close(f->fd) ? errno : 0;

	f->fd = -1;
	if (err && !f->werr)
		f->werr = err;
	return err ? -1 : 0;
}

int outfile__open(struct outfile *f, const char *path, struct errmsg *e)
{
	static const cookie_io_functions_t io = { .write = cookie_write, .close = cookie_close };
	size_t len;
	int err;

	f->fp = stdout;
	f->tmp = NULL;
	f->path = path;
	f->fd = -1;
	f->werr = 0;
	if (!path || !strcmp(path, "-"))
		return 0;
	err = outfile__check_target(path, e);
	if (err)
		return err;
	len = strlen(path) + 32;
	f->tmp = xmalloc(len);
	snprintf(f->tmp, len, "%s.tmp.%ld", path, (long)getpid());
	/* never through a link or a file planted under the temporary's name */
	f->fd = open(f->tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0666);
	f->fp = f->fd < 0 ? NULL : fopencookie(f, "w", io);
	if (!f->fp) {
		err = errno;
		errmsg__set(e, -err, "cannot create '%s': %s", f->tmp, strerror(err));
		if (f->fd >= 0) {
			close(f->fd);
			unlink(f->tmp);
		}
		free(f->tmp);	/* a failed open is all released: nothing to close */
		f->tmp = NULL;
		f->fd = -1;
		return -err;
	}
	return 0;
}

int outfile__close(struct outfile *f, int err, struct errmsg *e)
{
	if (f->tmp && f->fp) {
		/* a write that failed earlier (ENOSPC) leaves ferror and its errno in werr */
		int bad = ferror(f->fp), cerr = fclose(f->fp) ? errno : 0;

		/* what the write said (ENOSPC) over a writer's -EIO, which saw only ferror */
		if (f->werr && err == -EIO)
			err = 0;
		if (f->werr)
			cerr = f->werr;
		if ((bad || cerr) && !err)
			/* the name the user gave: the temporary is gone after this */
			err = errmsg__set(e, cerr ? -cerr : -EIO, "cannot write '%s': %s", f->path,
					  strerror(cerr ? cerr : EIO));
		/* the name may have been planted with a link meanwhile: checked again */
		if (!err)
			err = outfile__check_target(f->path, e);
		if (!err && rename(f->tmp, f->path))
			err = errmsg__set(e, -errno, "cannot rename '%s' to '%s': %s", f->tmp, f->path,
					  strerror(errno));
		if (err)
			unlink(f->tmp);
	}
	free(f->tmp);
	f->tmp = NULL;
	f->fp = NULL;
	return err;
}

int outfile__write(const char *path, const void *data, size_t n, struct errmsg *e)
{
	struct outfile out;
	int err;

	err = outfile__open(&out, path, e);
	if (err)
		return err;
	if (n && fwrite(data, 1, n, out.fp) != n)
		err = errmsg__set(e, out.werr ? -out.werr : -errno, "cannot write '%s': %s", path,
				  strerror(out.werr ? out.werr : errno));
	else if (out.fp == stdout && fflush(stdout))
		err = errmsg__set(e, -errno, "cannot write '%s': %s", path, strerror(errno));
	return outfile__close(&out, err, e);
}

static char *old_name(const char *path)
{
	size_t len = strlen(path) + 5;
	char *old = xmalloc(len);

	snprintf(old, len, "%s.old", path);
	return old;
}

int outfile__old_check(const char *path, struct errmsg *e)
{
	char *old = old_name(path);
	struct stat st;
	int err = 0;

	/* nothing to keep; else a folder or a device named x.old is the user's: never removed */
	if (lstat(path, &st) == 0 && S_ISREG(st.st_mode) &&
	    lstat(old, &st) == 0 && !S_ISREG(st.st_mode) && !S_ISLNK(st.st_mode))
		err = errmsg__set(e, -EEXIST, "cannot keep '%s' as '%s': that name is taken by "
				  "something else than a file; remove it or choose another -o",
				  path, old);
	free(old);
	return err;
}

int outfile__old_begin(struct outfile_old *k, const char *path, struct errmsg *e)
{
	struct stat st;
	size_t len = strlen(path) + 32;
	int err;

	memset(k, 0, sizeof(*k));
	k->path = path;
	if (lstat(path, &st) || !S_ISREG(st.st_mode))
		return 0;
	err = outfile__old_check(path, e);
	if (err)
		return err;
	k->old = old_name(path);
	k->tmp = xmalloc(len);
	snprintf(k->tmp, len, "%s.old.tmp.%d", path, (int)getpid());
	unlink(k->tmp);	/* a killed run's */
	if (link(path, k->tmp) == 0)
		return 0;
	if ((errno == EPERM || errno == EXDEV || errno == EOPNOTSUPP || errno == EMLINK) &&
	    rename(path, k->tmp) == 0) {
		k->moved = true;
		return 0;
	}
	err = errmsg__set(e, -errno, "cannot keep '%s' as '%s': %s", path, k->old,
			  strerror(errno));
	free(k->tmp);
	free(k->old);
	k->tmp = k->old = NULL;
	return err;
}

int outfile__old_end(struct outfile_old *k, bool replaced, struct errmsg *e)
{
	int err = 0;

	if (!k->tmp)
		return 0;
	if (replaced && rename(k->tmp, k->old))
		err = errmsg__set(e, -errno, "cannot keep '%s' as '%s': %s", k->path, k->old,
				  strerror(errno));
	if (!replaced && k->moved)
		rename(k->tmp, k->path);	/* back where it was */
	else if (!replaced || err)
		unlink(k->tmp);
	free(k->tmp);
	free(k->old);
	k->tmp = k->old = NULL;
	return err;
}
