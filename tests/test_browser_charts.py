"""Real-browser tests of what the charts say (issue 20, "Charts say what they show").

A server with a tiny time budget per curve (DPVIZ_CURVE_BUDGET) makes the noise curves of "Compare every algorithm"
run out of time at once, as they did under load: the points not computed must be shown as "not computed (time
budget)", never as "not private", and computed by the following runs -- never cached as final.
"""

import os
import re
from pathlib import Path

import pytest

from conftest import ARGS, CHROMIUM, ROOT, query_of, settle, wait_query  # noqa: E402

if not Path(CHROMIUM).exists() and not os.environ.get("CI"):
    pytest.skip("Debian's Chromium is not installed (/usr/bin/chromium) and CI is not set", allow_module_level=True)

pytestmark = pytest.mark.browser
WAIT = 120000
OUT = ROOT / "test-artifacts"


@pytest.fixture(scope="module")
def slow_server():
    """The dashboard with a 0.02 s time budget per curve and page run."""
    import serve

    old = os.environ.get("DPVIZ_CURVE_BUDGET")
    os.environ["DPVIZ_CURVE_BUDGET"] = "0.02"
    try:
        proc, url = serve.launch(timeout=90)
    except RuntimeError as exc:
        pytest.fail(str(exc))
    finally:
        if old is None:
            os.environ.pop("DPVIZ_CURVE_BUDGET", None)
        else:
            os.environ["DPVIZ_CURVE_BUDGET"] = old
    try:
        yield url
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=30)  # a busy server (worker pool, a curve being computed) may take a while
        except __import__("subprocess").TimeoutExpired:
            proc.kill()
            proc.wait(timeout=10)


def _chart(page, title_part: str) -> dict:
    """Traces ({name: [y ...]}), title and annotations of the Plotly chart whose title contains ``title_part``."""
    return page.wait_for_function(
        """(t) => { for (const gd of document.querySelectorAll('.js-plotly-plot')) {
                const title = (gd.layout && gd.layout.title && gd.layout.title.text) || '';
                if (!title.includes(t)) continue;
                const traces = {};
                for (const tr of gd.data) traces[tr.name] = (tr.y || []).map(v => v === undefined ? null : v);
                return {title, traces, notes: (gd.layout.annotations || []).map(a => a.text),
                        bands: (gd.layout.shapes || []).filter(s => s.type === 'rect').length};
            } return null; }""", arg=title_part, timeout=WAIT).json_value()


def _metric(page, label) -> str:
    m = page.locator("[data-testid='stMetric']").filter(has_text=label).first
    return m.locator("[data-testid='stMetricValue']").inner_text().strip()


def _wait_chart(page, title_part):
    page.wait_for_function(
        """(t) => Array.from(document.querySelectorAll('.js-plotly-plot')).some(
               gd => ((gd.layout && gd.layout.title && gd.layout.title.text) || '').includes(t))""",
        arg=title_part, timeout=WAIT)


def _quiet(page) -> None:
    """Wait until the page's own rounds of curve computation have stopped (a click then lands on a still page)."""
    for _ in range(3):
        settle(page, WAIT)
        page.wait_for_function("() => !document.querySelector('[data-testid=\"stMain\"]').innerText.includes("
                               "'Computing the remaining points')", timeout=WAIT)
        page.wait_for_timeout(700)


def _complete(page, pressed: int = 0) -> int:
    """Wait until both noise charts have every point; press the page's "compute the rest" button when it offers it
    (once the page's own rounds have stopped). Returns how often it was pressed in all."""
    button = page.get_by_role("button", name="Compute the points not computed yet")
    for _ in range(60):
        settle(page, WAIT)
        page.wait_for_function(  # the page's own rounds have stopped: no "computing the remaining points" caption
            "() => !document.querySelector('[data-testid=\"stMain\"]').innerText.includes("
            "'Computing the remaining points')", timeout=WAIT)
        page.wait_for_timeout(1000)
        if page.get_by_text("Computing the remaining points").count():
            continue
        eps, n = _chart(page, "Noise level vs ε"), _chart(page, "Noise level vs n")
        if eps and n and "not computed (time budget)" not in eps["traces"] and \
                "not computed (time budget)" not in n["traces"] and button.count() == 0:
            return pressed
        if button.count():
            button.click()
            pressed += 1
            page.wait_for_timeout(1500)
    raise AssertionError("the noise curves were never completed")


