"""Tests of the simulation engine: hand-traced updates (d = 2, injected noise / indices), noise levels, seeds, cost."""

import math

import numpy as np
import pytest

from dpviz.theory import catalog
from dpviz.engine import simulate as S
from dpviz.engine.data import Dataset


class LS:
    """f(w; x, y) = (<w, x> - y)^2 / 2, written out here so the hand traces do not depend on dpviz.engine.losses."""

    setting = "pointwise"
    param = "vector"
    alpha = 1.0

    def value(self, w, x, y, x2=None, y2=None):
        return 0.5 * (np.sum(w * x, axis=-1) - y) ** 2

    def grad(self, w, x, y, x2=None, y2=None):
        return (np.sum(w * x, axis=-1) - y)[..., None] * x


class Zero(LS):
    def value(self, w, x, y, x2=None, y2=None):
        return np.zeros(np.broadcast_shapes(w.shape[:-1], x.shape[:-1]))

    def grad(self, w, x, y, x2=None, y2=None):
        return np.zeros(np.broadcast_shapes(w.shape, x.shape))


class PairLS(LS):
    """Pairwise f(w; z, z') = (<w, x - x'> - (y - y'))^2 / 2."""

    setting = "pairwise"

    def value(self, w, x, y, x2=None, y2=None):
        return 0.5 * (np.sum(w * (x - x2), axis=-1) - (y - y2)) ** 2

    def grad(self, w, x, y, x2=None, y2=None):
        return (np.sum(w * (x - x2), axis=-1) - (y - y2))[..., None] * (x - x2)


def tiny():
    X = np.array([[1.0, 0.0], [0.0, 1.0]])
    y = np.array([1.0, 2.0])
    return Dataset("tiny", X, y, X.copy(), y.copy(), "regression")


def idx_seq(seq):
    return lambda t: np.full((1, 1), seq[t])


def noise_seq(seq):
    return lambda t: np.array(seq[t], dtype=float).reshape(1, 1, 2)


def test_dpsgd_hand_trace_average_and_last():
    # t=1: w1=0, i=0: grad=(0-1)*[1,0]=[-1,0]; +0.5*[1,-1] -> [-0.5,-0.5]; w2 = 0 - 0.1*[-0.5,-0.5] = [0.05, 0.05]
    # t=2: i=1: grad=(0.05-2)*[0,1]=[0,-1.95]; +0.5*[0,2] -> [0,-0.95]; w3 = [0.05, 0.05+0.095] = [0.05, 0.145]
    # Algorithm 1 (Wang et al.) outputs (w1+w2)/2 = [0.025, 0.025]; the PL variant outputs w3.
    kw = dict(reps=1, params={"T": 2, "eta": 0.1, "sigma": 0.5}, indices=idx_seq([0, 1]),
              noise=noise_seq([[1, -1], [0, 2]]), evaluate=())
    r = S.simulate("dpsgd-rdp", tiny(), LS(), **kw)
    assert r.outputs[0, 0] == pytest.approx([0.025, 0.025])
    r = S.simulate("dpsgd-pl", tiny(), LS(), **kw)
    assert r.outputs[0, 0] == pytest.approx([0.05, 0.145])


def test_projection_onto_ball():
    # w2 = [0.05, 0.05] has norm 0.0707 > R = 0.06 -> scaled by 0.06/0.070711 -> [0.042426, 0.042426]
    r = S.simulate("dpsgd-pl", tiny(), LS(), reps=1, params={"T": 1, "eta": 0.1, "sigma": 0.5, "R": 0.06},
                   indices=idx_seq([0]), noise=noise_seq([[1, -1]]), evaluate=())
    assert r.outputs[0, 0] == pytest.approx([0.06 / math.sqrt(2)] * 2)


def test_output_perturbation_hand_trace():
    # non-private: w2 = 0 - 0.1*[-1,0] = [0.1,0]; w3 = [0.1,0] - 0.1*[0,(0-2)] = [0.1,0.2]
    # average (w1+w2)/2 = [0.05, 0]; output + 0.5*[1,-2] = [0.55, -1.0]
    r = S.simulate("dpsgd-output", tiny(), LS(), reps=1, params={"T": 2, "eta": 0.1, "sigma": 0.5},
                   indices=idx_seq([0, 1]), output_noise=np.array([[[1.0, -2.0]]]), evaluate=())
    assert r.outputs[0, 0] == pytest.approx([0.55, -1.0])


def test_pairwise_hand_trace():
    # pair (0,1): x-x' = [1,-1], y-y' = -1; grad at 0 = (0+1)*[1,-1] = [1,-1]; noise 0.5*[2,0] -> [2,-1]
    # w2 = 0 - 0.1*[2,-1] = [-0.2, 0.1]; (T = 2, second pair (1,0) only moves w3); output (w1+w2)/2 = [-0.1, 0.05]
    r = S.simulate("dpsgd-rdp-pairwise", tiny(), PairLS(), reps=1, params={"T": 2, "eta": 0.1, "sigma": 0.5},
                   indices=lambda t: (np.full((1, 1), t), np.full((1, 1), 1 - t)), noise=noise_seq([[2, 0], [0, 0]]),
                   evaluate=())
    assert r.outputs[0, 0] == pytest.approx([-0.1, 0.05])


