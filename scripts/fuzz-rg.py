#!/usr/bin/env python3
"""Random differential runs of gsearch against ripgrep: random small trees and
command lines, each run by ripgrep once and by gsearch in several engine
settings; any difference in stdout (JSON timings masked) or exit status is a
failure, saved with its tree under OUT/fails/sSEED (info.json, rg.out,
SETTING.out).

Usage: scripts/fuzz-rg.py [--device NAME] [--seconds S] [--jobs N] [--seed K] [--out DIR]
                          [--pcre2 RATE]

The cases: matching and printing flags (-w -x -i -S -F -U -v -o -c -l -n -b,
--column --json --vimgrep --passthru, context, -m, -r with groups, -M, --crlf,
--null-data, -a, --trim, --mmap...), patterns from the text, regexes, word
lists of 50-500 literals, non-ASCII case folding, and rule sets of 3-40
patterns from -f (with -e before or after it); the text: Unicode and Latin-1
words, invalid UTF-8, CRLF, lines opening with continuation bytes, long lines,
NUL bytes, a BOM. The settings (`--device` names the OpenCL device, default
Portable = PoCL; `nvidia` on the GPU machine): the CPU engine; the OpenCL
engine with 256- and 4096-byte batches; auto as a hybrid with 4 KiB chunks
(the first of 1,000 bytes, then doubling);
and one of: 600-byte batches with --verify, big-file chunking on the device,
big-file chunking in the hybrid. `--device none` runs the CPU engine alone
(plain and big-file chunking).

`--pcre2 RATE` runs that share of the cases with PCRE2 (`-P`, `--engine=pcre2` or
`--auto-hybrid-regex`, with look-around and backreferences among the patterns);
RG must then be a ripgrep built with PCRE2 (`cargo install ripgrep --features pcre2`).

GS and RG choose the binaries (default target/release/gsearch, rg on PATH).
"""
import argparse
import json
import os
import random
import re
import shlex
import shutil
import subprocess
import sys
import time

META = set(".+*?()|[]{}^$\\")


def settings(device):
    """{name: (environment, extra flags)} of the gsearch runs of every case, and the
    extra settings of which each case runs one."""
    if device == "none":
        return ({"cpu": ({}, ["--engine", "cpu"])},
                {"bigcpu": ({"GSEARCH_BIGFILE_MIN_BYTES": "1", "GSEARCH_SEGMENT": "300"},
                            ["--engine", "cpu"])})
    dev = {"GSEARCH_OPENCL_DEVICE": device}
    hybrid = dict(dev, GSEARCH_AUTO_MIN_BYTES="1", GSEARCH_DEVICE_STARTUP_MS="0",
                  GSEARCH_HYBRID_CHUNK="4096", GSEARCH_HYBRID_FIRST="1000")
    big = {"GSEARCH_BIGFILE_MIN_BYTES": "1", "GSEARCH_SEGMENT": "300"}
    every = {
        "cpu": ({}, ["--engine", "cpu"]),
        "ocl256": (dict(dev, GSEARCH_BATCH_BYTES="256"), ["--engine", "opencl"]),
        "ocl4096": (dict(dev, GSEARCH_BATCH_BYTES="4096"), ["--engine", "opencl"]),
        # gsearch's default engine is `auto`; saying `--engine auto` would also
        # ask for ripgrep's hybrid regex engine (PCRE2 for what the default
        # engine cannot compile), which the ripgrep run is not given.
        "hybrid": (hybrid, []),
    }
    one_of = {
        "ocl600verify": (dict(dev, GSEARCH_BATCH_BYTES="600"), ["--engine", "opencl", "--verify"]),
        "bigocl": (dict(dev, GSEARCH_BATCH_BYTES="600", **big), ["--engine", "opencl"]),
        "bighybrid": (dict(hybrid, **big), []),
    }
    return every, one_of


ASCII_WORDS = ("the quick brown fox jumps over lazy dog hello world foo bar baz qux alpha beta gamma "
               "delta error warning info debug main int return value test data file line match "
               "string char void self this that struct impl fn let mut pub use mod Foo Bar HELLO "
               "World Error TODO FIXME x y z a b ab abc abcd aa aaa ing ed s k K i I").split()
