#!/usr/bin/env python3
"""Compare gsearch with ripgrep flag by flag.

Usage: scripts/compare-rg.py [-v] CASES.txt...   (cases in scripts/rg-cases/)

Each case is one shell-quoted argument list (`<<< text` feeds stdin); it runs
with ripgrep and gsearch in a small fixed tree (a git repository with ignore
files, a hidden file, CRLF and binary files) and the cases whose stdout,
stderr (gsearch's name read as ripgrep's) or exit status differ are printed.
Timings are masked; the lines of a parallel walk are compared as a set
(ORDER=1, or `!order` in a file, compares them in order). RG, GS and ENGINE
(gsearch's engine, default cpu) choose the binaries and engine; TREE the
fixed tree's directory; PREFIX arguments go before every case's (ripgrep's
own tests run each command with `--path-separator /`). -v prints every case with ripgrep's output.

A case file may build its own trees with directives, each on its own line:
  !tree            a fresh empty directory for the cases that follow
  !file PATH TEXT  writes PATH (TEXT with escapes: \\n \\t \\r \\\\ \\xNN)
  !sh COMMAND      runs a shell command in the tree (git init, mkdir, touch)
  !cd DIR          the following cases run in DIR (relative to the tree)
  !env K=V         sets K for both programs in the following cases
  !order           compares the following cases' lines in order
Cases before the first `!tree` run in the fixed tree."""
import os, re, shlex, shutil, subprocess, sys, tempfile
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
def run(prog, args, stdin, cwd, extra_env):
    env = {k: v for k, v in os.environ.items() if not k.startswith(("RIPGREP", "GSEARCH"))}
    env.update(extra_env)
    if prog == GS: env["GSEARCH_ENGINE"] = os.environ.get("ENGINE", "cpu")
    p = subprocess.run([prog] + args, cwd=cwd, capture_output=True, env=env, input=stdin, stdin=None if stdin is not None else subprocess.DEVNULL, timeout=60)
    return p.returncode, norm(p.stdout), norm(p.stderr)
def unescape(text):
    """\\n \\t \\r \\\\ and \\xNN as bytes; any other backslash stays."""
    esc = {"n": b"\n", "t": b"\t", "r": b"\r", "\\": b"\\"}
    return re.sub(rb"\\(x[0-9a-fA-F]{2}|[ntr\\])", lambda m: esc.get(m.group(1).decode()) or bytes([int(m.group(1)[1:], 16)]), text.encode())
class State:
    def __init__(self):
        self.root = TREE; self.cwd = TREE; self.env = {}; self.order = os.environ.get("ORDER") is not None
        self.temps = []
    def directive(self, line):
        word, _, rest = line[1:].rstrip("\n").partition(" ")
        if word == "tree":
            self.root = tempfile.mkdtemp(prefix="gsearch-rgcase-"); self.temps.append(self.root)
            self.cwd = self.root; self.env = {}
        elif word == "file":
            path, _, text = rest.partition(" ")
            full = os.path.join(self.root, path)
            os.makedirs(os.path.dirname(full), exist_ok=True)
            with open(full, "wb") as f: f.write(unescape(text))
        elif word == "sh":
            subprocess.run(rest, shell=True, cwd=self.root, check=True)
        elif word == "cd":
            self.cwd = os.path.join(self.root, rest)
        elif word == "env":
            k, _, v = rest.partition("="); self.env[k] = v.replace("$TREE", self.root)
        elif word == "order":
            self.order = True
        else:
            raise SystemExit(f"unknown directive {line!r}")
def case(st, line, verbose):
    stdin = None
    if "<<<" in line:
        line, s = line.split("<<<", 1); stdin = unescape(s.strip())
    args = shlex.split(os.environ.get("PREFIX", "")) + shlex.split(line)
    r = run(RG, args, stdin, st.cwd, st.env); g = run(GS, args, stdin, st.cwd, st.env)
    gerr = g[2].replace(b"gsearch", b"rg").replace(b"build of rg", b"build of ripgrep").replace(b"means rg probably", b"means ripgrep probably").replace(b"rg requires at least", b"ripgrep requires at least")
    # gsearch's engine lines after ripgrep's --stats block (README: a difference).
    if g[1].startswith(r[1]) and r[1].endswith(b" seconds total\n") and b"\nengine: " in b"\n" + g[1][len(r[1]):]:
        g = (g[0], r[1], g[2])
    # A parallel walk's lines (or NUL-ended paths) in any order.
    if r[1] != g[1] and sorted(re.split(b"[\n\0]", r[1])) == sorted(re.split(b"[\n\0]", g[1])) and not st.order:
        g = (g[0], r[1], g[2])
    if verbose:
        print(f"--- {line.strip()}\n  rg exit={r[0]} out={r[1][:300]!r} err={r[2][:200]!r}")
    if r[0] != g[0] or r[1] != g[1] or r[2] != gerr:
        print(f"=== {line.strip()}  [{os.path.relpath(st.cwd, st.root)} in {st.root}]")
        if r[0] != g[0]: print(f"  exit rg={r[0]} gs={g[0]}")
        if r[1] != g[1]: print(f"  out rg={r[1][:600]!r}\n      gs={g[1][:600]!r}")
        if r[2] != gerr: print(f"  err rg={r[2][:400]!r}\n      gs={gerr[:400]!r}")
        return 1
    return 0
def main():
    mk()
    verbose = "-v" in sys.argv[1:]
    bad = total = 0
    for name in [a for a in sys.argv[1:] if a != "-v"]:
        st = State()
        for line in open(name):
            if not line.strip() or line.startswith("#"):
                continue
            if line.startswith("!"):
                st.directive(line); continue
            total += 1
            bad += case(st, line, verbose)
        if os.environ.get("KEEP") is None:
            for t in st.temps: shutil.rmtree(t, ignore_errors=True)
    print(f"{bad} of {total} differ")
main()
