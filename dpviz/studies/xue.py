"""Xue, Yang, Huai & Wang (xue-pairwise), Section 5: the AUC-maximisation and metric-learning experiments, as
``python -m dpviz reproduce`` studies.

Public API
----------
``METHODS``
    method id -> ``{"label", "algorithm", "convexity", "private"}`` of the five methods a study compares.
``run_auc(experiment, *, reps, seed, quick=False, progress=None) -> dict``
    the runner of the ``kind="study"`` entries ``xue-pairwise-auc`` (test AUC vs n at eps = 0.8, Figures 1-2) and
    ``xue-pairwise-auc-eps`` (test AUC vs eps at n = 256, Table 4) of :data:`dpviz.studies.experiments.EXPERIMENTS`.
``run_metric(experiment, *, reps, seed, quick=False, progress=None) -> dict``
    the runner of ``xue-pairwise-metric`` (metric learning, KNN accuracy with K = 3 vs n at eps = 1, Table 2) and
    ``xue-pairwise-metric-eps`` (vs eps at n = 128, Table 3: its caption says n = 128, the text n = 512).
``run_study(...)``
    what both call; returns ``{"df", "findings", "figure", "data_note"}`` as :func:`dpviz.studies.experiments.run` expects.
``knn_accuracy(W, X, y, X_test, y_test, *, k=3) -> ndarray``
    test accuracy of k-NN under each learned metric (x - x')^T W (x - x').
``study_findings(df, x, what) -> list[dict]``, ``study_figure(df, x, what) -> plotly Figure``
    the claimed findings checked on a summary table (one row per method and grid point), and its figure: the score
    against n (or eps), one line per method with 95 % CI error bars, non-private lines dotted (``auc_findings`` /
    ``auc_figure``: the same with the test AUC).

What is run (Xue, Yang, Huai & Wang (xue-pairwise), Section 5, "Experimental settings", "Metric Learning", "AUC
Maximization")
----------------------------------------------------------------------------------------------------------------
AUC logistic loss phi((y - y') <w, x - x'>) (Example 2) over the unit ball ||w|| <= 1, or the metric-learning
logistic loss phi(y y' (1 - (x - x')^T W (x - x'))) (Example 1) over {W PSD, ||W||_F <= 1} (R = 1); delta = 1/n
("Baseline methods") with Gaussian noise, and, with ``fixed["delta0"]``, delta = 0 with Laplace noise (the
epsilon-DP rows of Tables 2-4 and panels (b) of Figures 1-2):

* strongly convex: the loss plus lambda ||w||^2, lambda = 1e-3 (AUC) or 1e-2 (metric learning), mu = 2 lambda;
  **DPGDSC** (Algorithm 1) with eta = 2/(L + mu) (the largest step Lemma 1 allows) and sigma = 8 sqrt(2
  ln(1.25/delta)) G/(mu n eps) as printed; its non-private baseline is the same projected GD without the output
  noise.  Algorithm 1's iterates are a deterministic function of the data (full gradients from w_0 = 0), so w_T is
  computed once per n with the engine and each repetition adds its own N(0, sigma^2 I) -- the same output
  distribution as separate runs.  T is capped (entry ``fixed["sc_T_cap"]`` = 200): Theorem 1's T = ceil(2 (L/mu)
  ln n) is 16 644 .. 22 192 steps for AUC (about 150 s per run at n = 256) and 1 394 .. 1 951 for metric learning,
  while on this data the iterate reaches the boundary of the domain within about 30-100 steps and then stays: test
  AUC 0.79986 at T = 100 and 0.80009 at T = 300, 1000 and 3000 (n = 256); KNN accuracy 0.6992 from T = 100 to 800
  (n = 128) (measured once); the CSV gives the T used and the theorem's T.
* general convex: the plain loss; **DPGDC2** (Algorithm 2; Theorem 2's T = min{n, n^2 eps^2/(d log(1/delta))} and
  eta = ||C||/(G sqrt(T))) and **DPEGD** (Algorithm 3; Theorem 3's eta, eta_i = 4^-i eta, n_i = n/2^i, the epoch
  average over w_0..w_{n_i} of the proof); their non-private baseline is DPGDC2's projected GD (same T and eta)
  without noise.  d is the number of parameters (10 for AUC, 100 for the 10 x 10 metric).
* delta = 0 (Algorithms 1 and 3, lines 5-6; Algorithm 2 has no delta = 0 version): **DPGDSC, delta = 0** releases
  the same w_T plus coordinate-wise Lap(lambda), lambda = 8 G sqrt(d)/(mu n eps); **DPEGD, delta = 0** uses Theorem
  3's eta = (||C||/G) min{4/sqrt(n), eps/d} and per-epoch Lap(4 G eta_i sqrt(d)/eps).  The CSV column ``noise`` says
  "gaussian" or "laplace"; for Laplace rows ``sigma`` is the Laplace scale.
* sigma: the paper's printed formulas (``fixed["sigma_rule"] = "printed"``); the CSV column ``private_check`` says
  whether dpviz's exact Gaussian check confirms (eps, delta)-DP for that sigma, ``sigma_paper`` repeats the printed
  value (for DPEGD the first epoch's, sigma_1; ``sigma_last`` is the last epoch's).
* scores: the test AUC (Zhao et al.'s AUC of the scores <w, x>) or the accuracy of the 3-NN classifier under the
  released metric, with the n training rows as neighbours (:func:`knn_accuracy`: a released W, which output noise
  makes indefinite, is replaced by its PSD part -- post-processing, so still private).
* the repetitions differ in the algorithm's noise only; the training sample is the first n rows of the fixed
  training split and the scores are measured on the held-out split.

The report's section on the paper (:func:`paper_notes`, every sentence generated from the numbers it states):
Table 3's Diabetic Retinopathy columns for eps = 1, 1.5, 2 repeat its Diabetes columns (:func:`table3_repeats` on
the transcription :data:`PAPER_TABLE3`); Table 3's caption says n = 128, the text n = 512; and, for the AUC studies,
the largest mean AUC a certified calibration of DPGDSC's output noise can give (:func:`dpgdsc_auc_ceiling`) against
the AUC Table 4 reports (:data:`PAPER_TABLE4_DIABETES`).

Not run: OffPairStrC and OffPairC (Huai et al., 2020), the paper's private baselines -- they are not among dpviz's
papers and the Xue et al. paper does not describe them in enough detail to implement; and the Diabetic Retinopathy
experiments (Figures 3-4, the right half of Tables 2-4).  The paper's non-private baselines are noise-free
variants of OffPairStrC / OffPairC; here they are the noise-free variants of Algorithms 1 and 2 (labelled so).

Data: the paper's Diabetes data set is replaced by scikit-learn's diabetes data with labels "progression above the
median" (``diabetes-binary``, 309 training rows: the paper's n = 512 does not fit, so the AUC n grid is 64, 128,
256; metric learning, whose full gradient costs 100 n(n - 1) coordinates, runs n = 32, 64, 128).  The paper's
Diabetic Retinopathy data set is not substituted (one data set per study keeps the default run near a minute;
``breast-cancer`` could stand in for it).
"""

