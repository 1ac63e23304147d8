#!/usr/bin/env python3
"""Differential fuzzer for the walking, filtering and input side: gsearch vs ripgrep.

Random small trees (ignore files of every kind, hidden files, symlinks, binary,
encoded and compressed files) and random command lines (ignore flags, globs,
types, depth, --files, sorting, path forms, stdin, --pre, -z, config files).
One process at a time.

  scripts/fuzz-walk.py SEED0 SECONDS          run
  scripts/fuzz-walk.py --repro SEED [DIR]     rebuild one case in DIR and print its command

GS and RG choose the binaries (default target/release/gsearch, rg on PATH); the
failing cases go to FAILDIR (default /tmp/fuzz-walk/fails), the log to WALKLOG.
Settings: the CPU engine, the OpenCL engine through PoCL in 600-byte batches, and
auto with the device forced (CONFIGS=cpu,ocl600,auto picks).
"""
import gzip, bz2, lzma, json, os, random, re, shlex, shutil, subprocess, sys, time

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
RG = os.path.abspath(os.environ.get("RG") or shutil.which("rg") or "rg")
GS = os.path.abspath(os.environ.get("GS", os.path.join(REPO, "target/release/gsearch")))
WORK = "/tmp/fuzz-walk/work"
FAILDIR = os.environ.get("FAILDIR", "/tmp/fuzz-walk/fails")
LOG = os.environ.get("WALKLOG", "/tmp/fuzz-walk/log.txt")
EXT_DIR = "/dev/shm/walkfuzz-ext"
POCL_CACHE = os.path.join(os.path.expanduser("~"), ".cache/pocl/kcache")  # another file system (tmpfs) for --one-file-system

CONFIGS = {
    "cpu": ({}, ["--engine", "cpu"]),
    "ocl600": ({"GSEARCH_OPENCL_DEVICE": "Portable", "GSEARCH_BATCH_BYTES": "600"}, ["--engine", "opencl"]),
    "auto": ({"GSEARCH_OPENCL_DEVICE": "Portable", "GSEARCH_AUTO_MIN_BYTES": "1",
              "GSEARCH_DEVICE_STARTUP_MS": "0"}, []),  # `auto` without ripgrep's hybrid regex
}
ONLY = os.environ.get("CONFIGS")
if ONLY:
    CONFIGS = {k: v for k, v in CONFIGS.items() if k in ONLY.split(",")}

DIRS = ["sub", "sub/deep", "Sub", ".hdir", "build", "src", "src/inner", "node_modules", "a b", "sub/deep/er"]
FILES = ["a.txt", "b.rs", "c.py", "x.log", "keep.log", "Makefile", "README.md", "foo.c", "foo.h", "data.json",
         ".hidden", ".h.txt", "noext", "FOO.TXT", "z.foo", "A.Rs", "sp ace.txt", "y.txt", "q.md", "m.mk"]
WORDS = ["foo", "bar", "baz", "FOO", "Foo", "qux", "hello", "é", "café", "x", "foo.bar", "a-b", "42"]
PATTERNS = ["foo", "foo", "foo", "bar", "fo+", "(?i)foo", "é", "^", "x", "hello|qux", "baz$", "\\bfoo\\b", "a-b",
            "", "Foo", "o"]


def rtext(r, lines=None):
    n = lines if lines is not None else r.randint(0, 5)
    out = []
    for _ in range(n):
        out.append(" ".join(r.choice(WORDS) for _ in range(r.randint(0, 4))))
    s = "\n".join(out)
    if n and r.random() < 0.8:
        s += "\n"
    return s


