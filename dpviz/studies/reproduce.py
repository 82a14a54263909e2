"""The runner of the papers' engine-simulation figures (experiments of kind ``"simulation"``).

Every experiment is defined once, in :data:`dpviz.studies.experiments.EXPERIMENTS`, and run by one function,
:func:`dpviz.studies.experiments.run`; for the figures of kind ``"simulation"`` that runner calls :func:`run_figure` here,
which reads every setting (data set, loss, kappa and eps grids, n, T, eta, the domain R, G) from the definition.

``reproduce(name, *, reps=None (500 for these figures; a study's default_reps), seed=0, out_dir, progress=None) -> dict``
    ``python -m dpviz reproduce NAME``: :func:`dpviz.studies.experiments.run` of any target (all targets: ``python -m dpviz
    reproduce --list``).  For a figure it writes ``out_dir/NAME.csv`` (one row per (method, kappa, eps), columns
    below) and ``out_dir/NAME.html`` (standalone Plotly figure), and returns ``{"csv": path, "html": path,
    "summary": DataFrame, "figure": plotly Figure}``.  Every target also writes ``out_dir/NAME.md``: the paper's
    claimed finding and whether the reproduction shows it, with numbers.
``NAMES``
    id -> title of the simulation figures (Wang, Lei, Ying & Zhou), read from their definitions.
``figure(summary, name)``
    the Plotly figure of a summary (pure function).
``run_privacy(*, sigma, G, eps, n, T, delta) -> dict``
    the (ε, δ) a run of Algorithm 1 really has, by a tight PLD accountant (convention below).
``noise_rule_label(result) -> str``
    ", paper's noise rule (not private here)" for an engine result run with the papers' experimental noise rule
    (the Simulate page appends it to the curve's name), "" otherwise.

Both figures are Wang, Lei, Ying & Zhou (wang-lownoise), Section 5: DP-SGD (Algorithm 1) against
non-private SGD with eta = 0.01, T = 1000, delta = 1/n^2, n = 5000, and beta searched over 0.0001 .. 0.9999 for the
smallest sigma^2 = 14 G^2 T / (beta n^2 eps) (log(1/delta)/((1 - beta) eps) + 1) (Algorithm 1, line 5).

* ``wang-lownoise-fig1``: least squares f = (<w, x> - y)^2 / 2, kappa in {0, 0.1, 0.15}, eps in {0.5, 1, ..., 5.5},
  reported: mean square error on a fresh sample.  The paper does not state the domain W; we take the unit ball
  (it contains w*, ||w*|| = 0.62), so G = sup ||x|| (R sup ||x|| + sup |y|) = 1.5.
* ``wang-lownoise-fig2``: logistic loss, kappa in {0, 0.4, 0.6}, eps in {1.5, 2, ..., 6}, reported: misclassification
  rate on a fresh sample; W = R^d (no projection), G = sup ||x|| = 1.

The paper's noise rule is not private here
------------------------------------------
At these settings sigma^2 < 2.68 G^2, so the sufficient condition of the paper's Theorem 2 does not hold, and a tight
accountant confirms that the rule is not (eps, delta)-DP: at Fig. 1's eps = 0.5 the run has eps = 7.12 at
delta = 1/n^2 = 4e-8 (and delta = 2.9e-3 at eps = 0.5).  Three curves are therefore run per kappa, each labelled by
what it is:

* ``method = "dp-paper-rule"``: the paper's noise rule (beta minimising sigma over (0, 1)), labelled "paper's noise
  rule (not private here)" wherever the accountant's eps exceeds the target eps;
* ``method = "dp-private"``: the catalogue's provably private calibration (``dpsgd-rdp``: the sigma-minimising beta
  among those meeting Theorem 2's conditions; column ``sigma_feasible``), absent where no beta is feasible;
* ``method = "non-private"``: SGD without noise.

CSV columns: ``method``, ``label``, ``kappa``, ``eps`` (the target eps of the noise formula), ``mean``, ``se``,
``ci_low``, ``ci_high``, ``sigma``, ``beta``, ``reps``, ``theorem2_condition`` (sigma^2 >= 2.68 G^2),
``sigma_feasible``, ``eps_run`` (the eps the run has at ``delta``, Poisson add/remove), ``delta_at_eps`` (the delta
the run has at the target eps, same convention), ``accountant`` (that convention), ``eps_run_paper`` (the eps under
the paper's Definition 1: replace-one, sensitivity 2G, one index drawn per step; an RDP upper bound),
``private_paper`` (``eps_run_paper`` <= eps), ``accountant_paper`` (that convention), ``private`` (both <= eps).

Accountant convention (``run_privacy``): ``dp_accounting``'s PLD accountant (Poisson-subsampled Gaussian, sampling
rate q = 1/n, T compositions, add/remove-one neighbours, sensitivity G, noise multiplier sigma/G; discretisation 1e-3,
or 1e-2 where the RDP bound exceeds 20, which only rounds eps up).  Algorithm 1 samples one index uniformly per step
and Wang et al.'s Definition 1 uses replace-one neighbours (sensitivity 2G); the Poisson add/remove convention is
the most favourable of the usual ones (replace-one neighbours with Poisson sampling, by the same PLD accountant, give
eps = 7.13 at Fig. 1's eps = 0.5 point), which is why the CSV and the report name it.  The paper's own relation
(replace-one, sensitivity 2G, one index drawn uniformly per step = sampling without replacement of a batch of 1) is
reported beside it (``paper_relation_privacy``: ``dpviz.theory.accounting.epsilon_general`` with
``sampling="without-replacement"``, ``neighbouring="replace-one"``, the RDP bound of Wang, Balle & Kasiviswanathan
2019, an upper bound: 9504 at Fig. 1's eps = 0.5 point with the paper's rule, 0.0151 with the private calibration).
"""

