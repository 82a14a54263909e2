"""Lessons page in Chromium: time from a click on Next to the new step's main numbers on screen, and the frame rate
of the step animations once computed.

    python benchmarks/bench_lessons.py [--lessons gaussian,dpsgd] [--passes 2] [--slow 0.5]
    python benchmarks/bench_lessons.py --compute   # the numbers of each quick step in this process, no browser
    python benchmarks/bench_lessons.py --handouts [--no-table]  # seconds and bytes of each lesson's HTML handout

Pass 1 runs on a fresh server (cold caches: every step computed for the first time), pass 2 on warm caches (what
the second student of a class sees).  A wait is timed in the page, as in ``bench_pages.py``: from the ``pointerdown``
of the click on Next to the animation frame in which the new step's first number is on screen; Playwright's wall
clock (its actionability checks and round trips included) is printed beside it as "driver".  Heavy steps (simulations, audits, studies in the worker pool) are reported
separately: their numbers wait for the run.  Every quick step of pass 1 slower than ``--slow`` seconds is listed by
name.  ``--compute`` times, in a fresh process (cold caches), what the page computes for each quick step's main
numbers (``lessons.live(..., figure=False)``) and then its chart (``lessons.chart``).  Animation: frames painted per second while ▶ Play runs
(``plotly_animatingframe`` events, timed in the page).
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests"))

from dpviz_ui import helpers as ui  # noqa: E402
import serve  # noqa: E402
from conftest import ARGS, CHROMIUM, settle  # noqa: E402
from dpviz_ui import lessons as L  # noqa: E402

WAIT_JS = """([title, label, value]) => {
  const h = Array.from(document.querySelectorAll('h2')).some(e => e.textContent.includes(title));
  if (!h) return false;
  const ok = Array.from(document.querySelectorAll('[data-testid="stMetric"]')).some(m =>
    m.querySelector('[data-testid="stMetricLabel"]')?.textContent.trim() === label &&
    m.querySelector('[data-testid="stMetricValue"]')?.textContent.trim() === value);
  if (ok && window.__seen === null) window.__seen = performance.now();
  return ok;
}"""

# the user's input, timed in the page (as benchmarks/bench_pages.py does): the pointerdown of the click on Next
ARM_JS = """() => { window.__input = null; window.__seen = null;
  document.addEventListener('pointerdown', e => { window.__input = e.timeStamp; }, {once: true, capture: true}); }"""

FPS_JS = """() => new Promise(resolve => {
  const gd = document.querySelector('.js-plotly-plot');
  const times = [];
  gd.on('plotly_animatingframe', () => times.push(performance.now()));
  gd.on('plotly_animated', () => resolve(times));
  const btn = gd.querySelector('.updatemenu-button');
  btn.dispatchEvent(new MouseEvent('click', {bubbles: true}));
  setTimeout(() => resolve(times), 15000);
})"""


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--lessons", default=",".join(lesson.id for lesson in L.LESSONS))
    ap.add_argument("--passes", type=int, default=2)
    ap.add_argument("--slow", type=float, default=0.5, help="list the quick steps of pass 1 slower than this")
    ap.add_argument("--compute", action="store_true", help="time the computations only (no server, no browser)")
    ap.add_argument("--handouts", action="store_true", help="time and size the HTML handouts (no browser)")
    ap.add_argument("--no-table", action="store_true",
                    help="with --handouts: without the precomputed calibrations (dpviz_ui/lessons/noise_table.json)")
    args = ap.parse_args()
    if args.compute:
        compute_only(args.lessons.split(","))
        return
    if args.handouts:
        handouts(args.lessons.split(","), no_table=args.no_table)
        return
    from playwright.sync_api import sync_playwright

    proc, url = serve.launch(timeout=120)
    light: dict[int, list[float]] = {}
    heavy: dict[int, list[float]] = {}
    fps: list[float] = []
    slow: list[tuple[float, str]] = []
    driver: dict[int, list[float]] = {}
    try:
        with sync_playwright() as pw:
            browser = pw.chromium.launch(executable_path=CHROMIUM, args=ARGS)
            page = browser.new_page(viewport={"width": 1280, "height": 2000})
            for p in range(1, args.passes + 1):
                for lid in args.lessons.split(","):
                    lesson = L.get_lesson(lid)
                    page.goto(f"{url}/lessons?les_id={lid}")
                    page.wait_for_selector("h2", timeout=60000)
                    settle(page)
                    for k in range(2, len(lesson.steps) + 1):
                        step = lesson.steps[k - 1]
                        # the first number on screen before the step's question is answered (lessons.on_screen)
                        label, value = L.on_screen(step, L.live(step.view, L.step_state(step), figure=False))[
                            "numbers"][0]
                        shown = ui.fmt(value) if not isinstance(value, str) else value
                        page.evaluate(ARM_JS)
                        t0 = time.perf_counter()
                        page.locator(".st-key-les_next button").click()
                        page.wait_for_function(WAIT_JS, arg=[f"{k}. {step.title}", label, shown], timeout=120000,
                                               polling="raf")
                        driver.setdefault(p, []).append(time.perf_counter() - t0)
                        # from the pointerdown to the animation frame in which the step's number is on screen (the
                        # predicate is evaluated once per frame); Playwright's own clock adds its actionability
                        # checks and round trips (printed as "driver")
                        dt = page.evaluate("() => (window.__seen - window.__input) / 1000")
                        (heavy if step.view in L.HEAVY else light).setdefault(p, []).append(dt)
                        if p == 1 and step.view not in L.HEAVY and dt >= args.slow:
                            slow.append((dt, f"{lid} step {k} ({step.view}): {step.title}"))
                        settle(page)
                        if step.animate and p == args.passes:
                            page.wait_for_selector(".js-plotly-plot .updatemenu-button", timeout=60000)
                            times = page.evaluate(FPS_JS)
                            if len(times) > 2:
                                fps.append((len(times) - 1) / ((times[-1] - times[0]) / 1000.0))
            browser.close()
    finally:
        proc.terminate()
        proc.wait(timeout=10)
    for p in sorted(light):
        xs = sorted(light[p])
        print(f"pass {p} ({'cold' if p == 1 else 'warm'}): Next -> main numbers, {len(xs)} quick steps: median "
              f"{statistics.median(xs):.2f} s, 90 % {xs[int(0.9 * (len(xs) - 1))]:.2f} s, max {xs[-1]:.2f} s "
              f"(in the page, from the click's pointerdown; all steps by the driver's clock: median "
              f"{statistics.median(driver[p]):.2f} s, max {max(driver[p]):.2f} s)")
        if heavy.get(p):
            hs = sorted(heavy[p])
            print(f"         {len(hs)} worker-pool steps: median {statistics.median(hs):.2f} s, max {hs[-1]:.2f} s")
    for dt, what in sorted(slow, reverse=True):
        print(f"  cold quick step >= {args.slow:g} s: {dt:.2f} s  {what}")
    if fps:
        print(f"animations: {len(fps)}, frames per second min {min(fps):.1f}, median {statistics.median(fps):.1f}")


def compute_only(lesson_ids: list[str]) -> None:
    """Seconds of each quick step's main numbers and then of its chart, cold, in this process."""
    rows = []
    for lid in lesson_ids:
        for k, step in enumerate(L.get_lesson(lid).steps, 1):
            if step.view in L.HEAVY:
                continue
            state = L.step_state(step)
            t0 = time.perf_counter()
            L.live(step.view, state, figure=False)
            t1 = time.perf_counter()
            L.chart(step.view, state, animate=step.animate)
            t2 = time.perf_counter()
            rows.append((t1 - t0, t2 - t1, f"{lid} step {k} ({step.view}{', animated' if step.animate else ''})"))
    print(f"{'quick step':48s} numbers  chart")
    for a, b, what in rows:
        print(f"{what:48s} {a:6.3f}s {b:6.2f}s")
    xs = sorted(a for a, _b, _w in rows)
    print(f"numbers: {len(xs)} steps, median {statistics.median(xs):.3f} s, max {xs[-1]:.3f} s")


