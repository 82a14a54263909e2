"""Cached computations shared by every session: calibrations, bounds, tables and privacy guarantees
(``st.cache_data`` functions of hashable :func:`items`), a lesson step's numbers and chart (the Lessons and Live class
pages: :func:`cached_step_live`, :func:`cached_step_chart`), and the curves computed point by point within a time
budget per page run (:data:`CURVE_BUDGET`; :func:`cached_noise_series`, :func:`cached_bound_series`,
:func:`continue_curves`).

The module-level stores of computed points (``_NOISE_POINTS``, ``_BOUND_POINTS``, their lock ``_NOISE_LOCK``) and
:data:`CURVE_BUDGET` exist here only; :mod:`dpviz_ui.helpers` re-exports the same objects.  A test that changes
:data:`CURVE_BUDGET` patches it here (``dpviz_ui.helpers.cache``), where the code reads it.

Imports :mod:`.text` and :mod:`.state` (its :func:`~.state.checkpoint`, called before each new point of a noise curve)
of :mod:`dpviz_ui.helpers`; the lesson steps' functions import :mod:`dpviz_ui.lessons` when first called.
"""

from __future__ import annotations

import collections
import json
import math
import os
import threading

import streamlit as st

from dpviz.theory import catalog
from .state import checkpoint
from .text import fmt, latex_plain


def only_params(params: dict, *funcs) -> dict:
    """The entries of ``params`` that the calibration / bound functions ``funcs`` take: their cache key, so that
    nothing else invalidates a cached curve."""
    names: set = set()
    for f in funcs:
        if f is not None:
            names |= set(catalog.parameters_of(f))
    return {k: v for k, v in params.items() if k in names}


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
            checkpoint()  # a newer run replaced this one: stop before the next point (computed points are kept)
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
            checkpoint()  # a newer run replaced this one: stop here (nothing cached; the next run starts afresh)
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
        checkpoint()
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
    """{"total", "terms": {name: value}} of one bound (``key`` = (theorem id, explicit, items)); {"error": why} where
    the bound cannot be computed there (the catalogue's message, e.g. no calibration at that ε), kept like a value."""
    def compute():
        theorem_id, explicit, its = key
        try:
            res = catalog.bound(theorem_id, explicit=explicit, **dict(its))
        except ValueError as exc:
            return {"error": str(exc)}
        return {"total": res.total, "terms": {t.name: t.value for t in res.terms}}

    return _shared_point(_BOUND_POINTS, key, compute)


def _bound_series(theorem_id: str, items: tuple, name: str, grid: tuple, delta_follows_n: bool,
                  explicit: bool = False, budget: float = CURVE_BUDGET) -> dict:
    """A theorem's bound along ``grid`` values of ``name``: {"total": [...], "terms": {term: [...]}, "missing":
    [grid values not computed], "reasons": {grid value: why there is no bound there}} (None = no bound there, with
    its reason in "reasons" -- the catalogue's message, or "not a finite number" --, or not computed yet).

    With ``delta_follows_n`` (the "δ = 1/n²" box), δ = 1/n² at every point of an n sweep; ``explicit`` uses the
    paper's explicit-constant bound.  Each point is cached on its own; points not reached within ``budget`` seconds
    are listed in "missing" (not cached), so a rerun draws the computed points at once and computes the rest.
    """
    import time

    base = dict(items)
    total: list = []
    terms: dict[str, list] = {}
    missing: list = []
    reasons: dict = {}
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
        if res is not None and "error" in res:
            reasons[x] = res["error"]
            res = None
        elif res is not None and not (isinstance(res["total"], (int, float)) and math.isfinite(res["total"])):
            reasons[x] = "the bound is not a finite number here"
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
    return {"total": total, "terms": terms, "missing": missing, "reasons": reasons}


@st.cache_data(show_spinner=False, max_entries=5000)
def cached_bound(theorem_id: str, items: tuple, explicit: bool = False) -> dict:
    try:
        res = catalog.bound(theorem_id, explicit=explicit, **dict(items))
        return {"ok": {"total": res.total, "terms": [(t.name, t.value) for t in res.terms], "eta": res.eta,
                       "T": res.T, "gradient_complexity": res.gradient_complexity, "notes": list(res.notes),
                       "terms_latex": [(t.name, t.latex, t.n_exp, t.eps_exp) for t in res.terms]}}
    except ValueError as exc:
        return {"error": str(exc)}


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


@st.cache_data(show_spinner=False, max_entries=128)
def cached_guarantee(alg: str, params: tuple, sigma) -> dict:
    """privacy_lab.guarantee of ``alg`` at ``sigma`` (None: the paper's σ), {"ok": ...} or {"error": message}."""
    from dpviz.labs import privacy_lab

    try:
        return {"ok": privacy_lab.guarantee(alg, sigma=sigma, **dict(params))}
    except ValueError as exc:
        return {"error": str(exc)}


@st.cache_data(show_spinner=False, max_entries=500)
def cached_step_live(kind: str, state_json: str) -> dict:
    """A lesson step's numbers (:func:`dpviz_ui.lessons.live` without the figure) for the view ``kind`` at the
    state ``state_json`` (sorted JSON), or {'error': msg}: shared by every session of the Lessons and Live class
    pages, so a step's numbers are computed once for a whole class.  A curve view's chart comes separately,
    :func:`cached_step_chart`."""
    from dpviz_ui import lessons

    try:
        return {"ok": lessons.live(kind, json.loads(state_json), figure=False)}
    except ValueError as exc:
        return {"error": str(exc)}


@st.cache_data(show_spinner=False, max_entries=300)
def cached_step_chart(kind: str, state_json: str, animate: str | None) -> dict:
    """A lesson step's chart (:func:`dpviz_ui.lessons.chart`, a Plotly figure as a dict), or {'error': msg}."""
    from dpviz_ui import lessons

    try:
        return {"ok": lessons.chart(kind, json.loads(state_json), animate=animate)}
    except ValueError as exc:
        return {"error": str(exc)}
