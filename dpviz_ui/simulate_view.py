"""What the Simulate page draws, computed without Streamlit: the curves of a run (lines broken at the grid points that
did not run, each such gap with its reason), the theory curves over the same grid, the fitted and theoretical slopes,
the explicit bounds that are vacuous here (above the excess risk of the trivial predictor w = 0), and the warnings
in plain words.  ``pages/simulate.py`` reads the widgets, calls these and draws what they return.
"""

from __future__ import annotations

import math

import numpy as np

from dpviz.foundation import figures
from dpviz.foundation.rounding import fmt  # noqa: F401  (SV.fmt: the dashboard's one number formatter)
from dpviz.theory import catalog

__all__ = ["curve_label", "trend", "run_gaps", "empirical_curve", "theory_for", "theory_curves", "vacuous_points",
           "lessons", "fmt", "fstar_upper", "explicit_with_fstar"]


def curve_label(res, kappa, short: bool = False) -> str:
    """The curve's name: the algorithm's name (``short``: up to its first parenthesis, e.g. "DP-SGD"), the papers'
    noise rule if the run used it, and κ."""
    from dpviz.studies.reproduce import noise_rule_label

    name = catalog.get_algorithm(res.algorithm).name
    if short:
        name = name.split(" (")[0]
    name += noise_rule_label(res)
    if kappa is None:
        return name
    return f"{name} ({kappa})" if isinstance(kappa, str) else f"{name} (κ = {kappa:g})"


def trend(slope: float) -> str:
    return "rises" if slope > 0 else "falls"


def run_gaps(res, quantity: str = "excess_risk") -> dict[float, str]:
    """The grid points of ``res`` that have no finite mean of ``quantity`` and why (the calibration's reason when the
    point did not run; else that its runs gave no finite value)."""
    out = {}
    s = res.summary(quantity) if quantity in res.frame else None
    means = {} if s is None else {float(g): float(m) for g, m in zip(s["grid"], s["mean"])}
    for g, cal in zip(res.grid_values or [], res.calibrations):
        g = float(g)
        if math.isfinite(means.get(g, float("nan"))):
            continue
        reason = getattr(cal, "reason", "") or ""
        out[g] = ("not run: " + reason) if reason else "no finite value at this point"
    return out


def empirical_curve(name: str, short: str, x_all: list[float], s, colour: int, reps: int) -> dict:
    """The empirical curve over every grid value of the page (``x_all``): the summary's mean and band where the
    point ran, None where it did not (the line breaks there)."""
    by = {float(g): (float(m), float(lo), float(hi)) for g, m, lo, hi in zip(s["grid"], s["mean"], s["ci_low"],
                                                                            s["ci_high"])
          if math.isfinite(float(m))}
    mean = [by[x][0] if x in by else None for x in x_all]
    return {"name": name, "short": short, "x": list(x_all), "mean": mean,
            "ci_low": [by[x][1] if x in by else None for x in x_all],
            "ci_high": [by[x][2] if x in by else None for x in x_all], "colour": colour,
            "detail": f"empirical mean of {reps} repetitions, 95 % band"}


def theory_for(res, params: dict, prefer: str | None = None, loss=None):
    """The theorem the run is compared with -- ``prefer`` (the theorem whose schedule the run used) if it bounds this
    algorithm's excess population risk (the quantity the run measures), else the first theorem of the algorithm that
    bounds it at every grid point of the run; only theorems that apply to ``loss`` (a loss object; None: any):
    (label, theorem id, bounds frame) or None."""
    from dpviz.engine.applicability import loss_reason

    extra = {k: params[k] for k in ("c", "mu") if k in params}
    thms = [t for t in catalog.theorems_bounding(res.algorithm) if not loss_reason(t.id, loss)]
    thms.sort(key=lambda t: t.id != prefer)
    for thm in thms:
        b = res.bounds(thm.id, **extra)
        if (b["error"] == "").all():
            return f"{thm.paper.short}, {thm.number}", thm.id, b
    return None


