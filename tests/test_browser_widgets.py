"""Real-browser acceptance test of the dashboard's widgets (Playwright + Debian's Chromium).

On every page, each kind of widget the page has (select box, multiselect, radio, checkbox, number input) is changed
four times in a row to different values; after each change the widget, the URL and an output computed from it must
all show the new value.  This is the check that no second change of a widget is silently undone.
"""

import os
import re
from pathlib import Path

import pytest

from conftest import (ARGS, CHROMIUM, ROOT, add_choice, choose, chosen, settle as _settle,  # noqa: E402
                      wait_query as _wait_query, wait_text as _wait_text)

if not Path(CHROMIUM).exists() and not os.environ.get("CI"):
    pytest.skip("Debian's Chromium is not installed (/usr/bin/chromium) and CI is not set", allow_module_level=True)

pytestmark = pytest.mark.browser
WAIT = 60000






def _radio(page, key, text) -> None:
    page.locator(f".st-key-{key}").get_by_text(text, exact=True).click()


def _number(page, key, value) -> None:
    box = page.locator(f".st-key-{key} input")
    box.fill(str(value))
    box.press("Enter")


def _metric(page, label) -> str:
    m = page.locator("[data-testid='stMetric']").filter(has_text=label).first
    return m.locator("[data-testid='stMetricValue']").inner_text().strip()


@pytest.fixture(scope="module")
def browser_page():
    from playwright.sync_api import sync_playwright

    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        page = browser.new_page(viewport={"width": 1400, "height": 1800})
        yield page
        browser.close()


def test_calibrate_select_checkbox_number_four_times(server, browser_page):
    from dpviz_ui import helpers as ui
    from dpviz.theory import catalog

    page = browser_page
    page.goto(f"{server}/calibrate")
    page.wait_for_selector("[data-testid='stMetric']", timeout=WAIT)
    base = {"n": 1000, "d": 10, "eps": 1.0, "delta": 1e-6, "T": 1000, "eta": 0.01, "G": 1.0, "L": 1.0, "M": 1.0,
            "R": 1.0, "alpha": 0.5, "mu": 0.1, "kappa": 1.0}
    labels = {a.id: f"{a.paper.short} — {a.name} ({a.place})" for a in catalog.algorithms() if a.calibrate}
    # select box: four different algorithms in a row (the 2nd change used to snap back)
    for alg in ["dpsgd-output", "dpgd-c", "dpgd-sc", "dpsgd-rdp"]:
        choose(page, "w_algorithm", labels[alg])
        _wait_query(page, "algorithm", alg)
        _settle(page)
        assert chosen(page, "w_algorithm") == labels[alg]
        cal = catalog.calibrate(alg, **{k: v for k, v in base.items()
                                         if k in catalog.parameters_of(catalog.get_algorithm(alg).calibrate)})
        expected = ui.fmt(cal.sigma if cal.sigma is not None else cal.laplace_scale)
        assert _metric(page, "σ") == expected or _metric(page, "Laplace") == expected
    # sidebar number input: n four times
    for n in [2000, 3000, 4000, 5000]:
        _number(page, "w_n", n)
        _wait_query(page, "n", str(n))
        _settle(page)
        assert page.locator(".st-key-w_n input").input_value() == str(n)
        cal = catalog.calibrate("dpsgd-rdp", **{**{k: base[k] for k in ("eps", "T", "G")}, "n": n,
                                               "delta": 1.0 / n**2})
        assert _metric(page, "σ (Gaussian noise)") == ui.fmt(cal.sigma)
    # checkbox: "compare every algorithm" on, off, on, off -- the σ-vs-ε plot's legend follows
    for k, on in enumerate([True, False, True, False]):
        page.locator(".st-key-w_compare_all label").click()
        if on:
            _wait_query(page, "compare_all", "True")
        else:
            page.wait_for_function("() => !new URLSearchParams(window.location.search).has('compare_all')",
                                   timeout=WAIT)
        _settle(page)
        assert page.locator(".st-key-w_compare_all input").is_checked() == on
        # the σ-vs-ε chart: one curve, or one per algorithm of the setting (plus the "current ε" marker)
        page.wait_for_function(
            "on => { const els = document.querySelectorAll('.st-key-chart_sigma_vs_eps .legendtext');"
            " const n = Array.from(els).filter(e => !e.textContent.includes('current')).length;"
            " return on ? n > 1 : n === 1; }", arg=on, timeout=WAIT)
    # invalid input: one error naming the input, no numbers; then a valid value brings the numbers back
    _number(page, "w_eps", 0)
    page.wait_for_selector("text=Fix the input", timeout=WAIT)
    _settle(page)
    assert page.locator("[data-testid='stMetric']").count() == 0
    assert page.locator("[data-testid='stException']").count() == 0
    _number(page, "w_eps", 2)
    _wait_query(page, "eps", "2.0")
    page.wait_for_selector("[data-testid='stMetric']", timeout=WAIT)
    _settle(page)
    assert page.locator("[data-testid='stMetric']").count() == 5


