#!/bin/sh
# t303-diff-columns: mmprof diff with a base and several compared columns,
# as the robot compares one base commit with several (compare.rb's
# "%change %stddev" once per compared commit, each against the base):
#   - `BASE C1 C2` and `BASE -- C1 -- C2` print one table; the heads, the
#     ruler and every row have a change, value and spread per column;
#   - each column's numbers and verdicts are those of the two-file diff of
#     the base with that column (the statistics run per column);
#   - a column of several pooled files (`B -- C1a C1b -- C2`);
#   - gates read every compared column and name the one that tripped;
#     --gate-column reads one; --drop-run names a column;
#   - json (one diff object per column), csv (a column field), markdown,
#     --html, --junit, --summary (one file per column);
#   - a column sampled with another event: refused naming it, --force
#     pairs that column's rows alone.

. "$(dirname "$0")/lib.sh"
tap_setup t303

# THP on splits huge pages: under the suite's THP split lock (t051's), since
# /proc/vmstat's thp_split_pmd is system-wide and t050 and t720 check that a
# --thp off run splits none
# Runs of fixed work, some 0.4 s of CPU each (4 iterations of 32 MiB with
# THP off, 160 with it on: a huge page's fault and zap are some 40 times
# cheaper than 512 small ones), not of a time: a run of 0.6 s got one
# iteration at load 41, and a new1 run with almost no split made
# __split_huge_pmd's rise "can't tell" (test 8, a fresh-clone CI)
lock=${TMPDIR:-/tmp}/mmprof-thp-split.lock
rec() {	# rec OUT RUNS THP
	[ "$3" = on ] && iters=160 || iters=4
	flock "$lock" "$MMPROF" record -q -r "$2" -o "$tmp/$1" -- "$wl/thp-zap" --thp "$3" -n $iters \
		>/dev/null 2>>"$tmp/rec.err"
}
SPLIT=perf-profile.children.cpu-clock.__split_huge_pmd

rec off.data 3 off && rec on.data 3 on && rec off2.data 3 off
ok $? "record thp-zap: THP off, on, off again (3 runs each)"
diag "$tmp/rec.err"
cd "$tmp" || exit 2

"$MMPROF" diff off.data on.data off2.data >out 2>err
ok $? "diff BASE C1 C2 exits 0"
diag err
grep -q "^runs  *3  *3  *3$" out; ok $? "header: runs of the base and of both columns"
grep -q "^           base  *new1  *new2$" out; ok $? "header: the sides are base, new1, new2"
grep -q "^             off                          on                        off2 $" out
ok $? "compare.rb's column heads: 16 wide, then 27 wide per column"
grep -q "^---------------- --------------------------- --------------------------- $" out
ok $? "the ruler has a rule per compared column"
grep -q "^         %stddev     %change         %stddev     %change         %stddev$" out
ok $? "show_perf_header(2)"
# the default table marks each column's verdict after the key, as --all does
grep "  $SPLIT  " out | grep -Eq "  \[new1: (up|new); new2: [^]]*\]$"
ok $? "default table: each column's verdict after the key ($(grep "  $SPLIT  " out | sed 's/.*  \[/[/'))"
# (THP off never splits a huge PMD: 0.00 in the base and in new2, exactly)
"$MMPROF" diff --all off.data on.data off2.data >all 2>err
line=$(grep "  $SPLIT  " all)
test -n "$line"; ok $? "--all: __split_huge_pmd is a row"
# base, change1, value1, change2, value2 (a ± spread takes two more fields)
echo "$line" | sed 's/± *[0-9]*%//; s/  \[.*//' |
	awk '{ exit !(NF == 6 && $1 == 0 && $2 > 1 && $3 > 1 && $4 == 0 && $5 == 0) }'
ok $? "its row: 0 in the base, risen in new1, 0 in new2 ($line)"
# ('±' is two bytes, which awk may count: one byte for it first)
grep '  perf-profile\.' all | sed 's/  \[.*//; s/±/~/g' | awk '{ if (index($0, "  " $NF) != 16 + 2 * 28 + 1) bad++; n++ }
	END { exit !(n > 0 && !bad) }'
