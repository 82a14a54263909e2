"""Bounds: risk bounds vs n and ε (rates with rates, explicit constants with explicit constants), terms, tables."""

import numpy as np
import streamlit as st

from dpviz_ui import bounds_view as BV, helpers as ui
from dpviz.theory import catalog, vacuous
from dpviz.foundation import figures

GRIDS = {"n": [int(x) for x in np.unique(np.logspace(2, 7, 21).astype(int))],
         "eps": [float(e) for e in np.logspace(-2, 1, 21)]}
KINDS = {"rate": "rates (the paper's unspecified constants set to c)",
         "explicit": "explicit constants (only where the paper gives them)"}


def _privacy_warning(thm, params: dict, ok: dict) -> None:
    """A warning beside a bound whose algorithm cannot be made private at these parameters (its calibration, at the
    theorem's own T and η, is infeasible) or that the theorem's own conditions do not cover (a note saying it is
    "evaluated formally"): the number is then the formula evaluated, not a guarantee about a private run."""
    alg = catalog.get_algorithm(thm.algorithm)
    why = []
    if alg.calibrate is not None:
        sched = {k: ok[k] for k in ("T", "eta") if ok.get(k) is not None}
        if "T" in sched and float(sched["T"]).is_integer():
            sched["T"] = int(sched["T"])
        # as Calibrate does: the sidebar's c is the free constant of the rates, not a calibration constant (Kang et
        # al.'s eq. (2) calibrates its c numerically unless it is given on purpose); no slow accountant extra
        cp = {k: val for k, val in ui.only_params({**params, **sched}, alg.calibrate).items() if k != "c"}
        if "accountant_extra" in catalog.parameters_of(alg.calibrate):
            cp["accountant_extra"] = False
        cal = ui.cached_calibrate(alg.id, ui.items(cp))
        if "ok" in cal and not cal["ok"]["feasible"]:
            fix = cal["ok"].get("fix")
            why.append(f"{alg.name} cannot be made private here: {ui.pretty(cal['ok'].get('reason') or '')}."
                       + (f" What would make it private: {ui.pretty(fix)}." if fix else ""))
    why += [ui.pretty(n) for n in ok.get("notes", []) if "formally" in n]
    if why:
        st.warning("This bound describes no private run at these parameters, only the formula evaluated. "
                   + " ".join(why))


def bound_kind(thm) -> str:
    """"rate" if the theorem's main bound drops constants, "explicit" if it keeps the paper's constants and logs."""
    return getattr(thm, "form", None) or "rate"


def _plot_fn(thm, kind: str):
    """(use_explicit_flag) for ``kind`` of this theorem, or None when the theorem has no bound of that kind."""
    main = bound_kind(thm)
    if kind == main:
        return False
    if kind == "explicit" and thm.explicit_bound is not None:
        return True
    return None


def explicit_at_schedule(thm, p: dict) -> dict:
    """The parameters for ``thm``: the sidebar's T and η only when the theorem's main bound takes them, so that an
    explicit-constant bound runs at the theorem's own schedule, like its rate (not at the sidebar's T, η)."""
    main = set(catalog.parameters_of(thm.bound))
    return {k: val for k, val in p.items() if k not in ("T", "eta") or k in main}


def _commands(tid: str, p: dict, outputs: dict) -> str:
    """The CLI commands that reproduce theorem ``tid``'s numbers on the page: its main bound (with only the
    parameters the main bound takes) and, where the page shows it, the explicit-constant bound (``--explicit``,
    with the parameters that one takes, e.g. F(w*))."""
    thm = catalog.get_theorem(tid)
    cmds = [ui.cli_command("bound", "theorem", tid, ui.only_params(p, thm.bound))]
    if thm.explicit_bound is not None and "explicit_total" in outputs.get(tid, {}):
        cmds.append(ui.cli_command("bound", "theorem", tid, ui.only_params(p, thm.explicit_bound),
                                   extra=("--explicit",)))
    return " ; ".join(cmds)


def _switch(tid: str, loss_id: str, chosen: list) -> None:
    """Button callback: the loss to which theorem ``tid`` applies, and ``tid`` among the chosen theorems."""
    ui.set_view(loss=loss_id, theorems=list(dict.fromkeys(list(chosen) + [tid])))


def _switch_button(tid: str, reason: str, loss_id: str | None, q, chosen: list, key: str) -> None:
    """The reason theorem ``tid`` does not apply, and one click to the first loss it applies to."""
    target = BV.switch_loss(tid, list(ui.loss_options(None)), q)
    if target is None:
        return
    from dpviz.engine import losses

    st.button(f"Switch the loss to {losses.get_loss(target).name}", key=key, on_click=_switch,
              args=(tid, target, chosen), help=f"Sets the loss to {target} (to which this theorem applies) and adds "
                                                "the theorem to the chosen ones.")


