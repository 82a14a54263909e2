"""Small helpers shared by the paper modules of :mod:`dpviz.theory.papers` (one place for each of them).

Only logic that is literally the same in several papers lives here: the ``log(1/δ)`` factor, the standard normal
CDF Φ, the exact δ(ε) of the Gaussian mechanism (used to flag where a paper's ε < 1 lemma is too weak), the check of
a failure probability γ (or γ = δ/2 by default), and the optimal private rate ``1/√n + √(d log(1/δ))/(nε)`` of the comparison tables.  This
module is not a paper: it defines no ``PAPER`` and is not listed in :data:`dpviz.theory.catalog.PAPER_MODULES`.
"""

from __future__ import annotations

import math

from dpviz.foundation import validate as v

__all__ = ["log_inv", "exp_or_inf", "normal_cdf", "gaussian_exact_delta", "check_gamma", "gamma_from", "rate_opt"]


def log_inv(delta: float) -> float:
    """``log(1/δ)``, the factor of every (ε, δ)-DP rate."""
    return math.log(1.0 / delta)


def exp_or_inf(x: float) -> float:
    """``exp(x)``, or ``inf`` where it would overflow (x > 709)."""
    if x > 709.0:
        return math.inf
    return math.exp(x)


def normal_cdf(x: float) -> float:
    """Φ(x), the standard normal CDF, by ``erfc`` (accurate in both tails)."""
    return 0.5 * math.erfc(-x / math.sqrt(2.0))


def gaussian_exact_delta(eps: float, s: float) -> float:
    """Exact δ(ε) of the Gaussian mechanism with noise σ = s·Δ (Balle & Wang 2018, Theorem 8):
    Φ(1/(2s) − εs) − e^ε Φ(−1/(2s) − εs), clipped at 0 (where e^ε overflows the second term is taken as 0)."""
    a, b = 1.0 / (2.0 * s), eps * s
    return max(0.0, normal_cdf(a - b) - exp_or_inf(eps) * normal_cdf(-a - b))


def check_gamma(gamma) -> float:
    """γ, a failure probability of a high-probability bound, in (0, 1)."""
    return v.check_open_unit("gamma (the failure probability)", gamma)


def gamma_from(gamma, delta) -> float:
    """γ if given, else δ/2: the failure probability of a high-probability sensitivity bound, which the papers'
    output-perturbation proofs charge to the δ of (ε, δ)-DP (Yang, Lei, Lyu & Ying (yang-pairwise), proof of
    Theorem 4; Wang, Lei, Ying & Zhang (wang-nonsmooth), Algorithm 1)."""
    if gamma is None:
        if delta is None:
            raise ValueError("give gamma (the failure probability of the stability bound) or delta (then gamma = delta/2).")
        return v.check_delta(delta) / 2.0
    return check_gamma(gamma)


def rate_opt(*, n, d, eps, delta) -> float:
    """The optimal (ε, δ)-DP excess-risk rate of convex Lipschitz SCO, ``1/√n + √(d log(1/δ))/(nε)``."""
    return 1.0 / math.sqrt(n) + math.sqrt(d * log_inv(delta)) / (n * eps)
