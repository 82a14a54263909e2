r"""A certified ε where the Rényi accountant's conversion reads 0 but the total variation cannot show ε = 0.

dpviz prints ε = 0 only where the total variation of the mechanism's outputs on two neighbouring data sets is at most
δ (:func:`dpviz.theory.gaussian.total_variation`; issue 31, item 2).  dp_accounting's RDP → (ε, δ) conversion also
returns 0 through its KL shortcut (δ² > 1 − e^{−T·ρ(α)}), on per-step divergences of 10⁻¹³ and below — the size of
their rounding error — so that 0 is not trusted.  Any positive number would then be a valid upper bound (the
shortcut, were its divergences exact, proves (0, δ)-DP), but dpviz reports the smallest ε it can *prove* without
the rounded divergences:

1. **One step, exactly.**  The Gaussian mechanism with noise multiplier z (ℓ2-sensitivity 1, μ = 1/z) is
   (ε′, δ_G(ε′))-DP for every ε′ >= 0 with

   .. math:: \delta_G(\epsilon'; \mu) = \Phi\Big(\frac{\mu}{2} - \frac{\epsilon'}{\mu}\Big)
             - e^{\epsilon'}\,\Phi\Big(-\frac{\mu}{2} - \frac{\epsilon'}{\mu}\Big)

   (Balle & Wang 2018, Theorem 8; exact).
2. **Amplification by sub-sampling.**  A mechanism that is (ε′, δ′)-DP, run on a Poisson sample of rate q
   (add/remove neighbours) or on a uniformly random batch of m = q·n of n examples drawn without replacement
   (replace-one neighbours), is (log(1 + q(e^{ε′} − 1)), q·δ′)-DP (Balle, Barthe & Gaboardi 2018, "Privacy
   Amplification by Subsampling: Tight Analyses via Couplings and Divergences", Theorems 8 and 9).  So one step is
   (ε₁, δ₁(ε₁))-DP for every ε₁ >= 0 with

   .. math:: \delta_1(\epsilon_1) = q\,\delta_G\Big(\log\Big(1 + \frac{e^{\epsilon_1} - 1}{q}\Big); 1/z\Big).

   At ε₁ = 0 this is the one-step total variation q·(2Φ(1/(2z)) − 1) of :func:`dpviz.theory.gaussian.total_variation`.
3. **Composition.**  T adaptive compositions of (ε₁, δ₁)-DP mechanisms are (T·ε₁, 1 − (1 − δ₁)^T)-DP (Kairouz, Oh
   & Viswanath 2015, Theorem 3.3 with i = 0).  Without sampling (q = 1) no composition theorem is needed: T
   Gaussian steps of shift 1 are one Gaussian of shift √T, exactly (δ_G with μ = √T/z).

:func:`composed_eps` returns T·ε₁ for the smallest ε₁ (to a relative 10⁻⁶, rounded up) with
1 − (1 − δ₁(ε₁))^T <= δ, found by bisection on log ε₁ — δ₁ decreases in ε₁ — with δ₁ evaluated in 60-digit
arithmetic (mpmath): at z = 10⁸ the two terms of δ_G agree in their first 9 digits, so double precision would
return rounding noise.  At ε₁ = 0 the condition is the product total-variation bound itself, so the result is
positive exactly where ε = 0 is not certified.  For q = 0.75, T = 8, z = 213 851, δ = 10⁻⁵ (a case the property test
found: total variation 1.12·10⁻⁵ > δ) it is ε = 2.47·10⁻⁶, where dpviz printed a fixed 10⁻⁹, an arbitrary number;
sampling without replacement at q = 0.01, T = 100, z = 300, δ = 10⁻³ (total variation 1.3·10⁻³) it is 7.2·10⁻⁴, where
dpviz printed ε = 0 from the shortcut.
"""

from __future__ import annotations

import functools
import math

#: Decimal digits of the arithmetic in which δ₁ is evaluated.
_DPS = 60
#: Relative width of the final bisection bracket on ε₁ (the upper end is returned).
_RTOL = 1e-6


def _gaussian_delta(mp, eps, mu):
    """δ_G(ε; μ) of Balle & Wang (2018, Theorem 8), in mpmath's current precision."""
    a = mu / 2 - eps / mu
    b = -mu / 2 - eps / mu
    return mp.ncdf(a) - mp.exp(eps) * mp.ncdf(b)