from __future__ import annotations

import math
from typing import Any, Callable

import numpy as np

from dpviz.foundation import validate as v

__all__ = ["METHODS", "run_auc", "run_metric", "run_study", "knn_accuracy", "study_findings", "study_figure",
           "auc_findings", "auc_figure", "paper_notes", "table3_repeats", "dpgdsc_auc_ceiling", "PAPER_TABLE3",
           "PAPER_TABLE4_DIABETES"]

#: The methods of the studies, in plotting order (Xue, Yang, Huai & Wang (xue-pairwise), Section 5, rows of Tables 2-4).
METHODS: dict[str, dict[str, Any]] = {
    "non-private-sc": {"label": "non-private, strongly convex (Alg. 1 without noise)", "algorithm": "dpgd-sc",
                       "convexity": "strongly convex", "private": False},
    "dpgdsc": {"label": "DPGDSC (Alg. 1)", "algorithm": "dpgd-sc", "convexity": "strongly convex", "private": True},
    "non-private-c": {"label": "non-private, convex (Alg. 2 without noise)", "algorithm": "dpgd-c",
                      "convexity": "convex", "private": False},
    "dpgdc2": {"label": "DPGDC2 (Alg. 2)", "algorithm": "dpgd-c", "convexity": "convex", "private": True},
    "dpegd": {"label": "DPEGD (Alg. 3)", "algorithm": "dp-epoch-gd", "convexity": "convex", "private": True},
    "dpgdsc-lap": {"label": "DPGDSC, δ = 0 (Alg. 1, Laplace)", "algorithm": "dpgd-sc", "convexity": "strongly convex",
                   "private": True},
    "dpegd-lap": {"label": "DPEGD, δ = 0 (Alg. 3, Laplace)", "algorithm": "dp-epoch-gd", "convexity": "convex",
                  "private": True},
}
_BASELINE = {"strongly convex": "non-private-sc", "convex": "non-private-c"}
_COLOURS = {"non-private-sc": "#1f77b4", "dpgdsc": "#1f77b4", "dpgdsc-lap": "#1f77b4", "non-private-c": "#555555",
            "dpgdc2": "#d62728", "dpegd": "#2ca02c", "dpegd-lap": "#2ca02c"}
_Z95 = 1.959963984540054
_TASKS = {"auc-logistic": "auc", "metric-logistic": "metric"}
_WHAT = {"auc": "test AUC", "metric": "KNN accuracy (K = 3)"}


#: Xue, Yang, Huai & Wang (xue-pairwise), Section 5, Table 3 (metric learning, KNN accuracy in %, vs eps; caption:
#: n = 128, text: n = 512), transcribed: (model, data set, algorithm) -> values at eps = 0.2, 0.5, 0.8, 1.0, 1.5, 2.0.
#: "sc"/"c": strongly convex / convex; "delta>0" / "delta=0".
PAPER_TABLE3_EPS = (0.2, 0.5, 0.8, 1.0, 1.5, 2.0)
PAPER_TABLE3: dict[tuple[str, str, str], tuple[float, ...]] = {
    ("sc, delta>0", "Diabetes", "OffPairStrC"): (63.49, 63.50, 63.93, 63.44, 63.53, 64.26),
    ("sc, delta>0", "Diabetes", "DPGDSC"): (64.18, 64.92, 65.72, 63.91, 64.01, 64.29),
    ("sc, delta>0", "Diabetic Retinopathy", "OffPairStrC"): (60.30, 60.40, 60.47, 63.44, 63.53, 64.26),
    ("sc, delta>0", "Diabetic Retinopathy", "DPGDSC"): (60.63, 61.81, 62.57, 63.91, 64.01, 64.29),
    ("c, delta>0", "Diabetes", "OffPairC"): (63.59, 63.63, 63.97, 63.71, 63.96, 65.07),
    ("c, delta>0", "Diabetes", "DPGDC2"): (71.72, 70.61, 72.11, 71.05, 70.83, 71.36),
    ("c, delta>0", "Diabetes", "DPEGD"): (71.46, 71.49, 71.66, 71.32, 71.50, 71.45),
    ("c, delta>0", "Diabetic Retinopathy", "OffPairC"): (60.21, 60.29, 60.71, 63.71, 63.96, 65.07),
    ("c, delta>0", "Diabetic Retinopathy", "DPGDC2"): (61.27, 61.79, 60.87, 71.05, 70.83, 71.36),
    ("c, delta>0", "Diabetic Retinopathy", "DPEGD"): (62.58, 62.84, 62.89, 71.32, 71.50, 71.45),
    ("sc, delta=0", "Diabetes", "OffPairStrC"): (64.28, 64.49, 64.53, 64.38, 64.40, 64.84),
    ("sc, delta=0", "Diabetes", "DPGDSC"): (64.45, 64.84, 64.84, 64.63, 64.79, 64.81),
    ("sc, delta=0", "Diabetic Retinopathy", "OffPairStrC"): (59.54, 59.57, 59.60, 64.38, 64.40, 64.84),
    ("sc, delta=0", "Diabetic Retinopathy", "DPGDSC"): (59.60, 59.70, 59.50, 64.63, 64.79, 64.81),
    ("c, delta=0", "Diabetes", "OffPairC"): (64.34, 64.38, 64.49, 64.09, 64.29, 64.30),
    ("c, delta=0", "Diabetes", "DPEGD"): (70.28, 70.49, 70.51, 70.48, 70.59, 70.82),
    ("c, delta=0", "Diabetic Retinopathy", "OffPairC"): (59.54, 59.59, 59.80, 64.09, 64.29, 64.30),
    ("c, delta=0", "Diabetic Retinopathy", "DPEGD"): (62.87, 62.84, 62.87, 70.48, 70.59, 70.82),
}
#: Table 4 (AUC maximisation, test AUC in %, n = 256), the Diabetes rows of the methods run here, transcribed:
#: method id of :data:`METHODS` -> {eps: value} at eps = 0.5, 0.8, 1.0, 2.0.
PAPER_TABLE4_DIABETES: dict[str, dict[float, float]] = {
    "dpgdsc": {0.5: 63.26, 0.8: 63.92, 1.0: 64.46, 2.0: 65.51},
    "dpgdc2": {0.5: 52.94, 0.8: 53.09, 1.0: 54.61, 2.0: 59.96},
    "dpegd": {0.5: 64.52, 0.8: 64.47, 1.0: 64.41, 2.0: 64.37},
    "dpgdsc-lap": {0.5: 59.16, 0.8: 62.98, 1.0: 62.67, 2.0: 64.63},
    "dpegd-lap": {0.5: 59.16, 0.8: 64.35, 1.0: 64.50, 2.0: 64.47},
}
PAPER_TABLE4_N = 256
#: The n of Table 3 in the text (Section 5, Metric Learning); the caption says 128.
PAPER_TABLE3_N_TEXT = 512