def handouts(lesson_ids: list[str], no_table: bool = False) -> None:
    """Seconds to prepare each lesson's HTML handout in this process (what the page's worker runs), twice: cold
    (the library's caches empty) and again (warm), with the CPU seconds of the cold run (less sensitive to the load
    of a shared machine), and its size.  Before the first lesson the process imports what a worker of the page's
    pool has imported before its first job (:func:`dpviz_ui.workers._warm_worker`) and writes one handout without
    charts (the lessons' own imports); ``--no-table`` leaves out the precomputed calibrations
    (``dpviz_ui/lessons/noise_table.json``) to time what they save."""
    from dpviz_ui import workers
    from dpviz_ui.lessons import model

    if no_table:
        model._TABLE[:] = [{}]
    workers._warm_worker()
    L.lesson_html(lesson_ids[0], figures=False)  # the imports, once
    print(f"{'lesson':14s} cold    (cpu)     again    size")
    for lid in lesson_ids:
        c0, t0 = time.process_time(), time.perf_counter()
        page = L.lesson_html(lid)
        t1, c1 = time.perf_counter(), time.process_time()
        L.lesson_html(lid)
        t2 = time.perf_counter()
        print(f"{lid:14s} {t1 - t0:6.2f}s ({c1 - c0:5.2f}s)  {t2 - t1:6.2f}s  "
              f"{len(page.encode('utf-8')) / 1e6:.3f} MB")


if __name__ == "__main__":
    main()
