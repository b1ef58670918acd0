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
 * each file loaded once and cached by path (build-id later).  Callers
 * resolve each distinct (pid, address) once, not per sample.
 *
 * An exec (COMM with exec set) starts a fresh address space for that pid;
 * maps of exited processes are kept, because their samples are resolved
 * after they are gone.  Resolution uses the maps as they were last seen.
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
};

struct symbols *symbols__new(void);
void symbols__free(struct symbols *s);	/* NULL is fine */

/*
 * Load /proc/kallsyms.  Returns 0, or -errno with e filled.  When kallsyms
 * hides addresses (kptr_restrict, no CAP_SYSLOG) it returns -EACCES with a
 * message naming the setting; the caller warns once and goes on: kernel
 * frames then keep their raw addresses, unresolved.
 */
int symbols__load_kernel(struct symbols *s, struct errmsg *e);

/* Address-space events, fed in the order the ring buffers deliver them. */
void symbols__comm(struct symbols *s, pid_t pid, pid_t tid, const char *comm, bool exec);
void symbols__fork(struct symbols *s, pid_t pid, pid_t ppid);
void symbols__mmap(struct symbols *s, pid_t pid, uint64_t start, uint64_t len,
		   uint64_t pgoff, const char *filename);

/* Read /proc/PID/maps and comm for a process that existed before recording. */
int symbols__add_proc(struct symbols *s, pid_t pid);

/* Resolve one address of process pid (pid ignored for kernel addresses). */
void symbols__resolve(struct symbols *s, pid_t pid, uint64_t addr, bool kernel,
		      struct symbol_info *out);

#endif
