"""Pure helpers of the Audit page: its link parameters (``aud_*``) and its Plotly figures (no streamlit here)."""

from __future__ import annotations

import math
import os
from typing import Any

import numpy as np

from dpviz.foundation.urlstate import parse_number

__all__ = ["PAGE_ALGORITHMS", "STABILITY_ALGORITHMS", "SCHEMA", "DEFAULTS", "state_from_query", "encode",
           "params_of", "statistic_figure", "distance_figure", "trace_figure", "parse_values", "sweep_figure",
           "VALUES_KEY", "OVER_LABELS", "estimate", "preview", "HEAVY_SECONDS", "ANALYSIS_KEYS", "method_result",
           "tradeoff_curves"]

#: Algorithms the page offers (vector parameters; they run with the lab's default data and loss).
PAGE_ALGORITHMS = ["dpsgd-rdp", "dpsgd-pl", "dpsgd-output", "dpsgd-rdp-pairwise", "pairwise-sgd-output", "sgd",
                   "pairwise-sgd", "pidp-sgd", "dpgd-sc", "dpgd-c", "dpgdc", "dp-epoch-gd"]
#: pairwise algorithms: the audit can also run them on metric learning (a matrix parameter W)
PAIRWISE = ["dpsgd-rdp-pairwise", "pairwise-sgd-output", "pairwise-sgd", "dpgd-sc", "dpgd-c", "dpgdc", "dp-epoch-gd"]
STABILITY_ALGORITHMS = ["dpsgd-rdp", "dpsgd-pl", "dpsgd-output", "pairwise-sgd-output", "sgd", "pairwise-sgd",
                        "dpgd-sc", "dpgdc", "dp-epoch-gd", "dpgd-c"]
NOISE = ["calibrated", "experiment", "custom"]

#: name -> (kind, default, (lo, hi) or options)
SCHEMA: dict[str, tuple[str, Any, Any]] = {
    "aud_mode": ("choice", "audit", ["audit", "stability"]),
    "aud_alg": ("choice", "dpsgd-rdp", PAGE_ALGORITHMS),
    "aud_noise": ("choice", "experiment", NOISE),
    "aud_sigma": ("float", 1.0, (0.0, 1e6)),
    "aud_n": ("int", 100, (10, 5000)),
    "aud_T": ("int", 100, (1, 100_000)),
    "aud_eta": ("float", 0.1, (1e-6, 10.0)),
    "aud_eps": ("float", 1.0, (1e-3, 100.0)),
    "aud_trials": ("int", 2000, (8, 200_000)),
    "aud_reps": ("int", 200, (2, 100_000)),
    "aud_seed": ("int", 0, (0, 2**31 - 1)),
    # how the audit's lower bound is certified, and the planner's target (dpviz.labs.audit_methods and audit_planner; page-side only: changing
    # them re-analyses the same trials, it never re-runs them)
    "aud_method": ("choice", "clopper-pearson", ["clopper-pearson", "gdp", "one-run"]),
    "aud_target": ("float", 0.5, (1e-3, 100.0)),
    "aud_nb": ("choice", "random", ["random", "adversarial"]),
    "aud_param": ("choice", "vector", ["vector", "matrix"]),
    # stability along t (the default) or over a grid of n, eta or the loss's Hölder exponent alpha
    "aud_over": ("choice", "t", ["t", "n", "eta", "alpha"]),
    "aud_vn": ("list", "50,100,200,400", ("int", 10, 5000)),
    "aud_veta": ("list", "0.02,0.05,0.1,0.2", ("float", 1e-6, 10.0)),
    "aud_valpha": ("list", "0.25,0.5,0.75,1", ("float", 1e-6, 1.0)),
}
#: the list parameter holding the grid of each sweep
VALUES_KEY = {"n": "aud_vn", "eta": "aud_veta", "alpha": "aud_valpha"}
OVER_LABELS = {"t": "along t", "n": "over n", "eta": "over η", "alpha": "over α (Hölder exponent)"}
DEFAULTS = {k: spec[1] for k, spec in SCHEMA.items()}


