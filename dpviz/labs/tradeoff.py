"""Trade-off curves (f-DP): the least type II error a mechanism allows at each type I error.

A module of its own (issue 34) so that the privacy lab and the audits can use the curves without importing the
audit planner (:mod:`dpviz.labs.audit_planner` imports :mod:`dpviz.labs.canary_audit`, which imports
``privacy_lab``, which needs these curves).

A mechanism is f-DP when every test of D against D' has type II error β >= f(α) at type I error α (Dong, Roth & Su
2022, "Gaussian differential privacy", J. R. Stat. Soc. B).  (ε, δ)-DP is f_{ε,δ}-DP with
f_{ε,δ}(α) = max(0, 1 − δ − e^ε α, e^{−ε}(1 − δ − α)) (their eq. (5), Proposition 2.5); μ-GDP is
G_μ(α) = Φ(Φ⁻¹(1 − α) − μ) (Definition 2.7), the curve of telling N(0, 1) from N(μ, 1); T Gaussian releases of noise
multipliers z_t compose to μ = sqrt(Σ 1/z_t²) (Corollary 3.3); and the tight curve of a mechanism is the upper
envelope of the lines f_{ε, δ(ε)} of its privacy profile δ(ε) (Proposition 2.12), here from dp_accounting's PLD.
Where no PLD exists (sampling without replacement, replace-one: dp_accounting has RDP only), the curve comes from the
Rényi-DP curve ρ(λ) directly (:func:`tradeoff_rdp`): a valid, conservative lower bound on the true curve.
"""

from __future__ import annotations

import math
from typing import Sequence

import numpy as np
from scipy import optimize, stats

from dpviz.foundation import validate as v

__all__ = ["tradeoff_eps_delta", "tradeoff_gdp", "gdp_mu_of_gaussians", "gdp_delta", "gdp_epsilon", "gdp_mu_for",
           "tradeoff_from_profile", "tradeoff_pld", "tradeoff_rdp", "tradeoff_rdp_gaussian_wor",
           "RDP_TRADEOFF_CITATION"]


def _alphas(alpha) -> np.ndarray:
    a = np.asarray(alpha, float)
    if a.size == 0 or not np.all(np.isfinite(a)) or np.any(a < 0) or np.any(a > 1):
        raise ValueError("alpha (type I error) must lie in [0, 1].")
    return a


def _level(level) -> float:
    return v.check_level(level)


def _out(x):
    return float(x) if np.ndim(x) == 0 else x


# --- trade-off curves ------------------------------------------------------------------------------------------


def tradeoff_eps_delta(alpha, eps: float, delta: float):
    """f_{ε,δ}(α) = max(0, 1 − δ − e^ε α, e^{−ε}(1 − δ − α)): the least type II error an (ε, δ)-DP mechanism allows
    at type I error α (Dong, Roth & Su 2022, eq. (5) / Proposition 2.5; Kairouz, Oh & Viswanath 2015)."""
    a = _alphas(alpha)
    eps = v.check_real("eps", eps)
    if eps < 0:
        raise ValueError(f"eps must be >= 0, got {v.shown(eps)}.")
    delta = v.check_delta(delta, allow_zero=True)
    with np.errstate(over="ignore"):
        out = np.maximum(np.maximum(0.0, 1 - delta - math.exp(min(eps, 700.0)) * a), math.exp(-eps) * (1 - delta - a))
    return _out(out)


def tradeoff_gdp(alpha, mu: float):
    """G_μ(α) = Φ(Φ⁻¹(1 − α) − μ), the μ-GDP trade-off curve (Dong, Roth & Su 2022, Definition 2.7)."""
    a = _alphas(alpha)
    mu = v.check_real("mu", mu)
    if mu < 0:
        raise ValueError(f"mu must be >= 0, got {v.shown(mu)}.")
    return _out(stats.norm.cdf(stats.norm.isf(a) - mu))


def gdp_mu_of_gaussians(noise_multipliers: Sequence[float]) -> float:
    """μ of the composition of Gaussian releases with noise multipliers z_t = σ_t/Δ_t: sqrt(Σ 1/z_t²) (Dong, Roth &
    Su 2022, Corollary 3.3; one release is 1/z-GDP)."""
    z = np.asarray(noise_multipliers, float).ravel()
    if z.size == 0 or not np.all(np.isfinite(z)) or np.any(z <= 0):
        raise ValueError("noise multipliers must be positive finite numbers (at least one).")
    return float(np.sqrt(np.sum(1.0 / z**2)))


