#!/bin/sh
# t700-sched: record --sched on a sleep/wake ping-pong gives the robot's
# perf-sched keys with plausible values (a pipe_read stack blocked about
# once per round trip and process, waits > 0, delays <= waits + ...), the
# totals, and an off-CPU profile whose stacks reach the workload's
# waiting function; its flame graph's tooltips give off-CPU time in ms.

. "$(dirname "$0")/lib.sh"
tap_setup t700

# key NAME-REGEX: the first value of a matching key in the report
val() { awk -v re="$1" '$1 ~ re { sub(/:$/, "", $1); print $2; exit }' "$tmp/keys"; }

plan 16
N=3000
"$MMPROF" record -q --sched -o "$tmp/pp.data" -- "$MMPROF_BUILD/workloads/sched-pingpong" -n $N \
	>"$tmp/out" 2>"$tmp/err"
ok $? "record --sched of the ping-pong exits 0"
[ -s "$tmp/err" ] && sed 's/^/# /' "$tmp/err"
"$MMPROF" report --keys "$tmp/pp.data" >"$tmp/keys"
ok $? "report reads it"

key=$(awk '$1 ~ /^perf-sched\.wait_and_delay\.count\.[a-z_]*pipe_read\./ { print $1; exit }' "$tmp/keys")
test -n "$key"
ok $? "a wait_and_delay stack starts in pipe_read: ${key%:}"
stack=${key#perf-sched.wait_and_delay.count.}
stack=${stack%:}
count=$(val "^perf-sched\\.wait_and_delay\\.count\\.$stack:")
awk -v c="$count" -v n=$N 'BEGIN { exit !(c >= 0.3 * n && c <= 2.5 * n) }'
ok $? "its count ($count) is about one or two per round trip ($N)"
wavg=$(val "^perf-sched\\.wait_time\\.avg\\.ms\\.$stack:")
wmax=$(val "^perf-sched\\.wait_time\\.max\\.ms\\.$stack:")
davg=$(val "^perf-sched\\.sch_delay\\.avg\\.ms\\.$stack:")
bavg=$(val "^perf-sched\\.wait_and_delay\\.avg\\.ms\\.$stack:")
awk -v w="$wavg" -v m="$wmax" 'BEGIN { exit !(w > 0 && m >= w) }'
ok $? "wait avg $wavg ms > 0, max $wmax >= avg"
awk -v w="$wavg" -v d="$davg" 'BEGIN { exit !(d >= 0 && d <= w + 1e-9) }'
ok $? "the delay ($davg ms) is part of the wait"
# each average is rounded to 3 decimals, as the robot prints it
awk -v w="$wavg" -v d="$davg" -v b="$bavg" 'BEGIN { x = w + d - b; if (x < 0) x = -x; exit !(x < 0.01 * b + 0.0016) }'
ok $? "wait_and_delay avg ($bavg) = wait + delay"
grep -q '^perf-sched\.wait_time\.avg\.ms\..*pipe_read.*' "$tmp/keys"
ok $? "wait_time keys"
total=$(val '^perf-sched\.total_wait_and_delay\.count\.ms:')
awk -v t="$total" -v c="$count" 'BEGIN { exit !(t >= c) }'
ok $? "total count ($total) covers the stack's"
for k in total_wait_time.max.ms total_wait_time.average.ms total_sch_delay.max.ms \
	total_sch_delay.average.ms total_wait_and_delay.max.ms total_wait_and_delay.average.ms; do
	grep -q "^perf-sched\.$k: " "$tmp/keys" || echo "# missing perf-sched.$k"
done
test "$(grep -c '^perf-sched\.total_' "$tmp/keys")" -eq 7
ok $? "all 7 total keys"
# every perf-sched key is one of the robot's (programs/perf-sched/parse:
# the per-stack count has no ".ms", the total's has) or mmprof's own
# perf-sched.offcpu.* view
bad=$(grep '^perf-sched\.' "$tmp/keys" | sed 's/^perf-sched\.offcpu\./perf-sched./' | grep -Ev \
	-e '^perf-sched\.(wait_time|sch_delay)\.(avg|max)\.ms\.[^ ]+\.[^ ]+: ' \
	-e '^perf-sched\.wait_and_delay\.count\.[^ ]+\.[^ ]+: ' \
	-e '^perf-sched\.wait_and_delay\.(avg|max)\.ms\.[^ ]+\.[^ ]+: ' \
	-e '^perf-sched\.total_(wait_time|sch_delay)\.(max|average)\.ms: ' \
	-e '^perf-sched\.total_wait_and_delay\.(count|max|average)\.ms: ' \
	-e '^perf-sched\.(recovered|lost)\.count: ' | head -3)
test -z "$bad"
ok $? "every perf-sched key has the robot's name or is perf-sched.offcpu.*${bad:+ (not: $bad)}"
! grep -q '^perf-sched\.wait_and_delay\.count\.ms\.' "$tmp/keys"
ok $? "no per-stack wait_and_delay.count.ms.<stack> (the robot's count has no .ms)"
# elapsed_time: never 0; user_time is 0 (and, as the robot's dump-stat
# does, left out) when the ping-pong's few microseconds of user work fall
# between ticks, as a quiet fresh-clone CI run had it
grep -q '^sched-pingpong\.time\.elapsed_time:' "$tmp/keys"
ok $? "the workload keeps its name (sched-pingpong.time.*)"

"$MMPROF" report --folded --period -e offcpu "$tmp/pp.data" >"$tmp/folded"
grep -q 'pp_wait_token;.*pipe_read;' "$tmp/folded"
ok $? "the offcpu flame graph has pp_wait_token -> pipe_read"
# the folded periods (ns off CPU) add up to the total wait
sum=$(awk '{ s += $NF } END { printf "%.0f", s }' "$tmp/folded")
avg=$(val '^perf-sched\.offcpu\.total_wait_time\.average\.ms:')
total=$(val '^perf-sched\.offcpu\.total_wait_and_delay\.count\.ms:')
awk -v s="$sum" -v a="$avg" -v t="$total" 'BEGIN { w = a * t * 1e6; exit !(s > 0.9 * w && s < 1.1 * w) }'
ok $? "offcpu periods ($sum ns) match total waits ($avg ms x $total)"

# the off-CPU flame graph's tooltips give time off CPU in ms, not a raw period
"$MMPROF" flamegraph -e offcpu "$tmp/pp.data" -o "$tmp/off.svg" 2>"$tmp/err" &&
	python3 - "$tmp/off.svg" "$sum" <<'EOF'
import re, sys
svg = open(sys.argv[1]).read()
root = re.search(r'<title>all\n[0-9.]+% · [0-9]+ samples · off-CPU ([0-9.]+) ms', svg)
assert root, "no 'off-CPU N ms' on the root"
assert abs(float(root.group(1)) * 1e6 - float(sys.argv[2])) <= 0.01e6, (root.group(1), sys.argv[2])
assert not re.search(r'· period [0-9]', svg), "a raw period left"
EOF
ok $? "flamegraph -e offcpu: tooltips say 'off-CPU N ms' (root = the folded total)"

done_testing
