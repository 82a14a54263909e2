"""The one shared UI helper module of the dashboard: state, URL sync, widgets, cache wrappers, safe rendering."""

from __future__ import annotations

import collections
import functools
import json
import math
import os
import re
import threading
import traceback

import streamlit as st

from dpviz.theory import catalog
from dpviz.foundation import urlstate

HELP = {
    "n": "Number of training examples. More data means less noise is needed for the same privacy.",
    "d": "Dimension of the model parameter w.",
    "eps": "Privacy budget ε. SMALLER ε = MORE private (more noise); larger ε = less private, more accurate.",
    "log10_delta": "log10 of δ, the probability that the ε guarantee may fail. Usually δ ≤ 1/n² (−6 means δ = 1e-6).",
    "T": "Number of iterations (gradient steps).",
    "eta": "Step size (learning rate) η.",
    "G": "Lipschitz constant: bound on the gradient norm of the loss.",
    "L": "Smoothness / Hölder constant of the gradient.",
    "M": "Bound on the gradient norm at w = 0 (used by the Hölder-smooth papers).",
    "R": "Radius of the parameter domain (or of the optimum w*, see the theorem).",
    "alpha": "Hölder smoothness α of the loss gradient: α = 1 smooth (e.g. logistic), α = 0 only Lipschitz "
             "(e.g. hinge); values in between interpolate.",
    "mu": "Strong-convexity / PL constant μ.",
    "c": "The paper's unspecified absolute constant (default 1): rates are only known up to it.",
    "kappa": "Data radius κ = sup ||x||: the largest norm of a feature vector. With R it fixes the loss's constants.",
    "q": "Exponent q of a q-norm loss, 1 < q ≤ 2; its gradient is (q − 1)-Hölder, so α = q − 1.",
}
NUMERIC = ["n", "d", "eps", "log10_delta", "T", "eta", "G", "L", "M", "R", "alpha", "mu", "c", "kappa"]
#: Constants a loss determines (from κ and R); hidden from the sidebar unless the user overrides them.
LOSS_CONSTANTS = ["G", "L", "M", "alpha"]
LABELS = {"log10_delta": "log10 δ", "eps": "ε", "eta": "η", "alpha": "α", "mu": "μ", "kappa": "κ (data radius)"}


def _legacy_pages_fallback() -> None:
    """Make Streamlit run app.py (and its st.navigation) even when the first visit opens a page's URL.

    Streamlit keeps a process-wide flag for apps with a ``pages/`` folder: until some run of app.py has called
    ``st.navigation``, a request for e.g. ``/simulate`` runs ``pages/simulate.py`` on its own in the old multipage
    mode (file names in the sidebar, no page config), and it stays so for every visitor until someone opens the home
    page -- exactly what happens when the first visitor follows a shared link.  app.py marks its runs with
    ``_nav_ready``; a page run without that mark clears the flag and reruns, which then goes through app.py.
    """
    if st.session_state.get("_nav_ready"):
        return
    try:
        from streamlit.runtime.pages_manager import PagesManager
    except ImportError:  # pragma: no cover - a future streamlit without the legacy mode
        return
    if getattr(PagesManager, "uses_pages_directory", None):
        PagesManager.uses_pages_directory = False
        st.rerun()


def init_state() -> None:
    """Load the view state from the URL once per session (the notice about ignored link parameters is shown by
    :func:`show_link_notice`, once per run, not here)."""
    _legacy_pages_fallback()
    if "_view" not in st.session_state:
        state, problems = urlstate.decode({k: st.query_params.get(k) for k in st.query_params.keys()})
        st.session_state["_view"] = state
        st.session_state["_url_problems"] = problems
        st.session_state["_invalid"] = {}


_MD_SPECIAL = re.compile(r"([\\`*_{}\[\]()#+\-.!|<>~$:=&])")
_AUTOLINK = re.compile(r"(?i):/|ww(?=w\.)|@.")


def plain(text) -> str:
    """``text`` escaped so that Streamlit's Markdown shows it literally: no links, images, HTML, LaTeX or emphasis.

    Everything a user typed, uploaded or put in a URL goes through this before it reaches st.error/st.warning/...
    """
    # GFM autolink literals (http://..., www...., a@b.c) are found in the text AFTER the escapes are undone: an
    # invisible zero-width space after the scheme's colon, inside "www" and after "@" keeps them plain text
    text = _AUTOLINK.sub(lambda m: m.group(0)[:-1] + "\u200b" + m.group(0)[-1], str(text))
    return _MD_SPECIAL.sub(r"\\\1", text).replace("\n", " ")


#: at most this many ignored link parameters are listed in the notice (the rest are counted), each cut to
#: LINK_NOTICE_CHARS characters: a link with 1 000 unknown parameters gives one short notice, not 1 000 boxes
LINK_NOTICE_ITEMS = 10
LINK_NOTICE_CHARS = 120
_run_local = threading.local()


def link_notice_text(problems) -> str:
    """The one notice about ignored link parameters: at most :data:`LINK_NOTICE_ITEMS` reasons, each escaped
    (:func:`plain`: shown as text, never as a link, image or HTML) and cut to :data:`LINK_NOTICE_CHARS` characters,
    then how many more were ignored. Empty when nothing was ignored."""
    problems = [str(p) for p in problems]
    if not problems:
        return ""
    shown = [p if len(p) <= LINK_NOTICE_CHARS else p[:LINK_NOTICE_CHARS - 1] + "…"
             for p in problems[:LINK_NOTICE_ITEMS]]
    more = len(problems) - len(shown)
    return ("Some settings in the link were ignored (their defaults are used): " + "; ".join(plain(p) for p in shown)
            + (f"; and {more} more." if more else "."))


def show_link_notice(extra=None) -> None:
    """The one notice of this run about ignored link parameters (see :func:`link_notice_text`); gone after the user's
    first change.

    The app calls it before the page (reserving the notice's place); a page calling it again in the same run (e.g.
    the Audit page with its own ignored ``aud_*`` parameters as ``extra``) updates that same notice, so a page never
    shows more than one."""
    problems = list(st.session_state.get("_url_problems") or [])
    slot = getattr(_run_local, "slot", None)
    ctx = _script_run_id()
    if slot is None or ctx is None or slot[0] is not ctx:
        holder = st.empty()
        _run_local.slot = slot = (ctx, holder, problems)
    slot[2].extend(str(p) for p in (extra or ()))
    text = link_notice_text(slot[2])
    if text:
        slot[1].warning(text)
    else:
        slot[1].empty()


