/*
 * datafile schema: the SQL that save executes and load checks against,
 * kept in one place so that the two cannot drift.  Documentation/
 * data-format.md is the normative text; a change here is a format change
 * and must bump PROFILE_FORMAT_VERSION.
 *
 * Conventions (see the spec): ids are dense, starting at 0 (1 for strings,
 * whose id 0 means "no string" and is stored as NULL); unsigned 64-bit
 * values are stored as the INTEGER with the same bit pattern; the trie
 * root (node 0) is implicit and every stored node has 0 <= parent < id.
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdlib.h>

#include "mmprof/datafile.h"
#include "mmprof/profile.h"
#include "mmprof/xalloc.h"
#include "schema.h"

/* The tables every format has. */
static const char common_sql[] =
	"CREATE TABLE meta(\n"
	"  seq   INTEGER PRIMARY KEY,\n"
	"  key   TEXT NOT NULL,\n"
	"  value TEXT);\n"
	"CREATE TABLE strings(\n"
	"  id INTEGER PRIMARY KEY,\n"
	"  s  TEXT NOT NULL);\n"
	"CREATE TABLE events(\n"
	"  id     INTEGER PRIMARY KEY,\n"
	"  name   INTEGER REFERENCES strings(id),\n"
	"  asked  INTEGER REFERENCES strings(id),\n"
	"  type   INTEGER NOT NULL,\n"
	"  config INTEGER NOT NULL,\n"
	"  freq   INTEGER NOT NULL,\n"
	"  sample INTEGER NOT NULL);\n"
	"CREATE TABLE runs(\n"
	"  id          INTEGER PRIMARY KEY,\n"
	"  start_ns    INTEGER NOT NULL,\n"
	"  wall_ns     INTEGER NOT NULL,\n"
	"  exit_code   INTEGER NOT NULL,\n"
	"  term_signal INTEGER NOT NULL,\n"
	"  utime_us    INTEGER NOT NULL,\n"
	"  stime_us    INTEGER NOT NULL,\n"
	"  maxrss_kb   INTEGER NOT NULL,\n"
	"  minflt      INTEGER NOT NULL,\n"
	"  majflt      INTEGER NOT NULL,\n"
	"  nvcsw       INTEGER NOT NULL,\n"
	"  nivcsw      INTEGER NOT NULL,\n"
	"  samples     INTEGER NOT NULL,\n"
	"  lost        INTEGER NOT NULL,\n"
	"  throttled   INTEGER NOT NULL);\n"
	"CREATE TABLE counters(\n"
	"  id        INTEGER PRIMARY KEY,\n"
	"  run       INTEGER NOT NULL REFERENCES runs(id),\n"
	"  name      INTEGER REFERENCES strings(id),\n"
	"  supported INTEGER NOT NULL,\n"
	"  value     INTEGER NOT NULL,\n"
	"  enabled   INTEGER NOT NULL,\n"
	"  running   INTEGER NOT NULL);\n"
	"CREATE TABLE intervals(\n"
	"  id      INTEGER PRIMARY KEY,\n"
	"  run     INTEGER NOT NULL REFERENCES runs(id),\n"
	"  name    INTEGER REFERENCES strings(id),\n"
	"  t_ns    INTEGER NOT NULL,\n"
	"  value   INTEGER NOT NULL,\n"
	"  enabled INTEGER NOT NULL,\n"
	"  running INTEGER NOT NULL);\n"
	"CREATE TABLE metrics(\n"
	"  id    INTEGER PRIMARY KEY,\n"
	"  run   INTEGER NOT NULL REFERENCES runs(id),\n"
	"  key   INTEGER REFERENCES strings(id),\n"
	"  value REAL);\n"
	;

/*
 * Formats 1 to 3: the file and address of unnamed user frames, for resolve.
 * Optional (files before it lack it; readers that do not know it ignore it).
 */
static const char frame_files_sql[] =
	"CREATE TABLE frame_files(\n"
	"  id       INTEGER PRIMARY KEY,\n"
	"  frame    INTEGER NOT NULL REFERENCES frames(id),\n"
	"  vaddr    INTEGER NOT NULL,\n"
	"  build_id TEXT);\n";

/* Formats 1 and 2: a row per frame and per trie node. */
static const char trie_v12_sql[] =
	"CREATE TABLE frames(\n"
	"  id      INTEGER PRIMARY KEY,\n"
	"  addr    INTEGER NOT NULL,\n"
	"  sym_off INTEGER NOT NULL,\n"
	"  sym     INTEGER REFERENCES strings(id),\n"
	"  dso     INTEGER REFERENCES strings(id),\n"
	"  kernel  INTEGER NOT NULL,\n"
	"  inlined INTEGER,\n"
	"  raw     INTEGER REFERENCES strings(id));\n"
	"CREATE TABLE nodes(\n"
	"  id     INTEGER PRIMARY KEY,\n"
	"  parent INTEGER NOT NULL,\n"
	"  frame  INTEGER NOT NULL REFERENCES frames(id));\n"
	;

