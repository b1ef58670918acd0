#!/bin/sh
# t214-report-options: report refuses what it would otherwise ignore or
# print as nothing, with one line and exit 2, as flamegraph does:
#   - an option of another view (--runs --folded, --period without
#     --folded, -e with the keys or json view, -g with --json, --run with
#     --html, --percent-limit with --folded, --keys with another view);
#   - filters that leave no folded stack (--pid of no process, a run-less
#     event), a file with no samples (stat -o), a tree of an -e event with
#     no samples;
# while the same views with filters that keep samples still print them.

. "$(dirname "$0")/lib.sh"
tap_setup t214

# one_line FILE PATTERN: FILE is exactly one line and it matches PATTERN
one_line() { test "$(wc -l <"$1")" -eq 1 && grep -q -- "$2" "$1"; }

# cpu-clock samples, and a tracepoint only khugepaged hits (never the workload)
"$MMPROF" record -q -r 2 -e cpu-clock,huge_memory:mm_khugepaged_scan_file -o "$tmp/pf.data" -- \
	"$wl/page-fault" -s 0.3 --size 4M >/dev/null 2>"$tmp/err"
ok $? "record page-fault, cpu-clock and a tracepoint it never hits"
diag "$tmp/err"
"$MMPROF" stat -o "$tmp/stat.data" -- true >/dev/null 2>&1
ok $? "stat -o: a counting recording"

# ---- options of another view
while IFS='|' read -r args want; do
	# shellcheck disable=SC2086
	"$MMPROF" report $args "$tmp/pf.data" >"$tmp/out" 2>"$tmp/err"
	rc=$?
	test $rc -eq 2 && one_line "$tmp/err" "$want" && test ! -s "$tmp/out"
	ok $? "report $args: one line, exit 2 (got $rc)"
done <<'EOF'
--runs --folded|--runs goes with the keys view
--runs --tree|--runs goes with the keys view
--period|--period goes with --folded
--tree --comm|--comm goes with --folded
--json -e cpu-clock|-e goes with
-e cpu-clock|-e goes with
--json -g caller|-g/--call-graph goes with --tree
--html --run 0|--run goes with --folded
--folded --percent-limit 2|--percent-limit goes with --tree or --json
--keys --tree|--keys excludes the other views
--keys --json|--keys excludes the other views
--max-stack 5|--max-stack goes with --tree
--json --max-stack 5|--max-stack goes with --tree
--tree --max-stack 0|--max-stack must be between 1 and 65535
--tree --max-stack 70000|--max-stack must be between 1 and 65535
-g caller|-g/--call-graph goes with --tree, not with the first screen
EOF

# ---- filters that leave nothing
"$MMPROF" report --folded --pid 1 "$tmp/pf.data" >"$tmp/out" 2>"$tmp/err"
rc=$?
test $rc -eq 2 && one_line "$tmp/err" "no samples left to fold in '.*' (--pid 1)" && test ! -s "$tmp/out"
ok $? "--folded --pid 1 (not the workload): one line, exit 2 (got $rc)"
diag "$tmp/err"
"$MMPROF" report --folded --run 1 -e huge_memory:mm_khugepaged_scan_file "$tmp/pf.data" >"$tmp/out" 2>"$tmp/err"
rc=$?
test $rc -eq 2 && one_line "$tmp/err" "(-e huge_memory:mm_khugepaged_scan_file, --run 1)"
ok $? "--folded of an event with no samples, one run: the filters named, exit 2 (got $rc)"
"$MMPROF" report --tree -e huge_memory:mm_khugepaged_scan_file "$tmp/pf.data" >"$tmp/out" 2>"$tmp/err"
rc=$?
test $rc -eq 2 && one_line "$tmp/err" "has no samples of event 'huge_memory:mm_khugepaged_scan_file'"
ok $? "--tree -e of an event with no samples: exit 2 (got $rc)"
"$MMPROF" report --folded "$tmp/stat.data" >"$tmp/out" 2>"$tmp/err"
rc=$?
test $rc -eq 2 && one_line "$tmp/err" "has no samples to fold"
ok $? "--folded of a counting recording: exit 2 (got $rc)"

# ---- filters that keep samples
pid=$(sqlite3 "$tmp/pf.data" "select pid from counts where run = 1 and pid > 0 and samples > 0 limit 1")
"$MMPROF" report --folded --run 1 --pid "${pid:-0}" "$tmp/pf.data" >"$tmp/out" 2>"$tmp/err"
test $? -eq 0 && test -s "$tmp/out" && ! grep -q "no samples" "$tmp/err"
ok $? "--folded --run 1 --pid $pid (a process sampled in run 1) prints stacks"
"$MMPROF" report --runs "$tmp/pf.data" >"$tmp/out" && grep -q "runs: " "$tmp/out" &&
"$MMPROF" report --tree -e cpu-clock --no-graph --percent-limit 2 "$tmp/pf.data" >"$tmp/out" && test -s "$tmp/out" &&
"$MMPROF" report --json --tree --percent-limit 2 "$tmp/pf.data" | python3 -m json.tool >/dev/null
ok $? "--runs, --tree -e --no-graph --percent-limit, --json --tree --percent-limit still work"
"$MMPROF" report --keys --runs "$tmp/pf.data" >"$tmp/keys" &&
"$MMPROF" report --runs "$tmp/pf.data" >"$tmp/out" && cmp -s "$tmp/keys" "$tmp/out"
ok $? "--keys --runs: the keys view, as --runs alone"

done_testing
