#!/bin/sh
# t305-diff-drop-run-pictures: a run left out with --drop-run is left out
# of every part of the diff, not only its table: the HTML report's flame
# graph by share and diff -g's call chains pooled every run of every file,
# so one very different run, dropped, still drew its functions there
# (the table, the costs per op and their graph left it out already), and
# the header's named line counted its samples.
# The new side is two files pooled: two runs of the base's workload and
# one run of a program whose hot function exists nowhere else; that run
# dropped, neither picture may show the function, and without the drop
# both do (the check can fail); -g's chains are then those of the diff
# without that file.

. "$(dirname "$0")/lib.sh"
tap_setup t305
plan 10

cat >"$tmp/odd.c" <<'C'
__attribute__((noinline)) static unsigned long only_in_dropped_run(unsigned long n)
{
	volatile unsigned long x = 0;

	while (n--)
		x += n ^ (x >> 3);
	return x;
}

int main(void)
{
	return (int)(only_in_dropped_run(300000000ul) & 1) + 0 * 1;
}
C
cc -O1 -fno-omit-frame-pointer -o "$tmp/odd" "$tmp/odd.c"
ok $? "cc builds the odd program"

loop="i=0; while [ \$i -lt 300000 ]; do i=\$((i+1)); done"
"$MMPROF" record -q -r 2 -o "$tmp/base.data" -- sh -c "$loop" 2>"$tmp/rec.err" &&
	"$MMPROF" record -q -r 2 -o "$tmp/new.data" -- sh -c "$loop" 2>>"$tmp/rec.err" &&
	"$MMPROF" record -q -o "$tmp/odd.data" -- "$tmp/odd" 2>>"$tmp/rec.err"
ok $? "record: base 2 runs, new 2 runs of the same loop, one run of the odd program"
diag "$tmp/rec.err"
test "$("$MMPROF" report --folded "$tmp/odd.data" | grep -c only_in_dropped_run)" -gt 0
ok $? "the odd run's samples are in only_in_dropped_run"

cd "$tmp" || exit 2
# the odd run is new run 2 (new.data's runs 0 and 1, then odd.data's 0)
"$MMPROF" diff --html kept.html -g base.data -- new.data odd.data >kept.txt 2>err
grep -q only_in_dropped_run kept.html && grep -q only_in_dropped_run kept.txt
ok $? "not dropped: the HTML's graph and diff -g show the odd function"

"$MMPROF" diff --drop-run new:2 --html drop.html -g base.data -- new.data odd.data >drop.txt 2>err
rc=$?
test $rc -le 1 && grep -q "dropped (--drop-run): new run 2" drop.txt
ok $? "--drop-run new:2: the header says so (exit $rc)"
[ $rc -le 1 ] || diag err
! grep -q only_in_dropped_run drop.txt
ok $? "diff -g: no call chain of the dropped run"
grep only_in_dropped_run drop.txt | head -3 | sed 's/^/# /'
# the page names the dropped run's file (its metadata), never its function
! grep -q only_in_dropped_run drop.html
ok $? "--html: the flame graph by share leaves the dropped run out"
grep -o '.\{80\}only_in_dropped_run.\{20\}' drop.html | head -2 | sed 's/^/# /'

# the table of the same diff: the same runs as dropping by hand (no odd file)
"$MMPROF" diff --html hand.html base.data new.data >/dev/null 2>err
test "$(grep -c '<g ' drop.html)" = "$(grep -c '<g ' hand.html)"
ok $? "the graph has as many frames as the diff without the odd file ($(grep -c '<g ' drop.html), $(grep -c '<g ' hand.html))"

# the header's named line (the unnamed part of each side) counts the compared runs alone
"$MMPROF" diff base.data new.data 2>err | grep '^named' >hand-named.txt
grep '^named' drop.txt >drop-named.txt
test -s hand-named.txt && cmp -s drop-named.txt hand-named.txt
ok $? "--drop-run: the named line of the diff without the odd file ($(cat drop-named.txt))"

# -g alone (no --html: the keys' memory goes before the chains are built):
# the chains of the diff without the odd file, line for line
"$MMPROF" diff -g --drop-run new:2 base.data -- new.data odd.data 2>err |
	sed -n '/^call chains whose share changed/,$p' >drop-g.txt
"$MMPROF" diff -g base.data new.data 2>err | sed -n '/^call chains whose share changed/,$p' >hand-g.txt
test -s hand-g.txt && cmp -s drop-g.txt hand-g.txt
ok $? "diff -g --drop-run: the chains of the diff without the odd file ($(wc -l <drop-g.txt) and $(wc -l <hand-g.txt) lines)"
done_testing