def rcontent(r, name):
    """bytes of a file: text mostly, else binary, encoded, big or compressed"""
    x = r.random()
    text = rtext(r)
    if x < 0.55:
        return text.encode()
    if x < 0.62:  # NUL early
        b = text.encode()
        p = r.randint(0, len(b))
        return b[:p] + b"\x00" + b[p:] + b"foo\n"
    if x < 0.67:  # NUL late, past the first buffers
        pad = ("filler line %d\n" * 1).encode()
        body = b"foo start\n" + b"".join(b"pad %d foo\n" % i if i % 997 == 0 else b"pad line %d\n" % i
                                          for i in range(r.choice([100, 3000, 9000, 20000])))
        return body + b"\x00" + b"foo after nul\n" + (pad if r.random() < 0.5 else b"")
    if x < 0.71:
        bom = r.random() < 0.6
        return (b"\xff\xfe" if bom else b"") + text.encode("utf-16-le")
    if x < 0.74:
        bom = r.random() < 0.6
        return (b"\xfe\xff" if bom else b"") + text.encode("utf-16-be")
    if x < 0.77:
        return b"\xef\xbb\xbf" + text.encode()
    if x < 0.80:
        return text.encode("latin-1", "replace") + b"caf\xe9 foo\n"
    if x < 0.85:  # big enough for --max-filesize
        return (text + "foo line\n" * r.choice([50, 150, 300, 1200])).encode()
    if x < 0.88:
        return b""
    if x < 0.92:
        return b"foo without newline"
    return (text + "foo\r\nbar\r\n").encode()


def compress(r, data):
    kind = r.choice(["gz", "bz2", "xz", "lz4", "zst", "lzma", "Z"])
    if kind == "gz":
        return ".gz", gzip.compress(data, mtime=0)
    if kind == "bz2":
        return ".bz2", bz2.compress(data)
    if kind == "xz":
        return ".xz", lzma.compress(data)
    if kind == "lzma":
        return ".lzma", lzma.compress(data, format=lzma.FORMAT_ALONE)
    tool = {"lz4": ["lz4", "-q", "-c"], "zst": ["zstd", "-q", "-c"], "Z": ["gzip", "-c", "-n"]}[kind]
    p = subprocess.run(tool, input=data, stdout=subprocess.PIPE)
    return "." + kind, p.stdout


def ignore_lines(r, names, dirs, here):
    """random gitignore-syntax lines about the tree's names, from directory `here`"""
    rel = [n[len(here) + 1:] if here and n.startswith(here + "/") else (n if not here else None) for n in names]
    rel = [x for x in rel if x]
    reld = [d[len(here) + 1:] if here and d.startswith(here + "/") else (d if not here else None) for d in dirs]
    reld = [x for x in reld if x]
    base = [os.path.basename(n) for n in names] + [os.path.basename(d) for d in dirs] or ["a.txt"]
    out = []
    for _ in range(r.randint(1, 6)):
        x = r.random()
        if x < 0.2:
            s = r.choice(base)
        elif x < 0.3 and rel:
            s = "/" + r.choice(rel)
        elif x < 0.4 and (reld or dirs):
            s = r.choice(reld or [os.path.basename(d) for d in dirs]) + "/"
        elif x < 0.47:
            s = "**/" + r.choice(base)
        elif x < 0.57:
            s = "*." + r.choice(["txt", "log", "rs", "TXT", "md", "gz", "foo", "py"])
        elif x < 0.62:
            s = r.choice(["sub/**", "**/deep", "**/deep/**", "sub/*.rs", "/*", "*", "!*/", "a?.txt", "[a-c].*",
                          "*.[ch]", "build", "/build/", "src/**/*.rs", ".*", "!.gitignore", "**", "sub/**/x.log"])
        elif x < 0.68:
            s = "# " + r.choice(base)
        elif x < 0.72:
            s = ""
        elif x < 0.76:
            s = r.choice(base) + r.choice(["  ", " ", "\t", "\\ "])
        elif x < 0.78:
            s = r.choice(["\\#x", "\\!keep.log", "x\\*", "sp ace.txt", "sp\\ ace.txt"])
        else:
            s = "!" + r.choice(base + ["keep.log", "*.rs", "sub", "/sub", "deep/"])
        out.append(s)
    text = "\n".join(out)
    if r.random() < 0.8:
        text += "\n"
    if r.random() < 0.05:
        text = text.replace("\n", "\r\n")
    return text


