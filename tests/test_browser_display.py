"""Real-browser tests of what the pages show at the usual server settings (issue 20, "Charts say what they show"):
Simulate's default run follows the theorem's schedule and says when a run does not, the Audit page names what it
shows, and nothing is clipped at 1024 × 768 and 1280 × 800.  (The tests that need a server with a tiny time budget
per curve are in test_browser_charts.py.)"""

import os
from pathlib import Path

import pytest

from conftest import (ARGS, CHARTS_DRAWN_JS, CHROMIUM, ROOT, katex_errors, new_page, settle,  # noqa: E402  (the
                      wait_query)  # shared `server` fixture)

if not Path(CHROMIUM).exists() and not os.environ.get("CI"):
    pytest.skip("Debian's Chromium is not installed (/usr/bin/chromium) and CI is not set", allow_module_level=True)

pytestmark = pytest.mark.browser
WAIT = 120000
OUT = ROOT / "test-artifacts"


# --- Simulate: the default run uses the theorem's schedule and shows its trend; the page says when it does not -------
def _plot_area(page) -> list:
    """Height in pixels of the plotting area (without title and legend) of every Plotly chart on the page."""
    return page.evaluate("() => Array.from(document.querySelectorAll('.js-plotly-plot')).map(gd => {"
                         " const r = gd.querySelector('.nsewdrag'); return r ? r.getBoundingClientRect().height : 0; })")


def _run_sim(page) -> None:
    page.get_by_role("button", name="Run simulation").click()
    page.wait_for_function("() => document.querySelector('[data-testid=\"stMain\"]').innerText"
                           ".includes('Rates: fitted log-log slope')", timeout=WAIT)
    page.wait_for_selector(".js-plotly-plot .nsewdrag", state="attached", timeout=WAIT)
    settle(page, WAIT)


def _warnings(page) -> str:
    return " ".join(page.locator("[data-testid='stAlertContentWarning']").all_inner_texts())


def test_simulate_default_follows_the_theorem_and_says_when_a_run_does_not(server):
    import math
    import re

    from playwright.sync_api import sync_playwright

    from conftest import choose

    OUT.mkdir(exist_ok=True)
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        page = browser.new_page(viewport={"width": 1280, "height": 800})
        page.goto(f"{server}/simulate?reps=10")
        page.wait_for_selector("text=Run simulation", timeout=WAIT)
        settle(page, WAIT)
        main = page.locator("[data-testid='stMain']")
        # Wang, Lei, Ying & Zhou, Theorem 3 (a) sets T and η at every grid point, at that point's own value (issue 33:
        # a grid change moves no other point)
        assert re.search(r"T and η at every grid point: Wang, Lei, Ying & Zhou, Theorem 3 \(a\).*?evaluated at that "
                         r"point's own ε", main.inner_text())
        _run_sim(page)
        text = main.inner_text()
        dp = re.search(r"DP-SGD \(gradient perturbation, Rényi accounting\): fitted log-log slope (-?[0-9.]+).*?"
                       r"slope (-?[0-9.]+) over this grid", text)
        assert dp and float(dp.group(1)) < 0 and float(dp.group(2)) < 0, text  # the theory's trend: down in ε
        assert "does not show the theory's trend" not in _warnings(page)
        heights = _plot_area(page)
        assert heights and min(heights) >= 400, heights  # at 1280 × 800
        page.screenshot(path=str(OUT / "simulate_default.png"), full_page=True)
        # the chart's legend has short names; the full names are in the hover text
        traces = page.evaluate("() => document.querySelector('.js-plotly-plot').data.map("
                               "t => [t.name, t.hovertemplate || '', t.showlegend])")
        legend = [n for n, _h, show in traces if show is not False]
        # legend names carry the fitted slope beside the theory's (issue 33), e.g. "DP-SGD (slope -0.20; theory -0.10)"
        assert any(n.startswith("DP-SGD (slope ") and "theory" in n for n in legend), legend
        assert any(n.startswith("SGD (slope ") for n in legend) and all(len(n) <= 40 for n in legend), legend
        assert any("DP-SGD (gradient perturbation, Rényi accounting)" in h for _n, h, _s in traces)
        # the schedule radio: manual, theorem, manual -- URL and page follow each time
        for src in ("manual", "theorem", "manual"):
            page.locator(".st-key-w_sim_schedule").get_by_text(
                "the sidebar (manual)" if src == "manual" else "the theorem the run is compared with",
                exact=True).click()
            if src == "manual":
                wait_query(page, "sim_schedule", "manual")
            else:
                page.wait_for_function("() => !new URLSearchParams(window.location.search).has('sim_schedule')",
                                       timeout=WAIT)
            settle(page, WAIT)
            sidebar = page.locator("[data-testid='stSidebar']").inner_text()
            assert ("η" in sidebar.split("μ")[0]) == (src == "manual")  # η's box only in manual mode
            assert ("T and η at every grid point: Wang, Lei, Ying & Zhou" in main.inner_text()) == (src == "theorem")
        # the old default (least squares, n = 1000, the sidebar's T = 1000 and η = 0.01): the private runs are no
        # better than w = 0, the fitted slope has the wrong sign, and the page says both in plain words
        from dpviz.engine import data as D

        choose(page, "w_dataset", D.DATASETS["wang-least-squares"], typed="least squares")
        wait_query(page, "dataset", "wang-least-squares")
        settle(page, WAIT)
        _run_sim(page)
        warned = _warnings(page)
        assert "no better than the trivial predictor w = 0" in warned, warned
        assert "ran at the sidebar's T and η" in warned
        page.screenshot(path=str(OUT / "simulate_least_squares_warnings.png"), full_page=True)
        m = re.search(r"fitted log-log slope (-?[0-9.]+)", main.inner_text())
        theory = re.search(r"slope (-?[0-9.]+) over this grid", main.inner_text())
        if float(m.group(1)) * float(theory.group(1)) < 0:
            assert "does not show the theory's trend" in warned
        assert math.isfinite(float(m.group(1)))
        browser.close()


