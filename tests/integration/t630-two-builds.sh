#!/bin/sh
# t630-two-builds: the same function in two builds, spelled with different
# compiler clone suffixes, must pair in `mmprof diff` (issue 3: "a
# two-build diff of the same function with different suffixes pairs it
# instead of reporting gone/new").  One C program, built twice into
# a/prog and b/prog (same name, so the workload's own keys pair too); its
# two CPU-bound functions are given their symbol names with asm labels:
#   hot:  hot.isra.0     vs  hot.isra.1      (stripped by the key builder, as the robot does)
#   warm: warm.llvm.123  vs  warm.llvm.4567  (kept in keys, matched by diff's normalisation)
# Each build is recorded twice (-r 2), then diffed: perf-profile.children
# and .self must hold ONE row per function, neither new nor gone, in the
# lkp table and in --format json.  A third build whose function is really
# another (hot2.isra.0) shows the test can fail: that one is gone/new.
# The original spellings stay where mmprof shows symbols: report --tree
# and --folded of each file, the keys of each file (.llvm kept); in diff,
# both builds' spellings: "spellings" of the json rows, a "renamed between
# builds" list after the lkp and markdown tables (the robot's rows stay as
# they are), and "hot.isra.0 → hot.isra.1" frames in --callchains and the
# HTML flame graph.

. "$(dirname "$0")/lib.sh"
tap_setup t630

cat >"$tmp/prog.c" <<'PROG'
#include <stdlib.h>
volatile unsigned long sink;
unsigned long hot(unsigned long n) __asm__(HOT_SYM);
unsigned long warm(unsigned long n) __asm__(WARM_SYM);
/* noipa: the calls must not be hoisted out of main's loop as pure */
__attribute__((noipa)) unsigned long hot(unsigned long n)
{
	unsigned long x = 0, i;

	for (i = 0; i < n; i++)
		x = x * 6364136223846793005UL + i;
	return x;
}
__attribute__((noipa)) unsigned long warm(unsigned long n)
{
	unsigned long x = 1, i;

	for (i = 0; i < n; i++)
		x = x * 2862933555777941757UL + 3037000493UL + i;
	return x;
}
#ifndef HOT_N
#define HOT_N 3000000
#endif
int main(int argc, char **argv)
{
	unsigned long rounds = argc > 1 ? strtoul(argv[1], NULL, 0) : 10, r;

	for (r = 0; r < rounds; r++) {
		sink += hot(HOT_N);
		sink += warm(2000000);
	}
	return 0;
}
PROG

# build DIR HOT WARM [HOT_N]
build() {
	mkdir -p "$tmp/$1" &&
	cc -O2 -g -fno-omit-frame-pointer -DHOT_SYM="\"$2\"" -DWARM_SYM="\"$3\"" \
		-DHOT_N="${4:-3000000}" -o "$tmp/$1/prog" "$tmp/prog.c"
}
# b's hot does a third more work (hot ~60 % -> ~67 %): its chains move by
# several points, so diff --callchains shows them whatever the noise
build a hot.isra.0 warm.llvm.123 && build b hot.isra.1 warm.llvm.4567 4000000 &&
	build c hot2.isra.0 warm.llvm.123
ok $? "three builds of the program"
nm "$tmp/a/prog" | grep -q ' hot\.isra\.0$' && nm "$tmp/b/prog" | grep -q ' hot\.isra\.1$' &&
	nm "$tmp/b/prog" | grep -q ' warm\.llvm\.4567$'
ok $? "their symbols carry the suffixes asked for"

"$MMPROF" record -q -e cpu-clock -r 2 -o "$tmp/a.data" -- "$tmp/a/prog" 10 &&
	"$MMPROF" record -q -e cpu-clock -r 2 -o "$tmp/b.data" -- "$tmp/b/prog" 10 &&
	"$MMPROF" record -q -e cpu-clock -o "$tmp/c.data" -- "$tmp/c/prog" 10
