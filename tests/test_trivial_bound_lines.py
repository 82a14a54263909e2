"""Issue 33: vacuous bounds are shown with the trivial bound beside them on every Bounds chart (a labelled dash-dotted
horizontal line, points above it circled "vacuous here"), and the dashboard has one number formatter.

The trivial bounds are computed here by hand: for a G-Lipschitz loss on the ball ||w|| <= R the output w = 0 has
excess risk F(0) - F(w*) <= G ||w*|| <= G R; the logistic loss at data radius kappa = 1 has G = sigma(R) =
1/(1 + e^-R) (dpviz.engine.losses.Logistic: G = kappa sigma(kappa R)); uniform argument stability is at most the
diameter 2R of the ball.
"""

import json
import math

import pytest

from dpviz.foundation import figures


def _level(fig):
    return [t for t in fig.data if t.mode == "lines+text"]


def _marks(fig):
    return {t.name: t for t in fig.data if (t.name or "").endswith(": vacuous here")}


def test_line_figure_draws_the_trivial_bound_and_circles_the_points_above_it():
    x = [10.0, 100.0, 1000.0]
    fig = figures.line_figure(x, {"A": [5.0, 1.5, 0.2], "B": [0.3, 0.2, 0.1]}, title="t", x_title="n",
                              y_title="bound", levels=[{"name": "trivial bound of the excess risk: G·R = 1", "y": 1.0,
                                                        "hover": "Trivial bound G·R = 1: the excess risk of w = 0"}],
                              vacuous_above={"A": 1.0, "B": 1.0})
    (lv,) = _level(fig)
    assert list(lv.y) == [1.0, 1.0] and list(lv.x) == [10.0, 1000.0]  # across the whole x range
    assert lv.name == "trivial bound of the excess risk: G·R = 1"
    assert list(lv.text) == ["", lv.name]  # written on the chart at the right end of the line
    assert "the excess risk of w = 0" in lv.hovertemplate
    marks = _marks(fig)
    assert set(marks) == {"A: vacuous here"}  # B is below the line everywhere
    assert list(marks["A: vacuous here"].x) == [10.0, 100.0] and list(marks["A: vacuous here"].y) == [5.0, 1.5]
    assert marks["A: vacuous here"].text[0] == "vacuous here"
    assert [t.name for t in fig.data].count(figures.VACUOUS_LEGEND) == 1  # one legend entry for every series
    # the line's value is on the y axis' range (log ticks computed with it)
    ticks = fig.layout.yaxis.tickvals
    assert min(ticks) <= 1.0 <= max(ticks)


def test_line_figure_without_trivial_bound_marks_nothing():
    fig = figures.line_figure([1.0, 2.0], {"A": [5.0, 4.0]}, title="t", x_title="n", y_title="bound",
                              levels=[{"name": "bad", "y": 0.0}, {"name": "none", "y": None}],
                              vacuous_above={"A": None})
    assert not _level(fig) and not _marks(fig)
    assert figures.VACUOUS_LEGEND not in [t.name for t in fig.data]


def test_terms_figure_circles_the_sum_above_the_trivial_bound():
    # terms 0.6 + 0.6 = 1.2 > 1 at the first point, 0.3 + 0.2 = 0.5 < 1 at the second
    fig = figures.stacked_terms_figure([100.0, 1000.0], {"a": [0.6, 0.3], "b": [0.6, 0.2]}, title="t", x_title="n",
                                       levels=[{"name": "trivial", "y": 1.0}], vacuous_above=1.0)
    assert list(_level(fig)[0].y) == [1.0, 1.0]
    m = _marks(fig)["the bound: vacuous here"]
    assert list(m.x) == [100.0] and list(m.y) == pytest.approx([1.2])
    # one term: the term is the bound
    fig = figures.stacked_terms_figure([100.0, 1000.0], {"a": [3.0, 0.5]}, title="t", x_title="n",
                                       vacuous_above=2.0)
    assert list(_marks(fig)["the bound: vacuous here"].x) == [100.0]


def test_trivial_levels_by_hand():
    from dpviz_ui import bounds_view as BV

    levels, above = BV.trivial_levels({"a": "wang-lownoise-thm3a", "b": "yang-pairwise-thm1",
                                       "c": "kang-pidp-thm1", "d": "wang-lownoise-thm4a"}, {"G": 0.5, "R": 3.0})
    # excess risk: G R = 1.5 (one line for both excess-risk theorems); stability: 2R = 6; Kang et al. work on R^d
    assert above == {"a": 1.5, "b": 6.0, "d": 1.5}
    assert [(lv["name"], lv["y"]) for lv in levels] == [
        ("trivial bound of the excess risk: G·R = 1.5", 1.5),
        ("trivial bound of the uniform argument stability: 2R = 6", 6.0)]
    assert "w = 0" in levels[0]["hover"] and "vacuous" in levels[0]["hover"]
    assert BV.trivial_levels({"a": "wang-lownoise-thm3a"}, {"G": 1.0}) == ([], {})  # no R: no trivial bound