# --- Audit: names, the meaning of "ε lower bound 0", a default that works with calibrated σ, the papers' notation ---
def test_audit_display_says_what_it_shows(server):
    import re

    from playwright.sync_api import sync_playwright

    from dpviz_ui import helpers as ui
    from dpviz.theory import catalog

    OUT.mkdir(exist_ok=True)
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        page = browser.new_page(viewport={"width": 1280, "height": 1600})
        page.goto(f"{server}/audit?aud_trials=400")
        done = ("() => document.body.innerText.includes('trials (') && "
                "!document.body.innerText.includes('running…')")
        page.wait_for_function(done, timeout=WAIT)
        rdp = catalog.get_algorithm("dpsgd-rdp")
        assert page.locator("input[aria-label='Algorithm']").input_value() == f"{rdp.name} — {rdp.paper.short}"
        noise = page.locator(".st-key-aud_noise")
        for choice, label in (("calibrated", "calibrated σ"), ("experiment", "paper's experiment rule"),
                              ("calibrated", "calibrated σ")):
            noise.get_by_text(label, exact=True).click()
            if choice == "experiment":
                page.wait_for_function("() => !location.search.includes('aud_noise')", timeout=WAIT)
            else:
                page.wait_for_url(re.compile(r"aud_noise=calibrated"), timeout=WAIT)
            page.wait_for_timeout(500)
            page.wait_for_function(done, timeout=WAIT)
            settle(page, WAIT)
            text = page.locator("[data-testid='stMain']").inner_text()
            # the defaults (the shared n = 1000 and ε = 1, T = 100) work with the theorem's calibrated σ: no error
            assert page.locator("[data-testid='stAlertContentError']").count() == 0, text
            sigma = re.search(r"σ = ([0-9.]+),", text).group(1)
            if choice == "calibrated":  # Wang, Lei, Ying & Zhou, Theorem 2 at n = 1000, T = 100, δ = 1/n², ε = 1,
                # with the G of the audit's least-squares loss: |y| ≤ 1, ||x|| ≤ 1, R = 1 -> G = 1·(1·1 + 1) = 2
                cal = catalog.calibrate("dpsgd-rdp", n=1000, T=100, eps=1.0, delta=1e-6, G=2.0,
                                        accountant_extra=False)
                assert cal.feasible and abs(float(sigma) - float(ui.fmt(cal.sigma))) <= 1e-9
            lower = re.search(r"ε lower bound \(95 %\)\s*\n\s*([0-9.·⁻⁰¹²³⁴⁵⁶⁷⁸⁹]+)", text).group(1)
            if lower == "0":  # explained, with the most these trials can certify
                assert "found no evidence of privacy loss beyond ε = 0" in text and "at most ε =" in text
            else:
                assert "could certify at most ε =" in text
            assert float(sigma) > 0
        # the histogram: a title that says what it is, D and D′ in clearly different colours
        page.wait_for_selector(".js-plotly-plot", state="attached", timeout=WAIT)
        page.wait_for_function("() => Array.from(document.querySelectorAll('.js-plotly-plot')).some(gd => "
                               "gd.layout && (gd.layout.title.text || '').includes('How often each value'))", timeout=WAIT)
        fig = page.evaluate("() => { const gd = Array.from(document.querySelectorAll('.js-plotly-plot')).find("
                            "g => (g.layout.title.text || '').includes('How often each value'));"
                            " return {title: gd.layout.title.text, colours: gd.data.map(t => t.marker.color),"
                            " names: gd.data.map(t => t.name)}; }")
        # the title names the statistic the page reports ("statistic: …;"): ⟨w, u⟩ for a plain projection
        stat = re.search(r"statistic: ([^;]+);", page.locator("body").inner_text()).group(1)
        assert "How often each value of the test statistic " in fig["title"]
        assert (stat in ("output", "last", "average") and "⟨w, u⟩" in fig["title"]) or f"“{stat}”" in fig["title"]
        assert fig["names"] == ["trained on D", "trained on D′ = D + canary"]
        assert fig["colours"][0] != fig["colours"][1]
        page.screenshot(path=str(OUT / "audit_calibrated.png"), full_page=True)
        # ε claimed = 0.3 at n = 1000, T = 100 has no calibrated σ: one error, in the papers' notation (β, σ²)
        box = page.get_by_label("ε (claimed)", exact=True).and_(page.locator("input"))
        box.fill("0.3")
        box.press("Enter")
        page.wait_for_url(re.compile(r"eps=0\.3"), timeout=WAIT)
        page.wait_for_selector("[data-testid='stAlertContentError']", timeout=WAIT)
        err = page.locator("[data-testid='stAlertContentError']").first.inner_text()
        assert "β" in err and "beta" not in err and "sigma^2" not in err, err
        assert err.startswith(f"{rdp.name} — {rdp.paper.short} cannot run at these settings")
        browser.close()


