"""Wang, Lei, Ying & Zhang (wang-nonsmooth): constants, Theorem 7 sensitivity, Algorithm 1 noise, Theorems 7/9/10/12,
Lemma 13 and Table 1, checked against values computed by hand from the paper's formulas."""
import math

import pytest

from dpviz.theory import catalog
from dpviz.theory.papers import wang_nonsmooth as w

LOG = math.log


# ---------------------------------------------------------------------------------------------------------------
# constants of eq. (2) and Lemma 20


def test_c_alpha_1():
    # alpha = 0.5, L = 2: (1 + 1/0.5)^(0.5/1.5) * 2^(1/1.5) = 3^(1/3) * 2^(2/3) = 12^(1/3) = 2.28943
    assert w.c_alpha_1(L=2, M=7, alpha=0.5) == pytest.approx(2.28943, rel=1e-5)
    # alpha = 0: M + L = 0.5 + 2
    assert w.c_alpha_1(L=2, M=0.5, alpha=0) == pytest.approx(2.5)
    # alpha = 1, L = 3: 2^(1/2) * 3^(1/2) = sqrt(6) = 2.44949
    assert w.c_alpha_1(L=3, M=0, alpha=1) == pytest.approx(2.44949, rel=1e-5)


def test_c_alpha_2():
    # alpha = 0.5, L = 2: sqrt(0.5/1.5) * (2^-0.5 * 2)^(1/0.5) = 0.57735 * 2 = 1.154700
    assert w.c_alpha_2(L=2, alpha=0.5) == pytest.approx(1.154700, rel=1e-5)
    # alpha = 0, L = 3: sqrt(1) * 3^1 = 3
    assert w.c_alpha_2(L=3, alpha=0) == pytest.approx(3.0)
    # alpha = 1: the term c^2 T eta^(2/(1-alpha)) vanishes (smooth case, Remark 1)
    assert w.c_alpha_2(L=3, alpha=1) == 0.0


def test_C_alpha():
    # alpha = 0.5, L = 2, M0 = 1: (0.5/1.5) * c1^(2*1.5/0.5) * (0.5/1.5)^(2*0.5/0.5) + 2*1
    #   c1^6 = (12^(1/3))^6 = 144, (1/3)^2 = 1/9  ->  (1/3)*144/9 + 2 = 16/3 + 2 = 7.33333
    assert w.C_alpha(L=2, M=0.5, alpha=0.5, M0=1) == pytest.approx(7.333333, rel=1e-6)
    # alpha = 0 (eq. (6)): (M + L)^2 + 2 M0 = 3^2 + 2*0.5 = 10
    assert w.C_alpha(L=2, M=1, alpha=0, M0=0.5) == pytest.approx(10.0)
    # alpha = 1 (eq. (7)): 2 M0 = 1.4
    assert w.C_alpha(L=5, M=1, alpha=1, M0=0.7) == pytest.approx(1.4)
    # alpha = 0.8, L = 0.5, M0 = 0: (0.2/1.8) * 0.5^(2/0.2) = 0.11111 * 0.0009765625 = 1.08507e-4
    assert w.C_alpha(L=0.5, M=3, alpha=0.8, M0=0) == pytest.approx(0.2 / 1.8 * 0.5**10, rel=1e-9)


def test_c_gamma_T():
    # n = T = 1000, gamma = 5e-7: 3*1000*log(1000/5e-7)/1000 = 3*21.41641 = 64.24924 > its square root
    assert w.c_gamma_T(n=1000, T=1000, gamma=5e-7) == pytest.approx(64.24924, rel=1e-6)
    # n = 100, T = 1e5, gamma = 0.01: x = 300*log(1e4)/1e5 = 0.0276310 < 1 -> sqrt(x) = 0.166226
    assert w.c_gamma_T(n=100, T=100_000, gamma=0.01) == pytest.approx(0.166226, rel=1e-5)


# ---------------------------------------------------------------------------------------------------------------
# Theorem 7: sensitivity


