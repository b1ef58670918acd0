#!/bin/sh
# t830-hostile-bounded: a reader's time and memory are bounded by the file's
# real content, whatever the file says (issue 14, items 1, 2 and 4).  Each
# hostile file is made with the sqlite3 CLI from a real recording and read
# by every reader under a CPU-time and an address-space limit:
#   - a generated column (strings.s computed on every read; stack_counts.cells
#     a zeroblob(81920) over 16,383 rows of a small file), fts4 and fts5
#     virtual tables: refused, "not the schema mmprof writes";
#   - counts whose sum reaches 2^63 (a cell of 2^63-1 beside others, four
#     cells of 2^62): refused, where they printed 2^63+4 and 0 samples;
#   - 200,000 sampling events (export -f pprof took 1.72 GB), 200,000 runs
#     (report --json took 10 s and 1.41 GB): refused, over the format's 256
#     and 10000, and 10,000 runs read within the limits, with 400,000
#     metrics among them too (each run scanned every row: 12 s);
#   - 100,000 distinct counter names: read in linear time (a linear search
#     per name took 1.55 s for 40,000);
#   - 100,000 distinct metric keys over 10,000 runs: the keys view in memory
#     of the keys present (a dense keys x runs table asked for 8 GB);
#   - one chain of depth 65,535 (item 3): report --tree printed O(d^2)
#     (5.9 GB before it was stopped); it keeps the innermost 127 frames as
#     perf's max-stack and prints a bounded page, and every view reads it
#     within the limits.

. "$(dirname "$0")/lib.sh"
tap_setup t830

# ASan reserves terabytes of address space and runs slower: no AS limit there
# (and 100,000 counter names take it past 30 s on a loaded machine: the
# sanitizer run checks memory safety on 20,000, the plain run the time)
if [ -n "${MMPROF_SANITIZE:-}" ]; then
	secs=30 as_kb= nnames=20000 nkeys=20000
else
	secs=5 as_kb=$((1024 * 1024)) nnames=100000 nkeys=100000
fi

# The time limit is of CPU time (ulimit -t, SIGXCPU), what a reader's work
# costs; the machine's other load does not count against it.  A wall-clock
# limit of the same 5 s failed report --json of 10,000 runs on a loaded
# 2-core machine: 3.4 s of wall time for 1.1 s of CPU, past 5 s at times.
# A reader blocked without using the CPU is stopped by the wall clock, at
# twelve times the CPU limit (a load of 20 stretched 1 s of CPU to 12 s).
wall=$((secs * 12))

# limited ARGS...: mmprof ARGS under the limits; stdout and stderr in $tmp
limited() { run_limited "$secs" "$wall" "$as_kb" "$@"; }

# refused FILE PATTERN: every reader exits 2 with one line matching PATTERN
refused() {
	f=$1 pat=$2
	for r in "report" "report --tree" "report --json" "flamegraph -o $tmp/fg.html" \
		"export -f pprof -o $tmp/x.pb" "diff $tmp/base.data"; do
		# shellcheck disable=SC2086
		limited $r "$tmp/$f.data"
		rc=$?
		test $rc -eq 2 && test "$(wc -l <"$tmp/err")" -eq 1 && grep -q -- "$pat" "$tmp/err"
		ok $? "$f: ${r%% -o*} refuses it in ${secs} s of CPU: $pat"
		[ $rc -eq 2 ] || { echo "# rc=$rc"; head -3 "$tmp/err" | diag; }
	done
}

# read_ok FILE: every reader exits 0 under the limits
read_ok() {
	f=$1
	for r in "report" "report --json" "export -f pprof -o $tmp/x.pb"; do
		# shellcheck disable=SC2086
		limited $r "$tmp/$f.data"
		rc=$?
		ok $rc "$f: ${r%% -o*} reads it within ${secs} s of CPU${as_kb:+ and $((as_kb / 1024)) MiB}"
		[ $rc -eq 0 ] || { echo "# rc=$rc"; head -3 "$tmp/err" | diag; }
	done
}

# hostile NAME SQL: a copy of the recording edited by SQL
hostile() {	# name sql [base]
	cp "${3:-$tmp/base.data}" "$tmp/$1.data" && sqlite3 "$tmp/$1.data" "$2" >/dev/null
	ok $? "sqlite3 makes $1.data"
}

"$MMPROF" record -q -o "$tmp/base.data" -- "$wl/page-fault" -s 0.2 >/dev/null 2>&1
ok $? "a recording to edit"

# item 1: generated columns and virtual tables
hostile gen-strings "PRAGMA legacy_alter_table=ON;
	CREATE TABLE s2(id INTEGER PRIMARY KEY,
	  s TEXT GENERATED ALWAYS AS (substr(replace(hex(zeroblob(2000000)), '0', 'x'), 1, 1) || t) VIRTUAL,
	  t TEXT NOT NULL);
	INSERT INTO s2(id, t) SELECT id, s FROM strings;
	DROP TABLE strings; ALTER TABLE s2 RENAME TO strings"
