#!/usr/bin/env python3
"""Issue 20, item 2: `auto` against the faster of the CPU engine and the device alone.
Each search runs with `--engine auto`, `--engine cpu` and `--engine opencl` in turn, the
order rotating from round to round (one warm-up each, then RUNS rounds, default 5, a PAUSE
of 0.5 s before every run: the
run before may still be tearing down its driver in a child), on CORES (`taskset -c`,
default every core). Prints a markdown table: the median wall time and peak RSS of each
engine, whether the outputs agree, and auto's time over the faster engine's (the issue
asks for 1.05 or less).

Usage: bench/auto-vs-engines.py FILE 'ARGS' ['ARGS' ...]
  e.g. big.txt '-c PyErr_SetString' '-c -f bench/rules/rules-200.txt'
FILE is appended to each search's arguments (split on spaces). The binary is
.carry/gsearch (GS overrides); OUT names a file for the table (default stdout)."""
import os
import statistics
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
sys.dont_write_bytecode = True
from proc import run_rss  # noqa: E402

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
GS = os.environ.get("GS", os.path.join(REPO, ".carry", "gsearch"))
RUNS, PAUSE = int(os.environ.get("RUNS", "5")), float(os.environ.get("PAUSE", "0.5"))
CORES = os.environ.get("CORES", "")
ENGINES = ("auto", "cpu", "opencl")


def once(argv):
    time.sleep(PAUSE)
    wall, rss, out = run_rss((["taskset", "-c", CORES] if CORES else []) + argv)
    return wall, rss, out


def row(path, search):
    """The table row of one search."""
    argv = {e: [GS, "--engine", e] + search.split() + [path] for e in ENGINES}
    for a in argv.values():
        once(a)
    runs = {e: [] for e in ENGINES}
    for r in range(RUNS):
        for e in ENGINES[r % 3:] + ENGINES[:r % 3]:
            runs[e].append(once(argv[e]))
    med = {e: statistics.median(r[0] for r in v) for e, v in runs.items()}
    rss = {e: max(r[1] for r in v) for e, v in runs.items()}
    same = "yes" if len({r[2] for v in runs.values() for r in v}) == 1 else "NO"
    best = min(med["cpu"], med["opencl"])
    cols = " | ".join(f"{med[e] * 1e3:.0f} ms ({rss[e]:.0f} MiB)" for e in ENGINES)
    return f"| `{search}` | {cols} | {same} | {med['auto'] / best:.2f} |"


def main():
    if len(sys.argv) < 3 or sys.argv[1] in ("-h", "--help"):
        print(__doc__)
        return
    path, searches = sys.argv[1], sys.argv[2:]
    lines = [f"file {path}: {os.path.getsize(path) / 1e9:.2f} GB; cores: {CORES or 'all'} "
             f"of {os.cpu_count()}; {RUNS} rounds after a warm-up; medians (peak RSS)\n",
             "| search | auto | cpu | opencl | outputs agree | auto / faster |",
             "|---|---:|---:|---:|---|---:|"]
    for s in searches:
        lines.append(row(path, s))
        print(lines[-1], file=sys.stderr)
    text = "\n".join(lines) + "\n"
    out = os.environ.get("OUT")
    if out:
        with open(out, "w") as f:
            f.write(text)
    else:
        print(text)


if __name__ == "__main__":
    main()
