"""Empirical privacy audit and measured stability (issue 11): formulas by hand, Gaussian mechanism, CLI contract."""

import json
import math

import numpy as np
import pytest

from dpviz.labs import canary_audit as A
from dpviz.labs import stability as St
from dpviz.engine import simulate as S
from dpviz.cli.commands import main


def test_clopper_pearson_by_hand():
    # k = 0 of m = 10 at 95 %: hi = 1 - 0.025^(1/10) = 1 - exp(ln(0.025)/10) = 1 - exp(-0.368888) = 0.308497
    lo, hi = A.clopper_pearson(0, 10)
    assert lo == 0.0 and hi == pytest.approx(0.308497, abs=1e-6)
    # k = m = 10: lo = 0.025^(1/10) = 0.691503, hi = 1
    lo, hi = A.clopper_pearson(10, 10)
    assert lo == pytest.approx(0.691503, abs=1e-6) and hi == 1.0
    with pytest.raises(ValueError):
        A.clopper_pearson(11, 10)
    with pytest.raises(ValueError):
        A.clopper_pearson(1, 10, level=1.2)


def test_eps_from_rates_and_max_certifiable_by_hand():
    # fpr = 0.01, fnr = 0.5, delta = 0: max(log(0.5/0.01), log(0.99/0.5)) = log 50 = 3.912023
    assert A.eps_from_rates(0.01, 0.5, 0.0) == pytest.approx(math.log(50))
    # with delta = 0.1: log((1 - 0.1 - 0.5)/0.01) = log 40
    assert A.eps_from_rates(0.01, 0.5, 0.1) == pytest.approx(math.log(40))
    assert A.eps_from_rates(0.6, 0.6, 0.0) == 0.0  # a useless test certifies nothing
    # m = 1000, no error: u = 1 - 0.025^(1/1000) = 1 - exp(-0.00368888) = 0.00368209; log((1-u)/u) = log(270.58)
    assert A.max_certifiable(1000, 0.0) == pytest.approx(math.log((1 - 0.00368209) / 0.00368209), rel=1e-4)


def test_gaussian_mechanism_audits_below_and_near_its_true_eps():
    # Gaussian mechanism with sensitivity 1 and sigma = 1 (mu = 1).  Its exact delta(eps) (Balle & Wang 2018) is
    # Phi(-eps + 1/2) - e^eps Phi(-eps - 1/2); at delta = 0.01 this gives eps = 2.3178 (solved below).
    from scipy.optimize import brentq
    from scipy.stats import norm

    delta = 0.01
    true = brentq(lambda e: norm.cdf(-e + 0.5) - math.exp(e) * norm.cdf(-e - 0.5) - delta, 0, 20)
    assert true == pytest.approx(2.3178, abs=1e-3)
    rng = np.random.default_rng(0)
    m = 50_000  # 10^5 trials: half without, half with the example
    res = A.distinguish(rng.standard_normal(m), 1.0 + rng.standard_normal(m), delta=delta)
    assert 0.7 * true <= res["eps_lower"] <= true
    assert res["m"] == 25_000


def _setting(alg, **p):
    return A.default_setting(alg, p)


def test_non_private_sgd_audits_far_above_zero_and_same_seed_same_numbers():
    ds, loss, p = _setting("sgd", n=50)
    r = A.audit("sgd", ds, loss, params=p, trials=2000, seed=3)
    assert r.eps_claimed is None and r.eps_lower > 1.5
    r2 = A.audit("sgd", ds, loss, params=p, trials=2000, seed=3)
    d1, d2 = r.to_dict(), r2.to_dict()
    d1.pop("seconds"), d2.pop("seconds")
    assert d1 == d2


def test_private_dpsgd_audit_stays_below_claim():
    # the paper's experimental noise rule at n = 100, eps = 1: the audit must not certify more than eps = 1
    ds, loss, p = _setting("dpsgd-rdp", eps=1.0, noise_rule="experiment")
    r = A.audit("dpsgd-rdp", ds, loss, params=p, trials=4000, seed=1)
    assert r.eps_claimed == 1.0 and r.eps_lower <= 1.0
    assert r.eps_accountant is not None and r.eps_accountant > 0
    with pytest.raises(ValueError, match="does not run"):  # the calibration is infeasible at n = 100
        A.audit("dpsgd-rdp", ds, loss, params={k: x for k, x in p.items() if k != "noise_rule"}, trials=100)
    with pytest.raises(ValueError, match="even"):
        A.audit("sgd", ds, loss, params=p, trials=101)


