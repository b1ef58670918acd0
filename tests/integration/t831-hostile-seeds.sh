#!/bin/sh
# t831-hostile-seeds: every reader, on every hostile seed of the fuzzers, in
# bounded time and memory (issue 14, "done when").  The seeds of
# tests/fuzz/corpus/datafile/ become files with seed-to-data (the fuzzer's
# own rule: bytes, or SQL on a small valid file); those of
# tests/fuzz/corpus/perfscript/ go through `mmprof import`.  Each file is
# read by every view of report, flamegraph (one file and differential),
# every export format, diff (against a real recording and against itself)
# and strip, each under 5 s and 512 MiB.  Each must either succeed or
# refuse the file with one line and exit 2: never time out, crash, trip a
# sanitizer (exit 1 here: the sanitizer's exitcode), or write a control
# byte or a bidi control of a profiled program's names to a text output.
# A seed added to the corpus is checked here without an edit.

. "$(dirname "$0")/lib.sh"
tap_setup t831

seeds=$here/tests/fuzz/corpus
tool=$MMPROF_BUILD/tests/seed-to-data
if [ -n "${MMPROF_SANITIZE:-}" ]; then
	secs=30 as_kb=	# ASan reserves terabytes of address space
else
	secs=5 as_kb=$((512 * 1024))
fi

# limited ARGS...: mmprof ARGS under the limits, outputs in $tmp/out, $tmp/err
limited() {
	(
		[ -n "$as_kb" ] && ulimit -v "$as_kb"
		exec timeout "$secs" "$MMPROF" "$@"
	) >"$tmp/out" 2>"$tmp/err"
}

# no_controls FILE: no byte below 0x20 but tab and newline, no DEL, no
# bidi control (U+061C, U+200E/F, U+202A-E, U+2066-9, as UTF-8)
bidi=$(printf '\330\234\|\342\200[\216\217\252-\256]\|\342\201[\246-\251]')
no_controls() {
	! LC_ALL=C grep -q "$(printf '[\001-\010\013-\037\177]')" "$1" &&
	! LC_ALL=C grep -q "$bidi" "$1"
}

# bounded NAME FILE ARGS...: mmprof ARGS... FILE succeeds with clean text
# output, or refuses with one line and exit 2
bounded() {
	name=$1 f=$2
	shift 2
	limited "$@" "$f"
	rc=$?
	case $rc in
	0) no_controls "$tmp/out" && no_controls "$tmp/err" ;;
	2) test "$(wc -l <"$tmp/err")" -eq 1 && grep -q '^mmprof' "$tmp/err" && no_controls "$tmp/err" ;;
	*) false ;;
	esac
	ok $? "$name: ${*%% -o*} (exit $rc)"
	case $rc in
	0|2) ;;
	*) head -5 "$tmp/err" | diag ;;
	esac
}

# readers NAME FILE: every reader on FILE
readers() {
	for r in "report" "report --keys --runs" "report --tree" "report --tree -g caller" \
		"report --folded --comm" "report --folded --period" "report --json --tree" \
		"report --tracepoints" "report --unresolved" \
		"export -f folded" "export -f json" "export -f pprof -o $tmp/x.pb" \
		"diff $tmp/base.data" "diff -g $tmp/base.data"; do
		# shellcheck disable=SC2086
		bounded "$1" "$2" $r
	done
	bounded "$1" "$2" report --html -o "$tmp/r.html"
	bounded "$1" "$2" flamegraph -o "$tmp/fg.svg"
	bounded "$1" "$2" flamegraph -o "$tmp/fg.svg" "$tmp/base.data"
	bounded "$1" "$2" strip -o "$tmp/stripped.data"
	# a file against itself: both sides hostile
	limited diff "$2" "$2"
	rc=$?
	test $rc -eq 0 || { test $rc -eq 2 && test "$(wc -l <"$tmp/err")" -eq 1; }
	ok $? "$1: diff FILE FILE (exit $rc)"
}

"$MMPROF" record -q -r 2 -o "$tmp/base.data" -- "$wl/page-fault" -s 0.2 --size 4M >/dev/null 2>"$tmp/err"
ok $? "record a real base to diff against"
diag "$tmp/err"

for s in "$seeds"/datafile/*; do
	name=datafile/$(basename "$s")
	"$tool" "$s" "$tmp/seed.data"
	ok $? "$name: made into a file"
	readers "$name" "$tmp/seed.data"
done

for s in "$seeds"/perfscript/*; do
	name=perfscript/$(basename "$s")
	rm -f "$tmp/seed.data"
	limited import -o "$tmp/seed.data" - <"$s"
	rc=$?
	test $rc -eq 0 || { test $rc -eq 2 && test "$(wc -l <"$tmp/err")" -eq 1; }
	ok $? "$name: import takes it or refuses it in one line (exit $rc)"
	[ $rc -eq 0 ] && readers "$name" "$tmp/seed.data"
done

done_testing