refused gen-strings "not the schema mmprof writes: column strings.s is generated"
hostile gen-cells "PRAGMA legacy_alter_table=ON;
	CREATE TABLE sc(id INTEGER PRIMARY KEY, run INTEGER NOT NULL, event INTEGER NOT NULL,
	  comm INTEGER, pid INTEGER NOT NULL, cells BLOB GENERATED ALWAYS AS (zeroblob(81920)) VIRTUAL);
	WITH RECURSIVE c(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM c WHERE i < 16382)
	INSERT INTO sc(id, run, event, comm, pid) SELECT i, 0, 0, NULL, 0 FROM c;
	DROP TABLE stack_counts; ALTER TABLE sc RENAME TO stack_counts"
refused gen-cells "not the schema mmprof writes: column stack_counts.cells is generated"
hostile fts4 "CREATE VIRTUAL TABLE notes USING fts4(a); INSERT INTO notes VALUES('x')"
refused fts4 "not the schema mmprof writes: 'notes' is a virtual table"
hostile fts5 "CREATE VIRTUAL TABLE n5 USING fts5(a); INSERT INTO n5 VALUES('x')"
refused fts5 "not the schema mmprof writes: 'n5' is a virtual table"

# item 4: counts that add up to 2^63 or more
# (formats 3 and 4 pack cells with zlib: the edits write them unpacked, size = length;
# format 4 reads a node as the step from the cell before, and these stay in range)
hostile max-cell "UPDATE stack_counts SET cells = CAST(x'00000001' || x'7fffffffffffffff' ||
	x'0000000000000001' || substr(sqlar_uncompress(cells, size), 21) AS BLOB) WHERE id = 0"
refused max-cell "the samples of all counts add up to 2^63 or more"
hostile four-2to62 "DELETE FROM stack_counts WHERE id > 0;
	UPDATE stack_counts SET cells = CAST(
	  x'00000001' || x'4000000000000000' || x'0000000000000001' ||
	  x'00000002' || x'4000000000000000' || x'0000000000000001' ||
	  x'00000003' || x'4000000000000000' || x'0000000000000001' ||
	  x'00000004' || x'4000000000000000' || x'0000000000000001' AS BLOB), size = 80 WHERE id = 0"
refused four-2to62 "the samples of all counts add up to 2^63 or more"

# item 2: 200,000 sampling events (pprof kept 2 values per event in every sample)
hostile events "WITH RECURSIVE c(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM c WHERE i < 199999)
	INSERT INTO events SELECT i, name, asked, type, config + i, freq, sample FROM events, c WHERE events.id = 0"
refused events "events row 256: more than 256 sampling events"

# item 2: 200,000 runs (report --json took 10 s and 1.41 GB)
hostile runs "WITH RECURSIVE c(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM c WHERE i < 199999)
	INSERT INTO runs SELECT i, start_ns, wall_ns, exit_code, term_signal, utime_us, stime_us,
	  maxrss_kb, minflt, majflt, nvcsw, nivcsw, samples, lost, throttled FROM runs, c WHERE runs.id = 0"
refused runs "runs row 10000: more than 10000 runs"
# ... and the 10,000 record -r allows are read within the limits
hostile runs10k "WITH RECURSIVE c(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM c WHERE i < 9999)
	INSERT INTO runs SELECT i, start_ns, wall_ns, exit_code, term_signal, utime_us, stime_us,
	  maxrss_kb, minflt, majflt, nvcsw, nivcsw, samples, lost, throttled FROM runs, c WHERE runs.id = 0"
read_ok runs10k
# ... with 400,000 metrics spread over them (every run scanned every row: 12 s)
hostile runs10k-metrics "WITH RECURSIVE c(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM c WHERE i < 9999)
	INSERT INTO runs SELECT i, start_ns, wall_ns, exit_code, term_signal, utime_us, stime_us,
	  maxrss_kb, minflt, majflt, nvcsw, nivcsw, samples, lost, throttled FROM runs, c WHERE runs.id = 0;
	WITH RECURSIVE c(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM c WHERE i < 399999)
	INSERT INTO metrics SELECT (SELECT max(id) FROM metrics) + 1 + i, i % 10000,
	  (SELECT min(id) FROM strings), 1.0 FROM c"
