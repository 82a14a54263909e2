r"""A certified lower bound on the ε of a composed Poisson-sub-sampled Gaussian mechanism, tight to second order in
the grid step, for the error bars of :mod:`dpviz.theory.accounting`.

Why a new lower bound
---------------------
dp_accounting's PLD rounds every privacy loss to a grid of step Δ.  Rounded *up* with connect-the-dots
(Doroshenko, Ghazi, Kamath, Kumar & Manurangsi 2022) the PLD is a dominating pair: its ε is an upper bound and its
error is second order in Δ.  Rounded *down* (the "optimistic" PLD) it is a lower bound, but every step loses up to Δ of
privacy loss, so after T steps the lower bound can be T·Δ below the truth: at n = T = 50 000 (q = 1/n, z = 1) it is 0.
The PRV accountant of Gopi, Lee & Wutschitz (2021) certifies both ends, but its grid step must be about
ε_error/√(T log(1/δ)), tens of millions of points there.

The construction
----------------
Let (P, Q) be the mechanism's dominating pair on the real line, with a privacy loss ℓ(x) = log(dP/dQ)(x) monotone in
x (for the Poisson-sub-sampled Gaussian, Zhu, Dong & Wang 2022: "remove" P = (1 − q)N(0, z²) + qN(1, z²) against
Q = N(0, z²), "add" the reverse).  Cut the line into consecutive intervals G_k chosen so that each interval's
likelihood ratio P(G_k)/Q(G_k) is *exactly* e^{g_k Δ} for an integer g_k: the first interval starts where the mass
piles up, and each next end point solves P([a, b)) = e^{gΔ} Q([a, b)) (one monotone equation).  Reporting only which
interval the output fell in is a post-processing of the mechanism, so the pair of interval masses (P(G_k), Q(G_k)) is
dominated by (P, Q) — its hockey-stick divergence is at most (P, Q)'s at every ε — and so is the T-fold composition of
this pair by the T-fold composition of (P, Q) (Blackwell's theorem for dichotomies; Dong, Roth & Su 2022, the
post-processing property of trade-off functions).  Its privacy losses are exactly on the grid, so the T-fold
composition is an exact convolution (FFT), and the ε it gives is a lower bound on the mechanism's ε.  Merging an
interval loses only second-order information (the ratio inside an interval varies by about Δ), unlike rounding down,
which loses up to Δ per step.

Where little probability is left (a far tail of P-mass below ``tail``) the intervals are instead the grid cells
[kΔ, (k+1)Δ) rounded down to kΔ, and the last remainder is rounded down too: lowering the privacy loss of an atom
(keeping its P-mass) can only lower δ(ε) = E[(1 − e^{ε − L})₊] of the composition, so the bound stays a lower bound;
mass dropped from a tail counts as loss −∞, which lowers δ too.  The composition's own truncation (dp_accounting's
FFT self-convolution) removes at most 10⁻¹⁵ of mass and adds 10⁻¹⁵ to its infinity mass; the ε is therefore read at
δ + 3·10⁻¹⁵.

The composition itself (issue 31)
---------------------------------
An FFT in double precision has an absolute error of about 10⁻¹⁶ of the largest mass, and raising the transform to
the T-th power multiplies it by up to T; where ε is decided by atoms far smaller (q = 10⁻⁶, T = 10⁶, δ = 10⁻¹²: atoms
of 10⁻¹⁷ under a noise of 10⁻¹⁴) the plain FFT returns any number.  :func:`_compose_eps` composes the exponentially
tilted PMF p_i e^{tℓ_i}/M(t) instead (the T-fold composition of the tilted PMF is the tilted composition), with t
the Chernoff-optimal tilt at δ, so the atoms near ε carry most of the tilted mass; it measures the noise (the
transform's negative outputs, twice the largest, plus the truncated mass), bounds the resulting error of
δ(ε) and charges it to δ (the upper bound reads ε at δ − err, the lower at δ + err), and where no tilt brings that
error below 10⁻³·δ it raises :class:`Unsettled` rather than return an uncertified number.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from dpviz.theory import lse as _lse

__all__ = ["Pair", "Unsettled", "poisson_pairs", "dominated_pmf", "lower_epsilon", "upper_epsilon"]

_SQRT2 = math.sqrt(2.0)
_LOG_SQRT_2PI = 0.5 * math.log(2.0 * math.pi)
#: P-mass below which the far tails are rounded down cell by cell instead of merged exactly (see the module docstring)
TAIL = 1e-9
#: mass of a tail that is dropped outright (treated as privacy loss −∞)
DROP = 1e-30
#: the add direction's far left tail (P-mass LOW/T per step, privacy loss far below 0) is clamped: raised to the
#: clamp level in the upper bound (pessimistic), dropped in the lower bound; it holds about LOW of all T-step paths,
#: whose privacy loss is then far below ε, so δ(ε) moves by about LOW·δ
LOW = 1e-5
#: most points of one FFT (a one-step PLD or a composition's window): about 34 MB per array; beyond, ValueError
MAX_FFT = 2**22
#: δ slack for the truncation of the FFT self-composition (10⁻¹⁵ truncated + 10⁻¹⁵ infinity mass) and rounding
DELTA_SLACK = 3e-15


def _sf(u: float) -> float:
    """Standard normal upper tail P(N(0,1) > u)."""
    return 0.5 * math.erfc(u / _SQRT2)


@dataclass(frozen=True)
class Pair:
    r"""A dominating pair of Gaussian mixtures with a common standard deviation ``s`` and a privacy loss increasing in x.

    ``p`` and ``q`` are tuples of (weight, mean).  Only two shapes occur here (``kind``):

    ``"remove"``: P = (1 − r)N(0, s²) + rN(1, s²), Q = N(0, s²); ℓ(x) = log(1 − r + r e^{(2x − 1)/(2s²)}), from
    log(1 − r) (x → −∞) to +∞.
    ``"add"``: P = N(0, s²), Q = (1 − r)N(0, s²) + rN(−1, s²) (the add pair reflected so that ℓ increases);
    ℓ(x) = −log(1 − r + r e^{−(2x + 1)/(2s²)}), from −∞ to −log(1 − r).
    """

    kind: str
    r: float
    s: float

    @property
    def p(self):
        return ((1.0 - self.r, 0.0), (self.r, 1.0)) if self.kind == "remove" else ((1.0, 0.0),)

    @property
    def q(self):
        return ((1.0, 0.0),) if self.kind == "remove" else ((1.0 - self.r, 0.0), (self.r, -1.0))

    # -- the loss and its inverse ------------------------------------------------------------------------------
    def loss(self, x: float) -> float:
        r, s2 = self.r, self.s * self.s
        if self.kind == "remove":
            e = (2.0 * x - 1.0) / (2.0 * s2)
            return math.log1p(r * math.expm1(e)) if e < 700 else math.log(r) + e + math.log1p((1 - r) * math.exp(-e) / r)
        e = -(2.0 * x + 1.0) / (2.0 * s2)
        return -(math.log1p(r * math.expm1(e)) if e < 700 else math.log(r) + e + math.log1p((1 - r) * math.exp(-e) / r))

    def inv(self, lam: float) -> float:
        """The x with ℓ(x) = lam (lam inside the loss range)."""
        r, s2 = self.r, self.s * self.s
        if self.kind == "remove":
            return s2 * math.log((math.expm1(lam) + r) / r) + 0.5
        return -(s2 * math.log((math.expm1(-lam) + r) / r) + 0.5)

    @property
    def loss_range(self) -> tuple[float, float]:
        lo = math.log1p(-self.r)
        return (lo, math.inf) if self.kind == "remove" else (-math.inf, -lo)

    def dloss(self, x: float) -> float:
        """dℓ/dx."""
        r, s2 = self.r, self.s * self.s
        if self.kind == "remove":
            e = (2.0 * x - 1.0) / (2.0 * s2)
            w = 1.0 / (1.0 + (1.0 - r) / r * math.exp(-e)) if e > -700 else 0.0  # r e^e / (1 - r + r e^e)
            return w / s2
        e = -(2.0 * x + 1.0) / (2.0 * s2)
        w = 1.0 / (1.0 + (1.0 - r) / r * math.exp(-e)) if e > -700 else 0.0
        return w / s2

    # -- masses and densities ----------------------------------------------------------------------------------
    def _mass(self, comps, a: float, b: float) -> float:
        """Mass of [a, b) under a mixture, each component's difference taken on the side where it is accurate."""
        out = 0.0
        for w, mu in comps:
            ua, ub = (a - mu) / self.s, (b - mu) / self.s
            if ua >= 0.0:
                m = _sf(ua) - _sf(ub)
            elif ub <= 0.0:
                m = _sf(-ub) - _sf(-ua)
            else:
                m = 1.0 - _sf(ub) - _sf(-ua)
            out += w * m
        return out

    def mass_p(self, a: float, b: float) -> float:
        return self._mass(self.p, a, b)

    def mass_q(self, a: float, b: float) -> float:
        return self._mass(self.q, a, b)

    def _pdf(self, comps, x: float) -> float:
        return sum(w * math.exp(-0.5 * ((x - mu) / self.s) ** 2 - _LOG_SQRT_2PI) / self.s for w, mu in comps)

    def pdf_p(self, x: float) -> float:
        return self._pdf(self.p, x)

    def pdf_q(self, x: float) -> float:
        return self._pdf(self.q, x)

    def quantile_p(self, mass: float, upper: bool) -> float:
        """An x with P(X > x) <= mass (upper) or P(X < x) <= mass (lower): the component bound, conservative."""
        from scipy.special import ndtri

        xs = []
        for w, mu in self.p:  # each component's weighted tail below mass / #components
            share = mass / (len(self.p) * w)
            if share >= 0.5:
                continue
            u = -float(ndtri(share))
            xs.append(mu + u * self.s if upper else mu - u * self.s)
        if not xs:
            return 0.0
        return max(xs) if upper else min(xs)


