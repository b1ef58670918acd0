/*
 * symbols: the context that follows address spaces through a recording
 * and resolves addresses at its end; see include/mmprof/symbols.h.
 *
 * Three tables, each an array with a hash index: tasks (by pid or tid:
 * comm, and for processes their maps), DSOs (by mapped name: how to load
 * it and what loading gave), ELF files (by device and inode, so that one
 * file reached through several paths, e.g. /lib and /usr/lib on a merged
 * /usr, is parsed once).  DSOs load lazily on the first address that
 * needs them: most mapped files of a system-wide run are never sampled.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/fs.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "mmprof/errmsg.h"
#include "mmprof/symbols.h"
#include "mmprof/xalloc.h"
#include "internal.h"

#define KERNEL_DSO "[kernel.kallsyms]"
#define ANON_DSO "//anon"
#define DELETED_SUFFIX " (deleted)"

struct map {
	uint64_t start, end, pgoff;
	uint32_t dso;
};

struct task {
	pid_t id;
	const char *comm;
	struct map *maps;	/* sorted by start, never overlapping */
	size_t nr, alloc;
	uint64_t mntns;		/* mount namespace inode, 0 unknown */
	bool mntns_tried;	/* since the last fork or exec */
	bool known;		/* some event described its address space */
	bool exited;
};

enum dso_kind { DSO_FILE, DSO_VDSO, DSO_PSEUDO, DSO_DELETED, DSO_PERFMAP };

/*
 * A DSO is a path as one mount namespace sees it: the same path in a
 * container and on the host may be two different files (their libc), so
 * DSOs of another namespace are keyed by (path, namespace) and opened
 * through /proc/PID/root while a process of it lives: at the mmap, since
 * by the end of the recording it may be gone.  When MMAP2 says which
 * inode was mapped, that identity is part of the key too: a path that
 * maps another file later in the run (rebuilt, replaced) is another DSO.
 */
struct dso {
	char *name;
	enum dso_kind kind;
	uint64_t mntns;		/* 0: ours */
	struct file_id id;	/* all zero: unknown */
	int fd;			/* the mapped file, opened while a process of
				 * it lived (symbols__watch2, or through
				 * /proc/PID/root), or -1; kept open until
				 * symbols__free (the unwinder reads the file
				 * through fdpath) */
	char *fdpath;		/* "/proc/self/fd/N" of fd, NULL when fd is -1
				 * (allocated: dsos[] moves, the path must not) */
	bool stale;		/* an open found another inode at the path */
	bool loaded;
	int err;
	struct elffile *file;		/* owned by symbols.files, or own */
	struct elffile *own;		/* a perf map's symbols */
};

/*
 * A file of another mount namespace as (pid, path, identity) saw it: the
 * later symbols__mmap2() of the same record finds its DSO here, whatever
 * became of the process meanwhile.  With an identity the DSO is made at
 * once (dso); without, the fd waits for symbols__mmap() to make it.
 */
struct nsfile {
	pid_t pid;
	char *name;
	struct file_id id;
	uint64_t mntns;
	int fd;			/* -1 once a DSO took it */
	uint32_t dso;		/* HASHIDX_NONE: made by symbols__mmap() */
};

struct symbols {
	struct arena names;
	struct strpool pool;
	const char *kernel_dso;
	struct symtab kernel;

	struct task *tasks;
	size_t nr_tasks, alloc_tasks;
	struct hashidx task_idx;

	struct dso *dsos;
	size_t nr_dsos, alloc_dsos;
	struct hashidx dso_idx;

	struct elffile **files;
	size_t nr_files, alloc_files;
	struct hashidx file_idx;

	struct elffile *vdso;
	int vdso_err;
	bool vdso_tried;
	int vdso_fd;		/* memfd copy of our [vdso] for the unwinder, or -1 */
	char vdso_path[32];	/* "/proc/self/fd/N" of vdso_fd */
	uint64_t vdso_size;

	const char *debug_dir;	/* root of build-id debuginfo */
	uint64_t mntns;		/* our mount namespace, 0 unknown */
	bool inline_frames;	/* record --inline */
	size_t nr_fds, max_fds;	/* DSO fds kept open, and their bound */

