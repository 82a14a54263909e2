"""Accounting: each paper's σ beside tight accountants of the same mechanism, both directions, and a calculator."""

import math

import numpy as np
import streamlit as st

import dpviz_ui as ui
from dpviz import catalog, privacy_figures, privacy_lab

# ---------------------------------------------------------------------------------------------------------------
# page state: widget keys (all prefixed acc_, also the URL parameter names), defaults and allowed ranges

ALGS = list(privacy_lab.ALGORITHMS)
#: key -> (kind, default, (low, high) or options)
SCHEMA = {
    "acc_algorithm": ("choice", "dpsgd-rdp", ALGS),
    "acc_n": ("int", 1000, (2, 10**7)),
    "acc_eps": ("float", 1.0, (1e-3, 100.0)),
    "acc_log10_delta": ("float", -6.0, (-30.0, -1.0)),
    "acc_T": ("int", 1000, (1, 10**6)),
    "acc_G": ("float", 1.0, (1e-6, 1e6)),
    "acc_eta": ("float", 0.01, (1e-9, 10.0)),
    "acc_mu": ("float", 0.1, (1e-6, 1e6)),
    "acc_L": ("float", 1.0, (1e-6, 1e6)),
    "acc_M": ("float", 1.0, (0.0, 1e6)),
    "acc_alpha": ("float", 0.5, (0.0, 1.0)),
    "acc_R": ("float", 1.0, (1e-6, 1e6)),
    "acc_sigma": ("float", 0.0, (0.0, 1e9)),
    "acc_calc_n": ("int", 60000, (2, 10**9)),
    "acc_calc_batch": ("int", 256, (1, 10**9)),
    "acc_calc_epochs": ("float", 10.0, (0.01, 1e4)),
    "acc_calc_nm": ("float", 1.1, (0.01, 1e4)),
    "acc_calc_log10_delta": ("float", -5.0, (-30.0, -1.0)),
    "acc_calc_sampling": ("choice", "poisson", ["poisson", "without-replacement"]),
    "acc_calc_neighbouring": ("choice", "add-remove", ["add-remove", "replace-one"]),
}
#: which parameters each algorithm's calibration takes (besides n, eps, delta)
PARAMS = {
    "dpsgd-rdp": ["T", "G"],
    "dpsgd-rdp-pairwise": ["T", "G"],
    "dpsgd-pl": ["T", "G"],
    "pidp-sgd": ["T", "G", "mu"],
    "pairwise-sgd-output": ["T", "eta", "G"],
    "dpsgd-output": ["T", "eta", "L", "M", "alpha", "R"],
    "dpgd-sc": ["G", "mu"],
    "dpgd-c": ["T", "G"],
    "dpgdc": ["T", "eta", "G"],
    "dp-epoch-gd": ["eta", "G"],
}
LABEL = {"T": "T (steps)", "G": "G (gradient bound)", "eta": "η (step size)", "mu": "μ (strong convexity / PL)",
         "L": "L (Hölder constant)", "M": "M (gradient at 0)", "alpha": "α (Hölder exponent)",
         "R": "R (domain radius)"}


def _clamp(key: str, raw):
    """A URL value for ``key``, parsed (never evaluated) and clamped into range; ValueError if it is not one."""
    kind, _default, rng = SCHEMA[key]
    text = str(raw)[:40]
    if kind == "choice":
        if text not in rng:
            raise ValueError(key)
        return text
    try:
        x = float(text)
    except ValueError:
        raise ValueError(key) from None
    if not math.isfinite(x):
        raise ValueError(key)
    if kind == "int":
        if x != int(x):
            raise ValueError(key)
        x = int(x)
    lo, hi = rng
    return min(max(x, type(x)(lo)), type(x)(hi))


def _init_state() -> None:
    """Widget values: kept from this session (also across pages), else from the URL on the first visit (validated
    and clamped, bad entries ignored with one notice), else the defaults."""
    saved = st.session_state.setdefault("_acc_saved", {})
    if not st.session_state.get("_acc_url_read"):
        st.session_state["_acc_url_read"] = True
        bad = []
        for key in st.query_params.keys():
            if key.startswith("acc_"):
                if key not in SCHEMA:
                    bad.append(key[:30])
                    continue
                try:
                    saved[key] = _clamp(key, st.query_params.get(key))
                except ValueError:
                    bad.append(key)
        if bad:
            st.session_state["_acc_bad"] = bad
    for key, (_kind, default, _rng) in SCHEMA.items():
        st.session_state.setdefault(key, saved.get(key, default))


