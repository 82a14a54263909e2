"""Wang, Lei, Ying & Zhou (wang-lownoise): DP-SGD calibrations (Algorithms 1 and 2, Theorems 2 and 5), the β search,
the accountant extra, Theorems 3/4/6/7 and Tables 1–2, checked against values computed by hand from the paper."""
import math
import re

import pytest

from dpviz.theory import accounting, catalog
from dpviz.theory.papers import wang_lownoise as w

LOG = math.log


def conditions(beta, *, n, eps, delta, T, pairwise=False):
    """Theorem 2 / 5 written out independently of the module (G = 1): returns (cond1, cond2)."""
    lam = LOG(1 / delta) / ((1 - beta) * eps) + 1
    s2 = (56 if pairwise else 14) * T / (beta * n**2 * eps) * lam
    k = 2 if pairwise else 1
    return s2 >= 2.68, lam - 1 <= s2 / 6 * LOG(n / (k * lam * (1 + s2 / 4)))


# ---------------------------------------------------------------------------------------------------------------
# sigma at a fixed beta (Algorithm 1 / 2, line 5)


def test_sigma_of_beta_pointwise_by_hand():
    # n = 1000, eps = 1, delta = 1e-6, T = 1000, G = 1, beta = 0.5:
    # lambda = log(1e6)/(0.5*1) + 1 = 13.81551*2 + 1 = 28.63102
    # sigma^2 = 14*1*1000/(0.5*1000^2*1) * 28.63102 = 0.028 * 28.63102 = 0.801669 -> sigma = 0.895359
    expected = math.sqrt(14 * 1**2 * 1000 / (0.5 * 1000**2 * 1) * (LOG(1e6) / (0.5 * 1) + 1))
    got = w.sigma_of_beta(n=1000, eps=1, delta=1e-6, T=1000, G=1, beta=0.5)
    assert got == pytest.approx(expected, rel=1e-12)
    assert got == pytest.approx(0.895359, rel=1e-6)
    # n = 500, eps = 2, delta = 1e-5, T = 2000, G = 2, beta = 0.3:
    # lambda = log(1e5)/(0.7*2) + 1 = 11.512925/1.4 + 1 = 9.223518
    # sigma^2 = 14*4*2000/(0.3*500^2*2) * 9.223518 = 0.746667 * 9.223518 = 6.886894 -> sigma = 2.624289
    expected = math.sqrt(14 * 2**2 * 2000 / (0.3 * 500**2 * 2) * (LOG(1e5) / (0.7 * 2) + 1))
    got = w.sigma_of_beta(n=500, eps=2, delta=1e-5, T=2000, G=2, beta=0.3)
    assert got == pytest.approx(expected, rel=1e-12)
    assert got == pytest.approx(2.624289, rel=1e-6)


def test_sigma_of_beta_pairwise_by_hand():
    # Algorithm 2: 56 instead of 14 -> sigma doubles: 2 * 0.895359 = 1.790719, 2 * 2.624289 = 5.248578
    got = w.sigma_of_beta(n=1000, eps=1, delta=1e-6, T=1000, G=1, beta=0.5, pairwise=True)
    assert got == pytest.approx(math.sqrt(56 * 1000 / (0.5 * 1000**2) * (LOG(1e6) / 0.5 + 1)), rel=1e-12)
    assert got == pytest.approx(1.790719, rel=1e-6)
    got = w.sigma_of_beta(n=500, eps=2, delta=1e-5, T=2000, G=2, beta=0.3, pairwise=True)
    assert got == pytest.approx(5.248578, rel=1e-6)


def test_conditions_at_beta_by_hand():
    # beta = 0.5 (n = T = 1000, eps = 1, delta = 1e-6): sigma^2/G^2 = 0.801669 < 2.68 -> (i) fails;
    # (ii): lambda - 1 = 27.63102 vs 0.801669/6 * log(1000/(28.63102*(1 + 0.801669/4))) = 0.133611*3.370566 = 0.450350
    c = w.conditions_at_beta(n=1000, eps=1, delta=1e-6, T=1000, beta=0.5)
    assert c["sigma2_over_G2"] == pytest.approx(0.801669, rel=1e-6) and not c["cond1"]
    assert c["lambda"] == pytest.approx(28.63102, rel=1e-6)
    assert c["cond2_lhs"] == pytest.approx(27.63102, rel=1e-6)
    assert c["cond2_rhs"] == pytest.approx(0.450350, rel=1e-5) and not c["cond2"] and not c["feasible"]
    # beta = 0.002: lambda = 13.81551/0.998 + 1 = 14.84320; sigma^2/G^2 = 14*1000/(0.002*1e6)*14.84320 = 7*14.84320
    #   = 103.9024 >= 2.68; (ii): 13.84320 <= 103.9024/6 * log(1000/(14.84320*(1 + 25.9756))) = 17.31706*0.915283
    #   = 15.84998
    c = w.conditions_at_beta(n=1000, eps=1, delta=1e-6, T=1000, beta=0.002)
    assert c["sigma2_over_G2"] == pytest.approx(7 * (LOG(1e6) / 0.998 + 1), rel=1e-12)
    assert c["cond2_rhs"] == pytest.approx(15.84998, rel=1e-6)
    assert c["cond1"] and c["cond2"] and c["feasible"]
    # pairwise at beta = 0.002: sigma^2/G^2 = 4*103.9024 = 415.6095; log argument n/(2 lambda (1 + 103.9024))
    #   = 1000/(2*14.84320*104.9024) = 0.321115 < 1 -> the right-hand side is negative, (ii) fails
    c = w.conditions_at_beta(n=1000, eps=1, delta=1e-6, T=1000, beta=0.002, pairwise=True)
    assert c["cond2_rhs"] == pytest.approx(415.6095 / 6 * LOG(1000 / (2 * 14.84320 * 104.9024)), rel=1e-5)
    assert c["cond1"] and not c["cond2"]


def test_sigma_minimising_beta():
    # b = log(1/delta)/eps + 1 = 13.81551 + 1 = 14.81551; beta* = b - sqrt(b^2 - b) = 0.508734
    b = LOG(1e6) / 1 + 1
    assert w.sigma_minimising_beta(eps=1, delta=1e-6) == pytest.approx(b - math.sqrt(b * b - b), rel=1e-9)
    assert w.sigma_minimising_beta(eps=1, delta=1e-6) == pytest.approx(0.508734, rel=1e-5)

    def s2(beta):  # sigma^2 up to constants: (a/(1 - beta) + 1)/beta
        return (LOG(1e6) / (1 - beta) + 1) / beta

    bs = 0.508734
    assert s2(bs) < s2(bs - 0.01) and s2(bs) < s2(bs + 0.01)


# ---------------------------------------------------------------------------------------------------------------
# beta search and calibration


