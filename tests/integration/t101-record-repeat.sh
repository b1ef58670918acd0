#!/bin/sh
# t101-record-repeat: -r 3 runs the workload three times into one file and
# keeps each run separately: three runs rows with their own status, samples,
# counters, intervals and metrics; counts of each run are stored apart.

. "$(dirname "$0")/lib.sh"
tap_setup t101

q() { sqlite3 "$tmp/r.data" "$1"; }

plan 8

"$MMPROF" record -r 3 -I 100 -o "$tmp/r.data" -- "$wl/page-fault" --seconds 0.25 \
	>"$tmp/out" 2>"$tmp/err"
rc=$?
ok $rc "record -r 3 exits 0"
[ $rc -eq 0 ] || diag "$tmp/err"
test "$(q 'select count(*) from runs')" = 3
ok $? "-r 3 gives three runs"
test "$(q 'select count(*) from runs where exit_code = 0 and term_signal = 0 and samples > 0 and minflt > 0')" = 3
ok $? "each run has its status, rusage and samples"
test "$(q 'select count(distinct run) from counts')" = 3
ok $? "counts are kept per run"
test "$(q "select count(*) from counters_v where name = 'page-faults' and supported and value > 0")" = 3
ok $? "each run has its own counter totals"
test "$(q "select count(distinct run) from intervals_v")" = 3
ok $? "and its own intervals"
test "$(q "select count(*) from metrics_v where key = 'page-fault.ops'")" = 3
ok $? "each run's metric line is kept"
grep -c '^page-fault.ops:' "$tmp/out" | grep -qx 3
ok $? "the three outputs were passed through"

done_testing
