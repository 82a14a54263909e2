"""The PLD accountant's answers with their error bars, checked against RDP: :func:`pld_bracket` (ε refined on finer
grids within a work budget), :func:`pld_epsilon_bracket` and :func:`pld_sigma_bracket` (validated entry points), and
the checks that fall back to RDP's valid bound where the PLD does not settle or contradicts it (issue 31)."""

from __future__ import annotations

import functools
import math

from dpviz.foundation import validate as v
from dpviz.theory.accounting.checks import _check_general, _join
from dpviz.theory.accounting.pld_dp import (_PLD_COARSEST, _PLD_START, PLD_BUDGET, PLD_MAX_POINTS, PldBracket,
                                            PldTooLarge, _pld_eval, _pld_secant, _pld_support, _prv_within,
                                            _refinement_stopped)
from dpviz.theory.accounting.pld_tight import TIGHT_MAX_GROUPS, _tight_bracket, _tight_sigma
from dpviz.theory.accounting.rdp_poisson import _eps_rdp, _rdp_eps
from dpviz.theory.accounting.search import _rdp_slope, _solve_rdp
from dpviz.theory.pld_lower import Unsettled


def _solve_pld_fast(eps: float, delta: float, steps: int, q: float, rtol: float, replace: bool = False) -> float:
    """Smallest z (relative precision ``rtol``) with pessimistic PLD ε(z) <= eps (an upper bound on the σ needed);
    see :func:`pld_sigma_bracket`."""
    return _checked_sigma(eps, delta, steps, q, replace, max(rtol, 1e-4))["z_upper"]


@functools.lru_cache(maxsize=1024)
def _pld_sigma(eps: float, delta: float, steps: int, q: float, replace: bool, rtol: float) -> dict:
    """ε → z by PLD with an error bar, in a bounded number of PLD evaluations.

    1. the grid: :func:`pld_bracket` at the RDP answer z0 refines until ε changes by < 1 % (within its work budget);
    2. secant steps on (log z, log ε) at that grid, the first with the slope of the RDP curve, kept inside the
       bracket of z's seen on either side of the target, each started only if it fits the work budget (grid points);
       the smallest z whose pessimistic ε is <= the target is ``z_upper`` (certainly enough noise: an upper bound on
       the σ needed);
    3. ``z_lower``: where the optimistic PLD's ε (same grid) would meet the target, by one step with the same
       slope — an estimate of the bracket's other end, not a certified bound.
    Raises :class:`PldTooLarge` when the PLD does not fit."""
    import time

    t0 = time.perf_counter()
    if q < 1.0 and not replace:
        try:
            return _tight_sigma(eps, delta, steps, q, rtol, t0)
        except PldTooLarge:
            pass  # the tight grid does not fit: dp_accounting's own PLD below
    try:
        z0 = _solve_rdp(eps, delta, steps, q, 1e-6)
        if replace:
            z0 *= 2.0  # a replace-one step moves the mean by 2: at most the add/remove noise of twice the sensitivity
    except ValueError:
        z0 = max(q * math.sqrt(steps * math.log(1.0 / delta)) / eps, 0.5)
    slope = _rdp_slope(z0 / 2.0 if replace else z0, delta, steps, q)
    br = pld_bracket(z0, delta, steps, q, replace=replace, lower=False, budget=PLD_BUDGET / 2)
    grid = br.grid
    # the search runs on a grid 4x coarser (a quarter of the points; pessimistic, so its z is at least the fine
    # grid's), then at most two secant steps at the fine grid refine it
    coarse = min(4.0 * grid, max(_PLD_START, grid))
    # each of the (at most about 12) coarse evaluations gets at most a tenth of the work budget
    coarse = max(coarse, _pld_support(z0, steps, q, replace)[1] * 10.0 / PLD_BUDGET)
    z_c = z0
    for _ in range(8):  # a smaller z has a wider privacy loss: coarsen if it no longer fits
        try:
            z_c = _pld_secant(eps, delta, steps, q, replace, coarse, True, 0.8 * z0, z0, max(rtol, 1e-3))
            break
        except PldTooLarge:
            coarse *= 2.0
            grid = max(grid, coarse / 4.0)
            if coarse > _PLD_COARSEST:
                raise
    e_c2 = _pld_eval(z_c * 0.98, delta, steps, q, replace, coarse, True)[0]
    e_c1 = _pld_eval(z_c, delta, steps, q, replace, coarse, True)[0]
    slope = math.log(e_c2 / e_c1) / math.log(0.98) if 0 < e_c1 < e_c2 < math.inf else slope
    slope = min(max(slope, -20.0), -0.05)
    best = None
    z, work = z_c, 0
    target = math.log(eps) + math.log1p(-0.3 * rtol)  # aim just below the target
    for _ in range(3):
        try:
            e, _dt, pts = _pld_eval(z, delta, steps, q, replace, grid, True)
        except PldTooLarge:
            break
        work += pts
        if e <= eps and (best is None or z < best[0]):
            best = (z, e)
        if not (0 < e < math.inf) or (e <= eps and e >= eps * (1.0 - rtol)) or work + pts > PLD_BUDGET:
            break
        z = z * math.exp((math.log(e) - target) / -slope)
    if best is None:  # the fine grid disagrees with the coarse one at z_c (rare): z_c is certified at the coarse grid
        best = (z_c, e_c1)
        grid = coarse
    z_up, e_up = best
    z_low = None
    try:
        if work <= PLD_BUDGET:
            e_lo = _pld_eval(z_up, delta, steps, q, replace, grid, False)[0]
            if 0 < e_lo <= eps:
                z_low = z_up * math.exp(math.log(e_lo / eps) / -slope)
    except PldTooLarge:
        pass
    return {"z_upper": z_up, "z_lower": z_low, "eps_at_z_upper": e_up, "grid": grid, "converged": br.converged,
            "seconds": time.perf_counter() - t0}