	/* Kernel DWARF for inline chains (vmlinux.c); kallsyms names. */
	const char *kallsyms_path;	/* what load_kallsyms read, for anchors */
	struct elffile vmlinux;		/* only its Dwarf handle is used */
	char *vmlinux_path;		/* NULL: kernel frames get no chain */
	uint64_t vmlinux_slide;		/* running address - vmlinux address */

	/* Files of other mount namespaces, opened by symbols__watch(). */
	struct nsfile *nsfiles;
	size_t nr_nsfiles, alloc_nsfiles;
	struct hashidx nsfile_idx;
};

/* The inode of /proc/PID/ns/mnt ("mnt:[4026531841]"), 0 when unreadable. */
static uint64_t mntns_of(const char *pid)
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

struct symbols *symbols__new(void)
{
	struct symbols *s = xcalloc(1, sizeof(*s));

	elf_version(EV_CURRENT);
	s->kernel_dso = strpool__intern(&s->pool, KERNEL_DSO, strlen(KERNEL_DSO));
	s->debug_dir = "/usr/lib/debug";
	s->mntns = mntns_of("self");
	s->vdso_fd = -1;
	s->vmlinux.dwarf_fd = -1;
	{
		/* a quarter of the fd limit: the events' fds need the rest */
		struct rlimit rl;

		s->max_fds = 256;
		if (!getrlimit(RLIMIT_NOFILE, &rl) && rl.rlim_cur != RLIM_INFINITY)
			s->max_fds = rl.rlim_cur / 4;
		if (s->max_fds > 4096)
			s->max_fds = 4096;
	}
	return s;
}

void symbols__free(struct symbols *s)
{
	size_t i;

	if (!s)
		return;
	for (i = 0; i < s->nr_tasks; i++)
		free(s->tasks[i].maps);
	free(s->tasks);
	hashidx__release(&s->task_idx);
	for (i = 0; i < s->nr_dsos; i++) {
		free(s->dsos[i].name);
		free(s->dsos[i].fdpath);
		if (s->dsos[i].fd >= 0)
			close(s->dsos[i].fd);
		elffile__release(s->dsos[i].own);
		free(s->dsos[i].own);
	}
	free(s->dsos);
	hashidx__release(&s->dso_idx);
	for (i = 0; i < s->nr_nsfiles; i++) {
		free(s->nsfiles[i].name);
		if (s->nsfiles[i].fd >= 0)
			close(s->nsfiles[i].fd);
	}
	free(s->nsfiles);
	hashidx__release(&s->nsfile_idx);
	for (i = 0; i < s->nr_files; i++) {
		elffile__release(s->files[i]);
		free(s->files[i]);
	}
	free(s->files);
	hashidx__release(&s->file_idx);
	elffile__release(s->vdso);
	free(s->vdso);
	if (s->vdso_fd >= 0)
		close(s->vdso_fd);
	symtab__release(&s->kernel);
	elffile__release(&s->vmlinux);
	free(s->vmlinux_path);
	strpool__release(&s->pool);
	arena__release(&s->names);
	free(s);
}

int symbols__load_kallsyms(struct symbols *s, const char *path, struct errmsg *e)
{
	symtab__release(&s->kernel);
	s->kallsyms_path = strpool__intern(&s->pool, path, strlen(path));
	return kallsyms__read(&s->kernel, path, &s->names, &s->pool, s->kernel_dso, e);
}

int symbols__load_kernel(struct symbols *s, struct errmsg *e)
{
	return symbols__load_kallsyms(s, "/proc/kallsyms", e);
}

/* Tasks */

static bool task_eq(const void *ctx, uint32_t row, const void *key)
{
	const struct symbols *s = ctx;

	return s->tasks[row].id == *(const pid_t *)key;
}

static struct task *task_find(const struct symbols *s, pid_t id)
{
	uint32_t row = hashidx__find(&s->task_idx, hash__u64((uint64_t)id), task_eq, s, &id);

	return row == HASHIDX_NONE ? NULL : &s->tasks[row];
}

/* The task's entry, created if new.  Invalidates other task pointers. */
static struct task *task_get(struct symbols *s, pid_t id)
{
	struct task *t = task_find(s, id);

