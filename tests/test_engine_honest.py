"""Engine items of issue 9 ("Honest numbers"): strong convexity for DPGDSC, constraint sets of metric learning,
excess risk over W, PIDP-SGD's start / Hessian / noisy fraction, DPEGD's average (in test_simulate), notes that say
which rule produced sigma and whether it is private, NaN sigma for points that did not run, chi from the data."""
import math

import numpy as np
import pytest

from dpviz.engine import data as D
from dpviz.engine import simulate as S
from dpviz.engine.data import Dataset
from dpviz.engine.losses import get_loss


def two(n=12):
    return D.load_dataset("two-class", n=n, n_test=60, seed=4)


# ---------------------------------------------------------------------------------------------------------------
# DPGDSC needs strong convexity (Xue, Yang, Huai & Wang, Assumption 1, Lemma 1)


def test_dpgd_sc_refuses_a_loss_that_is_not_strongly_convex():
    with pytest.raises(ValueError, match="strongly convex.*l2=1e-3"):
        S.simulate("dpgd-sc", two(), "auc-logistic", reps=1, params={"eps": 1.0, "R": 1.0}, evaluate=())
    # a caller's mu on a plain loss: refused unless acknowledged
    with pytest.raises(ValueError, match="allow_nonprivate"):
        S.simulate("dpgd-sc", two(), "auc-logistic", reps=1, params={"eps": 1.0, "R": 1.0, "mu": 0.1}, evaluate=())
    r = S.simulate("dpgd-sc", two(), "auc-logistic", reps=1, evaluate=(),
                   params={"eps": 1.0, "R": 1.0, "mu": 0.1, "allow_nonprivate": True})
    assert np.all(np.isfinite(r.outputs)) and not r.frame["feasible"].any()
    assert not r.calibrations[0].feasible and "not (eps, delta)-DP" in r.calibrations[0].reason
    assert any("NOT private" in note for note in r.notes)


def test_dpgd_sc_takes_mu_from_the_l2_regulariser():
    # Xue et al. Section 5: lambda = 1e-3 for AUC -> mu = 2 lambda = 2e-3 (lambda ||w||^2 has Hessian 2 lambda I)
    loss = get_loss("auc-logistic", l2=1e-3)
    r = S.simulate("dpgd-sc", two(), loss, reps=1, params={"eps": 1.0, "R": 1.0, "T": 2}, evaluate=())
    p = r.calibrations[0].extras["_params"]
    assert p["mu"] == pytest.approx(2e-3)
    # kappa = max ||x|| (<= 1), R = 1: G = 4 kappa sig(4 kappa) + 2 lambda R, L = 4 kappa^2 + 2 lambda
    k = two().x_bound
    assert p["G"] == pytest.approx(4 * k / (1 + math.exp(-4 * k)) + 2e-3)
    assert p["L"] == pytest.approx(4 * k**2 + 2e-3)
    assert r.frame["feasible"].all() and np.all(np.isfinite(r.outputs))
    # a caller's mu at most the loss's is fine (conservative); above it needs the acknowledgement
    r = S.simulate("dpgd-sc", two(), loss, reps=1, params={"eps": 1.0, "R": 1.0, "T": 2, "mu": 1e-3}, evaluate=())
    assert r.frame["feasible"].all()
    with pytest.raises(ValueError, match="guarantees only mu = 0.002"):
        S.simulate("dpgd-sc", two(), loss, reps=1, params={"eps": 1.0, "R": 1.0, "mu": 0.5}, evaluate=())


