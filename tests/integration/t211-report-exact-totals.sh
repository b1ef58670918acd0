#!/bin/sh
# t211-report-exact-totals: a period total is an integer and prints as one,
# exactly, up to the largest a file holds (all counts together below 2^63,
# the loader's rule).  A cell of 2^63 - 1 printed as ...808 in report
# --tree's header, report --json's tree total_period and the flame graph's
# tooltips: each summed and printed the periods as doubles, which round
# above 2^53.  Two cells of 2^62 and 2^62 - 1 (two functions) must sum to
# 2^63 - 1 too; samples in the flame graph the same.

. "$(dirname "$0")/lib.sh"
tap_setup t211
plan 7

MAX=9223372036854775807
# perf script text: one sample of 2^63 - 1 in main; then the same total in two cells
printf 'prog  1234 100.000001:   %s cpu-clock: \n\t    401000 main+0x0 (/bin/prog)\n\n' "$MAX" >"$tmp/one.txt"
printf 'prog  1234 100.000001:   4611686018427387904 %s: \n\t    401000 f+0x0 (/bin/prog)\n\t    402000 main+0x0 (/bin/prog)\n\nprog  1234 100.000002:   4611686018427387903 %s: \n\t    403000 g+0x0 (/bin/prog)\n\t    402000 main+0x0 (/bin/prog)\n\n' \
	page-faults page-faults >"$tmp/two.txt"
"$MMPROF" import -o "$tmp/one.data" - <"$tmp/one.txt" 2>"$tmp/err" &&
	"$MMPROF" import -o "$tmp/two.data" - <"$tmp/two.txt" 2>>"$tmp/err"
ok $? "import two files whose period totals are 2^63 - 1"
diag "$tmp/err"

"$MMPROF" report --tree "$tmp/one.data" >"$tmp/out" 2>"$tmp/err" &&
	grep -qx "# Event 'cpu-clock': 1 samples, total period $MAX, 1 run" "$tmp/out"
ok $? "report --tree: one cell of 2^63 - 1, exact in the header"
grep "total period" "$tmp/out" | sed 's/^/# /'

"$MMPROF" report --tree "$tmp/two.data" >"$tmp/out" 2>"$tmp/err" &&
	grep -qx "# Event 'page-faults': 2 samples, total period $MAX, 1 run" "$tmp/out"
ok $? "report --tree: two cells summing to 2^63 - 1, exact"
grep "total period" "$tmp/out" | sed 's/^/# /'

"$MMPROF" report --json --tree "$tmp/two.data" >"$tmp/out" 2>"$tmp/err" &&
	grep -q "\"total_period\": $MAX," "$tmp/out"
ok $? "report --json: the tree's total_period exact"
grep -o '"total_period": [^,]*' "$tmp/out" | sed 's/^/# /'

# the flame graph's tooltips (page-faults: a count, not nanoseconds)
"$MMPROF" flamegraph -o "$tmp/two.svg" "$tmp/two.data" 2>"$tmp/err" &&
	grep -q "period $MAX<" "$tmp/two.svg" && grep -qx ".* period 4611686018427387903" "$tmp/two.svg"
ok $? "flamegraph: the root's and g's periods exact"
grep -o "period [0-9]*<" "$tmp/two.svg" | sort -u | sed 's/^/# /'
"$MMPROF" flamegraph --icicle -o "$tmp/two.svg" "$tmp/two.data" 2>"$tmp/err" &&
	grep -q "period $MAX<" "$tmp/two.svg"
ok $? "flamegraph --icicle: the root's period exact"

# many samples of one stack: samples in the tooltip and the subtitle as integers
i=0
while [ $i -lt 3 ]; do
	printf 'prog  1234 100.00000%d:   1 page-faults: \n\t    401000 main+0x0 (/bin/prog)\n\n' $i
	i=$((i + 1))
done >"$tmp/three.txt"
"$MMPROF" import -o "$tmp/three.data" - <"$tmp/three.txt" 2>"$tmp/err" &&
	"$MMPROF" flamegraph -o "$tmp/three.svg" "$tmp/three.data" 2>>"$tmp/err" &&
	grep -q "3 samples · period 3<" "$tmp/three.svg"
ok $? "flamegraph: small counts print as before (3 samples, period 3)"
diag "$tmp/err"
done_testing
