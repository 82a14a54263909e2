"""Plotly figure of the "Check a run" page: ε against epochs with the target line (pure function of data; no
streamlit)."""

from __future__ import annotations

import math
from typing import Sequence

import plotly.graph_objects as go

__all__ = ["eps_epochs_figure"]


def _clean(values):
    return [None if (v is None or not math.isfinite(float(v))) else float(v) for v in values]


def eps_epochs_figure(epochs: Sequence[float], series: dict[str, Sequence[float | None]], *,
                      target: float | None, current: float | None, title: str,
                      dashed: Sequence[str] = ()) -> go.Figure:
    """ε (y) against epochs (x): one line per ``series`` entry (``name -> ε values``, None where not computed;
    names in ``dashed`` drawn dashed, e.g. a lower bound or a number for another sampling), a horizontal line at
    the ``target`` ε and a vertical one at this run's epochs."""
    fig = go.Figure()
    for name, ys in series.items():
        pts = [(x, y) for x, y in zip(epochs, _clean(ys)) if y is not None]
        if not pts:
            continue
        fig.add_trace(go.Scatter(x=[p[0] for p in pts], y=[p[1] for p in pts], mode="lines+markers", name=name,
                                 line=dict(dash="dash" if name in dashed else "solid")))
    if target is not None and len(epochs):
        # a trace, not add_hline: its legend entry names it, and it stays right on a log axis (an hline's
        # annotation is placed at log10 of its value there)
        fig.add_trace(go.Scatter(x=[min(epochs), max(epochs)], y=[float(target)] * 2, mode="lines",
                                 name=f"target ε = {float(target):g}", line=dict(color="crimson", dash="dot")))
    if current is not None:
        fig.add_vline(x=float(current), line=dict(color="grey", dash="dot"),
                      annotation_text="this run", annotation_position="bottom right")
    fig.update_layout(title=title, xaxis_title="epochs", yaxis_title="ε (at the run's δ)", template="plotly_white",
                      legend=dict(orientation="h", yanchor="top", y=-0.18), margin=dict(t=60, b=40))
    values = [y for ys in series.values() for y in _clean(ys) if y is not None and y > 0]
    if target is not None:
        values.append(float(target))
    if values and max(values) > 20 * min(values):  # curves far apart (shuffled batches): a log axis keeps the
        fig.update_yaxes(type="log", exponentformat="power", showexponent="all",  # target line and the lower
                         dtick=1, minor=dict(ticks="outside", dtick="D1"))  # curves readable
    else:
        fig.update_yaxes(rangemode="tozero")
    return fig