def table3_repeats() -> list[dict[str, Any]]:
    """The columns of Table 3 (:data:`PAPER_TABLE3`) where every Diabetic Retinopathy row repeats the Diabetes row
    of the same model and algorithm: ``[{"eps", "rows", "values"}]`` (computed from the transcription)."""
    out = []
    for j, eps in enumerate(PAPER_TABLE3_EPS):
        pairs = [(k, PAPER_TABLE3[k][j], PAPER_TABLE3[(k[0], "Diabetes", k[2])][j])
                 for k in PAPER_TABLE3 if k[1] == "Diabetic Retinopathy"]
        if all(a == b for _, a, b in pairs):
            out.append({"eps": eps, "rows": len(pairs), "values": [a for _, a, _ in pairs]})
    return out


def dpgdsc_auc_ceiling(*, n, eps, delta, G, mu, R, d, laplace=False, diameter=True) -> dict[str, float]:
    r"""The largest mean test AUC that a certified calibration of DPGDSC's output noise can give (Xue, Yang, Huai &
    Wang (xue-pairwise), Algorithm 1, lines 4-5), whatever the data.

    The released model is w_T + b with ||w_T|| <= R (the domain) and b symmetric noise.  The sensitivity bounds
    available for w_T are Lemma 1's 8G/(mu n) and the domain's diameter 2R, so a certified Gaussian calibration has
    sigma >= sigma_min = Delta / mu_GDP(eps, delta) with Delta = min{8G/(mu n), 2R} (the exact Gaussian mechanism,
    Balle & Wang 2018; mu_GDP is the largest mu with delta(eps; mu) <= delta, :func:`dpviz.theory.papers.xue_pairwise.
    gaussian_mu_for`), and a certified Laplace one (delta = 0) lambda >= lambda_min = sqrt(d) Delta / eps (the l1
    bound of an l2 sensitivity).  ``diameter=False`` uses Lemma 1's bound alone (Delta = 8G/(mu n): every
    calibration of the paper's own analysis).  The AUC of the scores <b, x> has mean exactly 1/2 (b and -b are equally likely and
    AUC(-w) = 1 - AUC(w)), and shifting the noise by w_T changes the mean of a [0, 1]-valued function by at most the
    total-variation distance of the two noise laws: 2 Phi(||w_T||/(2 sigma)) - 1 <= 2 Phi(R/(2 sigma_min)) - 1
    (Gaussian); sum_i (1 - exp(-|w_i|/(2 lambda))) <= ||w_T||_1/(2 lambda) <= sqrt(d) R/(2 lambda_min) (Laplace).

    Returns
    -------
    dict
        ``sensitivity`` (Delta), ``noise_min`` (sigma_min or lambda_min), ``tv`` (the total-variation bound, at most
        1/2 is used) and ``ceiling`` = 1/2 + tv.
    """
    from dpviz.theory.papers import xue_pairwise as xp

    n = v.check_n(n)
    eps = v.check_eps(eps)
    G, mu, R = (v.check_positive(k, val) for k, val in (("G", G), ("mu", mu), ("R", R)))
    d = v.check_int("d", d)
    sens = min(8.0 * G / (mu * n), 2.0 * R) if diameter else 8.0 * G / (mu * n)
    if laplace:
        lam = math.sqrt(d) * sens / eps
        tv = min(0.5, math.sqrt(d) * R / (2.0 * lam))
        return {"sensitivity": sens, "noise_min": lam, "tv": tv, "ceiling": 0.5 + tv}
    delta = v.check_delta(delta)
    sigma = sens / xp.gaussian_mu_for(eps=eps, delta=delta)
    tv = min(0.5, math.erf(R / (2.0 * sigma) / math.sqrt(2.0)))  # 2 Phi(t) - 1 = erf(t / sqrt 2)
    return {"sensitivity": sens, "noise_min": sigma, "tv": tv, "ceiling": 0.5 + tv}


