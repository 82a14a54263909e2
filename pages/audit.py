"""Audit: empirical privacy (an ε lower bound by a canary test) and measured stability, beside the theory."""

import streamlit as st

from dpviz_ui import helpers as ui
from dpviz_ui import audit_page as ap
from dpviz.labs import stability as stab

ui.init_state()  # the app's navigation even when a link opens this page first
st.title("Audit — measured privacy and stability")
st.caption("Empirical privacy: a distinguishing test on D and D′ = D with a canary gives a 95 % lower bound on ε "
           "(Jagielski, Ullman & Oprea 2020; Nasr et al. 2021). Stability: coupled runs on neighbouring data sets "
           "(same indices, same noise) measure what the papers' sensitivity bounds bound.")

# link state: aud_* query parameters, validated, loaded once per session into the widgets' keys
if "_aud_loaded" not in st.session_state:
    state, problems = ap.state_from_query({k: st.query_params.get(k) for k in st.query_params.keys()})
    st.session_state["_aud_loaded"] = True
    st.session_state["_aud_problems"] = problems
    for k, val in state.items():
        st.session_state[k] = val
# one notice with the app's (escaped, capped: dpviz_ui.helpers.show_link_notice), until the first change of the settings
ui.show_link_notice(extra=st.session_state.get("_aud_problems") or [])
for k, val in ap.DEFAULTS.items():
    st.session_state.setdefault(k, val)

c1, c3 = st.columns(2)
mode = c1.radio("What to measure", ["audit", "stability"], key="aud_mode", horizontal=True,
                format_func=lambda m: {"audit": "Privacy audit (ε lower bound)", "stability": "Stability"}[m])
options = ap.PAGE_ALGORITHMS if mode == "audit" else ap.STABILITY_ALGORITHMS
if st.session_state["aud_alg"] not in options:
    st.session_state["aud_alg"] = options[0]
from dpviz.theory import catalog  # noqa: E402


def _alg_label(alg_id: str) -> str:
    """An algorithm by its name and paper (the id stays in the link), e.g. "DPGDC2 — Xue, Yang, Huai & Wang"."""
    try:
        a = catalog.get_algorithm(alg_id)
    except ValueError:
        return alg_id
    return f"{a.name} — {a.paper.short}"


alg = st.selectbox("Algorithm", options, key="aud_alg", format_func=_alg_label)  # full width: names are long
noise = c3.radio("Noise", ap.NOISE, key="aud_noise", horizontal=True,
                 format_func=lambda x: {"calibrated": "calibrated σ", "experiment": "paper's experiment rule",
                                        "custom": "custom σ"}[x],
                 help="calibrated: the theorem's σ for ε; experiment: the noise rule of the paper's experiments "
                      "(privacy conditions not checked); custom: any σ (0 = no noise).")
c = st.columns(6)


def _box(key: str, label: str, col, **kw):
    """A number box of the page's own entry ``key`` (text, parsed: 6e4, 60,000, 60 000; range from ap.SCHEMA)."""
    kind, _default, (lo, hi) = ap.SCHEMA[key]
    return ui.page_number(key, label, kind, lo, hi, container=col, **kw)


# n, ε and δ are the dashboard's shared view (a setting made on Calibrate or Accounting opens here), in this page's
# ranges; the rest are the page's own aud_* entries
ui.view_number("n", "n", container=c[0], limits=ap.SCHEMA["aud_n"][2])
_box("aud_T", "T", c[1])
_box("aud_eta", "η", c[2])
ui.view_number("eps", "ε (claimed)", container=c[3], limits=ap.SCHEMA["aud_eps"][2])
if mode == "audit":
    _box("aud_trials", "trials", c[4], help="trainings in all: half on D, half on D′")
else:
    _box("aud_reps", "repetitions", c[4])
_box("aud_seed", "seed", c[5])
if mode == "audit" and alg in ap.PAIRWISE:
    st.radio("Parameter", ["vector", "matrix"], key="aud_param", horizontal=True,
             format_func=lambda x: {"vector": "vector w (AUC maximisation)",
                                    "matrix": "matrix W (metric learning)"}[x],
             help="matrix: metric learning with the logistic metric loss of Xue, Yang, Huai & Wang (Example 1); "
                  "the statistic is u^T W u, the released metric along the canary direction u")
