"""Start the dpviz dashboard with its heavy work done before the first visitor arrives.

``python serve.py [streamlit options]`` (what ``make run`` does) is ``streamlit run app.py [options]`` plus a warm-up:
before the server accepts connections it imports what every page needs (streamlit, plotly, numpy, scipy, the
dp-accounting library and every dpviz module), computes the default calibration once and starts the worker
processes of :mod:`dpviz_ui.workers`, so that the first visitor
of a fresh server does not pay ~1.6 s of imports and solver start-up (benchmarks/RESULTS.md, "What a user waits for").
Once the server answers, :func:`prime` also runs the Calibrate and Bounds pages once at their defaults over Streamlit's
own websocket protocol, so that their cached curves (``st.cache_data``, shared by all sessions) are computed before
the first visitor arrives, and :func:`dpviz_ui.lessons.precompute` computes the main numbers of every quick lesson step
(the accountants' inversions behind them stay in the library's caches; one lesson at a time, giving way to the
visitors' page runs between lessons).  ``streamlit run app.py`` still works; only
the first page view is slower.

:func:`launch` starts the same server in a subprocess on a free port; the browser tests and the page benchmarks use
it so that they measure what ``make run`` serves.
"""

from __future__ import annotations

import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parent


def warm() -> float:
    """Import every page's dependencies and compute the default calibration; returns the seconds it took."""
    t0 = time.perf_counter()
    sys.path.insert(0, str(ROOT))
    import dp_accounting  # noqa: F401  (the accountant behind the default calibration; pulls scipy.signal/optimize)
    import plotly.graph_objects  # noqa: F401

    from dpviz_ui import helpers as dpviz_ui  # noqa: F401  (streamlit and the shared page helpers)
    from dpviz.theory import accounting, catalog  # noqa: F401
    from dpviz.labs import audit_methods, audit_planner, canary_audit, privacy_lab, stability  # noqa: F401
    from dpviz.studies import experiments  # noqa: F401
    from dpviz.foundation import figures, privacy_figures, urlstate  # noqa: F401
    from dpviz.engine import simulate  # noqa: F401

    p = urlstate.DEFAULTS
    n = int(p["n"])
    first = [a.id for a in catalog.algorithms() if a.calibrate is not None][0]  # Calibrate's default algorithm
    catalog.calibrate(p["algorithm"] or first, n=n, eps=float(p["eps"]), delta=1.0 / n**2, T=int(p["T"]), G=1.0)
    from dpviz_ui import workers

    workers.shared_pool().warm()  # start the worker processes now, not at the first simulation
    return time.perf_counter() - t0


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def launch(port: int | None = None, timeout: float = 60.0) -> tuple[subprocess.Popen, str]:
    """Start ``python serve.py`` headless on ``port`` (a free one by default); wait until it is healthy.

    Returns the process and its base URL. The caller terminates the process.
    """
    port = port or _free_port()
    proc = subprocess.Popen([sys.executable, str(ROOT / "serve.py"), "--server.headless", "true",
                             "--server.port", str(port), "--browser.gatherUsageStats", "false"],
                            cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    url = f"http://127.0.0.1:{port}"
    if _wait_healthy(url, timeout, proc):
        return proc, url
    stop(proc)
    raise RuntimeError(f"the dashboard server did not become healthy within {timeout:g} s")


def stop(proc: subprocess.Popen, grace: float = 30.0) -> None:
    """Stop a server started by :func:`launch` and every process it started (its worker pools): SIGTERM to the
    server, SIGKILL if it has not exited within ``grace`` s; then its children that outlived it -- a server stopped
    during its warm-up exits without shutting its pools down -- are terminated, and killed after 5 s."""
    import psutil

    try:
        kids = psutil.Process(proc.pid).children(recursive=True)
    except psutil.Error:  # already gone
        kids = []
    proc.terminate()
    try:
        proc.wait(timeout=grace)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait(timeout=grace)
    alive = [k for k in kids if k.is_running()]
    for k in alive:
        try:
            k.terminate()
        except psutil.Error:
            pass
    for k in psutil.wait_procs(alive, timeout=5)[1]:
        try:
            k.kill()
        except psutil.Error:
            pass


def _wait_healthy(url: str, timeout: float, proc: subprocess.Popen | None = None) -> bool:
    """Poll the server's health endpoint until it answers (True) or ``timeout`` s pass (False); RuntimeError if
    ``proc`` exits first."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if proc is not None and proc.poll() is not None:
            raise RuntimeError(f"the dashboard server exited with code {proc.returncode}")
        try:
            if urllib.request.urlopen(f"{url}/_stcore/health", timeout=1).status == 200:
                return True
        except OSError:
            time.sleep(0.1)
    return False


def _port_of(argv: list[str]) -> int:
    for i, a in enumerate(argv):
        if a == "--server.port" and i + 1 < len(argv):
            return int(argv[i + 1])
        if a.startswith("--server.port="):
            return int(a.split("=", 1)[1])
    return 8501


def prime(port: int, pages: tuple[str, ...] = ("calibrate", "bounds"), timeout: float = 60.0) -> float:
    """Once the server answers, run each page once at its defaults through Streamlit's own websocket protocol (as a
    browser tab would), so that the page's cached calibrations, bounds and curves -- kept in ``st.cache_data``,
    which lives in the running server and is shared by all sessions -- are computed before the first visitor
    arrives.  Returns the seconds it took; any failure only leaves the caches cold."""
    import asyncio

    import websockets
    from streamlit.proto.BackMsg_pb2 import BackMsg
    from streamlit.proto.ForwardMsg_pb2 import ForwardMsg

    t0 = time.perf_counter()
    _wait_healthy(f"http://127.0.0.1:{port}", timeout)

    async def run_pages() -> None:
        async with websockets.connect(f"ws://127.0.0.1:{port}/_stcore/stream", subprotocols=["streamlit"],
                                      max_size=2**27) as ws:
            for page in pages:
                m = BackMsg()
                m.rerun_script.query_string = ""
                m.rerun_script.page_name = page
                await ws.send(m.SerializeToString())
                while True:
                    f = ForwardMsg()
                    f.ParseFromString(await asyncio.wait_for(ws.recv(), timeout))
                    if f.WhichOneof("type") == "script_finished":
                        break

    asyncio.run(run_pages())
    return time.perf_counter() - t0


def _page_runs_in_progress() -> bool:
    """Whether a visitor's page is running in this server now (Streamlit runs each session's script in a thread of
    this name while a run is in progress)."""
    import threading

    return any(t.name == "ScriptRunner.scriptThread" and t.is_alive() for t in threading.enumerate())


def precompute_lessons(max_wait: float = 30.0) -> float:
    """:func:`dpviz_ui.lessons.precompute`, one lesson at a time, each started only when no visitor's page is
    running (or after ``max_wait`` seconds): the warm-up shares the server's one Python interpreter (GIL) with the
    visitors' page runs, and on a loaded machine it held the first page loads back; now it gives way to them between
    lessons.  Returns the seconds spent computing."""
    from dpviz_ui import lessons

    spent = 0.0
    for lesson in lessons.LESSONS:
        deadline = time.monotonic() + max_wait
        while _page_runs_in_progress() and time.monotonic() < deadline:
            time.sleep(0.05)
        spent += lessons.precompute([lesson.id])
    return spent


def _prime_in_background(port: int) -> None:
    import threading

    def job() -> None:
        try:
            print(f"dpviz: page caches primed in {prime(port):.1f} s", flush=True)
        except Exception as exc:  # noqa: BLE001 - only the first visit is slower
            print(f"dpviz: page caches not primed ({type(exc).__name__}: {exc})", flush=True)
        try:
            print(f"dpviz: lesson numbers precomputed in {precompute_lessons():.1f} s", flush=True)
        except Exception as exc:  # noqa: BLE001 - only the first class is slower
            print(f"dpviz: lesson numbers not precomputed ({type(exc).__name__}: {exc})", flush=True)

    threading.Thread(target=job, name="dpviz-prime", daemon=True).start()


def main(argv: list[str]) -> None:
    try:
        print(f"dpviz: warmed up in {warm():.1f} s", flush=True)
    except Exception as exc:  # a failed warm-up only makes the first visit slower; the pages report real errors
        print(f"dpviz: warm-up skipped ({type(exc).__name__}: {exc})", flush=True)
    try:
        _prime_in_background(_port_of(argv))
    except ValueError:
        pass
    from streamlit.web import cli

    sys.argv = ["streamlit", "run", str(ROOT / "app.py"), *argv]
    cli.main()


if __name__ == "__main__":
    main(sys.argv[1:])
