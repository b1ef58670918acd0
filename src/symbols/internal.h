/*
 * symbols/internal.h: pieces shared by the files of the symbols module.
 *
 *   names    symbol names in a strarena (strintern.h): pointers stay
 *            valid until the context is freed, nothing is freed one by one.
 *   pool     a strintern of short strings (comms, module DSO names), read
 *            by pointer (strintern__xptr) so that equal strings share one.
 *   symtab   a sorted array of [start, end) named ranges; built by adding
 *            in any order, then symtab__finish() sorts, keeps one name per
 *            address (perf's rule) and gives size-0 symbols an end.
 *   elffile  what one ELF file contributes: PT_LOAD segments (to turn a
 *            file offset into a vaddr), build-id, function symbols.
 *
 * Not a public interface: only the .c files of src/symbols include it.
 */
#ifndef MMPROF_SYMBOLS_INTERNAL_H
#define MMPROF_SYMBOLS_INTERNAL_H

#include <stdbool.h>
#include <limits.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "mmprof/hashidx.h"
#include "mmprof/strintern.h"

/* Binding ranks as ELF spells them; kallsyms types map onto them. */
enum { SYM_LOCAL = 0, SYM_GLOBAL = 1, SYM_WEAK = 2 };

struct sym {
	uint64_t start, end;	/* end == start until symtab__finish */
	const char *name;	/* demangled when the ELF name was mangled */
	const char *raw;	/* the ELF spelling when it differs, else NULL */
	const char *dso;	/* kallsyms only: module or core kernel */
	uint32_t seq;		/* order of addition, for kallsyms aliases */
	unsigned char bind;
};

struct symtab {
	struct sym *syms;
	size_t nr, alloc;
};

void symtab__release(struct symtab *t);
struct sym *symtab__add(struct symtab *t, uint64_t start, uint64_t size, const char *name,
			const char *dso, unsigned char bind);
/*
 * Sort, drop aliases (one name per start address), and end every size-0
 * symbol at the next one.  Aliases: ELF files keep perf's best name (see
 * better()); kallsyms keeps the last one listed, which is what perf ends
 * up with there (it sizes symbols before dropping aliases, so only the
 * last of a run has a size and wins).  kallsyms: a symbol followed by one of another
 * module ends at the next page boundary past its start instead, so that
 * the gap between kernel text and modules stays unresolved, as perf does.
 */
void symtab__finish(struct symtab *t, bool kallsyms);
const struct sym *symtab__find(const struct symtab *t, uint64_t addr);

/*
 * A symbol name stored in the arena (copied, not interned: a file's names
 * are nearly all distinct), demangled when mangled (demangle.c); the ELF
 * spelling goes to *raw_out when it differs, else *raw_out is NULL.
 */
const char *symname__store(struct strarena *names, const char *raw, const char **raw_out);

struct load_seg {
	uint64_t offset, vaddr, filesz, memsz;
};

struct elffile {
	dev_t dev;
	ino_t ino;
	char build_id[41];	/* hex, "" when the file has none */
	bool has_symtab;	/* symbols came from a .symtab, not .dynsym */
	char *symfile;		/* separate debuginfo that gave them, or NULL */
	struct load_seg *loads;
	size_t nr_loads;
	struct symtab tab;
	struct symtab plt;	/* "name@plt" stubs, merged into tab */
	char debuglink[256];	/* .gnu_debuglink file name, "" when none */
	uint32_t debuglink_crc;	/* its CRC-32 of the debug file */
	bool absolute;		/* symbols are process addresses (a perf map) */
	struct Dwarf *dwarf;	/* DWARF for inline chains, opened on demand */
	int dwarf_fd;
	bool dwarf_tried;
};

/*
 * Names of the functions inlined at vaddr of f, innermost first, ending
 * with the function they were inlined into; DWARF read from path (the
 * separate debuginfo, or the mapped file) on first use.  Returns the count
 * (at most max), 0 without DWARF for vaddr.
 */
size_t elffile__inline_chain(struct elffile *f, const char *path, uint64_t vaddr,
			     const char **names, size_t max, struct strarena *arena);
void elffile__close_dwarf(struct elffile *f);