from __future__ import annotations

import math
import os
from pathlib import Path
from typing import Callable

import numpy as np

from dpviz.foundation import validate as v
from dpviz.theory import catalog
from dpviz.engine import data as dpdata, simulate as sim
from dpviz.studies import experiments

__all__ = ["NAMES", "reproduce", "run_figure", "figure", "wang_sigma", "run_privacy", "ACCOUNTANT",
           "noise_rule_label"]

#: id -> title of the engine-simulation figures, from their definitions in :data:`dpviz.studies.experiments.EXPERIMENTS`
NAMES: dict[str, str] = {e.id: e.title or e.what for e in experiments.EXPERIMENTS.values() if e.kind == "simulation"}



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


def _sigma(eps, G, *, n, T):
    """The noise of the paper's experiment: Algorithm 1's sigma at the beta in {0.0001, ..., 0.9999} that minimises it.

    Wang, Lei, Ying & Zhou (wang-lownoise), Section 5.1 picks beta for the smallest variance without checking the conditions of
    Theorem 2; at these settings no such beta satisfies them (condition (i) needs sigma >= 1.637 G), so the
    experiment's noise is below what the catalogue's calibration (``dpsgd-rdp``, feasible beta) prescribes.  The
    reproduction follows the experiment; the catalogue's feasible sigma is reported beside it (column
    ``sigma_feasible``).
    """
    return wang_sigma(n=n, eps=eps, delta=1.0 / n**2, T=T, G=G)


def _sigma_feasible(eps, G, *, n, T, eta):
    """sigma of the catalogue's calibration (feasible beta, Theorem 2), or NaN if none is feasible."""
    try:
        cal = catalog.calibrate("dpsgd-rdp", n=n, d=10, eps=eps, delta=1.0 / n**2, T=T, eta=eta, G=G,
                                accountant_extra=False)
    except ValueError:
        return float("nan")
    return float(cal.sigma) if cal.feasible and cal.sigma is not None else float("nan")


#: Smallest noise multiplier sigma / G that :func:`run_privacy` accounts (the figures' smallest is 0.035).
_Z_MIN_PLD = 0.01
#: The accounting convention of :func:`run_privacy` (the CSV column ``accountant``).
ACCOUNTANT = ("PLD (dp_accounting), Poisson sampling q = 1/n, add/remove-one neighbours, sensitivity G, "
              "T compositions")


