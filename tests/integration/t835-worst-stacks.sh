#!/bin/sh
# t835-worst-stacks: a recording whose distinct call chains cross record's
# budget (issue 14 item 11) keeps every sample, cuts only chains, and says so.
#
# A random recursion (sixteen functions calling each other in a
# pseudo-random order 8 to 127 deep, spinning at the leaf, as
# tests/bench/rand-recurse.c) gives almost every sample a chain of its
# own.  Record gives distinct chains a budget (stackagg.h: three eighths
# for the raw chains, which are stored into the trie whenever they fill
# it, here many times a run, the rest for the trie); past it a new chain
# keeps only its innermost frame.  The default, 40 MiB, takes tens of seconds at 20 kHz to fill, so
# the test sets a small one through MMPROF_STACK_BUDGET (bytes; a knob for
# tests, not an option: cmd-record.c), 256 KiB, which a one-second run
# crosses many times.  Before, the knob did not exist: the run kept every
# chain and nothing was cut.  Checked: meta stacks_cut_to_leaf > 0, the
# warning, every sample taken in report's totals (folded counts, runs), the
# leaf's self share kept, the trie bounded; the default budget on a short
# run cuts nothing; a bad value is refused.

. "$(dirname "$0")/lib.sh"
tap_setup t835
plan 10

cat >"$tmp/rr.c" <<'PROG'
#include <stdint.h>
#include <stdlib.h>
#include <time.h>
typedef uint64_t (*step_fn)(unsigned depth);
static uint64_t rng = 88172645463325252ull;
static volatile uint64_t sink;
static step_fn steps[16];
static uint64_t next(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}
__attribute__((noinline, noclone)) uint64_t leaf(void)
{
	uint64_t x = 0;
	unsigned i;

	for (i = 0; i < 2000; i++)
		x += i * rng;
	return x;
}
#define STEP(n) \
	__attribute__((noinline, noclone)) uint64_t step##n(unsigned d) \
	{ \
		uint64_t r = d ? steps[next() & 15](d - 1) : leaf(); \
		sink += r; \
		return r + n; \
	}
STEP(0) STEP(1) STEP(2) STEP(3) STEP(4) STEP(5) STEP(6) STEP(7)
STEP(8) STEP(9) STEP(10) STEP(11) STEP(12) STEP(13) STEP(14) STEP(15)
static double cpu_now(void)
{
	struct timespec t;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
	return t.tv_sec + t.tv_nsec / 1e9;
}
int main(int argc, char **argv)
{
	step_fn s[16] = { step0, step1, step2, step3, step4, step5, step6, step7,
			  step8, step9, step10, step11, step12, step13, step14, step15 };
	double t0 = cpu_now(), secs = argc > 1 ? atof(argv[1]) : 1;
	unsigned i;

	for (i = 0; i < 16; i++)
		steps[i] = s[i];
	while (cpu_now() - t0 < secs)
		sink += steps[next() & 15](8 + next() % 120);
	return 0;
}
PROG
cc -O1 -fno-omit-frame-pointer -o "$tmp/rr" "$tmp/rr.c"
ok $? "the random recursion builds"

q() { sqlite3 "$tmp/cut.data" "$1"; }
MMPROF_STACK_BUDGET=262144 "$MMPROF" record -F 4000 -o "$tmp/cut.data" -- "$tmp/rr" 1 \
	>"$tmp/cut.out" 2>"$tmp/cut.err"
ok $? "record with a 256 KiB budget" || diag "$tmp/cut.err"

taken=$(q "select sum(samples) from runs")
cut=$(q "select value from meta where key = 'stacks_cut_to_leaf'")
[ -n "$cut" ] && [ "$cut" -gt 0 ] && [ "$cut" -lt "$taken" ]
ok $? "meta stacks_cut_to_leaf: ${cut:-none} of $taken samples"

pct=$(awk -v c="${cut:-0}" -v t="$taken" 'BEGIN { printf "%.1f", t ? 100 * c / t : 0 }')
grep -qx "mmprof: warning: $cut samples ($pct%) kept only their innermost frame: their call chains were new when the 0.25 MiB for distinct chains was full (meta stacks_cut_to_leaf); record fewer seconds or a lower -F" \
	"$tmp/cut.err"
ok $? "record's warning says how many samples, their share and the budget" || diag "$tmp/cut.err"

# every sample taken is in the report: only chains were cut
folded=$("$MMPROF" report --folded "$tmp/cut.data" 2>/dev/null | awk '{ t += $NF } END { print t + 0 }')
said=$(sed -n 's/^mmprof: 1 run, \([0-9]*\) samples, .*/\1/p' "$tmp/cut.err")
[ "$folded" -eq "$taken" ] && [ "$said" = "$taken" ] &&
	test "$(q "select sum(samples) from counts")" -eq "$taken"
ok $? "report's folded counts ($folded) and the cells hold every sample taken ($taken, record said $said)"
"$MMPROF" report "$tmp/cut.data" 2>/dev/null | grep -qx "# chains cut: $cut samples kept only their innermost frame (the budget for distinct chains was full)"
ok $? "report's header says how many samples lost their chain"

# the trie stays within the budget: five eighths of 256 KiB at 48 bytes a
# node, and the leaves of cut chains, at most one node per frame
nodes=$(q "select count(*) from nodes")
frames=$(q "select count(*) from frames")
[ "$nodes" -le $((3413 + frames)) ] && [ "$nodes" -gt 1000 ]
ok $? "the trie holds $nodes nodes, within the budget's 3413 and $frames leaves"

# the cut keeps the leaf: leaf's self share is that of a run without a cut
self_of() {
	"$MMPROF" report --keys "$1" 2>/dev/null | sed -n 's/^perf-profile\.self\.cpu-clock\.leaf: //p'
}
"$MMPROF" record -F 4000 -o "$tmp/full.data" -- "$tmp/rr" 1 >/dev/null 2>"$tmp/full.err" &&
	test -z "$(sqlite3 "$tmp/full.data" "select value from meta where key = 'stacks_cut_to_leaf'")" &&
	! grep -q "innermost frame" "$tmp/full.err"
ok $? "the default budget cuts nothing on the same run" || diag "$tmp/full.err"
cut_self=$(self_of "$tmp/cut.data") full_self=$(self_of "$tmp/full.data")
awk -v c="${cut_self:-0}" -v f="${full_self:-0}" 'BEGIN { d = c - f; exit !(f > 10 && d < 8 && d > -8) }'
ok $? "the leaf keeps its self share (${cut_self:-none} % cut, ${full_self:-none} % whole)"

MMPROF_STACK_BUDGET=12x "$MMPROF" record -o "$tmp/bad.data" -- true >/dev/null 2>"$tmp/bad.err"
test $? -eq 2 && grep -qx "mmprof record: invalid MMPROF_STACK_BUDGET '12x'; expected bytes from 65536 to 68719476736" "$tmp/bad.err" &&
	test ! -e "$tmp/bad.data"
ok $? "a bad MMPROF_STACK_BUDGET: one line, exit 2, no file" || diag "$tmp/bad.err"

done_testing