def _script_run_id():
    """An object unique to the current script run (Streamlit gives every run a new cursor table), so a notice slot
    is never reused by a later run; compared by identity (the slot keeps it alive, so its id is never reused)."""
    try:
        from streamlit.runtime.scriptrunner import get_script_run_ctx

        ctx = get_script_run_ctx()
        return getattr(ctx, "cursors", None) if ctx is not None else None
    except Exception:  # noqa: BLE001 -- outside a script run
        return None


def view() -> dict:
    init_state()
    return st.session_state["_view"]


def set_view(**changes) -> None:
    v = view()
    v.update(changes)
    sync_url()


def _user_acted() -> None:
    st.session_state["_url_problems"] = []


def _commit(name: str, limits: tuple | None = None) -> None:
    """Widget callback: the widget ``w_<name>`` changed; validate it into the view (or record why it is invalid).

    Runs before the script, so the page that follows already sees the new value: one source of truth (the view),
    each widget with a stable key -- no second change of a widget is ever lost to a default fighting its state.
    A number box holds text: it is parsed by :func:`dpviz.foundation.urlstate.parse_number` (``6e4``, ``60,000`` and
    ``60 000`` are 60000; ``1.5`` is not a whole number), never truncated.
    """
    _user_acted()
    value = st.session_state.get(f"w_{name}")
    invalid = st.session_state.setdefault("_invalid", {})
    kind = urlstate.SCHEMA[name][0]
    hint = None
    if kind in ("int", "float") and isinstance(value, str):
        try:
            urlstate.parse_number(value, kind)
        except ValueError as exc:
            hint = str(exc)
    try:
        checked = urlstate.validate(name, value)
    except ValueError as exc:
        invalid[name] = (value, hint if hint is not None else str(exc))
        return
    if limits is not None and not limits[0] <= checked <= limits[1]:
        invalid[name] = (value, "page-range", _page_id())  # out of this page's narrower range: for this page only
        return
    st.session_state["_view"][name] = checked
    invalid.pop(name, None)


def _commit_choice(name: str) -> None:
    _user_acted()
    value = st.session_state.get(f"w_{name}")
    if isinstance(value, tuple):
        value = list(value)
    st.session_state["_view"][name] = value


def _bind(name: str, value) -> str:
    """Put ``value`` into the widget state of the view entry ``name`` before its widget is drawn; the widget key."""
    key = f"w_{name}"
    st.session_state[key] = value
    return key


def view_choice(label: str, key: str, options, *, fallback=None, widget=None, container=None, **kwargs):
    """A select box (or ``widget=st.radio``) bound to the view entry ``key``: it shows the view's value (the URL's),
    falls back to ``fallback`` (else the first option) when that is not an option, and every change goes back to the
    view and the URL."""
    options = list(options)
    current = view()[key]
    if current not in options:
        current = fallback if fallback in options else options[0]
        view()[key] = current
    wkey = _bind(key, current)
    draw = getattr(container, (widget or st.selectbox).__name__) if container is not None else (widget or st.selectbox)
    value = draw(label, options, key=wkey, on_change=_commit_choice, args=(key,), **kwargs)
    set_view(**{key: value})
    return value


def view_multiselect(label: str, key: str, options, *, fallback=(), **kwargs) -> list:
    """A multiselect bound to the view entry ``key`` (a list); ``fallback`` when none of the view's entries is an
    option."""
    options = list(options)
    chosen = [o for o in view()[key] if o in options]
    if not chosen and not st.session_state.get(f"_touched_{key}"):
        chosen = [o for o in fallback if o in options]
    view()[key] = chosen
    wkey = _bind(key, chosen)

    def _changed() -> None:
        st.session_state[f"_touched_{key}"] = True  # an emptied selection stays empty
        _commit_choice(key)

    value = st.multiselect(label, options, key=wkey, on_change=_changed, **kwargs)
    set_view(**{key: list(value)})
    return list(value)


def view_checkbox(label: str, key: str, container=None, **kwargs) -> bool:
    """A checkbox bound to the boolean view entry ``key``."""
    wkey = _bind(key, bool(view()[key]))
    value = bool((container or st).checkbox(label, key=wkey, on_change=_commit_choice, args=(key,), **kwargs))
    set_view(**{key: value})
    return value


def view_range(label: str, key_lo: str, key_hi: str, choices, *, container=None, **kwargs) -> tuple:
    """A range select slider bound to the view entries ``key_lo`` and ``key_hi`` (snapped to ``choices``)."""
    choices = list(choices)
    v = view()
    lo, hi = _snap(v[key_lo], choices), _snap(v[key_hi], choices)
    if lo > hi:
        lo, hi = hi, lo
    name = f"{key_lo}_{key_hi}"
    wkey = f"w_{name}"
    st.session_state[wkey] = (lo, hi)

    def _changed() -> None:
        _user_acted()
        a, b = st.session_state[wkey]
        st.session_state["_view"][key_lo], st.session_state["_view"][key_hi] = a, b

    lo, hi = (container or st).select_slider(label, choices, key=wkey, on_change=_changed, **kwargs)
    set_view(**{key_lo: lo, key_hi: hi})
    return lo, hi


def _snap(value, choices):
    """The entry of ``choices`` closest to ``value`` (in log scale)."""
    return min(choices, key=lambda c: abs(math.log(c) - math.log(max(float(value), 1e-12))))


def _page_id() -> str:
    """The current page's script (for checks that hold on one page only)."""
    try:
        from streamlit.runtime.scriptrunner import get_script_run_ctx

        ctx = get_script_run_ctx()
        return str(getattr(ctx, "page_script_hash", "") or "")
    except Exception:  # noqa: BLE001 - no run context (bare mode)
        return ""


def view_number(name: str, label: str | None = None, *, container=None, disabled: bool = False, help=None,
                limits: tuple | None = None, **kwargs):
    """A number box bound to the view entry ``name`` (kind and range from :data:`urlstate.SCHEMA`); the view's
    value, or None while the box holds something that is not a valid value.

    It is a text box, so what is typed is never silently changed by the browser (a number box truncates ``6e4`` to
    6 and ``60,000`` to 60): ``6e4``, ``1.5e5``, ``60,000`` and ``60 000`` are the numbers they denote, anything
    else (``1,5``, ``1.5`` for a whole number, an empty box, a value out of range) is kept on screen and reported by
    :func:`stop_if_invalid`, which shows one error naming the input and its range, and no results.  ``limits``
    narrows the range on this page (e.g. the Accounting page's n ≤ 10⁷): a view value outside it, set on another
    page, is reported the same way here and kept for the other pages.
    """
    kind, _default, _bounds = urlstate.SCHEMA[name]
    invalid = st.session_state.setdefault("_invalid", {})
    if name in invalid and len(invalid[name]) > 2 and invalid[name][2] != _page_id():
        invalid.pop(name)  # typed on another page, out of that page's narrower range only: not an error here
    if name in invalid:
        raw = invalid[name][0]
        shown = raw if isinstance(raw, str) else urlstate.number_text(raw, kind) if raw is not None else ""
    else:
        shown = urlstate.number_text(view()[name], kind)
    key = _bind(name, shown)
    label = label or LABELS.get(name, name)
    st.session_state.setdefault("_labels", {})[name] = label.rstrip(" *")  # errors name the box as shown
    (container or st).text_input(label, key=key, help=help or HELP.get(name), on_change=_commit,
                                 args=(name, limits), disabled=disabled, **kwargs)
    page_limits = st.session_state.setdefault("_limits", {})
    if limits is None:
        page_limits.pop(name, None)
    else:
        page_limits[name] = (_page_id(), limits)
    if name in invalid:
        return None
    value = view()[name]
    if limits is not None and not (limits[0] <= value <= limits[1]):
        return None
    return value


