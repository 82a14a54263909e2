"""Hostile inputs of issue 22: CPU seconds and peak memory of each, before and after the fix.

Each case is a real command (``python -m dpviz …``, spec files written to a temporary folder) run in a child process
whose CPU time (user + system, ``os.wait4``) and peak resident memory (its own VmHWM) are measured.  With ``--before DIR`` the same
commands also run against another checkout (e.g. the main branch before the fix) under a 60 s wall-time limit and a
3 GB address-space limit, so an unfixed case ends as "killed at 60 s" or "MemoryError at the 3 GB limit" instead of
taking hours or the machine's memory.

Targets (issue 22): no single spec or command costs more than 5 s of CPU or 1 GB of memory before it is refused, and
every refusal is one line naming the input and the limit.

Run: .venv/bin/python benchmarks/bench_hostile.py [--before /path/to/old/checkout] [--only cli|sweep|dashboard]
[--match TEXT]  (issue 34's uploads: --only dashboard --match bomb / --match zip / --match Parquet with)

The dashboard's cases (uploads, links: items 1-5) are Python snippets of what the server does for them, in their
own functions (``dashboard_cases``, ``run_dashboard``, ``measure_snippet``); the CLI and sweep cases are
``cli_cases`` and ``sweep_cases``.
"""

from __future__ import annotations

import argparse
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

SPEC = """
algorithms = ["dpsgd-rdp", "sgd"]
dataset = "wang-least-squares"
loss = "least-squares"
reps = 4
seed = 3
n_test = 200
eval_rows = 100
[grid]
n = [100, 150]
eps = [4.0]
[params]
T = 30
eta = 0.05
R = 1.0
"""


def _limit_memory(gb: float):
    def set_limit():
        resource.setrlimit(resource.RLIMIT_AS, (int(gb * 2**30), int(gb * 2**30)))
        os.nice(10)

    return set_limit


#: ``python -m dpviz`` writing its peak resident memory (VmHWM, kB, its own memory image only: ``ru_maxrss`` would
#: also count the parent's image at fork time) to DPVIZ_HWM_FILE at exit.
_CHILD = """
import atexit, os, runpy, sys

def _write():
    with open('/proc/self/status') as fh:
        hwm = next((line.split()[1] for line in fh if line.startswith('VmHWM:')), '')
    with open(os.environ['DPVIZ_HWM_FILE'], 'w') as fh:
        fh.write(hwm)

atexit.register(_write)
sys.argv = ['python -m dpviz', *sys.argv[1:]]
runpy.run_module('dpviz', run_name='__main__', alter_sys=True)
"""


def measure(argv, *, code_dir: Path, timeout: float = 60.0, mem_gb: float | None = None) -> dict:
    """CPU seconds, wall seconds, peak RSS (MB; None when killed), exit code and the last stderr line of
    ``python -m dpviz argv``."""
    with tempfile.TemporaryFile() as err, tempfile.NamedTemporaryFile(suffix=".hwm") as hwm:
        t0 = time.perf_counter()
        proc = subprocess.Popen([sys.executable, "-c", _CHILD, *map(str, argv)], stdout=subprocess.DEVNULL,
                                stderr=err, cwd=str(code_dir),
                                env={**os.environ, "PYTHONPATH": str(code_dir), "DPVIZ_HWM_FILE": hwm.name},
                                preexec_fn=_limit_memory(mem_gb) if mem_gb else None)
        killed = False
        while True:
            pid, status, usage = os.wait4(proc.pid, os.WNOHANG)
            if pid:
                break
            if time.perf_counter() - t0 > timeout:
                proc.kill()
                _, status, usage = os.wait4(proc.pid, 0)
                killed = True
                break
            time.sleep(0.05)
        wall = time.perf_counter() - t0
        err.seek(0)
        text = err.read().decode(errors="replace").strip().splitlines()
        peak = Path(hwm.name).read_text().strip()
    code = os.waitstatus_to_exitcode(status)
    last = text[-1] if text else ""
    if killed:
        outcome = f"killed at {timeout:g} s"
    elif "MemoryError" in " ".join(text):
        outcome = "MemoryError traceback" + (f" at the {mem_gb:g} GB limit" if mem_gb else "")
    elif any(line.startswith("Traceback") for line in text):
        outcome = f"traceback: {last[:80]}"
    else:
        outcome = f"exit {code}, {len(text)} stderr line(s): {last[:110]}"
    return {"cpu": usage.ru_utime + usage.ru_stime, "wall": wall, "rss_mb": int(peak) / 1024 if peak else None,
            "outcome": outcome}


