#!/bin/sh
# t401-html-report: `mmprof diff --html` checked in a real headless browser.
#   - thp-zap THP off (base) against THP on (new), 4 runs each;
#   - the file is self-contained: no external script, style, image or font;
#   - Debian's chromium (installed here when missing and we are root; a
#     loud failure otherwise, never a skip) loads it with no uncaught
#     error (console log and the page's own data-error hook), the page
#     script and the flame graph script both ran (body data-ok="1"), the
#     table has rows, the graph has the red __split_huge_pmd frames;
#   - #mmprof-selftest drives search and zoom in the browser;
#   - a screenshot renders (non-trivial PNG);
#   - the first screen is the answer (issue 15): the gates' outcome and
#     the rows that tripped them, the workload's metric, the waterfall of
#     the cost per op (issue 16: thp-zap counts its ops) whose bars add up,
#     then the flame graph (by share, and per op on either side behind a
#     switch), all within 1280x900; the children rows that moved, with
#     their chains, follow the graph; the full table and the metadata
#     folded below; a zero base reads "new"; unfolding and filtering work
#     in the browser.

. "$(dirname "$0")/lib.sh"
tap_setup t401

lock=${TMPDIR:-/tmp}/mmprof-thp-split.lock
# A fixed amount of work, not -s 1: on a loaded machine a 1 s run gets a few
# percent of a CPU, a few hundred samples, and the __split_huge_pmd rise is
# too noisy to be significant (not red).  400 iterations of the stack-like
# touch are some 1,600 samples a run with THP on, however busy the machine.
zap="--touch 16K --iterations 400"
# shellcheck disable=SC2086
flock "$lock" "$MMPROF" record -q -r 4 -o "$tmp/off.data" -- "$wl/thp-zap" --thp off $zap >/dev/null 2>"$tmp/rec.err"
ok $? "record thp-zap --thp off, 4 runs"
# shellcheck disable=SC2086
record_thp_on "$tmp/on.data" 4 $zap
ok $? "record thp-zap --thp on, 4 runs (every run split huge pages)"
diag "$tmp/on.data.err"

"$MMPROF" diff "$tmp/off.data" "$tmp/on.data" --html "$tmp/report.html" >"$tmp/out" 2>"$tmp/err"
ok $? "diff --html exits 0"
grep -q "%stddev" "$tmp/out"; ok $? "the text table is still printed"
grep -q '^<!DOCTYPE html>' "$tmp/report.html"; ok $? "an HTML document"
# self-contained: the only URL is the SVG namespace
! grep -Eq '<link|<img|<iframe| src=|@import|url\(["'"'"']?(https?:|//)' "$tmp/report.html"
ok $? "no external resources"
grep -o 'https\?://[^"'"'"'<]*' "$tmp/report.html" | sort -u >"$tmp/urls"
test "$(cat "$tmp/urls")" = "http://www.w3.org/2000/svg"; ok $? "no URL but the SVG namespace ($(tr '\n' ' ' <"$tmp/urls"))"
grep -q 'perf-profile.children.cpu-clock.__split_huge_pmd' "$tmp/report.html"; ok $? "the __split_huge_pmd row is in the table"

if ! command -v chromium >/dev/null 2>&1 && [ "$(id -u)" -eq 0 ]; then
	echo "# chromium missing: installing it (apt-get install -y chromium)"
	DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout=600 install -y chromium >"$tmp/apt.log" 2>&1 || sed 's/^/# /' "$tmp/apt.log" | tail -5
fi
command -v chromium >/dev/null 2>&1
ok $? "chromium is installed (apt-get install chromium; as root this test installs it)"

browse() {	# browse URL-SUFFIX OUT ERR [extra flags]
	url=$1 out=$2 err=$3
	shift 3
	prof=$(mktemp -d "$tmp/chromium.XXXXXX")
	timeout 180 chromium --headless --no-sandbox --disable-gpu --disable-background-networking \
		--disable-component-update --disable-sync --no-first-run --user-data-dir="$prof" \
		--enable-logging=stderr --v=0 "$@" "file://$tmp/report.html$url" >"$out" 2>"$err"
}

