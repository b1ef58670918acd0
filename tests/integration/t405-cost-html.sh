#!/bin/sh
# t405-cost-html: the pictures of the cost per operation (issue 16 item 4)
# on real recordings of the bundled cost-mix workload, whose per-op cost in
# each of two functions is set by loop counts.
#   - base --hot 3000 --other 7000, new --hot 6000 --other 14000: every
#     function's cost per op doubles while cost_mix_hot's share stays at
#     about 30 % (within 15 % of itself: 3 runs of 1 s on a loaded machine
#     moved it by 1.8 points once; the runs are of fixed work now);
#   - diff --html: the waterfall is in the verdict, on the first screen of
#     a 1280x900 browser with the flame graph's start; the numbers its SVG
#     carries chain (each bar starts where the one above ended) and add up
#     from the base total to the new (the attribution's totals); it names
#     cost_mix_hot and cost_mix_other, red (up);
#   - the width switch in a headless chromium: each view shows its own
#     graph only; per op, cost_mix_hot is wider on the new side by the
#     ratio of its costs per op that diff measured (the work doubles it;
#     ratios, never times: the machine is loaded);
#   - flamegraph --per-op: the same ratio in two SVGs (--width base and
#     new); a bad --per is one line, exit 2;
#   - without a work count the page says costs are per second of run.

. "$(dirname "$0")/lib.sh"
tap_setup t405

# Runs of fixed work with the same CPU time on both sides (15,000 ops of
# the base's cost, 7,500 of the new one's: some 0.3-0.45 s each), as t304's,
# not of -s 1: at a load of 50 a run of 1 s gets a twentieth of a CPU, and
# its few samples move cost_mix_hot's share and the costs per op.  The
# sides are recorded together, run by run in ABBA order (--interleave), so
# that a change of the machine's load falls on both.
browse() {	# browse FILE URL-SUFFIX OUT ERR [extra flags]
	file=$1 url=$2 out=$3 err=$4
	shift 4
	prof=$(mktemp -d "$tmp/chromium.XXXXXX")
	timeout 180 chromium --headless --no-sandbox --disable-gpu --disable-background-networking \
		--disable-component-update --disable-sync --no-first-run --user-data-dir="$prof" \
		--enable-logging=stderr --v=0 "$@" "file://$file$url" >"$out" 2>"$err"
}

plan 22

"$MMPROF" record -q -r 3 -o "$tmp/base.data" --interleave "$tmp/new.data" -- \
	"$wl/cost-mix" --hot 3000 --other 7000 -n 15000 -- "$wl/cost-mix" --hot 6000 --other 14000 -n 7500 \
	>/dev/null 2>"$tmp/rec.err"
ok $? "record cost-mix --hot 3000 --other 7000 and --hot 6000 --other 14000, 3 runs each, interleaved"
diag "$tmp/rec.err"
test "$(sqlite3 "$tmp/base.data" 'select count(*) from runs')" = 3 &&
	test "$(sqlite3 "$tmp/new.data" 'select count(*) from runs')" = 3
ok $? "three runs in each file"

"$MMPROF" diff -f json "$tmp/base.data" "$tmp/new.data" >"$tmp/j" 2>"$tmp/err"
ok $? "diff -f json exits 0"
"$MMPROF" diff --html "$tmp/r.html" "$tmp/base.data" "$tmp/new.data" >/dev/null 2>"$tmp/err"
ok $? "diff --html exits 0"

# the waterfall's own numbers, as the SVG carries them
python3 - "$tmp/r.html" "$tmp/j" >"$tmp/wf" 2>&1 <<'EOF'
import json, re, sys
h = open(sys.argv[1]).read()
svg = re.search(r'<svg [^>]*class="mmwaterfall".*?</svg>', h, re.S).group(0)
head = re.match(r'<svg [^>]*>', svg).group(0)
base = float(re.search(r'data-base="([^"]+)"', head).group(1))
new = float(re.search(r'data-new="([^"]+)"', head).group(1))
rows = re.findall(r'<g class="wf ([^"]*)" data-from="([^"]+)" data-to="([^"]+)" data-delta="([^"]+)"><title>([^\n<]*)', svg)
bars = rows[1:-1]
run, chain = base, True
for cls, f, t, d, name in bars:
    chain &= abs(float(f) - run) <= 1e-9 * base and abs(float(t) - float(f) - float(d)) <= 1e-9 * base
    run = float(t)
