"""Kang, Li, Liu & Wang (kang-pidp), Section 7 (Experimental Results) as a simulation study.

``run_section7(e, *, reps, seed, quick, progress)``
    the runner of the ``python -m dpviz reproduce kang-pidp-sec7`` target (``kind == "study"`` in
    :mod:`dpviz.studies.experiments`): returns ``{"df", "findings", "figure", "data_note"}``.
``line9_threshold(*, r, eps1, delta1)``, ``line10_threshold(*, r, eps1, delta1)``
    the decision thresholds of Algorithm 1 (lines 9 and 10) on the noisy contribution |[c_t]_i|.
``exact_contributions(loss, X, y, w, *, zeta)``
    the influence-function contributions c_z = H^{-1} grad l(w; z) / n (eq. (11)) of every training example.
``figure(df, *, title=None)``
    the two panels (test accuracy and optimality gap against eps), pure plotly.
``privacy_notes(df)``
    what dpviz certifies about each method (the report's section "What is and is not certified private").

What Section 7 does and what this study runs
--------------------------------------------
The paper trains logistic regression (and a one-hidden-layer MLP) on KDDCup99, Adult and Bank, compares PIDP-SGD
(Algorithm 1, with eps1 = 3 eps2 = 3 eps / 4 and R T_local = T) with DP-SGD's gradient perturbation (Abadi et al.),
output perturbation (Wu et al., bolt-on) and DP-LSSGD, for eps from 0.01 to 3, and reports the test accuracy and
the optimality gap L(theta_priv; D) - L* on the training set.  Its findings: (1) accuracy rises and the gap falls as
eps grows; (2) PIDP-SGD beats the baselines, the more the larger eps, "because more data instances escape the
injected noise"; at small eps the difference is small or PIDP-SGD is worse (a quarter of the budget goes to c_t).

This study runs logistic regression (L2-regularised, lambda = 1e-3, so the PL condition holds with mu = 2 lambda)
on a substitute data set (none of the paper's data sets is bundled and nothing is downloaded at run time): the
synthetic logistic design of Wang, Lei, Ying & Zhou with label noise (``wang-logistic``, d = 10, n = 5000 training
rows, a fresh test sample), and compares, at every eps of the grid:

* PIDP-SGD as dpviz calibrates it (Theorem 5 with the training noise from the RDP accountant at (eps1, delta1) and
  the contribution noise sigma_c from the exact (analytic) Gaussian mechanism at (eps2, delta2), for the
  sensitivity of the released c_t that dpviz's calibration uses);
* PIDP-SGD with the contribution noise sigma_c printed in Theorem 5 (``sigma_rule="printed"``); the legend and the
  report compare it with dpviz's sigma_c (column ``sigma_c_calibrated``).

What is certified.  The column ``private`` is True only where dpviz certifies the whole run (eps, delta)-DP: DP-SGD
(RDP accountant) and output perturbation at the feasible grid points.  It is False for PIDP-SGD under either
sigma_c: Theorem 5's proof counts R releases of c_t while Algorithm 1 draws the contribution noise b^(c) at every
step, and the Hessian H in c_t depends on the whole data set -- neither is covered by the proof, so dpviz does not
claim (eps, delta)-DP for PIDP-SGD (``private_note`` says so; ``calibration_feasible`` says whether dpviz's
calibration of sigma and sigma_c succeeded).  The report lists this in its own section.
* DP-SGD under the PL condition (``dpsgd-pl``, eq. (1)-(2)): the gradient perturbation baseline ([1]);
* output perturbation: dpviz's ``dpsgd-output`` (Wang, Lei, Ying & Zhang, Algorithm 1: SGD, averaged iterate, one
  Gaussian noise), standing in for the bolt-on output perturbation of Wu et al. ([44]) that the paper uses;
* non-private SGD (the reference; the dotted line of the figure).

DP-LSSGD ([39]) is not in dpviz's catalogue and is left out.  The MLP is left out too (dpviz's engine runs the
losses of :mod:`dpviz.engine.losses`).  Section 7 does not give delta, the step size or the radius r of the parameter
space; dpviz uses delta = 1/n^2 (split delta1 = 3 delta/4, delta2 = delta/4 like eps), a step size chosen so that
DP-SGD improves with eps, and projects every method onto the ball of radius R = 10 (which contains the minimiser),
which is also Algorithm 1's r (footnote 5).  The grid starts at eps = 0.05, not 0.01: dpviz's RDP accountant (Rényi orders up to 1024)
cannot certify eps1 = 3 eps/4 below about 0.023 at delta = 1/n^2 = 4e-8.  T is fixed instead of cross-validated (cross-validating T on the
training data would itself cost privacy budget, which the paper does not account for).

The optimality gap is computed here as the paper defines it: the regularised training objective at the released
model minus its minimum L* over the ball (non-private L-BFGS, :func:`dpviz.engine.reference.constrained_minimum`), on all
n training rows.  The test accuracy is 1 - the misclassification rate on the fresh sample.

Why the decision rule never skips the noise here
------------------------------------------------
Line 9 sends z_t to the noisy step if some |[c_t]_i| >= 2 r e^{eps1} delta1 / (e^{eps1} - 1); line 10 skips the noise
only if ln(A / (A - (e^{eps1} - 1)|[c_t]_i|)) <= 2 eps1 for every i, A = 2 r e^{eps1} delta1.  Solving line 10 for
|[c_t]_i| gives |[c_t]_i| <= A (1 - e^{-2 eps1}) / (e^{eps1} - 1) = 2 r delta1 (1 + e^{-eps1}) (below line 9's
threshold), so an instance escapes the noise only if every coordinate of c_t = 2(c + E sign c) + b^(c) is below
2 r delta1 (1 + e^{-eps1}): a number of the order of delta (here ~1e-7) that *decreases* as eps1 grows.  The study
reports this threshold, Theorem 4's E (added to every contribution in line 7), sigma_c, and the fraction of training
examples whose exact contribution (at the non-private minimiser, without contribution noise: the most favourable
case for the paper) would pass lines 9-10.
"""

