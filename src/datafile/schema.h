/*
 * Private to src/datafile: the schema text shared by save.c and load.c.
 * The normative description is Documentation/data-format.md.
 */
#ifndef MMPROF_DATAFILE_SCHEMA_H
#define MMPROF_DATAFILE_SCHEMA_H

/* CREATE statements for every table and view of the current format. */
extern const char datafile_schema_sql[];

/* Indexes, created once the tables are filled (for the views only). */
extern const char datafile_index_sql[];

/* Names of the tables a reader requires, NULL-terminated. */
extern const char *const datafile_tables[];

/* The meta key save writes first and load checks against user_version. */
#define DATAFILE_META_FORMAT "format_version"

#endif