def test_gd_full_gradient_hand_trace():
    # F_S(w) = mean of the two losses; grad at 0 = ([-1,0] + [0,-2])/2 = [-0.5,-1]; w1 = [0.05, 0.1]
    # grad at w1 = ([0.05-1, 0] + [0, 0.1-2])/2 = [-0.475, -0.95]; w2 = [0.05+0.0475, 0.1+0.095] = [0.0975, 0.195]
    # gd outputs the average of w0, w1, w2 = [0.1475/3, 0.295/3]
    r = S.simulate("gd", tiny(), LS(), reps=1, params={"T": 2, "eta": 0.1}, evaluate=())
    assert r.outputs[0, 0] == pytest.approx([0.1475 / 3, 0.295 / 3])


def test_noise_free_limit_equals_sgd():
    rng = np.random.default_rng(1)
    X = rng.standard_normal((50, 3))
    X /= np.linalg.norm(X, axis=1, keepdims=True)
    y = X @ np.array([0.3, -0.2, 0.1])
    ds = Dataset("s", X, y, X, y, "regression")
    a = S.simulate("dpsgd-rdp", ds, LS(), reps=4, seed=3, params={"T": 30, "eta": 0.1, "sigma": 0.0})
    b = S.simulate("sgd", ds, LS(), reps=4, seed=3, params={"T": 30, "eta": 0.1})
    np.testing.assert_allclose(a.outputs, b.outputs)


def test_output_noise_std_matches_catalogue_sigma():
    ds = tiny()
    p = dict(n=2, eps=1.0, delta=1e-3, T=10, eta=0.1, L=1.0, M=1.0, alpha=1.0, R=1.0)
    cal = catalog.calibrate("dpsgd-output", **p)
    r = S.simulate("dpsgd-output", ds, Zero(), reps=4000, seed=0, params=p, evaluate=())
    sd = r.outputs.std()
    assert sd == pytest.approx(cal.sigma, rel=0.05)  # 8000 draws: relative se of sd ~ 0.8 %


def test_per_step_noise_std():
    # zero gradient, eta = 1, last iterate: w_T = -sigma * sum of T normals, so sd(w_T) = sigma sqrt(T) = 0.3*sqrt(50)
    r = S.simulate("dpsgd-pl", tiny(), Zero(), reps=2000, seed=1, params={"T": 50, "eta": 1.0, "sigma": 0.3},
                   evaluate=())
    assert r.outputs.std() == pytest.approx(0.3 * math.sqrt(50), rel=0.05)


def test_grid_sigma_per_point_and_seeds():
    rng = np.random.default_rng(0)
    X = rng.standard_normal((40, 2))
    X /= np.linalg.norm(X, axis=1, keepdims=True)
    ds = Dataset("s", X, X[:, 0] * 0.5, X, X[:, 0] * 0.5, "regression")
    kw = dict(grid={"eps": [1.0, 2.0]}, reps=50, params={"T": 20, "eta": 1.0, "sigma": [0.2, 0.1]}, evaluate=())
    a = S.simulate("dpsgd-pl", ds, Zero(), seed=5, **kw)
    b = S.simulate("dpsgd-pl", ds, Zero(), seed=5, **kw)
    c = S.simulate("dpsgd-pl", ds, Zero(), seed=6, **kw)
    np.testing.assert_array_equal(a.outputs, b.outputs)
    assert not np.allclose(a.outputs, c.outputs)
    # each grid point has its own sigma: sd ratio ~ 2
    assert a.outputs[0].std() / a.outputs[1].std() == pytest.approx(2.0, rel=0.25)
    # different grid points and repetitions get different streams
    assert not np.allclose(a.outputs[0] / 0.2, a.outputs[1] / 0.1)
    assert len(np.unique(a.outputs[0, :, 0])) == 50
    assert list(a.frame["sigma"].unique()) == [0.2, 0.1]


def test_frame_summary_and_excess_risk():
    rng = np.random.default_rng(0)
    X = rng.standard_normal((300, 2))
    X /= np.linalg.norm(X, axis=1, keepdims=True)
    w = np.array([0.3, 0.1])
    ds = Dataset("s", X[:200], X[:200] @ w, X[200:], X[200:] @ w, "regression", w_star=w, realizable=True)
    r = S.simulate("sgd", ds, LS(), reps=5, params={"T": 50, "eta": 0.5})
    assert len(r.frame) == 5
    assert {"emp_risk", "pop_risk", "excess_risk", "metric"} <= set(r.frame.columns)
    # realizable: F(w*) = 0, so the excess risk equals the population risk, and MSE = 2 * population risk
    np.testing.assert_allclose(r.frame["excess_risk"], r.frame["pop_risk"])
    np.testing.assert_allclose(r.frame["metric"], 2 * r.frame["pop_risk"])
    assert r.summary("excess_risk")["count"].iloc[0] == 5


def test_progress_cancel_and_cost_guard():
    seen = []
    S.simulate("sgd", tiny(), LS(), reps=2, params={"T": 10, "eta": 0.1}, progress=seen.append, evaluate=())
    assert seen[-1] == 1.0 and all(0 <= f <= 1 for f in seen)
    with pytest.raises(S.Cancelled):
        S.simulate("sgd", tiny(), LS(), reps=2, params={"T": 10, "eta": 0.1}, cancel=lambda: True)
    est = S.estimate_cost("sgd", tiny(), LS(), reps=10, params={"T": 100, "eta": 0.1}, evaluate=())
    assert est["work"] == 10 * 100 * 2  # reps * T * d
    with pytest.raises(S.CostTooHigh, match="reduce"):
        S.simulate("sgd", tiny(), LS(), reps=10, params={"T": 100, "eta": 0.1}, max_work=100)
    # risks add two evaluation samples of (at most) 2000 rows per chain: 2 * 10 * 2000 * d=2 units
    est2 = S.estimate_cost("sgd", tiny(), LS(), reps=10, params={"T": 100, "eta": 0.1})
    assert est2["work"] == 10 * 100 * 2 + 2 * 10 * 2000 * 2
    # seconds weight the 2000 step units by the SGD rule's measured speed factor (0.33: no per-step noise) and the 80000 risk units by the evaluation's (0.4)
    assert est2["seconds"] == pytest.approx((0.33 * 2000 + 0.4 * 80000) * S.SECONDS_PER_UNIT)
    # full-gradient pairwise: n(n-1) = 2 gradients per step
    est = S.estimate_cost("dpgd-c", tiny(), PairLS(), reps=3, params={"T": 4, "eta": 0.1, "sigma": 1.0}, evaluate=())
    assert est["work"] == 3 * 4 * 2 * 2