def range_text(name: str, limits: tuple | None = None) -> str:
    kind, _d, (lo, hi) = urlstate.SCHEMA[name]
    if limits is not None:
        lo, hi = limits
    return f"a {'whole number' if kind == 'int' else 'number'} from {fmt(lo)} to {fmt(hi)}"


def only_params(params: dict, *funcs) -> dict:
    """The entries of ``params`` that the calibration / bound functions ``funcs`` take: their cache key, so that
    nothing else invalidates a cached curve."""
    names: set = set()
    for f in funcs:
        if f is not None:
            names |= set(catalog.parameters_of(f))
    return {k: v for k, v in params.items() if k in names}


def invalid_inputs() -> dict:
    """View entry -> (what was typed, why it is invalid) for the inputs that currently hold an invalid value, and
    those whose value is outside the narrower range of the current page (:func:`view_number`'s ``limits``)."""
    page = _page_id()
    out = {k: val[:2] for k, val in st.session_state.get("_invalid", {}).items() if len(val) < 3 or val[2] == page}
    v = view()
    for name, (where, (lo, hi)) in st.session_state.get("_limits", {}).items():
        if where == page and name not in out and v.get(name) is not None and not lo <= v[name] <= hi:
            out[name] = (v[name], "page-limit")
    return out


def stop_if_invalid(names=None) -> None:
    """If any input (of ``names``, default all) holds an invalid value: one error naming each input and its valid
    range, and nothing computed from the other values (the page stops here)."""
    if report_invalid(names):
        st.stop()


def report_invalid(names=None, page_keys=()) -> bool:
    """:func:`stop_if_invalid` without stopping: the one error (if any input of ``names``, or any
    :func:`page_number` box of ``page_keys``, is invalid) and whether there was one, for a page with independent
    sections (the section then shows no numbers)."""
    bad = {k: val for k, val in invalid_inputs().items() if names is None or k in names}
    extra = _page_invalid_parts(page_keys)
    if not bad and not extra:
        return False
    limits = {n: lim for n, (where, lim) in st.session_state.get("_limits", {}).items() if where == _page_id()}
    parts = []
    for name, (raw, msg) in bad.items():
        if urlstate.SCHEMA[name][0] not in ("int", "float"):
            parts.append(plain(msg))
            continue
        label = st.session_state.get("_labels", {}).get(name) or LABELS.get(name, name)
        if msg == "page-range":
            parts.append(f"**{label}** must be {range_text(name, limits.get(name))} on this page (you entered "
                         f"{plain(raw)})")
            continue
        if msg == "page-limit":
            parts.append(f"**{label}** must be {range_text(name, limits.get(name))} on this page (the "
                         f"view holds {fmt(raw)}, from the link or another page)")
            continue
        if raw is None or (isinstance(raw, str) and not raw.strip()):
            typed = "nothing: the box is empty"
        else:
            typed = plain(raw if isinstance(raw, str) else urlstate.number_text(raw))
            try:
                urlstate.parse_number(raw, urlstate.SCHEMA[name][0])
            except ValueError:
                typed += ", " + plain(msg.split(": ", 1)[-1] if "comma" in msg else
                                      "not a whole number" if "whole" in msg else "not a number")
        parts.append(f"**{label}** must be {range_text(name, limits.get(name))} (you entered {typed})")
    parts += extra
    st.error("Fix the input" + ("s" if len(parts) > 1 else "") + " to see results: " + "; ".join(parts)
             + ". No numbers are shown until then.")
    return True


def page_number(key: str, label: str, kind: str, lo: float, hi: float, *, container=None, help=None):
    """A number box for a page's own state entry ``st.session_state[key]`` (e.g. the Audit page's ``aud_n``, which
    the page keeps in its own link parameters), with the contract of :func:`view_number`: a text box parsed by
    :func:`dpviz.foundation.urlstate.parse_number` (``6e4``, ``60,000``, ``60 000``), never truncated; anything else, an empty
    box or a value outside [lo, hi] stays on screen and :func:`report_page_invalid` shows one error naming the box
    and its range.  Returns the value, or None while the box is invalid."""
    wkey = f"w_{key}"
    invalid = st.session_state.setdefault("_page_invalid", {})
    st.session_state[wkey] = invalid[key][0] if key in invalid else urlstate.number_text(st.session_state[key], kind)
    st.session_state.setdefault("_page_boxes", {})[key] = (label, kind, lo, hi)

    def _changed() -> None:
        raw = st.session_state[wkey]
        try:
            x = urlstate.parse_number(raw, kind)
        except ValueError as exc:
            invalid[key] = (raw, str(exc))
            return
        if not lo <= x <= hi:
            invalid[key] = (raw, "range")
            return
        st.session_state[key] = x
        invalid.pop(key, None)

    (container or st).text_input(label, key=wkey, on_change=_changed, help=help)
    return None if key in invalid else st.session_state[key]


def report_page_invalid(keys) -> bool:
    """One error naming every invalid :func:`page_number` box of ``keys`` and its range; whether there was one."""
    return report_invalid([], page_keys=keys)


def _page_invalid_parts(keys) -> list:
    """The error's phrases for the invalid :func:`page_number` boxes of ``keys``."""
    invalid = st.session_state.get("_page_invalid", {})
    boxes = st.session_state.get("_page_boxes", {})
    parts = []
    for key in keys:
        if key not in invalid or key not in boxes:
            continue
        label, kind, lo, hi = boxes[key]
        raw, msg = invalid[key]
        if not str(raw).strip():
            typed = "nothing: the box is empty"
        else:
            typed = plain(raw)
            if msg != "range":
                typed += ", " + plain(msg.split(": ", 1)[-1] if "comma" in msg else
                                      "not a whole number" if "whole" in msg else "not a number")
        parts.append(f"**{label}** must be a {'whole number' if kind == 'int' else 'number'} from {fmt(lo)} to "
                     f"{fmt(hi)} (you entered {typed})")
    return parts


