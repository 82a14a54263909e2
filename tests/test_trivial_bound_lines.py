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

from conftest import open_page
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
    assert list(marks["A: vacuous here"].text) == ["", "vacuous here"]  # written once, at the last such point
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
    return open_page("pages/bounds.py", query, TIMEOUT)


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
    cap = [c.value for c in at.caption if c.value.startswith("Dash-dotted: the trivial bound of the excess risk: G·R = "
                                                              "1.762")]
    assert cap and "the output w = 0 has excess risk at most G·R" in cap[0] and "2R" not in cap[0]
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


# -- Simulate: the explicit bounds that need F(w*) -------------------------------------------------------------------

def _fake_data(y, y_test=None, d=3):
    import numpy as np
    from types import SimpleNamespace

    return SimpleNamespace(y=np.asarray(y, float), y_test=np.asarray(y if y_test is None else y_test, float), d=d)


def test_fstar_upper_by_hand():
    from dpviz.engine import losses
    from dpviz_ui import simulate_view as SV

    pm = _fake_data([-1, 1, 1])
    # F(w*) <= F(0) <= max over the labels of f(0; z): log(1 + e^0) = ln 2 for the logistic loss, max(0, 1 - 0) = 1
    # for the hinge, (0 - y)^2 / 2 <= 1/2 for least squares at |y| <= 1, |0 - y| <= 1 for the absolute loss
    assert SV.fstar_upper(losses.get_loss("logistic"), pm)[0] == pytest.approx(math.log(2), rel=1e-12)
    assert SV.fstar_upper(losses.get_loss("hinge"), pm)[0] == pytest.approx(1.0)
    assert SV.fstar_upper(losses.get_loss("logistic", l2=0.1), pm)[0] == pytest.approx(math.log(2))  # λ||0||² = 0
    reg = _fake_data([-0.3, 0.2, 0.9])
    assert SV.fstar_upper(losses.get_loss("least-squares"), reg)[0] == pytest.approx(0.5)
    assert SV.fstar_upper(losses.get_loss("absolute"), reg)[0] == pytest.approx(1.0)
    # pairwise: the AUC square loss (1 - <w, x - x'>)^2 on a positive-negative pair is 1 at w = 0 (0 on the others);
    # metric learning: log(1 + e^{-tau}) is largest for a pair of different classes, tau = -1: log(1 + e) = 1.313262
    assert SV.fstar_upper(losses.get_loss("auc-square"), pm)[0] == pytest.approx(1.0)
    assert SV.fstar_upper(losses.get_loss("auc-logistic"), pm)[0] == pytest.approx(math.log(2))
    assert SV.fstar_upper(losses.get_loss("metric-logistic"), _fake_data([0, 1, 2]))[0] == pytest.approx(
        math.log(1 + math.e), rel=1e-12)
    text = SV.fstar_upper(losses.get_loss("logistic"), pm)[1]
    assert text.startswith("F(w*) ≤ F(0) ≤ 0.6931") and "w = 0 lies in W" in text
    # labels outside the loss's range: no bound (never a number from an assumption the data break)
    assert SV.fstar_upper(losses.get_loss("least-squares"), _fake_data([0.5, 2.0])) is None
    assert SV.fstar_upper(losses.get_loss("logistic"), _fake_data([0, 1])) is None


@pytest.mark.parametrize("tid, extra", [
    ("wang-lownoise-thm3a", {}), ("wang-lownoise-thm6a", {}),
    ("wang-lownoise-thm4a", {"alpha": 0.5}), ("wang-lownoise-thm4a", {"alpha": 0.0, "M": 1.0}),
    ("wang-lownoise-thm7a", {"alpha": 0.3}),
])
def test_explicit_bounds_grow_with_fstar(tid, extra):
    # why an upper bound on F(w*) gives an upper bound on the paper's bound: the explicit bound is non-decreasing in
    # F(w*) (Wang, Lei, Ying & Zhou, proofs of Theorems 3 (a), 4 (a), 6 (a), 7 (a): F(w*) enters with non-negative
    # coefficients at every fixed kappa, and the bound holds for every kappa)
    from dpviz.theory import catalog

    checked = 0
    for n, eps, noise in ((1000, 1.0, {}), (20000, 4.0, {}), (5000, 8.0, {}), (2000, 2.0, {"sigma": 1.0}),
                          (100000, 1.0, {"sigma": 30.0})):
        p = dict(n=n, d=10, eps=eps, delta=1e-5, L=0.25, R=1.0, G=0.7311, **extra, **noise)
        try:
            catalog.bound(tid, explicit=True, Fstar=0.0, **p)
        except ValueError:  # the noise cannot be calibrated at this (n, eps): no bound to compare
            continue
        vals = [catalog.bound(tid, explicit=True, Fstar=f, **p).total for f in (0.0, 0.01, 0.1, math.log(2), 1.0, 5.0)]
        assert all(b >= a * (1 - 1e-9) for a, b in zip(vals, vals[1:])), (n, eps, vals)
        checked += 1
    assert checked >= 2


