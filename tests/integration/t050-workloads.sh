#!/bin/sh
# t050-workloads: every bundled workload runs, prints only well-formed
# "<name>.<metric>: value" lines, does a fixed amount of work under
# --iterations, rejects bad options with exit 2, and thp-zap's --thp switch
# really changes the kernel path (huge faults and PMD splits, or none).
#
# The THP checks need transparent huge pages available ("always" or
# "madvise"); with "never" they fail loudly: the demo and the THP on/off
# diff cannot work on such a machine either.

. "$(dirname "$0")/lib.sh"
tap_setup t050

metric() {	# metric FILE KEY: the value of KEY in a workload's stdout
	sed -n "s/^$2: //p" "$1"
}
vmstat() { awk -v k="$1" '$1 == k { print $2 }' /proc/vmstat; }

workloads="thp-zap page-fault cow-fork pthread-churn mmap-contend"
plan 37

# 1-15: each workload, a short timed run: exit 0, stdout only metric lines, ops > 0.
for w in $workloads; do
	"$wl/$w" --seconds 0.3 >"$tmp/$w.out" 2>"$tmp/$w.err"
	rc=$?
	ok $rc "$w --seconds 0.3 exits 0"
	[ $rc -eq 0 ] || diag "$tmp/$w.err" >&2
	bad=$(grep -cvE "^$w\.[a-z_]+: [0-9]+(\.[0-9]+)?\$" "$tmp/$w.out")
	lines=$(wc -l <"$tmp/$w.out")
	[ "$bad" -eq 0 ] && [ "$lines" -ge 2 ] && [ ! -s "$tmp/$w.err" ]
	ok $? "$w prints only '$w.<metric>: value' lines ($lines) and nothing on stderr"
	[ "$bad" -eq 0 ] || diag "$tmp/$w.out" >&2
	ops=$(metric "$tmp/$w.out" "$w.ops")
	rate=$(metric "$tmp/$w.out" "$w.ops_per_sec")
	[ "${ops:-0}" -gt 0 ] && [ -n "$rate" ]
	ok $? "$w reports $w.ops ($ops) and $w.ops_per_sec ($rate)"
done

# 16-20: --iterations fixes the work, whatever the speed of the machine.
check_iter() {	# check_iter EXPECTED-OPS WORKLOAD ARGS...
	exp=$1; w=$2; shift 2
	"$wl/$w" "$@" >"$tmp/it.out" 2>"$tmp/it.err"
	got=$(metric "$tmp/it.out" "$w.ops")
	[ "$got" = "$exp" ]
	ok $? "$w $* does exactly $exp ops (got ${got:-nothing})"
	[ "$got" = "$exp" ] || diag "$tmp/it.err" >&2
}
check_iter 32 thp-zap --iterations 2 --size 32M
check_iter 4096 page-fault -n 1 -t 2 --size 8M
check_iter 3 cow-fork -n 3 --size 8M
check_iter 12 pthread-churn -n 3 --batch 4
check_iter 300 mmap-contend -n 100 -t 3

# 21-30: usage: --help exits 0 on stdout; a bad option exits 2 with one line on stderr.
for w in $workloads; do
	"$wl/$w" --help >"$tmp/h.out" 2>&1
	rc=$?
	[ $rc -eq 0 ] && grep -q -- '--seconds' "$tmp/h.out" && grep -q -- '--thp' "$tmp/h.out"
	ok $? "$w --help exits 0 and lists --seconds and --thp"
	"$wl/$w" --thp maybe >"$tmp/e.out" 2>"$tmp/e.err"
	rc=$?
	[ $rc -eq 2 ] && [ ! -s "$tmp/e.out" ] && [ "$(wc -l <"$tmp/e.err")" -eq 1 ] &&
		grep -q "^$w: " "$tmp/e.err"
	ok $? "$w --thp maybe exits 2 ($rc) with one '$w: ...' line on stderr"
done

# 31: THP must be available for the rest to mean anything.
thp=$(sed -n 's/.*\[\(.*\)\].*/\1/p' /sys/kernel/mm/transparent_hugepage/enabled 2>/dev/null)
[ "$thp" = always ] || [ "$thp" = madvise ]
ok $? "transparent huge pages are available (enabled: ${thp:-missing}; need always or madvise)"

# 32-34: --thp on faults huge pages and splits one PMD per chunk (vmstat is
# system-wide: other processes can only add to the counts, so >= is safe).
# It splits huge pages, so it holds the lock of 35-37 as it runs.
f0=$(vmstat thp_fault_alloc); s0=$(vmstat thp_split_pmd)
flock -w 300 "${TMPDIR:-/tmp}/mmprof-thp-split.lock" "$wl/thp-zap" --thp on -n 8 >"$tmp/on.out" 2>"$tmp/on.err"
f1=$(vmstat thp_fault_alloc); s1=$(vmstat thp_split_pmd)
ops=$(metric "$tmp/on.out" thp-zap.ops)
[ "$ops" = 128 ] && [ $((f1 - f0)) -ge "$ops" ]
ok $? "thp-zap --thp on: thp_fault_alloc +$((f1 - f0)) >= $ops chunks"
[ $((s1 - s0)) -ge "$ops" ]
ok $? "thp-zap --thp on: thp_split_pmd +$((s1 - s0)) >= $ops chunks"
[ "$(metric "$tmp/on.out" thp-zap.anon_huge_kb)" -gt 0 ] &&
	[ "$(metric "$tmp/on.out" thp-zap.thp_split_pmd)" -ge "$ops" ]
ok $? "thp-zap --thp on reports its own huge pages and splits"
[ -s "$tmp/on.err" ] && diag "$tmp/on.err" >&2

# 35-37: --thp off: no huge page in this process, and (system-wide) next to
# no splits.  Tests that split huge pages (t051 here; anyone may join) hold
# the lock below while they do; other activity can still add splits, so a
# failure is retried for a while: a real leak of huge pages into "off"
# fails every attempt.
exec 9>"${TMPDIR:-/tmp}/mmprof-thp-split.lock"
flock -w 300 9
for attempt in 1 2 3 4 5 6 7 8 9 10; do
	s0=$(vmstat thp_split_pmd)
	"$wl/thp-zap" --thp off -n 8 >"$tmp/off.out" 2>"$tmp/off.err"
	s1=$(vmstat thp_split_pmd)
	[ $((s1 - s0)) -lt $((ops / 8)) ] && break
	echo "# attempt $attempt: thp_split_pmd +$((s1 - s0)) during --thp off, retrying" >&2
	sleep 1
done
flock -u 9
[ "$(metric "$tmp/off.out" thp-zap.anon_huge_kb)" = 0 ]
ok $? "thp-zap --thp off maps no huge page (anon_huge_kb $(metric "$tmp/off.out" thp-zap.anon_huge_kb))"
[ $((s1 - s0)) -lt $((ops / 8)) ]
ok $? "thp-zap --thp off: thp_split_pmd +$((s1 - s0)) (on: >= $ops)"
# "system" neither asks for nor refuses huge pages: the sysfs setting decides.
"$wl/thp-zap" --thp system -n 1 >"$tmp/sys.out" 2>"$tmp/sys.err"
kb=$(metric "$tmp/sys.out" thp-zap.anon_huge_kb)
if [ "$thp" = always ]; then [ "${kb:-0}" -gt 0 ]; else [ "$kb" = 0 ]; fi
ok $? "thp-zap --thp system follows the system setting ($thp: anon_huge_kb ${kb:-missing})"

done_testing
