/*
 * pg: the results store in a PostgreSQL database, for a fleet of machines
 * pushing at once (Documentation/history.md: roles, backups, partitions).
 *
 * Through libpq: the URL and every setting libpq reads (sslmode, the PG*
 * variables, ~/.pgpass) are libpq's own.  Values travel as binary
 * parameters of PQexecParams, never in SQL text; results come back binary
 * too.  Many rows go as multi-row INSERTs of up to MAX_PARAMS parameters
 * (the protocol's limit is 65,535), in the order the caller gives: the
 * keys in ascending id, so that two pushers adding the same new keys wait
 * for each other in one order and never deadlock.
 *
 * libpq is opened (dlopen) when a PostgreSQL store is, not linked: its
 * dependencies (TLS, Kerberos, LDAP: 22 more libraries) made the start of
 * every mmprof command three times slower, 7.4 to 22.6 ms of CPU (perf
 * stat -r 30 mmprof version).  libpq-dev's header gives the types and the
 * prototypes the table below is checked against.
 *
 * A push-only role needs INSERT on the tables, USAGE on the sequence and
 * SELECT on schema_version (the version check) and nothing else: the next
 * id comes from nextval, a row already there is told by the count of rows
 * inserted (ON CONFLICT DO NOTHING), never by reading.
 */
#include <arpa/inet.h>
#include <dlfcn.h>
#include <endian.h>
#include <errno.h>
#include <libpq-fe.h>
#include <stdlib.h>
#include <string.h>

#include "mmprof/xalloc.h"
#include "store-int.h"

#define MAX_PARAMS 30000

/* pg_type's oids of the types we send and read */
#define OID_BOOL 16
#define OID_BYTEA 17
#define OID_INT8 20
#define OID_INT2 21
#define OID_INT4 23
#define OID_TEXT 25
#define OID_FLOAT8 701
#define OID_VARCHAR 1043

/*
 * Any constant: the session lock a migration holds (pg_advisory_lock), taken
 * before its transaction begins, so that the transaction's catalog is read
 * after the previous holder's commit: taken inside it, a pusher that had
 * looked for schema_version before waiting kept its cached "no such table"
 * and made the schema again ("relation already exists", 1 of 16 pushers
 * meeting a new database in t331).
 */
#define SCHEMA_LOCK "6d6d70660001"

static const char schema_v1[] =
	"CREATE TABLE schema_version(version integer NOT NULL);"
	"INSERT INTO schema_version VALUES(0);"
	"CREATE SEQUENCE push_ids;"
	"CREATE TABLE pushes(id bigint PRIMARY KEY, hash text NOT NULL UNIQUE,"
	" commit_id text NOT NULL, parent text, branch text, machine text NOT NULL,"
	" benchmark text NOT NULL, time bigint NOT NULL, pushed bigint NOT NULL,"
	" nr_runs integer NOT NULL, size bigint NOT NULL);"
	"CREATE INDEX pushes_commit ON pushes(commit_id);"
	"CREATE INDEX pushes_series ON pushes(benchmark, machine, time);"
	"CREATE TABLE runs(push_id bigint NOT NULL, run integer NOT NULL, exit_code integer NOT NULL,"
	" term_signal integer NOT NULL, start_ns bigint NOT NULL, wall_ns bigint NOT NULL,"
	" samples bigint NOT NULL, lost bigint NOT NULL, PRIMARY KEY(push_id, run));"
	"CREATE TABLE meta(push_id bigint NOT NULL, key text NOT NULL, value text NOT NULL,"
	" PRIMARY KEY(push_id, key));"
	"CREATE TABLE keys(id bigint PRIMARY KEY, name text NOT NULL);"
	"CREATE TABLE keyvals(key_id bigint NOT NULL, push_id bigint NOT NULL, vals bytea NOT NULL,"
	" PRIMARY KEY(push_id, key_id));"
	"CREATE TABLE blobs(push_id bigint PRIMARY KEY, size bigint NOT NULL, data bytea NOT NULL);"
	/* the data are zlib'd already: no second compression */
	"ALTER TABLE blobs ALTER COLUMN data SET STORAGE EXTERNAL;";