def sweep_cases(tmp: Path) -> list[tuple[str, list]]:
    """Issue 22 items 7-8 (specs) as (label, argv)."""
    specs = {
        "reps = 1e9": SPEC.replace("reps = 4", "reps = 1000000000"),
        "[grid] n = [1e9]": SPEC.replace("n = [100, 150]", "n = [1000000000]"),
        "n_test = 1e10": SPEC.replace("n_test = 200", "n_test = 10000000000"),
        "T = 1e12": SPEC.replace("T = 30", "T = 1000000000000"),
        "1e5 cells, reps 1e4, T 1e5": (
            SPEC.replace("reps = 4", "reps = 10000").replace("T = 30", "T = 100000")
            .replace("n = [100, 150]", "n = [" + ", ".join(str(100 + i) for i in range(500)) + "]")
            .replace("eps = [4.0]", "eps = [" + ", ".join(str(1 + i / 10) for i in range(100)) + "]")),
        "5000-deep nested TOML": "a = " + "[" * 5000 + "]" * 5000 + "\n",
        "real data set, n beyond its size": SPEC.replace('"wang-least-squares"', '"diabetes"')
                                                .replace("n = [100, 150]", "n = [100, 10000000]"),
    }
    cases = []
    for i, (label, text) in enumerate(specs.items()):
        path = tmp / f"spec{i}.toml"
        path.write_text(text)
        cases.append((f"sweep: {label}", ["sweep", path, "--out", tmp / f"out{i}", "--no-progress", "--workers", "1"]))
    eq = tmp / "eps=1.toml"
    eq.write_text(SPEC.replace("T = 30", "T = 1000000000000"))
    cases.append(("sweep: spec path 'eps=1.toml'", ["sweep", eq, "--out", tmp / "out-eq", "--no-progress"]))
    return cases


def cli_cases(tmp: Path) -> list[tuple[str, list]]:
    """Issue 22 items 9-12 as (label, argv)."""
    return [
        ("audit sgd --trials 2e7 --T 1", ["audit", "--algorithm", "sgd", "--trials", "20000000", "--T", "1"]),
        ("stability sgd --reps 1e7", ["stability", "--algorithm", "sgd", "--reps", "10000000"]),
        ("audit --trials 1e8 --max-work 1e30", ["audit", "--algorithm", "sgd", "--trials", "1e8", "--max-work",
                                                "1e30"]),
        ("audit dpsgd-pl --level 1e10", ["audit", "--algorithm", "dpsgd-pl", "--trials", "200", "--level", "1e10",
                                         "--eps", "1"]),
        ("stability --over eta --values 50,100", ["stability", "--algorithm", "sgd", "--reps", "20", "--over", "eta",
                                                  "--values", "50,100"]),
        ("calibrate --beta 5e-324", ["calibrate", "--algorithm", "dpsgd-rdp", "--n", "1000", "--eps", "1", "--delta",
                                     "1e-5", "--T", "1000", "--G", "1", "--beta", "5e-324"]),
        ("account --sigma 1e9", ["account", "--algorithm", "dpsgd-rdp", "--n", "1000", "--eps", "1", "--delta",
                                 "1e-5", "--T", "1000", "--G", "1", "--sigma", "1e9", "--fast"]),
        ("account --sigma 1e-6 (PLD)", ["account", "--algorithm", "dpsgd-rdp", "--n", "1000", "--eps", "1",
                                        "--delta", "1e-5", "--T", "1000", "--G", "1", "--sigma", "1e-6"]),
        ("privacy --noise-multiplier 1e-301", ["privacy", "--n", "1000", "--batch-size", "10", "--epochs", "1",
                                               "--noise-multiplier", "1e-301", "--delta", "1e-5"]),
        ("privacy --noise-multiplier 1e-3 (PLD)", ["privacy", "--n", "1000", "--batch-size", "10", "--epochs", "1",
                                                   "--noise-multiplier", "1e-3", "--delta", "1e-5"]),
        ("audit --trials 1e308", ["audit", "--algorithm", "sgd", "--trials", "1e308"]),
        ("calibrate --n 1000000000001", ["calibrate", "--algorithm", "dpsgd-rdp", "--n", "1000000000001", "--eps",
                                         "1"]),
        ("stability --param etaa=0.5", ["stability", "--algorithm", "sgd", "--reps", "20", "--param", "etaa=0.5"]),
        ("tables --json", ["tables", "--json"]),
        ("reproduce wang-nonsmooth-fig1 --reps 3", ["reproduce", "wang-nonsmooth-fig1", "--reps", "3", "--out",
                                                    tmp / "rep"]),
        ("reproduce kang-pidp-sec7 --reps 10000", ["reproduce", "kang-pidp-sec7", "--reps", "10000", "--out",
                                                   tmp / "rep"]),
    ]


