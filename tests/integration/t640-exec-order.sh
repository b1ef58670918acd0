#!/bin/sh
# t640-exec-order: samples are named and resolved as they were when taken,
# across an exec and across CPUs (perf's ordered events).
#
# An exec chain: a wrapper burns 0.3 s of CPU in wrapper_work, then execs
# spin (0.6 s in spin_work) in the same pid.  Before, the wrapper's
# samples were resolved through the maps after the exec: a third of the
# samples '[unmapped]' ("no mapping known"), while perf record gives
# wrapper_work about 33%.  Now wrapper_work holds its share under the
# wrapper's name, with the default frame-pointer chains, with
# --call-graph dwarf, and through `sh -c 'exec ...'`.
#
# A pipeline: sh -c 'cat | tr | sort | uniq -c | wc -l' with sh on CPU 1
# and sort moved to CPU 0 by taskset before its exec, so sort's COMM is
# in CPU 0's buffer and the FORK and taskset's COMM in CPU 1's, read
# after it.  Applied as read, the child's name went back to its parent's:
# sort's samples were stored as taskset's (3242 of 3401 samples, sort 67;
# perf report --sort comm: sort 87.49%, taskset 0.25%).  Now sort holds
# most samples and sh and taskset almost none, in every run.

. "$(dirname "$0")/lib.sh"
tap_setup t640
plan 11

cat >"$tmp/burn.h" <<'PROG'
#include <time.h>
static double cpu_now(void)
{
	struct timespec t;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
	return t.tv_sec + t.tv_nsec / 1e9;
}
volatile unsigned long sink;
PROG
cat >"$tmp/wrapper.c" <<'PROG'
#include <stdio.h>
#include <unistd.h>
#include "burn.h"
__attribute__((noinline)) void wrapper_work(double secs)
{
	double t0 = cpu_now();
	unsigned long i;

	do
		for (i = 0; i < 100000; i++)
			sink += i * i;
	while (cpu_now() - t0 < secs);
}
int main(int argc, char **argv)
{
	(void)argc;
	wrapper_work(0.3);
	execv(argv[1], argv + 1);
	perror("exec");
	return 1;
}
PROG
cat >"$tmp/spin.c" <<'PROG'
#include "burn.h"
__attribute__((noinline)) void spin_work(double secs)
{
	double t0 = cpu_now();
	unsigned long i;

	do
		for (i = 0; i < 100000; i++)
			sink += i;
	while (cpu_now() - t0 < secs);
}
int main(void)
{
	spin_work(0.6);
	return 0;
}
PROG
cc -O1 -fno-omit-frame-pointer -o "$tmp/wrapper" "$tmp/wrapper.c" &&
	cc -O1 -fno-omit-frame-pointer -o "$tmp/spin" "$tmp/spin.c"
ok $? "the wrapper and spin build"

# samples whose stack holds function $2, per cent of all, in file $1
share_of() {
	"$MMPROF" report --folded "$1" 2>/dev/null |
		awk -v f="$2" '{ n = $NF; t += n; if ((";" $1 ";") ~ (";" f ";")) s += n }
			END { printf "%d\n", t ? 100 * s / t : 0 }'
}
# per cent of the samples with no mapping known ("[unmapped]" addresses)
unmapped_of() {
	"$MMPROF" report --unresolved "$1" 2>/dev/null |
		awk '$3 == "address" && $4 ~ /^\[unmapped\]/ { s += $1 } END { printf "%d\n", s }'
}

