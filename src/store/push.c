/*
 * push: one .data file into the store (store.h's store__push), in one
 * transaction: the push's row, its runs, its meta, the names of its keys
 * (shared by every push: added when new), one row per key with its runs'
 * values, and the file itself, zlib'd.
 *
 * A key's row holds its values in every run of the push as one blob: a
 * bitmap of the runs that have the key (bit r of byte r / 8, least
 * significant first; ceil(runs / 8) bytes), then the value of each such
 * run in run order as an IEEE 754 double, little-endian.  One row per key
 * and push instead of per run keeps the store near the size of the files
 * (Documentation/performance.md measures it); the rows are keyed by
 * (push id, key id), so that a push's rows go to the end of the table
 * together, and a key's series is one probe per push (store.h).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include <zlib.h>

#include "mmprof/datafile.h"
#include "mmprof/keys.h"
#include "mmprof/utf8.h"
#include "mmprof/xalloc.h"
#include "store-int.h"

/* The largest file a push reads into memory (a 10,000-run file of big stacks is far below). */
#define PUSH_MAX_FILE (2ull << 30)

/* A name (commit, branch, machine, benchmark) as stored: 1 to 255 bytes of UTF-8, no control characters. */
static bool name_ok(const char *s)
{
	const unsigned char *u = (const unsigned char *)s;
	size_t i = 0, n;
	uint32_t cp;

	if (!*s || strlen(s) > 255)
		return false;
	while (u[i]) {
		n = utf8__len(u + i, &cp);
		if (!n || cp < 0x20 || cp == 0x7f || (cp >= 0x80 && cp < 0xa0) || utf8__is_bidi_control(cp))
			return false;
		i += n;
	}
	return true;
}

static int read_all(const char *path, unsigned char **buf, size_t *len, struct errmsg *e)
{
	/* O_NONBLOCK: a FIFO without a writer is refused below, not waited on for ever */
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
	struct stat st;
	size_t got = 0;

	*buf = NULL;
	if (fd < 0)
		return errmsg__set(e, -errno, "cannot open '%s': %s", path, strerror(errno));
	if (fstat(fd, &st) || !S_ISREG(st.st_mode) || (uint64_t)st.st_size > PUSH_MAX_FILE) {
		close(fd);
		return errmsg__set(e, -EINVAL, "cannot push '%s': not a regular file of at most 2 GiB", path);
	}
	*buf = xmalloc((size_t)st.st_size + 1);
	while (got < (size_t)st.st_size) {
		ssize_t n = read(fd, *buf + got, (size_t)st.st_size - got);

		if (n <= 0) {
			int err = n < 0 ? -errno : -EIO;

			close(fd);
			free(*buf);
			*buf = NULL;
			return errmsg__set(e, err, "cannot read '%s': %s", path, n < 0 ? strerror(-err) : "it shrank");
		}
		got += (size_t)n;
	}
	close(fd);
	*len = got;
	return 0;
}

/* When the recording started, Unix seconds: its first run's start, else meta start_time; 0: unknown. */
static int64_t recorded_at(const struct profile *p)
{
	const char *t = profile__meta(p, "start_time");
	int64_t first = 0;
	struct tm tm = { 0 };
	size_t r;

	for (r = 0; r < p->nr_runs; r++)
		if (p->runs[r].start_ns > 0 && (!first || p->runs[r].start_ns < first))
			first = p->runs[r].start_ns;
	if (first)
		return first / 1000000000;
	if (t && strptime(t, "%Y-%m-%dT%H:%M:%SZ", &tm))
		return (int64_t)timegm(&tm);
	return 0;
}

/* Everything a push writes, as rows of parameters. */
struct push_rows {
	struct keytab kt;
	struct store_val *runs, *meta, *keys, *vals, push[11], blob[3];
	size_t nr_keys;
	unsigned char *packed;		/* the vals' blobs, one after another */
	unsigned char *z;		/* the file, zlib'd */
	char **owned;			/* texts made valid UTF-8 (store__text) */
	size_t nr_owned;
};

static const char *owned_text(struct push_rows *r, const char *s, size_t *at)
{
	char *o;
	const char *t = store__text(s, &o);

	if (o)
		r->owned[(*at)++] = o;
	return t;
}

struct key_order {
	int64_t id;
	size_t row;
};

static int key_order_cmp(const void *a, const void *b)
{
	const struct key_order *x = a, *y = b;

	return x->id < y->id ? -1 : x->id > y->id;
}

