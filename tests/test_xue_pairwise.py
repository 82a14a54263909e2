"""Hand-checked numbers for Xue, Yang, Huai & Wang (Xue, Yang, Huai & Wang (xue-pairwise)): Algorithms 1-3 and Theorems 1-3.

Every expected value is written as the paper's formula with the numbers plugged in; ||C|| = 2R (diameter).
"""
import math

import pytest

from dpviz.theory import catalog
from dpviz.theory.papers import xue_pairwise as x

LOG = math.log


def Phi(z):
    return 0.5 * math.erfc(-z / math.sqrt(2))


# ---------------------------------------------------------------------------------------------------------------
# Algorithm 1 (DPGDSC)


def test_dpgd_sc_gaussian_two_points():
    # sigma = 8 sqrt(2 ln(1.25/delta)) G / (mu n eps)
    cal = x.calibrate_dpgd_sc(n=1000, eps=1.0, delta=1e-6, G=1.0, mu=0.1, sigma_rule="printed")
    assert cal.feasible and cal.laplace_scale is None
    assert cal.sigma == pytest.approx(8 * math.sqrt(2 * LOG(1.25e6)) * 1 / (0.1 * 1000 * 1), rel=1e-12)
    assert cal.sigma == pytest.approx(0.423904, rel=1e-5)  # 0.08 * sqrt(2 * 14.03865) = 0.08 * 5.298802
    assert cal.extras["sensitivity"] == pytest.approx(8 / (0.1 * 1000))
    cal = x.calibrate_dpgd_sc(n=200, eps=0.5, delta=1e-5, G=2.0, mu=0.5, sigma_rule="printed")
    # 8 * 2 * sqrt(2 ln(125000)) / (0.5 * 200 * 0.5) = 16 * 4.844805 / 50 = 1.550338
    assert cal.sigma == pytest.approx(16 * math.sqrt(2 * LOG(125000)) / 50, rel=1e-12)
    assert cal.sigma == pytest.approx(1.550338, rel=1e-5)
    assert cal.formula and "1.55" in cal.formula_numbers


def test_dpgd_sc_laplace_two_points():
    # lambda = 8 G sqrt(d) / (mu n eps)
    cal = x.calibrate_dpgd_sc(n=1000, eps=1.0, delta=0.0, G=1.0, mu=0.1, d=10)
    assert cal.sigma is None and cal.feasible
    assert cal.laplace_scale == pytest.approx(8 * 1 * math.sqrt(10) / (0.1 * 1000 * 1), rel=1e-12)  # 0.2529822
    assert cal.laplace_scale == pytest.approx(0.2529822, rel=1e-6)
    cal = x.calibrate_dpgd_sc(n=500, eps=2.0, delta=0, G=0.5, mu=0.2, d=4)
    assert cal.laplace_scale == pytest.approx(8 * 0.5 * 2 / (0.2 * 500 * 2))  # = 8/200 = 0.04
    assert cal.laplace_scale == pytest.approx(0.04)


def test_dpgd_sc_schedule_from_theorem1():
    # eta = 2/(L + mu), T = ceil(2 (L/mu) ln n)
    cal = x.calibrate_dpgd_sc(n=1000, eps=1.0, delta=1e-6, G=1.0, mu=0.1, L=1.0)
    assert cal.eta == pytest.approx(2 / 1.1)
    assert cal.T == math.ceil(2 * 10 * LOG(1000)) == 139  # 2 * 10 * 6.907755 = 138.155
    cal = x.calibrate_dpgd_sc(n=100, eps=1.0, delta=1e-6, G=1.0, mu=1.0, L=4.0)
    assert cal.eta == pytest.approx(0.4)  # 2/(4 + 1)
    assert cal.T == math.ceil(2 * 4 * LOG(100)) == 37  # 8 * 4.60517 = 36.84
    # user's eta and T are kept; sigma does not depend on T
    cal2 = x.calibrate_dpgd_sc(n=100, eps=1.0, delta=1e-6, G=1.0, mu=1.0, L=4.0, eta=0.1, T=5)
    assert (cal2.eta, cal2.T) == (0.1, 5) and cal2.sigma == pytest.approx(cal.sigma)


def test_dpgd_sc_infeasible_step():
    # eta = 2 > 2/(1 + 0.1) = 1.818: Lemma 1 fails
    cal = x.calibrate_dpgd_sc(n=1000, eps=1.0, delta=1e-6, G=1.0, mu=0.1, L=1.0, eta=2.0)
    assert not cal.feasible and cal.sigma is None
    assert "1.818" in cal.reason and "1.818" in cal.fix


@pytest.mark.parametrize("bad", [dict(mu=0.0), dict(mu=-1.0), dict(delta=0.0), dict(mu=2.0, L=1.0), dict(G=0.0),
                                 dict(d=0, delta=0.0), dict(delta=1.0)])
def test_dpgd_sc_value_errors(bad):
    params = dict(n=100, eps=1.0, delta=1e-5, G=1.0, mu=0.5)
    with pytest.raises(ValueError):
        x.calibrate_dpgd_sc(**{**params, **bad})


def test_dpgd_sc_delta_zero_needs_d_message():
    with pytest.raises(ValueError, match="dimension d"):
        x.calibrate_dpgd_sc(n=100, eps=1.0, delta=0.0, G=1.0, mu=0.5)


