/*
 * resolve: name the frames a .data file saved unresolved, from what this
 * machine holds now (mmprof resolve).
 *
 * record resolves addresses when recording ends; what was not there yet
 * stays a raw address with its DSO's name: a JIT's perf map written when
 * the JIT exits (the JVM's -XX:+DumpPerfMapAtExit under record -p, which
 * ends first), debuginfo of a stripped file installed after the
 * recording (record saved the frame's ELF address and the file's
 * build-id: frame_files).  This pass looks each such frame up again
 * (symbols.h's symbols__resolve_saved) and names it in place: frame ids, the trie and
 * the counts stay, so every view and key of the file sees the new names
 * and the file's layout is the datafile module's alone.  A DSO whose
 * symbols were read loses its "symbols.hint <dso>" meta key (it said why
 * they were missing).  Workload: the file's frames once, each DSO read
 * once.  Kernel frames, from a vmlinux found later, are the second half
 * below (kresolve.c): names, and inline chains that change the trie.
 */
#ifndef MMPROF_RESOLVE_H
#define MMPROF_RESOLVE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "mmprof/errmsg.h"
#include "mmprof/profile.h"
#include "mmprof/symbols.h"

/* What one DSO gave: its unresolved user frames, and how many are named now. */
struct resolve_dso {
	uint32_t dso;		/* string id in the profile */
	size_t frames, named;
	uint64_t samples, named_samples;	/* samples whose sampled address is such a frame */
	int err;		/* 0, or why its symbols could not be read (-ENOENT ...) */
	bool perfmap;		/* a JIT's /tmp/perf-PID.map */
};

struct resolve_result {
	struct resolve_dso *dsos;	/* the DSOs that can be re-read, first-seen order */
	size_t nr;
	uint64_t total;			/* samples of the file */
	uint64_t unresolved;		/* of them, with an unnamed sampled address before */
	uint64_t named;			/* of those, named now */
};

/*
 * Name what can be named now in p (frames changed in place, index
 * rebuilt, hints of DSOs read dropped); r filled (release it).  Returns 0:
 * a DSO that still cannot be read is reported in r, not an error.
 */
int resolve__profile(struct profile *p, struct symbols *syms, struct resolve_result *r);
void resolve_result__release(struct resolve_result *r);

/*
 * Kernel frames, from a vmlinux found after the recording (mmprof resolve
 * --vmlinux).  record stored the running kernel's build-id (meta
 * kernel_build_id) and where kallsyms put _text (kernel_ref_reloc_sym,
 * perf's ref_reloc_sym): the vmlinux is taken only with that build-id,
 * and placed by the slide between that address and its own _text, perf's
 * relocation rule (map reloc = ref_reloc_sym addr - unrelocated addr).
 *
 * Then, for frames of the core kernel ([kernel.kallsyms], address kept):
 *   - a frame kallsyms could not name gets the vmlinux's symbol; a frame
 *     kallsyms named keeps its name (the same kernel: kallsyms is its own
 *     table, and keys stay comparable with files recorded without one);
 *   - each named frame gets its inline chain from the vmlinux's DWARF,
 *     as record --vmlinux gives it (looked up at the address when the
 *     frame is some sample's IP, else at address - 1, a return address),
 *     unless the file has kernel inline chains already (meta
 *     symbols.vmlinux); the trie is rebuilt with the inline frames below
 *     their real frame and every count follows its node.
 * Module frames are counted, not looked up: no module's .ko is read.
 */
struct resolve_kernel {
	char build_id[PROFILE_BUILD_ID_MAX + 1];	/* the recorded kernel's */
	uint64_t slide;			/* running address - vmlinux address */
	size_t unnamed, named;		/* core-kernel frames without a name before; named now */
	uint64_t unnamed_samples, named_samples;	/* samples at their IP */
	size_t chained;			/* real frames given an inline chain */
	size_t inline_frames;		/* inline frames added */
	uint64_t chained_samples;	/* samples whose IP is such a frame */
	bool had_chains;		/* the file's kernel frames had chains already */
	size_t module_frames;		/* frames in modules, not looked up */
	size_t hidden_frames;		/* kernel frames without an address (mmprof strip) */
};

/*
 * Attach the vmlinux at path to syms for p's kernel (symbols.h's
 * symbols__use_vmlinux_at with p's meta).  Returns 0, or -errno with e
 * filled: -ENOKEY p has no kernel_build_id (recorded by an mmprof before
 * it was stored: nothing tells the vmlinux is its kernel's), -ENODATA no
 * kernel_ref_reloc_sym (kallsyms hid addresses while recording: nothing
 * to place it by) or none in the vmlinux, -ESTALE another build-id,
 * -ENOEXEC not ELF, an open error.
 */
int resolve__attach_vmlinux(const struct profile *p, struct symbols *syms, const char *path,
			    struct resolve_kernel *k, struct errmsg *e);

/*
 * Name and expand p's kernel frames through the vmlinux attached; k
 * filled.  The whole chains (p->whole) get the inline frames the trie
 * gets (resolve__chains_inlined).
 */
void resolve__kernel(struct profile *p, struct symbols *syms, struct resolve_kernel *k);

/*
 * The chains of inner with inline frames after each real frame, as
 * profile__insert_frames puts them into the trie (ins, nr_ins and ids as
 * there; copied), in the same order (a chain's frames each become a run
 * starting with the frame itself, so comparisons keep their outcome);
 * owns inner.  A chain its inline frames would take past
 * PROFILE_MAX_DEPTH makes the walk fail with -E2BIG.  One walk of inner
 * counts the frames (nr_frames).
 */
struct chainsrc;
struct chainsrc *resolve__chains_inlined(struct chainsrc *inner, const uint32_t *ins,
					 size_t nr_ins, const uint32_t *ids);

#endif
