"""Dashboard view state <-> URL query parameters (pure: no streamlit).

Every value is a JSON-safe scalar (int, float, str, bool) or a list of str.  Decoding validates each entry against
:data:`SCHEMA` and silently falls back to the default for anything unknown or malformed: a URL is user input, so it is
parsed (``int``/``float``/allowed strings) — never unpickled or evaluated.
"""

from __future__ import annotations

import math
from typing import Any

import re

__all__ = ["SCHEMA", "DEFAULTS", "encode", "decode", "validate", "parse_number", "number_text"]

#: name -> (kind, default, (low, high) for numbers).  kind: "int", "float", "str", "list", "bool".
SCHEMA: dict[str, tuple[str, Any, tuple[float, float] | None]] = {
    "page": ("str", "home", None),
    "n": ("int", 1000, (2, 10**9)),
    "d": ("int", 10, (1, 10**7)),
    "eps": ("float", 1.0, (1e-6, 1e4)),
    "log10_delta": ("float", -6.0, (-30.0, -1.0)),  # δ ≤ 0.1: a larger δ makes (ε, δ)-DP vacuous
    "T": ("int", 1000, (1, 10**12)),
    "eta": ("float", 0.01, (1e-12, 1e6)),
    "G": ("float", 1.0, (1e-12, 1e12)),
    "L": ("float", 1.0, (1e-12, 1e12)),
    "M": ("float", 1.0, (1e-12, 1e12)),
    "R": ("float", 1.0, (1e-12, 1e12)),
    "alpha": ("float", 0.5, (0.0, 1.0)),
    "mu": ("float", 0.1, (1e-12, 1e12)),
    "c": ("float", 1.0, (1e-12, 1e12)),
    "algorithm": ("str", "", None),
    "theorems": ("list", [], None),
    "sweep": ("str", "n", None),
    # loss-derived constants (Calibrate / Bounds)
    "kappa": ("float", 1.0, (1e-12, 1e12)),
    "q": ("float", 1.5, (1.0, 2.0)),
    "loss": ("str", "custom", None),
    "override": ("bool", False, None),
    "delta_auto": ("bool", True, None),
    # Simulate
    "dataset": ("str", "wang-logistic", None),
    "sim_loss": ("str", "logistic", None),
    "sim_algs": ("list", [], None),
    "sim_sweep": ("str", "eps", None),
    "reps": ("int", 20, (1, 500)),
    "seed": ("int", 0, (0, 2**31 - 1)),
    "noise": ("float", 0.0, (0.0, 10.0)),
    "eps_lo": ("float", 1.0, (1e-6, 1e4)),
    "eps_hi": ("float", 16.0, (1e-6, 1e4)),
    "n_lo": ("int", 50, (2, 10**9)),
    "n_hi": ("int", 1000, (2, 10**9)),
    "run_infeasible": ("bool", False, None),
    "schedule": ("str", "manual", None),
    # Calibrate: optional heavy plots
    "compare_all": ("bool", False, None),
    "show_map": ("bool", False, None),
    # Bounds: rates or explicit constants on the totals plots
    "bound_kind": ("str", "rate", None),
    # Bounds: F(w*), the population risk of the best model, for explicit bounds of general (not low-noise) parts
    "Fstar": ("float", 0.1, (0.0, 1e12)),
    # Simulate: typed grids, several label-noise values, the plotted quantity
    "eps_grid": ("list", [], None),
    "n_grid": ("list", [], None),
    "kappas": ("list", [], None),
    "plot_value": ("str", "excess_risk", None),
    "l2": ("float", 0.0, (0.0, 10.0)),
    "consistent": ("bool", False, None),
    "pidp_erm": ("bool", False, None),
    # Simulate: the Lipschitz constant G of the noise formula (from the loss, or given as in a paper's experiment),
    # projection onto the ball of radius R (off: W = R^d), and where the results come from (a run on this page or a
    # sweep's Parquet output: a sub-folder of the server's sweeps folder, the swept parameter on the x-axis)
    "sim_G_auto": ("bool", True, None),
    "sim_project": ("bool", True, None),
    "sim_source": ("str", "run", None),
    # Simulate: T and η from the theorem the run is compared with ("theorem") or the sidebar ("manual")
    "sim_schedule": ("str", "theorem", None),
    "sweep_dir": ("str", "", None),
    "sweep_x": ("str", "", None),
    # Accounting (n, ε, δ, T, G, η, μ, L, M, α, R and the algorithm are the shared entries above): a σ of your own
    # (0 = none) and the general DP-SGD calculator
    "acc_sigma": ("float", 0.0, (0.0, 1e9)),
    "acc_calc_n": ("int", 60000, (2, 10**9)),
    "acc_calc_batch": ("int", 256, (1, 10**9)),
    "acc_calc_epochs": ("float", 10.0, (0.01, 1e4)),
    "acc_calc_nm": ("float", 1.1, (0.01, 1e4)),
    "acc_calc_log10_delta": ("float", -5.0, (-30.0, -1.0)),
    "acc_calc_sampling": ("str", "poisson", None),
    "acc_calc_neighbouring": ("str", "add-remove", None),
    # Check a run (pages/check.py; the verify_ names sort after every other entry, so adding them moved no other
    # entry in sorted(SCHEMA); G, R and d of its utility section are the shared entries): the run as a
    # practitioner states it, MNIST-like defaults (batch size or sampling rate, epochs or steps, noise multiplier or
    # σ with the clipping norm C), δ, the target ε (0 = none), the batch sampling and the neighbouring relation
    "verify_n": ("int", 60000, (2, 10**9)),
    "verify_batch_kind": ("str", "batch", None),
    "verify_batch": ("int", 256, (1, 10**9)),
    "verify_rate": ("float", 0.004, (1e-9, 1.0)),
    "verify_length_kind": ("str", "epochs", None),
    "verify_epochs": ("float", 60.0, (1e-3, 1e6)),
    "verify_steps": ("int", 14063, (1, 10**7)),
    "verify_noise_kind": ("str", "multiplier", None),
    "verify_nm": ("float", 1.1, (1e-3, 1e4)),
    "verify_sigma": ("float", 1.1, (1e-12, 1e12)),
    "verify_C": ("float", 1.0, (1e-12, 1e12)),
    "verify_delta": ("float", 1e-5, (1e-30, 0.1)),
    "verify_target": ("float", 3.0, (0.0, 1e4)),
    "verify_sampling": ("str", "poisson", None),
    "verify_neighbouring": ("str", "add-remove", None),
}

