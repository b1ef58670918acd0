#!/bin/sh
# t610-dwarf-unwind: record --call-graph dwarf on a program built with
# -O2 -fomit-frame-pointer (main -> level1 -> level2 -> hot_loop, each
# noinline).  Its user stacks come whole from libdw's unwinder; with the
# default frame-pointer walk they do not (the same assertion fails there,
# which shows the test can fail).  perf record --call-graph dwarf on the
# same program gives main's share of samples (perf report --children):
# mmprof's must be within a few points.  Also: a SIZE, bad sizes, lbr.
# Through the vdso: a loop calling clock_gettime (main -> a -> b -> loop,
# the same flags) spends most samples in __vdso_clock_gettime, which no
# file holds; those stacks must still reach main (the vdso's CFI comes
# from symbols' copy of our own [vdso]).
# In another mount namespace: the chain program run from a tmpfs mounted
# inside `unshare -m` (the host has a decoy at that path); its files are
# read through the fds symbols opened in /proc/PID/root, so its stacks
# reach main too.

. "$(dirname "$0")/lib.sh"
tap_setup t610
cleanup_hook() { umount "$tmp/ns" 2>/dev/null; }
plan 17

cat >"$tmp/chain.c" <<'PROG'
#include <stdlib.h>
#include <time.h>
volatile unsigned long sink;
__attribute__((noinline)) unsigned long hot_loop(unsigned long n)
{
	unsigned long x = 0, i;

	for (i = 0; i < n; i++)
		x = x * 6364136223846793005UL + i;
	return x;
}
__attribute__((noinline)) unsigned long level2(unsigned long n)
{
	unsigned long r = hot_loop(n);

	sink += r;
	return r + 1;
}
__attribute__((noinline)) unsigned long level1(unsigned long n)
{
	unsigned long r = level2(n);

	sink += r;
	return r ^ 3;
}
int main(int argc, char **argv)
{
	double secs = argc > 1 ? atof(argv[1]) : 1.0;
	struct timespec a, b;

	clock_gettime(CLOCK_MONOTONIC, &a);
	do {
		sink += level1(1000000);
		clock_gettime(CLOCK_MONOTONIC, &b);
	} while ((b.tv_sec - a.tv_sec) + (b.tv_nsec - a.tv_nsec) / 1e9 < secs);
	return 0;
}
PROG
cc -O2 -g -fomit-frame-pointer -o "$tmp/chain" "$tmp/chain.c"
ok $? "the test program builds (-O2 -g -fomit-frame-pointer)"

# share FILE PATTERN: percent of the samples whose folded stack matches PATTERN
share() {
	"$MMPROF" report --folded "$1" | awk -v pat="$2" '
		{ c = $NF; all += c; if ($0 ~ pat) hit += c }
		END { if (all) printf "%.1f\n", 100 * hit / all; else print 0 }'
}
chain='(^|;)main;level1;level2;hot_loop( |;)'

"$MMPROF" record -q -e cpu-clock --call-graph dwarf -o "$tmp/dwarf.data" -- "$tmp/chain" 1
ok $? "record --call-graph dwarf"
d=$(share "$tmp/dwarf.data" "$chain")
echo "# dwarf: $d % of samples show main;level1;level2;hot_loop"
awk -v v="$d" 'BEGIN { exit !(v > 80) }'
ok $? "dwarf: more than 80 % of the samples unwind to main;level1;level2;hot_loop ($d %)"

"$MMPROF" record -q -e cpu-clock --call-graph fp -o "$tmp/fp.data" -- "$tmp/chain" 1
ok $? "record --call-graph fp"
f=$(share "$tmp/fp.data" "$chain")
echo "# fp: $f % of samples show main;level1;level2;hot_loop"
awk -v v="$f" 'BEGIN { exit !(v < 50) }'
ok $? "fp on the same program: the whole chain is not there ($f %)"

"$MMPROF" record -q -e cpu-clock --call-graph dwarf,16384 -o "$tmp/d16k.data" -- "$tmp/chain" 0.5
ok $? "record --call-graph dwarf,16384"
d16=$(share "$tmp/d16k.data" "$chain")
awk -v v="$d16" 'BEGIN { exit !(v > 80) }'
ok $? "dwarf,16384: more than 80 % unwind to the chain ($d16 %)"

"$MMPROF" record -q --call-graph dwarf,12 -o "$tmp/x.data" -- true 2>"$tmp/err"
st=$?
[ $st -eq 2 ] && [ "$(wc -l <"$tmp/err")" -eq 1 ] && grep -q "multiple of 8" "$tmp/err"
ok $? "dwarf,12: exit 2 and one line saying why (status $st)"
diag "$tmp/err"

"$MMPROF" record -q --call-graph lbr -o "$tmp/x.data" -- true 2>"$tmp/err"
st=$?
if [ -e /sys/bus/event_source/devices/cpu/caps/branches ]; then
	# a PMU with LBR: mmprof does not implement it yet, and says so
	[ $st -eq 2 ] && grep -q "lbr" "$tmp/err"
else
	[ $st -eq 2 ] && [ "$(wc -l <"$tmp/err")" -eq 1 ] && grep -q "no last branch records" "$tmp/err"
