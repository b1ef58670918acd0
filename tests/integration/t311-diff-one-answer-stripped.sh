#!/bin/sh
# t311-diff-one-answer-stripped: one answer per function across the views
# (issue 32 point 4) on a pair recorded here: Debian's stripped stress-ng
# --vm with --vm-madvise hugepage against nohugepage, 3 runs a side of a
# fixed work (--vm-ops), so that do_huge_pmd_anonymous_page is absent from
# every new run and do_anonymous_page (nearly) from every base run.  Where
# stacks are broken (the unnamed frames of a stripped program) a function
# is reached by one path and crumbs of others, and the paths are shares
# of every sample, which swing with the unnamed part: each path tested
# on its own was "not significant" where the table flagged its function
# (__munmap up at q=0.0045 in the table, its frame grey at q=0.089; a
# chain under the vanished do_huge_pmd_anonymous_page grey at q=0.16).
# Asserted: (1) do_huge_pmd_anonymous_page's frames shrank and
# do_anonymous_page's grew, coloured as the table's rows say (whether
# these 3 runs a side flag them is the table's test, not asserted; on a
# kernel whose huge-page faults take another path, such as 6.18's
# do_huge_pmd_wp_page, the functions at 5 points or more in every run of
# one side and absent from every run of the other); (2) a
# frame or -g chain that is its function's (it moved as its row did and
# holds 90 % of that function's frames' share on each side where they
# hold 0.5 points, the paths' test floor, or carries 90 % of their change
# with none moving the other way)
# has the row's verdict (and is never coloured against it, where its
# share of every sample moved against the row's of the named samples); (3) a
# tested frame absent from every run of one side, under a function the
# table calls gone or new (absent there), whose own function holds 0.5
# points or more on that side (so it is not the whole of its function,
# whose row answers) and that moved past the 0.1-point colouring floor,
# is coloured with it; (4) no frame is coloured
# where functions on its path have rows and none of them is flagged; (5)
# every frame of a flagged function that moved with its row by more than
# the colouring floor is coloured with it, however many paths the
# function's change is split over (before, such a part stood on its own
# test, gated, and was grey while its row was flagged).
. "$(dirname "$0")/lib.sh"
tap_setup t311

if ! command -v stress-ng >/dev/null 2>&1; then
	echo "1..0 # SKIP stress-ng missing (apt-get install stress-ng)"
	exit 0
fi
plan 5

for m in hugepage nohugepage; do
	"$MMPROF" record -q -g -r 3 -o "$tmp/$m.data" -- stress-ng --vm 1 --vm-bytes 64M \
		--vm-madvise $m --vm-ops 3000 -t 120s --metrics-brief >/dev/null 2>"$tmp/$m.err" ||
		{ diag "$tmp/$m.err"; echo "Bail out! record $m failed"; exit 1; }
done

cat >"$tmp/check.py" <<'PY'
import json, re, sys, html

import mmprof_run

mmprof, a, b, svg = sys.argv[1:5]
MOVED = {"up": 1, "new": 1, "down": -1, "gone": -1}
COLOUR = {"grew": 1, "shrank": -1}


def run(args):
    return mmprof_run.run(mmprof, args)


d = json.loads(run(["diff", "--all", "-g", "--limit", "100000", "-f", "json", a, b]))["diff"]
alpha = d["alpha"]
pre = "perf-profile.children.cpu-clock."
table = {r["key"][len(pre):]: r for r in d["rows"] if r["key"].startswith(pre) and r.get("q") is not None}
flag = {f: MOVED[r["verdict"]] for f, r in table.items() if r["verdict"] in MOVED}
run(["flamegraph", "--min-width", "0", "-o", svg, a, b])
frames, stack = [], []
for m in re.finditer(r'<g class="f ?([a-z]*)[^"]*" data-d="(\d+)"><title>([^\n<]*)\n([^<]*)', open(svg).read()):
    depth, name = int(m.group(2)), html.unescape(m.group(3))
    del stack[depth:]
    stack.append(name)
    v = re.search(r"base ([0-9.]+)% \u2192 new ([0-9.]+)%", m.group(4))
    q = re.search(r"q=([-0-9.e+]+)", m.group(4))
    if v and depth:
        frames.append((tuple(stack[1:]), COLOUR.get(m.group(1), 0), float(q.group(1)) if q else None,
                       float(v.group(1)), float(v.group(2))))
part = [[], [], [], [], []]
checked = [0, 0, 0, 0, 0]
# the huge-page fault path gone, the small-page one new: by name where the
# kernel has them, else the functions at 5 points or more in every run of
# one side and absent from every run of the other (6.18 takes huge-page
# faults through do_huge_pmd_wp_page: do_huge_pmd_anonymous_page is crumbs)
moved_fns = [(f, s) for f, s in (("do_huge_pmd_anonymous_page", -1), ("do_anonymous_page", 1))
             if max(table.get(f, {}).get("base", {}).get("mean", 0), table.get(f, {}).get("new", {}).get("mean", 0)) >= 5]
if not moved_fns:
    for f, r in table.items():
        b, n = r["base"]["values"], r["new"]["values"]
        if min(b) >= 5 and max(n) == 0:
            moved_fns.append((f, -1))
        elif min(n) >= 5 and max(b) == 0:
            moved_fns.append((f, 1))
for f, side in moved_fns:
    own = [x for x in frames if x[0][-1] == f]
    checked[0] += 1
    moved = [x for x in own if (x[4] - x[3]) * side > 0.5]
    if not moved or any(x[1] != flag.get(f, 0) for x in moved if x[2] is not None):
        part[0].append("%s: table %s, frames %s" % (f, table.get(f, {}).get("verdict"), [x[1:] for x in own]))
