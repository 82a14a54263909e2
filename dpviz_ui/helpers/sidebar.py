"""The sidebar: the shared parameter boxes (:func:`param_widgets`), the loss picker and the constants a loss
determines (:func:`loss_picker`, :func:`resolve_loss`), and which inputs are starred as changing the numbers shown
(:func:`starred`, from the catalogue's declarations).

Imports :mod:`.text`, :mod:`.state` and :mod:`.widgets` only (of :mod:`dpviz_ui.helpers`).
"""

from __future__ import annotations

import streamlit as st

from .state import params_from_view, sync_url, view
from .text import LABELS, LOSS_CONSTANTS, NUMERIC, fmt
from .widgets import invalid_inputs, view_checkbox, view_choice, view_number


def param_widgets(names: list[str], required: set[str] | None = None, fixed: dict | None = None) -> dict:
    """Sidebar number inputs for ``names`` (persisting across pages); returns dpviz keyword parameters.

    δ is entered on a log scale; the checkbox "δ = 1/n²" (on by default) ties it to n.  ``fixed`` maps names to
    ``(value, source)`` for values the page takes from elsewhere (a theorem's schedule): they are shown read-only,
    with their source, and returned instead of the view's value.
    """
    v = view()
    required = required or set()
    fixed = fixed or {}
    with st.sidebar:
        st.subheader("Parameters")
        for name in names:
            if name == "log10_delta":
                view_checkbox("δ = 1/n²", "delta_auto",
                              help="The usual choice: δ much smaller than 1/n. Untick to enter log10 δ yourself.")
                if v["delta_auto"]:
                    if "n" not in invalid_inputs():
                        st.caption(f"δ = 1/n² = {fmt(1.0 / float(v['n']) ** 2)}")
                    continue
            label = LABELS.get(name, name)
            if name in required:
                label += " *"
            if name in fixed:
                value, source = fixed[name]
                key = f"w_{name}_fixed"
                st.session_state[key] = None if value is None else float(value)
                st.number_input(f"{label} — {source}", key=key, disabled=True, format="%g",
                                help=f"Set by {source}; choose 'manual' to enter it yourself.")
                continue
            view_number(name, label)
        st.caption("* changes the numbers shown (for the current selection). The URL holds all settings: copy it "
                   "to share this view.")
    sync_url()
    out = params_from_view(v)
    for name, (value, _source) in fixed.items():
        if value is not None:
            out[name] = value
    return out


def loss_options(setting: str | None = None) -> dict[str, str]:
    """Loss id -> label for the losses of ``setting`` ("pointwise" / "pairwise"; None: all)."""
    from dpviz.engine import losses

    out = {}
    for lid in losses.loss_ids():
        loss = losses.get_loss(lid)
        if setting is None or loss.setting == setting:
            out[lid] = f"{loss.name} (α = {loss.alpha:g})" if not _takes_q(lid) else f"{loss.name} (α = q − 1)"
    return out


def _takes_q(loss_id: str) -> bool:
    from dpviz.engine import losses

    return bool(getattr(losses.get_loss(loss_id), "q", None) is not None)


@st.cache_data(show_spinner=False, max_entries=2000)
def cached_loss_constants(loss_id: str, kappa: float, R: float, q: float | None) -> dict:
    """The constants (G, L, M, α) of a loss on ||w|| <= R with data radius κ, or {'error': msg}."""
    from dpviz.engine import losses

    try:
        loss = losses.get_loss(loss_id, q=q) if q is not None else losses.get_loss(loss_id)
        return {"ok": {k: float(val) for k, val in loss.constants(kappa=kappa, R=R).items()}}
    except ValueError as exc:
        return {"error": str(exc)}


