# lib.sh: the preamble every integration test shares, sourced (POSIX sh,
# so both the sh and the bash tests can use it) as
#
#	. "$(dirname "$0")/lib.sh"
#	tap_setup t100		# only if the test needs a scratch folder
#	plan 20			# or let done_testing count
#	grep -q "^ok" "$tmp/out"
#	ok $? "description"
#	...
#	done_testing
#
# One assertion idiom: run the check as a command, then `ok $?` on the next
# line (or `; ok $?` after it) reports its exit status, 0 passing, as the
# shell reads a status.  A status kept for a diagnostic first is `ok $rc`.
# A branch with nothing to check that must fail says `fail "description"`,
# never `ok 1`.
#
# It sets $here (the top of the tree), defaults $MMPROF_BUILD and $MMPROF to
# the tree's build/ when a test is run by hand (make check passes both),
# and $wl to the bundled workloads.  Its names are the test's own: n and
# failed count the assertions, tmp is the scratch folder; the lib's private
# state starts with tap_.  It is not matched by the t*.sh glob, so prove
# does not run it as a test.

here=$(cd "$(dirname "$0")/../.." && pwd)
: "${MMPROF_BUILD:=$here/build}"
: "${MMPROF:=$MMPROF_BUILD/mmprof}"
wl=$MMPROF_BUILD/workloads

n=0
failed=0
tap_planned=

# tap_setup NAME: a fresh $tmp, removed when the test exits.  A test with
# more to undo (background processes, mounts, sysctls) defines
# cleanup_hook, which runs first, while $tmp still exists.
tap_setup() {
	tmp=$(mktemp -d "${TMPDIR:-/tmp}/$1.XXXXXX") || exit 2
	trap tap_cleanup EXIT
	# perf's build-id cache, which perf record fills and from which
	# mmprof names a stripped file as perf report does: the test's own,
	# empty, so that no test's names depend on what another test, make
	# bench or the user's perf put in ~/.debug (a test of the cache
	# itself unsets or sets it after tap_setup)
	PERF_BUILDID_DIR="$tmp/.perf-buildid"
	export PERF_BUILDID_DIR
}

tap_cleanup() {
	if command -v cleanup_hook >/dev/null 2>&1; then
		cleanup_hook
	fi
	rm -rf "$tmp"
}

# plan N: print the plan up front (done_testing then does not print it)
plan() {
	echo "1..$1"
	tap_planned=$1
}

ok() {	# ok STATUS DESCRIPTION: one TAP line, STATUS 0 (the check's $?) passes;
	# returns 0 when it passed, 1 when not (so "ok $? ... || diag FILE" shows why)
	n=$((n + 1))
	if [ "$1" -eq 0 ]; then
		echo "ok $n - $2"
		return 0
	fi
	echo "not ok $n - $2"
	failed=$((failed + 1))
	return 1
}

fail() {	# fail DESCRIPTION: a "not ok" line where nothing could be checked
	ok 1 "$1"
}

diag() { sed 's/^/# /' "$@"; }	# diag [FILE...]: as TAP comments

# run_limited CPU WALL KB ARGS...: $MMPROF ARGS within CPU seconds of
# CPU, WALL seconds of wall clock and KB KiB of address space (none when
# empty); its stdout in $tmp/out, its stderr in $tmp/err, its exit status
# returned (137 or 124 past a limit).  The hostile-file tests' way of
# running a reader.
run_limited() {
	(
		_cpu=$1 _wall=$2 _kb=$3
		shift 3
		[ -n "$_kb" ] && ulimit -v "$_kb"
		ulimit -t "$_cpu"
		exec timeout "$_wall" "$MMPROF" "$@"
	) >"$tmp/out" 2>"$tmp/err"
}

