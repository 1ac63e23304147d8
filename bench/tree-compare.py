#!/usr/bin/env python3
"""The site-packages tree: rg and gsearch (binaries in .carry/) on the same searches,
interleaved (bench/interleave.py): 2 warm-up runs each, RUNS (default 30) timed runs.
Usage: bench/tree-compare.py [WORDS_FILE]   (run on the GPU machine)"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
sys.dont_write_bytecode = True
from interleave import compare  # noqa: E402

T = "/opt/torch/.venv/lib/python3.12/site-packages"
cases = [["PyErr_SetString", "."], ["-c", "PyErr_SetString", "."],
         ["--json", "PyErr_SetString", "."], ["--json", "-w", "self", "."]]
if len(sys.argv) > 1:
    cases.append(["-c", "-F", "-f", sys.argv[1], "."])
compare(cases, cwd=T, runs=int(os.environ.get("RUNS", "30")))