def test_sensitivity_bounded_domain():
    # n = T = 1000, eta = 0.01, L = M = R = 1, alpha = 0.5, gamma = 5e-7 (= delta/2 for delta = 1e-6)
    # c_{gamma,T} = 64.24924, k = (T/n)(1 + c) = 65.24924
    # A = c_{a,2}^2 T eta^(2/(1-a)) = (0.5/1.5) * 2^-1 ... = 1000 * (1/3) * (2^-0.5 * 0.01)^4 = 8.33333e-7
    # B = 4 (M + L R^a)^2 eta^2 (1 + k) k = 4 * 4 * 1e-4 * 66.24924 * 65.24924 = 6.91636
    # Delta = sqrt(e (A + B)) = sqrt(2.718282 * 6.916362) = 4.33596
    expected = math.sqrt(math.e * (1000 * (1 / 3) * (2**-0.5 * 0.01) ** 4
                                   + 4 * 2**2 * 0.01**2 * (1 + 65.24924) * 65.24924))
    got = w.sgd_sensitivity(n=1000, T=1000, eta=0.01, L=1, M=1, alpha=0.5, gamma=5e-7, R=1)
    assert got == pytest.approx(expected, rel=1e-6)
    assert got == pytest.approx(4.33596, rel=1e-5)


def test_sensitivity_unbounded_domain():
    # n = 500, T = 2000, eta = 0.1, L = 2, M = 0.5, M0 = 1, alpha = 0.5, gamma = 5e-6
    # C_alpha = 22/3 (test_C_alpha); g = M + L (C T eta)^(a/2) = 0.5 + 2*(7.33333*200)^0.25 = 0.5 + 2*6.18846 = 12.87692
    # c_{gamma,T} = 3*500*log(500/5e-6)/2000 = 0.75*18.42068 = 13.81551; k = 4*(14.81551) = 59.26204
    # A = 2000*(1/3)*(2^-0.5*2*0.1)^4 = 666.667*4e-4 = 0.266667
    # B = 4*12.87692^2*0.01*(60.26204)*59.26204 = 23686.7
    g = 0.5 + 2 * (22 / 3 * 2000 * 0.1) ** 0.25
    k = 2000 / 500 * (1 + 3 * 500 * LOG(500 / 5e-6) / 2000)
    expected = math.sqrt(math.e * (2000 / 3 * (2**-0.5 * 2 * 0.1) ** 4 + 4 * g**2 * 0.1**2 * (1 + k) * k))
    got = w.sgd_sensitivity(n=500, T=2000, eta=0.1, L=2, M=0.5, alpha=0.5, gamma=5e-6, bounded_domain=False, M0=1)
    assert got == pytest.approx(expected, rel=1e-9)
    assert got == pytest.approx(253.748, rel=1e-4)


def test_sensitivity_alpha_0_and_1():
    # alpha = 0, bounded: A = L^2 T eta^2 = 4 * 100 * 0.01^2 = 0.04; g = M + L = 3
    # n = 100, T = 100, gamma = 0.1: x = 3*log(1000) = 20.72327, k = 21.72327
    k = 1 + 3 * LOG(1000)
    expected0 = math.sqrt(math.e * (2**2 * 100 * 0.01**2 + 4 * 3**2 * 0.01**2 * (1 + k) * k))
    assert w.sgd_sensitivity(n=100, T=100, eta=0.01, L=2, M=1, alpha=0, gamma=0.1, R=5) == pytest.approx(expected0)
    # alpha = 1, bounded: A = 0, g = M + L R = 1 + 2*5 = 11
    expected1 = math.sqrt(math.e * 4 * 11**2 * 0.01**2 * (1 + k) * k)
    assert w.sgd_sensitivity(n=100, T=100, eta=0.01, L=2, M=1, alpha=1, gamma=0.1, R=5) == pytest.approx(expected1)
    # alpha = 1, unbounded: C_1 = 2 M0 = 2, g = M + L (2 * T eta)^(1/2) = 1 + 2*sqrt(2) = 3.828427
    expected2 = math.sqrt(math.e * 4 * (1 + 2 * math.sqrt(2)) ** 2 * 0.01**2 * (1 + k) * k)
    got = w.sgd_sensitivity(n=100, T=100, eta=0.01, L=2, M=1, alpha=1, gamma=0.1, bounded_domain=False, M0=1)
    assert got == pytest.approx(expected2)


@pytest.mark.parametrize("bad", [dict(alpha=1.5), dict(alpha=-0.1), dict(eta=0.0), dict(eta=1.0), dict(L=0.0),
                                 dict(M=-1.0), dict(gamma=0.0), dict(gamma=1.0), dict(T=0), dict(n=1), dict(R=None),
                                 dict(R=-1.0), dict(bounded_domain="yes"), dict(M0=-1.0)])
