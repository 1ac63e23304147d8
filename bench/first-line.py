#!/usr/bin/env python3
"""First line and whole time of one big file's searches, interleaved: each case's command
runs with its standard output a pipe that this script reads. With `head`, the script
closes the pipe after the first line (as `| head -1` does) and times the process's end
too; without, it reads everything. Peak RSS from wait4 on the process itself.

Usage: bench/first-line.py FILE RULES [GSEARCH [BASE [RG]]]
  (defaults .carry/gsearch, .carry/gsearch-base, .carry/rg; RUNS (default 5) runs after one
  warm-up; CORES=0,1 runs every command under `taskset -c 0,1`; OUT=table.md)
Cases: `-f RULES | head -1` and `-c -f RULES` for gsearch (auto), gsearch --engine cpu and
the base; `-n struct | head -1` and `-n PyErr_SetString | head -1` for gsearch, the base
and ripgrep. With FORMS (searches separated by `;`, each split on spaces, e.g.
`-o \w+_\w+;--color=always -n struct`), those instead: each for gsearch, the base and
ripgrep, as `| head -1` and whole."""
import os
import statistics
import subprocess
import sys
import time

F, R = sys.argv[1], sys.argv[2]
GS, BASE, RG = (sys.argv[3:] + [".carry/gsearch", ".carry/gsearch-base", ".carry/rg"][len(sys.argv) - 3:])[:3]
RUNS = int(os.environ.get("RUNS", "5"))
CORES = os.environ.get("CORES")


def forms(spec):
    out = []
    for form in (f.split() for f in spec.split(";") if f.strip()):
        for head in (True, False):
            shown = f"`{' '.join(form)}{' | head -1' if head else ''}`"
            for name, exe in (("gsearch", GS), ("base", BASE), ("rg", RG)):
                out.append((f"{shown}: {name}", [exe] + form + [F], head))
    return out


def cases():
    if os.environ.get("FORMS"):
        return forms(os.environ["FORMS"])
    out = []
    for head in (True, False):
        args = ["-f", R, F] if head else ["-c", "-f", R, F]
        form = f"`-f {os.path.basename(R)} \\| head -1`" if head else f"`-c -f {os.path.basename(R)}`"
        out += [(f"{form}: auto", [GS] + args, head),
                (f"{form}: cpu", [GS, "--engine", "cpu"] + args, head),
                (f"{form}: base auto", [BASE] + args, head)]
    for pat in ("struct", "PyErr_SetString"):
        for name, exe in (("gsearch", GS), ("base", BASE), ("rg", RG)):
            out.append((f"`-n {pat} \\| head -1`: {name}", [exe, "-n", pat, F], True))
    return out


def once(argv, head):
    argv = (["taskset", "-c", CORES] if CORES else []) + argv
    t0 = time.perf_counter()
    p = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    first = p.stdout.readline()
    t1 = time.perf_counter()
    if head:
        p.stdout.close()
    else:
        while p.stdout.read(1 << 16):
            pass
    _, _, ru = os.wait4(p.pid, 0)
    return t1 - t0, time.perf_counter() - t0, ru.ru_maxrss / 1024, first


def spread(xs):
    xs = sorted(x * 1e3 for x in xs)
    return f"{statistics.median(xs):.1f} ({xs[0]:.1f}-{xs[-1]:.1f})"


rows = cases()
got = {label: [] for label, _, _ in rows}
for i in range(RUNS + 1):
    for label, argv, head in rows:
        r = once(argv, head)
        if i:
            got[label].append(r)
lines = [f"{F} ({os.path.getsize(F)} bytes), {R}, {RUNS} runs, cores {CORES or 'all'}", "",
         "| case | first line ms (median, min-max) | exit ms | peak RSS MiB |", "|---|---|---|---|"]
for label, _, _ in rows:
    v = got[label]
    lines.append(f"| {label} | {spread(x[0] for x in v)} | {spread(x[1] for x in v)} | "
                 f"{max(x[2] for x in v):.0f} |")
text = "\n".join(lines) + "\n"
if os.environ.get("OUT"):
    with open(os.environ["OUT"], "w") as f:
        f.write(text)
print(text, end="")
