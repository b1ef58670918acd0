/*
 * datafile loadchain: format 5's chain_blocks, the whole chains of a trie
 * that holds some only in part, into p->whole: a chain source backed by
 * the file's blocks (chainsrc.h).
 *
 * The blocks stay packed in memory (their blobs copied out of SQLite, at
 * most the file's size; the worst case's chains pack to a few bytes a
 * frame) and each walk unpacks one at a time: a reader's memory is one
 * block, 1 MiB at most, whatever the chains.  Held rather than read again
 * from the file on each walk because the commands that save a loaded
 * profile (strip, resolve) write over the file they read: a source that
 * reread it would find the new file, or none.
 *
 * Every block is decoded once at load (chainblk.c checks each byte), so a
 * walk meets no error a file can cause; the rows' counts are checked
 * against their blocks, and the chains' samples and periods against the
 * trie's cells under "[elided]" nodes (every cell of a chain is one of
 * those).  Frames are the file's ids: a format-5 loader keeps repeated
 * frames apart (loadrows.c), since merging two would reorder the chains.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <sqlite3.h>

#include "mmprof/chainsrc.h"
#include "mmprof/datafile.h"
#include "mmprof/xalloc.h"
#include "chainblk.h"
#include "loadget.h"
#include "loader.h"
#include "schema.h"

struct fileblk {
	size_t off, len, size;
	uint64_t chains, frames, cells, samples;
};

struct filechains {
	struct chainsrc src;
	unsigned char *arena;		/* the blocks' blobs, packed */
	size_t nr_arena, alloc_arena;
	struct fileblk *blks;
	size_t nr_blks, alloc_blks;
	size_t nr_frames, nr_runs, nr_events, nr_strs;
	uint32_t *strmap;		/* NULL: the file's string ids are the profile's */
	unsigned char *elided;		/* bit per frame */
};

/*
 * Every block in order through one decoder; fn per chain (NULL: checked
 * only).  why, *bad and *period for the load's pass: a walk writes nothing
 * of the source, so that threads may walk one source at once.
 */
static int walk_blocks(const struct filechains *fc, chain_fn fn, void *ctx, char *why,
		       size_t whylen, size_t *bad, uint64_t *period)
{
	struct chaindec d = { .nr_frames = fc->nr_frames, .nr_runs = fc->nr_runs,
			      .nr_events = fc->nr_events, .nr_strs = fc->nr_strs,
			      .elided = fc->elided, .strmap = fc->strmap };
	size_t i;
	int ret = 0;

	for (i = 0; i < fc->nr_blks && !ret; i++) {
		const struct fileblk *b = &fc->blks[i];
		struct chainblk_hdr h = { .chains = b->chains, .frames = b->frames,
					  .cells = b->cells, .samples = b->samples, .size = b->size,
					  .data = fc->arena + b->off, .len = b->len };

		ret = chaindec__block(&d, &h, fn, ctx, why, whylen);
		*bad = i;
	}
	*period = d.period;
	chaindec__release(&d);
	return ret;
}

static int filechains_each(struct chainsrc *src, chain_fn fn, void *ctx)
{
	char why[200];
	size_t bad;
	uint64_t period;

	return walk_blocks((const struct filechains *)src, fn, ctx, why, sizeof(why), &bad, &period);
}

static void filechains_release(struct chainsrc *src)
{
	struct filechains *fc = (struct filechains *)src;

	free(fc->arena);
	free(fc->blks);
	free(fc->strmap);
	free(fc->elided);
	free(fc);
}