def pld_sigma_bracket(*, eps, delta, steps, sampling_prob=1.0, neighbouring="add-remove", rtol=1e-4) -> dict:
    """The noise multiplier PLD needs for (ε, δ), with its bracket: ``{"z_upper", "z_lower", "grid", "converged",
    "seconds"}`` (Poisson sampling or full batch).  ``z_upper`` certainly suffices (its upper bound on ε meets the
    target); for Poisson add/remove ``z_lower`` certainly does not (its lower bound on ε exceeds the target), so the
    smallest sufficient noise multiplier lies in (``z_lower``, ``z_upper``]; elsewhere ``z_lower`` is an estimate.  Raises ``ValueError`` (:class:`PldTooLarge`) when the PLD of this
    mechanism does not fit in memory."""
    eps = v.check_eps(eps)
    delta, steps, q = _check_general(delta, steps, sampling_prob, "poisson", neighbouring, "pld")
    return dict(_checked_sigma(eps, delta, steps, q, neighbouring == "replace-one" and q < 1.0, max(rtol, 1e-4)))


@functools.lru_cache(maxsize=1024)
def _checked_sigma(eps: float, delta: float, steps: int, q: float, replace: bool, rtol: float) -> dict:
    """:func:`_pld_sigma`, checked against RDP's noise multiplier for the same target (a valid "enough noise"; Poisson
    add/remove or full batch), the fallback when the PLD fails:

    * PLD not settled (:class:`dpviz.theory.pld_lower.Unsettled`): ``z_upper`` is RDP's, no ``z_lower``;
    * ``z_lower`` (certainly too little noise) at or above a z that RDP certifies sufficient: a contradiction — the
      PLD is discarded and RDP's z reported;
    * otherwise ``z_upper`` = min(PLD's, RDP's) (both suffice), and a ``z_lower`` at or above it is dropped.
    ``fallback`` is "rdp" when RDP's z is the one reported; ``converged`` is then false and ``note`` says why."""
    import time

    t0 = time.perf_counter()
    rdp_z = None
    if not (replace and q < 1.0):
        try:
            rdp_z = _solve_rdp(eps, delta, steps, q, 1e-6)
        except ValueError:
            rdp_z = None

    def rdp_only(note):
        return {"z_upper": rdp_z, "z_lower": None, "eps_at_z_upper": _rdp_eps(rdp_z, delta, steps, q), "grid": None,
                "converged": False, "seconds": time.perf_counter() - t0, "note": note, "fallback": "rdp"}

    try:
        res = dict(_pld_sigma(eps, delta, steps, q, replace, rtol))
    except Unsettled as exc:
        if rdp_z is None:
            raise
        return rdp_only(f"PLD not settled: {exc}; the noise shown is RDP's (certainly enough), with no certified "
                        "lower end")
    res.setdefault("note", "")
    res["fallback"] = None
    if rdp_z is not None and res.get("z_lower") is not None and res["z_lower"] >= rdp_z:
        return rdp_only(_join(res["note"], f"the PLD's 'certainly too little' noise {res['z_lower']:.4g} is at or "
                                           f"above RDP's sufficient noise {rdp_z:.4g}, so the PLD is not reliable "
                                           "here: RDP's noise is shown"))
    if rdp_z is not None and rdp_z < res["z_upper"]:
        res["z_upper"], res["fallback"] = rdp_z, "rdp"
        res["eps_at_z_upper"] = _rdp_eps(rdp_z, delta, steps, q)
        res["note"] = _join(res["note"], "RDP's noise multiplier is smaller than the PLD's here: it is the one shown")
        res["converged"] = False
    if res.get("z_lower") is not None and res["z_lower"] >= res["z_upper"]:
        res["note"] = _join(res["note"], f"the PLD's lower end {res['z_lower']:.4g} was not below the upper end: dropped")
        res["z_lower"], res["converged"] = None, False
    return res


