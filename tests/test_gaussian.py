"""The analytic Gaussian mechanism (Balle & Wang 2018, Theorem 8 / Algorithm 1), checked by hand."""

import math

import pytest

from dpviz.theory.gaussian import classical_sigma, delta_of, log_delta_of, sigma_for


def _Phi(x):
    return 0.5 * math.erfc(-x / math.sqrt(2.0))


def _delta_direct(sigma, sens, eps):
    """Theorem 8 written out term by term (plain erfc, no log space): an independent implementation."""
    return _Phi(sens / (2 * sigma) - eps * sigma / sens) - math.exp(eps) * _Phi(-sens / (2 * sigma) - eps * sigma / sens)


def test_eps_zero_is_total_variation():
    # eps = 0, sigma = Delta: delta = Phi(1/2) - Phi(-1/2) = 2 Phi(0.5) - 1 = 2 * 0.691462 - 1 = 0.382925
    assert delta_of(1.0, 1.0, 0.0) == pytest.approx(0.382925, abs=1e-6)
    # sigma = Delta / (2 * 1.959964): a = 1.959964, 2 Phi(1.959964) - 1 = 0.95
    assert delta_of(1.0 / (2 * 1.959964), 1.0, 0.0) == pytest.approx(0.95, abs=1e-6)


@pytest.mark.parametrize("sigma,sens,eps", [(1.0, 1.0, 1.0), (0.3, 1.0, 2.0), (5.0, 1.0, 0.5), (0.12, 0.126, 5.0)])
def test_matches_direct_formula(sigma, sens, eps):
    assert delta_of(sigma, sens, eps) == pytest.approx(_delta_direct(sigma, sens, eps), rel=1e-9)


def test_hand_value_sigma_equal_sensitivity():
    # sigma = Delta = 1, eps = 1: a = 1/2, b = 1;  Phi(-0.5) = 0.3085375, Phi(-1.5) = 0.0668072,
    # delta = 0.3085375 - e * 0.0668072 = 0.3085375 - 0.1816009 = 0.1269366
    assert delta_of(1.0, 1.0, 1.0) == pytest.approx(0.1269366, abs=2e-7)


def test_xue_dpgdc2_issue_numbers():
    # Xue et al. (xue-pairwise) Alg. 2, n = 1000, d = 10, eps = 5, delta = 1e-8: T = min(n, n^2 eps^2/(d ln 1e8)) = 1000,
    # sensitivity 4G/n = 0.004, printed sigma = 0.004 sqrt(1.25 * 1000 * 18.4207)/5 = 0.004 * 151.744 / 5 = 0.121394.
    # T compositions = one Gaussian with sensitivity sqrt(1000) * 0.004 = 0.126491, so mu = 1.04199:
    # delta = Phi(0.52100 - 4.79853) - e^5 Phi(-0.52100 - 4.79853) = 9.4554e-6 - 148.413 * 5.2062e-8 = 1.728e-6.
    sens = 0.004 * math.sqrt(1000)
    sigma_printed = 0.004 * math.sqrt(1.25 * 1000 * math.log(1e8)) / 5
    assert sigma_printed == pytest.approx(0.12139, abs=1e-5)
    assert delta_of(sigma_printed, sens, 5.0) == pytest.approx(1.73e-6, rel=5e-3)
    assert sigma_for(5.0, 1e-8, sens) == pytest.approx(0.1441, abs=1e-4)
    # eps = 1, delta = 1e-6: T = min(1000, 1e6 / (10 ln 1e6)) = 1000, printed sigma 0.004 sqrt(1.25e3 * 13.8155) = 0.52565
    sigma_printed = 0.004 * math.sqrt(1.25 * 1000 * math.log(1e6))
    assert delta_of(sigma_printed, sens, 1.0) == pytest.approx(1.40e-6, rel=5e-3)


def test_classical_sigma_private_for_small_eps_and_analytic_smaller():
    # classical sigma = sqrt(2 ln(1.25e5)) / eps = 4.8448 / eps at delta = 1e-5, Delta = 1 (proved for eps < 1)
    for eps in (0.1, 0.5, 0.9):
        c = classical_sigma(eps, 1e-5, 1.0)
        assert c == pytest.approx(4.844805 / eps, rel=1e-6)
        assert delta_of(c, 1.0, eps) <= 1e-5
        assert sigma_for(eps, 1e-5, 1.0) < c
    # at eps = 16 the classical sigma 4.8448/16 = 0.30280 under-noises: exact delta 3.4e-4 >> 1e-5
    c = classical_sigma(16.0, 1e-5, 1.0)
    assert delta_of(c, 1.0, 16.0) > 1e-4
    assert sigma_for(16.0, 1e-5, 1.0) > c


@pytest.mark.parametrize("eps,delta,sens", [(1.0, 1e-5, 1.0), (0.1, 1e-10, 3.0), (16.0, 1e-8, 0.01),
                                            (1.0, 1e-300, 1.0), (200.0, 1e-10, 1.0), (1e-3, 0.5, 1e-8)])
def test_sigma_for_is_the_exact_root(eps, delta, sens):
    s = sigma_for(eps, delta, sens)
    assert s > 0
    assert log_delta_of(s, sens, eps) <= math.log(delta)  # private
    assert log_delta_of(s * (1 - 1e-9), sens, eps) > math.log(delta)  # and the smallest such sigma


def test_scale_invariance_and_monotone():
    # delta depends on sigma / Delta only
    assert delta_of(2.0, 4.0, 1.0) == pytest.approx(delta_of(0.5, 1.0, 1.0), rel=1e-12)
    values = [delta_of(s, 1.0, 1.0) for s in (0.2, 0.5, 1.0, 2.0, 5.0)]
    assert values == sorted(values, reverse=True)


@pytest.mark.parametrize("args", [(0.0, 1.0, 1.0), (-1.0, 1.0, 1.0), (1.0, 0.0, 1.0), (1.0, 1.0, -0.1),
                                  (float("nan"), 1.0, 1.0), (1.0, float("inf"), 1.0), ("a", 1.0, 1.0)])
def test_delta_of_rejects_bad_input(args):
    with pytest.raises(ValueError):
        delta_of(*args)


@pytest.mark.parametrize("args", [(0.0, 1e-5, 1.0), (1.0, 0.0, 1.0), (1.0, 1.0, 1.0), (1.0, 1e-5, -1.0),
                                  (float("inf"), 1e-5, 1.0)])
def test_sigma_for_rejects_bad_input(args):
    with pytest.raises(ValueError):
        sigma_for(*args)
    with pytest.raises(ValueError):
        sigma_for(1.0, 1e-5, 1.0, rtol=0.5)
