#!/bin/sh
# t836-hostile-options: every whole-number option of every command refuses
# a negative value in one line, exit 2, before any work (issue 31, "every
# number option validated").  -1 is the mark of a default in the option
# tables, so 'report --run -1' printed every run, 'report --tree
# --max-stack -1' 127 frames and 'diff --limit -1', 'export --run -1',
# 'flamegraph --run -1' their defaults, each with exit 0 and no word.
# And bisect start's --commits FILE, as every file option: a device is
# refused (/dev/zero read for ever), a pipe that never ends stops at the
# commits' limit (it grew the list without bound).  A FIFO without a
# writer where a regular file is wanted (push FILE, record --vmlinux) is
# not waited on (both hung).  diff's --html, --junit and --summary at a
# symlink are refused before the work (security.md), not after the whole
# diff was printed.

. "$(dirname "$0")/lib.sh"
tap_setup t836

plan 23

cd "$tmp" || exit 2
# ASan reserves terabytes of address space (t830)
if [ -n "${MMPROF_SANITIZE:-}" ]; then as_kb=unlimited; else as_kb=$((1024 * 1024)); fi
"$MMPROF" import -o in.data - <"$here/tests/fuzz/corpus/perfscript/default-callchain" 2>imp.err
ok $? "a file to read (import of a seed)"

# neg DESCRIPTION OPTION ARGS...: mmprof ARGS exits 2 with one line naming OPTION
neg() {
	desc=$1 opt=$2
	shift 2
	timeout 60 "$MMPROF" "$@" >out 2>err </dev/null
	rc=$?
	test $rc -eq 2 && test "$(wc -l <err)" -eq 1 &&
		grep -q -e "invalid value '-1' for $opt: a whole number, 0 or more" err && test ! -e x.data
	ok $? "$desc -1: one line, exit 2 (rc $rc)"
	[ $rc -eq 2 ] || diag err
}

neg "report --run" --run report --run -1 in.data
neg "report --tree --max-stack" --max-stack report --tree --max-stack -1 in.data
neg "export --run" --run export -f folded --run -1 in.data
neg "flamegraph --run" --run flamegraph --run -1 in.data
neg "flamegraph --image-width" --image-width flamegraph --image-width -1 in.data
neg "diff --limit" --limit diff --limit -1 in.data in.data
neg "history --window" --window history --store x.db --window -1
neg "bisect start --budget" --budget bisect start --budget -1 --good in.data --bad in.data
neg "record -r" --repeat record -r -1 -o x.data -- true
neg "record -F" --freq record -F -1 -o x.data -- true
neg "record -m" --mmap-pages record -m -1 -o x.data -- true
neg "record -I" --interval record -I -1 -o x.data -- true
neg "record --budget" --budget record --budget -1 -o x.data -- true
neg "stat -r" --repeat stat -r -1 -o x.data -- true
neg "stat -I" --interval stat -I -1 -o x.data -- true

(ulimit -t 20; exec timeout 60 "$MMPROF" bisect start --good in.data --bad in.data --commits /dev/zero \
	--state st) >out 2>err </dev/null
rc=$?
test $rc -eq 2 && test "$(wc -l <err)" -eq 1 && grep -q "'/dev/zero' is not a regular file" err
ok $? "bisect start --commits /dev/zero: one line, exit 2 (rc $rc)"
[ $rc -eq 2 ] || diag err
yes | (ulimit -t 20; ulimit -v "$as_kb"; exec timeout 60 "$MMPROF" bisect start --good in.data \
	--bad in.data --commits /dev/stdin --state st) >out 2>err
rc=$?
test $rc -eq 2 && test "$(wc -l <err)" -eq 1 && grep -q "holds more than 4000000 commits" err
ok $? "bisect start --commits of a pipe that never ends: one line, exit 2 (rc $rc)"
[ $rc -eq 2 ] || diag err

mkfifo fifo
(ulimit -t 20; exec timeout 30 "$MMPROF" push --store st.db --commit c1 --time 1 fifo) >out 2>err </dev/null
rc=$?
test $rc -eq 2 && test "$(wc -l <err)" -eq 1 && grep -q "cannot push 'fifo': not a regular file" err
ok $? "push of a FIFO without a writer: one line, exit 2 (rc $rc)"
[ $rc -eq 2 ] || diag err
(ulimit -t 20; exec timeout 30 "$MMPROF" record -q -e cpu-clock --vmlinux fifo -o v.data -- true) \
	>out 2>err </dev/null
rc=$?
test $rc -eq 0 && grep -q "vmlinux fifo: not an ELF file" err && test -s v.data
ok $? "record --vmlinux of a FIFO: not an ELF file, a warning, recorded (rc $rc)"
[ $rc -eq 0 ] || diag err

echo victim >victim
for o in --html --junit --summary; do
	rm -f link && ln -s victim link
	timeout 60 "$MMPROF" diff $o link in.data in.data >out 2>err </dev/null
	rc=$?
	test $rc -eq 2 && test "$(wc -l <err)" -eq 1 && grep -q "cannot write 'link': it exists and is not" err &&
		test ! -s out && test -L link && test "$(cat victim)" = victim
	ok $? "diff $o at a symlink: refused before the work, nothing printed (rc $rc)"
	[ $rc -eq 2 ] || diag err
done

done_testing