def test_calibration_picks_the_sigma_minimising_feasible_beta():
    params = dict(n=1000, eps=1.0, delta=1e-6, T=1000)
    cal = w.calibrate_dpsgd_rdp(G=1.0, **params)
    assert cal.feasible and cal.id == "dpsgd-rdp"
    lo, hi = cal.beta_interval
    # the interval ends satisfy both conditions, points 0.1% outside do not
    assert all(conditions(lo, **params)) and all(conditions(hi, **params))
    assert not all(conditions(lo * 0.999, **params)) and not all(conditions(hi * 1.001, **params))
    # beta = 0.002 is feasible by hand (test_conditions_at_beta_by_hand), so it lies in the interval
    assert lo <= 0.002 <= hi
    # sigma^2 decreases up to beta* = 0.5087 > hi, so the sigma-minimising feasible beta is hi; Remark 4's beta
    # closest to 1/2 is hi too
    assert cal.beta == pytest.approx(hi) and cal.beta_half == pytest.approx(hi)
    expected = math.sqrt(14 * 1000 / (hi * 1000**2 * 1) * (LOG(1e6) / ((1 - hi) * 1) + 1))
    assert cal.sigma == pytest.approx(expected, rel=1e-12)
    assert cal.extras["lambda"] == pytest.approx(LOG(1e6) / (1 - hi) + 1, rel=1e-12)
    assert cal.extras["beta_half_sigma"] == pytest.approx(expected, rel=1e-12)
    assert cal.formula and cal.formula_numbers and cal.T == 1000
    # brute force over a fine grid inside the interval: nothing beats the returned sigma
    grid = [lo + (hi - lo) * k / 1000 for k in range(1001)]
    best = min(w.sigma_of_beta(G=1.0, beta=b, **params) for b in grid)
    assert cal.sigma <= best * (1 + 1e-12)


def test_beta_interior_optimum_and_half():
    # large delta budget, small log(1/delta)/eps: n = 2000, T = 100, eps = 4, delta = 1e-3
    # check that beta = beta* = 1/(1 + sqrt(1 - 1/b)), b = log(1000)/4 + 1 = 2.726939, is chosen when feasible
    params = dict(n=2000, eps=4.0, delta=1e-3, T=100)
    b = LOG(1e3) / 4 + 1
    bstar = 1 / (1 + math.sqrt(1 - 1 / b))  # = 0.557  (sigma^2 = 14*100/(0.557*4e6*4)*(... ) )
    cal = w.calibrate_dpsgd_rdp(G=1.0, **params)
    lo, hi = cal.beta_interval
    if lo <= bstar <= hi:
        assert cal.beta == pytest.approx(bstar, rel=1e-9)
    else:
        assert cal.beta in (pytest.approx(lo), pytest.approx(hi))
    assert cal.beta_half == pytest.approx(min(max(0.5, lo), hi))


def test_tiny_beta_at_large_n_eps():
    # n = 1e6, eps = 10, delta = 1e-12, T = n.  beta = 1e-6: lambda = log(1e12)/(10(1 - 1e-6)) + 1 = 3.763105,
    # sigma^2/G^2 = 14*1e6/(1e-6*1e12*10)*3.763105 = 1.4*3.763105 = 5.268347 >= 2.68 and
    # (ii): 2.763105 <= 5.268347/6*log(1e6/(3.763105*(1 + 1.317087))) = 0.878058*11.64985 = 10.22933 -> feasible.
    # beta = 1e-4: sigma^2/G^2 = 0.05268 < 2.68 -> infeasible; the feasible beta are all far below 1e-4.
    assert conditions(1e-6, n=10**6, eps=10, delta=1e-12, T=10**6) == (True, True)
    assert conditions(1e-4, n=10**6, eps=10, delta=1e-12, T=10**6)[0] is False
    cal = w.calibrate_dpsgd_rdp(n=10**6, eps=10.0, delta=1e-12, T=10**6, G=1.0)
    assert cal.feasible
    lo, hi = cal.beta_interval
    assert hi < 1e-4 and lo <= 1e-6 <= hi
    # (i) is tight at the upper end: sigma^2/G^2 = 1.4*lambda/(1e6*hi) ... = 2.68
    assert cal.sigma == pytest.approx(math.sqrt(2.68), rel=1e-6)
    assert any("tiny" in note for note in cal.notes)


def test_given_beta_is_used_and_checked():
    cal = w.calibrate_dpsgd_rdp(n=1000, eps=1, delta=1e-6, T=1000, G=1, beta=0.5)
    assert not cal.feasible and cal.beta == 0.5
    assert cal.sigma == pytest.approx(0.895359, rel=1e-6)  # test_sigma_of_beta_pointwise_by_hand
    assert "(i)" in cal.reason and "0.8017" in cal.reason and "(ii)" in cal.reason
    assert "beta in [" in cal.fix
    cal = w.calibrate_dpsgd_rdp(n=1000, eps=1, delta=1e-6, T=1000, G=1, beta=0.002)
    assert cal.feasible and cal.beta == 0.002
    assert cal.sigma == pytest.approx(math.sqrt(7 * (LOG(1e6) / 0.998 + 1)), rel=1e-12)  # sqrt(103.9024)


def test_infeasible_gives_reason_and_fix_and_the_fix_works():
    # n = 18, T = 18, delta = 1/18^2, eps = 3.881145 (Lemma 13 threshold of Wang, Lei, Ying & Zhang): no beta works;
    # the smallest feasible eps is about 4.52
    params = dict(n=18, delta=1 / 18**2, T=18, G=1.0)
    eps0 = (7 * (18 ** (1 / 3) - 1) + 4 * 18 * LOG(18) + 7) / (2 * 18 * (18 ** (1 / 3) - 1))  # = 3.881145
    assert not any(all(conditions(b / 10000, n=18, eps=eps0, delta=1 / 324, T=18)) for b in range(1, 10000))
    cal = w.calibrate_dpsgd_rdp(eps=eps0, **params)
    assert not cal.feasible and cal.sigma is None
    assert "no beta" in cal.reason and "(ii)" in cal.reason and "closest beta" in cal.reason
    e_min = cal.extras["eps_min"]
    assert e_min == pytest.approx(4.52, abs=0.01)
    assert "4.5" in cal.fix
    assert w.calibrate_dpsgd_rdp(eps=e_min, **params).feasible
    printed = float(re.search(r"at least ([0-9.]+)", cal.fix).group(1))
    assert printed >= e_min and w.calibrate_dpsgd_rdp(eps=printed, **params).feasible
    assert not w.calibrate_dpsgd_rdp(eps=e_min * 0.999, **params).feasible
    # by hand at the fix: some beta satisfies both conditions
    assert any(all(conditions(b / 100000, n=18, eps=printed, delta=1 / 324, T=18)) for b in range(1, 100000))


def test_pairwise_infeasible_and_fix():
    # pairwise n = 3: (ii) needs n/2 > 1.67 even as lambda -> 1, so no eps helps
    cal = w.calibrate_dpsgd_rdp_pairwise(n=3, eps=1.0, delta=1e-3, T=3, G=1.0)
    assert not cal.feasible and "n >= 4" in cal.fix and cal.extras["eps_min"] == math.inf
    # pairwise n = 1000, T = 1000, delta = 1e-6, eps = 1 is infeasible (pointwise is feasible), the fix works
    cal = w.calibrate_dpsgd_rdp_pairwise(n=1000, eps=1.0, delta=1e-6, T=1000, G=1.0)
    assert not cal.feasible and "Theorem 5" in cal.reason
    e_min = cal.extras["eps_min"]
    good = w.calibrate_dpsgd_rdp_pairwise(n=1000, eps=e_min, delta=1e-6, T=1000, G=1.0)
    assert good.feasible and good.id == "dpsgd-rdp-pairwise"
    assert all(conditions(good.beta, n=1000, eps=e_min, delta=1e-6, T=1000, pairwise=True))
    assert good.sigma == pytest.approx(
        math.sqrt(56 * 1000 / (good.beta * 1000**2 * e_min) * (LOG(1e6) / ((1 - good.beta) * e_min) + 1)), rel=1e-12)


