r"""Lessons: guided, live, self-checking walks through the five papers (issue 23).  Pure: no streamlit.

A lesson is plain data: a list of :class:`Step`, each with a short text in the papers' notation, the **view** it
sets (parameters named and checked as in the dashboard's URL schema, :data:`dpviz.foundation.urlstate.SCHEMA`, or the Audit
page's ``aud_*`` schema), the kind of live computation it shows (:data:`VIEWS`), the inputs a student may change,
an optional animated parameter and an optional **predict, then reveal** :class:`Question`.

Nothing in a lesson is a typed number: every number on screen, in a question's answer and in a handout comes from
:func:`live` (the catalogue, the accountants, the simulation engine) or a solver of :data:`SOLVERS` at the step's
state.  :func:`validate_lesson` checks a lesson the way the presets are checked; :func:`lesson_html` and
:func:`lesson_notebook` write the handouts (an offline HTML page; a Jupyter notebook, exercise or solution version,
that recomputes every number with ``dpviz``).
"""

from __future__ import annotations

import html
import inspect
import math
from dataclasses import dataclass, field
from typing import Any, Callable

from dpviz.foundation import urlstate

__all__ = ["Question", "Step", "Lesson", "LESSONS", "VIEWS", "HEAVY", "SOLVERS", "get_lesson", "validate_lesson",
           "validate_all", "step_state", "params_of", "live", "answer", "check_prediction", "page_link",
           "lesson_html", "lesson_notebook", "STATE_SCHEMA", "state_from_query", "encode_state", "LESSON_INPUTS",
           "animation_values"]


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


def _only(params: dict, func) -> dict:
    from dpviz.theory import catalog

    names = set(catalog.parameters_of(func))
    return {k: v for k, v in params.items() if k in names}


_LE = r"\le"


def _txt(x) -> str:
    """A number for plain text (the page writes 1e-08 as 10⁻⁸)."""
    if isinstance(x, (int, float)) and not isinstance(x, bool) and math.isfinite(x):
        return f"{x:.4g}"
    return str(x)


def _fmt(x) -> str:
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


# ----------------------------------------------------------------------------------------------------------------------
# live views: the numbers (``values``), what the screen lists (``numbers``), a formula and a figure
# ----------------------------------------------------------------------------------------------------------------------
def _logspace(lo: float, hi: float, k: int, integer: bool = False) -> list:
    out = [10 ** (math.log10(lo) + i * (math.log10(hi) - math.log10(lo)) / (k - 1)) for i in range(k)]
    return sorted({int(round(x)) for x in out}) if integer else out


_SWEEP_GRID = {"n": (100, 1_000_000, True), "eps": (0.1, 10.0, False), "T": (10, 100_000, True)}


def _cal_noise(algorithm_id: str, p: dict) -> float | None:
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


def _xparam(kind: str, state: dict) -> str:
    """The parameter on the x-axis of a curve kind's chart."""
    if kind == "gaussian":
        return "eps"
    if kind == "certifiable":
        return "aud_trials"
    if kind == "bound":
        return state["sweep"] if state["sweep"] in ("n", "eps") else "n"
    return state["sweep"] if state["sweep"] in _SWEEP_GRID else "eps"


