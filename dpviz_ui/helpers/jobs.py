"""Heavy work and errors: :func:`run_job` runs a function in the shared pool of worker processes with a progress
bar, :func:`guarded` runs a page body and shows an error as a message, never a traceback.

Imports :mod:`.text` only (of :mod:`dpviz_ui.helpers`).
"""

from __future__ import annotations

import os
import traceback

import streamlit as st

from .text import plain


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