def parse_number_list(text: str, kind: str, lo: float, hi: float, what: str, most: int = 12) -> list:
    """Numbers typed by the user (comma- or space-separated), checked; ValueError with a plain message."""
    parts = [p for p in str(text).replace(";", ",").replace(" ", ",").split(",") if p.strip()]
    if not parts:
        raise ValueError(f"{what}: type at least one value")
    if len(parts) > most:
        raise ValueError(f"{what}: at most {most} values")
    out = []
    for p in parts:
        try:
            x = urlstate.parse_number(p)  # 6e4, 1.5e5, −0.5 (commas and spaces separate the values here)
        except ValueError:
            raise ValueError(f"{what}: {p.strip()[:20]!r} is not a number (values are separated by commas or "
                             "spaces: write 60000 or 6e4, not 60,000)") from None
        if not (lo <= x <= hi):
            raise ValueError(f"{what}: every value must be between {lo:g} and {hi:g} (got {x:g})")
        if kind == "int":
            if x != int(x):
                raise ValueError(f"{what}: {x:g} is not a whole number")
            x = int(x)
        out.append(x)
    return sorted(set(out))


def list_input(label: str, key: str, default: list, kind: str, lo: float, hi: float, help: str) -> list | None:
    """A text input for a list of numbers bound to the view entry ``key`` (a list of strings in the URL)."""
    v = view()
    invalid = st.session_state.setdefault("_invalid", {})
    current = v[key] or [repr(float(x)) if kind == "float" else str(int(x)) for x in default]
    text = invalid[key][0] if key in invalid else ", ".join(f"{float(c):g}" for c in current)
    wkey = f"w_{key}"
    st.session_state[wkey] = text

    def _changed() -> None:
        _user_acted()
        raw = st.session_state[wkey]
        try:
            vals = parse_number_list(raw, kind, lo, hi, label)
            st.session_state["_view"][key] = [f"{x:g}" if kind == "float" else str(x) for x in vals]
            invalid.pop(key, None)
        except ValueError as exc:
            invalid[key] = (raw, str(exc))

    st.text_input(label, key=wkey, on_change=_changed, help=help)
    if key in invalid:
        return None
    return parse_number_list(", ".join(current), kind, lo, hi, label)


def sync_url() -> None:
    try:
        enc = urlstate.encode(view())
    except ValueError:
        return
    if dict(st.query_params) != enc:
        st.query_params.from_dict(enc)


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


def params_from_view(v: dict) -> dict:
    p = {k: v[k] for k in NUMERIC if k != "log10_delta"}
    p["delta"] = 1.0 / float(v["n"]) ** 2 if v["delta_auto"] else 10.0 ** v["log10_delta"]
    return p


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


@st.cache_data(show_spinner=False, max_entries=5000)
def cached_calibrate(algorithm_id: str, items: tuple) -> dict:
    """Calibration as a dict (or {'error': msg}) for hashable ``items`` = sorted (name, value) pairs."""
    try:
        return {"ok": catalog.calibrate(algorithm_id, **dict(items)).to_dict()}
    except ValueError as exc:
        return {"error": str(exc)}


#: the most server time one curve / map of a page may take per page run (seconds): a link cannot cost minutes of
#: CPU at once.  A server operator (or a test) may set it with the environment variable DPVIZ_CURVE_BUDGET.
CURVE_BUDGET = float(os.environ.get("DPVIZ_CURVE_BUDGET") or 4.0)


def cached_noise_series(algorithm_id: str, items: tuple, name: str, grid: tuple, budget: float = CURVE_BUDGET) -> list:
    """:func:`_noise_series` keyed by what the curve depends on: the swept parameter's current value is not part of
    the key (an edit of ε does not recompute the σ-vs-ε curve; the page marks the current point separately)."""
    return _noise_series(algorithm_id, tuple((k, v) for k, v in items if k != name), name, grid, budget)


#: computed noise levels, one entry per (algorithm, parameters) point, shared by every session.  Only computed points
#: are kept: a point skipped because a curve's time budget ran out is never stored, so the next run computes it.
_NOISE_POINTS: "collections.OrderedDict[tuple, float | None]" = collections.OrderedDict()
_NOISE_LOCK = threading.Lock()
_NOISE_MAX = 50_000


def _shared_point(store: "collections.OrderedDict", key: tuple, compute):
    """``store[key]``, computed by ``compute()`` on a miss (ValueError -> None) and kept in ``store``, a bounded LRU
    shared by every session (at most :data:`_NOISE_MAX` entries)."""
    with _NOISE_LOCK:
        if key in store:
            store.move_to_end(key)
            return store[key]
    try:
        out = compute()
    except ValueError:
        out = None
    with _NOISE_LOCK:
        store[key] = out
        while len(store) > _NOISE_MAX:
            store.popitem(last=False)
    return out


def _noise_point(algorithm_id: str, items: tuple) -> float | None:
    """Noise level (σ, else the Laplace scale) of one calibration; None if it is not private or the input invalid."""
    def compute():
        c = catalog.calibrate(algorithm_id, **{**dict(items), "accountant_extra": False})
        val = c.sigma if c.sigma is not None else c.laplace_scale
        return float(val) if (c.feasible and val is not None) else None

    return _shared_point(_NOISE_POINTS, (algorithm_id, items), compute)


def noise_points(algorithm_id: str, points: list[dict], budget: float = CURVE_BUDGET) -> list:
    """Noise level at each parameter dict of ``points`` (see :func:`_noise_point`), or "timeout" for a point not yet
    computed when ``budget`` seconds had passed.  Points computed before (by any session) cost nothing and are
    always returned; a timed-out point is not stored, so calling again computes it (progressive curves)."""
    import time

    out = []
    start, computed = time.perf_counter(), 0
    for p in points:
        key = (algorithm_id, items(p))
        with _NOISE_LOCK:
            known = key in _NOISE_POINTS
        if not known:
            if computed and time.perf_counter() - start > budget:  # the first new point always runs: progress
                out.append("timeout")
                continue
            computed += 1
        out.append(_noise_point(*key))
    return out


def _noise_series(algorithm_id: str, items: tuple, name: str, grid: tuple, budget: float = CURVE_BUDGET) -> list:
    """Noise level (σ, else the Laplace scale) of a calibration along ``grid`` values of parameter ``name``.

    None marks an infeasible or invalid point, "timeout" a point not computed within this call's time ``budget``
    (seconds; :func:`series_complete` counts them).  Each point is cached on its own and time-outs are not, so a
    rerun draws the points already computed at once and computes the rest.
    """
    return noise_points(algorithm_id, [{**dict(items), name: x} for x in grid], budget)


