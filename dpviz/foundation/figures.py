"""Pure Plotly figure builders for the dashboard (no streamlit).

Each builder takes plain numbers/lists and returns a ``plotly.graph_objects.Figure``; the pages only pass data in.
"""

from __future__ import annotations

import math
import re
from typing import Sequence

import plotly.graph_objects as go

__all__ = ["line_figure", "stacked_terms_figure", "loglog_slope", "feasibility_map_figure", "sigma_beta_figure",
           "simulation_figure", "tick_label", "log_ticks", "readable_log_axes", "VACUOUS_LEGEND"]

_SUP = str.maketrans("-0123456789", "⁻⁰¹²³⁴⁵⁶⁷⁸⁹")
_DASHES = ["solid", "dash", "dot", "dashdot", "longdash", "longdashdot"]
_SYMBOLS = ["circle", "square", "diamond", "triangle-up", "x", "cross", "star", "triangle-down"]


def tick_label(v: float) -> str:
    """A log-axis tick as a plain decimal (0.5, 2, 1000) or in 10⁻⁶ / 2·10⁻⁶ style -- never SI prefixes (1μ, 100n),
    which clash with the constants μ and n of the papers."""
    if v <= 0 or not math.isfinite(v):
        raise ValueError("a log-axis tick must be a positive finite number")
    if 1e-3 <= v < 1e5:
        return f"{v:.6g}"
    k = math.floor(math.log10(v) + 1e-9)
    m = v / 10.0**k
    power = "10" + str(k).translate(_SUP)
    return power if abs(m - 1) < 1e-6 else f"{m:.3g}·{power}"


def log_ticks(lo: float, hi: float) -> list[float]:
    """Tick values for a log axis over [lo, hi]: 1-2-5 per decade over up to 3 decades, else powers of ten (every
    k-th decade over very wide ranges).  A narrow range (less than about a decade) gets finer mantissas (1-2-3-5,
    then every digit, then halves) until at least three ticks fall inside it, so a value can be read off."""
    if not (lo > 0 and hi > 0 and math.isfinite(lo) and math.isfinite(hi)):
        raise ValueError("log-axis ticks need a positive finite range")
    lo, hi = min(lo, hi), max(lo, hi)
    k0, k1 = math.floor(math.log10(lo)), math.ceil(math.log10(hi))
    decades = max(1, k1 - k0)
    step = max(1, math.ceil(decades / 10))

    def _inside(mantissas, every=1):
        ticks = [m * 10.0**k for k in range(k0, k1 + 1, every) for m in mantissas]
        return ticks, [t for t in ticks if lo / 1.0001 <= t <= hi * 1.0001]

    if decades > 3:
        ticks, inside = _inside((1,), step)
    else:
        ticks, inside = _inside((1, 2, 5))
        for finer in ((1, 2, 3, 5), tuple(range(1, 10)), (1, 1.5, 2, 2.5, 3, 3.5, 4, 4.5, 5, 6, 7, 8, 9)):
            if len(inside) >= 3:
                break
            ticks, inside = _inside(finer)
    return inside if len(inside) >= 2 else [t for t in ticks if lo / 10 <= t <= hi * 10]


def _positive(values) -> list[float]:
    out = []
    for v in values if values is not None else []:
        try:
            f = float(v)
        except (TypeError, ValueError):
            continue
        if f > 0 and math.isfinite(f):
            out.append(f)
    return out


def readable_log_axes(fig: go.Figure) -> go.Figure:
    """Give every log axis of ``fig`` -- subplots' axes (``xaxis2``, ``yaxis3``, ...) included -- explicit ticks
    labelled by :func:`tick_label` (0.5 stays "0.5", 10⁻⁶ not 1μ; no bare "2" or "5" between decades).  Axes
    whose ticks were set explicitly (``tickmode="array"``) are left as they are."""
    names = [k for k in fig.layout.to_plotly_json() if re.fullmatch(r"[xy]axis\d*", k)]
    for name in names or ["xaxis", "yaxis"]:
        layout_axis = fig.layout[name]
        if layout_axis.type != "log" or layout_axis.tickmode == "array":  # not log, or its ticks chosen already
            continue
        letter, ref = name[0], name[0] + name[5:]
        vals: list[float] = []
        for tr in fig.data:
            if (getattr(tr, f"{letter}axis", None) or letter) == ref:
                vals += _positive(getattr(tr, letter, None))
        if not vals:
            continue
        ticks = log_ticks(min(vals), max(vals))
        layout_axis.update(tickmode="array", tickvals=ticks, ticktext=[tick_label(t) for t in ticks])
    return fig


