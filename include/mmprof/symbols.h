/*
 * symbols: turning sampled addresses into (symbol, DSO) at record end.
 *
 * A context collects what the recording says about address spaces (COMM,
 * MMAP2, FORK and EXIT records, or /proc for processes that existed before
 * a system-wide recording started) and resolves addresses when recording
 * ends, so the .data file carries names and can be read anywhere.
 *
 * Kernel addresses resolve through /proc/kallsyms (modules give the DSO
 * "[module_name]", the core kernel "[kernel.kallsyms]"); user addresses
 * through the ELF symbol tables (.symtab, then .dynsym) of the mapped files,
 * each file loaded once.  A stripped file's full .symtab is taken from
 * /usr/lib/debug/.build-id/xx/yyyy.debug when installed, as perf does.
 * Callers resolve each distinct (pid, address) once, not per sample.
 *
 * An exec (COMM with exec set) starts a fresh address space for that pid;
 * maps of exited processes are kept, because their samples are resolved
 * after they are gone.  Resolution uses the maps as they were last seen,
 * or those symbols__keep_maps() kept for samples taken before an exec.
 * Events must be fed in time order (sort per-CPU buffers by sample time):
 * a MMAP2 delivered before the COMM exec that precedes it would be wiped.
 *
 * Invariants: each pid's maps are sorted and never overlap (a new mmap
 * trims or splits what it covers, as the kernel does); ELF files are parsed
 * once per (device, inode) however many paths and processes map them;
 * symbol tables are sorted arrays searched by bisection.  C++ and Rust
 * names are demangled when a file is loaded (sym), the ELF spelling kept
 * beside them (raw_sym).  Workload: a few
 * hundred maps per process, tens of DSOs, 100k distinct addresses resolved
 * once each at record end; kallsyms has ~100k-200k text symbols.
 *
 * User address -> symbol: the file offset (addr - map start + pgoff) is
 * placed in the PT_LOAD segment that contains it, giving the ELF virtual
 * address the symbol table speaks in.  That one rule serves PIE, non-PIE
 * and shared objects alike.  Symbols of size 0 extend to the next symbol;
 * several names at one address keep the one perf would show (non-weak,
 * then global, then fewest leading underscores, then longest).
 *
 * DSO names: the mapped path as the kernel gave it (report may shorten it),
 * "[kernel.kallsyms]", "[module]", "[vdso]", "//anon" for anonymous
 * executable memory (JIT), "path (deleted)" for a file removed before it
 * was mapped (symbols only when symbols__watch2() could open the mapping).
 *
 * Deleted or replaced files: a DSO is a path plus, when MMAP2 gives it,
 * the file's identity (device, inode, generation), so one path mapping
 * two files in turn (a binary rebuilt and run again) makes two DSOs.
 * symbols__watch2() keeps an fd on each distinct file when first seen;
 * without one, a file whose identity changed resolves to nothing (err
 * -ESTALE and its hint), never to another file's names.
 */
#ifndef MMPROF_SYMBOLS_H
#define MMPROF_SYMBOLS_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "mmprof/errmsg.h"

struct symbols;

/* What an address resolved to; strings live as long as the context. */
struct symbol_info {
	const char *sym;	/* NULL when unresolved */
	const char *dso;	/* NULL when no mapping covers the address */
	uint64_t sym_off;	/* address - symbol start */
	uint64_t dso_addr;	/* address as the DSO sees it (ELF vaddr, or the
				 * kernel address); 0 when no loadable file */
	const char *raw_sym;	/* the mangled ELF name when sym is its
				 * demangled form, else NULL */
	const char *build_id;	/* the DSO's (hex) when its file was read, else NULL */
};

/*
 * A C++ or Rust symbol name as perf report shows it (libiberty, no
 * parameter lists, Rust without its hash): "_ZN2ns3fooEi" -> "ns::foo".
 * Returns a malloc'd string, or NULL when raw is not mangled.  ELF names
 * are demangled at load; kernel names never are (as perf).
 */
char *symbols__demangle(const char *raw);

struct symbols *symbols__new(void);
void symbols__free(struct symbols *s);	/* NULL is fine */

/*
 * Load /proc/kallsyms.  Returns 0, or -errno with e filled.  When kallsyms
 * hides addresses (kptr_restrict, no CAP_SYSLOG) it returns -EACCES with a
 * message naming the setting; the caller warns once and goes on: kernel
 * frames then keep their raw addresses, unresolved.
 */