def write(path, data):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "wb") as f:
        f.write(data if isinstance(data, bytes) else data.encode())


def gen_tree(r, case):
    """the tree under case/d, ignore files in and above it, links; returns (files, dirs) relative to d"""
    d = os.path.join(case, "d")
    os.makedirs(d)
    dirs = sorted(set(r.sample(DIRS, r.randint(0, 5))))
    full = set()
    for x in dirs:  # parents too
        parts = x.split("/")
        for i in range(1, len(parts) + 1):
            full.add("/".join(parts[:i]))
    dirs = sorted(full)
    files = []
    for where in [""] + dirs:
        for name in r.sample(FILES, r.randint(0 if where else 1, 4)):
            rel = (where + "/" if where else "") + name
            data = rcontent(r, name)
            if r.random() < 0.08:
                ext, data = compress(r, data or b"foo\n")
                rel += ext
            write(os.path.join(d, rel), data)
            files.append(rel)
    for x in dirs:
        os.makedirs(os.path.join(d, x), exist_ok=True)
    # ignore files
    git_at = r.choice([None, None, "case", "d", "d", "sub"])
    if git_at == "sub" and "sub" not in dirs:
        git_at = "d"
    if git_at:
        g = {"case": case, "d": d, "sub": os.path.join(d, "sub")}[git_at]
        if r.random() < 0.1:
            write(os.path.join(g, ".git"), "gitdir: /nonexistent\n")
        else:
            os.makedirs(os.path.join(g, ".git"), exist_ok=True)
            if r.random() < 0.4:
                write(os.path.join(g, ".git/info/exclude"), ignore_lines(r, files, dirs, ""))
    for fname in [".gitignore", ".ignore", ".rgignore", ".gitignore", ".gitignore"]:
        if r.random() < 0.35:
            where = r.choice([""] + dirs) if dirs and r.random() < 0.4 else ""
            write(os.path.join(d, where, fname), ignore_lines(r, files, dirs, where))
    if r.random() < 0.25:  # parent of the search root
        write(os.path.join(case, r.choice([".gitignore", ".ignore", ".rgignore"])),
              ignore_lines(r, ["d/" + f for f in files], ["d"] + ["d/" + x for x in dirs], ""))
    if r.random() < 0.05:
        write(os.path.join(d, ".IGNORE"), ignore_lines(r, files, dirs, ""))
    write(os.path.join(case, "ign1"), ignore_lines(r, files, dirs, ""))
    write(os.path.join(case, "ign2"), ignore_lines(r, ["d/" + f for f in files], [], ""))
    # symbolic links
    links = []
    if r.random() < 0.35:
        for _ in range(r.randint(1, 3)):
            kind = r.random()
            where = r.choice([""] + dirs) if dirs else ""
            name = os.path.join(where, r.choice(["lnf", "lnd", "dang", "loop", "ext", "lnx.txt", ".lnh"]))
            if os.path.lexists(os.path.join(d, name)):
                continue
            depth = name.count("/")
            up = "../" * depth
            if kind < 0.3 and files:
                target = up + r.choice(files)
            elif kind < 0.5 and dirs:
                target = up + r.choice(dirs)
            elif kind < 0.6:
                target = "nowhere"
            elif kind < 0.75:
                target = r.choice([".", "..", up or "."]) if depth else "."
            elif kind < 0.85:
                target = EXT_DIR
            else:
                target = os.path.join(case, "outside.txt")
            os.symlink(target, os.path.join(d, name))
            links.append(name)
    write(os.path.join(case, "outside.txt"), "foo outside\n")
    # distinct modification times, for --sort modified
    allp = files + links
    for i, f in enumerate(sorted(allp, key=lambda _: r.random())):
        try:
            os.utime(os.path.join(d, f), (1_600_000_000 + i * 100,) * 2, follow_symlinks=False)
        except OSError:
            pass
    return files, dirs, links


