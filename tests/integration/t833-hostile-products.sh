#!/bin/sh
# t833-hostile-products: a reader's work is bounded by a product of the
# file's dimensions, not by each table's limit alone (issue 31, items 2
# and 3).  Files made by tests/integration/hostile-dims.py from a real
# recording, every reader under t830's CPU-time and address-space limits:
#   - 200 runs x 256 events x 200,000 nodes, one cell per (run, event)
#     (2.1 MB; report --keys took 66 s): refused in one line, every
#     (run, event) walking the trie is more than a reader walks;
#   - 2^26 nodes packed 1000 to 1 and padded to pass the 64-times rule
#     (9 MB; report took 1.58 GB and 8 s, diff of it with itself 3.1 GB):
#     refused on the blocks' stated sizes, before any is unpacked;
#   - within the budgets, 120 runs x 83 events x 200,000 nodes (2 x 10^9
#     visits of the whole trie for the keys, 9 s of CPU): report --keys
#     walks only the cells' paths (test-keys and test-report check that
#     the keys are those of the whole walk).

. "$(dirname "$0")/lib.sh"
tap_setup t833

if [ -n "${MMPROF_SANITIZE:-}" ]; then
	secs=30 as_kb=
else
	secs=5 as_kb=$((1024 * 1024))
fi
wall=$((secs * 12))
gen=$here/tests/integration/hostile-dims.py

limited() { run_limited "$secs" "$wall" "$as_kb" "$@"; }

# refused NAME PATTERN: every reader exits 2 with one line matching PATTERN
refused() {
	f=$tmp/$1.data
	for r in "report" "report --keys" "report --json" "report --tree" "flamegraph -o $tmp/fg.svg" \
		"export -f folded -o $tmp/x.folded" "export -f pprof -o $tmp/x.pb" "diff $f"; do
		# shellcheck disable=SC2086
		limited $r "$f"
		rc=$?
		test $rc -eq 2 && test "$(wc -l <"$tmp/err")" -eq 1 && grep -q "$2" "$tmp/err"
		ok $? "$1: $r refused in one line within ${secs} s and the memory limit (rc $rc)"
		[ $rc -eq 2 ] || head -3 "$tmp/err" | sed 's/^/# /'
	done
}

"$MMPROF" record -q -r 3 -e cpu-clock -F 1000 -o "$tmp/base.data" -- \
	sh -c 'i=0; while [ $i -lt 30000 ]; do i=$((i+1)); done' 2>"$tmp/rec.err"
ok $? "a recording of 3 runs"
python3 "$gen" dims "$tmp/base.data" "$tmp/dims.data" 200 256 200000 &&
	python3 "$gen" packed "$tmp/base.data" "$tmp/packed.data" &&
	python3 "$gen" dims "$tmp/base.data" "$tmp/edge.data" 120 83 200000
ok $? "hostile files made"
size=$(wc -c <"$tmp/dims.data")
test "$size" -lt 3000000
ok $? "200 x 256 x 200,000 is a small file ($size bytes)"

refused dims "more than a reader walks"
refused packed "unpack to 512 MiB, more than the 64 MiB a reader allows"

limited report --keys "$tmp/edge.data"
rc=$?
test $rc -eq 0 && grep -q "^perf-profile.self.cpu-clock" "$tmp/out"
ok $? "120 x 83 x 200,000 within the budgets: report --keys within ${secs} s (rc $rc)"
[ $rc -eq 0 ] || head -3 "$tmp/err" | sed 's/^/# /'

done_testing