def test_calibrate_schedule_is_shown_in_the_sidebar(server, browser_page):
    page = browser_page
    page.goto(f"{server}/calibrate?algorithm=dpsgd-rdp")
    page.wait_for_selector("[data-testid='stMetric']", timeout=WAIT)
    for option, tid in [("Wang, Lei, Ying & Zhou, Theorem 4 (b)", "wang-lownoise-thm4b"),
                        ("Wang, Lei, Ying & Zhou, Theorem 3 (a)", "wang-lownoise-thm3a"),
                        ("Wang, Lei, Ying & Zhou, Theorem 4 (a)", "wang-lownoise-thm4a"),
                        ("manual (sidebar)", None)]:
        choose(page, "w_schedule", option)
        if tid:
            _wait_query(page, "schedule", tid)
        else:
            page.wait_for_function("() => !new URLSearchParams(window.location.search).has('schedule')",
                                   timeout=WAIT)
        _settle(page)
        T_metric = _metric(page, "T")
        if tid:  # the sidebar shows, read-only, the T the results use
            shown = page.locator(".st-key-w_T_fixed input")
            assert shown.is_disabled()
            from dpviz_ui import helpers as ui
            assert ui.fmt(int(float(shown.input_value()))) == T_metric or ui.fmt(float(shown.input_value())) \
                == T_metric
        else:
            assert page.locator(".st-key-w_T input").input_value() == "1000" and T_metric == "1000"


