#!/bin/sh
# t701-trace: tracepoint fields decoded with libtraceevent.
#   - exceptions:page_fault_user: the fault addresses of a workload that
#     prints its buffer range fall inside it (2 MiB regions), and the
#     count covers the pages it touched;
#   - --mm on thp-zap --thp on: kmem:mm_page_alloc order 9 (huge page
#     allocations) is counted, at least once per THP fault the workload
#     reports; report --tracepoints shows it; --field adds a histogram;
#   - a --field given twice, or naming a field a default covers, counts
#     each hit once: every histogram sums to the event's count;
#   - a --field of an unknown field fails in one line.
# (On this kernel huge_memory:* and thp:* are khugepaged/migration events
# that a fault-and-zap workload does not hit; kmem order 9 is its trace.)

. "$(dirname "$0")/lib.sh"
tap_setup t701

val() { awk -v k="$1:" '$1 == k { print $2; exit }' "$2"; }

plan 13

"$MMPROF" record -q -e exceptions:page_fault_user -o "$tmp/f.data" -- \
	"$MMPROF_BUILD/workloads/fault-range" --thp off --size 8M >"$tmp/out" 2>"$tmp/err"
ok $? "record -e exceptions:page_fault_user exits 0"
range=$(sed -n 's/^fault-range: buffer //p' "$tmp/err")
start=$(printf '%d' "${range%-*}")
end=$(printf '%d' "${range#*-}")
"$MMPROF" report --keys "$tmp/f.data" >"$tmp/keys"
count=$(val tracepoint.exceptions:page_fault_user.count "$tmp/keys")
test -n "$count" && test "$count" -ge 2048
ok $? "faults counted ($count >= 2048 pages)"
# regions inside the buffer carry the 2048 faults of fr_touch
inside=0 top= topn=0
grep '^tracepoint\.exceptions:page_fault_user\.address\.0x' "$tmp/keys" |
	sed 's/^tracepoint\.exceptions:page_fault_user\.address\.\(0x[0-9a-f]*\): \([0-9]*\)$/\1 \2/' >"$tmp/regions"
while read -r region hits; do
	r=$(printf '%d' "$region")
	[ $((r + 2097152)) -gt "$start" ] && [ "$r" -lt "$end" ] && inside=$((inside + hits))
	[ "$hits" -gt "$topn" ] && { topn=$hits; top=$region; }
done <"$tmp/regions"
test "$inside" -ge 2048
ok $? "the decoded addresses of $inside faults fall inside the buffer $range"
r=$(printf '%d' "${top:-0}")
test $((r + 2097152)) -gt "$start" && test "$r" -lt "$end"
ok $? "the busiest region ($top) is the buffer's"

lock=${TMPDIR:-/tmp}/mmprof-thp-split.lock
# While the rest of make check holds the memory the kernel may have no
# huge page to give (as record_thp_on in lib.sh): again, at most three
# times, until every iteration had its order-9 allocation.
for attempt in 1 2 3; do
	flock "$lock" "$MMPROF" record -q --mm --field kmem:mm_page_alloc/gfp_flags -o "$tmp/mm.data" -- \
		"$MMPROF_BUILD/workloads/thp-zap" --thp on -n 10 >"$tmp/out" 2>"$tmp/err"
	rc=$?
	"$MMPROF" report --keys "$tmp/mm.data" >"$tmp/keys"
	# (thp-zap.thp_fault_alloc is a system-wide /proc/vmstat delta that tests
	# running in parallel inflate: compare with the iterations instead)
	o9=$(val tracepoint.kmem:mm_page_alloc.order.9 "$tmp/keys")
	echo "# attempt $attempt: order-9 allocations ${o9:-none}"
	[ $rc -ne 0 ] || { test -n "$o9" && test "$o9" -ge 10; } && break
done
ok $rc "record --mm of thp-zap --thp on exits 0"
[ -s "$tmp/err" ] && sed 's/^/# /' "$tmp/err"
test -n "$o9" && test "$o9" -ge 10
ok $? "order-9 page allocations ($o9): at least one huge page per iteration (10)"
grep -q '^tracepoint\.kmem:mm_page_alloc\.gfp_flags\.' "$tmp/keys"
ok $? "--field adds a histogram"
"$MMPROF" report --tracepoints "$tmp/mm.data" >"$tmp/tp"
grep -q '^kmem:mm_page_alloc  *[0-9]' "$tmp/tp" && grep -q '^  order=9  ' "$tmp/tp"
ok $? "report --tracepoints lists the event and order=9"
grep -c '^[a-z_]*:[a-z_]* ' "$tmp/tp" | awk '{ exit !($1 >= 3) }'
ok $? "and the other mm tracepoints of this kernel"

# each hit once per field: the histograms (top values + other) sum to the count
"$MMPROF" record -q -e kmem:mm_page_alloc,exceptions:page_fault_user \
	--field kmem:mm_page_alloc/order --field kmem:mm_page_alloc/order \
	--field exceptions:page_fault_user/address -o "$tmp/d.data" -- \
	"$MMPROF_BUILD/workloads/fault-range" --thp off --size 8M >"$tmp/out" 2>"$tmp/err"
ok $? "record with a repeated --field and one a default covers exits 0"
"$MMPROF" report --keys "$tmp/d.data" >"$tmp/keys"
sums=
for f in kmem:mm_page_alloc.order exceptions:page_fault_user.address; do
	c=$(val "tracepoint.${f%.*}.count" "$tmp/keys")
	s=$(grep "^tracepoint\.$f\." "$tmp/keys" | awk '{ s += $2 } END { print s + 0 }')
	sums="$sums $f $s of $c;"
	[ -n "$c" ] && [ "$c" -gt 0 ] && [ "$s" = "$c" ] || sums="$sums MISMATCH"
done
echo "$sums" | grep -qv MISMATCH
ok $? "each hit counted once per field:$sums"

"$MMPROF" record -q -e kmem:mm_page_alloc --field kmem:mm_page_alloc/nope -o "$tmp/x.data" -- true \
	>/dev/null 2>"$tmp/err"
rc=$?
test $rc -eq 2 && test "$(wc -l <"$tmp/err")" -eq 1 && test ! -e "$tmp/x.data"
ok $? "an unknown field: exit 2, one line ($(cat "$tmp/err"))"
"$MMPROF" report --tracepoints "$tmp/f.data" >/dev/null && "$MMPROF" report --tracepoints --json "$tmp/f.data" 2>/dev/null
test $? -eq 2
ok $? "--tracepoints excludes --json"

done_testing