# ---------------------------------------------------------------------------------------------------------------
# The dashboard's cases (issue 22, items 1-5): what the server does for one hostile upload or link, as a Python
# snippet run in a child process (CPU seconds and peak RSS from os.wait4, as for the commands above).  The same
# snippet runs against --before DIR: there the old page code ran the same library calls on page load.

_DASH_ROWS = 2_000_000  # the Parquet upload: 2 M rows in about 4 MB


def measure_snippet(code: str, *, code_dir: Path, timeout: float = 60.0, mem_gb: float | None = None) -> dict:
    """CPU seconds, wall seconds, peak RSS (MB) and the last output line of ``python -c code`` run in ``code_dir``
    (the snippet prints its own one-line outcome)."""
    with tempfile.TemporaryFile() as out:
        t0 = time.perf_counter()
        proc = subprocess.Popen([sys.executable, "-c", _HWM_AT_EXIT + code], stdout=out, stderr=subprocess.STDOUT, cwd=str(code_dir),
                                env={**os.environ, "PYTHONPATH": str(code_dir), "OPENBLAS_NUM_THREADS": "1",
                                     "OMP_NUM_THREADS": "1", "DPVIZ_WORKERS": "0"},
                                preexec_fn=_limit_memory(mem_gb) if mem_gb else None)
        killed, hwm = False, 0
        while True:
            hwm = max(hwm, _vm_hwm(proc.pid))
            pid, status, usage = os.wait4(proc.pid, os.WNOHANG)
            if pid:
                break
            if time.perf_counter() - t0 > timeout:
                proc.kill()
                _, status, usage = os.wait4(proc.pid, 0)
                killed = True
                break
            time.sleep(0.02)
        wall = time.perf_counter() - t0
        out.seek(0)
        lines = []
        for ln in out.read().decode(errors="replace").splitlines():
            if ln.startswith("__hwm__ "):
                hwm = max(hwm, int(ln.split()[1]))
            elif ln.strip() and "WARNING streamlit" not in ln and "No runtime found" not in ln:
                lines.append(ln)
    last = lines[-1] if lines else ""
    if killed:
        outcome = f"killed at {timeout:g} s"
    elif "MemoryError" in " ".join(lines):
        outcome = "MemoryError" + (f" at the {mem_gb:g} GB limit" if mem_gb else "")
    else:
        outcome = last[:150]
    # peak resident memory of the snippet's own process (VmHWM: ru_maxrss would include this parent's memory at the
    # fork, which holds the generated files)
    return {"cpu": usage.ru_utime + usage.ru_stime, "wall": wall, "rss_mb": hwm / 1024, "outcome": outcome}


_HWM_AT_EXIT = """
import atexit
def _hwm():
    for ln in open("/proc/self/status"):
        if ln.startswith("VmHWM:"):
            print("__hwm__", ln.split()[1], flush=True)
atexit.register(_hwm)
"""


