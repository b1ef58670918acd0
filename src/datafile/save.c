/*
 * datafile save: write a profile as an SQLite database, atomically.
 *
 * The database is built in a temporary file next to the target (same
 * filesystem, so rename(2) is atomic), in one transaction with journaling
 * and syncing off: the temporary has no previous content to protect, and
 * durability comes from one fsync of the finished file before the rename
 * and one of the directory after it.  A failure at any step unlinks the
 * temporary and leaves the target as it was.  The file is mode 0600 when
 * it holds raw kernel addresses, else 0644 (less the umask).
 *
 * The profile is checked against the format's invariants while it is
 * written (references in range, counts below 2^63, sizes within limits),
 * so a bug upstream yields an error naming the row, not a file that every
 * reader refuses.  The model keeps within the limits itself (profile.h);
 * what still breaks one is a bug, and datafile__salvage, record's last
 * line of defence, writes the file without the rows that break one.
 * The trie's tables (frames, frame files, nodes, counts) are savetrie.c's
 * (save-int.h).
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <sqlite3.h>

#include "mmprof/chainsrc.h"
#include "mmprof/datafile.h"
#include "mmprof/outfile.h"
#include "mmprof/xalloc.h"
#include "save-int.h"
#include "schema.h"

static int write_meta(struct saver *s)
{
	const struct profile *p = s->p;
	char ver[16];
	size_t i, seq = 0;
	int err;

	if (p->nr_meta + 1 > DATAFILE_MAX_META)
		return errmsg__set(s->e, -ERANGE,
				   "cannot write '%s': %zu meta keys exceed the format's limit of %u",
				   s->path, p->nr_meta, DATAFILE_MAX_META);
	if ((err = saver__check_rows(s, "meta", p->nr_meta + 1)) ||
	    (err = saver__prepare(s, "INSERT INTO meta VALUES(?,?,?)")))
		return err;
	snprintf(ver, sizeof(ver), "%d", s->version);
	s->droppable = true;
	sqlite3_bind_int64(s->st, 1, (int64_t)seq++);
	sqlite3_bind_text(s->st, 2, DATAFILE_META_FORMAT, -1, SQLITE_STATIC);
	sqlite3_bind_text(s->st, 3, ver, -1, SQLITE_TRANSIENT);
	if ((err = saver__step(s)))
		return err;
	for (i = 0; i < p->nr_meta; i++) {
		const char *k = profile__str(p, p->meta[i].key), *v;

		if ((err = saver__check_str(s, "meta", i, p->meta[i].key)) ||
		    (err = saver__check_str(s, "meta", i, p->meta[i].value)) ||
		    (!k && (err = saver__bad(s, -EINVAL, "meta", i, "a key is missing"))))
			goto skip;
		/* the file's own version is written above, never the model's */
		if (!strcmp(k, DATAFILE_META_FORMAT))
			continue;
		v = profile__str(p, p->meta[i].value);
		if ((err = saver__check_text(s, "meta", i, strlen(k) + (v ? strlen(v) : 0))))
			goto skip;
		sqlite3_bind_int64(s->st, 1, (int64_t)seq++);
		sqlite3_bind_text(s->st, 2, k, -1, SQLITE_STATIC);
		if (p->meta[i].value)
			sqlite3_bind_text(s->st, 3, profile__str(p, p->meta[i].value), -1,
					  SQLITE_STATIC);
		else
			sqlite3_bind_null(s->st, 3);
		if ((err = saver__step(s)))
			return err;
		continue;
skip:
		if (err < 0)
			return err;
	}
	s->meta_seq = seq;
	s->droppable = false;
	return 0;
}

/* Salvage: say in the file itself that rows were left out. */
static int write_dropped(struct saver *s)
{
	char n[32];
	int err;

	if (!s->dropped || s->meta_seq >= DATAFILE_MAX_META)
		return 0;
	if ((err = saver__prepare(s, "INSERT INTO meta VALUES(?,?,?)")))
		return err;
	snprintf(n, sizeof(n), "%zu", s->dropped);
	sqlite3_bind_int64(s->st, 1, (int64_t)s->meta_seq++);
	sqlite3_bind_text(s->st, 2, DATAFILE_META_DROPPED, -1, SQLITE_STATIC);
	sqlite3_bind_text(s->st, 3, n, -1, SQLITE_TRANSIENT);
	return saver__step(s);
}

