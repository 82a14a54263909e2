"""Reproductions of the papers' simulation figures.

``reproduce(name, *, reps=None (500 for these figures; a study's default_reps), seed=0, out_dir, progress=None) -> dict``
    runs the experiment, writes ``out_dir/NAME.csv`` (one row per (method, kappa, eps) with columns ``method``
    (``dp`` / ``non-private``), ``kappa``, ``eps``, ``mean``, ``se``, ``ci_low``, ``ci_high``, ``sigma``, ``beta``,
    ``reps``, ``theorem2_condition``, ``sigma_feasible``) and ``out_dir/NAME.html`` (standalone Plotly figure), and returns ``{"csv": path, "html": path,
    "summary": DataFrame, "figure": plotly Figure}``.
``NAMES``
    the simulation figures of Wang, Lei, Ying & Zhou run here; ``reproduce`` also runs every formula-based target of
    :data:`dpviz.experiments.EXPERIMENTS` (all targets: ``python -m dpviz reproduce --list``).  Every target also
    writes ``out_dir/NAME.md``: the paper's claimed finding and whether the reproduction shows it, with numbers.
``figure(summary, name)``
    the Plotly figure of a summary (pure function).

Both figures are Wang, Lei, Ying & Zhou (wang-lownoise), Section 5 (Wang, Lei, Ying & Zhou): DP-SGD (Algorithm 1) against
non-private SGD with eta = 0.01, T = 1000, delta = 1/n^2, n = 5000, and beta searched over 0.0001 .. 0.9999 for the
smallest sigma^2 = 14 G^2 T / (beta n^2 eps) (log(1/delta)/((1 - beta) eps) + 1) (Algorithm 1, line 5).

* ``wang-lownoise-fig1``: least squares f = (<w, x> - y)^2 / 2, kappa in {0, 0.1, 0.15}, eps in {0.5, 1, ..., 5.5},
  reported: mean square error on a fresh sample.  The paper does not state the domain W; we take the unit ball
  (it contains w*, ||w*|| = 0.62), so G = sup ||x|| (R sup ||x|| + sup |y|) = 1.5.
* ``wang-lownoise-fig2``: logistic loss, kappa in {0, 0.4, 0.6}, eps in {1.5, 2, ..., 6}, reported: misclassification
  rate on a fresh sample; W = R^d (no projection), G = sup ||x|| = 1.

Note: at these settings sigma^2 < 2.68 G^2, so the sufficient condition of the paper's Theorem 2 does not hold; like
the paper's experiment we use the Algorithm 1 noise level regardless (recorded in the CSV column ``theorem2_condition``).
"""

from __future__ import annotations

import math
import os
from pathlib import Path
from typing import Callable

import numpy as np

from dpviz import _validate as v
from dpviz import catalog, data as dpdata, simulate as sim

__all__ = ["NAMES", "reproduce", "figure", "wang_sigma"]

NAMES: dict[str, str] = {
    "wang-lownoise-fig1": "Wang, Lei, Ying & Zhou, Fig. 1: mean square error vs eps, least squares",
    "wang-lownoise-fig2": "Wang, Lei, Ying & Zhou, Fig. 2: misclassification rate vs eps, logistic loss",
}



def _setup(name: str) -> dict:
    """The settings of a simulation figure, read from its one definition in :data:`dpviz.experiments.EXPERIMENTS`
    (the dashboard's preset of the figure reads the same entry, see ``Experiment.preset_view``)."""
    from dpviz import experiments

    e = experiments.get(name)
    f = e.fixed
    return dict(dataset=e.dataset, loss=e.loss, kappas=tuple(e.grid["kappa"]), eps=tuple(e.grid["eps"]),
                R=f.get("R"), G=f["G"], n=int(f["n"]), T=int(f["T"]), eta=float(f["eta"]),
                metric=e.y.replace(" on a fresh sample", ""))


_SETUPS = {name: _setup(name) for name in NAMES}
#: n, T and eta, the same for both figures (Section 5.1; tests/test_presets.py checks both definitions agree)
_N, _T, _ETA = (_SETUPS["wang-lownoise-fig1"][k] for k in ("n", "T", "eta"))
#: Largest number of repetitions a reproduction accepts (each repetition is 2 x 33 runs of T = 1000 steps).
MAX_REPS = 10_000


def wang_sigma(*, n: int, eps: float, delta: float, T: int, G: float) -> tuple[float, float]:
    r"""Smallest noise of DP-SGD over the paper's beta search; returns (sigma, beta).

    Wang, Lei, Ying & Zhou (wang-lownoise), Algorithm 1, line 5 and Section 5.1:

    .. math:: \sigma^2 = \frac{14 G^2 T}{\beta n^2 \epsilon}\Big(\frac{\log(1/\delta)}{(1-\beta)\epsilon}+1\Big),
              \quad \beta \in \{0.0001, 0.0002, \dots, 0.9999\}.
    """
    n = v.check_n(n)
    eps = v.check_eps(eps)
    delta = v.check_delta(delta)
    T = v.check_int("T", T)
    G = v.check_positive("G", G)
    beta = np.arange(1, 10000) / 10000.0
    s2 = 14 * G**2 * T / (beta * n**2 * eps) * (math.log(1 / delta) / ((1 - beta) * eps) + 1)
    k = int(np.argmin(s2))
    return float(math.sqrt(s2[k])), float(beta[k])