def test_one_number_formatter():
    from dpviz.foundation import rounding
    from dpviz_ui import helpers as ui, simulate_view as SV
    from dpviz_ui.helpers import text

    assert ui.fmt is text.fmt is SV.fmt is rounding.fmt
    for x, want in [(0.017024, "0.01702"), (3.5938, "3.594"), (10000, "10000"), (215437.5, "2.154·10⁵"), (215400.0, "215400"),
                    (1.4e-6, "1.4·10⁻⁶"), (1e-6, "10⁻⁶"), (-1e8, "−10⁸"), (None, "—"), (math.inf, "∞"),
                    (0, "0"), (12345678, "1.235·10⁷"), (99999.0, "99999"), (999960.0, "999960")]:
        assert SV.fmt(x) == want, (x, SV.fmt(x))


# -- the Bounds page (AppTest) ---------------------------------------------------------------------------------------

TIMEOUT = 120
APP = __import__("pathlib").Path(__file__).resolve().parent.parent / "app.py"


def _bounds(query):
    from streamlit.testing.v1 import AppTest

    at = AppTest.from_file(str(APP), default_timeout=TIMEOUT)
    for k, v in query.items():
        at.query_params[k] = v
    at.run()
    at.switch_page("pages/bounds.py").run()
    assert not at.exception
    return at


def _charts(at):
    return {json.loads(c.proto.spec)["layout"]["title"]["text"]: json.loads(c.proto.spec)["data"]
            for c in at.get("plotly_chart")}


def _check_chart(data, trivial):
    (lv,) = [t for t in data if t.get("mode") == "lines+text"]
    assert lv["y"] == pytest.approx([trivial, trivial], rel=1e-9)
    for t in data:
        if t.get("mode") != "lines+markers" or "[" not in t["name"]:
            continue
        name = t["name"].split(" (slope")[0]
        above = [(x, y) for x, y in zip(t["x"], t["y"]) if y is not None and y > trivial]
        marks = [m for m in data if m.get("name") == f"{name}: vacuous here"]
        if above:
            assert list(zip(marks[0]["x"], marks[0]["y"])) == above
        else:
            assert not marks


def test_bounds_charts_draw_the_trivial_bound_line():
    # logistic, kappa = 1, R = 2: G = 1/(1 + e^-2) = 0.880797, G R = 1.761594
    triv = 2.0 / (1.0 + math.exp(-2.0))
    at = _bounds({"loss": "logistic", "theorems": "wang-lownoise-thm3a,wang-lownoise-thm3b", "n": "1000", "R": "2",
                  "bound_kind": "explicit"})
    charts = _charts(at)
    assert {"Explicit bounds vs n", "Explicit bounds vs ε"} <= set(charts)
    for title, data in charts.items():  # the totals and both theorems' terms charts
        _check_chart(data, triv)
    # at n = 1000 Theorem 3 (a)'s explicit bound is far above G R: circled on the n chart
    assert any(t.get("name", "").endswith("Theorem 3 (a) [excess population risk, in expectation]: vacuous here")
               for t in charts["Explicit bounds vs n"])
    assert any(c.value.startswith("Dash-dotted: the trivial bound of the excess risk: G·R = 1.762") for c in at.caption)
    # R = 0.5: G = 1/(1 + e^-0.5) = 0.622459, G R = 0.311230
    at.text_input(key="w_R").input("0.5").run()
    assert not at.exception
    for data in _charts(at).values():
        _check_chart(data, 0.5 / (1.0 + math.exp(-0.5)))


def test_bounds_rates_chart_draws_the_trivial_bound_and_kang_has_none():
    at = _bounds({"loss": "logistic", "theorems": "wang-lownoise-thm3a", "n": "1000", "R": "1"})
    charts = _charts(at)
    _check_chart(charts["Rates vs n"], 1.0 / (1.0 + math.exp(-1.0)))
    # Kang, Li, Liu & Wang work on R^d under the PL condition: no ball, no trivial bound, and the page says so
    at = _bounds({"theorems": "kang-pidp-thm3", "n": "1000"})
    assert not any(t.get("mode") == "lines+text" for data in _charts(at).values() for t in data)
    assert any(c.value.startswith("No trivial bound is drawn") for c in at.caption)
