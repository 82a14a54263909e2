"""Issue 31, item 2: where the Rényi conversion reads ε = 0 but the total variation cannot certify it, the ε printed
is the one certified by one exact Gaussian step (Balle & Wang 2018, Theorem 8), amplification by sub-sampling
(Balle, Barthe & Gaboardi 2018, Theorems 8-9) and composition (Kairouz, Oh & Viswanath 2015, Theorem 3.3) — not a
fixed 10⁻⁹.  Checked against an independent double-precision computation (scipy's ndtr and brentq), against
dp_accounting's PLD for one step (where the amplification bound is exact), and against the analytic Gaussian."""

from __future__ import annotations

import math

import pytest
from scipy.integrate import quad
from scipy.optimize import brentq
from scipy.special import ndtr

from dpviz.theory import accounting, gaussian
from dpviz.theory.accounting import hockey


def _tv_by_hand(z, q, T):
    """The product total-variation bound 1 - (1 - q erf(1/(2 sqrt2 z)))^T (q = 1: erf(sqrt(T)/(2 sqrt2 z)))."""
    if q == 1.0:
        return math.erf(math.sqrt(T) / (2 * math.sqrt(2) * z))
    return 1 - (1 - q * math.erf(1 / (2 * math.sqrt(2) * z))) ** T


def _eps_by_hand(z, delta, T, q):
    """T * eps1 for the eps1 with q * delta_G(log(1 + (e^eps1 - 1)/q); 1/z) = 1 - (1 - delta)^(1/T), in double
    precision with scipy: delta_G = Phi(mu/2 - e/mu) - e^e Phi(-mu/2 - e/mu) (mu = 1/z) written as
    int_b^a phi - expm1(e) Phi(b) (b = a - mu), the integral by quadrature, so that the difference of two values
    near 1/2 (equal in their first 9 digits at z = 1e8) is never formed."""
    mu = 1.0 / z
    target = -math.expm1(math.log1p(-delta) / T)

    def f(log_e1):
        e1 = math.exp(log_e1)
        e = math.log1p(math.expm1(e1) / q)
        a = mu / 2 - e / mu
        mass = quad(lambda t: math.exp(-t * t / 2) / math.sqrt(2 * math.pi), a - mu, a, epsabs=0, epsrel=1e-13)[0]
        return q * (mass - math.expm1(e) * ndtr(a - mu)) - target

    return T * math.exp(brentq(f, math.log(1e-30), math.log(10.0), xtol=1e-13, rtol=1e-12))


@pytest.mark.parametrize("q, T, z, delta", [
    (0.75, 8, 213851.0, 1e-5),  # found by the property test (RDP's conversion read 0; dpviz printed 1e-9)
    (256 / 60000, 1, 1e8, 1e-12),  # the issue's reproducer: n = 60 000, batch 256, one step, z = 1e8
    (0.01, 100, 300.0, 1e-3),  # sampling without replacement, replace-one: RDP read 0 and dpviz printed 0
])
def test_eps_where_rdp_reads_zero_is_the_certified_composition(q, T, z, delta):
    tv = _tv_by_hand(z, q, T)
    assert tv > delta  # eps = 0 is not certified by the total variation
    assert gaussian.total_variation(noise_multiplier=z, sampling_prob=q, steps=T) == pytest.approx(tv, rel=1e-9)
    ref = _eps_by_hand(z, delta, T, q)
    got = hockey.composed_eps(z, delta, T, q)
    assert got == pytest.approx(ref, rel=1e-4)
    assert got >= ref * (1 - 1e-6)  # rounded up, never down
    if (q, T, z) == (0.01, 100, 300.0):
        e = accounting.epsilon_general(noise_multiplier=z, delta=delta, steps=T, sampling_prob=q,
                                       sampling="without-replacement", neighbouring="replace-one")
    else:
        e = accounting.epsilon_for(noise_multiplier=z, delta=delta, steps=T, sampling_prob=q)
    assert e > 0.0
    if q == 256 / 60000:  # RDP's conversion is positive here (its divergences are rounded up): printed unchanged,
        assert e >= got  # and above this one-step eps (exact for T = 1: a lower bound on every valid upper bound)
    else:  # RDP's conversion read 0: the composition's eps is printed
        assert e == pytest.approx(got, rel=1e-12)


def test_issue_case_value_and_neighbours():
    # q = 0.75, T = 8, z = 213 851, delta = 1e-5: eps = 2.473e-6 (was the arbitrary 1e-9)
    e = accounting.epsilon_for(noise_multiplier=213851, delta=1e-5, steps=8, sampling_prob=0.75)
    assert e == pytest.approx(2.473e-6, rel=1e-3)
    # more noise: the total variation 8.3e-6 is <= delta, eps = 0 exactly; more steps: RDP's positive eps, larger
    assert _tv_by_hand(213851 * 1.5, 0.75, 8) <= 1e-5
    assert accounting.epsilon_for(noise_multiplier=213851 * 1.5, delta=1e-5, steps=8, sampling_prob=0.75) == 0.0
    assert accounting.epsilon_for(noise_multiplier=213851, delta=1e-5, steps=16, sampling_prob=0.75) > e
    # without sampling the total variation is exact: q = 1, T = 5, z = 165 832 is (0, 1e-5)-DP
    assert _tv_by_hand(165832, 1.0, 5) <= 1e-5
    assert accounting.epsilon_for(noise_multiplier=165832, delta=1e-5, steps=5, sampling_prob=1.0) == 0.0


