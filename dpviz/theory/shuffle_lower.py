r"""A certified lower bound on ε for DP-SGD with shuffled batches (Chua, Ghazi, Kamath, Kumar, Manurangsi, Sinha &
Zhang, "How Private are DP-SGD Implementations?", ICML 2024, one epoch; and "Scalable DP-SGD: Shuffling vs.
Poisson Subsampling", NeurIPS 2024, several epochs).

**The loader.**  Every epoch draws a fresh uniformly random permutation of the n examples and cuts it into
k = ⌊n/b⌋ batches of b (the ≤ b − 1 examples left over are skipped that epoch); each step adds N(0, σ²C²I) to the
sum of the batch's gradients clipped to norm C.

**The pair of data sets** (Chua et al., ICML 2024, Sec. 4; the one their code in google-research
``dpsgd_batch_sampler_accounting`` evaluates).  Take one-dimensional gradients: every example but one has gradient
−C; the differing example has gradient a·C − C... more simply, in units of C and after subtracting the common batch
sum, the batch that holds the differing example is shifted by ``mean_upper`` in one data set and by ``mean_lower``
in the other, every other batch by 0.  Under add/remove (zero-out: the example's gradient is C in one data set and
0 in the other, its slot kept, as in Chua et al.) the shifts are (2, 1); under replace-one (its gradient C or −C,
the others 0) they are (1, −1).  One epoch of the mechanism then outputs, in units of C,

    P = Σ_t w · N(mean_upper · e_t, σ² I_k) + (1 − k w) · N(0, σ² I_k)   against   the same with mean_lower,

with w = b/n the chance that the example is in batch t (k·w = 1 when b divides n).  Any test of P against Q is a
test an adversary can run on the training run, so the hockey-stick divergence of (P, Q) — in either order — is a
lower bound on the δ(ε) of the shuffled run; the ε at which it equals δ is a lower bound on the run's ε.

**One epoch**: the test "max_t x_t > C" (Chua et al.'s cube E_C) gives δ(ε) ≥ max_C [P(max > C) − e^ε Q(max > C)]
exactly, from Gaussian CDFs (:func:`single_epoch_delta`); both orders of the pair are tried.

**Several epochs** (fresh shuffles: the epochs are independent; Chua et al., NeurIPS 2024, Sec. 3): the statistic
max_t x_t of each epoch is bucketed into slices (a post-processing, so it can only lose privacy loss), each slice's
exact privacy loss log(p_i/q_i) is rounded *down* to a grid of step Δ (which can only lower δ(ε) =
E_P[(1 − e^{ε − L})₊]), and the E epochs' losses are added by convolution (FFT; its absolute error, at most
:data:`FFT_ERROR`, is added to the target δ before solving).  A partial last epoch of r < k steps is one more
factor (the example is in one of its r batches with probability r·w).  Every step lowers the bound, so the result is
a certified lower bound, and never below the single-epoch one (dropping epochs is a post-processing).

Invariants (tested): never above the ε of the same number of participations without amplification (E Gaussian
mechanisms, μ = √E/σ — the pair above is a post-processing of one Gaussian release per epoch); non-increasing in σ.
"""

from __future__ import annotations

import functools
import math

import numpy as np
from scipy import special

__all__ = ["PAIRS", "single_epoch_delta", "epsilon_lower", "FFT_ERROR"]

#: (mean_upper, mean_lower) of the pair of data sets, in units of the clipping norm C, per neighbouring relation
PAIRS = {"add-remove": (2.0, 1.0), "replace-one": (1.0, -1.0)}

#: Most slices of one epoch's max statistic, and most grid points of the composed PMF (both bound the work and the
#: memory: about 20 MB and a second at most; beyond them the slices / the grid get coarser, which keeps the bound)
MAX_SLICES = 200_000
MAX_COMPOSED = 4_000_000

#: A bound on the absolute error of the FFT convolutions of the composed PMF (added to the target δ).
FFT_ERROR = 1e-12

#: Each end of a composed PMF whose mass is below DROP·δ is dropped (about 2·log2(E) + 2 times per bound, so δ(ε)
#: moves by less than 10⁻³·δ): the support, and the FFTs, stay short.
DROP = 1e-5

