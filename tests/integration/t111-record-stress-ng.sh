#!/bin/sh
# t111-record-stress-ng: work done per run from a real benchmark (#16 1).
#   - stress-ng prints its metrics table on stderr; record stores it as the
#     robot's keys per run (stress-ng.<stressor>.{pass,ops,ops_per_sec}:
#     lkp-tests programs/stress-ng/parse), the same numbers the table shows
#     for that run, with --metrics-brief (10 columns) and --metrics (12);
#   - stress-ng's stderr still reaches the user, unchanged, and stdout
#     stays its own;
#   - a stress-ng that fails: exit 3 as for any workload, its message shown.
# tests/unit/test-benchout.c holds the parser against the robot's on fixtures.

. "$(dirname "$0")/lib.sh"
tap_setup t111

if ! command -v stress-ng >/dev/null 2>&1; then
	if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
		DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout=600 install -y -q stress-ng >/dev/null 2>&1
	fi
fi
if ! command -v stress-ng >/dev/null 2>&1; then
	echo "1..0 # SKIP stress-ng missing and cannot be installed (apt-get install stress-ng)"
	exit 0
fi

plan 9

# per-run value of a metric key: "RUN VALUE" lines
per_run() { sqlite3 "$1" "select run, value from metrics_v where key = '$2' order by run"; }

# a fixed amount of work (--vm-ops, --cpu-ops; -t only a guard), not a
# time: in a 1 s run a loaded machine did no vm bogo op at all and stress-ng
# reported stress-ng.vm.fail instead of the keys (t111 6, load 15 on 2 cores)

# 1-5: two runs of --metrics-brief
"$MMPROF" record -q -r 2 -F 500 -o "$tmp/b.data" -- \
	stress-ng --vm 1 --vm-bytes 16M --vm-ops 32 -t 120s --metrics-brief >"$tmp/out" 2>"$tmp/err"
rc=$?
test $rc -eq 0
ok $? "record -r 2 -- stress-ng --metrics-brief: exit 0"
[ $rc -eq 0 ] || diag "$tmp/err"
test "$(grep -c '^stress-ng: [a-z]*: *\[[0-9]*\] vm  *[0-9][0-9]* ' "$tmp/err")" -eq 2 &&
	test "$(grep -c '(secs) *(secs) *(secs)' "$tmp/err")" -eq 2 && ! grep -q 'stress-ng' "$tmp/out"
ok $? "stress-ng's table, once per run, reaches record's stderr, and nothing of it stdout"
[ $? -eq 0 ] || diag "$tmp/err" "$tmp/out"
# the bogo ops and bogo ops/s (real time) the table printed, run by run
grep '^stress-ng: [a-z]*: *\[[0-9]*\] vm  *[0-9][0-9]* ' "$tmp/err" |
	awk '{ printf "%d|%s.0\n", NR - 1, $5 }' >"$tmp/want-ops"
grep '^stress-ng: [a-z]*: *\[[0-9]*\] vm  *[0-9][0-9]* ' "$tmp/err" |
	awk '{ printf "%d|%s\n", NR - 1, $9 }' >"$tmp/want-rate"
per_run "$tmp/b.data" stress-ng.vm.ops >"$tmp/got-ops"
per_run "$tmp/b.data" stress-ng.vm.ops_per_sec >"$tmp/got-rate"
test "$(wc -l <"$tmp/got-ops")" -eq 2 && cmp -s "$tmp/want-ops" "$tmp/got-ops"
ok $? "stress-ng.vm.ops per run: the bogo ops each run's table printed"
[ $? -eq 0 ] || diag "$tmp/want-ops" "$tmp/got-ops"
awk -F'|' '{ printf "%s|%.2f\n", $1, $2 }' "$tmp/got-rate" >"$tmp/got-rate2"
test "$(wc -l <"$tmp/got-rate")" -eq 2 && cmp -s "$tmp/want-rate" "$tmp/got-rate2"
ok $? "stress-ng.vm.ops_per_sec per run: its bogo ops/s (real time)"
[ $? -eq 0 ] || diag "$tmp/want-rate" "$tmp/got-rate2"
test "$(per_run "$tmp/b.data" stress-ng.vm.pass)" = "0|1.0
1|1.0" && "$MMPROF" report --keys "$tmp/b.data" 2>/dev/null | grep -q '^stress-ng\.vm\.ops: '
ok $? "stress-ng.vm.pass in both runs, and the keys in report --keys"

# 6-7: --metrics (12 columns), two stressors, --times: nothing read past "run time:"
"$MMPROF" record -q -F 500 -o "$tmp/m.data" -- \
	stress-ng --vm 1 --vm-bytes 16M --vm-ops 32 --cpu 1 --cpu-ops 1000 -t 120s --metrics --times >/dev/null 2>"$tmp/err"
rc=$?
sqlite3 "$tmp/m.data" "select key from metrics_v where key like 'stress-ng.%' and key not like 'stress-ng.time.%' order by key" >"$tmp/keys"
printf '%s\n' stress-ng.cpu.ops stress-ng.cpu.ops_per_sec stress-ng.cpu.pass \
	stress-ng.vm.ops stress-ng.vm.ops_per_sec stress-ng.vm.pass >"$tmp/want"
test $rc -eq 0 && cmp -s "$tmp/want" "$tmp/keys"
ok $? "--metrics --times with two stressors: exactly the robot's keys of both"
[ $? -eq 0 ] || diag "$tmp/keys" "$tmp/err"
grep -q 'for a .* run time:' "$tmp/err"
ok $? "and its --times summary reaches the user too"

# 8-9: a failing stress-ng
"$MMPROF" record -q -o "$tmp/f.data" -- stress-ng --no-such-option-mmprof >/dev/null 2>"$tmp/err"
rc=$?
test $rc -eq 3 && test -s "$tmp/f.data"
ok $? "a stress-ng that fails: exit 3 (the workload failed), the file written"
[ $rc -eq 3 ] || { echo "# rc=$rc"; diag "$tmp/err"; }
grep -q 'no-such-option-mmprof' "$tmp/err" && grep -q '^mmprof: the workload failed in 1 of 1 run' "$tmp/err"
ok $? "its own message and record's line both reach stderr"
[ $? -eq 0 ] || diag "$tmp/err"

done_testing
