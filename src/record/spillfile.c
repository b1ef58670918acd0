/*
 * spillfile: unnamed temporary files of zlib'd blocks; see
 * include/mmprof/spillfile.h.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>
#include <zlib.h>

#include "mmprof/spillfile.h"
#include "mmprof/xalloc.h"

int spillfile__open(const char *dir)
{
	char path[4096];
	int fd, n;

	if (!dir || !*dir)
		dir = ".";
	fd = open(dir, O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
	if (fd < 0 && (errno == EOPNOTSUPP || errno == EISDIR || errno == EINVAL)) {
		/* no O_TMPFILE here: a name for as long as it takes to unlink it */
		n = snprintf(path, sizeof(path), "%s/.mmprof.spill.XXXXXX", dir);
		if (n < 0 || (size_t)n >= sizeof(path))
			return -ENAMETOOLONG;
		fd = mkostemp(path, O_CLOEXEC);
		if (fd >= 0)
			unlink(path);
	}
	return fd < 0 ? -errno : fd;
}

int spillfile__pio(int fd, void *buf, size_t n, uint64_t off, bool write)
{
	char *p = buf;

	while (n) {
		ssize_t r = write ? pwrite(fd, p, n, (off_t)off) : pread(fd, p, n, (off_t)off);

		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			return r < 0 ? -errno : -EIO;
		p += r;
		n -= (size_t)r;
		off += (uint64_t)r;
	}
	return 0;
}

static void reserve(struct spillbuf *b, size_t n)
{
	if (n > b->alloc) {
		free(b->p);
		b->alloc = n;
		b->p = xmalloc(n);
	}
}

void spillbuf__release(struct spillbuf *b)
{
	free(b->p);
	b->p = NULL;
	b->alloc = 0;
}

int spillfile__put(int fd, uint64_t *at, const void *raw, size_t len, int level,
		   struct spillbuf *z)
{
	uLongf zlen = compressBound((uLong)len);
	uint32_t hdr[2];
	int err;

	if (!len || len > UINT32_MAX)
		return -EINVAL;
	reserve(z, zlen);
	if (compress2(z->p, &zlen, raw, (uLong)len, level) != Z_OK)
		return -ENOMEM;
	hdr[0] = (uint32_t)len;
	hdr[1] = (uint32_t)zlen;
	if ((err = spillfile__pio(fd, hdr, sizeof(hdr), *at, true)) ||
	    (err = spillfile__pio(fd, z->p, zlen, *at + sizeof(hdr), true)))
		return err;
	*at += sizeof(hdr) + zlen;
	return 0;
}

int spillfile__get(int fd, uint64_t *at, uint64_t end, struct spillbuf *raw, size_t *len,
		   struct spillbuf *z)
{
	uint32_t hdr[2];
	uLongf n;
	int err;

	*len = 0;
	if (*at >= end)
		return 0;
	if (end - *at < sizeof(hdr) || spillfile__pio(fd, hdr, sizeof(hdr), *at, false))
		return -EIO;
	/* zlib inflates at most ~1032 to 1: a larger raw length is a broken header */
	if (!hdr[0] || hdr[1] > end - *at - sizeof(hdr) || hdr[0] / 1032 > hdr[1])
		return -EIO;
	reserve(z, hdr[1]);
	reserve(raw, hdr[0]);
	if ((err = spillfile__pio(fd, z->p, hdr[1], *at + sizeof(hdr), false)))
		return err;
	n = hdr[0];
	if (uncompress(raw->p, &n, z->p, hdr[1]) != Z_OK || n != hdr[0])
		return -EIO;
	*len = n;
	*at += sizeof(hdr) + hdr[1];
	return 0;
}