def _coincide(a: Sequence, b: Sequence) -> bool:
    pairs = [(x, y) for x, y in zip(a, b) if x is not None and y is not None]
    return len(pairs) >= 2 and len(pairs) == sum(1 for x, y in zip(a, b) if x is not None or y is not None) and all(
        abs(x - y) <= 1e-9 * max(abs(x), abs(y), 1e-300) for x, y in pairs)


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
                y_title: str, log_x: bool = True, log_y: bool = True, slope_labels: bool = False,
                current_x: float | None = None, current_label: str = "current value",
                not_computed: dict[str, Sequence[float]] | None = None, levels: Sequence[dict] = (),
                vacuous_above: dict[str, float] | None = None,
                gaps: dict[str, dict[float, str]] | None = None) -> go.Figure:
    """One line per entry of ``series`` (None = missing point, e.g. infeasible); optional log-log slope in legend.

    Each line has its own dash and marker, so lines that coincide stay visible, and a coinciding line says so in its
    legend entry.  ``current_x`` marks the current value with a vertical line (and ``current_label``).
    ``not_computed`` maps a series' name to the x values at which it was not computed (a time budget ran out): they
    are shaded grey and labelled "not computed (time budget)" in the figure itself (so a downloaded copy says it too),
    never drawn as a gap of the curve such as "not private".
    ``levels``: horizontal reference lines ``{"name", "y", "hover"}`` (e.g. a trivial bound), see
    :func:`_add_levels`.  ``vacuous_above`` maps a series' name to its trivial bound: the points of that series
    above it are circled and labelled "vacuous here" (:func:`_mark_vacuous`).  ``gaps`` maps a series' name to
    ``{x: reason}`` for the points where it has no value (e.g. a bound that cannot be computed there): grey crosses
    along the bottom with "<series>: <reason>" on hover, as :func:`simulation_figure` draws runs that did not run.
    """
    if not series:
        raise ValueError("nothing to plot: choose at least one curve")
    fig = go.Figure()
    clean = {name: [None if (v is None or not math.isfinite(v) or (log_y and v <= 0)) else float(v) for v in ys]
             for name, ys in series.items()}
    names = list(clean)
    for i, (name, ys) in enumerate(clean.items()):
        label = name
        if slope_labels:
            s = loglog_slope(x, ys)
            if s is not None:
                label = f"{name} (slope {s:+.2f})"
        same = [other for other in names[:i] if _coincide(ys, clean[other])]
        if same:
            label += f" — coincides with {same[0]}"
        fig.add_trace(go.Scatter(x=list(x), y=ys, mode="lines+markers", name=label,
                                 line=dict(dash=_DASHES[i % len(_DASHES)], width=2 + (1 if same else 0)),
                                 marker=dict(symbol=_SYMBOLS[i % len(_SYMBOLS)], size=7)))
    if current_x is not None:
        fig.add_vline(x=current_x, line=dict(color="black", dash="dot", width=1))
        fig.add_trace(go.Scatter(x=[current_x], y=[None], mode="lines", line=dict(color="black", dash="dot"),
                                 name=current_label, showlegend=True))
    missing = _shade_not_computed(fig, x, not_computed)
    _add_levels(fig, x, levels)
    _mark_vacuous(fig, x, {name: (ys, (vacuous_above or {}).get(name)) for name, ys in clean.items()})
    if gaps and log_y:
        _add_gaps(fig, [{"x": gx, "reason": why, "name": name} for name, pts in gaps.items()
                        for gx, why in sorted(pts.items())], x_title,
                  [y for ys in clean.values() for y in ys if y is not None]
                  + [float(lv["y"]) for lv in levels if lv.get("y") and float(lv["y"]) > 0], "no bound here")
    fig.update_layout(title=title, xaxis_title=x_title, yaxis_title=y_title, template="plotly_white",
                      legend=dict(orientation="h", y=-0.25), margin=dict(t=70 if missing else 50, b=10))
    if log_x:
        fig.update_xaxes(type="log")
    if log_y:
        fig.update_yaxes(type="log")
    return readable_log_axes(fig)


