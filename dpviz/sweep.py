"""Rate studies that scale out: a grid of simulations described by a TOML spec, run as Dask tasks, stored as Parquet.

Public API
----------
``load_spec(path_or_text) -> SweepSpec``
    read and validate a TOML spec (``tomllib``); unknown keys, wrong types and invalid values raise ``ValueError``.
``SweepSpec.cells() -> list[Cell]``
    the tasks of the sweep: one per (algorithm, grid point).
``run_sweep(spec, out_dir, *, workers=None, scheduler=None, client=None, processes=True, progress=True) -> dict``
    run every unfinished cell on Dask distributed and write one Parquet file per cell under ``out_dir``.
``run_cell(cell) -> pandas.DataFrame``
    one cell (pure function of the cell; what a Dask worker runs).
``load_sweep(out_dir, *, x=None) -> pandas.DataFrame``
    a sweep's rows in the tidy shape of ``dpviz.simulate.SimulationResult.frame`` (``grid_name`` / ``grid`` set to
    the swept parameter ``x``), plus the other grid parameters and the provenance columns.

The spec
--------
::

    algorithms = ["dpsgd-rdp", "sgd"]     # engine algorithm ids (dpviz.simulate.supported_algorithms())
    dataset = "wang-least-squares"        # a dpviz.data.DATASETS name
    loss = "least-squares"                # a dpviz.losses id
    reps = 20                             # repetitions per cell
    seed = 0                              # seed of the algorithms' randomness
    # optional: name = "...", data_seed = 0, n_test = 20000, eval_rows = 2000, [loss_params] (e.g. q = 1.5)
    # without R or G in [params] the domain is the unit ball (R = 1), as in the wang-lownoise reproduction
    [grid]                                # any of n, eps, delta, kappa, T, eta, alpha (lists; the product is run)
    n = [200, 400]
    eps = [1.0, 2.0]
    [params]                              # fixed parameters of every cell (as dpviz.simulate.simulate takes them)
    T = 200
    eta = 0.01

``kappa`` is the label-noise level of the data set (``dpviz.data.load_dataset``); ``alpha`` is the Hölder exponent
of the gradient and needs a q-norm loss (``q = 1 + alpha``, Wang, Lei, Ying & Zhang (wang-nonsmooth), Section 1); ``n`` is the
training-sample size (a synthetic data set is drawn with exactly n examples; a real data set uses its first n).

Cells, seeds, resumption
------------------------
A cell is one algorithm at one grid point, run as one call of :func:`dpviz.simulate.simulate` (all repetitions
vectorised).  Its seed is derived from the spec's ``seed`` and the cell's grid values only (SHA-256), so it is the
same on every machine and worker count, the same for every algorithm at that grid point (common random numbers:
DP-SGD and SGD see the same example indices), and does not move when grid values are added.  A cell's identity
(``cell_id``) hashes everything that determines its numbers; its rows are written to ``out_dir/cell-<cell_id>.parquet``
(atomically, by the client, so a cluster needs no shared file system).  Running a spec again skips the cells whose
file exists: nothing is recomputed or duplicated, and a grid extended by new values runs only the new cells.

Rows: one per (algorithm, grid point, repetition), the columns of ``SimulationResult.frame`` plus ``alpha`` (if
swept), ``cell_id``, ``cell_seed``, ``seed``, ``spec_hash``, ``spec_name``, ``dpviz_version``, ``seconds`` (the
cell's wall time).
"""

from __future__ import annotations

import hashlib
import json
import math
import os
import time
import tomllib
from dataclasses import dataclass, field
from itertools import product
from pathlib import Path
from typing import Any

import numpy as np

from dpviz import __version__
from dpviz import _validate as v

__all__ = ["SweepSpec", "Cell", "GRID_KEYS", "load_spec", "run_sweep", "run_cell", "load_sweep", "finished_cells"]

