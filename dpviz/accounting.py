"""Numerical privacy accounting for the (Poisson-)subsampled Gaussian mechanism, via Google's ``dp_accounting``.

Several papers state their noise level only up to an unspecified constant, e.g. eq. (2) of Kang, Li, Liu & Wang
(Kang, Li, Liu & Wang (kang-pidp), §4): ``σ >= c G sqrt(T log(1/δ)) / (n ε)`` "for some constant c", quoted from the moments
accountant of Abadi et al.  dpviz calibrates such noise numerically with this module:

:func:`epsilon_for`
    the ε at which ``steps`` compositions of the Poisson-subsampled Gaussian mechanism (sampling probability
    ``sampling_prob``, noise multiplier z = σ / sensitivity) are (ε, δ)-DP;
:func:`noise_multiplier_for`
    the smallest noise multiplier z that makes them (ε, δ)-DP, found by bracketing + Brent/bisection on log z.

Two accountants are available:

``"rdp"`` (default)
    Rényi DP (Mironov, Talwar & Zhang 2019), :class:`dp_accounting.rdp.RdpAccountant` with its default grid of
    orders; ``steps`` compositions are added analytically (RDP is additive), so a call costs a few tens of
    milliseconds whatever ``steps`` is.  The conversion RDP → (ε, δ) is the one of ``dp_accounting``
    (Canonne, Kamath & Steinke 2020), slightly tighter than the classical ε = ρ(λ) + log(1/δ)/(λ − 1).
``"pld"``
    privacy-loss distributions (:class:`dp_accounting.pld.PLDAccountant`), tighter but slower (self-composition
    by FFT: about 0.1–1 s per evaluation for large ``steps``); use it for checks, not in loops.

The neighbouring relation is add/remove-one (the relation of the moments accountant).  For a replace-one analysis
pass the replace-one sensitivity (2G for gradients bounded by G) when converting σ to z = σ / sensitivity; see
:mod:`dpviz.papers.kang_pidp`.
"""

from __future__ import annotations

import functools
import math
from typing import Callable

from dpviz import _validate as v

__all__ = ["ACCOUNTANTS", "epsilon_for", "noise_multiplier_for", "rdp_epsilon_gaussian"]

#: Supported accountants.
ACCOUNTANTS = ("rdp", "pld")

_Z_MIN = 1e-3  # below this the subsampled Gaussian gives essentially no privacy
_Z_MAX = 1e7
_MAX_BRACKET = 64  # cap on the bracket widenings of _root (log_4(_Z_MAX / _Z_MIN) = 17 suffice)
_PLD_DISCRETIZATION = 1e-3


def _check_common(delta, steps, sampling_prob, accountant):
    delta = v.check_delta(delta)
    steps = v.check_int("steps (number of compositions)", steps)
    q = v.check_real("sampling_prob", sampling_prob)
    if not 0.0 < q <= 1.0:
        raise ValueError(
            f"sampling_prob (the probability that an example is used in a step) must lie in (0, 1], got {q:g}; "
            "use 1 for no sub-sampling and e.g. batch_size / n for Poisson sampling."
        )
    if accountant not in ACCOUNTANTS:
        raise ValueError(f"accountant must be one of {', '.join(map(repr, ACCOUNTANTS))}, got {accountant!r}.")
    return delta, steps, q


def _orders():
    from dp_accounting.rdp import rdp_privacy_accountant as rdp

    return tuple(float(o) for o in rdp.DEFAULT_RDP_ORDERS)


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
    from scipy.special import gammaln, logsumexp

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
        out[is_int] = logsumexp(terms, axis=1) / (a[:, 0] - 1.0)
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


@functools.lru_cache(maxsize=8192)
def _rdp_eps_idx(z: float, delta: float, steps: int, q: float, idx: tuple[int, ...]) -> tuple[float, int]:
    """(ε, index of the optimal order) over the default RDP orders with indices ``idx``."""
    import logging

    from dp_accounting.rdp import rdp_privacy_accountant as rdp

    all_orders = _orders()
    orders = [all_orders[i] for i in idx]
    absl_logger = logging.getLogger("absl")
    level = absl_logger.level
    absl_logger.setLevel(logging.ERROR)  # silence "failed to converge ... excluding this order" (order is dropped)
    try:
        per_step = _rdp_poisson_gaussian(q, z, orders)
        eps, opt = rdp.compute_epsilon(orders, steps * per_step, delta)
    finally:
        absl_logger.setLevel(level)
    eps = float(eps)
    return (eps if math.isfinite(eps) else math.inf), idx[orders.index(float(opt))] if math.isfinite(eps) else -1


