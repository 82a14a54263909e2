"""dpviz.theory.accounting: closed forms of the Gaussian mechanism, monotonicity, round trips, input checks."""
import math

import pytest

from dpviz.theory import accounting as acc

LOG = math.log


def _phi(x):
    return 0.5 * math.erfc(-x / math.sqrt(2.0))


def test_closed_form_rdp_gaussian():
    # z = 2, T = 10, delta = 1e-5: min over lambda > 1 = T/(2z^2) + sqrt(2 T log(1/delta))/z
    #   = 10/8 + sqrt(2*10*11.512925)/2 = 1.25 + 15.174271/2 = 8.837136
    assert acc.rdp_epsilon_gaussian(noise_multiplier=2, delta=1e-5, steps=10) == pytest.approx(8.837136, rel=1e-6)
    # on the grid {2, 3}: lambda = 2: 10*2/8 + 11.512925/1 = 14.012925; lambda = 3: 30/8 + 11.512925/2 = 9.506463
    assert acc.rdp_epsilon_gaussian(noise_multiplier=2, delta=1e-5, steps=10, orders=[2, 3]) == pytest.approx(
        30 / 8 + LOG(1e5) / 2)


@pytest.mark.parametrize("z, T, delta", [(1.0, 1, 1e-5), (5.0, 100, 1e-6), (20.0, 1000, 1e-8)])
def test_unsampled_epsilon_matches_the_rdp_formula_on_the_order_grid(z, T, delta):
    orders = acc.RDP_ORDERS  # the accountant's grid of orders (dp_accounting's defaults plus denser large orders)

    # RDP of order lam of T Gaussian mechanisms: T lam/(2 z^2).  dp_accounting converts with the bound
    # eps = rdp + log(1 - 1/lam) - log(delta lam)/(lam - 1) (Canonne-Kamath-Steinke), never worse than the classical
    # rdp + log(1/delta)/(lam - 1); both minimised over the same grid of orders.
    improved = min(T * a / (2 * z * z) + LOG(1 - 1 / a) - LOG(delta * a) / (a - 1) for a in orders if a > 1.01)
    classical = min(T * a / (2 * z * z) + LOG(1 / delta) / (a - 1) for a in orders)
    got = acc.epsilon_for(noise_multiplier=z, delta=delta, steps=T)
    assert got == pytest.approx(improved, rel=1e-9)
    assert got <= classical + 1e-12
    assert classical == pytest.approx(acc.rdp_epsilon_gaussian(noise_multiplier=z, delta=delta, steps=T,
                                                               orders=orders))


def test_pld_single_gaussian_matches_the_exact_curve():
    # exact delta(eps) of one Gaussian mechanism (Balle & Wang 2018): Phi(1/(2z) - eps z) - e^eps Phi(-1/(2z) - eps z)
    z, delta = 1.0, 1e-5
    eps = acc.epsilon_for(noise_multiplier=z, delta=delta, steps=1, accountant="pld")
    exact_delta = _phi(1 / (2 * z) - eps * z) - math.exp(eps) * _phi(-1 / (2 * z) - eps * z)
    assert exact_delta <= delta * 1.01  # PLD is pessimistic: its eps is enough
    # and not by much: the exact eps solves delta(eps) = 1e-5 and is ~4.21; PLD within 0.02 of it
    lo, hi = 0.0, 20.0
    for _ in range(100):
        mid = (lo + hi) / 2
        d = _phi(1 / (2 * z) - mid * z) - math.exp(mid) * _phi(-1 / (2 * z) - mid * z)
        lo, hi = (mid, hi) if d > delta else (lo, mid)
    assert eps == pytest.approx(hi, abs=0.02)
    # the RDP accountant is looser than PLD
    assert acc.epsilon_for(noise_multiplier=z, delta=delta, steps=1) >= eps - 1e-3


def test_monotonicity():
    base = dict(delta=1e-6, steps=1000, sampling_prob=0.01)
    e = [acc.epsilon_for(noise_multiplier=z, **base) for z in (0.8, 1.0, 2.0, 4.0)]
    assert all(a > b for a, b in zip(e, e[1:]))
    e = [acc.epsilon_for(noise_multiplier=1.0, delta=1e-6, steps=T, sampling_prob=0.01) for T in (10, 100, 1000)]
    assert all(a < b for a, b in zip(e, e[1:]))
    e = [acc.epsilon_for(noise_multiplier=1.0, delta=1e-6, steps=100, sampling_prob=q) for q in (0.001, 0.01, 0.1, 1)]
    assert all(a < b for a, b in zip(e, e[1:]))
    z = [acc.noise_multiplier_for(eps=eps, delta=1e-6, steps=1000, sampling_prob=1e-3) for eps in (0.5, 1.0, 2.0)]
    assert z[0] > z[1] > z[2]


@pytest.mark.parametrize("eps, delta, steps, q", [(1.0, 1e-6, 1000, 1e-3), (0.1, 1e-6, 100_000, 1e-5),
                                                  (5.0, 1e-5, 100, 1.0), (2.0, 1e-8, 20_000, 5e-5)])
def test_round_trip(eps, delta, steps, q):
    z = acc.noise_multiplier_for(eps=eps, delta=delta, steps=steps, sampling_prob=q)
    assert acc.epsilon_for(noise_multiplier=z, delta=delta, steps=steps, sampling_prob=q) <= eps
    # the smallest such z: 0.1 % less noise already exceeds the budget
    assert acc.epsilon_for(noise_multiplier=z * 0.999, delta=delta, steps=steps, sampling_prob=q) > eps