def test_compare_every_algorithm_never_shows_timeouts_as_not_private(slow_server):
    from playwright.sync_api import sync_playwright

    from dpviz.theory import catalog

    OUT.mkdir(exist_ok=True)
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        page = browser.new_page(viewport={"width": 1280, "height": 3000})
        page.goto(f"{slow_server}/calibrate?n=20000&eps=3.0&algorithm=dpsgd-rdp&compare_all=True")
        _wait_chart(page, "Noise level vs ε")
        first = _chart(page, "Noise level vs ε")
        # with a 0.02 s budget the slow accountants' points are not all computed in the first run: they are shaded
        # and named "not computed", and a computed gap is the only thing called "not private"
        if "not computed (time budget)" in first["traces"]:
            assert first["bands"] >= 1 and any("not computed within the time budget" in a for a in first["notes"])
            page.screenshot(path=str(OUT / "calibrate_curves_computing.png"))
        pressed = _complete(page)
        page.screenshot(path=str(OUT / "calibrate_curves_complete.png"))
        eps_chart = _chart(page, "Noise level vs ε")
        kang = [name for name in eps_chart["traces"] if name.startswith("Kang")]
        assert len(kang) == 2
        # every point of Kang et al.'s curves is what the calibration gives (None only where it is not private)
        grid = [float(e) for e in __import__("numpy").logspace(-2, 1, 25)]
        base = {"n": 20000, "d": 10, "T": 1000, "eta": 0.01, "delta": 1.0 / 20000**2, "G": 1.0, "L": 1.0, "M": 1.0,
                "R": 1.0, "alpha": 0.5, "mu": 0.1, "kappa": 1.0}
        for name in kang:
            alg = next(a for a in catalog.algorithms() if name.startswith(f"{a.paper.short}: {a.name}"))
            want = []
            for e in grid:
                try:
                    c = catalog.calibrate(alg.id, accountant_extra=False,
                                          **{k: v for k, v in {**base, "eps": e}.items()
                                             if k in catalog.parameters_of(alg.calibrate)})
                    want.append(c.sigma if c.feasible else None)
                except ValueError:
                    want.append(None)
            got = eps_chart["traces"][name]
            assert [g is None for g in got] == [w is None for w in want], name
            assert all(abs(g - w) <= 1e-9 * w for g, w in zip(got, want) if w is not None), name
            assert sum(w is not None for w in want) >= 22  # the curves go down to ε ≈ 0.02, not stop at 0.075
        # a reload shows the complete curves at once: the time-outs were never cached
        page.reload()
        _wait_chart(page, "Noise level vs ε")
        settle(page, WAIT)
        again = _chart(page, "Noise level vs ε")
        assert "not computed (time budget)" not in again["traces"]
        assert again["traces"][kang[0]] == eps_chart["traces"][kang[0]]
        # ε changed several times in a row: widget, URL, σ and the chart's current-ε line follow; curves stay whole
        for eps in (0.5, 2.0, 0.25, 5.0):
            box = page.locator(".st-key-w_eps input")
            box.fill(str(eps))
            box.press("Enter")
            wait_query(page, "eps", str(eps))
            _complete(page, pressed)
            assert float(box.input_value()) == eps
            cal = catalog.calibrate("dpsgd-rdp", n=20000, eps=eps, delta=1.0 / 20000**2, T=1000, G=1.0,
                                    accountant_extra=False)
            from dpviz_ui import helpers as ui

            assert _metric(page, "σ") == ui.fmt(cal.sigma)
            chart = _chart(page, "Noise level vs ε")
            assert f"current ε = {ui.fmt(eps)}" in chart["traces"]
            assert chart["traces"][kang[0]] == eps_chart["traces"][kang[0]]
            assert query_of(page)["compare_all"] == "True"
        # σ against n: the chart exists, marks the current n and says what is held fixed
        n_chart = _chart(page, "Noise level vs n")
        assert "current n = 20000" in n_chart["traces"] and "δ = 1/n²" in n_chart["title"]
        browser.close()


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


def test_simulate_default_follows_the_theorem_and_says_when_a_run_does_not(slow_server):
    import math
    import re

    from playwright.sync_api import sync_playwright

    from conftest import choose

    OUT.mkdir(exist_ok=True)
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        page = browser.new_page(viewport={"width": 1280, "height": 800})
        page.goto(f"{slow_server}/simulate?reps=10")
        page.wait_for_selector("text=Run simulation", timeout=WAIT)
        settle(page, WAIT)
        main = page.locator("[data-testid='stMain']")
        # Wang, Lei, Ying & Zhou, Theorem 3 (a): T = n and η = 1/√n (c = 1); at n = 1000: η = 0.03162
        assert re.search(r"T = 1000 and η = 0\.03162: the schedule of Wang, Lei, Ying & Zhou, Theorem 3 \(a\)",
                         main.inner_text())
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
        assert "DP-SGD" in legend and "SGD" in legend and all(len(n) <= 40 for n in legend), legend
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
            assert ("the schedule of Wang, Lei, Ying & Zhou" in main.inner_text()) == (src == "theorem")
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
def test_audit_display_says_what_it_shows(slow_server):
    import re

    from playwright.sync_api import sync_playwright

    from dpviz_ui import helpers as ui
    from dpviz.theory import catalog

    OUT.mkdir(exist_ok=True)
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        page = browser.new_page(viewport={"width": 1280, "height": 1600})
        page.goto(f"{slow_server}/audit?aud_trials=400")
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


