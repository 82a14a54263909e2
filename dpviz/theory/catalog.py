"""The one catalogue of papers, algorithms, theorems and comparison tables.

Every page of the dashboard, the CLI (``python -m dpviz``) and the tests read from here. Each paper lives in one
module under :mod:`dpviz.theory.papers` that defines four module-level names:

``PAPER``
    a :class:`Paper`;
``ALGORITHMS``
    a list of :class:`Algorithm`;
``THEOREMS``
    a list of :class:`Theorem`;
``TABLES``
    a list of :class:`ComparisonTable` (may be empty).

Adding a paper means adding one module and one line to :data:`PAPER_MODULES`.

Calibration and bound functions take keyword arguments only.  The common parameter names are

=========  =====================================================================================
``n``      sample size (integer >= 2)
``d``      dimension
``eps``    privacy budget epsilon > 0
``delta``  privacy parameter delta in [0, 1)
``T``      number of iterations
``eta``    (constant) step size
``G``      Lipschitz constant of the loss (bound on the gradient norm)
``L``      smoothness constant (for alpha-Hölder smooth losses: the Hölder constant)
``M``      bound on ||grad f(0; z)|| used by the Hölder papers
``R``      radius of the domain W (or of w*, depending on the paper: see each docstring)
``alpha``  Hölder smoothness exponent in [0, 1] (alpha = 1: smooth, alpha = 0: Lipschitz only)
``mu``     strong-convexity / PL constant
``c``      the paper's unspecified absolute constant, default 1
=========  =====================================================================================

:func:`calibrate` and :func:`bound` pass each function only the parameters its signature names, and raise a
``ValueError`` naming any required parameter that is missing.
"""

from __future__ import annotations

import importlib
import inspect
import math
from dataclasses import dataclass, field, asdict
from typing import Any, Callable, Literal

__all__ = [
    "ASSUMPTIONS",
    "GUARANTEES",
    "GUARANTEES_SHORT",
    "Risk",
    "risk_comparison",
    "Paper",
    "Algorithm",
    "Calibration",
    "Term",
    "BoundResult",
    "Theorem",
    "ComparisonRow",
    "ComparisonTable",
    "PAPER_MODULES",
    "papers",
    "algorithms",
    "theorems",
    "POPULATION_RISK",
    "theorems_bounding",
    "tables",
    "get_algorithm",
    "get_theorem",
    "get_paper",
    "calibrate",
    "bound",
    "formulas",
    "call_with_params",
]

#: Assumption vocabulary.  Every Algorithm / Theorem lists a subset of these keys.
ASSUMPTIONS: dict[str, str] = {
    "convex": "the loss is convex in w",
    "lipschitz": "the loss is G-Lipschitz in w (gradients bounded by G)",
    "smooth": "the loss is L-smooth (gradient L-Lipschitz)",
    "holder": "the gradient is alpha-Hölder continuous with constant L (alpha = 1: smooth, alpha = 0: non-smooth)",
    "strongly-convex": "the (empirical / population) risk is mu-strongly convex",
    "pl": "the objective satisfies the Polyak-Lojasiewicz condition with constant mu",
    "low-noise": "low-noise (realizable) condition: the population risk vanishes at the optimum, F(w*) = 0",
    "bounded-domain": "the domain W is bounded (contained in a ball of radius R)",
    "bounded-gradient-at-zero": "||grad f(0; z)|| <= M for all z",
    "nonnegative": "the loss is non-negative",
    "pairwise": "the loss depends on pairs of examples",
}

#: Guarantee types of a bound: key -> how it is said on screen.
GUARANTEES: dict[str, str] = {
    "expectation": "in expectation",
    "high-probability": "with probability 1 − γ",
    "deterministic": "deterministic (no probability involved)",
}

#: Short forms of :data:`GUARANTEES` for plot legends.
GUARANTEES_SHORT: dict[str, str] = {"expectation": "in expectation", "high-probability": "w.p. 1 − γ",
                                    "deterministic": "deterministic"}


