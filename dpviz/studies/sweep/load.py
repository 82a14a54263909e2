"""Reading a sweep folder: :func:`load_sweep`, its cells as one tidy frame, checked against the manifest."""

from __future__ import annotations

import json
import os
from pathlib import Path

import numpy as np

from dpviz.studies.sweep.spec import GRID_KEYS
from dpviz.studies.sweep.store import (_CELL_ID, _OLD_META_FILE, MANIFEST_FILE, META_FILE, check_cell_file,
                                       expected_cells, file_sha256, read_manifest, strays_note, sweep_cells)


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
            expected = expected_cells(spec_d)  # None: a spec this version cannot read: every cell file is read
    said: list[str] = []
    manifest = read_manifest(p)
    kept, left = sweep_cells([f.name for f in files], expected, manifest)
    files = [p / name for name in kept]
    if manifest is None and files:
        said.append(f"{str(p)[:200]} has no manifest ({MANIFEST_FILE}: written by an earlier version), so its cells' "
                    "content is not checked against the hashes recorded when they were written")
    strays = sorted(set(left) | {f.name for f in p.glob("*.parquet") if not f.name.startswith("cell-")})
    if strays:
        said.append(strays_note(strays))
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