def test_sensitivity_invalid_inputs(bad):
    params = dict(n=100, T=100, eta=0.01, L=2, M=1, alpha=0.5, gamma=0.1, R=1.0)
    params.update(bad)
    with pytest.raises(ValueError):
        w.sgd_sensitivity(**params)


# ---------------------------------------------------------------------------------------------------------------
# Algorithm 1


def test_calibrate_dpsgd_output_bounded():
    # sigma = sqrt(2 log(2.5/delta)) Delta / eps with Delta = 4.33596 (test_sensitivity_bounded_domain)
    # sqrt(2*log(2.5e6)) = sqrt(29.46359) = 5.428038 -> sigma = 23.5358 at eps = 1, 11.7679 at eps = 2
    cal = w.calibrate_dpsgd_output(n=1000, eps=1, delta=1e-6, T=1000, eta=0.01, L=1, M=1, alpha=0.5, R=1)
    assert cal.feasible and cal.id == "dpsgd-output"
    assert cal.extras["Delta"] == pytest.approx(4.33596, rel=1e-5)
    assert cal.extras['sigma_paper'] == pytest.approx(math.sqrt(2 * LOG(2.5e6)) * 4.33596, rel=1e-5)
    assert cal.extras['sigma_paper'] == pytest.approx(23.5358, rel=1e-4)
    cal2 = w.calibrate_dpsgd_output(n=1000, eps=2, delta=1e-6, T=1000, eta=0.01, L=1, M=1, alpha=0.5, R=1)
    assert cal2.extras['sigma_paper'] == pytest.approx(11.7679, rel=1e-4)
    assert cal.formula and cal.formula_numbers and cal.T == 1000 and cal.eta == 0.01


def test_calibrate_dpsgd_output_unbounded():
    # delta = 1e-5 -> gamma = 5e-6; Delta = 253.748 (test_sensitivity_unbounded_domain)
    # sigma = sqrt(2 log(2.5e5)) * 253.748 / 1 = sqrt(24.85833) * 253.748 = 4.985813 * 253.748 = 1265.14
    cal = w.calibrate_dpsgd_output(n=500, eps=1, delta=1e-5, T=2000, eta=0.1, L=2, M=0.5, alpha=0.5,
                                   bounded_domain=False, M0=1)
    assert cal.feasible
    assert cal.extras['sigma_paper'] == pytest.approx(1265.14, rel=1e-4)
    assert cal.extras["C_alpha"] == pytest.approx(22 / 3)
    assert any("non-negative" in note for note in cal.notes)


def test_calibrate_dpsgd_output_step_too_large_is_infeasible():
    # Theorem 7 needs eta < min{1, 1/L} = 0.5 for L = 2
    cal = w.calibrate_dpsgd_output(n=1000, eps=1, delta=1e-6, T=1000, eta=0.6, L=2, M=1, alpha=0.5, R=1)
    assert not cal.feasible and cal.sigma is None
    assert "0.5" in cal.reason and "0.6" in cal.reason and cal.fix


def test_calibrate_dpsgd_output_via_catalog():
    cal = catalog.calibrate("dpsgd-output", n=1000, d=10, eps=1.0, delta=1e-6, T=1000, eta=0.01, G=1.0, L=1.0,
                            M=1.0, R=1.0, alpha=0.5)
    assert cal.extras['sigma_paper'] == pytest.approx(23.5358, rel=1e-4)
    assert ".txt" not in cal.reason + " ".join(cal.notes)


@pytest.mark.parametrize("bad", [dict(alpha=2.0), dict(alpha=-1.0), dict(eps=0.0), dict(delta=0.0), dict(delta=1.0),
                                 dict(T=0), dict(eta=-0.1), dict(L=-1.0), dict(R=None), dict(n=1.5)])
def test_calibrate_dpsgd_output_invalid(bad):
    params = dict(n=1000, eps=1, delta=1e-6, T=1000, eta=0.01, L=1, M=1, alpha=0.5, R=1)
    params.update(bad)
    with pytest.raises(ValueError):
        w.calibrate_dpsgd_output(**params)


# ---------------------------------------------------------------------------------------------------------------
# Theorem 7 entries


