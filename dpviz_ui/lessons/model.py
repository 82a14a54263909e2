r"""What a lesson is made of, and a step's state: the data classes, the inputs and views a step may use, the values
an animated parameter plays through, a step's full view state and its dpviz parameters, number formatting, and the
calibrated noise at a view's parameters (with its feasibility search) that the charts, the views and the solvers
share.

Imports no other module of the package (the bottom of :mod:`dpviz_ui.lessons`).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

from dpviz.foundation import urlstate


# ----------------------------------------------------------------------------------------------------------------------
# data
# ----------------------------------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class Question:
    """A "predict, then reveal" question.  ``solver`` names a function of :data:`SOLVERS` that computes the answer
    at the step's state (and, for simulation steps, from the step's live values) and explains it with the formula and
    the numbers plugged in.  ``kind`` "number" (a prediction within ``rtol`` of the answer counts as right) or
    "choice" (one of ``options``)."""

    prompt: str
    solver: str
    kind: str = "number"
    options: tuple[str, ...] = ()
    rtol: float = 0.1
    #: what is on screen BEFORE the answer (everything else of the step appears with it): labels of the step's
    #: numbers, and "formula", "status", "notes", "chart" -- only parts from which the answer does not follow
    shown: tuple[str, ...] = ()


@dataclass(frozen=True)
class Step:
    """One screen of a lesson.

    ``view`` is a kind of :data:`VIEWS`; ``state`` the parameters it sets (URL-schema names: ``n``, ``eps``,
    ``log10_delta``, ``delta_auto``, ``algorithm``, ``theorems``, ``sweep`` …, or ``aud_*``); ``inputs`` the
    parameters a student can change on the step; ``animate`` the parameter played through :func:`animation_values`.
    """

    title: str
    text: str
    view: str
    state: dict = field(default_factory=dict)
    inputs: tuple[str, ...] = ()
    animate: str | None = None
    question: Question | None = None
    #: parts of the view this step never shows (labels of its numbers, "notes", "formula", "status"): what a LATER
    #: question of the lesson asks for at the same settings (the exact σ before the step that asks for it)
    hide: tuple[str, ...] = ()


@dataclass(frozen=True)
class Lesson:
    id: str
    title: str
    papers: tuple[str, ...]
    objectives: tuple[str, ...]
    steps: tuple[Step, ...]

    @property
    def minutes(self) -> int:
        """A lecturer's estimate of its length: about three minutes a step, five with a question."""
        return sum(5 if s.question else 3 for s in self.steps)


#: inputs a lesson step may expose (numbers of the URL schema or the Audit page's schema)
LESSON_INPUTS = ("n", "d", "eps", "log10_delta", "T", "eta", "G", "L", "mu", "alpha", "reps", "aud_trials", "aud_reps",
                 "aud_n", "aud_eps")

#: the parts of a step's screen besides its numbers, which a question may hold back until it is answered
PARTS = ("formula", "status", "notes", "chart")

#: view kind -> the dashboard page that shows the same computation (for the "Open in …" link), or None
VIEWS: dict[str, str | None] = {
    "gaussian": None, "calibrate": "calibrate", "beta": "calibrate", "accounting": "accounting",
    "bound": "bounds", "simulate": "simulate", "threshold": "calibrate", "stability": "audit", "audit": "audit",
    "certifiable": "audit", "experiment": None,
}
#: views run in the worker pool (a small simulation, audit or stability run: seconds)
HEAVY = ("simulate", "stability", "audit", "experiment")

def _nice_logspace(lo: float, hi: float, per_decade: int, integer: bool) -> tuple:
    """Values from lo to hi, ``per_decade`` a decade, rounded to two significant digits (distinct)."""
    k = int(round(math.log10(hi / lo) * per_decade))
    out = []
    for i in range(k + 1):
        x = float(f"{lo * 10 ** (i / per_decade):.2g}")
        x = int(round(x)) if integer else x
        if x not in out:
            out.append(x)
    return tuple(out)


