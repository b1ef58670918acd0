/*
 * store: opening a results store, its schema's versions and migrations,
 * and the names it shows (store.h).
 *
 * A migration runs in one transaction under the backend's schema lock, and
 * reads the version again under it: of several pushers meeting a new
 * database, one creates the schema and the others find it made.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "mmprof/utf8.h"
#include "mmprof/xalloc.h"
#include "store-int.h"

bool store__is_url(const char *where)
{
	return !strncmp(where, "postgresql://", 13) || !strncmp(where, "postgres://", 11);
}

void store__mask_url(const char *url, char *buf, size_t size)
{
	const char *auth = strstr(url, "://"), *end, *at = NULL, *colon, *p, *q;
	size_t len = 0;

	snprintf(buf, size, "%s", url);
	if (!auth)
		return;
	auth += 3;
	/* userinfo ends at the last '@' before the path's query, if any */
	end = auth + strcspn(auth, "?");
	for (p = auth; p < end; p++)
		if (*p == '@')
			at = p;
	if (at && (colon = memchr(auth, ':', (size_t)(at - auth))))
		len = (size_t)snprintf(buf, size, "%.*s***%s", (int)(colon + 1 - url), url, at);
	/* and a password=... among the query's parameters */
	p = len < size ? strchr(buf, '?') : NULL;
	while (p && (q = strstr(p, "password="))) {
		const char *v = q + 9;
		size_t vl = strcspn(v, "&"), tail;

		if (q[-1] != '?' && q[-1] != '&') {
			p = v;
			continue;
		}
		tail = strlen(v + vl);
		if ((size_t)(v - buf) + 3 + tail + 1 > size)
			break;
		memmove((char *)v + 3, v + vl, tail + 1);
		memcpy((char *)v, "***", 3);
		p = v + 3;
	}
}

const char *store__where(const struct store *s)
{
	return s->where;
}

const char *store__text(const char *s, char **owned)
{
	const unsigned char *u = (const unsigned char *)s;
	size_t n, i = 0, o = 0;
	uint32_t cp;
	char *t;

	*owned = NULL;
	while (u[i] && (n = utf8__len(u + i, &cp)))
		i += n;
	if (!u[i])
		return s;
	t = xmalloc(strlen(s) * 4 + 1);
	for (i = 0; u[i];) {
		n = utf8__len(u + i, &cp);
		if (n) {
			memcpy(t + o, u + i, n);
			o += n, i += n;
		} else {
			o += (size_t)snprintf(t + o, 5, "\\x%02x", u[i]);
			i++;
		}
	}
	t[o] = '\0';
	return *owned = t;
}

int64_t store__key_id(const char *name)
{
	unsigned char d[SHA256_LEN];
	uint64_t id = 0;
	int i;

	sha256__digest(name, strlen(name), d);
	for (i = 0; i < 8; i++)
		id = id << 8 | d[i];
	return (int64_t)(id >> 1);
}

static int read_version(void *ctx, const struct store_val *col, size_t n)
{
	*(int *)ctx = n && col[0].type == STORE_INT ? (int)col[0].i : -1;
	return 0;
}

/* The store's schema version into s->version: 0 when it has none (-EINVAL: it holds other tables). */
static int store__version(struct store *s, struct errmsg *e)
{
	int has = s->ops->has_table(s, "schema_version", e), err;

	s->version = 0;
	if (has < 0)
		return has;
	if (has == 2)
		return errmsg__set(e, -EINVAL, "'%s' is not an mmprof store (a database with other tables)", s->where);
	if (!has)
		return 0;
	s->version = -1;
	err = s->ops->query(s, "SELECT version FROM schema_version", NULL, 0, read_version, &s->version, e);
	if (err < 0)
		return err;
	if (s->version < 0)
		return errmsg__set(e, -EINVAL, "store '%s': its schema_version table holds no version", s->where);
	if (s->version > STORE_SCHEMA_VERSION)
		return errmsg__set(e, -EPROTONOSUPPORT,
				   "store '%s' has schema version %d, newer than this mmprof's %d: use a newer mmprof",
				   s->where, s->version, STORE_SCHEMA_VERSION);
	return 0;
}

/* Bring s's schema to STORE_SCHEMA_VERSION: each step in order, in one transaction. */
static int store__migrate(struct store *s, struct errmsg *e)
{
	int err, v;

	err = s->ops->begin(s, true, e);
	if (err < 0)
		return err;
	err = store__version(s, e);	/* again, under the lock */
	for (v = s->version; !err && v < STORE_SCHEMA_VERSION; v++) {
		struct store_val nv = SV_INT(v + 1);

		err = s->ops->script(s, s->ops->schema[v], e);
		if (err >= 0)
			err = s->ops->query(s, "UPDATE schema_version SET version = $1", &nv, 1, NULL, NULL, e);
		err = err < 0 ? errmsg__prefix(e, err, "cannot bring the store to schema version %d", v + 1) : 0;
	}
	if (!err)
		err = s->ops->commit(s, e);
	if (err) {
		s->ops->rollback(s);
		return err;
	}
	s->version = STORE_SCHEMA_VERSION;
	return 0;
}

static struct store *store__open_mode(const char *where, bool write, struct errmsg *e)
{
	struct store *s = xcalloc(1, sizeof(*s));
	char masked[1024];
	int err;

	if (store__is_url(where)) {
		s->ops = &store_pg_ops;
		store__mask_url(where, masked, sizeof(masked));
		s->where = xstrdup(masked);
	} else {
		s->ops = &store_sqlite_ops;
		s->where = xstrdup(where);
	}
	err = s->ops->open(s, where, write, e);
	if (!err)
		err = store__version(s, e);
	if (!err && !write && !s->version)
		err = errmsg__set(e, -EINVAL, "'%s' is not an mmprof store (no schema_version table)", s->where);
	if (!err && write && s->version < STORE_SCHEMA_VERSION)
		err = store__migrate(s, e);
	if (err) {
		store__close(s);
		return NULL;
	}
	return s;
}

struct store *store__open(const char *where, struct errmsg *e)
{
	return store__open_mode(where, true, e);
}

struct store *store__open_read(const char *where, struct errmsg *e)
{
	return store__open_mode(where, false, e);
}

void store__close(struct store *s)
{
	if (!s)
		return;
	if (s->db)
		s->ops->close(s);
	free(s->where);
	free(s);
}
