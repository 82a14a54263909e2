"""Audit of metric learning (matrix parameters), of PIDP-SGD, and the matched accountant's ε for every algorithm."""

import math

import numpy as np
import pytest

from dpviz.labs import canary_audit as A


def test_metric_learning_audit_statistic_uWu():
    # non-private pairwise SGD on metric learning: the statistic u^T W u tells D from D' (canary along u)
    ds, loss, p = A.default_setting("pairwise-sgd", {"n": 30, "T": 30}, matrix=True)
    assert loss == "metric-logistic"
    r = A.audit("pairwise-sgd", ds, loss, params=p, trials=600, seed=1)
    assert r.eps_claimed is None and r.eps_lower > 1.0
    assert r.eps_accountant is None and "non-private" in r.accountant_note
    assert any("u^T W u" in s for s in r.notes)
    on_d, on_d2 = r.samples["output"]
    assert on_d.shape == (300,) and np.all(np.isfinite(on_d))
    # u^T W u of a PSD-projected W (Xue et al.'s set for DPGDC2) is >= 0; same seed, same numbers
    ds, loss, p = A.default_setting("dpgd-c", {"n": 12, "T": 8}, matrix=True)
    r = A.audit("dpgd-c", ds, loss, params=p, trials=200, seed=2)
    r2 = A.audit("dpgd-c", ds, loss, params=p, trials=200, seed=2)
    assert r.eps_lower <= r.eps_claimed == 1.0
    assert r.eps_accountant == pytest.approx(1.0, rel=1e-6)  # calibrated by the exact analytic Gaussian mechanism
    d1, d2 = r.to_dict(), r2.to_dict()
    d1.pop("seconds"), d2.pop("seconds")
    assert d1 == d2
    with pytest.raises(ValueError, match="pointwise"):
        A.default_setting("dpsgd-rdp", {"n": 30}, matrix=True)


def test_pidp_sgd_audit_and_its_accountant_includes_the_contribution():
    ds, loss, p = A.default_setting("pidp-sgd", {"n": 30, "T": 30})
    r = A.audit("pidp-sgd", ds, loss, params=p, trials=400, seed=0)
    assert r.eps_claimed == 1.0 and r.eps_lower <= 1.0
    assert "contribution" in r.accountant_note and "basic composition" in r.accountant_note
    # the matched RDP accountant of the training noise at (eps1, delta1) plus the contribution's eps at delta2
    from dpviz.labs import privacy_lab as L

    run_params = dict(p)
    mech = L.mechanism("pidp-sgd", **{k: x for k, x in _params(ds, loss, p).items() if x is not None})
    train = L.epsilon(mech, L.accountants(mech)[0], r.sigma)
    assert r.eps_accountant == pytest.approx(train + mech.extras["contribution"]["eps_of_paper_sigma_c"])
    assert run_params == p


def _params(ds, loss, p):
    from dpviz.engine import simulate as S

    return S._plan("pidp-sgd", ds, loss, None, 2, p)[9][0]["cal"].extras["_params"]


def test_accountant_by_hand_for_dpgdc_and_reasons_when_there_is_none():
    # DPGDC (Xue et al. Algorithm 4): one Gaussian release, sensitivity 4 eta G T/n.  AUC square loss:
    # G = 4 k (1 + 2 k R), L = 8 k^2 (R = 1), eta = 2/L (the default).  With sigma = Delta the privacy loss is that
    # of N(0,1) vs N(1,1): the exact delta(eps) = Phi(1/2 - eps) - e^eps Phi(-1/2 - eps) = 0.01 at eps = 2.3178
    # (Balle & Wang 2018; the same number as in test_audit.py)
    ds, loss, p = A.default_setting("dpgdc", {"n": 20, "T": 10, "delta": 0.01})
    k = float(np.max(np.linalg.norm(ds.X, axis=1)))
    G, L = 4 * k * (1 + 2 * k), 8 * k**2
    Delta = 4 * (2 / L) * G * 10 / 20
    r = A.audit("dpgdc", ds, loss, params={**p, "sigma": Delta}, trials=100, seed=0)
    assert r.eps_claimed is None  # sigma set by hand
    assert r.eps_accountant == pytest.approx(2.3178, abs=1e-3)
    # Laplace (delta = 0): no Gaussian accountant, and the page says why
    ds, loss, p = A.default_setting("dpgdc", {"n": 20, "T": 10, "delta": 0.0})
    r = A.audit("dpgdc", ds, loss, params=p, trials=100, seed=0)
    assert r.eps_accountant is None and "Laplace" in r.accountant_note


@pytest.mark.parametrize("alg", ["dpsgd-rdp", "dpsgd-rdp-pairwise", "dpsgd-pl", "dpsgd-output", "pairwise-sgd-output",
                                 "dpgd-sc", "dpgd-c", "dpgdc", "dp-epoch-gd", "pidp-sgd"])
def test_every_private_algorithm_has_a_finite_accountant_eps(alg):
    extra = {"noise_rule": "experiment"} if alg in ("dpsgd-rdp", "dpsgd-rdp-pairwise") else {}
    ds, loss, p = A.default_setting(alg, {"n": 16, "T": 16, **extra})
    r = A.audit(alg, ds, loss, params=p, trials=40, seed=0)
    assert r.eps_accountant is not None and 0 < r.eps_accountant < math.inf, r.accountant_note
    assert r.accountant_note.startswith("matched")