static const char *const schema[] = { schema_v1 };

/* The libpq functions we call, resolved at open; each member has its function's type. */
struct pq_api {
	__typeof__(PQconnectdb) *PQconnectdb;
	__typeof__(PQstatus) *PQstatus;
	__typeof__(PQerrorMessage) *PQerrorMessage;
	__typeof__(PQfinish) *PQfinish;
	__typeof__(PQexec) *PQexec;
	__typeof__(PQexecParams) *PQexecParams;
	__typeof__(PQresultStatus) *PQresultStatus;
	__typeof__(PQresultErrorMessage) *PQresultErrorMessage;
	__typeof__(PQresultErrorField) *PQresultErrorField;
	__typeof__(PQclear) *PQclear;
	__typeof__(PQntuples) *PQntuples;
	__typeof__(PQnfields) *PQnfields;
	__typeof__(PQgetvalue) *PQgetvalue;
	__typeof__(PQgetlength) *PQgetlength;
	__typeof__(PQgetisnull) *PQgetisnull;
	__typeof__(PQftype) *PQftype;
	__typeof__(PQcmdTuples) *PQcmdTuples;
	__typeof__(PQtransactionStatus) *PQtransactionStatus;
};

static const char *const pq_names[] = {
	"PQconnectdb", "PQstatus", "PQerrorMessage", "PQfinish", "PQexec", "PQexecParams",
	"PQresultStatus", "PQresultErrorMessage", "PQresultErrorField", "PQclear", "PQntuples",
	"PQnfields", "PQgetvalue", "PQgetlength", "PQgetisnull", "PQftype", "PQcmdTuples",
	"PQtransactionStatus",
};

_Static_assert(sizeof(struct pq_api) == sizeof(pq_names) / sizeof(pq_names[0]) * sizeof(void (*)(void)),
	       "pq_names lists every member of struct pq_api, in order");

/* The store's connection: s->db. */
struct pg_db {
	void *dl;
	PGconn *c;
	bool schema_locked;		/* holds SCHEMA_LOCK (a migration's transaction) */
	struct pq_api pq;
};

#define PQ_API(s) (&((struct pg_db *)(s)->db)->pq)
#define PQ_CONN(s) (((struct pg_db *)(s)->db)->c)

static int pq_load(struct pg_db *d, const char *where, struct errmsg *e)
{
	void (**fn)(void) = (void (**)(void))&d->pq;
	size_t i;

	/*
	 * Never unloaded (RTLD_NODELETE): libpq's dependencies (OpenSSL,
	 * Kerberos) are not made to be unloaded, and after its dlclose
	 * LeakSanitizer's tracer crashed at the process's exit ("Tracer
	 * caught signal 11"), failing one push in a few dozen to PostgreSQL
	 * under the sanitizer build (t332 1, four runs of four; none after).
	 */
	d->dl = dlopen("libpq.so.5", RTLD_NOW | RTLD_LOCAL | RTLD_NODELETE);
	if (!d->dl)
		return errmsg__set(e, -ENOENT, "cannot use the PostgreSQL store '%s': libpq.so.5 cannot be loaded "
				   "(install libpq5): %s", where, dlerror());
	for (i = 0; i < sizeof(pq_names) / sizeof(pq_names[0]); i++) {
		void *sym = dlsym(d->dl, pq_names[i]);

		if (!sym)
			return errmsg__set(e, -ENOENT, "cannot use the PostgreSQL store '%s': libpq.so.5 has no %s",
					   where, pq_names[i]);
		memcpy(&fn[i], &sym, sizeof(sym));
	}
	return 0;
}

/* libpq's message, first line only, without its trailing newline */
static int pg_err(struct store *s, int err, const char *what, const char *msg, struct errmsg *e)
{
	size_t n = msg ? strcspn(msg, "\n") : 0;

	if (!strncmp(msg ? msg : "", "ERROR:  ", 8))
		msg += 8, n -= 8;
	return errmsg__set(e, err, "store '%s': %s: %.*s", s->where, what, (int)n, msg ? msg : "");
}

