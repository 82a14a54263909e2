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
    Rényi DP (Mironov, Talwar & Zhang 2019), the per-order RDP of :class:`dp_accounting.rdp.RdpAccountant` over the
    orders :data:`RDP_ORDERS` (dp_accounting's defaults plus denser orders from 64 to 1024); ``steps``
    compositions are added analytically (RDP is additive), so a call costs a few tens of milliseconds whatever
    ``steps`` is.  The conversion RDP → (ε, δ) is the one of ``dp_accounting``
    (Canonne, Kamath & Steinke 2020), slightly tighter than the classical ε = ρ(λ) + log(1/δ)/(λ − 1).
``"pld"``
    privacy-loss distributions (self-composition by FFT), tighter but slower, with an error bar.  For Poisson
    sampling under add/remove neighbours (DP-SGD as Opacus and TF Privacy account it) the upper bound is the
    connect-the-dots PLD (Doroshenko, Ghazi, Kamath, Kumar & Manurangsi 2022; dp_accounting's algorithm, vectorised)
    and the lower bound the PLD of a post-processing of the mechanism whose privacy losses lie exactly on the grid
    (:mod:`dpviz.theory.pld_lower`); both err by O(Δ²) per step, and the grid is refined until they agree to 1 %.  Elsewhere
    (replace-one, full batch) the upper bound is dp_accounting's pessimistic PLD, refined until it changes by < 1 %,
    and the lower bound its optimistic PLD — :func:`pld_bracket`, :func:`pld_epsilon_bracket`,
    :func:`pld_sigma_bracket` (whose σ interval is certified at both ends for Poisson add/remove).  The size of the
    grid is estimated before any work; where it would not fit, :class:`PldTooLarge` (a ``ValueError``) says how large
    it would be.

Every PLD result is checked, not trusted (issue 31).  Each composition is an FFT of exponentially tilted PMFs whose
numerical error is bounded and charged to δ (:func:`dpviz.theory.pld_lower._compose_eps`); where no tilt resolves δ
(e.g. q = 10⁻⁶, 10⁶ steps, δ = 10⁻¹²: the atoms that decide ε weigh 10⁻¹⁷ under an FFT noise floor of 10⁻¹⁴) it
raises :class:`Unsettled` instead of returning a number.  The PLD's bracket is then compared with RDP's ε, a valid
upper bound of the same mechanism: the upper bound reported is min(PLD, RDP), and where the PLD does not settle or its
lower bound exceeds RDP's upper bound, RDP's bound is reported with no lower bound, ``fallback="rdp"`` and a note
(:func:`_checked_bracket`, :func:`_checked_sigma`).  The references are unstable there too: dp_accounting's PLD at
q = 10⁻⁶, 10⁶ steps, δ = 10⁻¹², z = 0.55 gives ε = 0.733 at grid 10⁻² and 9.48 at 10⁻³, its RDP 3.43; the PRV
accountant would need a mesh of about ε_error/√(T log(1/δ)) ≈ 10⁻⁶, far beyond memory.  ε = 0 is returned only
where it is exact: the total variation of the mechanism (:func:`dpviz.theory.gaussian.total_variation`) is at most δ,
or dp_accounting's KL shortcut holds for Rényi divergences that are upper bounds (a per-step divergence below 10⁻¹⁰ is
rounding noise and is replaced by a bound, :func:`_sound_rdp`).  δ above :data:`DELTA_MAX` = 0.1 is refused.

The neighbouring relation is add/remove-one (the relation of the moments accountant).  For a replace-one analysis
pass the replace-one sensitivity (2G for gradients bounded by G) when converting σ to z = σ / sensitivity; see
:mod:`dpviz.theory.papers.kang_pidp`.
"""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass
from typing import Callable

from dpviz.foundation import validate as v
from dpviz.theory.pld_lower import Unsettled

__all__ = ["ACCOUNTANTS", "DELTA_MAX", "PldTooLarge", "Unsettled", "check_accounting_delta", "epsilon_for",
           "noise_multiplier_for", "pld_bracket", "pld_epsilon_bracket",
           "pld_sigma_bracket", "rdp_epsilon_gaussian", "wor_rdp_floor", "wor_floor_note"]

#: Supported accountants.
ACCOUNTANTS = ("rdp", "pld")

_Z_MIN = 1e-3  # below this the subsampled Gaussian gives essentially no privacy
_Z_MAX = 1e7
_MAX_BRACKET = 64  # cap on the bracket widenings of _root (log_4(_Z_MAX / _Z_MIN) = 17 suffice)


#: Largest δ the accountants accept (the dashboard's pages cap δ at 10⁻¹ too): above it an (ε, δ) guarantee is vacuous
#: — publishing a random tenth of the data set is (0, 0.1)-DP — and the searches only waste time (δ = 0.9999 took
#: 14.7 s of CPU to report ε = 0).
DELTA_MAX = 0.1


def check_accounting_delta(delta) -> float:
    """δ for an accountant: in (0, :data:`DELTA_MAX`], else ``ValueError`` saying why."""
    delta = v.check_delta(delta)
    if delta > DELTA_MAX:
        raise ValueError(
            f"delta = {delta:g} is above {DELTA_MAX:g}: an (eps, delta) guarantee with delta that large is vacuous (a "
            f"mechanism that publishes a random {DELTA_MAX:.0%} of the examples is (0, {DELTA_MAX:g})-DP), so the "
            f"accountants refuse it, as the dashboard's pages do; use delta <= {DELTA_MAX:g}, typically 1/n^2 or "
            "smaller.")
    return delta


def _check_common(delta, steps, sampling_prob, accountant):
    delta = check_accounting_delta(delta)
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
        # dp_accounting's conversion (on divergences made sound by _sound_rdp) says eps <= 0, but dpviz prints
        # eps = 0 only where the total variation bound shows it exactly (issue 31, item 2); any positive number is
        # then a valid upper bound, and the smallest one dpviz prints is _RDP_EPS_FLOOR
        eps = _RDP_EPS_FLOOR
    return (eps if math.isfinite(eps) else math.inf), idx[orders.index(float(opt))] if math.isfinite(eps) else -1


#: The ε reported where the Rényi conversion certifies ε <= 0 but the total variation bound cannot show ε = 0.
_RDP_EPS_FLOOR = 1e-9


def _all_idx() -> tuple[int, ...]:
    return tuple(range(len(_orders())))


def _rdp_eps(z: float, delta: float, steps: int, q: float) -> float:
    return _rdp_eps_idx(z, delta, steps, q, _all_idx())[0]


def _pld_eps(z: float, delta: float, steps: int, q: float) -> float:
    """Upper bound on ε by PLD, on a grid refined until it changes by < 1 % (:func:`pld_bracket`)."""
    return _pld_bracket_cached(z, delta, steps, q, False).eps_upper


@functools.lru_cache(maxsize=4096)
def _eps(z: float, delta: float, steps: int, q: float, accountant: str) -> float:
    if _exact_zero(z, delta, steps, q):
        return 0.0  # total variation <= delta: (0, delta)-DP exactly
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
            raise ValueError(f"no noise multiplier in the search's range [{_Z_MIN:g}, {_Z_MAX:g}] reaches {what}; "
                             "increase eps or reduce the steps.")
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


#: A coarse sub-grid of :data:`RDP_ORDERS`, used to locate the answer before refining on the full grid.
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
        return _solve_pld_fast(eps, delta, steps, q, max(rtol, 1e-4))
    orders = _orders()
    full = _all_idx()
    # the RDP bound as the noise grows without limit (at z = 1e4 the per-step divergence is already negligible, while
    # far larger z make dp_accounting's series round to a negative divergence and report eps = 0)
    floor = _rdp_eps_idx(1e4, delta, steps, q, full)[0]
    if eps <= floor * (1.0 + 1e-9):
        raise ValueError(
            f"the RDP accountant cannot certify eps = {eps:g} at delta = {delta:g}: its conversion to (eps, delta) "
            f"has a floor — with Rényi orders up to {max(orders):g} its bound never falls below {floor:.4g} (about "
            "log(1/delta)/(order - 1)), however large the noise; use eps above that floor or accountant='pld'.")

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
    """(ε, optimal order) of the without-replacement RDP accountant over the orders of :data:`WOR_ORDERS` in
    [``min_order``, ``max_order``] (fewer and smaller orders are much cheaper: the forward differences of
    Theorem 27 cost O(max order²))."""
    import logging

    from dp_accounting.rdp import rdp_privacy_accountant as rdp

    orders = [o for o in WOR_ORDERS if min_order <= o <= max_order]
    absl_logger = logging.getLogger("absl")
    level = absl_logger.level
    absl_logger.setLevel(logging.ERROR)
    try:
        eps, opt = rdp.compute_epsilon(orders, steps * _sound_rdp(_rdp_wor_gaussian(q, z, orders), orders, z), delta)
    finally:
        absl_logger.setLevel(level)
    eps = float(eps)
    return (eps if math.isfinite(eps) else math.inf), float(opt)


def _wor_eps(z: float, delta: float, steps: int, q: float) -> float:
    if _exact_zero(z, delta, steps, q):  # total variation <= delta: (0, delta)-DP exactly
        return 0.0
    return _wor_eps_opt(z, delta, steps, q, math.inf)[0]


@functools.lru_cache(maxsize=1024)
def wor_rdp_floor(delta: float, steps: int, sampling_prob: float) -> float:
    r"""The smallest *positive* ε the without-replacement RDP accountant certifies, whatever the noise.

    As z → ∞ the RDP of Wang, Balle & Kasiviswanathan (2019, Theorem 27) vanishes at the orders up to 256 (their exact
    sum), but not above (its Stirling-type bound keeps a term that does not depend on z), so the RDP → (ε, δ)
    conversion of dp_accounting (Canonne, Kamath & Steinke 2020)

    .. math:: \epsilon(\lambda) = T\rho_\infty(\lambda) + \log(1 - 1/\lambda) - \frac{\log\delta + \log\lambda}{\lambda - 1}

    has a floor: at n = T = 1000 (q = 1/n), δ = 10⁻⁶ it is 0.02852 (order 256).  Below it the accountant certifies
    only ε = 0, and only where that is exact: the total variation bound 1 − (1 − q·erf(1/(2√2 z)))^T of
    :func:`dpviz.theory.gaussian.total_variation` is at most δ (z = 398 942 at n = T = 1000).  dp_accounting's own
    shortcut (T·ρ(λ) < δ², the two output distributions then within δ in total variation) fires at z = 63 246 there,
    but on per-step divergences of about 10⁻¹⁶, the size of their rounding error, so dpviz does not rely on it (issue
    31; :func:`_sound_rdp`).  Every target ε below the floor gets that same σ.
    """
    import numpy as np

    delta = v.check_delta(delta)
    steps = v.check_int("steps (number of compositions)", steps)
    q = v.check_real("sampling_prob", sampling_prob)
    if not 0.0 < q <= 1.0:
        raise ValueError(f"sampling_prob must lie in (0, 1], got {q:g}.")
    orders = np.asarray([o for o in WOR_ORDERS if o > 1.01], float)
    # ρ_∞: 0 at the orders up to 256; above, the z-free term (its value at a large z, where the rest is < 1e-20)
    rho = np.where(orders <= 256, 0.0, _rdp_wor_gaussian(q, 1e12, orders) if q < 1.0 else 0.0)
    eps = steps * rho + np.log1p(-1.0 / orders) - (math.log(delta) + np.log(orders)) / (orders - 1.0)
    return float(max(np.min(eps), 0.0))


def wor_floor_note(eps: float, delta: float, steps: int, sampling_prob: float) -> str | None:
    """A sentence for a σ that the without-replacement RDP accountant finds for a target ε below its floor
    (:func:`wor_rdp_floor`), else None: that σ is certified only through ε = 0 and is no measure of the noise the
    mechanism needs."""
    floor = wor_rdp_floor(delta, steps, sampling_prob)
    if not eps < floor:
        return None
    return (f"ε = {eps:g} is below {floor:.4g}, the smallest positive ε this RDP accountant certifies at any noise (its "
            "bound at the Rényi orders above 256 does not vanish as σ grows): its σ is the noise at which it certifies "
            "ε = 0 (the two output distributions within total variation δ), the same for every target below "
            f"{floor:.4g}. That σ certainly suffices but says nothing about how much noise the mechanism needs; a "
            "tighter analysis would need far less.")


def _solve_pld_fast(eps: float, delta: float, steps: int, q: float, rtol: float, replace: bool = False) -> float:
    """Smallest z (relative precision ``rtol``) with pessimistic PLD ε(z) <= eps (an upper bound on the σ needed);
    see :func:`pld_sigma_bracket`."""
    return _checked_sigma(eps, delta, steps, q, replace, max(rtol, 1e-4))["z_upper"]


def _pld_secant(eps: float, delta: float, steps: int, q: float, replace: bool, interval: float, pessimistic: bool,
                z0: float, z1: float, tol: float) -> float:
    """Smallest z with the PLD ε at grid ``interval`` (pessimistic or optimistic) <= eps: bracketing on log z from
    (z0, z1), then regula falsi (Illinois).  Returns a z that satisfies the condition."""

    def g(z):
        e = _pld_eval(z, delta, steps, q, replace, interval, pessimistic)[0]
        if e <= 0.0:
            return -math.inf
        return math.log(e) - math.log(eps) if math.isfinite(e) else math.inf

    hi, lo = max(z0, z1), min(z0, z1)
    g_hi = g(hi)
    while g_hi > 0:
        lo, hi = hi, hi * 1.5
        if hi > _Z_MAX:
            raise ValueError(f"no noise multiplier in the search's range up to {_Z_MAX:g} reaches eps = {eps:g} by "
                             "PLD.")
        g_hi = g(hi)
    g_lo = g(lo)
    while g_lo <= 0:
        hi, g_hi = lo, g_lo
        lo = lo / 1.5
        if lo < _Z_MIN:
            return hi
        g_lo = g(lo)
    a, fa, b, fb = math.log(lo), g_lo, math.log(hi), g_hi
    side = 0
    for _ in range(60):
        if b - a <= tol:
            break
        if math.isfinite(fa) and math.isfinite(fb) and fb != fa:
            c = b - fb * (b - a) / (fb - fa)
        else:
            c = 0.5 * (a + b)
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


def _rdp_slope(z: float, delta: float, steps: int, q: float) -> float:
    """d log ε / d log z of the Poisson RDP accountant at z (negative; about −1 for DP-SGD), for Newton steps."""
    e1, e2 = _rdp_eps(z, delta, steps, q), _rdp_eps(z * 1.05, delta, steps, q)
    if not (0 < e2 < e1 < math.inf):
        return -1.0
    return min(max(math.log(e2 / e1) / math.log(1.05), -4.0), -0.25)


@functools.lru_cache(maxsize=1024)
def _pld_sigma(eps: float, delta: float, steps: int, q: float, replace: bool, rtol: float) -> dict:
    """ε → z by PLD with an error bar, in a bounded number of PLD evaluations.

    1. the grid: :func:`pld_bracket` at the RDP answer z0 refines until ε changes by < 1 % (within its work budget);
    2. secant steps on (log z, log ε) at that grid, the first with the slope of the RDP curve, kept inside the
       bracket of z's seen on either side of the target, each started only if it fits the work budget (grid points);
       the smallest z whose pessimistic ε is <= the target is ``z_upper`` (certainly enough noise: an upper bound on
       the σ needed);
    3. ``z_lower``: where the optimistic PLD's ε (same grid) would meet the target, by one step with the same
       slope — an estimate of the bracket's other end, not a certified bound.
    Raises :class:`PldTooLarge` when the PLD does not fit."""
    import time

    t0 = time.perf_counter()
    if q < 1.0 and not replace:
        try:
            return _tight_sigma(eps, delta, steps, q, rtol, t0)
        except PldTooLarge:
            pass  # the tight grid does not fit: dp_accounting's own PLD below
    try:
        z0 = _solve(eps, delta, steps, q, "rdp", 1e-6)
        if replace:
            z0 *= 2.0  # a replace-one step moves the mean by 2: at most the add/remove noise of twice the sensitivity
    except ValueError:
        z0 = max(q * math.sqrt(steps * math.log(1.0 / delta)) / eps, 0.5)
    slope = _rdp_slope(z0 / 2.0 if replace else z0, delta, steps, q)
    br = pld_bracket(z0, delta, steps, q, replace=replace, lower=False, budget=PLD_BUDGET / 2)
    grid = br.grid
    # the search runs on a grid 4x coarser (a quarter of the points; pessimistic, so its z is at least the fine
    # grid's), then at most two secant steps at the fine grid refine it
    coarse = min(4.0 * grid, max(_PLD_START, grid))
    # each of the (at most about 12) coarse evaluations gets at most a tenth of the work budget
    coarse = max(coarse, _pld_support(z0, steps, q, replace)[1] * 10.0 / PLD_BUDGET)
    z_c = z0
    for _ in range(8):  # a smaller z has a wider privacy loss: coarsen if it no longer fits
        try:
            z_c = _pld_secant(eps, delta, steps, q, replace, coarse, True, 0.8 * z0, z0, max(rtol, 1e-3))
            break
        except PldTooLarge:
            coarse *= 2.0
            grid = max(grid, coarse / 4.0)
            if coarse > _PLD_COARSEST:
                raise
    e_c2 = _pld_eval(z_c * 0.98, delta, steps, q, replace, coarse, True)[0]
    e_c1 = _pld_eval(z_c, delta, steps, q, replace, coarse, True)[0]
    slope = math.log(e_c2 / e_c1) / math.log(0.98) if 0 < e_c1 < e_c2 < math.inf else slope
    slope = min(max(slope, -20.0), -0.05)
    best = None
    z, work = z_c, 0
    target = math.log(eps) + math.log1p(-0.3 * rtol)  # aim just below the target
    for _ in range(3):
        try:
            e, _dt, pts = _pld_eval(z, delta, steps, q, replace, grid, True)
        except PldTooLarge:
            break
        work += pts
        if e <= eps and (best is None or z < best[0]):
            best = (z, e)
        if not (0 < e < math.inf) or (e <= eps and e >= eps * (1.0 - rtol)) or work + pts > PLD_BUDGET:
            break
        z = z * math.exp((math.log(e) - target) / -slope)
    if best is None:  # the fine grid disagrees with the coarse one at z_c (rare): z_c is certified at the coarse grid
        best = (z_c, e_c1)
        grid = coarse
    z_up, e_up = best
    z_low = None
    try:
        if work <= PLD_BUDGET:
            e_lo = _pld_eval(z_up, delta, steps, q, replace, grid, False)[0]
            if 0 < e_lo <= eps:
                z_low = z_up * math.exp(math.log(e_lo / eps) / -slope)
    except PldTooLarge:
        pass
    return {"z_upper": z_up, "z_lower": z_low, "eps_at_z_upper": e_up, "grid": grid, "converged": br.converged,
            "seconds": time.perf_counter() - t0}


def pld_sigma_bracket(*, eps, delta, steps, sampling_prob=1.0, neighbouring="add-remove", rtol=1e-4) -> dict:
    """The noise multiplier PLD needs for (ε, δ), with its bracket: ``{"z_upper", "z_lower", "grid", "converged",
    "seconds"}`` (Poisson sampling or full batch).  ``z_upper`` certainly suffices (its upper bound on ε meets the
    target); for Poisson add/remove ``z_lower`` certainly does not (its lower bound on ε exceeds the target), so the
    smallest sufficient noise multiplier lies in (``z_lower``, ``z_upper``]; elsewhere ``z_lower`` is an estimate.  Raises ``ValueError`` (:class:`PldTooLarge`) when the PLD of this
    mechanism does not fit in memory."""
    eps = v.check_eps(eps)
    delta, steps, q = _check_general(delta, steps, sampling_prob, "poisson", neighbouring, "pld")
    return dict(_checked_sigma(eps, delta, steps, q, neighbouring == "replace-one" and q < 1.0, max(rtol, 1e-4)))


@functools.lru_cache(maxsize=1024)
def _checked_sigma(eps: float, delta: float, steps: int, q: float, replace: bool, rtol: float) -> dict:
    """:func:`_pld_sigma`, checked against RDP's noise multiplier for the same target (a valid "enough noise"; Poisson
    add/remove or full batch), the fallback when the PLD fails:

    * PLD not settled (:class:`dpviz.theory.pld_lower.Unsettled`): ``z_upper`` is RDP's, no ``z_lower``;
    * ``z_lower`` (certainly too little noise) at or above a z that RDP certifies sufficient: a contradiction — the
      PLD is discarded and RDP's z reported;
    * otherwise ``z_upper`` = min(PLD's, RDP's) (both suffice), and a ``z_lower`` at or above it is dropped.
    ``fallback`` is "rdp" when RDP's z is the one reported; ``converged`` is then false and ``note`` says why."""
    import time

    t0 = time.perf_counter()
    rdp_z = None
    if not (replace and q < 1.0):
        try:
            rdp_z = _solve(eps, delta, steps, q, "rdp", 1e-6)
        except ValueError:
            rdp_z = None

    def rdp_only(note):
        return {"z_upper": rdp_z, "z_lower": None, "eps_at_z_upper": _rdp_eps(rdp_z, delta, steps, q), "grid": None,
                "converged": False, "seconds": time.perf_counter() - t0, "note": note, "fallback": "rdp"}

    try:
        res = dict(_pld_sigma(eps, delta, steps, q, replace, rtol))
    except Unsettled as exc:
        if rdp_z is None:
            raise
        return rdp_only(f"PLD not settled: {exc}; the noise shown is RDP's (certainly enough), with no certified "
                        "lower end")
    res.setdefault("note", "")
    res["fallback"] = None
    if rdp_z is not None and res.get("z_lower") is not None and res["z_lower"] >= rdp_z:
        return rdp_only(_join(res["note"], f"the PLD's 'certainly too little' noise {res['z_lower']:.4g} is at or "
                                           f"above RDP's sufficient noise {rdp_z:.4g}, so the PLD is not reliable "
                                           "here: RDP's noise is shown"))
    if rdp_z is not None and rdp_z < res["z_upper"]:
        res["z_upper"], res["fallback"] = rdp_z, "rdp"
        res["eps_at_z_upper"] = _rdp_eps(rdp_z, delta, steps, q)
        res["note"] = _join(res["note"], "RDP's noise multiplier is smaller than the PLD's here: it is the one shown")
        res["converged"] = False
    if res.get("z_lower") is not None and res["z_lower"] >= res["z_upper"]:
        res["note"] = _join(res["note"], f"the PLD's lower end {res['z_lower']:.4g} was not below the upper end: dropped")
        res["z_lower"], res["converged"] = None, False
    return res


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
    if accountant == "pld":
        return _pld_bracket_cached(z, delta, steps, q, neighbouring == "replace-one" and q < 1.0).eps_upper
    if q >= 1.0 or sampling == "poisson" and neighbouring == "add-remove":
        return _eps(z, delta, steps, q, accountant)
    return _wor_eps(z, delta, steps, q)


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
                raise ValueError(f"no noise multiplier in the search's range [{_Z_MIN:g}, {_Z_MAX:g}] reaches "
                                 f"{what}; increase eps or reduce the steps.")
            if ok(hi):
                break
    return log_bisect(ok, lo, hi, math.log1p(rtol))