# ---------------------------------------------------------------------------------------------------------------
# Algorithm 2 (DPGDC2)


def test_dpgd_c_sigma_two_points():
    # sigma = 4 G sqrt(1.25 T log(1/delta)) / (n eps)
    cal = x.calibrate_dpgd_c(n=1000, eps=1.0, delta=1e-6, G=1.0, T=1000, sigma_rule="printed")
    assert cal.sigma == pytest.approx(4 * math.sqrt(1.25 * 1000 * LOG(1e6)) / 1000, rel=1e-12)
    assert cal.sigma == pytest.approx(0.525652, rel=1e-5)  # 4 * sqrt(17269.39) / 1000 = 4 * 131.4131 / 1000
    cal = x.calibrate_dpgd_c(n=100, eps=0.5, delta=1e-3, G=2.0, T=50, sigma_rule="printed")
    # 8 sqrt(1.25 * 50 * 6.907755) / 50 = 8 * 20.77824 / 50 = 3.324518
    assert cal.sigma == pytest.approx(8 * math.sqrt(1.25 * 50 * LOG(1e3)) / 50, rel=1e-12)
    assert cal.sigma == pytest.approx(3.324518, rel=1e-5)
    assert cal.T == 50 and cal.extras["sensitivity"] == pytest.approx(0.08)  # 4 * 2 / 100


def test_dpgd_c_default_T_and_eta():
    # T = floor(min{n, n^2 eps^2/(d log(1/delta))}); eta = ||C||/(G sqrt T) = 2R/(G sqrt T)
    cal = x.calibrate_dpgd_c(n=1000, eps=1.0, delta=1e-6, G=1.0, d=10, R=1.0)
    assert cal.T == 1000  # 1e6/(10 * 13.8155) = 7238 > 1000
    assert cal.eta == pytest.approx(2 / math.sqrt(1000))  # 0.0632456
    cal = x.calibrate_dpgd_c(n=1000, eps=0.1, delta=1e-6, G=1.0, d=10, R=1.0, sigma_rule="printed")
    assert cal.T == math.floor(1e4 / (10 * LOG(1e6))) == 72  # 10000/138.155 = 72.38
    assert cal.sigma == pytest.approx(4 * math.sqrt(1.25 * 72 * LOG(1e6)) / (1000 * 0.1), rel=1e-12)  # 1.410476
    assert cal.sigma == pytest.approx(1.410476, rel=1e-5)
    assert cal.eta == pytest.approx(2 / math.sqrt(72))
    # L = 10: 1/(2L) = 0.05 < eta = 0.0632: utility note (privacy unaffected)
    cal = x.calibrate_dpgd_c(n=1000, eps=1.0, delta=1e-6, G=1.0, d=10, R=1.0, L=10.0)
    assert cal.feasible and any("1/(2L)" in n for n in cal.notes)


def test_dpgd_c_exact_composition_check():
    # T Gaussian steps with sensitivity 4G/n and the printed sigma are mu-GDP, mu = eps / sqrt(1.25 log(1/delta))
    # eps = 1, delta = 1e-6: mu = 1/sqrt(17.26939) = 0.240637; delta(eps) = Phi(-1/mu + mu/2) - e Phi(-1/mu - mu/2)
    mu = 1 / math.sqrt(1.25 * LOG(1e6))
    expected = Phi(-1 / mu + mu / 2) - math.e * Phi(-1 / mu - mu / 2)
    cal = x.calibrate_dpgd_c(n=1000, eps=1.0, delta=1e-6, G=1.0, T=1000, sigma_rule="printed")
    assert cal.extras["gdp_mu"] == pytest.approx(0.240637, rel=1e-5)
    assert cal.extras["exact_delta"] == pytest.approx(expected, rel=1e-9)
    assert 1.3e-6 < cal.extras["exact_delta"] < 1.5e-6  # above delta = 1e-6: the printed sigma under-noises
    assert not cal.feasible and "not (eps, delta)-DP here" in cal.reason  # the printed sigma is not private
    assert any("not (ε, δ)-DP here" in n for n in cal.notes)
    # the exact accountant returns the sigma whose mu-GDP delta(eps) is exactly delta, and it is larger
    ex = x.calibrate_dpgd_c(n=1000, eps=1.0, delta=1e-6, G=1.0, T=1000, accountant="exact")
    assert ex.sigma == pytest.approx(cal.extras["sigma_exact"]) and ex.sigma > cal.sigma
    mu_ex = math.sqrt(1000) * (4 / 1000) / ex.sigma
    assert Phi(-1 / mu_ex + mu_ex / 2) - math.e * Phi(-1 / mu_ex - mu_ex / 2) == pytest.approx(1e-6, rel=1e-6)
    # eps = 0.5, delta = 1e-3: mu = 0.5/sqrt(1.25 * 6.907755) = 0.170156 -> delta(eps) ~ 1.0e-4 < 1e-3: no note
    cal = x.calibrate_dpgd_c(n=100, eps=0.5, delta=1e-3, G=2.0, T=50, sigma_rule="printed")
    mu = 0.5 / math.sqrt(1.25 * LOG(1e3))
    assert cal.extras["exact_delta"] == pytest.approx(Phi(-0.5 / mu + mu / 2) - math.exp(0.5) * Phi(-0.5 / mu - mu / 2))
    assert cal.extras["exact_delta"] < 1e-3 and cal.feasible and cal.extras["paper_sigma_private"]