/* -errno for a failed result: a privilege, a serialisation or deadlock, a full disk, other */
static int res_errno(const struct pq_api *pq, const PGresult *r)
{
	const char *state = pq->PQresultErrorField(r, PG_DIAG_SQLSTATE);

	if (!state)
		return -EIO;
	if (!strcmp(state, "42501"))
		return -EACCES;
	if (!strncmp(state, "40", 2))
		return -EAGAIN;
	if (!strcmp(state, "53100"))
		return -ENOSPC;
	return -EIO;
}

static int pg_open(struct store *s, const char *where, bool create, struct errmsg *e)
{
	struct pg_db *d = xcalloc(1, sizeof(*d));
	int err;

	s->db = d;
	err = pq_load(d, s->where, e);
	if (err)
		return err;
	d->c = d->pq.PQconnectdb(where);
	if (!d->c)
		return errmsg__set(e, -ENOMEM, "cannot connect to '%s': out of memory", s->where);
	if (d->pq.PQstatus(d->c) != CONNECTION_OK)
		return pg_err(s, -ECONNREFUSED, "cannot connect", d->pq.PQerrorMessage(d->c), e);
	return 0;
}

static void pg_close(struct store *s)
{
	struct pg_db *d = s->db;

	if (d->c)
		d->pq.PQfinish(d->c);
	if (d->dl)
		dlclose(d->dl);
	free(d);
	s->db = NULL;
}

/* Encode v as PQexecParams's binary parameter i (scratch: 8 bytes per value). */
static void pg_param(const struct store_val *v, const char **val, int *len, int *fmt, Oid *type,
		     uint64_t *scratch)
{
	*fmt = 1;
	switch (v->type) {
	case STORE_NULL:
		*val = NULL, *len = 0, *type = 0;
		break;
	case STORE_INT:
		*scratch = htobe64((uint64_t)v->i);
		*val = (const char *)scratch, *len = 8, *type = OID_INT8;
		break;
	case STORE_REAL: {
		uint64_t u;

		memcpy(&u, &v->d, 8);
		*scratch = htobe64(u);
		*val = (const char *)scratch, *len = 8, *type = OID_FLOAT8;
		break;
	}
	case STORE_TEXT:
		*val = v->p, *len = (int)v->len, *type = OID_TEXT;
		break;
	case STORE_BLOB:
		*val = v->p ? v->p : "", *len = (int)v->len, *type = OID_BYTEA;
		break;
	}
}

/* Run sql with v as parameters; the result (the caller clears it) or NULL and e. */
static PGresult *pg_exec(struct store *s, const char *sql, const struct store_val *v, size_t nv,
			 const char *what, struct errmsg *e)
{
	const char **val = xcalloc(nv + 1, sizeof(*val));
	int *len = xcalloc(nv + 1, sizeof(*len)), *fmt = xcalloc(nv + 1, sizeof(*fmt));
	Oid *type = xcalloc(nv + 1, sizeof(*type));
	uint64_t *scratch = xcalloc(nv + 1, sizeof(*scratch));
	const struct pq_api *pq = PQ_API(s);
	PGresult *r;
	size_t i;

	for (i = 0; i < nv; i++)
		pg_param(&v[i], &val[i], &len[i], &fmt[i], &type[i], &scratch[i]);
	r = pq->PQexecParams(PQ_CONN(s), sql, (int)nv, type, val, len, fmt, 1);
	free(val);
	free(len);
	free(fmt);
	free(type);
	free(scratch);
	if (!r) {
		pg_err(s, -EIO, what, pq->PQerrorMessage(PQ_CONN(s)), e);
		return NULL;
	}
	if (pq->PQresultStatus(r) != PGRES_COMMAND_OK && pq->PQresultStatus(r) != PGRES_TUPLES_OK) {
		pg_err(s, res_errno(pq, r), what, pq->PQresultErrorMessage(r), e);
		pq->PQclear(r);
		return NULL;
	}
	return r;
}

