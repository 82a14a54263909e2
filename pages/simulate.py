"""Simulate: run the engine over a sweep of ε or n and compare the empirical excess risk with the theory, or open a
sweep's Parquet output (python -m dpviz sweep) and plot it the same way."""

import hashlib
import math
import os
import time
from pathlib import Path
from types import SimpleNamespace

import numpy as np
import streamlit as st

from dpviz_ui import helpers as ui
from dpviz.theory import catalog
from dpviz.engine import data as D, simulate as S
from dpviz.foundation import figures
from dpviz_ui import simulate_view as SV, sweep_open as SO, workers
from dpviz.engine.simulate import schedule as SC

EPS_CHOICES = [0.05, 0.1, 0.25, 0.5, 1.0, 2.0, 4.0, 8.0, 16.0]
N_CHOICES = [50, 100, 200, 500, 1000, 2000, 5000, 10000, 20000]
#: the UI's cost cap: about 30 s of engine time on the reference machine
UI_MAX_WORK = 30.0 / S.SECONDS_PER_UNIT
#: a link opens with its simulation already run when the estimate is below this (seconds)
AUTO_RUN_SECONDS = 5.0
SYNTHETIC = ("wang-least-squares", "wang-logistic", "two-class", "clusters")
#: what a synthetic data set may cost before it is built (peak bytes while it is generated)
MAX_DATA_BYTES = 400_000_000
# The data-set cache keeps at most 4 entries; an entry that passed the check above keeps at most about 1/6.5 of its
# peak (dpviz.engine.data.estimate_dataset_cost: bytes_retained), i.e. about 62 MB, so the cache holds at most about 250 MB.
#: the server folder whose sub-folders are the sweeps the page can open (python -m dpviz sweep SPEC --out DIR/NAME)
SWEEPS_ENV = "DPVIZ_SWEEPS_DIR"
XLABELS = {"eps": "ε", "n": "n", "delta": "δ", "kappa": "label noise κ", "T": "T", "eta": "η", "alpha": "α"}
QUANTITIES = {"excess_risk": "excess risk", "metric": "test metric (misclassification rate, MSE or AUC)",
              "pop_risk": "population risk"}


@st.cache_data(show_spinner=False, max_entries=4)
def _dataset(name: str, n: int, noise: float):
    return D.load_dataset(name, n=n, kappa=noise) if name in SYNTHETIC else D.load_dataset(name)


def _data(n_needed: int) -> "D.Dataset | list | None":
    """The data set(s): one per label-noise value κ for the Wang et al. designs, else one."""
    st.session_state.setdefault("w_data_source", "bundled")
    src = st.radio("Data", ["bundled", "csv"], horizontal=True, key="w_data_source",
                   format_func={"bundled": "synthetic / bundled real data", "csv": "upload a CSV"}.get,
                   help="Synthetic data follow the papers' designs (the true w* is known); real data come with "
                        "scikit-learn; a CSV of your own needs numeric columns and a label column.")
    if src == "csv":
        st.caption("A link to this page does not contain your CSV: whoever opens it must upload the file again.")
        up = st.file_uploader(f"CSV file (numeric columns, at most {D.MAX_CSV_BYTES // 1_000_000} MB)", type=["csv"],
                              help="One label column; the features are standardised and scaled to norm ≤ 1.",
                              key="w_csv_file")
        label = st.text_input("Label column", help="Name of the column holding the label / target.",
                              key="w_csv_label")
        if up is None or not label:
            st.info("Upload a CSV and name its label column.")
            return None
        if up.size > D.MAX_CSV_BYTES:
            st.error(f"This file has {up.size / 1e6:.1f} MB; the limit is {D.MAX_CSV_BYTES / 1e6:g} MB. "
                     "Use fewer rows or columns.")
            return None
        blob = up.getvalue()
        key = (hashlib.sha256(blob).hexdigest(), label)
        memo = st.session_state.get("_csv_memo")
        if memo is not None and memo[0] == key:
            return [memo[1]]
        try:  # parsed in the worker pool under a CPU-time limit, never on this thread (issue 22)
            ds = ui.run_job(workers.load_csv, blob, label, label="reading the CSV")
        except ValueError as exc:
            st.error(f"This CSV cannot be used: {ui.plain(exc)}")
            return None
        st.session_state["_csv_memo"] = (key, ds)  # one parsed CSV per session
        return [ds]
    name = ui.view_choice("Data set", "dataset", D.DATASETS, format_func=D.DATASETS.get,
                          help="Every data set is scaled so that ||x|| ≤ 1. Excess risk is measured on a large fresh "
                               "sample (synthetic) or the held-out 30 % (real data).")
    kappas = [0.0]
    if name in SYNTHETIC[:2]:
        kappas = ui.list_input("Label noise κ — one or more values, one curve each (Wang, Lei, Ying & Zhou §5; "
                            "0 = realizable, low-noise case)", "kappas", [ui.view()["noise"]], "float", 0.0, 10.0,
                            "Standard deviation of the Gaussian noise added to the labels; several values "
                            "(e.g. 0, 0.1, 0.15 as in the paper's Fig. 1) give one curve each.")
        if kappas is None:
            ui.stop_if_invalid(["kappas"])
        kappas = kappas[:4]
    if name in SYNTHETIC:  # the cost of the data set is checked before anything is built
        cost = D.estimate_dataset_cost(name, n=n_needed)
        if cost.bytes_peak > MAX_DATA_BYTES:
            per_row = cost.bytes_peak / max(cost.rows, 1)
            st.error(f"Generating {n_needed:,} examples of this data set would take about "
                     f"{cost.bytes_peak / 1e9:.3g} GB of memory and {cost.seconds:.2g} s, above this page's limit of "
                     f"{MAX_DATA_BYTES / 1e9:.2g} GB: choose n ≤ "
                     f"{max(2, int(MAX_DATA_BYTES / per_row) - (cost.rows - n_needed)):,}. Nothing was built or run.")
            return None
    return [_dataset(name, n_needed, float(k)) for k in kappas]


def _compatible(loss, ds) -> bool:
    task = getattr(loss, "task", "regression")
    if task == "metric":
        return ds.task in ("multiclass", "classification")
    return task == ds.task


