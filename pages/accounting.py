"""Accounting: each paper's σ beside tight accountants of the same mechanism, both directions, and a calculator."""

import math

import numpy as np
import streamlit as st

from dpviz_ui import helpers as ui
from dpviz.theory import catalog
from dpviz.foundation import privacy_figures
from dpviz.labs import privacy_lab
from dpviz.theory import pld_wor

# ---------------------------------------------------------------------------------------------------------------
# page state: n, ε, δ, T, G, η, μ, L, M, α, R and the algorithm are the dashboard's shared view (a setting made on
# Calibrate opens here unchanged, and the other way round); the page's own entries are acc_sigma and acc_calc_*
# (dpviz.foundation.urlstate.SCHEMA).  Old links with acc_n, acc_eps, ... are read as the shared entries (urlstate.ALIASES).

ALGS = list(privacy_lab.ALGORITHMS)
#: the ranges this page accepts (narrower than the shared view's where the accountants get slow or meaningless): a
#: value outside them, set on another page, is one clear error here
LIMITS = {
    "n": (2, 10**7),
    "eps": (1e-3, 100.0),
    "log10_delta": (-30.0, -1.0),
    "T": (1, 10**6),
    "G": (1e-6, 1e6),
    "eta": (1e-9, 10.0),
    "mu": (1e-6, 1e6),
    "L": (1e-6, 1e6),
    "M": (1e-6, 1e6),
    "alpha": (0.0, 1.0),
    "R": (1e-6, 1e6),
}
CALC = ["acc_calc_n", "acc_calc_batch", "acc_calc_epochs", "acc_calc_nm", "acc_calc_log10_delta"]
SAMPLING = ["poisson", "without-replacement"]
NEIGHBOURING = ["add-remove", "replace-one"]
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


def inputs() -> tuple[str, dict, float | None] | None:
    """The accountant section's widgets; (algorithm, parameters, your σ or None), or None (with one error naming
    each invalid input and its range) while an input is invalid."""
    names = {a: catalog.get_algorithm(a).name for a in ALGS}
    c1, c2, c3, c4 = st.columns([3, 1, 1, 1])
    alg = ui.view_choice("Algorithm", "algorithm", ALGS, fallback="dpsgd-rdp", container=c1,
                         format_func=lambda a: names.get(a, a))
    ui.view_number("n", "n (examples)", container=c2, limits=LIMITS["n"])
    ui.view_number("eps", "target ε", container=c3, limits=LIMITS["eps"], help="smaller ε = more private")
    v = ui.view()
    with c4:
        ui.view_checkbox("δ = 1/n²", "delta_auto", help="The usual choice: δ much smaller than 1/n. Untick to "
                                                          "enter log10 δ yourself.")
        if not v["delta_auto"]:
            ui.view_number("log10_delta", "log10 δ", limits=LIMITS["log10_delta"])
    needed = PARAMS[alg]
    cols = st.columns(max(len(needed), 1) + 1)
    for name, col in zip(needed, cols):
        ui.view_number(name, LABEL[name], container=col, limits=LIMITS[name])
    ui.view_number("acc_sigma", "your σ (0 = none)", container=cols[-1],
                   help="a noise level of your own: the table shows the ε it buys")
    ui.sync_url()
    main = ["n", "eps", "acc_sigma", *needed] + ([] if v["delta_auto"] else ["log10_delta"])
    if ui.report_invalid(main):
        return None
    if v["delta_auto"]:
        c4.caption(f"δ = {ui.fmt(1.0 / float(v['n']) ** 2)}")
    params = {"n": int(v["n"]), "eps": float(v["eps"]), "delta": ui.params_from_view(v)["delta"]}
    for name in needed:
        params[name] = v[name]
    if alg == "pidp-sgd":
        params["R"] = 1.0
    return alg, params, (float(v["acc_sigma"]) or None)


def command(alg: str, params: dict, user_sigma) -> str:
    """The ``python -m dpviz account`` command that reproduces the accountant table (every accountant, PLD
    included)."""
    cmd = ui.cli_command("account", "algorithm", alg, params)
    if user_sigma:
        cmd = cmd.replace(" --json", f" --sigma {user_sigma!r} --json")
    return cmd


def calc_command(items: dict) -> str:
    """The ``python -m dpviz privacy`` command that reproduces the calculator's numbers."""
    return (f"python -m dpviz privacy --n {items['n']} --batch-size {items['batch_size']} --epochs "
            f"{items['epochs']!r} --noise-multiplier {items['noise_multiplier']!r} --delta {items['delta']!r} "
            f"--sampling {items['sampling']} --neighbouring {items['neighbouring']} --json")


