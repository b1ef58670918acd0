#!/usr/bin/env python3
"""verdict-corpus: how mmprof diff's verdicts hold on real recordings.

    verdict-corpus.py [options] PAIR-DIR...

Issue 32 point 5.  Each PAIR-DIR holds the two sides of one comparison,
recorded with as many runs a side as possible (12 or more):
    a-*.data and b-*.data   (one run a file or several: a side pools its
                             files in name order, as mmprof diff does), or
    base*.data and new*.data
e.g.  mmprof record -r 12 -o p1/base.data -- CMD-A
      mmprof record -r 12 -o p1/new.data  -- CMD-B

The verdicts of all runs against all runs are taken as the truth: a row
up/down/new/gone moved, a row "same" did not, anything else ("can't tell",
"small", untested) is unknown and left out.  Then, drawn at random
(--seed), -n subsets of K runs against K runs (--sizes, default 3 and 5):
per pair, how often a moved row is flagged in its direction ("found") and
how often a row that did not move is flagged ("false"); "N against"
after the found rate counts flags of a moved row in the other direction.  As the truth
depends on the test being judged, a second one does not: a row is
"separated" when every run of one side is beyond every run of the other and
the change is at least the one-run thresholds (0.5 points, 5 %), whatever
its verdict; "found separated" is how often those are flagged.  Real A/A: each side's runs split into two random
halves (6 against 6 of 12) and into 3 against 3, where every flag is false.

Statements a verdict must never make, counted over every diff above:
a detectable change above 100 points (shares end at 100), and "can't tell"
for a row where every run of one side is beyond every run of the other by
more than the detectable change.

Pairing (--paired): the same draws of K pairs (run i of each side, recorded
side by side) diffed paired (the files carry record --interleave's meta;
a one-run-a-file corpus gets it on copies) and unpaired (the meta left
out), and real A/A pairs within a side: its runs in time order, each with
the next (the 2nd and 3rd, the 4th and 5th, ...), the half that has the
first run of a couple alternating from couple to couple as ABBA does (the
run after one of the same command is warmer).  What pairing gains at
equal runs.

Ambient rows (the machine's state) are left out everywhere.  The score is
the row the diff marks as the workload's score, else (a diff before
issue 32) the first *.ops_per_sec key (else *.throughput, else *.ops).

Output: markdown tables on stdout (--details adds each moved row's found
rate).  Runs MMPROF (default build/mmprof), -j jobs at once (at most 2 on
the shared machines).  A side of one-run files is subset by passing the
files; otherwise by --drop-run.  Not a test: figures, no pass/fail.
"""

import argparse
import concurrent.futures
import glob
import json
import os
import random
import shutil
import sqlite3
import subprocess
import sys
import tempfile
import time

MOVED = {"up": 1, "new": 1, "down": -1, "gone": -1}
SCORE_SUFFIXES = (".ops_per_sec", ".throughput", ".ops")


def die(msg):
    print("verdict-corpus: " + msg, file=sys.stderr)
    sys.exit(2)


class Side:
    """One side's files and the number of runs in each."""

    def __init__(self, files):
        self.files = files
        self.runs_per_file = None  # filled from the full diff

    def total(self):
        return sum(self.runs_per_file)


def sides_of(pair_dir):
    for a, b in (("a-*.data", "b-*.data"), ("base*.data", "new*.data")):
        fa = sorted(glob.glob(os.path.join(pair_dir, a)))
        fb = sorted(glob.glob(os.path.join(pair_dir, b)))
        if fa and fb:
            return Side(fa), Side(fb)
    die("'%s' has neither a-*.data and b-*.data nor base*.data and new*.data" % pair_dir)


def selection(side, name, keep):
    """Arguments for side `name` (base/new) keeping the runs `keep` (indices
    over the side's files in order), or every run when keep is None."""
    if keep is None:
        return list(side.files), []
    if all(n == 1 for n in side.runs_per_file):
        return [side.files[i] for i in sorted(keep)], []
    drop = []
    for i in range(side.total()):
        if i not in keep:
            drop += ["--drop-run", "%s:%d" % (name, i)]
    return list(side.files), drop


