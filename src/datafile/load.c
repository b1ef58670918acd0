/*
 * datafile load: read a .data file into a new profile, trusting nothing.
 *
 * Files travel between machines as CI artifacts, so every byte is hostile
 * until checked.  The order of defence:
 *   1. the raw 100-byte SQLite header, read with plain read(2): magic,
 *      application_id, user_version, page size, the size the header claims
 *      against the real size (truncation), rollback-journal mode;
 *   2. SQLite opened read-only and immutable (no locks, no journal or WAL
 *      files created or replayed), in defensive mode with an untrusted
 *      schema, views and triggers off, and a length limit on any value;
 *   3. the schema must be the one save writes: every required name a real
 *      table (not a view that could run arbitrary SQL), no virtual table
 *      anywhere in the file, and each required table's columns those of
 *      schema.c by name, declared type and primary key, none generated (a
 *      virtual column computes on every read, whatever the file's size);
 *      and every query runs under a progress handler whose budget is
 *      proportional to the file's size, so that nothing SQLite does for
 *      a file the checks did not foresee runs unbounded;
 *   4. every row is read in id order with its type checked
 *      (sqlite3_value_type), ids must be dense, every reference in range,
 *      node parents must precede the node (so the trie has no cycle), counts
 *      non-negative, strings bounded and free of NUL bytes.
 * Memory grows with rows actually present and is capped by the limits in
 * datafile.h; no allocation takes its size from a number in the file.
 *
 * Ids are mapped through arrays (file id -> profile id) because the model
 * interns: a hostile file with duplicate strings, frames or trie edges
 * collapses them rather than breaking an index.  For a file written by
 * save the mapping is the identity.
 *
 * Steps 1 to 3 and the driver are here; step 4, the tables read row by
 * row, is loadrows.c (the flat tables) and loadtrie.c (the stack trie and
 * its counts) through loadget.h's typed getters; loaderr.c words a
 * failure; src/datafile/loader.h holds the state they share.
 */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include <sqlite3.h>

#include "mmprof/datafile.h"
#include "mmprof/xalloc.h"
#include "loader.h"
#include "schema.h"

#define SQLITE_MAGIC "SQLite format 3"	/* 16 bytes with its NUL */
#define HEADER_SIZE 100

/*
 * Step 1: the header, before SQLite sees the file, so that a foreign or
 * truncated file gets a plain answer rather than an SQLite error.
 */
