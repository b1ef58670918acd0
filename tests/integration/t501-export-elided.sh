#!/bin/sh
# t501-export-elided: a recording whose trie holds some chains only in
# part (issue 30 point 1: a trie of 8192 nodes, MMPROF_STACK_NODES, under
# a random recursion that gives almost every sample a chain of its own,
# tests/bench/rand-recurse.c) writes every stack whole: report --folded
# and export -f folded, json and pprof give each sample its whole chain,
# never an "[elided]" frame, and add up to every sample; JSON's stacks
# and pprof's traces (the real `go tool pprof`) rebuild the folded lines
# exactly, as t500 checks on a whole trie.  Against the same work
# recorded with the default trie: the same depth of a sample's stack on
# average (50-52 frames either way in ten recordings here; the trie's
# stacks through [elided] are their kept callers and the leaf), the same
# deepest stack within a few frames.  A chain cut to its leaf
# (take_chains' fallback, when even the elision finds no room) is no
# writer's to restore: the trie is one that cuts none (4096 nodes cut
# none in four recordings here, 8192 leaves more room), and the test
# says so.

. "$(dirname "$0")/lib.sh"
tap_setup t501
plan 9

cc -O1 -fno-omit-frame-pointer -o "$tmp/rr" "$here/tests/bench/rand-recurse.c"
MMPROF_STACK_NODES=8192 "$MMPROF" record -F 2000 -o "$tmp/small.data" -- "$tmp/rr" -s 1 \
	>/dev/null 2>"$tmp/small.err" &&
	"$MMPROF" record -F 2000 -o "$tmp/whole.data" -- "$tmp/rr" -s 1 >/dev/null 2>"$tmp/whole.err"
ok $? "record rand-recurse with a trie of 8192 nodes and with the default" ||
	diag "$tmp/small.err" "$tmp/whole.err"

elided=$(sqlite3 "$tmp/small.data" "select value from meta where key = 'chains_elided'")
cut=$(sqlite3 "$tmp/small.data" "select value from meta where key = 'stacks_cut_to_leaf'")
[ -n "$elided" ] && [ "$elided" -gt 100 ] && [ -z "$cut" ]
ok $? "the small trie elides chains and cuts none (meta chains_elided: ${elided:-none} samples, stacks_cut_to_leaf: ${cut:-none})"

"$MMPROF" report --folded "$tmp/small.data" >"$tmp/report.folded" 2>/dev/null &&
	"$MMPROF" export -f folded "$tmp/small.data" -o "$tmp/export.folded" &&
	cmp -s "$tmp/report.folded" "$tmp/export.folded" && ! grep -q '\[elided\]' "$tmp/export.folded"
ok $? "report --folded and export -f folded: the same lines, none through [elided]"

# every sample, its whole chain: the counts add up; depth as the whole trie's
stats() {
	awk '{ n = split($1, f, ";"); t += $NF; d += n * $NF; if (n > m) m = n }
	     END { printf "%d %.2f %d\n", t, t ? d / t : 0, m }' "$1"
}
"$MMPROF" report --folded "$tmp/whole.data" >"$tmp/whole.folded" 2>/dev/null
read -r s_total s_depth s_max <<EOF
$(stats "$tmp/report.folded")
EOF
read -r w_total w_depth w_max <<EOF
$(stats "$tmp/whole.folded")
EOF
taken=$("$MMPROF" export -f json "$tmp/small.data" |
	python3 -c 'import json, sys; print(sum(c["samples"] for c in json.load(sys.stdin)["counts"] if c["event"] == 0))')
[ "$s_total" -gt 500 ] && [ "$s_total" = "$taken" ]
ok $? "folded lines hold every sample: $s_total, the JSON's counts $taken"
awk -v s="$s_depth" -v w="$w_depth" -v sm="$s_max" -v wm="$w_max" \
	'BEGIN { exit !(s > 30 && s > 0.85 * w && s < 1.15 * w && sm > wm - 8 && sm < wm + 8) }'
