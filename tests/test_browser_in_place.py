"""Calibrate and Bounds keep their elements in place from run to run: a change that adds or removes notes (choosing a
theorem's schedule) or theorems updates the metrics and lines already on screen instead of rebuilding them
(pages/calibrate.py, pages/bounds.py: blocks whose length varies sit in their own containers).  (A Plotly chart whose
data changed is always drawn anew by Streamlit; the charts are checked for their new data.)

Several changes in a row on each page; after each one: the widget, the URL and the numbers show the new value, and
the elements that were on screen before are the same browser elements.
"""

import os
from pathlib import Path

import pytest

pytestmark = pytest.mark.browser  # a real browser: `make test` runs it, `make check` leaves it out

from conftest import CHROMIUM, add_choice, choose, chosen, new_page, query_of, settle, wait_query  # noqa: E402

if not Path(CHROMIUM).exists() and not os.environ.get("CI"):
    pytest.skip("Debian's Chromium is not installed (/usr/bin/chromium) and CI is not set", allow_module_level=True)

N = 2468
MANUAL = "manual (sidebar)"
SCHEDULES = {"wang-lownoise-thm4b": "Wang, Lei, Ying & Zhou, Theorem 4 (b)",
             "wang-lownoise-thm3a": "Wang, Lei, Ying & Zhou, Theorem 3 (a)"}

# the chart whose title has ``t``: its legend names and its first line's y values
CHART = """t => { const g = Array.from(document.querySelectorAll('.js-plotly-plot'))
  .find(e => e.layout && String((e.layout.title || {}).text || '').includes(t));
  return g ? {y: g.data[0].y, names: g.data.map(d => d.name)} : null; }"""
# mark the elements now on screen that match a selector; count how many of them are still on screen
MARK = "sel => document.querySelectorAll(sel).forEach(e => { e.__dpviz_mark = 1; })"
KEPT = "sel => Array.from(document.querySelectorAll(sel)).filter(e => e.__dpviz_mark === 1).length"


def _metric(page, label: str) -> str:
    box = page.locator("[data-testid='stMetric']").filter(has_text=label).first
    return box.locator("[data-testid='stMetricValue']").inner_text().strip()


def _schedule_T(theorem_id: str, eps: float) -> int:
    """T of the theorem's schedule at the page's defaults, n = N and ``eps`` (as the page rounds it)."""
    from dpviz_ui import helpers as ui
    from dpviz.theory import catalog
    from dpviz.foundation import urlstate

    thm = catalog.get_theorem(theorem_id)
    p = ui.only_params(ui.params_from_view({**urlstate.DEFAULTS, "n": N, "eps": eps}), thm.bound)
    return max(1, int(round(catalog.bound(theorem_id, **p).T)))


def test_calibrate_schedule_and_eps_changes_update_the_page_in_place(server, module_browser):
    from dpviz_ui import helpers as ui
    from dpviz.theory import catalog

    title = "Noise level vs ε"
    # one Chromium for the module (module_browser), a page of its own
    page = new_page(module_browser, viewport={"width": 1400, "height": 1800})
    page.goto(f"{server}/calibrate?n={N}")
    page.wait_for_function(f"() => ({CHART})({title!r}) !== null", timeout=60000)
    settle(page)
    page.evaluate(MARK, "[data-testid='stMetric']")
    manual_y = page.evaluate(CHART, title)["y"]
    eps = 1.0
    steps = [("schedule", "wang-lownoise-thm4b"), ("eps", 2.5), ("schedule", "manual"),
             ("schedule", "wang-lownoise-thm3a"), ("eps", 0.75)]
    schedule = "manual"
    for kind, value in steps:
        if kind == "schedule":
            schedule = value
            label = SCHEDULES.get(value, MANUAL)
            choose(page, "w_schedule", label, typed=label.split(", ")[-1] if label != MANUAL else "manual")
        else:
            eps = value
            box = page.locator(".st-key-w_eps input")
            box.fill(str(value))
            box.press("Enter")
        T = 1000 if schedule == "manual" else _schedule_T(schedule, eps)
        sigma = ui.fmt(catalog.calibrate("dpsgd-rdp", n=N, eps=eps, delta=1 / N**2, T=T, G=1.0).sigma)
        page.wait_for_function(
            "([s, T]) => { const v = Array.from(document.querySelectorAll('[data-testid=\"stMetricValue\"]'))"
            ".map(e => e.innerText.trim()); return v.includes(s) && v.includes(T); }",
            arg=[sigma, ui.fmt(T)], timeout=60000)
        settle(page)
        # widget and URL
        assert chosen(page, "w_schedule") == SCHEDULES.get(schedule, MANUAL)
        if schedule == "manual":
            assert "schedule" not in query_of(page)
            # the schedule's T box goes (waited for: under load the run's stale elements are removed at its end)
            page.wait_for_function("() => !document.querySelector('.st-key-w_T_fixed')", timeout=60000)
        else:
            wait_query(page, "schedule", schedule)
            assert float(page.locator(".st-key-w_T_fixed input").input_value()) == T
        if eps != 1.0:
            assert query_of(page).get("eps") == str(eps)
        assert float(page.locator(".st-key-w_eps input").input_value()) == eps
        # numbers
        assert _metric(page, "σ (Gaussian noise)") == sigma
        assert _metric(page, "T") == ui.fmt(T)
        # the five metrics are the elements of the first run, updated in place
        assert page.evaluate(KEPT, "[data-testid='stMetric']") == 5, f"metrics rebuilt after {kind} = {value}"
        # the chart follows: current ε, the curve at this T
        page.wait_for_function(
            f"l => (({CHART})({title!r}) || {{names: []}}).names.includes(l)",
            arg=f"current ε = {ui.fmt(eps)}", timeout=60000)
        chart = page.evaluate(CHART, title)
        if schedule == "manual":
            assert chart["y"] == manual_y
        else:
            assert chart["y"] != manual_y
    assert page.locator("[data-testid='stException']").count() == 0
    page.close()