ok $? "recorded: two runs of each build, one of the control"

# ---- the original spellings, per file ----
"$MMPROF" report --tree "$tmp/a.data" >"$tmp/a.tree" &&
	"$MMPROF" report --tree "$tmp/b.data" >"$tmp/b.tree"
ok $? "report --tree of each"
grep -q '\[\.\] hot\.isra\.0$' "$tmp/a.tree" && grep -q '\[\.\] warm\.llvm\.123$' "$tmp/a.tree" &&
	grep -q '\[\.\] hot\.isra\.1$' "$tmp/b.tree" && grep -q '\[\.\] warm\.llvm\.4567$' "$tmp/b.tree"
ok $? "report --tree shows each build's raw spelling"
grep -E 'hot|warm' "$tmp/a.tree" "$tmp/b.tree" | grep '\[\.\]' | diag
"$MMPROF" report --folded "$tmp/b.data" | grep -q ';hot\.isra\.1 [0-9]*$'
ok $? "report --folded keeps the raw spelling (hot.isra.1)"
"$MMPROF" report --keys "$tmp/b.data" >"$tmp/b.keys"
grep -q '^perf-profile\.children\.cpu-clock\.hot: ' "$tmp/b.keys" &&
	grep -q '^perf-profile\.children\.cpu-clock\.warm\.llvm\.4567: ' "$tmp/b.keys" &&
	! grep -q 'isra' "$tmp/b.keys"
ok $? "keys: .isra stripped as the robot does, .llvm.N kept (diff matches it)"

# ---- the diff: one row per function ----
"$MMPROF" diff -a "$tmp/a.data" "$tmp/b.data" >"$tmp/diff.txt" 2>"$tmp/diff.err"
ok $? "diff -a a.data b.data"
diag "$tmp/diff.err"
grep -E 'perf-profile\.(children|self)\.cpu-clock\.(hot|warm)' "$tmp/diff.txt" | diag

# row KIND FUNC FILE: the lkp row lines of perf-profile.KIND.cpu-clock.FUNC*
rows() {
	grep -E "perf-profile\.$1\.cpu-clock\.$2(\.[a-z_]+\.[0-9]+)?  \[" "$3"
}
for kind in children self; do
	for f in hot warm; do
		r=$(rows $kind $f "$tmp/diff.txt")
		nr=$(printf '%s\n' "$r" | grep -c .)
		[ "$nr" -eq 1 ] &&
			printf '%s\n' "$r" | grep -q "perf-profile\.$kind\.cpu-clock\.$f  \[" &&
			! printf '%s\n' "$r" | grep -q -E '\[(new|gone)'
		ok $? "lkp: perf-profile.$kind $f is one paired row, not gone + new ($nr rows)"
	done
done
! grep -E 'perf-profile\.[a-z]+\.cpu-clock\.(hot|warm)' "$tmp/diff.txt" | grep -q -E 'isra|llvm'
ok $? "lkp: no row keeps a clone suffix of hot or warm"
# both sides hold the function's samples in the paired row (about 60 % and 40 %)
python3 - "$tmp/diff.txt" <<'PY'
import sys
for line in open(sys.argv[1]):
    if "perf-profile.children.cpu-clock.hot  [" in line:
        t = line.split("perf-profile")[0].split()
        # drop "± N%" pairs: left are base, change, new
        v = [x for i, x in enumerate(t) if x != "\u00b1" and (i == 0 or t[i - 1] != "\u00b1")]
        sys.exit(0 if len(v) == 3 and float(v[0]) > 30 and float(v[2]) > 30 else 1)
sys.exit(1)
PY
ok $? "lkp: the paired hot row has base and new shares over 30 %"

