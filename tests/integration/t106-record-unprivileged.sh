#!/bin/sh
# t106-record-unprivileged: record as a user without CAP_PERFMON (nobody),
# at whatever kernel.perf_event_paranoid is now (the test does not change
# it): what works at that level records; what does not is refused in one
# line that names the value, what it allows (perf's levels: 2 user space of
# one's own processes, 1 also the kernel, 0 also CPU-wide, -1 everything)
# and what works instead, never "set it to -1" for everything.  At 2 an
# event that includes the kernel falls back to user space only, as perf
# does (#18 point 6): one warning naming the event really tried (cycles:u,
# or cpu-clock:u where there is no PMU), a file; 7-12 set 2 for that.
# Needs root to become nobody (setpriv): the project's tests run as root.

. "$(dirname "$0")/lib.sh"
tap_setup t106

# t800 sets the value to 2 for a while: wait until it has put it back
exec 9>"${TMPDIR:-/tmp}/mmprof-paranoid.lock"
flock 9
v=$(cat /proc/sys/kernel/perf_event_paranoid)
cleanup_hook() { echo "$v" >/proc/sys/kernel/perf_event_paranoid; }
trap 'exit 2' INT TERM HUP
case $v in
-*)	allows="everything" ;;
0)	allows="any event on their own processes and CPU-wide (-a), except tracepoints" ;;
1)	allows="their own processes, user and kernel space, but not CPU-wide (-a)" ;;
2)	allows="only the user space of their own processes" ;;
*)	allows="no perf events at all" ;;
esac
if [ -e /sys/bus/event_source/devices/cpu ] || [ -e /sys/bus/event_source/devices/cpu_core ]; then
	dflt=cycles:u
else
	dflt=cpu-clock:u
fi
head="kernel.perf_event_paranoid is $v, which allows users without CAP_PERFMON $allows: "

mkdir "$tmp/u"
chmod 1777 "$tmp/u"
chmod 755 "$tmp"
asnobody() { setpriv --reuid=65534 --regid=65534 --clear-groups "$@"; }

# run DESC WANT ARGS...: record as nobody; WANT is "ok" (exit 0 and a file)
# or the expected error line after "mmprof: cannot open event 'EV': ..."
# (exit 2, that one line besides warnings, no file)
run() {
	desc=$1 want=$2
	shift 2
	rm -f "$tmp/u/n.data"
	asnobody "$MMPROF" record -q -o "$tmp/u/n.data" "$@" >/dev/null 2>"$tmp/err"
	rc=$?
	grep -v '^mmprof: warning:' "$tmp/err" >"$tmp/errs"
	if [ "$want" = ok ]; then
		test $rc -eq 0 && test -s "$tmp/u/n.data"
		ok $? "paranoid $v, $desc: records"
	else
		test $rc -eq 2 && test "$(wc -l <"$tmp/errs")" -eq 1 && test ! -e "$tmp/u/n.data" &&
		      test "$(cat "$tmp/errs")" = "$want"
		ok $? "paranoid $v, $desc: exit 2, one line: ${want#mmprof: }"
		[ $rc -eq 2 ] && [ "$(cat "$tmp/errs")" = "$want" ] || { echo "# rc=$rc"; diag "$tmp/err"; }
	fi
}

plan 15

# 1: the default event (cycles, else cpu-clock) includes the kernel: at 2
# it falls back to user space only (7-12 check how)
if [ "$v" -ge 3 ]; then
	want="mmprof: cannot open event '${dflt%:u}': Permission denied; ${head}run as root (or \`sysctl kernel.perf_event_paranoid=2\` allows user-space-only recording of your own processes)"
else
	want=ok
fi
run "the default event, a command" "$want" -- true

# 2: an explicit event with the kernel
[ "$want" = ok ] || want=$(echo "$want" | sed "s/'${dflt%:u}'/'cpu-clock'/")
run "-e cpu-clock, a command" "$want" -e cpu-clock -- true

# 3: user space only, one's own process: what 2 allows
if [ "$v" -ge 3 ]; then
	want="mmprof: cannot open event 'cpu-clock:u': Permission denied; ${head}run as root (or \`sysctl kernel.perf_event_paranoid=2\` allows user-space-only recording of your own processes)"
else
	want=ok
fi
run "-e cpu-clock:u, a command" "$want" -e cpu-clock:u -- true

# 4: CPU-wide needs 0 or less (no fallback: -a is refused at 2 with :u too)
if [ "$v" -ge 3 ]; then
	: # as 3
elif [ "$v" -ge 1 ]; then
	want="mmprof: cannot open event 'cpu-clock:u': Permission denied; ${head}-a needs root or \`sysctl kernel.perf_event_paranoid=0\`; or record a command or -p PID$(test "$v" -ge 2 && echo ' with :u events')"
else
	want=ok
fi
run "-e cpu-clock:u -a" "$want" -e cpu-clock:u -a --duration 0.1

# 5: someone else's process (init, root's), even user space only: the
# kernel's ptrace check, at every paranoid level (t823 has more)
want="mmprof: cannot open event 'cpu-clock:u': Permission denied; process 1 is another user's (uid 0): perf events on it need CAP_SYS_PTRACE whatever kernel.perf_event_paranoid is, so neither :u nor a lower setting helps: run as root, or as uid 0"
run "-e cpu-clock:u -p 1 (root's)" "$want" -e cpu-clock:u -p 1 --duration 0.1