def run_privacy(*, sigma: float, G: float, eps: float, n: int, T: int, delta: float) -> dict:
    """The privacy a run of Algorithm 1 with per-step noise ``sigma`` really has, by a tight accountant.

    Wang, Lei, Ying & Zhou (wang-lownoise), Algorithm 1: each of the T steps releases the gradient of one sampled
    example (norm <= G) plus N(0, sigma^2 I).  Accounted as T compositions of the Poisson-subsampled Gaussian
    mechanism (rate q = 1/n, add/remove-one neighbours, sensitivity G, noise multiplier z = sigma/G) by
    ``dp_accounting``'s privacy-loss-distribution accountant (:data:`ACCOUNTANT`; the most favourable of the usual
    conventions).  The discretisation is 1e-3, or 1e-2 where the RDP bound exceeds 20 (coarser steps only round eps
    up, so the answer stays an upper bound of this convention).

    Returns
    -------
    dict
        ``eps_run``: the eps at ``delta``; ``delta_at_eps``: the delta at the target ``eps``; ``private``:
        ``eps_run <= eps`` (up to 1e-9 relative); ``accountant``: the convention.
    """
    import dp_accounting
    from dp_accounting.rdp import rdp_privacy_accountant

    sigma = v.check_positive("sigma", sigma)
    G = v.check_positive("G", G)
    eps = v.check_eps(eps)
    n = v.check_n(n)
    T = v.check_int("T", T)
    delta = v.check_delta(delta)
    if sigma / G < _Z_MIN_PLD:
        raise ValueError(f"sigma / G = {sigma / G:.3g} is below {_Z_MIN_PLD:g}: with so little noise the PLD "
                         "accountant's privacy-loss grid does not fit in memory (each step reveals the sampled "
                         "example almost exactly); use more noise.")
    event = dp_accounting.SelfComposedDpEvent(
        dp_accounting.PoissonSampledDpEvent(1.0 / n, dp_accounting.GaussianDpEvent(sigma / G)), T)
    rdp = rdp_privacy_accountant.RdpAccountant()
    rdp.compose(event)
    interval = 1e-3 if rdp.get_epsilon(delta) < 20 else 1e-2
    # dp_accounting's PLDAccountant for this event, with the hockey-stick values of its connect-the-dots grid computed
    # in one numpy pass (same operations, equal to its numbers to about 1e-14; half the time)
    pld = _poisson_gaussian_pld(sigma / G, 1.0 / n, interval).self_compose(T)
    eps_run = float(pld.get_epsilon_for_delta(delta))
    return {"eps_run": eps_run, "delta_at_eps": float(pld.get_delta_for_epsilon(eps)),
            "private": bool(eps_run <= eps * (1 + 1e-9)), "accountant": ACCOUNTANT}


#: The relation of the paper's Definition 1 (the CSV column ``accountant_paper``).
ACCOUNTANT_PAPER = ("RDP (Wang, Balle & Kasiviswanathan 2019, via dpviz.theory.accounting.epsilon_general), one "
                    "index drawn uniformly per step (sampling without replacement, batch 1, q = 1/n), replace-one "
                    "neighbours as in Wang, Lei, Ying & Zhou's Definition 1, sensitivity 2G, T compositions; an upper "
                    "bound")


def paper_relation_privacy(*, sigma: float, G: float, eps: float, n: int, T: int, delta: float) -> dict:
    """The ε of a run of Algorithm 1 under the paper's own neighbouring relation (Wang, Lei, Ying & Zhou
    (wang-lownoise), Definition 1: data sets differing in one example, replaced) and its own sampling (Algorithm 1
    draws one index uniformly per step), where the gradient of the replaced example moves by at most 2G.

    Accounted by :func:`dpviz.theory.accounting.epsilon_general` (``sampling="without-replacement"``,
    ``neighbouring="replace-one"``, q = 1/n, noise multiplier σ/(2G)): the RDP bound of Wang, Balle &
    Kasiviswanathan (2019), an upper bound on ε (dp_accounting has no PLD accountant for this sampling), so
    ``private`` here is a certificate, and a large ε may overstate the run's true ε.

    Returns
    -------
    dict
        ``eps_run_paper``: the ε at ``delta``; ``private_paper``: ``eps_run_paper <= eps`` (up to 1e-9 relative);
        ``accountant_paper``: the convention (:data:`ACCOUNTANT_PAPER`).
    """
    from dpviz.theory import accounting

    sigma = v.check_positive("sigma", sigma)
    G = v.check_positive("G", G)
    eps = v.check_eps(eps)
    n = v.check_n(n)
    T = v.check_int("T", T)
    delta = v.check_delta(delta)
    e = float(accounting.epsilon_general(noise_multiplier=sigma / (2.0 * G), delta=delta, steps=T,
                                         sampling_prob=1.0 / n, sampling="without-replacement",
                                         neighbouring="replace-one"))
    return {"eps_run_paper": e, "private_paper": bool(e <= eps * (1 + 1e-9)), "accountant_paper": ACCOUNTANT_PAPER}


