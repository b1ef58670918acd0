#!/bin/sh
# t837-diff-products: diff's work is bounded by what it compares, not by
# each table's limit (issue 31, the variants of item 2 for diff).  Files
# made by tests/integration/hostile-dims.py from a real recording, diff of
# each with itself under t833's CPU-time and address-space limits:
#   - 10,000 runs, each with its own stack in a trie of 200,000 nodes
#     (1 MB; 34.7 s and 1 GB before): thousands of keys x 20,000 runs are
#     more values than diff tests, refused in one line (DIFF_MAX_VALUES,
#     robustness.md), in 1.5 s;
#   - 10,000 runs of one stack in a trie of 200,000 nodes (6 s of CPU
#     before, the costs per op walked the whole symbol trie per run and
#     event): the costs walk each run's stacks, a diff within 3 s.

. "$(dirname "$0")/lib.sh"
tap_setup t837

if [ -n "${MMPROF_SANITIZE:-}" ]; then
	secs=30 as_kb=
else
	secs=5 as_kb=$((1024 * 1024))
fi
gen=$here/tests/integration/hostile-dims.py

# limited SECS ARGS...: mmprof ARGS within SECS of CPU and the memory limit
limited() {
	cpu=$1
	shift
	run_limited "$cpu" $((cpu * 12)) "$as_kb" "$@"
}

"$MMPROF" record -q -r 3 -e cpu-clock -F 1000 -o "$tmp/base.data" -- \
	sh -c 'i=0; while [ $i -lt 30000 ]; do i=$((i+1)); done' 2>"$tmp/rec.err"
ok $? "a recording of 3 runs"
python3 "$gen" spread "$tmp/base.data" "$tmp/spread.data" 10000 1 200000 &&
	python3 "$gen" wide "$tmp/base.data" "$tmp/wide.data" 10000 1 200000
ok $? "hostile files made"

limited "$secs" diff "$tmp/spread.data" "$tmp/spread.data"
rc=$?
test $rc -eq 2 && test "$(wc -l <"$tmp/err")" -eq 1 &&
	grep -q "20000 runs (10000 base, 10000 new) and more than 838 keys are more values than diff tests (keys x runs, at most 2^24" "$tmp/err"
ok $? "10,000 runs of a stack each: diff refused in one line within ${secs} s and the memory limit (rc $rc)"
[ $rc -eq 2 ] || head -3 "$tmp/err" | sed 's/^/# /'
test ! -s "$tmp/out"
ok $? "nothing on stdout"

if [ -n "${MMPROF_SANITIZE:-}" ]; then wsecs=$secs; else wsecs=3; fi
limited "$wsecs" diff "$tmp/wide.data" "$tmp/wide.data"
rc=$?
test $rc -eq 0 && grep -q "^runs  *10000  *10000" "$tmp/out"
ok $? "10,000 runs of one stack over 200,000 nodes: diff within ${wsecs} s (rc $rc)"
[ $rc -eq 0 ] || head -3 "$tmp/err" | sed 's/^/# /'

done_testing