# tracefs_dir: sets $tracefs to the folder holding events/, mounting
# tracefs where the kernel provides the mount point as record does; empty
# when there is none
wait_child() {	# wait_child PID NAME: until PID has a child NAME (at most 30 s)
	_i=0
	while [ $_i -lt 300 ]; do
		pgrep -P "$1" -x "$2" >/dev/null 2>&1 && return 0
		sleep 0.1
		_i=$((_i + 1))
	done
	return 1
}

# record_thp_on OUT RUNS [WORKLOAD ARGS...]: record RUNS runs of thp-zap
# --thp on (with ARGS) into OUT under the THP split lock, again (at most
# three attempts) until every run split huge pages, as the workload counts
# them itself (thp-zap.thp_split_pmd): while the rest of make check holds
# the memory the kernel may have no huge page to give, and a run that
# splits nothing would judge the machine, not mmprof.  Record's stderr is
# appended to OUT.err, each attempt's counts are printed as TAP comments;
# the status is record's.  Set RECORD_OPTS for options before "--".
record_thp_on() {
	_out=$1 _runs=$2
	shift 2
	for _attempt in 1 2 3; do
		# shellcheck disable=SC2086
		flock "${TMPDIR:-/tmp}/mmprof-thp-split.lock" "$MMPROF" record -q -r "$_runs" -o "$_out" \
			${RECORD_OPTS:-} -- "$wl/thp-zap" --thp on "$@" >/dev/null 2>>"$_out.err"
		_rc=$?
		_splits=$("$MMPROF" report --runs "$_out" 2>/dev/null | sed -n 's/^thp-zap\.thp_split_pmd: .*runs: //p')
		echo "# --thp on, attempt $_attempt: thp_split_pmd per run: ${_splits:-none}"
		[ $_rc -ne 0 ] && break
		echo "$_splits" | awk '{ for (i = 1; i <= NF; i++) if (!($i > 0)) exit 1; exit NF == 0 }' && break
	done
	return $_rc
}

tracefs_dir() {
	tracefs=
	for d in /sys/kernel/tracing /sys/kernel/debug/tracing; do
		[ -d "$d/events" ] && { tracefs=$d; return 0; }
	done
	mount -t tracefs nodev /sys/kernel/tracing 2>/dev/null && tracefs=/sys/kernel/tracing
}

# drop_env_warnings FILE: record's stderr in FILE without the warnings a
# kernel that lowered kernel.perf_event_max_sample_rate (it does so itself
# when sampling interrupts take too long) adds to any recording: -F lowered
# to the limit, sampling throttled.  For tests that check stderr exactly.
drop_env_warnings() {
	grep -v -e '^mmprof: warning: -F [0-9]* is above kernel.perf_event_max_sample_rate' \
		-e '^mmprof: warning: the kernel throttled sampling' "$1" || true
}

