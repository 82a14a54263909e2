"""Small helpers shared by the paper modules of :mod:`dpviz.theory.papers` (one place for each of them).

Only logic that is literally the same in several papers lives here: the ``log(1/δ)`` factor, the standard normal
CDF Φ, the exact δ(ε) of the Gaussian mechanism (used to flag where a paper's ε < 1 lemma is too weak), the check of
a failure probability γ (or γ = δ/2 by default), and the optimal private rate ``1/√n + √(d log(1/δ))/(nε)`` of the comparison tables.  This
module is not a paper: it defines no ``PAPER`` and is not listed in :data:`dpviz.theory.catalog.PAPER_MODULES`.
"""

from __future__ import annotations

import math
import re
from decimal import Decimal, localcontext
from fractions import Fraction

from dpviz.foundation import validate as v

__all__ = ["log_inv", "exp_or_inf", "normal_cdf", "gaussian_exact_delta", "check_gamma", "gamma_from", "rate_opt", "exact_fraction",
           "ceil_pow", "name_citations", "cited",
           "cite_entries"]


def log_inv(delta: float) -> float:
    """``log(1/δ)``, the factor of every (ε, δ)-DP rate."""
    return math.log(1.0 / delta)


def exp_or_inf(x: float) -> float:
    """``exp(x)``, or ``inf`` where it would overflow (x > 709)."""
    if x > 709.0:
        return math.inf
    return math.exp(x)


def normal_cdf(x: float) -> float:
    """Φ(x), the standard normal CDF, by ``erfc`` (accurate in both tails)."""
    return 0.5 * math.erfc(-x / math.sqrt(2.0))


def gaussian_exact_delta(eps: float, s: float) -> float:
    """Exact δ(ε) of the Gaussian mechanism with noise σ = s·Δ (Balle & Wang 2018, Theorem 8):
    Φ(1/(2s) − εs) − e^ε Φ(−1/(2s) − εs), clipped at 0 (where e^ε overflows the second term is taken as 0)."""
    a, b = 1.0 / (2.0 * s), eps * s
    return max(0.0, normal_cdf(a - b) - exp_or_inf(eps) * normal_cdf(-a - b))


def check_gamma(gamma) -> float:
    """γ, a failure probability of a high-probability bound, in (0, 1)."""
    return v.check_open_unit("gamma (the failure probability)", gamma)


def gamma_from(gamma, delta) -> float:
    """γ if given, else δ/2: the failure probability of a high-probability sensitivity bound, which the papers'
    output-perturbation proofs charge to the δ of (ε, δ)-DP (Yang, Lei, Lyu & Ying (yang-pairwise), proof of
    Theorem 4; Wang, Lei, Ying & Zhang (wang-nonsmooth), Algorithm 1)."""
    if gamma is None:
        if delta is None:
            raise ValueError("give gamma (the failure probability of the stability bound) or delta (then gamma = delta/2).")
        return v.check_delta(delta) / 2.0
    return check_gamma(gamma)


def rate_opt(*, n, d, eps, delta) -> float:
    """The optimal (ε, δ)-DP excess-risk rate of convex Lipschitz SCO, ``1/√n + √(d log(1/δ))/(nε)``."""
    return 1.0 / math.sqrt(n) + math.sqrt(d * log_inv(delta)) / (n * eps)


def exact_fraction(x) -> Fraction:
    """The number a user typed, as an exact fraction: ``0.3`` -> 3/10 (its shortest decimal form, not the binary
    double 0.299999999999999988...), so that a schedule such as T = n^((2 - α)/(1 + α)) is rounded exactly."""
    if isinstance(x, (int, Fraction)):
        return Fraction(x)
    return Fraction(repr(float(x)))