def paper_notes(df, x: str, task: str, *, n_text: int | None = None, G: float | None = None,
                mu: float | None = None) -> list[str]:
    """Sentences on the paper's reported numbers and its own inconsistencies that bear on this study, each generated
    from the numbers it states (:data:`PAPER_TABLE3`, :data:`PAPER_TABLE4_DIABETES`, ``df``; ``G`` and ``mu`` of the
    strongly convex loss for the AUC ceiling of :func:`dpgdsc_auc_ceiling`)."""
    out: list[str] = []
    if task == "metric" and x == "eps":
        reps = table3_repeats()
        if reps:
            eps_s = ", ".join(f"{r['eps']:g}" for r in reps)
            ex = PAPER_TABLE3[("sc, delta>0", "Diabetes", "DPGDSC")]
            ex_s = ", ".join(f"{ex[PAPER_TABLE3_EPS.index(r['eps'])]:.2f} %" for r in reps)
            out.append(f"Table 3's Diabetic Retinopathy columns for eps = {eps_s} repeat its Diabetes columns: all "
                       f"{reps[0]['rows']} rows (every model and algorithm) are equal there (e.g. DPGDSC, delta > 0: "
                       f"{ex_s} in both), so those Diabetic Retinopathy entries are not results of their own.")
        if n_text is not None:
            n_run = int(df["n"].iloc[0])
            out.append(f"Table 3's caption says n = 128 while the text (Section 5, Metric Learning) says n = {n_text}; "
                       f"this study runs n = {n_run}.")
    if task == "auc" and G is not None and mu is not None:
        for m, lap in (("dpgdsc", False), ("dpgdsc-lap", True)):
            rows = df[df["method"] == m].sort_values(x)
            if rows.empty:
                continue
            parts, below, below_lemma = [], [], []
            for _, r in rows.iterrows():
                n, eps = int(r["n"]), float(r["eps"])
                rep = PAPER_TABLE4_DIABETES[m].get(eps) if n == PAPER_TABLE4_N else None
                kw = dict(n=n, eps=eps, delta=None if lap else float(r["delta"]), G=G, mu=mu, R=float(r["R"]),
                          d=int(r["d"]), laplace=lap)
                c1, c = dpgdsc_auc_ceiling(**kw, diameter=False), dpgdsc_auc_ceiling(**kw)
                noise = "lambda" if lap else "sigma"
                txt = (f"{x} = {float(r[x]):g}: ceiling {c1['ceiling']:.4f} with Lemma 1's Delta = "
                       f"{c1['sensitivity']:.3g} (smallest certified {noise} {c1['noise_min']:.3g}), "
                       f"{c['ceiling']:.4f} with Delta = {c['sensitivity']:.3g} ({noise} {c['noise_min']:.3g})")
                if rep is not None:
                    txt += f"; the paper reports {rep:.2f} % (Table 4, Diabetes)"
                    if c1["ceiling"] < rep / 100:
                        below_lemma.append(float(r[x]))
                    if c["ceiling"] < rep / 100:
                        below.append(float(r[x]))
                txt += (f"; this study at the printed noise (mean ± standard error over its repetitions): "
                        f"{float(r['mean']):.3f} ± {float(r['se']):.3f}")
                parts.append(txt)
            head = (f"{METHODS[m]['label']}: the largest mean test AUC that a certified calibration of its output "
                    f"noise can give at these settings (R = {float(rows['R'].iloc[0]):g}, G = {G:.4g}, mu = {mu:g}, "
                    "for any data with these constants; dpviz.studies.xue.dpgdsc_auc_ceiling: 1/2 + the total-variation shift of "
                    "the noise by w_T, with the sensitivity of Lemma 1, 8G/(mu n), or min{8G/(mu n), 2R})")
            if below_lemma:
                head += (f" is below the AUC the paper reports at {x} = {', '.join(f'{b:g}' for b in below_lemma)} "
                         f"(n = {PAPER_TABLE4_N}) with Lemma 1's sensitivity: no calibration of the paper's analysis "
                         "reaches the reported AUC there")
                if below:
                    head += (f"; with the diameter bound too, none reaches it at {x} = "
                             f"{', '.join(f'{b:g}' for b in below)}")
            out.append(head + " — " + "; ".join(parts))
        cmp = []
        for m in ("dpgdc2", "dpegd", "dpegd-lap"):
            rows = df[(df["method"] == m) & (df["n"] == PAPER_TABLE4_N)].sort_values(x)
            for _, r in rows.iterrows():
                rep = PAPER_TABLE4_DIABETES[m].get(float(r["eps"]))
                if rep is not None:
                    cmp.append(f"{METHODS[m]['label']} at eps = {float(r['eps']):g}: paper {rep:.2f} %, here "
                               f"{float(r['mean']):.3f} ± {float(r['se']):.3f}")
        if cmp:
            out.append(f"Table 4 (the paper's Diabetes data, n = {PAPER_TABLE4_N}) against this study (the substitute "
                       "data, so not the same numbers to expect): " + "; ".join(cmp))
    return out


def _seed(seed: int, *keys: int) -> int:
    """A seed for the engine, derived from the study's seed and the (method, grid point) keys."""
    return int(np.random.SeedSequence([seed, *keys]).generate_state(1, np.uint64)[0] >> np.uint64(1))


def _summary_row(method: str, values, **extra) -> dict[str, Any]:
    vals = np.asarray(values, dtype=float)
    vals = vals[np.isfinite(vals)]
    m = float(vals.mean()) if vals.size else float("nan")
    se = float(vals.std(ddof=1) / math.sqrt(vals.size)) if vals.size > 1 else 0.0
    spec = METHODS[method]
    noise = "none" if not spec["private"] else ("laplace" if method.endswith("-lap") else "gaussian")
    return {"method": method, "label": spec["label"], "algorithm": spec["algorithm"], "convexity": spec["convexity"],
            "private": spec["private"], "noise": noise, "mean": m, "se": se, "ci_low": m - _Z95 * se,
            "ci_high": m + _Z95 * se, "runs": int(vals.size), **extra}


def _check_experiment(e) -> tuple[str, tuple[float, ...], dict[str, Any]]:
    x = getattr(e, "x", None)
    if x not in ("n", "eps"):
        raise ValueError(f"a study of Xue et al. sweeps n or eps, not {x!r}.")
    grid = tuple(getattr(e, "grid", {}).get(x, ()))
    if len(grid) < 2:
        raise ValueError(f"the study needs at least two values of {x} in its grid, got {grid}.")
    f = dict(getattr(e, "fixed", {}))
    for key in ("R", "l2", "sc_T_cap", "sigma_rule", "delta0", "quick_grid", "quick_fixed"):
        if key not in f:
            raise ValueError(f"the study's fixed settings lack {key!r}.")
    return x, grid, f


def knn_accuracy(W, X, y, X_test, y_test, *, k: int = 3) -> np.ndarray:
    """Test accuracy of the k-nearest-neighbour classifier under each learned metric, Xue, Yang, Huai & Wang
    (xue-pairwise), Section 5 ("Performance measures": KNN with K = 3).

    Each W (a d x d matrix of the stack ``W``, shape (C, d, d)) defines M_W^2(x, x') = (x - x')^T W (x - x')
    (Example 1).  A released W need not be symmetric positive semi-definite (output noise); it is symmetrised and its
    negative eigenvalues are set to 0 (post-processing, so privacy is kept), W+ = V diag(lambda+) V^T, and the
    classifier runs on the coordinates diag(sqrt(lambda+)) V^T x, whose Euclidean distance is M_{W+}.  The training
    rows ``X, y`` are the neighbours; returns one accuracy per W.
    """
    from sklearn.neighbors import KNeighborsClassifier

    W = np.asarray(W, dtype=float)
    X, X_test = np.asarray(X, dtype=float), np.asarray(X_test, dtype=float)
    y, y_test = np.asarray(y), np.asarray(y_test)
    k = v.check_int("k (neighbours)", k)
    if W.ndim != 3 or W.shape[1] != W.shape[2]:
        raise ValueError(f"W must be a stack of square matrices, shape (C, d, d), got {W.shape}.")
    d = W.shape[1]
    if X.ndim != 2 or X.shape[1] != d or X_test.ndim != 2 or X_test.shape[1] != d:
        raise ValueError(f"X and X_test must have d = {d} columns (the size of W).")
    if len(y) != len(X) or len(y_test) != len(X_test):
        raise ValueError("X and y (and X_test and y_test) must have the same number of rows.")
    if len(X) < k:
        raise ValueError(f"the KNN classifier needs at least k = {k} training rows, got {len(X)}.")
    if not np.all(np.isfinite(W)):
        raise ValueError("W has non-finite entries.")
    out = np.empty(len(W))
    for c, Wc in enumerate(W):
        lam, V = np.linalg.eigh(0.5 * (Wc + Wc.T))
        L = V * np.sqrt(np.clip(lam, 0.0, None))
        out[c] = KNeighborsClassifier(n_neighbors=k).fit(X @ L, y).score(X_test @ L, y_test)
    return out