/*
 * Format 3: frames and trie nodes packed in blocks, as the counts are,
 * each block compressed as the sqlite3 shell's sqlar_compress() does
 * (zlib's compress(), the blob kept as is when that would not shrink it;
 * `size` is the unpacked length).  A block holds its records column by
 * column (every record's first field, then every record's second, ...),
 * which compresses better than record by record: a node's parent is
 * stored as id - parent, 1 for most nodes, and a frame's fields each
 * vary in their own way.  Every block but the last is full, so a
 * record's id is its block's id times the records per block plus its
 * place in the block (nodes count from 1).
 *
 * The views "frames" and "nodes" give format 2's rows back for sqlite3
 * by hand (sqlar_uncompress is in every shell built with zlib; another
 * client registers it): a recursive walk over each block, carrying the
 * unpacked blob, each record read as hex digits.  Blocks stay at 4 KiB
 * unpacked because the walk copies the blob at every step.
 */
#define NB(p, k, sh) "((instr('0123456789ABCDEF',substr(h," p "+" #k ",1))-1)<<" #sh ")"
#define U8(p) "(" NB(p, 0, 4) "|" NB(p, 1, 0) ")"
#define U32(p) "(" NB(p, 0, 28) "|" NB(p, 1, 24) "|" NB(p, 2, 20) "|" NB(p, 3, 16) "|" \
	NB(p, 4, 12) "|" NB(p, 5, 8) "|" NB(p, 6, 4) "|" NB(p, 7, 0) ")"
#define U64(p) "((" U32(p) "<<32)|" U32(p "+8") ")"
static const char trie_v3_sql[] =
	"CREATE TABLE frame_blocks(\n"
	"  id   INTEGER PRIMARY KEY,\n"
	"  size INTEGER NOT NULL,\n"
	"  data BLOB NOT NULL);\n"
	"CREATE TABLE node_blocks(\n"
	"  id   INTEGER PRIMARY KEY,\n"
	"  size INTEGER NOT NULL,\n"
	"  data BLOB NOT NULL);\n"
	/* 29 bytes a frame: addr 8, sym_off 8, sym 4, dso 4, raw 4, flags 1 */
	"CREATE VIEW frames AS\n"
	"  WITH RECURSIVE seq(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM seq WHERE i < 127),\n"
	"  blk AS MATERIALIZED (\n"
	"    SELECT id, size / 29 AS n, sqlar_uncompress(data, size) AS b FROM frame_blocks),\n"
	"  cell AS MATERIALIZED (\n"
	"    SELECT blk.id * 128 + i AS id, hex(substr(b, i * 8 + 1, 8)) ||\n"
	"      hex(substr(b, n * 8 + i * 8 + 1, 8)) || hex(substr(b, n * 16 + i * 4 + 1, 4)) ||\n"
	"      hex(substr(b, n * 20 + i * 4 + 1, 4)) || hex(substr(b, n * 24 + i * 4 + 1, 4)) ||\n"
	"      hex(substr(b, n * 28 + i + 1, 1)) AS h\n"
	"    FROM blk JOIN seq ON i < n)\n"
	"  SELECT id, " U64("1") " AS addr, " U64("17") " AS sym_off,\n"
	"    nullif(" U32("33") ", 0) AS sym, nullif(" U32("41") ", 0) AS dso,\n"
	"    " U8("57") " & 1 AS kernel, nullif(" U8("57") " >> 1 & 1, 0) AS inlined,\n"
	"    nullif(" U32("49") ", 0) AS raw\n"
	"  FROM cell;\n"
	/* 8 bytes a node: id - parent 4, frame 4 */
	"CREATE VIEW nodes AS\n"
	"  WITH RECURSIVE seq(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM seq WHERE i < 511),\n"
	"  blk AS MATERIALIZED (\n"
	"    SELECT id, size / 8 AS n, sqlar_uncompress(data, size) AS b FROM node_blocks),\n"
	"  cell AS MATERIALIZED (\n"
	"    SELECT blk.id * 512 + i + 1 AS id,\n"
	"      hex(substr(b, i * 4 + 1, 4)) || hex(substr(b, n * 4 + i * 4 + 1, 4)) AS h\n"
	"    FROM blk JOIN seq ON i < n)\n"
	"  SELECT id, id - " U32("1") " AS parent, " U32("9") " AS frame\n"
	"  FROM cell;\n"
	;
