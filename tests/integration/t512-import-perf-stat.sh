#!/bin/sh
# t512-import-perf-stat: `mmprof import` of `perf stat -x, -I MS` text
# (#19 3), as the robot's perf-stat monitor writes it (`perf stat -a
# --scale -I 1000 -x , -e ... --log-fd 1 -- CMD`, its command line echoed
# first): a stat-only file whose perf-stat keys are computed from perf's
# own readings (checked here against the log with awk), the robot's under
# report --robot (the complete intervals: ps.* over the whole time, i.*
# over every interval); keys 0 in every interval and unsupported events
# give no key (dump-stat drops them); the command's name.metric lines
# are metrics; the same from standard input; it diffs against an `mmprof
# stat -a` recording; a bad record is refused with its line number.

. "$(dirname "$0")/lib.sh"
tap_setup t512

plan 11

ev=cpu-clock,task-clock,page-faults,context-switches,cpu-migrations,minor-faults,major-faults,instructions
{
	echo "/usr/bin/perf stat -a --scale -I 300 -x , -e $ev --log-fd 1 -- $wl/page-fault --seconds 1"
	perf stat -a --scale -I 300 -x , -e "$ev" --log-fd 1 -- "$wl/page-fault" --seconds 1
} >"$tmp/perf-stat" 2>"$tmp/err"
grep -q '^ *[0-9]*\.[0-9]*,[0-9]*,,page-faults,' "$tmp/perf-stat" && grep -q '^page-fault.ops: ' "$tmp/perf-stat"
ok $? "perf stat -x, -I 300 --log-fd 1: readings and the workload's lines in one log"

"$MMPROF" import -o "$tmp/p.data" "$tmp/perf-stat" 2>"$tmp/err"
ok $? "import of the log exits 0"
[ -s "$tmp/err" ] && diag "$tmp/err"
test "$(sqlite3 "$tmp/p.data" "select group_concat(value, '|') from meta where key in ('source', 'stat_only') order by seq")" = "perf stat|1" &&
	sqlite3 "$tmp/p.data" "select value from meta where key = 'perf_cmdline'" | grep -q '^perf stat -a --scale -I 300'
ok $? "meta: source perf stat, stat_only, perf's command line"

"$MMPROF" report --keys "$tmp/p.data" >"$tmp/keys" 2>&1
"$MMPROF" report --keys --robot "$tmp/p.data" >"$tmp/robot" 2>&1
# the log's page-faults: every reading, and the last one apart
awk -F, '$1 ~ /^ *[0-9]+\.[0-9]+$/ && $4 == "page-faults" { t = $1 + 0; n++; s += $2; v[n] = $2; tt[n] = t }
	END {
		last = tt[n]; prev = 0; r = 0
		for (i = 1; i < n; i++) { r += v[i] / (tt[i] - prev); prev = tt[i] }
		printf "%.6g %.6g %.6g\n", s / last, (s - v[n]) / last, r / (n - 1)
	}' "$tmp/perf-stat" >"$tmp/expect"
read -r ps robot_ps robot_i <"$tmp/expect"
near() { awk -v a="$1" -v b="$2" 'BEGIN { d = a - b; if (d < 0) d = -d; exit !(b > 0 && d <= 0.001 * b + 0.5) }'; }
got=$(sed -n 's/^perf-stat\.ps\.page-faults: //p' "$tmp/keys")
near "$got" "$ps"
ok $? "perf-stat.ps.page-faults: every reading over the run's time ($got, log $ps)"
got_ps=$(sed -n 's/^perf-stat\.ps\.page-faults: //p' "$tmp/robot")
got_i=$(sed -n 's/^perf-stat\.i\.page-faults: //p' "$tmp/robot")
near "$got_ps" "$robot_ps" && near "$got_i" "$robot_i"
ok $? "--robot: ps without the last reading over the whole time ($got_ps, $robot_ps), i the complete intervals' mean ($got_i, $robot_i)"

# events 0 in every reading of the log (major-faults, most times: -a counts every process)
zero=$(awk -F, '$1 ~ /^ *[0-9]+\.[0-9]+$/ && $2 ~ /^[0-9.]+$/ { seen[$4] = 1; if ($2 + 0) nz[$4] = 1 }
	END { for (e in seen) if (!nz[e]) print e }' "$tmp/perf-stat")
bad=
for e in $zero instructions; do
	grep -q "^perf-stat\.[a-z]*\.$e:" "$tmp/keys" && bad="$bad $e"
done
[ -z "$bad" ]
ok $? "0 in every interval (${zero:-none here}) and not supported (instructions): no key${bad:+; keys of$bad}"
grep -q '^page-fault.ops: [0-9]' "$tmp/keys"
ok $? "the workload's own lines are metrics"

"$MMPROF" import -o "$tmp/s.data" - <"$tmp/perf-stat" 2>"$tmp/err" &&
	"$MMPROF" report --keys "$tmp/s.data" 2>&1 | cmp -s - "$tmp/keys"
ok $? "from standard input: the same keys"

timeout 300 "$MMPROF" stat -a -I 300 -o "$tmp/m.data" -- "$wl/page-fault" --seconds 1 >/dev/null 2>&1 &&
	"$MMPROF" diff --all "$tmp/m.data" "$tmp/p.data" >"$tmp/diff" 2>"$tmp/err"
rc=$?
test $rc -eq 0 && grep -q ' perf-stat\.ps\.page-faults\( \|$\)' "$tmp/diff"
ok $? "diff of an mmprof stat -a recording and the import compares the perf-stat keys"
[ $rc -eq 0 ] || diag "$tmp/err"

printf '     1.001,abc,,page-faults,100,100.00,,\n' >"$tmp/bad"
"$MMPROF" import -o "$tmp/b.data" "$tmp/bad" 2>"$tmp/err"
test $? -eq 2 && test "$(wc -l <"$tmp/err")" = 1 && grep -q 'line 1: not perf stat -x, -I output' "$tmp/err" &&
	test ! -e "$tmp/b.data"
ok $? "a record whose value is no number: one line with its number, exit 2, no file"
printf '     1.001,12,,page-faults\n' | "$MMPROF" import -o "$tmp/b.data" - 2>"$tmp/err"
test $? -eq 2 && grep -q 'fewer than the 6 fields' "$tmp/err"
ok $? "a record with too few fields: refused"

done_testing
