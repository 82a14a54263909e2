"""The noise searches of the Rényi accountants (ε → the smallest noise multiplier z) and the root finders they and
the PLD searches share: bracketing + Brent on a monotone ε(z), bisection on a monotone predicate, and a secant /
regula-falsi search that certifies which side of the target its answer lies on."""

from __future__ import annotations

import functools
import math
from typing import Callable

from dpviz.theory.accounting.checks import _MAX_BRACKET, _Z_MAX, _Z_MIN
from dpviz.theory.accounting.hockey import log_bisect
from dpviz.theory.accounting.rdp_poisson import _all_idx, _orders, _rdp_eps, _rdp_eps_idx
from dpviz.theory.accounting.rdp_wor import WOR_ORDERS, _wor_eps, _wor_eps_opt, wor_rdp_floor


def _root(f, guess: float, rtol: float, what: str, spread: float = 2.0) -> float:
    """Smallest z (up to a relative ``rtol``) with f(z) <= 0, for f decreasing in z; f(z) is eps(z) - target.

    The search starts from the bracket [guess / spread, guess * spread] and widens it as needed."""
    if not (math.isfinite(guess) and guess > 0.0):  # a NaN / inf start would never leave the bracketing loops
        raise ValueError(f"cannot start the noise search for {what}: the starting noise multiplier is {guess!r}; "
                         "use moderate eps, delta and steps.")
    guess = min(max(guess, _Z_MIN), _Z_MAX)
    lo, hi = guess / spread, guess * spread
    for _ in range(_MAX_BRACKET):  # at most log_4(_Z_MAX / _Z_MIN) + 2 widenings are ever needed
        if not f(hi) > 0:
            break
        lo, hi = hi, hi * 4.0
        if hi > _Z_MAX:
            raise ValueError(f"no noise multiplier in the search's range [{_Z_MIN:g}, {_Z_MAX:g}] reaches {what}; "
                             "increase eps or reduce the steps.")
    else:  # pragma: no cover (unreachable: hi exceeds _Z_MAX first)
        raise ValueError(f"the noise search for {what} did not converge.")
    for _ in range(_MAX_BRACKET):
        if not f(lo) <= 0:
            break
        hi, lo = lo, lo / 4.0
        if lo < _Z_MIN:
            return hi  # essentially no noise is needed at this (large) budget
    else:  # pragma: no cover (unreachable: lo falls below _Z_MIN first)
        raise ValueError(f"the noise search for {what} did not converge.")
    from scipy.optimize import brentq

    z = brentq(f, lo, hi, xtol=1e-300, rtol=rtol, maxiter=200)
    # brentq may land just below the threshold: step up by the tolerance until eps(z) <= target
    for _ in range(200):
        if f(z) <= 0:
            return float(z)
        z = min(z * (1.0 + 2.0 * rtol), hi)
    return float(hi)  # pragma: no cover


#: A coarse sub-grid of :data:`RDP_ORDERS`, used to locate the answer before refining on the full grid.
#: It must include the largest orders: at small ε the optimal order is large, and a grid that stops early cannot
#: reach the target at all (its ε has the floor log(1/δ)/(λ_max − 1) whatever the noise).
_COARSE = (1.5, 2.0, 3.0, 4.0, 6.0, 8.0, 12.0, 16.0, 24.0, 32.0, 48.0, 63.0, 128.0, 256.0, 512.0, 1024.0)


_WINDOW = 8


