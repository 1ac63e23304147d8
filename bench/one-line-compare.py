#!/usr/bin/env python3
"""A one-line file (start-up cost): rg and gsearch (binaries in .carry/) interleaved
(bench/interleave.py), 5 warm-up runs each, RUNS (default 55) timed runs. With BIG (a
big file, e.g. scripts/make-bigfile's), also `sh -c 'TOOL -n e BIG | head -1'` (the
first line, then the closed pipe), timed to the shell's exit.
Usage: bench/one-line-compare.py"""
import shlex
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
sys.dont_write_bytecode = True
from interleave import compare  # noqa: E402

one = "/tmp/one-line.txt"
with open(one, "w") as f:
    f.write("hello one world\n")
runs = int(os.environ.get("RUNS", "55"))
compare([["one", one]], runs=runs, warmup=5)
big = os.environ.get("BIG")
if big:
    compare([["-n", "e", big]], runs=runs, warmup=5,
            wrap=lambda argv: ["sh", "-c", " ".join(map(shlex.quote, argv)) + " | head -1"])
