#!/bin/sh
# t650-resolve: symbols that arrive after recording (issue 18 point 2).
# A JIT that writes its perf map only when it exits (as the JVM's
# -XX:+DumpPerfMapAtExit does) is recorded with record -p --duration,
# which ends first: its samples stay unnamed.  record says so and how to
# name them later, without asking for the flag the process already has;
# `mmprof resolve FILE` then names them from the map, in place and
# atomically (a new inode, no temporary left), and says what it named.
# A stripped program whose .gnu_debuglink debuginfo is installed after
# the recording: record saved each unnamed frame's ELF address and the
# file's build-id, resolve names them (a rebuilt file at the path: not).
# Then a JVM (java is installed): record -p of a JVM started with
# -XX:+DumpPerfMapAtExit is 98% unnamed; after it exits, resolve names
# Hot.work, and perf record -p of the same JVM at the same time, reported
# after it exited (perf resolves at report time), gives the same share.

. "$(dirname "$0")/lib.sh"
tap_setup t650
jpid=
cleanup_hook() {
	[ -n "$jpid" ] && kill -KILL $jpid 2>/dev/null
	[ -n "$jpid" ] && rm -f "/tmp/perf-$jpid.map"
	[ -n "$vpid" ] && kill -KILL $vpid 2>/dev/null
	[ -n "$vpid" ] && rm -f "/tmp/perf-$vpid.map"
}
plan 25