total = sum(float(b[3]) for b in bars)
c = json.load(open(sys.argv[2]))['diff']['cost']
ev = [e for e in c['events'] if e['event'] == 'cpu-clock'][0]
cls = {b[4]: b[0] for b in bars}
print('base', base, 'new', new, 'sum of bars', total, 'bars', len(bars), 'json', ev['base'], ev['new'])
print('chain', chain)
print('adds-up', abs(base + total - new) <= 1e-9 * base and abs(run - new) <= 1e-9 * base)
print('totals-as-json', 0.999 < new / base / (ev['new'] / ev['base']) < 1.001)
print('names', 'cost_mix_hot' in cls and 'cost_mix_other' in cls)
print('red', cls.get('cost_mix_hot') == 'up' and cls.get('cost_mix_other') == 'up')
print('first', bars[0][4] == 'cost_mix_other')
EOF
diag "$tmp/wf"
grep -q '^chain True' "$tmp/wf"; ok $? "the waterfall's bars chain: each starts where the one above ended"
grep -q '^adds-up True' "$tmp/wf"; ok $? "base total + the bars = the new total (the SVG's own numbers)"
grep -q '^totals-as-json True' "$tmp/wf"; ok $? "its totals are the attribution's (diff -f json), in one unit"
grep -q '^names True' "$tmp/wf" && grep -q '^first True' "$tmp/wf"; ok $? "it lists cost_mix_other first and names cost_mix_hot"
grep -q '^red True' "$tmp/wf"; ok $? "both are red: significantly more cost per op"
grep -q '<title id="mmwaterfall-title">CPU time (cpu-clock) per op: .*, up)</title>' "$tmp/r.html"
ok $? "its heading gives the total per op and its verdict"