# --- nothing clipped at 1024 × 768 and 1280 × 800 -------------------------------------------------------------------
CLIPPED = r"""() => {
  const out = [];
  const cut = (c) => c.clientWidth > 0 && c.scrollWidth > c.clientWidth + 1;
  // metrics and static table cells: no part of the text may be hidden (no "…", no overflow hidden)
  const boxes = "[data-testid='stMetricLabel'], [data-testid='stMetricValue'], [data-testid='stTable'] td, "
              + "[data-testid='stTable'] th, [data-testid='stMarkdownContainer'] td, [data-testid='stMarkdownContainer'] th";
  for (const e of document.querySelectorAll(boxes)) {
    for (const c of [e, ...e.querySelectorAll('*')]) {
      if (c.closest('.katex-mathml')) continue;  // KaTeX's hidden copy for screen readers
      const ox = getComputedStyle(c).overflowX;
      if (cut(c) && !['visible', 'auto', 'scroll'].includes(ox)) { out.push(['cut', e.innerText.slice(0, 40)]); break; }
    }
    const r = e.getBoundingClientRect();
    if (r.right > window.innerWidth + 1) out.push(['off-screen', e.innerText.slice(0, 40)]);
  }
  // formulas and data frames wider than their box: they scroll, with a scrollbar that takes room (is drawn)
  const scrollers = [...document.querySelectorAll('.katex-display'),
                     ...document.querySelectorAll("[data-testid='stDataFrame'] .dvn-scroller")];
  for (const s of scrollers) {
    if (!cut(s)) continue;
    const ox = getComputedStyle(s).overflowX;
    if (!['auto', 'scroll'].includes(ox) || s.offsetHeight - s.clientHeight < 6)
      out.push(['no visible scroll', (s.innerText || s.className).slice(0, 40)]);
  }
  return out;
}"""


def test_nothing_is_clipped_at_1024_and_1280(server):
    from playwright.sync_api import sync_playwright

    from dpviz_ui import helpers as ui
    from dpviz.theory import catalog

    OUT.mkdir(exist_ok=True)
    pages = [("/calibrate?algorithm=dpsgd-rdp&n=20000&eps=3.0", ".katex-display"),
             ("/calibrate?algorithm=dpsgd-pl", "[data-testid='stMetric']"),
             ("/bounds", "[data-testid='stDataFrame']"),
             ("/accounting", "[data-testid='stDataFrame']"),
             ("/audit?aud_trials=400", "[data-testid='stMetric']")]
    with sync_playwright() as pw:
        # Playwright hides scrollbars by default; a user's Chromium draws them, and so does this one
        browser = pw.chromium.launch(executable_path=CHROMIUM, args=ARGS, ignore_default_args=["--hide-scrollbars"])
        for w, h in ((1024, 768), (1280, 800)):
            # a User-Agent with which a first run draws its formulas and charts at once (conftest.new_page): the
            # page as it is once the held-back ones are drawn, without waiting for the timer rerun
            page = new_page(browser, viewport={"width": w, "height": h})
            for path, ready in pages:
                page.goto(server + path)
                page.wait_for_selector(ready, state="attached", timeout=WAIT)
                settle(page, WAIT)
                assert katex_errors(page, WAIT) == [], (w, path)  # every formula drawn, none in error
                page.wait_for_function(CHARTS_DRAWN_JS, timeout=WAIT)
                assert page.evaluate(CLIPPED) == [], (w, path)
            # several changes in a row on Calibrate: every σ and β shown whole after each
            page.goto(f"{server}/calibrate?algorithm=dpsgd-rdp")
            page.wait_for_selector("[data-testid='stMetric']", timeout=WAIT)
            for eps in (2.0, 3.0, 12.0):
                box = page.locator(".st-key-w_eps input")
                box.fill(str(eps))
                box.press("Enter")
                wait_query(page, "eps", str(eps))
                settle(page, WAIT)
                cal = catalog.calibrate("dpsgd-rdp", n=1000, eps=eps, delta=1e-6, T=1000, G=1.0,
                                        accountant_extra=False)
                values = page.locator("[data-testid='stMetricValue']").all_inner_texts()
                assert ui.fmt(cal.sigma) in [v.strip() for v in values] and float(box.input_value()) == eps
                assert page.evaluate(CLIPPED) == [], (w, eps)
            page.screenshot(path=str(OUT / f"calibrate_{w}x{h}.png"))
            page.close()
        browser.close()
