/*
 * chainspill: the sampler's distinct call chains beyond its memory, on disk.
 *
 * When the aggregate's arena (stackagg.h) is full, its entries are written
 * as one run to a temporary file, sorted by key and compressed (zlib, in
 * independent blocks), and the arena is emptied; at the end of a
 * recording's run the runs are merged and each distinct key comes back
 * once, with the samples and periods of all its runs summed.  So the
 * reading thread does no symbol resolution while the run lasts, and the
 * count of a key is that of counting it in memory whatever the budget.
 *
 * The file is created in the output's folder without a name
 * (spillfile.h): nothing is left behind on any exit, SIGKILL included.
 *
 * Memory while merging: one decompressed block per run
 * (CHAINSPILL_BLOCK bytes, more for a single entry larger than that).
 * Workload: a run per arena filling (15 MiB of raw chains by default: tens
 * of runs on the worst case of performance.md), ~100 bytes of compressed
 * chain per distinct key of a random recursion.
 */
#ifndef MMPROF_CHAINSPILL_H
#define MMPROF_CHAINSPILL_H

#include <stddef.h>
#include <stdint.h>

#include "mmprof/stackagg.h"

#define CHAINSPILL_BLOCK (32u << 10)

struct chainspill_run {
	uint64_t off, bytes;	/* where its blocks are in the file */
};

struct chainspill {
	int fd;			/* -1: not open */
	uint64_t end;		/* bytes written */
	struct chainspill_run *runs;
	size_t nr_runs, alloc_runs;
	uint64_t keys;		/* entries written, all runs */
};

void chainspill__init(struct chainspill *cs);
/* Close the file (its space goes with it) and free; NULL-safe, reusable. */
void chainspill__release(struct chainspill *cs);

/* Open the unnamed file in dir ("." when NULL or empty).  0 or -errno. */
int chainspill__open(struct chainspill *cs, const char *dir);

/*
 * Write the entries of a (flushed) as one sorted run, then empty a
 * (stackagg__clear).  0 or -errno (the file cannot be written: a full
 * disk); a is left as it was on error.
 */
int chainspill__write(struct chainspill *cs, struct stackagg *a);

/*
 * Merge every run: fn gets each distinct key once (e's samples and
 * period summed over the runs; chain valid during the call), in key
 * order.  A non-zero return of fn stops the merge and is returned; else
 * 0, or -errno (-EIO: a block that does not decompress).  The runs stay:
 * chainspill__reset forgets them.
 */
int chainspill__merge(struct chainspill *cs,
		      int (*fn)(void *ctx, const struct stackagg_entry *e, const uint64_t *chain),
		      void *ctx);

/* Forget the runs (the file is reused from its start). */
void chainspill__reset(struct chainspill *cs);

#endif
