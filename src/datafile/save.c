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
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <sqlite3.h>
#include <zlib.h>

#include "mmprof/datafile.h"
#include "mmprof/hashidx.h"
#include "mmprof/outfile.h"
#include "mmprof/xalloc.h"
#include "schema.h"

struct saver {
	const struct profile *p;
	int version;		/* of the format written */
	const char *path;
	struct errmsg *e;
	sqlite3 *db;
	sqlite3_stmt *st;
	uint64_t sum_samples, sum_period;	/* of the counts checked so far */
	unsigned long long str_bytes;	/* text so far, counted as load counts it */
	size_t meta_seq;		/* the next meta row */
	/* salvage: a row nothing refers to that breaks a rule is left out */
	bool salvage, droppable;
	size_t dropped;
	struct errmsg first;	/* the first row left out */
	unsigned char *zbuf;	/* format 3: a block compressed */
	size_t zcap;
	struct ffrec *ff;	/* format 4: the frame_files records, in frame order */
	size_t nr_ff;
	const char **extra;	/* format 4: build-ids not in p's strings, ids nr_strs + i */
	size_t nr_extra, alloc_extra;
};

/* Format 4: a frame_files record, its build-id as a string id of the file. */
struct ffrec {
	uint32_t frame, bid;
	uint64_t vaddr;
};

/* An SQLite failure as -errno with a message; disk full is said plainly. */
static int sql_fail(struct saver *s, int rc, const char *what)
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
static int bad(struct saver *s, int err, const char *table, size_t row, const char *fmt, ...)
	__attribute__((format(printf, 5, 6)));
static int bad(struct saver *s, int err, const char *table, size_t row, const char *fmt, ...)
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
static int check_text(struct saver *s, const char *table, size_t row, size_t len)
{
	s->str_bytes += len;
	if (s->str_bytes > DATAFILE_MAX_STR_TOTAL)
		return bad(s, -ERANGE, table, row, "text totals %llu bytes, over the limit of %llu",
			   s->str_bytes, DATAFILE_MAX_STR_TOTAL);
	return 0;
}

static int exec(struct saver *s, const char *sql)
{
	int rc = sqlite3_exec(s->db, sql, NULL, NULL, NULL);

	return rc == SQLITE_OK ? 0 : sql_fail(s, rc, "cannot set up the database");
}

static int prepare(struct saver *s, const char *sql)
{
	int rc;

	sqlite3_finalize(s->st);
	s->st = NULL;
	rc = sqlite3_prepare_v3(s->db, sql, -1, SQLITE_PREPARE_PERSISTENT, &s->st, NULL);
	return rc == SQLITE_OK ? 0 : sql_fail(s, rc, "cannot prepare a statement");
}

static int step(struct saver *s)
{
	int rc = sqlite3_step(s->st);
	int err = 0;

	if (rc != SQLITE_DONE)
		err = sql_fail(s, rc, "cannot insert a row");
	sqlite3_reset(s->st);
	return err;
}

/* Unsigned 64-bit values travel as the signed INTEGER of the same bits. */
static void bind_u64(sqlite3_stmt *st, int col, uint64_t v)
{
	int64_t i;

	memcpy(&i, &v, sizeof(i));
	sqlite3_bind_int64(st, col, i);
}

/* String id 0 ("no string") is stored as NULL so joins and FKs stay honest. */
static void bind_str(sqlite3_stmt *st, int col, uint32_t id)
{
	if (id)
		sqlite3_bind_int64(st, col, id);
	else
		sqlite3_bind_null(st, col);
}

static int check_rows(struct saver *s, const char *table, size_t n)
{
	if (n > DATAFILE_MAX_ROWS)
		return errmsg__set(s->e, -ERANGE,
				   "cannot write '%s': %zu rows in %s exceed the format's limit of %u",
				   s->path, n, table, DATAFILE_MAX_ROWS);
	return 0;
}

static int check_str(struct saver *s, const char *table, size_t row, uint32_t id)
{
	if (id >= s->p->nr_strs)
		return bad(s, -EINVAL, table, row, "string id %u does not exist", id);
	return 0;
}

static int check_run(struct saver *s, const char *table, size_t row, uint32_t run)
{
	if (run >= s->p->nr_runs)
		return bad(s, -EINVAL, table, row, "run %u does not exist", run);
	return 0;
}

