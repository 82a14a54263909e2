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
    a sweep's rows in the tidy shape of ``dpviz.engine.simulate.SimulationResult.frame`` (``grid_name`` / ``grid`` set to
    the swept parameter ``x``), plus the other grid parameters and the provenance columns.

The spec
--------
::

    algorithms = ["dpsgd-rdp", "sgd"]     # engine algorithm ids (dpviz.engine.simulate.supported_algorithms())
    dataset = "wang-least-squares"        # a dpviz.engine.data.DATASETS name
    loss = "least-squares"                # a dpviz.engine.losses id
    reps = 20                             # repetitions per cell
    seed = 0                              # seed of the algorithms' randomness
    # optional: name = "...", data_seed = 0, n_test = 20000, eval_rows = 2000, [loss_params] (e.g. q = 1.5)
    # without R or G in [params] the domain is the unit ball (R = 1), as in the wang-lownoise reproduction
    [grid]                                # any of n, eps, delta, kappa, T, eta, alpha (lists; the product is run)
    n = [200, 400]
    eps = [1.0, 2.0]
    [params]                              # fixed parameters of every cell (as dpviz.engine.simulate.simulate takes them)
    T = 200
    eta = 0.01

``kappa`` is the label-noise level of the data set (``dpviz.engine.data.load_dataset``); ``alpha`` is the Hölder exponent
of the gradient and needs a q-norm loss (``q = 1 + alpha``, Wang, Lei, Ying & Zhang (wang-nonsmooth), Section 1); ``n`` is the
training-sample size (a synthetic data set is drawn with exactly n examples; a real data set uses its first n).

Cells, seeds, resumption
------------------------
A cell is one algorithm at one grid point, run as one call of :func:`dpviz.engine.simulate.simulate` (all repetitions
vectorised).  Its seed is derived from the spec's ``seed`` and the cell's grid values only (SHA-256), so it is the
same on every machine and worker count, the same for every algorithm at that grid point (common random numbers:
DP-SGD and SGD see the same example indices), and does not move when grid values are added.  A cell's identity
(``cell_id``) hashes everything that determines its numbers; its rows are written to ``out_dir/cell-<cell_id>.parquet``
(atomically, by the client, so a cluster needs no shared file system).  Running a spec again skips the cells whose
file is complete (:func:`check_cell_file`: Parquet footer and page checksums readable, the cell's own id in every
row, one row per repetition): nothing is recomputed or duplicated, a grid extended by new values runs only the new
cells, and a damaged file (truncated, emptied, overwritten) is named and its cell run again.  The spec's text and
JSON are ``out_dir/_spec.toml`` and ``out_dir/_sweep.json``: Parquet readers skip names starting with ``_``, so
``pandas.read_parquet(out_dir)`` (and pyarrow / Dask datasets) read the folder as one dataset of the cells.

Cost
----
Before anything is written or started, every cell still to run is costed by the engine's estimate
(:func:`dpviz.engine.simulate.estimate_cost`, data generation included, nothing built): the sweep is refused (ValueError,
one line) when it needs more than ``max_hours`` of compute in all (:data:`MAX_HOURS` by default; summed over
cells on one core) or one cell more than ``max_cell_gb`` GB of memory (:data:`MAX_CELL_GB`); the CLI's
``--max-hours`` / ``--max-cell-gb`` raise them.