if mode == "audit":
    q1, q2 = st.columns([3, 1])
    q1.radio("Certify the lower bound with", ["clopper-pearson", "gdp", "one-run"], key="aud_method",
             horizontal=True, format_func=lambda x: {"clopper-pearson": "Clopper–Pearson", "gdp": "GDP fit",
                                                     "one-run": "one-run (canaries)"}[x],
             help="Clopper–Pearson: no assumption; GDP (Nasr et al. 2023): assumes a Gaussian trade-off curve; "
                  "one-run (Steinke, Nasr & Jagielski 2023): each trial is a canary with a fair-coin inclusion. "
                  "Changing it re-analyses the same trials.")
    _box("aud_target", "planner: ε to certify", q2, help="the audit planner: trials needed to certify this ε")
if noise == "custom":
    _box("aud_sigma", "σ (noise standard deviation)", st)
view = ui.view()
d1, d2 = st.columns([1, 5])
ui.view_checkbox("δ = 1/n²", "delta_auto", container=d1,
                 help="The usual choice: δ much smaller than 1/n. Untick to enter log10 δ yourself.")
if not view["delta_auto"]:
    ui.view_number("log10_delta", "log10 δ", container=d2, limits=(-30.0, -1.0))
#: the number boxes shown now: while one of them is invalid, nothing is computed
SHARED = ["n", "eps"] + ([] if view["delta_auto"] else ["log10_delta"])
BOXES = ["aud_T", "aud_eta", "aud_trials" if mode == "audit" else "aud_reps", "aud_seed"] \
    + (["aud_target"] if mode == "audit" else []) \
    + (["aud_sigma"] if noise == "custom" else [])
values_error = None
if mode == "stability":
    s1, s2, s3 = st.columns([2, 3, 3])
    s1.radio("Neighbour S′", ["random", "adversarial"], key="aud_nb", horizontal=True,
             help="random: a uniformly chosen example replaced by a fresh one; adversarial: the largest example "
                  "replaced by its reflection −x")
    over = s2.radio("Stability", list(ap.OVER_LABELS), key="aud_over", horizontal=True,
                    format_func=ap.OVER_LABELS.get,
                    help="along t: one setting, the distance at every step; over n / η / α: the final distance at "
                         "every value of a grid, beside the theorem's bound there (α: the q-norm loss with "
                         "q = 1 + α, whose gradient is α-Hölder)")
    if over != "t":
        vkey = ap.VALUES_KEY[over]
        s3.text_input({"n": "values of n", "eta": "values of η", "alpha": "values of α"}[over], key=vkey,
                      help="1 to 12 comma-separated values; all run coupled (same indices and noise), n and η "
                           "in one vectorised batch")
        try:
            ap.validate(vkey, st.session_state[vkey])
        except ValueError as exc:
            values_error = str(exc)

state = {k: st.session_state[k] for k in ap.SCHEMA}
state["aud_n"], state["aud_eps"] = view["n"], view["eps"]
state["delta"] = None if view["delta_auto"] else ui.params_from_view(view)["delta"]
# a grid being typed that is not valid yet keeps its last valid value in the link
last_grid = st.session_state.setdefault("_aud_last_grid", {})
kept = {}
for k in ap.VALUES_KEY.values():
    try:
        last_grid[k] = ap.validate(k, state[k])
    except ValueError:
        if k in last_grid and last_grid[k] != ap.validate(k, ap.DEFAULTS[k]):
            kept[k] = last_grid[k]
ui.sync_url()  # the shared entries (n, ε, δ, ...); the page's own aud_* entries follow
for k in list(st.query_params.keys()):
    if str(k).startswith("aud_"):
        del st.query_params[k]
for k, val in {**ap.encode({k: val for k, val in state.items() if k not in ("aud_n", "aud_eps")}), **kept}.items():
    st.query_params[k] = val