# ---------------------------------------------------------------------------------------------------------------
# cached computations

@st.cache_data(show_spinner=False, max_entries=256)
def fast_rows(alg: str, items: tuple, sigma, skip: int = 0, limit: int | None = None) -> dict:
    """The RDP and analytic-Gaussian rows; ``limit=1``: the first (matched) accountant's row alone, for the summary
    line; ``skip=1``: the others."""
    return privacy_lab.evaluate(alg, sigma=sigma, names=("rdp", "analytic-gaussian"), closed_inverse=False,
                                skip=skip, limit=limit, **dict(items))


def all_fast_rows(alg: str, items: tuple, sigma) -> dict:
    """Every RDP and analytic-Gaussian row: the matched one (cached on its own) followed by the others."""
    first, rest = fast_rows(alg, items, sigma, 0, 1), fast_rows(alg, items, sigma, 1)
    return {**first, "accountants": first["accountants"] + rest["accountants"]}


@st.cache_data(show_spinner=False, max_entries=256)
def pld_rows(alg: str, items: tuple, sigma) -> dict:
    return privacy_lab.evaluate(alg, sigma=sigma, names=("pld",), closed_inverse=sigma is not None, **dict(items))


@st.cache_data(show_spinner=False, max_entries=128)
def wor_pld(alg: str, items: tuple, sigma) -> dict | None:
    """The tight PLD of the matched DP-SGD mechanism (sampling without replacement, replace-one; pld_wor), or None
    where it does not apply."""
    mech = privacy_lab.mechanism(alg, **dict(items))
    if mech.kind != "sgd" or not pld_wor.applies(n=mech.n, batch_size=mech.sample_size):
        return None
    return pld_wor.matched(n=mech.n, batch_size=mech.sample_size, steps=mech.steps, eps=mech.eps, delta=mech.delta,
                           sensitivity=mech.sensitivity, sigmas={"the paper's σ": mech.paper_sigma, "your σ": sigma})


@st.cache_data(show_spinner=False, max_entries=128)
def curves(alg: str, items: tuple, sigma_lo: float, sigma_hi: float, eps_target: float) -> dict:
    """Each accountant's σ(ε) over σ in [``sigma_lo``, ``sigma_hi``] (about 8 points a decade), and the closed form."""
    mech = privacy_lab.mechanism(alg, **dict(items))
    decades = math.log10(sigma_hi / sigma_lo)
    sigmas = [float(s) for s in np.logspace(math.log10(sigma_lo), math.log10(sigma_hi), min(41, 1 + int(8 * decades)))]
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
def tradeoff(alg: str, items: tuple, sigma: float) -> dict:
    """The matched mechanism's f-DP trade-off curve at ``sigma`` (privacy_lab.tradeoff_curve), on 201 type I errors."""
    mech = privacy_lab.mechanism(alg, **dict(items))
    alpha = np.linspace(0.0, 1.0, 201)
    out = privacy_lab.tradeoff_curve(mech, sigma, alpha)
    return {**out, "alpha": alpha, "eps": mech.eps, "delta": mech.delta}


@st.cache_data(show_spinner=False, max_entries=128)
def calc(items: tuple) -> dict:
    return privacy_lab.calculator(**dict(items))


def _range(r: dict, up_key: str, lo_key: str) -> str:
    """How far the accountant's number can be trusted: exact, an upper bound only, or a [lower, upper] bracket."""
    up, lo = r.get(up_key), r.get(lo_key)
    if up is None:
        return "—"
    if r["name"] == "analytic-gaussian":
        return "exact"
    if r["name"] == "rdp":
        return "upper bound"
    return f"[{ui.fmt(lo)}, {ui.fmt(up)}]" if lo is not None else "upper bound (no lower bound in time)"


