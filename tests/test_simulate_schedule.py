"""The Simulate page's run plan below the UI (dpviz.engine.simulate.schedule) and the engine's per-point streams
(issue 33): a grid point's η, T, σ and results depend only on that point's own parameters and the seed."""

import math

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from dpviz.engine import data as D, simulate as S
from dpviz.engine.simulate import schedule as SC
from dpviz.theory import catalog


@pytest.fixture(scope="module")
def ds():
    return D.load_dataset("wang-logistic", n=400, kappa=0.0, n_test=300, seed=2)


def _base(ds, **over):
    # logistic loss at ||x|| <= 1 and R = 1: G = 1/(1 + e^-1) = 0.7311, L = 1/4, M = 1/2 (losses.Logistic.constants)
    p = SC.schedule_params({"n": 400, "eps": 1.0, "R": 1.0, "c": 1.0, "mu": 0.1, **over}, loss="logistic",
                           data_bound=ds.x_bound, d=ds.d)
    return p


def test_schedule_params_take_the_losss_constants(ds):
    p = _base(ds)
    assert p["G"] == pytest.approx(1 / (1 + math.exp(-1)), rel=1e-9)
    assert p["L"] == pytest.approx(0.25) and p["M"] == pytest.approx(0.5) and p["alpha"] == 1.0
    assert p["d"] == ds.d
    # a regularised loss sets mu = 2 lambda
    from dpviz.engine import losses

    q = SC.schedule_params({"R": 1.0, "mu": 0.1}, loss=losses.get_loss("logistic", l2=0.05), data_bound=1.0, d=3)
    assert q["mu"] == pytest.approx(0.1)


def test_theorem_3a_schedule_by_hand(ds):
    # Wang, Lei, Ying & Zhou, Theorem 3 (a): T = n and eta = min(1/sqrt(T), ...) -- at n = 400 and eps >= 1,
    # eta = 1/sqrt(400) = 0.05; the theorem's own eta shrinks with eps at small eps
    pts = SC.theorem_schedule("wang-lownoise-thm3a", sweep="eps", grid=[1.0, 4.0], params=_base(ds))
    assert [p.T for p in pts] == [400, 400]
    assert [p.eta for p in pts] == [pytest.approx(0.05), pytest.approx(0.05)]
    assert all(p.ok and not p.reason for p in pts)


def test_point_params_ties_delta_to_each_points_n():
    p = SC.point_params({"n": 10, "eps": 1.0, "delta": 0.5}, "n", 1000.0, delta_auto=True)
    assert p["n"] == 1000 and isinstance(p["n"], int) and p["delta"] == pytest.approx(1e-6)
    q = SC.point_params({"n": 10, "eps": 1.0, "delta": 1e-3}, "n", 1000.0, delta_auto=False)
    assert q["delta"] == 1e-3
    with pytest.raises(ValueError, match="sweeps one of"):
        SC.point_params({}, "T", 3, delta_auto=True)


def test_whole_T():
    assert SC.whole_T(1000.0) == 1000 and SC.whole_T(1000.0000000001) == 1000
    assert SC.whole_T(999.2) == 1000 and SC.whole_T(0.2) == 1
    assert SC.whole_T(10.0**12) == 10**12  # exact for n² = 10¹² (not 999 999 999 999)
    for bad in (0, -1, float("nan"), float("inf")):
        with pytest.raises(ValueError, match="positive finite"):
            SC.whole_T(bad)


def test_choice_is_made_at_the_sidebars_point_not_the_grid(ds):
    ch = SC.choose_schedule_theorem(["dpsgd-rdp", "sgd"], _base(ds))
    assert ch.theorem == "wang-lownoise-thm3a" and "Theorem 3 (a)" in ch.note
    none = SC.choose_schedule_theorem(["sgd"], _base(ds))
    assert none.theorem is None and "No private algorithm" in none.note


def test_a_point_without_a_schedule_carries_its_reason(ds):
    def bound(tid, p):
        return {"error": "made-up failure"} if p["eps"] < 1 else {"ok": {"T": 10, "eta": 0.1}}

    pts = SC.theorem_schedule("wang-lownoise-thm3a", sweep="eps", grid=[0.5, 2.0], params=_base(ds), bound=bound)
    assert not pts[0].ok and pts[0].reason == "made-up failure"
    assert pts[1].ok and pts[1].T == 10


