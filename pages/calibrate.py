"""Calibrate: noise level, feasibility and the formula for one algorithm."""

import numpy as np
import streamlit as st

import dpviz_ui as ui
from dpviz import catalog, figures, simulate as S


def body() -> None:
    st.title("Calibrate the noise")
    algs = [a for a in catalog.algorithms() if a.calibrate is not None]
    if not algs:
        st.info("No private algorithm is in the catalogue yet.")
        return
    labels = {a.id: f"{a.paper.short} — {a.name} ({a.place})" for a in algs}
    alg_id = ui.view_choice("Algorithm (grouped by paper)", "algorithm", labels, format_func=labels.get,
                            help="Which private algorithm to calibrate.")
    alg = catalog.get_algorithm(alg_id)
    needed = set(catalog.parameters_of(alg.calibrate))
    loss_id, shown = ui.loss_picker(alg.setting)
    params = ui.param_widgets(ui.sidebar_names(shown, loss_id),
                              required=needed | ({"log10_delta"} if "delta" in needed else set()))
    params = ui.apply_loss(params, loss_id, shown)
    thms = [t for t in catalog.theorems() if t.algorithm == alg_id]
    complexity = None
    if thms:
        src = ui.view_choice("T and η from", "schedule", ["manual"] + [t.id for t in thms],
                             format_func=lambda i: "manual (sidebar)" if i == "manual" else
                             f"{catalog.get_theorem(i).paper.short}, {catalog.get_theorem(i).number}",
                             help="Use the step size and number of iterations the theorem prescribes, or your own.")
        if src != "manual":
            if catalog.get_theorem(src).discrepancy:
                st.warning(f"Reading of the paper: {catalog.get_theorem(src).discrepancy}")
            b = ui.cached_bound(src, ui.items(params))
            if "error" in b:
                st.error(b["error"])
            else:
                for key in ("T", "eta"):
                    if b["ok"][key] is not None:
                        params[key] = max(1, int(round(b["ok"][key]))) if key == "T" else float(b["ok"][key])
                complexity = b["ok"].get("gradient_complexity")
                st.caption(f"Theorem's schedule: T = {ui.fmt(params['T'])}, η = {ui.fmt(params['eta'])}"
                           f" (the paper's free constant c = {ui.fmt(params['c'])})")
    if alg.description:
        st.caption(alg.description)
    # the sidebar's c is the free constant of the theorems' rates; calibrations that take a c (Kang et al.'s eq. (2))
    # calibrate it numerically unless it is given on purpose, so it is not passed on here
    params = {k: val for k, val in params.items() if k != "c"}
    res = ui.cached_calibrate(alg_id, ui.items(params))
    if "error" in res:
        st.error(res["error"])
        return
    cal = res["ok"]
    cols = st.columns(5)
    if cal.get("sigma") is not None:
        cols[0].metric("σ (Gaussian noise)", ui.fmt(cal["sigma"]))
    elif cal.get("laplace_scale") is not None:
        cols[0].metric("Laplace scale", ui.fmt(cal["laplace_scale"]))
    else:
        cols[0].metric("σ (Gaussian noise)", "—")
    cols[1].metric("β", ui.fmt(cal.get("beta")))
    T_shown = cal.get("T") if cal.get("T") is not None else params.get("T")
    eta_shown = cal.get("eta") if cal.get("eta") is not None else params.get("eta")
    cols[2].metric("η", ui.fmt(eta_shown))
    cols[3].metric("T", ui.fmt(T_shown))
    if complexity is None and T_shown is not None and alg.id in S.SPECS:
        complexity = S.gradient_evaluations(alg.id, n=params["n"], T=int(T_shown))
    cols[4].metric("gradient evaluations", ui.fmt(complexity),
                   help="Gradient complexity: (pair-)gradients computed in total, from the theorem's schedule "
                        "or else counted for the algorithm's update rule: one per SGD step, n per full-gradient step, "
                        "n(n − 1) per full pairwise-gradient step.")
    if cal.get("beta_interval"):
        lo, hi = cal["beta_interval"]
        half = cal.get("beta_half")
        st.write(f"Feasible β interval: [{ui.fmt(lo)}, {ui.fmt(hi)}]; β minimising σ: {ui.fmt(cal.get('beta'))}"
                 + (f"; feasible β closest to 1/2 (Wang, Lei, Ying & Zhang, Remark 4): {ui.fmt(half)}"
                    if half is not None else ""))
    if cal.get("extras", {}).get("accountant_sigma") is not None:
        st.write(f"A tight numerical accountant (RDP, dp-accounting) needs σ = "
                 f"{ui.fmt(cal['extras']['accountant_sigma'])} for the same (ε, δ), n and T.")
        if cal["extras"].get("accountant_note"):
            st.caption(cal["extras"]["accountant_note"])
    if cal.get("sigma_schedule"):
        sched = cal["sigma_schedule"]
        st.write("Noise per epoch:")
        st.dataframe([{"epoch": i + 1, "σ_i": s_} for i, s_ in enumerate(sched)], width="content",
                     hide_index=True)
    if cal["feasible"]:
        st.success("Feasible: these settings satisfy the paper's privacy conditions.")
    else:
        st.warning(f"Infeasible: {cal.get('reason', '')}")
        if cal.get("fix"):
            st.info(f"What would fix it: {cal['fix']}")
    if cal.get("formula"):
        st.latex(cal["formula"])
    if cal.get("formula_numbers"):
        st.latex(cal["formula_numbers"])
    for note in cal.get("notes", []):
        st.caption(note)

    beta_plot(alg, params, cal)
    if cal.get("beta_interval") is not None or not cal["feasible"]:  # only where feasibility depends on (n, ε)
        feasibility_map(alg_id, params)

    # sigma (or Laplace scale) vs eps for every private algorithm at these settings
    eps_grid = [float(e) for e in np.logspace(-2, 1, 25)]
    series = {}
    same = [a for a in algs if a.setting == alg.setting]  # the algorithms applicable to this kind of loss
    with st.spinner("Calibrating every algorithm along the ε grid…"):
        curves = {a.id: ui.cached_noise_series(a.id, ui.items(params), "eps", tuple(eps_grid)) for a in same}
    for a in same:
        ys = curves[a.id]
        if any(y is not None for y in ys):
            series[f"{a.paper.short}: {a.name}"] = ys
    if series:
        fig = figures.line_figure(eps_grid, series,
                                  title=f"Noise level vs ε of every {alg.setting} algorithm (smaller ε = more private)",
                                  x_title="ε", y_title="σ or Laplace scale", slope_labels=True)
        ui.show_figure(fig, "sigma_vs_eps")
    else:
        st.info("No algorithm is feasible on the ε grid at these settings.")


