#!/bin/sh
# t821-html-outfile: the SVG and HTML writers (flamegraph -o, report --html
# -o, diff --html) write as record and export do (issue 14, item 8):
#   - a symlink at the output path is replaced, its target left alone (it
#     was followed and overwritten);
#   - a full disk (a 64 KiB tmpfs, filled): exit non-zero with one line, the
#     previous file under the name intact, no temporary left (it was cut to
#     0 bytes);
#   - a device at the output path is refused, as export refuses it.
# Needs root (mount): the project's tests run as root.

. "$(dirname "$0")/lib.sh"
tap_setup t821
cleanup_hook() {
	mountpoint -q "$tmp/full" && umount "$tmp/full"
}
trap 'exit 2' INT TERM HUP

plan 15

"$MMPROF" record -q -e cpu-clock -o "$tmp/a.data" -- "$wl/page-fault" -s 0.3 >/dev/null 2>&1 &&
	"$MMPROF" record -q -e cpu-clock -o "$tmp/b.data" -- "$wl/page-fault" -s 0.3 >/dev/null 2>&1
ok $? "two recordings"

# write KIND OUT: the writer of KIND to OUT, stderr to $tmp/err
write() {
	case $1 in
	flame) "$MMPROF" flamegraph "$tmp/a.data" -o "$2" ;;
	report) "$MMPROF" report --html "$tmp/a.data" -o "$2" ;;
	diff) "$MMPROF" diff --html "$2" "$tmp/a.data" "$tmp/b.data" ;;
	esac >/dev/null 2>"$tmp/err"
}

mkdir "$tmp/full"
mount -t tmpfs -o size=64k tmpfs "$tmp/full"
for k in flame report diff; do
	# a symlink at the output path
	printf 'victim\n' >"$tmp/victim.$k"
	ln -s "$tmp/victim.$k" "$tmp/out.$k"
	write $k "$tmp/out.$k"
	rc=$?
	test $rc -eq 0 && test "$(cat "$tmp/victim.$k")" = victim && test ! -L "$tmp/out.$k" &&
	      test -f "$tmp/out.$k" && grep -q '<svg\|<html' "$tmp/out.$k"
	ok $? "$k: a symlink at the output path is replaced, its target intact"
	[ $? -eq 0 ] || diag "$tmp/err"

	# a full disk over a previous good file
	rm -f "$tmp/full/fill"
	printf 'precious\n' >"$tmp/full/out.$k"
	dd if=/dev/zero of="$tmp/full/fill" bs=4k >/dev/null 2>&1
	write $k "$tmp/full/out.$k"
	rc=$?
	test $rc -ne 0 && test "$(wc -l <"$tmp/err")" -eq 1 && grep -qi 'no space left' "$tmp/err"
	ok $? "$k: a full disk: fails with one line saying so"
	[ $? -eq 0 ] || diag "$tmp/err"
	test "$(cat "$tmp/full/out.$k")" = precious &&
	      test "$(ls -A "$tmp/full" | sort | tr '\n' ' ')" = "fill out.$k "
	ok $? "$k: the previous file intact, no temporary left"
	rm -f "$tmp/full/out.$k"

	# a device is refused, not replaced
	mknod "$tmp/dev.$k" c 1 3 &&	# /dev/null's numbers, in our own folder
		! write $k "$tmp/dev.$k" && test -c "$tmp/dev.$k" &&
		grep -q "is not a regular file" "$tmp/err"
	ok $? "$k: a device at the output path is refused and left a device"
	[ $? -eq 0 ] || diag "$tmp/err"
done
umount "$tmp/full"
mountpoint -q "$tmp/full"; test $? -ne 0
ok $? "tmpfs unmounted"

# standard output still works
"$MMPROF" flamegraph "$tmp/a.data" -o - 2>/dev/null | grep -q '</svg>'
ok $? "flamegraph -o - writes to stdout"

done_testing
