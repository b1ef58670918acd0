#!/usr/bin/env python3
"""hostile-dims: hostile .data files that push a product of dimensions, not
one table's limit (issue 31), made from a real recording of format 4.

  hostile-dims.py dims IN OUT [RUNS EVENTS NODES]
      RUNS runs x EVENTS events x NODES trie nodes (a binary tree, depth
      log2 NODES) of two named frames of its own, with one count cell
      per (run, event) at the deepest node: each table within its limit (10,000 runs, 256 events, 2^26
      rows), 2.1 MB for 200 x 256 x 200,000, and a reader that walks the
      trie for every (run, event) does 10^10 steps.
  hostile-dims.py wide IN OUT [RUNS EVENTS NODES]
      as dims, but the tree's nodes take the recording's frames in turn
      (dims's two frames may be one function's, whose symbol trie then
      merges: this one keeps more of its nodes).
  hostile-dims.py spread IN OUT [RUNS EVENTS NODES]
      as wide, and each (run, event) has its cell at a node of its own:
      a stack seen in one run alone, so that a diff has thousands of
      keys, each in a few of thousands of runs (its keys x runs).
  hostile-dims.py chains IN OUT RUNS EVENTS CHAINS DEPTH KINDS SPREAD
      CHAINS chains of DEPTH frames hanging off the root, chain c with
      the frames of kind c % KINDS (KINDS x DEPTH frames of their own,
      written here, so that chains of one kind merge); SPREAD 1: one
      count cell per (run, event), at a node of its own, as spread;
      SPREAD 0: a cell at the leaf of every chain in every (run,
      event).  200 runs x 256 events x 2,000 chains of 100 in 10 kinds
      (2.3 MB) have 526,088 keys, each printed in every run by report
      --json (384 MB); 1 run x 256 events x 200 chains of 127 in 200
      kinds (0.5 MB) draw more than 4 GB of call graphs (report --tree).
  hostile-dims.py deep IN OUT DEPTH
      one run and event, one chain of DEPTH frames of its own with a
      count at every node (rows of 4,000 cells, a pid each): every stack
      written whole is DEPTH^2 / 2 frames, 2^31 for 65,535 (1.2 MB).
  hostile-dims.py packed IN OUT [NODES]
      NODES nodes (default 2^26) in node blocks that compress about
      1000 to 1 (every node's parent 2048 ids before it, frame 0), padded
      with an extra table to pass the loader's 64-times-the-file rule:
      9 MB of file, 512 MiB of blocks unpacked.

Blocks are packed as sqlar_compress() packs them (zlib's compress(), or
the bytes as they are when that is not shorter): data-format.md, blocks.
"""
import shutil
import sqlite3
import struct
import sys
import zlib

NODES_PER_BLOCK = 512


def pack(b):
    z = zlib.compress(b)
    return z if len(z) < len(b) else b


def node_block(deltas, frames):
    """format 4: every node's delta (4 bytes, big-endian), then the frames byte by byte"""
    n = len(deltas)
    out = bytearray(struct.pack(">%dI" % n, *deltas))
    fb = [struct.pack(">I", f) for f in frames]
    for k in range(4):
        out += bytes(fb[j][k] for j in range(n))
    return bytes(out)


def write_nodes(db, block_of, nodes):
    """block_of(first, n): the raw block of nodes first .. first + n - 1"""
    db.execute("DELETE FROM node_blocks")
    rows, last = [], None
    for blk, first in enumerate(range(1, nodes + 1, NODES_PER_BLOCK)):
        raw = block_of(first, min(NODES_PER_BLOCK, nodes + 1 - first))
        if last is None or last[0] != raw:
            last = (raw, pack(raw))
        rows.append((blk, len(raw), last[1]))
        if len(rows) >= 4096:
            db.executemany("INSERT INTO node_blocks VALUES (?, ?, ?)", rows)
            rows = []
    db.executemany("INSERT INTO node_blocks VALUES (?, ?, ?)", rows)


