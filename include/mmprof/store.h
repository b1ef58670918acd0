/*
 * store: the results store, where the .data files of many commits,
 * branches, machines and benchmarks are kept with their keys, so that a
 * diff (and, later, a history of any key) reads runs by commit instead of
 * by file.  Documentation/history.md describes it and its schema.
 *
 * One schema, two backends behind one vtable (src/store/store-int.h): an
 * embedded SQLite file (the default: a path) and PostgreSQL through libpq
 * (a postgresql:// or postgres:// URL, with libpq's parameters and PG*
 * variables) for a fleet.  The schema is versioned (table schema_version)
 * and brought up to date on open, in one transaction under a lock; a store
 * written by a newer mmprof is refused.
 *
 * A push keeps a recording's runs' keys (every family, as keytab__build
 * makes them for report --keys), its metadata, its runs and the file
 * itself (zlib'd) in one transaction: a killed pusher leaves nothing.  It
 * is idempotent by the SHA-256 of the file's bytes.  Values from the file
 * and the user (commit, branch, machine, names of keys) go to the database
 * as parameters only, never in SQL text.  A URL's password is never in a
 * message (store__where).
 *
 * Workload: pushes of 100 KB-1 MB files with 500-5,000 keys each, tens a
 * second from many clients; reads of one key's series over thousands of
 * pushes: the values table is keyed by (push, key id), so that a push
 * appends to it, and a key's series is one probe of that key per push of
 * the series (keyed by (key id, push), each push wrote a page per key:
 * 6 MB of WAL for a push of 1,600 keys).
 */
#ifndef MMPROF_STORE_H
#define MMPROF_STORE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "mmprof/errmsg.h"
#include "mmprof/sha256.h"

/* The schema this mmprof writes; a store at a higher version is refused. */
#define STORE_SCHEMA_VERSION 1

struct store;

/* Does where name a PostgreSQL store (a postgresql:// or postgres:// URL)? */
bool store__is_url(const char *where);

/*
 * Open the store at where (a path or a URL) and bring its schema up to
 * date (creating it in an empty file or database).  NULL and e on error:
 * cannot connect (libpq's own line, the URL's password masked), not a
 * store (a file with other tables), a newer schema.  A role that may not
 * create tables opens a store that is up to date.
 */
struct store *store__open(const char *where, struct errmsg *e);
/*
 * As store__open, but for reading only: nothing is created or migrated
 * (an absent file is -ENOENT, a database without the schema "not an
 * mmprof store"); an older schema is read as it is.
 */
struct store *store__open_read(const char *where, struct errmsg *e);
void store__close(struct store *s);	/* NULL is fine */

/* The store's name for messages: the path, or the URL with its password as "***". */
const char *store__where(const struct store *s);
void store__mask_url(const char *url, char *buf, size_t size);

/* What a push is about; NULL or 0: taken from the recording (store__push). */
struct store_push {
	const char *commit;		/* required */
	const char *parent;		/* NULL: none */
	const char *branch;		/* NULL: none */
	const char *machine;		/* NULL: the file's meta "hostname" */
	const char *benchmark;		/* NULL: keys__workload_name (the score's prefix or command) */
	int64_t time;			/* Unix seconds; 0: the recording's start */
};

struct store_pushed {
	int64_t id;			/* the push's id; 0 when it was stored already */
	bool existed;			/* the same bytes were pushed before: nothing written */
	char hash[2 * SHA256_LEN + 1];	/* of the file's bytes */
	size_t nr_runs, nr_keys, nr_values;
	char machine[256], benchmark[256];	/* as stored (defaults filled) */
	int64_t time;
};

/*
 * Push the .data file at path: 0 and *out, or -errno and e (the file does
 * not load: the loader's message; a name that is not UTF-8; the database
 * refused: its message).  Nothing is written on error.
 */
int store__push(struct store *s, const char *path, const struct store_push *p,
		struct store_pushed *out, struct errmsg *e);