static int write_strings(struct saver *s)
{
	const struct profile *p = s->p;
	size_t i;
	int err;

	s->droppable = false;
	if ((err = saver__check_rows(s, "strings", p->strs.nr + s->extra.nr)) ||
	    (err = saver__prepare(s, "INSERT INTO strings VALUES(?,?)")))
		return err;
	for (i = 1; i < p->strs.nr; i++) {
		size_t len = strintern__len(&p->strs, (uint32_t)i);

		if (len > DATAFILE_MAX_STR)
			return saver__bad(s, -ERANGE, "strings", i, "a string of %zu bytes exceeds the limit of %u",
				   len, DATAFILE_MAX_STR);
		if ((err = saver__check_text(s, "strings", i, len)))
			return err;
		sqlite3_bind_int64(s->st, 1, (int64_t)i);
		sqlite3_bind_text(s->st, 2, p->strs.s[i], (int)len, SQLITE_STATIC);
		if ((err = saver__step(s)))
			return err;
	}
	/* format 4: the build-ids frame_files names that p's pool lacks */
	for (i = 0; i < s->extra.nr; i++) {
		if ((err = saver__check_text(s, "strings", p->strs.nr + i, strintern__len(&s->extra, (uint32_t)i))))
			return err;
		sqlite3_bind_int64(s->st, 1, (int64_t)(p->strs.nr + i));
		sqlite3_bind_text(s->st, 2, s->extra.s[i], -1, SQLITE_STATIC);
		if ((err = saver__step(s)))
			return err;
	}
	return 0;
}

static int write_events(struct saver *s)
{
	const struct profile *p = s->p;
	size_t i;
	int err;

	if (p->nr_events > DATAFILE_MAX_EVENTS)
		return errmsg__set(s->e, -ERANGE,
				   "cannot write '%s': %zu sampling events exceed the format's limit of %u",
				   s->path, p->nr_events, DATAFILE_MAX_EVENTS);
	if ((err = saver__check_rows(s, "events", p->nr_events)) ||
	    (err = saver__prepare(s, "INSERT INTO events VALUES(?,?,?,?,?,?,?)")))
		return err;
	for (i = 0; i < p->nr_events; i++) {
		const struct event_desc *ev = &p->events[i];

		if ((err = saver__check_str(s, "events", i, ev->name)) ||
		    (err = saver__check_str(s, "events", i, ev->asked)))
			return err;
		sqlite3_bind_int64(s->st, 1, (int64_t)i);
		saver__bind_str(s->st, 2, ev->name);
		saver__bind_str(s->st, 3, ev->asked);
		sqlite3_bind_int64(s->st, 4, ev->type);
		saver__bind_u64(s->st, 5, ev->config);
		sqlite3_bind_int64(s->st, 6, ev->freq ? 1 : 0);
		saver__bind_u64(s->st, 7, ev->sample);
		if ((err = saver__step(s)))
			return err;
	}
	return 0;
}