def ceil_pow(n: int, p) -> int:
    """⌈n^p⌉ for an integer n >= 1 and a rational exponent p >= 0, computed exactly (at least 1).

    Floating point gets the papers' "rounded up" schedules wrong at exact powers: ``1e6 ** 2`` is exact but
    ``1000 ** (4/3)`` = 10000.000000000002 and a relative tolerance turns 10¹² into 999 999 999 999.  Here T is the
    smallest integer with T^q >= n^r (p = r/q in lowest terms), found by integer arithmetic around the floating-point
    estimate; exponents with a large denominator (e.g. α = 1/3 typed as 0.3333333333333333) use 60-digit decimals.
    """
    n = int(n)
    if n < 1:
        raise ValueError(f"ceil_pow needs n >= 1, got {n}.")
    p = Fraction(p)
    if p <= 0 or n == 1:
        return 1
    r, q = p.numerator, p.denominator
    if q <= 1000 and r * math.log10(n) <= 20000:
        target = n**r
        try:
            est = math.ceil(float(n) ** (r / q))
        except OverflowError:
            est = None
        if est is None:
            est = int(_decimal_pow(n, p)) + 1
        margin = max(2, est // 10**8)
        lo, hi = max(0, est - margin), est + margin
        while lo > 0 and lo**q >= target:
            lo = max(0, lo - 2 * margin)
        while hi**q < target:
            hi += 2 * margin
        while hi - lo > 1:  # invariant: lo^q < target <= hi^q
            mid = (lo + hi) // 2
            if mid**q >= target:
                hi = mid
            else:
                lo = mid
        return max(1, hi)
    val = _decimal_pow(n, p)
    with localcontext() as ctx:
        ctx.prec = 60
        t = int((val * (1 - Decimal("1e-45"))).to_integral_value(rounding="ROUND_CEILING"))
    return max(1, t)


def _decimal_pow(n: int, p: Fraction) -> Decimal:
    with localcontext() as ctx:
        ctx.prec = 60
        return (Decimal(p.numerator) / Decimal(p.denominator) * Decimal(n).ln()).exp()


# ----------------------------------------------------------------------------------------------------------------
# citations: every theorem, lemma, remark and equation a student reads is named with its paper

_REF = re.compile(
    r"(?<![\w'’])(?:Theorems?|Lemmas?|Remarks?|Corollar(?:y|ies)|Propositions?|Definitions?|Assumptions?)"
    r"\s+\(?\d+[a-z]?(?:\.\d+)?\)?|(?<![\w'’])[Ee]qs?\.\s*\(\d+[a-z]?\)")
# what marks a clause as already citing someone: a paper's authors ("&", "et al."), a year, a possessive, a key
_CITED = re.compile(r"&|\bet al\b|\b(?:19|20)\d\d\b|['’]s\s*$|\b(?:wang|kang|yang|xue)-[a-z]+\b|\bpaper\b")
_CLAUSE_END = ("(", ")", ";", ". ", ": ", chr(10), "[")  # chr(10): a line break


def name_citations(text: str, who: str) -> str:
    """``text`` with every bare reference to a theorem, lemma, remark, corollary, proposition, definition,
    assumption or equation of a paper named with its authors ``who``: "Theorem 2" -> "Wang, Lei, Ying & Zhou's
    Theorem 2", "eq. (9)" -> "Yang, Lei, Lyu & Ying's eq. (9)".

    A reference is left as it is when its clause (the text since the last "(", ")", ";", ". ", ": " or line break)
    already names someone (``who``, authors with "&" or "et al.", a year, a paper key, "the paper", a possessive
    just before it), or when it is followed by "of" / "in" (e.g. "Theorem 2 of the low-noise paper"): so
    "(Balle & Wang 2018, Theorem 8)" and "Yang, Lei, Lyu & Ying, Theorem 1" are unchanged, and a run such as
    "Lemma 1 and Theorem 3" is named once.  Idempotent.
    """
    if not text or not who:
        return text
    out, pos = [], 0
    for m in _REF.finditer(text):
        done = "".join(out) + text[pos:m.start()]
        start = max(done.rfind(c) for c in _CLAUSE_END)
        clause = done[start + 1:] if start >= 0 else done
        after = text[m.end():m.end() + 6]
        if who in clause or _CITED.search(clause) or re.match(r"\s+(?:of|in)\s", after):
            continue
        out.append(text[pos:m.start()])
        out.append(f"{who}'s {m.group(0)}")
        pos = m.end()
    out.append(text[pos:])
    return "".join(out)


class _Cited:
    """A calibration or bound function whose result names its paper with every reference (see :func:`cited`); a
    module-level class, so it pickles (by the wrapped function's reference) into worker processes."""

    def __init__(self, func, who: str):
        import functools

        self.func, self.who = func, who
        functools.update_wrapper(self, func)  # __wrapped__: inspect.signature sees the function's parameters

    def __call__(self, *args, **kwargs):
        res = self.func(*args, **kwargs)
        if hasattr(res, "notes") and isinstance(res.notes, list):
            res.notes = [name_citations(t, self.who) if isinstance(t, str) else t for t in res.notes]
        for attr in ("reason", "fix"):
            val = getattr(res, attr, None)
            if isinstance(val, str):
                setattr(res, attr, name_citations(val, self.who))
        return res

    def __reduce__(self):
        return (_Cited, (self.func, self.who))


def cited(func, who: str):
    """``func`` (a calibration or bound function of the paper by ``who``) whose returned ``Calibration``'s
    ``reason``, ``fix`` and ``notes`` (a ``BoundResult``'s ``notes``) name the paper with every theorem, lemma,
    remark and equation they cite (:func:`name_citations`).  Keeps the signature; ``None`` stays ``None``."""
    if func is None or isinstance(func, _Cited):
        return func
    return _Cited(func, who)


def cite_entries(entries, who: str) -> list:
    """The catalogue entries (``Algorithm``s or ``Theorem``s) with their ``calibrate`` / ``bound`` /
    ``explicit_bound`` functions wrapped by :func:`cited`."""
    import dataclasses

    out = []
    for e in entries:
        changes = {f: cited(getattr(e, f), who) for f in ("calibrate", "bound", "explicit_bound")
                   if getattr(e, f, None) is not None}
        out.append(dataclasses.replace(e, **changes) if changes else e)
    return out
