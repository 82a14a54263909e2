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

from dpviz.foundation import validate as v

__all__ = ["delta_of", "log_delta_of", "sigma_for", "classical_sigma", "SIGMA_RULES", "check_sigma_rule",
           "compare_with_paper", "choose_sigma", "NOT_PRIVATE_LABEL", "total_variation"]

#: How a closed-form Gaussian calibration picks its released sigma: "private" (default) the smallest sigma that is
#: (eps, delta)-DP by the exact check (:func:`sigma_for`), "printed" the paper's own formula.
SIGMA_RULES = ("private", "printed")

_MAX_BRACKET_STEPS = 200  # doublings/halvings of sigma before giving up (2^200 covers every finite float ratio we meet)
_MAX_BISECTION_STEPS = 200


def total_variation(*, noise_multiplier, sampling_prob=1.0, steps=1) -> float:
    r"""An upper bound on the total variation distance between the outputs of ``steps`` compositions of the
    (sub-sampled) Gaussian mechanism on two neighbouring data sets — the exact quantity behind "ε = 0".

    One step: the neighbouring outputs are (1 − q)·N(0, z²) + q·N(1, z²) against N(0, z²) (Poisson sampling with
    probability q, sensitivity 1, noise multiplier z; q = 1 without sampling; also sampling without replacement
    under replace-one with q = m/n and z = σ/Δ, the differing example being in the batch with probability q), whose
    total variation is exactly

    .. math:: \mathrm{TV}_1 = q\,\mathrm{TV}(N(1, z^2), N(0, z^2)) = q\,(2\Phi(1/(2z)) - 1)
              = q\,\operatorname{erf}(1/(2\sqrt2 z)).

    For T compositions of product form, TV ≤ 1 − (1 − TV₁)^T (the coupling of each coordinate); without sampling
    (q = 1) the T shifts add up to one Gaussian shift √T, and TV = 2Φ(√T/(2z)) − 1 exactly.  A mechanism is
    (0, δ)-DP exactly when TV ≤ δ, so dpviz certifies ε = 0 only when this bound is ≤ δ (issue 31: a rounded Rényi
    divergence of −1.8·10⁻¹⁷ had "certified" ε = 0 at n = 60 000, batch 256, one step, z = 10⁸, δ = 10⁻¹², where
    TV₁ = 1.7·10⁻¹¹ > δ)."""
    z = v.check_positive("noise_multiplier (sigma / sensitivity)", noise_multiplier)
    q = v.check_real("sampling_prob", sampling_prob)
    if not 0.0 < q <= 1.0:
        raise ValueError(f"sampling_prob must lie in (0, 1], got {q:g}.")
    steps = v.check_int("steps (number of compositions)", steps)
    if q == 1.0:  # no sampling: T Gaussians of shift 1 each are one Gaussian of shift sqrt(T): exact
        return math.erf(math.sqrt(steps) / (2.0 * math.sqrt(2.0) * z))
    tv1 = q * math.erf(1.0 / (2.0 * math.sqrt(2.0) * z))
    if tv1 >= 1.0:
        return 1.0
    return min(1.0, -math.expm1(steps * math.log1p(-tv1)))


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


def check_sigma_rule(sigma_rule) -> str:
    """``sigma_rule`` must be one of :data:`SIGMA_RULES`."""
    if sigma_rule not in SIGMA_RULES:
        raise ValueError(
            f"sigma_rule must be 'private' (the smallest sigma that is (eps, delta)-DP by the exact Gaussian check) "
            f"or 'printed' (the paper's formula, possibly not private), got {sigma_rule!r}."
        )
    return sigma_rule


def compare_with_paper(*, eps, delta, sensitivity, sigma_paper, check: str) -> dict:
    r"""The exact check of a paper's closed-form Gaussian σ, as the machine-readable fields of
    :class:`dpviz.theory.catalog.Calibration` ``extras``.

    Parameters
    ----------
    eps, delta : the (ε, δ) the Gaussian step must meet (for a high-probability sensitivity: the δ left after the
        failure probability, e.g. δ/2).
    sensitivity : Δ of the released quantity (√T·Δ for T composed steps).
    sigma_paper : the σ the paper prints.
    check : a short description of the check, stored as ``privacy_check``.

    Returns
    -------
    dict with ``sigma_private`` (:func:`sigma_for`), ``sigma_paper``, ``paper_exact_delta`` (:func:`delta_of` at the
    paper's σ), ``paper_sigma_private`` (bool: that δ is at most the target) and ``privacy_check``.
    """
    sigma_paper = v.check_positive("sigma_paper", sigma_paper)
    private = sigma_for(eps, delta, sensitivity)
    exact = delta_of(sigma_paper, sensitivity, eps)
    return {
        "sigma_private": private,
        "sigma_paper": sigma_paper,
        "paper_exact_delta": exact,
        "paper_sigma_private": bool(exact <= delta * (1.0 + 1e-9)),
        "privacy_check": check,
    }


#: The label of a paper's σ that fails the exact check (shown by the UI and the CLI beside the private σ).
NOT_PRIVATE_LABEL = "as printed — not (ε, δ)-DP here"


def choose_sigma(cmp: dict, sigma_rule: str, *, eps: float, delta: float, what: str) -> dict:
    """Apply ``sigma_rule`` to the result of :func:`compare_with_paper`.

    Returns a dict with ``sigma`` (the released σ), ``feasible`` (True only when that σ passes the exact check),
    ``notes`` (a list: says when the paper's σ is not private), ``reason`` and ``fix`` (non-empty only when the
    released σ is not private).  The rule of dpviz: *feasible* means (ε, δ)-DP by the tightest check dpviz has.
    """
    sigma_rule = check_sigma_rule(sigma_rule)
    notes: list[str] = []
    reason = fix = ""
    if not cmp["paper_sigma_private"]:
        notes.append(
            f"{what}: the paper's sigma = {cmp['sigma_paper']:.4g} is {NOT_PRIVATE_LABEL}: its exact delta "
            f"(Balle & Wang 2018, Thm 8; {cmp['privacy_check']}) is {cmp['paper_exact_delta']:.3g} > {delta:.3g} at "
            f"eps = {eps:g}; (eps, delta)-DP needs sigma >= {cmp['sigma_private']:.4g}."
        )
    else:
        notes.append(
            f"{what}: the paper's sigma = {cmp['sigma_paper']:.4g} is private (exact delta "
            f"{cmp['paper_exact_delta']:.3g} <= {delta:.3g}); the analytic Gaussian mechanism needs only "
            f"sigma = {cmp['sigma_private']:.4g}."
        )
    if sigma_rule == "private":
        return {"sigma": cmp["sigma_private"], "feasible": True, "notes": notes, "reason": reason, "fix": fix}
    if not cmp["paper_sigma_private"]:
        reason = (
            f"sigma as printed by the paper ({cmp['sigma_paper']:.4g}) — not (eps, delta)-DP here: exact delta "
            f"{cmp['paper_exact_delta']:.3g} > {delta:.3g}"
        )
        fix = f"use sigma_rule='private' (sigma = {cmp['sigma_private']:.4g}, the exact Gaussian calibration)"
    return {"sigma": cmp["sigma_paper"], "feasible": bool(cmp["paper_sigma_private"]), "notes": notes,
            "reason": reason, "fix": fix}
