"""Numbers printed as bounds: rounded *outward*, so that the printed number is still what was certified.

A claimed ε or δ, an upper bound, or a threshold a user must reach (a noise level, a constant "at least c") is rounded
up; a lower bound is rounded down.  Used by the privacy statements (:mod:`dpviz.labs.privacy_lab`) and by the
calibrations' advice ("use c >= …", :mod:`dpviz.theory.papers.kang_pidp`).
"""

from __future__ import annotations

import math

__all__ = ["fmt_bound"]


def fmt_bound(x: float, *, up: bool, digits: int = 4) -> str:
    """``x`` to ``digits`` significant digits rounded *outward*: up for an upper bound or a claimed ε or δ (so the
    number printed is still certified), down for a lower bound; as ``f"{x:.{digits}g}"`` otherwise ("0" only for an
    exact 0).  Raises ``ValueError`` for a non-finite ``x``: a statement never prints inf or nan as a number."""
    from decimal import ROUND_CEILING, ROUND_FLOOR, Decimal

    x = float(x)
    if not math.isfinite(x):
        raise ValueError(f"a non-finite number ({x}) cannot be stated as a bound.")
    if x == 0.0:
        return "0"
    # the float to 12 significant digits first: 0.1 stays 0.1 and 1.0000000000000002 (a sum's rounding) stays 1 --
    # far below the accountants' own precision (bisection to 1e-12 relative at best), so no claim grows by it
    d = Decimal(f"{x:.12g}")
    r = d.quantize(Decimal(1).scaleb(d.adjusted() - digits + 1), rounding=ROUND_CEILING if up else ROUND_FLOOR)
    return f"{float(r):.{digits}g}"