def _all_idx() -> tuple[int, ...]:
    return tuple(range(len(_orders())))


def _rdp_eps(z: float, delta: float, steps: int, q: float) -> float:
    return _rdp_eps_idx(z, delta, steps, q, _all_idx())[0]


def _pld_eps(z: float, delta: float, steps: int, q: float) -> float:
    import dp_accounting
    from dp_accounting.pld import pld_privacy_accountant

    acc = pld_privacy_accountant.PLDAccountant(value_discretization_interval=_PLD_DISCRETIZATION)
    event = dp_accounting.GaussianDpEvent(z)
    if q < 1.0:
        event = dp_accounting.PoissonSampledDpEvent(q, event)
    acc.compose(dp_accounting.SelfComposedDpEvent(event, steps))
    return float(acc.get_epsilon(delta))


@functools.lru_cache(maxsize=4096)
def _eps(z: float, delta: float, steps: int, q: float, accountant: str) -> float:
    eps = _rdp_eps(z, delta, steps, q) if accountant == "rdp" else _pld_eps(z, delta, steps, q)
    return eps if math.isfinite(eps) else math.inf


def epsilon_for(*, noise_multiplier, delta, steps, sampling_prob=1.0, accountant="rdp") -> float:
    r"""The ε of ``steps`` compositions of the Poisson-subsampled Gaussian mechanism at a given δ.

    Each step releases ``f(S_t) + N(0, σ² I)`` where ``S_t`` contains each example independently with probability
    ``sampling_prob`` and ``f`` has ℓ2-sensitivity Δ (add/remove one example); ``noise_multiplier`` is z = σ/Δ.
    This is the mechanism of DP-SGD whose moments-accountant bound is eq. (2) of Kang, Li, Liu & Wang (kang-pidp) (§4).
    Without sampling, RDP of order λ is λ/(2z²) per step, so

    .. math:: \epsilon \le \min_{\lambda>1}\Big(\frac{T\lambda}{2z^2} + \frac{\log(1/\delta)}{\lambda-1}\Big).

    Parameters
    ----------
    noise_multiplier : float
        z = σ / sensitivity, > 0.
    delta : float
        Target δ in (0, 1).
    steps : int
        Number of compositions (iterations), >= 1.
    sampling_prob : float, default 1
        Poisson sampling probability in (0, 1]; 1 means no sub-sampling.
    accountant : {"rdp", "pld"}
        Rényi-DP accountant (fast) or privacy-loss-distribution accountant (tighter, slower).

    Returns
    -------
    float
        ε (``inf`` when the accountant finds no finite ε, e.g. for a tiny noise multiplier).
    """
    z = v.check_positive("noise_multiplier (sigma / sensitivity)", noise_multiplier)
    delta, steps, q = _check_common(delta, steps, sampling_prob, accountant)
    return _eps(z, delta, steps, q, accountant)


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


def _root(f, guess: float, rtol: float, what: str, spread: float = 2.0) -> float:
    """Smallest z (up to a relative ``rtol``) with f(z) <= 0, for f decreasing in z; f(z) is eps(z) - target.

    The search starts from the bracket [guess / spread, guess * spread] and widens it as needed."""
    if not (math.isfinite(guess) and guess > 0.0):  # a NaN / inf start would never leave the bracketing loops
        raise ValueError(f"cannot start the noise search for {what}: the starting noise multiplier is {guess!r}; "
                         "use moderate eps, delta and steps.")
    guess = min(max(guess, _Z_MIN), _Z_MAX)
    lo, hi = guess / spread, guess * spread
    for _ in range(_MAX_BRACKET):  # at most log_4(_Z_MAX / _Z_MIN) + 2 widenings are ever needed
        if not f(hi) > 0:
            break
        lo, hi = hi, hi * 4.0
        if hi > _Z_MAX:
            raise ValueError(f"no noise multiplier up to {_Z_MAX:g} reaches {what}; increase eps or reduce the steps.")
    else:  # pragma: no cover (unreachable: hi exceeds _Z_MAX first)
        raise ValueError(f"the noise search for {what} did not converge.")
    for _ in range(_MAX_BRACKET):
        if not f(lo) <= 0:
            break
        hi, lo = lo, lo / 4.0
        if lo < _Z_MIN:
            return hi  # essentially no noise is needed at this (large) budget
    else:  # pragma: no cover (unreachable: lo falls below _Z_MIN first)
        raise ValueError(f"the noise search for {what} did not converge.")
    from scipy.optimize import brentq

    z = brentq(f, lo, hi, xtol=1e-300, rtol=rtol, maxiter=200)
    # brentq may land just below the threshold: step up by the tolerance until eps(z) <= target
    for _ in range(200):
        if f(z) <= 0:
            return float(z)
        z = min(z * (1.0 + 2.0 * rtol), hi)
    return float(hi)  # pragma: no cover


