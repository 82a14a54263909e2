r"""A certified privacy-loss-distribution (PLD) bracket for DP-SGD with fixed-size batches sampled *without
replacement* and replace-one neighbours: the sampling of the papers' own algorithms (one example per step, b = 1, or
a batch of b distinct examples).

The mechanism
-------------
At each of T steps a batch B of b distinct examples is drawn uniformly from the n examples (independently across
steps) and ``Σ_{i∈B} f_t(x_i) + N(0, σ² I)`` is released, where f_t may depend on everything released before (the
iterate of DP-SGD) and ``‖f_t(x) − f_t(x')‖ ≤ Δ`` for all examples x, x' (Δ = 2G for gradients clipped to norm G).
Neighbouring data sets have the same size n and differ in one example (replace-one).  The noise multiplier is
z = σ/Δ (the convention of :func:`dpviz.theory.accounting.epsilon_general` with ``sampling="without-replacement"``,
``neighbouring="replace-one"``); write γ = b/n and μ = 1/z.

The theorem behind the upper bound (:data:`THEOREM`)
----------------------------------------------------
Let P = (1 − γ)N(0, 1) + γN(μ, 1) and Q = N(0, 1).  The upper bound is the adaptive composition of the trade-off
function C_γ(G_μ) = min{f_γ, f_γ⁻¹}** with f_γ = γG_μ + (1 − γ)Id, by two results of Dong, Roth & Su ("Gaussian
Differential Privacy", JRSS-B 2022): their subsampling theorem (Theorem 4.2: if M is f-DP then M ∘ Sample_m, which runs
M on m of the n records drawn uniformly *without replacement*, neighbours differing in one record — replace-one —, is
C_{m/n}(f)-DP) applied to the Gaussian mechanism (G_μ-DP), and their composition theorem (Theorem 3.2: adaptive
composition of f_t-DP steps is f_1 ⊗ … ⊗ f_T-DP).  dpviz computes C_γ(G_μ)^{⊗T} as the PLD of a pair (P*, Q*) with
trade-off function C_γ(G_μ) — a dominating pair in the sense of Zhu, Dong & Wang ("Optimal Accounting of Differential
Privacy via Characteristic Function", AISTATS 2022), whose adaptive composition theorem for dominating pairs gives
the same bound.  Its PLD equals that of (P, Q) on positive privacy losses, its mirror image (weighted by e^{−ℓ}) on
the negative ones, and an atom at 0 with the rest.  Self-contained argument for one step, one order of the data sets:
couple the batch with and without the differing example; by the advanced joint convexity of Balle, Barthe & Gaboardi
(2018, Theorem 2) and joint convexity, each coupled pair ((1 − γ)R + γN(v), (1 − γ)R + γN(v')), R a mixture of
Gaussians within Δ of v and v', has H_{α'} ≤ γ H_α(N(μ) ‖ N(0)) = H_{α'}(P ‖ Q) for α' = 1 + γ(α − 1) ≥ 1; for
orders α < 1, H_α(A ‖ B) = 1 − α + α H_{1/α}(B ‖ A) turns the other order's bound into H_α(Q ‖ P).  So every step is
dominated, at every α ≥ 0 and in both orders, by (P*, Q*), whose hockey-stick curve is H_α(P ‖ Q) for α ≥ 1 and
H_α(Q ‖ P) for α < 1.

Why not (P, Q) itself: it dominates one order of the two data sets only (it is the pair Zhu, Dong & Wang's code,
autodp's ``AmplificationBySampling_pld(PoissonSampling=False)``, builds for sampling without replacement, for the
"remove_only" relation), and f_t can swap the roles of the two data sets from step to step: under composition a pair
for one order is not enough — the pitfall of Lebeda, Regehr, Kamath & Steinke ("Avoiding Pitfalls for Privacy
Accounting of Subsampled Mechanisms under Composition", 2024).  (P*, Q*) is the least single pair that dominates both
(P, Q) and (Q, P) at every α, so no single-pair accountant can certify less; what gap remains to the lower bound is
the price of one pair for both orders (see below), not numerics.

Sources checked (2026-11-27): autodp's transformer_zoo.py (the one-order pairs above); dp_accounting 0.6 has no PLD
for ``SampledWithoutReplacementDpEvent`` (its RDP accountant does, Wang, Balle & Kasiviswanathan 2019) and its
REPLACE_ONE sub-sampled Gaussian is the Poisson pair ((1−q)N(0)+qN(−1), (1−q)N(0)+qN(1)).  The theorem numbers of
Dong, Roth & Su are cited from the published paper and were not re-read here.

The lower bound
---------------
The data sets D = (n − 1 examples with f = −(Δ/2)e, one with f = +(Δ/2)e) and D' = (all n with f = −(Δ/2)e)
(gradients of a linear loss, clipped to G = Δ/2) give, at every step, exactly M(D) = P and M(D') = Q (shifted by a
constant), independently across steps.  So ε(δ) of the T-fold composition of (P, Q) is attained by a real pair of
neighbouring data sets: no valid accountant can certify less.  The gap between the two bounds is the price of the
single dominating pair (measured, b = 1, δ = 10⁻⁵, benchmarks/bench_pld_wor.py): at n = T = 10⁵ under 1 % for
ε ≥ 0.5 (0.3–0.9 %; the a-priori bound on the FFT's rounding adds up to about 0.5 %), 1.6 % at ε = 0.25, 6 % at
ε = 0.1; at n = T = 10⁴ under 1 % for ε from 1 to 4; at n = T = 10³ 1.5–2.4 % for ε ≥ 1 and 5–17 % below.  The true
ε lies between (an adaptive choice of the order of the two data sets, computed by dynamic programming at
n = T = 10³, z = 0.8, gained about 1.5 % over the lower bound at δ = 10⁻³ and nothing visible at 10⁻⁵, and switching
the order non-adaptively only lowers it, so the truth is probably near the lower bound; this is not certified).  The
upper bound cannot be tightened within one dominating pair per step: (P*, Q*) is the least pair dominating both
orders at every α.  The Rényi
accountant of the same mechanism is 1.4 (ε ≈ 8) to 18 (ε ≈ 0.1, n = T = 10⁵) times looser.

Numerics (certified at both ends)
---------------------------------
Losses are put on a grid of step h.  Upper: connect-the-dots (Doroshenko, Ghazi, Kamath, Kumar & Manurangsi 2022):
each grid cell's P- and Q-mass is split between its two end points so that both are preserved; the hockey-stick
curve becomes its linear interpolation in e^ε, which lies above the convex original, so the discrete pair dominates.
The far tail above the grid is put at +∞, its mirror image raised to the lowest knot.  Lower: a randomised
post-processing of (P, Q) (Blackwell: any garbling is dominated, also after composition) whose labels have likelihood
ratio *exactly* e^{o + kh} on a lattice with offset o: label 0 is the pile of mass just above the least loss
log(1 − γ) (all of ℓ < o + h/2, with o its own log ratio); then consecutive intervals of exact ratio while their mass
matters over T steps (bisection); then, per knot, its two half-cells mixed in the exact proportion, the remainder
rounded down.  Second-order accurate, unlike rounding losses down (up to h per step: at n = T = 10⁵ that alone is
O(1)).  T-fold composition is one FFT power on a window whose outside mass is bounded by Chernoff bounds computed from
the discrete PLD itself (that mass is added to δ in the upper bound and subtracted in the lower bound), plus the
floating-point error of the FFT, bounded entry by entry by twice its most negative output (added to every entry in
the upper bound, subtracted in the lower).  That error is about 1e-16 of the *largest* entry, in every entry: summed
over thousands of entries it exceeds a small δ (at δ = 10⁻¹² the plain FFT's upper bound was +∞ and its lower bound
far too low; dp_accounting 0.6's own self_compose is off in the other direction there: 6.371 where the explicit pair
needs 6.451 at n = T = 10⁴, z = 0.5).  When the error moves ε by more than 10⁻³ (relative), the composition is redone
exponentially tilted: p e^{λl}/M(λ) composed, then untilted by M(λ)^T e^{−λl}, with λ the Chernoff-optimal tilt for
the first estimate of ε, so that the error sits at the scale of the tilted bulk (near ε) and shrinks by e^{−λl} with
the loss; the window then also holds all but tau of the tilted mass.  The grid step is a third of one step's loss
spread γ·sqrt(e^{1/z²} − 1) (at most 1/150 of the composed spread); a coarser and a finer grid are compared and
``settled`` says when neither bound moves by 0.3 %.
"""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass

