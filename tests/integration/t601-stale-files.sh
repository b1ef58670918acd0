#!/bin/sh
# t601-stale-files: a recorded program whose binary is replaced or removed
# while it runs keeps the names of the code that ran (issue 3, "deleted or
# replaced files").  The replacement is a twin: the same source built with
# its hot functions renamed (impostor_*), so it has the same layout and a
# profiler reading the file at the path at record end would name the
# samples impostor_*.  record opens each mapped file when it first reads
# its MMAP2 (through /proc/PID/map_files when the path already changed),
# so the report must show hot_function_alpha/beta, never an impostor:
#   - replaced by mv over it while it runs;
#   - removed while it runs;
#   - one path run twice in one recording, the file replaced in between:
#     each run gets its own file's names.
# The program waits (file handshake) until the binary is changed before
# its hot loops, so the change always happens while it is mapped.

. "$(dirname "$0")/lib.sh"
tap_setup t601

plan 12

cat >"$tmp/hot.c" <<'EOF'
#include <fcntl.h>
#include <stdio.h>
#include <unistd.h>
#ifndef ALPHA
#define ALPHA hot_function_alpha
#define BETA hot_function_beta
#endif
__attribute__((noinline)) long ALPHA(long n)
{
	long x = 1;
	for (long i = 0; i < n; i++) { __asm__ volatile("" : "+r"(x)); x = x * 3 + 1; }
	return x;
}
__attribute__((noinline)) long BETA(long n)
{
	long x = 2;
	for (long i = 0; i < n; i++) { __asm__ volatile("" : "+r"(x)); x = x * 5 + 1; }
	return x;
}
int main(int argc, char **argv)
{
	long r = 0;
	/* argv[1]: say we run; argv[2]: wait for it (30 s at most) */
	if (argc > 2) {
		close(open(argv[1], O_CREAT | O_WRONLY, 0644));
		for (int i = 0; i < 15000 && access(argv[2], F_OK); i++)
			usleep(2000);
	}
	for (int k = 0; k < 3; k++)
		r += ALPHA(40000000) + BETA(40000000);
	printf("%ld\n", r);
	return 0;
}
EOF
cc -O2 -fno-omit-frame-pointer -o "$tmp/hot" "$tmp/hot.c" &&
	cc -O2 -fno-omit-frame-pointer -DALPHA=impostor_alpha -DBETA=impostor_beta \
		-o "$tmp/twin" "$tmp/hot.c"
ok $? "the program and its twin (functions renamed) build"
a=$(nm "$tmp/hot" | awk '$3 == "hot_function_alpha" { print $1 }')
b=$(nm "$tmp/twin" | awk '$3 == "impostor_alpha" { print $1 }')
[ -n "$a" ] && [ "$a" = "$b" ]
ok $? "the twin has the same layout (alpha at $a in both)"

# Leaf functions with their sample counts, hottest first: "count name".
leaves() {
	"$MMPROF" report --folded "$1" | awk '
		{ c = $NF; s = $0; sub(/ [0-9]+$/, "", s); k = split(s, f, ";"); t[f[k]] += c }
		END { for (x in t) printf "%d %s\n", t[x], x }' | sort -k1,1nr
}
# change NAME ACTION: record $tmp/NAME while ACTION (a shell command) is
# applied to the binary after it started; leaves into $tmp/NAME.leaves.
change() {
	cp "$tmp/hot" "$tmp/$1"
	rm -f "$tmp/$1.ready" "$tmp/$1.go"
	(
		i=0
		while [ ! -e "$tmp/$1.ready" ] && [ $i -lt 3000 ]; do sleep 0.01; i=$((i + 1)); done
		sleep 0.2	# mostly after record read the MMAP2; map_files covers the rest
		eval "$2"
		touch "$tmp/$1.go"
	) &
	"$MMPROF" record -q -o "$tmp/$1.mdata" -- "$tmp/$1" "$tmp/$1.ready" "$tmp/$1.go" \
		>/dev/null 2>"$tmp/$1.err"
	rc=$?
	wait
	leaves "$tmp/$1.mdata" >"$tmp/$1.leaves"
	return $rc
}
# check NAME WHAT: the two hottest leaves are the real functions, no impostor
check() {
	top=$(head -2 "$tmp/$1.leaves" | awk '{ print $2 }' | sort | tr '\n' ' ')
	[ "$top" = "hot_function_alpha hot_function_beta " ]
	ok $? "$2: the hottest functions are the ones that ran ($top)"
	! grep -q impostor "$tmp/$1.leaves"
	ok $? "$2: no name of the replacement file"
	total=$(awk '{ t += $1 } END { print t + 0 }' "$tmp/$1.leaves")
	unk=$(awk '$2 == "[unknown]" || $2 ~ /^0x/ { t += $1 } END { print t + 0 }' "$tmp/$1.leaves")
	[ "$total" -gt 100 ] && [ $((unk * 100)) -le $((total * 5)) ]
	ok $? "$2: under 5 % of $total samples unresolved ($unk)"
}

change rep 'cp "$tmp/twin" "$tmp/rep.new" && mv "$tmp/rep.new" "$tmp/rep"'
ok $? "record a program replaced while it runs"
cmp -s "$tmp/rep" "$tmp/twin"
ok $? "... the path holds the twin at record end"
check rep "replaced"

change del 'rm "$tmp/del"'
ok $? "record a program removed while it runs"
check del "removed"

# One path, two files in turn: each run names its own functions.
cp "$tmp/hot" "$tmp/again"
"$MMPROF" record -q -o "$tmp/again.mdata" -- sh -c \
	"'$tmp/again'; cp '$tmp/twin' '$tmp/again.new' && mv '$tmp/again.new' '$tmp/again' && '$tmp/again'" \
	>/dev/null 2>"$tmp/again.err"
leaves "$tmp/again.mdata" >"$tmp/again.leaves"
n_real=$(awk '$2 ~ /^hot_function_/ { t += $1 } END { print t + 0 }' "$tmp/again.leaves")
n_twin=$(awk '$2 ~ /^impostor_/ { t += $1 } END { print t + 0 }' "$tmp/again.leaves")
# both runs do the same work: each holds a fair share of the samples
[ "$n_real" -gt 50 ] && [ "$n_twin" -gt 50 ] &&
	[ $((n_real * 3)) -gt "$n_twin" ] && [ $((n_twin * 3)) -gt "$n_real" ]
ok $? "same path run before and after a replacement: $n_real samples hot_function_*, $n_twin impostor_*"

done_testing