/* The rows of the runs, meta, keys and values of push id (whose profile is p). */
static void push_rows__build(struct push_rows *r, const struct profile *p, int64_t id)
{
	size_t nb = (p->nr_runs + 7) / 8, k, i, at = 0, no = 0, cells = 0;
	struct key_order *ord;
	unsigned char *w;

	r->owned = xcalloc(2 * p->nr_meta + 2 * r->kt.nr + 1, sizeof(*r->owned));
	r->runs = xcalloc(p->nr_runs * 8 + 1, sizeof(*r->runs));
	for (i = 0; i < p->nr_runs; i++) {
		const struct run *x = &p->runs[i];
		struct store_val *v = r->runs + i * 8;

		v[0] = SV_INT(id), v[1] = SV_INT((int64_t)i), v[2] = SV_INT(x->exit_code);
		v[3] = SV_INT(x->term_signal), v[4] = SV_INT(x->start_ns), v[5] = SV_INT(x->wall_ns);
		v[6] = SV_INT((int64_t)x->samples);
		v[7] = SV_INT((int64_t)x->lost);
	}
	r->meta = xcalloc(p->nr_meta * 3 + 1, sizeof(*r->meta));
	for (i = 0; i < p->nr_meta; i++) {
		const char *key = profile__str(p, p->meta[i].key), *val = profile__str(p, p->meta[i].value);

		r->meta[i * 3] = SV_INT(id);
		r->meta[i * 3 + 1] = SV_TEXT(owned_text(r, key ? key : "", &no));
		r->meta[i * 3 + 2] = SV_TEXT(owned_text(r, val ? val : "", &no));
	}
	ord = xcalloc(r->kt.nr + 1, sizeof(*ord));
	for (k = 0; k < r->kt.nr; k++) {
		ord[k] = (struct key_order){ store__key_id(r->kt.keys[k]), k };
		cells += r->kt.rows[k].nr;
	}
	/* ascending ids: concurrent pushers of the same new keys lock them in one order */
	qsort(ord, r->kt.nr, sizeof(*ord), key_order_cmp);
	r->keys = xcalloc(r->kt.nr * 2 + 1, sizeof(*r->keys));
	r->vals = xcalloc(r->kt.nr * 3 + 1, sizeof(*r->vals));
	r->packed = w = xcalloc(r->kt.nr * nb + cells * 8 + 1, 1);
	for (k = 0; k < r->kt.nr; k++) {
		const struct keyrow *row = &r->kt.rows[ord[k].row];
		unsigned char *start = w;

		r->keys[k * 2] = SV_INT(ord[k].id);
		r->keys[k * 2 + 1] = SV_TEXT(owned_text(r, r->kt.keys[ord[k].row], &no));
		for (i = 0; i < row->nr; i++)
			start[row->cells[i].run / 8] |= (unsigned char)(1u << (row->cells[i].run % 8));
		w += nb;
		for (i = 0; i < row->nr; i++) {
			uint64_t u;
			int b;

			memcpy(&u, &row->cells[i].val, 8);
			for (b = 0; b < 8; b++)
				*w++ = (unsigned char)(u >> (8 * b));
		}
		r->vals[k * 3] = SV_INT(ord[k].id);
		r->vals[k * 3 + 1] = SV_INT(id);
		r->vals[k * 3 + 2] = SV_BLOB(start, (size_t)(w - start));
		at++;
	}
	r->nr_keys = at;
	r->nr_owned = no;
	free(ord);
}

static void push_rows__release(struct push_rows *r)
{
	size_t i;

	for (i = 0; i < r->nr_owned; i++)
		free(r->owned[i]);
	free(r->owned);
	free(r->runs);
	free(r->meta);
	free(r->keys);
	free(r->vals);
	free(r->packed);
	free(r->z);
	keytab__release(&r->kt);
}

/* The push's own row, its runs, meta, keys and values, its file: in that order, one transaction. */
static int push_write(struct store *s, struct push_rows *r, const struct profile *p,
		      struct store_pushed *out, struct errmsg *e)
{
	int64_t id;
	int err = s->ops->begin(s, false, e);

	if (err < 0)
		return err;
	err = s->ops->next_id(s, &id, e);
	if (err < 0)
		goto fail;
	r->push[0] = SV_INT(id);
	err = s->ops->insert(s, "pushes", "id,hash,commit_id,parent,branch,machine,benchmark,time,pushed,"
			     "nr_runs,size", 11, r->push, 1, true, e);
	if (err < 0)
		goto fail;
	if (err == 0) {		/* the same bytes are there: nothing to do */
		s->ops->rollback(s);
		out->existed = true;
		return 0;
	}
	push_rows__build(r, p, id);
	r->blob[0] = SV_INT(id);
	if ((err = s->ops->insert(s, "runs", "push_id,run,exit_code,term_signal,start_ns,wall_ns,samples,lost",
				  8, r->runs, p->nr_runs, false, e)) < 0 ||
	    (err = s->ops->insert(s, "meta", "push_id,key,value", 3, r->meta, p->nr_meta, true, e)) < 0 ||
	    (err = s->ops->insert(s, "keys", "id,name", 2, r->keys, r->nr_keys, true, e)) < 0 ||
	    (err = s->ops->insert(s, "keyvals", "key_id,push_id,vals", 3, r->vals, r->nr_keys, false, e)) < 0 ||
	    (err = s->ops->insert(s, "blobs", "push_id,size,data", 3, r->blob, 1, false, e)) < 0 ||
	    (err = s->ops->commit(s, e)) < 0)
		goto fail;
	out->id = id;
	return 0;
fail:
	s->ops->rollback(s);
	return err;
}