#: values an animated parameter plays through (one chart frame each; 10 frames a second)
_ANIM = {
    "eps": _nice_logspace(0.1, 10.0, 8, False),
    "n": _nice_logspace(100, 1_000_000, 6, True),
    "alpha": tuple(i / 20 for i in range(21)),
    "T": _nice_logspace(10, 100_000, 6, True),
    "aud_trials": tuple(2 * (m // 2) for m in _nice_logspace(100, 200_000, 6, True)),
}
#: milliseconds a frame of an animation is shown at least (about 10 frames a second once drawing time is added)
FRAME_MS = 75


def animation_values(param: str) -> tuple:
    """The values an animated ``param`` plays through (frames of the chart)."""
    if param not in _ANIM:
        raise ValueError(f"{param!r} cannot be animated; choose one of {', '.join(_ANIM)}")
    return _ANIM[param]


# ----------------------------------------------------------------------------------------------------------------------
# state
# ----------------------------------------------------------------------------------------------------------------------
def _validate_entry(name: str, value):
    if name.startswith("aud_"):
        from dpviz_ui import audit_page as ap

        return ap.validate(name, value)
    return urlstate.validate(name, value)


def _base_state() -> dict:
    from dpviz_ui import audit_page as ap

    out = {k: (list(v) if isinstance(v, list) else v) for k, v in urlstate.DEFAULTS.items()}
    out.update({k: ap.validate(k, v) for k, v in ap.DEFAULTS.items()})
    return out


def step_state(step: Step, overrides: dict | None = None) -> dict:
    """The full view state of ``step``: the dashboard defaults, the step's own settings, then ``overrides`` (a
    student's inputs or a lecturer's locked values), each validated."""
    out = _base_state()
    for k, v in step.state.items():
        out[k] = _validate_entry(k, v)
    for k, v in (overrides or {}).items():
        out[k] = _validate_entry(k, v)
    return out


def params_of(state: dict) -> dict:
    """dpviz keyword parameters of a view state (δ = 1/n² when ``delta_auto``, else 10^log10_delta)."""
    p = {k: state[k] for k in ("n", "d", "eps", "T", "eta", "G", "L", "M", "R", "alpha", "mu", "c", "kappa")}
    p["delta"] = 1.0 / float(state["n"]) ** 2 if state["delta_auto"] else 10.0 ** state["log10_delta"]
    return p


def only_params(params: dict, func) -> dict:
    """The entries of ``params`` that ``func`` (a calibration or bound function of the catalogue) takes."""
    from dpviz.theory import catalog

    names = set(catalog.parameters_of(func))
    return {k: v for k, v in params.items() if k in names}


_only = only_params
_LE = r"\le"


def number_text(x) -> str:
    """A number for plain text, 4 significant digits (the page writes 1e-08 as 10⁻⁸); None as "—"."""
    if x is None:
        return "—"
    if isinstance(x, (int, float)) and not isinstance(x, bool) and math.isfinite(x):
        return f"{x:.4g}"
    return str(x)


_txt = number_text


def tex_number(x) -> str:
    """A number for text and LaTeX: 4 significant digits, powers of ten written out."""
    if x is None:
        return "—"
    if isinstance(x, bool) or not isinstance(x, (int, float)):
        return str(x)
    if isinstance(x, float) and not math.isfinite(x):
        return "∞" if x > 0 else "—"
    if isinstance(x, int) or float(x).is_integer() and abs(x) < 1e7:
        return str(int(x))
    if x != 0 and (abs(x) < 1e-3 or abs(x) >= 1e5):
        k = math.floor(math.log10(abs(x)))
        m = x / 10.0**k
        return f"{m:.4g}\\cdot 10^{{{k}}}" if abs(m - 1) > 5e-4 else f"10^{{{k}}}"
    return f"{x:.4g}"


_fmt = tex_number


# ----------------------------------------------------------------------------------------------------------------------
# the calibrated noise at a view's parameters (the charts, the views and the solvers share it)
# ----------------------------------------------------------------------------------------------------------------------
def calibrated_noise(algorithm_id: str, p: dict) -> float | None:
    """The calibrated σ (or Laplace scale) of ``algorithm_id`` at the parameters ``p``, or None where no noise is
    private (the calibration is infeasible or refuses the settings)."""
    key = (algorithm_id, tuple(sorted((k, v) for k, v in p.items())))
    if key in _NOISE_MEMO:
        return _NOISE_MEMO[key]
    table = _noise_table()
    tkey = _table_key(algorithm_id, p) if table else None
    out = table[tkey] if tkey in table else _calibrated_noise(algorithm_id, p)
    if len(_NOISE_MEMO) >= 8192:
        _NOISE_MEMO.clear()
    _NOISE_MEMO[key] = out
    return out


#: memo of :func:`calibrated_noise` (a lesson's charts, steps and handout ask for the same points again)
_NOISE_MEMO: dict = {}

#: the calibrated noise at the points the lessons ask for at their steps' default states (their charts' curves,
#: feasibility searches), computed ahead by ``python -m dpviz_ui.lessons.noise_table`` with the calibrations of
#: dpviz (a test recomputes every entry and compares exactly): a handout is then written in seconds, not in the
#: ~13 s the without-replacement accountant of PIDP-SGD's curves takes.  Used only with the versions of
#: dp_accounting, numpy and scipy it was computed with.
NOISE_TABLE = __import__("pathlib").Path(__file__).with_name("noise_table.json")
_TABLE: list = []


def _environment() -> dict:
    from importlib import metadata

    def version(name: str) -> str:
        try:
            return metadata.version(name)
        except metadata.PackageNotFoundError:
            return "?"

    return {name: version(name) for name in ("dp-accounting", "numpy", "scipy")}


def _table_key(algorithm_id: str, p: dict) -> str | None:
    """The table's key of a calibration: JSON of the algorithm and its sorted parameters (floats exact), or None
    when a parameter is not a plain number, string or flag."""
    import json

    items = sorted(p.items())
    if not all(type(v) in (int, float, str, bool) or v is None for _k, v in items):
        return None
    return json.dumps([algorithm_id, items])


def _noise_table() -> dict:
    """The precomputed table (read once per process), empty when it is missing or was computed with other versions
    of the numerical libraries."""
    if not _TABLE:
        import json

        table = {}
        try:
            data = json.loads(NOISE_TABLE.read_text(encoding="utf-8"))
            if data.get("environment") == _environment():
                table = {k: (float(v) if v is not None else None) for k, v in data["noise"].items()}
        except (OSError, ValueError, KeyError, AttributeError, TypeError):
            table = {}
        _TABLE.append(table)
    return _TABLE[0]


def _calibrated_noise(algorithm_id: str, p: dict) -> float | None:
    from dpviz.theory import catalog

    alg = catalog.get_algorithm(algorithm_id)
    kw = _only(p, alg.calibrate)
    kw.pop("c", None)
    if "accountant_extra" in catalog.parameters_of(alg.calibrate):
        kw["accountant_extra"] = False
    try:
        c = catalog.calibrate(algorithm_id, **kw)
    except ValueError:
        return None
    val = c.sigma if c.sigma is not None else c.laplace_scale
    return float(val) if c.feasible and val is not None else None


_cal_noise = calibrated_noise


#: memo of :func:`_smallest_feasible_eps` (the Lemma 13 step, its chart and its question ask for the same n)
_FEASIBLE_MEMO: dict = {}


def smallest_feasible_eps(algorithm_id: str, p: dict, lo: float = 1e-3, hi: float = 1e3) -> float | None:
    """The smallest ε at which the calibration is feasible (bisection in log ε; feasibility grows with ε).
    Memoised by the other settings (at most 4096 of them)."""
    key = (algorithm_id, tuple(sorted((k, v) for k, v in p.items() if k != "eps")), lo, hi)
    if key in _FEASIBLE_MEMO:
        return _FEASIBLE_MEMO[key]

    def ok(e):
        return calibrated_noise(algorithm_id, {**p, "eps": e}) is not None

    if not ok(hi):
        out = None
    elif ok(lo):
        out = lo
    else:
        for _ in range(40):
            mid = math.sqrt(lo * hi)
            lo, hi = (lo, mid) if ok(mid) else (mid, hi)
        out = hi
    if len(_FEASIBLE_MEMO) >= 4096:
        _FEASIBLE_MEMO.clear()
    _FEASIBLE_MEMO[key] = out
    return out


_smallest_feasible_eps = smallest_feasible_eps


def on_screen(step: Step, out: dict, answered: bool = False) -> dict:
    """What of ``out`` (a step's :func:`~dpviz_ui.lessons.views.live` output) is on screen.

    A step never shows what its ``hide`` names.  Before its question is answered (or revealed by the lecturer), a
    question step shows only what ``question.shown`` names: the answer, and every number it follows from trivially,
    appear with it.  Returns a copy of ``out`` with ``numbers``, ``tex``, ``status`` and ``notes`` cut to what is
    shown, ``chart`` (whether the chart is drawn) and ``held`` (whether anything waits for the answer)."""
    hide = set(step.hide)
    q = step.question
    allowed = None if (q is None or answered) else set(q.shown)

    def ok(name: str) -> bool:
        return name not in hide and (allowed is None or name in allowed)

    view = dict(out)
    view["numbers"] = [(label, value) for label, value in out.get("numbers") or [] if ok(label)]
    view["tex"] = out.get("tex") if ok("formula") else ""
    view["status"] = out.get("status") if ok("status") else None
    view["notes"] = list(out.get("notes") or []) if ok("notes") else []
    view["chart"] = ok("chart")
    if not view["chart"]:
        view["figure"] = None
    view["held"] = allowed is not None and (
        len(view["numbers"]) < len([1 for label, _v in out.get("numbers") or [] if label not in hide])
        or any(not ok(part) and part not in hide for part in PARTS))
    return view
