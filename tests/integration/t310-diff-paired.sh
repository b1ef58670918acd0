#!/bin/sh
# t310-diff-paired: the two files of one `record --interleave` hold run i
# of each side beside run i of the other, and diff --paired tests each key
# on the within-pair differences (issue 32 point 6; without --paired the
# header names the pairs and tests the runs as independent, as the real
# corpus's A/A figures advise: statistics.md, Pairs): the header and JSON say so,
# and the diff falls back to the unpaired test, saying why, where the
# pairing does not hold (a pair broken by --drop-run, files of two
# recordings, a file without the meta).  On the committed corpus
# (tests/recorded, recorded with --interleave).  diff -g and the flame
# graph's colours test the same pairs.

. "$(dirname "$0")/lib.sh"
tap_setup t310
plan 14

rec=$here/tests/recorded
d() { "$MMPROF" diff --no-color --paired "$@" 2>"$tmp/err"; }

# without --paired the pairs are named and the runs tested as independent
"$MMPROF" diff --no-color "$rec/thp-zap/a.data" "$rec/thp-zap/b.data" 2>/dev/null |
	grep -q "^unpaired: 4 pairs recorded interleaved (--paired tests within pairs; .*); each side's runs tested as independent$"
ok $? "without --paired: 'unpaired: 4 pairs recorded interleaved (--paired ...)'"

d "$rec/thp-zap/a.data" "$rec/thp-zap/b.data" >"$tmp/out"
grep -q "^paired: 4 pairs recorded interleaved" "$tmp/out"
ok $? "an interleaved recording's two files: 'paired: 4 pairs' in the header"
d -f json "$rec/thp-zap/a.data" "$rec/thp-zap/b.data" >"$tmp/json"
python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); sys.exit(d["diff"]["pairs"] != 4 or "unpaired" in d["diff"])' "$tmp/json"
ok $? "JSON: \"pairs\": 4"
d "$rec/thp-zap/b.data" "$rec/thp-zap/a.data" | grep -q "^paired: 4 pairs"
ok $? "the files the other way round: paired"

d --drop-run base:1 "$rec/thp-zap/a.data" "$rec/thp-zap/b.data" >"$tmp/out"
grep -q "^unpaired: base run 1 is dropped and new run 1 compared (--drop-run): drop both runs of a pair or neither; each side's runs tested as independent" "$tmp/out"
ok $? "a pair broken by --drop-run: unpaired, and why"
[ $? -eq 0 ] || grep paired "$tmp/out" | diag
d -f json --drop-run base:1 "$rec/thp-zap/a.data" "$rec/thp-zap/b.data" >"$tmp/json"
python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); sys.exit("pairs" in d["diff"] or "base run 1 is dropped" not in d["diff"]["unpaired"])' "$tmp/json"
ok $? "JSON: \"unpaired\" says why"
d --drop-run base:1 --drop-run new:1 "$rec/thp-zap/a.data" "$rec/thp-zap/b.data" | grep -q "^paired: 3 pairs"
ok $? "both runs of a pair dropped: paired, 3 pairs"
d --drop-run base:1 --drop-run new:1 --drop-run base:2 --drop-run new:2 \
	"$rec/thp-zap/a.data" "$rec/thp-zap/b.data" | grep -q "^unpaired: 2 pairs: a paired test needs 3"
ok $? "2 pairs: unpaired, too few"

d "$rec/thp-zap/a.data" "$rec/aa-vm/b.data" >"$tmp/out"
grep -q "^unpaired: file 1: run 0 of base and of new were not recorded side by side" "$tmp/out"
ok $? "files of two recordings: unpaired (their start times)"
[ $? -eq 0 ] || grep paired "$tmp/out" | diag
cp "$rec/thp-zap/a.data" "$tmp/plain.data"
sqlite3 "$tmp/plain.data" "update meta set key = 'was.' || key where key like 'interleave.%'"
d "$tmp/plain.data" "$rec/thp-zap/b.data" | grep -q "^unpaired: file 1 of base and of new are not the two sides of one interleaved recording"
ok $? "a file without the meta against its partner: unpaired"
d "$tmp/plain.data" "$tmp/plain.data" >"$tmp/out"
! grep -q "paired" "$tmp/out"
ok $? "files that claim no pairing: nothing said"

# the A/A pair, paired, with every run and 3 pairs of 4: quiet
bad=0
for drop in "" 0 1 2 3; do
	set --
	[ -n "$drop" ] && set -- --drop-run "base:$drop" --drop-run "new:$drop"
	d --all "$@" "$rec/aa-vm/a.data" "$rec/aa-vm/b.data" >"$tmp/aa"
	grep -q "^paired:" "$tmp/aa" || bad=$((bad + 1))
	flags=$(grep -cE "\[(up|down|new|gone) q=" "$tmp/aa")
	[ "$flags" -le 1 ] || { bad=$((bad + 1)); echo "drop $drop: $flags rows flagged"; }
done >"$tmp/aa.diag"
test $bad -eq 0
ok $? "stress-ng --vm against itself, paired (4 pairs and every 3 of them): at most one row flagged"
[ $bad -eq 0 ] || diag "$tmp/aa.diag"

# diff -g tests the same pairs: a function that appears in every new run is flagged as a path too
d -g "$rec/thp-zap/a.data" "$rec/thp-zap/b.data" >"$tmp/g"
ok $? "diff -g of the paired files"
grep -E "__split_huge_pmd → __split_huge_pmd_locked +\+[0-9.]+ .*q=[0-9.e-]+, detectable" "$tmp/g" | grep -qv "not significant"
ok $? "diff -g, paired: the path to __split_huge_pmd is significant"
done_testing