def log_bisect(ok, lo: float, hi: float, log_tol: float) -> float:
    """The smallest x in [lo, hi] with ``ok(x)`` (to within a factor e^log_tol), for a predicate that is False at
    ``lo``, True at ``hi`` and monotone between: bisection on log x, returning the True end of the final bracket (so
    the answer always satisfies ``ok``, e.g. a σ that certainly suffices)."""
    a, b = math.log(lo), math.log(hi)  # ok(e^a) False, ok(e^b) True
    while b - a > log_tol:
        m = 0.5 * (a + b)
        if ok(math.exp(m)):
            b = m
        else:
            a = m
    return math.exp(b)


@functools.lru_cache(maxsize=4096)
def _solve_wor(eps: float, delta: float, steps: int, q: float, rtol: float) -> float:
    """Smallest z with the without-replacement RDP ε(z) <= ``eps`` over *all* the orders of :data:`WOR_ORDERS`.

    ε(z) = min over orders of a bound that decreases in z at every order, so it is monotone in z; bisection on the
    predicate ε(z) <= eps over the full grid (about 10 ms per evaluation, 20–40 evaluations) cannot be misled by a
    truncated order set or by the exact zeros of dp_accounting's KL shortcut (issue 21: a search on orders <= 63
    stopped where ε first read 0, σ = 395.6 where 4.4 suffices)."""
    what = f"eps = {eps:g} at delta = {delta:g} over {steps} steps (sampling without replacement)"
    guess = max(q * math.sqrt(steps * math.log(1.0 / delta)) / eps, 0.5)  # the moments-accountant scaling
    floor = wor_rdp_floor(delta, steps, q)
    if eps < floor and _wor_eps(_Z_MAX, delta, steps, q) > eps:
        raise ValueError(
            f"the without-replacement RDP accountant cannot certify {what}: its conversion from Rényi divergences to "
            f"(eps, delta) has a floor of {floor:.4g} here (its bound at the Rényi orders above 256, up to "
            f"{max(WOR_ORDERS):g}, does not vanish as the noise grows), and below the floor it certifies only "
            f"eps = 0, which needs more noise than the search's largest noise multiplier {_Z_MAX:g}; use eps >= "
            f"{floor:.4g} (the limit is the Rényi conversion, not the number of steps).")

    def full(z: float) -> bool:
        return _wor_eps(z, delta, steps, q) <= eps

    # Fast pass (4-6x cheaper per evaluation): the orders up to twice the optimal order at the current point.  The
    # minimum over fewer orders is never below the minimum over all of them, so a z that passes the fast predicate
    # passes the full one; the answer is kept only if the full predicate fails one tolerance below it, i.e. if it is
    # also the smallest z of the full search to within rtol.  Otherwise the pass is repeated from its answer with the
    # optimal order there (at most three passes), and then the full search runs.
    # (The cap 256 leaves out the orders 272 … 1024 of WOR_ORDERS: 2x cheaper at ε = 0.3, n = 20 000, T = 1000.)
    for _ in range(3):
        opt = _wor_eps_opt(min(max(guess, _Z_MIN), _Z_MAX), delta, steps, q, math.inf)[1]
        # ... and at least 1 + 2·log(1/δ)/ε: below that order the conversion term log(1/δ)/(α − 1) alone exceeds ε/2
        need = max(2.0 * opt, 1.0 + 2.0 * math.log(1.0 / delta) / eps)
        cap = next((o for o in (32.0, 64.0, 128.0, 256.0) if o >= need), None)
        if cap is None:
            break
        try:
            z = _smallest_private(lambda z, cap=cap: _wor_eps_opt(z, delta, steps, q, cap)[0] <= eps, guess, rtol,
                                  what)
        except ValueError:
            break
        if full(z) and not full(z / (1.0 + rtol)):
            return z
        guess = z
    return _smallest_private(full, guess, rtol, what)


