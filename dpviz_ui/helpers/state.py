"""The view state: the one dict of settings every page shares (:func:`view`), loaded from the link once per session
and written back to the URL (:func:`sync_url`), and the one notice per run about ignored link parameters
(:func:`show_link_notice`).

Imports :mod:`.text` only (of :mod:`dpviz_ui.helpers`).
"""

from __future__ import annotations

import threading

import streamlit as st

from dpviz.foundation import urlstate
from .text import NUMERIC, plain


def checkpoint() -> None:
    """An interrupt point for long computations in a page run: if a newer run of this session has replaced this one
    (the user edited an input meanwhile), stop here, as Streamlit does at every element a page draws.

    Streamlit (``runner.fastReruns``) starts the new run at once and only asks the old one to stop; the old one stops
    at its next interrupt point, so a computation between two elements (a search, a curve's points) went on to its
    end on the server's one interpreter lock, beside the new run: Check's verdict took 0.46-0.9 s after an edit
    instead of 0.2 s while the previous run's search and curve finished (benchmarks/RESULTS.md, "Pages, session 39").
    Looking up a session-state key is such an interrupt point (public API); outside a page run (tests, the CLI,
    serve.py's warm-up thread) this does nothing."""
    from streamlit.runtime.scriptrunner import get_script_run_ctx

    if get_script_run_ctx(suppress_warning=True) is not None:
        "_checkpoint" in st.session_state  # noqa: B015 - the look-up is the interrupt point


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


def _page_id() -> str:
    """The current page's script (for checks that hold on one page only)."""
    try:
        from streamlit.runtime.scriptrunner import get_script_run_ctx

        ctx = get_script_run_ctx()
        return str(getattr(ctx, "page_script_hash", "") or "")
    except Exception:  # noqa: BLE001 - no run context (bare mode)
        return ""


def sync_url() -> None:
    try:
        enc = urlstate.encode(view())
    except ValueError:
        return
    if dict(st.query_params) != enc:
        st.query_params.from_dict(enc)


def params_from_view(v: dict) -> dict:
    p = {k: v[k] for k in NUMERIC if k != "log10_delta"}
    p["delta"] = 1.0 / float(v["n"]) ** 2 if v["delta_auto"] else 10.0 ** v["log10_delta"]
    return p