class _FakeRun:
    """A run whose bounds frame records the F(w*) it was asked for: explicit = 1 + F(w*) at each grid point."""

    def __init__(self):
        self.calls = []

    def bounds(self, theorem_id, **extra):
        import pandas as pd

        self.calls.append(extra)
        fs = extra.get("Fstar")
        e = float("nan") if fs is None else 1.0 + fs
        return pd.DataFrame({"grid": [1.0, 2.0], "bound": [0.5, 0.25], "explicit": [e, e], "n_exp": [0, 0],
                             "eps_exp": [-1, -1], "error": ["", ""]})


def test_explicit_with_fstar_draws_at_the_upper_bound_or_says_why_not():
    from dpviz_ui import simulate_view as SV

    run = _FakeRun()
    b0 = run.bounds("wang-lownoise-thm3a", c=1.0)
    b, note = SV.explicit_with_fstar(run, {"c": 1.0, "mu": 0.1}, "wang-lownoise-thm3a", b0, (0.7, "F(w*) ≤ 0.7"))
    assert list(b["explicit"]) == [1.7, 1.7] and list(b["explicit_low"]) == [1.0, 1.0]  # at 0.7 and at 0
    assert {"c": 1.0, "mu": 0.1, "Fstar": 0.7} in run.calls and {"c": 1.0, "mu": 0.1, "Fstar": 0.0} in run.calls
    assert "Theorem 3 (a)" in note and "F(w*) ≤ 0.7" in note and "upper bound" in note
    # no bound on F(w*): not drawn, and the page says which theorem and why
    b, note = SV.explicit_with_fstar(run, {}, "wang-lownoise-thm3a", b0, None)
    assert b is b0 and note.startswith("Wang, Lei, Ying & Zhou, Theorem 3 (a)'s bound with the paper's explicit "
                                       "constants is not drawn: it needs F(w*)")
    # a theorem whose explicit bound does not need F(w*) (Theorem 3 (b): F(w*) = 0): nothing to say
    assert SV.explicit_with_fstar(run, {}, "wang-lownoise-thm3b", b0, None) == (b0, None)


def test_vacuous_marks_use_the_bound_at_fstar_zero():
    import pandas as pd

    from dpviz_ui import simulate_view as SV

    s = pd.DataFrame({"grid": [0.5, 1.0, 2.0], "mean": [0.2, 0.1, 0.05], "ci_low": [0.1] * 3, "ci_high": [0.3] * 3})
    b = pd.DataFrame({"grid": [0.5, 1.0, 2.0], "bound": [0.8, 0.4, 0.2], "explicit": [90.0, 0.15, 0.05],
                      "explicit_low": [80.0, 0.1, 0.01], "n_exp": [0] * 3, "eps_exp": [-1] * 3, "error": [""] * 3})
    curves, facts = SV.theory_curves("DP-SGD", "DP-SGD", [0.5, 1.0, 2.0], s, b, "Thm", 0, trivial=0.12)
    # 0.15 > 0.12 drawn, but at F(w*) = 0 the bound is 0.1 < 0.12: not vacuous whatever F(w*) is
    assert facts["vacuous"] == [0.5] and facts["explicit_low"][0.5] == 80.0
    explicit = [c for c in curves if c["kind"] == "explicit"][0]
    assert explicit["y"] == [90.0, 0.15, 0.05] and "even at F(w*) = 0" in explicit["detail"]


def test_simulate_draws_the_explicit_bound_with_fstar_and_says_so():
    from streamlit.testing.v1 import AppTest

    at = AppTest.from_file(str(APP), default_timeout=300)
    for k, v in {"sim_sweep": "n", "n_grid": "1000,2000,4000", "reps": "2", "sim_algs": "dpsgd-rdp", "eps": "4",
                 "n": "1000"}.items():
        at.query_params[k] = v
    at.run()
    at.switch_page("pages/simulate.py").run()
    for b in at.button:
        if b.label == "Run simulation":
            b.click().run()
            break
    assert not at.exception
    data = json.loads(at.get("plotly_chart")[0].proto.spec)["data"]
    dotted = [t for t in data if "paper's bound" in (t.get("name") or "") and t.get("mode") == "lines"]
    assert dotted and dotted[0]["x"] == [1000, 2000, 4000] and all(y > 0 for y in dotted[0]["y"])
    # the logistic loss of w = 0 is ln 2 on every example: F(w*) <= ln 2 = 0.6931
    note = [c.value for c in at.caption if "needs F(w" in c.value]
    assert note and "Theorem 3 (a)" in note[0] and "0.6931" in note[0]