@st.cache_data(show_spinner=False, max_entries=256)
def _estimate(items: tuple):
    try:
        return ap.estimate(dict(items))
    except ValueError:
        return None  # the run itself refuses this setting at once, with its own message


def _compute(state):
    key = tuple(sorted(state.items()))
    gate = st.container()  # the Run button of heavy settings (one place, so the elements after it keep theirs)
    memo = st.session_state.setdefault("_aud_memo", {})
    if key in memo:
        return memo[key]
    # heavy work (estimated above Simulate's 30 s cap) waits for a click, also when a link opens the page
    cost = _estimate(key)
    with gate:
        if cost is not None and cost["seconds"] > ap.HEAVY_SECONDS:
            st.info(f"This setting needs about {cost['seconds']:.0f} s of computation (estimate), more than the "
                    f"{ap.HEAVY_SECONDS:.0f} s this page runs by itself: press Run to start it, or make it smaller "
                    "(trials / repetitions, T, n).")
            if not st.button(f"Run (about {cost['seconds']:.0f} s)", type="primary", key="aud_run"):
                return None
    # in the shared worker pool: a long audit does not slow other users' pages (dpviz_ui.workers)
    res = ui.run_job(ap.compute, dict(state), label="running", share=True)  # seeded: one run per view per server
    memo.clear()  # keep one result per session
    memo[key] = res
    return res


def _sweep_view(res):
    name = {"n": "n", "eta": "η", "alpha": "α"}[res.over]
    kind = "deterministic bound" if res.deterministic else f"holds with probability {1 - res.gamma:.0%}"
    worst = min(r["ratio"] for r in res.rows)
    m = st.columns(3)
    m[0].metric("grid values", len(res.rows))
    m[1].metric("smallest bound / measured", ui.fmt(worst))
    m[2].metric("repetitions above the bound", f"{max(r['exceed_fraction'] for r in res.rows):.1%}")
    st.write(f"**Sweep over {name}**: {', '.join(ui.fmt(x) for x in res.values)}; **{res.theorem}** ({kind}); "
             f"{res.reps} repetitions per value in **{res.seconds:.2f} s**; loss {res.loss}."
             + (" The n above is not used: every grid value is a sample size (T stays as set)." if res.over == "n"
                else ""))
    table = [{name: r["value"], "n": r["n"], "T": r["T"], "η": r["eta"], "α": r["alpha"], "bound": r["bound"],
              "max": r["max"], "q50": r["q50"], "q95": r["q95"], "q99": r["q99"],
              f"q{100 * (1 - res.gamma):g}": r["level_quantile"], "bound / max": r["ratio"],
              "above bound": r["exceed_fraction"], "last iterate max": r["last_max"], "average max": r["average_max"]}
             for r in res.rows]
    st.dataframe(table, hide_index=True)
    for note in res.notes:
        st.caption(note)
    ui.show_figure(ap.sweep_figure(res.rows, res.over, res.quantity), "stability_sweep")


def command(state) -> str:
    """The ``python -m dpviz audit`` / ``stability`` command that reproduces this view's numbers."""
    p = ap.params_of(state)
    parts = ["python -m dpviz", state["aud_mode"], "--algorithm", state["aud_alg"]]
    if state["aud_mode"] == "audit":
        parts += ["--trials", str(state["aud_trials"])]
        if state.get("aud_method", "clopper-pearson") != "clopper-pearson":
            parts += ["--method", state["aud_method"]]
        if state["aud_alg"] in ap.PAIRWISE and state["aud_param"] == "matrix":
            parts += ["--loss", "metric-logistic"]
    else:
        parts += ["--reps", str(state["aud_reps"]), "--neighbour", state["aud_nb"]]
        if state["aud_over"] != "t":
            parts += ["--over", state["aud_over"], "--values", ap.validate(ap.VALUES_KEY[state["aud_over"]],
                                                                           state[ap.VALUES_KEY[state["aud_over"]]])]
    parts += ["--seed", str(state["aud_seed"])]
    for k in ("n", "T", "eta", "eps"):
        parts += [f"--{k}", repr(p[k]) if isinstance(p[k], float) else str(p[k])]
    if "delta" in p:
        parts += ["--delta", repr(float(p["delta"]))]
    if "sigma" in p:
        parts += ["--sigma", repr(float(p["sigma"]))]
    if p.get("noise_rule"):
        parts += ["--param", f"noise_rule={p['noise_rule']}"]
    return " ".join(parts + ["--json"])


