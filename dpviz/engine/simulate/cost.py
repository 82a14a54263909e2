"""The cost estimate: work units of a run before it runs, and their wall time.

One work unit is one gradient coordinate of one chain at one step; :func:`gradient_evaluations` counts the
(pair-)gradients of each update rule, :func:`_work` the units of a plan, :func:`_time_units` weights them by the
measured speed of the rule's kind (:data:`_KIND_FACTOR`, from ``benchmarks/bench_cost_estimate.py``) and adds the
evaluation.  :func:`dpviz.engine.simulate.simulate`'s cost guard and :func:`estimate_cost` use the same numbers.
"""

from __future__ import annotations

import numpy as np

from dpviz.foundation import validate as v
from dpviz.engine.simulate.plan import _plan
from dpviz.engine.simulate.spec import _BUF_FLOATS, _EVAL_ROWS, SECONDS_PER_UNIT, SPECS, _epoch_sizes


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

    ``data`` is a built :class:`dpviz.engine.data.Dataset`, or a :class:`dpviz.engine.data.DatasetPlan`
    (:func:`dpviz.engine.data.plan_dataset`) for a data set not built yet: then the cost of generating it is included, so
    that a caller can refuse a large n before building anything.

    Returns ``{"work": units, "seconds": estimated wall time (data generation + simulation), "engine_seconds",
    "data_seconds", "bytes": estimated peak memory (data set + engine), "chains": G * reps, "steps": max T}``.  One
    work unit is one gradient coordinate of one chain at one step (``SECONDS_PER_UNIT`` seconds on the reference
    machine); the seconds weight the units by the update rule's measured speed (``_KIND_FACTOR``) and add the test
    metric's cost.
    """
    # DP-SGD's calibration also asks a numerical accountant for a comparison σ (0.1-1 s per new setting) that no run
    # uses (as in dpviz.studies.sweep): the estimate, which needs the plan's T, η and which points run, skips it
    # unless the caller asks for it (Simulate's run plan after an ε-grid edit: 0.55 -> 0.1 s of CPU, issue 33)
    params = {"accountant_extra": False, **(params or {})}
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