_LOG_TAIL = -60.0  # slices cover the max statistic between the quantiles e^-60 and 1 - e^-60 (the rest: one bucket each)


def _log_cdf_max(C, sigma: float, mean: float, r: int, w: float):
    """log P(max_{t<=r} x_t <= C) when the example's batch (probability w each, r observed batches) is shifted by
    ``mean`` and every coordinate has noise N(0, σ²)."""
    C = np.asarray(C, dtype=float)
    base = special.log_ndtr(C / sigma)
    spike = special.log_ndtr((C - mean) / sigma) + (r - 1) * base
    if r * w >= 1.0:
        return spike
    rest = r * base
    return np.logaddexp(math.log(r * w) + spike, math.log1p(-r * w) + rest)


def single_epoch_delta(eps: float, sigma: float, mean_upper: float, mean_lower: float, r: int, w: float) -> float:
    """max over the cubes E_C = {max_t x_t <= C} and their complements, in both orders of the pair, of
    P(E) − e^ε Q(E): a lower bound on δ(ε) of one epoch (Chua et al., ICML 2024, Sec. 4)."""
    lo = mean_lower - 12.0 * sigma
    hi = mean_upper + 12.0 * sigma + sigma * math.sqrt(2.0 * math.log(max(r, 2)))
    best = 0.0
    grid = np.linspace(lo, hi, 4001)
    for _ in range(3):  # a coarse grid, then two zooms around the best cap of each set
        lu = np.minimum(_log_cdf_max(grid, sigma, mean_upper, r, w), 0.0)
        ll = np.minimum(_log_cdf_max(grid, sigma, mean_lower, r, w), 0.0)
        with np.errstate(divide="ignore", invalid="ignore"):
            su, sl = np.log(-np.expm1(lu)), np.log(-np.expm1(ll))  # log P(max > C)

        def hs(la, lb):  # A − e^ε B from log A, log B, without overflow at large ε (0 where A = 0)
            d = eps + lb - la
            return np.where(d < 0.0, np.exp(la) * -np.expm1(np.minimum(d, 0.0)), 0.0)

        with np.errstate(invalid="ignore"):  # −inf − (−inf) where both masses are 0: nan, mapped to 0 above
            cands = [hs(su, sl), hs(sl, su), hs(lu, ll), hs(ll, lu)]
        vals = [float(np.max(c)) for c in cands]
        i = int(np.argmax(vals))
        best = max(best, vals[i])
        j = int(np.argmax(cands[i]))
        step = grid[1] - grid[0]
        grid = np.linspace(grid[max(j - 1, 0)], grid[min(j + 1, len(grid) - 1)], 401)
        if step < 1e-9:
            break
    return max(best, 0.0)


def _eps_from_delta_fn(delta_fn, delta: float, hi: float) -> float:
    """The largest ε in [0, hi] with delta_fn(ε) > delta (delta_fn non-increasing), by bisection; 0 if none."""
    if delta_fn(0.0) <= delta:
        return 0.0
    lo = 0.0
    while delta_fn(hi) > delta:
        lo, hi = hi, 2.0 * hi
        if hi > 1e4:
            return lo
    for _ in range(60):
        mid = 0.5 * (lo + hi)
        if delta_fn(mid) > delta:
            lo = mid
        else:
            hi = mid
        if hi - lo <= 1e-6 * max(hi, 1e-9):
            break
    return lo


