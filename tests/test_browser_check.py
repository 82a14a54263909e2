"""Real-browser test of the "Check a run" page: five changes in a row (noise multiplier, target, sampling, n, a typed
bad value and its fix), each checked in the widget, the URL and the output (streamlit run + Debian Chromium via
Playwright, as the other tests/test_browser_*.py)."""

import os
import re
import time
from pathlib import Path

import pytest

from conftest import ARGS, CHROMIUM, choose, chosen, query_of  # the shared `server` fixture starts `streamlit run app.py`
from dpviz.labs import run_check as rc

if not Path(CHROMIUM).exists() and not os.environ.get("CI"):
    pytest.skip("Debian's Chromium is not installed (/usr/bin/chromium) and CI is not set", allow_module_level=True)

MNIST = dict(n=60000, batch_size=256, epochs=60.0, noise_multiplier=1.1, delta=1e-5)


KEYS = {"noise multiplier σ/C": "w_verify_nm", "target ε (0 = none)": "w_verify_target",
        "n (training examples)": "w_verify_n"}


def _box(page, label):
    return page.locator(f".st-key-{KEYS[label]} input[type=text]")


def _set(page, label, value):
    box = _box(page, label)
    box.fill(value)
    box.press("Enter")


def _wait_for(page, pattern: str, timeout: float = 120) -> str:
    """Wait until the main area's text matches ``pattern``; the text."""
    deadline = time.time() + timeout
    text = ""
    while time.time() < deadline:
        try:
            text = page.locator("[data-testid='stMain']").inner_text()
        except Exception:  # noqa: BLE001 - re-rendering
            text = ""
        if re.search(pattern, text):
            return text
        page.wait_for_timeout(300)
    raise AssertionError(f"never matched {pattern!r}: {text[:800]!r}")


def _upper(**kw) -> str:
    return f"{rc.check(search=False, **kw)['eps_upper']:.4g}"


@pytest.mark.browser
@pytest.mark.slow
def test_check_page_changes_in_a_row(server):
    from playwright.sync_api import sync_playwright

    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        page = browser.new_page(viewport={"width": 1400, "height": 2600})
        page.goto(f"{server}/check")
        _wait_for(page, r"Meets ε = 3")
        _wait_for(page, re.escape(_upper(**MNIST)))

        # 1. noise multiplier 1.1 -> 0.7: ε grows past 3
        _set(page, "noise multiplier σ/C", "0.7")
        _wait_for(page, r"Does not meet ε = 3")
        _wait_for(page, re.escape(_upper(**{**MNIST, "noise_multiplier": 0.7})))
        assert _box(page, "noise multiplier σ/C").input_value() == "0.7"
        assert "verify_nm=0.7" in page.url

        # 2. target 3 -> 10: met again
        _set(page, "target ε (0 = none)", "10")
        _wait_for(page, r"Meets ε = 10")
        assert "verify_target=10.0" in page.url
        assert _box(page, "target ε (0 = none)").input_value() == "10"

        # 3. shuffled batches: the Poisson number is not a guarantee; the lower bound is shown
        choose(page, "w_verify_sampling", rc_label := "shuffled batches (a fresh random order each epoch, cut into "
                                                   "batches — most data loaders)", typed="shuffled")
        _wait_for(page, r"not a proven guarantee for this loader")
        assert chosen(page, "w_verify_sampling") == rc_label
        assert "verify_sampling=shuffle" in page.url
        lb = rc.check(search=False, sampling="shuffle", target_eps=10.0, **{**MNIST, "noise_multiplier": 0.7})
        _wait_for(page, re.escape(f"{lb['eps_lower_shuffle']:.4g}"))

        # 4. n typed as 6e4 -> 1.2e5: fewer epochs' worth of privacy loss per example... the numbers follow
        _set(page, "n (training examples)", "1.2e5")
        assert _box(page, "n (training examples)").input_value() == "1.2e5"
        lb2 = rc.check(search=False, sampling="shuffle", target_eps=10.0,
                       **{**MNIST, "noise_multiplier": 0.7, "n": 120000})
        _wait_for(page, re.escape(f"{lb2['eps_lower_shuffle']:.4g}"))
        assert query_of(page)["verify_n"] == "120000"

        # 5. a bad value: one error and no numbers; then fixed (typed with a thousands separator)
        _set(page, "n (training examples)", "12,0000")
        _wait_for(page, r"Fix the input")
        assert page.locator("[data-testid='stMetric']").count() == 0
        _set(page, "n (training examples)", "60,000")
        _wait_for(page, r"not a proven guarantee for this loader")
        assert "verify_n" not in query_of(page)  # back to the default: not in the link
        _wait_for(page, re.escape(f"{lb['eps_lower_shuffle']:.4g}"))

        # the link restores the view in a fresh tab
        url = page.url
        fresh = browser.new_page(viewport={"width": 1400, "height": 2600})
        fresh.goto(url)
        _wait_for(fresh, r"not a proven guarantee for this loader")
        _wait_for(fresh, re.escape(f"{lb['eps_lower_shuffle']:.4g}"))
        fresh.wait_for_function("() => { const e = document.querySelector('.st-key-w_verify_nm input[type=text]');"
                                " return e && e.value === '0.7'; }", timeout=30000)
        browser.close()
