#!/bin/sh
# t106-record-unprivileged: record as a user without CAP_PERFMON (nobody),
# at whatever kernel.perf_event_paranoid is now (the test does not change
# it): what works at that level records; what does not is refused in one
# line that names the value, what it allows (perf's levels: 2 user space of
# one's own processes, 1 also the kernel, 0 also CPU-wide, -1 everything)
# and what works instead, never "set it to -1" for everything.
# Needs root to become nobody (setpriv): the project's tests run as root.

. "$(dirname "$0")/lib.sh"
tap_setup t106

# t800 sets the value to 2 for a while: wait until it has put it back
exec 9>"${TMPDIR:-/tmp}/mmprof-paranoid.lock"
flock 9
v=$(cat /proc/sys/kernel/perf_event_paranoid)
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

plan 6

# 1: the default event (cycles, else cpu-clock) includes the kernel
if [ "$v" -ge 3 ]; then
	want="mmprof: cannot open event 'cycles': Permission denied; ${head}run as root (or \`sysctl kernel.perf_event_paranoid=2\` allows user-space-only recording of your own processes)"
elif [ "$v" -eq 2 ]; then
	want="mmprof: cannot open event 'cycles': Permission denied; ${head}add :u (-e $dflt), or run as root (\`sysctl kernel.perf_event_paranoid=1\` allows the kernel too)"
else
	want=ok
fi
run "the default event, a command" "$want" -- true

# 2: an explicit event with the kernel
[ "$want" = ok ] || want=$(echo "$want" | sed "s/'cycles'/'cpu-clock'/; s/-e $dflt/-e cpu-clock:u/")
run "-e cpu-clock, a command" "$want" -e cpu-clock -- true

# 3: user space only, one's own process: what 2 allows
if [ "$v" -ge 3 ]; then
	want="mmprof: cannot open event 'cpu-clock:u': Permission denied; ${head}run as root (or \`sysctl kernel.perf_event_paranoid=2\` allows user-space-only recording of your own processes)"
else
	want=ok
fi
run "-e cpu-clock:u, a command" "$want" -e cpu-clock:u -- true

# 4: CPU-wide needs 0 or less
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

done_testing