#: how many runs in a row a page reruns itself to complete curves whose points a time budget skipped (each run
#: spends at most CURVE_BUDGET s per curve); after that a button continues
CURVE_ROUNDS = 6


def continue_curves(key, pending: bool) -> bool:
    """Whether the page should rerun itself now to compute the points of its curves a time budget skipped
    (``pending``): up to :data:`CURVE_ROUNDS` runs in a row for one ``key`` (the page's inputs), then a button
    continues.  The caller reruns (``st.rerun()``) at the end of its run when this returns True."""
    rounds = st.session_state.setdefault("_curve_rounds", {})
    if not pending:
        rounds.pop(key, None)
        return False
    rounds[key] = rounds.get(key, 0) + 1
    if rounds[key] <= CURVE_ROUNDS:
        st.caption("Computing the remaining points…")
        return True
    st.button("Compute the points not computed yet", key="more_points", on_click=lambda: rounds.pop(key, None),
              help=f"The page computed its curves for {CURVE_ROUNDS} rounds of at most {CURVE_BUDGET:g} s per "
                   "curve; press to continue. Points already computed are kept (for everyone).")
    return False


def series_complete(ys: list) -> tuple[list, int]:
    """(the curve with skipped points as None, how many points the time budget skipped)."""
    skipped = sum(1 for y in ys if y == "timeout")
    return [None if y == "timeout" else y for y in ys], skipped


@st.cache_data(show_spinner=False, max_entries=200)
def cached_feasibility_grid(algorithm_id: str, items: tuple, ns: tuple, epss: tuple) -> list | dict:
    """Feasibility (rows: ε, columns: n) with T = n and δ = 1/n², the setting of Wang, Lei, Ying & Zhang Fig. 1.

    ``{"skipped": message}`` when the map would take more than its server-time budget (cached like a result, so a
    rerun does not spend the budget again)."""
    import time

    base = dict(items)
    base["accountant_extra"] = False  # the numerical accountant is not needed for feasibility
    rows = []
    start = time.perf_counter()
    for e in epss:
        row = []
        for n in ns:
            if time.perf_counter() - start > 4 * CURVE_BUDGET:  # returned, not raised: the verdict is cached too
                return {"skipped": f"the feasibility map needs more than {4 * CURVE_BUDGET:g} s of server time at "
                                   "these settings; it is not drawn (a link cannot cost more)"}
            try:
                row.append(bool(catalog.calibrate(algorithm_id, **{**base, "n": n, "eps": e, "T": n,
                                                                  "delta": 1.0 / n**2}).feasible))
            except ValueError:
                row.append(False)
        rows.append(row)
    return rows


@st.cache_data(show_spinner=False, max_entries=200)
def cached_sigma_of_beta(items: tuple, betas: tuple, pairwise: bool) -> list:
    """σ(β) of DP-SGD with Rényi accounting (Wang, Lei, Ying & Zhou, Algorithms 1-2) along ``betas``."""
    from dpviz.theory.papers import wang_lownoise as wl

    p = dict(items)
    out = []
    for b in betas:
        try:
            out.append(wl.sigma_of_beta(n=p["n"], eps=p["eps"], delta=p["delta"], T=p["T"], G=p["G"], beta=b,
                                        pairwise=pairwise))
        except ValueError:
            out.append(None)
    return out


def cached_bound_series(theorem_id: str, items: tuple, name: str, grid: tuple, delta_follows_n: bool,
                        explicit: bool = False) -> dict:
    """:func:`_bound_series` cached by what the curve depends on: not the swept parameter's current value (nor δ
    when it follows n along an n sweep), so an edit of ε does not recompute the curves against ε."""
    drop = {name} | ({"delta"} if name == "n" and delta_follows_n else set())
    return _bound_series(theorem_id, tuple((k, v) for k, v in items if k not in drop), name, grid, delta_follows_n,
                         explicit)


#: computed bounds, one entry per (theorem, explicit, parameters) point, shared by every session; like
#: :data:`_NOISE_POINTS`, a point a time budget skipped is never stored
_BOUND_POINTS: "collections.OrderedDict[tuple, dict | None]" = collections.OrderedDict()


def _bound_point(key: tuple) -> dict | None:
    """{"total", "terms": {name: value}} of one bound (``key`` = (theorem id, explicit, items)); None if invalid."""
    def compute():
        theorem_id, explicit, its = key
        res = catalog.bound(theorem_id, explicit=explicit, **dict(its))
        return {"total": res.total, "terms": {t.name: t.value for t in res.terms}}

    return _shared_point(_BOUND_POINTS, key, compute)


def _bound_series(theorem_id: str, items: tuple, name: str, grid: tuple, delta_follows_n: bool,
                  explicit: bool = False, budget: float = CURVE_BUDGET) -> dict:
    """A theorem's bound along ``grid`` values of ``name``: {"total": [...], "terms": {term: [...]}, "missing":
    [grid values not computed]} (None = invalid or not computed).

    With ``delta_follows_n`` (the "δ = 1/n²" box), δ = 1/n² at every point of an n sweep; ``explicit`` uses the
    paper's explicit-constant bound.  Each point is cached on its own; points not reached within ``budget`` seconds
    are listed in "missing" (not cached), so a rerun draws the computed points at once and computes the rest.
    """
    import time

    base = dict(items)
    total: list = []
    terms: dict[str, list] = {}
    missing: list = []
    start, computed = time.perf_counter(), 0
    for k, x in enumerate(grid):
        p = {**base, name: x}
        if name == "n" and delta_follows_n:
            p["delta"] = 1.0 / float(x) ** 2
        key = (theorem_id, bool(explicit), tuple(sorted((kk, v) for kk, v in p.items() if v is not None)))
        with _NOISE_LOCK:
            known = key in _BOUND_POINTS
        res = None
        if not known and computed and time.perf_counter() - start > budget:
            missing.append(x)
        else:
            computed += 0 if known else 1
            res = _bound_point(key)
        if res is None:
            total.append(None)
            for vals in terms.values():
                vals.append(None)
            continue
        total.append(res["total"])
        for tname, value in res["terms"].items():
            terms.setdefault(tname, [None] * k).append(value)
        for tname, vals in terms.items():  # a term missing at this point
            if len(vals) < k + 1:
                vals.append(None)
    return {"total": total, "terms": terms, "missing": missing}


@st.cache_data(show_spinner=False, max_entries=5000)
def cached_bound(theorem_id: str, items: tuple, explicit: bool = False) -> dict:
    try:
        res = catalog.bound(theorem_id, explicit=explicit, **dict(items))
        return {"ok": {"total": res.total, "terms": [(t.name, t.value) for t in res.terms], "eta": res.eta,
                       "T": res.T, "gradient_complexity": res.gradient_complexity, "notes": list(res.notes),
                       "terms_latex": [(t.name, t.latex, t.n_exp, t.eps_exp) for t in res.terms]}}
    except ValueError as exc:
        return {"error": str(exc)}


