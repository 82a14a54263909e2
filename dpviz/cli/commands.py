"""Command line: ``python -m dpviz {algorithms,theorems,tables,calibrate,bound,reproduce}``.

The sub-command names, the option names and the JSON keys are a contract (external scripts depend on them):

- ``python -m dpviz algorithms --json`` → list of {id, paper, setting, perturbation}
- ``python -m dpviz theorems --json`` → list of {id, paper, theorem, algorithm}
- ``python -m dpviz calibrate --algorithm ID --n N --eps E --delta D [--d --T --eta --G --L --M --R --alpha --mu] --json``
  → {id, sigma, laplace_scale, sigma_schedule, beta, beta_interval, feasible, reason, T, eta, …}
- ``python -m dpviz bound --theorem ID … --json`` → {terms, total, exponents, eta, T, …}
- ``python -m dpviz reproduce NAME [--reps R] [--seed S] [--max-hours H] --out DIR`` → {csv, html, md} (a simulation
  or study prints its time estimate first and is refused above ``--max-hours``, default 1; formula-based targets
  refuse ``--reps`` / ``--seed``)
- ``python -m dpviz reproduce --list --json`` → list of {id, paper, what, seconds_estimate}
- ``python -m dpviz simulate --algorithm ID --dataset NAME --loss ID --over eps|n --values V1,V2 --reps R --seed S
  [--data-n N --label-noise K --l2 L] [the calibrate options, --param ...] --json`` → {runs: [{algorithm, kappa, rows}]}
  (the Simulate page's "Download this view" command)
- ``python -m dpviz sweep SPEC.toml --out DIR [--workers K | --scheduler ADDRESS] [--max-hours H] [--max-cell-gb G]``
  (module ``cli_sweep``)
- ``python -m dpviz tables --json`` → every table's rows with their formulas (values null unless parameters given)

Invalid or missing parameters exit with code 2 and one line on stderr (no traceback).
"""

from __future__ import annotations

import argparse
import inspect
import json
import sys
from typing import Any, Sequence

from dpviz.theory import catalog
from dpviz.foundation import validate as v
from dpviz.foundation.validate import check_params

__all__ = ["main", "build_parser", "EXTENSIONS"]

#: Further sub-commands, each in its own module of the ``dpviz`` package.  A module listed here defines
#: ``add_parser(sub, add_param_options, collect_params)`` (adds its sub-parser(s) to the argparse sub-parsers ``sub``;
#: ``add_param_options(p)`` adds the common calibrate/bound options, ``collect_params(args)`` reads and checks them)
#: and ``run(args) -> int | None`` (handles ``args.command`` if it is one of its own, else returns None).
#: Raise ``ValueError`` for bad input: ``main`` turns it into one stderr line and exit code 2.
EXTENSIONS: list[str] = ["cli.sweep", "cli.account", "cli.audit", "cli.check"]


#: Default memory guard of ``simulate`` (GB): the data set and the engine's chains, estimated before anything runs.
SIMULATE_MAX_GB = 4.0


class UsageError(Exception):
    """A problem with the command line; reported as one line on stderr with exit code 2."""


class _Parser(argparse.ArgumentParser):
    def error(self, message: str):  # one clear line, exit 2 (argparse's default prints the whole usage)
        raise UsageError(message)


def _number(text: str) -> float:
    """Parse a number written by a user as the dashboard's boxes read it (``1e-8``, ``10000``, ``0.5``, ``6e4``,
    ``60,000``, ``60 000``: :func:`dpviz.foundation.urlstate.parse_number`); never eval."""
    from dpviz.foundation import urlstate

    try:
        return float(urlstate.parse_number(text))
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


def _whole(text: str) -> int:
    value = _number(text)
    if value != int(value):
        raise argparse.ArgumentTypeError(f"{text!r} is not a whole number")
    return int(value)