/* Views: the same data with names instead of ids, for sqlite3 by hand. */
static const char views_sql[] =
	"CREATE VIEW events_v AS\n"
	"  SELECT e.id, n.s AS name, a.s AS asked, e.type,\n"
	"         printf('%#x', e.config) AS config, e.freq, e.sample\n"
	"  FROM events e LEFT JOIN strings n ON n.id = e.name\n"
	"               LEFT JOIN strings a ON a.id = e.asked;\n"
	"CREATE VIEW counters_v AS\n"
	"  SELECT c.run, n.s AS name, c.supported, c.value, c.enabled, c.running,\n"
	"         CASE WHEN c.running = 0 OR c.running = c.enabled THEN c.value\n"
	"              ELSE c.value * 1.0 * c.enabled / c.running END AS scaled\n"
	"  FROM counters c LEFT JOIN strings n ON n.id = c.name;\n"
	"CREATE VIEW intervals_v AS\n"
	"  SELECT i.run, n.s AS name, i.t_ns, i.value, i.enabled, i.running\n"
	"  FROM intervals i LEFT JOIN strings n ON n.id = i.name;\n"
	"CREATE VIEW metrics_v AS\n"
	"  SELECT m.run, k.s AS key, m.value\n"
	"  FROM metrics m LEFT JOIN strings k ON k.id = m.key;\n"
	;

static const char views_v12_sql[] =
	"CREATE VIEW frames_v AS\n"
	"  SELECT f.id, printf('%#x', f.addr) AS addr, s.s AS symbol, f.sym_off,\n"
	"         d.s AS dso, f.kernel, f.inlined\n"
	"  FROM frames f LEFT JOIN strings s ON s.id = f.sym\n"
	"               LEFT JOIN strings d ON d.id = f.dso;\n"
	"CREATE VIEW nodes_v AS\n"
	"  SELECT n.id, n.parent, coalesce(s.s, '[unknown]') AS symbol,\n"
	"         d.s AS dso, f.kernel, f.inlined\n"
	"  FROM nodes n JOIN frames f ON f.id = n.frame\n"
	"              LEFT JOIN strings s ON s.id = f.sym\n"
	"              LEFT JOIN strings d ON d.id = f.dso;\n"
	/* Top-down walk: each stack is its parent's plus one frame, so the
	 * whole view costs O(total length) through the index on parent. */
	"CREATE VIEW stacks AS\n"
	"  WITH RECURSIVE down(node, depth, stack) AS (\n"
	"    SELECT id, 1, symbol FROM nodes_v WHERE parent = 0\n"
	"    UNION ALL\n"
	"    SELECT n.id, down.depth + 1, down.stack || ';' || n.symbol\n"
	"    FROM down JOIN nodes_v n ON n.parent = down.node)\n"
	"  SELECT node, depth, stack FROM down;\n";

/*
 * Format 3's frames and nodes are views: each join on them is made on a
 * MATERIALIZED copy, which SQLite indexes automatically (a join on the
 * view itself unpacks every block again for every row it matches).
 */
static const char views_v3_sql[] =
	"CREATE VIEW frames_v AS\n"
	"  SELECT f.id, printf('%#x', f.addr) AS addr, s.s AS symbol, f.sym_off,\n"
	"         d.s AS dso, f.kernel, f.inlined\n"
	"  FROM frames f LEFT JOIN strings s ON s.id = f.sym\n"
	"               LEFT JOIN strings d ON d.id = f.dso;\n"
	"CREATE VIEW nodes_v AS\n"
	"  WITH f AS MATERIALIZED (SELECT id, sym, dso, kernel, inlined FROM frames),\n"
	"  n AS MATERIALIZED (SELECT id, parent, frame FROM nodes)\n"
	"  SELECT n.id, n.parent, coalesce(s.s, '[unknown]') AS symbol,\n"
	"         d.s AS dso, f.kernel, f.inlined\n"
	"  FROM n JOIN f ON f.id = n.frame\n"
	"         LEFT JOIN strings s ON s.id = f.sym\n"
	"         LEFT JOIN strings d ON d.id = f.dso;\n"
	"CREATE VIEW stacks AS\n"
	"  WITH RECURSIVE n AS MATERIALIZED (SELECT id, parent, symbol FROM nodes_v),\n"
	"  down(node, depth, stack) AS (\n"
	"    SELECT id, 1, symbol FROM n WHERE parent = 0\n"
	"    UNION ALL\n"
	"    SELECT n.id, down.depth + 1, down.stack || ';' || n.symbol\n"
	"    FROM down JOIN n ON n.parent = down.node)\n"
	"  SELECT node, depth, stack FROM down;\n";


