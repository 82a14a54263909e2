"""Real-browser tests of issue 20's "input is never silently wrong" and "every export reproduces the screen"
(Playwright + Debian's Chromium, the dashboard as ``make run`` serves it).

What a user did, several times in a row, each time checking the widget, the URL and the output: numbers typed as
``6e4``, ``1.5e5``, ``60,000``, ``60 000`` on Calibrate, Accounting and Audit; invalid, empty and out-of-range boxes
(one error naming the box and its range, no numbers, the link keeps the last valid values); Calibrate's setting
opening on Accounting; the "Download this view" file of Bounds whose command is run; Simulate's download file names;
and Accounting's downloads while a slow recomputation runs.  Screenshots go to test-artifacts/.
"""

import contextlib
import io
import json
import math
import os
import shlex
from pathlib import Path

import pytest

from conftest import ARGS, CHARTS_DRAWN_JS, CHROMIUM, DRAWN_AT_ONCE_UA, ROOT, query_of, settle, wait_query

if not Path(CHROMIUM).exists() and not os.environ.get("CI"):
    pytest.skip("Debian's Chromium is not installed (/usr/bin/chromium) and CI is not set", allow_module_level=True)

pytestmark = pytest.mark.browser
WAIT = 90000
SHOTS = ROOT / "test-artifacts"


@pytest.fixture(scope="module")
def page():
    from playwright.sync_api import sync_playwright

    SHOTS.mkdir(exist_ok=True)
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        # first visits draw their charts at once (conftest.DRAWN_AT_ONCE_UA): no timer rerun under the edits
        ctx = browser.new_context(viewport={"width": 1400, "height": 1800}, accept_downloads=True,
                                  user_agent=DRAWN_AT_ONCE_UA)
        yield ctx.new_page()
        browser.close()


def _type(page, key, text) -> None:
    box = page.locator(f".st-key-{key} input")
    box.fill(text)
    box.press("Enter")


def _box(page, key, expect: str | None = None) -> str:
    """The text in the box ``key``; with ``expect``, first wait (under load the rerun can start late) until it
    shows that text."""
    if expect is not None:
        page.wait_for_function("([k, v]) => { const e = document.querySelector(`.st-key-${k} input`);"
                               " return e && e.value === v; }", arg=[key, expect], timeout=WAIT)
    return page.locator(f".st-key-{key} input").input_value()


def _metric(page, label, expect: str | None = None) -> str:
    """The value of the metric ``label``; with ``expect``, first wait until it shows that value."""
    if expect is not None:
        page.wait_for_function(
            "([l, v]) => Array.from(document.querySelectorAll(\"[data-testid='stMetric']\"))"
            ".some(m => m.innerText.includes(l) && m.querySelector(\"[data-testid='stMetricValue']\")"
            ".innerText.trim() === v)", arg=[label, expect], timeout=WAIT)
    m = page.locator("[data-testid='stMetric']").filter(has_text=label).first
    return m.locator("[data-testid='stMetricValue']").inner_text().strip()


def _error_text(page, fragment: str) -> str:
    """Wait until the page's error contains ``fragment`` (the run after the last change has drawn it); its text."""
    page.wait_for_function(
        "f => Array.from(document.querySelectorAll(\"[data-testid='stAlert']\"))"
        ".some(e => e.innerText.includes('Fix the input') && e.innerText.includes(f))", arg=fragment, timeout=WAIT)
    return page.locator("[data-testid='stAlert']").filter(has_text="Fix the input").first.inner_text()


def _no_exception(page) -> None:
    assert page.locator("[data-testid='stException']").count() == 0


def _cli(command: str) -> list:
    from dpviz.cli import commands as cli

    outs = []
    for one in command.split(" ; "):
        argv = shlex.split(one)
        assert argv[:3] == ["python", "-m", "dpviz"]
        buf = io.StringIO()
        with contextlib.redirect_stdout(buf), contextlib.redirect_stderr(io.StringIO()):
            assert cli.main(argv[3:]) == 0, one
        outs.append(json.loads(buf.getvalue()))
    return outs