from __future__ import annotations

import math
from typing import Any, Callable

import numpy as np

from dpviz.foundation import validate as v

__all__ = ["run_section7", "line9_threshold", "line10_threshold", "exact_contributions", "figure", "METHODS",
           "privacy_notes", "PIDP_UNCERTIFIED"]

#: method key -> (engine algorithm id, extra simulate params, legend label)
METHODS: dict[str, tuple[str, dict[str, Any], str]] = {
    "pidp-sgd": ("pidp-sgd", {}, "PIDP-SGD (dpviz's σ and σ_c; not certified (ε, δ)-DP)"),
    "pidp-sgd-printed": ("pidp-sgd", {"sigma_rule": "printed"}, "PIDP-SGD, printed σ_c (not certified (ε, δ)-DP)"),
    "dpsgd-pl": ("dpsgd-pl", {}, "DP-SGD (gradient perturbation)"),
    "dpsgd-output": ("dpsgd-output", {}, "output perturbation (dpviz's dpsgd-output, stands in for [44])"),
    "sgd": ("sgd", {}, "non-private SGD"),
}

#: Why dpviz does not certify PIDP-SGD (Kang, Li, Liu & Wang, Algorithm 1 and the proof of Theorem 5).
PIDP_UNCERTIFIED = ("Algorithm 1 draws the contribution noise b^(c) at every step while the proof of Theorem 5 "
                    "counts R releases of c_t, and the Hessian H in c_t depends on the whole data set; neither is "
                    "covered by the proof")

_DATA_NOTE = ("{dataset} (synthetic logistic design of Wang, Lei, Ying & Zhou, d = {d}, label noise kappa = {kappa:g}, "
              "n = {n} training rows, {n_test} fresh test rows): substitute for Adult / Bank / KDDCup99 "
              "(Kang et al. Section 7; not bundled, no download at run time); logistic loss + {l2:g}||w||^2; "
              "DP-LSSGD and the MLP of Section 7 are not run (not in dpviz)")


def _unit_progress(progress, lo, hi):
    if progress is None:
        return None
    return lambda f: progress(lo + (hi - lo) * min(max(float(f), 0.0), 1.0))


def line9_threshold(*, r, eps1, delta1) -> float:
    r"""Line 9 of Algorithm 1 (Kang, Li, Liu & Wang (kang-pidp)): z_t gets noise if some
    :math:`|[c_t]_i| \ge 2 r e^{\epsilon_1}\delta_1/(e^{\epsilon_1}-1)`.

    Parameters
    ----------
    r : float
        Radius of the bounded parameter space (footnote 5), > 0.
    eps1, delta1 : float
        The training part of the budget (Theorem 5), eps1 > 0, 0 < delta1 < 1.
    """
    r = v.check_positive("r (radius of the parameter space)", r)
    eps1 = v.check_eps(eps1, "eps1")
    delta1 = v.check_delta(delta1, "delta1")
    return 2.0 * r * math.exp(eps1) * delta1 / math.expm1(eps1)


