#!/bin/sh
# t301-diff-audit: what an audit of `mmprof diff` found (issue 4), end to
# end on real recordings (page-fault --mm, 2 runs each) and a perf script
# import made from synthetic text:
#   - address-bucketed tracepoint keys are counted in the header, never a
#     default row, labelled [address] by --all;
#   - 0 -> 0 rows print no change, not -100.0 %;
#   - against an import (no perf-stat, meminfo, proc-vmstat, time keys) the
#     header names the families measured on one side only and none of
#     their keys is a row; the import's sampling is "unknown", not period 0;
#   - the robot's column heads (labels and ruler) precede the table; --robot
#     says it uses the robot's filter, not Welch's test;
#   - lost samples of a side are in the header;
#   - a gate matching no key is an error (exit 2, one line) unless
#     --allow-unmatched.

. "$(dirname "$0")/lib.sh"
tap_setup t301

# runs of fixed work (2 iterations of 128 MiB, some 0.2 s of CPU), not of
# 0.3 s: at a load of 50 that is a few ms of CPU, a handful of faults
rec() {	# rec OUT [record options]
	out=$1
	shift
	"$MMPROF" record -q -r 2 -F 1000 -o "$tmp/$out" "$@" -- "$wl/page-fault" -n 2 \
		>/dev/null 2>"$tmp/rec.err"
}
rec mm-a.data --mm; ok $? "record page-fault --mm -r 2"
[ -s "$tmp/rec.err" ] && diag "$tmp/rec.err"
rec mm-b.data --mm; ok $? "record it again"
rec pf.data; ok $? "record it without --mm (cpu-clock only, as the import)"

# ---- address buckets ----
"$MMPROF" diff "$tmp/mm-a.data" "$tmp/mm-b.data" >"$tmp/out" 2>"$tmp/err"
ok $? "diff mm-a mm-b"
grep -q "^not compared: [0-9]* tracepoint keys bucketed by address" "$tmp/out"
ok $? "header: the address buckets are counted as not compared"
! grep -q "\.address\.0x" "$tmp/out"
ok $? "no address bucket among the default rows"
"$MMPROF" diff --all "$tmp/mm-a.data" "$tmp/mm-b.data" >"$tmp/all"
naddr=$(grep -c "\.address\.0x[0-9a-f]*  \[address\]$" "$tmp/all")
test "$naddr" -gt 0 && ! grep "\.address\.0x" "$tmp/all" | grep -qv "\[address\]$"
ok $? "--all: every address bucket labelled [address] ($naddr)"
"$MMPROF" diff --all --format csv "$tmp/mm-a.data" "$tmp/mm-b.data" >"$tmp/csv"
awk -F, '$1 ~ /^tracepoint\..*\.address\.0x/ && $12 != "address"' "$tmp/csv" | grep -q .
test $? -ne 0
ok $? "csv: their verdict is address, and no q"
v=$(grep "^tracepoint.exceptions:page_fault_user.count," "$tmp/csv" | cut -d, -f12)
case $v in same|"can't tell"|up|down|small) true ;; *) false ;; esac
ok $? "the event's count is still tested (verdict '$v')"

# ---- 0 -> 0 ----
! grep -q "^ *0\.00 *-100\.0% *0\.00 " "$tmp/all"
ok $? "--all: no 0.00 -100.0% 0.00 row"
grep -q "^ *0\.00 *+0\.0% *0\.00 " "$tmp/all"
ok $? "--all: 0 -> 0 rows print +0.0%"

# ---- one side did not measure a family ----
awk 'BEGIN {
	t = 100
	for (i = 0; i < 1500; i++) {
		t += 0.00025
		leaf = (i % 8 == 7) ? "do_anonymous_page" : "clear_page_erms"
		printf "page-fault  1234 [000] %.6f:     250000 cpu-clock: \n", t
		printf "\tffffffff81000000 %s+0x10 ([kernel.kallsyms])\n", leaf
		printf "\tffffffff81000100 handle_mm_fault+0x20 ([kernel.kallsyms])\n"
		printf "\t    555555555000 main+0x10 (/tmp/page-fault)\n\n"
	}
}' >"$tmp/script.txt"
"$MMPROF" import - -o "$tmp/imp.data" <"$tmp/script.txt" 2>"$tmp/err"
ok $? "import perf script text"
"$MMPROF" diff "$tmp/pf.data" "$tmp/imp.data" >"$tmp/out" 2>"$tmp/err"
ok $? "diff recording against the import"
fams=$(sed -n 's/^not compared: measured in base only[^:]*: //p' "$tmp/out")
for f in perf-stat meminfo proc-vmstat page-fault; do
	case ", $fams," in *", $f,"*) ;; *) false ;; esac || break
