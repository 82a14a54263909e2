"""Calibrate: noise level, feasibility and the formula for one algorithm.

Order of work (so the main numbers never wait for a plot): read the widgets, compute the schedule (when a theorem
sets T and η) so the sidebar can show it, stop on an invalid input, show the main numbers, then the plots -- the
heavy ones only when asked for, each cached by the inputs it actually depends on.
"""

import numpy as np
import streamlit as st

from dpviz_ui import helpers as ui
from dpviz.theory import catalog, pld_wor
from dpviz.foundation import figures
from dpviz.engine import simulate as S


def body() -> None:
    st.title("Calibrate the noise")
    algs = [a for a in catalog.algorithms() if a.calibrate is not None]
    labels = {a.id: f"{a.paper.short} — {a.name} ({a.place})" for a in algs}
    alg_id = ui.view_choice("Algorithm (grouped by paper)", "algorithm", labels, format_func=labels.get,
                            help="Which private algorithm to calibrate.")
    alg = catalog.get_algorithm(alg_id)
    loss_id, shown = ui.loss_picker(alg.setting)
    thms = [t for t in catalog.theorems() if t.algorithm == alg_id]
    src = "manual"
    if thms:
        src = ui.view_choice("T and η from", "schedule", ["manual"] + [t.id for t in thms],
                             format_func=lambda i: "manual (sidebar)" if i == "manual" else
                             f"{catalog.get_theorem(i).paper.short}, {catalog.get_theorem(i).number}",
                             help="Use the step size and number of iterations the theorem prescribes, or your own.")
    names = ui.sidebar_names(shown, loss_id)
    # "*": the inputs that change the numbers shown (the calibration's, and the schedule's when a theorem sets T, η)
    required = ui.starred(algorithms=[alg], schedule=None if src == "manual" else catalog.get_theorem(src),
                          loss_id=loss_id, shown=shown)

    # the theorem's schedule is computed before the sidebar is drawn, so that the sidebar shows the T and η in use
    fixed, sched_error, complexity = {}, None, None
    base, loss_msg, loss_err = ui.resolve_loss(ui.params_from_view(ui.view()), loss_id, shown)
    if src != "manual":
        thm = catalog.get_theorem(src)
        source = f"{thm.paper.short}, {thm.number}"
        T_sched = eta_sched = None
        if not ui.invalid_inputs():
            b = ui.cached_bound(src, ui.items(ui.only_params(base, thm.bound)))
            if "error" in b:
                sched_error = b["error"]
            else:
                T_sched = max(1, int(round(b["ok"]["T"]))) if b["ok"]["T"] is not None else None
                eta_sched = float(b["ok"]["eta"]) if b["ok"]["eta"] is not None else None
                complexity = b["ok"].get("gradient_complexity")
        # a theorem that sets only T (Wang, Lei, Ying & Zhang's Lemma 13: T = n) leaves η to the sidebar
        fixed = {"T": (T_sched, source)}
        if eta_sched is not None or sched_error or ui.invalid_inputs():
            fixed["eta"] = (eta_sched, source)
    params = ui.param_widgets(names, required=required, fixed=fixed)
    ui.stop_if_invalid()
    params, _msg, _err = ui.resolve_loss(params, loss_id, shown)
    # Blocks whose number of elements varies (notes, the main numbers, each plot) sit in their own containers, so
    # every element after them keeps its place from run to run: the browser then updates those elements in place
    # instead of rebuilding them (a schedule change, which adds notes, showed its numbers in a median 0.25-0.28 s
    # instead of 0.30-0.42 s and redrew the page ~0.2 s sooner: benchmarks/RESULTS.md).
    with st.container():
        ui.show_loss_message(loss_msg, loss_err)
        if src != "manual":
            thm = catalog.get_theorem(src)
            if thm.discrepancy:
                st.warning(f"Reading of the paper: {ui.pretty(thm.discrepancy)}")
            if sched_error:
                st.error(f"The theorem's schedule is not defined here: {ui.plain(sched_error)}")
                return
            if "eta" in fixed:
                st.caption(f"T = {ui.fmt(params['T'])} and η = {ui.fmt(params['eta'])} come from "
                           f"{ui.fmt(thm.number)} (shown read-only in the sidebar; the paper's free constant c = "
                           f"{ui.fmt(params['c'])}).")
            else:
                st.caption(f"T = {ui.fmt(params['T'])} comes from {ui.fmt(thm.number)} (shown read-only in the "
                           f"sidebar). {ui.fmt(thm.number)} does not set the step size: η = {ui.fmt(params['eta'])} is "
                           "the sidebar's value.")
        if alg.description:
            st.caption(ui.pretty(alg.description))
    # the sidebar's c is the free constant of the theorems' rates; calibrations that take a c (Kang et al.'s eq. (2))
    # calibrate it numerically unless it is given on purpose, so it is not passed on here
    cal_params = {k: val for k, val in ui.only_params(params, alg.calibrate).items() if k != "c"}
    # the numerical accountant's comparison σ (DP-SGD with Rényi accounting) can take over a second at large T: the
    # main numbers are drawn without it, then its line is filled in
    lazy_acc = "accountant_extra" in catalog.parameters_of(alg.calibrate)
    res = ui.cached_calibrate(alg_id, ui.items({**cal_params, "accountant_extra": False} if lazy_acc else cal_params))
    if "error" in res:
        st.error(ui.plain(res["error"]))
        return
    cal = res["ok"]
    with st.container():
        acc_slot = main_numbers(alg, params, cal, complexity)
    ui.flush()  # send the main numbers now, before the curves below take the CPU
    view_slot = st.empty()  # Download this view: reached before the accountant, so the previous run's is gone
    if lazy_acc:
        acc_slot.caption("A tight numerical accountant (dp-accounting): computing…")
        full = ui.cached_calibrate(alg_id, ui.items(cal_params))
        if "ok" in full:
            cal = full["ok"]
            accountant_lines(acc_slot, cal.get("extras") or {}, cal_params, cal.get("sigma"))
        else:
            acc_slot.empty()
    # the privacy statement of the released σ (matched accountant), computed before the slot is redrawn so that it
    # never shows the previous run's statement
    stmt_sigma = cal.get("sigma")
    ui.cached_guarantee(alg_id, ui.items(cal_params), stmt_sigma)
    with view_slot.container():
        ui.download_view("calibrate",
                         inputs={"algorithm": alg_id, "loss": loss_id or "custom", "schedule": src, **params},
                         outputs=cal, command=ui.cli_command("calibrate", "algorithm", alg_id, cal_params))
        ui.statement_download(alg_id, cal_params, stmt_sigma, key="cal_statement")

    with st.container():
        beta_plot(alg, params, cal)
    with st.container():
        pending = sigma_vs_eps(alg, algs, params)
    with st.container():
        if cal.get("beta_interval") is not None or _lemma13(alg) or not cal["feasible"]:
            feasibility_map(alg, params)
    if pending:  # the noise curves have points not computed yet: the next run computes them (they are not cached)
        st.rerun()


