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

Modules
-------
One concern each (issue 34: no module above 1 000 lines); every name is importable from here as before.

- :mod:`.spec` -- the spec: :class:`SweepSpec`, :class:`Cell`, :func:`load_spec`, the cells' ids and seeds;
- :mod:`.cells` -- one cell (:func:`run_cell`, what a Dask worker runs) and the cost of a sweep (:func:`estimate_sweep`);
- :mod:`.store` -- the cell files and the manifest: integrity (:func:`check_cell_file`, SHA-256, :func:`read_manifest`),
  which cells are finished, atomic writes;
- :mod:`.run` -- :func:`run_sweep` on Dask distributed (resume, re-run of damaged cells);
- :mod:`.load` -- :func:`load_sweep`, the tidy frame of a sweep folder.
"""

from __future__ import annotations

from dpviz.studies.sweep.cells import (MAX_CELL_GB, MAX_HOURS, _cell_inputs, _cell_task, _plain,  # noqa: F401
                                       _where, estimate_sweep, run_cell)
from dpviz.studies.sweep.load import load_sweep
from dpviz.studies.sweep.run import _write_meta, run_sweep  # noqa: F401
from dpviz.studies.sweep.spec import (GRID_KEYS, MAX_SPEC_BYTES, Cell, SweepSpec, _allowed_params,  # noqa: F401
                                      _cell_keys, _digest, load_spec)
from dpviz.studies.sweep.store import (MANIFEST_FILE, META_FILE, SPEC_FILE, _cell_path, _cell_problem,  # noqa: F401
                                       _record, _strays, _write_cell, check_cell_file, expected_cells,
                                       file_sha256, finished_cells, parse_manifest, read_manifest, strays_note,
                                       sweep_cells)

__all__ = ["SweepSpec", "Cell", "GRID_KEYS", "load_spec", "run_sweep", "run_cell", "load_sweep", "finished_cells",
           "estimate_sweep", "check_cell_file", "MAX_HOURS", "MAX_CELL_GB", "META_FILE", "SPEC_FILE", "MANIFEST_FILE",
           "read_manifest", "parse_manifest", "file_sha256", "expected_cells", "sweep_cells",
           "strays_note"]