def poisson_pairs(z: float, q: float) -> tuple[Pair, Pair]:
    """The remove and add pairs of one step of the Poisson-sub-sampled Gaussian mechanism (noise multiplier z,
    sampling probability q < 1, add/remove neighbours)."""
    return Pair("remove", q, z), Pair("add", q, z)


class _Chain:
    """The interval chain of one pair (see the module docstring), with the masses of its two components written
    out: ``remove`` P − tQ = (1 − r − t)·N(0) + r·N(1), ``add`` P − tQ = (1 − t(1 − r))·N(0) − t r·N(−1)."""

    def __init__(self, pair: Pair):
        self.pair, self.s, self.r = pair, pair.s, pair.r
        self.mu1 = 1.0 if pair.kind == "remove" else -1.0

    def coef(self, t: float) -> tuple[float, float]:
        r = self.r
        return (1.0 - r - t, r) if self.pair.kind == "remove" else (1.0 - t * (1.0 - r), -t * r)

    def phi_up(self, a: float, b: float, t: float) -> float:
        """P([a, b)) − t Q([a, b))."""
        c0, c1 = self.coef(t)
        return c0 * self.pair._mass(((1.0, 0.0),), a, b) + c1 * self.pair._mass(((1.0, self.mu1),), a, b)

    def dphi(self, x: float, t: float) -> float:
        """d/dx of P((−∞, x)) − t Q((−∞, x)): the densities' difference."""
        c0, c1 = self.coef(t)
        s = self.s
        return (c0 * math.exp(-0.5 * (x / s) ** 2) + c1 * math.exp(-0.5 * ((x - self.mu1) / s) ** 2)) / (
            s * math.sqrt(2.0 * math.pi))


