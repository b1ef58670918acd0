#!/bin/sh
# run-test.sh TEST: how make check has prove run each test (prove --exec).
# The test's stdout (TAP) and stderr pass through as they are, and are kept
# in $TEST_LOGS/NAME.{out,err,rc} so that a failing run can be shown whole
# afterwards (show-failed), where a CI log's tail will have it.
#
# run-test.sh --show-failed: print the kept TAP and stderr of every test
# that exited non-zero or printed "not ok", last 80 lines of each.

: "${TEST_LOGS:?TEST_LOGS is not set}"

if [ "$1" = --show-failed ]; then
	for rc in "$TEST_LOGS"/*.rc; do
		[ -e "$rc" ] || continue
		log=${rc%.rc}
		[ "$(cat "$rc")" != 0 ] || grep -q '^not ok' "$log.out" || continue
		echo "=== failed: $(basename "$log") (exit $(cat "$rc")): its TAP and stderr ==="
		tail -n 80 "$log.out"
		echo "--- stderr ---"
		tail -n 80 "$log.err"
	done
	exit 0
fi

mkdir -p "$TEST_LOGS"
log=$TEST_LOGS/$(basename "$1")
"$1" >"$log.out" 2>"$log.err"
rc=$?
echo $rc >"$log.rc"
cat "$log.out"
cat "$log.err" >&2
exit $rc
