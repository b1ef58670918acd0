#!/bin/sh
# t835-worst-stacks: a recording whose distinct call chains cross record's
# memory budget keeps every chain (issue 30 point 1); one that crosses the
# trie's bound keeps every sample, cuts only chains, and says so (issue 14
# item 11).
#
# A random recursion (sixteen functions calling each other in a
# pseudo-random order 8 to 127 deep, spinning at the leaf, as
# tests/bench/rand-recurse.c) gives almost every sample a chain of its
# own.  Record keeps the run's raw chains in an arena of three eighths of
# its budget; when it is full they are spilled, sorted and compressed, to
# an unnamed file in the output's folder (chainspill.h) and merged at the
# run's end.  The default, 40 MiB, takes seconds at 20 kHz to fill, so the
# test sets the smallest, 64 KiB, through MMPROF_STACK_BUDGET (bytes; a
# knob for tests, not an option: cmd-record.c), which a one-second run
# crosses dozens of times.  Before the spill that cut most chains to their
# leaf; now the profile has every chain, as without a budget (the unit
# test test-sampler checks cell for cell on replayed samples; here, on two
# recordings of a random workload: the same shares), the spill file lives
# in the output's folder while the run lasts and nothing is left there,
# also after SIGINT.  The trie's bound (2 Mi nodes, what the readers
# take) is set small with MMPROF_STACK_NODES: the trie fills to 3/4 of it
# in arrival order, the chains past that are sorted whole to an unnamed
# file in the output's folder (chainsort.h) and taken into the trie after
# the run, the heavy part of the call graph kept and the rest under
# "[elided]" nodes (chaintake.h): no chain cut to its leaf, every sample in
# report's totals, the leaf's self share kept, the trie within its bound,
# and with two runs each run's samples in its own cells.  Bad values of
# either knob are refused.

. "$(dirname "$0")/lib.sh"
tap_setup t835
plan 24

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

self_of() {
	"$MMPROF" report --keys "$1" 2>/dev/null | sed -n 's/^perf-profile\.self\.cpu-clock\.leaf: //p'
}
# the share of the samples whose chain holds the recursion (10 frames or more)
deep_of() {
	"$MMPROF" report --folded "$1" 2>/dev/null |
		awk '{ n = split($1, f, ";"); t += $NF; if (n >= 10) d += $NF }
			END { printf "%.1f", t ? 100 * d / t : 0 }'
}
folded_total() {
	"$MMPROF" report --folded "$1" 2>/dev/null | awk '{ t += $NF } END { print t + 0 }'
}

mkdir "$tmp/out" "$tmp/int"
MMPROF_STACK_BUDGET=65536 "$MMPROF" record -F 4000 -o "$tmp/out/small.data" -- "$tmp/rr" 1 \
	>/dev/null 2>"$tmp/small.err"
ok $? "record with a 64 KiB budget" || diag "$tmp/small.err"
"$MMPROF" record -F 4000 -o "$tmp/full.data" -- "$tmp/rr" 1 >/dev/null 2>"$tmp/full.err"
ok $? "record with the default budget" || diag "$tmp/full.err"

q() { sqlite3 "$1" "$2"; }
cut=$(q "$tmp/out/small.data" "select value from meta where key = 'stacks_cut_to_leaf'")
test -z "$cut" && ! grep -q "innermost frame" "$tmp/small.err"
ok $? "no chain cut to its leaf (meta stacks_cut_to_leaf: ${cut:-none})" || diag "$tmp/small.err"

taken=$(q "$tmp/out/small.data" "select sum(samples) from runs")
test "$(folded_total "$tmp/out/small.data")" -eq "$taken"
ok $? "report's folded counts hold every sample taken ($taken)"

ds=$(deep_of "$tmp/out/small.data") df=$(deep_of "$tmp/full.data")
awk -v s="$ds" -v f="$df" 'BEGIN { d = s - f; exit !(f > 50 && d < 10 && d > -10) }'
ok $? "the samples in the recursion keep it: $ds % of them, $df % without a budget"
ss=$(self_of "$tmp/out/small.data") fs=$(self_of "$tmp/full.data")
awk -v c="${ss:-0}" -v f="${fs:-0}" 'BEGIN { d = c - f; exit !(f > 10 && d < 8 && d > -8) }'
ok $? "the leaf's self share: ${ss:-none} %, ${fs:-none} % without a budget"