def test_plain_loss_mu_is_not_passed_as_a_pl_constant():
    # every loss reports mu (0 for plain losses); DP-SGD-PL's PL constant must not become 0 because of it
    ds = D.load_dataset("wang-least-squares", n=200, n_test=200)
    p = {"eps": 1.0, "R": 1.0, "c": 1.0}  # c: eq. (2) of Kang et al. instead of the (slower) accountant
    r = S.simulate("dpsgd-pl", ds, "least-squares", reps=2, params=p, evaluate=())
    assert "mu" not in r.calibrations[0].extras["_params"]
    r = S.simulate("dpsgd-pl", ds, get_loss("least-squares", l2=0.05), reps=2, params=p, evaluate=())
    assert r.calibrations[0].extras["_params"]["mu"] == pytest.approx(0.1)


# ---------------------------------------------------------------------------------------------------------------
# constraint sets of metric learning


def _metric_pair(same):
    X = np.eye(2)
    y = np.array([1.0, 1.0]) if same else np.array([1.0, -1.0])
    return Dataset("m", X, y, X.copy(), y.copy(), "classification")


def test_metric_projection_psd_vs_frobenius_by_hand():
    # two examples e1, e2 of the same class: u = +-(e1 - e2), tau = +1; metric hinge (1 + h)_+ at W = 0 has
    # subgradient u u^T = [[1, -1], [-1, 1]] for both ordered pairs.  DPGD-C with eta = 1, T = 1, sigma = 0:
    # W_1 = Proj(-[[1, -1], [-1, 1]]) (eigenvalues -2, 0).
    #   PSD, ||W||_F <= 1 (Xue et al., Example 1; the default for their algorithms): clip -> 0; output (W_0 + W_1)/2 = 0
    #   Frobenius ball R = 1: ||.||_F = 2 -> -[[0.5, -0.5], [-0.5, 0.5]]; output -[[0.25, -0.25], [-0.25, 0.25]]
    ds = _metric_pair(same=True)
    p = {"T": 1, "eta": 1.0, "sigma": 0.0, "R": 1.0}
    r = S.simulate("dpgd-c", ds, "metric-hinge", reps=1, params=p, evaluate=())
    np.testing.assert_allclose(r.outputs[0, 0], np.zeros((2, 2)), atol=1e-15)
    assert any("positive semi-definite" in note for note in r.notes)
    r = S.simulate("dpgd-c", ds, "metric-hinge", reps=1, params={**p, "constraint": "frobenius"}, evaluate=())
    np.testing.assert_allclose(r.outputs[0, 0], -0.25 * np.array([[1.0, -1.0], [-1.0, 1.0]]), atol=1e-15)
    # different classes: tau = -1, subgradient -u u^T; W_1 = Proj([[1, -1], [-1, 1]]) (eigenvalues 2, 0): PSD,
    # rescaled to ||.||_F = 1 -> [[0.5, -0.5], [-0.5, 0.5]] by either set; nuclear ball (singular values 2, 0 ->
    # 1, 0): the same matrix
    ds = _metric_pair(same=False)
    for kind in ("psd-frobenius", "frobenius", "nuclear"):
        r = S.simulate("dpgd-c", ds, "metric-hinge", reps=1, params={**p, "constraint": kind}, evaluate=())
        np.testing.assert_allclose(r.outputs[0, 0], 0.25 * np.array([[1.0, -1.0], [-1.0, 1.0]]), atol=1e-15)
    with pytest.raises(ValueError, match="does not fit"):
        S.simulate("dpgd-c", ds, "metric-hinge", reps=1, params={**p, "constraint": "l2"}, evaluate=())
    with pytest.raises(ValueError, match="unknown constraint set"):
        S.simulate("dpgd-c", ds, "metric-hinge", reps=1, params={**p, "constraint": "box"}, evaluate=())