#: the name of the legend entry of the "vacuous here" marks (one entry, however many series are marked)
VACUOUS_LEGEND = "vacuous here: above its trivial bound"


def _add_levels(fig: go.Figure, x: Sequence[float], levels: Sequence[dict]) -> None:
    """Horizontal reference lines across the x range: ``{"name", "y", "hover"}`` each (``hover``: a sentence saying
    what the level is, shown on hover).  Drawn as a trace (so its value is in the figure's data and on hover), grey
    and dash-dotted, with its name written at the right end of the line; levels that are not positive finite
    numbers are skipped (log axes)."""
    import html

    xs = [float(v) for v in x if v is not None and math.isfinite(float(v))]
    if not xs:
        return
    for lv in levels:
        y = lv.get("y")
        if y is None or not (float(y) > 0 and math.isfinite(float(y))):
            continue
        y = float(y)
        name = str(lv.get("name", "reference"))
        hover = html.escape(str(lv.get("hover") or name))
        fig.add_trace(go.Scatter(x=[min(xs), max(xs)], y=[y, y], mode="lines+text", name=name,
                                 text=["", html.escape(name)], textposition="top left",
                                 textfont=dict(size=11, color="#555555"),
                                 line=dict(color="#555555", dash="dashdot", width=2),
                                 hovertemplate=f"{hover}<br>%{{y:.4g}}<extra>trivial bound</extra>"))


def _mark_vacuous(fig: go.Figure, x: Sequence[float], series: dict[str, tuple]) -> list[str]:
    """Circle the points of each series above its trivial bound (``{name: (y values, trivial bound or None)}``),
    "vacuous here" on hover and written above the last such point of each series (where it stops being vacuous,
    as x grows; series that start together do not write over each other); one legend entry for all.
    Returns the names of the series that have such points."""
    marked = []
    for name, (ys, triv) in series.items():
        if triv is None or not (float(triv) > 0 and math.isfinite(float(triv))):
            continue
        pts = [(float(a), float(b)) for a, b in zip(x, ys) if b is not None and b > float(triv)]
        if not pts:
            continue
        import html

        fig.add_trace(go.Scatter(x=[a for a, _ in pts], y=[b for _, b in pts], mode="markers+text",
                                 text=[""] * (len(pts) - 1) + ["vacuous here"], textposition="top center",
                                 cliponaxis=False,
                                 textfont=dict(size=10, color="#b22222"), legendgroup="vacuous",
                                 marker=dict(symbol="circle-open", size=14, color="#b22222", line=dict(width=2)),
                                 name=f"{name}: vacuous here", showlegend=False,
                                 hovertemplate=f"<b>{html.escape(name)}</b><br>%{{x:.4g}}: %{{y:.4g}} is vacuous "
                                               f"here (above its trivial bound {float(triv):.4g}: it says less than "
                                               "the trivial bound)<extra>vacuous here</extra>"))
        marked.append(name)
    if marked:
        fig.add_trace(go.Scatter(x=[float(x[0])], y=[None], mode="markers", name=VACUOUS_LEGEND, legendgroup="vacuous",
                                 marker=dict(symbol="circle-open", size=12, color="#b22222"), showlegend=True))
    return marked