static int write_runs(struct saver *s)
{
	const struct profile *p = s->p;
	size_t i;
	int err;

	if (p->nr_runs > DATAFILE_MAX_RUNS)
		return errmsg__set(s->e, -ERANGE,
				   "cannot write '%s': %zu runs exceed the format's limit of %u",
				   s->path, p->nr_runs, DATAFILE_MAX_RUNS);
	if ((err = saver__check_rows(s, "runs", p->nr_runs)) ||
	    (err = saver__prepare(s, "INSERT INTO runs VALUES(?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)")))
		return err;
	for (i = 0; i < p->nr_runs; i++) {
		const struct run *r = &p->runs[i];
		sqlite3_stmt *st = s->st;

		if ((err = saver__check_count(s, "runs", i, r->samples)) ||
		    (err = saver__check_count(s, "runs", i, r->lost)) ||
		    (err = saver__check_count(s, "runs", i, r->throttled)))
			return err;
		sqlite3_bind_int64(st, 1, (int64_t)i);
		sqlite3_bind_int64(st, 2, r->start_ns);
		sqlite3_bind_int64(st, 3, r->wall_ns);
		sqlite3_bind_int64(st, 4, r->exit_code);
		sqlite3_bind_int64(st, 5, r->term_signal);
		sqlite3_bind_int64(st, 6, r->utime_us);
		sqlite3_bind_int64(st, 7, r->stime_us);
		sqlite3_bind_int64(st, 8, r->maxrss_kb);
		sqlite3_bind_int64(st, 9, r->minflt);
		sqlite3_bind_int64(st, 10, r->majflt);
		sqlite3_bind_int64(st, 11, r->nvcsw);
		sqlite3_bind_int64(st, 12, r->nivcsw);
		sqlite3_bind_int64(st, 13, (int64_t)r->samples);
		sqlite3_bind_int64(st, 14, (int64_t)r->lost);
		sqlite3_bind_int64(st, 15, (int64_t)r->throttled);
		if ((err = saver__step(s)))
			return err;
	}
	return 0;
}

static int write_counters(struct saver *s)
{
	const struct profile *p = s->p;
	size_t i;
	int err;

	s->droppable = true;
	if ((err = saver__check_rows(s, "counters", p->nr_counters)) ||
	    (err = saver__prepare(s, "INSERT INTO counters VALUES(?,?,?,?,?,?,?)")))
		return err;
	for (i = 0; i < p->nr_counters; i++) {
		const struct counter *c = &p->counters[i];

		if ((err = saver__check_run(s, "counters", i, c->run)) ||
		    (err = saver__check_str(s, "counters", i, c->name))) {
			if (err < 0)
				return err;
			continue;
		}
		sqlite3_bind_int64(s->st, 1, (int64_t)i);
		sqlite3_bind_int64(s->st, 2, c->run);
		saver__bind_str(s->st, 3, c->name);
		sqlite3_bind_int64(s->st, 4, c->supported ? 1 : 0);
		saver__bind_u64(s->st, 5, c->value);
		saver__bind_u64(s->st, 6, c->enabled);
		saver__bind_u64(s->st, 7, c->running);
		if ((err = saver__step(s)))
			return err;
	}
	return 0;
}

static int write_intervals(struct saver *s)
{
	const struct profile *p = s->p;
	size_t i;
	int err;

	s->droppable = true;
	if ((err = saver__check_rows(s, "intervals", p->nr_intervals)) ||
	    (err = saver__prepare(s, "INSERT INTO intervals VALUES(?,?,?,?,?,?,?)")))
		return err;
	for (i = 0; i < p->nr_intervals; i++) {
		const struct counter_interval *ci = &p->intervals[i];

		if ((err = saver__check_run(s, "intervals", i, ci->run)) ||
		    (err = saver__check_str(s, "intervals", i, ci->name))) {
			if (err < 0)
				return err;
			continue;
		}
		sqlite3_bind_int64(s->st, 1, (int64_t)i);
		sqlite3_bind_int64(s->st, 2, ci->run);
		saver__bind_str(s->st, 3, ci->name);
		saver__bind_u64(s->st, 4, ci->t_ns);
		saver__bind_u64(s->st, 5, ci->value);
		saver__bind_u64(s->st, 6, ci->enabled);
		saver__bind_u64(s->st, 7, ci->running);
		if ((err = saver__step(s)))
			return err;
	}
	return 0;
}

static int write_metrics(struct saver *s)
{
	const struct profile *p = s->p;
	size_t i;
	int err;

	s->droppable = true;
	if ((err = saver__check_rows(s, "metrics", p->nr_metrics)) ||
	    (err = saver__prepare(s, "INSERT INTO metrics VALUES(?,?,?,?)")))
		return err;
	for (i = 0; i < p->nr_metrics; i++) {
		const struct metric *m = &p->metrics[i];

		if ((err = saver__check_run(s, "metrics", i, m->run)) ||
		    (err = saver__check_str(s, "metrics", i, m->key))) {
			if (err < 0)
				return err;
			continue;
		}
		sqlite3_bind_int64(s->st, 1, (int64_t)i);
		sqlite3_bind_int64(s->st, 2, m->run);
		saver__bind_str(s->st, 3, m->key);
		/* SQLite stores NaN as NULL; the reader maps NULL back to NaN */
		sqlite3_bind_double(s->st, 4, m->value);
		if ((err = saver__step(s)))
			return err;
	}
	return 0;
}