def noise_multiplier_general(*, eps, delta, steps, sampling_prob=1.0, sampling="poisson",
                             neighbouring="add-remove", accountant="rdp", rtol=1e-6) -> float:
    """The smallest noise multiplier z = σ/Δ with :func:`epsilon_general` (z) <= ``eps`` (Δ: the sensitivity under
    ``neighbouring``).  RDP: Brent's method on the monotone map z ↦ ε(z) (without replacement: warm-started from the
    Poisson answer).  PLD: warm start from the RDP answer, a coarse (10×) discretisation first, then the fine one
    (:func:`pld_bracket` chooses it), cached by inputs."""
    eps = v.check_eps(eps)
    delta, steps, q = _check_general(delta, steps, sampling_prob, sampling, neighbouring, accountant)
    rtol = v.check_positive("rtol", rtol)
    if rtol >= 0.1:
        raise ValueError(f"rtol must be a small relative tolerance (< 0.1), got {rtol:g}.")
    if accountant == "pld":
        return _solve_pld_fast(eps, delta, steps, q, max(rtol, 1e-4), neighbouring == "replace-one" and q < 1.0)
    if q >= 1.0 or sampling == "poisson" and neighbouring == "add-remove":
        return _solve(eps, delta, steps, q, "rdp", rtol)
    return _solve_wor(eps, delta, steps, q, rtol)