def _bucket_pmf(sigma: float, mu: float, ml: float, r: int, w: float, slice_width: float):
    """(losses, P-masses, P-mass of infinite loss) of one epoch's bucketed max statistic: each bucket's exact
    privacy loss log(P(bucket)/Q(bucket)) (example shift ``mu`` under P, ``ml`` under Q)."""
    top = max(mu, ml, 0.0)
    low = min(mu, ml, 0.0)
    lo_cap = low + sigma * float(special.ndtri(math.exp(_LOG_TAIL / max(r, 1))))
    hi_cap = top + sigma * float(-special.ndtri(-math.expm1(math.log1p(-math.exp(_LOG_TAIL)) / max(r, 1))))
    hi_cap = max(hi_cap, top + 12.0 * sigma)
    slice_width = max(slice_width, (hi_cap - lo_cap) / MAX_SLICES)  # wider slices: a coarser post-processing
    count = int(math.ceil((hi_cap - lo_cap) / slice_width))
    edges = lo_cap + slice_width * np.arange(count + 1)
    lp = _log_cdf_max(edges, sigma, mu, r, w)
    lq = _log_cdf_max(edges, sigma, ml, r, w)

    def masses(lc):
        cdf = np.exp(lc)
        sf = -np.expm1(lc)
        low_part = cdf[1:] - cdf[:-1]
        high_part = sf[:-1] - sf[1:]
        m = np.where(cdf[:-1] > 0.5, high_part, low_part)
        return np.concatenate([[cdf[0]], np.maximum(m, 0.0), [sf[-1]]])

    p, q = masses(lp), masses(lq)
    keep = (p > 0) & (q > 0)
    lost_p = float(p[(p > 0) & (q <= 0)].sum())  # loss +inf: kept as infinite mass (it only adds to delta)
    loss = np.log(p[keep]) - np.log(q[keep])
    return loss, p[keep], lost_p


def _bin(loss: np.ndarray, mass: np.ndarray, grid: float):
    """(offset, PMF) of the losses rounded down to multiples of ``grid``."""
    k = np.floor(loss / grid).astype(np.int64)
    kmin = int(k.min())
    return kmin, np.bincount(k - kmin, weights=mass)