def test_G_from_holder_constants():
    # G = M + L R^alpha = 1 + 1*4^0.5 = 3 (Wang, Lei, Ying & Zhang, Theorem 11): sigma = 3 x sigma at G = 1
    base = w.calibrate_dpsgd_rdp(n=1000, eps=1, delta=1e-6, T=1000, G=1)
    cal = w.calibrate_dpsgd_rdp(n=1000, eps=1, delta=1e-6, T=1000, M=1, L=1, R=4, alpha=0.5)
    assert cal.extras["G"] == pytest.approx(3.0) and cal.sigma == pytest.approx(3 * base.sigma, rel=1e-12)
    assert cal.extras["sensitivity"] == pytest.approx(6.0)


@pytest.mark.parametrize("n", [50, 1000, 100_000])
def test_lemma13_threshold_is_feasible(n):
    # Wang, Lei, Ying & Zhang, Lemma 13: T = n, delta = 1/n^2, eps = (7(n^(1/3)-1) + 4 n log n + 7)/(2n(n^(1/3)-1))
    c = n ** (1 / 3) - 1
    eps = (7 * c + 4 * n * LOG(n) + 7) / (2 * n * c)
    cal = catalog.calibrate("dpsgd-rdp", n=n, eps=eps, delta=1 / n**2, T=n, M=1.0, L=1.0, R=1.0, alpha=0.5)
    assert cal.feasible
    assert all(conditions(cal.beta, n=n, eps=eps, delta=1 / n**2, T=n))


def test_reproduce_style_call():
    # as dpviz/studies/reproduce.py calls it (Wang, Lei, Ying & Zhou §5: n = 5000, T = 1000, delta = 1/n^2, eta = 0.01)
    cal = catalog.calibrate("dpsgd-rdp", n=5000, d=10, eps=0.5, delta=1 / 5000**2, T=1000, eta=0.01, G=1.0)
    assert cal.feasible and cal.eta == 0.01 and cal.T == 1000
    assert all(conditions(cal.beta, n=5000, eps=0.5, delta=1 / 5000**2, T=1000))
    # (its speed is measured in benchmarks/bench_accounting.py, not asserted here)
    assert w.calibrate_dpsgd_rdp(n=4321, eps=0.7, delta=1e-7, T=2000, G=1.0).feasible


def test_accountant_sigma():
    import dp_accounting
    from dp_accounting.rdp import RdpAccountant

    cal = w.calibrate_dpsgd_rdp(n=1000, eps=1.0, delta=1e-6, T=1000, G=2.0)
    acc = cal.extras["accountant_sigma"]
    note = cal.extras["accountant_note"]
    assert "without replacement" in note and "replace-one" in note
    assert cal.extras["accountant_mechanism"].startswith("sampling without replacement")
    assert acc < cal.sigma  # the closed-form Lemma 8 bound is loose
    assert acc == pytest.approx(w.accountant_sigma(n=1000, eps=1.0, delta=1e-6, T=1000, G=2.0))

    def eps_of(z):  # independent accountant call: the paper's mechanism, T = 1000 steps on one example of 1000
        # drawn without replacement, replace-one neighbours, noise multiplier z = sigma/(2G)
        # the orders of the matched accountant (WOR_ORDERS); dp_accounting computes each order's RDP itself
        a = RdpAccountant(orders=accounting.WOR_ORDERS,
                          neighboring_relation=dp_accounting.NeighboringRelation.REPLACE_ONE)
        a.compose(dp_accounting.SelfComposedDpEvent(dp_accounting.SampledWithoutReplacementDpEvent(
            1000, 1, dp_accounting.GaussianDpEvent(z)), 1000))
        return a.get_epsilon(1e-6)

    z = acc / (2 * 2.0)  # sensitivity 2G
    assert eps_of(z) <= 1.0 < eps_of(z * 0.998)


# ---------------------------------------------------------------------------------------------------------------
# invalid input


@pytest.mark.parametrize("bad", [dict(delta=0.0), dict(delta=0), dict(eps=0.0), dict(eps=-1.0), dict(n=1),
                                 dict(G=0.0), dict(G=-1.0), dict(T=0), dict(beta=1.0), dict(beta=0.0), dict(d=0),
                                 dict(eta=-0.1), dict(delta=1.0), dict(eps=float("nan"))])
def test_invalid_inputs(bad):
    params = dict(n=1000, eps=1.0, delta=1e-6, T=1000, G=1.0)
    params.update(bad)
    for f in (w.calibrate_dpsgd_rdp, w.calibrate_dpsgd_rdp_pairwise):
        with pytest.raises(ValueError):
            f(**params)


def test_invalid_inputs_messages():
    with pytest.raises(ValueError, match="Rényi"):
        w.calibrate_dpsgd_rdp(n=100, eps=1, delta=0, T=100, G=1)
    with pytest.raises(ValueError, match="M, L, R and alpha"):
        w.calibrate_dpsgd_rdp(n=100, eps=1, delta=1e-4, T=100)
    with pytest.raises(ValueError, match="missing: R"):
        w.calibrate_dpsgd_rdp(n=100, eps=1, delta=1e-4, T=100, M=1, L=1, alpha=0.5)
    with pytest.raises(ValueError):
        w.sigma_of_beta(n=100, eps=1, delta=1e-4, T=100, G=0, beta=0.5)
    with pytest.raises(ValueError):
        w.sigma_of_beta(n=100, eps=1, delta=1e-4, T=100, G=1, beta=0.5, pairwise="yes")
    with pytest.raises(ValueError):
        w.conditions_at_beta(n=100, eps=1, delta=1e-4, T=100, beta=1.5)


# ---------------------------------------------------------------------------------------------------------------
# utility theorems


def _terms(res):
    return {t.name: t for t in res.terms}


