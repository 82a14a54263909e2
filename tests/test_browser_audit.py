"""Real browser on the Audit page: four widget changes in a row, each checked in the widget, the URL and the output."""

import os
import re
from pathlib import Path

import pytest

pytestmark = pytest.mark.browser  # a real browser: `make test` runs it, `make check` leaves it out

from conftest import ARGS, CHROMIUM, ROOT  # the server fixture lives in conftest.py

if not Path(CHROMIUM).exists() and not os.environ.get("CI"):
    pytest.skip("Debian's Chromium is not installed (/usr/bin/chromium) and CI is not set", allow_module_level=True)


def _wait_output(page, text, timeout=60000):
    page.wait_for_function(
        "t => document.body.innerText.includes(t) && !document.body.innerText.includes('running…')", arg=text,
        timeout=timeout)


def _label(alg: str) -> str:
    """The Algorithm box shows an algorithm by name and paper (the id stays in the link)."""
    from dpviz.theory import catalog

    a = catalog.get_algorithm(alg)
    return f"{a.name} — {a.paper.short}"


def _number(page, label, value):
    box = page.get_by_label(label, exact=True).and_(page.locator("input"))
    box.fill(str(value))
    box.press("Enter")
    return box


@pytest.mark.slow
def test_audit_page_four_changes(server):
    from playwright.sync_api import sync_playwright

    out = ROOT / "test-artifacts"
    out.mkdir(exist_ok=True)
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        page = browser.new_page(viewport={"width": 1400, "height": 2200})
        page.goto(f"{server}/audit?aud_trials=1000&aud_n=50&aud_noise=custom&aud_sigma=0.5")
        _wait_output(page, "1000 trials")
        assert page.locator("[data-testid='stException']").count() == 0
        # a first visit through a link still gets the app's navigation (not the legacy file-name pages)
        nav = page.locator("[data-testid='stSidebarNav']").inner_text().split()
        assert "Audit" in nav and "app" not in nav, nav
        # 1: trials
        box = _number(page, "trials", 1200)
        _wait_output(page, "1200 trials")
        assert box.input_value() == "1200"
        page.wait_for_url(re.compile(r"aud_trials=1200"))
        assert re.search(r"[?&]n=50(&|$)", page.url)  # an old link's aud_n is the shared n now
        # 2: n
        box = _number(page, "n", 40)
        page.wait_for_url(re.compile(r"[?&]n=40(&|$)"))
        _wait_output(page, "δ = 0.000625")  # delta = 1/n^2 = 1/1600
        assert box.input_value() == "40"
        assert "1200 trials" in page.locator("body").inner_text()
        # 3: the algorithm: non-private SGD certifies a large epsilon, nothing is claimed
        page.get_by_label("Algorithm").click()
        page.get_by_role("option", name=_label("sgd"), exact=True).click()
        page.wait_for_url(re.compile(r"aud_alg=sgd"))
        _wait_output(page, "σ = 0,")  # SGD adds no noise
        assert "ε lower bound" in page.locator("body").inner_text()
        assert page.locator("input[aria-label='Algorithm']").input_value() == _label("sgd")
        # 4: switch to stability with an adversarial neighbour
        page.get_by_text("Stability", exact=True).click()
        page.wait_for_url(re.compile(r"aud_mode=stability"))
        _wait_output(page, "bound / measured")
        page.get_by_text("adversarial", exact=True).click()
        page.wait_for_url(re.compile(r"aud_nb=adversarial"))
        _wait_output(page, "(adversarial)")
        assert page.locator("[data-testid='stException']").count() == 0
        checked = page.locator("[data-testid='stRadio'] input:checked").evaluate_all(
            "els => els.map(e => e.closest('label').innerText.trim())")
        assert "Stability" in checked and "adversarial" in checked, checked
        text = page.locator("body").inner_text()
        assert "gradient sensitivity 2G" not in text and "bound / measured" in text
        page.screenshot(path=str(out / "audit.png"), full_page=True)
        browser.close()


@pytest.mark.slow
def test_audit_page_stability_sweep_changes(server):
    from playwright.sync_api import sync_playwright

    out = ROOT / "test-artifacts"
    out.mkdir(exist_ok=True)
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        page = browser.new_page(viewport={"width": 1400, "height": 2400})
        page.goto(f"{server}/audit?aud_mode=stability&aud_n=40&aud_T=30&aud_reps=30")
        _wait_output(page, "bound / measured")

        def choose(label, url_part, text):
            page.get_by_text(label, exact=True).click()
            if url_part:
                page.wait_for_url(re.compile(url_part))
            _wait_output(page, text)
            assert page.locator("[data-testid='stException']").count() == 0
            checked = page.locator("[data-testid='stRadio'] input:checked").evaluate_all(
                "els => els.map(e => e.closest('label').innerText.trim())")
            assert label in checked, checked

        # 1: over eta (default grid of four values)
        choose("over η", r"aud_over=eta", "Sweep over η")
        assert "0.02, 0.05, 0.1, 0.2" in page.locator("body").inner_text()
        # 2: type another grid of eta
        box = page.get_by_label("values of η", exact=True)
        box.fill("0.05, 0.1")
        box.press("Enter")
        page.wait_for_url(re.compile(r"aud_veta=0.05%2C0.1|aud_veta=0.05,0.1"))
        _wait_output(page, "Sweep over η: 0.05, 0.1")
        assert box.input_value() == "0.05, 0.1"
        # 3: over alpha
        choose("over α (Hölder exponent)", r"aud_over=alpha", "Sweep over α")
        assert "q-regression" in page.locator("body").inner_text()
        # 4: over n, then back along t
        choose("over n", r"aud_over=n", "Sweep over n: 50, 100, 200, 400")
        _wait_output(page, "at every value of n")
        page.wait_for_function("() => [...document.querySelectorAll('.gtitle')].some(e => "
                               "e.textContent.includes('bound over n'))", timeout=60000)
        assert "at every value of alpha" not in page.locator("body").inner_text()
        page.screenshot(path=str(out / "audit_sweep.png"), full_page=True)
        page.get_by_text("along t", exact=True).click()
        page.wait_for_function("() => !location.search.includes('aud_over')")
        _wait_output(page, "measured 95% quantile")  # a metric of the view along t only
        page.wait_for_function("() => !document.body.innerText.includes('Sweep over')", timeout=60000)
        assert page.get_by_text("along t", exact=True).locator("xpath=ancestor::label//input").is_checked()
        browser.close()