def _log_a_exp_b_plus_c(a: float, b, c: float):
    """dp_accounting's ``common.log_a_times_exp_b_plus_c`` for a > 0 > c, elementwise over the array b, with the
    same operations (so the same floating-point results)."""
    import numpy as np

    out = np.empty_like(b)
    zero = b == 0
    out[zero] = np.log(a + c)
    d = b[~zero] + np.log(a)
    with np.errstate(invalid="ignore", divide="ignore"):
        out[~zero] = d + np.log1p(-np.exp(np.log(-c) - d))
    return out


def _poisson_gaussian_pld(z: float, q: float, interval: float):
    """The PLD that ``dp_accounting``'s ``PLDAccountant(value_discretization_interval=interval)`` builds for one
    Poisson(q)-sub-sampled Gaussian step (noise multiplier z, add/remove, connect-the-dots), built by its own
    functions except that ``GaussianPrivacyLoss.get_delta_for_epsilon`` inverts the privacy loss for all grid points
    in one numpy pass instead of a Python loop over ``inverse_privacy_loss`` (which is most of the work)."""
    import math

    import numpy as np
    from dp_accounting.pld import privacy_loss_distribution as pldd
    from dp_accounting.pld import privacy_loss_mechanism as plm

    class VecGaussianLoss(plm.GaussianPrivacyLoss):
        def get_delta_for_epsilon(self, epsilon):
            e_all = np.asarray(epsilon, dtype=float)
            s2, sens = self._standard_deviation ** 2, self.sensitivity
            deltas = np.zeros_like(e_all)
            l1q = math.log1p(-q)
            if self.adjacency_type == plm.AdjacencyType.ADD:
                idx = e_all < -l1q
                e = e_all[idx]
                pl = -_log_a_exp_b_plus_c(1 / q, -e, 1 - 1 / q)
                close = np.isclose(e, -l1q, rtol=1e-9, atol=0.0)
                pl[close] = math.inf
                x = sens + (-0.5 * sens - pl * s2 / sens)
            else:
                idx = e_all > l1q
                deltas[~idx] = -np.expm1(e_all[~idx])
                e = e_all[idx]
                pl = _log_a_exp_b_plus_c(1 / q, e, 1 - 1 / q)
                close = np.isclose(e, l1q, rtol=1e-9, atol=0.0)
                pl[close] = -math.inf
                x = -0.5 * sens - pl * s2 / sens
            deltas[idx] = self.mu_upper_cdf(x) - np.exp(e + self.mu_lower_log_cdf(x))
            return np.clip(deltas, 0, 1)

    def one(adjacency):
        mech = VecGaussianLoss(z, sensitivity=1, pessimistic_estimate=True, sampling_prob=q, adjacency_type=adjacency)
        return pldd._create_pld_pmf_from_monotone_privacy_loss(mech, pessimistic_estimate=True,
                                                              value_discretization_interval=interval,
                                                              use_connect_dots=True)

    return pldd.PrivacyLossDistribution(one(plm.AdjacencyType.REMOVE), one(plm.AdjacencyType.ADD))


def noise_rule_label(result) -> str:
    """The label suffix of a :func:`dpviz.engine.simulate.simulate` result run with the papers' experimental noise rule
    (``noise_rule="experiment"``: beta minimising sigma over (0, 1), Wang, Lei, Ying & Zhou, Section 5.1).

    ``", paper's noise rule (not private here)"`` when no grid point of that rule meets the theorem's privacy
    conditions (the engine marks them ``feasible=False``), ``"(private here)"`` when all do, ``"(not private at some
    points here)"`` otherwise; ``""`` for a result with the calibrated (or no) noise, or without calibrations (a
    sweep's stored rows)."""
    cals = list(getattr(result, "calibrations", None) or [])
    rule = [c for c in cals if c is not None and any("as in the paper's experiments" in str(n)
                                                      for n in (getattr(c, "notes", None) or []))]
    if not rule:
        return ""
    priv = [bool(c.feasible) for c in rule]
    verdict = "not private here" if not any(priv) else "private here" if all(priv) else "not private at some points here"
    return f", paper's noise rule ({verdict})"