UNI_WORDS = ["ẞ", "Kelvin", "ΣΣ", "σς", "µ", "ſtraße", "é", "café", "naïve", "ß", "straße", "STRASSE", "Σ", "σ", "ς", "ΣΊΣΥΦΟΣ", "σίσυφος",
             "ÿ", "Ÿ", "ſ", "K", "Å", "å", "Ω", "ω", "日本語", "€", "ǅ", "İ", "ı", "ﬀ", "Straße"]
INVALID = [b"\xff", b"\xc3", b"\x80", b"\xe2\x82", b"\xfe\xff", b"\xc3(", b"\xed\xa0\x80", b"\xf0\x9f"]
LATIN1_WORDS = [b"caf\xe9", b"\xe9t\xe9", b"na\xefve", b"\xa9", b"\xb0C", b"\xbfqu\xe9", b"\xa1hola", b"stra\xdfe",
                b"\xb5s", b"\x80", b"\x85x", b"\x9fab", b"\xbb", b"\xab", b"Gr\xfc\xdfe", b"\xc9t\xc9", b"\xe0 la", b"\xa3100"]
CASEFOLD_LITS = ["ß", "ẞ", "ss", "SS", "ſ", "s", "S", "K", "k", "K", "Σ", "σ", "ς", "ΣΣ", "σς", "straße", "STRASSE",
                 "ſtraße", "Kelvin", "KELVIN", "kelvin", "ΣΊΣΥΦΟΣ", "σίσυφος", "ﬀ", "ǅ", "ǆ", "Ǆ", "İ", "ı", "ÿ", "Ÿ",
                 "ω", "Ω", "Ω", "Å", "å", "Å", "µ", "μ", "Μ", "ΐ", "ͅ", "ι", "Ι", "ᾳ", "ſK", "ßK"]
CAPTURE_TEMPLATES = [r"(\w+) (\w+)", r"(\w)(\w*)", r"(fo+)|(ba.)", r"([a-z]+)(\d+)?", r"(?P<w>\w+)\s*(?P<x>\W)?",
                     r"(\S+)\s+(\S+)", r"(a|b)+(c)?", r"()(\w)", r"(x?)", r"(é|ß)(\w)?", r"^(\s*)(\S+)", r"(\d+)\.(\d*)",
                     r"(?i)(k)(\w*)", r"(.)$", r"(\b)(\w)"]
REPLACEMENTS = ["$1", "[$1]", "$2$1", "${1}_${2}", "<$0>", "$1$1", "${w}", "$w-$x", "$3", "$$1", "", "X", "${1}z", "$1\t$2", "$0$0"]
PUNCT = list(".,;:!?-_()[]{}<>/\\'\"#@$%^&*+=|~`")


def rword(r):
    x = r.random()
    if x < 0.6:
        w = r.choice(ASCII_WORDS)
    elif x < 0.75:
        w = str(r.randint(0, 10 ** r.randint(1, 6)))
    elif x < 0.9:
        w = r.choice(UNI_WORDS)
    else:
        w = "".join(r.choice(PUNCT) for _ in range(r.randint(1, 3)))
    if r.random() < 0.05:
        w = w.upper()
    elif r.random() < 0.05:
        w = w.capitalize()
    b = w.encode()
    if LATIN1_MODE[0] and r.random() < 0.25:
        b = r.choice(LATIN1_WORDS)
    if r.random() < 0.03:
        b = b + r.choice(INVALID)
    if r.random() < 0.02:
        b = r.choice(INVALID) + b
    return b


LATIN1_MODE = [False]


def rline(r, long=False):
    n = r.randint(0, 12) if not long else r.randint(500, 4000)
    parts = []
    for _ in range(n):
        parts.append(rword(r))
        sep = r.random()
        if sep < 0.8:
            parts.append(b" ")
        elif sep < 0.9:
            parts.append(b"")
        elif sep < 0.95:
            parts.append(b"\t")
        else:
            parts.append(r.choice([b", ", b"; ", b"  ", b"."]))
    line = b"".join(parts)
    if r.random() < 0.1:
        line = r.choice([b" ", b"  ", b"\t", b" \t "]) + line
    if r.random() < 0.02:
        line = line + b"\r"  # stray CR
    if LATIN1_MODE[0] and r.random() < 0.3:
        line = bytes([r.randint(0x80, 0xbf)]) + r.choice([b"", b"a", b"ab", b"foo", b" ", b"x y", b"\xe9"]) + line
    return line


