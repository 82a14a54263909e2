"""The Simulate page's run plan, below the UI: which theorem sets the step size η and the number of iterations T,
the schedule of every grid point, which grid points run (and why the others do not), the fixed parameters of the
engine call, and the trivial predictor w = 0 the runs are judged against.

The schedule rule (issue 33): **a grid point's T and η depend only on that point's own parameters** -- the theorem's
bound evaluated at the point's own ε (or n, with δ = 1/n² when δ is tied to n) -- never on the other grid values.
The theorem itself is chosen from the algorithms and the sidebar's own point (not from the grid): the first theorem,
in the catalogue's order, of the first private algorithm of the run that bounds its excess population risk (what the
run measures) and gives a T and an η at the sidebar's n and ε.  A grid point where that theorem gives no schedule,
or whose run alone would exceed the page's cost cap, is a *gap* with its reason; it is never dropped silently.
Together with the engine's per-point random streams (:func:`dpviz.engine.simulate.run._point_key`), adding or
removing grid values leaves every other point's η, T, σ and results unchanged for the same seed.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Callable

import numpy as np

from dpviz.foundation import validate as v
from dpviz.theory import catalog

__all__ = ["PointSchedule", "ScheduleChoice", "point_params", "schedule_params", "choose_schedule_theorem",
           "theorem_schedule", "whole_T", "fixed_params", "split_runnable", "trivial_excess", "SWEEPS"]

#: the parameters a Simulate run may sweep
SWEEPS = ("eps", "n")

BoundFn = Callable[[str, dict], dict]


@dataclass(frozen=True)
class PointSchedule:
    """One grid point's schedule: ``value`` of the swept parameter, the theorem's ``T`` and ``eta`` there (None
    when it gives none) and ``reason`` (empty when the point has a schedule)."""

    value: float
    T: int | None
    eta: float | None
    reason: str = ""

    @property
    def ok(self) -> bool:
        return self.T is not None and self.eta is not None and not self.reason


@dataclass
class ScheduleChoice:
    """The theorem that sets the schedule (``theorem`` None: none does) and a sentence saying why / which."""

    theorem: str | None
    note: str
    tried: list = field(default_factory=list)


def _default_bound(theorem_id: str, p: dict) -> dict:
    try:
        res = catalog.bound(theorem_id, **p)
    except ValueError as exc:
        return {"error": str(exc)}
    return {"ok": {"T": res.T, "eta": res.eta, "total": res.total}}


def _only(params: dict, func) -> dict:
    names = set(catalog.parameters_of(func))
    return {k: val for k, val in params.items() if k in names and val is not None}


def whole_T(T: float) -> int:
    """A theorem's T as a whole number of iterations: T itself when it is one (to 1e-9), else rounded up; at least 1.

    >>> whole_T(1000.0), whole_T(999.2), whole_T(0.3)
    (1000, 1000, 1)
    """
    T = float(T)
    if not math.isfinite(T) or T <= 0:
        raise ValueError(f"the number of iterations T must be a positive finite number, got {T!r}.")
    r = round(T)
    return max(1, int(r) if abs(T - r) <= 1e-9 * max(1.0, T) else int(math.ceil(T)))


def point_params(params: dict, sweep: str, value: float, *, delta_auto: bool) -> dict:
    """The parameters of the grid point ``sweep = value``: the sidebar's, with the swept one replaced (n as a whole
    number) and, when δ is tied to n (``delta_auto``, or no δ given), δ = 1/n² at that point's n."""
    if sweep not in SWEEPS:
        raise ValueError(f"a Simulate run sweeps one of {', '.join(SWEEPS)}, got {sweep!r}.")
    p = dict(params)
    p[sweep] = int(value) if sweep == "n" else float(value)
    if delta_auto or p.get("delta") is None:
        p["delta"] = 1.0 / float(p["n"]) ** 2  # as the engine does at every grid point
    return p


