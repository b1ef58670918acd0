# lib.sh: the preamble every integration test shares, sourced (POSIX sh,
# so both the sh and the bash tests can use it) as
#
#	. "$(dirname "$0")/lib.sh"
#	tap_setup t100		# only if the test needs a scratch folder
#	plan 20			# or let done_testing count
#	grep -q "^ok" "$tmp/out"
#	ok $? "description"
#	...
#	done_testing
#
# One assertion idiom: run the check as a command, then `ok $?` on the next
# line (or `; ok $?` after it) reports its exit status, 0 passing, as the
# shell reads a status.  A status kept for a diagnostic first is `ok $rc`.
# A branch with nothing to check that must fail says `fail "description"`,
# never `ok 1`.
#
# It sets $here (the top of the tree), defaults $MMPROF_BUILD and $MMPROF to
# the tree's build/ when a test is run by hand (make check passes both),
# and $wl to the bundled workloads.  Its names are the test's own: n and
# failed count the assertions, tmp is the scratch folder; the lib's private
# state starts with tap_.  It is not matched by the t*.sh glob, so prove
# does not run it as a test.

here=$(cd "$(dirname "$0")/../.." && pwd)
: "${MMPROF_BUILD:=$here/build}"
: "${MMPROF:=$MMPROF_BUILD/mmprof}"
wl=$MMPROF_BUILD/workloads

n=0
failed=0
tap_planned=

# tap_setup NAME: a fresh $tmp, removed when the test exits.  A test with
# more to undo (background processes, mounts, sysctls) defines
# cleanup_hook, which runs first, while $tmp still exists.
tap_setup() {
	tmp=$(mktemp -d "${TMPDIR:-/tmp}/$1.XXXXXX") || exit 2
	trap tap_cleanup EXIT
}

tap_cleanup() {
	if command -v cleanup_hook >/dev/null 2>&1; then
		cleanup_hook
	fi
	rm -rf "$tmp"
}

# plan N: print the plan up front (done_testing then does not print it)
plan() {
	echo "1..$1"
	tap_planned=$1
}

ok() {	# ok STATUS DESCRIPTION: one TAP line, STATUS 0 (the check's $?) passes
	n=$((n + 1))
	if [ "$1" -eq 0 ]; then
		echo "ok $n - $2"
	else
		echo "not ok $n - $2"
		failed=$((failed + 1))
	fi
}

fail() {	# fail DESCRIPTION: a "not ok" line where nothing could be checked
	ok 1 "$1"
}

diag() { sed 's/^/# /' "$@"; }	# diag [FILE...]: as TAP comments

# tracefs_dir: sets $tracefs to the folder holding events/, mounting
# tracefs where the kernel provides the mount point as record does; empty
# when there is none
tracefs_dir() {
	tracefs=
	for d in /sys/kernel/tracing /sys/kernel/debug/tracing; do
		[ -d "$d/events" ] && { tracefs=$d; return 0; }
	done
	mount -t tracefs nodev /sys/kernel/tracing 2>/dev/null && tracefs=/sys/kernel/tracing
}

# drop_env_warnings FILE: record's stderr in FILE without the warnings a
# kernel that lowered kernel.perf_event_max_sample_rate (it does so itself
# when sampling interrupts take too long) adds to any recording: -F lowered
# to the limit, sampling throttled.  For tests that check stderr exactly.
drop_env_warnings() {
	grep -v -e '^mmprof: warning: -F [0-9]* is above kernel.perf_event_max_sample_rate' \
		-e '^mmprof: warning: the kernel throttled sampling' "$1" || true
}

# done_testing: the plan if none was printed, and exit 1 if anything failed
done_testing() {
	[ -n "$tap_planned" ] || echo "1..$n"
	exit $((failed != 0))
}
