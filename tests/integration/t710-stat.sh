#!/bin/sh
# t710-stat: `mmprof stat` against the real perf_event_open.
#   - the table looks like perf stat's: header, task-clock in msec with
#     "CPUs utilized", software counters with /sec comments, elapsed, user
#     and sys; the workload's output stays on stdout, the table on stderr;
#   - page-faults of page-fault --iterations N --size S is close to the
#     workload's own page count (N * S / 4 KiB, plus the process start);
#   - a counter the machine lacks says <not supported> (cpu-cycles without a
#     hardware PMU), never a number;
#   - -r 3 prints "(3 runs)", ( +- N% ) and the elapsed mean +- error
#     with perf's precision (two digits past the error's first);
#   - -e selects counters (perf's short names too), an unknown one exits 2;
#   - -o writes a sample-less file whose keys report prints and diff compares;
#   - -p counts a running process until it exits.

. "$(dirname "$0")/lib.sh"
tap_setup t710
# value of a counter line "   123      name ..." (first field), or empty
val() { awk -v ev="$2" '$2 == ev || ($2 == "msec" && $3 == ev) { print $1; exit }' "$1"; }

plan 21

# 8 iterations of 4 MiB: 8192 pages, one fault each (THP off)
"$MMPROF" stat -- "$wl/page-fault" --iterations 8 --size 4M --thp off >"$tmp/out" 2>"$tmp/err"
rc=$?
ok $rc "stat exits 0"
[ $rc -eq 0 ] || diag "$tmp/err"
grep -q "^ Performance counter stats for '.*page-fault --iterations 8 --size 4M --thp off':" "$tmp/err"
ok $? "perf stat's header with the command"
grep -q '^page-fault.ops: 8192$' "$tmp/out" && ! grep -q 'Performance counter' "$tmp/out"
ok $? "workload output on stdout, table not"
grep -Eq '^ +[0-9]+\.[0-9]{2} msec task-clock +# +[0-9.]+ CPUs utilized$' "$tmp/err"
ok $? "task-clock in msec with CPUs utilized"
pf=$(val "$tmp/err" page-faults)
test -n "$pf" && test "$pf" -ge 8192 && test "$pf" -le 9500
ok $? "page-faults $pf within [8192, 9500] for 8192 pages touched"
grep -Eq '^ +[0-9]+ +page-faults +# +[0-9.]+ [KM]?/sec$' "$tmp/err"
ok $? "page-faults with a rate comment"
cs=$(val "$tmp/err" context-switches)
test -n "$cs" && test "$cs" -ge 0
ok $? "context-switches counted ($cs)"
if [ -e /sys/bus/event_source/devices/cpu/events/cpu-cycles ] || [ -e /sys/bus/event_source/devices/cpu_core ]; then
	grep -Eq '^ +[0-9]+ +cpu-cycles' "$tmp/err"
	ok $? "cpu-cycles counted on a machine with a PMU"
else
	grep -Eq '^ +<not supported> +cpu-cycles$' "$tmp/err"
	ok $? "cpu-cycles <not supported> without a hardware PMU"
fi
# perf stat shows <not supported> for its own default events only (4 without a PMU)
test "$(grep -c '<not supported>' "$tmp/err")" -le 4 && ! grep -q '<not supported> *dTLB-loads' "$tmp/err"
ok $? "at most perf's four <not supported> lines, none for the robot's extra counters (dTLB-loads)"
grep -Eq '^ +[0-9]+\.[0-9]{9} seconds time elapsed$' "$tmp/err" &&
	grep -Eq '^ +[0-9]+\.[0-9]{9} seconds user$' "$tmp/err" &&
	grep -Eq '^ +[0-9]+\.[0-9]{9} seconds sys$' "$tmp/err"
ok $? "elapsed, user and sys"

"$MMPROF" stat -r 3 -e faults,task-clock,cs,cycles -o "$tmp/a.data" -- \
	"$wl/page-fault" --iterations 4 --size 4M --thp off >"$tmp/out3" 2>"$tmp/err3"