def _table(res: dict, user_sigma) -> list[dict]:
    # the numbers come right after the accountant's name and the long descriptions last, so that at 1024 × 768 the
    # "σ for ε" column is on screen without scrolling the table
    rows = [{
        "accountant": "paper's closed form",
        "σ for ε": ui.fmt(res["paper_sigma"]),
        "σ / paper σ": ui.fmt(1.0) if res["paper_sigma"] else "—",
        "ε of paper σ": ui.fmt(res["eps_mechanism"]) if res["paper_sigma"] else "—",
        "ε of paper σ: range": "the target" if res["paper_sigma"] else "—",
        **({"ε of your σ": ui.fmt(res["closed_form"].get("eps_of_sigma"))} if user_sigma else {}),
        "matches paper": True,
        "sampling / relation": "the paper's",
    }]
    for r in res["accountants"]:
        rows.append({
            "accountant": r["label"],
            "σ for ε": ui.fmt(r["sigma_for_eps"]),
            "σ / paper σ": ui.fmt(r["sigma_ratio_to_paper"]),
            "ε of paper σ": ui.fmt(r["eps_of_paper_sigma"]),
            "ε of paper σ: range": _range(r, "eps_of_paper_sigma", "eps_of_paper_sigma_lower"),
            **({"ε of your σ": ui.fmt(r.get("eps_of_sigma")),
                "ε of your σ: range": _range(r, "eps_of_sigma", "eps_of_sigma_lower")} if user_sigma else {}),
            "σ for ε: range": ("exact" if r["name"] == "analytic-gaussian" else "upper bound"
                               if r["name"] == "rdp" or r.get("sigma_for_eps_lower") is None
                               else f"[{ui.fmt(r['sigma_for_eps_lower'])}, {ui.fmt(r['sigma_for_eps'])}]"),
            "matches paper": r["matches_paper"],
            "sampling / relation": f"{r['sampling']}, {r['neighbouring']}",
        })
    return rows


def _looser_pld(accountants: list[dict]) -> list[str]:
    """Where PLD on its grid gives a larger ε than RDP for the same mechanism (sampling and relation)."""
    out = []
    for p in accountants:
        if p["name"] != "pld":
            continue
        for r in accountants:
            if (r["name"] == "rdp" and r["sampling"] == p["sampling"] and r["neighbouring"] == p["neighbouring"]):
                for key, what in (("eps_of_paper_sigma", "the paper's σ"), ("eps_of_sigma", "your σ")):
                    if p.get(key) is not None and r.get(key) is not None and p[key] > r[key]:
                        out.append(f"For {what}, PLD on its grid (ε ≤ {ui.fmt(p[key])}) is looser than RDP "
                                   f"(ε ≤ {ui.fmt(r[key])}) for the {p['sampling']} mechanism: the grid could not be "
                                   "refined enough within the work budget. Claim the smaller upper bound.")
    return out


def body() -> None:
    st.title("Privacy accounting")
    st.write("What ε does a paper's noise level really buy? For each algorithm, the σ of the paper's closed form "
             "beside numerical accountants of the **same** mechanism (the paper's sampling and neighbouring "
             "relation), and beside the Poisson add/remove accountants that Opacus and TF Privacy use. Both "
             "directions: the σ each accountant needs for your (ε, δ), and the ε a given σ buys.")
    ui.init_state()  # the app's navigation even on a first visit through a shared link
    got = inputs()
    with st.container():  # its number of elements varies (an error, or the results): what follows stays in place
        if got is not None:
            accountant_section(*got)
    st.subheader("Why the accountants disagree")
    st.markdown(privacy_lab.EXPLANATION)
    calculator_section()


