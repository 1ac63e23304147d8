#!/usr/bin/env python3
"""A one-line file (start-up cost): rg and gsearch (binaries in .carry/) interleaved
(bench/interleave.py), 5 warm-up runs each, RUNS (default 55) timed runs.
Usage: bench/one-line-compare.py"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
sys.dont_write_bytecode = True
from interleave import compare  # noqa: E402

one = "/tmp/one-line.txt"
with open(one, "w") as f:
    f.write("hello one world\n")
compare([["one", one]], runs=int(os.environ.get("RUNS", "55")), warmup=5)