rc=$?
ok $rc "stat -r 3 -e ... -o exits 0"
[ $rc -eq 0 ] || diag "$tmp/err3"
grep -q "(3 runs):$" "$tmp/err3"
ok $? "header says (3 runs)"
grep -Eq '^ +[0-9]+ +page-faults +# .*\( \+- +[0-9]+\.[0-9]{2}% \)$' "$tmp/err3"
ok $? "page-faults mean with ( +- N% )"
# as perf: mean and error with two digits past the error's first significant one
line=$(grep 'seconds time elapsed' "$tmp/err3")
python3 - "$line" <<'EOF'
import re, sys
m = re.fullmatch(r' +[0-9]+\.?([0-9]*) \+- ([0-9]+\.?([0-9]*)) seconds time elapsed  \( \+- +[0-9]+\.[0-9]{2}% \)', sys.argv[1])
assert m, sys.argv[1]
assert len(m.group(1)) == len(m.group(3)), "mean and error with the same decimals"
sd = float(m.group(2))
sig = len(m.group(3).lstrip('0'))
# perf: ceil(-log10(sd)) + 2 decimals, so a sub-second error shows 3 significant digits
assert (sd > 1 and not m.group(3)) or (sd == 0 and len(m.group(3)) == 9) or sig in (3, 4), sys.argv[1]
EOF
ok $? "elapsed mean +- error with perf's precision: $line"
test "$(grep -cE '^ +(<not supported>|[0-9.]+( msec)?) +[a-z]' "$tmp/err3")" -eq 4
ok $? "-e: exactly the four counters asked (short names mapped)"
test "$(sqlite3 "$tmp/a.data" 'select count(*) from runs where minflt > 0')" = 3 &&
	test "$(sqlite3 "$tmp/a.data" 'select count(*) from counts')" = 0
ok $? "-o: three runs with rusage, no samples"
"$MMPROF" report --keys "$tmp/a.data" >"$tmp/keys" 2>&1
grep -q '^perf-stat.ps.page-faults: ' "$tmp/keys" && grep -q '^proc-vmstat.pgfault: ' "$tmp/keys" &&
	grep -q '^page-fault.time.minor_page_faults: ' "$tmp/keys" &&
	! grep -q '^perf-stat.ps.cpu-cycles' "$tmp/keys" && ! grep -q '^perf-stat.ps.cpu-migrations' "$tmp/keys"
ok $? "report of a stat file: perf-stat, proc-vmstat and time keys; unsupported and unselected absent"

"$MMPROF" stat -r 3 -e page-faults -o "$tmp/b.data" -- \
	"$wl/page-fault" --iterations 8 --size 4M --thp off >/dev/null 2>&1
"$MMPROF" diff -a "$tmp/a.data" "$tmp/b.data" >"$tmp/diff" 2>&1
rc=$?
test $rc -eq 0 && grep -Eq 'page-fault.ops( |$)' "$tmp/diff" &&
	grep -q 'perf-stat.ps.page-faults' "$tmp/diff"
ok $? "diff compares two stat files"
[ $rc -eq 0 ] || diag "$tmp/diff"

"$MMPROF" stat -e no-such-counter -- true >/dev/null 2>"$tmp/errx"
rc=$?
test $rc -eq 2 && grep -q "unknown counter 'no-such-counter'" "$tmp/errx"
ok $? "unknown counter: exit 2"

sleep 1 &
pid=$!
"$MMPROF" stat -p $pid >/dev/null 2>"$tmp/errp"
rc=$?
wait $pid
test $rc -eq 0 && grep -q "for process id '$pid'" "$tmp/errp" && grep -q 'task-clock' "$tmp/errp"
ok $? "-p counts a process until it exits"
[ $rc -eq 0 ] || diag "$tmp/errp"

# -e opens only what it asks for: at the lowest descriptor limit under which
# `stat -e page-faults` runs, the whole set cannot even open (7+ counters)
lim=4
while [ $lim -lt 64 ] && ! (ulimit -n $lim && exec "$MMPROF" stat -e page-faults -- true) >/dev/null 2>&1; do
	lim=$((lim + 1))
done
(ulimit -n $lim && exec "$MMPROF" stat -- true) >/dev/null 2>"$tmp/errfd"
rc=$?
test $lim -lt 64 && test $rc -eq 2 && grep -q 'Too many open files' "$tmp/errfd"
ok $? "-e opens only the asked counters (page-faults alone fits in $lim descriptors, the set does not)"

done_testing