class Risk(str):
    """What a theorem bounds, as a structured value: the ``quantity`` (e.g. "excess population risk", "excess
    empirical risk (optimality gap)", "uniform argument stability"), the ``guarantee`` type (a key of
    :data:`GUARANTEES`: ``"expectation"``, ``"high-probability"`` (with probability 1 − γ) or ``"deterministic"``)
    and an optional ``detail`` (the loss or the exact expression).

    It *is* its display text (a ``str`` subclass: "excess population risk, in expectation; pairwise loss"), so it
    prints, compares and serialises like the plain strings it replaces.  Bounds on different *quantities* must not
    share an axis unmarked; bounds on the same quantity with different guarantee types are comparable in scale but are
    different statements (a high-probability bound usually carries a log(1/γ) factor).
    """

    quantity: str
    guarantee: str
    detail: str

    def __new__(cls, quantity: str, guarantee: str = "expectation", detail: str = "") -> "Risk":
        if not isinstance(quantity, str) or not quantity.strip():
            raise ValueError("a risk needs a non-empty quantity, e.g. 'excess population risk'.")
        if guarantee not in GUARANTEES:
            raise ValueError(f"guarantee must be one of {', '.join(GUARANTEES)}, got {guarantee!r}.")
        text = f"{quantity}, {GUARANTEES[guarantee]}" + (f"; {detail}" if detail else "")
        obj = super().__new__(cls, text)
        obj.quantity, obj.guarantee, obj.detail = quantity, guarantee, detail
        return obj

    def __reduce__(self):
        return (Risk, (self.quantity, self.guarantee, self.detail))

    def __deepcopy__(self, memo):
        return self

    def __copy__(self):
        return self

    @property
    def guarantee_text(self) -> str:
        return GUARANTEES[self.guarantee]

    def as_dict(self) -> dict[str, str]:
        return {"quantity": self.quantity, "guarantee": self.guarantee, "detail": self.detail}

    @classmethod
    def parse(cls, text) -> "Risk":
        """A :class:`Risk` from a free-text description (for entries written before risks were structured): "with
        probability" / "high probability" -> ``"high-probability"``, "(not a risk)" -> ``"deterministic"``, else
        ``"expectation"``; a leading "expected " and those phrases are dropped from the quantity."""
        if isinstance(text, Risk):
            return text
        if not isinstance(text, str) or not text.strip():
            raise ValueError(f"a theorem's risk must be a Risk or a non-empty string, got {text!r}.")
        import re

        low = text.lower()
        if "with probability" in low or "high probability" in low:
            guarantee = "high-probability"
        elif "not a risk" in low:
            guarantee = "deterministic"
        else:
            guarantee = "expectation"
        quantity = re.sub(r"[\s,;]*\(?\s*with (high )?probability( 1 ?[-−] ?(gamma|γ))?\s*\)?", "", text,
                          flags=re.I).strip(" ,;")
        quantity = re.sub(r"^expected\s+", "", quantity, flags=re.I)
        if quantity.count("(") > quantity.count(")"):
            quantity += ")"
        return cls(quantity or text, guarantee)


def risk_comparison(risks) -> list[tuple[str, str]]:
    """What to say about bounds drawn on one axis, given their risks (:class:`Risk` or legacy strings).

    Returns ``(level, message)`` pairs: level ``"flag"`` when the bounds are on different *quantities* (not the
    same number: never compare them unmarked), ``"note"`` when one quantity is bounded with different guarantee types
    (in expectation / with probability 1 − γ / deterministic: comparable in scale, different statements).  Empty when
    all risks agree."""
    risks = [Risk.parse(r) for r in risks]
    quantities = sorted({r.quantity for r in risks})
    guarantees = [g for g in GUARANTEES if g in {r.guarantee for r in risks}]
    out = []
    if len(quantities) > 1:
        out.append(("flag", "Different quantities on one axis (in brackets in the legend): " + "; ".join(quantities)
                    + ". Their curves share an axis but do not bound the same number."))
    if len(guarantees) > 1:
        out.append(("note", "Different kinds of guarantee on one axis: "
                    + " vs ".join(GUARANTEES[g] for g in guarantees)
                    + ". On the same quantity these are comparable in scale but are different statements (a bound "
                      "with probability 1 − γ usually carries a log(1/γ) factor that a bound in expectation does not)."))
    return out