def _vm_hwm(pid: int) -> int:
    """Peak resident memory (kB) of a running process so far (/proc/PID/status VmHWM); 0 once it is gone."""
    try:
        with open(f"/proc/{pid}/status") as fh:
            for ln in fh:
                if ln.startswith("VmHWM:"):
                    return int(ln.split()[1])
    except OSError:
        pass
    return 0


def _hostile_parquet(path: Path, rows: int, text: bool) -> None:
    """A sweep-shaped Parquet file of ``rows`` identical rows (a few MB for millions of rows); ``text=True`` adds
    a column of distinct 40-character strings (the issue's text-column variant)."""
    import numpy as np
    import pyarrow as pa
    import pyarrow.parquet as pq

    cols = {"algorithm": pa.array(["sgd"] * rows), "rep": pa.array(np.arange(rows) % 100),
            "pop_risk": pa.array(np.ones(rows)), "excess_risk": pa.array(np.ones(rows)),
            "spec_hash": pa.array(["h"] * rows), "seed": pa.array(np.zeros(rows, dtype=np.int64)),
            "dpviz_version": pa.array(["0"] * rows), "n": pa.array(100 + np.arange(rows) % 2),
            "eps": pa.array(np.ones(rows))}
    for k in range(16):
        cols[f"extra{k}"] = pa.array(np.zeros(rows))
    if text:
        cols["note"] = pa.array([f"{i:040d}" for i in range(rows)])
    pq.write_table(pa.table(cols), path, compression="zstd")


def _bomb_parquet(path: Path, rows: int, size: int) -> None:
    """Issue 34 item 1: a sweep-shaped Parquet file whose dictionary-encoded text column points ``rows`` times at
    one string of ``size`` characters (a few KB on disk, rows x size bytes once decoded; no Arrow schema stored, so a
    reader sees a plain text column and materialises every row's string)."""
    import numpy as np
    import pyarrow as pa
    import pyarrow.parquet as pq

    cols = {"algorithm": pa.array(["sgd"] * rows), "rep": pa.array(np.arange(rows)),
            "pop_risk": pa.array(np.ones(rows)), "excess_risk": pa.array(np.ones(rows)),
            "spec_hash": pa.array(["h"] * rows), "seed": pa.array(np.zeros(rows, dtype=np.int64)),
            "dpviz_version": pa.array(["0"] * rows), "n": pa.array(100 + np.arange(rows) % 2),
            "note": pa.DictionaryArray.from_arrays(pa.array(np.zeros(rows, dtype=np.int32)), pa.array(["a" * size]))}
    pq.write_table(pa.table(cols), path, compression="zstd", compression_level=22, store_schema=False)


def _many_cells_zip(path: Path, cells: int) -> None:
    """Issue 34 item 2: a zip of ``cells`` valid cell files (each its own cell id, 4 repetitions), no manifest."""
    import io
    import zipfile

    import numpy as np
    import pyarrow as pa
    import pyarrow.parquet as pq

    with zipfile.ZipFile(path, "w", compression=zipfile.ZIP_DEFLATED) as zf:
        for i in range(cells):
            t = pa.table({"algorithm": ["sgd"] * 4, "rep": np.arange(4), "pop_risk": np.full(4, 0.5),
                          "excess_risk": np.full(4, 0.1), "spec_hash": ["h"] * 4, "seed": np.zeros(4, np.int64),
                          "dpviz_version": ["0"] * 4, "n": np.full(4, 100 + i), "eps": np.ones(4),
                          "cell_id": [f"{i:016x}"] * 4})
            buf = io.BytesIO()
            pq.write_table(t, buf)
            zf.writestr(f"s/cell-{i:016x}.parquet", buf.getvalue())