def fstar_upper(loss, dataset) -> tuple[float, str] | None:
    """An upper bound on F(w*), the population risk of the best model w* = argmin over W of F (Wang, Lei, Ying & Zhou
    (wang-lownoise), Section 2), valid for every distribution the loss allows, with a sentence saying what it is;
    None when dpviz has none.

    w = 0 lies in W (the ball ||w|| <= R), so F(w*) <= F(0) <= sup_z f(0; z).  Every loss of dpviz scores an example
    by <w, x> (or, pairwise, <w, x − x'> or (x − x')^T W (x − x')), which is 0 at w = 0: f(0; z) depends on the
    labels only, so the supremum is a maximum over the labels the loss allows -- y = ±1 for a classification loss;
    |y| <= 1 for a regression loss (the assumption behind its constants G, L, M), where f(0; x, y) is a convex
    function of y (of the residual 0 − y), largest at y = ±1; for metric learning, the data's classes (f(0; z, z')
    depends only on whether the two classes are the same).  None when the data's labels are outside that range or
    when the loss's value at 0 is seen to depend on x."""
    import numpy as np

    task = getattr(loss, "task", None)
    labels = np.unique(np.concatenate([np.ravel(dataset.y), np.ravel(dataset.y_test)]))
    if task == "classification":
        allowed = [-1.0, 1.0]
        if not set(labels.tolist()) <= set(allowed):
            return None
        why = "labels ±1"
    elif task == "regression":
        allowed = [-1.0, 1.0]
        if labels.size and float(np.max(np.abs(labels))) > 1.0:
            return None
        why = "labels |y| ≤ 1, largest at y = ±1"
    elif task == "metric":
        allowed = [float(v) for v in labels[:2]] if labels.size >= 2 else [0.0, 1.0]
        why = "same or different classes"
    else:
        return None
    pairwise = getattr(loss, "setting", "pointwise") == "pairwise"
    d = int(dataset.d)
    shape = (d, d) if getattr(loss, "param", "vector") == "matrix" else (d,)
    rng = np.random.default_rng(0)
    xs = [rng.normal(size=d) for _ in range(4)]
    xs = [x / np.linalg.norm(x) for x in xs]
    vals = []
    for y in allowed:
        for y2 in (allowed if pairwise else [None]):
            at = [float(np.ravel(loss.value(np.zeros(shape), x, y, *((xs[3 - i], y2) if pairwise else ())))[0])
                  for i, x in enumerate(xs[:2])]
            if abs(at[0] - at[1]) > 1e-12 * max(1.0, abs(at[0])):
                return None  # the value at w = 0 depends on x: no bound from the labels alone
            vals.append(at[0])
    top = max(vals)
    if not (math.isfinite(top) and top >= 0.0):
        return None
    return top, (f"F(w*) ≤ F(0) ≤ {fmt(top)} ({getattr(loss, 'name', 'the loss')}: the loss of w = 0 on any "
                 f"example, {why}; w = 0 lies in W)")


