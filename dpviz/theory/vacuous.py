"""When a bound says nothing: the trivial bound of a theorem's quantity, and the test "vacuous here".

A bound on the excess risk F(w) − F(w*) over the ball W = {||w|| <= R} is vacuous when it is above what the trivial
predictor w = 0 already achieves: for a G-Lipschitz loss, F(0) − F(w*) <= G ||0 − w*|| <= G R.  A bound on uniform
argument stability sup ||A(S) − A(S')|| is vacuous above 2R, the diameter of W.  Theorems whose W is not a ball of
radius R (Kang, Li, Liu & Wang (kang-pidp) work on R^d under the PL condition) and other quantities (a
generalization gap, an approximation error, a privacy budget) have no trivial bound here (None).
"""

from __future__ import annotations

import math
from functools import lru_cache

from dpviz.theory import catalog

__all__ = ["trivial_bound", "is_vacuous", "ball_domain"]

_EXCESS = ("excess population risk", "excess empirical risk")


@lru_cache(maxsize=None)
def ball_domain(paper_key: str) -> bool:
    """Whether the paper's theorems work on the ball W = {||w|| <= R} (some theorem or explicit bound of the paper
    takes the radius R)."""
    for thm in catalog.theorems():
        if thm.paper.key != paper_key:
            continue
        for f in (thm.bound, thm.explicit_bound):
            if f is not None and "R" in catalog.parameters_of(f):
                return True
    return False


def trivial_bound(theorem_id: str, params: dict) -> tuple[float, str] | None:
    """(the trivial bound of theorem ``theorem_id``'s quantity at ``params``, a sentence saying where it comes from)
    or None when dpviz has none for it.  Needs ``G`` and ``R`` in ``params`` (excess risk) or ``R`` (stability)."""
    thm = catalog.get_theorem(theorem_id)
    quantity = catalog.Risk.parse(thm.risk).quantity
    if not ball_domain(thm.paper.key):
        return None
    R = params.get("R")
    if R is None or not (float(R) > 0):
        return None
    R = float(R)
    if quantity.startswith(_EXCESS):
        G = params.get("G")
        if G is None or not (float(G) > 0) or not math.isfinite(float(G)):
            return None
        val = float(G) * R
        return val, (f"G·R = {val:.4g}: the excess risk of the trivial output w = 0, at most G·||w*|| ≤ G·R for a "
                     "G-Lipschitz loss on the ball ||w|| ≤ R")
    if quantity == "uniform argument stability":
        return 2.0 * R, f"2R = {2 * R:.4g}: the diameter of W, which any two outputs in W are within"
    return None


def is_vacuous(value, trivial) -> bool:
    """Whether the bound ``value`` is above the trivial bound ``trivial`` (a pair from :func:`trivial_bound`, a
    number, or None: never vacuous)."""
    if trivial is None or value is None:
        return False
    t = trivial[0] if isinstance(trivial, tuple) else float(trivial)
    try:
        v = float(value)
    except (TypeError, ValueError):
        return False
    return math.isfinite(t) and t > 0 and (v > t or v == math.inf)
