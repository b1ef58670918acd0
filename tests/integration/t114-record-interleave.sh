#!/bin/sh
# t114-record-interleave: record --interleave B.data -- CMD-A -- CMD-B
# records the two sides of a comparison together (issue 32 point 6): run i
# of each command next to run i of the other, the first side alternating
# (ABBA), each command's runs in its own file, with meta keys naming the
# partner and the pairing.  Bad uses are one line and exit 2, nothing
# written; a side whose workload fails is named in the messages and the
# exit status is 3, as for one file.

. "$(dirname "$0")/lib.sh"
tap_setup t114
plan 20

q() { sqlite3 "$1" "$2"; }

"$MMPROF" record -q -r 3 -o "$tmp/a.data" --interleave "$tmp/b.data" -- \
	"$wl/cost-mix" --seconds 0.2 -- "$wl/page-fault" --seconds 0.2 >"$tmp/out" 2>"$tmp/err"
rc=$?
ok $rc "record -r 3 --interleave exits 0"
[ $rc -eq 0 ] || diag "$tmp/err"
test "$(q "$tmp/a.data" 'select count(*) from runs')" = 3 &&
	test "$(q "$tmp/b.data" 'select count(*) from runs')" = 3
ok $? "-r 3: three runs in each file"
test "$(q "$tmp/a.data" "select count(*) from metrics_v where key = 'cost-mix.ops'")" = 3 &&
	test "$(q "$tmp/a.data" "select count(*) from metrics_v where key like 'page-fault.%'")" = 0
ok $? "the -o file holds the first command's runs only"
test "$(q "$tmp/b.data" "select count(*) from metrics_v where key = 'page-fault.ops'")" = 3 &&
	test "$(q "$tmp/b.data" "select count(*) from metrics_v where key like 'cost-mix.%'")" = 0
ok $? "the --interleave file holds the second command's runs only"

# the runs by start time, named a0 b0 ...: ABBA is a0 b0 b1 a1 a2 b2
{
	q "$tmp/a.data" "select start_ns, 'a' || id from runs"
	q "$tmp/b.data" "select start_ns, 'b' || id from runs"
} | sort -n | cut -d'|' -f2 | tr -d '\n' >"$tmp/order"
test "$(cat "$tmp/order")" = a0b0b1a1a2b2
ok $? "runs alternate in ABBA order (a0 b0 b1 a1 a2 b2)"
[ "$(cat "$tmp/order")" = a0b0b1a1a2b2 ] || echo "# order: $(cat "$tmp/order")"

meta() { q "$1" "select value from meta where key = '$2'"; }
test "$(meta "$tmp/a.data" interleave.side)" = a && test "$(meta "$tmp/b.data" interleave.side)" = b
ok $? "meta interleave.side: a for the -o file, b for the other"
test "$(meta "$tmp/a.data" interleave.with)" = "$tmp/b.data" &&
	test "$(meta "$tmp/b.data" interleave.with)" = "$tmp/a.data"
ok $? "meta interleave.with names the partner file"
test "$(meta "$tmp/a.data" interleave.pairs)" = 3 && test "$(meta "$tmp/b.data" interleave.order)" = abba
ok $? "meta interleave.pairs and interleave.order"
test "$(grep -c '^cost-mix.ops:' "$tmp/out")" = 3 && test "$(grep -c '^page-fault.ops:' "$tmp/out")" = 3
ok $? "both commands' outputs are passed through"
"$MMPROF" diff "$tmp/a.data" "$tmp/b.data" >/dev/null 2>"$tmp/diff.err"
ok $? "the two files diff"
# the setup's notes (no PMU, kernel symbols) are the same for both sides: said once
"$MMPROF" record -r 1 -o "$tmp/n.data" --interleave "$tmp/m.data" -- true -- true \
	>/dev/null 2>"$tmp/err"
test "$(grep -v "^mmprof: 1 run, .* wrote" "$tmp/err" | sort | uniq -d | wc -l)" -eq 0
rc=$?
ok $rc "no note is said twice"
[ $rc -eq 0 ] || diag "$tmp/err"

# a failing side: exit 3, both files written, the message names the file
"$MMPROF" record -q -r 2 -o "$tmp/f.data" --interleave "$tmp/g.data" -- \
	"$wl/cost-mix" --seconds 0.1 -- sh -c 'exit 7' >/dev/null 2>"$tmp/err"
rc=$?
test $rc -eq 3 && test -s "$tmp/f.data" && test -s "$tmp/g.data"
ok $? "a side that fails: exit 3 and both files written (got $rc)"
grep -q "exited with status 7 in run 1 of '$tmp/g.data'" "$tmp/err"
ok $? "the failed run's message names its file"
grep -q "the workload failed in 2 of 2 runs.*'$tmp/g.data'" "$tmp/err" &&
	! grep -q "failed in .*'$tmp/f.data'" "$tmp/err"
ok $? "the summary of failures is the failing side's only"

bad() {	# bad DESCRIPTION ARGS...: exit 2, one line, no file
	d=$1
	shift
	rm -f "$tmp/x.data" "$tmp/y.data"
	"$MMPROF" record -q "$@" >/dev/null 2>"$tmp/err"
	rc=$?
	test $rc -eq 2 && test "$(wc -l <"$tmp/err")" -eq 1 && test ! -e "$tmp/x.data" &&
		test ! -e "$tmp/y.data"
	ok $? "$d: exit 2, one line, nothing written"
	[ $rc -eq 2 ] || diag "$tmp/err"
}
bad "one command" -o "$tmp/x.data" --interleave "$tmp/y.data" -- true
bad "an empty second command" -o "$tmp/x.data" --interleave "$tmp/y.data" -- true --
bad "an empty first command" -o "$tmp/x.data" --interleave "$tmp/y.data" -- -- true
bad "-p" -o "$tmp/x.data" --interleave "$tmp/y.data" -p $$ -- true -- true
bad "-a" -o "$tmp/x.data" --interleave "$tmp/y.data" -a -- true -- true
bad "the -o file twice" -o "$tmp/x.data" --interleave "$tmp/x.data" -- true -- true

done_testing