static int check_header(struct loader *l)
{
	unsigned char h[HEADER_SIZE];
	unsigned long long pages, page_size;
	struct stat st;
	ssize_t n;
	int fd, uv;

	/* O_NONBLOCK: a FIFO under the name must not hang us */
	fd = open(l->path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	if (fd < 0)
		return errmsg__set(l->e, -errno, "cannot open '%s': %s", l->path, strerror(errno));
	if (fstat(fd, &st)) {
		int err = -errno;

		close(fd);
		return errmsg__set(l->e, err, "cannot open '%s': %s", l->path, strerror(-err));
	}
	if (!S_ISREG(st.st_mode)) {
		close(fd);
		return errmsg__set(l->e, -EINVAL, "cannot open '%s': not a regular file", l->path);
	}
	do
		n = pread(fd, h, sizeof(h), 0);
	while (n < 0 && errno == EINTR);
	close(fd);
	l->file_size = (unsigned long long)st.st_size;
	if (n < 0)
		return errmsg__set(l->e, -errno, "cannot read '%s': %s", l->path, strerror(errno));
	if (n == 0)
		return errmsg__set(l->e, -EINVAL,
				   "cannot open '%s': not an mmprof data file (the file is empty)", l->path);
	/* perf record's own file: "PERFILE2", the header's magic since 2.6.37 */
	if ((size_t)n >= 8 && !memcmp(h, "PERFILE2", 8))
		return errmsg__set(l->e, -EINVAL,
				   "cannot open '%s': a perf.data file, not an mmprof one; "
				   "'mmprof import %s' converts it", l->path, l->path);
	if ((size_t)n < sizeof(SQLITE_MAGIC) || memcmp(h, SQLITE_MAGIC, sizeof(SQLITE_MAGIC)))
		return errmsg__set(l->e, -EINVAL,
				   "cannot open '%s': not an mmprof data file (not an SQLite database)",
				   l->path);
	if (n < HEADER_SIZE)
		return errmsg__set(l->e, -EPROTO,
				   "cannot open '%s': truncated data file (%zd bytes)", l->path, n);
	if (be32(h + 68) != DATAFILE_APP_ID)
		return errmsg__set(l->e, -EINVAL,
				   "cannot open '%s': not an mmprof data file (an SQLite database of another application)",
				   l->path);
	uv = (int)be32(h + 60);
	if (uv > PROFILE_FORMAT_VERSION)
		return errmsg__set(l->e, -EPROTONOSUPPORT,
				   "cannot open '%s': format %d > supported %d; upgrade mmprof",
				   l->path, uv, PROFILE_FORMAT_VERSION);
	if (uv < 1)
		return errmsg__set(l->e, -EPROTONOSUPPORT,
				   "cannot open '%s': format %d is not one this mmprof reads (1..%d)",
				   l->path, uv, PROFILE_FORMAT_VERSION);
	l->version = uv;
	if (h[18] != 1 || h[19] != 1)
		return errmsg__set(l->e, -EPROTO,
				   "cannot open '%s': the database is in WAL mode; convert it with: sqlite3 '%s' 'PRAGMA journal_mode=DELETE'",
				   l->path, l->path);
	page_size = (unsigned long long)h[16] << 8 | h[17];
	if (page_size == 1)
		page_size = 65536;
	if (page_size < 512 || (page_size & (page_size - 1)))
		return errmsg__set(l->e, -EPROTO, "cannot open '%s': corrupt data file (page size %llu)",
				   l->path, page_size);
	/* The in-header page count is valid when the two change counters agree
	 * (every SQLite since 3.7.0 keeps it so); it catches a cut file early. */
	pages = be32(h + 28);
	if (pages && be32(h + 24) == be32(h + 92) &&
	    pages * page_size > (unsigned long long)st.st_size)
		return errmsg__set(l->e, -EPROTO,
				   "cannot open '%s': truncated data file (%lld bytes, the header says %llu)",
				   l->path, (long long)st.st_size, pages * page_size);
	return 0;
}

/* "file:" URI with every byte that could mean something escaped. */
static char *path_uri(const char *path)
{
	static const char hex[] = "0123456789ABCDEF";
	size_t n = strlen(path), i, j = 0;
	char *u = xmalloc(5 + 3 * n + sizeof("?immutable=1"));

	memcpy(u, "file:", 5);
	j = 5;
	for (i = 0; i < n; i++) {
		unsigned char c = (unsigned char)path[i];

		if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
		    c == '.' || c == '_' || c == '-' || c == '~' || (c == '/' && i > 0)) {
			u[j++] = (char)c;
		} else {
			u[j++] = '%';
			u[j++] = hex[c >> 4];
			u[j++] = hex[c & 15];
		}
	}
	memcpy(u + j, "?immutable=1", sizeof("?immutable=1"));
	return u;
}

/*
 * SQLite calls this every VM_TICK virtual machine instructions of any
 * statement; a non-zero return interrupts it (SQLITE_INTERRUPT).  Reading
 * a row of a file save wrote costs a few instructions per stored byte at
 * most (a 1-byte string row is ~4 bytes on disk and ~6 instructions), so
 * VM_PER_BYTE instructions per byte of the file, plus a floor for the
 * schema's own statements, never stops a real file.
 */
#define VM_TICK		1000u
#define VM_PER_BYTE	32u
#define VM_FLOOR	(16ull << 20)