"$MMPROF" diff -a -f json "$tmp/a.data" "$tmp/b.data" >"$tmp/diff.json"
ok $? "diff --format json"
python3 - "$tmp/diff.json" <<'PY' >"$tmp/json.out" 2>&1
import json, re, sys
rows = json.load(open(sys.argv[1]))["diff"]["rows"]
bad = 0
for kind in ("children", "self"):
    for f in ("hot", "warm"):
        pat = re.compile(r"perf-profile\.%s\.cpu-clock\.%s(\.[a-z_]+\.[0-9]+)?$" % (kind, f))
        mine = [r for r in rows if pat.match(r["key"])]
        good = (len(mine) == 1 and mine[0]["key"].endswith("." + f)
                and not mine[0]["new_key"] and not mine[0]["gone_key"]
                and mine[0]["base"]["runs"] == 2 and mine[0]["new"]["runs"] == 2
                and min(mine[0]["base"]["values"]) > 20 and min(mine[0]["new"]["values"]) > 20)
        print("%s %s: %s" % (kind, f, [(r["key"], r["new_key"], r["gone_key"],
                                        r["base"]["values"], r["new"]["values"]) for r in mine]))
        bad += not good
sys.exit(bad)
PY
st=$?
ok $st "json: each of children/self hot/warm is one row, in every run of both sides, new_key and gone_key false"
diag "$tmp/json.out"

# ---- the control: a function really renamed is gone and new ----
"$MMPROF" diff -a "$tmp/a.data" "$tmp/c.data" >"$tmp/ctl.txt" 2>/dev/null
rows children hot "$tmp/ctl.txt" | grep -q '\[gone' &&
	grep -E 'perf-profile\.children\.cpu-clock\.hot2  \[' "$tmp/ctl.txt" | grep -q '\[new' &&
	rows children warm "$tmp/ctl.txt" | grep -v -q -E '\[(new|gone)'
ok $? "control: hot -> hot2 is gone + new (the pairing test can fail), warm still pairs"

# ---- both builds' spellings, in every diff output ----
sed -n '/^renamed between builds/,$p' "$tmp/diff.txt" >"$tmp/renamed.txt"
diag "$tmp/renamed.txt"
grep -q '^  hot\.isra\.0 → hot\.isra\.1$' "$tmp/renamed.txt" &&
	grep -q '^  warm\.llvm\.123 → warm\.llvm\.4567$' "$tmp/renamed.txt" &&
	[ "$(grep -c 'hot\.isra' "$tmp/renamed.txt")" -eq 1 ]
ok $? "lkp: after the table, the renamed pairs once each (children and self rows pair them)"
! grep -q '^renamed between builds' "$tmp/ctl.txt"
ok $? "lkp: a real rename (hot -> hot2, gone + new) is not listed as renamed"
"$MMPROF" diff -a "$tmp/a.data" "$tmp/a.data" >"$tmp/aa.txt" 2>/dev/null &&
	! grep -q 'renamed between builds' "$tmp/aa.txt"
ok $? "lkp: one build against itself lists nothing renamed"
"$MMPROF" diff -a -f markdown "$tmp/a.data" "$tmp/b.data" >"$tmp/diff.md" 2>/dev/null &&
	grep -q '^- `hot\.isra\.0` → `hot\.isra\.1`$' "$tmp/diff.md" &&
	! grep '^|' "$tmp/diff.md" | grep -q 'isra'
ok $? "markdown: the renamed list after the table, none in its rows"

python3 - "$tmp/diff.json" <<'PY' >"$tmp/spell.out" 2>&1
import json, sys
rows = json.load(open(sys.argv[1]))["diff"]["rows"]
want = {"hot": (["hot.isra.0"], ["hot.isra.1"]), "warm": (["warm.llvm.123"], ["warm.llvm.4567"])}
bad = 0
for kind in ("children", "self"):
    for f, (b, n) in want.items():
        r = [r for r in rows if r["key"] == "perf-profile.%s.cpu-clock.%s" % (kind, f)]
        sp = r[0].get("spellings") if r else None
        print(kind, f, sp)
        bad += sp != {"base": b, "new": n}
