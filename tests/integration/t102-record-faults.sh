#!/bin/sh
# t102-record-faults: what record promises when things go wrong.
#   - a missing binary: one line, exit 2, no file (and no temporary left);
#   - an existing target survives a failed record byte for byte;
#   - a workload killed by SIGSEGV or SIGKILL: a valid file, its status
#     stored and printed, exit 3 (the workload failed; t109 has more);
#   - bad options and numbers: one line each, exit 2, nothing written;
#   - -F above kernel.perf_event_max_sample_rate (which the kernel lowers
#     by itself on a busy machine): sampled at the limit with a warning, the
#     file says so; --strict-freq refuses in one line;
#   - an -o name taken by a symlink (dangling or not) or a folder: refused
#     in one line before the workload starts, the link and its target intact;
#   - a raw event (-e r00c0) is named as typed, in the file or in the error.

. "$(dirname "$0")/lib.sh"
tap_setup t102

# usage_error DESCRIPTION ARGS...: exit 2, exactly one line, no file
usage_error() {
	desc=$1
	shift
	rm -f "$tmp/u.data"
	"$MMPROF" record -o "$tmp/u.data" "$@" >"$tmp/uout" 2>"$tmp/uerr"
	rc=$?
	lines=$(wc -l <"$tmp/uerr")
	test $rc -eq 2 && test "$lines" -eq 1 && test ! -e "$tmp/u.data" && test ! -s "$tmp/uout"
	ok $? "$desc: exit 2, one line, no file"
	[ $rc -eq 2 ] && [ "$lines" -eq 1 ] || { echo "# rc=$rc"; diag "$tmp/uerr"; }
}

plan 45

# 1-4: missing binary
"$MMPROF" record -o "$tmp/m.data" -- /nonexistent/mmprof-nothing arg >"$tmp/out" 2>"$tmp/err"
rc=$?
test $rc -eq 2
ok $? "a missing binary exits 2"
test "$(cat "$tmp/err")" = "mmprof: cannot run '/nonexistent/mmprof-nothing': No such file or directory"
ok $? "and says why in one line"
[ $? -eq 0 ] || diag "$tmp/err"
test ! -e "$tmp/m.data"
ok $? "no file is written"
ls -A "$tmp" | grep -q tmp; test $? -ne 0
ok $? "no temporary file is left"

# 5-6: an existing target survives a failed record
printf 'precious\n' >"$tmp/keep.data"
"$MMPROF" record -o "$tmp/keep.data" -- /nonexistent/mmprof-nothing 2>/dev/null
test $? -eq 2
ok $? "a failed record over an existing file exits 2"
test "$(cat "$tmp/keep.data")" = precious
ok $? "the existing file is intact"

# 7-10: SIGSEGV
"$MMPROF" record -o "$tmp/s.data" -- sh -c 'i=0; while [ $i -lt 30000 ]; do i=$((i+1)); done; kill -SEGV $$' \
	>"$tmp/out" 2>"$tmp/err"
rc=$?
test $rc -eq 3
ok $? "a workload killed by SIGSEGV: record writes the file and exits 3"
[ $rc -eq 3 ] || diag "$tmp/err"
test "$(sqlite3 "$tmp/s.data" 'select exit_code || "/" || term_signal from runs')" = "-1/11"
ok $? "the file is valid and stores term_signal 11"
test "$(sqlite3 "$tmp/s.data" 'select samples > 0 from runs')" = 1
ok $? "the samples before the crash are kept"
grep -qx 'mmprof: workload killed by SIGSEGV in run 0' "$tmp/err"
ok $? "the status is printed"

# 11-12: SIGKILL in the second of two runs
"$MMPROF" record -q -r 2 -o "$tmp/k.data" -- sh -c '[ -e "$0" ] && kill -KILL $$; touch "$0"' "$tmp/once" \
	>"$tmp/out" 2>"$tmp/err"
rc=$?
test $rc -eq 3
ok $? "a workload killed by SIGKILL in run 1 (the second): exit 3"
test "$(sqlite3 "$tmp/k.data" 'select group_concat(term_signal) from runs')" = "0,9" &&
      grep -qx 'mmprof: workload killed by SIGKILL in run 1' "$tmp/err"
ok $? "both runs stored, the second with signal 9, and said so"

# 13: a non-zero exit status is stored and printed, the file written, exit 3
"$MMPROF" record -q -o "$tmp/e.data" -- sh -c 'exit 3' 2>"$tmp/err"
rc=$?
test $rc -eq 3 && test "$(sqlite3 "$tmp/e.data" 'select exit_code from runs')" = 3 &&
      grep -qx 'mmprof: workload exited with status 3 in run 0' "$tmp/err"