def test_calibrate_numbers_typed_every_way(server, page):
    from dpviz_ui import helpers as ui
    from dpviz.theory import catalog

    page.goto(f"{server}/calibrate?algorithm=dpsgd-rdp")
    page.wait_for_selector("[data-testid='stMetric']", timeout=WAIT)

    def sigma(n, T=1000):
        return ui.fmt(catalog.calibrate("dpsgd-rdp", n=n, eps=1.0, delta=1.0 / n**2, T=T, G=1.0).sigma)

    # n as 6e4, 1.5e5, 60,000 (the same n as before: nothing to recompute), 70 000 -- never 6, 1, 60 or 70
    for typed, n in [("6e4", 60000), ("1.5e5", 150000), ("60,000", 60000), ("70 000", 70000)]:
        _type(page, "w_n", typed)
        wait_query(page, "n", str(n))
        settle(page)
        assert _box(page, "w_n", str(n)) == str(n)  # the box shows the number it denotes
        assert _metric(page, "σ (Gaussian noise)", sigma(n)) == sigma(n)
    # T as 2e3 (was truncated to 2)
    _type(page, "w_T", "2e3")
    wait_query(page, "T", "2000")
    settle(page)
    assert _metric(page, "T", "2000") == "2000"
    assert _metric(page, "σ (Gaussian noise)", sigma(70000, 2000)) == sigma(70000, 2000)
    # not a whole number, a decimal comma, an empty box: one error naming n and its range, no numbers, URL kept
    for typed, shown in [("1.5", "you entered 1.5"), ("7,5", "a comma only separates thousands"),
                         ("", "you entered nothing"), ("1e12", "you entered 1e12")]:
        _type(page, "w_n", typed)
        text = _error_text(page, shown)
        settle(page)
        assert "n must be a whole number from 2 to 10⁹" in text.replace("*", "") and shown in text, text
        assert page.locator("[data-testid='stMetric']").count() == 0
        assert query_of(page)["n"] == "70000"
        assert _box(page, "w_n") == typed
    page.screenshot(path=str(SHOTS / "inputs_calibrate_error.png"), full_page=True)
    _type(page, "w_n", "8e4")
    wait_query(page, "n", "80000")
    page.wait_for_selector("[data-testid='stMetric']", timeout=WAIT)
    settle(page)
    assert _metric(page, "σ (Gaussian noise)", sigma(80000, 2000)) == sigma(80000, 2000)
    _no_exception(page)


