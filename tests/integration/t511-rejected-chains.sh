#!/bin/sh
# t511-rejected-chains: samples whose callchain perf rejects (#19 4).
# A frame-pointer walk through code without frame pointers can read
# 0xffffffffffffffff (at or above PERF_CONTEXT_MAX, no context marker) as
# a return address; perf then drops the chain and keeps the sample at its
# IP.  The program here spins with %rbp on a fake frame whose return
# address is that value, followed by a frame with a real address of main.
#   - record: the samples are kept at their IP, under the marker frame
#     "[callchain rejected]" (before: the value was read as a context
#     marker and main's address became an unresolved kernel frame),
#     counted in meta callchains_rejected;
#   - import of perf's own recording: perf script prints no frame for such
#     a sample; import reads -G and places it at its IP (before: one
#     [unknown] frame, which -U dropped from the total), so self and
#     children of the spinning function are perf report's to two decimals;
#   - a perf script text with such a frame keeps the sample at its first
#     frame;
#   - perf record -a's side-band event dummy:HG, which never samples, is
#     not imported as a sampling event: diff compares the import with an
#     mmprof recording without --force.

. "$(dirname "$0")/lib.sh"
tap_setup t511

plan 13

# the program spins for ARGV[1] seconds of its own CPU time, not of the
# wall clock: cpu-clock samples count CPU time, and 1 s of wall clock on a
# loaded machine (load 15 on 2 cores) gave perf 41 samples (t511 5)
cat >"$tmp/jc.c" <<'EOC'
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

uint64_t fake_outer[2];
uint64_t fake_frame[2];

__attribute__((noinline)) void junk_chain_spin(long n)
{
	__asm__ volatile("push %%rbp\n\t"
			 "mov %1, %%rbp\n\t"
			 "1: dec %0\n\t"
			 "jnz 1b\n\t"
			 "pop %%rbp\n\t"
			 : "+r"(n) : "r"(fake_frame) : "memory", "cc");
}

int main(int argc, char **argv)
{
	double secs = argc > 1 ? atof(argv[1]) : 1;
	struct timespec t0, t;

	fake_outer[1] = (uint64_t)(uintptr_t)&main + 16;
	fake_frame[0] = (uint64_t)(uintptr_t)fake_outer;
	fake_frame[1] = UINT64_MAX;
	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t0);
	do {
		junk_chain_spin(20000000);
		clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
	} while ((t.tv_sec - t0.tv_sec) + (t.tv_nsec - t0.tv_nsec) / 1e9 < secs);
	return 0;
}
EOC
cc -O1 -fno-omit-frame-pointer -o "$tmp/jc" "$tmp/jc.c"
ok $? "build the program with the fake frame"

# 2-3: record
timeout 300 "$MMPROF" record -q -F 499 -o "$tmp/rec.data" -- "$tmp/jc" 1 2>"$tmp/err"
"$MMPROF" report --folded "$tmp/rec.data" >"$tmp/rec.folded" 2>/dev/null
grep -q '^\[callchain rejected\];junk_chain_spin [0-9]*$' "$tmp/rec.folded" &&
	! grep -q '^\[unknown\];junk_chain_spin' "$tmp/rec.folded"
ok $? "record keeps such samples at their IP under the marker frame, with no frame from after the bad value"
test "$(sqlite3 "$tmp/rec.data" "select value > 0 from meta where key = 'callchains_rejected'")" = 1
ok $? "record counts them in meta callchains_rejected"

# 4-7: perf's recording, imported
perf record -q -g -e cpu-clock -F 499 -o "$tmp/perf.data" -- "$tmp/jc" 1 >/dev/null 2>&1
ok $? "perf record -g the program"
nf=$(perf script -i "$tmp/perf.data" 2>/dev/null | awk 'BEGIN { RS = "" } { if (split($0, l, "\n") == 1) n++ } END { print n + 0 }')
test "$nf" -gt 50
ok $? "perf script prints no frame for most of its samples ($nf)"
"$MMPROF" import -o "$tmp/imp.data" "$tmp/perf.data" 2>"$tmp/err"
ok $? "import exits 0"
perf report -i "$tmp/perf.data" --children --sort=dso,symbol -g none -U --stdio 2>/dev/null |
	awk '$5 == "junk_chain_spin" { print $1 " " $2 }' | tr -d % >"$tmp/perf.pct"
"$MMPROF" report --keys "$tmp/imp.data" 2>/dev/null |
	sed -n 's/^perf-profile\.\(children\|self\)\.cpu-clock\.junk_chain_spin: //p' | paste -d ' ' - - >"$tmp/mm.pct"
test -s "$tmp/perf.pct" && cmp -s "$tmp/perf.pct" "$tmp/mm.pct"
ok $? "children and self of the function are perf report's: $(cat "$tmp/perf.pct") vs $(cat "$tmp/mm.pct")"
"$MMPROF" report --folded "$tmp/imp.data" 2>/dev/null | grep -q '^\[callchain rejected\];junk_chain_spin [0-9]*$' &&
	! "$MMPROF" report --keys "$tmp/imp.data" 2>/dev/null | grep -q 'calltrace\.cpu-clock\.junk_chain_spin\|rejected'
ok $? "imported samples sit at their IP; no calltrace key (perf prints no folded line for them), no key for the marker"

# 8-9: text with the value as a frame
printf '%s\n' 'jc 100/100 [000] 10.000000: 1000 cpu-clock: ' \
	'	    55d1a000112c junk_chain_spin+0xc (/tmp/jc)' \
	'	ffffffffffffffff [unknown] ([unknown])' \
	'	    55d1a0001180 main+0x10 (/tmp/jc)' '' >"$tmp/bad.txt"
"$MMPROF" import -o "$tmp/txt.data" - <"$tmp/bad.txt" 2>"$tmp/err"
ok $? "import of text with a frame at PERF_CONTEXT_MAX or above exits 0"
test "$("$MMPROF" report --folded "$tmp/txt.data" 2>/dev/null)" = "[callchain rejected];junk_chain_spin 1"
ok $? "its sample keeps only its first frame, as perf report"

# 11-13: perf record -a carries dummy:HG
perf record -q -a -g -e cpu-clock -F 499 -o "$tmp/all.perf" -- "$tmp/jc" 0.5 >/dev/null 2>&1 &&
	perf evlist -i "$tmp/all.perf" 2>/dev/null | grep -q '^dummy'
ok $? "perf record -a stores a dummy event"
"$MMPROF" import -o "$tmp/all.data" "$tmp/all.perf" 2>"$tmp/err" &&
	test "$(sqlite3 "$tmp/all.data" 'select group_concat(name) from events_v')" = cpu-clock
ok $? "import keeps cpu-clock only"
"$MMPROF" diff "$tmp/rec.data" "$tmp/all.data" >/dev/null 2>"$tmp/err" &&
	! grep -qi 'different sampling events' "$tmp/err"
ok $? "diff of a recording and the import needs no --force"

done_testing
