"""AppTest checks of issue 33 on the Simulate and Bounds pages: a grid change moves no other point, points that do not
run are marked gaps with their reason, n-sweeps draw lines and the theory over the same n, the q-norm loss's q (α)
is an input, vacuous bounds are marked with the trivial bound beside them, and theorems that do not apply are greyed
with a switch."""

import json
import math

import pytest
from streamlit.testing.v1 import AppTest

TIMEOUT = 120
APP = __import__("pathlib").Path(__file__).resolve().parent.parent / "app.py"


def _open(page, query):
    at = AppTest.from_file(str(APP), default_timeout=TIMEOUT)
    for k, v in query.items():
        at.query_params[k] = v
    at.run()
    at.switch_page(page).run()
    return at


def _run_sim(at):
    for b in at.button:
        if b.label == "Run simulation":
            b.click().run()
            break
    assert not at.exception
    return at


def _traces(at):
    figs = [json.loads(c.proto.spec) for c in at.get("plotly_chart")]
    return figs[0]["data"], figs[0]["layout"]


def _rows(at):
    return {(r["algorithm"], float(r["grid"]), int(r["rep"])): r for _k, res in at.session_state["_sim"]["results"]
            for r in res.frame.to_dict("records")}


def test_adding_small_eps_to_the_grid_changes_no_other_point():
    # the issue: ε grid 0.25, …, 8 changed every algorithm's η (0.0316 -> 0.00221), the SGD baseline jumped from
    # 0.024 to 0.20, and DP-SGD at ε = 0.25 and 0.5 disappeared without a word
    q = {"reps": "3", "n": "400"}
    a = _run_sim(_open("pages/simulate.py", {**q, "eps_grid": "1,2,8"}))
    b = _run_sim(_open("pages/simulate.py", {**q, "eps_grid": "0.25,0.5,1,2,8"}))
    ra, rb = _rows(a), _rows(b)
    assert ra and set(ra) <= set(rb)
    for key, row in ra.items():
        other = rb[key]
        for col in ("T", "eta", "sigma", "excess_risk", "pop_risk"):
            x, y = row.get(col), other.get(col)
            assert (x is None and y is None) or (isinstance(x, float) and math.isnan(x) and math.isnan(y)) or x == y, \
                (key, col, x, y)
    # the points that do not run are drawn as gaps with their reason, never dropped
    data, layout = _traces(b)
    gaps = [t for t in data if t.get("name") == "not run (hover: why)"]
    assert gaps and {0.25, 0.5} <= set(gaps[0]["x"])
    assert any("Theorem 2" in txt for txt in gaps[0]["text"])
    mean = [t for t in data if t.get("mode") == "lines+markers" and t["name"].startswith("DP-SGD")][0]
    assert mean["x"][:2] == [0.25, 0.5] and mean["y"][:2] == [None, None]
    # the schedule's note names the theorem and says that each point's own ε sets η and T
    note = [c.value for c in b.caption if c.value.startswith("T and η at every grid point")][0]
    assert "Theorem 3 (a)" in note and "own ε" in note
    # every log axis has at least three ticks to read a value off
    assert len(layout["yaxis"]["tickvals"]) >= 3 and len(layout["xaxis"]["tickvals"]) >= 3


def test_n_sweep_draws_lines_theory_and_both_slopes():
    # the issue: swept over n, DP-SGD showed one dot at n = 1 000 with no line and no theory curve
    at = _run_sim(_open("pages/simulate.py", {"sim_sweep": "n", "n_grid": "1000,2000,4000", "reps": "3",
                                              "sim_algs": "dpsgd-rdp", "eps": "4", "n": "1000"}))
    data, layout = _traces(at)
    mean = [t for t in data if t.get("mode") == "lines+markers"][0]
    assert mean["x"] == [1000, 2000, 4000] and all(y is not None for y in mean["y"])  # every point ran: a line
    theory = [t for t in data if "theory (fitted)" in (t.get("name") or "")]
    assert theory and theory[0]["x"] == [1000, 2000, 4000]
    assert "slope" in mean["name"] and "theory" in mean["name"]  # the fitted slope beside the theory's
    rows = _rows(at)
    # T = n at each point (Wang, Lei, Ying & Zhou, Theorem 3 (a): T = n), not one T for the whole sweep
    assert {int(r["T"]) for r in rows.values() if r["grid"] == 2000} == {2000}
    assert len(layout["xaxis"]["tickvals"]) >= 3


def test_q_norm_hinge_takes_q_from_the_sidebar():
    at = _open("pages/simulate.py", {"sim_loss": "q-norm-hinge", "q": "1.5", "reps": "2", "n": "300",
                                     "sim_schedule": "manual", "T": "50", "eps_grid": "1,4"})
    assert not at.exception
    assert at.text_input(key="w_q").value == "1.5"
    assert any("α = q − 1 = 0.5" in c.value for c in at.caption)
    at.text_input(key="w_q").input("1.8").run()
    assert not at.exception and at.session_state["_view"]["q"] == 1.8
    assert any("α = q − 1 = 0.8" in c.value for c in at.caption)


def test_bounds_marks_vacuous_bounds_with_the_trivial_bound():
    # the issue: Theorem 3 (a)'s explicit bound 73.93 beside a rate of 0.043, with nothing saying it says nothing
    at = _open("pages/bounds.py", {"loss": "logistic", "theorems": "wang-lownoise-thm3a", "n": "1000"})
    assert not at.exception
    vac = [w.value for w in at.warning if "vacuous here" in w.value]
    assert vac and "G·R = 0.7311" in vac[0]  # logistic at κ = R = 1: G = 1/(1 + e^-1) = 0.7311
    # the rate 0.043 is below G·R: not marked
    assert not any("This bound" in w for w in vac)


def test_bounds_greys_theorems_that_do_not_apply_and_switches():
    at = _open("pages/bounds.py", {"loss": "logistic", "theorems": "wang-lownoise-thm4a"})
    assert not at.exception
    assert any("Does not apply to the chosen loss" in w.value and "α < 1" in w.value for w in at.warning)
    assert not any(m.value.startswith("Bound at the current parameters") for m in at.markdown)  # no number
    greyed = [c.value for c in at.caption if c.value.startswith("~~")]
    assert any("needs a pairwise loss" in g for g in greyed)
    at.button(key="switch_chosen_wang-lownoise-thm4a").click().run()
    assert not at.exception
    assert at.session_state["_view"]["loss"] == "hinge"
    assert any(m.value.startswith("Bound at the current parameters") for m in at.markdown)
