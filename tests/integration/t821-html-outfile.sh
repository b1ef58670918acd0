#!/bin/sh
# t821-html-outfile: every option that writes a file writes by one rule,
# the one security.md states (issue 14, item 8; issue 31, item 5):
#   - a symlink at the output path is refused in one line, exit 2, the
#     link and its target untouched (report --html -o, flamegraph -o,
#     export -o, diff --html/--junit/--summary replaced the link with a
#     file of theirs, where record, strip and import refused it);
#   - a full disk (a 64 KiB tmpfs, filled): exit 2 with one line saying
#     "No space left on device" (export said "Input/output error"), the
#     previous file under the name intact, no temporary left;
#   - a device at the output path is refused, left a device.
# Needs root (mount): the project's tests run as root.

. "$(dirname "$0")/lib.sh"
tap_setup t821
cleanup_hook() {
	mountpoint -q "$tmp/full" && umount "$tmp/full"
}
trap 'exit 2' INT TERM HUP

kinds="flame report diff-html diff-junit diff-summary export-folded export-json export-pprof strip import resolve"
plan 42

"$MMPROF" record -q -e cpu-clock -o "$tmp/a.data" -- "$wl/page-fault" -s 0.3 >/dev/null 2>&1 &&
	"$MMPROF" record -q -e cpu-clock -o "$tmp/b.data" -- "$wl/page-fault" -s 0.3 >/dev/null 2>&1
ok $? "two recordings"
cp "$here/tests/fuzz/corpus/perfscript/default-callchain" "$tmp/script.txt"

# write KIND OUT: the writer of KIND to OUT, stderr to $tmp/err
write() {
	case $1 in
	flame) "$MMPROF" flamegraph "$tmp/a.data" -o "$2" ;;
	report) "$MMPROF" report --html "$tmp/a.data" -o "$2" ;;
	diff-html) "$MMPROF" diff --html "$2" "$tmp/a.data" "$tmp/b.data" ;;
	diff-junit) "$MMPROF" diff --junit "$2" "$tmp/a.data" "$tmp/b.data" ;;
	diff-summary) "$MMPROF" diff --summary "$2" "$tmp/a.data" "$tmp/b.data" ;;
	export-folded) "$MMPROF" export -f folded -o "$2" "$tmp/a.data" ;;
	export-json) "$MMPROF" export -f json -o "$2" "$tmp/a.data" ;;
	export-pprof) "$MMPROF" export -f pprof -o "$2" "$tmp/a.data" ;;
	strip) "$MMPROF" strip "$tmp/a.data" -o "$2" ;;
	import) "$MMPROF" import - -o "$2" <"$tmp/script.txt" ;;
	resolve) "$MMPROF" resolve "$tmp/a.data" -o "$2" ;;
	esac >/dev/null 2>"$tmp/err"
}

mkdir "$tmp/full"
mount -t tmpfs -o size=64k tmpfs "$tmp/full"
for k in $kinds; do
	# a symlink at the output path
	printf 'victim\n' >"$tmp/victim.$k"
	ln -s "$tmp/victim.$k" "$tmp/out.$k"
	write $k "$tmp/out.$k"
	rc=$?
	test $rc -eq 2 && test "$(cat "$tmp/victim.$k")" = victim && test -L "$tmp/out.$k" &&
	      test "$(wc -l <"$tmp/err")" -eq 1 &&
	      grep -q "cannot write '$tmp/out.$k': it exists and is not a regular file" "$tmp/err" &&
	      test -z "$(find "$tmp" -maxdepth 1 -name "*out.$k*tmp*")"
	ok $? "$k: a symlink at the output path is refused, the link and its target intact (rc $rc)"
	[ $? -eq 0 ] || diag "$tmp/err"

	# a device is refused, not replaced
	mknod "$tmp/dev.$k" c 1 3 &&	# /dev/null's numbers, in our own folder
		! write $k "$tmp/dev.$k" && test -c "$tmp/dev.$k" &&
		grep -q "is not a regular file" "$tmp/err"
	ok $? "$k: a device at the output path is refused and left a device"
	[ $? -eq 0 ] || diag "$tmp/err"

	# a full disk over a previous good file
	case $k in strip|import|resolve) continue ;; esac	# t800 and t810: the .data writer's
	rm -f "$tmp/full/fill"
	printf 'precious\n' >"$tmp/full/out.$k"
	dd if=/dev/zero of="$tmp/full/fill" bs=4k >/dev/null 2>&1
	write $k "$tmp/full/out.$k"
	rc=$?
	test $rc -eq 2 && test "$(wc -l <"$tmp/err")" -eq 1 && grep -qi 'no space left on device' "$tmp/err" &&
		grep -q "cannot write '$tmp/full/out.$k'" "$tmp/err" && ! grep -q '\.tmp\.' "$tmp/err"
	ok $? "$k: a full disk: exit 2, one line saying so, naming the file asked for (rc $rc)"
	[ $? -eq 0 ] || diag "$tmp/err"
	test "$(cat "$tmp/full/out.$k")" = precious &&
	      test "$(ls -A "$tmp/full" | sort | tr '\n' ' ')" = "fill out.$k "
	ok $? "$k: the previous file intact, no temporary left"
	rm -f "$tmp/full/out.$k"
done
umount "$tmp/full"
mountpoint -q "$tmp/full"; test $? -ne 0
ok $? "tmpfs unmounted"

# a regular file is replaced as before, and standard output still works
printf 'old\n' >"$tmp/plain.svg"
"$MMPROF" flamegraph "$tmp/a.data" -o "$tmp/plain.svg" 2>/dev/null && grep -q '</svg>' "$tmp/plain.svg"
ok $? "flamegraph -o over a regular file replaces it"
"$MMPROF" flamegraph "$tmp/a.data" -o - 2>/dev/null | grep -q '</svg>'
ok $? "flamegraph -o - writes to stdout"

done_testing