/* The counts with names, over format 1's table or format 2's view. */
#define COUNTS_V \
	"CREATE VIEW counts_v AS\n" \
	"  SELECT c.run, en.s AS event, m.s AS comm, c.pid, c.node, n.symbol,\n" \
	"         c.samples, c.period\n" \
	"  FROM counts c LEFT JOIN events e ON e.id = c.event\n" \
	"               LEFT JOIN strings en ON en.id = e.name\n" \
	"               LEFT JOIN strings m ON m.id = c.comm\n" \
	"               LEFT JOIN nodes_v n ON n.id = c.node;\n"

/* The same over format 3's views (see views_v3_sql). */
#define COUNTS_V3 \
	"CREATE VIEW counts_v AS\n" \
	"  WITH n AS MATERIALIZED (SELECT id, symbol FROM nodes_v)\n" \
	"  SELECT c.run, en.s AS event, m.s AS comm, c.pid, c.node, n.symbol,\n" \
	"         c.samples, c.period\n" \
	"  FROM counts c LEFT JOIN events e ON e.id = c.event\n" \
	"               LEFT JOIN strings en ON en.id = e.name\n" \
	"               LEFT JOIN strings m ON m.id = c.comm\n" \
	"               LEFT JOIN n ON n.id = c.node;\n"

/* Format 1: a row per count. */
static const char counts_v1_sql[] =
	"CREATE TABLE counts(\n"
	"  id      INTEGER PRIMARY KEY,\n"
	"  run     INTEGER NOT NULL REFERENCES runs(id),\n"
	"  event   INTEGER NOT NULL REFERENCES events(id),\n"
	"  comm    INTEGER REFERENCES strings(id),\n"
	"  pid     INTEGER NOT NULL,\n"
	"  node    INTEGER NOT NULL,\n"
	"  samples INTEGER NOT NULL,\n"
	"  period  INTEGER NOT NULL);\n"
	COUNTS_V;

/*
 * Format 2: the counts of one (run, event, comm, pid) in blocks of up to
 * DATAFILE_CELLS_PER_ROW fixed-width cells, so a reader decodes a million
 * counts from a few hundred blobs instead of stepping a million rows (the
 * larger part of a diff's time in format 1).  The view "counts" gives the
 * format-1 rows back for sqlite3 by hand: a recursive walk over the cells
 * carrying its row's blob (a join per step costs more), each cell read as
 * 40 hex digits (SQLite has no blob-to-integer function).
 */
#define HX(k) "(instr('0123456789ABCDEF',substr(h," #k ",1))-1)"
#define NIB(k, sh) "(" HX(k) "<<" #sh ")"
static const char counts_v2_sql[] =
	"CREATE TABLE stack_counts(\n"
	"  id      INTEGER PRIMARY KEY,\n"
	"  run     INTEGER NOT NULL REFERENCES runs(id),\n"
	"  event   INTEGER NOT NULL REFERENCES events(id),\n"
	"  comm    INTEGER REFERENCES strings(id),\n"
	"  pid     INTEGER NOT NULL,\n"
	"  cells   BLOB NOT NULL);\n"
	"CREATE VIEW counts AS\n"
	"  WITH RECURSIVE cell(run, event, comm, pid, b, i, h) AS (\n"
	"    SELECT run, event, comm, pid, cells, 0, hex(substr(cells, 1, 20))\n"
	"    FROM stack_counts WHERE length(cells) >= 20\n"
	"    UNION ALL\n"
	"    SELECT run, event, comm, pid, b, i + 1, hex(substr(b, (i + 1) * 20 + 1, 20))\n"
	"    FROM cell WHERE (i + 2) * 20 <= length(b))\n"
	"  SELECT run, event, comm, pid,\n"
	"    " NIB(1, 28) "|" NIB(2, 24) "|" NIB(3, 20) "|" NIB(4, 16) "|"
	NIB(5, 12) "|" NIB(6, 8) "|" NIB(7, 4) "|" NIB(8, 0) " AS node,\n"
	"    " NIB(9, 60) "|" NIB(10, 56) "|" NIB(11, 52) "|" NIB(12, 48) "|"
	NIB(13, 44) "|" NIB(14, 40) "|" NIB(15, 36) "|" NIB(16, 32) "|"
	NIB(17, 28) "|" NIB(18, 24) "|" NIB(19, 20) "|" NIB(20, 16) "|"
	NIB(21, 12) "|" NIB(22, 8) "|" NIB(23, 4) "|" NIB(24, 0) " AS samples,\n"
	"    " NIB(25, 60) "|" NIB(26, 56) "|" NIB(27, 52) "|" NIB(28, 48) "|"
	NIB(29, 44) "|" NIB(30, 40) "|" NIB(31, 36) "|" NIB(32, 32) "|"
	NIB(33, 28) "|" NIB(34, 24) "|" NIB(35, 20) "|" NIB(36, 16) "|"
	NIB(37, 12) "|" NIB(38, 8) "|" NIB(39, 4) "|" NIB(40, 0) " AS period\n"
	"  FROM cell;\n"
	COUNTS_V;