@pytest.mark.parametrize("z, q, delta, eps_dp", [
    # dp_accounting's PLD of one Poisson-sampled Gaussian step (add/remove), grid 1e-5: PLDAccountant(1e-5),
    # compose(PoissonSampledDpEvent(q, GaussianDpEvent(z))), get_epsilon(delta)
    (2.0, 0.01, 1e-5, 0.028259084675170732),
    (1.0, 0.1, 1e-6, 2.1816941096065383),
    (0.8, 0.5, 1e-5, 4.786232157080335),
])
def test_one_step_matches_dp_accounting(z, q, delta, eps_dp):
    # for one step the amplification bound of Balle, Barthe & Gaboardi is exact (the remove direction)
    got = hockey.composed_eps(z, delta, 1, q)
    assert got == pytest.approx(eps_dp, rel=1e-5)


def test_one_step_matches_dp_accounting_live():
    import dp_accounting
    from dp_accounting.pld import pld_privacy_accountant as pld

    acc = pld.PLDAccountant(value_discretization_interval=1e-5)
    acc.compose(dp_accounting.PoissonSampledDpEvent(0.05, dp_accounting.GaussianDpEvent(1.5)), 1)
    assert hockey.composed_eps(1.5, 1e-6, 1, 0.05) == pytest.approx(acc.get_epsilon(1e-6), rel=1e-4)


@pytest.mark.parametrize("z, T, delta", [(1.0, 1, 1e-5), (50.0, 400, 1e-8), (3e6, 10**6, 1e-12)])
def test_no_sampling_is_the_analytic_gaussian(z, T, delta):
    # q = 1: T steps are one Gaussian of shift sqrt(T); the eps is the analytic Gaussian's (Balle & Wang 2018)
    e = hockey.composed_eps(z, delta, T, 1.0)
    sens = math.sqrt(T)
    assert gaussian.delta_of(z, sens, e) <= delta * (1 + 1e-9)
    assert gaussian.delta_of(z, sens, e * (1 - 1e-5)) > delta


def test_extremes_and_monotone():
    # the extreme end of the property test's ranges: q = 1e-6, T = 1e6, z = 1e8, delta = 1e-12
    tv = _tv_by_hand(1e8, 1e-6, 10**6)
    e = hockey.composed_eps(1e8, 1e-12, 10**6, 1e-6)
    assert tv > 1e-12 and 0.0 < e < 1e-6
    assert e == pytest.approx(_eps_by_hand(1e8, 1e-12, 10**6, 1e-6), rel=1e-3)
    # more noise: no larger; more steps: no smaller
    assert hockey.composed_eps(2e8, 1e-12, 10**6, 1e-6) <= e
    assert hockey.composed_eps(1e8, 1e-12, 2 * 10**6, 1e-6) >= e


def test_eps_where_the_kl_shortcut_reads_zero_keeps_moving_with_steps_and_noise():
    """Found by the property test (test_rdp_sound_and_monotone): z = 0.3047, q = 10⁻⁶, δ = 0.0625.  At T = 149 133
    dp_accounting's conversion reads 0 through its KL shortcut (T·ρ(1.1) = 0.0020 < δ² = 0.0039), the total variation
    bound (0.125) cannot show ε = 0, and dpviz printed the one-step composition, 21.74 -- above the 0.8509 it printed
    for twice the steps.  Now the smaller of that and the orders' own conversions (Canonne, Kamath & Steinke 2020,
    Proposition 12), by hand from dp_accounting's per-order RDP: 0.78020 at α = 2.6."""
    from dp_accounting.rdp import rdp_privacy_accountant as rdp

    from dpviz.theory.accounting import rdp_poisson

    z, delta, q, T = 0.3046875, 0.0625, 1e-6, 149133
    assert gaussian.total_variation(noise_multiplier=z, sampling_prob=q, steps=T) > delta
    orders = list(rdp_poisson.RDP_ORDERS)
    per_step = rdp._compute_rdp_poisson_subsampled_gaussian(q=q, noise_multiplier=z, orders=orders)
    assert rdp.compute_epsilon(orders, T * per_step, delta)[0] == 0  # the shortcut
    by_hand = min(T * r + math.log1p(-1 / a) - math.log(delta * a) / (a - 1) for a, r in zip(orders, per_step)
                  if a > 1.01)
    assert by_hand == pytest.approx(0.7802029, rel=1e-6)
    got = accounting.epsilon_for(noise_multiplier=z, delta=delta, steps=T, sampling_prob=q)
    assert got == pytest.approx(by_hand, rel=1e-9) and got >= by_hand * (1 - 1e-12)
    twice = accounting.epsilon_for(noise_multiplier=z, delta=delta, steps=2 * T, sampling_prob=q)
    assert got <= twice == pytest.approx(0.850927, rel=1e-5)
    more_noise = accounting.epsilon_for(noise_multiplier=1.5 * z, delta=delta, steps=2 * T + 1, sampling_prob=q)
    assert 0 < more_noise <= accounting.epsilon_for(noise_multiplier=z, delta=delta, steps=2 * T + 1, sampling_prob=q)