	if (t)
		return t;
	XGROW(s->tasks, s->alloc_tasks, s->nr_tasks);
	t = &s->tasks[s->nr_tasks];
	memset(t, 0, sizeof(*t));
	t->id = id;
	hashidx__insert(&s->task_idx, hash__u64((uint64_t)id), (uint32_t)s->nr_tasks);
	s->nr_tasks++;
	return t;
}

/* Index of the first map that ends after addr. */
static size_t maps_lower(const struct task *t, uint64_t addr)
{
	size_t lo = 0, hi = t->nr;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (t->maps[mid].end <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* Insert a map; what it covers of older maps is cut away, as mmap does. */
static void maps_insert(struct task *t, const struct map *m)
{
	size_t lo = maps_lower(t, m->start), hi = lo, nnew = 0, i;
	struct map add[3];

	while (hi < t->nr && t->maps[hi].start < m->end)
		hi++;
	if (lo < hi && t->maps[lo].start < m->start) {
		add[nnew] = t->maps[lo];
		add[nnew++].end = m->start;
	}
	add[nnew++] = *m;
	if (lo < hi && t->maps[hi - 1].end > m->end) {
		add[nnew] = t->maps[hi - 1];
		add[nnew].pgoff += m->end - add[nnew].start;
		add[nnew++].start = m->end;
	}
	if (nnew > hi - lo)
		XGROW(t->maps, t->alloc, t->nr + nnew - (hi - lo) - 1);
	memmove(&t->maps[lo + nnew], &t->maps[hi], (t->nr - hi) * sizeof(*t->maps));
	for (i = 0; i < nnew; i++)
		t->maps[lo + i] = add[i];
	t->nr = t->nr - (hi - lo) + nnew;
}

static const struct map *maps_find(const struct task *t, uint64_t addr)
{
	size_t i = maps_lower(t, addr);

	return i < t->nr && t->maps[i].start <= addr ? &t->maps[i] : NULL;
}

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

static bool is_perfmap(const char *name)
{
	int n = 0;

	return sscanf(name, "/tmp/perf-%*d.map%n", &n) >= 0 && n && !name[n];
}

static enum dso_kind dso_kind_of(const char *name, size_t len)
{
	size_t sl = strlen(DELETED_SUFFIX);

	if (!strcmp(name, "[vdso]"))
		return DSO_VDSO;
	if (is_perfmap(name))
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
static uint32_t dso_get(struct symbols *s, const char *name, pid_t pid, uint64_t mntns,
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

static void dso_load(struct symbols *s, struct dso *d)
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
				d->stale = true;
				d->err = -ESTALE;
			} else {
				d->err = load_file(s, d->name, fd, &d->file);
			}
		} else {
			d->err = load_file(s, d->name, -1, &d->file);
		}
		break;
	case DSO_PERFMAP:
		d->own = xcalloc(1, sizeof(*d->own));
		d->err = perfmap__read(d->own, d->name, &s->names);
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

/* Address-space events */

void symbols__comm(struct symbols *s, pid_t pid, pid_t tid, const char *comm, bool exec)
{
	const char *c = strpool__intern(&s->pool, comm, strlen(comm));
	struct task *t;

	task_get(s, tid)->comm = c;
	if (!exec)
		return;
	/* After exec the caller is the only thread and the leader: tid == pid. */
	t = task_get(s, pid);
	t->comm = c;
	t->nr = 0;
	t->known = true;
	t->exited = false;
	t->mntns_tried = false;	/* unshare + exec: a new namespace */
}

void symbols__fork(struct symbols *s, pid_t pid, pid_t ppid)
{
	struct task *child, *parent;
	struct map *own = NULL;
	size_t nr_own = 0, i;

	if (pid == ppid)
		return;		/* a new thread shares its process's maps */
	child = task_get(s, pid);
	if (child->known && !child->exited) {
		/*
		 * The child spoke first (events from another CPU delivered
		 * early): its own maps are newer than what it inherits.
		 */
		own = child->maps;
		nr_own = child->nr;
	} else {
		free(child->maps);
		child->comm = NULL;
	}
	child->maps = NULL;
	child->nr = child->alloc = 0;
	child->mntns_tried = false;
	child->known = true;
	child->exited = false;
	parent = task_find(s, ppid);
	child = task_find(s, pid);
	if (parent) {
		if (parent->nr) {
			child->maps = xmalloc(parent->nr * sizeof(*child->maps));
			memcpy(child->maps, parent->maps, parent->nr * sizeof(*child->maps));
			child->nr = child->alloc = parent->nr;
		}
		if (!child->comm)
			child->comm = parent->comm;
	}
	for (i = 0; i < nr_own; i++)
		maps_insert(child, &own[i]);
	free(own);
}

void symbols__exit(struct symbols *s, pid_t pid, pid_t tid)
{
	struct task *t = task_find(s, pid);

	if (t && pid == tid)
		t->exited = true;
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

static struct nsfile *nsfile_find(struct symbols *s, pid_t pid, const char *name,
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

void symbols__watch2(struct symbols *s, pid_t pid, uint64_t start, uint64_t len,
		     const char *filename, const struct file_id *id)
{
	char spid[16], root[48];
	enum dso_kind kind;
	struct nsfile *nf;
	struct name_key k;
	uint64_t ns;
	bool foreign;
	int fd;

	if (pid <= 0 || !filename || filename[0] != '/')
		return;
	kind = dso_kind_of(filename, strlen(filename));
	if (kind != DSO_FILE && !(kind == DSO_DELETED && id_known(id)))
		return;
	snprintf(spid, sizeof(spid), "%d", (int)pid);
	ns = s->mntns ? mntns_of(spid) : 0;
	foreign = ns && ns != s->mntns;
	if (!id_known(id)) {
		/* no identity: only a container's path needs opening now */
		if (!foreign || nsfile_find(s, pid, filename, NULL))
			return;
		nf = nsfile_add(s, pid, filename, NULL, ns);
		snprintf(root, sizeof(root), "/proc/%d/root", (int)pid);
		nf->fd = open_mapped(pid, 0, 0, filename, true, root, NULL);
		return;
	}
	if (foreign && (nf = nsfile_find(s, pid, filename, id)))
		return;
	name_key_init(&k, filename, foreign ? ns : 0, id);
	if (dso_find(s, &k) == HASHIDX_NONE) {
		/* first sight of this file: the one open of it */
		snprintf(root, sizeof(root), foreign ? "/proc/%d/root" : "", (int)pid);
		fd = open_mapped(pid, start, start + len < start ? UINT64_MAX : start + len,
				 filename, kind == DSO_FILE, root, id);
		dso_get(s, filename, pid, k.mntns, &fd, id);
		if (fd >= 0)
			close(fd);
	}
	if (foreign)
		nsfile_add(s, pid, filename, id, ns)->dso = dso_find(s, &k);
}

void symbols__mmap(struct symbols *s, pid_t pid, uint64_t start, uint64_t len,
		   uint64_t pgoff, const char *filename)
{
	symbols__mmap2(s, pid, start, len, pgoff, filename, NULL);
}

void symbols__mmap2(struct symbols *s, pid_t pid, uint64_t start, uint64_t len,
		    uint64_t pgoff, const char *filename, const struct file_id *id)
{
	struct nsfile *nf;
	struct map m;
	struct task *t;

	if (pid < 0 || !len)
		return;		/* pid -1: kernel maps; kallsyms covers those */
	m.start = start;
	m.end = start + len < start ? UINT64_MAX : start + len;
	m.pgoff = pgoff;
	t = task_get(s, pid);
	if (!t->mntns_tried) {
		char spid[16];

		snprintf(spid, sizeof(spid), "%d", (int)pid);
		t->mntns = mntns_of(spid);
		t->mntns_tried = true;
	}
	if (!filename || !*filename || !strcmp(filename, ANON_DSO) ||
	    !strncmp(filename, "/dev/zero", 9) || !strncmp(filename, "/anon_hugepage", 14)) {
		/*
		 * Anonymous executable memory is JIT code: its symbols, if
		 * any, are in the perf map the JIT writes (perf's convention
		 * and DSO name), with absolute addresses.
		 */
		char perfmap[64];

		snprintf(perfmap, sizeof(perfmap), "/tmp/perf-%d.map", (int)pid);
		m.dso = dso_get(s, perfmap, pid, 0, NULL, NULL);
		m.pgoff = 0;
	} else if ((nf = nsfile_find(s, pid, filename, id)) && nf->dso != HASHIDX_NONE) {
		m.dso = nf->dso;
	} else if (nf) {
		m.dso = dso_get(s, filename, pid, nf->mntns, &nf->fd, id);
	} else {
		m.dso = dso_get(s, filename, pid,
				t->mntns && s->mntns && t->mntns != s->mntns ? t->mntns : 0, NULL,
				id);
	}
	t = task_find(s, pid);
	t->known = true;
	maps_insert(t, &m);
}

static void read_comm(struct symbols *s, const char *path, pid_t tid)
{
	char buf[64];
	FILE *fp = fopen(path, "re");

	if (!fp)
		return;
	if (fgets(buf, sizeof(buf), fp)) {
		buf[strcspn(buf, "\n")] = '\0';
		task_get(s, tid)->comm = strpool__intern(&s->pool, buf, strlen(buf));
	}
	fclose(fp);
}

int symbols__add_proc(struct symbols *s, pid_t pid)
{
	char path[64], *line = NULL;
	size_t cap = 0;
	struct task *t;
	struct dirent *de;
	DIR *dir;
	FILE *fp;

	snprintf(path, sizeof(path), "/proc/%d/maps", (int)pid);
	fp = fopen(path, "re");
	if (!fp)
		return -errno;
	t = task_get(s, pid);
	t->nr = 0;
	t->known = true;
	t->exited = false;
	while (getline(&line, &cap, fp) > 0) {
		unsigned long long a, b, off, ino;
		unsigned int maj, mnr;
		struct file_id id;
		char perms[8];
		int n = 0;
		char *name;

		if (sscanf(line, "%llx-%llx %7s %llx %x:%x %llu %n",
			   &a, &b, perms, &off, &maj, &mnr, &ino, &n) < 7 || !n)
			continue;
		/* Only code is sampled; data maps would only slow the search. */
		if (strlen(perms) < 3 || perms[2] != 'x' || b <= a)
			continue;
		name = line + n;
		name[strcspn(name, "\n")] = '\0';
		id.maj = maj;
		id.min = mnr;
		id.ino = ino;
		id.gen = 0;	/* /proc does not say */
		symbols__watch2(s, pid, a, b - a, name, &id);
		symbols__mmap2(s, pid, a, b - a, off, name, &id);
	}
	free(line);
	fclose(fp);

	snprintf(path, sizeof(path), "/proc/%d/comm", (int)pid);
	read_comm(s, path, pid);
	snprintf(path, sizeof(path), "/proc/%d/task", (int)pid);
	dir = opendir(path);
	if (!dir)
		return 0;
	while ((de = readdir(dir))) {
		char *end;
		long tid = strtol(de->d_name, &end, 10);

		if (*end || tid <= 0 || tid == pid)
			continue;
		snprintf(path, sizeof(path), "/proc/%d/task/%ld/comm", (int)pid, tid);
		read_comm(s, path, (pid_t)tid);
	}
	closedir(dir);
	return 0;
}

bool symbols__known(const struct symbols *s, pid_t pid)
{
	const struct task *t = task_find(s, pid);

	return t && t->known;
}

bool symbols__is_exec_mapped(const struct symbols *s, pid_t pid, uint64_t addr)
{
	const struct task *t = task_find(s, pid);

	/* only executable maps are kept (MMAP records, /proc filtered on 'x') */
	return !t || !t->known || maps_find(t, addr);
}

size_t symbols__exec_mapped_prefix(const struct symbols *s, pid_t pid, const uint64_t *addrs,
				   size_t n)
{
	const struct task *t = task_find(s, pid);
	size_t i;

	if (!t || !t->known)
		return n;
	for (i = 0; i < n && maps_find(t, addrs[i]); i++)
		;
	return i;
}

const char *symbols__comm_of(const struct symbols *s, pid_t pid, pid_t tid)
{
	const struct task *t = task_find(s, tid);

	if (t && t->comm)
		return t->comm;
	t = task_find(s, pid);
	return t ? t->comm : NULL;
}

/* Resolution */

void symbols__resolve(struct symbols *s, pid_t pid, uint64_t addr, bool kernel,
		      struct symbol_info *out)
{
	const struct task *t;
	const struct map *m;
	const struct sym *y;
	struct dso *d;
	uint64_t vaddr;

	memset(out, 0, sizeof(*out));
	if (kernel) {
		y = symtab__find(&s->kernel, addr);
		out->dso = y ? y->dso : s->kernel_dso;
		out->dso_addr = addr;
		if (y) {
			out->sym = y->name;
			out->sym_off = addr - y->start;
		}
		return;
	}
	t = task_find(s, pid);
	m = t ? maps_find(t, addr) : NULL;
	if (!m)
		return;
	d = &s->dsos[m->dso];
	out->dso = d->name;
	if (!d->loaded)
		dso_load(s, d);
	if (!d->file)
		return;
	if (d->file->absolute)
		vaddr = addr;
	else if (!elffile__offset_to_vaddr(d->file, addr - m->start + m->pgoff, &vaddr))
		return;
	out->dso_addr = vaddr;
	y = symtab__find(&d->file->tab, vaddr);
	if (y) {
		out->sym = y->name;
		out->raw_sym = y->raw;
		out->sym_off = vaddr - y->start;
	}
}

size_t symbols__inline_chain(struct symbols *s, pid_t pid, uint64_t addr, const char **names,
			     size_t max)
{
	const struct task *t = task_find(s, pid);
	const struct map *m = t ? maps_find(t, addr) : NULL;
	struct dso *d;
	uint64_t vaddr;

	if (!m)
		return 0;
	d = &s->dsos[m->dso];
	if (!d->loaded)
		dso_load(s, d);
	/*
	 * DWARF is read by path: the fd kept on the mapped file, else the
	 * path of a file of our namespace; not the vdso.
	 */
	if (!d->file || d->file->absolute || (d->kind != DSO_FILE && !d->fdpath) ||
	    (d->mntns && !d->fdpath) ||
	    !elffile__offset_to_vaddr(d->file, addr - m->start + m->pgoff, &vaddr))
		return 0;
	return elffile__inline_chain(d->file, d->fdpath ? d->fdpath : d->name, vaddr, names, max,
				     &s->names);
}

int symbols__use_vmlinux(struct symbols *s, const char *path, const char *want_build_id,
			 struct errmsg *e)
{
	struct kallsyms_anchors a = { 0, 0 };
	uint64_t slide = 0;
	int err;

	/* the search tries paths that mostly do not exist: no kallsyms scan for them */
	if (access(path, R_OK))
		return errmsg__set(e, -errno, "cannot open: %s", strerror(errno));
	if (s->kallsyms_path)
		kallsyms__anchors(s->kallsyms_path, &a);
	err = vmlinux__check(path, want_build_id, a.text, a.stext, &slide, e);
	if (err)
		return err;
	elffile__release(&s->vmlinux);
	s->vmlinux.dwarf_fd = -1;
	free(s->vmlinux_path);
	/* absolute: the path goes into the data file's meta */
	s->vmlinux_path = realpath(path, NULL);
	if (!s->vmlinux_path)
		s->vmlinux_path = xstrdup(path);
	s->vmlinux_slide = slide;
	return 0;
}

int symbols__load_vmlinux(struct symbols *s, const char *path, struct errmsg *e)
{
	char running[64], release[128], cand[8][PATH_MAX];
	size_t i, nr;

	if (symbols__read_build_id_notes("/sys/kernel/notes", running, sizeof(running)))
		running[0] = '\0';
	if (path)
		return symbols__use_vmlinux(s, path, running, e);
	vmlinux__release(release, sizeof(release));
	nr = vmlinux__candidates(release, running, cand, sizeof(cand) / sizeof(cand[0]));
	for (i = 0; i < nr; i++) {
		struct errmsg skip = { "" };

		/* unknown running build-id: only files named for this release */
		if (!running[0] && strstr(cand[i], "/.build-id/"))
			continue;
		if (!symbols__use_vmlinux(s, cand[i], running, &skip))
			return 0;
	}
	return errmsg__set(e, -ENOENT, "no vmlinux with the running kernel's build-id %s",
			   running[0] ? running : "(unknown)");
}

const char *symbols__vmlinux(const struct symbols *s)
{
	return s->vmlinux_path;
}

size_t symbols__kernel_inline_chain(struct symbols *s, uint64_t addr, const char **names,
				    size_t max)
{
	if (!s->vmlinux_path)
		return 0;
	return elffile__inline_chain(&s->vmlinux, s->vmlinux_path, addr - s->vmlinux_slide, names,
				     max, &s->names);
}

void symbols__set_inline(struct symbols *s, bool on)
{
	s->inline_frames = on;
}

bool symbols__inline(const struct symbols *s)
{
	return s->inline_frames;
}

const char *symbols__hint(const struct dso_info *di, char *buf, size_t size)
{
	if (!di->loaded)
		return NULL;
	if (is_perfmap(di->name) && di->err == -ENOENT)
		snprintf(buf, size, "JIT code without a perf map: the JIT should write %s "
			 "(e.g. node --perf-basic-prof, java -XX:+DumpPerfMapAtExit)", di->name);
	else if (di->err == -ENOENT)
		snprintf(buf, size, "file gone at record end (removed, or in a container that exited)");
	else if (di->err == -ESTALE)
		snprintf(buf, size, "file deleted or replaced while it ran, before mmprof could "
			 "open it: its symbols are lost");
	else if (di->err == -ENOEXEC)
		snprintf(buf, size, "not an ELF file mmprof can place");
	else if (di->err == -EOPNOTSUPP)
		snprintf(buf, size, "no file behind this mapping (heap, stack or anonymous code)");
	else if (di->err)
		snprintf(buf, size, "cannot read it: %s", strerror(-di->err));
	else if (!di->nr_syms && di->build_id[0])
		snprintf(buf, size, "stripped, no symbols: install its debuginfo "
			 "(/usr/lib/debug/.build-id/%.2s/%s.debug)", di->build_id, di->build_id + 2);
	else if (!di->nr_syms)
		snprintf(buf, size, "stripped, no symbols and no build-id: rebuild with -g or keep "
			 "a .gnu_debuglink file");
	else if (!di->full_symtab && di->build_id[0] && di->name[0] != '[')
		/* not [vdso]: the kernel's vdso exports every function it has */
		snprintf(buf, size, "stripped, only exported symbols (.dynsym): install its debuginfo "
			 "(/usr/lib/debug/.build-id/%.2s/%s.debug)", di->build_id, di->build_id + 2);
	else
		return NULL;
	return buf;
}

size_t symbols__nr_dsos(const struct symbols *s)
{
	return s->nr_dsos;
}

void symbols__dso(const struct symbols *s, size_t i, struct dso_info *out)
{
	const struct dso *d = &s->dsos[i];

	out->name = d->name;
	out->build_id = d->file ? d->file->build_id : "";
	out->nr_syms = d->file ? d->file->tab.nr : 0;
	out->full_symtab = d->file && (d->file->has_symtab || d->file->absolute);
	out->symfile = d->file ? (d->file->symfile ? d->file->symfile : d->name) : NULL;
	out->loaded = d->loaded;
	out->err = d->err;
}

/* For the DWARF unwinder */

bool symbols__map_of(const struct symbols *s, pid_t pid, uint64_t addr, struct map_view *out)
{
	const struct task *t = task_find(s, pid);
	const struct map *m = t ? maps_find(t, addr) : NULL;
	const struct dso *d;

	memset(out, 0, sizeof(*out));
	if (!m)
		return false;
	d = &s->dsos[m->dso];
	out->start = m->start;
	out->end = m->end;
	out->pgoff = m->pgoff;
	/*
	 * Paths the unwinder can open: the fd kept on the mapped file (a
	 * container's, or one that may be deleted or replaced by now; kept
	 * until symbols__free, so the path names one file all along), else
	 * the path of a file of our namespace not known to be stale; the
	 * vdso through our copy when the mapping has its size (a 32-bit
	 * process's vdso is another image).
	 */
	if ((d->kind == DSO_FILE || d->kind == DSO_DELETED) && d->fdpath)
		out->file = d->fdpath;
	else if (d->kind == DSO_FILE && !d->mntns && !d->stale)
		out->file = d->name;
	else if (d->kind == DSO_VDSO && s->vdso_fd >= 0 && !m->pgoff &&
		 m->end - m->start == s->vdso_size)
		out->file = s->vdso_path;
	return true;
}
