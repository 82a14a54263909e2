"""The outcome of a simulation: :class:`SimulationResult` (frame, summary, slope, the theorems' bounds) and the
run notes (which rule produced each grid point's noise, whether it is private per the theorem, why a point did not
run).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

from dpviz.theory import catalog
from dpviz.foundation import stats


@dataclass
class SimulationResult:
    """Outcome of :func:`simulate`."""

    algorithm: str
    loss: str
    dataset: str
    grid_name: str | None
    grid_values: list[float]
    frame: Any  # pandas DataFrame
    calibrations: list[Any]
    params: dict[str, Any]
    notes: list[str] = field(default_factory=list)
    seconds: float = 0.0
    outputs: np.ndarray | None = None  # (G, reps, ...) final outputs

    def summary(self, value: str = "excess_risk"):
        """Mean, standard error and 95 % CI of ``value`` per grid point."""
        by = ["grid"] if self.grid_name else ["algorithm"]
        return stats.summarize(self.frame, by, value)

    def slope(self, value: str = "excess_risk") -> dict[str, float]:
        """Log-log slope of the mean of ``value`` against the grid values (a sweep over n or eps).

        Grid points without a finite positive mean (e.g. not run because the calibration is infeasible) are left
        out; at least two must remain.
        """
        if not self.grid_name:
            raise ValueError("a slope needs a sweep (grid) over n or eps.")
        s = self.summary(value)
        s = s[np.isfinite(s["mean"]) & (s["mean"] > 0)]  # grid points that did not run (infeasible) are left out
        return stats.loglog_slope(s["grid"].to_numpy(), s["mean"].to_numpy())

    def bounds(self, theorem_id: str | None = None, **extra):
        """The bound of ``theorem_id`` (default: the first theorem of this algorithm that bounds the excess population
        risk, the quantity a simulation measures: :func:`dpviz.theory.catalog.theorems_bounding`) at each grid point.

        Columns: ``grid``, ``theorem``, ``bound`` (the rate form, the paper's constant c = 1 unless given in
        ``extra``), ``explicit`` (with the paper's explicit constants, NaN where it gives none), ``n_exp`` and
        ``eps_exp`` (exponents of the largest term), ``error`` (why a point has no bound).
        """
        import pandas as pd

        if theorem_id is None:
            ths = catalog.theorems_bounding(self.algorithm)
            if not ths:
                raise ValueError(f"no theorem in the catalogue bounds the excess population risk of the algorithm "
                                 f"{self.algorithm!r}.")
            theorem_id = ths[0].id
        has_explicit = catalog.get_theorem(theorem_id).explicit_bound is not None
        nan = float("nan")
        rows = []
        for g, cal in zip(self.grid_values or [None], self.calibrations):
            p = {**cal.extras.get("_params", {}), **extra}
            row = {"grid": g, "theorem": theorem_id, "bound": nan, "explicit": nan, "n_exp": nan, "eps_exp": nan,
                   "error": ""}
            try:
                b = catalog.bound(theorem_id, **p)
                top = b.dominant()
                row.update(bound=b.total, n_exp=top.n_exp, eps_exp=top.eps_exp)
            except ValueError as exc:
                row["error"] = str(exc)
            if has_explicit and not row["error"]:
                try:
                    row["explicit"] = catalog.bound(theorem_id, explicit=True, **p).total
                except ValueError:
                    pass  # the explicit constants need parameters the rate form does not; NaN
            rows.append(row)
        return pd.DataFrame(rows)


def _noise_text(pl) -> str:
    if pl["laplace"] is not None:
        return f"Laplace scale {pl['laplace']:.4g}"
    if pl["schedule"] is not None and pl.get("epoch_laplace"):
        return "per-epoch Laplace scales " + ", ".join(f"{x:.3g}" for x in pl["schedule"])
    if pl["schedule"] is not None:
        return "per-epoch sigma_i " + ", ".join(f"{x:.3g}" for x in pl["schedule"])
    return f"sigma = {pl['sigma']:.4g}"


def _run_notes(alg_name, spec, plans, gname, R, extra) -> list[str]:
    """One note per grid point: which rule produced the noise and whether that noise is private per the theorem
    (never "ran although the calibration is infeasible" when only the experimental rule is non-private), plus the
    set W, DPEGD's average and PIDP-SGD's noisy fraction."""
    notes: list[str] = []
    if plans and R is not None:
        from dpviz.engine import projections

        notes.append(f"projection set W: {projections.KINDS[plans[0]['constraint']]}, R = {R:g}")
    for g, pl in enumerate(plans):
        where = f"grid point {gname} = {pl['grid']:g}" if gname else "the run"
        cal = pl["cal"]
        if not pl["feasible"]:
            cal.feasible = False  # e.g. a PIDP-SGD Hessian check that failed during the run
            extra_why = [w for w in pl.get("nonprivate", []) if w not in (cal.reason or "")]
            if extra_why:
                cal.reason = "; ".join([cal.reason, *extra_why]) if cal.reason else "; ".join(extra_why)
        if not pl["run"]:
            notes.append(f"{where} was not run: {(cal.reason or 'the calibration is infeasible').rstrip('.')}. "
                         + (f"{cal.fix[:1].upper()}{cal.fix[1:].rstrip('.')}. " if getattr(cal, 'fix', None) else "")
                         + "No noise level exists there, so its row leaves sigma and the risks empty (NaN).")
            continue
        if spec.noise == "none":
            continue
        noise, rule, private = _noise_text(pl), pl.get("sigma_rule", "calibrated"), pl["feasible"]
        verdict = "private per the theorem" if private else "NOT private per the theorem"
        if rule == "calibrated":
            src = "the theorem's calibration" + ("" if cal.feasible or pl.get("nonprivate") else
                                                 ", which is infeasible here (run_infeasible)")
        elif rule == "experiment":
            src = "the noise rule of the paper's experiments (beta minimising sigma over (0, 1))"
        elif rule == "experiment-fallback":
            src = ("the paper's formula at the sigma-minimising beta, because the calibration has no feasible beta "
                   "(run_infeasible)")
        elif rule == "caller":
            src = "the caller (params['sigma'])"
            verdict = "privacy not checked by dpviz" if private else "NOT private"
        else:
            src = "the caller (params['sigma_schedule'])"
            verdict = "privacy not checked by dpviz" if private else "NOT private"
        notes.append(f"{where}: {noise} from {src}; {verdict}" + (f": {cal.reason}" if cal.reason else ""))
        if pl.get("epoch_average") is not None:
            notes.append(f"{where}: each epoch averages " + (
                "w_0..w_{n_i} over n_i + 1 points (Lemma 9 in the proof of Theorem 3 of Xue, Yang, Huai & Wang; "
                "epoch_average='printed' gives Algorithm 3's w_1..w_{n_i})" if pl["epoch_average"] == "proof" else
                "w_1..w_{n_i} (Algorithm 3 as printed; Lemma 9 of the proof averages w_0..w_{n_i})"))
        if pl.get("pidp") is not None and "noisy_fraction" in extra:
            fr = extra["noisy_fraction"][g]
            fr = fr[np.isfinite(fr)]
            start = {"zero": "theta~ = 0 (like DP-SGD-PL)", "erm": "the non-private minimiser (leaks the data)",
                     "given": "the caller's theta0 (private only if it does not depend on the data)"}[
                pl["pidp"].get("start", "zero")]
            msg = f"{where}: PIDP-SGD started at {start}; "
            if fr.size and np.all(fr == 1.0):
                msg += ("noisy fraction 1.0: every step got noise; under this calibration the decision rule of "
                        "Algorithm 1 (lines 9-10) never skipped the noise, so the run is DP-SGD with extra work")
            elif fr.size:
                msg += f"mean noisy fraction {float(np.mean(fr)):.3g} (steps that got the training noise)"
            hr = extra.get("hessian_regularised")
            if hr is not None and np.any(np.isfinite(hr[g])) and np.nanmax(hr[g]) > 0:
                msg += (f"; Remark 5's zeta I (zeta = {pl['pidp']['zeta']:g}) added to the Hessian in "
                        f"{float(np.nanmean(hr[g])):.0%} of the rounds")
            notes.append(msg)
    return notes