#: Link parameters of earlier versions of the Accounting and Audit pages, now the shared entries (old links keep
#: working).
ALIASES: dict[str, str] = {"acc_algorithm": "algorithm", "acc_n": "n", "acc_eps": "eps",
                           "acc_log10_delta": "log10_delta", "acc_T": "T", "acc_G": "G", "acc_eta": "eta",
                           "acc_mu": "mu", "acc_L": "L", "acc_M": "M", "acc_alpha": "alpha", "acc_R": "R",
                           "aud_n": "n", "aud_eps": "eps"}

DEFAULTS: dict[str, Any] = {k: v[1] for k, v in SCHEMA.items()}

_MAX_STR = 80


#: Prefixes of link parameters that a page keeps and validates itself (e.g. the Audit page's ``aud_*``).
PAGE_PREFIXES: tuple[str, ...] = ("aud_", "les_", "cls_")


def _clean_str(value: Any) -> str | None:
    if not isinstance(value, str) or len(value) > _MAX_STR:
        return None
    if not all(ch.isalnum() or ch in "-_." for ch in value):
        return None
    return value


#: spaces people put between groups of digits: space, no-break space, thin space, narrow no-break space
_GROUP_SPACES = " \u00a0\u2009\u202f"
_PLAIN = re.compile(r"[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?")
_SPACED = re.compile(r"[+\-\u2212]?\d{1,3}([ \u00a0\u2009\u202f]\d{3})+(\.\d*)?")
_GROUPED = re.compile(r"[+-]?\d{1,3}(,\d{3})+(\.\d*)?([eE][+-]?\d+)?")


def parse_number(text: Any, kind: str = "float") -> int | float:
    """The number a person typed: ``60000``, ``6e4``, ``1.5e5``, ``60,000``, ``60 000``, ``1e-6``, ``−0.5``.

    Commas are accepted only as thousands separators (``60,000``; ``1,5`` is refused: decimals take a dot) and
    spaces only between digit groups.  ``kind="int"`` returns an int and refuses a number that is not whole
    (``1.5``, ``2.5e0``) instead of truncating it.  Never evaluates anything; ValueError with a short message
    otherwise.
    """
    if isinstance(text, bool):
        raise ValueError("type a number")
    if isinstance(text, (int, float)):
        num = float(text)
        shown = repr(text)
    else:
        full = str(text).strip()
        shown = full if len(full) <= 40 else full[:37] + "..."
        s = full.replace("\u2212", "-")  # the minus sign U+2212, as printed in papers
        for ch in _GROUP_SPACES:
            s = s.replace(ch, "")
        if any(ch in full for ch in _GROUP_SPACES) and not _SPACED.fullmatch(full):
            raise ValueError(f"{shown!r} is not one number (spaces only between groups of three digits: 60 000)")
        if not s:
            raise ValueError("the box is empty: type a number")
        if _GROUPED.fullmatch(s):
            s = s.replace(",", "")
        elif "," in s:
            raise ValueError(f"{shown!r} is not a number: a comma only separates thousands (60,000); decimals "
                             "take a dot (0.5)")
        if not _PLAIN.fullmatch(s):
            raise ValueError(f"{shown!r} is not a number")
        num = float(s)
        if num == 0 and re.search(r"[1-9]", s.split("e")[0].split("E")[0]):
            raise ValueError(f"{shown!r} is too close to 0 to be represented")
    if not math.isfinite(num):
        raise ValueError(f"{shown!r} is not a finite number")
    if kind == "int":
        if num != int(num):
            raise ValueError(f"{shown!r} is not a whole number")
        return int(num)
    return num


