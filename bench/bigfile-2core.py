#!/usr/bin/env python3
"""One big file on this machine's cores (issue 20, item 4): rg and gsearch
interleaved (rg, gsearch, rg, ...) on the same searches of one page-cached file
(scripts/make-bigfile, about 100 MB of C), WARMUP (default 2) untimed runs each,
then RUNS (default 15) timed runs. Every run's output goes to a pipe that this
script reads in 1 MiB blocks (as `| wc -l` would) and hashes: the tools must agree.
The `| head -1` row reads one line, closes the pipe and times until the process
has exited (its exit status and stderr are shown too). Peak RSS: one more run
of each under /usr/bin/time -f %M (wait4(2) on a child of this script would
report at least this script's own RSS, which a child keeps across exec), else
wait4's figure. Prints a markdown table. To measure on N quiet cores of a
bigger machine: `taskset -c 0,1 bench/bigfile-2core.py` (the cores are counted
from the affinity mask; gsearch counts them the same way).

The rows: the plain forms gsearch writes itself (`-c`, `-n`), the forms ripgrep's
printer writes (lines without `-n` as when piped, `-o`, context, `--json`), PCRE2
(`-P`: RG must then be a ripgrep built with PCRE2; ROWS=plain leaves these out), and
a rule set (`-f RULES`, default bench/rules/rules-200.txt; not in the default ROWS:
on a file of several GB it is the work `auto` gives the device and CPU together,
and ripgrep takes minutes on it, so RG=none leaves ripgrep out and GSEARCH_BASE is
the column compared against), a word list (`-F -f WORDS`: 100,000 words go to the
device engine alone on a file of several GB) and the device engine on one literal
(`--engine opencl`, ROWS=opencl; ripgrep runs the same search without the flag).

Usage: bench/bigfile-2core.py [FILE]
  FILE  default /var/tmp/gsearch-corpus/c-100m.txt (scripts/make-bigfile makes it)
Environment: RG (default /work/rg-install/bin/rg, else rg on PATH),
  GSEARCH (default target/release/gsearch, else $CARGO_TARGET_DIR/release/gsearch),
  PAUSE (seconds slept before each run, default 0: a device run's driver teardown,
  left to a child process, can otherwise overlap the next run),
  GSEARCH_BASE (a second gsearch build, an A/B column), GSEARCH_CPU=1 (a column
  of GSEARCH with `--engine cpu`: the CPU engine alone), RUNS, WARMUP, ROWS (plain,
  printed, pcre2, rules, numbered (the rule set's `-n` rows), words, opencl, json
  (`--json`, whose match messages gsearch writes, and with context, which ripgrep's
  printer writes): a
  comma-separated choice; default
  plain,printed,pcre2), RULES, WORDS."""
import hashlib
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

if "--help" in sys.argv or "-h" in sys.argv:
    print(__doc__)
    sys.exit(0)

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
FILE = sys.argv[1] if len(sys.argv) > 1 else "/var/tmp/gsearch-corpus/c-100m.txt"
RUNS = int(os.environ.get("RUNS", "15"))
RULES = os.environ.get("RULES", os.path.join(ROOT, "bench", "rules", "rules-200.txt"))
RULE_NAME = os.path.basename(RULES)
WORDS = os.environ.get("WORDS", "words.txt")
WORD_NAME = os.path.basename(WORDS)
WARMUP = int(os.environ.get("WARMUP", "2"))
PAUSE = float(os.environ.get("PAUSE", "0"))


def find_gsearch():
    if os.environ.get("GSEARCH"):
        return os.environ["GSEARCH"]
    target = os.environ.get("CARGO_TARGET_DIR", os.path.join(ROOT, "target"))
    return os.path.join(target, "release", "gsearch")


TOOLS = {
    "rg": os.environ.get("RG")
    or ("/work/rg-install/bin/rg" if os.path.exists("/work/rg-install/bin/rg") else shutil.which("rg")),
    "gsearch": find_gsearch(),
}
if TOOLS["rg"] == "none":
    del TOOLS["rg"]
if os.environ.get("GSEARCH_BASE"):
    TOOLS["base"] = os.environ["GSEARCH_BASE"]