Setting = Literal["pointwise", "pairwise"]
Perturbation = Literal["gradient", "output", "objective", "none"]


@dataclass(frozen=True)
class Paper:
    """A paper of the catalogue, cited by its ``key`` and ``authors`` (full references in docs/papers.md)."""

    key: str
    authors: str
    short: str  # e.g. "Wang, Lei, Ying & Zhou"
    title: str
    venue: str
    year: int

    def cite(self) -> str:
        """How users see the paper: authors (venue year)."""
        if not self.venue:
            return self.short
        return f"{self.short} ({self.venue} {self.year})"


@dataclass
class Calibration:
    """The outcome of an algorithm's privacy calibration at given parameters.

    ``sigma`` is the standard deviation of the Gaussian noise per coordinate, in the paper's own units (e.g. added to
    the gradient for gradient perturbation, to the output for output perturbation); ``None`` when no Gaussian noise is
    used.  ``laplace_scale`` likewise for Laplace noise (delta = 0 variants).  ``sigma_schedule`` lists per-epoch
    noise when the noise changes across epochs.

    ``feasible`` means: the released mechanism is (ε, δ)-DP by the tightest check dpviz has.  When it is False,
    ``reason`` says which reading was used and that it is not private, and ``fix`` how to make it private.

    Machine-readable ``extras`` keys of every closed-form Gaussian calibration (DPGDSC, DPGDC2, DPEGD of
    xue-pairwise; the output-perturbation algorithms of yang-pairwise and wang-nonsmooth):

    ``sigma_rule``
        ``"private"`` (default: ``sigma`` is the smallest σ passing the exact check) or ``"printed"`` (``sigma`` is
        the paper's formula; the calibration is then feasible only if that σ passes the check); Yang, Lei, Lyu &
        Ying's eq. (5) also takes ``"proof"`` (σ as its proof requires, with the factor e; ``"printed"`` is eq. (5)
        literally, without it);
    ``sigma_readings``
        where a paper's σ has two readings (Yang et al.'s eq. (5)): a list of ``{label, sigma, exact_delta,
        private}``, labelled "as printed" / "as the proof requires" (the calibrate page lists them);
    ``sigma_private``
        the smallest private σ by the exact (analytic) Gaussian mechanism of Balle & Wang (2018), see
        :mod:`dpviz.theory.gaussian`;
    ``sigma_paper``
        the σ the paper prints (for Yang et al.'s eq. (5): the σ its proof requires; the literal one is
        ``sigma_as_printed``);
    ``paper_exact_delta``
        the exact δ(ε) of the paper's σ;
    ``paper_sigma_private``
        bool, ``paper_exact_delta <= δ`` (False: the paper's σ is "as printed — not (ε, δ)-DP here");
    ``privacy_check``
        one line naming the check (e.g. "exact composition of T = 1000 Gaussian steps ...").
    """

    id: str
    feasible: bool
    sigma: float | None = None
    laplace_scale: float | None = None
    sigma_schedule: list[float] | None = None
    beta: float | None = None
    beta_interval: tuple[float, float] | None = None
    beta_half: float | None = None
    T: int | None = None
    eta: float | None = None
    reason: str = ""
    fix: str = ""
    formula: str = ""  # LaTeX, symbolic
    formula_numbers: str = ""  # LaTeX with the numbers plugged in
    notes: list[str] = field(default_factory=list)
    extras: dict[str, Any] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        out = asdict(self)
        if out["beta_interval"] is not None:
            out["beta_interval"] = list(out["beta_interval"])
        return _json_safe(out)


@dataclass(frozen=True)
class Term:
    """One named term of an excess-risk bound, e.g. the privacy term sqrt(d log(1/delta))/(n eps).

    ``n_exp`` and ``eps_exp`` are the exponents of n and eps in the term's rate (e.g. -1 and -1 for 1/(n eps)).
    """

    name: str
    value: float
    n_exp: float
    eps_exp: float
    latex: str = ""


