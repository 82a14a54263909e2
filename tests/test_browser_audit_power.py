"""Real browser on the Audit page: the canary and the test statistic are stated in plain words, and follow the
algorithm and sigma changed several times in a row (each checked in the widget, the URL and the output)."""

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


def _label(alg: str) -> str:
    from dpviz.theory import catalog

    a = catalog.get_algorithm(alg)
    return f"{a.name} — {a.paper.short}"


def _algorithm(page, alg):
    page.get_by_label("Algorithm").click()
    page.get_by_role("option", name=_label(alg), exact=True).click()
    if alg == "dpsgd-rdp":  # the default: the link drops it
        page.wait_for_function("() => !location.search.includes('aud_alg')", timeout=60000)
    else:
        page.wait_for_url(re.compile(rf"aud_alg={re.escape(alg)}(&|$)"))
    assert page.locator("input[aria-label='Algorithm']").input_value() == _label(alg)


def _sigma(page, value):
    box = page.get_by_label("σ (noise standard deviation)", exact=True).and_(page.locator("input"))
    box.fill(value)
    box.press("Enter")
    page.wait_for_url(re.compile(rf"aud_sigma={re.escape(repr(float(value)))}(&|$)"))
    assert box.input_value() == value


@pytest.mark.slow
def test_audit_canary_and_statistic_follow_algorithm_and_sigma(server):
    from playwright.sync_api import sync_playwright

    out = ROOT / "test-artifacts"
    out.mkdir(exist_ok=True)
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        page = browser.new_page(viewport={"width": 1400, "height": 2600})
        # a deliberately broken DP-SGD: sigma = 0.001
        page.goto(f"{server}/audit?aud_trials=1000&aud_n=50&aud_T=50&aud_noise=custom&aud_sigma=0.001")
        _wait_output(page, "whole trajectory's score")
        body = page.locator("body").inner_text()
        assert "Canary: example 50 of D replaced" in body and "label 1" in body
        assert "σ = 0.001" in body
        assert page.locator("[data-testid='stException']").count() == 0
        page.wait_for_selector(".js-plotly-plot .gtitle >> text=/trajectory/", timeout=60000)
        page.screenshot(path=str(out / "audit_power_dpsgd.png"), full_page=True)
        # 1: output perturbation: only the released output is covered, so no trajectory score
        _algorithm(page, "dpsgd-output")
        _wait_output(page, "Statistic (the one that told D from D′ best on the first half of the trials): the "
                           "released output")
        assert "whole trajectory's score" not in page.locator("body").inner_text()
        # 2: sigma 2 (a private run): the statistic is still stated, the output follows sigma
        _sigma(page, "2")
        _wait_output(page, "σ = 2,")
        assert "Statistic (the one that told D from D′" in page.locator("body").inner_text()
        # 3: back to DP-SGD at sigma 0.001: the trajectory score again
        _sigma(page, "0.001")
        _algorithm(page, "dpsgd-rdp")
        _wait_output(page, "whole trajectory's score")
        assert "σ = 0.001" in page.locator("body").inner_text()
        # 4: non-private SGD (no noise): the trajectory score too
        _algorithm(page, "sgd")
        _wait_output(page, "σ = 0,")
        _wait_output(page, "whole trajectory's score")
        assert page.locator("[data-testid='stException']").count() == 0
        page.screenshot(path=str(out / "audit_power_sgd.png"), full_page=True)
        browser.close()