def with_pairing(files_a, files_b, tmp, pair):
    """Copies of files_a and files_b (one run a file, equal lengths) in tmp,
    file j of each carrying record --interleave's meta for the pair it forms
    with file j of the other (pair=True), or none (pair=False): the same
    runs paired or unpaired."""
    out = ([], [])
    for j, (fa, fb) in enumerate(zip(files_a, files_b)):
        for side, (src, other) in enumerate(((fa, fb), (fb, fa))):
            dst = os.path.join(tmp, "%s-%02d.data" % ("ab"[side], j))
            shutil.copyfile(src, dst)
            db = sqlite3.connect(dst)
            try:
                db.execute("UPDATE meta SET key = 'was.' || key WHERE key LIKE 'interleave.%'")
                if pair:
                    seq = db.execute("SELECT max(seq) FROM meta").fetchone()[0]
                    for k, v in (("interleave.side", "ab"[side]), ("interleave.pairs", "1"),
                                 ("interleave.order", "abba"),
                                 ("interleave.with", "%s-%02d.data" % ("ba"[side], j))):
                        seq += 1
                        db.execute("INSERT INTO meta(seq, key, value) VALUES (?, ?, ?)", (seq, k, v))
                db.commit()
            finally:
                db.close()
            out[side].append(dst)
    return out


def run_pairs(mmprof, files_a, files_b, pair):
    """diff of the runs files_a[j] against files_b[j], paired or not; the JSON."""
    with tempfile.TemporaryDirectory(prefix="verdict-corpus.") as tmp:
        a, b = with_pairing(files_a, files_b, tmp, pair)
        d = run_diff(mmprof, Side(a), None, Side(b), None, ["--paired"] if pair else [])
    if pair and "pairs" not in d["diff"]:
        die("%s: not paired: %s" % (files_a[0], d["diff"].get("unpaired", "?")))
    return d


def run_diff(mmprof, base, bkeep, new, nkeep, extra=()):
    bf, bd = selection(base, "base", bkeep)
    nf, nd = selection(new, "new", nkeep)
    cmd = [mmprof, "diff", "--all", "-f", "json", "--no-color"] + list(extra) + bd + nd + bf + ["--"] + nf
    p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    if p.returncode not in (0, 1) or not p.stdout:
        die("%s failed (exit %d): %s" % (" ".join(cmd), p.returncode, p.stderr.strip()[-400:]))
    d = json.loads(p.stdout)
    return d


def rows_of(d):
    """key -> row, the workload's rows only (ambient ones left out)."""
    return {r["key"]: r for r in d["diff"]["rows"] if not r.get("ambient")}


def abs_detectable(r):
    """The detectable change in the row's own unit; None when there is none
    or it is a percentage of a base of 0."""
    det = r.get("detectable")
    if det is None:
        return None
    if r.get("change_unit") == "points":
        return det
    if not r["base"]["mean"]:
        return None
    return det / 100.0 * abs(r["base"]["mean"])


def separation(r):
    """How far every run of one side is beyond every run of the other (<= 0:
    the sides overlap)."""
    b, n = r["base"], r["new"]
    if not b.get("runs") or not n.get("runs"):
        return 0.0
    return max(n["min"] - b["max"], b["min"] - n["max"])


def separated_direction(r):
    """+1 or -1 when the row clearly moved whatever the verdict says: every
    run of one side beyond every run of the other, by a change of at least
    the one-run thresholds (0.5 points, 5 %); else 0.  At 12 runs a side,
    complete separation happens by chance once in 1.4 million rows."""
    if separation(r) <= 0 or r.get("delta") is None:
        return 0
    if r.get("change_unit") == "points":
        big = abs(r["delta"]) >= 0.5
    else:
        big = abs(r.get("change") or 0) >= 5 or (r["base"]["mean"] == 0 and r["new"]["mean"] != 0)
    return (1 if r["delta"] > 0 else -1) if big else 0