@dataclass
class BoundResult:
    theorem: str
    terms: list[Term]
    total: float
    eta: float | None = None
    T: int | None = None
    gradient_complexity: float | None = None
    explicit: bool = False
    notes: list[str] = field(default_factory=list)
    extras: dict[str, Any] = field(default_factory=dict)
    risk: str = ""  # which risk the bound controls: the theorem's :class:`Risk` (set by :func:`bound`)

    @property
    def form(self) -> str:
        """``"explicit"`` (the paper's constants and logarithms kept) or ``"rate"`` (constants dropped, set to c)."""
        return "explicit" if self.explicit else "rate"

    @classmethod
    def of(cls, theorem: str, terms, *, eta=None, T=None, gradient_complexity=None, notes=(), extras=None,
           explicit: bool = False, total=None) -> "BoundResult":
        """A bound from its named terms: ``total`` defaults to their sum, the gradient complexity to T (one
        gradient per step) when T is known."""
        terms = list(terms)
        if gradient_complexity is None and T is not None:
            gradient_complexity = float(T)
        return cls(theorem=theorem, terms=terms, total=sum(t.value for t in terms) if total is None else total,
                   eta=eta, T=T, gradient_complexity=None if gradient_complexity is None else float(gradient_complexity),
                   explicit=explicit, notes=list(notes), extras=dict(extras or {}))

    @property
    def exponents(self) -> dict[str, dict[str, float]]:
        return {t.name: {"n": t.n_exp, "eps": t.eps_exp} for t in self.terms}

    def dominant(self) -> Term:
        return max(self.terms, key=lambda t: t.value)

    def to_dict(self) -> dict[str, Any]:
        return _json_safe(
            {
                "theorem": self.theorem,
                "terms": [asdict(t) for t in self.terms],
                "total": self.total,
                "exponents": self.exponents,
                "eta": self.eta,
                "T": self.T,
                "gradient_complexity": self.gradient_complexity,
                "explicit": self.explicit,
                "form": self.form,
                "risk": str(self.risk),
                **_risk_fields(self.risk),
                "notes": list(self.notes),
                "extras": self.extras,
            }
        )


@dataclass(frozen=True)
class Algorithm:
    """A private (or baseline) algorithm of a paper and its noise calibration.

    ``affects`` names the calibration inputs (among the dashboard's ``n, d, eps, delta, T, eta, G, L, M, R, alpha,
    mu, c``) that change the numbers its calibration gives -- σ or the Laplace scale, feasibility, β and its
    interval, the T and η it sets (an input only echoed back does not count), the paper's own σ, the accountant's
    σ -- or its gradient count (n, T).  An input the calibration only validates or echoes is left out.  The
    dashboard marks these inputs with "*"; ``tests/test_affects.py`` checks the declaration by perturbing every
    input.
    """

    id: str
    name: str
    paper: Paper
    place: str  # e.g. "Algorithm 1"
    setting: Setting
    perturbation: Perturbation
    assumptions: tuple[str, ...]
    calibrate: Callable[..., Calibration] | None
    description: str = ""
    noise: Literal["gaussian", "laplace", "gaussian-or-laplace", "none"] = "gaussian"
    formula: str = ""  # LaTeX of the calibration
    affects: tuple[str, ...] = ()  # the calibration inputs that change its numbers (see the class docstring)

    def summary(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "name": self.name,
            "paper": self.paper.cite(),
            "place": self.place,
            "setting": self.setting,
            "perturbation": self.perturbation,
        }