def test_thm7_rate_form():
    # bounded: sqrt(T) eta^(1/(1-a)) = sqrt(1000)*0.01^2 = 0.00316228; T eta log(n/gamma)/n = 10*21.41641/1000 = 0.214164
    res = catalog.bound("wang-nonsmooth-thm7", n=1000, T=1000, eta=0.01, L=1, M=1, alpha=0.5, R=1, delta=1e-6)
    t = {term.name: term.value for term in res.terms}
    assert t["non-smoothness"] == pytest.approx(0.00316228, rel=1e-5)
    assert t["sampling"] == pytest.approx(0.214164, rel=1e-5)
    # unbounded, gamma = 0.01, n = 100, T = 400, eta = 0.05, alpha = 0.5:
    # sqrt(400)*0.05^2 = 0.05; (T eta)^(1.25) log(n/gamma)/n = 20^1.25 * log(1e4)/100 = 42.29485*9.21034/100 = 3.89550
    res = w.bound_thm7(n=100, T=400, eta=0.05, L=1, M=1, alpha=0.5, bounded_domain=False, gamma=0.01)
    t = {term.name: term.value for term in res.terms}
    assert t["non-smoothness"] == pytest.approx(0.05, rel=1e-9)
    assert t["sampling"] == pytest.approx(3.89550, rel=1e-5)
    assert res.T == 400 and res.gradient_complexity == 400


def test_thm7_explicit_is_the_sensitivity():
    res = catalog.bound("wang-nonsmooth-thm7", explicit=True, n=1000, T=1000, eta=0.01, L=1, M=1, alpha=0.5, R=1,
                        delta=1e-6)
    assert res.explicit and res.total == pytest.approx(4.33596, rel=1e-5)
    # sqrt(e * 8.33333e-7) = 0.00150509
    assert res.terms[0].value == pytest.approx(math.sqrt(math.e * 8.333333e-7), rel=1e-5)


def test_thm7_invalid():
    with pytest.raises(ValueError):
        w.bound_thm7(n=100, T=100, eta=0.01, L=1, M=1, alpha=0.5, R=1)  # neither gamma nor delta
    with pytest.raises(ValueError):
        w.bound_thm7(n=100, T=100, eta=2.0, L=1, M=1, alpha=0.5, R=1, gamma=0.1)  # eta >= 1


# ---------------------------------------------------------------------------------------------------------------
# Theorems 9, 10


def test_thm10_schedule_and_terms():
    # n = 1000, d = 10, eps = 1, delta = 1e-6, alpha = 0.5 (>= 1/2 -> T = n), gamma = 0.05
    # a = sqrt(log(n/delta) log n log(1/gamma)/n) = sqrt(20.72327*6.907755*2.995732/1000) = 0.654861
    # b = (10*13.81551)^(1/4) sqrt(20.72327) 2.995732^(1/8)/sqrt(1000) = 3.428424*4.552282*1.147196/31.62278 = 0.566088
    # eta = 1/(T max{a, b}) = 1/654.861 = 0.00152704
    res = catalog.bound("wang-nonsmooth-thm10", n=1000, d=10, eps=1.0, delta=1e-6, alpha=0.5)
    assert res.T == 1000
    assert res.eta == pytest.approx(1 / 654.861, rel=1e-5)
    t = {term.name: term for term in res.terms}
    assert t["statistical"].value == pytest.approx(0.654861, rel=1e-5)
    assert t["privacy"].value == pytest.approx(0.566088, rel=1e-5)
    assert (t["privacy"].n_exp, t["privacy"].eps_exp) == (-0.5, -0.5)
    # alpha = 0.25 < 1/2: T = ceil(1000^(1.75/1.25)) = ceil(1000^1.4) = ceil(15848.93) = 15849; R = 2 -> factor 4
    res = w.bound_thm10(n=1000, d=10, eps=1.0, delta=1e-6, alpha=0.25, R=2.0)
    assert res.T == 15849 and res.gradient_complexity == 15849
    assert res.eta == pytest.approx(1 / (15849 * 0.654861), rel=1e-5)
    assert {t.name: t.value for t in res.terms}["privacy"] == pytest.approx(4 * 0.566088, rel=1e-5)


