#!/usr/bin/env python3
"""The site-packages tree, literal search: rg and gsearch (binaries in .carry/), 15 runs each,
default threads and -j8/-j12/-j16; min and median wall time. Run on the GPU machine."""
import subprocess, time, os, sys
T = "/opt/torch/.venv/lib/python3.12/site-packages"
here = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), ".carry")
tools = {"rg": os.path.join(here, "rg"), "gs": os.path.join(here, "gsearch")}
for args in (["PyErr_SetString", "."], ["-c", "PyErr_SetString", "."]):
    for j in ([], ["-j8"], ["-j12"], ["-j16"]):
        row = []
        for name, b in tools.items():
            ts = []
            for i in range(15):
                s = time.perf_counter()
                subprocess.run([b] + j + args, cwd=T, stdout=subprocess.DEVNULL)
                ts.append(time.perf_counter() - s)
            ts.sort()
            row.append(f"{name} min {ts[0]*1e3:.1f} med {ts[7]*1e3:.1f} ms")
        print(" ".join(args[:-1]), j, " | ".join(row), flush=True)