def test_thm3a_and_6a():
    # n = 10000, d = 10, eps = 1, delta = 1e-5: sqrt(d log(1/delta)) = sqrt(115.12925) = 10.72983
    # privacy = 10.72983/10000 = 1.072983e-3; statistical = 1/100; eta = min(1/100, 1/10.72983 = 0.0931980) = 0.01
    for tid in ("wang-lownoise-thm3a", "wang-lownoise-thm6a"):
        res = catalog.bound(tid, n=10000, d=10, eps=1.0, delta=1e-5)
        t = _terms(res)
        assert t["privacy"].value == pytest.approx(1.072983e-3, rel=1e-6)
        assert (t["privacy"].n_exp, t["privacy"].eps_exp) == (-1.0, -1.0)
        assert t["statistical"].value == pytest.approx(0.01) and t["statistical"].n_exp == -0.5
        assert res.eta == pytest.approx(0.01) and res.T == 10000 and res.gradient_complexity == 10000
        assert res.total == pytest.approx(0.01 + 1.072983e-3, rel=1e-6)
    # eps = 0.05: privacy = 10.72983/500 = 0.02145966; eta = min(0.01, 0.05/10.72983 = 0.00465991); c = 2 doubles eta
    res = w.bound_thm3a(n=10000, d=10, eps=0.05, delta=1e-5, c=2.0)
    assert _terms(res)["privacy"].value == pytest.approx(0.02145966, rel=1e-6)
    assert res.eta == pytest.approx(2 * 0.00465991, rel=1e-5)


def test_thm3b_and_6b():
    # eta = c eps/sqrt(d log(1/delta)) = 0.5/10.72983 = 0.0465991; one term, privacy = 1.072983e-3
    for f in (w.bound_thm3b, w.bound_thm6b):
        res = f(n=10000, d=10, eps=1.0, delta=1e-5, c=0.5)
        assert res.eta == pytest.approx(0.0465991, rel=1e-5) and res.T == 10000
        assert [t.name for t in res.terms] == ["privacy"]
        assert res.total == pytest.approx(1.072983e-3, rel=1e-6)
    # n = 100, d = 5, eps = 2, delta = 1e-4: sqrt(5*9.210340) = 6.786140; privacy = 6.786140/200 = 0.0339307;
    # eta = 2/6.786140 = 0.294717 (exceeds min{2/L, 1} = 0.2 for L = 10 -> flagged)
    res = w.bound_thm3b(n=100, d=5, eps=2.0, delta=1e-4, L=10.0)
    assert res.total == pytest.approx(0.0339307, rel=1e-5) and res.eta == pytest.approx(0.294717, rel=1e-5)
    assert any("exceeds" in note for note in res.notes)


def test_thm4a_and_7a():
    # alpha = 0.75 >= 1/2: as Theorem 3 (a)
    res = w.bound_thm4a(n=10000, d=10, eps=1.0, delta=1e-5, alpha=0.75)
    assert res.T == 10000 and res.eta == pytest.approx(0.01)
    # alpha = 0.25 < 1/2, n = 1000: T = ceil(1000^(1.75/1.25)) = ceil(1000^1.4) = ceil(15848.93) = 15849
    # eta = min(1000^(3(-0.75)/(2*1.25)) = 1000^(-0.9) = 0.00199526, 1/sqrt(10*13.81551) = 1/11.75394 = 0.0850778)
    for f in (w.bound_thm4a, w.bound_thm7a):
        res = f(n=1000, d=10, eps=1.0, delta=1e-6, alpha=0.25)
        assert res.T == 15849 and res.gradient_complexity == 15849
        assert res.eta == pytest.approx(0.00199526, rel=1e-5)
        t = _terms(res)
        assert t["privacy"].value == pytest.approx(11.75394 / 1000, rel=1e-6)
        assert t["statistical"].value == pytest.approx(1 / math.sqrt(1000))


def test_thm4b_and_7b():
    # alpha = 0.5, n = 1000, d = 10, eps = 1, delta = 1e-6: T = 1000^(2/1.5) = 10000
    # eta = min(1000^((0.25 + 1 - 3)/3) = 10^(-1.75) = 0.0177828, 1000*1/(10000*11.75394) = 0.00850778) = 0.00850778
    # statistical = 1000^(-0.75) = 0.00562341 (n exponent -0.75); privacy = 11.75394/1000 = 0.01175394
    for f in (w.bound_thm4b, w.bound_thm7b):
        res = f(n=1000, d=10, eps=1.0, delta=1e-6, alpha=0.5)
        assert res.T == 10000
        assert res.eta == pytest.approx(0.00850778, rel=1e-5)
        t = _terms(res)
        assert t["statistical"].value == pytest.approx(0.00562341, rel=1e-5)
        assert t["statistical"].n_exp == pytest.approx(-0.75) and t["statistical"].eps_exp == 0.0
        assert t["privacy"].value == pytest.approx(0.01175394, rel=1e-6)
    # alpha = 0, n = 100, d = 5, eps = 2, delta = 1e-4: T = 100^2 = 10000; eta = min(100^(-1.5) = 0.001,
    # 200/(10000*6.786140) = 0.00294717) = 0.001; statistical = 100^(-1/2) = 0.1; privacy = 6.786140/200 = 0.0339307
    res = w.bound_thm4b(n=100, d=5, eps=2.0, delta=1e-4, alpha=0.0)
    assert res.T == 10000 and res.eta == pytest.approx(0.001, rel=1e-9)
    assert _terms(res)["statistical"].value == pytest.approx(0.1)
    assert _terms(res)["privacy"].value == pytest.approx(0.0339307, rel=1e-5)


def test_theorem_invalid_inputs():
    for bad in (dict(alpha=1.0), dict(alpha=-0.1), dict(d=0), dict(eps=0.0), dict(delta=0.0), dict(n=1),
                dict(c=0.0)):
        params = dict(n=1000, d=10, eps=1.0, delta=1e-6, alpha=0.5)
        params.update(bad)
        with pytest.raises(ValueError):
            w.bound_thm4b(**params)


def test_theorem_entries():
    ids = {t.id: t for t in catalog.theorems() if t.paper.key == "wang-lownoise"}
    assert set(ids) == {f"wang-lownoise-thm{k}{p}" for k in (3, 4, 6, 7) for p in "ab"}
    assert ids["wang-lownoise-thm3a"].algorithm == "dpsgd-rdp"
    assert ids["wang-lownoise-thm7b"].algorithm == "dpsgd-rdp-pairwise"
    assert "low-noise" in ids["wang-lownoise-thm4b"].assumptions
    assert "low-noise" not in ids["wang-lownoise-thm4a"].assumptions
    assert ids["wang-lownoise-thm4b"].discrepancy
    assert ".txt" not in catalog.get_paper("wang-lownoise").cite()


# ---------------------------------------------------------------------------------------------------------------
# tables


def test_table1():
    rows = catalog.get_table("wang-lownoise-table1").evaluate(n=1000, d=10, eps=1.0, delta=1e-6, alpha=0.5)
    by = {r["method"]: r for r in rows}
    assert len(rows) == 9
    # optimal: 1/sqrt(1000) + sqrt(138.1551)/1000 = 0.0316228 + 0.0117539 = 0.0433767
    assert by["DP-SGD (this paper, Theorem 3 (a))"]["rate value"] == pytest.approx(0.0433767, rel=1e-5)
    # low noise: 0.0117539
    assert by["DP-SGD (this paper, Theorem 3 (b))"]["rate value"] == pytest.approx(0.0117539, rel=1e-5)
    # Hölder low noise: 1000^(-0.75) + 0.0117539 = 0.00562341 + 0.0117539 = 0.0173773; complexity 1000^(4/3) = 1e4
    assert by["DP-SGD (this paper, Theorem 4 (b))"]["rate value"] == pytest.approx(0.0173773, rel=1e-5)
    assert by["DP-SGD (this paper, Theorem 4 (b))"]["complexity value"] == pytest.approx(1e4)
    # Hölder general: complexity 1000^(1.5/1.5) + 1000 = 2000; noisy projected SGD: n^2 = 1e6
    assert by["DP-SGD (this paper, Theorem 4 (a))"]["complexity value"] == pytest.approx(2000)
    assert by["Noisy projected SGD"]["complexity value"] == pytest.approx(1e6)
    assert all(".txt" not in r["reference"] for r in rows)