def _shade_not_computed(fig: go.Figure, x: Sequence[float], not_computed: dict | None) -> dict:
    """Shade the x values at which a curve was not computed (a time budget ran out) grey, with a legend entry and a
    note naming how many points of how many curves; returns the non-empty entries of ``not_computed``."""
    missing = {name: sorted(float(v) for v in xs) for name, xs in (not_computed or {}).items() if xs}
    if missing:
        xs_all = [float(v) for v in x]
        for lo, hi in _runs(xs_all, sorted({v for xs in missing.values() for v in xs})):  # one band per run of x
            fig.add_vrect(x0=lo, x1=hi, fillcolor="grey", opacity=0.15, line_width=0)
        fig.add_trace(go.Scatter(x=[xs_all[0]], y=[None], mode="markers", name="not computed (time budget)",
                                 marker=dict(symbol="square", size=12, color="rgba(128,128,128,0.35)"),
                                 showlegend=True))
        fig.add_annotation(xref="paper", yref="paper", x=0, y=1, xanchor="left", yanchor="bottom", showarrow=False,
                           font=dict(size=11, color="#555"),
                           text=f"grey: not computed within the time budget ({sum(map(len, missing.values()))} "
                                f"points of {len(missing)} curve{'s' if len(missing) != 1 else ''})")
    return missing


def _runs(grid: list[float], xs: list[float]) -> list[tuple[float, float]]:
    """Contiguous runs of ``grid`` made of values in ``xs``, as (first, last) x; a single point gets a band half way
    to its neighbours so that it is visible."""
    chosen = set(xs)
    runs, start = [], None
    for i, g in enumerate(grid):
        if g in chosen and start is None:
            start = i
        if start is not None and (g not in chosen or i == len(grid) - 1):
            end = i if g in chosen else i - 1
            lo_i, hi_i = max(start - 1, 0), min(end + 1, len(grid) - 1)
            lo = math.sqrt(grid[lo_i] * grid[start]) if lo_i < start and grid[start] > 0 else grid[start]
            hi = math.sqrt(grid[end] * grid[hi_i]) if hi_i > end and grid[end] > 0 else grid[end]
            runs.append((lo, hi))
            start = None
    return runs


def stacked_terms_figure(x: Sequence[float], terms: dict[str, Sequence[float]], *, title: str,
                         x_title: str, y_title: str = "bound", not_computed: Sequence[float] | None = None,
                         levels: Sequence[dict] = (), vacuous_above: float | None = None,
                         gaps: dict[float, str] | None = None) -> go.Figure:
    """Named bound terms and their sum as lines on log-log axes (no stacked areas: on a log axis the height of a
    stacked band does not show the term); the legend carries each term's log-log slope.  ``not_computed``: x values
    a time budget skipped, shaded "not computed (time budget)" (see :func:`line_figure`).  ``levels``: horizontal
    reference lines (a trivial bound, see :func:`line_figure`); ``vacuous_above``: the bound's trivial bound, above
    which the points of the bound (the sum of the terms, or the one term) are circled "vacuous here".  ``gaps``:
    ``{x: reason}`` where the bound cannot be computed, grey crosses with the reason on hover (see :func:`line_figure`)."""
    if not terms:
        raise ValueError("nothing to plot: the bound has no terms")
    fig = go.Figure()
    cleaned = {}
    for i, (name, ys) in enumerate(terms.items()):
        ys = [float(v) if v is not None and math.isfinite(v) and v > 0 else None for v in ys]
        cleaned[name] = ys
        s = loglog_slope(x, ys)
        label = f"{name} (slope {s:+.2f})" if s is not None else name
        fig.add_trace(go.Scatter(x=list(x), y=ys, mode="lines+markers", name=label,
                                 line=dict(dash=_DASHES[(i + 1) % len(_DASHES)]),
                                 marker=dict(symbol=_SYMBOLS[(i + 1) % len(_SYMBOLS)], size=6)))
    total = next(iter(cleaned.values()))
    if len(cleaned) > 1:
        total = [sum(v for v in col) if all(v is not None for v in col) else None for col in zip(*cleaned.values())]
        s = loglog_slope(x, total)
        fig.add_trace(go.Scatter(x=list(x), y=total, mode="lines", name="sum of the terms"
                                 + (f" (slope {s:+.2f})" if s is not None else ""), line=dict(color="black", width=3)))
    missing = _shade_not_computed(fig, x, {"bound": list(not_computed or [])})
    _add_levels(fig, x, levels)
    _mark_vacuous(fig, x, {"the bound": (total, vacuous_above)})
    _add_gaps(fig, [{"x": gx, "reason": why} for gx, why in sorted((gaps or {}).items())], x_title,
              [y for ys in cleaned.values() for y in ys if y is not None]
              + [float(lv["y"]) for lv in levels if lv.get("y") and float(lv["y"]) > 0], "no bound here")
    fig.update_layout(title=title, xaxis_title=x_title, yaxis_title=y_title, template="plotly_white",
                      legend=dict(orientation="h", y=-0.25), margin=dict(t=70 if missing else 50, b=10))
    fig.update_xaxes(type="log")
    fig.update_yaxes(type="log")
    return readable_log_axes(fig)