@dataclass(frozen=True)
class Theorem:
    """A theorem (or corollary / lemma / remark) giving a schedule (eta, T) and an excess-risk bound.

    ``bound`` returns the bound with the paper's unspecified constants set to ``c`` (default 1), as named terms.
    ``explicit_bound`` (optional) uses the explicit constants the paper gives.  ``discrepancy`` records where a printed
    formula disagrees with its own proof and which reading dpviz follows.

    ``form`` says what ``bound`` is: ``"rate"`` (the paper's O(·) with constants and log factors dropped or set to
    ``c``) or ``"explicit"`` (constants and logarithms as in the paper); ``explicit_bound`` is always explicit.
    Compare rate with rate and explicit with explicit only.  ``risk`` is a :class:`Risk`: the quantity bounded
    (excess population risk, excess empirical risk / optimality gap, a stability or privacy quantity, ...) and the
    guarantee type (in expectation, with probability 1 − γ, deterministic).  Never put bounds on different
    quantities on one axis without saying so; the same quantity with different guarantee types is noted, not
    flagged.  A plain string is accepted and read by :meth:`Risk.parse`.
    """

    id: str
    paper: Paper
    number: str  # e.g. "Theorem 3"
    algorithm: str
    assumptions: tuple[str, ...]
    bound: Callable[..., BoundResult]
    statement: str = ""  # LaTeX of the bound
    schedule: str = ""  # LaTeX of eta and T
    explicit_bound: Callable[..., BoundResult] | None = None
    discrepancy: str = ""
    notes: tuple[str, ...] = ()
    risk: Risk = Risk("excess population risk", "expectation")  # what the bound controls
    form: Literal["rate", "explicit"] = "rate"  # what ``bound`` returns
    #: the inputs that change its numbers (bound, terms, η, T, gradient complexity; the explicit bound at the
    #: theorem's own schedule too) where ``bound`` / ``explicit_bound`` take inputs that change none; None: every
    #: input they take (see :meth:`inputs_affecting`)
    affects: tuple[str, ...] | None = None
    #: the inputs that change its schedule (η, T and the gradient complexity), which Calibrate uses when T and η are
    #: taken from the theorem
    schedule_affects: tuple[str, ...] = ()

    def __post_init__(self):
        if not isinstance(self.risk, Risk):
            object.__setattr__(self, "risk", Risk.parse(self.risk))

    def inputs_affecting(self) -> tuple[str, ...]:
        """The inputs that change the theorem's numbers: ``affects`` if declared, else every parameter of ``bound``
        and ``explicit_bound`` (the explicit bound's T and η only when ``bound`` takes them: it runs at the
        theorem's own schedule)."""
        if self.affects is not None:
            return self.affects
        main = parameters_of(self.bound)
        names = dict.fromkeys(main)
        if self.explicit_bound is not None:
            names.update(dict.fromkeys(k for k in parameters_of(self.explicit_bound)
                                       if k not in ("T", "eta") or k in main))
        return tuple(names)

    @property
    def forms(self) -> list[str]:
        """The forms available: ``form`` of ``bound``, plus "explicit" when ``explicit_bound`` exists."""
        out = [self.form]
        if self.explicit_bound is not None and "explicit" not in out:
            out.append("explicit")
        return out

    def summary(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "paper": self.paper.cite(),
            "theorem": self.number,
            "algorithm": self.algorithm,
            "assumptions": list(self.assumptions),
            "risk": str(self.risk),
            **_risk_fields(self.risk),
            "form": self.form,
            "forms": self.forms,
        }


@dataclass(frozen=True)
class ComparisonRow:
    method: str
    reference: str
    assumptions: str
    rate_latex: str
    rate: Callable[..., float] | None = None  # keyword params (n, d, eps, delta, alpha, ...)
    complexity_latex: str = ""
    complexity: Callable[..., float] | None = None
    extra: dict[str, str] = field(default_factory=dict)


@dataclass(frozen=True)
class ComparisonTable:
    id: str
    paper: Paper
    number: str  # e.g. "Table 1"
    caption: str
    rows: tuple[ComparisonRow, ...]

    def evaluate(self, **params) -> list[dict[str, Any]]:
        """Each row as a dict with the rate (and complexity) evaluated at ``params`` where a formula exists."""
        out = []
        for r in self.rows:
            row = {
                "method": r.method,
                "reference": r.reference,
                "assumptions": r.assumptions,
                "rate": r.rate_latex,
                "gradient complexity": r.complexity_latex,
                **r.extra,
            }
            what = f"{self.id} row {r.method!r}"
            for key, func in (("rate value", r.rate), ("complexity value", r.complexity)):
                row[key] = None
                if func is None:
                    continue
                try:
                    value = _guarded_call(func, params, what)
                except NumericalRangeError:
                    value = math.inf
                row[key] = _finite_or_none(value)
                if row[key] is None and value is not None:
                    # e.g. an (eps, delta) rate with log(1/delta) at delta = 0: the row does not apply here
                    why = (f"{key.split()[0]} not finite at these parameters (e.g. a log(1/delta) rate at delta = 0): "
                           "the row does not apply")
                    row["note"] = f"{row['note']}; {why}" if row.get("note") else why
            out.append(row)
        return out