int symbols__load_kernel(struct symbols *s, struct errmsg *e);

/* The same from another file in kallsyms format (tests, saved copies). */
int symbols__load_kallsyms(struct symbols *s, const char *path, struct errmsg *e);

/*
 * Loaded modules' ranges from a file in /proc/modules format: an address
 * in a module that no kallsyms symbol covers gets that module's DSO
 * ("[ext4]", as perf), not "[kernel.kallsyms]".  Returns 0 or -errno
 * with e filled (-ENOENT: a kernel without modules; then nothing
 * changes).  Lines that do not parse, and hidden (0) addresses, are
 * skipped.
 */
int symbols__load_modules(struct symbols *s, const char *path, struct errmsg *e);

/*
 * Kernel text that comes and goes (BPF programs, BPF and ftrace
 * trampolines, kprobe instruction pages), as a PERF_RECORD_KSYMBOL gives
 * it: [addr, addr + len) named name, looked up before kallsyms, which
 * lists such text at one address only and only while it exists.  An
 * unregistered range stays (its samples resolve at record end, after
 * it is gone); a later range over the same addresses replaces it.  The
 * DSO is the name itself, as perf report shows it.
 */
void symbols__ksymbol(struct symbols *s, uint64_t addr, uint64_t len, bool unregister,
		      const char *name);

/*
 * The BPF programs loaded now, their functions at full length (the bpf
 * syscall's program info; the names kallsyms gives those addresses, so
 * load kallsyms first): perf reads the same at record start.  Called
 * again at the end of a run, it adds the programs loaded meanwhile by
 * processes the recording does not follow (their KSYMBOL records go to
 * those processes' events only), named from a fresh read of kallsyms'
 * "[bpf]" lines; what is known already is skipped.  Returns 0, or -EPERM
 * without CAP_SYS_ADMIN (then kallsyms' one address each).
 */
int symbols__load_bpf_progs(struct symbols *s);

/*
 * How many ranges KSYMBOL records registered and unregistered, and how
 * many BPF functions symbols__load_bpf_progs() found.
 */
void symbols__ktext_counts(const struct symbols *s, uint64_t *registered,
			   uint64_t *unregistered, uint64_t *listed);

/* Address-space events, fed in the order the ring buffers deliver them. */
void symbols__comm(struct symbols *s, pid_t pid, pid_t tid, const char *comm, bool exec);
void symbols__fork(struct symbols *s, pid_t pid, pid_t ppid);
void symbols__mmap(struct symbols *s, pid_t pid, uint64_t start, uint64_t len,
		   uint64_t pgoff, const char *filename);

/*
 * Which file a mapping maps, as MMAP2 records and /proc/PID/maps say:
 * device, inode and (MMAP2 only, 0 when unknown) the inode's generation.
 * All zero: unknown (plain MMAP records, MMAP2 carrying a build-id).
 */
struct file_id {
	uint32_t maj, min;
	uint64_t ino, gen;
};

/*
 * symbols__mmap() for a mapping whose file identity is known (id may be
 * NULL or all zero: then it is symbols__mmap()).  Symbols then come only
 * from that very file: the one symbols__watch2() kept open, else the
 * file at filename if it is still that inode; a file replaced or deleted
 * since (another inode at the path, or none) leaves the mapping's frames
 * unresolved with err -ESTALE, never with the names of another file.
 */
void symbols__mmap2(struct symbols *s, pid_t pid, uint64_t start, uint64_t len,
		    uint64_t pgoff, const char *filename, const struct file_id *id);

/*
 * Call as soon as a MMAP/MMAP2 record is read, before records are sorted
 * and replayed, while the process most likely still exists.
 *
 * symbols__watch2: the first time a file (filename, id) is seen, open it
 * now and keep the fd, so that a file deleted or replaced later in the
 * run still gives its own symbols at record end.  Opened through the
 * path (through /proc/PID/root for a process in another mount namespace,
 * e.g. a container), else through /proc/PID/map_files/START-END (the
 * mapped file itself, even when already deleted or replaced; needs
 * CAP_SYS_ADMIN), and kept only when it is the inode id names.  Once per
 * distinct file: every later mapping of it costs one hash lookup and one
 * readlink.  The fds kept are bounded (a quarter of RLIMIT_NOFILE, at
 * most 4096); past that a file's symbols are read at once instead.
 *
 * symbols__watch: the same without an identity: only files of another
 * mount namespace are opened (their path means nothing at record end).
 */
