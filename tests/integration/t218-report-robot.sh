#!/bin/sh
# t218-report-robot: `report --robot` gives the robot's own perf-profile
# numbers (#19 4).  The robot (lkp-tests programs/perf-profile/parse)
# adds up the two-decimal percentages perf report prints, one per (DSO,
# symbol) entry and one per folded callchain line, and loses every name
# with a blank; mmprof's default keys are exact sums.  Here `perf record
# -g` of a C++ program built without frame pointers, with C++ names with
# blanks and a function whose frame-pointer chain perf rejects (a fake
# frame holding 0xffffffffffffffff: perf counts it at its IP, in no folded
# line), is imported and its `report --keys
# --robot` compared, key for key and value for value, with the robot's
# rules applied by this test (a model written from the parse's documented
# regular expressions) to `perf report --children --sort=dso,symbol -g
# folded,0.5,callee -U` of the same file.  (Per process, not -a: a
# system-wide file holds other programs whose binaries may be gone
# between perf report and the import, and symbols then differ.)
# perf report merges the entries of files with the same name (its DSO
# sort compares short names): five copies of one program are one entry
# of each function, one printed share, and so in --robot.

. "$(dirname "$0")/lib.sh"
tap_setup t218

plan 10

cat >"$tmp/nofp.cc" <<'EOC'
#include <cstdio>
#include <cstdlib>
#include <vector>
#include <stdint.h>
uint64_t fake_outer[2], fake_frame[2];
__attribute__((noinline)) void junk_chain_spin(long n)
{
	__asm__ volatile("push %%rbp\n\tmov %1, %%rbp\n1: dec %0\n\tjnz 1b\n\tpop %%rbp\n"
			 : "+r"(n) : "r"(fake_frame) : "memory", "cc");
}
namespace ns {
template <typename T, typename U> struct Box {
	T v;
	__attribute__((noinline)) T spin(U n) { T s = 0; for (U i = 0; i < n; i++) s += (T)(i * v) / 3; return s; }
};
}
__attribute__((noinline)) double hot_a(int n) { double s = 0; for (int i = 0; i < n; i++) s += i * 0.5 / (i + 1); return s; }
__attribute__((noinline)) long hot_b(int n)
{
	std::vector<long> v(n);
	long s = 0;
	for (int k = 0; k < 20; k++)
		for (int i = 0; i < n; i++) { v[i] += i ^ k; s += v[i]; }
	return s;
}
int main(int argc, char **argv)
{
	int rounds = argc > 1 ? atoi(argv[1]) : 20;
	double t = 0;
	ns::Box<double, int> b{1.5};
	ns::Box<int, long> c{3};
	fake_outer[1] = (uint64_t)(uintptr_t)&main + 16;
	fake_frame[0] = (uint64_t)(uintptr_t)fake_outer;
	fake_frame[1] = UINT64_MAX;
	for (int r = 0; r < rounds; r++) {
		junk_chain_spin(3000000);
		t += hot_a(2000000); t += hot_b(200000); t += b.spin(500000); t += c.spin(500000);
	}
	printf("%g\n", t);
	return 0;
}
EOC
g++ -O2 -fomit-frame-pointer -o "$tmp/nofp" "$tmp/nofp.cc"
ok $? "g++ builds a C++ program without frame pointers"

perf record -q -g -F 499 -o "$tmp/perf.data" -- "$tmp/nofp" 150 >/dev/null 2>&1 &&
	perf script -i "$tmp/perf.data" 2>/dev/null | grep -q 'hot_b'
ok $? "perf record -g"
perf script -i "$tmp/perf.data" 2>/dev/null |
	awk 'BEGIN { RS = "" } { if (split($0, l, "\n") == 1) n++ } END { exit !(n > 10) }'
ok $? "perf rejected the chains of the junk frame (samples without a frame in perf script)"

perf report -i "$tmp/perf.data" --header --children --sort=dso,symbol -g folded,0.5,callee -U \
	--stdio >"$tmp/report.txt" 2>/dev/null
cat >"$tmp/robot.py" <<'PY'
# The robot's rules (programs/perf-profile/parse), as its comments and
# regular expressions document them: an entry line is "C% S% dso [x] sym"
# with optionally two more fields; a folded line "P% a;b;c" with no blank;
# the first 5 frames of a chain; .isra.N/.constprop.N/.part.N removed;
# sums of the printed values, printed %.2f when >= 0.05.
import re, sys
from collections import defaultdict
ev = ''
res = defaultdict(float)
fix = lambda s: re.sub(r'\.(isra|constprop|part)\.[0-9]+', '', s)
entry = re.compile(r'^\s*(\d+\.\d+)%\s+(\d+\.\d+)%\s+\S+\s+\S+\s+(\S+)(\s+\S+\s+\S+)?\s*$')
folded = re.compile(r'^(\d+\.\d+)%\s+(\S+)$')
for line in open(sys.argv[1]):
    line = line.rstrip('\n')
    m = re.match(r"^# Samples: \d+[KMG ] of event (.*)$", line)
    if m:
        ev = m.group(1).replace(':', '-').replace("'", '')
        continue
    if line.startswith('# '):
        continue
    m = entry.match(line)
    if m:
        res['children.%s.%s' % (ev, fix(m.group(3)))] += float(m.group(1))
        res['self.%s.%s' % (ev, fix(m.group(3)))] += float(m.group(2))
        continue
    m = folded.match(line)
    if m:
        res['calltrace.%s.%s' % (ev, '.'.join(fix(f) for f in m.group(2).split(';')[:5]))] += float(m.group(1))