# --------------------------------------------------------------------------------------------------------------
# PLD with a bounded amount of work and an error bar (issue 21, items 2 and 3).
#
# dp_accounting's PLD rounds every privacy loss to a grid of step Δ.  The pessimistic (connect-the-dots) PLD gives an
# ε that is an upper bound at every Δ and converges to the exact ε as Δ → 0 (the error falls about like Δ²); the
# optimistic (privacy-buckets, rounding down) PLD gives a lower bound, but its error is about T·Δ/2, so it is loose for
# long compositions.  :func:`pld_bracket` refines Δ until the pessimistic ε changes by less than ``rel_tol`` between
# two grids, within a time and a memory budget that are checked *before* any work is done, and reports both bounds.

#: Largest PLD grid (number of points of one array) dpviz builds: about 8 MB of float64 per array, about a second of work.
PLD_MAX_POINTS = 2**20
#: Work budget of one PLD ε, in grid points summed over the grids evaluated (about 2 µs each on one core, so about
#: half a second); a refinement is started only if its predicted size (the last grid's points × the refinement factor)
#: fits.  Counting points, not seconds, keeps every answer reproducible whatever the machine's load.
PLD_BUDGET = 250_000
#: Coarsest grid step tried first (then 4× finer: dp_accounting's former fixed grid 1e-3 is the second one).
_PLD_START = 4e-3


class PldTooLarge(ValueError):
    """The PLD of this mechanism needs more grid points than :data:`PLD_MAX_POINTS` even at a coarse grid (tiny
    noise, or a huge number of compositions); the message carries the estimate.  Callers fall back to RDP."""


def _pld_std(z: float, q: float, steps: int, replace: bool) -> float:
    """Standard deviation of the (single, un-composed) Gaussian PLD that dp_accounting builds: for q = 1 it composes
    the T Gaussians analytically into one with std z/√T; a replace-one Poisson step is a shift of ±1 at std 2z."""
    if q >= 1.0:
        return z / math.sqrt(steps)
    return 2.0 * z if replace else z


def _pld_single_points(z: float, q: float, steps: int, replace: bool, interval: float) -> float:
    """An upper estimate of the grid points of one step's PLD at step ``interval``: the Gaussian noise is truncated at
    mass e^-50 (about ±10 standard deviations s), where the privacy loss (2x − 1)/(2s²) spans (1 + 20s)/s²
    (sub-sampling only narrows it)."""
    s = _pld_std(z, q, steps, replace)
    return (1.0 + 20.0 * s) / (s * s) / interval + 2.0


def _pld_single(z: float, q: float, steps: int, replace: bool, interval: float, pessimistic: bool):
    """(pmf_remove, pmf_add or None) of one step, as dense dp_accounting PMFs."""
    import dp_accounting
    from dp_accounting.pld import privacy_loss_distribution as pld_mod

    rel = dp_accounting.NeighboringRelation
    kw = dict(pessimistic_estimate=pessimistic, value_discretization_interval=interval,
              use_connect_dots=pessimistic)
    if q >= 1.0:
        pld = pld_mod.from_gaussian_mechanism(z / math.sqrt(steps), **kw)
    else:
        pld = pld_mod.from_gaussian_mechanism(2.0 * z if replace else z, sampling_prob=q,
                                              neighboring_relation=rel.REPLACE_ONE if replace
                                              else rel.ADD_OR_REMOVE_ONE, **kw)
    remove = pld._pmf_remove.to_dense_pmf()
    add = None if pld._symmetric else pld._pmf_add.to_dense_pmf()
    return remove, add


def _composed_points(pmfs, steps: int, q: float) -> int:
    """Length of the longest array the T-fold self-composition will allocate (dp_accounting's own Chernoff bounds on
    the truncated support, computed before the FFT), or the single PMF's length when nothing is composed."""
    from dp_accounting.pld import common

    out = 0
    for pmf in pmfs:
        if pmf is None:
            continue
        n = len(pmf._probs)
        if q < 1.0 and steps > 1:
            lo, hi = common.compute_self_convolve_bounds(pmf._probs, steps, 1e-15)
            n = max(n, hi - lo + 1)
        out = max(out, n)
    return out


