"""Trade-off curves, GDP-based and one-run audits, and the planner (dpviz.labs.tradeoff, audit_methods and audit_planner, issue 21).

Independent references: the normal distribution of Python's ``statistics`` module (hand formulas of Dong, Roth & Su
2022), dp_accounting's PLD of the Gaussian mechanism, and Monte-Carlo coverage over many seeds on mechanisms whose ε
is known exactly (the Gaussian mechanism: μ-GDP; randomised response: pure ε-DP).
"""

import math
from statistics import NormalDist

import numpy as np
import pytest

from dpviz.labs import canary_audit, tradeoff as trade, audit_methods as am, audit_planner as planner

N = NormalDist()


def test_gdp_curve_matches_hand_formula():
    for mu in (0.3, 1.0, 2.5):
        for a in (1e-4, 0.01, 0.2, 0.5, 0.9):
            hand = N.cdf(N.inv_cdf(1 - a) - mu)  # beta = Phi(Phi^-1(1 - alpha) - mu)
            assert trade.tradeoff_gdp(a, mu) == pytest.approx(hand, rel=1e-9, abs=1e-15)
    assert trade.tradeoff_gdp(0.0, 1.0) == pytest.approx(1.0)
    assert trade.tradeoff_gdp(1.0, 1.0) == pytest.approx(0.0)


def test_eps_delta_line_hand_values():
    eps, delta = 1.0, 0.01
    for a in (0.0, 0.05, 0.2, 0.5, 0.99):
        hand = max(0.0, 1 - delta - math.e * a, math.exp(-1) * (1 - delta - a))
        assert trade.tradeoff_eps_delta(a, eps, delta) == pytest.approx(hand, abs=1e-15)
    with pytest.raises(ValueError, match="alpha"):
        trade.tradeoff_eps_delta(1.5, 1.0, 0.0)


def test_gdp_epsilon_equals_dp_accounting_gaussian():
    from dp_accounting.pld import privacy_loss_distribution as pld

    for sigma in (0.5, 1.0, 3.0):
        ref = pld.from_gaussian_mechanism(sigma, value_discretization_interval=1e-4).get_epsilon_for_delta(1e-5)
        assert trade.gdp_epsilon(1 / sigma, 1e-5) == pytest.approx(ref, rel=2e-3)
    # composition: T releases at sigma compose to mu = sqrt(T)/sigma
    assert trade.gdp_mu_of_gaussians([2.0] * 16) == pytest.approx(2.0)
    assert trade.gdp_mu_for(trade.gdp_epsilon(1.3, 1e-6), 1e-6) == pytest.approx(1.3, rel=1e-8)


def test_tradeoff_from_pld_is_the_gaussian_curve():
    from dp_accounting.pld import privacy_loss_distribution as pld

    mu = 1.0
    p = pld.from_gaussian_mechanism(1 / mu, value_discretization_interval=1e-3)
    a = np.array([1e-3, 0.01, 0.05, 0.2, 0.5, 0.8])
    curve = trade.tradeoff_pld(a, p, points=2000)
    hand = np.array([N.cdf(N.inv_cdf(1 - x) - mu) for x in a])
    assert np.all(curve <= hand + 1e-9)  # a valid (pessimistic) guarantee never claims more than the truth
    assert np.max(hand - curve) < 5e-3  # and is tight


def _gauss(rng, m, mu):
    return rng.normal(size=m), rng.normal(size=m) + mu


def test_gdp_certifies_clearly_more_than_clopper_pearson():
    """Issue 21: idealised Gaussian scores, 1000 trials per side, true eps 4.38 (mu = 1, delta = 1e-5)."""
    mu, delta = 1.0, 1e-5
    true = trade.gdp_epsilon(mu, delta)
    assert true == pytest.approx(4.38, abs=0.01)
    cp, gdp = [], []
    for seed in range(10):
        neg, pos = _gauss(np.random.default_rng(seed), 1000, mu)
        cp.append(canary_audit.distinguish(neg, pos, delta=delta)["eps_lower"])
        gdp.append(am.gdp_audit(neg, pos, delta=delta).eps_lower)
    assert 0.6 < np.median(cp) < 1.6
    assert 2.5 < np.median(gdp) < true
    assert np.median(gdp) > 2 * np.median(cp)


