#!/usr/bin/env python3
"""Compare gsearch with ripgrep flag by flag.

Usage: scripts/compare-rg.py CASES.txt   (cases in scripts/rg-cases/)

Each case is one shell-quoted argument list (`<<< text` feeds stdin); it runs
with ripgrep and gsearch in a small fixed tree (a git repository with ignore
files, a hidden file, CRLF and binary files) and the cases whose stdout,
stderr (gsearch's name read as ripgrep's) or exit status differ are printed.
Timings are masked; the lines of a parallel walk are compared as a set
(ORDER=1 compares them in order). RG, GS and ENGINE (gsearch's engine,
default cpu) choose the binaries and engine; TREE the tree's directory."""
import os, re, shlex, subprocess, sys
def norm(b):
    b = re.sub(rb'\d+\.\d+ seconds', b'T seconds', b)
    b = re.sub(rb'"human":"[0-9.]+s","nanos":\d+,"secs":\d+', b'TIME', b)
    b = re.sub(rb'"elapsed":\{"secs":\d+,"nanos":\d+,"human":"[0-9.]+s"\}', b'TIME', b)
    return b
RG = os.environ.get("RG", "/work/rg-install/bin/rg")
GS = os.path.abspath(os.environ.get("GS", "target/release/gsearch"))
TREE = os.environ.get("TREE", "/tmp/gsearch-compare-rg")
def mk():
    if os.path.exists(TREE):
        return
    os.makedirs(TREE + "/sub")
    files = {"a.txt": "foo bar\nbaz\nfoo\n", "b.rs": "fn foo() {}\n", "sub/c.txt": "  foo indented\nnothing\n",
             ".hidden": "foo hidden\n", ".gitignore": "ignored.txt\n", "ignored.txt": "foo ignored\n",
             ".ignore": "dotignored.txt\n", "dotignored.txt": "foo dot\n", "crlf.txt": "foo\r\nbar\r\n",
             "bin.dat": "foo\x00bar\n"}
    for k, v in files.items():
        with open(os.path.join(TREE, k), "w") as f: f.write(v)
    subprocess.run(["git", "init", "-q", TREE])
def run(prog, args, stdin):
    env = {k: v for k, v in os.environ.items() if not k.startswith(("RIPGREP", "GSEARCH"))}
    env["GSEARCH_ENGINE"] = os.environ.get("ENGINE", "cpu") if prog == GS else ""
    if prog != GS: env.pop("GSEARCH_ENGINE")
    p = subprocess.run([prog] + args, cwd=TREE, capture_output=True, env=env, input=stdin, stdin=None if stdin is not None else subprocess.DEVNULL, timeout=60)
    return p.returncode, norm(p.stdout), norm(p.stderr)
    return p.returncode, p.stdout, p.stderr
def main():
    mk()
    bad = 0
    lines = [l for l in open(sys.argv[1]) if l.strip() and not l.startswith("#")]
    for line in lines:
        stdin = None
        if "<<<" in line:
            line, s = line.split("<<<", 1); stdin = s.strip().encode().decode("unicode_escape").encode()
        else:
            stdin = None
        args = shlex.split(line)
        r = run(RG, args, stdin); g = run(GS, args, stdin)
        gerr = g[2].replace(b"gsearch", b"rg").replace(b"build of rg", b"build of ripgrep").replace(b"means rg probably", b"means ripgrep probably")
        if r[1] != g[1] and sorted(r[1].split(b"\n")) == sorted(g[1].split(b"\n")) and os.environ.get("ORDER") is None:
            g = (g[0], r[1], g[2])
        if r[0] != g[0] or r[1] != g[1] or r[2] != gerr:
            bad += 1
            print(f"=== {line.strip()}")
            if r[0] != g[0]: print(f"  exit rg={r[0]} gs={g[0]}")
            if r[1] != g[1]: print(f"  out rg={r[1][:300]!r}\n      gs={g[1][:300]!r}")
            if r[2] != gerr: print(f"  err rg={r[2][:400]!r}\n      gs={gerr[:400]!r}")
    print(f"{bad} of {len(lines)} differ")
main()
