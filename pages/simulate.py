"""Simulate: run the engine over a sweep of ε or n and compare the empirical excess risk with the theory."""

import math

import numpy as np
import streamlit as st

import dpviz_ui as ui
from dpviz import catalog, data as D, figures, simulate as S

EPS_CHOICES = [0.05, 0.1, 0.25, 0.5, 1.0, 2.0, 4.0, 8.0, 16.0]
N_CHOICES = [50, 100, 200, 500, 1000, 2000, 5000, 10000, 20000]
#: the UI's cost cap: about 30 s of engine time on the reference machine
UI_MAX_WORK = 30.0 / S.SECONDS_PER_UNIT
SYNTHETIC = ("wang-least-squares", "wang-logistic", "two-class", "clusters")


@st.cache_data(show_spinner=False, max_entries=20)
def _dataset(name: str, n: int, noise: float):
    return D.load_dataset(name, n=n, kappa=noise) if name in SYNTHETIC else D.load_dataset(name)


def _data() -> "D.Dataset | None":
    v = ui.view()
    src = st.radio("Data", ["bundled", "csv"], horizontal=True,
                   format_func={"bundled": "synthetic / bundled real data", "csv": "upload a CSV"}.get,
                   help="Synthetic data follow the papers' designs (the true w* is known); real data come with "
                        "scikit-learn; a CSV of your own needs numeric columns and a label column.")
    if src == "csv":
        up = st.file_uploader(f"CSV file (numeric columns, at most {D.MAX_CSV_BYTES // 1_000_000} MB)", type=["csv"],
                              help="One label column; the features are standardised and scaled to norm ≤ 1.")
        label = st.text_input("Label column", help="Name of the column holding the label / target.")
        if up is None or not label:
            st.info("Upload a CSV and name its label column.")
            return None
        if up.size > D.MAX_CSV_BYTES:
            st.error(f"The file is larger than {D.MAX_CSV_BYTES // 1_000_000} MB.")
            return None
        try:
            return D.from_csv(up.getvalue(), label)
        except ValueError as exc:
            st.error(f"This CSV cannot be used: {exc}")
            return None
    name = ui.view_choice("Data set", "dataset", D.DATASETS, format_func=D.DATASETS.get,
                          help="Every data set is scaled so that ||x|| ≤ 1. Excess risk is measured on a large fresh "
                               "sample (synthetic) or the held-out 30 % (real data).")
    noise = 0.0
    if name in SYNTHETIC[:2]:
        noise = st.number_input("Label noise κ (Wang, Lei, Ying & Zhou §5; 0 = realizable, low-noise case)", 0.0,
                                10.0, float(v["noise"]), step=0.05, format="%g",
                                help="Standard deviation of the Gaussian noise added to the labels.")
        ui.set_view(noise=float(noise))
    n_needed = max(int(v["n"]), 1000)  # the n sweep runs up to max(n, 1000)
    return _dataset(name, n_needed, float(noise))


def _snap(value, choices):
    """The entry of ``choices`` closest to ``value`` (in log scale)."""
    return min(choices, key=lambda c: abs(math.log(c) - math.log(max(value, 1e-12))))


def _compatible(loss, ds) -> bool:
    task = getattr(loss, "task", "regression")
    if task == "metric":
        return ds.task in ("multiclass", "classification")
    return task == ds.task


def _losses(ds) -> dict[str, str]:
    from dpviz import losses

    out = {}
    for lid in losses.loss_ids():
        loss = losses.get_loss(lid)
        if _compatible(loss, ds):
            out[lid] = f"{loss.name} ({loss.setting})"
    return out


def _theory(res, params):
    """The first theorem of the algorithm that bounds every grid point: (label, bounds DataFrame) or None."""
    extra = {k: params[k] for k in ("c", "mu") if k in params}
    for thm in (t for t in catalog.theorems() if t.algorithm == res.algorithm):
        b = res.bounds(thm.id, **extra)
        if (b["error"] == "").all():
            return f"{thm.paper.short}, {thm.number}", b
    return None