def number_text(value: Any, kind: str = "float") -> str:
    """``value`` as it is shown in a number box: exact (it parses back to the same number), no ``.0`` on whole
    floats, e.g. ``60000``, ``0.5``, ``1e-06``."""
    if value is None:
        return ""
    if kind == "int" and float(value).is_integer() and abs(float(value)) < 2**63:
        return str(int(value))
    text = repr(float(value))
    return text[:-2] if text.endswith(".0") else text


def validate(name: str, value: Any) -> Any:
    """Return ``value`` converted to the schema type of ``name``; raise ValueError if it does not fit."""
    if name not in SCHEMA:
        raise ValueError(f"unknown view parameter {name!r}")
    kind, _default, bounds = SCHEMA[name]
    if kind == "list":
        items = value.split(",") if isinstance(value, str) else list(value)
        items = [i for i in items if i != ""]
        cleaned = [_clean_str(i) for i in items]
        if any(c is None for c in cleaned) or len(cleaned) > 20:
            raise ValueError(f"{name} must be a comma-separated list of ids")
        return cleaned
    if kind == "str":
        cleaned = _clean_str(value)
        if cleaned is None:
            raise ValueError(f"{name} must be a short id (letters, digits, '-', '_', '.')")
        return cleaned
    if kind == "bool":
        if isinstance(value, bool):
            return value
        if str(value).lower() in ("1", "true", "yes"):
            return True
        if str(value).lower() in ("0", "false", "no"):
            return False
        raise ValueError(f"{name} must be true or false")
    try:
        num = parse_number(value, kind)
    except (TypeError, ValueError, OverflowError):
        shown = repr(value) if len(repr(value)) <= 40 else repr(value)[:37] + "..."
        raise ValueError(f"{name} must be a {'whole number' if kind == 'int' else 'number'}, got {shown}") from None
    lo, hi = bounds  # type: ignore[misc]
    if not lo <= num <= hi:
        raise ValueError(f"{name} must be between {lo:g} and {hi:g}, got {num:g}")
    return num


def encode(state: dict[str, Any]) -> dict[str, str]:
    """Query parameters (strings) for the entries of ``state`` that differ from :data:`DEFAULTS`."""
    out: dict[str, str] = {}
    for name, value in state.items():
        if name not in SCHEMA:
            continue
        value = validate(name, value)
        if value == DEFAULTS[name]:
            continue
        if SCHEMA[name][0] == "list":
            out[name] = ",".join(value)
        elif isinstance(value, float):
            out[name] = repr(value)
        else:
            out[name] = str(value)
    return out




def decode(params: dict[str, Any]) -> tuple[dict[str, Any], list[str]]:
    """The full view state from query parameters, plus a list of messages about entries that were ignored."""
    state = dict(DEFAULTS)
    for name, (kind, default, _b) in SCHEMA.items():
        if kind == "list":
            state[name] = list(default)
    problems: list[str] = []
    params = dict(params)
    for old, new in ALIASES.items():  # an old Accounting link: its entries are the shared ones now
        if old in params:
            raw = params.pop(old)
            if new not in params:
                params[new] = raw
                if new == "log10_delta" and "delta_auto" not in params:
                    params["delta_auto"] = "false"  # the old page took δ as given
    for name, raw in params.items():
        if str(name).startswith(PAGE_PREFIXES):
            continue  # owned and validated by its own page (e.g. aud_… by the Audit page)
        if name not in SCHEMA:
            problems.append(f"ignored unknown link parameter {str(name)[:30]!r}")
            continue
        try:
            state[name] = validate(name, raw)
        except ValueError as exc:
            problems.append(f"ignored link parameter: {exc}")
    return state, problems
