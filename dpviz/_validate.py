"""Input checks shared by every dpviz module.

Every public function in dpviz validates its inputs with these helpers, so that a bad value raises
:class:`ValueError` with a message a student can act on (which parameter, what was given, what is allowed).
"""

from __future__ import annotations

import math
from numbers import Integral, Real

__all__ = [
    "check_real",
    "check_positive",
    "check_nonnegative",
    "check_int",
    "check_open_unit",
    "check_unit",
    "check_delta",
    "check_eps",
    "check_n",
]


def check_real(name: str, value) -> float:
    """Return ``value`` as a finite float, or raise ValueError naming the parameter."""
    if isinstance(value, bool) or not isinstance(value, Real):
        try:
            value = float(value)
        except (TypeError, ValueError):
            raise ValueError(f"{name} must be a number, got {value!r}.") from None
    value = float(value)
    if not math.isfinite(value):
        raise ValueError(f"{name} must be a finite number, got {value}.")
    return value


def check_positive(name: str, value) -> float:
    """A finite number > 0."""
    value = check_real(name, value)
    if value <= 0:
        raise ValueError(f"{name} must be positive, got {value:g}.")
    return value


def check_nonnegative(name: str, value) -> float:
    """A finite number >= 0."""
    value = check_real(name, value)
    if value < 0:
        raise ValueError(f"{name} must be non-negative, got {value:g}.")
    return value


def check_int(name: str, value, minimum: int = 1) -> int:
    """An integer >= ``minimum`` (floats with an integral value such as 1e4 are accepted)."""
    if isinstance(value, bool):
        raise ValueError(f"{name} must be an integer, got {value!r}.")
    if not isinstance(value, Integral):
        v = check_real(name, value)
        if v != int(v):
            raise ValueError(f"{name} must be a whole number, got {v:g}.")
        value = int(v)
    value = int(value)
    if value < minimum:
        raise ValueError(f"{name} must be at least {minimum}, got {value}.")
    return value


def check_unit(name: str, value) -> float:
    """A number in the closed interval [0, 1]."""
    value = check_real(name, value)
    if not 0.0 <= value <= 1.0:
        raise ValueError(f"{name} must lie in [0, 1], got {value:g}.")
    return value


def check_open_unit(name: str, value) -> float:
    """A number in the open interval (0, 1)."""
    value = check_real(name, value)
    if not 0.0 < value < 1.0:
        raise ValueError(f"{name} must lie strictly between 0 and 1, got {value:g}.")
    return value


def check_eps(value, name: str = "eps") -> float:
    """Privacy budget epsilon: a finite number > 0 (smaller = more private)."""
    value = check_real(name, value)
    if value <= 0:
        raise ValueError(
            f"{name} (the privacy budget epsilon) must be positive, got {value:g}; "
            "smaller epsilon means more privacy."
        )
    return value


def check_delta(value, name: str = "delta", allow_zero: bool = False) -> float:
    """Privacy parameter delta in (0, 1), or [0, 1) when ``allow_zero`` (pure DP)."""
    value = check_real(name, value)
    if allow_zero:
        if not 0.0 <= value < 1.0:
            raise ValueError(f"{name} must lie in [0, 1), got {value:g}.")
    elif not 0.0 < value < 1.0:
        if value == 0.0:
            raise ValueError(
                f"{name} = 0 (pure DP) is not supported by this Gaussian mechanism; "
                "use a delta in (0, 1), typically 1/n^2 or smaller."
            )
        raise ValueError(f"{name} must lie strictly between 0 and 1, got {value:g}.")
    return value


def check_n(value, name: str = "n") -> int:
    """Sample size: an integer >= 2."""
    return check_int(name, value, minimum=2)