CRLF_FOCUS = [False]


def rfile(r):
    target = r.choice([0, 10, 100, 500, 2000, 8000, 20000, 50000])
    target = r.randint(0, target)
    crlf_mode = r.random()
    if CRLF_FOCUS[0]:
        crlf_mode = 0.0
    lines = []
    size = 0
    while size < target:
        if r.random() < 0.01:
            l = rline(r, long=True)
        elif r.random() < 0.08:
            l = b""
        else:
            l = rline(r)
        if crlf_mode < 0.15 or (crlf_mode < 0.25 and r.random() < 0.5):
            l += b"\r\n"
        else:
            l += b"\n"
        lines.append(l)
        size += len(l)
    data = b"".join(lines)
    if data and r.random() < 0.3:
        data = data.rstrip(b"\n").rstrip(b"\r")
        if r.random() < 0.3:
            data += b"\r"
    if data and r.random() < 0.04:
        p = r.randint(0, len(data))
        data = data[:p] + b"\x00" + data[p:]
    if r.random() < 0.02:
        data = b"\xef\xbb\xbf" + data
    return data


def regex_escape(s):
    return re.sub(r"([\\.+*?()|\[\]{}^$#&\-~])", r"\\\1", s)


def text_sample(r, corpus):
    """random substring of the corpus text, decoded lossy"""
    datas = [d for d in corpus.values() if d]
    if not datas:
        return "foo"
    d = r.choice(datas)
    if r.random() < 0.6:
        words = re.findall(rb"[^\s\x00]+", d[:60000])
        if words:
            w = r.choice(words)
            try:
                return w.decode()
            except UnicodeDecodeError:
                return w.decode("utf-8", "ignore") or "foo"
    p = r.randint(0, max(0, len(d) - 1))
    s = d[p:p + r.randint(1, 12)]
    s = s.split(b"\n")[0].replace(b"\r", b"").replace(b"\x00", b"")
    s = s.decode("utf-8", "ignore")
    return s or "foo"


REGEX_TEMPLATES = [
    r"\w+", r"[a-z]+ing", r"foo|bar", r"^\w+", r"\w+$", r"\bfoo\b", r"(?i)hello", r"\d{2,}",
    r"[^\x00-\x7f]", r".", r"é+", r"a.*b", r"x?", r"", r"\s+$", r"\p{Greek}+", r"[[:upper:]]+",
    r"(\w+) (\w+)", r"([a-z])[a-z]", r"^$", r"^", r"$", r"\bß", r"(?i)straße",
    r"(?i)σ", r"[ΣσΣ]", r"\W+", r"\B\w", r"(?-u:\xff)", r"(?-u:\w)+", r"[0-9]+\.[0-9]*", r"^\s+",
    r"fo{1,3}", r"(?i)k", r"[kK]", r"\p{L}+", r"(?m)^foo", r"(?s).", r"\S+\s\S+", r"[a-c][^a-c]",
    r"error|warning|info", r"(?i)(error|todo|fixme)", r"\btest\w*", r"\w*x\b", r"[[:punct:]]+",
    r"(a|b)+", r"ab?c?", r"\x20\x20", r"\t", r"\r", r"\r$", r"[^\n]*", r"\.\s", r"\$", r"(?x) foo | bar ",
    r"日本", r"€\d", r"\u{3a3}", r"(?i)Ω", r"\b\d+\b", r"\b", r"\w\b", r"[é-ÿ]", r"ı|İ", r"(?i)ǆ",
    r"a{0}", r"(?:)", r"^.{3}$", r".{60,}", r"(?U)a.*b", r"(?P<n>\w)z",
]
MULTI_TEMPLATES = [r"\n", r"foo\nbar", r"\w+\n\w+", r"$\n^", r"\n\n", r"\r\n", r"(?s)a.*?b", r"[^a]\n",
                   r"\n\s*\n", r"^\w+\n", r"[\s\S]{5}", r"\w$\n"]


