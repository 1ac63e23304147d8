"""One run of a command for the bench scripts: wall seconds, peak RSS (wait4 on the
very process) and its output, with a time limit. Shared by bench/multi-gpu.py,
bench/scale-gpus.py and bench/rules-gpu.py."""
import os
import subprocess
import time


def run_rss(argv, timeout=None, env=None, err=None):
    """(wall seconds, or None when stopped at `timeout`; peak RSS in MiB; stdout and
    stderr together, as bytes). With `err` (an open file), stderr goes there instead,
    so that its lines cannot land inside the output's."""
    start = time.perf_counter()
    p = subprocess.Popen(argv, stdout=subprocess.PIPE,
                         stderr=err if err is not None else subprocess.STDOUT,
                         stdin=subprocess.DEVNULL, env=env)
    os.set_blocking(p.stdout.fileno(), False)
    chunks = []
    while True:
        try:
            data = p.stdout.read()
            if data:
                chunks.append(data)
        except BlockingIOError:
            pass
        pid, _, usage = os.wait4(p.pid, os.WNOHANG)
        if pid:
            chunks.append(p.stdout.read() or b"")
            p.returncode = 0
            return time.perf_counter() - start, usage.ru_maxrss / 1024, b"".join(chunks)
        if timeout is not None and time.perf_counter() - start > timeout:
            p.kill()
            os.wait4(p.pid, 0)
            p.returncode = 0
            return None, 0.0, b"".join(chunks)
        time.sleep(0.002)
