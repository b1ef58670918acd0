#!/bin/sh
# t822-strip-kernel-values: strip removes every kernel address, not only
# kernel frames' (issue 14, item 9).  A recording with every key family
# (perf-profile, perf-sched, perf-stat, proc-vmstat, meminfo, tracepoint
# with a kmem:kmalloc/call_site histogram, the workload's own) is stripped:
#   - no string, frame or key of the stripped file holds a value in the
#     kernel's half of the address space (call_site's values did:
#     "tracepoint.kmem:kmalloc.call_site.-2124862549");
#   - every family's keys are as before, but for those values, whose
#     counts are in their field's .other (the field's total unchanged);
#     the workload's own <name>.time.* too (they were lost with cmdline);
#   - a small negative value (an errno) is data and stays;
#   - the stripped file is 0644 (umask 022), the recording 0600.
# Needs root (kernel tracepoints): the project's tests run as root.

. "$(dirname "$0")/lib.sh"
tap_setup t822

plan 10

(umask 022 && "$MMPROF" record -q --mm --sched -e cpu-clock -e kmem:kmalloc \
	--field kmem:kmalloc/call_site --field kmem:kmalloc/bytes_req -o "$tmp/k.data" -- \
	sh -c 'for i in 1 2 3; do ls -R /usr/lib >/dev/null; done' >/dev/null 2>"$tmp/err")
ok $? "record with every key family"
[ $? -eq 0 ] || diag "$tmp/err"
# a file written by hand: an errno-like value of a signed field
cp "$tmp/k.data" "$tmp/e.data"
sqlite3 "$tmp/e.data" "insert into strings(id, s) values ((select max(id) + 1 from strings), 'tracepoint.kmem:kmalloc.ret.-22');
	insert into metrics(run, key, value) values ((select min(id) from runs), (select max(id) from strings), 3);"

# kernel_tokens: the lines of stdin holding a number that may be a kernel
# address: a decimal of 10 digits or more below 0 (tpstats' signed
# spelling of 0xffff...: kernel text at 0xffffffff81000000 is
# -2130706432, the direct map beyond -10^14) or a 64-bit hex with the top
# bit set.  A fall of a memory level is not one (meminfo.rise.* in kB, a
# CI run's -70 000 and the like read as an address at the old -65537).  No {n} in the awk
# part: Debian's mawk 1.3.4 has no intervals, and with one the hex test
# matched nothing (meta kernel_ref_reloc_sym's "_text 0xffffffff81000000"
# passed test 4 unseen)
kernel_tokens() {
	grep -E -- '(^|[^0-9a-zA-Z])-[0-9]{10,}|0x[89a-fA-F][0-9a-fA-F]{15}' |
		awk '{ n = split($0, w, /[^-0-9a-fA-Fx]+/); for (i = 1; i <= n; i++)
			if ((w[i] ~ /^-[0-9]+$/ && w[i] + 0 <= -1000000000) ||
			    (w[i] ~ /^0x[89a-fA-F][0-9a-fA-F]*$/ && length(w[i]) == 18)) { print; next } }'
}
"$MMPROF" report --keys "$tmp/k.data" >"$tmp/k.keys"
grep -E '^tracepoint\.kmem:kmalloc\.call_site\.' "$tmp/k.keys" | kernel_tokens | grep -q .
ok $? "the recording's call_site keys hold kernel addresses (what strip must remove)"

(umask 022 && "$MMPROF" strip "$tmp/k.data" -o "$tmp/ks.data" 2>"$tmp/err") &&
	(umask 022 && "$MMPROF" strip "$tmp/e.data" -o "$tmp/es.data" 2>>"$tmp/err")
ok $? "strip: exit 0"
[ $? -eq 0 ] || diag "$tmp/err"

sqlite3 "$tmp/ks.data" 'select s from strings' | kernel_tokens >"$tmp/left"
test ! -s "$tmp/left"
ok $? "no string of the stripped file holds a kernel address"
[ $? -eq 0 ] || diag "$tmp/left"
test "$(sqlite3 "$tmp/ks.data" 'select count(*) from frames where addr < 0 or (kernel and addr != 0)')" = 0
ok $? "no frame address in the kernel's half"
"$MMPROF" report --keys "$tmp/ks.data" >"$tmp/ks.keys" &&
	{ cat "$tmp/ks.keys"; "$MMPROF" report --json "$tmp/ks.data"; "$MMPROF" export -f folded "$tmp/ks.data"; } |
	kernel_tokens >"$tmp/left"
test ! -s "$tmp/left"
ok $? "report, report --json and export -f folded of it print none"
[ $? -eq 0 ] || diag "$tmp/left"

# every family as before, but for the kernel values and the .other they join
sed 's/[.:].*//' "$tmp/k.keys" | sort -u >"$tmp/fam"
test "$(wc -l <"$tmp/fam")" -ge 6 && sed 's/[.:].*//' "$tmp/ks.keys" | sort -u | cmp -s - "$tmp/fam"
ok $? "the same key families ($(tr '\n' ' ' <"$tmp/fam"))"
call='^tracepoint\.kmem:kmalloc\.call_site\.'
grep -v "$call" "$tmp/k.keys" >"$tmp/k.rest"
grep -v "$call" "$tmp/ks.keys" | cmp -s - "$tmp/k.rest"
ok $? "every other key and value unchanged"
sum() { grep "$call" "$1" | awk -F': ' '{ s += $2 } END { print s + 0 }'; }
test "$(sum "$tmp/k.keys")" = "$(sum "$tmp/ks.keys")" && test "$(sum "$tmp/ks.keys")" -gt 0 &&
	grep "$call" "$tmp/ks.keys" | grep -q '\.other: ' &&
	! grep "$call" "$tmp/ks.keys" | grep -v '\.other: ' | kernel_tokens | grep -q .
ok $? "call_site's kernel values are counted in its .other, the field's total unchanged ($(sum "$tmp/ks.keys"))"
test "$(stat -c %a "$tmp/k.data")" = 600 && test "$(stat -c %a "$tmp/ks.data")" = 644 &&
	"$MMPROF" report --keys "$tmp/es.data" | grep -q '^tracepoint\.kmem:kmalloc\.ret\.-22: 3'
ok $? "recording 0600, stripped 0644; an errno-like -22 stays a value"

done_testing