def line10_threshold(*, r, eps1, delta1) -> float:
    r"""The largest |[c_t]_i| that passes line 10 of Algorithm 1 (Kang, Li, Liu & Wang (kang-pidp)).

    Line 10 asks :math:`\ln\big(A/(A-(e^{\epsilon_1}-1)|[c_t]_i|)\big)\le 2\epsilon_1` with
    :math:`A = 2re^{\epsilon_1}\delta_1`, i.e. :math:`|[c_t]_i| \le A(1-e^{-2\epsilon_1})/(e^{\epsilon_1}-1)
    = 2r\delta_1(1+e^{-\epsilon_1})`, which is below line 9's threshold and decreases in eps1.
    """
    r = v.check_positive("r (radius of the parameter space)", r)
    eps1 = v.check_eps(eps1, "eps1")
    delta1 = v.check_delta(delta1, "delta1")
    return 2.0 * r * delta1 * (1.0 + math.exp(-eps1))


def exact_contributions(loss, X, y, w, *, zeta) -> np.ndarray:
    r"""Influence-function contributions :math:`c_z = H^{-1}\nabla\ell(w; z)/n` of every row (Kang, Li, Liu & Wang
    (kang-pidp), eq. (11)), with H the Hessian of the empirical risk at ``w`` regularised as in Remark 5 (H + zeta I
    where its smallest eigenvalue is below zeta) -- the same Hessian as the simulation engine's PIDP-SGD.

    Parameters
    ----------
    loss : loss object of :mod:`dpviz.engine.losses`
    X, y : arrays (n, d), (n,)
        The training data.
    w : array (d,)
        The model at which the contributions are taken.
    zeta : float
        Hessian lower bound (> 0).

    Returns
    -------
    ndarray (n, d)
    """
    from dpviz.engine import simulate as S

    X = np.asarray(X, dtype=float)
    y = np.asarray(y, dtype=float)
    w = np.asarray(w, dtype=float)
    if X.ndim != 2 or y.shape != (X.shape[0],) or w.shape != (X.shape[1],):
        raise ValueError(f"exact_contributions needs X (n, d), y (n,) and w (d,); got shapes {X.shape}, {y.shape}, "
                         f"{w.shape}.")
    if not (np.all(np.isfinite(X)) and np.all(np.isfinite(y)) and np.all(np.isfinite(w))):
        raise ValueError("exact_contributions needs finite X, y and w.")
    zeta = v.check_positive("zeta (Hessian lower bound)", zeta)
    H, _, _ = S._regularised_hessian(S._hessian(loss, w[None], X, y), zeta)
    g = loss.grad(w[None, None], X[None], y[None])[0]  # (n, d) per-example gradients
    return np.linalg.solve(H[0], g.T).T / X.shape[0]


def _escape(c, *, E, r, eps1, delta1) -> np.ndarray:
    """Whether lines 9-10 of Algorithm 1 let each row of contributions ``c`` (n, d) through without noise, with
    c_t = 2(c + E sign c) (line 7 adds E, line 9 doubles; no contribution noise) -- the engine's rule."""
    from dpviz.engine import simulate as S

    ct = np.abs(2.0 * (c + E * np.sign(c)))
    return ~S._pidp_noise_needed(ct, A=2.0 * r * math.exp(eps1) * delta1, ke=math.expm1(eps1), eps1=eps1)


def _settings(e, quick: bool) -> dict[str, Any]:
    f = dict(e.fixed)
    q = dict(f.pop("quick", {}))
    s = {**f, **(q if quick else {})}
    eps = tuple(q.get("eps", e.grid["eps"])) if quick else tuple(e.grid["eps"])
    s["eps"] = eps
    for key in ("n", "n_test", "T", "rounds"):
        s[key] = v.check_int(key, s[key])
    for key in ("eta", "R", "l2"):
        s[key] = v.check_positive(key, s[key])
    s["kappa"] = v.check_nonnegative("kappa", s.get("kappa", 0.0))
    s["data_seed"] = v.check_int("data_seed", s.get("data_seed", 0), minimum=0)
    if len(eps) < 2:
        raise ValueError(f"{e.id}: the eps grid needs at least two values, got {eps}.")
    for x in eps:
        v.check_eps(x)
    if s["T"] % s["rounds"]:
        raise ValueError(f"{e.id}: T = {s['T']} must be a multiple of rounds = {s['rounds']} (R T_local = T).")
    return s


