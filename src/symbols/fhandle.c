/*
 * fhandle: open a mapped file by its identity (device, inode,
 * generation, as MMAP2 gives it) rather than by its path.
 *
 * For a process that ran in a chroot, or in a mount namespace whose
 * files sit on a filesystem the host mounts too, the path in its MMAP2
 * ("/bin/busy") means another file, or none, on the host; its own root
 * (/proc/PID/root) and its mapping (map_files) are gone with it, and a
 * short-lived process is often gone before the recorder reads the
 * record.  The file itself usually still exists.  open_by_handle_at(2)
 * reaches it: ext4, xfs and most block filesystems encode an inode as
 * FILEID_INO32_GEN, the 32-bit inode number and its generation, which
 * are the two numbers MMAP2 carries; tmpfs as the same type with the
 * generation first and a 64-bit inode.  The layout is told by the
 * handle of the filesystem's root (name_to_handle_at: that type, 8 or 12
 * bytes), and the caller checks what opens against the identity, so a
 * filesystem with another encoding (btrfs, overlayfs) gives nothing
 * rather than another file.  Needs CAP_DAC_READ_SEARCH (root).  Used once per DSO whose path
 * does not give its file, at record end.
 *
 * Also which mount namespace a process is in (mntns__of), which both
 * symbols.c (a task's namespace) and dso.c (the opener of another
 * namespace's files) ask: here, so that dso.c calls nothing of
 * symbols.c, which calls dso.c.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "internal.h"

#define FILEID_INO32_GEN	1	/* include/linux/exportfs.h */
#define MAX_MOUNTS		64	/* mounts of one device tried */

/* A mountinfo path with its octal escapes (\040 for a space) undone, in place. */
static void unescape(char *p)
{
	char *w = p;

	for (; *p; p++) {
		if (p[0] == '\\' && p[1] >= '0' && p[1] <= '3' && p[2] >= '0' && p[2] <= '7' &&
		    p[3] >= '0' && p[3] <= '7') {
			*w++ = (char)((p[1] - '0') * 64 + (p[2] - '0') * 8 + (p[3] - '0'));
			p += 3;
		} else {
			*w++ = *p;
		}
	}
	*w = '\0';
}

/* The file (ino, gen) on the filesystem mounted at mount fd mfd, or -1. */
static int open_on(int mfd, uint64_t ino, uint64_t gen)
{
	struct {
		struct file_handle h;
		uint32_t words[16];
	} fh;
	int mount_id;

	memset(&fh, 0, sizeof(fh));
	fh.h.handle_bytes = sizeof(fh.words);
	if (name_to_handle_at(mfd, "", &fh.h, &mount_id, AT_EMPTY_PATH) ||
	    fh.h.handle_type != FILEID_INO32_GEN)
		return -1;
	if (fh.h.handle_bytes == 8) {
		/* generic_encode_ino32_fh: ext2/3/4, xfs, fat, ... */
		if (ino > UINT32_MAX)
			return -1;
		fh.words[0] = (uint32_t)ino;
		fh.words[1] = (uint32_t)gen;
	} else if (fh.h.handle_bytes == 12) {
		/* shmem_encode_fh (tmpfs): generation, then the 64-bit inode */
		fh.words[0] = (uint32_t)gen;
		fh.words[1] = (uint32_t)ino;
		fh.words[2] = (uint32_t)(ino >> 32);
	} else {
		return -1;
	}
	return open_by_handle_at(mfd, &fh.h, O_RDONLY | O_CLOEXEC);
}

int fhandle__open(const char *mountinfo, uint32_t maj, uint32_t min, uint64_t ino, uint64_t gen)
{
	char *line = NULL, want[32];
	size_t cap = 0, tried = 0;
	int fd = -1;
	FILE *fp;

	if (!ino)
		return -1;
	fp = fopen(mountinfo, "re");
	if (!fp)
		return -1;
	snprintf(want, sizeof(want), "%u:%u", maj, min);
	/* "ID PARENT MAJ:MIN ROOT MOUNTPOINT ...": any mount of the device will do */
	while (fd < 0 && tried < MAX_MOUNTS && getline(&line, &cap, fp) > 0) {
		char *f[5], *save = NULL, *p = line;
		int i, mfd;

		for (i = 0; i < 5 && (f[i] = strtok_r(p, " ", &save)); i++)
			p = NULL;
		if (i < 5 || strcmp(f[2], want))
			continue;
		tried++;
		unescape(f[4]);
		mfd = open(f[4], O_RDONLY | O_DIRECTORY | O_CLOEXEC);	/* not O_PATH: EBADF */
		if (mfd < 0)
			continue;
		fd = open_on(mfd, ino, gen);
		close(mfd);
	}
	free(line);
	fclose(fp);
	return fd;
}

/* The inode of /proc/PID/ns/mnt ("mnt:[4026531841]"), 0 when unreadable. */
uint64_t mntns__of(const char *pid)
{
	char path[64], link[64];
	ssize_t n;

	snprintf(path, sizeof(path), "/proc/%s/ns/mnt", pid);
	n = readlink(path, link, sizeof(link) - 1);
	if (n <= 0)
		return 0;
	link[n] = '\0';
	return !strncmp(link, "mnt:[", 5) ? strtoull(link + 5, NULL, 10) : 0;
}
