#!/bin/sh
# t110-record-system-cmd: perf's idioms for the system-wide case (#19 2):
#   - `record -a -- CMD`, `record -C LIST -- CMD`, `record -p PID -- CMD`
#     sample the system, those CPUs or those processes for as long as CMD
#     runs; CMD's exit status, wall time and rusage are the run's;
#   - `stat -a -- CMD` and `stat -p PID -- sleep N` count so, and title the
#     table by what they counted ('system wide', process id), as perf does;
#   - -p with -a is refused, one line, exit 2; so is stat --duration with a
#     command (the command's end ends the count: it would be ignored);
#   - the file's meta sample_window_ns is the sampling window, the first
#     to the last sample (make bench's rates): within the time record ran
#     (the system is sampled from before the command starts to after it
#     ends, so the window may pass the command's own wall time: by 26 ms
#     under the sanitizers), most of a 1 s command's, and no more samples
#     in it than -F allows;
#   - record keeps the file it replaces as NAME.old (perf.data.old), once
#     the new one is written (a failed record keeps no backup: t611, t800),
#     and refuses to start when NAME.old is a folder.
# The watched process is a busy shell under its own name (a copy of sh),
# so its samples say the recording was not of the command alone.

. "$(dirname "$0")/lib.sh"
tap_setup t110
q() { sqlite3 "$1" "$2"; }

cp /bin/sh "$tmp/spin-t108"
"$tmp/spin-t108" -c 'while :; do :; done' &
spin=$!
cleanup_hook() { kill "$spin" 2>/dev/null; wait "$spin" 2>/dev/null; }

plan 24

# 1-5: record -a -- CMD
t0=$(date +%s%N)
timeout 300 "$MMPROF" record -a -F 499 -o "$tmp/a.data" -- sh -c 'sleep 1; exit 3' \
	>"$tmp/out" 2>"$tmp/err"
rc=$?
t1=$(date +%s%N)
test $rc -eq 3
ok $? "record -a -- CMD that exits 3: record exits 3, the workload failed (got $rc), the status stored"
[ $rc -eq 0 ] || diag "$tmp/err"
grep -q '^mmprof: workload exited with status 3 in run 0$' "$tmp/err"
ok $? "the command's exit status is printed"
test "$(q "$tmp/a.data" 'select exit_code || "/" || (wall_ns >= 900000000) || "/" || (nvcsw > 0) from runs')" = "3/1/1"
ok $? "the run holds the command's exit code, wall time and rusage"
test "$(q "$tmp/a.data" "select value from meta where key = 'record_mode'")" = system
ok $? "record_mode is system"
"$MMPROF" report --folded --comm "$tmp/a.data" 2>/dev/null | grep -q '^spin-t108;'
ok $? "samples of another process: the whole system was sampled"

win=$(q "$tmp/a.data" "select value from meta where key = 'sample_window_ns'")
wall=$(q "$tmp/a.data" 'select wall_ns from runs')
smp=$(q "$tmp/a.data" 'select samples from runs')
awk -v w="$win" -v t="$((t1 - t0))" -v n="$smp" -v c="$(nproc)" \
	'BEGIN { exit !(w > 0.8e9 && w <= t && n / (w / 1e9) <= 499 * c * 1.01 + 1) }'
ok $? "sample_window_ns: ${win:-none} ns for $smp samples, within record's $((t1 - t0)) ns (the command's $wall)"

# 6-7: -C LIST -- CMD (-C implies -a, as in perf)
timeout 300 "$MMPROF" record -q -C 0 -F 499 -o "$tmp/c.data" -- sleep 0.3 2>"$tmp/err"
ok $? "record -C 0 -- CMD exits 0"
test "$(q "$tmp/c.data" "select group_concat(value) from meta where key in ('record_mode', 'target') order by seq")" = "system,0"
ok $? "the file says system-wide on CPU 0"

