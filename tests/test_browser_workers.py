"""Real browser: a simulation runs in the shared worker pool; changing a widget while it runs stops it, no stale
result is ever shown, and the next run works (Playwright + Debian's Chromium)."""

import os
import re
from pathlib import Path

import pytest

from conftest import CHROMIUM, ROOT, new_page, query_of as _query, settle

if not Path(CHROMIUM).exists() and not os.environ.get("CI"):
    pytest.skip("Debian's Chromium is not installed (/usr/bin/chromium) and CI is not set", allow_module_level=True)

pytestmark = pytest.mark.browser
WAIT = 90000
# T from the sidebar (not a theorem's schedule); ~15-25 s of engine time: not auto-run, long enough to interrupt
LONG = "T=60000&reps=500&eps_grid=1,2,4,8&sim_schedule=manual"




def _wait_or_report(page, selector: str, when: str) -> None:
    """Wait for ``selector``; if it does not come, fail with what the page shows instead (its text, and a screenshot
    in test-artifacts/) -- this test failed once in a full run and never alone, so a failure must say what it saw."""
    try:
        page.wait_for_selector(selector, timeout=WAIT)
    except Exception as exc:  # noqa: BLE001 - Playwright's timeout: report the page, not only the selector
        (ROOT / "test-artifacts").mkdir(exist_ok=True)
        shot = ROOT / "test-artifacts" / "simulate_worker_pool_failure.png"
        page.screenshot(path=str(shot), full_page=True)
        text = page.inner_text("body")
        raise AssertionError(f"{selector!r} did not appear {when} within {WAIT / 1000:g} s (screenshot {shot}); "
                             f"the URL was {page.url}; the page showed:\n{text[:3000]}") from exc


def test_changing_a_widget_during_a_run_stops_it_and_never_shows_a_stale_result(server, module_browser):
    # a page of the module's Chromium (module_browser)
    page = new_page(module_browser, viewport={"width": 1400, "height": 1600})
    page.goto(f"{server}/simulate?{LONG}")
    page.wait_for_selector("text=Estimated run time", timeout=WAIT)
    est = float(re.search(r"([0-9.]+) s", page.get_by_text(re.compile("Estimated run time")).first
                          .inner_text()).group(1))
    assert est > 5, est  # so it waits for the button
    for k, seed in enumerate([7, 8, 9]):
        page.get_by_role("button", name="Run simulation").click()
        page.wait_for_selector("text=/running \\d+\\/\\d+: .*%/", timeout=WAIT)  # progress from the worker
        box = page.locator(".st-key-w_seed input")
        box.fill(str(seed))
        box.press("Enter")  # a change while it runs: the run is cancelled, the page shows the new inputs
        page.wait_for_function("s => new URLSearchParams(location.search).get('seed') === s", arg=str(seed),
                               timeout=WAIT)
        _wait_or_report(page, "text=Press Run simulation to see the results", f"after seed change {k + 1}")
        settle(page, WAIT)
        assert box.input_value() == str(seed)
        assert page.locator(".js-plotly-plot").count() == 0  # nothing from the interrupted run
    # a short run afterwards finishes at once: the interrupted ones no longer hold the session's worker
    box = page.locator(".st-key-w_reps input")
    box.fill("5")
    box.press("Enter")
    page.wait_for_function("() => new URLSearchParams(location.search).get('reps') === '5'", timeout=WAIT)
    settle(page, WAIT)
    page.locator(".st-key-w_T input").fill("200")
    page.locator(".st-key-w_T input").press("Enter")
    page.wait_for_function("() => new URLSearchParams(location.search).get('T') === '200'", timeout=WAIT)
    settle(page, WAIT)
    page.get_by_role("button", name="Run simulation").click()
    page.wait_for_selector(".js-plotly-plot", timeout=WAIT)
    settle(page, WAIT)
    assert page.get_by_text(re.compile(r"Done in [0-9.]+ s")).count() >= 1
    assert _query(page)["seed"] == "9"
    assert page.locator("[data-testid='stException']").count() == 0
    (ROOT / "test-artifacts").mkdir(exist_ok=True)
    page.screenshot(path=str(ROOT / "test-artifacts" / "simulate_worker_pool.png"), full_page=True)
    page.close()
