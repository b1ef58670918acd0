#!/bin/sh
# t109-record-failed-runs: a workload that fails is visible (#18 point 3).
#   - record and stat exit 3 when a run's workload exited non-zero or was
#     killed (0 fine, 1 a tripped gate, 2 an error are taken), after one
#     line saying so, and the file is written and complete;
#   - the run a stop signal (Ctrl-C) cut short is the user's, not a failure:
#     exit 0; -p has no status to fail;
#   - diff's header, JSON and HTML give every run's status; a side whose
#     runs all failed is refused (exit 2) unless --allow-failed.

. "$(dirname "$0")/lib.sh"
tap_setup t109

plan 22

# 1-5: record -r 3 -- false
"$MMPROF" record -r 3 -o "$tmp/f.data" -- false >/dev/null 2>"$tmp/err"
rc=$?
test $rc -eq 3
ok $? "record -r 3 -- false: exit 3 (the workload failed), not 0"
[ $rc -eq 3 ] || { echo "# rc=$rc"; diag "$tmp/err"; }
grep -qx "mmprof: the workload failed in 3 of 3 runs (first run 0: exit status 1; runs count from 0, as report and diff --drop-run name them); '$tmp/f.data' holds them: exit status 3" "$tmp/err"
ok $? "one line says how many runs failed, the first's status, and the exit status"
[ $? -eq 0 ] || diag "$tmp/err"
test "$(sqlite3 "$tmp/f.data" 'select group_concat(exit_code) from runs')" = "1,1,1" &&
	test "$(sqlite3 "$tmp/f.data" "select value from meta where key = 'nr_runs'")" = 3
ok $? "the file is written and complete: 3 runs with their status, nr_runs 3"
"$MMPROF" report --keys "$tmp/f.data" >/dev/null 2>&1
ok $? "report reads it"
"$MMPROF" record -q -o "$tmp/k.data" -- sh -c 'kill -9 $$' >/dev/null 2>"$tmp/err"
rc=$?
test $rc -eq 3 && grep -q "(run 0: killed by SIGKILL)" "$tmp/err" && test -s "$tmp/k.data"
ok $? "a workload killed by a signal: exit 3, the signal named, a file (even with -q)"

# 6-8: what is not a failure
"$MMPROF" record -r 2 -o "$tmp/ok.data" -- true >/dev/null 2>"$tmp/err"
rc=$?
test $rc -eq 0 && ! grep -q "failed" "$tmp/err"
ok $? "a workload that succeeds: exit 0, nothing about failures"
"$MMPROF" record -q -o "$tmp/int.data" -- sleep 30 >/dev/null 2>"$tmp/err" &
rpid=$!
wait_child $rpid sleep	# the run has begun (record's start takes seconds under load)
kill -INT $rpid
wait $rpid
rc=$?
test $rc -eq 0 && test "$(sqlite3 "$tmp/int.data" 'select term_signal from runs')" = 2
ok $? "Ctrl-C (SIGINT passed on to the workload): the user's stop, exit 0"
[ $rc -eq 0 ] || { echo "# rc=$rc"; diag "$tmp/err"; }
# the issue's case: Ctrl-C in the first of three runs of sleep 4
"$MMPROF" record -r 3 -o "$tmp/int3.data" -- sleep 4 >/dev/null 2>"$tmp/err" &
rpid=$!
wait_child $rpid sleep
kill -INT $rpid
wait $rpid
rc=$?
test $rc -eq 0 && grep -q "^mmprof: interrupted: 1 run, " "$tmp/err" &&
	test "$(sqlite3 "$tmp/int3.data" 'select count(*) from runs')" = 1
ok $? "Ctrl-C during record -r 3 -- sleep 4: exit 0, one run, the summary says interrupted"
# what record calls the user's stop, diff does not call a failure
"$MMPROF" diff "$tmp/int3.data" "$tmp/int.data" >"$tmp/out" 2>"$tmp/err"
rc=$?
test $rc -eq 0 && grep -q '^status  *stopped by SIGINT (interrupted) in 1 run  *stopped by SIGINT' "$tmp/out"
ok $? "diff of two interrupted recordings: compared, exit 0, their status 'stopped by SIGINT (interrupted)' (rc $rc)"
[ $rc -eq 0 ] || diag "$tmp/err"
[ $rc -eq 0 ] || { echo "# rc=$rc"; diag "$tmp/err"; }
# the CI guide says the same as the code and the man page
grep -q "also when they were stopped: a Ctrl-C (SIGINT), SIGTERM" "$here/Documentation/ci-integration.md" &&
	grep -q "killed by a signal of its own" "$here/Documentation/ci-integration.md" &&
	grep -q "also after an interruption" "$here/man/mmprof-record.1"
