#!/usr/bin/env python3
"""history-validate: precision, recall and F1 of mmprof history's change
points on synthetic series with known change points (issue 33 point 7;
Documentation/history.md prints the table this writes).

    tests/bench/history-validate.py [--driver build/bench/history-cpd]
                                    [--otava DIR] [--seed N] [--series N]

Each kind is --series series of 200 commits of 2 runs, log-normal noise
at a 12 % run-to-run spread (this machine's, measured in t332 and
statistics.md), except the profile kinds: a share of about 10 % of runs
of 1,000 samples (binomial) with a 5 % between-run spread, and a
share of 10 % with two plateaus of 10-20 commits at 60-70 % (runs of
4,000 samples, a 12 % spread between runs and 5 % between commits on
the logit: the spread in points grows with the level, as measured).  A change
point found within 2 commits of a true one is a hit (each true one
once).  Kinds without a true change point (noise, drift, a change of
noise alone) count their change points found, per 1,000 commits.

--otava DIR: also run Apache Otava's compute_change_points (its default
p-value 0.001, window 50) from a checkout's DIR (numpy and scipy
needed; for comparison only: nothing of it is part of mmprof) on the
same series, one value a commit (the mean of its runs, as Otava reads a
metric).  Pure Python otherwise (random with a seed: the same series
every time).
"""
import argparse
import math
import random
import subprocess
import sys

COMMITS, RUNS, SPREAD, TOL = 200, 2, 0.12, 2


def lognormal(rng, level, spread):
    return level * math.exp(spread * rng.gauss(0, 1))


def steps_at(rng, n, gap=30):
    while True:
        at = sorted(rng.sample(range(20, COMMITS - 20), n))
        if all(b - a >= gap for a, b in zip(at, at[1:])):
            return at