def _not_applying(ids, labels, loss_id, q, chosen) -> None:
    """The theorems that do not apply to the chosen loss, greyed, each with its reason and a switch."""
    out = [(t, BV.loss_reason(t, loss_id, q)) for t in ids]
    out = [(t, why) for t, why in out if why]
    if not out:
        return
    with st.expander(f"{len(out)} theorems do not apply to this loss (greyed here, with the reason and a switch)"):
        for t, why in out:
            c1, c2 = st.columns([3, 1])
            c1.caption(f"~~{labels[t]}~~ — {ui.pretty(why)}.")
            with c2:
                _switch_button(t, why, loss_id, q, chosen, key=f"switch_{t}")


def _vacuous_line(tid: str, value, p: dict, what: str) -> None:
    """Say so when ``value`` (the bound, or its explicit version) is above the trivial bound of the theorem's
    quantity: then it says nothing here."""
    triv = vacuous.trivial_bound(tid, p)
    if vacuous.is_vacuous(value, triv):
        st.warning(f"{what} {ui.fmt(value)} is **vacuous here**: the trivial bound is {ui.pretty(triv[1])}.")


def _gaps_caption(gaps: dict, x_name: str) -> None:
    """Say where each curve has no bound and why (``{curve: {x: reason}}``; drawn as grey crosses on the charts):
    one short line per curve and kind of reason (the reason's first clause; a cross's hover has it in full), never
    a point silently missing."""
    lines = []
    for name, pts in gaps.items():
        by_reason: dict[str, list] = {}
        for x, why in sorted(pts.items()):
            by_reason.setdefault(str(why).split(":")[0].strip().rstrip("."), []).append(x)
        for why, xs in by_reason.items():
            where = ", ".join(ui.fmt(x) for x in xs) if len(xs) <= 4 else \
                f"{ui.fmt(xs[0])}, {ui.fmt(xs[1])}, …, {ui.fmt(xs[-1])} ({len(xs)} points)"
            lines.append(f"{name} at {x_name} = {where}: {ui.pretty(why)}")
    if lines:
        st.caption("No bound at these points (grey crosses; hover one for the full reason): " + "; ".join(lines[:6])
                   + (" …" if len(lines) > 6 else "") + ".")