def test_bounds_theorems_added_and_removed_keep_the_page_in_place(server, module_browser):
    from dpviz_ui import helpers as ui
    from dpviz.theory import catalog
    from dpviz.foundation import urlstate

    labels = {t.id: f"{t.paper.short} — {t.number}" for t in catalog.theorems()}
    first = catalog.theorems()[0].id  # the page's default theorem

    def total(tid: str) -> str:
        thm = catalog.get_theorem(tid)
        p = ui.only_params(ui.params_from_view(dict(urlstate.DEFAULTS)), thm.bound, thm.explicit_bound)
        p = {k: v for k, v in p.items() if k not in ("T", "eta") or k in catalog.parameters_of(thm.bound)}
        return ui.fmt(catalog.bound(tid, **p).total)

    # one Chromium for the module (module_browser), a page of its own
    page = new_page(module_browser, viewport={"width": 1400, "height": 1800})
    page.goto(f"{server}/bounds")
    page.wait_for_selector(".js-plotly-plot", state="attached", timeout=60000)
    settle(page)
    # the first theorem's header and its bound line, and the totals header below every theorem
    page.evaluate(MARK, "h3, h2, [data-testid='stMarkdownContainer']")
    picked = [first]
    for tid, add in [("xue-pairwise-thm2", True), ("yang-pairwise-thm1", True), ("xue-pairwise-thm2", False),
                     ("wang-nonsmooth-thm9", True)]:
        if add:
            add_choice(page, "w_theorems", labels[tid])
            picked.append(tid)
        else:
            tag = page.locator(".st-key-w_theorems [data-tag]").filter(has_text=labels[tid])
            tag.locator("[role=presentation], svg").last.click()
            picked.remove(tid)
        wait_query(page, "theorems", ",".join(picked))
        settle(page)
        tags = page.locator(".st-key-w_theorems [data-tag]").all_inner_texts()
        assert len(tags) == len(picked)
        lines = page.locator("[data-testid='stMarkdownContainer']").all_inner_texts()
        bound_lines = [x for x in lines if x.startswith("Bound at the current parameters")]
        assert len(bound_lines) == len(picked)
        for t, line in zip(picked, bound_lines):
            assert line.startswith(f"Bound at the current parameters: {total(t)}"), (t, line)
        # the first theorem's header and bound line, and the totals header, are the same elements as before
        kept = page.evaluate("""() => {
            const h3 = Array.from(document.querySelectorAll('h3'));
            const h2 = Array.from(document.querySelectorAll('h2')).find(e => e.innerText.startsWith('Totals'));
            const line = Array.from(document.querySelectorAll('[data-testid="stMarkdownContainer"]'))
                .find(e => e.innerText.startsWith('Bound at the current parameters'));
            return [h3[0].__dpviz_mark === 1, line.__dpviz_mark === 1, h2.__dpviz_mark === 1]; }""")
        assert kept == [True, True, True], f"rebuilt after {'adding' if add else 'removing'} {tid}: {kept}"
    assert page.locator("[data-testid='stException']").count() == 0
    page.close()