def pre_script(r, case):
    body = r.choice([
        'tr a-z A-Z < "$1"',
        'cat; echo "pre:$1 foo"',
        'sed s/bar/foo/g',
        'echo foo from pre; exit 0',
        'echo partial foo; exit 3',
        'cat "$1"',
        'head -c 5',
    ])
    p = os.path.join(case, "pre.sh")
    write(p, "#!/bin/sh\n" + body + "\n")
    os.chmod(p, 0o755)


def config_file(r, case):
    opts = ["--hidden", "--glob=!*.log", "-g\n*.rs", "--max-depth=1", "# comment", "", "--no-ignore",
            "--type-add=foo:*.foo", "-tfoo", "--sort=path", "--follow", "-i", "--no-ignore-vcs", "-n",
            "--ignore-file=ign1", "--max-filesize=100", "--no-messages", "-L", "--iglob=*.TXT", "  --hidden",
            "--unknown-flag", "-uu", "--files"]
    lines = r.sample(opts, r.randint(1, 4))
    write(os.path.join(case, "rgcfg"), "\n".join(lines) + "\n")


def gen_flags(r, files, dirs):
    flags = []

    def maybe(p, *f):
        if r.random() < p:
            flags.extend(f)

    for f, p in [("--no-ignore", 0.08), ("--no-ignore-vcs", 0.1), ("--no-ignore-dot", 0.08),
                 ("--no-ignore-parent", 0.08), ("--no-ignore-exclude", 0.06), ("--no-ignore-files", 0.05),
                 ("--no-ignore-global", 0.04), ("--no-require-git", 0.15), ("--ignore-file-case-insensitive", 0.06),
                 ("--hidden", 0.15), ("-.", 0.03), ("--no-hidden", 0.03), ("--ignore", 0.02), ("--ignore-vcs", 0.02),
                 ("--require-git", 0.02), ("--ignore-dot", 0.02), ("--no-ignore-messages", 0.05),
                 ("--ignore-parent", 0.01), ("--ignore-exclude", 0.01), ("--ignore-files", 0.01)]:
        maybe(p, f)
    if r.random() < 0.12:
        flags.append(r.choice(["-u", "-uu", "-uuu", "-u -u", "--unrestricted"]))
        if " " in flags[-1]:
            flags[-1:] = flags[-1].split()
    if r.random() < 0.12:
        flags += ["--ignore-file", r.choice(["ign1", "ign1", "ign2", "nope.ign", "d", "@CASE@/ign1"])]
        maybe(0.2, "--ignore-file", "ign2")
    if r.random() < 0.15:
        flags.append(r.choice(["--max-depth", "-d", "--maxdepth"]))
        flags.append(str(r.choice([0, 1, 1, 2, 3])))
    maybe(0.15, r.choice(["-L", "--follow", "--follow"]))
    maybe(0.03, "--no-follow")
    maybe(0.06, "--one-file-system")
    for _ in range(r.choice([0, 0, 0, 1, 1, 2, 3])):
        g = r.choice(["*.rs", "!*.log", "**/sub/**", "sub", "!sub", "sub/", "/sub", "*.{rs,py}", "[ab].*",
                      "!**/deep", "*.TXT", "d/*", "**/*.txt", "!.h*", ".*", "{", "*.txt", "!*.txt", "*", "!*",
                      "deep/**", "!/sub/**", "a.txt", "**", "sub/**/*.txt", "!a b", "*.gz", "\\!x", "[", "!"]
                     + [r.choice(files)] if files else ["*.rs"])
        flags += [r.choice(["-g", "--glob", "--iglob"]), g]
    maybe(0.06, "--glob-case-insensitive")
    maybe(0.02, "--no-glob-case-insensitive")
    for _ in range(r.choice([0, 0, 0, 0, 1, 1, 2])):
        x = r.random()
        if x < 0.35:
            flags += ["-t", r.choice(["rust", "txt", "py", "c", "md", "json", "make", "log", "foo", "src", "all",
                                      "nonexistent", "cpp", "h"])]
        elif x < 0.55:
            flags += ["-T", r.choice(["rust", "txt", "log", "c", "all", "foo", "src", "make"])]
        elif x < 0.85:
            flags += ["--type-add", r.choice(["foo:*.foo", "src:include:rust,c", "src:include:rust,py",
                                              "txt:*.log", "src:*.md", "bad", "src:include:nope", "foo:include:txt",
                                              "mk:Makefile", "foo:*.{foo,py}", ":*.x", "foo:"])]
        else:
            flags += ["--type-clear", r.choice(["txt", "rust", "foo", "nope", "log"])]
    if r.random() < 0.1:
        flags += ["--max-filesize", r.choice(["0", "10", "100", "1K", "2K", "2k", "1M", "3G", "abc", "1.5K", "20"])]
    return flags