static int check_count(struct saver *s, const char *table, size_t row, uint64_t v)
{
	if (v > INT64_MAX)
		return bad(s, -ERANGE, table, row, "count %llu is not below 2^63", (unsigned long long)v);
	return 0;
}

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
	if ((err = check_rows(s, "meta", p->nr_meta + 1)) ||
	    (err = prepare(s, "INSERT INTO meta VALUES(?,?,?)")))
		return err;
	snprintf(ver, sizeof(ver), "%d", s->version);
	s->droppable = true;
	sqlite3_bind_int64(s->st, 1, (int64_t)seq++);
	sqlite3_bind_text(s->st, 2, DATAFILE_META_FORMAT, -1, SQLITE_STATIC);
	sqlite3_bind_text(s->st, 3, ver, -1, SQLITE_TRANSIENT);
	if ((err = step(s)))
		return err;
	for (i = 0; i < p->nr_meta; i++) {
		const char *k = profile__str(p, p->meta[i].key), *v;

		if ((err = check_str(s, "meta", i, p->meta[i].key)) ||
		    (err = check_str(s, "meta", i, p->meta[i].value)) ||
		    (!k && (err = bad(s, -EINVAL, "meta", i, "a key is missing"))))
			goto skip;
		/* the file's own version is written above, never the model's */
		if (!strcmp(k, DATAFILE_META_FORMAT))
			continue;
		v = profile__str(p, p->meta[i].value);
		if ((err = check_text(s, "meta", i, strlen(k) + (v ? strlen(v) : 0))))
			goto skip;
		sqlite3_bind_int64(s->st, 1, (int64_t)seq++);
		sqlite3_bind_text(s->st, 2, k, -1, SQLITE_STATIC);
		if (p->meta[i].value)
			sqlite3_bind_text(s->st, 3, profile__str(p, p->meta[i].value), -1,
					  SQLITE_STATIC);
		else
			sqlite3_bind_null(s->st, 3);
		if ((err = step(s)))
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
	if ((err = prepare(s, "INSERT INTO meta VALUES(?,?,?)")))
		return err;
	snprintf(n, sizeof(n), "%zu", s->dropped);
	sqlite3_bind_int64(s->st, 1, (int64_t)s->meta_seq++);
	sqlite3_bind_text(s->st, 2, DATAFILE_META_DROPPED, -1, SQLITE_STATIC);
	sqlite3_bind_text(s->st, 3, n, -1, SQLITE_TRANSIENT);
	return step(s);
}