def _lemma13(alg) -> bool:
    """Whether Wang, Lei, Ying & Zhang's Lemma 13 (their feasibility region) is about this algorithm."""
    return any(t.algorithm == alg.id and t.paper.key == "wang-nonsmooth" and "Lemma 13" in t.number
               for t in catalog.theorems())


def main_numbers(alg, params, cal, complexity):
    """σ, β, η, T, the gradient count, privacy, the formula with the numbers; returns the slot of the accountant's
    line (filled here if ``cal`` has it, else by the caller once it is computed)."""
    cols = st.columns(5)
    extras = cal.get("extras") or {}
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
    if cal["feasible"] and extras.get("privacy_certified") is False:
        st.warning("Private only as the paper claims, not certified by dpviz end to end: "
                   + ui.pretty(extras.get("privacy_check") or "the paper's own counting") + ".")
    elif cal["feasible"]:
        check = extras.get("privacy_check")
        st.success("Private: with this σ the released output is (ε, δ)-differentially private"
                   + (f" ({ui.pretty(check)})." if check else " under the paper's privacy conditions, which hold here."))
    else:
        st.error(f"Not private at these settings: {ui.pretty(cal.get('reason', ''))}")
        if cal.get("fix"):
            st.info(f"What would make it private: {ui.pretty(cal['fix'])}")
    if extras.get("sigma_readings"):  # a paper whose σ has two readings (e.g. printed vs as its proof requires)
        st.write("The paper's formula, read two ways: " + "; ".join(
            f"σ {r['label']} = {ui.fmt(r['sigma'])}" + (" (**not** (ε, δ)-DP here)" if not r["private"] else "")
            for r in extras["sigma_readings"]) + ".")
    elif extras.get("sigma_paper") is not None and extras.get("sigma_paper") != cal.get("sigma"):
        private = extras.get("paper_sigma_private")
        st.write(f"The paper's own formula gives σ = {ui.fmt(extras['sigma_paper'])}"
                 + (" — as printed, this σ is **not** (ε, δ)-DP here; dpviz uses the σ above, which is."
                    if private is False else "."))
    if extras.get("sigma_c_paper") is not None:
        c_private = extras.get("sigma_c_paper_private")
        released = ("the smallest private one (exact Gaussian composition of the R releases)"
                    if extras.get("sigma_rule", "private") == "private" else "as printed")
        st.write(f"Contribution noise σ_c (Kang, Li, Liu & Wang, Theorem 5): released σ_c = "
                 f"{ui.fmt(extras.get('sigma_c'))}, {released}. The paper's own formula gives σ_c = "
                 f"{ui.fmt(extras['sigma_c_paper'])} (exact δ {ui.fmt(extras.get('sigma_c_paper_exact_delta'))} at "
                 f"ε₂ = {ui.fmt(extras.get('eps2'))})"
                 + (" — as printed, this σ_c is **not** (ε, δ)-DP here." if c_private is False
                    else f", which is private (δ₂ = {ui.fmt(extras.get('delta2'))})."))
    if cal.get("beta_interval"):
        lo, hi = cal["beta_interval"]
        half = cal.get("beta_half")
        st.write(f"Feasible β interval: [{ui.fmt(lo)}, {ui.fmt(hi)}]; β minimising σ: {ui.fmt(cal.get('beta'))}"
                 + (f"; feasible β closest to 1/2 (Wang, Lei, Ying & Zhang, Remark 4): {ui.fmt(half)}"
                    if half is not None else ""))
    acc_slot = st.empty()
    accountant_lines(acc_slot, extras)
    if cal.get("sigma_schedule"):
        st.write("Noise per epoch:")
        st.dataframe([{"epoch": i + 1, "σ_i": ui.fmt(s_)} for i, s_ in enumerate(cal["sigma_schedule"])],
                     width="content", hide_index=True)
    if (cal.get("formula") or cal.get("formula_numbers")) and extras.get("sigma_paper") is not None \
            and extras["sigma_paper"] != cal.get("sigma"):
        st.caption(f"The formula below is the paper's (its σ = {ui.fmt(extras['sigma_paper'])}); the σ above "
                   f"(σ = {ui.fmt(cal.get('sigma'))}) is the one dpviz releases, the smallest that its exact check "
                   "accepts" + (f" ({ui.pretty(extras['privacy_check'])})" if extras.get("privacy_check") else "")
                   + ".")
    if cal.get("formula"):
        ui.latex(ui.tex_sci(cal["formula"]))
    if cal.get("formula_numbers"):
        ui.latex(ui.tex_sci(cal["formula_numbers"]))
    for note in cal.get("notes", []):
        st.caption(ui.pretty(note))
    return acc_slot


