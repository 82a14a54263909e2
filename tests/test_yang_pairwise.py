"""Yang, Lei, Lyu & Ying (yang-pairwise): Theorem 1 sensitivity, Algorithm 2 noise (eq. (5)), Theorems 1/2/3/5 (rate and
explicit forms) and Corollaries 1-4, checked against values computed by hand from the paper's formulas."""
import math

import pytest

from dpviz.theory import catalog
from dpviz.theory.papers import yang_pairwise as y

LN = math.log
E = math.e
SQ = math.sqrt


def terms(res):
    return {t.name: t for t in res.terms}


# ---------------------------------------------------------------------------------------------------------------
# Theorem 1: eq. (3), eq. (9), corrected sensitivity


def test_eq9_sensitivity_by_hand():
    # n = T = 1000, eta = 0.01, G = 1, gamma = 5e-7 (= delta/2, delta = 1e-6): ln(1/gamma) = ln(2e6) = 14.508658,
    # ln(eT) = 1 + ln 1000 = 7.907755
    # Delta^2 = 4e * 0.01^2 * 1^2 * (1000 + 3 * 1000^2 * 7.907755^2 * 14.508658^2 / 1000^2)
    #         = 0.001087313 * (1000 + 3 * 62.53258 * 210.5012) = 0.001087313 * 40489.6 = 44.0249 -> Delta = 6.63512
    expected = SQ(4 * E * 0.01**2 * (1000 + 3 * 1000**2 * LN(E * 1000) ** 2 * LN(2e6) ** 2 / 1000**2))
    got = y.sensitivity(n=1000, T=1000, eta=0.01, G=1, gamma=5e-7)
    assert got == pytest.approx(expected, rel=1e-12)
    assert got == pytest.approx(6.63512, rel=1e-5)
    # n = 100, T = 10^4, eta = 1e-3, G = 2, gamma = 0.01: ln(eT) = 1 + ln(1e4) = 10.21034, ln(100) = 4.605170
    # Delta^2 = 4e * 1e-6 * 4 * (1e4 + 3 * 1e8 * 10.21034^2 * 4.605170^2 / 1e4)
    #         = 4.349251e-5 * (1e4 + 3e4 * 104.2512 * 21.20759) = 4.349251e-5 * 6.633744e7 = 2885.18 -> Delta = 53.714
    expected = SQ(4 * E * 1e-3**2 * 2**2 * (1e4 + 3 * 1e4**2 * 10.210340**2 * 4.6051702**2 / 100**2))
    assert y.sensitivity(n=100, T=10_000, eta=1e-3, G=2, gamma=0.01) == pytest.approx(expected, rel=1e-6)
    assert expected == pytest.approx(SQ(4.349251e-5 * 6.633744e7), rel=1e-5)
    assert expected == pytest.approx(53.714, rel=1e-4)


def test_eq3_by_hand():
    # t = n = 1000, eta = 0.01, G = 1, gamma = 5e-7: c = ln(1000e) (1 + 14.508658 + sqrt(14.508658))
    #   = 7.907755 * (15.508658 + 3.809023) = 7.907755 * 19.317681 = 152.7595
    # eq. (3) = 4e * 1e-4 * (1000 + 152.7595^2) = 0.001087313 * 24335.5 = 26.4604
    assert y.stability_eq3(n=1000, t=1000, eta=0.01, G=1, gamma=5e-7) == pytest.approx(
        4 * E * 1e-4 * (1000 + (7.907755 * (1 + 14.508658 + SQ(14.508658))) ** 2), rel=1e-6)
    assert y.stability_eq3(n=1000, t=1000, eta=0.01, G=1, gamma=5e-7) == pytest.approx(26.4604, rel=1e-5)
    # t = 50, n = 10, eta = 0.1, G = 3, gamma = e^-2: c = ln(50e) (5 + 2 + sqrt(50*2/10)) = 4.912023 * 10.162278
    c = (1 + LN(50)) * (5 + 2 + SQ(10))
    assert y.stability_eq3(n=10, t=50, eta=0.1, G=3, gamma=math.exp(-2)) == pytest.approx(
        4 * E * 0.01 * 9 * (50 + c**2), rel=1e-9)


def test_corrected_sensitivity_by_hand():
    # n = T = 1000, gamma = 5e-7: mu = 1001/1000, a = ln(2e6) = 14.508658,
    # c = ln(e^2 * 1000) (1.001 + 14.508658 + sqrt(2 * 1.001 * 14.508658)) = 8.907755 * (15.509658 + 5.389474) = 186.163
    c = (2 + LN(1000)) * (1.001 + LN(2e6) + SQ(2 * 1.001 * LN(2e6)))
    assert c == pytest.approx(186.163, rel=1e-5)
    got = y.sensitivity(n=1000, T=1000, eta=0.01, G=1, gamma=5e-7, corrected=True)
    assert got == pytest.approx(SQ(4 * E * 1e-4 * (1000 + c**2)), rel=1e-9)
    # also valid for T < n: T = 10, n = 1000, gamma = 0.1: mu = 0.011, a = ln 10
    c = (2 + LN(10)) * (0.011 + LN(10) + SQ(2 * 0.011 * LN(10)))
    assert y.sensitivity(n=1000, T=10, eta=0.5, G=1, gamma=0.1, corrected=True) == pytest.approx(
        SQ(4 * E * 0.25 * (10 + c**2)), rel=1e-9)