test "$(ls -A "$tmp/out")" = "small.data"
ok $? "nothing but the file in the output's folder: $(ls -A "$tmp/out" | tr '\n' ' ')"

# SIGINT half-way: the spill file, open in the output's folder, goes with record
MMPROF_STACK_BUDGET=65536 "$MMPROF" record -F 4000 -o "$tmp/int/i.data" -- "$tmp/rr" 20 \
	>/dev/null 2>"$tmp/int.err" &
pid=$!
spilled=
for i in 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20; do
	sleep 0.5
	spilled=$(ls -l "/proc/$pid/fd" 2>/dev/null | grep -c "$tmp/int/.*(deleted)")
	[ "$spilled" -gt 0 ] && break
done
[ "${spilled:-0}" -gt 0 ]
ok $? "while the run lasts, the spill file is open in the output's folder, without a name"
kill -INT "$pid"
wait "$pid"
ok $? "record stops on SIGINT" || diag "$tmp/int.err"
test "$(ls -A "$tmp/int")" = "i.data" && "$MMPROF" report "$tmp/int/i.data" >/dev/null 2>&1 &&
	test -z "$(q "$tmp/int/i.data" "select value from meta where key = 'stacks_cut_to_leaf'")"
ok $? "after SIGINT: the file, whole, nothing cut, and nothing else: $(ls -A "$tmp/int" | tr '\n' ' ')"

# the trie's bound: 65536 nodes, filled to 3/4 as the run goes (a few hundred
# chains of the workload), the chains past that (the rest: hundreds to
# thousands) sorted whole beside it (in 24 KiB runs, the budget's arena
# share) and taken in after the run (chainsort.h, chaintake.h), each under an "[elided]" node and its sampled frame.  A
# bound much smaller (4096) leaves too little room for those: chains are cut
# to their leaf then, as before, which test-sampler's no-folder case checks
MMPROF_STACK_BUDGET=65536 MMPROF_STACK_NODES=65536 "$MMPROF" record -F 4000 -o "$tmp/out/cut.data" -- "$tmp/rr" 1 \
	>"$tmp/cut.out" 2>"$tmp/cut.err"
ok $? "record with a trie of 65536 nodes" || diag "$tmp/cut.err"
taken=$(q "$tmp/out/cut.data" "select sum(samples) from runs")
cut=$(q "$tmp/out/cut.data" "select value from meta where key = 'stacks_cut_to_leaf'")
test -z "$cut" && ! grep -q "innermost frame" "$tmp/cut.err"
ok $? "no chain cut to its leaf (meta stacks_cut_to_leaf: ${cut:-none})" || diag "$tmp/cut.err"
elided=$(q "$tmp/out/cut.data" "select value from meta where key = 'chains_elided'")
[ -n "$elided" ] && [ "$elided" -gt 0 ] && [ "$elided" -le "$taken" ]
ok $? "the chains past the trie are kept whole beside it (meta chains_elided: ${elided:-none} of $taken samples)"
said=$(sed -n 's/^mmprof: 1 run, \([0-9]*\) samples, .*/\1/p' "$tmp/cut.err")
[ "$(folded_total "$tmp/out/cut.data")" -eq "$taken" ] && [ "$said" = "$taken" ] &&
	test "$(q "$tmp/out/cut.data" "select sum(samples) from counts")" -eq "$taken"
ok $? "report's folded counts and the cells hold every sample taken ($taken, record said $said)"
! "$MMPROF" report "$tmp/out/cut.data" 2>/dev/null | grep -q "^# chains cut" &&
	test "$(ls -A "$tmp/out")" = "$(printf 'cut.data\nsmall.data')"
