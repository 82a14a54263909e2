"""Check a run: is my DP-SGD run private enough?  The verdict against a target ε, under the tightest accountant
dpviz has for the batch sampling, then the noise that would meet it, the most epochs it allows and ε against epochs.

Thin: the numbers come from :mod:`dpviz.labs.run_check`, the chart from :mod:`dpviz.foundation.check_figures`."""

import streamlit as st

from dpviz.foundation import check_figures
from dpviz.labs import run_check
from dpviz_ui import helpers as ui

SAMPLING_LABEL = {"poisson": "Poisson (each example joins each step with probability q)",
                  "shuffle": "shuffled batches (a fresh random order each epoch, cut into batches — most data loaders)",
                  "fixed-size": "fixed-size batches drawn afresh each step (without replacement)",
                  "full-batch": "full batch (every step uses all n examples)"}
NEIGHBOURING_LABEL = {"add-remove": "add/remove one example", "replace-one": "replace one example"}
BATCH_KIND = {"batch": "batch size", "rate": "sampling rate"}
LENGTH_KIND = {"epochs": "epochs", "steps": "steps"}
NOISE_KIND = {"multiplier": "noise multiplier σ/C", "sigma": "σ and clipping norm C"}
#: every number box of the form (which of them are read depends on the choices)
BOXES = ["verify_n", "verify_batch", "verify_rate", "verify_epochs", "verify_steps", "verify_nm", "verify_sigma", "verify_C", "verify_delta",
         "verify_target"]
UTILITY_BOXES = ["G", "R", "d"]
#: pasted field -> view entry (and the choice it implies)
PASTE_TO_VIEW = {"n": ("verify_n", None), "batch_size": ("verify_batch", ("verify_batch_kind", "batch")),
                 "sampling_rate": ("verify_rate", ("verify_batch_kind", "rate")),
                 "epochs": ("verify_epochs", ("verify_length_kind", "epochs")),
                 "steps": ("verify_steps", ("verify_length_kind", "steps")),
                 "noise_multiplier": ("verify_nm", ("verify_noise_kind", "multiplier")),
                 "sigma": ("verify_sigma", ("verify_noise_kind", "sigma")), "clip_norm": ("verify_C", None),
                 "delta": ("verify_delta", None), "target_eps": ("verify_target", None),
                 "sampling": ("verify_sampling", None), "neighbouring": ("verify_neighbouring", None)}


# ---------------------------------------------------------------------------------------------------------------
# cached computations (functions of scalars, shared by every session)

@st.cache_data(show_spinner=False, max_entries=256)
def verdict(items: tuple) -> dict:
    return run_check.check(search=False, **dict(items))


# the search and the curve (seconds of CPU) stop at ui.checkpoint once a newer run (an edit) has replaced this one,
# instead of finishing beside it on the server's interpreter lock (the new verdict took 2-4x longer)

@st.cache_data(show_spinner=False, max_entries=256)
def searched(items: tuple) -> dict:
    return run_check.check(search=True, tick=ui.checkpoint, **dict(items))


@st.cache_data(show_spinner=False, max_entries=128)
def curve(items: tuple) -> dict:
    return run_check.eps_vs_epochs(run_check.resolve(**dict(items)), tick=ui.checkpoint)


@st.cache_data(show_spinner=False, max_entries=128)
def statement_text(items: tuple) -> str:
    return run_check.statement(dict(items))


@st.cache_data(show_spinner=False, max_entries=128)
def utility(items: tuple) -> dict:
    return run_check.utility(**dict(items))


# ---------------------------------------------------------------------------------------------------------------

