"""Plotly figures of the privacy accounting lab (pure functions of data; no streamlit).

Log axes use ``exponentformat="power"`` so that ticks read 10⁻³ or plain decimals, never SI prefixes such as 1μ.
"""

from __future__ import annotations

import math
from typing import Sequence

import plotly.graph_objects as go

__all__ = ["sigma_eps_figure", "eps_steps_figure", "tradeoff_figure"]

_DASH = {"closed form": "dash"}


def _clean(values):
    return [None if (v is None or not math.isfinite(float(v)) or float(v) <= 0) else float(v) for v in values]


def _log_axes(fig: go.Figure) -> None:
    """Log axes labelled only at powers of ten (10⁻², 10⁻¹, 1, 10 …): no SI prefixes, no bare minor digits."""
    for upd in (fig.update_xaxes, fig.update_yaxes):
        upd(type="log", exponentformat="power", showexponent="all", dtick=1, minor=dict(ticks="outside", dtick="D1"))


def sigma_eps_figure(curves: dict[str, tuple[Sequence[float], Sequence[float]]],
                     points: dict[str, tuple[float | None, float | None]], *, title: str) -> go.Figure:
    """σ (y) against ε (x) on log-log axes: one line per curve ``name -> (eps values, sigma values)`` (None / inf /
    non-positive values are gaps) and one marker per point ``name -> (eps, sigma)`` (the current settings)."""
    if not curves and not points:
        raise ValueError("nothing to plot: no accountant produced a curve")
    fig = go.Figure()
    for name, (xs, ys) in curves.items():
        fig.add_trace(go.Scatter(x=_clean(xs), y=_clean(ys), mode="lines", name=name,
                                 line=dict(dash=_DASH.get(name, "solid"))))
    for name, (x, y) in points.items():
        if x is None or y is None or not (math.isfinite(x) and math.isfinite(y)) or x <= 0 or y <= 0:
            continue
        fig.add_trace(go.Scatter(x=[x], y=[y], mode="markers", name=name,
                                 marker=dict(size=11, symbol="star" if "paper" in name else "circle")))
    fig.update_layout(title=title, xaxis_title="privacy budget ε (smaller = more private)",
                      yaxis_title="noise σ", template="plotly_white", legend=dict(orientation="h", y=-0.25),
                      margin=dict(t=50, b=10))
    _log_axes(fig)
    return fig


def eps_steps_figure(steps: Sequence[int], series: dict[str, Sequence[float]], *, current_steps: int | None,
                     title: str, x_title: str = "number of steps (compositions)") -> go.Figure:
    """ε (y) against the number of composed steps (x) on log-log axes, one line per accountant; a vertical line at
    ``current_steps``."""
    if not series:
        raise ValueError("nothing to plot: no accountant produced a curve")
    fig = go.Figure()
    for name, ys in series.items():
        fig.add_trace(go.Scatter(x=list(steps), y=_clean(ys), mode="lines+markers", name=name))
    if current_steps:
        fig.add_vline(x=current_steps, line_dash="dot", annotation_text=f"T = {current_steps}")
    fig.update_layout(title=title, xaxis_title=x_title, yaxis_title="ε bought", template="plotly_white",
                      legend=dict(orientation="h", y=-0.25), margin=dict(t=50, b=10))
    _log_axes(fig)
    return fig


def tradeoff_figure(curves: dict[str, tuple[Sequence[float], Sequence[float]]],
                    points: Sequence[dict] = (), *, title: str) -> go.Figure:
    """Type II error β (y) against type I error α (x) on [0, 1]²: one line per trade-off curve ``name -> (alphas,
    betas)`` (f-DP, Dong, Roth & Su 2022; a guarantee says every test lies on or above its curve) and, per measured
    test in ``points`` (dicts with ``fpr``, ``fnr``, ``fpr_lo``, ``fpr_hi``, ``fnr_lo``, ``fnr_hi``, ``name``), the
    point with its Clopper–Pearson box (the rectangle of both rates' confidence intervals)."""
    if not curves and not points:
        raise ValueError("nothing to plot: no trade-off curve and no measured point")
    fig = go.Figure()
    dash = {0: "solid", 1: "dash", 2: "dot", 3: "dashdot"}
    for i, (name, (xs, ys)) in enumerate(curves.items()):
        fig.add_trace(go.Scatter(x=list(map(float, xs)), y=list(map(float, ys)), mode="lines", name=name,
                                 line=dict(dash=dash[i % 4])))
    fig.add_trace(go.Scatter(x=[0, 1], y=[1, 0], mode="lines", name="no privacy test (random guess)",
                             line=dict(color="lightgray", width=1), hoverinfo="skip"))
    for pt in points:
        x0, x1, y0, y1 = (float(pt[k]) for k in ("fpr_lo", "fpr_hi", "fnr_lo", "fnr_hi"))
        fig.add_trace(go.Scatter(x=[x0, x1, x1, x0, x0], y=[y0, y0, y1, y1, y0], mode="lines", fill="toself",
                                 opacity=0.35, name=f"{pt.get('name', 'measured')}: Clopper–Pearson box",
                                 line=dict(color="firebrick")))
        fig.add_trace(go.Scatter(x=[float(pt["fpr"])], y=[float(pt["fnr"])], mode="markers",
                                 name=pt.get("name", "measured (FPR, FNR)"),
                                 marker=dict(size=10, color="firebrick", symbol="x")))
    fig.update_layout(title=title, xaxis_title="type I error α (FPR: D′ guessed on D)",
                      yaxis_title="type II error β (FNR: D guessed on D′)", template="plotly_white",
                      legend=dict(orientation="h", y=-0.25), margin=dict(t=50, b=10))
    fig.update_xaxes(range=[-0.01, 1.01], constrain="domain")
    fig.update_yaxes(range=[-0.01, 1.01], constrain="domain")
    return fig