def explicit_with_fstar(res, params: dict, theorem_id: str, bounds, fstar: tuple[float, str] | None):
    """The bounds frame of ``theorem_id`` for ``res`` with the paper's explicit constants computed, and a sentence for
    the page, when the explicit bound needs F(w*) (the risk of the best model), which a run does not know.

    With ``fstar`` (:func:`fstar_upper`): the explicit bound at F(w*) replaced by that upper bound.  This is still an
    upper bound on the excess risk: in the proofs of Theorems 3 (a), 4 (a), 6 (a) and 7 (a) of Wang, Lei, Ying & Zhou
    (wang-lownoise) the explicit bound at any fixed free constant κ is non-decreasing in F(w*) (F(w*) enters
    with a non-negative coefficient, (1 + L/κ)(1 + 6Lη) − 1 >= 0 after the − F(w*) of eq. (12), and through Q,
    P in the Hölder case), and it holds for every κ > 0.  Without ``fstar``: the frame unchanged and a sentence
    saying why the explicit curve is not drawn.  (frame, None) when the explicit bound does not need F(w*) or was
    computed."""
    thm = catalog.get_theorem(theorem_id)
    if thm.explicit_bound is None or "Fstar" not in catalog.parameters_of(thm.explicit_bound):
        return bounds, None
    if np.isfinite(bounds["explicit"].to_numpy(dtype=float)).any():
        return bounds, None
    label = f"{thm.paper.short}, {thm.number}"
    if fstar is None:
        return bounds, (f"{label}'s bound with the paper's explicit constants is not drawn: it needs F(w*), the risk "
                        "of the best model in W, which dpviz can neither compute nor bound for this loss and data "
                        "(the dashed rate curve is drawn).")
    extra = {k: params[k] for k in ("c", "mu") if k in params}
    b = res.bounds(theorem_id, **extra, Fstar=float(fstar[0]))
    if not np.isfinite(b["explicit"].to_numpy(dtype=float)).any():
        return bounds, (f"{label}'s bound with the paper's explicit constants is not drawn: it needs F(w*), and even "
                        f"with {fstar[1]} it cannot be evaluated at these grid points.")
    # the least the bound can be, at F(w*) = 0: a point is vacuous whatever F(w*) is only if this is above the
    # trivial bound (theory_curves reads this column)
    b["explicit_low"] = res.bounds(theorem_id, **extra, Fstar=0.0)["explicit"].to_numpy(dtype=float)
    return b, (f"{label}'s bound with the paper's explicit constants (dotted) needs F(w*), the risk of the best "
               f"model, which a run does not know; it is drawn with {fstar[1]}. The bound grows with F(w*), so the "
               "dotted curve is an upper bound on the paper's bound at the true F(w*), never below it; a point is "
               "marked vacuous only where even F(w*) = 0 puts the bound above the trivial bound.")


def theory_curves(name: str, short: str, x_all: list[float], s, bounds, thm_label: str, colour: int,
                  trivial: float | None = None) -> tuple[list[dict], dict]:
    """The theory curves of one run over the run's grid: the rate times one constant fitted to the means (dashed)
    and the bound with the paper's explicit constants (dotted) where it gives them, with the points where that
    bound is vacuous (above ``trivial``, the excess risk of w = 0) marked; and the slope facts
    ``{"theory slope", "dominant term exponent", "vacuous": [grid values]}``."""
    rate = {float(g): float(r) for g, r in zip(bounds["grid"], bounds["bound"]) if math.isfinite(float(r))}
    explicit = {float(g): float(e) for g, e in zip(bounds["grid"], bounds["explicit"]) if math.isfinite(float(e))}
    means = {float(g): float(m) for g, m in zip(s["grid"], s["mean"]) if math.isfinite(float(m))}
    out, facts = [], {}
    ok = [(means[g], rate[g]) for g in means if g in rate and means[g] > 0 and rate[g] > 0]
    xs = [x for x in x_all if x in rate]
    if ok and xs:
        const = math.exp(float(np.mean([math.log(m / r) for m, r in ok])))
        out.append({"name": f"{name}: {thm_label} rate × fitted constant {const:.3g}",
                    "short": f"{short}: theory (fitted)", "x": xs, "y": [const * rate[x] for x in xs],
                    "kind": "fitted", "colour": colour,
                    "detail": f"{thm_label}: its rate × one constant ({const:.3g}) fitted to the means"})
    ex_x = [x for x in x_all if x in explicit]
    # "explicit_low" (where the explicit bound needed an upper bound on F(w*), see explicit_with_fstar): the bound at
    # F(w*) = 0, the least it can be; vacuous only where that is above the trivial bound
    low = explicit if "explicit_low" not in bounds else {
        float(g): float(e) for g, e in zip(bounds["grid"], bounds["explicit_low"]) if math.isfinite(float(e))}
    vac = [x for x in ex_x if trivial is not None and trivial > 0 and x in low and low[x] > trivial]
    if ex_x:
        curve = {"name": f"{name}: {thm_label} bound with the paper's constants",
                 "short": f"{short}: paper's bound" + (" (vacuous here)" if vac and len(vac) == len(ex_x) else ""),
                 "x": ex_x, "y": [explicit[x] for x in ex_x], "kind": "explicit", "colour": colour,
                 "detail": f"{thm_label} with the paper's explicit constants"}
        if vac:
            curve["vacuous"] = vac
            curve["detail"] += (f"; vacuous here at {len(vac)} of {len(ex_x)} points: above the excess risk of "
                                f"w = 0 ({fmt(trivial)})" + (" even at F(w*) = 0" if low is not explicit else ""))
        if low is not explicit:
            curve["detail"] += "; drawn at an upper bound on F(w*) (the paper's bound grows with F(w*))"
        out.append(curve)
    facts["theory slope"] = figures.loglog_slope(xs, [rate[x] for x in xs]) if xs else None
    facts["vacuous"] = vac
    facts["explicit"] = {x: explicit[x] for x in ex_x}
    facts["explicit_low"] = {x: low[x] for x in ex_x if x in low}
    return out, facts


