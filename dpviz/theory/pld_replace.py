r"""A certified lower bound on the ε of Poisson-sub-sampled DP-SGD under *replace-one* neighbours, tight to second
order in the grid step (issue 31, item 3).

The explicit pair of neighbouring data sets
-------------------------------------------
Take a one-dimensional model whose loss is linear, so that every gradient is a constant: the replaced example's
clipped gradient is +C in D and −C in D′, every other example's gradient is 0.  One DP-SGD step with Poisson
sampling (rate q) and Gaussian noise σ releases the noisy sum of the sampled gradients, so on D it releases
(1 − q)N(0, σ²) + qN(C, σ²) and on D′ (1 − q)N(0, σ²) + qN(−C, σ²); the gradients never depend on the parameters,
so the T steps are independent and the mechanism's output on (D, D′) is exactly the T-fold product of this pair.
With the replace-one sensitivity Δ = 2C and z = σ/Δ, in units of C:

.. math:: P = (1 - q)N(0, s^2) + qN(1, s^2),\qquad Q = (1 - q)N(0, s^2) + qN(-1, s^2),\qquad s = 2z,

the pair of dp_accounting's replace-one Poisson PLD (``GaussianPrivacyLoss`` with ``AdjacencyType.REPLACE``: there
μ_upper = qN(−1) + (1 − q)N(0) against μ_lower = qN(1) + (1 − q)N(0), the same pair reflected).  Its privacy loss

.. math:: \ell(y) = \log\big(1 - q + q e^{(2y-1)/(2s^2)}\big) - \log\big(1 - q + q e^{(-2y-1)/(2s^2)}\big)

increases in y, with ℓ(0) = 0 and ℓ(−y) = −ℓ(y).  Any ε(δ) below the hockey-stick curve of the T-fold product of
(P, Q) is therefore a lower bound on the mechanism's ε(δ): the mechanism is no more private than on these two data
sets.

The construction (as :mod:`dpviz.theory.pld_lower` for add/remove)
-------------------------------------------------------------------
Reporting only which interval G_k of the line the output fell in is a post-processing, so the pair of interval
masses (P(G_k), Q(G_k)), composed T times, has a hockey-stick divergence at most that of (P, Q)^T at every ε
(Blackwell; Dong, Roth & Su 2022).  The intervals are chosen so that each one's likelihood ratio is e^{(k + η)Δ}
(right of 0) or e^{−(k − η)Δ} (left of 0, the mirror image with P and Q exchanged) for an integer k, η = 10⁻⁶: each
interval's end point solves P([a, b)) = e^{λ} Q([a, b)) (brentq); its atom is then put at its exact loss, computed
from its masses, rounded *down* to the grid — lowering a loss can only lower δ(ε) = E_P[(1 − e^{ε − L})₊] of the
composition, so whatever the end points the result stays a lower bound, and where they are exact each atom loses only
10⁻⁶ grid steps.  Beyond the P-mass ``tail`` the intervals are the grid cells [ℓ⁻¹(jΔ), ℓ⁻¹((j + 1)Δ)) (rounded
down, at most Δ each), and beyond P-mass ``drop`` the mass is dropped (loss −∞, lowering δ too).  The T-fold
composition is :func:`dpviz.theory.pld_lower._compose_eps` (FFT on tilted PMFs, its numerical error charged to δ:
the lower bound reads ε at δ + err, or raises :class:`dpviz.theory.pld_lower.Unsettled`).  Merging costs second order
in Δ per step, where rounding down (dp_accounting's optimistic PLD) loses up to Δ per step: at MNIST
(n = 60 000, batch 256, 60 epochs, σ/C = 1.1 so z = 0.55, δ = 10⁻⁵) the optimistic PLD at grid 10⁻⁴ gives 3.52 and
this bound 4.209 at grid 10⁻³, 4.218 at 5·10⁻⁴ (the connect-the-dots upper bound: 4.223).
"""

from __future__ import annotations

import math

__all__ = ["replace_pair_pmf", "replace_lower_epsilon"]

_ETA = 1e-6


