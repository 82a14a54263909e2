"""Rényi DP of the Poisson-subsampled Gaussian mechanism under add/remove neighbours (Mironov, Talwar & Zhang 2019),
vectorised from ``dp_accounting``'s formulas, with rounding-safe per-step divergences and the RDP → (ε, δ) conversion
of ``dp_accounting`` (Canonne, Kamath & Steinke 2020)."""

from __future__ import annotations

import functools
import math

from dpviz.foundation import validate as v
from dpviz.theory.accounting import hockey


#: Rényi orders of both RDP accountants, the Poisson (add/remove) one of :func:`epsilon_for` and the
#: without-replacement (replace-one) one of :func:`epsilon_general` (Wang, Balle & Kasiviswanathan 2019, Theorem 27):
#: ``dp_accounting``'s ``DEFAULT_RDP_ORDERS`` (1.1 … 10.9 by 0.1, 11 … 63, 128, 256, 512, 1024) plus every 8th order
#: from 64 to 256 and every 16th from 272 to 1024.  Above 63 the default orders are too sparse: at small ε the best
#: order lies between them and the noise found is far larger than the same RDP analysis certifies.
#:
#: Poisson sampling, add/remove (n = 20 000, q = 1/n, T = 1 000, δ = 1/n²): the noise multiplier for ε = 0.05 and
#: 0.2 is 5.08 and 2.54 with the default orders (a plateau from ε = 0.03 to 0.05, and a step near ε = 0.25 on the
#: Accounting page's σ-vs-ε chart), 3.70 and 2.01 with these; the same values as ``dp_accounting``'s
#: ``RdpAccountant`` called with these orders (tests/test_accounting_small_eps.py).
#:
#: Without replacement, replace-one, same setting: the noise multiplier for ε = 0.02, 0.03, 0.05, 0.07, 0.1 is 7.19,
#: 5.08, 5.08, 3.59, 3.59 with the default orders (plateaus: σ(ε) is the same at ε = 0.03 and 0.05) and 5.61, 4.67,
#: 3.71, 3.18, 2.70 with these, within 1.3 % of the minimum over every integer order up to 1024 (5.61, 4.65, 3.67,
#: 3.14, 2.66); every 16th order up to 256 and every 64th above gives 4.02 at ε = 0.05.  Any set
#: of orders gives a valid upper bound on ε (more orders: a tighter one) and the per-order RDP values are unchanged;
#: the cost is about 1.7x per evaluation (225 orders instead of 156; the forward differences of Theorem 27's exact sum
#: up to order 256 are computed once whatever the number of orders; above 256 the bound is a cheap closed form).
RDP_ORDERS = tuple(sorted({k / 10.0 for k in range(11, 110)} | set(map(float, range(11, 64)))
                          | {128.0, 256.0, 512.0, 1024.0}
                          | set(map(float, range(64, 257, 8))) | set(map(float, range(272, 1025, 16)))))


#: The orders of the without-replacement accountant (the name under which they were introduced): :data:`RDP_ORDERS`.
WOR_ORDERS = RDP_ORDERS


def _orders():
    """The Rényi orders of the Poisson RDP accountant: :data:`RDP_ORDERS`."""
    return RDP_ORDERS


def _rdp_poisson_gaussian(q: float, z: float, orders):
    r"""Per-step RDP of the Poisson-subsampled Gaussian mechanism at each order: the values of
    ``dp_accounting.rdp.rdp_privacy_accountant._compute_rdp_poisson_subsampled_gaussian``, with the integer orders
    vectorised.

    For an integer order α (Mironov, Talwar & Zhang 2019, Sec. 3.3; the formula of ``_compute_log_a_int``):

    .. math:: \log A_\alpha = \log\sum_{i=0}^{\alpha}\binom{\alpha}{i} q^i (1-q)^{\alpha-i}
              e^{(i^2-i)/(2z^2)},\qquad \mathrm{RDP}(\alpha) = \frac{\log A_\alpha}{\alpha-1},

    summed here with one ``logsumexp`` over a padded (orders × terms) array instead of a Python loop over the up to
    1025 terms of each order (the loop was 90 % of a noise calibration's time).  Fractional orders, and the edge
    cases q ∈ {0, 1} and z = 0, go through ``dp_accounting`` unchanged.  A test checks equality with it.
    """
    import numpy as np
    from dp_accounting.rdp import rdp_privacy_accountant as rdp
    from scipy.special import gammaln

    from dpviz.theory.lse import logsumexp_rows

    orders = np.asarray(orders, dtype=float)
    if q <= 0.0 or q >= 1.0 or z <= 0.0:
        return np.asarray(rdp._compute_rdp_poisson_subsampled_gaussian(q=q, noise_multiplier=z, orders=orders),
                          dtype=float)
    out = np.empty(orders.shape)
    is_int = (orders == np.floor(orders)) & (orders >= 2) & np.isfinite(orders)
    if is_int.any():
        a = orders[is_int].astype(np.int64)[:, None]
        i = np.arange(int(a.max()) + 1, dtype=np.int64)[None, :]
        valid = i <= a
        k = np.where(valid, a - i, 0)
        terms = (gammaln(a + 1.0) - gammaln(i + 1.0) - gammaln(k + 1.0)
                 + i * math.log(q) + k * math.log1p(-q) + (i * i - i) / (2.0 * z * z))
        terms = np.where(valid, terms, -np.inf)
        out[is_int] = logsumexp_rows(terms) / (a[:, 0] - 1.0)
    rest = np.flatnonzero(~is_int)
    for k in rest:
        a = float(orders[k])
        log_a = _log_a_frac(q, z, a) if a > 1.0 and math.isfinite(a) else None
        if log_a is None:  # order 1, infinite order, or no convergence: dp_accounting's own value
            out[k] = rdp._compute_rdp_poisson_subsampled_gaussian(q=q, noise_multiplier=z, orders=[a])[0]
        else:
            out[k] = log_a / (a - 1.0)
    return out


