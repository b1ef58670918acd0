#!/bin/sh
# t105-record-mm: `record --mm` records every preset tracepoint the running
# kernel has (the events_used meta against the tracefs directory; a fixed
# name buffer once dropped the five names of 32 characters or more), names
# the ones this kernel lacks in one note and the mm_events_missing meta,
# and does not add an -e tracepoint twice.

. "$(dirname "$0")/lib.sh"
tap_setup t105

# the preset, as man/mmprof-record.1 lists it
preset="kmem:mm_page_alloc kmem:mm_page_free exceptions:page_fault_user
huge_memory:mm_collapse_huge_page huge_memory:mm_khugepaged_scan_pmd
thp:set_migration_pmd thp:remove_migration_pmd
compaction:mm_compaction_begin compaction:mm_compaction_end
migrate:mm_migrate_pages vmscan:mm_vmscan_direct_reclaim_begin
mmap_lock:mmap_lock_start_locking mmap_lock:mmap_lock_acquire_returned"

tracefs_dir

have=
missing=
for ev in $preset; do
	if [ -e "$tracefs/events/${ev%%:*}/${ev#*:}/format" ]; then
		have="$have $ev"
	else
		missing="${missing:+$missing,}$ev"
	fi
done

plan 7

q() { sqlite3 "$tmp/mm.data" "$1"; }

# 1-2: record --mm on a command that allocates and faults pages
"$MMPROF" record --mm -o "$tmp/mm.data" -- dd if=/dev/zero of=/dev/null bs=1M count=20 \
	>"$tmp/out" 2>"$tmp/err"
rc=$?
ok $rc "record --mm exits 0"
[ $rc -eq 0 ] || diag "$tmp/err"
used=$(q "select value from meta where key = 'events_used'" | tr ',' '\n' | sort | tr '\n' ' ')
want=$(printf '%s\n' cpu-clock $have | sort | tr '\n' ' ')
test "$used" = "$want"
ok $? "events_used is cpu-clock and every preset tracepoint in $tracefs/events ($(echo $have | wc -w) of 13)"
[ "$used" = "$want" ] || { echo "# used: $used"; echo "# want: $want"; }

# 3: each of them is an event of the file, sampled every hit
got=$(q "select count(*) from events_v where freq = 0 and sample = 1 and name in ('$(echo $have | sed "s/ /','/g")')")
test "$got" = "$(echo $have | wc -w)"
ok $? "each is an event sampled every hit (got $got)"

# 4-5: the ones this kernel lacks: one note and the meta, or neither
if [ -n "$missing" ]; then
	test "$(grep -c '^mmprof: --mm: ' "$tmp/err")" = 1 &&
	      grep -qF "this kernel has no $missing;" "$tmp/err"
	ok $? "one note names the missing $missing"
	test "$(q "select value from meta where key = 'mm_events_missing'")" = "$missing"
	ok $? "mm_events_missing is $missing"
else
	grep -q -- '--mm' "$tmp/err"; test $? -ne 0
	ok $? "none missing here: no note"
	test -z "$(q "select value from meta where key = 'mm_events_missing'")"
	ok $? "and no mm_events_missing meta"
fi

# 6-7: an -e tracepoint of the preset is not added twice; -e keeps its event
"$MMPROF" record -q --mm -e page-faults,kmem:mm_page_alloc -o "$tmp/mm.data" -- true 2>"$tmp/err"
rc=$?
ok $rc "record --mm -e page-faults,kmem:mm_page_alloc exits 0"
[ $rc -eq 0 ] || diag "$tmp/err"
used=$(q "select value from meta where key = 'events_used'" | tr ',' '\n')
test "$(echo "$used" | grep -c '^kmem:mm_page_alloc$')" = 1 &&
      test "$(echo "$used" | head -1)" = page-faults &&
      ! echo "$used" | grep -q '^cpu-clock$'
ok $? "kmem:mm_page_alloc once, page-faults first, no cpu-clock added"

done_testing
