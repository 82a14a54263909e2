"""Time and memory bounds for the hostile-input tests (issue 22): a hostile input must be refused in seconds and
megabytes, not hours and gigabytes, so the bounds are generous (a loaded machine passes them) yet far below what
the unfixed code took."""

from __future__ import annotations

import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


#: Runs ``python -m dpviz`` and, at exit, writes the process's peak resident memory (VmHWM, kB) to the file named
#: by DPVIZ_HWM_FILE.  VmHWM belongs to the program's own memory image: ``ru_maxrss`` (``os.wait4``) would also count
#: the image of the parent at fork time (the kernel keeps it across exec), so a large pytest process would inflate it.
_CHILD = """
import atexit, os, runpy, sys

def _hwm():
    with open('/proc/self/status') as fh:
        for line in fh:
            if line.startswith('VmHWM:'):
                return line.split()[1]
    return ''

def _write():
    with open(os.environ['DPVIZ_HWM_FILE'], 'w') as fh:
        fh.write(_hwm())

atexit.register(_write)
sys.argv = ['python -m dpviz', *sys.argv[1:]]
runpy.run_module('dpviz', run_name='__main__', alter_sys=True)
"""


def run_cli(argv, *, seconds: float = 90, mb: float = 600, env=None) -> tuple[int, str, str, float, float]:
    """``python -m dpviz *argv`` in a child process; returns (exit code, stdout, stderr, wall seconds, peak RSS MB)
    after asserting the wall time and the child's own peak resident memory (VmHWM) below the bounds."""
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err, \
            tempfile.NamedTemporaryFile(suffix=".hwm") as hwm:
        full_env = {**os.environ, "PYTHONPATH": str(ROOT), "DPVIZ_HWM_FILE": hwm.name, **(env or {})}
        t0 = time.perf_counter()
        proc = subprocess.Popen([sys.executable, "-c", _CHILD, *map(str, argv)], stdout=out, stderr=err,
                                cwd=str(ROOT), env=full_env)
        while True:
            pid, status, usage = os.wait4(proc.pid, os.WNOHANG)
            if pid:
                break
            if time.perf_counter() - t0 > seconds:
                proc.kill()
                os.wait4(proc.pid, 0)
                raise AssertionError(f"python -m dpviz {' '.join(map(str, argv))[:200]} still running after "
                                     f"{seconds} s")
            time.sleep(0.05)
        took = time.perf_counter() - t0
        proc.returncode = os.waitstatus_to_exitcode(status)
        out.seek(0)
        err.seek(0)
        stdout, stderr = out.read().decode(), err.read().decode()
        text = Path(hwm.name).read_text().strip()
    assert text, f"no peak memory recorded (exit {proc.returncode}); stderr: {stderr[-300:]}"
    peak = int(text) / 1024  # kB
    assert peak < mb, f"peak resident memory {peak:.0f} MB (bound {mb} MB); stderr: {stderr[-300:]}"
    return proc.returncode, stdout, stderr, took, peak


def bounded(fn, *, seconds: float, mb: float):
    """``fn()`` in this process with its wall time below ``seconds`` and the growth of the process's peak resident
    memory below ``mb``; returns fn's value."""
    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    t0 = time.perf_counter()
    out = fn()
    took = time.perf_counter() - t0
    grew = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024 - before
    assert took < seconds, f"took {took:.1f} s (bound {seconds} s)"
    assert grew < mb, f"peak resident memory grew by {grew:.0f} MB (bound {mb} MB)"
    return out