def comm_of(db):
    """the recording's command name (kept before stack_counts is emptied)"""
    if not hasattr(comm_of, "comm"):
        comm_of.comm = db.execute("SELECT comm FROM stack_counts LIMIT 1").fetchone()[0]
    return comm_of.comm


def dims_tables(db, runs, events):
    """RUNS runs and EVENTS events (cpu-clock-N) made from the first of
    each; no counts, counters, intervals or metrics left"""
    comm_of(db)
    run0 = db.execute("SELECT * FROM runs WHERE id = 0").fetchone()
    db.execute("DELETE FROM runs WHERE id > 0")
    db.executemany("INSERT INTO runs VALUES (%s)" % ",".join("?" * len(run0)),
                   [(r,) + tuple(run0[1:]) for r in range(1, runs)])
    ev0 = db.execute("SELECT * FROM events WHERE id = 0").fetchone()
    top = db.execute("SELECT max(id) FROM strings").fetchone()[0]
    db.execute("DELETE FROM events WHERE id > 0")
    for e in range(1, events):
        db.execute("INSERT INTO strings VALUES (?, ?)", (top + e, "cpu-clock-%d" % e))
        db.execute("INSERT INTO events VALUES (%s)" % ",".join("?" * len(ev0)),
                   (e, top + e, top + e) + tuple(ev0[3:]))
    db.execute("DELETE FROM stack_counts")
    db.execute("DELETE FROM counters")
    db.execute("DELETE FROM intervals")
    db.execute("DELETE FROM metrics")