def _pld_eps_from(pmfs, steps: int, q: float, delta: float, pessimistic: bool = True) -> float:
    """ε of the composed PLD of dp_accounting's one-step PMFs, composed by :func:`dpviz.theory.pld_lower._compose_eps`
    (an FFT on exponentially tilted PMFs whose numerical error is bounded and charged to δ; raises
    :class:`dpviz.theory.pld_lower.Unsettled` where no tilt resolves δ) instead of dp_accounting's plain FFT, whose
    rounding noise (about 10⁻¹⁶ of the peak, times T) can exceed δ unseen: at q = 10⁻⁶, 10⁶ steps, δ = 10⁻¹², z = 0.55
    dp_accounting's PLD gives ε = 0.733 at grid 10⁻², 9.48 at 10⁻³, where its RDP gives 3.43."""
    from dpviz.theory import pld_lower

    out = 0.0
    for pmf in pmfs:
        if pmf is None:
            continue
        k = steps if q < 1.0 else 1
        e = pld_lower._compose_eps(int(pmf._lower_loss), pmf._probs, float(pmf._discretization),
                                   float(pmf._infinity_mass), k, delta, pessimistic)
        out = max(out, e)
    return out if math.isfinite(out) else math.inf


@functools.lru_cache(maxsize=1024)
def _pld_eval(z: float, delta: float, steps: int, q: float, replace: bool, interval: float,
              pessimistic: bool) -> tuple[float, float, int]:
    """(ε, seconds, points) of the PLD at grid step ``interval``; raises :class:`PldTooLarge` before allocating more
    than :data:`PLD_MAX_POINTS` points."""
    import time

    t0 = time.perf_counter()
    single = _pld_support(z, steps, q, replace)[0] / interval
    if single > PLD_MAX_POINTS:
        raise PldTooLarge(f"the PLD of one step would need about {single:.3g} grid points at step {interval:g} "
                          f"(at most {PLD_MAX_POINTS:.3g})")
    pmfs = _pld_single(z, q, steps, replace, interval, pessimistic)
    points = _composed_points(pmfs, steps, q)
    if points > PLD_MAX_POINTS:
        raise PldTooLarge(f"composing {steps} steps would need about {points:.3g} grid points at step {interval:g} "
                          f"(at most {PLD_MAX_POINTS:.3g})")
    eps = _pld_eps_from(pmfs, steps, q, delta, pessimistic)
    return eps, time.perf_counter() - t0, points


@dataclass
class PldBracket:
    """ε of one PLD computation with its error bar.

    ``eps_upper`` — pessimistic (connect-the-dots) PLD at the finest grid reached: an upper bound, safe to claim;
    ``eps_lower`` — optimistic (privacy-buckets) PLD at that grid: a lower bound on the exact ε (None if not computed
    within the budget); ``eps_estimate`` — the pessimistic values extrapolated to Δ → 0 (error ∝ Δ²), never below
    ``eps_lower`` nor above ``eps_upper``: an estimate, not a bound; ``change`` — relative change of the upper bound
    between the last two grids; ``converged`` — ``change`` < ``rel_tol``; ``grid`` — the final grid step Δ."""

    eps_upper: float
    eps_lower: float | None
    eps_estimate: float
    grid: float
    change: float | None
    converged: bool
    seconds: float
    points: int
    note: str = ""
    lower_from: str | None = None  # "pld-optimistic" or "prv"
    #: "rdp" when the PLD did not settle or contradicted RDP's valid upper bound and RDP's bound is reported instead
    fallback: str | None = None

    def as_dict(self) -> dict:
        return {k: getattr(self, k) for k in ("eps_upper", "eps_lower", "eps_estimate", "grid", "change",
                                              "converged", "seconds", "points", "note", "lower_from", "fallback")}


#: Grid points of the probe PLD that measures the support before any real work.
_PLD_PROBE_POINTS = 20_000
#: Coarsest grid step dpviz accepts for a PLD answer (coarser grids give ε far above the truth).
_PLD_COARSEST = 0.05


@functools.lru_cache(maxsize=1024)
def _pld_support(z: float, steps: int, q: float, replace: bool) -> tuple[float, float]:
    """(width of one step's privacy-loss support, width of the T-fold composition's support after dp_accounting's
    tail truncation), in loss units, measured on a probe PLD of about :data:`_PLD_PROBE_POINTS` points (milliseconds).
    Raises :class:`PldTooLarge` when even the probe cannot be built (noise so small that one step's loss spans more
    than 10⁶)."""
    from dp_accounting.pld import common

    analytic = _pld_single_points(z, q, steps, replace, 1.0)  # an upper estimate of one step's loss range
    probe = max(analytic / _PLD_PROBE_POINTS, 1e-4)
    if probe > 50.0:
        std = _pld_std(z, q, steps, replace)
        raise PldTooLarge(f"one step's privacy loss spans about {analytic:.3g} (noise std {std:.3g}), "
                          f"so a PLD at grid step 1e-3 would need about {analytic / 1e-3:.3g} points; the noise is too "
                          "small for a PLD here — RDP's ε is the upper bound to use.")
    pmfs = _pld_single(z, q, steps, replace, probe, True)
    single = max(len(p._probs) for p in pmfs if p is not None) * probe
    composed = single
    if q < 1.0 and steps > 1:
        for pmf in pmfs:
            if pmf is not None:
                lo, hi = common.compute_self_convolve_bounds(pmf._probs, steps, 1e-15)
                composed = max(composed, (hi - lo + 1) * probe)
    return single, composed