static int write_strings(struct saver *s)
{
	const struct profile *p = s->p;
	size_t i;
	int err;

	s->droppable = false;
	if ((err = check_rows(s, "strings", p->nr_strs + s->nr_extra)) ||
	    (err = prepare(s, "INSERT INTO strings VALUES(?,?)")))
		return err;
	for (i = 1; i < p->nr_strs; i++) {
		size_t len = strlen(p->strs[i]);

		if (len > DATAFILE_MAX_STR)
			return bad(s, -ERANGE, "strings", i, "a string of %zu bytes exceeds the limit of %u",
				   len, DATAFILE_MAX_STR);
		if ((err = check_text(s, "strings", i, len)))
			return err;
		sqlite3_bind_int64(s->st, 1, (int64_t)i);
		sqlite3_bind_text(s->st, 2, p->strs[i], (int)len, SQLITE_STATIC);
		if ((err = step(s)))
			return err;
	}
	/* format 4: the build-ids frame_files names that p's pool lacks */
	for (i = 0; i < s->nr_extra; i++) {
		if ((err = check_text(s, "strings", p->nr_strs + i, strlen(s->extra[i]))))
			return err;
		sqlite3_bind_int64(s->st, 1, (int64_t)(p->nr_strs + i));
		sqlite3_bind_text(s->st, 2, s->extra[i], -1, SQLITE_STATIC);
		if ((err = step(s)))
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
	if ((err = check_rows(s, "events", p->nr_events)) ||
	    (err = prepare(s, "INSERT INTO events VALUES(?,?,?,?,?,?,?)")))
		return err;
	for (i = 0; i < p->nr_events; i++) {
		const struct event_desc *ev = &p->events[i];

		if ((err = check_str(s, "events", i, ev->name)) ||
		    (err = check_str(s, "events", i, ev->asked)))
			return err;
		sqlite3_bind_int64(s->st, 1, (int64_t)i);
		bind_str(s->st, 2, ev->name);
		bind_str(s->st, 3, ev->asked);
		sqlite3_bind_int64(s->st, 4, ev->type);
		bind_u64(s->st, 5, ev->config);
		sqlite3_bind_int64(s->st, 6, ev->freq ? 1 : 0);
		bind_u64(s->st, 7, ev->sample);
		if ((err = step(s)))
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
	if ((err = check_rows(s, "runs", p->nr_runs)) ||
	    (err = prepare(s, "INSERT INTO runs VALUES(?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)")))
		return err;
	for (i = 0; i < p->nr_runs; i++) {
		const struct run *r = &p->runs[i];
		sqlite3_stmt *st = s->st;

		if ((err = check_count(s, "runs", i, r->samples)) ||
		    (err = check_count(s, "runs", i, r->lost)) ||
		    (err = check_count(s, "runs", i, r->throttled)))
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
		if ((err = step(s)))
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
	if ((err = check_rows(s, "counters", p->nr_counters)) ||
	    (err = prepare(s, "INSERT INTO counters VALUES(?,?,?,?,?,?,?)")))
		return err;
	for (i = 0; i < p->nr_counters; i++) {
		const struct counter *c = &p->counters[i];

		if ((err = check_run(s, "counters", i, c->run)) ||
		    (err = check_str(s, "counters", i, c->name))) {
			if (err < 0)
				return err;
			continue;
		}
		sqlite3_bind_int64(s->st, 1, (int64_t)i);
		sqlite3_bind_int64(s->st, 2, c->run);
		bind_str(s->st, 3, c->name);
		sqlite3_bind_int64(s->st, 4, c->supported ? 1 : 0);
		bind_u64(s->st, 5, c->value);
		bind_u64(s->st, 6, c->enabled);
		bind_u64(s->st, 7, c->running);
		if ((err = step(s)))
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
	if ((err = check_rows(s, "intervals", p->nr_intervals)) ||
	    (err = prepare(s, "INSERT INTO intervals VALUES(?,?,?,?,?,?,?)")))
		return err;
	for (i = 0; i < p->nr_intervals; i++) {
		const struct counter_interval *ci = &p->intervals[i];

		if ((err = check_run(s, "intervals", i, ci->run)) ||
		    (err = check_str(s, "intervals", i, ci->name))) {
			if (err < 0)
				return err;
			continue;
		}
		sqlite3_bind_int64(s->st, 1, (int64_t)i);
		sqlite3_bind_int64(s->st, 2, ci->run);
		bind_str(s->st, 3, ci->name);
		bind_u64(s->st, 4, ci->t_ns);
		bind_u64(s->st, 5, ci->value);
		bind_u64(s->st, 6, ci->enabled);
		bind_u64(s->st, 7, ci->running);
		if ((err = step(s)))
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
	if ((err = check_rows(s, "metrics", p->nr_metrics)) ||
	    (err = prepare(s, "INSERT INTO metrics VALUES(?,?,?,?)")))
		return err;
	for (i = 0; i < p->nr_metrics; i++) {
		const struct metric *m = &p->metrics[i];

		if ((err = check_run(s, "metrics", i, m->run)) ||
		    (err = check_str(s, "metrics", i, m->key))) {
			if (err < 0)
				return err;
			continue;
		}
		sqlite3_bind_int64(s->st, 1, (int64_t)i);
		sqlite3_bind_int64(s->st, 2, m->run);
		bind_str(s->st, 3, m->key);
		/* SQLite stores NaN as NULL; the reader maps NULL back to NaN */
		sqlite3_bind_double(s->st, 4, m->value);
		if ((err = step(s)))
			return err;
	}
	return 0;
}

static void put_be(unsigned char *b, uint64_t v, unsigned n)
{
	while (n--) {
		b[n] = (unsigned char)v;
		v >>= 8;
	}
}

/*
 * Format 3: a block's bytes as size (column col) and data (col + 1),
 * compressed as sqlar_compress() does: zlib when shorter, else as they
 * are, so that sqlar_uncompress(data, size) gives them back in the shell.
 */
static void bind_block(struct saver *s, int col, const unsigned char *raw, size_t len)
{
	uLongf zlen;

	if (s->zcap < compressBound(len)) {
		s->zcap = compressBound(len);
		s->zbuf = xrealloc(s->zbuf, s->zcap);
	}
	zlen = s->zcap;
	sqlite3_bind_int64(s->st, col, (int64_t)len);
	if (compress2(s->zbuf, &zlen, raw, len, Z_DEFAULT_COMPRESSION) == Z_OK && zlen < len)
		sqlite3_bind_blob(s->st, col + 1, s->zbuf, (int)zlen, SQLITE_STATIC);
	else
		sqlite3_bind_blob(s->st, col + 1, raw, (int)len, SQLITE_STATIC);
}

/*
 * A block of n records of width bytes from rec (record by record), laid
 * out field by field: fields[] are the widths of a record's fields, in
 * order (format 3's are the real fields, one of 20 bytes for its count
 * cells); NULL is a field per byte (format 4: byte by byte).
 */
static void lay_out(unsigned char *out, const unsigned char *rec, size_t n, size_t width,
		    const unsigned char *fields, size_t nr_fields)
{
	size_t f, j, w, off = 0, at = 0;

	for (f = 0; f < (fields ? nr_fields : width); f++, off += w) {
		w = fields ? fields[f] : 1;
		if (w == 1)
			for (j = 0; j < n; j++)
				out[at++] = rec[j * width + off];
		else
			for (j = 0; j < n; j++, at += w)
				memcpy(out + at, rec + j * width + off, w);
	}
}

static int check_frame(struct saver *s, size_t i)
{
	const struct frame *f = &s->p->frames[i];
	int err;

	if ((err = check_str(s, "frames", i, f->sym)) ||
	    (err = check_str(s, "frames", i, f->dso)) ||
	    (err = check_str(s, "frames", i, f->raw)))
		return err;
	return 0;
}

/* Formats 3 and 4: blocks of DATAFILE_FRAMES_PER_BLOCK frames (lay_out). */
static int write_frame_blocks(struct saver *s)
{
	static const unsigned char fields[] = DATAFILE_FRAME_FIELDS;
	const struct profile *p = s->p;
	unsigned char *b = xmalloc(DATAFILE_FRAMES_PER_BLOCK * DATAFILE_FRAME_SIZE);
	unsigned char *rec = xmalloc(DATAFILE_FRAMES_PER_BLOCK * DATAFILE_FRAME_SIZE);
	size_t i, j, n, blk;
	int err;

	s->droppable = false;	/* others refer to these rows */
	if ((err = check_rows(s, "frames", p->nr_frames)) ||
	    (err = prepare(s, "INSERT INTO frame_blocks VALUES(?,?,?)")))
		goto out;
	for (i = 0, blk = 0; i < p->nr_frames; i += n, blk++) {
		n = p->nr_frames - i < DATAFILE_FRAMES_PER_BLOCK ? p->nr_frames - i :
		    DATAFILE_FRAMES_PER_BLOCK;
		for (j = 0; j < n; j++) {
			const struct frame *f = &p->frames[i + j];
			unsigned char *r = rec + j * DATAFILE_FRAME_SIZE;

			if ((err = check_frame(s, i + j)))
				goto out;
			put_be(r, f->addr, 8);
			put_be(r + 8, f->sym_off, 8);
			put_be(r + 16, f->sym, 4);
			put_be(r + 20, f->dso, 4);
			put_be(r + 24, f->raw, 4);
			r[28] = (unsigned char)((f->kernel ? DATAFILE_FRAME_KERNEL : 0) |
						(f->inlined ? DATAFILE_FRAME_INLINED : 0));
		}
		if (s->version >= 4)
			lay_out(b, rec, n, DATAFILE_FRAME_SIZE, NULL, 0);
		else
			lay_out(b, rec, n, DATAFILE_FRAME_SIZE, fields, sizeof(fields));
		sqlite3_bind_int64(s->st, 1, (int64_t)blk);
		bind_block(s, 2, b, n * DATAFILE_FRAME_SIZE);
		if ((err = step(s)))
			goto out;
	}
out:
	free(rec);
	free(b);
	return err;
}

static int write_frames(struct saver *s)
{
	const struct profile *p = s->p;
	size_t i;
	int err;

	s->droppable = false;	/* others refer to these rows */
	if ((err = check_rows(s, "frames", p->nr_frames)) ||
	    (err = prepare(s, "INSERT INTO frames VALUES(?,?,?,?,?,?,?,?)")))
		return err;
	for (i = 0; i < p->nr_frames; i++) {
		const struct frame *f = &p->frames[i];

		if ((err = check_frame(s, i)))
			return err;
		sqlite3_bind_int64(s->st, 1, (int64_t)i);
		bind_u64(s->st, 2, f->addr);
		bind_u64(s->st, 3, f->sym_off);
		bind_str(s->st, 4, f->sym);
		bind_str(s->st, 5, f->dso);
		sqlite3_bind_int64(s->st, 6, f->kernel ? 1 : 0);
		if (f->inlined)
			sqlite3_bind_int64(s->st, 7, 1);
		else
			sqlite3_bind_null(s->st, 7);
		bind_str(s->st, 8, f->raw);
		if ((err = step(s)))
			return err;
	}
	return 0;
}

static int write_frame_files(struct saver *s)
{
	const struct profile *p = s->p;
	size_t i;
	int err;

	s->droppable = true;
	if ((err = check_rows(s, "frame_files", p->nr_frame_files)) ||
	    (err = prepare(s, "INSERT INTO frame_files VALUES(?,?,?,?)")))
		return err;
	for (i = 0; i < p->nr_frame_files; i++) {
		const struct frame_file *ff = &p->frame_files[i];

		if (ff->frame >= p->nr_frames ||
		    (ff->build_id[0] && strspn(ff->build_id, "0123456789abcdef") != strlen(ff->build_id))) {
			if ((err = bad(s, -EINVAL, "frame_files", i, ff->frame >= p->nr_frames ?
				       "frame %u does not exist" : "frame %u: the build-id is not hex",
				       ff->frame)) < 0)
				return err;
			continue;
		}
		if ((err = check_text(s, "frame_files", i, strlen(ff->build_id)))) {
			if (err < 0)
				return err;
			continue;
		}
		sqlite3_bind_int64(s->st, 1, (int64_t)i);
		sqlite3_bind_int64(s->st, 2, ff->frame);
		bind_u64(s->st, 3, ff->vaddr);
		if (ff->build_id[0])
			sqlite3_bind_text(s->st, 4, ff->build_id, -1, SQLITE_STATIC);
		else
			sqlite3_bind_null(s->st, 4);
		if ((err = step(s)))
			return err;
	}
	return 0;
}

static bool extra_eq(const void *ctx, uint32_t row, const void *key)
{
	return !strcmp(((const struct saver *)ctx)->extra[row], key);
}

static int ffrec_cmp(const void *a, const void *b)
{
	const struct ffrec *x = a, *y = b;

	return x->frame < y->frame ? -1 : x->frame > y->frame;
}

/*
 * Format 4, before the strings are written: one frame_files record per
 * frame, the first the profile gives it (the one mmprof resolve reads;
 * record repeats a frame for every process that sampled it, with the same
 * address), sorted by frame; a build-id becomes the id of an equal string
 * of the pool, or of one appended after it.
 */
static int plan_frame_files(struct saver *s)
{
	const struct profile *p = s->p;
	unsigned char *seen = xcalloc(p->nr_frames ? p->nr_frames : 1, 1);
	struct hashidx idx;
	size_t i;
	int err = 0;

	hashidx__init(&idx);
	s->droppable = true;	/* nothing refers to frame_files */
	s->ff = xmalloc((p->nr_frame_files ? p->nr_frame_files : 1) * sizeof(*s->ff));
	for (i = 0; i < p->nr_frame_files; i++) {
		const struct frame_file *ff = &p->frame_files[i];
		uint32_t bid = 0, row;
		uint64_t h;

		if (ff->frame >= p->nr_frames ||
		    (ff->build_id[0] && strspn(ff->build_id, "0123456789abcdef") != strlen(ff->build_id))) {
			/* salvage leaves the row out (bad() is 1), else it is an error */
			if ((err = bad(s, -EINVAL, "frame_files", i, ff->frame >= p->nr_frames ?
				       "frame %u does not exist" : "frame %u: the build-id is not hex",
				       ff->frame)) < 0)
				goto out;
			err = 0;
			continue;
		}
		if (seen[ff->frame])
			continue;
		seen[ff->frame] = 1;
		if (ff->build_id[0] && !(bid = profile__str_id(p, ff->build_id))) {
			h = hash__bytes(ff->build_id, strlen(ff->build_id));
			row = hashidx__find(&idx, h, extra_eq, s, ff->build_id);
			if (row == HASHIDX_NONE) {
				XGROW(s->extra, s->alloc_extra, s->nr_extra);
				s->extra[s->nr_extra] = ff->build_id;
				row = (uint32_t)s->nr_extra++;
				hashidx__insert(&idx, h, row);
			}
			bid = (uint32_t)(p->nr_strs + row);
		}
		s->ff[s->nr_ff++] = (struct ffrec){ .frame = ff->frame, .bid = bid, .vaddr = ff->vaddr };
	}
	qsort(s->ff, s->nr_ff, sizeof(*s->ff), ffrec_cmp);
out:
	hashidx__release(&idx);
	free(seen);
	return err;
}

/* Format 4: blocks of DATAFILE_FFILES_PER_BLOCK records, field by field. */
static int write_frame_file_blocks(struct saver *s)
{
	unsigned char *b = xmalloc(DATAFILE_FFILES_PER_BLOCK * DATAFILE_FFILE_SIZE);
	unsigned char *rec = xmalloc(DATAFILE_FFILES_PER_BLOCK * DATAFILE_FFILE_SIZE);
	int64_t prev = -1;	/* the first record's step is its frame + 1 */
	size_t i, j, n, blk;
	int err;

	if ((err = check_rows(s, "frame_files", s->nr_ff)) ||
	    (err = prepare(s, "INSERT INTO frame_file_blocks VALUES(?,?,?)")))
		goto out;
	for (i = 0, blk = 0; i < s->nr_ff; i += n, blk++) {
		n = s->nr_ff - i < DATAFILE_FFILES_PER_BLOCK ? s->nr_ff - i :
		    DATAFILE_FFILES_PER_BLOCK;
		for (j = 0; j < n; j++) {
			const struct ffrec *r = &s->ff[i + j];
			unsigned char *at = rec + j * DATAFILE_FFILE_SIZE;

			put_be(at, (uint64_t)((int64_t)r->frame - prev), 4);
			put_be(at + 4, r->vaddr, 8);
			put_be(at + 12, r->bid, 4);
			prev = r->frame;
		}
		lay_out(b, rec, n, DATAFILE_FFILE_SIZE, NULL, 0);
		sqlite3_bind_int64(s->st, 1, (int64_t)blk);
		bind_block(s, 2, b, n * DATAFILE_FFILE_SIZE);
		if ((err = step(s)))
			goto out;
	}
out:
	free(rec);
	free(b);
	return err;
}

static int check_node(struct saver *s, size_t i)
{
	const struct stack_node *n = &s->p->nodes[i];

	if (n->parent >= i)
		return bad(s, -EINVAL, "nodes", i, "parent %u does not precede the node", n->parent);
	if (n->depth > DATAFILE_MAX_DEPTH)
		return bad(s, -ERANGE, "nodes", i, "depth %u exceeds the limit of %u",
			   n->depth, DATAFILE_MAX_DEPTH);
	if (n->frame >= s->p->nr_frames)
		return bad(s, -EINVAL, "nodes", i, "frame %u does not exist", n->frame);
	return 0;
}

/*
 * Format 3: blocks of DATAFILE_NODES_PER_BLOCK nodes from node 1, each
 * node's id - parent (1 for most: a new stack's nodes are added caller
 * first, one after the other), then each node's frame.
 */
static int write_node_blocks(struct saver *s)
{
	static const unsigned char fields[] = DATAFILE_NODE_FIELDS;
	static const unsigned char fields_v4[] = DATAFILE_NODE_FIELDS_V4;
	const struct profile *p = s->p;
	unsigned char *b = xmalloc(DATAFILE_NODES_PER_BLOCK * DATAFILE_NODE_SIZE);
	unsigned char *rec = xmalloc(DATAFILE_NODES_PER_BLOCK * DATAFILE_NODE_SIZE);
	size_t i, j, n, blk;
	int err;

	s->droppable = false;	/* others refer to these rows */
	if ((err = check_rows(s, "nodes", p->nr_nodes)) ||
	    (err = prepare(s, "INSERT INTO node_blocks VALUES(?,?,?)")))
		goto out;
	for (i = 1, blk = 0; i < p->nr_nodes; i += n, blk++) {
		n = p->nr_nodes - i < DATAFILE_NODES_PER_BLOCK ? p->nr_nodes - i :
		    DATAFILE_NODES_PER_BLOCK;
		for (j = 0; j < n; j++) {
			if ((err = check_node(s, i + j)))
				goto out;
			put_be(rec + j * 8, i + j - p->nodes[i + j].parent, 4);
			put_be(rec + j * 8 + 4, p->nodes[i + j].frame, 4);
		}
		if (s->version >= 4)
			lay_out(b, rec, n, DATAFILE_NODE_SIZE, fields_v4, sizeof(fields_v4));
		else
			lay_out(b, rec, n, DATAFILE_NODE_SIZE, fields, sizeof(fields));
		sqlite3_bind_int64(s->st, 1, (int64_t)blk);
		bind_block(s, 2, b, n * DATAFILE_NODE_SIZE);
		if ((err = step(s)))
			goto out;
	}
out:
	free(rec);
	free(b);
	return err;
}

static int write_nodes(struct saver *s)
{
	const struct profile *p = s->p;
	size_t i;
	int err;

	s->droppable = false;	/* others refer to these rows */
	if ((err = check_rows(s, "nodes", p->nr_nodes)) ||
	    (err = prepare(s, "INSERT INTO nodes VALUES(?,?,?)")))
		return err;
	/* node 0, the root, is implicit */
	for (i = 1; i < p->nr_nodes; i++) {
		const struct stack_node *n = &p->nodes[i];

		if ((err = check_node(s, i)))
			return err;
		sqlite3_bind_int64(s->st, 1, (int64_t)i);
		sqlite3_bind_int64(s->st, 2, n->parent);
		sqlite3_bind_int64(s->st, 3, n->frame);
		if ((err = step(s)))
			return err;
	}
	return 0;
}

static int check_cell(struct saver *s, size_t i)
{
	const struct profile *p = s->p;
	const struct count *c = &p->counts[i];
	int err;

	if ((err = check_run(s, "counts", i, c->run)) ||
	    (err = check_str(s, "counts", i, c->comm)) ||
	    (err = check_count(s, "counts", i, c->samples)) ||
	    (err = check_count(s, "counts", i, c->period)))
		return err;
	if (c->event >= p->nr_events)
		return bad(s, -EINVAL, "counts", i, "event %u does not exist", c->event);
	if (c->node >= p->nr_nodes)
		return bad(s, -EINVAL, "counts", i, "node %u does not exist", c->node);
	if (c->pid > INT32_MAX)
		return bad(s, -EINVAL, "counts", i, "pid %u is out of range", c->pid);
	/* the reader's rule: all counts together below 2^63 (loadrows.c);
	 * each is below 2^63 and so is the sum so far: adding cannot wrap */
	if (s->sum_samples + c->samples > INT64_MAX || s->sum_period + c->period > INT64_MAX)
		return bad(s, -ERANGE, "counts", i, "the %s of all counts add up to 2^63 or more",
			   s->sum_samples + c->samples > INT64_MAX ? "samples" : "periods");
	s->sum_samples += c->samples;
	s->sum_period += c->period;
	return 0;
}

/* Format 1: a row per count. */
static int write_count_rows(struct saver *s)
{
	const struct profile *p = s->p;
	size_t i, row = 0;
	int err;

	if ((err = check_rows(s, "counts", p->nr_counts)) ||
	    (err = prepare(s, "INSERT INTO counts VALUES(?,?,?,?,?,?,?,?)")))
		return err;
	s->droppable = true;
	for (i = 0; i < p->nr_counts; i++) {
		const struct count *c = &p->counts[i];

		if ((err = check_cell(s, i))) {
			if (err < 0)
				return err;
			continue;
		}
		sqlite3_bind_int64(s->st, 1, (int64_t)row++);
		sqlite3_bind_int64(s->st, 2, c->run);
		sqlite3_bind_int64(s->st, 3, c->event);
		bind_str(s->st, 4, c->comm);
		sqlite3_bind_int64(s->st, 5, c->pid);
		sqlite3_bind_int64(s->st, 6, c->node);
		sqlite3_bind_int64(s->st, 7, (int64_t)c->samples);
		sqlite3_bind_int64(s->st, 8, (int64_t)c->period);
		if ((err = step(s)))
			return err;
	}
	return 0;
}

/* By (run, event, comm, pid), the key of a row; by node within it. */
static int count_order(const void *a, const void *b, void *counts)
{
	const struct count *c = counts;

	return count__cmp(&c[*(const uint32_t *)a], &c[*(const uint32_t *)b]);
}

static bool same_row(const struct count *x, const struct count *y)
{
	return x->run == y->run && x->event == y->event && x->comm == y->comm && x->pid == y->pid;
}

/*
 * Formats 2 to 4: the counts sorted by their row key and node, each key's
 * in blocks of at most DATAFILE_CELLS_WRITTEN cells (compressed from 3).  Sorting costs a
 * fraction of the save; readers then get the cells of a run together.
 */
static int write_count_cells(struct saver *s)
{
	const struct profile *p = s->p;
	uint32_t *order = xmalloc((p->nr_counts ? p->nr_counts : 1) * sizeof(*order));
	static const unsigned char fields[] = { DATAFILE_CELL_SIZE };
	unsigned char *cells = xmalloc(DATAFILE_CELLS_WRITTEN * DATAFILE_CELL_SIZE);
	unsigned char *b = xmalloc(DATAFILE_CELLS_WRITTEN * DATAFILE_CELL_SIZE);
	size_t i, j, n, nr = 0, row = 0;
	int err;

	s->droppable = true;
	if ((err = check_rows(s, "counts", p->nr_counts)) ||
	    (err = prepare(s, s->version == 2 ? "INSERT INTO stack_counts VALUES(?,?,?,?,?,?)" :
				"INSERT INTO stack_counts VALUES(?,?,?,?,?,?,?)")))
		goto out;
	for (i = 0; i < p->nr_counts; i++) {
		if ((err = check_cell(s, i)) < 0)
			goto out;
		if (!err)
			order[nr++] = (uint32_t)i;
	}
	err = 0;
	qsort_r(order, nr, sizeof(*order), count_order, p->counts);
	for (i = 0; i < nr; i = j, row++) {
		const struct count *c = &p->counts[order[i]];
		uint32_t prev = 0;	/* format 4: a node is the step from the cell before */

		for (j = i, n = 0; j < nr && n < DATAFILE_CELLS_WRITTEN &&
		     same_row(c, &p->counts[order[j]]); j++, n++) {
			const struct count *x = &p->counts[order[j]];
			unsigned char *r = cells + n * DATAFILE_CELL_SIZE;

			put_be(r, s->version >= 4 ? x->node - prev : x->node, 4);
			put_be(r + 4, x->samples, 8);
			put_be(r + 12, x->period, 8);
			prev = x->node;
		}
		sqlite3_bind_int64(s->st, 1, (int64_t)row);
		sqlite3_bind_int64(s->st, 2, c->run);
		sqlite3_bind_int64(s->st, 3, c->event);
		bind_str(s->st, 4, c->comm);
		sqlite3_bind_int64(s->st, 5, c->pid);
		if (s->version == 2)
			sqlite3_bind_blob(s->st, 6, cells, (int)(n * DATAFILE_CELL_SIZE), SQLITE_STATIC);
		else {
			lay_out(b, cells, n, DATAFILE_CELL_SIZE, fields, sizeof(fields));
			bind_block(s, 6, b, n * DATAFILE_CELL_SIZE);
		}
		if ((err = step(s)))
			goto out;
	}
out:
	free(b);
	free(cells);
	free(order);
	return err;
}

static int write_db(struct saver *s)
{
	const char *const *part;
	char sql[128];
	int err;

	/* No journal, no syncs: the temporary has nothing to protect, and
	 * one fsync of the finished file replaces them all. */
	if ((err = exec(s, "PRAGMA journal_mode=OFF; PRAGMA synchronous=OFF;"
			   "PRAGMA locking_mode=EXCLUSIVE; PRAGMA cache_size=-16384")))
		return err;
	snprintf(sql, sizeof(sql), "PRAGMA application_id=%d; PRAGMA user_version=%d",
		 (int)DATAFILE_APP_ID, s->version);
	if ((err = exec(s, sql)) || (err = exec(s, "BEGIN")))
		return err;
	for (part = datafile_schema_parts(s->version); *part; part++)
		if ((err = exec(s, *part)))
			return err;
	if (s->version >= 4 && (err = plan_frame_files(s)))
		return err;
	if ((err = write_meta(s)) || (err = write_strings(s)) ||
	    (err = write_events(s)) || (err = write_runs(s)) ||
	    (err = write_counters(s)) || (err = write_intervals(s)) ||
	    (err = write_metrics(s)) ||
	    (err = s->version < 3 ? write_frames(s) : write_frame_blocks(s)) ||
	    (err = s->version < 4 ? write_frame_files(s) : write_frame_file_blocks(s)) ||
	    (err = s->version < 3 ? write_nodes(s) : write_node_blocks(s)) ||
	    (err = s->version == 1 ? write_count_rows(s) : write_count_cells(s)) ||
	    (err = write_dropped(s)))
		return err;
	sqlite3_finalize(s->st);
	s->st = NULL;
	if ((err = exec(s, datafile_index_sql(s->version))))
		return err;
	return exec(s, "COMMIT");
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

int datafile__save(const struct profile *p, const char *path, struct errmsg *e)
{
	return datafile__save_version(p, path, PROFILE_FORMAT_VERSION, e);
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
	struct saver s = { .p = p, .version = PROFILE_FORMAT_VERSION, .path = path, .e = e,
			   .salvage = true };
	struct profile flat;
	const char *why_rows;
	int err;

	*dropped = 0;
	err = save(&s);
	if (err == -EINVAL || err == -ERANGE) {
		/* a table others refer to breaks a rule: keep what needs no stack */
		flat = *p;
		flat.nr_frames = flat.nr_frame_files = flat.nr_counts = 0;
		flat.nr_nodes = 1;
		s = (struct saver){ .p = &flat, .version = PROFILE_FORMAT_VERSION, .path = path,
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

	if ((err = outfile__check_target(path, e)))
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
		err = sql_fail(&s, rc, "cannot open the temporary file");
		goto out_unlink;
	}
	err = write_db(&s);
	sqlite3_finalize(s.st);
	s.st = NULL;
	free(s.zbuf);
	s.zbuf = NULL;
	free(s.ff);
	s.ff = NULL;
	free(s.extra);
	s.extra = NULL;
	if (err)
		goto out_unlink;
	rc = sqlite3_close(s.db);
	s.db = NULL;
	if (rc != SQLITE_OK) {
		err = sql_fail(&s, rc, "cannot close the database");
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
		err = errno == ENOSPC ? sql_fail(&s, SQLITE_FULL, "") :
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
	size_t dropped;
	int err;

	warn->msg[0] = '\0';
	err = datafile__save(p, path, e);
	if (err == -EINVAL || err == -ERANGE)
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
