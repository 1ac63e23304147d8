#!/usr/bin/env python3
"""How fast can this machine read a big file that is not in the page cache, and in
which way?  Each method reads the whole FILE after an eviction (scripts/evict, checked
with mincore), so every byte comes from the disk; methods are interleaved over ROUNDS
(default 2) and the median GB/s printed.  This is the floor and the ceiling that
gsearch's read-ahead (src/pipeline/readahead.rs) is measured against.

Methods (T = threads, default the core count):
  pread-1        one thread, 1 MiB preads in order (a plain reader such as cat)
  map-1          one thread, a map of the file populated 1 MiB at a time
                 (MADV_POPULATE_READ, with MADV_SEQUENTIAL: ripgrep's map)
  map-T-seg      T threads, each a contiguous 1/T of the map (gsearch's big-file
                 path before read-ahead: T streams of the kernel's own readahead)
  map-T-seg-wN   the same, each thread hinting POSIX_FADV_WILLNEED N MiB ahead of itself
  map-T-front-wN T threads populating 4 MiB steps claimed in file order from one
                 cursor; whoever claims hints WILLNEED up to N MiB past the cursor
  pread-T-B      T threads, B MiB preads claimed in file order (queue depth T)

Usage: bench/cold-reads.py FILE [METHOD...]    (ROUNDS=2 THREADS=16 in the environment)
The device the file lives on: its rotational flag, read_ahead_kb and nr_requests are
printed first."""
import ctypes
import ctypes.util
import importlib.machinery
import importlib.util
import mmap
import os
import statistics
import sys
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))
_loader = importlib.machinery.SourceFileLoader(
    "evict", os.path.join(os.path.dirname(HERE), "scripts", "evict"))
_spec = importlib.util.spec_from_loader("evict", _loader)
evict = importlib.util.module_from_spec(_spec)
_loader.exec_module(evict)

libc = ctypes.CDLL(ctypes.util.find_library("c"), use_errno=True)
libc.mmap.restype = ctypes.c_void_p
libc.mmap.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int, ctypes.c_int,
                      ctypes.c_int, ctypes.c_long]
libc.madvise.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int]
libc.munmap.argtypes = [ctypes.c_void_p, ctypes.c_size_t]
MADV_SEQUENTIAL, MADV_POPULATE_READ = 2, 22
MiB = 1 << 20


def device_info(path):
    st = os.stat(path)
    base = f"/sys/dev/block/{os.major(st.st_dev)}:{os.minor(st.st_dev)}"
    out = [f"st_dev {os.major(st.st_dev)}:{os.minor(st.st_dev)}"]
    for q in (base + "/queue", base + "/../queue"):
        if os.path.isdir(q):
            for k in ("rotational", "read_ahead_kb", "nr_requests", "max_sectors_kb"):
                try:
                    out.append(f"{k} {open(os.path.join(q, k)).read().strip()}")
                except OSError:
                    pass
            out.append(f"({os.path.realpath(q)})")
            break
    return " ".join(out)


class Map:
    def __init__(self, path):
        self.size = os.path.getsize(path)
        self.fd = os.open(path, os.O_RDONLY)
        self.addr = libc.mmap(None, self.size, mmap.PROT_READ, mmap.MAP_SHARED, self.fd, 0)
        libc.madvise(self.addr, self.size, MADV_SEQUENTIAL)

    def populate(self, a, b):
        a0 = a & ~(mmap.PAGESIZE - 1)
        if libc.madvise(ctypes.c_void_p(self.addr + a0), b - a0, MADV_POPULATE_READ) != 0:
            raise OSError(ctypes.get_errno(), "MADV_POPULATE_READ")

    def willneed(self, a, b):
        if b > a:
            os.posix_fadvise(self.fd, a, b - a, os.POSIX_FADV_WILLNEED)

    def close(self):
        libc.munmap(ctypes.c_void_p(self.addr), self.size)
        os.close(self.fd)


def in_threads(n, fn):
    ts = [threading.Thread(target=fn, args=(i,)) for i in range(n)]
    for t in ts:
        t.start()
    for t in ts:
        t.join()


def claims(size, step):
    lock, nxt = threading.Lock(), [0]

    def claim():
        with lock:
            o = nxt[0]
            nxt[0] += step
        return o if o < size else None
    return claim


def pread_pool(path, threads, block):
    fd, size = os.open(path, os.O_RDONLY), os.path.getsize(path)
    claim = claims(size, block)

    def work(_):
        while (o := claim()) is not None:
            os.pread(fd, block, o)
    in_threads(threads, work)
    os.close(fd)


def map_segments(path, threads, window):
    m = Map(path)
    per = -(-m.size // threads)

    def work(i):
        a, b = i * per, min(m.size, (i + 1) * per)
        hinted = a
        while a < b:
            if window:
                end = min(b, a + window)
                if end > hinted:
                    m.willneed(hinted, end)
                    hinted = end
            m.populate(a, min(b, a + MiB))
            a += MiB
    in_threads(threads, work)
    m.close()


def map_front(path, threads, window):
    m = Map(path)
    claim, lock, hinted = claims(m.size, 4 * MiB), threading.Lock(), [0]

    def work(_):
        while (o := claim()) is not None:
            with lock:
                a, end = hinted[0], min(m.size, o + window)
                hinted[0] = max(a, end)
            m.willneed(a, end)
            m.populate(o, min(m.size, o + 4 * MiB))
    in_threads(threads, work)
    m.close()


def methods(threads):
    t = threads
    return {
        "pread-1": lambda p: pread_pool(p, 1, MiB),
        "map-1": lambda p: map_segments(p, 1, 0),
        f"map-{t}-seg": lambda p: map_segments(p, t, 0),
        f"map-{t}-seg-w64": lambda p: map_segments(p, t, 64 * MiB),
        "map-1-front-w128": lambda p: map_front(p, 1, 128 * MiB),
        f"map-{t}-front-w32": lambda p: map_front(p, t, 32 * MiB),
        f"map-{t}-front-w128": lambda p: map_front(p, t, 128 * MiB),
        f"map-{t}-front-w512": lambda p: map_front(p, t, 512 * MiB),
        "pread-4-4": lambda p: pread_pool(p, 4, 4 * MiB),
        f"pread-{t}-4": lambda p: pread_pool(p, t, 4 * MiB),
    }


def main():
    if len(sys.argv) > 1 and sys.argv[1] in ("-h", "--help"):
        print(__doc__)
        return
    path = sys.argv[1]
    threads = int(os.environ.get("THREADS", os.cpu_count() or 2))
    rounds = int(os.environ.get("ROUNDS", "2"))
    table = methods(threads)
    wanted = sys.argv[2:] or list(table)
    size = os.path.getsize(path)
    print(f"{path}: {size / 1e9:.2f} GB; {device_info(path)}; threads {threads}", flush=True)
    got = {k: [] for k in wanted}
    for _ in range(rounds):
        for k in wanted:
            left = evict.evict(path)
            if left > 0.001:
                print(f"{k}: eviction left {left:.2%} resident; skipped", flush=True)
                continue
            s = time.perf_counter()
            table[k](path)
            got[k].append(time.perf_counter() - s)
    for k, v in got.items():
        if v:
            med = statistics.median(v)
            print(f"{k:20} {med:7.2f} s {size / med / 1e9:6.2f} GB/s  runs "
                  + " ".join(f"{x:.2f}" for x in v), flush=True)


if __name__ == "__main__":
    main()