@pytest.mark.parametrize("bad", [dict(n=1), dict(T=0), dict(T=500), dict(eta=0.0), dict(G=-1.0), dict(gamma=0.0),
                                 dict(gamma=1.0), dict(corrected="yes")])
def test_sensitivity_invalid(bad):
    params = dict(n=1000, T=1000, eta=0.01, G=1.0, gamma=0.01)
    params.update(bad)
    with pytest.raises(ValueError):
        y.sensitivity(**params)


# ---------------------------------------------------------------------------------------------------------------
# Algorithm 2 / Theorem 4, eq. (5)


def test_calibration_by_hand():
    # sigma = sqrt(2 ln(2.5/delta)) Delta / eps, Delta = 6.63512 (test_eq9_sensitivity_by_hand)
    # sqrt(2 ln(2.5e6)) = sqrt(29.46359) = 5.428038 -> sigma = 36.0157 at eps = 1, 18.0078 at eps = 2
    cal = y.calibrate_pairwise_sgd_output(n=1000, eps=1, delta=1e-6, T=1000, eta=0.01, G=1)
    assert cal.feasible and cal.id == "pairwise-sgd-output"
    assert cal.extras["Delta"] == pytest.approx(6.63512, rel=1e-5)
    assert cal.extras['sigma_paper'] == pytest.approx(5.428038 * 6.63512, rel=1e-5)
    assert cal.extras['sigma_paper'] == pytest.approx(36.0157, rel=1e-5)
    # sigma^2 = 8e eta^2 G^2 ln(2.5/delta)/eps^2 (T + 3T^2 ln^2(eT) ln^2(2/delta)/n^2): the e restored
    assert cal.extras['sigma_paper']**2 == pytest.approx(8 * E * 1e-4 * LN(2.5e6) * (1000 + 3 * LN(1000 * E) ** 2 * LN(2e6) ** 2))
    # the printed eq. (5) (without e): sigma / sqrt(e) = 36.0157/1.648721 = 21.8446
    assert cal.extras["sigma_as_printed"] == pytest.approx(21.8446, rel=1e-5)
    assert any("factor e" in note for note in cal.notes)
    assert cal.T == 1000 and cal.eta == 0.01 and cal.formula and "36.02" in cal.formula_numbers and cal.sigma < cal.extras["sigma_paper"]
    cal2 = y.calibrate_pairwise_sgd_output(n=1000, eps=2, delta=1e-6, T=1000, eta=0.01, G=1)
    assert cal2.extras['sigma_paper'] == pytest.approx(36.0157 / 2, rel=1e-5)
    # n = 100, T = 10^4, eta = 1e-3, G = 2, eps = 0.5, delta = 1e-5 -> ln(2/delta) = ln(2e5) = 12.206073
    # sigma^2 = 8e * 1e-6 * 4 * ln(2.5e5)/0.25 * (1e4 + 3 * 1e8 * 10.210340^2 * 12.206073^2/1e4)
    s2 = 8 * E * 1e-6 * 4 * LN(2.5e5) / 0.25 * (1e4 + 3 * 1e8 * 10.210340**2 * 12.206073**2 / 1e4)
    cal3 = y.calibrate_pairwise_sgd_output(n=100, eps=0.5, delta=1e-5, T=10_000, eta=1e-3, G=2)
    assert cal3.extras['sigma_paper'] == pytest.approx(SQ(s2), rel=1e-6)
    assert cal3.extras["gradient_complexity"] == 10_000 * 10_001 / 2