def test_metric_runs_stay_in_the_papers_sets():
    ds = D.load_dataset("clusters", n=40, n_test=200, seed=2)
    # Yang et al. Algorithm 1 (pairwise SGD): nuclear-norm ball (Lemma 5); every averaged output inside it
    r = S.simulate("pairwise-sgd", ds, "metric-hinge", reps=3, params={"T": 30, "eta": 0.5, "R": 1.0}, evaluate=())
    nuc = np.linalg.svd(r.outputs[0], compute_uv=False).sum(axis=-1)
    assert np.all(nuc <= 1.0 + 1e-9) and any("nuclear" in note for note in r.notes)
    # Xue et al. DPGD-C (noisy steps): PSD with ||W||_F <= 1
    r = S.simulate("dpgd-c", ds, "metric-logistic", reps=3, params={"T": 5, "eta": 0.5, "R": 1.0, "sigma": 0.3},
                   evaluate=())
    W = r.outputs[0]
    np.testing.assert_allclose(W, np.swapaxes(W, -1, -2), atol=1e-12)
    assert np.all(np.linalg.eigvalsh(W)[:, 0] >= -1e-12)
    assert np.all(np.linalg.norm(W, axis=(-2, -1)) <= 1.0 + 1e-9)
    # chi of Yang et al. Lemma 5 is computed from the data for the theorems
    assert r.calibrations[0].extras["_params"]["chi"] == pytest.approx(D.metric_chi(ds.X_test))


# ---------------------------------------------------------------------------------------------------------------
# excess risk against the best risk over W


def test_excess_risk_is_measured_over_the_constraint_set():
    from dpviz.engine import reference

    bc = D.load_dataset("breast-cancer")
    r = S.simulate("sgd", bc, "logistic", reps=2, params={"T": 200, "eta": 1.0, "R": 1.0}, evaluate=("risk",))
    note = next(x for x in r.notes if x.startswith("excess risk"))
    assert "minimum over W" in note
    ref = float(r.frame["pop_risk"].iloc[0] - r.frame["excess_risk"].iloc[0])
    # the unconstrained fit of the held-out sample is ~0 (4.2e-9 in the issue); over ||w|| <= 1 the logistic risk
    # cannot go below log(1 + e^{-1}) = 0.313 on points with margin <= ||x|| <= 1
    assert ref >= math.log(1 + math.exp(-1)) - 1e-9
    assert r.frame["excess_risk"].min() > -1e-6
    Xp, yp, _, _ = S._eval_sample(bc, False, "test", 2000)
    assert ref == pytest.approx(reference.constrained_minimum(get_loss("logistic"), Xp, yp, pshape=(bc.d,),
                                                              R=1.0).value)
    # realizable least squares: w* (||w*|| = sqrt(0.4) = 0.632) lies in the ball of radius 1 -> F(w*) = 0;
    # with R = 0.5 it does not, and the reference is the constrained minimum (> 0)
    ls = D.load_dataset("wang-least-squares", n=100, n_test=500)
    r = S.simulate("sgd", ls, "least-squares", reps=1, params={"T": 10, "eta": 0.5, "R": 1.0}, evaluate=("risk",))
    assert any("F(w*)" in x for x in r.notes)
    r = S.simulate("sgd", ls, "least-squares", reps=1, params={"T": 10, "eta": 0.5, "R": 0.5}, evaluate=("risk",))
    ref = float(r.frame["pop_risk"].iloc[0] - r.frame["excess_risk"].iloc[0])
    assert ref > 1e-4 and any("minimum over W" in x for x in r.notes)


# ---------------------------------------------------------------------------------------------------------------
# PIDP-SGD: Hessian regularisation (Kang et al. Remark 5), lambda_min >= zeta, noisy fraction


def test_regularised_hessian_by_hand():
    # lambda_min = 0.05 < zeta = 0.1: H + 0.1 I = diag(0.15, 2.1); diag(0.5, 1): kept; diag(-1, 1): H + zeta I has
    # lambda_min = -0.9 < zeta: the premise of the sensitivity 2G/(n zeta) fails
    H = np.array([np.diag([0.05, 2.0]), np.diag([0.5, 1.0]), np.diag([-1.0, 1.0])])
    Hu, reg, ok = S._regularised_hessian(H, 0.1)
    np.testing.assert_allclose(Hu[0], np.diag([0.15, 2.1]))
    np.testing.assert_allclose(Hu[1], np.diag([0.5, 1.0]))
    np.testing.assert_allclose(Hu[2], np.diag([-0.9, 1.1]))
    assert reg.tolist() == [True, False, True] and ok.tolist() == [True, True, False]


