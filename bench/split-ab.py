#!/usr/bin/env python3
"""A/B of two gsearch builds on the device path, one device and two (PoCL:
POCL_DEVICES="pthread pthread"), interleaved (A, B, A, B, ...) so drift on a
shared machine hits both alike; medians of `runs` after `warmup`, output to a
pipe, and whether the outputs agree. Made for issue 20 (claims outside the
queue's lock, batches committed through a reorder buffer): one device must not
get slower.

usage: bench/split-ab.py BASE_BIN NEW_BIN [--runs N]
Builds its corpus under /tmp/gsearch-split-ab (a tree of 2,000 small files and a
64 MiB file); GSEARCH_BATCH_BYTES=4 MiB so a search has many batches."""
import os
import random
import statistics
import subprocess
import sys
import time

ROOT = "/tmp/gsearch-split-ab"
WORDS = ["needle", "hay", "alpha", "beta", "gamma", "delta", "stack", "stone"]


def corpus():
    if os.path.exists(os.path.join(ROOT, "done")):
        return
    rnd = random.Random(20)
    os.makedirs(os.path.join(ROOT, "tree"), exist_ok=True)
    for i in range(2000):
        with open(os.path.join(ROOT, "tree", f"f{i:04}.txt"), "w") as f:
            for _ in range(rnd.randint(0, 120)):
                f.write(" ".join(rnd.choice(WORDS) for _ in range(7)) + "\n")
    with open(os.path.join(ROOT, "big.txt"), "w") as f:
        line = 0
        while f.tell() < 64 << 20:
            f.write(" ".join(rnd.choice(WORDS) for _ in range(9)) + f" {line}\n")
            line += 1
    open(os.path.join(ROOT, "done"), "w").close()


CASES = [
    ["-n", "needle", "tree"],
    ["-c", "needle", "--sort", "path", "tree"],
    ["-c", "needle", "big.txt"],
    ["-n", "stone needle", "big.txt"],
]


def once(argv, env):
    s = time.perf_counter()
    out = subprocess.run(argv, cwd=ROOT, env=env, stdout=subprocess.PIPE, check=False).stdout
    return time.perf_counter() - s, out


def main():
    base, new = sys.argv[1], sys.argv[2]
    runs = int(sys.argv[sys.argv.index("--runs") + 1]) if "--runs" in sys.argv else 9
    corpus()
    env = dict(os.environ, POCL_DEVICES="pthread pthread", GSEARCH_BATCH_BYTES=str(4 << 20))
    print("| case | devices | base | new | new/base | same output |")
    print("|---|---|---:|---:|---:|---|")
    for devices in ["pocl", "pocl,pocl"]:
        for args in CASES:
            argv = ["--engine", "opencl", "--opencl-device", devices] + args
            times = {base: [], new: []}
            outs = {}
            for i in range(runs + 1):
                for b in (base, new):
                    t, out = once([b] + argv, env)
                    outs[b] = sorted(out.splitlines()) if args[-1] == "tree" else out
                    if i > 0:
                        times[b].append(t)
            mb, mn = statistics.median(times[base]), statistics.median(times[new])
            same = outs[base] == outs[new]
            print(f"| `{' '.join(args)}` | {devices} | {mb*1e3:.1f} ms | {mn*1e3:.1f} ms | "
                  f"{mn/mb:.2f} | {'yes' if same else 'NO'} |", flush=True)


if __name__ == "__main__":
    main()