def test_eq5_two_readings_labelled_issue_example():
    # Yang, Lei, Lyu & Ying, eq. (5), at n = 100, T = 10^4, eta = 1e-3, G = 1, eps = 1, delta = 1e-4:
    # ln(2/delta) = ln(2e4) = 9.903488, ln(eT) = 1 + ln(1e4) = 10.210340,
    # T + 3 T^2 ln^2(eT) ln^2(2/delta)/n^2 = 1e4 + 3e8 * 104.25105 * 98.07907/1e4 = 3.0675537e8.
    # As the proof requires (Delta_T^2 = 4e eta^2 G^2 (...)): Delta_T = sqrt(4e * 1e-6 * 3.0675537e8) = 57.75284,
    #   sigma = sqrt(2 ln(2.5e4)) * Delta_T = 4.500362 * 57.75284 = 259.909.
    # As printed (no e): sigma = 259.909/sqrt(e) = 157.643.
    # Exact delta of the printed one against Delta_T at eps = 1: a = Delta/(2 sigma) = 0.183176, b = sigma/Delta
    #   = 2.729608: Phi(-2.546431) - e Phi(-2.912784) = 5.4415e-3 - 2.718282 * 1.7911e-3 = 5.728e-4 > delta/2 = 5e-5
    #   (the other delta/2 is the sensitivity bound's failure probability): not private.
    # The proof's: a = 0.111102, b = 4.500362: Phi(-4.389260) - e Phi(-4.611465) = 5.687e-6 - 2.718282 * 1.999e-6
    #   = 2.52e-7 <= 5e-5: private.
    p = dict(n=100, T=10_000, eta=1e-3, G=1.0, eps=1.0, delta=1e-4)
    cal = y.calibrate_pairwise_sgd_output(**p)
    ex = cal.extras
    assert ex["sigma_paper"] == pytest.approx(259.909, rel=1e-5)
    assert ex["sigma_as_printed"] == pytest.approx(157.643, rel=1e-5)
    assert ex["sigma_as_printed_exact_delta"] == pytest.approx(5.728e-4, rel=1e-3)
    assert not ex["sigma_as_printed_private"] and ex["paper_sigma_private"]
    labels = [r["label"] for r in ex["sigma_readings"]]
    assert labels == ["as printed (not private)", "as the proof requires"]
    assert [r["sigma"] for r in ex["sigma_readings"]] == [ex["sigma_as_printed"], ex["sigma_paper"]]
    text = " ".join(cal.notes)
    assert "as printed (not private): sigma = 157.6" in text and "as the proof requires: sigma = 259.9" in text
    printed = y.calibrate_pairwise_sgd_output(**p, sigma_rule="printed")
    assert not printed.feasible and printed.sigma == pytest.approx(157.643, rel=1e-5)
    assert "not (eps, delta)-DP here" in printed.reason and "sigma_rule='private'" in printed.fix
    proof = catalog.calibrate("pairwise-sgd-output", **p, sigma_rule="proof")
    assert proof.feasible and proof.sigma == pytest.approx(259.909, rel=1e-5) and "proof requires" in proof.reason
    assert cal.feasible and cal.sigma < 259.909
    with pytest.raises(ValueError, match="proof"):
        y.calibrate_pairwise_sgd_output(**p, sigma_rule="paper")


def test_calibration_corrected():
    # Delta from test_corrected_sensitivity_by_hand (gamma = delta/2 = 5e-7): c = 186.163
    c = (2 + LN(1000)) * (1.001 + LN(2e6) + SQ(2 * 1.001 * LN(2e6)))
    cal = y.calibrate_pairwise_sgd_output(n=1000, eps=1, delta=1e-6, T=1000, eta=0.01, G=1, corrected=True)
    assert cal.extras['sigma_paper'] == pytest.approx(SQ(2 * LN(2.5e6)) * SQ(4 * E * 1e-4 * (1000 + c**2)), rel=1e-9)
    assert "e^2T" in cal.formula


def test_calibration_T_below_n_is_infeasible():
    cal = y.calibrate_pairwise_sgd_output(n=1000, eps=1, delta=1e-6, T=500, eta=0.01, G=1)
    assert not cal.feasible and cal.sigma is None
    assert "500" in cal.reason and "1000" in cal.reason and "T >= 1000" in cal.fix and "corrected" in cal.fix
    # the corrected sensitivity holds for any T
    assert y.calibrate_pairwise_sgd_output(n=1000, eps=1, delta=1e-6, T=500, eta=0.01, G=1, corrected=True).feasible


def test_calibration_flags_large_eps():
    # sigma/Delta = sqrt(2 ln(2.5/delta))/eps; eps = 10, delta = 1e-3: s = sqrt(2 ln 2500)/10 = 0.395541
    # exact delta = Phi(1/(2s) - eps s) - e^eps Phi(-1/(2s) - eps s) = 0.00158 > delta/2 = 5e-4
    params = dict(n=1000, delta=1e-3, T=1000, eta=0.01, G=1)
    cal = y.calibrate_pairwise_sgd_output(eps=10, **params)
    assert cal.extras["gaussian_exact_delta"] == pytest.approx(0.00158024, rel=1e-4)
    assert any("not (ε, δ)-DP here" in note for note in cal.notes) and cal.extras["paper_sigma_private"] is False
    # at eps = 1 the proof's sigma is private (s = sqrt(2 ln 2500) = 3.955767: Phi(0.126398 - 3.955767)
    #   - e Phi(-0.126398 - 3.955767) ~= 6.42e-5 - 2.718282 * 2.23e-5 ~= 3.6e-6 <= 5e-4); only the printed one is flagged
    notes1 = y.calibrate_pairwise_sgd_output(eps=1, **params).notes
    assert not any("not (ε, δ)-DP here" in note for note in notes1 if "as the proof requires" in note)