Rows: one per (algorithm, grid point, repetition), the columns of ``SimulationResult.frame`` plus ``alpha`` (if
swept), ``cell_id``, ``cell_seed``, ``seed``, ``spec_hash``, ``spec_name``, ``dpviz_version``, ``seconds`` (the
cell's wall time).
"""

from __future__ import annotations

import hashlib
import json
import math
import os
import re
import time
import tomllib
from dataclasses import dataclass, field
from itertools import product
from pathlib import Path
from typing import Any

import numpy as np

from dpviz import __version__
from dpviz.foundation import validate as v

__all__ = ["SweepSpec", "Cell", "GRID_KEYS", "load_spec", "run_sweep", "run_cell", "load_sweep", "finished_cells",
           "estimate_sweep", "check_cell_file", "MAX_HOURS", "MAX_CELL_GB", "META_FILE", "SPEC_FILE", "MANIFEST_FILE",
           "read_manifest", "file_sha256"]

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
#: Largest spec accepted (bytes of TOML): a real spec has a few hundred.
MAX_SPEC_BYTES = 1_000_000
#: Default limits of :func:`check_cost` (``--max-hours``, ``--max-cell-gb``): estimated compute hours of the cells
#: still to run (summed over cells, one core) and estimated peak memory of the largest cell.
MAX_HOURS = 24.0
MAX_CELL_GB = 4.0
#: Names of the sweep's metadata files in ``out_dir``: a leading underscore makes Parquet readers (pyarrow, pandas,
#: Dask) skip them, so the folder is a valid Parquet dataset; folders written before kept the names without it.
META_FILE, SPEC_FILE = "_sweep.json", "_spec.toml"
#: The sweep's manifest: the SHA-256 of every cell file, recorded when the cell is written (``sha256sum`` format)
MANIFEST_FILE = "_cells.sha256"
_MANIFEST_LINE = re.compile(r"^([0-9a-f]{64})  (cell-[0-9A-Za-z_-]{1,64}\.parquet)$")
_MAX_MANIFEST_BYTES = 100_000_000
_OLD_META_FILE, _OLD_SPEC_FILE = "sweep.json", "spec.toml"
_CELL_ID = re.compile(r"[0-9a-f]{16}")
#: Cells costed first on a large grid (see :func:`estimate_sweep`).
_SAMPLE_CELLS = 200


def _is_file(path) -> bool:
    try:
        return Path(path).is_file()
    except (OSError, ValueError):  # a name too long for the file system, a NUL byte
        return False


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
        return [Cell(alg, values, cid, seed, self) for alg, values, cid, seed in _cell_keys(self.to_dict())]


def _digest(obj) -> str:
    return hashlib.sha256(json.dumps(obj, sort_keys=True, default=str).encode()).hexdigest()[:16]


def _cell_keys(d: dict) -> list[tuple[str, tuple, str, int]]:
    """(algorithm, grid values, cell id, cell seed) of every cell of the normalised spec ``d`` (``SweepSpec.to_dict``,
    also as read back from ``_sweep.json``: the ids of a folder's cells are recomputed from its recorded spec)."""
    names = list(d["grid"])
    points = list(product(*[d["grid"][k] for k in names])) if names else [()]
    base = {k: val for k, val in d.items() if k not in ("algorithms", "grid", "name")}
    out = []
    for alg in d["algorithms"]:
        for pt in points:
            values = tuple(zip(names, pt))
            cell_seed = int.from_bytes(hashlib.sha256(
                json.dumps({"seed": d["seed"], "point": dict(values)}, sort_keys=True).encode()).digest()[:8],
                "big") >> 1
            out.append((alg, values, _digest({**base, "algorithm": alg, "point": dict(values)}), cell_seed))
    return out


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
    from dpviz.theory import catalog

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
    from dpviz.engine import data as dpdata, losses, simulate as sim

    if not isinstance(source, (str, os.PathLike)):
        raise ValueError("the spec must be a TOML file path or TOML text.")
    as_text = isinstance(source, str) and ("\n" in source or ("=" in source and not _is_file(source)))
    if not as_text:
        path = Path(source)
        shown = str(path)[:200]
        if not _is_file(path):
            raise ValueError(f"spec file {shown!r} not found.")
        try:
            size = path.stat().st_size
            if size > MAX_SPEC_BYTES:
                raise ValueError(f"spec file {shown!r} has {size:,} bytes; a spec has at most {MAX_SPEC_BYTES:,}.")
            text = path.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError) as exc:
            raise ValueError(f"cannot read spec file {shown!r}: {exc}") from None
    else:
        text = source
    if len(text) > MAX_SPEC_BYTES:
        raise ValueError(f"the spec has {len(text):,} characters; a spec has at most {MAX_SPEC_BYTES:,}.")
    try:
        raw = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise ValueError(f"the spec is not valid TOML: {exc}") from None
    except RecursionError:  # tomllib parses nested arrays / inline tables recursively
        raise ValueError("the spec is not a sweep spec: its arrays or tables are nested too deeply (a spec needs "
                         "only flat lists of numbers).") from None
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


def _cell_inputs(cell: Cell, *, build: bool = True):
    """(data set, loss object, params) of a cell; with ``build=False`` the data set is a
    :class:`dpviz.engine.data.DatasetPlan` (sizes and cost only, nothing drawn or read)."""
    from dpviz.engine import data as dpdata, losses

    spec = cell.spec
    pt = cell.as_dict()
    params = dict(spec.params)
    params = {k: (list(x) if isinstance(x, tuple) else x) for k, x in params.items()}
    kappa = pt.get("kappa", params.pop("kappa", 0.0))
    n = int(pt["n"]) if "n" in pt else params.get("n")
    load = dpdata.load_dataset if build else dpdata.plan_dataset
    data = load(spec.dataset, n=n, kappa=kappa, n_test=spec.n_test, seed=spec.data_seed)
    if n is not None and n > data.n:
        # a real data set has a fixed size (a synthetic one is drawn with exactly n examples)
        raise ValueError(f"n = {int(n)} exceeds the {data.n} training examples of the data set {spec.dataset!r}; "
                         f"choose n <= {data.n}.")
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
    from dpviz.engine import simulate as sim

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


def _cell_task(cell: Cell):
    """What a Dask worker runs: :func:`run_cell`, with a bad input or a lack of memory returned as ``{"error": …}``
    instead of raised, so that the worker logs no traceback and the client reports one line."""
    try:
        return run_cell(cell)
    except (ValueError, MemoryError, OverflowError, ZeroDivisionError, FloatingPointError) as exc:
        kind = "out of memory" if isinstance(exc, MemoryError) else str(exc) or type(exc).__name__
        return {"error": kind}


def _where(cell: Cell) -> str:
    pts = ", ".join(f"{k} = {_plain(x)}" for k, x in cell.values)
    return f"{cell.algorithm}" + (f" at {pts}" if pts else "")


def _plain(x) -> str:
    """A number as written in a spec: whole numbers without exponent, others with repr (never rounded)."""
    if isinstance(x, float) and x.is_integer() and abs(x) < 1e16:
        return str(int(x))
    return repr(x)


# ---------------------------------------------------------------------------------------------------------------
# cost


def _gb(b: float) -> str:
    if b >= 1e12:
        return f"{b / 1e12:.3g} TB"
    return f"{b / 1e9:.3g} GB" if b >= 1e8 else f"{b / 1e6:.3g} MB"


def _hours(s: float) -> str:
    return f"{s / 3600:.3g} h" if s >= 360 else f"{s:.3g} s"


def estimate_sweep(spec: SweepSpec, cells=None, *, max_hours: float | None = MAX_HOURS,
                   max_cell_gb: float | None = MAX_CELL_GB) -> dict[str, Any]:
    """Estimated compute time and memory of ``cells`` (default: every cell of ``spec``), from the engine's cost
    estimate (:func:`dpviz.engine.simulate.estimate_cost`, data generation included), without building any data set.

    Returns ``{"cells", "seconds" (summed over cells, one core), "largest_seconds", "largest_bytes",
    "largest_time_cell", "largest_memory_cell"}`` (cells described as "algorithm at n = …").

    Raises
    ------
    ValueError
        An invalid cell (e.g. n beyond a real data set's size), or, with the limits given, a spec whose estimated
        total time exceeds ``max_hours`` or a cell whose estimated peak memory exceeds ``max_cell_gb``: one line
        naming the figures, the largest cell and the option that raises the limit.  The estimate stops at the first
        limit crossed, so a huge grid is refused in about the time of the cells it took to cross it.
    """
    from dpviz.engine import simulate as sim

    if max_hours is not None:
        max_hours = v.check_positive("--max-hours", max_hours)
    if max_cell_gb is not None:
        max_cell_gb = v.check_positive("--max-cell-gb", max_cell_gb)
    cells = spec.cells() if cells is None else list(cells)

    def one(cell):
        try:
            data, lossobj, params = _cell_inputs(cell, build=False)
            return sim.estimate_cost(cell.algorithm, data, lossobj, reps=spec.reps, params=params,
                                     eval_rows=spec.eval_rows)
        except ValueError as exc:
            raise ValueError(f"cell {_where(cell)}: {exc}") from None

    if max_hours is not None and len(cells) > 4 * _SAMPLE_CELLS:
        # a large grid: an evenly spread sample first, so that a grid far beyond the limit is refused in about the
        # time of the sample (estimating a cell takes up to ~10 ms: a calibration)
        step = len(cells) / _SAMPLE_CELLS
        sample = [cells[int(i * step)] for i in range(_SAMPLE_CELLS)]
        seconds = [one(c)["seconds"] for c in sample]
        guess = sum(seconds) / len(seconds) * len(cells)
        if guess > 2 * max_hours * 3600:
            k = max(range(len(sample)), key=seconds.__getitem__)
            raise ValueError(f"the sweep needs about {_hours(guess)} of compute (extrapolated from {len(sample)} of "
                             f"its {len(cells)} cells; largest of them {_where(sample[k])}: {_hours(seconds[k])}), "
                             f"above --max-hours {max_hours:g}; reduce reps, T, n or the grid, or raise --max-hours.")
    total, big_s, big_b, cell_s, cell_b = 0.0, 0.0, 0.0, None, None
    for i, cell in enumerate(cells):
        est = one(cell)
        total += est["seconds"]
        if est["seconds"] > big_s or cell_s is None:
            big_s, cell_s = est["seconds"], cell
        if est["bytes"] > big_b or cell_b is None:
            big_b, cell_b = est["bytes"], cell
        if max_cell_gb is not None and big_b > max_cell_gb * 1e9:
            raise ValueError(f"the cell {_where(cell_b)} needs about {_gb(big_b)} of memory (data set and "
                             f"{spec.reps} repetitions), above --max-cell-gb {max_cell_gb:g}; reduce n, n_test or "
                             "reps, or raise --max-cell-gb if the machine has the memory.")
        if max_hours is not None and total > max_hours * 3600:
            more = f" or more ({i + 1} of its {len(cells)} cells counted;" if i + 1 < len(cells) else " ("
            raise ValueError(f"the sweep needs about {_hours(total)} of compute{more} largest cell "
                             f"{_where(cell_s)}: {_hours(big_s)}), above --max-hours {max_hours:g}; reduce reps, T, "
                             "n or the grid, or raise --max-hours.")
    return {"cells": len(cells), "seconds": total, "largest_seconds": big_s, "largest_bytes": big_b,
            "largest_time_cell": _where(cell_s) if cell_s else "", "largest_memory_cell": _where(cell_b) if cell_b else ""}


# ---------------------------------------------------------------------------------------------------------------
# cell files


def _cell_path(out: Path, cell_id: str) -> Path:
    return out / f"cell-{cell_id}.parquet"


def check_cell_file(path: str | os.PathLike, *, cell_id: str | None = None, reps: int | None = None) -> str | None:
    """Why the Parquet file of a cell cannot be trusted, or ``None`` if it is a complete cell.

    Checks the Parquet magic bytes and footer, reads every column (with page checksums where the file has them), and,
    where given, that the rows are the cell's (every ``cell_id`` equal to ``cell_id``, the hash of the spec's
    settings of that cell) and that there is one row per repetition ``0 … reps − 1``.
    """
    import pyarrow as pa
    import pyarrow.parquet as pq

    path = Path(path)
    try:
        size = path.stat().st_size
        if size < 12:
            return "empty or truncated" if size else "empty"
        with open(path, "rb") as fh:
            head = fh.read(4)
            fh.seek(-4, os.SEEK_END)
            tail = fh.read(4)
        if head != b"PAR1" or tail != b"PAR1":
            return "not a complete Parquet file (truncated or overwritten)"
        table = pq.ParquetFile(path, page_checksum_verification=True).read()
    except (pa.ArrowException, OSError, ValueError, EOFError) as exc:
        return f"cannot be read as Parquet ({' '.join(str(exc).split())[:100]})"
    names = table.column_names
    if cell_id is not None and ("cell_id" not in names or set(table.column("cell_id").to_pylist()) != {cell_id}):
        return "its rows belong to another cell (cell_id differs: written by another spec?)"
    if reps is not None:
        rep = table.column("rep").to_pylist() if "rep" in names else []
        if sorted(rep) != list(range(reps)):
            return f"has {table.num_rows} rows, expected one per repetition (reps = {reps})"
    return None


def file_sha256(path: str | os.PathLike) -> str:
    """SHA-256 (hex) of a file's bytes, read in blocks."""
    h = hashlib.sha256()
    with open(path, "rb") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def read_manifest(out_dir: str | os.PathLike) -> dict[str, str] | None:
    """The sweep's manifest ``out_dir/_cells.sha256`` as ``{file name: SHA-256}``, or ``None`` if the folder has none
    (written by an earlier version).  One line per written cell, in the format of ``sha256sum`` (so
    ``sha256sum -c _cells.sha256`` checks the folder); a later line for the same file replaces an earlier one, and an
    incomplete last line (a run killed while appending it) is ignored."""
    path = Path(out_dir) / MANIFEST_FILE
    if not path.is_file():
        return None
    out: dict[str, str] = {}
    with open(path, "rb") as fh:
        for raw in fh.read(_MAX_MANIFEST_BYTES + 1)[:_MAX_MANIFEST_BYTES].splitlines():
            m = _MANIFEST_LINE.match(raw.decode("ascii", "replace"))
            if m:
                out[m.group(2)] = m.group(1)
    return out


def _record(out: Path, name: str, digest: str) -> None:
    """Append one cell's hash to the manifest (one short write; flushed to disk before the next cell is written)."""
    path = out / MANIFEST_FILE
    torn = False
    if path.is_file() and path.stat().st_size:
        with open(path, "rb") as fh:  # a run killed while appending left a last line without its end: end it
            fh.seek(-1, os.SEEK_END)
            torn = fh.read(1) != b"\n"
    with open(path, "a", encoding="ascii") as fh:
        fh.write(("\n" if torn else "") + f"{digest}  {name}\n")
        fh.flush()
        os.fsync(fh.fileno())


def _cell_problem(path: Path, cell: Cell, manifest: dict[str, str] | None) -> str | None:
    """Why the file of ``cell`` is not a finished cell (missing, not in the manifest, altered since it was written,
    damaged, another cell's rows), or ``None``."""
    if not path.is_file():
        return "missing"
    why = check_cell_file(path, cell_id=cell.cell_id, reps=cell.spec.reps)
    if why is None and manifest is not None:
        want = manifest.get(path.name)
        if want is None:
            return _UNLISTED
        if file_sha256(path) != want:
            return _ALTERED
    return why


_UNLISTED = "not in the sweep's manifest (_cells.sha256): not written by this sweep, or its run was stopped"
_ALTERED = "its content differs from the SHA-256 recorded in the manifest when it was written (altered since)"


def finished_cells(out_dir: str | os.PathLike, cells=None) -> set[str]:
    """Cell ids whose Parquet file exists under ``out_dir``; with ``cells`` (of one spec) only those whose file is a
    finished cell: listed in the manifest with the SHA-256 of its bytes (when the folder has a manifest) and
    complete (:func:`check_cell_file`)."""
    p = Path(out_dir)
    if not p.is_dir():
        return set()
    if cells is None:
        return {f.name[len("cell-"):-len(".parquet")] for f in p.glob("cell-*.parquet")}
    manifest = read_manifest(p)
    return {c.cell_id for c in cells if _cell_problem(_cell_path(p, c.cell_id), c, manifest) is None}


def _write_cell(frame, out: Path, cell_id: str) -> None:
    """Write a cell's rows atomically (a temporary file renamed into place), then record its SHA-256 in the manifest.
    A run killed between the two leaves a cell that is not in the manifest: the next run names it and runs it again."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    tmp = out / f".cell-{cell_id}.parquet.tmp"
    pq.write_table(pa.Table.from_pandas(frame, preserve_index=False), tmp, write_page_checksum=True)
    digest = file_sha256(tmp)
    os.replace(tmp, _cell_path(out, cell_id))
    _record(out, _cell_path(out, cell_id).name, digest)


def _strays(out: Path, cells, manifest: dict[str, str] | None) -> list[str]:
    """The Parquet files of the folder that are neither a cell of the spec nor listed in the manifest (a copy, a file
    of another tool): reported, never read."""
    mine = {_cell_path(out, c.cell_id).name for c in cells}
    return sorted(f.name for f in out.glob("*.parquet")
                  if f.name not in mine and (manifest is None or f.name not in manifest))


def _write_meta(spec: SweepSpec, out: Path, log) -> None:
    """The spec's text and JSON under the underscore names; the old names (folders of earlier versions) removed, so
    the folder stays a valid Parquet dataset."""
    if spec.source:
        (out / SPEC_FILE).write_text(spec.source, encoding="utf-8")
    (out / META_FILE).write_text(json.dumps({"spec": spec.to_dict(), "spec_hash": spec.hash,
                                             "dpviz_version": __version__}, indent=2), encoding="utf-8")
    old = [name for name in (_OLD_SPEC_FILE, _OLD_META_FILE) if (out / name).is_file()]
    for name in old:
        (out / name).unlink()
    if old:
        log(f"note: renamed {' and '.join(old)} to {SPEC_FILE} and {META_FILE} (Parquet readers skip names starting "
            "with _, so the folder reads as one Parquet dataset)")


def run_sweep(spec: SweepSpec, out_dir: str | os.PathLike, *, workers: int | None = None,
              scheduler: str | None = None, client=None, processes: bool = True, progress: bool = True,
              log=None, max_hours: float | None = MAX_HOURS, max_cell_gb: float | None = MAX_CELL_GB) -> dict[str, Any]:
    """Run every unfinished cell of ``spec`` on Dask distributed and write its rows under ``out_dir``.

    Parameters
    ----------
    spec : SweepSpec
        From :func:`load_spec`.
    out_dir : path
        Directory of the Parquet dataset (created if absent): ``cell-<id>.parquet`` files, plus ``_spec.toml`` and
        ``_sweep.json`` (underscore names, which Parquet readers skip: ``pandas.read_parquet(out_dir)`` reads the
        cells).
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
    max_hours, max_cell_gb : float or None
        Refuse (ValueError, before anything is written or started) when the cells still to run need more than
        ``max_hours`` of compute in all (estimated, summed over cells on one core) or one cell more than
        ``max_cell_gb`` GB of memory (:func:`estimate_sweep`); ``None``: no limit.

    Returns
    -------
    dict
        ``{"cells": total, "skipped": already finished, "ran": run now, "rerun": damaged cell files run again,
        "out": path, "dashboard": link or None, "seconds": wall time, "estimate_seconds": estimated compute}``.

    A cell counts as finished only if its file is complete (:func:`check_cell_file`: readable footer and pages, its
    own cell id, one row per repetition); a damaged file is named in the log and its cell run again.
    """
    import sys

    if not isinstance(spec, SweepSpec):
        raise ValueError("spec must be a SweepSpec (use dpviz.studies.sweep.load_spec).")
    if workers is not None and scheduler is not None:
        raise ValueError("give either --workers (local cluster) or --scheduler (existing cluster), not both.")
    if workers is not None:
        workers = v.check_int("workers", workers)
    if scheduler is not None and (not isinstance(scheduler, str) or "://" not in scheduler):
        raise ValueError(f"the scheduler address must look like tcp://host:8786, got {str(scheduler)[:80]!r}.")
    if log is None:
        def log(msg):
            print(msg, file=sys.stderr, flush=True)
    t0 = time.perf_counter()
    out = Path(out_dir)
    if out.exists() and not out.is_dir():
        raise ValueError(f"--out {str(out)[:200]!r} exists and is not a directory.")
    cells = spec.cells()
    manifest = read_manifest(out) if out.is_dir() else None
    legacy = out.is_dir() and manifest is None and any(out.glob("cell-*.parquet"))
    problems = {c.cell_id: _cell_problem(_cell_path(out, c.cell_id), c, manifest) for c in cells}
    done = {cid for cid, why in problems.items() if why is None}
    damaged = [c for c in cells if problems[c.cell_id] not in (None, "missing")]
    todo = [c for c in cells if c.cell_id not in done]
    strays = _strays(out, cells, manifest) if out.is_dir() else []
    # every cell still to run is checked and costed before any file is written or any cluster starts
    est = estimate_sweep(spec, todo, max_hours=max_hours, max_cell_gb=max_cell_gb)
    out.mkdir(parents=True, exist_ok=True)
    _write_meta(spec, out, log)
    if manifest is None:
        # a new folder, or one written before the manifest: the complete cells found are recorded as they are now
        (out / MANIFEST_FILE).touch()
        for c in cells:
            if c.cell_id in done:
                _record(out, _cell_path(out, c.cell_id).name, file_sha256(_cell_path(out, c.cell_id)))
        if legacy:
            log(f"note: {out} had no manifest ({MANIFEST_FILE}, written by an earlier version): recorded the SHA-256 "
                f"of its {len(done)} complete cell file(s) as they are now")
    summary = {"cells": len(cells), "skipped": len(cells) - len(todo), "ran": 0, "rerun": len(damaged),
               "out": str(out), "dashboard": None, "seconds": 0.0, "estimate_seconds": est["seconds"],
               "strays": strays}
    for note in spec.notes:
        log(f"note: {note}")
    if summary["skipped"]:
        log(f"resuming: {summary['skipped']} of {len(cells)} cells already finished in {out}")
    if damaged:
        shown = "; ".join(f"{_cell_path(out, c.cell_id).name} ({problems[c.cell_id]})" for c in damaged[:5])
        log(f"running again {len(damaged)} cell(s) whose file is damaged or cannot be trusted: {shown}"
            + (f"; and {len(damaged) - 5} more" if len(damaged) > 5 else ""))
    if strays:
        log(f"note: {len(strays)} Parquet file(s) in {out} are not cells of this spec nor in its manifest, and are "
            f"never read as its data: {', '.join(strays[:5])}" + (f" and {len(strays) - 5} more" if len(strays) > 5
                                                                  else ""))
    if not todo:
        summary["seconds"] = time.perf_counter() - t0
        return summary
    log(f"estimate: {len(todo)} cells, about {_hours(est['seconds'])} of compute in all (largest cell "
        f"{est['largest_time_cell']}: {_hours(est['largest_seconds'])}; {_gb(est['largest_bytes'])} of memory at most)")

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
        by_key = {f"dpviz-cell-{c.cell_id}": c for c in todo}
        futures = [client.submit(_cell_task, c, key=k, pure=False) for k, c in by_key.items()]
        bar = None
        if progress:
            from tqdm import tqdm

            bar = tqdm(total=len(todo), desc="cells", unit="cell", file=sys.stderr)
        try:
            for fut in as_completed(futures):
                frame = fut.result()
                if isinstance(frame, dict):
                    for f in futures:
                        f.cancel()
                    raise ValueError(f"cell {_where(by_key[fut.key])} failed: {frame['error']} "
                                     f"({summary['ran']} cells finished and kept; fix the spec and run again to "
                                     "resume)")
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


def load_sweep(out_dir: str | os.PathLike, *, x: str | None = None, notes: list | None = None):
    """Load a sweep's Parquet output as one tidy frame shaped like ``SimulationResult.frame``.

    Parameters
    ----------
    out_dir : path
        The ``--out`` directory of ``python -m dpviz sweep``.
    x : str, optional
        The swept parameter to put in ``grid_name`` / ``grid`` (the x-axis of a plot): one of the spec's grid keys.
        Default: the first grid key of the spec recorded in ``out_dir/_sweep.json`` (``sweep.json`` in folders
        written by earlier versions; none if the spec has no grid).
    notes : list, optional
        Where to append what was left out (files that are not cells of the recorded spec or not in the manifest,
        cells written before the manifest existed); without it they are issued as warnings.

    Which files are read: the cells of the spec recorded in ``_sweep.json`` (their ids are recomputed from it) that
    the manifest ``_cells.sha256`` lists, each checked against its recorded SHA-256.  Any other Parquet file in the
    folder (a copy of a cell, a cell of another spec) is reported and never read as data.  A folder without a
    manifest (an earlier version) is read as before, with a note; without ``_sweep.json`` every cell file is read.

    Returns
    -------
    pandas.DataFrame
        Columns ``algorithm, loss, dataset, kappa, grid_name, grid, rep, n, eps, delta, T, eta, sigma, feasible,
        emp_risk, pop_risk, excess_risk, metric_name, metric`` first (as ``SimulationResult.frame``), then the
        other columns (``alpha`` if swept, ``noisy_fraction`` for PIDP-SGD, provenance).  Sorted by algorithm, the
        grid parameters and rep.

    Raises
    ------
    ValueError
        No such folder, no cell files, damaged cell files (:func:`check_cell_file`) or cell files whose content differs
        from the SHA-256 recorded when they were written (the message names them and says how to compute them
        again), two cells with the same (algorithm, grid point, repetition).
    """
    import pandas as pd
    import pyarrow as pa
    import pyarrow.parquet as pq

    p = Path(out_dir)
    if not p.is_dir():
        raise ValueError(f"sweep directory {str(p)[:200]!r} not found.")
    files = sorted(p.glob("cell-*.parquet"))
    if not files:
        raise ValueError(f"no sweep results (cell-*.parquet) in {str(p)[:200]!r}.")
    grid_keys: list[str] = []
    reps = None
    expected: set[str] | None = None
    meta = next((p / name for name in (META_FILE, _OLD_META_FILE) if (p / name).is_file()), None)
    if meta is not None:
        try:
            spec_d = json.loads(meta.read_text(encoding="utf-8"))["spec"]
            grid_keys = [str(k) for k in spec_d["grid"]]
            reps = spec_d.get("reps")
            reps = reps if isinstance(reps, int) and not isinstance(reps, bool) and reps >= 1 else None
        except (ValueError, KeyError, TypeError, AttributeError, OSError, RecursionError):
            grid_keys, reps = [], None
        else:
            try:
                expected = {_cell_path(p, cid).name for _a, _v, cid, _s in _cell_keys(spec_d)}
            except (ValueError, KeyError, TypeError, AttributeError, RecursionError):
                expected = None  # a spec this version cannot read: every cell file is read, as before
    said: list[str] = []
    manifest = read_manifest(p)
    left = []
    if expected is not None and any(f.name in expected for f in files):
        left += [f.name for f in files if f.name not in expected]
        files = [f for f in files if f.name in expected]
    if manifest is not None:
        left += [f.name for f in files if f.name not in manifest]
        files = [f for f in files if f.name in manifest]
    elif files:
        said.append(f"{str(p)[:200]} has no manifest ({MANIFEST_FILE}: written by an earlier version), so its cells' "
                    "content is not checked against the hashes recorded when they were written")
    strays = sorted(set(left) | {f.name for f in p.glob("*.parquet") if not f.name.startswith("cell-")})
    if strays:
        said.append(f"{len(strays)} Parquet file(s) in the folder are not cells of its sweep (not in its spec or its "
                    f"manifest) and were not read: {', '.join(s[:80] for s in strays[:5])}"
                    + (f" and {len(strays) - 5} more" if len(strays) > 5 else ""))
    for line in said:
        if notes is not None:
            notes.append(line)
        else:
            import warnings

            warnings.warn(line, stacklevel=2)
    if not files:
        raise ValueError(f"no cell of the sweep's spec in {str(p)[:200]!r} is in its manifest ({MANIFEST_FILE}); "
                         "run python -m dpviz sweep with the spec and this --out to compute them.")
    bad = [(f.name, why) for f in files
           if (why := check_cell_file(f, cell_id=f.name[5:-8] if _CELL_ID.fullmatch(f.name[5:-8]) else None,
                                      reps=reps)) is not None]
    if bad:
        shown = "; ".join(f"{name} ({why})" for name, why in bad[:3]) + (f"; and {len(bad) - 3} more"
                                                                           if len(bad) > 3 else "")
        raise ValueError(f"{len(bad)} of the {len(files)} cell files in {str(p)[:200]!r} are damaged: {shown}. Run "
                         "python -m dpviz sweep with the same spec and --out to compute them again (or delete them).")
    if manifest is not None:
        altered = [f.name for f in files if file_sha256(f) != manifest[f.name]]
        if altered:
            shown = ", ".join(altered[:3]) + (f" and {len(altered) - 3} more" if len(altered) > 3 else "")
            raise ValueError(f"{len(altered)} of the {len(files)} cell files in {str(p)[:200]!r} differ from the "
                             f"SHA-256 recorded in the manifest ({MANIFEST_FILE}) when they were written: {shown}. "
                             "Their values cannot be trusted: run python -m dpviz sweep with the same spec and --out "
                             "to compute them again.")
    try:
        frame = pd.concat([pq.read_table(f).to_pandas() for f in files], ignore_index=True)
    except (pa.ArrowException, OSError, ValueError) as exc:
        raise ValueError(f"the cell files in {str(p)[:200]!r} cannot be read together "
                         f"({' '.join(str(exc).split())[:150]}).") from None
    keys = [c for c in ["algorithm", *grid_keys, "rep"] if c in frame.columns]
    if expected is not None:  # the spec is known: one row per (algorithm, grid point, repetition)
        dup = frame.duplicated(keys, keep=False)
        if dup.any():
            where = sorted(set(frame.loc[dup, "cell_id"].astype(str))) if "cell_id" in frame.columns else []
            raise ValueError(f"{int(dup.sum())} rows of {str(p)[:200]!r} repeat an ({', '.join(keys)}) of another "
                             f"row (cells {', '.join(where[:4])}): the folder holds two copies of a cell; keep one.")
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