@pytest.mark.parametrize("bad", [dict(delta=0.0), dict(T=None), dict(accountant="rdp"), dict(T=0), dict(G=-1.0),
                                 dict(eps=0.0), dict(sigma_rule="paper")])
def test_dpgd_c_value_errors(bad):
    params = dict(n=100, eps=1.0, delta=1e-5, G=1.0, T=10)
    with pytest.raises(ValueError):
        x.calibrate_dpgd_c(**{**params, **bad})


def test_dpgd_c_delta_zero_message():
    with pytest.raises(ValueError, match="no pure eps-DP"):
        x.calibrate_dpgd_c(n=100, eps=1.0, delta=0.0, G=1.0, T=10)


# ---------------------------------------------------------------------------------------------------------------
# Algorithm 3 (DPEGD)


@pytest.mark.parametrize("n", [2, 3, 4, 5, 16, 17, 100, 1000, 1024, 4097])
def test_epoch_sizes_match_the_simulation_engine(n):
    simulate = pytest.importorskip("dpviz.engine.simulate")
    assert x.epoch_sizes(n) == simulate._epoch_sizes(n)


def test_epoch_sizes_by_hand():
    assert x.epoch_sizes(16) == [8, 4, 2, 2]  # k = 4: 16/2, 16/4, 16/8, rest 2
    assert x.epoch_sizes(1000) == [500, 250, 125, 62, 31, 15, 7, 3, 7]  # k = 9; 1000 - 993 = 7
    assert x.epoch_sizes(2) == [2]


def test_dp_epoch_gd_gaussian_schedule():
    # n = 16: k = 4 epochs; sigma_i = 4 sqrt(2 ln(1.25/delta)) G eta 4^-i / eps, eta = 1, G = 1, eps = 1
    cal = x.calibrate_dp_epoch_gd(n=16, eps=1.0, delta=1e-5, G=1.0, eta=1.0, sigma_rule="printed")
    base = 4 * math.sqrt(2 * LOG(125000))  # 19.37922
    assert cal.sigma_schedule == pytest.approx([base / 4, base / 16, base / 64, base / 256], rel=1e-12)
    assert cal.sigma_schedule[0] == pytest.approx(4.844805, rel=1e-6)
    assert cal.sigma == cal.sigma_schedule[0]
    assert cal.T == 16 and cal.eta == 1.0 and cal.extras["epoch_sizes"] == [8, 4, 2, 2]
    assert cal.extras["eta_schedule"] == pytest.approx([1 / 4, 1 / 16, 1 / 64, 1 / 256])
    assert not any("power of 2" in n for n in cal.notes)
    # second point: n = 1000 (9 epochs), eta = 0.01, G = 2, eps = 0.5, delta = 1e-6
    cal = x.calibrate_dp_epoch_gd(n=1000, eps=0.5, delta=1e-6, G=2.0, eta=0.01, sigma_rule="printed")
    assert len(cal.sigma_schedule) == 9
    assert cal.sigma_schedule[0] == pytest.approx(4 * math.sqrt(2 * LOG(1.25e6)) * 2 * 0.01 / 4 / 0.5)  # 0.2119521
    assert cal.sigma_schedule[8] == pytest.approx(4 * math.sqrt(2 * LOG(1.25e6)) * 2 * 0.01 * 4**-9 / 0.5)
    assert any("power of 2" in n for n in cal.notes)


def test_dp_epoch_gd_laplace_schedule():
    # lambda_i = 4 G eta_i sqrt(d) / eps = 4 * 2 * (0.5 * 4^-i) * 2 / 2 = 4 * 4^-i
    cal = x.calibrate_dp_epoch_gd(n=16, eps=2.0, delta=0.0, G=2.0, eta=0.5, d=4)
    assert cal.sigma is None and cal.sigma_schedule is None
    assert cal.extras["laplace_schedule"] == pytest.approx([1.0, 0.25, 0.0625, 0.015625])
    assert cal.laplace_scale == pytest.approx(1.0)
    # second point: n = 8 (k = 3: sizes 4, 2, 2), eta = 0.1, G = 1, d = 9, eps = 1: lambda_1 = 4 * 0.025 * 3 = 0.3
    cal = x.calibrate_dp_epoch_gd(n=8, eps=1.0, delta=0, G=1.0, eta=0.1, d=9)
    assert cal.extras["laplace_schedule"] == pytest.approx([0.3, 0.075, 0.01875])


def test_dp_epoch_gd_default_eta_from_theorem3():
    # n = 1024, d = 10, delta = 1e-6: eta = 2R/G * min{4/32, 1/sqrt(10 * 13.81551)} = 2 * 0.0850779 = 0.1701557
    cal = x.calibrate_dp_epoch_gd(n=1024, eps=1.0, delta=1e-6, G=1.0, d=10, R=1.0, sigma_rule="printed")
    eta = 2 * min(4 / 32, 1 / math.sqrt(10 * LOG(1e6)))
    assert cal.eta == pytest.approx(eta) and cal.eta == pytest.approx(0.1701557, rel=1e-6)
    assert len(cal.sigma_schedule) == 10
    assert cal.sigma == pytest.approx(4 * math.sqrt(2 * LOG(1.25e6)) * eta / 4)  # = 5.298802 * 0.1701557 = 0.901622
    assert cal.sigma == pytest.approx(0.901622, rel=1e-5)
    # delta = 0: eta = 2 * min{0.125, eps/d = 0.1} = 0.2
    cal = x.calibrate_dp_epoch_gd(n=1024, eps=1.0, delta=0.0, G=1.0, d=10, R=1.0)
    assert cal.eta == pytest.approx(0.2)
    assert cal.laplace_scale == pytest.approx(4 * 1 * 0.05 * math.sqrt(10) / 1)  # 0.6324555