def gdp_delta(eps: float, mu: float) -> float:
    """δ(ε) = Φ(−ε/μ + μ/2) − e^ε Φ(−ε/μ − μ/2) of μ-GDP (Dong, Roth & Su 2022, Corollary 2.13)."""
    if mu <= 0:
        return 0.0
    # e^ε Φ(−ε/μ − μ/2) in logs (no overflow at large ε)
    b = math.exp(eps + stats.norm.logcdf(-eps / mu - mu / 2)) if eps < 1e4 else 0.0
    return max(0.0, float(stats.norm.cdf(-eps / mu + mu / 2) - b))


def gdp_epsilon(mu: float, delta: float) -> float:
    """The smallest ε with μ-GDP ⇒ (ε, δ)-DP: the root of :func:`gdp_delta` (0 when δ(0) <= δ)."""
    mu = v.check_real("mu", mu)
    if mu < 0:
        raise ValueError(f"mu must be >= 0, got {v.shown(mu)}.")
    delta = v.check_open_unit("delta", delta)
    if mu == 0 or gdp_delta(0.0, mu) <= delta:
        return 0.0
    hi = 1.0
    while gdp_delta(hi, mu) > delta:
        hi *= 2.0
    return float(optimize.brentq(lambda e: gdp_delta(e, mu) - delta, 0.0, hi, xtol=1e-12, rtol=1e-12))


def gdp_mu_for(eps: float, delta: float) -> float:
    """The μ whose μ-GDP is exactly (ε, δ)-DP (the inverse of :func:`gdp_epsilon` in μ)."""
    eps = v.check_real("eps", eps)
    delta = v.check_open_unit("delta", delta)
    if eps < 0:
        raise ValueError(f"eps must be >= 0, got {v.shown(eps)}.")
    hi = 1.0
    while gdp_delta(eps, hi) < delta:
        hi *= 2.0
    return float(optimize.brentq(lambda m: gdp_delta(eps, m) - delta, 1e-9, hi, xtol=1e-12))


def tradeoff_from_profile(alpha, eps_grid, delta_of_eps):
    """The trade-off curve sup_ε f_{ε, δ(ε)}(α) of a privacy profile sampled at ``eps_grid`` (ε >= 0, a symmetric
    curve; Dong, Roth & Su 2022, Proposition 2.12).  With a grid, a lower envelope of the tight curve (still a valid
    f-DP guarantee when δ(ε) are upper bounds)."""
    a = _alphas(alpha)
    e = np.asarray(eps_grid, float).ravel()
    d = np.asarray(delta_of_eps, float).ravel()
    if e.size == 0 or e.shape != d.shape or np.any(e < 0) or np.any(d < 0) or np.any(d > 1):
        raise ValueError("eps_grid (>= 0) and delta_of_eps (in [0, 1]) must be arrays of the same length.")
    ee = np.exp(np.minimum(e, 700.0))[:, None]
    lines = np.maximum(1 - d[:, None] - ee * a.ravel()[None, :], (1 - d[:, None] - a.ravel()[None, :]) / ee)
    out = np.maximum(lines.max(axis=0), 0.0).reshape(a.shape)
    return _out(out)


def tradeoff_pld(alpha, pld, *, eps_max: float | None = None, points: int = 400):
    """Trade-off curve of a mechanism from its dp_accounting ``PrivacyLossDistribution``: the envelope
    :func:`tradeoff_from_profile` of its privacy profile δ(ε) = ``pld.get_delta_for_epsilon`` (pessimistic PLD:
    an upper bound on δ(ε), so the curve is a valid f-DP guarantee) on ``points`` values of ε in [0, eps_max]
    (default: where δ(ε) falls below 10⁻¹²)."""
    a = _alphas(alpha)
    if eps_max is None:
        eps_max = max(1e-3, float(pld.get_epsilon_for_delta(1e-12)))
        if not math.isfinite(eps_max):
            eps_max = 50.0
    grid = np.linspace(0.0, float(eps_max), int(points))
    deltas = np.clip(np.asarray(pld.get_delta_for_epsilon(grid), float), 0.0, 1.0)
    return tradeoff_from_profile(a, grid, deltas)


