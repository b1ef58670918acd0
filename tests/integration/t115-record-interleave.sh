#!/bin/sh
# t115-record-interleave: record --interleave B.data -- CMD-A -- CMD-B
# records the two sides of a comparison together (issue 32 point 6): run i
# of each command next to run i of the other, the first side alternating
# (ABBA), each command's runs in its own file, with meta keys naming the
# partner and the pairing.  Bad uses are one line and exit 2, nothing
# written; a side whose workload fails is named in the messages and the
# exit status is 3, as for one file.  --budget adds pairs until the score's
# verdict is clear: a script whose score the test sets (from a counter
# shared by both sides, so that the values follow the ABBA order) makes
# "clear" and "budget spent" certain.

. "$(dirname "$0")/lib.sh"
tap_setup t115
plan 28

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

# --budget: score.sh BASE STEP prints score.ops_per_sec BASE, BASE + STEP,
# BASE, ... over the runs of both sides (a counter file beside it)
cat >"$tmp/score.sh" <<'EOF'
#!/bin/sh
f=$(dirname "$0")/count
n=$(cat "$f" 2>/dev/null || echo 0)
echo $((n + 1)) >"$f"
echo "score.ops_per_sec: $(($1 + (n % 2) * $2))"
EOF
chmod +x "$tmp/score.sh"
runs() { q "$1" 'select count(*) from runs'; }

rm -f "$tmp/count"
"$MMPROF" record -r 2 --budget 5 -o "$tmp/c.data" --interleave "$tmp/d.data" -- \
	"$tmp/score.sh" 100 2 -- "$tmp/score.sh" 200 2 >/dev/null 2>"$tmp/err"
test $? -eq 0 && test "$(meta "$tmp/c.data" interleave.stopped)" = "clear after 2 pairs" &&
	test "$(runs "$tmp/c.data")" = 2 && test "$(runs "$tmp/d.data")" = 2
ok $? "--budget: a score twice as high in every run is clear at the -r pairs; no more runs"
grep -q "^mmprof: 2 pairs: score.ops_per_sec +99 % (up.*clear" "$tmp/err"
ok $? "--budget says the score's change, verdict and why it stopped"

# A/A where every pair's values swap: never clear
rm -f "$tmp/count"
"$MMPROF" record -q -r 2 --budget 4 -o "$tmp/c.data" --interleave "$tmp/d.data" -- \
	"$tmp/score.sh" 100 50 -- "$tmp/score.sh" 100 50 >/dev/null 2>"$tmp/err"
test $? -eq 0 && test "$(meta "$tmp/d.data" interleave.stopped)" = "budget spent after 4 pairs" &&
	test "$(runs "$tmp/c.data")" = 4 && test "$(runs "$tmp/d.data")" = 4
ok $? "--budget: a score that cannot be told apart gets every pair of the budget"
test "$(grep -c "pairs: score.ops_per_sec" "$tmp/err")" = 1 && grep -q "budget is spent" "$tmp/err"
ok $? "-q: only the last verdict line"

"$MMPROF" record -q -r 1 --budget 3 --score nosuch.ops -o "$tmp/c.data" --interleave "$tmp/d.data" \
	-- "$tmp/score.sh" 1 1 -- "$tmp/score.sh" 1 1 >/dev/null 2>"$tmp/err"
test $? -eq 0 && test "$(meta "$tmp/c.data" interleave.stopped)" = "no score" &&
	test "$(runs "$tmp/c.data")" = 1 && grep -q "warning: --budget: the runs have no metric matching nosuch.ops" "$tmp/err"
ok $? "--budget without the score in the runs: a warning, the -r pairs only"

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
bad "--budget without --interleave" -o "$tmp/x.data" --budget 3 -- true
bad "--budget below -r" -r 4 --budget 3 -o "$tmp/x.data" --interleave "$tmp/y.data" -- true -- true
bad "--score without --budget" --score a.ops -o "$tmp/x.data" --interleave "$tmp/y.data" -- true -- true

done_testing
