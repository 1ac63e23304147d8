#!/usr/bin/env python3
"""bench/lt.py RUNS OUTFILE 'label=shell cmd' ...: the commands run in turn (5 warm-up
rounds, then RUNS timed ones), one markdown row each (median, min, p90 ms) appended to
OUTFILE."""
import subprocess, sys, time, statistics
runs = int(sys.argv[1]); out = open(sys.argv[2], "a")
cases = [a.split("=", 1) for a in sys.argv[3:]]
t = {l: [] for l, _ in cases}
for _ in range(5):
    for l, c in cases:
        subprocess.run(c, shell=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
for _ in range(runs):
    for l, c in cases:
        s = time.perf_counter()
        subprocess.run(c, shell=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        t[l].append((time.perf_counter() - s) * 1000)
for l, c in cases:
    v = sorted(t[l])
    out.write(f"| {l} | {statistics.median(v):.2f} | {v[0]:.2f} | {v[int(len(v)*0.9)]:.2f} | `{c}` |\n")
out.write("\n"); out.close()
