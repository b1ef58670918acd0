#!/bin/sh
# t702-sched-robot: record --sched of a workload that sleeps 1 ms, waits on
# a futex and on a pipe, N times:
#   - the robot's view (perf-sched.*, as perf sched timehist and lkp-tests'
#     perf-sched parse give it): a do_nanosleep key counting every sleep,
#     futex and pipe keys, user frames as [unknown], the per-stack count
#     named wait_and_delay.count.<stack>, no key of value 0, averages of 3
#     decimals;
#   - mmprof's own view (perf-sched.offcpu.*): the sleeps counted too, none
#     dropped silently (count + lost >= N: a switch-in the stream lacks is
#     recovered or counted as lost), user frames named;
#   - diff of the file against itself pairs the keys and exits 0.

. "$(dirname "$0")/lib.sh"
tap_setup t702

plan 10
N=400
"$MMPROF" record -q --sched -r 2 -o "$tmp/mix.data" -- "$MMPROF_BUILD/workloads/sched-mix" -n $N \
	>"$tmp/out" 2>"$tmp/err"
rc=$?
ok $rc "record --sched -r 2 of sched-mix -n $N"
[ $rc -eq 0 ] || diag "$tmp/err"
"$MMPROF" report --keys --runs "$tmp/mix.data" >"$tmp/keys" 2>"$tmp/err"
ok $? "report --keys --runs reads it"

# every run's value of the first key matching RE (after "runs:")
runs_of() { awk -v re="$1" '$1 ~ re { for (i = 4; i <= NF; i++) printf "%s ", $i; exit }' "$tmp/keys"; }
sleeps=$(runs_of '^perf-sched\.wait_and_delay\.count\.do_nanosleep\.')
test -n "$sleeps" && awk -v n=$N -v v="$sleeps" 'BEGIN { k = split(v, a, " ");
	for (i = 1; i <= k; i++) if (a[i] < n || a[i] > n * 1.05 + 5) exit 1; exit !(k == 2) }'
ok $? "robot view: do_nanosleep counts every sleep in each run ($sleeps for $N)"
own=$(runs_of '^perf-sched\.offcpu\.wait_and_delay\.count\.do_nanosleep\.')
lost=$(runs_of '^perf-sched\.offcpu\.lost\.count:')
test -n "$own" && awk -v n=$N -v v="$own" -v l="$lost" 'BEGIN { k = split(v, a, " "); split(l, b, " ");
	for (i = 1; i <= k; i++) if (a[i] + b[i] < n || a[i] > n * 1.05 + 5) exit 1; exit !(k == 2) }'
ok $? "mmprof's view: do_nanosleep count + lost >= $N in each run ($own; lost: ${lost:-none})"
grep -Eq '^perf-sched\.wait_and_delay\.count\.futex_[a-z_]*\.' "$tmp/keys" &&
	grep -Eq '^perf-sched\.wait_and_delay\.count\.(anon_)?pipe_read\.' "$tmp/keys"
ok $? "robot view: futex and pipe_read stacks"
! grep -q '^perf-sched\.wait_and_delay\.count\.ms\.' "$tmp/keys" &&
	grep -Eq '^perf-sched\.total_wait_and_delay\.count\.ms: ' "$tmp/keys"
ok $? "the per-stack count has no .ms (the robot's parse), the total's has"
grep -E '^perf-sched\.[^o]' "$tmp/keys" | grep -q '\[unknown\]' &&
	! grep -E '^perf-sched\.[^o]' "$tmp/keys" | grep -Eq '\.(main|helper|mix_[a-z_]+)[.:]'
ok $? "robot view: user frames are [unknown], as timehist prints them"
grep -E '^perf-sched\.offcpu\.' "$tmp/keys" | grep -Eq '\.(main|helper|mix_[a-z_]+)[.:]'
ok $? "mmprof's view names user frames"
# (the first column is the mean of the runs: each run's value is after "runs:")
! grep -Eq '^perf-sched\.[^ ]+: 0( |$)' "$tmp/keys" &&
	! grep -E '^perf-sched\.[^o][^ ]*\.(avg|average)\.ms[^ ]*: ' "$tmp/keys" |
	awk '{ for (i = 4; i <= NF; i++) print $i }' | grep -Eq '\.[0-9]{4,}'
ok $? "no perf-sched key of value 0; the robot's averages have at most 3 decimals in each run"

"$MMPROF" diff "$tmp/mix.data" "$tmp/mix.data" >"$tmp/diff" 2>"$tmp/err"
ok $? "diff of the file against itself exits 0"

done_testing