# to_format2 FILE: rewrite a .data of format 3 or 4 as format 2 with the
# sqlite3 shell (its views unpack the blocks), for tests that edit frames and
# nodes as rows: formats 3 and 4 pack them (Documentation/data-format.md).
to_format2() {
	if [ "$(sqlite3 "$1" 'PRAGMA user_version')" = 4 ]; then
		# format 4: frame_files is a view, and a cell's node is the step
		# from the cell before: the cells are written again with nodes
		# (SQLite 3.40 has no unhex: bytes from a table of the 256)
		bytes=$(i=0; while [ $i -lt 256 ]; do printf ",(%d,x'%02x')" $i $i; i=$((i + 1)); done)
		h="hex(substr(b, i * 20 + 1, 4))" step=""
		for k in 1 2 3 4 5 6 7 8; do
			step="$step${step:+|}((instr('0123456789ABCDEF',substr($h,$k,1))-1)<<$((32 - 4 * k)))"
		done
		nn="((node + ($step)) & 4294967295)" be4=""
		for sh in 24 16 8 0; do
			be4="$be4${be4:+ || }(SELECT v FROM byte WHERE k = ($nn >> $sh) & 255)"
		done
		sqlite3 "$1" "
		CREATE TABLE ff2 AS SELECT * FROM frame_files;
		DROP VIEW frame_files; DROP TABLE frame_file_blocks;
		CREATE TABLE frame_files(id INTEGER PRIMARY KEY,
		  frame INTEGER NOT NULL REFERENCES frames(id), vaddr INTEGER NOT NULL, build_id TEXT);
		INSERT INTO frame_files SELECT * FROM ff2 ORDER BY id; DROP TABLE ff2;
		CREATE TEMP TABLE byte(k INTEGER PRIMARY KEY, v BLOB);
		INSERT INTO byte VALUES ${bytes#,};
		CREATE TEMP TABLE c4 AS
		  WITH RECURSIVE blk AS MATERIALIZED (
		    SELECT id, size / 20 AS n, sqlar_uncompress(cells, size) AS b FROM stack_counts),
		  walk(id, i, n, b, node, acc) AS (
		    SELECT id, 0, n, b, 0, x'' FROM blk
		    UNION ALL
		    SELECT id, i + 1, n, b, $nn, acc || $be4 || substr(b, i * 20 + 5, 16)
		    FROM walk WHERE i < n)
		  SELECT id, CAST(acc AS BLOB) AS cells FROM walk WHERE i = n;
		UPDATE stack_counts SET cells = (SELECT cells FROM c4 WHERE c4.id = stack_counts.id),
		  size = (SELECT length(cells) FROM c4 WHERE c4.id = stack_counts.id)" || return
	fi
	sqlite3 "$1" "
	CREATE TABLE f2 AS SELECT * FROM frames;
	CREATE TABLE n2 AS SELECT * FROM nodes;
	CREATE TABLE c2 AS SELECT id, run, event, comm, pid, sqlar_uncompress(cells, size) AS cells
	  FROM stack_counts;
	DROP VIEW counts_v; DROP VIEW counts; DROP VIEW stacks; DROP VIEW nodes_v;
	DROP VIEW frames_v; DROP VIEW frames; DROP VIEW nodes;
	DROP TABLE frame_blocks; DROP TABLE node_blocks; DROP TABLE stack_counts;
	CREATE TABLE frames(id INTEGER PRIMARY KEY, addr INTEGER NOT NULL, sym_off INTEGER NOT NULL,
	  sym INTEGER REFERENCES strings(id), dso INTEGER REFERENCES strings(id),
	  kernel INTEGER NOT NULL, inlined INTEGER, raw INTEGER REFERENCES strings(id));
	INSERT INTO frames SELECT * FROM f2 ORDER BY id;
	CREATE TABLE nodes(id INTEGER PRIMARY KEY, parent INTEGER NOT NULL,
	  frame INTEGER NOT NULL REFERENCES frames(id));
	INSERT INTO nodes SELECT * FROM n2 ORDER BY id;
	CREATE TABLE stack_counts(id INTEGER PRIMARY KEY, run INTEGER NOT NULL REFERENCES runs(id),
	  event INTEGER NOT NULL REFERENCES events(id), comm INTEGER REFERENCES strings(id),
	  pid INTEGER NOT NULL, cells BLOB NOT NULL);
	INSERT INTO stack_counts SELECT * FROM c2 ORDER BY id;
	DROP TABLE f2; DROP TABLE n2; DROP TABLE c2;
	PRAGMA user_version = 2; UPDATE meta SET value = '2' WHERE key = 'format_version'"
}

# kernel_build_id: the running kernel's GNU build-id (hex), parsed from the
# ELF notes of /sys/kernel/notes by an awk of its own (not mmprof's parser)
kernel_build_id() {
	od -An -v -tx1 /sys/kernel/notes | awk '
	{ for (i = 1; i <= NF; i++) b[n++] = $i }
	function hex(h,   v, i) {	# POSIX awk has no strtonum
		v = 0
		for (i = 1; i <= length(h); i++)
			v = v * 16 + index("0123456789abcdef", substr(h, i, 1)) - 1
		return v
	}
	function le32(o) { return hex(b[o + 3] b[o + 2] b[o + 1] b[o]) }
	END {
		pos = 0
		while (pos + 12 <= n) {
			nsz = le32(pos); dsz = le32(pos + 4); type = le32(pos + 8)
			name = pos + 12; desc = name + int((nsz + 3) / 4) * 4
			if (type == 3 && nsz == 4 && b[name] == "47" && b[name + 1] == "4e" && b[name + 2] == "55") {
				for (i = 0; i < dsz; i++) printf "%s", b[desc + i]
				exit
			}
			pos = desc + int((dsz + 3) / 4) * 4
		}
	}'
}

# hottest_kernel_fn FILE: "NAME START SIZE" of the core-kernel function
# with the most samples at their IP in FILE whose name is a C identifier and
# whose size (to the next address in /proc/kallsyms) is 4 to 65536 bytes;
# START in hex without 0x.  Nothing when none.
hottest_kernel_fn() {
	sqlite3 -batch -noheader "$1" "
	SELECT s.s, printf('%016x', f.addr - f.sym_off), sum(c.samples) AS n
	FROM counts c JOIN nodes nd ON nd.id = c.node JOIN frames f ON f.id = nd.frame
	JOIN strings s ON s.id = f.sym JOIN strings d ON d.id = f.dso
	WHERE f.kernel = 1 AND d.s = '[kernel.kallsyms]'
	GROUP BY f.addr - f.sym_off ORDER BY n DESC" |
	while IFS='|' read -r name addr samples; do
		case $name in *[!A-Za-z0-9_]* | [0-9]* | "") continue ;; esac
		next=$(awk -v a="$addr" '$1 > a && (!m || $1 < m) { m = $1 } END { print m }' /proc/kallsyms)
		[ -n "$next" ] || continue
		sz=$((0x$next - 0x$addr))
		[ "$sz" -ge 4 ] && [ "$sz" -le 65536 ] || continue
		echo "$name $addr $sz"
		break
	done
}

