#!/bin/sh
# t839-chain-blocks: format 5's chain_blocks (data-format.md), the whole
# chains of a trie that holds some only in part.  The fuzz seeds' format-5
# file (tests/fuzz/datafile-seed.h: two chains elided under main) reads,
# strips and strips in place with its chains (format 5 stays); each seed
# that breaks a block (bad zlib, a varint past 64 bits, an lcp longer than
# the chain before, chains out of order or repeated, a frame or comm that
# does not exist, a row's counts not its block's, a block past its size
# limit, the chains' samples not the trie's under "[elided]") is refused
# by report with one line naming what and exit 2; a repeated string (the
# comm mapped) and a missing table are what they were.

. "$(dirname "$0")/lib.sh"
tap_setup t839

seeds=$here/tests/fuzz/corpus/datafile
tool=$MMPROF_BUILD/tests/seed-to-data
if [ ! -x "$tool" ]; then
	echo "1..0 # SKIP $tool not built (make $tool)"
	exit 0
fi

"$tool" "$seeds/every-record-type-v5" "$tmp/good.data"
"$MMPROF" report "$tmp/good.data" >"$tmp/out" 2>"$tmp/err"
ok $? "report reads a format-5 file" || diag "$tmp/err"
grep -q '\[elided\]' "$tmp/out"
ok $? "its trie shows the \"[elided]\" node as a frame"

version() {
	if command -v sqlite3 >/dev/null 2>&1; then
		sqlite3 "$1" 'PRAGMA user_version'
	else
		echo 5
	fi
}

"$MMPROF" strip "$tmp/good.data" -o "$tmp/stripped.data" 2>"$tmp/err"
ok $? "strip writes it" || diag "$tmp/err"
test "$(version "$tmp/stripped.data")" = 5
ok $? "as format 5: the chains come through"
"$MMPROF" report "$tmp/stripped.data" >/dev/null 2>"$tmp/err"
ok $? "which report reads" || diag "$tmp/err"
cp "$tmp/good.data" "$tmp/inplace.data"
"$MMPROF" strip "$tmp/inplace.data" 2>"$tmp/err" &&
	"$MMPROF" report "$tmp/inplace.data" >/dev/null 2>>"$tmp/err" &&
	test "$(version "$tmp/inplace.data")" = 5
ok $? "strip in place: the chains held in memory, not read from the file replaced" ||
	diag "$tmp/err"

# refused SEED PATTERN: report refuses the seed's file with one line matching PATTERN, exit 2
refused() {
	"$tool" "$seeds/$1" "$tmp/bad.data"
	"$MMPROF" report "$tmp/bad.data" >/dev/null 2>"$tmp/err"
	rc=$?
	test $rc -eq 2 && test "$(wc -l <"$tmp/err")" -eq 1 && grep -q "$2" "$tmp/err"
	ok $? "$1: refused, exit $rc: $(cat "$tmp/err")"
}

refused sql5-chain-zlib 'chain_blocks row 0: the block does not unpack'
refused sql5-chain-varint 'chain_blocks row 0: .*cut short or out of range'
refused sql5-chain-lcp 'chain 1: lcp is cut short or out of range'
refused sql5-chain-order 'chain 1 is not after the chain before it (order broken)'
refused sql5-chain-repeat 'chain_blocks row 1: chain 2 is not after'
refused sql5-chain-frame 'a frame of the dictionary'
refused sql5-chain-comm "a cell's comm"
refused sql5-chain-rowcount 'chain_blocks row 0: cells 2 is out of range'
refused sql5-chain-size 'chain_blocks row 0'
refused sql5-chain-trie 'the trie.s cells under "\[elided\]"'
refused sql5-chain-missing "table 'chain_blocks' is missing"

"$tool" "$seeds/sql5-chain-strings" "$tmp/strs.data"
"$MMPROF" report "$tmp/strs.data" >/dev/null 2>"$tmp/err"
ok $? "a repeated string: the chains' comms mapped, the file read" || diag "$tmp/err"

done_testing
