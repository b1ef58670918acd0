#!/bin/sh
# t330-push: mmprof push into an SQLite store, and diff reading its sides
# from the store (STORE:COMMIT).
#   - push: the summary line, defaults (machine from the host, benchmark
#     from the workload), --time, the same file twice is one push;
#   - diff STORE:A STORE:B gives the rows of the diff of the files
#     themselves (csv, byte for byte), two pushes of one commit pooled;
#     its temporary files are gone after a diff and after a failed one;
#   - bad input is one line and exit 2: no --commit, a bad --time, a name
#     with a control character, a .data file as the store (left as it
#     was), a store of a newer schema, an unknown commit, several machines;
#   - 4 pushers at once (WAL, busy timeout): no push lost or doubled;
#   - pushers killed (SIGKILL) at random points: the store stays whole,
#     every push in it complete, and takes pushes after.
# The PostgreSQL store is t331's.

. "$(dirname "$0")/lib.sh"
tap_setup t330
. "$(dirname "$0")/store.sh"

rec() {	# rec OUT RUNS
	"$MMPROF" record -q -r "$2" -o "$tmp/$1" -- "$wl/thp-zap" --thp off -s 0.3 >/dev/null 2>"$tmp/rec.err"
}
rec a.data 2; ok $? "record a (2 runs)"
rec b.data 2; ok $? "record b (2 runs)"
rec c.data 1; ok $? "record c (1 run)"
S=$tmp/store.db

"$MMPROF" push --store "$S" --commit aaa111 --branch main "$tmp/a.data" >"$tmp/out" 2>"$tmp/err"
ok $? "push a to a new store"
host=$(sqlite3 "$tmp/a.data" "SELECT value FROM meta WHERE key = 'hostname'")
grep -q "a.data: push 1, commit aaa111, machine $host, benchmark thp-zap: 2 runs, [0-9]* keys" "$tmp/out"
ok $? "its line: push 1, the host as machine, the workload as benchmark, 2 runs"
"$MMPROF" push --store "$S" --commit aaa111 "$tmp/a.data" >"$tmp/out" 2>&1
ok $? "push a again: exit 0"
grep -q "in the store already (sha256 [0-9a-f]*...); nothing pushed" "$tmp/out"; ok $? "says it is there already"
[ "$(sqlite3 "$S" "SELECT count(*) FROM pushes")" = 1 ]; ok $? "one push row"
"$MMPROF" push -q --store "$S" --commit bbb222 --parent aaa111 --time 2026-01-02 "$tmp/b.data" >"$tmp/out" 2>&1 &&
	"$MMPROF" push -q --store "$S" --commit bbb222 --machine "$host" "$tmp/c.data" >>"$tmp/out" 2>&1
ok $? "push b and c as commit bbb222"
[ ! -s "$tmp/out" ]; ok $? "-q prints nothing"
[ "$(sqlite3 "$S" "SELECT time, parent FROM pushes WHERE id = 2")" = "1767312000|aaa111" ]
ok $? "--time 2026-01-02 is 1767312000, the parent kept"
[ "$(sqlite3 "$S" "SELECT sum(nr_runs), count(DISTINCT hash) FROM pushes")" = "5|3" ]
ok $? "three pushes of five runs"
[ "$(sqlite3 "$S" "SELECT count(*) FROM runs")" = 5 ] &&
	[ "$(sqlite3 "$S" "SELECT count(*) FROM blobs")" = 3 ]
ok $? "a row per run, a file per push"

# diff from the store: the rows of the diff of the files
mkdir "$tmp/t"
TMPDIR=$tmp/t "$MMPROF" diff -f csv "$S:aaa111" "$S:bbb222" >"$tmp/store.csv" 2>"$tmp/err"
ok $? "diff STORE:aaa111 STORE:bbb222"
"$MMPROF" diff -f csv "$tmp/a.data" -- "$tmp/b.data" "$tmp/c.data" >"$tmp/files.csv" 2>"$tmp/err2"
cmp -s "$tmp/store.csv" "$tmp/files.csv"; ok $? "its rows are those of a.data against b.data + c.data, byte for byte"
TMPDIR=$tmp/t "$MMPROF" diff "$S:aaa" "$S:bbb222" >"$tmp/out" 2>&1
grep -q "^base: *$S:aaa\$" "$tmp/out" && grep -q "^runs  *2  *3" "$tmp/out"
ok $? "a commit by its prefix; the header names the store's commits, b and c's runs pooled"
[ -z "$(ls -A "$tmp/t")" ]; ok $? "the fetched files are gone after the diff"
cp "$S" "$tmp/damaged.db"
sqlite3 "$tmp/damaged.db" "UPDATE blobs SET data = x'00' WHERE push_id = 3"
TMPDIR=$tmp/t "$MMPROF" diff "$tmp/damaged.db:aaa111" "$tmp/damaged.db:bbb222" >"$tmp/out" 2>"$tmp/err"
[ $? = 2 ] && grep -q "push 3's file is damaged" "$tmp/err" && [ "$(wc -l <"$tmp/err")" = 1 ]
ok $? "a damaged file in the store: one line, exit 2"
[ -z "$(ls -A "$tmp/t")" ]; ok $? "and no fetched file left behind"