@functools.lru_cache(maxsize=4096)
def _solve_rdp(eps: float, delta: float, steps: int, q: float, rtol: float) -> float:
    """Smallest z (relative precision ``rtol``) with the Poisson RDP ε(z) <= ``eps``: a coarse sub-grid of orders
    first, then a window of orders around the optimal one (:data:`_COARSE`, :data:`_WINDOW`)."""
    what = f"eps = {eps:g} at delta = {delta:g} over {steps} steps"
    # starting point: the moments-accountant scaling z ~ q sqrt(T log(1/δ))/ε (at least 0.5)
    guess = max(q * math.sqrt(steps * math.log(1.0 / delta)) / eps, 0.5)
    orders = _orders()
    full = _all_idx()
    # the RDP bound as the noise grows without limit (at z = 1e4 the per-step divergence is already negligible, while
    # far larger z make dp_accounting's series round to a negative divergence and report eps = 0)
    floor = _rdp_eps_idx(1e4, delta, steps, q, full)[0]
    if eps <= floor * (1.0 + 1e-9):
        raise ValueError(
            f"the RDP accountant cannot certify eps = {eps:g} at delta = {delta:g}: its conversion to (eps, delta) "
            f"has a floor — with Rényi orders up to {max(orders):g} its bound never falls below {floor:.4g} (about "
            "log(1/delta)/(order - 1)), however large the noise; use eps above that floor or accountant='pld'.")

    def f_on(idx):
        return lambda z: _rdp_eps_idx(z, delta, steps, q, idx)[0] - eps

    # 1. a coarse sub-grid of orders: cheap, and conservative (fewer orders -> larger eps -> larger z)
    coarse = tuple(i for i, o in enumerate(orders) if o in _COARSE) or full
    z1 = _root(f_on(coarse), guess, 1e-2, what)
    # 2. refine on the orders around the optimal one at z1 (eps on a sub-grid >= eps on the full grid, so the
    #    answer is always feasible for the full grid); accept when the full grid's optimal order is inside the window
    z, k = z1, _rdp_eps_idx(z1, delta, steps, q, full)[1]
    for _ in range(6):
        if k < 0:
            break
        window = tuple(range(max(0, k - _WINDOW), min(len(orders), k + _WINDOW + 1)))
        z = _root(f_on(window), z, rtol, what, spread=1.05)
        k = _rdp_eps_idx(z, delta, steps, q, full)[1]
        if window[0] < k < window[-1] or k in window and k in (0, len(orders) - 1):
            return z
    z1 = z
    return _root(f_on(full), z1, rtol, what, spread=1.05)  # slow path: the full grid throughout


def _rdp_slope(z: float, delta: float, steps: int, q: float) -> float:
    """d log ε / d log z of the Poisson RDP accountant at z (negative; about −1 for DP-SGD), for Newton steps."""
    e1, e2 = _rdp_eps(z, delta, steps, q), _rdp_eps(z * 1.05, delta, steps, q)
    if not (0 < e2 < e1 < math.inf):
        return -1.0
    return min(max(math.log(e2 / e1) / math.log(1.05), -4.0), -0.25)


def _smallest_private(ok: Callable[[float], bool], guess: float, rtol: float, what: str,
                      value: Callable[[float], float] | None = None, target: float | None = None) -> float:
    """Smallest z (up to a relative ``rtol``) with ``ok(z)``, for a predicate that is monotone in z (False below a
    threshold, True above it): geometric bracketing from ``guess`` over [_Z_MIN, _Z_MAX], then a search of the
    bracket on log z.  The returned z always satisfies ``ok`` and the search ends only when z / (1 + rtol) has been
    seen to fail it, so steps and plateaus of ε(z) (dp_accounting's KL shortcut returns exactly 0 once T·RDP is tiny)
    cannot stop it early.

    With ``value`` (ε(z); ``ok`` is then None and ok(z) ⇔ value(z) <= ``target``) the bracket is searched by
    :func:`log_root` (regula falsi on log ε: 10-18 evaluations of ε per WOR search at rtol = 1e-6 instead of
    bisection's 24-26, benchmarks/bench_wor_search.py), else by bisection (:func:`log_bisect`).  Both keep the same
    invariant, so they answer within rtol of each other.
    """
    if not (math.isfinite(guess) and guess > 0.0):
        raise ValueError(f"cannot start the noise search for {what}: the starting noise multiplier is {guess!r}; "
                         "use moderate eps, delta and steps.")
    seen: dict[float, float] = {}  # ε at the points the bracketing evaluated (with ``value``)

    def check(z: float) -> bool:
        if value is None:
            return ok(z)
        seen[z] = value(z)
        return seen[z] <= target

    hi = min(max(guess, _Z_MIN), _Z_MAX)
    lo = hi
    if check(hi):
        while True:
            lo = hi / 4.0
            if lo < _Z_MIN:
                return hi  # essentially no noise is needed at this (large) budget
            if not check(lo):
                break
            hi = lo
    else:
        while True:
            lo, hi = hi, hi * 4.0
            if hi > _Z_MAX:
                raise ValueError(f"no noise multiplier in the search's range [{_Z_MIN:g}, {_Z_MAX:g}] reaches "
                                 f"{what}; increase eps or reduce the steps.")
            if check(hi):
                break
    if value is None:
        return log_bisect(ok, lo, hi, math.log1p(rtol))
    return log_root(value, target, lo, hi, seen[lo], seen[hi], math.log1p(rtol))