def test_table2():
    rows = catalog.get_table("wang-lownoise-table2").evaluate(n=1000, d=10, eps=1.0, delta=1e-6, alpha=0.5)
    by = {r["method"]: r for r in rows}
    assert len(rows) == 8
    # Output GD: sqrt(138.1551)/sqrt(1000) = 11.75394/31.62278 = 0.371692; complexity n^2
    assert by["Output GD"]["rate value"] == pytest.approx(0.371692, rel=1e-5)
    # Localized SGD: 1/sqrt(1000) + sqrt(10*13.81551^1.5)/1000 = 0.0316228 + sqrt(513.5146)/1000 = 0.0542837
    assert by["Localized SGD (smooth)"]["rate value"] == pytest.approx(0.0542837, rel=1e-5)
    # Localized GD complexity n^3 log(1/delta) = 1e9 * 13.81551
    assert by["Localized GD"]["complexity value"] == pytest.approx(1.381551e10, rel=1e-6)
    assert by["Gradient SGD (this paper, Theorem 6 (b))"]["rate value"] == pytest.approx(0.0117539, rel=1e-5)


def test_unconstrained_sigma_is_reported():
    # n = 5000, T = 1000, delta = 1/n^2, eps = 5.5 (the paper's §5 setting): b = log(2.5e7)/5.5 + 1 = 4.097813,
    # beta* = 1/(1 + sqrt(1 - 1/4.097813)) = 0.534912; sigma^2 = 14*1000/(0.534912*5000^2*5.5)*(log(2.5e7)/
    # ((1 - 0.534912)*5.5) + 1) -> sigma = 0.0381797, far below sqrt(2.68) = 1.637 that condition (i) requires
    b = LOG(2.5e7) / 5.5 + 1
    bs = 1 / (1 + math.sqrt(1 - 1 / b))
    expected = math.sqrt(14 * 1000 / (bs * 5000**2 * 5.5) * (LOG(2.5e7) / ((1 - bs) * 5.5) + 1))
    cal = w.calibrate_dpsgd_rdp(n=5000, eps=5.5, delta=1 / 5000**2, T=1000, G=1.0)
    assert cal.extras["sigma_unconstrained"] == pytest.approx(expected, rel=1e-9)
    assert cal.extras["sigma_unconstrained"] == pytest.approx(0.03818, rel=1e-3)
    assert cal.sigma >= math.sqrt(2.68) * (1 - 1e-9)
    assert any("§5" in note for note in cal.notes)


def test_remark1_remark4_remark5_and_table1_misprints_are_recorded():
    from dpviz.theory import catalog

    for tid in ("wang-lownoise-thm3a", "wang-lownoise-thm3b", "wang-lownoise-thm4a", "wang-lownoise-thm4b"):
        assert any("Remark 1" in n for n in catalog.get_theorem(tid).notes)
    assert "Remark 5" in catalog.get_theorem("wang-lownoise-thm4a").discrepancy
    t1 = catalog.get_table("wang-lownoise-table1").evaluate(n=1000, d=10, eps=1.0, delta=1e-6, alpha=0.5)
    assert any("(n eps)^6.5" in (r.get("note") or "") for r in t1)
    t2 = catalog.get_table("wang-lownoise-table2").evaluate(n=1000, d=10, eps=1.0, delta=1e-6, alpha=0.5)
    assert any("Remark 4" in (r.get("note") or "") for r in t2)


def test_explicit_constants_m_alpha_and_theorems_15_16():
    from dpviz.theory.papers import wang_lownoise as w

    # eq. (4): alpha = 1/2, L = 2: (1 + 2)^(1/3) 2^(2/3) = 1.44225 * 1.58740 = 2.28943; alpha = 0: M + L = 1 + 2 = 3
    assert w.m_alpha_1(alpha=0.5, L=2.0) == pytest.approx(2.28943, rel=1e-5)
    assert w.m_alpha_1(alpha=0.0, L=2.0, M=1.0) == 3.0
    # eq. (5): (1/3) (2/3)^2 M1^6 = (1/3)(4/9)(3^2 * 2^4) = 0.148148 * 144 = 21.3333
    assert w.m_alpha_2(alpha=0.5, L=2.0) == pytest.approx(64 / 3, rel=1e-9)
    assert w.m_alpha_2(alpha=0.0, L=2.0, M=1.0) == 9.0
    # Lemma 14 (b): sqrt(1/3) (2^-0.5 * 2)^2 = 0.577350 * 2 = 1.154701
    assert w.m_alpha_3(alpha=0.5, L=2.0) == pytest.approx(1.154701, rel=1e-6)
    # Theorem 16 (a): T = 100, eta = 0.1, d = 10, sigma = 1, ||w*|| = 1, F(w*) = 0.1, L = 1:
    # (1/2 + 0.3) * 1 = 0.8; 3 * 100 * (3e-3 * 10 + 2e-2 * 0.1) = 300 * 0.032 = 9.6; 3 * 100 * 0.01 * 10 = 30
    r = w.optimization_thm16(T=100, eta=0.1, d=10, sigma=1.0, R=1.0, Fstar=0.1, L=1.0)
    assert [t.value for t in r.terms] == pytest.approx([0.8, 9.6, 30.0])
    assert r.extras["average"] == pytest.approx(40.4 / 10) and r.explicit
    # Theorem 15 (a): n = T = 100, eta = 0.1, L = 1, FS = 0.5: a = L FS = 0.5,
    # b = 4e (1 + T/n) L T eta^2 FS / n = 4e * 2 * 100 * 0.01 * 0.5 / 100 = 0.108731, kappa* = sqrt(a/b) = 2.14441,
    # total = a/kappa + (L + kappa) b = 0.233164 + 3.14441 * 0.108731 = 0.575060
    g = w.generalization_thm15(n=100, T=100, eta=0.1, L=1.0, FS=0.5)
    assert g.extras["kappa"] == pytest.approx(2.14441, rel=1e-5)
    assert g.total == pytest.approx(0.575060, rel=1e-5)
    with pytest.raises(ValueError):
        w.m_alpha_1(alpha=1.0, L=1.0)
    with pytest.raises(ValueError):
        w.generalization_thm15(n=100, T=100, eta=3.0, L=1.0, FS=0.5)  # eta > 2/L