def test_dp_epoch_gd_infeasible_step():
    # L = 20: eta = 0.5 > 2/L = 0.1
    cal = x.calibrate_dp_epoch_gd(n=16, eps=1.0, delta=1e-5, G=1.0, eta=0.5, L=20.0)
    assert not cal.feasible and "0.1" in cal.reason and "0.1" in cal.fix
    assert x.calibrate_dp_epoch_gd(n=16, eps=1.0, delta=1e-5, G=1.0, eta=0.1, L=20.0).feasible


@pytest.mark.parametrize("bad", [dict(delta=0.0), dict(eta=None), dict(eta=0.0), dict(n=1), dict(G=0.0),
                                 dict(delta=-1e-3)])
def test_dp_epoch_gd_value_errors(bad):
    params = dict(n=16, eps=1.0, delta=1e-5, G=1.0, eta=0.1)
    with pytest.raises(ValueError):
        x.calibrate_dp_epoch_gd(**{**params, **bad})


# ---------------------------------------------------------------------------------------------------------------
# Theorems


def test_thm1_gaussian():
    # n = 1000, d = 10, eps = 1, delta = 1e-6, G = L = 1, mu = 0.1, R = 1 (||C|| = 2)
    res = x.bound_thm1(n=1000, d=10, eps=1.0, delta=1e-6, G=1.0, L=1.0, mu=0.1, R=1.0)
    t = {term.name: term for term in res.terms}
    assert t["privacy"].value == pytest.approx(1 * 1 * 10 * LOG(1e6) / (0.01 * 1e6 * 1))  # 0.01381551
    assert t["statistical"].value == pytest.approx(1 / (0.1 * 1000))  # 0.01
    assert t["optimisation"].value == pytest.approx(1 * 4 * math.exp(-2 * (2 / 1.1) * 0.1 * 1 * 139 / 1.1))
    assert res.exponents == {"privacy": {"n": -2, "eps": -2}, "statistical": {"n": -1, "eps": 0},
                             "optimisation": {"n": -2, "eps": 0}}
    assert res.T == 139 and res.eta == pytest.approx(2 / 1.1)
    assert res.gradient_complexity == 139 * 1000 * 999
    assert res.total == pytest.approx(sum(term.value for term in res.terms))


def test_thm1_laplace_and_c():
    # delta = 0: n = 100, d = 5, eps = 2, G = 2, L = 4, mu = 1, R = 0.5 (||C|| = 1); T = 37, eta = 0.4
    res = x.bound_thm1(n=100, d=5, eps=2.0, delta=0.0, G=2.0, L=4.0, mu=1.0, R=0.5, c=3.0)
    t = {term.name: term.value for term in res.terms}
    assert t["privacy"] == pytest.approx(3 * 4 * 4 * 25 / (1 * 1e4 * 4))  # c L G^2 d^2/(mu^2 n^2 eps^2) = 0.03
    assert t["statistical"] == pytest.approx(3 * 4 / (1 * 100))  # c G^2/(mu n) = 0.12
    assert t["optimisation"] == pytest.approx(3 * 4 * 1 * math.exp(-2 * 0.4 * 1 * 4 * 37 / 5))
    assert res.T == 37 and res.eta == pytest.approx(0.4)


def test_thm1_explicit():
    # (L/2) d sigma^2 with sigma = 8 sqrt(2 ln(1.25e6))/(0.1 * 1000) = 0.4239042 -> 0.5 * 10 * 0.1796947 = 0.898474
    res = catalog.bound("xue-pairwise-thm1", explicit=True, n=1000, d=10, eps=1.0, delta=1e-6, G=1.0, L=1.0,
                        mu=0.1, R=1.0)
    t = {term.name: term.value for term in res.terms}
    assert t["privacy"] == pytest.approx(0.5 * 1 * 10 * (8 * math.sqrt(2 * LOG(1.25e6)) / 100) ** 2)
    assert t["privacy"] == pytest.approx(0.898474, rel=1e-5)
    assert t["statistical"] == pytest.approx(16 * 1 / (0.1 * 1000))  # 2 beta = 16 G^2/(mu n) = 0.16
    assert t["optimisation"] == pytest.approx(0.5 * 1 * 4 * math.exp(-2 * (2 / 1.1) * 0.1 * 139 / 1.1))
    assert res.explicit
    # Laplace: (L/2) * 2 d lambda^2, lambda = 8 G sqrt(d)/(mu n eps) = 16 sqrt(5)/200 = 0.1788854 -> 2 * 10 * 0.032
    res = x.explicit_bound_thm1(n=100, d=5, eps=2.0, delta=0.0, G=2.0, L=4.0, mu=1.0, R=0.5)
    assert res.terms[0].value == pytest.approx(4 / 2 * 2 * 5 * (16 * math.sqrt(5) / 200) ** 2)
    assert res.terms[0].value == pytest.approx(0.64)
    assert res.terms[1].value == pytest.approx(16 * 4 / 100)  # 0.64