def _sync() -> None:
    saved = st.session_state["_acc_saved"]
    for key in SCHEMA:
        saved[key] = st.session_state[key]
        value = st.session_state[key]
        st.query_params[key] = f"{value:.10g}" if isinstance(value, float) else str(value)


def _num(key: str, label: str, col, **kw):
    kind, _default, (lo, hi) = SCHEMA[key]
    if kind == "int":
        return col.number_input(label, min_value=int(lo), max_value=int(hi), step=1, key=key, **kw)
    return col.number_input(label, min_value=float(lo), max_value=float(hi), key=key, format="%.6g", **kw)


# ---------------------------------------------------------------------------------------------------------------
# cached computations

@st.cache_data(show_spinner=False, max_entries=256)
def fast_rows(alg: str, items: tuple, sigma) -> dict:
    return privacy_lab.evaluate(alg, sigma=sigma, names=("rdp", "analytic-gaussian"), closed_inverse=False,
                                **dict(items))


@st.cache_data(show_spinner=False, max_entries=256)
def pld_rows(alg: str, items: tuple, sigma) -> dict:
    return privacy_lab.evaluate(alg, sigma=sigma, names=("pld",), closed_inverse=sigma is not None, **dict(items))


@st.cache_data(show_spinner=False, max_entries=128)
def curves(alg: str, items: tuple, sigma_center: float, eps_target: float) -> dict:
    mech = privacy_lab.mechanism(alg, **dict(items))
    sigmas = [float(s) for s in sigma_center * np.logspace(-1.0, 1.0, 17)]
    out = {}
    for acc in privacy_lab.accountants(mech):
        if acc.name == "pld":
            continue
        try:
            out[acc.label] = (privacy_lab.sigma_eps_curve(mech, acc, sigmas), sigmas)
        except ValueError:
            continue
    epss = [float(e) for e in eps_target * np.logspace(-1.0, 1.0, 11)]
    closed = privacy_lab.closed_form_curve(mech, epss) if mech._closed is not None else []
    if closed:
        out["closed form"] = (epss, closed)
    return out


@st.cache_data(show_spinner=False, max_entries=128)
def steps_curves(alg: str, items: tuple, sigma: float) -> dict:
    mech = privacy_lab.mechanism(alg, **dict(items))
    top = max(10 * mech.steps, 100)
    grid = sorted({int(round(x)) for x in np.logspace(0, math.log10(top), 13)})
    series = {}
    for acc in privacy_lab.accountants(mech):
        if acc.name == "pld":
            continue
        series[acc.label] = privacy_lab.eps_vs_steps(mech, acc, sigma, grid)
    return {"steps": grid, "series": series, "current": mech.steps}


@st.cache_data(show_spinner=False, max_entries=128)
def calc(items: tuple) -> dict:
    return privacy_lab.calculator(**dict(items))


def _table(res: dict, user_sigma) -> list[dict]:
    rows = [{
        "accountant": "paper's closed form",
        "sampling / relation": "the paper's",
        "matches paper": True,
        "σ for ε": ui.fmt(res["paper_sigma"]),
        "σ / paper σ": ui.fmt(1.0) if res["paper_sigma"] else "—",
        "ε of paper σ": ui.fmt(res["eps_mechanism"]) if res["paper_sigma"] else "—",
        **({"ε of your σ": ui.fmt(res["closed_form"].get("eps_of_sigma"))} if user_sigma else {}),
    }]
    for r in res["accountants"]:
        rows.append({
            "accountant": r["label"],
            "sampling / relation": f"{r['sampling']}, {r['neighbouring']}",
            "matches paper": r["matches_paper"],
            "σ for ε": ui.fmt(r["sigma_for_eps"]),
            "σ / paper σ": ui.fmt(r["sigma_ratio_to_paper"]),
            "ε of paper σ": ui.fmt(r["eps_of_paper_sigma"]),
            **({"ε of your σ": ui.fmt(r.get("eps_of_sigma"))} if user_sigma else {}),
        })
    return rows