# Syntax only PCRE2 has (look-around, backreferences, possessive and atomic
# groups, \K), drawn when a case runs PCRE2 (`--pcre2 RATE`).
PCRE2_TEMPLATES = [r"(?<=a)\w", r"(\w)\1", r"\b(\w+)\s+\1\b", r"o(?!o)", r"(?<!\w)f\w*", r"(?=\w*e)\w{3}",
                   r"\w+(?=\.)", r"(?<=é)\w", r"(a|b)\1*", r"\p{L}{3}(?!\p{L})", r"(?>a+)b", r"x*+y",
                   r"fo\Ko", r"(?<=\s)\S+$", r"^(?!.*e).+", r"(?i)(?<=k)\w", r"(.)(?=\1)", r"(?s)a.(?=b)"]
PCRE2_MODE = [False]
PCRE2_RATE = [0.0]


def rregex(r, corpus, multiline=False):
    if PCRE2_MODE[0] and r.random() < 0.4:
        return r.choice(PCRE2_TEMPLATES)
    x = r.random()
    if x < 0.35:
        s = regex_escape(text_sample(r, corpus))
        if r.random() < 0.2:
            s = "(?i)" + s
        return s
    if x < 0.45:
        a = regex_escape(text_sample(r, corpus))
        b = regex_escape(text_sample(r, corpus))
        return r.choice([a + "|" + b, "\\b" + a, a + "$", "^" + a, a + ".*" + b, "(" + a + ")", a + "\\b",
                         "(?:" + a + "|" + b + ")+", "[" + a[:1].replace("]", "") + "]"]) if a else "a"
    if multiline and x < 0.6:
        return r.choice(MULTI_TEMPLATES)
    if x < 0.55:
        return r.choice(CAPTURE_TEMPLATES)
    if x < 0.62:
        return ("(?i)" if r.random() < 0.5 else "") + regex_escape(r.choice(CASEFOLD_LITS))
    return r.choice(REGEX_TEMPLATES)