def _keyvalue(text: str) -> tuple[str, Any]:
    if "=" not in text:
        raise argparse.ArgumentTypeError(f"--param expects NAME=VALUE, got {text!r}")
    key, _, raw = text.partition("=")
    key = key.strip()
    if not key.isidentifier():
        raise argparse.ArgumentTypeError(f"--param name {key!r} is not a valid parameter name")
    raw = raw.strip()
    low = raw.lower()
    if low in ("true", "false"):
        return key, low == "true"
    try:
        value: Any = _number(raw)
        if value == int(value) and "." not in raw and "e" not in low:
            value = int(value)
    except argparse.ArgumentTypeError:
        value = raw  # plain string (e.g. a choice); never evaluated
    return key, value


#: Common numeric options of ``calibrate`` and ``bound``: name -> (type, help)
_PARAMS: dict[str, tuple[Any, str]] = {
    "n": (_whole, "sample size n (>= 2)"),
    "d": (_whole, "dimension d"),
    "eps": (_number, "privacy budget epsilon > 0 (smaller = more private)"),
    "delta": (_number, "privacy parameter delta in [0, 1) (0 selects pure-DP / Laplace variants where they exist)"),
    "T": (_whole, "number of iterations T"),
    "eta": (_number, "step size eta"),
    "G": (_number, "Lipschitz constant G of the loss"),
    "L": (_number, "smoothness / Hölder constant L"),
    "M": (_number, "bound M on ||grad f(0; z)|| (Hölder papers)"),
    "R": (_number, "radius R of the domain"),
    "alpha": (_number, "Hölder smoothness exponent alpha in [0, 1]"),
    "mu": (_number, "strong-convexity / PL constant mu"),
    "c": (_number, "the paper's unspecified absolute constant (default 1)"),
    "beta": (_number, "RDP split parameter beta in (0, 1) (default: searched)"),
    "kappa": (_number, "data radius / label-noise level kappa"),
}


