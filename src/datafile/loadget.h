/*
 * Private to src/datafile: step 3's row cursor (prepare, next_row: ids
 * dense, rows bounded), its typed, bounded getters (each value through
 * one sqlite3_column_value, references in range, strings mapped to the
 * model's ids, blocks unpacked within their stated size), and the fields
 * of a block's records read in place.  Shared by loadrows.c (the flat
 * tables) and loadtrie.c (the trie and its counts).  They run once per
 * cell (10 M cells in a large file) and must inline into each table's
 * loop, so they are defined here, static: each file's own, as when they
 * were all loadrows.c's (the compiler's inlining, and what it can prove
 * of their returns, unchanged; marked unused, since a file calls only
 * some).  A value that breaks its bound is the file's fault: bad_row's
 * line, -EPROTO.
 */
#ifndef MMPROF_DATAFILE_LOADGET_H
#define MMPROF_DATAFILE_LOADGET_H

#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdint.h>
#include <string.h>

#include <sqlite3.h>
#include <zlib.h>

#include "mmprof/datafile.h"
#include "mmprof/xalloc.h"
#include "loader.h"
#include "schema.h"

/*
 * The file is not what it claims: one line naming the table and row,
 * -EPROTO.  Here, visible to the getters' callers, so that the compiler
 * sees every failure return non-zero.
 */
static int bad_row(struct loader *l, const char *fmt, ...)
	__attribute__((format(printf, 2, 3), unused));
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

__attribute__((unused))
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

__attribute__((unused))
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
__attribute__((unused))
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
__attribute__((unused))
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

__attribute__((unused))
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
__attribute__((unused))
static int get_u64(struct loader *l, int col, uint64_t *v)
{
	int64_t i;
	int err = get_i64(l, col, &i);

	if (!err)
		memcpy(v, &i, sizeof(*v));
	return err;
}

/* A count: non-negative, below 2^63. */
__attribute__((unused))
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

__attribute__((unused))
static int get_u32(struct loader *l, int col, uint32_t *v)
{
	int64_t i;
	int err = get_range(l, col, 0, UINT32_MAX, &i);

	if (!err)
		*v = (uint32_t)i;
	return err;
}

__attribute__((unused))
static int get_i32(struct loader *l, int col, int32_t *v)
{
	int64_t i;
	int err = get_range(l, col, INT32_MIN, INT32_MAX, &i);

	if (!err)
		*v = (int32_t)i;
	return err;
}

__attribute__((unused))
static int get_bool(struct loader *l, int col, uint8_t *v)
{
	int64_t i;
	int err = get_range(l, col, 0, 1, &i);

	if (!err)
		*v = (uint8_t)i;
	return err;
}

/* An index into a table already read: 0 <= v < n. */
__attribute__((unused))
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
__attribute__((unused))
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
__attribute__((unused))
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
__attribute__((unused))
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
__attribute__((unused))
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

__attribute__((unused))
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
__attribute__((unused))
static int block_str(struct loader *l, uint32_t id, const char *what, size_t rec, uint32_t *v)
{
	if (id >= l->nr_strs)
		return bad_row(l, "record %zu: %s %u does not exist (%zu strings)", rec, what, id,
			       l->nr_strs);
	*v = l->strmap[id];
	return 0;
}

#endif