# --------------------------------------------------------------------------------------------------------------
# Registry

#: The paper modules, in the order the dashboard lists them.  Add a paper here.
PAPER_MODULES: tuple[str, ...] = (
    "dpviz.theory.papers.baselines",
    "dpviz.theory.papers.wang_lownoise",
    "dpviz.theory.papers.kang_pidp",
    "dpviz.theory.papers.yang_pairwise",
    "dpviz.theory.papers.wang_nonsmooth",
    "dpviz.theory.papers.xue_pairwise",
)

_REGISTRY: dict[str, Any] | None = None


def _load() -> dict[str, Any]:
    global _REGISTRY
    if _REGISTRY is not None:
        return _REGISTRY
    reg: dict[str, Any] = {"papers": {}, "algorithms": {}, "theorems": {}, "tables": {}}
    for name in PAPER_MODULES:
        try:
            mod = importlib.import_module(name)
        except ModuleNotFoundError as exc:  # a paper module not written yet
            if exc.name == name:
                continue
            raise
        paper = getattr(mod, "PAPER", None)
        if paper is not None:
            reg["papers"][paper.key] = paper
        for kind, attr in (("algorithms", "ALGORITHMS"), ("theorems", "THEOREMS"), ("tables", "TABLES")):
            for item in getattr(mod, attr, ()):
                if item.id in reg[kind]:
                    raise RuntimeError(f"duplicate {kind[:-1]} id {item.id!r} in {name}")
                reg[kind][item.id] = item
    _REGISTRY = reg
    return reg


def papers() -> list[Paper]:
    return list(_load()["papers"].values())


def algorithms() -> list[Algorithm]:
    return list(_load()["algorithms"].values())


def theorems() -> list[Theorem]:
    return list(_load()["theorems"].values())


#: The quantity the simulation engine measures (Simulate, the sweeps and the reproductions plot it): the population
#: risk at the output minus the best risk over the domain.
POPULATION_RISK = "excess population risk"


def theorems_bounding(algorithm_id: str, quantity: str = POPULATION_RISK) -> list[Theorem]:
    """The theorems of ``algorithm_id`` whose bound is on ``quantity`` (``Theorem.risk.quantity``; default the excess
    population risk, what a simulation measures), in catalogue order.

    A bound on another quantity -- uniform argument stability (Wang, Lei, Ying & Zhang, Theorem 7), the optimality
    gap (Kang, Li, Liu & Wang, Theorem 1), the influence-function approximation error (ibid., Theorem 4) -- must never
    be drawn against a measured excess population risk as "the theory".
    """
    get_algorithm(algorithm_id)  # ValueError naming the known ids
    return [t for t in theorems() if t.algorithm == algorithm_id and t.risk.quantity == quantity]


def tables() -> list[ComparisonTable]:
    return list(_load()["tables"].values())


def get_paper(key: str) -> Paper:
    try:
        return _load()["papers"][key]
    except KeyError:
        raise ValueError(f"unknown paper {key!r}; known: {', '.join(_load()['papers'])}") from None


def get_algorithm(algorithm_id: str) -> Algorithm:
    try:
        return _load()["algorithms"][algorithm_id]
    except KeyError:
        known = ", ".join(_load()["algorithms"])
        raise ValueError(f"unknown algorithm {algorithm_id!r}; known algorithms: {known}") from None


def get_theorem(theorem_id: str) -> Theorem:
    try:
        return _load()["theorems"][theorem_id]
    except KeyError:
        known = ", ".join(_load()["theorems"])
        raise ValueError(f"unknown theorem {theorem_id!r}; known theorems: {known}") from None


def get_table(table_id: str) -> ComparisonTable:
    try:
        return _load()["tables"][table_id]
    except KeyError:
        known = ", ".join(_load()["tables"])
        raise ValueError(f"unknown table {table_id!r}; known tables: {known}") from None


