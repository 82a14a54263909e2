"""``python -m dpviz sweep SPEC.toml --out DIR [--workers K | --scheduler ADDRESS] [--max-hours H] [--max-cell-gb G]
[--json] [--no-progress]``.

Runs a rate study described by a TOML spec (see :mod:`dpviz.studies.sweep`) on Dask distributed: a local cluster of K worker
processes by default, or an existing cluster at ``--scheduler tcp://host:8786``.  Results go to a Parquet dataset
under DIR; running again resumes.  Prints a summary line (JSON with ``--json``); a progress bar and the Dask
dashboard link go to stderr.  Before anything starts, every cell still to run is costed: a sweep needing more than
``--max-hours`` of compute (default 24, summed over cells on one core) or a cell needing more than ``--max-cell-gb``
of memory (default 4) is refused with one line and exit code 2.
"""

from __future__ import annotations

import argparse
import json


def _positive_int(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a whole number") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"--workers must be at least 1, got {value}")
    return value


def _limit(name: str):
    def parse(text: str) -> float:
        try:
            value = float(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{text!r} is not a number") from None
        if not (value > 0 and value < float("inf")):
            raise argparse.ArgumentTypeError(f"{name} must be a positive finite number, got {text!r}")
        return value

    return parse


def add_parser(sub, add_param_options, collect_params) -> None:
    p = sub.add_parser("sweep", help="run a rate study from a TOML spec on Dask (resumable, Parquet output)")
    p.add_argument("spec", help="the TOML spec file (algorithms, dataset, loss, reps, seed, [grid], [params])")
    p.add_argument("--out", required=True, help="output directory of the Parquet dataset (re-running resumes)")
    where = p.add_mutually_exclusive_group()
    where.add_argument("--workers", type=_positive_int, default=None,
                       help="worker processes of the local Dask cluster (default: CPU count)")
    where.add_argument("--scheduler", default=None, help="address of an existing Dask scheduler, tcp://host:8786")
    p.add_argument("--max-hours", type=_limit("--max-hours"), default=None,
                   help="refuse a sweep whose estimated compute (summed over the cells to run, one core) exceeds "
                        "this many hours (default 24)")
    p.add_argument("--max-cell-gb", type=_limit("--max-cell-gb"), default=None,
                   help="refuse a sweep with a cell whose estimated peak memory exceeds this many GB (default 4)")
    p.add_argument("--no-progress", action="store_true", help="no progress bar")
    p.add_argument("--json", action="store_true", help="print the summary as JSON")


def run(args) -> int | None:
    if args.command != "sweep":
        return None
    from dpviz.studies import sweep

    from pathlib import Path

    spec = sweep.load_spec(Path(args.spec))  # always a path here (a name may contain '=')
    summary = sweep.run_sweep(spec, args.out, workers=args.workers, scheduler=args.scheduler,
                              progress=not args.no_progress,
                              max_hours=sweep.MAX_HOURS if args.max_hours is None else args.max_hours,
                              max_cell_gb=sweep.MAX_CELL_GB if args.max_cell_gb is None else args.max_cell_gb)
    if args.json:
        print(json.dumps(summary))
    else:
        rerun = f" ({summary['rerun']} of them damaged, run again)" if summary.get("rerun") else ""
        print(f"{summary['ran']} cells run{rerun}, {summary['skipped']} already done, {summary['cells']} in all; "
              f"results in {summary['out']} ({summary['seconds']:.1f} s)")
    return 0