if os.environ.get("GSEARCH_CPU") == "1":
    TOOLS["cpu"] = TOOLS["gsearch"]
ROWS = {
    "plain": [
        ("-c struct", ["-c", "struct"], False),
        ("-c e", ["-c", "e"], False),
        ("--count-matches e", ["--count-matches", "e"], False),
        ("-n struct", ["-n", "struct"], False),
        ("-n e", ["-n", "e"], False),
        ("-n e | head -1", ["-n", "e"], True),
    ],
    "printed": [
        ("e", ["e"], False),
        ("e | head -1", ["e"], True),
        ("-o -w int", ["-o", "-w", "int"], False),
        ("-o '\\w+_\\w+' | head -1", ["-o", r"\w+_\w+"], True),
        ("-C1 struct", ["-C1", "struct"], False),
        ("-b --column struct", ["-b", "--column", "struct"], False),
        ("--json struct", ["--json", "struct"], False),
        ("-c -v e", ["-c", "-v", "e"], False),
    ],
    "pcre2": [
        ("-P -c '(?<=struct )\\w+'", ["-P", "-c", r"(?<=struct )\w+"], False),
        ("-P -n '(?<=struct )\\w+'", ["-P", "-n", r"(?<=struct )\w+"], False),
        ("-P -n '\\b(\\w+) = \\1\\b' | head -1", ["-P", "-n", r"\b(\w+) = \1\b"], True),
        ("-P -o '(?<=struct )\\w+'", ["-P", "-o", r"(?<=struct )\w+"], False),
    ],
    "words": [
        (f"-F -f {WORD_NAME}", ["-F", "-f", WORDS], False),
        (f"-F -f {WORD_NAME} | head -1", ["-F", "-f", WORDS], True),
        (f"-c -F -f {WORD_NAME}", ["-c", "-F", "-f", WORDS], False),
        (f"-n -F -f {WORD_NAME}", ["-n", "-F", "-f", WORDS], False),
        (f"-n -F -f {WORD_NAME} | head -1", ["-n", "-F", "-f", WORDS], True),
    ],
    "opencl": [
        ("--engine opencl e", ["--engine", "opencl", "e"], False),
        ("--engine opencl e | head -1", ["--engine", "opencl", "e"], True),
        ("--engine opencl -o struct", ["--engine", "opencl", "-o", "struct"], False),
        ("--engine opencl -c e", ["--engine", "opencl", "-c", "e"], False),
    ],
    "rules": [
        (f"-f {RULE_NAME}", ["-f", RULES], False),
        (f"-f {RULE_NAME} | head -1", ["-f", RULES], True),
        (f"-o -f {RULE_NAME}", ["-o", "-f", RULES], False),
        (f"-n -f {RULE_NAME}", ["-n", "-f", RULES], False),
        (f"-c -f {RULE_NAME}", ["-c", "-f", RULES], False),
    ],
    "json": [
        ("--json struct", ["--json", "struct"], False),
        ("--json -w int", ["--json", "-w", "int"], False),
        ("--json e", ["--json", "e"], False),
        ("--json e | head -1", ["--json", "e"], True),
        ("--json -N -i error", ["--json", "-N", "-i", "error"], False),
        ("--json -C1 struct", ["--json", "-C1", "struct"], False),
    ],
    "numbered": [
        (f"-n -f {RULE_NAME}", ["-n", "-f", RULES], False),
        (f"-n -f {RULE_NAME} | head -1", ["-n", "-f", RULES], True),
    ],
}
CASES = [c for k in os.environ.get("ROWS", "plain,printed,pcre2").split(",") for c in ROWS[k]]


TIMES = re.compile(rb'"(secs|nanos)":\d+|"human":"[0-9.]+s"')


