#!/bin/sh
# t108-record-footprint: record's default counting set adds no kernel work
# to the page faults it profiles (#18 point 4).  A page-faults, minor-,
# major-faults or context-switches software counter turns on the kernel's
# perf_swevent static key, so every fault enters __perf_sw_event, which the
# profile then shows under exc_page_fault (3 to 6% of the page-fault
# workload's samples before).  Those counts now come from rusage and /proc
# (taskcount.h), under the same perf-stat names and meanings.
#   - record opens no software event of faults or switches (strace: the
#     deterministic check);
#   - the default recording of the page-fault workload has no
#     __perf_sw_event / ___perf_sw_event share (under 1 point); when another perf user on the
#     machine holds such an event (the static key is global), a --no-stat
#     recording shows them too, and the default's share may not exceed it;
#   - the counts agree with perf stat's on a fixed amount of work, the
#     intervals sum to the totals, -p and -a count too.

. "$(dirname "$0")/lib.sh"
tap_setup t108

q() { sqlite3 "$1" "$2"; }
counter() { q "$1" "select sum(c.value) from counters c join strings s on s.id = c.name where s.s = '$2'"; }

plan 11

# 1: what record asks of the kernel (LeakSanitizer cannot run under ptrace)
ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0 \
	strace -f -qq -e trace=perf_event_open -o "$tmp/st" "$MMPROF" record -q -o "$tmp/s.data" -- true 2>"$tmp/err"
rc=$?
test $rc -eq 0 && grep -q 'PERF_COUNT_SW_TASK_CLOCK' "$tmp/st" &&
	! grep -Eq 'PERF_COUNT_SW_(PAGE_FAULTS|PAGE_FAULTS_MIN|PAGE_FAULTS_MAJ|CONTEXT_SWITCHES)\b' "$tmp/st"
ok $? "the default set opens no page-fault or context-switch software event (task-clock still)"
[ $? -eq 0 ] || { echo "# rc=$rc"; grep -o 'config=PERF_COUNT_SW_[A-Z_]*' "$tmp/st" | sort | uniq -c | diag; }

# 2-3: the profile of a fault-bound workload
share() {	# share FILE: children + self of __perf_sw_event and ___perf_sw_event, summed
	"$MMPROF" report --keys "$1" | awk -F': ' '/^perf-profile\.(children|self)\.[^.]*\.___?perf_sw_event: / { s += $2 } END { printf "%.2f\n", s + 0 }'
}
"$MMPROF" record -q --no-stat -o "$tmp/n1.data" -- "$wl/page-fault" -s 1 --size 16M >/dev/null 2>&1
"$MMPROF" record -q -o "$tmp/d.data" -- "$wl/page-fault" -s 1 --size 16M >/dev/null 2>"$tmp/err"
rc=$?
"$MMPROF" record -q --no-stat -o "$tmp/n2.data" -- "$wl/page-fault" -s 1 --size 16M >/dev/null 2>&1
ok $rc "record the page-fault workload with the default set"
d=$(share "$tmp/d.data") n1=$(share "$tmp/n1.data") n2=$(share "$tmp/n2.data")
if [ "$n1" = 0.00 ] && [ "$n2" = 0.00 ]; then
	# Under 1 point, not absent: a test of the parallel suite that holds a
	# fault counter for a moment during this recording only (not during the
	# two around it) turns the global key on for a few faults (0.05 in a
	# CI run).  The footprint this checks was 5.98 + 3.78 points.
	awk -v d="$d" 'BEGIN { exit !(d < 1.0) }'
	ok $? "no __perf_sw_event / ___perf_sw_event share in the default recording ($d points, under 1)"
else
	# another perf user holds a fault event: the key is on for everyone
	awk -v d="$d" -v a="$n1" -v b="$n2" 'BEGIN { m = a > b ? a : b; exit !(d <= m + 1.0) }'
	ok $? "__perf_sw_event in the default recording ($d) no more than without counters ($n1, $n2: another perf user on the machine)"
fi
[ "$d" = 0.00 ] || "$MMPROF" report --keys "$tmp/d.data" | grep 'perf_sw_event' | diag
"$MMPROF" report --keys "$tmp/d.data" >"$tmp/keys"
# every count is stored under its name; a key that is 0 (major-faults,
# often context-switches or cpu-migrations) is no key, as dump-stat drops it
stored=$(sqlite3 "$tmp/d.data" "select group_concat(s, ' ') from (select distinct s.s from counters c
	join strings s on s.id = c.name where s.s in ('page-faults', 'minor-faults', 'major-faults',
	'context-switches', 'task-clock', 'cpu-migrations') order by s.s)")