def test_invalid_inputs():
    with pytest.raises(ValueError, match="does not run"):
        S.simulate("no-such", tiny(), LS())
    with pytest.raises(ValueError, match="Dataset"):
        S.simulate("sgd", np.zeros((3, 2)), LS(), params={"T": 1, "eta": 0.1})
    with pytest.raises(ValueError, match="grad"):
        S.simulate("sgd", tiny(), object(), params={"T": 1, "eta": 0.1})
    with pytest.raises(ValueError, match="reps"):
        S.simulate("sgd", tiny(), LS(), reps=0, params={"T": 1, "eta": 0.1})
    with pytest.raises(ValueError, match="pairwise"):
        S.simulate("dpsgd-rdp-pairwise", tiny(), LS(), params={"T": 1, "eta": 0.1, "sigma": 1.0})
    with pytest.raises(ValueError, match="eta"):
        S.simulate("sgd", tiny(), LS(), params={"T": 1})
    with pytest.raises(ValueError, match="exceeds"):
        S.simulate("sgd", tiny(), LS(), params={"T": 1, "eta": 0.1, "n": 5})
    with pytest.raises(ValueError, match="grid"):
        S.simulate("sgd", tiny(), LS(), grid={"eps": [1], "n": [2]}, params={"T": 1, "eta": 0.1})
    with pytest.raises(ValueError, match="R"):
        S.simulate("sgd", tiny(), LS(), params={"T": 1, "eta": 0.1, "R": -1})


def test_pairwise_sgd_history_hand_trace():
    # i_1=0, i_2=1, i_3=0, i_4=1; eta=0.1
    # t=1: pair (1,0): x-x'=[-1,1], y-y'=1, grad at 0 = (0-1)*[-1,1] = [1,-1]; w2 = -0.1*[1,-1] = [-0.1, 0.1]
    # t=2: pairs (0,0) -> 0 and (0,1): x-x'=[1,-1], y-y'=-1, m=-0.2, grad=(−0.2+1)*[1,-1]=[0.8,-0.8];
    #      mean over t=2 pairs: [0.4,-0.4]; w3 = [-0.1,0.1] - 0.1*[0.4,-0.4] = [-0.14, 0.14]
    # output (w1+w2+w3)/3 = [-0.24/3, 0.24/3] = [-0.08, 0.08]
    seq = [0, 1, 0, 1]
    r = S.simulate("pairwise-sgd", tiny(), PairLS(), reps=1, params={"T": 3, "eta": 0.1},
                   indices=lambda t: np.full((1, 1), seq[t]), evaluate=())
    assert r.outputs[0, 0] == pytest.approx([-0.08, 0.08])
    est = S.estimate_cost("pairwise-sgd", tiny(), PairLS(), reps=2, params={"T": 10, "eta": 0.1}, evaluate=())
    assert est["work"] == 2 * 2 * 10 * 11 / 2  # reps * d * T(T+1)/2


def test_dp_epoch_gd_hand_trace():
    # n = 4 -> k = 2 epochs on D_1 = rows 0,1 and D_2 = rows 2,3; eta_1 = 1/4, eta_2 = 1/16
    # printed average (Algorithm 3 of Xue et al.: w_1..w_{n_i}):
    # D_1: (x,y) = (1,1),(0,0): mean pairwise gradient = w - 1; w: 0 -> 0.25 -> 0.4375; average 0.34375; + 0.5*1
    # D_2: (1,2),(0,0): gradient = w - 2; w: 0.84375 -> 0.916015625 -> 0.9837646484375; average 0.94989013671875
    # + 0.25*(-2) = 0.44989013671875
    X = np.array([[1.0], [0.0], [1.0], [0.0]])
    y = np.array([1.0, 0.0, 2.0, 0.0])
    ds = Dataset("e", X, y, X, y, "regression")
    p = {"eta": 1.0, "sigma_schedule": [0.5, 0.25]}
    z = np.array([[[[1.0]], [[-2.0]]]])
    r = S.simulate("dp-epoch-gd", ds, PairLS(), reps=1, params={**p, "epoch_average": "printed"}, output_noise=z,
                   evaluate=())
    assert r.outputs[0, 0, 0] == pytest.approx(0.44989013671875)
    assert any("Algorithm 3 as printed" in note for note in r.notes)
    # the proof's average (default; Lemma 9: w_0..w_{n_i} over n_i + 1 points):
    # D_1: (0 + 1/4 + 7/16)/3 = 11/48; + 0.5*1 = 35/48
    # D_2: w: 35/48 -> 35/48 + (2 - 35/48)/16 = 207/256 -> 207/256 + (2 - 207/256)/16 = 3617/4096;
    # average (35/48 + 207/256 + 3617/4096)/3 = 29747/36864 = 0.806939...; + 0.25*(-2) = 0.306939019097...
    r = S.simulate("dp-epoch-gd", ds, PairLS(), reps=1, params=p, output_noise=z, evaluate=())
    assert r.outputs[0, 0, 0] == pytest.approx(29747 / 36864 - 0.5)
    assert any("Lemma 9" in note for note in r.notes)
    with pytest.raises(ValueError, match="epoch_average"):
        S.simulate("dp-epoch-gd", ds, PairLS(), reps=1, params={**p, "epoch_average": "last"}, evaluate=())
    est = S.estimate_cost("dp-epoch-gd", ds, PairLS(), reps=1, params={"eta": 1.0, "sigma_schedule": [0.5, 0.25]},
                          evaluate=())
    assert est["work"] == 1 * (2 * 2 * 1 + 2 * 2 * 1)  # sum over epochs of n_i steps * n_i(n_i-1) pairs * d


