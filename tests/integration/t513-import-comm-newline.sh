#!/bin/sh
# t513-import-comm-newline: import of a perf.data in which a process
# named itself with a newline (prctl PR_SET_NAME, as a hostile or careless
# program may: TASK_COMM_LEN bytes, any of them but NUL).  perf script
# prints the comm verbatim, so that sample's header is split over two
# lines, the second indented by the comm's tail.  Found on a real
# perf record -a of this machine (680 K samples): import stopped at line
# 3,403,144 with "not perf script output: no 'event:' field after the
# time" and kept nothing.
#   - the import reads the split header as one: exit 0, every sample of
#     perf report's count, the program's function at perf report's share;
#   - the comms keep their newlines, escaped where printed (report
#     --folded --comm: a_99\x0a, hot\x0anl\x0ax);
#   - the same without callchains, where perf pads the comm on the left
#     (and so in the -G pass a perf.data with callchains may need);
#   - a line that is no header and no comm's head is still refused (exit
#     2, its line number).

. "$(dirname "$0")/lib.sh"
tap_setup t513
plan 8

cat >"$tmp/nl.c" <<'PROG'
#include <sys/prctl.h>
volatile unsigned long sink;
__attribute__((noinline, noclone)) static unsigned long spin(unsigned long n)
{
	unsigned long x = sink, i;

	for (i = 0; i < n; i++)
		x = (x ^ (x >> 7)) * 6364136223846793005UL + i;
	return x;
}
int main(void)
{
	int r;

	prctl(PR_SET_NAME, "a 99\n");
	for (r = 0; r < 150; r++)
		sink += spin(1000000);
	prctl(PR_SET_NAME, "hot\nnl\nx");
	for (r = 0; r < 150; r++)
		sink += spin(1000000);
	return 0;
}
PROG
cc -O2 -fno-omit-frame-pointer -o "$tmp/nl" "$tmp/nl.c" &&
	perf record -q -g -e cpu-clock -F 4000 -o "$tmp/nl.perf" -- "$tmp/nl" >/dev/null 2>&1
ok $? "perf record -g of a program that names itself with newlines"

"$MMPROF" import -o "$tmp/nl.data" "$tmp/nl.perf" >/dev/null 2>"$tmp/err"
ok $? "import reads its split sample headers"
diag "$tmp/err"

pn=$(perf report --no-children -n --stdio --sort dso -g none -i "$tmp/nl.perf" 2>/dev/null |
	awk '$1 ~ /%$/ { s += $2 } END { print s + 0 }')
m=$("$MMPROF" report --tree --no-graph "$tmp/nl.data" 2>/dev/null |
	sed -n "s/^# Event 'cpu-clock': \([0-9]*\) samples.*/\1/p")
echo "# samples: perf report $pn, import $m"
[ -n "$pn" ] && [ "$pn" = "$m" ]
ok $? "every sample is imported (perf ${pn:-?}, mmprof ${m:-none})"

p=$(perf report --children --stdio --sort sym -g none -i "$tmp/nl.perf" 2>/dev/null |
	awk '$NF == "spin" { sub("%", "", $2); print $2; exit }')
s=$("$MMPROF" report --tree --no-graph --percent-limit 0 "$tmp/nl.data" 2>/dev/null |
	awk '$NF == "spin" { sub("%", "", $2); print $2; exit }')
echo "# spin self: perf report $p, import $s"
[ -n "$p" ] && [ "$p" = "$s" ]
ok $? "spin's self share is perf report's (${p:-?} %, mmprof ${s:-none} %)"

"$MMPROF" report --folded --comm "$tmp/nl.data" 2>"$tmp/err" >"$tmp/f.txt"
grep -c ';spin ' "$tmp/f.txt" | sed 's/^/# folded lines with spin: /'
grep '^a_99\\x0a;.*;spin [0-9]*$' "$tmp/f.txt" >/dev/null &&
	grep '^hot\\x0anl\\x0ax;.*;spin [0-9]*$' "$tmp/f.txt" >/dev/null
ok $? "the comms keep their newlines, escaped in --folded --comm"

# without callchains perf pads the comm to 16 columns: the head is indented
perf record -q -e cpu-clock -F 4000 -o "$tmp/ng.perf" -- "$tmp/nl" >/dev/null 2>&1 &&
	"$MMPROF" import -o "$tmp/ng.data" "$tmp/ng.perf" >/dev/null 2>"$tmp/err"
ok $? "import of perf record without -g (comms padded on the left)"
diag "$tmp/err"
pn=$(perf report --no-children -n --stdio --sort dso -g none -i "$tmp/ng.perf" 2>/dev/null |
	awk '$1 ~ /%$/ { s += $2 } END { print s + 0 }')
m=$("$MMPROF" report --tree --no-graph "$tmp/ng.data" 2>/dev/null |
	sed -n "s/^# Event 'cpu-clock': \([0-9]*\) samples.*/\1/p")
echo "# without -g: perf report $pn samples, import $m"
[ -n "$pn" ] && [ "$pn" = "$m" ]
ok $? "every sample is imported (perf ${pn:-?}, mmprof ${m:-none})"

printf 'ab\n 12 [000] 1.0: 1 notanevent\n' >"$tmp/bad.txt"
"$MMPROF" import -o "$tmp/bad.data" - <"$tmp/bad.txt" >/dev/null 2>"$tmp/err"
rc=$?
diag "$tmp/err"
[ $rc -eq 2 ] && grep -q 'line 1: not perf script output' "$tmp/err"
ok $? "a line that is no header is still refused, at its line (exit $rc)"

done_testing