def pld_bracket(z: float, delta: float, steps: int, q: float, *, replace: bool = False, rel_tol: float = 0.01,
                budget: float = PLD_BUDGET, start: float = _PLD_START, lower: bool = True) -> PldBracket:
    """The PLD ε of T steps of the (Poisson-sub-sampled) Gaussian mechanism with noise multiplier ``z``, refined on
    finer grids until the pessimistic ε changes by less than ``rel_tol`` (relative), or until the next grid would not
    fit in the work ``budget`` (grid points summed over the grids; the next grid's size is predicted from the last
    one's) or in :data:`PLD_MAX_POINTS`.  Where the PLD bracket stays wider than ``rel_tol``, the PRV accountant
    (Gopi, Lee & Wutschitz 2021) adds its certified bounds when its grid fits the budget (Poisson add/remove only).

    The work is bounded before it starts: a probe PLD of about 20 000 points measures the width W of the composed
    privacy-loss support (:func:`_pld_support`), and a grid of step Δ costs about W/Δ points.  Raises
    :class:`PldTooLarge` (a ``ValueError``, with the estimate) when even a grid of step 0.05 would not fit: tiny noise
    makes one step's privacy loss span about 1/s² (s the noise's std)."""
    import time

    import dp_accounting  # noqa: F401  (import time is not the PLD's)

    t0 = time.perf_counter()
    if q < 1.0 and not replace and lower:
        try:
            return _tight_bracket(z, delta, steps, q, rel_tol, t0)
        except PldTooLarge:
            pass  # the tight grid does not fit (tiny noise, huge compositions): dp_accounting's own PLD below

    single, width = _pld_support(z, steps, q, replace)
    cap = PLD_MAX_POINTS / 4  # the first grid: a quarter of the memory limit
    interval = max(start, width / cap)
    if interval > _PLD_COARSEST:
        raise PldTooLarge(
            f"PLD not computed: the composed privacy loss spans about {width:.3g}, so a grid of step 1e-3 would need "
            f"about {width / 1e-3:.3g} points (this machine allows {PLD_MAX_POINTS:.3g}); the noise is too small (or "
            "the composition too long) for a PLD here — RDP's ε is the upper bound to use.")
    history: list[tuple[float, float]] = []
    points, note, change, work = 0, "", None, 0
    while True:
        try:
            eps, _dt, points = _pld_eval(z, delta, steps, q, replace, interval, True)
            work += points
        except (Unsettled, PldTooLarge) as exc:
            note = _refinement_stopped(exc, bool(history))
            break
        history.append((interval, eps))
        if not math.isfinite(eps):
            break
        if len(history) >= 2:
            (d1, e1), (d2, e2) = history[-2], history[-1]
            change = abs(e1 - e2) / e2 if e2 > 0 else (0.0 if e1 == 0 else math.inf)
            if change < rel_tol:
                break
            # error ∝ Δ²: aim the next change at rel_tol / 2, at least a factor 2 and at most 8 finer
            factor = min(max(math.sqrt(change / (rel_tol / 2.0)), 2.0), 8.0) if math.isfinite(change) else 8.0
        else:
            factor = 4.0
        left = budget - work
        if points * factor > left:
            factor = 2.0  # a smaller step may still fit
            if points * factor > left:
                note = f"refinement stopped by the work budget ({budget:.3g} grid points)"
                break
        nxt = interval / factor
        if max(single, width) / nxt > PLD_MAX_POINTS:
            note = f"refinement stopped by the memory limit ({PLD_MAX_POINTS:.3g} grid points)"
            break
        interval = nxt
    grid, upper = history[-1]
    estimate = upper
    if len(history) >= 2:
        (d1, e1), (d2, e2) = history[-2], history[-1]
        r2 = (d2 / d1) ** 2
        if math.isfinite(e1) and math.isfinite(e2):
            estimate = e2 - (e1 - e2) * r2 / (1.0 - r2)
    lo = None
    lower_from = None
    if lower and math.isfinite(upper):
        if work + points <= 1.5 * budget:
            try:
                lo = min(_pld_eval(z, delta, steps, q, replace, grid, False)[0], upper)
                lower_from = "pld-optimistic"
            except ValueError as exc:  # Unsettled: no lower bound at this grid
                note = (note + "; " if note else "") + f"no lower bound: {exc}"
            work += points
        else:
            note = (note + "; " if note else "") + "no work budget left for the optimistic (lower) PLD"
        if not replace and (lo is None or upper - lo > rel_tol * upper):
            prv = _prv_within(z, delta, steps, q, max(upper * rel_tol / 2.0, 1e-6), budget / 2)
            if prv is not None:
                if math.isfinite(prv[0]) and (lo is None or prv[0] > lo):
                    lo, lower_from = min(max(prv[0], 0.0), upper), "prv"
                if math.isfinite(prv[2]) and prv[2] < upper:
                    upper = prv[2]
                    note = (note + "; " if note else "") + "upper bound from the PRV accountant"
        if replace and q < 1.0 and upper > 0.0 and (lo is None or upper - lo > rel_tol * upper):
            rl, rnote = _replace_lower(z, delta, steps, q, upper, rel_tol)
            if rl is not None and (lo is None or rl > lo):
                lo, lower_from = min(max(rl, 0.0), upper), "pld-replace-pair"
            note = _join(note, rnote)
    estimate = min(max(estimate, lo if lo is not None else 0.0, 0.0), upper)
    converged = change is not None and change < rel_tol
    return PldBracket(upper, lo, estimate, grid, change, converged, time.perf_counter() - t0, points, note,
                      lower_from)


