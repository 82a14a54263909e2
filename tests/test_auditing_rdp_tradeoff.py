"""The RDP → f-DP trade-off curve (dpviz.labs.tradeoff.tradeoff_rdp) for the mechanisms dp_accounting has no PLD for
(sampling without replacement, replace-one): a valid lower bound on the true curve, checked against curves known
exactly or computed independently:

* the plain Gaussian mechanism (T = 1, no subsampling): exact curve G_μ(α) = Φ(Φ⁻¹(1 − α) − μ), μ = Δ/σ
  (Dong, Roth & Su 2022, Theorem 2.7), written out with statistics.NormalDist;
* one Poisson-subsampled Gaussian step: the exact curve by Neyman–Pearson (the likelihood ratio of
  (1 − q)N(0, 1) + qN(μ, 1) to N(0, 1) increases in x, so threshold tests are optimal), both directions, in closed
  form here;
* T Poisson-subsampled steps: the privacy profile of dp_accounting's PLD (optimistic rounding, a lower bound on
  δ(ε), so its envelope lies above the true curve), called directly;
* the (ε(δ), δ) family of the same RDP curve (Dong, Roth & Su 2022, Proposition 2.12) with δ(ε) from
  dp_accounting's ``compute_delta``: the direct conversion is at least as tight.
"""

from statistics import NormalDist

import numpy as np
import pytest
from scipy import stats

from dpviz.theory import accounting
from dpviz.labs import tradeoff as trade
from dpviz.labs import privacy_lab as pl

N = NormalDist()
ORDERS = np.array([o for o in accounting._orders() if o > 1])
# the without-replacement (matched) accountant's orders: the defaults plus more between 64 and 1024
WOR_ORDERS = np.array([o for o in accounting.WOR_ORDERS if o > 1])


def _poisson_rdp(q, z, T):
    from dp_accounting.rdp import rdp_privacy_accountant as rdp

    return T * np.asarray(rdp._compute_rdp_poisson_subsampled_gaussian(q=q, noise_multiplier=z, orders=ORDERS))


@pytest.mark.parametrize("z", [0.5, 1.0, 2.0, 5.0])
def test_plain_gaussian_curve_is_below_the_exact_one_and_close(z):
    a = np.linspace(0, 1, 1001)
    mu = 1.0 / z
    exact = np.array([N.cdf(N.inv_cdf(1 - x) - mu) if 0 < x < 1 else (1.0 if x == 0 else 0.0) for x in a])
    # the plain Gaussian mechanism: RDP λ/(2z²) (Mironov 2017, Proposition 7), T = 1, q = 1
    curve = trade.tradeoff_rdp(a, WOR_ORDERS, WOR_ORDERS / (2 * z * z))
    assert np.all(curve <= exact + 1e-12)
    # the same through the without-replacement entry point at q = 1 (dp_accounting: plain Gaussian)
    assert np.allclose(trade.tradeoff_rdp_gaussian_wor(a, noise_multiplier=z, sampling_prob=1.0, steps=1), curve)
    # not vacuous: the conversion from RDP loses something (orders > 1 only), but the largest attack advantage
    # max(1 − α − β) it allows is within 30 % of the exact one (measured: 24–26 % for μ from 0.2 to 2)
    assert np.max(1 - a - curve) <= 1.3 * np.max(1 - a - exact)


def _subsampled_exact(alpha, q, mu):
    """min(T(P, Q), T(Q, P)) for P = N(0, 1), Q = (1 − q)N(0, 1) + qN(μ, 1): threshold tests (Neyman–Pearson)."""
    t = np.linspace(-40, 40, 400001)
    a_pq = stats.norm.sf(t)  # reject P when X > t: type I under P, type II under Q
    b_pq = (1 - q) * stats.norm.cdf(t) + q * stats.norm.cdf(t - mu)
    a_qp = (1 - q) * stats.norm.cdf(t) + q * stats.norm.cdf(t - mu)  # reject Q when X <= t
    b_qp = stats.norm.sf(t)
    f1 = np.interp(alpha, a_pq[::-1], b_pq[::-1])
    f2 = np.interp(alpha, a_qp, b_qp)
    return np.minimum(f1, f2)


@pytest.mark.parametrize("q,z", [(0.1, 1.0), (0.01, 0.8), (0.5, 2.0)])
def test_poisson_one_step_curve_is_below_the_exact_curve(q, z):
    a = np.linspace(0, 1, 401)
    curve = trade.tradeoff_rdp(a, ORDERS, _poisson_rdp(q, z, 1))
    exact = _subsampled_exact(a, q, 1.0 / z)
    assert np.all(curve <= exact + 1e-6)  # interpolation of the exact curve: 1e-6
    assert np.max(exact - curve) < 0.1


