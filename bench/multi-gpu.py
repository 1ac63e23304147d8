#!/usr/bin/env python3
"""One GPU against two (issue 20, item 3), for the two-GPU machine (nvidia-h100-x2).

Device-bound work on one big page-cached file: -c -F -f 100,000 words (and 1,000),
-c -f a regex rule set (the DFA kernels, bench/rules/rules-15.txt), each with
`--engine opencl --opencl-device G0` (one GPU) and `--opencl-device G0,G1` (two),
plus `-c` of one literal with `auto` (the hybrid path: CPU threads and the devices on
one chunk queue) on one GPU and on every GPU. G0, G1 are the devices `--list-devices`
marks as auto's (`--devices` overrides). The runs of one row take turns (one GPU, two
GPUs, one GPU, ...) after a warm-up each; the table gives the median wall time, GB/s,
peak RSS, the matching-line count (checked equal across the row's runs) and the
speed-up of two GPUs; each row's --stats run on two GPUs gives every device's share
(batches, bytes, time) and stages, printed under the table.

Binary: .carry/gsearch (--gsearch). The corpus comes from
scripts/setup-corpus --site-packages (big.txt of --big-size, words-N.txt), reused when
already built. The markdown goes to stdout, to bench/results/2026-11-26-multi-gpu.md
(--out-file) and, when $OUT is set, to $OUT/ as well, rewritten after every row, so a run
cut short still leaves its table. Rows left when --budget seconds have passed are
skipped. A run past --timeout seconds is stopped and marked.

Usage: bench/multi-gpu.py [--big-size 8G] [--runs 3] [--budget 540] [--devices 0,1]
       [--rules bench/rules/rules-15.txt] [--words 100000,1000] [--file BIG]
"""

import argparse
import json
import os
import re
import statistics
import subprocess
import sys

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
CARRY = os.path.join(REPO, ".carry")
sys.dont_write_bytecode = True
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from proc import run_rss  # noqa: E402


def auto_devices(gs):
    """The indices --list-devices marks with '*' (the devices auto uses)."""
    out = subprocess.run([gs, "--list-devices"], stdout=subprocess.PIPE,
                         stderr=subprocess.STDOUT).stdout.decode(errors="replace")
    marked = [int(m.group(1)) for m in re.finditer(r"^\*\s*(\d+)\s", out, re.M)]
    return marked, out


def machine():
    """Commit (GSEARCH_COMMIT, else git's HEAD), GPUs (nvidia-smi -L) and cores."""
    def sh(cmd):
        try:
            return subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                                  cwd=REPO, timeout=30).stdout.decode(errors="replace").strip()
        except (OSError, subprocess.TimeoutExpired):
            return ""
    commit = os.environ.get("GSEARCH_COMMIT") or sh(["git", "rev-parse", "--short", "HEAD"])
    gpus = sh(["nvidia-smi", "-L"]) or "(no nvidia-smi)"
    return f"commit {commit or '?'}; {os.cpu_count()} cores; GPUs: " + "; ".join(gpus.splitlines())


def corpus(a):
    """setup-corpus --site-packages's manifest (big file, word lists)."""
    cmd = [sys.executable, os.path.join(REPO, "scripts", "setup-corpus"), "--site-packages",
           "--out", a.corpus, "--big-size", a.big_size, "--sorted-size", "1M",
           "--keys", "1000", "--key-samples", "100", "--print-manifest"]
    print(f"multi-gpu: {' '.join(cmd)}", file=sys.stderr, flush=True)
    r = subprocess.run(cmd, stdout=subprocess.PIPE, stdin=subprocess.DEVNULL)
    if r.returncode != 0:
        sys.exit("multi-gpu: setup-corpus failed")
    return json.loads(r.stdout)


def count(out):
    """The -c answer (first line), or the output's start when it is not a number."""
    first = out.split(b"\n", 1)[0]
    try:
        return int(first)
    except ValueError:
        return out[:100].decode(errors="replace").replace("\n", " ")


def rows(a, m, g0, g1):
    """(name, {config: argv-after-binary}) for every row."""
    big = a.file or m["big"]
    one, two = ["--opencl-device", str(g0)], ["--opencl-device", f"{g0},{g1}"]
    out = []
    for n in a.words.split(","):
        words = m["words"].get(n) if isinstance(m["words"], dict) else None
        words = words or os.path.join(os.path.dirname(m["big"]), f"words-{n}.txt")
        if os.path.exists(words):
            args = ["--engine", "opencl", "-c", "-F", "-f", words, big]
            out.append((f"-c -F -f {int(n):,} words, --engine opencl", args, one, two))
    for rules in a.rules.split(","):
        if os.path.exists(rules):
            args = ["--engine", "opencl", "-c", "-f", rules, big]
            out.append((f"-c -f {os.path.basename(rules)}, --engine opencl", args, one, two))
    out.append(("-c one literal (auto: CPU + devices)", ["-c", a.literal, big], one, two))
    return out