static int write_db(struct saver *s)
{
	const char *const *part;
	char sql[128];
	int err;

	/* No journal, no syncs: the temporary has nothing to protect, and
	 * one fsync of the finished file replaces them all. */
	if ((err = saver__exec(s, "PRAGMA journal_mode=OFF; PRAGMA synchronous=OFF;"
			   "PRAGMA locking_mode=EXCLUSIVE; PRAGMA cache_size=-16384")))
		return err;
	snprintf(sql, sizeof(sql), "PRAGMA application_id=%d; PRAGMA user_version=%d",
		 (int)DATAFILE_APP_ID, s->version);
	if ((err = saver__exec(s, sql)) || (err = saver__exec(s, "BEGIN")))
		return err;
	for (part = datafile_schema_parts(s->version); *part; part++)
		if ((err = saver__exec(s, *part)))
			return err;
	if (s->version >= 4 && (err = saver__plan_frame_files(s)))
		return err;
	if ((err = write_meta(s)) || (err = write_strings(s)) ||
	    (err = write_events(s)) || (err = write_runs(s)) ||
	    (err = write_counters(s)) || (err = write_intervals(s)) ||
	    (err = write_metrics(s)) ||
	    (err = s->version < 3 ? saver__write_frames(s) : saver__write_frame_blocks(s)) ||
	    (err = s->version < 4 ? saver__write_frame_files(s) : saver__write_frame_file_blocks(s)) ||
	    (err = s->version < 3 ? saver__write_nodes(s) : saver__write_node_blocks(s)) ||
	    (err = s->version == 1 ? saver__write_count_rows(s) : saver__write_count_cells(s)) ||
	    (err = s->version >= 5 ? saver__write_chain_blocks(s) : 0) ||
	    (err = write_dropped(s)))
		return err;
	sqlite3_finalize(s->st);
	s->st = NULL;
	if ((err = saver__exec(s, datafile_index_sql(s->version))))
		return err;
	return saver__exec(s, "COMMIT");
}

/*
 * Remove ".<base>.tmp.<pid>" files whose writer is gone (killed saves), so
 * they do not pile up next to the target.  Best effort: errors are ignored.
 */
static void clean_stale(const char *dir, const char *base)
{
	size_t blen = strlen(base);
	struct dirent *de;
	DIR *d = opendir(dir);

	if (!d)
		return;
	while ((de = readdir(d))) {
		const char *n = de->d_name, *num;
		char *end;
		long pid;

		if (n[0] != '.' || strncmp(n + 1, base, blen) || strncmp(n + 1 + blen, ".tmp.", 5))
			continue;
		num = n + 1 + blen + 5;
		if (*num < '1' || *num > '9')
			continue;
		errno = 0;
		pid = strtol(num, &end, 10);
		if (*end || errno || pid <= 0 || pid > INT32_MAX || pid == getpid())
			continue;
		if (kill((pid_t)pid, 0) == -1 && errno == ESRCH)
			unlinkat(dirfd(d), n, 0);
	}
	closedir(d);
}

/* Split path into a directory (for the temporary and its fsync) and a base. */
static int split_path(struct saver *s, char **dir, const char **base)
{
	const char *slash = strrchr(s->path, '/');

	*base = slash ? slash + 1 : s->path;
	if (!**base || !strcmp(*base, ".") || !strcmp(*base, ".."))
		return errmsg__set(s->e, -EISDIR, "cannot write '%s': not a file name", s->path);
	if (!slash)
		*dir = xstrdup(".");
	else if (slash == s->path)
		*dir = xstrdup("/");
	else
		*dir = xstrndup(s->path, (size_t)(slash - s->path));
	return 0;
}