ok $? "keys start after the base (16) and two columns (28 each) and two blanks"

# each column is the two-file diff of the base with it
"$MMPROF" diff --all off.data on.data >two1 && "$MMPROF" diff --all off.data off2.data >two2
ok $? "diff --all of each pair"
k=thp-zap.ops
b1=$(grep "  $k  " two1 | sed 's/± *[0-9]*%//g' | awk '{ print $1, $2, $3 }')
b2=$(grep "  $k  " two2 | sed 's/± *[0-9]*%//g' | awk '{ print $2, $3 }')
m=$(grep "  $k  " all | sed 's/± *[0-9]*%//g' | awk '{ print $1, $2, $3, $4, $5 }')
test -n "$m" && test "$m" = "$b1 $b2"; ok $? "$k: the columns' numbers are the pairs' ($m)"
v1=$(grep "  $k  " two1 | sed 's/.*\[\([a-z?]*\).*/\1/')
v2=$(grep "  $k  " two2 | sed 's/.*\[\([a-z?]*\).*/\1/')
grep "  $k  " all | grep -q "\[new1: $v1.*; new2: $v2"
ok $? "--all: each column's verdict is its pair's (new1 $v1, new2 $v2)"
"$MMPROF" diff -f csv --all off.data on.data >csv1 && "$MMPROF" diff -f csv --all off.data on.data off2.data >csv3
ok $? "csv of the pair and of the three"
head -1 csv3 | grep -q "^column,key,base_mean," ; ok $? "csv: a column field first"
grep "^new1," csv3 | cut -d, -f2- | sort >c3 && tail -n +2 csv1 | sort >c1 && cmp -s c1 c3
ok $? "csv: new1's lines are the pair's lines, verdicts and q included"

# spellings: a separator between every column; pooled columns
"$MMPROF" diff off.data -- on.data -- off2.data >dd 2>&1
cmp -s out dd; ok $? "BASE -- C1 -- C2 is BASE C1 C2"
"$MMPROF" diff off.data -- on.data off2.data -- on.data >pool 2>err
ok $? "a column of two pooled files"
grep -q "^new1: on.data off2.data$" pool && grep -q "^runs  *3  *6  *3$" pool
ok $? "header: new1 pools two files, 6 runs"
"$MMPROF" diff off.data -- -- on.data -- off2.data >/dev/null 2>err
test $? = 2 && grep -q "each side between '--' needs at least one file" err
ok $? "an empty column is refused (exit 2)"
"$MMPROF" diff off.data on.data >p2 && "$MMPROF" diff off.data -- on.data >p2dd && cmp -s p2 p2dd
ok $? "two files stay base and new, with or without --"

# gates per column (--fail-on-any: the change, not its significance, under load)
G="$SPLIT > 1"
"$MMPROF" diff --fail-on-any --fail-on "$G" off.data on.data off2.data >/dev/null 2>err
test $? = 1 && grep -q "tripped in new1: $SPLIT" err && ! grep -q "in new2" err
ok $? "a gate trips in the column that rose, and says so (exit 1)"
"$MMPROF" diff --fail-on-any --fail-on "$G" --gate-column new2 off.data on.data off2.data >/dev/null 2>err
ok $? "--gate-column new2: that column did not rise (exit 0)"
"$MMPROF" diff --fail-on "$G" --gate-column new3 off.data on.data off2.data >/dev/null 2>err
test $? = 2 && grep -q "no such compared column; they are new1 to new2" err
ok $? "--gate-column of no column: exit 2, names the columns"
"$MMPROF" diff --fail-on "nosuch.key > 1" off.data on.data off2.data >/dev/null 2>err
test $? = 2 && grep -q "matches no key" err
ok $? "a gate matching no key in any column is an error"
"$MMPROF" diff --drop-run new2:0 off.data on.data off2.data >drop 2>err &&
	grep -q "^runs  *3  *3  *2$" drop && grep -q "dropped (--drop-run): new2 run 0" drop
ok $? "--drop-run new2:0"
"$MMPROF" diff --drop-run new:0 off.data on.data off2.data >/dev/null 2>err
test $? = 2 && grep -q "expected base:N or newK:N" err
ok $? "--drop-run new:0 with several columns: exit 2"

