#!/bin/sh
# t217-report-warnings: the warning every view repeats names what is
# missing (issue 20, points 3 and 4).
#   - A static program (gcc -static, frame pointers kept): its frame walk
#     goes on past main into __do_global_dtors_aux, as perf shows too; the
#     stacks reach main, so none is "short of main" (100 % were, with the
#     --call-graph dwarf advice).
#   - A stripped program without frame pointers: its samples have no name;
#     the warning says so and why (stripped), not "short of main" with the
#     DWARF advice (it said that: the unnamed outermost frame was judged
#     a short stack).
#   - Kernel text without names (a BPF program gone, unnamed kernel text:
#     made here by taking the kernel frames' names out of a recording whose
#     user stacks stop short too): the kernel address is named as the
#     cause, ahead of the short user stacks.
#   - Stacks that really stop short still get the DWARF advice, unless
#     the file was recorded with --call-graph dwarf: then the line says the
#     unwinder stopped there (the advice would be the flag already given).

. "$(dirname "$0")/lib.sh"
tap_setup t217
plan 11

cat >"$tmp/spin.c" <<'PROG'
volatile unsigned long sink;
__attribute__((noinline)) unsigned long spin(unsigned long n)
{
	unsigned long x = 0, i;

	for (i = 0; i < n; i++)
		x = x * 6364136223846793005UL + i;
	return x;
}
__attribute__((noinline)) void level1(void)
{
	sink += spin(300000000UL);
}
int main(void)
{
	level1();
	return 0;
}
PROG
if cc -static -O2 -fno-omit-frame-pointer -o "$tmp/static" "$tmp/spin.c" 2>"$tmp/cc.err"; then
	ok 0 "build a static program with frame pointers"
	"$MMPROF" record -q -o "$tmp/static.data" -- "$tmp/static" >/dev/null 2>&1 &&
		"$MMPROF" report --keys "$tmp/static.data" >/dev/null 2>"$tmp/static.err"
	ok $? "record and report it"
	! grep -q "short of main\|call-graph dwarf" "$tmp/static.err"
	ok $? "static: no stack called short of main, no DWARF advice"
	diag "$tmp/static.err"
	s=$("$MMPROF" report --unresolved "$tmp/static.data" |
		sed -n 's/^# Short user stacks: \([0-9.]*\)%.*/\1/p')
	[ -n "$s" ] && awk -v s="$s" 'BEGIN { exit !(s < 5) }'
	ok $? "static: report --unresolved counts ${s:-?} % short stacks (under 5)"
else
	diag "$tmp/cc.err"
	fail "build a static program (libc6-dev's libc.a?)"
	fail "record and report it"
	fail "static: no stack called short of main"
	fail "static: report --unresolved counts short stacks"
fi

cc -O2 -fomit-frame-pointer -o "$tmp/stripped" "$tmp/spin.c" && strip "$tmp/stripped" &&
	"$MMPROF" record -q -o "$tmp/stripped.data" -- "$tmp/stripped" >/dev/null 2>&1 &&
	"$MMPROF" report "$tmp/stripped.data" >/dev/null 2>"$tmp/stripped.err"
ok $? "record a stripped program without frame pointers"
grep -q "^mmprof: warning: .*% of samples have no name for the sampled address in $tmp/stripped: stripped" "$tmp/stripped.err" &&
	! grep -q "short of main\|call-graph dwarf" "$tmp/stripped.err"
ok $? "stripped: the warning says the names are missing and why, no DWARF advice"
diag "$tmp/stripped.err"

# a recording whose user stacks stop short (their entries renamed) and
# whose kernel frames have no name
"$MMPROF" record -q -o "$tmp/pf.data" -- "$wl/page-fault" -s 0.3 >/dev/null 2>&1 &&
	cp "$tmp/pf.data" "$tmp/short.data" &&
	sqlite3 "$tmp/short.data" "UPDATE strings SET s = 'x_' || s WHERE s IN ('_start',
	  '__libc_start_main', '__libc_start_call_main', 'main', 'start_thread', 'clone',
	  'clone3', '__clone', '__clone3', 'thread_start', '_dl_start_user', '_dl_start')" &&
	cp "$tmp/short.data" "$tmp/nokern.data" && to_format2 "$tmp/nokern.data" &&
	sqlite3 "$tmp/nokern.data" "UPDATE frames SET sym = NULL, sym_off = 0 WHERE kernel = 1"
ok $? "a recording edited: stacks short of every entry; a copy without kernel names"
"$MMPROF" report --keys "$tmp/short.data" >/dev/null 2>"$tmp/short.err"
grep -q "short of main: built without frame pointers? record with --call-graph dwarf" "$tmp/short.err"
ok $? "stacks that stop short: the DWARF advice"
diag "$tmp/short.err"
cp "$tmp/short.data" "$tmp/shortd.data" &&
	sqlite3 "$tmp/shortd.data" "INSERT INTO meta VALUES ((SELECT max(seq) + 1 FROM meta),
	  'call_graph', 'dwarf,8192')" &&
	"$MMPROF" report --keys "$tmp/shortd.data" >/dev/null 2>"$tmp/shortd.err" &&
	grep -q "short of main, although recorded with --call-graph dwarf: the unwinder" "$tmp/shortd.err" &&
	! grep -q "record with --call-graph dwarf" "$tmp/shortd.err"
ok $? "recorded with --call-graph dwarf: no advice to record with it"
diag "$tmp/shortd.err"
"$MMPROF" report --keys "$tmp/nokern.data" >/dev/null 2>"$tmp/nokern.err"
grep -q "% of samples have no name for the sampled address in \[kernel.kallsyms\]: kernel address outside kallsyms" "$tmp/nokern.err" &&
	! grep -q "call-graph dwarf" "$tmp/nokern.err"
ok $? "unnamed kernel text: the warning names it, ahead of the short user stacks"
diag "$tmp/nokern.err"
"$MMPROF" report --tree "$tmp/nokern.data" 2>/dev/null | grep -q "^# unresolved: [0-9.]*% of [0-9]* samples"
ok $? "--tree says how much of the total has no name"

done_testing
