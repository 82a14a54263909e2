"""Summary statistics of simulation results: mean, standard error, 95 % confidence interval, log-log slope fit.

``summarize(frame, by, value)``
    one row per group with ``mean``, ``se`` (= sd / sqrt(count)), ``ci_low``, ``ci_high`` (normal 95 % interval,
    mean +- 1.96 se) and ``count``.
``loglog_slope(x, y)``
    least-squares fit of log y = a + b log x; returns the slope b, its standard error and 95 % CI (Student t with
    k - 2 degrees of freedom; ``None`` for k = 2 points, where two points fit any line exactly and give no error
    estimate), the intercept and R^2.  Used to compare an empirical rate in n or eps with the
    exponent of a theorem's term.
"""

from __future__ import annotations

import math

import numpy as np

__all__ = ["summarize", "loglog_slope", "Z95"]

Z95 = 1.959963984540054


def summarize(frame, by: list[str] | str, value: str = "value"):
    """Group ``frame`` by ``by`` and summarise column ``value`` (NaNs dropped)."""
    import pandas as pd

    if isinstance(by, str):
        by = [by]
    missing = [c for c in [*by, value] if c not in frame.columns]
    if missing:
        raise ValueError(f"column(s) not in the results: {', '.join(missing)}")
    g = frame.groupby(by, sort=True, dropna=False)[value]
    out = g.agg(["mean", "std", "count"]).reset_index()
    out["se"] = out["std"].fillna(0.0) / np.sqrt(out["count"].clip(lower=1))
    out["ci_low"] = out["mean"] - Z95 * out["se"]
    out["ci_high"] = out["mean"] + Z95 * out["se"]
    return pd.DataFrame(out.drop(columns=["std"]))


def loglog_slope(x, y) -> dict[str, float | None]:
    """Fit log y = a + b log x.

    Returns
    -------
    dict
        ``slope``, ``se``, ``ci_low``, ``ci_high`` (95 %, Student t with k - 2 d.o.f.; ``None`` for k = 2: no
        confidence interval from two points),
        ``intercept``, ``r2``, ``k`` (number of points).

    Raises
    ------
    ValueError
        Fewer than two points, or non-positive values (a log-log fit needs x > 0 and y > 0).
    """
    from scipy import stats as st

    x = np.asarray(x, dtype=float).ravel()
    y = np.asarray(y, dtype=float).ravel()
    if x.shape != y.shape:
        raise ValueError(f"x and y must have the same length, got {x.size} and {y.size}.")
    if x.size < 2:
        raise ValueError("a slope needs at least two grid points.")
    if not (np.all(np.isfinite(x)) and np.all(np.isfinite(y))) or np.any(x <= 0) or np.any(y <= 0):
        raise ValueError("a log-log slope needs finite, positive x and y values (e.g. a positive excess risk).")
    lx, ly = np.log(x), np.log(y)
    if np.ptp(lx) == 0:
        raise ValueError("all x values are equal; a slope needs at least two different grid values.")
    b, a = np.polyfit(lx, ly, 1)
    resid = ly - (a + b * lx)
    k = x.size
    ss_tot = float(((ly - ly.mean()) ** 2).sum())
    r2 = 1.0 - float((resid**2).sum()) / ss_tot if ss_tot > 0 else 1.0
    if k > 2:
        s2 = float((resid**2).sum()) / (k - 2)
        se = math.sqrt(s2 / float(((lx - lx.mean()) ** 2).sum()))
        tq = float(st.t.ppf(0.975, k - 2))
        lo, hi = b - tq * se, b + tq * se
    else:
        se, lo, hi = None, None, None  # two points: no residual, no error estimate (never +-inf)
    return {"slope": float(b), "se": se, "ci_low": lo, "ci_high": hi, "intercept": float(a), "r2": r2, "k": k}