def run_auc(experiment, *, reps: int, seed: int = 0, quick: bool = False,
            progress: Callable[[float], None] | None = None) -> dict[str, Any]:
    """Run an AUC study of Xue, Yang, Huai & Wang (xue-pairwise), Section 5 (Figures 1-2 / Table 4); the runner of
    ``xue-pairwise-auc`` and ``xue-pairwise-auc-eps`` (parameters and result as :func:`run_study`)."""
    if getattr(experiment, "loss", None) != "auc-logistic":
        raise ValueError(f"run_auc runs the AUC logistic loss of Example 2, not {getattr(experiment, 'loss', None)!r}.")
    return run_study(experiment, reps=reps, seed=seed, quick=quick, progress=progress)


def run_metric(experiment, *, reps: int, seed: int = 0, quick: bool = False,
               progress: Callable[[float], None] | None = None) -> dict[str, Any]:
    """Run a metric-learning study of Xue, Yang, Huai & Wang (xue-pairwise), Section 5 (Tables 2-3: KNN accuracy,
    K = 3); the runner of ``xue-pairwise-metric`` (parameters and result as :func:`run_study`)."""
    if getattr(experiment, "loss", None) != "metric-logistic":
        raise ValueError("run_metric runs the metric-learning logistic loss of Example 1, not "
                         f"{getattr(experiment, 'loss', None)!r}.")
    return run_study(experiment, reps=reps, seed=seed, quick=quick, progress=progress)