def test_coverage_gaussian_all_methods():
    """The lower bound exceeds the true eps in at most 5 % of seeds (+ binomial slack) for every method."""
    mu, delta, reps = 1.0, 1e-5, 150
    true = trade.gdp_epsilon(mu, delta)
    bad = {"cp": 0, "gdp": 0, "one-run": 0}
    for seed in range(reps):
        rng = np.random.default_rng(1000 + seed)
        neg, pos = _gauss(rng, 200, mu)
        bad["cp"] += canary_audit.distinguish(neg, pos, delta=delta)["eps_lower"] > true
        g = am.gdp_audit(neg, pos, delta=delta)
        bad["gdp"] += g.eps_lower > true
        s, inc = am.one_run_scores(400, mu, seed)
        bad["one-run"] += am.one_run_audit(s, inc, delta=delta).eps_lower > true
    limit = 0.05 * reps + 3 * math.sqrt(0.05 * 0.95 * reps)
    assert all(b <= limit for b in bad.values()), bad


def _rr(rng, bits, eps):
    """Randomised response: report the bit with probability e^eps/(1 + e^eps), else flip it (pure eps-DP)."""
    keep = rng.random(bits.shape) < math.exp(eps) / (1 + math.exp(eps))
    return np.where(keep, bits, 1 - bits).astype(float)


def test_coverage_randomised_response():
    eps, reps = 1.0, 150
    bad_cp = bad_one = 0
    for seed in range(reps):
        rng = np.random.default_rng(seed)
        neg, pos = _rr(rng, np.zeros(200), eps), _rr(rng, np.ones(200), eps)
        bad_cp += canary_audit.distinguish(neg, pos, delta=0.0)["eps_lower"] > eps
        inc = rng.integers(0, 2, size=400)
        bad_one += am.one_run_audit(_rr(rng, inc, eps), inc, delta=0.0).eps_lower > eps
    limit = 0.05 * reps + 3 * math.sqrt(0.05 * 0.95 * reps)
    assert bad_cp <= limit and bad_one <= limit, (bad_cp, bad_one)
    # and with many canaries the one-run audit gets close to the truth
    rng = np.random.default_rng(7)
    inc = rng.integers(0, 2, size=20000)
    r = am.one_run_audit(_rr(rng, inc, eps), inc, delta=0.0)
    assert 0.7 < r.eps_lower <= eps


def test_gdp_assumption_matters_on_randomised_response():
    """Randomised response's curve is not Gaussian: the GDP audit's eps overshoots the truth (its stated
    assumption), which is why the method says so."""
    rng = np.random.default_rng(3)
    neg, pos = _rr(rng, np.zeros(20000), 1.0), _rr(rng, np.ones(20000), 1.0)
    assert am.gdp_audit(neg, pos, delta=1e-5).eps_lower > 1.0
    assert "randomised response" in am.ASSUMPTIONS["gdp"]


def test_one_run_pure_dp_p_value_is_a_binomial_tail():
    from scipy.stats import binom

    p = math.e / (1 + math.e)
    assert am.one_run_p_value(1.0, 0.0, 100, 50, 40) == pytest.approx(binom.sf(39, 50, p))
    assert am.one_run_p_value(1.0, 1e-3, 100, 50, 40) > binom.sf(39, 50, p)