static int vm_progress(void *ctx)
{
	struct loader *l = ctx;

	return ++l->vm_ticks > l->vm_budget;
}

/* Step 2: open it as untrusted. */
static int open_db(struct loader *l)
{
	char *uri = path_uri(l->path);
	int rc;

	rc = sqlite3_open_v2(uri, &l->db, SQLITE_OPEN_READONLY | SQLITE_OPEN_URI | SQLITE_OPEN_NOMUTEX,
			     NULL);
	free(uri);
	if (rc != SQLITE_OK)
		return loader__sql_fail(l, rc);
	sqlite3_db_config(l->db, SQLITE_DBCONFIG_DEFENSIVE, 1, NULL);
	sqlite3_db_config(l->db, SQLITE_DBCONFIG_TRUSTED_SCHEMA, 0, NULL);
	sqlite3_db_config(l->db, SQLITE_DBCONFIG_ENABLE_TRIGGER, 0, NULL);
	sqlite3_db_config(l->db, SQLITE_DBCONFIG_ENABLE_VIEW, 0, NULL);
	sqlite3_limit(l->db, SQLITE_LIMIT_LENGTH, (int)DATAFILE_MAX_STR + 4096);
	l->vm_budget = (VM_FLOOR + l->file_size * VM_PER_BYTE) / VM_TICK;
	sqlite3_progress_handler(l->db, VM_TICK, vm_progress, l);
	rc = sqlite3_exec(l->db, "PRAGMA cell_size_check=ON", NULL, NULL, NULL);
	return rc == SQLITE_OK ? 0 : loader__sql_fail(l, rc);
}

/*
 * Does the text of a schema row create a virtual table?  SQLite reads a
 * row of sqlite_master only when its text starts "create " (any case),
 * and then the next token is VIRTUAL for a virtual table and for nothing
 * else (its grammar: CREATE VIRTUAL TABLE ...); blanks and comments may
 * come between.  pragma table_list said the same, but it works out the
 * columns of every view first (a parse of each view's query, and views
 * are disabled here, so again at every call): a quarter of a load's time.
 */
static bool creates_virtual(const char *sql)
{
	const char *s = sql;

	if (!s || strncasecmp(s, "create", 6))
		return false;
	s += 6;
	for (;;) {
		if (*s == ' ' || (*s >= '\t' && *s <= '\r')) {
			s++;
		} else if (s[0] == '-' && s[1] == '-') {
			s += strcspn(s, "\n");
		} else if (s[0] == '/' && s[1] == '*') {
			const char *end = strstr(s + 2, "*/");

			s = end ? end + 2 : s + strlen(s);
		} else {
			break;
		}
	}
	return !strncasecmp(s, "virtual", 7) &&
	       !(isalnum((unsigned char)s[7]) || s[7] == '_' || s[7] == '$' || (unsigned char)s[7] >= 0x80);
}

/* Step 3: no virtual table anywhere (each is a table row of sqlite_master). */
static int check_no_virtual(struct loader *l)
{
	int rc, err = 0;

	rc = sqlite3_prepare_v2(l->db, "SELECT name, sql FROM sqlite_master WHERE type = 'table'",
				-1, &l->st, NULL);
	if (rc != SQLITE_OK)
		return loader__sql_fail(l, rc);
	while ((rc = sqlite3_step(l->st)) == SQLITE_ROW)
		if (creates_virtual((const char *)sqlite3_column_text(l->st, 1)))
			break;
	if (rc == SQLITE_ROW)
		err = errmsg__set(l->e, -EPROTO,
				  "cannot load '%s': not the schema mmprof writes: '%.64s' is a virtual table",
				  l->path, (const char *)sqlite3_column_text(l->st, 0));
	else if (rc != SQLITE_DONE)
		err = loader__sql_fail(l, rc);
	sqlite3_finalize(l->st);
	l->st = NULL;
	return err;
}

