"""Real browser on the Audit page: the certification method and the planner's target changed several times in a
row, each checked in the widget, the URL and the output (the trade-off plot and the planner; dpviz.labs.audit_methods and audit_planner)."""

import os
import re
from pathlib import Path

import pytest

pytestmark = pytest.mark.browser  # a real browser: `make test` runs it, `make check` leaves it out

from conftest import ARGS, CHROMIUM, ROOT  # the server fixture lives in conftest.py

if not Path(CHROMIUM).exists() and not os.environ.get("CI"):
    pytest.skip("Debian's Chromium is not installed (/usr/bin/chromium) and CI is not set", allow_module_level=True)


def _wait_output(page, text, timeout=90000):
    page.wait_for_function(
        "t => document.body.innerText.includes(t) && !document.body.innerText.includes('running…')", arg=text,
        timeout=timeout)


def _method(page, label):
    page.get_by_text(label, exact=True).click()


@pytest.mark.slow
def test_audit_methods_and_planner(server):
    from playwright.sync_api import sync_playwright

    out = ROOT / "test-artifacts"
    out.mkdir(exist_ok=True)
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        page = browser.new_page(viewport={"width": 1400, "height": 3200})
        page.goto(f"{server}/audit?aud_trials=2000&aud_n=50&aud_T=20&aud_noise=custom&aud_sigma=0.3")
        _wait_output(page, "To certify ε ≥ 0.5 with clopper-pearson")
        # the first run of a browser session draws its charts after the first paint (a rerun): wait, not read once
        _wait_output(page, "ε lower bound, clopper-pearson (95 %)")
        page.wait_for_selector(".js-plotly-plot .gtitle >> text=/Trade-off/", timeout=60000)
        assert page.locator("[data-testid='stException']").count() == 0
        # 1: GDP fit
        _method(page, "GDP fit")
        page.wait_for_url(re.compile(r"aud_method=gdp"))
        _wait_output(page, "ε lower bound, gdp (95 %)")
        _wait_output(page, "trade-off curve is a Gaussian one")
        assert page.get_by_role("radio", name="GDP fit").is_checked()
        page.screenshot(path=str(out / "audit_tradeoff_gdp.png"), full_page=True)
        # 2: one-run
        _method(page, "one-run (canaries)")
        page.wait_for_url(re.compile(r"aud_method=one-run"))
        _wait_output(page, "ε lower bound, one-run (95 %)")
        _wait_output(page, "guesses right")
        # 3: planner target
        box = page.get_by_label("planner: ε to certify", exact=True).and_(page.locator("input"))
        box.fill("0.2")
        box.press("Enter")
        page.wait_for_url(re.compile(r"aud_target=0\.2"))
        _wait_output(page, "To certify ε ≥ 0.2 with one-run")  # the planner's sentence
        assert box.input_value() == "0.2"
        # 4: back to Clopper–Pearson: the URL drops the default, the same trials are re-analysed (no rerun text)
        _method(page, "Clopper–Pearson")
        page.wait_for_function("() => !location.search.includes('aud_method')", timeout=60000)
        _wait_output(page, "To certify ε ≥ 0.2 with clopper-pearson")
        assert "2000 trials" in page.locator("body").inner_text()
        # 5: an invalid target: one clear message naming the box, no stale planner output, no traceback
        box.fill("0")
        box.press("Enter")
        page.wait_for_selector("[data-testid='stAlert'] >> text=/planner/", timeout=60000)
        assert box.input_value() == "0"
        assert "To certify" not in page.locator("body").inner_text()
        assert page.locator("[data-testid='stException']").count() == 0
        page.screenshot(path=str(out / "audit_planner.png"), full_page=True)
        browser.close()