_LATEX_WORDS = [(r"\\varepsilon", "ε"), (r"\\epsilon", "ε"), (r"\\delta", "δ"), (r"\\alpha", "α"),
                (r"\\beta", "β"), (r"\\mu", "μ"), (r"\\kappa", "κ"), (r"\\sigma", "σ"), (r"\\eta", "η"),
                (r"\\gamma", "γ"), (r"\\lambda", "λ"), (r"\\log", " log"), (r"\\ln", " ln"), (r"\\cdot", "·"),
                (r"\\times", "×"), (r"\\tilde", ""), (r"\\widetilde", ""), (r"\\mathcal", ""),
                (r"\\Big", ""), (r"\\big", ""), (r"\\left", ""), (r"\\right", ""), (r"\\,", " "),
                (r"\\;", " "), (r"\\!", ""), (r"\\quad", " "), (r"\\min", "min"), (r"\\max", "max")]


def latex_plain(tex: str) -> str:
    """A readable plain-text form of a (simple) LaTeX rate: \\frac{a}{b} -> (a)/(b), \\sqrt{x} -> √(x), Greek letters."""
    out = str(tex)
    for _ in range(6):  # innermost first, a few levels deep
        out = re.sub(r"\\frac\s*\{([^{}]*)\}\s*\{([^{}]*)\}", r"(\1)/(\2)", out)
        out = re.sub(r"\\frac\s*(\w)\s*\{([^{}]*)\}", r"\1/(\2)", out)
        out = re.sub(r"\\frac\s*\{([^{}]*)\}\s*(\w)", r"(\1)/\2", out)
        out = re.sub(r"\\frac\s*(\w)\s*(\w)", r"\1/\2", out)
        out = re.sub(r"\\sqrt\s*\{([^{}]*)\}", r"√(\1)", out)
        out = re.sub(r"\^\{([^{}]*)\}", r"^(\1)", out)
        out = re.sub(r"_\{([^{}]*)\}", r"_\1", out)
    out = re.sub(r"\\sqrt\s*(\\[a-zA-Z]+|\w)", r"√\1", out)
    for pat, rep in _LATEX_WORDS:
        out = re.sub(pat + r"(?![a-zA-Z])", rep, out)
    out = out.replace("{", "(").replace("}", ")").replace("\\", "")
    out = re.sub(r"\(\(([^()]*)\)\)", r"(\1)", out)
    out = re.sub(r"\((√?(?:\d+(?:\.\d+)?|[^\W\d]))\)", r"\1", out)  # (1) -> 1, (√n) -> √n, (nε) stays
    out = re.sub(r"([(+/])\s+log", r"\1log", out)
    return re.sub(r"\s+", " ", out).strip()


@st.cache_data(show_spinner=False, max_entries=500)
def cached_table(table_id: str, items: tuple) -> dict:
    """A comparison table evaluated at ``items``, for the screen: LaTeX columns in a plain-text form, numbers in
    scientific notation where tiny or huge; or {"error": msg}."""
    try:
        rows = catalog.get_table(table_id).evaluate(**dict(items))
    except ValueError as exc:
        return {"error": str(exc)}
    out = []
    for r in rows:
        row = {}
        for k, val in r.items():
            if k in ("rate", "gradient complexity") and isinstance(val, str):
                row[k] = latex_plain(val)
            elif isinstance(val, float):
                row[k] = fmt(val)
            else:
                row[k] = val
        out.append(row)
    return {"ok": out}


def items(params: dict) -> tuple:
    return tuple(sorted((k, v) for k, v in params.items() if v is not None))


def params_caption(params: dict, names=None) -> str:
    """A short plain-text list of the parameters a figure or table was computed at (numbers only)."""
    keys = names if names is not None else [k for k in ("n", "d", "eps", "delta", "T", "eta", "G", "L", "M", "R",
                                                        "alpha", "mu", "kappa") if k in params]
    return ", ".join(f"{LABELS.get(k, 'δ' if k == 'delta' else k)} = {fmt(params[k])}" for k in keys
                     if params.get(k) is not None)


def show_figure(fig, name: str, params: dict | None = None, names=None) -> None:
    """Plotly chart plus a download of it as a standalone HTML page that works offline (plotly.js embedded) and
    states the parameters it was computed at.

    On the first full run of a browser session the chart is held back (see :func:`after_run`).
    """
    if _held_back():
        return
    st.plotly_chart(fig, width="stretch", key=f"chart_{name}")
    caption = params_caption(params, names) if params else ""

    def _html() -> str:
        import plotly.graph_objects as go

        out = go.Figure(fig)
        if caption:
            title = out.layout.title.text or ""
            out.update_layout(title=dict(text=f"{title}<br><sub>dpviz {_version()}: {caption}</sub>"),
                              margin=dict(t=90))
        return out.to_html(include_plotlyjs=True, full_html=True)

    st.download_button(f"Download figure ({name}.html, works offline)", _html, file_name=f"{name}.html",
                       mime="text/html", key=f"dl_{name}", on_click="ignore")


#: seconds after the first paint of a session at which its held-back charts are drawn (see :func:`after_run`)
CHART_DELAY = 1.5


def flush(seconds: float = 0.02) -> None:
    """Let the server send what the page has drawn so far before CPU-bound work continues.

    The script thread holds Python's GIL while it computes; the server's event loop, which sends the page's elements
    to the browser, then often got it only when the run ended, so the main numbers arrived together with the last
    curve (protocol client: first metric at the end of the run in 4 of 8 edits, 0.24-0.26 s; with this pause right
    after them, at 0.05 s in 12 of 12).  A 20 ms pause releases the GIL long enough for the loop to send them.
    """
    import time

    time.sleep(seconds)


def latex(tex: str) -> None:
    """``st.latex``, held back like a chart on a browser session's first run (KaTeX's script chunk and fonts are
    the next-heaviest load of a first visit after Plotly's): its place is kept and the timer run draws it."""
    if _held_back():
        return
    st.latex(tex)


def _held_back() -> bool:
    """If this run holds charts and formulas back (:func:`_hold_charts`): keep the element's place, note that
    something was held (so :func:`after_run` starts the timer) and return True."""
    if not _hold_charts():
        return False
    st.session_state["_charts_held"] = True
    st.empty()
    return True


def _hold_charts() -> bool:
    """Whether this run holds its charts back: the first full run of a session in a web browser."""
    if st.session_state.get("_first_run_done"):
        return False
    try:
        agent = st.context.headers.get("User-Agent") or ""
    except Exception:  # no request context (AppTest, bare mode): nothing to wait for
        return False
    return "Mozilla" in agent