@pytest.mark.parametrize("bad", [dict(eps=0.0), dict(eps=-1.0), dict(delta=0.0), dict(delta=1.0), dict(T=0),
                                 dict(eta=0.0), dict(G=0.0), dict(n=1), dict(n=10.5), dict(eps=float("nan")),
                                 dict(corrected=1)])
def test_calibration_invalid(bad):
    params = dict(n=1000, eps=1, delta=1e-6, T=1000, eta=0.01, G=1)
    params.update(bad)
    with pytest.raises(ValueError):
        y.calibrate_pairwise_sgd_output(**params)


def test_calibration_via_catalog():
    cal = catalog.calibrate("pairwise-sgd-output", n=1000, d=10, eps=1.0, delta=1e-6, T=1000, eta=0.01, G=1.0,
                            L=1.0, M=1.0, R=1.0, alpha=0.5)
    assert cal.extras['sigma_paper'] == pytest.approx(36.0157, rel=1e-5)
    assert ".txt" not in cal.reason + " ".join(cal.notes) + cal.fix
    assert catalog.calibrate("pairwise-sgd", n=1000, eps=1.0).feasible


# ---------------------------------------------------------------------------------------------------------------
# Theorem 1 entries


def test_thm1_rate_form():
    # eta sqrt(T) = 0.01 * sqrt(1000) = 0.316228; eta T ln T / n = 0.01 * 1000 * 6.907755/1000 = 0.0690776
    res = catalog.bound("yang-pairwise-thm1", n=1000, T=1000, eta=0.01, delta=1e-6)
    t = terms(res)
    assert t["iteration"].value == pytest.approx(0.316228, rel=1e-5)
    assert t["sampling"].value == pytest.approx(0.0690776, rel=1e-5)
    assert (t["sampling"].n_exp, t["sampling"].eps_exp) == (-1.0, 0.0)
    # c = 2, n = 100, T = 1e4, eta = 1e-3: 2 * 1e-3 * 100 = 0.2; 2 * 1e-3 * 1e4 * ln(1e4)/100 = 0.2 * 9.21034 = 1.842068
    res = y.bound_thm1(n=100, T=10_000, eta=1e-3, c=2.0)
    assert terms(res)["iteration"].value == pytest.approx(0.2)
    assert terms(res)["sampling"].value == pytest.approx(1.842068, rel=1e-6)
    # step t uses t pairwise subgradients: T(T+1)/2
    assert res.T == 10_000 and res.gradient_complexity == 10_000 * 10_001 / 2


def test_thm1_explicit():
    res = catalog.bound("yang-pairwise-thm1", explicit=True, n=1000, T=1000, eta=0.01, G=1.0, delta=1e-6)
    assert res.explicit and res.total == pytest.approx(6.63512, rel=1e-5)
    # iteration = 2 sqrt(e) eta G sqrt(T) = 2 * 1.648721 * 0.01 * 31.62278 = 1.042742
    assert terms(res)["iteration"].value == pytest.approx(1.042742, rel=1e-6)
    assert res.extras["eq3"] == pytest.approx(SQ(26.4604), rel=1e-5)
    # gamma = 0.3, a = ln(1/0.3) = 1.203973: eq. (9): 1000 + 3 * 7.907755^2 * 1.203973^2 = 1271.9
    # eq. (3): c = 7.907755 * (1 + 1.203973 + sqrt(1.203973)) = 26.1055, 1000 + c^2 = 1681.5 > 1271.9
    res = y.explicit_bound_thm1(n=1000, T=1000, eta=0.01, G=1, gamma=0.3)
    assert res.total == pytest.approx(SQ(4 * E * 1e-4 * (1000 + 3 * 7.907755**2 * 1.203973**2)), rel=1e-6)
    assert res.extras["eq3"] == pytest.approx(SQ(4 * E * 1e-4 * (1000 + (7.907755 * (2.203973 + SQ(1.203973))) ** 2)),
                                              rel=1e-6)
    assert any("fails" in note for note in res.notes)
    with pytest.raises(ValueError):
        y.explicit_bound_thm1(n=1000, T=1000, eta=0.01, G=1)  # neither gamma nor delta
    with pytest.raises(ValueError):
        y.explicit_bound_thm1(n=1000, T=999, eta=0.01, G=1, gamma=0.1)  # eq. (9) needs T >= n


# ---------------------------------------------------------------------------------------------------------------
# Theorem 2