/* The rows: counts in range, sizes within the limits, blobs kept packed. */
static int read_rows(struct loader *l, struct filechains *fc)
{
	unsigned long long unpacked = 0;
	int err, r;

	if ((err = prepare(l, "chain_blocks",
			   "SELECT id, chains, frames, cells, samples, size, data FROM chain_blocks ORDER BY id")))
		return err;
	while ((r = next_row(l, 0)) > 0) {
		struct fileblk b = { 0 };
		sqlite3_value *x = sqlite3_column_value(l->st, 6);
		int64_t chains, frames, cells, samples, size;
		const void *data;
		int t;

		if ((err = get_range(l, 5, 1, DATAFILE_CHAIN_BLOCK_MAX, &size)) ||
		    (err = get_range(l, 1, 1, size, &chains)) ||
		    (err = get_range(l, 2, chains, chains * (int64_t)DATAFILE_MAX_DEPTH, &frames)) ||
		    (err = get_range(l, 3, chains, size, &cells)) ||
		    (err = get_range(l, 4, cells, INT64_MAX, &samples)))
			return err;
		if ((t = sqlite3_value_type(x)) != SQLITE_BLOB)
			return bad_row(l, "data is %s, not a blob", type_name(t));
		b.len = (size_t)sqlite3_value_bytes(x);
		data = sqlite3_value_blob(x);
		if (b.len > (size_t)size || !data)
			return bad_row(l, "data holds %zu bytes, more than its size %lld", b.len,
				       (long long)size);
		unpacked += (unsigned long long)size;
		if (unpacked > DATAFILE_MAX_CHAIN_UNPACKED)
			return bad_row(l, "the chains unpack to more than %llu MiB",
				       DATAFILE_MAX_CHAIN_UNPACKED >> 20);
		if ((uint64_t)samples > (uint64_t)INT64_MAX - fc->src.samples)
			return bad_row(l, "the samples of the chains add up to 2^63 or more");
		b.off = fc->nr_arena;
		b.size = (size_t)size;
		b.chains = (uint64_t)chains;
		b.frames = (uint64_t)frames;
		b.cells = (uint64_t)cells;
		b.samples = (uint64_t)samples;
		if (fc->alloc_arena < fc->nr_arena + b.len) {
			fc->alloc_arena = (fc->nr_arena + b.len) * 2;
			fc->arena = xrealloc(fc->arena, fc->alloc_arena);
		}
		memcpy(fc->arena + fc->nr_arena, data, b.len);
		fc->nr_arena += b.len;
		XGROW(fc->blks, fc->alloc_blks, fc->nr_blks);
		fc->blks[fc->nr_blks++] = b;
		fc->src.nr_chains += b.chains;
		fc->src.nr_frames += b.frames;
		fc->src.samples += b.samples;
	}
	return r;
}

int loader__load_chains(struct loader *l)
{
	struct filechains *fc;
	uint64_t tree_s = 0, tree_p = 0, period = 0;
	char why[200];
	size_t i, bad = 0;
	bool same = true;
	int err;

	if (l->version < 5)
		return 0;
	fc = xcalloc(1, sizeof(*fc));
	fc->src.each = filechains_each;
	fc->src.release = filechains_release;
	if ((err = read_rows(l, fc)))
		goto fail;
	sqlite3_finalize(l->st);
	l->st = NULL;
	if (!fc->nr_blks) {
		filechains_release(&fc->src);
		return 0;
	}
	for (i = 0; i < l->nr_frames; i++)
		if (l->framemap[i] != i) {
			err = errmsg__set(l->e, -EPROTO, "cannot load '%s': inconsistent data file: "
					  "frame %zu was merged with frame %u", l->path, i,
					  l->framemap[i]);
			goto fail;
		}
	fc->nr_frames = l->nr_frames;
	fc->nr_runs = l->nr_runs;
	fc->nr_events = l->nr_events;
	fc->nr_strs = l->nr_strs;
	for (i = 0; i < l->nr_strs && same; i++)
		same = l->strmap[i] == i;
	if (!same) {
		fc->strmap = xmalloc(l->nr_strs * sizeof(*fc->strmap));
		memcpy(fc->strmap, l->strmap, l->nr_strs * sizeof(*fc->strmap));
	}
	fc->elided = datafile__elided_frames(l->p);
	/* every block decoded once: a walk then meets no error of the file's */
	if ((err = walk_blocks(fc, NULL, NULL, why, sizeof(why), &bad, &period))) {
		l->table = "chain_blocks";
		l->row = (int64_t)bad;
		err = errmsg__set(l->e, err == -EIO ? -EIO : -EPROTO,
				  "cannot load '%s': %s: chain_blocks row %zu: %s", l->path,
				  err == -EIO ? "corrupt data file" : "inconsistent data file",
				  bad, why);
		if (err == -EIO)
			err = -EPROTO;
		goto fail;
	}
	datafile__elided_sums(l->p, &tree_s, &tree_p);
	if (tree_s != fc->src.samples || tree_p != period) {
		err = errmsg__set(l->e, -EPROTO, "cannot load '%s': inconsistent data file: the "
				  "chains hold %llu samples (period %llu), the trie's cells under "
				  "\"[elided]\" %llu (%llu)", l->path,
				  (unsigned long long)fc->src.samples, (unsigned long long)period,
				  (unsigned long long)tree_s, (unsigned long long)tree_p);
		goto fail;
	}
	l->p->whole = &fc->src;
	return 0;
fail:
	filechains_release(&fc->src);
	return err;
}