#: method id -> (line dash, legend label without the privacy verdict) of the three curves of a figure
_METHODS = {"dp-paper-rule": ("dash", "DP-SGD, paper's noise rule"),
            "dp-private": ("solid", "DP-SGD, private calibration (Theorem 2, feasible β)"),
            "non-private": ("dot", "SGD (non-private)")}


def _rule_label(rows) -> str:
    """The paper-rule curve's label, from its rows' ``private`` column (a pure function of the numbers)."""
    priv = [bool(p) for p in rows["private"]] if "private" in rows else []
    if not priv:
        return _METHODS["dp-paper-rule"][1]
    verdict = ("not private here" if not any(priv) else "private here" if all(priv)
               else "not private at some ε here")
    return f"{_METHODS['dp-paper-rule'][1]} ({verdict})"


def figure(summary, name: str):
    """Plotly figure of a reproduction summary: one colour per kappa; dashed: DP-SGD with the paper's noise rule
    (labelled "not private here" where the tight accountant's eps exceeds the target), solid: DP-SGD with the
    catalogue's private calibration, dotted: non-private SGD.  The subtitle gives the eps the paper's rule really
    has (column ``eps_run``)."""
    import plotly.graph_objects as go

    if name not in NAMES:
        raise ValueError(f"unknown reproduction {name!r}; choose one of: {', '.join(NAMES)}")
    colours = ["#1f77b4", "#d62728", "#2ca02c", "#9467bd"]
    fig = go.Figure()
    for i, kappa in enumerate(sorted(summary["kappa"].unique())):
        for method, (dash, label) in _METHODS.items():
            s = summary[(summary["kappa"] == kappa) & (summary["method"] == method)].sort_values("eps")
            if s.empty:
                continue
            if method == "dp-paper-rule":
                label = _rule_label(s)
            fig.add_trace(go.Scatter(
                x=s["eps"], y=s["mean"], mode="lines+markers", name=f"{label}, κ = {kappa:g}",
                line=dict(color=colours[i % len(colours)], dash=dash),
                error_y=dict(type="data", array=1.959963984540054 * s["se"], visible=True)))
    title = NAMES[name]
    rule = summary[summary["method"] == "dp-paper-rule"].drop_duplicates("eps").sort_values("eps")
    if "eps_run" in rule and len(rule):
        lo, hi = rule.iloc[0], rule.iloc[-1]
        title += (f"<br><sup>paper's noise rule, the run's ε at δ = 1/n²: {lo['eps_run']:.3g} at target ε = "
                  f"{lo['eps']:g} … {hi['eps_run']:.3g} at target ε = {hi['eps']:g} (Poisson q = 1/n, add/remove, "
                  "sensitivity G, tight PLD)</sup>")
        if "eps_run_paper" in rule:
            title += (f"<br><sup>under the paper's Definition 1 (replace-one, sensitivity 2G, one index per step; RDP "
                      f"upper bound): {lo['eps_run_paper']:.4g} … {hi['eps_run_paper']:.4g}</sup>")
    fig.update_layout(title=title, xaxis_title="target ε of the noise formula (δ = 1/n²)",
                      yaxis_title=_metric(experiments.get(name)), template="plotly_white", margin=dict(t=110))
    return fig


def _metric(e) -> str:
    """The y-axis title of a figure: what its definition plots, without "on a fresh sample"."""
    return e.y.replace(" on a fresh sample", "")


def reproduce(name: str, *, reps: int | None = None, seed: int = 0, out_dir,
              progress: Callable[[float], None] | None = None, cancel=None) -> dict:
    """Run the reproduction target ``name`` (any id of :data:`dpviz.studies.experiments.EXPERIMENTS`) through
    :func:`dpviz.studies.experiments.run` and write ``out_dir/NAME.csv``, ``NAME.html`` and ``NAME.md``."""
    if name not in experiments.EXPERIMENTS:
        raise ValueError(f"unknown reproduction {name!r}; choose one of: {', '.join(experiments.EXPERIMENTS)}")
    if experiments.get(name).kind != "simulation":
        if reps is not None:
            v.check_int("reps", reps)
        if out_dir is None:
            raise ValueError("out_dir is required (the directory for the CSV and HTML files).")
    return experiments.run(name, out_dir=out_dir, progress=progress, reps=reps, seed=seed, cancel=cancel)


