"""Real-browser test of the Accounting page: four widget changes in a row, each checked in the widget, the URL and
the output (streamlit run + Debian Chromium via Playwright, as in tests/test_browser.py)."""

import math
import os
import re
from pathlib import Path

import pytest

pytestmark = pytest.mark.browser  # a real browser: `make test` runs it, `make check` leaves it out

from conftest import CHROMIUM, ROOT, new_page, poll_text, settle  # the shared `server` fixture: `streamlit run app.py`

if not Path(CHROMIUM).exists() and not os.environ.get("CI"):
    pytest.skip("Debian's Chromium is not installed (/usr/bin/chromium) and CI is not set", allow_module_level=True)


def _summary(page) -> str:
    return page.locator("[data-testid='stText']").filter(has_text="Summary:").first.inner_text()


def _wait_summary(page, pattern: str) -> str:
    """Wait until the summary line matches ``pattern`` (the rerun after a change has finished)."""
    return poll_text(page, _summary, lambda text: re.search(pattern, text), f"summary never matched {pattern!r}")


def _sigma_in(text: str) -> float:
    return float(re.search(r"the paper's σ = ([0-9.e+-]+)", text).group(1))


def _set_number(page, label: str, value: str) -> None:
    box = page.get_by_label(label, exact=True).and_(page.locator("input"))
    box.fill(value)
    box.press("Enter")


@pytest.mark.slow
def test_accounting_page_four_changes(server, module_browser):
    out = ROOT / "test-artifacts"
    out.mkdir(exist_ok=True)
    # one Chromium for the module (module_browser), a page of its own
    page = new_page(module_browser, viewport={"width": 1400, "height": 2400})
    page.goto(f"{server}/accounting?acc_algorithm=dpgd-sc&acc_mu=0.5&acc_log10_delta=-6")  # an old link
    page.wait_for_selector("text=Summary:", timeout=60000)
    # n = 1000, eps = 1, delta = 1e-6, G = 1, mu = 0.5: sigma = 8 sqrt(2 ln(1.25e6))/(0.5*1000) = 0.08478
    text = _wait_summary(page, r"paper's σ = 0\.0847")
    assert math.isclose(_sigma_in(text), 0.08478, rel_tol=1e-3)
    settle(page)  # the first run is over: a value typed now is not lost to it

    # 1. eps 1 -> 0.5: the paper's sigma doubles (0.1696)
    _set_number(page, "target ε", "0.5")
    text = _wait_summary(page, r"paper's σ = 0\.169")
    assert page.get_by_label("target ε", exact=True).and_(page.locator("input")).input_value() == "0.5"
    assert "eps=0.5" in page.url

    # 2. n 1000 -> 4000: four times less (0.1696 / 4 = 0.04239)
    _set_number(page, "n (examples)", "4000")
    text = _wait_summary(page, r"paper's σ = 0\.042")
    assert page.get_by_label("n (examples)", exact=True).and_(page.locator("input")).input_value() == "4000"
    assert "n=4000" in page.url
    assert math.isclose(_sigma_in(text), 0.16956 / 4, rel_tol=2e-3)

    # 3. your sigma = 0.05: the summary reports the eps it buys
    _set_number(page, "your σ (0 = none)", "0.05")
    text = _wait_summary(page, r"your σ = 0\.05 buys ε = [0-9.]+")
    assert "acc_sigma=0.05" in page.url
    assert page.get_by_label("your σ (0 = none)", exact=True).and_(page.locator("input")).input_value() == "0.05"

    # 4. algorithm -> DPGDC2 (full batch): sigma = 4G sqrt(1.25 T log(1/delta))/(n eps) with T = 1000
    #    = 4 sqrt(1.25 * 1000 * 13.815511)/(4000 * 0.5) = 4 * 131.4083 / 2000 = 0.26282
    page.get_by_label("Algorithm", exact=True).click()
    page.get_by_role("option", name=re.compile("DPGDC2")).click()
    text = _wait_summary(page, r"paper's σ = 0\.262")
    assert "algorithm=dpgd-c" in page.url
    box = page.locator("[data-testid='stSelectbox']").first
    shown = box.inner_text() + " ".join(box.locator("input").evaluate_all("els => els.map(e => e.value)"))
    assert "DPGDC2" in shown
    assert "full-batch" in text
    assert page.locator("[data-testid='stException']").count() == 0
    page.screenshot(path=str(out / "accounting.png"), full_page=True)
    page.close()