int store__push(struct store *s, const char *path, const struct store_push *p,
		struct store_pushed *out, struct errmsg *e)
{
	struct push_rows r = { 0 };
	struct profile *prof = NULL;
	unsigned char *bytes = NULL, d[SHA256_LEN];
	const char *host;
	size_t len = 0, i;
	uLongf zlen;
	int err;

	memset(out, 0, sizeof(*out));
	if (!p->commit || !name_ok(p->commit))
		return errmsg__set(e, -EINVAL, "--commit: a name of 1 to 255 bytes of UTF-8 without control characters");
	if ((p->parent && !name_ok(p->parent)) || (p->branch && !name_ok(p->branch)) ||
	    (p->machine && !name_ok(p->machine)) || (p->benchmark && !name_ok(p->benchmark)))
		return errmsg__set(e, -EINVAL, "--%s: a name of 1 to 255 bytes of UTF-8 without control characters",
				   p->parent && !name_ok(p->parent) ? "parent" :
				   p->branch && !name_ok(p->branch) ? "branch" :
				   p->machine && !name_ok(p->machine) ? "machine" : "benchmark");
	err = read_all(path, &bytes, &len, e);
	if (err < 0)
		return err;
	sha256__digest(bytes, len, d);
	sha256__hex(d, out->hash);
	err = datafile__load(path, &prof, e);
	if (err < 0)
		goto out;
	if (!prof->nr_runs) {
		err = errmsg__set(e, -EINVAL, "'%s' holds no runs; nothing to push", path);
		goto out;
	}
	host = profile__meta(prof, "hostname");
	snprintf(out->machine, sizeof(out->machine), "%s", p->machine ? p->machine : host ? host : "");
	if (p->benchmark)
		snprintf(out->benchmark, sizeof(out->benchmark), "%s", p->benchmark);
	else
		keys__workload_name(prof, out->benchmark, sizeof(out->benchmark));
	out->time = p->time ? p->time : recorded_at(prof);
	if (!name_ok(out->machine) || !name_ok(out->benchmark) || out->time <= 0) {
		err = errmsg__set(e, -EINVAL, "'%s' does not say %s as a name can be; give --%s", path,
				  !name_ok(out->machine) ? "its host" : !name_ok(out->benchmark) ?
				  "its benchmark" : "when it was recorded",
				  !name_ok(out->machine) ? "machine" : !name_ok(out->benchmark) ? "benchmark" : "time");
		goto out;
	}
	err = keytab__build(&r.kt, prof);
	if (err < 0) {
		err = errmsg__set(e, err, "cannot make the keys of '%s'", path);
		goto out;
	}
	/*
	 * Level 1: a .data's big tables are zlib'd already; level 6 saved 2 %
	 * of a 221 KB file (113 against 116 KB) for a third of a push's CPU.
	 */
	zlen = compressBound(len);
	r.z = xmalloc(zlen);
	if (compress2(r.z, &zlen, bytes, len, 1) != Z_OK) {
		err = errmsg__set(e, -ENOMEM, "cannot compress '%s'", path);
		goto out;
	}
	r.push[1] = SV_TEXT(out->hash);
	r.push[2] = SV_TEXT(p->commit);
	r.push[3] = SV_TEXT(p->parent);
	r.push[4] = SV_TEXT(p->branch);
	r.push[5] = SV_TEXT(out->machine);
	r.push[6] = SV_TEXT(out->benchmark);
	r.push[7] = SV_INT(out->time);
	r.push[8] = SV_INT((int64_t)time(NULL));
	r.push[9] = SV_INT((int64_t)prof->nr_runs);
	r.push[10] = SV_INT((int64_t)len);
	r.blob[1] = SV_INT((int64_t)len);
	r.blob[2] = SV_BLOB(r.z, zlen);
	err = push_write(s, &r, prof, out, e);
	out->nr_runs = prof->nr_runs;
	out->nr_keys = r.nr_keys;
	for (i = 0; i < r.kt.nr; i++)
		out->nr_values += r.kt.rows[i].nr;
out:
	push_rows__release(&r);
	profile__free(prof);
	free(bytes);
	return err;
}