def after_run() -> None:
    """End of every full script run (app.py, also after ``st.stop()``).

    A browser loads Plotly's 4.7 MB script chunk the first time a chart arrives, and parsing it holds up the page:
    with a chart in the first run, a first visit showed its main numbers after 4.9 s (median of 6), without one
    after 2.7 s (benchmarks/RESULTS.md, "first visit").  So the first full run of a browser session draws the main
    numbers, formulas and tables but holds its charts back, and a fragment timer run by the browser -- so it starts
    only once the page has been painted -- asks for a full rerun :data:`CHART_DELAY` s later, which draws them.
    Any earlier user action reruns the page with its charts anyway.
    """
    first = not st.session_state.get("_first_run_done")
    st.session_state["_first_run_done"] = True
    if first and st.session_state.pop("_charts_held", False):
        @st.fragment(run_every=CHART_DELAY)
        def _draw_charts() -> None:
            if st.session_state.get("_chart_timer_armed"):
                st.session_state.pop("_chart_timer_armed", None)
                st.rerun(scope="app")
            st.session_state["_chart_timer_armed"] = True

        _draw_charts()
        preload = _chart_preload_html()
        if preload:
            st.html(preload, unsafe_allow_javascript=True)


@functools.lru_cache(maxsize=1)
def _chart_preload_html() -> str:
    """A constant script (no user input goes in) that, once the first run's numbers are painted, loads the script
    chunks of Plotly and KaTeX from this server, so that the held-back charts and formulas, which arrive
    :data:`CHART_DELAY` s later, do not wait for them.  Empty if the installed Streamlit has no such chunks."""
    import json
    from pathlib import Path

    js = Path(st.__file__).parent / "static" / "static" / "js"
    chunks = sorted(p.name for pattern in ("PlotlyChart.*.js", "rehype-katex.*.js") for p in js.glob(pattern))
    if not chunks:
        return ""
    return ("<script>(() => { const main = document.querySelector('script[src*=\"/static/js/index.\"]');"
            " if (!main) return; const load = () => " + json.dumps(chunks)
            + ".forEach(c => import(new URL('./' + c, main.src).href).catch(() => {}));"
            " requestAnimationFrame(() => setTimeout(load, 50)); })();</script>")


def _version() -> str:
    from dpviz import __version__

    return __version__


def download_view(page: str, inputs: dict, outputs: dict, command: str | None, seed: int | None = None,
                  container=None) -> None:
    """"Download this view": one JSON with every input, every output, the seed, the dpviz version and the exact
    ``python -m dpviz ...`` command that reproduces the numbers.

    ``container``: a slot the page reserved (``st.empty()``) above its slow parts, so that while the page
    recomputes, the previous run's button is already gone instead of offering the previous run's numbers.  The
    document is also kept in ``st.session_state["_view_docs"][page]`` (tests run its command)."""
    doc = {"page": page, "dpviz_version": _version(), "inputs": inputs, "outputs": outputs, "seed": seed,
           "command": command, "url_query": urlstate.encode(view())}
    st.session_state.setdefault("_view_docs", {})[page] = doc
    (container or st).download_button("Download this view (JSON)", lambda: json.dumps(catalog._json_safe(doc), indent=1,
                                                                        default=str),
                       file_name=f"dpviz_{page}_view.json", mime="application/json", key=f"view_{page}",
                       on_click="ignore", help="Every input and output of this page, the dpviz version and the "
                                               "command line that reproduces the numbers.")


def cli_command(sub: str, flag: str, ident: str, params: dict, extra: tuple = ()) -> str:
    """The ``python -m dpviz`` command line for ``params`` (known options as flags, the rest as --param; ``extra``:
    further switches such as ``--explicit``)."""
    return " ".join(["python -m dpviz", sub, f"--{flag}", ident, *extra, cli_options(params), "--json"])


def cli_options(params: dict) -> str:
    """``params`` as options of the CLI's calibrate / bound / simulate sub-commands: known names as flags
    (``--n 1000``), the rest as ``--param NAME=VALUE``; floats exactly (repr)."""
    from dpviz.cli import commands as cli

    parts = []
    for k, val in sorted(params.items()):
        if val is None or isinstance(val, (list, dict, tuple)):
            continue
        text = repr(val) if isinstance(val, float) else str(val)
        parts.append(f"--{k} {text}" if k in cli._PARAMS else f"--param {k}={text}")
    return " ".join(parts)


def download_table(rows: list[dict], name: str, params: dict | None = None, container=None) -> None:
    """CSV and JSON downloads of ``rows``; both carry the parameters they were computed at (CSV: one column per
    parameter; JSON: {"parameters": ..., "rows": ...}).  ``container``: a slot reserved above the page's slow parts
    (see :func:`download_view`)."""
    import pandas as pd

    df = pd.DataFrame(rows)
    if params:
        for k, val in params.items():
            if isinstance(val, (int, float, str, bool)) and k not in df.columns:
                df[f"param_{k}"] = val
    c1, c2 = (container or st).columns(2)
    c1.download_button("CSV", lambda: df.to_csv(index=False), file_name=f"{name}.csv", mime="text/csv", key=f"csv_{name}",
                        on_click="ignore")
    c2.download_button("JSON", lambda: json.dumps(catalog._json_safe({"parameters": params or {},
                                                                       "dpviz_version": _version(), "rows": rows}),
                                                  indent=1, default=str),
                       file_name=f"{name}.json", mime="application/json", key=f"json_{name}",
                        on_click="ignore")


def _session_id() -> str:
    from streamlit.runtime.scriptrunner import get_script_run_ctx

    ctx = get_script_run_ctx()
    return ctx.session_id if ctx is not None else "no-session"


def run_job(fn, *args, label: str = "running", **kwargs):
    """Run ``fn(*args, **kwargs)`` in the shared worker pool (:func:`dpviz_ui.workers.shared_pool`) with a progress bar.

    Heavy work (simulations, audits) runs in low-priority worker processes, so it never holds this server's
    interpreter lock while other sessions' pages run; each session has one job at a time (a newer one cancels the
    older), and a full pool raises :class:`dpviz_ui.workers.Busy`, whose message the caller shows. When the page is
    re-run (a widget changed, Cancel pressed) while waiting, the job is cancelled.
    """
    import time

    from dpviz_ui import workers

    job = workers.shared_pool().submit(_session_id(), fn, *args, **kwargs)
    bar = st.progress(0.0, text=f"{label}…")
    try:
        while not job.done():
            f = min(1.0, max(0.0, job.progress()))
            bar.progress(f, text=f"{label}… {100 * f:.0f} %")
            time.sleep(0.1)
        return job.result()
    finally:
        if not job.done():  # the script was stopped while waiting: nobody will read this result
            job.cancel()
        bar.empty()


