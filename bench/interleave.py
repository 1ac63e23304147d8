"""Interleaved timing of rg and gsearch (binaries in .carry/), shared by
bench/tree-compare.py and bench/one-line-compare.py: each case runs rg, gsearch,
rg, ... so that drift on a shared machine hits both alike; `warmup` runs each are
dropped, then `runs` timed runs; prints min, median and mean wall time per tool and
the ratio of medians (rg / gsearch, above 1: gsearch faster). Output goes to a pipe.
A binary at .carry/gsearch-base (an older build, for A/B comparisons) joins the
rotation when present."""
import os
import statistics
import subprocess
import time

HERE = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), ".carry")
TOOLS = {"rg": os.path.join(HERE, "rg"), "gsearch": os.path.join(HERE, "gsearch")}
if os.path.exists(os.path.join(HERE, "gsearch-base")):
    TOOLS["gsearch-base"] = os.path.join(HERE, "gsearch-base")


def once(argv, cwd):
    s = time.perf_counter()
    subprocess.run(argv, cwd=cwd, stdout=subprocess.PIPE, check=False)
    return time.perf_counter() - s


def compare(cases, cwd=None, runs=30, warmup=2, wrap=None):
    """`wrap` turns each tool's argv into the one run (e.g. a shell pipeline)."""
    wrap = wrap or (lambda argv: argv)
    for args in cases:
        times = {name: [] for name in TOOLS}
        for i in range(runs + warmup):
            for name, b in TOOLS.items():
                t = once(wrap([b] + args), cwd)
                if i >= warmup:
                    times[name].append(t)
        med = {n: statistics.median(v) for n, v in times.items()}
        cols = " | ".join(
            f"{n} min {min(v)*1e3:.2f} med {med[n]*1e3:.2f} mean {statistics.mean(v)*1e3:.2f} ms"
            for n, v in times.items())
        label = " ".join(a if "/" not in a else os.path.basename(a) for a in args)
        ratios = " | ".join(f"rg/{n} {med['rg'] / med[n]:.2f}" for n in TOOLS if n != "rg")
        print(f"{label}: {cols} | {ratios}", flush=True)
