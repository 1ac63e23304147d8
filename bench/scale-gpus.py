#!/usr/bin/env python3
"""Issue 22: 1, 2, 4 (and 8) GPUs of one host on one big page-cached file. For each
device count N (`--opencl-device nvidia` repeated N times), each row runs gsearch
`--engine opencl` RUNS times (default 1, after one untimed warm-up per row unless
WARMUP=0: the first run on a fresh machine compiles the kernels, 0.7-1.9 s)
and prints the wall time, GB/s, peak RSS (wait4) and each device's share. The runs
are timed without `--stats`, which changes the work (it counts every match: with
100,000 words, 286 M matching lines on 32 GB); `GSEARCH_TRACE=1` gives the same
stage report (on stderr, kept apart from the counts), which follows the table for
the median run (the faster of two). ripgrep runs the literal row once. PAUSE
(default 1) seconds go by before each run (see `run`). Rows: -c -F -f WORDS (named
by its line count), -c -f a rule set (RULES, default bench/rules/rules-200.txt), -c
of one literal (auto).
FILE may be a directory (a tree): its size is the sum of its files'.

ROWS=0,1 keeps those rows (0 words, 1 rules, 2 literal; default all). SKIP_RG=1 leaves
ripgrep out. VISIBLE=1 runs each count N with CUDA_VISIBLE_DEVICES=0,..,N-1 (the NVIDIA
driver then starts N GPUs, not every GPU of the host: about 0.21 s each on the 4-GPU
H200 host).

Usage: bench/scale-gpus.py FILE WORDS COUNTS   e.g. big.txt words-100000.txt 1,2,4
Binaries: .carry/gsearch (GS overrides: e.g. an older build, for an A/B in one call),
.carry/rg."""
import os
import re
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
sys.dont_write_bytecode = True
from proc import run_rss  # noqa: E402

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
GS = os.environ.get("GS", os.path.join(REPO, ".carry", "gsearch"))
RG = os.path.join(REPO, ".carry", "rg")
RUNS, WARMUP = int(os.environ.get("RUNS", "1")), os.environ.get("WARMUP", "1") == "1"
PAUSE = float(os.environ.get("PAUSE", "1"))
SHARE = re.compile(r"device (\d+) \([^)]*\): (\d+) batch\w* .*?\((\d+)%\), ([\d.]+) ms")
TRACE = "gsearch trace: "


def run(argv, env=None):
    """(seconds, peak RSS MiB, stdout as text, the trace lines without their prefix),
    after PAUSE seconds: the run before may still be tearing down its OpenCL driver (in
    a child, after its output), and a driver starting meanwhile waits for it."""
    time.sleep(PAUSE)
    with tempfile.TemporaryFile() as err:
        env = dict(os.environ, GSEARCH_TRACE="1", **(env or {}))
        secs, rss, out = run_rss(argv, env=env, err=err)
        err.seek(0)
        trace = err.read().decode(errors="replace")
    lines = [l[len(TRACE):] for l in trace.split("\n") if l.startswith(TRACE)]
    return secs, rss, out.decode(errors="replace"), lines


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
    with open(words, "rb") as f:
        nwords = sum(1 for _ in f)
    rows = [(f"-c -F -f {nwords:,} words", ["--engine", "opencl", "-c", "-F", "-f", words, path]),
            (f"-c -f {os.path.basename(rules)}", ["--engine", "opencl", "-c", "-f", rules, path]),
            ("-c one literal (auto)", ["--engine", "auto", "-c", "PyErr_SetString", path])]
    keep = os.environ.get("ROWS")
    if keep:
        rows = [rows[int(i)] for i in keep.split(",")]
    print(f"file {path}: {size / 1e9:.2f} GB, page-cached; {os.cpu_count()} cores; "
          f"median of {RUNS} run(s){' after a warm-up' if WARMUP else ''}"
          f"{'; CUDA_VISIBLE_DEVICES limited to the GPUs used' if os.environ.get('VISIBLE') == '1' else ''}\n")
    if os.environ.get("SKIP_RG") != "1":
        secs, rss, out, _ = run([RG, "-c", "PyErr_SetString", path])
        print(f"rg -c one literal: {secs:.3f} s, {size / secs / 1e9:.2f} GB/s, {rss:.0f} MiB, "
              f"count {total_count(out)}\n")
    visible = os.environ.get("VISIBLE") == "1"
    print("| row | GPUs | time | GB/s | peak RSS | count | speed-up vs 1 | shares (batches, %, ms) |")
    print("|---|---:|---:|---:|---:|---|---:|---|")
    reports = []
    for label, args in rows:
        base = None
        for n in counts:
            argv = [GS, "--opencl-device", ",".join(["nvidia"] * n)] + args
            env = {"CUDA_VISIBLE_DEVICES": ",".join(map(str, range(n)))} if visible else None
            if WARMUP and n == counts[0]:
                run(argv, env)
            res = sorted((run(argv, env) for _ in range(RUNS)), key=lambda r: r[0])
            secs, rss, out, trace = res[(len(res) - 1) // 2]
            base = base or secs
            shares = "; ".join(f"d{d}: {b}, {p}%, {ms}"
                               for d, b, p, ms in SHARE.findall("\n".join(trace)))
            count = total_count(out)
            print(f"| {label} | {n} | {secs:.3f} s | {size / secs / 1e9:.2f} | {rss:.0f} MiB | "
                  f"{count} | {base / secs:.2f}x | {shares} |", flush=True)
            reports.append((f"{label}, {n} GPU(s)", trace))
    for name, lines in reports:
        print(f"\n{name}:\n```\n" + "\n".join(lines) + "\n```")


main()