done
ok $? "header: families measured in base only ($fams)"
! grep -E "  (perf-stat|meminfo|proc-vmstat|page-fault)\." "$tmp/out"
ok $? "none of their keys is a row"
"$MMPROF" diff --all --format csv "$tmp/pf.data" "$tmp/imp.data" >"$tmp/csv"
awk -F, '$1 ~ /^perf-stat\./ && $12 != "one-side"' "$tmp/csv" | grep -q .
test $? -ne 0
ok $? "--all: their verdict is one-side"
grep -q "^sampling   1000 Hz  *unknown$" "$tmp/out" && ! grep -q "period 0" "$tmp/out"
ok $? "header: the import's sampling is unknown, not period 0"
"$MMPROF" diff --format json "$tmp/pf.data" "$tmp/imp.data" |
	python3 -c 'import json,sys; d=json.load(sys.stdin)["diff"]; sys.exit("perf-stat" not in d["one_side_families"]["base"])'
ok $? "json: one_side_families"

# ---- the robot's column heads; --robot's header ----
"$MMPROF" diff "$tmp/mm-a.data" "$tmp/mm-b.data" >"$tmp/out"
heads=$(printf '%16s %27s \n' mm-a mm-b)
grep -n -A3 -x -F "$heads" "$tmp/out" >"$tmp/heads"
ok $? "labels right-aligned over the columns, with the robot's trailing blank"
sed -n 2p "$tmp/heads" | grep -q -x -- "[0-9]*-"'---------------- --------------------------- '
ok $? "then the ruler"
sed -n 3p "$tmp/heads" | grep -q -- "-         %stddev     %change         %stddev$"
ok $? "then the %stddev line"
grep -q "^verdicts: moderated t per key" "$tmp/out" && grep -q "^detectable (80% power): " "$tmp/out"
ok $? "default: verdicts by the moderated test, and what it could detect"
"$MMPROF" diff --robot "$tmp/mm-a.data" "$tmp/mm-b.data" >"$tmp/robot"
! grep -q "Welch" "$tmp/robot" && grep -q "^rows: the kernel test robot's filter.*no significance test" "$tmp/robot"
ok $? "--robot: the header names the robot's filter, not Welch's test"
grep -q "which neither side has: no row can pass" "$tmp/robot"
ok $? "--robot with 2 runs a side: says no row can pass"
"$MMPROF" diff "$tmp/mm-a.data" -- "$tmp/mm-b.data" "$tmp/mm-b.data" >"$tmp/out"
grep -q -x -F "$(printf '%16s %27s \n' mm-a mm-b+1)" "$tmp/out"
ok $? "a side of two files is labelled mm-b+1"

# ---- lost samples ----
# The counts are set on copies, none lost in one, 30 a run in the other: a
# --mm recording (100,000 tracepoint samples a run) can lose some of its own
# when the machine is busy (14,586 of a run under the sanitizer build and a
# load of 8), and these checks are of what diff prints for given counts.
cp "$tmp/mm-a.data" "$tmp/none-a.data" && sqlite3 "$tmp/none-a.data" "update runs set lost = 0" &&
	cp "$tmp/mm-b.data" "$tmp/none-b.data" && sqlite3 "$tmp/none-b.data" "update runs set lost = 0" &&
	cp "$tmp/mm-b.data" "$tmp/lost.data" && sqlite3 "$tmp/lost.data" "update runs set lost = 30"
ok $? "copies of the recordings with no samples lost, and with 30 lost a run"
"$MMPROF" diff "$tmp/none-a.data" "$tmp/lost.data" >"$tmp/out"
grep -q "^lost  *0  *60 ([0-9.]*%)$" "$tmp/out" && grep -q "^WARNING: samples were lost" "$tmp/out"
ok $? "header: lost samples per side, with a warning"
"$MMPROF" diff "$tmp/none-a.data" "$tmp/none-b.data" | grep -q "^lost "
test $? -ne 0
ok $? "no lost line when nothing was lost"

sqlite3 "$tmp/lost.data" "select sum(samples) from runs" >"$tmp/kept"
"$MMPROF" diff --format json "$tmp/none-a.data" "$tmp/lost.data" |
	python3 -c 'import json,sys; d=json.load(sys.stdin); k=int(sys.argv[1]); sys.exit(not (d["new"]["lost"] == 60 and d["new"]["samples"] == k and d["base"]["lost"] == 0))' "$(cat "$tmp/kept")"
ok $? "json: each side's samples and lost"