def test_stats_slope_and_summary():
    from dpviz.foundation import stats
    import pandas as pd

    # y = 3 x^-0.5 exactly: slope -0.5, intercept log 3
    fit = stats.loglog_slope([1, 4, 16, 64], [3, 1.5, 0.75, 0.375])
    assert fit["slope"] == pytest.approx(-0.5) and fit["intercept"] == pytest.approx(math.log(3))
    assert fit["ci_low"] <= -0.5 <= fit["ci_high"]
    # noisy: log y = [0, -1.1, -1.9] at log x = [0, 1, 2]: slope = (-1.9 - 0)/2 = -0.95;
    # residuals [0.05, -0.1, 0.05] -> s^2 = 0.015/1, se = sqrt(0.015/2) = 0.0866
    fit = stats.loglog_slope(np.exp([0, 1, 2]), np.exp([0, -1.1, -1.9]))
    assert fit["slope"] == pytest.approx(-0.95) and fit["se"] == pytest.approx(math.sqrt(0.015 / 2))
    df = pd.DataFrame({"g": [1, 1, 2, 2], "v": [1.0, 3.0, 2.0, 2.0]})
    s = stats.summarize(df, "g", "v")
    # group 1: mean 2, sd sqrt(2), se = sqrt(2)/sqrt(2) = 1, CI 2 +- 1.96
    assert s["mean"].tolist() == [2.0, 2.0] and s["se"].tolist() == pytest.approx([1.0, 0.0])
    assert s["ci_high"].iloc[0] == pytest.approx(2 + 1.959964)
    with pytest.raises(ValueError, match="positive"):
        stats.loglog_slope([1, 2], [1, -1])
    with pytest.raises(ValueError, match="two"):
        stats.loglog_slope([1], [1])
    # two points: the slope of the line through them, log(1/4)/log(4) = -1, and no CI (None, never +-inf)
    fit = stats.loglog_slope([1, 4], [1, 0.25])
    assert fit["slope"] == pytest.approx(-1.0) and fit["k"] == 2
    assert fit["se"] is None and fit["ci_low"] is None and fit["ci_high"] is None
    with pytest.raises(ValueError, match="not in"):
        stats.summarize(df, "nope", "v")


def test_bounds_at_grid_points():
    rng = np.random.default_rng(0)
    X = rng.standard_normal((100, 2))
    X /= np.linalg.norm(X, axis=1, keepdims=True)
    ds = Dataset("s", X, X[:, 0] * 0.3, X, X[:, 0] * 0.3, "regression")
    p = dict(T=20, eta=0.1, L=1.0, M=1.0, alpha=1.0, R=1.0)
    r = S.simulate("dpsgd-output", ds, LS(), grid={"eps": [0.5, 1.0]}, reps=3, params=p)
    thm = [t.id for t in catalog.theorems() if t.algorithm == "dpsgd-output"]
    if not thm:
        pytest.skip("no theorem for dpsgd-output in the catalogue")
    b = r.bounds()
    assert len(b) == 2 and list(b["grid"]) == [0.5, 1.0]
    # the rate form and its largest term at each grid point are the catalogue's at that point's parameters
    for g, row in zip([0.5, 1.0], b.itertuples()):
        res = catalog.bound(row.theorem, **r.calibrations[[0.5, 1.0].index(g)].extras["_params"])
        assert row.bound == pytest.approx(res.total)
        assert (row.n_exp, row.eps_exp) == (res.dominant().n_exp, res.dominant().eps_exp)
    # engine switches are not theorem parameters
    r2 = S.simulate("dpsgd-output", ds, LS(), grid={"eps": [0.5, 1.0]}, reps=3, params={**p, "run_infeasible": True})
    assert "run_infeasible" not in r2.calibrations[0].extras["_params"]
    # delta defaults to 1/n^2 = 1e-4 for every grid point
    assert r.calibrations[0].extras["_params"]["delta"] == pytest.approx(1e-4)


def test_grid_over_n_uses_first_n_rows():
    # rows 0..9 have y = 0 (SGD stays at w = 0 exactly), rows 10..19 have y = 100
    X = np.tile([[1.0, 0.0]], (20, 1))
    y = np.r_[np.zeros(10), np.full(10, 100.0)]
    ds = Dataset("n", X, y, X, y, "regression")
    r = S.simulate("sgd", ds, LS(), grid={"n": [10, 20]}, reps=20, params={"T": 30, "eta": 0.1}, evaluate=())
    assert np.all(r.outputs[0] == 0.0)
    assert np.all(r.outputs[1, :, 0] > 0)
    assert list(r.frame["n"].unique()) == [10, 20]