#: A coarse sub-grid of the default RDP orders, used to locate the answer before refining on the full grid.
#: It must include the largest orders: at small ε the optimal order is large, and a grid that stops early cannot
#: reach the target at all (its ε has the floor log(1/δ)/(λ_max − 1) whatever the noise).
_COARSE = (1.5, 2.0, 3.0, 4.0, 6.0, 8.0, 12.0, 16.0, 24.0, 32.0, 48.0, 63.0, 128.0, 256.0, 512.0, 1024.0)
_WINDOW = 8


@functools.lru_cache(maxsize=4096)
def _solve(eps: float, delta: float, steps: int, q: float, accountant: str, rtol: float) -> float:
    what = f"eps = {eps:g} at delta = {delta:g} over {steps} steps"
    # starting point: the moments-accountant scaling z ~ q sqrt(T log(1/δ))/ε (at least 0.5)
    guess = max(q * math.sqrt(steps * math.log(1.0 / delta)) / eps, 0.5)
    if accountant == "pld":
        return _root(lambda z: _eps(z, delta, steps, q, "pld") - eps, guess, rtol, what)
    orders = _orders()
    full = _all_idx()
    # the RDP bound as the noise grows without limit (at z = 1e4 the per-step divergence is already negligible, while
    # far larger z make dp_accounting's series round to a negative divergence and report eps = 0)
    floor = _rdp_eps_idx(1e4, delta, steps, q, full)[0]
    if eps <= floor * (1.0 + 1e-9):
        raise ValueError(
            f"the RDP accountant cannot certify eps = {eps:g} at delta = {delta:g}: with Rényi orders up to "
            f"{max(orders):g} its bound never falls below {floor:.4g} (about log(1/delta)/(order - 1)), however "
            "large the noise; use a larger eps or accountant='pld'.")

    def f_on(idx):
        return lambda z: _rdp_eps_idx(z, delta, steps, q, idx)[0] - eps

    # 1. a coarse sub-grid of orders: cheap, and conservative (fewer orders -> larger eps -> larger z)
    coarse = tuple(i for i, o in enumerate(orders) if o in _COARSE) or full
    z1 = _root(f_on(coarse), guess, 1e-2, what)
    # 2. refine on the orders around the optimal one at z1 (eps on a sub-grid >= eps on the full grid, so the
    #    answer is always feasible for the full grid); accept when the full grid's optimal order is inside the window
    z, k = z1, _rdp_eps_idx(z1, delta, steps, q, full)[1]
    for _ in range(6):
        if k < 0:
            break
        window = tuple(range(max(0, k - _WINDOW), min(len(orders), k + _WINDOW + 1)))
        z = _root(f_on(window), z, rtol, what, spread=1.05)
        k = _rdp_eps_idx(z, delta, steps, q, full)[1]
        if window[0] < k < window[-1] or k in window and k in (0, len(orders) - 1):
            return z
    z1 = z
    return _root(f_on(full), z1, rtol, what, spread=1.05)  # slow path: the full grid throughout