static int pg_simple(struct store *s, const char *sql, const char *what, struct errmsg *e)
{
	const struct pq_api *pq = PQ_API(s);
	PGresult *r = pg_exec(s, sql, NULL, 0, what, e);

	if (!r)
		return -EIO;
	pq->PQclear(r);
	return 0;
}

static int pg_script(struct store *s, const char *sql, struct errmsg *e)
{
	const struct pq_api *pq = PQ_API(s);
	PGresult *r = pq->PQexec(PQ_CONN(s), sql);
	int err = 0;

	if (!r || pq->PQresultStatus(r) != PGRES_COMMAND_OK)
		err = pg_err(s, r ? res_errno(pq, r) : -EIO, "cannot write", r ? pq->PQresultErrorMessage(r) :
			     pq->PQerrorMessage(PQ_CONN(s)), e);
	pq->PQclear(r);
	return err;
}

static int pg_has_table(struct store *s, const char *name, struct errmsg *e)
{
	const struct pq_api *pq = PQ_API(s);
	struct store_val v = SV_TEXT(name);
	PGresult *r = pg_exec(s, "SELECT to_regclass($1) IS NOT NULL", &v, 1, "cannot read", e);
	int has;

	if (!r)
		return -EIO;
	has = pq->PQntuples(r) == 1 && pq->PQgetlength(r, 0, 0) == 1 && pq->PQgetvalue(r, 0, 0)[0];
	pq->PQclear(r);
	return has;
}

static void pg_unlock(struct store *s)
{
	struct pg_db *d = s->db;

	if (d->schema_locked)
		pg_simple(s, "SELECT pg_advisory_unlock(x'" SCHEMA_LOCK "'::bigint)", "", NULL);
	d->schema_locked = false;
}

static int pg_begin(struct store *s, bool schema_lock, struct errmsg *e)
{
	struct pg_db *d = s->db;

	if (schema_lock) {
		if (pg_simple(s, "SELECT pg_advisory_lock(x'" SCHEMA_LOCK "'::bigint)", "cannot lock the schema", e))
			return -EIO;
		d->schema_locked = true;
	}
	if (pg_simple(s, "BEGIN", "cannot begin a transaction", e)) {
		pg_unlock(s);
		return -EIO;
	}
	return 0;
}

static int pg_commit(struct store *s, struct errmsg *e)
{
	int err = pg_simple(s, "COMMIT", "cannot commit", e);

	pg_unlock(s);
	return err;
}

static void pg_rollback(struct store *s)
{
	if (PQ_API(s)->PQtransactionStatus(PQ_CONN(s)) != PQTRANS_IDLE)
		pg_simple(s, "ROLLBACK", "", NULL);
	pg_unlock(s);
}

/* Column i of row r as a store_val (binary results); -1 for a type we do not read. */
static int pg_col(const struct pq_api *pq, const PGresult *r, int row, int i, struct store_val *out, uint64_t *scratch)
{
	const char *p = pq->PQgetvalue(r, row, i);
	int len = pq->PQgetlength(r, row, i);

	if (pq->PQgetisnull(r, row, i)) {
		*out = (struct store_val){ .type = STORE_NULL };
		return 0;
	}
	switch (pq->PQftype(r, i)) {
	case OID_INT8:
		memcpy(scratch, p, 8);
		*out = SV_INT((int64_t)be64toh(*scratch));
		return 0;
	case OID_INT4: {
		uint32_t u;

		memcpy(&u, p, 4);
		*out = SV_INT((int32_t)ntohl(u));
		return 0;
	}
	case OID_INT2: {
		uint16_t u;

		memcpy(&u, p, 2);
		*out = SV_INT((int16_t)ntohs(u));
		return 0;
	}
	case OID_BOOL:
		*out = SV_INT(p[0] != 0);
		return 0;
	case OID_FLOAT8: {
		uint64_t u;

		memcpy(&u, p, 8);
		u = be64toh(u);
		*out = (struct store_val){ .type = STORE_REAL };
		memcpy(&out->d, &u, 8);
		return 0;
	}
	case OID_TEXT:
	case OID_VARCHAR:
		/* libpq ends every value with a NUL */
		*out = (struct store_val){ .type = STORE_TEXT, .p = p, .len = (size_t)len };
		return 0;
	case OID_BYTEA:
		*out = SV_BLOB(p, (size_t)len);
		return 0;
	}
	return -1;
}