for k in sorted(res):
    if res[k] >= 0.05:
        print('perf-profile.%s: %.2f' % (k, res[k]))
PY
python3 "$tmp/robot.py" "$tmp/report.txt" >"$tmp/robot.txt"
test "$(wc -l <"$tmp/robot.txt")" -gt 5
ok $? "the robot's rules give $(wc -l <"$tmp/robot.txt") keys from perf report"

"$MMPROF" import -o "$tmp/imp.data" "$tmp/perf.data" 2>"$tmp/err" &&
	"$MMPROF" report --keys --robot "$tmp/imp.data" 2>/dev/null | grep '^perf-profile\.' | LC_ALL=C sort >"$tmp/mm.txt"
LC_ALL=C sort "$tmp/robot.txt" >"$tmp/robot.sorted"
cmp -s "$tmp/robot.sorted" "$tmp/mm.txt"
ok $? "import + report --keys --robot: the robot's keys, key for key, value for value"
[ -s "$tmp/mm.txt" ] && diff "$tmp/robot.sorted" "$tmp/mm.txt" >"$tmp/d"; diag "$tmp/d"

"$MMPROF" report --keys "$tmp/imp.data" 2>/dev/null | grep '^perf-profile\.' | grep -q 'Box<double,_int>::spin'
ok $? "the default keys keep the C++ name with a blank, spelled '_'"

# perf report (not -v) sorts DSOs by their short name: three copies of one
# program, /…/d1/hot, d2/hot, d3/hot, are one entry to it, one printed
# share; --robot summed each file's printed share (self.spin 99.64, the
# robot 99.63; whether five roundings miss varies from run to run, the
# text case after it misses always)
cat >"$tmp/hot.c" <<'EOC'
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

	for (r = 0; r < 40; r++)
		sink += spin(1000000);
	return 0;
}
EOC
mkdir -p "$tmp/d1" "$tmp/d2" "$tmp/d3" "$tmp/d4" "$tmp/d5" &&
	cc -O2 -fno-omit-frame-pointer -o "$tmp/d1/hot" "$tmp/hot.c" &&
	for d in d2 d3 d4 d5; do cp "$tmp/d1/hot" "$tmp/$d/hot" || exit 1; done &&
	perf record -q -g -F 4000 -e cpu-clock -o "$tmp/dup.data" -- \
		sh -c "for d in d1 d2 d3 d4 d5; do $tmp/\$d/hot; done" >/dev/null 2>&1 &&
	perf report -i "$tmp/dup.data" --header --children --sort=dso,symbol -g folded,0.5,callee -U \
		--stdio >"$tmp/dup.txt" 2>/dev/null &&
	test "$(grep -c '\] spin  *-' "$tmp/dup.txt")" -eq 1
ok $? "perf report: five copies of a program called hot, one entry of spin"
python3 "$tmp/robot.py" "$tmp/dup.txt" | LC_ALL=C sort >"$tmp/dup.robot"
"$MMPROF" import -o "$tmp/dup.mdata" "$tmp/dup.data" 2>"$tmp/err" &&
	"$MMPROF" report --keys --robot "$tmp/dup.mdata" 2>/dev/null | grep '^perf-profile\.' |
	LC_ALL=C sort >"$tmp/dup.mm"
grep 'self.*spin' "$tmp/dup.robot" "$tmp/dup.mm" | sed 's/^/# /'
cmp -s "$tmp/dup.robot" "$tmp/dup.mm"
ok $? "import + --robot of it: the robot's keys, value for value"
[ -s "$tmp/dup.mm" ] && diff "$tmp/dup.robot" "$tmp/dup.mm" >"$tmp/d"; diag "$tmp/d"
# the same, exactly: 1 of 3 samples in each of /a/hot's and /b/hot's spin
printf '%s\n' 'hot 100/100 [000] 10.000000: 1000 cpu-clock: ' '	1000 spin+0x10 (/a/hot)' \
	'	2000 main+0x10 (/a/hot)' '' 'hot 101/101 [000] 10.001000: 1000 cpu-clock: ' \
	'	1000 spin+0x10 (/b/hot)' '	2000 main+0x10 (/b/hot)' '' \
	'x 102/102 [000] 10.002000: 1000 cpu-clock: ' '	3000 other+0x10 (/c/x)' '' >"$tmp/two.txt"
"$MMPROF" import -o "$tmp/two.data" - <"$tmp/two.txt" 2>/dev/null &&
	"$MMPROF" report --keys --robot "$tmp/two.data" 2>/dev/null >"$tmp/two.keys" &&
	grep -qx 'perf-profile.self.cpu-clock.spin: 66.67' "$tmp/two.keys" &&
	grep -qx 'perf-profile.children.cpu-clock.main: 66.67' "$tmp/two.keys" &&
	grep -qx 'perf-profile.calltrace.cpu-clock.spin.main: 66.66' "$tmp/two.keys"
ok $? "two files named hot: one entry's printed share (66.67), two folded lines (33.33 each)"
diag "$tmp/two.keys"

"$MMPROF" report --robot --tree "$tmp/imp.data" >/dev/null 2>"$tmp/err"
test $? -eq 2 && grep -q -- '--robot goes with the keys view' "$tmp/err"
ok $? "--robot with another view: one line, exit 2"

done_testing
