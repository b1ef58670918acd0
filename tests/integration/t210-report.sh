#!/bin/sh
# t210-report: record real workloads (-r 2) and report them in every view:
# the first screen (header, top functions, a screenful), LKP keys (--keys)
# with the expected user and kernel functions, the tree in both
# directions, folded stacks that add up, JSON that parses, errors (missing
# and corrupt files) with one line and exit 2, and every --help option in
# the man page.  Then the same page-faulting workload under perf record:
# mmprof's children% for its main kernel functions agree with
# `perf report --children -U` within a few points.

. "$(dirname "$0")/lib.sh"
tap_setup t210

key() { sed -n "s/^$1: //p" "$tmp/keys"; }	# value of a key (regex-quoted)

plan 26

"$MMPROF" record -r 2 -o "$tmp/pf.data" -- "$wl/page-fault" >/dev/null 2>"$tmp/err"
ok $? "record -r 2 the page-fault workload"

"$MMPROF" report --keys "$tmp/pf.data" >"$tmp/keys" 2>"$tmp/err"
ok $? "report exits 0"
[ -s "$tmp/err" ] && diag "$tmp/err"

grep -q '^perf-profile\.children\.cpu-clock\.pf_touch_pages: [0-9]*\.[0-9][0-9]$' "$tmp/keys"
ok $? "user hot function pf_touch_pages has a children key with two decimals"
v=$(key 'perf-profile\.children\.cpu-clock\.exc_page_fault')
awk -v v="$v" 'BEGIN { exit !(v > 20 && v <= 100) }'
ok $? "kernel exc_page_fault children share is large ($v %)"
grep -q '^perf-profile\.calltrace\.cpu-clock\.handle_mm_fault\.exc_page_fault\.asm_exc_page_fault\.' "$tmp/keys"
ok $? "calltrace handle_mm_fault.exc_page_fault.asm_exc_page_fault... present"
grep -q '^perf-profile\.self\.cpu-clock\.' "$tmp/keys"
ok $? "self keys present"
awk -F': ' '/^perf-profile\./ && $2 < 0.05 { bad = 1 } END { exit bad }' "$tmp/keys"
ok $? "no perf-profile key under 0.05"
! grep -q '\.isra\.[0-9]\|\.constprop\.[0-9]\|\.part\.[0-9]' "$tmp/keys"
ok $? "no .isra/.constprop/.part suffix in keys"
grep -q '^perf-stat\.ps\.page-faults: ' "$tmp/keys" && grep -q '^perf-stat\.i\.page-faults: ' "$tmp/keys"
ok $? "perf-stat ps and i keys for page-faults"
grep -q '^page-fault\.time\.elapsed_time: ' "$tmp/keys" && grep -q '^page-fault\.ops_per_sec: ' "$tmp/keys"
ok $? "workload metric and time keys"
LC_ALL=C sort -c -s -t. -k1,1 "$tmp/keys" 2>/dev/null
ok $? "keys sorted by family"

# the first screen: what perf report gives first
"$MMPROF" report "$tmp/pf.data" >"$tmp/first" 2>"$tmp/err"
ok $? "report FILE (the first screen) exits 0"
head -1 "$tmp/first" | grep -q "^# mmprof report of '$tmp/pf.data': mmprof record -r 2 " &&
	grep -q '^# 2 runs, [0-9.]* s each on average; all exited 0$' "$tmp/first" &&
	grep -q '^# events: cpu-clock; samples [1-9][0-9]*, lost 0 (0.00%)$' "$tmp/first" &&
	grep -q '^# counters: .*page-faults [1-9]' "$tmp/first" &&
	grep -q '^# metrics: .*page-fault.ops_per_sec ' "$tmp/first" &&
	grep -q '^# unresolved: [0-9.]*% of [0-9]* samples' "$tmp/first"
ok $? "the first screen's header: command, runs and status, events, samples, lost, counters, metrics, unresolved"
grep -q '^# Top 12 functions by children' "$tmp/first" &&
	grep -q '\[\.\] pf_touch_pages$' "$tmp/first" && grep -q '^# Top 4 by self, with their callers' "$tmp/first" &&
	grep -q '^ *- [0-9.]*% exc_page_fault$' "$tmp/first" &&
	! grep -q '^perf-profile\.' "$tmp/first"
ok $? "then the top functions by children and by self with their call chains, no key"
lines=$(wc -l <"$tmp/first")
test "$lines" -le 80
ok $? "about a screenful ($lines lines, at most 80), not the 500 keys"

"$MMPROF" report --runs "$tmp/pf.data" | grep -q '^page-fault\.ops_per_sec: [0-9.]*  runs: [0-9.]* [0-9.]*$'
ok $? "--runs prints both runs' values"