def test_explicit_bound_of_theorem3_from_the_proof():
    from dpviz.theory import catalog
    from dpviz.theory.papers import wang_lownoise as w

    # n = T = 100, eta = 0.1, d = 10, sigma = 0.1, L = 1, ||w*|| = 1, F* = 0.1:
    # A: R^2 part (0.5 + 0.3) = 0.8; sigma part 3 * 100 * 1.3 * 0.01 * 0.01 * 10 = 0.39; F* part 1 + 0.6 = 1.6
    # cB = 8e * 2 * 1/100 = 0.434925; B: R^2 part cB * 0.1 * 100 * 0.1 = 0.434925;
    #   sigma part cB * 0.1 * 5050 * 3e-4 = 0.065891; F* part cB * 0.1 * 5050 * 2e-3 = 0.439274
    # kappa* = sqrt(L * 2.79 / 0.940090) = 1.72273; parts / (T eta) = /10:
    #   optimisation (1.58048 * 0.8 + 2.72273 * 0.434925)/10 = 0.244857
    #   privacy (1.58048 * 0.39 + 2.72273 * 0.065891)/10 = 0.079579
    #   statistical (1.58048 * 1.6 + 2.72273 * 0.439274)/10 - 0.1 = 0.272479
    out = w.explicit_smooth_risk(n=100, T=100, eta=0.1, d=10, sigma=0.1, L=1.0, R=1.0, Fstar=0.1)
    assert out["kappa"] == pytest.approx(1.72273, rel=1e-5)
    assert out["parts"]["optimisation"] == pytest.approx(0.244857, rel=1e-5)
    assert out["parts"]["privacy"] == pytest.approx(0.079579, rel=1e-4)
    assert out["parts"]["statistical"] == pytest.approx(0.272479, rel=1e-5)
    res = catalog.bound("wang-lownoise-thm3a", explicit=True, n=100, d=10, eps=1.0, delta=1e-6, L=1.0, R=1.0,
                        Fstar=0.1, sigma=0.1, T=100, eta=0.1)
    assert res.total == pytest.approx(0.244857 + 0.079579 + 0.272479, rel=1e-4) and res.form == "explicit"
    assert catalog.get_theorem("wang-lownoise-thm3a").forms == ["rate", "explicit"]
    low = catalog.bound("wang-lownoise-thm3b", explicit=True, n=100, d=10, eps=1.0, delta=1e-6, L=1.0, R=1.0,
                        sigma=0.1, T=100, eta=0.1)
    assert [t.name for t in low.terms] == ["optimisation", "privacy"]


def test_explicit_bound_of_theorem6_pairwise():
    from dpviz.theory import catalog
    from dpviz.theory.papers import wang_lownoise as w

    # Same point as the pointwise test (n = T = 100, eta = 0.1, d = 10, sigma = 0.1, L = 1, R = 1, F* = 0.1);
    # A is unchanged (0.8, 0.39, 1.6; a = 2.79); pairwise B: coefficient 32e (1 + 2T/n) L/n = 32e * 3/100 = 2.609556
    # times eta (2 T eta R^2 + T(T+1)/2 (6 eta^3 sigma^2 d + 4 eta^2 F*)):
    #   R^2 part 2.609556 * 0.1 * 2 * 100 * 0.1 = 5.219112; sigma part 2.609556 * 0.1 * 5050 * 6e-4 = 0.790696;
    #   F* part 2.609556 * 0.1 * 5050 * 4e-3 = 5.271303; b = 11.281111
    # kappa* = sqrt(2.79/11.281111) = 0.497309; 1 + L/kappa = 3.010801; L + kappa = 1.497309
    # optimisation (3.010801 * 0.8 + 1.497309 * 5.219112)/10 = (2.408641 + 7.814623)/10 = 1.022326
    out = w.explicit_smooth_risk(n=100, T=100, eta=0.1, d=10, sigma=0.1, L=1.0, R=1.0, Fstar=0.1, pairwise=True)
    assert out["kappa"] == pytest.approx(0.497309, rel=1e-5)
    assert out["parts"]["optimisation"] == pytest.approx(1.022326, rel=1e-5)
    res = catalog.bound("wang-lownoise-thm6a", explicit=True, n=100, d=10, eps=1.0, delta=1e-6, L=1.0, R=1.0,
                        Fstar=0.1, sigma=0.1, T=100, eta=0.1)
    assert res.total == pytest.approx(sum(out["parts"].values()), rel=1e-9) and res.explicit


# ---------------------------------------------------------------------------------------------------------------
# Explicit constants of Theorems 4 and 7 (alpha-Hölder smooth), from the proofs (eq. (14), Lemmas 13 (b), 14 (b),
# Theorem 16 (b); pairwise Lemmas 17 (b), 19 (b), 20), the fixed point of the proof of Theorem 4 solved with
# K_alpha = 2(1-alpha)/(1+alpha) (4alpha/(1+alpha))^(2alpha/(1-alpha)).
#
# Point P1: alpha = 1/2, L = 2, n = T = 100, eta = 0.1, d = 10, sigma = 0.1, R = 1, kappa = 1.
#   M1^2 = ((1 + 2)^(1/3) 2^(2/3))^2 = 3^(2/3) 2^(4/3) = 2.080084 * 2.519842 = 5.241483   (eq. (4))
#   M2 = (1/3)(2/3)^2 M1^6 = 64/3 = 21.333333   (eq. (5));  M3^2 = (1/3)(2^-0.5 * 2)^4 = 4/3   (Lemma 14 (b))
#   Mbar3^2 = (e/3)(1.5)^2 (2^2)^2 = 12e = 32.619382   (Lemma 19 (b));  K_1/2 = (2/3)(4/3)^2 = 32/27 = 1.185185
#   Q = 2 eta R^2 + T(6 eta^3 sigma^2 d + 4 eta^2 F* + 3 M2 eta^5)
#     (a, F* = 0.1) = 0.2 + 100 (6e-4 + 4e-3 + 6.4e-4) = 0.724;  (b, F* = 0) = 0.2 + 100 (6e-4 + 6.4e-4) = 0.324
#   P = (T eta^2)^(1/3) Q^(2/3) = Q^(2/3): (a) 0.724^(2/3) = 0.806292;  (b) 0.324^(2/3) = 0.471733
#   optimisation = (3/4 M1^2 P + R^2/2)/(T eta): (a) (3.169624 + 0.5)/10 = 0.366962; (b) (1.854437 + 0.5)/10 = 0.235444
#   privacy = 3 eta sigma^2 d = 3 * 0.1 * 0.01 * 10 = 0.03
#   generalization (kappa = 1) = M1^2 P/(T eta^2) + c1 M1^2 P + c2 T eta^4 + K (M1^2/2)^3, (M1^2/2)^3 = 18.0003,
#     K * 18.0003 = 21.333622:
#     pointwise c1 = 4e(1 + 1)/100 = 0.217463, c2 = e M3^2 = 3.624376:
#       (a) 4.226127 + 0.919025 + 0.036244 + 21.333622 = 26.515018 -> total 26.912 (hand, to 4 digits 26.91)
#       (b) 2.472580 + 0.537694 + 0.036244 + 21.333622 = 24.380140 -> total 24.645
#     pairwise c1 = 32e(1 + 2)/100 = 2.609556, c2 = 4e Mbar3^2 = 354.680: (a) 4.226127 + 11.028317 + 3.546795
#       + 21.333622 = 40.134861 -> total 40.53;  (b) 2.472580 + 6.452335 + 3.546795 + 21.333622 = 33.805332 -> 34.07
#
# Point P2: alpha = 0, L = 1, M = 1, n = 100, T = 200, eta = 0.05, d = 5, sigma = 0.2, R = 2, kappa = 2.
#   M_{0,1} = M + L = 2 (eq. (4)), M3 = 1, Mbar3^2 = e * 1 * 4 * 1 = 4e;  at alpha = 0, F^0 = 1: P = T eta^2 = 0.5
#   optimisation = (3/4 * 4 * 0.5 + 4/2)/(200 * 0.05) = 3.5/10 = 0.35;  privacy = 3 * 0.05 * 0.04 * 5 = 0.03
#   generalization = M1^2/(2 kappa) + (c1 kappa M1^2 P + c2 kappa T eta^2)/2:
#     pointwise c1 = 4e(1 + 2)/100 = 0.326194, c2 = e: 1 + (0.326194*2*4*0.5 + e*2*0.5)/2 = 1 + (1.304776
#       + 2.718282)/2 = 3.011529 -> total 3.391529 (F* does not enter at alpha = 0: parts (a) and (b) agree)
#     pairwise c1 = 32e(1 + 4)/100 = 4.349251, c2 = 4e * 4e = 16e^2 = 118.224: 1 + (17.397006 + 118.223895)/2
#       = 68.810451 -> total 69.190451