/* Columns of a version-1 file's frames that a file written before them lacks. */
static bool optional_column(const char *table, const char *name)
{
	return !strcmp(table, "frames") && (!strcmp(name, "inlined") || !strcmp(name, "raw"));
}

static const char *col_text(sqlite3_stmt *st, int col)
{
	const unsigned char *t = sqlite3_column_text(st, col);

	return t ? (const char *)t : "";
}

/*
 * Step 3: table's columns in the file against those save creates (in
 * ref, an in-memory database holding schema.c's tables): the same names in
 * the same order, the same declared types and primary key, none hidden
 * (generated, or a virtual table's).
 */
static int check_columns(struct loader *l, sqlite3 *ref, const char *table)
{
	static const char sql[] = "SELECT name, type, pk, hidden FROM pragma_table_xinfo(?1) ORDER BY cid";
	sqlite3_stmt *want = NULL;
	int rc, wrc, err = 0;

	if ((rc = sqlite3_prepare_v2(l->db, sql, -1, &l->st, NULL)) != SQLITE_OK ||
	    (rc = sqlite3_prepare_v2(ref, sql, -1, &want, NULL)) != SQLITE_OK) {
		err = loader__sql_fail(l, rc);
		goto out;
	}
	sqlite3_bind_text(l->st, 1, table, -1, SQLITE_STATIC);
	sqlite3_bind_text(want, 1, table, -1, SQLITE_STATIC);
	wrc = sqlite3_step(want);
	while (!err && (rc = sqlite3_step(l->st)) == SQLITE_ROW) {
		const char *name = col_text(l->st, 0);

		while (wrc == SQLITE_ROW && strcmp(name, col_text(want, 0)) &&
		       optional_column(table, col_text(want, 0)))
			wrc = sqlite3_step(want);
		if (sqlite3_column_int(l->st, 3))
			err = errmsg__set(l->e, -EPROTO,
					  "cannot load '%s': not the schema mmprof writes: column %s.%.64s is generated",
					  l->path, table, name);
		else if (wrc != SQLITE_ROW)
			err = errmsg__set(l->e, -EPROTO,
					  "cannot load '%s': not the schema mmprof writes: table %s has an extra column '%.64s'",
					  l->path, table, name);
		else if (strcmp(name, col_text(want, 0)))
			err = errmsg__set(l->e, -EPROTO,
					  "cannot load '%s': not the schema mmprof writes: table %s has column '%.64s' where '%s' was expected",
					  l->path, table, name, col_text(want, 0));
		else if (strcasecmp(col_text(l->st, 1), col_text(want, 1)) ||
			 sqlite3_column_int(l->st, 2) != sqlite3_column_int(want, 2))
			err = errmsg__set(l->e, -EPROTO,
					  "cannot load '%s': not the schema mmprof writes: column %s.%s is declared '%.64s%s', not '%s%s'",
					  l->path, table, name, col_text(l->st, 1),
					  sqlite3_column_int(l->st, 2) ? " PRIMARY KEY" : "",
					  col_text(want, 1), sqlite3_column_int(want, 2) ? " PRIMARY KEY" : "");
		else
			wrc = sqlite3_step(want);
	}
	if (err)
		goto out;
	if (rc != SQLITE_DONE) {
		err = loader__sql_fail(l, rc);
		goto out;
	}
	while (wrc == SQLITE_ROW && optional_column(table, col_text(want, 0)))
		wrc = sqlite3_step(want);
	if (wrc == SQLITE_ROW)
		err = errmsg__set(l->e, -EPROTO,
				  "cannot load '%s': not the schema mmprof writes: table %s lacks column '%s'",
				  l->path, table, col_text(want, 0));
out:
	sqlite3_finalize(want);
	sqlite3_finalize(l->st);
	l->st = NULL;
	return err;
}

