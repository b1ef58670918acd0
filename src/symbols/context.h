/*
 * symbols/context.h: the body of struct symbols, shared by symbols.c
 * (the context, tasks and their maps, address-space events, resolution)
 * and dso.c (the DSOs and the ELF files behind them: identity, opening,
 * parsing, the vdso, files of other mount namespaces), read by dsoinfo.c
 * (the per-DSO report, the wait for JIT perf maps).
 *
 * Three tables, each an array with a hash index: tasks (by pid or tid:
 * comm, and for processes their maps), DSOs (by mapped name: how to load
 * it and what loading gave), ELF files (by device and inode, so that one
 * file reached through several paths, e.g. /lib and /usr/lib on a merged
 * /usr, is parsed once).  Arrays move as they grow: keep indexes, not
 * pointers, across a call that may add.
 *
 * Not a public interface: only symbols.c, dso.c and dsoinfo.c include it.
 */
#ifndef MMPROF_SYMBOLS_CONTEXT_H
#define MMPROF_SYMBOLS_CONTEXT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "mmprof/hashidx.h"
#include "mmprof/symbols.h"
#include "internal.h"

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
	bool by_handle;		/* found by identity (fhandle.c), not by path */
	bool missed;		/* first seen after its process had exited */
	bool loaded;
	int err;
	struct elffile *file;		/* owned by symbols.files, or own */
	struct elffile *own;		/* a perf map's symbols */
	long owner;			/* a perf map: its process's uid when first
					 * seen (whose file it may be), -1 unknown */
	bool awaited;			/* a perf map: symbols__await_perfmaps waited
					 * for it once (not again at the next run) */
	const char *jit_flag;		/* a perf map: the option on its process's
					 * command line that makes the JIT write
					 * it, NULL when none was seen */
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

/*
 * Kernel text registered while the kernel runs (ktext.c): [start, end)
 * of the function that begins at sym_start (below start when later text
 * took the range's head).
 */
struct krange {
	uint64_t start, end, sym_start;
	const char *name;	/* interned in pool; the DSO too */
};

struct symbols {
	struct strarena names;
	struct strintern pool;
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
	char buildid_dir[256];	/* perf's build-id cache ($PERF_BUILDID_DIR, ~/.debug), "" none */
	const char *mountinfo;	/* where fhandle finds mounts (tests change it) */
	uint64_t mntns;		/* our mount namespace, 0 unknown */
	bool inline_frames;	/* record --inline */
	size_t nr_fds, max_fds;	/* DSO fds kept open, and their bound */

	/* Kernel DWARF for inline chains (vmlinux.c); kallsyms names. */
	const char *kallsyms_path;	/* what load_kallsyms read, for anchors */
	struct elffile vmlinux;		/* its Dwarf handle; its symbols for
					 * mmprof resolve (vmlinux_syms_tried) */
	bool vmlinux_syms_tried;
	char *vmlinux_path;		/* NULL: kernel frames get no chain */
	uint64_t vmlinux_slide;		/* running address - vmlinux address */

	/*
	 * Dynamic kernel text (ktext.c): BPF programs, trampolines, from
	 * KSYMBOL records and BPF program info, looked up before kallsyms.
	 */
	struct krange *ktext;		/* sorted by start, never overlapping */
	size_t nr_ktext, alloc_ktext;
	uint64_t ktext_registered, ktext_unregistered, ktext_listed;
	/* Loaded modules' ranges (modules.c, /proc/modules), sorted by start. */
	struct krange *modules;
	size_t nr_modules, alloc_modules;

	/* Files of other mount namespaces, opened by symbols__watch(). */
	struct nsfile *nsfiles;
	size_t nr_nsfiles, alloc_nsfiles;
	struct hashidx nsfile_idx;
};

/* ktext.c: the registered kernel text covering addr, or NULL. */
const struct krange *ktext__find(const struct symbols *s, uint64_t addr);
/* modules.c: the module whose range holds addr (its name is the DSO), or NULL. */
const struct krange *modules__find(const struct symbols *s, uint64_t addr);

/*
 * dso.c.  The DSO of name as process pid sees it (its index in s->dsos,
 * made if new); mntns is pid's namespace when that is not ours, else 0;
 * id the mapped file's identity, or NULL.  *fdp, when not -1, is the file
 * opened while the process lived: a new DSO takes it (sets *fdp to -1).
 */
uint32_t symbols__get_dso(struct symbols *s, const char *name, pid_t pid, uint64_t mntns,
			  int *fdp, const struct file_id *id);
/* Load d's symbols (d->file, or d->err), once: on the first address that needs them. */
void symbols__load_dso(struct symbols *s, struct dso *d);
/* The file of another namespace symbols__watch2() opened for (pid, name, id), or NULL. */
struct nsfile *symbols__find_nsfile(struct symbols *s, pid_t pid, const char *name,
				    const struct file_id *id);
/* Is name a JIT's perf map, /tmp/perf-PID.map (dso.c)? */
bool dso__is_perfmap(const char *name);

#endif