# ---- --robot and the notes in markdown and HTML ----
"$MMPROF" diff --robot --format markdown "$tmp/mm-a.data" "$tmp/mm-b.data" >"$tmp/md"
! grep -q "moderated t" "$tmp/md" && grep -q "robot's filter.*no significance test" "$tmp/md"
ok $? "--robot --format markdown: the footer names the robot's filter, not Welch's test"
"$MMPROF" diff --robot --html "$tmp/robot.html" "$tmp/mm-a.data" "$tmp/mm-b.data" >/dev/null
! grep -q "moderated t" "$tmp/robot.html" && grep -q "rows: the kernel test robot&#39;s filter\|rows: the kernel test robot's filter" "$tmp/robot.html"
ok $? "--robot --html: the note names the robot's filter, not Welch's test"
"$MMPROF" diff --html "$tmp/imp.html" "$tmp/pf.data" "$tmp/imp.data" >/dev/null
grep -q "Not compared, measured in base only: .*perf-stat" "$tmp/imp.html"
ok $? "--html: families measured on one side only are named"
"$MMPROF" diff --html "$tmp/mm.html" "$tmp/mm-a.data" "$tmp/mm-b.data" >/dev/null
grep -q "Not compared: [0-9]* tracepoint keys bucketed by address" "$tmp/mm.html"
ok $? "--html: the address buckets are counted as not compared"

# ---- a side recorded with --mm against one without ----
"$MMPROF" diff "$tmp/pf.data" "$tmp/mm-a.data" >"$tmp/out" 2>"$tmp/err"
ok $? "without --mm against --mm: compared, no --force needed (tracepoints are not sampling events)"
[ -s "$tmp/err" ] && diag "$tmp/err"
only=$(sed -n 's/^not compared: measured in new only[^:]*: //p' "$tmp/out")
case ", $only," in *", perf-profile.*.kmem-mm_page_alloc,"*", tracepoint.kmem:mm_page_alloc,"*) true ;; *) false ;; esac
ok $? "header: the --mm events' perf-profile and tracepoint keys are measured in new only"
! grep -qE "  (perf-profile\.[a-z]*\.kmem-|tracepoint\.kmem:)" "$tmp/out"
ok $? "none of their keys is a row (not 'new')"
"$MMPROF" diff --all --format csv "$tmp/pf.data" "$tmp/mm-a.data" >"$tmp/csv"
awk -F, '$1 ~ /^perf-profile\.children\.cpu-clock\./ && $12 == "one-side"' "$tmp/csv" | grep -q .
test $? -ne 0
ok $? "the cpu-clock rows are compared"

# ---- --force across sampling events ----
rec tc.data -e task-clock; ok $? "record it with -e task-clock"
"$MMPROF" diff "$tmp/pf.data" "$tmp/tc.data" >/dev/null 2>"$tmp/err"
test $? -eq 2 && grep -q "DIFFERENT SAMPLING EVENTS: base used 'cpu-clock', new used 'task-clock'" "$tmp/err"
ok $? \
	"cpu-clock against task-clock: refused, exit 2"
"$MMPROF" diff --force --all --format csv "$tmp/pf.data" "$tmp/tc.data" >"$tmp/csv" 2>/dev/null
awk -F, '$1 ~ /^perf-profile\.children\.cpu-clock\./ && $12 != "one-side" && $12 != "new" && $12 != "gone"' "$tmp/csv" | grep -q . &&
	! grep -q '^perf-profile\.[a-z]*\.task-clock\.' "$tmp/csv"
ok $? "--force: the new side's task-clock rows pair with the base's cpu-clock rows"
"$MMPROF" diff --force "$tmp/pf.data" "$tmp/tc.data" 2>/dev/null | grep -q "^WARNING: .*new's task-clock rows are read as cpu-clock's"
ok $? "--force: the header says which rows were read as which"

# ---- gates that match nothing ----
"$MMPROF" diff --fail-on 'perf-profile.chldren.*.handle_mm_fault > +1' \
	"$tmp/mm-a.data" "$tmp/mm-b.data" >/dev/null 2>"$tmp/err"
test $? -eq 2
ok $? "a gate matching no key: exit 2"
test "$(wc -l <"$tmp/err")" -eq 1 && grep -q "gate 'perf-profile.chldren.\*.handle_mm_fault > +1' matches no key.*mmprof report" "$tmp/err"
ok $? "one line naming the gate and mmprof report"
"$MMPROF" diff --allow-unmatched --fail-on 'perf-profile.children.*.handle_mm_faultt > +1' \
	"$tmp/mm-a.data" "$tmp/mm-b.data" >/dev/null 2>"$tmp/err"
ok $? "--allow-unmatched: exit 0"
grep -q "note: gate" "$tmp/err"; ok $? "--allow-unmatched: still a note"
"$MMPROF" diff --fail-on 'perf-stat.ps.page-faults < -5%' "$tmp/pf.data" "$tmp/imp.data" >/dev/null 2>"$tmp/err"
test $? -eq 2
ok $? "a gate on a family one side did not measure: exit 2"
grep -q "matches only keys that are not compared" "$tmp/err"; ok $? "and says why"
"$MMPROF" diff --fail-on 'perf-profile.children.*.handle_mm_fault > +50' "$tmp/mm-a.data" "$tmp/mm-b.data" >/dev/null 2>&1
ok $? "a gate that matches and does not trip: exit 0"

done_testing