def test_bounds_multiselect_and_radios_four_times(server, browser_page):
    from dpviz.theory import catalog

    page = browser_page
    page.goto(f"{server}/bounds")
    page.wait_for_selector(".js-plotly-plot", state="attached", timeout=WAIT)
    labels = {t.id: f"{t.paper.short} — {t.number}" for t in catalog.theorems()}
    picked = [catalog.theorems()[0].id]
    # multiselect: add four theorems one after the other (the 2nd addition used to disappear)
    for tid in ["xue-pairwise-thm2", "yang-pairwise-thm1", "wang-nonsmooth-thm9", "kang-pidp-thm1"]:
        add_choice(page, "w_theorems", labels[tid])
        picked.append(tid)
        _wait_query(page, "theorems", ",".join(picked))
        _settle(page)
        tags = page.locator(".st-key-w_theorems [data-tag]").all_inner_texts()
        assert len(tags) == len(picked)
        headers = page.locator("h3").all_inner_texts()
        for t in picked:
            assert any(labels[t] in h for h in headers), (labels[t], headers)
    # radio: sweep over ε, n, ε, n -- the terms plot's title follows
    for value, text in [("eps", "privacy budget ε (smaller = more private)"), ("n", "sample size n"),
                        ("eps", "privacy budget ε (smaller = more private)"), ("n", "sample size n")]:
        _radio(page, "w_sweep", text)
        if value == "eps":
            _wait_query(page, "sweep", "eps")
        else:
            page.wait_for_function("() => !new URLSearchParams(window.location.search).has('sweep')", timeout=WAIT)
        _settle(page)
        assert page.locator(".st-key-w_sweep input[type=radio]:checked").count() == 1
        titles = page.locator(".js-plotly-plot .gtitle").evaluate_all("els => els.map(e => e.textContent)")
        assert any(t.endswith("terms vs " + ("ε" if value == "eps" else "n") + " (rate)") or
                   ("terms vs " + ("ε" if value == "eps" else "n")) in t for t in titles), titles
    # radio: rates / explicit constants, four times
    for value in ["explicit", "rate", "explicit", "rate"]:
        _radio(page, "w_bound_kind", "explicit constants (only where the paper gives them)" if value == "explicit"
               else "rates (the paper's unspecified constants set to c)")
        if value == "explicit":
            _wait_query(page, "bound_kind", "explicit")
        else:
            page.wait_for_function("() => !new URLSearchParams(window.location.search).has('bound_kind')",
                                   timeout=WAIT)
        _wait_text(page, "h2", "explicit constants" if value == "explicit" else "rates (")
        _settle(page)
        heads = page.locator("h2").all_inner_texts()
        assert any(("explicit constants" if value == "explicit" else "rates") in h for h in heads), heads
    assert page.locator("[data-testid='stException']").count() == 0


def test_bounds_explicit_fstar_number_four_times(server, browser_page, tmp_path):
    # Wang, Lei, Ying & Zhou Theorem 4 (a) with explicit constants: the F(w*) input (shown only when an explicit bound
    # takes F(w*)) changed four times; widget, URL and the explicit total follow
    from dpviz_ui import helpers as ui
    from dpviz.theory import catalog

    page = browser_page
    page.goto(f"{server}/bounds?theorems=wang-lownoise-thm4a&bound_kind=explicit")
    page.wait_for_selector(".st-key-w_Fstar input", timeout=WAIT)
    base = dict(n=1000, d=10, eps=1.0, delta=1e-6, G=1.0, L=1.0, M=1.0, R=1.0, alpha=0.5, c=1.0)
    for value in [0.2, 0.5, 0.0, 0.3]:
        _number(page, "w_Fstar", value)
        _wait_query(page, "Fstar", str(float(value)))
        expected = ui.fmt(catalog.bound("wang-lownoise-thm4a", explicit=True, Fstar=value, **base).total)
        _wait_text(page, "p", f"With the paper's explicit constants: {expected}")
        _settle(page)
        assert float(page.locator(".st-key-w_Fstar input").input_value()) == value
    assert page.locator("[data-testid='stException']").count() == 0
    page.screenshot(path=str(tmp_path / "bounds_explicit_holder.png"), full_page=True)


