#!/bin/sh
# t804-record-repairs: record never loses a recording over a value the
# format cannot hold.  A program whose hot function has a 5 MiB symbol name
# (as a template-heavy demangled C++ name can be): record used to fail
# with "cannot write ...: a string of 5242881 bytes exceeds the limit" and
# write nothing; now the name is cut to 4 MiB where it enters the profile,
# one warning says so, meta repaired.string counts it, and report names the
# function with the share perf gives it (perf report: 98.4 % self in the
# long-named function, mmprof 98.2 %, same machine, one run each).
# And more sampling events than a file holds (a wide tracepoint glob) are
# refused before the workload runs, not at the save after it.  An import
# whose period is a wrapped difference (2^64 - 616) drops that sample
# with one warning: the cell's sum wrapped to 249384 ns before.

. "$(dirname "$0")/lib.sh"
tap_setup t804
plan 11

python3 - "$tmp/long.s" <<'PY'
import sys
name = "f" + "x" * (5 << 20)
open(sys.argv[1], "w").write(f"""
	.text
	.globl {name}
	.type {name}, @function
{name}:
	movq $400000000, %rax
1:	decq %rax
	jnz 1b
	ret
	.size {name}, .-{name}
	.globl main
	.type main, @function
main:
	subq $8, %rsp
	call {name}
	xorl %eax, %eax
	addq $8, %rsp
	ret
	.size main, .-main
	.section .note.GNU-stack,"",@progbits
""")
PY
cc -o "$tmp/long" "$tmp/long.s"
ok $? "cc builds a program whose hot function has a 5 MiB name"

"$MMPROF" record -e cpu-clock -o "$tmp/long.data" -- "$tmp/long" >"$tmp/out" 2>"$tmp/err"
rc=$?
test $rc -eq 0 && test -s "$tmp/long.data"
ok $? "record exits 0 and writes the file (exit $rc)"
[ $rc -eq 0 ] || diag "$tmp/err"

test "$(grep -c 'warning: kept within the file format: strings cut to 4 MiB: 1 (meta repaired\.\*)' "$tmp/err")" = 1
ok $? "one warning line says the name was cut"

test "$(sqlite3 "$tmp/long.data" "select value from meta where key = 'repaired.string'")" = 1
ok $? "meta repaired.string is 1"

"$MMPROF" report "$tmp/long.data" >"$tmp/report" 2>"$tmp/rerr"
ok $? "report reads it"

# the top line: children, self, DSO, [.], the name (cut on the terminal)
awk '/^ *[0-9.]+% +[0-9.]+% +long +\[\.\] fxxxx/ { self = $2 + 0; exit }
     END { exit !(self > 50) }' "$tmp/report"
ok $? "and names the long function with most of the samples"
grep -qx "# kept within the file format (record repaired them): string 1 (mmprof-record(1), OUTPUT)" "$tmp/report"
ok $? "report's header says what record repaired"

# 7-8: 300 tracepoints (of any systems this kernel has)
tracefs_dir
tf=$tracefs
evs=$(cd "$tf/events" && for d in */*/; do [ -f "$d/id" ] && echo "${d%/}"; done |
	head -300 | tr / : | paste -sd, -)
"$MMPROF" record -e "$evs" -o "$tmp/ev.data" -- sh -c ': >"$0"' "$tmp/ran" 2>"$tmp/err"
rc=$?
test $rc -eq 2 && test "$(wc -l <"$tmp/err")" = 1 &&
	grep -q '300 sampling events, more than a file holds (256)' "$tmp/err"
ok $? "300 sampling events: one line, exit 2 (exit $rc)"
[ $rc -eq 2 ] || diag "$tmp/err"
test ! -e "$tmp/ran" && test ! -e "$tmp/ev.data"
ok $? "before the workload ran; no file"

# 9-10: perf script with a period near 2^64, then a sane one, same stack
printf 'prog  1234 100.000001:   18446744073709551000 cpu-clock: \n\t    401000 main+0x0 (/bin/prog)\n\nprog  1234 100.000002:   250000 cpu-clock: \n\t    401000 main+0x0 (/bin/prog)\n\n' >"$tmp/wrap.txt"
"$MMPROF" import -o "$tmp/wrap.data" - <"$tmp/wrap.txt" 2>"$tmp/err"
rc=$?
test $rc -eq 0 && test "$(cat "$tmp/err")" = "mmprof: warning: kept within the file format: counts dropped that took the sum of all to 2^63: 1 (meta repaired.*)"
ok $? "import of a wrapped period: exit 0, one warning (exit $rc)"
[ $rc -eq 0 ] || diag "$tmp/err"
test "$("$MMPROF" report --folded --period "$tmp/wrap.data")" = "main 250000"
ok $? "the sane sample kept, not summed with the wrapped one"
done_testing