#: Parameters a spec can sweep over.
GRID_KEYS = ("n", "eps", "delta", "kappa", "T", "eta", "alpha")
_TOP_KEYS = ("algorithms", "dataset", "loss", "reps", "seed", "grid", "params", "loss_params", "name", "data_seed",
             "n_test", "eval_rows")
_REQUIRED = ("algorithms", "dataset", "loss")
#: Fixed parameters the engine itself reads (besides each algorithm's calibration parameters).
_ENGINE_PARAMS = ("n", "d", "eps", "delta", "T", "eta", "G", "L", "M", "R", "alpha", "mu", "c", "beta", "kappa",
                  "sigma", "sigma_schedule", "run_infeasible", "noise_rule", "rounds", "T_local", "eps1", "delta1",
                  "sigma_c", "r", "E")
_MAX_CELLS = 100_000


@dataclass(frozen=True)
class Cell:
    """One task: one algorithm at one grid point (``values``: grid parameter -> value)."""

    algorithm: str
    values: tuple[tuple[str, float], ...]
    cell_id: str
    cell_seed: int
    spec: "SweepSpec"

    def as_dict(self) -> dict[str, float]:
        return dict(self.values)


@dataclass(frozen=True)
class SweepSpec:
    """A validated sweep spec (see the module docstring)."""

    algorithms: tuple[str, ...]
    dataset: str
    loss: str
    reps: int = 20
    seed: int = 0
    grid: tuple[tuple[str, tuple[float, ...]], ...] = ()
    params: tuple[tuple[str, Any], ...] = ()
    loss_params: tuple[tuple[str, Any], ...] = ()
    name: str = ""
    data_seed: int = 0
    n_test: int | None = None
    eval_rows: int = 2000
    source: str = field(default="", compare=False)
    notes: tuple[str, ...] = field(default=(), compare=False)

    def to_dict(self) -> dict[str, Any]:
        """The normalised spec (plain JSON types)."""
        return {"algorithms": list(self.algorithms), "dataset": self.dataset, "loss": self.loss, "reps": self.reps,
                "seed": self.seed, "grid": {k: list(vals) for k, vals in self.grid},
                "params": {k: (list(x) if isinstance(x, tuple) else x) for k, x in self.params},
                "loss_params": dict(self.loss_params), "name": self.name, "data_seed": self.data_seed,
                "n_test": self.n_test, "eval_rows": self.eval_rows}

    @property
    def hash(self) -> str:
        """SHA-256 (first 16 hex digits) of the normalised spec."""
        return _digest(self.to_dict())

    def cells(self) -> list[Cell]:
        """Every (algorithm, grid point), algorithms outermost, grid in the spec's order (last key fastest)."""
        names = [k for k, _ in self.grid]
        points = list(product(*[vals for _, vals in self.grid])) if names else [()]
        base = self.to_dict()
        for key in ("algorithms", "grid", "name"):
            base.pop(key)
        cells = []
        for alg in self.algorithms:
            for pt in points:
                values = tuple(zip(names, pt))
                cell_seed = int.from_bytes(hashlib.sha256(
                    json.dumps({"seed": self.seed, "point": dict(values)}, sort_keys=True).encode()).digest()[:8],
                    "big") >> 1
                cid = _digest({**base, "algorithm": alg, "point": dict(values)})
                cells.append(Cell(alg, values, cid, cell_seed, self))
        return cells


def _digest(obj) -> str:
    return hashlib.sha256(json.dumps(obj, sort_keys=True, default=str).encode()).hexdigest()[:16]


# ---------------------------------------------------------------------------------------------------------------
# spec


def _number(where: str, x) -> float:
    if isinstance(x, bool) or not isinstance(x, (int, float)):
        raise ValueError(f"{where} must be a number, got {x!r}.")
    if not math.isfinite(x):
        raise ValueError(f"{where} must be finite, got {x!r}.")
    return float(x)