def accountant_section(alg: str, params: dict, user_sigma) -> None:
    """The mechanism, the accountants' table (fast rows first, PLD filled in), its downloads, the two figures."""
    items = ui.items(params)
    # the downloads' slot comes first: while the page recomputes, the previous run's buttons are gone at once
    downloads = st.empty()
    # the matched accountant first (the summary line, the page's main number), then the other fast rows: at n = 4321
    # the matched row alone takes 0.2 s of CPU, all fast rows 0.45 s (benchmarks/RESULTS.md, issue 33)
    res = fast_rows(alg, items, user_sigma, 0, 1)
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
    table.dataframe(_table(res, user_sigma) + [{"accountant": "other accountants and PLD: computing…"}], hide_index=True)
    matched = res["accountants"][0]
    summary = (f"Summary: the paper's σ = {ui.fmt(res['paper_sigma'])}; the matched accountant ({matched['label']}) "
               f"needs σ = {ui.fmt(matched['sigma_for_eps'])} for ε = {res['eps_mechanism']:.4g}")
    if res["paper_sigma"]:
        summary += f", and the paper's σ really buys ε = {ui.fmt(matched['eps_of_paper_sigma'])} under it"
    if user_sigma:
        summary += f"; your σ = {user_sigma:g} buys ε = {ui.fmt(matched.get('eps_of_sigma'))}"
    summary_slot = st.empty()
    summary_slot.text(summary + ".")
    ui.flush()  # the summary goes to the browser before the other accountants are computed
    res = all_fast_rows(alg, items, user_sigma)  # the matched row above, then the others
    table.dataframe(_table(res, user_sigma) + [{"accountant": "PLD: computing…"}], hide_index=True)
    st.caption("Matched = the paper's own sampling and neighbouring relation. ε of paper σ: the ε the paper's σ "
               "really buys under each accountant (more than the target means the paper's σ is not enough for "
               "that accountant's mechanism).")
    for note in res["notes"]:
        st.caption(ui.pretty(note))
    for r in res["accountants"]:
        if r.get("error"):
            st.caption(f"{r['label']}: {ui.pretty(r['error'])}")
    caveats = st.container()  # the RDP floor caveat, or the tight PLD that lifts it (after the PLD rows)

    pld = pld_rows(alg, items, user_sigma)
    merged = dict(res)
    merged["accountants"] = res["accountants"] + pld["accountants"]
    merged["closed_form"] = pld["closed_form"]
    table.dataframe(_table(merged, user_sigma), hide_index=True)
    wor = wor_pld(alg, items, user_sigma)
    with caveats:
        tight = wor is not None and "error" not in wor
        for r in res["accountants"]:
            if r.get("caveat") and not (tight and r["sampling"] == "without-replacement"):
                st.warning(f"{r['label']}: {ui.pretty(r['caveat'])}")
        if wor is not None:
            st.markdown("**Matched, tight: PLD, sampling without replacement, replace-one (Δ = 2G)**")
            st.text("\n".join(pld_wor.matched_lines(wor, res["eps_mechanism"])))
            st.caption(pld_wor.THEOREM)
    g = ui.cached_guarantee(alg, ui.items(params), user_sigma)  # ready before the slot is redrawn
    if user_sigma and not g.get("ok", {}).get("meaningful", True):  # the statement's own verdict (privacy_lab)
        summary_slot.text(f"{summary}: NO meaningful privacy at your σ (the guarantee allows a test wrong 1 % of the "
                          "time on one data set and less than once in a million on the other; see the privacy "
                          "statement).")
    with downloads.container():
        ui.download_table(merged["accountants"], "accounting",
                          {"algorithm": alg, **params, "sigma": user_sigma, "eps_mechanism": res["eps_mechanism"],
                           "delta_mechanism": res["delta_mechanism"], "paper_sigma": res["paper_sigma"]})
        ui.download_view("accounting", inputs={"algorithm": alg, **params, "sigma": user_sigma},
                         outputs=merged,
                         command=command(alg, params, user_sigma))
        ui.statement_download(alg, params, user_sigma, key="acc_statement")
    for r in pld["accountants"]:
        if r.get("error"):
            st.caption(f"{r['label']}: {ui.pretty(r['error'])}")
    st.caption("Which numbers are safe to claim: RDP and the pessimistic PLD give upper bounds on ε (and σ that "
               "certainly suffices); the analytic Gaussian mechanism is exact. PLD's range [lower, upper] brackets "
               "the exact ε: the upper end is the connect-the-dots PLD, the lower end the PLD of a post-processing "
               "of the mechanism whose privacy losses lie on the same grid (Poisson add/remove), on a grid refined "
               "until the two agree to 1 %; elsewhere (replace-one) the lower end is the optimistic PLD, which can "
               "stay far below over many steps (the grid is refined until the upper end changes by < 1 %). For σ "
               "the range is certified too: the low end is a σ whose lower bound on ε still exceeds the target "
               "(too little noise), the high end one whose upper bound meets it.")
    for w in _looser_pld(merged["accountants"]):
        st.warning(w)

    center = res["paper_sigma"] or next((r["sigma_for_eps"] for r in res["accountants"] if r["sigma_for_eps"]), None)
    if center:
        # a decade either side of the paper's (or the matched accountant's) σ, widened to take in every accountant's
        # σ with a margin: each marker lies on its own curve (at ε = 0.01 they span 9.8 to 1.3·10⁵)
        shown = [float(s) for s in [res["paper_sigma"]] + [r["sigma_for_eps"] for r in merged["accountants"]] if s]
        cv = curves(alg, items, min(float(center) / 10.0, min(shown) / 1.5),
                    max(float(center) * 10.0, max(shown) * 1.5), params["eps"])
        points = {"paper's σ at the target ε": (params["eps"] if res["paper_sigma"] else None, res["paper_sigma"])}
        for r in merged["accountants"]:
            points[f"σ needed: {r['name']}, {r['sampling']}"] = (res["eps_mechanism"], r["sigma_for_eps"])
        ui.show_figure(privacy_figures.sigma_eps_figure(cv, points, title="Noise σ against ε: closed form and "
                                                        "accountants (log-log)"), "accounting_sigma_eps")

    s_steps = user_sigma or res["paper_sigma"] or center
    with st.container():  # the trade-off curve (or nothing): what follows keeps its place
        if s_steps:
            tradeoff_section(alg, items, float(s_steps), merged, user_sigma)
    if s_steps:
        sc = steps_curves(alg, items, float(s_steps))
        who = "your σ" if user_sigma else "the paper's σ" if res["paper_sigma"] else "the matched accountant's σ"
        x_title = ("number of steps (compositions)" if res["steps"] > 1 or res["sampling_prob"] < 1
                   else "number of releases (if the release were repeated)")
        ui.show_figure(privacy_figures.eps_steps_figure(sc["steps"], sc["series"], current_steps=sc["current"],
                                                        title=f"ε bought by {who} = {s_steps:.4g} as steps "
                                                              "compose", x_title=x_title), "accounting_eps_steps")