def validate(name: str, raw) -> Any:
    """The value of link parameter ``name`` from its text; ValueError with a readable message if out of range."""
    if name not in SCHEMA:
        raise ValueError(f"unknown parameter {str(name)[:30]!r}")
    kind, _, rng = SCHEMA[name]
    if kind == "list":
        return ",".join(_fmt(x) for x in parse_values(name, raw))
    text = str(raw).strip()[:40]
    if kind == "choice":
        if text not in rng:
            raise ValueError(f"{name} must be one of {', '.join(rng)}, got {text!r}")
        return text
    try:
        x = float(text)
    except ValueError:
        raise ValueError(f"{name} must be a number, got {text!r}") from None
    if not math.isfinite(x) or not rng[0] <= x <= rng[1]:
        raise ValueError(f"{name} must lie in [{rng[0]:g}, {rng[1]:g}], got {text!r}")
    if kind == "int":
        if x != int(x):
            raise ValueError(f"{name} must be a whole number, got {text!r}")
        return int(x)
    return x


def _fmt(x) -> str:
    return str(x) if isinstance(x, int) else f"{x:g}"


def parse_values(name: str, raw) -> list:
    """The numbers of list parameter ``name`` (comma- or space-separated text, 1 to 12 distinct values in its range,
    sorted); ValueError with a readable message otherwise."""
    kind, lo, hi = SCHEMA[name][2]
    text = str(raw)[:200]
    parts = [t for t in text.replace(";", ",").replace(" ", ",").split(",") if t.strip()]
    what = {"aud_vn": "values of n", "aud_veta": "values of η", "aud_valpha": "values of α"}.get(name, name)
    if not parts or len(parts) > 12:
        raise ValueError(f"{what}: give 1 to 12 comma-separated numbers")
    out = []
    for t in parts:
        try:
            x = float(parse_number(t))  # 6e4, 1.5e5, −0.5 (commas and spaces separate the values here)
        except ValueError:
            raise ValueError(f"{what}: {t.strip()[:20]!r} is not a number (values are separated by commas or "
                             "spaces: write 1000 or 1e3, not 1,000)") from None
        if not math.isfinite(x) or not lo <= x <= hi:
            raise ValueError(f"{what}: every value must lie in [{lo:g}, {hi:g}], got {t.strip()[:20]!r}")
        if kind == "int":
            if x != int(x):
                raise ValueError(f"{what}: {x:g} is not a whole number")
            x = int(x)
        out.append(x)
    return sorted(set(out))


def state_from_query(query: dict[str, Any]) -> tuple[dict[str, Any], list[str]]:
    """The page state from the link's ``aud_*`` parameters (others are ignored), and messages about bad ones."""
    state, problems = dict(DEFAULTS), []
    for name, raw in query.items():
        if not str(name).startswith("aud_"):
            continue
        try:
            state[name] = validate(name, raw)
        except ValueError as exc:
            problems.append(f"ignored link parameter: {exc}")
    return state, problems


def encode(state: dict[str, Any]) -> dict[str, str]:
    """Link parameters for the entries that differ from the defaults."""
    out = {}
    for k, val in state.items():
        if k in SCHEMA and SCHEMA[k][0] == "list":
            try:
                val = validate(k, val)  # normalised (sorted, distinct); a list being typed that is invalid: skipped
            except ValueError:
                continue
            if val != validate(k, DEFAULTS[k]):
                out[k] = val
        elif k in SCHEMA and val != DEFAULTS[k]:
            out[k] = repr(float(val)) if SCHEMA[k][0] == "float" else str(val)
    return out


def params_of(state: dict[str, Any]) -> dict[str, Any]:
    """Engine parameters (``dpviz.engine.simulate`` / ``dpviz.labs.canary_audit.default_setting``) of a page state."""
    p: dict[str, Any] = {"n": state["aud_n"], "T": state["aud_T"], "eta": state["aud_eta"], "eps": state["aud_eps"]}
    if state.get("delta") is not None:  # δ given by the dashboard's shared view (else the engine's 1/n²)
        p["delta"] = state["delta"]
    if state["aud_noise"] == "experiment":
        p["noise_rule"] = "experiment"
    elif state["aud_noise"] == "custom":
        p["sigma"] = state["aud_sigma"]
    return p