void symbols__watch(struct symbols *s, pid_t pid, const char *filename);
void symbols__watch2(struct symbols *s, pid_t pid, uint64_t start, uint64_t len,
		     const char *filename, const struct file_id *id);

/*
 * An EXIT record: the pid's maps stay for resolution, but a later FORK
 * that reuses the pid starts from its parent's maps alone.
 */
void symbols__exit(struct symbols *s, pid_t pid, pid_t tid);

/*
 * Keep pid's maps as they are now under the id as (a key no pid uses,
 * e.g. above PID_MAX_LIMIT), before an exec or a reused pid replaces
 * them: samples taken before the change resolve through as, with the
 * maps of their own time.  The task as is made or replaced; nothing is
 * kept when pid has no maps.
 */
void symbols__keep_maps(struct symbols *s, pid_t pid, pid_t as);

/*
 * Read /proc/PID/maps (executable mappings) and the comm of the process and
 * of its threads, for a process that existed before recording.  Replaces
 * what was known of pid.  Returns 0 or -errno (-ENOENT: already gone).
 */
int symbols__add_proc(struct symbols *s, pid_t pid);

/* Has any event or add_proc described the address space of pid? */
bool symbols__known(const struct symbols *s, pid_t pid);

/*
 * Whether addr lies in an executable mapping of pid as known now (files,
 * [vdso], anonymous executable memory such as JIT code).  True when
 * nothing is known of pid: without information nothing is judged bad.
 * One bisection of the pid's maps; called per sampled user frame, so the
 * sampler can cut the garbage a frame-pointer walk returns from code
 * built without frame pointers.
 */
bool symbols__is_exec_mapped(const struct symbols *s, pid_t pid, uint64_t addr);

/*
 * The same over a chain: how many of the n addresses, from the first on,
 * are executable-mapped in pid (n when pid is unknown).  One task lookup
 * for the whole chain: the sampler calls it per sample.
 */
size_t symbols__exec_mapped_prefix(const struct symbols *s, pid_t pid, const uint64_t *addrs,
				   size_t n);

/* Last comm of tid, else of pid, else NULL; lives as long as the context. */
const char *symbols__comm_of(const struct symbols *s, pid_t pid, pid_t tid);

/*
 * Resolve one address of process pid (pid ignored for kernel addresses).
 * Kernel addresses always get a DSO ("[kernel.kallsyms]" unless inside a
 * module), even when no symbol covers them.  User addresses get the DSO of
 * the map covering them, or NULL.  ELF files are loaded on first use.
 */
void symbols__resolve(struct symbols *s, pid_t pid, uint64_t addr, bool kernel,
		      struct symbol_info *out);

/*
 * The inline chain at a user address of pid, as `addr2line -i -f` lists
 * it: the functions inlined there, innermost first, then the function
 * they were inlined into (normally the symbol resolve gives).  Needs DWARF
 * (the file's own or its separate debuginfo).  Fills up to max names
 * (living as long as the context) and returns how many; 0 without DWARF,
 * 1 when nothing is inlined at addr.
 */
size_t symbols__inline_chain(struct symbols *s, pid_t pid, uint64_t addr, const char **names,
			     size_t max);

/*
 * Whether record expands user frames into their inline chains (record
 * --inline; off by default: DWARF lookups cost time at record end, and
 * most distro binaries have no DWARF installed).
 */
void symbols__set_inline(struct symbols *s, bool on);
bool symbols__inline(const struct symbols *s);

/*
 * Kernel inline chains come from a vmlinux's DWARF (kallsyms still names
 * the real kernel frames).  A vmlinux serves only when its build-id is
 * the running kernel's (/sys/kernel/notes); its addresses are moved by
 * KASLR's slide, kallsyms' _text (else _stext) minus its own.  Load
 * kallsyms first: the slide is measured from it.
 *
 * symbols__load_vmlinux: path is record --vmlinux, or NULL to search the
 * build-id link /usr/lib/debug/.build-id/xx/rest.debug, then
 * /usr/lib/debug/boot/vmlinux-REL, /usr/lib/debug/lib/modules/REL/vmlinux,
 * /boot/vmlinux-REL, /lib/modules/REL/build/vmlinux and
 * /usr/lib/debug/boot/vmlinux-REL.debug (REL: uname -r), taking the first
 * that matches.  Returns 0 when one is attached, or -errno with e filled
 * (the message does not repeat the path): -ENOENT or another open error
 * for a path that cannot be read (the search: nothing matched), -ESTALE
 * another build-id, -ENOEXEC not an ELF file, -ENODATA no _text/_stext to
 * place it by (e.g. kallsyms hidden).
 *
 * symbols__use_vmlinux is the same for one file, checking its build-id
 * against want_build_id (hex; NULL or "" accepts any).
 */
