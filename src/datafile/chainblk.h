/*
 * Private to src/datafile: format 5's chain_blocks (data-format.md,
 * "chain_blocks"), the whole chains of a trie that holds some only in part
 * (chainsrc.h), coded and decoded.  savechain.c encodes a profile's chain
 * source block by block; loadchain.c decodes, once at load to check every
 * block and then on each walk of the file-backed source, one block in
 * memory at a time.
 *
 * A block, unpacked, is varints (LEB128, at most 10 bytes, no value past
 * its field's range):
 *
 *   nr_ids, then nr_ids frame ids ascending, each as the step from the
 *   one before minus 1 (the first: its id): the block's dictionary;
 *   per chain: lcp (frames shared with the chain before it in the block,
 *   0 for the block's first), nnew >= 1, nnew places in the dictionary
 *   (the chain's frames past the lcp), nr_cells >= 1, and per cell run,
 *   event, comm (a string id, 0 none), pid, samples >= 1, period.
 *
 * Measured on a worst-case-like stream (16 frame ids at random at each
 * level, depths 8 to 127, one cell a chain, period 50000 +- noise; frame
 * ids up to 3600): 46.5 bytes packed a chain at 64 KiB blocks, against
 * 53.1 without the dictionary (two-byte varints pack worse) and 76.2 for
 * fixed-width fields laid out byte by byte; the varints section by
 * section (every chain's header, then every frame, then each cell field)
 * were 45.0, three percent less for a decoder of ten cursors.
 */
#ifndef MMPROF_DATAFILE_CHAINBLK_H
#define MMPROF_DATAFILE_CHAINBLK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "mmprof/chainsrc.h"

/*
 * The writer closes a block once the bound of its varints (chainenc.est,
 * each frame's place counted as long as its id) reaches this much; a
 * chain is never split.  The worst case's blocks unpack to about 37 KiB.
 */
#define CHAINBLK_TARGET	(64u << 10)

/* What a chain_blocks row says of its block (checked against the block when it is read). */
struct chainblk_hdr {
	uint64_t chains, frames, cells, samples;
	size_t size;		/* unpacked */
	const unsigned char *data;
	size_t len;		/* packed (len == size: as it is) */
};

/*
 * The decoder: the file's bounds, and the chain before (blocks are
 * decoded in order; one decoder per walk).
 */
struct chaindec {
	size_t nr_frames, nr_runs, nr_events, nr_strs;
	const unsigned char *elided;	/* bit per frame: "[elided]" (never in a chain) */
	const uint32_t *strmap;		/* file string id -> profile's; NULL: the same */
	uint32_t *path;			/* the chain before, root first */
	size_t nr_path, alloc_path;
	struct chain_cell *cells;
	size_t alloc_cells;
	uint32_t *dict;
	size_t alloc_dict;
	unsigned char *buf;		/* the block unpacked */
	size_t alloc_buf;
	uint64_t ordinal, frames, samples, period;	/* so far */
};

/*
 * Block h unpacked and decoded, fn called for each chain (NULL: only
 * checked).  0, fn's non-zero return, -EIO (does not unpack: why says),
 * or -EPROTO (breaks the format: why says).
 */
int chaindec__block(struct chaindec *d, const struct chainblk_hdr *h, chain_fn fn, void *ctx,
		    char *why, size_t whylen);
void chaindec__release(struct chaindec *d);

/* The encoder: chains staged until a block is full. */
struct chainenc {
	uint32_t *frames;		/* the staged chains' new frames, profile ids */
	size_t nr_frames, alloc_frames;
	uint32_t *heads;		/* per chain: lcp, nnew, nr_cells */
	size_t nr_heads, alloc_heads;
	struct chain_cell *cells;
	size_t nr_cells, alloc_cells;
	uint32_t *ids;			/* the dictionary being built: the block's frames */
	size_t nr_ids, alloc_ids;
	uint32_t *stamp, *local;	/* by frame id: the block it was last seen in (gen), its place */
	size_t alloc_stamp, alloc_local;
	uint32_t gen;			/* the block being staged, from 1 */
	unsigned char *out;		/* the block encoded */
	size_t alloc_out;
	size_t est;			/* bytes the staged chains take at most */
	uint64_t chains, whole_frames, samples;	/* of the staged block */
};

/* Bytes chain c takes in a block at most, the dictionary aside (lcp: the frames shared). */
size_t chainenc__bound(const struct chain_rec *c, uint32_t lcp);
/* Stage c (checked by the caller), lcp its own within the block (0 for a block's first). */
void chainenc__add(struct chainenc *e, const struct chain_rec *c, uint32_t lcp);
/* The staged block into e->out (its length returned) and its header counts; then empty. */
size_t chainenc__flush(struct chainenc *e, struct chainblk_hdr *h);
void chainenc__release(struct chainenc *e);

/* What the writer and the loader check of the trie (chainblk.c). */
struct profile;
/* A bit per frame of p: 1 for an "[elided]" frame (free it). */
unsigned char *datafile__elided_frames(const struct profile *p);
/* The samples and periods of p's cells under an "[elided]" node, at any depth. */
void datafile__elided_sums(const struct profile *p, uint64_t *samples, uint64_t *period);

#endif