#: Most grids the replace-one pair's lower bound tries (each finer by 1.5x to 4x; its error falls like Δ²).
_REPLACE_GRIDS = 5


@functools.lru_cache(maxsize=1024)
def _replace_lower(z: float, delta: float, steps: int, q: float, upper: float, rel_tol: float):
    """(certified lower bound or None, note) for Poisson sampling under replace-one neighbours: the explicit pair of
    neighbouring data sets of :mod:`dpviz.theory.pld_replace` (the replaced example's gradient +C against −C, every
    other one 0), post-processed onto the grid and composed (error second order in the grid step, where the
    rounded-down PLD loses up to a grid step per step).  The grid starts at ε/(10√T) (at most 10⁻³) and is refined
    while the bracket [lower, ``upper``] is wider than half of ``rel_tol`` (at most :data:`_REPLACE_GRIDS` grids, each
    refused at once when it would need more than :data:`TIGHT_MAX_GROUPS` intervals)."""
    from dpviz.theory import pld_replace

    grid = min(upper / (10.0 * math.sqrt(steps)), 1e-3)
    best, note = None, ""
    for _ in range(_REPLACE_GRIDS):
        try:
            e = pld_replace.replace_lower_epsilon(z, q, steps, delta, grid, max_groups=TIGHT_MAX_GROUPS)
        except ValueError as exc:  # too many intervals, or the composition does not resolve delta (Unsettled)
            note = f"the replace-one pair's lower bound stopped at grid {grid:.3g}: {exc}"
            break
        best = e if best is None else max(best, e)
        w = (upper - best) / upper
        if w <= 0.5 * rel_tol:
            break
        grid /= min(max(math.sqrt(w / (0.25 * rel_tol)), 1.5), 4.0)
    if best is not None and best > upper * (1.0 + 1e-6):  # pragma: no cover (both are certified)
        note = _join(note, f"the replace-one pair's lower bound {best:.6g} exceeded the upper bound {upper:.6g}: "
                           "clamped")
    return best, note


@functools.lru_cache(maxsize=1024)
def _pld_bracket_cached(z: float, delta: float, steps: int, q: float, replace: bool) -> PldBracket:
    return _checked_bracket(z, delta, steps, q, replace)


def _rdp_reference(z: float, delta: float, steps: int, q: float, replace: bool) -> float | None:
    """A valid upper bound on the same mechanism's ε from RDP (Poisson add/remove or full batch), to check a PLD
    against; None for Poisson replace-one (dp_accounting's RDP does not cover it)."""
    if replace and q < 1.0:
        return None
    e = _eps_rdp(z, delta, steps, q)
    return e if math.isfinite(e) else None