int symbols__load_vmlinux(struct symbols *s, const char *path, struct errmsg *e);
int symbols__use_vmlinux(struct symbols *s, const char *path, const char *want_build_id,
			 struct errmsg *e);
/*
 * The kernel text symbol KASLR's slide is measured from, as kallsyms gave
 * it (perf's ref_reloc_sym): "_text", else "_stext", and its running
 * address.  record stores it with the kernel's build-id, so that a
 * vmlinux found later can be placed (mmprof resolve --vmlinux).  Returns
 * 0, or -ENODATA when kallsyms was not loaded or hid its addresses.
 */
struct kernel_ref {
	char name[8];
	uint64_t addr;
};
int symbols__kernel_ref(const struct symbols *s, struct kernel_ref *out);

/*
 * symbols__use_vmlinux for a recorded kernel, not the running one: the
 * build-id must be want_build_id (the recorded one) and the slide is
 * ref's address minus the vmlinux's own symbol of that name.  Returns as
 * symbols__use_vmlinux; -ENODATA also when ref names no anchor.
 */
int symbols__use_vmlinux_at(struct symbols *s, const char *path, const char *want_build_id,
			    const struct kernel_ref *ref, struct errmsg *e);

/*
 * The attached vmlinux's own symbol at running kernel address addr (its
 * .symtab: functions and text labels, as perf's dso__load_vmlinux reads
 * them, at addr - slide), read on first use.  out->sym NULL when none
 * covers it or no vmlinux is attached; out->dso the core kernel's.
 */
void symbols__vmlinux_symbol(struct symbols *s, uint64_t addr, struct symbol_info *out);
/* Running address - vmlinux address of the vmlinux attached (0 without one). */
uint64_t symbols__vmlinux_slide(const struct symbols *s);

/* The vmlinux attached, or NULL: then kernel frames get no inline chain. */
const char *symbols__vmlinux(const struct symbols *s);

/*
 * symbols__inline_chain() for a kernel address (the running one, before
 * KASLR is undone): 0 without an attached vmlinux or without DWARF there.
 */
size_t symbols__kernel_inline_chain(struct symbols *s, uint64_t addr, const char **names,
				    size_t max);

/*
 * The GNU build-id (NT_GNU_BUILD_ID, lower-case hex) in a buffer of ELF
 * notes such as /sys/kernel/notes.  Returns 0, -ENOENT when no such note,
 * -EINVAL for a truncated note, -ENOSPC when hex (size bytes) is too
 * small.  symbols__read_build_id_notes reads the notes from a file.
 */
int symbols__note_build_id(const void *notes, size_t len, char *hex, size_t size);
int symbols__read_build_id_notes(const char *path, char *hex, size_t size);

/*
 * The user-space DSOs named by maps, for the data file and for "why
 * unknown" hints.  loaded says whether resolution tried to read it; then
 * err is 0, or the -errno of loading (-ENOENT missing file, -ENOEXEC not
 * an ELF file we can place, -ESTALE deleted, -EOPNOTSUPP pseudo-files such
 * as "[heap]" or "//anon").  build_id is lower-case hex, "" when none.
 */
struct dso_info {
	const char *name;
	const char *symfile;	/* file the symbols came from (separate
				 * debuginfo or name itself); NULL if none */
	const char *build_id;
	size_t nr_syms;
	bool full_symtab;	/* a .symtab (own or debuginfo), not only .dynsym */
	bool loaded;
	int err;
	bool missed;		/* its process exited before the recorder saw the
				 * mapping (could not open it through the process) */
	bool perfmap;		/* a JIT's /tmp/perf-PID.map */
	const char *jit_flag;	/* a perf map: the JIT option its process was
				 * started with (-XX:+DumpPerfMapAtExit), else NULL */
};
size_t symbols__nr_dsos(const struct symbols *s);
void symbols__dso(const struct symbols *s, size_t i, struct dso_info *out);

