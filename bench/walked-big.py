#!/usr/bin/env python3
"""Big files that a directory walk finds: ripgrep, gsearch and an older gsearch
build on the same searches of two trees made from one big file (scripts/make-bigfile),
interleaved (rg, gsearch, base, rg, ...), one warm-up run each, then RUNS (default 5)
timed runs; median wall time (until the process has exited, its output read through a
pipe in 1 MiB blocks, as `| wc -l` would), peak RSS (one more run under
/usr/bin/time) and whether the outputs
agree (the same bytes and lines, and the same multiset of lines where the output is
under 256 MiB: a parallel walk prints the files in any order).

The trees, made under WORK (default /var/tmp/gs-walked) by hard links and slices:
  one/   the big file and a copy of SMALL (default /usr/include): one big file among
         thousands of small ones, which ripgrep searches on one thread;
  many/  the big file cut into as many files as there are cores (at least 32 MiB
         each), which a parallel walk already keeps every core busy with.

Usage: bench/walked-big.py BIGFILE [GSEARCH [BASE [RG]]]
  defaults: .carry/gsearch, .carry/gsearch-base (left out when missing), .carry/rg
Environment: RUNS, WORK, SMALL, FORMS (searches separated by ';', each split on
spaces; the tree is appended), OUT (also write the markdown table there).
Prints a markdown table: the times, gsearch / rg and gsearch / base, peak RSS."""
import hashlib
import os
import shutil
import statistics
import subprocess
import sys
import time
import zlib

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
CARRY = os.path.join(REPO, ".carry")
FORMS = os.environ.get(
    "FORMS", "-c EINVAL;-c e;-n EINVAL;-n struct;-w -c int;-c [A-Z]{4}[0-9]{4};-l zqzqzq")
RUNS = int(os.environ.get("RUNS", "5"))
WORK = os.environ.get("WORK", "/var/tmp/gs-walked")
SMALL = os.environ.get("SMALL", "/usr/include")
LIMIT = 256 << 20


def make_trees(big):
    """one/ and many/ under WORK (made once)."""
    one, many = os.path.join(WORK, "one"), os.path.join(WORK, "many")
    if not os.path.isdir(one):
        os.makedirs(one)
        os.link(big, os.path.join(one, "big.txt"))
        shutil.copytree(SMALL, os.path.join(one, "small"), symlinks=True)
    if not os.path.isdir(many):
        os.makedirs(many)
        data = open(big, "rb").read()
        parts = max(2, min(os.cpu_count() or 2, len(data) // (32 << 20)))
        at = 0
        for i in range(parts):
            end = len(data) if i == parts - 1 else data.index(b"\n", (i + 1) * len(data) // parts) + 1
            with open(os.path.join(many, f"part{i:02}.txt"), "wb") as f:
                f.write(data[at:end])
            at = end
    # Page-cached, as the runs find them.
    subprocess.run(["cat"] + [os.path.join(d, f) for d in (many,) for f in os.listdir(d)],
                   stdout=subprocess.DEVNULL, check=False)
    subprocess.run(["cat", os.path.join(one, "big.txt")], stdout=subprocess.DEVNULL, check=False)
    return [("one", one), ("many", many)]


def peak_rss(argv, cwd):
    """Peak RSS in MiB of one more run, from /usr/bin/time (wait4 on a child of this
    script reports at least this script's own RSS, which the child keeps across exec)."""
    out = subprocess.run(["/usr/bin/time", "-f", "%M"] + argv, cwd=cwd, stdout=subprocess.DEVNULL,
                         stderr=subprocess.PIPE, check=False).stderr.decode().split()
    return int(out[-1]) / 1024 if out and out[-1].isdigit() else float("nan")


def run(argv, cwd):
    """(wall seconds, output digest)."""
    start = time.perf_counter()
    p = subprocess.Popen(argv, cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                         stdin=subprocess.DEVNULL)
    size, lines, kept, tail = 0, 0, [], b""
    while True:
        block = p.stdout.read(1 << 20)
        if not block:
            break
        size += len(block)
        lines += block.count(b"\n")
        if size <= LIMIT:
            kept.append(block)
    status = p.wait()
    wall = time.perf_counter() - start
    if size <= LIMIT:
        # The multiset of lines: the sum of their checksums.
        tail = sum(zlib.crc32(ln) for ln in b"".join(kept).split(b"\n")) % (1 << 64)
    return wall, (size, lines, tail, status)


def main():
    big = sys.argv[1]
    tools = {"rg": os.path.join(CARRY, "rg"), "gsearch": os.path.join(CARRY, "gsearch"),
             "base": os.path.join(CARRY, "gsearch-base")}
    for name, i in (("gsearch", 2), ("base", 3), ("rg", 4)):
        if len(sys.argv) > i:
            tools[name] = sys.argv[i]
    tools = {n: os.path.abspath(b) for n, b in tools.items() if os.path.exists(b)}
    trees = make_trees(big)
    rows = ["| tree | search | rg | gsearch | base | gsearch / rg | gsearch / base "
            "| RSS rg | RSS gsearch | RSS base | agree |", "|" + "---|" * 11]
    for tree, path in trees:
        for form in FORMS.split(";"):
            args = form.split() + ["."]
            times = {n: [] for n in tools}
            digest = {}
            for i in range(RUNS + 1):
                for n, b in tools.items():
                    wall, digest[n] = run([b] + args, path)
                    if i > 0:
                        times[n].append(wall)
            rss = {n: peak_rss([b] + args, path) for n, b in tools.items()}
            med = {n: statistics.median(v) for n, v in times.items()}
            cell = lambda n: f"{med[n] * 1e3:.1f} ms" if n in med else "-"
            ratio = lambda a, b: f"{med[a] / med[b]:.2f}x" if a in med and b in med else "-"
            mib = lambda n: f"{rss[n]:.0f} MiB" if n in rss else "-"
            agree = "yes" if len({d for d in digest.values()}) == 1 else f"NO {digest}"
            rows.append(f"| {tree} | `{form}` | {cell('rg')} | {cell('gsearch')} | {cell('base')} "
                        f"| {ratio('gsearch', 'rg')} | {ratio('gsearch', 'base')} | {mib('rg')} "
                        f"| {mib('gsearch')} | {mib('base')} | {agree} |")
            print(rows[-1], flush=True)
    head = (f"{os.path.getsize(big) / 1e9:.2f} GB file {big}; {os.cpu_count()} cores; median of "
            f"{RUNS} interleaved runs after one warm-up; tools: " +
            ", ".join(f"{n} {hashlib.sha1(open(b, 'rb').read()).hexdigest()[:8]}" for n, b in tools.items()))
    table = "\n".join([head, ""] + rows) + "\n"
    print(table)
    if os.environ.get("OUT"):
        with open(os.environ["OUT"], "w") as f:
            f.write(table)


if __name__ == "__main__":
    main()