def _fill_from_paste() -> None:
    """Button callback: read the paste box (never evaluated) into the form's view entries."""
    text = st.session_state.get("verify_paste", "")
    try:
        got = run_check.parse_pasted(text)
    except ValueError as exc:
        st.session_state["_verify_paste_msg"] = ("error", str(exc), [])
        return
    from dpviz.foundation import urlstate

    view = st.session_state["_view"]
    filled, ignored = [], list(got["ignored"])
    for field, value in got["fields"].items():
        name, choice = PASTE_TO_VIEW[field]
        if field in ("sampling", "neighbouring"):
            view[name] = value
            filled.append(f"{field} = {value}")
            continue
        try:
            view[name] = urlstate.validate(name, value)
        except ValueError as exc:
            ignored.append(f"{field}: {exc}")
            continue
        st.session_state.get("_invalid", {}).pop(name, None)
        if choice:
            view[choice[0]] = choice[1]
        filled.append(f"{field} = {value:g}")
    st.session_state["_verify_paste_msg"] = ("ok", f"Read a {got['source']}.", filled, ignored)


def paste_box() -> None:
    with st.expander("Paste your training code or config (Opacus, TF Privacy, JSON, YAML)"):
        st.text_area("An Opacus make_private(...) / make_private_with_epsilon(...) call, a TF Privacy "
                     "compute_dp_sgd_privacy(...) call, or JSON / YAML with the same names", key="verify_paste",
                     height=110, max_chars=run_check.MAX_PASTE,
                     placeholder="compute_dp_sgd_privacy(n=60000, batch_size=256, noise_multiplier=1.1, epochs=60, "
                                 "delta=1e-5)")
        st.button("Fill the form", key="verify_paste_go", on_click=_fill_from_paste)
        st.caption("Nothing is run: the text is parsed as data (literal values only); variables and expressions "
                   "are named and skipped. Opacus takes the batch size and n from its data loader: type them below.")
        msg = st.session_state.get("_verify_paste_msg")
        if msg:
            if msg[0] == "error":
                st.error("Could not read the pasted text: " + ui.plain(msg[1]))
            else:
                _, head, filled, ignored = msg
                st.success(head + " Filled: " + (", ".join(ui.plain(f) for f in filled) or "nothing") + ".")
                if ignored:
                    st.info("Not used: " + "; ".join(ui.plain(i) for i in ignored[:15]) + ".")


def _given_as(label: str, key: str, kinds: dict, numbers: dict | None = None) -> str:
    """A horizontal radio of the ways an input can be given (``kinds``: way -> label), then, with ``numbers`` (way ->
    (key, label, help)), the number input of the chosen way; returns the way."""
    way = ui.view_choice(label, key, list(kinds), format_func=kinds.get, widget=st.radio, horizontal=True)
    if numbers is not None:
        num_key, num_label, num_help = numbers[way]
        ui.view_number(num_key, num_label, help=num_help)
    return way


def inputs() -> dict | None:
    """The form; the arguments of :func:`run_check.check`, or None (one error shown) while an input is invalid."""
    c1, c2, c3, c4 = st.columns(4)
    ui.view_number("verify_n", "n (training examples)", container=c1)
    with c2:
        kind = _given_as("batches given as", "verify_batch_kind", BATCH_KIND, {
            "batch": ("verify_batch", "batch size b", "examples per step (expected, for Poisson)"),
            "rate": ("verify_rate", "sampling rate q = b/n", None)})
    with c3:
        length = _given_as("length given as", "verify_length_kind", LENGTH_KIND, {
            "epochs": ("verify_epochs", "epochs", "passes over the data: steps = ⌈epochs·n/b⌉"),
            "steps": ("verify_steps", "steps", None)})
    with c4:
        noise = _given_as("noise given as", "verify_noise_kind", NOISE_KIND)
        if noise == "multiplier":
            ui.view_number("verify_nm", "noise multiplier σ/C", help="the noise standard deviation over the clipping "
                                                                "norm (Opacus, TF Privacy: noise_multiplier)")
        else:
            a, b = st.columns(2)
            ui.view_number("verify_sigma", "σ", container=a, help="noise standard deviation added to the batch sum")
            ui.view_number("verify_C", "C", container=b, help="clipping norm (max_grad_norm, l2_norm_clip)")
    k1, k2, k3, k4 = st.columns([1, 1, 2, 1.3])
    ui.view_number("verify_delta", "δ", container=k1, help="typed as 1e-5; well below 1/n")
    ui.view_number("verify_target", "target ε (0 = none)", container=k2, help="the ε your release must meet")
    ui.view_choice("batch sampling", "verify_sampling", list(SAMPLING_LABEL), container=k3,
                   format_func=SAMPLING_LABEL.get)
    ui.view_choice("neighbouring data sets", "verify_neighbouring", list(NEIGHBOURING_LABEL), container=k4,
                   format_func=NEIGHBOURING_LABEL.get)
    ui.sync_url()
    v = ui.view()
    read = ["verify_n", "verify_delta", "verify_target",
            "verify_batch" if kind == "batch" else "verify_rate",
            "verify_epochs" if length == "epochs" else "verify_steps"] + (
        ["verify_nm"] if noise == "multiplier" else ["verify_sigma", "verify_C"])
    if ui.report_invalid(read):
        return None
    args = {"n": int(v["verify_n"]), "delta": float(v["verify_delta"]), "sampling": v["verify_sampling"],
            "neighbouring": v["verify_neighbouring"], "target_eps": float(v["verify_target"]) or None}
    if v["verify_sampling"] != "full-batch":
        if kind == "batch":
            args["batch_size"] = int(v["verify_batch"])
        else:
            args["sampling_rate"] = float(v["verify_rate"])
    if length == "epochs":
        args["epochs"] = float(v["verify_epochs"])
    else:
        args["steps"] = int(v["verify_steps"])
    if noise == "multiplier":
        args["noise_multiplier"] = float(v["verify_nm"])
    else:
        args["sigma"], args["clip_norm"] = float(v["verify_sigma"]), float(v["verify_C"])
    try:
        run_check.resolve(**args)
    except ValueError as exc:
        st.error(f"Fix the inputs to see results: {ui.plain(str(exc))} No numbers are shown until then.")
        return None
    return args


