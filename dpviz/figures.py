"""Pure Plotly figure builders for the dashboard (no streamlit).

Each builder takes plain numbers/lists and returns a ``plotly.graph_objects.Figure``; the pages only pass data in.
"""

from __future__ import annotations

import math
from typing import Sequence

import plotly.graph_objects as go

__all__ = ["line_figure", "stacked_terms_figure", "loglog_slope", "feasibility_map_figure", "sigma_beta_figure",
           "simulation_figure"]


def loglog_slope(x: Sequence[float], y: Sequence[float]) -> float | None:
    """Least-squares slope of log(y) against log(x) over the positive finite points (None if fewer than 2)."""
    pts = [(math.log(a), math.log(b)) for a, b in zip(x, y)
           if a is not None and b is not None and a > 0 and b > 0 and math.isfinite(a) and math.isfinite(b)]
    if len(pts) < 2:
        return None
    mx = sum(p[0] for p in pts) / len(pts)
    my = sum(p[1] for p in pts) / len(pts)
    sxx = sum((p[0] - mx) ** 2 for p in pts)
    if sxx == 0:
        return None
    return sum((p[0] - mx) * (p[1] - my) for p in pts) / sxx


def line_figure(x: Sequence[float], series: dict[str, Sequence[float | None]], *, title: str, x_title: str,
                y_title: str, log_x: bool = True, log_y: bool = True, slope_labels: bool = False) -> go.Figure:
    """One line per entry of ``series`` (None = missing point, e.g. infeasible); optional log-log slope in legend."""
    if not series:
        raise ValueError("nothing to plot: choose at least one curve")
    fig = go.Figure()
    for name, ys in series.items():
        ys = [None if (v is None or not math.isfinite(v) or (log_y and v <= 0)) else float(v) for v in ys]
        label = name
        if slope_labels:
            s = loglog_slope(x, ys)
            if s is not None:
                label = f"{name} (slope {s:+.2f})"
        fig.add_trace(go.Scatter(x=list(x), y=ys, mode="lines+markers", name=label))
    fig.update_layout(title=title, xaxis_title=x_title, yaxis_title=y_title, template="plotly_white",
                      legend=dict(orientation="h", y=-0.25), margin=dict(t=50, b=10))
    if log_x:
        fig.update_xaxes(type="log")
    if log_y:
        fig.update_yaxes(type="log")
    return fig


def stacked_terms_figure(x: Sequence[float], terms: dict[str, Sequence[float]], *, title: str,
                         x_title: str, y_title: str = "bound") -> go.Figure:
    """Named bound terms stacked (filled areas) on log-log axes; the legend carries each term's log-log slope."""
    if not terms:
        raise ValueError("nothing to plot: the bound has no terms")
    fig = go.Figure()
    for name, ys in terms.items():
        ys = [max(float(v), 0.0) if v is not None and math.isfinite(v) else None for v in ys]
        s = loglog_slope(x, ys)
        label = f"{name} (slope {s:+.2f})" if s is not None else name
        fig.add_trace(go.Scatter(x=list(x), y=ys, mode="lines", name=label, stackgroup="terms"))
    fig.update_layout(title=title, xaxis_title=x_title, yaxis_title=y_title, template="plotly_white",
                      legend=dict(orientation="h", y=-0.25), margin=dict(t=50, b=10))
    fig.update_xaxes(type="log")
    fig.update_yaxes(type="log")
    return fig


