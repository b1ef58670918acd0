/*
 * unwind: user stacks of samples taken with `record --call-graph dwarf`,
 * unwound with libdw's unwinder from the sampled registers and stack copy.
 *
 * Code built without frame pointers (most distro binaries, -O2 with
 * -fomit-frame-pointer) leaves the kernel's frame-pointer walk with junk
 * after the leaf.  With PERF_SAMPLE_REGS_USER | PERF_SAMPLE_STACK_USER the
 * kernel copies the user registers and the top SIZE bytes of the user
 * stack into each sample; the call frame information (.eh_frame, or
 * .debug_frame) of the mapped files says how to step from one frame to its
 * caller.  This is perf's tools/perf/util/unwind-libdw.c, done while the
 * recording runs instead of at report time.
 *
 * One Dwfl per process, cached (a small direct-mapped table by pid):
 * reporting modules and reading their CFI is the expensive part, done
 * once per file per process.  A module is checked against the current
 * map (same file, same base) each time an unwind uses it; a mismatch
 * (munmap and a new mmap there, an exec) rebuilds the process's Dwfl.  Modules are reported lazily, only for addresses an
 * unwind reaches.  Memory reads inside [SP, SP + dyn_size) come from the
 * stack copy, others from the mapped file (perf reads the DSO the same
 * way); nothing is read from the live process, so samples of processes
 * that have exited unwind as well.
 *
 * Workload: one unwind per sample, a few thousand per second per CPU.
 * Each costs tens of microseconds (measured in Documentation/symbols.md).
 */
#ifndef MMPROF_UNWIND_H
#define MMPROF_UNWIND_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "mmprof/sample.h"
#include "mmprof/symbols.h"

/*
 * sample_regs_user for DWARF unwinding on x86_64, as perf sets it
 * (PERF_REGS_MASK): the 24 registers of asm/perf_regs.h but DS, ES, FS
 * and GS, which the kernel refuses for 64-bit tasks.
 */
#define UNWIND__REGS_MASK 0xff0fffULL

/* Stack copy sizes: the default (perf's) and the kernel's limits. */
#define UNWIND__STACK_DEFAULT	8192
#define UNWIND__STACK_MAX	65528

/* Frames kept per user stack (perf's default max-stack). */
#define UNWIND__MAX_FRAMES	127

struct unwinder;

/* syms is borrowed and must outlive the unwinder. */
struct unwinder *unwinder__new(struct symbols *syms);
void unwinder__free(struct unwinder *u);	/* NULL is fine */

/*
 * The user stack of one sample of process pid, decoded with
 * sample__parse_regs(..., UNWIND__REGS_MASK, smp): up to max PCs into
 * pcs, innermost first.  The first is the sampled user IP; the others are
 * return addresses as they are (resolve a caller at pc - 1, as for
 * frame-pointer chains).  Returns the count: 0 when the sample has no
 * user registers (a kernel thread), 1 when no step could be made (no
 * CFI, an unknown map, the stack copy too short).
 */
size_t unwinder__unwind(struct unwinder *u, pid_t pid, const struct sample *smp,
			uint64_t *pcs, size_t max);

#endif
