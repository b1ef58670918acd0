/*
 * datafile loadrows: step 3 of datafile__load (see load.c's opening
 * comment for the order of defences): every table read in id order, each
 * value through a typed, bounded getter, ids dense, references in range,
 * file ids mapped to the model's interned ones, and a hostile file's
 * repeated trie edges or count cells merged as the model would.  The
 * getters are static here, next to their callers, because they run once
 * per cell (10 M cells in a large file) and must inline.
 */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <sqlite3.h>
#include <zlib.h>

#include "mmprof/datafile.h"
#include "mmprof/xalloc.h"
#include "loader.h"
#include "schema.h"

/* The file is not what it claims: one line naming the table and row. */
static int bad_row(struct loader *l, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
static int bad_row(struct loader *l, const char *fmt, ...)
{
	char what[256];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(what, sizeof(what), fmt, ap);
	va_end(ap);
	return errmsg__set(l->e, -EPROTO, "cannot load '%s': inconsistent data file: %s row %lld: %s",
			   l->path, l->table, (long long)l->row, what);
}

static const char *type_name(int t)
{
	switch (t) {
	case SQLITE_INTEGER: return "an integer";
	case SQLITE_FLOAT:   return "a real";
	case SQLITE_TEXT:    return "text";
	case SQLITE_BLOB:    return "a blob";
	default:             return "null";
	}
}

static int prepare(struct loader *l, const char *table, const char *sql)
{
	int rc;

	sqlite3_finalize(l->st);
	l->st = NULL;
	l->table = table;
	l->row = -1;
	l->nr_rows = 0;
	rc = sqlite3_prepare_v2(l->db, sql, -1, &l->st, NULL);
	return rc == SQLITE_OK ? 0 : loader__sql_fail(l, rc);
}

/*
 * Type and value through one sqlite3_column_value: a column_type plus a
 * column_int64 per cell cost a tenth of a diff in API entry and exit
 * alone (10 M cells per large file).  The value is unprotected, which only
 * matters to threads sharing the connection; a loader's is its own.
 */
static int get_i64(struct loader *l, int col, int64_t *v)
{
	sqlite3_value *x = sqlite3_column_value(l->st, col);
	int t = sqlite3_value_type(x);

	if (t != SQLITE_INTEGER)
		return bad_row(l, "%s is %s, not an integer", sqlite3_column_name(l->st, col),
			       type_name(t));
	*v = sqlite3_value_int64(x);
	return 0;
}

/* 1 with a row, 0 at the end, or -errno.  Rows must come with dense ids. */
static int next_row(struct loader *l, int64_t first_id)
{
	int rc = sqlite3_step(l->st);
	int64_t id;

	if (rc == SQLITE_DONE)
		return 0;
	if (rc != SQLITE_ROW)
		return loader__sql_fail(l, rc);
	l->row = first_id + (int64_t)l->nr_rows;
	if (++l->nr_rows > DATAFILE_MAX_ROWS)
		return bad_row(l, "more than %u rows", DATAFILE_MAX_ROWS);
	if ((rc = get_i64(l, 0, &id)))
		return rc;
	if (id != l->row)
		return bad_row(l, "%s %lld where %lld was expected (ids must be dense)",
			       sqlite3_column_name(l->st, 0), (long long)id, (long long)l->row);
	return 1;
}

static int get_range(struct loader *l, int col, int64_t lo, int64_t hi, int64_t *v)
{
	int err = get_i64(l, col, v);

	if (!err && (*v < lo || *v > hi))
		return bad_row(l, "%s %lld is out of range %lld..%lld",
			       sqlite3_column_name(l->st, col), (long long)*v, (long long)lo,
			       (long long)hi);
	return err;
}

/* Unsigned 64-bit values are stored as the INTEGER with the same bits. */
static int get_u64(struct loader *l, int col, uint64_t *v)
{
	int64_t i;
	int err = get_i64(l, col, &i);

	if (!err)
		memcpy(v, &i, sizeof(*v));
	return err;
}

/* A count: non-negative, below 2^63. */
static int get_count(struct loader *l, int col, uint64_t *v)
{
	int64_t i;
	int err = get_i64(l, col, &i);

	if (err)
		return err;
	if (i < 0)
		return bad_row(l, "%s %lld is negative", sqlite3_column_name(l->st, col),
			       (long long)i);
	*v = (uint64_t)i;
	return 0;
}

static int get_u32(struct loader *l, int col, uint32_t *v)
{
	int64_t i;
	int err = get_range(l, col, 0, UINT32_MAX, &i);

	if (!err)
		*v = (uint32_t)i;
	return err;
}

static int get_i32(struct loader *l, int col, int32_t *v)
{
	int64_t i;
	int err = get_range(l, col, INT32_MIN, INT32_MAX, &i);

	if (!err)
		*v = (int32_t)i;
	return err;
}

static int get_bool(struct loader *l, int col, uint8_t *v)
{
	int64_t i;
	int err = get_range(l, col, 0, 1, &i);

	if (!err)
		*v = (uint8_t)i;
	return err;
}

/* An index into a table already read: 0 <= v < n. */
static int get_ref(struct loader *l, int col, size_t n, const char *what, uint32_t *v)
{
	int64_t i;
	int err = get_i64(l, col, &i);

	if (err)
		return err;
	if (i < 0 || (uint64_t)i >= n)
		return bad_row(l, "%s %lld does not exist (%zu %s)", sqlite3_column_name(l->st, col),
			       (long long)i, n, what);
	*v = (uint32_t)i;
	return 0;
}

/* A string reference: NULL is "no string" (0), else a strings.id. */
static int get_str(struct loader *l, int col, uint32_t *v)
{
	uint32_t id;
	int err;

	if (sqlite3_value_type(sqlite3_column_value(l->st, col)) == SQLITE_NULL) {
		*v = 0;
		return 0;
	}
	err = get_ref(l, col, l->nr_strs, "strings", &id);
	if (err)
		return err;
	if (id == 0)
		return bad_row(l, "%s is 0; \"no string\" is stored as NULL",
			       sqlite3_column_name(l->st, col));
	*v = l->strmap[id];
	return 0;
}

/* Inline TEXT: bounded, no NUL inside (the model's strings are C strings). */
static int get_text(struct loader *l, int col, bool null_ok, const char **s, size_t *len)
{
	int t = sqlite3_column_type(l->st, col);
	const unsigned char *txt;
	int n;

	if (t == SQLITE_NULL && null_ok) {
		*s = NULL;
		*len = 0;
		return 0;
	}
	if (t != SQLITE_TEXT)
		return bad_row(l, "%s is %s, not text", sqlite3_column_name(l->st, col), type_name(t));
	txt = sqlite3_column_text(l->st, col);
	n = sqlite3_column_bytes(l->st, col);
	if (!txt)
		return loader__sql_fail(l, SQLITE_NOMEM);
	if (n < 0 || (unsigned)n > DATAFILE_MAX_STR)
		return bad_row(l, "%s is longer than %u bytes", sqlite3_column_name(l->st, col),
			       DATAFILE_MAX_STR);
	l->str_bytes += (unsigned)n;
	if (l->str_bytes > DATAFILE_MAX_STR_TOTAL)
		return bad_row(l, "strings total more than %llu bytes", DATAFILE_MAX_STR_TOTAL);
	if (strlen((const char *)txt) != (size_t)n)
		return bad_row(l, "%s contains a NUL byte", sqlite3_column_name(l->st, col));
	*s = (const char *)txt;
	*len = (size_t)n;
	return 0;
}

/*
 * Format 3: a block (its unpacked size in column col, its bytes in col +
 * 1), unpacked as sqlar_uncompress() does: the bytes as they are when
 * there are size of them, else zlib's.  size must be a whole number of
 * rec-byte records, at most max of them (*nr); all blocks together may
 * unpack to at most DATAFILE_MAX_INFLATE times the file's size (and a
 * MiB), so that memory stays a small multiple of the file's.  *out is
 * valid until the next row.
 */
static int get_block(struct loader *l, int col, size_t rec, size_t max,
		     const unsigned char **out, size_t *nr)
{
	sqlite3_value *x = sqlite3_column_value(l->st, col + 1);
	const unsigned char *b;
	int64_t size;
	size_t len;
	uLongf got;
	int t, err;

	if ((err = get_range(l, col, 0, (int64_t)(rec * max), &size)))
		return err;
	if ((size_t)size % rec)
		return bad_row(l, "size %lld is not a whole number of %zu-byte records",
			       (long long)size, rec);
	if ((t = sqlite3_value_type(x)) != SQLITE_BLOB)
		return bad_row(l, "%s is %s, not a blob", sqlite3_column_name(l->st, col + 1),
			       type_name(t));
	len = (size_t)sqlite3_value_bytes(x);
	b = sqlite3_value_blob(x);
	l->inflated += (unsigned long long)size;
	if (l->inflated > DATAFILE_MAX_INFLATE * l->file_size + (1u << 20))
		return bad_row(l, "the blocks unpack to more than %u times the file's size",
			       DATAFILE_MAX_INFLATE);
	if (l->inflated > DATAFILE_MAX_UNPACKED)	/* sizes the first check did not see */
		return bad_row(l, "the blocks unpack to more than %u MiB", DATAFILE_MAX_UNPACKED >> 20);
	*nr = (size_t)size / rec;
	if (len == (size_t)size) {
		*out = b;
		return 0;
	}
	if (len > (size_t)size || !b)
		return bad_row(l, "%s holds %zu bytes, more than its size %lld",
			       sqlite3_column_name(l->st, col + 1), len, (long long)size);
	if (l->alloc_block < (size_t)size) {
		l->block = xrealloc(l->block, (size_t)size);
		l->alloc_block = (size_t)size;
	}
	got = (uLongf)size;
	if (uncompress(l->block, &got, b, len) != Z_OK || got != (uLongf)size)
		return bad_row(l, "%s does not unpack to its size %lld",
			       sqlite3_column_name(l->st, col + 1), (long long)size);
	*out = l->block;
	return 0;
}

/* Format 3: is this block full, as every block but a table's last must be? */
static int check_full(struct loader *l, bool *last_seen, size_t n, size_t per_block)
{
	if (*last_seen)
		return bad_row(l, "a block follows one that is not full (every block but the last holds %zu records)",
			       per_block);
	if (!n)
		return bad_row(l, "the block is empty");
	*last_seen = n < per_block;
	return 0;
}

static int load_strings(struct loader *l)
{
	const char *s;
	size_t len;
	int err, r;

	if ((err = prepare(l, "strings", "SELECT id, s FROM strings ORDER BY id")))
		return err;
	XGROW(l->strmap, l->alloc_strmap, 0);
	l->strmap[0] = 0;
	l->nr_strs = 1;
	while ((r = next_row(l, 1)) > 0) {
		if ((err = get_text(l, 1, false, &s, &len)))
			return err;
		XGROW(l->strmap, l->alloc_strmap, l->nr_strs);
		l->strmap[l->nr_strs++] = profile__intern_len(l->p, s, len);
	}
	return r;
}

static int load_meta(struct loader *l)
{
	const char *k, *v;
	size_t klen, vlen;
	int err, r, seen_version = 0;

	if ((err = prepare(l, "meta", "SELECT seq, key, value FROM meta ORDER BY seq")))
		return err;
	while ((r = next_row(l, 0)) > 0) {
		if (l->nr_rows > DATAFILE_MAX_META)
			return bad_row(l, "more than %u meta keys", DATAFILE_MAX_META);
		if ((err = get_text(l, 1, false, &k, &klen)) ||
		    (err = get_text(l, 2, true, &v, &vlen)))
			return err;
		if (!strcmp(k, DATAFILE_META_FORMAT)) {
			char want[16];

			snprintf(want, sizeof(want), "%d", l->version);
			if (!v || strcmp(v, want))
				return bad_row(l, "format_version '%.20s' disagrees with user_version %d",
					       v ? v : "(null)", l->version);
			seen_version++;
			continue;
		}
		profile__set_meta(l->p, k, v);
	}
	if (r < 0)
		return r;
	if (seen_version != 1)
		return errmsg__set(l->e, -EPROTO,
				   "cannot load '%s': inconsistent data file: meta has %d format_version rows, not 1",
				   l->path, seen_version);
	return 0;
}

static int load_events(struct loader *l)
{
	int err, r;

	if ((err = prepare(l, "events",
			   "SELECT id, name, asked, type, config, freq, sample FROM events ORDER BY id")))
		return err;
	while ((r = next_row(l, 0)) > 0) {
		struct event_desc ev;

		if (l->nr_rows > DATAFILE_MAX_EVENTS)
			return bad_row(l, "more than %u sampling events", DATAFILE_MAX_EVENTS);
		if ((err = get_str(l, 1, &ev.name)) || (err = get_str(l, 2, &ev.asked)) ||
		    (err = get_u32(l, 3, &ev.type)) || (err = get_u64(l, 4, &ev.config)) ||
		    (err = get_bool(l, 5, &ev.freq)) || (err = get_u64(l, 6, &ev.sample)))
			return err;
		profile__add_event(l->p, &ev);
		l->nr_events++;
	}
	return r;
}

static int load_runs(struct loader *l)
{
	int err, r;

	if ((err = prepare(l, "runs",
			   "SELECT id, start_ns, wall_ns, exit_code, term_signal, utime_us, stime_us,"
			   " maxrss_kb, minflt, majflt, nvcsw, nivcsw, samples, lost, throttled"
			   " FROM runs ORDER BY id")))
		return err;
	while ((r = next_row(l, 0)) > 0) {
		struct run ru;

		if (l->nr_rows > DATAFILE_MAX_RUNS)
			return bad_row(l, "more than %u runs", DATAFILE_MAX_RUNS);
		if ((err = get_i64(l, 1, &ru.start_ns)) || (err = get_i64(l, 2, &ru.wall_ns)) ||
		    (err = get_i32(l, 3, &ru.exit_code)) || (err = get_i32(l, 4, &ru.term_signal)) ||
		    (err = get_i64(l, 5, &ru.utime_us)) || (err = get_i64(l, 6, &ru.stime_us)) ||
		    (err = get_i64(l, 7, &ru.maxrss_kb)) || (err = get_i64(l, 8, &ru.minflt)) ||
		    (err = get_i64(l, 9, &ru.majflt)) || (err = get_i64(l, 10, &ru.nvcsw)) ||
		    (err = get_i64(l, 11, &ru.nivcsw)) || (err = get_count(l, 12, &ru.samples)) ||
		    (err = get_count(l, 13, &ru.lost)) || (err = get_count(l, 14, &ru.throttled)))
			return err;
		profile__add_run(l->p, &ru);
		l->nr_runs++;
	}
	return r;
}

static int load_counters(struct loader *l)
{
	int err, r;

	if ((err = prepare(l, "counters",
			   "SELECT id, run, name, supported, value, enabled, running"
			   " FROM counters ORDER BY id")))
		return err;
	while ((r = next_row(l, 0)) > 0) {
		struct counter c;

		if ((err = get_ref(l, 1, l->nr_runs, "runs", &c.run)) ||
		    (err = get_str(l, 2, &c.name)) || (err = get_bool(l, 3, &c.supported)) ||
		    (err = get_u64(l, 4, &c.value)) || (err = get_u64(l, 5, &c.enabled)) ||
		    (err = get_u64(l, 6, &c.running)))
			return err;
		profile__add_counter(l->p, &c);
	}
	return r;
}

static int load_intervals(struct loader *l)
{
	int err, r;

	if ((err = prepare(l, "intervals",
			   "SELECT id, run, name, t_ns, value, enabled, running"
			   " FROM intervals ORDER BY id")))
		return err;
	while ((r = next_row(l, 0)) > 0) {
		struct counter_interval ci;

		if ((err = get_ref(l, 1, l->nr_runs, "runs", &ci.run)) ||
		    (err = get_str(l, 2, &ci.name)) || (err = get_u64(l, 3, &ci.t_ns)) ||
		    (err = get_u64(l, 4, &ci.value)) || (err = get_u64(l, 5, &ci.enabled)) ||
		    (err = get_u64(l, 6, &ci.running)))
			return err;
		profile__add_interval(l->p, &ci);
	}
	return r;
}

static int load_metrics(struct loader *l)
{
	int err, r;

	if ((err = prepare(l, "metrics", "SELECT id, run, key, value FROM metrics ORDER BY id")))
		return err;
	while ((r = next_row(l, 0)) > 0) {
		uint32_t run, key;
		double v;
		int t;

		if ((err = get_ref(l, 1, l->nr_runs, "runs", &run)) || (err = get_str(l, 2, &key)))
			return err;
		t = sqlite3_column_type(l->st, 3);
		if (t == SQLITE_NULL)
			v = NAN;	/* SQLite stores NaN as NULL */
		else if (t == SQLITE_FLOAT || t == SQLITE_INTEGER)
			v = sqlite3_column_double(l->st, 3);
		else
			return bad_row(l, "value is %s, not a number", type_name(t));
		profile__add_metric(l->p, run, profile__str(l->p, key), v);
	}
	return r;
}

/* Does frames have this nullable column (files written before it do not)? */
static bool frames_have(struct loader *l, const char *column)
{
	sqlite3_stmt *st = NULL;
	bool yes;

	if (sqlite3_prepare_v2(l->db, "SELECT 1 FROM pragma_table_info('frames') "
				      "WHERE name = ?1", -1, &st, NULL) != SQLITE_OK)
		return false;
	sqlite3_bind_text(st, 1, column, -1, SQLITE_STATIC);
	yes = sqlite3_step(st) == SQLITE_ROW;
	sqlite3_finalize(st);
	return yes;
}

static int load_frames(struct loader *l)
{
	char sql[160];
	int err, r;

	snprintf(sql, sizeof(sql), "SELECT id, addr, sym_off, sym, dso, kernel, %s, %s "
		 "FROM frames ORDER BY id", frames_have(l, "inlined") ? "inlined" : "NULL",
		 frames_have(l, "raw") ? "raw" : "NULL");
	if ((err = prepare(l, "frames", sql)))
		return err;
	while ((r = next_row(l, 0)) > 0) {
		struct frame f = { 0 };

		if ((err = get_u64(l, 1, &f.addr)) || (err = get_u64(l, 2, &f.sym_off)) ||
		    (err = get_str(l, 3, &f.sym)) || (err = get_str(l, 4, &f.dso)) ||
		    (err = get_bool(l, 5, &f.kernel)) ||
		    (sqlite3_column_type(l->st, 6) != SQLITE_NULL && (err = get_bool(l, 6, &f.inlined))) ||
		    (err = get_str(l, 7, &f.raw)))
			return err;
		XGROW(l->framemap, l->alloc_framemap, l->nr_frames);
		l->framemap[l->nr_frames++] = profile__frame(l->p, &f);
	}
	return r;
}

static uint64_t be64(const unsigned char *b)
{
	return (uint64_t)be32(b) << 32 | be32(b + 4);
}

/*
 * A field of record j of a block of n records: its w bytes from byte
 * column at (the sum of the widths of the fields before it), laid out
 * field by field (format 3: b + at * n + j * w) or byte by byte (format 4:
 * the k-th byte at b + (at + k) * n + j).  Read in place, without copying
 * the block into records: a million cells are 20 million bytes.
 */
static inline uint64_t by_field(const unsigned char *b, size_t n, size_t j, size_t at, unsigned w)
{
	const unsigned char *p = b + at * n + j * w;
	uint64_t v = 0;

	while (w--)
		v = v << 8 | *p++;
	return v;
}

static inline uint64_t by_byte(const unsigned char *b, size_t n, size_t j, size_t at, unsigned w)
{
	const unsigned char *p = b + at * n + j;
	uint64_t v = 0;

	while (w--) {
		v = v << 8 | *p;
		p += n;
	}
	return v;
}

static inline uint64_t block_field(bool bytewise, const unsigned char *b, size_t n, size_t j,
				   size_t at, unsigned w)
{
	return bytewise ? by_byte(b, n, j, at, w) : by_field(b, n, j, at, w);
}

/* A string id inside a block: 0 is "no string", else a strings.id. */
static int block_str(struct loader *l, uint32_t id, const char *what, size_t rec, uint32_t *v)
{
	if (id >= l->nr_strs)
		return bad_row(l, "record %zu: %s %u does not exist (%zu strings)", rec, what, id,
			       l->nr_strs);
	*v = l->strmap[id];
	return 0;
}

/* Formats 3 and 4: frames in blocks (schema.h). */
static int load_frame_blocks(struct loader *l)
{
	bool last_seen = false, bw = l->version >= 4;
	int err, r;

	if ((err = prepare(l, "frame_blocks", "SELECT id, size, data FROM frame_blocks ORDER BY id")))
		return err;
	while ((r = next_row(l, 0)) > 0) {
		const unsigned char *b;
		size_t n, j;

		if ((err = get_block(l, 1, DATAFILE_FRAME_SIZE, DATAFILE_FRAMES_PER_BLOCK, &b, &n)) ||
		    (err = check_full(l, &last_seen, n, DATAFILE_FRAMES_PER_BLOCK)))
			return err;
		for (j = 0; j < n; j++) {
			struct frame f = { .addr = block_field(bw, b, n, j, 0, 8),
					   .sym_off = block_field(bw, b, n, j, 8, 8) };
			unsigned flags = b[n * 28 + j];

			if ((err = block_str(l, (uint32_t)block_field(bw, b, n, j, 16, 4), "sym", j, &f.sym)) ||
			    (err = block_str(l, (uint32_t)block_field(bw, b, n, j, 20, 4), "dso", j, &f.dso)) ||
			    (err = block_str(l, (uint32_t)block_field(bw, b, n, j, 24, 4), "raw", j, &f.raw)))
				return err;
			if (flags & ~(DATAFILE_FRAME_KERNEL | DATAFILE_FRAME_INLINED))
				return bad_row(l, "record %zu: flags %#x are not kernel (1) and inlined (2)",
					       j, flags);
			f.kernel = !!(flags & DATAFILE_FRAME_KERNEL);
			f.inlined = !!(flags & DATAFILE_FRAME_INLINED);
			if (l->nr_frames >= DATAFILE_MAX_ROWS)
				return bad_row(l, "more than %u frames", DATAFILE_MAX_ROWS);
			XGROW(l->framemap, l->alloc_framemap, l->nr_frames);
			l->framemap[l->nr_frames++] = profile__frame(l->p, &f);
		}
	}
	return r;
}

/* A build-id as frame_files holds it: lower-case hex, at most PROFILE_BUILD_ID_MAX digits. */
static bool is_build_id(const char *s, size_t len)
{
	return len <= PROFILE_BUILD_ID_MAX && strspn(s, "0123456789abcdef") == len;
}

/*
 * The optional frame_files (load.c checked its columns when present):
 * where unresolved user frames lie in their files, for mmprof resolve.
 * A build-id is hex of at most PROFILE_BUILD_ID_MAX digits.
 */
static int load_frame_files(struct loader *l)
{
	int err, r;

	if (!l->has_frame_files)
		return 0;
	if ((err = prepare(l, "frame_files",
			   "SELECT id, frame, vaddr, build_id FROM frame_files ORDER BY id")))
		return err;
	while ((r = next_row(l, 0)) > 0) {
		const char *bid;
		uint32_t frame;
		uint64_t vaddr;
		size_t len;

		if ((err = get_ref(l, 1, l->nr_frames, "frames", &frame)) ||
		    (err = get_u64(l, 2, &vaddr)) || (err = get_text(l, 3, true, &bid, &len)))
			return err;
		if (bid && !is_build_id(bid, len))
			return bad_row(l, "build_id is not a build-id (hex, at most %d digits)",
				       PROFILE_BUILD_ID_MAX);
		profile__add_frame_file(l->p, l->framemap[frame], vaddr, bid);
	}
	return r;
}

/*
 * Format 4: frame_files in blocks (schema.h), a record per frame in frame
 * order, each frame the one before plus a step of at least 1.
 */
static int load_frame_file_blocks(struct loader *l)
{
	bool last_seen = false;
	int64_t prev = -1;
	int err, r;

	if ((err = prepare(l, "frame_file_blocks",
			   "SELECT id, size, data FROM frame_file_blocks ORDER BY id")))
		return err;
	while ((r = next_row(l, 0)) > 0) {
		const unsigned char *b;
		size_t n, j;

		if ((err = get_block(l, 1, DATAFILE_FFILE_SIZE, DATAFILE_FFILES_PER_BLOCK, &b, &n)) ||
		    (err = check_full(l, &last_seen, n, DATAFILE_FFILES_PER_BLOCK)))
			return err;
		for (j = 0; j < n; j++) {
			uint32_t step = (uint32_t)by_byte(b, n, j, 0, 4), bid = 0;
			uint64_t vaddr = by_byte(b, n, j, 4, 8);
			int64_t frame = prev + step;
			const char *s;

			if (!step || frame >= (int64_t)l->nr_frames)
				return bad_row(l, "record %zu: frame %lld does not exist after frame %lld (%zu frames; one record per frame, in order)",
					       j, (long long)frame, (long long)prev, l->nr_frames);
			if ((err = block_str(l, (uint32_t)by_byte(b, n, j, 12, 4), "build_id", j, &bid)))
				return err;
			s = profile__str(l->p, bid);
			if (s && !is_build_id(s, strlen(s)))
				return bad_row(l, "record %zu: build_id is not a build-id (hex, at most %d digits)",
					       j, PROFILE_BUILD_ID_MAX);
			profile__add_frame_file(l->p, l->framemap[frame], vaddr, s);
			prev = frame;
		}
	}
	return r;
}

/*
 * Are the trie's edges (parent, frame) all different?  A file written by
 * save always has them so, and proving it by hashing half a million edges
 * cost a tenth of a report.  Group the children by parent (counting sort;
 * nodes[] is in id order, so every group comes out in id order), then
 * compare frames within each group: pairwise when small, sorted when a
 * hostile file gives one parent many children.
 */
static int u32_cmp(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return x < y ? -1 : x > y;
}

static bool edges_distinct(const struct profile *p)
{
	size_t n = p->nr_nodes, i, j, k;
	uint32_t *start = xcalloc(n + 1, sizeof(*start));
	uint32_t *frames = xmalloc(n * sizeof(*frames));
	bool ok = true;

	for (i = 1; i < n; i++)
		start[p->nodes[i].parent + 1]++;
	for (i = 0; i < n; i++)
		start[i + 1] += start[i];
	for (i = 1; i < n; i++)
		frames[start[p->nodes[i].parent]++] = p->nodes[i].frame;
	/* start[x] is now the end of x's children, the start of x + 1's */
	for (i = 0, j = 0; ok && i < n; i++) {
		size_t end = start[i], len = end - j;

		if (len > 32) {
			qsort(frames + j, len, sizeof(*frames), u32_cmp);
			for (k = j + 1; ok && k < end; k++)
				ok = frames[k - 1] != frames[k];
		} else {
			for (k = j; ok && k < end; k++) {
				size_t m;

				for (m = k + 1; ok && m < end; m++)
					ok = frames[k] != frames[m];
			}
		}
		j = end;
	}
	free(frames);
	free(start);
	return ok;
}

/*
 * A hostile file repeats an edge (or two of its frames collapsed into one):
 * intern the nodes again, as profile__node does, and map the file's ids.
 * Until now p's node ids were the file's, since load appends from the root.
 */
static void merge_nodes(struct loader *l)
{
	struct profile *p = l->p;
	struct stack_node *file = p->nodes;
	size_t n = p->nr_nodes, i;

	p->nodes = NULL;
	p->nr_nodes = p->alloc_nodes = 0;
	hashidx__release(&p->node_idx);
	XGROW(p->nodes, p->alloc_nodes, 0);
	p->nodes[0] = file[0];
	p->nr_nodes = 1;
	for (i = 1; i < n; i++)
		l->nodemap[i] = profile__node(p, l->nodemap[file[i].parent], file[i].frame);
	free(file);
}

/* Formats 3 and 4: nodes in blocks, each node's id - parent and its frame. */
static int read_node_blocks(struct loader *l)
{
	bool last_seen = false, bw = l->version >= 4;
	int err, r;

	if ((err = prepare(l, "node_blocks", "SELECT id, size, data FROM node_blocks ORDER BY id")))
		return err;
	while ((r = next_row(l, 0)) > 0) {
		const unsigned char *b;
		size_t n, j;

		if ((err = get_block(l, 1, DATAFILE_NODE_SIZE, DATAFILE_NODES_PER_BLOCK, &b, &n)) ||
		    (err = check_full(l, &last_seen, n, DATAFILE_NODES_PER_BLOCK)))
			return err;
		for (j = 0; j < n; j++) {
			/* format 4: the delta whole (DATAFILE_NODE_FIELDS_V4), the frame byte by byte */
			uint32_t delta = be32(b + j * 4);
			uint32_t frame = (uint32_t)block_field(bw, b, n, j, 4, 4);
			size_t id = l->nr_nodes, parent = id - delta;

			/* 0 < delta <= id: the parent precedes the node, no cycle */
			if (!delta || delta > id)
				return bad_row(l, "node %zu: parent %lld does not precede it", id,
					       (long long)id - delta);
			if (frame >= l->nr_frames)
				return bad_row(l, "node %zu: frame %u does not exist (%zu frames)", id,
					       frame, l->nr_frames);
			if (l->p->nodes[parent].depth >= DATAFILE_MAX_DEPTH)
				return bad_row(l, "node %zu: the stack is deeper than %u frames", id,
					       DATAFILE_MAX_DEPTH);
			if (id >= DATAFILE_MAX_ROWS)
				return bad_row(l, "more than %u nodes", DATAFILE_MAX_ROWS);
			profile__append_node(l->p, (uint32_t)parent, l->framemap[frame]);
			l->nr_nodes++;
		}
	}
	return r;
}

/* Formats 1 and 2: a row per node. */
static int read_node_rows(struct loader *l)
{
	int err, r;

	if ((err = prepare(l, "nodes", "SELECT id, parent, frame FROM nodes ORDER BY id")))
		return err;
	while ((r = next_row(l, 1)) > 0) {
		uint32_t parent, frame;

		/* parent < id: checked against the nodes read so far, which
		 * also rules out any cycle in the trie */
		if ((err = get_ref(l, 1, l->nr_nodes, "nodes before it", &parent)) ||
		    (err = get_ref(l, 2, l->nr_frames, "frames", &frame)))
			return err;
		if (l->p->nodes[parent].depth >= DATAFILE_MAX_DEPTH)
			return bad_row(l, "the stack is deeper than %u frames", DATAFILE_MAX_DEPTH);
		profile__append_node(l->p, parent, l->framemap[frame]);
		l->nr_nodes++;
	}
	return r;
}

static int load_nodes(struct loader *l)
{
	size_t i;
	int err;

	/* a fresh profile holds only the root, so file id == profile id here */
	if (l->p->nr_nodes != 1)
		return -EINVAL;
	l->nr_nodes = 1;
	if ((err = l->version < 3 ? read_node_rows(l) : read_node_blocks(l)))
		return err;
	XGROW(l->nodemap, l->alloc_nodemap, l->nr_nodes - 1);
	for (i = 0; i < l->nr_nodes; i++)
		l->nodemap[i] = (uint32_t)i;
	if (!edges_distinct(l->p))
		merge_nodes(l);
	return 0;
}

struct cell {
	uint32_t run, event, comm, pid;	/* a count's key but its node */
};

static int cell_cmp(const void *a, const void *b)
{
	const struct cell *x = a, *y = b;

	if (x->run != y->run)
		return x->run < y->run ? -1 : 1;
	if (x->event != y->event)
		return x->event < y->event ? -1 : 1;
	if (x->comm != y->comm)
		return x->comm < y->comm ? -1 : 1;
	return x->pid < y->pid ? -1 : x->pid > y->pid;
}

/*
 * Are the (run, event, comm, pid, node) cells all different?  A file written by
 * save always has them so; hashing a million cells to prove it cost a fifth
 * of a report.  Group the cells by node (counting sort, sequential), then
 * compare within each node's group, which holds runs x events x comms x
 * pids cells: pairwise when small, sorted when a hostile file makes it large.
 */
static bool counts_distinct(const struct profile *p)
{
	size_t n = p->nr_counts, i, j, k;
	uint32_t *start = xcalloc(p->nr_nodes + 1, sizeof(*start));
	struct cell *byn = xmalloc((n ? n : 1) * sizeof(*byn));
	bool ok = true;

	for (i = 0; i < n; i++)
		start[p->counts[i].node + 1]++;	/* nodes are < nr_nodes (mapped) */
	for (i = 0; i < p->nr_nodes; i++)
		start[i + 1] += start[i];
	for (i = 0; i < n; i++) {
		const struct count *c = &p->counts[i];

		byn[start[c->node]++] = (struct cell){ c->run, c->event, c->comm, c->pid };
	}
	/* start[x] is now the end of node x's group, the start of x + 1's */
	for (i = 0, j = 0; ok && j < n; i++) {
		size_t end = start[i], len = end - j;

		if (len > 32) {
			qsort(byn + j, len, sizeof(*byn), cell_cmp);
			for (k = j + 1; ok && k < end; k++)
				ok = cell_cmp(&byn[k - 1], &byn[k]) != 0;
		} else {
			for (k = j; ok && k < end; k++) {
				size_t m;

				for (m = k + 1; ok && m < end; m++)
					ok = cell_cmp(&byn[k], &byn[m]) != 0;
			}
		}
		j = end;
	}
	free(byn);
	free(start);
	return ok;
}

/* A hostile file repeats a cell: add them up, as profile__add_count does. */
static void merge_counts(struct profile *p)
{
	struct count *cells = p->counts;
	size_t n = p->nr_counts, i;

	p->counts = NULL;
	p->nr_counts = p->alloc_counts = 0;
	p->sum_samples = p->sum_period = 0;
	hashidx__release(&p->count_idx);
	for (i = 0; i < n; i++)
		profile__add_count(p, cells[i].run, cells[i].event, cells[i].comm, cells[i].pid,
				   cells[i].node, cells[i].samples, cells[i].period);
	free(cells);
}

/*
 * Every sum of counts a reader makes (an event's samples over runs, a
 * frame's children, a percentage's denominator) is a part of the sum of
 * all counts: refusing a file where that is 2^63 or more keeps each of
 * them exact in 64 bits, where a file of cells near 2^63 made
 * "9223372036854775812 samples" and four of 2^62 made "0 samples".  Each
 * count is below 2^63 and so is the sum so far: adding cannot wrap.
 */
static int add_to_sums(struct loader *l, uint64_t samples, uint64_t period, size_t cell)
{
	l->sum_samples += samples;
	l->sum_period += period;
	if (l->sum_samples > INT64_MAX || l->sum_period > INT64_MAX)
		return bad_row(l, "%s%.0zu%sthe %s of all counts add up to 2^63 or more",
			       cell == SIZE_MAX ? "" : "cell ", cell == SIZE_MAX ? 0 : cell,
			       cell == SIZE_MAX ? "" : ": ",
			       l->sum_samples > INT64_MAX ? "samples" : "periods");
	return 0;
}

/* Format 1: a row per count. */
static int load_count_rows(struct loader *l)
{
	int err, r;

	if ((err = prepare(l, "counts",
			   "SELECT id, run, event, comm, pid, node, samples, period FROM counts "
			   "ORDER BY id")))
		return err;
	while ((r = next_row(l, 0)) > 0) {
		uint32_t run, event, comm, node;
		uint64_t samples, period;
		int64_t pid;

		/* pid: a pid_t that is a process, so 0 (the idle task, or not
		 * known) up to INT32_MAX; -1 (perf's "none") is not stored */
		if ((err = get_ref(l, 1, l->nr_runs, "runs", &run)) ||
		    (err = get_ref(l, 2, l->nr_events, "events", &event)) ||
		    (err = get_str(l, 3, &comm)) ||
		    (err = get_range(l, 4, 0, INT32_MAX, &pid)) ||
		    (err = get_ref(l, 5, l->nr_nodes, "nodes", &node)) ||
		    (err = get_count(l, 6, &samples)) || (err = get_count(l, 7, &period)) ||
		    (err = add_to_sums(l, samples, period, SIZE_MAX)))
			return err;
		profile__append_count(l->p, &(struct count){ .run = run, .event = event,
			.comm = comm, .pid = (uint32_t)pid, .node = l->nodemap[node],
			.samples = samples, .period = period });
	}
	return r;
}

/*
 * Format 2: rows of (run, event, comm, pid) with their cells in a blob
 * (schema.h).  The blob's length must be a whole number of cells, at most
 * DATAFILE_CELLS_PER_ROW; every cell is checked as a format-1 row is.
 */
static int load_count_cells(struct loader *l, bool *ascending)
{
	struct count last = { 0 };	/* the previous cell, mapped */
	size_t nr_cells = 0;
	int err, r;

	if ((err = prepare(l, "stack_counts", l->version < 3 ?
			   "SELECT id, run, event, comm, pid, cells FROM stack_counts ORDER BY id" :
			   "SELECT id, run, event, comm, pid, size, cells FROM stack_counts ORDER BY id")))
		return err;
	while ((r = next_row(l, 0)) > 0) {
		uint32_t run, event, comm, node;
		sqlite3_value *x;
		const unsigned char *b;
		int64_t pid;
		size_t n, i;
		int t;

		if ((err = get_ref(l, 1, l->nr_runs, "runs", &run)) ||
		    (err = get_ref(l, 2, l->nr_events, "events", &event)) ||
		    (err = get_str(l, 3, &comm)) ||
		    (err = get_range(l, 4, 0, INT32_MAX, &pid)))
			return err;
		if (l->version >= 3) {
			if ((err = get_block(l, 5, DATAFILE_CELL_SIZE, DATAFILE_CELLS_PER_ROW, &b, &n)))
				return err;
		} else {
			x = sqlite3_column_value(l->st, 5);
			if ((t = sqlite3_value_type(x)) != SQLITE_BLOB)
				return bad_row(l, "cells is %s, not a blob", type_name(t));
			n = (size_t)sqlite3_value_bytes(x);
			b = sqlite3_value_blob(x);
			if (n % DATAFILE_CELL_SIZE || n > DATAFILE_CELLS_PER_ROW * DATAFILE_CELL_SIZE ||
			    (n && !b))
				return bad_row(l, "cells holds %zu bytes, not a whole number of %u-byte cells up to %u",
					       n, DATAFILE_CELL_SIZE, DATAFILE_CELLS_PER_ROW);
			n /= DATAFILE_CELL_SIZE;
		}
		if ((nr_cells += n) > DATAFILE_MAX_ROWS)
			return bad_row(l, "more than %u counts", DATAFILE_MAX_ROWS);
		for (i = 0, node = 0; i < n; i++) {
			/* record by record; format 4: each node the step from the one before */
			const unsigned char *cell = b + i * DATAFILE_CELL_SIZE;
			uint32_t step = be32(cell);
			uint64_t samples = be64(cell + 4), period = be64(cell + 12);
			struct count c = { .run = run, .event = event, .comm = comm,
					   .pid = (uint32_t)pid, .samples = samples, .period = period };

			node = l->version >= 4 ? node + step : step;	/* modulo 2^32 */
			if (node >= l->nr_nodes)
				return bad_row(l, "cell %zu: node %u does not exist", i, node);
			if (samples > INT64_MAX || period > INT64_MAX)
				return bad_row(l, "cell %zu: a count of 2^63 or more", i);
			if ((err = add_to_sums(l, samples, period, i)))
				return err;
			c.node = l->nodemap[node];
			/* cells in strictly ascending order are distinct: no check needed */
			if (*ascending && nr_cells + i > n && count__cmp(&last, &c) >= 0)
				*ascending = false;
			last = c;
			profile__append_count(l->p, &c);
		}
	}
	return r;
}

static int load_counts(struct loader *l)
{
	bool ascending = l->version > 1;
	int err = l->version == 1 ? load_count_rows(l) : load_count_cells(l, &ascending);

	if (!err && !ascending && !counts_distinct(l->p))
		merge_counts(l->p);
	return err;
}

/*
 * Formats 3 and 4: what the blocks say they unpack to, before anything is
 * read (a stated size is checked again as its block is unpacked).
 */
static int check_unpacked(struct loader *l)
{
	double total;
	int err, rc;

	if (l->version < 3)
		return 0;
	if ((err = prepare(l, "the blocks",
			   l->version < 4 ?
			   "SELECT (SELECT total(max(size, 0)) FROM frame_blocks) + "
			   "(SELECT total(max(size, 0)) FROM node_blocks) + "
			   "(SELECT total(max(size, 0)) FROM stack_counts)" :
			   "SELECT (SELECT total(max(size, 0)) FROM frame_blocks) + "
			   "(SELECT total(max(size, 0)) FROM node_blocks) + "
			   "(SELECT total(max(size, 0)) FROM frame_file_blocks) + "
			   "(SELECT total(max(size, 0)) FROM stack_counts)")))
		return err;
	if ((rc = sqlite3_step(l->st)) != SQLITE_ROW)
		return loader__sql_fail(l, rc);
	total = sqlite3_column_double(l->st, 0);
	if (total > DATAFILE_MAX_UNPACKED)
		return errmsg__set(l->e, -EFBIG, "cannot load '%s': its blocks unpack to %.0f MiB, "
				   "more than the %u MiB a reader allows (data-format.md, blocks)",
				   l->path, total / (1 << 20), DATAFILE_MAX_UNPACKED >> 20);
	return 0;
}

/*
 * The views' walks over the trie: one per (run, event) with counts, at
 * most DATAFILE_MAX_WALK nodes in all, and one per event with counts, at
 * most DATAFILE_MAX_EVENT_WALK (schema.h).
 */
static int check_walk(struct loader *l)
{
	const struct profile *p = l->p;
	size_t nr_pairs = (size_t)p->nr_runs * p->nr_events, pairs = 0, events = 0, i;
	unsigned char *seen = xcalloc(nr_pairs / 8 + 1, 1);
	bool ev_seen[DATAFILE_MAX_EVENTS] = { false };

	for (i = 0; i < p->nr_counts; i++) {
		size_t k = (size_t)p->counts[i].run * p->nr_events + p->counts[i].event;

		if (k < nr_pairs && !(seen[k / 8] & (1u << (k % 8)))) {
			seen[k / 8] |= (unsigned char)(1u << (k % 8));
			pairs++;
			if (p->counts[i].event < DATAFILE_MAX_EVENTS && !ev_seen[p->counts[i].event]) {
				ev_seen[p->counts[i].event] = true;
				events++;
			}
		}
	}
	free(seen);
	if ((unsigned long long)pairs * p->nr_nodes > DATAFILE_MAX_WALK)
		return errmsg__set(l->e, -EFBIG, "cannot load '%s': %zu (run, event) pairs with "
				   "counts over %zu stack nodes are more than a reader walks (%llu "
				   "node visits, at most 2^31; data-format.md, limits)", l->path,
				   pairs, p->nr_nodes, (unsigned long long)pairs * p->nr_nodes);
	if ((unsigned long long)events * p->nr_nodes > DATAFILE_MAX_EVENT_WALK)
		return errmsg__set(l->e, -EFBIG, "cannot load '%s': %zu events with counts over %zu "
				   "stack nodes are more than a reader walks (%llu node visits, at "
				   "most 2^24; data-format.md, limits)", l->path, events,
				   p->nr_nodes, (unsigned long long)events * p->nr_nodes);
	return 0;
}

int loader__read_tables(struct loader *l)
{
	int err;

	if ((err = check_unpacked(l)) || (err = load_strings(l)) || (err = load_meta(l)) || (err = load_events(l)) ||
	    (err = load_runs(l)) || (err = load_counters(l)) || (err = load_intervals(l)) ||
	    (err = load_metrics(l)) ||
	    (err = l->version < 3 ? load_frames(l) : load_frame_blocks(l)) ||
	    (err = l->version < 4 ? load_frame_files(l) : load_frame_file_blocks(l)) ||
	    (err = load_nodes(l)) ||
	    (err = load_counts(l)) || (err = check_walk(l)))
		return err;
	return 0;
}