/*
 * Before resolving at the end of a recording: a JIT whose process runs
 * with the option that writes its perf map at exit (dso_info.jit_flag:
 * the JVM's -XX:+DumpPerfMapAtExit) and whose map is not there yet may be
 * exiting right now (record -p stopped as the target was told to quit):
 * wait, at most max_ms, until every such process is gone (a JVM writes
 * the map before its process ends, so then it is whole).  No wait when
 * there is no such process; a map waited for once is not waited for
 * again (record -r N).  Returns the milliseconds waited.
 */
int symbols__await_perfmaps(struct symbols *s, unsigned int max_ms);

/*
 * Why addresses in a loaded DSO may stay "[unknown]", as a one-line hint
 * for the reader of a report (record stores it in the data file's meta as
 * "symbols.hint <dso>"), or NULL when the DSO loaded with symbols.  buf
 * receives the text (at most size bytes); the return value is buf or NULL.
 */
const char *symbols__hint(const struct dso_info *di, char *buf, size_t size);

/*
 * A frame saved unresolved, resolved again from what this machine holds
 * now (mmprof resolve): addr in the DSO named dso as the data file names
 * it, and where it lies in that file when record knew (vaddr, build_id;
 * build_id NULL: not known).  Two kinds of DSO are read again:
 *   - a perf map (/tmp/perf-PID.map, addr the process's own address): a
 *     JIT that writes its map after the recording ended (the JVM's
 *     -XX:+DumpPerfMapAtExit at exit), read under perfmap's rules (a
 *     regular file of the reader, or of the process while it lives);
 *   - an ELF file at its path, when its build-id is still build_id: its
 *     symbols as load gives them now, i.e. with debuginfo installed
 *     since (build-id debuginfo, .gnu_debuglink), looked up at vaddr.
 * Each DSO is read once per context.  Returns 0 with out filled
 * (out->sym NULL when still unnamed), -EOPNOTSUPP for another kind or an
 * ELF frame without a file address, -ENODATA for a file without a
 * build-id (nothing to check it is the same file), -ESTALE for another
 * build at the path now, or the -errno of reading (-ENOENT: a perf map
 * still not written, a file gone).
 */
struct saved_frame {
	const char *dso;
	uint64_t addr;		/* the sampled address, as the file keeps it */
	uint64_t vaddr;		/* ELF address in dso, when build_id is not NULL */
	const char *build_id;	/* hex, "" none; NULL: no file address saved */
};
int symbols__resolve_saved(struct symbols *s, const struct saved_frame *f,
			   struct symbol_info *out);

/*
 * For the DWARF unwinder (unwind.h): the executable mapping of pid that
 * covers addr as known now; false when none does.  file is a path to read
 * the mapped contents from (offset addr - start + pgoff): "/proc/self/fd/N"
 * for a file kept open since its mapping was seen (symbols__watch2, or a
 * container's file opened through /proc/PID/root) and for the vdso once
 * symbols__copy_vdso() made its copy; else the mapped path for files of
 * our mount namespace not known to be stale; NULL when there is no such
 * file (anonymous or JIT memory, a deleted or replaced file not kept, a
 * container's file that could not be opened).  file stays valid and
 * names the same file for the life of the context.
 */
struct map_view {
	uint64_t start, end, pgoff;
	const char *file;
};
bool symbols__map_of(const struct symbols *s, pid_t pid, uint64_t addr, struct map_view *out);

/*
 * For the DWARF unwinder: the load bias of the ELF file mapped at addr in
 * pid (process address - ELF vaddr, the base libdwfl places a module by).
 * Not map start - pgoff: that is the bias only where the segment's vaddr
 * equals its file offset (bfd, gold), not in lld's default layout, where
 * each segment sits a page above its offset.  Loads the file's symbols if
 * not yet loaded; false when addr is in no loadable part of a file.
 */
bool symbols__load_bias(struct symbols *s, pid_t pid, uint64_t addr, uint64_t *bias);

/*
 * Write our own [vdso] image (the same in every 64-bit process of this
 * kernel) to a memfd, so that symbols__map_of() gives the unwinder a file
 * for [vdso] maps: perf writes it to ~/.debug for the same reason.  Once
 * per context (later calls return 0); the memfd goes with the context.
 * Returns 0 or -errno (-ENOENT: no [vdso] here).
 */
int symbols__copy_vdso(struct symbols *s);

#endif
