/*
 * sqlite: the results store in one SQLite file, the default (nothing to
 * set up).  Several pushers at once are serialised by SQLite's write lock:
 * WAL journal (readers never wait for a pusher), BEGIN IMMEDIATE (a
 * pusher takes the lock before it reads the next id, so no two pushers
 * deadlock upgrading a read lock) and a busy timeout long enough for a
 * queue of pushers on a loaded machine.
 */
#include <errno.h>
#include <sqlite3.h>
#include <string.h>
#include <sys/stat.h>

#include "mmprof/xalloc.h"
#include "store-int.h"

/* A queue of 16 pushers of 50 ms each waits 0.8 s; a minute is a machine in trouble. */
#define BUSY_TIMEOUT_MS 60000

static const char schema_v1[] =
	"CREATE TABLE schema_version(version INTEGER NOT NULL);"
	"INSERT INTO schema_version VALUES(0);"
	"CREATE TABLE pushes(id INTEGER PRIMARY KEY, hash TEXT NOT NULL UNIQUE,"
	" commit_id TEXT NOT NULL, parent TEXT, branch TEXT, machine TEXT NOT NULL,"
	" benchmark TEXT NOT NULL, time INTEGER NOT NULL, pushed INTEGER NOT NULL,"
	" nr_runs INTEGER NOT NULL, size INTEGER NOT NULL);"
	"CREATE INDEX pushes_commit ON pushes(commit_id);"
	"CREATE INDEX pushes_series ON pushes(benchmark, machine, time);"
	"CREATE TABLE runs(push_id INTEGER NOT NULL, run INTEGER NOT NULL, exit_code INTEGER NOT NULL,"
	" term_signal INTEGER NOT NULL, start_ns INTEGER NOT NULL, wall_ns INTEGER NOT NULL,"
	" samples INTEGER NOT NULL, lost INTEGER NOT NULL, PRIMARY KEY(push_id, run)) WITHOUT ROWID;"
	"CREATE TABLE meta(push_id INTEGER NOT NULL, key TEXT NOT NULL, value TEXT NOT NULL,"
	" PRIMARY KEY(push_id, key)) WITHOUT ROWID;"
	"CREATE TABLE keys(id INTEGER PRIMARY KEY, name TEXT NOT NULL);"
	"CREATE TABLE keyvals(key_id INTEGER NOT NULL, push_id INTEGER NOT NULL, vals BLOB NOT NULL,"
	" PRIMARY KEY(push_id, key_id)) WITHOUT ROWID;"
	"CREATE TABLE blobs(push_id INTEGER PRIMARY KEY, size INTEGER NOT NULL, data BLOB NOT NULL);";

static const char *const schema[] = { schema_v1 };

static int sq_err(struct store *s, int rc, const char *what, struct errmsg *e)
{
	int err = rc == SQLITE_BUSY ? -EBUSY : rc == SQLITE_NOTADB ? -EINVAL :
		  rc == SQLITE_FULL ? -ENOSPC : rc == SQLITE_CANTOPEN ? -ENOENT : -EIO;

	return errmsg__set(e, err, "store '%s': %s: %s", s->where, what,
			   s->db ? sqlite3_errmsg(s->db) : sqlite3_errstr(rc));
}

static int sq_open(struct store *s, const char *where, bool create, struct errmsg *e)
{
	sqlite3 *db = NULL;
	struct stat st;
	int rc;

	if (!create && stat(where, &st))
		return errmsg__set(e, -errno, "cannot open store '%s': %s", where, strerror(errno));
	if (!stat(where, &st) && !S_ISREG(st.st_mode))
		return errmsg__set(e, -EINVAL, "cannot open store '%s': not a regular file", where);
	rc = sqlite3_open_v2(where, &db, SQLITE_OPEN_READWRITE | (create ? SQLITE_OPEN_CREATE : 0) |
			     SQLITE_OPEN_NOFOLLOW, NULL);
	s->db = db;
	if (rc != SQLITE_OK)
		return sq_err(s, rc, "cannot open", e);
	sqlite3_extended_result_codes(db, 0);
	sqlite3_busy_timeout(db, BUSY_TIMEOUT_MS);
	/*
	 * The last connection to close checkpoints the WAL into the database
	 * (SQLite's default, kept): a WAL left behind is read whole again by
	 * the next pusher's open, 24.9 ms of CPU a push against 21.9 ms.
	 */
	return 0;
}