def gen_paths(r, files, dirs, links, inside):
    """path arguments (relative to cwd), and whether stdin comes from a file"""
    def tree(rel):
        if inside:
            return rel if rel else "."
        return "d/" + rel if rel else "d"

    pool = []
    x = r.random()
    n = r.choice([1, 1, 1, 1, 2, 2, 3])
    if x < 0.12:
        return [], r.random() < 0.35
    for _ in range(n):
        y = r.random()
        if y < 0.3:
            pool.append(tree(""))
        elif y < 0.38:
            pool.append(r.choice(["./d", "d/", "d//", "./d/"]) if not inside else r.choice(["./", ".", "./."]))
        elif y < 0.45 and dirs:
            sd = r.choice(dirs)
            pool.append(r.choice([tree(sd), tree(sd) + "/", tree(sd).replace("/", "//", 1),
                                  "./" + tree(sd), tree(sd.split("/")[0] + "/./" + "/".join(sd.split("/")[1:]))
                                  .rstrip("/")]))
        elif y < 0.5:
            pool.append(r.choice(["@ABSD@", "@ABSD@/"]))
        elif y < 0.68 and files:
            f = r.choice(files)
            pool.append(r.choice([tree(f), "./" + tree(f), "@ABSD@" + f]))
        elif y < 0.74 and links:
            pool.append(tree(r.choice(links)))
        elif y < 0.8:
            pool.append("-")
        elif y < 0.86:
            pool.append(r.choice(["nope", tree("nope"), "nope/x"]))
        elif y < 0.9 and dirs:
            pool.append(tree(r.choice(dirs)))
        else:
            pool.append(tree(""))
    return pool, "-" in pool or r.random() < 0.2