def test_gradient_sensitivity_never_exceeds_2G_and_adversarial_gap_by_hand():
    ds, loss, p = _setting("dpsgd-rdp", n=60, noise_rule="experiment")
    for nb in ("random", "adversarial"):
        r = St.stability("dpsgd-rdp", ds, loss, params=p, reps=100, seed=2, neighbour=nb)
        assert r.deterministic and r.exceed_fraction == 0.0
        assert r.empirical["max"] <= r.bound
    # adversarial neighbour x' = -x, same y: least squares grad (w.x - y) x - (-w.x - y)(-x) = -2 y x, whatever w,
    # so the measured gap is 2 |y| ||x|| at every step
    i = r.index
    assert r.empirical["max"] == pytest.approx(2 * abs(ds.y[i]) * np.linalg.norm(ds.X[i]))
    # the 2G bound: G = kappa (kappa R + 1) for least squares with ||x|| <= kappa (Wang, Lei, Ying & Zhou)
    kappa = float(np.max(np.linalg.norm(ds.X, axis=1)))
    assert r.bound == pytest.approx(2 * kappa * (kappa * 1.0 + 1.0))


def test_pairwise_stability_within_high_probability_bound_and_reproducible():
    ds, loss, p = _setting("pairwise-sgd", n=40, T=50)
    r = St.stability("pairwise-sgd", ds, loss, params=p, reps=200, seed=1, neighbour="adversarial", gamma=0.05)
    assert not r.deterministic
    assert r.exceed_fraction <= 0.05  # eq. (9) holds with probability 1 - gamma
    assert r.empirical_level <= r.bound
    assert r.trace_bound is not None and np.all(r.trace_max[-10:] <= r.trace_bound[-10:])
    r2 = St.stability("pairwise-sgd", ds, loss, params=p, reps=200, seed=1, neighbour="adversarial", gamma=0.05)
    assert r.empirical == r2.empirical
    with pytest.raises(ValueError, match="neighbour"):
        St.stability("pairwise-sgd", ds, loss, params=p, reps=10, neighbour="far")
    with pytest.raises(ValueError, match="stability is measured"):
        St.stability("gd", ds, loss, params=p, reps=10)


def test_output_perturbation_sigma_justified_is_proportional():
    ds, loss, p = _setting("dpsgd-output", n=60)
    r = St.stability("dpsgd-output", ds, loss, params=p, reps=50, seed=0)
    assert r.sigma_justified == pytest.approx(r.sigma_calibrated * r.empirical["max"] / r.bound)
    assert any("NOT a privacy guarantee" in s for s in r.notes)


def test_cli_contracts(capsys):
    code = main(["audit", "--algorithm", "sgd", "--n", "40", "--trials", "400", "--seed", "1", "--json"])
    out, err = capsys.readouterr()
    assert code == 0
    d = json.loads(out)
    assert list(d) == ["algorithm", "eps_claimed", "eps_lower", "trials", "statistic", "fpr", "fnr",
                       "max_certifiable", "seconds", "canary", "statistic_detail", "eps_accountant",
                       "accountant_note", "sigma", "delta", "fpr_upper", "fnr_upper"]
    assert d["eps_claimed"] is None and d["trials"] == 400 and "%" in err  # progress on stderr
    # the canary and the statistic in plain words (issue 21): SGD without noise is scored on its whole trajectory
    assert d["canary"].startswith("example 40 of D replaced by x_c") and "label 1" in d["canary"]
    assert d["statistic"] == "trajectory" and d["statistic_detail"] == A.STATISTICS["trajectory"]
    code = main(["audit", "--algorithm", "dpsgd-rdp", "--sigma", "2", "--n", "40", "--trials", "400", "--json"])
    d = json.loads(capsys.readouterr()[0])
    assert code == 0 and d["algorithm"] == "dpsgd-rdp"
    code = main(["stability", "--algorithm", "pairwise-sgd", "--n", "30", "--reps", "20", "--seed", "2",
                 "--neighbour", "adversarial", "--json"])
    d = json.loads(capsys.readouterr()[0])
    assert code == 0
    assert list(d) == ["algorithm", "theorem", "bound", "empirical", "neighbour", "seconds"]
    assert list(d["empirical"]) == ["max", "q50", "q95", "q99"] and d["neighbour"] == "adversarial"
    for argv in (["audit", "--algorithm", "sgd", "--trials", "3", "--json"],
                 ["audit", "--algorithm", "nope", "--trials", "10"],
                 ["audit", "--algorithm", "sgd", "--trials", "x"],
                 ["stability", "--algorithm", "sgd", "--reps", "5", "--neighbour", "far"],
                 ["audit", "--algorithm", "dpsgd-rdp", "--trials", "10", "--sigma", "-1"]):
        code = main(argv)
        out, err = capsys.readouterr()
        assert code == 2 and out == "" and len(err.strip().splitlines()) == 1, argv


def test_run_chains_refuses_a_setting_that_does_not_run():
    ds, loss, p = _setting("dpsgd-rdp", eps=1.0)
    with pytest.raises(ValueError, match="does not run"):
        S.run_chains("dpsgd-rdp", ds, loss, datasets=[(ds.X, ds.y)], reps=2, params=p)