static void sq_close(struct store *s)
{
	sqlite3_close(s->db);
	s->db = NULL;
}

static int sq_has_table(struct store *s, const char *name, struct errmsg *e)
{
	sqlite3_stmt *st;
	int rc, has = 0, any = 0;

	rc = sqlite3_prepare_v2(s->db, "SELECT name FROM sqlite_master WHERE type = 'table'", -1, &st, NULL);
	if (rc != SQLITE_OK)
		return sq_err(s, rc, "cannot read", e);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		const char *n = (const char *)sqlite3_column_text(st, 0);

		any = 1;
		if (n && !strcmp(n, name))
			has = 1;
	}
	sqlite3_finalize(st);
	if (rc != SQLITE_DONE)
		return sq_err(s, rc, "cannot read", e);
	return has ? 1 : any ? 2 : 0;
}

static int sq_exec(struct store *s, const char *sql, const char *what, struct errmsg *e)
{
	int rc = sqlite3_exec(s->db, sql, NULL, NULL, NULL);

	return rc == SQLITE_OK ? 0 : sq_err(s, rc, what, e);
}

static int sq_script(struct store *s, const char *sql, struct errmsg *e)
{
	return sq_exec(s, sql, "cannot write", e);
}

static int sq_begin(struct store *s, bool schema_lock, struct errmsg *e)
{
	/*
	 * WAL, so that readers go on while one pushes: set where the schema is
	 * made or changed (it stays with the file), never on a file that may
	 * not be a store (a .data file given by mistake stays as it was).
	 */
	if (schema_lock && sq_exec(s, "PRAGMA journal_mode=WAL", "cannot open", e))
		return -EIO;
	return sq_exec(s, "BEGIN IMMEDIATE", "cannot begin a transaction", e);
}

static int sq_commit(struct store *s, struct errmsg *e)
{
	return sq_exec(s, "COMMIT", "cannot commit", e);
}

static void sq_rollback(struct store *s)
{
	if (!sqlite3_get_autocommit(s->db))
		sqlite3_exec(s->db, "ROLLBACK", NULL, NULL, NULL);
}

/* Bind v[0..nv) to $1..$nv of st. */
static int sq_bind(sqlite3_stmt *st, const struct store_val *v, size_t nv)
{
	size_t i;
	int rc = SQLITE_OK;

	for (i = 0; i < nv && rc == SQLITE_OK; i++) {
		char name[24];
		int at;

		snprintf(name, sizeof(name), "$%zu", i + 1);
		at = sqlite3_bind_parameter_index(st, name);
		if (!at)
			continue;
		switch (v[i].type) {
		case STORE_NULL: rc = sqlite3_bind_null(st, at); break;
		case STORE_INT: rc = sqlite3_bind_int64(st, at, v[i].i); break;
		case STORE_REAL: rc = sqlite3_bind_double(st, at, v[i].d); break;
		case STORE_TEXT: rc = sqlite3_bind_text(st, at, v[i].p, (int)v[i].len, SQLITE_STATIC); break;
		case STORE_BLOB: rc = sqlite3_bind_blob64(st, at, v[i].p, v[i].len, SQLITE_STATIC); break;
		}
	}
	return rc;
}