def _sigma(eps, G):
    """The noise of the paper's experiment: Algorithm 1's sigma at the beta in {0.0001, ..., 0.9999} that minimises it.

    Wang, Lei, Ying & Zhou (wang-lownoise), Section 5.1 picks beta for the smallest variance without checking the conditions of
    Theorem 2; at these settings no such beta satisfies them (condition (i) needs sigma >= 1.637 G), so the
    experiment's noise is below what the catalogue's calibration (``dpsgd-rdp``, feasible beta) prescribes.  The
    reproduction follows the experiment; the catalogue's feasible sigma is reported beside it (column
    ``sigma_feasible``).
    """
    return wang_sigma(n=_N, eps=eps, delta=1.0 / _N**2, T=_T, G=G)


def _sigma_feasible(eps, G):
    """sigma of the catalogue's calibration (feasible beta, Theorem 2), or NaN if none is feasible."""
    try:
        cal = catalog.calibrate("dpsgd-rdp", n=_N, d=10, eps=eps, delta=1.0 / _N**2, T=_T, eta=_ETA, G=G,
                                accountant_extra=False)
    except ValueError:
        return float("nan")
    return float(cal.sigma) if cal.feasible and cal.sigma is not None else float("nan")


def _lipschitz(loss_id: str, G_paper: float) -> float:
    """G for the loss as implemented: the paper-convention G rescaled by the implementation's gradient scale.

    Reference conventions: least squares (<w,x> - y)^2 / 2 has gradient e1 at w = e1, x = e1, y = 0; logistic
    log(1 + exp(-y<w,x>)) has gradient -e1/2 at w = 0, x = e1, y = 1.  A loss module using e.g. (<w,x> - y)^2 has
    twice the gradient, hence twice the Lipschitz constant.
    """
    loss, _ = sim._resolve_loss(loss_id)
    e1 = np.zeros((1, 10))
    e1[0, 0] = 1.0
    if loss_id == "least-squares":
        g = loss.grad(e1, e1, np.zeros(1))
        ref = 1.0
    else:
        g = loss.grad(np.zeros((1, 10)), e1, np.ones(1))
        ref = 0.5
    return G_paper * float(np.linalg.norm(g)) / ref


def figure(summary, name: str):
    """Plotly figure of a reproduction summary (solid: DP-SGD, dotted: non-private SGD, one colour per kappa)."""
    import plotly.graph_objects as go

    if name not in _SETUPS:
        raise ValueError(f"unknown reproduction {name!r}; choose one of: {', '.join(NAMES)}")
    colours = ["#1f77b4", "#d62728", "#2ca02c", "#9467bd"]
    fig = go.Figure()
    for i, kappa in enumerate(sorted(summary["kappa"].unique())):
        for method, dash, label in (("dp", "solid", "DP-SGD"), ("non-private", "dot", "SGD")):
            s = summary[(summary["kappa"] == kappa) & (summary["method"] == method)].sort_values("eps")
            fig.add_trace(go.Scatter(
                x=s["eps"], y=s["mean"], mode="lines+markers", name=f"{label}, κ = {kappa:g}",
                line=dict(color=colours[i % len(colours)], dash=dash),
                error_y=dict(type="data", array=1.959963984540054 * s["se"], visible=True)))
    fig.update_layout(title=NAMES[name], xaxis_title="privacy budget ε",
                      yaxis_title=_SETUPS[name]["metric"], template="plotly_white")
    return fig