def call_with_params(func: Callable[..., Any], params: dict[str, Any], what: str = "") -> Any:
    """Call ``func`` with the entries of ``params`` that its signature names (``None`` values are dropped).

    Raises ValueError naming the missing required parameters.
    """
    sig = inspect.signature(func)
    accepts_kwargs = any(p.kind is p.VAR_KEYWORD for p in sig.parameters.values())
    given = {k: v for k, v in params.items() if v is not None}
    kwargs = {k: v for k, v in given.items() if accepts_kwargs or k in sig.parameters}
    missing = [
        name
        for name, p in sig.parameters.items()
        if p.default is p.empty and p.kind in (p.KEYWORD_ONLY, p.POSITIONAL_OR_KEYWORD) and name not in kwargs
    ]
    if missing:
        label = f" for {what}" if what else ""
        raise ValueError(f"missing required parameter(s){label}: {', '.join(missing)}")
    return func(**kwargs)


def parameters_of(func: Callable[..., Any]) -> dict[str, Any]:
    """Parameter names of a calibration/bound function with their defaults (``inspect._empty`` if required)."""
    return {
        name: p.default
        for name, p in inspect.signature(func).parameters.items()
        if p.kind in (p.KEYWORD_ONLY, p.POSITIONAL_OR_KEYWORD)
    }


class NumericalRangeError(ValueError):
    """A formula overflowed or divided by zero at the given (range-checked) parameters."""


def _guarded_call(func: Callable[..., Any], params: dict[str, Any], what: str) -> Any:
    """:func:`call_with_params` after the range checks of :data:`dpviz.foundation.validate.PARAM_RANGES`, with numpy's
    floating-point warnings silenced (the results are checked for finiteness by the callers) and arithmetic errors
    (overflow, division by zero) turned into a ValueError a student can act on."""
    import numpy as np

    from dpviz.foundation.validate import check_params

    params = check_params(params)
    try:
        with np.errstate(all="ignore"):
            return call_with_params(func, params, what=what)
    except (OverflowError, ZeroDivisionError, FloatingPointError) as exc:
        raise NumericalRangeError(f"the formulas of {what} cannot be evaluated in double precision at these parameters "
                         f"({exc}); move the most extreme parameter towards typical values.") from None


def _nonfinite_fields(cal: "Calibration") -> list[str]:
    bad = []
    for key in ("sigma", "laplace_scale", "beta", "beta_half", "eta"):
        val = getattr(cal, key)
        if val is not None and not (isinstance(val, (int, float)) and math.isfinite(val)):
            bad.append(key)
    if cal.sigma_schedule is not None and not all(math.isfinite(float(s)) for s in cal.sigma_schedule):
        bad.append("sigma_schedule")
    if cal.beta_interval is not None and not all(math.isfinite(float(b)) for b in cal.beta_interval):
        bad.append("beta_interval")
    return bad


def calibrate(algorithm_id: str, **params) -> Calibration:
    """Calibrate ``algorithm_id`` at ``params`` (see the module docstring for names).

    Parameters are range-checked (:data:`dpviz.foundation.validate.PARAM_RANGES`).  A calibration reported feasible always
    carries finite numbers: if the noise scale of a noisy algorithm is missing or not finite at these parameters, the
    result is returned as infeasible with the reason."""
    alg = get_algorithm(algorithm_id)
    if alg.calibrate is None:
        return Calibration(id=alg.id, feasible=True, reason="non-private baseline: no noise")
    cal = _guarded_call(alg.calibrate, params, what=f"algorithm {algorithm_id!r}")
    if cal.feasible:
        bad = _nonfinite_fields(cal)
        no_noise = alg.noise != "none" and cal.sigma is None and cal.laplace_scale is None and not cal.sigma_schedule
        if bad or no_noise:
            cal.feasible = False
            what = ", ".join(bad) if bad else "the noise scale"
            cal.reason = (f"{what} cannot be represented as a finite number at these parameters (the formula "
                          "overflows or underflows in double precision)" + (f"; {cal.reason}" if cal.reason else ""))
            cal.fix = cal.fix or "move eps, n, T or the constants towards typical values (e.g. eps in [0.1, 10])."
    return cal


