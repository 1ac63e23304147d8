#!/usr/bin/env python3
"""The site-packages tree: rg and gsearch (binaries in .carry/) on the same searches,
runs interleaved (rg, gsearch, rg, ...) so that drift on a shared machine hits both alike;
after 2 warm-up runs each, RUNS (default 30) timed runs; min, median and mean wall time,
and the ratio of medians (rg / gsearch, above 1: gsearch faster). Output goes to a pipe.
Usage: bench/tree-compare.py [WORDS_FILE]   (run on the GPU machine)"""
import os, statistics, subprocess, sys, time

T = "/opt/torch/.venv/lib/python3.12/site-packages"
here = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), ".carry")
tools = {"rg": os.path.join(here, "rg"), "gsearch": os.path.join(here, "gsearch")}
runs = int(os.environ.get("RUNS", "30"))
cases = [["PyErr_SetString", "."], ["-c", "PyErr_SetString", "."]]
if len(sys.argv) > 1:
    cases.append(["-c", "-F", "-f", sys.argv[1], "."])


def once(argv):
    s = time.perf_counter()
    subprocess.run(argv, cwd=T, stdout=subprocess.PIPE, check=False)
    return time.perf_counter() - s


for args in cases:
    times = {name: [] for name in tools}
    for i in range(runs + 2):
        for name, b in tools.items():
            t = once([b] + args)
            if i >= 2:
                times[name].append(t)
    med = {n: statistics.median(v) for n, v in times.items()}
    cols = " | ".join(
        f"{n} min {min(v)*1e3:.1f} med {med[n]*1e3:.1f} mean {statistics.mean(v)*1e3:.1f} ms"
        for n, v in times.items())
    print(f"{' '.join(a if '/' not in a else os.path.basename(a) for a in args)}: {cols} | "
          f"rg/gsearch {med['rg'] / med['gsearch']:.2f}", flush=True)