@st.cache_data(show_spinner=False, max_entries=128)
def wor_pld(n: int, b: int, T: int, eps: float, delta: float, sens: float, sigma) -> dict:
    """The tight PLD of the same mechanism (b of n examples per step without replacement, replace-one; pld_wor)."""
    return pld_wor.matched(n=n, batch_size=b, steps=T, eps=eps, delta=delta, sensitivity=sens,
                           sigmas={"the calibrated σ": sigma})


def accountant_lines(slot, extras: dict, cal_params: dict | None = None, sigma=None) -> None:
    """The numerical accountants' σ for the same (ε, δ), n and T — the tight without-replacement PLD where it applies,
    then dp-accounting's RDP — with their notes, in ``slot`` (empty if none)."""
    if extras.get("accountant_sigma") is None:
        slot.empty()
        return
    pld = None
    if cal_params and extras.get("sampling_rate") and pld_wor.applies(
            n=cal_params["n"], batch_size=round(extras["sampling_rate"] * cal_params["n"])):
        pld = wor_pld(int(cal_params["n"]), round(extras["sampling_rate"] * cal_params["n"]), int(cal_params["T"]),
                      float(cal_params["eps"]), float(cal_params["delta"]), float(extras["sensitivity"]), sigma)
    tight = pld is not None and "error" not in pld
    with slot.container():
        if pld is not None:
            st.write("The matched tight accountant (PLD, one example per step without replacement, replace-one, "
                     "Δ = 2G): " + " ".join(pld_wor.matched_lines(pld, float(cal_params["eps"]))))
            st.caption(pld_wor.THEOREM)
        st.write(f"A numerical accountant of the same mechanism (dp-accounting's RDP) needs σ = "
                 f"{ui.fmt(extras['accountant_sigma'])} for the same (ε, δ), n and T — an upper bound: this σ "
                 f"certainly suffices; RDP gives no lower bound" + (" (the PLD above gives one)." if tight else
                                                                    " (the Accounting page shows PLD brackets where "
                                                                    "they apply)."))
        if extras.get("accountant_caveat") and not tight:  # the RDP floor: the PLD above certifies below it
            st.warning(ui.pretty(extras["accountant_caveat"]))
        if extras.get("accountant_note"):
            st.caption(ui.pretty(extras["accountant_note"]))


