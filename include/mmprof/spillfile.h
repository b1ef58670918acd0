/*
 * spillfile: an unnamed temporary file of zlib'd blocks, what chainspill.h
 * (the sampler's raw chains past its arena) and chainsort.h (whole call
 * chains past the trie) write their sorted runs to.
 *
 * The file is created in a folder the caller names (the output's: the same
 * filesystem, the disk a user chose for the profile) without a name:
 * O_TMPFILE, or where the filesystem has none a ".mmprof.spill.XXXXXX"
 * unlinked as soon as it is opened.  Nothing is left behind on any exit,
 * SIGKILL included.
 *
 * A block is a 4-byte raw length, a 4-byte compressed length
 * (little-endian: the file never leaves this process) and the zlib stream;
 * each block decompresses on its own, so a reader holds one at a time.
 */
#ifndef MMPROF_SPILLFILE_H
#define MMPROF_SPILLFILE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* A buffer reused from block to block. */
struct spillbuf {
	unsigned char *p;
	size_t alloc;
};

/* The unnamed file in dir ("." when NULL or empty): its descriptor, or -errno. */
int spillfile__open(const char *dir);

/* All of n bytes at off, read or written, short transfers resumed: 0 or -errno. */
int spillfile__pio(int fd, void *buf, size_t n, uint64_t off, bool write);

/*
 * Compress len (> 0, < 4 GiB) bytes of raw at zlib level, as one block at
 * *at, and move *at past it; z is the caller's scratch.  0 or -errno.
 */
int spillfile__put(int fd, uint64_t *at, const void *raw, size_t len, int level,
		   struct spillbuf *z);

/*
 * The block at *at (before end) into raw (*len its bytes), *at past it;
 * *len 0 at end.  0 or -errno: -EIO for a block that does not fit before
 * end or does not decompress.
 */
int spillfile__get(int fd, uint64_t *at, uint64_t end, struct spillbuf *raw, size_t *len,
		   struct spillbuf *z);

void spillbuf__release(struct spillbuf *b);

#endif