def _losses(ds) -> dict[str, str]:
    from dpviz.engine import losses

    out = {}
    for lid in losses.loss_ids():
        loss = losses.get_loss(lid)
        if _compatible(loss, ds):
            out[lid] = f"{loss.name} ({loss.setting})"
    return out


def _algorithm_options(setting: str) -> tuple[list, list]:
    """(the algorithms the page can run for a loss of ``setting``, the first choice: the first private one and the
    first non-private baseline)."""
    algs = [a for a in S.supported_algorithms() if catalog.get_algorithm(a).setting == setting]
    private = [a for a in algs if catalog.get_algorithm(a).perturbation != "none"]
    baseline = [a for a in algs if catalog.get_algorithm(a).perturbation == "none"]
    return algs, private[:1] + baseline[:1]


def _shown_algorithms(v: dict) -> list:
    """The algorithms the page's "Algorithm(s)" box shows in this run (:func:`dpviz_ui.helpers.multiselect_choice`),
    known before the box is drawn: the sidebar stars the inputs they use above it, right from a first visit."""
    from dpviz.engine import losses

    try:
        algs, first = _algorithm_options(losses.get_loss(v["sim_loss"]).setting)
    except ValueError:
        return []
    return ui.multiselect_choice("sim_algs", algs, first)


def _takes_q(loss_id: str) -> bool:
    """Whether the loss has an exponent q (the q-norm losses: α = q − 1, Wang, Lei, Ying & Zhang, Section 1)."""
    from dpviz.engine import losses

    try:
        return getattr(losses.get_loss(loss_id), "q", None) is not None
    except ValueError:
        return False


def _domain_inputs(alg_ids) -> tuple[bool, bool, bool]:
    """The expander of the domain W and of the noise's G, and PIDP-SGD's start: (project, G from the loss,
    PIDP-SGD starts at the non-private minimiser)."""
    with st.expander("Domain and Lipschitz constant G of the noise (the line below says what the run uses)"):
        project = ui.view_checkbox("Project the iterates onto the ball ||w|| ≤ R (untick: W = R^d, no projection)",
                                   "sim_project",
                                   help="Algorithm 1 of Wang, Lei, Ying & Zhou projects onto a convex set W; their "
                                        "§5 does not state W. Without a projection the loss's gradient bound G is "
                                        "not implied by R: give G yourself.")
        if project:
            g_auto = ui.view_checkbox("G from the loss (its gradient bound at ||x|| ≤ sup ||x|| and ||w|| ≤ R)",
                                      "sim_G_auto",
                                      help="E.g. least squares (⟨w, x⟩ − y)²/2 with |y| ≤ 1: G = κ(κR + 1). Untick "
                                           "to give the G of a paper's experiment (Wang et al. Fig. 1: |y| ≤ 0.5, "
                                           "so G = 1·(1·1 + 0.5) = 1.5).")
        else:
            g_auto = False
            st.caption("No projection (W = R^d): R bounds neither the iterates nor the gradient, so G is given here "
                       "and the sidebar's R is not used by the algorithms.")
        if not g_auto:
            ui.view_number("G", "Lipschitz constant G used by the noise formula",
                           help="The bound on the loss gradient's norm that the private algorithms' noise is "
                                "calibrated to.")
            ui.stop_if_invalid(["G"])
    pidp_erm = False
    if "pidp-sgd" in alg_ids:
        pidp_erm = ui.view_checkbox("PIDP-SGD: start at the non-private minimiser (the paper's line 2)", "pidp_erm",
                                    help="Kang, Li, Liu & Wang's Algorithm 1 starts from θ̃, read as the non-private "
                                         "empirical risk minimiser. That start is computed from the data without "
                                         "noise, so the released model is not differentially private. dpviz starts "
                                         "from 0 like DP-SGD-PL unless you tick this.")
        if pidp_erm:
            st.warning("PIDP-SGD starts at the non-private minimiser: it leaks the training data, so these runs are "
                       "NOT differentially private (they are marked so in the results).")
    return project, g_auto, pidp_erm


def _bound(theorem_id: str, p: dict) -> dict:
    """The schedule rule's bound, through the cache every session shares."""
    return ui.cached_bound(theorem_id, ui.items(p))


def _schedule(sched_src, alg_ids, params, fixed, sweep, grid, ds, loss_obj, g_used, v):
    """(one schedule per grid point, the theorem that set it or None, the sentence saying where T and η come from,
    the parameters the theorem was evaluated with): the rule of :mod:`dpviz.engine.simulate.schedule`."""
    if sched_src == "manual":
        return ([SC.PointSchedule(float(g), int(params["T"]), float(params["eta"])) for g in grid], None,
                f"T = {ui.fmt(params['T'])} and η = {ui.fmt(params['eta'])} from the sidebar at every grid point.",
                None)
    base = SC.schedule_params({**fixed, "R": float(params["R"]), "c": float(params["c"]),
                               "mu": float(params["mu"])} | ({} if v["delta_auto"] else
                                                             {"delta": float(params["delta"])}),
                              loss=loss_obj, data_bound=ds.x_bound, d=ds.d, G=g_used)
    own = SC.point_params(base, sweep, float(params[sweep]), delta_auto=bool(v["delta_auto"]))
    choice = SC.choose_schedule_theorem(alg_ids, own, bound=_bound, loss=loss_obj)
    if choice.theorem is None:
        note = (f"{choice.note} This run uses the sidebar's T = {ui.fmt(params['T'])} and η = "
                f"{ui.fmt(params['eta'])} at every grid point (choose 'the sidebar (manual)' above to change them).")
        return ([SC.PointSchedule(float(g), int(params["T"]), float(params["eta"])) for g in grid], None, note,
                None)
    points = SC.theorem_schedule(choice.theorem, sweep=sweep, grid=grid, params=base,
                                 delta_auto=bool(v["delta_auto"]), bound=_bound)
    what = "ε" if sweep == "eps" else "n" + (" (and δ = 1/n²)" if v["delta_auto"] else "")
    note = (f"T and η at every grid point: {choice.note}, evaluated at that point's own {what} -- never at the "
            "other grid values, so adding or removing grid values changes no other point. Every algorithm of the run "
            "(baselines included) uses it.")
    return points, choice.theorem, note, base


