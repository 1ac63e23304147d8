#!/usr/bin/env python3
"""One big file read from the disk, not the page cache: ripgrep and gsearch
(binaries in .carry/: rg, gsearch, and .carry/gsearch-base when present) on the same
searches, each run preceded by an eviction of the file (scripts/evict: fsync and
POSIX_FADV_DONTNEED, checked with mincore; a run whose eviction leaves more than 0.1%
of the file resident is not timed).  gsearch also runs with GSEARCH_READAHEAD_MIB=0
("gsearch-nora": read-ahead off, the way it read a cold file before) so that one
binary shows what read-ahead brings.  Tools and cases are interleaved, RUNS (default
3) rounds; the median wall time, GB/s, the ratio rg / tool (above 1: faster than
ripgrep) and the largest peak RSS are printed, and every tool's count must agree.

Cases: -c of one literal (auto: the hybrid path with a GPU, the big-file path
without), the same with --engine cpu (the big-file path) and --engine opencl (the
device path; skipped when no OpenCL device answers), -c -F -f of 1,000 words.

Usage: bench/cold-compare.py [CORPUS_DIR]   (default /var/tmp/gsearch-corpus/site,
which must hold big.txt and words-1000.txt: scripts/setup-corpus --site-packages on
the GPU machine).  RUNS=5 for more rounds; CASES=literal,cpu to pick cases;
WINDOWS=32,512 adds gsearch with those read-ahead windows (MiB; the default is 128)."""
import os
import statistics
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.dont_write_bytecode = True
import importlib.machinery  # noqa: E402
import importlib.util  # noqa: E402

_loader = importlib.machinery.SourceFileLoader("evict", os.path.join(ROOT, "scripts", "evict"))
_spec = importlib.util.spec_from_loader("evict", _loader)
evict = importlib.util.module_from_spec(_spec)
_loader.exec_module(evict)
CARRY = os.path.join(ROOT, ".carry")


def tools():
    t = {"rg": ([os.path.join(CARRY, "rg")], {})}
    g = os.path.join(CARRY, "gsearch")
    t["gsearch"] = ([g], {})
    t["gsearch-nora"] = ([g], {"GSEARCH_READAHEAD_MIB": "0"})
    for w in filter(None, os.environ.get("WINDOWS", "").split(",")):
        t[f"gsearch-w{w}"] = ([g], {"GSEARCH_READAHEAD_MIB": w})
    base = os.path.join(CARRY, "gsearch-base")
    if os.path.exists(base):
        t["gsearch-base"] = ([base], {})
    return t


def cases(corpus):
    big = os.path.join(corpus, "big.txt")
    words = os.path.join(corpus, "words-1000.txt")
    lit = ["-c", "PyErr_SetString", big]
    # (name, args for gsearch, args for rg or None: rg's row is the first case's)
    return [
        ("literal", lit, lit),
        ("cpu", ["--engine", "cpu"] + lit, None),
        ("opencl", ["--engine", "opencl"] + lit, None),
        ("words-1000", ["-c", "-F", "-f", words, big], ["-c", "-F", "-f", words, big]),
    ], big


def run_rss(argv, env):
    """Wall time, the child's peak RSS (KiB, from wait4), stdout, exit status,
    stderr of one run."""
    s = time.perf_counter()
    p = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                         env={**os.environ, **env})
    out = p.stdout.read()
    err = p.stderr.read()
    _, status, ru = os.wait4(p.pid, 0)
    wall = time.perf_counter() - s
    return wall, ru.ru_maxrss, out, os.waitstatus_to_exitcode(status), err


def opencl_answers():
    g = os.path.join(CARRY, "gsearch")
    r = subprocess.run([g, "--list-devices"], stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    return r.returncode == 0 and r.stdout.strip() != b""


def main():
    if len(sys.argv) > 1 and sys.argv[1] in ("-h", "--help"):
        print(__doc__)
        return
    corpus = sys.argv[1] if len(sys.argv) > 1 else "/var/tmp/gsearch-corpus/site"
    runs = int(os.environ.get("RUNS", "3"))
    table, big = cases(corpus)
    pick = os.environ.get("CASES")
    if pick:
        table = [c for c in table if c[0] in pick.split(",")]
    if not opencl_answers():
        table = [c for c in table if c[0] != "opencl"]
    size = os.path.getsize(big)
    ts = tools()
    print(f"{big}: {size / 1e9:.2f} GB, {os.cpu_count()} cores, RUNS {runs}", flush=True)
    times, rss, answers = {}, {}, {}
    for r in range(runs):
        for name, gargs, rargs in table:
            for tool, (argv, env) in ts.items():
                args = rargs if tool == "rg" else gargs
                if args is None:
                    continue
                left = evict.evict(big)
                if left > 0.001:
                    print(f"round {r} {name} {tool}: {left:.2%} still resident, not timed",
                          flush=True)
                    continue
                wall, peak, out, code, err = run_rss(argv + args, env)
                key = (name, tool)
                times.setdefault(key, []).append(wall)
                rss[key] = max(rss.get(key, 0), peak)
                answers.setdefault(name, {})[tool] = out.strip()
                if code not in (0, 1):
                    print(f"{name} {tool}: exit {code}: {err.decode(errors='replace')[:300]}",
                          flush=True)
    report(table, ts, times, rss, answers, size)


def report(table, ts, times, rss, answers, size):
    rg_med = {}
    for name, _, rargs in table:
        key = (name if rargs is not None else "literal", "rg")
        if key in times:
            rg_med[name] = statistics.median(times[key])
    print("| case | tool | median s | GB/s | rg / tool | peak RSS MiB | runs |")
    print("|---|---|---|---|---|---|---|")
    for name, _, _ in table:
        for tool in ts:
            v = times.get((name, tool))
            if not v:
                continue
            med = statistics.median(v)
            ratio = f"{rg_med[name] / med:.2f}" if name in rg_med else ""
            runs = " ".join(f"{x:.2f}" for x in v)
            print(f"| {name} | {tool} | {med:.2f} | {size / med / 1e9:.2f} | {ratio} | "
                  f"{rss[(name, tool)] / 1024:.0f} | {runs} |", flush=True)
    agree = True
    for name, _, rargs in table:
        got = dict(answers.get(name, {}))
        if rargs is None and "rg" in answers.get("literal", {}):
            got["rg"] = answers["literal"]["rg"]
        if len(set(got.values())) > 1:
            agree = False
            print(f"MISMATCH in {name}: {got}", flush=True)
    print("counts agree with ripgrep" if agree else "COUNTS DISAGREE", flush=True)


if __name__ == "__main__":
    main()
