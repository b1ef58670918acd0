#!/bin/sh
# t111-record-cpu-list: -C naming a CPU this machine does not have is one
# line naming it, exit 2, before anything runs (record and stat); it was
# "cannot open event 'cpu-clock': Invalid argument" from record after the
# setup, and from stat a table of "<not supported>" counters and exit 0.
# A list naming a CPU twice (0-1,1) is taken as each CPU once: it was
# "cannot use CPU list '0-1,1'" (libperf's parser refuses a CPU twice, and
# so does perf 6.1's own -C: "failed to parse CPUs map").

. "$(dirname "$0")/lib.sh"
tap_setup t111
plan 10
online=$(cat /sys/devices/system/cpu/online)
present=$(cat /sys/devices/system/cpu/present)
want="CPU 99999 does not exist (this machine has CPUs $present)"

"$MMPROF" record -C 99999 -o "$tmp/c.data" -- sh -c ': >"$0"' "$tmp/ran" >"$tmp/out" 2>"$tmp/err"
rc=$?
test $rc -eq 2 && test "$(cat "$tmp/err")" = "mmprof: $want"
ok $? "record -C 99999: one line naming the CPU, exit 2 (exit $rc)"
[ $rc -eq 2 ] || diag "$tmp/err"
test ! -e "$tmp/ran" && test ! -e "$tmp/c.data"
ok $? "record: before the workload ran, no file"

"$MMPROF" stat -C 99999 -- sh -c ': >"$0"' "$tmp/ran" >"$tmp/out" 2>"$tmp/err"
rc=$?
test $rc -eq 2 && test "$(cat "$tmp/err")" = "mmprof: $want" && test ! -s "$tmp/out"
ok $? "stat -C 99999: the same line, exit 2, no table (exit $rc)"
[ $rc -eq 2 ] || diag "$tmp/err" "$tmp/out"
test ! -e "$tmp/ran"
ok $? "stat: before the workload ran"

"$MMPROF" record -q -C 0,x -o "$tmp/c.data" -- true 2>"$tmp/err"
rc=$?
test $rc -eq 2 && grep -q "invalid CPU list '0,x' for -C" "$tmp/err"
ok $? "a list that is no list: one line, exit 2 (exit $rc)"

"$MMPROF" record -q -C "$online" -o "$tmp/c.data" -- true 2>"$tmp/err"
ok $? "-C with the online CPUs ($online) records"

# 7-10: the online CPUs and CPU 0 again
"$MMPROF" record -q -C "$online,0" -o "$tmp/d.data" -- true 2>"$tmp/err"
rc=$?
test $rc -eq 0 && test -s "$tmp/d.data"
ok $? "record -C $online,0: a CPU twice records (exit $rc)"
[ $rc -eq 0 ] || diag "$tmp/err"
test "$(sqlite3 "$tmp/d.data" "select value from meta where key = 'target'")" = "$online"
ok $? "its meta target is the merged list ($online)"
"$MMPROF" stat -C "$online,0" -- true >"$tmp/out" 2>"$tmp/err"
ok $? "stat -C $online,0 counts"
"$MMPROF" record -C "0,0,99999" -o "$tmp/c.data" -- sh -c ': >"$0"' "$tmp/ran" >"$tmp/out" 2>"$tmp/err"
rc=$?
test $rc -eq 2 && test "$(cat "$tmp/err")" = "mmprof: $want" && test ! -e "$tmp/ran"
ok $? "a CPU twice and one that does not exist: still that one line, exit 2 (exit $rc)"
done_testing