def _outputs(res) -> dict:
    """The numbers of a result, for Download this view (without the raw samples and distances)."""
    if isinstance(res, stab.SweepResult):
        return {"sweep": res.to_list()}
    return res.to_dict()


@st.cache_data(show_spinner=False, max_entries=256)
def _preview(items: tuple) -> dict:
    """The accountant's ε, the claim and the most ε the trials can certify, before any trial runs (cached)."""
    return ap.preview(dict(items))


LOWER = "ε lower bound (95 %)"


def _head(slots, pre: dict, lower: str, lower_help: str | None = None) -> None:
    """The audit's four main numbers in their places: the empirical bound (``lower``: a number after the trials,
    "…" while they run) and, known before any trial, the claim, the accountant's ε and the most ε the trials can
    certify."""
    slots[0].metric(LOWER, lower, help=lower_help)
    slots[1].metric("ε claimed (nominal)" if pre["nominal"] else "ε claimed", ui.fmt(pre["eps_claimed"]),
                    help=("The paper's experimental noise rule is not calibrated to this ε: the accountant's ε (next) "
                          "is what the noise that runs guarantees." if pre["nominal"] else None))
    slots[2].metric("accountant's ε", ui.fmt(pre["eps_accountant"]))
    slots[3].metric("most ε these trials can certify", ui.fmt(pre["max_certifiable"]))