def run_section7(e, *, reps: int, seed: int, quick: bool = False,
                 progress: Callable[[float], None] | None = None) -> dict[str, Any]:
    """Run Kang, Li, Liu & Wang (kang-pidp), Section 7 (Figures 1-2) on a substitute data set (module docstring).

    Parameters
    ----------
    e : dpviz.studies.experiments.Experiment
        The ``kang-pidp-sec7`` definition: ``grid["eps"]``, ``fixed`` (n, n_test, kappa, T, eta, R, l2, rounds,
        data_seed, and ``quick``: the smaller setting for tests), ``dataset``, ``loss``.
    reps : int
        Repetitions per method and eps (>= 2: the standard error needs two).
    seed : int
        Seed of the algorithms' randomness (>= 0); every method runs with the same seed (common random numbers).
    quick : bool
        Run the small setting ``fixed["quick"]`` (a few seconds) instead of the full one.
    progress : callable, optional
        Called with the fraction done, 0..1.

    Returns
    -------
    dict
        ``df`` (one row per method and eps: accuracy and optimality gap with mean, se and 95 % CI, sigma, sigma_c,
        the noisy fraction and line 9/10 thresholds for PIDP-SGD, ``private``), ``findings``, ``figure``,
        ``data_note``.
    """
    import pandas as pd

    from dpviz.engine import reference
    from dpviz.foundation import stats
    from dpviz.engine.data import load_dataset
    from dpviz.engine.losses import get_loss
    from dpviz.engine.simulate import simulate

    if not hasattr(e, "fixed") or not hasattr(e, "grid") or "eps" not in getattr(e, "grid", {}):
        raise ValueError("run_section7 needs the kang-pidp-sec7 Experiment (with an eps grid and fixed settings).")
    reps = v.check_int("reps", reps)
    if reps < 2:
        raise ValueError(f"reps must be at least 2 (a standard error needs two repetitions), got {reps}.")
    seed = v.check_int("seed", seed, minimum=0)
    if not isinstance(quick, (bool, np.bool_)):
        raise ValueError(f"quick must be True or False, got {quick!r}.")
    if progress is not None and not callable(progress):
        raise ValueError("progress must be a function of the fraction done (or None).")
    s = _settings(e, bool(quick))
    eps = list(s["eps"])
    n, R = s["n"], s["R"]
    data = load_dataset(e.dataset, n=n, kappa=s["kappa"], n_test=s["n_test"], seed=s["data_seed"])
    loss = get_loss(e.loss, l2=s["l2"])
    X, y = np.asarray(data.X, float), np.asarray(data.y, float)
    ref = reference.constrained_minimum(loss, X, y, pshape=(data.d,), R=R)
    L_star = float(ref.value)
    base = {"T": s["T"], "eta": s["eta"], "R": R}
    weights = {"sgd": 0.03, "dpsgd-pl": 0.07, "dpsgd-output": 0.05, "pidp-sgd": 0.4, "pidp-sgd-printed": 0.4}
    order = ["sgd", "dpsgd-pl", "dpsgd-output", "pidp-sgd", "pidp-sgd-printed"]
    rows, done, cals = [], 0.0, {}
    for key in order:
        alg, extra, label = METHODS[key]
        params = {**base, **extra}
        if alg == "pidp-sgd":
            params["rounds"] = s["rounds"]
        grid = None if alg == "sgd" else {"eps": eps}
        res = simulate(alg, data, loss, grid=grid, reps=reps, seed=seed, params=params, evaluate=("metric",),
                       progress=_unit_progress(progress, done, done + weights[key]))
        done += weights[key]
        W = np.asarray(res.outputs, float).reshape(-1, reps, data.d)
        fr = res.frame.copy()
        ok = np.all(np.isfinite(W), axis=2).ravel()
        gap = np.full(W.shape[0] * reps, np.nan)
        if ok.any():
            Wf = W.reshape(-1, data.d)[ok]
            gap[ok] = np.mean(loss.value(Wf[:, None, :], X[None], y[None]), axis=1) - L_star
        fr["gap"] = gap
        fr["accuracy"] = 1.0 - fr["metric"]
        fr["_g"] = 0 if grid is None else fr["grid"]
        acc = stats.summarize(fr, "_g", "accuracy").set_index("_g")
        gp = stats.summarize(fr, "_g", "gap").set_index("_g")
        nf = fr.groupby("_g")["noisy_fraction"].mean() if "noisy_fraction" in fr else None
        cals[key] = res.calibrations
        for gi, ev in enumerate(eps):
            g = 0 if grid is None else ev
            cal = res.calibrations[0 if grid is None else gi]
            ex = cal.extras
            sub = fr[fr["_g"] == g]
            ran = bool(np.isfinite(sub["sigma"]).all()) if grid is not None else True
            feasible = bool(sub["feasible"].all()) and ran if alg != "sgd" else False
            if alg == "sgd":
                private, why = False, "non-private reference (no noise)"
            elif alg == "pidp-sgd":
                private = False  # not certified: see the module docstring
                why = (f"not certified (eps, delta)-DP: {PIDP_UNCERTIFIED}; contribution noise: "
                       + ("Theorem 5's printed sigma_c" if key == "pidp-sgd-printed" else "dpviz's calibrated sigma_c")
                       + f"; calibration: {cal.reason or ''}")
            else:
                private = feasible
                why = cal.reason or ""
            row = {
                "method": key, "label": label, "algorithm": alg, "eps": float(ev),
                "n": n, "T": s["T"], "eta": s["eta"], "R": R, "delta": float(sub["delta"].iloc[0])
                if alg != "sgd" else np.nan,
                "accuracy_mean": acc.loc[g, "mean"], "accuracy_se": acc.loc[g, "se"],
                "accuracy_ci_low": acc.loc[g, "ci_low"], "accuracy_ci_high": acc.loc[g, "ci_high"],
                "gap_mean": gp.loc[g, "mean"], "gap_se": gp.loc[g, "se"],
                "gap_ci_low": gp.loc[g, "ci_low"], "gap_ci_high": gp.loc[g, "ci_high"],
                "L_star": L_star, "sigma": float(sub["sigma"].iloc[0]) if alg != "sgd" else 0.0,
                "noise": {"sgd": "none", "dpsgd-output": "once, on the output"}.get(alg, "every step (b ~ N(0, sigma^2 I))"),
                "private": private, "private_note": why, "calibration_feasible": feasible,
            }
            if alg == "pidp-sgd":
                r_ = ex.get("r") or R
                row.update({
                    "eps1": ex["eps1"], "eps2": ex["eps2"], "delta1": ex["delta1"], "delta2": ex["delta2"],
                    "rounds": ex["rounds"], "T_local": ex["T_local"], "zeta": ex["zeta"], "E": ex["E"],
                    "sigma_c": ex["sigma_c"], "sigma_c_private": ex["sigma_c_private"],
                    "sigma_c_calibrated": ex["sigma_c_private"],
                    "sigma_c_printed": ex["sigma_c_paper"], "sigma_c_printed_private": bool(ex["sigma_c_paper_private"]),
                    "noisy_fraction": float(nf.loc[g]),
                    "line9_threshold": line9_threshold(r=r_, eps1=ex["eps1"], delta1=ex["delta1"]),
                    "line10_threshold": line10_threshold(r=r_, eps1=ex["eps1"], delta1=ex["delta1"]),
                })
            rows.append(row)
    # the most favourable case for the paper's decision rule: exact contributions at the non-private minimiser,
    # no contribution noise (b^(c) = 0) -- which fraction of the training examples would escape the noise?
    zeta = float(cals["pidp-sgd"][0].extras["zeta"])
    c = exact_contributions(loss, X, y, ref.w, zeta=zeta)
    cmax = np.max(np.abs(2.0 * c), axis=1)
    for row in rows:
        if row["algorithm"] != "pidp-sgd":
            continue
        esc = _escape(c, E=row["E"], r=R, eps1=row["eps1"], delta1=row["delta1"])
        esc0 = _escape(c, E=0.0, r=R, eps1=row["eps1"], delta1=row["delta1"])
        row["exact_escape_fraction"] = float(esc.mean())
        row["exact_escape_fraction_E0"] = float(esc0.mean())
        row["smallest_contribution_over_threshold"] = float(cmax.min() / row["line10_threshold"])
    if progress is not None:
        progress(0.97)
    df = pd.DataFrame(rows)
    findings = _findings(df)
    privacy = privacy_notes(df)
    note = _DATA_NOTE.format(dataset=e.dataset, d=data.d, kappa=s["kappa"], n=n, n_test=len(data.y_test), l2=s["l2"])
    fig = figure(df)
    if progress is not None:
        progress(1.0)
    return {"df": df, "findings": findings, "figure": fig, "data_note": note, "privacy_notes": privacy}


