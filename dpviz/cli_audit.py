"""``python -m dpviz audit`` and ``python -m dpviz stability`` (registered in ``dpviz.cli.EXTENSIONS``).

audit --algorithm ID [calibrate options] [--sigma S] --trials N --seed S --json
    -> {"algorithm", "eps_claimed", "eps_lower", "trials", "statistic", "fpr", "fnr", "max_certifiable", "seconds"}
stability --algorithm ID [options] --reps R --seed S --json
    -> {"algorithm", "theorem", "bound", "empirical": {"max", "q50", "q95", "q99"}, "neighbour", "seconds"}
stability ... --over n|eta|alpha --values V1,V2,...
    -> the same keys, then "sweep": one row per value (value, n, T, eta, alpha, bound, max, q50, q95, q99,
       level_quantile, ratio, exceed_fraction, deterministic, last_max, average_max)

Progress goes to stderr; bad input exits with code 2 and one line on stderr (``dpviz.cli.main``).
"""

from __future__ import annotations

import argparse
import json
import sys

_collect = None


def _number(text):
    from dpviz.cli import _number as num

    return num(text)


def _whole(text):
    from dpviz.cli import _whole as whole

    return whole(text)


def _values(text):
    parts = [t for t in str(text).split(",") if t.strip()]
    if not parts or len(parts) > 12:
        raise argparse.ArgumentTypeError(f"{str(text)[:40]!r} must list 1 to 12 comma-separated numbers")
    return [_number(t.strip()) for t in parts]


def add_parser(sub, add_param_options, collect_params) -> None:
    global _collect
    _collect = collect_params
    p = sub.add_parser("audit", help="empirical lower bound on epsilon by a distinguishing test with a canary")
    p.add_argument("--algorithm", required=True, help="algorithm id (see `algorithms`)")
    p.add_argument("--sigma", type=_number, default=None, help="noise standard deviation instead of the calibrated one")
    p.add_argument("--trials", type=_whole, required=True, help="trainings in all (half on D, half on D'), even")
    p.add_argument("--seed", type=_whole, default=0, help="random seed (default 0)")
    p.add_argument("--level", type=_number, default=0.95, help="Clopper-Pearson confidence level (default 0.95)")
    _common(p)
    add_param_options(p)
    p = sub.add_parser("stability", help="measured sensitivity on neighbouring data sets beside the paper's bound")
    p.add_argument("--algorithm", required=True, help="algorithm id")
    p.add_argument("--sigma", type=_number, default=None, help="noise standard deviation instead of the calibrated one")
    p.add_argument("--reps", type=_whole, required=True, help="repetitions (pairs of coupled chains)")
    p.add_argument("--seed", type=_whole, default=0, help="random seed (default 0)")
    p.add_argument("--neighbour", choices=("random", "adversarial"), default="random",
                   help="replaced example: random, or reflected far away (adversarial)")
    p.add_argument("--gamma", type=_number, default=0.05, help="failure probability of high-probability bounds")
    p.add_argument("--over", choices=("n", "eta", "alpha"), default=None,
                   help="also sweep n, eta or the loss's Hölder exponent alpha (q-norm loss, q = 1 + alpha)")
    p.add_argument("--values", type=_values, default=None, help="comma-separated values of the --over parameter")
    _common(p)
    add_param_options(p)


def _common(p) -> None:
    p.add_argument("--dataset", default=None, help="built-in data set (default: wang-least-squares / two-class)")
    p.add_argument("--loss", default=None, help="loss id (default: least-squares / auc-hinge)")
    p.add_argument("--max-work", type=_number, default=None, help="cost guard in work units (default: the engine's)")


def _progress(name):
    def progress(frac: float) -> None:
        print(f"\r{name}: {100 * frac:5.1f} %", end="", file=sys.stderr, flush=True)

    return progress


def run(args: argparse.Namespace) -> int | None:
    if args.command not in ("audit", "stability"):
        return None
    from dpviz import audit as aud
    from dpviz import simulate as sim

    params = _collect(args)
    if args.sigma is not None:
        if args.sigma < 0:
            raise ValueError(f"--sigma must be >= 0, got {args.sigma:g}.")
        params["sigma"] = args.sigma
    over = getattr(args, "over", None)
    if args.command == "stability" and (over is None) != (getattr(args, "values", None) is None):
        raise ValueError("--over and --values go together (e.g. --over n --values 50,100,200).")
    n_data = None
    if over is not None:
        from dpviz import stability as stab

        values = stab._check_values(over, args.values)  # before any run: a bad value costs nothing
        if args.neighbour not in ("random", "adversarial"):
            raise ValueError(f"--neighbour must be random or adversarial, got {args.neighbour!r}.")
        n_data = max(values) if over == "n" else None
    ds, loss, params = aud.default_setting(args.algorithm, params, dataset=args.dataset, loss=args.loss,
                                           n_data=n_data)
    max_work = sim.DEFAULT_MAX_WORK if args.max_work is None else args.max_work
    if args.command == "audit":
        res = aud.audit(args.algorithm, ds, loss, params=params, trials=args.trials, seed=args.seed,
                        level=args.level, progress=_progress("audit"), max_work=max_work)
        print(file=sys.stderr)
        out = res.to_dict(contract_only=args.json)
    else:
        from dpviz import stability as stab

        res = stab.stability(args.algorithm, ds, loss, params=params, reps=args.reps, seed=args.seed,
                             neighbour=args.neighbour, gamma=args.gamma, progress=_progress("stability"),
                             max_work=max_work)
        print(file=sys.stderr)
        out = res.to_dict()
        if args.json:
            out = {k: out[k] for k in ("algorithm", "theorem", "bound", "empirical", "neighbour", "seconds")}
        if over is not None:
            sw = stab.stability_sweep(args.algorithm, ds, loss, over=over, values=args.values, params=params,
                                      reps=args.reps, seed=args.seed, neighbour=args.neighbour, gamma=args.gamma,
                                      progress=_progress("sweep"), max_work=max_work)
            print(file=sys.stderr)
            out["sweep"] = sw.to_list()
    if args.json:
        print(json.dumps(out))
    else:
        for k, val in out.items():
            print(f"{k}: {val}")
    return 0