def dims(db, runs, events, nodes, wide=False, spread=False):
    if not wide:
        # two named frames of its own: the recording's first two may have
        # no name (a stripped shell's user frames on a quiet machine), and
        # a tree of them would have no perf-profile key to show
        frame_blocks(db, ["hostile_even", "hostile_odd"])
    # 29 bytes a frame unpacked (data-format.md, blocks)
    nframes = db.execute("SELECT coalesce(sum(size), 0) FROM frame_blocks").fetchone()[0] // 29
    assert nframes >= 2
    # a binary tree: node i's parent is i // 2 (node 1's the root), frame
    # i % 2 (wide: i % nframes), so that no two children of a node share
    # a frame (no merge)
    mod = nframes if wide else 2
    write_nodes(db, lambda f, n: node_block([i - i // 2 for i in range(f, f + n)],
                                            [i % mod for i in range(f, f + n)]), nodes)
    dims_tables(db, runs, events)
    comm = comm_of(db)
    def cell(r, e):
        node = (r * events + e) * 7919 % nodes + 1 if spread else nodes
        return struct.pack(">IQQ", node, 1, 1000)
    db.executemany("INSERT INTO stack_counts VALUES (?, ?, ?, ?, ?, ?, ?)",
                   [(r * events + e, r, e, comm, 1, len(c), pack(c))
                    for r in range(runs) for e in range(events) for c in [cell(r, e)]])


def frame_blocks(db, names):
    """format 4 frame blocks of 128 frames (data-format.md, blocks): each
    frame (addr, symoff: 8 bytes, sym, dso, raw: 4, flags: 1, big-endian)
    stored byte by byte across the block; names made strings, one DSO"""
    top = db.execute("SELECT max(id) FROM strings").fetchone()[0]
    db.executemany("INSERT INTO strings VALUES (?, ?)",
                   [(top + 1 + i, n) for i, n in enumerate(names + ["/usr/bin/hostile"])])
    dso = top + 1 + len(names)
    db.execute("DELETE FROM frame_blocks")
    db.execute("DELETE FROM frame_file_blocks")
    for b in range(0, len(names), 128):
        recs = [struct.pack(">QQIIIB", 0x400000 + i, 1, top + 1 + i, dso, 0, 0)
                for i in range(b, min(b + 128, len(names)))]
        raw = bytes(r[k] for k in range(29) for r in recs)
        db.execute("INSERT INTO frame_blocks VALUES (?, ?, ?)", (b // 128, len(raw), pack(raw)))


def chains(db, runs, events, nchains, depth, kinds, spread):
    frame_blocks(db, ["f%d" % i for i in range(kinds * depth)])
    # node i (from 1): chain (i - 1) // depth at depth (i - 1) % depth, its
    # parent the node before it, or the root for a chain's first
    write_nodes(db, lambda f, n: node_block([1 if (i - 1) % depth else i for i in range(f, f + n)],
                                            [(i - 1) // depth % kinds * depth + (i - 1) % depth
                                             for i in range(f, f + n)]), nchains * depth)
    dims_tables(db, runs, events)
    nodes = nchains * depth

    def cell(r, e):
        if spread:
            return struct.pack(">IQQ", (r * events + e) * 7 % nodes + 1, 1, 1000)
        # every chain's leaf, node ids ascending as deltas
        return b"".join(struct.pack(">IQQ", depth, 1, 1000) for c in range(nchains))
    db.executemany("INSERT INTO stack_counts VALUES (?, ?, ?, ?, ?, ?, ?)",
                   [(r * events + e, r, e, comm_of(db), 1, len(c), pack(c))
                    for r in range(runs) for e in range(events) for c in [cell(r, e)]])


def deep(db, depth):
    frame_blocks(db, ["f%d" % i for i in range(depth)])
    write_nodes(db, lambda f, n: node_block([1] * n, [i - 1 for i in range(f, f + n)]), depth)
    dims_tables(db, 1, 1)
    rows = []
    for b in range(0, depth, 4000):
        c = b"".join(struct.pack(">IQQ", b + 1 if i == b else 1, 1, 1000)
                     for i in range(b, min(depth, b + 4000)))
        rows.append((len(rows), 0, 0, comm_of(db), 1 + len(rows), len(c), pack(c)))
    db.executemany("INSERT INTO stack_counts VALUES (?, ?, ?, ?, ?, ?, ?)", rows)


def packed(db, nodes):
    step = 2048
    full = node_block([step] * NODES_PER_BLOCK, [0] * NODES_PER_BLOCK)
    write_nodes(db, lambda f, n: full if f > step and n == NODES_PER_BLOCK else
                node_block([min(i, step) for i in range(f, f + n)], [0] * n), nodes)
    cell = struct.pack(">IQQ", nodes, 1, 1000)
    db.execute("UPDATE stack_counts SET size = ?, cells = ? WHERE id = 0", (len(cell), pack(cell)))
    db.execute("DELETE FROM stack_counts WHERE id > 0")
    db.commit()
    # padding, to pass the 64-times-the-file rule: an extra table is allowed
    unpacked = nodes * 8
    have = db.execute("PRAGMA page_count").fetchone()[0] * db.execute("PRAGMA page_size").fetchone()[0]
    pad = max(0, unpacked // 64 + (2 << 20) - have)
    db.execute("CREATE TABLE padding(id INTEGER PRIMARY KEY, b BLOB)")
    db.executemany("INSERT INTO padding VALUES (?, randomblob(?))",
                   [(i, 1 << 20) for i in range(pad // (1 << 20) + 1)])


def main():
    mode, src, out = sys.argv[1:4]
    rest = [int(x) for x in sys.argv[4:]]
    shutil.copyfile(src, out)
    db = sqlite3.connect(out)
    db.execute("PRAGMA journal_mode = DELETE")
    db.execute("PRAGMA synchronous = OFF")
    if mode == "chains":
        chains(db, *rest)
    elif mode == "deep":
        deep(db, *rest)
    elif mode in ("dims", "wide", "spread"):
        dims(db, *(rest or [200, 256, 200000]), wide=mode != "dims", spread=mode == "spread")
    else:
        packed(db, *(rest or [1 << 26]))
    db.commit()
    db.execute("VACUUM")
    db.close()


main()