@pytest.mark.slow
def test_accounting_calculator_brackets_and_refusals(server, module_browser):
    """Issue 21: the calculator's PLD row carries its bracket and grid; sampling without replacement under add/remove
    is refused with one message; a tiny noise multiplier gets RDP and a PLD note (no traceback, no hang).  Four
    changes in a row, each checked in the widget, the URL and the output."""
    from conftest import choose, chosen, wait_query, wait_text

    # one Chromium for the module (module_browser), a page of its own
    page = new_page(module_browser, viewport={"width": 1400, "height": 2400})
    page.goto(f"{server}/accounting?algorithm=dpgd-sc&mu=0.5")
    page.wait_for_selector("text=General calculator", timeout=60000)
    settle(page)
    wait_text(page, "[data-testid='stCaptionContainer']", "safe to claim")

    # 1. sampling -> without replacement (add/remove still chosen): one message, no calculator table
    choose(page, "w_acc_calc_sampling", "without-replacement")
    wait_query(page, "acc_calc_sampling", "without-replacement")
    wait_text(page, "[data-testid='stAlert']", "analysed under replace-one")
    assert chosen(page, "w_acc_calc_sampling") == "without-replacement"

    # 2. neighbouring -> replace-one: the table is back, RDP only (no PLD for sampling without replacement)
    choose(page, "w_acc_calc_neighbouring", "replace-one")
    wait_query(page, "acc_calc_neighbouring", "replace-one")
    wait_text(page, "[data-testid='stCaptionContainer']", "PLD: dp_accounting has no PLD")
    assert chosen(page, "w_acc_calc_neighbouring") == "replace-one"

    # 3. sampling -> Poisson: the PLD row has a lower bound and a grid
    choose(page, "w_acc_calc_sampling", "poisson")
    wait_text(page, "[data-testid='stCaptionContainer']", "(lower, upper bound; grid", timeout=180000)
    assert chosen(page, "w_acc_calc_sampling") == "poisson"
    assert "acc_calc_sampling=without-replacement" not in page.url  # the default is left out of the URL

    # 4. noise multiplier -> 0.01: RDP answers, the PLD row says how large its grid would be
    box = page.get_by_label("noise multiplier σ/C", exact=True).and_(page.locator("input"))
    box.fill("0.01")
    box.press("Enter")
    wait_query(page, "acc_calc_nm", "0.01")
    wait_text(page, "[data-testid='stCaptionContainer']", "PLD: PLD not computed", timeout=180000)
    assert box.input_value() == "0.01"
    assert page.locator("[data-testid='stException']").count() == 0
    page.close()


@pytest.mark.slow
def test_accounting_privacy_statement_download(server, module_browser):
    """Issue 21: the calculator's "Download the privacy statement" gives the statement of the current inputs; after a
    change of the noise multiplier (three times, down to the page's smallest, 0.01, where ε ≈ 1.3·10⁷ and the
    statement says there is no meaningful privacy) the download follows the new numbers."""
    from conftest import wait_query, wait_text

    # one Chromium for the module (module_browser), a page of its own
    page = new_page(module_browser, viewport={"width": 1400, "height": 2400}, accept_downloads=True)
    page.goto(f"{server}/accounting?algorithm=dpgd-sc&mu=0.5")
    page.wait_for_selector("text=Download the privacy statement", timeout=180000)
    settle(page)
    for nm in ("2.5", "0.01", "0.8"):
        box = page.get_by_label("noise multiplier σ/C", exact=True).and_(page.locator("input"))
        box.fill(nm)
        box.press("Enter")
        wait_query(page, "acc_calc_nm", nm)
        wait_text(page, "[data-testid='stCaptionContainer']", f"--noise-multiplier {float(nm)!r}", timeout=180000)
        page.wait_for_selector("text=Download the privacy statement", timeout=180000)
        settle(page, timeout=180000)
        with page.expect_download(timeout=60000) as info:
            page.get_by_role("button", name="Download the privacy statement").click()
        text = Path(info.value.path()).read_text(encoding="utf-8")
        assert text.startswith("Privacy statement") and f"standard deviation {float(nm):g}·C" in text
        assert f"--noise-multiplier {float(nm)!r}" in text and "Not covered" in text
        assert ("Guarantee: NO meaningful privacy." in text) == (nm == "0.01")
        assert "inf" not in text and "nan" not in text
        assert box.input_value() == nm
    assert page.locator("[data-testid='stException']").count() == 0
    page.close()
