"""Every formula renders on every page of the dashboard (issue 30, item 3), in a real browser.

One server, one Chromium page: each page of the navigation (Home, Check a run, Calibrate, Bounds, Simulate,
Accounting, Audit, Lessons, Live class) is loaded in its default state and in states that show more formulas (other
algorithms, explicit-constant bounds, the accountants' σ, a finished simulation or audit...).  In each state every
expander is opened, and the test fails on any ``.katex-error`` (KaTeX's parse error), on a formula KaTeX left
undrawn, on raw TeX in the visible text (``^{``, ``_{``, a backslash command such as ``\\frac``, ``\\sqrt`` or
``\\epsilon``, a dollar sign; Plotly's SVG titles, axes and legends included, as they are text in the DOM) and on raw
TeX in any Plotly figure's titles, axis titles, annotations or trace names (Plotly draws no TeX without MathJax).
The lessons' steps are walked one by one in ``tests/test_lessons_walk_browser.py``; here the Lessons page is visited
in its default state, in presenter mode and at a step with a chart.  Screenshots go to test-artifacts/.

The walk is in two files that xdist runs in parallel: this one (Home, Check a run, Calibrate, Bounds) and
``tests/test_browser_pages_katex_more.py`` (Simulate, Accounting, Audit, Lessons, Live class), which imports it.
"""

import os
import re
import time
from pathlib import Path

import pytest

pytestmark = pytest.mark.browser  # a real browser: `make test` runs it, `make check` leaves it out

# the shared `server` fixture (conftest.py) starts the dashboard
from conftest import (ARGS, CHARTS_DRAWN_JS, CHROMIUM, ROOT, katex_errors, new_page, raw_tex_lines,  # noqa: E402
                      settle, visible_text)

if not Path(CHROMIUM).exists() and not os.environ.get("CI"):
    pytest.skip("Debian's Chromium is not installed (/usr/bin/chromium) and CI is not set", allow_module_level=True)

OUT = ROOT / "test-artifacts"
WAIT = 120000

#: raw TeX that KaTeX did not draw: a superscript or subscript group, a backslash command (\frac, \sqrt, \epsilon,
#: \mathrm ...), a dollar sign
RAW_TEX = re.compile(r"\^\{|_\{|\\[A-Za-z]{2,}|\$")

#: the text of every Plotly figure that the chart draws as words: titles, axis titles, annotations, trace names
PLOTLY_TEXT_JS = """() => {
  const out = [];
  const title = t => (t && typeof t === 'object') ? t.text : t;
  for (const gd of document.querySelectorAll('.js-plotly-plot')) {
    const lay = gd.layout || {};
    out.push(title(lay.title));
    for (const k of Object.keys(lay)) {
      if (/^[xy]axis\\d*$/.test(k)) out.push(title(lay[k].title));
      if (k === 'legend') out.push(title(lay[k].title));
    }
    for (const a of (lay.annotations || [])) out.push(a.text);
    for (const t of (gd.data || [])) { out.push(t.name); out.push(title(t.colorbar && t.colorbar.title)); }
  }
  return out.filter(s => typeof s === 'string' && s.length > 0);
}"""

#: (name, path and query, text that must be on screen when the state has finished computing): the states walked
#: here -- Home, Check a run, Calibrate and Bounds --, then (tests/test_browser_pages_katex_more.py, a file of its own
#: so that the two halves of the walk run in parallel under xdist) Simulate, Accounting, Audit, Lessons, Live class
STATES_PAGES = [
    ("home", "", "Preset gallery"),
    ("check", "check", None),
    ("check_sigma_shuffle", "check?verify_noise_kind=sigma&verify_sampling=shuffle&verify_neighbouring=replace-one",
     None),
    ("calibrate", "calibrate", None),
    ("calibrate_pidp", "calibrate?algorithm=pidp-sgd", None),
    ("calibrate_output", "calibrate?algorithm=dpsgd-output&eps=0.25", None),
    ("calibrate_pairwise", "calibrate?algorithm=dpsgd-rdp-pairwise&loss=auc-hinge", None),
    ("calibrate_dpgdc", "calibrate?algorithm=dpgdc", None),
    ("calibrate_compare", "calibrate?compare_all=true", None),
    ("bounds", "bounds", None),
    ("bounds_explicit", "bounds?bound_kind=explicit&theorems=wang-lownoise-thm3a,wang-nonsmooth-thm7", None),
    ("bounds_pidp_pairwise", "bounds?theorems=kang-pidp-thm2,yang-pairwise-thm1,xue-pairwise-thm1,"
     "wang-nonsmooth-lemma13", None),
]
STATES_MORE = [
    ("simulate", "simulate", "Done in"),
    ("simulate_n", "simulate?sim_sweep=n&reps=3&sim_schedule=manual&T=50", "Done in"),
    ("accounting", "accounting", None),
    ("accounting_pidp", "accounting?algorithm=pidp-sgd&acc_calc_sampling=shuffle", None),
    ("audit", "audit?aud_trials=400", "trials ("),
    ("audit_stability", "audit?aud_mode=stability&aud_reps=20", None),
    ("lessons", "lessons", None),
    ("lessons_present", "lessons?les_id=dpsgd&les_step=6&les_present=1", None),
    ("lessons_bounds", "lessons?les_id=rates&les_step=3", None),
    ("live_class", "class", None),
]
STATES = STATES_PAGES + STATES_MORE