def timed_pair(gs, args, one, two, runs, timeout):
    """Warm-up, then `runs` turns of one GPU and two GPUs; medians and answers."""
    res = {"1 GPU": ([], 0.0, set()), "2 GPUs": ([], 0.0, set())}
    configs = [("1 GPU", one), ("2 GPUs", two)]
    for i in range(runs + 1):
        for name, dev in configs:
            walls, peak, answers = res[name]
            if walls is None:
                continue  # stopped once: not run again
            w, rss, out = run_rss([gs] + dev + args, timeout)
            if w is None:
                res[name] = (None, peak, answers)
                continue
            answers.add(str(count(out)))
            if i:
                walls.append(w)
            res[name] = (walls, max(peak, rss), answers)
    return {k: (statistics.median(v[0]) if v[0] else None, v[1], v[2])
            for k, v in res.items()}


def shares(gs, args, two, timeout):
    """The --stats lines of the two-GPU run from 'engine:' on."""
    _, _, out = run_rss([gs, "--stats"] + two + args, timeout)
    text = out.decode(errors="replace").splitlines()
    start = next((i for i, l in enumerate(text) if l.startswith("engine:")), len(text))
    return text[start:]


def main():
    p = argparse.ArgumentParser(description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--gsearch", default=os.path.join(CARRY, "gsearch"))
    p.add_argument("--corpus", default="/var/tmp/gsearch-corpus")
    p.add_argument("--big-size", default="8G")
    p.add_argument("--file", help="search this file instead of the corpus's big.txt")
    p.add_argument("--words", default="100000,1000")
    p.add_argument("--rules", default=os.path.join(REPO, "bench", "rules", "rules-15.txt"))
    p.add_argument("--literal", default="NotImplementedError")
    p.add_argument("--devices", help="the two devices, e.g. 0,1 (default: auto's)")
    p.add_argument("--runs", type=int, default=3)
    p.add_argument("--timeout", type=float, default=120)
    p.add_argument("--budget", type=float, default=540)
    p.add_argument("--out-file",
                   default=os.path.join(REPO, "bench", "results", "2026-11-26-multi-gpu.md"))
    a = p.parse_args()
    t0 = time.time()
    marked, listing = auto_devices(a.gsearch)
    devs = [int(x) for x in a.devices.split(",")] if a.devices else marked
    if len(devs) < 2:
        sys.exit(f"multi-gpu: fewer than two devices for auto:\n{listing}")
    m = corpus(a) if not a.file else {"big": a.file, "words": {}}
    big = a.file or m["big"]
    subprocess.run(["cat", big], stdout=subprocess.DEVNULL)  # into the page cache
    size = os.path.getsize(big)
    head = [f"# One GPU against two, {time.strftime('%Y-%m-%d')}", "",
            f"`bench/multi-gpu.py`; file {big}: {size / 1e9:.2f} GB, page-cached; "
            f"devices {devs[0]} and {devs[0]},{devs[1]}; median of {a.runs} runs "
            "(turns: one GPU, two GPUs), after a warm-up each.", "", machine(), "",
            "```", listing.rstrip(), "```", "",
            "| row | devices | time | GB/s | peak RSS | matching lines | 2 GPUs vs 1 |",
            "|---|---|---:|---:|---:|---|---:|"]
    table, notes = [], []

    def write():
        text = "\n".join(head + table + [""] + notes) + "\n"
        for path in filter(None, [a.out_file, os.environ.get("OUT") and
                                  os.path.join(os.environ["OUT"],
                                               os.path.basename(a.out_file))]):
            with open(path, "w") as f:
                f.write(text)

    for name, args, one, two in rows(a, m, devs[0], devs[1]):
        if time.time() - t0 > a.budget:
            table.append(f"| {name} | | skipped (budget) | | | | |")
            continue
        res = timed_pair(a.gsearch, args, one, two, a.runs, a.timeout)
        speed = ""
        t1, t2 = res["1 GPU"][0], res["2 GPUs"][0]
        if t1 and t2:
            speed = f"{t1 / t2:.2f}x"
        answers = res["1 GPU"][2] | res["2 GPUs"][2]
        shown = " / ".join(sorted(answers)) + ("" if len(answers) <= 1 else " (DIFFER)")
        for cfg, (t, rss, _) in res.items():
            tt = f"{t:.3f} s" if t else f"> {a.timeout:.0f} s (stopped)"
            gbs = f"{size / t / 1e9:.2f}" if t else ""
            table.append(f"| {name} | {cfg} | {tt} | {gbs} | {rss:.0f} MiB | {shown} | "
                         f"{speed if cfg == '2 GPUs' else ''} |")
        notes += [f"```", f"--stats on 2 GPUs, {name}:"] + shares(
            a.gsearch, args, two, a.timeout) + ["```", ""]
        write()
        print("\n".join(table[-2:]), flush=True)
    write()
    print("\n".join(head + table + [""] + notes))


if __name__ == "__main__":
    main()
