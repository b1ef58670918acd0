#!/bin/sh
# t823-foreign-pid-hints: as nobody, record -p and stat -p on root's
# process (issue 14, item 10).  The kernel refuses perf events on another
# user's process at every kernel.perf_event_paranoid (its ptrace check), so
# the remedy must be root or that user; record said "add :u" and stat
# "paranoid 1", neither of which works.  At paranoid 2 and 1:
#   - record -p (default event, -e cpu-clock:u) and stat -p: exit 2, the
#     error names the process as another user's and the remedy, suggests
#     neither :u nor a paranoid setting;
#   - nobody's own process keeps the paranoid hint (add :u).
# Needs root (setpriv, sysctl): the project's tests run as root.

. "$(dirname "$0")/lib.sh"
tap_setup t823
paranoid=$(cat /proc/sys/kernel/perf_event_paranoid)
bg=
mine=
cleanup_hook() {
	[ -n "$bg" ] && kill -KILL $bg 2>/dev/null
	[ -n "$mine" ] && kill -KILL $mine 2>/dev/null
	echo "$paranoid" >/proc/sys/kernel/perf_event_paranoid
}
trap 'exit 2' INT TERM HUP

plan 10

mkdir "$tmp/u"
chmod 755 "$tmp"
chmod 1777 "$tmp/u"
# what nobody runs, where nobody can reach it (the checkout may sit under
# a directory only root may enter)
cp "$MMPROF" "$tmp/u/mmprof"
asnobody() { setpriv --reuid=65534 --regid=65534 --clear-groups "$@"; }
sleep 60 &
bg=$!
setpriv --reuid=65534 --regid=65534 --clear-groups sleep 60 &	# not the function: $! is sleep
mine=$!

# t800 and t106 change or rely on the setting: not at the same time
exec 8>"${TMPDIR:-/tmp}/mmprof-paranoid.lock"
flock 8
# foreign CMD...: as nobody on root's process; the last line of its
# stderr (warnings first) in $tmp/err, its status returned
foreign() {
	asnobody "$tmp/u/mmprof" "$@" >/dev/null 2>"$tmp/all"
	rc=$?
	grep -v '^mmprof: warning:' "$tmp/all" >"$tmp/err"
	return $rc
}
says_foreign() {
	test "$1" -eq 2 && test "$(wc -l <"$tmp/err")" -eq 1 &&
		grep -q "process $bg is another user's (uid 0): .*CAP_SYS_PTRACE.*: run as root, or as uid 0$" "$tmp/err" &&
		! grep -q 'add :u\|paranoid=' "$tmp/err"
}
for v in 2 1; do
	echo $v >/proc/sys/kernel/perf_event_paranoid
	foreign record -o "$tmp/u/x.data" -p $bg --duration 0.2
	says_foreign $?
	ok $? "paranoid $v, record -p root's process: exit 2, says it is another user's and what would work"
	[ $? -eq 0 ] || diag "$tmp/err"
	foreign record -e cpu-clock:u -o "$tmp/u/x.data" -p $bg --duration 0.2
	says_foreign $?
	ok $? "paranoid $v, record -e cpu-clock:u -p root's process: the same"
	[ $? -eq 0 ] || diag "$tmp/err"
	foreign stat -p $bg --duration 0.2
	says_foreign $?
	ok $? "paranoid $v, stat -p root's process: the same"
	[ $? -eq 0 ] || diag "$tmp/err"
done
test ! -e "$tmp/u/x.data"
ok $? "no file written"

echo 2 >/proc/sys/kernel/perf_event_paranoid
foreign record -o "$tmp/u/x.data" -p $mine --duration 0.2
rc=$?
test $rc -eq 0 && grep -q 'sampling user space only, as perf does' "$tmp/all" && ! grep -q "another user's" "$tmp/all"
ok $? "paranoid 2, record -p nobody's own process: user space only, as perf does (no foreign-process hint)"
[ $? -eq 0 ] || diag "$tmp/err"
foreign record -e cpu-clock:u -o "$tmp/u/y.data" -p $mine --duration 0.3
ok $? "and with :u it records"
[ $? -eq 0 ] || diag "$tmp/err"
echo "$paranoid" >/proc/sys/kernel/perf_event_paranoid
flock -u 8
test "$(cat /proc/sys/kernel/perf_event_paranoid)" = "$paranoid"
ok $? "perf_event_paranoid restored ($paranoid)"

done_testing
