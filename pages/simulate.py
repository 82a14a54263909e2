"""Simulate: run the engine over a sweep of eps or n and compare with the theory."""

import math

import numpy as np
import plotly.graph_objects as go
import streamlit as st

import dpviz_ui as ui
from dpviz import catalog, data as D, simulate as S


def body() -> None:
    st.title("Simulate")
    v = ui.view()
    params = ui.param_widgets(["n", "log10_delta", "T", "eta", "R"], required={"n", "T", "eta", "R"})
    src = st.radio("Data", ["bundled", "csv"], horizontal=True,
                   format_func={"bundled": "synthetic / bundled real data", "csv": "upload a CSV"}.get)
    if src == "csv":
        up = st.file_uploader("CSV file (numeric columns, max 5 MB)", type=["csv"],
                              help="One label column; features are standardised and scaled to norm <= 1.")
        label = st.text_input("Label column", help="Name of the column holding the label / target.")
        if up is None or not label:
            st.info("Upload a CSV and name its label column.")
            return
        if up.size > D.MAX_CSV_BYTES:
            st.error(f"The file is larger than {D.MAX_CSV_BYTES // 1_000_000} MB.")
            return
        ds = D.from_csv(up.getvalue(), label)
    else:
        name = st.selectbox("Data set", list(D.DATASETS), format_func=lambda k: D.DATASETS[k])
        ds = D.load_dataset(name, n=max(int(params["n"]), 1000) if name.startswith(("wang", "two", "clu")) else None)
    loss = st.selectbox("Loss", ["least-squares", "logistic"],
                        help="Least squares and logistic loss are smooth (α = 1).")
    algs = [a for a in S.supported_algorithms()]
    alg_ids = st.multiselect("Algorithm(s)", algs, default=algs[:1],
                             format_func=lambda i: catalog.get_algorithm(i).name)
    sweep = st.radio("Sweep over", ["eps", "n"], horizontal=True,
                     format_func={"eps": "ε (smaller = more private)", "n": "sample size n"}.get)
    if sweep == "eps":
        grid = [0.25, 0.5, 1.0, 2.0, 4.0]
    else:
        top = min(ds.n, int(params["n"]))
        grid = sorted({max(20, int(top / 2**k)) for k in range(4, -1, -1)})
    reps = st.number_input("Repetitions", 1, 500, 20, help="Independent runs per grid point (for the 95 % band).")
    seed = st.number_input("Seed", 0, 2**31 - 1, 0, help="Same seed, same results.")
    fixed = {"T": params["T"], "eta": params["eta"], "R": params["R"], "delta": params["delta"]}
    if sweep == "eps":
        fixed["n"] = min(ds.n, int(params["n"]))
    if not alg_ids:
        st.warning("Choose at least one algorithm.")
        return
    for a in alg_ids:
        cost = S.estimate_cost(a, ds, loss, grid={sweep: grid}, reps=int(reps), params=fixed)
        st.caption(f"{catalog.get_algorithm(a).name}: estimated {cost['seconds']:.1f} s")
    if not st.button("Run simulation", type="primary"):
        return
    bar = st.progress(0.0, text="running…")
    fig = go.Figure()
    rows = []
    for k, a in enumerate(alg_ids):
        try:
            res = S.simulate(a, ds, loss, grid={sweep: grid}, reps=int(reps), seed=int(seed), params=fixed,
                             progress=lambda f, k=k: bar.progress(min(1.0, (k + f) / len(alg_ids))))
        except S.CostTooHigh as exc:
            st.error(f"Refused: {exc}")
            continue
        s = res.summary()
        x = [float(g) for g in s["grid"]]
        name = catalog.get_algorithm(a).name
        fig.add_trace(go.Scatter(x=x + x[::-1], y=list(s["ci_high"]) + list(s["ci_low"])[::-1], fill="toself",
                                 line=dict(width=0), opacity=0.25, name=f"{name}: 95 % band", showlegend=True))
        fig.add_trace(go.Scatter(x=x, y=list(s["mean"]), mode="lines+markers", name=f"{name}: empirical mean"))
        try:
            b = res.bounds()
            rate = list(b["bound"])
            ok = [(m, r) for m, r in zip(s["mean"], rate) if m > 0 and r > 0 and math.isfinite(r)]
            if ok:
                const = math.exp(np.mean([math.log(m / r) for m, r in ok]))
                fig.add_trace(go.Scatter(x=x, y=[const * r for r in rate], mode="lines", line=dict(dash="dash"),
                                         name=f"{name}: theory rate × fitted constant {const:.3g}"))
        except ValueError as exc:
            st.caption(str(exc))
        sl = res.slope()
        st.write(f"{name}: fitted log-log slope {sl['slope']:.2f} (95 % CI {sl['ci_low']:.2f} to {sl['ci_high']:.2f})")
        for note in res.notes:
            st.caption(note)
        rows.extend(res.frame.to_dict("records"))
    bar.progress(1.0, text="done")
    if fig.data:
        fig.update_layout(title=f"Excess risk vs {sweep}", xaxis_title=sweep, yaxis_title="excess risk",
                          template="plotly_white")
        fig.update_xaxes(type="log")
        fig.update_yaxes(type="log")
        ui.show_figure(fig, f"simulation_{sweep}")
        st.dataframe(rows[:500], width="stretch")
        ui.download_table(rows, "simulation")


ui.guarded(body)