#: how the RDP-based curve is obtained, in one sentence (shown beside the curve on the pages)
RDP_TRADEOFF_CITATION = (
    "a valid lower bound on the true trade-off curve (every test of D against D′ has type II error at least this), "
    "computed from the Rényi-DP curve ρ(λ) of the matched RDP accountant: at each order λ, Rényi divergence cannot "
    "grow under the test (data processing, van Erven & Harremoës 2014, Theorem 9), so the test's two error rates "
    "obey D_λ(Bern(α) ‖ Bern(1 − β)) ≤ ρ(λ) in both directions; the curve is the largest β that all orders allow — "
    "the intersection of single-order RDP privacy regions (Balle, Barthe, Gaboardi, Hsu & Sato 2020; Zhu, Dong & "
    "Wang 2022), at least as tight as the (ε(δ), δ) family of the same RDP curve (Dong, Roth & Su "
    "2022, Proposition 2.12)")


def _rdp_region_beta(lx, l1x, one_minus_x, lam, bound, swapped: bool, iters: int = 48):
    """For each order λ (column vectors ``lam``, ``bound`` = (λ − 1)ρ(λ)) and type I error α (rows ``lx`` = log α,
    ``l1x`` = log(1 − α)): the least β in [0, 1 − α] with log(α^λ (1−β)^{1−λ} + (1−α)^λ β^{1−λ}) <= bound
    (``swapped``: the same with α and β exchanged), by bisection on log β over [−745, 0] (48 halvings: β to a
    relative 3·10⁻¹²).  The left side decreases in β on (0, 1 − α) and is 0 at β = 1 − α; the infeasible end is
    returned, so the value never exceeds the root."""
    shape = np.broadcast(lam, lx).shape
    lo = np.full(shape, -745.0)
    hi = np.zeros(shape)
    log_om = np.log(one_minus_x)

    def logg(t):
        ly = log_om + t  # log β, β = (1 − α)·e^t
        with np.errstate(invalid="ignore", over="ignore", divide="ignore"):
            l1y = np.log1p(-np.minimum(np.exp(ly), 1.0))
            if swapped:
                val = np.logaddexp(lam * ly + (1 - lam) * l1x, lam * l1y + (1 - lam) * lx)
            else:
                val = np.logaddexp(lam * lx + (1 - lam) * l1y, lam * l1x + (1 - lam) * ly)
        return np.where(np.isnan(val), np.inf, val)

    for _ in range(iters):
        mid = 0.5 * (lo + hi)
        ok = logg(mid) <= bound
        hi = np.where(ok, mid, hi)
        lo = np.where(ok, lo, mid)
    return np.where(lo <= -745.0 + 1e-9, 0.0, one_minus_x * np.exp(lo))