def run_study(experiment, *, reps: int, seed: int = 0, quick: bool = False,
              progress: Callable[[float], None] | None = None) -> dict[str, Any]:
    """Run a study of Xue, Yang, Huai & Wang (xue-pairwise), Section 5: AUC maximisation (loss "auc-logistic", test
    AUC) or metric learning (loss "metric-logistic", KNN accuracy with K = 3); see the module docstring for the
    settings and the stand-ins.

    Parameters
    ----------
    experiment : dpviz.studies.experiments.Experiment
        A ``kind="study"`` entry with ``x`` = "n" (``fixed["eps"]``) or "eps" (``fixed["n"]``), its grid, and
        ``fixed`` settings ``R``, ``l2`` (lambda of the strongly convex loss), ``sc_T_cap`` (T of Algorithm 1),
        ``sigma_rule`` ("printed" or "private"), ``quick_grid`` and ``quick_fixed`` (the small setting of
        ``quick=True``).
    reps : int
        Repetitions of each private method (>= 2, for a standard error).
    seed : int
        Seed; the same seed gives the same numbers.
    quick : bool
        Run the small grid (tests, ``reproduce --points``).
    progress : callable, optional
        Called with the fraction done, 0..1.

    Returns
    -------
    dict
        ``df`` (one row per method and grid point: mean, se, 95 % CI of the score, runs, n, eps, delta, T,
        T_theorem, eta, sigma, sigma_paper, sigma_last, epochs, private_check, d, R), ``findings``, ``figure``,
        ``data_note``.
    """
    import pandas as pd

    from dpviz.theory import catalog
    from dpviz.engine import data as dpdata
    from dpviz.engine import simulate as sim
    from dpviz.engine.losses import get_loss

    x, grid, f = _check_experiment(experiment)
    task = _TASKS.get(getattr(experiment, "loss", None))
    if task is None:
        raise ValueError(f"a Xue et al. study runs one of the losses {', '.join(_TASKS)}, not "
                         f"{getattr(experiment, 'loss', None)!r}.")
    reps = v.check_int("reps", reps, minimum=2)
    seed = v.check_int("seed", seed, minimum=0)
    if not isinstance(quick, (bool, np.bool_)):
        raise ValueError(f"quick must be True or False, got {quick!r}.")
    if progress is not None and not callable(progress):
        raise ValueError("progress must be a function of the fraction done (0..1), or None.")
    if quick:
        grid = tuple(f["quick_grid"])
        f = {**f, **f["quick_fixed"]}
    ds = dpdata.load_dataset(experiment.dataset)
    if ds.task != "classification":
        raise ValueError(f"the study needs a two-class data set, got {experiment.dataset!r} ({ds.task}).")
    R = v.check_positive("R", f["R"])
    lam = v.check_positive("l2 (lambda)", f["l2"])
    T_cap = v.check_int("sc_T_cap", f["sc_T_cap"])
    rule = f["sigma_rule"]
    if rule not in ("printed", "private"):
        raise ValueError(f"sigma_rule must be 'printed' or 'private', got {rule!r}.")
    delta0 = f["delta0"]
    if not isinstance(delta0, (bool, np.bool_)):
        raise ValueError(f"delta0 (run the delta = 0 Laplace variants) must be True or False, got {delta0!r}.")
    points = []
    for val in grid:
        n = v.check_n(int(val) if x == "n" else f["n"])
        eps = v.check_eps(float(val) if x == "eps" else f["eps"])
        if n > ds.n:
            raise ValueError(f"n = {n} exceeds the {ds.n} training rows of {experiment.dataset!r}.")
        points.append((n, eps, 1.0 / n))
    loss_c = get_loss(experiment.loss)
    loss_sc = get_loss(experiment.loss, l2=lam)
    Xt, yt = np.asarray(ds.X_test, float), np.asarray(ds.y_test, float)
    D = ds.d * ds.d if task == "metric" else ds.d  # parameter dimension

    def score(W, n):
        W = np.asarray(W, float)
        if task == "auc":
            return sim._auc(W @ Xt.T, yt)
        return knn_accuracy(W, ds.X[:n], ds.y[:n], Xt, yt, k=3)

    weights = [n**3 * (reps + 2) for n, _, _ in points]
    total, done = float(sum(weights)), 0.0
    rows: list[dict[str, Any]] = []
    sc_cache: dict[int, tuple] = {}
    c_cache: dict[tuple, float] = {}
    for g, (n, eps, delta) in enumerate(points):
        base = {"n": n, "eps": eps, "delta": delta, "R": R}
        # ---- strongly convex: Algorithm 1 (DPGDSC) and its noise-free run
        c = loss_sc.constants(kappa=max(ds.x_bound, 1e-12), R=R)
        cal = catalog.calibrate("dpgd-sc", n=n, eps=eps, delta=delta, G=c["G"], mu=c["mu"], L=c["L"], d=D,
                                sigma_rule=rule)
        T_thm, eta_sc = int(cal.T), float(cal.eta)
        T_sc = min(T_cap, T_thm)
        if n not in sc_cache:  # w_T does not depend on eps
            r = sim.simulate("dpgd-sc", ds, loss_sc, reps=1, seed=_seed(seed, 0, n),
                             params={**base, "sigma": 0.0, "T": T_sc, "eta": eta_sc}, evaluate=())
            w_T = np.asarray(r.outputs[0, 0], float)
            sc_cache[n] = (w_T, float(score(w_T[None], n)[0]))
        w_T, np_score = sc_cache[n]
        common = {"n": n, "eps": eps, "delta": delta, "T_theorem": T_thm, "epochs": np.nan}
        rows.append(_summary_row("non-private-sc", [np_score], **common, T=T_sc, eta=eta_sc, sigma=0.0,
                                 sigma_paper=np.nan, sigma_last=np.nan, private_check=False))
        sigma_sc = float(cal.sigma)
        rng = np.random.Generator(np.random.SFC64(np.random.SeedSequence([seed, 1, g])))
        W = w_T[None] + sigma_sc * rng.standard_normal((reps,) + w_T.shape)
        rows.append(_summary_row("dpgdsc", score(W, n), **common, T=T_sc, eta=eta_sc, sigma=sigma_sc,
                                 sigma_paper=float(cal.extras.get("sigma_paper", np.nan)), sigma_last=sigma_sc,
                                 private_check=bool(cal.feasible)))
        if delta0:  # Algorithm 1, line 5: the same w_T plus coordinate-wise Lap(8 G sqrt(d)/(mu n eps))
            cal0 = catalog.calibrate("dpgd-sc", n=n, eps=eps, delta=0.0, G=c["G"], mu=c["mu"], L=c["L"], d=D)
            lam0 = float(cal0.laplace_scale)
            rng0 = np.random.Generator(np.random.SFC64(np.random.SeedSequence([seed, 5, g])))
            W0 = w_T[None] + rng0.laplace(0.0, lam0, size=(reps,) + w_T.shape)
            rows.append(_summary_row("dpgdsc-lap", score(W0, n), **{**common, "delta": 0.0}, T=T_sc, eta=eta_sc,
                                     sigma=lam0, sigma_paper=lam0, sigma_last=lam0, private_check=bool(cal0.feasible)))
        # ---- general convex: Algorithm 2 (DPGDC2), its noise-free run, Algorithm 3 (DPEGD)
        r2 = sim.simulate("dpgd-c", ds, loss_c, reps=reps, seed=_seed(seed, 3, g), params={**base, "sigma_rule": rule},
                          evaluate=())
        cal2 = r2.calibrations[0]
        T2, eta2 = int(r2.frame["T"].iloc[0]), float(r2.frame["eta"].iloc[0])
        key = (n, T2, round(eta2, 15))
        if key not in c_cache:
            r0 = sim.simulate("dpgd-c", ds, loss_c, reps=1, seed=_seed(seed, 2, g),
                              params={**base, "sigma": 0.0, "T": T2, "eta": eta2}, evaluate=())
            c_cache[key] = float(score(r0.outputs[0], n)[0])
        common_c = {"n": n, "eps": eps, "delta": delta, "T_theorem": T2, "epochs": np.nan}
        rows.append(_summary_row("non-private-c", [c_cache[key]], **common_c, T=T2, eta=eta2, sigma=0.0,
                                 sigma_paper=np.nan, sigma_last=np.nan, private_check=False))
        rows.append(_summary_row("dpgdc2", score(r2.outputs[0], n), **common_c, T=T2, eta=eta2,
                                 sigma=float(r2.frame["sigma"].iloc[0]),
                                 sigma_paper=float(cal2.extras.get("sigma_paper", np.nan)),
                                 sigma_last=float(r2.frame["sigma"].iloc[0]), private_check=bool(cal2.feasible)))
        r3 = sim.simulate("dp-epoch-gd", ds, loss_c, reps=reps, seed=_seed(seed, 4, g),
                          params={**base, "sigma_rule": rule}, evaluate=())
        cal3 = r3.calibrations[0]
        sched = list(cal3.sigma_schedule or [])
        paper = list(cal3.extras.get("sigma_schedule_paper", [np.nan]))
        rows.append(_summary_row("dpegd", score(r3.outputs[0], n), n=n, eps=eps, delta=delta, T_theorem=int(cal3.T),
                                 epochs=len(sched), T=int(r3.frame["T"].iloc[0]), eta=float(r3.frame["eta"].iloc[0]),
                                 sigma=float(sched[0]), sigma_paper=float(paper[0]), sigma_last=float(sched[-1]),
                                 private_check=bool(cal3.feasible)))
        if delta0:  # Algorithm 3, line 6: Theorem 3's eta with eps/d, per-epoch Lap(4 G eta_i sqrt(d)/eps)
            r4 = sim.simulate("dp-epoch-gd", ds, loss_c, reps=reps, seed=_seed(seed, 6, g),
                              params={**base, "delta": 0.0}, evaluate=())
            cal4 = r4.calibrations[0]
            lap = [float(t) for t in cal4.extras["laplace_schedule"]]
            rows.append(_summary_row("dpegd-lap", score(r4.outputs[0], n), n=n, eps=eps, delta=0.0,
                                     T_theorem=int(cal4.T), epochs=len(lap), T=int(r4.frame["T"].iloc[0]),
                                     eta=float(r4.frame["eta"].iloc[0]), sigma=lap[0], sigma_paper=lap[0],
                                     sigma_last=lap[-1], private_check=bool(cal4.feasible)))
        done += weights[g]
        if progress is not None:
            progress(min(0.99, done / total))
    df = pd.DataFrame(rows)
    what = _WHAT[task]
    df.insert(1, "metric", what)
    df["d"] = D
    df["R"] = R
    findings = study_findings(df, x, what)
    notes = paper_notes(df, x, task, n_text=PAPER_TABLE3_N_TEXT if (task == "metric" and x == "eps") else None,
                        G=float(c["G"]), mu=float(c["mu"]))
    fig = study_figure(df, x, what)
    note = (f"scikit-learn diabetes, labels = progression above the median ({experiment.dataset}): substitute for "
            f"{experiment.substitute_for} (Xue et al. Section 5); first n of its {ds.n} training rows, {what} on "
            f"the {len(yt)} held-out rows")
    if task == "metric":
        eu = float(knn_accuracy(np.eye(ds.d)[None], ds.X[:points[-1][0]], ds.y[:points[-1][0]], Xt, yt)[0])
        note += f"; for comparison, Euclidean 3-NN (W = I) with n = {points[-1][0]}: accuracy {eu:.3f}"
    return {"df": df, "findings": findings, "figure": fig, "data_note": note, "paper_notes": notes, "rule": RULE}