def test_thm9_schedule_and_terms():
    # alpha = 0 < (sqrt 73 - 7)/4: T = n^((6)/(1*3)) = n^2 = 10000 for n = 100
    # eta = n^(1/3)/(T log(1/gamma)^(1/3)) = 4.641589/(10000 * 2.995732^(1/3)) = 4.641589/(10000*1.441565) = 3.21983e-4
    # privacy = sqrt(d log(1/delta)) log(n/delta)/(log(1/gamma)^(1/12) n^(2/3) eps)
    #         = sqrt(20*9.21034)*log(1e6)/(2.995732^(1/12)*21.54435*0.5) = 13.57228*13.81551/(1.095743*10.77217) = 15.8858
    res = catalog.bound("wang-nonsmooth-thm9", n=100, d=20, eps=0.5, delta=1e-4, alpha=0.0)
    assert res.T == 10000
    assert res.eta == pytest.approx(3.21983e-4, rel=1e-5)
    t = {term.name: term for term in res.terms}
    assert t["privacy"].value == pytest.approx(15.8858, rel=1e-4)
    assert t["privacy"].n_exp == pytest.approx(-2 / 3) and t["privacy"].eps_exp == -1.0
    # statistical = log n log(1/gamma)^(2/3) log(n/delta)/n^(1/3) = 4.60517*2.078110*13.81551/4.641589 = 28.4849
    assert t["statistical"].value == pytest.approx(28.4849, rel=1e-4)
    # alpha = 0.5 >= 0.386: T = n = 1000; eta = 1000^(1/3.5)/(1000*2.995732^(1/3.5)) = 7.196857/(1000*1.368181) = 0.00526017
    res = w.bound_thm9(n=1000, d=10, eps=1.0, delta=1e-6, alpha=0.5)
    assert res.T == 1000 and res.eta == pytest.approx(0.00526017, rel=1e-5)


def test_utility_invalid():
    with pytest.raises(ValueError):
        w.bound_thm10(n=1000, d=10, eps=1.0, delta=1e-6, alpha=1.2)
    with pytest.raises(ValueError):
        w.bound_thm9(n=1000, d=0, eps=1.0, delta=1e-6, alpha=0.5)
    with pytest.raises(ValueError):
        w.bound_thm10(n=1000, d=10, eps=1.0, delta=1e-6, alpha=0.5, gamma=1.0)


# ---------------------------------------------------------------------------------------------------------------
# Theorem 12 and Lemma 13


def test_thm12_eta_follows_the_derivation():
    # n = 1000, d = 10, eps = 1, delta = 1e-6, alpha = 0.5 -> T = 1000, gamma = 0.05
    # a = sqrt(log n log(n/gamma) log(1/gamma)/n) = sqrt(6.907755*9.903488*2.995732/1000) = 0.452700
    # b = sqrt(d log(1/delta)) log(1/gamma)^(1/4)/(n eps) = 11.75394*1.315594/1000 = 0.0154634
    # derivation: eta = 1/(T max{a, b}) = 1/452.700 = 0.00220897 (printed: max/T = 4.527e-4)
    res = w.bound_thm12(n=1000, d=10, eps=1.0, delta=1e-6, alpha=0.5)
    assert res.T == 1000
    assert res.eta == pytest.approx(1 / 452.700, rel=1e-5)
    assert res.extras["eta_as_printed"] == pytest.approx(0.452700 / 1000, rel=1e-5)
    t = {term.name: term for term in res.terms}
    # privacy = sqrt(d log(1/delta) log(1/gamma))/(n eps) = sqrt(138.1551*2.995732)/1000 = 0.0203440
    assert t["privacy"].value == pytest.approx(0.0203440, rel=1e-5)
    assert (t["privacy"].n_exp, t["privacy"].eps_exp) == (-1.0, -1.0)
    assert t["statistical"].value == pytest.approx(0.452700, rel=1e-5)
    # eps = 0.01: b = 1.546343 > a -> eta = 1/(1000*1.546343) = 6.46687e-4
    res = w.bound_thm12(n=1000, d=10, eps=0.01, delta=1e-6, alpha=0.5)
    assert res.eta == pytest.approx(6.46687e-4, rel=1e-5)