def _point_cost(datasets, alg_ids, loss_obj, sweep, reps, fixed, pt) -> float:
    """The estimated seconds of grid point ``pt`` for every algorithm and data set of the run."""
    total = 0.0
    for d_ in datasets:
        for a in alg_ids:
            total += S.estimate_cost(a, d_, loss_obj, grid={sweep: [pt.value]}, reps=int(reps),
                                     params={**fixed, "T": pt.T, "eta": pt.eta})["seconds"]
    return total


def body() -> None:
    st.title("Simulate")
    st.write("Run an algorithm many times on data and compare its **empirical excess risk** (population risk at the "
             "output minus the best risk) with the theory's curve. Each grid point and repetition has its own random "
             "stream from the seed and the point's own value: same seed, same numbers, whatever the other grid "
             "values.")
    source = ui.view_choice("Results from", "sim_source", ["run", "sweep"], widget=st.radio, horizontal=True,
                            format_func={"run": "a simulation run on this page",
                                         "sweep": "a sweep's output (python -m dpviz sweep)"}.get,
                            help="A sweep (python -m dpviz sweep SPEC.toml --out DIR) runs a larger rate study, "
                                 "e.g. on a Dask cluster; open its Parquet output here to plot it like a run.")
    if source == "sweep":
        sweep_view()
        return
    i = _inputs()
    if i is None:
        return
    pl = _plan_view(i)
    if pl is None:
        return
    _run_view(i, pl)


def _inputs() -> SimpleNamespace | None:
    """Every widget of a run: the sidebar, the grid, the data, the loss (and its q), the algorithms, the domain and G,
    repetitions and seed; None when the page stops (an input is invalid or missing: its message is on screen)."""
    v = ui.view()
    experiment = _experiment_note(v)
    sched_src = ui.view_choice("T and η from", "sim_schedule", ["theorem", "manual"], widget=st.radio,
                               horizontal=True,
                               format_func={"theorem": "the theorem the run is compared with",
                                            "manual": "the sidebar (manual)"}.get,
                               help="A theorem's bound holds for its own step size η and number of iterations T: "
                                    "comparing a run with it means running at that schedule, set at every grid "
                                    "point from that point's own n or ε. 'manual' runs at the sidebar's T and η "
                                    "(the theory curve is then only a reference).")
    takes_q = _takes_q(v["sim_loss"])
    names = (["n", "eps", "log10_delta"] + (["T", "eta"] if sched_src == "manual" else []) + ["R", "mu", "c"]
             + (["q"] if takes_q else []))
    # "*": the inputs that change the run or its theory curve -- n; ε unless it is swept; δ (its box shows when it is
    # not tied to n); T and η when set by hand; R when the iterates are projected or a theorem sets the schedule (the
    # loss's constants at R); μ and c where the chosen algorithms' calibrations or theorems use them (the catalogue's
    # declarations, dpviz_ui.helpers.starred); q (α = q − 1) of a q-norm loss
    now = [catalog.get_algorithm(a) for a in _shown_algorithms(v)]
    uses = ui.starred(algorithms=now, theorems=[t for a in now for t in catalog.theorems_bounding(a.id)])
    required = ({"n", "log10_delta", "T", "eta", "q"} | ({"eps"} if v["sim_sweep"] != "eps" else set())
                | ({"R"} if v["sim_project"] or sched_src == "theorem" else set()) | (uses & {"c"})
                | (uses & {"mu"} if not v["l2"] else set()))
    params = ui.param_widgets(names, required=required & set(names))
    ui.stop_if_invalid(names)
    sweep = ui.view_choice("Sweep over", "sim_sweep", ["eps", "n"], widget=st.radio, horizontal=True,
                           format_func={"eps": "ε (smaller = more private)", "n": "sample size n"}.get,
                           help="The parameter on the x-axis; the other one stays at its sidebar value.")
    if sweep == "eps":
        default = [e for e in EPS_CHOICES if v["eps_lo"] <= e <= v["eps_hi"]]
        grid = ui.list_input("ε grid (comma-separated)", "eps_grid", default, "float", 1e-4, 1e4,
                             "The ε values of the sweep; smaller ε = more private.")
    else:
        default = [m for m in N_CHOICES if v["n_lo"] <= m <= v["n_hi"]]
        grid = ui.list_input("n grid (comma-separated)", "n_grid", default, "int", 2, 10**7,
                             "The sample sizes of the sweep.")
    ui.stop_if_invalid(["eps_grid", "n_grid"])
    grid = sorted({float(g) for g in grid})
    n_needed = max(int(v["n"]), int(max(grid)) if sweep == "n" else 0)
    datasets = _data(int(n_needed))
    if not datasets:
        return None
    ds = datasets[0]
    opts = _losses(ds)
    if not opts:
        st.error("No loss of dpviz fits this data set's task.")
        return None
    loss = ui.view_choice("Loss", "sim_loss", opts, format_func=opts.get,
                          help="Pointwise losses use one example per step, pairwise losses (AUC, metric learning) a "
                               "pair. A q-norm loss takes its exponent q (α = q − 1) from the sidebar.")
    from dpviz.engine import losses

    algs, first = _algorithm_options(losses.get_loss(loss).setting)
    alg_ids = ui.view_multiselect(
        "Algorithm(s)", "sim_algs", algs, fallback=first,
        format_func=lambda i: f"{catalog.get_algorithm(i).name} — {catalog.get_algorithm(i).paper.short}",
        help="Private algorithms and their non-private baselines for this kind of loss.")
    run_inf = ui.view_checkbox("Noise as in the papers' experiments (no privacy guarantee from the theorem)",
                               "run_infeasible",
                               help="Wang, Lei, Ying & Zhou §5 choose β to minimise σ over all of (0, 1) without "
                                    "checking their Theorem 2's privacy conditions, which gives far less noise than a "
                                    "feasible β. Tick to use that rule (and to run settings whose calibration is "
                                    "infeasible); untick for the calibrated, provably private noise.")
    project, g_auto, pidp_erm = _domain_inputs(alg_ids)
    g_note = st.empty()
    quantity = ui.view_choice("Plot", "plot_value", list(QUANTITIES), widget=st.radio, horizontal=True,
                              format_func=QUANTITIES.get,
                              help="Excess risk (against the best risk over the same domain) is what the theorems "
                                   "bound; the papers' figures often plot the test metric instead.")
    lam = ui.view_number("l2", "L2 regulariser λ (adds λ‖w‖², strong convexity μ = 2λ; Xue et al. §5 use 10⁻³ "
                         "for AUC and 10⁻² for metric learning; 0 = none)",
                         help="DPGDSC (Xue et al., Algorithm 1) needs a strongly convex loss: with λ > 0 its μ is "
                              "2λ, from the loss; with λ = 0 it is refused (the sidebar's μ would not be a property "
                              "of the loss, so the noise would not be private).")
    c1, c2 = st.columns(2)
    reps = ui.view_number("reps", "Repetitions", container=c1,
                          help="Independent runs per grid point (for the 95 % band: mean ± 1.96 standard errors).")
    seed = ui.view_number("seed", "Seed", container=c2, help="Same seed, same results.")
    ui.stop_if_invalid(["reps", "seed", "l2"])
    q = float(v["q"]) if _takes_q(loss) else None
    try:
        loss_obj = losses.get_loss(loss, **({"q": q} if q is not None else {}),
                                   **({"l2": float(lam)} if lam else {}))
    except ValueError as exc:
        st.error(f"This loss cannot be used with these settings: {ui.plain(exc)}")
        return None
    if q is not None:
        st.caption(f"{loss_obj.name}: q = {ui.fmt(q)}, so its gradient is α-Hölder with α = q − 1 = "
                   f"{ui.fmt(loss_obj.alpha)} (the sidebar's q sets it).")
    try:
        g_used = loss_obj.constants(kappa=max(ds.x_bound, 1e-12), R=float(params["R"]))["G"] if g_auto else \
            float(v["G"])
        g_src = f"from the loss at sup ||x|| = {ds.x_bound:.3g} and R = {params['R']:g}" if g_auto else "given"
    except (TypeError, ValueError, KeyError):
        g_used, g_src = None, "from the loss"
    g_note.caption(f"Noise calibrated to G = {'?' if g_used is None else f'{g_used:.4g}'} ({g_src}); iterates "
                   + (f"projected onto ||w|| ≤ R = {params['R']:g}." if project else "not projected (W = R^d)."))
    if len(grid) < 2:
        st.warning("Choose at least two grid points (a slope needs two, a confidence interval three).")
        return None
    if not alg_ids:
        st.warning("Choose at least one algorithm.")
        return None
    return SimpleNamespace(experiment=experiment, sched_src=sched_src, params=params, sweep=sweep, grid=grid, n_needed=n_needed, datasets=datasets, ds=ds, loss=loss, alg_ids=alg_ids, run_inf=run_inf, project=project, g_auto=g_auto, pidp_erm=pidp_erm, quantity=quantity, lam=lam, reps=reps, seed=seed, q=q, loss_obj=loss_obj, g_used=g_used)