def _add_param_options(p: argparse.ArgumentParser) -> None:
    for name, (typ, help_) in _PARAMS.items():
        p.add_argument(f"--{name}", type=typ, default=None, help=help_)
    p.add_argument(
        "--param",
        type=_keyvalue,
        action="append",
        default=[],
        metavar="NAME=VALUE",
        help="any further parameter a calibration or theorem takes (repeatable), e.g. --param zeta=0.5",
    )
    p.add_argument("--json", action="store_true", help="print JSON")


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(prog="python -m dpviz", description="Noise scales, schedules and bounds of DP-SGD papers.")
    sub = parser.add_subparsers(dest="command", required=True, parser_class=_Parser)

    p = sub.add_parser("algorithms", help="list the catalogue's algorithms")
    p.add_argument("--json", action="store_true")
    p = sub.add_parser("theorems", help="list the catalogue's theorems")
    p.add_argument("--json", action="store_true")
    p = sub.add_parser("tables", help="list the papers' comparison tables, evaluated at parameters if given")
    p.add_argument("--table", default=None, help="one table id")
    _add_param_options(p)

    p = sub.add_parser("calibrate", help="noise scale of an algorithm at given parameters")
    p.add_argument("--algorithm", required=True, help="algorithm id (see `algorithms`)")
    _add_param_options(p)

    p = sub.add_parser("bound", help="schedule and excess-risk bound of a theorem")
    p.add_argument("--theorem", required=True, help="theorem id (see `theorems`)")
    p.add_argument("--explicit", action="store_true", help="use the paper's explicit constants where given")
    _add_param_options(p)

    p = sub.add_parser("reproduce", help="reproduce a paper's experiment (CSV, offline HTML, Markdown report)")
    p.add_argument("name", nargs="?", default=None, help="e.g. wang-lownoise-fig1 (see --list)")
    p.add_argument("--list", action="store_true", help="list the targets")
    p.add_argument("--json", action="store_true", help="with --list: print JSON")
    p.add_argument("--reps", type=_whole, default=None,
                   help="repetitions (default: the target's, 500 for the Wang et al. figures); simulation targets "
                        "only (formula-based targets have no randomness)")
    p.add_argument("--seed", type=_whole, default=None, help="random seed (default 0); simulation targets only")
    p.add_argument("--max-hours", type=_number, default=None,
                   help="refuse a run estimated above this many hours (default 1); the estimate is printed first")
    p.add_argument("--out", default=None, help="output directory (required to run a target)")
    p = sub.add_parser("simulate", help="run the simulation engine as the Simulate page does (its rows as JSON)")
    p.add_argument("--algorithm", required=True, action="append",
                   help="algorithm id (repeatable: one run per algorithm, in the order given)")
    p.add_argument("--dataset", required=True, help="built-in data set (see dpviz.engine.data.DATASETS)")
    p.add_argument("--data-n", type=_whole, default=None,
                   help="training examples of a synthetic data set (the page: the largest n it needs)")
    p.add_argument("--label-noise", type=_number, action="append", default=None, dest="label_noise",
                   help="label noise kappa of a Wang et al. design (repeatable: one data set per value)")
    p.add_argument("--loss", required=True, help="loss id")
    p.add_argument("--l2", type=_number, default=0.0, help="L2 regulariser lambda (adds lambda ||w||^2)")
    p.add_argument("--loss-q", type=_number, default=None, dest="loss_q",
                   help="exponent q of a q-norm loss, 1 < q <= 2 (its gradient is alpha-Hölder, alpha = q - 1)")
    p.add_argument("--schedule", default=None, metavar="THEOREM",
                   help="T and eta at every grid point from this theorem's bound at that point's own n or eps "
                        "(the Simulate page's 'theorem' schedule; dpviz.engine.simulate.schedule)")
    p.add_argument("--schedule-c", type=_number, default=1.0, dest="schedule_c",
                   help="the theorem's free constant c for --schedule (default 1)")
    p.add_argument("--schedule-R", type=_number, default=None, dest="schedule_R",
                   help="the radius R the --schedule theorem and the loss's constants use (default --R)")
    p.add_argument("--over", required=True, choices=("eps", "n"), help="the swept parameter")
    p.add_argument("--values", required=True, help="its comma-separated values")
    p.add_argument("--reps", type=_whole, required=True, help="repetitions per grid point")
    p.add_argument("--seed", type=_whole, default=0, help="random seed (default 0)")
    p.add_argument("--max-gb", type=_number, default=None,
                   help=f"memory guard: refuse a run estimated above this many GB (default {SIMULATE_MAX_GB:g}); "
                        "the estimate (data set + engine) is made before anything is built")
    _add_param_options(p)
    for mod in _extensions():
        mod.add_parser(sub, _add_param_options, _collect_params)
    return parser


