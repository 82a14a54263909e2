"""Batched simulation engine for the catalogue's private (and non-private) SGD / GD algorithms.

Public API
----------
``simulate(algorithm_id, data, loss, *, grid=None, reps=100, seed=0, params=None, progress=None, cancel=None,
max_work=DEFAULT_MAX_WORK, evaluate=("risk", "metric"), noise=None, indices=None, output_noise=None)``
    -> :class:`SimulationResult` with ``.frame`` (tidy DataFrame, one row per repetition x grid point),
    ``.summary(value)``, ``.slope(value)``, ``.bounds(theorem_id)``, ``.calibrations``, ``.notes``.
``estimate_cost(algorithm_id, data, loss, *, grid=None, reps=100, params=None, evaluate=("risk", "metric"))``
    -> ``{"work": units, "seconds": estimated wall time, "chains": ..., "steps": ...}`` without running anything.
``CostTooHigh``
    ``ValueError`` raised by :func:`simulate` when the estimated work exceeds ``max_work`` (the message gives the
    estimate in seconds and what to reduce).
``Cancelled``
    raised when ``cancel()`` (or ``cancel.is_set()``) becomes true between blocks of steps.
``supported_algorithms()``
    the algorithm ids the engine runs (those of :data:`SPECS` present in the catalogue).

How it runs
-----------
All repetitions and all grid points advance together: the parameter state has shape ``(G, reps, d)`` (``(G, reps,
d, d)`` for matrix parameters, e.g. metric learning), where G is the number of grid points (e.g. eps values).  Each
step samples one index (or one pair i != j) per chain, computes every chain's (sub)gradient with one vectorised call
of the loss, adds each chain's own Gaussian noise ``sigma_g * b`` (sigma from ``dpviz.catalog.calibrate`` at that
chain's grid point), projects onto the ball of radius ``R`` (if ``R`` is given) and adds the iterate to a running sum
for the averaged output.  Only the current iterate and the running sum are stored.

Random numbers: ``SeedSequence(seed)`` spawns one child per grid point, and each child three independent streams
(indices, per-step noise, output noise) of the fast ``SFC64`` bit generator.  Same seed -> identical results; the
k-th grid point's streams depend only on (seed, k), not on the other grid values; algorithms run with the same seed
share their index sequences (common random numbers, so DP-SGD and SGD differ only by the noise).  SFC64 is used
because it draws normals about 1.4x faster than numpy's default PCG64 (the noise is the engine's floor; see
benchmarks/RESULTS.md).  Noise and indices can be injected (``noise``, ``indices``, ``output_noise``) to check an
update by hand.

Update rules (``SPECS``)
------------------------
* ``sgd`` — projected SGD, output (1/T) sum_{t=1}^T w_t (w_1 = 0); noise-free limit of DP-SGD.
* ``gd`` — projected full-batch GD, output the average of w_0..w_T (noise-free limit of DPGD-C).
* ``dpsgd-rdp`` — Wang, Lei, Ying & Zhou (wang-lownoise), Algorithm 1: w_{t+1} = Proj_W(w_t - eta (grad f(w_t; z_{i_t}) + b_t)),
  i_t ~ Unif[n], b_t ~ N(0, sigma^2 I_d), output (1/T) sum_{t=1}^T w_t.
* ``dpsgd-rdp-pairwise`` — same paper, Algorithm 2: as above with a uniform pair (i_t, j_t), i_t != j_t.
* ``dpsgd-output`` — Wang, Lei, Ying & Zhang (wang-nonsmooth), Algorithm 1: non-private projected SGD, averaged iterate, then one
  Gaussian output noise N(0, sigma^2 I_d).
* ``pairwise-sgd`` — Yang, Lei, Lyu & Ying (yang-pairwise), Algorithm 1: w_1 = 0, i_1 ~ Unif[n]; at step t draw i_{t+1} and
  w_{t+1} = Proj_W(w_t - (eta/t) sum_{k=1}^t grad f(w_t; z_{i_{t+1}}, z_{i_k})), output (1/T) sum_{t=1}^T w_t.  The
  average runs over all previously drawn examples; for a general (non-smooth) loss it cannot be kept as a running sum,
  so step t costs t gradient evaluations and a run costs T(T+1)/2 per chain (the cost guard counts this).
* ``pairwise-sgd-output`` — the same paper, Algorithm 2: Algorithm 1, then Gaussian output noise, and the output
  projected back onto W: w_priv = Proj_W(w_bar_T + u), u ~ N(0, sigma^2 I).
* ``dpsgd-pl`` — Kang, Li, Liu & Wang (kang-pidp), eq. (1) and Theorem 1 (DP-SGD under the PL condition):
  theta_{t+1} = theta_t - eta (grad l(theta_t; z_t) + b), **last iterate** theta_T, eta = 1/L by default; eq. (1)
  has no projection, so leave ``R`` unset to follow the paper.
* ``dpgd-sc`` — Xue, Yang, Huai & Wang (xue-pairwise), Algorithm 1: full-gradient projected GD on the pairwise empirical risk,
  last iterate w_T plus Gaussian (delta > 0) or Laplace (delta = 0) output noise.
* ``dpgd-c`` — Xue, Yang, Huai & Wang (xue-pairwise), Algorithm 2: full gradient + N(0, sigma^2 I) per step, output the average of
  w_0..w_T (the printed ``sum_{i=0}^T (w_0+...+w_T)/(T+1)`` has a spurious outer sum; we follow the plain average).
* ``pidp-sgd`` — Kang, Li, Liu & Wang (kang-pidp), Algorithm 1 (Performance Improving DP-SGD): ``rounds`` global rounds of
  ``T_local`` local steps (T = rounds * T_local).  Each round computes the Hessian H of the empirical risk at the
  round's global model theta^(g) (central finite differences of the loss gradient) and its inverse; each local step
  draws z_t, its influence-function contribution c = H^{-1} grad l(theta^(g); z_t) / n (eq. (11)), enlarges it by the
  approximation error E (Theorem 4) coordinate-wise in magnitude, c_t = 2(c + E sign c) + b^(c), b^(c) ~ N(0,
  sigma_c^2 I), and takes a noisy step w - eta (grad + b), b ~ N(0, sigma^2 I), if some |c_t,i| >= A/(e^{eps1} - 1)
  or ln(A / (A - (e^{eps1} - 1)|c_t,i|)) > 2 eps1 for some i, A = 2 r e^{eps1} delta1 (lines 9-10), else a plain
  step.  Output: the last global model.  Line 2 initialises at theta~; following the issue we take theta~ = the
  non-private empirical risk minimiser (reference solution; note that starting there is not itself private, as in
  the paper) unless ``params["theta0"]`` is given.  ``eps1, delta1, sigma_c, r, E`` come from ``params`` or the
  calibration's ``extras``; r defaults to the domain radius R, E to 0.  The fraction of noisy steps is recorded per
  chain (``noisy_fraction``).
* ``dp-epoch-gd`` — Xue, Yang, Huai & Wang (xue-pairwise), Algorithm 3: k = floor(log2 n) epochs on disjoint consecutive blocks
  D_i of the training data with n_i = floor(n / 2^i) examples (i < k; D_k the rest); epoch i runs n_i full-gradient
  projected GD steps on the pairwise empirical risk of D_i with eta_i = 4^{-i} eta from w_{i-1}, averages its iterates
  w_1..w_{n_i}, and adds N(0, sigma_i^2 I) with sigma_i from the calibration's ``sigma_schedule``; output w_k.

Full-gradient pairwise algorithms cost n(n-1) gradient evaluations per chain-step; the cost guard accounts for it.

Results
-------
Per chain: ``emp_risk`` (training objective at the output; for pairwise losses on a fixed sample of pairs),
``pop_risk`` (on the data set's fresh / held-out sample), ``excess_risk`` = pop_risk - F_ref, where F_ref = F(w*) if
the data set is realizable with known w*, otherwise the minimum of the same evaluation objective found by an accurate
non-private solver (L-BFGS); and a task metric (``mse``, ``error`` = misclassification rate, ``auc`` for pairwise
losses on two-class data; none for metric learning).  Risks use (at most) ``eval_rows`` = 2000 rows / pairs per sample;
the MSE and misclassification rate use the whole fresh / held-out sample.  Columns: algorithm, loss, dataset, kappa,
grid_name, grid, rep, n, eps, delta, T, eta, sigma, feasible, emp_risk, pop_risk, excess_risk, metric_name, metric
(+ noisy_fraction for PIDP-SGD).
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass, field
from typing import Any, Callable

import numpy as np

from dpviz import _validate as v
from dpviz import catalog
from dpviz import stats

__all__ = [
    "simulate",
    "gradient_evaluations",
    "estimate_cost",
    "supported_algorithms",
    "SimulationResult",
    "CostTooHigh",
    "Cancelled",
    "SPECS",
    "DEFAULT_MAX_WORK",
    "SECONDS_PER_UNIT",
]

#: Default cap on work units (chain-steps x parameter dimension x gradients per step).
DEFAULT_MAX_WORK = 2.0e10
#: Measured wall time per work unit on the 2-core reference machine (see benchmarks/RESULTS.md).
SECONDS_PER_UNIT = 1.5e-8
_EVAL_ROWS = 2000  # rows (or pairs) of the evaluation samples used for risks
_BUF_FLOATS = 2_000_000  # size of the per-block random-number buffers


#: ``params`` entries that steer the engine only (not calibration or theorem parameters).
_ENGINE_SWITCHES = ("run_infeasible", "noise_rule")


class CostTooHigh(ValueError):
    """The requested simulation exceeds the work cap."""


class Cancelled(RuntimeError):
    """The simulation was cancelled by the caller."""


@dataclass(frozen=True)
class Spec:
    kind: str  # "sgd" (one example / pair per step) or "full" (full empirical gradient)
    pairs: bool  # pairwise sampling
    noise: str  # "gradient", "output" or "none"
    output: str  # "average" (w_1..w_T), "average0" (w_0..w_T) or "last"
    place: str = ""
    project_output: bool = False  # project the noisy output back onto W (yang-pairwise Algorithm 2: Pi_W(w_bar + u))


SPECS: dict[str, Spec] = {
    "sgd": Spec("sgd", False, "none", "average", "projected SGD"),
    "gd": Spec("full", False, "none", "average0", "projected GD"),
    "dpsgd-rdp": Spec("sgd", False, "gradient", "average", "000 Algorithm 1"),
    "dpsgd-rdp-pairwise": Spec("sgd", True, "gradient", "average", "000 Algorithm 2"),
    "dpsgd-output": Spec("sgd", False, "output", "average", "003 Algorithm 1"),
    "pairwise-sgd": Spec("history", True, "none", "average", "002 Algorithm 1"),
    "pairwise-sgd-output": Spec("history", True, "output", "average", "002 Algorithm 2", project_output=True),
    "dpsgd-pl": Spec("sgd", False, "gradient", "last", "001"),
    "dpgd-sc": Spec("full", True, "output", "last", "004 Algorithm 1"),
    "dpgd-c": Spec("full", True, "gradient", "average0", "004 Algorithm 2"),
    "dp-epoch-gd": Spec("epoch", True, "output", "last", "004 Algorithm 3"),
    "pidp-sgd": Spec("pidp", False, "gradient", "last", "001 Algorithm 1"),
}


def supported_algorithms() -> list[str]:
    """Algorithm ids the engine can run now (in :data:`SPECS` and present in the catalogue)."""
    have = {a.id for a in catalog.algorithms()}
    return [a for a in SPECS if a in have]


# ---------------------------------------------------------------------------------------------------------------
# losses


class _LinearLoss:
    """Fallback least-squares / logistic losses, used only if ``dpviz.losses`` is not importable.

    least squares: f(w; x, y) = (<w, x> - y)^2 / 2;  logistic: f(w; x, y) = log(1 + exp(-y <w, x>)).
    """

    setting = "pointwise"
    param = "vector"

    def __init__(self, kind: str):
        self.kind = kind
        self.alpha = 1.0

    def value(self, w, x, y, x2=None, y2=None):
        m = np.einsum("...i,...i->...", w, x)
        if self.kind == "least-squares":
            return 0.5 * (m - y) ** 2
        return np.logaddexp(0.0, -y * m)

    def grad(self, w, x, y, x2=None, y2=None):
        m = np.einsum("...i,...i->...", w, x)
        if self.kind == "least-squares":
            return (m - y)[..., None] * x
        return (-y * 0.5 * (1.0 - np.tanh(0.5 * y * m)))[..., None] * x

    def constants(self, kappa, R):
        if self.kind == "least-squares":
            return {"G": kappa * (kappa * R + 1.0), "L": kappa**2, "M": kappa, "alpha": 1.0}
        return {"G": kappa, "L": kappa**2 / 4, "M": kappa / 2, "alpha": 1.0}


def _resolve_loss(loss):
    if not isinstance(loss, str):
        for attr in ("grad", "value"):
            if not hasattr(loss, attr):
                raise ValueError(f"the loss object needs a .{attr}(w, x, y, ...) method.")
        return loss, getattr(loss, "id", type(loss).__name__)
    try:
        from dpviz.losses import get_loss  # type: ignore
    except ImportError:
        if loss in ("least-squares", "logistic"):
            return _LinearLoss(loss), loss
        raise ValueError(f"loss {loss!r} is not available (dpviz.losses is missing).") from None
    return get_loss(loss), loss


def _setting(loss) -> str:
    return getattr(loss, "setting", "pointwise")


# ---------------------------------------------------------------------------------------------------------------
# results


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
        """The bound of ``theorem_id`` (default: the first theorem of this algorithm) at each grid point.

        Columns: ``grid``, ``theorem``, ``bound`` (the rate form, the paper's constant c = 1 unless given in
        ``extra``), ``explicit`` (with the paper's explicit constants, NaN where it gives none), ``n_exp`` and
        ``eps_exp`` (exponents of the largest term), ``error`` (why a point has no bound).
        """
        import pandas as pd

        if theorem_id is None:
            ths = [t for t in catalog.theorems() if t.algorithm == self.algorithm]
            if not ths:
                raise ValueError(f"no theorem in the catalogue bounds the algorithm {self.algorithm!r}.")
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


# ---------------------------------------------------------------------------------------------------------------
# set-up


def _grid(grid):
    if grid is None or grid == {}:
        return None, [None]
    if not isinstance(grid, dict) or len(grid) != 1:
        raise ValueError('grid must be a dict with one parameter, e.g. {"eps": [0.5, 1, 2]} or {"n": [500, 1000]}.')
    (name, values), = grid.items()
    values = list(np.atleast_1d(np.asarray(values, dtype=float)))
    if not values:
        raise ValueError(f"the grid over {name} is empty.")
    if len(values) > 200:
        raise ValueError(f"at most 200 grid points, got {len(values)}.")
    return str(name), [float(x) for x in values]


def _plan(algorithm_id, data, loss, grid, reps, params):
    """Validate inputs and compute per-grid-point settings (n, T, eta, sigma, ...)."""
    if algorithm_id not in SPECS:
        raise ValueError(
            f"the simulation engine does not run {algorithm_id!r}; it runs: {', '.join(supported_algorithms())}")
    spec = SPECS[algorithm_id]
    if not all(hasattr(data, a) for a in ("X", "y", "X_test", "y_test", "task")):
        raise ValueError("data must be a dpviz.data.Dataset (use dpviz.data.load_dataset or dpviz.data.from_csv).")
    try:
        alg_name = catalog.get_algorithm(algorithm_id).name
    except ValueError:
        # the update rule is known but the paper's calibration is not in the catalogue: runnable only with an
        # explicit noise level (params["sigma"]) or as a noise-free run
        if spec.noise != "none" and (params or {}).get("sigma") is None and \
                (params or {}).get("sigma_schedule") is None:
            raise ValueError(f"the calibration of {algorithm_id!r} is not in the catalogue; give params['sigma'].") \
                from None
        alg_name = algorithm_id
    lossobj, loss_id = _resolve_loss(loss)
    reps = v.check_int("reps", reps)
    params = dict(params or {})
    gname, gvals = _grid(grid)
    setting = _setting(lossobj)
    if spec.pairs and setting != "pairwise":
        raise ValueError(f"{alg_name} is a pairwise algorithm; choose a pairwise loss (e.g. auc-square).")
    if not spec.pairs and setting == "pairwise":
        raise ValueError(f"{alg_name} is for pointwise losses; {loss_id!r} is pairwise.")
    matrix = getattr(lossobj, "param", "vector") == "matrix"
    d = data.d
    pshape = (d, d) if matrix else (d,)
    R = params.get("R")
    R = None if R is None else v.check_positive("R (domain radius)", R)
    plans = []
    sig_list = params.get("sigma")
    if sig_list is not None and np.ndim(sig_list) > 0:
        if len(sig_list) != len(gvals):
            raise ValueError(f"params['sigma'] lists {len(sig_list)} values for {len(gvals)} grid points.")
    for gi, gv in enumerate(gvals):
        p = dict(params)
        if gname is not None:
            p[gname] = int(gv) if gname in ("n", "T") else gv
        n = v.check_n(p.get("n", data.n))
        if n > data.n:
            raise ValueError(f"n = {n} exceeds the {data.n} training examples of the data set.")
        p["n"] = n
        p["d"] = int(np.prod(pshape))
        if hasattr(lossobj, "constants") and R is not None:
            try:
                const = lossobj.constants(kappa=max(data.x_bound, 1e-12), R=R)
            except (TypeError, ValueError):
                const = {}
            for k, val in const.items():
                p.setdefault(k, val)
        if "delta" not in p and spec.noise != "none":
            p["delta"] = 1.0 / n**2
        if algorithm_id == "dpsgd-pl" and "eta" not in p and p.get("L"):
            p["eta"] = 1.0 / float(p["L"])
        sigma_override = p.pop("sigma", None)
        if sigma_override is not None and np.ndim(sigma_override) > 0:
            sigma_override = float(np.asarray(sigma_override, dtype=float)[gi])
        if spec.noise == "none":
            cal = catalog.Calibration(id=algorithm_id, feasible=True, sigma=0.0, reason="non-private: no noise")
        elif sigma_override is not None:
            cal = catalog.Calibration(id=algorithm_id, feasible=True, sigma=v.check_nonnegative("sigma", sigma_override),
                                      reason="noise standard deviation set by the caller")
        elif p.get("sigma_schedule") is not None:
            sched_in = [v.check_nonnegative("sigma_schedule entry", x) for x in p["sigma_schedule"]]
            cal = catalog.Calibration(id=algorithm_id, feasible=True, sigma_schedule=sched_in,
                                      reason="per-epoch noise set by the caller")
        else:
            cal = catalog.calibrate(algorithm_id, **{k: val for k, val in p.items()
                                                     if k not in ("run_infeasible", "noise_rule")})
        T = p.get("T", cal.T)
        eta = p.get("eta", cal.eta)
        if spec.kind == "epoch":
            T = sum(_epoch_sizes(n)) if T is None else T  # total number of GD steps over all epochs
        if algorithm_id == "pidp-sgd":
            if T is None and p.get("rounds") is not None and p.get("T_local") is not None:
                T = int(p["rounds"]) * int(p["T_local"])
        if T is None or eta is None:
            raise ValueError(f"{alg_name} needs the number of iterations T and the step size eta (set them in params).")
        T = v.check_int("T", T)
        eta = v.check_positive("eta", eta)
        sched = p.get("sigma_schedule", cal.sigma_schedule)
        epoch_laplace = False
        if spec.kind == "epoch" and sched is None and cal.extras.get("laplace_schedule") is not None:
            sched = [float(x) for x in cal.extras["laplace_schedule"]]  # delta = 0: Laplace noise per epoch
            epoch_laplace = True
        if spec.kind == "epoch":
            if sched is None:
                raise ValueError("DP epoch GD needs the per-epoch noise levels (the calibration's sigma_schedule).")
            if len(sched) != len(_epoch_sizes(n)):
                raise ValueError(f"sigma_schedule has {len(sched)} entries; n = {n} gives {len(_epoch_sizes(n))} epochs.")
            if cal.sigma is None and not epoch_laplace:
                cal.sigma = float(sched[0])
        rule = params.get("noise_rule", "calibrated")
        if rule not in ("calibrated", "experiment"):
            raise ValueError(f"noise_rule must be 'calibrated' or 'experiment', got {rule!r}.")
        if (sigma_override is None and cal.extras.get("sigma_unconstrained") is not None
                and (rule == "experiment" or (cal.sigma is None and params.get("run_infeasible")))):
            # the noise formula at the beta that minimises it over all of (0, 1), ignoring the sufficient privacy
            # conditions -- the rule of the papers' own experiments (Wang, Lei, Ying & Zhou (wang-lownoise), Section 5.1)
            cal.sigma = float(cal.extras["sigma_unconstrained"])
            cal.feasible = cal.feasible and rule != "experiment"
            cal.notes = list(cal.notes) + ["sigma from the paper's formula at the sigma-minimising beta, without "
                                           "the theorem's privacy conditions (as in the paper's experiments)"]
            if rule == "experiment":
                cal.reason = ("noise rule of the paper's experiments (beta minimising sigma over (0, 1)); the "
                              "theorem's privacy conditions are not checked")
        sigma = cal.sigma if cal.sigma is not None else 0.0
        lap = cal.laplace_scale if (cal.sigma is None and cal.laplace_scale is not None) else None
        # sigma_rule="printed": the user picked a paper's closed-form sigma (labelled "not private" when it fails the
        # exact Gaussian check); it runs like the experiment rule
        run = cal.feasible or bool(params.get("run_infeasible") or rule == "experiment"
                                   or params.get("sigma_rule") == "printed") and (
            cal.sigma is not None or lap is not None)
        if spec.noise != "none" and cal.sigma is None and lap is None and sched is None:
            run = False
        cal.extras = dict(cal.extras)
        # the parameters of this grid point, as the catalogue's theorems take them (engine switches left out)
        cal.extras["_params"] = {**{k: val for k, val in p.items() if k not in _ENGINE_SWITCHES}, "T": T, "eta": eta}
        pidp = None
        if spec.kind == "pidp":
            pidp = {}
            for key in ("eps1", "delta1", "sigma_c", "r", "E"):
                val = p.get(key, cal.extras.get(key))
                if key == "r" and val is None:
                    val = R
                if key == "E" and val is None:
                    val = 0.0
                if val is None:
                    raise ValueError(f"PIDP-SGD needs {key} (give it in params).")
                pidp[key] = v.check_nonnegative(key, val)
            for key in ("eps1", "delta1", "r"):
                v.check_positive(key, pidp[key])
            from dpviz.papers.kang_pidp import rounds_and_local_steps

            rounds, T_local = rounds_and_local_steps(T, p.get("rounds"), p.get("T_local"))
            pidp["rounds"], pidp["T_local"] = rounds, T_local
            T = rounds * T_local
            pidp["theta0"] = p.get("theta0")
        plans.append({"grid": gv, "n": n, "T": T, "eta": eta, "schedule": sched, "epoch_laplace": epoch_laplace,
                      "pidp": pidp, "sigma": float(sigma), "laplace": lap,
                      "feasible": bool(cal.feasible), "run": bool(run), "cal": cal, "delta": p.get("delta"),
                      "eps": p.get("eps")})
    return alg_name, spec, lossobj, loss_id, reps, gname, gvals, pshape, R, plans, params


def gradient_evaluations(algorithm_id: str, *, n: int, T: int) -> float:
    """(Pair-)gradient evaluations of one run of ``algorithm_id`` with its update rule in :data:`SPECS`.

    One per SGD step; T(T+1)/2 for the history-averaged pairwise SGD of Yang, Lei, Lyu & Ying (yang-pairwise) (Algorithm 1, step
    t averages over t pairs); n (pointwise) or n(n - 1) (pairwise) per full-gradient step; for DP epoch GD
    (Xue, Yang, Huai & Wang (xue-pairwise), Algorithm 3) n_i full pairwise-gradient steps on each block of n_i examples; for
    PIDP-SGD two per step (the gradient and the influence-function contribution; the per-round Hessians are extra).
    """
    if algorithm_id not in SPECS:
        raise ValueError(f"the simulation engine does not run {algorithm_id!r}; it runs: {', '.join(SPECS)}")
    n = v.check_n(n)
    T = v.check_int("T", T)
    spec = SPECS[algorithm_id]
    if spec.kind == "epoch":
        return float(sum(m * m * (m - 1) for m in _epoch_sizes(n)))
    if spec.kind == "history":
        return T * (T + 1) / 2
    if spec.kind == "pidp":
        return 2.0 * T
    if spec.kind == "sgd":
        return float(T)
    return float(T * (n * (n - 1) if spec.pairs else n))


def _work(algorithm_id, spec, reps, pshape, plans, evaluate=("risk", "metric"), eval_rows=_EVAL_ROWS):
    D = int(np.prod(pshape))
    total = 0.0
    if "risk" in evaluate:  # empirical and population risk on eval_rows rows (or pairs) per chain
        total += 2 * len(plans) * reps * eval_rows * D
    for pl in plans:
        if not pl["run"]:
            continue
        total += reps * D * gradient_evaluations(algorithm_id, n=pl["n"], T=pl["T"])
        if spec.kind == "pidp":  # per round: 2 D full gradients (Hessian) + its inverse
            total += reps * pl["pidp"]["rounds"] * (2 * D * pl["n"] * D + D**3)
    return total


def estimate_cost(algorithm_id: str, data, loss, *, grid=None, reps: int = 100, params=None,
                  evaluate=("risk", "metric"), eval_rows: int = _EVAL_ROWS) -> dict[str, float]:
    """Estimate the work of :func:`simulate` without running it.

    Returns ``{"work": units, "seconds": estimated seconds, "chains": G * reps, "steps": max T}``; one work unit is
    one gradient coordinate of one chain at one step (``SECONDS_PER_UNIT`` seconds on the reference machine).
    """
    _, spec, _, _, reps, _, gvals, pshape, _, plans, _ = _plan(algorithm_id, data, loss, grid, reps, params)
    work = _work(algorithm_id, spec, reps, pshape, plans, evaluate, v.check_int("eval_rows", eval_rows, minimum=10))
    return {"work": work, "seconds": work * SECONDS_PER_UNIT, "chains": len(gvals) * reps,
            "steps": max(p["T"] for p in plans)}


# ---------------------------------------------------------------------------------------------------------------
# the engine


def _epoch_sizes(n: int) -> list[int]:
    """Block sizes of Algorithm 3 of Xue, Yang, Huai & Wang (xue-pairwise): n_i = floor(n/2^i) for i < k = floor(log2 n), D_k the rest."""
    k = max(1, int(math.floor(math.log2(n))))
    sizes = [n // 2**i for i in range(1, k)]
    sizes.append(n - sum(sizes))
    return sizes


def _history_grad(lossobj, w, X, y, new, hist):
    """(1/t) sum_{k<=t} grad f(w; z_new, z_{i_k}) for every chain (Yang, Lei, Lyu & Ying (yang-pairwise), Algorithm 1)."""
    t = hist.shape[-1]
    xn, yn = X[new][:, :, None], y[new][:, :, None]
    we = w[:, :, None]
    c = max(1, _BUF_FLOATS // max(1, w.size))
    out = np.zeros_like(w)
    for s in range(0, t, c):
        H = hist[:, :, s:s + c]
        out += lossobj.grad(we, xn, yn, X[H], y[H]).sum(axis=2)
    return out / t


def _run_epochs(lossobj, wg, X, y, n, eta, schedule, R, nparam, rng, z_inject=None, laplace=False):
    """Algorithm 3 (DPEGD) of Xue, Yang, Huai & Wang (xue-pairwise) for all repetitions of one grid point; wg: (reps, ...).

    ``schedule`` holds the per-epoch Gaussian standard deviations sigma_i, or with ``laplace=True`` the per-epoch
    Laplace scales (the delta = 0 variant of Algorithm 3: coordinate-wise Lap(scale_i) noise).
    """
    start = 0
    for i, m in enumerate(_epoch_sizes(n), start=1):
        Xi, yi = X[start:start + m], y[start:start + m]
        start += m
        eta_i = eta * 4.0 ** (-i)
        acc = np.zeros_like(wg)
        for _ in range(m):
            wg = _project(wg - eta_i * _full_grad(lossobj, wg, Xi, yi, True, nparam), R, nparam)
            acc += wg
        if z_inject is not None:
            z = z_inject[i - 1]
        elif laplace:
            z = rng.laplace(0.0, 1.0, size=wg.shape)
        else:
            z = rng.standard_normal(size=wg.shape)
        wg = acc / m + schedule[i - 1] * z
    return wg


def _hessian(lossobj, w, X, y, h=1e-5):
    """Hessian of the empirical risk at each row of w (reps, d) by central differences of the mean gradient."""
    reps, d = w.shape
    H = np.empty((reps, d, d))
    for j in range(d):
        e = np.zeros(d)
        e[j] = h
        H[:, :, j] = (_full_grad(lossobj, w + e, X, y, False, 1) - _full_grad(lossobj, w - e, X, y, False, 1)) / (2 * h)
    return 0.5 * (H + np.swapaxes(H, 1, 2))


def _solve_erm(lossobj, X, y, d):
    from scipy.optimize import minimize

    def fun(w):
        return float(np.mean(lossobj.value(w[None], X, y))), np.mean(lossobj.grad(w[None], X, y), axis=0)

    return minimize(fun, np.zeros(d), jac=True, method="L-BFGS-B", options={"maxiter": 500, "gtol": 1e-10}).x


def _run_pidp(lossobj, X, y, pl, reps, R, rng_idx, rng_noise, noise=None, indices=None, g=0):
    """Algorithm 1 (PIDP-SGD) of Kang, Li, Liu & Wang (kang-pidp) for all repetitions of one grid point.

    Returns the last global model (reps, d) and the fraction of noisy steps per chain.
    """
    n, eta, sigma = pl["n"], pl["eta"], pl["sigma"]
    q = pl["pidp"]
    Xn, yn = X[:n], y[:n]
    d = X.shape[1]
    theta0 = q["theta0"]
    theta0 = _solve_erm(lossobj, Xn, yn, d) if theta0 is None else np.asarray(theta0, dtype=float).reshape(d)
    w = np.tile(theta0, (reps, 1))
    ke = math.expm1(q["eps1"])
    A = 2.0 * q["r"] * math.exp(q["eps1"]) * q["delta1"]
    noisy = np.zeros(reps)
    t = 0
    for _ in range(q["rounds"]):
        wg = w.copy()  # theta^(g)
        H = _hessian(lossobj, wg, Xn, yn)
        Hinv = np.linalg.pinv(H)
        for _ in range(q["T_local"]):
            i = np.asarray(indices(t), dtype=np.intp)[g] if indices is not None else rng_idx.integers(0, n, reps)
            c = np.einsum("rij,rj->ri", Hinv, lossobj.grad(wg, Xn[i], yn[i])) / n
            c = 2.0 * (c + q["E"] * np.sign(c))
            if q["sigma_c"] > 0:
                c = c + q["sigma_c"] * rng_noise.standard_normal(c.shape)
            a = np.abs(c)
            big = np.any(a >= A / ke, axis=1)
            with np.errstate(divide="ignore", invalid="ignore"):
                small_ok = np.all(np.log(A / (A - ke * a)) <= 2.0 * q["eps1"], axis=1)
            use_noise = big | ~small_ok
            b = np.asarray(noise(t), dtype=float)[g] if noise is not None else rng_noise.standard_normal(w.shape)
            grad = lossobj.grad(w, Xn[i], yn[i]) + (sigma * use_noise)[:, None] * b
            w = _project(w - eta * grad, R, 1)
            noisy += use_noise
            t += 1
    return w, noisy / max(t, 1)


def _bcast(vals, ndim):
    return np.asarray(vals, dtype=float).reshape((-1,) + (1,) * (ndim - 1))


def _project(w, R, nparam):
    if R is None:
        return w
    if nparam == 1:
        sq = np.einsum("...i,...i->...", w, w)[..., None]
    else:
        sq = np.einsum("...ij,...ij->...", w, w)[..., None, None]
    if sq.max() <= R * R:
        return w
    w *= np.minimum(1.0, R / np.sqrt(np.maximum(sq, 1e-300)))
    return w


def _full_grad(lossobj, wg, X, y, pairs, nparam):
    """Mean (sub)gradient of the empirical risk over all n examples (or all n(n-1) ordered pairs i != j)."""
    reps = wg.shape[0]
    D = int(np.prod(wg.shape[1:]))
    n = X.shape[0]
    out = np.zeros_like(wg)
    if not pairs:
        b = max(1, _BUF_FLOATS // max(1, reps * D))
        we = wg[:, None]
        for s in range(0, n, b):
            out += lossobj.grad(we, X[None, s:s + b], y[None, s:s + b]).sum(axis=1)
        return out / n
    b = max(1, _BUF_FLOATS // max(1, reps * D * n))
    we = wg[:, None, None]
    for s in range(0, n, b):
        Xi, yi = X[s:s + b], y[s:s + b]
        g = lossobj.grad(we, Xi[None, :, None], yi[None, :, None], X[None, None, :], y[None, None, :])
        out += g.sum(axis=(1, 2))
        out -= lossobj.grad(wg[:, None], Xi[None], yi[None], Xi[None], yi[None]).sum(axis=1)  # remove i == j
    return out / (n * (n - 1))


def _check_cancel(cancel):
    if cancel is None:
        return
    stop = cancel.is_set() if hasattr(cancel, "is_set") else cancel()
    if stop:
        raise Cancelled("simulation cancelled")


def simulate(algorithm_id: str, data, loss, *, grid=None, reps: int = 100, seed: int = 0, params=None,
             progress: Callable[[float], None] | None = None, cancel=None, max_work: float | None = DEFAULT_MAX_WORK,
             evaluate=("risk", "metric"), eval_rows: int = _EVAL_ROWS, noise=None, indices=None,
             output_noise=None) -> SimulationResult:
    """Run ``reps`` repetitions of ``algorithm_id`` at every grid point, all chains at once.

    Parameters
    ----------
    algorithm_id : str
        A catalogue algorithm in :func:`supported_algorithms`.
    data : dpviz.data.Dataset
        Training sample (the first ``n`` rows are used) and evaluation sample.
    loss : str or loss object
        A loss id of :mod:`dpviz.losses` (or an object with ``value``/``grad``/``setting``/``param``).
    grid : dict, optional
        One swept parameter, e.g. ``{"eps": [0.5, 1, 2]}`` or ``{"n": [500, 1000, 2000]}``.
    reps : int
        Repetitions per grid point.
    seed : int
        Seed of the algorithm's randomness.
    params : dict
        Fixed parameters passed to the calibration (``eps, delta, T, eta, R, G, L, M, alpha, beta, ...``).  ``R`` is
        also the radius of the projection ball (no projection if absent); G, L, M, alpha default to the loss's
        constants for ``||x|| <= max ||x_i||`` and radius R.  ``delta`` defaults to 1/n^2.  ``sigma`` overrides the
        calibrated noise (one value, or one per grid point); ``run_infeasible=True`` runs grid points whose calibration is infeasible but gives a sigma.
        ``noise_rule="experiment"`` uses, for calibrations that choose beta (DP-SGD with Rényi accounting), the sigma at
        the beta minimising it over all of (0, 1) without the privacy conditions -- the rule of the paper's own
        experiments (Wang, Lei, Ying & Zhou (wang-lownoise), Section 5.1); such points are marked infeasible in the results.
    progress : callable, optional
        Called with the fraction done (0..1) after every block of steps.
    cancel : callable or threading.Event, optional
        Checked between blocks; when true, :class:`Cancelled` is raised.
    max_work : float or None
        Refuse (:class:`CostTooHigh`) when the estimated work exceeds this; None disables the guard.
    evaluate : tuple
        Which outputs to compute: ``"risk"`` (empirical, population, excess risk) and/or ``"metric"``.
    eval_rows : int
        Rows (pairs for pairwise losses) of the training and of the fresh / held-out sample on which the risks are
        evaluated (default 2000; the metric always uses the whole fresh / held-out sample).
    noise, indices : callable, optional
        Injection for hand-checked runs: ``noise(t)`` returns standard normals of the state shape (G, reps, ...)
        for step t (0-based); ``indices(t)`` returns (G, reps) indices (a pair of such arrays for pairwise).
    output_noise : array, optional
        Standard normals of the state shape for output perturbation.

    Returns
    -------
    SimulationResult
    """
    t_start = time.perf_counter()
    alg, spec, lossobj, loss_id, reps, gname, gvals, pshape, R, plans, params = _plan(
        algorithm_id, data, loss, grid, reps, params)
    seed = v.check_int("seed", seed, minimum=0)
    eval_rows = v.check_int("eval_rows", eval_rows, minimum=10)
    work = _work(algorithm_id, spec, reps, pshape, plans, evaluate, eval_rows)
    if max_work is not None and work > max_work:
        raise CostTooHigh(
            f"this simulation needs about {work:.3g} work units (~{work * SECONDS_PER_UNIT:.0f} s), above the cap of "
            f"{max_work:.3g} (~{max_work * SECONDS_PER_UNIT:.0f} s); reduce repetitions, grid points, T or n.")
    G = len(plans)
    nparam = len(pshape)
    shape = (G, reps) + pshape
    ndim = len(shape)
    children = np.random.SeedSequence(seed).spawn(G)
    rngs = [[np.random.Generator(np.random.SFC64(s)) for s in ch.spawn(3)] for ch in children]
    active_g = np.array([p["run"] for p in plans])
    Tg = np.array([p["T"] if p["run"] else 0 for p in plans])
    Tmax = int(Tg.max()) if G else 0
    ng = np.array([p["n"] for p in plans])
    eta = _bcast([p["eta"] for p in plans], ndim)
    sig = _bcast([p["sigma"] for p in plans], ndim)
    grad_noise = spec.noise == "gradient" and np.any(sig > 0)
    sig_scalar = float(sig.ravel()[0]) if np.all(sig == sig.ravel()[0]) else None
    eta_scalar = float(eta.ravel()[0]) if np.all(eta == eta.ravel()[0]) else None
    X, y = np.asarray(data.X, float), np.asarray(data.y, float)

    w = np.zeros(shape)
    acc = np.zeros(shape) if spec.output != "last" else None
    D = int(np.prod(pshape))
    K = max(1, min(Tmax, _BUF_FLOATS // max(1, G * reps * D))) if Tmax else 1
    nbuf = np.zeros((G, K, reps) + pshape) if (grad_noise and noise is None) else None
    if spec.kind in ("sgd", "history") and indices is None:
        ibuf = np.zeros((G, K, reps), dtype=np.intp)  # zeros: chains that do not run (infeasible) read index 0
        jbuf = np.zeros((G, K, reps), dtype=np.intp) if (spec.pairs and spec.kind == "sgd") else None
    if spec.kind == "history":
        hist = np.zeros((G, reps, Tmax + 1), dtype=np.intp)
        for g in range(G):
            hist[g, :, 0] = (np.asarray(indices(0), dtype=np.intp)[g] if indices is not None
                             else rngs[g][0].integers(0, ng[g], size=reps))
    noisy_frac = None
    if spec.kind == "pidp":
        if len(pshape) != 1:
            raise ValueError("PIDP-SGD is implemented for vector parameters only.")
        noisy_frac = np.full((G, reps), np.nan)
        for g, pl in enumerate(plans):
            if pl["run"]:
                w[g], noisy_frac[g] = _run_pidp(lossobj, X, y, pl, reps, R, rngs[g][0], rngs[g][1], noise, indices, g)
            if progress is not None:
                progress(0.9 * (g + 1) / G)
            _check_cancel(cancel)
        Tmax = 0
    if spec.kind == "epoch":
        for g, pl in enumerate(plans):
            if pl["run"]:
                w[g] = _run_epochs(lossobj, w[g], X, y, pl["n"], pl["eta"], pl["schedule"], R, nparam, rngs[g][2],
                                   None if output_noise is None else np.asarray(output_noise, float)[g],
                                   laplace=pl["epoch_laplace"])
            if progress is not None:
                progress(0.9 * (g + 1) / G)
            _check_cancel(cancel)
        Tmax = 0
    uniform_T = bool(np.all(Tg == Tmax))
    for t0 in range(0, Tmax, K):
        k = min(K, Tmax - t0)
        for g in range(G):
            if t0 >= Tg[g]:
                continue
            if nbuf is not None:
                rngs[g][1].standard_normal(out=nbuf[g, :k])
            if spec.kind in ("sgd", "history") and indices is None:
                ibuf[g, :k] = rngs[g][0].integers(0, ng[g], size=(k, reps))
                if jbuf is not None:  # uniform j != i
                    j = rngs[g][0].integers(0, ng[g] - 1, size=(k, reps))
                    jbuf[g, :k] = j + (j >= ibuf[g, :k])
        for s in range(k):
            t = t0 + s
            if spec.kind == "sgd":
                if indices is not None:
                    I = indices(t)
                    if spec.pairs:
                        I, J = (np.asarray(a, dtype=np.intp) for a in I)
                    else:
                        I = np.asarray(I, dtype=np.intp)
                else:
                    I = ibuf[:, s]
                    J = jbuf[:, s] if spec.pairs else None
                if spec.pairs:
                    grad = lossobj.grad(w, X[I], y[I], X[J], y[J])
                else:
                    grad = lossobj.grad(w, X[I], y[I])
            elif spec.kind == "history":
                new = np.asarray(indices(t + 1), dtype=np.intp) if indices is not None else ibuf[:, s]
                hist[:, :, t + 1] = new
                grad = _history_grad(lossobj, w, X, y, new, hist[:, :, :t + 1])
            else:
                grad = np.stack([_full_grad(lossobj, w[g], X[:ng[g]], y[:ng[g]], spec.pairs, nparam)
                                 if t < Tg[g] else np.zeros(w.shape[1:]) for g in range(G)])
            grad = np.array(grad, dtype=float, copy=True) if not isinstance(grad, np.ndarray) else grad
            if grad_noise:
                b = noise(t) if noise is not None else nbuf[:, s]
                if sig_scalar is not None:
                    grad = grad + sig_scalar * b
                else:
                    grad = grad + sig * b
            if acc is not None:
                if uniform_T:
                    acc += w
                else:
                    acc += w * _bcast(t < Tg, ndim)
            grad *= eta_scalar if eta_scalar is not None else eta
            if uniform_T:
                w = _project(w - grad, R, nparam)
            else:
                w = np.where(_bcast(t < Tg, ndim) > 0, _project(w - grad, R, nparam), w)
        if progress is not None:
            progress(0.9 * (t0 + k) / Tmax)
        _check_cancel(cancel)

    T_b = _bcast(np.maximum(Tg, 1), ndim)
    if spec.output == "average":
        out = acc / T_b
    elif spec.output == "average0":
        out = (acc + w) / (T_b + 1)
    else:
        out = w
    if spec.noise == "output" and spec.kind != "epoch":
        for g, pl in enumerate(plans):
            if not pl["run"]:
                continue
            if output_noise is not None:
                z = np.asarray(output_noise, dtype=float)[g]
            elif pl["laplace"] is not None:
                z = rngs[g][2].laplace(0.0, 1.0, size=out.shape[1:])
            else:
                z = rngs[g][2].standard_normal(size=out.shape[1:])
            scale = pl["laplace"] if pl["laplace"] is not None else pl["sigma"]
            out[g] = out[g] + scale * z
            if spec.project_output:
                out[g] = _project(out[g], R, nparam)
    out[~active_g] = np.nan

    frame, notes = _evaluate(out, data, lossobj, spec, plans, reps, evaluate, pshape, eval_rows)
    if noisy_frac is not None:
        frame["noisy_fraction"] = noisy_frac.ravel()
    frame.insert(0, "algorithm", algorithm_id)
    frame.insert(1, "loss", loss_id)
    frame.insert(2, "dataset", getattr(data, "name", ""))
    frame.insert(3, "kappa", float(getattr(data, "kappa", 0.0)))
    frame.insert(4, "grid_name", gname or "")
    if progress is not None:
        progress(1.0)
    for pl in plans:
        where = f"grid point {gname} = {pl['grid']:g}" if gname else "the run"
        if not pl["run"]:
            notes.append(f"{where}: not run ({pl['cal'].reason})")
        elif not pl["feasible"]:
            notes.append(f"{where} ran although the calibration is infeasible: {pl['cal'].reason}")
    return SimulationResult(algorithm_id, loss_id, getattr(data, "name", ""), gname, gvals if gname else [],
                            frame, [p["cal"] for p in plans], params, notes, time.perf_counter() - t_start, out)


# ---------------------------------------------------------------------------------------------------------------
# evaluation


def _eval_sample(data, pairs, which, rows, seed=12345):
    X = np.asarray(data.X if which == "train" else data.X_test, float)
    y = np.asarray(data.y if which == "train" else data.y_test, float)
    rng = np.random.Generator(np.random.PCG64(seed))
    m = min(rows, len(y))
    idx = rng.choice(len(y), size=m, replace=False) if m < len(y) else np.arange(len(y))
    if not pairs:
        return X[idx], y[idx], None, None
    j = rng.integers(0, len(y) - 1, size=m)
    j = j + (j >= idx)
    return X[idx], y[idx], X[j], y[j]


def _mean_loss(lossobj, W, Xs, ys, X2, y2):
    """Mean loss of each chain (W: (C, ...)) over the evaluation sample, in memory-bounded chunks."""
    C = W.shape[0]
    m, D = Xs.shape[0], int(np.prod(W.shape[1:]))
    c = max(1, _BUF_FLOATS // max(1, m * D))
    out = np.empty(C)
    for s in range(0, C, c):
        we = W[s:s + c, None]
        if X2 is None:
            val = lossobj.value(we, Xs[None], ys[None])
        else:
            val = lossobj.value(we, Xs[None], ys[None], X2[None], y2[None])
        out[s:s + c] = np.mean(val, axis=1)
    return out


def _reference(lossobj, data, Xs, ys, X2, y2, pshape):
    """F_ref: F(w*) when realizable with known w*, else min of the evaluation objective (L-BFGS)."""
    if data.realizable and data.w_star is not None and tuple(np.shape(data.w_star)) == pshape:
        return float(_mean_loss(lossobj, np.asarray(data.w_star, float)[None], Xs, ys, X2, y2)[0]), "F(w*)"
    from scipy.optimize import minimize

    def fun(flat):
        w = flat.reshape(pshape)
        if X2 is None:
            val = lossobj.value(w[None], Xs, ys)
            gr = lossobj.grad(w[None], Xs, ys)
        else:
            val = lossobj.value(w[None], Xs, ys, X2, y2)
            gr = lossobj.grad(w[None], Xs, ys, X2, y2)
        return float(np.mean(val)), np.mean(gr, axis=0).ravel()

    x0 = np.zeros(int(np.prod(pshape))) if data.w_star is None or tuple(np.shape(data.w_star)) != pshape \
        else np.asarray(data.w_star, float).ravel()
    res = minimize(fun, x0, jac=True, method="L-BFGS-B", options={"maxiter": 500, "gtol": 1e-10})
    return float(res.fun), "non-private solver"


def _auc(scores, y):
    """AUC of each row of ``scores`` (C, m) for labels y in {-1, +1} (ties count 1/2)."""
    from scipy.stats import rankdata

    pos = y > 0
    n1, n0 = int(pos.sum()), int((~pos).sum())
    if n1 == 0 or n0 == 0:
        return np.full(scores.shape[0], np.nan)
    r = rankdata(scores, axis=1)
    return (r[:, pos].sum(axis=1) - n1 * (n1 + 1) / 2) / (n1 * n0)


def _evaluate(out, data, lossobj, spec, plans, reps, evaluate, pshape, eval_rows=_EVAL_ROWS):
    import pandas as pd

    G = len(plans)
    W = out.reshape((G * reps,) + pshape)
    ok = np.all(np.isfinite(W.reshape(G * reps, -1)), axis=1)
    notes: list[str] = []
    cols: dict[str, Any] = {
        "grid": np.repeat([p["grid"] if p["grid"] is not None else np.nan for p in plans], reps),
        "rep": np.tile(np.arange(reps), G),
        "n": np.repeat([p["n"] for p in plans], reps),
        "eps": np.repeat([p["eps"] if p["eps"] is not None else np.nan for p in plans], reps),
        "delta": np.repeat([p["delta"] if p["delta"] is not None else np.nan for p in plans], reps),
        "T": np.repeat([p["T"] for p in plans], reps),
        "eta": np.repeat([p["eta"] for p in plans], reps),
        "sigma": np.repeat([p["sigma"] for p in plans], reps),
        "feasible": np.repeat([p["feasible"] for p in plans], reps),
    }
    Wok = W[ok]
    if "risk" in evaluate:
        emp = np.full(G * reps, np.nan)
        pop = np.full(G * reps, np.nan)
        Xs, ys, X2, y2 = _eval_sample(data, spec.pairs, "train", eval_rows)
        Xp, yp, Xp2, yp2 = _eval_sample(data, spec.pairs, "test", eval_rows)
        if Wok.shape[0]:
            emp[ok] = _mean_loss(lossobj, Wok, Xs, ys, X2, y2)
            pop[ok] = _mean_loss(lossobj, Wok, Xp, yp, Xp2, yp2)
        ref, how = _reference(lossobj, data, Xp, yp, Xp2, yp2, pshape)
        notes.append(f"excess risk measured against {how} = {ref:.4g} on the population sample")
        cols["emp_risk"] = emp
        cols["pop_risk"] = pop
        cols["excess_risk"] = pop - ref
    metric_ok = len(pshape) == 1 and (data.task == "classification" if spec.pairs else data.task != "multiclass")
    if "metric" in evaluate and metric_ok:
        Xt, yt = np.asarray(data.X_test, float), np.asarray(data.y_test, float)
        val = np.full(G * reps, np.nan)
        if data.task == "regression":
            # mean((X w - y)^2) = w'Aw - 2 b'w + c with A = X'X/m, b = X'y/m, c = mean(y^2): exact, O(d^2) per chain
            name = "mse"
            m = len(yt)
            A, bb, cc = Xt.T @ Xt / m, Xt.T @ yt / m, float(yt @ yt) / m
            val[ok] = np.einsum("ci,ij,cj->c", Wok, A, Wok) - 2 * Wok @ bb + cc
        elif spec.pairs:
            name = "auc"
            val[ok] = _auc(Wok @ Xt.T, yt) if Wok.shape[0] else []
        else:
            name = "error"
            c = max(1, _BUF_FLOATS // len(yt))
            sc = np.empty(Wok.shape[0])
            for s in range(0, Wok.shape[0], c):
                sc[s:s + c] = np.mean(np.where(Wok[s:s + c] @ Xt.T > 0, 1.0, -1.0) != yt, axis=1)
            val[ok] = sc
        cols["metric_name"] = name
        cols["metric"] = val
    return pd.DataFrame(cols), notes
