#!/bin/sh
# t219-buildid-cache: a stripped program whose unstripped build perf has
# seen is named from perf's build-id cache, as perf report names it.
# perf record (and perf buildid-cache --add) keep a copy of every binary
# they met under ~/.debug, and perf report looks up a stripped file's
# symbols there by build-id: on a machine where perf was used, a stripped
# copy of a program is named by perf and was [unknown] to mmprof.
#   - the cache as perf itself lays it out ($HOME/.debug, made here by
#     perf buildid-cache --add): record and report name spin (perf report
#     of the same: spin 99.60 % self, without the cache an address);
#   - $PERF_BUILDID_DIR, perf's own override, is read instead of $HOME's;
#   - a cache entry under the program's build-id whose file has another
#     build-id (a stale or planted copy) names nothing, and a FIFO there
#     is not waited on.
# perf is a dependency of this test (for the cache's layout), as of t051.

. "$(dirname "$0")/lib.sh"
tap_setup t219
unset PERF_BUILDID_DIR	# this test's cases name the cache they read
plan 8

command -v perf >/dev/null 2>&1
ok $? "perf is installed (apt-get install linux-perf)"

cat >"$tmp/hot.c" <<'PROG'
volatile unsigned long sink;
__attribute__((noinline, noclone)) static unsigned long spin(unsigned long n)
{
	unsigned long x = sink, i;

	for (i = 0; i < n; i++)
		x = (x ^ (x >> 7)) * 6364136223846793005UL + i;
	return x;
}
int main(void)
{
	int r;

	for (r = 0; r < 300; r++)
		sink += spin(1000000);
	return 0;
}
PROG
cc -O2 -fno-omit-frame-pointer -o "$tmp/hot.full" "$tmp/hot.c" &&
	cp "$tmp/hot.full" "$tmp/hot" && strip "$tmp/hot" &&
	HOME="$tmp/home" perf buildid-cache --add "$tmp/hot.full" >/dev/null 2>&1 &&
	test -d "$tmp/home/.debug/.build-id"
ok $? "build a program, strip a copy, perf buildid-cache --add the unstripped one"

# self FILE SYMBOL: SYMBOL's self % in report --tree --no-graph
self() {
	"$MMPROF" report --tree --no-graph --percent-limit 0 "$1" 2>/dev/null |
		awk -v s="$2" '$NF == s && $2 ~ /%$/ { sub("%", "", $2); print $2; exit }'
}

HOME="$tmp/home" "$MMPROF" record -q -o "$tmp/h.data" -- "$tmp/hot" >/dev/null 2>"$tmp/err"
ok $? "record the stripped copy with that cache in \$HOME"
diag "$tmp/err"
s=$(self "$tmp/h.data" spin)
echo "# spin self ${s:-none} %"
[ -n "$s" ] && awk -v s="$s" 'BEGIN { exit !(s >= 50) }'
ok $? "the stripped copy's spin (${s:-no entry} % self) is named from perf's cache"

mv "$tmp/home/.debug" "$tmp/cache"
HOME="$tmp/nohome" PERF_BUILDID_DIR="$tmp/cache" "$MMPROF" record -q -o "$tmp/p.data" -- "$tmp/hot" \
	>/dev/null 2>"$tmp/err"
s=$(self "$tmp/p.data" spin)
echo "# PERF_BUILDID_DIR: spin self ${s:-none} %"
[ -n "$s" ] && awk -v s="$s" 'BEGIN { exit !(s >= 50) }'
ok $? "PERF_BUILDID_DIR is read as perf reads it"

# a planted entry: another program's unstripped file under hot's build-id
bid=$(readelf -n "$tmp/hot" | sed -n 's/.*Build ID: \([0-9a-f]*\).*/\1/p')
sed 's/spin/other/g' "$tmp/hot.c" >"$tmp/other.c"
cc -O2 -fno-omit-frame-pointer -o "$tmp/other" "$tmp/other.c"
rm -rf "$tmp/cache"
mkdir -p "$tmp/cache/.build-id/$(echo "$bid" | cut -c1-2)" "$tmp/cache/x/$bid" &&
	cp "$tmp/other" "$tmp/cache/x/$bid/elf" &&
	ln -s "../../x/$bid" "$tmp/cache/.build-id/$(echo "$bid" | cut -c1-2)/$(echo "$bid" | cut -c3-)"
ok $? "a cache entry under the program's build-id holding another build (build-id $bid)"
PERF_BUILDID_DIR="$tmp/cache" "$MMPROF" record -q -o "$tmp/o.data" -- "$tmp/hot" \
	>/dev/null 2>"$tmp/err"
"$MMPROF" report --tree --no-graph --percent-limit 0 "$tmp/o.data" 2>/dev/null >"$tmp/o.txt"
! grep -q ' other$' "$tmp/o.txt" && grep -q '\[unknown\]' "$tmp/o.txt"
ok $? "a cache file with another build-id names nothing"

# a FIFO there: nobody writes it, and an open without O_NONBLOCK waits forever
rm -f "$tmp/cache/x/$bid/elf" && mkfifo "$tmp/cache/x/$bid/elf" &&
	PERF_BUILDID_DIR="$tmp/cache" timeout 300 "$MMPROF" record -q -o "$tmp/f.data" -- "$tmp/hot" \
		>/dev/null 2>"$tmp/err" &&
	"$MMPROF" report --tree --no-graph "$tmp/f.data" 2>/dev/null | grep -q '\[unknown\]'
ok $? "a FIFO in the cache is not waited on: record ends, nothing named"

done_testing