import numpy as np

from dpviz.foundation import validate as v

__all__ = ["THEOREM", "THEOREM_SHORT", "WorBracket", "applies", "epsilon_bracket", "matched", "matched_lines",
           "noise_bracket"]

#: the theorem the upper bound rests on, as shown on the dashboard (plain text)
THEOREM = (
    "Upper bound (Dong, Roth & Su 2022, Theorem 4.2, subsampling without replacement, replace-one neighbours; "
    "composed by their Theorem 3.2). With a batch of b of the n examples drawn without replacement (γ = b/n) and "
    "noise multiplier z = σ/Δ, each step of DP-SGD is Cγ(G1/z)-DP, Cγ(f) = min{fγ, fγ⁻¹}** with fγ = γ·f + (1−γ)·Id, "
    "and T adaptive steps are Cγ(G1/z)^⊗T-DP; dpviz computes this as the privacy-loss distribution of a dominating "
    "pair with that trade-off function (Zhu, Dong & Wang, AISTATS 2022): the privacy loss of P = (1−γ)·N(0, 1) + "
    "γ·N(1/z, 1) against Q = N(0, 1) above 0, mirrored below. (P, Q) alone dominates one order of the two data sets "
    "only, which is not enough under composition (Lebeda, Regehr, Kamath & Steinke 2024). Lower bound: (P, Q) "
    "composed T times, which one real pair of neighbouring data sets attains (a linear loss: every clipped gradient "
    "−G except the changed example's +G).")
#: one line for captions
THEOREM_SHORT = ("upper: Dong, Roth & Su (2022, Thm 4.2, sampling without replacement, replace-one) composed by their "
                 "Thm 3.2, as the PLD of a dominating pair (Zhu, Dong & Wang 2022); lower: an explicit pair of "
                 "neighbouring data sets")

_LOG_TAIL = math.log(1e-300)
#: most points of one FFT (about 32 MB per complex array); above, ValueError
MAX_POINTS = 2**22
#: a step's far tail dropped / put at +∞: this fraction of δ over all steps
_TAIL_FRACTION = 1e-4
#: the tilted composition's window holds all but this much of the tilted mass on each side
_TAU_TILTED = 1e-11


# -------------------------------------------------------------------------------------------------------------
# validation