def test_grid_over_T_matches_separate_runs():
    # deterministic GD: T = 2 and T = 4 in one batch equal two separate runs
    both = S.simulate("gd", tiny(), LS(), grid={"T": [2, 4]}, reps=1, params={"eta": 0.1}, evaluate=())
    for k, T in enumerate([2, 4]):
        one = S.simulate("gd", tiny(), LS(), reps=1, params={"T": T, "eta": 0.1}, evaluate=())
        np.testing.assert_allclose(both.outputs[k], one.outputs[0])
    # the T = 2 point is the hand-traced value [0.1475/3, 0.295/3]
    assert both.outputs[0, 0] == pytest.approx([0.1475 / 3, 0.295 / 3])


def test_builtin_data_with_loss_id():
    from dpviz.engine import data

    ds = data.load_dataset("wang-least-squares", n=500, kappa=0.0, n_test=2000)
    r = S.simulate("sgd", ds, "least-squares", reps=20, params={"T": 500, "eta": 0.5})
    assert r.frame["metric_name"].iloc[0] == "mse"
    # realizable: excess risk is measured against F(w*) = 0 and is small but positive
    assert r.frame["excess_risk"].between(0, 0.05).all()
    assert "F(w*)" in r.notes[0]
    bc = data.load_dataset("breast-cancer")
    r = S.simulate("sgd", bc, "logistic", reps=5, params={"T": 2000, "eta": 1.0})
    assert r.frame["metric_name"].iloc[0] == "error"
    assert r.summary("metric")["mean"].iloc[0] < 0.15  # a linear classifier separates this data well


def test_pidp_sgd_hand_trace():
    # X = I, y = [1, 0.001], n = 2: H = diag(1/2, 1/2), H^{-1} = diag(2, 2); theta0 = 0, one round of 2 steps
    # A = 2 r e^{eps1} delta1 = 2*1*e*1e-3 = 0.0054366; threshold A/(e-1) = 0.0031640
    # step 1, z_0: grad l(0; z_0) = (0-1)*[1,0] = [-1,0]; c = H^{-1}g/n = [-1,0]; c_t = 2c = [-2,0] -> |.| >= thr: noisy
    #   w = 0 - 0.1*([-1,0] + 0.5*[1,1]) = [0.05, -0.05]
    # step 2, z_1: grad l(0; z_1) = (0-0.001)*[0,1]; c = [0,-0.001]; c_t = [0,-0.002] < thr and
    #   ln(A/(A-(e-1)*0.002)) = ln(0.0054366/0.0020000) = 1.0000 <= 2 eps1 = 2: no noise
    #   local gradient at w: (-0.05-0.001)*[0,1] = [0,-0.051]; w = [0.05, -0.05+0.0051] = [0.05, -0.0449]
    X = np.eye(2)
    y = np.array([1.0, 0.001])
    ds = Dataset("p", X, y, X, y, "regression")
    # zeta = 0.1 <= lambda_min(H) = 1/2: Remark 5's zeta I is not needed, H is used as it is
    p = dict(T=2, rounds=1, T_local=2, eta=0.1, sigma=0.5, sigma_c=0.0, eps1=1.0, delta1=1e-3, r=1.0, E=0.0,
             theta0=[0.0, 0.0], zeta=0.1)
    r = S.simulate("pidp-sgd", ds, LS(), reps=1, params=p, indices=lambda t: np.full((1, 1), t),
                   noise=lambda t: np.ones((1, 1, 2)), evaluate=())
    assert r.outputs[0, 0] == pytest.approx([0.05, -0.0449], abs=1e-9)
    assert r.frame["noisy_fraction"].iloc[0] == 0.5
    # with a large approximation error E = 1 every contribution exceeds the threshold: every step is noisy
    p2 = dict(p, E=1.0)
    r2 = S.simulate("pidp-sgd", ds, LS(), reps=3, params=p2, evaluate=())
    assert (r2.frame["noisy_fraction"] == 1.0).all()
    with pytest.raises(ValueError, match="eps1"):
        S.simulate("pidp-sgd", ds, LS(), params={k: val for k, val in p.items() if k != "eps1"})


def test_pidp_start_zero_by_default_erm_only_as_a_labelled_option():
    # pidp_start="erm": theta~ = ERM solution [1, 0.001] (X = I: w = y); there every per-example gradient is 0 and
    # sigma = 0, so the chain stays at it -- and the run is marked not private (the start leaks the data)
    X = np.eye(2)
    y = np.array([1.0, 0.001])
    ds = Dataset("p", X, y, X, y, "regression")
    p = dict(T=4, rounds=1, T_local=4, eta=0.01, sigma=0.0, sigma_c=0.0, eps1=1.0, delta1=1e-3, r=1.0, zeta=0.1)
    r = S.simulate("pidp-sgd", ds, LS(), reps=2, params={**p, "pidp_start": "erm"}, evaluate=())
    np.testing.assert_allclose(r.outputs[0], [[1.0, 0.001]] * 2, atol=1e-6)
    assert not r.frame["feasible"].any() and not r.calibrations[0].feasible
    assert any("leaks the data" in note for note in r.notes)
    # default: theta~ = 0 like DP-SGD-PL.  sigma = 0, indices 0, 1, 0, 1: w = 0 -> w - 0.01 (w1 - 1) e1 = [0.01, 0]
    # -> [0.01, 0.001 * 0.01] = [0.01, 1e-5] -> [0.01 + 0.01 * 0.99, 1e-5] = [0.0199, 1e-5]
    # -> [0.0199, 1e-5 + 0.01 (0.001 - 1e-5)] = [0.0199, 1e-5 + 9.9e-6] = [0.0199, 1.99e-5]
    r = S.simulate("pidp-sgd", ds, LS(), reps=1, params=p, indices=lambda t: np.full((1, 1), t % 2), evaluate=())
    np.testing.assert_allclose(r.outputs[0, 0], [0.0199, 1.99e-5], rtol=1e-9)
    assert r.frame["feasible"].all()  # caller's sigma: dpviz does not flag it
    assert any("theta~ = 0" in note for note in r.notes)
    with pytest.raises(ValueError, match="pidp_start"):
        S.simulate("pidp-sgd", ds, LS(), params={**p, "pidp_start": "minimiser"}, evaluate=())
    with pytest.raises(ValueError, match="zeta"):
        S.simulate("pidp-sgd", ds, LS(), params={k: val for k, val in p.items() if k != "zeta"}, evaluate=())
    with pytest.raises(ValueError, match="theta0"):
        S.simulate("pidp-sgd", ds, LS(), params={**p, "theta0": [1.0, 2.0, 3.0]}, evaluate=())


