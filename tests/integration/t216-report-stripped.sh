#!/bin/sh
# t216-report-stripped: a stripped program (frame pointers kept, so its
# stacks are whole but unnamed) spends about 3/4 of its time in its own
# code and 1/4 in write(2).  The perf-like views count its unnamed
# samples as perf report does (without -U): --tree's do_syscall_64 is
# about a quarter, within 8 points of perf report --children on the same
# program; under the robot's -U rule (the old tree) it was nearly all of
# the named rest.  The LKP keys keep -U.  Every view says in one line how
# much is unresolved and whether it is counted: the tree's and the first
# screen's header, folded's and the keys' note on stderr, the flame
# graph's subtitle, the HTML page.

. "$(dirname "$0")/lib.sh"
tap_setup t216
plan 14

cat >"$tmp/hot.c" <<'PROG'
#include <fcntl.h>
#include <unistd.h>
volatile unsigned long sink;
static unsigned long spin(unsigned long n)
{
	unsigned long x = 0, i;

	for (i = 0; i < n; i++)
		x = x * 6364136223846793005UL + i;
	return x;
}
int main(void)
{
	static char buf[1 << 16];
	int fd = open("/dev/null", O_WRONLY), r, k;

	for (r = 0; r < 400; r++) {
		sink += spin(1500000);
		for (k = 0; k < 2500; k++)
			if (write(fd, buf, 1) < 0)
				return 1;
	}
	return 0;
}
PROG
cc -O2 -fno-omit-frame-pointer -o "$tmp/hot" "$tmp/hot.c" && strip "$tmp/hot"
ok $? "build and strip a program that spins and writes"

"$MMPROF" record -q -o "$tmp/h.data" -- "$tmp/hot" >/dev/null 2>"$tmp/err"
ok $? "record it"
diag "$tmp/err"

# share FILE SYMBOL: SYMBOL's children % in report --tree --no-graph
share() {
	"$MMPROF" report --tree --no-graph --percent-limit 0 "$1" 2>/dev/null |
		awk -v s="$2" '$NF == s && $1 ~ /%$/ { sub("%", "", $1); print $1; exit }'
}
m=$(share "$tmp/h.data" do_syscall_64)
u=$("$MMPROF" report --tree --no-graph "$tmp/h.data" 2>/dev/null |
	sed -n 's/^# unresolved: \([0-9.]*\)% of .*counted in.*/\1/p')
echo "# mmprof: do_syscall_64 ${m:-none} %, unresolved ${u:-?} %"
[ -n "$u" ] && awk -v u="$u" 'BEGIN { exit !(u >= 30) }'
ok $? "--tree's header: the unresolved share (${u:-none} %), counted in"
[ -n "$m" ] && awk -v m="$m" 'BEGIN { exit !(m < 60) }'
ok $? "--tree: do_syscall_64 is a share of every sample (${m:-none} %), not of the named ones"

if perf record -q -e cpu-clock -g -o "$tmp/perf.data" "$tmp/hot" >/dev/null 2>"$tmp/perf.err"; then
	p=$(perf report -i "$tmp/perf.data" --children --stdio -g none --sort sym 2>/dev/null |
		awk '$NF == "do_syscall_64" && $1 ~ /%$/ { sub("%", "", $1); print $1; exit }')
else
	diag "$tmp/perf.err"
	p=
fi
echo "# do_syscall_64 children: mmprof ${m:-?} %, perf ${p:-?} %"
[ -n "$p" ] && [ -n "$m" ] && awk -v a="$m" -v b="$p" 'BEGIN { d = a - b; if (d < 0) d = -d; exit !(d <= 8) }'
ok $? "do_syscall_64 within 8 points of perf report --children (mmprof ${m:-none} %, perf ${p:-none} %)"

"$MMPROF" report --tree --no-graph "$tmp/h.data" 2>/dev/null | grep -q '\[\.\] \[unknown\]$'
ok $? "--tree: the program's unnamed code is an [unknown] entry"

"$MMPROF" report "$tmp/h.data" >"$tmp/first" 2>/dev/null &&
	grep -q '^# unresolved: .*counted in' "$tmp/first" && grep -q 'do_syscall_64$' "$tmp/first"
ok $? "the first screen: the unresolved line, shares of every sample"

"$MMPROF" report --folded "$tmp/h.data" >/dev/null 2>"$tmp/ferr" &&
	grep -q "^mmprof: note: .*unresolved: .*counted in" "$tmp/ferr"
ok $? "--folded: the unresolved line on stderr, counted in"
diag "$tmp/ferr"

"$MMPROF" report --keys "$tmp/h.data" >"$tmp/keys" 2>"$tmp/kerr" &&
	grep -q "^mmprof: note: .*unresolved: .*left out" "$tmp/kerr"
ok $? "--keys: the unresolved line on stderr, left out (-U)"
k=$(sed -n 's/^perf-profile\.children\.cpu-clock\.do_syscall_64: //p' "$tmp/keys")
[ -n "$k" ] && awk -v k="$k" -v m="$m" 'BEGIN { exit !(k > m + 10) }'
ok $? "the LKP keys stay on -U: do_syscall_64 ${k:-none} against the tree's ${m:-none}"

"$MMPROF" flamegraph -o "$tmp/h.svg" "$tmp/h.data" 2>/dev/null &&
	grep -q "unresolved [0-9.]*% of [0-9]*, counted in" "$tmp/h.svg"
ok $? "flamegraph: the unresolved share in the subtitle"

"$MMPROF" report --html -o "$tmp/h.html" "$tmp/h.data" 2>/dev/null &&
	grep -q 'id="unresolved">unresolved: .*counted in' "$tmp/h.html"
ok $? "report --html: the unresolved line"

# diff: the LKP keys' shares are of the named samples, so is their
# binomial noise (issue 32), and the header says what they are shares of
"$MMPROF" diff -f json "$tmp/h.data" "$tmp/h.data" >"$tmp/d.json" 2>/dev/null &&
	python3 -c '
import json, sys
b = json.load(open(sys.argv[1]))["base"]
u = float(sys.argv[2])
assert b["named_samples"] < b["samples"], b
assert abs(100 * b["unnamed_fraction"] - u) < 0.6, (b["unnamed_fraction"], u)
' "$tmp/d.json" "${u:-0}"
ok $? "diff JSON: each side's samples with a name, the unnamed fraction as report's (${u:-?} %)"
"$MMPROF" diff "$tmp/h.data" "$tmp/h.data" 2>/dev/null >"$tmp/d.txt" &&
	grep -q '^named  *[0-9]*% of [0-9]* samples' "$tmp/d.txt" &&
	grep -q '^perf-profile rows are shares of the samples with a name' "$tmp/d.txt"
ok $? "diff's header: the named line per side and what the perf-profile rows are shares of"

done_testing
