/*
 * fetch: reading pushes back (store.h): which pushes a commit has, the
 * file of one push, and STORE:COMMIT arguments made into files for the
 * loaders that read paths (a diff's sides).
 *
 * A fetched file is checked against the SHA-256 it was pushed with, so
 * that a damaged store is one line, not a file the loader must make sense
 * of; the loader checks it as any file anyway (the store may come from
 * anywhere too).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include "mmprof/xalloc.h"
#include "store-int.h"

#define FETCH_MAX_FILE (2ll << 30)

bool store__is_ref(const char *arg, size_t *split)
{
	const char *colon = strrchr(arg, ':');
	struct stat st;
	char *where;
	bool ref;

	if (!colon || colon == arg || !colon[1] || !stat(arg, &st))
		return false;
	where = xstrndup(arg, (size_t)(colon - arg));
	ref = store__is_url(where) || (!stat(where, &st) && S_ISREG(st.st_mode));
	free(where);
	*split = (size_t)(colon - arg);
	return ref;
}

struct found {
	int64_t *ids;
	char **machine, **benchmark, **commit;
	size_t nr, alloc;
};

static int found_row(void *ctx, const struct store_val *col, size_t n)
{
	struct found *f = ctx;
	size_t old = f->alloc;

	if (n < 4 || col[0].type != STORE_INT)
		return -EPROTO;
	XGROW(f->ids, f->alloc, f->nr);
	if (f->alloc != old) {
		f->machine = xrealloc(f->machine, f->alloc * sizeof(char *));
		f->benchmark = xrealloc(f->benchmark, f->alloc * sizeof(char *));
		f->commit = xrealloc(f->commit, f->alloc * sizeof(char *));
	}
	f->ids[f->nr] = col[0].i;
	f->machine[f->nr] = xstrdup(col[1].type == STORE_TEXT ? col[1].p : "");
	f->benchmark[f->nr] = xstrdup(col[2].type == STORE_TEXT ? col[2].p : "");
	f->commit[f->nr] = xstrdup(col[3].type == STORE_TEXT ? col[3].p : "");
	f->nr++;
	return 0;
}

static void found_release(struct found *f)
{
	size_t i;

	for (i = 0; i < f->nr; i++) {
		free(f->machine[i]);
		free(f->benchmark[i]);
		free(f->commit[i]);
	}
	free(f->machine);
	free(f->benchmark);
	free(f->commit);
	free(f->ids);
}

/* The distinct values of list[0..n) as "a, b, c" (at most a few) into buf; how many there are. */
static size_t distinct(char **list, size_t n, char *buf, size_t size)
{
	size_t i, j, k = 0, len = 0;

	buf[0] = '\0';
	for (i = 0; i < n; i++) {
		for (j = 0; j < i && strcmp(list[i], list[j]); j++)
			;
		if (j < i)
			continue;
		if (k++ < 4 && len < size)
			len += (size_t)snprintf(buf + len, size - len, "%s'%s'", k > 1 ? ", " : "", list[i]);
	}
	if (k > 4 && len < size)
		snprintf(buf + len, size - len, ", ...");
	return k;
}

