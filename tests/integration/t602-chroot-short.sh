#!/bin/sh
# t602-chroot-short: a loop of short-lived processes (36 ms each) in a
# chroot.  Their MMAP2 records say /bin/busy and /lib/.../libc.so.6, paths
# that mean nothing (or another file) on the host, and each process has
# mostly exited before the recorder reads its records, so neither
# /proc/PID/root nor map_files reach the file any more: before, 88 % of
# the samples were unnamed ("file gone at record end").  The files still
# exist in the chroot's directory; mmprof finds them by the identity
# MMAP2 gives (device, inode, generation: open_by_handle_at), and a
# mapping missed at first sight is opened through a later process of the
# same file while one lives (20 runs of 20 copies: only the identity
# serves).  In another mount namespace, from a tmpfs only it mounts (gone
# with it): a gone process's namespace cannot be read any more, so its
# mapping is keyed apart from a live one's, which lends it its fd (before:
# about half named).  perf names these from the host's paths
# (hex, or another file's names); mmprof must name at least as many.
# With --call-graph dwarf the unwinder reads that file too (before: no
# stack reached main).  Then the same loop with the chroot removed at its end: what cannot be
# named any more is counted under the hint that says why (the process
# exited before mmprof read its mapping), not as a generic loss.  Last,
# that loop's case made certain: the recorder stopped while the processes
# run, exit unreaped (zombies, whose /proc/PID is still there) and their
# chroot, on a tmpfs (no handle reaches a removed file), is removed.

. "$(dirname "$0")/lib.sh"
tap_setup t602
plan 17

cat >"$tmp/busy.c" <<'PROG'
#include <time.h>
volatile unsigned long sink;
__attribute__((noinline)) void spin_here(double secs)
{
	struct timespec a, b;
	int i;

	clock_gettime(CLOCK_MONOTONIC, &a);
	do {
		for (i = 0; i < 10000; i++)
			sink += (unsigned long)i;
		clock_gettime(CLOCK_MONOTONIC, &b);
	} while ((b.tv_sec - a.tv_sec) + (b.tv_nsec - a.tv_nsec) / 1e9 < secs);
}
int main(void)
{
	spin_here(0.036);
	return 0;
}
PROG
# mkroot DIR: a chroot holding busy and the libraries it needs
mkroot() {
	mkdir -p "$1/bin" && cc -O2 -fno-omit-frame-pointer -o "$1/bin/busy" "$tmp/busy.c" &&
		for lib in $(ldd "$1/bin/busy" | awk '$(NF - 1) ~ /^\// { print $(NF - 1) } $1 ~ /^\// { print $1 }'); do
			mkdir -p "$1$(dirname "$lib")" && cp "$lib" "$1$lib" || return 1
		done &&
		chroot "$1" /bin/busy
}
mkroot "$tmp/root"
ok $? "a chroot with a 36 ms program and its libraries"
[ ! -e /bin/busy ]
ok $? "the host has no /bin/busy"

cat >"$tmp/loop.sh" <<EOF
i=0
while [ \$i -lt 40 ]; do chroot "$tmp/root" /bin/busy; i=\$((i + 1)); done
EOF
"$MMPROF" record -q -e cpu-clock -o "$tmp/loop.data" -- sh "$tmp/loop.sh" >"$tmp/out" 2>&1
ok $? "record 40 chrooted runs"
diag "$tmp/out"

# named FILE: percent of busy's samples whose leaf has a name ("busy" comm)
named() {
	"$MMPROF" report --folded --comm "$1" 2>/dev/null | awk '
		$0 ~ /^busy;/ { c = $NF; all += c; f = $0; sub(/ [0-9]+$/, "", f); sub(/.*;/, "", f)
			if (f != "[unknown]" && f !~ /^0x/) hit += c }
		END { if (all) printf "%.1f %d\n", 100 * hit / all, all; else print "0 0" }'
}
set -- $(named "$tmp/loop.data")
m=$1 all=$2
echo "# chroot loop: $m % of $all samples of busy named"
awk -v v="$m" -v a="$all" 'BEGIN { exit !(a > 100 && v > 90) }'
ok $? "over 90 % of the chrooted processes' samples are named ($m % of $all)"
"$MMPROF" report --folded --comm "$tmp/loop.data" 2>/dev/null | grep -q '^busy;.*main;spin_here '
ok $? "their stacks read main;spin_here"