def feasibility_map_figure(n_values: Sequence[float], eps_values: Sequence[float], feasible: Sequence[Sequence[bool]],
                           *, boundary: tuple[Sequence[float], Sequence[float]] | None = None,
                           boundary_name: str = "sufficient boundary", title: str = "Feasible (n, ε)",
                           current: tuple[float, float] | None = None) -> go.Figure:
    """Heat map of feasibility (rows: ε, columns: n; 1 = feasible) with an optional boundary curve ε(n) overlaid
    (with a legend entry) and the current (n, ε) marked."""
    if not n_values or not eps_values:
        raise ValueError("the (n, ε) grid is empty")
    if len(feasible) != len(eps_values) or any(len(r) != len(n_values) for r in feasible):
        raise ValueError("feasible must have one row per ε and one column per n")
    z = [[1 if f else 0 for f in row] for row in feasible]
    fig = go.Figure(go.Heatmap(x=list(n_values), y=list(eps_values), z=z, zmin=0, zmax=1, showscale=False,
                               colorscale=[[0, "#f4d6d6"], [1, "#cfe8cf"]], name="feasible (green)"))
    if boundary is not None:
        fig.add_trace(go.Scatter(x=list(boundary[0]), y=list(boundary[1]), mode="lines", name=boundary_name,
                                 line=dict(color="black", dash="dash"), showlegend=True))
    if current is not None:
        fig.add_trace(go.Scatter(x=[current[0]], y=[current[1]], mode="markers", name="current (n, ε)",
                                 marker=dict(symbol="star", size=16, color="black"), showlegend=True))
    fig.update_layout(title=title, xaxis_title="n", yaxis_title="ε", template="plotly_white",
                      legend=dict(orientation="h", y=-0.25), showlegend=True)
    fig.update_xaxes(type="log")
    fig.update_yaxes(type="log")
    return readable_log_axes(fig)


def sigma_beta_figure(betas: Sequence[float], sigmas: Sequence[float | None],
                      interval: tuple[float, float] | None, *, title: str = "σ(β)", log_x: bool = False,
                      chosen: tuple[float, float] | None = None) -> go.Figure:
    """σ as a function of the Rényi order parameter β with the feasible β interval shaded and the chosen (β, σ)
    marked."""
    if not betas:
        raise ValueError("no β values to plot")
    fig = go.Figure(go.Scatter(x=list(betas), y=[None if s is None else float(s) for s in sigmas],
                               mode="lines", name="σ(β)"))
    if interval is not None:
        fig.add_vrect(x0=interval[0], x1=interval[1], fillcolor="green", opacity=0.15, line_width=0,
                      annotation_text="feasible β")
    if chosen is not None and chosen[0] is not None and chosen[1] is not None:
        fig.add_trace(go.Scatter(x=[chosen[0]], y=[chosen[1]], mode="markers", name="chosen β",
                                 marker=dict(symbol="star", size=14, color="black")))
    fig.update_layout(title=title, xaxis_title="β", yaxis_title="σ", template="plotly_white")
    fig.update_yaxes(type="log")
    if log_x:
        fig.update_xaxes(type="log")
    return readable_log_axes(fig)