def pld_bracket(z: float, delta: float, steps: int, q: float, *, replace: bool = False, rel_tol: float = 0.01,
                budget: float = PLD_BUDGET, start: float = _PLD_START, lower: bool = True) -> PldBracket:
    """The PLD ε of T steps of the (Poisson-sub-sampled) Gaussian mechanism with noise multiplier ``z``, refined on
    finer grids until the pessimistic ε changes by less than ``rel_tol`` (relative), or until the next grid would not
    fit in the work ``budget`` (grid points summed over the grids; the next grid's size is predicted from the last
    one's) or in :data:`PLD_MAX_POINTS`.  Where the PLD bracket stays wider than ``rel_tol``, the PRV accountant
    (Gopi, Lee & Wutschitz 2021) adds its certified bounds when its grid fits the budget (Poisson add/remove only).

    The work is bounded before it starts: a probe PLD of about 20 000 points measures the width W of the composed
    privacy-loss support (:func:`_pld_support`), and a grid of step Δ costs about W/Δ points.  Raises
    :class:`PldTooLarge` (a ``ValueError``, with the estimate) when even a grid of step 0.05 would not fit: tiny noise
    makes one step's privacy loss span about 1/s² (s the noise's std)."""
    import time

    import dp_accounting  # noqa: F401  (import time is not the PLD's)

    t0 = time.perf_counter()
    if q < 1.0 and not replace and lower:
        try:
            return _tight_bracket(z, delta, steps, q, rel_tol, t0)
        except PldTooLarge:
            pass  # the tight grid does not fit (tiny noise, huge compositions): dp_accounting's own PLD below

    single, width = _pld_support(z, steps, q, replace)
    cap = PLD_MAX_POINTS / 4  # the first grid: a quarter of the memory limit
    interval = max(start, width / cap)
    if interval > _PLD_COARSEST:
        raise PldTooLarge(
            f"PLD not computed: the composed privacy loss spans about {width:.3g}, so a grid of step 1e-3 would need "
            f"about {width / 1e-3:.3g} points (this machine allows {PLD_MAX_POINTS:.3g}); the noise is too small (or "
            "the composition too long) for a PLD here — RDP's ε is the upper bound to use.")
    history: list[tuple[float, float]] = []
    points, note, change, work = 0, "", None, 0
    while True:
        try:
            eps, _dt, points = _pld_eval(z, delta, steps, q, replace, interval, True)
            work += points
        except Unsettled as exc:
            if not history:
                raise
            note = f"refinement stopped: {exc}"
            break
        except PldTooLarge as exc:
            if not history:
                raise PldTooLarge(f"PLD not computed: {exc}; RDP's ε is the upper bound to use.") from None
            note = f"refinement stopped: {exc}"
            break
        history.append((interval, eps))
        if not math.isfinite(eps):
            break
        if len(history) >= 2:
            (d1, e1), (d2, e2) = history[-2], history[-1]
            change = abs(e1 - e2) / e2 if e2 > 0 else (0.0 if e1 == 0 else math.inf)
            if change < rel_tol:
                break
            # error ∝ Δ²: aim the next change at rel_tol / 2, at least a factor 2 and at most 8 finer
            factor = min(max(math.sqrt(change / (rel_tol / 2.0)), 2.0), 8.0) if math.isfinite(change) else 8.0
        else:
            factor = 4.0
        left = budget - work
        if points * factor > left:
            factor = 2.0  # a smaller step may still fit
            if points * factor > left:
                note = f"refinement stopped by the work budget ({budget:.3g} grid points)"
                break
        nxt = interval / factor
        if max(single, width) / nxt > PLD_MAX_POINTS:
            note = f"refinement stopped by the memory limit ({PLD_MAX_POINTS:.3g} grid points)"
            break
        interval = nxt
    grid, upper = history[-1]
    estimate = upper
    if len(history) >= 2:
        (d1, e1), (d2, e2) = history[-2], history[-1]
        r2 = (d2 / d1) ** 2
        if math.isfinite(e1) and math.isfinite(e2):
            estimate = e2 - (e1 - e2) * r2 / (1.0 - r2)
    lo = None
    lower_from = None
    if lower and math.isfinite(upper):
        if work + points <= 1.5 * budget:
            try:
                lo = min(_pld_eval(z, delta, steps, q, replace, grid, False)[0], upper)
                lower_from = "pld-optimistic"
            except ValueError as exc:  # Unsettled: no lower bound at this grid
                note = (note + "; " if note else "") + f"no lower bound: {exc}"
            work += points
        else:
            note = (note + "; " if note else "") + "no work budget left for the optimistic (lower) PLD"
        if not replace and (lo is None or upper - lo > rel_tol * upper):
            prv = _prv_within(z, delta, steps, q, max(upper * rel_tol / 2.0, 1e-6), budget / 2)
            if prv is not None:
                if math.isfinite(prv[0]) and (lo is None or prv[0] > lo):
                    lo, lower_from = min(max(prv[0], 0.0), upper), "prv"
                if math.isfinite(prv[2]) and prv[2] < upper:
                    upper = prv[2]
                    note = (note + "; " if note else "") + "upper bound from the PRV accountant"
    estimate = min(max(estimate, lo if lo is not None else 0.0, 0.0), upper)
    converged = change is not None and change < rel_tol
    return PldBracket(upper, lo, estimate, grid, change, converged, time.perf_counter() - t0, points, note,
                      lower_from)


@functools.lru_cache(maxsize=1024)
def _prv(z: float, delta: float, steps: int, q: float, eps_error: float) -> tuple[float, float, float] | None:
    """(ε lower, ε estimate, ε upper) of the PRV accountant of Gopi, Lee & Wutschitz (2021), ``prv-accountant``
    package: certified bounds ε(δ) ∈ [lower, upper] (its discretisation error eps_error and δ error δ/1000 are
    accounted for).  Poisson add/remove (or full batch, q = 1) only.  None if it fails."""
    from prv_accountant import PRVAccountant
    from prv_accountant.privacy_random_variables import GaussianMechanism, PoissonSubsampledGaussianMechanism

    prv = (GaussianMechanism(noise_multiplier=z) if q >= 1.0
           else PoissonSubsampledGaussianMechanism(noise_multiplier=z, sampling_probability=q))
    try:
        acc = PRVAccountant(prvs=prv, max_self_compositions=steps, eps_error=eps_error, delta_error=delta / 1000)
        lo, est, hi = acc.compute_epsilon(delta=delta, num_self_compositions=steps)
    except (ValueError, RuntimeError, FloatingPointError, MemoryError, OverflowError):
        return None
    return float(lo), float(est), float(hi)


def _prv_points(z: float, delta: float, steps: int, q: float, eps_error: float) -> float:
    """Grid points the PRV accountant will use (its own domain-size rule: an RDP bound on the support over its mesh
    eps_error/√(T/2·log(12/δ_err))), computed before any work."""
    import numpy as np
    from prv_accountant.accountant import compute_safe_domain_size
    from prv_accountant.privacy_random_variables import GaussianMechanism, PoissonSubsampledGaussianMechanism

    prv = (GaussianMechanism(noise_multiplier=z) if q >= 1.0
           else PoissonSubsampledGaussianMechanism(noise_multiplier=z, sampling_probability=q))
    d_err = delta / 1000
    L = compute_safe_domain_size([prv], [steps], eps_error=eps_error, delta_error=d_err)
    mesh = eps_error / np.sqrt(steps / 2 * np.log(12 / d_err))
    return float(2.0 * L / mesh)


def _prv_within(z: float, delta: float, steps: int, q: float, eps_error: float, budget: float):
    """:func:`_prv` at the finest eps_error (from ``eps_error`` up, doubling) whose grid (predicted before any work)
    fits in ``budget`` points and :data:`PLD_MAX_POINTS`; None if none does by eps_error = 0.1."""
    try:
        while eps_error <= 0.1:
            pts = _prv_points(z, delta, steps, q, eps_error)
            if pts <= min(PLD_MAX_POINTS, budget):
                return _prv(z, delta, steps, q, eps_error)
            eps_error *= 2.0
    except (ValueError, RuntimeError, FloatingPointError, OverflowError, ImportError):
        return None
    return None


@functools.lru_cache(maxsize=1024)
def _pld_bracket_cached(z: float, delta: float, steps: int, q: float, replace: bool) -> PldBracket:
    return _checked_bracket(z, delta, steps, q, replace)


def _rdp_reference(z: float, delta: float, steps: int, q: float, replace: bool) -> float | None:
    """A valid upper bound on the same mechanism's ε from RDP (Poisson add/remove or full batch), to check a PLD
    against; None for Poisson replace-one (dp_accounting's RDP does not cover it)."""
    if replace and q < 1.0:
        return None
    e = _eps(z, delta, steps, q, "rdp")
    return e if math.isfinite(e) else None


def _join(*notes: str) -> str:
    return "; ".join(n for n in notes if n)


