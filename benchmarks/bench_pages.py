"""What a user waits for in the browser: `.venv/bin/python benchmarks/bench_pages.py [--sessions 8] [--runs 1]`.

Starts the dashboard as `make run` does (`python serve.py`: warm-up, then `streamlit run app.py`) on a free port and drives Debian's Chromium (/usr/bin/chromium) with Playwright.

How a wait is measured ("seen"): in the page itself, from the user's input -- the ``pointerdown`` of the click or the
``keydown`` of the Enter that commits a number; for a first visit, the start of the navigation -- until the first
animation frame in which the new value is in the page (a MutationObserver notices it, the next
``requestAnimationFrame`` callback is the frame that paints it).  Playwright's own wall clock ("driver") is printed
beside it: it adds the driver's round trips (actionability checks before a click, polling the page over the DevTools
protocol while the renderer is busy drawing charts), 0.1-0.5 s on these 2 cores, which no user waits for.

* first visit: until σ is on screen;
* edits with a COLD cache: each edit uses a value never computed before, so nothing is cached, then we time
  - "main numbers": until the σ metric shows the new calibration's value (Bounds: the bound line's new value;
    a theorem's schedule: the read-only T in the sidebar),
  - "full page": until the script run has finished (all plots drawn; driver wall clock);
  at n = 10³, 6·10⁴ and 10⁷, on Calibrate (ε edits, choosing Theorem 4(b)'s schedule, changing the algorithm) and
  on Bounds (ε edits);
* Audit (``--only audit``): a first visit of the default audit until the accountant's ε is on screen, and three ε
  edits until it shows its new value; Check a run (``--only check``): a first visit until the verdict's ε upper bound
  is on screen, and three edits of the noise multiplier until it shows its new value;
* load: ``--sessions K`` browser sessions open Calibrate at once; median and max time until σ is visible -- once as K
  Chromium processes (client-inclusive: K browsers share the 2 cores with the server), and as K and 2K tabs of one
  browser (K and 2K server sessions, the client cost of one browser).

Prints a table; the figures go into benchmarks/RESULTS.md by hand.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import threading
import time
from pathlib import Path

import os

# DPVIZ_BENCH_ROOT: measure another checkout's dashboard (e.g. the main one, for a "before" figure) with this script
ROOT = Path(os.environ.get("DPVIZ_BENCH_ROOT") or Path(__file__).resolve().parent.parent)
sys.path.insert(0, str(ROOT))
CHROMIUM = "/usr/bin/chromium"
ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update",
        "--disable-sync", "--no-first-run"]


def start_server():
    import serve

    out = serve.launch(timeout=300)  # a loaded machine warms up slowly
    time.sleep(6)  # a served dashboard is started before its first visitor: let serve.py prime its page caches
    return out


# Installed in every page before its own scripts: notes the user's input and, once armed with a predicate, the first
# animation frame after the page satisfies it.  ``performance.now()`` and ``Event.timeStamp`` share one clock, whose
# origin is the start of the navigation (so a first visit is timed from 0).
WATCH = """
(() => {
  window.__input = null; window.__seen = null; window.__armed = false;
  const mark = e => {
    if (window.__armed && window.__input === null && (e.type === 'pointerdown' || e.key === 'Enter'))
      window.__input = e.timeStamp;
  };
  document.addEventListener('pointerdown', mark, true);
  document.addEventListener('keydown', mark, true);
  window.__arm = (src, input) => {
    window.__input = input === undefined ? null : input; window.__seen = null; window.__armed = true;
    const holds = new Function('return (' + src + ')();');
    const obs = new MutationObserver(() => {
      if (window.__input === null || window.__seen !== null || !holds()) return;
      obs.disconnect();
      requestAnimationFrame(() => { window.__seen = (performance.now() - window.__input) / 1000; });
    });
    obs.observe(document, {subtree: true, childList: true, characterData: true, attributes: true});
  };
  window.__arm("() => !!document.querySelector('[data-testid=\\"stMetric\\"]')", 0);
})();
"""


def _arm(page, predicate: str) -> None:
    """Arm the page's watch: the next input starts the clock, the first frame in which ``predicate`` (JS source of a
    function of no arguments) holds stops it."""
    page.evaluate("src => window.__arm(src)", predicate)


def _seen(page) -> float:
    """Seconds from the armed input to the frame that showed the awaited result (see the module docstring)."""
    page.wait_for_function("() => window.__seen !== null", timeout=120000)
    return float(page.evaluate("window.__seen"))


def _idle(page) -> None:
    page.wait_for_timeout(100)
    page.wait_for_function("() => !document.querySelector('[data-testid=\"stStatusWidget\"] button')",
                           timeout=120000)


def _metric_is(text: str) -> str:
    """JS predicate: some metric shows exactly ``text``."""
    return ("() => Array.from(document.querySelectorAll('[data-testid=\"stMetricValue\"]'))"
            f".some(e => e.innerText.trim() === {text!r})")


def _edit(page, key: str, value) -> None:
    box = page.locator(f".st-key-{key} input")
    box.fill(str(value))
    box.press("Enter")


def _context(browser, **kwargs):
    """A browser context whose pages carry the watch (:data:`WATCH`)."""
    ctx = browser.new_context(**kwargs)
    ctx.add_init_script(WATCH)
    return ctx


def _open(page, url: str) -> None:
    """Open ``url`` (a new session) and wait until its charts, which follow the numbers, are drawn and it is idle."""
    page.goto(url)
    page.wait_for_selector(".js-plotly-plot", state="attached", timeout=120000)
    _idle(page)


def _pick(page, key: str, typed: str, label: str):
    """Open the selectbox ``key``, type ``typed`` and return the option ``label`` (the typing is the user's time,
    not part of the wait)."""
    page.locator(f".st-key-{key} input[role=combobox]").click()
    page.keyboard.type(typed)
    option = page.get_by_role("option", name=label, exact=True)
    option.wait_for()
    return option


def _timed(page, what: str, predicate: str, act) -> tuple[str, float, float, float]:
    """Arm the watch with ``predicate``, do ``act()``; the row (what, seen, driver clock, full page)."""
    _arm(page, predicate)
    t0 = time.perf_counter()
    act()
    seen = _seen(page)
    driver = time.perf_counter() - t0
    _idle(page)
    return what, seen, driver, time.perf_counter() - t0


BOUND_LINE = ("(Array.from(document.querySelectorAll('[data-testid=\"stMarkdownContainer\"]'))"
              ".find(e => e.innerText.startsWith('Bound at the current parameters')) || {}).innerText || ''")


def edits(url: str) -> list[tuple[str, float, float, float]]:
    """Rows (what, seen, driver wall clock until the same, driver wall clock until the run has finished)."""
    import json

    from dpviz_ui import helpers as ui
    from dpviz.theory import catalog
    from dpviz.foundation import urlstate
    from playwright.sync_api import sync_playwright

    rows = []
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        page = _context(browser, viewport={"width": 1400, "height": 1800}).new_page()
        t0 = time.perf_counter()
        page.goto(f"{url}/calibrate")
        page.wait_for_selector("[data-testid='stMetric']", timeout=120000)
        driver = time.perf_counter() - t0
        seen = _seen(page)
        rows.append(("Calibrate first visit", seen, driver, time.perf_counter() - t0))
        if page.evaluate("() => !!document.querySelector('.js-plotly-plot')"):
            # already drawn when the numbers were seen: the time of this look is an upper bound
            charts = float(page.evaluate("performance.now() / 1000"))
        else:
            page.evaluate("() => window.__arm(\"() => !!document.querySelector('.js-plotly-plot')\", 0)")
            charts = _seen(page)  # the charts of a first visit follow the numbers (dpviz_ui.helpers.after_run)
        driver = time.perf_counter() - t0
        _idle(page)
        rows.append(("Calibrate first visit: first chart", charts, driver, time.perf_counter() - t0))
        for n in (1000, 60000, 10**7):
            _open(page, f"{url}/calibrate?n={n}")  # a new session: its charts follow the numbers 1.5 s later
            for eps in (0.731 + n * 1e-9, 1.913 + n * 1e-9, 3.377 + n * 1e-9):  # never cached before
                cal = catalog.calibrate("dpsgd-rdp", n=n, eps=eps, delta=1.0 / n**2, T=1000, G=1.0)
                rows.append(_timed(page, f"Calibrate ε edit, n = {n}", _metric_is(ui.fmt(cal.sigma)),
                                   lambda: _edit(page, "w_eps", eps)))
        # choosing a theorem's schedule (Wang, Lei, Ying & Zhou Theorem 4(b)) at a fresh n
        for n in (4321, 5432):
            _open(page, f"{url}/calibrate?n={n}")
            option = _pick(page, "w_schedule", "Theorem 4 (b)", "Wang, Lei, Ying & Zhou, Theorem 4 (b)")
            rows.append(_timed(page, "Calibrate: choose Theorem 4(b)'s schedule",
                               "() => !!document.querySelector('.st-key-w_T_fixed')", option.click))
        # changing the algorithm (a selectbox) at a fresh n: each calibration is computed for the first time
        n_alg = 7777 + int(time.time()) % 1000
        _open(page, f"{url}/calibrate?n={n_alg}")
        base = ui.params_from_view({**urlstate.DEFAULTS, "n": n_alg})
        for alg_id in ("dpsgd-pl", "pidp-sgd", "dpgd-sc", "dpsgd-output", "dpsgd-rdp"):
            a = catalog.get_algorithm(alg_id)
            cal = catalog.calibrate(alg_id, **{k: val for k, val in ui.only_params(base, a.calibrate).items()
                                               if k not in ("c", "accountant_extra")})
            want = ui.fmt(cal.sigma if cal.sigma is not None else cal.laplace_scale)
            option = _pick(page, "w_algorithm", a.name, f"{a.paper.short} — {a.name} ({a.place})")
            rows.append(_timed(page, "Calibrate: change the algorithm", _metric_is(want), option.click))
        # Bounds
        _open(page, f"{url}/bounds")
        for eps in (0.617, 2.291, 5.113):
            before = page.evaluate(f"() => {BOUND_LINE}")
            # the bound line shows a new value (the old line stays on screen until it is replaced)
            rows.append(_timed(page, "Bounds ε edit",
                               f"() => {{ const s = {BOUND_LINE}; return s !== '' && s !== {json.dumps(before)}; }}",
                               lambda: _edit(page, "w_eps", eps)))
        rows += _bounds_explicit(page, url)
        rows += _accounting(page, url)
        rows += _audit(browser, url)
        rows += _check(browser, url)
        browser.close()
    return rows


ALL_LINES = ("Array.from(document.querySelectorAll('[data-testid=\"stMarkdownContainer\"]'))"
             ".map(e => e.innerText).filter(s => s.startsWith('Bound at the current parameters'))")


def _bounds_explicit(page, url: str) -> list[tuple[str, float, float, float]]:
    """Bounds with explicit constants and three theorems: ε edits and adding a theorem (rows as in :func:`edits`)."""
    import json

    rows = []
    # Bounds with explicit constants and three theorems, one of them Kang et al.'s Theorem 1, whose explicit
    # constants need a numerical accountant per point (issue 20): "main numbers" = every theorem's bound line
    # shows its new value; the curves follow progressively (points past a curve's time budget are computed by
    # the page's next runs), which "full page" includes
    three = "wang-lownoise-thm3a,kang-pidp-thm1,wang-lownoise-thm4a"
    _open(page, f"{url}/bounds?n=60000&delta_auto=False&log10_delta=-5&bound_kind=explicit&theorems={three}")
    for eps in (0.733, 1.517, 3.071):
        before = page.evaluate(f"() => {ALL_LINES}")
        rows.append(_timed(page, "Bounds explicit, 3 theorems: ε edit",
                           f"() => {{ const s = {ALL_LINES}; const b = {json.dumps(before)}; return s.length === "
                           f"b.length && s.every((x, i) => x !== '' && x !== b[i]); }}",
                           lambda: _edit(page, "w_eps", eps)))
    for label in ("Wang, Lei, Ying & Zhou — Theorem 6 (a)", "Wang, Lei, Ying & Zhou — Theorem 7 (a)"):
        count = len(page.evaluate(f"() => {ALL_LINES}"))
        page.locator(".st-key-w_theorems input[role=combobox]").click()
        page.keyboard.type(label)
        option = page.get_by_role("option", name=label, exact=True)
        option.wait_for()
        rows.append(_timed(page, "Bounds explicit: add a theorem",
                           f"() => {ALL_LINES}.length === {count + 1}", option.click))
        page.keyboard.press("Escape")
    return rows


SUMMARY = ("(Array.from(document.querySelectorAll('[data-testid=\"stText\"]'))"
           ".find(e => e.innerText.startsWith('Summary:')) || {}).innerText || ''")


def _accounting(page, url: str) -> list[tuple[str, float, float, float]]:
    """Accounting: ε and n edits; "main numbers" = the summary line under the accountants' table (the paper's σ and
    the σ the matched accountant needs) shows its new value (rows as in :func:`edits`)."""
    import json

    rows = []
    for alg in ("dpsgd-rdp", "dpsgd-pl", "dpgd-c"):
        _open(page, f"{url}/accounting?algorithm={alg}")
        for key, value in (("w_eps", 0.737), ("w_eps", 1.913), ("w_n", 4321), ("w_n", 54321)):
            before = page.evaluate(f"() => {SUMMARY}")
            rows.append(_timed(page, f"Accounting {alg}: {key[2:]} edit",
                               f"() => {{ const s = {SUMMARY}; return s !== '' && s !== {json.dumps(before)}; }}",
                               lambda key=key, value=value: _edit(page, key, value)))
    return rows


def accounting_only(url: str) -> list[tuple[str, float, float, float]]:
    """Only the Accounting measurements (``--only accounting``)."""
    from playwright.sync_api import sync_playwright

    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        page = _context(browser, viewport={"width": 1400, "height": 1800}).new_page()
        rows = _accounting(page, url)
        browser.close()
    return rows


def bounds_explicit_only(url: str) -> list[tuple[str, float, float, float]]:
    """Only the Bounds explicit-constants measurements (``--only bounds-explicit``)."""
    from playwright.sync_api import sync_playwright

    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        page = _context(browser, viewport={"width": 1400, "height": 1800}).new_page()
        rows = _bounds_explicit(page, url)
        browser.close()
    return rows


def _has_text(selector: str, text: str) -> str:
    """JS predicate: some element matching ``selector`` contains ``text``."""
    return (f"() => Array.from(document.querySelectorAll({selector!r}))"
            f".some(e => (e.innerText || '').includes({text!r}))")


def _arm_visit(page, predicate: str) -> None:
    """Arm the watch for a first visit (clock from the navigation start): if ``predicate`` already holds, the time
    is taken now (an upper bound of the frame that painted it)."""
    page.evaluate("src => { const holds = new Function('return (' + src + ')();');"
                  " if (holds()) { window.__seen = performance.now() / 1000; } else { window.__arm(src, 0); } }",
                  predicate)


def simulate_only(url: str) -> list[tuple[str, float, float, float]]:
    """Simulate and Bounds first visits and edits (``--only simulate``; issue 33): Simulate's first visit until its
    run plan (the estimate) and until the run a link starts at once is drawn ("Done in"); three ε-grid edits, each
    with values never used before, until the new plan is on screen (the "Press Run simulation" line that replaces the
    previous results), then the run (click → "Done in"); Bounds' first visit and an ε edit until the bound line."""
    import json

    from playwright.sync_api import sync_playwright

    rows = []
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        page = _context(browser, viewport={"width": 1400, "height": 1800}).new_page()
        t0 = time.perf_counter()
        page.goto(f"{url}/simulate?n=400&reps=3&eps_grid=1,2,8")
        _arm_visit(page, _has_text("[data-testid='stCaptionContainer']", "Estimated run time"))
        seen = _seen(page)
        rows.append(("Simulate first visit: run plan", seen, time.perf_counter() - t0, time.perf_counter() - t0))
        _arm_visit(page, _has_text("[data-testid='stCaptionContainer']", "Done in"))
        seen = _seen(page)
        _idle(page)
        rows.append(("Simulate first visit: results (auto-run)", seen, time.perf_counter() - t0,
                     time.perf_counter() - t0))
        stamp = int(time.time()) % 97
        for k, grid in enumerate(("0.25, 0.5, 1, 2, 8", "1, 2, 8, 16", "0.5, 2, 4")):
            grid = ", ".join(f"{float(x) + (stamp + k) * 1e-6:g}" for x in grid.split(","))  # never cached before
            rows.append(_timed(page, "Simulate ε-grid edit: new run plan",
                               _has_text("[data-testid='stAlert']", "Run simulation"),
                               lambda grid=grid: _edit(page, "w_eps_grid", grid)))
            button = page.get_by_role("button", name="Run simulation")
            rows.append(_timed(page, "Simulate: run (click → results)",
                               _has_text("[data-testid='stCaptionContainer']", "Done in"), button.click))
        _open(page, f"{url}/bounds?loss=logistic&theorems=wang-lownoise-thm3a,wang-lownoise-thm3b")
        for eps in (0.619 + stamp * 1e-6, 2.293 + stamp * 1e-6):
            before = page.evaluate(f"() => {BOUND_LINE}")
            rows.append(_timed(page, "Bounds (loss chosen, 2 theorems) ε edit",
                               f"() => {{ const s = {BOUND_LINE}; return s !== '' && s !== {json.dumps(before)}; }}",
                               lambda eps=eps: _edit(page, "w_eps", eps)))
        t0 = time.perf_counter()
        page2 = _context(browser, viewport={"width": 1400, "height": 1800}).new_page()
        page2.goto(f"{url}/bounds?n={5000 + stamp}")
        _arm_visit(page2, f"() => {BOUND_LINE} !== ''")
        seen = _seen(page2)
        rows.append(("Bounds first visit: bound line", seen, time.perf_counter() - t0, time.perf_counter() - t0))
        browser.close()
    return rows


