"""Input checks shared by every dpviz module.

Every public function in dpviz validates its inputs with these helpers, so that a bad value raises
:class:`ValueError` with a message a student can act on (which parameter, what was given, what is allowed).
"""

from __future__ import annotations

import math
from numbers import Integral, Real

__all__ = [
    "check_batch",
    "check_real",
    "check_positive",
    "check_nonnegative",
    "check_int",
    "check_open_unit",
    "check_unit",
    "check_delta",
    "check_eps",
    "check_n",
    "shown",
    "PARAM_RANGES",
    "check_param",
    "check_params",
]


def shown(value) -> str:
    """A number as the user gave it, never rounded (``1000000000001``, ``5e-324``, ``0.30000000000000004``): whole
    numbers in full up to 16 digits, other numbers by their shortest exact form; long inputs are cut."""
    if isinstance(value, bool):
        return repr(value)
    if isinstance(value, Integral):
        return str(int(value)) if abs(int(value)) < 10**16 else repr(float(value)) if abs(int(value)) < 2**1024 \
            else f"an integer of {len(str(abs(int(value))))} digits"
    if isinstance(value, Real):
        x = float(value)
        return str(int(x)) if math.isfinite(x) and x.is_integer() and abs(x) < 1e16 else repr(x)
    return repr(value)[:60]


def check_real(name: str, value) -> float:
    """Return ``value`` as a finite float, or raise ValueError naming the parameter."""
    if isinstance(value, bool) or not isinstance(value, Real):
        try:
            value = float(value)
        except (TypeError, ValueError):
            raise ValueError(f"{name} must be a number, got {value!r}."[:300]) from None
        except OverflowError:
            raise ValueError(f"{name} must be a finite number; the value given is too large.") from None
    try:
        value = float(value)
    except OverflowError:  # a Python int beyond the float range
        raise ValueError(f"{name} must be a finite number; the value given is too large.") from None
    if not math.isfinite(value):
        raise ValueError(f"{name} must be a finite number, got {value}.")
    return value


def check_positive(name: str, value) -> float:
    """A finite number > 0."""
    value = check_real(name, value)
    if value <= 0:
        raise ValueError(f"{name} must be positive, got {shown(value)}.")
    return value


def check_nonnegative(name: str, value) -> float:
    """A finite number >= 0."""
    value = check_real(name, value)
    if value < 0:
        raise ValueError(f"{name} must be non-negative, got {shown(value)}.")
    return value


def check_int(name: str, value, minimum: int = 1) -> int:
    """An integer >= ``minimum`` (floats with an integral value such as 1e4 are accepted)."""
    if isinstance(value, bool):
        raise ValueError(f"{name} must be an integer, got {value!r}.")
    if not isinstance(value, Integral):
        v = check_real(name, value)
        if v != int(v):
            raise ValueError(f"{name} must be a whole number, got {shown(v)}.")
        value = int(v)
    value = int(value)
    if value < minimum:
        raise ValueError(f"{name} must be at least {minimum}, got {value}.")
    return value


def check_unit(name: str, value) -> float:
    """A number in the closed interval [0, 1]."""
    value = check_real(name, value)
    if not 0.0 <= value <= 1.0:
        raise ValueError(f"{name} must lie in [0, 1], got {shown(value)}.")
    return value


def check_open_unit(name: str, value) -> float:
    """A number in the open interval (0, 1)."""
    value = check_real(name, value)
    if not 0.0 < value < 1.0:
        raise ValueError(f"{name} must lie strictly between 0 and 1, got {shown(value)}.")
    return value


def check_level(value, what: str = "the confidence level") -> float:
    """Return a confidence level in [0.5, 1) as a float, or raise ValueError saying what it is (``what``)."""
    value = check_real("level", value)
    if not 0.5 <= value < 1.0:
        raise ValueError(f"level ({what}) must lie in [0.5, 1), got {shown(value)}.")
    return value


def check_eps(value, name: str = "eps") -> float:
    """Privacy budget epsilon: a finite number > 0 (smaller = more private)."""
    value = check_real(name, value)
    if value <= 0:
        raise ValueError(
            f"{name} (the privacy budget epsilon) must be positive, got {shown(value)}; "
            "smaller epsilon means more privacy."
        )
    return value


