"""Heavy work and errors: :func:`run_job` runs a function in the shared pool of worker processes with a progress
bar, :func:`guarded` runs a page body and shows an error as a message, never a traceback.

Imports :mod:`.text` only (of :mod:`dpviz_ui.helpers`).
"""

from __future__ import annotations

import collections
import json
import os
import threading
import traceback

import streamlit as st

from .text import plain


def _session_id() -> str:
    from streamlit.runtime.scriptrunner import get_script_run_ctx

    ctx = get_script_run_ctx()
    return ctx.session_id if ctx is not None else "no-session"


#: results of seeded jobs kept for every session of this server process (:func:`run_job` with ``share=True``)
_SHARED_KEPT = 24
_SHARED: "collections.OrderedDict[str, object]" = collections.OrderedDict()
_SHARED_LOCK = threading.Lock()


def _shared_key(fn, args: tuple, kwargs: dict) -> str | None:
    """The key of a job among the shared results: the function's name and its arguments as canonical JSON (scalars,
    strings, lists and dicts only -- anything else is not shared, returns None)."""
    try:
        text = json.dumps([args, kwargs], sort_keys=True, allow_nan=True)
    except (TypeError, ValueError):
        return None
    return f"{fn.__module__}.{fn.__qualname__}|{text}"


def run_job(fn, *args, label: str = "running", share: bool = False, **kwargs):
    """Run ``fn(*args, **kwargs)`` in the shared worker pool (:func:`dpviz_ui.workers.shared_pool`) with a progress bar.

    Heavy work (simulations, audits) runs in low-priority worker processes, so it never holds this server's
    interpreter lock while other sessions' pages run; each session has one job at a time (a newer one cancels the
    older), and a full pool raises :class:`dpviz_ui.workers.Busy`, whose message the caller shows. When the page is
    re-run (a widget changed, Cancel pressed) while waiting, the job is cancelled.

    ``share=True`` (only for a function whose result is determined by its arguments, the seed among them): the
    result is kept for every session of this server (the latest :data:`_SHARED_KEPT`), so that a link opened by a
    whole class, or a view opened again, is computed once; each caller gets its own copy.
    """
    import copy
    import time

    from dpviz_ui import workers

    key = _shared_key(fn, args, kwargs) if share else None
    if key is not None:
        with _SHARED_LOCK:
            if key in _SHARED:
                _SHARED.move_to_end(key)
                return copy.deepcopy(_SHARED[key])
    job = workers.shared_pool().submit(_session_id(), fn, *args, **kwargs)
    bar = st.progress(0.0, text=f"{label}…")
    try:
        while not job.done():
            f = min(1.0, max(0.0, job.progress()))
            bar.progress(f, text=f"{label}… {100 * f:.0f} %")
            time.sleep(0.1)
        res = job.result()
    finally:
        if not job.done():  # the script was stopped while waiting: nobody will read this result
            job.cancel()
        bar.empty()
    if key is not None:
        with _SHARED_LOCK:
            _SHARED[key] = copy.deepcopy(res)
            while len(_SHARED) > _SHARED_KEPT:
                _SHARED.popitem(last=False)
    return res


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
