#!/bin/sh
# t212-run-index: every --run option numbers a file's runs the same way,
# from 0 (report --folded, export, flamegraph; report --json's run index):
#   - on a two-run file, --run R of each command shows the same samples,
#     run R's own, for R = 0 and 1 (the two runs' counts differ, so an
#     off-by-one shows);
#   - --run 2 (no such run) exits 2 in each command, naming the numbering.

. "$(dirname "$0")/lib.sh"
tap_setup t212

plan 6

"$MMPROF" record -q -r 2 -o "$tmp/r2.data" -- "$wl/page-fault" --iterations 30 --size 4M \
	>/dev/null 2>"$tmp/err"
ok $? "record -r 2 of page-fault"
[ -s "$tmp/err" ] && diag "$tmp/err"

sum() { awk '{ s += $NF } END { print s + 0 }'; }
for r in 0 1; do
	rep=$("$MMPROF" report --folded --run $r "$tmp/r2.data" | sum)
	exp=$("$MMPROF" export --format folded --run $r "$tmp/r2.data" | sum)
	"$MMPROF" flamegraph --samples --run $r "$tmp/r2.data" -o "$tmp/r$r.svg" 2>"$tmp/err"
	svg=$(sed -n 's/^100\.00% · \([0-9]*\) samples.*/\1/p' "$tmp/r$r.svg" | head -1)
	json=$("$MMPROF" report --json "$tmp/r2.data" | python3 -c '
import json, sys
r = [x for x in json.load(sys.stdin)["runs"] if x["index"] == int(sys.argv[1])]
print(r[0]["samples"] if r else "none")' $r)
	echo "# run $r: report $rep, export $exp, flamegraph $svg, json samples $json"
	test -n "$rep" && test "$rep" -gt 0 && test "$rep" = "$exp" && test "$rep" = "$svg"
	ok $? "--run $r: report, export and flamegraph show the same run ($rep samples)"
done
all=$("$MMPROF" report --folded "$tmp/r2.data" | sum)
test "$all" -gt "$rep"
ok $? "all runs ($all) are more than run 1 alone ($rep)"

bad=0
for cmd in "report --folded" "export --format folded" "flamegraph -o $tmp/x.svg"; do
	# shellcheck disable=SC2086
	"$MMPROF" $cmd --run 2 "$tmp/r2.data" >/dev/null 2>"$tmp/err"
	rc=$?
	if [ $rc -ne 2 ] || ! grep -q 'no run 2 .*numbered from 0' "$tmp/err"; then
		echo "# $cmd --run 2: exit $rc: $(cat "$tmp/err")"
		bad=1
	fi
done
[ $bad -eq 0 ]
ok $? "--run 2 of a two-run file: exit 2 in every command, numbered from 0"

"$MMPROF" report --json "$tmp/r2.data" | python3 -c '
import json, sys
sys.exit([x["index"] for x in json.load(sys.stdin)["runs"]] != [0, 1])'
ok $? "report --json numbers the runs 0 and 1"

done_testing