def _newton(f, df, x0: float, lo: float, hi: float | None, scale: float) -> float:
    """A root of f, increasing on [lo, hi] (hi None: unbounded; f(lo) < 0): Newton from x0 kept in the bracket,
    bisection when it leaves it; tolerance 1e-11·scale (the caller's verification makes any end point valid)."""
    if hi is None:
        step = max(x0 - lo, 1e-6 * scale)
        hi = lo + step
        while f(hi) < 0.0:
            lo, hi = hi, hi + 2.0 * step
            step *= 2.0
            if step > 1e3 * scale:  # pragma: no cover (the caller checked a root exists)
                break
        x0 = min(max(x0, lo), hi)
    x = x0
    for _ in range(50):
        fx = f(x)
        if fx < 0.0:
            lo = x
        else:
            hi = x
        d = df(x)
        nx = x - fx / d if d > 0.0 else 0.5 * (lo + hi)
        if not lo <= nx <= hi:
            nx = 0.5 * (lo + hi)
        if abs(nx - x) <= 1e-11 * scale or hi - lo <= 1e-11 * scale:
            return nx
        x = nx
    return x


def grid_offset(pair: Pair, D: float) -> float:
    """θ in [0, 1): the grid of this pair's atoms is (k + θ)Δ, placed so that a grid point lies half a step inside the
    finite end of the loss range where the P-mass piles up (log(1 − q) for remove, −log(1 − q) for add); otherwise,
    with Δ > q, no grid point would lie between that end and 0 and the first interval could not be balanced."""
    lo_loss, hi_loss = pair.loss_range
    return (lo_loss / D + 0.5) % 1.0 if pair.kind == "remove" else (hi_loss / D - 0.5) % 1.0


def _chain(pair: Pair, D: float, tail: float, max_groups: int, th: float = 0.0):
    """The end points of the exact intervals (see the module docstring), as a list of x from the piled-up end
    inwards; the intervals' own masses are computed afterwards (:func:`dominated_pmf`)."""
    ch = _Chain(pair)
    s = pair.s
    eta = 1e-6  # aim each interval's loss a hair above its grid point, so rounding down keeps it there
    pts: list[float] = []
    lo_loss, hi_loss = pair.loss_range
    x_end = pair.quantile_p(tail, upper=pair.kind == "remove")
    span = pair.loss(x_end) - lo_loss if pair.kind == "remove" else hi_loss - pair.loss(x_end)
    if span / D > max_groups:
        raise ValueError(f"the lower-bound PLD would need about {span / D:.3g} intervals at grid step {D:g} "
                         f"(at most {max_groups})")
    if pair.kind == "remove":
        a = -math.inf
        k = math.floor(math.log1p(-pair.r) / D - th) + 1
        while a < x_end and len(pts) < max_groups:
            lam = (k + th + eta) * D
            t = math.exp(lam)
            xs = pair.inv(lam)
            f0 = ch.phi_up(a, xs, t)
            if f0 >= 0.0:
                b = xs
            else:
                c0, c1 = ch.coef(t)
                if c0 * pair._mass(((1.0, 0.0),), a, math.inf) + c1 * pair._mass(((1.0, ch.mu1),), a, math.inf) < 0:
                    break
                curv = pair.pdf_q(xs) * t * pair.dloss(xs)
                guess = xs + (math.sqrt(-2.0 * f0 / curv) if curv > 0 else s)
                b = _newton(lambda x: ch.phi_up(a, x, t), lambda x: ch.dphi(x, t), guess, xs, None, s)
            if b >= x_end:
                break
            pts.append(b)
            a = b
            k = max(math.floor(pair.loss(a) / D - th) + 1, k + 1)
        return pts, x_end
    x_end = pair.quantile_p(tail, upper=False)
    b = math.inf
    k = math.ceil(-math.log1p(-pair.r) / D - th) - 1
    while b > x_end and len(pts) < max_groups:
        lam = (k + th + eta) * D
        t = math.exp(lam)
        xs = pair.inv(lam)
        f0 = ch.phi_up(xs, b, t)  # P([a, b)) − tQ([a, b)) rises as a falls below x*
        if f0 >= 0.0:
            a = xs
        else:
            c0, c1 = ch.coef(t)
            if c0 * pair._mass(((1.0, 0.0),), -math.inf, b) + c1 * pair._mass(((1.0, ch.mu1),), -math.inf, b) < 0:
                break
            curv = pair.pdf_q(xs) * t * pair.dloss(xs)
            guess = xs - (math.sqrt(-2.0 * f0 / curv) if curv > 0 else s)
            # in u = −a the function u ↦ φ([−u, b)) increases from u = −x*
            a = -_newton(lambda u: ch.phi_up(-u, b, t), lambda u: -ch.dphi(-u, t), -guess, -xs, None, s)
        if a <= x_end:
            break
        pts.append(a)
        b = a
        k = min(math.ceil(pair.loss(b) / D - th) - 1, k - 1)
    return pts, x_end