def tradeoff_section(alg: str, items: tuple, sigma: float, merged: dict, user_sigma) -> None:
    """The matched mechanism's trade-off curve at σ beside the target's (ε, δ) line and the accountant's (ε, δ) line
    of that σ (Dong, Roth & Su 2022): for sampling without replacement, where dp_accounting has no PLD, the RDP →
    f-DP lower bound (dpviz.labs.tradeoff.tradeoff_rdp)."""
    from dpviz.labs import tradeoff as trade

    st.subheader("The guarantee as a trade-off curve")
    who = "your σ" if user_sigma else "the paper's σ" if merged["paper_sigma"] else "the matched accountant's σ"
    try:
        tc = tradeoff(alg, items, sigma)
    except ValueError as exc:
        st.caption(f"No trade-off curve: {ui.plain(str(exc))}")
        return
    a = tc["alpha"]
    curves = {f"target ({tc['eps']:.3g}, {tc['delta']:.2g})-DP line": (a, trade.tradeoff_eps_delta(a, tc["eps"],
                                                                                                  tc["delta"]))}
    matched = merged["accountants"][0]
    eps_sigma = matched.get("eps_of_sigma") if user_sigma else matched.get("eps_of_paper_sigma")
    if eps_sigma is not None and math.isfinite(eps_sigma):
        curves[f"{matched['name'].upper()}'s ({eps_sigma:.3g}, {tc['delta']:.2g})-DP line of {who}"] = (
            a, trade.tradeoff_eps_delta(a, eps_sigma, tc["delta"]))
    kind = "exact curve" if tc["exact"] else "valid lower bound"
    curves[f"mechanism's {kind} at {who} = {sigma:.4g}: {tc['label']}"] = (a, tc["beta"])
    ui.show_figure(privacy_figures.tradeoff_figure(curves, [], title=f"Trade-off of the matched mechanism at {who}: "
                                                   "every test of D against D′ lies on or above its curve"),
                   "accounting_tradeoff")
    st.caption(f"The mechanism's curve is {'its exact trade-off curve: ' if tc['exact'] else ''}{tc['how']}. "
               "A test's (type I, type II) errors below a curve would refute that guarantee; the (ε, δ) lines are "
               "what the target and the accountant's ε promise, the mechanism's curve is what the noise buys.")