def _plan_view(i: SimpleNamespace) -> SimpleNamespace | None:
    """The run plan (:mod:`dpviz.engine.simulate.schedule`) on screen: where T and η come from, the grid points
    that will not run with their reasons, the estimate; None when nothing can run."""
    v = ui.view()
    experiment, sched_src, params, sweep, grid, n_needed, datasets, ds, loss, alg_ids, run_inf, project, g_auto, pidp_erm, quantity, lam, reps, seed, q, loss_obj, g_used = (i.experiment, i.sched_src, i.params, i.sweep, i.grid, i.n_needed, i.datasets, i.ds, i.loss, i.alg_ids, i.run_inf, i.project, i.g_auto, i.pidp_erm, i.quantity, i.lam, i.reps, i.seed, i.q, i.loss_obj, i.g_used)
    fixed = SC.fixed_params(params=params, sweep=sweep, data_n=ds.n, manual=True, project=project,
                            G=None if g_auto else float(v["G"]), l2=float(lam or 0), delta_auto=bool(v["delta_auto"]),
                            pidp_erm=pidp_erm, experiment_noise=run_inf)
    fixed.pop("T"), fixed.pop("eta")  # set per grid point below
    points, schedule_thm, sched_note, sched_base = _schedule(sched_src, alg_ids, params, fixed, sweep, grid, ds,
                                                             loss_obj, g_used, v)
    if schedule_thm is None and sched_src == "theorem":
        st.warning(sched_note)
    else:
        st.caption(sched_note)
    if sweep == "n":  # a grid point above the data set's size is a gap, not a silent cut
        points = [pt if pt.value <= ds.n else SC.PointSchedule(pt.value, pt.T, pt.eta,
                                                               f"this data set has only {ds.n:,} training examples")
                  for pt in points]
    cap = UI_MAX_WORK * S.SECONDS_PER_UNIT
    ok = [pt for pt in points if pt.ok]
    if ok:  # an algorithm that cannot run at all (e.g. DPGDSC without strong convexity) is named once, with its fix
        for a in alg_ids:
            try:
                S.estimate_cost(a, ds, loss_obj, grid={sweep: [ok[0].value]}, reps=int(reps),
                                params={**fixed, "T": ok[0].T, "eta": ok[0].eta})
            except ValueError as exc:
                name_, msg = catalog.get_algorithm(a).name, str(exc)
                st.error(ui.plain(msg if msg.startswith(name_) else f"{name_}: {msg}"))
                if "strongly convex" in msg or "mu = " in msg:  # the library's advice names a Python call
                    st.info(f"On this page: set the L2 regulariser λ above (μ = 2λ; Xue, Yang, Huai & Wang use "
                            f"λ = 10⁻³ for AUC), or remove {name_} from the algorithms to run the others.")
                else:
                    st.info(f"Remove {name_} from the algorithms to run the others.")
                return None
    runnable, gaps, total = SC.split_runnable(
        points, lambda pt: _point_cost(datasets, alg_ids, loss_obj, sweep, reps, fixed, pt), cap)
    xlab = XLABELS[sweep]
    with st.container():  # the grid points that will not run, each with its reason (their number varies)
        if gaps:
            st.warning("Not run (drawn as gaps): " + "; ".join(f"{xlab} = {ui.fmt(pt.value)}: {ui.pretty(pt.reason)}"
                                                              for pt in gaps))
    too_big = total > cap
    if too_big:
        st.error(f"Estimated run time {total:.0f} s is above this page's cap of about {cap:.0f} s: reduce the "
                 "repetitions, the grid, T or n (or run it from Python with dpviz.engine.simulate, which takes any cap).")
    elif runnable:
        st.caption(f"Estimated run time: {total:.1f} s (runs over about {cap:.0f} s are refused).")
    else:
        st.error("No grid point can run (see above).")
        return None
    grid_run = [pt.value for pt in runnable]
    run_fixed = ({**fixed, "T": [pt.T for pt in runnable], "eta": [pt.eta for pt in runnable]} if schedule_thm
                 else {**fixed, "T": int(params["T"]), "eta": float(params["eta"])})  # the sidebar's, everywhere
    return SimpleNamespace(fixed=fixed, points=points, schedule_thm=schedule_thm, gaps=gaps, runnable=runnable, total=total, too_big=too_big, grid_run=grid_run, run_fixed=run_fixed)