def _run_simulate(args: argparse.Namespace) -> int:
    """``simulate``: the runs of the Simulate page (same data, loss, grid, fixed parameters, seed), one JSON object
    ``{"runs": [{"algorithm", "kappa", "rows": [...]}]}`` with the rows of each run's frame."""
    from dpviz.engine import data as D
    from dpviz.engine import losses
    from dpviz.engine import simulate as S

    params = _collect_params(args)
    kind = "int" if args.over == "n" else "float"
    try:
        values = [(_whole if kind == "int" else _number)(t.strip()) for t in args.values.split(",") if t.strip()]
    except argparse.ArgumentTypeError as exc:
        raise UsageError(f"--values: {exc}") from None
    if not values:
        raise UsageError("--values needs at least one value")
    kappas = args.label_noise or [0.0]
    extra = {"q": float(args.loss_q)} if args.loss_q is not None else {}
    loss = losses.get_loss(args.loss, l2=float(args.l2), **extra) if (args.l2 or extra) else args.loss
    max_gb = SIMULATE_MAX_GB if args.max_gb is None else v.check_positive("--max-gb", args.max_gb)
    # the memory of every run, estimated from the sizes alone before any data set is built (a --data-n of 1e12 or
    # --reps of 1e9 asked numpy for 73 TiB / 149 GiB and ended in a traceback)
    for kappa in kappas:
        plan = D.plan_dataset(args.dataset, n=args.data_n, kappa=kappa)
        for alg in args.algorithm:
            # with --schedule, T and eta are known once the data set is built: the guard then counts the data set
            # and the chains at T = 1 (the history of pairwise SGD, which grows with T, is not counted)
            est = S.estimate_cost(alg, plan, loss, grid={args.over: values}, reps=args.reps,
                                  params={**params, "T": 1, "eta": 1.0} if args.schedule else params)
            if est["bytes"] > max_gb * 1e9:
                raise UsageError(
                    f"{alg} on {args.dataset} (n = {plan.n}, {args.reps} repetitions) needs about "
                    f"{est['bytes'] / 1e9:.3g} GB of memory, above the guard --max-gb {max_gb:g}: use fewer "
                    "repetitions or a smaller --data-n, or raise --max-gb if the machine has the memory")
    runs = []
    for kappa in kappas:
        ds = D.load_dataset(args.dataset, n=args.data_n, kappa=kappa)  # real data: n and kappa do not apply
        run_params = _schedule_params(args, params, ds, loss, values) if args.schedule else params
        for alg in args.algorithm:
            res = S.simulate(alg, ds, loss, grid={args.over: values}, reps=args.reps, seed=args.seed,
                             params=run_params, max_work=None)
            runs.append({"algorithm": alg, "kappa": kappa if args.label_noise else None,
                         "rows": catalog._json_safe(res.frame.to_dict("records")), "notes": list(res.notes)})
    out = {"runs": runs}
    if args.json:
        print(json.dumps(out, default=str))
    else:
        for r in runs:
            print(f"{r['algorithm']}" + (f" (kappa = {r['kappa']:g})" if r["kappa"] is not None else "")
                  + f": {len(r['rows'])} rows")
    return 0


def _schedule_params(args: argparse.Namespace, params: dict, ds, loss, values) -> dict:
    """``params`` with T and eta per grid point from the theorem ``--schedule`` at each point's own n or eps (the
    rule of :mod:`dpviz.engine.simulate.schedule`, the Simulate page's); a point without a schedule is an error."""
    from dpviz.engine.simulate import schedule as SC

    R = args.schedule_R if args.schedule_R is not None else params.get("R")
    if R is None:
        raise UsageError("--schedule needs the radius R (--R or --schedule-R)")
    base = SC.schedule_params({**params, "R": float(R), "c": float(args.schedule_c)}, loss=loss,
                              data_bound=ds.x_bound, d=ds.d, G=params.get("G"))
    points = SC.theorem_schedule(args.schedule, sweep=args.over, grid=values, params=base,
                                 delta_auto="delta" not in params)
    bad = [pt for pt in points if not pt.ok]
    if bad:
        raise UsageError(f"--schedule {args.schedule} gives no T and eta at {args.over} = {bad[0].value:g}: "
                         f"{bad[0].reason}; leave that value out of --values")
    return {**params, "T": [pt.T for pt in points], "eta": [pt.eta for pt in points]}


def _extensions() -> list:
    import importlib

    return [importlib.import_module(f"dpviz.{name}") for name in EXTENSIONS]


def _collect_params(args: argparse.Namespace) -> dict[str, Any]:
    """The common options and ``--param`` entries, range-checked against the one table of accepted ranges
    (:data:`dpviz.foundation.validate.PARAM_RANGES`), so every sub-command reports a bad value the same way."""
    params = {name: getattr(args, name) for name in _PARAMS if getattr(args, name, None) is not None}
    for key, value in getattr(args, "param", []):
        params[key] = value
    return check_params(params)


