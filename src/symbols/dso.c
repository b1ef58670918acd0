/*
 * dso: the DSOs of a symbols context and the ELF files behind them.
 *
 * A DSO is a mapped path as one mount namespace saw it, with the mapped
 * inode when MMAP2 said which (context.h); loading it opens only that
 * file (by the fd kept since the mmap, or by path checked against the
 * identity), parses each file once per device and inode however many
 * paths reach it, and looks for separate debuginfo by build-id and by
 * .gnu_debuglink.  Files of other mount namespaces are opened while a
 * process of them lives (symbols__watch2), since by the end of the
 * recording it may be gone.  The vdso is parsed from our own copy.  What
 * loading gave, DSO by DSO, is dsoinfo.c's to report.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/fs.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <time.h>
#include <unistd.h>

#include "mmprof/symbols.h"
#include "mmprof/xalloc.h"
#include "internal.h"
#include "context.h"

#define DELETED_SUFFIX " (deleted)"

/* DSOs */

struct name_key {
	const char *s;
	size_t len;
	uint64_t mntns;
	struct file_id id;
};

static const struct file_id no_id;

static bool id_known(const struct file_id *id)
{
	return id && id->ino;
}

static bool id_eq(const struct file_id *a, const struct file_id *b)
{
	return a->maj == b->maj && a->min == b->min && a->ino == b->ino && a->gen == b->gen;
}

static bool dso_eq(const void *ctx, uint32_t row, const void *key)
{
	const struct symbols *s = ctx;
	const struct name_key *k = key;

	return s->dsos[row].mntns == k->mntns && id_eq(&s->dsos[row].id, &k->id) &&
	       !strncmp(s->dsos[row].name, k->s, k->len) && s->dsos[row].name[k->len] == '\0';
}

/*
 * Whether the open file fd is the inode id names.  st_dev and MMAP2's
 * device agree on block-device filesystems; on btrfs subvolumes and
 * overlayfs, stat() gives one anonymous device (major 0) and the mapping
 * another, so two anonymous devices leave the inode (and its generation)
 * to decide.  from_mapping: fd came from /proc/PID/map_files, the mapping
 * itself: the inode alone decides (the range could have been remapped).
 */
static bool id_matches(int fd, const struct file_id *id, bool from_mapping)
{
	struct stat st;
	long gen = 0;

	if (fstat(fd, &st) || (uint64_t)st.st_ino != id->ino)
		return false;
	if (!from_mapping && st.st_dev != makedev(id->maj, id->min) &&
	    (major(st.st_dev) || id->maj))
		return false;
	/*
	 * An inode number is reused once its file is gone: the generation
	 * tells the new file apart where the filesystem gives it (ext4,
	 * btrfs; filesystems write an int into the long).
	 */
	if (id->gen && !ioctl(fd, FS_IOC_GETVERSION, &gen) && (uint32_t)gen != (uint32_t)id->gen)
		return false;
	return true;
}

/* Open path and keep it only when it is the file id names; else -1. */
static int open_checked(const char *path, const struct file_id *id, bool from_mapping)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd >= 0 && !id_matches(fd, id, from_mapping)) {
		close(fd);
		fd = -1;
	}
	return fd;
}

bool dso__is_perfmap(const char *name)
{
	int n = 0;

	return sscanf(name, "/tmp/perf-%*d.map%n", &n) >= 0 && n && !name[n];
}

/*
 * The option on pid's command line that makes its JIT write a perf map
 * (JVM, node/V8, CPython 3.12+), or NULL: so a hint does not ask for a
 * flag the user already gave.  /proc/PID/cmdline, at most 64 KiB of it.
 */