#: page-side entries: not part of the computation's key (the same trials are re-analysed)
ANALYSIS_KEYS = ("aud_method", "aud_target")


def method_result(res, method: str, level: float = 0.95, seed: int = 0) -> dict[str, Any]:
    """The audit result ``res`` (:class:`dpviz.labs.canary_audit.AuditResult`) certified by ``method`` on its chosen statistic:
    ``{"eps_lower", "detail", "assumption", "citation", "point"}``; ``point`` is the evaluation half's (FPR, FNR) with
    both rates' Clopper–Pearson intervals, for :func:`dpviz.foundation.privacy_figures.tradeoff_figure`."""
    from dpviz.labs import canary_audit as aud, audit_methods as am

    neg, pos = res.samples[res.statistic]
    m = res.trials // 2 - (res.trials // 2) // 2  # the evaluation half of each side (dpviz.labs.canary_audit.distinguish)
    fp, fn = round(res.fpr * m), round(res.fnr * m)
    flo, fhi = aud.clopper_pearson(fp, m, level)
    nlo, nhi = aud.clopper_pearson(fn, m, level)
    point = {"fpr": res.fpr, "fnr": res.fnr, "fpr_lo": flo, "fpr_hi": fhi, "fnr_lo": nlo, "fnr_hi": nhi,
             "name": f"measured (FPR, FNR), {m} evaluation trials per side"}
    if method == "gdp":
        g = am.gdp_audit(neg, pos, delta=res.delta, level=level)
        eps, detail = g.eps_lower, (f"μ ≥ {g.mu_lower:.4g} (95 %) from FPR ≤ {g.fpr_upper:.4g}, FNR ≤ "
                                     f"{g.fnr_upper:.4g}; fitted μ = {g.mu_fit:.3g} ({g.mu_fit_interval[0]:.3g} – "
                                     f"{g.mu_fit_interval[1]:.3g})")
    elif method == "one-run":
        r = am.one_run_from_trials(neg, pos, delta=res.delta, level=level, seed=seed)
        eps, detail = r.eps_lower, f"{r.m} canaries, {r.correct} of {r.guesses} guesses right"
    else:
        eps, detail = res.eps_lower, f"FPR ≤ {res.fpr_upper:.4g}, FNR ≤ {res.fnr_upper:.4g} (95 %)"
    return {"eps_lower": float(eps), "detail": detail, "assumption": am.ASSUMPTIONS[method],
            "citation": am.CITATIONS[method], "point": point}


def statistic_figure(on_d, on_d2, threshold: float, name: str, matrix: bool = False, detail: str | None = None):
    """Histograms of the test statistic on D and on D' with the chosen threshold (<w, u>, or u^T W u for a matrix;
    ``detail``: the statistic in plain words, :data:`dpviz.labs.canary_audit.STATISTICS`, for the others)."""
    import plotly.graph_objects as go

    fig = go.Figure()
    # D and D′ in colours that stay apart (blue / orange, also for colour-blind readers), the threshold in black
    fig.add_trace(go.Histogram(x=np.asarray(on_d), name="trained on D", opacity=0.55, nbinsx=60,
                               marker_color="#1f77b4"))
    fig.add_trace(go.Histogram(x=np.asarray(on_d2), name="trained on D′ = D + canary", opacity=0.55, nbinsx=60,
                               marker_color="#ff7f0e"))
    fig.add_vline(x=threshold, line_dash="dash", line_color="black", annotation_text="test threshold")
    if name in ("output", "last", "average"):
        stat = "uᵀWu" if matrix else "⟨w, u⟩"
        what = f"{stat} ({'metric' if matrix else 'projection'} of the {name} along the canary direction u)"
    else:
        stat = "score"
        what = f"“{name}”" + (f": {detail}" if detail and len(detail) <= 90 else "")
    title = (f"How often each value of the test statistic {what} occurred:<br>trainings on D vs on D′ — the more "
             "the two histograms are apart, the larger the ε the audit certifies")
    fig.update_layout(barmode="overlay", title=dict(text=title, font=dict(size=14)), xaxis_title=stat,
                      yaxis_title="number of trainings", margin=dict(t=80))
    return fig