#undef NIB
#undef HX

/* Format 3: format 2's cells, each row's compressed as a block (above). */
static const char counts_v3_sql[] =
	"CREATE TABLE stack_counts(\n"
	"  id      INTEGER PRIMARY KEY,\n"
	"  run     INTEGER NOT NULL REFERENCES runs(id),\n"
	"  event   INTEGER NOT NULL REFERENCES events(id),\n"
	"  comm    INTEGER REFERENCES strings(id),\n"
	"  pid     INTEGER NOT NULL,\n"
	"  size    INTEGER NOT NULL,\n"
	"  cells   BLOB NOT NULL);\n"
	"CREATE VIEW counts AS\n"
	"  WITH RECURSIVE seq(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM seq WHERE i < 4095),\n"
	"  blk AS MATERIALIZED (\n"
	"    SELECT run, event, comm, pid, size / 20 AS n, sqlar_uncompress(cells, size) AS b\n"
	"    FROM stack_counts),\n"
	"  cell AS MATERIALIZED (\n"
	"    SELECT run, event, comm, pid, hex(substr(b, i * 20 + 1, 20)) AS h\n"
	"    FROM blk JOIN seq ON i < n)\n"
	"  SELECT run, event, comm, pid, " U32("1") " AS node, " U64("9") " AS samples,\n"
	"    " U64("25") " AS period\n"
	"  FROM cell;\n"
	COUNTS_V3;

/* The 256 bytes in order, for format 4's views: instr(x, byte) - 1 is its value. */
#define BYTES \
	"x'000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f" \
	"202122232425262728292a2b2c2d2e2f303132333435363738393a3b3c3d3e3f" \
	"404142434445464748494a4b4c4d4e4f505152535455565758595a5b5c5d5e5f" \
	"606162636465666768696a6b6c6d6e6f707172737475767778797a7b7c7d7e7f" \
	"808182838485868788898a8b8c8d8e8f909192939495969798999a9b9c9d9e9f" \
	"a0a1a2a3a4a5a6a7a8a9aaabacadaeafb0b1b2b3b4b5b6b7b8b9babbbcbdbebf" \
	"c0c1c2c3c4c5c6c7c8c9cacbcccdcecfd0d1d2d3d4d5d6d7d8d9dadbdcdddedf" \
	"e0e1e2e3e4e5e6e7e8e9eaebecedeeeff0f1f2f3f4f5f6f7f8f9fafbfcfdfeff" \
	"'"

/*
 * Format 4: every block byte by byte (the first byte of every record, then
 * the second byte of every record, ...), which zlib packs tighter than
 * field by field (the high bytes of ids, steps and counts are mostly zero
 * and become runs of zeros), but for a node's id - parent, kept whole as
 * in format 3 (1 for most nodes; the few others' bytes compress better
 * together), and the count cells, which stay record by record (byte by
 * byte inflated a fifth slower and packed the bench's cells 10 % larger);
 * a count cell's node as the step from the cell before it in its row
 * (the writer sorts them: small steps); and
 * frame_files packed as the frames are: one record per frame, in frame
 * order, a record's frame the step from the one before (1 for most), each
 * build-id a string id (format 3's table held the 40 hex digits in every
 * row, a third of an 8 s system-wide file).  The views give format 3's
 * rows back: a record's bytes gathered into hex digits, the steps summed.
 */