def _check_param_names(args: argparse.Namespace, funcs, what: str) -> None:
    """Reject ``--param NAME=…`` whose NAME none of ``funcs`` (the calibration / bound functions that will run)
    takes, listing the accepted names; a misspelt name would otherwise be silently ignored."""
    given = [key for key, _ in getattr(args, "param", [])]
    if not given:
        return
    accepted: set[str] = set()
    for func in funcs:
        try:
            sig = inspect.signature(func)
        except (TypeError, ValueError):  # pragma: no cover (builtins)
            return
        if any(p.kind is p.VAR_KEYWORD for p in sig.parameters.values()):
            return  # takes any keyword
        accepted.update(catalog.parameters_of(func))
    unknown = [k for k in given if k not in accepted]
    if unknown:
        raise UsageError(f"unknown parameter(s) {', '.join(unknown)} for {what}; it accepts: "
                         f"{', '.join(sorted(accepted, key=str.lower)) or '(none)'}")


#: Default of ``reproduce --max-hours``.
REPRODUCE_MAX_HOURS = 1.0


def _reproduce_estimate(args: argparse.Namespace) -> str:
    """Check a ``reproduce`` command before anything runs and return its estimate line ("" for a formula target).

    Formula-based targets (Calibrate regions, bound curves) have no randomness: ``--reps`` / ``--seed`` are
    refused there rather than ignored.  Simulation targets and studies: repetitions and seed in range, the output
    directory writable, and the time estimated -- the target's listed time at its default repetitions, scaled by
    the repetitions (the engine's cost is linear in them) -- and refused above ``--max-hours``.
    """
    import os
    from pathlib import Path

    from dpviz.studies import experiments
    from dpviz.studies import reproduce as rep
    from dpviz.foundation.validate import shown

    if args.name not in experiments.EXPERIMENTS:
        return ""  # reproduce() names the targets
    e = experiments.get(args.name)
    if e.kind in ("region", "bounds"):
        given = [opt for opt, val in (("--reps", args.reps), ("--seed", args.seed)) if val is not None]
        if given:
            raise UsageError(f"{args.name} is computed from the papers' formulas, with no randomness: "
                             f"{' and '.join(given)} {'do' if len(given) > 1 else 'does'} not apply to it (leave "
                             f"{'them' if len(given) > 1 else 'it'} out)")
        if args.max_hours is not None:
            raise UsageError(f"{args.name} is computed from the papers' formulas in about {e.seconds_estimate:g} s: "
                             "--max-hours does not apply to it")
        return ""
    simulation = e.kind == "simulation"
    base = 500 if simulation else e.default_reps
    reps = base if args.reps is None else args.reps
    low, high = (1, rep.MAX_REPS) if simulation else (2, 10**9)
    if not low <= reps <= high:
        raise UsageError(f"--reps must be a whole number from {low} to {high:,} for {args.name}, got {shown(reps)}")
    if args.seed is not None and not 0 <= args.seed <= 2**63 - 1:
        raise UsageError(f"--seed must be a whole number from 0 to 2^63 - 1, got {shown(args.seed)}")
    limit = REPRODUCE_MAX_HOURS if args.max_hours is None else args.max_hours
    if not limit > 0:
        raise UsageError(f"--max-hours must be positive, got {shown(limit)}")
    out = Path(args.out)
    try:
        out.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise ValueError(f"cannot create the output directory {str(args.out)[:200]!r}: {exc.strerror or exc}") \
            from None
    if not os.access(out, os.W_OK):
        raise ValueError(f"the output directory {str(args.out)[:200]!r} is not writable.")
    seconds = e.seconds_estimate * reps / base
    took = f"{seconds / 3600:.2g} h" if seconds >= 3600 else f"{seconds / 60:.2g} min" if seconds >= 120 \
        else f"{seconds:.2g} s"
    line = (f"{args.name}: about {took} at {reps:,} repetitions (~{e.seconds_estimate:g} s at its default {base}; "
            "more on a loaded machine)")
    if seconds > limit * 3600:
        raise UsageError(f"{line}, above --max-hours {limit:g}: lower --reps or raise --max-hours")
    return line


