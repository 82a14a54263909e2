"""One cell of a sweep (:func:`run_cell`: what a Dask worker runs) and the cost of a sweep before it runs
(:func:`estimate_sweep`)."""

from __future__ import annotations

import time
from typing import Any

import numpy as np

from dpviz import __version__
from dpviz.foundation import validate as v
from dpviz.studies.sweep.spec import Cell, SweepSpec

#: Default limits of :func:`check_cost` (``--max-hours``, ``--max-cell-gb``): estimated compute hours of the cells
#: still to run (summed over cells, one core) and estimated peak memory of the largest cell.
MAX_HOURS = 24.0
MAX_CELL_GB = 4.0
#: Cells costed first on a large grid (see :func:`estimate_sweep`).
_SAMPLE_CELLS = 200


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