def test_poisson_composition_curve_is_below_the_pld_curve():
    from dp_accounting.pld import privacy_loss_distribution as pld

    q, z, T = 0.05, 1.0, 50
    p = pld.from_gaussian_mechanism(z, sampling_prob=q, value_discretization_interval=1e-4,
                                    pessimistic_estimate=False).self_compose(T)
    a = np.linspace(0, 1, 201)
    grid = np.linspace(0, 8, 4001)
    deltas = np.clip(np.asarray(p.get_delta_for_epsilon(grid), float), 0, 1)
    ref = trade.tradeoff_from_profile(a, grid, deltas)  # optimistic δ(ε) <= true δ(ε): this envelope lies above
    curve = trade.tradeoff_rdp(a, ORDERS, _poisson_rdp(q, z, T))
    assert np.all(curve <= ref + 2e-3)  # 2e-3: the ε grid of the reference envelope
    assert np.max(ref - curve) < 0.15  # RDP conversion loses, but the curve says something


@pytest.mark.parametrize("n,T,z", [(1000, 1000, 1.0), (100, 50, 0.7), (20000, 5000, 2.0)])
def test_without_replacement_curve_dominates_the_eps_delta_family_of_the_same_rdp(n, T, z):
    from dp_accounting.rdp import rdp_privacy_accountant as rdp

    q = 1 / n
    rho = T * np.asarray(rdp._compute_rdp_sample_wor_gaussian(q, z, WOR_ORDERS))  # dp_accounting, called directly
    a = np.linspace(0, 1, 301)
    curve = trade.tradeoff_rdp(a, WOR_ORDERS, rho)
    assert np.allclose(trade.tradeoff_rdp_gaussian_wor(a, noise_multiplier=z, sampling_prob=q, steps=T), curve,
                       atol=1e-9)
    eps_grid = np.linspace(0, 10, 400)
    d = np.array([rdp.compute_delta(WOR_ORDERS, rho, e)[0] for e in eps_grid])
    family = trade.tradeoff_from_profile(a, eps_grid, np.clip(d, 0, 1))
    assert np.all(curve >= family - 1e-9)


def test_curve_shape_monotone_convex_symmetric():
    q, z, T = 1 / 1000, 0.8, 1000
    a = np.linspace(0, 1, 2001)
    f = trade.tradeoff_rdp_gaussian_wor(a, noise_multiplier=z, sampling_prob=q, steps=T)
    assert f[0] == pytest.approx(1.0) and f[-1] == 0.0
    assert np.all(np.diff(f) <= 1e-12)  # non-increasing
    assert np.all(np.diff(f, 2) >= -1e-9)  # convex
    assert np.all(f <= 1 - a + 1e-12)  # below the random guess
    # symmetric: f(f(α)) = α where f is strictly decreasing (the reflection of the graph is the graph)
    inner = (f > 1e-3) & (f < 1 - 1e-3)
    back = np.interp(f[inner], a, f)
    assert np.max(np.abs(back - a[inner])) < 2e-3


def test_more_noise_gives_a_higher_curve_and_invalid_inputs():
    a = np.linspace(0, 1, 101)
    lo = trade.tradeoff_rdp_gaussian_wor(a, noise_multiplier=0.5, sampling_prob=0.01, steps=100)
    hi = trade.tradeoff_rdp_gaussian_wor(a, noise_multiplier=2.0, sampling_prob=0.01, steps=100)
    assert np.all(hi >= lo - 1e-12) and np.max(hi - lo) > 0.05
    assert trade.tradeoff_rdp(0.3, [2.0], [np.inf]) == 0.0  # no constraint at any order: nothing certified
    for bad in (dict(orders=[1.0], rdp=[1.0]), dict(orders=[2.0, 3.0], rdp=[1.0]), dict(orders=[2.0], rdp=[-1.0])):
        with pytest.raises(ValueError):
            trade.tradeoff_rdp(a, **bad)
    with pytest.raises(ValueError):
        trade.tradeoff_rdp([1.5], [2.0], [1.0])
    with pytest.raises(ValueError):
        trade.tradeoff_rdp_gaussian_wor(a, noise_multiplier=1.0, sampling_prob=0.0, steps=1)


def test_lab_tradeoff_curve_per_mechanism():
    a = np.linspace(0, 1, 51)
    # DP-SGD of Wang, Lei, Ying & Zhou: one example per step without replacement, z = σ/(2G)
    mech = pl.mechanism("dpsgd-rdp", n=1000, eps=1.0, delta=1e-6, T=1000, G=1.0)
    out = pl.tradeoff_curve(mech, 2.0, a)
    assert not out["exact"] and "valid lower bound" in out["how"]
    assert np.allclose(out["beta"], trade.tradeoff_rdp_gaussian_wor(a, noise_multiplier=1.0, sampling_prob=1e-3,
                                                                 steps=1000))
    # full-batch DPGDC2 of Xue, Yang, Huai & Wang: T Gaussian releases of sensitivity 4G/n, μ = √T·(4G/n)/σ
    mech = pl.mechanism("dpgd-c", n=1000, eps=1.0, delta=1e-6, T=100, G=1.0)
    out = pl.tradeoff_curve(mech, 0.05, a)
    mu = 10 * 0.004 / 0.05
    assert out["exact"] and out["mu"] == pytest.approx(mu)
    hand = [N.cdf(N.inv_cdf(1 - x) - mu) if 0 < x < 1 else float(x == 0) for x in a]
    assert np.allclose(out["beta"], hand, atol=1e-12)