def _log_a_frac(q: float, z: float, alpha: float):
    """log A_α for a fractional order α (Mironov, Talwar & Zhang 2019, Sec. 3.3): the series of
    ``dp_accounting``'s ``_compute_log_a_frac`` with its stopping rule, its terms computed as numpy arrays (blocks of
    256) instead of one Python iteration each.  None when the series has not stopped after 1000 terms (dp_accounting
    then drops the order; the caller defers to it)."""
    import numpy as np
    from scipy.special import gammaln, log_ndtr

    z0 = z * z * math.log(1.0 / q - 1.0) + 0.5
    lq, l1mq = math.log(q), math.log1p(-q)
    log_half, log2 = math.log(0.5), math.log(2.0)
    a0_prev = a1_prev = -np.inf
    last0 = last1 = -np.inf
    for start in range(0, 1000, 256):
        i = np.arange(start, min(start + 256, 1000), dtype=float)
        j = alpha - i
        coef = gammaln(alpha + 1.0) - gammaln(i + 1.0) - gammaln(alpha - i + 1.0)
        t0 = coef + i * lq + j * l1mq
        t1 = coef + j * lq + i * l1mq
        e0 = log_half + log2 + log_ndtr(-(i - z0) / (math.sqrt(2.0) * z) * 2**0.5)
        e1 = log_half + log2 + log_ndtr(-(z0 - j) / (math.sqrt(2.0) * z) * 2**0.5)
        s0 = t0 + (i * i - i) / (2.0 * z * z) + e0
        s1 = t1 + (j * j - j) / (2.0 * z * z) + e1
        a0 = np.logaddexp.accumulate(np.concatenate(([a0_prev], s0)))[1:]
        a1 = np.logaddexp.accumulate(np.concatenate(([a1_prev], s1)))[1:]
        total = np.logaddexp(a0, a1)
        p0 = np.concatenate(([last0], s0[:-1]))
        p1 = np.concatenate(([last1], s1[:-1]))
        stop = (s0 < p0) & (s1 < p1) & (np.maximum(s0, s1) < total - 30.0)
        hit = np.flatnonzero(stop)
        if hit.size:
            return float(total[hit[0]])
        a0_prev, a1_prev, last0, last1 = a0[-1], a1[-1], s0[-1], s1[-1]
    return None


#: Below this a computed per-step Rényi divergence is rounding noise, not a value: log A_α = log(1 + tiny) is summed
#: from terms of size about 1, so its absolute error is a few hundred ulps (:func:`_sound_rdp`).
_RDP_TINY = 1e-10


#: Margin added to a per-step divergence below :data:`_RDP_TINY` (more than the rounding error of its sum).
_RDP_MARGIN = 2e-13


def _sound_rdp(per_step, orders, z: float):
    """Per-step RDP values made upper bounds where rounding dominates: a value below :data:`_RDP_TINY` (at z = 10⁸,
    q = 256/60 000 dp_accounting's formula gives −1.8·10⁻¹⁷, and dp_accounting then returns ε = 0) is replaced by
    min(α/(2z²), max(value, 0) + :data:`_RDP_MARGIN`) — α/(2z²), the RDP of the un-sampled Gaussian, bounds the
    sub-sampled one (joint quasi-convexity of Rényi divergences).  Larger values are unchanged (so the results equal
    dp_accounting's wherever it is not rounding), negative ones never reach the conversion."""
    import numpy as np

    r = np.asarray(per_step, dtype=float)
    a = np.asarray(orders, dtype=float)
    tiny = ~(r >= _RDP_TINY)  # NaN counts as tiny
    if tiny.any():
        cap = a / (2.0 * z * z)
        r = np.where(tiny, np.minimum(cap, np.maximum(np.nan_to_num(r, nan=0.0), 0.0) + _RDP_MARGIN), r)
    return r