def _marker(kind: str, state: dict) -> tuple:
    """(x, y) of the step's own point on its chart."""
    from dpviz.labs import audit
    from dpviz.theory import catalog, gaussian

    p = params_of(state)
    if kind == "gaussian":
        return state["eps"], gaussian.sigma_for(state["eps"], p["delta"], p["G"], rtol=1e-9)
    if kind == "certifiable":
        return state["aud_trials"], audit.max_certifiable(state["aud_trials"] // 2, 1e-5)
    name = _xparam(kind, state)
    if kind == "bound":
        thm = catalog.get_theorem(state["theorems"][0])
        try:
            return p[name], catalog.bound(thm.id, **_only(p, thm.bound)).total
        except ValueError:
            return p[name], None
    return p[name], _cal_noise(state["algorithm"], p)


def _curve_gaussian(state: dict) -> dict:
    """σ against ε: the classical and the exact (analytic) calibration of the Gaussian mechanism."""
    from dpviz.theory import gaussian

    p = params_of(state)
    xs = _logspace(0.1, 10.0, 33)
    classical = [gaussian.classical_sigma(e, p["delta"], p["G"]) for e in xs]
    exact = [gaussian.sigma_for(e, p["delta"], p["G"], rtol=1e-9) for e in xs]
    return {"x": xs, "series": {"classical σ = Δ√(2 ln(1.25/δ))/ε": classical, "exact σ (Balle & Wang)": exact},
            "xname": "ε", "yname": "σ", "log": (True, True),
            "marker": _marker("gaussian", state)}


def _curve_calibrate(state: dict) -> dict:
    name = state["sweep"] if state["sweep"] in _SWEEP_GRID else "eps"
    lo, hi, integer = _SWEEP_GRID[name]
    xs = _logspace(lo, hi, 25, integer)
    p = params_of(state)
    ys = []
    for x in xs:
        q = {**p, name: x}
        if name == "n" and state["delta_auto"]:
            q["delta"] = 1.0 / float(x) ** 2
        ys.append(_cal_noise(state["algorithm"], q))
    return {"x": xs, "series": {"σ (None where not private)": ys}, "xname": name if name != "eps" else "ε",
            "yname": "σ", "log": (True, True), "marker": _marker("calibrate", state)}


def _curve_bound(state: dict) -> dict:
    from dpviz.theory import catalog

    thm = catalog.get_theorem(state["theorems"][0])
    name = state["sweep"] if state["sweep"] in ("n", "eps") else "n"
    lo, hi, integer = _SWEEP_GRID[name]
    xs = _logspace(lo, hi, 25, integer)
    p = params_of(state)
    series: dict[str, list] = {}
    for i, x in enumerate(xs):
        q = {**p, name: x}
        if name == "n" and state["delta_auto"]:
            q["delta"] = 1.0 / float(x) ** 2
        try:
            b = catalog.bound(thm.id, **_only(q, thm.bound))
        except ValueError:
            for s in series.values():
                s.append(None)
            continue
        for t in b.terms:
            series.setdefault(t.name, [None] * i).append(t.value)
        series.setdefault("total", [None] * i).append(b.total)
    return {"x": xs, "series": series, "xname": name if name != "eps" else "ε", "yname": "bound",
            "log": (True, True), "marker": _marker("bound", state)}


def _curve_certifiable(state: dict) -> dict:
    from dpviz.labs import audit

    xs = _logspace(100, 200_000, 30, True)
    delta = 1e-5
    ys = [audit.max_certifiable(m // 2, delta) for m in xs]
    return {"x": xs, "series": {"most ε the trials can certify": ys}, "xname": "trials (half on D, half on D′)",
            "yname": "ε", "log": (True, False),
            "marker": _marker("certifiable", state)}


_CURVES: dict[str, Callable[[dict], dict]] = {"gaussian": _curve_gaussian, "calibrate": _curve_calibrate,
                                              "bound": _curve_bound, "certifiable": _curve_certifiable}


def _log_ticks(values) -> list[float] | None:
    """Tick values 1-2-5 × 10^k over the range of ``values`` (powers of ten only when that is too many), so that a
    log axis is labelled with whole numbers rather than Plotly's bare leading digits."""
    vals = _finite(values)
    if not vals:
        return None
    lo, hi = math.floor(math.log10(min(vals))), math.ceil(math.log10(max(vals)))
    ticks = [m * 10.0**k for k in range(lo, hi + 1) for m in (1, 2, 5) if min(vals) <= m * 10.0**k <= max(vals)]
    if len(ticks) > 10:
        ticks = [10.0**k for k in range(lo, hi + 1) if min(vals) <= 10.0**k <= max(vals)]
    return ticks if len(ticks) >= 2 else None


def _curve_figure(curve: dict, title: str) -> dict:
    import plotly.graph_objects as go

    fig = go.Figure()
    for name, ys in curve["series"].items():
        fig.add_trace(go.Scatter(x=curve["x"], y=ys, mode="lines", name=name, connectgaps=False))
    mx, my = curve["marker"]
    fig.add_trace(go.Scatter(x=[mx], y=[my], mode="markers", marker={"size": 13, "color": "black"},
                             name="this step"))
    fig.update_layout(title=title, xaxis_title=curve["xname"], yaxis_title=curve["yname"], height=460,
                      xaxis_type="log" if curve["log"][0] else None, yaxis_type="log" if curve["log"][1] else None,
                      legend={"orientation": "h", "y": 1.0, "yanchor": "bottom", "x": 0}, margin={"t": 90})
    for axis, on, vals in (("xaxis", curve["log"][0], curve["x"]),
                           ("yaxis", curve["log"][1], [y for s in curve["series"].values() for y in s]
                            + [curve["marker"][1]])):
        ticks = _log_ticks(vals) if on else None
        if ticks:
            fig.update_layout({axis: {"tickvals": ticks, "ticktext": [f"{t:g}" for t in ticks]}})
    return fig.to_plotly_json()


def _finite(vals) -> list[float]:
    return [float(v) for v in vals if v is not None and isinstance(v, (int, float)) and math.isfinite(v) and v > 0]


def animated_figure(step: Step, state: dict, title: str) -> dict:
    """The step's chart with one Plotly frame per value of its animated parameter (play button and slider; axes
    fixed over the frames).  Each frame is the chart recomputed at that value by the same function as the still
    chart, so the frames are the dashboard's numbers."""
    import plotly.graph_objects as go

    param = step.animate
    curves = []
    same_axis = _xparam(step.view, state) == param
    base = _CURVES[step.view](state) if same_axis else None
    for val in animation_values(param):
        try:
            st = {**state, param: _validate_entry(param, val)}
            # along the chart's own x-axis only the point moves: the curve is computed once
            curves.append((val, {**base, "marker": _marker(step.view, st)} if same_axis
                           else _CURVES[step.view](st)))
        except ValueError:
            continue
    if not curves:
        raise ValueError(f"no frame of the animation over {param} can be computed at these settings")
    # the still chart is the step's own state (its marker where the step is); the slider starts at the nearest frame
    here = _CURVES[step.view](state)
    cur = float(state[param])
    active = min(range(len(curves)), key=lambda i: abs(math.log(max(float(curves[i][0]), 1e-9))
                                                      - math.log(max(cur, 1e-9))) if param != "alpha"
                 else abs(float(curves[i][0]) - cur))
    first = go.Figure(_curve_figure({**here, "x": [x for _v, c in curves for x in c["x"]],
                                     "series": {**here["series"], "_all": [
                                         y for _v, c in curves for s in c["series"].values() for y in s]}},
                                    title))
    first.data = first.data[:-2] + first.data[-1:]  # the "_all" trace only fixed the ticks over every frame
    ys = [y for _v, c in curves for s in c["series"].values() for y in _finite(s)] + \
         [y for _v, c in curves for y in _finite([c["marker"][1]])]
    xs = [x for _v, c in curves for x in _finite(c["x"])]
    frames = [go.Frame(name=_label(v), data=go.Figure(_curve_figure(c, title)).data) for v, c in curves]
    first.frames = frames
    logx, logy = curves[0][1]["log"]
    if ys:
        first.update_yaxes(range=[math.log10(min(ys)) - 0.1, math.log10(max(ys)) + 0.1] if logy
                           else [0, max(ys) * 1.1], autorange=False)
    if xs:
        first.update_xaxes(range=[math.log10(min(xs)), math.log10(max(xs))] if logx else [min(xs), max(xs)],
                           autorange=False)
    name = "ε" if param == "eps" else ("α" if param == "alpha" else param)
    first.update_layout(
        height=560, margin={"t": 90, "b": 150},
        updatemenus=[{"type": "buttons", "showactive": False, "direction": "left", "x": 0, "y": -0.2,
                      "xanchor": "left", "yanchor": "top", "pad": {"t": 45},
                      "buttons": [{"label": "▶ Play", "method": "animate",
                                   "args": [None, {"frame": {"duration": FRAME_MS, "redraw": False},
                                                   "fromcurrent": True, "transition": {"duration": 0}}]},
                                  {"label": "❚❚ Pause", "method": "animate",
                                   "args": [[None], {"frame": {"duration": 0, "redraw": False}, "mode": "immediate"}]}]}],
        sliders=[{"active": active, "x": 0.16, "len": 0.84, "y": -0.2, "yanchor": "top", "pad": {"t": 45},
                  "currentvalue": {"prefix": f"{name} = ", "xanchor": "right"}, "font": {"size": 9},
                  "steps": [{"label": _label(v), "method": "animate",
                             "args": [[_label(v)], {"frame": {"duration": 0, "redraw": False}, "mode": "immediate"}]}
                            for v, _c in curves]}])
    return first.to_plotly_json()


def _label(v) -> str:
    return f"{v:g}"


def _live_gaussian(state: dict, progress=None) -> dict:
    from dpviz.theory import gaussian

    p = params_of(state)
    eps, delta, sens = p["eps"], p["delta"], p["G"]
    classical = gaussian.classical_sigma(eps, delta, sens)
    exact = gaussian.sigma_for(eps, delta, sens, rtol=1e-9)
    d_classical = gaussian.delta_of(classical, sens, eps)
    values = {"sigma_classical": classical, "sigma_exact": exact, "ratio": exact / classical,
              "delta_of_classical": d_classical, "eps": eps, "delta": delta, "sensitivity": sens}
    numbers = [("classical σ", classical), ("exact σ", exact), ("exact / classical", exact / classical),
               ("true δ of the classical σ", d_classical)]
    status = (("success", f"The classical σ is (ε, δ)-DP here: its true δ is {_txt(d_classical)} ≤ δ.")
              if d_classical <= delta else
              ("error", f"The classical σ is NOT (ε, δ)-DP here: its true δ is {_txt(d_classical)} > δ "
                        f"= {_txt(delta)} (its proof needs ε < 1)."))
    tex = (r"\sigma_{\rm classical} = \frac{\Delta\sqrt{2\ln(1.25/\delta)}}{\epsilon} = "
           rf"\frac{{{_fmt(sens)}\sqrt{{2\ln(1.25/{_fmt(delta)})}}}}{{{_fmt(eps)}}} = {_fmt(classical)}")
    return {"values": values, "numbers": numbers, "tex": tex, "status": status, "notes": [],
            "curve": "gaussian", "title": "σ against ε at this δ and Δ"}


def _live_calibrate(state: dict, progress=None) -> dict:
    from dpviz.theory import catalog

    alg = catalog.get_algorithm(state["algorithm"])
    p = params_of(state)
    kw = _only(p, alg.calibrate)
    kw.pop("c", None)
    cal = catalog.calibrate(alg.id, **kw)
    ex = cal.extras or {}
    values = {"sigma": cal.sigma, "laplace_scale": cal.laplace_scale, "beta": cal.beta, "T": cal.T or p.get("T"),
              "eta": cal.eta if cal.eta is not None else p.get("eta"), "feasible": cal.feasible}
    numbers = [("Laplace scale", cal.laplace_scale) if cal.sigma is None and cal.laplace_scale is not None
               else ("σ", cal.sigma)]
    if cal.beta is not None:
        numbers.append(("β", cal.beta))
    for key, label in (("sigma_paper", "the paper's σ"), ("accountant_sigma", "tight accountant's σ"),
                       ("sigma_c", "σ_c released"), ("sigma_c_paper", "σ_c of Theorem 5 as printed")):
        if ex.get(key) is not None:
            values[key] = float(ex[key])
            numbers.append((label, float(ex[key])))
    if ex.get("paper_sigma_private") is not None:
        values["paper_sigma_private"] = bool(ex["paper_sigma_private"])
    if ex.get("sigma_c_paper_private") is not None:
        values["sigma_c_paper_private"] = bool(ex["sigma_c_paper_private"])
    if cal.sigma_schedule:
        values["sigma_schedule"] = [float(s) for s in cal.sigma_schedule]
    numbers += [("T", values["T"]), ("η", values["eta"])]
    status = (("success", "Private: (ε, δ)-DP by dpviz's tightest check. " + str(ex.get("privacy_check", "")))
              if cal.feasible else ("error", f"Not private here: {cal.reason}" + (f" Fix: {cal.fix}" if cal.fix
                                                                                     else "")))
    return {"values": values, "numbers": numbers, "tex": cal.formula_numbers or cal.formula, "status": status,
            "notes": list(cal.notes)[:2], "curve": "calibrate",
            "title": f"{alg.paper.short}, {alg.name}: σ against {state['sweep'] if state['sweep'] != 'eps' else 'ε'}"}


def _live_beta(state: dict, progress=None) -> dict:
    import plotly.graph_objects as go

    from dpviz.theory.papers import wang_lownoise as wl

    out = _live_calibrate(state)
    p = params_of(state)
    betas = [i / 100 for i in range(2, 99)]
    ys = [wl.sigma_of_beta(n=p["n"], eps=p["eps"], delta=p["delta"], T=p["T"], G=p["G"], beta=b) for b in betas]
    half = wl.sigma_of_beta(n=p["n"], eps=p["eps"], delta=p["delta"], T=p["T"], G=p["G"], beta=0.5)
    out["values"]["sigma_at_half"] = half
    out["numbers"].insert(1, ("σ at β = ½", half))
    fig = go.Figure(go.Scatter(x=betas, y=ys, mode="lines", name="σ(β), Algorithm 1 line 5"))
    b = out["values"].get("beta")
    if b is not None and out["values"].get("sigma") is not None:
        fig.add_trace(go.Scatter(x=[b], y=[out["values"]["sigma"]], mode="markers", marker={"size": 13},
                                 name="chosen β"))
    fig.update_layout(title="σ(β): the noise of every β (the feasible ones meet Theorem 2's conditions)",
                      xaxis_title="β", yaxis_title="σ", yaxis_type="log", height=420)
    out["figure"] = fig.to_plotly_json()
    out["curve"] = None
    return out


def _live_bound(state: dict, progress=None) -> dict:
    from dpviz.theory import catalog

    thm = catalog.get_theorem(state["theorems"][0])
    p = params_of(state)
    b = catalog.bound(thm.id, **_only(p, thm.bound))
    values = {f"term_{t.name}": t.value for t in b.terms}
    values.update({"total": b.total, "T": b.T, "eta": b.eta, "dominant": b.dominant().name})
    values.update({f"n_exp_{t.name}": t.n_exp for t in b.terms})
    values.update({f"eps_exp_{t.name}": t.eps_exp for t in b.terms})
    numbers = [(f"{t.name} term", t.value) for t in b.terms] + [("total", b.total)]
    if b.T is not None:
        numbers.append(("T", b.T))
    if b.eta is not None:
        numbers.append(("η", b.eta))
    tex = r" + ".join(rf"\underbrace{{{t.latex}}}_{{\rm {t.name}}}" for t in b.terms if t.latex)
    return {"values": values, "numbers": numbers, "tex": tex, "status": None, "notes": list(b.notes)[:2],
            "curve": "bound", "title": f"{thm.paper.short}, {thm.number}: the terms against "
                                       f"{state['sweep'] if state['sweep'] != 'eps' else 'ε'}"}


def _accounting_kw(state: dict) -> tuple:
    from dpviz.theory import catalog

    alg = catalog.get_algorithm(state["algorithm"])
    return alg, {k: v for k, v in _only(params_of(state), alg.calibrate).items() if k != "c"}


def _live_accounting(state: dict, progress=None) -> dict:
    """The paper's σ beside the σ of the first accountant matched to the paper's mechanism (the main numbers);
    the chart of every accountant (:func:`_figure_accounting`, PLD included: seconds) comes after them."""
    from dpviz.labs import privacy_lab

    alg, kw = _accounting_kw(state)
    mech = privacy_lab.mechanism(alg.id, **kw)
    first = next((a.name for a in privacy_lab.accountants(mech) if a.matches_paper), None)
    res = privacy_lab.evaluate(alg.id, names=(first,) if first else None, **kw)
    values: dict[str, Any] = {"paper_sigma": res["paper_sigma"]}
    numbers = [("the paper's σ", res["paper_sigma"])]
    row = next((r for r in res["accountants"] if r["matches_paper"]), None)
    if row is not None:
        values["matched_sigma"] = row["sigma_for_eps"]
        values["matched_eps_of_paper_sigma"] = row["eps_of_paper_sigma"]
        numbers.append(("σ of a tight accountant of the same mechanism", row["sigma_for_eps"]))
        numbers.append(("ε the paper's σ really buys", row["eps_of_paper_sigma"]))
    if values.get("matched_sigma") and res["paper_sigma"]:
        values["ratio"] = res["paper_sigma"] / values["matched_sigma"]
        numbers.append(("paper σ / tight σ", values["ratio"]))
    return {"values": values, "numbers": numbers, "tex": res["closed_form"]["formula"] or "", "status": None,
            "notes": list(res["notes"])[:2], "figure": None, "curve": None}


def _figure_accounting(state: dict) -> dict:
    """The σ every accountant of the mechanism needs for the step's (ε, δ) (bars; the paper's σ first)."""
    import plotly.graph_objects as go

    from dpviz.labs import privacy_lab

    alg, kw = _accounting_kw(state)
    res = privacy_lab.evaluate(alg.id, **kw)
    names, sig = ["the paper's σ"], [res["paper_sigma"]]
    for row in res["accountants"]:
        names.append(f"{row['name']} ({row['sampling']}, {row['neighbouring']})")
        sig.append(row["sigma_for_eps"])
    fig = go.Figure(go.Bar(x=sig, y=names, orientation="h"))
    fig.update_layout(title=f"σ each accountant needs for (ε, δ) = ({_fmt(res['eps'])}, {_fmt(res['delta'])})",
                      xaxis_title="σ", height=360, margin={"l": 320})
    return fig.to_plotly_json()


def _threshold_printed(state: dict, n: int) -> float:
    from dpviz.theory import catalog

    return catalog.bound("wang-nonsmooth-lemma13", n=n, d=state["d"], eps=1.0, delta=1.0 / n**2).total


def _threshold_found(state: dict, n: int) -> float | None:
    return _smallest_feasible_eps("dpsgd-rdp", {**params_of(state), "n": n, "T": n, "delta": 1.0 / n**2})


def _live_threshold(state: dict, progress=None) -> dict:
    """Lemma 13 of Wang, Lei, Ying & Zhang (printed ε threshold, T = n, δ = 1/n²) against the smallest ε for which
    dpviz's β search finds a β meeting Theorem 11's conditions, at the step's n (the chart over n,
    :func:`_figure_threshold`, comes after these numbers)."""
    n = state["n"]
    values = {"printed": _threshold_printed(state, n), "found": _threshold_found(state, n)}
    numbers = [("Lemma 13's ε threshold", values["printed"]), ("smallest feasible ε (β search)", values["found"])]
    tex = (r"\epsilon \ge \frac{7(n^{1/3}-1)+4n\log n+7}{2n(n^{1/3}-1)}"
           rf" = {_fmt(values['printed'])}\quad (n = {n})")
    return {"values": values, "numbers": numbers, "tex": tex, "status": None, "notes": [], "figure": None,
            "curve": None}


def _figure_threshold(state: dict) -> dict:
    """Lemma 13's printed threshold and the smallest feasible ε of the β search, over n (T = n, δ = 1/n²)."""
    import plotly.graph_objects as go

    ns = _logspace(100, 100_000, 10, True)
    fig = go.Figure()
    fig.add_trace(go.Scatter(x=ns, y=[_threshold_printed(state, m) for m in ns], name="Lemma 13's printed threshold",
                             mode="lines"))
    fig.add_trace(go.Scatter(x=ns, y=[_threshold_found(state, m) for m in ns], name="smallest feasible ε (β search)",
                             mode="lines+markers"))
    fig.update_layout(title="Where DP-SGD's calibration becomes feasible (T = n, δ = 1/n²)", xaxis_type="log",
                      yaxis_type="log", xaxis_title="n", yaxis_title="ε", height=420)
    return fig.to_plotly_json()


def _live_simulate(state: dict, progress=None) -> dict:
    """A small ε sweep of DP-SGD (Wang, Lei, Ying & Zhou, §5 setting: least squares, κ = 0.1, the paper's own noise
    rule) and the log-log slope of the mean excess risk against ε, beside the theory's ε exponent."""
    import plotly.graph_objects as go

    from dpviz.theory import catalog
    from dpviz.engine import data, simulate as S
    from dpviz.foundation import stats

    grid = [0.5, 1.0, 2.0, 4.0, 8.0]
    ds = data.load_dataset("wang-least-squares", n=state["n"], n_test=500, seed=0, kappa=0.1)
    res = S.simulate("dpsgd-rdp", ds, "least-squares", grid={"eps": grid}, reps=state["reps"], seed=state["seed"],
                     params={"n": state["n"], "T": state["T"], "eta": state["eta"], "R": 1.0, "G": 1.5,
                             "noise_rule": "experiment", "run_infeasible": True}, progress=progress)
    s = res.summary("excess_risk")
    xs, ys = [float(x) for x in s["grid"]], [float(y) for y in s["mean"]]
    fit = stats.loglog_slope(xs, ys)
    b = catalog.bound("wang-lownoise-thm3a", n=state["n"], d=10, eps=1.0, delta=1.0 / state["n"] ** 2)
    theory = b.dominant().eps_exp if b.dominant().eps_exp != 0 else min(t.eps_exp for t in b.terms)
    privacy_exp = min(t.eps_exp for t in b.terms)
    values = {"slope": fit["slope"], "ci_low": fit["ci_low"], "ci_high": fit["ci_high"],
              "theory_eps_exp": privacy_exp, "means": ys, "grid": xs}
    del theory
    fig = go.Figure()
    fig.add_trace(go.Scatter(x=xs, y=ys, mode="markers+lines", name="mean excess risk (simulated)",
                             error_y={"type": "data", "array": [float(x) for x in 1.96 * s["se"]]}))
    scale = ys[0] / xs[0] ** privacy_exp
    fig.add_trace(go.Scatter(x=xs, y=[scale * x**privacy_exp for x in xs], mode="lines", line={"dash": "dash"},
                             name=f"privacy term's rate ε^{privacy_exp:g}, scaled to the first point"))
    fig.update_layout(title=f"DP-SGD, n = {state['n']}, T = {state['T']}, {state['reps']} repetitions: fitted slope "
                            f"{fit['slope']:.2f}", xaxis_type="log", yaxis_type="log", xaxis_title="ε",
                      yaxis_title="excess risk", height=420)
    numbers = [("fitted slope in ε", fit["slope"]), ("95 % CI low", fit["ci_low"]), ("95 % CI high", fit["ci_high"]),
               ("privacy term's ε exponent", privacy_exp)]
    return {"values": values, "numbers": numbers, "tex": r"\log \overline{\rm risk} = a + b\log\epsilon", "status":
            None, "notes": list(res.notes)[:1], "figure": fig.to_plotly_json(), "curve": None}


def _aud_state(state: dict) -> dict:
    from dpviz_ui import audit_page as ap

    return {k: state[k] for k in ap.SCHEMA}


def _live_stability(state: dict, progress=None) -> dict:
    from dpviz_ui import audit_page as ap

    st = {**_aud_state(state), "aud_mode": "stability", "aud_over": "t"}
    res = ap.compute(st, progress=progress)
    emp = res.empirical
    values = {"bound": res.bound, "max": emp["max"], "q95": emp.get("q95"), "ratio": res.ratio,
              "exceed_fraction": res.exceed_fraction}
    numbers = [("bound", res.bound), ("measured max", emp["max"]), ("measured 95 % quantile", emp.get("q95")),
               ("bound / measured max", res.ratio)]
    fig = ap.distance_figure(res.distances[res.quantity], res.bound, res.quantity)
    return {"values": values, "numbers": numbers, "tex": "", "status": None, "notes": [res.theorem],
            "figure": fig.to_plotly_json(), "curve": None}


def _live_audit(state: dict, progress=None) -> dict:
    from dpviz_ui import audit_page as ap

    st = {**_aud_state(state), "aud_mode": "audit", "aud_over": "t"}
    res = ap.compute(st, progress=progress)
    claimed = res.eps_claimed if res.eps_claimed is not None else float(state["aud_eps"])
    values = {"eps_lower": res.eps_lower, "eps_claimed": claimed, "max_certifiable": res.max_certifiable,
              "eps_accountant": res.eps_accountant, "sigma": res.sigma, "trials": res.trials}
    numbers = [("ε lower bound (95 %)", res.eps_lower), ("ε claimed", claimed),
               ("most these trials can certify", res.max_certifiable), ("accountant's ε of this noise",
                                                                        res.eps_accountant), ("σ used", res.sigma)]
    on_d, on_d2 = res.samples.get(res.statistic, (None, None)) if res.samples else (None, None)
    fig = ap.statistic_figure(on_d, on_d2, res.threshold, res.statistic).to_plotly_json() if on_d is not None \
        else None
    return {"values": values, "numbers": numbers, "tex": "", "status": None, "notes": list(res.notes)[:1],
            "figure": fig, "curve": None}


def _live_certifiable(state: dict, progress=None) -> dict:
    from dpviz.labs import audit

    m = state["aud_trials"] // 2
    val = audit.max_certifiable(m, 1e-5)
    values = {"max_certifiable": val, "per_side": m}
    tex = (r"\epsilon_{\max} = \log\frac{1-\delta-\bar p}{\bar p},\quad \bar p = 1-(0.025)^{1/m}"
           rf" = {_fmt(1 - 0.025 ** (1 / m))}\ (m = {m})")
    return {"values": values, "numbers": [("evaluation trials per side", m), ("most ε they can certify", val)],
            "tex": tex, "status": None, "notes": [], "curve": "certifiable",
            "title": "The most an audit can certify, against its number of trials (δ = 10⁻⁵)"}


def _live_experiment(state: dict, progress=None) -> dict:
    """Xue, Yang, Huai & Wang's §5 AUC study (Figures 1-2) at its quick grid (n = 32, 64, 128; the substitute data
    set), ``state["reps"]`` repetitions: each claimed finding with whether the numbers show it, and why not."""
    from dpviz.studies import experiments, xue as studies_xue

    e = experiments.get("xue-pairwise-auc")
    r = studies_xue.run_auc(e, reps=state["reps"], seed=state["seed"], quick=True, progress=progress)
    shown = [bool(f["shown"]) for f in r["findings"]]
    values = {"claims": len(shown), "shown": sum(shown), "shown_each": shown}
    numbers = [("claims of §5 checked", len(shown)), ("shown by this run", sum(shown))]
    notes = [str(r.get("data_note") or "")] + [
        f"{'SHOWN' if f['shown'] else 'NOT SHOWN'}: {f['claim']}. {f['numbers']}" for f in r["findings"]]
    fig = r.get("figure")
    if fig is not None and hasattr(fig, "to_plotly_json"):
        fig = fig.to_plotly_json()
    return {"values": values, "numbers": numbers, "tex": "", "status": None, "notes": notes, "figure": fig,
            "curve": None}


_LIVE: dict[str, Callable[..., dict]] = {
    "gaussian": _live_gaussian, "calibrate": _live_calibrate, "beta": _live_beta, "bound": _live_bound,
    "accounting": _live_accounting, "threshold": _live_threshold, "simulate": _live_simulate,
    "stability": _live_stability, "audit": _live_audit, "certifiable": _live_certifiable,
    "experiment": _live_experiment,
}
#: views whose chart is computed apart from their numbers (slower than them: the page draws it after the numbers)
LATE_FIGURES: dict[str, Callable[[dict], dict]] = {"accounting": _figure_accounting, "threshold": _figure_threshold}


def chart(kind: str, state: dict, *, animate: str | None = None) -> dict | None:
    """Only the chart of a curve view (``live(..., figure=False)["curve"]`` names the kind), or None: the page draws
    the numbers first and the chart after them."""
    if kind in LATE_FIGURES:
        return LATE_FIGURES[kind](state)
    out = _LIVE[kind](state)
    curve = out.get("curve")
    if curve is None:
        return out.get("figure")
    if animate:
        return animated_figure(Step("", "", curve, animate=animate), state, out.get("title", ""))
    return _curve_figure(_CURVES[curve](state), out.get("title", ""))


def live(kind: str, state: dict, *, progress=None, figure: bool = True, animate: str | None = None) -> dict:
    """The live view ``kind`` at ``state``: ``{"values", "numbers", "tex", "status", "notes", "figure"}``.

    A module-level function of plain data (the page runs the heavy kinds in the worker pool).  ``figure`` False
    skips the chart of a curve view and of a view in :data:`LATE_FIGURES` (:func:`chart` computes them, so that the
    page draws the numbers first); ``animate`` names a parameter whose values become the chart's animation frames.  Raises
    ValueError (student-readable) for settings the computation refuses.
    """
    if kind not in _LIVE:
        raise ValueError(f"unknown lesson view {kind!r}")
    out = _LIVE[kind](state, progress=progress)
    curve = out.get("curve")
    title = out.setdefault("title", "")
    if figure and curve is not None:
        if animate:
            out["figure"] = animated_figure(Step("", "", curve, animate=animate), state, title)
        else:
            out["figure"] = _curve_figure(_CURVES[curve](state), title)
    elif figure and kind in LATE_FIGURES:
        out["figure"] = LATE_FIGURES[kind](state)
    out.setdefault("figure", None)  # figure=False skips only those charts; other views draw theirs anyway
    return out


# ----------------------------------------------------------------------------------------------------------------------
# solvers: each computes a question's answer at the step's state with dpviz and explains it (formula + numbers)
# ----------------------------------------------------------------------------------------------------------------------
#: memo of :func:`_smallest_feasible_eps` (the Lemma 13 step, its chart and its question ask for the same n)
_FEASIBLE_MEMO: dict = {}


def _smallest_feasible_eps(algorithm_id: str, p: dict, lo: float = 1e-3, hi: float = 1e3) -> float | None:
    """The smallest ε at which the calibration is feasible (bisection in log ε; feasibility grows with ε).
    Memoised by the other settings (at most 4096 of them)."""
    key = (algorithm_id, tuple(sorted((k, v) for k, v in p.items() if k != "eps")), lo, hi)
    if key in _FEASIBLE_MEMO:
        return _FEASIBLE_MEMO[key]

    def ok(e):
        return _cal_noise(algorithm_id, {**p, "eps": e}) is not None

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


def precompute(lesson_ids=None) -> float:
    """Compute the main numbers of every quick step (not :data:`HEAVY`) at its own settings once, so that the first
    class to open a lesson finds them in the library's caches (the accountants' noise inversions, the feasibility
    searches) instead of waiting for them; ``serve.py`` runs it in the background once the server answers.
    Returns the seconds it took.  A step whose settings are refused is skipped (the page reports it)."""
    import time

    t0 = time.perf_counter()
    for lesson in LESSONS:
        if lesson_ids is not None and lesson.id not in lesson_ids:
            continue
        for step in lesson.steps:
            if step.view in HEAVY:
                continue
            try:
                live(step.view, step_state(step), figure=False)
            except ValueError:
                pass
    return time.perf_counter() - t0


def solve_classical_eps_halves(state: dict, values: dict | None = None) -> dict:
    from dpviz.theory import gaussian

    p = params_of(state)
    a = gaussian.classical_sigma(p["eps"], p["delta"], p["G"])
    b = gaussian.classical_sigma(p["eps"] / 2, p["delta"], p["G"])
    return {"answer": b / a, "text": "The classical σ is proportional to 1/ε, so halving ε doubles it.",
            "tex": rf"\frac{{\sigma(\epsilon/2)}}{{\sigma(\epsilon)}} = \frac{{{_fmt(b)}}}{{{_fmt(a)}}} = {_fmt(b / a)}"}


def solve_classical_delta(state: dict, values: dict | None = None) -> dict:
    from dpviz.theory import gaussian

    p = params_of(state)
    d2 = p["delta"] ** 2
    a = gaussian.classical_sigma(p["eps"], p["delta"], p["G"])
    b = gaussian.classical_sigma(p["eps"], d2, p["G"])
    return {"answer": b / a, "text": "δ enters only through √(2 ln(1.25/δ)): squaring δ (many more zeros) raises σ "
                                     "by much less than a factor 2.",
            "tex": rf"\sqrt{{\frac{{\ln(1.25/{_fmt(d2)})}}{{\ln(1.25/{_fmt(p['delta'])})}}}} = {_fmt(b / a)}"}


def solve_exact_ratio(state: dict, values: dict | None = None) -> dict:
    from dpviz.theory import gaussian

    p = params_of(state)
    a = gaussian.classical_sigma(p["eps"], p["delta"], p["G"])
    b = gaussian.sigma_for(p["eps"], p["delta"], p["G"], rtol=1e-9)
    return {"answer": b / a, "text": "The exact σ solves Balle & Wang's Theorem 8 with equality: "
                                     "Φ(Δ/(2σ) − εσ/Δ) − e^ε Φ(−Δ/(2σ) − εσ/Δ) = δ.",
            "tex": rf"\frac{{\sigma_{{\rm exact}}}}{{\sigma_{{\rm classical}}}} = \frac{{{_fmt(b)}}}{{{_fmt(a)}}} = "
                   rf"{_fmt(b / a)}"}


def solve_classical_private(state: dict, values: dict | None = None) -> dict:
    from dpviz.theory import gaussian

    p = params_of(state)
    a = gaussian.classical_sigma(p["eps"], p["delta"], p["G"])
    d = gaussian.delta_of(a, p["G"], p["eps"])
    yes = d <= p["delta"]
    return {"answer": "yes" if yes else "no",
            "text": f"The exact δ of the classical σ at ε = {p['eps']:g} is {_txt(d)}, "
                    f"{'at most' if yes else 'above'} the target δ = {_txt(p['delta'])}.",
            "tex": rf"\delta(\sigma_{{\rm classical}}) = {_fmt(d)}\ {_LE if yes else '>'}\ {_fmt(p['delta'])}"}


def _ratio_of(state: dict, name: str, factor: float, what: str) -> tuple[float, float, float]:
    p = params_of(state)
    q = {**p, name: p[name] * factor if name != "n" else int(round(p[name] * factor))}
    if name == "n" and state["delta_auto"]:
        q["delta"] = 1.0 / float(q["n"]) ** 2
    a, b = _cal_noise(state["algorithm"], p), _cal_noise(state["algorithm"], q)
    if a is None or b is None:
        raise ValueError(f"the calibration is not feasible at both values of {what}")
    return a, b, b / a


def solve_sigma_n_doubles(state: dict, values: dict | None = None) -> dict:
    a, b, r = _ratio_of(state, "n", 2, "n")
    return {"answer": r, "text": "The noise per step falls like 1/n (each example is sampled less often), up to the "
                                 "change of the chosen β.",
            "tex": rf"\frac{{\sigma(2n)}}{{\sigma(n)}} = \frac{{{_fmt(b)}}}{{{_fmt(a)}}} = {_fmt(r)}"}


def solve_sigma_T_quadruples(state: dict, values: dict | None = None) -> dict:
    from dpviz.theory.papers import wang_lownoise as wl

    a, b, r = _ratio_of(state, "T", 4, "T")
    p = params_of(state)
    half = [wl.sigma_of_beta(n=p["n"], eps=p["eps"], delta=p["delta"], T=t, G=p["G"], beta=0.5)
            for t in (p["T"], 4 * p["T"])]
    return {"answer": r, "text": f"At a fixed β, line 5 has σ² ∝ T, so σ doubles (at β = ½: {half[0]:.4g} → "
                                 f"{half[1]:.4g}). But dpviz searches β again at 4T: the calibrated σ changes by "
                                 f"the factor {r:.3g} because the feasible β moves.",
            "tex": rf"\frac{{\sigma(4T)}}{{\sigma(T)}} = \frac{{{_fmt(b)}}}{{{_fmt(a)}}} = {_fmt(r)}"}


def solve_sigma_half_beta(state: dict, values: dict | None = None) -> dict:
    from dpviz.theory.papers import wang_lownoise as wl

    p = params_of(state)
    s = wl.sigma_of_beta(n=p["n"], eps=p["eps"], delta=p["delta"], T=p["T"], G=p["G"], beta=0.5)
    return {"answer": s, "text": "Algorithm 1, line 5 of Wang, Lei, Ying & Zhou at β = ½.",
            "tex": rf"\sigma^2 = \frac{{14G^2T}}{{\beta n^2\epsilon}}\Big(\frac{{\log(1/\delta)}}{{(1-\beta)\epsilon}}"
                   rf"+1\Big) = \frac{{14\cdot {_fmt(p['G'])}^2\cdot {p['T']}}}{{0.5\cdot {p['n']}^2\cdot "
                   rf"{_fmt(p['eps'])}}}\Big(\frac{{\log(1/{_fmt(p['delta'])})}}{{0.5\cdot {_fmt(p['eps'])}}}+1\Big),"
                   rf"\quad \sigma = {_fmt(s)}"}


def solve_smallest_eps(state: dict, values: dict | None = None) -> dict:
    p = params_of(state)
    e = _smallest_feasible_eps(state["algorithm"], p)
    if e is None:
        raise ValueError("no ε up to 1000 makes this calibration feasible")
    return {"answer": e, "text": "Found by bisection on ε of dpviz's feasibility check (the β search of the "
                                 "paper's conditions) at the other settings of this step.",
            "tex": rf"\epsilon_{{\min}} \approx {_fmt(e)}"}


def solve_smallest_eps_T_n(state: dict, values: dict | None = None) -> dict:
    n = state["n"]
    e = _smallest_feasible_eps("dpsgd-rdp", {**params_of(state), "T": n, "delta": 1.0 / n**2})
    if e is None:
        raise ValueError("no ε up to 1000 makes this calibration feasible")
    return {"answer": e, "text": "Bisection on ε of dpviz's β search for DP-SGD with T = n and δ = 1/n² (the "
                                 "setting of Lemma 13).", "tex": rf"\epsilon_{{\min}} \approx {_fmt(e)}\quad (n = {n})"}


def solve_paper_over_tight(state: dict, values: dict | None = None) -> dict:
    from dpviz.theory import catalog
    from dpviz.labs import privacy_lab

    alg = catalog.get_algorithm(state["algorithm"])
    p = {k: v for k, v in _only(params_of(state), alg.calibrate).items() if k != "c"}
    res = privacy_lab.evaluate(alg.id, names=("rdp",), **p)
    row = next(r for r in res["accountants"] if r["matches_paper"])
    r = res["paper_sigma"] / row["sigma_for_eps"]
    return {"answer": r, "text": "The closed form is a sufficient condition; a numerical accountant of the same "
                                 "mechanism (same sampling and neighbouring) finds the smallest σ.",
            "tex": rf"\frac{{\sigma_{{\rm paper}}}}{{\sigma_{{\rm tight}}}} = \frac{{{_fmt(res['paper_sigma'])}}}"
                   rf"{{{_fmt(row['sigma_for_eps'])}}} = {_fmt(r)}"}


def solve_dominant(state: dict, values: dict | None = None) -> dict:
    from dpviz.theory import catalog

    thm = catalog.get_theorem(state["theorems"][0])
    b = catalog.bound(thm.id, **_only(params_of(state), thm.bound))
    d = b.dominant()
    return {"answer": d.name, "text": "The term with the largest value at this step's n, d, ε, δ dominates.",
            "tex": r",\ ".join(rf"{{\rm {t.name}}} = {_fmt(t.value)}" for t in b.terms)}


def solve_total_n_times_10(state: dict, values: dict | None = None) -> dict:
    from dpviz.theory import catalog

    thm = catalog.get_theorem(state["theorems"][0])
    p = params_of(state)
    q = {**p, "n": p["n"] * 10}
    if state["delta_auto"]:
        q["delta"] = 1.0 / float(q["n"]) ** 2
    a = catalog.bound(thm.id, **_only(p, thm.bound)).total
    b = catalog.bound(thm.id, **_only(q, thm.bound)).total
    return {"answer": b / a, "text": "Each term scales with its own power of n; the total follows the slowest one.",
            "tex": rf"\frac{{{{\rm bound}}(10n)}}{{{{\rm bound}}(n)}} = \frac{{{_fmt(b)}}}{{{_fmt(a)}}} = {_fmt(b / a)}"}


def solve_privacy_n_exponent(state: dict, values: dict | None = None) -> dict:
    from dpviz.theory import catalog

    thm = catalog.get_theorem(state["theorems"][0])
    b = catalog.bound(thm.id, **_only(params_of(state), thm.bound))
    t = next(t for t in b.terms if t.name == "privacy")
    return {"answer": t.n_exp, "text": "Read off the rate of the privacy term at this α.",
            "tex": rf"n^{{-2/(3+\alpha)}} = n^{{{t.n_exp:.4g}}}\quad(\alpha = {state['alpha']:g})"}


def solve_T_alpha(state: dict, values: dict | None = None) -> dict:
    from dpviz.theory import catalog

    thm = catalog.get_theorem(state["theorems"][0])
    p = params_of(state)
    a = catalog.bound(thm.id, **_only({**p, "alpha": 1.0}, thm.bound)).T
    b = catalog.bound(thm.id, **_only({**p, "alpha": 0.0}, thm.bound)).T
    return {"answer": b / a, "text": "The theorem's schedule asks for more iterations when the gradient is less "
                                     "smooth.", "tex": rf"\frac{{T(\alpha=0)}}{{T(\alpha=1)}} = \frac{{{_fmt(b)}}}"
                                                      rf"{{{_fmt(a)}}} = {_fmt(b / a)}"}


def solve_slope_vs_theory(state: dict, values: dict | None = None) -> dict:
    if not values or values.get("slope") is None:
        raise ValueError("run the simulation of this step first")
    s, th = values["slope"], values["theory_eps_exp"]
    ans = "flatter" if abs(s) < abs(th) else "steeper"
    return {"answer": ans, "text": f"The fitted slope {s:.3g} against the privacy term's ε exponent {th:g}: the "
                                   "simulated risk also holds an error that does not shrink with ε (optimisation and "
                                   "statistical error), so it falls more slowly.",
            "tex": rf"|b| = {abs(s):.3g}\ {'<' if ans == 'flatter' else '>'}\ {abs(th):g}"}


def solve_iteration_T4(state: dict, values: dict | None = None) -> dict:
    from dpviz.theory import catalog

    thm = catalog.get_theorem(state["theorems"][0])
    p = params_of(state)
    a = catalog.bound(thm.id, **_only(p, thm.bound))
    b = catalog.bound(thm.id, **_only({**p, "T": p["T"] * 4}, thm.bound))
    ta = next(t.value for t in a.terms if t.name == "iteration")
    tb = next(t.value for t in b.terms if t.name == "iteration")
    return {"answer": tb / ta, "text": "The iteration term of Yang, Lei, Lyu & Ying's Theorem 1 is η√T.",
            "tex": rf"\frac{{\eta\sqrt{{4T}}}}{{\eta\sqrt T}} = \frac{{{_fmt(tb)}}}{{{_fmt(ta)}}} = {_fmt(tb / ta)}"}


def solve_below_bound(state: dict, values: dict | None = None) -> dict:
    if not values or values.get("max") is None:
        raise ValueError("run the measurement of this step first")
    below = values["max"] <= values["bound"]
    return {"answer": "below" if below else "above",
            "text": f"Measured max {values['max']:.4g} against the bound {values['bound']:.4g}.",
            "tex": rf"\max\|A(S)-A(S')\| = {_fmt(values['max'])}\ {_LE if below else '>'}\ {_fmt(values['bound'])}"}


def solve_paper_sigma(state: dict, values: dict | None = None) -> dict:
    from dpviz.theory import catalog

    alg = catalog.get_algorithm(state["algorithm"])
    p = {k: v for k, v in _only(params_of(state), alg.calibrate).items() if k != "c"}
    cal = catalog.calibrate(alg.id, **p)
    s = float(cal.extras["sigma_paper"])
    return {"answer": s, "text": "The σ the paper prints, at this step's settings.",
            "tex": cal.formula_numbers or rf"\sigma_{{\rm paper}} = {_fmt(s)}"}


def solve_private_sigma_n_doubles(state: dict, values: dict | None = None) -> dict:
    a, b, r = _ratio_of(state, "n", 2, "n")
    return {"answer": r, "text": "The exact Gaussian σ is proportional to the sensitivity 8G/(μn), which halves "
                                 "when n doubles.",
            "tex": rf"\frac{{\sigma(2n)}}{{\sigma(n)}} = \frac{{{_fmt(b)}}}{{{_fmt(a)}}} = {_fmt(r)}"}


def solve_sigma_c_private(state: dict, values: dict | None = None) -> dict:
    from dpviz.theory import catalog

    p = {k: v for k, v in _only(params_of(state), catalog.get_algorithm("pidp-sgd").calibrate).items() if k != "c"}
    ex = catalog.calibrate("pidp-sgd", **p).extras
    yes = bool(ex["sigma_c_paper_private"])
    return {"answer": "yes" if yes else "no",
            "text": f"Theorem 5's σ_c = {_txt(ex['sigma_c_paper'])}; the exact Gaussian composition of the R releases "
                    f"gives a true δ of {_txt(ex['sigma_c_paper_exact_delta'])} at (ε₂, δ₂) = ({_txt(ex['eps2'])}, "
                    f"{_txt(ex['delta2'])}).",
            "tex": rf"\delta(\sigma_c) = {_txt(ex['sigma_c_paper_exact_delta'])}\ {_LE if yes else '>'}\ "
                   rf"\delta_2 = {_txt(ex['delta2'])}"}


def solve_max_certifiable(state: dict, values: dict | None = None) -> dict:
    from dpviz.labs import audit

    m = state["aud_trials"] // 2
    e = audit.max_certifiable(m, 1e-5)
    p = 1 - 0.025 ** (1 / m)
    return {"answer": e, "text": "With no error on either side, the Clopper–Pearson 95 % upper bound on each error "
                                 "rate is 1 − 0.025^{1/m}; the most ε it allows is log((1 − δ − p̄)/p̄).",
            "tex": rf"\bar p = 1-0.025^{{1/{m}}} = {_fmt(p)},\ \epsilon_{{\max}} = \log\frac{{1-10^{{-5}}-\bar p}}"
                   rf"{{\bar p}} = {_fmt(e)}"}


def solve_certifiable_times_10(state: dict, values: dict | None = None) -> dict:
    from dpviz.labs import audit

    m = state["aud_trials"] // 2
    a, b = audit.max_certifiable(m, 1e-5), audit.max_certifiable(10 * m, 1e-5)
    return {"answer": b - a, "text": "p̄ ≈ 3.7/m, so ε_max ≈ log(m/3.7): ten times the trials add about log 10 ≈ 2.3.",
            "tex": rf"\epsilon_{{\max}}(10m) - \epsilon_{{\max}}(m) = {_fmt(b)} - {_fmt(a)} = {_fmt(b - a)}"}


def solve_audit_exceeds(state: dict, values: dict | None = None) -> dict:
    if not values or values.get("eps_lower") is None:
        raise ValueError("run the audit of this step first")
    yes = values["eps_lower"] > values["eps_claimed"]
    return {"answer": "yes" if yes else "no",
            "text": f"The audit certifies ε ≥ {values['eps_lower']:.3g} against the claim ε = "
                    f"{values['eps_claimed']:.3g}" + (": the claim is refuted." if yes else
                                                      ": no contradiction (which does not prove the claim)."),
            "tex": rf"\hat\epsilon_{{\rm lower}} = {_fmt(values['eps_lower'])}\ {'>' if yes else _LE}\ "
                   rf"\epsilon = {_fmt(values['eps_claimed'])}"}


def solve_claim_b_shown(state: dict, values: dict | None = None) -> dict:
    if not values or "shown_each" not in values:
        raise ValueError("run the study of this step first")
    yes = bool(values["shown_each"][1])
    return {"answer": "yes" if yes else "no",
            "text": "The study compares DPEGD's and DPGDC2's test AUC at every n of the grid; the finding counts as "
                    "shown only if DPEGD is ahead beyond the noise of the repetitions. The notes above give the "
                    "numbers and the likely reason.",
            "tex": rf"\text{{claim (b) shown: }}{'yes' if yes else 'no'}"}


SOLVERS: dict[str, Callable[..., dict]] = {name[len("solve_"):]: f for name, f in list(globals().items())
                                           if name.startswith("solve_") and callable(f)}


def answer(step: Step, state: dict, values: dict | None = None) -> dict:
    """The answer of the step's question at ``state`` (``values``: the step's live values, for simulation steps):
    ``{"answer", "text", "tex"}``."""
    if step.question is None:
        raise ValueError("this step has no question")
    try:
        return SOLVERS[step.question.solver](state, values)
    except (TypeError, ZeroDivisionError, StopIteration, KeyError) as exc:  # a number the question needs is missing
        raise ValueError("this question has no answer at these settings (a quantity it compares is not defined "
                         "here, e.g. the calibration is not private); try the lesson's own values") from exc


def check_prediction(question: Question, prediction, correct) -> bool:
    """Whether a student's prediction counts as right: within ``rtol`` of a number, equal to a choice."""
    if question.kind == "choice":
        return str(prediction) == str(correct)
    try:
        p = float(prediction)
    except (TypeError, ValueError):
        return False
    c = float(correct)
    return math.isfinite(p) and abs(p - c) <= question.rtol * max(abs(c), 1e-12)


# ----------------------------------------------------------------------------------------------------------------------
# the lessons
# ----------------------------------------------------------------------------------------------------------------------
_D5 = {"delta_auto": False, "log10_delta": -5.0}
_G1 = {"algorithm": "dpsgd-rdp", "n": 1000, "T": 1000, "eps": 1.0, "delta_auto": False, "log10_delta": -6.0,
       "G": 1.0}

LESSONS: tuple[Lesson, ...] = (
    Lesson(
        "gaussian", "What (ε, δ) buys: the Gaussian mechanism", ("wang-lownoise", "xue-pairwise"),
        ("state what (ε, δ)-differential privacy promises and what the sensitivity Δ is",
         "compute the classical Gaussian σ and say how it scales with ε and δ",
         "explain why dpviz checks every σ with the exact (analytic) calibration"),
        (
            Step("A query and its sensitivity",
                 "A mechanism $M$ is **(ε, δ)-DP** if for all neighbouring data sets $S, S'$ (one example replaced) "
                 "and every event $E$: $\\Pr[M(S)\\in E] \\le e^{\\epsilon}\\Pr[M(S')\\in E] + \\delta$. "
                 "The Gaussian mechanism releases $M(S) = f(S) + \\mathcal N(0, \\sigma^2 I)$; how much noise it "
                 "needs depends on the **sensitivity** $\\Delta = \\sup_{S\\sim S'}\\|f(S)-f(S')\\|_2$ (here the "
                 "input *G*, read as Δ). Smaller ε means more privacy and more noise.",
                 "gaussian", {**_D5, "eps": 1.0}, inputs=("eps", "log10_delta", "G")),
            Step("The classical calibration",
                 "Dwork & Roth (Theorem A.1): $\\sigma = \\Delta\\sqrt{2\\ln(1.25/\\delta)}/\\epsilon$ is "
                 "(ε, δ)-DP **for ε < 1**. The formula is on screen with the numbers plugged in.",
                 "gaussian", {**_D5, "eps": 0.8}, inputs=("eps",),
                 question=Question("ε is halved (from this step's ε to ε/2). By what factor does the classical σ "
                                   "change?", "classical_eps_halves", rtol=0.05)),
            Step("δ enters only through a logarithm",
                 "δ is the probability with which the guarantee may fail; it must be much smaller than 1/n. "
                 "Because σ depends on δ through $\\sqrt{\\ln(1.25/\\delta)}$, even many more zeros in δ cost "
                 "little noise.", "gaussian", {**_D5, "eps": 0.8}, inputs=("log10_delta",),
                 question=Question("δ is squared (10⁻⁵ → 10⁻¹⁰). By what factor does the classical σ grow?",
                                   "classical_delta", rtol=0.05)),
            Step("The exact calibration",
                 "Balle & Wang (2018, Theorem 8): the Gaussian mechanism is (ε, δ)-DP **if and only if** "
                 "$\\Phi(\\tfrac{\\Delta}{2\\sigma}-\\tfrac{\\epsilon\\sigma}{\\Delta}) - e^{\\epsilon}"
                 "\\Phi(-\\tfrac{\\Delta}{2\\sigma}-\\tfrac{\\epsilon\\sigma}{\\Delta}) \\le \\delta$. "
                 "Its smallest σ is never larger than needed, at every ε > 0.",
                 "gaussian", {**_D5, "eps": 1.0}, inputs=("eps", "log10_delta"),
                 question=Question("At this ε and δ, what fraction of the classical σ does the exact calibration "
                                   "need (σ_exact / σ_classical)?", "exact_ratio", rtol=0.1)),
            Step("Play ε from 0.1 to 10",
                 "Press **Play**: both curves fall like 1/ε, but the exact σ falls faster at large ε. At small ε "
                 "the two nearly agree; the gap is what a loose proof costs.",
                 "gaussian", {**_D5}, animate="eps"),
            Step("Is the classical σ private at ε = 5?",
                 "The classical proof needs ε < 1. Outside that range the formula may be too small. The exact "
                 "check answers the question for any σ: compute the true δ of the classical σ.",
                 "gaussian", {**_D5, "eps": 5.0}, inputs=("eps",),
                 question=Question("Is the classical σ (ε, δ)-DP at ε = 5, δ = 10⁻⁵?", "classical_private",
                                   kind="choice", options=("yes", "no"))),
            Step("Why 'private' needs the tightest check",
                 "Xue, Yang, Huai & Wang's DPGDSC (Algorithm 1) releases its output with the classical σ "
                 "$8G\\sqrt{2\\ln(1.25/\\delta)}/(\\mu n\\epsilon)$ (sensitivity 8G/(μn), Lemma 1). dpviz "
                 "releases the smallest σ that passes the exact check and shows the paper's σ beside it — and "
                 "says when the printed σ is not private at all.",
                 "calibrate", {"algorithm": "dpgd-sc", "n": 1000, "mu": 0.5, "delta_auto": False,
                               "log10_delta": -6.0, "sweep": "eps", "eta": 0.1, "T": 100}, inputs=("eps", "n"),
                 question=Question("What σ does the paper print for DPGDSC here?", "paper_sigma", rtol=0.05)),
        )),
    Lesson(
        "dpsgd", "Calibrating DP-SGD (Wang, Lei, Ying & Zhou)", ("wang-lownoise",),
        ("read Algorithm 1's noise formula and name what σ grows and shrinks with",
         "explain the β search of Theorem 2 and when no β is feasible",
         "compare the closed-form σ with a tight accountant of the same mechanism"),
        (
            Step("Algorithm 1 and its noise",
                 "DP-SGD samples one example per step, clips nothing (the loss is G-Lipschitz) and adds "
                 "$\\mathcal N(0,\\sigma^2 I)$ to the gradient: $w_{t+1} = \\Pi_W(w_t - \\eta(\\nabla f(w_t; z_{i_t})"
                 " + b_t))$. Line 5: $\\sigma^2 = \\frac{14G^2T}{\\beta n^2\\epsilon}\\big(\\frac{\\log(1/\\delta)}"
                 "{(1-\\beta)\\epsilon}+1\\big)$ for a β ∈ (0, 1).",
                 "calibrate", {**_G1, "sweep": "eps"}, inputs=("eps", "n", "T")),
            Step("The β search of Theorem 2",
                 "Theorem 2 proves privacy only for β meeting two conditions (σ² ≥ 2.68G² and a bound on the "
                 "Rényi order λ). The chart shows σ(β); dpviz searches the feasible β and takes the one with the "
                 "least noise (Remark 4 suggests the one closest to ½).",
                 "beta", {**_G1, "sweep": "eps"}, inputs=("eps", "n", "T"),
                 question=Question("What σ does line 5 give at β = ½ for this step's n, T, ε, δ (G = 1)?",
                                   "sigma_half_beta", rtol=0.05)),
            Step("σ against n",
                 "Each example is used about T/n times, so the noise per step falls with n. Play n over "
                 "decades (T fixed).",
                 "calibrate", {**_G1, "sweep": "n"}, inputs=("n",), animate="n",
                 question=Question("n doubles (T, ε, δ fixed). By what factor does σ change?", "sigma_n_doubles",
                                   rtol=0.1)),
            Step("σ against T",
                 "More iterations mean more releases to protect: σ² is linear in T.",
                 "calibrate", {**_G1, "sweep": "T"}, inputs=("T",), animate="T",
                 question=Question("T is multiplied by 4. By what factor does σ change?", "sigma_T_quadruples",
                                   rtol=0.1)),
            Step("When no β works",
                 "At small n and small ε no β meets both conditions: the calibration is infeasible and dpviz "
                 "says which condition fails and the smallest ε that fixes it.",
                 "calibrate", {**_G1, "n": 100, "T": 100, "eps": 0.3, "sweep": "eps"}, inputs=("eps", "n"),
                 question=Question("From which ε on is the calibration feasible at n = T = 100?", "smallest_eps",
                                   rtol=0.1)),
            Step("How far from a tight accountant?",
                 "The Accounting page computes the σ a numerical Rényi accountant of the **same** mechanism "
                 "(sampling without replacement, replace-one neighbours) needs for the same (ε, δ).",
                 "accounting", {**_G1}, inputs=("eps", "n", "T"),
                 question=Question("How many times larger is the paper's σ than the tight accountant's?",
                                   "paper_over_tight", rtol=0.1)),
        )),
    Lesson(
        "rates", "The privacy–utility trade-off and rates", ("wang-lownoise",),
        ("name the statistical and privacy terms of an excess-risk bound and their exponents of n and ε",
         "say which term dominates at given n and ε",
         "compare a simulation's fitted slope with the theory's and explain the difference"),
        (
            Step("The named terms of a bound",
                 "Wang, Lei, Ying & Zhou, Theorem 3 (a): with the theorem's T and η, DP-SGD's excess risk is "
                 "$O\\big(\\frac{1}{\\sqrt n} + \\frac{\\sqrt{d\\log(1/\\delta)}}{n\\epsilon}\\big)$: a "
                 "**statistical** term (also without privacy) and a **privacy** term.",
                 "bound", {"theorems": ["wang-lownoise-thm3a"], "n": 1000, "sweep": "n", "delta_auto": False,
                           "log10_delta": -8.0}, inputs=("n", "eps", "d")),
            Step("Which term dominates?",
                 "Evaluate both terms at n = 10⁴, d = 10, ε = 1, δ = 10⁻⁸.",
                 "bound", {"theorems": ["wang-lownoise-thm3a"], "n": 10_000, "sweep": "n", "delta_auto": False,
                           "log10_delta": -8.0}, inputs=("n", "eps"),
                 question=Question("Which term of the bound dominates at n = 10⁴?", "dominant", kind="choice",
                                   options=("statistical", "privacy"))),
            Step("n over decades",
                 "Press **Play**: on log-log axes each term is a line of slope equal to its n exponent "
                 "(−½ and −1). The total follows the flatter one for large n.",
                 "bound", {"theorems": ["wang-lownoise-thm3a"], "sweep": "n", "delta_auto": False,
                           "log10_delta": -8.0}, animate="n",
                 question=Question("n grows tenfold from 1000. By what factor does the total bound shrink "
                                   "(bound(10n)/bound(n))?", "total_n_times_10", rtol=0.1)),
            Step("ε over decades",
                 "Against ε only the privacy term moves (exponent −1): below some ε privacy is the price.",
                 "bound", {"theorems": ["wang-lownoise-thm3a"], "sweep": "eps", "delta_auto": False,
                           "log10_delta": -8.0}, animate="eps"),
            Step("Low noise: Theorem 3 (b)",
                 "When the best model has zero population risk (the **low-noise** case F(w*) = 0), Theorem 3 (b) "
                 "removes the statistical term: only the privacy term $\\frac{\\sqrt{d\\log(1/\\delta)}}{n\\epsilon}$ "
                 "remains, a faster rate in n.",
                 "bound", {"theorems": ["wang-lownoise-thm3b"], "sweep": "n", "delta_auto": False,
                           "log10_delta": -8.0}, inputs=("n", "eps")),
            Step("A simulation's slope",
                 "Run DP-SGD on the paper's synthetic least squares (§5, κ = 0.1, its own noise rule) over "
                 "ε ∈ {0.5, …, 8} and fit log risk = a + b log ε. The theory's privacy term has b = −1.",
                 "simulate", {"n": 500, "T": 500, "eta": 0.01, "reps": 20, "seed": 0}, inputs=("reps",),
                 question=Question("Will the empirical slope be steeper or flatter than the privacy term's −1?",
                                   "slope_vs_theory", kind="choice", options=("steeper", "flatter"))),
            Step("Why the slope differs",
                 "The simulated risk keeps an optimisation and statistical part that no ε removes; at large ε it "
                 "dominates and the curve flattens. The rate describes the worst case up to constants: compare "
                 "slopes, not values.",
                 "bound", {"theorems": ["wang-lownoise-thm3a"], "n": 500, "sweep": "eps", "delta_auto": True},
                 inputs=("n",)),
        )),
    Lesson(
        "nonsmooth", "Non-smooth losses (Wang, Lei, Ying & Zhang)", ("wang-nonsmooth",),
        ("define α-Hölder smoothness and place the hinge, q-norm and smooth losses on it",
         "read how α changes the iteration count T, the step η and the rate",
         "locate Lemma 13's feasibility region and where it fails"),
        (
            Step("α-Hölder smooth gradients",
                 "A loss has an **α-Hölder** gradient if $\\|\\partial f(w)-\\partial f(w')\\| \\le "
                 "L\\|w-w'\\|^{\\alpha}$: α = 1 is smooth (least squares, logistic), α = 0 only Lipschitz "
                 "(hinge), q-norm losses have α = q − 1. Theorem 9 bounds DP-SGD-Output's excess risk.",
                 "bound", {"theorems": ["wang-nonsmooth-thm9"], "n": 10_000, "alpha": 0.5, "sweep": "n",
                           "delta_auto": False, "log10_delta": -8.0}, inputs=("alpha", "n")),
            Step("α changes the rate",
                 "Play α from 0 to 1: the privacy term's n exponent is −2/(3+α).",
                 "bound", {"theorems": ["wang-nonsmooth-thm9"], "n": 10_000, "alpha": 0.5, "sweep": "n",
                           "delta_auto": False, "log10_delta": -8.0}, animate="alpha",
                 question=Question("What is the n exponent of the privacy term at α = ½?", "privacy_n_exponent",
                                   rtol=0.02)),
            Step("α changes T and η",
                 "The schedule of Theorem 9 sets T and η from n and α; a rough gradient needs many more, "
                 "smaller steps.",
                 "bound", {"theorems": ["wang-nonsmooth-thm9"], "n": 10_000, "alpha": 0.0, "sweep": "n",
                           "delta_auto": False, "log10_delta": -8.0}, inputs=("alpha",),
                 question=Question("By what factor does T grow from α = 1 to α = 0 at n = 10⁴?", "T_alpha",
                                   rtol=0.1)),
            Step("DP-SGD-Output",
                 "Output perturbation adds Gaussian noise once, to the averaged iterate, with the sensitivity "
                 "from the stability of SGD (Theorem 7).",
                 "calibrate", {"algorithm": "dpsgd-output", "n": 1000, "T": 1000, "eta": 0.01, "alpha": 0.5,
                               "sweep": "eps", "delta_auto": False, "log10_delta": -6.0}, inputs=("eps", "alpha")),
            Step("Gradient perturbation and Lemma 13",
                 "Theorem 12 runs DP-SGD (gradient noise); its privacy needs a β meeting Theorem 11's conditions. "
                 "Lemma 13 states a threshold on ε (with T = n, δ = 1/n²) above which such a β exists.",
                 "threshold", {"n": 1000}, inputs=("n",),
                 question=Question("From which ε on does dpviz's β search find a feasible calibration at "
                                   "n = T = 1000, δ = 1/n²?", "smallest_eps_T_n", rtol=0.1)),
            Step("Where Lemma 13 fails",
                 "Compare the printed threshold with the ε the β search needs on the chart: where the curves "
                 "differ, the lemma's region is not the set of feasible settings. Change n to see it move.",
                 "calibrate", {"algorithm": "dpsgd-rdp", "n": 1000, "T": 1000, "sweep": "eps", "delta_auto": True},
                 inputs=("n",)),
        )),
    Lesson(
        "stability", "Stability (Yang, Lei, Lyu & Ying; Wang, Lei, Ying & Zhang)", ("yang-pairwise", "wang-nonsmooth"),
        ("define uniform argument stability and read a stability bound",
         "turn a stability bound into the σ of output perturbation",
         "measure the stability of coupled runs and compare it with the bound"),
        (
            Step("Uniform argument stability",
                 "An algorithm is **Δ-uniformly argument stable** if $\\|A(S)-A(S')\\| \\le \\Delta$ for all "
                 "neighbouring S, S'. Yang, Lei, Lyu & Ying, Theorem 1 bounds it for pairwise SGD by "
                 "$\\eta\\sqrt T + \\eta T\\ln T/n$ (up to constants).",
                 "bound", {"theorems": ["yang-pairwise-thm1"], "n": 100, "T": 100, "eta": 0.1, "sweep": "n"},
                 inputs=("T", "eta", "n"),
                 question=Question("T is multiplied by 4. By what factor does the iteration term change?",
                                   "iteration_T4", rtol=0.05)),
            Step("From stability to privacy",
                 "A stable algorithm becomes private by adding Gaussian noise to its output with sensitivity "
                 "Δ = the stability bound (Theorem 5): the Gaussian mechanism of lesson 1.",
                 "calibrate", {"algorithm": "pairwise-sgd-output", "n": 100, "T": 100, "eta": 0.1, "sweep": "eps",
                               "delta_auto": False, "log10_delta": -4.0}, inputs=("eps", "n")),
            Step("Measure it: coupled runs",
                 "Train on S and S' (one example replaced) with the same indices and noise and record the "
                 "distance of the outputs, over repetitions (the Audit page's stability mode).",
                 "stability", {"aud_alg": "pairwise-sgd", "aud_reps": 200, "aud_n": 100, "aud_T": 100},
                 inputs=("aud_reps",),
                 question=Question("Will the measured maximum distance be below or above the bound?",
                                   "below_bound", kind="choice", options=("below", "above"))),
            Step("An adversarial neighbour",
                 "Replace the example that moves the output most (adversarial neighbour) instead of a random one.",
                 "stability", {"aud_alg": "pairwise-sgd", "aud_reps": 200, "aud_n": 100, "aud_T": 100,
                               "aud_nb": "adversarial"}, inputs=("aud_reps",)),
            Step("Hölder-smooth SGD (Wang, Lei, Ying & Zhang, Theorem 7)",
                 "For an α-Hölder smooth loss Theorem 7 bounds SGD's argument stability; measure it on least "
                 "squares.",
                 "stability", {"aud_alg": "sgd", "aud_reps": 200, "aud_n": 100, "aud_T": 100}, inputs=("aud_reps",),
                 question=Question("Will the measured maximum distance be below or above Theorem 7's bound?",
                                   "below_bound", kind="choice", options=("below", "above"))),
            Step("How loose is the bound?",
                 "DP-SGD-Output is SGD plus noise on the output: coupled runs share that noise, so they measure "
                 "SGD's stability. The ratio bound / measured max says how much noise output perturbation pays for "
                 "the worst case of the proof rather than the measured behaviour — the measured distance is **not** "
                 "a privacy guarantee (it is one data set, not the supremum).",
                 "stability", {"aud_alg": "dpsgd-output", "aud_reps": 200, "aud_n": 100, "aud_T": 100},
                 inputs=("aud_reps",)),
        )),
    Lesson(
        "pairwise", "Pairwise learning (Xue, Yang, Huai & Wang)", ("xue-pairwise",),
        ("describe DPGDSC, DPGDC and DPEGD and their noise",
         "compare the printed σ with the exact one",
         "say what the §5 experiments claim and what dpviz can reproduce"),
        (
            Step("Pairwise losses",
                 "Pairwise learning (AUC maximisation, metric learning) has losses $f(w; z, z')$ on pairs of "
                 "examples: the empirical risk averages over the n(n − 1) pairs, and one example touches n − 1 "
                 "of them.",
                 "calibrate", {"algorithm": "dpgd-sc", "n": 1000, "mu": 0.5, "eta": 0.1, "T": 100, "sweep": "n",
                               "delta_auto": False, "log10_delta": -6.0}, inputs=("n", "eps", "mu"),
                 question=Question("What σ does the paper print for DPGDSC at these settings?", "paper_sigma",
                                   rtol=0.05)),
            Step("DPGDSC against n",
                 "DPGDSC (Algorithm 1, strongly convex) runs full gradient descent and perturbs the output once: "
                 "the sensitivity 8G/(μn) falls like 1/n.",
                 "calibrate", {"algorithm": "dpgd-sc", "n": 1000, "mu": 0.5, "eta": 0.1, "T": 100, "sweep": "n",
                               "delta_auto": False, "log10_delta": -6.0}, inputs=("n",), animate="n",
                 question=Question("n doubles. By what factor does the released σ change?",
                                   "private_sigma_n_doubles", rtol=0.05)),
            Step("DPGDC: noise on every gradient",
                 "DPGDC (Algorithm 2, convex) adds noise to each of the T full pairwise gradients (sensitivity "
                 "4G/n each) and composes the T releases.",
                 "calibrate", {"algorithm": "dpgd-c", "n": 1000, "T": 100, "eta": 0.1, "sweep": "eps",
                               "delta_auto": False, "log10_delta": -6.0}, inputs=("eps",)),
            Step("DPEGD: epochs",
                 "DPEGD (Algorithm 3) perturbs the average of each epoch; the epochs use disjoint blocks of "
                 "data, so their noise levels differ (the per-epoch schedule).",
                 "calibrate", {"algorithm": "dp-epoch-gd", "n": 1000, "eta": 0.1, "sweep": "eps",
                               "delta_auto": False, "log10_delta": -6.0}, inputs=("eps", "n")),
            Step("The accountants' view of DPGDC",
                 "The T Gaussian releases of DPGDC compose exactly like one Gaussian mechanism with sensitivity "
                 "√T·Δ; compare the paper's σ with the tight ones.",
                 "accounting", {"algorithm": "dpgd-c", "n": 1000, "T": 100, "eta": 0.1, "delta_auto": False,
                                "log10_delta": -6.0}, inputs=("eps",)),
            Step("What §5 claims and what can be reproduced",
                 "Xue et al.'s §5 compares the test AUC of DPGDSC, DPGDC2 and DPEGD with their non-private versions "
                 "and claims (a) the private algorithms approach the baseline as n grows and (b) DPEGD beats DPGDC2 "
                 "(Remark 2). Their Diabetes data and several details are not given in full: dpviz runs the same "
                 "algorithms on a stated substitute and says, from the numbers, whether each claim shows — and the "
                 "likely reason when it does not. This step runs the small grid (n = 32, 64, 128); the full study "
                 "is `python -m dpviz reproduce xue-pairwise-auc` (about a minute).",
                 "experiment", {"reps": 3, "seed": 0},
                 question=Question("Will this run show claim (b), DPEGD ahead of DPGDC2?", "claim_b_shown",
                                   kind="choice", options=("yes", "no"))),
        )),
    Lesson(
        "heterogeneity", "Data heterogeneity (Kang, Li, Liu & Wang)", ("kang-pidp",),
        ("explain the influence function of an example and why examples differ",
         "read PIDP-SGD's decision rule and its contribution noise σ_c",
         "explain why the rule rarely escapes the noise at usual settings"),
        (
            Step("DP-SGD under the PL condition",
                 "Kang, Li, Liu & Wang start from DP-SGD for losses satisfying the Polyak–Łojasiewicz condition "
                 "$\\|\\nabla F(w)\\|^2 \\ge 2\\mu(F(w)-F^*)$, with σ from the moments accountant (eq. (2)).",
                 "calibrate", {"algorithm": "dpsgd-pl", "n": 1000, "T": 1000, "mu": 0.1, "sweep": "eps",
                               "delta_auto": False, "log10_delta": -6.0}, inputs=("eps", "n")),
            Step("Influence functions",
                 "The **influence** of example z on the model is $I(z) = -H^{-1}\\nabla \\ell(z; \\hat w)$ "
                 "(H the Hessian): examples far from the others move the model more. PIDP-SGD releases a noisy "
                 "**contribution** $c_t$ of the examples (noise σ_c, Theorem 5) and adds gradient noise only when "
                 "needed.",
                 "calibrate", {"algorithm": "pidp-sgd", "n": 1000, "T": 1000, "mu": 0.1, "sweep": "eps",
                               "delta_auto": False, "log10_delta": -6.0}, inputs=("eps",)),
            Step("Is the printed σ_c private?",
                 "dpviz checks Theorem 5's σ_c by the exact composition of the R Gaussian releases of the "
                 "contribution (sensitivity 2G/(nζ) each).",
                 "calibrate", {"algorithm": "pidp-sgd", "n": 1000, "T": 1000, "mu": 0.1, "sweep": "eps",
                               "delta_auto": False, "log10_delta": -6.0}, inputs=("eps",),
                 question=Question("Is Theorem 5's printed σ_c (ε₂, δ₂)-DP at these settings?", "sigma_c_private",
                                   kind="choice", options=("yes", "no"))),
            Step("The decision rule",
                 "Algorithm 1, lines 9–10: with $A = 2re^{\\epsilon_1}\\delta_1$, a step escapes the gradient "
                 "noise only if every $|[c_t]_i| < A/(e^{\\epsilon_1}-1)$ and "
                 "$\\ln\\big(A/(A-(e^{\\epsilon_1}-1)|[c_t]_i|)\\big) \\le 2\\epsilon_1$. With δ₁ tiny, A is tiny: "
                 "the released contribution, carrying noise σ_c, is almost never that small.",
                 "calibrate", {"algorithm": "pidp-sgd", "n": 1000, "T": 1000, "mu": 0.1, "sweep": "n",
                               "delta_auto": False, "log10_delta": -6.0}, inputs=("n",)),
            Step("The bound of PIDP-SGD",
                 "Theorem 4 bounds PIDP-SGD's excess risk; compare its terms with DP-SGD's (Theorem 1) on the "
                 "Bounds page.",
                 "bound", {"theorems": ["kang-pidp-thm1"], "n": 1000, "mu": 0.1, "sweep": "n",
                           "delta_auto": False, "log10_delta": -6.0}, inputs=("n", "eps")),
            Step("Audit PIDP-SGD",
                 "An audit trains on D and on D' with a canary and tests whether the outputs can be told apart.",
                 "audit", {"aud_alg": "pidp-sgd", "aud_trials": 400, "aud_n": 100, "aud_T": 100,
                           "aud_noise": "calibrated"}, inputs=("aud_trials",)),
        )),
    Lesson(
        "audit", "Auditing a claim", ("wang-lownoise",),
        ("explain what an empirical ε lower bound says beside a claimed ε",
         "compute the most ε a number of trials can certify",
         "catch a broken claim with an audit"),
        (
            Step("A lower bound, not a guarantee",
                 "Train m times on D and m times on D' = D + canary; a test with false-positive rate fpr and "
                 "false-negative rate fnr forces $\\epsilon \\ge \\log\\frac{1-\\delta-\\rm fnr}{\\rm fpr}$ "
                 "(Jagielski, Ullman & Oprea 2020; Nasr et al. 2021), with Clopper–Pearson 95 % bounds on the "
                 "rates.", "certifiable", {"aud_trials": 2000}, inputs=("aud_trials",),
                 question=Question("With 2000 trials (1000 per side) and no error at all, what is the most ε the "
                                   "audit can certify (δ = 10⁻⁵)?", "max_certifiable", rtol=0.05)),
            Step("More trials",
                 "Play the number of trials: the most the audit can ever certify grows only like log m.",
                 "certifiable", {"aud_trials": 2000}, animate="aud_trials",
                 question=Question("Ten times more trials: by how much does the most certifiable ε grow "
                                   "(difference)?", "certifiable_times_10", rtol=0.1)),
            Step("Audit DP-SGD",
                 "Audit DP-SGD at the noise of the paper's experiments (claimed ε = 1).",
                 "audit", {"aud_alg": "dpsgd-rdp", "aud_trials": 2000, "aud_noise": "experiment"},
                 inputs=("aud_trials",),
                 question=Question("Will the audit's lower bound exceed the claimed ε = 1?", "audit_exceeds",
                                   kind="choice", options=("yes", "no"))),
            Step("A broken claim",
                 "Now the noise is far too small for the claim (σ = 0.05, still claiming ε = 1): the audit "
                 "should catch it.",
                 "audit", {"aud_alg": "dpsgd-rdp", "aud_trials": 2000, "aud_noise": "custom", "aud_sigma": 0.05},
                 inputs=("aud_trials",),
                 question=Question("Will the audit's lower bound exceed the claimed ε = 1 now?", "audit_exceeds",
                                   kind="choice", options=("yes", "no"))),
            Step("The accountant's ε beside it",
                 "For the calibrated σ the accountant's ε is what the mechanism provably gives; the audit's "
                 "lower bound sits below it. A gap says the test (or the trials) is weak, not that privacy is "
                 "better than proved.",
                 "audit", {"aud_alg": "dpsgd-rdp", "aud_trials": 2000, "aud_noise": "calibrated", "aud_n": 1000},
                 inputs=("aud_trials",)),
            Step("What an audit cannot say",
                 "A lower bound below the claim does not confirm the claim; and no audit with m trials can "
                 "certify more than the maximum on the left, however broken the mechanism.",
                 "certifiable", {"aud_trials": 20_000}, inputs=("aud_trials",)),
        )),
)


def get_lesson(lesson_id: str) -> Lesson:
    for lesson in LESSONS:
        if lesson.id == lesson_id:
            return lesson
    raise ValueError(f"unknown lesson {lesson_id!r}; choose one of {', '.join(l.id for l in LESSONS)}")


def validate_lesson(lesson: Lesson) -> list[str]:
    """Every problem of a lesson (empty: valid): 6–12 steps, each view known, every state entry valid on the URL
    schema, inputs and the animated parameter allowed, the algorithm / theorem known, the solver known."""
    from dpviz.theory import catalog

    probs = []
    if not 6 <= len(lesson.steps) <= 12:
        probs.append(f"{lesson.id}: {len(lesson.steps)} steps (6 to 12 wanted)")
    for i, s in enumerate(lesson.steps, 1):
        where = f"{lesson.id} step {i}"
        if s.view not in VIEWS:
            probs.append(f"{where}: unknown view {s.view!r}")
        for k, v in s.state.items():
            try:
                _validate_entry(k, v)
            except ValueError as exc:
                probs.append(f"{where}: {exc}")
        for k in s.inputs:
            if k not in LESSON_INPUTS:
                probs.append(f"{where}: input {k!r} is not one a lesson can show")
        if s.animate is not None and (s.animate not in _ANIM or s.view not in _CURVES):
            probs.append(f"{where}: cannot animate {s.animate!r} on a {s.view!r} view")
        if s.view in ("calibrate", "beta", "accounting"):
            try:
                catalog.get_algorithm(s.state.get("algorithm", ""))
            except ValueError as exc:
                probs.append(f"{where}: {exc}")
        if s.view == "bound":
            th = s.state.get("theorems") or []
            if len(th) != 1:
                probs.append(f"{where}: a bound view needs exactly one theorem")
            for t in th:
                try:
                    catalog.get_theorem(t)
                except ValueError as exc:
                    probs.append(f"{where}: {exc}")
        q = s.question
        if q is not None:
            if q.solver not in SOLVERS:
                probs.append(f"{where}: unknown solver {q.solver!r}")
            if q.kind not in ("number", "choice") or (q.kind == "choice" and len(q.options) < 2):
                probs.append(f"{where}: a question is a number or a choice between at least two options")
    return probs


def validate_all() -> list[str]:
    ids = [lesson.id for lesson in LESSONS]
    probs = [f"duplicate lesson id {i!r}" for i in set(ids) if ids.count(i) > 1]
    for lesson in LESSONS:
        probs += validate_lesson(lesson)
    return probs


# ----------------------------------------------------------------------------------------------------------------------
# the page's link state: les_* parameters (validated, never evaluated)
# ----------------------------------------------------------------------------------------------------------------------
STATE_SCHEMA = {"les_id": "", "les_step": 1, "les_present": False, "les_lock": []}


def state_from_query(query: dict) -> tuple[dict, dict, list[str]]:
    """(lesson state, locked parameter values, problems) from a link's query parameters.

    ``les_id`` a lesson id, ``les_step`` 1-based, ``les_present`` presenter mode, ``les_lock`` a comma-separated
    list of inputs whose values (given as ordinary view parameters, e.g. ``eps=0.5``) every step keeps."""
    state = {k: (list(v) if isinstance(v, list) else v) for k, v in STATE_SCHEMA.items()}
    problems: list[str] = []
    lid = query.get("les_id")
    if lid is not None:
        if any(lesson.id == lid for lesson in LESSONS):
            state["les_id"] = lid
        else:
            problems.append(f"ignored unknown lesson {str(lid)[:30]!r}")
    raw = query.get("les_step")
    if raw is not None:
        try:
            k = int(str(raw))
            if k < 1:
                raise ValueError
            state["les_step"] = k
        except ValueError:
            problems.append("ignored les_step: it must be a whole number from 1")
    if str(query.get("les_present", "")).lower() in ("1", "true", "yes"):
        state["les_present"] = True
    locks = {}
    for name in [x for x in str(query.get("les_lock") or "").split(",") if x]:
        if name not in LESSON_INPUTS:
            problems.append(f"ignored lock of {name[:20]!r}: not a lesson input")
            continue
        if query.get(name) is None:
            problems.append(f"ignored lock of {name}: the link does not give its value")
            continue
        try:
            locks[name] = _validate_entry(name, query[name])
        except ValueError as exc:
            problems.append(f"ignored lock: {exc}")
    state["les_lock"] = list(locks)
    if state["les_id"]:
        n = len(get_lesson(state["les_id"]).steps)
        if state["les_step"] > n:
            problems.append(f"the lesson has {n} steps; showing the last")
            state["les_step"] = n
    return state, locks, problems


def encode_state(state: dict, values: dict | None = None) -> dict[str, str]:
    """Query parameters of a lesson view: les_* entries plus the values of changed or locked inputs."""
    out: dict[str, str] = {}
    if state.get("les_id"):
        out["les_id"] = state["les_id"]
        out["les_step"] = str(int(state.get("les_step", 1)))
    if state.get("les_present"):
        out["les_present"] = "1"
    if state.get("les_lock"):
        out["les_lock"] = ",".join(state["les_lock"])
    for k, v in (values or {}).items():
        v = _validate_entry(k, v)
        out[k] = repr(float(v)) if isinstance(v, float) else str(v)
    return out


def page_link(step: Step, state: dict) -> str | None:
    """Relative URL of the dashboard page that shows the step's computation with its settings, or None."""
    from urllib.parse import urlencode

    page = VIEWS.get(step.view)
    if page is None:
        return None
    if page == "audit":
        from dpviz_ui import audit_page as ap

        mode = "audit" if step.view == "audit" else "stability"
        return "audit?" + urlencode(ap.encode({**_aud_state(state), "aud_mode": mode}))
    view = {k: state[k] for k in urlstate.SCHEMA if k in state and k != "page"}
    if page == "calibrate" and step.view == "threshold":
        view.update({"algorithm": "dpsgd-rdp", "T": state["n"], "show_map": True})
    if page == "simulate":
        view.update({"sim_algs": ["dpsgd-rdp"], "sim_sweep": "eps", "eps_grid": ["0.5", "1", "2", "4", "8"],
                     "kappas": ["0.1"], "G": 1.5, "sim_G_auto": False, "R": 1.0})
    return page + "?" + urlencode(urlstate.encode(view))


# ----------------------------------------------------------------------------------------------------------------------
# handouts
# ----------------------------------------------------------------------------------------------------------------------
def _md_html(text: str) -> str:
    """Lesson text (authored here, never user input) as HTML: escaped, **bold**, $math$ as MathML."""
    from dpviz.foundation import mathml

    return mathml.text_html(text)


def _num_html(x) -> str:
    if isinstance(x, float) and math.isfinite(x):
        return f"{x:.4g}"
    return html.escape(str(x))


def lesson_html(lesson_id: str, *, figures: bool = True) -> str:
    """One offline HTML file of a lesson: text, formulas (MathML, which the browser renders with no script; the
    LaTeX source kept with each), numbers, answers and charts (plotly.js embedded once), every number computed now
    by :func:`live` and the solvers at each step's default state."""
    import plotly.graph_objects as go
    import plotly.io as pio

    from dpviz.foundation.mathml import math_html

    lesson = get_lesson(lesson_id)
    parts = [f"<h1>{html.escape(lesson.title)}</h1>", "<p><b>After this lesson you can:</b></p><ul>"]
    parts += [f"<li>{html.escape(o)}</li>" for o in lesson.objectives] + ["</ul>"]
    first_fig = True
    for i, step in enumerate(lesson.steps, 1):
        state = step_state(step)
        res = live(step.view, state, figure=figures, animate=step.animate)
        parts.append(f"<h2>Step {i}. {html.escape(step.title)}</h2><p>{_md_html(step.text)}</p>")
        parts.append("<table>" + "".join(f"<tr><td>{html.escape(str(k))}</td><td>{_num_html(v)}</td></tr>"
                                         for k, v in res["numbers"]) + "</table>")
        if res["status"]:
            parts.append(f"<p class='{res['status'][0]}'>{html.escape(res['status'][1])}</p>")
        if res["tex"]:
            parts.append(f"<div class='formula'>{math_html(res['tex'], display=True)}</div>")
        if res["figure"] is not None:
            parts.append(pio.to_html(go.Figure(res["figure"]), include_plotlyjs=first_fig, full_html=False))
            first_fig = False
        if step.question:
            rev = answer(step, state, res["values"])
            parts.append(f"<div class='q'><p><b>Predict:</b> {_md_html(step.question.prompt)}</p>"
                         f"<details><summary>Reveal</summary><p><b>Answer: {_num_html(rev['answer'])}</b>. "
                         f"{html.escape(rev['text'])}</p><div class='formula'>{math_html(rev['tex'], display=True)}</div>"
                         "</details></div>")
    from dpviz import __version__

    style = ("body{font-family:sans-serif;max-width:60em;margin:auto;padding:1em;line-height:1.45}"
             "td{padding:2px 12px;border-bottom:1px solid #ddd}.error{color:#a00}.success{color:#070}"
             ".formula{overflow-x:auto;padding:4px 0}math[display=block]{margin:.3em 0}"
             # fonts with an OpenType MATH table, where installed (stretchy brackets, radicals); else the browser's
             "math{font-size:1.1em;font-family:'STIX Two Math','Latin Modern Math','Cambria Math',"
             "'DejaVu Math TeX Gyre',math}"
             ".tex-fallback{background:#fff4e5;border:1px dashed #c60;padding:1px 4px;white-space:pre-wrap}"
             ".q{border-left:4px solid #48c;padding-left:10px}")
    return (f"<!DOCTYPE html><html><head><meta charset='utf-8'><title>{html.escape(lesson.title)}</title>"
            f"<style>{style}</style></head><body>{''.join(parts)}<hr><p><small>dpviz {__version__}; formulas are "
            "MathML, drawn by the browser with nothing loaded (copying a formula copies its LaTeX source); every "
            "number was computed by dpviz when this file was written.</small></p>"
            f"<script>{_COPY_TEX_JS}</script></body></html>")


#: a constant script of the handout: copying a selection that holds formulas puts their LaTeX source ($…$) on the
#: clipboard in place of the MathML's text
_COPY_TEX_JS = (
    "document.addEventListener('copy',function(e){var s=window.getSelection();if(!s||!s.rangeCount)return;"
    "var f=s.getRangeAt(0).cloneContents();var m=f.querySelectorAll('math');"
    "var a=s.anchorNode&&s.anchorNode.parentElement&&s.anchorNode.parentElement.closest('math');"
    "if(!m.length&&!a)return;"
    "if(!m.length){e.clipboardData.setData('text/plain',a.getAttribute('alttext')||'');e.preventDefault();return;}"
    "m.forEach(function(x){var t=x.getAttribute('alttext')||'';"
    "x.replaceWith(document.createTextNode(x.getAttribute('display')==='block'?'$$'+t+'$$':'$'+t+'$'));});"
    "var d=document.createElement('div');d.appendChild(f);"
    "e.clipboardData.setData('text/plain',d.textContent);e.preventDefault();});")


def html_job(lesson_id: str, progress=None, cancel=None) -> str:
    """:func:`lesson_html` for the worker pool (the page's "prepare the handout" button)."""
    return lesson_html(lesson_id)


def _solver_source(name: str) -> str:
    return inspect.getsource(SOLVERS[name])


def lesson_notebook(lesson_id: str, *, solutions: bool):
    """A Jupyter notebook (nbformat v4) of a lesson that recomputes every number with dpviz.

    Each step: its text, a code cell computing the step's numbers with ``dpviz_ui.lessons.live`` at the step's state
    (printed as ``NUMBERS {json}``), and for a question a prediction cell and an answer cell: in the exercise
    version the answer is left to compute (``answer = None``), in the solution version the solver's own source is
    given and run (printed as ``ANSWER {json}``)."""
    import nbformat
    from nbformat import v4

    lesson = get_lesson(lesson_id)
    cells = [v4.new_markdown_cell(f"# {lesson.title}\n\n" + ("**Solutions.**" if solutions else "**Exercises**: "
                                  "fill in the cells marked `# your turn`.") + "\n\nAfter this lesson you can:\n"
                                  + "\n".join(f"- {o}" for o in lesson.objectives)),
             v4.new_code_cell("import json\nfrom dpviz_ui import lessons\nfrom dpviz.theory import catalog, gaussian\n"
                              "from dpviz.labs import audit\n"
                              "# helpers the solutions use: the view's parameters, formatting, feasibility search\n"
                              "from dpviz_ui.lessons import params_of, _only, _fmt, _txt, _LE, _cal_noise, _ratio_of, "
                              "_smallest_feasible_eps\n"
                              f"LESSON = lessons.get_lesson({lesson_id!r})")]
    for i, step in enumerate(lesson.steps, 1):
        state = {k: v for k, v in step.state.items()}
        cells.append(v4.new_markdown_cell(f"## Step {i}. {step.title}\n\n{step.text}"))
        cells.append(v4.new_code_cell(
            f"step = LESSON.steps[{i - 1}]\nstate = lessons.step_state(step, {state!r})\n"
            f"view = lessons.live({step.view!r}, state, figure=False)\n"
            "for label, value in view['numbers']:\n    print(f'{label}: {value}')\n"
            "print('NUMBERS', json.dumps(view['values'], default=str))"))
        if step.question:
            q = step.question
            opts = f" (one of: {', '.join(q.options)})" if q.kind == "choice" else ""
            cells.append(v4.new_markdown_cell(f"**Predict, then compute.** {q.prompt}{opts}"))
            cells.append(v4.new_code_cell("prediction = None  # your turn: write your prediction before computing"))
            if solutions:
                src = _solver_source(q.solver)
                fname = SOLVERS[q.solver].__name__
                cells.append(v4.new_code_cell(
                    f"{src}\nrev = {fname}(state, view['values'])\nanswer = rev['answer']\n"
                    "print('Answer:', answer, '-', rev['text'])\nprint('ANSWER', json.dumps(answer))"))
            else:
                cells.append(v4.new_code_cell(
                    "answer = None  # your turn: compute it with dpviz (catalog.calibrate, catalog.bound, gaussian,\n"
                    "#                audit ...) at `state`; lessons.params_of(state) gives n, eps, delta, ...\n"
                    "if answer is not None and prediction is not None:\n"
                    "    print('your prediction:', prediction, ' computed:', answer)"))
    nb = v4.new_notebook(cells=cells, metadata={"kernelspec": {"name": "python3", "display_name": "Python 3",
                                                               "language": "python"}})
    nbformat.validate(nb)
    return nb


def dumps_notebook(nb) -> str:
    import nbformat

    return nbformat.writes(nb)


__all__ += ["dumps_notebook", "animated_figure", "html_job", "chart", "LATE_FIGURES", "precompute"]