def gen_case(r, case):
    os.makedirs(case)
    files, dirs, links = gen_tree(r, case)
    inside = r.random() < 0.2
    spec = {"inside": inside, "env": {}, "use_config": False, "stdin": None, "unordered": False}
    flags = gen_flags(r, files, dirs)
    mode = r.random()
    pattern = []
    if mode < 0.22:
        flags.append("--files")
    elif mode < 0.24:
        flags.append("--type-list")
    else:
        p = r.choice(PATTERNS)
        pattern = ["-e", p] if (p.startswith("-") or r.random() < 0.3) else [p]
        if r.random() < 0.1:
            pattern = ["-e", r.choice(PATTERNS), "-e", r.choice(PATTERNS)]
        out = r.random()
        if out < 0.12:
            flags.append("-l")
        elif out < 0.2:
            flags.append("-c")
        elif out < 0.24:
            flags.append("--count-matches")
        elif out < 0.28:
            flags.append("--files-without-match")
        elif out < 0.31:
            flags.append("-q")
        elif out < 0.36:
            flags.append("--json")
        elif out < 0.39:
            flags.append("--vimgrep")
        for f, p in [("-n", 0.3), ("-H", 0.08), ("-I", 0.05), ("--heading", 0.06), ("-o", 0.05), ("-i", 0.05),
                     ("-a", 0.1), ("--binary", 0.08), ("--no-binary", 0.02), ("--no-text", 0.02), ("-z", 0.12),
                     ("--no-search-zip", 0.02), ("--no-mmap", 0.08), ("--mmap", 0.05), ("-m1", 0.04),
                     ("--include-zero", 0.03), ("--no-unicode", 0.02), ("-b", 0.03)]:
            if r.random() < p:
                flags.append(f)
        if r.random() < 0.14:
            flags += [r.choice(["-E", "--encoding"]),
                      r.choice(["utf-16le", "utf-16be", "latin1", "none", "utf-8", "auto", "bogus", "UTF-16LE",
                                "windows-1252", "utf16"])]
        maybe_no = r.random()
        if maybe_no < 0.02:
            flags.append("--no-encoding")
        if r.random() < 0.1:
            pre_script(r, case)
            flags += ["--pre", r.choice(["./pre.sh", "@CASE@/pre.sh", "pre.sh", "./nope.sh"])]
            if r.random() < 0.5:
                flags += ["--pre-glob", r.choice(["*.txt", "*.rs", "!*.txt", "*.gz", "*"])]
            if r.random() < 0.1:
                flags.append("--no-pre")
    for f, p in [("-0", 0.06), ("--null", 0.04), ("--no-messages", 0.08), ("--messages", 0.01)]:
        if r.random() < p:
            flags.append(f)
    if r.random() < 0.08:
        flags += ["--path-separator", r.choice(["/", "\\", "X", "", "ab", "\\\\", "\\x00"])]
    paths, stdin = gen_paths(r, files, dirs, links, inside)
    if stdin:
        spec["stdin"] = r.choice(["text", "binary", "utf16", "empty"])
    # ordering
    o = r.random()
    if o < 0.18:
        spec["unordered"] = True
        if r.random() < 0.5:
            flags.append(r.choice(["-j2", "-j4", "-j3"]))
    elif o < 0.75:
        flags += ["--sort", "path"]
    elif o < 0.82:
        flags.append("-j1")
    elif o < 0.9:
        flags += [r.choice(["--sortr", "--sort"]), r.choice(["path", "modified", "none", "path"])]
    elif o < 0.94:
        flags.append("--sort-files")
    else:
        flags += ["--sort", "path", "--sortr", "path"] if r.random() < 0.5 else ["--sortr", "path", "--sort", "none"]
    # the last --sort/--sortr decides; `none` leaves ripgrep's parallel order
    sorts = [flags[i + 1] for i, f in enumerate(flags) if f in ("--sort", "--sortr")]
    if sorts and sorts[-1] == "none" and "--sort-files" not in flags:
        spec["unordered"] = True
    # configuration file
    if r.random() < 0.2:
        spec["use_config"] = True
        if r.random() < 0.9:
            config_file(r, case)
            spec["env"]["RIPGREP_CONFIG_PATH"] = r.choice(["@CASE@/rgcfg", "rgcfg"])
        elif r.random() < 0.5:
            spec["env"]["RIPGREP_CONFIG_PATH"] = "@CASE@/nope.cfg"
    # global gitignore through a fake HOME
    # outside the searched tree: gsearch and PoCL keep caches under $HOME
    home = case + "-home"
    shutil.rmtree(home, ignore_errors=True)
    os.makedirs(home)
    spec["env"]["HOME"] = home
    g = r.random()
    if g < 0.1:
        write(os.path.join(home, ".gitconfig"), "[core]\n\texcludesFile = ~/gexclude\n")
        write(os.path.join(home, "gexclude"), ignore_lines(r, files, dirs, ""))
    elif g < 0.18:
        write(os.path.join(home, ".config/git/ignore"), ignore_lines(r, files, dirs, ""))
    elif g < 0.22:
        spec["env"]["XDG_CONFIG_HOME"] = os.path.join(case, "xdg")
        write(os.path.join(case, "xdg/git/ignore"), ignore_lines(r, files, dirs, ""))
    args = flags + pattern + paths
    if r.random() < 0.08:  # flags after the pattern and paths
        k = r.choice([i for i in range(len(flags) + 1) if i == 0 or flags[i - 1] not in VALUE_FLAGS])
        args = flags[:k] + pattern + paths + flags[k:]
        if "--" in args:
            args = flags + pattern + paths
    return spec, args


