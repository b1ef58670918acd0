#!/bin/sh
# t820-perfmap-hostile: a perf map is the profiled user's file, read by
# root's record -a (issue 14, item 7).  A JIT-style process running as
# nobody puts at its /tmp/perf-PID.map:
#   - a FIFO: record must not block on it (it hung, no file written);
#   - a symlink to /dev/zero: not followed (RSS grew without bound);
#   - a regular file owned by another uid: not read;
#   - a sparse file of NULs with a name past PERFMAP_MAX_BYTES (256 MiB):
#     not read that far (a line of NULs counted 0 bytes, so a sparse map
#     of any size was read to its end);
#   - its own regular file: still read, its names in the report, also
#     when the process has exited before the recording ends.
# Each is recorded with record -a --duration 1 under timeout and a memory
# limit.  Needs root (setpriv, record -a): the project's tests run as root.

. "$(dirname "$0")/lib.sh"
tap_setup t820
jpid=
cleanup_hook() {
	[ -n "$jpid" ] && kill -KILL $jpid 2>/dev/null
	for f in "$tmp"/u/*.pid; do
		[ -s "$f" ] && rm -f "/tmp/perf-$(cat "$f").map"
	done
}

plan 13

mkdir "$tmp/u"
chmod 755 "$tmp"
chmod 1777 "$tmp/u"
# anonymous executable code named (or not) by its perf map; MODE says what
# the map is; runs SECS (3) so that it outlives a 1 s recording
cat >"$tmp/jit.c" <<'EOC'
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>
/* x86-64: mov %rdi,%rax; 1: dec %rdi; jnz 1b; ret */
static const unsigned char code[] = { 0x48, 0x89, 0xf8, 0x48, 0xff, 0xcf, 0x75, 0xfb, 0xc3 };
int main(int argc, char **argv)
{
	unsigned char *mem = mmap(NULL, 4096, PROT_READ | PROT_WRITE | PROT_EXEC,
				  MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	long (*fa)(long), acc = 0;
	char path[64];
	struct timespec t0, t;
	double secs = argc > 3 ? atof(argv[3]) : 3;
	FILE *fp;

	if (argc < 3 || mem == MAP_FAILED)
		return 1;
	memcpy(mem + 0x100, code, sizeof(code));
	fa = (long (*)(long))(mem + 0x100);
	snprintf(path, sizeof(path), "/tmp/perf-%d.map", (int)getpid());
	if (!strcmp(argv[1], "fifo") && mkfifo(path, 0644))
		return 1;
	if (!strcmp(argv[1], "zero") && symlink("/dev/zero", path))
		return 1;
	if (!strcmp(argv[1], "map") || !strcmp(argv[1], "brief")) {
		if (!(fp = fopen(path, "w")))
			return 1;
		fprintf(fp, "%lx 40 jit_hostile_alpha\n", (unsigned long)fa);
		fclose(fp);
	}
	if (!(fp = fopen(argv[2], "w")))
		return 1;
	fprintf(fp, "%d\n", (int)getpid());
	fclose(fp);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	do {
		acc += fa(10000000);
		clock_gettime(CLOCK_MONOTONIC, &t);
	} while (t.tv_sec - t0.tv_sec + (t.tv_nsec - t0.tv_nsec) / 1e9 < secs);
	return acc == 42;
}
EOC
cc -O2 -o "$tmp/u/jit" "$tmp/jit.c"
ok $? "cc builds the JIT-style program"

wait_pid() {
	i=0
	while [ ! -s "$1" ] && [ $i -lt 100 ]; do
		sleep 0.05
		i=$((i + 1))
	done
	test -s "$1"
}
# rec MODE [PREPARE [SECS]]: the JIT as nobody with its map in MODE for
# SECS (3), root's record -a beside it; the record's exit status, 137 when
# timeout killed it
rec() {
	setpriv --reuid=65534 --regid=65534 --clear-groups "$tmp/u/jit" "$1" "$tmp/u/$1.pid" ${3:-3} &
	jpid=$!
	wait_pid "$tmp/u/$1.pid" || return 3
	[ -n "$2" ] && $2 "/tmp/perf-$(cat "$tmp/u/$1.pid").map"
	# 4 GiB of address space: the ring buffers fit, reading /dev/zero
	# stops there (before the fix: its peak RSS, $tmp/MODE.rss in KiB);
	# none under a sanitizer, which reserves terabytes of it
	( [ -n "${MMPROF_SANITIZE:-}" ] || ulimit -v 4194304
	  exec /usr/bin/time -f %M -o "$tmp/$1.rss" timeout -s KILL 20 \
		"$MMPROF" record -q -a --duration 1 -o "$tmp/$1.data" >/dev/null 2>"$tmp/$1.err" )
	rc=$?
	wait $jpid
	jpid=
	rm -f "/tmp/perf-$(cat "$tmp/u/$1.pid").map"
	return $rc
}

rec fifo
ok $? "a FIFO as nobody's perf map: record -a finishes"
test -s "$tmp/fifo.data"
ok $? "and writes its file"

rec zero
ok $? "a symlink to /dev/zero as nobody's perf map: record -a finishes"
test -s "$tmp/zero.data" && test "$(tail -1 "$tmp/zero.rss")" -lt 524288
ok $? "and writes its file, under 512 MiB RSS ($(tail -1 "$tmp/zero.rss") KiB)"

# the JIT publishes no map; one appears, owned by another user
foreign() {
	printf '%s 1000 jit_foreign_name\n' "$(sed -n 's/^\([0-9a-f]*\)-.* rwxp .*/\1/p' "/proc/$jpid/maps" | head -1)" >"$1"
	chown 12345 "$1"
}
rec none foreign
ok $? "a perf map owned by another uid: record -a finishes"
! "$MMPROF" report --folded "$tmp/none.data" | grep -q jit_foreign_name
ok $? "and its names are not taken"

# nobody's map: NULs, then a name at 8191 * 32800 bytes (256.2 MiB), where
# a read of 8191 bytes (fgets of its 8 KiB line) starts
late() {
	truncate -s $((8191 * 32800)) "$1" &&
	printf '%s 1000 jit_past_the_cap\n' "$(sed -n 's/^\([0-9a-f]*\)-.* rwxp .*/\1/p' "/proc/$jpid/maps" | head -1)" >>"$1" &&
	chown 65534 "$1"
}
rec sparse late
ok $? "a sparse perf map of NULs: record -a finishes"
! "$MMPROF" report --folded "$tmp/sparse.data" | grep -q jit_past_the_cap
ok $? "and it is not read past 256 MiB: the name there is not taken"

# a second of -a on a loaded machine may give the JIT no sample at all:
# recorded again (at most three times) until some of its samples are in
jit_sampled() { "$MMPROF" report --folded --comm "$1" 2>/dev/null | grep -q '^jit;'; }
for attempt in 1 2 3; do
	rec map
	rc=$?
	[ $rc -ne 0 ] || jit_sampled "$tmp/map.data" && break
	echo "# attempt $attempt: no sample of the JIT"
done
ok $rc "nobody's own regular perf map: record -a finishes"
"$MMPROF" report --folded "$tmp/map.data" | grep -q jit_hostile_alpha
ok $? "and its names are taken"

# the JIT starts once the recording runs (1.5 s in, ample on a loaded
# machine) and is gone 2 s before it ends: its map is read after its exit
for attempt in 1 2 3; do
	"$MMPROF" record -q -a --duration 4 -o "$tmp/brief.data" >/dev/null 2>"$tmp/brief.err" &
	rpid=$!
	sleep 1.5
	setpriv --reuid=65534 --regid=65534 --clear-groups "$tmp/u/jit" brief "$tmp/u/brief.pid" 0.5
	wait $rpid
	rc=$?
	rm -f "/tmp/perf-$(cat "$tmp/u/brief.pid").map"
	[ $rc -ne 0 ] || jit_sampled "$tmp/brief.data" && break
	echo "# attempt $attempt: no sample of the JIT"
done
test $rc -eq 0
ok $? "nobody's own map, the JIT gone before the recording ends: record -a finishes"
"$MMPROF" report --folded "$tmp/brief.data" | grep -q jit_hostile_alpha
ok $? "and its names are taken (the owner was seen while it ran)"

done_testing