def log_root(f: Callable[[float], float], target: float, lo: float, hi: float, f_lo: float, f_hi: float,
             log_tol: float) -> float:
    """The smallest x in [lo, hi] with f(x) <= ``target`` (to within a factor e^log_tol), for f non-increasing,
    f(lo) > target >= f(hi): the True end of a final bracket [a, b] with b − a <= log_tol in log x, as
    :func:`log_bisect` returns, found by regula falsi on g(log x) = log f(x) − log target (Illinois variant: the end
    kept twice in a row has its g halved).

    On a smooth ε(z) it needs about half of bisection's evaluations or fewer (benchmarks/bench_wor_search.py: 10-18
    instead of 24-26 per WOR search); at a jump of ε(z) at most about twice bisection's.  Safeguards: each new point
    lies at least log_tol / 2 inside the bracket (so that once the crossing is pinned, the next point on its other
    side closes the bracket); a step that leaves more than half the bracket twice in a row is followed by a bisection
    step; where f is 0 or infinite (g not finite, e.g. the KL shortcut's exact zeros) the step is a bisection.  Every
    comparison with ``target`` is the predicate f(x) <= target itself, so the answer satisfies it exactly as
    bisection's does."""
    lt = math.log(target) if target > 0.0 else -math.inf

    def g_of(e: float) -> float:
        if not e > 0.0:
            return -math.inf
        return math.log(e) - lt if math.isfinite(e) else math.inf

    a, b = math.log(lo), math.log(hi)  # f(e^a) > target, f(e^b) <= target
    xb = hi  # the point evaluated at b (e^b may differ from it by rounding)
    ga, gb = g_of(f_lo), g_of(f_hi)
    side, stall = 0, 0
    while b - a > log_tol:
        width = b - a
        if stall >= 2 or not (math.isfinite(ga) and math.isfinite(gb)) or ga == gb:
            c, stall = 0.5 * (a + b), 0
        else:
            c = b - gb * (b - a) / (gb - ga)
            c = min(max(c, a + 0.5 * log_tol), b - 0.5 * log_tol)
            if not a < c < b:
                c = 0.5 * (a + b)
        xc = math.exp(c)
        fc = f(xc)
        if fc <= target:
            b, gb, xb = c, g_of(fc), xc
            if side == 1:
                ga *= 0.5
            side = 1
        else:
            a, ga = c, g_of(fc)
            if side == -1:
                gb *= 0.5
            side = -1
        stall = stall + 1 if b - a > 0.5 * width else 0
    return xb


@functools.lru_cache(maxsize=4096)
def _solve_wor(eps: float, delta: float, steps: int, q: float, rtol: float) -> float:
    """Smallest z with the without-replacement RDP ε(z) <= ``eps`` over *all* the orders of :data:`WOR_ORDERS`.

    ε(z) = min over orders of a bound that decreases in z at every order, so it is monotone in z; bisection on the
    predicate ε(z) <= eps over the full grid (about 10 ms per evaluation, 20–40 evaluations) cannot be misled by a
    truncated order set or by the exact zeros of dp_accounting's KL shortcut (issue 21: a search on orders <= 63
    stopped where ε first read 0, σ = 395.6 where 4.4 suffices)."""
    what = f"eps = {eps:g} at delta = {delta:g} over {steps} steps (sampling without replacement)"
    guess = max(q * math.sqrt(steps * math.log(1.0 / delta)) / eps, 0.5)  # the moments-accountant scaling
    floor = wor_rdp_floor(delta, steps, q)
    if eps < floor and _wor_eps(_Z_MAX, delta, steps, q) > eps:
        raise ValueError(
            f"the without-replacement RDP accountant cannot certify {what}: its conversion from Rényi divergences to "
            f"(eps, delta) has a floor of {floor:.4g} here (its bound at the Rényi orders above 256, up to "
            f"{max(WOR_ORDERS):g}, does not vanish as the noise grows), and below the floor it certifies only "
            f"eps = 0, which needs more noise than the search's largest noise multiplier {_Z_MAX:g}; use eps >= "
            f"{floor:.4g} (the limit is the Rényi conversion, not the number of steps).")

    def full(z: float) -> bool:
        return _wor_eps(z, delta, steps, q) <= eps

    # Fast pass (4-6x cheaper per evaluation): the orders up to twice the optimal order at the current point.  The
    # minimum over fewer orders is never below the minimum over all of them, so a z that passes the fast predicate
    # passes the full one; the answer is kept only if the full predicate fails one tolerance below it, i.e. if it is
    # also the smallest z of the full search to within rtol.  Otherwise the pass is repeated from its answer with the
    # optimal order there (at most three passes), and then the full search runs.
    # (The cap 256 leaves out the orders 272 … 1024 of WOR_ORDERS: 2x cheaper at ε = 0.3, n = 20 000, T = 1000.)
    for _ in range(3):
        opt = _wor_eps_opt(min(max(guess, _Z_MIN), _Z_MAX), delta, steps, q, math.inf)[1]
        # ... and at least 1 + 2·log(1/δ)/ε: below that order the conversion term log(1/δ)/(α − 1) alone exceeds ε/2
        need = max(2.0 * opt, 1.0 + 2.0 * math.log(1.0 / delta) / eps)
        cap = next((o for o in (32.0, 64.0, 128.0, 256.0) if o >= need), None)
        if cap is None:
            break
        try:
            z = _smallest_private(None, guess, rtol, what,
                                  value=lambda z, cap=cap: _wor_eps_opt(z, delta, steps, q, cap)[0], target=eps)
        except ValueError:
            break
        if full(z) and not full(z / (1.0 + rtol)):
            return z
        guess = z
    return _smallest_private(full, guess, rtol, what, value=lambda z: _wor_eps(z, delta, steps, q), target=eps)