int store__find_commit(struct store *s, const char *commit, const char *machine,
		       const char *benchmark, int64_t **ids, size_t *nr, struct errmsg *e)
{
	struct found f = { 0 }, keep = { 0 };
	struct store_val v = SV_TEXT(commit);
	char list[256];
	size_t i, n;
	int err;

	*ids = NULL;
	*nr = 0;
	err = s->ops->query(s, "SELECT id, machine, benchmark, commit_id FROM pushes WHERE commit_id = $1 "
			    "ORDER BY id", &v, 1, found_row, &f, e);
	if (err >= 0 && !f.nr)
		err = s->ops->query(s, "SELECT id, machine, benchmark, commit_id FROM pushes "
				    "WHERE substr(commit_id, 1, length($1)) = $1 ORDER BY id", &v, 1, found_row, &f, e);
	if (err < 0)
		goto out;
	if (!f.nr) {
		err = errmsg__set(e, -ENOENT, "store '%s' has no push of commit '%s'", s->where, commit);
		goto out;
	}
	if ((n = distinct(f.commit, f.nr, list, sizeof(list))) > 1) {
		err = errmsg__set(e, -EINVAL, "store '%s': '%s' begins %zu commits (%s); give more of it",
				  s->where, commit, n, list);
		goto out;
	}
	for (i = 0; i < f.nr; i++)
		if ((!machine || !strcmp(machine, f.machine[i])) &&
		    (!benchmark || !strcmp(benchmark, f.benchmark[i]))) {
			struct store_val row[4] = { SV_INT(f.ids[i]), SV_TEXT(f.machine[i]),
						    SV_TEXT(f.benchmark[i]), SV_TEXT(f.commit[i]) };

			found_row(&keep, row, 4);
		}
	if (!keep.nr) {
		err = errmsg__set(e, -ENOENT, "store '%s' has no push of commit '%s'%s%s%s%s%s", s->where, commit,
				  machine ? " on machine '" : "", machine ? machine : "", machine ? "'" : "",
				  benchmark ? " of benchmark " : "", benchmark ? benchmark : "");
		goto out;
	}
	if ((n = distinct(keep.machine, keep.nr, list, sizeof(list))) > 1) {
		err = errmsg__set(e, -EINVAL, "store '%s': commit '%s' has pushes from %zu machines (%s); "
				  "choose one with --machine", s->where, commit, n, list);
		goto out;
	}
	if ((n = distinct(keep.benchmark, keep.nr, list, sizeof(list))) > 1) {
		err = errmsg__set(e, -EINVAL, "store '%s': commit '%s' has pushes of %zu benchmarks (%s); "
				  "choose one with --benchmark", s->where, commit, n, list);
		goto out;
	}
	*ids = keep.ids;
	*nr = keep.nr;
	keep.ids = NULL;
	err = 0;
out:
	found_release(&f);
	found_release(&keep);
	return err;
}

struct blob {
	int64_t size;
	void *z;
	size_t zlen;
	char hash[2 * SHA256_LEN + 1];
	bool found;
};

static int blob_row(void *ctx, const struct store_val *col, size_t n)
{
	struct blob *b = ctx;

	if (n < 3 || col[0].type != STORE_INT || col[1].type != STORE_BLOB || col[2].type != STORE_TEXT)
		return -EPROTO;
	b->size = col[0].i;
	b->zlen = col[1].len;
	b->z = xmalloc(b->zlen + 1);
	memcpy(b->z, col[1].p, b->zlen);
	snprintf(b->hash, sizeof(b->hash), "%s", (const char *)col[2].p);
	b->found = true;
	return 0;
}

int store__fetch_data(struct store *s, int64_t id, void **buf, size_t *len, struct errmsg *e)
{
	struct store_val v = SV_INT(id);
	struct blob b = { 0 };
	unsigned char d[SHA256_LEN];
	char hex[2 * SHA256_LEN + 1];
	uLongf got;
	int err;

	*buf = NULL;
	err = s->ops->query(s, "SELECT b.size, b.data, p.hash FROM blobs b JOIN pushes p ON p.id = b.push_id "
			    "WHERE b.push_id = $1", &v, 1, blob_row, &b, e);
	if (err == -EPROTO)
		err = errmsg__set(e, err, "store '%s': push %lld's file is not stored as this mmprof stores it",
				  s->where, (long long)id);
	if (err < 0)
		goto out;
	if (!b.found) {
		err = errmsg__set(e, -ENOENT, "store '%s' has no file of push %lld", s->where, (long long)id);
		goto out;
	}
	if (b.size < 0 || b.size > FETCH_MAX_FILE) {
		err = errmsg__set(e, -EPROTO, "store '%s': push %lld's file has a size of %lld bytes",
				  s->where, (long long)id, (long long)b.size);
		goto out;
	}
	*buf = xmalloc((size_t)b.size + 1);
	got = (uLongf)b.size;
	if (uncompress(*buf, &got, b.z, b.zlen) != Z_OK || got != (uLongf)b.size) {
		err = errmsg__set(e, -EPROTO, "store '%s': push %lld's file is damaged (it does not unpack)",
				  s->where, (long long)id);
		goto out;
	}
	sha256__digest(*buf, got, d);
	sha256__hex(d, hex);
	if (strcmp(hex, b.hash)) {
		err = errmsg__set(e, -EPROTO, "store '%s': push %lld's file is damaged (its SHA-256 differs)",
				  s->where, (long long)id);
		goto out;
	}
	*len = got;
out:
	if (err < 0) {
		free(*buf);
		*buf = NULL;
	}
	free(b.z);
	return err;
}