def _open_expanders(page) -> None:
    """Open every closed expander (their formulas must render too)."""
    for _ in range(3):  # an expander may hold another one
        closed = page.locator("[data-testid='stExpander'] details:not([open]) > summary")
        n = closed.count()
        if n == 0:
            return
        for i in range(n - 1, -1, -1):
            try:
                closed.nth(i).click(timeout=5000)
            except Exception:  # noqa: BLE001 - redrawn under the click: the next round opens it
                pass
        page.wait_for_timeout(300)


def _check(page, name: str) -> list[str]:
    """The problems of the formulas on screen: KaTeX errors, undrawn formulas, raw TeX in text and charts."""
    problems = [f"{name}: KaTeX error {e}" for e in katex_errors(page)]
    problems += [f"{name}: raw TeX on screen: {line.strip()[:160]!r}"
                 for line in raw_tex_lines(visible_text(page), RAW_TEX)]
    problems += [f"{name}: raw TeX in a chart: {t[:160]!r}" for t in page.evaluate(PLOTLY_TEXT_JS)
                 if RAW_TEX.search(t)]
    exc = page.locator("[data-testid='stException']").count()
    if exc:
        problems.append(f"{name}: {exc} exception(s) on the page")
    return problems


def _visit(page, server: str, name: str, path: str, done: str | None) -> None:
    """Load one state and wait until it has finished computing (a simulation that did not start by itself is
    started with its button), with every chart drawn and every expander open.  The page's User-Agent
    (conftest.DRAWN_AT_ONCE_UA) has the first run draw its charts and formulas at once: no timer rerun to wait for."""
    page.goto(f"{server}/{path}", timeout=WAIT)
    # attached, not visible: presenter mode hides the sidebar (its navigation is in the page, display: none)
    page.wait_for_selector("[data-testid='stSidebarNav']", state="attached", timeout=WAIT)
    settle(page, WAIT)
    if done:
        if done == "Done in" and "Done in" not in page.inner_text("body"):
            page.get_by_role("button", name="Run simulation").click()
            settle(page, WAIT)
        page.wait_for_function("t => document.body.innerText.includes(t)", arg=done, timeout=WAIT)
        settle(page, WAIT)
    page.wait_for_function(CHARTS_DRAWN_JS, timeout=WAIT)
    _open_expanders(page)
    page.wait_for_timeout(300)


def walk(server: str, states=STATES, shots: bool = True) -> tuple[list[str], dict]:
    """Visit ``states`` with one browser page; the problems found and the number of formulas of each state."""
    from playwright.sync_api import sync_playwright

    OUT.mkdir(exist_ok=True)
    problems: list[str] = []
    counts = {}
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        page = new_page(browser, viewport={"width": 1400, "height": 1400})
        for name, path, done in states:
            t0 = time.perf_counter()
            try:
                _visit(page, server, name, path, done)
            except Exception as exc:  # noqa: BLE001 - a state that never finished is one problem, the walk goes on
                problems.append(f"{name}: did not finish ({type(exc).__name__}: {str(exc).splitlines()[0]})")
            problems += _check(page, name)
            counts[name] = page.locator(".katex").count()
            if shots:
                page.screenshot(path=str(OUT / f"formulas_{name}.png"), full_page=True)
            print(f"{name}: {time.perf_counter() - t0:.1f} s")  # where the walk's time goes (pytest -s)
        browser.close()
    return problems, counts


def test_every_page_renders_every_formula(server):
    problems, counts = walk(server, STATES_PAGES)
    assert not problems, "\n".join(problems)
    # the walk saw formulas: the pages that show formulas drew them (lessons_bounds: the other half of the walk)
    assert min(counts[k] for k in ("calibrate", "bounds", "calibrate_pidp", "bounds_explicit")) > 0, counts