def feasibility_map_figure(n_values: Sequence[float], eps_values: Sequence[float], feasible: Sequence[Sequence[bool]],
                           *, boundary: tuple[Sequence[float], Sequence[float]] | None = None,
                           boundary_name: str = "sufficient boundary", title: str = "Feasible (n, ε)") -> go.Figure:
    """Heat map of feasibility (rows: ε, columns: n; 1 = feasible) with an optional boundary curve ε(n) overlaid."""
    if not n_values or not eps_values:
        raise ValueError("the (n, ε) grid is empty")
    if len(feasible) != len(eps_values) or any(len(r) != len(n_values) for r in feasible):
        raise ValueError("feasible must have one row per ε and one column per n")
    z = [[1 if f else 0 for f in row] for row in feasible]
    fig = go.Figure(go.Heatmap(x=list(n_values), y=list(eps_values), z=z, zmin=0, zmax=1, showscale=False,
                               colorscale=[[0, "#f4d6d6"], [1, "#cfe8cf"]], name="feasible (green)"))
    if boundary is not None:
        fig.add_trace(go.Scatter(x=list(boundary[0]), y=list(boundary[1]), mode="lines", name=boundary_name,
                                 line=dict(color="black", dash="dash")))
    fig.update_layout(title=title, xaxis_title="n", yaxis_title="ε", template="plotly_white",
                      legend=dict(orientation="h", y=-0.25))
    fig.update_xaxes(type="log")
    fig.update_yaxes(type="log")
    return fig


def sigma_beta_figure(betas: Sequence[float], sigmas: Sequence[float | None],
                      interval: tuple[float, float] | None, *, title: str = "σ(β)", log_x: bool = False) -> go.Figure:
    """σ as a function of the Rényi order parameter β with the feasible β interval shaded."""
    if not betas:
        raise ValueError("no β values to plot")
    fig = go.Figure(go.Scatter(x=list(betas), y=[None if s is None else float(s) for s in sigmas],
                               mode="lines", name="σ(β)"))
    if interval is not None:
        fig.add_vrect(x0=interval[0], x1=interval[1], fillcolor="green", opacity=0.15, line_width=0,
                      annotation_text="feasible β")
    fig.update_layout(title=title, xaxis_title="β", yaxis_title="σ", template="plotly_white")
    fig.update_yaxes(type="log")
    if log_x:
        fig.update_xaxes(type="log")
    return fig


def simulation_figure(curves: Sequence[dict], *, x_title: str, y_title: str = "excess risk",
                      title: str = "Empirical vs theoretical excess risk") -> go.Figure:
    """Simulation results against theory on log-log axes.

    Each entry of ``curves`` is a dict with ``name`` and ``x`` and one of

    * ``mean`` with ``ci_low`` / ``ci_high`` (an empirical curve: markers + line, with a shaded 95 % band), or
    * ``y`` with ``kind`` = "fitted" (theory rate times a fitted constant: dashed) or "explicit" (bound with the
      paper's explicit constants: dotted).

    Non-positive values are dropped (log axes), and the band's lower edge is clipped at a small positive value.
    """
    if not curves:
        raise ValueError("nothing to plot: no simulation results")
    fig = go.Figure()
    palette = ["#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e", "#8c564b", "#e377c2", "#17becf"]
    for i, c in enumerate(curves):
        colour = palette[c.get("colour", i) % len(palette)]
        x = [float(v) for v in c["x"]]
        if "mean" in c:
            mean = [float(v) for v in c["mean"]]
            hi = [float(v) for v in c["ci_high"]]
            pos = [m for m in mean if m > 0]
            floor = (min(pos) / 100.0) if pos else 1e-12
            lo = [max(float(v), floor) for v in c["ci_low"]]
            fig.add_trace(go.Scatter(x=x + x[::-1], y=hi + lo[::-1], fill="toself", fillcolor=colour, opacity=0.2,
                                     line=dict(width=0), name=f"{c['name']}: 95 % band", hoverinfo="skip"))
            fig.add_trace(go.Scatter(x=x, y=[m if m > 0 else None for m in mean], mode="lines+markers",
                                     line=dict(color=colour), name=f"{c['name']}: empirical mean"))
        else:
            dash = "dash" if c.get("kind", "fitted") == "fitted" else "dot"
            y = [None if (v is None or not math.isfinite(v) or v <= 0) else float(v) for v in c["y"]]
            fig.add_trace(go.Scatter(x=x, y=y, mode="lines", line=dict(color=colour, dash=dash), name=c["name"]))
    fig.update_layout(title=title, xaxis_title=x_title, yaxis_title=y_title, template="plotly_white",
                      legend=dict(orientation="h", y=-0.25), margin=dict(t=50, b=10))
    fig.update_xaxes(type="log")
    fig.update_yaxes(type="log")
    return fig