def _check(noise_multiplier, delta, steps, n, batch_size):
    z = v.check_positive("noise multiplier z = σ/Δ", noise_multiplier)
    delta = v.check_delta(delta)
    if delta > 0.1:
        raise ValueError(f"δ must be at most 0.1 for this accountant (a meaningful guarantee), got {delta:g}.")
    steps = v.check_int("steps T", steps)
    n = v.check_int("n (number of examples)", n, minimum=2)
    b = v.check_int("batch size b", batch_size)
    if b >= n:
        raise ValueError(f"the batch size b = {b} must be smaller than n = {n} (b = n is full-batch gradient "
                         "descent, without sampling; use the full-batch accountant).")
    if steps > 10**7:
        raise ValueError(f"steps T = {steps} is above 10⁷, the most this accountant composes.")
    if z < 0.05 or z > 1e4:
        raise ValueError(f"the noise multiplier z = {z:g} is outside [0.05, 10⁴], the range of this PLD accountant.")
    return z, delta, steps, n, b


def applies(*, n, batch_size, sampling="without-replacement", neighbouring="replace-one") -> bool:
    """True when this accountant models the mechanism: a fixed-size batch b < n sampled without replacement,
    replace-one neighbours."""
    try:
        n, b = int(n), int(batch_size)
    except (TypeError, ValueError):
        return False
    return sampling == "without-replacement" and neighbouring == "replace-one" and 1 <= b < n


# -------------------------------------------------------------------------------------------------------------
# the pair (P, Q) in standard units: P = (1 - g) N(0, 1) + g N(mu, 1), Q = N(0, 1)


def _sf(x):
    from scipy.special import ndtr

    return ndtr(-x)


def _interval(a, b):
    """N(0, 1)-mass of [a, b) (a <= b elementwise), each difference on its accurate side."""
    from scipy.special import ndtr

    a = np.asarray(a, float)
    b = np.asarray(b, float)
    pos = a >= 0.0
    out = np.where(pos, ndtr(-a) - ndtr(-b), ndtr(b) - ndtr(a))
    return np.maximum(out, 0.0)


def _x_of_loss(lam, mu, g):
    """The x with ℓ(x) = log(1 − g + g e^{μx − μ²/2}) = lam (lam > log(1 − g))."""
    lam = np.asarray(lam, float)
    return (np.log(np.expm1(lam) / g + 1.0) + 0.5 * mu * mu) / mu


def _loss_of_x(x, mu, g):
    e = mu * np.asarray(x, float) - 0.5 * mu * mu
    return np.where(e < 700, np.log1p(g * np.expm1(np.minimum(e, 700))), math.log(g) + e)


def _cells(k, h, mu, g):
    """P- and Q-masses of the x-intervals where ℓ ∈ [k h, (k+1) h) (k >= the cell of log(1 − g))."""
    lo = np.maximum(k * h, math.log1p(-g))
    a = np.where(k * h <= math.log1p(-g), -np.inf, _x_of_loss(np.maximum(lo, math.log1p(-g) + 1e-300), mu, g))
    b = _x_of_loss((k + 1) * h, mu, g)
    mq = _interval(a, b)
    mp = (1.0 - g) * mq + g * _interval(a - mu, b - mu)
    return mp, mq


def _tail_x(tau, mu, g):
    """An x with P(X >= x) <= tau."""
    from scipy.special import ndtri

    return max(-ndtri(tau / 2.0), mu - ndtri(tau / (2.0 * g)))


def _split(mp, mq, a, h):
    """Connect-the-dots: the masses (at a, at a + h) that keep the P-mass mp and the Q-mass mq of a cell [a, a+h)
    (its privacy loss log(mp/mq) in [a, a + h]); rounding pushes mass up (pessimistic)."""
    den = np.exp(-a) * (-math.expm1(-h))
    hi = (mp * np.exp(-a) - mq) / den
    hi = np.clip(hi * (1.0 + 1e-9) + 1e-300, 0.0, mp)
    return mp - hi, hi


# -------------------------------------------------------------------------------------------------------------
# one-step PMFs on the grid k h


def _upper_pmf(mu, g, h, kmax):
    """Connect-the-dots PMF of the symmetrised pair on knots −kmax … kmax (index 0 ↔ −kmax), and its mass at +∞."""
    k = np.arange(0, kmax, dtype=float)
    mp, mq = _cells(k, h, mu, g)  # cells [kh, (k+1)h), k >= 0: losses > 0 of (P, Q)
    lo_p, hi_p = _split(mp, mq, k * h, h)
    # mirror: the cell [-(k+1)h, -kh) has P*-mass mq and Q*-mass mp
    lo_m, hi_m = _split(mq, mp, -(k + 1) * h, h)
    pmf = np.zeros(2 * kmax + 1)
    c = kmax  # index of knot 0
    pmf[c:c + kmax] += lo_p
    pmf[c + 1:c + kmax + 1] += hi_p
    # mirrored cell [-(k+1)h, -kh): its lower knot -(k+1) (index c-1-k) and its upper knot -k (index c-k)
    pmf[c - kmax:c] += lo_m[::-1]
    pmf[c - kmax + 1:c + 1] += hi_m[::-1]
    x_top = _x_of_loss(kmax * h, mu, g)
    p_inf = float((1.0 - g) * _sf(x_top) + g * _sf(x_top - mu))
    q_top = float(_sf(x_top))
    pmf[0] += q_top  # mirrored far tail: raised to the lowest knot (pessimistic)
    x0 = 0.5 * mu  # ℓ(x0) = 0
    atom0 = float((1.0 - g) * (1.0 - _sf(x0)) + g * (1.0 - _sf(x0 - mu)) - _sf(x0))
    pmf[c] += max(atom0, 0.0)
    return pmf, p_inf


def _masses(lb, ub, mu, g):
    """P- and Q-masses of the x-intervals where ℓ ∈ [lb, ub) (lb >= log(1 − g))."""
    lmin = math.log1p(-g)
    a = np.where(lb <= lmin, -np.inf, _x_of_loss(np.maximum(lb, lmin * (1.0 - 1e-15)), mu, g))
    b = _x_of_loss(ub, mu, g)
    mq = _interval(a, b)
    mp = (1.0 - g) * mq + g * _interval(a - mu, b - mu)
    return mp, mq


