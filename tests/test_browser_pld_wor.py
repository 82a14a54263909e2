"""Real-browser test of the tight without-replacement PLD on the Accounting page (issue 31 item 6): three changes of
the target ε in a row, each checked in the widget, the URL and the PLD's own sentence; at ε = 0.01 (below the Rényi
accountant's floor) the floor's warning is gone and the PLD still certifies a σ."""

import os
import re
from pathlib import Path

import pytest

from conftest import CHROMIUM, ROOT, new_page, poll_text  # the shared `server` fixture: `streamlit run app.py`

from dpviz.theory import pld_wor

if not Path(CHROMIUM).exists() and not os.environ.get("CI"):
    pytest.skip("Debian's Chromium is not installed (/usr/bin/chromium) and CI is not set", allow_module_level=True)


def _pld_text(page) -> str:
    loc = page.locator("[data-testid='stText']").filter(has_text="certainly suffices")
    return loc.first.inner_text() if loc.count() else ""


def _wait_pld(page, eps: str) -> str:
    return poll_text(page, _pld_text, lambda text: f"σ for ε = {eps}:" in text,
                     f"the PLD sentence never showed ε = {eps}", seconds=90, every=300)


def _sigmas(text: str) -> tuple[float, float]:
    m = re.search(r": ([0-9.e+-]+) certainly suffices; any σ up to ([0-9.e+-]+) certainly", text)
    return float(m.group(1)), float(m.group(2))


@pytest.mark.slow
@pytest.mark.browser
def test_accounting_page_tight_pld_three_changes(server, module_browser):
    out = ROOT / "test-artifacts"
    out.mkdir(exist_ok=True)
    # a page of the module's Chromium (module_browser)
    page = new_page(module_browser, viewport={"width": 1400, "height": 2600})
    page.goto(f"{server}/accounting?algorithm=dpsgd-rdp&n=1000&T=1000&eps=1")
    page.wait_for_selector("text=Matched, tight: PLD", timeout=120000)
    _wait_pld(page, "1")
    assert page.get_by_text("Lebeda, Regehr, Kamath & Steinke", exact=False).count() >= 1  # the theorem
    box = page.get_by_label("target ε", exact=True).and_(page.locator("input"))
    for eps in ("0.5", "2", "0.01"):
        box.fill(eps)
        box.press("Enter")
        text = _wait_pld(page, eps)
        assert box.input_value() == eps
        assert f"eps={eps}" in page.url
        up, lo = _sigmas(text)
        ref = pld_wor.matched(n=1000, batch_size=1, steps=1000, eps=float(eps), delta=1e-6, sensitivity=2.0)
        assert abs(up - ref["sigma_upper"]) <= 1e-3 * ref["sigma_upper"]
        assert abs(lo - ref["sigma_lower"]) <= 1e-3 * ref["sigma_lower"]
    # ε = 0.01 is below the Rényi floor (0.0285): no floor warning, the PLD's σ instead
    assert page.get_by_text("smallest positive ε this RDP accountant certifies", exact=False).count() == 0
    assert page.locator("[data-testid='stException']").count() == 0
    page.screenshot(path=str(out / "accounting_pld_wor.png"), full_page=True)
    page.close()
