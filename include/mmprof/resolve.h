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
 * once.
 */
#ifndef MMPROF_RESOLVE_H
#define MMPROF_RESOLVE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

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

#endif