def _metric(label: str) -> str:
    """JS expression: the value of the metric labelled ``label`` ('' while there is none)."""
    return ("((Array.from(document.querySelectorAll('[data-testid=\"stMetric\"]'))"
            ".find(m => ((m.querySelector('[data-testid=\"stMetricLabel\"]') || {}).innerText || '').trim() === "
            f"{label!r}) || {{querySelector: () => null}}).querySelector('[data-testid=\"stMetricValue\"]')"
            " || {}).innerText || ''")


def _visit(browser, url: str, what: str, predicate: str) -> tuple[str, float, float, float]:
    """A first visit of ``url`` in a new session (a new tab): the row (what, seen, driver, full page), "seen" from
    the navigation start until the first frame in which ``predicate`` holds."""
    page = _context(browser, viewport={"width": 1400, "height": 1800}).new_page()
    t0 = time.perf_counter()
    page.goto(url)
    _arm_visit(page, predicate)
    seen = _seen(page)
    driver = time.perf_counter() - t0
    _idle(page)
    return (what, seen, driver, time.perf_counter() - t0), page


AUDIT_EPS = "accountant's ε"
CHECK_EPS = "ε upper bound (safe to claim)"


def _first_visit_and_edits(browser, url: str, path: str, first: str, edit: str, metric: str, key: str, values,
                           scale: float) -> list[tuple[str, float, float, float]]:
    """A first visit of ``path`` until ``metric`` is on screen (row ``first``), then one edit of the number box
    ``key`` per value of ``values`` (shifted by a stamp times ``scale``, so never computed before) until ``metric``
    shows a new value (rows ``edit``; their "full page" column waits until the script run has finished: on Audit, the trials and the empirical ε lower bound after the accountant's ε)."""
    import json

    stamp = int(time.time()) % 97
    row, page = _visit(browser, f"{url}/{path}", first, f"() => {_metric(metric)} !== ''")
    rows = [row]
    changed = "() => {{ const s = {m}; return s !== '' && s !== {b}; }}"
    for x in values:
        x += stamp * scale  # never cached before
        before = page.evaluate(f"() => {_metric(metric)}")
        rows.append(_timed(page, edit, changed.format(m=_metric(metric), b=json.dumps(before)),
                           lambda x=x: _edit(page, key, x)))
    page.close()
    return rows