/* Whether name is an ordinary table of the file: 0, or -errno (something else by that name). */
static int table_type(struct loader *l, const char *name, bool *is_table)
{
	const unsigned char *type;
	int rc, err = 0;

	*is_table = false;
	rc = sqlite3_prepare_v2(l->db, "SELECT type FROM sqlite_master WHERE name = ?1",
				-1, &l->st, NULL);
	if (rc != SQLITE_OK)
		return loader__sql_fail(l, rc);
	sqlite3_bind_text(l->st, 1, name, -1, SQLITE_STATIC);
	rc = sqlite3_step(l->st);
	if (rc == SQLITE_ROW) {
		type = sqlite3_column_text(l->st, 0);
		if (type && !strcmp((const char *)type, "table"))
			*is_table = true;
		else
			err = errmsg__set(l->e, -EPROTO, "cannot load '%s': not the schema mmprof "
					  "writes: '%s' is not a table", l->path, name);
	} else if (rc != SQLITE_DONE) {
		err = loader__sql_fail(l, rc);
	}
	sqlite3_finalize(l->st);
	l->st = NULL;
	return err;
}

/*
 * The next statement of sql at *at (schema.c's text, where statements end
 * at a ';' that completes one), without its ';' and the blanks before it,
 * as SQLite keeps a table's text in sqlite_master; NULL at the end.  *at
 * moves past it.  The caller frees it.
 */
static char *next_statement(const char **at)
{
	const char *start = *at + strspn(*at, " \t\n"), *semi;

	/* a ';' inside the statement (a string, a trigger's body): the next one */
	for (semi = strchr(start, ';'); semi; semi = strchr(semi + 1, ';')) {
		char *stmt = xstrndup(start, (size_t)(semi - start + 1));

		if (sqlite3_complete(stmt)) {
			stmt[semi - start] = '\0';
			*at = semi + 1;
			return stmt;
		}
		free(stmt);
	}
	return NULL;
}

/*
 * The tables of sql (schema.c's CREATE statements) into ref, its views
 * left out: check_columns compares tables only, and creating a view parses
 * its query twice (at the statement and again as the new schema row).
 */
static int ref_tables(sqlite3 *ref, const char *sql)
{
	const char *at = sql;
	char *stmt;
	int rc = SQLITE_OK;

	while (rc == SQLITE_OK && (stmt = next_statement(&at))) {
		if (strncmp(stmt, "CREATE VIEW", 11))
			rc = sqlite3_exec(ref, stmt, NULL, NULL, NULL);
		free(stmt);
	}
	return rc;
}

/*
 * Is table name of the file a table whose text is the one save writes in
 * this version (st: SELECT type, sql FROM sqlite_master WHERE name = ?1)?
 * SQLite builds a table from its text, so its columns are then exactly
 * those check_columns asks for.  absent_ok: a table the file may lack.
 */
static bool table_as_written(const struct loader *l, sqlite3_stmt *st, const char *name,
			     bool absent_ok)
{
	const char *const *part;
	char prefix[64];
	bool same = false;
	int rc;

	sqlite3_reset(st);
	sqlite3_bind_text(st, 1, name, -1, SQLITE_STATIC);
	rc = sqlite3_step(st);
	if (rc != SQLITE_ROW)
		return rc == SQLITE_DONE && absent_ok;
	if (strcmp(col_text(st, 0), "table"))
		return false;
	snprintf(prefix, sizeof(prefix), "CREATE TABLE %s(", name);
	for (part = datafile_schema_parts(l->version); *part && !same; part++) {
		const char *at = *part;
		char *stmt;
		bool found = false;

		while (!found && (stmt = next_statement(&at))) {
			found = !strncmp(stmt, prefix, strlen(prefix));
			same = found && !strcmp(stmt, col_text(st, 1));
			free(stmt);
		}
	}
	return same;
}

