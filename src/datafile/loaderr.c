/*
 * datafile loaderr: SQLite's failure as the loader's one line, worded
 * once for load.c, loadrows.c and loadtrie.c (a row that is not what the
 * format says is loadget.h's bad_row).
 */
#include <errno.h>
#include <stdio.h>

#include <sqlite3.h>

#include "mmprof/datafile.h"
#include "loader.h"

int loader__sql_fail(struct loader *l, int rc)
{
	const char *why = l->db ? sqlite3_errmsg(l->db) : sqlite3_errstr(rc);

	switch (rc & 0xff) {
	case SQLITE_TOOBIG:
		return errmsg__set(l->e, -EPROTO,
				   "cannot load '%s': inconsistent data file: %s holds a value over %u bytes",
				   l->path, l->table ? l->table : "the schema", DATAFILE_MAX_STR);
	case SQLITE_NOMEM:
		return errmsg__set(l->e, -ENOMEM, "cannot load '%s': out of memory", l->path);
	case SQLITE_INTERRUPT:	/* the progress handler's budget ran out */
		return errmsg__set(l->e, -EPROTO,
				   "cannot load '%s': inconsistent data file: reading %s took more work than a file of %llu bytes can need",
				   l->path, l->table ? l->table : "the schema", l->file_size);
	case SQLITE_CORRUPT:
	case SQLITE_NOTADB:
	case SQLITE_ERROR:	/* a missing column, a schema SQLite cannot parse */
		return errmsg__set(l->e, -EPROTO, "cannot load '%s': corrupt data file%s%s: %s",
				   l->path, l->table ? " in table " : "", l->table ? l->table : "", why);
	default:
		return errmsg__set(l->e, -EIO, "cannot load '%s': %s", l->path, why);
	}
}