def _audit(browser, url: str) -> list[tuple[str, float, float, float]]:
    """Audit (issue 33): a first visit of the default audit (DP-SGD, 2000 trials) until the accountant's ε is on
    screen, then three ε edits (values never computed before) until the accountant's ε shows its new value (shown
    before any trial runs; the trainings, in the worker pool with a progress bar, and the empirical ε lower bound
    follow: the "full page" column)."""
    return _first_visit_and_edits(browser, url, "audit", "Audit first visit: accountant's ε",
                                  "Audit ε edit: accountant's ε", AUDIT_EPS, "w_eps",
                                  (0.737, 1.913, 3.377), 1e-6)


def _check(browser, url: str) -> list[tuple[str, float, float, float]]:
    """Check a run: a first visit until the verdict's ε upper bound is on screen, then three edits of the noise
    multiplier (values never computed before) until the verdict's ε upper bound shows its new value."""
    return _first_visit_and_edits(browser, url, "check", "Check a run first visit: verdict",
                                  "Check a run: noise multiplier edit", CHECK_EPS, "w_verify_nm",
                                  (0.83, 1.37, 2.11), 1e-5)


def audit_check_only(url: str, which: str) -> list[tuple[str, float, float, float]]:
    """Only the Audit (``--only audit``) or Check a run (``--only check``) measurements."""
    from playwright.sync_api import sync_playwright

    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        rows = (_audit if which == "audit" else _check)(browser, url)
        browser.close()
    return rows