def _checked_bracket(z: float, delta: float, steps: int, q: float, replace: bool) -> PldBracket:
    """:func:`pld_bracket`, checked against a valid upper bound (RDP, :func:`_rdp_reference`), the fallback when it
    fails.  A PLD result is not trusted blindly (dp_accounting's own PLD is unstable at q = 10⁻⁶, 10⁶ steps,
    δ = 10⁻¹², z = 0.55: ε = 0.733 at grid 10⁻², 9.48 at 10⁻³, while its RDP gives 3.43):

    * when the composition cannot resolve δ at any grid tried (:class:`dpviz.theory.pld_lower.Unsettled`), the
      upper bound reported is RDP's, with no lower bound, ``fallback="rdp"``, ``converged=False`` and a note saying so;
    * when the PLD's lower bound exceeds RDP's upper bound (a contradiction: one of them is not a bound), the PLD is
      discarded the same way;
    * otherwise the upper bound is min(PLD upper, RDP) (both hold; ``fallback="rdp"`` when RDP's is the smaller).
    ``converged`` is true only when both ends exist and differ by at most 1 % of the upper end.
    Raises :class:`PldTooLarge` / :class:`Unsettled` (``ValueError``) where there is no RDP bound to fall back to."""
    import time

    t0 = time.perf_counter()
    rdp = _rdp_reference(z, delta, steps, q, replace)
    try:
        br = pld_bracket(z, delta, steps, q, replace=replace)
    except Unsettled as exc:
        if rdp is None:
            raise
        return PldBracket(rdp, None, rdp, None, None, False, time.perf_counter() - t0, 0,
                          f"PLD not settled at δ = {delta:.3g}: {exc}; the upper bound shown is RDP's ε (a valid "
                          "bound), with no certified lower bound", None, "rdp")
    if rdp is None or not math.isfinite(br.eps_upper):
        if rdp is not None and not math.isfinite(br.eps_upper):
            return PldBracket(rdp, None, rdp, br.grid, br.change, False, br.seconds, br.points,
                              _join(br.note, f"PLD certifies no finite ε at δ = {delta:.3g} (δ is below the "
                                             "probability mass its grid truncates); the upper bound shown is RDP's ε"),
                              None, "rdp")
        return _settle(br)
    if br.eps_lower is not None and br.eps_lower > rdp * (1.0 + 1e-9) + 1e-12:
        return PldBracket(rdp, None, rdp, br.grid, br.change, False, br.seconds, br.points,
                          _join(br.note, f"the PLD's lower bound {br.eps_lower:.4g} exceeds RDP's upper bound "
                                         f"{rdp:.4g}, so the PLD is not reliable here: it is discarded and RDP's ε "
                                         "is shown as the upper bound"), None, "rdp")
    if rdp < br.eps_upper:
        br.note = _join(br.note, f"RDP's upper bound {rdp:.4g} is below the PLD's {br.eps_upper:.4g} here: it is "
                                 "the one shown")
        br.eps_upper, br.fallback = rdp, "rdp"
    if br.eps_lower is not None:
        br.eps_lower = min(br.eps_lower, br.eps_upper)
    br.eps_estimate = min(max(br.eps_estimate, br.eps_lower or 0.0), br.eps_upper)
    return _settle(br)


def _settle(br: PldBracket) -> PldBracket:
    """``br`` marked converged when its bracket is within 1 % of the upper end, with a note when it is not and the
    lower end is only the rounded-down PLD."""
    br.converged = br.eps_lower is not None and br.eps_upper - br.eps_lower <= 0.01 * br.eps_upper
    if br.eps_lower is not None and not br.converged and br.lower_from == "pld-optimistic":
        br.note = _join(br.note, f"the lower bound (rounded-down PLD) is loose: the bracket is "
                                 f"{(br.eps_upper - br.eps_lower) / max(br.eps_upper, 1e-300):.0%} of the upper "
                                 "end, not within 1 %")
    return br


def pld_epsilon_bracket(*, noise_multiplier, delta, steps, sampling_prob=1.0, neighbouring="add-remove") -> dict:
    """:func:`pld_bracket` with validated inputs (Poisson sampling or full batch), as a dict: ``eps_upper``,
    ``eps_lower``, ``eps_estimate``, ``grid``, ``change``, ``converged``, ``seconds``, ``points``, ``note``."""
    z = v.check_positive("noise_multiplier (sigma / sensitivity)", noise_multiplier)
    delta, steps, q = _check_general(delta, steps, sampling_prob, "poisson", neighbouring, "pld")
    return _pld_bracket_cached(z, delta, steps, q, neighbouring == "replace-one" and q < 1.0).as_dict()