class _LS:
    setting, param, alpha = "pointwise", "vector", 1.0

    def value(self, w, x, y, x2=None, y2=None):
        return 0.5 * (np.sum(w * x, axis=-1) - y) ** 2

    def grad(self, w, x, y, x2=None, y2=None):
        return (np.sum(w * x, axis=-1) - y)[..., None] * x


class _Concave(_LS):
    def value(self, w, x, y, x2=None, y2=None):
        return -super().value(w, x, y)

    def grad(self, w, x, y, x2=None, y2=None):
        return -super().grad(w, x, y)


def test_pidp_hessian_regularisation_in_the_engine():
    # X = I, y = [1, 0.001], n = 2: H = diag(1/2, 1/2).  zeta = 1 > 1/2: H + I = diag(3/2, 3/2), H^{-1} = 2/3 I.
    # step 1 (z_0, theta = 0): grad = [-1, 0], c = (2/3)[-1, 0]/2 = [-1/3, 0], c_t = 2c = [-2/3, 0]: |c| >= A/(e-1)
    # = 0.003164 -> noisy: w = -0.1 ([-1, 0] + 0.5 [1, 1]) = [0.05, -0.05]
    # step 2 (z_1): grad at theta^(g) = 0 is [0, -0.001]: c = (2/3)[0, -0.001]/2, c_t = [0, -0.000667] < 0.003164
    #   and ln(A/(A - (e-1) 0.000667)) = ln(0.0054366/0.0042907) = 0.2367 <= 2: plain step with the local gradient
    #   (-0.05 - 0.001)[0, 1]: w = [0.05, -0.05 + 0.0051] = [0.05, -0.0449] -- the same path as with H^{-1} = 2I
    X = np.eye(2)
    y = np.array([1.0, 0.001])
    ds = Dataset("p", X, y, X, y, "regression")
    p = dict(T=2, rounds=1, T_local=2, eta=0.1, sigma=0.5, sigma_c=0.0, eps1=1.0, delta1=1e-3, r=1.0, E=0.0, zeta=1.0)
    kw = dict(reps=1, indices=lambda t: np.full((1, 1), t), noise=lambda t: np.ones((1, 1, 2)), evaluate=())
    r = S.simulate("pidp-sgd", ds, _LS(), params=p, **kw)
    assert r.outputs[0, 0] == pytest.approx([0.05, -0.0449], abs=1e-9)
    assert r.frame["hessian_regularised"].iloc[0] == 1.0 and r.frame["noisy_fraction"].iloc[0] == 0.5
    assert r.frame["feasible"].all() and any("Remark 5" in note for note in r.notes)
    r = S.simulate("pidp-sgd", ds, _LS(), params=dict(p, zeta=0.1), **kw)
    assert r.frame["hessian_regularised"].iloc[0] == 0.0
    # a concave loss: H = -I/2, H + zeta I = -0.4 I: lambda_min < zeta, the run is marked not private
    r = S.simulate("pidp-sgd", ds, _Concave(), params=dict(p, zeta=0.1), **kw)
    assert not r.frame["feasible"].any() and not r.calibrations[0].feasible
    assert any("not positive semi-definite" in note for note in r.notes)


def test_pidp_says_when_every_step_got_noise():
    # E = 1 enlarges every contribution above the threshold: noisy fraction 1.0, and the notes say so
    X = np.eye(2)
    y = np.array([1.0, 0.001])
    ds = Dataset("p", X, y, X, y, "regression")
    p = dict(T=4, rounds=2, T_local=2, eta=0.1, sigma=0.5, sigma_c=0.0, eps1=1.0, delta1=1e-3, r=1.0, E=1.0,
             zeta=0.1)
    r = S.simulate("pidp-sgd", ds, _LS(), reps=3, params=p, evaluate=())
    assert (r.frame["noisy_fraction"] == 1.0).all()
    assert any("noisy fraction 1.0" in note and "never skipped the noise" in note for note in r.notes)