def _unevaluated(tab: catalog.ComparisonTable) -> list[dict[str, Any]]:
    """A table's rows as :meth:`catalog.ComparisonTable.evaluate` gives them, with no values ("rate value" and
    "complexity value" None): what ``tables`` lists when no parameter is given."""
    return [{"method": r.method, "reference": r.reference, "assumptions": r.assumptions, "rate": r.rate_latex,
             "gradient complexity": r.complexity_latex, **r.extra, "rate value": None, "complexity value": None}
            for r in tab.rows]


def _fmt(x: Any) -> str:
    if isinstance(x, float):
        return f"{x:.6g}"
    return str(x)


def _print_calibration(cal: catalog.Calibration) -> None:
    d = cal.to_dict()
    print(f"algorithm: {cal.id}")
    print(f"feasible:  {cal.feasible}")
    for key in ("sigma", "laplace_scale", "sigma_schedule", "beta", "beta_interval", "beta_half", "T", "eta"):
        if d.get(key) is not None:
            print(f"{key + ':':<15}{_fmt(d[key])}")
    if cal.reason:
        print(f"reason: {cal.reason}")
    if cal.fix:
        print(f"fix: {cal.fix}")
    for note in cal.notes:
        print(f"note: {note}")


def _print_bound(res: catalog.BoundResult) -> None:
    print(f"theorem: {res.theorem}")
    risk = catalog.Risk.parse(res.risk) if res.risk else None
    if risk is not None:
        print(f"bounds:  {risk.quantity} ({res.form}: "
              + ("constants and logs as in the paper)" if res.form == "explicit" else "constants dropped)"))
        print(f"guarantee: {risk.guarantee_text}" + (f"; {risk.detail}" if risk.detail else ""))
    for t in res.terms:
        print(f"  {t.name:<16} {t.value:.6g}   (n^{t.n_exp:g} eps^{t.eps_exp:g})")
    print(f"  {'total':<16} {res.total:.6g}")
    for key in ("eta", "T", "gradient_complexity"):
        val = getattr(res, key)
        if val is not None:
            print(f"{key}: {_fmt(val)}")
    for note in res.notes:
        print(f"note: {note}")