def _run_view(i: SimpleNamespace, pl: SimpleNamespace) -> None:
    """The run button, the runs in the worker pool, and the results of the last run of this plan."""
    experiment, sched_src, params, sweep, grid, n_needed, datasets, ds, loss, alg_ids, run_inf, project, g_auto, pidp_erm, quantity, lam, reps, seed, q, loss_obj, g_used = (i.experiment, i.sched_src, i.params, i.sweep, i.grid, i.n_needed, i.datasets, i.ds, i.loss, i.alg_ids, i.run_inf, i.project, i.g_auto, i.pidp_erm, i.quantity, i.lam, i.reps, i.seed, i.q, i.loss_obj, i.g_used)
    fixed, points, schedule_thm, gaps, runnable, total, too_big, grid_run, run_fixed = (pl.fixed, pl.points, pl.schedule_thm, pl.gaps, pl.runnable, pl.total, pl.too_big, pl.grid_run, pl.run_fixed)
    key = (tuple((d_.name, d_.n, d_.kappa) for d_ in datasets), loss, q, float(lam or 0), tuple(alg_ids), sweep,
           tuple(grid), int(reps), int(seed), repr(sorted(run_fixed.items())))
    first_view = not st.session_state.get("_sim_seen")
    st.session_state["_sim_seen"] = True
    run = st.button("Run simulation", type="primary", disabled=too_big)
    auto = first_view and not too_big and total < AUTO_RUN_SECONDS and st.session_state.get("_sim") is None
    if auto:
        st.caption(f"Opened from a link: the simulation runs at once (estimate {total:.1f} s < {AUTO_RUN_SECONDS:g} s).")
    # the downloads' slot sits above the run: while a new run computes, the previous run's buttons are gone at once
    downloads = st.empty()
    if run or auto:
        if st.button("Cancel", help="Stop the running simulation."):
            pass  # clicking reruns the page, which stops the run at its next progress update
        results = []
        jobs = [(d_, a) for d_ in datasets for a in alg_ids]
        t0 = time.perf_counter()
        for k, (d_, a) in enumerate(jobs):
            try:  # in the shared worker pool: a long run does not slow other users' pages
                res = ui.run_job(workers.run_simulation, a, d_, loss, float(lam or 0), grid={sweep: grid_run},
                                 reps=int(reps), seed=int(seed), params=run_fixed, max_work=UI_MAX_WORK,
                                 loss_q=q, label=f"running {k + 1}/{len(jobs)}: {catalog.get_algorithm(a).name}")
            except S.CostTooHigh as exc:
                st.error(f"Refused: {ui.plain(exc)}")
                continue
            except workers.Busy as exc:
                st.warning(ui.plain(exc))
                return
            results.append((d_.kappa if len(datasets) > 1 else None, res))
        took = time.perf_counter() - t0
        st.caption(f"Done in {took:.1f} s (estimated {total:.1f} s).")
        st.session_state["_sim"] = {"key": key, "results": results, "seconds": took, "estimate": total}
    stored = st.session_state.get("_sim")
    if not stored or stored["key"] != key:
        st.info("Press **Run simulation** to see the results.")
        return
    slot = downloads.container()
    # the table's downloads carry the parameters the runs used (the loss's G, the theorem's T and η), not the
    # sidebar's (whose G, L, M, α the run may not use)
    used = {**run_fixed, **({"G": g_used} if g_used is not None else {}), "loss": str(loss), "l2": float(lam or 0),
            "seed": int(seed), "reps": int(reps), **({"q": q} if q is not None else {})}
    show_results(stored["results"], params, sweep, quantity, downloads=slot, schedule_thm=schedule_thm,
                 trivial=_trivial_excess(datasets, loss_obj, stored["results"]), table_params=used,
                 grid=grid, gaps=gaps, loss=loss_obj,
                 fstar={(d_.kappa if len(datasets) > 1 else None): SV.fstar_upper(loss_obj, d_) for d_ in datasets})
    ui.download_view("simulate", container=slot,
                     inputs={"dataset": [d_.name for d_ in datasets], "kappas": [d_.kappa for d_ in datasets],
                             "loss": loss, "q": q, "algorithms": list(alg_ids), "sweep": sweep, "grid": grid,
                             "grid_run": grid_run, "gaps": {pt.value: pt.reason for pt in gaps},
                             "schedule_theorem": schedule_thm, "reps": int(reps), **run_fixed,
                             "paper_experiment": experiment.id if experiment is not None else None},
                     outputs={"rows": [r for _k, res in stored["results"] for r in res.frame.to_dict("records")],
                              "seconds": stored["seconds"], "estimated_seconds": stored["estimate"]},
                     command=_command(datasets, loss, q, float(lam or 0), alg_ids, sweep, grid_run, int(reps),
                                      int(seed), fixed if schedule_thm else run_fixed, n_needed,
                                      schedule=(schedule_thm, params["c"], params["R"]) if schedule_thm else None),
                     seed=int(seed))


def _trivial_excess(datasets, loss_obj, results) -> dict:
    """Excess risk of always predicting with w = 0 (the trivial predictor), per curve label (κ or None): F(0) on the
    engine's evaluation sample minus the reference the run's excess risk is measured against."""
    out = {}
    by_label = {(d_.kappa if len(datasets) > 1 else None): d_ for d_ in datasets}
    for label, res in results:
        if label in out or label not in by_label or "excess_risk" not in res.frame or "pop_risk" not in res.frame:
            continue
        ok = res.frame[np.isfinite(res.frame["excess_risk"])]
        if ok.empty:
            continue
        try:
            out[label] = SC.trivial_excess(by_label[label], loss_obj,
                                           reference=float((ok["pop_risk"] - ok["excess_risk"]).iloc[0]))
        except (ValueError, AttributeError, TypeError, KeyError, IndexError):
            continue
    return out