def show_verdict(out: dict) -> None:
    t = out["target_eps"]
    lo, up = out["eps_lower"], out["eps_upper"]
    where = {"pld": "PLD", "rdp": "RDP", "analytic-gaussian": "exact (analytic Gaussian)",
             "no-amplification": "shuffled batches: lower bound of Chua et al., upper bound without amplification"}[
        out["accountant"]]
    bracket = (f"ε ∈ [{ui.fmt(lo)}, {ui.fmt(up)}]" if lo is not None and lo != up else
               f"ε = {ui.fmt(up)} (exact)" if lo is not None else f"ε ≤ {ui.fmt(up)}")
    if out["verdict"] == "meets":
        st.success(f"### Meets ε = {t:g}\nThe run's {bracket} at δ = {out['delta']:.3g} ({where}): certified "
                   f"below the target.")
    elif out["verdict"] == "does-not-meet":
        st.error(f"### Does not meet ε = {t:g}\nThe run's {bracket} at δ = {out['delta']:.3g} ({where}): even the "
                 "certified lower bound is above the target.")
    elif out["verdict"] == "unproven":
        st.warning(f"### Not proven to meet ε = {t:g}\nThe run's {bracket} at δ = {out['delta']:.3g} ({where}): "
                   "the target lies inside the bracket, so meeting it is not certified — treat it as not met.")
    else:
        st.info(f"### No target given\nThe run's {bracket} at δ = {out['delta']:.3g} ({where}).")
    m = st.columns(4)
    m[0].metric("ε upper bound (safe to claim)", ui.fmt(up))
    m[1].metric("ε lower bound (certified)", ui.fmt(lo) if lo is not None else "—")
    if out["sampling"] == "shuffle":
        m[2].metric("Poisson ε (NOT a guarantee for this loader)", ui.fmt(out["eps_poisson_upper"]))
    else:
        m[2].metric("RDP ε (upper bound)", ui.fmt(out["eps_rdp"]) if out["eps_rdp"] is not None else "—")
    m[3].metric("steps · sampling rate", f"{out['steps']} · {out['sampling_prob']:.4g}")


