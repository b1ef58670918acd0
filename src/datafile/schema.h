/*
 * Private to src/datafile: the schema text shared by save.c and load.c.
 * The normative description is Documentation/data-format.md.
 */
#ifndef MMPROF_DATAFILE_SCHEMA_H
#define MMPROF_DATAFILE_SCHEMA_H

/* CREATE statements for the tables and views every format has. */
extern const char datafile_schema_sql[];

/* CREATE statements for the counts of format version (1 or 2). */
const char *datafile_counts_sql(int version);

/* Indexes, created once the tables are filled (for the views only). */
extern const char datafile_index_sql[];

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

/* The meta key save writes first and load checks against user_version. */
#define DATAFILE_META_FORMAT "format_version"

#endif