def gen_case(r, case_dir):
    os.makedirs(case_dir + "/d", exist_ok=True)
    LATIN1_MODE[0] = r.random() < 0.15
    CRLF_FOCUS[0] = r.random() < 0.12
    nfiles = r.choice([1, 1, 2, 3, 4])
    corpus = {}
    for i in range(nfiles):
        name = r.choice(["a", "b", "c", "f", "x", "sub/y", "Z"]) + str(i) + r.choice([".txt", ".rs", "", ".log"])
        corpus[name] = rfile(r)
    for name, data in corpus.items():
        p = os.path.join(case_dir, "d", name)
        os.makedirs(os.path.dirname(p), exist_ok=True)
        with open(p, "wb") as f:
            f.write(data)

    flags = []
    multiline = r.random() < 0.12
    if multiline:
        flags.append("-U")
        if r.random() < 0.4:
            flags.append("--multiline-dotall")
    fixed = r.random() < 0.12
    # patterns
    pk = r.random()
    patfile = None
    pat_args = []
    if pk < 0.55:
        p = text_sample(r, corpus) if fixed else rregex(r, corpus, multiline)
        if p.startswith("-") or r.random() < 0.3:
            pat_args = ["-e", p]
        else:
            pat_args = [p]
    elif pk < 0.65:
        for _ in range(r.randint(2, 4)):
            pat_args += ["-e", text_sample(r, corpus) if fixed else rregex(r, corpus, multiline)]
    elif pk < 0.72:
        # big -F word list (50-500 literals)
        n = r.randint(50, 500)
        pats = []
        for _ in range(n):
            y = r.random()
            if y < 0.4:
                s = text_sample(r, corpus)
            elif y < 0.7:
                s = r.choice(ASCII_WORDS + UNI_WORDS)
            elif y < 0.85:
                s = r.choice(CASEFOLD_LITS)
            else:
                s = "".join(r.choice("abcdefghijklmnopqrstuvwxyz0123456789 .-") for _ in range(r.randint(1, 8)))
            pats.append(s)
        fixed = True
        patfile = pats
    elif pk < 0.78:
        # -i with non-ASCII literals
        lits = [r.choice(CASEFOLD_LITS) for _ in range(r.choice([1, 1, 2, 3, 5, 20]))]
        if not fixed and r.random() < 0.5:
            lits = [regex_escape(x) for x in lits]
        else:
            fixed = True
        if len(lits) == 1 and r.random() < 0.5:
            pat_args = ["-e", lits[0]]
        else:
            patfile = lits
        flags.append(r.choice(["-i", "-i", "-S", "--ignore-case"]))
    elif pk < 0.85:
        # word list
        n = r.choice([2, 3, 5, 10, 30, 100, 300])
        pats = []
        for _ in range(n):
            s = text_sample(r, corpus)
            if r.random() < 0.5:
                s = r.choice(ASCII_WORDS + UNI_WORDS)
            pats.append(s)
        if not fixed and r.random() < 0.7:
            fixed = True
        if not fixed:
            pats = [regex_escape(p) for p in pats]
        patfile = pats
    else:
        n = r.randint(5, 60)
        patfile = [rregex(r, corpus, multiline) for _ in range(n)]
        fixed = False
    if patfile is not None:
        if r.random() < 0.05:
            patfile.append("")
        with open(os.path.join(case_dir, "pats"), "w") as f:
            f.write("\n".join(patfile) + ("\n" if r.random() < 0.8 else ""))
        pat_args = ["-f", "pats"]
    if fixed:
        flags.append("-F")

    def maybe(p, *f):
        if r.random() < p:
            flags.extend(f)

    if CRLF_FOCUS[0] and r.random() < 0.7:
        flags.append("--crlf")
        for f, p in (("-w", 0.3), ("-x", 0.2), ("-c", 0.15), ("-o", 0.25), ("-n", 0.4)):
            maybe(p, f)

    mode = r.random()
    if mode < 0.08:
        flags.append("-c")
    elif mode < 0.14:
        flags.append("--count-matches")
    elif mode < 0.19:
        flags.append("-l")
    elif mode < 0.22:
        flags.append("--files-without-match")
    elif mode < 0.30:
        flags.append("--json")
    elif mode < 0.36:
        flags.append("--vimgrep")
    elif mode < 0.43:
        flags.append("--passthru")
    if mode < 0.14 and r.random() < 0.2:
        flags.append("--include-zero")
    maybe(0.4, "-n")
    maybe(0.05, "-N")
    maybe(0.15, "-o")
    maybe(0.12, "-v")
    maybe(0.15, "-w")
    maybe(0.07, "-x")
    ci = r.random()
    if ci < 0.15:
        flags.append("-i")
    elif ci < 0.22:
        flags.append("-S")
    if r.random() < 0.2:
        c = r.choice(["-A", "-B", "-C"])
        flags += [c, str(r.choice([0, 1, 2, 3, 5]))]
    if r.random() < 0.1:
        flags += ["-A", str(r.randint(0, 3)), "-B", str(r.randint(0, 3))]
    maybe(0.12, "-m", str(r.choice([0, 1, 2, 3, 10])))
    maybe(0.12, "--column")
    maybe(0.1, "-b")
    maybe(0.08, "-H")
    maybe(0.06, "--no-filename")
    maybe(0.1, "--heading")
    maybe(0.05, "--no-heading")
    maybe(0.15, "-a")
    if r.random() < 0.04:
        flags += ["--null-data"]
    maybe(0.05, "-z")
    maybe(0.06, "--null")
    maybe(0.07, "--trim")
    maybe(0.05, "--crlf")
    if r.random() < 0.14:
        flags += ["-r", r.choice(["X", "$0", "[$1]", "", "${1}z", "<$0>", "$$"] + REPLACEMENTS)]
    if r.random() < 0.12:
        flags += ["-M", str(r.choice([0, 1, 3, 5, 20, 80, 200]))]
        maybe(0.4, "--max-columns-preview")
    if r.random() < 0.12:
        flags += ["--color", r.choice(["always", "ansi"])]
        if r.random() < 0.5:
            flags += ["--colors", r.choice(["match:fg:green", "path:none", "line:style:bold",
                                            "match:bg:0x4,0x5,0x6", "column:fg:red",
                                            "highlight:bg:yellow", "match:none"])]
        maybe(0.2, "--hyperlink-format", r.choice(["default", "file://{path}#{line}", "none"]))
    if r.random() < 0.04:
        flags += ["--field-match-separator", r.choice(["=", "", "::"])]
    if r.random() < 0.04:
        flags += ["--field-context-separator", r.choice(["~", ""])]
    if r.random() < 0.04:
        flags += ["--path-separator", r.choice(["/", "\\"])]
    maybe(0.03, "--stop-on-nonmatch")
    maybe(0.03, "--binary")
    maybe(0.03, "-q")
    if r.random() < 0.04:
        flags += ["--context-separator", r.choice(["XX", "", "--"])]
    maybe(0.03, "--no-context-separator")
    maybe(0.03, "--no-unicode")
    maybe(0.1, "--no-mmap")
    maybe(0.05, "--mmap")
    # path selection
    names = sorted(corpus)
    pk = r.random()
    if pk < 0.45:
        paths = ["d"]
        flags += ["--sort", "path"]
    elif pk < 0.5:
        paths = ["d"]
        flags += ["-j1", "--sort", "path"]
    elif pk < 0.85:
        paths = ["d/" + r.choice(names)]
        maybe(0.2, "-j1")
    else:
        paths = ["d/" + n for n in names]
        flags += ["--sort", "path"]
    args = flags + pat_args + paths
    return args, corpus