def test_unsampled_noise_multiplier_against_closed_form():
    # q = 1: eps(z) <= T/(2z^2) + sqrt(2T log(1/delta))/z (classical bound, all orders) -> the classical z is an upper
    # bound; for T = 100, delta = 1e-5, eps = 5: solve 50/z^2 + sqrt(2302.585)/z = 5 -> 1/z = (-47.98526 +
    # sqrt(47.98526^2 + 4*50*5))/(2*50) = (-47.98526 + 57.46812)/100 = 0.0948286 -> z = 10.5453
    z_classical = 1 / ((-math.sqrt(200 * LOG(1e5)) + math.sqrt(200 * LOG(1e5) + 1000)) / 100)
    assert z_classical == pytest.approx(10.5453, rel=1e-4)
    z = acc.noise_multiplier_for(eps=5, delta=1e-5, steps=100)
    assert 0.8 * z_classical < z <= z_classical


def test_pld_noise_multiplier_is_smaller_than_rdp():
    z_rdp = acc.noise_multiplier_for(eps=1.0, delta=1e-6, steps=100, sampling_prob=0.01)
    z_pld = acc.noise_multiplier_for(eps=1.0, delta=1e-6, steps=100, sampling_prob=0.01, accountant="pld")
    assert 0.6 * z_rdp < z_pld < z_rdp


def test_cold_solve_gives_a_finite_noise_multiplier():
    # speed is measured in benchmarks/bench_accounting.py; here only that a cold solve answers
    acc._solve.cache_clear()
    acc._eps.cache_clear()
    acc._rdp_eps_idx.cache_clear()
    z = acc.noise_multiplier_for(eps=0.7, delta=1e-6, steps=100_000, sampling_prob=1e-5)
    assert 0 < z < float("inf")


@pytest.mark.parametrize("bad", [dict(eps=0.0), dict(eps=-1.0), dict(delta=0.0), dict(delta=1.0), dict(steps=0),
                                 dict(steps=2.5), dict(sampling_prob=0.0), dict(sampling_prob=1.5),
                                 dict(accountant="moments"), dict(eps=float("nan")), dict(rtol=0.5)])
def test_invalid_inputs(bad):
    params = dict(eps=1.0, delta=1e-5, steps=10, sampling_prob=0.1)
    params.update(bad)
    with pytest.raises(ValueError):
        acc.noise_multiplier_for(**params)


@pytest.mark.parametrize("bad", [dict(noise_multiplier=0.0), dict(noise_multiplier=-1.0), dict(delta=0.0),
                                 dict(steps=0), dict(sampling_prob=2.0), dict(accountant="x")])
def test_invalid_inputs_epsilon(bad):
    params = dict(noise_multiplier=1.0, delta=1e-5, steps=10, sampling_prob=0.1)
    params.update(bad)
    with pytest.raises(ValueError):
        acc.epsilon_for(**params)


def test_small_eps_uses_the_large_renyi_orders():
    # T = 1000 steps at q = 1/1000, delta = 1e-6, eps = 0.0178: the optimal Rényi order is near the top of the grid
    # (~ 2 log(1/delta)/eps); a solver that only looks at orders <= 256 cannot get below log(1e6)/255 = 0.054 and
    # returned an absurd z ~ 3e4.  The answer must be the threshold: feasible at z, infeasible 1 % below.
    z = acc.noise_multiplier_for(eps=0.0178, delta=1e-6, steps=1000, sampling_prob=1e-3, rtol=1e-6)
    assert 1.0 < z < 50.0
    assert acc.epsilon_for(noise_multiplier=z, delta=1e-6, steps=1000, sampling_prob=1e-3) <= 0.0178
    assert acc.epsilon_for(noise_multiplier=0.99 * z, delta=1e-6, steps=1000, sampling_prob=1e-3) > 0.0178
    # below the floor of the order grid (about log(1/delta)/(1024 - 1) = 0.0135 minus the conversion's gain): no z
    with pytest.raises(ValueError, match="cannot certify"):
        acc.noise_multiplier_for(eps=0.005, delta=1e-6, steps=1000, sampling_prob=1e-3)


def test_vectorised_rdp_equals_dp_accounting():
    # the integer-order RDP of the Poisson-subsampled Gaussian is summed with one logsumexp instead of dp_accounting's
    # loop; the values must agree (up to rounding where log A_alpha is ~1e-16, i.e. absolute 1e-14)
    import numpy as np
    from dp_accounting.rdp import rdp_privacy_accountant as rdp

    orders = np.asarray(acc.RDP_ORDERS, dtype=float)  # a superset of dp_accounting's DEFAULT_RDP_ORDERS
    for q in (1e-5, 1e-3, 0.01, 0.2, 0.9, 1.0):
        for z in (0.3, 0.7, 1.0, 3.0, 30.0, 1e3):
            ref = np.asarray(rdp._compute_rdp_poisson_subsampled_gaussian(q=q, noise_multiplier=z, orders=orders),
                             dtype=float)
            mine = acc._rdp_poisson_gaussian(q, z, orders)
            finite = np.isfinite(ref)
            assert np.array_equal(finite, np.isfinite(mine))
            np.testing.assert_allclose(mine[finite], ref[finite], rtol=1e-9, atol=1e-14)