/*
 * The pushes of a commit: ids (ascending) of the pushes whose commit is
 * commit (or, when no push has it exactly, starts with it and that prefix
 * names one commit), of machine and benchmark when not NULL.  When they
 * span several machines or benchmarks and none was chosen, -EINVAL with
 * the choices in e.  -ENOENT when none.  *ids is the caller's to free.
 */
int store__find_commit(struct store *s, const char *commit, const char *machine,
		       const char *benchmark, int64_t **ids, size_t *nr, struct errmsg *e);

/* The file of push id, as pushed: *buf (the caller frees it) of *len bytes. */
int store__fetch_data(struct store *s, int64_t id, void **buf, size_t *len, struct errmsg *e);

/*
 * STORE:COMMIT as a diff's side (or column): the part before the last ':'
 * names a store (a URL, or an existing file that is not itself a .data
 * file readable as given) and the part after it a commit.  True when arg
 * is no existing file and reads so; *split is the offset of that ':'.
 */
bool store__is_ref(const char *arg, size_t *split);

/*
 * The .data files a STORE:COMMIT argument stands for, each written to a
 * private temporary folder (mode 0700) for a loader that reads paths:
 * names[i] (for messages and headers: "STORE:COMMIT", with "#ID" when the
 * commit has several pushes, the URL's password masked) and paths[i].
 * store_files__release removes the files and the folder; the callers call
 * it as soon as the files are loaded, and on every error path.
 */
struct store_files {
	char **names, **paths;		/* owned */
	size_t nr;
	char *dir;			/* owned; NULL: none made */
};
int store_files__fetch(struct store_files *f, const char *arg, size_t split, const char *machine,
		       const char *benchmark, struct errmsg *e);
void store_files__remove(struct store_files *f);	/* the files and folder only: names stay */
void store_files__release(struct store_files *f);	/* both; a zeroed one is fine */

/*
 * A history's reading (series.c, for history.h and bisect): the pushes
 * whose benchmark, machine and branch are those of the filter (NULL:
 * any), and every key's values in them.
 */
struct store_series_filter {
	const char *benchmark, *machine, *branch;
	const int64_t *key_ids;		/* store__series_values: only these keys (store__key_id); NULL: all */
	size_t nr_key_ids;
};

struct store_series_push {
	int64_t id, time;
	char *commit, *parent, *branch, *machine, *benchmark;	/* owned; parent, branch NULL: none */
	size_t nr_runs;
	double *samples;	/* [nr_runs]: each run's samples (runs.samples) */
};

/* The pushes, ids ascending: *pushes (store_series__free) and *nr.  0 or -errno and e. */
int store__series(struct store *s, const struct store_series_filter *f,
		  struct store_series_push **pushes, size_t *nr, struct errmsg *e);
void store_series__free(struct store_series_push *p, size_t nr);

/*
 * Every (push, key) of the filter's pushes, in no order: fn(ctx, push id,
 * the key's name, its value in each of the push's nr_runs runs, NAN where
 * a run lacks it).  Both borrowed for the call; fn's non-zero return
 * stops the reading and is returned.
 */
struct store_series_value_cb {
	int (*fn)(void *ctx, int64_t push, const char *key, const double *vals, size_t nr_runs);
	void *ctx;
};
int store__series_values(struct store *s, const struct store_series_filter *f,
			 const struct store_series_value_cb *cb, struct errmsg *e);

/*
 * Every key name the store has (its keys table), fn(ctx, id, name) each,
 * in no order; fn's non-zero return stops it and is returned.  For
 * choosing keys by glob before reading their values (one probe per push
 * and key, keyed by push: a key's series never scans the values).
 */
int store__key_names(struct store *s, int (*fn)(void *ctx, int64_t id, const char *name), void *ctx,
		     struct errmsg *e);

/*
 * A key's id in the store: the first 63 bits of the SHA-256 of its name
 * (big-endian), the same in every store and version, so that a push-only
 * role writes keys without reading the table of their names.
 */
int64_t store__key_id(const char *name);

#endif