LATIN1_SENT = [b"Le caf\xe9 est tr\xe8s bon", b"\xc0 bient\xf4t, na\xefve fa\xe7ade", b"Gr\xfc\xdfe aus M\xfcnchen",
               b"\xbfQu\xe9 tal? \xa1Hola!", b"25\xb0C \xb1 2", b"\xa9 2024 \xae", b"\xb5s timer", b"\xbd cup \xbc",
               b"se\xf1or foo", b"\xe9t\xe9 bar", b"word\xa0nbsp test", b"\xab quote \xbb", b"\xdfe ss"]
RULE_EXTRA_PATS = [r"\w+", r"\b\w", r"\w\b", r"[^\x00-\x7f]", r".", r"\W", r"^.", r"\S+", r"\p{L}+", r"[a-z]+",
                   r"(?-u:\xe9)", r"(?-u:[\x80-\xbf])", r"(?-u:\xb0)C", r"(?-u:\w)+", r"é", r"ß", r"µs", r"-foo", r"foo-",
                   r"\d+", r"[[:alpha:]]+", r"(?i)caf", r"caf", r"t\w*", r"\w*e", r"^\s*\w+", r"\w+$", r"x y", r"a|b",
                   r"(foo|bar)", r"[éè]", r"\.", r"\bfoo\b", r"(?u:\w)", r"(?i)[a-f]+", r"o{2}", r"[^ ]+", r"ab?"]


def rline_rules(r):
    x = r.random()
    if x < 0.25:
        line = r.choice(LATIN1_SENT)
        if r.random() < 0.5:
            line = line + b" " + rline(r)
    else:
        line = rline(r)
    if r.random() < CONT_RATE[0]:
        line = bytes([r.randint(0x80, 0xbf)]) + r.choice([b"", b"a", b"ab", b"foo", b" ", b"x y", b"\xe9", b"-", b"1",
                                                          b"\xbf", b" foo", b"caf\xe9", b"\xc3\xa9"]) + line
    return line


CONT_RATE = [0.3]


