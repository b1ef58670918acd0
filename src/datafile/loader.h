/*
 * Private to src/datafile: the state of one datafile__load, shared by
 * load.c (the header check, the untrusted open, the driver), loadrows.c
 * and loadtrie.c (every table read row by row, each value checked through
 * loadget.h) and loaderr.c (SQLite's failure as one line).
 */
#ifndef MMPROF_DATAFILE_LOADER_H
#define MMPROF_DATAFILE_LOADER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <sqlite3.h>

#include "mmprof/datafile.h"

struct loader {
	const char *path;
	struct errmsg *e;
	sqlite3 *db;
	sqlite3_stmt *st;
	struct profile *p;
	int version;
	unsigned long long file_size;	/* bytes, from step 1's fstat */
	unsigned long long vm_ticks, vm_budget;	/* progress calls so far, allowed */

	const char *table;	/* for messages: where we are */
	int64_t row;
	size_t nr_rows;
	unsigned long long str_bytes;

	uint32_t *strmap;	/* file string id -> profile string id */
	size_t nr_strs, alloc_strmap;	/* file ids 1..nr_strs-1 */
	uint32_t *framemap;
	size_t nr_frames, alloc_framemap;
	uint32_t *nodemap;
	size_t nr_nodes, alloc_nodemap;	/* includes the implicit root */
	size_t nr_events, nr_runs;
	bool has_frame_files;	/* the optional table is there (its columns checked) */
	uint64_t sum_samples, sum_period;	/* over every count read, < 2^63 */
	unsigned char *block;	/* format 3: the block being read, unpacked */
	size_t alloc_block;
	unsigned long long inflated;	/* bytes unpacked so far */
};

/* Big-endian fields: the SQLite header's (load.c), format 2's count cells (loadtrie.c). */
static inline uint32_t be32(const unsigned char *b)
{
	return (uint32_t)b[0] << 24 | (uint32_t)b[1] << 16 | (uint32_t)b[2] << 8 | b[3];
}

/* An SQLite failure rc as the loader's message (loaderr.c); returns -errno. */
int loader__sql_fail(struct loader *l, int rc);

/*
 * Step 3 (loadrows.c): every table into l->p, in the order their
 * references need (strings first, nodes before counts).  0 or -errno with
 * l->e filled.
 */
int loader__read_tables(struct loader *l);
/*
 * The trie and its counts (loadtrie.c), after the frames: the nodes, the
 * counts (a hostile file's repeats merged), then the views' walks over
 * them bounded.  0 or -errno with l->e filled.
 */
int loader__load_nodes(struct loader *l);
int loader__load_counts(struct loader *l);
int loader__check_walk(struct loader *l);
/* Format 5's chain_blocks (loadchain.c), after the counts: l->p->whole.  0 or -errno with l->e filled. */
int loader__load_chains(struct loader *l);

#endif
