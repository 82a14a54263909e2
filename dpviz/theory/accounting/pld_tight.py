"""Tight two-sided PLD for Poisson sampling under add/remove neighbours (issue 21, "ε with error bars").

Upper bound: connect-the-dots PLD (dp_accounting's algorithm, vectorised in :mod:`dpviz.theory.pld_lower`); lower
bound: the PLD of a post-processing of the mechanism whose privacy losses lie exactly on the grid
(:mod:`dpviz.theory.pld_lower`).  Both err by O(Δ²) per step, so a grid of step Δ ≈ ε/(16√T) brackets ε to about
1 % — where the optimistic (rounded-down) PLD loses up to T·Δ and the PRV accountant's certified grid needs tens of
millions of points."""

from __future__ import annotations

import functools
import math

from dpviz.theory.accounting.pld_dp import (_PLD_COARSEST, _PLD_START, PldBracket, PldTooLarge, _pld_eval,
                                            _pld_support, _refinement_stopped)
from dpviz.theory.accounting.rdp_poisson import _rdp_eps
from dpviz.theory.accounting.search import _bracket_root, _rdp_slope, _solve_rdp
from dpviz.theory.pld_lower import Unsettled


#: Grid points (the composed support divided by the grid step, summed over the grids tried) one tight bracket may use.
TIGHT_BUDGET = 2_000_000


#: Most exact intervals the lower-bound construction may build (a Python loop, about 10 µs each).
TIGHT_MAX_GROUPS = 60_000


#: Most points of one step's PLD on the tight grid (its composition may be several times longer).
TIGHT_MAX_POINTS = 2**20


@functools.lru_cache(maxsize=4096)
def _tight_eval(z: float, delta: float, steps: int, q: float, grid: float, which: str) -> float:
    """ε upper (connect-the-dots) or lower (merged-interval post-processing) bound at grid step ``grid``; the lower
    raises ``ValueError`` when it would need more than :data:`TIGHT_MAX_GROUPS` intervals."""
    from dpviz.theory import pld_lower

    if pld_lower.loss_span(z, q, steps, delta) / grid > TIGHT_MAX_POINTS:
        raise PldTooLarge(f"one step's PLD would need about {pld_lower.loss_span(z, q, steps, delta) / grid:.3g} "
                          f"grid points at step {grid:g} (at most {TIGHT_MAX_POINTS:.3g})")
    if which == "upper":
        try:
            return pld_lower.upper_epsilon(z, q, steps, delta, grid)
        except pld_lower.Unsettled:
            raise
        except ValueError as exc:  # the composition's FFT would not fit
            raise PldTooLarge(str(exc)) from None
    return pld_lower.lower_epsilon(z, q, steps, delta, grid, max_groups=TIGHT_MAX_GROUPS)


def _tight_lower(z: float, delta: float, steps: int, q: float, grid: float) -> tuple[float | None, str]:
    """(lower bound, where from): the merged-interval PLD, or dp_accounting's optimistic PLD where the former would
    need too many intervals."""
    try:
        return _tight_eval(z, delta, steps, q, grid, "lower"), "pld-merged"
    except ValueError:  # too many intervals, or the composition does not resolve delta (pld_lower.Unsettled)
        try:
            return _pld_eval(z, delta, steps, q, False, grid, False)[0], "pld-optimistic"
        except ValueError:
            return None, None


def _tight_start_grid(z: float, delta: float, steps: int, q: float) -> float:
    """First grid step: about ε/(10√T) (both bounds err by O(T·Δ²); at n = T = 50 000 and at n = 60 000, batch 256,
    60 epochs, Δ ≈ ε/(16√T) brackets ε to 1 %), ε from RDP, at most 10⁻³ (dp_accounting's default), and at most q:
    the lower bound merges outputs whose
    losses lie within a grid step, and one step's privacy loss mostly spans about q (a coarser grid merges it into a
    single atom of loss 0, which proves nothing)."""
    rdp = _rdp_eps(z, delta, steps, q)
    scale = rdp if 0.0 < rdp < math.inf else 1.0
    return min(scale / (10.0 * math.sqrt(steps)), q, 1e-3)


