"""The sweep spec: reading and validating the TOML (:func:`load_spec`), the validated :class:`SweepSpec` and its
cells (:class:`Cell`: one algorithm at one grid point, with the id and seed derived from the spec alone)."""

from __future__ import annotations

import hashlib
import json
import math
import os
import tomllib
from dataclasses import dataclass, field
from itertools import product
from pathlib import Path
from typing import Any

import numpy as np

from dpviz.foundation import validate as v

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