def body():
    if ui.report_invalid(SHARED, page_keys=BOXES):
        return
    if values_error:
        st.error(values_error)
        return
    downloads = st.empty()  # above the slow run: while the page recomputes, the previous run's button is gone
    run_state = {k: val for k, val in state.items() if k not in ap.ANALYSIS_KEYS}
    audit_mode = state["aud_mode"] == "audit"
    try:
        if audit_mode:
            # the accountant's ε, the claim and the plan at once, before any trial runs; the empirical bound after
            pre = _preview(tuple(sorted(run_state.items())))
            slots = [col.empty() for col in st.columns(4)]
            _head(slots, pre, "…", "after the trials (progress below)")
            plan_line = st.empty()
            cost = _estimate(tuple(sorted(run_state.items())))
            plan_line.caption(
                f"**Plan**: {pre['trials']} trainings ({pre['trials'] // 2} on D, {pre['trials'] // 2} on D′); the "
                f"test is chosen on half of each side and evaluated on the other {pre['per_side']} per side, so "
                f"these trials can certify at most ε = {ui.fmt(pre['max_certifiable'])} at δ = {pre['delta']:.3g}; "
                f"σ = {ui.fmt(pre['sigma'])}"
                + ("" if cost is None else f"; about {cost['seconds']:.2g} s of computation (estimate)") + "."
                + ("" if pre["eps_accountant"] is not None else f" No accountant's ε: {pre['accountant_note']}"))
            ui.flush()  # send the main numbers before the trials start
        res = _compute(run_state)
    except ValueError as exc:  # an input the algorithm cannot run with: say so in the papers' notation
        st.error(f"{_alg_label(state['aud_alg'])} cannot run at these settings: {ui.pretty(exc)}")
        return
    if res is None:  # waits for a click on Run
        if audit_mode:
            _head(slots, pre, "not run", "press Run below to start the trials")
        return
    with downloads.container():
        ui.download_view("audit", inputs=dict(state), outputs=_outputs(res), command=command(state),
                         seed=int(state["aud_seed"]))
    if isinstance(res, stab.SweepResult):
        _sweep_view(res)
    elif audit_mode:
        _head(slots, pre, ui.fmt(res.eps_lower))
        st.write(f"**Canary**: {res.canary}. **Statistic** (the one that told D from D′ best on the first half "
                 f"of the trials): {res.statistic_detail}.")
        st.write(f"**{res.trials} trials** ({res.trials // 2} on D, {res.trials // 2} on D′) in "
                 f"**{res.seconds:.2f} s**; statistic: {res.statistic}; σ = {ui.fmt(res.sigma)}, "
                 f"δ = {res.delta:.3g}; on the evaluation half FPR = {res.fpr:.4g}, FNR = {res.fnr:.4g} "
                 f"(Clopper–Pearson upper bounds {res.fpr_upper:.4g}, {res.fnr_upper:.4g}).")
        if res.eps_claimed is not None and res.eps_lower > res.eps_claimed:
            st.error("The audit certifies more privacy loss than claimed: the claim (or the implementation) is wrong.")
        elif res.eps_lower <= 0:
            st.info(f"ε lower bound 0: these {res.trials} trials found no evidence of privacy loss beyond ε = 0 — "
                    "the statistic's values on D and on D′ overlap too much for the test to tell them apart with "
                    f"95 % confidence. This is not a proof of privacy: with this many trials the test could certify "
                    f"at most ε = {ui.fmt(res.max_certifiable)} even for an algorithm with no privacy at all; more "
                    "trials raise that ceiling.")
        else:
            st.caption(f"The audit certifies ε ≥ {ui.fmt(res.eps_lower)} with 95 % confidence; with {res.trials} "
                       f"trials it could certify at most ε = {ui.fmt(res.max_certifiable)}.")
        with st.container():  # a number of notes that depends on the setting: the elements after keep their places
            if res.accountant_note:
                st.caption("Accountant: " + res.accountant_note)
            for note in res.notes:
                st.caption(note)
        on_d, on_d2 = res.samples[res.statistic]
        ui.show_figure(ap.statistic_figure(on_d, on_d2, res.threshold, res.statistic,
                                           matrix=any("matrix parameter" in note for note in res.notes),
                                           detail=res.statistic_detail),
                       "audit_statistic")
        _method_view(res, state)
    else:
        m = st.columns(4)
        m[0].metric("bound", ui.fmt(res.bound))
        m[1].metric("measured max", ui.fmt(res.empirical["max"]))
        m[2].metric(f"measured {1 - res.gamma:.0%} quantile", ui.fmt(res.empirical_level))
        m[3].metric("bound / measured", ui.fmt(res.ratio))
        kind = "deterministic bound" if res.deterministic else f"holds with probability {1 - res.gamma:.0%}"
        what = {"gradient": "gradient sensitivity", "average": "distance of the averaged outputs",
                "last": "distance of the last iterates",
                "output": "distance of the released outputs (same noise on both sides)"}[res.quantity]
        st.write(f"**{res.theorem}** ({kind}) bounds the {what}; "
                 f"{res.reps} repetitions in **{res.seconds:.2f} s**; quantiles q50 = {ui.fmt(res.empirical['q50'])}, "
                 f"q95 = {ui.fmt(res.empirical['q95'])}, q99 = {ui.fmt(res.empirical['q99'])}; above the bound: "
                 f"{res.exceed_fraction:.1%} of repetitions.")
        st.write("Largest distance over the repetitions: " + ", ".join(
            f"{name} {ui.fmt(float(d.max()))}" for name, d in res.distances.items()) +
            " (output = what output perturbation adds noise to; last = w_T; average = the averaged iterate).")
        if res.sigma_justified is not None:
            st.info(f"σ the measured sensitivity would justify: {ui.fmt(res.sigma_justified)} (calibrated σ = "
                    f"{ui.fmt(res.sigma_calibrated)}). NOT a privacy guarantee: one neighbouring pair was measured, "
                    "not the worst case.")
        for note in res.notes:
            st.caption(note)
        ui.show_figure(ap.distance_figure(res.distances[res.quantity], res.bound, res.quantity), "stability_hist")
        if res.trace_max is not None and len(res.trace_max):
            ui.show_figure(ap.trace_figure(res.trace_t, res.trace_max, res.trace_q50, res.trace_bound,
                                           stab.TRACE_LABEL.get(res.algorithm, "bound")), "stability_trace")


def au_plan_sims() -> int:
    from dpviz.labs import audit_planner as planner

    return planner.PLAN_SIMULATIONS