read_ok runs10k-metrics
# ... with 100,000 distinct metric keys, each in one run: the keys table
# laid out keys x runs asked for 8 GB (a 4 MB file); rows now hold the runs
# they have.  The keys view, whose output is one line a key.
hostile runs10k-keys "WITH RECURSIVE c(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM c WHERE i < 9999)
	INSERT INTO runs SELECT i, start_ns, wall_ns, exit_code, term_signal, utime_us, stime_us,
	  maxrss_kb, minflt, majflt, nvcsw, nivcsw, samples, lost, throttled FROM runs, c WHERE runs.id = 0;
	CREATE TEMP TABLE base(s INTEGER, m INTEGER);
	INSERT INTO base SELECT (SELECT max(id) FROM strings), (SELECT coalesce(max(id), -1) FROM metrics);
	WITH RECURSIVE c(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM c WHERE i < $nkeys)
	INSERT INTO strings SELECT (SELECT s FROM base) + i, 'wl.m' || i FROM c;
	WITH RECURSIVE c(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM c WHERE i < $nkeys)
	INSERT INTO metrics SELECT (SELECT m FROM base) + i, i % 10000, (SELECT s FROM base) + i, 1.0 FROM c"
limited report --keys "$tmp/runs10k-keys.data"
rc=$?
test $rc -eq 0 && grep -q "wl.m$nkeys: " "$tmp/out"
ok $? "runs10k-keys: report reads $nkeys keys over 10,000 runs within ${secs} s of CPU${as_kb:+ and $((as_kb / 1024)) MiB} (exit $rc)"
[ $rc -eq 0 ] || { head -3 "$tmp/err" | diag; }

# item 2: many distinct counter names
hostile names "WITH RECURSIVE c(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM c WHERE i < $nnames)
	INSERT INTO strings SELECT (SELECT max(id) FROM strings) + i, 'ctr' || i FROM c;
	INSERT INTO counters SELECT (SELECT count(*) FROM counters) + s.id - (SELECT min(id) FROM strings WHERE s LIKE 'ctr%'),
	  0, s.id, 1, 100, 1000, 1000 FROM strings s WHERE s.s LIKE 'ctr%'"
read_ok names
limited report --keys "$tmp/names.data"
grep -q "^perf-stat.ps.ctr$nnames: " "$tmp/out"
ok $? "names: the last counter name is a key"

# item 3: one chain of 65,535 distinct functions, its leaf sampled
# (on a format-2 file, the last whose frames and nodes are rows SQL can
# add to: the fuzzers' small base, through seed-to-data)
D=65535
printf 'SQL2:SELECT 1' >"$tmp/v2.seed"
"$MMPROF_BUILD/tests/seed-to-data" "$tmp/v2.seed" "$tmp/base2.data"
mn=$(sqlite3 "$tmp/base2.data" "select max(id) from nodes")
mf=$(sqlite3 "$tmp/base2.data" "select max(id) from frames")
ms=$(sqlite3 "$tmp/base2.data" "select max(id) from strings")
leaf=$(printf '%08X' $((mn + D)))
hostile deep "WITH RECURSIVE c(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM c WHERE i < $D)
	INSERT INTO strings SELECT $ms + i, 'deep' || i FROM c;
	WITH RECURSIVE c(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM c WHERE i < $D)
	INSERT INTO frames SELECT $mf + i, 4096 + i, 0, $ms + i, NULL, 0, 0, NULL FROM c;
	WITH RECURSIVE c(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM c WHERE i < $D)
	INSERT INTO nodes SELECT $mn + i, CASE WHEN i = 1 THEN 0 ELSE $mn + i - 1 END, $mf + i FROM c;
	DELETE FROM stack_counts WHERE id > 0;
	UPDATE stack_counts SET cells = CAST(x'$leaf' || x'0000000000000064' ||
	  x'00000000000F4240' AS BLOB) WHERE id = 0" "$tmp/base2.data"
for r in "report --tree" "report --tree -g caller"; do
	# shellcheck disable=SC2086
	limited $r "$tmp/deep.data"
	rc=$?
	test $rc -eq 0 && test "$(wc -c <"$tmp/out")" -lt 4000000 &&
		grep -q "^# 1 stack deeper than 127 frames: the innermost 127 shown" "$tmp/out" &&
		grep -q "deep$D\$" "$tmp/out" && ! grep -q "deep$((D - 127))\$" "$tmp/out"
	ok $? "deep: $r within ${secs} s of CPU, $(wc -c <"$tmp/out") bytes, the innermost 127 frames (rc $rc)"
done
limited report --tree --max-stack 5 "$tmp/deep.data"
grep -q "^# 1 stack deeper than 5 frames: the innermost 5 shown" "$tmp/out" &&
	test "$(grep -c '\[\.\] deep' "$tmp/out")" -eq 5
ok $? "deep: report --tree --max-stack 5: five entries"
read_ok deep
for r in "report --folded" "report --keys" "flamegraph -o $tmp/fg.svg" "report --html -o $tmp/d.html"; do
	# shellcheck disable=SC2086
	limited $r "$tmp/deep.data"
	ok $? "deep: ${r%% -o*} within ${secs} s of CPU"
done

done_testing