ok $? "exit status 3 stored and printed"

# 14-30: bad input
usage_error "an unknown option" --no-such-option -- true
usage_error "an unknown short option" -Z -- true
usage_error "a missing option value" -F
usage_error "no target" -F 99
usage_error "-p and -a (a command goes with either)" -p 1 -a -- true
usage_error "-p and -a" -p 1 -a
usage_error "-F not a number" -F abc -- true
usage_error "-F 0" -F 0 -- true
usage_error "-c 0" -c 0 -- true
usage_error "-F with -c" -F 99 -c 1000 -- true
usage_error "-r 0" -r 0 -- true
usage_error "-r with -a" -r 2 -a --duration 1
usage_error "-m not a power of 2" -m 3 -- true
usage_error "-I 5" -I 5 -- true
usage_error "--duration -1" --duration -1 -- true
usage_error "-p garbage" -p 12x
usage_error "-C with -p (-C implies -a)" -C 0 -p 1 -- true

# 31-34: above the kernel's current limit, whatever it is now
max=$(cat /proc/sys/kernel/perf_event_max_sample_rate)
above=$((max + 1))
usage_error "--strict-freq with -F $above above the limit $max" --strict-freq -F $above -- true
"$MMPROF" record -o "$tmp/f.data" -F $above -- true >"$tmp/out" 2>"$tmp/err"
rc=$?
test $rc -eq 0
ok $? "-F $above above the limit $max: recorded, exit 0"
grep -q "^mmprof: warning: -F $above is above kernel.perf_event_max_sample_rate; sampling at $max Hz" "$tmp/err"
ok $? "with one warning naming the frequency used"
[ $? -eq 0 ] || diag "$tmp/err"
test "$(sqlite3 "$tmp/f.data" "select group_concat(sample) from events where freq = 1; select value from meta where key = 'sample_freq_lowered'" | tr '\n' ' ')" = "$max $max "
ok $? "the file keeps the frequency used (events.sample, meta sample_freq_lowered)"

# 35-43: -o is a symlink or a folder: refused up front, the workload never runs
printf 'target\n' >"$tmp/target"
ln -s "$tmp/target" "$tmp/link.data"
ln -s "$tmp/nowhere" "$tmp/dangling.data"
mkdir "$tmp/dir.data"
for o in link.data dangling.data dir.data; do
	"$MMPROF" record -o "$tmp/$o" -- sh -c ': >"$0"' "$tmp/ran-$o" >"$tmp/out" 2>"$tmp/err"
	rc=$?
	test $rc -eq 2 && test "$(wc -l <"$tmp/err")" -eq 1 &&
	      grep -qx "mmprof: cannot write '$tmp/$o': it exists and is not a regular file; remove it or choose another name" "$tmp/err"
	ok $? "-o $o: exit 2 and one line"
	[ $rc -eq 2 ] || { echo "# rc=$rc"; diag "$tmp/err"; }
	test ! -e "$tmp/ran-$o"
	ok $? "-o $o: refused before the workload ran"
	case $o in
	link.data)	test -L "$tmp/$o" && test "$(cat "$tmp/target")" = target; ok $? \
				"the symlink and its target are intact" ;;
	dangling.data)	test -L "$tmp/$o" && test ! -e "$tmp/nowhere"; ok $? \
				"the dangling symlink stays, nothing is created through it" ;;
	dir.data)	test -d "$tmp/$o" && test -z "$(ls -A "$tmp/$o")"; ok $? \
				"the folder stays empty" ;;
	esac
done

# 44-45: -e r00c0 (PERF_TYPE_RAW, config 0xc0): recorded where the core PMU
# takes it, else refused in one line; either way named as typed, not 'rc0'
"$MMPROF" record -q -o "$tmp/r.data" -e r00c0 -- true >"$tmp/out" 2>"$tmp/err"
rc=$?
if [ $rc -eq 0 ]; then
	test "$(sqlite3 "$tmp/r.data" "select name || '/' || type || '/' || config from events_v")" = "r00c0/4/0xc0"
	ok $? "-e r00c0 recorded as raw event r00c0, config 0xc0"
	test "$(sqlite3 "$tmp/r.data" "select value from meta where key = 'events_used'")" = r00c0
	ok $? "events_used names it as typed"
else
	test $rc -eq 2 && test "$(wc -l <"$tmp/err")" -eq 1
	ok $? "-e r00c0 without a PMU for it: exit 2, one line"
	grep -q "^mmprof: cannot open event 'r00c0': " "$tmp/err"
	ok $? "the error quotes 'r00c0' as typed"
	diag "$tmp/err"
fi

done_testing