static int write_file(const char *path, const void *buf, size_t len, struct errmsg *e)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
	size_t done = 0;

	if (fd < 0)
		return errmsg__set(e, -errno, "cannot write '%s': %s", path, strerror(errno));
	while (done < len) {
		ssize_t n = write(fd, (const char *)buf + done, len - done);

		if (n < 0) {
			int err = -errno;

			close(fd);
			return errmsg__set(e, err, "cannot write '%s': %s", path, strerror(-err));
		}
		done += (size_t)n;
	}
	if (close(fd))
		return errmsg__set(e, -errno, "cannot write '%s': %s", path, strerror(errno));
	return 0;
}

int store_files__fetch(struct store_files *f, const char *arg, size_t split, const char *machine,
		       const char *benchmark, struct errmsg *e)
{
	char *where = xstrndup(arg, split), tmpl[4096];
	const char *commit = arg + split + 1, *tmpdir = getenv("TMPDIR");
	struct store *s;
	int64_t *ids = NULL;
	size_t nr = 0, i;
	int err;

	memset(f, 0, sizeof(*f));
	s = store__open_read(where, e);
	free(where);
	if (!s)
		return -EINVAL;
	err = store__find_commit(s, commit, machine, benchmark, &ids, &nr, e);
	if (err < 0)
		goto out;
	snprintf(tmpl, sizeof(tmpl), "%s/mmprof-store.XXXXXX", tmpdir && *tmpdir ? tmpdir : "/tmp");
	if (!mkdtemp(tmpl)) {
		err = errmsg__set(e, -errno, "cannot make a folder for the store's files in '%s': %s",
				  tmpdir && *tmpdir ? tmpdir : "/tmp", strerror(errno));
		goto out;
	}
	f->dir = xstrdup(tmpl);
	f->names = xcalloc(nr, sizeof(*f->names));
	f->paths = xcalloc(nr, sizeof(*f->paths));
	for (i = 0; i < nr && !err; i++) {
		char name[4096];
		void *buf;
		size_t len;

		snprintf(name, sizeof(name), "%s:%s", store__where(s), commit);
		if (nr > 1)
			snprintf(name + strlen(name), sizeof(name) - strlen(name), "#%lld", (long long)ids[i]);
		f->names[i] = xstrdup(name);
		snprintf(name, sizeof(name), "%s/push-%lld.data", f->dir, (long long)ids[i]);
		f->paths[i] = xstrdup(name);
		f->nr++;
		err = store__fetch_data(s, ids[i], &buf, &len, e);
		if (!err) {
			err = write_file(f->paths[i], buf, len, e);
			free(buf);
		}
	}
out:
	free(ids);
	store__close(s);
	if (err < 0)
		store_files__release(f);
	return err;
}

void store_files__remove(struct store_files *f)
{
	size_t i;

	for (i = 0; f->paths && i < f->nr; i++) {
		unlink(f->paths[i]);
		free(f->paths[i]);
	}
	free(f->paths);
	f->paths = NULL;
	if (f->dir)
		rmdir(f->dir);
	free(f->dir);
	f->dir = NULL;
}

void store_files__release(struct store_files *f)
{
	size_t i;

	store_files__remove(f);
	for (i = 0; f->names && i < f->nr; i++)
		free(f->names[i]);
	free(f->names);
	memset(f, 0, sizeof(*f));
}