def _segments(x: list, y: list) -> list[list[int]]:
    """The runs of consecutive indices where ``y`` is not None."""
    out, cur = [], []
    for i, val in enumerate(y):
        if val is None:
            if cur:
                out.append(cur)
            cur = []
        else:
            cur.append(i)
    if cur:
        out.append(cur)
    return out


def _add_gaps(fig: go.Figure, gaps: Sequence[dict], x_title: str, ys: Sequence[float], what: str) -> bool:
    """Grid points with no value, ``{"x", "reason", "name"}`` each, as grey crosses along the bottom of a log plot
    (below the smallest of ``ys``) with their reason on hover and one legend entry "<what> (hover: why)": never
    silently left out.  Returns whether any was drawn."""
    import html

    gaps = [g for g in gaps if g.get("x") is not None and float(g["x"]) > 0]
    if not gaps:
        return False
    base = min(list(ys) or [1.0]) / 1.6
    fig.add_trace(go.Scatter(x=[float(g["x"]) for g in gaps], y=[base] * len(gaps), mode="markers",
                             marker=dict(symbol="x", size=11, color="#7f7f7f"), name=f"{what} (hover: why)",
                             text=[html.escape(str(g.get("name", "")) + (": " if g.get("name") else "")
                                               + str(g["reason"]))[:300] for g in gaps],
                             hovertemplate=f"{html.escape(x_title)} = %{{x:.4g}}: %{{text}}<extra>{what}</extra>"))
    return True