# cost_mix_hot's cost per op, new over base, as the attribution measured it
# (its frame's width per op: children): the work doubled it, what the
# samples make of that is the machine's (2.9 at a load of 16-28, runs of
# one side after the other's); the pictures must draw this ratio
hr=$(python3 -c "
import json, sys
ev = [e for e in json.load(open(sys.argv[1]))['diff']['cost']['events'] if e['event'] == 'cpu-clock'][0]
f = [x for x in ev['functions'] if x['function'] == 'cost_mix_hot'][0]
print('%.6f' % (f['children_new'] / f['children_base']))" "$tmp/j" 2>/dev/null)
echo "# cost_mix_hot per op, new / base: ${hr:-none}"

# the share graph: cost_mix_hot's share of each run barely moved
python3 - "$tmp/r.html" >"$tmp/sh" 2>&1 <<'EOF'
import re, sys
h = open(sys.argv[1]).read()
svg = re.search(r'<svg [^>]*id="mmflame".*?</svg>', h, re.S).group(0)
m = re.search(r'<title>cost_mix_hot\nbase ([0-9.]+)% \S+ new ([0-9.]+)%', svg)
b, n = float(m.group(1)), float(m.group(2))
print('share', b, n, abs(n - b) < 0.15 * b)
EOF
diag "$tmp/sh"
grep -q 'True$' "$tmp/sh"; ok $? "the share graph: cost_mix_hot's share moved under 15 % of itself (its cost per op doubled)"

if ! command -v chromium >/dev/null 2>&1 && [ "$(id -u)" -eq 0 ]; then
	echo "# chromium missing: installing it (apt-get install -y chromium)"
	DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout=600 install -y chromium >"$tmp/apt.log" 2>&1 || sed 's/^/# /' "$tmp/apt.log" | tail -5
fi
command -v chromium >/dev/null 2>&1
ok $? "chromium is installed (apt-get install chromium; as root this test installs it)"

browse "$tmp/r.html" "#mmprof-selftest=cost_mix_hot" "$tmp/dom" "$tmp/chr.err" --window-size=1280,900 --dump-dom
grep -q '<body[^>]* data-ok="1"' "$tmp/dom" && ! grep -q 'data-error=' "$tmp/dom"
ok $? "the page's scripts ran with no uncaught error"
lay=$(grep -o 'data-layout="[^"]*"' "$tmp/dom")
views=$(grep -o 'data-views="[^"]*"' "$tmp/dom")
echo "# $lay"
echo "# $views"
wtop=$(echo "$lay" | sed -n 's/.*waterfall=\([0-9-]*\);.*/\1/p')
wend=$(echo "$lay" | sed -n 's/.*waterfall-end=\([0-9-]*\).*/\1/p')
gtop=$(echo "$lay" | sed -n 's/.*graph=\([0-9-]*\);.*/\1/p')
vh=$(echo "$lay" | sed -n 's/.*viewport=\([0-9]*\).*/\1/p')
test "${wtop:--1}" -gt 0 && test "${wend:-9999}" -lt "${vh:-0}" && test "${gtop:-9999}" -lt "$vh"
ok $? "at 1280x900 the whole waterfall is on the first screen ($wtop..$wend px) and so is the graph's start ($gtop < $vh px)"
echo "$views" | grep -Eq 'share:mmflame:[0-9.]+;op-new:mmflame-op-new:[0-9.]+;op-base:mmflame-op-base:[0-9.]+'
ok $? "the switch shows one graph per view: share, per op new, per op base"
ws=$(echo "$views" | sed -n 's/.*share:mmflame:\([0-9.]*\).*/\1/p')
wn=$(echo "$views" | sed -n 's/.*op-new:mmflame-op-new:\([0-9.]*\).*/\1/p')
wb=$(echo "$views" | sed -n 's/.*op-base:mmflame-op-base:\([0-9.]*\).*/\1/p')
python3 -c "import sys; s,n,b,r=map(float,sys.argv[1:]); sys.exit(0 if s > 0 and b > 0 and r > 1.4 and abs(n / b / r - 1) < 0.02 else 1)" \
	"${ws:-0}" "${wn:-0}" "${wb:-0}" "${hr:-0}"
ok $? "per op, cost_mix_hot is wider on the new side than on the base by its cost per op ($wn vs $wb px, measured ${hr:-none}; share view $ws px)"

browse "$tmp/r.html" "" "$tmp/shot.out" "$tmp/chr2.err" --window-size=1280,900 --screenshot="$tmp/first.png"
size=$(wc -c <"$tmp/first.png" 2>/dev/null || echo 0)
test "$size" -gt 20000; ok $? "first-screen screenshot rendered ($size bytes)"
[ -n "$MMPROF_T405_SHOT" ] && cp "$tmp/first.png" "$MMPROF_T405_SHOT"

# flamegraph --per-op: two SVGs to one scale
"$MMPROF" flamegraph --per-op "$tmp/base.data" "$tmp/new.data" -o "$tmp/new.svg" 2>"$tmp/err" &&
	"$MMPROF" flamegraph --per-op --width base "$tmp/base.data" "$tmp/new.data" -o "$tmp/base.svg" 2>>"$tmp/err"
ok $? "flamegraph --per-op, widths from new and from base"
python3 - "$tmp/new.svg" "$tmp/base.svg" "${hr:-0}" >"$tmp/fg" 2>&1 <<'EOF'
import re, sys
def width(path, name):
    s = open(path).read()
    return max(float(w) for w in re.findall(r'<title>' + name + r'\n[^<]*</title><rect [^>]* width="([0-9.]+)"', s))
n, b = width(sys.argv[1], 'cost_mix_hot'), width(sys.argv[2], 'cost_mix_hot')
leg = 'width: new cost per op, base and new to one scale' in open(sys.argv[1]).read()
r = float(sys.argv[3])
print('widths', n, b, 'measured', r, leg and r > 1.4 and abs(n / b / r - 1) < 0.02)
EOF
diag "$tmp/fg"
grep -q 'True$' "$tmp/fg"; ok $? "its SVGs: cost_mix_hot wider on the new side by its cost per op, the legend says per op"
"$MMPROF" flamegraph --per cost-mix.nosuch "$tmp/base.data" "$tmp/new.data" -o "$tmp/x.svg" 2>"$tmp/err"
rc=$?
[ $rc -eq 2 ] && [ "$(wc -l <"$tmp/err")" -eq 1 ] && grep -q "^mmprof: --per 'cost-mix.nosuch': no run of" "$tmp/err" &&
	[ ! -e "$tmp/x.svg" ]
ok $? "flamegraph --per a key no run has: one line, exit 2, no file ($rc)"

# no work count: the page says costs are per second of run
for s in a b; do
	"$MMPROF" record -q -o "$tmp/sec$s.data" -- sh -c "'$wl/cost-mix' -s 0.5 >/dev/null" >/dev/null 2>"$tmp/rec.err"
done
"$MMPROF" diff --html "$tmp/sec.html" "$tmp/seca.data" "$tmp/secb.data" >/dev/null 2>"$tmp/err"
ok $? "diff --html of two recordings without a work count"
grep -q '<p class="note">Costs are per second of run, not per operation: no work count' "$tmp/sec.html" &&
	grep -q 'class="mmwaterfall"' "$tmp/sec.html" && grep -q 'per second of run: ' "$tmp/sec.html"
ok $? "the page says costs are per second of run, and its waterfall is per second"

done_testing