def test_thm2_two_points():
    res = x.bound_thm2(n=1000, d=10, eps=1.0, delta=1e-6, G=1.0, R=1.0)
    t = {term.name: term.value for term in res.terms}
    assert t["privacy"] == pytest.approx(2 * math.sqrt(10 * LOG(1e6)) / 1000)  # 2 * 11.75396/1000 = 0.02350792
    assert t["statistical"] == pytest.approx(2 / math.sqrt(1000))  # 0.0632456
    assert res.T == 1000 and res.eta == pytest.approx(2 / math.sqrt(1000))
    assert res.gradient_complexity == 1000 * 1000 * 999
    assert res.exponents == {"privacy": {"n": -1, "eps": -1}, "statistical": {"n": -0.5, "eps": 0}}
    # n = 400, d = 100, eps = 0.5, delta = 1e-4, G = 2, R = 0.5 (||C|| = 1):
    # T = floor(min{400, 160000 * 0.25/(100 * 9.21034)}) = floor(43.43) = 43, eta = 1/(2 sqrt 43) = 0.0762493
    res = x.bound_thm2(n=400, d=100, eps=0.5, delta=1e-4, G=2.0, R=0.5, c=2.0)
    t = {term.name: term.value for term in res.terms}
    assert res.T == 43 and res.eta == pytest.approx(1 / (2 * math.sqrt(43)))
    assert t["privacy"] == pytest.approx(2 * 2 * 1 * math.sqrt(100 * LOG(1e4)) / (400 * 0.5))  # 0.6069709
    assert t["statistical"] == pytest.approx(2 * 2 * 1 / 20)  # 0.2
    # the calibration's defaults are the theorem's schedule
    cal = x.calibrate_dpgd_c(n=400, eps=0.5, delta=1e-4, G=2.0, d=100, R=0.5)
    assert (cal.T, cal.eta) == (res.T, pytest.approx(res.eta))


def test_thm2_step_condition_and_errors():
    # L = 100: 1/(2L) = 0.005 < eta = 0.0632
    res = x.bound_thm2(n=1000, d=10, eps=1.0, delta=1e-6, G=1.0, R=1.0, L=100.0)
    assert any("1/(2L)" in n for n in res.notes)
    with pytest.raises(ValueError, match="no pure eps-DP"):
        x.bound_thm2(n=1000, d=10, eps=1.0, delta=0.0, G=1.0, R=1.0)
    with pytest.raises(ValueError):
        x.bound_thm2(n=1000, d=10, eps=1.0, delta=1e-6, G=1.0, R=0.0)


def test_thm3_gaussian_and_laplace():
    # n = 1024 (k = 10), d = 10, eps = 1, delta = 1e-6, G = 1, R = 1
    res = x.bound_thm3(n=1024, d=10, eps=1.0, delta=1e-6, G=1.0, R=1.0)
    t = {term.name: term.value for term in res.terms}
    assert t["privacy"] == pytest.approx(2 * math.sqrt(10 * LOG(1e6)) / 1024)  # 0.02295691
    assert t["statistical"] == pytest.approx(2 / 32)
    assert res.eta == pytest.approx(2 * min(4 / 32, 1 / math.sqrt(10 * LOG(1e6)))) and res.T == 1024
    sizes = [512, 256, 128, 64, 32, 16, 8, 4, 2, 2]
    assert res.gradient_complexity == sum(m * m * (m - 1) for m in sizes)
    # delta = 0: n = 16, d = 4, eps = 2, G = 1, R = 1: eta = 2 min{1, 0.5} = 1; privacy G||C|| d/(n eps) = 8/32
    res = x.bound_thm3(n=16, d=4, eps=2.0, delta=0.0, G=1.0, R=1.0)
    t = {term.name: term.value for term in res.terms}
    assert t["privacy"] == pytest.approx(2 * 4 / (16 * 2))  # 0.25
    assert t["statistical"] == pytest.approx(2 / 4)  # 0.5
    assert res.eta == pytest.approx(1.0)
    assert res.gradient_complexity == 8 * 8 * 7 + 4 * 4 * 3 + 2 * 2 * 1 + 2 * 2 * 1  # 504
    # the calibration's default eta is the theorem's
    cal = x.calibrate_dp_epoch_gd(n=16, eps=2.0, delta=0.0, G=1.0, d=4, R=1.0)
    assert cal.eta == pytest.approx(res.eta)
    # eta > 2/L flagged
    assert any("2/L" in n for n in x.bound_thm3(n=16, d=4, eps=2.0, delta=0.0, G=1.0, R=1.0, L=10.0).notes)


@pytest.mark.parametrize("tid", ["xue-pairwise-thm1", "xue-pairwise-thm2", "xue-pairwise-thm3"])
@pytest.mark.parametrize("bad", [dict(n=1), dict(eps=-1.0), dict(delta=1.5), dict(G=0.0), dict(d=0), dict(c=0.0)])
def test_theorem_value_errors(tid, bad):
    params = dict(n=100, d=5, eps=1.0, delta=1e-5, G=1.0, L=1.0, mu=0.5, R=1.0)
    with pytest.raises(ValueError):
        catalog.bound(tid, **{**params, **bad})