def gen_rules_case(r, case_dir):
    """rule sets (3-40 patterns, some regex) + -w/-i/-x/-n/-c/-o/context, latin1/cont-byte lines"""
    os.makedirs(case_dir + "/d", exist_ok=True)
    LATIN1_MODE[0] = r.random() < 0.6
    CONT_RATE[0] = r.choice([0.05, 0.2, 0.4, 0.7])
    crlf = r.random() < 0.1
    nfiles = r.choice([1, 1, 2, 3])
    corpus = {}
    for i in range(nfiles):
        name = r.choice(["a", "b", "c", "sub/y"]) + str(i) + r.choice([".txt", "", ".log"])
        target = r.randint(0, r.choice([50, 300, 1500, 6000, 20000]))
        lines, size = [], 0
        while size < target:
            l = b"" if r.random() < 0.05 else rline_rules(r)
            l += b"\r\n" if crlf and r.random() < 0.7 else b"\n"
            lines.append(l)
            size += len(l)
        data = b"".join(lines)
        if data and r.random() < 0.3:
            data = data.rstrip(b"\n").rstrip(b"\r")
        corpus[name] = data
    for name, data in corpus.items():
        p = os.path.join(case_dir, "d", name)
        os.makedirs(os.path.dirname(p), exist_ok=True)
        with open(p, "wb") as f:
            f.write(data)
    n = r.randint(3, 40)
    regex_frac = r.choice([0.1, 0.3, 0.6, 1.0])
    pats = []
    for _ in range(n):
        y = r.random()
        if y < regex_frac:
            pats.append(r.choice(RULE_EXTRA_PATS) if r.random() < 0.4 else rregex(r, corpus))
        elif y < regex_frac + (1 - regex_frac) * 0.6:
            pats.append(regex_escape(text_sample(r, corpus)))
        else:
            pats.append(regex_escape(r.choice(ASCII_WORDS + UNI_WORDS + CASEFOLD_LITS)))
    if not any(set(p) & META for p in pats):
        pats.append(r.choice(RULE_EXTRA_PATS))
    if r.random() < 0.03:
        pats.append("")
    with open(os.path.join(case_dir, "pats"), "w") as f:
        f.write("\n".join(pats) + ("\n" if r.random() < 0.8 else ""))
    flags = []

    def maybe(p, *f):
        if r.random() < p:
            flags.extend(f)

    maybe(0.6, "-w")
    maybe(0.15, "-x")
    c = r.random()
    if c < 0.3:
        flags.append("-i")
    elif c < 0.38:
        flags.append("-S")
    maybe(0.5, "-n")
    mode = r.random()
    if mode < 0.15:
        flags.append("-c")
    elif mode < 0.28:
        flags.append("--count-matches")
    elif mode < 0.33:
        flags.append("-l")
    elif mode < 0.38:
        flags.append("--json")
    elif mode < 0.42:
        flags.append("--vimgrep")
    elif mode < 0.46:
        flags.append("--passthru")
    maybe(0.25, "-o")
    maybe(0.08, "-v")
    if r.random() < 0.35:
        cf = r.choice(["-A", "-B", "-C"])
        flags += [cf, str(r.choice([0, 1, 2, 3]))]
    if r.random() < 0.1:
        flags += ["-A", str(r.randint(0, 3)), "-B", str(r.randint(0, 3))]
    maybe(0.08, "-m", str(r.choice([1, 2, 5])))
    maybe(0.12, "--column")
    maybe(0.08, "-b")
    maybe(0.2, "-a")
    maybe(0.05, "--trim")
    maybe(0.05, "-H")
    maybe(0.05, "--heading")
    maybe(0.05, "--no-unicode")
    if crlf:
        maybe(0.6, "--crlf")
    maybe(0.04, "-U")
    if r.random() < 0.07:
        flags += ["-r", r.choice(REPLACEMENTS)]
    maybe(0.04, "--no-context-separator")
    maybe(0.08, "--no-mmap")
    pat_args = ["-f", "pats"]
    if r.random() < 0.1:
        pat_args += ["-e", r.choice(RULE_EXTRA_PATS)]
        if r.random() < 0.5:
            pat_args = pat_args[2:] + pat_args[:2]
    names = sorted(corpus)
    if r.random() < 0.55:
        paths = ["d"]
        flags += ["--sort", "path"]
    else:
        paths = ["d/" + r.choice(names)]
    return flags + pat_args + paths, corpus



ELAPSED = re.compile(rb'"elapsed(_total)?":\{[^{}]*\}')


def norm(out, args):
    if "--json" in args:
        out = ELAPSED.sub(b'"elapsed":E', out)
    return out


def run(cmd, env_extra, cwd, timeout=20):
    env = {k: v for k, v in os.environ.items()
           if not k.startswith(("GSEARCH_", "RIPGREP_"))}
    env.update(env_extra)
    try:
        p = subprocess.run(cmd, cwd=cwd, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                           stdin=subprocess.DEVNULL, timeout=timeout)
        return p.returncode, p.stdout, p.stderr
    except subprocess.TimeoutExpired:
        return "TIMEOUT", b"", b""