def _checked_bracket(z: float, delta: float, steps: int, q: float, replace: bool) -> PldBracket:
    """:func:`pld_bracket`, checked against a valid upper bound (RDP, :func:`_rdp_reference`), the fallback when it
    fails.  A PLD result is not trusted blindly (dp_accounting's own PLD is unstable at q = 10⁻⁶, 10⁶ steps,
    δ = 10⁻¹², z = 0.55: ε = 0.733 at grid 10⁻², 9.48 at 10⁻³, while its RDP gives 3.43):

    * when the composition cannot resolve δ at any grid tried (:class:`dpviz.theory.pld_lower.Unsettled`), the
      upper bound reported is RDP's, with no lower bound, ``fallback="rdp"``, ``converged=False`` and a note saying so;
    * when the PLD's lower bound exceeds RDP's upper bound (a contradiction: one of them is not a bound), the PLD is
      discarded the same way;
    * otherwise the upper bound is min(PLD upper, RDP) (both hold; ``fallback="rdp"`` when RDP's is the smaller).
    ``converged`` is true only when both ends exist and differ by at most 1 % of the upper end.
    Raises :class:`PldTooLarge` / :class:`Unsettled` (``ValueError``) where there is no RDP bound to fall back to."""
    import time

    t0 = time.perf_counter()
    rdp = _rdp_reference(z, delta, steps, q, replace)
    try:
        br = pld_bracket(z, delta, steps, q, replace=replace)
    except Unsettled as exc:
        if rdp is None:
            raise
        return PldBracket(rdp, None, rdp, None, None, False, time.perf_counter() - t0, 0,
                          f"PLD not settled at δ = {delta:.3g}: {exc}; the upper bound shown is RDP's ε (a valid "
                          "bound), with no certified lower bound", None, "rdp")
    if rdp is None or not math.isfinite(br.eps_upper):
        if rdp is not None and not math.isfinite(br.eps_upper):
            return PldBracket(rdp, None, rdp, br.grid, br.change, False, br.seconds, br.points,
                              _join(br.note, f"PLD certifies no finite ε at δ = {delta:.3g} (δ is below the "
                                             "probability mass its grid truncates); the upper bound shown is RDP's ε"),
                              None, "rdp")
        br.converged = br.eps_lower is not None and br.eps_upper - br.eps_lower <= 0.01 * br.eps_upper
        if br.eps_lower is not None and not br.converged and br.lower_from == "pld-optimistic":
            br.note = _join(br.note, f"the lower bound (rounded-down PLD) is loose: the bracket is "
                                     f"{(br.eps_upper - br.eps_lower) / max(br.eps_upper, 1e-300):.0%} of the upper "
                                     "end, not within 1 %")
        return br
    if br.eps_lower is not None and br.eps_lower > rdp * (1.0 + 1e-9) + 1e-12:
        return PldBracket(rdp, None, rdp, br.grid, br.change, False, br.seconds, br.points,
                          _join(br.note, f"the PLD's lower bound {br.eps_lower:.4g} exceeds RDP's upper bound "
                                         f"{rdp:.4g}, so the PLD is not reliable here: it is discarded and RDP's ε "
                                         "is shown as the upper bound"), None, "rdp")
    if rdp < br.eps_upper:
        br.note = _join(br.note, f"RDP's upper bound {rdp:.4g} is below the PLD's {br.eps_upper:.4g} here: it is "
                                 "the one shown")
        br.eps_upper, br.fallback = rdp, "rdp"
    if br.eps_lower is not None:
        br.eps_lower = min(br.eps_lower, br.eps_upper)
    br.eps_estimate = min(max(br.eps_estimate, br.eps_lower or 0.0), br.eps_upper)
    br.converged = br.eps_lower is not None and br.eps_upper - br.eps_lower <= 0.01 * br.eps_upper
    if br.eps_lower is not None and not br.converged and br.lower_from == "pld-optimistic":
        br.note = _join(br.note, f"the lower bound (rounded-down PLD) is loose: the bracket is "
                                 f"{(br.eps_upper - br.eps_lower) / max(br.eps_upper, 1e-300):.0%} of the upper "
                                 "end, not within 1 %")
    return br


def pld_epsilon_bracket(*, noise_multiplier, delta, steps, sampling_prob=1.0, neighbouring="add-remove") -> dict:
    """:func:`pld_bracket` with validated inputs (Poisson sampling or full batch), as a dict: ``eps_upper``,
    ``eps_lower``, ``eps_estimate``, ``grid``, ``change``, ``converged``, ``seconds``, ``points``, ``note``."""
    z = v.check_positive("noise_multiplier (sigma / sensitivity)", noise_multiplier)
    delta, steps, q = _check_general(delta, steps, sampling_prob, "poisson", neighbouring, "pld")
    return _pld_bracket_cached(z, delta, steps, q, neighbouring == "replace-one" and q < 1.0).as_dict()


# --------------------------------------------------------------------------------------------------------------
# Tight two-sided PLD for Poisson sampling under add/remove neighbours (issue 21, "ε with error bars").
#
# Upper bound: connect-the-dots PLD (dp_accounting's algorithm, vectorised in :mod:`dpviz.theory.pld_lower`); lower bound:
# the PLD of a post-processing of the mechanism whose privacy losses lie exactly on the grid (:mod:`dpviz.theory.pld_lower`).
# Both err by O(Δ²) per step, so a grid of step Δ ≈ ε/(16√T) brackets ε to about 1 % — where the optimistic
# (rounded-down) PLD loses up to T·Δ and the PRV accountant's certified grid needs tens of millions of points.

#: Grid points (the composed support divided by the grid step, summed over the grids tried) one tight bracket may use.
TIGHT_BUDGET = 2_000_000
#: Most exact intervals the lower-bound construction may build (a Python loop, about 10 µs each).
TIGHT_MAX_GROUPS = 60_000
#: Most points of one step's PLD on the tight grid (its composition may be several times longer).
TIGHT_MAX_POINTS = 2**20


@functools.lru_cache(maxsize=4096)
def _tight_eval(z: float, delta: float, steps: int, q: float, grid: float, which: str) -> float:
    """ε upper (connect-the-dots) or lower (merged-interval post-processing) bound at grid step ``grid``; the lower
    raises ``ValueError`` when it would need more than :data:`TIGHT_MAX_GROUPS` intervals."""
    from dpviz.theory import pld_lower

    if pld_lower.loss_span(z, q, steps, delta) / grid > TIGHT_MAX_POINTS:
        raise PldTooLarge(f"one step's PLD would need about {pld_lower.loss_span(z, q, steps, delta) / grid:.3g} "
                          f"grid points at step {grid:g} (at most {TIGHT_MAX_POINTS:.3g})")
    if which == "upper":
        try:
            return pld_lower.upper_epsilon(z, q, steps, delta, grid)
        except pld_lower.Unsettled:
            raise
        except ValueError as exc:  # the composition's FFT would not fit
            raise PldTooLarge(str(exc)) from None
    return pld_lower.lower_epsilon(z, q, steps, delta, grid, max_groups=TIGHT_MAX_GROUPS)


def _tight_lower(z: float, delta: float, steps: int, q: float, grid: float) -> tuple[float | None, str]:
    """(lower bound, where from): the merged-interval PLD, or dp_accounting's optimistic PLD where the former would
    need too many intervals."""
    try:
        return _tight_eval(z, delta, steps, q, grid, "lower"), "pld-merged"
    except ValueError:  # too many intervals, or the composition does not resolve delta (pld_lower.Unsettled)
        try:
            return _pld_eval(z, delta, steps, q, False, grid, False)[0], "pld-optimistic"
        except ValueError:
            return None, None


def _tight_start_grid(z: float, delta: float, steps: int, q: float) -> float:
    """First grid step: about ε/(10√T) (both bounds err by O(T·Δ²); at n = T = 50 000 and at n = 60 000, batch 256,
    60 epochs, Δ ≈ ε/(16√T) brackets ε to 1 %), ε from RDP, at most 10⁻³ (dp_accounting's default), and at most q:
    the lower bound merges outputs whose
    losses lie within a grid step, and one step's privacy loss mostly spans about q (a coarser grid merges it into a
    single atom of loss 0, which proves nothing)."""
    rdp = _rdp_eps(z, delta, steps, q)
    scale = rdp if 0.0 < rdp < math.inf else 1.0
    return min(scale / (10.0 * math.sqrt(steps)), q, 1e-3)


