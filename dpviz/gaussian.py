r"""The exact (analytic) Gaussian mechanism of Balle & Wang (2018).

Balle, B. and Wang, Y.-X., "Improving the Gaussian mechanism for differential privacy: analytical calibration and
optimal denoising", ICML 2018, Theorem 8: the Gaussian mechanism ``M(x) = f(x) + N(0, σ² I)`` with global
ℓ2-sensitivity Δ is (ε, δ)-DP **if and only if**

.. math:: \Phi\Big(\frac{\Delta}{2\sigma} - \frac{\epsilon\sigma}{\Delta}\Big)
          - e^{\epsilon}\,\Phi\Big(-\frac{\Delta}{2\sigma} - \frac{\epsilon\sigma}{\Delta}\Big) \le \delta .

The left-hand side is the exact δ(ε) of the mechanism (:func:`delta_of`); it decreases strictly in σ, so the
smallest private σ (:func:`sigma_for`) is its unique root, which is what Balle & Wang's Algorithm 1 computes (they
search a reparametrisation by bisection; dpviz searches log σ directly with the same monotonicity, which gives the
same σ to the requested relative tolerance).  Unlike the classical calibration
``σ = Δ√(2 ln(1.25/δ))/ε`` (Dwork & Roth 2014, Thm A.1, proved for ε < 1 only) it is valid for every ε > 0 and is
never larger than needed.

Composition.  T adaptive Gaussian mechanisms, each with sensitivity Δ and noise σ, are together exactly as private as
one Gaussian mechanism with sensitivity √T·Δ and noise σ (Dong, Roth & Su 2019, Cor. 3.3: μ-GDP with μ = √T Δ/σ).
So ``delta_of(sigma, sqrt(T) * Delta, eps)`` is the exact δ of the composition and
``sigma_for(eps, delta, sqrt(T) * Delta)`` its smallest private per-step σ.

Numerics.  Both terms are evaluated in log space with ``scipy.special.log_ndtr``:
δ = Φ(x₁) · (1 − exp(ε + log Φ(x₂) − log Φ(x₁))), the bracket evaluated with ``expm1``, so that δ down to 1e-300
(and the difference of two nearly equal terms at large ε) keeps full relative precision.
"""

from __future__ import annotations

import math

from dpviz import _validate as v

__all__ = ["delta_of", "log_delta_of", "sigma_for", "classical_sigma"]

_MAX_BRACKET_STEPS = 200  # doublings/halvings of sigma before giving up (2^200 covers every finite float ratio we meet)
_MAX_BISECTION_STEPS = 200


def _check_eps(eps) -> float:
    eps = v.check_real("eps", eps)
    if eps < 0:
        raise ValueError(f"eps (the privacy budget epsilon) must be non-negative, got {eps:g}.")
    return eps


def _log_delta(sigma: float, sensitivity: float, eps: float) -> float:
    from scipy.special import log_ndtr

    a = sensitivity / (2.0 * sigma)
    b = eps * sigma / sensitivity
    l1 = float(log_ndtr(a - b))
    l2 = float(log_ndtr(-a - b))
    gap = eps + l2 - l1  # log of (second term / first term); < 0 always (Theorem 8's δ is positive)
    if not math.isfinite(l1):
        return -math.inf
    if gap >= 0.0:  # only through rounding when both terms are equal to machine precision
        return -math.inf
    return l1 + math.log(-math.expm1(gap))


def log_delta_of(sigma, sensitivity, eps) -> float:
    """Natural log of :func:`delta_of` (finite far below the smallest positive float's δ)."""
    sigma = v.check_positive("sigma (the Gaussian noise standard deviation)", sigma)
    sensitivity = v.check_positive("sensitivity (the l2-sensitivity Delta)", sensitivity)
    eps = _check_eps(eps)
    return _log_delta(sigma, sensitivity, eps)