def run_figure(exp, *, reps: int | None = None, seed: int = 0, out_dir,
               progress: Callable[[float], None] | None = None, cancel=None) -> dict:
    """Run the engine-simulation figure ``exp`` (a :class:`dpviz.studies.experiments.Experiment` of kind ``"simulation"``)
    and write ``out_dir/ID.csv``, ``ID.html`` and ``ID.md`` (called by :func:`dpviz.studies.experiments.run`)."""
    import pandas as pd

    name = exp.id
    if name not in NAMES:
        raise ValueError(f"unknown reproduction {name!r}; choose one of: {', '.join(NAMES)}")
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
    f = exp.fixed
    st = dict(dataset=exp.dataset, loss=exp.loss, kappas=tuple(exp.grid["kappa"]), eps=tuple(exp.grid["eps"]),
              R=f.get("R"), G=f["G"])
    n, T, eta = int(f["n"]), int(f["T"]), float(f["eta"])
    delta = 1.0 / n**2
    G = experiments._lipschitz(st["loss"], st["G"])
    sig = [_sigma(x, G, n=n, T=T) for x in st["eps"]]
    sig_feasible = [_sigma_feasible(x, G, n=n, T=T, eta=eta) for x in st["eps"]]
    acct = dict(G=G, n=n, T=T, delta=delta)
    priv_rule = [{**run_privacy(sigma=s, eps=e, **acct), **paper_relation_privacy(sigma=s, eps=e, **acct)}
                 for (s, _), e in zip(sig, st["eps"])]
    priv_cal = [{**run_privacy(sigma=sf, eps=e, **acct), **paper_relation_privacy(sigma=sf, eps=e, **acct)}
                if math.isfinite(sf) else None for sf, e in zip(sig_feasible, st["eps"])]
    eps_ok = [e for e, sf in zip(st["eps"], sig_feasible) if math.isfinite(sf)]
    rows = []
    nk = len(st["kappas"])
    for k, kappa in enumerate(st["kappas"]):
        ds = dpdata.load_dataset(st["dataset"], n=n, kappa=kappa, seed=seed)

        def prog(f, k=k, lo=0.0, width=0.45):
            if progress is not None:
                progress((k + lo + width * f) / nk)

        common = dict(T=T, eta=eta, R=st["R"], delta=delta)
        res = sim.simulate("dpsgd-rdp", ds, st["loss"], grid={"eps": list(st["eps"])}, reps=reps, seed=seed,
                           params={**common, "sigma": [s for s, _ in sig]}, evaluate=("metric",), progress=prog,
                           cancel=cancel, max_work=None)
        sm_cal = None
        if len(eps_ok) >= 1:
            res_cal = sim.simulate("dpsgd-rdp", ds, st["loss"], grid={"eps": eps_ok}, reps=reps, seed=seed,
                                   params={**common, "sigma": [sf for sf in sig_feasible if math.isfinite(sf)]},
                                   evaluate=("metric",), progress=lambda f, k=k: prog(f, k, 0.45),
                                   cancel=cancel, max_work=None)
            sm_cal = res_cal.summary("metric").set_index("grid")
        base = sim.simulate("sgd", ds, st["loss"], reps=reps, seed=seed, params=common, evaluate=("metric",),
                            cancel=cancel, max_work=None)
        sm = res.summary("metric")
        bm = base.summary("metric").iloc[0]
        for (s, b), sf, pr, pc, (_, r) in zip(sig, sig_feasible, priv_rule, priv_cal, sm.iterrows()):
            e = r["grid"]
            rows.append({"method": "dp-paper-rule", "label": "", "kappa": kappa, "eps": e, "mean": r["mean"],
                         "se": r["se"], "ci_low": r["ci_low"], "ci_high": r["ci_high"], "sigma": s, "beta": b,
                         "reps": reps, "theorem2_condition": s**2 >= 2.68 * G**2, "sigma_feasible": sf,
                         "eps_run": pr["eps_run"], "delta_at_eps": pr["delta_at_eps"],
                         "private": pr["private"] and pr["private_paper"], "accountant": pr["accountant"],
                         "eps_run_paper": pr["eps_run_paper"], "private_paper": pr["private_paper"],
                         "accountant_paper": pr["accountant_paper"]})
            if pc is not None and sm_cal is not None and e in sm_cal.index:
                c = sm_cal.loc[e]
                rows.append({"method": "dp-private", "label": _METHODS["dp-private"][1], "kappa": kappa, "eps": e,
                             "mean": c["mean"], "se": c["se"], "ci_low": c["ci_low"], "ci_high": c["ci_high"],
                             "sigma": sf, "beta": float("nan"), "reps": reps, "theorem2_condition": True,
                             "sigma_feasible": sf, "eps_run": pc["eps_run"], "delta_at_eps": pc["delta_at_eps"],
                             "private": pc["private"] and pc["private_paper"], "accountant": pc["accountant"],
                             "eps_run_paper": pc["eps_run_paper"], "private_paper": pc["private_paper"],
                             "accountant_paper": pc["accountant_paper"]})
            rows.append({"method": "non-private", "label": _METHODS["non-private"][1], "kappa": kappa, "eps": e,
                         "mean": bm["mean"], "se": bm["se"], "ci_low": bm["ci_low"], "ci_high": bm["ci_high"],
                         "sigma": 0.0, "beta": float("nan"), "reps": reps, "theorem2_condition": True,
                         "sigma_feasible": 0.0, "eps_run": float("inf"), "delta_at_eps": 1.0, "private": False,
                         "accountant": "none (no noise)", "eps_run_paper": float("inf"), "private_paper": False,
                         "accountant_paper": "none (no noise)"})
    summary = pd.DataFrame(rows)
    rule = summary["method"] == "dp-paper-rule"
    for kappa in st["kappas"]:
        at = rule & (summary["kappa"] == kappa)
        summary.loc[at, "label"] = _rule_label(summary[at])
    csv = out / f"{name}.csv"
    html = out / f"{name}.html"
    summary.to_csv(csv, index=False)
    fig = figure(summary, name)
    fig.write_html(html, include_plotlyjs=True, full_html=True)
    shown, finding = _lownoise_finding(summary)
    md = out / f"{name}.md"
    e = exp
    md.write_text(
        f"# {name}\n\n{e.what}\n\nPaper: {catalog.get_paper(e.paper).cite()} ({e.paper}), {e.place}.\n\n"
        f"**Claimed finding.** {e.claim}.\n\n"
        f"**Reproduction** ({reps} repetitions, seed {seed}), with the paper's noise rule as the paper ran it. "
        f"{'Shows the finding' if shown else 'Does NOT show the finding'}: {finding}.\n\n"
        f"**Privacy of the runs.** {_privacy_report(summary, n)}\n\n"
        f"**With the private calibration.** {_private_curve_report(summary)}\n\n"
        f"Data: the paper's synthetic design ({st['dataset']}, n = {n}). Files: {csv.name}, {html.name}.\n",
        encoding="utf-8")
    if progress is not None:
        progress(1.0)
    return {"csv": csv, "html": html, "md": md, "summary": summary, "figure": fig, "shown": shown,
            "finding": finding}