for how in fp dwarf sh; do
	case $how in
	fp) set -- "$tmp/wrapper" "$tmp/spin" ;;
	dwarf) set -- --call-graph dwarf -- "$tmp/wrapper" "$tmp/spin" ;;
	sh) set -- sh -c "exec '$tmp/wrapper' '$tmp/spin'" ;;
	esac
	[ "$1" = --call-graph ] || set -- -- "$@"
	"$MMPROF" record -q -o "$tmp/$how.data" "$@" >"$tmp/$how.out" 2>&1
	w=$(share_of "$tmp/$how.data" wrapper_work)
	u=$(unmapped_of "$tmp/$how.data")
	[ "$w" -ge 20 ] && [ "$w" -le 50 ] && [ "$u" -le 2 ]
	ok $? "$how: wrapper_work keeps its share across the exec ($w%, perf ~33%), no mapping unknown for $u%"
done
"$MMPROF" report --folded --comm "$tmp/fp.data" 2>/dev/null | grep -q '^wrapper;.*;wrapper_work '
ok $? "the wrapper's samples keep the wrapper's name"
"$MMPROF" report --folded --comm "$tmp/fp.data" 2>/dev/null | grep -q '^spin;.*;spin_work '
ok $? "spin's samples are spin's"

# the pipeline, four runs; sh on the last CPU, sort moved to the first
seq 1 200000 | awk '{ printf "%x\n", $1 * 2654435761 % 1000003 }' >"$tmp/in"
last=$(($(nproc) - 1))
"$MMPROF" record -q -r 4 -o "$tmp/pipe.data" -- taskset -c "$last" sh -c \
	"cat '$tmp/in' '$tmp/in' '$tmp/in' '$tmp/in' | tr a-f A-F | taskset -c 0 sort | uniq -c | wc -l" \
	>"$tmp/pipe.out" 2>&1
ok $? "record -r 4 of the pipeline"
for r in 0 1 2 3; do
	"$MMPROF" report --folded --comm --run $r "$tmp/pipe.data" 2>/dev/null |
		awk '{ split($1, f, ";"); s[f[1]] += $NF; t += $NF }
		     END { printf "%d %d %d\n", 100 * s["sort"] / t, 100 * s["sh"] / t,
			   100 * s["taskset"] / t }' >"$tmp/share.$r"
done
awk '$1 < 50 { bad = 1 } END { exit bad }' "$tmp/share.0" "$tmp/share.1" "$tmp/share.2" "$tmp/share.3"
ok $? "sort holds its share in every run (sort sh taskset %: $(cat "$tmp"/share.? | tr '\n' ','))"
# sh's and taskset's own work (fork, exec, the loader, locale) is 1-6 % of a
# run here, by the host's load; sort's work named after its parent would be
# tens of points, so 15 tells the two apart with room for the noise
awk '$2 + $3 > 15 { bad = 1 } END { exit bad }' "$tmp/share.0" "$tmp/share.1" "$tmp/share.2" "$tmp/share.3"
ok $? "sh and taskset hold only their own start-up work (at most 15 %)"
"$MMPROF" report --folded --comm "$tmp/pipe.data" 2>/dev/null | grep -q '^:[0-9]'
[ $? -ne 0 ]
ok $? "no sample lost its name to ':PID'"

# the same workload under perf: sort's share by comm, side by side
if perf record -q -F 4000 -e cpu-clock -o "$tmp/pipe.perf" -- taskset -c "$last" sh -c \
	"cat '$tmp/in' '$tmp/in' '$tmp/in' '$tmp/in' | tr a-f A-F | taskset -c 0 sort | uniq -c | wc -l" \
	>/dev/null 2>&1; then
	p=$(perf report -i "$tmp/pipe.perf" --sort comm --stdio 2>/dev/null |
		awk '$2 == "sort" { sub("%", "", $1); printf "%d\n", $1 }')
	m=$(cat "$tmp"/share.? | awk '{ s += $1 } END { printf "%d\n", s / NR }')
	[ -n "$p" ] && [ $((m - p)) -le 12 ] && [ $((p - m)) -le 12 ]
	ok $? "sort's share within 12 points of perf report --sort comm (mmprof $m%, perf ${p:-?}%)"
else
	fail "perf record of the pipeline"
fi
done_testing