def noise_multiplier_for(*, eps, delta, steps, sampling_prob=1.0, accountant="rdp", rtol=1e-9) -> float:
    r"""The smallest Gaussian noise multiplier z = σ / sensitivity that makes DP-SGD (ε, δ)-DP.

    The mechanism is that of :func:`epsilon_for`: ``steps`` compositions of the Gaussian mechanism applied to a
    Poisson sample (probability ``sampling_prob``) — the moments-accountant setting of eq. (2) in
    Kang, Li, Liu & Wang (kang-pidp) (§4), which states ``σ >= c G sqrt(T log(1/δ)) / (nε)`` for an unspecified c.  The
    answer is found by bracketing z around the scaling q sqrt(T log(1/δ))/ε and solving ε(z) = ``eps`` with Brent's
    method on the monotone map z ↦ ε(z); the returned z satisfies ``epsilon_for(z) <= eps`` and is within a relative
    ``rtol`` of the exact threshold of the chosen accountant.

    Parameters
    ----------
    eps : float
        Target ε > 0.
    delta : float
        Target δ in (0, 1).
    steps : int
        Number of iterations (compositions), >= 1.
    sampling_prob : float, default 1
        Poisson sampling probability in (0, 1] (e.g. 1/n for one example per step).
    accountant : {"rdp", "pld"}
        See the module docstring.
    rtol : float, default 1e-9
        Relative tolerance of the root finding.

    Returns
    -------
    float
        The noise multiplier z; σ = z · sensitivity.

    Raises
    ------
    ValueError
        For invalid inputs (with a message naming the parameter).
    """
    eps = v.check_eps(eps)
    delta, steps, q = _check_common(delta, steps, sampling_prob, accountant)
    rtol = v.check_positive("rtol", rtol)
    if rtol >= 0.1:
        raise ValueError(f"rtol must be a small relative tolerance (< 0.1), got {rtol:g}.")
    return _solve(eps, delta, steps, q, accountant, rtol)


# --------------------------------------------------------------------------------------------------------------
# Sampling without replacement under replace-one neighbours (Wang, Balle & Kasiviswanathan 2019), and faster PLD.

#: Sampling schemes and neighbouring relations understood by :func:`epsilon_general` / :func:`noise_multiplier_general`.
SAMPLINGS = ("poisson", "without-replacement")
NEIGHBOURINGS = ("add-remove", "replace-one")


def _forward_diffs(z: float, n: int):
    """log|Δ^k g|(0), k = 0 … n+1: the ``deltas`` of ``dp_accounting``'s ``_get_forward_diffs(cgf, n)`` for
    cgf(x) = x(x+1)/(2z²), with the same log-space differencing and sign book-keeping (its
    ``_stable_inplace_diff_in_log``), one vectorised numpy pass per order of difference instead of a Python loop."""
    import numpy as np

    vec = np.zeros(n + 3)
    idx = np.arange(1, n + 3, dtype=float)
    vec[1:] = (idx - 1.0) * idx / (2.0 * z * z)
    pos = np.ones(n + 3, dtype=bool)
    deltas = np.zeros(n + 2)
    log1p, exp, maximum, minimum, where = np.log1p, np.exp, np.maximum, np.minimum, np.where
    with np.errstate(invalid="ignore", over="ignore", divide="ignore"):
        for i in range(n + 2):
            m = n + 2 - i  # number of differences dp_accounting computes in this pass
            if m > 0:
                a, b = vec[1:m + 1], vec[:m]  # new vec[j] = value[j+1] − value[j]
                sa, sb = pos[1:m + 1], pos[:m]
                hi, lo = maximum(a, b), minimum(a, b)
                r = exp(lo - hi)
                same = sa == sb
                mag = hi + log1p(where(same, -r, r))
                mag = where(same & (a == b), -np.inf, where(~same & np.isneginf(lo), hi, mag))
                sign = where(same, where(a < b, ~sa, sa), sa)
                vec[:m] = mag
                pos[:m] = sign
            deltas[i] = vec[0]
    return deltas


