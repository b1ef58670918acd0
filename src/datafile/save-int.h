/*
 * save-int.h: what the two files of a save share (src/datafile/ only).
 * save.c holds the saver's life (the temporary file, the transaction,
 * the rename) and the small tables (meta, strings, events, runs,
 * counters, intervals, metrics); savetrie.c the profile's trie and
 * counts, the bulk of a file: frames, frame files, nodes and count cells,
 * in each format's rows or blocks; savesql.c the SQL and the checks both
 * write through.  save.c calls savetrie.c, and both call savesql.c: one
 * way.
 */
#ifndef MMPROF_DATAFILE_SAVE_INT_H
#define MMPROF_DATAFILE_SAVE_INT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <sqlite3.h>

#include "mmprof/errmsg.h"
#include "mmprof/profile.h"
#include "mmprof/strintern.h"

struct saver {
	const struct profile *p;
	int version;		/* of the format written */
	const char *path;
	struct errmsg *e;
	sqlite3 *db;
	sqlite3_stmt *st;
	uint64_t sum_samples, sum_period;	/* of the counts checked so far */
	unsigned long long str_bytes;	/* text so far, counted as load counts it */
	size_t meta_seq;		/* the next meta row */
	/* salvage: a row nothing refers to that breaks a rule is left out */
	bool salvage, droppable;
	size_t dropped;
	struct errmsg first;	/* the first row left out */
	unsigned char *zbuf;	/* format 3: a block compressed */
	size_t zcap;
	struct ffrec *ff;	/* format 4: the frame_files records, in frame order */
	size_t nr_ff;
	struct strintern extra;	/* format 4: build-ids not in p's strings, ids strs.nr + i */
	bool chains_unread;	/* p->whole's walk failed (savechain.c): the trie can still be saved */
};

/* Format 4: a frame_files record, its build-id as a string id of the file. */
struct ffrec {
	uint32_t frame, bid;
	uint64_t vaddr;
};

/* savesql.c: the helpers every table's writer uses; each returns 0 or -errno with s->e set. */

/* An SQLite failure (rc) as -errno with a message naming what failed; disk full said plainly. */
int saver__sql_fail(struct saver *s, int rc, const char *what);
/* sql run as it is (the pragmas, the schema, the transaction). */
int saver__exec(struct saver *s, const char *sql);

/* A profile that breaks an invariant of the format: name the row (salvage: 1, the row left out). */
int saver__bad(struct saver *s, int err, const char *table, size_t row, const char *fmt, ...)
	__attribute__((format(printf, 5, 6)));
/* Text bound in a row: load counts it all against DATAFILE_MAX_STR_TOTAL. */
int saver__check_text(struct saver *s, const char *table, size_t row, size_t len);
/* s->st for sql, the previous statement finalized. */
int saver__prepare(struct saver *s, const char *sql);
/* s->st run and reset. */
int saver__step(struct saver *s);
/* Unsigned 64-bit values travel as the signed INTEGER of the same bits. */
void saver__bind_u64(sqlite3_stmt *st, int col, uint64_t v);
/* String id 0 ("no string") is stored as NULL so joins and FKs stay honest. */
void saver__bind_str(sqlite3_stmt *st, int col, uint32_t id);
/* n rows within the format's DATAFILE_MAX_ROWS. */
int saver__check_rows(struct saver *s, const char *table, size_t n);
int saver__check_str(struct saver *s, const char *table, size_t row, uint32_t id);
int saver__check_run(struct saver *s, const char *table, size_t row, uint32_t run);
/* Counts are stored as INTEGER: below 2^63. */
int saver__check_count(struct saver *s, const char *table, size_t row, uint64_t v);

/* savetrie.c: the trie's tables, written by save.c's write_db in its order. */

/* Formats 1 and 2: a row per frame. */
int saver__write_frames(struct saver *s);
/* Formats 3 and 4: blocks of DATAFILE_FRAMES_PER_BLOCK frames. */
int saver__write_frame_blocks(struct saver *s);
/* Formats 1 to 3: a row per frame that names its file. */
int saver__write_frame_files(struct saver *s);
/* Format 4, before the strings: the frame_files records and the build-ids they add (s->ff, s->extra). */
int saver__plan_frame_files(struct saver *s);
/* Format 4: blocks of DATAFILE_FFILES_PER_BLOCK frame_files records. */
int saver__write_frame_file_blocks(struct saver *s);
/* Formats 1 and 2: a row per node. */
int saver__write_nodes(struct saver *s);
/* Formats 3 and 4: blocks of DATAFILE_NODES_PER_BLOCK nodes. */
int saver__write_node_blocks(struct saver *s);
/* Format 1: a row per count. */
int saver__write_count_rows(struct saver *s);
/* Formats 2 to 5: the counts in cells, key by key. */
int saver__write_count_cells(struct saver *s);
/* Formats 3 to 5: a block's bytes as its size (column col) and data (col + 1), packed as sqlar_compress() does. */
void saver__bind_block(struct saver *s, int col, const unsigned char *raw, size_t len);

/* savechain.c: format 5's chain_blocks, p->whole's chains (none: the table empty). */
int saver__write_chain_blocks(struct saver *s);


#endif