def beta_plot(alg, params, cal) -> None:
    """σ(β) with the feasible band and the chosen β, for calibrations that choose a Rényi order parameter β."""
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
                                            log_x=True, chosen=(cal.get("beta"), cal.get("sigma"))),
                   "sigma_beta", params, ["n", "eps", "delta", "T", "G"])


EPS_GRID = [float(e) for e in np.logspace(-2, 1, 25)]
N_GRID = [int(round(x)) for x in np.logspace(1.5, 6, 19)]


def sigma_vs_eps(alg, algs, params) -> bool:
    """σ (or the Laplace scale) vs ε and vs n of every algorithm of the same setting; each point cached on its own.

    A point not computed within its curve's time budget is shaded "not computed (time budget)" -- never drawn, said
    or cached as "not private" -- and the page reruns itself to compute it (up to ui.CURVE_ROUNDS runs in a
    row; then a button continues).  Returns True when the caller should rerun the page for the missing points."""
    st.subheader("Noise level vs ε and vs n")
    if not ui.view_checkbox("Compare every algorithm of this setting (slower: some use a numerical accountant)",
                            "compare_all"):
        same = [alg]
    else:
        same = [a for a in algs if a.setting == alg.setting]
    delta_auto = bool(ui.view()["delta_auto"])
    curves = {
        "eps": (EPS_GRID, lambda p, x: {**p, "eps": x}),
        # δ follows n when the sidebar ties it to n (δ = 1/n²); T, η and the rest stay at their sidebar values
        "n": (N_GRID, lambda p, x: {**p, "n": x, **({"delta": 1.0 / x**2} if delta_auto and "delta" in p else {})}),
    }
    pending = False
    for which in ("eps", "n"):
        with st.container():
            grid, at = curves[which]
            pending |= not _noise_chart(which, grid, at, same, params)
    return ui.continue_curves((tuple(a.id for a in same), ui.items(params)), pending)