def dominated_pmf(pair: Pair, delta_grid: float, tail: float = TAIL, drop: float = DROP,
                  max_groups: int = 200_000, low: float | None = None):
    """P-masses on the grid kΔ of a pair dominated by ``pair`` (see the module docstring): ``(k0, probs)``, the atom
    of ``probs[i]`` at privacy loss (k0 + i)·Δ; the total may fall short of 1 by dropped tail mass (loss −∞).

    The interval end points come from :func:`_chain` (Newton on each interval's balance); whatever they are, each
    interval's mass and likelihood ratio are then computed directly and its atom put at its loss rounded down, so the
    result is a valid lower-bound PLD even where the chain is inexact."""
    import numpy as np

    D = delta_grid
    th = grid_offset(pair, D)
    pts, x_end = _chain(pair, D, tail, max_groups, th)
    if pair.kind == "remove":
        x_hi = pair.quantile_p(drop, upper=True)
        a0 = pts[-1] if pts else -math.inf
        lam_a = pair.loss(a0) if math.isfinite(a0) else math.log1p(-pair.r)
        k_hi = math.floor(pair.loss(x_hi) / D - th) + 1
        cells = _inv_vec(pair, (np.arange(math.floor(lam_a / D - th) + 1, k_hi + 1) + th) * D)
        edges = np.concatenate(([-math.inf], pts, np.minimum(cells, x_hi)))
        lo_e, hi_e = edges[:-1], edges[1:]
    else:
        x_lo = pair.quantile_p(drop if low is None else max(drop, low), upper=False)
        b0 = pts[-1] if pts else math.inf
        lam_b = pair.loss(b0) if math.isfinite(b0) else -math.log1p(-pair.r)
        k_lo = math.floor(pair.loss(x_lo) / D - th)
        cells = _inv_vec(pair, (np.arange(math.ceil(lam_b / D - th) - 1, k_lo, -1) + th) * D)
        edges = np.concatenate(([math.inf], pts, np.maximum(cells, x_lo), [x_lo]))
        lo_e, hi_e = edges[1:], edges[:-1]
    if len(edges) > MAX_FFT:  # pragma: no cover (the chain's own limit comes first)
        raise ValueError(f"the lower-bound PLD would need about {len(edges):.3g} grid points (at most {MAX_FFT:.3g})")
    keep = hi_e > lo_e
    lo_e, hi_e = lo_e[keep], hi_e[keep]
    mp = _mass_vec(pair.p, pair.s, lo_e, hi_e)
    mq = _mass_vec(pair.q, pair.s, lo_e, hi_e)
    ok = (mp > 0.0) & (mq > 0.0)
    mp, mq = mp[ok], mq[ok]
    k = np.floor(np.log(mp / mq) / D - th).astype(np.int64)
    k0 = int(k.min())
    probs = np.bincount(k - k0, weights=mp)
    return k0, probs, th


def _inv_vec(pair: Pair, lam):
    import numpy as np

    r, s2 = pair.r, pair.s * pair.s
    with np.errstate(over="ignore", divide="ignore", invalid="ignore"):  # losses beyond e^709: x = ±inf
        if pair.kind == "remove":
            return s2 * np.log((np.expm1(lam) + r) / r) + 0.5
        return -(s2 * np.log((np.expm1(-lam) + r) / r) + 0.5)


def _mass_vec(comps, s, a, b):
    """Masses of [a_i, b_i) under a mixture (vectorised, each difference on its accurate side)."""
    import numpy as np
    from scipy.special import ndtr

    out = np.zeros(len(a))
    for w, mu in comps:
        ua, ub = (a - mu) / s, (b - mu) / s
        right = ndtr(-ua) - ndtr(-ub)
        left = ndtr(ub) - ndtr(ua)
        out += w * np.where(ua >= 0.0, right, left)
    return np.maximum(out, 0.0)


def lower_epsilon(z: float, q: float, steps: int, delta: float, delta_grid: float,
                  max_groups: int = 200_000) -> float:
    """A lower bound on the ε(δ) of ``steps`` compositions of the Poisson-sub-sampled Gaussian mechanism (noise
    multiplier z, sampling probability q < 1, add/remove neighbours): the larger of the remove and add directions'
    dominated pairs (see the module docstring), composed by dp_accounting's FFT self-convolution.

    The far tails rounded down cell by cell hold P-mass at most ``min(10⁻⁶, 0.01/T)`` per step, so they cost at most
    0.01 grid steps of privacy loss in expectation over the T steps; the mass dropped (at most 10⁻⁶·δ/T per step)
    can lower δ(ε) by at most 10⁻⁶·δ."""
    tail = min(max(0.01 / steps, 1e-12), 1e-6)
    drop = 1e-6 * delta / steps
    best = 0.0
    for pair in poisson_pairs(z, q):
        k0, probs, th = dominated_pmf(pair, delta_grid, tail, drop, max_groups, LOW / steps)
        best = max(best, _compose_eps(k0, probs, delta_grid, 0.0, steps, delta, False, th))
    return best


