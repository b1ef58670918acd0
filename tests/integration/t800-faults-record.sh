#!/bin/sh
# t800-faults-record: record's promises under faults (Documentation/robustness.md)
# that t102/t103 do not already prove:
#   - SIGKILL to mmprof: the previous file under the target name is intact;
#     a temporary left by a killed save (".NAME.tmp.PID", PID gone) is
#     removed by the next record to that name, other temporaries are not;
#   - the disk fills (a 64 KiB tmpfs): one line, exit 2, nothing under the
#     target name, no temporary left, a previous file intact;
#   - the ring buffer overflows: lost samples counted, stored, printed;
#   - a workload that is not executable: one line, exit 2, no file;
#   - not permitted (nobody, perf_event_paranoid 2): user space only, as
#     perf does, with one warning naming the setting; the counters say they
#     are user-only too.
# Needs root (mount, setpriv, sysctl): the project's tests run as root.

. "$(dirname "$0")/lib.sh"
tap_setup t800
paranoid=$(cat /proc/sys/kernel/perf_event_paranoid)
bg=
cleanup_hook() {
	[ -n "$bg" ] && kill -KILL $bg 2>/dev/null
	echo "$paranoid" >/proc/sys/kernel/perf_event_paranoid
	mountpoint -q "$tmp/full" && umount "$tmp/full"
}
trap 'exit 2' INT TERM HUP

wait_for() {
	i=0
	while [ ! -s "$1" ] && [ $i -lt 100 ]; do
		sleep 0.1
		i=$((i + 1))
	done
}
wl=$MMPROF_BUILD/workloads/page-fault

plan 21

# 1-3: SIGKILL to mmprof mid-recording leaves the previous file intact
"$MMPROF" record -q -e cpu-clock -o "$tmp/prev.data" -- true 2>"$tmp/err"
cp "$tmp/prev.data" "$tmp/prev.ref"
"$MMPROF" record -q -e cpu-clock -o "$tmp/prev.data" -- \
	sh -c 'echo $$ >"$0"; while :; do :; done' "$tmp/pid" >/dev/null 2>&1 &
bg=$!
wait_for "$tmp/pid"
sleep 0.3
kill -KILL $bg
wait $bg 2>/dev/null
bg=
kill -KILL "$(cat "$tmp/pid")" 2>/dev/null	# an orphan: mmprof cannot stop it once killed
cmp -s "$tmp/prev.data" "$tmp/prev.ref"
ok $? "SIGKILL to mmprof: the previous file is intact"
test "$(sqlite3 "$tmp/prev.data" 'select count(*) from runs')" = 1
ok $? "and still valid"

# a killed save's leftover: pid of a process that is gone; and two that must stay
sh -c 'exit 0' &
dead=$!
wait $dead
printf 'half' >"$tmp/.prev.data.tmp.$dead"
printf 'live' >"$tmp/.prev.data.tmp.$$"
printf 'other' >"$tmp/.other.data.tmp.$dead"
"$MMPROF" record -q -e cpu-clock -o "$tmp/prev.data" -- true 2>"$tmp/err"
test ! -e "$tmp/.prev.data.tmp.$dead" && test -e "$tmp/.prev.data.tmp.$$" &&
      test -e "$tmp/.other.data.tmp.$dead" && ! cmp -s "$tmp/prev.data" "$tmp/prev.ref"
ok $? "the next record removes the dead writer's temporary, keeps a live one's and another target's"

# 4-9: disk full (32k: a short recording's file is about 64k, and fitted
# exactly into 64k once all-zero vmstat and meminfo keys were left out)
mkdir "$tmp/full"
mount -t tmpfs -o size=32k tmpfs "$tmp/full"
# -F 999: far under any kernel.perf_event_max_sample_rate the kernel lowers
# itself to, whose warning would be a second line
"$MMPROF" record -q -e cpu-clock -F 999 -o "$tmp/full/x.data" -- "$wl" -s 0.5 >/dev/null 2>"$tmp/err"
rc=$?
test $rc -eq 2
ok $? "disk full: exit 2"
test "$(wc -l <"$tmp/err")" -eq 1 && grep -q "^mmprof: cannot write '$tmp/full/x.data': no space left on device" "$tmp/err"
ok $? "one line that says the disk is full"
[ $? -eq 0 ] || diag "$tmp/err"
test -z "$(ls -A "$tmp/full")"
ok $? "no file under the target name and no temporary"
printf 'precious\n' >"$tmp/full/x.data"
# -F 999: far under any kernel.perf_event_max_sample_rate the kernel lowers
# itself to, whose warning would be a second line
"$MMPROF" record -q -e cpu-clock -F 999 -o "$tmp/full/x.data" -- "$wl" -s 0.5 >/dev/null 2>"$tmp/err"
rc=$?
test $rc -eq 2 && test "$(cat "$tmp/full/x.data")" = precious &&
      test "$(ls -A "$tmp/full")" = x.data
