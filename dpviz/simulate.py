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
chain's grid point), projects onto the constraint set W of radius ``R`` (if ``R`` is given) and adds the iterate to a
running sum for the averaged output.  Only the current iterate and the running sum are stored.

The set W (``params["constraint"]``, names of :data:`dpviz.projections.KINDS`): the Euclidean ball ||w|| <= R for
vector parameters; for matrix parameters (metric learning) the set of the algorithm's paper by default -- positive
semi-definite W with ||W||_F <= R for Xue, Yang, Huai & Wang (xue-pairwise), Example 1 (``dpgd-sc``, ``dpgd-c``,
``dp-epoch-gd``), the nuclear-norm ball ||W||_{S1} <= R for Yang, Lei, Lyu & Ying (yang-pairwise), Lemma 5
(``pairwise-sgd``, ``pairwise-sgd-output``), the Frobenius ball otherwise.  Every set lies in the Frobenius ball of
radius R, so the losses' constants G, L, M (computed for ||W||_F <= R) stay valid, and projections onto convex sets are
non-expansive, which is all the papers' sensitivity arguments use.

Engine shape: each algorithm id has one :class:`UpdateRule` in :data:`RULES` -- ``init`` (its state), ``step`` (one
iteration of every chain) and ``output`` -- and one generic loop (``_loop``) owns the batching of indices and noise,
the random streams, progress, cancel; :func:`simulate` and :func:`run_chains` own the cost guard.  Rules that move all
grid points together (SGD, pairwise SGD with history, full-gradient GD) share the projected noisy gradient step; rules
with rounds or epochs of their own (PIDP-SGD, DPEGD) run one grid point at a time.  :func:`run_chains` runs the same
rule on several training sets side by side (neighbouring S and S' with shared indices and noise, or independent
trials on D and D'), which is what ``dpviz.stability`` and ``dpviz.audit`` build on.

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
  step.  Output: the last global model.  Line 2 initialises at theta~ = 0 (like DP-SGD-PL;
  ``params["pidp_start"] = "zero"``); ``pidp_start="erm"`` starts at the non-private empirical risk minimiser, which
  leaks the training data, so such runs are marked not private; ``params["theta0"]`` gives a start.  Each round's
  Hessian is regularised as in Remark 5 (H + zeta I where lambda_min(H) < zeta) instead of pseudo-inverted, and
  lambda_min >= zeta -- the premise of the contribution's sensitivity 2G/(n zeta) -- is checked (a failure marks the
  grid point not private).  zeta comes from ``params``, the calibration, or the loss's mu (L2 regulariser); without
  it the engine refuses.  ``eps1, delta1, sigma_c, r, E`` come from ``params`` or the calibration's ``extras``; r
  defaults to the domain radius R, E to 0.  The fraction of noisy steps and of regularised Hessians are recorded per
  chain (``noisy_fraction``, ``hessian_regularised``); when every step got noise the notes say so (PIDP-SGD then is
  DP-SGD with extra work).
* ``dpgdc`` — Xue, Yang, Huai & Wang (xue-pairwise), Algorithm 4 (Appendix C.3): full-gradient projected GD on the
  pairwise empirical risk, output the average of w_1..w_T plus Gaussian (delta > 0) or Laplace (delta = 0) noise.
* ``dp-epoch-gd`` — Xue, Yang, Huai & Wang (xue-pairwise), Algorithm 3: k = floor(log2 n) epochs on disjoint consecutive blocks
  D_i of the training data with n_i = floor(n / 2^i) examples (i < k; D_k the rest); epoch i runs n_i full-gradient
  projected GD steps on the pairwise empirical risk of D_i with eta_i = 4^{-i} eta from w_{i-1}, averages its iterates
  and adds N(0, sigma_i^2 I) with sigma_i from the calibration's ``sigma_schedule``; output w_k.  The average runs
  over w_0..w_{n_i} (n_i + 1 points) as in Lemma 9 of the proof of Theorem 3 (``params["epoch_average"] = "proof"``,
  the default) or over w_1..w_{n_i} as printed in Algorithm 3 (``"printed"``); both are private with the same noise.

DPGDSC (``dpgd-sc``) needs a mu-strongly convex loss (Xue et al., Assumption 1; its noise uses Lemma 1's sensitivity
8G/(mu n)).  mu comes from the loss (an L2 regulariser lambda ||w||^2, ``get_loss(id, l2=lambda)``, gives mu =
2 lambda; Xue et al., Section 5, use lambda = 1e-3 for AUC and 1e-2 for metric learning).  On a loss with mu = 0 the
engine refuses to calibrate; a caller's mu above the loss's is accepted only with ``allow_nonprivate=True`` and the
run is marked not private.  Only a positive mu of the loss is passed to calibrations (a PL constant is never set to
0 because a plain loss reports mu = 0).

Full-gradient pairwise algorithms cost n(n-1) gradient evaluations per chain-step; the cost guard accounts for it.