# fake_vmlinux DIR FN OFF SIZE BASE BUILD_ID: DIR/vmlinux, an ELF file that
# stands in for a kernel's vmlinux (no machine of the suite has its own):
# _text and _stext at 0xBASE, FN at 0xBASE + 0xOFF, SIZE bytes: a call of an
# always_inline fake_mid() into an always_inline fake_leaf() whose body is
# ".skip SIZE-1" (all of FN but its ret), with DWARF, and the build-id
# BUILD_ID (ld --build-id).  Non-zero status when it cannot be built.
fake_vmlinux() {
	cat >"$1/fake.c" <<EOF
static inline __attribute__((always_inline)) void fake_leaf(void)
{
	__asm__ volatile(".skip $(($4 - 1)), 0x90");
}
static inline __attribute__((always_inline)) void fake_mid(void)
{
	fake_leaf();
}
void $2(void);
void $2(void)
{
	fake_mid();
}
EOF
	cat >"$1/fake.lds" <<EOF
SECTIONS
{
	_text = 0x$5;
	_stext = _text;
	. = 0x$5 + 0x$3;
	.text : { *(.text .text.*) }
	.note.gnu.build-id : { *(.note.gnu.build-id) }
	/DISCARD/ : { *(.eh_frame) *(.note.GNU-stack) *(.comment) }
}
EOF
	cc -c -w -O2 -g -mcmodel=kernel -ffreestanding -fno-pic -fno-pie -nostdlib \
		-fcf-protection=none -fno-asynchronous-unwind-tables -falign-functions=1 \
		-o "$1/fake.o" "$1/fake.c" &&
		ld -T "$1/fake.lds" --build-id=0x"$6" -o "$1/vmlinux" "$1/fake.o"
}

# done_testing: the plan if none was printed, and exit 1 if anything failed
done_testing() {
	[ -n "$tap_planned" ] || echo "1..$n"
	exit $((failed != 0))
}