def test_simulate_widgets_four_times(server, browser_page):
    page = browser_page
    page.goto(f"{server}/simulate?T=30&n=200&reps=5")
    page.wait_for_selector(".js-plotly-plot", state="attached", timeout=60000)  # a cheap link runs at once
    _settle(page)
    # main-area number input: repetitions four times (the 2nd change used to revert); the estimate follows
    estimates = []
    for reps in [30, 40, 50, 60]:
        _number(page, "w_reps", reps)
        _wait_query(page, "reps", str(reps))
        _settle(page)
        assert page.locator(".st-key-w_reps input").input_value() == str(reps)
        est = page.get_by_text(re.compile(r"Estimated run time")).first.inner_text()
        estimates.append(float(re.search(r"([0-9.]+) s", est).group(1)))
    assert estimates == sorted(estimates)
    # checkbox: the papers' noise rule on / off four times
    for on in [True, False, True, False]:
        page.locator(".st-key-w_run_infeasible label").click()
        if on:
            _wait_query(page, "run_infeasible", "True")
        else:
            page.wait_for_function("() => !new URLSearchParams(window.location.search).has('run_infeasible')",
                                   timeout=WAIT)
        _settle(page)
        assert page.locator(".st-key-w_run_infeasible input").is_checked() == on
    # select: four data sets in a row; the loss choices follow the data set's task
    from dpviz.engine import data as D

    for name in ["wang-least-squares", "two-class", "wang-least-squares", "wang-logistic"]:  # default: logistic
        choose(page, "w_dataset", D.DATASETS[name])
        if name != "wang-logistic":
            _wait_query(page, "dataset", name)
        else:
            page.wait_for_function("() => !new URLSearchParams(window.location.search).has('dataset')",
                                   timeout=WAIT)
        _settle(page)
        assert chosen(page, "w_dataset") == D.DATASETS[name]
        loss = chosen(page, "w_sim_loss")
        assert ("least squares" in loss.lower()) == (name == "wang-least-squares"), loss
    # multiselect: four different algorithm sets; run; the plot's legend shows exactly those algorithms
    from dpviz.theory import catalog

    names = {a: catalog.get_algorithm(a).name for a in ("dpsgd-rdp", "sgd", "dpsgd-output", "dpsgd-pl")}
    _number(page, "w_reps", 5)
    _wait_query(page, "reps", "5")
    _settle(page)
    for sel in [["sgd"], ["sgd", "dpsgd-output"], ["dpsgd-output"], ["dpsgd-output", "dpsgd-rdp"]]:
        box = page.locator(".st-key-w_sim_algs")
        box.locator("button[aria-label='Clear all']").click()
        page.wait_for_selector("text=Choose at least one algorithm", timeout=WAIT)
        for a in sel:
            box.locator("input[role=combobox]").click()
            page.keyboard.type(names[a])
            page.get_by_role("option", name=re.compile("^" + re.escape(names[a]) + " — ")).click()
            page.keyboard.press("Escape")
            _wait_text(page, ".st-key-w_sim_algs [data-tag]", names[a])
            _settle(page)
        _wait_query(page, "sim_algs", ",".join(sel))
        _settle(page)
        assert box.locator("[data-tag]").count() == len(sel)
        page.get_by_role("button", name="Run simulation").click()
        page.wait_for_selector(".js-plotly-plot", timeout=60000)
        _settle(page)
        legend = " ".join(page.locator(".js-plotly-plot").first.locator(".legendtext").evaluate_all("els => els.map(e => e.textContent)"))
        for a in sel:  # the legend has short names (up to the first parenthesis); the full name is on hover
            assert names[a].split(" (")[0] in legend, (names[a], legend)
    # radio: plotted quantity four times; the plot's y-axis follows
    for value, text, axis in [("metric", "test metric (misclassification rate, MSE or AUC)", "test"),
                              ("pop_risk", "population risk", "population risk"),
                              ("metric", "test metric (misclassification rate, MSE or AUC)", "test"),
                              ("excess_risk", "excess risk", "excess risk")]:
        _radio(page, "w_plot_value", text)
        if value != "excess_risk":
            _wait_query(page, "plot_value", value)
        else:
            page.wait_for_function("() => !new URLSearchParams(window.location.search).has('plot_value')",
                                   timeout=WAIT)
        _settle(page)
        page.wait_for_function(  # the chart is replaced when the run's elements arrive: wait for the new axis
            "a => { const t = document.querySelector('.js-plotly-plot .ytitle');"
            " return !!t && t.textContent.startsWith(a); }", arg=axis, timeout=WAIT)
        ytitle = page.locator(".js-plotly-plot").first.locator(".ytitle").text_content()
        assert ytitle.startswith(axis), ytitle
    assert page.locator("[data-testid='stException']").count() == 0
    (ROOT / "test-artifacts").mkdir(exist_ok=True)
    page.screenshot(path=str(ROOT / "test-artifacts" / "simulate_widgets.png"), full_page=True)