def absurd_rows(rows):
    """The rows (of an iterable) that claim a detectable change above 100
    points, and those "can't tell" though separated by more than their
    detectable change (t307 checks both on its corpus)."""
    over = [r for r in rows if r.get("change_unit") == "points" and (r.get("detectable") or 0) > 100]
    blind = []
    for r in rows:
        # past the scale's end ("detectable >1e+03%") the number is a bound, not a change
        det = abs_detectable(r) if r["verdict"] == "can't tell" and not r.get("detectable_above") else None
        if det is not None and separation(r) > det:
            blind.append(r)
    return over, blind


def absurd(rows):
    over, blind = absurd_rows(rows.values())
    return len(over), len(blind)


def score_key(rows):
    """The row the diff marks as the workload's score (its primary
    endpoint), else, from a diff before it did, the first key of the
    workload's own ending in one of SCORE_SUFFIXES."""
    marked = sorted(k for k, r in rows.items() if r.get("score"))
    if marked:
        return marked[0]
    for suf in SCORE_SUFFIXES:
        keys = sorted(k for k in rows if k.endswith(suf) and ".time." not in k
                      and not k.startswith(("perf-", "cost.", "meminfo.", "proc-vmstat.")))
        if keys:
            return keys[0]
    return None


def pct(num, den):
    return "-" if den == 0 else "%.0f" % (100.0 * num / den)


class Pair:
    def __init__(self, path):
        self.path = path
        self.name = os.path.basename(os.path.normpath(path))
        self.base, self.new = sides_of(path)


def draws(rng, n_base, n_new, k, count):
    out = []
    for _ in range(count):
        out.append((frozenset(rng.sample(range(n_base), k)), frozenset(rng.sample(range(n_new), k))))
    return out