def calculator_section() -> None:
    """The general DP-SGD calculator (any sampling, any neighbouring relation), with its own inputs."""
    st.subheader("General calculator (DP-SGD with any sampling)")
    st.write("In the style of TF Privacy's compute_dp_sgd_privacy and Opacus: data set size, batch size, epochs, "
             "noise multiplier σ/C (C = clipping norm), δ, sampling scheme and neighbouring relation → ε by RDP and "
             "by PLD. Under replace-one the clipped sum changes by up to 2C, so the same noise multiplier buys a "
             "larger ε than under add/remove.")
    k1, k2, k3, k4 = st.columns(4)
    ui.view_number("acc_calc_n", "n", container=k1, help="data set size")
    ui.view_number("acc_calc_batch", "batch size", container=k2, help="examples per step (expected, for Poisson)")
    ui.view_number("acc_calc_epochs", "epochs", container=k3, help="passes over the data")
    ui.view_number("acc_calc_nm", "noise multiplier σ/C", container=k4, help="σ / C, C the clipping norm")
    k5, k6, k7 = st.columns(3)
    ui.view_number("acc_calc_log10_delta", "log10 δ", container=k5, help="−5 means δ = 10⁻⁵")
    ui.view_choice("sampling", "acc_calc_sampling", SAMPLING, container=k6)
    ui.view_choice("neighbouring", "acc_calc_neighbouring", NEIGHBOURING, container=k7)
    ui.sync_url()
    if ui.report_invalid(CALC):
        return
    v = ui.view()
    if v["acc_calc_batch"] > v["acc_calc_n"]:
        st.caption("The batch size is larger than n: the whole data set is used in every step.")
    args = {"n": int(v["acc_calc_n"]), "batch_size": int(min(v["acc_calc_batch"], v["acc_calc_n"])),
            "epochs": float(v["acc_calc_epochs"]), "noise_multiplier": float(v["acc_calc_nm"]),
            "delta": 10.0 ** float(v["acc_calc_log10_delta"]), "sampling": v["acc_calc_sampling"],
            "neighbouring": v["acc_calc_neighbouring"]}
    slot = st.empty()  # the calculator's downloads: gone at once when it recomputes
    if args["sampling"] == "without-replacement" and args["neighbouring"] == "add-remove" and (
            args["batch_size"] < args["n"]):
        st.error("neighbouring: sampling without replacement (a fixed-size batch) is analysed under replace-one "
                 "neighbours (the data set size n is public); choose replace-one, or Poisson sampling for add/remove.")
        return
    out = calc(ui.items(args))
    st.write(f"{out['steps']} steps at sampling rate q = {out['sampling_prob']:.4g}.")
    st.dataframe([{"accountant": r["accountant"].upper(), "ε (upper bound)": ui.fmt(r["eps"]),
                   "lower bound": ui.fmt(r["eps_lower"]) if r["accountant"] == "pld" else "—",
                   "grid": ui.fmt(r["grid"]) if r["grid"] else "—", "note": r["note"]}
                  for r in out["rows"]], hide_index=True)
    for r in out["rows"]:
        name = r["accountant"].upper()
        if r["eps"] is not None and r["accountant"] == "pld" and r["eps_lower"] is not None:
            st.caption(f"{name}: ε ∈ [{ui.fmt(r['eps_lower'])}, {ui.fmt(r['eps'])}] (lower, upper bound; grid "
                       f"{ui.fmt(r['grid'])})" + (f" — {r['note']}" if r["note"] else ""))
        elif r["eps"] is not None:
            st.caption(f"{name}: ε ≤ {ui.fmt(r['eps'])} (upper bound)" + (f" — {r['note']}" if r["note"] else ""))
        elif r["note"]:
            st.caption(f"{name}: {r['note']}")
    st.caption("RDP converts a Rényi-divergence curve to (ε, δ): an upper bound, a little loose, no lower bound. PLD "
               "composes the privacy-loss distribution numerically: connect-the-dots gives the upper bound (safe "
               "to claim); the lower bound comes from a post-processing of the mechanism on the same grid (Poisson "
               "add/remove, the grid refined until the two agree to 1 %); for replace-one the lower bound is the "
               "optimistic rounding, which can stay far below over many steps (the grid is refined until the upper "
               "bound changes by < 1 %). "
               "dp_accounting has no PLD for sampling without replacement and no RDP for Poisson sampling under "
               "replace-one.")
    rows = [{"accountant": r["accountant"], "eps": r["eps"], "eps_upper": r["eps_upper"], "eps_lower": r["eps_lower"],
             "method": r["method"], "grid": r["grid"], "seconds": r["seconds"], "note": r["note"]}
            for r in out["rows"]]
    with slot.container():
        ui.download_table(rows, "privacy_calculator", {**args, "steps": out["steps"],
                                                       "sampling_prob": out["sampling_prob"]})
        st.caption(f"Command line: `{calc_command(args)}`")
        try:
            text = privacy_lab.statement(out, calc_command(args).removesuffix(" --json") + " --statement")
        except ValueError as exc:
            st.caption(f"No privacy statement: {exc}")
        else:
            st.download_button("Download the privacy statement", text, file_name="privacy_statement.txt",
                               mime="text/plain", key="acc_calc_statement",
                               help="plain text: what is protected, the neighbouring relation, sampling, "
                                    "accountant, ε with its bracket, δ, what is not covered, and the command that "
                                    "recomputes it")


ui.guarded(body)