Results
-------
Per chain: ``emp_risk`` (training objective at the output; for pairwise losses on a fixed sample of pairs),
``pop_risk`` (on the data set's fresh / held-out sample), ``excess_risk`` = pop_risk - F_ref, where F_ref is
the best risk over the same constraint set W on the evaluation sample, as in the papers' excess risks: F(w*) if the
data set is realizable with a known w* in W, otherwise the constrained minimum of
:func:`dpviz.reference.constrained_minimum` (cached; unconstrained L-BFGS only when no R is given); and a task metric
(``mse``, ``error`` = misclassification rate, ``auc`` for pairwise losses on two-class data; none for metric
learning). Risks use (at most) ``eval_rows`` = 2000 rows / pairs per sample; the MSE and misclassification rate use
the whole fresh / held-out sample. Columns: algorithm, loss, dataset, kappa, grid_name, grid, rep, n, eps, delta, T,
eta, sigma (NaN at grid points that did not run), feasible (the release is private per the theorem; False for the
papers' experimental noise rule when its sigma is below the private one, for acknowledged non-private settings, and
for infeasible calibrations run anyway), emp_risk, pop_risk, excess_risk, metric_name, metric (+ noisy_fraction,
hessian_regularised for PIDP-SGD).

Notes (``SimulationResult.notes``): the reference of the excess risk, the set W, and per grid point which rule
produced the noise (the theorem's calibration, the papers' experimental rule, the caller) and whether that noise is
private per the theorem; for points that did not run, why.
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
    "run_chains",
    "ChainRun",
    "RULES",
    "UpdateRule",
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
_ENGINE_SWITCHES = ("run_infeasible", "noise_rule", "constraint", "allow_nonprivate", "pidp_start", "epoch_average")

#: Default constraint set W of a matrix parameter (metric learning) per algorithm: the set of the paper
#: (Xue, Yang, Huai & Wang, Example 1: PSD with ||W||_F <= R; Yang, Lei, Lyu & Ying, Lemma 5: nuclear-norm ball);
#: other algorithms project onto the Frobenius ball.  Vector parameters always use the Euclidean ball.
_MATRIX_SETS = {"dpgd-sc": "psd-frobenius", "dpgd-c": "psd-frobenius", "dp-epoch-gd": "psd-frobenius",
                "pairwise-sgd": "nuclear", "pairwise-sgd-output": "nuclear"}


class CostTooHigh(ValueError):
    """The requested simulation exceeds the work cap."""


class Cancelled(RuntimeError):
    """The simulation was cancelled by the caller."""


@dataclass(frozen=True)
class Spec:
    kind: str  # "sgd" (one example / pair per step) or "full" (full empirical gradient)
    pairs: bool  # pairwise sampling
    noise: str  # "gradient", "output" or "none"
    output: str  # "average" (w_1..w_T, w_1 the start), "average0" (w_0..w_T), "average1" (w_1..w_T after w_0) or "last"
    place: str = ""
    project_output: bool = False  # project the noisy output back onto W (yang-pairwise Algorithm 2: Pi_W(w_bar + u))


SPECS: dict[str, Spec] = {
    "sgd": Spec("sgd", False, "none", "average", "projected SGD"),
    "gd": Spec("full", False, "none", "average0", "projected GD"),
    "dpsgd-rdp": Spec("sgd", False, "gradient", "average", "wang-lownoise Algorithm 1"),
    "dpsgd-rdp-pairwise": Spec("sgd", True, "gradient", "average", "wang-lownoise Algorithm 2"),
    "dpsgd-output": Spec("sgd", False, "output", "average", "wang-nonsmooth Algorithm 1"),
    "pairwise-sgd": Spec("history", True, "none", "average", "yang-pairwise Algorithm 1"),
    "pairwise-sgd-output": Spec("history", True, "output", "average", "yang-pairwise Algorithm 2", project_output=True),
    "dpsgd-pl": Spec("sgd", False, "gradient", "last", "kang-pidp"),
    "dpgd-sc": Spec("full", True, "output", "last", "xue-pairwise Algorithm 1"),
    "dpgd-c": Spec("full", True, "gradient", "average0", "xue-pairwise Algorithm 2"),
    "dpgdc": Spec("full", True, "output", "average1", "xue-pairwise Algorithm 4"),
    "dp-epoch-gd": Spec("epoch", True, "output", "last", "xue-pairwise Algorithm 3"),
    "pidp-sgd": Spec("pidp", False, "gradient", "last", "kang-pidp Algorithm 1"),
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
    constraint = _constraint(algorithm_id, matrix, params.get("constraint"))
    allow_np = params.get("allow_nonprivate", False)
    if not isinstance(allow_np, (bool, np.bool_)):
        raise ValueError(f"allow_nonprivate must be True or False, got {allow_np!r}.")
    loss_mu = _loss_mu(lossobj, data, R)
    chi = None
    if matrix and spec.pairs and "chi" not in params:
        from dpviz.data import metric_chi

        try:
            chi = metric_chi(np.asarray(data.X_test, float))  # Yang et al. Lemma 5: X = x - x' (see metric_chi)
        except ValueError:
            chi = None
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
                if k != "mu":  # mu below: only a positive (guaranteed) strong-convexity constant is passed on
                    p.setdefault(k, val)
        if loss_mu > 0:
            p.setdefault("mu", loss_mu)
        if chi is not None:
            p.setdefault("chi", chi)
        nonprivate: list[str] = []  # why this grid point's release is not private although it runs
        if "delta" not in p and spec.noise != "none":
            p["delta"] = 1.0 / n**2
        if algorithm_id == "dpsgd-pl" and "eta" not in p and p.get("L"):
            p["eta"] = 1.0 / float(p["L"])
        sigma_override = p.pop("sigma", None)
        if sigma_override is not None and np.ndim(sigma_override) > 0:
            sigma_override = float(np.asarray(sigma_override, dtype=float)[gi])
        if algorithm_id == "dpgd-sc" and spec.noise != "none":
            nonprivate += _check_strong_convexity(alg_name, loss_id, params.get("mu"), loss_mu, allow_np,
                                                  calibrating=sigma_override is None)
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
            cal = catalog.calibrate(algorithm_id, **{k: val for k, val in p.items() if k not in _ENGINE_SWITCHES})
        sigma_rule = ("none" if spec.noise == "none" else "caller" if sigma_override is not None
                      else "caller-schedule" if p.get("sigma_schedule") is not None else "calibrated")
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
            # conditions -- the rule of the papers' own experiments (Wang, Lei, Ying & Zhou, Section 5.1).  It is
            # private per the theorem exactly when it is at least the calibrated (private) sigma: more Gaussian noise
            # per step is a post-processing of the calibrated mechanism.  Since the calibration minimises sigma over
            # the feasible beta only, that happens when the unconstrained minimiser is itself feasible.
            sig_cal, feas_cal = cal.sigma, cal.feasible
            sig_exp = float(cal.extras["sigma_unconstrained"])
            exp_private = bool(feas_cal and sig_cal is not None and sig_exp >= sig_cal * (1.0 - 1e-12))
            cal.sigma = sig_exp
            cal.feasible = exp_private
            sigma_rule = "experiment" if rule == "experiment" else "experiment-fallback"
            cal.notes = list(cal.notes) + ["sigma from the paper's formula at the sigma-minimising beta, without "
                                           "the theorem's privacy conditions (as in the paper's experiments)"]
            if exp_private:
                cal.reason = (f"noise rule of the paper's experiments (beta minimising sigma over (0, 1)); here it "
                              f"equals the calibrated sigma = {sig_cal:.4g}, which meets the theorem's conditions")
            elif feas_cal and sig_cal is not None:
                cal.reason = (f"noise rule of the paper's experiments (beta minimising sigma over (0, 1)) gives "
                              f"sigma = {sig_exp:.4g}, below the private sigma = {sig_cal:.4g} of the theorem's "
                              "calibration at this point: not private per the theorem")
            else:
                cal.reason = ("noise rule of the paper's experiments (beta minimising sigma over (0, 1)); the "
                              f"theorem's calibration has no private sigma here ({cal.reason})")
        sigma = cal.sigma if cal.sigma is not None else 0.0
        lap = cal.laplace_scale if (cal.sigma is None and cal.laplace_scale is not None) else None
        run = cal.feasible or bool(params.get("run_infeasible") or rule == "experiment" or allow_np
                                   or params.get("sigma_rule") in ("printed", "proof")) and (
            cal.sigma is not None or lap is not None)
        if spec.noise != "none" and cal.sigma is None and lap is None and sched is None:
            run = False
        epoch_average = None
        if spec.kind == "epoch":
            epoch_average = params.get("epoch_average", "proof")
            if epoch_average not in ("proof", "printed"):
                raise ValueError("epoch_average must be 'proof' (the average of w_0..w_{n_i} over n_i + 1 points, "
                                 "Lemma 9 in the proof of Theorem 3) or 'printed' (w_1..w_{n_i}, Algorithm 3 as "
                                 f"printed), got {epoch_average!r}.")
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
            zeta = p.get("zeta", cal.extras.get("zeta"))
            if zeta is None and loss_mu > 0:
                zeta = loss_mu
            if zeta is None:
                raise ValueError("PIDP-SGD needs zeta, the lower bound on the Hessian's eigenvalues that the "
                                 "contribution's sensitivity 2G/(n zeta) assumes (Kang, Li, Liu & Wang, Theorem 5 "
                                 "and Remark 5); give params['zeta'] (or mu, or an L2-regularised loss).")
            pidp["zeta"] = v.check_positive("zeta (Hessian lower bound)", zeta)
            start = params.get("pidp_start", "zero")
            if start not in ("zero", "erm"):
                raise ValueError(f"pidp_start must be 'zero' (theta~ = 0, like DP-SGD-PL) or 'erm' (the non-private "
                                 f"empirical risk minimiser, which leaks the data), got {start!r}.")
            theta0 = p.get("theta0")
            if theta0 is not None:
                theta0 = np.asarray(theta0, dtype=float)
                if theta0.shape != (d,) or not np.all(np.isfinite(theta0)):
                    raise ValueError(f"theta0 must be {d} finite numbers (the starting model), got shape "
                                     f"{theta0.shape}.")
                start = "given"
            if start == "erm":
                nonprivate.append("PIDP-SGD starts at the non-private empirical risk minimiser of the training data "
                                  "(pidp_start='erm'): the starting point leaks the data, so the output is not "
                                  "(eps, delta)-DP")
            pidp["theta0"], pidp["start"] = theta0, start
        if nonprivate:
            cal.feasible = False
            cal.reason = "; ".join(nonprivate)
            cal.notes = list(cal.notes) + nonprivate
        plans.append({"grid": gv, "n": n, "T": T, "eta": eta, "schedule": sched, "epoch_laplace": epoch_laplace,
                      "pidp": pidp, "sigma": float(sigma), "laplace": lap, "sigma_rule": sigma_rule,
                      "feasible": bool(cal.feasible), "run": bool(run), "cal": cal, "delta": p.get("delta"),
                      "eps": p.get("eps"), "constraint": constraint, "epoch_average": epoch_average,
                      "nonprivate": nonprivate})
    return alg_name, spec, lossobj, loss_id, reps, gname, gvals, pshape, R, plans, params


def _constraint(algorithm_id, matrix, kind):
    """The constraint set W (a name of :data:`dpviz.projections.KINDS`) of a run."""
    from dpviz import projections

    if kind is None:
        return _MATRIX_SETS.get(algorithm_id, "frobenius") if matrix else "l2"
    if kind not in projections.KINDS:
        raise ValueError(f"unknown constraint set {kind!r}; choose one of: {', '.join(projections.KINDS)}.")
    if (kind == "l2") == matrix:
        what = "a matrix parameter (metric learning)" if matrix else "a vector parameter"
        raise ValueError(f"the constraint set {kind!r} does not fit {what}; use "
                         + ("'frobenius', 'psd-frobenius' or 'nuclear'." if matrix else "'l2'."))
    return kind


def _loss_mu(lossobj, data, R) -> float:
    """The strong-convexity constant the loss guarantees for every data set (2 lambda of an L2 regulariser; 0 if
    the loss reports none)."""
    if not hasattr(lossobj, "constants"):
        return 0.0
    try:
        mu = lossobj.constants(kappa=max(float(data.x_bound), 1e-12), R=1.0 if R is None else R).get("mu", 0.0)
    except (TypeError, ValueError, AttributeError):
        return 0.0
    return float(mu) if mu is not None and math.isfinite(float(mu)) and float(mu) > 0 else 0.0


def _check_strong_convexity(alg_name, loss_id, mu_given, loss_mu, allow_np, calibrating):
    """DPGDSC (Xue, Yang, Huai & Wang, Algorithm 1) needs a mu-strongly convex loss (Assumption 1): its output noise
    uses the sensitivity 8G/(mu n) of Lemma 1.  Returns the reasons the run is not private (empty if it is); raises
    ``ValueError`` when the caller has not acknowledged them."""
    regularise = ("choose an L2-regularised loss, e.g. get_loss('auc-logistic', l2=1e-3) (mu = 2 lambda; Xue, Yang, "
                  "Huai & Wang, Section 5, use lambda = 1e-3 for AUC and 1e-2 for metric learning)")
    if mu_given is None:
        if loss_mu > 0:
            return []
        if calibrating:
            raise ValueError(f"{alg_name} needs a strongly convex loss (Xue, Yang, Huai & Wang, Assumption 1 and "
                             f"Lemma 1: sensitivity 8G/(mu n)), but {loss_id!r} has mu = 0; {regularise}; or give "
                             "params mu together with allow_nonprivate=True (the run is then marked not private).")
        return [f"{loss_id!r} is not strongly convex (mu = 0), so Lemma 1's sensitivity 8G/(mu n) of {alg_name} "
                "does not hold and the noise set by the caller carries no privacy guarantee"]
    mu_given = v.check_positive("mu (strong-convexity constant)", mu_given)
    if mu_given <= loss_mu * (1.0 + 1e-12):
        return []
    why = (f"mu = {mu_given:g} is given, but {loss_id!r} guarantees only mu = {loss_mu:g}"
           + (" (an L2 regulariser lambda ||w||^2 gives mu = 2 lambda)" if loss_mu > 0 else " (not strongly convex)"))
    if not allow_np:
        raise ValueError(f"{alg_name}: {why}; Lemma 1 of Xue, Yang, Huai & Wang then does not bound the "
                         f"sensitivity, so the output would not be private. {regularise[0].upper()}{regularise[1:]}, "
                         "or pass allow_nonprivate=True to run it marked not private.")
    return [f"{why}: Lemma 1's sensitivity 8G/(mu n) is not guaranteed, so the output is not (eps, delta)-DP "
            "(run with allow_nonprivate=True)"]


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
        from dpviz import projections

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
            notes.append(f"{where}: not run ({cal.reason}); it has no noise level (sigma is NaN in the results)")
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


#: Time per work unit of each update-rule kind relative to SECONDS_PER_UNIT, keyed by (kind, pairs, per-step
#: Gaussian noise): measured by benchmarks/bench_cost_estimate.py as CPU time / estimate per algorithm (see
#: benchmarks/RESULTS.md, "Cost estimate"), set so that CPU time / estimate is about 0.8 for every kind.  Drawing the
#: per-step noise costs about as much as the gradient itself; pairwise steps gather two rows per chain; the history
#: rule loops over blocks of past examples.  The estimate is CPU time of one core: on a shared, loaded server the
#: wall time is larger by the load factor.
_KIND_FACTOR: dict[tuple[str, bool, bool], float] = {
    ("sgd", False, True): 0.55,
    ("sgd", False, False): 0.33,
    ("sgd", True, True): 1.75,
    ("sgd", True, False): 1.1,
    ("full", False, True): 0.4,
    ("full", False, False): 0.4,
    ("full", True, True): 0.7,
    ("full", True, False): 0.7,
    ("history", True, True): 1.35,
    ("history", True, False): 1.35,
    ("epoch", True, True): 1.0,
    ("epoch", True, False): 1.0,
    ("pidp", False, True): 0.41,
    ("pidp", False, False): 0.41,
}
#: Time per unit of the risk evaluation (one vectorised loss over eval_rows rows per chain) relative to a step unit.
_EVAL_FACTOR = 0.4
#: Work units per test row and chain of the AUC metric (ranking the scores: measured ~1.4e-7 s per element).
_AUC_UNITS_PER_ROW = 10.0


def _metric_units(data, spec, pshape, chains: int, evaluate) -> float:
    """Work units of the test-set metric: classification error (one score per row) or AUC (scores + a ranking);
    the regression MSE is O(d^2) per chain and negligible."""
    if "metric" not in evaluate or len(pshape) != 1:
        return 0.0
    y_test = getattr(data, "y_test", None)
    m = len(y_test) if y_test is not None else int(getattr(data, "n_test", 0))
    d = int(pshape[0])
    task = data.task
    if spec.pairs:
        return float(chains * m * (d + _AUC_UNITS_PER_ROW)) if task == "classification" else 0.0
    return float(chains * m * d) if task == "classification" else 0.0


def _time_units(algorithm_id, spec, reps, pshape, plans, evaluate, eval_rows, data) -> float:
    """Work units scaled to wall time: the update steps weighted by their kind's factor, plus evaluation."""
    steps = _work(algorithm_id, spec, reps, pshape, plans, evaluate=(), eval_rows=eval_rows)
    evals = _work(algorithm_id, spec, reps, pshape, plans, evaluate, eval_rows) - steps
    factor = _KIND_FACTOR.get((spec.kind, bool(spec.pairs), spec.noise == "gradient"), 1.0)
    return factor * steps + _EVAL_FACTOR * evals + _metric_units(data, spec, pshape, len(plans) * reps, evaluate)


def estimate_cost(algorithm_id: str, data, loss, *, grid=None, reps: int = 100, params=None,
                  evaluate=("risk", "metric"), eval_rows: int = _EVAL_ROWS) -> dict[str, float]:
    """Estimate the cost of :func:`simulate` without running it.

    ``data`` is a built :class:`dpviz.data.Dataset`, or a :class:`dpviz.data.DatasetPlan`
    (:func:`dpviz.data.plan_dataset`) for a data set not built yet: then the cost of generating it is included, so
    that a caller can refuse a large n before building anything.

    Returns ``{"work": units, "seconds": estimated wall time (data generation + simulation), "engine_seconds",
    "data_seconds", "bytes": estimated peak memory (data set + engine), "chains": G * reps, "steps": max T}``.  One
    work unit is one gradient coordinate of one chain at one step (``SECONDS_PER_UNIT`` seconds on the reference
    machine); the seconds weight the units by the update rule's measured speed (``_KIND_FACTOR``) and add the test
    metric's cost.
    """
    _, spec, _, _, reps, _, gvals, pshape, _, plans, _ = _plan(algorithm_id, data, loss, grid, reps, params)
    eval_rows = v.check_int("eval_rows", eval_rows, minimum=10)
    work = _work(algorithm_id, spec, reps, pshape, plans, evaluate, eval_rows)
    engine_s = _time_units(algorithm_id, spec, reps, pshape, plans, evaluate, eval_rows, data) * SECONDS_PER_UNIT
    chains = len(gvals) * reps
    dim = int(np.prod(pshape))
    # engine state: iterate, running sum, noise and gradient buffers per chain, plus the evaluation samples
    engine_bytes = 8 * chains * dim * 6 + 8 * 4 * eval_rows * (dim + 1) + 8 * _BUF_FLOATS
    cost = getattr(data, "cost", None)
    if cost is not None and getattr(data, "X", None) is None:  # a DatasetPlan: not built yet
        data_s, data_bytes = float(cost.seconds), int(cost.bytes_peak)
    else:
        data_s = 0.0
        data_bytes = int(sum(np.asarray(getattr(data, a)).nbytes for a in ("X", "y", "X_test", "y_test")))
    return {"work": work, "seconds": engine_s + data_s, "engine_seconds": engine_s, "data_seconds": data_s,
            "bytes": data_bytes + engine_bytes, "chains": chains, "steps": max(p["T"] for p in plans)}


# ---------------------------------------------------------------------------------------------------------------
# the engine


def _epoch_sizes(n: int) -> list[int]:
    """Block sizes of Algorithm 3 of Xue, Yang, Huai & Wang (xue-pairwise): n_i = floor(n/2^i) for i < k = floor(log2 n), D_k the rest."""
    k = max(1, int(math.floor(math.log2(n))))
    sizes = [n // 2**i for i in range(1, k)]
    sizes.append(n - sum(sizes))
    return sizes


def _history_grad(ctx, w, new, hist):
    """(1/t) sum_{k<=t} grad f(w; z_new, z_{i_k}) for every chain (Yang, Lei, Lyu & Ying (yang-pairwise), Algorithm 1)."""
    t = hist.shape[-1]
    xn, yn = ctx.rows(new)
    xn, yn = xn[:, :, None], yn[:, :, None]
    we = w[:, :, None]
    c = max(1, _BUF_FLOATS // max(1, w.size))
    out = np.zeros_like(w)
    for s in range(0, t, c):
        xh, yh = ctx.rows(hist[:, :, s:s + c])
        out += ctx.lossobj.grad(we, xn, yn, xh, yh).sum(axis=2)
    return out / t


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


def _bcast(vals, ndim):
    return np.asarray(vals, dtype=float).reshape((-1,) + (1,) * (ndim - 1))


def _pidp_noise_needed(abs_c: np.ndarray, *, A: float, ke: float, eps1: float) -> np.ndarray:
    r"""Lines 9-10 of Algorithm 1 (Kang, Li, Liu & Wang (kang-pidp)): whether each row of ``abs_c`` (the absolute
    released contributions :math:`|[c_t]_i|`, shape (rows, d)) sends its step to the noisy branch.

    Noise if some :math:`|[c_t]_i| \ge A/(e^{\epsilon_1}-1)` (line 9) or some
    :math:`\ln\big(A/(A-(e^{\epsilon_1}-1)|[c_t]_i|)\big) > 2\epsilon_1` (line 10), with
    :math:`A = 2re^{\epsilon_1}\delta_1` and ``ke`` :math:`= e^{\epsilon_1}-1`.  The engine's PIDP-SGD and the
    Section 7 study (:mod:`dpviz.studies_kang`) both decide with this rule.
    """
    big = np.any(abs_c >= A / ke, axis=1)
    with np.errstate(divide="ignore", invalid="ignore"):
        small_ok = np.all(np.log(A / (A - ke * abs_c)) <= 2.0 * eps1, axis=1)
    return big | ~small_ok


def _project(w, R, nparam, kind=None):
    """Proj_W(w) for every chain: the ball of radius R (Euclidean / Frobenius; ``kind`` None, "l2", "frobenius"), or
    the PSD / nuclear-norm sets of :mod:`dpviz.projections` (``kind`` "psd-frobenius" / "nuclear")."""
    if R is None:
        return w
    if kind in ("psd-frobenius", "nuclear"):
        from dpviz import projections

        return projections.project(w, kind, R)
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


# ---------------------------------------------------------------------------------------------------------------
# update rules (state, step, output) and the generic loop


class _Chains:
    """Everything an update rule sees: the chains' settings, the training data, the random streams and buffers.

    ``X, y`` are the training rows shared by every grid point, or one set per grid point (``X`` of shape
    (G, n, d)), which is how neighbouring data sets S and S' run side by side (:func:`run_chains`).  ``rngs[g]`` are
    the grid point's (indices, per-step noise, output noise) streams.  ``ibuf / jbuf / nbuf`` are the blocks of
    indices and noise drawn by the loop for the current block of steps (``s`` indexes them).
    """

    def __init__(self, *, lossobj, spec, X, y, plans, reps, pshape, R, rngs, noise=None, indices=None,
                 output_noise=None, track_average=False):
        self.lossobj, self.spec, self.X, self.y, self.plans, self.reps = lossobj, spec, X, y, plans, reps
        self.pshape, self.R, self.rngs = pshape, R, rngs
        self.noise, self.indices, self.output_noise = noise, indices, output_noise
        self.G = len(plans)
        self.nparam = len(pshape)
        self.constraint = plans[0].get("constraint") if plans else None
        self.shape = (self.G, reps) + pshape
        self.ndim = len(self.shape)
        self.active = np.array([p["run"] for p in plans])
        self.Tg = np.array([p["T"] if p["run"] else 0 for p in plans])
        self.Tmax = int(self.Tg.max()) if self.G else 0
        self.ng = np.array([p["n"] for p in plans])
        self.eta = _bcast([p["eta"] for p in plans], self.ndim)
        self.sig = _bcast([p["sigma"] for p in plans], self.ndim)
        self.grad_noise = spec.noise == "gradient" and bool(np.any(self.sig > 0))
        self.sig_scalar = float(self.sig.ravel()[0]) if np.all(self.sig == self.sig.ravel()[0]) else None
        self.eta_scalar = float(self.eta.ravel()[0]) if np.all(self.eta == self.eta.ravel()[0]) else None
        self.uniform_T = bool(np.all(self.Tg == self.Tmax))
        self.track_average = track_average
        self.extra: dict[str, np.ndarray] = {}  # per-chain by-products (G, reps), e.g. PIDP-SGD's noisy fraction
        self.ibuf = self.jbuf = self.nbuf = None

    def rows(self, I):
        """Training rows X[I], y[I] for an index array I of shape (G, reps, ...)."""
        if self.X.ndim == 2:
            return self.X[I], self.y[I]
        g = np.arange(self.G).reshape((self.G,) + (1,) * (np.ndim(I) - 1))
        return self.X[g, I], self.y[g, I]

    def data(self, g):
        """Grid point g's training rows (the first n of them)."""
        n = self.ng[g]
        if self.X.ndim == 2:
            return self.X[:n], self.y[:n]
        return self.X[g, :n], self.y[g, :n]


class UpdateRule:
    """One algorithm's update rule: ``init`` (state), ``step`` (one iteration of every chain), ``output``.

    Rules with ``per_grid = False`` advance all grid points and repetitions together, one step at a time, with the
    indices and noise the generic loop draws in blocks (``ctx.ibuf``, ``ctx.jbuf``, ``ctx.nbuf``); rules with
    ``per_grid = True`` (rounds or epochs of their own) run one grid point at a time, all repetitions together, and
    draw from the grid point's streams themselves.  ``sampling`` says which indices the loop draws: ``"one"``,
    ``"pair"`` (i != j) or ``None``.
    """

    per_grid = False
    sampling: str | None = None
    extras: tuple[str, ...] = ()  # per-chain by-products the rule records in ctx.extra (columns of the frame)

    def init(self, ctx): ...

    def step(self, ctx, state, t, s): ...

    def output(self, ctx, state): ...


class _GradientRule(UpdateRule):
    """w <- Proj_W(w - eta (direction + sigma b)); the running sum of the iterates gives the averaged output."""

    def __init__(self, output="average"):
        self.out_kind = output

    def init(self, ctx):
        acc = np.zeros(ctx.shape) if (self.out_kind != "last" or ctx.track_average) else None
        return {"w": np.zeros(ctx.shape), "acc": acc}

    def direction(self, ctx, state, t, s):
        raise NotImplementedError

    def step(self, ctx, state, t, s):
        w, acc = state["w"], state["acc"]
        grad = self.direction(ctx, state, t, s)
        grad = np.array(grad, dtype=float, copy=True) if not isinstance(grad, np.ndarray) else grad
        if ctx.grad_noise:
            b = ctx.noise(t) if ctx.noise is not None else ctx.nbuf[:, s]
            grad = grad + (ctx.sig_scalar * b if ctx.sig_scalar is not None else ctx.sig * b)
        if acc is not None:
            if ctx.uniform_T:
                acc += w
            else:
                acc += w * _bcast(t < ctx.Tg, ctx.ndim)
        grad *= ctx.eta_scalar if ctx.eta_scalar is not None else ctx.eta
        if ctx.uniform_T:
            state["w"] = _project(w - grad, ctx.R, ctx.nparam, ctx.constraint)
        else:
            state["w"] = np.where(_bcast(t < ctx.Tg, ctx.ndim) > 0,
                                  _project(w - grad, ctx.R, ctx.nparam, ctx.constraint), w)

    def average(self, ctx, state, kind=None):
        kind = kind or self.out_kind
        T_b = _bcast(np.maximum(ctx.Tg, 1), ctx.ndim)
        if kind == "average0":
            return (state["acc"] + state["w"]) / (T_b + 1)
        if kind == "average1":  # w_1..w_T after T steps from w_0 = 0 (init): (acc - w_0 + w_T)/T
            return (state["acc"] + state["w"]) / T_b
        return state["acc"] / T_b

    def output(self, ctx, state):
        return state["w"] if self.out_kind == "last" else self.average(ctx, state)


class SGDRule(_GradientRule):
    """One uniformly drawn example (or pair i != j) per step: wang-lownoise Algorithms 1-2, wang-nonsmooth Algorithm 1, kang-pidp eq. (1)."""

    def __init__(self, output="average", pairs=False):
        super().__init__(output)
        self.pairs = pairs
        self.sampling = "pair" if pairs else "one"

    def direction(self, ctx, state, t, s):
        if ctx.indices is not None:
            I = ctx.indices(t)
            if self.pairs:
                I, J = (np.asarray(a, dtype=np.intp) for a in I)
            else:
                I = np.asarray(I, dtype=np.intp)
        else:
            I = ctx.ibuf[:, s]
            J = ctx.jbuf[:, s] if self.pairs else None
        xi, yi = ctx.rows(I)
        if self.pairs:
            xj, yj = ctx.rows(J)
            return ctx.lossobj.grad(state["w"], xi, yi, xj, yj)
        return ctx.lossobj.grad(state["w"], xi, yi)


class HistoryRule(_GradientRule):
    """Pairwise SGD averaging over all previously drawn examples (yang-pairwise Algorithm 1); keeps the index history."""

    sampling = "one"

    def init(self, ctx):
        state = super().init(ctx)
        hist = np.zeros((ctx.G, ctx.reps, ctx.Tmax + 1), dtype=np.intp)
        for g in range(ctx.G):
            hist[g, :, 0] = (np.asarray(ctx.indices(0), dtype=np.intp)[g] if ctx.indices is not None
                             else ctx.rngs[g][0].integers(0, ctx.ng[g], size=ctx.reps))
        state["hist"] = hist
        return state

    def direction(self, ctx, state, t, s):
        new = np.asarray(ctx.indices(t + 1), dtype=np.intp) if ctx.indices is not None else ctx.ibuf[:, s]
        hist = state["hist"]
        hist[:, :, t + 1] = new
        return _history_grad(ctx, state["w"], new, hist[:, :, :t + 1])


class FullGradientRule(_GradientRule):
    """Full-batch (pairwise) empirical gradient per step: GD, xue-pairwise Algorithms 1, 2 and 4."""

    def __init__(self, output="average0", pairs=False):
        super().__init__(output)
        self.pairs = pairs

    def direction(self, ctx, state, t, s):
        w = state["w"]
        out = []
        for g in range(ctx.G):
            if t < ctx.Tg[g]:
                Xg, yg = ctx.data(g)
                out.append(_full_grad(ctx.lossobj, w[g], Xg, yg, self.pairs, ctx.nparam))
            else:
                out.append(np.zeros(w.shape[1:]))
        return np.stack(out)


class EpochRule(UpdateRule):
    """Algorithm 3 (DPEGD) of Xue, Yang, Huai & Wang (xue-pairwise), one grid point at a time (its epochs have their own data,
    step sizes and output noise).  The plan's ``schedule`` holds the per-epoch Gaussian standard deviations sigma_i,
    or with ``epoch_laplace`` the per-epoch Laplace scales (the delta = 0 variant: coordinate-wise Lap(scale_i)).

    Each epoch's average w_bar_i: with the plan's ``epoch_average = "proof"`` (default) the average of
    w_0, ..., w_{n_i} over n_i + 1 points, w_0 = w_{i-1} the epoch's (already private) start, as in Lemma 9 of Xue,
    Yang, Huai & Wang, used in the proof of Theorem 3; with ``"printed"`` the average of w_1..w_{n_i} (Algorithm 3,
    line 4, "the average parameter after n_i iterations").  Both have sensitivity <= 4 G eta_i (Lemma 7: iterate t
    moves by at most 4 t eta_i G / n_i; w_0 does not depend on D_i), so the calibrated noise is private for both."""

    per_grid = True
    own_output_noise = True

    def steps(self, ctx, g):
        return sum(_epoch_sizes(ctx.plans[g]["n"]))

    def init(self, ctx, g):
        return {"w": np.zeros(ctx.shape[1:]), "sizes": _epoch_sizes(ctx.plans[g]["n"]), "epoch": 0, "pos": 0,
                "start": 0}

    def step(self, ctx, st, g, t):
        pl = ctx.plans[g]
        i, m = st["epoch"] + 1, st["sizes"][st["epoch"]]
        if st["pos"] == 0:
            Xg, yg = ctx.data(g)
            st["Xi"], st["yi"] = Xg[st["start"]:st["start"] + m], yg[st["start"]:st["start"] + m]
            st["start"] += m
            proof = pl.get("epoch_average", "proof") == "proof"
            st["acc"] = st["w"].copy() if proof else np.zeros_like(st["w"])  # w_0 counts in Lemma 9's average
            st["navg"] = m + 1 if proof else m
        eta_i = pl["eta"] * 4.0 ** (-i)
        st["w"] = _project(st["w"] - eta_i * _full_grad(ctx.lossobj, st["w"], st["Xi"], st["yi"], True, ctx.nparam),
                           ctx.R, ctx.nparam, ctx.constraint)
        st["acc"] += st["w"]
        st["pos"] += 1
        if st["pos"] == m:
            if ctx.output_noise is not None:
                z = np.asarray(ctx.output_noise, float)[g][i - 1]
            elif pl["epoch_laplace"]:
                z = ctx.rngs[g][2].laplace(0.0, 1.0, size=st["w"].shape)
            else:
                z = ctx.rngs[g][2].standard_normal(size=st["w"].shape)
            st["w"] = st["acc"] / st["navg"] + pl["schedule"][i - 1] * z
            st["epoch"] += 1
            st["pos"] = 0

    def output(self, ctx, st, g):
        return st["w"]


def _regularised_hessian(H, zeta):
    """Kang, Li, Liu & Wang (kang-pidp), Remark 5: where the Hessian's smallest eigenvalue is below zeta, use
    H + zeta I instead of H.  Returns (H_used, regularised, ok): per chain whether zeta I was added and whether
    lambda_min(H_used) >= zeta holds, the premise of the contribution's sensitivity 2G/(n zeta) (Theorem 5's proof:
    ||H^{-1} grad l|| <= G / lambda_min(H)).  For a convex loss H is positive semi-definite, so H + zeta I always
    passes (up to the finite-difference error, hence the small tolerance)."""
    lam = np.linalg.eigvalsh(H)[:, 0]
    reg = lam < zeta
    Hu = np.where(reg[:, None, None], H + zeta * np.eye(H.shape[-1]), H)
    lam_u = np.where(reg, lam + zeta, lam)
    ok = lam_u >= zeta * (1.0 - 1e-6) - 1e-9
    return Hu, reg, ok


class PIDPRule(UpdateRule):
    """Algorithm 1 (PIDP-SGD) of Kang, Li, Liu & Wang (kang-pidp), one grid point at a time (rounds with a Hessian
    at the round's global model).

    Start (line 2's theta~): 0 by default, like DP-SGD-PL (``pidp_start="zero"``); ``pidp_start="erm"`` starts at
    the non-private empirical risk minimiser (leaks the data: the run is marked not private); ``theta0`` gives a
    start.  Each round's Hessian is regularised as in Remark 5 (H + zeta I where lambda_min(H) < zeta) instead of
    pseudo-inverted, and lambda_min >= zeta is checked (the sensitivity 2G/(n zeta) assumes it; a failure marks the
    grid point not private).  Records per chain the fraction of noisy steps (``noisy_fraction``) and of rounds whose
    Hessian needed zeta I (``hessian_regularised``)."""

    per_grid = True
    extras = ("noisy_fraction", "hessian_regularised")

    def steps(self, ctx, g):
        q = ctx.plans[g]["pidp"]
        return q["rounds"] * q["T_local"]

    def init(self, ctx, g):
        if ctx.nparam != 1:
            raise ValueError("PIDP-SGD is implemented for vector parameters only.")
        q = ctx.plans[g]["pidp"]
        Xn, yn = ctx.data(g)
        d = Xn.shape[1]
        start = q.get("start", "zero")
        if start == "erm":
            theta0 = _solve_erm(ctx.lossobj, Xn, yn, d)
        elif start == "given":
            theta0 = np.asarray(q["theta0"], dtype=float).reshape(d)
        else:
            theta0 = np.zeros(d)
        return {"w": np.tile(theta0, (ctx.reps, 1)), "noisy": np.zeros(ctx.reps), "t": 0,
                "reg": np.zeros(ctx.reps), "rounds": 0, "bad": 0,
                "ke": math.expm1(q["eps1"]), "A": 2.0 * q["r"] * math.exp(q["eps1"]) * q["delta1"]}

    def step(self, ctx, st, g, t):
        pl = ctx.plans[g]
        q, n, eta, sigma = pl["pidp"], pl["n"], pl["eta"], pl["sigma"]
        Xn, yn = ctx.data(g)
        if t % q["T_local"] == 0:  # a new round: global model theta^(g), its Hessian (Remark 5) and inverse
            st["wg"] = st["w"].copy()
            Hu, reg, ok = _regularised_hessian(_hessian(ctx.lossobj, st["wg"], Xn, yn), q["zeta"])
            st["Hinv"] = np.linalg.pinv(Hu)  # lambda_min(Hu) >= zeta > 0: this is the inverse
            st["reg"] += reg
            st["rounds"] += 1
            st["bad"] += int(np.sum(~ok))
        w, wg, ke, A = st["w"], st["wg"], st["ke"], st["A"]
        i = (np.asarray(ctx.indices(t), dtype=np.intp)[g] if ctx.indices is not None
             else ctx.rngs[g][0].integers(0, n, ctx.reps))
        c = np.einsum("rij,rj->ri", st["Hinv"], ctx.lossobj.grad(wg, Xn[i], yn[i])) / n
        c = 2.0 * (c + q["E"] * np.sign(c))
        if q["sigma_c"] > 0:
            c = c + q["sigma_c"] * ctx.rngs[g][1].standard_normal(c.shape)
        use_noise = _pidp_noise_needed(np.abs(c), A=A, ke=ke, eps1=q["eps1"])
        b = (np.asarray(ctx.noise(t), dtype=float)[g] if ctx.noise is not None
             else ctx.rngs[g][1].standard_normal(w.shape))
        grad = ctx.lossobj.grad(w, Xn[i], yn[i]) + (sigma * use_noise)[:, None] * b
        st["w"] = _project(w - eta * grad, ctx.R, 1)
        st["noisy"] += use_noise
        st["t"] += 1

    def output(self, ctx, st, g):
        ctx.extra["noisy_fraction"][g] = st["noisy"] / max(st["t"], 1)
        ctx.extra["hessian_regularised"][g] = st["reg"] / max(st["rounds"], 1)
        if st["bad"]:
            pl = ctx.plans[g]
            why = (f"in {st['bad']} of {st['rounds'] * ctx.reps} (round, chain) Hessians lambda_min(H + zeta I) < "
                   f"zeta = {pl['pidp']['zeta']:g} (the Hessian is not positive semi-definite: is the loss convex?), "
                   "so the contribution's sensitivity 2G/(n zeta) does not hold: not private")
            pl["feasible"] = False
            pl["nonprivate"] = list(pl.get("nonprivate", [])) + [why]
        return st["w"]


#: The update rule of each algorithm id in :data:`SPECS`.
RULES: dict[str, UpdateRule] = {
    "sgd": SGDRule("average"),
    "gd": FullGradientRule("average0", pairs=False),
    "dpsgd-rdp": SGDRule("average"),
    "dpsgd-rdp-pairwise": SGDRule("average", pairs=True),
    "dpsgd-output": SGDRule("average"),
    "pairwise-sgd": HistoryRule("average"),
    "pairwise-sgd-output": HistoryRule("average"),
    "dpsgd-pl": SGDRule("last"),
    "dpgd-sc": FullGradientRule("last", pairs=True),
    "dpgd-c": FullGradientRule("average0", pairs=True),
    "dpgdc": FullGradientRule("average1", pairs=True),
    "dp-epoch-gd": EpochRule(),
    "pidp-sgd": PIDPRule(),
}


def _streams(seed, G, coupled=False):
    """(indices, per-step noise, output noise) SFC64 streams per grid point from ``SeedSequence(seed)``.

    ``coupled=True``: every grid point gets the streams of the first child (same indices, same noise).
    """
    streams = [ch.spawn(3) for ch in np.random.SeedSequence(seed).spawn(1 if coupled else G)]
    if coupled:
        streams = streams * G  # the same three seed sequences: a fresh generator from each repeats its numbers
    return [[np.random.Generator(np.random.SFC64(s)) for s in three] for three in streams]


def _loop(rule, ctx, progress=None, cancel=None, monitor=None):
    """The generic loop: draws indices and noise in blocks, runs ``rule.step``, reports progress, checks ``cancel``.

    ``monitor(t, state, ctx)`` (optional) is called after every step of a ``per_grid = False`` rule.  Returns the
    output (G, reps, ...) before output perturbation, and the final state (None for ``per_grid`` rules).
    """
    for key in rule.extras:
        ctx.extra.setdefault(key, np.full((ctx.G, ctx.reps), np.nan))
    if rule.per_grid:
        out = np.zeros(ctx.shape)
        for g, pl in enumerate(ctx.plans):
            if pl["run"]:
                st = rule.init(ctx, g)
                for t in range(rule.steps(ctx, g)):
                    rule.step(ctx, st, g, t)
                out[g] = rule.output(ctx, st, g)
            if progress is not None:
                progress(0.9 * (g + 1) / ctx.G)
            _check_cancel(cancel)
        return out, None
    G, reps, Tmax = ctx.G, ctx.reps, ctx.Tmax
    D = int(np.prod(ctx.pshape))
    K = max(1, min(Tmax, _BUF_FLOATS // max(1, G * reps * D))) if Tmax else 1
    if ctx.grad_noise and ctx.noise is None:
        ctx.nbuf = np.zeros((G, K, reps) + ctx.pshape)
    if rule.sampling and ctx.indices is None:
        ctx.ibuf = np.zeros((G, K, reps), dtype=np.intp)  # zeros: chains that do not run (infeasible) read index 0
        ctx.jbuf = np.zeros((G, K, reps), dtype=np.intp) if rule.sampling == "pair" else None
    state = rule.init(ctx)
    for t0 in range(0, Tmax, K):
        k = min(K, Tmax - t0)
        for g in range(G):
            if t0 >= ctx.Tg[g]:
                continue
            if ctx.nbuf is not None:
                ctx.rngs[g][1].standard_normal(out=ctx.nbuf[g, :k])
            if ctx.ibuf is not None:
                ctx.ibuf[g, :k] = ctx.rngs[g][0].integers(0, ctx.ng[g], size=(k, reps))
                if ctx.jbuf is not None:  # uniform j != i
                    j = ctx.rngs[g][0].integers(0, ctx.ng[g] - 1, size=(k, reps))
                    ctx.jbuf[g, :k] = j + (j >= ctx.ibuf[g, :k])
        for s in range(k):
            rule.step(ctx, state, t0 + s, s)
            if monitor is not None:
                monitor(t0 + s, state, ctx)
        if progress is not None:
            progress(0.9 * (t0 + k) / Tmax)
        _check_cancel(cancel)
    return rule.output(ctx, state), state


def _release(rule, ctx, out):
    """Output perturbation (Spec.noise == "output"): Gaussian N(0, sigma^2 I) or Laplace, then optionally Proj_W."""
    spec = ctx.spec
    if spec.noise != "output" or getattr(rule, "own_output_noise", False):
        return out
    for g, pl in enumerate(ctx.plans):
        if not pl["run"]:
            continue
        if ctx.output_noise is not None:
            z = np.asarray(ctx.output_noise, dtype=float)[g]
        elif pl["laplace"] is not None:
            z = ctx.rngs[g][2].laplace(0.0, 1.0, size=out.shape[1:])
        else:
            z = ctx.rngs[g][2].standard_normal(size=out.shape[1:])
        scale = pl["laplace"] if pl["laplace"] is not None else pl["sigma"]
        out[g] = out[g] + scale * z
        if spec.project_output:
            out[g] = _project(out[g], ctx.R, ctx.nparam, ctx.constraint)
    return out


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
        calibrated noise (one value, or one per grid point); ``run_infeasible=True`` runs grid points whose calibration
        is infeasible but gives a sigma.
        ``noise_rule="experiment"`` uses, for calibrations that choose beta (DP-SGD with Rényi accounting), the sigma at
        the beta minimising it over all of (0, 1) without the privacy conditions -- the rule of the paper's own
        experiments (Wang, Lei, Ying & Zhou (wang-lownoise), Section 5.1); such points are marked private only when that sigma equals
        the calibrated one (the unconstrained minimiser meets the conditions).
        ``constraint`` the set W (see the module docstring); ``allow_nonprivate=True`` runs settings whose privacy
        premise fails (DPGDSC with a caller's mu above the loss's), marked not private; ``pidp_start`` ("zero" |
        "erm"), ``zeta`` for PIDP-SGD; ``epoch_average`` ("proof" | "printed") for DPEGD.
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
    if getattr(data, "cost", None) is not None and getattr(data, "X", None) is None:
        raise ValueError("data is a DatasetPlan (sizes only); build it first (plan.build()) to simulate.")
    alg, spec, lossobj, loss_id, reps, gname, gvals, pshape, R, plans, params = _plan(
        algorithm_id, data, loss, grid, reps, params)
    seed = v.check_int("seed", seed, minimum=0)
    eval_rows = v.check_int("eval_rows", eval_rows, minimum=10)
    # the guard counts work in units of SECONDS_PER_UNIT of wall time (the update rule's speed and the metric included)
    work = _time_units(algorithm_id, spec, reps, pshape, plans, evaluate, eval_rows, data)
    if max_work is not None and work > max_work:
        raise CostTooHigh(
            f"this simulation needs about {work:.3g} work units (~{work * SECONDS_PER_UNIT:.0f} s), above the cap of "
            f"{max_work:.3g} (~{max_work * SECONDS_PER_UNIT:.0f} s); reduce repetitions, grid points, T or n.")
    rule = RULES[algorithm_id]
    ctx = _Chains(lossobj=lossobj, spec=spec, X=np.asarray(data.X, float), y=np.asarray(data.y, float), plans=plans,
                  reps=reps, pshape=pshape, R=R, rngs=_streams(seed, len(plans)), noise=noise, indices=indices,
                  output_noise=output_noise)
    out, _ = _loop(rule, ctx, progress, cancel)
    out = _release(rule, ctx, out)
    out[~ctx.active] = np.nan

    frame, notes = _evaluate(out, data, lossobj, spec, plans, reps, evaluate, pshape, eval_rows, R=R)
    for key, val in ctx.extra.items():
        frame[key] = val.ravel()
    frame.insert(0, "algorithm", algorithm_id)
    frame.insert(1, "loss", loss_id)
    frame.insert(2, "dataset", getattr(data, "name", ""))
    frame.insert(3, "kappa", float(getattr(data, "kappa", 0.0)))
    frame.insert(4, "grid_name", gname or "")
    if progress is not None:
        progress(1.0)
    notes += _run_notes(alg, spec, plans, gname, R, ctx.extra)
    return SimulationResult(algorithm_id, loss_id, getattr(data, "name", ""), gname, gvals if gname else [],
                            frame, [p["cal"] for p in plans], params, notes, time.perf_counter() - t_start, out)


@dataclass
class ChainRun:
    """Outcome of :func:`run_chains`: one block of chains per training set, all with the same settings.

    ``outputs`` are the released outputs (after any output perturbation), ``noiseless`` the outputs before output
    perturbation, ``last`` the last iterates w_T and ``average`` the averaged iterates (both None for rules that run
    one grid point at a time, PIDP-SGD and DPEGD, whose ``noiseless`` output is their last model); all of shape
    (number of training sets, reps, ...).  ``plan`` holds n, T, eta, sigma (and the calibration under "cal").
    """

    algorithm: str
    outputs: np.ndarray
    noiseless: np.ndarray
    last: np.ndarray | None
    average: np.ndarray | None
    plan: dict[str, Any]
    seconds: float


def run_chains(algorithm_id: str, data, loss, *, datasets, reps: int = 100, seed: int = 0, params=None,
               coupled: bool = True, progress: Callable[[float], None] | None = None, cancel=None,
               max_work: float | None = DEFAULT_MAX_WORK, monitor=None) -> ChainRun:
    """Run ``reps`` chains of ``algorithm_id`` on each training set of ``datasets``, with the settings of ``data``.

    The calibration (sigma, T, eta, ...) is computed once from ``data`` and ``params`` exactly as :func:`simulate`
    does (no grid); every ``(X, y)`` of ``datasets`` (same shape as ``data.X, data.y``) then gets its own block of
    chains.  ``coupled=True`` gives every block the same random streams -- the same indices and the same noise for
    the same seed -- which is the coupling of the stability arguments (neighbouring S and S'); ``coupled=False``
    gives independent streams per block (the trials of a distinguishing test).  ``monitor(t, state, ctx)`` is called
    after every step of a step-by-step rule.  The cost guard counts every block.
    """
    t_start = time.perf_counter()
    _, spec, lossobj, _, reps, _, _, pshape, R, plans, _ = _plan(algorithm_id, data, loss, None, reps, params)
    seed = v.check_int("seed", seed, minimum=0)
    if not plans[0]["run"]:
        raise ValueError(f"this setting does not run: {plans[0]['cal'].reason} (give sigma, or run_infeasible=True).")
    if not isinstance(datasets, (list, tuple)) or not datasets:
        raise ValueError("datasets must be a non-empty list of (X, y) training sets.")
    X0, y0 = np.asarray(data.X, float), np.asarray(data.y, float)
    Xs, ys = [], []
    for X, y in datasets:
        X, y = np.asarray(X, float), np.asarray(y, float)
        if X.shape != X0.shape or y.shape != y0.shape:
            raise ValueError(f"every training set must have the shape of the data set's, X {X0.shape} and y "
                             f"{y0.shape}; got X {X.shape} and y {y.shape}.")
        Xs.append(X)
        ys.append(y)
    S_ = len(Xs)
    work = S_ * _work(algorithm_id, spec, reps, pshape, plans, evaluate=())
    if max_work is not None and work > max_work:
        raise CostTooHigh(
            f"these runs need about {work:.3g} work units (~{work * SECONDS_PER_UNIT:.0f} s), above the cap of "
            f"{max_work:.3g} (~{max_work * SECONDS_PER_UNIT:.0f} s); reduce repetitions (trials), T or n.")
    rule = RULES[algorithm_id]
    ctx = _Chains(lossobj=lossobj, spec=spec, X=np.stack(Xs), y=np.stack(ys), plans=plans * S_, reps=reps,
                  pshape=pshape, R=R, rngs=_streams(seed, S_, coupled=coupled), track_average=True)
    out, state = _loop(rule, ctx, progress, cancel, monitor)
    noiseless = out.copy()
    out = _release(rule, ctx, out)
    out[~ctx.active] = np.nan
    last = average = None
    if state is not None:
        last = state["w"]
        average = rule.average(ctx, state, rule.out_kind if rule.out_kind in ("average0", "average1") else "average")
    if progress is not None:
        progress(1.0)
    pl = plans[0]
    plan = {k: pl[k] for k in ("n", "T", "eta", "sigma", "laplace", "feasible", "run", "eps", "delta", "cal")}
    plan["R"] = R
    return ChainRun(algorithm_id, out, noiseless, last, average, plan, time.perf_counter() - t_start)


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


def _reference(lossobj, data, Xs, ys, X2, y2, pshape, R=None, kind=None):
    """F_ref = min over the constraint set W of the evaluation objective (the papers' excess risks compare with the
    best parameter of W, not of the whole space): F(w*) when the data are realizable with a known w* in W, else the
    constrained minimum of :func:`dpviz.reference.constrained_minimum` (cached per sample, loss and set)."""
    from dpviz import projections, reference

    ws = data.w_star if data.w_star is not None and tuple(np.shape(data.w_star)) == pshape else None
    if kind is None:
        kind = "l2" if len(pshape) == 1 else "frobenius"
    in_W = ws is not None and (R is None or np.allclose(
        projections.project(np.asarray(ws, float), kind, R), ws, rtol=1e-12, atol=1e-12))
    if data.realizable and in_W:
        return float(_mean_loss(lossobj, np.asarray(ws, float)[None], Xs, ys, X2, y2)[0]), "F(w*) (w* lies in W)"
    ref = reference.constrained_minimum(lossobj, Xs, ys, X2, y2, pshape=pshape, R=R, kind=kind, x0=ws)
    if R is None:
        return ref.value, "the unconstrained minimum (no projection set W; non-private solver)"
    where = "its unconstrained minimiser lies in W" if ref.inside else ref.how
    return ref.value, f"the minimum over W ({projections.KINDS[kind]}, R = {R:g}; {where})"


def _auc(scores, y):
    """AUC of each row of ``scores`` (C, m) for labels y in {-1, +1} (ties count 1/2)."""
    from scipy.stats import rankdata

    pos = y > 0
    n1, n0 = int(pos.sum()), int((~pos).sum())
    if n1 == 0 or n0 == 0:
        return np.full(scores.shape[0], np.nan)
    r = rankdata(scores, axis=1)
    return (r[:, pos].sum(axis=1) - n1 * (n1 + 1) / 2) / (n1 * n0)


def _evaluate(out, data, lossobj, spec, plans, reps, evaluate, pshape, eval_rows=_EVAL_ROWS, R=None):
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
        "sigma": np.repeat([p["sigma"] if p["run"] else np.nan for p in plans], reps),  # not run: no sigma
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
        kind = plans[0].get("constraint") if plans else None
        ref, how = _reference(lossobj, data, Xp, yp, Xp2, yp2, pshape, R, kind)
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
