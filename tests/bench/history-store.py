#!/usr/bin/env python3
"""history-store: a large results store for make bench's history section
(src/scripts/bench-history.sh): N pushes of R runs x K keys appended to
an SQLite store that `mmprof push` made (its schema, and one real push),
written in the store's normative format (Documentation/history.md:
keyvals' bitmap and doubles, key ids from SHA-256).

    history-store.py STORE N R K

The pushes are commits b00001..bN of benchmark "bench" on machine "m",
each the parent of the next, the score bench.ops_per_sec with a -20 %
step at the middle commit, K - 1 perf-profile.self keys beside it.
"""
import hashlib
import math
import random
import sqlite3
import struct
import sys


def key_id(name):
    return int.from_bytes(hashlib.sha256(name.encode()).digest()[:8], "big") >> 1


def main():
    path, n, r, k = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
    rng = random.Random(33)
    names = ["bench.ops_per_sec"] + ["perf-profile.self.cpu-clock.f%03d" % i for i in range(k - 1)]
    ids = [key_id(x) for x in names]
    db = sqlite3.connect(path)
    db.executemany("INSERT OR IGNORE INTO keys(id, name) VALUES(?, ?)", zip(ids, names))
    first = db.execute("SELECT coalesce(max(id), 0) + 1 FROM pushes").fetchone()[0]
    bitmap = bytes([0xff] * (r // 8) + ([(1 << (r % 8)) - 1] if r % 8 else []))
    for c in range(n):
        pid = first + c
        commit, parent = "b%05d" % (c + 1), ("b%05d" % c if c else None)
        db.execute("INSERT INTO pushes(id, hash, commit_id, parent, branch, machine, benchmark, time, pushed,"
                   " nr_runs, size) VALUES(?, ?, ?, ?, NULL, 'm', 'bench', ?, ?, ?, 0)",
                   (pid, hashlib.sha256(b"bench%d" % pid).hexdigest(), commit, parent, 1700000000 + c,
                    1700000000 + c, r))
        db.executemany("INSERT INTO runs VALUES(?, ?, 0, 0, 0, 1000000000, 4000, 0)",
                       [(pid, i) for i in range(r)])
        rows = []
        for j, kid in enumerate(ids):
            if j == 0:
                level = 1000.0 * (0.8 if c >= n // 2 else 1.0)
                vals = [level * math.exp(0.12 * rng.gauss(0, 1)) for _ in range(r)]
            else:
                vals = [abs(rng.gauss(0.2, 0.02)) for _ in range(r)]
            rows.append((kid, pid, bitmap + struct.pack("<%dd" % r, *vals)))
        db.executemany("INSERT INTO keyvals(key_id, push_id, vals) VALUES(?, ?, ?)", rows)
    db.commit()


if __name__ == "__main__":
    main()