class MetricSq:
    """Pairwise metric-learning loss on a matrix W: f = ((x-x')^T W (x-x') - t)^2 / 2, t = 1 if labels differ."""

    setting = "pairwise"
    param = "matrix"
    alpha = 1.0

    def _parts(self, W, x, y, x2, y2):
        u = x - x2
        q = np.einsum("...i,...ij,...j->...", u, W, u)
        return u, q, (y != y2).astype(float)

    def value(self, W, x, y, x2=None, y2=None):
        u, q, t = self._parts(W, x, y, x2, y2)
        return 0.5 * (q - t) ** 2

    def grad(self, W, x, y, x2=None, y2=None):
        u, q, t = self._parts(W, x, y, x2, y2)
        return (q - t)[..., None, None] * u[..., :, None] * u[..., None, :]


def test_matrix_parameter_hand_trace_and_projection():
    # pair (0,1): u = [1,-1], q = 0, t = 1: grad = -[[1,-1],[-1,1]]; W2 = 0.1*[[1,-1],[-1,1]] (Frobenius norm 0.2)
    # output (W1 + W2)/2 = 0.05*[[1,-1],[-1,1]]; with R = 0.1, W2 is scaled to norm 0.1 -> output 0.025*[[1,-1],[-1,1]]
    X = np.eye(2)
    y = np.array([0.0, 1.0])
    ds = Dataset("m", X, y, X, y, "multiclass")
    B = np.array([[1.0, -1.0], [-1.0, 1.0]])
    kw = dict(reps=1, indices=lambda t: (np.full((1, 1), t), np.full((1, 1), 1 - t)),
              noise=lambda t: np.zeros((1, 1, 2, 2)))
    r = S.simulate("dpsgd-rdp-pairwise", ds, MetricSq(), params={"T": 2, "eta": 0.1, "sigma": 1.0}, **kw)
    assert r.outputs.shape == (1, 1, 2, 2)
    np.testing.assert_allclose(r.outputs[0, 0], 0.05 * B)
    assert np.isfinite(r.frame["emp_risk"]).all() and "metric" not in r.frame.columns
    r = S.simulate("dpsgd-rdp-pairwise", ds, MetricSq(), params={"T": 2, "eta": 0.1, "sigma": 1.0, "R": 0.1},
                   evaluate=(), **kw)
    np.testing.assert_allclose(r.outputs[0, 0], 0.025 * B)


def test_auc_by_hand():
    # scores [0.1, 0.4, 0.35, 0.8], labels [-1, -1, 1, 1]: positive > negative in (0.35 > 0.1), (0.8 > 0.1),
    # (0.8 > 0.4) but not (0.35 > 0.4): AUC = 3/4; a tie counts 1/2: scores [0.1, 0.4, 0.4, 0.8] -> 3.5/4
    y = np.array([-1.0, -1.0, 1.0, 1.0])
    assert S._auc(np.array([[0.1, 0.4, 0.35, 0.8], [0.1, 0.4, 0.4, 0.8]]), y) == pytest.approx([0.75, 0.875])


def test_full_pairwise_gradient_dpgd_c_and_laplace_output(monkeypatch):
    # pairs (0,1) and (1,0) of tiny(): both losses are (<w,[1,-1]> + 1)^2 / 2, mean gradient (<w,[1,-1]> + 1)[1,-1]
    # (the i = j terms are excluded). eta = 0.1: w0 = 0 -> grad [1,-1] -> w1 = [-0.1, 0.1];
    # <w1,[1,-1]> = -0.2 -> grad 0.8*[1,-1] -> w2 = [-0.18, 0.18]
    r = S.simulate("dpgd-c", tiny(), PairLS(), reps=1, params={"T": 2, "eta": 0.1, "sigma": 1.0},
                   noise=lambda t: np.zeros((1, 1, 2)), evaluate=())
    assert r.outputs[0, 0] == pytest.approx([-0.28 / 3, 0.28 / 3])  # average of w0, w1, w2 (xue-pairwise Algorithm 2)
    # DPGD-SC (xue-pairwise Algorithm 1) with delta = 0: last iterate + Laplace(lambda) noise; lambda = 0.5, z = [1, 1]:
    # [-0.18 + 0.5, 0.18 + 0.5] = [0.32, 0.68]
    from dpviz.theory import catalog

    real_get = catalog.get_algorithm
    monkeypatch.setattr(catalog, "calibrate",
                        lambda aid, **p: catalog.Calibration(id=aid, feasible=True, laplace_scale=0.5, T=2, eta=0.1))
    monkeypatch.setattr(catalog, "get_algorithm",
                        lambda aid: real_get("gd") if aid == "dpgd-sc" else real_get(aid))
    # PairLS is not strongly convex: DPGDSC needs mu given and acknowledged (allow_nonprivate), marked not private
    r = S.simulate("dpgd-sc", tiny(), PairLS(), reps=1,
                   params={"eps": 1.0, "delta": 0.0, "mu": 1.0, "allow_nonprivate": True},
                   output_noise=np.array([[[1.0, 1.0]]]), evaluate=())
    assert r.outputs[0, 0] == pytest.approx([0.32, 0.68])
    assert not r.frame["feasible"].any()