# 6: tracepoints: tracefs is root's (0700), else their raw data needs -1
if ! asnobody test -r /sys/kernel/tracing/events -a -x /sys/kernel/tracing/events; then
	asnobody "$MMPROF" record -q -o "$tmp/u/n.data" -e kmem:mm_page_alloc -- true >/dev/null 2>"$tmp/err"
	rc=$?
	test $rc -eq 2 && test "$(cat "$tmp/err")" = "mmprof: cannot read the tracepoints in /sys/kernel/tracing: Permission denied; run as root"
	ok $? "a tracepoint, tracefs closed to nobody: says so (not 'cannot mount tracefs')"
	[ $? -eq 0 ] || diag "$tmp/err"
else
	[ "$v" -ge 3 ] || want="mmprof: cannot open event 'kmem:mm_page_alloc': Permission denied; ${head}tracepoints need root or \`sysctl kernel.perf_event_paranoid=-1\`"
	[ "$v" -ge 0 ] || want=ok
	run "-e kmem:mm_page_alloc" "$want" -e kmem:mm_page_alloc -- true
fi

# 7-12: at 2, as perf: user space only, one warning, the event really tried
echo 2 >/proc/sys/kernel/perf_event_paranoid
# the workload runs as nobody: from a copy nobody can reach, since the
# checkout may sit under a directory only root may enter (mktemp -d, /root)
cp "$wl/page-fault" "$tmp/u/page-fault"
note="mmprof: warning: kernel.perf_event_paranoid is 2 and this user has no CAP_PERFMON: sampling user space only, as perf does ($dflt); kernel functions are not in the profile (root, or \`sysctl kernel.perf_event_paranoid=1\`, records them)"
rm -f "$tmp/u/d.data"
asnobody "$MMPROF" record -o "$tmp/u/d.data" -- "$tmp/u/page-fault" -s 0.5 >/dev/null 2>"$tmp/err"
rc=$?
test $rc -eq 0 && test -s "$tmp/u/d.data"
ok $? "paranoid 2, the default event as nobody: records (it exited 2 naming 'cycles' before)"
[ $rc -eq 0 ] || { echo "# rc=$rc"; diag "$tmp/err"; }
test "$(grep -c '^mmprof: warning:' "$tmp/err")" -eq 1 && grep -qxF "$note" "$tmp/err"
ok $? "one warning, naming $dflt, the event really tried"
[ $? -eq 0 ] || diag "$tmp/err"
test "$(sqlite3 "$tmp/u/d.data" 'select s.s from events e join strings s on s.id = e.name')" = "$dflt"
ok $? "the file's event is $dflt"
"$MMPROF" report --keys "$tmp/u/d.data" >"$tmp/keys" 2>/dev/null
ev=$(echo "$dflt" | tr : -)
grep -q "^perf-profile\.self\.$ev\.pf_touch_pages: " "$tmp/keys" && ! grep -q "^perf-profile\.self\.$ev\.\(exc_page_fault\|clear_page\|handle_mm_fault\)" "$tmp/keys"
ok $? "the profile has the workload's user function, no kernel function"
# the header's clocks are in msec whatever the modifier ("task-clock:u
# 555481979" before: the -clock test saw the ':u')
"$MMPROF" report "$tmp/u/d.data" 2>/dev/null | grep '^# counters: ' >"$tmp/hdr"
grep -q ' task-clock:u [0-9]*\.[0-9][0-9] msec,' "$tmp/hdr" && grep -q ' cpu-clock:u [0-9]*\.[0-9][0-9] msec,' "$tmp/hdr"
ok $? "report's header gives task-clock:u and cpu-clock:u in msec"
[ $? -eq 0 ] || diag "$tmp/hdr"
rm -f "$tmp/u/e.data"
asnobody "$MMPROF" record -q -e cpu-clock -o "$tmp/u/e.data" -- "$tmp/u/page-fault" -s 0.2 >/dev/null 2>"$tmp/err"
test $? -eq 0 && grep -qx "mmprof: warning: kernel.perf_event_paranoid is 2 and this user has no CAP_PERFMON: sampling user space only, as perf does (cpu-clock:u); .*" "$tmp/err" &&
	test "$(sqlite3 "$tmp/u/e.data" 'select s.s from events e join strings s on s.id = e.name')" = cpu-clock:u
ok $? "-e cpu-clock: falls back the same (even with -q: a warning), stored as cpu-clock:u"
[ $? -eq 0 ] || diag "$tmp/err"
rm -f "$tmp/u/a.data"
asnobody "$MMPROF" record -q -o "$tmp/u/a.data" -a --duration 0.1 >/dev/null 2>"$tmp/err"
test $? -eq 2 && grep -q "^mmprof: cannot open event '${dflt%:u}': Permission denied; .*-a needs root" "$tmp/err" &&
	test ! -e "$tmp/u/a.data"
ok $? "-a: no fallback (refused at 2 anyway), the error names '${dflt%:u}', the event tried"
[ $? -eq 0 ] || diag "$tmp/err"
echo "$v" >/proc/sys/kernel/perf_event_paranoid
test "$(cat /proc/sys/kernel/perf_event_paranoid)" = "$v"
ok $? "perf_event_paranoid restored ($v)"

# 14: the man page says so
grep -q 'user space only' "$here/man/mmprof-record.1" && grep -q 'paranoid' "$here/man/mmprof-record.1"
ok $? "the man page describes the fallback"

done_testing
