"""Bounds: excess-risk bounds vs n and ε, stacked terms, comparison tables."""

import numpy as np
import streamlit as st

import dpviz_ui as ui
from dpviz import catalog, figures


def body() -> None:
    st.title("Risk bounds")
    thms = catalog.theorems()
    if not thms:
        st.info("No theorem is in the catalogue yet.")
        return
    v = ui.view()
    ids = [t.id for t in thms]
    labels = {t.id: f"{t.paper.short} — {t.number}" for t in thms}
    chosen = ui.view_multiselect("Theorems", "theorems", ids, fallback=ids[:1], format_func=labels.get,
                                 help="Each theorem bounds the excess population risk of one algorithm.")
    sweep = ui.view_choice("Sweep over", "sweep", ["n", "eps"], widget=st.radio, horizontal=True,
                           format_func={"n": "sample size n", "eps": "privacy budget ε (smaller = more private)"}.get,
                           help="x-axis of the stacked-terms plots; the totals are drawn against both n and ε.")
    needed = set()
    for t in chosen:
        needed |= set(catalog.parameters_of(catalog.get_theorem(t).bound))
    loss_id, shown = ui.loss_picker(None)
    params = ui.param_widgets(ui.sidebar_names(shown, loss_id),
                              required=needed | ({"log10_delta"} if "delta" in needed else set()))
    params = ui.apply_loss(params, loss_id, shown)
    if not chosen:
        st.warning("Choose at least one theorem.")
        return
    grids = {"n": [int(x) for x in np.unique(np.logspace(2, 7, 21).astype(int))],
             "eps": [float(e) for e in np.logspace(-2, 1, 21)]}
    grid = grids[sweep]
    totals = {}
    totals_other = {}
    other = "eps" if sweep == "n" else "n"
    for tid in chosen:
        thm = catalog.get_theorem(tid)
        st.subheader(labels[tid])
        if thm.statement:
            st.latex(thm.statement)
        if thm.discrepancy:
            st.warning(f"Reading of the paper: {thm.discrepancy}")
        for note in thm.notes:
            st.caption(note)
        here = ui.cached_bound(tid, ui.items(params))
        if "error" in here:
            st.error(here["error"])
            continue
        ok = here["ok"]
        st.write(f"Bound at the current parameters: **{ui.fmt(ok['total'])}** — step size η = {ui.fmt(ok['eta'])}, "
                 f"iterations T = {ui.fmt(ok['T'])}, gradient complexity {ui.fmt(ok['gradient_complexity'])}")
        st.dataframe([{"term": name, "value": val, "rate exponent of n": ne, "rate exponent of ε": ee}
                      for (name, val), (_n, _l, ne, ee) in zip(ok["terms"], ok["terms_latex"])],
                     hide_index=True, width="content")
        if thm.explicit_bound is not None:
            ex = ui.cached_bound(tid, ui.items(params), explicit=True)
            if "ok" in ex:
                st.write(f"With the paper's explicit constants: **{ui.fmt(ex['ok']['total'])}**")
            else:
                st.caption(f"Explicit-constant version not available here: {ex['error']}")
        for note in ok["notes"]:
            st.caption(note)
        series = ui.cached_bound_series(tid, ui.items(params), sweep, tuple(grid), bool(v["delta_auto"]))
        terms = {name: series["terms"].get(name, [None] * len(grid)) for name, _ in here["ok"]["terms"]}
        totals[labels[tid]] = series["total"]
        totals_other[labels[tid]] = ui.cached_bound_series(tid, ui.items(params), other, tuple(grids[other]),
                                                           bool(v["delta_auto"]))["total"]
        fig = figures.stacked_terms_figure(grid, terms, title=f"{labels[tid]}: terms vs {sweep}",
                                           x_title="n" if sweep == "n" else "ε")
        ui.show_figure(fig, f"terms_{tid}_{sweep}")
    if totals:
        fig = figures.line_figure(grid, totals, title=f"Bounds vs {sweep}", x_title="n" if sweep == "n" else "ε",
                                  y_title="bound", slope_labels=True)
        ui.show_figure(fig, f"bounds_{sweep}")
        fig = figures.line_figure(grids[other], totals_other, title=f"Bounds vs {other}",
                                  x_title="n" if other == "n" else "ε", y_title="bound", slope_labels=True)
        ui.show_figure(fig, f"bounds_{other}")

    st.header("The papers' comparison tables")
    for tab in catalog.tables():
        st.subheader(f"{tab.paper.short}, {tab.number}")
        st.caption(tab.caption)
        try:
            rows = tab.evaluate(**params)
        except ValueError as exc:
            st.error(str(exc))
            continue
        st.dataframe(rows, width="stretch")
        ui.download_table(rows, tab.id)


ui.guarded(body)
