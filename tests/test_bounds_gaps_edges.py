"""Issue 33 on the Bounds page: explicit-bound points that cannot be computed are drawn as marked gaps with their
reason (grey crosses, "no bound here (hover: why)", and a line under the chart), as Simulate draws runs that did not
run; and the trivial-bound line (G·R) with its "vacuous here" marks at the edges of the grids (ε ≤ 0.1, ε ≥ 10,
n ≥ 10⁶), against values computed here by hand.

By hand: Wang, Lei, Ying & Zhou (dpviz key wang-lownoise), Theorem 3 (a), rate form c(1/√n + √(d ln(1/δ))/(nε))
with c = 1, d = 10, δ = 1/n²; the logistic loss at data radius κ = 1 on the ball ||w|| ≤ R = 1 has G = σ(R) =
1/(1 + e^-1) = 0.7310586, so the trivial bound G·R = 0.7310586 (the excess risk of w = 0).  E.g. at n = 1000 and
ε = 0.01: 1/√1000 + √(10 · ln 10⁶)/(1000 · 0.01) = 0.0316228 + 1.1753940 = 1.2070168 > G·R: vacuous; at n = 2·10⁶,
ε = 0.05: 7.0711e-4 + √(10 · ln 4·10¹²)/10⁵ = 7.0711e-4 + 1.7034e-4 = 8.7745e-4.
"""

import json
import math
from pathlib import Path

import numpy as np
import pytest
from streamlit.testing.v1 import AppTest

APP = Path(__file__).resolve().parent.parent / "app.py"
G_R = 1.0 / (1.0 + math.exp(-1.0))  # logistic loss, κ = 1, R = 1
EPS_GRID = [float(e) for e in np.logspace(-2, 1, 21)]  # the page's grids (pages/bounds.py GRIDS)
N_GRID = [int(x) for x in np.unique(np.logspace(2, 7, 21).astype(int))]


def rate_by_hand(n: float, eps: float, d: int = 10) -> float:
    return 1.0 / math.sqrt(n) + math.sqrt(d * math.log(float(n) ** 2)) / (n * eps)


def _number(text: str) -> float:
    """A number as the dashboard writes it: 0.03280, 8.775·10⁻⁴."""
    if "·10" not in text:
        return float(text)
    mant, exp = text.split("·10")
    return float(mant) * 10.0 ** int(exp.translate(str.maketrans("⁻⁰¹²³⁴⁵⁶⁷⁸⁹", "-0123456789")))


def _open(query: dict) -> AppTest:
    at = AppTest.from_file(str(APP), default_timeout=180)
    for k, val in query.items():
        at.query_params[k] = val
    at.switch_page("pages/bounds.py").run()
    assert not at.exception
    return at


def _charts(at) -> dict:
    out = {}
    for c in at.get("plotly_chart"):
        spec = json.loads(c.proto.spec)
        title = spec["layout"].get("title", {})
        out[title.get("text", "") if isinstance(title, dict) else str(title)] = spec
    return out


def _trace(spec, start: str):
    return next((t for t in spec["data"] if (t.get("name") or "").startswith(start)), None)


@pytest.mark.parametrize("n, eps", [(1000, 0.01), (1000, 0.05), (1000, 10.0), (2_000_000, 0.05),
                                    (10_000_000, 0.01), (2_000_000, 10.0)])
def test_trivial_bound_and_vacuous_marks_at_the_edges(n, eps):
    at = _open({"loss": "logistic", "theorems": "wang-lownoise-thm3a", "n": str(n), "eps": repr(eps), "R": "1",
                "d": "10", "bound_kind": "rate", "sweep": "eps"})
    line = next(md.value for md in at.markdown if md.value.startswith("Bound at the current parameters"))
    shown = _number(line.split("**")[1])
    assert shown == pytest.approx(rate_by_hand(n, eps), rel=1e-3)  # four significant digits on screen
    # (the explicit bound, shown below the rate, has its own line "The explicit bound … is vacuous here")
    vacuous_here = any(w.value.startswith("This bound") and "vacuous here" in w.value for w in at.warning)
    assert vacuous_here == (rate_by_hand(n, eps) > G_R)
    charts = _charts(at)
    for title, grid, at_point in (("Rates vs ε", EPS_GRID, lambda e: rate_by_hand(n, e)),
                                  ("Rates vs n", N_GRID, lambda m: rate_by_hand(m, eps))):
        spec = charts[title]
        level = _trace(spec, "trivial bound of the excess risk")
        assert level["y"] == [pytest.approx(G_R, rel=1e-12)] * 2
        assert level["name"] == f"trivial bound of the excess risk: G·R = {G_R:.4g}"
        curve = next(t for t in spec["data"] if "[excess population risk" in (t.get("name") or "")
                     and not t["name"].endswith("vacuous here"))
        assert curve["y"] == [pytest.approx(at_point(x), rel=1e-9) for x in grid]
        marks = _trace(spec, curve["name"].split(" (slope")[0] + ": vacuous here")
        expected = [x for x in grid if at_point(x) > G_R]
        assert (marks["x"] if marks else []) == pytest.approx(expected)


def test_edges_of_the_grids_by_hand():
    # the hand values of the module docstring, and which edges are vacuous
    assert rate_by_hand(1000, 0.01) == pytest.approx(1.2070168, rel=1e-6) and rate_by_hand(1000, 0.01) > G_R
    assert rate_by_hand(2e6, 0.05) == pytest.approx(8.7745e-4, rel=1e-4)
    assert max(rate_by_hand(n, 10.0) for n in N_GRID) < G_R  # ε = 10: never vacuous
    assert max(rate_by_hand(n, 0.01) for n in N_GRID if n >= 10**6) < G_R  # n ≥ 10⁶: never vacuous


def test_explicit_points_that_cannot_be_computed_are_marked_gaps_with_their_reason():
    from dpviz.theory import catalog

    at = _open({"theorems": "wang-lownoise-thm3a", "n": "1000", "bound_kind": "explicit", "sweep": "eps"})
    spec = _charts(at)["Explicit bounds vs ε"]
    curve = next(t for t in spec["data"] if "[excess population risk" in (t.get("name") or ""))
    gaps = _trace(spec, "no bound here")
    assert gaps is not None and gaps["name"] == "no bound here (hover: why)"
    # the gaps are exactly the grid points where the library refuses the explicit bound, each with its reason
    view = at.session_state["_view"]
    p = {k: view[k] for k in ("d", "G", "L", "R", "alpha", "c", "M", "Fstar") if k in view}
    refused = {}
    thm = catalog.get_theorem("wang-lownoise-thm3a")
    names = set(catalog.parameters_of(thm.bound)) | set(catalog.parameters_of(thm.explicit_bound))
    for e in EPS_GRID:
        try:
            catalog.bound("wang-lownoise-thm3a", explicit=True,
                          **{k: v for k, v in {**p, "n": 1000, "eps": e, "delta": 1e-6}.items() if k in names})
        except ValueError as exc:
            refused[e] = str(exc)
    assert refused and len(refused) < len(EPS_GRID)  # small ε only: the explicit bound needs a calibration
    assert gaps["x"] == pytest.approx(sorted(refused))
    assert all("cannot be calibrated" in t for t in gaps["text"])
    assert [y is None for y in curve["y"]] == [e in refused for e in EPS_GRID]
    assert any(c.value.startswith("No bound at these points") and "cannot be calibrated" in c.value
               for c in at.caption)