class _ReplacePair:
    """The pair (P, Q) of the module docstring in y-units (noise std s = 2z)."""

    def __init__(self, z: float, q: float):
        self.q, self.s = q, 2.0 * z
        self.c = math.exp(-1.0 / (2.0 * self.s * self.s))

    def loss(self, y: float) -> float:
        q, s2 = self.q, self.s * self.s
        a, b = (2.0 * y - 1.0) / (2.0 * s2), (-2.0 * y - 1.0) / (2.0 * s2)

        def lg(e):  # log(1 - q + q e^e), stable for large e
            return math.log1p(q * math.expm1(e)) if e < 700 else math.log(q) + e + math.log1p((1 - q) * math.exp(-e) / q)
        return lg(a) - lg(b)

    def inv_vec(self, lam):
        """y with ℓ(y) = λ (vectorised): u = e^{y/s²} solves qc u² + (1 − q)(1 − e^λ) u − e^λ qc = 0."""
        import numpy as np

        lam = np.asarray(lam, dtype=float)
        q, c, s2 = self.q, self.c, self.s * self.s
        with np.errstate(over="ignore", invalid="ignore", divide="ignore"):
            b = (1.0 - q) * -np.expm1(lam)  # (1 − q)(1 − e^λ)
            disc = np.sqrt(b * b + 4.0 * q * q * c * c * np.exp(lam))
            u = np.where(b <= 0.0, (-b + disc) / (2.0 * q * c), 2.0 * np.exp(lam) * q * c / (b + disc))
            return s2 * np.log(u)

    def masses(self, a, b):
        """(P([a, b)), Q([a, b))) for arrays of end points."""
        from dpviz.theory import pld_lower

        q, s = self.q, self.s
        mp = pld_lower._mass_vec(((1.0 - q, 0.0), (q, 1.0)), s, a, b)
        mq = pld_lower._mass_vec(((1.0 - q, 0.0), (q, -1.0)), s, a, b)
        return mp, mq

    def tail_y(self, mass: float, upper: bool) -> float:
        """A y with P(Y > y) <= mass (upper) or P(Y < y) <= mass: the component bound, conservative."""
        from scipy.special import ndtri

        ys = []
        for w, mu in ((1.0 - self.q, 0.0), (self.q, 1.0)):
            share = mass / (2.0 * w)
            if share >= 0.5:
                continue
            u = -float(ndtri(share))
            ys.append(mu + u * self.s if upper else mu - u * self.s)
        return (max(ys) if upper else min(ys)) if ys else 0.0


def _chain(pair: _ReplacePair, D: float, sign: float, y_end: float, max_groups: int) -> list[float]:
    """End points 0 = b_0 < b_1 < … (up to ``y_end``) of the intervals [b_i, b_{i+1}) right of 0 whose ratio
    P/Q is e^{(k + sign·η)Δ} for increasing integers k >= 1 (``sign`` +1: the right side's atoms; −1: the intervals
    whose mirror images, with P and Q exchanged, are the left side's, at −(k − η)Δ)."""
    import numpy as np
    from scipy.optimize import brentq

    pts = [0.0]
    a, k = 0.0, 1
    while len(pts) <= max_groups:
        lam = (k + sign * _ETA) * D
        t = math.exp(lam)

        def f(b, a=a, t=t):
            mp, mq = pair.masses(np.array([a]), np.array([b]))
            return float(mp[0] - t * mq[0])

        lo = float(pair.inv_vec(lam))  # beyond here the density ratio exceeds e^λ, so f rises from then on
        lo = max(lo, a)
        hi = max(lo, a) + pair.s
        if f(lo) >= 0.0:
            b = lo
        else:
            for _ in range(200):
                if f(hi) >= 0.0 or hi > y_end:
                    break
                hi = lo + 2.0 * (hi - lo)
            if hi > y_end or f(hi) < 0.0:
                break
            b = brentq(f, lo, hi, xtol=1e-13 * pair.s, rtol=1e-14, maxiter=200)
        if b >= y_end:
            break
        pts.append(b)
        a = b
        k = max(math.floor(pair.loss(a) / D) + 1, k + 1)
    if len(pts) > max_groups:
        raise ValueError(f"the replace-one lower-bound PLD would need more than {max_groups} intervals at grid step "
                         f"{D:g}")
    return pts