def _tight_bracket(z: float, delta: float, steps: int, q: float, rel_tol: float, t0: float) -> PldBracket:
    """:func:`pld_bracket` for Poisson sampling under add/remove neighbours: upper and lower bounds on one grid,
    refined (error ∝ Δ²) until they are within ``rel_tol`` of each other or the work budget is spent."""
    import time

    from dpviz.theory import pld_lower

    _pld_support(z, steps, q, False)  # refuses tiny noise (PldTooLarge) before any real work
    span = pld_lower.loss_span(z, q, steps, delta)
    grid = max(_tight_start_grid(z, delta, steps, q), span / TIGHT_MAX_POINTS)
    if grid > _PLD_COARSEST:
        raise PldTooLarge(
            f"PLD not computed: one step's privacy loss spans about {span:.3g}, so a grid of step 1e-3 would need "
            f"about {span / 1e-3:.3g} points (at most {TIGHT_MAX_POINTS:.3g}); the noise is too small for a PLD "
            "here — RDP's ε is the upper bound to use.")
    width = span
    work, note, history = 0.0, "", []
    while True:
        try:
            up = _tight_eval(z, delta, steps, q, grid, "upper")
        except Unsettled as exc:
            if not history:
                raise
            note = f"refinement stopped: {exc}"
            break
        except PldTooLarge as exc:
            if not history:
                raise PldTooLarge(f"PLD not computed: {exc}; RDP's ε is the upper bound to use.") from None
            note = f"refinement stopped: {exc}"
            break
        lo, lower_from = _tight_lower(z, delta, steps, q, grid) if math.isfinite(up) else (None, None)
        work += width / grid
        history.append((grid, up, lo, lower_from))
        if not math.isfinite(up) or lo is None:
            break
        w = (up - lo) / up if up > 0 else 0.0
        if w <= rel_tol:
            break
        nxt = grid / min(max(math.sqrt(w / (0.5 * rel_tol)), 1.5), 8.0)
        if work + width / nxt > TIGHT_BUDGET:
            nxt = grid / 1.5
            if work + width / nxt > TIGHT_BUDGET:
                note = f"refinement stopped by the work budget ({TIGHT_BUDGET:.3g} grid points)"
                break
        if span / nxt > TIGHT_MAX_POINTS:
            note = f"refinement stopped by the memory limit ({TIGHT_MAX_POINTS:.3g} grid points per step)"
            break
        grid = nxt
    grid, up, lo, lower_from = history[-1]
    change = None
    if len(history) >= 2 and history[-1][1] > 0:
        change = abs(history[-2][1] - up) / up
    if lo is not None:
        lo = min(max(lo, 0.0), up)
    estimate = up if lo is None else 0.5 * (up + lo)
    converged = lo is not None and up - lo <= rel_tol * up
    if not math.isfinite(up):
        lo, estimate, converged = None, up, False
    return PldBracket(up, lo, estimate, grid, change, converged, time.perf_counter() - t0, int(span / grid), note,
                      lower_from)


def _tight_sigma(eps: float, delta: float, steps: int, q: float, rtol: float, t0: float) -> dict:
    """ε → z with a certified bracket, Poisson add/remove: ``z_upper`` is a z with upper ε(z) <= eps (certainly
    enough noise) and ``z_lower`` one with lower ε(z) > eps (certainly too little: the true ε decreases in z), each
    within about ``max(rtol, 2·10⁻³)`` (relative, in z) of where its bound crosses eps, on a grid that brackets ε(z)
    to 1 % there.

    The search runs by secant steps on (log z, log ε): first on the upper bound at a grid 4× coarser (cheap; it
    locates the answer — RDP's z can be far off: at n = T = 50 000 and ε = 1 it is 0.75 where 0.49 suffices), then on
    each bound at the fine grid from there, refining the grid (error ∝ Δ²) while the ε bracket at ``z_upper`` is wider
    than 1 %."""
    import time

    from dpviz.theory import pld_lower

    try:
        z0 = _solve(eps, delta, steps, q, "rdp", 1e-6)
    except ValueError:
        z0 = max(q * math.sqrt(steps * math.log(1.0 / delta)) / eps, 0.5)
    _pld_support(z0, steps, q, False)  # refuses tiny noise (PldTooLarge) before any real work
    tol = math.log1p(max(rtol, 2e-3))
    grid = min(eps / (10.0 * math.sqrt(steps)), q, 1e-3)
    grid = max(grid, pld_lower.loss_span(z0, q, steps, delta) / TIGHT_MAX_POINTS)

    def bound(which, g):
        def f(z):
            if pld_lower.loss_span(z, q, steps, delta) / g > TIGHT_MAX_POINTS:
                raise PldTooLarge(f"one step's PLD would need more than {TIGHT_MAX_POINTS} points at grid {g:g}")
            return _tight_eval(z, delta, steps, q, g, which)
        return f

    def safe(f):  # for the upper search: a PLD that does not fit counts as "too little noise"
        def g_(z):
            try:
                return f(z)
            except PldTooLarge:
                return math.inf
        return g_

    coarse = min(4.0 * grid, _PLD_START)
    up_c = safe(bound("upper", coarse))
    slope = _rdp_slope(z0, delta, steps, q)
    zc = _bracket_root(up_c, eps, z0, up_c(z0), slope, math.log1p(0.01), certify="below")
    e1, e2 = up_c(zc), up_c(zc * 0.98)
    if 0.0 < e1 < e2 < math.inf:
        slope = min(max(math.log(e2 / e1) / math.log(0.98), -50.0), -0.05)
    z_up = z_low = None
    note = ""
    for _ in range(3):
        up = safe(bound("upper", grid))
        z_up = _bracket_root(up, eps, z_up or zc, up(z_up or zc), slope, tol, certify="below")
        try:
            lo = bound("lower", grid)
            z_low = _bracket_root(lo, eps, z_up, lo(z_up), slope, tol, certify="above")
        except (ValueError, PldTooLarge) as exc:  # PldTooLarge is a ValueError
            z_low, note = None, f"no lower end: {exc}"
            break
        e_up, e_lo = up(z_up), lo(z_up)
        w = (e_up - e_lo) / e_up if e_up > 0 else 0.0
        if w <= 0.01:
            break
        nxt = grid / min(max(math.sqrt(w / 0.005), 1.5), 8.0)
        if pld_lower.loss_span(z_up, q, steps, delta) / nxt > TIGHT_MAX_POINTS:
            note = "grid refinement stopped by the memory limit"
            break
        grid = nxt
    e_up = _tight_eval(z_up, delta, steps, q, grid, "upper")
    converged = z_low is not None and (e_up - _tight_eval(z_up, delta, steps, q, grid, "lower")) <= 0.01 * e_up
    return {"z_upper": z_up, "z_lower": z_low, "eps_at_z_upper": e_up, "grid": grid, "converged": converged,
            "seconds": time.perf_counter() - t0, "note": note}


def _bracket_root(f, target: float, z0: float, f0: float, slope: float, tol: float, certify: str) -> float:
    """For f decreasing in z: a z with f(z) <= target within about ``tol`` (in log z) of the crossing
    (``certify="below"``: the noise certainly suffices), or with f(z) > target (``certify="above"``: certainly too
    little), by secant / regula falsi (Illinois) on g(log z) = log f(z) − log target, started from (z0, f(z0)) with
    ``slope`` = d log f / d log z (< 0).  Every returned z has been evaluated, so its side of the target is certain."""
    lt = math.log(target)

    def g_of(e):
        if e <= 0.0:
            return -math.inf
        return math.log(e) - lt if math.isfinite(e) else math.inf

    def g(lz):
        return g_of(f(math.exp(lz)))

    m = 0.5 * tol * -slope * (1.0 if certify == "below" else -1.0)  # aim just inside the certified side
    close = tol * -slope  # |g| below this: within about tol of the crossing
    a = b = None  # a: log z with g > 0 (too little noise), b: g <= 0
    ga = gb = 0.0
    lz, gz = math.log(z0), g_of(f0)
    for _ in range(40):
        if gz > 0:
            a, ga = lz, gz
            if certify == "above" and gz <= close:
                return math.exp(a)
        else:
            b, gb = lz, gz
            if certify == "below" and gz >= -close:
                return math.exp(b)
        if a is not None and b is not None:
            break
        if math.isfinite(gz):
            d = (gz + m) / -slope
            d = min(d, -tol) if gz <= 0 else max(d, tol)
        else:
            d = 1.0 if gz > 0 else -1.0
        lz += d
        if abs(lz) > 40:
            raise ValueError(f"the noise search found no noise multiplier in its range [e^-40, e^40] = "
                             f"[{math.exp(-40):.3g}, {math.exp(40):.3g}] whose bound crosses {target:g}")
        gz = g(lz)
    else:
        raise ValueError(f"the noise search found no bracket around {target:g} in 40 steps from z = {z0:.4g}")
    side = 0
    for _ in range(30):
        if b - a <= tol:
            break
        if math.isfinite(ga) and math.isfinite(gb) and ga != gb:
            c = b - gb * (b - a) / (gb - ga) + (m / -slope if side == 0 else 0.0)
        else:
            c = 0.5 * (a + b)
        if not a < c < b:
            c = 0.5 * (a + b)
        gc = g(c)
        if gc > 0:
            a, ga = c, gc
            if certify == "above" and gc <= close:
                break
            if side == -1:
                gb /= 2.0
            side = -1
        else:
            b, gb = c, gc
            if certify == "below" and gc >= -close:
                break
            if side == 1:
                ga /= 2.0
            side = 1
    return math.exp(b) if certify == "below" else math.exp(a)
