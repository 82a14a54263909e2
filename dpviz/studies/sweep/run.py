"""Running a sweep: every unfinished cell on Dask distributed (:func:`run_sweep`), resumed where it stopped."""

from __future__ import annotations

import json
import os
import time
from pathlib import Path
from typing import Any

from dpviz import __version__
from dpviz.foundation import validate as v
from dpviz.studies.sweep.cells import MAX_CELL_GB, MAX_HOURS, _cell_task, _gb, _hours, _where, estimate_sweep
from dpviz.studies.sweep.spec import SweepSpec
from dpviz.studies.sweep.store import (_OLD_META_FILE, _OLD_SPEC_FILE, MANIFEST_FILE, META_FILE, SPEC_FILE, _cell_path,
                                       _cell_problem, _record, _strays, _write_cell, file_sha256, read_manifest)


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