def schedule_params(params: dict, *, loss=None, data_bound: float | None = None, d: int | None = None,
                    G: float | None = None) -> dict:
    """The parameters a theorem's schedule is evaluated with: the sidebar's ``params``, the loss's L, M and α at
    ``||x|| <= data_bound`` and radius R (``loss``: a loss object or id of :mod:`dpviz.engine.losses`), the data's
    dimension ``d`` and the G the noise is calibrated to (``G``; None: the loss's at R, else the sidebar's); an
    L2-regularised loss also sets μ = 2λ."""
    base = dict(params)
    if loss is not None and data_bound is not None and base.get("R") is not None:
        from dpviz.engine import losses

        try:
            lossobj = losses.get_loss(loss) if isinstance(loss, str) else loss
            consts = lossobj.constants(kappa=max(float(data_bound), 1e-12), R=float(base["R"]))
        except (TypeError, ValueError, KeyError, AttributeError):
            consts = {}
        base.update({k: val for k, val in consts.items() if k in ("L", "M", "alpha")})
        if consts.get("mu") and float(consts["mu"]) > 0:  # an L2-regularised loss: its μ = 2λ, as the engine uses
            base["mu"] = float(consts["mu"])
        if G is None and consts.get("G") is not None:
            G = float(consts["G"])
    if d is not None:
        base["d"] = int(d)
    if G is not None:
        base["G"] = float(G)
    return base


def _schedule_at(theorem_id: str, p: dict, bound: BoundFn) -> tuple[int | None, float | None, str]:
    thm = catalog.get_theorem(theorem_id)
    b = bound(theorem_id, _only(p, thm.bound))
    if "error" in b:
        return None, None, str(b["error"])
    T, eta = b["ok"].get("T"), b["ok"].get("eta")
    if T is None or eta is None:
        return None, None, f"{thm.paper.short}, {thm.number} sets no " + (
            "T and no η" if T is None and eta is None else "T" if T is None else "η") + " here"
    try:
        return whole_T(T), float(f"{float(eta):.12g}"), ""
    except ValueError as exc:
        return None, None, str(exc)


def choose_schedule_theorem(alg_ids, params: dict, *, bound: BoundFn | None = None, loss=None) -> ScheduleChoice:
    """The theorem whose schedule the run uses: the first theorem (catalogue order) of the first private algorithm
    of ``alg_ids`` that bounds the excess population risk, applies to ``loss`` (a loss object or id; None: any;
    :func:`dpviz.engine.applicability.loss_reason`) and gives a T and η at ``params`` (the sidebar's own point, never
    the grid; δ = 1/n² when none is given), or ``theorem=None`` with the reason."""
    from dpviz.engine.applicability import loss_reason

    bound = bound or _default_bound
    if params.get("delta") is None and params.get("n"):
        params = {**params, "delta": 1.0 / float(params["n"]) ** 2}  # as the engine does
    private = [a for a in alg_ids if catalog.get_algorithm(a).perturbation != "none"]
    if not private:
        return ScheduleChoice(None, "No private algorithm is chosen, so no theorem sets the schedule.")
    tried = []
    for alg in private:
        for thm in catalog.theorems_bounding(alg):
            why = loss_reason(thm.id, loss)
            if why:
                tried.append((thm.id, why))
                continue
            T, eta, why = _schedule_at(thm.id, params, bound)
            if why:
                tried.append((thm.id, why))
                continue
            return ScheduleChoice(thm.id, f"{thm.paper.short}, {thm.number} (the first theorem of "
                                          f"{catalog.get_algorithm(alg).name} that bounds its excess population "
                                          "risk and gives a schedule at the sidebar's n and ε)", tried)
    names = ", ".join(catalog.get_algorithm(a).name for a in private)
    if not tried:
        return ScheduleChoice(None, f"No theorem of the catalogue bounds the excess population risk of {names}, so "
                                    "none sets the schedule.")
    first = catalog.get_theorem(tried[0][0])
    return ScheduleChoice(None, f"No theorem of {names} gives a T and η at the sidebar's n and ε (e.g. "
                                f"{first.paper.short}, {first.number}: {tried[0][1]}).", tried)


def theorem_schedule(theorem_id: str, *, sweep: str, grid, params: dict, delta_auto: bool = True,
                     bound: BoundFn | None = None) -> list[PointSchedule]:
    """T and η of theorem ``theorem_id`` at every grid point, each from that point's own parameters
    (:func:`point_params`) only; a point where the theorem gives none carries the reason."""
    bound = bound or _default_bound
    catalog.get_theorem(theorem_id)  # unknown id: ValueError
    out = []
    for g in grid:
        g = float(g)
        T, eta, why = _schedule_at(theorem_id, point_params(params, sweep, g, delta_auto=delta_auto), bound)
        out.append(PointSchedule(g, T, eta, why))
    return out