_P1 = dict(n=100, T=100, eta=0.1, d=10, eps=1.0, delta=1e-6, sigma=0.1, L=2.0, R=1.0, alpha=0.5, kappa_gen=1.0)
_P2 = dict(n=100, T=200, eta=0.05, d=5, eps=1.0, delta=1e-6, sigma=0.2, L=1.0, M=1.0, R=2.0, alpha=0.0, kappa_gen=2.0)


@pytest.mark.parametrize("tid, point, fstar, parts", [
    ("wang-lownoise-thm4a", _P1, 0.1, (0.366962, 0.03, 26.515018)),
    ("wang-lownoise-thm4b", _P1, None, (0.235444, 0.03, 24.380140)),
    ("wang-lownoise-thm7a", _P1, 0.1, (0.366962, 0.03, 40.134861)),
    ("wang-lownoise-thm7b", _P1, None, (0.235444, 0.03, 33.805332)),
    ("wang-lownoise-thm4a", _P2, 0.2, (0.35, 0.03, 3.011529)),
    ("wang-lownoise-thm4b", _P2, None, (0.35, 0.03, 3.011529)),
    ("wang-lownoise-thm7a", _P2, 0.2, (0.35, 0.03, 68.810451)),
    ("wang-lownoise-thm7b", _P2, None, (0.35, 0.03, 68.810451)),
])
def test_explicit_holder_theorems_4_and_7_by_hand(tid, point, fstar, parts):
    from dpviz.theory import catalog

    params = dict(point, **({"Fstar": fstar} if fstar is not None else {}))
    res = catalog.bound(tid, explicit=True, **params)
    assert res.explicit and res.form == "explicit" and res.T == point["T"] and res.eta == point["eta"]
    assert [t.name for t in res.terms] == ["optimisation", "privacy", "generalization"]
    assert [t.value for t in res.terms] == pytest.approx(list(parts), rel=2e-5)
    assert res.total == pytest.approx(sum(parts), rel=2e-5)
    assert catalog.get_theorem(tid).forms == ["rate", "explicit"]


def test_explicit_holder_constants_and_kappa():
    from dpviz.theory.papers import wang_lownoise as w

    assert w.young_constant(0.5) == pytest.approx(32 / 27)
    # Mbar_{1/2,3}^2 = 12e (Lemma 19 (b), as printed) >= M_{1/2,3}^2 = 4/3 (Lemma 14 (b))
    assert w.m_bar_alpha_3(alpha=0.5, L=2.0) ** 2 == pytest.approx(12 * math.e)
    assert w.m_bar_alpha_3(alpha=0.5, L=2.0) >= w.m_alpha_3(alpha=0.5, L=2.0)
    # kappa left free: the minimiser of the generalization part, never worse than the proof's kappa = sqrt(n)
    base = dict(n=100, T=100, eta=0.1, d=10, sigma=0.1, L=2.0, R=1.0, Fstar=0.1, alpha=0.5)
    best = w.explicit_holder_risk(**base)
    for k in (1.0, 10.0, best["kappa"] * 1.01, best["kappa"] / 1.01):
        assert best["parts"]["generalization"] <= w.explicit_holder_risk(**base, kappa=k)["parts"]["generalization"]
    with pytest.raises(ValueError, match="M_\\{0,1\\}"):
        w.explicit_holder_risk(**{**base, "alpha": 0.0})  # alpha = 0 needs M (M_{0,1} = M + L)


@pytest.mark.parametrize("tid", ["wang-lownoise-thm4a", "wang-lownoise-thm4b", "wang-lownoise-thm7a",
                                 "wang-lownoise-thm7b"])
def test_explicit_holder_at_least_the_rate_where_the_proof_implies_it(tid):
    # Algorithm 1/2's sigma^2 = c0 G^2 T lambda/(beta n^2 eps) with lambda >= log(1/delta)/eps, beta < 1, c0 >= 14, so
    # the explicit privacy term 3 eta sigma^2 d >= 42 eta G^2 T d log(1/delta)/(n^2 eps^2).  On the eps-branch of the
    # step size, eta = c eps/sqrt(d log(1/delta)) (part (a), T >= n) or eta = c n eps/(T sqrt(d log(1/delta)))
    # (part (b)), this is >= 42 c G^2 sqrt(d log(1/delta))/(n eps) = 42 c G^2 x the rate's privacy term.  Where the
    # rate's privacy term is at least its statistical term, rate total <= 2 x privacy <= explicit total (42 c G^2 >= 2).
    from dpviz.theory import catalog

    checked = 0
    for n, d in ((10**4, 10), (10**5, 10), (10**6, 10), (10**4, 10**4), (10**5, 10**5)):
        for eps in (0.3, 1.0, 4.0):
            for alpha in (0.25, 0.5, 0.75):
                p = dict(n=n, d=d, eps=eps, delta=1.0 / n**2, alpha=alpha, L=1.0, R=1.0, G=1.0, Fstar=0.1)
                try:
                    ex = catalog.bound(tid, explicit=True, **p)
                except ValueError:
                    continue  # no feasible beta for Algorithm 1/2 here
                rate = catalog.bound(tid, n=n, d=d, eps=eps, delta=1.0 / n**2, alpha=alpha)
                root = math.sqrt(d * math.log(n**2))
                eps_branch = ex.eta == pytest.approx(eps / root if tid.endswith("a") else n * eps / (ex.T * root))
                if not eps_branch:
                    continue
                priv = {t.name: t.value for t in ex.terms}["privacy"]
                rate_terms = {t.name: t.value for t in rate.terms}
                assert priv >= 42 * rate_terms["privacy"] * (1 - 1e-12)
                if rate_terms["privacy"] >= rate_terms["statistical"]:
                    assert ex.total >= rate.total
                checked += 1
    assert checked >= 5


