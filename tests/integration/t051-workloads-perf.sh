#!/bin/sh
# t051-workloads-perf: each bundled workload reproduces its kernel
# situation.  Recorded with perf itself (perf record -g -e cpu-clock, as
# mmprof samples on a machine without a hardware PMU), the children view
# must show the kernel path the workload exists for and the workload's own
# named hot functions, so that mmprof's tests and demo can rely on them.
# perf is a dependency of this test: without it the test fails, it does
# not skip.

. "$(dirname "$0")/lib.sh"
tap_setup t051

plan 22

command -v perf >/dev/null 2>&1
ok $? "perf is installed (apt-get install linux-perf)"

# profile NAME WORKLOAD ARGS...: records one run at $hz samples a second
# (perf's default, 4000, unless set), leaves the children report's
# "percent percent comm dso [x] symbol" lines in $tmp/NAME.txt.
hz=4000
profile() {
	name=$1; shift
	perf record -q -g -e cpu-clock -F "$hz" -o "$tmp/$name.data" -- "$@" \
		>"$tmp/$name.out" 2>"$tmp/$name.err"
	rc=$?
	perf report --children --stdio -i "$tmp/$name.data" 2>/dev/null |
		grep -E '^ +[0-9.]+% +[0-9.]+% ' >"$tmp/$name.txt"
	[ $rc -eq 0 ] && [ -s "$tmp/$name.txt" ]
	ok $? "perf record of $name ($*) succeeds"
	[ $rc -eq 0 ] || sed 's/^/# /' "$tmp/$name.err" >&2
}

# expect NAME 'sym1|sym2' WHAT: one of the symbols is in the children view.
expect() {
	line=$(grep -E "\] ($2) *\$" "$tmp/$1.txt" | head -1)
	[ -n "$line" ]
	ok $? "$1: $3 appears ($(echo "${line:-missing}" | awk '{ print $1, $NF }'))"
}

# The THP and thread workloads run a fixed amount of work, not a time: a 1 s
# pthread-churn --thp on run under a load of 15 got one round (16 threads)
# in, 440 samples, 96 % of them the first faults of pthread_create, no
# stack zap and no pthread_churn_release_stack.  A round count gives the
# same samples however busy the machine is (some 1,200 here for 100
# rounds with THP on; 960 thp-zap chunks, 3,200 threads).
#
# Runs that split huge pages hold this lock, so that t050's "--thp off
# splits nothing" check (system-wide /proc/vmstat) does not see them.
exec 9>"${TMPDIR:-/tmp}/mmprof-thp-split.lock"
flock -w 300 9
profile thp-zap "$wl/thp-zap" --thp on --iterations 60
expect thp-zap '__split_huge_pmd' "__split_huge_pmd (PMD split by the partial zap)"
expect thp-zap 'thp_zap_touch' "the user function thp_zap_touch"
expect thp-zap 'thp_zap_partial' "the user function thp_zap_partial (caller of MADV_DONTNEED)"
flock -u 9

profile page-fault "$wl/page-fault" --threads 2 --seconds 1
expect page-fault 'handle_mm_fault' "handle_mm_fault"
expect page-fault 'exc_page_fault' "exc_page_fault"
expect page-fault 'pf_touch_pages' "the user function pf_touch_pages"

profile cow-fork "$wl/cow-fork" --size 32M --seconds 1
expect cow-fork 'wp_page_copy|do_wp_page' "the copy-on-write fault (wp_page_copy or do_wp_page)"
expect cow-fork 'cow_fork_child_write' "the user function cow_fork_child_write"

# pthread-churn's own functions hold about 1 % of its samples: 300 rounds
# at 4000 Hz were 55-123 samples, and a quiet fresh-clone CI run's had
# none of theirs (test 15).  1,000 rounds at 20 kHz: 5,000-6,000 samples
# here, 1-2.7 % of them in those functions.
hz=20000
profile pthread-churn "$wl/pthread-churn" --iterations 1000
hz=4000
expect pthread-churn 'kernel_clone|copy_process' "thread creation (kernel_clone or copy_process)"
# any of them: which one perf catches in a run of short threads depends
# on the load (one CI run under a load of 5 saw only the release of the
# stacks)
expect pthread-churn 'pthread_churn_[a-z_]+' "a pthread_churn_* user function"

# With THP on, 100 rounds at 4000 Hz were some 1,000 samples here, and
# pthread_churn_release_stack had 0 to 8 of them: a fresh-clone CI run
# had none (test 18).  300 rounds at 20 kHz: 39-42 k samples, 13-14 % in
# it, __split_huge_pmd 1.9-2.5 % (four runs).
flock -w 300 9
hz=20000
profile pthread-churn-thp "$wl/pthread-churn" --thp on --iterations 300
hz=4000
flock -u 9
expect pthread-churn-thp '__split_huge_pmd' "__split_huge_pmd (the stack zap at thread exit)"
expect pthread-churn-thp 'pthread_churn_release_stack' "the user function pthread_churn_release_stack"

profile mmap-contend "$wl/mmap-contend" --threads 2 --seconds 1
expect mmap-contend 'do_mmap' "do_mmap"
expect mmap-contend '__vm_munmap|do_vmi_munmap' "munmap (__vm_munmap)"
expect mmap-contend 'mmap_contend_once' "the user function mmap_contend_once"

done_testing