def beta_plot(alg, params, cal) -> None:
    """σ(β) with the feasible band, for calibrations that choose a Rényi order parameter β."""
    if cal.get("beta_interval") is None:
        return
    lo, hi = cal["beta_interval"]
    # log-spaced down to the feasible interval's lower end (it can lie far below 1e-4 at large n·ε)
    start = min(1e-3, lo / 3) if lo > 0 else 1e-3
    betas = sorted({float(b) for b in np.concatenate([np.logspace(np.log10(start), np.log10(0.5), 50),
                                                       1.0 - np.logspace(np.log10(0.5), -4, 30)])})
    keys = {k: params[k] for k in ("n", "eps", "delta", "T", "G")}
    sig = ui.cached_sigma_of_beta(ui.items(keys), tuple(betas), alg.setting == "pairwise")
    ui.show_figure(figures.sigma_beta_figure(betas, sig, (lo, hi), title="σ as a function of β (log axis)",
                                            log_x=True), "sigma_beta")


def feasibility_map(alg_id, params) -> None:
    """Where in the (n, ε) plane the calibration is feasible (T = n, δ = 1/n², as in Wang, Lei, Ying & Zhang Fig. 1)."""
    with st.expander("Feasibility map in the (n, ε) plane"):
        ns = [int(x) for x in np.logspace(1.3, 5, 14)]
        epss = [float(e) for e in np.logspace(-2, 1.3, 14)]
        feas = ui.cached_feasibility_grid(alg_id, ui.items(params), tuple(ns), tuple(epss))
        boundary = None
        try:
            from dpviz.papers import wang_nonsmooth as wn

            bn = [n for n in ns if n >= 18]
            boundary = (bn, [wn.lemma13_eps_threshold(n) for n in bn])
        except (ImportError, ValueError):
            pass
        fig = figures.feasibility_map_figure(
            ns, epss, feas, boundary=boundary, boundary_name="Wang, Lei, Ying & Zhang Lemma 13 sufficient ε",
            title="Feasible settings (green) with T = n, δ = 1/n²")
        ui.show_figure(fig, "feasibility_map")
        st.caption("Lemma 13's curve is the sufficient condition for DP-SGD with Rényi accounting (Fig. 1 of "
                   "Wang, Lei, Ying & Zhang); it is not sufficient for 18 <= n < 44.")


ui.guarded(body)