/*
 * Parse an ELF image: from an open fd (image NULL) or from memory (fd -1;
 * the vdso).  Names go to the arena.  Returns 0 or -errno (-ENOEXEC for
 * anything that is not an ET_EXEC/ET_DYN ELF file).
 */
int elffile__parse(struct elffile *f, int fd, void *image, size_t size, struct strarena *names);
void elffile__release(struct elffile *f);

/*
 * Replace f's symbols with the .symtab of a separate debuginfo file (which
 * keeps vaddrs but not file offsets: f's PT_LOADs stay).  Returns 0, or
 * -ENOENT/-ENOEXEC leaving f as it was.
 */
int elffile__use_debuginfo(struct elffile *f, const char *path, struct strarena *names);

/*
 * The same, from a file that must carry f's build-id (a copy in perf's
 * build-id cache, found by a name anyone may have linked): -ESTALE, f
 * unchanged, when its build-id is another or none.
 */
int elffile__use_same_build(struct elffile *f, const char *path, struct strarena *names);

/*
 * fhandle.c: the file of inode ino (generation gen) on device maj:min,
 * opened by handle through any mount of that device listed in mountinfo
 * (/proc/self/mountinfo), wherever it is linked now; -1 when the device
 * is not mounted, its filesystem encodes handles otherwise, or the file
 * is gone.  Unchecked: compare the fd with the identity (id_matches).
 */
int fhandle__open(const char *mountinfo, uint32_t maj, uint32_t min, uint64_t ino, uint64_t gen);
/*
 * fhandle.c too: the inode of /proc/PID/ns/mnt ("mnt:[4026531841]"), 0
 * when unreadable: whose files a path names (dso.c, symbols.c).
 */
uint64_t mntns__of(const char *pid);

/* CRC-32 of a whole file as .gnu_debuglink computes it; 0 or -errno. */
int elffile__crc32(const char *path, uint32_t *crc);

/*
 * Read a JIT's perf map (/tmp/perf-PID.map: "START SIZE name" per line,
 * hex, process addresses) into f's table, absolute, at most 256 MiB of it.
 * owner is the process's uid as seen while it ran, -1 unknown (then
 * /proc/PID's, if it still runs).  Returns 0 or -errno (-ENOENT: the JIT
 * wrote none; -ELOOP: a symlink; -EPERM: not a regular file, or owned by
 * neither the process nor us).
 */
int perfmap__read(struct elffile *f, const char *path, long owner, struct strarena *names);

/* File offset in the mapped file -> ELF vaddr; false when in no PT_LOAD. */
bool elffile__offset_to_vaddr(const struct elffile *f, uint64_t off, uint64_t *vaddr);

/*
 * Read a kallsyms file into t (text symbols only; "[mod]" gives the DSO,
 * interned in pool; others get kernel_dso).  -EACCES when every address
 * reads as 0.  Returns 0 or -errno with e filled.
 */
struct errmsg;
int kallsyms__read(struct symtab *t, const char *path, struct strarena *names,
		   struct strintern *pool, const char *kernel_dso, struct errmsg *e);

/*
 * The addresses of _text and _stext in the last file kallsyms__read()
 * read (0 when absent): the anchors KASLR's slide is measured from.
 * Aliases are dropped from the symtab, so they are caught while reading.
 */
struct kallsyms_anchors {
	uint64_t text, stext;
};
void kallsyms__anchors(const char *path, struct kallsyms_anchors *a);

/*
 * vmlinux.c.  Check that path is an ELF file whose build-id is
 * want_build_id (not checked when NULL or ""; whose kernel's it is, for
 * the message: "running", "recorded"), and set *slide to what
 * turns its addresses into running ones (kallsyms' _text minus its _text,
 * else the same with _stext).  Returns 0, or -errno with e filled:
 * -ENOENT and other open errors, -ENOEXEC not ELF, -ESTALE another
 * build-id, -ENODATA no common anchor symbol.
 */
int vmlinux__check(const char *path, const char *want_build_id, const char *whose,
		   uint64_t ktext, uint64_t kstext, uint64_t *slide, struct errmsg *e);
/* Where a vmlinux for release may be, best first; fills out, returns count. */
size_t vmlinux__candidates(const char *release, const char *build_id, char (*out)[PATH_MAX],
			   size_t max);
void vmlinux__release(char *buf, size_t size);

#endif