def delta_of(sigma, sensitivity, eps) -> float:
    r"""Exact δ(ε) of the Gaussian mechanism with noise σ and ℓ2-sensitivity Δ (Balle & Wang 2018, Theorem 8).

    .. math:: \delta(\epsilon) = \Phi\Big(\frac{\Delta}{2\sigma} - \frac{\epsilon\sigma}{\Delta}\Big)
              - e^{\epsilon}\,\Phi\Big(-\frac{\Delta}{2\sigma} - \frac{\epsilon\sigma}{\Delta}\Big).

    The mechanism is (ε, δ')-DP exactly when δ' >= this value.

    Parameters
    ----------
    sigma : float
        Standard deviation of the noise per coordinate (> 0).
    sensitivity : float
        Global ℓ2-sensitivity Δ of the released quantity (> 0); use √T·Δ for T composed mechanisms.
    eps : float
        ε >= 0.
    """
    return math.exp(log_delta_of(sigma, sensitivity, eps))


def classical_sigma(eps, delta, sensitivity) -> float:
    r"""The classical calibration σ = Δ√(2 ln(1.25/δ))/ε (Dwork & Roth 2014, Theorem A.1; proved for ε < 1)."""
    eps = v.check_eps(eps)
    delta = v.check_delta(delta)
    sensitivity = v.check_positive("sensitivity (the l2-sensitivity Delta)", sensitivity)
    return sensitivity * math.sqrt(2.0 * math.log(1.25 / delta)) / eps


def sigma_for(eps, delta, sensitivity, *, rtol: float = 1e-12) -> float:
    r"""The smallest σ with :func:`delta_of` (σ, Δ, ε) <= δ: the analytic Gaussian mechanism (Balle & Wang 2018,
    Algorithm 1).

    δ(σ) decreases strictly from 1 (σ → 0) to 0 (σ → ∞), so the root is unique.  dpviz brackets it by doubling /
    halving σ from the classical σ (at most 200 steps each way) and bisects on log σ until the bracket is within
    ``rtol`` (relative), comparing log δ(σ) with log δ.  The returned σ is the upper end of the final bracket, so
    ``delta_of(sigma_for(eps, delta, Δ), Δ, eps) <= delta`` always holds.

    Parameters
    ----------
    eps : float
        ε > 0.
    delta : float
        δ in (0, 1).
    sensitivity : float
        ℓ2-sensitivity Δ > 0 (√T·Δ for T composed mechanisms).
    rtol : float
        Relative width of the final bracket, in (0, 0.1].

    Raises
    ------
    ValueError
        On invalid inputs, or if no finite bracket is found (only for inputs at the edge of floating point).
    """
    eps = v.check_eps(eps)
    delta = v.check_delta(delta)
    sensitivity = v.check_positive("sensitivity (the l2-sensitivity Delta)", sensitivity)
    rtol = v.check_positive("rtol", rtol)
    if rtol > 0.1:
        raise ValueError(f"rtol (relative tolerance of sigma) must be at most 0.1, got {rtol:g}.")
    target = math.log(delta)

    def private(s: float) -> bool:
        return _log_delta(s, sensitivity, eps) <= target

    start = sensitivity * math.sqrt(2.0 * math.log(1.25 / delta)) / eps
    if not (math.isfinite(start) and start > 0.0):
        raise ValueError(
            f"cannot start the search for sigma at eps = {eps:g}, delta = {delta:g}, sensitivity = {sensitivity:g}: "
            "the classical starting point is not a finite positive number; use less extreme values."
        )
    lo = hi = start
    if private(start):
        for _ in range(_MAX_BRACKET_STEPS):
            lo = hi / 2.0
            if lo <= 0.0 or not math.isfinite(lo):
                raise ValueError("sigma underflowed while searching for the analytic Gaussian noise; "
                                 "use less extreme eps / delta / sensitivity.")
            if not private(lo):
                break
            hi = lo
        else:
            raise ValueError("no sigma bracket found for the analytic Gaussian mechanism within 200 halvings.")
    else:
        for _ in range(_MAX_BRACKET_STEPS):
            hi = lo * 2.0
            if not math.isfinite(hi):
                raise ValueError("sigma overflowed while searching for the analytic Gaussian noise; "
                                 "use less extreme eps / delta / sensitivity.")
            if private(hi):
                break
            lo = hi
        else:
            raise ValueError("no sigma bracket found for the analytic Gaussian mechanism within 200 doublings.")
    for _ in range(_MAX_BISECTION_STEPS):
        if hi - lo <= rtol * hi:
            break
        mid = math.sqrt(lo * hi)
        if mid <= lo or mid >= hi:
            break
        if private(mid):
            hi = mid
        else:
            lo = mid
    return hi