def test_thm2_rate_form():
    # n = 100, gamma = 0.05: T = n^2 = 1e4, eta = n^(-3/2) = 1e-3, ceil(ln 100) = 5, ln(6e/0.05) = 5.787492
    res = catalog.bound("yang-pairwise-thm2", n=100, gamma=0.05)
    assert res.T == 10_000 and res.eta == pytest.approx(1e-3) and res.gradient_complexity == 10_000 * 10_001 / 2
    t = terms(res)
    assert t["generalisation"].value == pytest.approx(1 / 100)  # 1/sqrt(T)
    assert t["optimisation"].value == pytest.approx(1 / (1e4 * 1e-3) + 1e-3)  # 0.101
    assert t["statistical"].value == pytest.approx(SQ(LN(6e4 / 0.05) / 100), rel=1e-9)  # sqrt(13.997832/100)
    assert t["statistical"].value == pytest.approx(0.374137, rel=1e-5)
    assert t["stability"].value == pytest.approx(5.787492 * 1e-3 * 5 * 100, rel=1e-6)  # 2.893746
    assert t["stability-sampling"].value == pytest.approx(
        5.787492 * 1e-3 * 5 * SQ(3) * 1e4 * LN(E * 1e4) * LN(6 / 0.05) / 100, rel=1e-6)
    assert all(term.n_exp <= -0.5 and term.eps_exp == 0.0 for term in res.terms)
    # c = 2 doubles every term
    assert y.bound_thm2(n=100, c=2.0).total == pytest.approx(2 * res.total)


def test_thm2_explicit():
    # n = 100, G = R = 1 (D = 2), M0 = 1, gamma = 0.05, kappa = 1, schedule T = 1e4, eta = 1e-3
    res = catalog.bound("yang-pairwise-thm2", explicit=True, n=100, G=1.0, R=1.0)
    c1 = 100 * SQ(6) * E**1.5 * 1 * 1 * LN(6 * E / 0.05)
    c2 = (6 + 19 * E) * (1 + 1 * 2)
    t = terms(res)
    assert res.extras["c1"] == pytest.approx(c1) and res.extras["c2"] == pytest.approx(c2)
    assert c1 == pytest.approx(6353.42, rel=1e-5)  # 100 * 2.449490 * 4.481689 * 5.787492
    assert t["generalisation"].value == pytest.approx(4 * 4 * (2 * 100 - 1) / 1e4)  # B = 4 G R kappa = 4 -> 0.3184
    assert t["optimisation"].value == pytest.approx(2**2 / (2 * 1e4 * 1e-3) + 1e-3 / 2)  # 0.2005
    assert t["statistical"].value == pytest.approx(c2 * SQ(LN(1.2e6) / 100))
    assert t["stability"].value == pytest.approx(c1 * 1e-3 * 5 * 100)
    assert t["stability-sampling"].value == pytest.approx(c1 * 1e-3 * 5 * SQ(3) * 1e4 * LN(E * 1e4) * LN(120) / 100)
    # second point: G = 2, R = 0.5 (D = 1), M0 = 0.5, gamma = 0.1, T = 500, eta = 0.01, Rademacher B = 3
    res = y.explicit_bound_thm2(n=100, G=2.0, R=0.5, T=500, eta=0.01, M0=0.5, gamma=0.1, rademacher=3.0)
    c1 = 100 * SQ(6) * E**1.5 * 2 * 2 * LN(60 * E)
    c2 = (6 + 19 * E) * (0.5 + 2 * 1)
    t = terms(res)
    assert t["generalisation"].value == pytest.approx(4 * 3 * (2 * SQ(500) - 1) / 500)
    assert t["optimisation"].value == pytest.approx(1 / (2 * 500 * 0.01) + 0.01 * 4 / 2)  # 0.12
    assert t["statistical"].value == pytest.approx(c2 * SQ(LN(3000 / 0.1) / 100))
    assert t["stability"].value == pytest.approx(c1 * 0.01 * 5 * SQ(500))
    assert res.total == pytest.approx(sum(x.value for x in res.terms))


# ---------------------------------------------------------------------------------------------------------------
# Theorem 3


def test_thm3_rate_form():
    # n = 1000: T = 1000^(4/3) = 10^4, eta = 1/n = 1e-3, ceil(ln 1000) = 7, gamma = 0.05
    res = catalog.bound("yang-pairwise-thm3", n=1000)
    assert res.T == 10_000 and res.eta == pytest.approx(1e-3)
    t = terms(res)
    assert t["generalisation"].value == pytest.approx(1e-3 * 100 + 1 / 100)  # eta sqrt(T) + 1/sqrt(T) = 0.11
    assert t["optimisation"].value == pytest.approx(1 / 10 + 1e-3)  # 0.101
    # sqrt(1e-3 * ln(1.2e6)) + sqrt(1e-3 * 1e4 * ln(6e/0.05)/1000) = 0.118313 + 0.240572 = 0.358885
    assert t["unbounded-domain"].value == pytest.approx(0.358885, rel=1e-5)
    assert t["statistical"].value == pytest.approx(0.118313, rel=1e-5)
    assert t["stability"].value == pytest.approx(5.787492 * 1e-3 * 7 * 100, rel=1e-6)  # 4.051244
    assert t["stability-sampling"].value == pytest.approx(
        5.787492 * 1e-3 * 7 * 4 * 1e4 * LN(E * 1e4) * SQ(LN(6000 / 0.05)) / 1000, rel=1e-6)
    assert t["optimisation"].n_exp == pytest.approx(-1 / 3)
    # n = 8: T = 8^(4/3) = 16, eta = 1/8
    res = y.bound_thm3(n=8)
    assert res.T == 16 and res.eta == 0.125
    assert terms(res)["optimisation"].value == pytest.approx(1 / (16 * 0.125) + 0.125)  # 0.625