def make(kind, rng):
    """(key, samples, values [commit][run], true change points)."""
    level = [1000.0] * COMMITS
    cps, spread, outliers = [], [SPREAD] * COMMITS, set()
    if kind in ("step", "small", "outliers"):
        cps = steps_at(rng, 1)
    elif kind == "steps":
        cps = steps_at(rng, 3)
    for at in cps:
        lo, hi = (0.05, 0.10) if kind == "small" else (0.15, 0.40)
        f = 1 + rng.choice((-1, 1)) * rng.uniform(lo, hi)
        for c in range(at, COMMITS):
            level[c] *= f
    if kind == "outliers":
        outliers = set(rng.sample(range(COMMITS), 4))
    if kind == "drift":
        level = [1000.0 * 1.001 ** c for c in range(COMMITS)]
    if kind == "noise":
        spread = [SPREAD if c < COMMITS // 2 else 3 * SPREAD for c in range(COMMITS)]
    if kind == "profile-plateau":
        # a share at 10 % with two plateaus of 10-20 commits at 60-70 %,
        # runs of 4,000 samples, a 12 % spread between runs and 5 % between
        # commits on the logit (in points it grows with p (100 - p))
        a, b = steps_at(rng, 2, gap=50)
        cps = [a, a + rng.randint(10, 20), b, b + rng.randint(10, 20)]
        share = [10.0] * COMMITS
        for lo, hi in ((cps[0], cps[1]), (cps[2], cps[3])):
            top = rng.uniform(60, 70)
            for c in range(lo, hi):
                share[c] = top
        vals = []
        for c in range(COMMITS):
            lg = math.log(share[c] / (100 - share[c])) + 0.05 * rng.gauss(0, 1)
            row = []
            for _ in range(RUNS):
                q = 1 / (1 + math.exp(-(lg + 0.12 * rng.gauss(0, 1))))
                row.append(100.0 * (q + math.sqrt(q * (1 - q) / 4000) * rng.gauss(0, 1)))
            vals.append(row)
        return "perf-profile.self.cpu-clock.f", 4000, vals, cps
    if kind.startswith("profile"):
        share = [10.0] * COMMITS
        if kind == "profile-step":
            cps = steps_at(rng, 1)
            d = rng.choice((-1, 1)) * rng.uniform(1.0, 3.0)
            for c in range(cps[0], COMMITS):
                share[c] += d
        vals = []
        for c in range(COMMITS):
            row = []
            for _ in range(RUNS):
                p = max(0.0, share[c] * math.exp(0.05 * rng.gauss(0, 1))) / 100
                k = sum(rng.random() < p for _ in range(1000))
                row.append(100.0 * k / 1000)
            vals.append(row)
        return "perf-profile.self.cpu-clock.f", 1000, vals, cps
    vals = []
    for c in range(COMMITS):
        m = level[c] * ((2.5 if rng.random() < 0.5 else 0.4) if c in outliers else 1)
        vals.append([lognormal(rng, m, spread[c]) for _ in range(RUNS)])
    return "wl.ops_per_sec", 0, vals, cps


def score(found, truth):
    hits, used = 0, set()
    for f in found:
        for i, t in enumerate(truth):
            if i not in used and abs(f - t) <= TOL:
                used.add(i)
                hits += 1
                break
    return hits, len(found), len(truth)


def mmprof(driver, series):
    text = []
    for name, (key, samples, vals, _) in series.items():
        text.append("series %s %s %d %d %d\n" % (name, key, COMMITS, RUNS, samples))
        text.append(" ".join("%.10g" % v for row in vals for v in row) + "\n")
    out = subprocess.run([driver], input="".join(text), capture_output=True, text=True, check=True)
    sys.stderr.write(out.stderr)
    res = {}
    for line in out.stdout.splitlines():
        w = line.split()
        res[w[0]] = [int(x) for x in w[1:]]
    return res


def otava(path, series):
    sys.path.insert(0, path)
    from otava.analysis import compute_change_points  # noqa: E402 (the checkout named on the command line)
    res = {}
    for name, (_, _, vals, _) in series.items():
        means = [sum(r) / len(r) for r in vals]
        cps, _ = compute_change_points(means)
        res[name] = [c.index for c in cps]
    return res


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--driver", default="build/bench/history-cpd")
    ap.add_argument("--otava")
    ap.add_argument("--seed", type=int, default=33)
    ap.add_argument("--series", type=int, default=20)
    a = ap.parse_args()
    rng = random.Random(a.seed)
    kinds = ["step", "steps", "small", "outliers", "profile-step", "none", "drift", "noise", "profile-none",
             "profile-plateau"]
    series = {}
    for kind in kinds:
        for i in range(a.series):
            series["%s-%d" % (kind, i)] = make(kind, rng)
    methods = [("mmprof", mmprof(a.driver, series))]
    if a.otava:
        methods.append(("Otava", otava(a.otava, series)))
    head = "| kind | true | " + " | ".join(
        "%s found | %s P | %s R | %s F1" % (m, m, m, m) for m, _ in methods) + " |"
    print(head)
    print("|" + "---|" * (2 + 4 * len(methods)))
    totals = {m: [0, 0, 0] for m, _ in methods}
    for kind in kinds:
        names = [n for n in series if n.rsplit("-", 1)[0] == kind]
        truth = sum(len(series[n][3]) for n in names)
        cells = []
        for m, res in methods:
            h = f = t = 0
            for n in names:
                x = score(res[n], series[n][3])
                h, f, t = h + x[0], f + x[1], t + x[2]
            if truth:
                p, r = (h / f if f else 1.0), h / t
                f1 = 2 * p * r / (p + r) if p + r else 0.0
                cells.append("%d | %.2f | %.2f | %.2f" % (f, p, r, f1))
                if not kind.startswith("profile"):
                    totals[m] = [totals[m][0] + h, totals[m][1] + f, totals[m][2] + t]
            else:
                cells.append("%d (%.2f per 1,000 commits) | | | " % (f, 1000.0 * f / (COMMITS * len(names))))
        print("| %s | %d | %s |" % (kind, truth, " | ".join(cells)))
    cells = []
    for m, _ in methods:
        h, f, t = totals[m]
        p, r = (h / f if f else 1.0), h / t
        cells.append("%d | %.2f | %.2f | %.2f" % (f, p, r, 2 * p * r / (p + r) if p + r else 0.0))
    print("| score, all steps | %d | %s |" % (totals[methods[0][0]][2], " | ".join(cells)))


if __name__ == "__main__":
    main()
