#!/bin/sh
# t400-flamegraph: mmprof flamegraph end to end on real recordings of the
# bundled thp-zap workload, THP off (base) and on (new), 4 runs each.
#   - one file: valid XML, the workload's hot user function and the kernel
#     fault path are frames, kernel frames class k and user frames class u,
#     root width = image width - padding, --samples, --icicle (sampled
#     functions at the root), --comm/--dso filters (and errors: a comm or
#     run that does not exist, a counting recording, bad options, exit 2), --min-width merging;
#   - two files: valid XML, the __split_huge_pmd frames are red (class grew)
#     where THP is on, the THP-off fault path (do_anonymous_page) is drawn
#     hatched though it vanished, --width base;
#   - the man page documents every --help option.

. "$(dirname "$0")/lib.sh"
tap_setup t400

xmlok() { python3 -c 'import xml.dom.minidom,sys; xml.dom.minidom.parse(sys.argv[1])' "$1"; }
# class of the <g> holding the first frame whose title starts with NAME
class_of() { grep -o "<g class=\"[^\"]*\" data-d=\"[0-9]*\"><title>$2
" "$1" | head -1 | sed 's/<g class="\([^"]*\)".*/\1/'; }
# python helper: attributes of frames named NAME: "class width" lines
frames() {
	python3 - "$1" "$2" <<'EOF'
import sys, xml.dom.minidom
d = xml.dom.minidom.parse(sys.argv[1])
for g in d.getElementsByTagName('g'):
    t = g.getElementsByTagName('title')
    if not t or not g.getAttribute('class').startswith('f '):
        continue
    if t[0].firstChild.data.split('\n')[0] == sys.argv[2]:
        r = g.getElementsByTagName('rect')[0]
        print(g.getAttribute('class'), r.getAttribute('width'))
EOF
}

# Runs of fixed work, some 0.4 s of CPU each (4 iterations of 32 MiB with
# THP off, 160 with it on, as t303's), not of a time: a run of -s 1 at a
# load of 50 gets a twentieth of a CPU and splits a few PMDs or none.
lock=${TMPDIR:-/tmp}/mmprof-thp-split.lock
flock "$lock" "$MMPROF" record -q -r 4 -o "$tmp/off.data" -- "$wl/thp-zap" --thp off -n 4 >/dev/null 2>"$tmp/rec.err"
ok $? "record thp-zap --thp off, 4 runs"
record_thp_on "$tmp/on.data" 4 -n 160
ok $? "record thp-zap --thp on, 4 runs (every run split huge pages)"
sed 's/^/# /' "$tmp/rec.err" "$tmp/on.data.err"

# ---- one file
"$MMPROF" flamegraph "$tmp/on.data" -o "$tmp/on.svg" 2>"$tmp/err"
ok $? "flamegraph on.data exits 0"
xmlok "$tmp/on.svg"; ok $? "the SVG is valid XML"
grep -q 'class="f u" data-d="[0-9]*"><title>thp_zap_touch' "$tmp/on.svg"; ok $? "user frame thp_zap_touch, class u"
# kernel frames, whatever this kernel names them (asm_exc_page_fault on
# x86-64 since 5.8): every class k frame a name of /proc/kallsyms, no
# class u frame one
python3 - "$tmp/on.svg" >"$tmp/ku" 2>&1 <<'EOF2'
import re, sys
k = set(l.split()[2] for l in open('/proc/kallsyms') if len(l.split()) >= 3)
fr = re.findall(r'<g class="f ([ku])" data-d="[0-9]+"><title>([^\n<]*)', open(sys.argv[1]).read())
kern = [n for c, n in fr if c == 'k']
user = [n for c, n in fr if c == 'u']
bad = [n for n in kern if n not in k] + [n for n in user if n in k]
print(len(kern), 'class k,', len(user), 'class u, misclassed:', bad[:5])
sys.exit(not (kern and user and not bad))
EOF2
ok $? "kernel frames class k, user frames class u ($(cat "$tmp/ku"))"
w=$(frames "$tmp/on.svg" all | awk '{ print $3 }')
test "$w" = "1180.00"; ok $? "the root spans the graph width ($w)"
# thp_zap_touch's width / root width = its share; compare with report --folded
share=$(frames "$tmp/on.svg" thp_zap_touch | awk '{ s += $3 } END { printf "%.3f", s / 1180 }')
fold=$("$MMPROF" report --folded --period "$tmp/on.data" | awk '{ n = $NF; t += n; if ($0 ~ /;thp_zap_touch(;| )/) s += n } END { printf "%.3f", s / t }')
awk -v a="$share" -v b="$fold" 'BEGIN { exit !(a - b < 0.01 && b - a < 0.01 && a > 0.3) }'
ok $? "thp_zap_touch width share $share matches its folded period share $fold"
grep -q '<script type="text/ecmascript"><!\[CDATA\[' "$tmp/on.svg"; ok $? "interaction script embedded"

"$MMPROF" flamegraph --samples --title 'x < y' "$tmp/on.data" -o "$tmp/s.svg" && xmlok "$tmp/s.svg" &&
	grep -q '>x &lt; y</text>' "$tmp/s.svg"
ok $? "--samples and an escaped --title"

"$MMPROF" flamegraph --icicle "$tmp/on.data" -o "$tmp/ice.svg" && xmlok "$tmp/ice.svg"
ok $? "--icicle"
# the function most samples were taken in (report --folded's leaves; on
# this machine clear_page_erms, a name of one CPU's features)
hot=$("$MMPROF" report --folded "$tmp/on.data" | awk '{ n = $NF; sub(/ [0-9]+$/, ""); sub(/.*;/, ""); s[$0] += n }
	END { for (f in s) if (s[f] > m) { m = s[f]; h = f } print h }')
[ -n "$hot" ] && grep -q "data-d=\"1\"><title>$hot" "$tmp/ice.svg"; ok $? "icicle: the most sampled function (${hot:-none}) at depth 1"
! grep -q 'data-d="1"><title>__libc_start_call_main' "$tmp/ice.svg"; ok $? "icicle: the outermost caller is not at depth 1"

"$MMPROF" flamegraph --dso '[kernel.kallsyms]' "$tmp/on.data" -o "$tmp/k.svg" && xmlok "$tmp/k.svg"
ok $? "--dso [kernel.kallsyms]"
"$MMPROF" flamegraph --comm thp-zap --run 2 "$tmp/on.data" -o "$tmp/c.svg" && xmlok "$tmp/c.svg"
ok $? "--comm thp-zap --run 2"
"$MMPROF" flamegraph --comm nosuchcomm "$tmp/on.data" -o "$tmp/x.svg" 2>"$tmp/err"
test $? -eq 2 && grep -q "no samples left" "$tmp/err"; ok $? "a comm with no samples: exit 2 with a message"
"$MMPROF" flamegraph --run 9 "$tmp/on.data" -o "$tmp/x.svg" 2>"$tmp/err"
test $? -eq 2 && grep -q "no run 9" "$tmp/err"; ok $? "a run that does not exist: exit 2"
"$MMPROF" flamegraph --min-width abc "$tmp/on.data" -o "$tmp/x.svg" 2>/dev/null
test $? -eq 2; ok $? "bad --min-width: exit 2"
for mw in 100 200 1180px 2000px; do
	"$MMPROF" flamegraph --min-width $mw "$tmp/on.data" -o "$tmp/x.svg" 2>"$tmp/err"
	test $? -eq 2 && test "$(wc -l <"$tmp/err")" -eq 1 && grep -q -- "--min-width $mw is" "$tmp/err"
	ok $? "--min-width $mw (would draw only the root): exit 2, one line"
done
"$MMPROF" flamegraph --min-width 99 "$tmp/on.data" -o "$tmp/x.svg" &&
"$MMPROF" flamegraph --min-width 1179px "$tmp/on.data" -o "$tmp/x.svg"
ok $? "--min-width 99 and 1179px (just below the whole width) are accepted"
"$MMPROF" flamegraph "$tmp/nonexistent.data" -o "$tmp/x.svg" 2>/dev/null
test $? -eq 2; ok $? "missing file: exit 2"
"$MMPROF" stat -o "$tmp/stat.data" -- true >/dev/null 2>&1 &&
"$MMPROF" flamegraph "$tmp/stat.data" -o "$tmp/x.svg" 2>"$tmp/err"
test $? -eq 2 && grep -q "has no samples to draw" "$tmp/err" && ! grep -q "no event" "$tmp/err"
ok $? "a counting recording (stat -o): exit 2, no samples to draw"
"$MMPROF" flamegraph --icicle "$tmp/off.data" "$tmp/on.data" -o "$tmp/x.svg" 2>/dev/null
test $? -eq 2; ok $? "--icicle with two files: exit 2"

"$MMPROF" flamegraph --min-width 0 "$tmp/on.data" -o "$tmp/all.svg" &&
"$MMPROF" flamegraph --min-width 2 "$tmp/on.data" -o "$tmp/coarse.svg"
ok $? "--min-width 0 and 2"
a=$(grep -c '<g class="f' "$tmp/all.svg"); c=$(grep -c '<g class="f' "$tmp/coarse.svg"); d=$(grep -c '<g class="f' "$tmp/on.svg")
test "$a" -gt "$d" && test "$d" -gt "$c"; ok $? "fewer boxes the larger the min width ($a > $d > $c)"
"$MMPROF" flamegraph --min-width 30px "$tmp/on.data" -o - >"$tmp/px.svg" && xmlok "$tmp/px.svg"
ok $? "--min-width in px, -o - to stdout"

# ---- two files
"$MMPROF" flamegraph "$tmp/off.data" "$tmp/on.data" -o "$tmp/diff.svg" 2>"$tmp/err"
ok $? "differential flamegraph exits 0"
xmlok "$tmp/diff.svg"; ok $? "the differential SVG is valid XML"
frames "$tmp/diff.svg" __split_huge_pmd >"$tmp/split"
grep -q '^f grew ' "$tmp/split"; ok $? "__split_huge_pmd is red (class grew)"
sed 's/^/# /' "$tmp/split"
frames "$tmp/diff.svg" do_anonymous_page >"$tmp/gone"
grep -q ' absent ' "$tmp/gone" || grep -q ' absent$' "$tmp/gone"
ok $? "the THP-off fault path (do_anonymous_page) vanished and is still drawn (hatched)"
grep -q "url(#mmflame-hatch-" "$tmp/diff.svg"; ok $? "hatched pattern used"
grep -q "base [0-9.]*% → new [0-9.]*% ([-+][0-9.]* points, q=" "$tmp/diff.svg"; ok $? "tooltips carry both sides, the change and q"
"$MMPROF" flamegraph --width base "$tmp/off.data" "$tmp/on.data" -o "$tmp/diffb.svg" && xmlok "$tmp/diffb.svg"
ok $? "--width base"
frames "$tmp/diffb.svg" do_huge_pmd_anonymous_page | grep -q absent
ok $? "--width base: the THP-on fault path is absent from base, drawn hatched"
"$MMPROF" flamegraph --width middle "$tmp/off.data" "$tmp/on.data" -o "$tmp/x.svg" 2>/dev/null
test $? -eq 2; ok $? "--width middle: exit 2"
"$MMPROF" flamegraph -e page-faults "$tmp/off.data" "$tmp/on.data" -o "$tmp/x.svg" 2>/dev/null
test $? -eq 2; ok $? "an event neither file sampled: exit 2"

# ---- man page
page=$here/man/mmprof-flamegraph.1
text=$(MANWIDTH=200 LC_ALL=C.UTF-8 man -l "$page" 2>/dev/null | col -b)
missing=""
for o in $("$MMPROF" flamegraph --help | grep -o -- '--[a-z][a-z-]*' | sort -u); do
	printf '%s\n' "$text" | grep -q -- "$o" || missing="$missing $o"
done
[ -z "$missing" ]; ok $? "the man page documents every --help option${missing:+ (missing:$missing)}"

done_testing
