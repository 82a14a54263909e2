"""Plotly figures of the privacy accounting lab (pure functions of data; no streamlit).

Log axes use ``exponentformat="power"`` so that ticks read 10⁻³ or plain decimals, never SI prefixes such as 1μ.
"""

from __future__ import annotations

import math
from typing import Sequence

import plotly.graph_objects as go

__all__ = ["sigma_eps_figure", "eps_steps_figure"]

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