def _exact_zero(z: float, delta: float, steps: int, q: float) -> bool:
    """Whether ε = 0 is certified exactly: the total variation bound of
    :func:`dpviz.theory.gaussian.total_variation` is at most δ."""
    from dpviz.theory import gaussian

    return gaussian.total_variation(noise_multiplier=z, sampling_prob=q, steps=steps) <= delta


@functools.lru_cache(maxsize=8192)
def _rdp_eps_idx(z: float, delta: float, steps: int, q: float, idx: tuple[int, ...]) -> tuple[float, int]:
    """(ε, index of the optimal order) over the RDP orders (:data:`RDP_ORDERS`) with indices ``idx``."""
    import logging

    from dp_accounting.rdp import rdp_privacy_accountant as rdp

    all_orders = _orders()
    orders = [all_orders[i] for i in idx]
    absl_logger = logging.getLogger("absl")
    level = absl_logger.level
    absl_logger.setLevel(logging.ERROR)  # silence "failed to converge ... excluding this order" (order is dropped)
    try:
        per_step = _sound_rdp(_rdp_poisson_gaussian(q, z, orders), orders, z)
        eps, opt = rdp.compute_epsilon(orders, steps * per_step, delta)
    finally:
        absl_logger.setLevel(level)
    eps = float(eps)
    if eps <= 0.0 and not _exact_zero(z, delta, steps, q):
        # dp_accounting's conversion (its KL shortcut, on divergences at the size of their rounding error) says
        # eps <= 0, but dpviz prints eps = 0 only where the total variation bound shows it exactly (issue 31, item
        # 2): the eps certified instead by one exact step, amplification by sub-sampling and composition, or by
        # an order's own conversion where that is smaller (hockey.positive_conversion)
        eps = min(hockey.composed_eps(z, delta, steps, q),
                  hockey.positive_conversion(orders, steps * per_step, delta))
    return (eps if math.isfinite(eps) else math.inf), idx[orders.index(float(opt))] if math.isfinite(eps) else -1


def _all_idx() -> tuple[int, ...]:
    return tuple(range(len(_orders())))


def _rdp_eps(z: float, delta: float, steps: int, q: float) -> float:
    return _rdp_eps_idx(z, delta, steps, q, _all_idx())[0]


def _eps_rdp(z: float, delta: float, steps: int, q: float) -> float:
    """ε of the Poisson RDP accountant: 0 where the total variation shows (0, δ)-DP exactly (:func:`_exact_zero`),
    else the RDP bound over all the orders (``inf`` when there is no finite one)."""
    if _exact_zero(z, delta, steps, q):
        return 0.0  # total variation <= delta: (0, delta)-DP exactly
    eps = _rdp_eps(z, delta, steps, q)
    return eps if math.isfinite(eps) else math.inf


def rdp_epsilon_gaussian(*, noise_multiplier, delta, steps, orders=None) -> float:
    r"""Closed-form RDP bound for ``steps`` un-sampled Gaussian mechanisms (for checks and teaching).

    .. math:: \epsilon = \min_{\lambda\in\text{orders}}\Big(\frac{T\lambda}{2z^2} + \frac{\log(1/\delta)}{\lambda-1}\Big),

    the classical RDP → DP conversion (Mironov 2017, Proposition 3); over all λ > 1 the minimum is
    :math:`T/(2z^2) + \sqrt{2T\log(1/\delta)}/z` (at λ = 1 + z sqrt(2 log(1/δ)/T)), used when ``orders`` is None.
    This is the bound that underlies eq. (2) of Kang, Li, Liu & Wang (kang-pidp) with sampling rate 1.
    """
    z = v.check_positive("noise_multiplier (sigma / sensitivity)", noise_multiplier)
    delta = v.check_delta(delta)
    steps = v.check_int("steps (number of compositions)", steps)
    L = math.log(1.0 / delta)
    if orders is None:
        return steps / (2.0 * z * z) + math.sqrt(2.0 * steps * L) / z
    vals = [steps * lam / (2.0 * z * z) + L / (lam - 1.0) for lam in orders if lam > 1.0]
    if not vals:
        raise ValueError("orders must contain at least one Rényi order > 1.")
    return min(vals)