def replace_pair_pmf(z: float, q: float, D: float, tail: float, drop: float, max_groups: int = 60_000):
    """``(k0, probs)``: P-masses on the grid kΔ of a pair dominated by (P, Q) (the module docstring), the atom of
    ``probs[i]`` at privacy loss (k0 + i)·Δ; the total falls short of 1 by the dropped tails (loss −∞)."""
    import numpy as np

    pair = _ReplacePair(z, q)
    y_tail_hi, y_tail_lo = pair.tail_y(tail, True), pair.tail_y(tail, False)
    y_hi, y_lo = pair.tail_y(drop, True), pair.tail_y(drop, False)
    right = _chain(pair, D, 1.0, y_tail_hi, max_groups)
    left = _chain(pair, D, -1.0, -y_tail_lo, max_groups)  # mirrored below
    # right of the chain: grid cells up to y_hi; left of the mirrored chain: grid cells down to y_lo
    j0 = math.floor(pair.loss(right[-1]) / D) + 1
    j1 = math.floor(pair.loss(y_hi) / D) + 1
    cells_r = pair.inv_vec(np.arange(j0, j1 + 1) * D) if j1 >= j0 else np.empty(0)
    cells_r = cells_r[(cells_r > right[-1]) & (cells_r < y_hi)]
    edges_r = np.concatenate((right, cells_r, [y_hi]))
    m0 = -math.floor(pair.loss(left[-1]) / D) - 1  # the left chain ends at -left[-1]: losses below -loss(left[-1])
    m1 = math.floor(pair.loss(y_lo) / D)
    cells_l = pair.inv_vec(np.arange(m0, m1 - 1, -1) * D) if m0 >= m1 else np.empty(0)
    cells_l = cells_l[(cells_l < -left[-1]) & (cells_l > y_lo)]
    edges_l = np.concatenate(([y_lo], cells_l[::-1], -np.asarray(left)[::-1]))  # increasing, ends at 0
    edges = np.concatenate((edges_l, edges_r[1:]))  # both contain 0 once
    if len(edges) > 4 * max_groups + 2**20:
        raise ValueError(f"the replace-one lower-bound PLD would need about {len(edges):.3g} grid points")
    lo_e, hi_e = edges[:-1], edges[1:]
    keep = hi_e > lo_e
    lo_e, hi_e = lo_e[keep], hi_e[keep]
    mp, mq = pair.masses(lo_e, hi_e)
    ok = (mp > 0.0) & (mq > 0.0)
    mp, mq = mp[ok], mq[ok]
    k = np.floor(np.log(mp / mq) / D).astype(np.int64)
    k0 = int(k.min())
    return k0, np.bincount(k - k0, weights=mp)


def replace_lower_epsilon(z: float, q: float, steps: int, delta: float, grid: float,
                          max_groups: int = 60_000) -> float:
    """A certified lower bound on the ε(δ) of ``steps`` DP-SGD steps with Poisson sampling (rate ``q`` < 1), noise
    multiplier ``z`` = σ/Δ (Δ = 2C, the replace-one sensitivity) under replace-one neighbours: the ε of the T-fold
    composition of the post-processed explicit pair (the module docstring) on the grid ``grid``.  Raises
    ``ValueError`` when the pair needs more than ``max_groups`` intervals and
    :class:`dpviz.theory.pld_lower.Unsettled` where the composition cannot resolve δ.

    The far tails rounded down cell by cell hold P-mass at most ``min(10⁻⁶, 0.01/T)`` per step; the mass dropped
    (10⁻⁶·δ/T per step) lowers δ(ε) by at most 10⁻⁶·δ."""
    from dpviz.theory import pld_lower

    tail = min(max(0.01 / steps, 1e-12), 1e-6)
    drop = 1e-6 * delta / steps
    k0, probs = replace_pair_pmf(z, q, grid, tail, drop, max_groups)
    return pld_lower._compose_eps(k0, probs, grid, 0.0, steps, delta, False)
