#!/bin/sh
# t703-sched-start: a workload that sleeps at once has that first wait
# counted by record --sched, in the fork (its sources enable at the exec)
# and under -a with a command, whose sources cannot enable at the exec and
# were switched on only at the loop's first turn, after the release: the
# 200 ms nanosleep at the start of main was missed (3 of 3 recordings
# under -a before the fix).  (-p with a command watches the pids only.)

. "$(dirname "$0")/lib.sh"
tap_setup t703

cat >"$tmp/sleeper.c" <<'C'
#include <time.h>
int main(void)
{
	struct timespec ts = { 0, 200000000 };

	nanosleep(&ts, 0);
	return 0;
}
C
plan 5
cc -O2 -o "$tmp/t703sleeper" "$tmp/sleeper.c"
ok $? "cc builds a program that sleeps 200 ms at once"

# first_wait FILE: the off-CPU ns of t703sleeper's nanosleep stacks
first_wait() {
	"$MMPROF" report --folded --comm --period -e offcpu "$1" 2>"$tmp/rerr" |
		awk '$0 ~ /^t703sleeper;/ && /nanosleep/ { ns += $NF } END { print ns + 0 }'
}

check() {	# check MODE-DESCRIPTION RECORD-ARGS...
	what=$1
	shift
	"$MMPROF" record -q --sched -o "$tmp/s.data" "$@" -- "$tmp/t703sleeper" \
		>"$tmp/out" 2>"$tmp/err"
	ok $? "$what: record exits 0"
	[ -s "$tmp/err" ] && diag "$tmp/err"
	ns=$(first_wait "$tmp/s.data")
	# it slept 200 ms; at least 150 of them counted, whatever the load
	awk -v ns="$ns" 'BEGIN { exit !(ns >= 150e6) }'
	ok $? "$what: the first wait is counted ($ns ns off CPU in nanosleep)"
}

check "fork"
check "-a" -a
done_testing