def _log_ratio_below(u, mu, g):
    """log(P(ℓ < u) / Q(ℓ < u))."""
    x = float(_x_of_loss(u, mu, g))
    from scipy.special import log_ndtr

    lq = float(log_ndtr(x))
    lp = float(np.logaddexp(math.log1p(-g) + lq, math.log(g) + float(log_ndtr(x - mu))))
    return lp - lq


_SQRT2 = math.sqrt(2.0)


def _interval_s(a: float, b: float) -> float:
    """N(0, 1)-mass of [a, b), scalar (math.erfc on the accurate side)."""
    if a >= 0.0:
        return max(0.5 * (math.erfc(a / _SQRT2) - math.erfc(b / _SQRT2)), 0.0)
    if b <= 0.0:
        return max(0.5 * (math.erfc(-b / _SQRT2) - math.erfc(-a / _SQRT2)), 0.0)
    return max(1.0 - 0.5 * (math.erfc(b / _SQRT2) + math.erfc(-a / _SQRT2)), 0.0)


def _mass_x(a, b, mu, g):
    """(P, Q) masses of [a, b) in x (scalars)."""
    q = _interval_s(a, b)
    return (1.0 - g) * q + g * _interval_s(a - mu, b - mu), q


def _lower_pmf(mu, g, h, kmax, steps):
    """A PMF dominated by (P, Q) on the lattice o + k h, k = 0 … K (see the module docstring): ``(o, pmf)``.

    Label 0 is {ℓ < u}, the pile of mass just above the least privacy loss log(1 − g), with u chosen so that its
    likelihood ratio is exactly e^o, o = u − h/2.  Then, while the labels hold mass that matters over ``steps``
    steps, consecutive x-intervals [a, b) each with ratio *exactly* e^{o + kh} (b solved by bisection; a knot is
    skipped when the interval overshoots it).  The rest of the line: each knot o + kh takes its half-cells
    B = [o + kh − h/2, o + kh) and A = [o + kh, o + kh + h/2) in the proportion that makes the ratio exactly e^{o+kh};
    what is left of A is rounded down to o + kh, what is left of B to o + (k − 1)h; beyond the grid, dropped.  A
    garbling of (P, Q) (Blackwell), then losses lowered: the composed δ(ε) can only fall, so its ε is a lower bound."""
    lmin = math.log1p(-g)
    lo_u, hi_u = lmin + abs(lmin) * 1e-12, 0.5 * h
    for _ in range(200):
        mid = 0.5 * (lo_u + hi_u)
        if _log_ratio_below(mid, mu, g) - (mid - 0.5 * h) > 0.0:
            lo_u = mid
        else:
            hi_u = mid
        if hi_u - lo_u <= 1e-15 * max(h, abs(mid)):
            break
    u = hi_u
    o = _log_ratio_below(u, mu, g)
    kk = max(int(math.ceil((kmax * h - o) / h)), 2)
    out = np.zeros(kk + 1)
    from scipy.special import ndtr

    a = float(_x_of_loss(u, mu, g))
    out[0] = float((1.0 - g) * ndtr(a) + g * ndtr(a - mu))
    # exact chain while the mass matters
    k = 1
    thr = 1e-4 / steps
    x_end = float(_x_of_loss(kk * h + o, mu, g))
    while k < kk:
        t = math.exp(o + k * h)
        xk = float(_x_of_loss(o + k * h, mu, g))
        if xk <= a:
            k += 1
            continue

        def f(b):
            mp, mq = _mass_x(a, b, mu, g)
            return mp - t * mq

        lo_b, hi_b = xk, xk + 2.0 * (xk - a)
        while f(hi_b) < 0.0 and hi_b < x_end:
            hi_b = xk + 2.0 * (hi_b - xk)
        if f(hi_b) < 0.0:
            break
        for _ in range(100):
            mid = 0.5 * (lo_b + hi_b)
            if f(mid) < 0.0:
                lo_b = mid
            else:
                hi_b = mid
            if hi_b - lo_b <= 1e-9 * (hi_b - a):
                break
        mp, _ = _mass_x(a, hi_b, mu, g)  # ratio >= e^{o+kh} (the root's upper end): rounding down is safe
        out[k] += mp
        a = hi_b
        if mp < thr:
            break
        lk = float(_loss_of_x(a, mu, g))
        k = max(k + 1, int(math.floor((lk - o) / h)) + 1)
    # half-cells from a onward: knots k … kk
    la = float(_loss_of_x(a, mu, g))
    k = max(int(math.floor((la - o) / h)) + 1, 1)
    if k <= kk:
        knots = np.arange(k, kk + 1)
        bnd = np.empty(2 * len(knots) + 1)
        bnd[0] = la
        bnd[1::2] = o + knots * h
        bnd[2::2] = o + knots * h + 0.5 * h
        bnd[1] = max(bnd[1], la)
        mp, mq = _masses(bnd[:-1], bnd[1:], mu, g)
        pB, qB, pA, qA = mp[0::2], mq[0::2], mp[1::2], mq[1::2]
        t = np.exp(o + knots * h)
        E = np.maximum(pA - t * qA, 0.0)
        D = np.maximum(t * qB - pB, 0.0)
        with np.errstate(divide="ignore", invalid="ignore"):
            r = np.where((E >= D) | (D <= 0.0), 1.0, E / D)
        out[knots] += pA + r * pB
        out[knots - 1] += (1.0 - r) * pB
    return o, out


