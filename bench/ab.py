#!/usr/bin/env python3
"""A/B of two gsearch builds on the same searches, in one call on one machine: each
search runs the new build (.carry/gsearch, or GS) and the old (.carry/gsearch-base, or
GS_BASE) in turn, after one warm-up each, RUNS times (default 5), with a PAUSE (default 1
s) before every run (a run that starts while the last one's driver teardown runs waits
for it). Prints a markdown table: median wall time, peak RSS and output (checked equal
between the builds) per build, and new / old; then, for each search, the stage line of
GSEARCH_TRACE=1 from one run of each build (fill, copies, kernel, finish).

Usage: bench/ab.py FILE 'ARGS' ['ARGS' ...]   e.g. big.txt '--engine opencl -c -f bench/rules/rules-200.txt'
(FILE is appended to each search's arguments, which are split on spaces)."""
import os
import statistics
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
sys.dont_write_bytecode = True
from proc import run_rss  # noqa: E402

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
NEW = os.environ.get("GS", os.path.join(REPO, ".carry", "gsearch"))
OLD = os.environ.get("GS_BASE", os.path.join(REPO, ".carry", "gsearch-base"))
RUNS, PAUSE = int(os.environ.get("RUNS", "5")), float(os.environ.get("PAUSE", "1"))


def once(argv, env=None):
    time.sleep(PAUSE)
    wall, rss, out = run_rss(argv, env=env)
    return wall, rss, out.decode(errors="replace").strip()


def stage_line(argv):
    """The stage report's lines (fill ... finish) of one traced run."""
    _, _, out = once(argv, env=dict(os.environ, GSEARCH_TRACE="1"))
    keep = [ln.split("gsearch trace: ", 1)[1].strip() for ln in out.splitlines()
            if "gsearch trace:" in ln and ("fill " in ln or "search done" in ln)]
    return " / ".join(keep)


def main():
    path, searches = sys.argv[1], sys.argv[2:]
    print(f"file {path}: {os.path.getsize(path) / 1e9:.2f} GB; {RUNS} runs each, "
          f"builds alternating after a warm-up\n")
    print("| search | new s | old s | new / old | new RSS MiB | old RSS MiB | output |")
    print("|---|---:|---:|---:|---:|---:|---|")
    traces = []
    for s in searches:
        builds = {"new": [NEW] + s.split() + [path], "old": [OLD] + s.split() + [path]}
        for argv in builds.values():
            once(argv)
        runs = {k: [] for k in builds}
        for _ in range(RUNS):
            for k, argv in builds.items():
                runs[k].append(once(argv))
        med = {k: statistics.median(r[0] for r in v) for k, v in runs.items()}
        rss = {k: max(r[1] for r in v) for k, v in runs.items()}
        outs = {r[2] for v in runs.values() for r in v}
        same = "same" if len(outs) == 1 else "DIFFER"
        print(f"| `{s}` | {med['new']:.3f} | {med['old']:.3f} | {med['new'] / med['old']:.2f} "
              f"| {rss['new']:.0f} | {rss['old']:.0f} | {same} |", flush=True)
        traces.append((s, {k: stage_line(a) for k, a in builds.items()}))
    print()
    for s, t in traces:
        print(f"`{s}`:\n- new: {t['new']}\n- old: {t['old']}")


main()
