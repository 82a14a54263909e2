"""Charts and formulas: :func:`show_figure` (a Plotly chart and its offline HTML download), :func:`latex`, and the
first paint of a browser session, which holds charts and formulas back until its numbers are shown
(:func:`after_run`).

Imports :mod:`.text`, :mod:`.state` (:func:`~.state.checkpoint`) and :mod:`.downloads` only (of
:mod:`dpviz_ui.helpers`).
"""

from __future__ import annotations

import functools

import streamlit as st

from .downloads import _version
from .state import checkpoint
from .text import LABELS, fmt


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
    Then an interrupt point (:func:`~.state.checkpoint`): the work after a flush is the slow part, which a run that
    a newer one has replaced meanwhile need not start.
    """
    import time

    time.sleep(seconds)
    checkpoint()


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
