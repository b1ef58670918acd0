/*
 * Private to src/datafile: the schema text shared by save.c and load.c.
 * The normative description is Documentation/data-format.md.
 */
#ifndef MMPROF_DATAFILE_SCHEMA_H
#define MMPROF_DATAFILE_SCHEMA_H

/* CREATE statements of format version (1..5): tables and views, NULL-terminated. */
const char *const *datafile_schema_parts(int version);

/* Indexes, created once the tables are filled (for the views only; none in format 3). */
const char *datafile_index_sql(int version);

/* Names of the tables a reader of version requires, NULL-terminated. */
const char *const *datafile_tables(int version);

/*
 * Format 2 stores counts as cells of 20 bytes, big-endian: node (4),
 * samples (8), period (8); at most DATAFILE_CELLS_PER_ROW in one row.
 * The writer puts DATAFILE_CELLS_WRITTEN in a row, so that a row fits in
 * a 4 KiB page: a blob that spills into overflow pages is read whole for
 * every substr() of the counts view, a cell at a time.
 */
#define DATAFILE_CELL_SIZE	20u
#define DATAFILE_CELLS_PER_ROW	4096u
#define DATAFILE_CELLS_WRITTEN	192u

/*
 * Format 3 packs frames and trie nodes in blocks, column by column, and
 * compresses every block (the cells' too) as sqlar_compress() does: zlib's
 * compress() when that is shorter, else the bytes as they are.  A block
 * unpacks to at most 4 KiB (the views copy it at every step); every block
 * but the last of a table is full.  A reader refuses a file whose blocks
 * unpack to more than DATAFILE_MAX_INFLATE times its own size (a real one
 * is below 10: the ratio of a zlib bomb is bounded, its memory is not).
 */
#define DATAFILE_FRAME_SIZE	29u	/* addr 8, sym_off 8, sym 4, dso 4, raw 4, flags 1 */
#define DATAFILE_FRAMES_PER_BLOCK 128u
#define DATAFILE_NODE_SIZE	8u	/* id - parent 4, frame 4 */
#define DATAFILE_NODES_PER_BLOCK 512u
#define DATAFILE_FRAME_KERNEL	1u	/* flags */
#define DATAFILE_FRAME_INLINED	2u
#define DATAFILE_MAX_INFLATE	64u
/*
 * And whatever the ratio, at most this many bytes unpacked in all (8 M
 * nodes, were they all nodes), checked on the blocks' stated sizes before
 * any is read: a 9 MB file of 2^26 nodes that pack 1000 to 1 (padded to
 * pass the ratio) took 1.58 GB and 8 s in report, 3.1 GB in a diff of it
 * with itself.  mmprof's largest recordings unpack to half of it (3.2 M
 * nodes, Documentation/performance.md); a reader needs about 40 bytes of
 * memory and half a microsecond per node.
 */
#define DATAFILE_MAX_UNPACKED	(64u << 20)
/*
 * The views walk the trie once per run and event that has counts (a
 * flame graph, the tree, the costs): (run, event) pairs with a count
 * times the trie's nodes may be at most this many.  A 2.1 MB file of 200
 * runs x 256 events x 200,000 nodes with one cell per pair (10^10) took
 * 66 s in report --keys and past 25 s in diff; a recording of 10 runs of
 * 3 events over 1.45 M nodes is 4.4 x 10^7.
 */
#define DATAFILE_MAX_WALK	(1ull << 31)
/*
 * Some views build the symbol trie again per event (the summary of
 * report: twice), at about 100 ns a node: events with a count times the
 * trie's nodes may be at most this many (8 events over 2 M nodes; the
 * largest recordings have 3 over 1.45 M, 1 over 3.2 M).
 */
#define DATAFILE_MAX_EVENT_WALK	(1ull << 24)

/* The fields of a frame and of a node, in order: format 3's layout. */
#define DATAFILE_FRAME_FIELDS	{ 8, 8, 4, 4, 4, 1 }
#define DATAFILE_NODE_FIELDS	{ 4, 4 }
/* Format 4's: a node's id - parent whole, its frame byte by byte. */
#define DATAFILE_NODE_FIELDS_V4	{ 4, 1, 1, 1, 1 }

/*
 * Format 4 lays frames, nodes and frame_files out byte by byte (every
 * record's first byte, then every record's second, ...; a node's first
 * field whole; cells stay record by record), stores a count cell's node as the step
 * from the cell before it in its row, and packs frame_files in blocks too
 * (frame step 4, vaddr 8, build_id string 4).
 */
#define DATAFILE_FFILE_SIZE	16u
#define DATAFILE_FFILES_PER_BLOCK 256u

/* The meta key save writes first and load checks against user_version. */
#define DATAFILE_META_FORMAT "format_version"

/*
 * The events, and the (run, event) pairs, that have a count in p: what a
 * reader's walks multiply by the trie's nodes (data-format.md, limits),
 * which the loader checks and the saver checks before it writes.
 */
struct profile;
void datafile_walked(const struct profile *p, size_t *events, size_t *pairs);

#endif
