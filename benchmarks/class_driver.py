"""A presenter and N students on the Live class page, spoken to over Streamlit's websocket protocol (not browsers).

Used by ``benchmarks/bench_class.py`` (timings, server CPU and memory) and ``tests/test_class_follow.py`` (that every
student follows every step and every answer is counted once; no timing asserted).  Each simulated student behaves as
the page's script in a browser would: it runs the join link, re-runs the page's follow fragment every time the
server's auto-rerun message asks for it (as the browser's timer does: every 5 s since the server pushes the
lecturer's moves), reads whatever runs the server sends it -- also the ones it did not ask for, the pushed reruns
of its step (a browser simply renders the ForwardMsgs of a run the server started) -- and, on every question step,
submits a prediction through the form (the text box's value and the submit button's trigger, as the browser sends
them: a rerun of the fragment the form is drawn in) and waits for the page to say it is recorded.  The presenter
presses Next (the button's trigger) S times; on a question step it first waits for every answer, then presses Reveal.
``pushed_follows``: the follow samples whose new step arrived without the student's tab sending anything after Next.
"""

from __future__ import annotations

import asyncio
import collections
import contextlib
import os
import random
import re
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

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
        self.widget_fragment: dict[str, str] = {}  # label -> the fragment it was drawn in ("" outside fragments)
        self.step_seen: dict[int, float] = {}  # step -> when its header first arrived
        self.texts: list[tuple[float, str]] = []
        self.finished = asyncio.Event()
        self.timers: dict[str, asyncio.Task] = {}
        self.announced: set[str] = set()
        self.page_hash = ""
        self.reader: asyncio.Task | None = None
        self.errors: list[str] = []
        self.bytes_received = 0
        self.fragment_runs = 0  # follow checks this tab asked for (its fragment timer's ticks)
        self.sent_at: list[float] = []  # when this tab sent each rerun request (a tick, a click, the join)
        self.full_runs = 0  # runs of the whole page the server started for this tab
        self.ends: list[str] = []  # how each script run ended (script_finished statuses)
        self.log: collections.deque = collections.deque(maxlen=2000)  # (time, what was sent or received), for reports

    async def start(self) -> None:
        # a busy server (120 students arriving) can take longer than websockets' default 10 s to answer the handshake
        self.ws = await websockets.connect(self.ws_url, subprotocols=["streamlit"], max_size=2**27,
                                           ping_interval=None, open_timeout=WAIT_S)
        self.reader = asyncio.create_task(self._read())
        await self.rerun()

    async def close(self) -> None:
        for t in self.timers.values():
            t.cancel()
        if self.reader:
            self.reader.cancel()
        await self.ws.close()

    async def rerun(self, widgets=(), fragment_id: str | None = None, auto: bool = True) -> None:
        m = BackMsg()
        m.rerun_script.query_string = self.query
        m.rerun_script.page_name = "class"
        if self.page_hash:  # as the browser does: the page the server said it runs (st.rerun keeps to it)
            m.rerun_script.page_script_hash = self.page_hash
        m.rerun_script.context_info.timezone = "UTC"
        if fragment_id:
            m.rerun_script.fragment_id = fragment_id
            m.rerun_script.is_auto_rerun = auto
            self.fragment_runs += auto
        for w in widgets:
            m.rerun_script.widget_states.widgets.append(w)
        if fragment_id is None:
            self.finished.clear()
        self.sent_at.append(time.perf_counter())
        self.log.append((self.sent_at[-1], f"sent rerun fragment={bool(fragment_id)} auto={auto} "
                                           f"widgets={len(widgets)}"))
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
                raw = await self.ws.recv()
                self.bytes_received += len(raw)
                f = ForwardMsg()
                f.ParseFromString(raw)
                kind = f.WhichOneof("type")
                now = time.perf_counter()
                if kind == "script_finished":
                    self.log.append((now, f"{f.metadata.run.script_run_id[:6]} "
                                          f"{ForwardMsg.ScriptFinishedStatus.Name(f.script_finished)}"))
                elif kind == "new_session":
                    run = f.metadata.run
                    self.full_runs += not run.fragment_ids
                    self.log.append((now, f"{'fragment run' if run.fragment_ids else 'run'} {run.script_run_id[:6]} starts"))
                elif kind == "delta" and f.delta.WhichOneof("type") == "new_element":
                    t = f.delta.new_element.WhichOneof("type")
                    if t in ("heading", "alert", "markdown", "button", "text_input"):
                        el = getattr(f.delta.new_element, t)
                        self.log.append((now, f"{t}: {getattr(el, 'body', None) or getattr(el, 'label', '')}"[:60]))
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
                        self.widget_fragment[getattr(el, t).label] = f.delta.fragment_id
                    elif t in ("markdown", "alert"):
                        body = el.markdown.body if t == "markdown" else el.alert.body
                        self.texts.append((now, body))
                elif kind == "script_finished" and f.script_finished not in (
                        ForwardMsg.FINISHED_SUCCESSFULLY, ForwardMsg.FINISHED_FRAGMENT_RUN_SUCCESSFULLY):
                    self.ends.append(ForwardMsg.ScriptFinishedStatus.Name(f.script_finished))
                elif kind == "script_finished" and f.script_finished == ForwardMsg.FINISHED_SUCCESSFULLY:
                    self.ends.append("FINISHED_SUCCESSFULLY")
                    # a full run: the browser keeps the timers of the fragments this run declared, drops the others
                    for fid in [fid for fid in self.timers if fid not in self.announced]:
                        self.timers.pop(fid).cancel()
                    self.announced = set()
                    self.finished.set()
        except (websockets.ConnectionClosed, asyncio.CancelledError):
            return
        except Exception as exc:  # noqa: BLE001 - reported in the output
            self.errors.append(repr(exc))

    def shown(self, last: int = 6) -> list[str]:
        """The page's last texts and how its last runs ended (for a report of what went wrong)."""
        return [body[:80] for _t, body in self.texts[-last:]] + [f"runs: {self.ends[-last:]}"]

    def trace(self, since: float) -> list[str]:
        """What was sent and received from ``since`` - 3 s on (seconds relative to ``since``), for a report."""
        return [f"{t - since:+.2f} {what}" for t, what in self.log if since - 3.0 <= t <= since + 10.0]

    async def click(self, label: str, extra=()) -> float:
        w = WidgetState()
        w.id = self.widgets[label].id
        w.trigger_value = True
        t0 = time.perf_counter()
        # as the browser does: a widget drawn inside a fragment reruns only that fragment
        await self.rerun(widgets=[*extra, w], fragment_id=self.widget_fragment.get(label) or None, auto=False)
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