@pytest.mark.slow
def test_audit_page_stability_of_xue_algorithms(server):
    from playwright.sync_api import sync_playwright

    out = ROOT / "test-artifacts"
    out.mkdir(exist_ok=True)
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        page = browser.new_page(viewport={"width": 1400, "height": 2400})
        page.goto(f"{server}/audit?aud_mode=stability&aud_n=40&aud_T=30&aud_reps=20")
        _wait_output(page, "bound / measured")
        for alg, text in (("dpgd-sc", "Lemma 1, eq. (3)"), ("dpgdc", "Lemma 7, eq. (7)"),
                          ("dp-epoch-gd", "the replaced example lies in block D_"),
                          ("dpgd-c", "full pairwise gradient sensitivity 4G/n")):
            page.get_by_label("Algorithm").click()
            page.get_by_role("option", name=_label(alg), exact=True).click()
            page.wait_for_url(re.compile(rf"aud_alg={alg}(&|$)"))
            _wait_output(page, text)
            assert page.locator("input[aria-label='Algorithm']").input_value() == _label(alg)
            assert page.locator("[data-testid='stException']").count() == 0
            assert "above the bound: 0.0%" in page.locator("body").inner_text()
            if alg == "dpgd-sc":
                page.wait_for_function("() => [...document.querySelectorAll('.legendtext')].some(e => "
                                       "e.textContent.includes('Lemma 1, eq. (4)'))", timeout=60000)
                page.screenshot(path=str(out / "audit_xue.png"), full_page=True)
        browser.close()


@pytest.mark.slow
def test_audit_page_matrix_parameter_pidp_and_accountants(server):
    from playwright.sync_api import sync_playwright

    out = ROOT / "test-artifacts"
    out.mkdir(exist_ok=True)
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        page = browser.new_page(viewport={"width": 1400, "height": 2200})
        page.goto(f"{server}/audit?aud_n=20&aud_T=10&aud_trials=400")
        _wait_output(page, "400 trials")

        def algorithm(alg, text):
            page.get_by_label("Algorithm").click()
            page.get_by_role("option", name=_label(alg), exact=True).click()
            page.wait_for_url(re.compile(rf"aud_alg={alg}(&|$)"))
            _wait_output(page, text)
            assert page.locator("input[aria-label='Algorithm']").input_value() == _label(alg)

        def checked():
            return page.locator("[data-testid='stRadio'] input:checked").evaluate_all(
                "els => els.map(e => e.closest('label').innerText.trim())")

        # 1: DPGDC2 (full-batch, pairwise): the exact matched accountant
        algorithm("dpgd-c", "Accountant: matched, exact: analytic Gaussian, 10 full-batch Gaussian steps")
        assert "vector w (AUC maximisation)" in checked()
        # 2: metric learning: a matrix parameter, statistic u^T W u
        page.get_by_text("matrix W (metric learning)", exact=True).click()
        page.wait_for_url(re.compile(r"aud_param=matrix"))
        _wait_output(page, "the statistics along u are <W, u u^T> = u^T W u")
        assert "matrix W (metric learning)" in checked()
        # the chart names the chosen statistic: u^T W u, or the released metric on a learned direction (issue 21)
        page.wait_for_function("() => [...document.querySelectorAll('.gtitle')].some(e => "
                               "e.textContent.includes('uᵀWu') || e.textContent.includes('learned direction'))",
                               timeout=60000)
        page.screenshot(path=str(out / "audit_matrix.png"), full_page=True)
        # 3: back to a vector parameter
        page.get_by_text("vector w (AUC maximisation)", exact=True).click()
        page.wait_for_function("() => !location.search.includes('aud_param')")
        page.wait_for_function("() => !document.body.innerText.includes('u^T W u')", timeout=60000)
        assert "vector w (AUC maximisation)" in checked()
        # 4: PIDP-SGD: the accountant adds the influence-function contribution's epsilon; no parameter choice
        algorithm("pidp-sgd", "influence-function contribution")
        page.wait_for_function("() => !document.body.innerText.includes('matrix W (metric learning)')",
                               timeout=60000)  # pointwise: no parameter choice (stale elements go at the run's end)
        # 5: non-private SGD: no accountant, and the page says why
        algorithm("sgd", "non-private (no noise): no accountant applies")
        assert page.locator("[data-testid='stException']").count() == 0
        browser.close()