def tradeoff_rdp(alpha, orders, rdp):
    r"""A trade-off curve implied by a Rényi-DP curve: the largest f with every test's type II error β >= f(α), given
    only that the mechanism is (λ, ρ(λ))-RDP at every order λ in ``orders`` (for every ordered pair of neighbours).

    By the data-processing inequality of Rényi divergence (van Erven & Harremoës 2014, Theorem 9), a (randomised)
    test with type I error α and type II error β turns the two output distributions into Bern(α) and Bern(1 − β),
    so at each order λ > 1

    .. math:: \alpha^\lambda (1-\beta)^{1-\lambda} + (1-\alpha)^\lambda \beta^{1-\lambda} \le e^{(\lambda-1)\rho(\lambda)}

    and, the neighbouring relation being symmetric, the same with α and β exchanged.  Each constraint holds on a
    convex region whose lower boundary is convex in α; the returned curve is the pointwise maximum of these
    boundaries over all orders and both directions (the "intersection of single-order RDP privacy regions" of Zhu,
    Dong & Wang 2022; Balle, Barthe, Gaboardi, Hsu & Sato 2020 for the Bernoulli reduction).  It is
    a **valid lower bound** on the mechanism's true trade-off curve (conservative: every bisection returns its
    infeasible end), convex, non-increasing and symmetric (f = f⁻¹), and at least as tight as the envelope of the
    (ε(δ), δ) guarantees the same RDP curve gives (Dong, Roth & Su 2022, Proposition 2.12), since each of those is
    implied by one of the constraints above.

    Parameters
    ----------
    alpha : array_like
        Type I errors in [0, 1].
    orders, rdp : sequence of float
        Rényi orders λ > 1 and the RDP ρ(λ) >= 0 at each (``inf`` allowed: no constraint at that order).
    """
    a = _alphas(alpha)
    lam = np.asarray(orders, float).ravel()
    rho = np.asarray(rdp, float).ravel()
    if lam.size == 0 or lam.shape != rho.shape or np.any(~np.isfinite(lam)) or np.any(lam <= 1) or np.any(
            np.isnan(rho)) or np.any(rho < 0):
        raise ValueError("orders (> 1) and rdp (>= 0) must be arrays of the same length.")
    x = a.ravel()
    out = np.zeros(x.shape)
    inner = x < 1.0
    xi = x[inner]
    with np.errstate(divide="ignore"):
        lx, l1x = np.log(xi), np.log1p(-xi)
    one_minus = 1.0 - xi
    best = np.zeros(xi.shape)
    keep = np.isfinite(rho)
    if keep.any() and xi.size:
        lam, bound = lam[keep], (lam[keep] - 1.0) * rho[keep]
        order = np.argsort(lam)
        lam, bound = lam[order], bound[order]
        k = lam.size
        # two stages (every order at every α would cost 3-5x): all orders on a coarse grid of α find the orders
        # that are best somewhere (and their neighbours), then those orders are solved at every α.  The maximum over
        # one fixed subset of orders is a valid bound and, as a maximum of convex functions, convex.
        probe = np.unique(np.r_[np.geomspace(1e-9, 1e-2, 8), np.linspace(0.0, 1.0, 41)[1:-1], 1 - np.geomspace(
            1e-9, 1e-2, 8)])
        with np.errstate(divide="ignore"):
            prow = np.log(probe)[None, :], np.log1p(-probe)[None, :], (1.0 - probe)[None, :]
        use = set()
        for swapped in (False, True):
            top = np.argmax(_rdp_region_beta(*prow, lam[:, None], bound[:, None], swapped, iters=40), axis=0)
            use.update(int(j) for t in top for j in (t - 1, t, t + 1) if 0 <= j < k)
        sub = np.asarray(sorted(use))
        rows = lx[None, :], l1x[None, :], one_minus[None, :]
        for swapped in (False, True):
            best = np.maximum(best, _rdp_region_beta(*rows, lam[sub][:, None], bound[sub][:, None],
                                                     swapped).max(axis=0))
    out[inner] = np.clip(best, 0.0, one_minus)
    return _out(out.reshape(a.shape))


def tradeoff_rdp_gaussian_wor(alpha, *, noise_multiplier: float, sampling_prob: float, steps: int, orders=None):
    """:func:`tradeoff_rdp` of ``steps`` compositions of the Gaussian mechanism with noise multiplier z on a uniformly
    random batch of m = q·n examples drawn without replacement, replace-one neighbours (z = σ/(2G) for a gradient
    bound G): the RDP of dp_accounting's ``SampledWithoutReplacementDpEvent`` (Wang, Balle & Kasiviswanathan 2019,
    Theorem 27), times T; q = 1 is the plain Gaussian mechanism, ρ(λ) = Tλ/(2z²).  A valid lower bound on the true
    trade-off curve (see :func:`tradeoff_rdp`)."""
    from dpviz.theory import accounting

    z = v.check_positive("noise_multiplier", noise_multiplier)
    q = v.check_real("sampling_prob", sampling_prob)
    if not 0.0 < q <= 1.0:
        raise ValueError(f"sampling_prob must lie in (0, 1], got {v.shown(q)}.")
    steps = v.check_int("steps", steps)
    orders = np.asarray(accounting.WOR_ORDERS if orders is None else orders, float)
    orders = orders[orders > 1.0]
    rdp = steps * np.asarray(accounting._rdp_wor_gaussian(q, z, orders), float)
    return tradeoff_rdp(alpha, orders, rdp)