async def _has_widget(client: Client, label: str, wait_s: float) -> bool:
    """Wait until the client's page has drawn the widget ``label`` (False after ``wait_s``)."""
    deadline = time.perf_counter() + wait_s
    while label not in client.widgets:
        if time.perf_counter() > deadline:
            return False
        await asyncio.sleep(0.05)
    return True


async def _finished(client: Client, wait_s: float, error: str) -> None:
    """Wait for the client's page run to finish; if it does not within ``wait_s``, note ``error`` and go on (the
    benchmark reports it instead of stopping)."""
    try:
        await asyncio.wait_for(client.finished.wait(), wait_s)
    except asyncio.TimeoutError:
        client.errors.append(f"{error} within {wait_s:g} s")


def prediction(question, rng: random.Random) -> str:
    """What a simulated student types: one of the options, or a positive number around 2 (three digits)."""
    if question.kind == "choice":
        return rng.choice(question.options)
    return f"{rng.lognormvariate(0.7, 1.0):.3g}"


async def run_class(url: str, code: str, key: str, lesson, n: int, steps: int, seed: int,
                    wait_s: float = WAIT_S) -> dict:
    """Drive a class of ``lesson`` (already started in the store as ``code`` with presenter key ``key``) on the
    server at ``url``: N students join, the presenter presses Next ``steps`` times, every student answers every
    question and the presenter reveals it.  Returns the follow and reveal delays (seconds, one sample per student
    per step), ``sent`` (predictions whose recording the page confirmed), ``counted`` (rows in the store),
    ``students`` (their ids), ``seen`` (per student: the steps whose header its page received), ``submitted``
    ({(student id, question): the text submitted}), ``answers`` (the same for the submissions whose page confirmed
    them), ``questions`` and the clients' errors."""
    rng = random.Random(seed)
    from dpviz_ui.classroom import store as S

    pres = Client(url, f"cls_code={code}&cls_key={key}")
    await pres.start()
    await asyncio.wait_for(pres.finished.wait(), wait_s)
    ids = [f"{rng.getrandbits(64):016x}" for _ in range(n)]
    students = [Client(url, f"cls_join={code}&cls_me={me}") for me in ids]
    for i in range(0, n, 5):  # students arrive in small groups, as they scan the QR code
        await asyncio.gather(*(s.start() for s in students[i:i + 5]))
        await asyncio.sleep(0.5)
    joined = await asyncio.gather(*(s.wait_step(1, wait_s) for s in students))
    for s, t in zip(students, joined):
        if t is None:
            s.errors.append(f"did not see the first step within {wait_s:g} s")
    follow, reveal, sent, questions, answers, submitted, pushed = [], [], 0, [], {}, {}, 0
    k = 1
    for _move in range(steps):
        step = lesson.steps[k - 1]
        if step.question:
            questions.append(k)

            async def answer(s: Client, me: str) -> bool:
                await asyncio.sleep(rng.uniform(0, 2.0))  # students type at their own pace
                for _ in range(int(wait_s * 10)):
                    if "Your prediction" in s.widgets and "Submit prediction" in s.widgets:
                        break
                    await asyncio.sleep(0.1)
                else:
                    s.errors.append(f"no prediction box on step {k} (the page showed {s.shown()})")
                    return False
                box = s.widgets["Your prediction"]
                w = WidgetState()
                w.id = box.id
                w.string_value = prediction(step.question, rng)
                t0 = await s.click("Submit prediction", extra=[w])
                submitted[(me, k)] = w.string_value
                ok = await s.wait_text("is recorded", t0, wait_s) is not None
                if ok:
                    answers[(me, k)] = w.string_value
                else:
                    s.errors.append(f"the page did not confirm the prediction on step {k} (it showed {s.shown()}; "
                                    f"trace {s.trace(t0)})")
                return ok

            ok = await asyncio.gather(*(answer(s, me) for s, me in zip(students, ids)))
            sent += sum(ok)
            await asyncio.sleep(1.5)  # the presenter glances at the count, then reveals
            if await _has_widget(pres, "Reveal", wait_s):
                t0 = await pres.click("Reveal")
                got = await asyncio.gather(*(s.wait_text("The answer:", t0, wait_s) for s in students))
                reveal += [g - t0 for g in got if g is not None]
                missing = sum(g is None for g in got)
                if missing:
                    pres.errors.append(f"{missing} students did not see the answer of step {k} within {wait_s:g} s")
                await _finished(pres, wait_s, f"the presenter's page did not finish its run after Reveal on step {k}")
            else:
                pres.errors.append(f"the presenter's page did not show Reveal on step {k} within {wait_s:g} s")
        await asyncio.sleep(1.0)
        k += 1
        pres.widgets.pop("Reveal", None)  # the next step's Reveal is another button (another id)
        t0 = await pres.click("Next ▶")
        got = await asyncio.gather(*(s.wait_step(k, wait_s) for s in students))
        missing = sum(g is None for g in got)
        if missing:
            pres.errors.append(f"{missing} students did not see step {k} within {wait_s:g} s")
        follow += [g - t0 for g in got if g is not None]
        # the server drew the new step without this tab asking in between (no tick, no click since Next): a push
        pushed += sum(1 for s, g in zip(students, got) if g is not None and not any(t0 <= t <= g for t in s.sent_at))
        await _finished(pres, wait_s, f"the presenter's page did not finish its run after Next to step {k}")
    store = S.ClassStore()
    counted = sum(store.count(code, q) for q in questions)
    errors = [e for c in [pres, *students] for e in c.errors]
    out = {"follow": follow, "reveal": reveal, "sent": sent, "counted": counted, "errors": errors,
           "students": ids, "seen": [sorted(s.step_seen) for s in students], "answers": answers,
           "submitted": submitted,
           "questions": questions, "student_bytes": sum(s.bytes_received for s in students),
           "fragment_runs": sum(s.fragment_runs for s in students), "pushed_follows": pushed,
           "full_runs": [s.full_runs for s in students]}
    for c in [pres, *students]:
        await c.close()
    return out