plain = [r for r in rows if r["key"] == "perf-profile.children.cpu-clock.__libc_start_call_main"]
print("__libc_start_call_main:", [r.get("spellings") for r in plain])
bad += len(plain) != 1 or "spellings" in plain[0]
bad += any("spellings" in r for r in rows if not r["key"].startswith("perf-profile."))
sys.exit(bad)
PY
ok $? "json: spellings per side on hot and warm rows, none on rows spelled as their key"
diag "$tmp/spell.out"

"$MMPROF" diff -a -g --limit 1000 "$tmp/a.data" "$tmp/b.data" >"$tmp/chains.txt" 2>/dev/null
grep -E 'hot|warm' "$tmp/chains.txt" | grep '→' | head -4 | diag
grep -q '→ (hot\.isra\.0 → hot\.isra\.1)  ' "$tmp/chains.txt" &&
	grep -q '→ (warm\.llvm\.123 → warm\.llvm\.4567)  ' "$tmp/chains.txt" &&
	grep -q '(a → b): a frame spelled a in base, b in new' "$tmp/chains.txt"
ok $? "diff --callchains: a renamed frame shows both spellings, (hot.isra.0 → hot.isra.1)"
"$MMPROF" diff -g "$tmp/a.data" "$tmp/a.data" 2>/dev/null | grep -q -E 'isra\.[0-9] →|\(a → b\)'
[ $? -ne 0 ]
ok $? "diff --callchains: one build against itself shows single spellings"
# diff -g frees the keys before the chains unless an output still reads
# them (issue 13: 66 MB of its peak); the chains must not notice
"$MMPROF" diff -a -g --limit 1000 --summary "$tmp/sum.md" "$tmp/a.data" "$tmp/b.data" \
	>"$tmp/chains-kept.txt" 2>/dev/null
cmp -s "$tmp/chains.txt" "$tmp/chains-kept.txt"
ok $? "diff -g prints the same with the keys freed before the chains as with them kept"
"$MMPROF" diff --html "$tmp/d.html" "$tmp/a.data" "$tmp/b.data" >/dev/null 2>&1
python3 - "$tmp/d.html" <<'PY'
import re, sys
page = open(sys.argv[1]).read()
# the share graph (the page's first; the graphs per op and the waterfall follow it)
s = re.search(r'<svg [^>]*id="mmflame".*?</svg>', page, re.S).group(0)
# one flame-graph node for hot, carrying both spellings and both sides' shares
titles = re.findall(r"<title>(hot[^\n<]*)\n(base [^<]*)</title>", s)
labels = re.findall(r"<text [^>]*>(hot[^<]*)</text>", s)
# the graphs per op draw the same node, both spellings too
per_op = re.findall(r'<svg [^>]*id="mmflame-op-(?:new|base)".*?</svg>', page, re.S)
renamed = [len(re.findall(r"<title>hot\.isra\.0 \u2192 hot\.isra\.1\n", g)) for g in per_op]
print(titles, labels, renamed)
sys.exit(0 if len(titles) == 1 and "new" in titles[0][1]
         and titles[0][0] == "hot.isra.0 \u2192 hot.isra.1"
         and all(l.startswith("hot.isra.0 \u2192") for l in labels)
         and renamed == [1, 1] else 1)
PY
ok $? "diff --html: one flame-graph node 'hot.isra.0 → hot.isra.1' with base and new shares"
"$MMPROF" diff -a --html "$tmp/da.html" "$tmp/a.data" "$tmp/b.data" >/dev/null 2>&1 &&
	grep -q 'title="spelled in base: hot\.isra\.0; new: hot\.isra\.1">perf-profile\.children\.cpu-clock\.hot<' "$tmp/da.html"
ok $? "diff --html: the table's key cell carries both spellings as a tooltip"

done_testing
