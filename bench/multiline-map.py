#!/usr/bin/env python3
"""Multiline search (-U) of a directory of files: gsearch mapping every file
bigger than its first 64 KiB read (the default) against gsearch --no-mmap
(each file read whole into the heap, as ripgrep does in a walk) and rg.
Usage: bench/multiline-map.py [RUNS]   (GS, RG: the binaries)

Trees of 64 MiB in files of 128 KiB, 1 MiB, 16 MiB, and one 256 MiB file,
all in the page cache (written back); the pattern spans lines and matches every 32 lines.
Runs are interleaved (gs, gs --no-mmap, rg, gs, ...); prints the median wall
time and the median peak RSS of each, as a Markdown table."""
import os, statistics, subprocess, sys, tempfile, time

GS = os.environ.get("GS", "target/release/gsearch")
RG = os.environ.get("RG", "/work/rg-install/bin/rg")
BLOCK = b"alpha\nbeta\n" + b"filler line that never matches\n" * 30


def tree(root, size, total):
    os.makedirs(root)
    body = BLOCK * (size // len(BLOCK))
    for i in range(total // size):
        with open(os.path.join(root, f"f{i:05}"), "wb") as f:
            f.write(body)


def once(argv):
    start = time.perf_counter()
    p = subprocess.Popen(argv, stdout=subprocess.DEVNULL, env=dict(os.environ, GSEARCH_ENGINE="cpu"))
    _, status, usage = os.wait4(p.pid, 0)
    assert os.waitstatus_to_exitcode(status) == 0, argv
    return time.perf_counter() - start, usage.ru_maxrss


def main():
    runs = int(sys.argv[1]) if len(sys.argv) > 1 else 10
    tools = {"gsearch (map)": [GS], "gsearch --no-mmap": [GS, "--no-mmap"], "rg": [RG]}
    print("| files | tool | median s | median peak RSS MiB |\n|---|---|---|---|")
    with tempfile.TemporaryDirectory() as tmp:
        for size, total in [(128 << 10, 64 << 20), (1 << 20, 64 << 20), (16 << 20, 64 << 20), (256 << 20, 256 << 20)]:
            root = os.path.join(tmp, str(size))
            tree(root, size, total)
            # Written back first: pages still dirty from the write stay in
            # the resident set of a map whatever MADV_DONTNEED asks.
            os.sync()
            got = {name: [] for name in tools}
            for i in range(runs + 1):
                for name, argv in tools.items():
                    t = once(argv + ["-U", "-c", r"alpha\nbeta", root])
                    if i:
                        got[name].append(t)
            for name, ts in got.items():
                wall = statistics.median(t for t, _ in ts)
                rss = statistics.median(r for _, r in ts) / 1024
                print(f"| {total // size} x {size >> 10} KiB | {name} | {wall:.3f} | {rss:.0f} |")


main()