def _bracket_root(f, target: float, z0: float, f0: float, slope: float, tol: float, certify: str) -> float:
    """For f decreasing in z: a z with f(z) <= target within about ``tol`` (in log z) of the crossing
    (``certify="below"``: the noise certainly suffices), or with f(z) > target (``certify="above"``: certainly too
    little), by secant / regula falsi (Illinois) on g(log z) = log f(z) − log target, started from (z0, f(z0)) with
    ``slope`` = d log f / d log z (< 0).  Every returned z has been evaluated, so its side of the target is certain."""
    lt = math.log(target)

    def g_of(e):
        if e <= 0.0:
            return -math.inf
        return math.log(e) - lt if math.isfinite(e) else math.inf

    def g(lz):
        return g_of(f(math.exp(lz)))

    m = 0.5 * tol * -slope * (1.0 if certify == "below" else -1.0)  # aim just inside the certified side
    close = tol * -slope  # |g| below this: within about tol of the crossing
    a = b = None  # a: log z with g > 0 (too little noise), b: g <= 0
    ga = gb = 0.0
    lz, gz = math.log(z0), g_of(f0)
    for _ in range(40):
        if gz > 0:
            a, ga = lz, gz
            if certify == "above" and gz <= close:
                return math.exp(a)
        else:
            b, gb = lz, gz
            if certify == "below" and gz >= -close:
                return math.exp(b)
        if a is not None and b is not None:
            break
        if math.isfinite(gz):
            d = (gz + m) / -slope
            d = min(d, -tol) if gz <= 0 else max(d, tol)
        else:
            d = 1.0 if gz > 0 else -1.0
        lz += d
        if abs(lz) > 40:
            raise ValueError(f"the noise search found no noise multiplier in its range [e^-40, e^40] = "
                             f"[{math.exp(-40):.3g}, {math.exp(40):.3g}] whose bound crosses {target:g}")
        gz = g(lz)
    else:
        raise ValueError(f"the noise search found no bracket around {target:g} in 40 steps from z = {z0:.4g}")
    side = 0
    for _ in range(30):
        if b - a <= tol:
            break
        if math.isfinite(ga) and math.isfinite(gb) and ga != gb:
            c = b - gb * (b - a) / (gb - ga) + (m / -slope if side == 0 else 0.0)
        else:
            c = 0.5 * (a + b)
        if not a < c < b:
            c = 0.5 * (a + b)
        gc = g(c)
        if gc > 0:
            a, ga = c, gc
            if certify == "above" and gc <= close:
                break
            if side == -1:
                gb /= 2.0
            side = -1
        else:
            b, gb = c, gc
            if certify == "below" and gc >= -close:
                break
            if side == 1:
                ga /= 2.0
            side = 1
    return math.exp(b) if certify == "below" else math.exp(a)