def _wide_parquet(path: Path, columns: int, row_groups: int = 1) -> None:
    """Issue 34 item 2: a sweep-shaped file with ``columns`` extra columns, or ``row_groups`` row groups."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    rows = max(row_groups, 2)
    cols = {"algorithm": ["sgd"] * rows, "rep": list(range(rows)), "pop_risk": [1.0] * rows,
            "excess_risk": [1.0] * rows, "spec_hash": ["h"] * rows, "seed": [0] * rows, "dpviz_version": ["0"] * rows}
    cols.update({f"x{i}": [0.0] * rows for i in range(columns)})
    pq.write_table(pa.table(cols), path, row_group_size=1 if row_groups > 1 else None)


#: what the Simulate page does with an uploaded sweep: now the pool job workers.open_sweep (a limited child process
#: does the work; DPVIZ_WORKERS=0 here, so the job runs on this thread and "page" is this thread's CPU); before, the
#: page called read_upload(...).warm() on its own thread
_UPLOAD_PAGE = """
import time
from dpviz_ui import sweep_open as so, workers
blob = open({path!r}, "rb").read()
t0 = time.thread_time()
try:
    if hasattr(workers, "open_sweep"):
        d = workers.open_sweep("upload", {name!r}, blob)
    else:
        d = so.read_upload({name!r}, blob).warm()
    out = f"opened: {{d.rows:,}} rows"
except ValueError as exc:
    out = f"refused: {{str(exc)[:110]}}"
print(f"page thread {{time.thread_time() - t0:.2f}} CPU s; {{out}}")
"""

_CSV = """
import time
from dpviz.engine import data
blob = open({path!r}, "rb").read()
t0 = time.process_time()
try:
    data.from_csv(blob, "x")
    print("accepted")
except ValueError as exc:
    print(f"refused in {{time.process_time() - t0:.2f}} s CPU, message {{len(str(exc)):,}} chars: {{str(exc)[:60]}}")
"""

_PARQUET = """
import pickle, time
from dpviz_ui import sweep_open as so
blob = open({path!r}, "rb").read()
try:
    d = so.read_upload("upload.parquet", blob).warm()
except ValueError as exc:
    print("refused before decoding:", str(exc)[:110])
else:
    cached = pickle.loads(pickle.dumps(d))  # the page's st.cache_data: a pickled copy, unpickled on every run
    shown = cached.results(cached.x_choices()[0]) if cached.x_choices() else []
    print(f"opened: {{d.rows:,}} rows, {{len(shown)}} curves")
"""

_AUDIT_LOAD = """
import time
from dpviz_ui import audit_page as ap
state = dict(ap.DEFAULTS, **{state!r})
if hasattr(ap, "estimate"):  # the page now: the estimate only, the run waits for a click above ap.HEAVY_SECONDS
    e = ap.estimate(state)
    print(f"page load: estimate {{e['seconds']:.0f}} s > {{ap.HEAVY_SECONDS:g}} s: waits for a click (nothing ran)"
          if e["seconds"] > ap.HEAVY_SECONDS else f"page load: estimate {{e['seconds']:.1f}} s: runs at once")
else:  # before: the page ran the job as soon as the link was opened
    t0 = time.process_time()
    ap.compute(state)
    print(f"page load ran the job: {{time.process_time() - t0:.0f}} s CPU")
"""

_AUDIT_CHECK = """
import time
from dpviz_ui import audit_page as ap
state = dict(ap.DEFAULTS, **{state!r})
e = ap.estimate(state)["seconds"]
t0 = time.process_time()
ap.compute(state)
m = time.process_time() - t0
print(f"estimate {{e:.1f}} s, measured {{m:.1f}} s CPU: measured / estimate = {{m / e:.2f}}")
"""

_NOTICE = """
import re
from streamlit.testing.v1 import AppTest
at = AppTest.from_file("app.py", default_timeout=120)
q = {{"aud_mode": "[Session expired: log in](https://ev.il/x)", "aud_alg": "![t](http://127.0.0.1:9/track.png)",
      "algorithm": "[x](https://ev.il/y)"}}
for i in range({unknown}):
    q[f"{prefix}x{{i}}"] = "1"
for k, v in q.items():
    at.query_params[k] = v