# anonymous executable code, named in /tmp/perf-PID.map when it exits (SIGTERM)
cat >"$tmp/jit.c" <<'EOC'
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
/* x86-64: mov %rdi,%rax; 1: dec %rdi; jnz 1b; ret */
static const unsigned char code[] = { 0x48, 0x89, 0xf8, 0x48, 0xff, 0xcf, 0x75, 0xfb, 0xc3 };
static volatile sig_atomic_t stop;
static void on_term(int sig) { (void)sig; stop = 1; }
int main(int argc, char **argv)
{
	unsigned char *mem = mmap(NULL, 4096, PROT_READ | PROT_WRITE | PROT_EXEC,
				  MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
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

# the pid file appears once the JIT runs (PATH, up to 60 s)
wait_file() {
	i=0
	while [ ! -s "$1" ] && [ $i -lt 600 ]; do
		sleep 0.1
		i=$((i + 1))
	done
	[ -s "$1" ]
}

# the flag on its command line is what the hint looks for (as a JVM's)
"$tmp/jit" "$tmp/jit.pid" -XX:+DumpPerfMapAtExit &
jpid=$!
wait_file "$tmp/jit.pid"
ok $? "the JIT runs"
"$MMPROF" record -q -p $jpid --duration 2 -o "$tmp/j.data" >"$tmp/rec.out" 2>&1
ok $? "record -p of the JIT while its map is not written"
grep -q "mmprof resolve $tmp/j.data" "$tmp/rec.out"
ok $? "record says how to name those frames later"
! grep -q "start the JIT with" "$tmp/rec.out" && grep -q "runs with -XX:+DumpPerfMapAtExit" "$tmp/rec.out" &&
	grep -q "'jcmd $jpid Compiler.perfmap' writes it now" "$tmp/rec.out"
ok $? "and does not ask for the flag the process already has"
"$MMPROF" report --unresolved "$tmp/j.data" >"$tmp/unres.before" 2>&1
b=$(awk 'NR == 1 { sub("%", "", $6); printf "%d\n", $6 }' "$tmp/unres.before")
[ "${b:-0}" -ge 50 ]
ok $? "most samples are unnamed before ($b%)"
grep "perf-$jpid.map" "$tmp/unres.before" | grep -q "mmprof resolve" &&
	! grep "perf-$jpid.map" "$tmp/unres.before" | grep -q "should write"
ok $? "report's hint names resolve, not the flag"

kill -TERM $jpid
wait $jpid
[ -s "/tmp/perf-$jpid.map" ]
ok $? "the JIT wrote its map when it exited"

cp "$tmp/j.data" "$tmp/j.copy"
"$MMPROF" resolve -n "$tmp/j.data" >"$tmp/dry.out" 2>&1 &&
	grep -q "would name" "$tmp/dry.out" && cmp -s "$tmp/j.data" "$tmp/j.copy"
ok $? "resolve -n says what it would name and writes nothing"
ino=$(stat -c %i "$tmp/j.data")
"$MMPROF" resolve "$tmp/j.data" >"$tmp/res.out" 2>&1
ok $? "resolve exits 0"
grep -q "perf-$jpid.map: named [1-9][0-9]* of [1-9][0-9]* frames" "$tmp/res.out" &&
	grep -q "wrote '$tmp/j.data'" "$tmp/res.out"
ok $? "it says what it named ($(head -1 "$tmp/res.out"))"
[ "$(stat -c %i "$tmp/j.data")" != "$ino" ] && [ -z "$(ls -A "$tmp" | grep '^\.j\.data\.tmp')" ]
ok $? "the file was replaced by a rename, no temporary left"
"$MMPROF" report --keys "$tmp/j.data" 2>/dev/null |
	awk -F': ' '$1 == "perf-profile.self.cpu-clock.jit_late_hot" && $2 >= 50 { f = 1 } END { exit !f }'
ok $? "the keys name jit_late_hot"
"$MMPROF" report --unresolved "$tmp/j.data" 2>&1 | grep -q "perf-$jpid.map: JIT code"
[ $? -ne 0 ]
ok $? "the hint about the missing map is gone"
"$MMPROF" resolve "$tmp/j.data" >"$tmp/again.out" 2>&1 && grep -q "named 0 of 0\|nothing to resolve" "$tmp/again.out"
ok $? "a second resolve has nothing left to name"

"$MMPROF" resolve "$tmp/none.data" >"$tmp/bad.out" 2>&1
[ $? -eq 2 ] && [ "$(wc -l <"$tmp/bad.out")" -eq 1 ]
ok $? "a missing file: exit 2, one line ($(cat "$tmp/bad.out"))"
echo "not a data file" >"$tmp/text.data"
"$MMPROF" resolve "$tmp/text.data" >"$tmp/bad.out" 2>&1
[ $? -eq 2 ] && [ "$(wc -l <"$tmp/bad.out")" -eq 1 ] && grep -q "not a data file" "$tmp/text.data"
ok $? "a text file: exit 2, one line, left alone"

# a stripped program whose debuginfo (.gnu_debuglink) is installed after the
# recording; then one rebuilt differently at the same path: not its names
cat >"$tmp/hot.c" <<'EOC'
#include <time.h>
volatile unsigned long sink;
static double cpu_now(void)
{
	struct timespec t;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
	return t.tv_sec + t.tv_nsec / 1e9;
}
__attribute__((noinline)) void stripped_hot(void)
{
	unsigned long i;

	for (i = 0; i < 100000; i++)
		sink += i * i;
}
int main(void)
{
	double t0 = cpu_now();

	while (cpu_now() - t0 < 0.5)
		stripped_hot();
	return 0;
}
EOC
mkdir "$tmp/dl" &&
	cc -O1 -fno-omit-frame-pointer -Wl,--build-id -o "$tmp/dl/hot" "$tmp/hot.c" &&
	objcopy --only-keep-debug "$tmp/dl/hot" "$tmp/dl/hot.debug" && strip "$tmp/dl/hot" &&
	(cd "$tmp/dl" && objcopy --add-gnu-debuglink=hot.debug hot) &&
	mv "$tmp/dl/hot.debug" "$tmp/hot.debug.later"
ok $? "a stripped program whose debuginfo is not installed yet"
"$MMPROF" record -q -o "$tmp/s.data" -- "$tmp/dl/hot" >/dev/null 2>&1 &&
	perf record -q -F 4000 -e cpu-clock -o "$tmp/s.perf" -- "$tmp/dl/hot" >/dev/null 2>&1
ok $? "record and perf record it"
"$MMPROF" report --unresolved "$tmp/s.data" 2>/dev/null | grep "/dl/hot:" | grep -q "then mmprof resolve"
ok $? "the hint says to install the debuginfo, then resolve"
cp "$tmp/s.data" "$tmp/s.stale.data"
cp "$tmp/hot.debug.later" "$tmp/dl/hot.debug"
"$MMPROF" resolve "$tmp/s.data" >"$tmp/s.res" 2>&1 &&
	grep -q "dl/hot: named [1-9][0-9]* of [1-9][0-9]* frames" "$tmp/s.res"
ok $? "resolve names the stripped program's frames from the debuginfo installed since"
m=$("$MMPROF" report --keys "$tmp/s.data" 2>/dev/null |
	awk -F': ' '$1 == "perf-profile.self.cpu-clock.stripped_hot" { printf "%d\n", $2 }')
p=$(perf report -i "$tmp/s.perf" --no-children --sort sym --stdio 2>/dev/null |
	awk '/stripped_hot/ { sub("%", "", $1); printf "%d\n", $1 }')
[ "${m:-0}" -ge 50 ] && [ $((m - p)) -le 10 ] && [ $((p - m)) -le 10 ]
ok $? "stripped_hot's self share within 10 points of perf report's (mmprof ${m:-0}%, perf ${p:-?}%)"
sed 's/i \* i/i + 3/' "$tmp/hot.c" >"$tmp/hot2.c" &&
	cc -O1 -fno-omit-frame-pointer -Wl,--build-id -o "$tmp/dl/hot" "$tmp/hot2.c"
"$MMPROF" resolve "$tmp/s.stale.data" >"$tmp/s.stale" 2>&1 && grep -q "another build" "$tmp/s.stale" &&
	! "$MMPROF" report --keys "$tmp/s.stale.data" 2>/dev/null | grep -q 'stripped_hot'
ok $? "a file rebuilt at the path since gives no names ($(head -1 "$tmp/s.stale"))"

# a JVM under record -p, and perf record -p of it at the same time
cat >"$tmp/Hot.java" <<'EOJ'
public class Hot {
	static long work(long n) { long x = 0; for (long i = 0; i < n; i++) x = x * 6364136223846793005L + i; return x; }
	public static void main(String[] a) throws Exception {
		long s = 0;
		for (int i = 0; i < 300; i++)	/* warm: compiled before the pid file says go */
			s += work(1000000);
		java.nio.file.Files.write(java.nio.file.Paths.get(a[0]),
			(ProcessHandle.current().pid() + "\n").getBytes());
		long end = System.nanoTime() + 6000000000L;
		while (System.nanoTime() < end) s += work(1000000);
		System.out.println(s == 42 ? "x" : "done");
	}
}
EOJ
javac -d "$tmp" "$tmp/Hot.java" &&
	java -XX:+UnlockDiagnosticVMOptions -XX:+DumpPerfMapAtExit -cp "$tmp" Hot "$tmp/jvm.pid" \
		>/dev/null 2>&1 &
vpid=$!
wait_file "$tmp/jvm.pid"
perf record -q -F 4000 -e cpu-clock -p $vpid -o "$tmp/jvm.perf" >/dev/null 2>&1 &
ppid=$!
"$MMPROF" record -q -p $vpid --duration 2 -o "$tmp/jvm.data" >"$tmp/jvm.rec" 2>&1
kill -INT $ppid 2>/dev/null
wait $ppid
wait $vpid
"$MMPROF" report --keys "$tmp/jvm.data" 2>/dev/null | grep -q 'self\.cpu-clock\..*Hot\.work'
[ $? -ne 0 ] && "$MMPROF" resolve "$tmp/jvm.data" >"$tmp/jvm.res" 2>&1
ok $? "a JVM's samples are unnamed until resolve ($(tail -1 "$tmp/jvm.res"))"
m=$("$MMPROF" report --keys "$tmp/jvm.data" 2>/dev/null |
	awk -F': ' '$1 ~ /^perf-profile\.self\.cpu-clock\..*Hot\.work/ { s += $2 } END { printf "%d\n", s }')
p=$(perf report -i "$tmp/jvm.perf" --no-children --sort sym --stdio 2>/dev/null |
	awk '/Hot\.work/ { sub("%", "", $1); s += $1 } END { printf "%d\n", s }')
[ "$m" -ge 50 ] && [ $((m - p)) -le 10 ] && [ $((p - m)) -le 10 ]
ok $? "Hot.work's self share after resolve within 10 points of perf's (mmprof $m%, perf $p%)"
done_testing