def reproduce(name: str, *, reps: int | None = None, seed: int = 0, out_dir, progress: Callable[[float], None] | None = None,
              cancel=None) -> dict:
    """Run reproduction ``name`` and write ``out_dir/NAME.csv`` and ``out_dir/NAME.html``."""
    import pandas as pd

    from dpviz import experiments

    if name in experiments.EXPERIMENTS and name not in _SETUPS:
        if reps is not None:
            v.check_int("reps", reps)
        if out_dir is None:
            raise ValueError("out_dir is required (the directory for the CSV and HTML files).")
        if experiments.get(name).kind == "study":
            return experiments.run(name, out_dir=out_dir, progress=progress, reps=reps, seed=seed)
        return experiments.run(name, out_dir=out_dir, progress=progress)
    if name not in _SETUPS:
        raise ValueError(f"unknown reproduction {name!r}; choose one of: {', '.join(experiments.EXPERIMENTS)}")
    reps = 500 if reps is None else v.check_int("reps", reps)
    if reps > MAX_REPS:
        raise ValueError(f"reps must be at most {MAX_REPS} (the paper's figures use 500), got {reps}.")
    seed = v.check_int("seed", seed, minimum=0)
    if seed > 2**63 - 1:
        raise ValueError(f"seed must be a whole number from 0 to 2^63 - 1, got {seed}.")
    if out_dir is None:
        raise ValueError("out_dir is required (the directory for the CSV and HTML files).")
    out = Path(out_dir)
    try:
        out.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise ValueError(f"cannot create the output directory {str(out_dir)!r}: {exc.strerror or exc}") from None
    if not os.access(out, os.W_OK):
        raise ValueError(f"the output directory {str(out_dir)!r} is not writable.")
    st = _SETUPS[name]
    delta = 1.0 / _N**2
    G = _lipschitz(st["loss"], st["G"])
    sig = [_sigma(e, G) for e in st["eps"]]
    sig_feasible = [_sigma_feasible(e, G) for e in st["eps"]]
    rows = []
    nk = len(st["kappas"])
    for k, kappa in enumerate(st["kappas"]):
        ds = dpdata.load_dataset(st["dataset"], n=_N, kappa=kappa, seed=seed)

        def prog(f, k=k):
            if progress is not None:
                progress((k + 0.9 * f) / nk)

        common = dict(T=_T, eta=_ETA, R=st["R"], delta=delta)
        res = sim.simulate("dpsgd-rdp", ds, st["loss"], grid={"eps": list(st["eps"])}, reps=reps, seed=seed,
                           params={**common, "sigma": [s for s, _ in sig]}, evaluate=("metric",), progress=prog,
                           cancel=cancel, max_work=None)
        base = sim.simulate("sgd", ds, st["loss"], reps=reps, seed=seed, params=common, evaluate=("metric",),
                            cancel=cancel, max_work=None)
        sm = res.summary("metric")
        bm = base.summary("metric").iloc[0]
        for (s, b), sf, (_, r) in zip(sig, sig_feasible, sm.iterrows()):
            rows.append({"method": "dp", "kappa": kappa, "eps": r["grid"], "mean": r["mean"], "se": r["se"],
                         "ci_low": r["ci_low"], "ci_high": r["ci_high"], "sigma": s, "beta": b, "reps": reps,
                         "theorem2_condition": s**2 >= 2.68 * G**2, "sigma_feasible": sf})
            rows.append({"method": "non-private", "kappa": kappa, "eps": r["grid"], "mean": bm["mean"],
                         "se": bm["se"], "ci_low": bm["ci_low"], "ci_high": bm["ci_high"], "sigma": 0.0,
                         "beta": float("nan"), "reps": reps, "theorem2_condition": True, "sigma_feasible": 0.0})
    summary = pd.DataFrame(rows)
    csv = out / f"{name}.csv"
    html = out / f"{name}.html"
    summary.to_csv(csv, index=False)
    fig = figure(summary, name)
    fig.write_html(html, include_plotlyjs=True, full_html=True)
    shown, finding = _lownoise_finding(summary)
    md = out / f"{name}.md"
    from dpviz import experiments

    e = experiments.get(name)
    md.write_text(
        f"# {name}\n\n{e.what}\n\nPaper: {catalog.get_paper(e.paper).cite()} ({e.paper}), {e.place}.\n\n"
        f"**Claimed finding.** {e.claim}.\n\n"
        f"**Reproduction** ({reps} repetitions, seed {seed}). "
        f"{'Shows the finding' if shown else 'Does NOT show the finding'}: {finding}.\n\n"
        f"Data: the paper's synthetic design ({st['dataset']}, n = {_N}). Files: {csv.name}, {html.name}.\n",
        encoding="utf-8")
    if progress is not None:
        progress(1.0)
    return {"csv": csv, "html": html, "md": md, "summary": summary, "figure": fig, "shown": shown,
            "finding": finding}


def _lownoise_finding(summary) -> tuple[bool, str]:
    """Does DP-SGD's error fall from the smallest to the largest eps, and approach SGD's, for every kappa?"""
    parts, ok = [], True
    for kappa, g in summary.groupby("kappa"):
        dp = g[g.method == "dp"].sort_values("eps")
        base = float(g[g.method == "non-private"]["mean"].iloc[0])
        lo, hi = float(dp["mean"].iloc[0]), float(dp["mean"].iloc[-1])
        good = hi < lo and abs(hi - base) < abs(lo - base)
        ok &= good
        parts.append(f"kappa = {kappa:g}: DP-SGD {lo:.4g} at eps = {dp['eps'].iloc[0]:g} -> {hi:.4g} at eps = "
                     f"{dp['eps'].iloc[-1]:g}, SGD {base:.4g}")
    return ok, "; ".join(parts)