def _command(datasets, loss: str, q, lam: float, alg_ids, sweep: str, grid, reps: int, seed: int, fixed: dict,
             n_needed: int, schedule=None) -> str | None:
    """The ``python -m dpviz simulate`` command that reruns exactly this page's runs (same data, loss, grid points
    that ran, fixed parameters, schedule rule, repetitions and seed), or None for an uploaded CSV (a command cannot
    carry the file)."""
    if st.session_state.get("w_data_source") == "csv":
        return None
    parts = ["python -m dpviz simulate", *(f"--algorithm {a}" for a in alg_ids), f"--dataset {datasets[0].name}"]
    if datasets[0].name in SYNTHETIC:
        parts.append(f"--data-n {int(n_needed)}")
    if len(datasets) > 1 or datasets[0].name in SYNTHETIC[:2]:
        parts += [f"--label-noise {float(d_.kappa)!r}" for d_ in datasets]
    parts += [f"--loss {loss}"] + ([f"--loss-q {float(q)!r}"] if q is not None else []) + (
        [f"--l2 {lam!r}"] if lam else [])
    values = [int(x) if sweep == "n" else float(x) for x in grid]
    parts += [f"--over {sweep}", "--values " + ",".join(str(x) if isinstance(x, int) else repr(x) for x in values),
              f"--reps {reps}", f"--seed {seed}"]
    if schedule is not None:
        thm, c, R = schedule
        parts += [f"--schedule {thm}", f"--schedule-c {float(c)!r}", f"--schedule-R {float(R)!r}"]
        parts.append(ui.cli_options(fixed))
    else:
        parts.append(ui.cli_options(fixed))
    parts.append("--json")
    return " ".join(p for p in parts if p)


def _experiment_note(v: dict):
    """Say so when the view is a paper experiment's setting (its one definition in dpviz/studies/experiments.py); that
    experiment (or None)."""
    from dpviz.studies import experiments

    for e in experiments.with_presets():
        if e.kind != "simulation":
            continue
        try:
            want = e.preset_view()
        except ValueError:
            continue  # an experiment the Simulate page cannot show (its test in tests/test_presets.py says why)
        want.pop("page")
        want.setdefault("sim_schedule", "manual")  # an experiment runs at its own T and η, not a theorem's
        if all(v.get(k) == val for k, val in want.items() if k not in ("reps", "seed", "plot_value")):
            st.info(f"This is the setting of {e.what} ({e.place}), as defined once in dpviz/studies/experiments.py. "
                    f"`python -m dpviz reproduce {e.id}` runs the same σ, η, T, grid and seed with the paper's 500 "
                    f"repetitions (here {v['reps']}).")
            return e
    return None


def _sweeps_root() -> Path:
    return Path(os.environ.get(SWEEPS_ENV) or "sweeps")


# An opened sweep is kept ONCE for every session (SO.KEPT: cache_data would unpickle a full copy of its decoded rows
# on every run of every page that shows it) and evicted: at most 2, for at most an hour; each holds at most
# SO.MAX_DECODED_BYTES decoded.  Opening (footers, decoding) runs in a worker job, in a child process with hard memory
# and CPU limits (workers.open_sweep): this thread never parses a visitor's file, and a refusal is never kept.
def _open(kind: str, a, b, key: tuple) -> "SO.SweepData":
    data = SO.KEPT.get(key)
    if data is None:
        data = SO.KEPT.put(key, ui.run_job(workers.open_sweep, kind, a, b, label="opening the sweep"))
    return data


def sweep_view() -> None:
    """Open a sweep's Parquet output (a sub-folder of the server's sweeps folder, or an upload) and plot it like a
    run of this page: same figure, 95 % bands, rates and table, with the sweep's provenance in every download."""
    st.session_state.setdefault("w_sweep_how", "folder")
    how = st.radio("Open", ["folder", "upload"], horizontal=True, key="w_sweep_how",
                   format_func={"folder": "a sweep in the server's sweeps folder",
                                "upload": "upload a sweep (.zip of its folder, or one .parquet file)"}.get,
                   help=f"The sweeps folder is set by the server (environment variable {SWEEPS_ENV}, default "
                        "./sweeps): run python -m dpviz sweep SPEC.toml --out sweeps/NAME and NAME appears here.")
    data = None
    if how == "folder":
        root = _sweeps_root()
        found = SO.list_sweeps(root)
        if not found:
            st.info(f"No sweep in the server's sweeps folder yet. Run `python -m dpviz sweep SPEC.toml --out "
                    f"{ui.plain(root.name)}/NAME` on the server (folder set by {SWEEPS_ENV}), or upload one.")
            return
        names = {f["name"]: f for f in found}

        def _fmt(nm):
            f = names[nm]
            grid = " × ".join(f"{SO.SYMBOLS.get(k, k)} ({c})" for k, c in f["grid"].items()) or "no grid"
            return f"{nm}{' — ' + f['spec_name'] if f['spec_name'] else ''}: {grid}, {f['cells']} cells"

        chosen = ui.view_choice("Sweep", "sweep_dir", list(names), format_func=_fmt,
                                help="Sub-folders of the sweeps folder that hold a sweep's output (sweep.json and "
                                     "cell-*.parquet).")
        d = root / chosen
        stamp = tuple((p.name, p.stat().st_mtime_ns) for p in sorted(d.glob("cell-*.parquet")))
        try:
            data = _open("folder", str(root), chosen, ("folder", str(root), chosen, stamp))
        except ValueError as exc:
            st.error(f"This sweep cannot be opened: {ui.plain(exc)}")
            return
    else:
        st.caption("A link to this page does not contain your uploaded file: whoever opens it must upload it again.")
        up = st.file_uploader(f"Sweep output: a .zip of the --out folder or one .parquet file (at most "
                              f"{SO.MAX_UPLOAD_BYTES // 1_000_000} MB)", type=["zip", "parquet"], key="w_sweep_file")
        if up is None:
            st.info("Upload a sweep's output: zip the folder given to `python -m dpviz sweep … --out DIR`.")
            return
        if up.size > SO.MAX_UPLOAD_BYTES:
            st.error(f"This file has {up.size / 1e6:.1f} MB; the limit is {SO.MAX_UPLOAD_BYTES / 1e6:g} MB.")
            return
        blob = up.getvalue()
        try:
            data = _open("upload", up.name, blob, ("upload", up.name, hashlib.sha256(blob).hexdigest()))
        except ValueError as exc:
            st.error(f"This file cannot be opened as a sweep: {ui.plain(exc)}")
            return
    for note in data.notes:
        st.warning(ui.plain(note))
    xs = data.x_choices()
    if not xs:
        st.warning("This sweep has no parameter with two or more positive values to put on the x-axis.")
        return
    x = ui.view_choice("x-axis", "sweep_x", xs, widget=st.radio, horizontal=True,
                       format_func=lambda k: XLABELS.get(k, k),
                       help="The swept parameter on the x-axis; every other swept parameter gives its own curves.")
    quantity = ui.view_choice("Plot", "plot_value", list(QUANTITIES), widget=st.radio, horizontal=True,
                              format_func=QUANTITIES.get,
                              help="Excess risk is what the theorems bound; the papers' figures often plot the test "
                                   "metric instead.")
    prov = data.provenance()
    st.caption("Sweep: " + ui.plain(", ".join(f"{k} = {val}" for k, val in prov.items() if val not in (None, ""))))
    results = data.results(x, quantity)
    flagged = [f"{res.algorithm}{' (' + lab + ')' if lab else ''}: {note}" for lab, res in results
               for note in res.notes if "outside its range" in note]
    if flagged:
        st.warning(ui.plain("Values outside the quantity's range: " + "; ".join(flagged[:5])
                            + (f"; and {len(flagged) - 5} more curves" if len(flagged) > 5 else "")))
    show_results(results, {**prov, "x": x, "quantity": quantity}, x, quantity, name="sweep", theory=False,
                 subtitle=f"{prov['sweep']}, spec hash {prov['spec_hash']}, seed {prov['seed']}, dpviz "
                          f"{prov['dpviz_version_of_sweep']}")
    ui.download_view("simulate", inputs={"sweep": prov["sweep"], "x": x, "quantity": quantity},
                     outputs={"provenance": prov,
                              "rows": [r for _l, res in results for r in res.frame.to_dict("records")][:20000]},
                     command=None, seed=None)