def show_shuffle(out: dict) -> None:
    pu = out["eps_poisson_upper"]
    st.markdown(
        f"**Shuffled batches: the Poisson ε is not a proven guarantee for this loader.** The ε that Opacus or TF "
        f"Privacy report for these settings (Poisson sampling) would be ε ≤ {ui.fmt(pu)}; for shuffled batches "
        f"dpviz certifies only ε ≤ {ui.fmt(out['eps_upper'])} (each example used {out['uses_per_example']} times, "
        f"once per epoch, without amplification) and **ε ≥ {ui.fmt(out['eps_lower_shuffle'])}** — a certified "
        "lower bound, so \"at least this much\" is true.")
    if not out["poisson_reportable"]:
        st.error(f"The shuffled run's ε is at least {ui.fmt(out['eps_lower_shuffle'])}, above the Poisson upper "
                 f"bound {ui.fmt(pu)}: **the Poisson number cannot be reported for this loader.** Use a Poisson "
                 "sampler (Opacus' default poisson_sampling=True) or report the shuffled run's bracket.")
    st.caption("Lower bound as in " + "; and ".join(run_check.CITATIONS) + ": the batch holding the differing "
               "example behaves like a Gaussian mechanism whose position the adversary does not know; a test on the "
               "largest batch sum (one epoch exactly, several epochs composed on a grid rounded down) gives δ(ε) "
               "from below. Add/remove is read as zero-out (the example's slot kept with a zero gradient), as in "
               "those papers.")


def show_search(out: dict) -> None:
    nm = out["noise_multiplier_for_target"]
    c1, c2 = st.columns(2)
    if out["target_eps"] is None:
        c1.caption("Give a target ε to see the noise it needs and the most epochs it allows.")
        return
    lo, up = nm["lower"], nm["upper"]
    if lo is not None and abs(up - lo) <= 1e-9 * up:
        text = f"σ/C = {ui.fmt(up)} (exact)"
    elif lo is not None:
        text = f"σ/C ∈ ({ui.fmt(lo)}, {ui.fmt(up)}]"
    else:
        text = f"σ/C ≤ {ui.fmt(up)} suffices"
    c1.metric(f"smallest noise multiplier for ε = {out['target_eps']:g}", text)
    c1.caption(f"{nm['method']}: the upper end certainly meets the target"
               + ("; the lower end certainly does not." if lo is not None else
                  "; dpviz has no certified lower end here.")
               + (f" RDP alone needs {ui.fmt(nm['rdp'])}." if nm.get("rdp") else ""))
    me = out["max_epochs_at_target"]
    c2.metric(f"most epochs at σ/C = {out['noise_multiplier']:.4g}", ui.fmt(me))
    c2.caption(f"At most {out['max_steps_at_target']} steps keep the certified upper ε at or below "
               f"{out['target_eps']:g}" + (f" (exceeded from step {out['steps_exceeding_target']} on)"
                                           if out.get("steps_exceeding_target") else "")
               + (": shuffled batches are counted without amplification, one use per epoch." if
                  out["sampling"] == "shuffle" else "."))


def show_curve(args: dict, out: dict) -> None:
    items = ui.items({k: val for k, val in args.items() if k != "target_eps"})
    data = curve(items)
    series = {"ε upper bound": data["eps_upper"]}
    dashed = []
    if out["sampling"] == "shuffle":
        series["ε lower bound (shuffled, Chua et al.)"] = data["eps_lower_shuffle"]
        series["Poisson ε (not valid for this loader)"] = data["eps_poisson_upper"]
        dashed = ["Poisson ε (not valid for this loader)"]
    elif any(x is not None for x in data["eps_lower"]) and out["accountant"] != "analytic-gaussian":
        series["ε lower bound"] = data["eps_lower"]
        dashed = ["ε lower bound"]
    if any(x is not None for x in data["eps_rdp"]) and out["sampling"] != "shuffle":
        series["RDP ε"] = data["eps_rdp"]
        dashed.append("RDP ε")
    fig = check_figures.eps_epochs_figure(data["epochs"], series, target=out["target_eps"], current=out["epochs"],
                                          title=f"ε against epochs at σ/C = {out['noise_multiplier']:.4g}, "
                                                f"δ = {out['delta']:.3g}", dashed=dashed)
    ui.show_figure(fig, "check_eps_epochs", {k: val for k, val in args.items() if val is not None})