def body() -> None:
    st.title("Simulate")
    st.write("Run an algorithm many times on data and compare its **empirical excess risk** (population risk at the "
             "output minus the best risk) with the theory's curve. Each grid point and repetition has its own random "
             "stream from the seed: same seed, same numbers.")
    v = ui.view()
    params = ui.param_widgets(["n", "eps", "log10_delta", "T", "eta", "R", "mu", "c"],
                              required={"n", "eps", "T", "eta", "R"})
    ds = _data()
    if ds is None:
        return
    opts = _losses(ds)
    if not opts:
        st.error("No loss of dpviz fits this data set's task.")
        return
    loss = ui.view_choice("Loss", "sim_loss", opts, format_func=opts.get,
                          help="Pointwise losses use one example per step, pairwise losses (AUC, metric learning) a "
                               "pair.")
    from dpviz import losses

    setting = losses.get_loss(loss).setting
    algs = [a for a in S.supported_algorithms() if catalog.get_algorithm(a).setting == setting]
    private = [a for a in algs if catalog.get_algorithm(a).perturbation != "none"]
    baseline = [a for a in algs if catalog.get_algorithm(a).perturbation == "none"]
    alg_ids = ui.view_multiselect(
        "Algorithm(s)", "sim_algs", algs, fallback=private[:1] + baseline[:1],
        format_func=lambda i: f"{catalog.get_algorithm(i).name} — {catalog.get_algorithm(i).paper.short}",
        help="Private algorithms and their non-private baselines for this kind of loss.")
    sweep = ui.view_choice("Sweep over", "sim_sweep", ["eps", "n"], widget=st.radio, horizontal=True,
                           format_func={"eps": "ε (smaller = more private)", "n": "sample size n"}.get,
                           help="The parameter on the x-axis; the other one stays at its sidebar value.")
    if sweep == "eps":
        lo, hi = st.select_slider("ε range", EPS_CHOICES, value=(_snap(v["eps_lo"], EPS_CHOICES),
                                                                  _snap(v["eps_hi"], EPS_CHOICES)),
                                  help="Grid points of the sweep; smaller ε = more private.")
        ui.set_view(eps_lo=float(lo), eps_hi=float(hi))
        grid = [e for e in EPS_CHOICES if lo <= e <= hi]
    else:
        choices = [m for m in N_CHOICES if m <= ds.n] or [ds.n]
        lo, hi = st.select_slider("n range", choices, value=(_snap(v["n_lo"], choices), _snap(v["n_hi"], choices)),
                                  help="Grid points of the sweep (up to the sidebar's n, at least 1000).")
        ui.set_view(n_lo=int(lo), n_hi=int(hi))
        grid = [m for m in choices if lo <= m <= hi]
    run_inf = ui.view_checkbox("Noise as in the papers' experiments (no privacy guarantee from the theorem)",
                               "run_infeasible",
                                    help="Wang, Lei, Ying & Zhou §5 choose β to minimise σ over all of (0, 1) without "
                                    "checking their Theorem 2's privacy conditions, which gives far less noise than a "
                                    "feasible β. Tick to use that rule (and to run settings whose calibration is "
                                    "infeasible); untick for the calibrated, provably private noise.")
    c1, c2 = st.columns(2)
    reps = c1.number_input("Repetitions", 1, 500, int(v["reps"]), help="Independent runs per grid point (for the "
                           "95 % band: mean ± 1.96 standard errors).")
    seed = c2.number_input("Seed", 0, 2**31 - 1, int(v["seed"]), help="Same seed, same results.")
    ui.set_view(reps=int(reps), seed=int(seed))
    if len(grid) < 2:
        st.warning("Choose a range with at least two grid points (a slope needs two).")
        return
    if not alg_ids:
        st.warning("Choose at least one algorithm.")
        return
    fixed = {"T": params["T"], "eta": params["eta"], "R": params["R"], "mu": params["mu"]}
    if run_inf:
        fixed["run_infeasible"] = True
        fixed["noise_rule"] = "experiment"
    if not v["delta_auto"]:
        fixed["delta"] = params["delta"]  # otherwise the engine uses δ = 1/n² at every grid point
    if sweep == "eps":
        fixed["n"] = min(ds.n, int(params["n"]))
    else:
        fixed["eps"] = params["eps"]
    total = 0.0
    for a in alg_ids:
        try:
            cost = S.estimate_cost(a, ds, loss, grid={sweep: grid}, reps=int(reps), params=fixed)
        except ValueError as exc:
            st.error(f"{catalog.get_algorithm(a).name}: {exc}")
            return
        total += cost["seconds"]
    too_big = total > UI_MAX_WORK * S.SECONDS_PER_UNIT
    if too_big:
        st.error(f"Estimated run time {total:.0f} s is above this page's cap of about "
                 f"{UI_MAX_WORK * S.SECONDS_PER_UNIT:.0f} s: reduce the repetitions, the grid, T or n "
                 "(or run it from Python with dpviz.simulate, which takes any cap).")
    else:
        st.caption(f"Estimated run time: {total:.1f} s (runs over about 30 s are refused).")
    run = st.button("Run simulation", type="primary", disabled=too_big)
    key = (ds.name, ds.n, loss, tuple(alg_ids), sweep, tuple(grid), int(reps), int(seed), ui.items(fixed))
    if run:
        if st.button("Cancel", help="Stop the running simulation."):
            pass  # clicking reruns the page, which stops the run at its next progress update
        bar = st.progress(0.0, text="running…")
        results = []
        for k, a in enumerate(alg_ids):
            try:
                res = S.simulate(a, ds, loss, grid={sweep: grid}, reps=int(reps), seed=int(seed), params=fixed,
                                 max_work=UI_MAX_WORK,
                                 progress=lambda f, k=k: bar.progress(min(1.0, (k + f) / len(alg_ids)),
                                                                      text=f"running {k + 1}/{len(alg_ids)}…"))
            except S.CostTooHigh as exc:
                st.error(f"Refused: {exc}")
                continue
            results.append(res)
        bar.progress(1.0, text="done")
        st.session_state["_sim"] = {"key": key, "results": results}
    stored = st.session_state.get("_sim")
    if not stored or stored["key"] != key:
        st.info("Press **Run simulation** to see the results.")
        return
    show_results(stored["results"], params, sweep)