def wait_until_idle(pid: int, timeout: float = 600.0) -> bool:
    """Wait until the server's background warm-up (serve.py primes the pages' caches and precomputes every lesson
    step, in the server's own process) is over: its CPU use falls below 0.2 s over 2 s.  A lecturer starts the
    server before the class; on a loaded machine the warm-up takes minutes and holds back the first page runs."""
    import psutil

    proc = psutil.Process(pid)
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        c0 = sum(proc.cpu_times()[:2])
        time.sleep(2.0)
        if sum(proc.cpu_times()[:2]) - c0 < 0.2:
            return True
    return False


@contextlib.contextmanager
def class_server(data_dir: str):
    """The dashboard served as ``make run`` does (``serve.launch``, then :func:`wait_until_idle`) with the class
    store in ``data_dir`` (a fresh SQLite file, shared with this process through ``DPVIZ_DATA_DIR``); yields
    (process, URL); the environment is restored and the server stopped at the end."""
    saved = {k: os.environ.get(k) for k in ("DPVIZ_DATA_DIR", "DPVIZ_CLASS_DB")}
    os.environ["DPVIZ_DATA_DIR"] = str(data_dir)
    os.environ.pop("DPVIZ_CLASS_DB", None)
    import serve

    try:
        proc, url = serve.launch(timeout=180)
        try:
            wait_until_idle(proc.pid)
            yield proc, url
        finally:
            proc.terminate()
            try:
                proc.wait(timeout=30)
            except Exception:  # noqa: BLE001
                proc.kill()
                proc.wait(timeout=30)
    finally:
        for k, v in saved.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v