def bound(theorem_id: str, explicit: bool = False, **params) -> BoundResult:
    """Evaluate theorem ``theorem_id`` at ``params``; ``explicit=True`` uses the paper's explicit constants.

    Parameters are range-checked (:data:`dpviz.foundation.validate.PARAM_RANGES`); a ValueError is raised when the bound is
    not a finite number at these parameters (so a returned bound's total and terms are always finite)."""
    thm = get_theorem(theorem_id)
    func = thm.bound
    if explicit:
        if thm.explicit_bound is None:
            raise ValueError(f"{thm.paper.short}, {thm.number} gives no explicit constants; use the rate form.")
        func = thm.explicit_bound
    res = _guarded_call(func, params, what=f"theorem {theorem_id!r}")
    bad = [t.name for t in res.terms if not math.isfinite(float(t.value))]
    if bad or not math.isfinite(float(res.total)):
        raise ValueError(f"{thm.paper.short}, {thm.number}: the bound is not a finite number at these parameters "
                         f"(term(s) {', '.join(bad) or 'total'} overflow); move the most extreme parameter towards "
                         "typical values.")
    if not res.risk:
        res.risk = thm.risk
    return res


def formulas(params: dict[str, Any] | None = None) -> list[tuple[str, str]]:
    """Every LaTeX formula of the catalogue, as ``(where, latex)`` pairs.

    Without ``params``: the formulas written in the catalogue (each algorithm's calibration formula, each theorem's
    statement and schedule, each table row's rate and complexity).  With ``params`` (a typical point, e.g.
    ``n=1000, d=10, eps=1, ...``): also the formulas built at that point, which the dashboard renders — each
    calibration's ``formula`` and ``formula_numbers`` and the LaTeX of every term of every bound (rate and explicit
    form); entries that are not defined at that point (ValueError) are skipped.  Used by the tests that check that
    no formula contains a control character and that each renders in KaTeX.
    """
    out: list[tuple[str, str]] = []
    for alg in algorithms():
        if alg.formula:
            out.append((f"algorithm {alg.id}: formula", alg.formula))
    for thm in theorems():
        for name in ("statement", "schedule"):
            if getattr(thm, name):
                out.append((f"theorem {thm.id}: {name}", getattr(thm, name)))
    for tab in tables():
        for i, row in enumerate(tab.rows):
            for name in ("rate_latex", "complexity_latex"):
                if getattr(row, name):
                    out.append((f"table {tab.id} row {i + 1}: {name}", getattr(row, name)))
    if params is None:
        return out
    for alg in algorithms():
        if alg.calibrate is None:
            continue
        try:
            cal = calibrate(alg.id, **{k: v for k, v in params.items() if k in parameters_of(alg.calibrate)})
        except ValueError:
            continue
        for name in ("formula", "formula_numbers"):
            if getattr(cal, name):
                out.append((f"calibration {alg.id}: {name}", getattr(cal, name)))
    for thm in theorems():
        for explicit in (False, True):
            if explicit and thm.explicit_bound is None:
                continue
            try:
                res = bound(thm.id, explicit=explicit, **params)
            except ValueError:
                continue
            out.extend((f"bound {thm.id}{' (explicit)' if explicit else ''}: term {t.name}", t.latex)
                       for t in res.terms if t.latex)
    return out


def _risk_fields(risk) -> dict[str, str]:
    """``risk_quantity`` and ``risk_guarantee`` of a (possibly legacy string) risk, for the JSON outputs."""
    if not risk:
        return {"risk_quantity": "", "risk_guarantee": ""}
    r = Risk.parse(risk)
    return {"risk_quantity": r.quantity, "risk_guarantee": r.guarantee}


def _finite_or_none(x: Any) -> Any:
    """A table cell's value, or None (shown as an empty cell: "not defined here") when it is not a finite number."""
    try:
        return x if math.isfinite(float(x)) else None
    except (TypeError, ValueError, OverflowError):
        return x


def _json_safe(obj: Any) -> Any:
    """Recursively turn tuples into lists and non-finite floats into None (JSON has no inf/nan)."""
    if isinstance(obj, dict):
        return {str(k): _json_safe(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return [_json_safe(v) for v in obj]
    if isinstance(obj, float) and not math.isfinite(obj):
        return None
    if hasattr(obj, "item") and callable(obj.item):  # numpy scalar
        return _json_safe(obj.item())
    return obj