def guarded(func) -> None:
    """Run a page body; show ValueError as st.error and anything else as a generic error box (no traceback)."""
    from dpviz_ui import workers

    try:
        func()
    except ValueError as exc:
        st.error(plain(str(exc)))
    except workers.Busy as exc:  # the shared worker pool is full: say so and what to do
        st.warning(plain(str(exc)))
    except workers.Cancelled:
        st.info("This run was stopped because a newer one replaced it. Press the button again to run it.")
    except Exception:  # noqa: BLE001 - never show a traceback to users
        if os.environ.get("DPVIZ_DEBUG"):  # developers: see the traceback in the terminal
            traceback.print_exc()
        st.error("Something went wrong while computing this view. Try other parameters or reload the page.")


_SCI = re.compile(r"(?<![\\\w.])(\d+(?:\.\d+)?)[eE]([+\-]?)0*(\d+)(?![\w.])")
_GREEK = {"sigma": "σ", "lambda": "λ", "beta": "β", "epsilon": "ε", "eps": "ε", "delta": "δ", "eta": "η",
          "alpha": "α", "kappa": "κ", "gamma": "γ", "zeta": "ζ", "mu": "μ", "tau": "τ", "xi": "ξ"}
# a name is replaced unless a letter (or a LaTeX backslash) touches it: "2alpha" -> "2α", "K_alpha" -> "K_α"
_GREEK_RE = re.compile(r"(?<![\\a-zA-Z])(" + "|".join(sorted(_GREEK, key=len, reverse=True)) + r")(?![a-zA-Z])")
_SQRT = re.compile(r"(?<![\\a-zA-Z])sqrt(?=\()")
_POW = {"^2": "²", "^3": "³"}


def tex_sci(latex: str) -> str:
    """LaTeX with numbers like ``1e-06`` written as ``10^{-6}`` (and ``2.5e+03`` as ``2.5 \\times 10^{3}``)."""
    def rep(m):
        mant, sign, exp = m.group(1), m.group(2), m.group(3)
        power = f"10^{{{'-' if sign == '-' else ''}{int(exp)}}}"
        return power if float(mant) == 1.0 else f"{mant} \\times {power}"

    return _SCI.sub(rep, latex)


def pretty(text: str) -> str:
    """A library note in the notation of the papers: σ, λ, β, ε, δ, η for their names, σ² for sigma^2, and
    10⁻⁶-style numbers for 1e-06."""
    out = _GREEK_RE.sub(lambda m: _GREEK[m.group(1)], str(text))
    out = _SQRT.sub("√", out)
    for k, v in _POW.items():
        out = out.replace(k, v)

    def rep(m):
        mant, sign, exp = m.group(1), m.group(2), m.group(3)
        sup = ("-" if sign == "-" else "") + str(int(exp))
        power = "10" + sup.translate(str.maketrans("-0123456789", "⁻⁰¹²³⁴⁵⁶⁷⁸⁹"))
        return power if float(mant) == 1.0 else f"{mant}·{power}"

    return _SCI.sub(rep, out)


def fmt(x) -> str:
    """A number for the screen: 0.01702, 3.594, 10000, 2.154·10⁵, 1.4·10⁻⁶ (no 1e+04, no SI prefixes)."""
    if x is None:
        return "—"
    if isinstance(x, bool) or not isinstance(x, (int, float)):
        return str(x)
    if isinstance(x, float) and not math.isfinite(x):
        return "∞" if x > 0 else ("−∞" if x < 0 else "—")
    if x == 0:
        return "0"
    ax = abs(x)
    if 1e-3 <= ax < 1e4 or (isinstance(x, int) and ax < 1e7):
        return f"{x:.4g}" if not isinstance(x, int) else str(x)
    if ax < 1e6 and float(x).is_integer():
        return str(int(x))
    k = math.floor(math.log10(ax))
    m = x / 10.0**k
    if abs(round(m, 3)) >= 10:
        m, k = m / 10, k + 1
    power = "10" + str(k).translate(str.maketrans("-0123456789", "⁻⁰¹²³⁴⁵⁶⁷⁸⁹"))
    return power if abs(m - 1) < 5e-4 else (f"−{power}" if abs(m + 1) < 5e-4 else f"{m:.4g}·{power}")


@st.cache_data(show_spinner=False, max_entries=128)
def cached_guarantee(alg: str, params: tuple, sigma) -> dict:
    """privacy_lab.guarantee of ``alg`` at ``sigma`` (None: the paper's σ), {"ok": ...} or {"error": message}."""
    from dpviz.labs import privacy_lab

    try:
        return {"ok": privacy_lab.guarantee(alg, sigma=sigma, **dict(params))}
    except ValueError as exc:
        return {"error": str(exc)}


def statement_download(alg: str, params: dict, sigma, *, key: str) -> None:
    """"Download the privacy statement" of ``alg`` at ``sigma`` (None: the paper's σ) by the matched accountant
    (privacy_lab.guarantee / algorithm_statement), its numbers in a caption and the command that recomputes it.
    Used by the Accounting and Calibrate pages."""
    from dpviz.cli import account as cli_account
    from dpviz.labs import privacy_lab

    got = cached_guarantee(alg, items(params), sigma)
    if "error" in got:
        st.caption(f"No privacy statement: {plain(got['error'])}")
        return
    g = got["ok"]
    cmd = cli_account.account_command(alg, params, sigma)
    st.download_button("Download this algorithm's privacy statement", privacy_lab.algorithm_statement(g, cmd),
                       file_name=f"privacy_statement_{alg}.txt", mime="text/plain", key=key,
                       help="plain text: what is protected, the neighbouring relation, sampling, accountant, ε with "
                            "its bracket, δ, what is not covered, and the command that recomputes it")
    e_up, d_up = privacy_lab.fmt_bound(g["eps"], up=True), privacy_lab.fmt_bound(g["delta"], up=True, digits=3)
    how = f"{g['accountant']}, matched accountant" + (", exact" if g["exact"] else ", upper bound")
    if g.get("meaningful", True):
        st.caption(f"Privacy statement: σ = {g['sigma']:.6g} is (ε, δ)-DP with ε = {e_up} and δ = {d_up} ({how}). "
                   f"Recompute: `{cmd}`")
    else:
        st.caption(f"Privacy statement: NO meaningful privacy — σ = {g['sigma']:.6g} is only (ε, δ)-DP with ε = "
                   f"{e_up} and δ = {d_up} ({how}): the type II error it guarantees at type I error "
                   f"{privacy_lab.NO_PRIVACY_ALPHA:g} is below 10⁻⁶, so a membership test could tell the data sets "
                   f"apart almost surely. Recompute: `{cmd}`")
