#!/usr/bin/env bash
# demo.sh: `make demo` — mmprof's main job on a bundled workload, start to end.
#
# Records tests/workloads/thp-zap with transparent huge pages off (base) and
# on (new), $DEMO_RUNS runs each, then diffs them.  With THP on, each 2 MiB
# chunk is one huge page and the partial MADV_DONTNEED must split it: the
# zap -> __split_huge_pmd family rises (the stress-ng.pthread -84.3% report
# in miniature).  Prints the new side's first screen (`mmprof report`),
# then a focused view (the family, the cost per op by function, the gate a
# CI job would use, the top changed call chains); the full tables and every
# artifact (both .data files, text/markdown/JSON diffs, folded stacks, flame
# graphs, the HTML report, JUnit and summary of the gate) go to one folder,
# printed at the end.
#
# Takes about a minute on 2 cores after the build (2 x 3 runs of 4 s plus
# analysis).  Holds the THP split lock (Documentation/workloads.md) while
# recording: /proc/vmstat's thp counters are system-wide and `make check`
# may be running the THP tests at the same time.
#
# Environment: MMPROF_BUILD (default build), DEMO_RUNS (3), DEMO_SECONDS (4),
# DEMO_OUT (default $MMPROF_BUILD/demo).
set -euo pipefail
build=${MMPROF_BUILD:-build}
mmprof=$build/mmprof
wl=$build/workloads/thp-zap
runs=${DEMO_RUNS:-3}
secs=${DEMO_SECONDS:-4}
out=${DEMO_OUT:-$build/demo}
family='perf-profile.children.*.__split_huge_pmd*'
gate="$family > +1"

for f in "$mmprof" "$wl"; do
	[ -x "$f" ] || { echo "mmprof demo: '$f' is missing; run 'make demo' from the top of the tree" >&2; exit 2; }
done

# Headings stand out on a terminal only (NO_COLOR respected).
if [ -t 1 ] && [ -z "${NO_COLOR:-}" ] && [ "${TERM:-dumb}" != dumb ]; then
	bold=$'\033[1m' off=$'\033[0m'
else
	bold='' off=''
fi
say() { printf '\n%s== %s ==%s\n' "$bold" "$*" "$off"; }

rm -rf "$out"
mkdir -p "$out"

say "recording $(basename "$wl"): THP off (base) and on (new), $runs runs of ${secs}s each"
exec {lock}>"${TMPDIR:-/tmp}/mmprof-thp-split.lock"
flock "$lock"
# Workload output (its metric lines) is kept in the .data file; the
# progress line and summary of record go to stderr.
"$mmprof" record -r "$runs" -o "$out/base.data" -- "$wl" --thp off --seconds "$secs" >"$out/base.workload.txt"
"$mmprof" record -r "$runs" -o "$out/new.data" -- "$wl" --thp on --seconds "$secs" >"$out/new.workload.txt"
flock -u "$lock"
exec {lock}>&-

# Every artifact first, quietly; then the focused view from them.
"$mmprof" report "$out/new.data" >"$out/new.report.txt" 2>&1
"$mmprof" report --keys "$out/base.data" >"$out/base.keys.txt"
"$mmprof" report --keys "$out/new.data" >"$out/new.keys.txt"
"$mmprof" report --tree "$out/new.data" >"$out/new.tree.txt"
"$mmprof" report --folded "$out/base.data" >"$out/base.folded"
"$mmprof" report --folded "$out/new.data" >"$out/new.folded"
# diff exits 1 when a gate trips: that is the expected outcome here.
rc=0
"$mmprof" diff -g --fail-on "$gate" "$out/base.data" "$out/new.data" \
	>"$out/diff.txt" 2>"$out/gate.txt" || rc=$?
[ "$rc" -le 1 ] || { cat "$out/gate.txt" >&2; exit "$rc"; }
"$mmprof" diff --all "$out/base.data" "$out/new.data" >"$out/diff.all.txt"
"$mmprof" diff -f markdown "$out/base.data" "$out/new.data" >"$out/diff.md"
"$mmprof" diff -f json -g "$out/base.data" "$out/new.data" >"$out/diff.json"
"$mmprof" diff --robot "$out/base.data" "$out/new.data" >"$out/diff.robot.txt"
# Pictures: flame graphs of each side, the differential one (red grew,
# blue shrank, only where significant) and the one-file HTML report.
"$mmprof" flamegraph -t "thp-zap, THP off" -o "$out/base.svg" "$out/base.data"
"$mmprof" flamegraph -t "thp-zap, THP on" -o "$out/new.svg" "$out/new.data"
"$mmprof" flamegraph -t "thp-zap, THP off -> on" -o "$out/diff.svg" "$out/base.data" "$out/new.data"
# The CI verdict's reports, with the gate: the HTML's first screen, JUnit, a step summary.
rc_html=0
"$mmprof" diff --fail-on "$gate" --html "$out/report.html" --junit "$out/junit.xml" \
	--summary "$out/summary.md" "$out/base.data" "$out/new.data" >/dev/null 2>&1 || rc_html=$?
[ "$rc_html" -le 1 ] || exit "$rc_html"

say "mmprof report new.data: the first screen, top functions by children and self (report --keys: the LKP keys)"
sed -n '1,40p' "$out/new.report.txt"

say "the __split_huge_pmd family and the workload's own keys, with verdicts (every row: diff.all.txt)"
sed -n '/%stddev/,/\\/p' "$out/diff.all.txt"
grep -E '^ .*  (thp-zap\.(ops|thp_)|perf-profile\.(children|self)\.[^.]*\.(__split_huge_pmd|zap_page_range|madvise))' \
	"$out/diff.all.txt" || true

say "where the time per operation went: cost per op by function, adding up to the change (diff.txt, Documentation/cost-per-op.md)"
sed -n '/^cost per \(op\|second\)/,/^$/p' "$out/diff.txt"

say "top changed call chains, caller -> callee"
sed -n '/^call chains whose share changed/,$p' "$out/diff.txt" | sed -n '2,11p'

say "a CI gate: mmprof diff --fail-on '$gate'  (exit $rc)"
cat "$out/gate.txt"

say "artifacts"
ls "$out" | sed 's/^/    /'
dir=$(cd "$out" && pwd)
echo "open $dir/report.html (the verdict, then the differential flame graph) or $dir/diff.svg"
echo "mmprof demo: artifacts in $dir"
