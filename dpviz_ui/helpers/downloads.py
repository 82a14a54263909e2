"""Downloads of what a page shows: "Download this view" (every input and output and the ``python -m dpviz``
command that reproduces them, :func:`download_view`), tables as CSV and JSON (:func:`download_table`) and an
algorithm's privacy statement (:func:`statement_download`).

Imports :mod:`.text`, :mod:`.state` and :mod:`.cache` only (of :mod:`dpviz_ui.helpers`).
"""

from __future__ import annotations

import json

import streamlit as st

from dpviz.foundation import urlstate
from dpviz.theory import catalog
from .cache import cached_guarantee, items
from .state import view
from .text import plain


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
                   f"{privacy_lab.NO_PRIVACY_ALPHA:g} is below 10⁻⁶, so the guarantee does not rule out a membership "
                   f"test that tells the data sets apart almost surely. Recompute: `{cmd}`")