static void sync_dir(const char *dir)
{
	int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);

	/* The rename is done; a directory that cannot be synced (some
	 * filesystems refuse) does not make the saved file wrong. */
	if (fd >= 0) {
		fsync(fd);
		close(fd);
	}
}

/*
 * Raw kernel addresses reveal where KASLR put the kernel: a file holding
 * them is its owner's alone, as perf.data is (`mmprof strip` removes them
 * and writes a file others may read).
 */
static mode_t file_mode(const struct profile *p)
{
	size_t i;

	for (i = 0; i < p->nr_frames; i++)
		if (p->frames[i].kernel && p->frames[i].addr)
			return 0600;
	/* where kallsyms put _text, kept for resolve --vmlinux: the base itself */
	return profile__meta(p, "kernel_ref_reloc_sym") ? 0600 : 0644;
}

bool datafile__readers_take(size_t nodes, size_t frames, size_t cells, size_t events,
			    size_t pairs)
{
	static const unsigned char frame_fields[] = DATAFILE_FRAME_FIELDS;
	unsigned long long frame_bytes = 0, blocks;
	size_t i;

	for (i = 0; i < sizeof(frame_fields); i++)
		frame_bytes += frame_fields[i];
	/* node 0, the root, is not written; the others are 8 bytes each */
	blocks = (unsigned long long)nodes * 8 + frames * frame_bytes +
		 (unsigned long long)cells * DATAFILE_CELL_SIZE;
	return blocks <= DATAFILE_MAX_UNPACKED / 8 * 7 &&
	       (unsigned long long)events * nodes <= DATAFILE_MAX_EVENT_WALK &&
	       (unsigned long long)pairs * nodes <= DATAFILE_MAX_WALK;
}

size_t datafile__readers_nodes(size_t max_nodes, size_t frames, size_t cells, size_t events,
			       size_t pairs)
{
	size_t lo = 0, hi = max_nodes;

	/* readers_take holds for lo (or lo is 0), fails past hi: it only grows with nodes */
	if (datafile__readers_take(hi, frames, cells, events, pairs))
		return hi;
	while (hi - lo > 1) {
		size_t mid = lo + (hi - lo) / 2;

		if (datafile__readers_take(mid, frames, cells, events, pairs))
			lo = mid;
		else
			hi = mid;
	}
	return lo;
}

/*
 * The loader's limits (loader__check_walk, check_unpacked), before anything
 * is written: a file a reader refuses is not written (-ERANGE, so that
 * datafile__salvage keeps what it can).  Events and (run, event) pairs
 * counted as the loader does, those with counts.
 */
static int check_readers(struct saver *s)
{
	const struct profile *p = s->p;
	size_t pairs, events;
	bool fits;

	if (p->nr_nodes <= 1 && !p->nr_counts)
		return 0;
	datafile_walked(p, &events, &pairs);
	/* formats 1 and 2 have rows, not blocks: only the walks bound them */
	fits = s->version >= 3 ?
	       datafile__readers_take(p->nr_nodes, p->nr_frames, p->nr_counts, events, pairs) :
	       datafile__readers_take(p->nr_nodes, 0, 0, events, pairs);
	if (fits)
		return 0;
	return errmsg__set(s->e, -ERANGE, "cannot write '%s': profile stacks: %zu nodes, %zu frames "
			   "and %zu counts in %zu events, %zu (run, event) pairs are more than a reader "
			   "loads (data-format.md, limits)", s->path, p->nr_nodes, p->nr_frames,
			   p->nr_counts, events, pairs);
}

bool datafile__trie_takes(const struct profile *p, size_t nr, size_t runs, size_t max_nodes)
{
	size_t nodes = p->nr_nodes + nr;

	if (!max_nodes || max_nodes > DATAFILE_TRIE_NODES)
		max_nodes = DATAFILE_TRIE_NODES;
	if (!runs)
		runs = 1;
	return nodes <= max_nodes &&
	       datafile__readers_take(nodes, p->nr_frames + nr, p->nr_counts + 1, p->nr_events,
				      runs * p->nr_events);
}

/*
 * Format 5 is format 4 and the chain_blocks table: written only for a
 * profile with whole chains (p->whole), so that every other file is the
 * format 4 an older mmprof reads, byte for byte what it was.
 */