if perf record -q -e cpu-clock -o "$tmp/loop.pdata" sh "$tmp/loop.sh" >/dev/null 2>&1; then
	p=$(perf report -i "$tmp/loop.pdata" --comm busy --no-children --sort sym --stdio -g none 2>/dev/null |
		awk '$1 ~ /%$/ { s = $1; sub("%", "", s); all += s; if ($NF !~ /^0x/ && $0 !~ /\[unknown\]/) hit += s }
			END { if (all) printf "%.1f\n", 100 * hit / all; else print 0 }')
else
	p=
fi
echo "# chroot loop: named: mmprof $m %, perf ${p:-?} %"
[ -n "$p" ] && awk -v a="$m" -v b="$p" 'BEGIN { exit !(a >= b - 2) }'
ok $? "named at least as often as perf names them (mmprof $m %, perf ${p:-none} %)"

# --- each process its own binary: no later process to open it through ---
i=0
while [ $i -lt 20 ]; do cp "$tmp/root/bin/busy" "$tmp/root/bin/busy$i" || break; i=$((i + 1)); done
cat >"$tmp/each.sh" <<EOF
i=0
while [ \$i -lt 20 ]; do chroot "$tmp/root" /bin/busy\$i; i=\$((i + 1)); done
EOF
"$MMPROF" record -q -e cpu-clock -o "$tmp/each.data" -- sh "$tmp/each.sh" >"$tmp/out" 2>&1
ok $? "record 20 chrooted runs of 20 copies of the program"
diag "$tmp/out"
# named20 FILE: as named, over the comms busy0..busy19
named20() {
	"$MMPROF" report --folded --comm "$1" 2>/dev/null | awk '
		$0 ~ /^busy[0-9]+;/ { c = $NF; all += c; f = $0; sub(/ [0-9]+$/, "", f); sub(/.*;/, "", f)
			if (f != "[unknown]" && f !~ /^0x/) hit += c }
		END { if (all) printf "%.1f %d\n", 100 * hit / all, all; else print "0 0" }'
}
set -- $(named20 "$tmp/each.data")
echo "# 20 binaries: $1 % of $2 samples named"
awk -v v="$1" -v a="$2" 'BEGIN { exit !(a > 100 && v > 90) }'
ok $? "each binary seen once, mostly after its process exited: named by identity ($1 % of $2)"

# --- another mount namespace, its own tmpfs (gone with it at the end) ---
cp "$tmp/root/bin/busy" "$tmp/busy"
cat >"$tmp/ns.sh" <<EOF
unshare -m --propagation private sh -c 'mount -t tmpfs mmprof-t602 /mnt && cp "$tmp/busy" /mnt/busy &&
	i=0; while [ \$i -lt 40 ]; do /mnt/busy; i=\$((i + 1)); done'
EOF
"$MMPROF" record -q -e cpu-clock -o "$tmp/ns.data" -- sh "$tmp/ns.sh" >"$tmp/out" 2>&1
ok $? "record 40 runs in another mount namespace, from a tmpfs only it mounts"
diag "$tmp/out"
set -- $(named "$tmp/ns.data")
echo "# mount namespace: $1 % of $2 samples of busy named"
awk -v v="$1" -v a="$2" 'BEGIN { exit !(a > 100 && v > 90) }'
ok $? "over 90 % of their samples are named ($1 % of $2): one live process's fd serves the gone ones"

# --- --call-graph dwarf: the unwinder reads the file found by identity ---
cc -O2 -g -fomit-frame-pointer -o "$tmp/root/bin/busyd" "$tmp/busy.c"
ok $? "the program without frame pointers, in the chroot"
cat >"$tmp/dwarf.sh" <<EOF
i=0
while [ \$i -lt 30 ]; do chroot "$tmp/root" /bin/busyd; i=\$((i + 1)); done
EOF
"$MMPROF" record -q -e cpu-clock --call-graph dwarf -o "$tmp/dwarf.data" -- sh "$tmp/dwarf.sh" \
	>"$tmp/out" 2>&1
ok $? "record --call-graph dwarf of 30 chrooted runs"
diag "$tmp/out"
d=$("$MMPROF" report --folded --comm "$tmp/dwarf.data" 2>/dev/null |
	awk '/^busyd;/ { c = $NF; all += c; if ($0 ~ /;main;spin_here( |;)/) hit += c }
		END { if (all) printf "%.1f\n", 100 * hit / all; else print 0 }')
echo "# dwarf in the chroot: $d % of busyd's samples unwound to main;spin_here"
# 85-95 % on a quiet machine; a run whose file mmprof reaches only after
# every process that had it open is gone cannot be unwound (the reader
# behind on a loaded machine: 70 % and 43 % beside four builds, issue 30);
# without the file found by identity none is
awk -v v="$d" 'BEGIN { exit !(v > 20) }'
ok $? "dwarf: the file found by identity unwinds ($d % to main;spin_here)"

# --- the chroot removed when the loop ends --------------------------------
mkroot "$tmp/gone" >/dev/null 2>&1
cat >"$tmp/gone.sh" <<EOF
i=0
while [ \$i -lt 20 ]; do chroot "$tmp/gone" /bin/busy; i=\$((i + 1)); done
rm -rf "$tmp/gone"
EOF
"$MMPROF" record -q -e cpu-clock -o "$tmp/gone.data" -- sh "$tmp/gone.sh" >"$tmp/out" 2>&1
ok $? "record 20 chrooted runs, the chroot removed at the end"
diag "$tmp/out"
set -- $(named "$tmp/gone.data")
"$MMPROF" report --unresolved "$tmp/gone.data" 2>/dev/null >"$tmp/unres"
# the process gone before mmprof read its mapping, or (mmprof behind, the
# machine loaded) the chroot gone before mmprof opened the file: either
# names why, and no other hint may claim them
lost=$(awk '$3 == "address" && /process exited before mmprof read its mapping|file gone at record end/ { s += $2 } END { print s + 0 }' "$tmp/unres")
generic=$(awk '$3 == "address" && $4 == "/bin/busy:" && !/process exited before|file gone at record end/ { s += $2 } END { print s + 0 }' "$tmp/unres")
echo "# chroot removed: $1 % of $2 samples of busy named, $lost samples counted as exited before read, $generic under another hint"
[ "$generic" -eq 0 ] && awk -v v="$1" -v a="$2" -v l="$lost" 'BEGIN { exit !(a > 0 && v / 100 * a + l >= 0.9 * a) }'
ok $? "what is not named is counted as gone, the process or its file ($1 % named, $lost gone, $generic otherwise)"
diag "$tmp/unres"

# --- zombies: exited, not yet reaped, when their records are read --------
# On a loaded machine (a full make check) sh may not have reaped a busy yet
# when the reader, behind, reads its MMAP2s: /proc/PID is still there, but
# not its root or its mappings.  Such a process had exited too: before, its
# chroot's ld.so and libc (whose paths give the host's files) were "file
# deleted or replaced while it ran" and /bin/busy "file gone at record end",
# none of it "exited before mmprof read its mapping" (test 15 then counted
# 74.6 % of busy's samples).  Here the recorder is stopped (SIGSTOP) while
# 10 processes run and exit unreaped, their chroot on a tmpfs is removed,
# and the recorder goes on while they are zombies.
cat >"$tmp/zombies.py" <<'PY'
import os, sys, time, shutil
root, flag = sys.argv[1], sys.argv[2]
open(flag + '.started', 'w').close()
while not os.path.exists(flag + '.go'):
    time.sleep(0.05)
pids = [os.spawnv(os.P_NOWAIT, '/usr/sbin/chroot', ['chroot', root, '/bin/busy']) for _ in range(10)]
while any(open('/proc/%d/stat' % p).read().split(')')[-1].split()[0] != 'Z' for p in pids):
    time.sleep(0.05)
shutil.rmtree(root)
open(flag + '.removed', 'w').close()
time.sleep(3)		# zombies while the recorder reads their records
for p in pids:
    os.waitpid(p, 0)
PY
zpid= zmnt=
cleanup_hook() {
	[ -n "$zpid" ] && kill -CONT $zpid 2>/dev/null
	[ -n "$zmnt" ] && umount "$zmnt" 2>/dev/null
}
mkdir "$tmp/z" && mount -t tmpfs mmprof-t602z "$tmp/z" && zmnt=$tmp/z && mkroot "$tmp/z/root" >/dev/null 2>&1 ||
	echo "# no chroot on a tmpfs"
"$MMPROF" record -q -e cpu-clock -o "$tmp/z.data" -- python3 "$tmp/zombies.py" "$tmp/z/root" "$tmp/zf" \
	>"$tmp/out" 2>&1 &
zpid=$!
i=0
while [ ! -e "$tmp/zf.started" ] && [ $i -lt 600 ]; do sleep 0.1; i=$((i + 1)); done
kill -STOP $zpid && touch "$tmp/zf.go"
i=0
while [ ! -e "$tmp/zf.removed" ] && [ $i -lt 600 ]; do sleep 0.1; i=$((i + 1)); done
kill -CONT $zpid
wait $zpid
ok $? "record 10 chrooted runs on a tmpfs, the recorder stopped until they are zombies and the chroot removed"
diag "$tmp/out"
zpid=
set -- $(named "$tmp/z.data")
"$MMPROF" report --unresolved "$tmp/z.data" 2>/dev/null >"$tmp/unres"
lost=$(awk '$3 == "address" && /process exited before mmprof read its mapping/ { s += $2 } END { print s + 0 }' "$tmp/unres")
other=$(awk '$3 == "address" && ($4 == "/bin/busy:" || /file deleted or replaced|file gone at record end/) &&
	!/process exited before mmprof read its mapping/ { s += $2 } END { print s + 0 }' "$tmp/unres")
echo "# zombies: $1 % of $2 samples of busy named, $lost counted as exited before read, $other under another hint"
[ "$other" -eq 0 ] && awk -v v="$1" -v a="$2" -v l="$lost" 'BEGIN { exit !(a > 0 && l > 0 && v / 100 * a + l >= 0.9 * a) }'
ok $? "a zombie's mappings are of a process that exited before mmprof read them ($1 % named, $lost exited, $other otherwise)"
diag "$tmp/unres"

done_testing
