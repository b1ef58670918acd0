#!/usr/bin/env python3
"""history-noise: the spread of perf-profile shares measured here, and
mmprof history's false change points on series resampled from it
(Documentation/history.md, "The noise model").

    tests/bench/history-noise.py [--driver build/bench/history-cpd]
                                 [--key KEY]... LOW.db HIGH.db

LOW.db and HIGH.db are SQLite stores (mmprof push) of one constant
series each: one commit a push, the same workload and setting in every
commit, e.g. the bundled cost-mix at two settings that put a function at
two levels (t332's):

    for i in $(seq 40); do
      mmprof record -q -r 3 -o c.data -- cost-mix --hot 1000 --other 9000 --cpu-rate -s 1
      mmprof push -q --store LOW.db --commit c$i --time $((1900000000 + 60 * i)) c.data
    done          # and HIGH.db with --hot 21000

For each key (default: cost_mix_hot's and cost_mix_other's self shares)
and store it prints the share's level, its runs' coefficient of
variation, the spread within commits and of the commits' means, and the
binomial spread of a run's samples.  Then, with history-cpd (history's
noise model and PELT), the change points found on series made by
drawing whole commits (their runs together, as recorded) from the
stores: constant series of 1,000 commits (5 per store and key) and of 30
(100 each), and t332's shape, 10 commits of one store, 10 of the other,
10 of the first (400 each way), whose two true change points are not
counted when found within 2 commits.  Per 1,000 commits.
"""
import argparse
import math
import os
import random
import sqlite3
import statistics as st
import struct
import subprocess

KEYS = ["perf-profile.self.cpu-clock.cost_mix_hot", "perf-profile.self.cpu-clock.cost_mix_other"]


def name(path):
    return os.path.splitext(os.path.basename(path))[0]


def commits(path, key):
    """[(values, samples)] per push by time: the key's value in each run (0 when absent)."""
    db = sqlite3.connect(path)
    kid = db.execute("SELECT id FROM keys WHERE name = ?", (key,)).fetchone()
    out = []
    for pid, nr in db.execute("SELECT id, nr_runs FROM pushes ORDER BY time"):
        samples = [s for (s,) in db.execute("SELECT samples FROM runs WHERE push_id = ? ORDER BY run", (pid,))]
        vals = [0.0] * nr
        row = kid and db.execute("SELECT vals FROM keyvals WHERE push_id = ? AND key_id = ?",
                                 (pid, kid[0])).fetchone()
        if row:
            b, off = row[0], (nr + 7) // 8
            for r in range(nr):
                if b[r // 8] >> (r % 8) & 1:
                    vals[r] = struct.unpack_from("<d", b, off)[0]
                    off += 8
        out.append((vals, samples))
    return out


def spread(name, cs):
    runs = [v for vs, _ in cs for v in vs]
    level = st.mean(runs)
    within = math.sqrt(st.mean([st.variance(vs) for vs, _ in cs]))
    means = [st.mean(vs) for vs, _ in cs]
    samples = st.mean([s for _, ss in cs for s in ss])
    binom = 100 * math.sqrt(level / 100 * (1 - level / 100) / samples)
    print("| %s | %.1f | %.1f %% | %.2f | %.2f | %.2f | %.2f (%.0f samples) |" % (
        name, level, 100 * st.stdev(runs) / level, st.stdev(runs), within, st.stdev(means), binom, samples))


def scan(driver, series):
    text = []
    for name, cs in series.items():
        text.append("series %s perf-profile.self.cpu-clock.f %d %d -1\n" % (name, len(cs), len(cs[0][0])))
        text.append(" ".join("%.10g" % v for vs, _ in cs for v in vs) + "\n")
        text.append(" ".join("%d" % s for _, ss in cs for s in ss) + "\n")
    out = subprocess.run([driver], input="".join(text), capture_output=True, text=True, check=True)
    return {w[0]: [int(x) for x in w[1:]] for w in (line.split() for line in out.stdout.splitlines())}


def false_rate(driver, series, truth):
    found = scan(driver, series)
    false = sum(1 for n in series for f in found[n] if not any(abs(f - t) <= 2 for t in truth.get(n, [])))
    commits_n = sum(len(cs) for cs in series.values())
    return "%d in %d commits (%.2f per 1,000)" % (false, commits_n, 1000.0 * false / commits_n)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--driver", default="build/bench/history-cpd")
    ap.add_argument("--key", action="append")
    ap.add_argument("--seed", type=int, default=33)
    ap.add_argument("low")
    ap.add_argument("high")
    a = ap.parse_args()
    rng = random.Random(a.seed)
    keys = a.key or KEYS
    data = {(k, s): commits(s, k) for k in keys for s in (a.low, a.high)}
    print("| key, store | level % | CV of runs | sd of runs | sd within commits | sd of commit means | binomial sd of a run |")
    print("|---|---:|---:|---:|---:|---:|---:|")
    for (k, s), cs in data.items():
        spread("%s, %s" % (k.rsplit(".", 1)[-1], name(s)), cs)
    print()
    print("| series | false change points |")
    print("|---|---|")
    for n, reps in ((1000, 5), (30, 100)):
        series = {"%s-%s-%d" % (k.rsplit(".", 1)[-1], name(s), i): [rng.choice(cs) for _ in range(n)]
                  for (k, s), cs in data.items() for i in range(reps)}
        print("| constant, %d commits, %d series | %s |" % (n, len(series), false_rate(a.driver, series, {})))
    for k in keys:
        for x, y in ((a.low, a.high), (a.high, a.low)):
            A, B = data[(k, x)], data[(k, y)]
            series = {"t%d" % i: [rng.choice(A) for _ in range(10)] + [rng.choice(B) for _ in range(10)] +
                      [rng.choice(A) for _ in range(10)] for i in range(400)}
            print("| %s: 10 of %s, 10 of %s, 10 of %s | %s |" % (
                k.rsplit(".", 1)[-1], name(x), name(y), name(x),
                false_rate(a.driver, series, {n: [10, 20] for n in series})))


if __name__ == "__main__":
    main()