static int version_for(const struct profile *p)
{
	return p->whole ? PROFILE_FORMAT_VERSION : PROFILE_FORMAT_PLAIN;
}

int datafile__save(const struct profile *p, const char *path, struct errmsg *e)
{
	return datafile__save_version(p, path, version_for(p), e);
}

static int save(struct saver *sv);

int datafile__save_version(const struct profile *p, const char *path, int version,
			   struct errmsg *e)
{
	struct saver s = { .p = p, .version = version, .path = path, .e = e };

	return save(&s);
}

int datafile__salvage(const struct profile *p, const char *path, size_t *dropped,
		      struct errmsg *why, struct errmsg *e)
{
	struct saver s = { .p = p, .version = version_for(p), .path = path, .e = e,
			   .salvage = true };
	struct profile flat, trie_only;
	const char *why_rows;
	int err;

	*dropped = 0;
	err = save(&s);
	if ((err == -EINVAL || err == -ERANGE || (err && s.chains_unread)) && p->whole) {
		/*
		 * the whole chains break a rule, or cannot be read back: the
		 * trie (its "[elided]" nodes) still holds every count
		 */
		trie_only = *p;
		trie_only.whole = NULL;
		s = (struct saver){ .p = &trie_only, .version = 4, .path = path, .e = e,
				    .salvage = true, .dropped = p->whole->nr_chains };
		why_rows = e ? strstr(e->msg, "': profile ") : NULL;
		if (!why_rows && e)
			why_rows = strstr(e->msg, "': the chains ");
		errmsg__set(&s.first, 0, "%s; written without its whole chains (chain_blocks)",
			    why_rows ? why_rows + 3 : e ? e->msg : "a rule broken");
		err = save(&s);
		p = &trie_only;
	}
	if (err == -EINVAL || err == -ERANGE) {
		/* a table others refer to breaks a rule: keep what needs no stack */
		flat = *p;
		flat.nr_frames = flat.nr_frame_files = flat.nr_counts = 0;
		flat.nr_nodes = 1;
		flat.whole = NULL;
		s = (struct saver){ .p = &flat, .version = 4, .path = path,
				    .e = e, .salvage = true, .dropped = p->nr_counts };
		/* e says "cannot write 'path': profile ...": the part after the path */
		why_rows = e ? strstr(e->msg, "': profile ") : NULL;
		errmsg__set(&s.first, 0, "%s; written without its stacks",
			    why_rows ? why_rows + 3 : e ? e->msg : "a rule broken");
		err = save(&s);
	}
	if (!err) {
		*dropped = s.dropped;
		*why = s.first;
	}
	return err;
}