def _step_delta(mp, eps1, z, q):
    """δ₁(ε₁): one step of the sub-sampled Gaussian (Balle, Barthe & Gaboardi 2018, Theorems 8–9)."""
    mu = 1 / mp.mpf(z)
    if q >= 1.0:
        return _gaussian_delta(mp, eps1, mu)
    q = mp.mpf(q)
    inner = mp.log(1 + mp.expm1(eps1) / q)
    return q * _gaussian_delta(mp, inner, mu)


@functools.lru_cache(maxsize=4096)
def composed_eps(z: float, delta: float, steps: int, q: float) -> float:
    """The ε certified by one exact step, amplification by sub-sampling and composition (the module docstring): an
    upper bound on the ε of ``steps`` compositions of the Gaussian mechanism (noise multiplier ``z``) on a Poisson
    sample of rate ``q`` (add/remove) or a batch of q·n of n drawn without replacement (replace-one); 0 only where
    the product total-variation bound is at most δ.  Inputs are assumed validated (z > 0, 0 < δ < 1, T >= 1,
    0 < q <= 1)."""
    import mpmath

    with mpmath.workdps(_DPS):
        mp = mpmath.mp
        if q >= 1.0:
            mu = mp.sqrt(steps) / mp.mpf(z)  # T Gaussian steps = one of shift sqrt(T): exact, no composition

            def ok(e):
                return _gaussian_delta(mp, mp.mpf(e), mu) <= delta
            scale = float(mu)
            mult = 1
        else:
            target = -mp.expm1(mp.log1p(-mp.mpf(delta)) / steps)  # 1 - (1 - delta)^(1/T)

            def ok(e):
                return _step_delta(mp, mp.mpf(e), z, q) <= target
            scale = q / z
            mult = steps
        if ok(0):  # the product total-variation bound is <= delta: eps = 0 (callers ask only where the float
            return math.nextafter(0.0, 1.0)  # check said otherwise: a tie in the last bit; the smallest positive)
        hi = max(scale, 1e-300)
        for _ in range(2000):  # doubling: delta_G(eps) -> 0 as eps grows, so this ends (hi < 2^2000 * scale)
            if ok(hi):
                break
            hi *= 2.0
        else:  # pragma: no cover
            return math.inf
        lo = hi / 2.0
        while lo > 0 and ok(lo):  # the first doubling may already be far above the answer
            hi, lo = lo, lo / 2.0
            if lo < 1e-300:
                break
        # ok(lo) False (or lo tiny), ok(hi) True: the float at which ok() was last True (or hi itself)
        eps1 = log_bisect(ok, max(lo, 1e-300), hi, _RTOL)
    return math.nextafter(mult * eps1, math.inf)


def positive_conversion(orders, rdp_total, delta: float) -> float:
    r"""The smallest *positive* ε among the Rényi orders' own conversions, without the KL shortcut: for each order
    α > 1.01 with total Rényi divergence ρ(α) >= 0,

    .. math:: \epsilon_\alpha = \rho(\alpha) + \log\Big(1 - \frac1\alpha\Big) - \frac{\log(\delta\alpha)}{\alpha - 1}

    (Canonne, Kamath & Steinke 2020, Proposition 12; Asoodeh, Liao, Calmon, Kosut & Sankar 2021, eq. (20) -- the
    formula of ``dp_accounting.rdp.compute_epsilon`` outside its shortcut), and the minimum of those that are
    positive (``inf`` if none is).  Each ε_α is an upper bound on its own, so the minimum is one too.  Used where
    the conversion reads 0 but dpviz does not print 0 (the module docstring): with it the printed ε keeps moving
    with the noise and the number of steps (issue 31 printed the one-step composition alone, 21.74 at T = 149 133
    and 0.8509 at T = 298 265, z = 0.3047, q = 10⁻⁶, δ = 0.0625: a bound, but not monotone in T)."""
    best = math.inf
    for a, r in zip(orders, rdp_total):
        a, r = float(a), float(r)
        if not (a > 1.01 and r >= 0.0 and math.isfinite(r)):
            continue
        e = r + math.log1p(-1.0 / a) - math.log(delta * a) / (a - 1.0)
        if 0.0 < e < best:
            best = e
    return best


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