static const char trie_v4_sql[] =
	"CREATE TABLE frame_blocks(\n"
	"  id   INTEGER PRIMARY KEY,\n"
	"  size INTEGER NOT NULL,\n"
	"  data BLOB NOT NULL);\n"
	"CREATE TABLE node_blocks(\n"
	"  id   INTEGER PRIMARY KEY,\n"
	"  size INTEGER NOT NULL,\n"
	"  data BLOB NOT NULL);\n"
	"CREATE TABLE frame_file_blocks(\n"
	"  id   INTEGER PRIMARY KEY,\n"
	"  size INTEGER NOT NULL,\n"
	"  data BLOB NOT NULL);\n"
	/* 29 bytes a frame: addr 8, sym_off 8, sym 4, dso 4, raw 4, flags 1; a
	 * byte's value is its place in the blob of the 256 bytes (instr) */
	"CREATE VIEW frames AS\n"
	"  WITH RECURSIVE seq(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM seq WHERE i < 127),\n"
	"  k(x) AS (SELECT " BYTES "),\n"
	"  blk AS MATERIALIZED (\n"
	"    SELECT id, size / 29 AS n, sqlar_uncompress(data, size) AS b FROM frame_blocks)\n"
	"  SELECT blk.id * 128 + i AS id,\n"
	"    (((instr(x, substr(b, 0 * n + i + 1, 1)) - 1) << 56) |\n"
	"    ((instr(x, substr(b, 1 * n + i + 1, 1)) - 1) << 48) |\n"
	"    ((instr(x, substr(b, 2 * n + i + 1, 1)) - 1) << 40) |\n"
	"    ((instr(x, substr(b, 3 * n + i + 1, 1)) - 1) << 32) |\n"
	"    ((instr(x, substr(b, 4 * n + i + 1, 1)) - 1) << 24) |\n"
	"    ((instr(x, substr(b, 5 * n + i + 1, 1)) - 1) << 16) |\n"
	"    ((instr(x, substr(b, 6 * n + i + 1, 1)) - 1) << 8) |\n"
	"    (instr(x, substr(b, 7 * n + i + 1, 1)) - 1)) AS addr,\n"
	"    (((instr(x, substr(b, 8 * n + i + 1, 1)) - 1) << 56) |\n"
	"    ((instr(x, substr(b, 9 * n + i + 1, 1)) - 1) << 48) |\n"
	"    ((instr(x, substr(b, 10 * n + i + 1, 1)) - 1) << 40) |\n"
	"    ((instr(x, substr(b, 11 * n + i + 1, 1)) - 1) << 32) |\n"
	"    ((instr(x, substr(b, 12 * n + i + 1, 1)) - 1) << 24) |\n"
	"    ((instr(x, substr(b, 13 * n + i + 1, 1)) - 1) << 16) |\n"
	"    ((instr(x, substr(b, 14 * n + i + 1, 1)) - 1) << 8) |\n"
	"    (instr(x, substr(b, 15 * n + i + 1, 1)) - 1)) AS sym_off,\n"
	"    nullif((((instr(x, substr(b, 16 * n + i + 1, 1)) - 1) << 24) |\n"
	"    ((instr(x, substr(b, 17 * n + i + 1, 1)) - 1) << 16) |\n"
	"    ((instr(x, substr(b, 18 * n + i + 1, 1)) - 1) << 8) |\n"
	"    (instr(x, substr(b, 19 * n + i + 1, 1)) - 1)), 0) AS sym,\n"
	"    nullif((((instr(x, substr(b, 20 * n + i + 1, 1)) - 1) << 24) |\n"
	"    ((instr(x, substr(b, 21 * n + i + 1, 1)) - 1) << 16) |\n"
	"    ((instr(x, substr(b, 22 * n + i + 1, 1)) - 1) << 8) |\n"
	"    (instr(x, substr(b, 23 * n + i + 1, 1)) - 1)), 0) AS dso,\n"
	"    (instr(x, substr(b, 28 * n + i + 1, 1)) - 1) & 1 AS kernel, nullif((instr(x, substr(b, 28 * n + i + 1, 1)) - 1) >> 1 & 1, 0) AS inlined,\n"
	"    nullif((((instr(x, substr(b, 24 * n + i + 1, 1)) - 1) << 24) |\n"
	"    ((instr(x, substr(b, 25 * n + i + 1, 1)) - 1) << 16) |\n"
	"    ((instr(x, substr(b, 26 * n + i + 1, 1)) - 1) << 8) |\n"
	"    (instr(x, substr(b, 27 * n + i + 1, 1)) - 1)), 0) AS raw\n"
	"  FROM blk JOIN seq ON i < n, k;\n"
	/* 8 bytes a node: id - parent 4, frame 4 */
	"CREATE VIEW nodes AS\n"
	"  WITH RECURSIVE seq(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM seq WHERE i < 511),\n"
	"  blk AS MATERIALIZED (\n"
	"    SELECT id, size / 8 AS n, sqlar_uncompress(data, size) AS b FROM node_blocks),\n"
	"  cell AS MATERIALIZED (\n"
	"    SELECT blk.id * 512 + i + 1 AS id,\n"
	"      hex(substr(b, i * 4 + 1, 4)) || hex(substr(b, 4 * n + i + 1, 1)) ||\n"
	"      hex(substr(b, 5 * n + i + 1, 1)) || hex(substr(b, 6 * n + i + 1, 1)) ||\n"
	"      hex(substr(b, 7 * n + i + 1, 1)) AS h\n"
	"    FROM blk JOIN seq ON i < n)\n"
	"  SELECT id, id - " U32("1") " AS parent, " U32("9") " AS frame\n"
	"  FROM cell;\n"
	/* 16 bytes a record: frame step 4, vaddr 8, build_id 4 */
	"CREATE VIEW frame_files AS\n"
	"  WITH RECURSIVE seq(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM seq WHERE i < 255),\n"
	"  k(x) AS (SELECT " BYTES "),\n"
	"  blk AS MATERIALIZED (\n"
	"    SELECT id, size / 16 AS n, sqlar_uncompress(data, size) AS b FROM frame_file_blocks),\n"
	"  ff AS MATERIALIZED (\n"
	"    SELECT blk.id * 256 + i AS id, sum((((instr(x, substr(b, 0 * n + i + 1, 1)) - 1) << 24) |\n"
	"    ((instr(x, substr(b, 1 * n + i + 1, 1)) - 1) << 16) |\n"
	"    ((instr(x, substr(b, 2 * n + i + 1, 1)) - 1) << 8) |\n"
	"    (instr(x, substr(b, 3 * n + i + 1, 1)) - 1)))\n"
	"      OVER (ORDER BY blk.id * 256 + i) - 1 AS frame,\n"
	"    (((instr(x, substr(b, 4 * n + i + 1, 1)) - 1) << 56) |\n"
	"    ((instr(x, substr(b, 5 * n + i + 1, 1)) - 1) << 48) |\n"
	"    ((instr(x, substr(b, 6 * n + i + 1, 1)) - 1) << 40) |\n"
	"    ((instr(x, substr(b, 7 * n + i + 1, 1)) - 1) << 32) |\n"
	"    ((instr(x, substr(b, 8 * n + i + 1, 1)) - 1) << 24) |\n"
	"    ((instr(x, substr(b, 9 * n + i + 1, 1)) - 1) << 16) |\n"
	"    ((instr(x, substr(b, 10 * n + i + 1, 1)) - 1) << 8) |\n"
	"    (instr(x, substr(b, 11 * n + i + 1, 1)) - 1)) AS vaddr,\n"
	"    nullif((((instr(x, substr(b, 12 * n + i + 1, 1)) - 1) << 24) |\n"
	"    ((instr(x, substr(b, 13 * n + i + 1, 1)) - 1) << 16) |\n"
	"    ((instr(x, substr(b, 14 * n + i + 1, 1)) - 1) << 8) |\n"
	"    (instr(x, substr(b, 15 * n + i + 1, 1)) - 1)), 0) AS bid\n"
	"    FROM blk JOIN seq ON i < n, k)\n"
	"  SELECT ff.id, ff.frame, ff.vaddr, s.s AS build_id\n"
	"  FROM ff LEFT JOIN strings s ON s.id = ff.bid;\n"
	;

