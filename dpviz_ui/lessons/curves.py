r"""The charts of the curve views: a quantity of the step against one parameter (σ against ε, a bound's terms
against n, ...), with the step's own point marked, still or animated (one Plotly frame per value of the animated
parameter).  :data:`_CURVES` maps a view kind to its curve; :func:`_curve_figure` draws one; :func:`animated_figure`
draws the frames.

Imports :mod:`.model` only.
"""

from __future__ import annotations

import functools
import math
from typing import Callable

from dpviz_ui.lessons.model import FRAME_MS, Step, _cal_noise, _only, _validate_entry, animation_values, params_of


def _logspace(lo: float, hi: float, k: int, integer: bool = False) -> list:
    out = [10 ** (math.log10(lo) + i * (math.log10(hi) - math.log10(lo)) / (k - 1)) for i in range(k)]
    return sorted({int(round(x)) for x in out}) if integer else out


_SWEEP_GRID = {"n": (100, 1_000_000, True), "eps": (0.1, 10.0, False), "T": (10, 100_000, True)}


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
    from dpviz.labs import canary_audit
    from dpviz.theory import catalog, gaussian

    p = params_of(state)
    if kind == "gaussian":
        return state["eps"], gaussian.sigma_for(state["eps"], p["delta"], p["G"], rtol=1e-9)
    if kind == "certifiable":
        return state["aud_trials"], canary_audit.max_certifiable(canary_audit.evaluation_trials_per_side(state["aud_trials"]), 1e-5)
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
    exact = list(_exact_sigmas(float(p["delta"]), float(p["G"])))
    return {"x": xs, "series": {"classical σ = Δ√(2 ln(1.25/δ))/ε": classical, "exact σ (Balle & Wang)": exact},
            "xname": "ε", "yname": "σ", "log": (True, True),
            "marker": _marker("gaussian", state)}


@functools.lru_cache(maxsize=64)
def _exact_sigmas(delta: float, sens: float) -> tuple:
    """The exact σ of the Gaussian mechanism over the ε-grid of its chart (the same for every ε of a step: the
    steps of a lesson and the frames of its animation share them)."""
    from dpviz.theory import gaussian

    return tuple(gaussian.sigma_for(e, delta, sens, rtol=1e-9) for e in _logspace(0.1, 10.0, 33))


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
    return {"x": xs, "series": {"σ (a gap where no σ is private)": ys}, "xname": name if name != "eps" else "ε",
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
    from dpviz.labs import canary_audit

    xs = _logspace(100, 200_000, 30, True)
    delta = 1e-5
    ys = [canary_audit.max_certifiable(canary_audit.evaluation_trials_per_side(m), delta) for m in xs]
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
            fig.update_layout({axis: {"tickvals": ticks, "ticktext": [_label(t) for t in ticks]}})
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
        height=600, margin={"t": 90, "b": 190},
        updatemenus=[{"type": "buttons", "showactive": False, "direction": "left", "x": 0, "y": -0.2,
                      "xanchor": "left", "yanchor": "top", "pad": {"t": 45},
                      "buttons": [{"label": "▶ Play", "method": "animate",
                                   "args": [None, {"frame": {"duration": FRAME_MS, "redraw": False},
                                                   "fromcurrent": True, "transition": {"duration": 0}}]},
                                  {"label": "❚❚ Pause", "method": "animate",
                                   "args": [[None], {"frame": {"duration": 0, "redraw": False}, "mode": "immediate"}]}]}],
        # the slider on a row of its own under the buttons, the whole width: on a phone or a narrow projector column
        # the buttons would cover its start, and the right padding keeps the last label (10⁶) whole
        sliders=[{"active": active, "x": 0, "len": 1.0, "y": -0.2, "yanchor": "top", "pad": {"t": 95, "r": 24},
                  "currentvalue": {"prefix": f"{name} = ", "xanchor": "right"}, "font": {"size": 9},
                  "steps": [{"label": _label(v), "method": "animate",
                             "args": [[_label(v)], {"frame": {"duration": 0, "redraw": False}, "mode": "immediate"}]}
                            for v, _c in curves]}])
    return first.to_plotly_json()


def _label(v) -> str:
    """A frame's label (the slider's) or a log axis's tick: 0.13, 1000, 10⁶ (never 1e+06)."""
    text = f"{v:g}"
    if "e" not in text:
        return text
    mant, exp = text.split("e")
    power = "10" + str(int(exp)).translate(str.maketrans("-0123456789", "⁻⁰¹²³⁴⁵⁶⁷⁸⁹"))
    return power if float(mant) == 1 else f"{mant}·{power}"