def fftconvolve(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """The full linear convolution of two non-negative arrays by numpy's real FFT (scipy.signal takes seconds to
    import)."""
    size = len(a) + len(b) - 1
    if min(len(a), len(b)) <= 64:
        return np.convolve(a, b)
    nfft = 1 << (size - 1).bit_length()
    return np.fft.irfft(np.fft.rfft(a, nfft) * np.fft.rfft(b, nfft), nfft)[:size]


def _drop_low(k0: int, pmf: np.ndarray, mass: float = 1e-30):
    """Drop both ends of a PMF, each of total mass below ``mass`` (dropping mass only lowers δ(ε) =
    E[(1 − e^{ε − L})₊], so the bound stays a lower bound; it moves by at most 2·``mass`` per drop)."""
    cs = np.cumsum(pmf)
    lo = int(np.searchsorted(cs, mass))
    hi = int(np.searchsorted(cs, cs[-1] - mass))
    lo = min(lo, len(pmf) - 1)
    hi = max(min(hi + 1, len(pmf)), lo + 1)
    return k0 + lo, pmf[lo:hi]


def _compose(kmin: int, pmf: np.ndarray, times: int, drop: float):
    """``times``-fold self-convolution of a PMF on an integer grid (offset kmin), by repeated squaring (FFT;
    negative round-off clipped to 0)."""
    out_k, out = 0, np.array([1.0])
    base_k, base = kmin, pmf
    while times:
        if times & 1:
            out_k, out = _drop_low(out_k + base_k, np.maximum(fftconvolve(out, base), 0.0), drop)
        times >>= 1
        if times:
            base_k, base = _drop_low(2 * base_k, np.maximum(fftconvolve(base, base), 0.0), drop)
    return out_k, out


def _delta_curve(k0: int, pmf: np.ndarray, grid: float, inf_mass: float):
    """δ(ε) = inf_mass + Σ_k pmf_k (1 − e^{ε − kΔ})₊ as a function (vectorised through cumulative sums)."""
    losses = (k0 + np.arange(len(pmf))) * grid
    # suffix sums of pmf and of pmf·e^{−loss}; only suffixes starting at a loss > ε >= 0 are used, so the
    # negative losses (whose e^{−loss} could overflow) are given e^0 harmlessly
    a = np.cumsum(pmf[::-1])[::-1]
    b = np.cumsum((pmf * np.exp(-np.maximum(losses, 0.0)))[::-1])[::-1]

    def delta(eps: float) -> float:
        i = int(np.searchsorted(losses, max(eps, 0.0), side="right"))
        if i >= len(pmf):
            return inf_mass
        tail = float(b[i])
        sub = math.exp(eps + math.log(tail)) if tail > 0 else 0.0
        return inf_mass + max(float(a[i]) - sub, 0.0)

    return delta


@functools.lru_cache(maxsize=512)
def epsilon_lower(*, noise_multiplier: float, delta: float, n: int, batch_size: int, steps: int,
                  neighbouring: str = "add-remove", grid: float | None = None) -> dict:
    """Certified lower bound on ε of DP-SGD with shuffled batches (module docstring): ``{"eps_lower",
    "eps_single_epoch", "epochs", "partial_steps", "steps_per_epoch", "grid", "pair"}``.

    ``noise_multiplier`` is σ/C; ``steps`` the total number of steps; ``batch_size`` b ≤ n.  Raises
    ``ValueError`` for invalid inputs."""
    z = float(noise_multiplier)
    if not (math.isfinite(z) and z > 0):
        raise ValueError(f"noise_multiplier must be a positive number, got {noise_multiplier!r}.")
    if not 0.0 < float(delta) < 1.0:
        raise ValueError(f"delta must lie in (0, 1), got {delta!r}.")
    n, b, steps = int(n), int(batch_size), int(steps)
    if not 1 <= b <= n:
        raise ValueError(f"batch_size must be a whole number from 1 to n = {n}, got {batch_size!r}.")
    if steps < 1:
        raise ValueError(f"steps must be at least 1, got {steps!r}.")
    if neighbouring not in PAIRS:
        raise ValueError(f"neighbouring must be one of {', '.join(PAIRS)}, got {neighbouring!r}.")
    mu, ml = PAIRS[neighbouring]
    k = n // b
    w = b / n
    epochs, r = divmod(steps, k)
    # one epoch's exact cube bound (the first, full or partial, epoch is a post-processing of the whole run)
    r1 = k if epochs else r
    single = _eps_from_delta_fn(lambda e: single_epoch_delta(e, z, mu, ml, r1, w), float(delta), 1.0)
    if epochs == 0 or (epochs == 1 and r == 0):
        return {"eps_lower": single, "eps_single_epoch": single, "epochs": epochs, "partial_steps": r,
                "steps_per_epoch": k, "grid": None, "pair": (mu, ml)}
    parts = [(k, epochs)] + ([(r, 1)] if r else [])
    E = epochs + (1 if r else 0)
    if grid is None:
        grid = min(1e-3, 0.02 / E)
    drop = DROP * float(delta)
    used_grid = grid
    best = single
    for upper, lower in ((mu, ml), (ml, mu)):
        width = min(grid * z * z / abs(upper - lower), 0.05 * z)
        pieces = [(_bucket_pmf(z, upper, lower, steps_in, w, width), times) for steps_in, times in parts]
        # the composed support spans about E times one epoch's losses: a coarser grid where it would be too long
        # (rounding down to a coarser grid is still rounding down: the bound stays a lower bound, only looser)
        span = max(float(pc[0][0].max() - pc[0][0].min()) for pc in pieces)
        g = max(grid, span * E / MAX_COMPOSED)
        tot_k, tot, inf_mass = 0, np.array([1.0]), 0.0
        for (loss, mass, lost), times in pieces:
            kmin, pmf = _bin(loss, mass, g)
            ck, cp = _compose(kmin, pmf, times, drop)
            tot_k, tot = _drop_low(tot_k + ck, np.maximum(fftconvolve(tot, cp), 0.0), drop)
            inf_mass = 1.0 - (1.0 - inf_mass) * (1.0 - lost) ** times
        used_grid = max(used_grid, g)
        fn = _delta_curve(tot_k, tot, g, inf_mass)
        eps = _eps_from_delta_fn(fn, float(delta) + FFT_ERROR, max(best, 0.1))
        best = max(best, eps)
    return {"eps_lower": best, "eps_single_epoch": single, "epochs": epochs, "partial_steps": r,
            "steps_per_epoch": k, "grid": used_grid, "pair": (mu, ml)}