/*
 * Every table of the file as save writes it (the usual case): its columns
 * need no comparison with a reference.  A table of other text (an older
 * writer, an edit) takes check_columns' way, which says what differs.
 */
static bool tables_as_written(struct loader *l)
{
	const char *const *t;
	sqlite3_stmt *st = NULL;
	bool same = sqlite3_prepare_v2(l->db, "SELECT type, sql FROM sqlite_master WHERE name = ?1",
				       -1, &st, NULL) == SQLITE_OK;

	for (t = datafile_tables(l->version); same && *t; t++)
		same = table_as_written(l, st, *t, false);
	if (same && l->version < 4)
		same = table_as_written(l, st, "frame_files", true);
	sqlite3_finalize(st);
	return same;
}

static int check_tables(struct loader *l)
{
	const char *const *t, *const *part;
	sqlite3 *ref = NULL;
	int rc, err = 0;

	rc = sqlite3_prepare_v2(l->db, "SELECT type FROM sqlite_master WHERE name = ?1",
				-1, &l->st, NULL);
	if (rc != SQLITE_OK)
		return loader__sql_fail(l, rc);
	for (t = datafile_tables(l->version); *t && !err; t++) {
		const unsigned char *type;

		sqlite3_bind_text(l->st, 1, *t, -1, SQLITE_STATIC);
		rc = sqlite3_step(l->st);
		if (rc != SQLITE_ROW && rc != SQLITE_DONE)
			return loader__sql_fail(l, rc);
		type = rc == SQLITE_ROW ? sqlite3_column_text(l->st, 0) : NULL;
		if (!type || strcmp((const char *)type, "table"))
			err = errmsg__set(l->e, -EPROTO,
					  "cannot load '%s': inconsistent data file: table '%s' is missing",
					  l->path, *t);
		sqlite3_reset(l->st);
	}
	sqlite3_finalize(l->st);
	l->st = NULL;
	if (err || (err = check_no_virtual(l)))
		return err;
	if (tables_as_written(l))
		return l->version < 4 ? table_type(l, "frame_files", &l->has_frame_files) : 0;
	/* the reference: schema.c's tables, created where nothing is hostile */
	rc = sqlite3_open_v2(":memory:", &ref, SQLITE_OPEN_READWRITE | SQLITE_OPEN_NOMUTEX, NULL);
	for (part = datafile_schema_parts(l->version); rc == SQLITE_OK && *part; part++)
		rc = ref_tables(ref, *part);
	if (rc != SQLITE_OK)
		err = errmsg__set(l->e, rc == SQLITE_NOMEM ? -ENOMEM : -EIO,
				  "cannot load '%s': cannot build the reference schema: %s",
				  l->path, ref ? sqlite3_errmsg(ref) : sqlite3_errstr(rc));
	for (t = datafile_tables(l->version); *t && !err; t++)
		err = check_columns(l, ref, *t);
	/* formats 2 and 3's optional table: absent from files before it, checked
	 * when there (format 4 packs it in frame_file_blocks, a required table) */
	if (!err && l->version < 4 && (err = table_type(l, "frame_files", &l->has_frame_files)) == 0 &&
	    l->has_frame_files)
		err = check_columns(l, ref, "frame_files");
	sqlite3_close(ref);
	return err;
}

int datafile__load(const char *path, struct profile **out, struct errmsg *e)
{
	struct loader l = { .path = path, .e = e };
	int err;

	*out = NULL;
	if ((err = check_header(&l)) || (err = open_db(&l)) || (err = check_tables(&l)))
		goto out;
	l.p = profile__new();
	if ((err = loader__read_tables(&l)))
		goto out;
	profile__shrink(l.p);
	*out = l.p;
	l.p = NULL;
out:
	sqlite3_finalize(l.st);
	sqlite3_close(l.db);
	profile__free(l.p);
	free(l.strmap);
	free(l.framemap);
	free(l.nodemap);
	free(l.block);
	return err;
}