ok $? "ci-integration.md and mmprof-record(1): an interrupted record exits 0, a workload's own signal 3"
sleep 30 &
spid=$!
"$MMPROF" record -q -p $spid --duration 0.3 -o "$tmp/p.data" >/dev/null 2>"$tmp/err"
rc=$?
kill $spid
test $rc -eq 0
ok $? "-p: no status of its own, exit 0"

# 9-10: stat
"$MMPROF" stat -r 2 -o "$tmp/s.data" -- sh -c 'exit 4' >/dev/null 2>"$tmp/err"
rc=$?
test $rc -eq 3 && grep -qx "mmprof: the workload failed in 2 of 2 runs: exit status 3" "$tmp/err" &&
	test "$(sqlite3 "$tmp/s.data" 'select group_concat(exit_code) from runs')" = "4,4"
ok $? "stat: exit 3, one line, the file written with both runs"
[ $? -eq 0 ] || { echo "# rc=$rc"; diag "$tmp/err"; }
"$MMPROF" stat -- true >/dev/null 2>&1
ok $? "stat of a workload that succeeds: exit 0"

# 11-16: diff
"$MMPROF" record -q -o "$tmp/mix.data" -- sh -c 'exit 0' && "$MMPROF" record -q -o "$tmp/mix2.data" -- sh -c 'kill -9 $$' 2>/dev/null
"$MMPROF" diff "$tmp/ok.data" -- "$tmp/mix.data" "$tmp/mix2.data" >"$tmp/out" 2>"$tmp/err"
rc=$?
test $rc -eq 0 && grep -Eq '^status +exit 0 in 2 runs +exit 0 in 1 run, killed by SIGKILL in 1$' "$tmp/out" &&
	grep -q "^mmprof: warning: new: the workload failed in 1 of 2 runs: $tmp/mix2.data run 0 (killed by SIGKILL)\$" "$tmp/err"
ok $? "diff's header: a status line per side, every run's status counted; some failed: a warning"
[ $? -eq 0 ] || { echo "# rc=$rc"; diag "$tmp/out" "$tmp/err"; }
"$MMPROF" diff "$tmp/ok.data" "$tmp/f.data" >"$tmp/out" 2>"$tmp/err"
rc=$?
test $rc -eq 2 && test ! -s "$tmp/out" &&
	grep -qx "mmprof: new: the workload failed in every run (3 of 3, exit status 1): its numbers measure the failure; not compared (--allow-failed compares anyway)" "$tmp/err"
ok $? "a side whose runs all failed, no gates: refused, exit 2, one line"
[ $? -eq 0 ] || { echo "# rc=$rc"; diag "$tmp/err"; }
"$MMPROF" diff "$tmp/f.data" "$tmp/ok.data" >/dev/null 2>"$tmp/err"
test $? -eq 2 && grep -q "^mmprof: base: the workload failed in every run" "$tmp/err"
ok $? "the same for base"
"$MMPROF" diff --allow-failed "$tmp/ok.data" "$tmp/f.data" >"$tmp/out" 2>"$tmp/err"
rc=$?
test $rc -eq 0 && grep -Eq '^status +exit 0 in 2 runs +exit status 1 in 3 runs$' "$tmp/out" &&
	grep -q "^mmprof: warning: new: the workload failed in every run" "$tmp/err"
ok $? "--allow-failed: compared, a warning, the status in the header"
"$MMPROF" diff --allow-failed -f json "$tmp/ok.data" "$tmp/f.data" >"$tmp/j" 2>/dev/null
python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
assert d["base"]["status"] == ["exit 0", "exit 0"] and d["base"]["runs_failed"] == 0, d["base"]
assert d["new"]["status"] == ["exit status 1"] * 3 and d["new"]["runs_failed"] == 3, d["new"]
' "$tmp/j"
ok $? "JSON: every run's status and the number failed, per side"
"$MMPROF" diff --allow-failed --html "$tmp/d.html" "$tmp/ok.data" -- "$tmp/mix.data" "$tmp/mix2.data" >/dev/null 2>&1
grep -q '<tr><th>status</th><td>exit 0 in 2 runs</td><td><b class="lost">exit 0 in 1 run, killed by SIGKILL in 1</b></td></tr>' "$tmp/d.html"
ok $? "HTML: a status row, failed runs marked"

# 17-19: documentation
grep -q 'exit status 3\|^\.B 3\|^3 ' "$here/man/mmprof-record.1" && grep -q '3' "$here/man/mmprof-stat.1" &&
	grep -q '| 3 |' "$here/Documentation/ci-integration.md"
ok $? "record's and stat's man pages and ci-integration.md document exit status 3"
grep -q 'allow\\-failed' "$here/man/mmprof-diff.1" && "$MMPROF" diff --help 2>&1 | grep -q -- '--allow-failed'
ok $? "diff's --allow-failed in --help and the man page"
grep -A3 'allow\\-failed' "$here/man/mmprof-diff.1" | grep -q 'every run'
ok $? "the man page says what --allow-failed lets through"

done_testing