static int save(struct saver *sv)
{
	struct saver s = *sv;
	const struct profile *p = s.p;
	const char *path = s.path;
	int version = s.version;
	struct errmsg *e = s.e;
	char *dir = NULL, *tmp = NULL;
	const char *base;
	struct stat st, fst;
	size_t tlen;
	int fd = -1, err, rc, tries;

	if (version < 1 || version > PROFILE_FORMAT_VERSION)
		return errmsg__set(e, -EINVAL, "cannot write '%s': format %d is not one this mmprof writes (1..%d)",
				   path, version, PROFILE_FORMAT_VERSION);
	if (p->whole && version < 5)
		return errmsg__set(e, -EINVAL, "cannot write '%s': format %d cannot hold the profile's whole chains (format 5 does)",
				   path, version);

	if ((err = check_readers(&s)) || (err = outfile__check_target(path, e)))
		return err;
	if ((err = split_path(&s, &dir, &base)))
		return err;
	clean_stale(dir, base);

	tlen = strlen(dir) + strlen(base) + 32;
	tmp = xmalloc(tlen);
	snprintf(tmp, tlen, "%s/.%s.tmp.%d", dir, base, (int)getpid());
	/* O_EXCL|O_NOFOLLOW: a file or symlink planted under our name is
	 * never written through; a leftover of ours (same pid, so its writer
	 * is gone or is us) is removed once and the create retried. */
	for (tries = 0; tries < 2; tries++) {
		fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, file_mode(p));
		if (fd >= 0 || errno != EEXIST || unlink(tmp))
			break;
	}
	if (fd < 0) {
		err = errmsg__set(e, -errno, "cannot write '%s': cannot create '%s': %s",
				  path, tmp, strerror(errno));
		free(tmp);
		free(dir);
		return err;
	}

	rc = sqlite3_open_v2(tmp, &s.db,
			     SQLITE_OPEN_READWRITE | SQLITE_OPEN_NOFOLLOW | SQLITE_OPEN_NOMUTEX, NULL);
	if (rc != SQLITE_OK) {
		err = saver__sql_fail(&s, rc, "cannot open the temporary file");
		goto out_unlink;
	}
	err = write_db(&s);
	sqlite3_finalize(s.st);
	s.st = NULL;
	free(s.zbuf);
	s.zbuf = NULL;
	free(s.ff);
	s.ff = NULL;
	strintern__release(&s.extra);
	if (err)
		goto out_unlink;
	rc = sqlite3_close(s.db);
	s.db = NULL;
	if (rc != SQLITE_OK) {
		err = saver__sql_fail(&s, rc, "cannot close the database");
		goto out_unlink;
	}
	/* SQLite opened the name again: make sure it still is our file. */
	if (fstat(fd, &fst) || lstat(tmp, &st) || st.st_dev != fst.st_dev ||
	    st.st_ino != fst.st_ino) {
		err = errmsg__set(e, -EEXIST, "cannot write '%s': '%s' was replaced while writing",
				  path, tmp);
		goto out_close;	/* not ours any more: do not unlink it */
	}
	if (fsync(fd)) {
		err = errno == ENOSPC ? saver__sql_fail(&s, SQLITE_FULL, "") :
		      errmsg__set(e, -errno, "cannot write '%s': fsync: %s", path, strerror(errno));
		goto out_unlink;
	}
	if (close(fd)) {
		fd = -1;
		err = errmsg__set(e, -errno, "cannot write '%s': close: %s", path, strerror(errno));
		goto out_unlink;
	}
	fd = -1;
	/* a link planted at the name while writing is not replaced either */
	if ((err = outfile__check_target(path, e)))
		goto out_unlink;
	if (rename(tmp, path)) {
		err = errmsg__set(e, -errno, "cannot write '%s': rename from '%s': %s",
				  path, tmp, strerror(errno));
		goto out_unlink;
	}
	sync_dir(dir);
	free(tmp);
	free(dir);
	sv->dropped = s.dropped;
	sv->first = s.first;
	return 0;

out_unlink:
	sqlite3_close(s.db);	/* NULL is fine */
	unlink(tmp);
out_close:
	if (fd >= 0)
		close(fd);
	free(tmp);
	free(dir);
	sv->chains_unread = s.chains_unread;
	return err;
}

int datafile__save_recording(struct profile *p, const char *path, struct errmsg *warn,
			     struct errmsg *e)
{
	char line[400];
	struct errmsg why = { { 0 } };
	bool repaired = profile__repairs(p, line, sizeof(line)) > 0;
	const char *pre = repaired ? "kept within the file format: " : "";
	const char *post = repaired ? " (meta repaired.*)" : "";
	struct saver s = { .p = p, .version = version_for(p), .path = path, .e = e };
	size_t dropped;
	int err;

	warn->msg[0] = '\0';
	err = save(&s);
	/* a walk of p->whole that fails (-EIO, -EPROTO, ...) loses the chains, not the recording */
	if (err == -EINVAL || err == -ERANGE || (err && s.chains_unread))
		err = datafile__salvage(p, path, &dropped, &why, e);
	else
		why.msg[0] = '\0';
	if (!err && why.msg[0])
		errmsg__set(warn, 0, "%s%s%s%swrote '%s' without %zu row%s that break the format (%s; meta %s)",
			    pre, repaired ? line : "", post, repaired ? "; " : "", path, dropped,
			    dropped == 1 ? "" : "s", why.msg, DATAFILE_META_DROPPED);
	else if (repaired)
		errmsg__set(warn, 0, "%s%s%s", pre, line, post);
	return err;
}