def test_accounting_contract_and_shared_view(server, page):
    from dpviz_ui import helpers as ui
    from dpviz.theory import catalog

    # Calibrate at n = 5000, eps = 2 ...
    page.goto(f"{server}/calibrate?algorithm=dpsgd-rdp")
    page.wait_for_selector("[data-testid='stMetric']", timeout=WAIT)
    _type(page, "w_n", "5,000")
    wait_query(page, "n", "5000")
    _type(page, "w_eps", "2")
    wait_query(page, "eps", "2.0")
    page.wait_for_selector("text=A numerical accountant of the same mechanism (dp-accounting's RDP) needs σ",
                           timeout=WAIT)
    settle(page)
    cal = catalog.calibrate("dpsgd-rdp", n=5000, eps=2.0, delta=1 / 5000**2, T=1000, G=1.0)
    acc = ui.fmt(cal.extras["accountant_sigma"])
    assert page.get_by_text(f"needs σ = {acc} for the same").count() == 1
    # ... opens Accounting at 5000, 2, with the same accountant σ (one computation, one rounding)
    page.locator("[data-testid='stSidebarNav'] a").filter(has_text="Accounting").click()
    page.wait_for_selector("text=Summary:", timeout=WAIT)
    settle(page)
    assert _box(page, "w_n", "5000") == "5000" and _box(page, "w_eps", "2") == "2"
    assert query_of(page)["n"] == "5000"
    summary = page.locator("[data-testid='stText']").filter(has_text="Summary:").first.inner_text()
    assert f"needs σ = {acc} for ε = 2" in summary, summary
    # invalid inputs, several in a row: one error naming the box and its range, no table, URL keeps 5000 / 2
    for key, typed, expect in [("w_eps", "0", "target ε must be a number from 0.001 to 100 (you entered 0)"),
                               ("w_n", "-5", "n (examples) must be a whole number from 2 to 10⁷"),
                               ("w_n", "2e7", "n (examples) must be a whole number from 2 to 10⁷ on this page"),
                               ("w_eps", "", "you entered nothing")]:
        _type(page, key, typed)
        text = _error_text(page, expect)
        settle(page)
        assert expect in text.replace("*", "").replace("\\", ""), text
        assert page.get_by_text("Summary:").count() == 0
        assert page.get_by_role("button", name="Download this view (JSON)").count() == 0
        q = query_of(page)
        assert q["n"] == "5000" and q["eps"] == "2.0"
        assert _box(page, key) == typed
        _type(page, key, {"w_eps": "2", "w_n": "5000"}[key])  # back to valid
        page.wait_for_selector("text=Summary:", timeout=WAIT)
        settle(page)
    page.screenshot(path=str(SHOTS / "inputs_accounting.png"), full_page=True)
    # n as 6e4 and 60 000; the summary's paper σ follows (n = 60000, eps = 2, delta = 1/n^2)
    for typed in ["6e4", "60 000"]:
        _type(page, "w_n", typed)
        wait_query(page, "n", "60000")
        page.wait_for_selector("text=Summary:", timeout=WAIT)
        settle(page)
        assert _box(page, "w_n", "60000") == "60000"
    cal = catalog.calibrate("dpsgd-rdp", n=60000, eps=2.0, delta=1 / 60000**2, T=1000, G=1.0)
    paper = cal.extras.get("sigma_paper", cal.sigma)  # DP-SGD: the paper's Rényi σ is the released one
    summary = page.locator("[data-testid='stText']").filter(has_text="Summary:").first.inner_text()
    assert f"the paper's σ = {ui.fmt(paper)}" in summary, summary
    _no_exception(page)


def test_accounting_downloads_never_hold_the_previous_run(server, page):
    from playwright.sync_api import expect

    page.goto(f"{server}/accounting?algorithm=dpsgd-rdp&n=1000&eps=1")
    page.wait_for_selector("text=Summary:", timeout=WAIT)
    settle(page)
    page.wait_for_function(CHARTS_DRAWN_JS, timeout=WAIT)  # drawn in the first run (the module's User-Agent)
    page.wait_for_selector(".st-key-view_accounting button", timeout=WAIT)
    # a late rerun may redraw the button between a look-up and a count: wait for exactly one, not count once
    expect(page.get_by_role("button", name="Download this view (JSON)")).to_have_count(1, timeout=WAIT)
    # T = 600 000: the accountants take many seconds; meanwhile no download of the previous run is offered
    _type(page, "w_T", "600 000")
    wait_query(page, "T", "600000")
    page.wait_for_function("() => !document.querySelector('.st-key-view_accounting button')", timeout=WAIT)
    # the accountants' table JSON is gone too (the calculator's own JSON below does not depend on T and may stay)
    assert page.locator(".st-key-json_accounting button").count() == 0
    page.wait_for_selector(".st-key-view_accounting button", timeout=300000)
    settle(page, timeout=300000)
    with page.expect_download() as dl:
        page.locator(".st-key-json_accounting button").first.click()
    doc = json.loads(Path(dl.value.path()).read_text())
    assert doc["parameters"]["T"] == 600000 and doc["parameters"]["n"] == 1000
    with page.expect_download() as dl:
        page.locator(".st-key-view_accounting button").first.click()
    view = json.loads(Path(dl.value.path()).read_text())
    assert view["inputs"]["T"] == 600000 and "--T 600000" in view["command"]
    _no_exception(page)