def test_split_runnable_marks_costly_points_as_gaps():
    pts = [SC.PointSchedule(1.0, 10, 0.1), SC.PointSchedule(2.0, None, None, "no schedule"),
           SC.PointSchedule(3.0, 10**9, 0.1)]
    run, gaps, total = SC.split_runnable(pts, lambda p: p.T * 1e-3, cap=30.0)
    assert [p.value for p in run] == [1.0] and total == pytest.approx(0.01)
    assert [p.value for p in gaps] == [2.0, 3.0]
    assert gaps[0].reason == "no schedule" and "above this page's cap of 30 s" in gaps[1].reason
    with pytest.raises(ValueError):
        SC.split_runnable(pts, lambda p: 1.0, cap=0)


def test_fixed_params():
    params = {"n": 5000, "eps": 2.0, "T": 7, "eta": 0.1, "R": 1.5, "mu": 0.2, "delta": 1e-7}
    f = SC.fixed_params(params=params, sweep="eps", data_n=1000, manual=False, project=True, G=None, l2=0.0,
                        delta_auto=True)
    assert f == {"R": 1.5, "mu": 0.2, "n": 1000}  # n cut at the data set's size; eps swept; delta tied to n
    g = SC.fixed_params(params=params, sweep="n", data_n=1000, manual=True, project=False, G=1.5, l2=0.01,
                        delta_auto=False, experiment_noise=True)
    assert g == {"T": 7, "eta": 0.1, "G": 1.5, "run_infeasible": True, "noise_rule": "experiment", "delta": 1e-7,
                 "eps": 2.0}


def _run(ds, grid, sched_grid=None, seed=3):
    base = _base(ds)
    pts = SC.theorem_schedule("wang-lownoise-thm3a", sweep="eps", grid=grid, params=base)
    fixed = {"n": 400, "R": 1.0, "mu": 0.1, "T": [p.T for p in pts], "eta": [p.eta for p in pts]}
    res = S.simulate("dpsgd-rdp", ds, "logistic", grid={"eps": list(grid)}, reps=3, seed=seed, params=fixed,
                     evaluate=("risk",))
    out = {}
    s = res.summary()
    means = dict(zip(s["grid"], s["mean"]))
    for g, pt, cal in zip(grid, pts, res.calibrations):
        out[float(g)] = (pt.T, pt.eta, cal.sigma, means.get(g))
    return out


