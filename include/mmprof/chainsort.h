/*
 * chainsort: an external sort of whole call chains, the ones the
 * recording's trie has no room for (issue 30: every chain kept, memory
 * bounded), merged back as a chainsrc (chainsrc.h).
 *
 * The sampler adds each such chain once per aggregate entry, root first,
 * with its cell (run, event, comm, pid, samples, period); the same chain
 * and cell key may come many times (runs, spills, the reading thread's
 * aggregate).  Chains are held in memory up to a budget; then they are
 * sorted in chainsrc.h's order (frame ids compared from the root, a prefix
 * before its extensions), equal chains made one record with their cells
 * merged, and written as a run of independent zlib'd blocks, lcp-coded,
 * to an unnamed file in a given folder (spillfile.h: the output's, as
 * chainspill.h).  finish() merges the runs into one (reading one block per
 * run, CHAINSORT_FANIN runs at a time: passes) and hands the result out as
 * a chainsrc whose walk reads that merged run a block at a time, as often
 * as asked.
 *
 * Memory: the budget while adding (arena and index), then one
 * decompressed block per run merged, CHAINSORT_FANIN at most
 * (CHAINSORT_BLOCK each, more for a single chain larger than that),
 * whatever the recording's length, then one block per walk.  Workload: the
 * worst case of performance.md, ~800,000 chains of ~70 frames in 40 s,
 * is ~250 MB of chains: ~15 runs at the default budget.
 */
#ifndef MMPROF_CHAINSORT_H
#define MMPROF_CHAINSORT_H

#include <stddef.h>
#include <stdint.h>

#include "mmprof/chainsrc.h"

/* The default budget: 16 MiB of chains and their index held before a run is written. */
#define CHAINSORT_BUDGET (16u << 20)
#define CHAINSORT_BLOCK (32u << 10)
/* The runs merged at once: more are merged in passes (a run each time read and written again). */
#define CHAINSORT_FANIN 64

struct chainsort;

/*
 * A sorter whose unnamed file is in dir ("." when NULL or empty), holding
 * at most budget bytes (0: CHAINSORT_BUDGET) before it writes a run.
 * NULL with errno set when the file cannot be made (a folder that does not
 * exist or is not writable).
 */
struct chainsort *chainsort__new(const char *dir, size_t budget);

/*
 * Add one chain (nr >= 1 frame ids, root first) with its cell; frames and
 * cell are copied.  0, or -errno: -EINVAL for nr 0, else a run that could
 * not be written (a full disk), the chain then not added.
 */
int chainsort__add(struct chainsort *cs, const uint32_t *frames_root_first, uint32_t nr,
		   const struct chain_cell *cell);

/*
 * The merge of every chain added, as a chainsrc: each distinct chain once
 * in chainsrc.h's order, its cells merged by (run, event, comm, pid), their
 * samples and periods summed (saturating at UINT64_MAX); nr_chains,
 * nr_frames and samples filled.  The source owns cs (chainsrc__release
 * frees both); nothing is added after.  NULL and *err = -errno when the
 * merge cannot be written or read back; cs is freed then too.
 */
struct chainsrc *chainsort__finish(struct chainsort *cs, int *err);

/*
 * The cells of a source chainsort__finish made, over all its chains (each
 * chain's cells merged): what a profile's counts can grow by when every
 * chain of it is taken (profile__take_chains).
 */
uint64_t chainsort__nr_cells(const struct chainsrc *src);
/*
 * The samples of every chain added so far, summed (saturating; 0 for
 * NULL): what a recording loses when the sort cannot be finished.
 */
uint64_t chainsort__samples(const struct chainsort *cs);
/* Free a sorter not finished (its file goes with it); NULL-safe. */
void chainsort__free(struct chainsort *cs);

#endif
