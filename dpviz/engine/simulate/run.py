"""Running the chains: the random streams, the generic loop, output perturbation, and the two entry points
:func:`simulate` (a grid of settings, evaluated into a tidy frame) and :func:`run_chains` (several training sets
side by side, for :mod:`dpviz.labs.stability` and :mod:`dpviz.labs.canary_audit`).
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Any, Callable

import numpy as np

from dpviz.foundation import validate as v
from dpviz.engine.simulate.cost import _time_units, _work
from dpviz.engine.simulate.evaluate import _evaluate
from dpviz.engine.simulate.kernels import _project
from dpviz.engine.simulate.plan import _plan
from dpviz.engine.simulate.result import SimulationResult, _run_notes
from dpviz.engine.simulate.rules import RULES, _Chains
from dpviz.engine.simulate.spec import _BUF_FLOATS, _EVAL_ROWS, DEFAULT_MAX_WORK, SECONDS_PER_UNIT, Cancelled, CostTooHigh


def _point_key(name, value) -> tuple[int, ...]:
    """The spawn key of the grid point ``name = value``: made from the parameter's name and the value's float64 bits
    alone, so a point's random streams do not depend on where it sits in the grid or on the other grid values."""
    import struct
    import zlib

    bits = struct.unpack("<Q", struct.pack("<d", float(value) + 0.0))[0]  # + 0.0: -0.0 and 0.0 share a key
    return (1, zlib.crc32(str(name).encode()), bits >> 32, bits & 0xFFFFFFFF)


def _streams(seed, G, coupled=False, keys=None):
    """(indices, per-step noise, output noise) SFC64 streams per grid point.

    ``keys`` (one per grid point, from :func:`_point_key`): the point's streams come from ``SeedSequence(seed,
    spawn_key=key)`` -- they depend on the seed and the point's own value only, so adding or removing other grid
    values leaves them unchanged.  Without ``keys`` (no grid, or the training sets of :func:`run_chains`):
    ``SeedSequence(seed).spawn(G)``, one child per position.  ``coupled=True``: every grid point gets the streams
    of the first child (same indices, same noise).
    """
    if keys is not None and not coupled:
        if len(keys) != G:
            raise ValueError(f"{len(keys)} stream keys for {G} grid points.")
        roots = [np.random.SeedSequence(seed, spawn_key=tuple(k)) for k in keys]
        streams = [r.spawn(3) for r in roots]
    else:
        streams = [ch.spawn(3) for ch in np.random.SeedSequence(seed).spawn(1 if coupled else G)]
        if coupled:
            streams = streams * G  # the same three seed sequences: a fresh generator from each repeats its numbers
    return [[np.random.Generator(np.random.SFC64(s)) for s in three] for three in streams]


def _check_cancel(cancel):
    if cancel is None:
        return
    stop = cancel.is_set() if hasattr(cancel, "is_set") else cancel()
    if stop:
        raise Cancelled("simulation cancelled")


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
    data : dpviz.engine.data.Dataset
        Training sample (the first ``n`` rows are used) and evaluation sample.
    loss : str or loss object
        A loss id of :mod:`dpviz.engine.losses` (or an object with ``value``/``grad``/``setting``/``param``).
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
                  reps=reps, pshape=pshape, R=R, noise=noise, indices=indices,
                  rngs=_streams(seed, len(plans), keys=None if gname is None else [_point_key(gname, g) for g in gvals]),
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
               max_work: float | None = DEFAULT_MAX_WORK, monitor=None, keep_step: bool = False) -> ChainRun:
    """Run ``reps`` chains of ``algorithm_id`` on each training set of ``datasets``, with the settings of ``data``.

    The calibration (sigma, T, eta, ...) is computed once from ``data`` and ``params`` exactly as :func:`simulate`
    does (no grid); every ``(X, y)`` of ``datasets`` (same shape as ``data.X, data.y``) then gets its own block of
    chains.  ``coupled=True`` gives every block the same random streams -- the same indices and the same noise for
    the same seed -- which is the coupling of the stability arguments (neighbouring S and S'); ``coupled=False``
    gives independent streams per block (the trials of a distinguishing test).  ``monitor(t, state, ctx)`` is called
    after every step of a step-by-step rule; with ``keep_step=True`` a gradient rule's state then also holds the
    step's start ``state["prev"]`` (w_t) and its noisy gradient ``state["g"]`` (the direction before the step size,
    noise included: what a gradient-perturbation mechanism releases).  The cost guard counts every block.
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
    ctx.keep_step = bool(keep_step)
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