def distance_figure(distances, bound: float, what: str):
    """Histogram of the measured distances over repetitions with the paper's bound."""
    import plotly.graph_objects as go

    d = np.asarray(distances)
    if d.size and float(np.ptp(d)) <= 1e-9 * float(np.max(np.abs(d))):
        # every repetition gave the same distance (a deterministic path): the value beside the bound, log scale
        x = [float(d[0])] + ([float(bound)] if math.isfinite(bound) else [])
        fig = go.Figure(go.Scatter(x=x, y=["distance"] * len(x), mode="markers+text", marker={"size": 14,
                                   "color": ["#1f77b4", "red"][:len(x)]},
                                   text=[f"measured {x[0]:.4g}"] + ([f"bound {bound:.4g}"] if len(x) > 1 else []),
                                   textposition="top center", showlegend=False))
        positive = [v for v in x if v > 0]
        fig.update_layout(title=f"Measured {what} (the same in every repetition) and the bound", xaxis_title=what,
                          xaxis_type="log" if len(positive) == len(x) else None, height=300)
        return fig
    fig = go.Figure(go.Histogram(x=d, nbinsx=50, name="measured"))
    if math.isfinite(bound):
        fig.add_vline(x=bound, line_dash="dash", line_color="red", annotation_text="bound")
    fig.update_layout(title=f"Measured {what} over repetitions", xaxis_title=what, yaxis_title="repetitions",
                      xaxis_type="log" if d.min() > 0 and math.isfinite(bound) and bound / d.min() > 100 else None)
    return fig


def trace_figure(t, qmax, q50, bound=None, label="Yang et al. Theorem 1, eq. (3)"):
    """||w_t − w'_t|| along t (max and median over repetitions), with the paper's bound along t where there is one
    (``label``: Yang et al. eq. (3); Xue et al. Lemma 1's eq. (4) unrolled or Lemma 7's eq. (7))."""
    import plotly.graph_objects as go

    fig = go.Figure()
    fig.add_trace(go.Scatter(x=t, y=qmax, name="max over repetitions"))
    fig.add_trace(go.Scatter(x=t, y=q50, name="median"))
    if bound is not None:
        fig.add_trace(go.Scatter(x=t, y=bound, name=label, line={"dash": "dash"}))
    fig.update_layout(title="Distance of the coupled iterates ||w_t − w'_t|| along t", xaxis_title="t",
                      yaxis_title="distance", yaxis_type="log")
    return fig


def sweep_figure(rows, over: str, quantity: str):
    """Measured distance (max, q95, median over repetitions) and the theorem's bound at every grid value, log scale;
    the ratio bound / measured max on a second axis."""
    import plotly.graph_objects as go

    x = [r["value"] for r in rows]
    name = {"n": "n", "eta": "η", "alpha": "α"}[over]
    fig = go.Figure()
    fig.add_trace(go.Scatter(x=x, y=[r["bound"] for r in rows], name="bound", mode="lines+markers",
                             line={"dash": "dash", "color": "red"}))
    fig.add_trace(go.Scatter(x=x, y=[r["max"] for r in rows], name="measured max", mode="lines+markers",
                             line={"color": "#1f77b4"}))
    fig.add_trace(go.Scatter(x=x, y=[r["q95"] for r in rows], name="measured q95", mode="lines+markers",
                             line={"color": "#2ca02c"}))
    fig.add_trace(go.Scatter(x=x, y=[r["q50"] if r["q50"] > 0 else None for r in rows],
                             name="measured median", mode="lines+markers", line={"color": "#9467bd"}))
    fig.add_trace(go.Scatter(x=x, y=[r["ratio"] for r in rows], name="bound / measured max", yaxis="y2",
                             mode="lines+markers", line={"dash": "dot", "color": "gray"}))
    what = "gradient sensitivity" if quantity == "gradient" else f"distance of the {quantity} outputs"
    ratios = [r["ratio"] for r in rows if r["ratio"] is not None and math.isfinite(r["ratio"]) and r["ratio"] > 0]
    wide = bool(ratios) and max(ratios) / min(ratios) > 10
    fig.update_layout(title=f"Measured {what} and the bound over {name}",
                      yaxis={"title": "distance", "type": "log"},
                      yaxis2={"title": "bound / measured", "overlaying": "y", "side": "right",
                              "type": "log" if wide else "linear", "showgrid": False, "rangemode": "tozero"},
                      xaxis={"title": name, "type": "log" if over in ("n", "eta") else "linear",
                             "tickvals": x, "ticktext": [f"{v:g}" for v in x]}, legend={"orientation": "h", "y": -0.2})
    return fig


