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
#include <stddef.h>

#include "schema.h"

const char datafile_schema_sql[] =
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
	/* optional (files before it lack it; readers that do not know it ignore it) */
	"CREATE TABLE frame_files(\n"
	"  id       INTEGER PRIMARY KEY,\n"
	"  frame    INTEGER NOT NULL REFERENCES frames(id),\n"
	"  vaddr    INTEGER NOT NULL,\n"
	"  build_id TEXT);\n"
	/* Views: the same data with names instead of ids, for sqlite3 by hand. */
	"CREATE VIEW frames_v AS\n"
	"  SELECT f.id, printf('%#x', f.addr) AS addr, s.s AS symbol, f.sym_off,\n"
	"         d.s AS dso, f.kernel, f.inlined\n"
	"  FROM frames f LEFT JOIN strings s ON s.id = f.sym\n"
	"               LEFT JOIN strings d ON d.id = f.dso;\n"
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

/* The counts with names, over format 1's table or format 2's view. */
#define COUNTS_V \
	"CREATE VIEW counts_v AS\n" \
	"  SELECT c.run, en.s AS event, m.s AS comm, c.pid, c.node, n.symbol,\n" \
	"         c.samples, c.period\n" \
	"  FROM counts c LEFT JOIN events e ON e.id = c.event\n" \
	"               LEFT JOIN strings en ON en.id = e.name\n" \
	"               LEFT JOIN strings m ON m.id = c.comm\n" \
	"               LEFT JOIN nodes_v n ON n.id = c.node;\n"

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

const char *datafile_counts_sql(int version)
{
	return version == 1 ? counts_v1_sql : counts_v2_sql;
}

/* Built after the rows are in: one sort instead of 10^5 random inserts. */
const char datafile_index_sql[] =
	"CREATE INDEX nodes_parent ON nodes(parent);\n";

static const char *const tables_v1[] = {
	"meta", "strings", "events", "runs", "counters", "intervals",
	"metrics", "frames", "nodes", "counts", NULL,
};

static const char *const tables_v2[] = {
	"meta", "strings", "events", "runs", "counters", "intervals",
	"metrics", "frames", "nodes", "stack_counts", NULL,
};

const char *const *datafile_tables(int version)
{
	return version == 1 ? tables_v1 : tables_v2;
}