def epsilon_of_dense(k0: int, probs, grid: float, infinity_mass: float, delta: float, offset: float = 0.0) -> float:
    """The smallest ε >= 0 with δ(ε) = infinity_mass + Σ_{ℓ_i > ε} p_i (1 − e^{ε − ℓ_i}) <= delta for the PMF with
    atoms p_i at ℓ_i = (k0 + i)·grid: dp_accounting's ``DensePLDPmf.get_epsilon_for_delta``, vectorised (its loop
    runs over every atom above ε in Python).  A test checks equality."""
    import numpy as np

    if infinity_mass > delta:
        return math.inf
    p = np.asarray(probs, dtype=float)
    losses = (k0 + np.arange(len(p))) * grid + offset
    if len(p) and float(np.max(np.abs(losses))) > 700.0:  # e^{±ℓ} would overflow or underflow
        return _epsilon_of_dense_far(p, losses, grid, infinity_mass, delta)
    # U_i, L_i: the masses of the atoms i, i+1, … under the upper and lower distributions
    U = infinity_mass + np.cumsum(p[::-1])[::-1]
    L = np.cumsum((p * np.exp(-losses))[::-1])[::-1]
    # δ just at the atom i (the atoms above it counted): U_{i+1} − e^{ℓ_i} L_{i+1}
    U1 = np.append(U[1:], infinity_mass)
    L1 = np.append(L[1:], 0.0)
    d_at = U1 - np.exp(losses) * L1
    above = np.flatnonzero(d_at > delta)
    if above.size == 0:  # δ(ℓ_0) <= delta: ε below the lowest atom, where δ(ε) = U_0 − e^ε L_0
        u, l = U[0], L[0]
    else:
        i = int(above[-1])  # the last atom where δ is still above delta: ε lies in (ℓ_i, ℓ_{i+1}]
        u, l = U1[i], L1[i]
        if l <= 0.0:
            return max(0.0, float(losses[i]))
    if u <= l + delta:
        return 0.0
    return max(0.0, math.log((u - delta) / l))


def _epsilon_of_dense_far(p, losses, grid: float, infinity_mass: float, delta: float) -> float:
    """:func:`epsilon_of_dense` for atoms with some |ℓ| > 700, where e^{ℓ} overflows (the direct sums made every ε
    there infinite) or e^{−ℓ} underflows.  The same δ(ε), with W_i = e^{ℓ_i} L_{i+1} = Σ_{j>i} p_j e^{−(j−i)·grid}
    from the recurrence W_i = e^{−grid} (p_{i+1} + W_{i+1}), W_last = 0, and ε = ℓ_i + log((U_{i+1} − delta)/W_i):
    no e^{±ℓ} anywhere.  Tested against δ(ε) evaluated from its definition (dp_accounting's loop is itself unstable
    at these losses: its e^{−ℓ} masses underflow)."""
    import numpy as np
    from scipy.signal import lfilter

    U = infinity_mass + np.cumsum(p[::-1])[::-1]
    a = math.exp(-grid)
    W = lfilter([a], [1.0, -a], np.append(p[1:], 0.0)[::-1])[::-1]
    U1 = np.append(U[1:], infinity_mass)
    above = np.flatnonzero(U1 - W > delta)
    if above.size == 0:  # ε below the lowest atom, where δ(ε) = U_0 − e^{ε−ℓ_0} (p_0 + W_0)
        u, w, ref = U[0], p[0] + W[0], losses[0]
    else:
        i = int(above[-1])  # the last atom where δ is still above delta: ε lies in (ℓ_i, ℓ_{i+1}]
        u, w, ref = U1[i], W[i], losses[i]
        if w <= 0.0:
            return max(0.0, float(losses[i]))
    if u <= delta or w <= 0.0:
        return 0.0
    return max(0.0, float(ref) + math.log((u - delta) / w))


def upper_pmfs(z: float, q: float, grid: float, drop: float, low: float | None = None):
    """The pessimistic connect-the-dots PLDs (Doroshenko, Ghazi, Kamath, Kumar & Manurangsi 2022, Algorithm 1, as
    dp_accounting's ``create_pmf_pessimistic_connect_dots``) of one step's remove and add pairs, with the hockey-stick
    divergences δ(kΔ) at every grid point computed in one vectorised pass (dp_accounting inverts the privacy loss
    point by point in Python).  The grid points run from the bottom of the loss range to where δ falls below
    ``drop``; the δ left there goes to the infinity mass (pessimistic).  Returns [(k0, probs, infinity_mass)] × 2."""
    import numpy as np
    from scipy.special import ndtr

    out = []
    for pair in poisson_pairs(z, q):
        lo_loss, hi_loss = pair.loss_range
        if pair.kind == "remove":
            k_lo = math.floor(lo_loss / grid)
            x_hi = pair.quantile_p(drop, upper=True)
            k_hi = math.ceil(pair.loss(x_hi) / grid)
        else:
            x_lo = pair.quantile_p(drop if low is None else max(drop, low), upper=False)
            k_lo = math.floor(pair.loss(x_lo) / grid)
            k_hi = math.ceil(hi_loss / grid)
        if k_hi - k_lo > MAX_FFT:
            raise ValueError(f"one step's PLD would need about {k_hi - k_lo:.3g} grid points at step {grid:g} "
                             f"(at most {MAX_FFT:.3g})")
        ks = np.arange(k_lo, k_hi + 1)
        lam = ks * grid
        d = np.empty(len(ks))
        inside = (lam > lo_loss) & (lam < hi_loss)
        x = _inv_vec(pair, lam[inside])
        s = pair.s
        pS = sum(w * ndtr(-(x - mu) / s) for w, mu in pair.p)
        qS = sum(w * ndtr(-(x - mu) / s) for w, mu in pair.q)
        with np.errstate(over="ignore", invalid="ignore"):
            d[inside] = np.nan_to_num(pS - np.exp(lam[inside]) * qS, nan=0.0, posinf=1.0, neginf=0.0)
        d[lam <= lo_loss] = -np.expm1(lam[lam <= lo_loss])  # every outcome counts: δ = 1 − e^λ
        d[lam >= hi_loss] = 0.0
        d = np.clip(d, 0.0, 1.0)
        d = np.minimum.accumulate(d)
        diffs = np.diff(d)
        eps_diffs = np.diff(lam)
        v1 = np.append(1.0 - d[0], diffs / np.expm1(-eps_diffs))
        v2 = np.append(diffs / np.expm1(eps_diffs), 0.0)
        probs = np.maximum(0.0, v1 + v2)
        out.append((int(ks[0]), probs, float(d[-1])))
    return out