def vacuous_points(values: dict[float, float], trivial: float | None) -> list[float]:
    """The grid values whose bound is above ``trivial`` (the excess risk of w = 0): vacuous there."""
    if trivial is None or not (trivial > 0):
        return []
    return [g for g, b in values.items() if b is not None and math.isfinite(b) and b > trivial]


def lessons(name, row, summary, x, xlab, private, trivial, res, schedule_thm, with_theory) -> list[str]:
    """Plain-words warnings for one curve: private runs no better than the trivial predictor w = 0, a fitted slope of
    the opposite sign to the theory's, and a theory curve whose schedule the run did not use."""
    out = []
    useless = []
    if private and trivial is not None and trivial > 0:
        # not demonstrably better: the excess risk of w = 0 lies inside or below the runs' 95 % band
        useless = [g for g, hi in zip(x, summary["ci_high"]) if hi >= trivial * (1 - 1e-9)]
        if useless:
            sig = [c.sigma for c, g in zip(res.calibrations, res.grid_values or [None]) if g in useless
                   and c.sigma is not None]
            points = xlab + " = " + ", ".join(fmt(g) for g in useless)
            # "every grid point" only when every point of the grid ran and all are useless (x: the points that ran)
            where = ("every grid point" if len(useless) == len(x) == len(res.grid_values or x) else points)
            sig_text = ", ".join(fmt(v) for v in sig[:6]) + (", …" if len(sig) > 6 else "")
            out.append(f"{name}: at {where}"
                       f" the private runs are no better than the trivial predictor w = 0 (its excess risk is "
                       f"{fmt(trivial)}, inside or below the runs' 95 % band): the noise the privacy guarantee "
                       f"needs{' (σ = ' + sig_text + ')' if sig else ''} drowns the "
                       "gradient at this n. The curve then shows the noise, not the theorem's rate: increase n or ε "
                       "to see the rate.")
    slope, theory_slope = row.get("fitted slope"), row.get("theory slope")
    if with_theory and slope is not None and theory_slope is not None and math.isfinite(slope) \
            and abs(theory_slope) > 1e-9 and slope * theory_slope < 0:
        lo, hi = row.get("95 % CI low"), row.get("95 % CI high")
        within = lo is not None and hi is not None and math.isfinite(lo) and math.isfinite(hi) and lo <= 0 <= hi
        why = (" The runs are no better than w = 0 at some points (above), which explains it." if useless else
               " Its 95 % interval contains 0: with more repetitions the sign may change." if within else "")
        out.append(f"{name}: the simulated excess risk {trend(slope)} with {xlab} (fitted slope {slope:+.2f}), "
                   f"while {row['theorem']} says it {trend(theory_slope)} (slope {theory_slope:+.2f} over this "
                   f"grid): this run does not show the theory's trend.{why}")
    if with_theory and private and row.get("theorem", "—") != "—" and schedule_thm is not None:
        thm = catalog.get_theorem(schedule_thm)
        if thm.algorithm != res.algorithm:
            out.append(f"{name} ran at the schedule of {thm.paper.short}, {thm.number} (another algorithm's "
                       "theorem), not at the schedule of the theorem it is compared with.")
    elif with_theory and private and row.get("theorem", "—") != "—" and schedule_thm is None:
        out.append(f"{name} ran at the sidebar's T and η, not at the step size and iterations {row['theorem']} "
                   "prescribes: its curve is the theorem's rate, not a prediction for this run.")
    return out
