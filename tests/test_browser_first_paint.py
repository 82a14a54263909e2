"""A browser session's first visit: the main numbers come first, the charts and formulas follow by themselves (no
interaction),
and edits made while the charts are still held back stick (widget, URL and numbers)."""

import os
import time
from pathlib import Path

import pytest

pytestmark = pytest.mark.browser  # a real browser: `make test` runs it, `make check` leaves it out

from conftest import ARGS, CHROMIUM, ROOT, query_of, settle  # noqa: E402

if not Path(CHROMIUM).exists() and not os.environ.get("CI"):
    pytest.skip("Debian's Chromium is not installed (/usr/bin/chromium) and CI is not set", allow_module_level=True)


def _sigma(page) -> str:
    return page.locator("[data-testid='stMetricValue']").first.inner_text().strip()


def test_first_visit_draws_numbers_then_charts_and_edits_stick(server):
    from dpviz_ui import helpers as ui
    from dpviz.theory import catalog
    from playwright.sync_api import sync_playwright

    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        # 1. a new session, left alone: numbers, then the held-back charts arrive without any interaction
        page = browser.new_page(viewport={"width": 1400, "height": 1800})
        # note when the first chart element appears, on the page's own clock (from the start of the navigation)
        page.add_init_script("""new MutationObserver((m, o) => { if (document.querySelector('[data-testid="stMetric"]')) {
            window.__numbers_at = performance.now(); o.disconnect(); } })
            .observe(document, {subtree: true, childList: true});""")
        # ... and when that first run ended (the app's script state is back to "notRunning" after the numbers): its
        # last elements are the fragment whose timer draws the charts CHART_DELAY s later and the chunks' preload
        page.add_init_script("""new MutationObserver((m, o) => {
            const app = document.querySelector('[data-testid="stApp"]');
            if (window.__numbers_at !== undefined && app
                && app.getAttribute('data-test-script-state') === 'notRunning') {
              window.__run_done_at = performance.now(); o.disconnect(); } })
            .observe(document, {subtree: true, childList: true, attributes: true,
                                attributeFilter: ['data-test-script-state']});""")
        t0 = time.perf_counter()
        page.goto(f"{server}/calibrate?n=2222")
        page.wait_for_selector("[data-testid='stMetric']", timeout=60000)
        t_numbers = time.perf_counter() - t0
        page.wait_for_selector(".js-plotly-plot", state="attached", timeout=60000)
        t_chart = time.perf_counter() - t0
        assert t_chart >= t_numbers
        settle(page)
        want = ui.fmt(catalog.calibrate("dpsgd-rdp", n=2222, eps=1.0, delta=1 / 2222**2, T=1000, G=1.0).sigma)
        assert _sigma(page) == want
        assert page.locator(".js-plotly-plot").count() >= 1
        page.wait_for_selector(".katex", state="attached", timeout=60000)  # the formulas follow with the charts
        assert page.locator("[data-testid='stException']").count() == 0
        # Plotly's script chunk was asked for while the charts were still held back
        # (dpviz_ui.helpers._chart_preload_html): before the timer that draws them could fire (CHART_DELAY s after
        # the first run, which drew the numbers, ended; measured from the run's end, not from the numbers, so that a
        # slow run on a loaded machine does not count against the preload), not when a chart arrived
        fetched = page.evaluate("() => performance.getEntriesByType('resource').filter(e => "
                                "e.name.includes('/static/js/PlotlyChart.')).map(e => e.startTime)")
        assert fetched, "Plotly's chunk was never loaded"
        run_done = page.evaluate("window.__run_done_at")
        assert run_done is not None and run_done >= page.evaluate("window.__numbers_at")
        assert min(fetched) < run_done + 1000 * ui.CHART_DELAY
        page.close()
        # 2. a new session edited at once, before its charts were drawn: four edits in a row, each one sticks
        page = browser.new_page(viewport={"width": 1400, "height": 1800})
        page.goto(f"{server}/calibrate?n=3333")
        page.wait_for_selector("[data-testid='stMetric']", timeout=60000)
        for eps in (0.37, 2.9, 0.81, 5.5):
            box = page.locator(".st-key-w_eps input")
            box.fill(str(eps))
            box.press("Enter")
            want = ui.fmt(catalog.calibrate("dpsgd-rdp", n=3333, eps=eps, delta=1 / 3333**2, T=1000, G=1.0).sigma)
            page.wait_for_function(
                "t => Array.from(document.querySelectorAll('[data-testid=\"stMetricValue\"]'))"
                ".some(e => e.innerText.trim() === t)", arg=want, timeout=60000)
            settle(page)
            assert box.input_value() == str(eps)
            assert query_of(page).get("eps") == str(eps)
            assert _sigma(page) == want
        page.wait_for_selector(".js-plotly-plot", state="attached", timeout=60000)
        assert page.locator("[data-testid='stException']").count() == 0
        (ROOT / "test-artifacts").mkdir(exist_ok=True)
        page.screenshot(path=str(ROOT / "test-artifacts" / "first_paint.png"), full_page=True)
        browser.close()