# ---------------------------------------------------------------------------------------------------------------
# notes: which rule produced sigma and whether it is private; points that did not run have no sigma


def test_notes_name_the_noise_rule_and_privacy():
    ds = D.load_dataset("wang-least-squares", n=1000, n_test=200)
    base = {"T": 30, "eta": 0.01, "R": 1.0, "n": 200, "G": 2.0}
    # eps = 0.25 has no feasible beta (Theorem 2 of Wang, Lei, Ying & Zhou), eps = 4 has one
    r = S.simulate("dpsgd-rdp", ds, "least-squares", grid={"eps": [0.25, 4.0]}, reps=2, params=base, evaluate=())
    assert np.isnan(r.frame.loc[r.frame.grid == 0.25, "sigma"]).all()  # not run: no sigma, not 0
    assert (r.frame.loc[r.frame.grid == 4.0, "sigma"] > 0).all()
    skipped = [x for x in r.notes if "eps = 0.25 was not run: " in x]
    # a sentence a student can act on: why, what would fix it, and what the empty row means (not "sigma is NaN")
    assert skipped and skipped[0].endswith("(NaN).") and ". Increase eps to at least" in skipped[0]
    assert "no noise level exists there" in skipped[0].lower() and "sigma is NaN" not in skipped[0]
    assert any("eps = 4: sigma =" in x and "theorem's calibration; private per the theorem" in x for x in r.notes)
    # the papers' experimental rule: never "ran although the calibration is infeasible"; it says which rule and
    # whether that sigma is private per the theorem
    r = S.simulate("dpsgd-rdp", ds, "least-squares", grid={"eps": [0.25, 4.0]}, reps=2, evaluate=(),
                   params={**base, "noise_rule": "experiment"})
    assert not any("ran although" in x for x in r.notes)
    exp = [x for x in r.notes if "noise rule of the paper's experiments" in x]
    assert len(exp) == 2 and all("NOT private per the theorem" in x or "private per the theorem" in x for x in exp)
    assert "NOT private" in next(x for x in exp if "eps = 0.25" in x)
    # caller's sigma: privacy not checked
    r = S.simulate("dpsgd-rdp", ds, "least-squares", reps=1, params={**base, "sigma": 0.5}, evaluate=())
    assert any("sigma = 0.5 from the caller" in x and "not checked" in x for x in r.notes)


def test_experiment_rule_is_private_when_it_equals_the_calibrated_sigma():
    # if the sigma-minimising beta over (0, 1) already meets the theorem's conditions, the two rules give the same
    # sigma and the experimental one is private
    from dpviz.theory import catalog

    ds = D.load_dataset("wang-least-squares", n=1000, n_test=200)
    base = {"T": 30, "eta": 0.01, "R": 1.0, "n": 1000, "G": 2.0, "eps": 4.0}
    r_cal = S.simulate("dpsgd-rdp", ds, "least-squares", reps=1, params=base, evaluate=())
    r_exp = S.simulate("dpsgd-rdp", ds, "least-squares", reps=1, params={**base, "noise_rule": "experiment"},
                       evaluate=())
    c, e = r_cal.calibrations[0], r_exp.calibrations[0]
    assert e.sigma <= c.sigma * (1 + 1e-12)  # the experiment's minimum is over a larger set of beta
    assert e.feasible == (e.sigma >= c.sigma * (1 - 1e-12))
    assert isinstance(catalog.calibrate("dpsgd-rdp", n=1000, d=10, eps=4.0, delta=1e-6, T=30, eta=0.01, G=2.0),
                      catalog.Calibration)