"$MMPROF" report --tree "$tmp/pf.data" >"$tmp/tree" 2>&1
ok $? "--tree exits 0"
grep -q '^ *[0-9.]*% *[0-9.]*%  \[kernel.kallsyms\] *\[k\] exc_page_fault$' "$tmp/tree" &&
	grep -q '^ *- [0-9.]*% asm_exc_page_fault$' "$tmp/tree"
ok $? "tree: entry line and callers below it"
"$MMPROF" report --tree -g caller --percent-limit 2 "$tmp/pf.data" >"$tmp/tree2" 2>&1 &&
	awk '/\[k\] exc_page_fault$/ { on = 1; next } on && /^$/ { exit } on' "$tmp/tree2" >"$tmp/block" &&
	grep -q '% handle_mm_fault$' "$tmp/block" && ! grep -q 'asm_exc_page_fault' "$tmp/block"
ok $? "tree -g caller: callees below the entry (handle_mm_fault in its block, at any depth; no caller)"

"$MMPROF" report --folded "$tmp/pf.data" >"$tmp/folded" 2>&1
ok $? "--folded exits 0"
total=$(awk '{ s += $NF } END { print s }' "$tmp/folded")
want=$(sqlite3 "$tmp/pf.data" 'select sum(samples) from runs' 2>/dev/null || echo "$total")
[ -n "$total" ] && [ "$total" = "$want" ] && grep -q ';exc_page_fault;' "$tmp/folded" &&
	! grep -qv '^[^ ]* [0-9][0-9]*$' "$tmp/folded"
ok $? "folded: 'frames count' lines, counts add up to the samples ($total = $want)"

"$MMPROF" report --json --tree "$tmp/pf.data" >"$tmp/json" 2>&1 &&
	python3 -m json.tool "$tmp/json" >/dev/null &&
	python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); assert len(d["runs"]) == 2; assert d["keys"]["perf-profile.children.cpu-clock.exc_page_fault"]["mean"] > 20; assert d["tree"][0]["entries"]' "$tmp/json"
ok $? "--json parses and holds 2 runs, keys and the tree"

"$MMPROF" report --keys "$tmp/missing.data" >"$tmp/out" 2>"$tmp/err"
rc=$?
[ $rc -eq 2 ] && [ "$(wc -l <"$tmp/err")" -eq 1 ] && grep -q "^mmprof: .*missing.data" "$tmp/err"
ok $? "missing file: one line, exit 2 (got $rc)"
head -c 3000 "$tmp/pf.data" >"$tmp/cut.data"
"$MMPROF" report --keys "$tmp/cut.data" >"$tmp/out" 2>"$tmp/err"
rc=$?
[ $rc -eq 2 ] && [ "$(wc -l <"$tmp/err")" -eq 1 ]
ok $? "truncated file: one line, exit 2 (got $rc)"

missing=
for o in $("$MMPROF" report --help | grep -o -- '--[a-z][a-z-]*' | sort -u); do
	grep -q -- "$(echo "$o" | sed 's/-/\\\\-/g')" "$here/man/mmprof-report.1" || missing="$missing $o"
done
[ -z "$missing" ]
ok $? "every --help option is in man/mmprof-report.1${missing:+ (missing:$missing)}"

# Against perf on the same workload (different runs: a few points apart;
# a sanitizer-built recorder competes harder with the workload for the two
# CPUs of the test machine, so it gets a wider margin).
tol=10
[ -n "${MMPROF_SANITIZE:-}" ] && tol=20
if perf record -q -g -e cpu-clock -o "$tmp/perf.data" -- "$wl/page-fault" >/dev/null 2>&1 &&
   perf report -i "$tmp/perf.data" --children --sort=dso,symbol -g none -U --stdio 2>/dev/null >"$tmp/perf.txt"; then
	bad=
	for f in asm_exc_page_fault exc_page_fault handle_mm_fault do_anonymous_page; do
		p=$(awk -v f="$f" '$5 == f && $4 == "[k]" { sub("%", "", $1); print $1; exit }' "$tmp/perf.txt")
		m=$(key "perf-profile\.children\.cpu-clock\.$f")
		awk -v p="$p" -v m="$m" -v tol=$tol 'BEGIN { d = p - m; if (d < 0) d = -d; exit !(p != "" && m != "" && d < tol) }' ||
			bad="$bad $f(perf $p, mmprof $m)"
	done
	[ -z "$bad" ]
	ok $? "children% agree with perf report within $tol points${bad:+:$bad}"
else
	fail "perf record/report on the workload"
fi

done_testing
