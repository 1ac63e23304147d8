#!/usr/bin/env python3
"""Hyperscan as the peer for regex rule sets (issue 19): compiles a rule file (one regex a
line, as gsearch -f reads it) with Hyperscan and scans a big file with every core, block
mode, 4 MiB blocks cut at line ends; counts match events (Hyperscan does less work than a
grep: no line selection or output, so its rate is an upper bound for a scanner built on it).

Usage: bench/hyperscan-peer.py RULES FILE [PROCESSES]
Needs the `hyperscan` Python package (on the GPU machine: carry its wheel, see
/work/.library/device/README.md). Prints compile time, scan time, GB/s, match events and
the rules Hyperscan refused (compiled without them). The database is compiled once (the compile time counts every
rule twice: each alone, to find the refused ones, then all together) and loaded by each
process."""
import mmap
import multiprocessing as mp
import os
import sys
import time

import hyperscan

BLOCK = 4 << 20


def load_rules(path):
    with open(path, "rb") as f:
        return [line.rstrip(b"\r\n") for line in f if line.rstrip(b"\r\n")]


def compile_db(rules):
    """A block-mode database of the rules Hyperscan accepts, and the refused ones."""
    flags = hyperscan.HS_FLAG_ALLOWEMPTY | hyperscan.HS_FLAG_UTF8
    kept, refused = [], []
    for r in rules:
        try:
            db = hyperscan.Database(mode=hyperscan.HS_MODE_BLOCK)
            db.compile(expressions=[r], flags=[flags])
            kept.append(r)
        except hyperscan.error:
            refused.append(r)
    db = hyperscan.Database(mode=hyperscan.HS_MODE_BLOCK)
    db.compile(expressions=kept, ids=list(range(len(kept))), flags=[flags] * len(kept))
    return db, kept, refused


def cuts(data, parts):
    n = len(data)
    bounds = [0]
    for i in range(1, parts):
        at = data.find(b"\n", n * i // parts)
        bounds.append(n if at < 0 else at + 1)
    bounds.append(n)
    return sorted(set(bounds))


DB = None


def load_db(serialized):
    """Pool initializer: each process loads the database compiled once by the parent."""
    global DB
    DB = hyperscan.loadb(serialized, mode=hyperscan.HS_MODE_BLOCK)
    DB.scratch = hyperscan.Scratch(DB)


def scan_range(args):
    path, a, b = args
    db = DB
    events = [0]

    def on_match(_id, _from, _to, _flags, _ctx):
        events[0] += 1

    with open(path, "rb") as f, mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ) as m:
        pos = a
        while pos < b:
            end = min(b, pos + BLOCK)
            if end < b:
                nl = m.find(b"\n", end)
                end = b if nl < 0 or nl >= b else nl + 1
            db.scan(m[pos:end], match_event_handler=on_match)
            pos = end
    return events[0]


def main():
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    rules_path, path = sys.argv[1], sys.argv[2]
    procs = int(sys.argv[3]) if len(sys.argv) > 3 else os.cpu_count()
    rules = load_rules(rules_path)
    t = time.perf_counter()
    db, kept, refused = compile_db(rules)
    compiled = time.perf_counter() - t
    serialized = hyperscan.dumpb(db)
    with open(path, "rb") as f, mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ) as m:
        bounds = cuts(m, procs)
    size = os.path.getsize(path)
    jobs = [(path, a, b) for a, b in zip(bounds, bounds[1:])]
    with mp.Pool(procs, initializer=load_db, initargs=(serialized,)) as pool:
        t = time.perf_counter()
        events = sum(pool.map(scan_range, jobs))
        scan = time.perf_counter() - t
    print(f"hyperscan: {len(kept)} rules ({len(refused)} refused), compile {compiled:.2f} s, "
          f"scan {scan:.3f} s on {procs} processes, {size / scan / 1e9:.2f} GB/s, "
          f"{events} match events")
    for r in refused[:5]:
        print(f"  refused: {r.decode(errors='replace')}")


if __name__ == "__main__":
    main()