ok $? "a sample's stack is as deep as with the default trie: mean $s_depth frames against $w_depth, deepest $s_max against $w_max"

"$MMPROF" export -f json "$tmp/small.data" >"$tmp/small.json" 2>"$tmp/err" &&
python3 - "$tmp/small.json" "$tmp/export.folded" >"$tmp/json.out" 2>&1 <<'PY'
import json, sys, collections
d = json.load(open(sys.argv[1]))
frames, stacks = d["frames"], d["stacks"]
elided = [i for i, f in enumerate(frames) if f["sym"] == "[elided]"]
assert elided, "the [elided] frame is listed"
used = set()
for c in d["counts"]:
    used.add(c["stack"])
assert not any(f in elided for s in used for f in stacks[s]), "a count's stack goes through [elided]"
fold = collections.Counter()
for c in d["counts"]:
    if c["event"] != 0:
        continue
    names = [frames[f]["sym"] or "[unknown]" for f in stacks[c["stack"]]]
    if names:
        fold[";".join(names)] += c["samples"]
want = collections.Counter()
for line in open(sys.argv[2]):
    k, v = line.rstrip("\n").rsplit(" ", 1)
    want[k] += int(v)
bad = [k for k in set(fold) | set(want) if fold[k] != want[k]]
assert not bad, "%d folded lines differ, e.g. %r: json %d, folded %d" % (
    len(bad), bad[0], fold[bad[0]], want[bad[0]])
PY
rc=$?
[ $rc -ne 0 ] && diag "$tmp/json.out" "$tmp/err"
ok $rc "JSON: no count's stack through [elided], and its stacks rebuild the folded lines exactly"

if ! command -v go >/dev/null 2>&1 && [ "$(id -u)" = 0 ]; then
	DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout=600 install -y -qq --no-install-recommends golang-go \
		>"$tmp/apt.log" 2>&1 || diag "$tmp/apt.log"
fi
command -v go >/dev/null 2>&1
ok $? "go tool pprof is available (golang-go)"

export GOCACHE="$tmp/gocache" HOME="$tmp"
"$MMPROF" export -f pprof -o "$tmp/small.pb.gz" "$tmp/small.data" 2>"$tmp/err" &&
	go tool pprof -traces -symbolize=none -sample_index=samples "$tmp/small.pb.gz" \
		>"$tmp/traces" 2>"$tmp/pprof.err"
ok $? "go tool pprof reads the export" || diag "$tmp/err" "$tmp/pprof.err"

# -traces as t500 reads them: a "-----------+" line per sample, labels,
# then its frames leaf first with the value in the first ten columns
python3 - "$tmp/traces" "$tmp/export.folded" >"$tmp/tr.out" 2>&1 <<'PY'
import sys, collections
fold = collections.Counter(); cur = []; val = 0
def flush():
    global cur, val
    if cur:
        fold[";".join(reversed(cur))] += val
    cur = []; val = 0
started = False
for line in open(sys.argv[1]):
    line = line.rstrip("\n")
    if line.startswith("-----------+"):
        flush(); started = True; continue
    if not started or len(line) < 13 or line[10] == ":":
        continue
    if line[:10].strip():
        val = int(line[:10])
    name = line[13:]
    unnamed = name == "<unknown>" or (name.startswith("[") and name.endswith("]"))
    cur.append("[unknown]" if unnamed else name)
flush()
want = collections.Counter()
for line in open(sys.argv[2]):
    k, v = line.rstrip("\n").rsplit(" ", 1)
    want[k] += int(v)
bad = [k for k in set(fold) | set(want) if fold[k] != want[k]]
assert not bad, "%d folded lines differ, e.g. %r: pprof %d, mmprof %d" % (
    len(bad), bad[0], fold[bad[0]], want[bad[0]])
PY
rc=$?
[ $rc -ne 0 ] && diag "$tmp/tr.out"
ok $rc "pprof's traces rebuild the folded lines exactly"