#: Smallest positive delta accepted anywhere: 1/delta overflows for delta < 5.6e-309.
DELTA_MIN = 1e-300


def check_delta(value, name: str = "delta", allow_zero: bool = False) -> float:
    """Privacy parameter delta in (0, 1), or [0, 1) when ``allow_zero`` (pure DP)."""
    value = check_real(name, value)
    if 0.0 < value < DELTA_MIN:
        raise ValueError(f"{name} = {shown(value)} is too small: below {DELTA_MIN:g} the quantity log(1/{name}) that every "
                         "privacy formula uses overflows double precision; use a delta of at least 1e-300 "
                         "(typically 1/n^2 or smaller).")
    if allow_zero:
        if not 0.0 <= value < 1.0:
            raise ValueError(f"{name} must lie in [0, 1), got {shown(value)}.")
    elif not 0.0 < value < 1.0:
        if value == 0.0:
            raise ValueError(
                f"{name} = 0 (pure DP) is not supported by this Gaussian mechanism; "
                "use a delta in (0, 1), typically 1/n^2 or smaller."
            )
        raise ValueError(f"{name} must lie strictly between 0 and 1, got {shown(value)}.")
    return value


def check_n(value, name: str = "n") -> int:
    """Sample size: an integer >= 2."""
    return check_int(name, value, minimum=2)


def check_batch(n: int, batch_size, sampling_rate, *, fixed: bool, batch: str = "batch_size",
                rate: str = "sampling_rate") -> tuple[int, float]:
    """(batch size m, sampling rate q) of a DP-SGD run on ``n`` examples from exactly one of ``batch_size`` (q = m/n)
    and ``sampling_rate`` (m = round(q·n), at least 1); with ``fixed`` (batches of a whole number of examples:
    without replacement, shuffled) q is then m/n.  ``batch`` / ``rate``: the two inputs as the messages name them."""
    if (batch_size is None) == (sampling_rate is None):
        raise ValueError(f"give exactly one of {batch} and {rate}.")
    if batch_size is not None:
        m = check_int(batch.removeprefix("the "), batch_size)
        if m > n:
            raise ValueError(f"{batch} ({m}) cannot exceed the data set size n ({n}).")
        return m, m / n
    q = check_real(rate.removeprefix("the "), sampling_rate)
    if not 0.0 < q <= 1.0:
        raise ValueError(f"{rate} must lie in (0, 1], got {q:g}.")
    m = max(1, round(q * n))
    return m, (m / n if fixed else q)


# ----------------------------------------------------------------------------------------------------------------
# The one table of accepted ranges for the common calibration / bound parameters.
#
# Outside these ranges the papers' formulas overflow or underflow in double precision (1/delta for delta < 5.6e-309,
# exp(eps) for eps > 709, n^2 for n > 1e154, ...), and no realistic use comes near them.  The CLI, the catalogue
# (catalog.calibrate / catalog.bound / ComparisonTable.evaluate) and hence every page check values against this table.