def evaluate(pair, args, pool, rng):
    full = run_diff(args.mmprof, pair.base, None, pair.new, None)
    # runs per file: with one file a run per file is the same as the total
    for side, key in ((pair.base, "base"), (pair.new, "new")):
        total = full[key]["runs"]
        side.runs_per_file = [1] * len(side.files) if total == len(side.files) else \
            [total] if len(side.files) == 1 else None
        if side.runs_per_file is None:
            side.runs_per_file = runs_per_file(args.mmprof, side.files)
    truth_rows = rows_of(full)
    moved = {k: MOVED[r["verdict"]] for k, r in truth_rows.items() if r["verdict"] in MOVED}
    same = {k for k, r in truth_rows.items() if r["verdict"] == "same"}
    unknown = len(truth_rows) - len(moved) - len(same)
    separated = {k: separated_direction(r) for k, r in truth_rows.items() if separated_direction(r)}
    score = score_key(truth_rows)
    res = {
        "name": pair.name, "runs": (pair.base.total(), pair.new.total()),
        "moved": len(moved), "same": len(same), "unknown": unknown,
        "separated": len(separated), "score": score,
        "score_truth": truth_rows[score]["verdict"] if score else None,
        "absurd": [absurd(truth_rows)], "sizes": {}, "aa": {}, "per_row": {},
    }
    nb, nn = pair.base.total(), pair.new.total()
    jobs = []
    for k in [] if args.only_paired else args.sizes:
        if k > min(nb, nn) - 1:
            continue
        for bk, nk in draws(rng, nb, nn, k, args.n):
            jobs.append(("ab", k, pool.submit(run_diff, args.mmprof, pair.base, bk, pair.new, nk)))
    # real A/A: halves of each side, and 3 against 3 within it
    for side in () if args.only_paired else (pair.base, pair.new):
        n = side.total()
        for k in sorted({n // 2, 3}):
            if 2 * k > n or k < 2:
                continue
            for _ in range(args.aa):
                pick = rng.sample(range(n), 2 * k)
                jobs.append(("aa", k, pool.submit(run_diff, args.mmprof, side, frozenset(pick[:k]),
                                                  side, frozenset(pick[k:]))))
    if args.drift:
        for side in (pair.base, pair.new):
            for k, design, a, b in drift_splits(time_order(side)):
                jobs.append((design, k, pool.submit(run_diff, args.mmprof, side, frozenset(a),
                                                    side, frozenset(b))))
    if args.paired or args.only_paired:
        paired_jobs(pair, args, pool, rng, jobs)
    res["drift"] = {}
    res["paired"] = {}
    for kind, k, fut in jobs:
        if kind.startswith("paired-"):
            # ("paired-ab"/"paired-aa", pair?) per k: flags and finds as above
            rows = rows_of(fut.result())
            _, what, mode = kind.split("-")
            a = res["paired"].setdefault((what, k, mode), {"diffs": 0, "flags": 0, "any": 0,
                                                          "found": 0, "false": 0})
            a["diffs"] += 1
            f = sum(1 for r in rows.values() if r["verdict"] in MOVED)
            a["flags"] += f
            a["any"] += f > 0
            if what == "ab":
                for key, direction in moved.items():
                    r = rows.get(key)
                    a["found"] += bool(r) and MOVED.get(r["verdict"], 0) == direction
                for key in same:
                    r = rows.get(key)
                    a["false"] += bool(r and r["verdict"] in MOVED)
            continue
        rows = rows_of(fut.result())
        res["absurd"].append(absurd(rows))
        if kind in ("sequential", "ABBA"):
            a = res["drift"].setdefault((k, kind), {"diffs": 0, "flags": 0, "score": []})
            a["diffs"] += 1
            a["flags"] += sum(1 for r in rows.values() if r["verdict"] in MOVED)
            if score in rows and rows[score].get("change") is not None:
                a["score"].append(abs(rows[score]["change"]))
            continue
        if kind == "aa":
            a = res["aa"].setdefault(k, {"diffs": 0, "flags": 0, "any": 0, "tested": 0})
            f = sum(1 for r in rows.values() if r["verdict"] in MOVED)
            a["diffs"] += 1
            a["flags"] += f
            a["any"] += f > 0
            a["tested"] += sum(1 for r in rows.values() if r["verdict"] in MOVED or r["verdict"] == "same")
            continue
        s = res["sizes"].setdefault(k, {"diffs": 0, "found": 0, "found_sep": 0, "wrong": 0,
                                         "false": 0, "score": 0})
        s["diffs"] += 1
        for key in set(moved) | set(separated):
            r = rows.get(key)
            v = MOVED.get(r["verdict"], 0) if r else 0
            direction = moved.get(key) or separated[key]
            hit = v == direction
            s["wrong"] += v == -direction
            if key in moved:
                s["found"] += hit
            if key in separated:
                s["found_sep"] += hit
            res["per_row"].setdefault(key, {}).setdefault(k, 0)
            res["per_row"][key][k] += hit
        for key in same:
            r = rows.get(key)
            s["false"] += bool(r and r["verdict"] in MOVED)
        if score and score in rows and rows[score]["verdict"] in MOVED:
            s["score"] += 1
    res["truth_rows"] = {k: truth_rows[k] for k in set(moved) | set(separated)}
    res["separated_keys"] = separated
    return res


def paired_jobs(pair, args, pool, rng, jobs):
    """The --paired diffs: K of the pairs (run i of A, run i of B) paired
    and unpaired; and real A/A pairs within each side (its runs in time
    order, each with the next), paired and unpaired."""
    fa, fb = pair.base.files, pair.new.files
    if not all(n == 1 for n in pair.base.runs_per_file + pair.new.runs_per_file):
        die("%s: --paired takes one run a file" % pair.name)
    for k in args.sizes:
        if k > min(len(fa), len(fb)):
            continue
        for _ in range(args.n):
            pick = sorted(rng.sample(range(min(len(fa), len(fb))), k))
            for mode in ("paired", "unpaired"):
                jobs.append(("paired-ab-" + mode, k, pool.submit(
                    run_pairs, args.mmprof, [fa[i] for i in pick], [fb[i] for i in pick], mode == "paired")))
    for side in (pair.base, pair.new):
        order = time_order(side)
        # each run with the next: the 2nd and 3rd, ... (the 1st and 2nd are the other side's pair apart)
        couples = [(order[i], order[i + 1]) for i in range(1, len(order) - 1, 2)]
        for k in args.sizes:
            if k > len(couples):
                continue
            for _ in range(args.aa):
                # in time order, the half that goes first alternating (ABBA): the run after one of
                # the same command is warmer (its page cache) than the run after the other side's
                pick = [couples[i] for i in sorted(rng.sample(range(len(couples)), k))]
                start = rng.random() < 0.5
                flip = [(j % 2 == 1) != start for j in range(len(pick))]
                a = [side.files[c[f]] for c, f in zip(pick, flip)]
                b = [side.files[c[not f]] for c, f in zip(pick, flip)]
                for mode in ("paired", "unpaired"):
                    jobs.append(("paired-aa-" + mode, k, pool.submit(
                        run_pairs, args.mmprof, a, b, mode == "paired")))


def paired_table(results, sizes):
    print("### Pairing: the same runs tested paired and unpaired\n")
    print("Moved rows found and rows that did not move flagged (%) in draws of K pairs "
          "(run i of each side); real A/A within a side, each run with the next in time "
          "(every flag is false): flags a diff, diffs flagging any.\n")
    head, rule = "| pair |", "|---|"
    for k in sizes:
        head += (" found %dv%d unpaired | paired | false %dv%d unpaired | paired |"
                 " A/A flags a diff %dv%d unpaired | paired | A/A diffs flagging any %dv%d unpaired | paired |") % ((k, k) * 4)
        rule += "---|" * 8
    print(head)
    print(rule)
    for r in results:
        line = "| %s |" % r["name"]
        for k in sizes:
            cells = []
            for what in ("found", "false"):
                for mode in ("unpaired", "paired"):
                    a = r["paired"].get(("ab", k, mode))
                    den = (r["moved"] if what == "found" else r["same"]) * (a["diffs"] if a else 0)
                    cells.append(pct(a[what], den) if a else "-")
            for what in ("flags", "any"):
                for mode in ("unpaired", "paired"):
                    a = r["paired"].get(("aa", k, mode))
                    cells.append("-" if not a else "%.2f" % (a["flags"] / a["diffs"]) if what == "flags"
                                 else "%d/%d" % (a["any"], a["diffs"]))
            line += "".join(" %s |" % c for c in cells)
        print(line)
    print()
    print("Every flag of the draws of K pairs (all false on an A/A pair): flags a diff, diffs flagging any.\n")
    print("| pair |" + "".join(" flags a diff %dv%d unpaired | paired | diffs flagging any %dv%d unpaired | paired |"
                                % (k, k, k, k) for k in sizes))
    print("|---|" + "---|" * 4 * len(sizes))
    for r in results:
        line = "| %s |" % r["name"]
        for k in sizes:
            for what in ("flags", "any"):
                for mode in ("unpaired", "paired"):
                    a = r["paired"].get(("ab", k, mode))
                    line += " %s |" % ("-" if not a else "%.2f" % (a["flags"] / a["diffs"]) if what == "flags"
                                       else "%d/%d" % (a["any"], a["diffs"]))
        print(line)
    print()


def time_order(side):
    """The side's run indices (over its files in order) sorted by start time."""
    starts = []
    for f in side.files:
        db = sqlite3.connect("file:%s?mode=ro" % f, uri=True)
        try:
            starts += [r[0] for r in db.execute("SELECT start_ns FROM runs ORDER BY id")]
        finally:
            db.close()
    if len(starts) != side.total():
        die("'%s': %d runs by their start times, %d by mmprof" % (side.files[0], len(starts), side.total()))
    return sorted(range(len(starts)), key=lambda i: starts[i])


# ABBA over 2k runs in time order: pair j's first run goes to A when j is
# even, to B when odd (a b, b a, a b, ...)
def abba(runs):
    a = [r for p, r in enumerate(runs) if (p % 2 == 0) == ((p // 2) % 2 == 0)]
    return a, [r for r in runs if r not in a]


def drift_splits(order):
    """(k, design, A-runs, B-runs) of one side's runs in time order: its
    first half against its second (one side recorded after the other) and
    the same runs interleaved ABBA, at half the runs and at 3 against 3 in
    each window of 6 consecutive runs."""
    out = []
    n = len(order)
    k = n // 2
    if k >= 2:
        out.append((k, "sequential", order[:k], order[k:2 * k]))
        out.append((k, "ABBA", *abba(order[:2 * k])))
    if k > 3:
        for j in range(n - 5):
            w = order[j:j + 6]
            out.append((3, "sequential", w[:3], w[3:]))
            out.append((3, "ABBA", *abba(w)))
    return out


def runs_per_file(mmprof, files):
    out = []
    for f in files:
        p = subprocess.run([mmprof, "report", "--json", f], stdout=subprocess.PIPE,
                           stderr=subprocess.DEVNULL, text=True)
        if p.returncode:
            die("mmprof report --json %s failed" % f)
        out.append(len(json.loads(p.stdout)["runs"]))
    return out


def pair_lines(results, ks, what, width, cells):
    """A line per pair: for each k, the `width` cells of r[what][k] (dashes
    when the pair has none), then an empty line."""
    for r in results:
        line = "| %s |" % r["name"]
        for k in ks:
            e = r[what].get(k)
            line += "".join(" %s |" % c for c in (cells(r, e) if e else ["-"] * width))
        print(line)
    print()


def table(results, sizes):
    print("### Truth: every run against every run\n")
    print("| pair | runs | moved | same | unknown | separated | score | score's verdict |")
    print("|---|---|---|---|---|---|---|---|")
    for r in results:
        print("| %s | %d v %d | %d | %d | %d | %d | %s | %s |" % (
            r["name"], r["runs"][0], r["runs"][1], r["moved"], r["same"], r["unknown"],
            r["separated"], r["score"] or "-", r["score_truth"] or "-"))
    print()
    print("### Subsets: moved rows found, rows that did not move flagged (%)\n")
    head = "| pair |"
    rule = "|---|"
    for k in sizes:
        head += " found %dv%d | found separated %dv%d | false %dv%d | score flagged %dv%d |" % ((k, k) * 4)
        rule += "---|---|---|---|"
    print(head)
    print(rule)

    def subset_cells(r, s):
        cells = [pct(s["found"], r["moved"] * s["diffs"]),
                 pct(s["found_sep"], r["separated"] * s["diffs"]),
                 pct(s["false"], r["same"] * s["diffs"]) if r["same"] else "-",
                 pct(s["score"], s["diffs"]) if r["score"] else "-"]
        if s["wrong"]:
            cells[0] += " (%d against)" % s["wrong"]	# flagged the other way
        return cells
    pair_lines(results, sizes, "sizes", 4, subset_cells)
    print("### Real A/A: a side's runs against its other runs (every flag is false)\n")
    ks = sorted({k for r in results for k in r["aa"]})
    head = "| pair |" + "".join(" flags a diff %dv%d | diffs flagging any %dv%d | flagged rows %dv%d (%%) |" %
                                 ((k, k) * 3) for k in ks)
    print(head)
    print("|---|" + "---|---|---|" * len(ks))
    pair_lines(results, ks, "aa", 3, lambda r, a: [
        "%.2f" % (a["flags"] / a["diffs"]), "%d/%d" % (a["any"], a["diffs"]),
        "%.2f" % (100.0 * a["flags"] / a["tested"]) if a["tested"] else "-"])
    print("### Statements a verdict must never make, over every diff above\n")
    print("| pair | diffs | rows with a detectable change > 100 points | rows \"can't tell\" though separated by more than their detectable change |")
    print("|---|---|---|---|")
    for r in results:
        print("| %s | %d | %d | %d |" % (r["name"], len(r["absurd"]), sum(a for a, _ in r["absurd"]),
                                          sum(b for _, b in r["absurd"])))
    print()


def drift_table(results):
    print("### Drift: a side's runs in time order, one half after the other against the same runs interleaved ABBA\n")
    print("A/A within a side (every flag is false); the score's change is its mean absolute change, %.\n")
    ks = sorted({k for r in results for k, _ in r["drift"]}, reverse=True)
    head = "| pair |"
    for k in ks:
        head += " flags a diff %dv%d sequential | %dv%d ABBA | score's change %dv%d sequential | %dv%d ABBA |" % ((k, k) * 4)
    print(head)
    print("|---|" + "---|---|---|---|" * len(ks))
    for r in results:
        line = "| %s |" % r["name"]
        for k in ks:
            for what in ("flags", "score"):
                for design in ("sequential", "ABBA"):
                    a = r["drift"].get((k, design))
                    if not a:
                        line += " - |"
                    elif what == "flags":
                        line += " %.2f |" % (a["flags"] / a["diffs"])
                    else:
                        line += " %s |" % ("%.1f" % (sum(a["score"]) / len(a["score"])) if a["score"] else "-")
        print(line)
    print()


def details(results, sizes, limit):
    print("### Moved rows: found in %% of the draws (the %d largest moves a pair)\n" % limit)
    print("| pair | key | verdict, all runs | base -> new | separated |" + "".join(" %dv%d |" % (k, k) for k in sizes))
    print("|---|---|---|---|---|" + "---|" * len(sizes))
    for r in results:
        def size(key):
            t = r["truth_rows"][key]
            return abs(t["delta"] or 0) / (1 if t["change_unit"] == "points" else max(abs(t["base"]["mean"]), 1e-12) / 100)
        keys = sorted(r["truth_rows"], key=lambda k: -size(k))[:limit]
        for key in keys:
            t = r["truth_rows"][key]
            line = "| %s | %s | %s | %.4g -> %.4g | %s |" % (
                r["name"], key, t["verdict"], t["base"]["mean"], t["new"]["mean"],
                "yes" if key in r["separated_keys"] else "no")
            for k in sizes:
                s = r["sizes"].get(k)
                line += " %s |" % (pct(r["per_row"][key].get(k, 0), s["diffs"]) if s else "-")
            print(line)
    print()


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("pairs", nargs="+", metavar="PAIR-DIR")
    ap.add_argument("-n", type=int, default=30, help="draws of each subset size a pair (30)")
    ap.add_argument("--aa", type=int, default=10, help="A/A draws of each split a side (10)")
    ap.add_argument("--sizes", default="3,5", help="runs a side of the subsets (3,5)")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("-j", type=int, default=2, help="diffs at once (2)")
    ap.add_argument("--details", type=int, default=0, metavar="N",
                    help="also each pair's N largest moved rows with their found rates")
    ap.add_argument("--drift", action="store_true",
                    help="also each side's runs in time order: halves one after the other against interleaved (ABBA)")
    ap.add_argument("--paired", action="store_true",
                    help="also the same runs paired and unpaired (one run a file, the sides' files pair by index)")
    ap.add_argument("--only-paired", action="store_true",
                    help="with --paired: the pairing tables alone (no subsets, A/A halves or truth tables)")
    ap.add_argument("--mmprof", default=os.environ.get("MMPROF", "build/mmprof"))
    args = ap.parse_args()
    try:
        args.sizes = sorted({int(x) for x in args.sizes.split(",")})
    except ValueError:
        die("--sizes takes numbers separated by commas, e.g. 3,5")
    if min(args.sizes) < 2 or args.n < 1 or args.aa < 0 or args.j < 1:
        die("subset sizes must be at least 2 runs, -n and -j at least 1")
    if not os.access(args.mmprof, os.X_OK):
        die("no mmprof at '%s': build it or set MMPROF" % args.mmprof)
    pairs = [Pair(p) for p in args.pairs]
    version = subprocess.run([args.mmprof, "version"], stdout=subprocess.PIPE, text=True).stdout.strip()
    t0 = time.time()
    results = []
    with concurrent.futures.ThreadPoolExecutor(max_workers=args.j) as pool:
        for i, p in enumerate(pairs):
            rng = random.Random("%d/%s" % (args.seed, p.name))
            results.append(evaluate(p, args, pool, rng))
            print("verdict-corpus: %s done (%d/%d, %.0f s)" % (p.name, i + 1, len(pairs), time.time() - t0),
                  file=sys.stderr)
    print("%s; %d draws of each subset size, %d A/A draws of each split a side, seed %d\n" %
          (version, args.n, args.aa, args.seed))
    if not args.only_paired:
        table(results, args.sizes)
    if args.drift:
        drift_table(results)
    if args.paired or args.only_paired:
        paired_table(results, args.sizes)
    if args.details:
        details(results, args.sizes, args.details)


if __name__ == "__main__":
    main()