static const char *perfmap_flag(pid_t pid)
{
	static const char *const flags[] = {
		"-XX:+DumpPerfMapAtExit", "--perf-basic-prof", "--perf-basic-prof-only-functions",
		"--perf-prof", "-Xjit:perfTool",
	};
	char path[32], buf[65536];
	const char *p;
	ssize_t n;
	size_t i;
	int fd;

	snprintf(path, sizeof(path), "/proc/%d/cmdline", (int)pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return NULL;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return NULL;
	buf[n] = '\0';
	for (p = buf; p < buf + n; p += strlen(p) + 1) {
		for (i = 0; i < sizeof(flags) / sizeof(flags[0]); i++)
			if (!strcmp(p, flags[i]))
				return flags[i];
		if (!strcmp(p, "perf") && p >= buf + 3 && !strcmp(p - 3, "-X"))
			return "-X perf";	/* CPython 3.12 */
	}
	return NULL;
}

static enum dso_kind dso_kind_of(const char *name, size_t len)
{
	size_t sl = strlen(DELETED_SUFFIX);

	if (!strcmp(name, "[vdso]"))
		return DSO_VDSO;
	if (dso__is_perfmap(name))
		return DSO_PERFMAP;
	if (len > sl && !strcmp(name + len - sl, DELETED_SUFFIX))
		return DSO_DELETED;
	/* "[heap]", "[vsyscall]", "//anon", "/memfd:x": nothing to open. */
	if (name[0] != '/' || name[1] == '/' || !strncmp(name, "/memfd:", 7))
		return DSO_PSEUDO;
	return DSO_FILE;
}

static uint64_t dso_hash(const struct name_key *k)
{
	return hash__combine(hash__combine(hash__bytes(k->s, k->len), k->mntns),
			     hash__combine(k->id.ino, ((uint64_t)k->id.maj << 32) | k->id.min));
}

static void name_key_init(struct name_key *k, const char *name, uint64_t mntns,
			  const struct file_id *id)
{
	k->s = name;
	k->len = strlen(name);
	k->mntns = mntns;
	k->id = id_known(id) ? *id : no_id;
}

static uint32_t dso_find(const struct symbols *s, const struct name_key *k)
{
	return hashidx__find(&s->dso_idx, dso_hash(k), dso_eq, s, k);
}

static void load_file_now(struct symbols *s, struct dso *d, int fd);

/* Give d the open file fd (or, past the bound on kept fds, its symbols). */
static void dso_keep_fd(struct symbols *s, struct dso *d, int fd)
{
	char fdpath[32];

	if (s->nr_fds >= s->max_fds) {
		load_file_now(s, d, fd);
		return;
	}
	d->fd = fd;
	s->nr_fds++;
	snprintf(fdpath, sizeof(fdpath), "/proc/self/fd/%d", fd);
	d->fdpath = xstrdup(fdpath);
}

/*
 * The DSO of name as process pid sees it; mntns is pid's namespace when
 * that is not ours, else 0; id the mapped file's identity, or NULL.
 * *fdp, when not -1, is the file opened while the process lived: the new
 * DSO takes it (sets *fdp to -1).
 */
uint32_t symbols__get_dso(struct symbols *s, const char *name, pid_t pid, uint64_t mntns,
			  int *fdp, const struct file_id *id)
{
	struct name_key k;
	uint32_t row;
	struct dso *d;
	int fd = -1;

	name_key_init(&k, name, mntns, id);
	row = dso_find(s, &k);
	if (row != HASHIDX_NONE)
		return row;
	XGROW(s->dsos, s->alloc_dsos, s->nr_dsos);
	d = &s->dsos[s->nr_dsos];
	memset(d, 0, sizeof(*d));
	d->name = xstrdup(name);
	d->kind = dso_kind_of(name, k.len);
	d->mntns = mntns;
	d->id = k.id;
	d->fd = -1;
	d->owner = -1;
	if (d->kind == DSO_PERFMAP && pid > 0) {
		/* the process may be gone when the map is read at the end */
		char proc[32];
		struct stat st;

		snprintf(proc, sizeof(proc), "/proc/%d", (int)pid);
		if (!stat(proc, &st))
			d->owner = (long)st.st_uid;
		d->jit_flag = perfmap_flag(pid);
	}
	hashidx__insert(&s->dso_idx, dso_hash(&k), (uint32_t)s->nr_dsos++);
	if (fdp && *fdp >= 0 && (d->kind == DSO_FILE || d->kind == DSO_DELETED)) {
		fd = *fdp;	/* opened while the process lived */
		*fdp = -1;
	} else if (mntns && d->kind == DSO_FILE) {
		char path[PATH_MAX + 32];

		snprintf(path, sizeof(path), "/proc/%d/root%s", (int)pid, name);
		fd = open(path, O_RDONLY | O_CLOEXEC);
		if (fd >= 0 && id_known(&d->id) && !id_matches(fd, &d->id, false)) {
			close(fd);
			fd = -1;
			d->stale = true;
		}
	}
	if (fd >= 0)
		dso_keep_fd(s, d, fd);
	return (uint32_t)(d - s->dsos);
}

struct file_key {
	dev_t dev;
	ino_t ino;
};

static bool file_eq(const void *ctx, uint32_t row, const void *key)
{
	const struct symbols *s = ctx;
	const struct file_key *k = key;

	return s->files[row]->dev == k->dev && s->files[row]->ino == k->ino;
}

/*
 * A stripped file's .gnu_debuglink, searched where gdb and perf look: the
 * file's directory, its .debug/ subdirectory, and the debug root plus the
 * file's directory.  Only a file with the recorded CRC is taken: a stale
 * debug file would name the wrong functions.
 */
static void use_debuglink(struct symbols *s, struct elffile *f, const char *path)
{
	const char *slash = strrchr(path, '/');
	int dirlen = slash ? (int)(slash - path) : 0, i;

	for (i = 0; i < 3; i++) {
		char dbg[PATH_MAX];
		uint32_t crc;
		int n;

		if (i == 0)
			n = snprintf(dbg, sizeof(dbg), "%.*s/%s", dirlen, path, f->debuglink);
		else if (i == 1)
			n = snprintf(dbg, sizeof(dbg), "%.*s/.debug/%s", dirlen, path, f->debuglink);
		else
			n = snprintf(dbg, sizeof(dbg), "%s%.*s/%s", s->debug_dir, dirlen, path,
				     f->debuglink);
		if (n <= 0 || (size_t)n >= sizeof(dbg) || !strcmp(dbg, path))
			continue;
		if (elffile__crc32(dbg, &crc) || crc != f->debuglink_crc)
			continue;
		if (!elffile__use_debuginfo(f, dbg, &s->names))
			return;
	}
}

/*
 * A stripped file that perf has met unstripped: perf record and perf
 * buildid-cache keep a copy of each binary under its build-id,
 * DIR/.build-id/xx/rest/{elf,debug}, and perf report takes its symbols
 * from there first (tools/perf/util/symbol.c, binary types
 * BUILD_ID_CACHE and BUILD_ID_CACHE_DEBUGINFO).  Only a file whose own
 * build-id is this one's is used.
 */
static void use_buildid_cache(struct symbols *s, struct elffile *f)
{
	static const char *const kind[] = { "debug", "elf" };
	size_t i;

	for (i = 0; i < sizeof(kind) / sizeof(kind[0]); i++) {
		char path[PATH_MAX];
		int n = snprintf(path, sizeof(path), "%s/.build-id/%.2s/%s/%s", s->buildid_dir,
				 f->build_id, f->build_id + 2, kind[i]);

		if (n > 0 && (size_t)n < sizeof(path) &&
		    !elffile__use_same_build(f, path, &s->names))
			return;
	}
}

/* Parse path, or the already open fd0 (closed here) when not -1. */
static int load_file(struct symbols *s, const char *path, int fd0, struct elffile **out)
{
	struct file_key k;
	struct elffile *f;
	struct stat st;
	uint32_t row;
	uint64_t h;
	int fd, err;

	fd = fd0 >= 0 ? fd0 : open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	if (fstat(fd, &st)) {
		err = -errno;
		close(fd);
		return err;
	}
	k.dev = st.st_dev;
	k.ino = st.st_ino;
	h = hash__combine(hash__u64((uint64_t)k.dev), (uint64_t)k.ino);
	row = hashidx__find(&s->file_idx, h, file_eq, s, &k);
	if (row != HASHIDX_NONE) {
		close(fd);
		*out = s->files[row];
		return 0;
	}
	f = xcalloc(1, sizeof(*f));
	err = elffile__parse(f, fd, NULL, 0, &s->names);
	close(fd);
	if (err) {
		elffile__release(f);
		free(f);
		return err;
	}
	if (!f->has_symtab && f->build_id[0]) {
		/*
		 * A stripped file: its full .symtab may be installed apart,
		 * named by build-id (Debian's -dbg/-dbgsym packages, Fedora's
		 * debuginfo).  perf looks there too; matching it keeps names
		 * such as __memmove_avx_unaligned_erms that .dynsym lacks.
		 */
		char dbg[128];

		snprintf(dbg, sizeof(dbg), "%s/.build-id/%.2s/%s.debug", s->debug_dir,
			 f->build_id, f->build_id + 2);
		elffile__use_debuginfo(f, dbg, &s->names);
	}
	if (!f->has_symtab && f->build_id[0] && s->buildid_dir[0])
		use_buildid_cache(s, f);
	if (!f->has_symtab && f->debuglink[0])
		use_debuglink(s, f, path);
	f->dev = k.dev;
	f->ino = k.ino;
	XGROW(s->files, s->alloc_files, s->nr_files);
	s->files[s->nr_files] = f;
	hashidx__insert(&s->file_idx, h, (uint32_t)s->nr_files++);
	*out = f;
	return 0;
}

static void load_file_now(struct symbols *s, struct dso *d, int fd)
{
	d->loaded = true;
	d->err = load_file(s, d->name, fd, &d->file);
	if (d->err)
		d->file = NULL;
}

/*
 * The vdso is the same image in every process of this kernel (64-bit
 * ones; a 32-bit process has another), so ours serves for all: copy it
 * out of our own [vdso] mapping and parse it from memory.
 */
static int vdso_range(uint64_t *start, uint64_t *end)
{
	FILE *fp = fopen("/proc/self/maps", "re");
	char line[512];
	int err = -ENOENT;

	if (!fp)
		return -errno;
	while (fgets(line, sizeof(line), fp)) {
		unsigned long long a, b;

		if (!strstr(line, "[vdso]") || sscanf(line, "%llx-%llx", &a, &b) != 2)
			continue;
		*start = a;
		*end = b;
		err = 0;
		break;
	}
	fclose(fp);
	return err;
}

static int load_vdso(struct symbols *s, struct elffile **out)
{
	uint64_t start, end;
	void *image;

	if (!s->vdso_tried) {
		s->vdso_tried = true;
		s->vdso_err = vdso_range(&start, &end);
		if (!s->vdso_err && (end <= start || end - start > (64u << 20)))
			s->vdso_err = -ENOEXEC;
		if (!s->vdso_err) {
			image = xmalloc(end - start);
			memcpy(image, (const void *)(uintptr_t)start, end - start);
			s->vdso = xcalloc(1, sizeof(*s->vdso));
			s->vdso_err = elffile__parse(s->vdso, -1, image, end - start, &s->names);
			free(image);
			if (s->vdso_err) {
				elffile__release(s->vdso);
				free(s->vdso);
				s->vdso = NULL;
			}
		}
	}
	*out = s->vdso;
	return s->vdso_err;
}

int symbols__copy_vdso(struct symbols *s)
{
	uint64_t start, end, done = 0;
	int fd, err;

	if (s->vdso_fd >= 0)
		return 0;
	err = vdso_range(&start, &end);
	if (err)
		return err;
	if (end <= start || end - start > (64u << 20))
		return -ENOEXEC;
	fd = memfd_create("mmprof-vdso", MFD_CLOEXEC);
	if (fd < 0)
		return -errno;
	while (done < end - start) {
		ssize_t n = write(fd, (const char *)(uintptr_t)start + done, end - start - done);

		if (n <= 0) {
			err = n < 0 ? -errno : -EIO;
			close(fd);
			return err;
		}
		done += (uint64_t)n;
	}
	s->vdso_fd = fd;
	s->vdso_size = end - start;
	snprintf(s->vdso_path, sizeof(s->vdso_path), "/proc/self/fd/%d", fd);
	return 0;
}

/*
 * The file d mapped, found by its identity when its path no longer
 * gives it (a chroot's or a gone container's path, a process that
 * exited before its mapping could be opened): by handle on its
 * filesystem, checked against the identity; -1 when not found.  A copy
 * is kept (fdpath, within the bound) so that the unwinder and --inline
 * read that file, not the path.
 */
static int open_by_id(struct symbols *s, struct dso *d)
{
	int fd = fhandle__open(s->mountinfo, d->id.maj, d->id.min, d->id.ino, d->id.gen), keep;

	if (fd >= 0 && !id_matches(fd, &d->id, false)) {
		close(fd);
		fd = -1;
	}
	if (fd < 0)
		return -1;
	d->stale = false;
	d->by_handle = true;
	if (s->nr_fds < s->max_fds && (keep = fcntl(fd, F_DUPFD_CLOEXEC, 0)) >= 0)
		dso_keep_fd(s, d, keep);
	return fd;
}

void symbols__load_dso(struct symbols *s, struct dso *d)
{
	d->loaded = true;
	switch (d->kind) {
	case DSO_FILE:
	case DSO_DELETED:
		if (d->fd >= 0) {
			/* a copy: d->fd stays for the unwinder's reads (fdpath) */
			int fd = fcntl(d->fd, F_DUPFD_CLOEXEC, 0);

			d->err = fd < 0 ? -errno : load_file(s, d->name, fd, &d->file);
		} else if (d->kind == DSO_DELETED || d->stale) {
			d->err = -ESTALE;
		} else if (id_known(&d->id)) {
			/* only the file that was mapped: another one's names would lie */
			int fd = open(d->name, O_RDONLY | O_CLOEXEC);

			if (fd < 0) {
				d->err = -errno;
			} else if (!id_matches(fd, &d->id, false)) {
				close(fd);
				fd = -1;
				d->stale = true;
				d->err = -ESTALE;
			}
			if (fd < 0)
				fd = open_by_id(s, d);
			if (fd >= 0)
				d->err = load_file(s, d->name, fd, &d->file);
		} else {
			d->err = load_file(s, d->name, -1, &d->file);
		}
		break;
	case DSO_PERFMAP:
		d->own = xcalloc(1, sizeof(*d->own));
		d->err = perfmap__read(d->own, d->name, d->owner, &s->names);
		if (d->err) {
			elffile__release(d->own);
			free(d->own);
			d->own = NULL;
		}
		d->file = d->own;
		break;
	case DSO_VDSO:
		d->err = load_vdso(s, &d->file);
		break;
	case DSO_PSEUDO:
		d->err = -EOPNOTSUPP;
		break;
	}
	if (d->err)
		d->file = NULL;
}

struct nsfile_key {
	pid_t pid;
	const char *name;
	struct file_id id;
};

static uint64_t nsfile_hash(const struct nsfile_key *k)
{
	return hash__combine(hash__combine(hash__bytes(k->name, strlen(k->name)), (uint64_t)k->pid),
			     k->id.ino);
}

static bool nsfile_eq(const void *ctx, uint32_t row, const void *key)
{
	const struct nsfile *f = &((const struct symbols *)ctx)->nsfiles[row];
	const struct nsfile_key *k = key;

	return f->pid == k->pid && id_eq(&f->id, &k->id) && !strcmp(f->name, k->name);
}

struct nsfile *symbols__find_nsfile(struct symbols *s, pid_t pid, const char *name,
				    const struct file_id *id)
{
	struct nsfile_key k = { pid, name, id_known(id) ? *id : no_id };
	uint32_t row = hashidx__find(&s->nsfile_idx, nsfile_hash(&k), nsfile_eq, s, &k);

	return row == HASHIDX_NONE ? NULL : &s->nsfiles[row];
}

static struct nsfile *nsfile_add(struct symbols *s, pid_t pid, const char *name,
				 const struct file_id *id, uint64_t ns)
{
	struct nsfile_key k = { pid, name, id_known(id) ? *id : no_id };
	struct nsfile *nf;

	XGROW(s->nsfiles, s->alloc_nsfiles, s->nr_nsfiles);
	nf = &s->nsfiles[s->nr_nsfiles];
	nf->pid = pid;
	nf->name = xstrdup(name);
	nf->id = k.id;
	nf->mntns = ns;
	nf->fd = -1;
	nf->dso = HASHIDX_NONE;
	hashidx__insert(&s->nsfile_idx, nsfile_hash(&k), (uint32_t)s->nr_nsfiles++);
	return nf;
}

void symbols__watch(struct symbols *s, pid_t pid, const char *filename)
{
	symbols__watch2(s, pid, 0, 0, filename, NULL);
}

/*
 * The file (name, id) as pid maps it at [start, end): through the path
 * (root: "/proc/PID/root" for another namespace, "" for ours), else
 * through the mapping itself, which still reaches a file deleted or
 * replaced since.  -1 when neither is that file now.
 */
static int open_mapped(pid_t pid, uint64_t start, uint64_t end, const char *name, bool path_ok,
		       const char *root, const struct file_id *id)
{
	char path[PATH_MAX + 64];
	int fd = -1;

	if (path_ok) {
		snprintf(path, sizeof(path), "%s%s", root, name);
		fd = id ? open_checked(path, id, false) : open(path, O_RDONLY | O_CLOEXEC);
	}
	if (fd < 0 && end > start) {
		snprintf(path, sizeof(path), "/proc/%d/map_files/%" PRIx64 "-%" PRIx64, (int)pid,
			 start, end);
		fd = open_checked(path, id, true);
	}
	return fd;
}

/*
 * One file, several DSOs: the same inode seen through a live process of
 * a container (keyed by its namespace) and through gone ones (whose
 * namespace could no longer be read: keyed as ours).  A DSO missed at
 * first sight takes a copy of the fd another DSO keeps on its file, and
 * a file opened now serves the DSOs that missed it.  Scans the DSOs, on
 * first sights and retries only.
 */
static int fd_of_file(const struct symbols *s, const struct file_id *id)
{
	size_t i;

	for (i = 0; i < s->nr_dsos; i++)
		if (s->dsos[i].fd >= 0 && id_eq(&s->dsos[i].id, id))
			return fcntl(s->dsos[i].fd, F_DUPFD_CLOEXEC, 0);
	return -1;
}

static void give_missed(struct symbols *s, const struct file_id *id, int fd)
{
	size_t i;

	for (i = 0; i < s->nr_dsos && s->nr_fds < s->max_fds; i++) {
		struct dso *d = &s->dsos[i];
		int keep;

		if (d->missed && d->fd < 0 && !d->loaded && id_eq(&d->id, id) &&
		    (keep = fcntl(fd, F_DUPFD_CLOEXEC, 0)) >= 0) {
			d->missed = false;
			dso_keep_fd(s, d, keep);
		}
	}
}

void symbols__watch2(struct symbols *s, pid_t pid, uint64_t start, uint64_t len,
		     const char *filename, const struct file_id *id)
{
	char spid[16], root[48];
	enum dso_kind kind;
	struct nsfile *nf;
	struct name_key k;
	uint64_t ns;
	uint32_t row;
	bool foreign;
	int fd;

	if (pid <= 0 || !filename || filename[0] != '/')
		return;
	kind = dso_kind_of(filename, strlen(filename));
	if (kind != DSO_FILE && !(kind == DSO_DELETED && id_known(id)))
		return;
	snprintf(spid, sizeof(spid), "%d", (int)pid);
	ns = s->mntns ? mntns__of(spid) : 0;
	foreign = ns && ns != s->mntns;
	if (!id_known(id)) {
		/* no identity: only a container's path needs opening now */
		if (!foreign || symbols__find_nsfile(s, pid, filename, NULL))
			return;
		nf = nsfile_add(s, pid, filename, NULL, ns);
		snprintf(root, sizeof(root), "/proc/%d/root", (int)pid);
		nf->fd = open_mapped(pid, 0, 0, filename, true, root, NULL);
		return;
	}
	if (foreign && (nf = symbols__find_nsfile(s, pid, filename, id)))
		return;
	name_key_init(&k, filename, foreign ? ns : 0, id);
	row = dso_find(s, &k);
	/* a foreign process's files are opened through its root */
	root[0] = '\0';
	if (foreign)
		snprintf(root, sizeof(root), "/proc/%d/root", (int)pid);
	if (row != HASHIDX_NONE && s->dsos[row].missed && s->dsos[row].fd < 0 &&
	    !s->dsos[row].loaded) {
		/* missed at first sight: another process of the file may still live */
		fd = open_mapped(pid, start, start + len < start ? UINT64_MAX : start + len,
				 filename, kind == DSO_FILE, root, id);
		if (fd >= 0) {
			s->dsos[row].missed = false;
			dso_keep_fd(s, &s->dsos[row], fd);
			if (s->dsos[row].fd >= 0)
				give_missed(s, id, s->dsos[row].fd);
		}
	} else if (row == HASHIDX_NONE) {
		bool missed;

		/* first sight of this file: the one open of it */
		fd = open_mapped(pid, start, start + len < start ? UINT64_MAX : start + len,
				 filename, kind == DSO_FILE, root, id);
		/*
		 * too late: the process (its root, its mappings) gone before its
		 * record was read.  An exited process its parent has not reaped
		 * yet (a zombie) still has /proc/PID, but no root (ENOENT) and no
		 * mappings: gone as well
		 */
		snprintf(root, sizeof(root), "/proc/%d/root", (int)pid);
		missed = fd < 0 && access(root, F_OK) && errno == ENOENT;
		if (missed)
			fd = fd_of_file(s, id);		/* the same file, kept for another DSO */
		else if (fd >= 0)
			give_missed(s, id, fd);
		if (fd >= 0)
			missed = false;
		row = symbols__get_dso(s, filename, pid, k.mntns, &fd, id);
		if (missed)
			s->dsos[row].missed = true;
		if (fd >= 0)
			close(fd);
	}
	if (foreign)
		nsfile_add(s, pid, filename, id, ns)->dso = dso_find(s, &k);
}