# bad input: one line, exit 2
bad() {	# bad DESCRIPTION PATTERN CMD...: exit 2, one line on stderr matching PATTERN
	d=$1 pat=$2
	shift 2
	"$@" >"$tmp/out" 2>"$tmp/err"
	rc=$?
	[ $rc = 2 ] && [ "$(wc -l <"$tmp/err")" = 1 ] && grep -q -e "$pat" "$tmp/err"
	ok $? "$d"
	[ $rc = 2 ] || diag "$tmp/err"
}
bad "no --commit" "commit is required" "$MMPROF" push --store "$S" "$tmp/a.data"
bad "a bad --time" "expected Unix seconds or a UTC date" "$MMPROF" push --store "$S" --commit x --time yesterday "$tmp/a.data"
bad "a commit with a newline" "--commit: a name of 1 to 255 bytes" "$MMPROF" push --store "$S" --commit "a
b" "$tmp/a.data"
bad "a machine that is not UTF-8" "--machine: a name" "$MMPROF" push --store "$S" --commit x --machine "$(printf 'm\377')" "$tmp/a.data"
cp "$tmp/a.data" "$tmp/a.copy"
bad "a .data file as the store" "is not an mmprof store" "$MMPROF" push --store "$tmp/a.data" --commit x "$tmp/b.data"
cmp -s "$tmp/a.data" "$tmp/a.copy"; ok $? "and that file is left byte for byte"
bad "a file that is not a .data" "cannot load\|not an mmprof data file" "$MMPROF" push --store "$S" --commit x "$tmp/err"
bad "an unknown commit" "has no push of commit 'zzz'" "$MMPROF" diff "$S:zzz" "$tmp/a.data"
"$MMPROF" push -q --store "$S" --commit bbb222 --machine other "$tmp/a.copy" 2>/dev/null
sqlite3 "$tmp/a.copy" "UPDATE meta SET value = 'v2' WHERE key = 'hostname'" 2>/dev/null
"$MMPROF" push -q --store "$S" --commit bbb222 --machine other "$tmp/a.copy"
bad "two machines for one commit, none chosen" "choose one with --machine" "$MMPROF" diff "$S:aaa111" "$S:bbb222"
"$MMPROF" diff --machine "$host" -f csv "$S:aaa111" "$S:bbb222" >"$tmp/m.csv" 2>"$tmp/err2"
cmp -s "$tmp/m.csv" "$tmp/files.csv"; ok $? "--machine chooses: the same rows as before"
cp "$S" "$tmp/newer.db"
sqlite3 "$tmp/newer.db" "UPDATE schema_version SET version = 99"
bad "a store of a newer schema" "schema version 99, newer than this mmprof's" "$MMPROF" push --store "$tmp/newer.db" --commit x "$tmp/b.data"

# pushers at once and killed pushers: variants of one file, a meta value patched in place
variant_base "$tmp/a.data" "$tmp/base.data"; ok $? "a file to make variants of"
C=$tmp/conc.db
pusher() {	# pusher P N
	i=0
	while [ $i -lt "$2" ]; do
		i=$((i + 1))
		variant "$tmp/w$1.data" "$1" $i && "$MMPROF" push -q --store "$C" --commit "c$1-$i" "$tmp/w$1.data" ||
			echo "pusher $1 push $i failed" >>"$tmp/conc.err"
	done
}
: >"$tmp/conc.err"
for p in 1 2 3 4; do pusher $p 12 & done
wait
[ ! -s "$tmp/conc.err" ]; ok $? "4 pushers of 12 pushes each at once: none failed"
diag "$tmp/conc.err"
[ "$(sqlite3 "$C" "SELECT count(*), count(DISTINCT commit_id), count(DISTINCT hash), sum(nr_runs) FROM pushes")" = "48|48|48|96" ]
ok $? "48 pushes, each once, 96 runs"
[ "$(sqlite3 "$C" "SELECT count(*) FROM runs")" = 96 ] &&
	[ "$(sqlite3 "$C" "SELECT count(DISTINCT push_id) FROM keyvals")" = 48 ]
ok $? "every run and every push's keys there"

K=$tmp/kill.db
"$MMPROF" push -q --store "$K" --commit first "$tmp/b.data"
k=0
while [ $k -lt 12 ]; do
	k=$((k + 1))
	variant "$tmp/k$k.data" 9 $k
	"$MMPROF" push -q --store "$K" --commit "k$k" "$tmp/k$k.data" 2>/dev/null &
	pid=$!
	# 0 to 63 ms: before, during and after its transaction
	sleep "0.0$(od -An -N1 -tu1 /dev/urandom | awk '{ printf "%02d", $1 % 64 }')"
	kill -9 $pid 2>/dev/null
	wait $pid 2>/dev/null
done
[ "$(sqlite3 "$K" "PRAGMA integrity_check")" = ok ]; ok $? "12 pushers killed at random points: the store is whole"
sqlite3 "$K" "
SELECT count(*) FROM pushes p WHERE nr_runs != (SELECT count(*) FROM runs WHERE push_id = p.id)
  OR NOT EXISTS (SELECT 1 FROM blobs WHERE push_id = p.id)
  OR NOT EXISTS (SELECT 1 FROM keyvals WHERE push_id = p.id)
  OR (SELECT count(*) FROM meta WHERE push_id = p.id) = 0;
SELECT count(*) FROM runs WHERE push_id NOT IN (SELECT id FROM pushes);
SELECT count(*) FROM keyvals WHERE push_id NOT IN (SELECT id FROM pushes);
SELECT count(*) FROM blobs WHERE push_id NOT IN (SELECT id FROM pushes);
SELECT count(*) FROM meta WHERE push_id NOT IN (SELECT id FROM pushes);" >"$tmp/kill.out"
[ "$(tr '\n' ' ' <"$tmp/kill.out")" = "0 0 0 0 0 " ]; rc=$?
ok $rc "every push in it complete, no row of a push that is not"
[ $rc = 0 ] || diag "$tmp/kill.out"
"$MMPROF" push -q --store "$K" --commit after "$tmp/c.data" &&
	[ "$(sqlite3 "$K" "SELECT count(*) FROM pushes WHERE commit_id = 'after'")" = 1 ]
ok $? "and it takes a push after"

done_testing