def test_planner():
    kw = dict(target=2.0, eps_true=4.38, delta=1e-5, seconds_per_trial=0.01)
    cp, gdp = planner.plan_audit(method="clopper-pearson", **kw), planner.plan_audit(method="gdp", **kw)
    assert gdp.trials < cp.trials / 10
    assert cp.seconds == pytest.approx(0.01 * cp.trials) and cp.certified >= 2.0
    one = planner.plan_audit(method="one-run", **kw)
    # m evaluation trials per side (4m trainings) give 2m - ceil(3 sqrt(2m)) canaries; the smallest m, by search here
    m0 = next(m for m in range(2, 10**6) if 2 * m - math.ceil(3 * math.sqrt(2 * m)) >= one.trials)
    assert 4 * m0 <= one.runs <= 4.1 * m0 and one.seconds == pytest.approx(0.01 * one.runs)
    # the plan's size is enough for the real audit on Gaussian scores (median over seeds)
    got = [am.gdp_audit(*_gauss(np.random.default_rng(s), gdp.trials // 2, 1.0005568), delta=1e-5).eps_lower
           for s in range(9)]
    assert np.median(got) >= 1.6
    no = planner.plan_audit(method="gdp", target=5.0, eps_true=4.38, delta=1e-5)
    assert no.trials is None and "not below" in no.reason
    with pytest.raises(ValueError, match="method"):
        planner.plan_audit(method="bogus", target=1, eps_true=2, delta=1e-5)
    with pytest.raises(ValueError, match="target"):
        planner.plan_audit(method="gdp", target=-1, eps_true=2, delta=1e-5)


def test_frozen_validated_dataclasses():
    r = am.gdp_audit(*_gauss(np.random.default_rng(0), 100, 1.0), delta=1e-5)
    with pytest.raises(Exception):
        r.eps_lower = 9.0
    with pytest.raises(ValueError):
        am.OneRunAudit(eps_lower=1.0, m=5, guesses=10, correct=1, k_plus=5, k_minus=5, delta=0.0, level=0.95)


def _cli(args):
    import json
    import subprocess
    import sys

    p = subprocess.run([sys.executable, "-m", "dpviz", *args], capture_output=True, text=True, timeout=300)
    return p.returncode, (json.loads(p.stdout) if p.returncode == 0 and "--json" in args else p.stdout), p.stderr


def test_cli_audit_methods_and_plan():
    base = ["audit", "--algorithm", "dpsgd-rdp", "--trials", "200", "--sigma", "0.001", "--T", "20", "--json"]
    code, cp, _ = _cli(base)
    assert code == 0 and "method" not in cp  # unchanged contract without --method
    for method in ("clopper-pearson", "gdp", "one-run"):
        code, out, err = _cli(base + ["--method", method])
        assert code == 0, err
        assert out["method"] == method and out["assumption"] == am.ASSUMPTIONS[method]
        assert out["eps_lower_clopper_pearson"] == cp["eps_lower"]
        assert out["eps_lower"] >= 0 and out["trials"] == 200
    for method in ("clopper-pearson", "gdp"):
        code, plan, err = _cli(["audit", "--algorithm", "dpsgd-rdp", "--plan", "--target", "0.4", "--method", method,
                                "--json"])
        assert code == 0, err
        assert plan["method"] == method and plan["trials"] > 0 and plan["certified"] >= 0.4
        assert plan["eps_true"] > 0.4 and plan["seconds"] > 0 and "matched" in plan["eps_source"]
    code, _, err = _cli(["audit", "--algorithm", "dpsgd-rdp", "--plan", "--json"])
    assert code == 2 and "--target" in err and "Traceback" not in err
    code, _, err = _cli(["audit", "--algorithm", "dpsgd-rdp", "--json"])
    assert code == 2 and "--trials is required" in err
    code, _, err = _cli(["audit", "--algorithm", "dpsgd-rdp", "--plan", "--target", "-1", "--json"])
    assert code == 2 and "--target" in err


def test_tradeoff_figure_and_page_curves():
    from dpviz_ui import audit_page as ap
    from dpviz.foundation import privacy_figures as pf

    curves = ap.tradeoff_curves(1.0, 2.0, 1e-5)
    assert len(curves) == 3 and any("claimed (1, 1e-05)" in k for k in curves)
    a, b = curves[next(k for k in curves if k.startswith("μ-GDP"))]
    mu = trade.gdp_mu_for(2.0, 1e-5)
    assert b[50] == pytest.approx(N.cdf(N.inv_cdf(1 - a[50]) - mu))
    point = {"fpr": 0.1, "fnr": 0.5, "fpr_lo": 0.05, "fpr_hi": 0.15, "fnr_lo": 0.4, "fnr_hi": 0.6, "name": "m"}
    fig = pf.tradeoff_figure(curves, [point], title="t")
    box = next(t for t in fig.data if t.fill == "toself")
    assert list(box.x) == [0.05, 0.15, 0.15, 0.05, 0.05] and list(box.y) == [0.4, 0.4, 0.6, 0.6, 0.4]
    assert tuple(fig.layout.xaxis.range) == (-0.01, 1.01)
    assert ap.tradeoff_curves(None, None, 1e-5) == {}
    with pytest.raises(ValueError, match="nothing to plot"):
        pf.tradeoff_figure({}, [], title="t")
