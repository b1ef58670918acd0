#!/bin/sh
# t114-record-attach-children: record -p of a process whose work runs in a
# child it started before the attach (a shell waiting on page-fault) takes
# no sample, and says so, naming the child and --children (issue 27,
# point 8); with --children the child is attached to and its work is in
# the profile; -p of a sleeping process with no children says it slept;
# --children without -p is an error.

. "$(dirname "$0")/lib.sh"
tap_setup t114

# a shell that does nothing but wait on its busy child (': ' keeps it from exec'ing)
# (-s 60, killed below: a 6 s child and a fixed 0.5 s head start could end
# or not yet have begun on a loaded machine; record starts once it runs)
sh -c "$wl/page-fault -s 60 >/dev/null; :" &
shpid=$!
wait_child $shpid page-fault
"$MMPROF" record -q -p $shpid --duration 0.8 -o "$tmp/c0.data" >/dev/null 2>"$tmp/err0"
ok $? "record -p of the waiting shell: exit 0"
grep -q "^mmprof: warning: no samples: the attached process did not run on a CPU while attached, and 1 child process (pid [0-9]*) already ran when it began: the work is probably theirs; record -p $shpid --children attaches to them too" "$tmp/err0"
ok $? "no samples: the warning names the running child and --children"
diag "$tmp/err0"
"$MMPROF" record -q -p $shpid --children --duration 0.8 -o "$tmp/c1.data" >/dev/null 2>"$tmp/err1"
ok $? "record -p --children: exit 0"
"$MMPROF" report --keys "$tmp/c1.data" >"$tmp/keys" 2>&1
grep -q "^perf-profile\.children\.cpu-clock\.[a-z_]*page_fault" "$tmp/keys" && ! grep -q "no samples" "$tmp/err1"
ok $? "--children: the child's page faults are in the profile, no warning"
diag "$tmp/err1"
child=$(sed -n 's/.*child process (pid \([0-9]*\)).*/\1/p' "$tmp/err0")
kill $shpid ${child:+$child} $(pgrep -P $shpid) 2>/dev/null
wait

sleep 30 &
spid=$!
"$MMPROF" record -q -p $spid --duration 0.3 -o "$tmp/s.data" >/dev/null 2>"$tmp/err2"
rc=$?
kill $spid
test $rc -eq 0 && grep -q "^mmprof: warning: no samples: the attached process did not run on a CPU while attached (asleep" "$tmp/err2"
ok $? "-p of a sleeping process without children: exit 0, a warning that it slept"

"$MMPROF" record --children -o "$tmp/x.data" -- true >/dev/null 2>"$tmp/err3"
test $? -eq 2 && grep -q "^mmprof: --children follows the children of -p's processes" "$tmp/err3"
ok $? "--children without -p: exit 2, one line"

done_testing