def one_case(seed, work, tools, every, one_of, fails):
    """Runs case `seed` in `work`; the names of the settings that differed."""
    gs, rg = tools
    r = random.Random(seed)
    case_dir = os.path.join(work, "case")
    shutil.rmtree(case_dir, ignore_errors=True)
    os.makedirs(case_dir)
    rules = random.Random(seed * 7919 + 12345).random() < 0.35
    pcre2 = random.Random(seed * 104729 + 7).random()
    PCRE2_MODE[0] = pcre2 < PCRE2_RATE[0]
    args, _ = (gen_rules_case if rules else gen_case)(r, case_dir)
    if PCRE2_MODE[0]:
        args = [["-P", "--engine=pcre2", "--auto-hybrid-regex"][int(pcre2 * 1000) % 3]] + args
    rc0, out0, err0 = run([rg, "--no-config"] + args, {}, case_dir)
    out0 = norm(out0, args)
    cfgs = dict(every)
    extra = r.choice(sorted(one_of))
    cfgs[extra] = one_of[extra]
    bad = []
    for name, (env, flags) in cfgs.items():
        rc, out, err = run([gs, "--no-config"] + flags + args, env, case_dir)
        if rc != rc0 or norm(out, args) != out0:
            bad.append((name, rc, out, err))
    if bad:
        fd = os.path.join(fails, "s%d" % seed)
        shutil.rmtree(fd, ignore_errors=True)
        shutil.copytree(case_dir, fd)
        info = {"seed": seed, "args": args, "rg_rc": rc0,
                "rg_err": err0.decode("utf-8", "replace")[:2000],
                "bad": [{"setting": n, "rc": rc, "err": e.decode("utf-8", "replace")[:2000]}
                        for n, rc, _, e in bad]}
        with open(os.path.join(fd, "info.json"), "w") as f:
            json.dump(info, f, indent=1)
        with open(os.path.join(fd, "rg.out"), "wb") as f:
            f.write(out0)
        for n, _, o, _ in bad:
            with open(os.path.join(fd, n + ".out"), "wb") as f:
                f.write(o)
    return rules, list(cfgs), [b[0] for b in bad], args


def worker(job, opts, tools):
    """One process's share: cases from seed opts.seed + job * 10**6 on, for opts.seconds."""
    PCRE2_RATE[0] = opts.pcre2
    every, one_of = settings(opts.device)
    work = os.path.join(opts.out, "work%d" % job)
    fails = os.path.join(opts.out, "fails")
    os.makedirs(fails, exist_ok=True)
    counts, cases, rule_cases, failed = {}, 0, 0, 0
    t0 = time.time()
    seed = opts.seed + job * 1_000_000
    with open(os.path.join(opts.out, "log%d.txt" % job), "w") as log:
        while time.time() - t0 < opts.seconds:
            seed += 1
            rules, ran, bad, args = one_case(seed, work, tools, every, one_of, fails)
            cases += 1
            rule_cases += rules
            for n in ran:
                counts[n] = counts.get(n, 0) + 1
            if bad:
                failed += 1
                log.write("FAIL seed=%d settings=%s args=%s\n" % (seed, bad, shlex.join(args)))
                log.flush()
    shutil.rmtree(work, ignore_errors=True)
    return {"cases": cases, "rule_sets": rule_cases, "failed": failed, "runs": counts}


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--device", default="Portable")
    ap.add_argument("--seconds", type=float, default=300)
    ap.add_argument("--jobs", type=int, default=1)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--out", default="/tmp/fuzz-rg")
    ap.add_argument("--pcre2", type=float, default=0.0,
                    help="share of cases run with PCRE2 (-P, --engine=pcre2 or --auto-hybrid-regex; "
                         "RG must be built with PCRE2)")
    opts = ap.parse_args()
    PCRE2_RATE[0] = opts.pcre2
    opts.out = os.path.abspath(opts.out)
    repo = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    tools = (os.path.abspath(os.environ.get("GS", os.path.join(repo, "target/release/gsearch"))),
             os.path.abspath(os.environ.get("RG") or shutil.which("rg") or "rg"))
    os.makedirs(opts.out, exist_ok=True)
    from concurrent.futures import ProcessPoolExecutor
    with ProcessPoolExecutor(opts.jobs) as pool:
        parts = list(pool.map(worker, range(opts.jobs), [opts] * opts.jobs, [tools] * opts.jobs))
    total = {"cases": 0, "rule_sets": 0, "failed": 0, "runs": {}}
    for p in parts:
        for k in ("cases", "rule_sets", "failed"):
            total[k] += p[k]
        for n, c in p["runs"].items():
            total["runs"][n] = total["runs"].get(n, 0) + c
    total.update(device=opts.device, seconds=opts.seconds, jobs=opts.jobs, seed=opts.seed)
    with open(os.path.join(opts.out, "summary.json"), "w") as f:
        json.dump(total, f, indent=1)
    print(json.dumps(total))
    sys.exit(1 if total["failed"] else 0)


if __name__ == "__main__":
    main()