browse "" "$tmp/dom" "$tmp/chr.err" --dump-dom
ok $? "chromium --dump-dom exits 0"
grep -q '<body[^>]* data-ok="1"' "$tmp/dom"; ok $? "page and flame graph scripts ran (body data-ok=1)"
! grep -q 'data-error=' "$tmp/dom"; ok $? "no uncaught error (page hook)"
! grep -Eq 'Uncaught|CONSOLE.*[Ee]rror' "$tmp/chr.err"; ok $? "no console error"
grep -E 'Uncaught|CONSOLE' "$tmp/chr.err" | sed 's/^/# /' | head -5
rows=$(grep -o '<body[^>]* data-rows="[0-9]*"' "$tmp/dom" | sed 's/.*data-rows="//; s/"//')
test "${rows:-0}" -gt 0; ok $? "the table has rows in the browser ($rows)"
grep -q '<svg[^>]*class="mmflame"[^>]*data-ok="1"' "$tmp/dom"; ok $? "the flame graph initialised (svg data-ok=1)"
grep -q 'class="f grew[^"]*" data-d="[0-9]*"><title>__split_huge_pmd' "$tmp/dom"; ok $? "__split_huge_pmd is red in the graph"
grep -q 'class="reset" [^>]*style="display: none;"' "$tmp/dom"; ok $? "Reset Zoom hidden until a zoom"

browse "#mmprof-selftest" "$tmp/dom2" "$tmp/chr2.err" --dump-dom
st=$(grep -o 'data-selftest="[^"]*"' "$tmp/dom2")
echo "# $st"
echo "$st" | grep -Eq 'hits=[1-9][0-9]*;Matched: [0-9.]+% \([0-9]+ frames\);hidden=[1-9]'
ok $? "in the browser: search finds split_huge frames with a matched %, a click-zoom hides the rest"

browse "" "$tmp/shot.out" "$tmp/chr3.err" --window-size=1280,2000 --screenshot="$tmp/report.png"
size=$(wc -c <"$tmp/report.png" 2>/dev/null || echo 0)
test "$size" -gt 20000; ok $? "screenshot rendered ($size bytes)"

# ---- the first screen is the answer (issue 15 item 1), with the THP gate a CI job would use
"$MMPROF" diff --fail-on 'perf-profile.children.*.__split_huge_pmd* > +1' "$tmp/off.data" "$tmp/on.data" \
	--html "$tmp/report.html" >/dev/null 2>"$tmp/err"
test $? -eq 1; ok $? "diff --html with the THP gate: exit 1, the gate trips"
# in the page's order: the verdict (gates, the workload's metric, the cost per op's waterfall), the
# flame graphs (share, per op new, per op base), the children that moved, then the folded table and
# metadata
order=$(grep -o 'id="verdict"\|id="gates"\|the workload.s metric\|Functions that moved most\|<svg [^>]*class="mmflame"\|<svg [^>]*class="mmwaterfall"\|<details id="all"\|id="rows"\|<details id="runs"\|id="meta"' \
	"$tmp/report.html" | sed 's/<svg .*mmwaterfall.*/waterfall/; s/<svg .*/svg/' | tr '\n' ' ')
test "$order" = 'id="verdict" id="gates" the workload'"'"'s metric waterfall svg svg svg Functions that moved most <details id="all" id="rows" <details id="runs" id="meta" '
ok $? "verdict, gates, metric, waterfall, flame graphs, movers, then the folded table and metadata ($order)"
python3 - "$tmp/report.html" <<'EOF'
import re, sys
svg = re.search(r'<svg [^>]*class="mmwaterfall".*?</svg>', open(sys.argv[1]).read(), re.S).group(0)
head = re.match(r'<svg [^>]*>', svg).group(0)
base, new = (float(re.search(r'data-%s="([^"]+)"' % k, head).group(1)) for k in ('base', 'new'))
deltas = [float(d) for d in re.findall(r'<g class="wf [^"]*" data-from="[^"]+" data-to="[^"]+" data-delta="([^"]+)"', svg)[1:-1]]
print('# waterfall: base %g, new %g, %d bars summing to %g' % (base, new, len(deltas), sum(deltas)))
sys.exit(0 if deltas and abs(base + sum(deltas) - new) <= 1e-9 * base else 1)
EOF
ok $? "the waterfall's bars add up from the base's cost per op to the new's"
grep -q 'FAILED: 1 of 1 gate tripped' "$tmp/report.html" &&
	grep -q '<td class="key">perf-profile.children.cpu-clock.__split_huge_pmd</td>' "$tmp/report.html"