def test_thm3_explicit():
    # n = 1000, G = 1, R = ||w*|| = 1, M0 = 1, gamma = 0.05, kappa = 1; T = 1e4, eta = 1e-3
    res = catalog.bound("yang-pairwise-thm3", explicit=True, n=1000, G=1.0, R=1.0)
    t = terms(res)
    c1 = 100 * SQ(6) * E**1.5 * LN(6 * E / 0.05)
    c3 = (7 + 12 * SQ(2) * E) * 1 + 4 * 1 * 1 + 16 * E * 1
    c4 = 3 * 1 * SQ(1 + 2)  # 5.196152
    c5 = 12 * SQ(2) * E * 1 * SQ(1 + 2)  # 79.9008
    assert res.extras["c4"] == pytest.approx(c4) == pytest.approx(5.196152, rel=1e-6) and res.extras["c5"] == pytest.approx(c5) == pytest.approx(79.9008, rel=1e-5)
    # 8 G kappa (sqrt((G^2 + 2M) eta) + D (2 sqrt(T) - 1)/T) = 8 (0.0547723 + 0.0199) = 0.597378
    assert t["generalisation"].value == pytest.approx(0.597378, rel=1e-5)
    assert t["optimisation"].value == pytest.approx(1 / (2 * 1e4 * 1e-3) + 1e-3 / 2)  # 0.0505
    assert t["unbounded-domain"].value == pytest.approx(c4 * SQ(1e-3 * LN(1.2e6)) + c5 * SQ(1e-3 * 1e4 * LN(6 * E / 0.05)
                                                                                          / 1000))
    assert t["statistical"].value == pytest.approx(c3 * SQ(LN(1.2e6) / 1000))
    assert t["stability-sampling"].value == pytest.approx(c1 * 1e-3 * 7 * 4 * 1e4 * LN(E * 1e4) * SQ(LN(1.2e5)) / 1000)
    # second point: G = 2, M0 = 0, R = 3, T = 2000, eta = 0.01, n = 1000: c4 = 3*2*2 = 12, c5 = 12 sqrt(2) e * 2 * 2
    res = y.explicit_bound_thm3(n=1000, G=2.0, R=3.0, T=2000, eta=0.01, M0=0.0, gamma=0.1, kappa=0.5)
    t = terms(res)
    assert res.extras["c4"] == pytest.approx(12.0) and res.extras["c5"] == pytest.approx(48 * SQ(2) * E)
    # 8 * 2 * 0.5 * (sqrt(4 * 0.01) + 3 (2 sqrt(2000) - 1)/2000) = 8 * (0.2 + 0.1326627) = 2.661301
    assert t["generalisation"].value == pytest.approx(8 * (0.2 + 3 * (2 * SQ(2000) - 1) / 2000), rel=1e-9)
    assert t["optimisation"].value == pytest.approx(9 / (2 * 2000 * 0.01) + 0.01 * 4 / 2)  # 0.245


# ---------------------------------------------------------------------------------------------------------------
# Theorem 5


def test_thm5_rate_form():
    # n = 100, d = 10, eps = 1, delta = 1e-4, gamma = 0.05: T = 1e4, eta = 1e-3
    res = catalog.bound("yang-pairwise-thm5", n=100, d=10, eps=1.0, delta=1e-4)
    t = terms(res)
    # privacy = sqrt(d) eta sqrt(ln(2.5/delta)) (sqrt(T) + T ln(eT) ln(2/delta)/n)/eps
    #         = 3.162278 * 1e-3 * sqrt(10.126631) * (100 + 1e4 * 10.210340 * 9.903488/100) = 1.0063e-2 * 10211.8
    priv = SQ(10) * 1e-3 * SQ(LN(2.5e4)) * (100 + 1e4 * LN(E * 1e4) * LN(2e4) / 100)
    assert t["privacy"].value == pytest.approx(priv, rel=1e-9)
    assert priv == pytest.approx(102.76, rel=1e-3)
    assert (t["privacy"].n_exp, t["privacy"].eps_exp) == (-0.5, -1.0)
    # the stability-sampling term uses ln(2/delta) = ln(2e4) in Theorem 5
    assert t["stability-sampling"].value == pytest.approx(
        5.787492 * 1e-3 * 5 * SQ(3) * 1e4 * LN(E * 1e4) * LN(2e4) / 100, rel=1e-6)
    assert t["statistical"].value == pytest.approx(0.374137, rel=1e-5)
    # gamma = 0.05 is outside (max(4 delta, exp(-10/8)), 1) = (0.2865, 1): flagged
    assert any("outside" in note for note in res.notes)
    # eps = 2 halves the privacy term; gamma = 0.5 is inside the range
    res2 = y.bound_thm5(n=100, d=10, eps=2.0, delta=1e-4, gamma=0.5)
    assert terms(res2)["privacy"].value == pytest.approx(priv / 2)
    assert not any("outside" in note for note in res2.notes)


