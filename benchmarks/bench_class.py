"""A lecture hall: `.venv/bin/python benchmarks/bench_class.py --students 60 --steps 6 [--lesson gaussian]`.

Starts the dashboard as `make run` does (`python serve.py`, with a temporary DPVIZ_DATA_DIR: a fresh SQLite store),
starts a live class of the lesson, and connects a presenter and N students **over Streamlit's own websocket
protocol** (the BackMsg / ForwardMsg messages a browser sends and receives, as `bench_load.py` does), not N browsers:
the figures are the server's.  The presenter and the students are `benchmarks/class_driver.py` (also used by
`tests/test_class_follow.py`): each simulated student behaves as the page's script in a browser would: it runs the
join link, draws the runs of its step that the server pushes when the lecturer moves, re-runs the page's follow
fragment every time the server's auto-rerun message asks for it (a fallback, every 5 s),
and, on every question step, submits a prediction through the form (the text box's value and the submit button's
trigger, as the browser sends them) and waits for the page to say it is recorded.  The presenter presses Next
(the button's trigger) S times; on a question step it first waits for every answer, then presses Reveal.

Printed: one JSON line with `students`, `steps`, `p50_follow_s` / `p95_follow_s` / `max_follow_s` (from the
presenter's Next press to a student's page showing the new step's header; one sample per student per step),
`p50_reveal_s` / `p95_reveal_s` (Reveal press to a student seeing the answer), `answers_sent` (predictions the
students submitted), `answers_counted` (rows in the store at the end, one per student per question),
`server_cpu_s` (CPU time of the server and its worker processes during the class), `server_peak_mb` (peak resident
memory of the server and its workers, sampled every 0.1 s), `wall_s`, `follow_checks` (the students' fragment timer runs), `pushed_follows` (follow samples the server pushed: the
student's tab sent nothing between Next and the new step)
and `student_kb` (what the server sent to all students), `client_errors`, `load_avg_1min_before` / `load_avg_1min` (the 1-minute load average before the
server started and at the end: the machine is shared).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import sys
import tempfile
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))

import psutil  # noqa: E402

from class_driver import class_server, run_class  # noqa: E402

class Sampler(threading.Thread):
    """Peak resident memory of the server and its children, sampled every 0.1 s."""

    def __init__(self, pid: int):
        super().__init__(daemon=True)
        self.proc = psutil.Process(pid)
        self.peak = 0
        self.stop = threading.Event()

    def run(self) -> None:
        while not self.stop.is_set():
            self.peak = max(self.peak, _rss(self.proc))
            time.sleep(0.1)


def _tree(proc: psutil.Process) -> list[psutil.Process]:
    try:
        return [proc] + proc.children(recursive=True)
    except psutil.NoSuchProcess:
        return []


def _rss(proc: psutil.Process) -> int:
    total = 0
    for p in _tree(proc):
        try:
            total += p.memory_info().rss
        except psutil.NoSuchProcess:
            pass
    return total


def _cpu(proc: psutil.Process) -> float:
    total = 0.0
    for p in _tree(proc):
        try:
            c = p.cpu_times()
            total += c.user + c.system
        except psutil.NoSuchProcess:
            pass
    return total


def _q(xs: list[float], p: float) -> float | None:
    if not xs:
        return None
    xs = sorted(xs)
    return round(xs[min(len(xs) - 1, int(round(p * (len(xs) - 1))))], 3)


def main(argv=None) -> dict:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--students", type=int, default=20)
    ap.add_argument("--steps", type=int, default=6, help="Next presses (at most the lesson's steps - 1)")
    ap.add_argument("--lesson", default="gaussian")
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args(argv)
    from dpviz_ui import lessons as L

    lesson = L.get_lesson(args.lesson)
    if not 1 <= args.steps <= len(lesson.steps) - 1:
        ap.error(f"--steps must be from 1 to {len(lesson.steps) - 1} for the lesson {args.lesson!r}")
    if args.students < 1:
        ap.error("--students must be at least 1")
    load0 = os.getloadavg()[0]
    with tempfile.TemporaryDirectory(prefix="dpviz-bench-class-") as data, class_server(data) as (proc, url):
        from dpviz_ui.classroom import store as S

        code, key = S.ClassStore().create(lesson.id, len(lesson.steps))
        server = psutil.Process(proc.pid)
        sampler = Sampler(proc.pid)
        sampler.start()
        cpu0, t0 = _cpu(server), time.perf_counter()
        res = asyncio.run(run_class(url, code, key, lesson, args.students, args.steps, args.seed))
        cpu, wall = _cpu(server) - cpu0, time.perf_counter() - t0
        sampler.stop.set()
        sampler.join()
    for e in sorted(set(res["errors"])):
        print(f"  warning: {e}", file=sys.stderr)
    out = {"students": args.students, "steps": args.steps, "lesson": lesson.id,
           "p50_follow_s": _q(res["follow"], 0.5), "p95_follow_s": _q(res["follow"], 0.95),
           "max_follow_s": _q(res["follow"], 1.0), "follow_samples": len(res["follow"]),
           "p50_reveal_s": _q(res["reveal"], 0.5), "p95_reveal_s": _q(res["reveal"], 0.95),
           "answers_sent": res["sent"], "answers_counted": res["counted"], "server_cpu_s": round(cpu, 1),
           "server_peak_mb": round(sampler.peak / 2**20), "wall_s": round(wall, 1),
           "follow_checks": res["fragment_runs"], "pushed_follows": res["pushed_follows"],
           "student_kb": round(res["student_bytes"] / 1024),
           "client_errors": len(res["errors"]), "load_avg_1min_before": round(load0, 1),
           "load_avg_1min": round(os.getloadavg()[0], 1)}
    print(json.dumps(out))
    return out


if __name__ == "__main__":
    main()
