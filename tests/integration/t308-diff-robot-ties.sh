#!/bin/sh
# t308-diff-robot-ties: the comparison table of a recorded workload whose
# metrics are decimal ties in every format of the robot's table (%.2f,
# %.4g over 1e8, integers, %.1f and %.2g changes, ± spreads) is the robot's
# own renderer's, byte for byte (issue 27, point 11).  The workload is a
# crafted stress-ng: it prints, run after run, the values of
# tests/golden/diff/lkp-003.input; lkp-003.expected is what lkp-tests'
# lib/compare.rb printed for those values (make-lkp-003.rb beside it).
# Every row of `diff --all` is checked, and every row the default table
# (the robot's changed-stats filter) prints is the same text.

. "$(dirname "$0")/lib.sh"
tap_setup t308

in=$here/tests/golden/diff/lkp-003.input
want=$here/tests/golden/diff/lkp-003.expected
# a stress-ng that prints its metrics for run N (base 1-3, new 4-6)
cat >"$tmp/stress-ng" <<'SH'
#!/bin/sh
n=$(cat "$COUNTER" 2>/dev/null || echo 0); n=$((n + 1)); echo $n >"$COUNTER"
echo "stress-ng: info:  [100] dispatching hogs: 60 crafted"
echo "stress-ng: metrc: [100] stressor       bogo ops real time  usr time  sys time   bogo ops/s     bogo ops/s"
echo "stress-ng: metrc: [100]                           (secs)    (secs)    (secs)   (real time) (usr+sys time)"
grep -v '^#' "$INPUT" | while read -r name o1 o2 o3 o4 o5 o6 r1 r2 r3 r4 r5 r6; do
	eval "ops=\$o$((n + SIDE)) rate=\$r$((n + SIDE))"
	echo "stress-ng: metrc: [100] $name              $ops      1.00      0.50      0.50     $rate       1.00"
done
echo "stress-ng: info:  [100] successful run completed in 1.00s"
SH
chmod +x "$tmp/stress-ng"
cd "$tmp" || exit 2
INPUT=$in COUNTER=base.n SIDE=0 "$MMPROF" record -q -r 3 -o base.data -- ./stress-ng >/dev/null 2>&1
ok $? "record the crafted stress-ng, 3 base runs"
INPUT=$in COUNTER=new.n SIDE=3 "$MMPROF" record -q -r 3 -o new.data -- ./stress-ng >/dev/null 2>&1
ok $? "record it, 3 new runs"
"$MMPROF" report --runs base.data 2>/dev/null | grep -q "^stress-ng.s00.ops_per_sec: 939.7  runs: 939.7 939.7 939.7$"
ok $? "the workload's values are the runs' metrics"

rows() { grep -o '^.*  stress-ng\.s[0-9][0-9]\.ops\(_per_sec\)\{0,1\}' | LC_ALL=C sort -k2 -t'~'; }
key_sort() { awk '{ print $NF "\t" $0 }' | LC_ALL=C sort | cut -f2-; }
"$MMPROF" diff --all base.data new.data >all 2>err
ok $? "diff --all exits 0"
rows <all | key_sort >got
test "$(wc -l <got)" -eq 120; ok $? "diff --all: all 120 rows ($(wc -l <got))"
diff got "$want" >d; ok $? "diff --all: every row is the robot's renderer's, byte for byte ($(grep -c '^<' d) differ)"
sed -n 1,6p d | sed 's/^/# /'

"$MMPROF" diff base.data new.data >def 2>err
ok $? "diff exits 0"
rows <def >shown
test -s shown; ok $? "the default table shows some of the rows ($(wc -l <shown))"
grep -vxFf "$want" shown >odd; test ! -s odd
ok $? "each row the default table shows is the robot's text for its key"
sed -n 1,3p odd | sed 's/^/# /'
done_testing
