"""Real browser, Audit page (issue 33): the accountant's ε, the claim and the plan are on screen before any trial
runs, with the empirical ε lower bound "…" and a progress bar while the trials run; the bound fills in after.  Three
ε edits in a row, each checked in the widget, the URL and both stages of the output.  A screenshot goes to
test-artifacts/."""

import os
from pathlib import Path

import pytest

from conftest import ARGS, CHROMIUM, ROOT, query_of, settle

if not Path(CHROMIUM).exists() and not os.environ.get("CI"):
    pytest.skip("Debian's Chromium is not installed (/usr/bin/chromium) and CI is not set", allow_module_level=True)

pytestmark = pytest.mark.browser
WAIT = 180000


def _metric(page, label: str) -> str:
    return page.evaluate(
        """label => { const m = Array.from(document.querySelectorAll('[data-testid="stMetric"]')).find(
               e => ((e.querySelector('[data-testid="stMetricLabel"]') || {}).innerText || '').trim() === label);
             const v = m && m.querySelector('[data-testid="stMetricValue"]'); return v ? v.innerText.trim() : ''; }""",
        label)


@pytest.mark.slow
def test_audit_shows_the_accountant_eps_before_the_trials(server):
    from playwright.sync_api import sync_playwright

    from dpviz_ui import audit_page as ap
    from dpviz_ui import helpers as ui

    out = ROOT / "test-artifacts"
    out.mkdir(exist_ok=True)
    n, trials, T = 100, 16000, 100  # trials that take seconds: long enough to see the first stage
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        page = browser.new_page(viewport={"width": 1400, "height": 2200})
        page.goto(f"{server}/audit?aud_trials={trials}&n={n}&aud_T={T}")
        page.wait_for_function("() => document.body.innerText.includes('accountant')", timeout=WAIT)
        settle(page, timeout=WAIT)
        for eps, typed in ((0.61, "0.61"), (2.37, "2.37"), (5.0, "5e0")):
            state = dict(ap.DEFAULTS, aud_trials=trials, aud_T=T, aud_n=n, aud_eps=eps)
            pre = ap.preview(state)  # what the page must show before the trials (the audit's own plan)
            want = ui.fmt(pre["eps_accountant"])
            box = page.locator(".st-key-w_eps input")
            box.fill(typed)
            box.press("Enter")
            # first stage: the accountant's ε of the new ε, while the empirical bound is still pending
            page.wait_for_function(
                """([want]) => { const ms = Array.from(document.querySelectorAll('[data-testid="stMetric"]'));
                     const get = l => { const m = ms.find(e => ((e.querySelector('[data-testid="stMetricLabel"]')
                         || {}).innerText || '').trim() === l);
                       const v = m && m.querySelector('[data-testid="stMetricValue"]'); return v ? v.innerText.trim() : ''; };
                     return get("accountant's ε") === want; }""", arg=[want], timeout=WAIT)
            assert _metric(page, "ε lower bound (95 %)") == "…", eps  # the trials have not finished yet
            assert "Plan" in page.locator("body").inner_text()
            assert float(query_of(page)["eps"]) == eps  # the link follows the box (5e0 read as 5)
            assert float(box.input_value().replace(",", "")) == eps
            # second stage: the trials ran (progress bar meanwhile); the empirical bound is a number now
            page.wait_for_function(
                """() => { const m = Array.from(document.querySelectorAll('[data-testid="stMetric"]')).find(
                       e => ((e.querySelector('[data-testid="stMetricLabel"]') || {}).innerText || '').trim()
                            === 'ε lower bound (95 %)');
                     const v = m && m.querySelector('[data-testid="stMetricValue"]');
                     return v && !['…', 'not run', ''].includes(v.innerText.trim()); }""", timeout=WAIT)
            settle(page, timeout=WAIT)
            assert _metric(page, "accountant's ε") == want  # unchanged by the run
            assert _metric(page, "most ε these trials can certify") == ui.fmt(pre["max_certifiable"])
            assert float(_metric(page, "ε lower bound (95 %)").split("·")[0]) >= 0
            assert page.locator("[data-testid='stException']").count() == 0
        page.screenshot(path=str(out / "audit_preview.png"), full_page=True)
        browser.close()