def test_audit_numbers_and_errors(server, page):
    page.goto(f"{server}/audit?aud_trials=200&aud_T=40")
    page.wait_for_selector("[data-testid='stMetric']", timeout=WAIT)
    settle(page)
    for key, typed, value, query in [("w_n", "6e1", "60", "n"), ("w_aud_trials", "1,000", "1000", "aud_trials"),
                                     ("w_aud_T", "5e1", "50", "aud_T"), ("w_n", "80", "80", "n")]:
        _type(page, key, typed)
        wait_query(page, query, value)
        page.wait_for_selector("[data-testid='stMetric']", timeout=WAIT)
        settle(page)
        assert _box(page, key, value) == value
    page.wait_for_function("() => document.body.innerText.includes('1000 trials (500 on D')", timeout=WAIT)
    for typed, expect in [("0", "ε (claimed) must be a number from 0.001 to 100 (you entered 0)"),
                          ("", "you entered nothing"), ("1,5", "a comma only separates thousands")]:
        _type(page, "w_eps", typed)
        text = _error_text(page, expect)
        settle(page)
        assert expect in text.replace("*", "").replace("\\", ""), text
        assert page.locator("[data-testid='stMetric']").count() == 0
        assert query_of(page).get("eps") is None  # still the default 1
    _type(page, "w_eps", "2")
    wait_query(page, "eps", "2.0")
    page.wait_for_selector("[data-testid='stMetric']", timeout=WAIT)
    settle(page)
    assert _metric(page, "ε claimed (nominal)", "2") == "2"  # the default noise rule is not calibrated to ε
    page.screenshot(path=str(SHOTS / "inputs_audit.png"), full_page=True)
    _no_exception(page)


def test_bounds_download_this_view_command_runs(server, page):
    page.goto(f"{server}/bounds?n=60000&eps=1.0&delta_auto=False&log10_delta=-5"
              "&theorems=wang-lownoise-thm3a,kang-pidp-thm1&bound_kind=explicit")
    page.wait_for_selector(".st-key-view_bounds button", timeout=WAIT)
    settle(page)
    with page.expect_download() as dl:
        page.locator(".st-key-view_bounds button").first.click()
    doc = json.loads(Path(dl.value.path()).read_text())
    outs = _cli(doc["command"])  # exit 0 for every command (it was 2: "unknown parameter(s) Fstar")
    assert outs[0]["total"] == pytest.approx(doc["outputs"]["wang-lownoise-thm3a"]["total"], rel=1e-12)
    page_line = page.get_by_text("Bound at the current parameters").first.inner_text()
    from dpviz_ui import helpers as ui

    assert ui.fmt(outs[0]["total"]) in page_line


def test_simulate_download_names(server, page):
    page.goto(f"{server}/simulate?T=30&n=200&reps=4&kappas=0,0.15")
    page.wait_for_selector(".js-plotly-plot", state="attached", timeout=WAIT)
    settle(page)
    names = []
    for key in ("dl_simulation_eps", "csv_simulation", "json_simulation", "view_simulate"):
        with page.expect_download() as dl:
            page.locator(f".st-key-{key} button").first.click()
        names.append(dl.value.suggested_filename)
    assert names == ["simulation_eps.html", "simulation.csv", "simulation.json", "dpviz_simulate_view.json"]
    doc = json.loads(Path(dl.value.path()).read_text())
    (out,) = _cli(doc["command"])
    rows = [r for run in out["runs"] for r in run["rows"]]
    # the same seeds, the same numbers -- up to the last bit of a BLAS sum (the page's worker runs with one BLAS
    # thread, the command with the machine's default)
    got, page_rows = [r["excess_risk"] for r in rows], [r["excess_risk"] for r in doc["outputs"]["rows"]]
    assert len(got) == len(page_rows)
    assert all((a is None and b is None) or (a is not None and b is not None and math.isclose(a, b, rel_tol=1e-12))
               for a, b in zip(got, page_rows)), (got, page_rows)
    _no_exception(page)