class ZeroPair(Zero):
    setting = "pairwise"


def test_dp_epoch_gd_laplace_variant_noise():
    # delta = 0 variant of Algorithm 3 (xue-pairwise): Laplace noise Lap(b_i) on each epoch average, b_i = 4 G eta_i sqrt(d)/eps
    # with eta_i = 4^-i eta.  n = 16 -> k = 4 epochs; G = eta = d = eps = 1: b = [1, 1/4, 1/16, 1/64].
    # With a zero loss every iterate equals the previous epoch's output, so w_k = sum_i b_i z_i, z_i ~ Lap(1) and
    # Var(w_k) = 2 * sum_i b_i^2 = 2 * (1 + 1/16 + 1/256 + 1/4096) = 2.13330078125.
    X = np.linspace(-1, 1, 16)[:, None]
    y = np.where(X[:, 0] > 0, 1.0, -1.0)
    ds = Dataset("line", X, y, X.copy(), y.copy(), "classification")
    r = S.simulate("dp-epoch-gd", ds, ZeroPair(), reps=20000, seed=1,
                   params={"eps": 1.0, "delta": 0.0, "eta": 1.0, "G": 1.0}, evaluate=())
    out = r.outputs[0, :, 0]
    assert r.calibrations[0].extras["laplace_schedule"] == pytest.approx([1, 0.25, 0.0625, 0.015625])
    assert np.var(out) == pytest.approx(2 * (1 + 1 / 16 + 1 / 256 + 1 / 4096), rel=0.05)
    # Laplace, not Gaussian: excess kurtosis of the sum is far from 0 (Lap(1) alone has 3)
    k = np.mean((out - out.mean()) ** 4) / np.var(out) ** 2 - 3
    assert k > 1.5


def test_noise_rule_of_the_papers_experiments():
    # wang-lownoise Section 5.1: beta minimising sigma^2 = 14 G^2 T/(beta n^2 eps) (log(1/delta)/((1-beta) eps) + 1) over (0, 1)
    # without Theorem 2's conditions.  With b = log(1/delta)/eps + 1, d/dbeta [1/beta (b - 1)/(1 - beta) + 1/beta] = 0
    # gives beta* = 1/(1 + sqrt(1 - 1/b)).  n = 2, eps = 1, delta = 1/4, T = 3, G = 1: b = log 4 + 1 = 2.3863,
    # beta* = 1/(1 + sqrt(1 - 1/2.3863)) = 0.5675, sigma^2 = 14*3/(0.5675*4) * (log 4/0.4325 + 1) = 65.95.
    b = math.log(4) + 1
    beta = 1 / (1 + math.sqrt(1 - 1 / b))
    sigma = math.sqrt(14 * 3 / (beta * 4) * (math.log(4) / (1 - beta) + 1))
    r = S.simulate("dpsgd-rdp", tiny(), LS(), reps=2, evaluate=(),
                   params={"T": 3, "eta": 0.1, "eps": 1.0, "delta": 0.25, "G": 1.0, "noise_rule": "experiment"})
    cal = r.calibrations[0]
    assert cal.sigma == pytest.approx(sigma, rel=1e-6)
    assert not cal.feasible and np.all(np.isfinite(r.outputs))
    # the calibrated rule at the same point: no feasible beta for n = 2, so nothing runs
    r2 = S.simulate("dpsgd-rdp", tiny(), LS(), reps=2, evaluate=(),
                    params={"T": 3, "eta": 0.1, "eps": 1.0, "delta": 0.25, "G": 1.0})
    assert np.all(np.isnan(r2.outputs)) and r2.calibrations[0].sigma is None
    with pytest.raises(ValueError, match="noise_rule"):
        S.simulate("dpsgd-rdp", tiny(), LS(), params={"T": 3, "eta": 0.1, "eps": 1.0, "G": 1.0, "noise_rule": "x"})


def test_grid_with_infeasible_points_runs_the_feasible_ones():
    # n = 200, T = 30, delta = 1/n^2: Theorem 2 of Wang, Lei, Ying & Zhou has no feasible beta at eps = 0.25, but
    # has one at eps = 4; the infeasible point is skipped (NaN) and must not disturb the others
    from dpviz.engine import data as D

    ds = D.load_dataset("wang-least-squares", n=1000)
    r = S.simulate("dpsgd-rdp", ds, LS(), grid={"eps": [0.25, 4.0]}, reps=5, seed=0,
                   params={"T": 30, "eta": 0.01, "R": 1.0, "n": 200, "G": 2.0})
    assert [c.feasible for c in r.calibrations] == [False, True]
    assert np.all(np.isnan(r.outputs[0])) and np.all(np.isfinite(r.outputs[1]))
    assert any("not run" in note for note in r.notes)