static int sq_query(struct store *s, const char *sql, const struct store_val *v, size_t nv,
		    store_row_fn fn, void *ctx, struct errmsg *e)
{
	struct store_val col[16];
	sqlite3_stmt *st;
	int rc, ret = 0;

	rc = sqlite3_prepare_v2(s->db, sql, -1, &st, NULL);
	if (rc != SQLITE_OK)
		return sq_err(s, rc, "cannot read", e);
	rc = sq_bind(st, v, nv);
	while (rc == SQLITE_OK && (rc = sqlite3_step(st)) == SQLITE_ROW) {
		int n = sqlite3_column_count(st), i;

		if (n > 16)
			n = 16;
		for (i = 0; i < n; i++) {
			switch (sqlite3_column_type(st, i)) {
			case SQLITE_INTEGER:
				col[i] = SV_INT(sqlite3_column_int64(st, i));
				break;
			case SQLITE_FLOAT:
				col[i] = (struct store_val){ .type = STORE_REAL, .d = sqlite3_column_double(st, i) };
				break;
			case SQLITE_TEXT:
				col[i] = (struct store_val){ .type = STORE_TEXT, .p = sqlite3_column_text(st, i) };
				col[i].len = (size_t)sqlite3_column_bytes(st, i);
				break;
			case SQLITE_BLOB:
				col[i] = (struct store_val){ .type = STORE_BLOB, .p = sqlite3_column_blob(st, i) };
				col[i].len = (size_t)sqlite3_column_bytes(st, i);
				break;
			default:
				col[i] = (struct store_val){ .type = STORE_NULL };
			}
		}
		if (fn && (ret = fn(ctx, col, (size_t)n)))
			break;
		rc = SQLITE_OK;
	}
	if (!ret && rc != SQLITE_DONE)
		ret = sq_err(s, rc, "cannot read", e);
	sqlite3_finalize(st);
	return ret;
}

static int sq_insert(struct store *s, const char *table, const char *cols, size_t ncols,
		     const struct store_val *v, size_t nrows, bool ignore, struct errmsg *e)
{
	char sql[512];
	size_t len, i, r;
	sqlite3_stmt *st;
	int rc = SQLITE_OK, done = 0;

	len = (size_t)snprintf(sql, sizeof(sql), "INSERT INTO %s(%s) VALUES(", table, cols);
	for (i = 0; i < ncols && len < sizeof(sql); i++)
		len += (size_t)snprintf(sql + len, sizeof(sql) - len, "%s$%zu", i ? "," : "", i + 1);
	if (len < sizeof(sql))
		snprintf(sql + len, sizeof(sql) - len, ")%s", ignore ? " ON CONFLICT DO NOTHING" : "");
	rc = sqlite3_prepare_v2(s->db, sql, -1, &st, NULL);
	if (rc != SQLITE_OK)
		return sq_err(s, rc, "cannot write", e);
	for (r = 0; r < nrows && rc == SQLITE_OK; r++) {
		rc = sq_bind(st, v + r * ncols, ncols);
		if (rc == SQLITE_OK && (rc = sqlite3_step(st)) == SQLITE_DONE) {
			done += sqlite3_changes(s->db);
			rc = sqlite3_reset(st);
		}
	}
	sqlite3_finalize(st);
	return rc == SQLITE_OK ? done : sq_err(s, rc, "cannot write", e);
}

static int sq_next_id(struct store *s, int64_t *id, struct errmsg *e)
{
	sqlite3_stmt *st;
	int rc = sqlite3_prepare_v2(s->db, "SELECT coalesce(max(id), 0) + 1 FROM pushes", -1, &st, NULL);

	if (rc == SQLITE_OK && (rc = sqlite3_step(st)) == SQLITE_ROW) {
		*id = sqlite3_column_int64(st, 0);
		rc = SQLITE_OK;
	}
	sqlite3_finalize(st);
	return rc == SQLITE_OK ? 0 : sq_err(s, rc, "cannot write", e);
}

const struct store_ops store_sqlite_ops = {
	.name = "sqlite",
	.schema = schema,
	.open = sq_open,
	.close = sq_close,
	.has_table = sq_has_table,
	.begin = sq_begin,
	.commit = sq_commit,
	.rollback = sq_rollback,
	.script = sq_script,
	.query = sq_query,
	.insert = sq_insert,
	.next_id = sq_next_id,
};
