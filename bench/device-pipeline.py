#!/usr/bin/env python3
"""The device pipeline's stages on one big page-cached file (issue 20, item 1): for each
search and each setting (environment variables of the pipeline: batch size, staging
slots, fill threads, GSEARCH_OPENCL_DEVICE), gsearch --engine opencl is run RUNS
times (after one warm-up, each run after a 1 s pause: see scale-gpus.py) and the
median wall time, GB/s, peak RSS and the stage times of the median run (from
GSEARCH_TRACE=1, which prints what --stats would without changing the work) are
printed as a markdown table; the CPU engine, auto and rg run beside it. WORDS_BIG
(e.g. words-100000.txt) adds a third search; SKIP_RG=1 leaves ripgrep out (24 s a
run for 1,000 words on 8.68 GB), SKIP_HOST=1 the CPU engine and auto.

Usage: bench/device-pipeline.py FILE WORDS [SETTINGS ...]
  FILE     the big file (scripts/setup-corpus --site-packages: big.txt)
  WORDS    a -F -f word list (words-1000.txt)
  SETTINGS e.g. "GSEARCH_BATCH_BYTES=134217728,GSEARCH_FILL_THREADS=16" (default: a sweep)
Binaries: .carry/gsearch and .carry/rg.  RUNS (default 3) from the environment."""
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
CARRY = os.path.join(REPO, ".carry")
GS, RG = os.path.join(CARRY, "gsearch"), os.path.join(CARRY, "rg")
RUNS = int(os.environ.get("RUNS", "3"))
MIB = 1 << 20
SWEEP = [
    "",
    "GSEARCH_FILL_THREADS=12",
    "GSEARCH_FILL_THREADS=16",
    f"GSEARCH_BATCH_BYTES={64 * MIB},GSEARCH_FILL_THREADS=16",
    "GSEARCH_SLOTS=6,GSEARCH_FILL_THREADS=16",
]
STAGES = re.compile(r"fill ([\d.]+) ms \| host-to-device ([\d.]+) ms \| kernel ([\d.]+) ms"
                    r" \| device-to-host ([\d.]+) ms \| wait ([\d.]+) ms")
STREAM = re.compile(r"opencl stream: \d+ bytes? in (\d+) batch(?:es)? \((\d+) on CPU\),"
                    r" \d+ match(?:es)?, wall ([\d.]+) ms")
INIT = re.compile(r"opencl init: .* ([\d.]+) ms in all")
CHUNKS = re.compile(r"chunks: (\d+) on the CPU \(\d+ threads?\), (\d+) on the device")


def run(argv, env_extra):
    """(seconds, peak RSS MiB, stdout, stderr) of one run (the RSS from wait4)."""
    env = dict(os.environ, GSEARCH_TRACE="1", **env_extra)
    time.sleep(1)
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        t = time.perf_counter()
        p = subprocess.Popen(argv, stdout=out, stderr=err, env=env)
        _, _, usage = os.wait4(p.pid, 0)
        secs = time.perf_counter() - t
        p.returncode = 0
        out.seek(0)
        err.seek(0)
        return (secs, usage.ru_maxrss / 1024, out.read().decode(errors="replace"),
                err.read().decode(errors="replace"))


def timed(argv, env_extra):
    """The median run of RUNS after one warm-up."""
    run(argv, env_extra)
    rows = sorted((run(argv, env_extra) for _ in range(RUNS)), key=lambda r: r[0])
    return rows[len(rows) // 2]


def parse_env(s):
    return dict(kv.split("=", 1) for kv in s.split(",") if kv)


def main():
    path, words = sys.argv[1], sys.argv[2]
    settings = sys.argv[3:] or SWEEP
    size = os.path.getsize(path)
    searches = [("-c literal", ["-c", "PyErr_SetString", path]),
                ("-c 1,000 words", ["-c", "-F", "-f", words, path])]
    if os.environ.get("WORDS_BIG"):
        searches.append(("-c 100,000 words", ["-c", "-F", "-f", os.environ["WORDS_BIG"], path]))
    print(f"file {path}: {size / 1e9:.2f} GB, page-cached; median of {RUNS} runs\n")
    print("| search | engine | setting | s | GB/s | RSS MiB | init ms | stream ms | stream GB/s "
          "| batches (CPU) | fill | h2d | kernel | d2h | wait | count |")
    print("|---|---|---|---:|---:|---:|---:|---:|---:|---|---:|---:|---:|---:|---:|---|")
    for label, args in searches:
        want = None
        tools = [] if os.environ.get("SKIP_HOST") == "1" else [("cpu", ""), ("auto", "")]
        if os.environ.get("SKIP_RG") != "1":
            tools.insert(0, ("rg", ""))
        for engine, setting in (tools
                                + [("opencl", s) for s in settings]):
            argv = ([RG] + args) if engine == "rg" else (
                [GS, "--engine", engine] + args)
            secs, rss, out, err = timed(argv, parse_env(setting))
            count = out.split("\n", 1)[0].strip()
            want = want or count
            text = out + err
            st, sm = STAGES.search(text), STREAM.search(text)
            init, chunks = INIT.search(text), CHUNKS.search(text)
            stages = " | ".join(st.groups()) if st else " | ".join(["–"] * 5)
            batches = f"{sm.group(1)} ({sm.group(2)})" if sm else "–"
            if chunks:
                batches = f"chunks {chunks.group(2)} device, {chunks.group(1)} CPU"
            wall_ms = float(sm.group(3)) if sm else None
            stream = (f"{wall_ms:.1f} | {size / wall_ms / 1e6:.1f}" if wall_ms else "– | –")
            init_ms = init.group(1) if init else "–"
            ok = "ok" if count == want else f"WRONG {count}"
            print(f"| {label} | {engine} | {setting or 'default'} | {secs:.3f} | "
                  f"{size / secs / 1e9:.1f} | {rss:.0f} | {init_ms} | {stream} | {batches} | {stages} "
                  f"| {ok} |",
                  flush=True)


main()