def compute(state: dict, *, progress=None):
    """The Audit page's result for a page state: a stability sweep, an audit or a stability run.

    A module-level function of a plain dict, so that the page can run it in the shared worker pool
    (:mod:`dpviz_ui.workers`); ``progress`` receives the fraction done.
    """
    from dpviz.labs import canary_audit as aud, stability as stab

    over = state["aud_over"] if state["aud_mode"] == "stability" else "t"
    values = parse_values(VALUES_KEY[over], state[VALUES_KEY[over]]) if over != "t" else None
    matrix = state["aud_mode"] == "audit" and state["aud_alg"] in PAIRWISE and state["aud_param"] == "matrix"
    ds, loss, params = aud.default_setting(state["aud_alg"], params_of(state),
                                           n_data=max(values) if over == "n" else None, matrix=matrix)
    if over != "t":
        return stab.stability_sweep(state["aud_alg"], ds, loss, over=over, values=values, params=params,
                                    reps=state["aud_reps"], seed=state["aud_seed"], neighbour=state["aud_nb"],
                                    progress=progress)
    if state["aud_mode"] == "audit":
        return aud.audit(state["aud_alg"], ds, loss, params=params, trials=state["aud_trials"],
                         seed=state["aud_seed"], progress=progress)
    return stab.stability(state["aud_alg"], ds, loss, params=params, reps=state["aud_reps"],
                          seed=state["aud_seed"], neighbour=state["aud_nb"], progress=progress)


def preview(state: dict) -> dict:
    """What the audit of a page state (audit mode) will report before any trial runs: the accountant's ε, the
    claimed ε, σ, δ and the most ε its trials can certify (:func:`dpviz.labs.canary_audit.preview`, the same plan as
    :func:`compute`'s audit, so the same numbers).  Raises ValueError where the audit would refuse the setting."""
    from dpviz.labs import canary_audit as aud

    if state["aud_mode"] != "audit":
        raise ValueError("the preview is of an audit (aud_mode = audit).")
    matrix = state["aud_alg"] in PAIRWISE and state["aud_param"] == "matrix"
    ds, loss, params = aud.default_setting(state["aud_alg"], params_of(state), matrix=matrix)
    return aud.preview(state["aud_alg"], ds, loss, params=params, trials=state["aud_trials"])


def _heavy_seconds() -> float:
    try:
        x = float(os.environ.get("DPVIZ_HEAVY_SECONDS", "") or 30.0)
    except ValueError:
        return 30.0
    return x if math.isfinite(x) and x >= 0 else 30.0


#: work estimated above this many CPU seconds waits for a click on the page, also when a link opens it (the same
#: 30 s as the Simulate page's cap, pages/simulate.py UI_MAX_WORK; an operator may set DPVIZ_HEAVY_SECONDS); below
#: it the page runs at once
HEAVY_SECONDS = _heavy_seconds()
#: the cost model's weights live with the audit (dpviz.labs.canary_audit.ESTIMATE_FACTOR, SECONDS_PER_TRIAL), so that the
#: command line's audit planner uses the same model without importing this page helper