def _check_grid_value(key: str, x) -> float:
    where = f"grid value {key} = {x!r}"
    x = _number(f"[grid] {key}", x)
    if key == "n":
        return float(v.check_n(int(x) if x == int(x) else x))
    if key == "T":
        if x != int(x):
            raise ValueError(f"{where}: T must be a whole number.")
        return float(v.check_int("T", int(x)))
    if key == "eps":
        return v.check_eps(x)
    if key == "delta":
        return v.check_delta(x, allow_zero=True)
    if key == "kappa":
        return v.check_nonnegative("kappa (label noise)", x)
    if key == "eta":
        return v.check_positive("eta", x)
    # alpha: Hölder exponent of a q-norm loss, q = 1 + alpha in (1, 2]
    if not 0.0 < x <= 1.0:
        raise ValueError(f"{where}: alpha must lie in (0, 1] (a q-norm loss with q = 1 + alpha).")
    return x


def _allowed_params(algorithms) -> set[str]:
    from dpviz import catalog

    allowed = set(_ENGINE_PARAMS)
    for alg in algorithms:
        try:
            a = catalog.get_algorithm(alg)
        except ValueError:
            continue
        if a.calibrate is not None:
            allowed |= set(catalog.parameters_of(a.calibrate))
    return allowed


def load_spec(source: str | os.PathLike) -> SweepSpec:
    """Read and validate a sweep spec from a TOML file path (``str`` / ``Path``) or, if it contains a newline or an
    ``=``, from TOML text.

    Raises
    ------
    ValueError
        Unreadable file, invalid TOML, unknown or missing keys, wrong types, invalid values (the message names the
        key and what is allowed).
    """
    from dpviz import data as dpdata, losses, simulate as sim

    if isinstance(source, (str, os.PathLike)) and not (isinstance(source, str) and ("\n" in source or "=" in source)):
        path = Path(source)
        if not path.is_file():
            raise ValueError(f"spec file {str(path)!r} not found.")
        try:
            text = path.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError) as exc:
            raise ValueError(f"cannot read spec file {str(path)!r}: {exc}") from None
    elif isinstance(source, str):
        text = source
    else:
        raise ValueError("the spec must be a TOML file path or TOML text.")
    try:
        raw = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise ValueError(f"the spec is not valid TOML: {exc}") from None
    unknown = [k for k in raw if k not in _TOP_KEYS]
    if unknown:
        raise ValueError(f"unknown key(s) in the spec: {', '.join(map(repr, unknown))}; allowed: {', '.join(_TOP_KEYS)}.")
    missing = [k for k in _REQUIRED if k not in raw]
    if missing:
        raise ValueError(f"the spec needs the key(s): {', '.join(missing)}.")

    algs = raw["algorithms"]
    if isinstance(algs, str):
        algs = [algs]
    if not isinstance(algs, list) or not algs or not all(isinstance(a, str) for a in algs):
        raise ValueError('algorithms must be a non-empty list of algorithm ids, e.g. ["dpsgd-rdp", "sgd"].')
    supported = sim.supported_algorithms()
    for a in algs:
        if a not in supported:
            raise ValueError(f"unknown algorithm {a!r}; the engine runs: {', '.join(supported)}.")
    if len(set(algs)) != len(algs):
        raise ValueError("algorithms lists an id twice.")

    dataset = raw["dataset"]
    if not isinstance(dataset, str) or dataset not in dpdata.DATASETS:
        raise ValueError(f"unknown dataset {dataset!r}; choose one of: {', '.join(dpdata.DATASETS)}.")
    loss = raw["loss"]
    if not isinstance(loss, str) or loss not in losses.loss_ids():
        raise ValueError(f"unknown loss {loss!r}; choose one of: {', '.join(losses.loss_ids())}.")
    loss_params = raw.get("loss_params", {})
    if not isinstance(loss_params, dict):
        raise ValueError("[loss_params] must be a table, e.g. [loss_params] q = 1.5.")
    for k, x in loss_params.items():
        _number(f"[loss_params] {k}", x)
    lossobj = losses.get_loss(loss, **loss_params)  # raises ValueError for parameters the loss does not take

    def _int(key, default, minimum):
        x = raw.get(key, default)
        if x is None:
            return None
        if isinstance(x, bool) or not isinstance(x, int):
            raise ValueError(f"{key} must be a whole number, got {x!r}.")
        return v.check_int(key, x, minimum=minimum)

    reps = _int("reps", 20, 1)
    seed = _int("seed", 0, 0)
    data_seed = _int("data_seed", 0, 0)
    n_test = _int("n_test", None, 10)
    eval_rows = _int("eval_rows", 2000, 10)
    name = raw.get("name", "")
    if not isinstance(name, str):
        raise ValueError("name must be a string.")

    grid_raw = raw.get("grid", {})
    if not isinstance(grid_raw, dict):
        raise ValueError("[grid] must be a table of lists, e.g. [grid] eps = [1.0, 2.0].")
    grid = []
    for k, vals in grid_raw.items():
        if k not in GRID_KEYS:
            raise ValueError(f"unknown grid parameter {k!r}; a spec can sweep over: {', '.join(GRID_KEYS)}.")
        if not isinstance(vals, list):
            vals = [vals]
        if not vals:
            raise ValueError(f"the grid over {k} is empty.")
        checked = tuple(_check_grid_value(k, x) for x in vals)
        if len(set(checked)) != len(checked):
            raise ValueError(f"the grid over {k} repeats a value.")
        grid.append((k, checked))
    if "alpha" in grid_raw and getattr(lossobj, "q", None) is None:
        raise ValueError(f"a grid over alpha needs a q-norm loss (q = 1 + alpha), e.g. q-norm-hinge; {loss!r} has a "
                         f"fixed alpha = {getattr(lossobj, 'alpha', float('nan')):g}.")
    if "alpha" in grid_raw and "q" in loss_params:
        raise ValueError("alpha is swept: leave q out of [loss_params] (q = 1 + alpha).")

    params_raw = raw.get("params", {})
    if not isinstance(params_raw, dict):
        raise ValueError("[params] must be a table, e.g. [params] T = 200.")
    allowed = _allowed_params(algs)
    params = []
    for k, x in params_raw.items():
        if k in grid_raw:
            raise ValueError(f"{k} is both swept in [grid] and fixed in [params]; keep one.")
        if k not in allowed:
            raise ValueError(f"unknown parameter {k!r} in [params]; the chosen algorithms take: "
                             f"{', '.join(sorted(allowed))}.")
        if isinstance(x, list):
            x = tuple(_number(f"[params] {k}", e) for e in x)
        elif isinstance(x, (bool, str)):
            pass
        else:
            x = _number(f"[params] {k}", x)
            if k in ("n", "T", "rounds", "T_local", "d") and x == int(x):
                x = int(x)
        params.append((k, x))
    pd_ = dict(params)
    for k in ("eps", "delta", "kappa", "eta", "T", "n"):
        if k in pd_ and not isinstance(pd_[k], (tuple, bool, str)):
            _check_grid_value(k, pd_[k])
    if "alpha" in pd_ and "alpha" not in grid_raw and getattr(lossobj, "q", None) is not None:
        raise ValueError("for a q-norm loss set q in [loss_params] instead of alpha in [params].")
    notes = []
    if "R" not in pd_ and "G" not in pd_:
        # the calibrations need a gradient bound G, which the losses derive from the domain radius R
        params.append(("R", 1.0))
        notes.append("no R or G in [params]: the domain is the unit ball, R = 1 (iterates projected onto it), as in "
                     "dpviz's reproduction of Wang, Lei, Ying & Zhou (wang-lownoise), Section 5")
    spec = SweepSpec(tuple(algs), dataset, loss, reps, seed, tuple(grid), tuple(params),
                     tuple(sorted(loss_params.items())), name, data_seed, n_test, eval_rows, source=text,
                     notes=tuple(notes))
    ncell = len(spec.algorithms) * int(np.prod([len(vals) for _, vals in spec.grid] or [1]))
    if ncell > _MAX_CELLS:
        raise ValueError(f"the spec has {ncell} cells; at most {_MAX_CELLS}.")
    return spec