def body() -> None:
    st.title("Privacy accounting")
    st.write("What ε does a paper's noise level really buy? For each algorithm, the σ of the paper's closed form "
             "beside tight numerical accountants of the **same** mechanism (the paper's sampling and neighbouring "
             "relation), and beside the Poisson add/remove accountants that Opacus and TF Privacy use. Both "
             "directions: the σ each accountant needs for your (ε, δ), and the ε a given σ buys.")
    ui.init_state()  # the app's navigation even on a first visit through a shared link
    _init_state()
    if st.session_state.get("_acc_bad"):
        st.warning("Some link parameters were not valid and were ignored: "
                   + ", ".join(ui.plain(b) for b in st.session_state.pop("_acc_bad")) + ".")
    names = {a: catalog.get_algorithm(a).name for a in ALGS}
    c1, c2, c3, c4 = st.columns([3, 1, 1, 1])
    alg = c1.selectbox("Algorithm", ALGS, key="acc_algorithm", format_func=lambda a: names.get(a, a))
    _num("acc_n", "n (examples)", c2)
    _num("acc_eps", "target ε", c3, help="smaller ε = more private")
    _num("acc_log10_delta", "log10 δ", c4)
    needed = PARAMS[alg]
    cols = st.columns(max(len(needed), 1) + 1)
    for name, col in zip(needed, cols):
        _num(f"acc_{name}", LABEL[name], col)
    _num("acc_sigma", "your σ (0 = none)", cols[-1], help="a noise level of your own: the table shows the ε it buys")
    _sync()

    params = {"n": int(st.session_state.acc_n), "eps": float(st.session_state.acc_eps),
              "delta": 10.0 ** float(st.session_state.acc_log10_delta)}
    for name in needed:
        params[name] = st.session_state[f"acc_{name}"]
    if alg == "pidp-sgd":
        params["R"] = 1.0
    items = ui.items(params)
    user_sigma = float(st.session_state.acc_sigma) or None

    res = fast_rows(alg, items, user_sigma)
    st.subheader("The mechanism")
    st.write(res["mechanism"])
    st.caption(f"Paper's closed form: {res['closed_form']['formula']}")
    if res["eps_mechanism"] != res["eps"] or res["delta_mechanism"] != res["delta"]:
        st.caption(f"The Gaussian noise must meet (ε, δ) = ({res['eps_mechanism']:.4g}, {res['delta_mechanism']:.3g}) "
                   f"of the total ({res['eps']:g}, {res['delta']:.3g}).")
    st.subheader("σ needed for the target, and the ε a σ buys")
    if res["paper_sigma"] is None:
        st.warning("The paper's conditions do not hold at these settings, so it gives no σ; the accountants still "
                   "say what σ the mechanism needs.")
    table = st.empty()
    table.dataframe(_table(res, user_sigma) + [{"accountant": "PLD: computing…"}], hide_index=True)
    matched = res["accountants"][0]
    summary = (f"Summary: the paper's σ = {ui.fmt(res['paper_sigma'])}; the matched accountant ({matched['label']}) "
               f"needs σ = {ui.fmt(matched['sigma_for_eps'])} for ε = {res['eps_mechanism']:.4g}")
    if res["paper_sigma"]:
        summary += f", and the paper's σ really buys ε = {ui.fmt(matched['eps_of_paper_sigma'])} under it"
    if user_sigma:
        summary += f"; your σ = {user_sigma:g} buys ε = {ui.fmt(matched.get('eps_of_sigma'))}"
    st.text(summary + ".")
    st.caption("Matched = the paper's own sampling and neighbouring relation. ε of paper σ: the ε the paper's σ "
               "really buys under each accountant (more than the target means the paper's σ is not enough for "
               "that accountant's mechanism).")
    for note in res["notes"]:
        st.caption(note)
    for r in res["accountants"]:
        if r.get("error"):
            st.caption(f"{r['label']}: {r['error']}")

    pld = pld_rows(alg, items, user_sigma)
    merged = dict(res)
    merged["accountants"] = res["accountants"] + pld["accountants"]
    merged["closed_form"] = pld["closed_form"]
    table.dataframe(_table(merged, user_sigma), hide_index=True)
    ui.download_table(merged["accountants"], "accounting")
    for r in pld["accountants"]:
        if r.get("error"):
            st.caption(f"{r['label']}: {r['error']}")

    center = res["paper_sigma"] or next((r["sigma_for_eps"] for r in res["accountants"] if r["sigma_for_eps"]), None)
    if center:
        cv = curves(alg, items, float(center), params["eps"])
        points = {"paper's σ at the target ε": (params["eps"] if res["paper_sigma"] else None, res["paper_sigma"])}
        for r in merged["accountants"]:
            points[f"σ needed: {r['name']}, {r['sampling']}"] = (res["eps_mechanism"], r["sigma_for_eps"])
        ui.show_figure(privacy_figures.sigma_eps_figure(cv, points, title="Noise σ against ε: closed form and "
                                                        "accountants (log-log)"), "accounting_sigma_eps")

    s_steps = user_sigma or res["paper_sigma"] or center
    if s_steps:
        sc = steps_curves(alg, items, float(s_steps))
        who = "your σ" if user_sigma else "the paper's σ" if res["paper_sigma"] else "the matched accountant's σ"
        x_title = ("number of steps (compositions)" if res["steps"] > 1 or res["sampling_prob"] < 1
                   else "number of releases (if the release were repeated)")
        ui.show_figure(privacy_figures.eps_steps_figure(sc["steps"], sc["series"], current_steps=sc["current"],
                                                        title=f"ε bought by {who} = {s_steps:.4g} as steps "
                                                              "compose", x_title=x_title), "accounting_eps_steps")

    st.subheader("Why the accountants disagree")
    st.markdown(privacy_lab.EXPLANATION)

    st.subheader("General calculator (DP-SGD with any sampling)")
    st.write("In the style of TF Privacy's compute_dp_sgd_privacy and Opacus: data set size, batch size, epochs, "
             "noise multiplier σ/C (C = clipping norm), δ, sampling scheme and neighbouring relation → ε by RDP and "
             "by PLD. Under replace-one the clipped sum changes by up to 2C, so the same noise multiplier buys a "
             "larger ε than under add/remove.")
    k1, k2, k3, k4 = st.columns(4)
    _num("acc_calc_n", "n", k1)
    _num("acc_calc_batch", "batch size", k2)
    _num("acc_calc_epochs", "epochs", k3)
    _num("acc_calc_nm", "noise multiplier σ/C", k4)
    k5, k6, k7 = st.columns(3)
    _num("acc_calc_log10_delta", "log10 δ", k5)
    k6.selectbox("sampling", SCHEMA["acc_calc_sampling"][2], key="acc_calc_sampling")
    k7.selectbox("neighbouring", SCHEMA["acc_calc_neighbouring"][2], key="acc_calc_neighbouring")
    _sync()
    if st.session_state.acc_calc_batch > st.session_state.acc_calc_n:
        st.caption("The batch size is larger than n: the whole data set is used in every step.")
    out = calc(ui.items({"n": int(st.session_state.acc_calc_n),
                         "batch_size": int(min(st.session_state.acc_calc_batch, st.session_state.acc_calc_n)),
                         "epochs": float(st.session_state.acc_calc_epochs),
                         "noise_multiplier": float(st.session_state.acc_calc_nm),
                         "delta": 10.0 ** float(st.session_state.acc_calc_log10_delta),
                         "sampling": st.session_state.acc_calc_sampling,
                         "neighbouring": st.session_state.acc_calc_neighbouring}))
    st.write(f"{out['steps']} steps at sampling rate q = {out['sampling_prob']:.4g}.")
    st.dataframe([{"accountant": r["accountant"].upper(), "ε": ui.fmt(r["eps"]), "note": r["note"]}
                  for r in out["rows"]], hide_index=True)
    st.caption("RDP converts a Rényi-divergence curve to (ε, δ) and is a little loose; PLD composes the privacy-loss "
               "distribution numerically and is tight up to its grid. dp_accounting has no PLD for sampling without "
               "replacement and no RDP for Poisson sampling under replace-one.")


ui.guarded(body)