def test_thm1_mu_errors():
    with pytest.raises(ValueError, match="cannot exceed"):
        x.bound_thm1(n=100, d=5, eps=1.0, delta=1e-5, G=1.0, L=1.0, mu=2.0, R=1.0)
    with pytest.raises(ValueError):
        x.bound_thm1(n=100, d=5, eps=1.0, delta=1e-5, G=1.0, L=1.0, mu=0.0, R=1.0)


# ---------------------------------------------------------------------------------------------------------------
# helpers and catalogue


def test_sensitivity_and_gdp_helpers():
    assert x.pairwise_gradient_sensitivity(n=50, G=2.0) == pytest.approx(4 * 2 / 50)
    # a single Gaussian mechanism with sigma = Delta: mu = 1; delta(1) = 0.308538 - 2.718282 * 0.0668072 = 0.126937
    assert x.gaussian_exact_delta(eps=1.0, mu=1.0) == pytest.approx(Phi(-0.5) - math.e * Phi(-1.5))
    assert x.gaussian_exact_delta(eps=1.0, mu=1.0) == pytest.approx(0.126937, rel=1e-5)
    mu = x.gaussian_mu_for(eps=1.0, delta=0.126937)
    assert mu == pytest.approx(1.0, rel=1e-5)
    with pytest.raises(ValueError):
        x.gaussian_mu_for(eps=1.0, delta=0.0)


def test_catalogue_entries():
    ids = {a.id for a in catalog.algorithms() if a.paper.key == "xue-pairwise"}
    assert ids == {"dpgd-sc", "dpgd-c", "dp-epoch-gd", "dpgdc"}
    for aid in ids:
        alg = catalog.get_algorithm(aid)
        assert alg.setting == "pairwise" and ".txt" not in alg.paper.cite()
    assert catalog.get_algorithm("dpgd-c").perturbation == "gradient"
    for tid in ("xue-pairwise-thm1", "xue-pairwise-thm2", "xue-pairwise-thm3"):
        assert catalog.get_theorem(tid).discrepancy
    assert "||C||^2" in catalog.get_theorem("xue-pairwise-thm1").discrepancy
    assert catalog.get_paper("xue-pairwise").cite() == "Xue, Yang, Huai & Wang (IJCAI 2021)"
    # the catalogue's calibrate passes only the names each function takes
    cal = catalog.calibrate("dp-epoch-gd", n=16, eps=1.0, delta=1e-5, G=1.0, eta=1.0, T=999, mu=0.3)
    assert cal.T == 16 and len(cal.sigma_schedule) == 4


# ---------------------------------------------------------------------------------------------------------------
# Issue 9: "feasible" means (eps, delta)-DP under the exact Gaussian check


def test_dpgd_c_private_by_default_issue_numbers():
    # n = 1000, d = 10, eps = 5, delta = 1e-8: T = floor(min{1000, 1e6 * 25/(10 * 18.4207)}) = 1000.
    # printed sigma = 4 sqrt(1.25 * 1000 * 18.4207)/(1000 * 5) = 4 * 151.744/5000 = 0.121394.
    # Exact composition: one Gaussian with sensitivity sqrt(1000) * 0.004 = 0.126491, i.e. mu = 1.04199;
    # delta = Phi(mu/2 - eps/mu) - e^5 Phi(-mu/2 - eps/mu) = Phi(-4.27753) - 148.413 Phi(-5.31952)
    #       = 9.4554e-6 - 148.413 * 5.2062e-8 = 1.728e-6 > 1e-8.
    cal = x.calibrate_dpgd_c(n=1000, eps=5.0, delta=1e-8, G=1.0, d=10)
    assert cal.T == 1000 and cal.feasible
    assert cal.extras["sigma_paper"] == pytest.approx(0.12139, abs=1e-5)
    mu = math.sqrt(1000) * 0.004 / cal.extras["sigma_paper"]
    assert mu == pytest.approx(1.04199, rel=1e-5)
    assert Phi(mu / 2 - 5 / mu) - math.exp(5) * Phi(-mu / 2 - 5 / mu) == pytest.approx(1.728e-6, rel=1e-3)
    assert cal.extras["paper_exact_delta"] == pytest.approx(1.728e-6, rel=1e-3)
    assert cal.extras["paper_sigma_private"] is False
    assert cal.sigma == pytest.approx(0.1441, abs=1e-4) == cal.extras["sigma_private"]
    mu = math.sqrt(1000) * 0.004 / cal.sigma  # the released sigma meets delta exactly
    assert Phi(mu / 2 - 5 / mu) - math.exp(5) * Phi(-mu / 2 - 5 / mu) == pytest.approx(1e-8, rel=1e-6)
    assert "exact" in cal.extras["privacy_check"] and cal.extras["sigma_rule"] == "private"
    # the printed sigma on request: labelled, not feasible
    pr = x.calibrate_dpgd_c(n=1000, eps=5.0, delta=1e-8, G=1.0, d=10, sigma_rule="printed")
    assert pr.sigma == pytest.approx(0.12139, abs=1e-5) and not pr.feasible
    assert "as printed" in pr.reason and "not (eps, delta)-DP here" in pr.reason and "sigma_rule='private'" in pr.fix
    # eps = 1, delta = 1e-6 (T = 1000): printed sigma 0.525652, exact delta 1.40e-6 > 1e-6
    cal = x.calibrate_dpgd_c(n=1000, eps=1.0, delta=1e-6, G=1.0, d=10)
    assert cal.extras["paper_exact_delta"] == pytest.approx(1.40e-6, rel=5e-3) and cal.feasible
    assert cal.sigma > cal.extras["sigma_paper"]


