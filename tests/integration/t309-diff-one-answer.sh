#!/bin/sh
# t309-diff-one-answer: one answer per function across the views (issue 32
# point 4), on the committed real corpus (tests/recorded).  For every
# function the differential flame graph draws once (reached by one path
# only, so that its path is its perf-profile.children row), the frame's q
# is the table's row's and its colour the row's verdict (up/new: grew,
# down/gone: shrank, not significant: grey); diff -g's chain ending in
# such a function has the row's q; a function's cost row flagged against
# the direction of its flagged share row only where the event's total
# cost per op moved the cost row's way (cost per op = share x total).
# Before, each view ran its own test: stress-ng --mmap-file's _Fork was
# "down q=0.0015" in the table and a grey frame at q=0.054.  A function
# drawn several times (reached by several paths): no frame or -g chain of
# it has a q below the least q of the rows of the functions on its path,
# nor is flagged where none of them is (the table's gate of its chains).
# The cost attribution's function lines: where a function's cost per op
# and its share answer apart, the line says both (issue 32: a silent
# "can't tell" beside a share the table flags), the JSON function has
# share_verdict, the markdown section's function cell and the HTML
# waterfall's bar (under its verdict) say the text's note (mmap-file's pvm_irq_enable: a red bar, up, whose share the
# table has down).

. "$(dirname "$0")/lib.sh"
tap_setup t309
plan 4

rec=$here/tests/recorded
cat >"$tmp/check.py" <<'PY'
import json, re, sys, html

import mmprof_run

mmprof, a, b, svg = sys.argv[1:5]

MOVED = {"up": 1, "new": 1, "down": -1, "gone": -1}


def run(args):
    return mmprof_run.run(mmprof, args)


d = json.loads(run(["diff", "--all", "--cost", "-g", "-f", "json", a, b]))["diff"]
pre = "perf-profile.children.cpu-clock."
table = {r["key"][len(pre):]: r for r in d["rows"] if r["key"].startswith(pre) and r.get("q") is not None}
run(["flamegraph", "--min-width", "0", "-o", svg, a, b])
frames, gates, stack = {}, {}, []
for m in re.finditer(r'<g class="f ?([a-z]*)[^"]*" data-d="(\d+)"><title>([^\n<]*)\n([^<]*)', open(svg).read()):
    depth, name = int(m.group(2)), html.unescape(m.group(3))
    del stack[depth:]
    stack.append(name)
    q = re.search(r"q=([-0-9.e+]+)", m.group(4))
    # the least q of the rows of the functions on the frame's path (the table's gate of its chains)
    gate = min((table[f]["q"] for f in stack[1:] if f in table), default=None)
    frames.setdefault(name, []).append((m.group(1), float(q.group(1)) if q else None, gate))
single = {k: v[0] for k, v in frames.items() if len(v) == 1}
bad, checked = [], {"flame": 0, "-g": 0, "cost": 0, "paths": 0}


def same_q(x, y):
    return abs(x - y) <= 1e-2 * max(abs(x), abs(y)) or max(x, y) < 1e-300


for name, (state, q, gate) in sorted(single.items()):
    r = table.get(name)
    if not r or q is None:
        continue
    checked["flame"] += 1
    want = {1: "grew", -1: "shrank"}.get(MOVED.get(r["verdict"], 0))
    if not same_q(q, r["q"]) or (want and state != want) or (r["q"] >= d["alpha"] and state in ("grew", "shrank")):
        bad.append("flame %s: %s q=%.3g, table %s q=%.3g" % (name, state or "grey", q, r["verdict"], r["q"]))
for c in d.get("callchains", []):
    leaf = c["chain"].split(" \u2192 ")[-1]
    r = table.get(leaf)
    if leaf not in single or not r or c.get("q") is None:
        continue
    checked["-g"] += 1
    if not same_q(c["q"], r["q"]):
        bad.append("-g %s: q=%.3g, table %s q=%.3g" % (leaf, c["q"], r["verdict"], r["q"]))
# a function drawn several times (reached by several paths): as the
# table's chains, no path is surer than the least q of the rows of the
# functions on it, none is flagged where none of them is
for name, v in sorted(frames.items()):
    r = table.get(name)
    if len(v) < 2 or not r:
        continue
    for state, q, gate in v:
        if q is None:
            continue
        checked["paths"] += 1
        if (q < gate and not same_q(q, gate)) or (gate >= d["alpha"] and state in ("grew", "shrank")):
            bad.append("flame %s (one of %d paths): %s q=%.3g, least q of the rows on it %.3g" %
                       (name, len(v), state or "grey", q, gate))
# (-g names a chain from where its change starts, one caller above it:
# the rows of the functions above are not in its text; the same paths are
# the flame graph's frames, checked above)
if not checked["paths"]:
    bad.append("no function reached by several paths with a tested row: the property was not checked")
