r"""The live views: for each kind of :data:`~dpviz_ui.lessons.model.VIEWS`, the numbers of a step (``values``), what
the screen lists (``numbers``), a formula, a status and a figure, all computed now with dpviz at the step's state.
:func:`live` is the one entry point (the page runs the heavy kinds in the worker pool); :func:`chart` draws a curve
view's chart or a view of :data:`LATE_FIGURES` after its numbers.

Imports :mod:`.model` and :mod:`.curves`.
"""

from __future__ import annotations

from typing import Any, Callable

from dpviz_ui.lessons.curves import _CURVES, _curve_figure, _logspace, animated_figure
from dpviz_ui.lessons.model import Step, _fmt, _only, _smallest_feasible_eps, _txt, params_of


def _sup(x: float) -> str:
    """An exponent as superscript characters (ε⁻¹), for chart text where no LaTeX is drawn."""
    return f"{x:g}".translate(str.maketrans("-0123456789.", "⁻⁰¹²³⁴⁵⁶⁷⁸⁹·"))


def _plain(x) -> str:
    """A number for chart text (titles, legends): 4 significant digits, powers of ten as 10⁻⁶, never LaTeX."""
    if isinstance(x, (int, float)) and not isinstance(x, bool) and x != 0 and (abs(x) < 1e-3 or abs(x) >= 1e5):
        import math

        k = math.floor(math.log10(abs(x)))
        m = x / 10.0**k
        return f"10{_sup(k)}" if abs(m - 1) < 5e-4 else f"{m:.4g}·10{_sup(k)}"
    return _txt(x)


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
    for key, label in (("sigma_paper", "the paper's σ"), ("accountant_sigma", "RDP accountant's σ"),
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
    status = (("warning", "Private only as the paper claims, not certified by dpviz end to end: "
                          + str(ex.get("privacy_check", "")) + ".")
              if cal.feasible and ex.get("privacy_certified") is False else
              ("success", "Private: (ε, δ)-DP by dpviz's tightest check. " + str(ex.get("privacy_check", "")))
              if cal.feasible else ("error", f"Not private here: {cal.reason.rstrip('.')}."
                                    + (f" Fix: {cal.fix.rstrip('.')}." if cal.fix else "")))
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
        who = _ACCOUNTANT_NAMES.get(row["name"], row["name"])
        values["matched_sigma"] = row["sigma_for_eps"]
        values["matched_eps_of_paper_sigma"] = row["eps_of_paper_sigma"]
        values["matched_name"] = who
        numbers.append((f"σ the {who} accountant needs", row["sigma_for_eps"]))
        numbers.append((f"ε the {who} accountant gives the paper's σ", row["eps_of_paper_sigma"]))
    if values.get("matched_sigma") and res["paper_sigma"]:
        values["ratio"] = res["paper_sigma"] / values["matched_sigma"]
        numbers.append(("paper's σ / accountant's σ", values["ratio"]))
    # the closed form is plain text (σ² = 14G²T/...): a note, never KaTeX
    notes = ([f"The paper's σ: {res['closed_form']['formula']}."] if res["closed_form"].get("formula") else []) \
        + list(res["notes"])[:2]
    return {"values": values, "numbers": numbers, "tex": "", "status": None, "notes": notes, "figure": None,
            "curve": None}


#: the accountants' names on screen (dpviz.labs.privacy_lab's ``name``); only the analytic Gaussian one is exact
_ACCOUNTANT_NAMES = {"rdp": "RDP", "pld": "PLD", "analytic-gaussian": "exact analytic-Gaussian"}


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
    fig.update_layout(title=f"σ each accountant needs for (ε, δ) = ({_plain(res['eps'])}, {_plain(res['delta'])})",
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
                             name=f"privacy term's rate ε{_sup(privacy_exp)}, scaled to the first point"))
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
    from dpviz.labs import canary_audit

    m = canary_audit.evaluation_trials_per_side(state["aud_trials"])
    val = canary_audit.max_certifiable(m, 1e-5)
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