ok $? "the tripped gate and its __split_huge_pmd row lead the page"
# the score (diff's primary endpoint) leads the workload's metrics, named so
sed -n "/the workload's metric/,/<\/table>/p" "$tmp/report.html" | grep -o '<td class="key">[^<]*</td>' |
	head -1 | grep -q '<td class="key">thp-zap.ops_per_sec (the score)</td>'
ok $? "the workload's ops/s row is on the first screen, first, as the score"
# more operations per second is better: coloured so, not red for "up", and the page says so
row=$(grep -o '<tr class="[a-z -]*"><td class="key">thp-zap.ops_per_sec (the score)</td>.*' "$tmp/report.html" | head -1 | sed 's/<\/tr>.*//')
case "$row" in
*'class="up better"'*'up, better</td>'*|*'class="down worse"'*'down, worse</td>'*|*'class="same"'*|*'class="cant-tell"'*|*'class="small"'*|*'class="changed"'*) true ;;
*) false ;;
esac
ok $? "ops/s coloured by its better direction: up is better, down worse ($(echo "$row" | sed 's/.*class="v">//; s/<.*//'))"
grep -q "the workload's metric <span class=\"note\" title=\"where a metric's better direction is known: higher for operations and rates.*(green better, red worse)</span>" "$tmp/report.html"
ok $? "the page says which colour is better"
! grep -q 'e+[0-9][0-9][0-9]%' "$tmp/report.html" && grep -q '>new</td>' "$tmp/report.html"
ok $? "a zero base reads 'new', not +3.28e+106%"
grep -q '>detectable</th>' "$tmp/report.html" && grep -q '<td class="n" data-v="[0-9.e+-]*">[0-9.e+-]* pt</td></tr>' "$tmp/report.html"
ok $? "the full table says how large a change each row could have detected"
browse "#mmprof-selftest" "$tmp/dom4" "$tmp/chr4.err" --window-size=1280,900 --dump-dom
lay=$(grep -o 'data-layout="[^"]*"' "$tmp/dom4")
echo "# $lay"
vtop=$(echo "$lay" | sed -n 's/.*verdict=\([0-9-]*\).*/\1/p')
gtop=$(echo "$lay" | sed -n 's/.*graph=\([0-9-]*\).*/\1/p')
vh=$(echo "$lay" | sed -n 's/.*viewport=\([0-9]*\).*/\1/p')
test "${vtop:--1}" -ge 0 && test "$vtop" -lt 200 && test "${gtop:--1}" -gt 0 && test "$gtop" -lt "${vh:-0}"
ok $? "at 1280x900 the verdict is at the top ($vtop px) and the flame graph starts on the first screen ($gtop < $vh px)"
wtop=$(echo "$lay" | sed -n 's/.*waterfall=\([0-9-]*\);.*/\1/p')
wend=$(echo "$lay" | sed -n 's/.*waterfall-end=\([0-9-]*\).*/\1/p')
test "${wtop:--1}" -gt "$vtop" && test "${wend:-9999}" -lt "${gtop:-0}"
ok $? "the whole waterfall is on it too, between the verdict's top and the graph ($wtop..$wend px)"
echo "$lay" | grep -q 'table-visible=false'; ok $? "the full table is folded"
echo "$lay" | grep -q 'unfolded-visible=true'; ok $? "unfolded, it shows"
f=$(echo "$lay" | sed -n 's/.*filtered=\([0-9]*\) of \([0-9]*\) rows.*/\1 \2/p')
set -- $f
test "${1:-0}" -gt 0 && test "$1" -lt "${2:-0}"; ok $? "the filter narrows the unfolded table (${1:-?} of ${2:-?} rows match split_huge)"
browse "" "$tmp/shot.out" "$tmp/chr5.err" --window-size=1280,900 --screenshot="$tmp/first.png"
size=$(wc -c <"$tmp/first.png" 2>/dev/null || echo 0)
test "$size" -gt 20000; ok $? "first-screen screenshot rendered ($size bytes)"

done_testing