def show_results(results, params, sweep, quantity="excess_risk", *, name="simulation", theory=True,
                 subtitle="", downloads=None, schedule_thm: str | None = None, trivial: dict | None = None,
                 table_params: dict | None = None, grid=None, gaps=(), loss=None, fstar: dict | None = None) -> None:
    """Plot, rates and table of ``results`` ((κ or label, result) pairs); ``theory=False`` for a sweep's rows (no
    calibrations stored, so no theorem curves); ``name`` names the downloads; ``subtitle`` (plain text, escaped here)
    goes under the figure's title (a sweep's provenance); ``downloads``: where the table's downloads go (a slot the
    page reserved above its run, see :func:`dpviz_ui.helpers.download_view`); ``schedule_thm``: the theorem whose T and η
    the run used (compared first); ``trivial``: the excess risk of w = 0 per κ label, to say when private runs are
    no better and when a bound is vacuous; ``table_params``: the parameters the runs used, carried by the table's
    downloads (default ``params``); ``grid``: every grid value of the page (default: the runs' own); ``gaps``: the
    page's grid points that did not run (:class:`dpviz.engine.simulate.schedule.PointSchedule` with a reason);
    ``loss``: the loss object of the runs (only the theorems that apply to it are drawn as their theory); ``fstar``:
    per κ label, an upper bound on F(w*) (:func:`dpviz_ui.simulate_view.fstar_upper`) for the explicit bounds that
    need it."""
    theory_on = theory
    curves, rows, slopes, notes, lessons, gap_marks, levels, vacuous = [], [], [], [], [], [], [], []
    fstar_notes = []
    qname = QUANTITIES[quantity]
    xlab = XLABELS.get(sweep, sweep)
    page_gaps = {float(pt.value): pt.reason for pt in gaps}
    for i, (kappa, res) in enumerate(results):
        label = SV.curve_label(res, kappa)
        short = SV.curve_label(res, kappa, short=True)
        name_ = label
        frame = res.frame
        ran = frame[np.isfinite(frame[quantity])] if quantity in frame else frame.iloc[0:0]
        if quantity == "metric" and len(ran):
            qname = f"test {ran['metric_name'].iloc[0]}"
        s = res.summary(quantity) if len(ran) else None
        grid_values = getattr(res, "grid_values", None) or []  # a sweep's rows (FrameResult) carry none
        own_gaps = SV.run_gaps(res, quantity) if grid_values else {}
        x_all = sorted({float(g) for g in (grid or [])} | {float(g) for g in grid_values}
                       | ({float(g) for g in s["grid"]} if s is not None else set()))
        for g, why in own_gaps.items():
            gap_marks.append({"x": g, "reason": why, "name": short})
        if s is not None:
            s = s[np.isfinite(s["mean"])]
        if s is None or s.empty:
            st.warning(f"{name_}: no grid point could run ({ui.pretty('; '.join(res.notes)) or 'not private'}).")
            continue
        x = [float(g) for g in s["grid"]]
        reps_n = int(res.frame['rep'].nunique())
        curve = SV.empirical_curve(name_, short, x_all, s, i, reps_n)
        curves.append(curve)
        emp = {}
        try:
            emp = res.slope(quantity)
        except ValueError as exc:
            st.caption(f"{name_}: no slope ({ui.pretty(exc)})")
        row = {"algorithm": name_, "fitted slope": emp.get("slope"), "95 % CI low": emp.get("ci_low"),
               "95 % CI high": emp.get("ci_high"), "points": len(x), "theorem": "—", "theory slope": None,
               "dominant term exponent": None}
        triv = (trivial or {}).get(kappa)
        found = SV.theory_for(res, params, schedule_thm, loss) if quantity == "excess_risk" and theory_on else None
        if found is not None:
            thm_label, _tid, b = found
            b, fs_note = SV.explicit_with_fstar(res, params, _tid, b, (fstar or {}).get(kappa))
            if fs_note and fs_note not in fstar_notes:  # F(w*): what the dotted curve used, or why it is not drawn
                fstar_notes.append(fs_note)
            more, facts = SV.theory_curves(name_, short, x_all, s, b, thm_label, i, trivial=triv)
            curves.extend(more)
            exp_col = "n_exp" if sweep == "n" else "eps_exp"
            row.update({"theorem": thm_label, "theory slope": facts["theory slope"],
                        "dominant term exponent": float(b[exp_col].iloc[-1])})
            if facts["vacuous"]:
                vacuous.append(f"{short}: {thm_label}'s bound with the paper's constants is **vacuous here** at "
                               f"{xlab} = {', '.join(ui.fmt(g) for g in facts['vacuous'])} ("
                               + ("at least " if "explicit_low" in b else "")  # F(w*) unknown: its F(w*) = 0 value
                               + ", ".join(ui.fmt(facts["explicit_low"][g]) for g in facts["vacuous"][:4])
                               + (", …" if len(facts["vacuous"]) > 4 else "")
                               + f"): above the trivial bound, the excess risk of w = 0 ({ui.fmt(triv)}), which "
                               "outputting 0 achieves without looking at the data.")
        if row["fitted slope"] is not None:  # the fitted slope beside the theory's, in the legend
            curve["short"] = (f"{short} (slope {row['fitted slope']:+.2f}"
                              + (f"; theory {row['theory slope']:+.2f})" if row["theory slope"] is not None else ")"))
        if quantity == "excess_risk" and triv is not None and triv > 0 and not any(
                abs(lv["y"] - triv) <= 1e-12 * triv for lv in levels):
            levels.append({"name": "w = 0 (trivial predictor)" + (f", κ = {kappa:g}" if isinstance(kappa, float)
                                                                  else ""), "y": triv})
        private = catalog.get_algorithm(res.algorithm).perturbation != "none"
        if quantity == "excess_risk":  # the lessons are about the excess risk (w = 0's is not a test metric)
            lessons.extend(SV.lessons(name_, row, s, x, xlab, private, triv, res, schedule_thm, theory_on))
        slopes.append(row)
        notes.extend(f"{name_}: {ui.pretty(note)}" for note in res.notes)
        rows.extend(r for r in frame.to_dict("records")  # grid points that did not run are not rows
                    if isinstance(r.get("pop_risk"), float) and math.isfinite(r["pop_risk"]))
    gap_marks += [{"x": g, "reason": why, "name": "every algorithm", "plan": True} for g, why in page_gaps.items()]
    if any("every step got noise" in n for n in notes):
        st.info("PIDP-SGD added noise at every step under its own calibration: its decision rule never skipped the "
                "noise here, so it ran as DP-SGD with extra work (see the notes).")
    if notes:
        with st.expander(f"Notes on this run ({len(notes)})", expanded=any("not run" in n for n in notes)):
            for note in notes:
                st.caption(note)
    with st.container():  # in plain words, above the chart: when the run does not show what the theory says (a
        for line in lessons:  # container of its own: their number varies, the chart after it keeps its place)
            st.warning(line)
        for line in vacuous:
            st.warning(line)
        for line in fstar_notes:
            st.caption(ui.pretty(line))
        engine_gaps = [m for m in gap_marks if not m.get("plan")]
        if engine_gaps:
            st.caption("Did not run (crosses on the chart): " + "; ".join(
                f"{m['name']} at {xlab} = {ui.fmt(m['x'])}: {ui.pretty(m['reason'])}" for m in engine_gaps[:12])
                + (" …" if len(engine_gaps) > 12 else ""))
    if not curves:
        return
    title = f"{qname.capitalize()} vs {xlab}"
    if subtitle:
        import html

        title += f"<br><sub>{html.escape(subtitle)}</sub>"
    fig = figures.simulation_figure(curves, x_title=xlab, y_title=qname, title=title, gaps=gap_marks, levels=levels)
    ui.show_figure(fig, f"{name}_{sweep}", params)
    if quantity == "excess_risk" and theory_on:
        st.caption("Solid: the simulated mean with its 95 % band (the legend gives its fitted log-log slope and the "
                   "theory's over the same grid). Dashed: the theorem's rate multiplied by one constant fitted to the "
                   "simulated means (the papers leave constants unspecified). Dotted: the bound with the paper's "
                   "explicit constants, where it gives them; circled 'vacuous' where it is above the excess risk of "
                   "w = 0 (dash-dotted). Crosses: grid points that did not run (hover for why).")
    st.subheader("Rates: fitted log-log slope" + (" vs theory" if quantity == "excess_risk" and theory_on else ""))
    for r in slopes:
        if r["fitted slope"] is None:
            continue
        lo, hi = r["95 % CI low"], r["95 % CI high"]
        ci = (f"95 % CI {lo:.2f} to {hi:.2f}" if r["points"] >= 3 and lo is not None and hi is not None
              and math.isfinite(lo) and math.isfinite(hi) else "no confidence interval: it needs at least 3 grid points")
        theory = (f"theory ({r['theorem']}): slope {ui.fmt(r['theory slope'])} over this grid, dominant term "
                  f"exponent {ui.fmt(r['dominant term exponent'])}" if r["theorem"] != "—"
                  else ("no theorem in the catalogue bounds this algorithm's excess population risk at every grid "
                        "point" if quantity == "excess_risk" and theory_on else ""))
        st.write(f"{r['algorithm']}: fitted log-log slope {r['fitted slope']:.2f} ({ci})"
                 + (f"; {theory}" if theory else ""))
        if r["points"] < 3:
            r["95 % CI low"] = r["95 % CI high"] = None
    if not theory_on:  # a sweep's rows: no theorem columns (no calibrations are stored with them)
        slopes = [{k: val for k, val in r.items() if k not in ("theorem", "theory slope", "dominant term exponent")}
                  for r in slopes]
    # a missing number (no theorem, no interval from fewer than 3 points) is shown as "—", not "None"
    st.dataframe([{k: ("—" if val is None else ui.fmt(val) if isinstance(val, float) else val)
                   for k, val in r.items()} for r in slopes], width="stretch", hide_index=True)
    st.subheader("Results (one row per repetition and grid point that ran)")
    st.dataframe(rows[:500], width="stretch")
    ui.download_table(rows, name, params if table_params is None else table_params, container=downloads)


ui.guarded(body)