@settings(max_examples=6, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(extra=st.lists(st.sampled_from([0.05, 0.25, 0.5, 3.0, 6.0, 16.0]), min_size=1, max_size=3, unique=True),
       drop=st.booleans())
def test_adding_or_removing_grid_values_moves_no_other_point(ds, extra, drop):
    # the case: adding eps = 0.25 to the grid changed every point's eta (0.0316 -> 0.00221) and made the
    # baseline jump; here every point keeps its eta, T, sigma and mean whatever else is in the grid (same seed)
    core = [1.0, 2.0, 8.0]
    ref = _run(ds, core)
    grid = sorted(set(([2.0, 8.0] if drop else core) + extra))
    got = _run(ds, grid)
    for g in set(core) & set(grid):
        T0, eta0, sig0, m0 = ref[g]
        T1, eta1, sig1, m1 = got[g]
        assert (T1, eta1) == (T0, eta0)
        assert (sig1 is None and sig0 is None) or sig1 == sig0
        assert (m0 is None or math.isnan(m0)) and (m1 is None or math.isnan(m1)) or m1 == m0


def test_a_points_streams_do_not_depend_on_its_position(ds):
    one = S.simulate("sgd", ds, "logistic", grid={"eps": [2.0]}, reps=2, seed=5, params={"T": 30, "eta": 0.1,
                                                                                        "R": 1.0},
                     evaluate=())
    three = S.simulate("sgd", ds, "logistic", grid={"eps": [0.5, 1.0, 2.0]}, reps=2, seed=5,
                       params={"T": 30, "eta": 0.1, "R": 1.0}, evaluate=())
    np.testing.assert_array_equal(one.outputs[0], three.outputs[2])
    other_seed = S.simulate("sgd", ds, "logistic", grid={"eps": [2.0]}, reps=2, seed=6,
                            params={"T": 30, "eta": 0.1, "R": 1.0}, evaluate=())
    assert not np.array_equal(one.outputs[0], other_seed.outputs[0])


def test_per_point_T_and_eta_are_checked(ds):
    with pytest.raises(ValueError, match="one per grid point"):
        S.simulate("sgd", ds, "logistic", grid={"eps": [1.0, 2.0]}, reps=1, params={"T": [5], "eta": 0.1})
    with pytest.raises(ValueError, match="one per grid point"):
        S.simulate("sgd", ds, "logistic", reps=1, params={"T": [5, 6], "eta": 0.1})
    r = S.simulate("sgd", ds, "logistic", grid={"eps": [1.0, 2.0]}, reps=1, params={"T": [5, 9], "eta": [0.1, 0.2]},
                   evaluate=())
    assert list(r.frame["T"]) == [5, 9]


def test_trivial_excess_is_the_loss_of_w0_minus_the_reference(ds):
    # logistic loss at w = 0: log(1 + e^0) = log 2 for every example
    assert SC.trivial_excess(ds, "logistic", reference=0.5) == pytest.approx(math.log(2) - 0.5, rel=1e-12)


def test_the_cli_reruns_the_theorem_schedule(ds, capsys):
    import json

    from dpviz.cli import commands

    commands.main(["simulate", "--algorithm", "dpsgd-rdp", "--dataset", "wang-logistic", "--data-n", "400",
                   "--loss", "logistic", "--over", "eps", "--values", "0.05,2", "--reps", "2", "--schedule",
                   "wang-lownoise-thm3a", "--n", "400", "--R", "1", "--mu", "0.1", "--json"])
    rows = json.loads(capsys.readouterr().out)["runs"][0]["rows"]
    pts = SC.theorem_schedule("wang-lownoise-thm3a", sweep="eps", grid=[0.05, 2.0],
                              params=_base(ds, n=400))
    assert {r["grid"]: r["T"] for r in rows} == {0.05: pts[0].T, 2.0: pts[1].T}
    assert catalog.get_theorem("wang-lownoise-thm3a")


def test_theory_curves_mark_vacuous_explicit_points_and_draw_over_the_whole_grid():
    import pandas as pd

    from dpviz_ui import simulate_view as SV

    s = pd.DataFrame({"grid": [1.0, 2.0], "mean": [0.2, 0.1], "ci_low": [0.1, 0.05], "ci_high": [0.3, 0.15]})
    b = pd.DataFrame({"grid": [0.5, 1.0, 2.0], "bound": [0.8, 0.4, 0.2], "explicit": [90.0, 0.15, 0.05],
                      "n_exp": [0, 0, 0], "eps_exp": [-1, -1, -1], "error": ["", "", ""]})
    curves, facts = SV.theory_curves("DP-SGD", "DP-SGD", [0.5, 1.0, 2.0], s, b, "Thm", 0, trivial=0.12)
    fitted = [c for c in curves if c["kind"] == "fitted"][0]
    # one constant fitted to the means: exp(mean(log(0.2/0.4), log(0.1/0.2))) = 0.5, drawn over the whole grid
    assert fitted["x"] == [0.5, 1.0, 2.0] and fitted["y"] == pytest.approx([0.4, 0.2, 0.1])
    explicit = [c for c in curves if c["kind"] == "explicit"][0]
    assert explicit["vacuous"] == [0.5, 1.0] and "vacuous here at 2 of 3 points" in explicit["detail"]
    assert facts["vacuous"] == [0.5, 1.0]
    assert facts["theory slope"] == pytest.approx(-1.0)  # 0.8, 0.4, 0.2 over 0.5, 1, 2
    assert SV.vacuous_points({1.0: 0.5, 2.0: 0.05}, 0.12) == [1.0] and SV.vacuous_points({1.0: 9.0}, None) == []


def test_simulation_figure_breaks_lines_at_gaps_and_marks_them():
    from dpviz.foundation import figures

    fig = figures.simulation_figure(
        [{"name": "A", "x": [0.25, 1, 2, 8], "mean": [None, 0.1, 0.08, 0.05], "ci_low": [None, 0.09, 0.07, 0.04],
          "ci_high": [None, 0.11, 0.09, 0.06]},
         {"name": "A: bound", "x": [1, 2, 8], "y": [5.0, 0.1, 0.04], "kind": "explicit", "vacuous": [1.0]}],
        x_title="ε", gaps=[{"x": 0.25, "reason": "infeasible", "name": "A"}],
        levels=[{"name": "w = 0 (trivial predictor)", "y": 0.12}])
    names = [t.name for t in fig.data]
    mean = [t for t in fig.data if t.name == "A" and t.mode == "lines+markers"][0]
    assert list(mean.y)[0] is None and mean.connectgaps is False
    gap = [t for t in fig.data if t.name == "not run (hover: why)"][0]
    assert list(gap.x) == [0.25] and "infeasible" in gap.text[0]
    assert "w = 0 (trivial predictor)" in names
    vac = [t for t in fig.data if (t.name or "").endswith("vacuous here")][0]
    assert list(vac.x) == [1.0] and list(vac.y) == [5.0]
    assert len(fig.layout.yaxis.tickvals) >= 3


def test_log_ticks_give_at_least_three_ticks_over_a_narrow_range():
    from dpviz.foundation import figures

    # the issue: one tick (0.2) over the chart's data; 1-2-5 has only 0.2 in [0.11, 0.45]
    ticks = figures.log_ticks(0.11, 0.45)
    assert len(ticks) >= 3 and all(0.11 <= t <= 0.45 * 1.0001 for t in ticks)
    assert figures.log_ticks(0.01, 10) == [0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1, 2, 5, 10]  # unchanged over decades


def test_trivial_bound_is_G_times_R_and_marks_vacuous_bounds():
    from dpviz.theory import vacuous

    # the issue's case: Theorem 3 (a)'s explicit bound 73.93 with the logistic loss at kappa = R = 1, G = 0.7311
    t = vacuous.trivial_bound("wang-lownoise-thm3a", {"G": 0.7311, "R": 1.0})
    assert t[0] == pytest.approx(0.7311) and "G·R" in t[1]
    assert vacuous.is_vacuous(73.93, t) and not vacuous.is_vacuous(0.043, t)
    assert vacuous.trivial_bound("yang-pairwise-thm1", {"R": 2.0})[0] == 4.0  # stability: the diameter 2R
    assert vacuous.trivial_bound("kang-pidp-thm3", {"G": 1.0, "R": 1.0}) is None  # W = R^d: no ball
    assert vacuous.trivial_bound("wang-nonsmooth-lemma13", {"G": 1.0, "R": 1.0}) is None  # a privacy budget


def test_bounds_applicability_by_hand():
    from dpviz_ui import bounds_view as BV

    assert "pairwise loss" in BV.loss_reason("yang-pairwise-thm2", "logistic")
    assert "α < 1" in BV.loss_reason("wang-lownoise-thm4a", "logistic")
    assert "smooth loss" in BV.loss_reason("wang-lownoise-thm3a", "hinge")
    assert BV.loss_reason("wang-lownoise-thm4a", "q-norm-hinge", 1.5) == ""  # alpha = 0.5
    assert BV.loss_reason("wang-lownoise-thm3a", None) == ""  # custom constants: the user's assumption
    assert BV.switch_loss("wang-lownoise-thm4a", ["logistic", "hinge"]) == "hinge"
    assert BV.switch_loss("yang-pairwise-thm2", ["logistic"]) is None


def test_the_schedule_theorem_applies_to_the_loss():
    from dpviz.engine import losses

    # q = 1.5: the q-norm hinge is alpha-Hölder with alpha = q - 1 = 0.5, so Wang, Lei, Ying & Zhou's smooth
    # Theorem 3 (a) does not cover it and their Hölder Theorem 4 (a) sets the schedule
    loss = losses.get_loss("q-norm-hinge", q=1.5)
    base = SC.schedule_params({"n": 1000, "eps": 1.0, "R": 1.0, "c": 1.0, "mu": 0.1}, loss=loss, data_bound=1.0,
                              d=10)
    ch = SC.choose_schedule_theorem(["dpsgd-rdp", "sgd"], base, loss=loss)
    assert ch.theorem == "wang-lownoise-thm4a"
    assert ch.tried[0] == ("wang-lownoise-thm3a", "needs a smooth loss (α = 1); q-norm hinge is only α-Hölder "
                                                  "smooth with α = 0.5")
    assert SC.choose_schedule_theorem(["dpsgd-rdp"], base, loss="logistic").theorem == "wang-lownoise-thm3a"
