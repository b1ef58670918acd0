#!/bin/sh
# t107-record-events: what -e and a few options accept and refuse.
#   - tracepoint globs (perf's sys:* and sys:prefix*) stand for every
#     tracepoint tracefs lists under them (events_used against the tracefs
#     folder), overlap with another -e without a duplicate, and a glob
#     that matches nothing is one error line, exit 2;
#   - an event given twice (two events of one name: their keys collided)
#     is one error line, exit 2, and no file is written;
#   - --no-callchain with --call-graph, in either order: exit 2;
#   - a workload that ends within --delay: a warning, even with -q.

. "$(dirname "$0")/lib.sh"
tap_setup t107

tracefs_dir

q() { sqlite3 "$1" "select value from meta where key = '$2'"; }
# one_line FILE PATTERN: FILE is exactly one line and it matches PATTERN
one_line() { test "$(drop_env_warnings "$1" | wc -l)" -eq 1 && grep -q -- "$2" "$1"; }

# ---- globs
"$MMPROF" record -q -e 'huge_memory:*' -o "$tmp/g.data" -- true 2>"$tmp/err"
rc=$?
ok $rc "record -e 'huge_memory:*' exits 0"
[ $rc -eq 0 ] || diag "$tmp/err"
want=$(cd "$tracefs/events/huge_memory" && for d in *; do [ -d "$d" ] && echo "huge_memory:$d"; done | sort | tr '\n' ',')
used=$(q "$tmp/g.data" events_used | tr ',' '\n' | sort | tr '\n' ',')
test -n "$want" && test "$used" = "$want"; ok $? "events_used is every huge_memory tracepoint of tracefs"
[ "$used" = "$want" ] || { echo "# used: $used"; echo "# want: $want"; }

"$MMPROF" record -q -e 'mmap_lock:mmap_lock_*,thp:*' -e mmap_lock:mmap_lock_released \
	-o "$tmp/g2.data" -- true 2>"$tmp/err"
rc=$?
used=$(q "$tmp/g2.data" events_used | tr ',' '\n')
test $rc -eq 0 && test "$(echo "$used" | grep -c '^mmap_lock:mmap_lock_released$')" = 1 &&
	echo "$used" | grep -q '^thp:' && echo "$used" | grep -q '^mmap_lock:mmap_lock_start_locking$'
ok $? "a prefix glob and a sys glob; an -e that a glob already matched is there once"
[ $rc -eq 0 ] || diag "$tmp/err"

"$MMPROF" record -q -e 'no_such_subsystem:*' -o "$tmp/x.data" -- true 2>"$tmp/err"
test $? -eq 2 && one_line "$tmp/err" "no tracepoint matches 'no_such_subsystem:\*'" && test ! -e "$tmp/x.data"
ok $? "a glob that matches nothing: one line, exit 2, no file"
diag "$tmp/err"

# ---- duplicates
"$MMPROF" record -q -e cpu-clock -e cpu-clock -o "$tmp/x.data" -- true 2>"$tmp/err"
test $? -eq 2 && one_line "$tmp/err" "event 'cpu-clock' is given twice" && test ! -e "$tmp/x.data"
ok $? "-e cpu-clock -e cpu-clock: one line, exit 2, no file"
"$MMPROF" record -q -e 'page-faults:u,cpu-clock,page-faults:u' -o "$tmp/x.data" -- true 2>"$tmp/err"
test $? -eq 2 && one_line "$tmp/err" "event 'page-faults:u' is given twice"
ok $? "a duplicate within one comma list (with a modifier): exit 2"
"$MMPROF" record -q -e page-faults:u -e page-faults:k -o "$tmp/x.data" -- true 2>"$tmp/err"
ok $? "one event with different modifiers is two events: accepted"

# ---- --no-callchain with --call-graph
for args in "--no-callchain --call-graph dwarf" "--call-graph fp --no-callchain"; do
	# shellcheck disable=SC2086
	"$MMPROF" record -q $args -o "$tmp/x.data" -- true 2>"$tmp/err"
	test $? -eq 2 && one_line "$tmp/err" "--no-callchain and --call-graph exclude each other"
	ok $? "record $args: one line, exit 2"
done

# ---- --delay longer than the workload
"$MMPROF" record -q -e cpu-clock --delay 5 -o "$tmp/d.data" -- sleep 0.2 2>"$tmp/err"
test $? -eq 0 && grep -q "warning: the workload ended within --delay 5 s: no sampling window" "$tmp/err"
ok $? "--delay 5 on a 0.2 s workload: a warning (with -q)"
diag "$tmp/err"
"$MMPROF" record -q -e cpu-clock --delay 0.05 -o "$tmp/d.data" -- "$wl/page-fault" -s 0.5 --size 4M \
	>/dev/null 2>"$tmp/err"
test $? -eq 0 && ! grep -q -- "--delay" "$tmp/err"; ok $? "a workload that outlasts --delay: no such warning"

done_testing