def run(argv, first_line_only):
    """(seconds, peak RSS KiB, output digest, exit status, stderr). `--json`'s
    timings are masked before hashing."""
    time.sleep(PAUSE)
    start = time.perf_counter()
    p = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    digest = hashlib.sha256()
    if first_line_only:
        digest.update(p.stdout.readline())
        p.stdout.close()
    else:
        fd = p.stdout.fileno()
        json, tail = "--json" in argv, b""
        while block := os.read(fd, 1 << 20):
            if json:
                # Whole lines only, so no timing is cut in two.
                whole, nl, tail = (tail + block).rpartition(b"\n")
                block = TIMES.sub(b"T", whole + nl)
            digest.update(block)
        digest.update(TIMES.sub(b"T", tail))
        p.stdout.close()
    _, status, usage = os.wait4(p.pid, 0)
    took = time.perf_counter() - start
    err = p.stderr.read().decode(errors="replace").strip()
    p.returncode = os.waitstatus_to_exitcode(status)
    return took, usage.ru_maxrss, digest.hexdigest(), p.returncode, err


def for_tool(name, args):
    """`args` as `name` takes them: ripgrep has no `--engine opencl`; the
    `cpu` column is gsearch's CPU engine."""
    if name in ("rg", "cpu") and args[:2] == ["--engine", "opencl"]:
        args = args[2:]
    return ["--engine", "cpu"] + args if name == "cpu" else args


def case(args, head):
    times = {n: [] for n in TOOLS}
    rss = {n: [] for n in TOOLS}
    seen = {n: set() for n in TOOLS}
    notes = {}
    for i in range(WARMUP + RUNS):
        for name, binary in TOOLS.items():
            t, m, digest, code, err = run([binary] + for_tool(name, args) + [FILE], head)
            seen[name].add(digest)
            notes[name] = f"exit {code}" + (f", stderr {err!r}" if err else "")
            if i >= WARMUP:
                times[name].append(t)
                rss[name].append(m)
    agree = len(set().union(*seen.values())) == 1
    if os.path.exists("/usr/bin/time"):
        rss = {n: [peak_rss(b, for_tool(n, args), head)] for n, b in TOOLS.items()}
    return times, rss, agree, notes


def peak_rss(binary, args, head):
    """Peak RSS in KiB of one run under GNU time, output read as in `run`."""
    with tempfile.NamedTemporaryFile("r") as f:
        run(["/usr/bin/time", "-f", "%M", "-o", f.name, binary] + args + [FILE], head)
        return int(f.read().split()[-1])


def main():
    size = os.path.getsize(FILE)
    commit = subprocess.run(["git", "-C", ROOT, "rev-parse", "--short", "HEAD"],
                            capture_output=True, text=True).stdout.strip()
    version = "no ripgrep"
    if "rg" in TOOLS:
        version = subprocess.run([TOOLS["rg"], "--version"], capture_output=True,
                                 text=True).stdout.splitlines()[0]
    print(f"File: {FILE}, {size / 1e6:.1f} MB, page cache warm; {len(os.sched_getaffinity(0))} cores; "
          f"gsearch {commit}, {version}; median of {RUNS} interleaved runs after {WARMUP} warm-up.\n")
    # Each tool's time against ripgrep's, or (without ripgrep) gsearch's against base's.
    ref = "rg" if "rg" in TOOLS else "base" if "base" in TOOLS else None
    ratios = [n for n in TOOLS if ref and n != ref]
    print("| search | " + " | ".join(TOOLS) + " | " + "".join(f"{n} / {ref} time | " for n in ratios)
          + "".join(f"{n} RSS | " for n in TOOLS) + "agree | exit (" + "; ".join(TOOLS) + ") |")
    print("|---" * (3 + 2 * len(TOOLS) + len(ratios)) + "|")
    for label, args, head in CASES:
        times, rss, agree, notes = case(args, head)
        med = {n: statistics.median(v) for n, v in times.items()}
        peak = {n: max(v) / 1024 for n, v in rss.items()}
        exits = "; ".join(notes[n] for n in TOOLS) if head else ""
        cells = [f"`{label}`"] + [f"{med[n] * 1e3:.1f} ms" for n in TOOLS]
        cells += [f"{med[n] / med[ref]:.2f}x" for n in ratios]
        cells += [f"{peak[n]:.0f} MiB" for n in TOOLS]
        cells += ["yes" if agree else "NO", exits]
        print("| " + " | ".join(cells) + " |", flush=True)

main()