def _privacy_report(summary, n: int) -> str:
    """One paragraph on the eps each DP curve really has, generated from the columns ``eps_run``, ``delta_at_eps``,
    ``private`` and ``sigma`` / ``sigma_feasible`` of ``summary`` (``n``: the training-set size, delta = 1/n^2)."""
    rule = summary[summary["method"] == "dp-paper-rule"].drop_duplicates("eps").sort_values("eps")
    cal = summary[summary["method"] == "dp-private"].drop_duplicates("eps").sort_values("eps")
    delta = 1.0 / n**2
    n_bad = int((~rule["private"].astype(bool)).sum())
    pts = "; ".join(f"target ε = {r['eps']:g}: σ = {r['sigma']:.4g}, run's ε = {r['eps_run']:.4g}, δ at the target "
                    f"ε = {r['delta_at_eps']:.2g}" for _, r in rule.iterrows())
    txt = (f"By a tight accountant ({ACCOUNTANT}, δ = 1/n² = {delta:.2g}), the paper's noise rule exceeds its target "
           f"ε at {n_bad} of {len(rule)} grid points, so its curves are labelled "
           f"\"{_rule_label(rule).replace(_METHODS['dp-paper-rule'][1], '').strip(' ()')}\": {pts}.")
    if "eps_run_paper" in rule:
        n_bad_p = int((~rule["private_paper"].astype(bool)).sum())
        pts_p = "; ".join(f"target ε = {r['eps']:g}: ε = {r['eps_run_paper']:.4g}" for _, r in rule.iterrows())
        txt += (f" Under the paper's own relation (Wang, Lei, Ying & Zhou's Definition 1: replace-one neighbours, so "
                f"the replaced example's gradient moves by up to 2G; Algorithm 1 draws one index uniformly per step, "
                f"i.e. sampling without replacement of a batch of 1; RDP bound of Wang, Balle & Kasiviswanathan 2019, "
                f"an upper bound on ε), the rule exceeds its target at {n_bad_p} of {len(rule)} points: {pts_p}. The Poisson add/remove figure "
                "above is a different relation (sensitivity G), given because its accountant is tight; the paper's "
                "relation is the one its privacy claim is about.")
    if len(cal):
        worst = float((cal["eps_run"] / cal["eps"]).max())
        ratio = cal["sigma"].to_numpy() / rule.set_index("eps").loc[cal["eps"], "sigma"].to_numpy()
        txt += (f" The private calibration's σ (Wang, Lei, Ying & Zhou's Theorem 2 with a feasible β) is {cal['sigma'].iloc[0]:.4g} at target "
                f"ε = {cal['eps'].iloc[0]:g} … {cal['sigma'].iloc[-1]:.4g} at ε = {cal['eps'].iloc[-1]:g} "
                f"({ratio.min():.3g} to {ratio.max():.3g} times the paper's rule); the same accountant gives it "
                f"at most {worst:.3g} times the target ε")
        if "eps_run_paper" in cal:
            worst_p = float((cal["eps_run_paper"] / cal["eps"]).max())
            txt += f", and the paper's relation (RDP upper bound) at most {worst_p:.3g} times"
        txt += "."
    missing = sorted(set(rule["eps"]) - set(cal["eps"]))
    if missing:
        txt += f" No β meets Wang, Lei, Ying & Zhou's Theorem 2 conditions at ε = {', '.join(f'{m:g}' for m in missing)} (no private curve there)."
    return txt