costs = {r["key"]: r for r in d.get("cost_rows", {}).get("rows", [])}
total = costs.get("cost.total.cpu-clock")
for k, r in costs.items():
    if not k.startswith("cost.children.cpu-clock.") or r["verdict"] not in MOVED:
        continue
    s = table.get(k[len("cost.children.cpu-clock."):])
    if not s or s["verdict"] not in MOVED:
        continue
    checked["cost"] += 1
    # cost per op = share x total per op: opposite directions only where the total moved the cost's way
    if MOVED[r["verdict"]] != MOVED[s["verdict"]] and not (total and MOVED.get(total["verdict"]) == MOVED[r["verdict"]]):
        bad.append("cost %s %s, share %s, total %s" % (k, r["verdict"], s["verdict"], total and total["verdict"]))
# the attribution's function lines (self costs): where the cost and its share
# answer apart (one flagged, the other not, or opposite ways) the line says so
selfs = {r["key"][len("perf-profile.self.cpu-clock."):]: r for r in d["rows"]
         if r["key"].startswith("perf-profile.self.cpu-clock.") and r.get("q") is not None}
text = run(["diff", "--cost", "--html", svg + ".html", a, b])
checked["apart"] = 0
notes = {}
for line in text.split("\n"):
    m = re.match(r"\s+[-+][0-9.]+ \S+\s+(?:-|[-0-9.]+ %)\s+(?:-|[-+0-9.]+ pts)\s+(up|down|new|gone|can't tell|same|-)\s+(\S+)", line)
    if m:
        n = re.search(r"  (\(its share.*\))$", line)
        notes[m.group(2)] = n.group(1) if n else None
    if not m or m.group(2) not in selfs:
        continue
    s, cv = selfs[m.group(2)], m.group(1)
    apart = (s["verdict"] in MOVED) != (cv in MOVED) or (
        s["verdict"] in MOVED and cv in MOVED and MOVED[s["verdict"]] != MOVED[cv])
    if apart and cv != "-":
        checked["apart"] += 1
        if "(its share" not in line:
            bad.append("attribution %s: cost %s, share %s, not said: %s" % (m.group(2), cv, s["verdict"], line.strip()))
for ev in (d.get("cost") or {}).get("events", []):
    for fn in ev.get("functions", []):
        s = selfs.get(fn["function"])
        cv = fn.get("verdict")
        if not s or cv in (None, "-"):
            continue
        apart = (s["verdict"] in MOVED) != (cv in MOVED) or (
            s["verdict"] in MOVED and cv in MOVED and MOVED[s["verdict"]] != MOVED[cv])
        if apart and fn.get("share_verdict") != s["verdict"]:
            bad.append("json attribution %s: cost %s, share %s, share_verdict %s" % (fn["function"], cv, s["verdict"], fn.get("share_verdict")))
# the HTML waterfall's bars: the same note as the text's line, under the bar's verdict in its title
checked["html"] = 0
for m in re.finditer(r'<g class="wf [^"]*"[^>]*><title>([^<]*)</title>', open(svg + ".html").read()):
    lines = [html.unescape(x) for x in m.group(1).split("\n")]
    if lines[0] not in notes:
        continue
    checked["html"] += 1
    got = lines[3] if len(lines) > 3 else None
    if got != notes[lines[0]]:
        bad.append("html waterfall %s: note %r, the text's %r" % (lines[0], got, notes[lines[0]]))
if notes and not checked["html"]:
    bad.append("no waterfall bar of a function of the text's attribution in the HTML: the notes were not checked")
# and the markdown section's function cell
checked["md"] = 0
for line in run(["diff", "--cost", "-f", "markdown", a, b]).split("\n"):
    m = re.match(r"\| [-+][^|]* \| [^|]* \| [^|]* \| [^|]* \| `([^`]*)`(?: (\(its share[^|]*\)))? \|$", line)
    if not m or m.group(1) not in notes:
        continue
    checked["md"] += 1
    if m.group(2) != notes[m.group(1)]:
        bad.append("markdown %s: note %r, the text's %r" % (m.group(1), m.group(2), notes[m.group(1)]))
if notes and not checked["md"]:
    bad.append("no function row of the text's attribution in the markdown: the notes were not checked")
print("checked: %s" % checked)
for x in bad[:6]:
    print(x)
sys.exit(1 if bad else 0)
PY

for pair in thp-zap vm-keep mmap-file aa-vm; do
	PYTHONPATH="$here/tests/integration" python3 "$tmp/check.py" "$MMPROF" "$rec/$pair/a.data" "$rec/$pair/b.data" "$tmp/$pair.svg" >"$tmp/$pair.out" 2>&1
	rc=$?
	ok $rc "$pair: the table, diff -g, the flame graph's colours and the cost rows agree ($(head -1 "$tmp/$pair.out"))"
	[ $rc -eq 0 ] || diag "$tmp/$pair.out"
done
done_testing