# ---------------------------------------------------------------------------------------------------------------
# one cell


def _cell_inputs(cell: Cell):
    """(data set, loss object, params) of a cell."""
    from dpviz import data as dpdata, losses

    spec = cell.spec
    pt = cell.as_dict()
    params = dict(spec.params)
    params = {k: (list(x) if isinstance(x, tuple) else x) for k, x in params.items()}
    kappa = pt.get("kappa", params.pop("kappa", 0.0))
    n = int(pt["n"]) if "n" in pt else params.get("n")
    data = dpdata.load_dataset(spec.dataset, n=n, kappa=kappa, n_test=spec.n_test, seed=spec.data_seed)
    loss_params = dict(spec.loss_params)
    if "alpha" in pt:
        loss_params["q"] = 1.0 + pt["alpha"]
    lossobj = losses.get_loss(spec.loss, **loss_params) if loss_params else spec.loss
    for k, x in pt.items():
        if k == "kappa":
            continue
        if k == "alpha":
            params["alpha"] = x
            continue
        params[k] = int(x) if k in ("n", "T") else x
    if n is not None:
        params["n"] = int(n)
    # DP-SGD's calibration also asks a numerical accountant for comparison (seconds per call); the run uses the
    # paper's sigma only, so a sweep skips that extra unless the spec asks for it
    params.setdefault("accountant_extra", False)
    return data, lossobj, params