static int pg_query(struct store *s, const char *sql, const struct store_val *v, size_t nv,
		    store_row_fn fn, void *ctx, struct errmsg *e)
{
	const struct pq_api *pq = PQ_API(s);
	PGresult *r = pg_exec(s, sql, v, nv, "cannot read", e);
	struct store_val col[16];
	uint64_t scratch[16];
	int ret = 0, row, n, i;

	if (!r)
		return -EIO;
	n = pq->PQnfields(r) < 16 ? pq->PQnfields(r) : 16;
	for (row = 0; fn && row < pq->PQntuples(r) && !ret; row++) {
		for (i = 0; i < n; i++)
			if (pg_col(pq, r, row, i, &col[i], &scratch[i]) < 0) {
				pq->PQclear(r);
				return errmsg__set(e, -EPROTO, "store '%s': a column of type %u, which mmprof does not read",
						   s->where, (unsigned)pq->PQftype(r, i));
			}
		ret = fn(ctx, col, (size_t)n);
	}
	pq->PQclear(r);
	return ret;
}

static int pg_insert(struct store *s, const char *table, const char *cols, size_t ncols,
		     const struct store_val *v, size_t nrows, bool ignore, struct errmsg *e)
{
	const struct pq_api *pq = PQ_API(s);
	size_t per = MAX_PARAMS / ncols, r, k, i;
	char *sql = NULL;
	size_t alloc = 0;
	int done = 0;

	for (r = 0; r < nrows; r += per) {
		size_t n = nrows - r < per ? nrows - r : per, len = 0, need = 64 + strlen(table) +
			   strlen(cols) + n * ncols * 12 + n * 4;
		PGresult *res;

		if (need > alloc) {
			alloc = need;
			sql = xrealloc(sql, alloc);
		}
		len += (size_t)snprintf(sql + len, alloc - len, "INSERT INTO %s(%s) VALUES ", table, cols);
		for (k = 0; k < n; k++) {
			len += (size_t)snprintf(sql + len, alloc - len, "%s(", k ? "," : "");
			for (i = 0; i < ncols; i++)
				len += (size_t)snprintf(sql + len, alloc - len, "%s$%zu", i ? "," : "",
							k * ncols + i + 1);
			sql[len++] = ')';
		}
		snprintf(sql + len, alloc - len, "%s", ignore ? " ON CONFLICT DO NOTHING" : "");
		res = pg_exec(s, sql, v + r * ncols, n * ncols, "cannot write", e);
		if (!res) {
			free(sql);
			return -EIO;
		}
		done += atoi(pq->PQcmdTuples(res));
		pq->PQclear(res);
	}
	free(sql);
	return done;
}

static int pg_next_id(struct store *s, int64_t *id, struct errmsg *e)
{
	const struct pq_api *pq = PQ_API(s);
	PGresult *r = pg_exec(s, "SELECT nextval('push_ids')", NULL, 0, "cannot write", e);
	uint64_t u;

	if (!r)
		return -EIO;
	memcpy(&u, pq->PQgetvalue(r, 0, 0), 8);
	*id = (int64_t)be64toh(u);
	pq->PQclear(r);
	return 0;
}

const struct store_ops store_pg_ops = {
	.name = "postgresql",
	.schema = schema,
	.open = pg_open,
	.close = pg_close,
	.has_table = pg_has_table,
	.begin = pg_begin,
	.commit = pg_commit,
	.rollback = pg_rollback,
	.script = pg_script,
	.query = pg_query,
	.insert = pg_insert,
	.next_id = pg_next_id,
};