def _at(df, method, col):
    d = df[df["method"] == method].sort_values("eps")
    return d["eps"].to_numpy(), d[col].to_numpy(dtype=float)


def _fmt_series(eps, vals, f="{:.3f}"):
    return ", ".join(f"ε = {x:g}: " + f.format(y) for x, y in zip(eps, vals))


def _findings(df) -> list[dict[str, Any]]:
    """The claims of Section 7 checked against the numbers of ``df`` (``shown`` computed, never set by hand)."""
    out = []
    # (a) accuracy rises and the optimality gap falls as eps grows, for DP-SGD and PIDP-SGD
    parts, ok_all = [], True
    for m, name in (("dpsgd-pl", "DP-SGD"), ("pidp-sgd", "PIDP-SGD")):
        e, acc = _at(df, m, "accuracy_mean")
        _, gap = _at(df, m, "gap_mean")
        ok = bool(acc[-1] > acc[0] and gap[-1] < gap[0])
        ok_all &= ok
        ups = int(np.sum(np.diff(acc) > 0))
        parts.append(f"{name}: accuracy {_fmt_series(e, acc)} ({ups} of {len(acc) - 1} steps up), optimality gap "
                     f"{_fmt_series(e, gap, '{:.4f}')} — {'rises / falls' if ok else 'does NOT rise / fall'} from "
                     f"ε = {e[0]:g} to ε = {e[-1]:g}")
    out.append({"claim": "(1) accuracy rises and the optimality gap falls as ε grows (DP-SGD and PIDP-SGD)",
                "shown": ok_all, "numbers": "; ".join(parts)})
    # (b) PIDP-SGD beats DP-SGD, the more the larger eps -- under the private calibration and the printed sigma_c
    e, acc_dp = _at(df, "dpsgd-pl", "accuracy_mean")
    _, gap_dp = _at(df, "dpsgd-pl", "gap_mean")
    _, sig_dp = _at(df, "dpsgd-pl", "sigma")
    for m, what in (("pidp-sgd", "with dpviz's calibration"), ("pidp-sgd-printed", "with the printed σ_c")):
        _, acc = _at(df, m, "accuracy_mean")
        _, gap = _at(df, m, "gap_mean")
        _, nf = _at(df, m, "noisy_fraction")
        _, sig = _at(df, m, "sigma")
        _, sc = _at(df, m, "sigma_c")
        priv = bool(df[df["method"] == m]["private"].all())  # False for PIDP-SGD (not certified)
        adv = acc - acc_dp
        shown = bool(adv[-1] > 0 and adv[-1] > adv[0])
        txt = (f"accuracy PIDP-SGD − DP-SGD {_fmt_series(e, adv, '{:+.3f}')}; optimality gap PIDP-SGD − DP-SGD "
               f"{_fmt_series(e, gap - gap_dp, '{:+.4f}')}; noisy fraction {_fmt_series(e, nf)}; σ_c "
               f"{_fmt_series(e, sc, '{:.3g}')}")
        if np.all(nf >= 1.0):
            txt += (f". Every step got the training noise at every ε, so PIDP-SGD ran as DP-SGD at ε1 = 3ε/4 with "
                    f"σ/σ_DP-SGD = {_fmt_series(e, sig / sig_dp, '{:.2f}')} (a quarter of the budget paid for c_t)")
        _, sc_cal = _at(df, m, "sigma_c_calibrated")
        txt += (f"; σ_c / dpviz's calibrated σ_c {_fmt_series(e, sc / sc_cal, '{:.3g}')}. "
                + ("dpviz certifies this run (ε, δ)-DP" if priv else
                   "dpviz does not certify this run as (ε, δ)-DP (see 'What is and is not certified private')"))
        out.append({"claim": f"(2) PIDP-SGD beats DP-SGD, the more the larger ε ({what})", "shown": shown,
                    "numbers": txt})
    # (c) the paper's explanation: more data instances escape the noise as eps grows
    d = df[df["method"] == "pidp-sgd"].sort_values("eps")
    esc = d["exact_escape_fraction"].to_numpy(float)
    esc0 = d["exact_escape_fraction_E0"].to_numpy(float)
    nf = d["noisy_fraction"].to_numpy(float)
    thr = d["line10_threshold"].to_numpy(float)
    E = float(d["E"].iloc[0])
    grows = bool(esc[-1] > esc[0] or nf[-1] < nf[0])
    thr_falls = bool(thr[-1] < thr[0])
    out.append({
        "claim": "(2') the paper's reason: more data instances escape the noise as ε grows (Algorithm 1, lines 9-10)",
        "shown": grows,
        "numbers": (f"line 10 lets z_t skip the noise only if every |[c_t]_i| <= 2 r δ1 (1 + e^(−ε1)): "
                    f"{_fmt_series(e, thr, '{:.3g}')} — it {'falls' if thr_falls else 'does not fall'} as ε grows; "
                    f"Theorem 4's E = {E:.3g} is added to every contribution (line 7); the smallest max_i |2 c_i| over "
                    f"the training examples at the non-private minimiser is "
                    f"{float(d['smallest_contribution_over_threshold'].iloc[-1]):.3g} times the threshold at "
                    f"ε = {e[-1]:g}; fraction of examples whose exact contribution (no contribution noise, the most "
                    f"favourable case) escapes: {_fmt_series(e, esc)} (with E = 0: {_fmt_series(e, esc0)}); "
                    f"simulated noisy fraction {_fmt_series(e, nf)}")})
    # (b'') at small eps the difference is small or PIDP-SGD is worse (a quarter of the budget goes to c_t)
    _, acc_p = _at(df, "pidp-sgd", "accuracy_mean")
    adv = acc_p - acc_dp
    small = bool(adv[0] <= 0 or abs(adv[0]) <= abs(adv[-1]))
    out.append({
        "claim": "(3) at small ε the difference is small or PIDP-SGD is worse (a quarter of the budget goes to c_t)",
        "shown": small,
        "numbers": (f"accuracy PIDP-SGD − DP-SGD at ε = {e[0]:g}: {adv[0]:+.3f}, at ε = {e[-1]:g}: {adv[-1]:+.3f} "
                    f"(dpviz's calibration); PIDP-SGD is "
                    f"{'worse' if adv[0] <= 0 else 'better'} at the smallest ε and its difference to DP-SGD "
                    f"{'shrinks' if abs(adv[-1]) < abs(adv[0]) else 'does not shrink'} in size towards the largest ε")})
    return out


