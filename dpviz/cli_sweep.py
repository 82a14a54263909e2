"""``python -m dpviz sweep SPEC.toml --out DIR [--workers K | --scheduler ADDRESS] [--json] [--no-progress]``.

Runs a rate study described by a TOML spec (see :mod:`dpviz.sweep`) on Dask distributed: a local cluster of K worker
processes by default, or an existing cluster at ``--scheduler tcp://host:8786``.  Results go to a Parquet dataset
under DIR; running again resumes.  Prints a summary line (JSON with ``--json``); a progress bar and the Dask
dashboard link go to stderr.
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


def add_parser(sub, add_param_options, collect_params) -> None:
    p = sub.add_parser("sweep", help="run a rate study from a TOML spec on Dask (resumable, Parquet output)")
    p.add_argument("spec", help="the TOML spec file (algorithms, dataset, loss, reps, seed, [grid], [params])")
    p.add_argument("--out", required=True, help="output directory of the Parquet dataset (re-running resumes)")
    where = p.add_mutually_exclusive_group()
    where.add_argument("--workers", type=_positive_int, default=None,
                       help="worker processes of the local Dask cluster (default: CPU count)")
    where.add_argument("--scheduler", default=None, help="address of an existing Dask scheduler, tcp://host:8786")
    p.add_argument("--no-progress", action="store_true", help="no progress bar")
    p.add_argument("--json", action="store_true", help="print the summary as JSON")


def run(args) -> int | None:
    if args.command != "sweep":
        return None
    from dpviz import sweep

    spec = sweep.load_spec(args.spec)
    summary = sweep.run_sweep(spec, args.out, workers=args.workers, scheduler=args.scheduler,
                              progress=not args.no_progress)
    if args.json:
        print(json.dumps(summary))
    else:
        print(f"{summary['ran']} cells run, {summary['skipped']} already done, {summary['cells']} in all; "
              f"results in {summary['out']} ({summary['seconds']:.1f} s)")
    return 0