def show_utility(args: dict, out: dict) -> None:
    st.subheader("What it costs in utility")
    c1, c2, c3 = st.columns(3)
    ui.view_number("G", "G (Lipschitz constant = C)", container=c1)
    ui.view_number("R", "R (domain radius)", container=c2)
    ui.view_number("d", "d (dimension)", container=c3)
    with st.container():
        if ui.report_invalid(UTILITY_BOXES):
            return
        v = ui.view()
        eps = out["target_eps"] or out["eps_upper"]
        try:
            u = utility(ui.items({"n": out["n"], "d": int(v["d"]), "eps": eps, "delta": out["delta"],
                                  "G": float(v["G"]), "R": float(v["R"]), "batch_size": out["batch_size"],
                                  "sampling": out["sampling"]}))
        except ValueError as exc:
            st.caption(f"No utility bound: {ui.plain(str(exc))}")
            return
        if u["covered"]:
            st.metric(f"excess-risk bound ({u['cite']})", ui.fmt(u["bound"]))
            st.caption(f"At n = {out['n']}, d = {int(v['d'])}, ε = {eps:.4g}, δ = {out['delta']:.3g}, R = "
                       f"{ui.fmt(float(v['R']))}. Assumptions: {u['assumptions']}. Terms: "
                       + ", ".join(f"{k} {ui.fmt(x)}" for k, x in u["terms"].items()) + ".")
        else:
            st.markdown(f"**No theorem of the seed papers covers this run.** {u['reason']}")
            near = u["nearest"]
            st.caption(f"Labelled as such — {near['text']}.")
            if st.button(f"Open the nearest covered setting on {near['page']} ({near['theorem']})",
                         key="verify_nearest"):
                ui.set_view(theorems=[near["theorem"]])
                ui.sync_url()
                st.switch_page("pages/bounds.py")


def body() -> None:
    st.title("Check a run")
    st.write("Is my DP-SGD run private enough? Type the run as you configured it (or paste the call); dpviz answers "
             "under the tightest accountant it has for your batch sampling: the ε bracket, whether it meets your "
             "target, the noise that would, and how many epochs the target allows.")
    ui.init_state()
    paste_box()
    args = inputs()
    with st.container():  # its size varies (an error, or the results): what follows keeps its place
        if args is None:
            return
        if args["delta"] >= 1.0 / args["n"]:
            st.warning(f"δ = {args['delta']:.3g} is not much smaller than 1/n = {1.0 / args['n']:.3g}: δ ≥ 1/n "
                       "allows a mechanism that publishes a random training example outright. Use δ well below 1/n "
                       "(1/n² or smaller is usual).")
        items = ui.items(args)
        quick = verdict(items)
        show_verdict(quick)
        if quick["sentence"]:
            st.write(quick["sentence"])
        slot = st.empty()  # "download this view" and the statement, above the slow parts: gone at once on a rerun
        with st.container():
            if quick["sampling"] == "shuffle":
                show_shuffle(quick)
            for note in quick["notes"]:
                if quick["sampling"] != "shuffle" or not note.startswith(("Shuffled", "The shuffled")):
                    st.caption(ui.plain(note))
        ui.flush()  # the verdict goes to the browser before the search for the noise and the epochs (seconds)
        full = searched(items)
        show_search(full)
        show_curve(args, full)
        command = run_check.command(args)
        with slot.container():
            ui.download_view("check", args, {k: full[k] for k in (
                "meets_target", "verdict", "eps_upper", "eps_lower", "eps_rdp", "accountant",
                "noise_multiplier_for_target", "max_epochs_at_target", "steps", "sampling_prob",
                "eps_lower_shuffle", "eps_poisson_upper") if k in full}, command)
            st.caption(f"Command line: `{command}` (add `--fail-if-not-met` to gate a pipeline: exit status 3 when "
                       "the target is missed)")
            try:
                text = statement_text(items)
            except ValueError as exc:
                st.caption(f"No privacy statement: {ui.plain(str(exc))}")
            else:
                st.download_button("Download the privacy statement", text, file_name="privacy_statement.txt",
                                   mime="text/plain", key="verify_statement")
        show_utility(args, full)


ui.guarded(body)