ok $? "report's header says no chain was cut, nothing else is left in the folder: $(ls -A "$tmp/out" | tr '\n' ' ')"
nodes=$(q "$tmp/out/cut.data" "select count(*) from nodes")
[ "$nodes" -le 65536 ] && [ "$nodes" -gt 49152 ]
ok $? "the trie holds $nodes nodes, past the 3/4 filled as the run went and within 65536"
cs=$(self_of "$tmp/out/cut.data")
awk -v c="${cs:-0}" -v f="${fs:-0}" 'BEGIN { d = c - f; exit !(f > 10 && d < 8 && d > -8) }'
ok $? "the leaf keeps its self share (${cs:-none} % bounded, ${fs:-none} % whole)"
# report's entry lines count each sample's whole chain, as the keys do:
# "[elided]" is no entry, a step of the recursion is in most chains
"$MMPROF" report "$tmp/out/cut.data" >"$tmp/cut.rep" 2>"$tmp/cut.rep.err" &&
	"$MMPROF" report --tree --no-graph "$tmp/out/cut.data" >>"$tmp/cut.rep" 2>>"$tmp/cut.rep.err" &&
	! grep -E '^ +[0-9.]+% +[0-9.]+% .*\[elided\]$' "$tmp/cut.rep" &&
	! grep -q "short of main" "$tmp/cut.rep.err"
ok $? "report and --tree: no entry line names [elided], no warning of stacks short of main" ||
	diag "$tmp/cut.rep.err"
tc=$(sed -n 's/^ *\([0-9.]*\)% .*\] step7$/\1/p' "$tmp/cut.rep" | head -1)
kc=$("$MMPROF" report --keys "$tmp/out/cut.data" 2>/dev/null |
	sed -n 's/^perf-profile\.children\.cpu-clock\.step7: //p')
awk -v t="${tc:-0}" -v k="${kc:-0}" 'BEGIN { d = t - k; exit !(t > 50 && d < 1 && d > -1) }'
ok $? "step7's children: ${tc:-none} % in --tree's entry line, ${kc:-none} % its LKP key (whole chains both)"
below=$(q "$tmp/out/cut.data" "select value from meta where key = 'chains_elided_below'")
grep -q "^# chains elided: $elided samples' call chains leave the call graphs at \[elided\], below the nodes of $below samples or more" "$tmp/cut.rep"
ok $? "report's header says how many samples' chains the call graphs elide ($elided, below nodes of ${below:-none} samples)"

# two runs: the chains past the trie carry their run; each run keeps its samples
MMPROF_STACK_BUDGET=65536 MMPROF_STACK_NODES=65536 "$MMPROF" record -r 2 -F 4000 \
	-o "$tmp/r2.data" -- "$tmp/rr" 1 >/dev/null 2>"$tmp/r2.err"
runs=$(q "$tmp/r2.data" "select group_concat(id || ':' || samples, ' ') from (select id, samples from runs order by id)")
cells=$(q "$tmp/r2.data" "select group_concat(run || ':' || s, ' ') from (select run, sum(samples) s from counts group by run order by run)")
elided=$(q "$tmp/r2.data" "select value from meta where key = 'chains_elided'")
[ -n "$runs" ] && [ "$runs" = "$cells" ] && [ "${elided:-0}" -gt 0 ] &&
	test -z "$(q "$tmp/r2.data" "select value from meta where key = 'stacks_cut_to_leaf'")"
ok $? "two runs: each run's cells hold its samples (runs $runs, cells $cells), ${elided:-no} samples elided, none cut" ||
	diag "$tmp/r2.err"

MMPROF_STACK_BUDGET=12x "$MMPROF" record -o "$tmp/bad.data" -- true >/dev/null 2>"$tmp/bad.err"
test $? -eq 2 && grep -qx "mmprof: invalid MMPROF_STACK_BUDGET '12x'; expected bytes from 65536 to 68719476736" "$tmp/bad.err" &&
	test ! -e "$tmp/bad.data"
ok $? "a bad MMPROF_STACK_BUDGET: one line, exit 2, no file" || diag "$tmp/bad.err"
MMPROF_STACK_NODES=100 "$MMPROF" record -o "$tmp/bad.data" -- true >/dev/null 2>"$tmp/bad.err"
test $? -eq 2 && grep -qx "mmprof: invalid MMPROF_STACK_NODES '100'; expected nodes from 1024 to 2097152" "$tmp/bad.err" &&
	test ! -e "$tmp/bad.data"
ok $? "a bad MMPROF_STACK_NODES: one line, exit 2, no file" || diag "$tmp/bad.err"

done_testing