whole = {}
for f, r in table.items():
    own = [x for x in frames if x[0][-1] == f]
    sb, sn = sum(x[3] for x in own), sum(x[4] for x in own)
    for x in own:
        dx, moved = x[4] - x[3], sum(y[4] - y[3] for y in own)
        against = any((y[4] - y[3]) * dx < 0 for y in own)
        if len(own) == 1 or (dx * r["delta"] > 0 and (
                (max(sb, sn) >= 0.5 and (sb < 0.5 or x[3] >= 0.9 * sb) and (sn < 0.5 or x[4] >= 0.9 * sn)) or
                (not against and abs(dx) >= 0.9 * abs(moved)))):
            whole[f] = x
            if f not in flag or x[2] is None or abs(x[4] - x[3]) < 0.1:
                continue  # not flagged, untested, or under the colouring floor (--min-points)
            checked[1] += 1
            # a share of every sample may move against the row's share of the named ones: never coloured so
            if (x[4] - x[3]) * r["delta"] < 0 and x[1] == -flag[f]:
                part[1].append("frame %s: coloured %s against its table row %s" % (f, x[1], table[f]["verdict"]))
            elif (x[4] - x[3]) * r["delta"] > 0 and x[1] != flag[f]:
                part[1].append("frame %s: %s q=%.3g, table %s q=%.3g" % (f, x[1], x[2], table[f]["verdict"], table[f]["q"]))
for c in d.get("callchains", []):
    f = c["chain"].split(" \u2192 ")[-1]
    x = whole.get(f)
    if x and f in flag and c.get("q") is not None and abs(c["change"] - (x[4] - x[3])) < 0.01:
        checked[1] += 1
        if not c["q"] < alpha:
            part[1].append("-g %s: q=%.3g, table %s q=%.3g" % (c["chain"], c["q"], table[f]["verdict"], table[f]["q"]))
for path, col, q, base, new in frames:
    if q is None:
        continue
    for f in path[:-1]:
        r = table.get(f)
        if not r or r["verdict"] not in ("gone", "new"):
            continue
        side = -1 if r["verdict"] == "gone" else 1
        if (new if side < 0 else base) != 0 or (base if side < 0 else new) <= 0:
            continue
        if abs(new - base) <= 0.11:
            break  # under the 0.1-point colouring floor (past the rounding): grey whatever its q
        own = [y for y in frames if y[0][-1] == path[-1]]
        if whole.get(path[-1], (None,))[0] == path or sum(y[4] if side < 0 else y[3] for y in own) < 0.5:
            break  # the frame is (or may be) its function, absent where the path is: its row answers
        checked[2] += 1
        if col != side:
            part[2].append("%s under %s (%s): %.2f -> %.2f q=%.3g" % (path[-1], f, r["verdict"], base, new, q))
        break
# a flagged function's frame that moved with its row (by more than the
# 0.1-point floor, past the tooltip's rounding) has the row's colour,
# however many paths its change is split over
for path, col, q, base, new in frames:
    f = path[-1]
    if f in flag and (new - base) * flag[f] > 0.11:
        checked[4] += 1
        if col != flag[f]:
            part[4].append("%s: table %s, frame %.2f -> %.2f coloured %d" % (" > ".join(path[-3:]), table[f]["verdict"], base, new, col))
for path, col, q, base, new in frames:
    if col and any(f in table for f in path):
        checked[3] += 1
        if not any(f in flag for f in path):
            part[3].append("%s coloured, no flagged function on it" % " > ".join(path[-3:]))
json.dump({"checked": checked, "bad": part}, sys.stdout)
PY
PYTHONPATH="$here/tests/integration" python3 "$tmp/check.py" "$MMPROF" "$tmp/hugepage.data" "$tmp/nohugepage.data" "$tmp/g.svg" >"$tmp/res" 2>&1 ||
	{ diag "$tmp/res"; echo "Bail out! the check failed"; exit 1; }
res() { python3 -c "import json,sys; r=json.load(open('$tmp/res')); print(r['checked'][$1], len(r['bad'][$1])); [print(x) for x in r['bad'][$1][:5]]" ; }
res 0 >"$tmp/r0"; read cnt nbad <"$tmp/r0"
test "$nbad" = 0 && test "$cnt" -gt 0; ok $? "do_huge_pmd_anonymous_page and do_anonymous_page: their moved frames coloured as their table rows"
[ "$nbad" = 0 ] || diag "$tmp/r0"
res 1 >"$tmp/r1"; read cnt nbad <"$tmp/r1"
test "$nbad" = 0 && test "$cnt" -gt 0; ok $? "a frame or -g chain that is its function's has its row's verdict ($cnt checked)"
[ "$nbad" = 0 ] || diag "$tmp/r1"
res 2 >"$tmp/r2"; read cnt nbad <"$tmp/r2"
test "$nbad" = 0; ok $? "a path absent from one side under a function gone or new there is coloured with it ($cnt checked)"
[ "$nbad" = 0 ] || diag "$tmp/r2"
res 3 >"$tmp/r3"; read cnt nbad <"$tmp/r3"
test "$nbad" = 0; ok $? "no frame coloured where no function on its path is flagged ($cnt coloured)"
[ "$nbad" = 0 ] || diag "$tmp/r3"
res 4 >"$tmp/r4"; read cnt nbad <"$tmp/r4"
test "$nbad" = 0 && test "$cnt" -gt 0; ok $? "a flagged function's frames that moved with it are coloured with it, on one path or several ($cnt checked)"
[ "$nbad" = 0 ] || diag "$tmp/r4"
done_testing