at.switch_page({page!r})
at.run()
texts = [w.value for w in at.warning]
raw = sum(1 for t in texts if re.search(r"(?<!\\\\)\\]\\((?!\\\\)|https?://", t))
print(f"{{len(texts)}} warning box(es), {{sum(map(len, texts)):,}} chars, {{raw}} with a live link")
"""

_UPLOAD_LIMIT = """
import tomllib
from dpviz_ui import sweep_open as so
server = tomllib.load(open(".streamlit/config.toml", "rb"))["server"]["maxUploadSize"]
print(f"uploader says at most {so.MAX_UPLOAD_BYTES // 1_000_000} MB; the server accepts {server} MB")
"""


def dashboard_cases(tmp: Path) -> list[tuple[str, str, float]]:
    """Issue 22 items 1-5 as (label, Python snippet, the 'after' run's time limit in s)."""
    cases = []
    for cols in (10_000, 40_000, 80_000):  # the issue: 2.1 / 19.8 / 77 s of pandas' renaming before
        path = tmp / f"header{cols}.csv"
        path.write_text(",".join(["x"] * cols) + "\n" + ",".join(["1"] * cols) + "\n")
        cases.append((f"CSV header {cols:,} x 'x' ({path.stat().st_size / 1e3:.0f} KB)",
                      _CSV.format(path=str(path)), 60.0))
    for text in (False, True):
        path = tmp / f"sweep{int(text)}.parquet"
        _hostile_parquet(path, _DASH_ROWS, text)
        cases.append((f"Parquet {_DASH_ROWS / 1e6:g} M rows{' + text' if text else ''} "
                      f"({path.stat().st_size / 1e6:.1f} MB)", _PARQUET.format(path=str(path)), 120.0))
    ok = tmp / "sweep-ok.parquet"
    _hostile_parquet(ok, 150_000, False)  # within the limit: the peak of an accepted upload
    cases.append(("Parquet 150 000 rows (accepted)", _PARQUET.format(path=str(ok)), 120.0))
    links = {"/audit?aud_trials=200000&aud_T=2000": {"aud_trials": 200000, "aud_T": 2000},
             "/audit stability over eta, aud_reps=100000, T=2000": {"aud_mode": "stability", "aud_over": "eta",
                                                                    "aud_reps": 100000, "aud_T": 2000}}
    for label, state in links.items():
        cases.append((f"link {label}", _AUDIT_LOAD.format(state=state), 60.0))
    # the estimate beside the measured CPU time (after only: the old code had no estimate)
    for state in ({"aud_trials": 20000, "aud_T": 2000}, {"aud_alg": "pairwise-sgd", "aud_trials": 2000, "aud_T": 400},
                  {"aud_mode": "stability", "aud_over": "eta", "aud_reps": 20000, "aud_T": 500}):
        cases.append((f"estimate check {state}", _AUDIT_CHECK.format(state=state), 600.0))
    for page, prefix in (("pages/audit.py", "aud_"), ("pages/calibrate.py", "")):
        cases.append((f"link payloads + 990 {prefix}x{{i}} on {page[6:-3]}",
                      _NOTICE.format(unknown=990, page=page, prefix=prefix), 120.0))
    cases.append(("sweep uploader's stated limit", _UPLOAD_LIMIT, 60.0))
    # issue 34: the dictionary bomb (1 000 rows x one 1 MB string: 1 GB decoded; 100 000 rows: 100 GB), the many-cell
    # zip (the 4 990 cells, and 1 990 within the cap), the wide Parquet (30 000 columns) and 10 000 row groups
    for rows in (1_000, 100_000):
        path = tmp / f"bomb{rows}.parquet"
        _bomb_parquet(path, rows, 1_000_000)
        cases.append((f"dictionary bomb {rows:,} x 1 MB ({path.stat().st_size / 1e3:.1f} KB)",
                      _UPLOAD_PAGE.format(path=str(path), name=path.name), 120.0))
    for cells in (4_990, 1_990):
        path = tmp / f"cells{cells}.zip"
        _many_cells_zip(path, cells)
        cases.append((f"zip of {cells:,} valid cells ({path.stat().st_size / 1e6:.2f} MB)",
                      _UPLOAD_PAGE.format(path=str(path), name=path.name), 120.0))
    for columns, groups, label in ((30_000, 1, "30 000 columns"), (3, 10_000, "10 000 row groups")):
        path = tmp / f"wide{columns}-{groups}.parquet"
        _wide_parquet(path, columns, groups)
        cases.append((f"Parquet with {label} ({path.stat().st_size / 1e6:.1f} MB)",
                      _UPLOAD_PAGE.format(path=str(path), name=path.name), 120.0))
    # the memory a hostile CSV of at most MAX_CSV_BYTES (5 MB) takes to parse (peak of the whole process, imports
    # included): what dpviz.engine.data.CSV_MEMORY_LIMIT, the hard limit workers.load_csv sets, is measured against
    csvs = {"one number of 4.9 M digits": b"a,x\n" + b"1" * 4_900_000 + b",2\n" + b"3,4\n" * 20,
            "one text value of 4 M chars": b"a,x\n" + b"y" * 4_000_000 + b",2\n" + b"3,4\n" * 20,
            "1 000 x 999 text cells": (",".join(f"c{i}" for i in range(999)) + ",x\n").encode()
            + (",".join(["y"] * 1000) + "\n").encode() * 999,
            "200 000 rows of numbers (accepted)": ("a,x\n" + "".join(f"{i * 0.37:.6f},{i % 7}\n"
                                                                      for i in range(200_000))).encode()}
    for i, (label, blob) in enumerate(csvs.items()):
        path = tmp / f"memory{i}.csv"
        path.write_bytes(blob)
        cases.append((f"CSV memory: {label} ({len(blob) / 1e6:.1f} MB)", _CSV.format(path=str(path)), 60.0))
    return cases


def run_dashboard(tmp: Path, before: Path | None, timeout: float, match: str | None = None) -> None:
    print(f"{'dashboard case':<42} {'when':<6} {'CPU s':>7} {'peak MB':>8}  outcome")
    for label, code, after_timeout in dashboard_cases(tmp):
        if match and not any(m in label for m in match.split("|")):
            continue
        runs = [("after", ROOT, dict(timeout=after_timeout))]
        if before is not None and not label.startswith("estimate check"):
            runs.insert(0, ("before", before.resolve(), dict(timeout=timeout, mem_gb=3.0)))
        for when, code_dir, kw in runs:
            r = measure_snippet(code, code_dir=code_dir, **kw)
            print(f"{label[:42]:<42} {when:<6} {r['cpu']:7.2f} {r['rss_mb']:8.0f}  {r['outcome']}", flush=True)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--before", type=Path, default=None, help="a checkout without the fix, measured too (limited)")
    ap.add_argument("--only", choices=("cli", "sweep", "dashboard"), default=None)
    ap.add_argument("--match", default=None, help="only the dashboard cases whose label contains this text (a|b: either)")
    ap.add_argument("--timeout", type=float, default=60.0, help="wall-time limit of a 'before' run (s)")
    args = ap.parse_args()
    with tempfile.TemporaryDirectory(prefix="dpviz-hostile-") as tmp:
        tmp = Path(tmp)
        if args.only in (None, "dashboard"):
            run_dashboard(tmp, args.before, args.timeout, args.match)
        cases = []
        if args.only in (None, "sweep"):
            cases += sweep_cases(tmp)
        if args.only in (None, "cli"):
            cases += cli_cases(tmp)
        if cases:
            print(f"{'case':<42} {'when':<6} {'CPU s':>7} {'peak MB':>8}  outcome")
        for label, argv in cases:
            runs = [("after", ROOT, dict(timeout=600.0))]
            if args.before is not None:
                runs.insert(0, ("before", args.before.resolve(), dict(timeout=args.timeout, mem_gb=3.0)))
            for when, code_dir, kw in runs:
                r = measure(argv, code_dir=code_dir, **kw)
                rss = "killed" if r["rss_mb"] is None else f"{r['rss_mb']:.0f}"
                print(f"{label[:42]:<42} {when:<6} {r['cpu']:7.2f} {rss:>8}  {r['outcome']}", flush=True)


if __name__ == "__main__":
    main()