VALUE_FLAGS = {"-E", "--encoding", "--pre", "--pre-glob", "-g", "--glob", "--iglob", "-t", "-T", "--type-add",
               "--type-clear", "--max-filesize", "--ignore-file", "--max-depth", "-d", "--maxdepth", "--sort", "--sortr",
               "--path-separator", "-e"}
STDIN_DATA = {"text": b"foo from stdin\nbar\nfoo again\n", "binary": b"foo\x00bar\nfoo\n",
              "utf16": b"\xff\xfe" + "foo stdin\n".encode("utf-16-le"), "empty": b""}
ELAPSED = re.compile(rb'"elapsed(_total)?":\{[^{}]*\}')


def resolve(s, case):
    if s.startswith("@ABSD@"):
        rest = s[len("@ABSD@"):]
        return os.path.join(case, "d") + ("/" + rest.lstrip("/") if rest and rest != "/" else rest)
    return s.replace("@CASE@", case)


def run(binary, spec, args, case, extra_env, extra_flags, retried=False):
    env = {k: v for k, v in os.environ.items() if not (k.startswith("GSEARCH_") or k.startswith("RIPGREP_"))}
    env.pop("XDG_CONFIG_HOME", None)
    env.update({k: resolve(v, case) for k, v in spec["env"].items()})
    # PoCL keeps its kernel cache under $HOME: not in the searched tree
    env["POCL_CACHE_DIR"] = POCL_CACHE
    env.update(extra_env)
    cwd = os.path.join(case, "d") if spec["inside"] else case
    cmd = [binary] + ([] if spec["use_config"] else ["--no-config"]) + extra_flags + [resolve(a, case) for a in args]
    stdin = subprocess.DEVNULL
    sf = None
    if spec["stdin"]:
        sf = os.path.join(case, "stdin.in")
        write(sf, STDIN_DATA[spec["stdin"]])
        stdin = open(sf, "rb")
    try:
        p = subprocess.run(cmd, cwd=cwd, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, stdin=stdin,
                           timeout=60)
        rc, out, err = p.returncode, p.stdout, p.stderr
    except subprocess.TimeoutExpired:
        rc, out, err = "TIMEOUT", b"", b""
        if not retried:  # PoCL compiling a new kernel on a loaded machine: once more, cached
            if sf:
                stdin.close()
            return run(binary, spec, args, case, extra_env, extra_flags, True)
    finally:
        if sf:
            stdin.close()
    out = ELAPSED.sub(b'"elapsed":E', out)
    err = err.replace(b"gsearch: ", b"rg: ").replace(b"gsearch:", b"rg:")
    err = err.replace(b"which means gsearch probably", b"which means ripgrep probably").replace(
        b"gsearch requires at least one pattern", b"ripgrep requires at least one pattern")
    # gsearch's own note that GSEARCH_OPENCL_DEVICE's device is not used
    err = b"".join(l for l in err.splitlines(True) if not l.startswith(b"rg: warning: the OpenCL device asked"))
    if spec["unordered"]:
        out = b"\n".join(sorted(re.split(b"[\n\0]", out)))  # --null ends paths with NUL
        err = b"\n".join(sorted(err.split(b"\n")))
    return rc, out, err


def setup_ext():
    os.makedirs(EXT_DIR, exist_ok=True)
    write(os.path.join(EXT_DIR, "e.txt"), "foo on tmpfs\n")


def build(seed, case):
    shutil.rmtree(case, ignore_errors=True)
    r = random.Random(seed)
    return gen_case(r, case)


def show(spec, args, case):
    env = " ".join("%s=%s" % (k, shlex.quote(resolve(v, case))) for k, v in spec["env"].items())
    cwd = os.path.join(case, "d") if spec["inside"] else case
    cmd = "cd %s && %s rg %s%s %s" % (shlex.quote(cwd), env, "" if spec["use_config"] else "--no-config ",
                                      shlex.join(resolve(a, case) for a in args),
                                      "< " + case + "/stdin.in" if spec["stdin"] else "")
    return cmd + ("   # unordered" if spec["unordered"] else "")