def load(url: str, sessions: int) -> list[float]:
    from playwright.sync_api import sync_playwright

    times: list[float] = []
    lock = threading.Lock()

    def one(k: int) -> None:
        with sync_playwright() as pw:
            browser = pw.chromium.launch(executable_path=CHROMIUM, args=ARGS)
            page = _context(browser).new_page()
            page.goto(f"{url}/calibrate?n={1000 + 7 * k}")
            page.wait_for_selector("[data-testid='stMetric']", timeout=300000)
            seen = _seen(page)  # from the start of this tab's navigation
            with lock:
                times.append(seen)
            browser.close()

    threads = [threading.Thread(target=one, args=(k,)) for k in range(sessions)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return times


def load_tabs(url: str, sessions: int) -> list[float]:
    """``sessions`` tabs of ONE Chromium (its script cache warmed by one earlier visit) open Calibrate at once, each
    at its own n: every tab is its own Streamlit session, so the server serves ``sessions`` sessions, while the
    client side costs one browser process on these 2 cores instead of ``sessions`` (in a class each student's browser
    runs on the student's own machine).  Returns, for each tab, the seconds from the first tab's navigation start
    until σ is painted in this tab (measured in the page, see the module docstring)."""
    from playwright.sync_api import sync_playwright

    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        ctx = _context(browser)
        warm = ctx.new_page()
        warm.goto(f"{url}/calibrate?n=777")
        warm.wait_for_selector(".js-plotly-plot", state="attached", timeout=120000)
        warm.close()
        pages = [ctx.new_page() for _ in range(sessions)]
        t0 = time.perf_counter()
        for k, page in enumerate(pages):
            page.goto(f"{url}/calibrate?n={5000 + 11 * k}", wait_until="commit")
        starts = [page.evaluate("performance.timeOrigin") / 1000 for page in pages]  # each tab's navigation start
        first = min(starts)
        seen: dict[int, float] = {}  # tab -> seconds from the first tab's navigation start until σ shows in this tab
        while len(seen) < len(pages) and time.perf_counter() - t0 < 300:
            for k, page in enumerate(pages):
                if k not in seen and page.evaluate("window.__seen !== null"):
                    seen[k] = starts[k] - first + float(page.evaluate("window.__seen"))
            time.sleep(0.05)
        times = list(seen.values())
        browser.close()
        if len(times) < sessions:
            raise RuntimeError(f"only {len(times)} of {sessions} tabs showed σ within 300 s")
    return times


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sessions", type=int, default=8, help="concurrent sessions for the load figure (0: skip)")
    ap.add_argument("--runs", type=int, default=1, help="repeat the edit measurements this many times")
    ap.add_argument("--only", choices=["bounds-explicit", "accounting", "simulate", "audit", "check"],
                    help="run only these measurements (no load figure)")
    args = ap.parse_args()
    proc, url = start_server()
    try:
        rows = []
        for _ in range(args.runs):
            rows += ({"bounds-explicit": bounds_explicit_only, "accounting": accounting_only,
                      "simulate": simulate_only,
                      "audit": lambda u: audit_check_only(u, "audit"),
                      "check": lambda u: audit_check_only(u, "check")}[args.only](url)
                     if args.only else edits(url))
        print(f"{'what':<45} {'seen':>7} {'driver':>7} {'full page':>10}")
        for what, seen, driver, full in rows:
            print(f"{what:<45} {seen:>6.2f}s {driver:>6.2f}s {full:>9.2f}s")
        if args.sessions and not args.only:
            t = load(url, args.sessions)
            print(f"{args.sessions} sessions opening Calibrate at once: median {statistics.median(t):.2f} s, "
                  f"max {max(t):.2f} s until σ is visible")
            for k in (args.sessions, 2 * args.sessions):
                t = load_tabs(url, k)
                print(f"{k} tabs of one browser opening Calibrate at once: median {statistics.median(t):.2f} s, "
                      f"max {max(t):.2f} s until σ is visible")
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=60)
        except Exception:  # noqa: BLE001 - a loaded machine: stop it for good
            proc.kill()
            proc.wait(timeout=30)


if __name__ == "__main__":
    main()
