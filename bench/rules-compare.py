#!/usr/bin/env python3
"""Rule sets (bench/rules, from scripts/make-rules) against ripgrep,
interleaved (bench/interleave.py; binaries in .carry/): one 24 MB file of
source code with planted secrets (`scripts/make-rules --corpus`), and a
tree. Usage: bench/rules-compare.py CORPUS TREE [RUNS]"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import interleave  # noqa: E402

RULES = os.path.join(os.path.dirname(os.path.abspath(__file__)), "rules")


def main():
    corpus, tree = sys.argv[1], sys.argv[2]
    runs = int(sys.argv[3]) if len(sys.argv) > 3 else 10
    cases = []
    for n in (15, 200, 1000):
        cases.append(["-n", "-f", os.path.join(RULES, f"rules-{n}.txt"), corpus])
    cases.append(["-c", "-f", os.path.join(RULES, "rules-200.txt"), tree])
    interleave.compare(cases, runs=runs, warmup=1)


if __name__ == "__main__":
    main()