/* Format 4: format 3's cells, each node the step from the cell before it (above). */
static const char counts_v4_sql[] =
	"CREATE TABLE stack_counts(\n"
	"  id      INTEGER PRIMARY KEY,\n"
	"  run     INTEGER NOT NULL REFERENCES runs(id),\n"
	"  event   INTEGER NOT NULL REFERENCES events(id),\n"
	"  comm    INTEGER REFERENCES strings(id),\n"
	"  pid     INTEGER NOT NULL,\n"
	"  size    INTEGER NOT NULL,\n"
	"  cells   BLOB NOT NULL);\n"
	"CREATE VIEW counts AS\n"
	"  WITH RECURSIVE seq(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM seq WHERE i < 4095),\n"
	"  blk AS MATERIALIZED (\n"
	"    SELECT id, run, event, comm, pid, size / 20 AS n, sqlar_uncompress(cells, size) AS b\n"
	"    FROM stack_counts),\n"
	"  cell AS MATERIALIZED (\n"
	"    SELECT id, i, run, event, comm, pid, hex(substr(b, i * 20 + 1, 20)) AS h\n"
	"    FROM blk JOIN seq ON i < n)\n"
	"  SELECT run, event, comm, pid,\n"
	"    sum(" U32("1") ") OVER (PARTITION BY id ORDER BY i) & 0xffffffff AS node,\n"
	"    " U64("9") " AS samples, " U64("25") " AS period\n"
	"  FROM cell;\n"
	COUNTS_V3;