ok $? "disk full over an existing file: exit 2, the file intact"
# the summary's size is not a promise on a full disk, but -o elsewhere works
"$MMPROF" record -q -e cpu-clock -o "$tmp/full.data" -- "$wl" -s 0.5 >/dev/null 2>"$tmp/err"
ok $? "the same recording fits elsewhere (the failure was the disk)"
umount "$tmp/full"
mountpoint -q "$tmp/full"; test $? -ne 0
ok $? "tmpfs unmounted"

# 10-12: ring-buffer overflow: one page, a sample for every page fault of two threads
"$MMPROF" record -m 1 -e page-faults -c 1 -o "$tmp/lost.data" -- "$wl" -t 2 -s 1 >/dev/null 2>"$tmp/err"
rc=$?
ok $rc "ring-buffer overflow: record still succeeds"
lost=$(sqlite3 "$tmp/lost.data" 'select lost from runs')
test "${lost:-0}" -gt 0
ok $? "lost samples counted and stored in runs.lost ($lost)"
grep -q "^mmprof: warning: $lost samples lost (.*%); try -m" "$tmp/err" &&
      grep -q "samples, $lost lost" "$tmp/err"
ok $? "and printed, with the remedy"
[ $? -eq 0 ] || diag "$tmp/err"

# 13-14: a workload that is not executable
printf '#!/bin/sh\ntrue\n' >"$tmp/noexec"
chmod 644 "$tmp/noexec"
"$MMPROF" record -o "$tmp/ne.data" -- "$tmp/noexec" >/dev/null 2>"$tmp/err"
rc=$?
test $rc -eq 2 && test "$(cat "$tmp/err")" = "mmprof: cannot run '$tmp/noexec': Permission denied"
ok $? "a non-executable workload: one line, exit 2"
[ $? -eq 0 ] || diag "$tmp/err"
test ! -e "$tmp/ne.data" && ! ls -A "$tmp" | grep -q '^\.ne\.data\.tmp'
ok $? "no file, no temporary"

# 15-21: not permitted
mkdir "$tmp/u"
chmod 1777 "$tmp/u"
chmod 755 "$tmp"
# t106 runs as nobody at the current value: not while this one changes it
exec 8>"${TMPDIR:-/tmp}/mmprof-paranoid.lock"
flock 8
echo 2 >/proc/sys/kernel/perf_event_paranoid
asnobody() { setpriv --reuid=nobody --regid=nogroup --clear-groups "$@"; }
for ev in "" "-e cpu-clock"; do
	# falls back to user space only, as perf does (t106 7-12 check how)
	rm -f "$tmp/u/p.data"
	asnobody "$MMPROF" record $ev -o "$tmp/u/p.data" -- true >/dev/null 2>"$tmp/err"
	rc=$?
	test $rc -eq 0 && grep -c '^mmprof: warning: kernel.perf_event_paranoid is 2 and this user has no CAP_PERFMON: sampling user space only' "$tmp/err" | grep -qx 1 &&
	      test -s "$tmp/u/p.data"
	ok $? "unprivileged, paranoid 2, ${ev:-default event}: user space only, one warning naming perf_event_paranoid, a file"
	[ $? -eq 0 ] || diag "$tmp/err"
done
rm -f "$tmp/u/p.data"
# the workload runs as nobody: from a copy nobody can reach, since the
# checkout may sit under a directory only root may enter (mktemp -d, /root)
cp "$wl" "$tmp/u/page-fault"
asnobody "$MMPROF" record -e cpu-clock:u -o "$tmp/u/p.data" -- "$tmp/u/page-fault" -s 0.3 >/dev/null 2>"$tmp/err"
rc=$?
ok $rc "asked for user-only sampling (-e cpu-clock:u): it records"
[ $rc -eq 0 ] || diag "$tmp/err"
test "$(sqlite3 "$tmp/u/p.data" 'select s.s from events e join strings s on s.id = e.name')" = cpu-clock:u
ok $? "the event is stored as cpu-clock:u"
test "$(sqlite3 "$tmp/u/p.data" "select count(*) from counters c join strings s on s.id = c.name where s.s like '%:u' and c.supported")" -gt 0 &&
      test "$(sqlite3 "$tmp/u/p.data" "select count(*) from counters c join strings s on s.id = c.name where s.s not like '%:u' and c.supported
		and s.s not in ('page-faults', 'minor-faults', 'major-faults', 'context-switches')")" = 0
# the fault and switch counts are the kernel's own accounting (rusage, /proc), full counts at any paranoid level
ok $? "counters that could only count user space are named NAME:u, none passes for a full count"
grep -q "kernel.perf_event_paranoid" "$tmp/err" && ! grep -q 'kptr_restrict=0)' "$tmp/err"
ok $? "the kallsyms warning names the setting that hides kernel addresses"
[ $? -eq 0 ] || diag "$tmp/err"
echo "$paranoid" >/proc/sys/kernel/perf_event_paranoid
flock -u 8
test "$(cat /proc/sys/kernel/perf_event_paranoid)" = "$paranoid"
ok $? "perf_event_paranoid restored ($paranoid)"

done_testing
