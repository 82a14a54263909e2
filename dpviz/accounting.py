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
    if rest.size:
        out[rest] = rdp._compute_rdp_poisson_subsampled_gaussian(q=q, noise_multiplier=z, orders=orders[rest])
    return out


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