def test_dpgd_sc_analytic_gaussian_and_large_eps():
    from dpviz.theory.gaussian import delta_of

    # n = 1000, mu = 0.1, G = 1: sensitivity 8/(0.1 * 1000) = 0.08.  eps = 1, delta = 1e-6: printed sigma
    # 0.08 sqrt(2 ln 1.25e6) = 0.423904 is private (classical mechanism, eps <= 1) and larger than the analytic one.
    cal = x.calibrate_dpgd_sc(n=1000, eps=1.0, delta=1e-6, G=1.0, mu=0.1)
    assert cal.feasible and cal.extras["paper_sigma_private"] is True
    assert cal.extras["sigma_paper"] == pytest.approx(0.423904, rel=1e-5)
    assert cal.sigma < cal.extras["sigma_paper"]
    assert delta_of(cal.sigma, 0.08, 1.0) == pytest.approx(1e-6, rel=1e-6)
    # eps = 16, delta = 1e-5 (the issue's large-eps DPGDSC): printed sigma = 0.08 * 4.844805/16 = 0.0242240, i.e.
    # sigma/Delta = 0.302800; exact delta = Phi(1/(2*0.3028) - 16*0.3028) - e^16 Phi(-1.65125 - 4.84480)
    #   = Phi(-3.19355) - 8.886e6 * Phi(-6.49605) = 7.0275e-4 - 8.886e6 * 4.1236e-11 = 3.36e-4 > 1e-5: not private.
    cal = x.calibrate_dpgd_sc(n=1000, eps=16.0, delta=1e-5, G=1.0, mu=0.1)
    assert cal.extras["sigma_paper"] == pytest.approx(0.0242240, rel=1e-5)
    assert Phi(-3.19355) - math.exp(16) * Phi(-6.49605) == pytest.approx(3.36e-4, rel=1e-2)
    assert cal.extras["paper_exact_delta"] == pytest.approx(3.36e-4, rel=1e-2)
    assert cal.extras["paper_sigma_private"] is False and cal.feasible and cal.sigma > cal.extras["sigma_paper"]
    pr = x.calibrate_dpgd_sc(n=1000, eps=16.0, delta=1e-5, G=1.0, mu=0.1, sigma_rule="printed")
    assert not pr.feasible and "not (eps, delta)-DP here" in pr.reason


def test_dp_epoch_gd_analytic_schedule():
    from dpviz.theory.gaussian import delta_of

    # n = 16 (k = 4 epochs), eta = 1, G = 1: sensitivities 4 * 4^-i = 1, 1/4, 1/16, 1/64; every sigma_i / Delta_i is
    # the same, and the released schedule meets delta exactly at every epoch
    cal = x.calibrate_dp_epoch_gd(n=16, eps=1.0, delta=1e-5, G=1.0, eta=1.0)
    assert cal.feasible and len(cal.sigma_schedule) == 4
    for i, s in enumerate(cal.sigma_schedule, start=1):
        assert delta_of(s, 4.0 * 4.0 ** (-i), 1.0) == pytest.approx(1e-5, rel=1e-6)
    assert cal.extras["sigma_schedule_paper"][0] == pytest.approx(4.844805, rel=1e-6)  # sqrt(2 ln 1.25e5) * 1


def test_simulation_uses_private_sigma_unless_printed_is_picked():
    import numpy as np

    from dpviz.engine import simulate
    from dpviz.engine.data import Dataset
    from tests.test_simulate import PairLS

    X = np.array([[1.0, 0.0], [0.0, 1.0]])
    ds = Dataset("tiny", X, np.array([1.0, 2.0]), X.copy(), np.array([1.0, 2.0]), "regression")
    p = dict(eps=5.0, delta=1e-8, G=1.0, d=2, T=3, eta=0.1)
    priv = x.calibrate_dpgd_c(n=2, **p)
    printed = x.calibrate_dpgd_c(n=2, **p, sigma_rule="printed")
    assert priv.feasible and not printed.feasible and priv.sigma > printed.sigma
    r = simulate.simulate("dpgd-c", ds, PairLS(), reps=1, params=p, evaluate=())
    assert r.calibrations[0].sigma == pytest.approx(priv.sigma)
    r = simulate.simulate("dpgd-c", ds, PairLS(), reps=1, params={**p, "sigma_rule": "printed"}, evaluate=())
    assert r.calibrations[0].sigma == pytest.approx(printed.sigma) and not r.calibrations[0].feasible
    assert np.isfinite(r.outputs).all()  # the printed sigma was run on request


# ---------------------------------------------------------------------------------------------------------------
# Algorithm 4 (DPGDC), Theorem 4, Table 1