#: name -> (kind, low, high, what).  kind: "int" (whole number in [low, high]), "pos" (real in [low, high]),
#: "unit" (real in [0, 1]), "open-unit" (real in (0, 1)), "nonneg" (0 or a real in [low, high]), "delta" (0 or a real
#: in [low, 1)), "any" (real with |x| <= high).
PARAM_RANGES: dict[str, tuple[str, float, float, str]] = {
    "n": ("int", 2, 1e12, "sample size n"),
    "d": ("int", 1, 1e9, "dimension d"),
    "T": ("int", 1, 1e12, "number of iterations T"),
    "T_local": ("int", 1, 1e12, "local iterations T_local"),
    "rounds": ("int", 1, 1e12, "number of rounds"),
    "k": ("int", 1, 1e12, "k"),
    "eps": ("pos", 1e-8, 1e6, "privacy budget eps"),
    "eps1": ("pos", 1e-8, 1e6, "privacy budget eps1"),
    "eps2": ("pos", 1e-8, 1e6, "privacy budget eps2"),
    "delta": ("delta", 1e-300, 1.0, "privacy parameter delta"),
    "delta1": ("delta", 1e-300, 1.0, "privacy parameter delta1"),
    "delta2": ("delta", 1e-300, 1.0, "privacy parameter delta2"),
    "eta": ("pos", 1e-12, 1e12, "step size eta"),
    "G": ("pos", 1e-12, 1e12, "Lipschitz constant G"),
    "L": ("pos", 1e-12, 1e12, "smoothness / Hölder constant L"),
    "M": ("pos", 1e-12, 1e12, "gradient bound at zero M"),
    "R": ("pos", 1e-12, 1e12, "radius R"),
    "mu": ("pos", 1e-12, 1e12, "strong-convexity / PL constant mu"),
    "c": ("pos", 1e-12, 1e12, "absolute constant c"),
    "sigma": ("pos", 1e-12, 1e12, "noise level sigma"),
    "alpha": ("unit", 0.0, 1.0, "Hölder exponent alpha"),
    # strictly inside (0, 1), kept 1e-12 from the ends: at beta = 5e-324 the RDP conditions' logarithms leave
    # the floating-point range ("math domain error")
    "beta": ("open-unit", 1e-12, 1.0 - 1e-12, "RDP split parameter beta"),
    "kappa": ("nonneg", 1e-12, 1e12, "kappa"),
}
#: Any other numeric parameter (a paper's constant such as c_eta or Delta0) must have |x| <= this.
ANY_NUMBER_MAX = 1e12


def _range_text(kind: str, low: float, high: float) -> str:
    if kind == "int":
        return f"a whole number from {low:g} to {high:g}"
    if kind == "pos":
        return f"a number from {low:g} to {high:g}"
    if kind == "unit":
        return "a number in [0, 1]"
    if kind == "open-unit":
        return f"a number strictly between 0 and 1 (from {low:g} to 1 - {1.0 - high:.0e})"
    if kind == "nonneg":
        return f"0 or a number from {low:g} to {high:g}"
    if kind == "delta":
        return f"0 (pure DP) or a number from {low:g} up to (not including) 1"
    return f"a number between {-high:g} and {high:g}"


def check_param(name: str, value):
    """Check one calibration / bound parameter against :data:`PARAM_RANGES` (the one place where the ranges live).

    Returns the value (ints for whole-number parameters, floats for real ones); a number not in the table must have
    |x| <= ``ANY_NUMBER_MAX``; strings, booleans and arrays of parameters not in the table (e.g.
    ``accountant='rdp'``) pass through unchanged.  Raises ValueError naming the parameter,
    the value and the accepted range.
    """
    if name not in PARAM_RANGES:
        if isinstance(value, bool) or not isinstance(value, Real):
            return value  # strings, flags, arrays (e.g. a starting point theta0): checked by the function itself
        x = check_real(name, value)
        if abs(x) > ANY_NUMBER_MAX:
            raise ValueError(f"{name} must be {_range_text('any', 0, ANY_NUMBER_MAX)}, got {shown(value)}.")
        return value
    kind, low, high, what = PARAM_RANGES[name]
    if kind == "int":
        x = check_real(name, value)
        if x != math.floor(x) or not low <= x <= high:
            raise ValueError(f"{name} ({what}) must be {_range_text(kind, low, high)}, got {shown(value)}.")
        return int(x)
    x = check_real(name, value)
    ok = {
        "pos": low <= x <= high,
        "unit": 0.0 <= x <= 1.0,
        "open-unit": low <= x <= high,
        "nonneg": x == 0.0 or low <= x <= high,
        "delta": x == 0.0 or low <= x < 1.0,
    }[kind]
    if not ok:
        raise ValueError(f"{name} ({what}) must be {_range_text(kind, low, high)}, got {shown(value)}.")
    return x


def check_params(params: dict) -> dict:
    """:func:`check_param` applied to every entry (``None`` values are kept as None)."""
    return {k: (None if val is None else check_param(k, val)) for k, val in params.items()}


class TimeLimit(ValueError):
    """A job ran out of its CPU-time limit (:class:`dpviz_ui.workers.cpu_time_limit`); the message names the limit.

    Defined here, below every layer, so that :mod:`dpviz.engine.data` recognises it without importing the worker pool;
    :mod:`dpviz_ui.workers` raises it (``dpviz_ui.workers.TimeLimit`` is this class)."""
