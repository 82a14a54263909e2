"""Privacy-loss distributions through ``dp_accounting`` (pessimistic connect-the-dots and optimistic PMFs of one
step, composed by :func:`dpviz.theory.pld_lower._compose_eps` with a bounded numerical error), the work estimates that
refuse a PLD before it is built (:class:`PldTooLarge`), the result type :class:`PldBracket`, and the PRV accountant of
Gopi, Lee & Wutschitz (2021) as a second certified reference.

dp_accounting's PLD rounds every privacy loss to a grid of step Δ.  The pessimistic (connect-the-dots) PLD gives an ε
that is an upper bound at every Δ and converges to the exact ε as Δ → 0 (the error falls about like Δ²); the
optimistic (privacy-buckets, rounding down) PLD gives a lower bound, but its error is about T·Δ/2, so it is loose for
long compositions."""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass

from dpviz.theory.accounting.checks import _Z_MAX, _Z_MIN


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


def _refinement_stopped(exc: ValueError, computed: bool) -> str:
    """The note for a grid refinement that stopped at ``exc`` (a :class:`PldTooLarge` or an ``Unsettled``
    composition); when no grid has been computed yet there is nothing to report, so the error is raised instead
    (a too-large PLD with the advice to use RDP's ε)."""
    if not computed:
        if isinstance(exc, PldTooLarge):
            raise PldTooLarge(f"PLD not computed: {exc}; RDP's ε is the upper bound to use.") from None
        raise exc
    return f"refinement stopped: {exc}"


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
    lower_from: str | None = None  # "pld-optimistic", "pld-merged", "pld-replace-pair" or "prv"
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
