"""Real-browser test (Playwright + Debian's Chromium): the Simulate page labels DP-SGD curves run with the papers'
experimental noise rule as ``python -m dpviz reproduce`` does -- "paper's noise rule (not private here)" -- and only
those (issue 19).

The checkbox "Noise as in the papers' experiments" is switched on and off four times in a row; after each change the
widget, the URL and the plot's legend must agree.
"""

import os
import re
from pathlib import Path

import pytest

from conftest import CHROMIUM, new_page, settle, wait_query  # noqa: E402

if not Path(CHROMIUM).exists() and not os.environ.get("CI"):
    pytest.skip("Debian's Chromium is not installed (/usr/bin/chromium) and CI is not set", allow_module_level=True)

pytestmark = pytest.mark.browser
WAIT = 60000
LABEL = "paper's noise rule (not private here)"


@pytest.fixture(scope="module")
def browser_page(module_browser):
    page = new_page(module_browser, viewport={"width": 1400, "height": 1800})
    yield page
    page.close()


def _legend(page) -> str:
    return " ".join(page.locator(".js-plotly-plot").first.locator(".legendtext").evaluate_all(
        "els => els.map(e => e.textContent)"))


def test_paper_rule_curves_are_labelled_not_private(server, browser_page):
    from dpviz.theory import catalog

    # the legend carries the short name (up to the first parenthesis, "DP-SGD"); the full name is in the hover
    name = catalog.get_algorithm("dpsgd-rdp").name.split(" (")[0]
    page = browser_page
    # DP-SGD (Rényi calibration) and SGD at a small setting; eps grid 1, 2, 4: the experimental rule's sigma is below
    # the calibrated one there (Wang, Lei, Ying & Zhou, Section 5.1 picks beta without Theorem 2's conditions)
    page.goto(f"{server}/simulate?T=30&n=200&reps=3&sim_algs=dpsgd-rdp,sgd&eps_grid=1,2,4")
    page.wait_for_selector(".st-key-w_run_infeasible", timeout=WAIT)
    settle(page)
    for on in [True, False, True, False]:
        page.locator(".st-key-w_run_infeasible label").click()
        if on:
            wait_query(page, "run_infeasible", "True")
        else:
            page.wait_for_function("() => !new URLSearchParams(window.location.search).has('run_infeasible')",
                                   timeout=WAIT)
        settle(page)
        assert page.locator(".st-key-w_run_infeasible input").is_checked() == on
        page.get_by_role("button", name="Run simulation").click()
        page.wait_for_selector(".js-plotly-plot", timeout=WAIT)
        settle(page)
        page.wait_for_function(
            "([t, on]) => { const els = document.querySelectorAll('.js-plotly-plot .legendtext');"
            " const s = Array.from(els).map(e => e.textContent).join(' ');"
            " return els.length > 0 && s.includes(t) === on; }", arg=[LABEL, on], timeout=WAIT)
        legend = _legend(page)
        assert (f"{name}, {LABEL}" in legend) == on, legend
        assert re.search(r"SGD", legend) and (LABEL in legend) == on
    assert page.locator("[data-testid='stException']").count() == 0