# 8-9: record -p PID -- CMD: ends with the command, not with the process
timeout 300 "$MMPROF" record -q -F 499 -p "$spin" -o "$tmp/p.data" -- sleep 0.5 2>"$tmp/err"
ok $? "record -p PID -- sleep exits 0 while the process runs on"
"$MMPROF" report --folded --comm "$tmp/p.data" 2>/dev/null | grep -q '^spin-t108;' &&
	test "$(q "$tmp/p.data" 'select exit_code || "/" || (wall_ns < 60000000000) from runs')" = "0/1"
ok $? "the process was sampled for as long as sleep ran"

# 10-13: stat -a -- CMD, stat -p PID -- sleep N
timeout 300 "$MMPROF" stat -a -o "$tmp/s.data" -- sh -c 'exit 2' >"$tmp/out" 2>"$tmp/err"
test $? -eq 3
ok $? "stat -a -- CMD that exits 2: stat exits 3, the workload failed"
grep -q "^ Performance counter stats for 'system wide':" "$tmp/err" &&
	grep -q '^mmprof: workload exited with status 2 in run 0$' "$tmp/err"
ok $? "titled 'system wide' as perf's, with the command's status"
test "$(q "$tmp/s.data" 'select exit_code from runs')" = 2
ok $? "stat -o stores the command's status"
timeout 300 "$MMPROF" stat -p "$spin" -e task-clock -- sleep 0.5 >"$tmp/out" 2>"$tmp/err" &&
	grep -q "^ Performance counter stats for process id '$spin':" "$tmp/err" &&
	awk '$2 == "msec" && $3 == "task-clock" { exit !($1 > 0) }' "$tmp/err"
ok $? "stat -p PID -- sleep counts the process while sleep runs"

# 14-16: refusals
"$MMPROF" record -a -p "$spin" -o "$tmp/r.data" -- true 2>"$tmp/err"
test $? -eq 2 && test "$(wc -l <"$tmp/err")" = 1 && grep -q 'give only one of -p and -a' "$tmp/err"
ok $? "record -a -p: one line, exit 2"
"$MMPROF" stat -C 0 -p "$spin" -- true 2>"$tmp/err"
test $? -eq 2 && grep -q 'give only one of -p and -a' "$tmp/err"
ok $? "stat -C -p: refused"
"$MMPROF" record -o "$tmp/r.data" 2>"$tmp/err"
test $? -eq 2 && grep -q 'nothing to record' "$tmp/err"
ok $? "record with no target: refused"
"$MMPROF" stat -a --duration 1 -- true 2>"$tmp/err"
test $? -eq 2 && grep -q -- '--duration goes with -p or -a without a command' "$tmp/err"
ok $? "stat --duration with a command (it would be ignored): refused"

# 17-20: NAME.old
timeout 300 "$MMPROF" record -q -o "$tmp/o.data" -- sh -c 'exit 4' 2>/dev/null
test ! -e "$tmp/o.data.old"
ok $? "a first recording leaves no .old"
timeout 300 "$MMPROF" record -q -o "$tmp/o.data" -- sh -c 'exit 5' 2>/dev/null
test "$(q "$tmp/o.data.old" 'select exit_code from runs')" = 4
ok $? "the replaced file is kept as NAME.old"
test "$(q "$tmp/o.data" 'select exit_code from runs')" = 5
ok $? "NAME holds the new recording"
timeout 300 "$MMPROF" record -q -o "$tmp/o.data" -- sh -c 'exit 6' 2>/dev/null
test "$(q "$tmp/o.data.old" 'select exit_code from runs')" = 5
ok $? "an older .old is replaced by the file just replaced"

# 21-22: a folder named NAME.old is the user's
mkdir "$tmp/d.data.old"
timeout 300 "$MMPROF" record -q -o "$tmp/d.data" -- true 2>/dev/null
timeout 300 "$MMPROF" record -q -o "$tmp/d.data" -- sh -c 'exit 7' 2>"$tmp/err"
test $? -eq 2 && grep -q "cannot keep '.*d.data' as '.*d.data.old'" "$tmp/err"
ok $? "a folder named NAME.old: refused before recording, exit 2"
test -d "$tmp/d.data.old" && test "$(q "$tmp/d.data" 'select exit_code from runs')" = 0
ok $? "the folder and the file are left as they were"

done_testing
