"""Server under load: `.venv/bin/python benchmarks/bench_load.py [--sessions 8 16] [--visits 6]`.

Starts the dashboard as `make run` does (`python serve.py`) and connects K sessions to it **over Streamlit's own
websocket protocol** (the BackMsg / ForwardMsg protobuf messages the browser sends and receives), so that the
figures measure the server -- what an operator's machine does for 8 or 16 students on their own laptops -- and not
K browsers rendering on the same 2 cores (that client-inclusive figure is `bench_pages.py --sessions K`).

Figures printed:

1. **K sessions open Calibrate at once**, each at its own n (nothing cached): per session, the time until the main
   numbers (the σ metric) have been sent, and until the page's script run has finished; median and max.
2. **A long simulation beside interactive use**: 4 sessions each open Calibrate 6 times in a row at fresh n (their
   "main numbers" time), first with nothing else running, then while a fifth session runs a ~20 s simulation on
   Simulate (pressing its Run button through the protocol). The ratio of the medians is the slow-down the
   simulation causes (target ≤ 1.5).
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import websockets  # noqa: E402  (installed with streamlit)
from streamlit.proto.BackMsg_pb2 import BackMsg  # noqa: E402
from streamlit.proto.ForwardMsg_pb2 import ForwardMsg  # noqa: E402

import serve  # noqa: E402

#: Simulate link whose run takes ~20 s of engine time (estimate shown on the page)
LONG_SIM = "reps=500&T=30000&eps_grid=1,2,4,8&sim_sweep=eps"


class Session:
    """One browser tab, spoken to over the websocket protocol."""

    def __init__(self, url: str):
        self.url = url.replace("http", "ws") + "/_stcore/stream"
        self.ws = None
        self.elements: list = []

    async def __aenter__(self):
        self.ws = await websockets.connect(self.url, subprotocols=["streamlit"], max_size=2**27)
        return self

    async def __aexit__(self, *exc):
        await self.ws.close()

    async def run(self, page: str, query: str, widgets=None, until_metric: bool = True) -> tuple[float | None, float]:
        """Ask for a script run; returns (seconds until the first metric arrived or None, seconds until finished)."""
        m = BackMsg()
        m.rerun_script.query_string = query
        m.rerun_script.page_name = page
        m.rerun_script.context_info.timezone = "UTC"
        for w in widgets or ():
            m.rerun_script.widget_states.widgets.append(w)
        t0 = time.perf_counter()
        await self.ws.send(m.SerializeToString())
        first_metric, self.elements = None, []
        while True:
            f = ForwardMsg()
            f.ParseFromString(await self.ws.recv())
            kind = f.WhichOneof("type")
            if kind == "delta" and f.delta.WhichOneof("type") == "new_element":
                el = f.delta.new_element
                self.elements.append(el)
                if first_metric is None and el.WhichOneof("type") == "metric":
                    first_metric = time.perf_counter() - t0
            elif kind == "script_finished" and (first_metric is not None or not until_metric):
                return first_metric, time.perf_counter() - t0

    def button_id(self, label: str) -> str:
        for el in self.elements:
            if el.WhichOneof("type") == "button" and el.button.label == label:
                return el.button.id
        raise RuntimeError(f"no button {label!r} on the page")


async def open_calibrate(url: str, n: int) -> tuple[float, float]:
    async with Session(url) as s:
        return await s.run("calibrate", f"n={n}")


async def crowd(url: str, k: int, base: int) -> list[tuple[float, float]]:
    return await asyncio.gather(*[open_calibrate(url, base + 7 * i) for i in range(k)])


async def interactive(url: str, users: int, visits: int, base: int) -> list[float]:
    async def user(u: int) -> list[float]:
        out = []
        async with Session(url) as s:
            for v in range(visits):
                main, _full = await s.run("calibrate", f"n={base + 1000 * u + 13 * v}")
                out.append(main)
                await asyncio.sleep(0.3)  # a user reads the number before the next edit
        return out

    return [t for ts in await asyncio.gather(*[user(u) for u in range(users)]) for t in ts]


async def with_long_simulation(url: str, users: int, visits: int, base: int) -> tuple[list[float], float]:
    from streamlit.proto.WidgetStates_pb2 import WidgetState

    async with Session(url) as sim:
        await sim.run("simulate", LONG_SIM, until_metric=False)
        w = WidgetState()
        w.id = sim.button_id("Run simulation")
        w.trigger_value = True
        t0 = time.perf_counter()
        run = asyncio.create_task(sim.run("simulate", LONG_SIM, widgets=[w], until_metric=False))
        await asyncio.sleep(2.0)  # the simulation is under way
        times = await interactive(url, users, visits, base)
        still_running = not run.done()
        await run
        took = time.perf_counter() - t0
    if not still_running:
        print("  warning: the simulation ended before the interactive sessions did; lengthen LONG_SIM")
    return times, took


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sessions", type=int, nargs="*", default=[8, 16], help="crowd sizes for figure 1")
    ap.add_argument("--visits", type=int, default=6, help="Calibrate visits per interactive user in figure 2")
    ap.add_argument("--workers", type=int, default=None,
                    help="DPVIZ_WORKERS for the server (0: simulations on the script thread, as before the pool)")
    args = ap.parse_args()
    if args.workers is not None:
        os.environ["DPVIZ_WORKERS"] = str(args.workers)
    proc, url = serve.launch(timeout=120)
    try:
        asyncio.run(open_calibrate(url, 999))  # one visit: the server's first page run
        for k, size in enumerate(args.sessions):
            res = asyncio.run(crowd(url, size, 3000 + 1000 * k))
            mains, fulls = [r[0] for r in res], [r[1] for r in res]
            print(f"{size} sessions open Calibrate at once: main numbers median {statistics.median(mains):.2f} s, "
                  f"max {max(mains):.2f} s; whole page median {statistics.median(fulls):.2f} s, "
                  f"max {max(fulls):.2f} s")
        # like with like: the same kind of visits (fresh n of the same size, never cached) alone before and after
        # the simulation, and beside it; the slow-down compares beside with both alone runs
        alone = asyncio.run(interactive(url, 4, args.visits, 20000))
        beside, took = asyncio.run(with_long_simulation(url, 4, args.visits, 20500))
        alone += asyncio.run(interactive(url, 4, args.visits, 20250))
        a, b = statistics.median(alone), statistics.median(beside)
        print(f"4 sessions x {args.visits} Calibrate visits, main numbers: alone (before and after) median {a:.3f} s "
              f"(max {max(alone):.3f}); beside a {took:.1f} s simulation median {b:.3f} s (max {max(beside):.3f}) "
              f"-> slow-down {b / a:.2f}x")
    finally:
        proc.terminate()
        proc.wait(timeout=10)


if __name__ == "__main__":
    main()