def show_results(results, params, sweep) -> None:
    curves, rows, slopes, notes = [], [], [], []
    for i, res in enumerate(results):
        name = catalog.get_algorithm(res.algorithm).name
        s = res.summary()
        s = s[np.isfinite(s["mean"])]
        if s.empty:
            st.warning(f"{name}: no grid point could run ({'; '.join(res.notes) or 'infeasible calibration'}).")
            continue
        x = [float(g) for g in s["grid"]]
        curves.append({"name": name, "x": x, "mean": list(s["mean"]), "ci_low": list(s["ci_low"]),
                       "ci_high": list(s["ci_high"]), "colour": i})
        theory = _theory(res, params)
        emp = {}
        try:
            emp = res.slope()
        except ValueError as exc:
            st.caption(f"{name}: no slope ({exc})")
        row = {"algorithm": name, "fitted slope": emp.get("slope"), "95 % CI low": emp.get("ci_low"),
               "95 % CI high": emp.get("ci_high"), "theorem": "—", "theory slope": None, "dominant term exponent": None}
        if theory is not None:
            label, b = theory
            b = b[b["grid"].isin(x)]  # the grid points that ran
            tot = list(b["bound"])
            ok = [(m, r) for m, r in zip(s["mean"], tot) if m > 0 and r > 0 and math.isfinite(r)]
            if ok:
                const = math.exp(float(np.mean([math.log(m / r) for m, r in ok])))
                curves.append({"name": f"{name}: {label} rate × fitted constant {const:.3g}", "x": x,
                               "y": [const * r for r in tot], "kind": "fitted", "colour": i})
            if b["explicit"].notna().any():
                curves.append({"name": f"{name}: {label} bound with the paper's constants", "x": x,
                               "y": [None if math.isnan(e) else e for e in b["explicit"]], "kind": "explicit",
                               "colour": i})
            exp_col = "n_exp" if sweep == "n" else "eps_exp"
            row.update({"theorem": label, "theory slope": figures.loglog_slope(x, tot),
                        "dominant term exponent": float(b[exp_col].iloc[-1])})
        slopes.append(row)
        notes.extend(f"{name}: {note}" for note in res.notes)
        rows.extend(res.frame.to_dict("records"))
    if notes:
        with st.expander(f"Notes on this run ({len(notes)})", expanded=any("not run" in n for n in notes)):
            for note in notes:
                st.caption(note)
    if not curves:
        return
    fig = figures.simulation_figure(curves, x_title="ε" if sweep == "eps" else "n",
                                    title=f"Excess risk vs {'ε' if sweep == 'eps' else 'n'}")
    ui.show_figure(fig, f"simulation_{sweep}")
    st.caption("Dashed: the theorem's rate multiplied by one constant fitted to the simulated means (the papers leave "
               "constants unspecified). Dotted: the bound with the paper's explicit constants, where it gives them.")
    st.subheader("Rates: fitted log-log slope vs theory")
    for r in slopes:
        if r["fitted slope"] is not None:
            ci = (f"95 % CI {r['95 % CI low']:.2f} to {r['95 % CI high']:.2f}"
                  if math.isfinite(r["95 % CI low"]) else "a confidence interval needs at least 3 grid points")
            theory = (f"theory ({r['theorem']}): slope {ui.fmt(r['theory slope'])} over this grid, dominant term "
                      f"exponent {ui.fmt(r['dominant term exponent'])}" if r["theorem"] != "—"
                      else "no theorem in the catalogue bounds this algorithm")
            st.write(f"{r['algorithm']}: fitted log-log slope {r['fitted slope']:.2f} ({ci}); {theory}")
    st.dataframe(slopes, width="stretch", hide_index=True)
    st.subheader("Results (one row per repetition and grid point)")
    st.dataframe(rows[:500], width="stretch")
    ui.download_table(rows, "simulation")


ui.guarded(body)