#: ``float(scipy.special.logsumexp(a))`` for a 1-D array, bit for bit and about 5x faster (:mod:`dpviz.theory.lse`)
_logsumexp = _lse.logsumexp

def self_convolve(probs, steps: int, truncation: float = 1e-15):
    """(lower index, window) of the ``steps``-fold self-convolution of ``probs``: dp_accounting's
    ``common.self_convolve`` (Chernoff bounds on the window whose outside holds at most ``truncation`` of the mass,
    then a circular FFT convolution at least as long as the window, so the mass outside wraps into it), with a real FFT
    and ten Chernoff orders instead of forty (every order gives a valid bound; fewer only widen the window)."""
    import numpy as np
    from scipy import fft

    p = np.asarray(probs, dtype=float)
    n = len(p)
    idx = np.arange(n, dtype=float)
    lp = np.log(np.maximum(p, 1e-300))
    lp[p <= 0] = -np.inf
    orders = np.array([-20.0, -10.0, -5.0, -2.0, -1.0, 1.0, 2.0, 5.0, 10.0, 20.0]) / n
    lower, upper = 0, (n - 1) * steps
    log2t = math.log(2.0 / truncation)
    for o in orders:
        bound = (steps * _logsumexp(idx * o + lp) + log2t) / o
        if not math.isfinite(bound):
            continue
        if o > 0:
            upper = min(upper, math.ceil(bound))
        else:
            lower = max(lower, math.floor(bound))
    out_len = upper - lower + 1
    m = fft.next_fast_len(max(out_len, n), real=True)
    if m > MAX_FFT:
        raise ValueError(f"composing {steps} steps would need about {m:.3g} grid points (at most {MAX_FFT:.3g})")
    f = fft.rfft(p, m)
    r = np.abs(f)
    f = np.exp(steps * np.log(np.maximum(r, 1e-300)) + 1j * (steps * np.angle(f)))
    conv = fft.irfft(f, m)
    return lower, np.roll(conv, -lower)[:out_len]


class Unsettled(ValueError):
    """The FFT composition cannot resolve δ here: at every exponential tilt tried, the floating-point noise of the
    composed PMF (measured, plus the truncated mass) could move δ(ε) by more than :data:`NOISE_SHARE` of δ — the PLD
    proves nothing at this grid and δ.  Callers fall back to a bound that holds (RDP) and say so."""


#: Largest share of δ that the composition's numerical error (FFT rounding and truncated mass, bounded at the ε found)
#: may reach; beyond it the ε is not certified (:class:`Unsettled`).
NOISE_SHARE = 1e-3


def _log_mgf(losses, logp, t: float) -> float:
    """log Σ p_i e^{t ℓ_i} (the moment generating function of the one-step privacy loss, sub-probability)."""
    return _logsumexp(logp + t * losses)