def run_cell(cell: Cell):
    """Run one cell: ``reps`` repetitions of its algorithm at its grid point (one vectorised engine call).

    Returns the cell's rows (a pandas DataFrame); see the module docstring for the columns.  Deterministic: depends
    only on the cell (its seed is derived from the spec's seed and grid values).
    """
    from dpviz import simulate as sim

    t0 = time.perf_counter()
    data, lossobj, params = _cell_inputs(cell)
    spec = cell.spec
    res = sim.simulate(cell.algorithm, data, lossobj, reps=spec.reps, seed=cell.cell_seed, params=params,
                       max_work=None, eval_rows=spec.eval_rows)
    frame = res.frame
    frame["loss"] = spec.loss
    pt = cell.as_dict()
    if "alpha" in pt:
        frame["alpha"] = pt["alpha"]
    frame["cell_id"] = cell.cell_id
    frame["cell_seed"] = np.int64(cell.cell_seed)
    frame["seed"] = spec.seed
    frame["spec_hash"] = spec.hash
    frame["spec_name"] = spec.name
    frame["dpviz_version"] = __version__
    frame["seconds"] = time.perf_counter() - t0
    frame["note"] = "; ".join(res.notes)
    return frame


# ---------------------------------------------------------------------------------------------------------------
# running


def finished_cells(out_dir: str | os.PathLike) -> set[str]:
    """Cell ids whose Parquet file exists under ``out_dir``."""
    p = Path(out_dir)
    if not p.is_dir():
        return set()
    return {f.name[len("cell-"):-len(".parquet")] for f in p.glob("cell-*.parquet")}


def _write_cell(frame, out: Path, cell_id: str) -> None:
    import pyarrow as pa
    import pyarrow.parquet as pq

    tmp = out / f".cell-{cell_id}.parquet.tmp"
    pq.write_table(pa.Table.from_pandas(frame, preserve_index=False), tmp)
    os.replace(tmp, out / f"cell-{cell_id}.parquet")