def test_nothing_is_clipped_at_1024_and_1280(slow_server):
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
            page = browser.new_page(viewport={"width": w, "height": h})
            for path, ready in pages:
                page.goto(slow_server + path)
                page.wait_for_selector(ready, state="attached", timeout=WAIT)
                page.wait_for_timeout(2500)  # the held-back formulas and charts of a first run
                settle(page, WAIT)
                assert page.evaluate(CLIPPED) == [], (w, path)
            # several changes in a row on Calibrate: every σ and β shown whole after each
            page.goto(f"{slow_server}/calibrate?algorithm=dpsgd-rdp")
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


# --- Bounds: explicit constants with three theorems: every bound at once, the curves progressively --------------------
def test_bounds_explicit_three_theorems_numbers_first_curves_progressively(slow_server):
    import time

    from playwright.sync_api import sync_playwright

    from dpviz_ui import helpers as ui
    from conftest import add_choice
    from dpviz.theory import catalog

    labels = {t.id: f"{t.paper.short} — {t.number}" for t in catalog.theorems()}
    base = {"n": 60000, "d": 10, "eps": 1.0, "delta": 1e-5, "G": 1.0, "L": 1.0, "M": 1.0, "R": 1.0, "alpha": 0.5,
            "mu": 0.1, "c": 1.0, "Fstar": 0.1}

    def explicit_total(tid):
        thm = catalog.get_theorem(tid)
        keys = set(catalog.parameters_of(thm.bound)) | set(catalog.parameters_of(thm.explicit_bound))
        return catalog.bound(tid, explicit=True, **{k: v for k, v in base.items() if k in keys}).total

    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        page = browser.new_page(viewport={"width": 1280, "height": 2400})
        picked = ["wang-lownoise-thm3a", "kang-pidp-thm1"]
        t0 = time.perf_counter()
        page.goto(f"{slow_server}/bounds?n=60000&eps=1.0&delta_auto=False&log10_delta=-5&bound_kind=explicit"
                  f"&theorems={','.join(picked)}")
        page.wait_for_function("() => Array.from(document.querySelectorAll('[data-testid=\"stMarkdownContainer\"]'))"
                               ".filter(e => e.innerText.startsWith('With the paper\\'s explicit constants')).length"
                               " >= 2", timeout=WAIT)
        print(f"explicit bounds of two theorems on screen after {time.perf_counter() - t0:.1f} s (driver clock)")
        for tid in ("wang-lownoise-thm6a", "wang-lownoise-thm4a"):  # a third theorem, then another in its place
            _quiet(page)
            if len(picked) == 3:
                tag = page.locator(".st-key-w_theorems [data-tag]").filter(has_text=labels[picked[-1]])
                tag.locator("[role=presentation], svg").last.click()
                picked.pop()
                wait_query(page, "theorems", ",".join(picked))
                _quiet(page)
            add_choice(page, "w_theorems", labels[tid])
            picked.append(tid)
            t0 = time.perf_counter()
            wait_query(page, "theorems", ",".join(picked))
            page.wait_for_function(
                "n => Array.from(document.querySelectorAll('[data-testid=\"stMarkdownContainer\"]'))"
                ".filter(e => e.innerText.startsWith('Bound at the current parameters')).length === n",
                arg=len(picked), timeout=WAIT)
            print(f"{tid} added: its bound on screen after {time.perf_counter() - t0:.1f} s (driver clock)")
            settle(page, WAIT)
        # the explicit totals are completed by the page's next runs (or the button) and equal the catalogue's
        button = page.get_by_role("button", name="Compute the points not computed yet")
        chart = None
        for _ in range(40):
            settle(page, WAIT)
            page.wait_for_timeout(1000)
            if page.get_by_text("Computing the remaining points").count():
                continue
            chart = _chart(page, "Explicit bounds vs n")
            if "not computed (time budget)" not in chart["traces"] and button.count() == 0:
                break
            if button.count():
                button.click()
                page.wait_for_timeout(1500)
        assert chart is not None and "not computed (time budget)" not in chart["traces"]
        lines = [x for x in page.locator("[data-testid='stMarkdownContainer']").all_inner_texts()
                 if x.startswith("With the paper's explicit constants")]
        for tid, line in zip(picked, lines):
            assert line.startswith(f"With the paper's explicit constants: {ui.fmt(explicit_total(tid))}"), (tid, line)
        assert query_of(page)["bound_kind"] == "explicit"
        page.screenshot(path=str(OUT / "bounds_explicit_three.png"))
        browser.close()