def auc_findings(df, x: str) -> list[dict[str, Any]]:
    """:func:`study_findings` of an AUC study (the score is the test AUC)."""
    return study_findings(df, x, "test AUC")


def auc_figure(df, x: str):
    """:func:`study_figure` of an AUC study (the score is the test AUC)."""
    return study_figure(df, x, "test AUC")


def _means(df, method: str, x: str):
    g = df[df["method"] == method].sort_values(x)
    return g[x].to_numpy(float), g["mean"].to_numpy(float), g["se"].to_numpy(float)


#: The one rule every claim of :func:`study_findings` is judged by (printed in each report).
RULE = ("Rule for every claim: a difference counts only when it exceeds 1.96 times its combined standard error "
        "(a two-sided 95 % z-test over the repetitions); a claim is shown when every difference it predicts has the "
        "predicted sign beyond that band, and not shown when one is within the band ('within noise') or beyond it "
        "the other way ('contradicted').")


def _se(*ses) -> float:
    """The combined standard error of a sum or difference of independent means (NaN, e.g. of a deterministic
    non-private run, counts as 0)."""
    return math.sqrt(sum(0.0 if not math.isfinite(float(x)) else float(x) ** 2 for x in ses))


def _verdict(diff: float, se: float) -> str:
    """'beyond noise', 'within noise' or 'contradicted' for a difference predicted positive (:data:`RULE`)."""
    band = _Z95 * se
    if diff > band:
        return "beyond noise"
    if diff < -band:
        return "contradicted"
    return "within noise"


def _why(df, x: str, methods) -> str:
    """The noise levels behind a finding that fails for ``methods``, at the largest grid value: numbers from ``df``
    (columns ``sigma``, ``sigma_paper``, ``eps``, ``delta``, ``eta``, ``d``, ``R``; "" without them) and
    comparisons computed from them -- no sentence that the numbers do not support."""
    if not {"sigma", "sigma_paper", "eps", "delta", "eta", "d", "R"} <= set(df.columns):
        return ""
    top = df[df[x] == df[x].max()]
    r = {m: top[top["method"] == m].iloc[0] for m in methods if m in set(top["method"])}
    if not r:
        return ""
    R, d = float(top["R"].iloc[0]), float(top["d"].iloc[0])
    diam = 2 * R

    def cmp(a, b):
        return "above" if a > b else "below" if a < b else "equal to"

    parts = []
    if "dpgdsc" in r:
        row = r["dpgdsc"]
        s = float(row["sigma"])
        sens = float(row["sigma_paper"]) * float(row["eps"]) / math.sqrt(2 * math.log(1.25 / float(row["delta"])))
        parts.append(f"DPGDSC's output noise sigma = {s:.3g} per coordinate (norm about sigma sqrt(d) = "
                     f"{s * math.sqrt(d):.3g}, {cmp(s * math.sqrt(d), diam)} the domain's diameter 2R = {diam:g}); "
                     f"Lemma 1's sensitivity 8G/(mu n) = {sens:.3g} is {cmp(sens, diam)} 2R")
    if "dpegd" in r:
        g = df[df["method"] == "dpegd"].sort_values(x)
        s0, s1 = float(g["sigma"].iloc[0]), float(g["sigma"].iloc[-1])
        parts.append(f"DPEGD's first-epoch noise sigma_1 = {s0:.3g} at {x} = {float(g[x].iloc[0]):g} and {s1:.3g} at "
                     f"{x} = {float(g[x].iloc[-1]):g} (ratio {s1 / s0:.3g}; norm about sigma_1 sqrt(d) = "
                     f"{s1 * math.sqrt(d):.3g}, {cmp(s1 * math.sqrt(d), diam)} 2R = {diam:g}); the last epoch's is "
                     f"{float(g['sigma_last'].iloc[-1]):.3g}" if "sigma_last" in g else "")
    if "dpgdsc-lap" in r:
        s = float(r["dpgdsc-lap"]["sigma"])
        parts.append(f"DPGDSC (delta = 0) adds Laplace noise of scale lambda = 8G sqrt(d)/(mu n eps) = {s:.3g} per "
                     f"coordinate (norm about lambda sqrt(2d) = {s * math.sqrt(2 * d):.3g}, "
                     f"{cmp(s * math.sqrt(2 * d), diam)} 2R = {diam:g})")
    if "dpegd-lap" in r:
        s = float(r["dpegd-lap"]["sigma"])
        parts.append(f"DPEGD (delta = 0) adds in its first epoch Laplace noise of scale lambda_1 = 4 G eta_1 "
                     f"sqrt(d)/eps = {s:.3g} (norm about lambda_1 sqrt(2d) = {s * math.sqrt(2 * d):.3g}, "
                     f"{cmp(s * math.sqrt(2 * d), diam)} 2R = {diam:g})")
    if "dpgdc2" in r:
        s, eta = float(r["dpgdc2"]["sigma"]), float(r["dpgdc2"]["eta"])
        parts.append(f"DPGDC2 adds sigma = {s:.3g} per gradient coordinate and step (eta sigma = {eta * s:.3g}), "
                     "averaged over its T + 1 iterates")
    parts = [p for p in parts if p]
    return f". Noise levels (at {x} = {float(top[x].iloc[0]):g}): " + "; ".join(parts) if parts else ""


