#!/bin/sh
# t213-report-lost: a file whose runs lost samples (runs.lost > 0, what
# PERF_RECORD_LOST counts when ring buffers overflow) says so in every view:
#   - report (keys, --tree, --folded, --json, --tracepoints, --unresolved,
#     --html) and flamegraph print exactly one warning line on stderr with
#     the count and its share of all samples (kept + lost, as record
#     prints it), and the views' output is unchanged;
#   - --html shows the count in its metadata table;
#   - a file with nothing lost gets no such line.
# The loss is written into a real recording with sqlite3 (overflowing the
# ring buffers on purpose would depend on the machine's speed).

. "$(dirname "$0")/lib.sh"
tap_setup t213

plan 6

"$MMPROF" record -q -r 2 -o "$tmp/ok.data" -- "$wl/page-fault" --iterations 20 --size 4M \
	>/dev/null 2>"$tmp/err"
ok $? "record -r 2 of page-fault"
[ -s "$tmp/err" ] && diag "$tmp/err"
cp "$tmp/ok.data" "$tmp/lost.data"
sqlite3 "$tmp/lost.data" 'UPDATE runs SET lost = 300 WHERE id = 1'
kept=$(sqlite3 "$tmp/lost.data" 'SELECT sum(samples) FROM runs')
pct=$(awk -v k="$kept" 'BEGIN { printf "%.1f", 100 * 300 / (k + 300) }')
test -n "$kept" && test "$kept" -gt 0
ok $? "runs lost 300 of $((kept + 300)) samples ($pct%)"

bad=0
for view in "" --keys --tree --folded --json --tracepoints --unresolved "--html -o $tmp/l.html"; do
	# shellcheck disable=SC2086
	"$MMPROF" report $view "$tmp/lost.data" >"$tmp/out" 2>"$tmp/err"
	rc=$?
	lines=$(grep -c "samples lost" "$tmp/err")
	if [ $rc -ne 0 ] || [ "$lines" -ne 1 ] ||
	   ! grep -q "^mmprof: warning: '.*lost.data': 300 samples lost while recording ($pct% of $((kept + 300)), in 1 of 2 runs)" "$tmp/err"; then
		echo "# report $view: exit $rc, $lines lines: $(cat "$tmp/err")"
		bad=1
	fi
done
[ $bad -eq 0 ]
ok $? "report: one 'samples lost' warning line in every view, with count and %"

"$MMPROF" report --folded "$tmp/ok.data" >"$tmp/a" 2>"$tmp/err0"
"$MMPROF" report --folded "$tmp/lost.data" >"$tmp/b" 2>/dev/null
! grep -q "lost" "$tmp/err0" && cmp -s "$tmp/a" "$tmp/b"
ok $? "nothing lost: no warning; the views' output itself is unchanged"

grep -q "<tr><th>samples</th><td>$kept kept, <b class=\"lost\">300 lost ($pct%)</b></td></tr>" "$tmp/l.html"
ok $? "--html: the metadata table shows kept and lost samples"

"$MMPROF" flamegraph "$tmp/lost.data" -o "$tmp/f.svg" 2>"$tmp/err"
test $? -eq 0 && test "$(grep -c '300 samples lost' "$tmp/err")" -eq 1
ok $? "flamegraph warns once too"

done_testing
