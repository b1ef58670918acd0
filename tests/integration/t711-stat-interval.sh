#!/bin/sh
# t711-stat-interval: `mmprof stat -I MS` prints each reading as it is taken,
# in perf stat -I's layout, on stderr:
#   - one header line "#           time             counts unit events";
#   - blocks of "<s.nnnnnnnnn> <value> [msec] <name> # <comment>" with the
#     time since the start, increasing from block to block, one line per
#     counter asked for;
#   - the page-faults of the blocks sum exactly to the final table's total
#     (the last, partial interval included);
#   - stdout holds only the workload's output; without -I nothing per
#     interval is printed.

. "$(dirname "$0")/lib.sh"
tap_setup t711
plan 8

# about 60 * 1024 faults: several 50 ms intervals even on a fast machine
"$MMPROF" stat -I 50 -e page-faults,task-clock -- \
	"$wl/page-fault" --iterations 60 --size 4M --thp off >"$tmp/out" 2>"$tmp/err"
rc=$?
ok $rc "stat -I 50 exits 0"
[ $rc -eq 0 ] || diag "$tmp/err"

test "$(grep -c '^#           time             counts unit events$' "$tmp/err")" = 1
ok $? "perf's interval header, once"

grep -E '^ +[0-9]+\.[0-9]{9} +[0-9]+ +page-faults +# +[0-9.]+ [KMG]?/sec$' "$tmp/err" >"$tmp/pf"
grep -E '^ +[0-9]+\.[0-9]{9} +[0-9]+\.[0-9]{2} msec task-clock +# +[0-9.]+ CPUs utilized$' \
	"$tmp/err" >"$tmp/tc"
blocks=$(wc -l <"$tmp/pf")
test "$blocks" -ge 2 && test "$(wc -l <"$tmp/tc")" -eq "$blocks"
ok $? "perf's interval lines: $blocks blocks of page-faults and task-clock"
[ "$blocks" -ge 2 ] || diag "$tmp/err"

awk 'NR > 1 && $1 <= prev { bad = 1 } { prev = $1 } END { exit bad }' "$tmp/pf"
ok $? "interval times increase"

total=$(awk '$2 == "page-faults" && $1 !~ /\./ { print $1; exit }' "$tmp/err")
sum=$(awk '{ s += $2 } END { print s }' "$tmp/pf")
test -n "$total" && test "$sum" = "$total"
ok $? "the blocks' page-faults sum to the final total ($sum = $total)"

! grep -q -e 'context-switches' -e 'cpu-migrations' "$tmp/err"
ok $? "only the counters asked for"

grep -q '^page-fault.ops: ' "$tmp/out" && ! grep -q -e 'page-faults' -e 'time' "$tmp/out"
ok $? "stdout keeps only the workload's output"

"$MMPROF" stat -e page-faults -- "$wl/page-fault" --iterations 2 --size 1M >/dev/null 2>"$tmp/err0"
! grep -q -e 'counts unit events' -e '^ *[0-9]*\.[0-9]\{9\}  *[0-9][0-9]*  *page-faults' "$tmp/err0" &&
	grep -q 'page-faults' "$tmp/err0"
ok $? "without -I: the final table only"

done_testing
