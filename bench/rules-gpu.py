#!/usr/bin/env python3
"""Regex rule sets on the GPU machine (issue 19): each rule set of bench/rules (15, 200,
1,000 regexes from scripts/make-rules) on one big page-cached file, with gsearch's CPU
engine, its device engine (DFA kernels, --engine opencl), auto, ripgrep and Hyperscan on
every core; wall time (median of RUNS after one warm-up), peak RSS, the count of matching
lines (checked against each other), and gsearch's --stats lines for the device run.

Binaries in .carry/ (gsearch, rg). A run past TIMEOUT seconds is stopped and marked.
Usage: bench/rules-gpu.py PATH [RUNS] [TIMEOUT]   (writes the table to stdout;
PATH is a file or a tree (then the counts are summed over its files); RULES_SKIP_RG=1 leaves
ripgrep out; RULES_SETS=15,200 picks the sets; RULES_NEAR_OFF=1 adds the device engine with
GSEARCH_DFA_NEAR=0, every rule in full DFA groups; RULES_FLAGS="-w" adds flags to every
command)"""
import os
import statistics
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
sys.dont_write_bytecode = True
from proc import run_rss  # noqa: E402

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
CARRY = os.path.join(REPO, ".carry")
RULES = os.path.join(REPO, "bench", "rules")


def timed(argv, runs, timeout):
    """Median wall, max RSS and the last output over a warm-up and `runs` runs."""
    walls, rss, out = [], 0.0, b""
    for i in range(runs + 1):
        w, r, out = run_rss(argv, timeout)
        if w is None:
            return None, rss, out
        if i:
            walls.append(w)
        rss = max(rss, r)
    return statistics.median(walls), rss, out


def count(out):
    """The count of `-c` on a file, or the sum of a tree's `path:count` lines."""
    try:
        lines = [l for l in out.split(b"\n") if l]
        return sum(int(l.rsplit(b":", 1)[-1]) for l in lines)
    except ValueError:
        return None


def size_of(path):
    if not os.path.isdir(path):
        return os.path.getsize(path)
    total = 0
    for root, _, files in os.walk(path):
        for f in files:
            p = os.path.join(root, f)
            if os.path.isfile(p) and not os.path.islink(p):
                total += os.path.getsize(p)
    return total


def main():
    path = sys.argv[1]
    runs = int(sys.argv[2]) if len(sys.argv) > 2 else 3
    timeout = float(sys.argv[3]) if len(sys.argv) > 3 else 60
    size = size_of(path)
    sets = [int(n) for n in os.environ.get("RULES_SETS", "15,200,1000").split(",")]
    g, rg = os.path.join(CARRY, "gsearch"), os.path.join(CARRY, "rg")
    extra = os.environ.get("RULES_FLAGS", "").split()
    kind = "tree" if os.path.isdir(path) else "file"
    print(f"{kind} {path}: {size / 1e9:.2f} GB; runs {runs}; timeout {timeout:.0f} s; "
          f"flags {' '.join(['-c'] + extra)}\n")
    print("| rules | tool | time | GB/s | peak RSS | matching lines |")
    print("|---|---|---:|---:|---:|---|")
    for n in sets:
        rules = os.path.join(RULES, f"rules-{n}.txt")
        search = extra + ["-c", "-f", rules, path]
        tools = [
            ("gsearch --engine cpu", [g, "--engine", "cpu"] + search),
            ("gsearch --engine opencl", [g, "--engine", "opencl"] + search),
            ("gsearch (auto)", [g] + search),
            ("rg", [rg] + search),
        ]
        if os.environ.get("RULES_SKIP_RG") == "1":
            tools = tools[:-1]
        if os.environ.get("RULES_NEAR_OFF") == "1":
            off = ["env", "GSEARCH_DFA_NEAR=0", g, "--engine", "opencl"] + search
            tools.insert(2, ("gsearch --engine opencl, near groups off", off))
        for name, argv in tools:
            t, rss, out = timed(argv, runs if name != "rg" else 1, timeout)
            if t is None:
                print(f"| {n} | {name} | > {timeout:.0f} s (stopped) | | | |", flush=True)
                continue
            c = count(out)
            shown = c if c is not None else out[:120].decode(errors="replace").replace("\n", " ")
            print(f"| {n} | {name} | {t:.3f} s | {size / t / 1e9:.2f} | {rss:.0f} MiB | {shown} |",
                  flush=True)
        _, _, out = run_rss([g, "--engine", "opencl", "--stats"] + search, timeout)
        lines = [l for l in out.decode(errors="replace").splitlines()
                 if l.startswith(("engine", "kernel", "dfa", "patterns", "opencl", "  "))]
        print("\n```\n--engine opencl --stats, " + f"{n} rules:\n" + "\n".join(lines) + "\n```\n")


if __name__ == "__main__":
    main()
