"""The papers' experiments, defined once as data, and the one runner of every reproduction target.

Following an experiment's name: its definition is the entry of :data:`EXPERIMENTS` here (settings, the paper's
claim, the dashboard preset); :func:`run` runs it -- the formula-based kinds ("region", "bounds") here, a "study"
through the ``runner`` it names (e.g. :mod:`dpviz.studies.kang`), a "simulation" figure through
:func:`dpviz.studies.reproduce.run_figure`, which reads every setting from the same definition.  ``python -m dpviz
reproduce ID`` and :func:`dpviz.studies.reproduce.reproduce` call :func:`run`.

Public API
----------
``EXPERIMENTS``
    id -> :class:`Experiment` (every ``python -m dpviz reproduce`` target, ids start with the paper key).
``get(experiment_id) -> Experiment``
``listing() -> list[dict]``
    ``[{"id", "paper", "what", "seconds_estimate"}]`` (what ``reproduce --list --json`` prints).
``run(experiment_id, *, out_dir, points=None, progress=None, reps=None, seed=0, cancel=None) -> dict``
    run any target (a formula-based one, ``kind`` "region" or "bounds", a study or a simulation figure): writes ``ID.csv``, ``ID.html`` (Plotly, plotly.js
    embedded, works offline) and ``ID.md`` (the paper's claimed finding and whether the reproduction shows it, with
    numbers); returns ``{"csv", "html", "md", "summary", "figure", "shown", "finding"}``.

How a dashboard page reads a definition
---------------------------------------
An :class:`Experiment` is plain data: ``paper`` (dpviz paper key), ``kind`` ("simulation" — the Simulate page;
"bounds" — the Bounds page; "region" — the Calibrate page's feasibility map), ``algorithms`` / ``theorems`` (catalogue
ids), ``dataset`` (a :data:`dpviz.engine.data.DATASETS` name) with ``substitute_for`` (the paper's data set it stands in
for, ``None`` if it is the paper's own design — show "substitute for …" when set), ``loss`` and ``loss_params`` (for
:func:`dpviz.engine.losses.get_loss`), ``grid`` (parameter -> list of values; the first key is the x-axis, ``x``),
``fixed`` (the other parameters, as :func:`dpviz.engine.simulate.simulate`'s ``params`` / :func:`dpviz.theory.catalog.bound` take
them), ``y`` (what is plotted) and ``claim`` (the finding to show beside the plot).  A page preset sets its widgets
from these fields; ``python -m dpviz reproduce ID`` runs the same definition.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable

import numpy as np

from dpviz.foundation import validate as v

__all__ = ["Experiment", "EXPERIMENTS", "get", "listing", "run", "with_presets"]


@dataclass(frozen=True)
class Experiment:
    """One reproducible experiment of a paper (see the module docstring for how pages read it)."""

    id: str
    paper: str
    what: str
    kind: str  # "simulation" | "bounds" | "region" | "study" (a simulation study with its own ``runner``)
    place: str  # where in the paper
    claim: str  # the paper's claimed finding, in words
    x: str
    y: str
    grid: dict[str, tuple] = field(default_factory=dict)
    fixed: dict[str, Any] = field(default_factory=dict)
    algorithms: tuple[str, ...] = ()
    theorems: tuple[str, ...] = ()
    dataset: str | None = None
    substitute_for: str | None = None
    loss: str | None = None
    loss_params: dict[str, Any] = field(default_factory=dict)
    seconds_estimate: float = 1.0
    #: the dashboard preset of this experiment (``None``: none): ``title`` (button label), ``reps`` (the page's cost
    #: cap allows fewer repetitions than the paper) and ``view`` (extra view entries, e.g. the plotted quantity or the
    #: one point of a region shown on the Calibrate page).  :meth:`preset_view` derives everything else from the
    #: fields above, so the preset and ``python -m dpviz reproduce`` run the same setting.
    preset: dict[str, Any] | None = None
    #: ``kind == "study"`` only: ``"module:function"`` inside the dpviz package that runs the study (see
    #: :func:`run`); the function is called as ``fn(experiment, reps=..., seed=..., quick=..., progress=...)`` and
    #: returns ``{"df": DataFrame (one row per method and grid point), "findings": [{"claim", "shown", "numbers"}],
    #: "figure": plotly Figure, "data_note": str}`` — ``data_note`` names the data set, with "substitute for <the
    #: paper's data set>" where it stands in for one — and optionally ``"paper_notes"`` (sentences on the paper's
    #: reported numbers and inconsistencies) and ``"privacy_notes"`` (what is and is not certified private), each
    #: sentence generated from numbers; the report lists them in sections of their own.
    runner: str | None = None
    #: ``kind == "study"``: the repetitions ``python -m dpviz reproduce`` runs by default (``--reps`` overrides it)
    default_reps: int = 20
    #: the heading of the reproduction's figure (``None``: ``what``)
    title: str | None = None

    def preset_view(self) -> dict[str, Any]:
        """The dashboard view (entries of :data:`dpviz.foundation.urlstate.SCHEMA`, validated) of this experiment's preset.

        ``kind == "simulation"`` -> the Simulate page: data set, loss, algorithms, the grid of ``x`` (typed grid),
        the label-noise values ``kappa`` (one curve each), n, T, eta, the domain (``R`` in ``fixed``: projection onto
        the ball of radius R; no ``R``: no projection), the Lipschitz constant ``G`` of the noise formula, delta =
        1/n^2 unless ``fixed`` gives ``delta``, the noise rule, seed 0 and the preset's repetitions.
        ``kind == "region"`` -> the Calibrate page at the preset's point (``view`` gives n and eps) with T = n and
        delta = 1/n^2, the experiment's d and G, and the feasibility map shown.
        """
        from dpviz.foundation import urlstate

        if self.preset is None:
            raise ValueError(f"the experiment {self.id!r} has no dashboard preset.")
        extra = dict(self.preset.get("view", {}))
        f = dict(self.fixed)
        if self.kind == "simulation":
            if self.x not in ("eps", "n"):
                raise ValueError(f"the Simulate page sweeps eps or n, not {self.x!r} ({self.id}).")
            known = {"n", "T", "eta", "R", "G", "mu", "noise_rule", "eps", "delta"}
            unknown = sorted(set(f) - known)
            if unknown:
                raise ValueError(f"{self.id}: the Simulate page has no input for {', '.join(unknown)}.")
            view: dict[str, Any] = {
                "page": "simulate", "sim_source": "run", "dataset": self.dataset, "sim_loss": self.loss,
                "sim_algs": list(self.algorithms), "sim_sweep": self.x,
                "eps_grid" if self.x == "eps" else "n_grid": [f"{g:g}" for g in self.grid[self.x]],
                "kappas": [f"{k:g}" for k in self.grid.get("kappa", (0.0,))],
                "noise": float(self.grid.get("kappa", (0.0,))[0]),
                "T": int(f["T"]), "eta": float(f["eta"]), "sim_project": "R" in f,
                "run_infeasible": f.get("noise_rule") == "experiment", "reps": int(self.preset.get("reps", 20)),
                "seed": 0, "delta_auto": "delta" not in f,
            }
            if "n" in f:
                view["n"] = int(f["n"])
            if "eps" in f:
                view["eps"] = float(f["eps"])
            if "delta" in f:
                view["log10_delta"] = math.log10(float(f["delta"]))
            if "R" in f:
                view["R"] = float(f["R"])
            if "mu" in f:
                view["mu"] = float(f["mu"])
            view["sim_G_auto"] = "G" not in f
            if "G" in f:
                view["G"] = float(f["G"])
        elif self.kind == "region":
            if "n" not in extra or "eps" not in extra:
                raise ValueError(f"{self.id}: a region preset needs the point (n, eps) it opens at.")
            view = {"page": "calibrate", "algorithm": self.algorithms[0], "T": int(extra["n"]), "delta_auto": True,
                    "d": int(f.get("d", 10)), "G": float(f.get("G", 1.0)), "show_map": True}
        else:
            raise ValueError(f"{self.id}: the dashboard has no preset for experiments of kind {self.kind!r}.")
        view.update(extra)
        return {k: urlstate.validate(k, val) for k, val in view.items()}

    def preset_text(self) -> str:
        """One paragraph for the preset gallery: what the preset runs, with its settings (from the definition)."""
        if self.preset is None:
            raise ValueError(f"the experiment {self.id!r} has no dashboard preset.")
        parts = [f"{self.what} ({self.place})."]
        if self.kind == "simulation":
            f = self.fixed
            grid = ", ".join(f"{g:g}" for g in self.grid[self.x])
            dom = (f"projected onto the ball of radius R = {f['R']:g}" if "R" in f else "no projection (W = R^d)")
            parts.append(f"{self.x} in {{{grid}}}, label noise κ in {{{', '.join(f'{k:g}' for k in self.grid.get('kappa', (0,)))}}}, "
                         f"n = {f['n']}, T = {f['T']}, η = {f['eta']:g}, δ = 1/n², G = {f['G']:g}, {dom}.")
            if f.get("noise_rule") == "experiment":
                parts.append("As in the paper, σ is the formula's smallest value over β, even where the sufficient "
                             "privacy conditions fail: the paper's noise rule, which is not (ε, δ)-DP at these "
                             "settings (a tight accountant gives the run a far larger ε than the target). "
                             "`python -m dpviz reproduce` reports that ε and adds the provably private curve.")
            parts.append(f"{self.preset.get('reps', 20)} repetitions here; `python -m dpviz reproduce {self.id}` "
                         "runs the same setting with the paper's 500.")
        elif self.kind == "region":
            parts.append(f"Opens the Calibrate page at n = {self.preset['view']['n']}, ε = "
                         f"{self.preset['view']['eps']:g} with T = n and δ = 1/n², and shows the feasibility map.")
        return " ".join(parts)


def _logspace_int(lo: float, hi: float, k: int) -> tuple[int, ...]:
    return tuple(sorted({int(round(x)) for x in np.logspace(math.log10(lo), math.log10(hi), k)}))


def _xue_study(*, id: str, place: str, what: str, claim: str, x: str, y: str, loss: str, l2: float, grid: dict,
               at: dict, quick_grid: tuple, quick_fixed: dict, seconds_estimate: float, runner: str,
               default_reps: int) -> Experiment:
    """A study of Xue, Yang, Huai & Wang's Section 5 (DPGDSC, DPGDC2, DPEGD against their noise-free versions on the
    substitute Diabetes data, R = 1, Algorithm 1's T capped at 200 steps, the printed σ, δ = 1/n and δ = 0): what
    its four targets share is filled in here, ``at`` holds the fixed value of the parameter not swept."""
    return Experiment(
        id=id, paper="xue-pairwise", kind="study", place=place, what=what, claim=claim, x=x, y=y,
        algorithms=("dpgd-sc", "dpgd-c", "dp-epoch-gd"), dataset="diabetes-binary",
        substitute_for="the Diabetes data set", loss=loss, loss_params={"l2": l2}, grid=grid,
        fixed={**at, "R": 1.0, "l2": l2, "sc_T_cap": 200, "sigma_rule": "printed", "delta0": True,
               "quick_grid": quick_grid, "quick_fixed": {**quick_fixed, "sc_T_cap": 50}},
        seconds_estimate=seconds_estimate, runner=runner, default_reps=default_reps)


EXPERIMENTS: dict[str, Experiment] = {e.id: e for e in [
    Experiment(
        id="wang-lownoise-fig1", paper="wang-lownoise", kind="simulation", place="Section 5.1, Figure 1",
        what=("Wang, Lei, Ying & Zhou, Fig. 1: mean square error vs eps, least squares, DP-SGD with the paper's noise "
              "rule (not private here) vs SGD"),
        claim="DP-SGD's mean square error decreases in eps towards non-private SGD's",
        x="eps", y="mean square error on a fresh sample", algorithms=("dpsgd-rdp", "sgd"),
        dataset="wang-least-squares", loss="least-squares",
        grid={"eps": (0.5, 1, 1.5, 2, 2.5, 3, 3.5, 4, 4.5, 5, 5.5), "kappa": (0.0, 0.1, 0.15)},
        # the paper does not state the domain W: the unit ball contains w* (||w*|| = 0.62); with ||x|| = 1 and
        # |y| <= 0.5 (Section 5.1) the gradient (<w, x> - y) x has norm <= 1 * (1 * 1 + 0.5) = 1.5 = G
        # seconds_estimate: 500 repetitions of the paper's rule, the private curve and SGD plus the PLD accounting,
        # 38 s measured on a loaded machine (2 cores shared by 8 processes; fig2: 71 s)
        fixed={"n": 5000, "T": 1000, "eta": 0.01, "R": 1.0, "G": 1.5, "noise_rule": "experiment"}, seconds_estimate=40.0,
        preset={"title": "Wang et al. (low noise) Fig. 1", "reps": 50, "view": {"plot_value": "metric"}},
        title="Wang, Lei, Ying & Zhou, Fig. 1: mean square error vs eps, least squares"),
    Experiment(
        id="wang-lownoise-fig2", paper="wang-lownoise", kind="simulation", place="Section 5.1, Figure 2",
        what=("Wang, Lei, Ying & Zhou, Fig. 2: misclassification rate vs eps, logistic loss, DP-SGD with the paper's "
              "noise rule (not private here) vs SGD"),
        claim="DP-SGD's misclassification rate decreases in eps towards non-private SGD's",
        x="eps", y="misclassification rate on a fresh sample", algorithms=("dpsgd-rdp", "sgd"),
        dataset="wang-logistic", loss="logistic",
        grid={"eps": (1.5, 2, 2.5, 3, 3.5, 4, 4.5, 5, 5.5, 6), "kappa": (0.0, 0.4, 0.6)},
        # no projection (the paper states no domain; ||w*|| = 5.8); the logistic gradient has norm <= ||x|| = 1 = G
        fixed={"n": 5000, "T": 1000, "eta": 0.01, "G": 1.0, "noise_rule": "experiment"}, seconds_estimate=75.0,
        preset={"title": "Wang et al. (low noise) Fig. 2", "reps": 50, "view": {"plot_value": "metric"}},
        title="Wang, Lei, Ying & Zhou, Fig. 2: misclassification rate vs eps, logistic loss"),
    Experiment(
        id="wang-nonsmooth-fig1", paper="wang-nonsmooth", kind="region", place="Lemma 13, Figure 1",
        what="Wang, Lei, Ying & Zhang, Fig. 1: the (n, eps) region where Lemma 13 guarantees a beta for Theorem 11",
        claim=("Lemma 13: for every n >= 18, T = n and delta = 1/n^2, every eps >= (7(n^{1/3}-1) + 4 n log n + 7)/"
               "(2n(n^{1/3}-1)) admits a beta in (0, 1) meeting Theorem 11's privacy conditions (the shaded area of "
               "Fig. 1); the threshold falls with n (about 2 log n / n^{1/3})"),
        x="n", y="eps", theorems=("wang-nonsmooth-lemma13",), algorithms=("dpsgd-rdp",),
        # every n from the lemma's n >= 18 to 43 (where its claim fails, see the report), then a log grid to 10^6
        grid={"n": tuple(range(18, 44)) + _logspace_int(44, 1e6, 40),
              "eps": tuple(np.round(np.logspace(-1.3, 1, 40), 4))},
        fixed={"d": 10, "G": 1.0}, seconds_estimate=30.0,
        # the Calibrate page at one point of the grid: n = 10 000, eps = 0.9 (Lemma 13's threshold there is 0.90);
        # the conditions of Theorem 11 depend on sigma / G only, so the alpha = 0.5 Hölder loss loses nothing
        preset={"title": "Wang et al. (non-smooth) Lemma 13 region",
                "view": {"n": 10000, "eps": 0.9, "alpha": 0.5, "loss": "custom"}}),
    Experiment(
        id="wang-nonsmooth-alpha", paper="wang-nonsmooth", kind="bounds", place="Theorems 9, 10 and 12",
        what="Wang, Lei, Ying & Zhang, Theorems 9-12: excess-risk rate in n and iterations T over the Hölder alpha",
        claim=("with a bounded domain the excess risk is O(sqrt(d log(1/delta))/(n eps) + 1/sqrt(n)) up to logs for "
               "every alpha in [0, 1] (Theorem 12; Theorem 10: O(1/sqrt(n eps) + 1/sqrt(n))) — alpha only changes "
               "the iterations, T ~ n^{(2-alpha)/(1+alpha)} for alpha < 1/2 and T ~ n otherwise; on an unbounded "
               "domain (Theorem 9) the statistical term is n^{-1/(3+alpha)}"),
        x="n", y="bound (rate form, constant c = 1)",
        theorems=("wang-nonsmooth-thm9", "wang-nonsmooth-thm10", "wang-nonsmooth-thm12"),
        grid={"n": _logspace_int(1e3, 1e7, 9), "alpha": (0.0, 0.25, 0.5, 0.75, 1.0)},
        fixed={"d": 10, "eps": 1.0, "delta": 1e-8}, seconds_estimate=1.0),
    Experiment(
        id="yang-pairwise-rates", paper="yang-pairwise", kind="bounds", place="Corollaries 1-4 (rate study)",
        what="Yang, Lei, Lyu & Ying, Corollaries 1-4: excess-risk rates of pairwise SGD in n (the paper has no "
             "experiments)",
        claim=("as printed: pairwise SGD attains O~(sqrt(kappa/n)) for AUC maximisation (Corollary 1) and "
               "O~(sqrt(chi log d)/n) for metric learning (Corollary 3); with output perturbation "
               "O~(sqrt(kappa d)/sqrt(n eps)) (Corollary 2) and O~(sqrt(chi d log d)/sqrt(n eps)) (Corollary 4)"),
        x="n", y="bound (rate form, constant c = 1)",
        theorems=("yang-pairwise-cor1", "yang-pairwise-cor2", "yang-pairwise-cor3", "yang-pairwise-cor4"),
        grid={"n": _logspace_int(1e2, 1e8, 13)}, fixed={"d": 10, "eps": 1.0}, seconds_estimate=1.0),
    Experiment(
        id="kang-pidp-sec7", paper="kang-pidp", kind="study", place="Section 7, Figures 1-2",
        what=("Kang, Li, Liu & Wang, Section 7: test accuracy and optimality gap vs eps, logistic regression, "
              "PIDP-SGD vs DP-SGD vs output perturbation"),
        claim=("accuracy rises and the optimality gap L(theta_priv; D) - L* falls as eps grows (0.01 to 3); PIDP-SGD "
               "(eps1 = 3 eps2 = 3 eps/4, R T_local = T) improves on DP-SGD's gradient perturbation, the more the "
               "larger eps, because more data instances escape the injected noise; at small eps the difference is "
               "small or PIDP-SGD is worse"),
        x="eps", y="test accuracy; optimality gap on the training set",
        algorithms=("pidp-sgd", "dpsgd-pl", "dpsgd-output", "sgd"),
        dataset="wang-logistic", substitute_for="Adult / Bank / KDDCup99 (Kang et al. Section 7)",
        loss="logistic", loss_params={"l2": 1e-3},
        # the paper's range starts at eps = 0.01; dpviz's RDP accountant cannot certify eps1 = 3 eps/4 below about
        # 0.023 at delta = 1/n^2 = 4e-8 (orders up to 1024), so the grid starts at 0.05
        grid={"eps": (0.05, 0.1, 0.3, 1.0, 3.0)},
        # Section 7 gives neither delta, the step size nor r: delta = 1/n^2 (the engine's default, split 3:1 like
        # eps), a step size at which DP-SGD improves with eps, every method projected onto the ball of radius
        # R = 10 (it contains the minimiser; Algorithm 1's r); T fixed instead of cross-validated; rounds x T_local = T
        fixed={"n": 5000, "n_test": 5000, "kappa": 0.4, "data_seed": 0, "T": 5000, "eta": 0.02, "R": 10.0,
               "l2": 1e-3, "rounds": 5,
               "quick": {"n": 1000, "n_test": 2000, "T": 1000, "rounds": 2, "eps": (0.1, 1.0, 3.0)}},
        seconds_estimate=40.0, runner="studies.kang:run_section7", default_reps=20),
    # Xue, Yang, Huai & Wang (xue-pairwise), Section 5: AUC maximisation and metric learning, delta = 1/n (Gaussian
    # noise with the printed sigma) and delta = 0 (delta0: Laplace); settings and stand-ins in dpviz/studies/xue.py.
    # n = 512 of Figures 1-2 exceeds the 309 training rows of the substitute data; sc_T_cap caps Algorithm 1's T
    # (Theorem 1: ~2e4 steps); quick_* is the small setting of tests / --points.
    _xue_study(
        id="xue-pairwise-auc", place="Section 5, Figures 1-2",
        what="Xue, Yang, Huai & Wang, Figs. 1-2: test AUC vs n at eps = 0.8, delta = 1/n (a) and 0 (b); DPGDSC, "
             "DPGDC2, DPEGD vs non-private",
        claim=("(a) the private algorithms approach the non-private baseline as n grows, and (b) DPEGD (Algorithm 3) "
               "performs better than DPGDC2 (Algorithm 2) (Remark 2)"),
        x="n", y="test AUC", loss="auc-logistic", l2=1e-3, grid={"n": (64, 128, 256)}, at={"eps": 0.8},
        quick_grid=(32, 64, 128), quick_fixed={}, seconds_estimate=50.0, runner="studies.xue:run_auc",
        default_reps=20),
    # 8 repetitions: one DPGDC2 run at n = 256 costs ~1 s of CPU (81 s of CPU for 10 repetitions, measured)
    _xue_study(
        id="xue-pairwise-auc-eps", place="Section 5, Table 4",
        what="Xue, Yang, Huai & Wang, Table 4: test AUC vs eps at n = 256, delta = 1/n and 0; DPGDSC, DPGDC2, DPEGD "
             "vs non-private",
        claim=("(a) the test AUC of the private algorithms rises as eps grows, and (b) DPEGD (Algorithm 3) performs "
               "better than DPGDC2 (Algorithm 2) over the eps grid (Remark 2)"),
        x="eps", y="test AUC", loss="auc-logistic", l2=1e-3, grid={"eps": (0.5, 0.8, 1.0, 2.0)}, at={"n": 256},
        quick_grid=(0.5, 1.0, 2.0), quick_fixed={"n": 64}, seconds_estimate=65.0, runner="studies.xue:run_auc",
        default_reps=8),
    # metric learning: one full pairwise gradient of the d x d metric costs 100 n(n-1) coordinates, so the n grid
    # stops at 128 (Table 2: 128, 256, 512; n = 256 would cost ~8 s per DPGDC2 run)
    _xue_study(
        id="xue-pairwise-metric", place="Section 5, Table 2",
        what="Xue, Yang, Huai & Wang, Table 2: metric learning, KNN accuracy (K = 3) vs n at eps = 1, delta = 1/n "
             "and 0; DPGDSC, DPGDC2, DPEGD vs non-private",
        claim=("(a) the private algorithms approach the non-private baseline as n grows, and (b) DPEGD (Algorithm 3) "
               "performs better than DPGDC2 (Algorithm 2) (Remark 2)"),
        x="n", y="KNN accuracy (K = 3)", loss="metric-logistic", l2=1e-2, grid={"n": (32, 64, 128)},
        at={"eps": 1.0}, quick_grid=(16, 32, 64), quick_fixed={}, seconds_estimate=40.0,
        runner="studies.xue:run_metric", default_reps=20),
    # Table 3: its caption says n = 128, the text n = 512 (more than the substitute's 309 training rows): n = 128;
    # 54 s of CPU for 10 repetitions (measured)
    _xue_study(
        id="xue-pairwise-metric-eps", place="Section 5, Table 3",
        what="Xue, Yang, Huai & Wang, Table 3: metric learning, KNN accuracy (K = 3) vs eps at n = 128, delta = 1/n "
             "and 0; DPGDSC, DPGDC2, DPEGD vs non-private",
        claim=("(a) the KNN accuracy of the private algorithms rises as eps grows, and (b) DPEGD (Algorithm 3) "
               "outperforms DPGDC2 (Algorithm 2) over the eps grid (Remark 2)"),
        x="eps", y="KNN accuracy (K = 3)", loss="metric-logistic", l2=1e-2,
        grid={"eps": (0.2, 0.5, 0.8, 1.0, 1.5, 2.0)}, at={"n": 128}, quick_grid=(0.5, 1.0, 2.0),
        quick_fixed={"n": 32}, seconds_estimate=55.0, runner="studies.xue:run_metric", default_reps=10),
]}


def _lipschitz(loss_id: str, G_paper: float) -> float:
    """G for the loss as implemented: the paper-convention G of a definition (``fixed["G"]``) rescaled by the
    implementation's gradient scale.

    Reference conventions: least squares (<w,x> - y)^2 / 2 has gradient e1 at w = e1, x = e1, y = 0; logistic
    log(1 + exp(-y<w,x>)) has gradient -e1/2 at w = 0, x = e1, y = 1.  A loss module using e.g. (<w,x> - y)^2 has
    twice the gradient, hence twice the Lipschitz constant.
    """
    from dpviz.engine import simulate as sim

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


def get(experiment_id: str) -> Experiment:
    """The experiment ``experiment_id`` (ValueError listing the known ids otherwise)."""
    if experiment_id not in EXPERIMENTS:
        raise ValueError(f"unknown experiment {experiment_id!r}; choose one of: {', '.join(EXPERIMENTS)}")
    return EXPERIMENTS[experiment_id]


def with_presets() -> list[Experiment]:
    """The experiments that have a dashboard preset (in definition order)."""
    return [e for e in EXPERIMENTS.values() if e.preset is not None]


def listing() -> list[dict[str, Any]]:
    """``[{"id", "paper", "what", "seconds_estimate"}]`` of every reproduction target."""
    return [{"id": e.id, "paper": e.paper, "what": e.what, "seconds_estimate": e.seconds_estimate}
            for e in EXPERIMENTS.values()]


# ---------------------------------------------------------------------------------------------------------------
# runners of the formula-based targets


def _slope(x, y) -> float:
    x, y = np.asarray(x, float), np.asarray(y, float)
    ok = np.isfinite(y) & (y > 0)
    if ok.sum() < 2:
        return float("nan")
    return float(np.polyfit(np.log(x[ok]), np.log(y[ok]), 1)[0])


def _region(e: Experiment, points: int | None, progress):
    """Lemma 13's sufficient eps against the catalogue's beta search for Theorem 11's conditions, on an (n, eps) grid.

    Theorem 11's conditions (Wang, Lei, Ying & Zhang (wang-nonsmooth)) depend on sigma / G only, so G = 1 loses
    nothing; T = n and delta = 1/n^2 as in Lemma 13.  The catalogue's ``dpsgd-rdp`` calibration searches beta for
    them.  Per n the frame also holds ``eps_min_feasible``, the smallest eps at which some beta meets them
    (:func:`dpviz.theory.papers.wang_lownoise.min_feasible_eps`, bisection), and ``lemma13_holds``: whether the lemma's
    threshold is at least that eps, i.e. whether the lemma's claim is true at this n.
    """
    import pandas as pd

    from dpviz.theory import catalog
    from dpviz.theory.papers.wang_lownoise import min_feasible_eps
    from dpviz.theory.papers.wang_nonsmooth import lemma13_eps_threshold

    ns, epss = e.grid["n"], e.grid["eps"]
    if points is not None:
        small = [n for n in ns if n < 44]
        # the coarse grid keeps the two ends of the range where the lemma fails (n = 18 and 43)
        ns = tuple(sorted(set(_logspace_int(min(ns), max(ns), points)) | {min(small), max(small)} if small else
                          set(_logspace_int(min(ns), max(ns), points))))
        epss = tuple(np.round(np.logspace(math.log10(min(epss)), math.log10(max(epss)), points), 4))
    rows = []
    for i, n in enumerate(ns):
        thr = lemma13_eps_threshold(n)
        e_min = min_feasible_eps(n=int(n), delta=1.0 / n**2, T=int(n), start=thr)
        for eps in epss:
            cal = catalog.calibrate("dpsgd-rdp", n=int(n), eps=float(eps), delta=1.0 / n**2, T=int(n), eta=0.1,
                                    accountant_extra=False, **e.fixed)
            rows.append({"n": int(n), "eps": float(eps), "lemma13_threshold": thr, "lemma13_sufficient": eps >= thr,
                         "beta_exists": bool(cal.feasible), "eps_min_feasible": e_min,
                         "lemma13_holds": bool(e_min <= thr)})
        if progress is not None:
            progress((i + 1) / len(ns))
    df = pd.DataFrame(rows)
    shaded = df[df.lemma13_sufficient]
    outside = df[~df.lemma13_sufficient]
    per_n = df.groupby("n")[["lemma13_threshold", "eps_min_feasible", "lemma13_holds"]].first()
    thr = per_n["lemma13_threshold"]
    decreasing = bool(np.all(np.diff(thr.to_numpy()) < 0))
    sufficient = bool(shaded["beta_exists"].all()) if len(shaded) else False
    fails = per_n[~per_n["lemma13_holds"]]
    holds_everywhere = fails.empty and sufficient
    shown = decreasing and holds_everywhere
    pick = [n for n in (100, 1000, 10_000, 100_000, 1_000_000) if min(ns) <= n <= max(ns)]
    parts = [
        f"threshold {'decreases' if decreasing else 'does NOT decrease'} in n "
        f"({', '.join(f'n = {n:g}: {lemma13_eps_threshold(n):.3f}' for n in pick)})"]
    if fails.empty:
        parts.append(f"at every n of the grid ({int(min(ns))} .. {int(max(ns))}) the threshold is at least the "
                     "smallest eps at which a beta meets Theorem 11's conditions: the claim holds there")
    else:
        f_ns = fails.index.to_numpy()
        first, last = fails.iloc[0], fails.iloc[-1]
        ok_ns = per_n[per_n["lemma13_holds"]].index.to_numpy()
        parts.append(
            f"the lemma's claim FAILS at {len(f_ns)} of the {len(per_n)} grid values of n (n = {int(f_ns.min())} .. "
            f"{int(f_ns.max())}): there no beta meets Theorem 11's conditions at the threshold — at n = "
            f"{int(fails.index[0])} the threshold is {first['lemma13_threshold']:.3f} while the smallest feasible eps "
            f"is {first['eps_min_feasible']:.3f}; at n = {int(fails.index[-1])}: {last['lemma13_threshold']:.3f} vs "
            f"{last['eps_min_feasible']:.3f}"
            + (f"; it holds at every grid n from {int(ok_ns.min())} on" if len(ok_ns) and ok_ns.min() > f_ns.max()
               else ""))
    parts.append(
        f"a feasible beta was found at {int(shaded['beta_exists'].sum())} of {len(shaded)} grid points in the "
        f"shaded area ({'all' if sufficient else 'NOT all'}), and at {int(outside['beta_exists'].sum())} of "
        f"{len(outside)} points below the threshold (where the lemma holds, its condition is sufficient, not "
        "necessary)")
    return df, shown, "; ".join(parts)


#: The exponent of n in a theorem's rate as printed (where a bounds study checks it against dpviz's terms):
#: Yang, Lei, Lyu & Ying (yang-pairwise), Corollaries 1-4: O~(sqrt(kappa/n)), O~(sqrt(kappa d)/sqrt(n eps)),
#: O~(sqrt(chi log d)/n) (Corollary 3: n^-1), O~(sqrt(chi d log d)/sqrt(n eps)).
_PRINTED_N_EXP = {"yang-pairwise-cor1": -0.5, "yang-pairwise-cor2": -0.5, "yang-pairwise-cor3": -1.0,
                  "yang-pairwise-cor4": -0.5}


def _readings(e: Experiment) -> str:
    """The report's list of each theorem's printed statement and, where dpviz reads it differently, its
    correction (from the catalogue's ``Theorem.statement`` and ``Theorem.discrepancy``)."""
    from dpviz.theory import catalog

    lines = []
    for th in e.theorems:
        t = catalog.get_theorem(th)
        lines.append(f"- {t.number} ({th}), as printed: ${t.statement}$"
                     + (f". dpviz's reading (correction or note): {t.discrepancy}" if t.discrepancy
                        else " (dpviz follows the print)"))
    return "\n".join(lines)


def _bounds(e: Experiment, points: int | None, progress):
    import pandas as pd

    from dpviz.theory import catalog

    ns = e.grid["n"] if points is None else _logspace_int(min(e.grid["n"]), max(e.grid["n"]), max(points, 3))
    alphas = e.grid.get("alpha", (None,))
    rows = []
    for k, th in enumerate(e.theorems):
        for a in alphas:
            for n in ns:
                p = {**e.fixed, "n": int(n)}
                if a is not None:
                    p["alpha"] = a
                b = catalog.bound(th, **p)
                top = b.dominant()
                rows.append({"theorem": th, "alpha": a if a is not None else np.nan, "n": int(n), "bound": b.total,
                             "T": np.nan if b.T is None else float(b.T), "dominant_term": top.name,
                             "dominant_n_exp": top.n_exp})
        if progress is not None:
            progress((k + 1) / len(e.theorems))
    df = pd.DataFrame(rows)
    fits = []
    for (th, a), g in df.groupby(["theorem", "alpha"], dropna=False):
        fits.append({"theorem": th, "alpha": a, "slope_bound": _slope(g["n"], g["bound"]),
                     "slope_T": _slope(g["n"], g["T"])})
    fit = pd.DataFrame(fits)
    df = df.merge(fit, on=["theorem", "alpha"], how="left")
    if e.id == "wang-nonsmooth-alpha":
        parts, ok = [], True
        for th in ("wang-nonsmooth-thm10", "wang-nonsmooth-thm12"):
            s = fit[fit.theorem == th]["slope_bound"]
            same = float(s.max() - s.min()) < 0.02 and float(s.max()) < -0.4
            ok &= same
            parts.append(f"{th}: fitted slope of the bound in n {s.min():.3f} .. {s.max():.3f} over alpha "
                         f"({'the same' if same else 'NOT the same'} for every alpha)")
        t12 = fit[fit.theorem == "wang-nonsmooth-thm12"].set_index("alpha")["slope_T"]
        want = {a: ((2 - a) / (1 + a) if a < 0.5 else 1.0) for a in t12.index}
        t_ok = all(abs(t12[a] - want[a]) < 0.05 for a in t12.index)
        ok &= t_ok
        parts.append("T exponent " + ", ".join(f"alpha = {a:g}: {t12[a]:.3f} (paper {want[a]:.3f})"
                                                for a in t12.index))
        s9 = fit[fit.theorem == "wang-nonsmooth-thm9"].set_index("alpha")["slope_bound"]
        worse = bool(np.all(np.diff(s9.to_numpy()) > 0))
        ok &= worse
        parts.append("Theorem 9 (unbounded domain) slope " + ", ".join(f"alpha = {a:g}: {s9[a]:.3f}"
                                                                        for a in s9.index)
                     + f" vs -1/(3+alpha) for the statistical term ({'rises' if worse else 'does NOT rise'} "
                       "with alpha)")
        return df, ok, "; ".join(parts)
    # O~ rates: the fitted slope includes the hidden logarithms, so the check is on the exponent of the term that
    # dominates at the largest n (the printed exponent) and on the fitted slope lying between that exponent - 0.05
    # and 0 (logs only slow it).  The printed exponent of n is the paper's; dpviz's terms follow its corrections
    # (Theorem.discrepancy), so a printed rate that the terms do not give is reported as not shown.
    parts, ok = [], True
    for th, g in df.groupby("theorem"):
        last = g.sort_values("n").iloc[-1]
        s = float(g["slope_bound"].iloc[0])
        want = _PRINTED_N_EXP.get(th, -0.5)
        dom = float(last["dominant_n_exp"])
        good = abs(dom - want) < 1e-9 and want - 0.05 < s < 0.0
        ok &= good
        txt = (f"{th}: dominant term at n = {int(last['n']):g} is '{last['dominant_term']}' with exponent "
               f"{dom:.3f}, fitted slope over n = {int(g['n'].min()):g}..{int(g['n'].max()):g} {s:.3f} "
               f"({'consistent with' if good else 'NOT consistent with'} the printed O~(n^{want:g}); the "
               "logarithms the O~ hides flatten the fitted slope)")
        if not good:
            txt += f" — dpviz's terms follow its correction: {catalog.get_theorem(th).discrepancy.rstrip('.')}"
        parts.append(txt)
    if "eps" in e.fixed and any(th in ("yang-pairwise-cor2", "yang-pairwise-cor4") for th in e.theorems):
        parts.append(f"the exponent of eps (printed -1/2 in Corollaries 2 and 4, -1 in dpviz's reading) is not "
                     f"tested here: eps is fixed at {e.fixed['eps']:g}")
    return df, ok, "; ".join(parts)


def _figure(e: Experiment, df):
    import plotly.graph_objects as go

    fig = go.Figure()
    if e.kind == "region":
        piv = df.pivot(index="eps", columns="n", values="beta_exists").astype(float)
        fig.add_trace(go.Heatmap(x=piv.columns, y=piv.index, z=piv.to_numpy(), showscale=False, opacity=0.5,
                                 colorscale=[[0, "#ffffff"], [1, "#9ecae1"]], name="a beta exists (catalogue)"))
        thr = df.groupby("n")["lemma13_threshold"].first()
        fig.add_trace(go.Scatter(x=thr.index, y=thr.to_numpy(), mode="lines", name="Lemma 13 threshold",
                                 line=dict(color="#d62728", width=3)))
        if "eps_min_feasible" in df:
            e_min = df.groupby("n")["eps_min_feasible"].first()
            fig.add_trace(go.Scatter(x=e_min.index, y=e_min.to_numpy(), mode="lines",
                                     name="smallest ε with a feasible β (Theorem 11's conditions)",
                                     line=dict(color="#08519c", width=2, dash="dash")))
            bad = df.groupby("n")["lemma13_holds"].first()
            bad = bad[~bad]
            if len(bad):
                fig.add_trace(go.Scatter(x=bad.index, y=thr.loc[bad.index].to_numpy(), mode="markers",
                                         name=f"Lemma 13 fails (n = {int(bad.index.min())} .. {int(bad.index.max())})",
                                         marker=dict(color="#d62728", symbol="x", size=8)))
        fig.update_xaxes(type="log", title="n (T = n, δ = 1/n²)")
        fig.update_yaxes(type="log", title="ε")
    else:
        for (th, a), g in df.groupby(["theorem", "alpha"], dropna=False):
            label = th if (a is None or not np.isfinite(a)) else f"{th}, α = {a:g}"
            fig.add_trace(go.Scatter(x=g["n"], y=g["bound"], mode="lines+markers", name=label))
        fig.update_xaxes(type="log", title="n")
        fig.update_yaxes(type="log", title=e.y)
    fig.update_layout(title=e.what, template="plotly_white")
    return fig


#: the runner of every "simulation" figure (:func:`dpviz.studies.reproduce.run_figure`), named as a study names its
#: ``runner`` and resolved when a figure runs: :mod:`dpviz.studies.reproduce` imports this module (its definitions),
#: never the other way round (issue 34: no import cycle)
FIGURE_RUNNER = "studies.reproduce:run_figure"


def _runner(name: str) -> Callable:
    """The function ``dpviz.<module>:<function>`` that ``name`` ("module:function") names."""
    import importlib

    mod_name, _, fn_name = name.partition(":")
    return getattr(importlib.import_module(f"dpviz.{mod_name}"), fn_name)


def run(experiment_id: str, *, out_dir, points: int | None = None,
        progress: Callable[[float], None] | None = None, reps: int | None = None, seed: int = 0,
        cancel=None) -> dict[str, Any]:
    """Run any reproduction target and write ``ID.csv``, ``ID.html`` and ``ID.md`` under ``out_dir``.

    ``points`` (>= 3) coarsens the grid (each axis gets about that many values) for quick checks; for a study any
    ``points`` asks its runner for its quick (small) grid.  ``reps`` and ``seed`` are read by studies and
    simulation figures only (``reps=None``: the experiment's ``default_reps``; 500 for a figure); ``cancel`` by
    simulation figures (:func:`dpviz.studies.reproduce.run_figure`, whose grid ``points`` does not coarsen).
    """
    e = get(experiment_id)
    if e.kind == "simulation":
        if points is not None:
            raise ValueError(f"{experiment_id!r} is a simulation figure: points does not apply to it (its grid is "
                             "the paper's; use fewer reps for a quick run).")
        run_figure = _runner(FIGURE_RUNNER)  # by name, like a study's runner: reproduce imports this module
        return run_figure(e, reps=reps, seed=seed, out_dir=out_dir, progress=progress, cancel=cancel)
    if e.kind not in ("region", "bounds", "study"):
        raise ValueError(f"{experiment_id!r} has the unknown kind {e.kind!r}.")
    if points is not None:
        points = v.check_int("points", points, minimum=3)
    if out_dir is None:
        raise ValueError("out_dir is required (the directory for the CSV, HTML and Markdown files).")
    out = Path(out_dir)
    try:
        out.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise ValueError(f"cannot create the output directory {str(out_dir)!r}: {exc.strerror or exc}") from None
    from dpviz.theory import catalog

    paper = catalog.get_paper(e.paper).cite()
    csv, html, md = out / f"{e.id}.csv", out / f"{e.id}.html", out / f"{e.id}.md"
    if e.kind == "study":
        return _run_study(e, out=out, points=points, progress=progress, reps=reps, seed=seed, paper=paper)
    df, shown, finding = (_region if e.kind == "region" else _bounds)(e, points, progress)
    df.insert(0, "experiment", e.id)
    df["data"] = "formula (no data)"
    df.to_csv(csv, index=False)
    from dpviz.foundation.figures import readable_log_axes

    fig = readable_log_axes(_figure(e, df))
    fig.write_html(html, include_plotlyjs=True, full_html=True)
    md.write_text(
        f"# {e.id}\n\n{e.what}\n\nPaper: {paper} ({e.paper}), {e.place}.\n\n"
        f"**Claimed finding.** {e.claim}.\n\n"
        f"**Reproduction.** {'Shows the finding' if shown else 'Does NOT show the finding'}: {finding}.\n\n"
        + (f"**Printed claims and dpviz's readings.**\n\n{_readings(e)}\n\n" if e.kind == "bounds" else "")
        + f"Data: none (computed from the paper's formulas with dpviz's catalogue). Fixed: "
        f"{', '.join(f'{k} = {val}' for k, val in e.fixed.items())}. Files: {csv.name}, {html.name}.\n",
        encoding="utf-8")
    if progress is not None:
        progress(1.0)
    return {"csv": csv, "html": html, "md": md, "summary": df, "figure": fig, "shown": shown, "finding": finding}


def _run_study(e: Experiment, *, out: Path, points, progress, reps, seed, paper) -> dict[str, Any]:
    """Run a ``kind == "study"`` experiment through its runner and write its CSV, offline HTML and report."""
    import importlib

    if not e.runner or ":" not in e.runner:
        raise ValueError(f"{e.id}: a study needs its runner as 'module:function'.")
    reps = e.default_reps if reps is None else v.check_int("reps", reps)
    if reps > 10_000:
        raise ValueError(f"reps must be at most 10000, got {reps}.")
    seed = v.check_int("seed", seed, minimum=0)
    if seed > 2**63 - 1:
        raise ValueError(f"seed must be a whole number from 0 to 2^63 - 1, got {seed}.")
    mod_name, fn_name = e.runner.split(":")
    fn = getattr(importlib.import_module(f"dpviz.{mod_name}"), fn_name)
    res = fn(e, reps=reps, seed=seed, quick=points is not None, progress=progress)
    df, findings, fig, data_note = res["df"], res["findings"], res["figure"], res["data_note"]
    if not findings:
        raise ValueError(f"{e.id}: the study returned no findings to check.")
    df = df.copy()
    df.insert(0, "experiment", e.id)
    df["data"] = data_note
    df["reps"] = reps
    df["seed"] = seed
    csv, html, md = out / f"{e.id}.csv", out / f"{e.id}.html", out / f"{e.id}.md"
    df.to_csv(csv, index=False)
    import textwrap

    from dpviz.foundation.figures import readable_log_axes

    sub = "<br>".join(textwrap.wrap(f"{data_note}; {reps} repetitions, seed {seed}", 160))
    fig.update_layout(title=dict(text=f"{e.what}<br><sup>{sub}</sup>"),
                      margin=dict(t=100 + 20 * (sub.count("<br>") + 1)))
    readable_log_axes(fig)
    fig.write_html(html, include_plotlyjs=True, full_html=True)
    shown = all(bool(f["shown"]) for f in findings)
    lines = [f"# {e.id}", "", e.what, "", f"Paper: {paper} ({e.paper}), {e.place}.", "",
             f"**Claimed finding.** {e.claim}.", "",
             f"**Reproduction** ({reps} repetitions, seed {seed}{', quick grid' if points is not None else ''}). "
             f"{'Shows the finding' if shown else 'Does NOT show every part of the finding'}:", ""]
    if res.get("rule"):
        lines += [res["rule"], ""]
    for f in findings:
        lines.append(f"- {f['claim']}: **{'shown' if f['shown'] else 'NOT shown'}** — {f['numbers']}")
    if res.get("paper_notes"):
        lines += ["", "**The paper's reported numbers and its own inconsistencies that bear on this reproduction.**",
                  ""]
        lines += [f"- {t}" for t in res["paper_notes"]]
    if res.get("privacy_notes"):
        lines += ["", "**What is and is not certified private.**", ""]
        lines += [f"- {t}" for t in res["privacy_notes"]]
    lines += ["", f"Data: {data_note}. Files: {csv.name}, {html.name}.", ""]
    md.write_text("\n".join(lines), encoding="utf-8")
    finding = "; ".join(f"{f['claim']}: {'shown' if f['shown'] else 'NOT shown'} ({f['numbers']})" for f in findings)
    if progress is not None:
        progress(1.0)
    return {"csv": csv, "html": html, "md": md, "summary": df, "figure": fig, "shown": shown, "finding": finding,
            "findings": findings}
