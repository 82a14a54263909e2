"""Hostile inputs of issue 22: CPU seconds and peak memory of each, before and after the fix.

Each case is a real command (``python -m dpviz …``, spec files written to a temporary folder) run in a child process
whose CPU time (user + system) and peak resident memory are read from ``os.wait4``.  With ``--before DIR`` the same
commands also run against another checkout (e.g. the main branch before the fix) under a 60 s wall-time limit and a
3 GB address-space limit, so an unfixed case ends as "killed at 60 s" or "MemoryError at the 3 GB limit" instead of
taking hours or the machine's memory.

Targets (issue 22): no single spec or command costs more than 5 s of CPU or 1 GB of memory before it is refused, and
every refusal is one line naming the input and the limit.

Run: .venv/bin/python benchmarks/bench_hostile.py [--before /path/to/old/checkout] [--only cli|sweep]

The dashboard's cases (uploads, links) are in their own functions (``dashboard_cases``) when present; this file's
CLI and sweep cases are ``cli_cases`` and ``sweep_cases``.
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


def measure(argv, *, code_dir: Path, timeout: float = 60.0, mem_gb: float | None = None) -> dict:
    """CPU seconds, wall seconds, peak RSS (MB), exit code and the last stderr line of ``python -m dpviz argv``."""
    with tempfile.TemporaryFile() as err:
        t0 = time.perf_counter()
        proc = subprocess.Popen([sys.executable, "-m", "dpviz", *map(str, argv)], stdout=subprocess.DEVNULL,
                                stderr=err, cwd=str(code_dir), env={**os.environ, "PYTHONPATH": str(code_dir)},
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
    return {"cpu": usage.ru_utime + usage.ru_stime, "wall": wall, "rss_mb": usage.ru_maxrss / 1024,
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


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--before", type=Path, default=None, help="a checkout without the fix, measured too (limited)")
    ap.add_argument("--only", choices=("cli", "sweep"), default=None)
    ap.add_argument("--timeout", type=float, default=60.0, help="wall-time limit of a 'before' run (s)")
    args = ap.parse_args()
    with tempfile.TemporaryDirectory(prefix="dpviz-hostile-") as tmp:
        tmp = Path(tmp)
        cases = []
        if args.only in (None, "sweep"):
            cases += sweep_cases(tmp)
        if args.only in (None, "cli"):
            cases += cli_cases(tmp)
        print(f"{'case':<42} {'when':<6} {'CPU s':>7} {'peak MB':>8}  outcome")
        for label, argv in cases:
            runs = [("after", ROOT, dict(timeout=600.0))]
            if args.before is not None:
                runs.insert(0, ("before", args.before.resolve(), dict(timeout=args.timeout, mem_gb=3.0)))
            for when, code_dir, kw in runs:
                r = measure(argv, code_dir=code_dir, **kw)
                print(f"{label[:42]:<42} {when:<6} {r['cpu']:7.2f} {r['rss_mb']:8.0f}  {r['outcome']}", flush=True)


if __name__ == "__main__":
    main()
