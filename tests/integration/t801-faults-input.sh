#!/bin/sh
# t801-faults-input: bad input to every reader gives one line on stderr,
# exit 2, no crash (a sanitizer or a signal would show as another status)
# and nothing on stdout: unknown options and events, malformed gates, empty
# files, files of another format, newer format versions, two files with
# incompatible events.  Fuzzing (tests/fuzz, `make fuzz`) covers the same
# parsers with random input; this test pins the messages users see.

. "$(dirname "$0")/lib.sh"
tap_setup t801

# bad DESCRIPTION PATTERN ARGS...: exit 2, one line matching PATTERN, no stdout
bad() {
	desc=$1
	pat=$2
	shift 2
	"$MMPROF" "$@" >"$tmp/out" 2>"$tmp/err"
	rc=$?
	test $rc -eq 2 && test "$(wc -l <"$tmp/err")" -eq 1 && grep -q -- "$pat" "$tmp/err" &&
	      test ! -s "$tmp/out"
	ok $? "$desc"
	[ $rc -eq 2 ] && [ "$(wc -l <"$tmp/err")" -eq 1 ] || { echo "# rc=$rc"; sed 's/^/# /' "$tmp/err"; }
}

wl=$MMPROF_BUILD/workloads/page-fault
"$MMPROF" record -q -e cpu-clock -o "$tmp/a.data" -- "$wl" -s 0.2 >/dev/null 2>&1
"$MMPROF" record -q -e page-faults -o "$tmp/pf.data" -- "$wl" -s 0.2 >/dev/null 2>&1
: >"$tmp/empty.data"
echo 'not a profile' >"$tmp/text.data"
head -c 3000 "$tmp/a.data" >"$tmp/trunc.data"
sqlite3 "$tmp/foreign.data" 'create table t(x); insert into t values (1);'
cp "$tmp/a.data" "$tmp/newer.data"
sqlite3 "$tmp/newer.data" 'pragma user_version = 99'
printf '\211PNG\r\n\032\n' >"$tmp/png.data"
printf 'PERFILE2\150\0\0\0\0\0\0\0' >"$tmp/perf.data"

plan 31

for cmd in record report diff strip export flamegraph; do
	bad "$cmd: an unknown option" "unknown option '--no-such-option'" $cmd --no-such-option
done
# a value given to a long flag: glibc reports it with optopt = the option's
# long-option code, which once printed as a byte ('-\xe8')
bad "diff: a value for a flag" "option '--color' takes no value" diff --color=always "$tmp/a.data" "$tmp/a.data"
bad "report: a value for a flag" "option '--tree' takes no value" report --tree=x "$tmp/a.data"
bad "diff: a value for a negated flag" "option '--no-color' takes no value" diff --no-color=x "$tmp/a.data" "$tmp/a.data"
bad "an unknown command" "'frobnicate' is not a command" frobnicate
bad "a command one letter off" "'dif' is not a command; did you mean 'mmprof diff'?" dif
bad "diff: a perf.data file" "a perf.data file, not an mmprof one; 'mmprof import $tmp/perf.data' converts it" \
	diff "$tmp/perf.data" "$tmp/a.data"
bad "record: an unknown event" "unknown event 'no-such-event'" record -e no-such-event -o "$tmp/x.data" -- true
bad "record: an unknown modifier" "unknown modifier 'z'" record -e cpu-clock:z -o "$tmp/x.data" -- true
bad "record: an unknown tracepoint" "unknown tracepoint 'sched:no_such'" record -e sched:no_such -o "$tmp/x.data" -- true
bad "record: a PMU that does not exist" "unknown PMU 'nopmu'" record -e nopmu/config=1/ -o "$tmp/x.data" -- true
bad "record: a path in a tracepoint name" "unknown event" record -e '..:..' -o "$tmp/x.data" -- true
bad "diff: a gate without a number" "gate 'x >': column 4: expected a number" diff --fail-on 'x >' "$tmp/a.data" "$tmp/a.data"
bad "diff: a gate without an operator" "column 3: expected one of" diff --fail-on 'x 1' "$tmp/a.data" "$tmp/a.data"
bad "diff: a gate with trailing text" "unexpected text after the number" diff --fail-on 'x > 1 y' "$tmp/a.data" "$tmp/a.data"
bad "diff: a gate with inf" "expected a number" diff --fail-on 'x > inf' "$tmp/a.data" "$tmp/a.data"
for f in empty text trunc foreign newer png; do
	case $f in
	empty) pat="not an mmprof data file (the file is empty)" ;;
	text|png) pat="not an mmprof data file" ;;
	foreign) pat="another application" ;;
	newer) pat="format 99 > supported 5; upgrade mmprof" ;;
	trunc) pat="cannot \(open\|load\) '$tmp/trunc.data'" ;;
	esac
	bad "report: a file that is $f" "$pat" report --keys "$tmp/$f.data"
done
bad "diff: a file of another format" "not an mmprof data file" diff "$tmp/text.data" "$tmp/a.data"
bad "diff: two files with incompatible events" "DIFFERENT SAMPLING EVENTS: base used 'cpu-clock', new used 'page-faults'" \
	diff "$tmp/a.data" "$tmp/pf.data"
bad "strip: a newer format is not rewritten" "format 99 > supported 5" strip "$tmp/newer.data" -o "$tmp/s.data"
test ! -e "$tmp/s.data" && test "$(sqlite3 "$tmp/newer.data" 'pragma user_version')" = 99
ok $? "and neither the input nor an output is touched"

done_testing