def run_sweep(spec: SweepSpec, out_dir: str | os.PathLike, *, workers: int | None = None,
              scheduler: str | None = None, client=None, processes: bool = True, progress: bool = True,
              log=None) -> dict[str, Any]:
    """Run every unfinished cell of ``spec`` on Dask distributed and write its rows under ``out_dir``.

    Parameters
    ----------
    spec : SweepSpec
        From :func:`load_spec`.
    out_dir : path
        Directory of the Parquet dataset (created if absent); also receives ``spec.toml`` and ``sweep.json``.
    workers : int, optional
        Worker processes of the local cluster (default: the machine's CPU count).  Not with ``scheduler``.
    scheduler : str, optional
        Address of an existing Dask scheduler, e.g. ``tcp://host:8786``.
    client : dask.distributed.Client, optional
        Use this client (tests, notebooks); ``workers`` and ``scheduler`` are then ignored.
    processes : bool
        Local cluster with worker processes (default) or threads (``False``: in-process, for tests).
    progress : bool
        Show a tqdm progress bar on stderr.
    log : callable, optional
        Called with status lines (the dashboard link, counts); default prints to stderr.

    Returns
    -------
    dict
        ``{"cells": total, "skipped": already finished, "ran": run now, "out": path, "dashboard": link or None,
        "seconds": wall time}``.
    """
    import sys

    if not isinstance(spec, SweepSpec):
        raise ValueError("spec must be a SweepSpec (use dpviz.sweep.load_spec).")
    if workers is not None and scheduler is not None:
        raise ValueError("give either --workers (local cluster) or --scheduler (existing cluster), not both.")
    if workers is not None:
        workers = v.check_int("workers", workers)
    if scheduler is not None and (not isinstance(scheduler, str) or "://" not in scheduler):
        raise ValueError(f"the scheduler address must look like tcp://host:8786, got {scheduler!r}.")
    if log is None:
        def log(msg):
            print(msg, file=sys.stderr, flush=True)
    t0 = time.perf_counter()
    out = Path(out_dir)
    if out.exists() and not out.is_dir():
        raise ValueError(f"--out {str(out)!r} exists and is not a directory.")
    cells = spec.cells()
    # validate the first cell of every algorithm here, so a wrong combination fails before any cluster starts
    from dpviz import simulate as sim

    for alg in spec.algorithms:
        first = next(c for c in cells if c.algorithm == alg)
        data, lossobj, params = _cell_inputs(first)
        sim.estimate_cost(alg, data, lossobj, reps=spec.reps, params=params, eval_rows=spec.eval_rows)
    out.mkdir(parents=True, exist_ok=True)
    (out / "spec.toml").write_text(spec.source, encoding="utf-8") if spec.source else None
    (out / "sweep.json").write_text(json.dumps({"spec": spec.to_dict(), "spec_hash": spec.hash,
                                                "dpviz_version": __version__}, indent=2), encoding="utf-8")
    done = finished_cells(out)
    todo = [c for c in cells if c.cell_id not in done]
    summary = {"cells": len(cells), "skipped": len(cells) - len(todo), "ran": 0, "out": str(out), "dashboard": None,
               "seconds": 0.0}
    for note in spec.notes:
        log(f"note: {note}")
    if summary["skipped"]:
        log(f"resuming: {summary['skipped']} of {len(cells)} cells already finished in {out}")
    if not todo:
        summary["seconds"] = time.perf_counter() - t0
        return summary

    from dask.distributed import Client, LocalCluster, as_completed

    cluster = own_client = None
    try:
        if client is None:
            if scheduler is not None:
                try:
                    client = Client(scheduler, timeout="20s")
                except OSError as exc:
                    raise ValueError(f"cannot reach the Dask scheduler at {scheduler}: {exc}") from None
            else:
                n_workers = workers or os.cpu_count() or 1
                cluster = LocalCluster(n_workers=n_workers, threads_per_worker=1, processes=processes,
                                       dashboard_address=":0", silence_logs=40)
                client = Client(cluster)
            own_client = client
        summary["dashboard"] = getattr(client, "dashboard_link", None)
        if summary["dashboard"]:
            log(f"Dask dashboard: {summary['dashboard']}")
        futures = [client.submit(run_cell, c, key=f"dpviz-cell-{c.cell_id}", pure=False) for c in todo]
        bar = None
        if progress:
            from tqdm import tqdm

            bar = tqdm(total=len(todo), desc="cells", unit="cell", file=sys.stderr)
        try:
            for fut in as_completed(futures):
                frame = fut.result()
                _write_cell(frame, out, frame["cell_id"].iloc[0])
                summary["ran"] += 1
                if bar is not None:
                    bar.update(1)
        finally:
            if bar is not None:
                bar.close()
    finally:
        if own_client is not None:
            own_client.close()
        if cluster is not None:
            cluster.close()
    summary["seconds"] = time.perf_counter() - t0
    return summary


