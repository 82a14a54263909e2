"""Numbers printed as bounds: rounded *outward*, so that the printed number is still what was certified; and
:func:`fmt`, a number for the screen (the dashboard's one formatter: ``dpviz_ui.helpers.fmt`` is this function).

A claimed ε or δ, an upper bound, or a threshold a user must reach (a noise level, a constant "at least c") is rounded
up; a lower bound is rounded down.  Used by the privacy statements (:mod:`dpviz.labs.privacy_lab`) and by the
calibrations' advice ("use c >= …", :mod:`dpviz.theory.papers.kang_pidp`).
"""

from __future__ import annotations

import math

__all__ = ["fmt_bound", "fmt"]


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


def fmt(x) -> str:
    """A number for the screen: 0.01702, 3.594, 10000, 2.154·10⁵, 1.4·10⁻⁶ (no 1e+04, no SI prefixes)."""
    if x is None:
        return "—"
    if isinstance(x, bool) or not isinstance(x, (int, float)):
        return str(x)
    if isinstance(x, float) and not math.isfinite(x):
        return "∞" if x > 0 else ("−∞" if x < 0 else "—")
    if x == 0:
        return "0"
    ax = abs(x)
    if 1e-3 <= ax < 1e4 or (isinstance(x, int) and ax < 1e7):
        return f"{x:.4g}" if not isinstance(x, int) else str(x)
    if ax < 1e6 and float(x).is_integer():
        return str(int(x))
    k = math.floor(math.log10(ax))
    m = x / 10.0**k
    if abs(round(m, 3)) >= 10:
        m, k = m / 10, k + 1
    power = "10" + str(k).translate(str.maketrans("-0123456789", "⁻⁰¹²³⁴⁵⁶⁷⁸⁹"))
    return power if abs(m - 1) < 5e-4 else (f"−{power}" if abs(m + 1) < 5e-4 else f"{m:.4g}·{power}")