def simulation_figure(curves: Sequence[dict], *, x_title: str, y_title: str = "excess risk",
                      title: str = "Empirical vs theoretical excess risk", plot_height: int = 460,
                      gaps: Sequence[dict] = (), levels: Sequence[dict] = ()) -> go.Figure:
    """Simulation results against theory on log-log axes.

    Each entry of ``curves`` is a dict with ``name`` and ``x`` and one of

    * ``mean`` with ``ci_low`` / ``ci_high`` (an empirical curve: markers + line, with a shaded 95 % band); a None
      mean is a grid point that did not run: the line and the band break there, or
    * ``y`` with ``kind`` = "fitted" (theory rate times a fitted constant: dashed) or "explicit" (bound with the
      paper's explicit constants: dotted); an explicit curve's optional ``vacuous`` lists the x values where the
      bound is vacuous (above the excess risk of w = 0): marked with open circles and "vacuous here" on hover.

    Optional ``short`` is the legend's name (default ``name``) and ``detail`` a line of text shown on hover (the full
    name is always in the hover).  ``gaps``: grid points that did not run, ``{"x", "reason", "name"}`` each, drawn
    as grey crosses along the bottom of the plot with their reason on hover (never silently left out).
    ``levels``: horizontal reference lines ``{"name", "y", "colour"}`` (e.g. the excess risk of w = 0), dash-dotted.
    The legend sits below the plot, one entry per line of the plot (a band is toggled with its mean), and the
    figure grows with the legend so that the plotting area keeps ``plot_height`` pixels.  Non-positive values are
    dropped (log axes), and the band's lower edge is clipped at a small positive value.
    """
    import html

    if not curves:
        raise ValueError("nothing to plot: no simulation results")
    fig = go.Figure()
    palette = ["#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e", "#8c564b", "#e377c2", "#17becf"]
    legend_names = []
    all_x: list[float] = []
    all_y: list[float] = []
    for i, c in enumerate(curves):
        colour = palette[c.get("colour", i) % len(palette)]
        x = [float(v) for v in c["x"]]
        all_x += x
        short = c.get("short") or c["name"]
        hover = "<b>" + html.escape(c["name"]) + "</b>" + (
            "<br>" + html.escape(c["detail"]) if c.get("detail") else "")
        group = f"g{c.get('colour', i)}"
        if "mean" in c:
            mean = [None if v is None else float(v) for v in c["mean"]]
            hi = [None if v is None else float(v) for v in c["ci_high"]]
            pos = [m for m in mean if m is not None and m > 0]
            floor = (min(pos) / 100.0) if pos else 1e-12
            lo = [None if v is None else max(float(v), floor) for v in c["ci_low"]]
            for seg in _segments(x, mean):  # one band per run of consecutive grid points that ran
                xs = [x[j] for j in seg]
                fig.add_trace(go.Scatter(x=xs + xs[::-1], y=[hi[j] for j in seg] + [lo[j] for j in seg][::-1],
                                         mode="lines", fill="toself", fillcolor=colour, opacity=0.2,
                                         line=dict(width=0), name=f"{short}: 95 % band", hoverinfo="skip",
                                         legendgroup=group, showlegend=False))
            all_y += [m for m in mean if m is not None and m > 0]
            fig.add_trace(go.Scatter(x=x, y=[m if m is not None and m > 0 else None for m in mean],
                                     mode="lines+markers", connectgaps=False,
                                     line=dict(color=colour), name=short, legendgroup=group,
                                     hovertemplate=f"{hover}<br>{x_title} = %{{x:.4g}}<br>mean = %{{y:.4g}}"
                                                   "<extra>empirical mean ± 95 % band</extra>"))
            legend_names.append(short)
        else:
            kind = c.get("kind", "fitted")
            dash = "dash" if kind == "fitted" else "dot"
            y = [None if (v is None or not math.isfinite(v) or v <= 0) else float(v) for v in c["y"]]
            fig.add_trace(go.Scatter(x=x, y=y, mode="lines", line=dict(color=colour, dash=dash), name=short,
                                     legendgroup=group,
                                     hovertemplate=f"{hover}<br>{x_title} = %{{x:.4g}}<br>%{{y:.4g}}<extra></extra>"))
            legend_names.append(short)
            vac = {float(v) for v in c.get("vacuous", ())}
            if vac:
                vx = [a for a, b in zip(x, y) if a in vac and b is not None]
                vy = [b for a, b in zip(x, y) if a in vac and b is not None]
                fig.add_trace(go.Scatter(x=vx, y=vy, mode="markers+text", text=["vacuous"] * len(vx),
                                         textposition="top center", textfont=dict(size=10, color=colour),
                                         marker=dict(symbol="circle-open", size=11, color=colour),
                                         legendgroup=group, showlegend=False, name=f"{short}: vacuous here",
                                         hovertemplate=f"{hover}<br>{x_title} = %{{x:.4g}}<br>%{{y:.4g}}: vacuous "
                                                       "here (above the excess risk of w = 0)<extra></extra>"))
    for lv in levels:
        yv = float(lv["y"])
        if not (yv > 0 and math.isfinite(yv)) or not all_x:
            continue
        colour = palette[lv.get("colour", 0) % len(palette)] if "colour" in lv else "#555555"
        name = lv.get("name", "reference")
        fig.add_trace(go.Scatter(x=[min(all_x), max(all_x)], y=[yv, yv], mode="lines",
                                 line=dict(color=colour, dash="dashdot", width=1.5), name=name,
                                 hovertemplate=html.escape(name) + "<br>%{y:.4g}<extra></extra>"))
        legend_names.append(name)
    if _add_gaps(fig, gaps, x_title, all_y or [float(lv["y"]) for lv in levels if float(lv["y"]) > 0],
                 "not run"):
        legend_names.append("not run (hover: why)")
    # the legend below the plot: estimate its rows from the names' lengths (about 7 px a character at 12 px type,
    # for a chart about 900 px wide) and make the figure that much taller
    width = max(len(nm) for nm in legend_names) * 7 + 50
    per_row = max(1, 900 // width)
    rows = -(-len(legend_names) // per_row)
    legend_px = 26 * rows + 10
    top, bottom = 80, 60  # title (two lines with a subtitle) and the x-axis title
    fig.update_layout(title=title, xaxis_title=x_title, yaxis_title=y_title, template="plotly_white",
                      height=top + plot_height + bottom + legend_px,
                      legend=dict(orientation="h", yanchor="top", y=-bottom / plot_height, x=0, xanchor="left",
                                  entrywidth=width, font=dict(size=12), tracegroupgap=0),
                      margin=dict(t=top, b=bottom + legend_px, l=60, r=20))
    fig.update_xaxes(type="log")
    fig.update_yaxes(type="log")
    return readable_log_axes(fig)
