#!/bin/sh
# t611-lbr: record --call-graph lbr.  LBR needs a hardware PMU with last
# branch records.  Where there is none (this VM: no hardware PMU at all;
# AMD before Zen 4) every way of asking must fail the same way: one line
# saying so, exit status 2, no data file written (an older one left
# alone), the workload never run, a -p target left running.  A software
# event is refused up front whatever the PMU.  Where the PMU has LBR, a
# program built without frame pointers is recorded instead and its user
# stacks must reach main through the branch stack.  The chain building
# itself is unit-tested on records laid out as the kernel writes them
# (tests/unit/test-lbr.c).

. "$(dirname "$0")/lib.sh"
tap_setup t611
cleanup_hook() { [ -n "$sleeper" ] && kill "$sleeper" 2>/dev/null; }

has_lbr=no
for caps in /sys/bus/event_source/devices/cpu/caps/branches \
	    /sys/bus/event_source/devices/cpu_core/caps/branches; do
	[ -r "$caps" ] && [ "$(cat "$caps")" -gt 0 ] 2>/dev/null && has_lbr=yes
done
echo "# PMU with last branch records: $has_lbr"

# one_line_lbr FILE: exactly one line, the PMU message and the way out
one_line_lbr() {
	[ "$(wc -l <"$1")" -eq 1 ] &&
	grep -q "^mmprof: --call-graph lbr: this machine's PMU has no last branch records (.*); use --call-graph dwarf or fp$" "$1"
}

if [ $has_lbr = no ]; then
	"$MMPROF" record -q --call-graph lbr -o "$tmp/a.data" -- touch "$tmp/ran" 2>"$tmp/err"
	st=$?
	[ $st -eq 2 ] && one_line_lbr "$tmp/err"
	ok $? "fork mode: exit 2 and one line saying why (status $st)"
	diag "$tmp/err"
	[ ! -e "$tmp/a.data" ] && [ ! -e "$tmp/ran" ]
	ok $? "no data file written and the command never ran"

	echo "an older recording" >"$tmp/old.data"
	"$MMPROF" record -q --call-graph lbr -o "$tmp/old.data" -- true 2>"$tmp/err"
	st=$?
	[ $st -eq 2 ] && [ "$(cat "$tmp/old.data")" = "an older recording" ] &&
		[ "$(ls "$tmp" | grep -c old)" -eq 1 ]
	ok $? "an existing output file is left as it was, no backup made (status $st)"

	"$MMPROF" record -q -e cycles --call-graph lbr -o "$tmp/b.data" -- true 2>"$tmp/err"
	st=$?
	[ $st -eq 2 ] && one_line_lbr "$tmp/err" && grep -q "cycles:" "$tmp/err" &&
		[ ! -e "$tmp/b.data" ]
	ok $? "-e cycles: the same, naming the event (status $st)"

	sleep 30 &
	sleeper=$!
	"$MMPROF" record -q --call-graph lbr -p "$sleeper" -o "$tmp/c.data" 2>"$tmp/err"
	st=$?
	[ $st -eq 2 ] && one_line_lbr "$tmp/err" && [ ! -e "$tmp/c.data" ] &&
		kill -0 "$sleeper" 2>/dev/null
	ok $? "-p: the same, and the target keeps running (status $st)"
	kill "$sleeper" 2>/dev/null
	wait "$sleeper" 2>/dev/null
	sleeper=

	"$MMPROF" record -q -a --duration 0.2 --call-graph lbr -o "$tmp/d.data" 2>"$tmp/err"
	st=$?
	[ $st -eq 2 ] && one_line_lbr "$tmp/err" && [ ! -e "$tmp/d.data" ]
	ok $? "-a: the same (status $st)"

	# and the other call graphs still record on this machine
	"$MMPROF" record -q --call-graph fp -o "$tmp/fp.data" -- true 2>"$tmp/err" &&
		[ -s "$tmp/fp.data" ]
	ok $? "--call-graph fp records here (cpu-clock)"
	diag "$tmp/err"
else
	cat >"$tmp/chain.c" <<'PROG'
volatile unsigned long sink;
__attribute__((noinline)) unsigned long hot_loop(unsigned long n)
{
	unsigned long x = 0, i;

	for (i = 0; i < n; i++)
		x = x * 6364136223846793005UL + i;
	return x;
}
__attribute__((noinline)) unsigned long level1(unsigned long n)
{
	unsigned long r = hot_loop(n);

	sink += r;
	return r ^ 3;
}
int main(void)
{
	int i;

	for (i = 0; i < 300; i++)
		sink += level1(1000000);
	return 0;
}
PROG
	cc -O2 -fomit-frame-pointer -o "$tmp/chain" "$tmp/chain.c"
	ok $? "the test program builds (-O2 -fomit-frame-pointer)"
	"$MMPROF" record -q --call-graph lbr -o "$tmp/lbr.data" -- "$tmp/chain" 2>"$tmp/err"
	ok $? "record --call-graph lbr"
	diag "$tmp/err"
	share=$("$MMPROF" report --folded "$tmp/lbr.data" | awk '
		{ c = $NF; all += c; if ($0 ~ /(^|;)main;level1;hot_loop( |;)/) hit += c }
		END { if (all) printf "%.1f\n", 100 * hit / all; else print 0 }')
	echo "# lbr: $share % of samples show main;level1;hot_loop"
	awk -v v="$share" 'BEGIN { exit !(v > 80) }'
	ok $? "lbr: more than 80 % of the samples reach main;level1;hot_loop ($share %)"
	"$MMPROF" report --json "$tmp/lbr.data" 2>/dev/null | grep -q '"call_graph": *"lbr"'
	ok $? "the data file says call_graph lbr"
fi

# whatever the PMU: a software event never has branch records
"$MMPROF" record -q -e cpu-clock --call-graph lbr -o "$tmp/e.data" -- true 2>"$tmp/err"
st=$?
[ $st -eq 2 ] && [ "$(wc -l <"$tmp/err")" -eq 1 ] &&
	grep -q "event 'cpu-clock' has no last branch records" "$tmp/err" && [ ! -e "$tmp/e.data" ]
ok $? "-e cpu-clock --call-graph lbr: refused up front (status $st)"
diag "$tmp/err"
"$MMPROF" record -q -e cycles,page-faults --call-graph lbr -o "$tmp/e.data" -- true 2>"$tmp/err"
st=$?
[ $st -eq 2 ] && grep -q "'page-faults'" "$tmp/err"
ok $? "a software event among hardware ones is named (status $st)"

"$MMPROF" record --help 2>&1 | grep -q -- "--call-graph.*lbr.*last branch records"
ok $? "--help says what lbr is"
grep -q 'no last branch records' "$here/man/mmprof-record.1" ||
	grep -q 'has no branch records' "$here/man/mmprof-record.1"
ok $? "the man page says what happens without LBR"

done_testing
