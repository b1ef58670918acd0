/*
 * store-int: what the results store's backends (sqlite.c, pg.c) provide
 * to its common code (store.c: open and schema; push.c; fetch.c).
 *
 * The common code speaks one dialect of SQL, the part SQLite and
 * PostgreSQL share, with parameters written $1..$n (SQLite reads "$1" as a
 * named parameter; the backends bind by that name).  What the dialects do
 * not share is the backend's: the schema's DDL, the write transaction and
 * its schema lock, many rows at once, and a new push id.
 */
#ifndef MMPROF_STORE_INT_H
#define MMPROF_STORE_INT_H

#include <string.h>

#include "mmprof/store.h"

enum store_type { STORE_NULL, STORE_INT, STORE_REAL, STORE_TEXT, STORE_BLOB };

/* One parameter or result column; p is borrowed (text: NUL-terminated, len its length). */
struct store_val {
	enum store_type type;
	int64_t i;
	double d;
	const void *p;
	size_t len;
};

#define SV_INT(x)	((struct store_val){ .type = STORE_INT, .i = (x) })
#define SV_TEXT(s)	((s) ? (struct store_val){ .type = STORE_TEXT, .p = (s), .len = strlen(s) } \
			     : (struct store_val){ .type = STORE_NULL })
#define SV_BLOB(b, n)	((struct store_val){ .type = STORE_BLOB, .p = (b), .len = (n) })

/* Called per result row; non-zero stops the query and is returned by it. */
typedef int (*store_row_fn)(void *ctx, const struct store_val *col, size_t ncols);

struct store_ops {
	const char *name;			/* "sqlite", "postgresql" */
	/* schema[v - 1]: the DDL that takes a store from version v - 1 to v */
	const char *const *schema;
	/* create: an absent SQLite file may be made */
	int (*open)(struct store *s, const char *where, bool create, struct errmsg *e);
	void (*close)(struct store *s);
	/*
	 * 1 if the store has a table called name, 0 if not; 2 (SQLite) when
	 * it has none but holds other tables: not a store, never made one.
	 */
	int (*has_table)(struct store *s, const char *name, struct errmsg *e);
	/* a write transaction; schema: also the lock that serialises migrations */
	int (*begin)(struct store *s, bool schema, struct errmsg *e);
	int (*commit)(struct store *s, struct errmsg *e);
	void (*rollback)(struct store *s);
	/* statements without parameters (the schema's DDL) */
	int (*script)(struct store *s, const char *sql, struct errmsg *e);
	/* one statement; fn (may be NULL) per row; 0, fn's non-zero return, or -errno */
	int (*query)(struct store *s, const char *sql, const struct store_val *v, size_t nv,
		     store_row_fn fn, void *ctx, struct errmsg *e);
	/*
	 * nrows rows of ncols values each (row-major) into table(cols); ignore:
	 * a row whose primary or unique key is there already is left out.  The
	 * rows inserted, or -errno.
	 */
	int (*insert)(struct store *s, const char *table, const char *cols, size_t ncols,
		      const struct store_val *v, size_t nrows, bool ignore, struct errmsg *e);
	int (*next_id)(struct store *s, int64_t *id, struct errmsg *e);
};

extern const struct store_ops store_sqlite_ops, store_pg_ops;

struct store {
	const struct store_ops *ops;
	char *where;		/* for messages: the URL's password masked */
	void *db;		/* the backend's connection */
	int version;		/* the schema's, as found (after migration: STORE_SCHEMA_VERSION) */
};

/* A value for a text column: s itself when valid UTF-8, else a copy with each bad byte as \xNN. */
const char *store__text(const char *s, char **owned);

#endif