def test_lemma13_threshold():
    # n = 18: n^(1/3) - 1 = 1.620741; (7*1.620741 + 4*log(18)*18 + 7)/(2*18*1.620741) = 226.4547/58.34668 = 3.881145
    assert w.lemma13_eps_threshold(18) == pytest.approx(3.881145, rel=1e-6)
    # n = 1000: (7*9 + 4*1000*6.907755 + 7)/(2*1000*9) = 27701.02/18000 = 1.538946
    assert w.lemma13_eps_threshold(1000) == pytest.approx(1.538946, rel=1e-6)
    assert w.lemma13_eps_threshold(10**6) == pytest.approx(
        (7 * 99 + 4 * 1e6 * LOG(1e6) + 7) / (2 * 1e6 * 99), rel=1e-9)
    for bad in (17, 0, 18.5, "n", float("nan")):
        with pytest.raises(ValueError):
            w.lemma13_eps_threshold(bad)


def test_thm11_conditions_hold_at_lemma13_threshold_by_hand():
    """Independent of any calibration code: at n = 1000, eps = threshold, some beta satisfies (32) and (33)."""
    n = 1000
    eps = w.lemma13_eps_threshold(n)
    delta, T = 1 / n**2, n

    def conditions(beta):  # G = 1: sigma^2 = 14 T/(beta n^2 eps) * lam, (32) sigma^2 >= 2.68, (33)
        lam = LOG(1 / delta) / ((1 - beta) * eps) + 1
        s2 = 14 * T / (beta * n**2 * eps) * lam
        return s2 >= 2.68 and lam - 1 <= s2 / 6 * LOG(n / (lam * (1 + s2 / 4)))

    assert any(conditions(b / 10000) for b in range(1, 10000))
    # n = 18: the printed threshold is not sufficient (Lemma 13's proof fails for n < 44)
    n = 18
    eps, delta, T = w.lemma13_eps_threshold(n), 1 / n**2, n
    assert not any(conditions(b / 10000) for b in range(1, 10000))


def _lownoise():
    return pytest.importorskip("dpviz.theory.papers.wang_lownoise")


@pytest.mark.parametrize("n", [50, 100, 1000, 10_000, 100_000])
@pytest.mark.parametrize("factor", [1.0, 1.5])
def test_lemma13_threshold_makes_dpsgd_rdp_feasible(n, factor):
    _lownoise()
    eps = factor * w.lemma13_eps_threshold(n)
    cal = catalog.calibrate("dpsgd-rdp", n=n, eps=eps, delta=1 / n**2, T=n, M=1.0, L=1.0, R=1.0, alpha=0.5)
    assert cal.feasible, cal.reason


def test_lemma13_threshold_is_not_sufficient_for_small_n():
    _lownoise()
    n = 18  # threshold 3.881; the smallest feasible eps is about 4.52
    cal = catalog.calibrate("dpsgd-rdp", n=n, eps=w.lemma13_eps_threshold(n), delta=1 / n**2, T=n, M=1.0, L=1.0,
                            R=1.0, alpha=0.5)
    assert not cal.feasible
    res = catalog.bound("wang-nonsmooth-lemma13", n=18, eps=4.0)
    assert res.extras["valid"] is False
    assert catalog.get_theorem("wang-nonsmooth-lemma13").discrepancy


def test_thm12_registered_with_discrepancy():
    _lownoise()
    thm = catalog.get_theorem("wang-nonsmooth-thm12")
    assert thm.algorithm == "dpsgd-rdp" and "1/(T max" in thm.discrepancy
    res = catalog.bound("wang-nonsmooth-thm12", n=1000, d=10, eps=1.0, delta=1e-6, alpha=0.5, M=1.0, L=1.0, R=1.0)
    assert "calibration" in res.extras


# ---------------------------------------------------------------------------------------------------------------
# Table 1 and catalogue


def test_table1_rates():
    table = catalog.get_table("wang-nonsmooth-table1")
    rows = {r["method"]: r for r in table.evaluate(n=1000, d=10, eps=1.0, delta=1e-6, alpha=0.5)}
    assert len(rows) == 9
    # Wu et al.: (d log(1/delta))^(1/4)/sqrt(n eps) = 138.1551^(1/4)/31.62278 = 3.428424/31.62278 = 0.108416
    assert rows["Output perturbation"]["rate value"] == pytest.approx(0.108416, rel=1e-5)
    # optimal rate: sqrt(138.1551)/1000 + 1/sqrt(1000) = 0.0117539 + 0.0316228 = 0.0433767
    assert rows["DP-SGD-Gradient (this paper, Theorem 12)"]["rate value"] == pytest.approx(0.0433767, rel=1e-5)
    # complexity n^((2-a)/(1+a)) + n = 1000 + 1000 at alpha = 0.5
    assert rows["DP-SGD-Gradient (this paper, Theorem 12)"]["complexity value"] == pytest.approx(2000)
    # unbounded output: complexity n^((-0.25-1.5+6)/(1.5*3.5)) + n = 1000^(4.25/5.25) + 1000 = 268.2696 + 1000
    assert rows["DP-SGD-Output (this paper, Theorem 9)"]["complexity value"] == pytest.approx(1268.2696, rel=1e-6)
    assert all(".txt" not in r["reference"] for r in rows.values())