def estimate(state: dict[str, Any]) -> dict[str, float]:
    """CPU seconds and peak bytes that :func:`compute` will take for a page state, estimated without running it
    (the engine's cost model, :func:`dpviz.engine.simulate.estimate_cost`'s units, weighted by what the page's jobs add).

    Returns ``{"seconds", "bytes", "units"}``.  Raises ValueError for a state :func:`compute` would refuse.
    """
    from dpviz.labs import canary_audit as aud, stability as stab
    from dpviz.engine import simulate as sim

    mode, alg = state["aud_mode"], state["aud_alg"]
    over = state["aud_over"] if mode == "stability" else "t"
    values = parse_values(VALUES_KEY[over], state[VALUES_KEY[over]]) if over != "t" else None
    matrix = mode == "audit" and alg in PAIRWISE and state["aud_param"] == "matrix"
    ds, loss, params = aud.default_setting(alg, params_of(state), n_data=max(values) if over == "n" else None,
                                           matrix=matrix)
    if mode == "audit":
        reps, grid = int(state["aud_trials"]) // 2, None
    else:
        reps = 2 if alg in stab.DETERMINISTIC_PATH else int(state["aud_reps"])
        grid = {over: values} if over in ("n", "eta") else None
    # the plan's T, n and which points run; not DP-SGD's comparison accountant σ, which no run uses (as
    # dpviz.engine.simulate.estimate_cost)
    plan_params = {"accountant_extra": False, **params}
    _, spec, _, _, reps, _, _, pshape, _, plans, _ = sim._plan(alg, ds, loss, grid, reps, plan_params)
    if not all(p["run"] for p in plans):
        bad = next(p for p in plans if not p["run"])
        raise ValueError(f"this setting does not run: {bad['cal'].reason}")
    dim = int(np.prod(pshape))
    units = 2 * sim._time_units(alg, spec, reps, pshape, plans, (), sim._EVAL_ROWS, ds)
    if mode == "stability":  # the monitor: one distance per chain and step, and a gradient gap where measured
        steps = sum(int(p["T"]) for p in plans)
        per_step = dim * (1 + (2 * int(plans[0]["n"]) if alg == "dpgd-c" else
                               2 if stab.SUPPORTED[alg][0] == "gradient" else 0))
        units += reps * steps * per_step
    if over == "alpha":
        units *= len(values)
    chains = 2 * reps * len(plans)
    bytes_ = 8 * chains * dim * 8 + 8 * 2 * ds.X.size * len(plans)
    if mode == "stability":
        bytes_ += 8 * 2 * max(int(p["T"]) for p in plans)
    seconds = units * sim.SECONDS_PER_UNIT * aud.ESTIMATE_FACTOR[mode, bool(spec.pairs)]
    if mode == "audit":
        extra = aud.monitor_units(alg, spec, reps, int(plans[0]["T"]), int(plans[0]["n"]), dim)
        seconds += aud.SECONDS_PER_TRIAL * 2 * reps + extra * sim.SECONDS_PER_UNIT
        units += extra
    return {"seconds": seconds, "bytes": float(bytes_), "units": float(units)}


def tradeoff_curves(eps_claimed, eps_accountant, delta: float, points: int = 201, mechanism: dict | None = None) -> dict:
    """The Audit page's trade-off curves (Dong, Roth & Su 2022): the claimed (ε, δ) line, the accountant's (ε, δ)
    line and the mechanism's own curve, ``name -> (α, β)``.  ``mechanism`` is the audit result's ``tradeoff``
    (:func:`dpviz.labs.privacy_lab.tradeoff_curve`: exact G_μ for Gaussian releases, the RDP → f-DP lower bound for
    sampling without replacement); without it, the μ-GDP curve with the accountant's (ε, δ) (exact for Gaussian
    releases only)."""
    from dpviz.labs import tradeoff as trade

    a = np.linspace(0.0, 1.0, points)
    out = {}
    if eps_claimed is not None:
        out[f"claimed ({eps_claimed:.3g}, {delta:.2g})-DP line"] = (a, trade.tradeoff_eps_delta(a, eps_claimed, delta))
    if eps_accountant is not None and eps_accountant > 0:
        out[f"accountant's ({eps_accountant:.3g}, {delta:.2g})-DP line"] = (
            a, trade.tradeoff_eps_delta(a, eps_accountant, delta))
        if not mechanism:
            mu = trade.gdp_mu_for(eps_accountant, delta)
            out[f"μ-GDP curve, μ = {mu:.3g} (same ε, δ; exact for Gaussian releases)"] = (a, trade.tradeoff_gdp(a, mu))
    if mechanism:
        kind = "exact curve" if mechanism.get("exact") else "valid lower bound"
        out[f"mechanism's {kind}: {mechanism['label']}"] = (np.asarray(mechanism["alpha"], float),
                                                             np.asarray(mechanism["beta"], float))
    return out