def _chernoff_tilt(losses, logp, steps: int, delta: float) -> float:
    """The tilt t > 0 minimising the Chernoff bound (T·log M(t) + log(1/δ))/t on the ε of the T-fold composition.
    At that t the tilted composition's mean equals the bound (a saddle point), so ε lies a few standard deviations
    below the centre of the tilted distribution, where the FFT is accurate to its relative precision."""
    import numpy as np
    from scipy.optimize import minimize_scalar

    L = math.log(1.0 / delta)
    if len(losses) > 8192:  # blocks of atoms at their largest loss: an upper M(t), cheap, good enough for a tilt
        b = -(-len(losses) // 4096)
        pad = (-len(losses)) % b
        lp = np.concatenate((logp, np.full(pad, -np.inf))).reshape(-1, b)
        from scipy.special import logsumexp as _lse
        with np.errstate(divide="ignore"):
            logp = _lse(lp, axis=1)
        losses = np.concatenate((losses, np.full(pad, losses[-1]))).reshape(-1, b).max(axis=1)

    def g(u):
        t = math.exp(u)
        return (steps * _log_mgf(losses, logp, t) + L) / t

    res = minimize_scalar(g, bounds=(math.log(1e-3), math.log(1e4)), method="bounded",
                          options={"xatol": 1e-2})
    return float(np.exp(res.x))


def _tilt_for_mean(losses, logp, steps: int, target: float):
    """The tilt t >= 0 at which the T-fold composition's tilted mean T·Σ w_i ℓ_i (w ∝ p e^{tℓ}) is ``target`` (the
    tilted mean increases with t), by bisection on log t over [10⁻⁴, 10⁴]; None if ``target`` lies outside."""
    import numpy as np
    from scipy.special import softmax

    def mean(t):
        w = softmax(logp + t * losses)
        return steps * float((w * losses).sum())

    lo, hi = math.log(1e-4), math.log(1e4)
    if mean(math.exp(lo)) >= target or mean(math.exp(hi)) <= target:
        return None
    for _ in range(40):
        mid = 0.5 * (lo + hi)
        if mean(math.exp(mid)) < target:
            lo = mid
        else:
            hi = mid
        if hi - lo < 0.02:
            break
    return float(np.exp(0.5 * (lo + hi)))


def _tilted_compose(k0: int, probs, grid: float, steps: int, theta: float, t: float):
    """The ``steps``-fold composition of the PMF (atoms p_i at ℓ_i = (k0 + i + θ)·grid) computed on the exponentially
    tilted PMF p_i e^{tℓ_i}/M(t) (Esscher transform; the composition of tilted PMFs is the tilted composition), so the
    FFT's absolute rounding error ~10⁻¹⁶ is relative to the tilted mass where ε lies, not to the bulk of the
    distribution near loss 0.  Returns (losses, log-scale of each atom, tilted composed masses clipped at 0, noise):
    the composed mass of atom j is exp(log_scale_j)·c_j, and each c_j is within ``noise`` of its exact value (the
    noise measured from the FFT's negative outputs, twice the largest, at least 2·2⁻⁵² of the peak), up to the truncated (wrapped)
    tilted mass, at most ``trunc`` in all (returned last)."""
    import numpy as np

    p = np.asarray(probs, dtype=float)
    losses = (k0 + np.arange(len(p)) + theta) * grid
    with np.errstate(divide="ignore"):
        logp = np.log(p)
    logM = _log_mgf(losses, logp, t) if t > 0 else float(np.log(p.sum()))
    w = np.exp(logp + t * losses - logM)
    trunc = 1e-15
    if steps > 1:
        lo, c = self_convolve(w, steps, trunc)
    else:
        lo, c = 0, w.copy()
        trunc = 0.0
    K = k0 * steps + lo + np.arange(len(c))
    out_losses = (K + steps * theta) * grid
    # the largest negative output is the largest error seen where the exact value is 0 (of millions of outputs, the
    # FFT's errors being of one size everywhere); twice it, and at least 2·2⁻⁵² of the peak, bounds each output's error
    noise = 2.0 * max(-float(c.min()), 2.2e-16 * float(c.max())) if steps > 1 else 0.0
    c = np.maximum(c, 0.0)
    log_scale = steps * logM - t * out_losses
    return out_losses, log_scale, c, noise, trunc


def _compose_eps(k0: int, probs, grid: float, inf: float, steps: int, delta: float, pessimistic: bool,
                 theta: float = 0.0) -> float:
    """ε of the ``steps``-fold composition of the PMF with atoms (k0 + i + θ)·grid (infinity mass ``inf``), composed
    by FFT on exponentially tilted PMFs (:func:`_tilted_compose`) with the error of the composition bounded and
    charged to δ: the pessimistic (upper) estimate reads ε at δ − err, the optimistic (lower) one at
    δ + err + :data:`DELTA_SLACK`, where err bounds the change of δ(ε') = Σ_{ℓ>ε'} p(ℓ)(1 − e^{ε'−ℓ}) that the
    numerical noise can cause at every ε' above the answer (noise·Σ_{ℓ>ε'} e^{T log M − tℓ}).

    The tilt is the Chernoff-optimal one at δ (:func:`_chernoff_tilt`); when the answer falls where the untilted noise
    is not negligible, the PMF is tilted again so that the tilted composition is centred on that answer
    (:func:`_tilt_for_mean`), else with a quarter of the tilt, down to none (at most six compositions); when none
    resolves δ (err above :data:`NOISE_SHARE`·δ at the answer), :class:`Unsettled` is raised — a PLD is then not
    computable here by FFT in double precision, and the callers fall back to RDP and say so.  Without this, a plain
    FFT at T = 10⁶, q = 10⁻⁶, δ = 10⁻¹² reads ε from atoms of mass 10⁻¹⁷ under a noise floor of 10⁻¹⁴ (dpviz gave a
    'lower bound' 5.15 above RDP's upper bound 3.43; dp_accounting's PLD gives 0.73 at grid 10⁻² and 9.48 at 10⁻³
    there)."""
    import numpy as np

    p = np.asarray(probs, dtype=float)
    if steps > 1:
        inf_c = -math.expm1(steps * math.log1p(-inf)) if inf > 0 else 0.0
    else:
        inf_c = inf
    if inf_c > delta:
        return math.inf
    losses1 = (k0 + np.arange(len(p)) + theta) * grid
    with np.errstate(divide="ignore"):
        logp1 = np.log(p)
    budget = NOISE_SHARE * delta
    last = None
    tried: list[float] = []
    too_large = None
    # first the plain composition (no tilt: the window dp_accounting would use), then, where its noise is too large
    # for δ, the Chernoff tilt and tilts centred on the answers found
    t = 0.0
    for _attempt in range(7):
        if t is None:
            break
        tried.append(t)
        if len(tried) == 1:
            nxt_default = _chernoff_tilt(losses1, logp1, steps, delta) if steps > 1 else None
        else:
            nxt_default = t / 4.0 if t > 1e-2 else None
        try:
            losses, log_scale, c, noise, trunc = _tilted_compose(k0, p, grid, steps, theta, t)
        except ValueError as exc:  # this tilt's window does not fit: a smaller tilt's may
            too_large = exc
            t = nxt_default
            continue
        with np.errstate(over="ignore", under="ignore"):
            # the atoms whose numerical noise alone could exceed the δ budget: not usable
            log_noise_atom = log_scale + math.log(max(noise, 1e-320))
        if noise > 0 and t > 0:
            usable = log_noise_atom <= math.log(budget * 1e-3)
        else:  # no tilt: every atom has the same noise; the total error is checked below
            usable = np.ones(len(c), bool)
        first = int(np.argmax(usable)) if usable.any() else len(c)
        if first >= len(c):
            last = ("noise", t)
            t = nxt_default
            continue
        if not usable[first:].all():  # noise grows again at the top (t = 0 only): keep the contiguous part
            stop = first + int(np.argmin(usable[first:]))
        else:
            stop = len(c)
        sl = slice(first, stop)
        mass = np.exp(np.minimum(log_scale[sl], 700.0)) * c[sl]

        def err_at(e):
            """Bound on |computed − exact| δ(e): the noise of each atom above e, and the truncated tilted mass (at most
            ``trunc`` in all, wrapped onto the window) at the largest untilting factor above e."""
            if noise <= 0 and trunc <= 0:
                return 0.0
            above = losses[sl] > e
            if not above.any():
                return 0.0
            f = np.exp(log_scale[sl][above])
            return float(noise * f.sum() + trunc * f.max())

        # lost top mass (tilted truncation above the window): at most 1e-15/2 tilted, untilted below the top atom
        top_loss = float(np.exp(steps * _log_mgf(losses1, logp1, t) - t * losses[-1])) * 1e-15 if (
            steps > 1 and t > 0) else (1e-15 if steps > 1 else 0.0)
        k_first = int(round(losses[first] / grid - steps * theta))
        eps_c = epsilon_of_dense(k_first, mass, grid, inf_c, delta, steps * theta * grid)
        if not math.isfinite(eps_c):
            return math.inf

        def retilt(e=eps_c, default=nxt_default):
            """A tilt centred on this (possibly uncertified) answer: the tilted composition's mean T·(log M)'(t) = ε."""
            t_mean = _tilt_for_mean(losses1, logp1, steps, max(e, grid)) if steps > 1 else None
            if t_mean is not None and all(abs(t_mean - u) > 0.05 * max(u, 1e-3) for u in tried):
                return t_mean
            return default

        # the answer must lie above the first usable atom (below it the atoms are not known to the budget)
        if eps_c <= losses[first] and first > 0:
            last = ("low", t)
            t = retilt()
            continue
        probe = max(eps_c - 2.0 * grid, losses[first])
        err = err_at(probe) + top_loss
        if err > budget:
            last = ("noise", t)
            t = retilt()
            continue
        if pessimistic:
            e = epsilon_of_dense(k_first, mass, grid, inf_c + top_loss, delta - err, steps * theta * grid)
        else:
            e = epsilon_of_dense(k_first, mass, grid, inf_c, delta + err + DELTA_SLACK, steps * theta * grid)
            if e < probe and e > losses[first]:
                # the error bound was taken at probe > e: retake it at e
                err2 = err_at(e - grid) + top_loss
                e = epsilon_of_dense(k_first, mass, grid, inf_c, delta + err2 + DELTA_SLACK, steps * theta * grid)
        if first > 0 and e <= losses[first] and not (e == 0.0 and losses[first] <= 0.0):
            last = ("low", t)
            t = retilt(e)
            continue
        return e
    if too_large is not None and last is None:
        raise too_large
    raise Unsettled(f"the FFT composition of {steps} steps cannot resolve delta = {delta:g} at grid step {grid:g}: "
                    "its numerical noise could move delta(eps) by more than "
                    f"{NOISE_SHARE:g}·delta at every exponential tilt tried ({len(tried)} tilts)")


def upper_epsilon(z: float, q: float, steps: int, delta: float, delta_grid: float) -> float:
    """An upper bound on the ε(δ) of ``steps`` compositions of the Poisson-sub-sampled Gaussian mechanism (add/remove):
    the larger of the remove and add directions' connect-the-dots PLDs (:func:`upper_pmfs`), each composed by
    dp_accounting's FFT self-convolution (whose truncated tails go to the infinity mass).  The tails beyond
    10⁻⁴·δ/T per step go to the infinity mass as well, so they add at most 10⁻⁴·δ to δ."""
    drop = 1e-4 * delta / steps
    return max(_compose_eps(k0, p, delta_grid, inf, steps, delta, True)
               for k0, p, inf in upper_pmfs(z, q, delta_grid, drop, LOW / steps))


def loss_span(z: float, q: float, steps: int, delta: float) -> float:
    """The width, in privacy-loss units, of the longer of the two one-step PLDs that :func:`upper_epsilon` and
    :func:`lower_epsilon` build (so a grid of step Δ has about ``loss_span / Δ`` points before composition)."""
    drop = min(1e-4 * delta / steps, 1e-6 * delta / steps * 100)
    rem, add = poisson_pairs(z, q)
    w_rem = rem.loss(rem.quantile_p(drop, upper=True)) - rem.loss_range[0]
    w_add = add.loss_range[1] - add.loss(add.quantile_p(max(drop, LOW / steps), upper=False))
    return max(w_rem, w_add)