def test_catalogue_entries():
    alg = catalog.get_algorithm("dpsgd-output")
    assert alg.paper.key == "wang-nonsmooth" and alg.perturbation == "output"
    assert ".txt" not in alg.paper.cite()
    ids = {t.id for t in catalog.theorems()}
    assert {"wang-nonsmooth-thm7", "wang-nonsmooth-thm9", "wang-nonsmooth-thm10"} <= ids


def test_unbounded_constant_overflow_is_reported_not_raised():
    # alpha = 0.999, L = 5: C_alpha = (0.001/1.999) * 5^(2/0.001) + 2 M0 = 5e-4 * 5^2000 -> beyond float range
    assert w.C_alpha(L=5, M=1, alpha=0.999) == math.inf
    cal = w.calibrate_dpsgd_output(n=100, eps=1, delta=1e-5, T=100, eta=0.1, L=5, M=1, alpha=0.999,
                                   bounded_domain=False)
    assert not cal.feasible and "overflow" in cal.reason and cal.fix
    # the bounded-domain variant is fine: A = 100*(0.001/1.999)*(2^-0.999*5*0.1)^2000 = 0 (underflow), g = 1 + 5 = 6
    # n = T = 100, gamma = 5e-6: k = 1 + 3*log(2e7) = 51.43373; Delta = sqrt(e*4*36*0.01*52.43373*51.43373) = 102.744
    k = 1 + 3 * LOG(100 / 5e-6)
    cal = w.calibrate_dpsgd_output(n=100, eps=1, delta=1e-5, T=100, eta=0.1, L=5, M=1, alpha=0.999, R=1)
    assert cal.extras["Delta"] == pytest.approx(math.sqrt(math.e * 4 * 36 * 0.01 * (1 + k) * k), rel=1e-9)
    assert cal.extras["Delta"] == pytest.approx(102.744, rel=1e-5)


def test_large_eps_flags_the_gaussian_mechanism_limit():
    # sigma/Delta = sqrt(2 log(2.5/delta))/eps; exact delta = Phi(1/(2s) - eps s) - e^eps Phi(-1/(2s) - eps s)
    # eps = 10, delta = 1e-3: s = sqrt(2*log(2500))/10 = 0.395541 -> exact delta = 0.00158 > delta/2 = 5e-4
    params = dict(n=1000, delta=1e-3, T=1000, eta=0.01, L=1, M=1, alpha=0.5, R=1)
    cal = w.calibrate_dpsgd_output(eps=10, **params)
    assert cal.extras["gaussian_exact_delta"] == pytest.approx(0.00158024, rel=1e-4)
    assert any("not (ε, δ)-DP here" in note for note in cal.notes) and cal.extras["paper_sigma_private"] is False
    # eps = 1: exact delta 3.59e-6 <= 5e-4: no warning
    cal = w.calibrate_dpsgd_output(eps=1, **params)
    assert cal.extras["gaussian_exact_delta"] == pytest.approx(3.5937e-6, rel=1e-3)
    assert not any("not (ε, δ)-DP here" in note for note in cal.notes)


def test_bound_lemma13():
    # n = 1000: one term, the threshold 1.538946; eps = 1.5 is below it, eps = 2 meets it
    res = w.bound_lemma13(n=1000, eps=1.5)
    assert res.total == pytest.approx(1.538946, rel=1e-6) and res.T == 1000
    assert res.extras["delta"] == pytest.approx(1e-6) and res.extras["valid"] is True
    assert any("below" in note for note in res.notes)
    assert any("meets" in note for note in w.bound_lemma13(n=1000, eps=2.0).notes)
    # n = 30 < 44: flagged
    assert w.bound_lemma13(n=30).extras["valid"] is False
    with pytest.raises(ValueError):
        w.bound_lemma13(n=10)
