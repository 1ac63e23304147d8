#!/usr/bin/env python3
"""Issue 22: 1, 2, 4 (and 8) GPUs of one host on one big page-cached file. For each
device count N (`--opencl-device nvidia` repeated N times), each row runs gsearch
`--engine opencl --stats` RUNS times (default 1, after one untimed warm-up when
WARMUP=1) and prints the wall time, GB/s, peak RSS (wait4) and each device's share
from --stats; ripgrep runs the literal row once. Rows: -c -F -f 100,000 words, -c -f
a rule set (RULES, default bench/rules/rules-200.txt), -c of one literal (auto).
FILE may be a directory (a tree): its size is the sum of its files'.

ROWS=0,1 keeps those rows (0 words, 1 rules, 2 literal; default all).

Usage: bench/scale-gpus.py FILE WORDS COUNTS   e.g. big.txt words-100000.txt 1,2,4
Binaries: .carry/gsearch, .carry/rg."""
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
sys.dont_write_bytecode = True
from proc import run_rss  # noqa: E402

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
GS, RG = os.path.join(REPO, ".carry", "gsearch"), os.path.join(REPO, ".carry", "rg")
RUNS, WARMUP = int(os.environ.get("RUNS", "1")), os.environ.get("WARMUP", "0") == "1"
SHARE = re.compile(r"device (\d+) \([^)]*\): (\d+) batch\w* .*?\((\d+)%\), ([\d.]+) ms")


def run(argv):
    """(seconds, peak RSS MiB, output as text)."""
    secs, rss, out = run_rss(argv)
    return secs, rss, out.decode(errors="replace")


def total_count(out):
    """The count of a one-file `-c`, or the sum of a tree's `path:count` lines."""
    total = 0
    for line in out.split("\n"):
        tail = line.rsplit(":", 1)[-1].strip()
        if not tail.isdigit():
            break
        total += int(tail)
    return str(total)


def tree_bytes(path):
    """A file's size, or the sum of the sizes of the files under a directory."""
    if not os.path.isdir(path):
        return os.path.getsize(path)
    return sum(os.path.getsize(os.path.join(d, f)) for d, _, fs in os.walk(path) for f in fs)


def main():
    path, words, counts = sys.argv[1], sys.argv[2], [int(c) for c in sys.argv[3].split(",")]
    size = tree_bytes(path)
    rules = os.environ.get("RULES", os.path.join(REPO, "bench", "rules", "rules-200.txt"))
    rows = [("-c -F -f 100,000 words", ["--engine", "opencl", "-c", "-F", "-f", words, path]),
            (f"-c -f {os.path.basename(rules)}", ["--engine", "opencl", "-c", "-f", rules, path]),
            ("-c one literal (auto)", ["--engine", "auto", "-c", "PyErr_SetString", path])]
    keep = os.environ.get("ROWS")
    if keep:
        rows = [rows[int(i)] for i in keep.split(",")]
    print(f"file {path}: {size / 1e9:.2f} GB, page-cached; {os.cpu_count()} cores; "
          f"median of {RUNS} run(s){' after a warm-up' if WARMUP else ''}\n")
    secs, rss, out = run([RG, "-c", "PyErr_SetString", path])
    print(f"rg -c one literal: {secs:.3f} s, {size / secs / 1e9:.2f} GB/s, {rss:.0f} MiB, "
          f"count {total_count(out)}\n")
    print("| row | GPUs | time | GB/s | peak RSS | count | speed-up vs 1 | shares (batches, %, ms) |")
    print("|---|---:|---:|---:|---:|---|---:|---|")
    for label, args in rows:
        base = None
        for n in counts:
            argv = [GS, "--stats", "--opencl-device", ",".join(["nvidia"] * n)] + args
            if WARMUP:
                run(argv)
            res = sorted((run(argv) for _ in range(RUNS)), key=lambda r: r[0])
            secs, rss, out = res[len(res) // 2]
            base = base or secs
            shares = "; ".join(f"d{d}: {b}, {p}%, {ms}" for d, b, p, ms in SHARE.findall(out))
            count = total_count(out)
            print(f"| {label} | {n} | {secs:.3f} s | {size / secs / 1e9:.2f} | {rss:.0f} MiB | "
                  f"{count} | {base / secs:.2f}x | {shares} |", flush=True)


main()
