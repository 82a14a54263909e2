"""The forward differences of Wang, Balle & Kasiviswanathan (2019), Theorem 27 (the RDP of the Gaussian mechanism on
a batch sampled without replacement) against 1 500-digit values, and what dp_accounting's own recursion gets wrong.

Reference: Δ^k F(0) = Σ_j (−1)^{k−j} C(k, j) F(j), F(i) = exp(i(i − 1)/(2z²)), summed exactly with mpmath (the
differences are what dp_accounting's ``_get_forward_diffs`` computes in floating point)."""

import math

import mpmath
import numpy as np
import pytest

from dpviz.theory.accounting import rdp_wor as W

N = 64  # orders of difference 1 … 66: enough to show the recursion's failure (from k ≈ 20 at z = 10.3)


def _exact_log_diffs(z: float, n: int) -> list:
    with mpmath.workdps(1500):
        zz = mpmath.mpf(z)
        cur = [mpmath.e ** (mpmath.mpf(i) * (i - 1) / (2 * zz * zz)) for i in range(n + 3)]
        out = []
        for _ in range(n + 2):
            cur = [cur[j + 1] - cur[j] for j in range(len(cur) - 1)]
            out.append(float(mpmath.log(abs(cur[0]))) if cur[0] != 0 else -math.inf)
        return out


@pytest.mark.parametrize("z", [0.3, 0.9, 1.0, 3.0, 7.0, 10.3, 30.0, 1000.0])
def test_even_differences_are_tight_upper_bounds(z):
    exact = _exact_log_diffs(z, N)
    got = W._forward_diffs(z, N)
    for idx in range(1, N + 2, 2):  # the even orders 2, 4, …: the only ones Theorem 27's formula uses
        assert got[idx] >= exact[idx], (z, idx + 1)
        assert got[idx] - exact[idx] <= 1e-9 * max(1.0, abs(exact[idx])), (z, idx + 1, got[idx], exact[idx])


def test_dp_accountings_recursion_loses_the_differences_from_z_about_one():
    # the reason for the quadrature: at z = 10.3 the recursion is off by far more than rounding, both ways
    exact = _exact_log_diffs(10.3, N)
    rec = W._forward_diffs_recursive(10.3, N)
    errs = [rec[i] - exact[i] for i in range(1, N + 2, 2)]
    assert max(abs(e) for e in errs) > 10.0
    exact7 = _exact_log_diffs(7.0, N)
    rec7 = W._forward_diffs_recursive(7.0, N)
    assert min(rec7[i] - exact7[i] for i in range(1, N + 2, 2)) < -0.5  # too small: an RDP that is not a bound
    # below z = 1 the recursion is exact to rounding (it is what dpviz uses there)
    exact_small = _exact_log_diffs(0.5, N)
    rec_small = W._forward_diffs_recursive(0.5, N)
    assert max(abs(rec_small[i] - exact_small[i]) for i in range(1, N + 2, 2)) < 1e-9


def test_epsilon_where_dp_accountings_is_below_the_formula():
    # z = 7, q = 0.1, one step, delta = 2.5e-9: dp_accounting's recursion gives eps = 0.112930, the formula with exact
    # differences 0.113037 (orders as dpviz's); dpviz reports the latter (an upper bound)
    from dp_accounting.rdp import rdp_privacy_accountant as rdp

    orders = list(W.WOR_ORDERS)
    ours = W._wor_eps(7.0, 2.5e-9, 1, 0.1)
    ref = rdp.compute_epsilon(orders, rdp._compute_rdp_sample_wor_gaussian(0.1, 7.0, orders), 2.5e-9)[0]
    assert ref == pytest.approx(0.112930, abs=2e-6)
    assert ours == pytest.approx(0.113037, abs=2e-6)
    assert ours > ref


def test_epsilon_is_monotone_in_the_noise_where_the_recursion_jittered():
    # z near 10.3, q = 0.5, 7 steps, delta = 2.5e-9: the recursion's ε jumped by 1e-3 between neighbouring z
    eps = [W._wor_eps(float(z), 2.5e-9, 7, 0.5) for z in np.linspace(10.30536, 10.30549, 14)]
    assert all(b <= a for a, b in zip(eps, eps[1:]))
    assert all(a - b < 3e-6 for a, b in zip(eps, eps[1:]))  # the smooth slope: about 1e-6 a step of 1e-5


def test_noise_search_lands_on_the_smooth_crossing():
    from dpviz.theory.accounting import api

    z = api.noise_multiplier_general(eps=1.0, delta=2.5e-9, steps=7, sampling_prob=0.5,
                                     sampling="without-replacement", neighbouring="replace-one")
    assert W._wor_eps(z, 2.5e-9, 7, 0.5) <= 1.0 < W._wor_eps(z / (1 + 2e-6), 2.5e-9, 7, 0.5)
    assert z == pytest.approx(10.30131, rel=2e-6)


def test_orders_at_or_below_one_are_refused_and_fractional_orders_interpolate():
    with pytest.raises(ValueError, match="Rényi orders must be above 1"):
        W._rdp_wor_gaussian(0.1, 2.0, [1.0, 2.0])
    # Corollary 10 (as dp_accounting): between two integers, log A is interpolated linearly, then divided by α − 1
    whole = W._rdp_wor_gaussian(0.1, 2.0, [2.0, 3.0])
    log_a2, log_a3 = whole[0] * 1.0, whole[1] * 2.0
    half = W._rdp_wor_gaussian(0.1, 2.0, [2.5])[0]
    assert half == pytest.approx((0.5 * log_a2 + 0.5 * log_a3) / 1.5, rel=1e-14)
