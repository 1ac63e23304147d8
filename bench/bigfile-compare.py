#!/usr/bin/env python3
"""The big page-cached file of scripts/setup-corpus --site-packages: rg and gsearch
(binaries in .carry/; .carry/gsearch-base joins for an A/B of two builds) on the same
searches, interleaved (bench/interleave.py), 1 warm-up run each, RUNS (default 5)
timed runs. Rows: -c of one literal, -n of a frequent literal (output piped, counted),
-c -F -f with 1,000 and 10,000 words, a regex with an inner literal.
Usage: bench/bigfile-compare.py [CORPUS_DIR]   (run on the GPU machine; default
/var/tmp/gsearch-corpus/site, which must hold big.txt and words-*.txt)"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
sys.dont_write_bytecode = True
from interleave import compare  # noqa: E402

corpus = sys.argv[1] if len(sys.argv) > 1 else "/var/tmp/gsearch-corpus/site"
big = os.path.join(corpus, "big.txt")
cases = [
    ["-c", "PyErr_SetString", big],
    ["-n", "self", big],
    ["-c", "-F", "-f", os.path.join(corpus, "words-1000.txt"), big],
    ["-c", "-F", "-f", os.path.join(corpus, "words-10000.txt"), big],
    ["-c", r"[A-Z][a-z]+Error", big],
]
compare(cases, runs=int(os.environ.get("RUNS", "5")), warmup=1)
