#!/usr/bin/env python3
"""PCRE2 (`-P`): gsearch against ripgrep built with PCRE2, on a tree and on one file.
Each search runs rg and gsearch in turn (binaries .carry/rg and .carry/gsearch, or RG
and GS), one warm-up each, then RUNS (default 5) timed runs; prints a markdown table
of the median wall time, peak RSS, rg / gsearch (above 1: gsearch faster) and whether
the outputs agree (sorted lines: the tree's file order is the walk's).

Usage: bench/pcre2-compare.py TREE FILE   (e.g. the site-packages tree and a 1 GB file)"""
import hashlib
import os
import statistics
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
sys.dont_write_bytecode = True
from proc import run_rss  # noqa: E402

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
TOOLS = {"rg": os.environ.get("RG", os.path.join(REPO, ".carry", "rg")),
         "gsearch": os.environ.get("GS", os.path.join(REPO, ".carry", "gsearch"))}
RUNS = int(os.environ.get("RUNS", "5"))
SEARCHES = [
    ["-c", r"(?<=self\.)_\w+"],
    ["-c", r"\b(\w+) = \1\b"],
    ["-n", r"def \w+(?=\(self\))"],
    ["-c", "-i", r"todo(?!:)"],
]


def digest(out):
    return hashlib.sha256(b"\n".join(sorted(out.splitlines()))).hexdigest()[:12]


def row(target, args):
    times, rss, outs = {n: [] for n in TOOLS}, {n: 0 for n in TOOLS}, {}
    for i in range(RUNS + 1):
        for name, exe in TOOLS.items():
            wall, peak, out = run_rss([exe, "--no-config", "-P"] + args + [target])
            if i:
                times[name].append(wall)
                rss[name] = max(rss[name], peak)
            outs[name] = digest(out)
    med = {n: statistics.median(v) for n, v in times.items()}
    same = "same" if outs["rg"] == outs["gsearch"] else "DIFFERENT"
    label = "`-P " + " ".join(args) + "` " + os.path.basename(target.rstrip("/"))
    return (f"| {label} | {med['rg']:.3f} | {med['gsearch']:.3f} | {med['rg'] / med['gsearch']:.2f} "
            f"| {rss['rg']:.0f} | {rss['gsearch']:.0f} | {same} |")


def main():
    tree, file = sys.argv[1], sys.argv[2]
    print("| search | rg s | gsearch s | rg / gsearch | rg RSS MiB | gsearch RSS MiB | output |")
    print("|---|---:|---:|---:|---:|---:|---|")
    for target in (tree, file):
        for args in SEARCHES:
            print(row(target, args), flush=True)


if __name__ == "__main__":
    main()