def test_thm5_explicit():
    # n = T = 1000, eta = 0.01, G = R = 1 (D = 2), d = 10, eps = 1, delta = 1e-6, gamma = 0.5
    res = y.explicit_bound_thm5(n=1000, d=10, eps=1.0, delta=1e-6, G=1.0, R=1.0, T=1000, eta=0.01, gamma=0.5)
    t = terms(res)
    sigma = SQ(2 * LN(2.5e6)) * SQ(4 * E * 1e-4 * (1000 + 3 * LN(1000 * E) ** 2 * LN(2e6) ** 2))  # 36.0157
    assert res.extras["sigma"] == pytest.approx(sigma)
    # privacy = 2 G sigma sqrt(d) ln^(1/4)(4/gamma) = 2 * 36.0157 * 3.162278 * ln(8)^(1/4) = 2 * 36.0157 * 3.162278 * 1.200852
    assert t["privacy"].value == pytest.approx(2 * sigma * SQ(10) * LN(8) ** 0.25)
    assert t["privacy"].value == pytest.approx(273.53, rel=1e-4)
    c1 = 100 * SQ(6) * E**1.5 * LN(6 * E / 0.5)
    assert t["stability-sampling"].value == pytest.approx(c1 * 0.01 * 7 * SQ(3) * 1000 * LN(1000 * E) * LN(2e6) / 1000)
    assert t["generalisation"].value == pytest.approx(4 * 4 * (2 * SQ(1000) - 1) / 1000)
    assert t["optimisation"].value == pytest.approx(4 / (2 * 1000 * 0.01) + 0.01 / 2)  # 0.205
    assert t["statistical"].value == pytest.approx((6 + 19 * E) * 3 * SQ(LN(6000 / 0.5) / 1000))
    # eps = 2 halves the privacy term only
    res2 = y.explicit_bound_thm5(n=1000, d=10, eps=2.0, delta=1e-6, G=1.0, R=1.0, T=1000, eta=0.01, gamma=0.5)
    assert terms(res2)["privacy"].value == pytest.approx(t["privacy"].value / 2)
    assert terms(res2)["statistical"].value == pytest.approx(t["statistical"].value)


def test_thm5_explicit_T_below_n_raises():
    with pytest.raises(ValueError, match="T >= "):
        y.explicit_bound_thm5(n=1000, d=10, eps=1.0, delta=1e-6, G=1.0, R=1.0, T=100, eta=0.01)


# ---------------------------------------------------------------------------------------------------------------
# Corollaries


def test_corollaries():
    # Corollary 1 (AUC): sqrt(kappa/n) = sqrt(4/100) = 0.2; c = 3 -> 0.6; schedule T = n^2 = 1e4, eta = 1e-3
    res = catalog.bound("yang-pairwise-cor1", n=100, kappa=4.0, c=3.0)
    assert res.total == pytest.approx(0.6) and res.T == 10_000 and res.eta == pytest.approx(1e-3)
    assert res.gradient_complexity == 10_000 * 10_001 / 2
    assert y.bound_cor1(n=400).total == pytest.approx(0.05)  # sqrt(1/400)
    # Corollary 2: privacy = sqrt(kappa d)/(sqrt(n) eps) = sqrt(100)/(10 * 0.5) = 2; printed sqrt(100/(100*0.5)) = 1.41421
    res = y.bound_cor2(n=100, d=25, eps=0.5, kappa=4.0)
    t = terms(res)
    assert t["privacy"].value == pytest.approx(2.0) and t["statistical"].value == pytest.approx(0.2)
    assert res.extras["privacy_as_printed"] == pytest.approx(1.414214, rel=1e-6)
    assert (t["privacy"].n_exp, t["privacy"].eps_exp) == (-0.5, -1.0)
    assert y.bound_cor2(n=10_000, d=1, eps=1.0).total == pytest.approx(0.01 + 0.01)
    # Corollary 3 (metric learning): sqrt(chi log d)/n = sqrt(2 ln 100)/100 = sqrt(9.21034)/100 = 0.0303485,
    # optimisation ln^2(n)/sqrt(n) = 4.60517^2/10 = 2.120759
    t = terms(y.bound_cor3(n=100, d=100, chi=2.0))
    assert t["generalisation"].value == pytest.approx(0.0303485, rel=1e-5)
    assert t["optimisation"].value == pytest.approx(2.120759, rel=1e-6)
    assert terms(y.bound_cor3(n=100, d=1))["generalisation"].value == 0.0  # log 1 = 0
    # Corollary 4: + sqrt(chi d log d)/(sqrt(n) eps) = sqrt(2 * 100 * 4.60517)/(10 * 2) = 30.3485/20 = 1.517427
    t = terms(y.bound_cor4(n=100, d=100, eps=2.0, chi=2.0))
    assert t["privacy"].value == pytest.approx(1.517427, rel=1e-6)
    assert t["optimisation"].value == pytest.approx(2.120759, rel=1e-6)