def _run(argv: Sequence[str] | None) -> int:
    args = build_parser().parse_args(argv)
    cmd = args.command
    if cmd == "algorithms":
        rows = [
            {
                "id": a.id,
                "paper": a.paper.cite(),
                "place": a.place,
                "setting": a.setting,
                "perturbation": a.perturbation,
                "name": a.name,
            }
            for a in catalog.algorithms()
        ]
        if args.json:
            print(json.dumps(rows, indent=2))
        else:
            for r in rows:
                print(f"{r['id']:<22} {r['setting']:<10} {r['perturbation']:<9} {r['paper']}, {r['place']}")
        return 0
    if cmd == "theorems":
        rows = [
            {"id": t.id, "paper": t.paper.cite(), "theorem": t.number, "algorithm": t.algorithm, "risk": str(t.risk),
             "risk_quantity": t.risk.quantity, "risk_guarantee": t.risk.guarantee, "form": t.form, "forms": t.forms}
            for t in catalog.theorems()
        ]
        if args.json:
            print(json.dumps(rows, indent=2))
        else:
            for r in rows:
                print(f"{r['id']:<28} {r['paper']}, {r['theorem']}  [{r['algorithm']}]  bounds: {r['risk_quantity']} "
                      f"({catalog.GUARANTEES[r['risk_guarantee']]})")
        return 0
    if cmd == "tables":
        params = _collect_params(args)
        tabs = [catalog.get_table(args.table)] if args.table else catalog.tables()
        _check_param_names(args, [f for tab in tabs for r in tab.rows for f in (r.rate, r.complexity) if f],
                           f"table {args.table}" if args.table else "the tables")
        out = []
        for tab in tabs:
            # without parameters: the rows with their formulas, no values (nothing to evaluate them at)
            rows = tab.evaluate(**params) if params else _unevaluated(tab)
            out.append({"id": tab.id, "paper": tab.paper.cite(), "table": tab.number, "caption": tab.caption,
                        "rows": catalog._json_safe(rows)})
        if args.json:
            print(json.dumps(out, indent=2))
        else:
            for t in out:
                print(f"{t['id']}: {t['paper']}, {t['table']} — {t['caption']}")
                for r in t["rows"]:
                    val = r.get("rate value")
                    print(f"  {r['method']:<30} {r['rate']:<40} {'' if val is None else f'{val:.4g}'}")
        return 0
    if cmd == "calibrate":
        params = _collect_params(args)
        alg = catalog.get_algorithm(args.algorithm)
        _check_param_names(args, [alg.calibrate] if alg.calibrate else [], f"algorithm {alg.id}")
        cal = catalog.calibrate(args.algorithm, **params)
        if args.json:
            print(json.dumps(cal.to_dict(), indent=2))
        else:
            _print_calibration(cal)
        return 0
    if cmd == "bound":
        params = _collect_params(args)
        thm = catalog.get_theorem(args.theorem)
        func = thm.explicit_bound if (args.explicit and thm.explicit_bound is not None) else thm.bound
        _check_param_names(args, [func], f"theorem {thm.id}")
        res = catalog.bound(args.theorem, explicit=args.explicit, **params)
        if args.json:
            print(json.dumps(res.to_dict(), indent=2))
        else:
            _print_bound(res)
        return 0
    if cmd == "reproduce":
        if args.list:
            from dpviz.studies import experiments

            rows = experiments.listing()
            if args.json:
                print(json.dumps(rows, indent=2))
            else:
                for r in rows:
                    print(f"{r['id']:<24} ~{r['seconds_estimate']:g} s  {r['what']}")
            return 0
        if args.name is None:
            raise UsageError("reproduce needs a target NAME (see --list)")
        if args.out is None:
            raise UsageError("reproduce needs --out DIR")
        from dpviz.studies import reproduce as rep  # imported lazily: the engine is heavier than the formulas

        estimate = _reproduce_estimate(args)
        if estimate:
            print(estimate, file=sys.stderr, flush=True)

        from dpviz.cli.progress import Progress as _Progress  # in place on a terminal, one line per 10 % in a file or pipe

        with _Progress(args.name) as progress:  # the progress line ends before the result or an error
            result = rep.reproduce(args.name, reps=args.reps, seed=0 if args.seed is None else args.seed,
                                   out_dir=args.out, progress=progress)
        paths = {k: str(v) for k, v in result.items() if k in ("csv", "html", "md")}
        print(json.dumps(paths))
        return 0
    if cmd == "simulate":
        return _run_simulate(args)
    for mod in _extensions():
        code = mod.run(args)
        if code is not None:
            return code
    raise UsageError(f"unknown command {cmd!r}")  # pragma: no cover (argparse rejects it first)


def _error(message: str) -> int:
    message = " ".join(str(message).split()) or "invalid input"
    print(f"error: {message}", file=sys.stderr)
    return 2


def main(argv: Sequence[str] | None = None) -> int:
    import warnings

    import numpy as np

    try:
        # Results are checked for finiteness (catalog.calibrate / bound), so floating-point warnings would only
        # put extra lines on stderr before the one error line of the contract.
        with warnings.catch_warnings(), np.errstate(all="ignore"):
            warnings.simplefilter("ignore", RuntimeWarning)
            return _run(argv)
    except (UsageError, ValueError) as exc:
        return _error(str(exc))
    except (OverflowError, ZeroDivisionError, FloatingPointError) as exc:
        return _error(f"the numbers are too extreme to compute with ({exc}); move the most extreme parameter "
                      "towards typical values")
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:  # output piped into e.g. `head`, which closed early
        import os

        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return 0
    except OSError as exc:  # e.g. reproduce --out pointing into a file or a read-only place
        where = f" ({exc.filename})" if getattr(exc, "filename", None) else ""
        return _error(f"cannot write the output{where}: {exc.strerror or exc}")


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