def privacy_notes(df) -> list[str]:
    """What dpviz certifies about each method of the study, one sentence per method, from the columns ``private``,
    ``calibration_feasible``, ``sigma``, ``sigma_c``, ``sigma_c_calibrated``, ``eps1`` / ``eps2`` of ``df``."""
    out = []
    for m in ("dpsgd-pl", "dpsgd-output"):
        d = df[df["method"] == m].sort_values("eps")
        if d.empty:
            continue
        ok = d[d["private"].astype(bool)]["eps"].tolist()
        name = "DP-SGD (gradient perturbation)" if m == "dpsgd-pl" else "output perturbation"
        out.append(f"{name}: certified (ε, δ)-DP by dpviz's calibration at {len(ok)} of the {len(d)} grid values"
                   + (f" (ε = {', '.join(f'{x:g}' for x in ok)})" if ok else ""))
    for m, which in (("pidp-sgd", "dpviz's calibrated σ_c"), ("pidp-sgd-printed", "Theorem 5's printed σ_c")):
        d = df[df["method"] == m].sort_values("eps")
        if d.empty:
            continue
        e = d["eps"].to_numpy(float)
        feas = d["calibration_feasible"].astype(bool).to_numpy() if "calibration_feasible" in d else []
        txt = (f"PIDP-SGD with {which}: NOT certified (ε, δ)-DP at any ε — {PIDP_UNCERTIFIED}. Its training noise "
               f"σ {_fmt_series(e, d['sigma'].to_numpy(float), '{:.3g}')} is calibrated at ε1 = 3ε/4 "
               f"({_fmt_series(e, d['eps1'].to_numpy(float), '{:.3g}')}) and its σ_c "
               f"{_fmt_series(e, d['sigma_c'].to_numpy(float), '{:.3g}')} against dpviz's calibrated σ_c "
               f"{_fmt_series(e, d['sigma_c_calibrated'].to_numpy(float), '{:.3g}')} at ε2 = ε/4")
        if m == "pidp-sgd-printed":
            ge = d["sigma_c"].to_numpy(float) >= d["sigma_c_calibrated"].to_numpy(float) * (1 - 1e-9)
            txt += f"; the printed σ_c is at least dpviz's calibrated σ_c at {int(np.sum(ge))} of {len(d)} grid values"
        else:
            txt += f"; dpviz's calibration of σ and σ_c succeeded at {int(np.sum(feas))} of {len(d)} grid values"
        out.append(txt)
    if "sgd" in set(df["method"]):
        out.append("non-private SGD: no noise, not private (the reference)")
    return out