fi
ok $? "--call-graph lbr without LBR: exit 2 and one line (status $st)"
diag "$tmp/err"

# perf on the same program: main's children share
if perf record -q -e cpu-clock --call-graph dwarf -o "$tmp/perf.data" "$tmp/chain" 1 \
	>/dev/null 2>"$tmp/perf.err"; then
	p=$(perf report -i "$tmp/perf.data" --children --stdio 2>/dev/null |
		awk '$NF == "main" && $1 ~ /%$/ { sub("%", "", $1); print $1; exit }')
else
	diag "$tmp/perf.err"
	p=
fi
m=$(share "$tmp/dwarf.data" '(^|;)main( |;)')
echo "# main's share of samples: mmprof $m %, perf ${p:-?} %"
[ -n "$p" ] && awk -v a="$m" -v b="$p" 'BEGIN { d = a - b; if (d < 0) d = -d; exit !(d <= 5) }'
ok $? "main's share within 5 points of perf report --children (mmprof $m %, perf ${p:-none} %)"

[ "$(sqlite3 "$tmp/dwarf.data" "select value from meta where key = 'call_graph'")" = "dwarf,8192" ]
ok $? "the data file says how stacks were recorded (meta call_graph = dwarf,8192)"

# --- through the vdso ---------------------------------------------------
cat >"$tmp/vdso.c" <<'PROG'
#include <stdlib.h>
#include <time.h>
volatile unsigned long sink;
__attribute__((noinline)) void loop(double secs)
{
	struct timespec a, b;

	clock_gettime(CLOCK_MONOTONIC, &a);
	do {
		clock_gettime(CLOCK_MONOTONIC, &b);
		sink += (unsigned long)b.tv_nsec;
	} while ((b.tv_sec - a.tv_sec) + (b.tv_nsec - a.tv_nsec) / 1e9 < secs);
}
__attribute__((noinline)) void b(double secs) { loop(secs); sink++; }
__attribute__((noinline)) void a(double secs) { b(secs); sink++; }
int main(int argc, char **argv)
{
	a(argc > 1 ? atof(argv[1]) : 1.0);
	return 0;
}
PROG
cc -O2 -g -fomit-frame-pointer -o "$tmp/vdso" "$tmp/vdso.c" &&
	"$MMPROF" record -q -e cpu-clock --call-graph dwarf -o "$tmp/vdso.data" -- "$tmp/vdso" 1
ok $? "record --call-graph dwarf of a clock_gettime loop (-O2 -fomit-frame-pointer)"
# samples whose user leaf is in the vdso (kernel frames of interrupts may follow)
"$MMPROF" report --folded "$tmp/vdso.data" >"$tmp/vdso.folded"
vd=$(awk '/(^|;)__vdso_clock_gettime( |;)/ { s += $NF } END { print s + 0 }' "$tmp/vdso.folded")
vm=$(awk '/(^|;)main;a;b;loop;([^;]*;)?__vdso_clock_gettime( |;)/ { s += $NF } END { print s + 0 }' \
	"$tmp/vdso.folded")
all=$(awk '{ s += $NF } END { print s + 0 }' "$tmp/vdso.folded")
echo "# vdso: $vd of $all samples in __vdso_clock_gettime, $vm of them unwind to main;a;b;loop"
awk -v v="$vd" -v a="$all" 'BEGIN { exit !(a > 0 && v > a / 5) }'
ok $? "a fifth of the samples or more are in __vdso_clock_gettime ($vd of $all)"
awk -v v="$vd" -v m="$vm" 'BEGIN { exit !(v > 0 && m > 0.8 * v) }'
ok $? "over 80 % of those unwind through the vdso to main;a;b;loop ($vm of $vd)"

# --- another mount namespace ---------------------------------------------
mkdir "$tmp/ns" && cp /bin/true "$tmp/ns/chain"	# the decoy the host sees
ok $? "a host decoy at the namespace program's path"
inner="mount -t tmpfs mmprof-t610 $tmp/ns && cp $tmp/chain $tmp/ns/chain && exec $tmp/ns/chain 1"
"$MMPROF" record -q -e cpu-clock --call-graph dwarf -o "$tmp/ns.data" -- \
	unshare -m --propagation private sh -c "$inner" >"$tmp/ns.out" 2>&1
ok $? "record --call-graph dwarf -- unshare -m (binary only inside the namespace)"
diag "$tmp/ns.out"
# of the program's own samples: unshare, sh, mount and cp take a fixed
# CPU time, the program a second of wall time, which a loaded machine
# gives it less of (a fresh-clone CI under load fell under 80 % so)
ns=$("$MMPROF" report --folded --comm "$tmp/ns.data" | awk -v pat="$chain" '
	/^chain;/ { c = $NF; all += c; if ($0 ~ pat) hit += c }
	END { if (all) printf "%.1f\n", 100 * hit / all; else print 0 }')
echo "# namespace: $ns % of the program's samples show main;level1;level2;hot_loop"
awk -v v="$ns" 'BEGIN { exit !(v > 80) }'
ok $? "namespace: more than 80 % of the program's samples unwind to main;level1;level2;hot_loop ($ns %)"

done_testing