def test_explicit_smooth_bounds_warn_when_eta_above_one_over_2L():
    # issue 19: Theorem 3 (b) explicit at n = 5000, d = 1, eps = 1, delta = 1e-3, L = 2, R = 1, G = 1:
    # eta = c eps/sqrt(d log(1/delta)) = 1/sqrt(ln 1000) = 1/sqrt(6.907755) = 1/2.628261 = 0.380480 > 1/(2L) = 0.25, while
    # min{2/L, 1} = 1 (the condition the theorem states) holds: the Young step of eq. (8) / Theorem 16 (a) fails.
    from dpviz.theory import catalog as cat

    p = dict(n=5000, d=1, eps=1.0, delta=1e-3, L=2.0, R=1.0, G=1.0)
    res = cat.get_theorem("wang-lownoise-thm3b").explicit_bound(**p)
    assert res.eta == pytest.approx(0.380480, rel=1e-5)
    assert any("1/(2L) = 0.25" in note and "eta = 0.3805" in note and "eq. (8)" in note for note in res.notes)
    assert res.extras["eta_above_1_over_2L"]
    # L = 1: 1/(2L) = 0.5 >= 0.380480: no warning
    ok = cat.get_theorem("wang-lownoise-thm3b").explicit_bound(**{**p, "L": 1.0})
    assert not any("1/(2L)" in note for note in ok.notes)
    # Theorem 6 (pairwise) explicit: same step size, eq. (11); Theorem 3 (a): eta = min{1/sqrt(5000), 0.380480}
    # = 0.0141421 <= 0.25: no warning
    six = cat.get_theorem("wang-lownoise-thm6b").explicit_bound(**p)
    assert any("1/(2L) = 0.25" in note and "eq. (11)" in note and "Theorem 6" in note for note in six.notes)
    a = cat.get_theorem("wang-lownoise-thm3a").explicit_bound(**p, Fstar=0.1)
    assert a.eta == pytest.approx(1 / math.sqrt(5000)) and not any("1/(2L)" in note for note in a.notes)
    # the rate forms warn too (same schedule eta = 0.380480) when L is given; the Hölder theorems do not
    for tid in ("wang-lownoise-thm3b", "wang-lownoise-thm6b"):
        rate = cat.bound(tid, n=5000, d=1, eps=1.0, delta=1e-3, L=2.0)
        assert any("1/(2L) = 0.25" in note for note in rate.notes)
        assert not any("1/(2L)" in note for note in cat.bound(tid, n=5000, d=1, eps=1.0, delta=1e-3, L=1.0).notes)
    assert not any("1/(2L)" in note
                   for note in cat.bound("wang-lownoise-thm4b", n=5000, d=1, eps=1.0, delta=1e-3, L=2.0,
                                         alpha=0.5).notes)


def test_largest_root_by_hand():
    # p = 1/2: xi = a sqrt(xi) + B  =>  sqrt(xi) = (a + sqrt(a^2 + 4B))/2; a = 1, B = 2: sqrt(xi) = (1 + 3)/2 = 2,
    # xi = 4; Young's form 2B + K a^(1/(1-p)) with K = 2(1 - p)(2p)^(p/(1-p)) = 2 * 0.5 * 1 = 1 gives 5 >= 4.
    assert w.largest_root(1.0, 0.5, 2.0) == pytest.approx(4.0, rel=1e-12)
    # B = 0: xi = a^(1/(1-p)) = 3^2 = 9; a = 0: xi = B
    assert w.largest_root(3.0, 0.5, 0.0) == pytest.approx(9.0, rel=1e-12)
    assert w.largest_root(0.0, 0.5, 2.5) == 2.5
    # p = 1/3, a = 2, B = 0: xi = 2^(3/2) = 2.828427
    assert w.largest_root(2.0, 1.0 / 3.0, 0.0) == pytest.approx(2.828427, rel=1e-6)


def test_holder_explicit_tightest_form_beside_the_literal_one():
    # alpha = 1/3: p = 2 alpha/(1 + alpha) = 1/2, K_alpha = 2 (1/2) (1)^1 = 1, (1 + alpha)/(1 - alpha) = 2.
    # With kappa fixed, the proof's (Young) generalization part is gen = 2 Bbar + K a^2, a = M_{alpha,1}^2/(2 kappa),
    # so Bbar = (gen - a^2)/2; the largest root of xi = a sqrt(xi) + Bbar is ((a + sqrt(a^2 + 4 Bbar))/2)^2.
    p = dict(n=2000, d=5, eps=1.0, delta=1e-5, alpha=1.0 / 3.0, L=1.0, R=1.0, Fstar=0.1, G=1.0, kappa_gen=3.0)
    for thm in ("wang-lownoise-thm4a", "wang-lownoise-thm7a"):
        res = catalog.get_theorem(thm).explicit_bound(**p)
        ex = res.extras
        assert ex["K_alpha"] == pytest.approx(1.0)
        a = ex["M_alpha_1"] ** 2 / (2 * 3.0)
        gen = next(t.value for t in res.terms if t.name == "generalization")
        Bbar = (gen - a**2) / 2
        assert ex["generalization_root"] == pytest.approx(((a + math.sqrt(a**2 + 4 * Bbar)) / 2) ** 2, rel=1e-9)
        assert ex["generalization_root"] < gen and ex["total_root"] < res.total
        assert ex["total_root"] == pytest.approx(res.total - gen + ex["generalization_root"], rel=1e-12)
        assert any(note.startswith("Tightest valid form") and "literal Young form" in note for note in res.notes)
    # the example (Theorem 7 (a), n = 5512, d = 20, eps = 2, delta = 1e-6, alpha = 0.139, M = 0.5,
    # F* = 0.108, L = R = G = 1): total 0.847 (Young) vs 0.553 (largest root)
    res = catalog.get_theorem("wang-lownoise-thm7a").explicit_bound(n=5512, d=20, eps=2.0, delta=1e-6, alpha=0.139,
                                                                     M=0.5, Fstar=0.108, L=1.0, R=1.0, G=1.0)
    assert res.total == pytest.approx(0.847, abs=5e-4) and res.extras["total_root"] == pytest.approx(0.553, abs=5e-4)


def test_reading_of_M_is_recorded():
    # M is printed before eq. (4) as sup_z f(0; z); Remark 2 (||df(w; z)|| <= M + L||w||) needs sup_z ||df(0; z)||
    for tid in ("wang-lownoise-thm4a", "wang-lownoise-thm4b", "wang-lownoise-thm7a", "wang-lownoise-thm7b"):
        disc = catalog.get_theorem(tid).discrepancy
        assert "M = sup_z f(0; z)" in disc and "sup_z ||df(0; z)||" in disc and "Remark 2" in disc
    # G = M + L R^alpha = 0.5 + 2 * 4^0.5 = 4.5
    cal = w.calibrate_dpsgd_rdp(n=1000, eps=2.0, delta=1e-5, T=1000, M=0.5, L=2.0, R=4.0, alpha=0.5)
    assert any("= 4.5" in note and "sup_z ||df(0; z)||" in note for note in cal.notes)