# ---------------------------------------------------------------------------------------------------------------
# reading


def load_sweep(out_dir: str | os.PathLike, *, x: str | None = None):
    """Load a sweep's Parquet output as one tidy frame shaped like ``SimulationResult.frame``.

    Parameters
    ----------
    out_dir : path
        The ``--out`` directory of ``python -m dpviz sweep``.
    x : str, optional
        The swept parameter to put in ``grid_name`` / ``grid`` (the x-axis of a plot): one of the spec's grid keys.
        Default: the first grid key of the spec recorded in ``out_dir/sweep.json`` (none if the spec has no grid).

    Returns
    -------
    pandas.DataFrame
        Columns ``algorithm, loss, dataset, kappa, grid_name, grid, rep, n, eps, delta, T, eta, sigma, feasible,
        emp_risk, pop_risk, excess_risk, metric_name, metric`` first (as ``SimulationResult.frame``), then the
        other columns (``alpha`` if swept, ``noisy_fraction`` for PIDP-SGD, provenance).  Sorted by algorithm, the
        grid parameters and rep.
    """
    import pandas as pd
    import pyarrow.parquet as pq

    p = Path(out_dir)
    if not p.is_dir():
        raise ValueError(f"sweep directory {str(p)!r} not found.")
    files = sorted(p.glob("cell-*.parquet"))
    if not files:
        raise ValueError(f"no sweep results (cell-*.parquet) in {str(p)!r}.")
    grid_keys: list[str] = []
    meta = p / "sweep.json"
    if meta.is_file():
        try:
            grid_keys = list(json.loads(meta.read_text(encoding="utf-8"))["spec"]["grid"])
        except (ValueError, KeyError, TypeError):
            grid_keys = []
    frame = pd.concat([pq.read_table(f).to_pandas() for f in files], ignore_index=True)
    if x is None:
        x = grid_keys[0] if grid_keys else None
    elif x not in GRID_KEYS:
        raise ValueError(f"x must be one of the swept parameters ({', '.join(grid_keys or GRID_KEYS)}), got {x!r}.")
    if x is not None:
        if x not in frame.columns:
            raise ValueError(f"the sweep has no column {x!r}.")
        frame["grid_name"] = x
        frame["grid"] = frame[x].astype(float)
    else:
        frame["grid_name"] = ""
        frame["grid"] = np.nan
    head = ["algorithm", "loss", "dataset", "kappa", "grid_name", "grid", "rep", "n", "eps", "delta", "T", "eta",
            "sigma", "feasible", "emp_risk", "pop_risk", "excess_risk", "metric_name", "metric"]
    for col in head:
        if col not in frame.columns:
            frame[col] = np.nan
    order = [c for c in ["algorithm", *grid_keys, "rep"] if c in frame.columns]
    frame = frame.sort_values(order, kind="stable").reset_index(drop=True)
    return frame[head + [c for c in frame.columns if c not in head]]
