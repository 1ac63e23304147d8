#!/usr/bin/env python3
"""CPU-engine searches of a tree and of one big file, every core: ripgrep, gsearch
and an older gsearch build (the A/B base) interleaved (rg, gsearch, base, rg, ...),
one untimed run each, then RUNS (default 10) timed runs; prints min-max and median
wall time, and each median over ripgrep's (over the base's for rule sets, which
ripgrep takes minutes on). Output goes to a pipe that is read whole.

Usage: bench/cpu-ab.py TREE FILE
  TREE  a directory (the GPU machine: /opt/torch/.venv/lib/python3.12/site-packages)
  FILE  one big page-cached file (scripts/make-bigfile /var/tmp/c100.txt 100 /usr/include)
Binaries: .carry/rg, .carry/gsearch, .carry/gsearch-base (left out when absent).
Made bench/results/2026-11-28-threads.md (session 27, `.carry/x72.sh` ran it)."""
import os
import statistics
import subprocess
import sys
import time

if len(sys.argv) != 3 or "-h" in sys.argv or "--help" in sys.argv:
    print(__doc__)
    sys.exit(0 if "-h" in sys.argv or "--help" in sys.argv else 2)
ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
C, R = os.path.join(ROOT, ".carry"), os.path.join(ROOT, "bench", "rules")
TOOLS = {n: os.path.join(C, b) for n, b in
         [("rg", "rg"), ("gsearch", "gsearch"), ("base", "gsearch-base")]
         if os.path.exists(os.path.join(C, b))}
NO_RG = {n: b for n, b in TOOLS.items() if n != "rg"}
TREE, FILE = sys.argv[1], sys.argv[2]
RUNS = int(os.environ.get("RUNS", "10"))
CASES = [
    (TREE, ["-o", r"\w+_\w+", "."], TOOLS),
    (TREE, ["-w", "self", "."], TOOLS),
    (TREE, ["-c", "-w", "int", "."], TOOLS),
    (TREE, ["-c", "PyErr_SetString", "."], TOOLS),
    (TREE, ["-n", "-w", "import", "."], TOOLS),
    (TREE, ["-i", "-c", r"[a-z]+error\b", "."], TOOLS),
    (TREE, ["--engine", "cpu", "-c", "-f", R + "/rules-200.txt", "."], NO_RG),
    (None, ["-o", r"\w+_\w+", FILE], TOOLS),
    (None, ["-c", "-i", r"[a-z]+_t\b", FILE], TOOLS),
    (None, ["-n", "-w", "int", FILE], TOOLS),
    (None, ["--engine", "cpu", "-c", "-f", R + "/rules-200.txt", FILE], NO_RG),
    (None, ["--engine", "cpu", "-c", "-f", R + "/rules-1000.txt", FILE], NO_RG),
]


def once(argv, cwd):
    s = time.perf_counter()
    subprocess.run(argv, cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    return time.perf_counter() - s


for cwd, args, tools in CASES:
    ts = {n: [] for n in tools}
    for i in range(RUNS + 1):
        for n, b in tools.items():
            t = once([b] + args, cwd)
            if i:
                ts[n].append(t)
    med = {n: statistics.median(v) for n, v in ts.items()}
    ref = "rg" if "rg" in med else "base"
    label = " ".join(os.path.basename(a) if "/" in a else a for a in args)
    cols = " | ".join(f"{n} {min(v)*1e3:.1f}-{max(v)*1e3:.1f} med {med[n]*1e3:.1f} ms"
                      for n, v in ts.items())
    ratios = " ".join(f"{n} {med[n] / med[ref]:.2f}" for n in med)
    print(f"{label}: {cols} | time over {ref}'s: {ratios}", flush=True)