def rg_again(spec, args, case, bad, errbad, runs=4):
    """ripgrep run again on a difference: some of its answers depend on timing
    (binary detection in a --pre program's output, which a pipe hands over in
    pieces of any size). A setting that gave an answer ripgrep gives too is no
    failure. Returns the differences left and the settings cleared."""
    seen = [run(RG, spec, args, case, {}, []) for _ in range(runs)]
    left_bad, left_err, cleared = [], [], []
    for b in bad + errbad:
        if tuple(b[1:]) in seen:
            cleared.append(b[0])
        elif any(b[1] == rc and b[2] == out for rc, out, _ in seen):
            left_err.append(b)
        else:
            left_bad.append(b)
    return left_bad, left_err, cleared


def main():
    setup_ext()
    if sys.argv[1] == "--repro":
        seed = int(sys.argv[2])
        case = sys.argv[3] if len(sys.argv) > 3 else os.path.join(WORK, "repro")
        spec, args = build(seed, case)
        print(show(spec, args, case))
        print(json.dumps({"spec": spec, "args": args}))
        return
    seed0 = int(sys.argv[1])
    duration = float(sys.argv[2]) if len(sys.argv) > 2 else 600
    os.makedirs(FAILDIR, exist_ok=True)
    log = open(LOG, "a")
    counts, nfail, nerr, ncases, nflaky = {}, 0, 0, 0, 0
    t0 = time.time()
    seed = seed0
    case = os.path.join(WORK, "case")
    while time.time() - t0 < duration:
        seed += 1
        spec, args = build(seed, case)
        ncases += 1
        rc0, out0, err0 = run(RG, spec, args, case, {}, [])
        bad, errbad = [], []
        for name, (env, eflags) in CONFIGS.items():
            rc, out, err = run(GS, spec, args, case, env, eflags)
            counts[name] = counts.get(name, 0) + 1
            if rc != rc0 or out != out0:
                bad.append((name, rc, out, err))
            elif err != err0:
                errbad.append((name, rc, out, err))
        if bad or errbad:
            bad, errbad, flaky = rg_again(spec, args, case, bad, errbad)
            if flaky:
                nflaky += 1
                log.write("RGFLAKY seed=%d cfgs=%s %s\n" % (seed, flaky, show(spec, args, case)))
        # stderr-only differences where both failed with one different error:
        # which of several bad flags is reported first (a class of its own)
        prec = errbad and not bad and rc0 == 2 and all(
            e.count(b"\n") <= 3 and err0.count(b"\n") <= 3 for _, _, _, e in errbad)
        if bad or errbad:
            kind = "FAIL" if bad else ("EPREC" if prec else "STDERR")
            nfail += bool(bad)
            nerr += not bad
            fd = os.path.join(FAILDIR, ("s%d" if bad else "e%d") % seed)
            shutil.rmtree(fd, ignore_errors=True)
            os.makedirs(fd)
            with open(os.path.join(fd, "info.json"), "w") as f:
                json.dump({"seed": seed, "args": args, "spec": spec, "cmd": show(spec, args, case), "rg_rc": rc0,
                           "rg_err": err0.decode("utf-8", "replace")[:3000],
                           "bad": [{"cfg": n, "rc": rc, "err": e.decode("utf-8", "replace")[:3000]}
                                   for n, rc, o, e in bad + errbad]}, f, indent=1)
            with open(os.path.join(fd, "rg.out"), "wb") as f:
                f.write(out0)
            for n, rc, o, e in bad + errbad:
                with open(os.path.join(fd, n + ".out"), "wb") as f:
                    f.write(o)
            log.write("%s seed=%d cfgs=%s %s\n" % (kind, seed, [b[0] for b in bad + errbad], show(spec, args, case)))
            log.flush()
    msg = "DONE seeds %d..%d counts=%s cases=%d fails=%d stderr-only=%d rg-flaky=%d elapsed=%.0f" % (
        seed0 + 1, seed, counts, ncases, nfail, nerr, nflaky, time.time() - t0)
    log.write(msg + "\n")
    log.close()
    print(msg)


if __name__ == "__main__":
    main()