def test_dpgdc_algorithm4_calibration():
    from dpviz.theory.gaussian import delta_of

    # n = 1000, T = 100, eta = 0.1, G = 1: sensitivity 4 eta G T / n = 4 * 0.1 * 100 / 1000 = 0.04 (Lemma 7)
    # printed sigma = 4 sqrt(2 ln 1.25e6) * 1 * 100 * 0.1 / (1000 * 1) = 0.04 * 5.298802 = 0.2119521
    cal = x.calibrate_dpgdc(n=1000, eps=1.0, delta=1e-6, G=1.0, T=100, eta=0.1, L=1.0)
    assert cal.extras["sensitivity"] == pytest.approx(0.04)
    assert cal.extras["sigma_paper"] == pytest.approx(0.2119521, rel=1e-6)
    assert cal.extras["paper_sigma_private"] is True and cal.feasible
    assert delta_of(cal.sigma, 0.04, 1.0) == pytest.approx(1e-6, rel=1e-6)
    # delta = 0: lambda = 4 G eta T sqrt(d) / (n eps) = 0.04 * sqrt(9) / 2 = 0.06
    cal = x.calibrate_dpgdc(n=1000, eps=2.0, delta=0.0, G=1.0, T=100, eta=0.1, d=9)
    assert cal.laplace_scale == pytest.approx(0.06) and cal.sigma is None
    # eta > 2/L: Lemma 7 fails -> infeasible
    assert not x.calibrate_dpgdc(n=1000, eps=1.0, delta=1e-6, G=1.0, T=100, eta=0.5, L=10.0).feasible
    with pytest.raises(ValueError):
        x.calibrate_dpgdc(n=1000, eps=1.0, delta=0.0, G=1.0, T=100, eta=0.1)  # delta = 0 needs d


def test_thm4_both_delta_cases():
    # n = 1000, d = 10, eps = 1, G = 1, R = 1 (||w0 - w*||^2 <= (2R)^2 = 4), T = 100, eta = 0.1:
    # optimisation 4/(0.1 * 100) = 0.4; stability G^2 eta T / n = 10/1000 = 0.01;
    # delta = 1e-6: privacy eta G^2 T^2 d ln(1e6) / (n eps)^2 = 0.1 * 1e4 * 10 * 13.81551 / 1e6 = 0.1381551
    res = catalog.bound("xue-pairwise-thm4", n=1000, d=10, eps=1.0, delta=1e-6, G=1.0, R=1.0, T=100, eta=0.1)
    t = {term.name: term.value for term in res.terms}
    assert t["optimisation"] == pytest.approx(0.4) and t["stability"] == pytest.approx(0.01)
    assert t["privacy"] == pytest.approx(0.1381551, rel=1e-6)
    assert res.form == "rate" and "population" in res.risk
    # delta = 0: d^2 = 100 replaces d ln(1/delta): 0.1 * 1e4 * 100 / 1e6 = 0.1
    res = catalog.bound("xue-pairwise-thm4", n=1000, d=10, eps=1.0, delta=0.0, G=1.0, R=1.0, T=100, eta=0.1)
    assert {term.name: term.value for term in res.terms}["privacy"] == pytest.approx(0.1)


def test_table1_upper_and_lower_bounds():
    rows = catalog.get_table("xue-pairwise-table1").evaluate(n=1000, d=10, eps=1.0)
    assert len(rows) == 10
    assert {r["bound"] for r in rows} == {"upper", "lower"} and {r["privacy"] for r in rows} == {"(eps, delta)-DP", "eps-DP"}
    by = {(r["assumptions"].split(", ")[-1], r["privacy"], r["bound"], r["method"]): r["rate value"] for r in rows}
    # strongly convex, (eps, delta): this paper 1/n + d/(n eps)^2 = 1e-3 + 1e-5 = 1.01e-3 = the lower bound
    assert by[("strongly convex", "(eps, delta)-DP", "upper", "This paper (Algorithm 1, Theorem 1)")] == pytest.approx(1.01e-3)
    assert by[("strongly convex", "(eps, delta)-DP", "lower", "Lower bound")] == pytest.approx(1.01e-3)
    # Huai et al. sqrt(d/(n eps)) = sqrt(0.01) = 0.1
    assert by[("strongly convex", "(eps, delta)-DP", "upper", "Huai et al.")] == pytest.approx(0.1)
    # convex, eps-DP: 1/sqrt(1000) + 10/1000 = 0.0316228 + 0.01 = 0.0416228
    assert by[("convex", "eps-DP", "upper", "This paper (Algorithm 3, Theorem 3)")] == pytest.approx(0.0416228, rel=1e-6)


def test_table1_huai_yang_row_notes_the_mismatch_with_yang_corollary_2():
    # n = 10^4, d = 100, eps = 0.25: the row as printed sqrt(d/(n eps)) = sqrt(100/2500) = 0.2;
    # dpviz's Yang et al. Corollary 2 privacy term sqrt(kappa d)/(sqrt(n) eps) (kappa = 1) = 10/(100 * 0.25) = 0.4
    rows = catalog.get_table("xue-pairwise-table1").evaluate(n=10_000, d=100, eps=0.25)
    row = next(r for r in rows if r["method"] == "Huai et al.; Yang et al.")
    assert row["rate value"] == pytest.approx(0.2)
    assert "sqrt(d)/(sqrt(n) eps)" in row["note"] and "yang-pairwise-cor2" in row["note"]
    cor2 = catalog.bound("yang-pairwise-cor2", n=10_000, d=100, eps=0.25)
    assert next(t.value for t in cor2.terms if t.name == "privacy") == pytest.approx(0.4)
    assert all("note" not in r or r is row for r in rows)