#undef BYTES
#undef U64
#undef U32
#undef U8
#undef NB

/*
 * Format 5: format 4 and the whole chains of a trie that holds some only in
 * part (chainsrc.h; profile.h's "[elided]"), in independent blocks, each
 * zlib'd as the others are (sqlar_compress), of chains in their stream's
 * order: the block's frames once (a dictionary), then per chain its lcp
 * with the chain before it in the block, its new frames as places in the
 * dictionary and its cells, every number a varint (chainblk.h).  No view:
 * SQL cannot read varints; data-format.md says how to.
 */
static const char chains_v5_sql[] =
	"CREATE TABLE chain_blocks(\n"
	"  id      INTEGER PRIMARY KEY,\n"
	"  chains  INTEGER NOT NULL,\n"
	"  frames  INTEGER NOT NULL,\n"
	"  cells   INTEGER NOT NULL,\n"
	"  samples INTEGER NOT NULL,\n"
	"  size    INTEGER NOT NULL,\n"
	"  data    BLOB NOT NULL);\n";

/* Built after the rows are in: one sort instead of 10^5 random inserts. */
static const char index_v12_sql[] =
	"CREATE INDEX nodes_parent ON nodes(parent);\n";

const char *const *datafile_schema_parts(int version)
{
	static const char *const v1[] = {
		common_sql, trie_v12_sql, frame_files_sql, views_sql, views_v12_sql, counts_v1_sql, NULL,
	};
	static const char *const v2[] = {
		common_sql, trie_v12_sql, frame_files_sql, views_sql, views_v12_sql, counts_v2_sql, NULL,
	};
	static const char *const v3[] = {
		common_sql, trie_v3_sql, frame_files_sql, views_sql, views_v3_sql, counts_v3_sql, NULL,
	};
	static const char *const v4[] = {
		common_sql, trie_v4_sql, views_sql, views_v3_sql, counts_v4_sql, NULL,
	};
	static const char *const v5[] = {
		common_sql, trie_v4_sql, views_sql, views_v3_sql, counts_v4_sql, chains_v5_sql, NULL,
	};

	return version == 1 ? v1 : version == 2 ? v2 : version == 3 ? v3 : version == 4 ? v4 : v5;
}

const char *datafile_index_sql(int version)
{
	return version < 3 ? index_v12_sql : "";
}

static const char *const tables_v1[] = {
	"meta", "strings", "events", "runs", "counters", "intervals",
	"metrics", "frames", "nodes", "counts", NULL,
};

static const char *const tables_v2[] = {
	"meta", "strings", "events", "runs", "counters", "intervals",
	"metrics", "frames", "nodes", "stack_counts", NULL,
};

static const char *const tables_v3[] = {
	"meta", "strings", "events", "runs", "counters", "intervals",
	"metrics", "frame_blocks", "node_blocks", "stack_counts", NULL,
};

static const char *const tables_v4[] = {
	"meta", "strings", "events", "runs", "counters", "intervals",
	"metrics", "frame_blocks", "node_blocks", "frame_file_blocks", "stack_counts", NULL,
};

static const char *const tables_v5[] = {
	"meta", "strings", "events", "runs", "counters", "intervals",
	"metrics", "frame_blocks", "node_blocks", "frame_file_blocks", "stack_counts",
	"chain_blocks", NULL,
};

const char *const *datafile_tables(int version)
{
	return version == 1 ? tables_v1 : version == 2 ? tables_v2 : version == 3 ? tables_v3 :
	       version == 4 ? tables_v4 : tables_v5;
}

void datafile_walked(const struct profile *p, size_t *events, size_t *pairs)
{
	size_t nr_pairs = (size_t)p->nr_runs * p->nr_events, i;
	unsigned char *seen = xcalloc(nr_pairs / 8 + 1, 1);
	bool ev_seen[DATAFILE_MAX_EVENTS] = { false };

	*events = *pairs = 0;
	for (i = 0; i < p->nr_counts; i++) {
		size_t k = (size_t)p->counts[i].run * p->nr_events + p->counts[i].event;

		if (k < nr_pairs && !(seen[k / 8] & (1u << (k % 8)))) {
			seen[k / 8] |= (unsigned char)(1u << (k % 8));
			(*pairs)++;
			if (p->counts[i].event < DATAFILE_MAX_EVENTS && !ev_seen[p->counts[i].event]) {
				ev_seen[p->counts[i].event] = true;
				(*events)++;
			}
		}
	}
	free(seen);
}
