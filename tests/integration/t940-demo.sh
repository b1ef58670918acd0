#!/usr/bin/env bash
# t940-demo: `make demo`'s script end to end, shortened (3 runs of 1 s a
# side): it exits 0, prints the __split_huge_pmd family rising and the
# tripped CI gate, names the artifacts folder last, and that folder holds
# every artifact, each non-empty; it shows report's first screen of the
# new side and the cost per op by function.  demo.sh takes the THP split lock itself.

. "$(dirname "$0")/lib.sh"
tap_setup t940

(cd "$here" && MMPROF_BUILD=$MMPROF_BUILD DEMO_RUNS=3 DEMO_SECONDS=1 DEMO_OUT=$tmp/demo \
	src/scripts/demo.sh) >"$tmp/out" 2>"$tmp/err"
ok $? "demo.sh exits 0$(tail -n 2 "$tmp/err" | tr '\n' ' ' | sed 's/^/: /')"

# Verdicts depend on the machine's load (short runs); the rise does not.
grep -qE '^ +0\.00 +\+[1-9][0-9.]* +[0-9.]+.*perf-profile\.children\.[^.]+\.__split_huge_pmd  \[' "$tmp/out"
ok $? "the focused view shows perf-profile.children.*.__split_huge_pmd rising from 0, with its verdict"
if grep -qE 'children\.[^.]+\.__split_huge_pmd  \[(new|up) ' "$tmp/out"; then
	grep -q "gate 'perf-profile.children.\*.__split_huge_pmd\* > +1' tripped" "$tmp/out" &&
		grep -q "(exit 1)" "$tmp/out"
else
	grep -q "(exit 0)" "$tmp/out"
fi
ok $? "the CI gate trips (exit 1) exactly when the family's rise is significant"
grep -q "^cost per op (work: thp-zap.ops" "$tmp/out" && grep -q "^  CPU (cpu-clock): base .*, new " "$tmp/out" &&
	grep -qE "^ +[-+][0-9.]+ [mµn]?s +100.0 % .* total$" "$tmp/out"
ok $? "the demo shows the change of the CPU cost per op, by function, down to its total"
[ "$(tail -n 1 "$tmp/out")" = "mmprof demo: artifacts in $tmp/demo" ]
ok $? "the last line names the artifacts folder"

missing=""
for f in base.data new.data diff.txt diff.all.txt diff.md diff.json diff.robot.txt base.folded new.folded \
	 new.tree.txt base.svg new.svg diff.svg new.report.txt report.html junit.xml summary.md; do
	[ -s "$tmp/demo/$f" ] || missing="$missing $f"
done
[ -z "$missing" ]
ok $? "every artifact is there and non-empty${missing:+ (missing:$missing)}"
grep -q '__split_huge_pmd' "$tmp/demo/diff.svg" && grep -q '__split_huge_pmd' "$tmp/demo/report.html"
ok $? "the differential flame graph and the HTML report show __split_huge_pmd"
# the HTML's first screen carries the gate and its __split_huge_pmd row when the gate trips
if grep -q "(exit 1)" "$tmp/out"; then
	sed -n '/<div id="verdict">/,/<h2>Differential flame graph/p' "$tmp/demo/report.html" |
		grep -q '<td class="key">perf-profile.children.cpu-clock.__split_huge_pmd</td>' &&
		grep -q '<failure type="gate"' "$tmp/demo/junit.xml"
else
	grep -q 'Passed: 0 of 1 gate tripped' "$tmp/demo/report.html" && ! grep -q '<failure' "$tmp/demo/junit.xml"
fi
ok $? "report.html's verdict and junit.xml say what the gate said"
grep -q "^# mmprof report of '.*new.data'" "$tmp/out" && grep -q "^# Top 12 functions by children" "$tmp/out" &&
	grep -q '\[\.\] thp_zap_touch$' "$tmp/demo/new.report.txt"
ok $? "the demo prints the new side's first screen (report FILE), the workload's thp_zap_touch among its top functions"

done_testing
