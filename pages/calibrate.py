"""Calibrate: noise level, feasibility and the formula for one algorithm."""

import numpy as np
import streamlit as st

import dpviz_ui as ui
from dpviz import catalog, figures


def body() -> None:
    st.title("Calibrate the noise")
    algs = [a for a in catalog.algorithms() if a.calibrate is not None]
    if not algs:
        st.info("No private algorithm is in the catalogue yet.")
        return
    v = ui.view()
    ids = [a.id for a in algs]
    labels = {a.id: f"{a.paper.short} — {a.name} ({a.place})" for a in algs}
    if v["algorithm"] not in ids:
        v["algorithm"] = ids[0]
    alg_id = st.selectbox("Algorithm (grouped by paper)", ids, index=ids.index(v["algorithm"]),
                          format_func=labels.get, help="Which private algorithm to calibrate.")
    ui.set_view(algorithm=alg_id)
    alg = catalog.get_algorithm(alg_id)
    needed = set(catalog.parameters_of(alg.calibrate))
    params = ui.param_widgets(ui.NUMERIC, required=needed | ({"log10_delta"} if "delta" in needed else set()))
    if alg.description:
        st.caption(alg.description)
    res = ui.cached_calibrate(alg_id, ui.items(params))
    if "error" in res:
        st.error(res["error"])
        return
    cal = res["ok"]
    cols = st.columns(4)
    if cal.get("sigma") is not None:
        cols[0].metric("σ (Gaussian noise)", ui.fmt(cal["sigma"]))
    if cal.get("laplace_scale") is not None:
        cols[0].metric("Laplace scale", ui.fmt(cal["laplace_scale"]))
    cols[1].metric("β", ui.fmt(cal.get("beta")))
    cols[2].metric("η", ui.fmt(cal.get("eta")))
    cols[3].metric("T", ui.fmt(cal.get("T")))
    if cal.get("beta_interval"):
        lo, hi = cal["beta_interval"]
        st.write(f"Feasible β interval: [{ui.fmt(lo)}, {ui.fmt(hi)}]")
    if cal.get("sigma_schedule"):
        st.line_chart(cal["sigma_schedule"])
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

    # sigma (or Laplace scale) vs eps for every private algorithm at these settings
    eps_grid = [float(e) for e in np.logspace(-2, 1, 25)]
    series = {}
    for a in algs:
        ys = []
        for e in eps_grid:
            r = ui.cached_calibrate(a.id, ui.items({**params, "eps": e}))
            c = r.get("ok") or {}
            val = c.get("sigma") if c.get("sigma") is not None else c.get("laplace_scale")
            ys.append(val if c.get("feasible") else None)
        if any(y is not None for y in ys):
            series[f"{a.paper.short}: {a.name}"] = ys
    if series:
        fig = figures.line_figure(eps_grid, series, title="Noise level vs ε (smaller ε = more private)",
                                  x_title="ε", y_title="σ or Laplace scale", slope_labels=True)
        ui.show_figure(fig, "sigma_vs_eps")
    else:
        st.info("No algorithm is feasible on the ε grid at these settings.")


ui.guarded(body)
