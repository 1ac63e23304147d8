#!/usr/bin/env python3
"""How many GPUs the NVIDIA driver starts, A/B in one run: each row runs a gsearch search
with no --opencl-device (every GPU, as a user types it) twice over, once as gsearch
leaves it (it sets CUDA_VISIBLE_DEVICES to the GPUs the input is worth, see
search/cost.rs::gpus_worth_starting) and once with CUDA_VISIBLE_DEVICES naming every GPU
of the host (set by the user, which gsearch leaves alone: the driver starts them all).
Prints the median of RUNS (default 3) wall times after one warm-up, peak RSS, the count,
the devices that took batches, and when the platform listing ended (GSEARCH_TRACE).

Usage: bench/gpus-started.py WORDS RULES FILE...   (e.g. words-100000.txt
bench/rules/rules-200.txt mid.txt big.txt); GPUS (default: nvidia-smi -L's count).
Binary: .carry/gsearch (GS overrides)."""
import os
import re
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
sys.dont_write_bytecode = True
from proc import run_rss  # noqa: E402

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
GS = os.environ.get("GS", os.path.join(REPO, ".carry", "gsearch"))
RUNS = int(os.environ.get("RUNS", "3"))
LISTED = re.compile(r"gsearch trace:\s+([\d.]+) ms  OpenCL platforms listed")
SHARE = re.compile(r"device (\d+) \([^)]*\): (\d+) batch")


def run(argv, env):
    """(seconds, peak RSS MiB, stdout, stderr), after a 1 s pause (the run before may
    still be tearing its driver down in a child)."""
    time.sleep(1)
    with tempfile.TemporaryFile() as err:
        secs, rss, out = run_rss(argv, env=dict(os.environ, GSEARCH_TRACE="1", **env), err=err)
        err.seek(0)
        return secs, rss, out.decode(errors="replace").strip(), err.read().decode(errors="replace")


def host_gpus():
    out = subprocess.run(["nvidia-smi", "-L"], capture_output=True, text=True).stdout
    return sum(1 for line in out.split("\n") if line.startswith("GPU "))


def main():
    words, rules, files = sys.argv[1], sys.argv[2], sys.argv[3:]
    gpus = int(os.environ.get("GPUS", host_gpus()))
    every = {"CUDA_VISIBLE_DEVICES": ",".join(map(str, range(gpus)))}
    print(f"{gpus} GPUs on the host, {os.cpu_count()} cores; median of {RUNS} runs after a "
          f"warm-up\n")
    print("| file | search | GPUs started | time | peak RSS | count | platforms listed | "
          "devices used |")
    print("|---|---|---|---:|---:|---|---:|---|")
    for path in files:
        size = os.path.getsize(path) / 1e9
        for label, args in [("-c -f rules (opencl)", ["--engine", "opencl", "-c", "-f", rules]),
                            ("-c -f rules (auto)", ["-c", "-f", rules]),
                            ("-c -F -f words (opencl)", ["--engine", "opencl", "-c", "-F", "-f",
                                                         words]),
                            ("-c -F -f words (auto)", ["-c", "-F", "-f", words])]:
            argv = [GS] + args + [path]
            for name, env in [("gsearch's choice", {}), ("every GPU", every)]:
                run(argv, env)
                res = sorted((run(argv, env) for _ in range(RUNS)), key=lambda r: r[0])
                secs, rss, out, err = res[(len(res) - 1) // 2]
                listed = LISTED.search(err)
                shares = SHARE.findall(err)
                used = len(shares) if shares else ("1" if listed else "0")
                print(f"| {os.path.basename(path)} ({size:.1f} GB) | {label} | {name} | "
                      f"{secs:.3f} s | {rss:.0f} MiB | {out} | "
                      f"{listed.group(1) + ' ms' if listed else '-'} | {used} |", flush=True)


main()