def study_findings(df, x: str, what: str = "test AUC") -> list[dict[str, Any]]:
    """The claimed findings of Xue, Yang, Huai & Wang (xue-pairwise), Section 5 / Remark 2, checked on a summary.

    ``df`` has one row per method (:data:`METHODS`) and grid point with ``mean`` and ``se`` of the score ``what``
    (test AUC or KNN accuracy); ``x`` is the swept column ("n" or "eps").  Every claim is judged by the one
    :data:`RULE`: each difference it predicts must have the predicted sign beyond 1.96 combined standard errors.
    The items are lettered in the order of the experiment's claimed finding:

    * x = "n": (a) for every private method, the gap to its non-private baseline (baseline mean - private mean)
      shrinks from the smallest to the largest n; (b) Remark 2, DPEGD better than DPGDC2: the mean over the grid of
      DPEGD's mean score minus DPGDC2's is positive.
    * x = "eps": (a) for every private method, the mean score rises from the smallest to the largest eps; (b) as
      above.

    Each finding is ``{"claim", "shown", "numbers", "failing"}``; ``failing`` names the entries (methods) that do
    not meet the rule.
    """
    if x not in ("n", "eps"):
        raise ValueError(f"x must be 'n' or 'eps', got {x!r}.")
    need = {"method", x, "mean", "se"}
    if not need <= set(df.columns):
        raise ValueError(f"the summary needs the columns {sorted(need)}.")
    out = []
    private = [m for m in METHODS if METHODS[m]["private"] and m in set(df["method"])]
    if not private:
        raise ValueError("the summary has no private method to check.")
    ok, parts, failed = True, [], []
    for m in private:
        xs, mu, se = _means(df, m, x)
        if x == "n":
            _, b, sb = _means(df, _BASELINE[METHODS[m]["convexity"]], x)
            gap_lo, gap_hi = b[0] - mu[0], b[-1] - mu[-1]
            diff, s_ = gap_lo - gap_hi, _se(se[0], se[-1], sb[0], sb[-1])
            text = (f"{METHODS[m]['label']}: gap {gap_lo:.3f} (± {se[0]:.3f}) at n = {xs[0]:g} -> {gap_hi:.3f} "
                    f"(± {se[-1]:.3f}) at n = {xs[-1]:g}, gap shrinks by")
        else:
            diff, s_ = mu[-1] - mu[0], _se(se[0], se[-1])
            text = (f"{METHODS[m]['label']}: {mu[0]:.3f} ± {se[0]:.3f} at eps = {xs[0]:g} -> {mu[-1]:.3f} ± "
                    f"{se[-1]:.3f} at eps = {xs[-1]:g}, change")
        verdict = _verdict(diff, s_)
        good = verdict == "beyond noise"
        ok &= good
        if not good:
            failed.append(m)
        parts.append(f"{text} {diff:+.3f} vs ±{_Z95 * s_:.3f} (1.96 combined SE): {verdict}")
    if x == "n":
        claim = ("(a) the private algorithms approach the non-private baseline as n grows (Section 5, Metric Learning "
                 "and AUC Maximization)")
    else:
        claim = f"(a) the {what} of the private algorithms rises as eps grows (Tables 3-4)"
    fail_text = ("" if ok else " NOT shown for: " + "; ".join(
        f"{METHODS[m]['label']} ({_verdict_of(parts, METHODS[m]['label'])})" for m in failed) + ".")
    why = "" if ok else _why(df, x, failed)
    out.append({"claim": claim, "shown": ok, "failing": [METHODS[m]["label"] for m in failed],
                "numbers": "; ".join(parts) + "." + fail_text + (f" {why[2:]}." if why else "")})
    xs, a, sa = _means(df, "dpegd", x)
    _, b, sb = _means(df, "dpgdc2", x)
    diff = a - b
    mdiff = float(np.mean(diff))
    s_ = _se(*sa, *sb) / diff.size
    verdict = _verdict(mdiff, s_)
    good = verdict == "beyond noise"
    pts = ", ".join(f"{x} = {xv:g}: {av:.3f} ± {s1:.3f} vs {bv:.3f} ± {s2:.3f} ({_verdict(av - bv, _se(s1, s2))})"
                    for xv, av, s1, bv, s2 in zip(xs, a, sa, b, sb))
    out.append({"claim": "(b) DPEGD (Algorithm 3) performs better than DPGDC2 (Algorithm 2) in practice (Remark 2)",
                "shown": good, "failing": [] if good else ["DPEGD - DPGDC2 averaged over the grid"],
                "numbers": (f"mean {what} difference DPEGD - DPGDC2 over the grid {mdiff:+.3f} vs "
                            f"±{_Z95 * s_:.3f} (1.96 combined SE): {verdict}; per point ({pts})")
                + ("" if good else _why(df, x, ("dpegd", "dpgdc2")))})
    return out


def _verdict_of(parts, label) -> str:
    for p in parts:
        if p.startswith(label + ":"):
            return p.rsplit(": ", 1)[-1]
    return "not shown"


def study_figure(df, x: str, what: str = "test AUC"):
    """The score ``what`` (test AUC or KNN accuracy) against ``x`` ("n" or "eps"), one line per method with 95 % CI
    error bars; the non-private baselines are dotted, the delta = 0 (Laplace) variants dashed.  Log x axis with the
    grid values as plain-decimal ticks (no SI prefixes).  Pure function of ``df``."""
    import plotly.graph_objects as go

    from dpviz.foundation.figures import tick_label

    if x not in ("n", "eps"):
        raise ValueError(f"x must be 'n' or 'eps', got {x!r}.")
    fig = go.Figure()
    for m, spec in METHODS.items():
        g = df[df["method"] == m].sort_values(x)
        if g.empty:
            continue
        fig.add_trace(go.Scatter(
            x=g[x], y=g["mean"], mode="lines+markers", name=spec["label"],
            line=dict(color=_COLOURS[m], dash="dot" if not spec["private"] else "dash" if m.endswith("-lap")
                      else "solid"),
            error_y=dict(type="data", symmetric=False, array=(g["ci_high"] - g["mean"]).to_numpy(),
                         arrayminus=(g["mean"] - g["ci_low"]).to_numpy(), visible=True)))
    vals = sorted({float(t) for t in df[x]})
    fig.update_xaxes(type="log", tickmode="array", tickvals=vals, ticktext=[tick_label(t) for t in vals],
                     title="training size n" if x == "n" else "ε")
    fig.update_yaxes(title=f"{what} (mean, 95 % CI)")
    fig.update_layout(template="plotly_white", legend=dict(orientation="h", y=-0.2))
    return fig