def _private_curve_report(summary) -> str:
    """The private curve against non-private SGD, per kappa, generated from the means in ``summary``."""
    parts = []
    for kappa, g in summary.groupby("kappa"):
        cal = g[g.method == "dp-private"].sort_values("eps")
        if cal.empty:
            parts.append(f"kappa = {kappa:g}: no private curve (no feasible β)")
            continue
        base = float(g[g.method == "non-private"]["mean"].iloc[0])
        rule = g[g.method == "dp-paper-rule"].set_index("eps")["mean"]
        lo, hi = float(cal["mean"].iloc[0]), float(cal["mean"].iloc[-1])
        e0, e1 = float(cal["eps"].iloc[0]), float(cal["eps"].iloc[-1])
        parts.append(f"kappa = {kappa:g}: {lo:.4g} at ε = {e0:g} -> {hi:.4g} at ε = {e1:g} "
                     f"({'falls' if hi < lo else 'does not fall'}; the paper's rule {float(rule[e0]):.4g} -> "
                     f"{float(rule[e1]):.4g}, SGD {base:.4g})")
    return "DP-SGD's error with the catalogue's private σ: " + "; ".join(parts) + "."


def _lownoise_finding(summary) -> tuple[bool, str]:
    """Does DP-SGD's error with the paper's noise rule (what the paper ran) fall from the smallest to the largest eps,
    and approach SGD's, for every kappa?"""
    parts, ok = [], True
    for kappa, g in summary.groupby("kappa"):
        dp = g[g.method == "dp-paper-rule"].sort_values("eps")
        base = float(g[g.method == "non-private"]["mean"].iloc[0])
        lo, hi = float(dp["mean"].iloc[0]), float(dp["mean"].iloc[-1])
        good = hi < lo and abs(hi - base) < abs(lo - base)
        ok &= good
        parts.append(f"kappa = {kappa:g}: DP-SGD (paper's noise rule) {lo:.4g} at eps = {dp['eps'].iloc[0]:g} -> {hi:.4g} at eps = "
                     f"{dp['eps'].iloc[-1]:g}, SGD {base:.4g}")
    return ok, "; ".join(parts)