def body() -> None:
    st.title("Risk bounds")
    thms = catalog.theorems()
    v = ui.view()
    ids = [t.id for t in thms]
    labels = {t.id: f"{t.paper.short} — {t.number}" for t in thms}
    chosen = ui.view_multiselect("Theorems", "theorems", ids, fallback=ids[:1], format_func=labels.get,
                                 help="Each theorem bounds one quantity of one algorithm (shown under its name): excess "
                                      "population risk, excess empirical risk, a stability quantity …, either in "
                                      "expectation or with probability 1 − γ.")
    sweep = ui.view_choice("Sweep over", "sweep", ["n", "eps"], widget=st.radio, horizontal=True,
                           format_func={"n": "sample size n", "eps": "privacy budget ε (smaller = more private)"}.get,
                           help="x-axis of the terms plots; the totals are drawn against both n and ε.")
    kind = ui.view_choice("Compare", "bound_kind", list(KINDS), widget=st.radio, horizontal=True,
                          format_func=KINDS.get,
                          help="Rates and bounds with explicit constants are never drawn on one axis: a rate with "
                               "its constant set to c = 1 can be orders of magnitude below a bound that keeps the "
                               "paper's constants and logarithms.")
    loss_id, shown = ui.loss_picker(None)
    # "*": the inputs that change a chosen theorem's numbers (its bound, and its explicit bound, shown in both modes)
    params = ui.param_widgets(ui.sidebar_names(shown, loss_id),
                              required=ui.starred(theorems=[catalog.get_theorem(t) for t in chosen],
                                                  loss_id=loss_id, shown=shown))
    ui.stop_if_invalid()
    params = ui.apply_loss(params, loss_id, shown)
    q = float(v["q"]) if loss_id is not None and "q" in ui.sidebar_names(shown, loss_id) else None
    _not_applying(ids, labels, loss_id, q, chosen)
    if any("Fstar" in catalog.parameters_of(catalog.get_theorem(t).explicit_bound)
           for t in chosen if catalog.get_theorem(t).explicit_bound is not None):
        ui.view_number("Fstar", "F(w*) (explicit bounds)", container=st.sidebar,
                       help="The population risk of the best model, F(w*): the explicit-constant bounds of the "
                            "general parts keep it (the low-noise parts set it to 0).")
        params["Fstar"] = float(v["Fstar"])
    takes_c = [t for t in chosen if "consistent_constants" in catalog.parameters_of(catalog.get_theorem(t).bound)]
    if takes_c:
        if ui.view_checkbox("Consistent constants: use the c of eq. (2) that dpviz's own calibration implies "
                            "(Kang, Li, Liu & Wang)", "consistent",
                            help="Kang et al.'s eq. (2) has an unspecified constant c; their rates are usually read "
                                 "with c = 1, but the σ dpviz calibrates implies a c of tens to thousands. Tick to put "
                                 "that implied c into the privacy terms, so the bound matches the noise actually "
                                 "added. The moments-accountant bound behind eq. (2) also needs ε < c₁q²T; the "
                                 "theorem's notes say whether it holds."):
            params["consistent_constants"] = True
    if not chosen:
        st.warning("Choose at least one theorem.")
        return
    grid = GRIDS[sweep]
    other = "eps" if sweep == "n" else "n"
    totals, totals_other, risks, outputs, theorem_of = {}, {}, {}, {}, {}
    missing_one, missing_two = {}, {}  # grid values a curve's time budget skipped (computed by the next runs)
    gaps_one, gaps_two = {}, {}  # grid values where a curve has no bound, with the reason (grey crosses)
    pending = False
    deferred = []  # (theorem id, theorem, parameters, bound, slot of its explicit bound, slot of its terms chart)
    warnings = []  # (theorem, bound, slot of its privacy warning)
    at = {}  # each theorem's parameters (also the CLI command of Download this view)
    # Each theorem's block in its own container, all of them in one: a theorem added or removed, or a block that
    # grows (an explicit bound that becomes available), leaves the elements after it in place, so the browser
    # updates them instead of rebuilding them (see pages/calibrate.py).
    # Download this view sits above the theorems: while they recompute, the previous run's button is gone at once
    view_slot = st.empty()
    theorem_blocks = st.container()
    # Every theorem's bound is computed before any block is drawn, and the blocks then go out together: the browser
    # re-renders the whole page for every batch of elements it receives (~60-130 ms each on 2 cores), so one batch
    # with every bound line instead of one per theorem (a pause after each line) shows the last line sooner --
    # quiet bench_pages, explicit constants with three theorems: ε edit median 0.39-0.46 s instead of 0.54-0.58 s,
    # adding a theorem 0.56-0.62 s instead of 0.67-0.79 s (benchmarks/RESULTS.md, session 42).
    computed = {}
    for tid in chosen:
        thm = catalog.get_theorem(tid)
        p = explicit_at_schedule(thm, ui.only_params(params, thm.bound, thm.explicit_bound))
        why = BV.loss_reason(tid, loss_id, q)
        computed[tid] = (p, why, None if why else ui.cached_bound(tid, ui.items(p)))
    for tid in chosen:
        with theorem_blocks, st.container():
            thm = catalog.get_theorem(tid)
            st.subheader(labels[tid])
            risk = catalog.Risk.parse(thm.risk)
            st.caption(f"Bounds: **{ui.pretty(risk.quantity)}** ({risk.guarantee_text})"
                       + (f" — {ui.pretty(risk.detail)}" if risk.detail else "")
                       + f" — of {catalog.get_algorithm(thm.algorithm).name}. "
                       f"Main bound: {'explicit constants' if bound_kind(thm) == 'explicit' else 'a rate (constants dropped, set to c)'}.")
            if thm.statement:
                ui.latex(ui.tex_sci(thm.statement))
            p, why, here = computed[tid]
            at[tid] = p
            if why:  # a number for a loss the theorem does not cover would be misleading: the reason and a switch
                st.warning(f"Does not apply to the chosen loss: {ui.pretty(why)}.")
                _switch_button(tid, why, loss_id, q, chosen, key=f"switch_chosen_{tid}")
                continue
            if "error" in here:
                st.error(ui.plain(here["error"]))
                continue
            ok = here["ok"]
            outputs[tid] = {"total": ok["total"], "terms": dict(ok["terms"]), "eta": ok["eta"], "T": ok["T"],
                            "gradient_complexity": ok["gradient_complexity"]}
            st.write(f"Bound at the current parameters: **{ui.fmt(ok['total'])}** — step size η = {ui.fmt(ok['eta'])}, "
                     f"iterations T = {ui.fmt(ok['T'])}, gradient complexity {ui.fmt(ok['gradient_complexity'])}")
            with st.container():  # "vacuous here" or nothing: a container of its own keeps the page in place
                _vacuous_line(tid, ok["total"], params, "This bound")
            warn_slot = st.empty()  # the privacy warning: its calibration (a numerical accountant for Kang, Li, Liu &
            # Wang) is filled in once every theorem's bound line is on screen (issue 33)
            if thm.discrepancy or thm.notes:  # how dpviz reads the paper (misprints, proofs followed): after the bound
                with st.expander("How dpviz reads this theorem (misprints in the paper, notes)"
                                 if thm.discrepancy else "Notes on this theorem"):
                    if thm.discrepancy:
                        st.warning(f"Reading of the paper: {ui.pretty(thm.discrepancy)}")
                    for note in thm.notes:
                        st.caption(ui.pretty(note))
            st.dataframe([{"term": name, "value": ui.fmt(val), "rate exponent of n": ne, "rate exponent of ε": ee}
                          for (name, val), (_n, _l, ne, ee) in zip(ok["terms"], ok["terms_latex"])],
                         hide_index=True, width="content")
            with st.container():  # explicit bound and notes: their number varies, the chart below stays in place
                ex_slot = st.empty()  # the explicit bound: filled once every theorem's rate bound is on screen
                if thm.explicit_bound is not None:
                    ex_slot.caption("With the paper's explicit constants: computing…")
                for note in ok["notes"]:
                    st.caption(ui.pretty(note))
            deferred.append((tid, thm, p, ok, ex_slot, st.empty()))  # and its terms chart, drawn after the numbers
            warnings.append((thm, ok, warn_slot))
    ui.flush()
    for thm, ok, warn_slot in warnings:
        with warn_slot.container():
            _privacy_warning(thm, params, ok)
    # the explicit bounds next (Kang, Li, Liu & Wang's Theorem 1 needs a numerical accountant: up to a second)
    for tid, thm, p, ok, ex_slot, _chart_slot in deferred:
        if thm.explicit_bound is None:
            continue
        ex = ui.cached_bound(tid, ui.items(p), explicit=True)
        with ex_slot.container():
            if "ok" in ex:
                outputs[tid]["explicit_total"] = ex["ok"]["total"]
                st.write(f"With the paper's explicit constants: **{ui.fmt(ex['ok']['total'])}**"
                         f" — η = {ui.fmt(ex['ok']['eta'])}, T = {ui.fmt(ex['ok']['T'])}")
                _vacuous_line(tid, ex["ok"]["total"], params, "The explicit bound")
                st.dataframe([{"explicit term": name, "value": ui.fmt(val)} for name, val in ex["ok"]["terms"]],
                             hide_index=True, width="content")
                for note in ex["ok"]["notes"]:
                    st.caption(ui.pretty(note))
            else:
                st.caption(f"Explicit-constant version not available here: {ui.pretty(ex['error'])}")
    # every theorem's numbers are on screen before any curve is computed (a curve can take seconds: a numerical
    # accountant per point); each curve is budgeted, and points it skips are computed by the page's next runs
    ui.flush()
    for tid, thm, p, ok, _ex_slot, chart_slot in deferred:
        series = ui.cached_bound_series(tid, ui.items(p), sweep, tuple(grid), bool(v["delta_auto"]))
        pending |= bool(series["missing"])
        terms = {name: series["terms"].get(name, [None] * len(grid)) for name, _ in ok["terms"]}
        levels, above = BV.trivial_levels({"the bound": tid}, params)  # the trivial bound beside the bound
        fig = figures.stacked_terms_figure(grid, terms, title=f"{labels[tid]}: terms vs {'n' if sweep == 'n' else 'ε'}"
                                           f" ({'rate' if bound_kind(thm) == 'rate' else 'explicit constants'})",
                                           x_title="n" if sweep == "n" else "ε", not_computed=series["missing"],
                                           levels=levels, vacuous_above=above.get("the bound"),
                                           gaps=series["reasons"])
        with chart_slot.container():
            ui.show_figure(fig, f"terms_{tid}_{sweep}", params)
            _gaps_caption({"the bound": series["reasons"]}, "n" if sweep == "n" else "ε")
        flag = _plot_fn(thm, kind)
        if flag is None:
            continue
        risk = catalog.Risk.parse(thm.risk)
        name = f"{labels[tid]} [{risk.quantity}, {catalog.GUARANTEES_SHORT[risk.guarantee]}]"
        risks[name] = risk
        theorem_of[name] = tid
        one = ui.cached_bound_series(tid, ui.items(p), sweep, tuple(grid), bool(v["delta_auto"]), explicit=flag)
        two = ui.cached_bound_series(tid, ui.items(p), other, tuple(GRIDS[other]), bool(v["delta_auto"]),
                                     explicit=flag)
        totals[name], totals_other[name] = one["total"], two["total"]
        missing_one[name], missing_two[name] = one["missing"], two["missing"]
        gaps_one[name], gaps_two[name] = one["reasons"], two["reasons"]
        pending |= bool(one["missing"] or two["missing"])
    with st.container():
        st.header(f"Totals compared: {KINDS[kind]}")
        left_out = [labels[t] for t in chosen if _plot_fn(catalog.get_theorem(t), kind) is None]
        if left_out:
            st.caption("Not drawn here (no bound of this kind in the paper): " + ", ".join(left_out) + ".")
        if totals:
            for level, line in catalog.risk_comparison(list(risks.values())):
                (st.warning if level == "flag" else st.info)(line)
            what = "rate" if kind == "rate" else "explicit bound"
            # the trivial bound of each curve's quantity (G·R, 2R): a dash-dotted line; points above it circled
            levels, above = BV.trivial_levels(theorem_of, params)
            fig = figures.line_figure(grid, totals, title=f"{what.capitalize()}s vs {'n' if sweep == 'n' else 'ε'}",
                                      x_title="n" if sweep == "n" else "ε", y_title=what, slope_labels=True,
                                      current_x=float(params[sweep]), current_label=f"current {sweep}",
                                      not_computed=missing_one, levels=levels, vacuous_above=above, gaps=gaps_one)
            ui.show_figure(fig, f"bounds_{kind}_{sweep}", params)
            with st.container():  # a line only where points are missing: the elements after it keep their places
                _gaps_caption(gaps_one, "n" if sweep == "n" else "ε")
            fig = figures.line_figure(GRIDS[other], totals_other, title=f"{what.capitalize()}s vs "
                                      f"{'n' if other == 'n' else 'ε'}", x_title="n" if other == "n" else "ε",
                                      y_title=what, slope_labels=True, current_x=float(params[other]),
                                      current_label=f"current {other}", not_computed=missing_two, levels=levels,
                                      vacuous_above=above, gaps=gaps_two)
            ui.show_figure(fig, f"bounds_{kind}_{other}", params)
            with st.container():
                _gaps_caption(gaps_two, "n" if other == "n" else "ε")
            if levels:
                why = (["the output w = 0 has excess risk at most G·R"] if any("excess" in lv["name"] for lv in levels)
                       else []) + (["any two outputs in W are within its diameter 2R"]
                                   if any("stability" in lv["name"] for lv in levels) else [])
                st.caption("Dash-dotted: the " + "; the ".join(ui.pretty(lv["name"]) for lv in levels)
                           + " — it holds without any training (" + "; ".join(why) + "). A bound above it says "
                             "nothing at that point: circled 'vacuous here'. "
                           + ("Rates set the papers' unspecified constants to c, so a rate's circle says the rate "
                              "with this c is above the trivial bound." if kind == "rate" else ""))
            else:
                st.caption("No trivial bound is drawn: dpviz has one only for an excess risk or a stability over the "
                           "ball ||w|| ≤ R (G·R, 2R); the chosen theorems bound other quantities or work on all "
                           "of R^d.")
    rerun = ui.continue_curves((tuple(chosen), kind, sweep, ui.items(params)), pending)
    ui.download_view("bounds", container=view_slot,
                     inputs={"theorems": list(chosen), "loss": loss_id or "custom", "compare": kind, **params},
                     outputs=outputs,
                     command=" ; ".join(_commands(t, at[t], outputs) for t in chosen))

    st.header("The papers' comparison tables")
    for tab in catalog.tables():
        st.subheader(f"{tab.paper.short}, {tab.number}")
        st.caption(tab.caption)
        rows = ui.cached_table(tab.id, ui.items(params))
        if "error" in rows:
            st.error(ui.plain(rows["error"]))
            continue
        # the rate and its value first, the long assumptions last: at 1024 × 768 the rate is on screen at once
        first = ["method", "rate", "rate value", "gradient complexity", "complexity value"]
        cols = list(rows["ok"][0]) if rows["ok"] else []
        st.dataframe(rows["ok"], width="stretch", hide_index=True,
                     column_order=[c for c in first if c in cols] + [c for c in cols if c not in first])
        ui.download_table(rows["ok"], tab.id, params)
    if rerun:  # some curve points were skipped by their time budget: the next run computes them (never cached)
        st.rerun()


ui.guarded(body)