def test_slope_leaves_out_points_that_did_not_run():
    from dpviz.engine import data as D

    ds = D.load_dataset("wang-least-squares", n=1000)
    r = S.simulate("dpsgd-rdp", ds, LS(), grid={"eps": [0.25, 2.0, 4.0]}, reps=5, seed=0,
                   params={"T": 30, "eta": 0.01, "R": 1.0, "n": 200, "G": 2.0})
    s = r.summary()
    assert math.isnan(s["mean"].iloc[0])
    sl = r.slope()
    assert sl["k"] == 2
    # two points: slope = log(m2/m1)/log(4/2)
    m = s["mean"].to_numpy()
    assert sl["slope"] == pytest.approx(math.log(m[2] / m[1]) / math.log(2.0))


def test_pairwise_output_perturbation_projects_the_noisy_output():
    # yang-pairwise Algorithm 2: w_priv = Proj_W(w_bar_T + u).  Same path as the history trace above ((w1+w2+w3)/3 =
    # [-0.08, 0.08]), sigma = 1 and injected u = [3, 4]: w_bar + u = [2.92, 4.08] with norm 5.0173...; R = 1 projects
    # it to [2.92, 4.08]/5.0173 = [0.58199, 0.81319].  Without R there is no projection.
    seq = [0, 1, 0, 1]
    kw = dict(reps=1, indices=lambda t: np.full((1, 1), seq[t]), output_noise=np.array([[[3.0, 4.0]]]), evaluate=())
    r = S.simulate("pairwise-sgd-output", tiny(), PairLS(), params={"T": 3, "eta": 0.1, "sigma": 1.0}, **kw)
    assert r.outputs[0, 0] == pytest.approx([2.92, 4.08])
    r = S.simulate("pairwise-sgd-output", tiny(), PairLS(), params={"T": 3, "eta": 0.1, "sigma": 1.0, "R": 1.0}, **kw)
    norm = math.hypot(2.92, 4.08)
    assert r.outputs[0, 0] == pytest.approx([2.92 / norm, 4.08 / norm])


def test_gradient_evaluations_per_update_rule():
    # one per SGD step; yang-pairwise Algorithm 1 averages over t pairs at step t: T(T+1)/2 = 10*11/2; full pairwise gradient
    # n(n-1) per step: 3 steps * 5*4; DP epoch GD with n = 8: blocks of 4, 2 and 2 examples (k = 3), each run for
    # as many steps as it has examples: 4*4*3 + 2*2*1 + 2*2*1 = 56
    assert S.gradient_evaluations("dpsgd-rdp", n=100, T=7) == 7
    assert S.gradient_evaluations("pairwise-sgd", n=100, T=10) == 55
    assert S.gradient_evaluations("dpgd-c", n=5, T=3) == 60
    assert S.gradient_evaluations("gd", n=5, T=3) == 15
    assert S.gradient_evaluations("dp-epoch-gd", n=8, T=8) == 56
    with pytest.raises(ValueError):
        S.gradient_evaluations("nope", n=5, T=3)


def test_dpgdc_algorithm4_average_of_w1_to_wT():
    # xue-pairwise Algorithm 4 on tiny() with the pairwise square loss: w1 = [-0.1, 0.1], w2 = [-0.18, 0.18]
    # (trace of test_full_pairwise_gradient_dpgd_c_and_laplace_output); output (w1 + w2)/2 = [-0.14, 0.14] + noise,
    # here sigma = 0
    r = S.simulate("dpgdc", tiny(), PairLS(), reps=1, params={"T": 2, "eta": 0.1, "sigma": 0.0}, evaluate=())
    assert r.outputs[0, 0] == pytest.approx([-0.14, 0.14])
    # with the calibration (delta > 0): the released sigma is the analytic-Gaussian one and the run is seeded
    p = {"T": 2, "eta": 0.1, "eps": 1.0, "delta": 1e-5, "G": 1.0, "d": 2}
    a = S.simulate("dpgdc", tiny(), PairLS(), reps=2, seed=3, params=p, evaluate=())
    b = S.simulate("dpgdc", tiny(), PairLS(), reps=2, seed=3, params=p, evaluate=())
    assert np.array_equal(a.outputs, b.outputs)
    assert a.calibrations[0].sigma == pytest.approx(catalog.calibrate("dpgdc", n=2, **p).sigma)


def test_estimate_skips_the_comparison_accountant_and_is_unchanged(monkeypatch):
    """DP-SGD's calibration also computes a numerical accountant's σ for comparison, which no run uses: the estimate
    (Simulate's run plan) skips it -- same seconds, units and steps as with it (issue 33: an ε-grid edit's plan took
    0.55 s of CPU, most of it in that accountant)."""
    from dpviz.engine import data as D, losses
    from dpviz.theory.papers.wang_lownoise import calibration as wl

    ds = D.load_dataset("wang-logistic", n=400, kappa=0.0)
    loss = losses.get_loss("logistic")
    base = dict(n=400, delta=1 / 400**2, T=1000, eta=0.01, R=1.0, G=1.0)
    grid = {"eps": [0.25, 1.0, 8.0]}
    with_acc = S.estimate_cost("dpsgd-rdp", ds, loss, grid=grid, reps=3, params={**base, "accountant_extra": True})

    def no_accountant(**_kw):
        raise AssertionError("the estimate asked for the comparison accountant")

    monkeypatch.setattr(wl, "accountant_sigma", no_accountant)
    assert S.estimate_cost("dpsgd-rdp", ds, loss, grid=grid, reps=3, params=base) == with_acc
    assert with_acc["steps"] == 1000 and with_acc["chains"] == 3 * 3