# the other formats
"$MMPROF" diff -f json -g --all off.data on.data off2.data >json 2>err
python3 -c '
import json, sys
j = json.load(open(sys.argv[1]))
c = j["columns"]
assert [x["name"] for x in c] == ["new1", "new2"], c
assert j["base"]["runs"] == 3 and c[0]["side"]["runs"] == 3
r = [x for x in c[0]["diff"]["rows"] if x["key"] == sys.argv[2]]
assert r and r[0]["change"] > 1 and r[0]["base"]["mean"] == 0, r
# in neither the base nor new2: not a row of new2'"'"'s diff
assert not [x for x in c[1]["diff"]["rows"] if x["key"] == sys.argv[2]]
assert "callchains" in c[0]["diff"]
' json "$SPLIT"
ok $? "json: base, one diff object per column, their rows, call chains"
"$MMPROF" diff -f markdown off.data on.data off2.data >md
head -1 md | grep -q "^| key | base | new1 | change | verdict | new2 | change | verdict |$" &&
	grep -q "^\*\*new2\*\* against base: 3 base runs, 3 runs; verdicts" md
ok $? "markdown: value, change, verdict per column, then each column's method"
"$MMPROF" diff --html "r x.html" off.data on.data off2.data >/dev/null 2>err
test -s "r x-new1.html" && test -s "r x-new2.html" && grep -q "__split_huge_pmd" "r x-new1.html"
ok $? "--html: one report, with its flame graph, per column"
grep -q '<a target="column" href="r%20x-new1.html">new1 (on.data)</a> <a target="column" href="r%20x-new2.html">new2 (off2.data)</a>' "r x.html" &&
	grep -q '<iframe name="column" src="r%20x-new1.html">' "r x.html"
ok $? "--html: FILE chooses between the columns' reports (links percent-encoded)"
"$MMPROF" diff --fail-on-any --fail-on "$G" --junit j.xml --summary s.md off.data on.data off2.data \
	>/dev/null 2>err
test $? = 1 && grep -q "<failure type=\"gate\"" j-new1.xml && ! grep -q "<failure" j-new2.xml &&
	grep -q "off.data. → .off2.data" s-new2.md
ok $? "--junit, --summary: one file per column, each with its column's gates"
# the machines' state after the table: a key made ambient that THP on sets (0 -> 32768 kB)
"$MMPROF" diff --ambient thp-zap.anon_huge_kb off.data on.data off2.data >amb 2>err &&
	sed -n '/^the machines differed/,$p' amb | grep -q "  thp-zap.anon_huge_kb  \[new1: up; new2: -\]$"
ok $? "lkp: the machines' state that changed, each column's verdict"
"$MMPROF" diff -f markdown --ambient thp-zap.anon_huge_kb off.data on.data off2.data >amb.md 2>err &&
	grep "^\*\*the machines differed\*\*" amb.md | grep -q '`thp-zap.anon_huge_kb` new1 new, new2 +0.0%'
ok $? "markdown: the machines' state, each column's change (from 0: new, no ratio)"
"$MMPROF" diff --robot off.data on.data off2.data on.data >rob 2>err
ok $? "--robot with three compared columns"
grep -q "^---------------- --------------------------- --------------------------- --------------------------- $" rob
ok $? "three compared columns: three rules"

"$MMPROF" record -q -e task-clock -r 3 -o tc.data -- "$wl/thp-zap" --thp off -s 0.3 >/dev/null 2>>rec.err
ok $? "record a column with task-clock"
"$MMPROF" diff off.data on.data tc.data >/dev/null 2>err
test $? = 2 && grep -q "base used 'cpu-clock', new2 used 'task-clock'" err
ok $? "another event in one column: exit 2, naming the column"
"$MMPROF" diff --force off.data on.data tc.data >force 2>err
grep -q "new2's task-clock rows are read as cpu-clock's" force &&
	! grep -q "new1's" force && grep -q "(base 'cpu-clock', new2 'task-clock')" err
ok $? "--force: the alias is that column's alone"

done_testing