def fixed_params(*, params: dict, sweep: str, data_n: int, manual: bool, project: bool, G: float | None,
                 l2: float, delta_auto: bool, pidp_erm: bool = False, experiment_noise: bool = False) -> dict:
    """The parameters every grid point of the engine call shares (:func:`dpviz.engine.simulate.simulate`'s
    ``params``): the sidebar's T and η when ``manual`` (else the schedule's, per point, added by the caller), R when
    the iterates are projected, G when given (None: from the loss), μ unless an L2 regulariser sets it, δ unless
    tied to n, and the non-swept one of n and ε."""
    if sweep not in SWEEPS:
        raise ValueError(f"a Simulate run sweeps one of {', '.join(SWEEPS)}, got {sweep!r}.")
    fixed: dict = {}
    if manual:
        fixed["T"], fixed["eta"] = int(params["T"]), float(params["eta"])
    if project:
        fixed["R"] = float(params["R"])
    if G is not None:
        fixed["G"] = float(G)
    if not l2:  # with a regulariser the strong-convexity constant comes from the loss (μ = 2λ)
        fixed["mu"] = float(params["mu"])
    if pidp_erm:
        fixed["pidp_start"] = "erm"
    if experiment_noise:
        fixed["run_infeasible"] = True
        fixed["noise_rule"] = "experiment"
    if not delta_auto:
        fixed["delta"] = float(params["delta"])  # otherwise the engine uses δ = 1/n² at every grid point
    if sweep == "eps":
        fixed["n"] = min(int(data_n), int(params["n"]))
    else:
        fixed["eps"] = float(params["eps"])
    return fixed


def split_runnable(points: list[PointSchedule], cost: Callable[[PointSchedule], float], cap: float
                   ) -> tuple[list[PointSchedule], list[PointSchedule], float]:
    """(the points that run, the gaps with their reasons, the estimated seconds of the points that run).  A point
    is a gap when it has no schedule or when its run alone is estimated above ``cap`` seconds; ``cost(point)``
    returns the point's own estimate (seconds), or raises ``ValueError`` (the reason becomes the gap's)."""
    cap = v.check_positive("cap (seconds)", cap)
    run, gaps, total = [], [], 0.0
    for pt in points:
        if not pt.ok:
            gaps.append(pt)
            continue
        try:
            sec = float(cost(pt))
        except ValueError as exc:
            gaps.append(PointSchedule(pt.value, pt.T, pt.eta, str(exc)))
            continue
        if sec > cap:
            gaps.append(PointSchedule(pt.value, pt.T, pt.eta,
                                      f"its run alone (T = {pt.T:,}) is estimated at {sec:.0f} s, above this page's "
                                      f"cap of {cap:.0f} s"))
            continue
        run.append(pt)
        total += sec
    return run, gaps, total


def trivial_excess(dataset, loss, *, l2: float = 0.0, reference: float, eval_rows: int | None = None) -> float:
    """The excess risk of the trivial predictor w = 0: its mean loss on the engine's evaluation sample minus
    ``reference`` (the best risk over W that a run's excess risk is measured against, ``pop_risk - excess_risk``
    of any of its rows).  A private run no better than this is drowned by its noise; an excess-risk bound above it
    says nothing at this setting (vacuous)."""
    from dpviz.engine import losses
    from dpviz.engine.simulate.evaluate import _eval_sample, _mean_loss
    from dpviz.engine.simulate.spec import _EVAL_ROWS

    lossobj = losses.get_loss(loss, l2=l2) if isinstance(loss, str) and l2 else (
        losses.get_loss(loss) if isinstance(loss, str) else loss)
    pairs = getattr(lossobj, "setting", "pointwise") == "pairwise"
    Xp, yp, Xp2, yp2 = _eval_sample(dataset, pairs, "test", int(eval_rows or _EVAL_ROWS))
    shape = (dataset.d, dataset.d) if getattr(lossobj, "param", "vector") == "matrix" else (dataset.d,)
    f0 = float(np.ravel(_mean_loss(lossobj, np.zeros((1,) + shape), Xp, yp, Xp2, yp2))[0])
    return f0 - float(reference)