test "$stored" = "context-switches cpu-migrations major-faults minor-faults page-faults task-clock" &&
	grep -q '^perf-stat\.ps\.page-faults: ' "$tmp/keys" && grep -q '^perf-stat\.ps\.minor-faults: ' "$tmp/keys" &&
	grep -q '^perf-stat\.ps\.task-clock: ' "$tmp/keys"
ok $? "the counts keep their names (stored: $stored), and page-faults, minor-faults, task-clock are keys"

# 5-7: a fixed amount of work: 40 iterations of 4096 pages, against perf stat
"$MMPROF" record -q -o "$tmp/f.data" -- "$wl/page-fault" -n 40 --size 16M >/dev/null 2>&1
pf=$(counter "$tmp/f.data" page-faults) mi=$(counter "$tmp/f.data" minor-faults) ma=$(counter "$tmp/f.data" major-faults)
perf stat -x, -e page-faults -- "$wl/page-fault" -n 40 --size 16M 2>"$tmp/ps" >/dev/null
ref=$(awk -F, '$3 == "page-faults" { print $1 }' "$tmp/ps")
test "$pf" -ge 163840 && test "$pf" -eq $((mi + ma))
ok $? "page-faults ($pf) is minor + major ($mi + $ma), at least the 163840 pages touched"
awk -v a="$pf" -v b="$ref" 'BEGIN { d = a - b; if (d < 0) d = -d; exit !(b > 0 && d <= 0.01 * b) }'
ok $? "page-faults within 1% of perf stat's ($pf against $ref)"
"$MMPROF" record -q -I 100 -o "$tmp/i.data" -- "$wl/page-fault" -s 0.6 --size 16M >/dev/null 2>&1
test "$(q "$tmp/i.data" "select count(*) from counters c join strings s on s.id = c.name
	where s.s in ('page-faults', 'context-switches') and c.value != (select sum(i.value) from intervals i
	where i.run = c.run and i.name = c.name)")" = 0 &&
	test "$(q "$tmp/i.data" "select count(*) > 3 from intervals i join strings s on s.id = i.name where s.s = 'page-faults'")" = 1
ok $? "-I 100: the intervals of page-faults and context-switches sum to their totals"

# 8-9: -p and -a
# the target runs far past the attach and is ended after it: with -s 3 and
# a fixed 0.3 s head start a loaded machine (load 15 on 2 cores) attached
# after its end ("no such process"); record starts once it has exec'd
sh -c 'exec "$0" -s 60 --size 16M' "$wl/page-fault" >/dev/null &
pid=$!
_i=0
while [ $_i -lt 300 ] && [ "$(readlink /proc/$pid/exe 2>/dev/null)" != "$(readlink -f "$wl/page-fault")" ]; do
	sleep 0.1
	_i=$((_i + 1))
done
flt() { awk '{ print $10 + $12 }' /proc/$pid/stat 2>/dev/null; }	# its minflt + majflt
f0=$(flt)
"$MMPROF" record -q -p $pid --duration 1 -o "$tmp/p.data" 2>"$tmp/err"
rc=$?
f1=$(flt)
kill $pid 2>/dev/null
wait $pid 2>/dev/null
pf=$(counter "$tmp/p.data" page-faults)
tc=$(counter "$tmp/p.data" task-clock)
# How many faults the target takes in the second is the neighbours' to
# decide (1,161 from 17 ms of CPU beside stress-ng --cpu 30), so they are
# held to its own task-clock over the same window: at least 4,096 a CPU
# second (one fault per 244 us; 56,000-111,000 seen), and at most what the
# kernel counted for it from before the attach to after the end.
test $rc -eq 0 && test "${pf:-0}" -gt 0 && test "${tc:-0}" -gt 0 &&
	test $((pf * 1000000000)) -ge $((tc * 4096)) && test "$pf" -le $((f1 - f0))
ok $? "-p: the process's faults since the attach ($pf in $((${tc:-0} / 1000000)) ms of task-clock; $((f1 - f0)) from before to after)"
[ $? -eq 0 ] || diag "$tmp/err"
"$MMPROF" record -q -a --duration 0.5 -o "$tmp/a.data" 2>"$tmp/err"
sw=$(counter "$tmp/a.data" context-switches)
test "${sw:-0}" -gt 0 && test -n "$(counter "$tmp/a.data" page-faults)"
ok $? "-a: the machine's faults and switches ($sw switches)"

# 10-11: documentation
grep -q 'taskcount\|rusage' "$here/Documentation/performance.md" && grep -q '__perf_sw_event' "$here/Documentation/performance.md"
ok $? "performance.md says how the faults are counted and what it cost before"
grep -q 'rusage' "$here/man/mmprof-record.1"
ok $? "the man page says where page-faults and context-switches come from"

done_testing