def _noise_chart(which: str, grid: list, at, same, params) -> bool:
    """Draw one noise-level chart (``which`` = "eps" or "n"); True if every point of it was computed."""
    note = st.empty()  # the messages sit above the chart, which is replaced in place (not rebuilt) when ready
    why = st.empty()
    slot = st.empty()
    xname = "ε" if which == "eps" else "n"
    series, not_computed, counts = {}, {}, []
    first_gap = None  # (algorithm, x) of the first point that is computed and not private
    for a in same:
        p = {k: v for k, v in ui.only_params(params, a.calibrate).items() if k != "c"}
        if which not in p:
            continue
        raw = ui.noise_points(a.id, [at(p, x) for x in grid])
        ys, missing = ui.series_complete(raw)
        label = f"{a.paper.short}: {a.name}"
        if missing:
            not_computed[label] = [x for x, r in zip(grid, raw) if r == "timeout"]
            counts.append(f"{a.name} ({missing} of {len(ys)} points)")
        if first_gap is None and not missing:  # what a curve still being computed shows is not yet a verdict
            gap = next((x for x, r in zip(grid, raw) if r is None), None)
            if gap is not None:
                first_gap = (a, at(p, gap), gap, [x for x, y in zip(grid, ys) if y is not None])
        if any(y is not None for y in ys):
            series[label] = ys
    if counts:
        note.caption(f"Still computing (each curve gets {ui.CURVE_BUDGET:g} s of server time per round; their "
                     "accountant is slow at these settings), shaded grey until done: " + ", ".join(counts) + ".")
    else:
        note.empty()
    if first_gap is not None:
        a, p_gap, x_gap, private_at = first_gap
        res = ui.cached_calibrate(a.id, ui.items({**p_gap, "accountant_extra": False}))
        reason = (ui.pretty(res["ok"].get("reason") or "") if "ok" in res else ui.plain(res["error"]))
        where = ""
        if private_at and x_gap < min(private_at):
            where = f" (private here only from {xname} = {ui.fmt(min(private_at))} on)"
        elif not private_at:
            where = " (private nowhere on this grid)"
        why.caption(f"Where a curve has no points the calibration is not private (or not defined). "
                    f"{a.name}{where}, at {xname} = {ui.fmt(x_gap)}: {reason}")
    else:
        why.empty()
    if not series:
        slot.info(f"No algorithm is private anywhere on the {xname} grid at these settings"
                  + (" (so far: some points are still being computed)." if counts else "."))
        return not counts
    fixed = ("the other inputs at their sidebar values" if which == "eps" else
             "T, η and the other inputs at their sidebar values" + (", δ = 1/n²" if ui.view()["delta_auto"] else ""))
    title = f"Noise level vs {xname} ({'smaller ε = more private' if which == 'eps' else fixed})"
    if first_gap is not None:
        title += "; gaps: not private there"
    fig = figures.line_figure(grid, series, title=title,
                              x_title=xname, y_title="σ or Laplace scale", slope_labels=True,
                              current_x=float(params[which]), current_label=f"current {xname} = {ui.fmt(params[which])}",
                              not_computed=not_computed)
    with slot.container():
        ui.show_figure(fig, "sigma_vs_eps" if which == "eps" else "sigma_vs_n", params)
    return not counts


def feasibility_map(alg, params) -> None:
    """Where in the (n, ε) plane the calibration is private (T = n, δ = 1/n², as in Wang, Lei, Ying & Zhang Fig. 1)."""
    st.subheader("Feasibility map in the (n, ε) plane")
    if not ui.view_checkbox("Compute the feasibility map (196 calibrations, a few seconds)", "show_map"):
        return
    ns = [int(x) for x in np.logspace(1.3, 5, 14)]
    epss = [float(e) for e in np.logspace(-2, 1.3, 14)]
    p = {k: v for k, v in ui.only_params(params, alg.calibrate).items() if k not in ("n", "eps", "T", "delta", "c")}
    with st.spinner("Calibrating 196 (n, ε) points…"):
        feas = ui.cached_feasibility_grid(alg.id, ui.items(p), tuple(ns), tuple(epss))
    if isinstance(feas, dict):
        st.info(ui.plain(feas["skipped"]).capitalize())
        return
    boundary = None
    if _lemma13(alg):  # Lemma 13 is about Wang, Lei, Ying & Zhang's DP-SGD with Rényi accounting only
        from dpviz.theory.papers import wang_nonsmooth as wn

        bn = [n for n in ns if n >= 18]
        boundary = (bn, [wn.lemma13_eps_threshold(n) for n in bn])
    fig = figures.feasibility_map_figure(
        ns, epss, feas, boundary=boundary, boundary_name="Wang, Lei, Ying & Zhang, Lemma 13: sufficient ε",
        title="Private settings (green) with T = n, δ = 1/n²", current=(float(params["n"]), float(params["eps"])))
    ui.show_figure(fig, "feasibility_map", params)
    if boundary is not None:
        st.caption("Lemma 13's curve is the paper's sufficient condition for DP-SGD with Rényi accounting (Fig. 1 of "
                   "Wang, Lei, Ying & Zhang); dpviz finds it not sufficient for 18 ≤ n < 44.")


ui.guarded(body)