@pytest.mark.parametrize("call", [
    lambda: y.bound_cor1(n=1),
    lambda: y.bound_cor1(n=100, kappa=0.0),
    lambda: y.bound_cor2(n=100, d=10, eps=0.0),
    lambda: y.bound_cor3(n=100, d=0),
    lambda: y.bound_cor4(n=100, d=10, eps=1.0, chi=-1.0),
    lambda: y.bound_thm2(n=100, gamma=1.5),
    lambda: y.bound_thm2(n=100, c=0.0),
    lambda: y.bound_thm3(n=100, c_eta=-1.0),
    lambda: y.bound_thm5(n=100, d=10, eps=1.0, delta=0.0),
    lambda: y.explicit_bound_thm2(n=100, G=-1.0, R=1.0),
    lambda: y.explicit_bound_thm2(n=100, G=1.0, R=1.0, rademacher=-1.0),
    lambda: y.explicit_bound_thm3(n=100, G=1.0, R=0.0),
    lambda: y.bound_thm1(n=100, T=0, eta=0.1),
    lambda: y.c1_constant(G=1.0, gamma=0.0),
])
def test_bounds_invalid(call):
    with pytest.raises(ValueError):
        call()


# ---------------------------------------------------------------------------------------------------------------
# catalogue


def test_catalogue_entries():
    alg = catalog.get_algorithm("pairwise-sgd")
    assert alg.calibrate is None and alg.perturbation == "none" and alg.setting == "pairwise"
    alg = catalog.get_algorithm("pairwise-sgd-output")
    assert alg.perturbation == "output" and alg.setting == "pairwise" and ".txt" not in alg.paper.cite()
    expected = {"thm1": "pairwise-sgd", "thm2": "pairwise-sgd", "thm3": "pairwise-sgd", "thm5": "pairwise-sgd-output",
                "cor1": "pairwise-sgd", "cor2": "pairwise-sgd-output", "cor3": "pairwise-sgd",
                "cor4": "pairwise-sgd-output"}
    for suffix, algorithm in expected.items():
        thm = catalog.get_theorem(f"yang-pairwise-{suffix}")
        assert thm.algorithm == algorithm
    assert "stability" in catalog.get_theorem("yang-pairwise-thm1").risk
    for suffix in ("thm1", "thm2", "thm3", "thm5"):
        assert catalog.get_theorem(f"yang-pairwise-{suffix}").explicit_bound is not None
    assert "AUC" in catalog.get_theorem("yang-pairwise-cor1").notes[0]
    assert "metric" in catalog.get_theorem("yang-pairwise-cor3").notes[0]
    assert "sqrt(n) eps" in catalog.get_theorem("yang-pairwise-thm5").discrepancy


def test_thm1_note_on_the_step_from_eq3_to_eq9():
    # At T = n the step (3) -> (9) reads (1 + a + sqrt(a))^2 <= 3 a^2, a = ln(1/gamma):
    # sqrt(a) >= (1 + sqrt(1 + 4 (sqrt 3 - 1)))/(2 (sqrt 3 - 1)) = (1 + 1.98197)/1.46410 = 2.03672 -> a >= 4.148
    root = ((1 + math.sqrt(1 + 4 * (math.sqrt(3) - 1))) / (2 * (math.sqrt(3) - 1))) ** 2
    assert root == pytest.approx(4.148, abs=1e-3)
    note = catalog.get_theorem("yang-pairwise-thm1").discrepancy
    assert "4.15" in note and "never holds" not in note and "1.28" in note
    # n = T = 1000, gamma = 1e-6: eq. (9)/eq. (3) (sensitivities) = 1.28; n = T = 100, gamma = 0.05 (a = 3.0): < 1
    e9 = y.sensitivity(n=1000, T=1000, eta=0.01, G=1, gamma=1e-6)
    e3 = math.sqrt(y.stability_eq3(n=1000, t=1000, eta=0.01, G=1, gamma=1e-6))
    assert e9 / e3 == pytest.approx(1.28, abs=5e-3)
    e9 = y.sensitivity(n=100, T=100, eta=0.01, G=1, gamma=0.05)
    e3 = math.sqrt(y.stability_eq3(n=100, t=100, eta=0.01, G=1, gamma=0.05))
    assert e9 < e3