def loss_picker(setting: str | None, key: str = "loss") -> tuple[str | None, list[str]]:
    """Loss select box ("custom" = set G, L, M, α by hand) and the override checkbox.

    Returns the chosen loss id (None for custom) and the constant names the sidebar should show.
    """
    opts = {"custom": "custom: set G, L, M and α by hand"}
    opts.update(loss_options(setting))
    chosen = view_choice("Loss", key, opts, fallback="custom", format_func=opts.get,
                         help="The loss fixes the smoothness α and, with the data radius κ and the domain radius R, "
                              "the Lipschitz constant G, the Hölder constant L and M = sup ||∇f(0; z)||. α = 1: "
                              "smooth (least squares, logistic); α = 0: only Lipschitz (hinge, absolute); "
                              "in between: q-norm losses with α = q − 1.")
    if chosen == "custom":
        return None, list(LOSS_CONSTANTS)
    override = view_checkbox("Override the loss's constants", "override",
                             help="Set G, L, M and α by hand instead of deriving them from the loss, κ and R.")
    return chosen, (list(LOSS_CONSTANTS) if override else [])


def resolve_loss(params: dict, loss_id: str | None, shown: list[str]) -> tuple[dict, str | None, bool]:
    """``params`` with the loss's derived constants put in (unless overridden), a sentence saying where they come
    from, and whether that sentence is an error.  Draws nothing (pages call it before the sidebar is drawn)."""
    if loss_id is None:
        return params, None, False
    v = view()
    q = float(v["q"]) if _takes_q(loss_id) else None
    res = cached_loss_constants(loss_id, float(params["kappa"]), float(params["R"]), q)
    if "error" in res:
        return params, res["error"], True
    const = res["ok"]
    if shown:  # overridden by hand
        return params, ("Using your own G, L, M, α (the loss would give "
                        + ", ".join(f"{k} = {fmt(const[k])}" for k in LOSS_CONSTANTS if k in const) + ")."), False
    out = dict(params)
    out.update({k: const[k] for k in LOSS_CONSTANTS if k in const})
    return out, ("From the loss with κ = " + fmt(params["kappa"]) + " and R = " + fmt(params["R"]) + ": "
                 + ", ".join(f"{k if k != 'alpha' else 'α'} = {fmt(const[k])}" for k in LOSS_CONSTANTS if k in const)
                 + ". Tick 'Override' to change them."), False


def show_loss_message(message: str | None, is_error: bool) -> None:
    if message:
        (st.error if is_error else st.caption)(message)


def apply_loss(params: dict, loss_id: str | None, shown: list[str]) -> dict:
    """Put the loss's derived constants into ``params`` (unless overridden) and say where they come from."""
    out, message, is_error = resolve_loss(params, loss_id, shown)
    show_loss_message(message, is_error)
    return out


def starred(*, algorithms=(), schedule=None, theorems=(), loss_id: str | None = None, shown=()) -> set[str]:
    """The sidebar inputs marked "*": those that change the numbers the page shows, from the catalogue's
    declarations (``Algorithm.affects``, ``Theorem.inputs_affecting`` / ``schedule_affects``).

    ``algorithms``: the calibrated algorithms (their ``affects``; the pages never pass the sidebar's c to a
    calibration, it is the theorems' free constant); ``schedule``: the theorem whose η and T the page uses (the inputs that change
    that schedule change the numbers too); ``theorems``: the theorems whose bounds are shown.  With a loss chosen and
    its constants not overridden (``shown`` empty), a starred G, L, M or α is replaced by the loss inputs that set it
    (κ, R, q).  δ is entered as log10 δ."""
    names: set = set()
    for alg in algorithms:
        names |= set(alg.affects) - {"c"}
    if schedule is not None:
        names |= set(schedule.schedule_affects)
    for thm in theorems:
        names |= set(thm.inputs_affecting())
    if loss_id is not None and not shown:
        from dpviz.engine import losses

        by_constant = losses.get_loss(loss_id).constant_inputs()  # which inputs set a constant does not depend on q
        for const in LOSS_CONSTANTS:
            if const in names:
                names.discard(const)
                names |= set(by_constant.get(const, ()))
    if "delta" in names:
        names.add("log10_delta")
    return names


def sidebar_names(shown_constants: list[str], loss_id: str | None) -> list[str]:
    """The sidebar parameters: the common ones, the loss constants if shown, q for q-norm losses."""
    names = [n for n in NUMERIC if n not in LOSS_CONSTANTS or n in shown_constants]
    if loss_id is not None and _takes_q(loss_id):
        names.append("q")
    return names
