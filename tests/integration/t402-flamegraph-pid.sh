#!/bin/sh
# t402-flamegraph-pid: the process is a dimension of the counts.  One
# recording of a shell that starts two children with the same command name
# but different code (page-fault, and fault-range copied to a file named
# page-fault), so only the pid tells their samples apart:
#   - the .data file keeps a count per pid (sqlite3 on counts);
#   - flamegraph --pid A draws only A's samples (total in the subtitle,
#     pf_touch_pages' width share equal to its share of A's samples, none
#     of B's frames) and --pid B only B's; --pid A,B their sum;
#   - report --folded --pid agrees with the counts of that pid, and the
#     unfiltered --folded is the sum over the pids;
#   - an unknown pid, a malformed one, --pid with two files: exit 2.

. "$(dirname "$0")/lib.sh"
tap_setup t402

mkdir "$tmp/b" && cp "$wl/fault-range" "$tmp/b/page-fault" || exit 2
"$MMPROF" record -q -o "$tmp/x.data" -- sh -c "
	'$wl/page-fault' -s 1 >/dev/null & echo \$! >'$tmp/a.pid'
	'$tmp/b/page-fault' --size 64M -s 1 >/dev/null 2>&1 & echo \$! >'$tmp/b.pid'
	wait" 2>"$tmp/rec.err"
ok $? "record a shell running two children named page-fault"
diag "$tmp/rec.err"
A=$(cat "$tmp/a.pid") B=$(cat "$tmp/b.pid")
q() { sqlite3 "$tmp/x.data" "$1"; }
sa=$(q "SELECT sum(samples) FROM counts WHERE pid = $A")
sb=$(q "SELECT sum(samples) FROM counts WHERE pid = $B")
comm=$(q "SELECT count(DISTINCT comm) FROM counts WHERE pid IN ($A, $B) AND comm = (SELECT id FROM strings WHERE s = 'page-fault')")
test "${sa:-0}" -gt 100 && test "${sb:-0}" -gt 0 && test "$comm" = 1
ok $? "counts per pid: $A has $sa samples, $B has $sb, both under one comm"

title() { grep -o '[0-9]* samples · width: samples' "$1" | head -1 | cut -d' ' -f1; }
frames() {	# total width of the frames named $2
	python3 - "$1" "$2" <<'EOF'
import sys, xml.dom.minidom
d = xml.dom.minidom.parse(sys.argv[1])
w = 0.0
for g in d.getElementsByTagName('g'):
    t = g.getElementsByTagName('title')
    if t and g.getAttribute('class').startswith('f ') and \
       t[0].firstChild.data.split('\n')[0] == sys.argv[2]:
        w += float(g.getElementsByTagName('rect')[0].getAttribute('width'))
print("%.2f" % w)
EOF
}

"$MMPROF" flamegraph --samples --pid "$A" "$tmp/x.data" -o "$tmp/a.svg" 2>"$tmp/err"
ok $? "flamegraph --pid $A exits 0"
diag "$tmp/err"
t=$(title "$tmp/a.svg")
test "$t" = "$sa"; ok $? "--pid $A: the graph holds exactly its $sa samples (subtitle: $t)"
share=$(frames "$tmp/a.svg" pf_touch_pages | awk '{ printf "%.3f", $1 / 1180 }')
want=$(q "SELECT printf('%.3f', 1.0 * sum(c.samples) / $sa) FROM counts c JOIN stacks s ON s.node = c.node
	  WHERE c.pid = $A AND (s.stack LIKE '%;pf_touch_pages;%' OR s.stack LIKE '%;pf_touch_pages')")
awk -v a="$share" -v b="$want" 'BEGIN { exit !(a - b < 0.01 && b - a < 0.01 && a > 0.3) }'
ok $? "--pid $A: pf_touch_pages' width share $share is its share of pid $A's samples $want"
grep -q "$tmp/b/page-fault" "$tmp/a.svg"
test $? -eq 1; ok $? "--pid $A: no frame of the other child's binary"

"$MMPROF" flamegraph --samples --pid "$B" "$tmp/x.data" -o "$tmp/b.svg" 2>"$tmp/err"
ok $? "flamegraph --pid $B exits 0"
t=$(title "$tmp/b.svg")
test "$t" = "$sb"; ok $? "--pid $B: the graph holds exactly its $sb samples (subtitle: $t)"
test "$(frames "$tmp/b.svg" pf_touch_pages)" = 0.00 && grep -q "$tmp/b/page-fault" "$tmp/b.svg"
ok $? "--pid $B: frames of its own binary, no pf_touch_pages"

"$MMPROF" flamegraph --samples --pid "$A,$B" "$tmp/x.data" -o "$tmp/ab.svg" 2>"$tmp/err"
test "$(title "$tmp/ab.svg")" = $((sa + sb)); ok $? "--pid $A,$B: both children's $((sa + sb)) samples"

f=$("$MMPROF" report --folded --pid "$A" "$tmp/x.data" | awk '{ t += $NF } END { print t }')
test "$f" = "$sa"; ok $? "report --folded --pid $A sums to $sa ($f)"
all=$("$MMPROF" report --folded "$tmp/x.data" | awk '{ t += $NF } END { print t }')
tot=0
for p in $(q "SELECT DISTINCT pid FROM counts"); do
	tot=$((tot + $("$MMPROF" report --folded --pid "$p" "$tmp/x.data" | awk '{ t += $NF } END { print t + 0 }')))
done
test "$all" = "$tot"; ok $? "report --folded without --pid is the sum over every pid ($all = $tot)"

"$MMPROF" flamegraph --pid 2147483647 "$tmp/x.data" -o "$tmp/n.svg" 2>"$tmp/err"
test $? -eq 2 && grep -q "no samples left" "$tmp/err"; ok $? "--pid of no process in the file: exit 2"
"$MMPROF" flamegraph --pid 12x "$tmp/x.data" -o "$tmp/n.svg" 2>"$tmp/err"
test $? -eq 2 && grep -q "invalid --pid '12x'" "$tmp/err"; ok $? "--pid 12x: exit 2"
"$MMPROF" flamegraph --pid "$A" "$tmp/x.data" "$tmp/x.data" -o "$tmp/n.svg" 2>/dev/null
test $? -eq 2; ok $? "--pid with two files: exit 2"
"$MMPROF" report --pid "$A" "$tmp/x.data" >/dev/null 2>&1
test $? -eq 2; ok $? "report --pid without --folded: exit 2"

done_testing
