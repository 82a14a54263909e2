"""A lecture hall: `.venv/bin/python benchmarks/bench_class.py --students 60 --steps 6 [--lesson gaussian]`.

Starts the dashboard as `make run` does (`python serve.py`, with a temporary DPVIZ_DATA_DIR: a fresh SQLite store),
starts a live class of the lesson, and connects a presenter and N students **over Streamlit's own websocket
protocol** (the BackMsg / ForwardMsg messages a browser sends and receives, as `bench_load.py` does), not N browsers:
the figures are the server's.  Each simulated student behaves as the page's script in a browser would: it runs the
join link, re-runs the page's follow fragment every time the server's auto-rerun message asks for it (every second),
and, on every question step, submits a prediction through the form (the text box's value and the submit button's
trigger, as the browser sends them) and waits for the page to say it is recorded.  The presenter presses Next
(the button's trigger) S times; on a question step it first waits for every answer, then presses Reveal.

Printed: one JSON line with `students`, `steps`, `p50_follow_s` / `p95_follow_s` / `max_follow_s` (from the
presenter's Next press to a student's page showing the new step's header; one sample per student per step),
`p50_reveal_s` / `p95_reveal_s` (Reveal press to a student seeing the answer), `answers_sent` (predictions the
students submitted), `answers_counted` (rows in the store at the end, one per student per question),
`server_cpu_s` (CPU time of the server and its worker processes during the class), `server_peak_mb` (peak resident
memory of the server and its workers, sampled every 0.1 s), `wall_s`.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import re
import statistics
import sys
import tempfile
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import psutil  # noqa: E402
import websockets  # noqa: E402  (installed with streamlit)
from streamlit.proto.BackMsg_pb2 import BackMsg  # noqa: E402
from streamlit.proto.ForwardMsg_pb2 import ForwardMsg  # noqa: E402
from streamlit.proto.WidgetStates_pb2 import WidgetState  # noqa: E402

HEADER = re.compile(r"^(\d+)\. ")
#: longest wait for a student's page (a slower page counts as a very late sample, or is reported missing)
WAIT_S = 120.0


class Client:
    """One browser tab on the Live class page, spoken to over the websocket protocol."""

    def __init__(self, url: str, query: str):
        self.ws_url = url.replace("http", "ws") + "/_stcore/stream"
        self.query = query
        self.ws = None
        self.widgets: dict[str, object] = {}  # label -> element proto (the latest seen)
        self.step_seen: dict[int, float] = {}  # step -> when its header first arrived
        self.texts: list[tuple[float, str]] = []
        self.finished = asyncio.Event()
        self.timers: dict[str, asyncio.Task] = {}
        self.announced: set[str] = set()
        self.page_hash = ""
        self.reader: asyncio.Task | None = None
        self.errors: list[str] = []

    async def start(self) -> None:
        self.ws = await websockets.connect(self.ws_url, subprotocols=["streamlit"], max_size=2**27,
                                           ping_interval=None)
        self.reader = asyncio.create_task(self._read())
        await self.rerun()

    async def close(self) -> None:
        for t in self.timers.values():
            t.cancel()
        if self.reader:
            self.reader.cancel()
        await self.ws.close()

    async def rerun(self, widgets=(), fragment_id: str | None = None) -> None:
        m = BackMsg()
        m.rerun_script.query_string = self.query
        m.rerun_script.page_name = "class"
        if self.page_hash:  # as the browser does: the page the server said it runs (st.rerun keeps to it)
            m.rerun_script.page_script_hash = self.page_hash
        m.rerun_script.context_info.timezone = "UTC"
        if fragment_id:
            m.rerun_script.fragment_id = fragment_id
            m.rerun_script.is_auto_rerun = True
        for w in widgets:
            m.rerun_script.widget_states.widgets.append(w)
        if fragment_id is None:
            self.finished.clear()
        await self.ws.send(m.SerializeToString())

    async def _tick(self, fragment_id: str, interval: float) -> None:
        while True:  # the browser's setInterval for an st.fragment(run_every=...)
            await asyncio.sleep(interval)
            try:
                await self.rerun(fragment_id=fragment_id)
            except websockets.ConnectionClosed:
                return

    async def _read(self) -> None:
        try:
            while True:
                f = ForwardMsg()
                f.ParseFromString(await self.ws.recv())
                kind = f.WhichOneof("type")
                now = time.perf_counter()
                if kind == "navigation" and f.navigation.page_script_hash:
                    self.page_hash = f.navigation.page_script_hash
                elif kind == "auto_rerun":
                    fid = f.auto_rerun.fragment_id
                    self.announced.add(fid)
                    if fid not in self.timers:
                        self.timers[fid] = asyncio.create_task(self._tick(fid, f.auto_rerun.interval))
                elif kind == "delta" and f.delta.WhichOneof("type") == "new_element":
                    el = f.delta.new_element
                    t = el.WhichOneof("type")
                    if t == "heading":
                        m = HEADER.match(el.heading.body)
                        if m:
                            if int(m.group(1)) not in self.step_seen:  # the new step's form comes after it
                                self.widgets.pop("Your prediction", None)
                                self.widgets.pop("Submit prediction", None)
                            self.step_seen.setdefault(int(m.group(1)), now)
                    elif t in ("button", "text_input", "radio"):
                        self.widgets[getattr(el, t).label] = getattr(el, t)
                    elif t in ("markdown", "alert"):
                        body = el.markdown.body if t == "markdown" else el.alert.body
                        self.texts.append((now, body))
                elif kind == "script_finished" and f.script_finished == ForwardMsg.FINISHED_SUCCESSFULLY:
                    # a full run: the browser keeps the timers of the fragments this run declared, drops the others
                    for fid in [fid for fid in self.timers if fid not in self.announced]:
                        self.timers.pop(fid).cancel()
                    self.announced = set()
                    self.finished.set()
        except (websockets.ConnectionClosed, asyncio.CancelledError):
            return
        except Exception as exc:  # noqa: BLE001 - reported in the output
            self.errors.append(repr(exc))

    async def click(self, label: str, extra=()) -> float:
        w = WidgetState()
        w.id = self.widgets[label].id
        w.trigger_value = True
        t0 = time.perf_counter()
        await self.rerun(widgets=[*extra, w])
        return t0

    async def wait_text(self, needle: str, since: float, timeout: float) -> float | None:
        deadline = time.perf_counter() + timeout
        while time.perf_counter() < deadline:
            for t, body in self.texts:
                if t >= since and needle in body:
                    return t
            await asyncio.sleep(0.05)
        return None

    async def wait_step(self, k: int, timeout: float) -> float | None:
        deadline = time.perf_counter() + timeout
        while time.perf_counter() < deadline:
            if k in self.step_seen:
                return self.step_seen[k]
            await asyncio.sleep(0.02)
        return None


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


def _prediction(question, rng: random.Random) -> str:
    if question.kind == "choice":
        return rng.choice(question.options)
    return f"{rng.lognormvariate(0.7, 1.0):.3g}"


async def run_class(url: str, code: str, key: str, lesson, n: int, steps: int, seed: int) -> dict:
    rng = random.Random(seed)
    from dpviz_ui.classroom import store as S

    pres = Client(url, f"cls_code={code}&cls_key={key}")
    await pres.start()
    await asyncio.wait_for(pres.finished.wait(), 120)
    students = [Client(url, f"cls_join={code}&cls_me={rng.getrandbits(64):016x}") for _ in range(n)]
    for i in range(0, n, 5):  # students arrive in small groups, as they scan the QR code
        await asyncio.gather(*(s.start() for s in students[i:i + 5]))
        await asyncio.sleep(0.5)
    joined = await asyncio.gather(*(s.wait_step(1, WAIT_S) for s in students))
    for s, t in zip(students, joined):
        if t is None:
            s.errors.append(f"did not see the first step within {WAIT_S:g} s")
    follow, reveal, sent, questions = [], [], 0, []
    k = 1
    for _move in range(steps):
        step = lesson.steps[k - 1]
        if step.question:
            questions.append(k)

            async def answer(s: Client) -> bool:
                await asyncio.sleep(rng.uniform(0, 2.0))  # students type at their own pace
                for _ in range(600):
                    if "Your prediction" in s.widgets and "Submit prediction" in s.widgets:
                        break
                    await asyncio.sleep(0.1)
                else:
                    s.errors.append(f"no prediction box on step {k}")
                    return False
                box = s.widgets["Your prediction"]
                w = WidgetState()
                w.id = box.id
                w.string_value = _prediction(step.question, rng)
                t0 = await s.click("Submit prediction", extra=[w])
                return await s.wait_text("is recorded", t0, WAIT_S) is not None

            ok = await asyncio.gather(*(answer(s) for s in students))
            sent += sum(ok)
            await asyncio.sleep(1.5)  # the presenter glances at the count, then reveals
            t0 = await pres.click("Reveal")
            got = await asyncio.gather(*(s.wait_text("The answer:", t0, WAIT_S) for s in students))
            reveal += [g - t0 for g in got if g is not None]
            await asyncio.wait_for(pres.finished.wait(), WAIT_S)
        await asyncio.sleep(1.0)
        k += 1
        t0 = await pres.click("Next ▶")
        got = await asyncio.gather(*(s.wait_step(k, WAIT_S) for s in students))
        missing = sum(g is None for g in got)
        if missing:
            print(f"  warning: {missing} students did not see step {k} within {WAIT_S:g} s", file=sys.stderr)
        follow += [g - t0 for g in got if g is not None]
        await asyncio.wait_for(pres.finished.wait(), WAIT_S)
    store = S.ClassStore()
    counted = sum(store.count(code, q) for q in questions)
    errors = [e for c in [pres, *students] for e in c.errors]
    for c in [pres, *students]:
        await c.close()
    return {"follow": follow, "reveal": reveal, "sent": sent, "counted": counted, "errors": errors}


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
    saved = {k: os.environ.get(k) for k in ("DPVIZ_DATA_DIR", "DPVIZ_CLASS_DB")}
    with tempfile.TemporaryDirectory(prefix="dpviz-bench-class-") as data:
        os.environ["DPVIZ_DATA_DIR"] = data  # a fresh SQLite store, shared by the server and this process
        os.environ.pop("DPVIZ_CLASS_DB", None)
        import serve
        from dpviz_ui.classroom import store as S

        proc, url = serve.launch(timeout=180)
        try:
            code, key = S.ClassStore().create(lesson.id, len(lesson.steps))
            server = psutil.Process(proc.pid)
            sampler = Sampler(proc.pid)
            sampler.start()
            cpu0, t0 = _cpu(server), time.perf_counter()
            res = asyncio.run(run_class(url, code, key, lesson, args.students, args.steps, args.seed))
            cpu, wall = _cpu(server) - cpu0, time.perf_counter() - t0
            sampler.stop.set()
            sampler.join()
        finally:
            proc.terminate()
            try:
                proc.wait(timeout=30)
            except Exception:  # noqa: BLE001
                proc.kill()
            for k, v in saved.items():
                if v is None:
                    os.environ.pop(k, None)
                else:
                    os.environ[k] = v
    out = {"students": args.students, "steps": args.steps, "lesson": lesson.id,
           "p50_follow_s": _q(res["follow"], 0.5), "p95_follow_s": _q(res["follow"], 0.95),
           "max_follow_s": _q(res["follow"], 1.0), "follow_samples": len(res["follow"]),
           "p50_reveal_s": _q(res["reveal"], 0.5), "p95_reveal_s": _q(res["reveal"], 0.95),
           "answers_sent": res["sent"], "answers_counted": res["counted"], "server_cpu_s": round(cpu, 1),
           "server_peak_mb": round(sampler.peak / 2**20), "wall_s": round(wall, 1),
           "client_errors": len(res["errors"]), "load_avg_1min": round(os.getloadavg()[0], 1)}
    print(json.dumps(out))
    return out


if __name__ == "__main__":
    main()