# -------------------------------------------------------------------------------------------------------------
# composition


def _log_mgf(losses, pmf, lam):
    """log Σ p e^{λ l} for each λ (exact, shifted by the largest exponent)."""
    ok = pmf > 0
    l, lp = losses[ok], np.log(pmf[ok])
    out = np.empty(len(lam))
    for i, t in enumerate(lam):
        e = t * l + lp
        top = e.max()
        out[i] = top + math.log(np.exp(e - top).sum())
    return out


def _window(losses, pmf, steps, tau):
    """[a, b] holding all but ≤ tau of the composed loss's mass on each side (Chernoff bounds from the MGF of the
    discrete PMF: P(S_T > b) ≤ e^{−λb} M(λ)^T, P(S_T < a) ≤ e^{λa} M(−λ)^T).  The MGF is exact on the core
    |l| ≤ 0.05 and, beyond, computed on ≤ 4096 bins with each bin's mass at its largest loss (for λ > 0) or its
    smallest (λ < 0), which only raises the bounds."""
    core = np.abs(losses) <= 0.05
    rest = np.nonzero(~core & (pmf > 0))[0]
    lam = np.geomspace(1e-2, 50.0, 20)
    l_hi, l_lo, m = losses[core], losses[core], pmf[core]
    if len(rest):
        step = max(1, -(-len(rest) // 4096))
        starts = np.arange(0, len(rest), step)
        mass = np.add.reduceat(pmf[rest], starts)
        ends = np.minimum(starts + step - 1, len(rest) - 1)
        l_hi = np.concatenate([l_hi, losses[rest][ends]])
        l_lo = np.concatenate([l_lo, losses[rest][starts]])
        m = np.concatenate([m, mass])
    up = steps * _log_mgf(l_hi, m, lam)
    dn = steps * _log_mgf(l_lo, m, -lam)
    b = float(np.min((up - math.log(tau)) / lam))
    a = float(-np.min((dn - math.log(tau)) / lam))
    return a, b


def _tilt(losses, pmf, lam):
    """The exponentially tilted PMF p e^{λ l} / M(λ) and log M(λ) (computed in logs: no overflow)."""
    with np.errstate(divide="ignore"):
        lp = np.log(pmf) + lam * losses
    top = float(lp.max())
    w = np.exp(lp - top)
    s = float(w.sum())
    return w / s, top + math.log(s)


def _compose(k_first, pmf, h, steps, tau, shift=0.0, lam=0.0):
    """T-fold composition of one step's PMF by one FFT power: ``(l, c, err)``, the composed losses l (ascending, on
    a window holding all but tau of the mass on each side; the one-step losses are (k_first + i) h + shift/steps, the
    composed ones shift + j h), the masses c >= 0 and a bound err on each entry's floating-point error.

    With ``lam`` > 0 the PMF is exponentially tilted first (p e^{λl}/M(λ)), composed, and untilted
    (c = c̃ M(λ)^T e^{−λl}): the FFT's error, about 1e-16 of the largest entry, then sits at the scale of the
    tilted distribution, whose bulk is near the ε sought, instead of at the scale of the untilted bulk near 0; the
    error of entry l becomes ñ M(λ)^T e^{−λl}, far below a small δ where the plain FFT's 1e-16 · (number of
    entries) exceeds it (δ = 1e-12).  The window then also holds all but ``_TAU_TILTED`` of the *tilted* mass on each
    side; that wrap-around, untilted, is part of err (at a loss l > ε it is at most 2·_TAU_TILTED·M(λ)^T e^{−λl}, and
    M(λ)^T e^{−λε} is the Chernoff bound on δ(ε) itself, so this costs a relative 1e-11 / (λ h) of δ at most)."""
    from scipy import fft

    losses = (k_first + np.arange(len(pmf))) * h + shift / steps
    a, b = _window(losses, pmf, steps, tau)
    log_m = 0.0
    x1 = pmf
    if lam > 0.0:
        x1, log_m = _tilt(losses, pmf, lam)
        at, bt = _window(losses, x1, steps, _TAU_TILTED)
        a, b = min(a, at), max(b, bt)
    a, b = a - shift, b - shift
    ia = math.floor(a / h) - 1
    ib = math.ceil(b / h) + 1
    size = fft.next_fast_len(ib - ia + 1, real=True)
    if size > MAX_POINTS:
        raise ValueError(f"this PLD needs {size:,} grid points (the most is {MAX_POINTS:,}): these settings are "
                         "outside this accountant's range (fewer steps help); the Rényi accountant still applies.")
    pos = (k_first + np.arange(len(pmf))) % size
    x = np.bincount(pos, weights=x1, minlength=size)
    f = fft.rfft(x)
    with np.errstate(under="ignore"):
        fp = f ** steps
        c = fft.irfft(fp, size)
        # a priori bound on every entry's rounding error: each FFT output is a sum of the inputs along a tree of
        # log2(size) butterfly stages whose nodes partition the inputs, so |δf_k| <= η = 5 ε log2(size) ‖x‖₁; the
        # power turns it into T η (|f_k| + η)^{T−1} (plus T ε |f_k|^T for the power itself), and the inverse FFT
        # adds 5 ε log2(size) Σ|F_k| / size
        ulp = np.finfo(float).eps
        lg = math.log2(size)
        eta = 5.0 * ulp * lg * float(np.abs(x1).sum())
        af = np.abs(f)
        wts = np.full(len(f), 2.0)
        wts[0] = 1.0
        # (|f_k| + η)^{T−1} in logs, cut below e^{−700} (denormals are slow and negligible here)
        with np.errstate(divide="ignore"):
            lpow = (steps - 1) * np.log(np.minimum(af + eta, 1.0))
        sig = lpow > -700.0
        pw = np.exp(lpow[sig])
        a_err = float((wts[sig] * (steps * eta * pw + (4.0 * steps + 5.0 * lg) * ulp * np.abs(fp[sig]))).sum()
                      / size)
    # entry j holds the losses ≡ j (mod size); read them on [ia, ia + size)
    c = np.roll(c, -(ia % size))
    l = (ia + np.arange(size)) * h + shift
    noise = max(2.0 * float(-min(c.min(), 0.0)), a_err)
    c = np.maximum(c, 0.0)
    if lam <= 0.0:
        return l, c, np.full(size, noise)
    # untilt; only losses >= 0 enter ε >= 0 (below, the factor e^{-λl} can overflow: those entries are zeroed)
    keep = l >= 0.0
    fac = np.zeros(size)
    fac[keep] = np.exp(steps * log_m - lam * l[keep])
    return l, c * fac, (noise + 2.0 * _TAU_TILTED) * fac


def _eps_from(l, c, target):
    """Smallest ε >= 0 with Σ_{l > ε} c (1 − e^{ε − l}) <= target (c >= 0), exact within a grid cell."""
    if target <= 0.0:
        return math.inf
    sp = np.cumsum(c[::-1])[::-1]
    with np.errstate(over="ignore"):
        sq = np.cumsum((c * np.exp(-l))[::-1])[::-1]
    sp1 = np.append(sp[1:], 0.0)
    sq1 = np.append(sq[1:], 0.0)
    with np.errstate(over="ignore", invalid="ignore"):
        d_at = sp1 - np.exp(l) * sq1  # δ(l_r): atoms strictly above l_r
    ok = np.nonzero((d_at <= target) & (l >= 0.0))[0]
    if len(ok) == 0:
        return math.inf
    r = int(ok[0])
    # on [l_{r-1}, l_r): δ(ε) = sp[r] − e^ε sq[r]
    if r == 0 or sq[r] <= 0.0 or sp[r] <= target:
        return max(0.0, float(l[r]) if sp[r] > target else float(l[r - 1]) if r > 0 else 0.0)
    eps = math.log((sp[r] - target) / sq[r])
    return max(0.0, min(max(eps, float(l[r - 1])), float(l[r])))


@dataclass(frozen=True)
class WorBracket:
    """ε(δ) bracket of T steps of DP-SGD with batches sampled without replacement, replace-one neighbours."""

    eps_lower: float
    eps_upper: float
    eps_pld_upper: float
    eps_rdp: float
    grid: float
    points: int
    rel_width: float
    converged: bool
    settled: bool
    consistent: bool = True

    def as_dict(self) -> dict:
        return {"eps_lower": self.eps_lower, "eps_upper": self.eps_upper, "eps_pld_upper": self.eps_pld_upper,
                "eps_rdp": self.eps_rdp, "grid": self.grid, "points": self.points, "rel_width": self.rel_width,
                "converged": self.converged, "settled": self.settled, "consistent": self.consistent,
                "theorem": THEOREM_SHORT}


def _one_step_scale(mu, g):
    """Standard deviation of one step's privacy loss under Q to first order in g: g·sqrt(e^{μ²} − 1)."""
    return g * math.sqrt(math.expm1(min(mu * mu, 700.0)))


@functools.lru_cache(maxsize=4096)
def _eval(z, delta, steps, g, h, which):
    """(ε, FFT points) of the upper (symmetrised pair, connect-the-dots) or lower (explicit pair, garbling) bound."""
    mu = 1.0 / z
    tau_step = _TAIL_FRACTION * delta / steps
    x_top = _tail_x(tau_step, mu, g)
    l_top = float(_loss_of_x(x_top, mu, g))
    kmax = max(int(math.ceil(l_top / h)) + 1, 2)
    if kmax > MAX_POINTS // 2:  # the composition's window is at least about as wide: refused before any work
        raise ValueError(f"this PLD needs {kmax:,} grid points per step (the most is {MAX_POINTS:,}): these settings "
                         "are outside this accountant's range; the Rényi accountant still applies.")
    tau = 1e-6 * delta
    if which == "upper":
        pmf, p_inf = _upper_pmf(mu, g, h, kmax)
        k_first, shift = -kmax, 0.0
        p_inf_t = -math.expm1(steps * math.log1p(-p_inf)) if p_inf < 1 else 1.0
        target = delta - p_inf_t - tau
    else:
        o, pmf = _lower_pmf(mu, g, h, kmax, steps)
        k_first, shift = 0, steps * o
        target = delta + 2.0 * tau

    def run(lam):
        l, c, err = _compose(k_first, pmf, h, steps, tau, shift=shift, lam=lam)
        cc = c + err if which == "upper" else np.maximum(c - err, 0.0)
        return _eps_from(l, cc, target), _eps_from(l, c, delta), len(l)

    eps, est, pts = run(0.0)
    # the plain FFT's error (about 1e-16 of the largest entry, in every entry) moves ε: tilt towards the estimate
    if 0.0 < est < math.inf and not (abs(eps - est) <= 1e-3 * est):
        losses1 = (k_first + np.arange(len(pmf))) * h + shift / steps
        lams = np.geomspace(1e-2, 200.0, 60)
        lam = float(lams[np.argmin(steps * _log_mgf(losses1, pmf, lams) - lams * est)])
        for lam_try in (lam, 0.5 * lam, 0.25 * lam):
            try:  # a large tilt can need a window wider than MAX_POINTS: then a smaller one
                eps_t, _, pts_t = run(lam_try)
            except ValueError:
                continue
            eps = min(eps, eps_t) if which == "upper" else max(eps, eps_t)
            pts = max(pts, pts_t)
            break
    return eps, pts


def _grid_for(z, steps, g, fine: float):
    """Grid step: a third of one step's loss spread, at most 1/150 of the composed spread (both bounds then sit
    within about 0.3 % of their limits; measured in benchmarks/bench_pld_wor.py), divided by ``fine``."""
    s1 = _one_step_scale(1.0 / z, g)
    h = min(s1 / 3.0, s1 * math.sqrt(steps) / 150.0, 2e-3) / fine
    return max(h, 1e-7)


def _rdp(z, delta, steps, g):
    from dpviz.theory import accounting

    return accounting.epsilon_general(noise_multiplier=z, delta=delta, steps=steps, sampling_prob=g,
                                      sampling="without-replacement", neighbouring="replace-one")


@functools.lru_cache(maxsize=1024)
def _bracket(z, delta, steps, g, rel_tol):
    eps_rdp = _rdp(z, delta, steps, g)
    up, lo, pts, h, settled = math.inf, 0.0, 0, None, False
    prev = None
    for fine in (0.5, 1.0, 2.0, 4.0):
        h_try = _grid_for(z, steps, g, fine)
        try:
            u, p1 = _eval(z, delta, steps, g, h_try, "upper")
            w_, p2 = _eval(z, delta, steps, g, h_try, "lower")
        except ValueError:
            if prev is None:
                raise  # not even the coarsest grid fits: refused with the reason
            break  # a finer grid would not fit in MAX_POINTS: keep the bounds of the coarser ones (valid), unsettled
        h = h_try
        up, lo, pts = min(up, u), max(lo, w_), max(pts, p1, p2)
        if up <= lo * (1.0 + rel_tol):
            settled = True
            break
        if prev is not None and abs(prev[0] - u) <= 3e-3 * u and abs(prev[1] - w_) <= 3e-3 * max(w_, 1e-300):
            settled = True  # the discretisation has settled: the remaining gap is the single dominating pair's
            break
        prev = (u, w_)
    upper = min(up, eps_rdp)
    # a certified lower bound above a valid upper bound means the numerics failed somewhere: never hidden by the
    # clamp below — ``consistent`` says so and ``converged`` is then false
    consistent = lo <= upper * (1.0 + 1e-9)
    lower = min(lo, upper)
    width = (upper - lower) / upper if upper > 0 else 0.0
    return WorBracket(lower, upper, up, eps_rdp, h, pts, width, consistent and width <= rel_tol, settled, consistent)


def epsilon_bracket(*, noise_multiplier, delta, steps, n, batch_size=1, rel_tol=0.01) -> dict:
    r"""Certified bounds on the ε at which T = ``steps`` steps of DP-SGD with a batch of ``batch_size`` of the ``n``
    examples sampled without replacement at each step (replace-one neighbours; noise multiplier z = σ/Δ, Δ the
    replace-one sensitivity, e.g. 2G for gradients clipped to G) are (ε, δ)-DP.

    Returns a dict: ``eps_upper`` (certified: Dong, Roth & Su 2022, Theorem 4.2, composed by their Theorem 3.2, as
    the PLD of a dominating pair for both orders of the data sets — see :data:`THEOREM` — and never above
    ``eps_rdp``, the Rényi bound of Wang, Balle & Kasiviswanathan 2019, which is also valid), ``eps_lower`` (the ε
    of an explicit pair of neighbouring data sets: no valid accountant certifies less), ``rel_width`` =
    (upper − lower)/upper, ``converged`` (``rel_width`` ≤ ``rel_tol``), ``settled`` (a finer grid no longer moves
    either bound by 0.3 %: what gap remains is the price of one dominating pair for both orders of the data sets, not
    numerics), ``consistent`` (false if the lower bound
    came out above an upper bound — a numerical failure, reported, never hidden: ``eps_lower`` is then clamped and
    ``converged`` false), the grid step and the FFT size.
    """
    z, delta, steps, n, b = _check(noise_multiplier, delta, steps, n, batch_size)
    rel_tol = v.check_positive("rel_tol", rel_tol)
    if rel_tol >= 1.0:
        raise ValueError(f"rel_tol must be a relative width below 1, got {rel_tol:g}.")
    return _bracket(z, delta, steps, b / n, float(rel_tol)).as_dict()


def _search(f, target, z0, want_le: bool, rtol: float, slope: float | None = None):
    """For ε(z) = f(z) decreasing in z: the smallest z (to a factor 1 + rtol) with f(z) <= target (want_le; the
    returned z has f(z) <= target), or the largest z with f(z) > target (the returned z has f(z) > target).
    Secant steps on (log z, log ε) until the target is bracketed (each step at most a factor 3), then the Illinois
    variant of regula falsi.  Returns (z, the last log-log slope)."""
    lo_lz, hi_lz = math.log(0.05), math.log(1e4)

    def g(lz):
        return math.log(max(f(math.exp(lz)), 1e-300)) - math.log(target)

    x0 = min(max(math.log(z0), lo_lz), hi_lz)
    y0 = g(x0)
    s_ = slope if slope is not None and slope < -0.05 else -2.0
    a = b = None
    for _ in range(40):
        if y0 > 0:
            a, ga = x0, y0
        else:
            b, gb = x0, y0
        if a is not None and b is not None:
            break
        step = min(max(-y0 / s_, -math.log(3.0)), math.log(3.0))
        if abs(step) < 0.5 * math.log1p(rtol):
            step = math.copysign(0.5 * math.log1p(rtol), step if step != 0 else (1.0 if y0 > 0 else -1.0))
        x1 = x0 + step
        if x1 > hi_lz:
            raise ValueError(f"no noise multiplier up to 10⁴ reaches ε = {target:g}.")
        if x1 < lo_lz:
            raise ValueError(f"ε = {target:g} is reached by every noise multiplier down to 0.05, the lower end of this "
                             "accountant's range.")
        y1 = g(x1)
        if y1 != y0:
            s_ = min((y1 - y0) / (x1 - x0), -0.05)
        x0, y0 = x1, y1
    side = 0
    while b - a > math.log1p(rtol):  # g(a) > 0 >= g(b)
        c = b - gb * (b - a) / (gb - ga) if gb != ga else 0.5 * (a + b)
        c = min(max(c, a + 0.05 * (b - a)), b - 0.05 * (b - a))
        gc = g(c)
        if gc > 0:
            a, ga = c, gc
            if side == -1:
                gb *= 0.5
            side = -1
        else:
            b, gb = c, gc
            if side == 1:
                ga *= 0.5
            side = 1
    sl = (gb - ga) / (b - a) if b > a else s_
    return (math.exp(b) if want_le else math.exp(a)), sl


def noise_bracket(*, eps, delta, steps, n, batch_size=1, rtol=5e-3) -> dict:
    """The noise multiplier z = σ/Δ for a target ε, certified at both ends: ``z_upper`` certainly suffices (its
    certified upper ε is <= ``eps``); every z at or below ``z_lower`` certainly does not (the explicit pair of data
    sets of :func:`epsilon_bracket` then has ε > ``eps``).  ``z_rdp`` is the Rényi accountant's noise, for comparison."""
    eps = v.check_eps(eps)
    _, delta, steps, n, b = _check(1.0, delta, steps, n, batch_size)
    rtol = v.check_positive("rtol", rtol)
    if rtol >= 0.1:
        raise ValueError(f"rtol must be a small relative tolerance (< 0.1), got {rtol:g}.")
    g = b / n

    def up(z):
        return min(_eval(z, delta, steps, g, _grid_for(z, steps, g, 0.5), "upper")[0], _rdp(z, delta, steps, g))

    def lo(z):
        return _eval(z, delta, steps, g, _grid_for(z, steps, g, 0.5), "lower")[0]

    # a start: the noise at which the Gaussian approximation of the upper pair's composition reaches eps
    z_up, slope = _search(up, eps, _start(eps, delta, steps, g), True, rtol)
    z_lo, _ = _search(lo, eps, z_up * math.exp(-math.log1p(rtol)), False, rtol, slope)
    z_lo = min(z_lo, z_up)
    return {"z_upper": z_up, "z_lower": z_lo, "rel_width": (z_up - z_lo) / z_up, "theorem": THEOREM_SHORT}


def _start(eps, delta, steps, g):
    """A first noise multiplier: the z whose composed (P, Q) has the variance of a Gaussian privacy loss reaching eps
    (μ_GDP with ε = μ²/2 + μ·sqrt(2 log(1/δ))): T g² (e^{1/z²} − 1) = μ_GDP²."""
    lg = math.sqrt(2.0 * math.log(1.0 / delta))
    m = -lg + math.sqrt(lg * lg + 2.0 * eps)
    chi = m * m / (steps * g * g)
    return 1.0 / math.sqrt(math.log1p(chi)) if chi > 0 else 1.0


def matched(*, n, batch_size, steps, eps, delta, sensitivity, sigmas=None) -> dict:
    """What the dashboard shows for DP-SGD with b of n examples per step sampled without replacement (replace-one):
    the certified σ bracket for the target ``eps`` (σ = z·``sensitivity``, Δ = 2G) and the ε bracket of each named σ
    in ``sigmas`` ({"paper's σ": 1.3, …}; None values skipped).  On a ValueError (outside this accountant's range)
    ``{"error": message}``: the callers then keep the Rényi accountant alone."""
    sens = v.check_positive("sensitivity", sensitivity)
    try:
        nb = noise_bracket(eps=eps, delta=delta, steps=steps, n=n, batch_size=batch_size)
        out = {"sigma_lower": nb["z_lower"] * sens, "sigma_upper": nb["z_upper"] * sens, "eps": {}}
        for name, s in (sigmas or {}).items():
            if s is None:
                continue
            br = epsilon_bracket(noise_multiplier=float(s) / sens, delta=delta, steps=steps, n=n,
                                 batch_size=batch_size)
            out["eps"][name] = br
    except ValueError as exc:
        return {"error": str(exc)}
    return out


def matched_lines(res: dict, eps: float) -> list[str]:
    """Plain sentences for :func:`matched`'s result (the dashboard's text; no Markdown from user input)."""
    if "error" in res:
        return [f"The tight without-replacement PLD accountant does not apply here: {res['error']}"]
    lines = [f"σ for ε = {eps:.4g}: {res['sigma_upper']:.4g} certainly suffices; any σ up to {res['sigma_lower']:.4g} "
             "certainly does not (an explicit pair of neighbouring data sets then has a larger ε)."]
    for name, br in res["eps"].items():
        gap = "" if br["converged"] else (f" (the bracket is {100 * br['rel_width']:.1f} % wide: the price of one "
                                          "dominating pair for both orders of the two data sets)")
        if not br.get("consistent", True):
            gap = (" (the PLD's lower bound came out above an upper bound here, a numerical failure: only the upper "
                   "bound is certified)")
        lines.append(f"ε of {name}: between {br['eps_lower']:.4g} and {br['eps_upper']:.4g}{gap}; the Rényi "
                     f"accountant of the same mechanism certifies {br['eps_rdp']:.4g}.")
    return lines