def _ticks(eps):
    return dict(tickmode="array", tickvals=list(eps), ticktext=[f"{x:g}" for x in eps])


_STYLE = {
    "pidp-sgd": dict(color="#d62728", dash="solid", symbol="circle"),
    "pidp-sgd-printed": dict(color="#ff9896", dash="dash", symbol="circle-open"),
    "dpsgd-pl": dict(color="#1f77b4", dash="solid", symbol="square"),
    "dpsgd-output": dict(color="#2ca02c", dash="solid", symbol="diamond"),
    "sgd": dict(color="#555555", dash="dot", symbol=None),
}


def figure(df, *, title: str | None = None):
    """Test accuracy (left) and optimality gap L(θ_priv; D) − L* (right, log scale) against ε (log scale, plain
    decimal ticks), mean with 95 % CI bars per method; non-private SGD dotted, the printed-σ_c PIDP-SGD dashed
    (Kang, Li, Liu & Wang (kang-pidp), Section 7, Figures 1-2).  Pure plotly: returns a ``plotly`` Figure.
    """
    import plotly.graph_objects as go
    from plotly.subplots import make_subplots

    need = {"method", "label", "eps", "accuracy_mean", "accuracy_ci_low", "accuracy_ci_high", "gap_mean",
            "gap_ci_low", "gap_ci_high", "private"}
    missing = sorted(need - set(getattr(df, "columns", [])))
    if missing:
        raise ValueError(f"figure needs the study's table; missing column(s): {', '.join(missing)}.")
    fig = make_subplots(rows=1, cols=2, subplot_titles=("test accuracy", "optimality gap L(θ_priv; D) − L*"))
    eps = sorted(df["eps"].unique())
    for m in [k for k in METHODS if k in set(df["method"])]:
        d = df[df["method"] == m].sort_values("eps")
        st = _STYLE.get(m, dict(color=None, dash="solid", symbol="circle"))
        label = str(d["label"].iloc[0])
        if m == "pidp-sgd-printed" and {"sigma_c", "sigma_c_calibrated"} <= set(d.columns):
            low = bool((d["sigma_c"] < d["sigma_c_calibrated"] * (1 - 1e-12)).any())
            label += "; σ_c below dpviz's calibration" if low else "; σ_c ≥ dpviz's calibration"
        for col, (mean, lo, hi) in enumerate((("accuracy_mean", "accuracy_ci_low", "accuracy_ci_high"),
                                              ("gap_mean", "gap_ci_low", "gap_ci_high")), start=1):
            y = d[mean].to_numpy(float)
            if m == "sgd":
                fig.add_trace(go.Scatter(x=[eps[0], eps[-1]], y=[y[0], y[0]], mode="lines", name=label,
                                         legendgroup=m, showlegend=col == 1,
                                         line=dict(color=st["color"], dash="dot")), row=1, col=col)
                continue
            ylo, yhi = d[lo].to_numpy(float), d[hi].to_numpy(float)
            if col == 2:  # log axis: keep the lower bar above 0
                ylo = np.where(ylo > 0, ylo, y * 0.5)
            fig.add_trace(go.Scatter(
                x=d["eps"], y=y, mode="lines+markers", name=label, legendgroup=m, showlegend=col == 1,
                line=dict(color=st["color"], dash=st["dash"]), marker=dict(symbol=st["symbol"]),
                error_y=dict(type="data", symmetric=False, array=yhi - y, arrayminus=y - ylo)), row=1, col=col)
    for col in (1, 2):
        fig.update_xaxes(type="log", title="ε", exponentformat="none", **_ticks(eps), row=1, col=col)
    fig.update_yaxes(title="accuracy", row=1, col=1)
    fig.update_yaxes(title="L(θ_priv; D) − L*", type="log", exponentformat="none", row=1, col=2)
    fig.update_layout(template="plotly_white", legend=dict(orientation="h", y=-0.2),
                      title=title or "Kang, Li, Liu & Wang (kang-pidp), Section 7: accuracy and optimality gap vs ε")
    return fig
