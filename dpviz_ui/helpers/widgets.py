"""Widgets bound to the view: each has a stable key and a callback that validates its value into the view
(:func:`view_number`, :func:`view_choice`, :func:`view_checkbox` ...), a page's own number boxes
(:func:`page_number`), and the one error naming every invalid input and its range (:func:`stop_if_invalid`).

Imports :mod:`.text` and :mod:`.state` only (of :mod:`dpviz_ui.helpers`).
"""

from __future__ import annotations

import math

import streamlit as st

from dpviz.foundation import urlstate
from .state import _page_id, _user_acted, set_view, view
from .text import HELP, LABELS, fmt, plain


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


def multiselect_choice(key: str, options, fallback=()) -> list:
    """What :func:`view_multiselect` with these ``options`` and ``fallback`` shows in this run, known before it is
    drawn (a page stars the inputs the choice uses above the box): the view's entries that are options, or, when
    none is, ``fallback`` -- unless the user emptied the box while it offered these same options (an emptied
    selection stays empty).  Once the box offers other options (another kind of loss, say), that no longer holds and
    the fallback is offered again."""
    options = list(options)
    touched = st.session_state.get(f"_touched_{key}")
    if touched is not None and touched != tuple(options):
        st.session_state.pop(f"_touched_{key}", None)
        touched = None
    chosen = [o for o in view()[key] if o in options]
    if not chosen and touched is None:
        chosen = [o for o in fallback if o in options]
    return chosen


def view_multiselect(label: str, key: str, options, *, fallback=(), **kwargs) -> list:
    """A multiselect bound to the view entry ``key`` (a list), showing :func:`multiselect_choice`."""
    options = list(options)
    chosen = multiselect_choice(key, options, fallback)
    view()[key] = chosen
    wkey = _bind(key, chosen)

    def _changed() -> None:
        st.session_state[f"_touched_{key}"] = tuple(options)  # emptied with these options: it stays empty
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
    if key not in invalid and v[key]:
        # a link's list (ids checked only by the URL schema) is read like a typed one: a value that is not a number
        # or out of range shows in the box with one error, never as a Python message without the box
        try:
            parse_number_list(", ".join(v[key]), kind, lo, hi, label)
        except ValueError as exc:
            invalid[key] = (", ".join(v[key]), str(exc))
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
