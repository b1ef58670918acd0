#!/bin/bash
# t652-record-perfmap-quit: a JIT that writes its perf map when it exits
# (the JVM's -XX:+DumpPerfMapAtExit) and is told to quit as record -p
# stops (issue 18 point 2): record waits for it, up to 1 s, and names its
# frames at once; a JIT that keeps running gets the warning, whose
# command line (`mmprof resolve FILE`, FILE shell-quoted) is run as
# printed once the map exists, and names the frames.  Then the same with
# a real JVM.
#
# The JIT-style program (as t650's) takes 300 ms between SIGTERM and
# writing its map, as a JVM's exit path takes its time: record, stopped
# by SIGINT at the same moment, reaches the end of its run before the map
# exists unless it waits (main's binary names nothing there).  No timing
# is checked: record waits until the process is gone.

. "$(dirname "$0")/lib.sh"
tap_setup t652
jpid= rpid= vpid=
cleanup_hook() {
	for p in $jpid $vpid; do
		kill -KILL $p 2>/dev/null
		rm -f "/tmp/perf-$p.map"
	done
	[ -n "$rpid" ] && kill -KILL $rpid 2>/dev/null
}
plan 10

cat >"$tmp/jit.c" <<'EOC'
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>
/* x86-64: mov %rdi,%rax; 1: dec %rdi; jnz 1b; ret */
static const unsigned char code[] = { 0x48, 0x89, 0xf8, 0x48, 0xff, 0xcf, 0x75, 0xfb, 0xc3 };
static volatile sig_atomic_t stop;
static void on_term(int sig) { (void)sig; stop = 1; }
int main(int argc, char **argv)
{
	unsigned char *mem = mmap(NULL, 4096, PROT_READ | PROT_WRITE | PROT_EXEC,
				  MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	struct timespec exit_path = { 0, 300 * 1000 * 1000 };
	long (*fa)(long), acc = 0;
	char path[64];
	FILE *fp;

	(void)argc;
	if (mem == MAP_FAILED)
		return 1;
	memcpy(mem + 0x100, code, sizeof(code));
	fa = (long (*)(long))(mem + 0x100);
	signal(SIGTERM, on_term);
	if (!(fp = fopen(argv[1], "w")))
		return 1;
	fprintf(fp, "%d\n", (int)getpid());
	fclose(fp);
	while (!stop)
		acc += fa(1000000);
	nanosleep(&exit_path, NULL);
	snprintf(path, sizeof(path), "/tmp/perf-%d.map", (int)getpid());
	if (!(fp = fopen(path, "w")))
		return 1;
	fprintf(fp, "%lx 40 jit_late_hot\n", (unsigned long)fa);
	fclose(fp);
	return acc == 42;
}
EOC
cc -O2 -o "$tmp/jit" "$tmp/jit.c"
ok $? "cc builds the JIT-style program"

# wait_file PATH: until it is non-empty (up to 60 s)
wait_file() {
	i=0
	while [ ! -s "$1" ] && [ $i -lt 600 ]; do
		sleep 0.1
		i=$((i + 1))
	done
	[ -s "$1" ]
}
# wait_attached PID: until record PID holds perf events (up to 60 s)
wait_attached() {
	i=0
	while ! ls -l "/proc/$1/fd" 2>/dev/null | grep -q 'perf_event' && [ $i -lt 600 ]; do
		sleep 0.1
		i=$((i + 1))
	done
	ls -l "/proc/$1/fd" 2>/dev/null | grep -q 'perf_event'
}
# self share of jit_late_hot in FILE's keys (0 when absent)
self_share() {
	"$MMPROF" report --keys "$1" 2>/dev/null |
		awk -F': ' '$1 == "perf-profile.self.cpu-clock." k { v = $2 } END { printf "%d\n", v }' k="$2"
}

# --- quitting as record stops: waited for, named at once ----------------------
"$tmp/jit" "$tmp/jit.pid" -XX:+DumpPerfMapAtExit &
jpid=$!
wait_file "$tmp/jit.pid"
"$MMPROF" record -q -p $jpid -o "$tmp/q.data" >"$tmp/q.out" 2>&1 &
rpid=$!
wait_attached $rpid && sleep 1
ok $? "record -p attached to the JIT"
kill -INT $rpid
kill -TERM $jpid
wait $rpid
rc=$?
wait $jpid
rpid=
share=$(self_share "$tmp/q.data" jit_late_hot)
[ $rc -eq 0 ] && [ "$share" -ge 50 ] && ! grep -q "not written yet" "$tmp/q.out"
ok $? "JIT told to quit as record stops: record waited, jit_late_hot self $share% (rc $rc)"
diag "$tmp/q.out"
rm -f "/tmp/perf-$jpid.map"
jpid=

# --- still running: the warning's command line, run as printed ----------------
rm -f "$tmp/jit.pid"
"$tmp/jit" "$tmp/jit.pid" -XX:+DumpPerfMapAtExit &
jpid=$!
wait_file "$tmp/jit.pid"
out="$tmp/it's here.data"
"$MMPROF" record -q -p $jpid --duration 2 -o "$out" >"$tmp/r.out" 2>&1
rc=$?
grep -q "runs with -XX:+DumpPerfMapAtExit, which writes it when the JVM exits, and record waits 1 s for one quitting as the recording ends" "$tmp/r.out" &&
	! grep -q "start the JIT with\|should write" "$tmp/r.out"
ok $? "a JIT still running: the warning says record waited and does not ask for the flag (rc $rc)"
diag "$tmp/r.out"
cmd=$(sed -n 's/.*name those frames with: \(mmprof resolve .*\)$/\1/p' "$tmp/r.out")
[ "$cmd" = "mmprof resolve '$tmp/it'\\''s here.data'" ]
ok $? "the command line names the file, shell-quoted: $cmd"
kill -TERM $jpid
wait $jpid
[ "$(self_share "$out" jit_late_hot)" -eq 0 ] && [ -s "/tmp/perf-$jpid.map" ]
ok $? "unnamed in the file; the map written once the JIT exited"
(mmprof() { "$MMPROF" "$@"; }; eval "$cmd") >"$tmp/res.out" 2>&1
rc=$?
share=$(self_share "$out" jit_late_hot)
[ $rc -eq 0 ] && [ "$share" -ge 50 ]
ok $? "the command line as printed names jit_late_hot (self $share%, rc $rc)"
diag "$tmp/res.out"
rm -f "/tmp/perf-$jpid.map"
jpid=

# --- a real JVM, told to quit as record stops ------------------------------------
cat >"$tmp/Hot.java" <<'EOJ'
public class Hot {
	static long work(long n) { long s = 0; for (long i = 0; i < n; i++) s += i ^ (s >>> 3); return s; }
	public static void main(String[] a) throws Exception {
		long s = 0;
		java.nio.file.Files.write(java.nio.file.Paths.get(a[0]),
			(ProcessHandle.current().pid() + "\n").getBytes());
		for (;;) s += work(1000000);
	}
}
EOJ
javac -d "$tmp" "$tmp/Hot.java"
ok $? "javac Hot.java"
java -XX:+UnlockDiagnosticVMOptions -XX:+DumpPerfMapAtExit -cp "$tmp" Hot "$tmp/jvm.pid" &
vpid=$!
wait_file "$tmp/jvm.pid"
"$MMPROF" record -q -p $vpid -o "$tmp/v.data" >"$tmp/v.out" 2>&1 &
rpid=$!
wait_attached $rpid && sleep 2
ok $? "record -p attached to the JVM"
kill -INT $rpid
kill -TERM $vpid
wait $rpid
rc=$?
wait $vpid
rpid=
"$MMPROF" report --keys "$tmp/v.data" 2>/dev/null >"$tmp/v.keys"
share=$(awk -F': ' '$1 ~ /^perf-profile\.self\.cpu-clock\..*Hot\.(work|main)/ { s += $2 } END { printf "%d\n", s }' "$tmp/v.keys")
[ $rc -eq 0 ] && [ "$share" -ge 50 ] && ! grep -q "not written yet" "$tmp/v.out"
ok $? "a JVM told to quit as record stops: Hot.work and Hot.main self $share% at once (rc $rc)"
diag "$tmp/v.out"
grep 'perf-profile.self.cpu-clock' "$tmp/v.keys" | sort -t: -k2 -rn | head -3 | diag
rm -f "/tmp/perf-$vpid.map"
vpid=

done_testing
