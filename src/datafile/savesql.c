/*
 * savesql: a save's SQL and its checks of the profile against the format
 * (see save-int.h), which save.c's small tables and savetrie.c's trie
 * tables both write through.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <sqlite3.h>

#include "mmprof/datafile.h"
#include "save-int.h"

/* An SQLite failure as -errno with a message; disk full is said plainly. */
int saver__sql_fail(struct saver *s, int rc, const char *what)
{
	const char *why = s->db ? sqlite3_errmsg(s->db) : sqlite3_errstr(rc);
	int sys = s->db ? sqlite3_system_errno(s->db) : 0;

	if ((rc & 0xff) == SQLITE_FULL || sys == ENOSPC)
		return errmsg__set(s->e, -ENOSPC,
				   "cannot write '%s': no space left on device; free some space or write elsewhere (-o)",
				   s->path);
	if ((rc & 0xff) == SQLITE_IOERR && sys)
		return errmsg__set(s->e, -sys, "cannot write '%s': %s: %s",
				   s->path, what, strerror(sys));
	return errmsg__set(s->e, -EIO, "cannot write '%s': %s: %s", s->path, what, why);
}

/* A profile that breaks an invariant of the format: name the row. */
int saver__bad(struct saver *s, int err, const char *table, size_t row, const char *fmt, ...)
{
	char what[160];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(what, sizeof(what), fmt, ap);
	va_end(ap);
	if (s->salvage && s->droppable) {
		if (!s->dropped++)
			errmsg__set(&s->first, err, "profile %s row %zu: %s", table, row, what);
		return 1;	/* leave the row out */
	}
	return errmsg__set(s->e, err, "cannot write '%s': profile %s row %zu: %s",
			   s->path, table, row, what);
}

/* Text bound in a row: load counts it all against DATAFILE_MAX_STR_TOTAL. */
int saver__check_text(struct saver *s, const char *table, size_t row, size_t len)
{
	s->str_bytes += len;
	if (s->str_bytes > DATAFILE_MAX_STR_TOTAL)
		return saver__bad(s, -ERANGE, table, row, "text totals %llu bytes, over the limit of %llu",
			   s->str_bytes, DATAFILE_MAX_STR_TOTAL);
	return 0;
}

int saver__exec(struct saver *s, const char *sql)
{
	int rc = sqlite3_exec(s->db, sql, NULL, NULL, NULL);

	return rc == SQLITE_OK ? 0 : saver__sql_fail(s, rc, "cannot set up the database");
}

int saver__prepare(struct saver *s, const char *sql)
{
	int rc;

	sqlite3_finalize(s->st);
	s->st = NULL;
	rc = sqlite3_prepare_v3(s->db, sql, -1, SQLITE_PREPARE_PERSISTENT, &s->st, NULL);
	return rc == SQLITE_OK ? 0 : saver__sql_fail(s, rc, "cannot prepare a statement");
}

int saver__step(struct saver *s)
{
	int rc = sqlite3_step(s->st);
	int err = 0;

	if (rc != SQLITE_DONE)
		err = saver__sql_fail(s, rc, "cannot insert a row");
	sqlite3_reset(s->st);
	return err;
}

/* Unsigned 64-bit values travel as the signed INTEGER of the same bits. */
void saver__bind_u64(sqlite3_stmt *st, int col, uint64_t v)
{
	int64_t i;

	memcpy(&i, &v, sizeof(i));
	sqlite3_bind_int64(st, col, i);
}

/* String id 0 ("no string") is stored as NULL so joins and FKs stay honest. */
void saver__bind_str(sqlite3_stmt *st, int col, uint32_t id)
{
	if (id)
		sqlite3_bind_int64(st, col, id);
	else
		sqlite3_bind_null(st, col);
}

int saver__check_rows(struct saver *s, const char *table, size_t n)
{
	if (n > DATAFILE_MAX_ROWS)
		return errmsg__set(s->e, -ERANGE,
				   "cannot write '%s': %zu rows in %s exceed the format's limit of %u",
				   s->path, n, table, DATAFILE_MAX_ROWS);
	return 0;
}

int saver__check_str(struct saver *s, const char *table, size_t row, uint32_t id)
{
	if (id >= s->p->strs.nr)
		return saver__bad(s, -EINVAL, table, row, "string id %u does not exist", id);
	return 0;
}

int saver__check_run(struct saver *s, const char *table, size_t row, uint32_t run)
{
	if (run >= s->p->nr_runs)
		return saver__bad(s, -EINVAL, table, row, "run %u does not exist", run);
	return 0;
}

int saver__check_count(struct saver *s, const char *table, size_t row, uint64_t v)
{
	if (v > INT64_MAX)
		return saver__bad(s, -ERANGE, table, row, "count %llu is not below 2^63", (unsigned long long)v);
	return 0;
}