def _tight_bracket(z: float, delta: float, steps: int, q: float, rel_tol: float, t0: float) -> PldBracket:
    """:func:`pld_bracket` for Poisson sampling under add/remove neighbours: upper and lower bounds on one grid,
    refined (error ∝ Δ²) until they are within ``rel_tol`` of each other or the work budget is spent."""
    import time

    from dpviz.theory import pld_lower

    _pld_support(z, steps, q, False)  # refuses tiny noise (PldTooLarge) before any real work
    span = pld_lower.loss_span(z, q, steps, delta)
    grid = max(_tight_start_grid(z, delta, steps, q), span / TIGHT_MAX_POINTS)
    if grid > _PLD_COARSEST:
        raise PldTooLarge(
            f"PLD not computed: one step's privacy loss spans about {span:.3g}, so a grid of step 1e-3 would need "
            f"about {span / 1e-3:.3g} points (at most {TIGHT_MAX_POINTS:.3g}); the noise is too small for a PLD "
            "here — RDP's ε is the upper bound to use.")
    width = span
    work, note, history = 0.0, "", []
    while True:
        try:
            up = _tight_eval(z, delta, steps, q, grid, "upper")
        except (Unsettled, PldTooLarge) as exc:
            note = _refinement_stopped(exc, bool(history))
            break
        lo, lower_from = _tight_lower(z, delta, steps, q, grid) if math.isfinite(up) else (None, None)
        work += width / grid
        history.append((grid, up, lo, lower_from))
        if not math.isfinite(up) or lo is None:
            break
        w = (up - lo) / up if up > 0 else 0.0
        if w <= rel_tol:
            break
        nxt = grid / min(max(math.sqrt(w / (0.5 * rel_tol)), 1.5), 8.0)
        if work + width / nxt > TIGHT_BUDGET:
            nxt = grid / 1.5
            if work + width / nxt > TIGHT_BUDGET:
                note = f"refinement stopped by the work budget ({TIGHT_BUDGET:.3g} grid points)"
                break
        if span / nxt > TIGHT_MAX_POINTS:
            note = f"refinement stopped by the memory limit ({TIGHT_MAX_POINTS:.3g} grid points per step)"
            break
        grid = nxt
    grid, up, lo, lower_from = history[-1]
    change = None
    if len(history) >= 2 and history[-1][1] > 0:
        change = abs(history[-2][1] - up) / up
    if lo is not None:
        lo = min(max(lo, 0.0), up)
    estimate = up if lo is None else 0.5 * (up + lo)
    converged = lo is not None and up - lo <= rel_tol * up
    if not math.isfinite(up):
        lo, estimate, converged = None, up, False
    return PldBracket(up, lo, estimate, grid, change, converged, time.perf_counter() - t0, int(span / grid), note,
                      lower_from)


def _tight_sigma(eps: float, delta: float, steps: int, q: float, rtol: float, t0: float) -> dict:
    """ε → z with a certified bracket, Poisson add/remove: ``z_upper`` is a z with upper ε(z) <= eps (certainly
    enough noise) and ``z_lower`` one with lower ε(z) > eps (certainly too little: the true ε decreases in z), each
    within about ``max(rtol, 2·10⁻³)`` (relative, in z) of where its bound crosses eps, on a grid that brackets ε(z)
    to 1 % there.

    The search runs by secant steps on (log z, log ε): first on the upper bound at a grid 4× coarser (cheap; it
    locates the answer — RDP's z can be far off: at n = T = 50 000 and ε = 1 it is 0.75 where 0.49 suffices), then on
    each bound at the fine grid from there, refining the grid (error ∝ Δ²) while the ε bracket at ``z_upper`` is wider
    than 1 %."""
    import time

    from dpviz.theory import pld_lower

    try:
        z0 = _solve_rdp(eps, delta, steps, q, 1e-6)
    except ValueError:
        z0 = max(q * math.sqrt(steps * math.log(1.0 / delta)) / eps, 0.5)
    _pld_support(z0, steps, q, False)  # refuses tiny noise (PldTooLarge) before any real work
    tol = math.log1p(max(rtol, 2e-3))
    grid = min(eps / (10.0 * math.sqrt(steps)), q, 1e-3)
    grid = max(grid, pld_lower.loss_span(z0, q, steps, delta) / TIGHT_MAX_POINTS)

    def bound(which, g):
        def f(z):
            if pld_lower.loss_span(z, q, steps, delta) / g > TIGHT_MAX_POINTS:
                raise PldTooLarge(f"one step's PLD would need more than {TIGHT_MAX_POINTS} points at grid {g:g}")
            return _tight_eval(z, delta, steps, q, g, which)
        return f

    def safe(f):  # for the upper search: a PLD that does not fit counts as "too little noise"
        def g_(z):
            try:
                return f(z)
            except PldTooLarge:
                return math.inf
        return g_

    coarse = min(4.0 * grid, _PLD_START)
    up_c = safe(bound("upper", coarse))
    slope = _rdp_slope(z0, delta, steps, q)
    zc = _bracket_root(up_c, eps, z0, up_c(z0), slope, math.log1p(0.01), certify="below")
    e1, e2 = up_c(zc), up_c(zc * 0.98)
    if 0.0 < e1 < e2 < math.inf:
        slope = min(max(math.log(e2 / e1) / math.log(0.98), -50.0), -0.05)
    z_up = z_low = None
    note = ""
    for _ in range(3):
        up = safe(bound("upper", grid))
        z_up = _bracket_root(up, eps, z_up or zc, up(z_up or zc), slope, tol, certify="below")
        try:
            lo = bound("lower", grid)
            z_low = _bracket_root(lo, eps, z_up, lo(z_up), slope, tol, certify="above")
        except (ValueError, PldTooLarge) as exc:  # PldTooLarge is a ValueError
            z_low, note = None, f"no lower end: {exc}"
            break
        e_up, e_lo = up(z_up), lo(z_up)
        w = (e_up - e_lo) / e_up if e_up > 0 else 0.0
        if w <= 0.01:
            break
        nxt = grid / min(max(math.sqrt(w / 0.005), 1.5), 8.0)
        if pld_lower.loss_span(z_up, q, steps, delta) / nxt > TIGHT_MAX_POINTS:
            note = "grid refinement stopped by the memory limit"
            break
        grid = nxt
    e_up = _tight_eval(z_up, delta, steps, q, grid, "upper")
    converged = z_low is not None and (e_up - _tight_eval(z_up, delta, steps, q, grid, "lower")) <= 0.01 * e_up
    return {"z_upper": z_up, "z_lower": z_low, "eps_at_z_upper": e_up, "grid": grid, "converged": converged,
            "seconds": time.perf_counter() - t0, "note": note}