@st.cache_data(show_spinner=False, max_entries=64)
def _plans(target: float, eps_true: float, delta: float, per_trial: float) -> list:
    from dpviz.labs import audit_methods as am, audit_planner as planner

    return [planner.plan_audit(target=target, eps_true=eps_true, delta=delta, method=m, seconds_per_trial=per_trial)
            for m in am.METHODS]


def _method_view(res, state):
    """The chosen method's ε lower bound on the same trials, the trade-off plot and the planner (dpviz.labs.audit_methods, audit_planner)."""
    from dpviz.foundation import privacy_figures as pf

    method = state["aud_method"]
    with st.container():
        st.subheader("Certified by the chosen method, and the trade-off curve")
        try:
            out = ap.method_result(res, method, seed=int(state["aud_seed"]))
        except ValueError as exc:
            st.error(f"{method}: {exc}")
            return
        m = st.columns(2)
        m[0].metric(f"ε lower bound, {method} (95 %)", ui.fmt(out["eps_lower"]))
        m[1].metric("ε lower bound, Clopper–Pearson (95 %)", ui.fmt(res.eps_lower))
        st.write(f"**{method}**: {out['detail']}.")
        st.caption(f"Assumption: {out['assumption']} ({out['citation']})")
        curves = ap.tradeoff_curves(res.eps_claimed, res.eps_accountant, res.delta, mechanism=res.tradeoff)
        ui.show_figure(pf.tradeoff_figure(curves, [out["point"]], title="Trade-off: type I vs type II error "
                                          "(Dong, Roth & Su 2022); a private mechanism's tests lie above its curve"),
                       "audit_tradeoff")
        if res.tradeoff:
            st.caption(f"The mechanism's curve ({res.tradeoff['label']}) is "
                       + ("its exact trade-off curve: " if res.tradeoff["exact"] else "") + res.tradeoff["how"] + ".")
    with st.container():
        st.subheader("Audit planner")
        target = float(state["aud_target"])
        if res.eps_accountant is None:
            st.info("No accountant's ε for this setting (" + (res.accountant_note or "none") + "), so nothing to "
                    "plan against.")
            return
        per_trial = res.seconds / res.trials
        try:
            plans = _plans(target, float(res.eps_accountant), float(res.delta), per_trial)
        except (ValueError, ArithmeticError) as exc:
            st.error(f"The planner cannot plan this setting (accountant's ε = {ui.fmt(res.eps_accountant)}): {exc}")
            return
        chosen = next(p for p in plans if p.method == method)
        if chosen.trials is None:
            st.warning(f"{method}: {chosen.reason}")
        else:
            st.write(f"To certify ε ≥ {ui.fmt(target)} with **{method}** with probability **{chosen.power:.0%}**, "
                     f"an attack this sharp needs **{chosen.trials:,} {'canaries' if method == 'one-run' else 'trials'}"
                     f"** ({chosen.runs:,} trainings here, about **{chosen.seconds:.3g} s** at this audit's measured "
                     f"{per_trial * 1e3:.3g} ms per trial)"
                     + ("" if chosen.simulated is None else
                        f"; {chosen.simulated:.0%} of {au_plan_sims()} simulated audits of that size reached it")
                     + ".")
        st.dataframe([{"method": p.method, f"trials / canaries ({p.power:.0%} power)": p.trials,
                       "trainings here": p.runs, "seconds here": None if p.seconds is None else round(p.seconds, 3),
                       "certifies": round(p.certified, 4)} for p in plans], hide_index=True)
        st.caption(f"Planned on a mechanism as private as its accountant says (ε = {ui.fmt(res.eps_accountant)}, "
                   f"δ = {res.delta:.3g}, taken as μ-GDP): each count is the number of trials at which the audit "
                   f"reaches the target with probability {chosen.power:.0%} (the two-sided methods checked on "
                   "simulated audits on exact Gaussian scores, the test chosen on half the trials as the audit does); "
                   "with fewer trials it falls short more often, and a mechanism less private than its accountant "
                   "says can need fewer.")


ui.guarded(body)
