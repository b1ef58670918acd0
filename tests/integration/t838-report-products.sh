#!/bin/sh
# t838-report-products: what report prints is bounded by a product of the
# file's dimensions, not by each table's limit (issue 31: report --json
# printed 384 MB from a 2.3 MB file).  Files made by
# tests/integration/hostile-dims.py (chains) from a real recording, each
# view under t833's CPU-time and address-space limits:
#   - 200 runs x 256 events x 2,000 chains of 100 frames merging into
#     1,000 nodes, one cell per (run, event) (2.3 MB): 526,087 keys, each
#     with a value in each of 200 runs; report --json (384 MB, 19.6 s
#     before) and report --keys --runs are refused in one line, keys x
#     runs past KEYS_MAX_VALUES (2^24, diff's budget); report --keys, the
#     means, is within the limits;
#   - 1 run x 256 events x 200 chains of 127 frames of their own, every
#     chain's leaf in every event (0.5 MB): report --tree drew more than
#     4 GB of graphs (2^22 lines at most now), report --keys asked for 13 M
#     keys (killed at 120 s; 2^21 at most now, counted before any is made);
#     one event without its graphs is within the limits;
#   - one chain of 65,535 frames with a count at every node (1.2 MB):
#     every stack written whole is 2^31 frames (export -f json wrote 3.2
#     GB in 60 s, folded and pprof were killed): at most 2^25, counted
#     before a line; 4,000 deep is within them.

. "$(dirname "$0")/lib.sh"
tap_setup t838

if [ -n "${MMPROF_SANITIZE:-}" ]; then
	secs=60 as_kb=
else
	secs=10 as_kb=$((1024 * 1024))
fi
gen=$here/tests/integration/hostile-dims.py

# limited ARGS...: mmprof ARGS within $secs of CPU and the memory limit
limited() { run_limited "$secs" $((secs * 12)) "$as_kb" "$@"; }

# refused WHAT PATTERN ARGS...: exit 2, one line matching PATTERN, no stdout
refused() {
	what=$1 pattern=$2
	shift 2
	limited "$@"
	rc=$?
	test $rc -eq 2 && test "$(wc -l <"$tmp/err")" -eq 1 && grep -q "$pattern" "$tmp/err" &&
		test ! -s "$tmp/out"
	ok $? "$what: refused in one line within ${secs} s and the memory limit, nothing printed (rc $rc)"
	[ $rc -eq 2 ] || head -3 "$tmp/err" | sed 's/^/# /'
}

"$MMPROF" record -q -r 3 -e cpu-clock -F 1000 -o "$tmp/base.data" -- \
	sh -c 'i=0; while [ $i -lt 30000 ]; do i=$((i+1)); done' 2>"$tmp/rec.err"
ok $? "a recording of 3 runs"
python3 "$gen" chains "$tmp/base.data" "$tmp/keys.data" 200 256 2000 100 10 1 &&
	python3 "$gen" chains "$tmp/base.data" "$tmp/tree.data" 1 256 200 127 200 0 &&
	python3 "$gen" deep "$tmp/base.data" "$tmp/deep.data" 65535 &&
	python3 "$gen" deep "$tmp/base.data" "$tmp/deep4k.data" 4000
ok $? "hostile files made"
size=$(wc -c <"$tmp/keys.data")
test "$size" -lt 3000000
ok $? "200 runs x 256 events x 1,000 nodes is a small file ($size bytes)"

refused "526,087 keys x 200 runs: report --json" \
	"[0-9]* keys x 200 runs are more values than report --json prints (keys x runs, at most 2^24" \
	report --json "$tmp/keys.data"
refused "526,087 keys x 200 runs: report --keys --runs" \
	"[0-9]* keys x 200 runs are more values than report --keys --runs prints" \
	report --keys --runs "$tmp/keys.data"
limited report --keys "$tmp/keys.data"
rc=$?
test $rc -eq 0 && grep -q "^perf-profile.children.cpu-clock-255.f" "$tmp/out"
ok $? "526,087 keys x 200 runs: report --keys prints the means within ${secs} s and the memory limit (rc $rc)"
[ $rc -eq 0 ] || head -3 "$tmp/err" | sed 's/^/# /'

refused "256 events x 200 chains of 127: report --tree" \
	"its call graphs are more than 4194304 lines (report --tree, at most 2^22" \
	report --tree "$tmp/tree.data"
refused "256 events x 200 chains of 127: report --keys" \
	"its events' functions are more keys than a report takes (at most 2^21" \
	report --keys "$tmp/tree.data"
refused "256 events x 200 chains of 127: report --json --tree" \
	"its events' functions are more keys than a report takes (at most 2^21" \
	report --json --tree "$tmp/tree.data"
limited report --tree -e cpu-clock-3 --no-graph "$tmp/tree.data"
rc=$?
test $rc -eq 0 && test "$(grep -c "\[\.\] f[0-9]" "$tmp/out")" -eq 25400
ok $? "one event of 25,400 functions: report --tree -e --no-graph prints each (rc $rc)"

for r in "report --folded" "export -f folded" "export -f json" "export -f pprof -o $tmp/x.pb"; do
	# shellcheck disable=SC2086
	refused "one chain of 65,535 with a count at each: $r" "its stacks are more.* 2^25" \
		$r "$tmp/deep.data"
done
limited export -f folded "$tmp/deep4k.data"
rc=$?
test $rc -eq 0 && test "$(wc -l <"$tmp/out")" -eq 4000
ok $? "one chain of 4,000: export -f folded writes its 4,000 stacks (rc $rc)"

done_testing