def _wor_log_a_int(q: float, z: float, alphas, deltas):
    """log A_α of Wang, Balle & Kasiviswanathan (2019), Theorem 27, for integer orders α >= 2: the formula of
    ``dp_accounting``'s ``_compute_rdp_sample_wor_gaussian_int`` (exact sum for α <= 256, the Stirling-type bound
    above), summed with one ``logsumexp`` over a padded (orders × terms) array."""
    import numpy as np
    from scipy.special import gammaln, logsumexp

    a = np.asarray([int(x) for x in alphas], dtype=float)[:, None]
    i = np.arange(2, int(a.max()) + 1, dtype=float)[None, :]
    valid = i <= a
    k = np.where(valid, a - i, 0.0)
    logcomb = gammaln(a + 1.0) - gammaln(i + 1.0) - gammaln(k + 1.0)
    cgf_im1 = (i - 1.0) * i / (2.0 * z * z)
    s = math.log(2) + cgf_im1  # i > 2, orders above 256
    if deltas is not None:
        ii = i[0].astype(int)
        lo_idx = np.clip(2 * (ii // 2) - 1, 0, len(deltas) - 1)
        hi_idx = np.clip(2 * ((ii + 1) // 2) - 1, 0, len(deltas) - 1)
        t = math.log(4) + 0.5 * (deltas[lo_idx] + deltas[hi_idx])
        exact = np.minimum(t, math.log(2) + cgf_im1[0])[None, :]
        s = np.where(a <= 256, exact, s)
    f2 = 2.0 / (2.0 * z * z)
    # log(1 - e^{-f2}) as log(-expm1(-f2)): the same number, but finite when f2 is tiny (sigma 1e9: f2 = 1e-18)
    first = min(math.log(4) + f2 + math.log(-math.expm1(-f2)), f2 + math.log(2))
    s = s + i * math.log(q) + logcomb
    s[:, 0] = 2 * math.log(q) + logcomb[:, 0] + first
    s = np.where(valid, s, -np.inf)
    s = np.concatenate((np.zeros((s.shape[0], 1)), s), axis=1)
    vals = logsumexp(s, axis=1)
    return {int(x): float(val) for x, val in zip(a[:, 0], vals)}


def _rdp_wor_gaussian(q: float, z: float, orders):
    """Per-step RDP of the Gaussian mechanism (noise multiplier z) on a uniformly random subset of m = q·n of n
    examples, replace-one neighbours: ``dp_accounting``'s ``_compute_rdp_sample_wor_gaussian`` (Wang, Balle &
    Kasiviswanathan 2019, Theorem 27 and Corollary 10 for fractional orders), vectorised; a test checks equality."""
    import numpy as np

    orders = np.asarray(orders, dtype=float)
    if q >= 1.0:
        return orders / (2.0 * z * z)
    ints = set()
    for a in orders:
        ints.update({int(math.floor(a)), int(math.ceil(a))})
    ints = sorted(a for a in ints if a >= 2)
    small = [a for a in ints if a <= 256]
    deltas = _forward_diffs(z, max(small)) if small else None
    log_a = _wor_log_a_int(q, z, ints, deltas)
    log_a[1] = 0.0
    out = np.empty(orders.shape)
    for k, a in enumerate(orders):
        if float(a).is_integer():
            out[k] = log_a[int(a)] / (a - 1.0)
        else:
            af, ac = int(math.floor(a)), int(math.ceil(a))
            t = a - af
            out[k] = ((1.0 - t) * log_a[af] + t * log_a[ac]) / (a - 1.0)
    return out


@functools.lru_cache(maxsize=8192)
def _wor_eps_opt(z: float, delta: float, steps: int, q: float, max_order: float,
                 min_order: float = 0.0) -> tuple[float, float]:
    """(ε, optimal order) of the without-replacement RDP accountant over the default orders in
    [``min_order``, ``max_order``] (fewer and smaller orders are much cheaper: the forward differences of
    Theorem 27 cost O(max order²))."""
    import logging

    from dp_accounting.rdp import rdp_privacy_accountant as rdp

    orders = [o for o in _orders() if min_order <= o <= max_order]
    absl_logger = logging.getLogger("absl")
    level = absl_logger.level
    absl_logger.setLevel(logging.ERROR)
    try:
        eps, opt = rdp.compute_epsilon(orders, steps * _rdp_wor_gaussian(q, z, orders), delta)
    finally:
        absl_logger.setLevel(level)
    eps = float(eps)
    return (eps if math.isfinite(eps) else math.inf), float(opt)


def _wor_eps(z: float, delta: float, steps: int, q: float) -> float:
    return _wor_eps_opt(z, delta, steps, q, math.inf)[0]


def _pld_eps_at(z: float, delta: float, steps: int, q: float, interval: float) -> float:
    import dp_accounting
    from dp_accounting.pld import pld_privacy_accountant

    acc = pld_privacy_accountant.PLDAccountant(value_discretization_interval=interval)
    event = dp_accounting.GaussianDpEvent(z)
    if q < 1.0:
        event = dp_accounting.PoissonSampledDpEvent(q, event)
    acc.compose(dp_accounting.SelfComposedDpEvent(event, steps))
    eps = float(acc.get_epsilon(delta))
    return eps if math.isfinite(eps) else math.inf


def _pld_interval(eps: float) -> float:
    """The fine PLD discretisation used at a target ε: 1e-3 (dpviz's default), finer for small ε (at most 1 % of ε).

    A coarser grid only over-estimates ε (pessimistic rounding), so every answer stays an upper bound."""
    return min(_PLD_DISCRETIZATION, max(eps, 1e-6) / 100.0)


@functools.lru_cache(maxsize=1024)
def _pld_eps_cached(z: float, delta: float, steps: int, q: float, interval: float) -> float:
    return _pld_eps_at(z, delta, steps, q, interval)


@functools.lru_cache(maxsize=1024)
def _solve_pld_fast(eps: float, delta: float, steps: int, q: float, rtol: float) -> float:
    """Smallest z (relative precision ``rtol``) with PLD ε(z) <= eps at the fine discretisation.

    Warm start from the RDP answer (an upper bound on the z PLD needs, up to discretisation), then a secant search
    on log z with a coarse discretisation (10× the fine one: cheap, pessimistic), then a few secant steps at the fine
    discretisation from the coarse answer; the final z is checked at the fine discretisation."""
    fine = _pld_interval(eps)
    coarse = fine * 10.0
    try:
        z_rdp = _solve(eps, delta, steps, q, "rdp", 1e-6)
    except ValueError:
        z_rdp = max(q * math.sqrt(steps * math.log(1.0 / delta)) / eps, 0.5)

    def secant(interval, z0, z1, tol):
        def g(z):
            return math.log(_pld_eps_cached(z, delta, steps, q, interval)) - math.log(eps)

        # bracket: a z with g <= 0 (private) and one with g > 0
        hi, lo = z1, z0
        g_hi = g(hi)
        while g_hi > 0:
            lo, hi = hi, hi * 1.5
            g_hi = g(hi)
            if hi > _Z_MAX:
                raise ValueError(f"no noise multiplier up to {_Z_MAX:g} reaches eps = {eps:g} by PLD.")
        g_lo = g(lo)
        while g_lo <= 0:
            hi, g_hi = lo, g_lo
            lo = lo / 1.5
            if lo < _Z_MIN:
                return hi
            g_lo = g(lo)
        # regula falsi (Illinois) on log z between lo (not private) and hi (private)
        a, fa, b, fb = math.log(lo), g_lo, math.log(hi), g_hi
        side = 0
        for _ in range(60):
            if b - a <= tol:
                break
            c = b - fb * (b - a) / (fb - fa) if fb != fa else 0.5 * (a + b)
            if not a < c < b:
                c = 0.5 * (a + b)
            fc = g(math.exp(c))
            if fc > 0:
                a, fa = c, fc
                if side == -1:
                    fb /= 2.0
                side = -1
            else:
                b, fb = c, fc
                if side == 1:
                    fa /= 2.0
                side = 1
        return math.exp(b)

    z_c = secant(coarse, z_rdp * 0.8, z_rdp, max(rtol, 1e-3))
    return secant(fine, z_c * 0.97, z_c, rtol)


def _check_general(delta, steps, sampling_prob, sampling, neighbouring, accountant):
    delta, steps, q = _check_common(delta, steps, sampling_prob, accountant)
    if sampling not in SAMPLINGS:
        raise ValueError(f"sampling must be one of {', '.join(map(repr, SAMPLINGS))}, got {sampling!r}.")
    if neighbouring not in NEIGHBOURINGS:
        raise ValueError(f"neighbouring must be one of {', '.join(map(repr, NEIGHBOURINGS))}, got {neighbouring!r}.")
    if sampling == "without-replacement" and q < 1.0:
        if neighbouring != "replace-one":
            raise ValueError(
                "sampling without replacement (a fixed-size batch) is analysed under replace-one neighbours (the "
                "data set size n is public); choose neighbouring='replace-one', or Poisson sampling for add/remove.")
        if accountant != "rdp":
            raise ValueError(
                "dp_accounting has no PLD accountant for sampling without replacement; use accountant='rdp' "
                "(Wang, Balle & Kasiviswanathan 2019) for it, or Poisson sampling for PLD.")
    if sampling == "poisson" and neighbouring == "replace-one" and q < 1.0 and accountant == "rdp":
        raise ValueError(
            "dp_accounting's RDP accountant handles Poisson sampling only under add/remove neighbours; use "
            "accountant='pld' for Poisson sampling with replace-one neighbours.")
    return delta, steps, q


def epsilon_general(*, noise_multiplier, delta, steps, sampling_prob=1.0, sampling="poisson",
                    neighbouring="add-remove", accountant="rdp") -> float:
    r"""ε of ``steps`` compositions of a sub-sampled Gaussian mechanism, for a chosen sampling scheme and
    neighbouring relation.

    ``noise_multiplier`` is z = σ/Δ with Δ the ℓ2-sensitivity *under the chosen relation* (for a sum of gradients
    clipped to norm G: Δ = G for add/remove, Δ = 2G for replace-one).

    * ``sampling="poisson"``: each example enters a step independently with probability q
      (``dp_accounting.PoissonSampledDpEvent``); add/remove neighbours by RDP or PLD, replace-one by PLD only
      (dp_accounting's pair q·N(−Δ/2) + (1−q)·N(0) against q·N(Δ/2) + (1−q)·N(0): the replaced example's
      contribution moves by at most Δ).
    * ``sampling="without-replacement"``: each step uses a uniformly random subset of m = q·n examples
      (``dp_accounting.SampledWithoutReplacementDpEvent`` with ``NeighboringRelation.REPLACE_ONE``), RDP of Wang,
      Balle & Kasiviswanathan (2019, Theorem 27), vectorised here (:func:`_rdp_wor_gaussian`).
    * ``sampling_prob=1``: no sampling (full batch): T Gaussian mechanisms.
    """
    z = v.check_positive("noise_multiplier (sigma / sensitivity)", noise_multiplier)
    delta, steps, q = _check_general(delta, steps, sampling_prob, sampling, neighbouring, accountant)
    if q >= 1.0 or sampling == "poisson" and neighbouring == "add-remove":
        if accountant == "rdp":
            return _eps(z, delta, steps, q, accountant)
        _pld_guard(z)
        return _pld_eps_cached(z, delta, steps, q, _PLD_DISCRETIZATION)
    if sampling == "without-replacement":
        return _wor_eps(z, delta, steps, q)
    _pld_guard(z)
    return _pld_replace_eps(z, delta, steps, q)


#: Smallest noise multiplier given to the PLD accountant: its grid grows like 1/z^2 (z = 1e-3 took 12 GB and
#: minutes, z = 1e-6 asked numpy for 3.5 PiB); ε is very large there anyway, and the RDP accountant gives it.
PLD_MIN_NOISE = 0.1


def _pld_guard(z: float) -> None:
    if z < PLD_MIN_NOISE:
        raise ValueError(f"the PLD accountant is not run below a noise multiplier of {PLD_MIN_NOISE:g} (got "
                         f"{v.shown(z)}): its grid would need gigabytes; ε is very large there anyway (see RDP).")


@functools.lru_cache(maxsize=1024)
def _pld_replace_eps(z: float, delta: float, steps: int, q: float) -> float:
    import dp_accounting
    from dp_accounting.pld import pld_privacy_accountant

    acc = pld_privacy_accountant.PLDAccountant(
        neighboring_relation=dp_accounting.NeighboringRelation.REPLACE_ONE,
        value_discretization_interval=_PLD_DISCRETIZATION)
    # dp_accounting's replace-one pair shifts the replaced example's contribution by ±(its sensitivity); a
    # replace-one sensitivity Δ = 2G is a shift of ±G, i.e. noise multiplier 2z for the shift
    acc.compose(dp_accounting.SelfComposedDpEvent(
        dp_accounting.PoissonSampledDpEvent(q, dp_accounting.GaussianDpEvent(2.0 * z)), steps))
    eps = float(acc.get_epsilon(delta))
    return eps if math.isfinite(eps) else math.inf


def _smallest_private(ok: Callable[[float], bool], guess: float, rtol: float, what: str) -> float:
    """Smallest z (up to a relative ``rtol``) with ``ok(z)``, for a predicate that is monotone in z (False below a
    threshold, True above it): geometric bracketing from ``guess`` over [_Z_MIN, _Z_MAX], then bisection on log z.
    The returned z always satisfies ``ok``; only the predicate is used, never the size of ε − target, so steps and
    plateaus of ε(z) (dp_accounting's KL shortcut returns exactly 0 once T·RDP is tiny) cannot stop the search early.
    """
    if not (math.isfinite(guess) and guess > 0.0):
        raise ValueError(f"cannot start the noise search for {what}: the starting noise multiplier is {guess!r}; "
                         "use moderate eps, delta and steps.")
    hi = min(max(guess, _Z_MIN), _Z_MAX)
    lo = hi
    if ok(hi):
        while True:
            lo = hi / 4.0
            if lo < _Z_MIN:
                return hi  # essentially no noise is needed at this (large) budget
            if not ok(lo):
                break
            hi = lo
    else:
        while True:
            lo, hi = hi, hi * 4.0
            if hi > _Z_MAX:
                raise ValueError(f"no noise multiplier up to {_Z_MAX:g} reaches {what}; increase eps or reduce the "
                                 "steps.")
            if ok(hi):
                break
    a, b = math.log(lo), math.log(hi)  # ok(e^a) False, ok(e^b) True
    tol = math.log1p(rtol)
    while b - a > tol:
        m = 0.5 * (a + b)
        if ok(math.exp(m)):
            b = m
        else:
            a = m
    return math.exp(b)


@functools.lru_cache(maxsize=4096)
def _solve_wor(eps: float, delta: float, steps: int, q: float, rtol: float) -> float:
    """Smallest z with the without-replacement RDP ε(z) <= ``eps`` over *all* the default orders (up to 1024).

    ε(z) = min over orders of a bound that decreases in z at every order, so it is monotone in z; bisection on the
    predicate ε(z) <= eps over the full grid (about 10 ms per evaluation, 20–40 evaluations) cannot be misled by a
    truncated order set or by the exact zeros of dp_accounting's KL shortcut (issue 21: a search on orders <= 63
    stopped where ε first read 0, σ = 395.6 where 4.4 suffices)."""
    what = f"eps = {eps:g} at delta = {delta:g} over {steps} steps (sampling without replacement)"
    guess = max(q * math.sqrt(steps * math.log(1.0 / delta)) / eps, 0.5)  # the moments-accountant scaling
    return _smallest_private(lambda z: _wor_eps(z, delta, steps, q) <= eps, guess, rtol, what)


def noise_multiplier_general(*, eps, delta, steps, sampling_prob=1.0, sampling="poisson",
                             neighbouring="add-remove", accountant="rdp", rtol=1e-6) -> float:
    """The smallest noise multiplier z = σ/Δ with :func:`epsilon_general` (z) <= ``eps`` (Δ: the sensitivity under
    ``neighbouring``).  RDP: Brent's method on the monotone map z ↦ ε(z) (without replacement: warm-started from the
    Poisson answer).  PLD: warm start from the RDP answer, a coarse (10×) discretisation first, then the fine one
    (:func:`_pld_interval`), cached by inputs."""
    eps = v.check_eps(eps)
    delta, steps, q = _check_general(delta, steps, sampling_prob, sampling, neighbouring, accountant)
    rtol = v.check_positive("rtol", rtol)
    if rtol >= 0.1:
        raise ValueError(f"rtol must be a small relative tolerance (< 0.1), got {rtol:g}.")
    if q >= 1.0 or sampling == "poisson" and neighbouring == "add-remove":
        if accountant == "rdp":
            return _solve(eps, delta, steps, q, "rdp", rtol)
        return _solve_pld_fast(eps, delta, steps, q, max(rtol, 1e-4))
    if sampling == "without-replacement":
        return _solve_wor(eps, delta, steps, q, rtol)
    what = f"eps = {eps:g} at delta = {delta:g} over {steps} steps (Poisson, replace-one, PLD)"
    guess = _solve(eps, delta, steps, q, "rdp", 1e-4) / 2.0
    return _root(lambda z: _pld_replace_eps(z, delta, steps, q) - eps, guess, max(rtol, 1e-4), what, spread=1.5)
