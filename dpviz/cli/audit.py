"""``python -m dpviz audit`` and ``python -m dpviz stability`` (registered in ``dpviz.cli.commands.EXTENSIONS``).

audit --algorithm ID [calibrate options] [--sigma S] --trials N --seed S [--method M] --json
    -> {"algorithm", "eps_claimed", "eps_lower", "trials", "statistic", "fpr", "fnr", "max_certifiable", "seconds",
        "canary", "statistic_detail", "eps_accountant", "accountant_note", "sigma", "delta", "fpr_upper",
        "fnr_upper"} (the numbers the Audit page shows, so its exported command returns them)
       (with --method: also "method", "assumption", "eps_lower_clopper_pearson" and the method's details;
       dpviz.labs.audit_methods)
audit --algorithm ID [options] --plan --target X [--method M] [--power P] --json
    -> {"algorithm", "method", "target", "eps_true", "eps_source", "delta", "mu", "trials", "runs", "seconds",
        "certified", "assumption", "reason", "power", "simulated", "plan"}: the trials at which the audit certifies X
        with probability P (default 0.8), said in words ("plan"), and their time here
stability --algorithm ID [options] --reps R --seed S --json
    -> {"algorithm", "theorem", "bound", "empirical": {"max", "q50", "q95", "q99"}, "neighbour", "seconds"}
stability ... --over n|eta|alpha --values V1,V2,...
    -> the same keys, then "sweep": one row per value (value, n, T, eta, alpha, bound, max, q50, q95, q99,
       level_quantile, ratio, exceed_fraction, deterministic, last_max, average_max)

Progress goes to stderr: on a terminal one line rewritten in place (ended with a newline when the run ends); written
to a file or a pipe, one line per 10 % step (``audit:  10.0 %`` ...); bad input exits with code 2 and one line on stderr
(``dpviz.cli.commands.main``).  Every input is checked before any run -- the options' ranges, ``--param`` names (those the
engine or the algorithm's calibration takes), the theorem's conditions at every ``--values`` entry -- and the memory
(``--max-gb``, default 1) and work (``--max-work``) of every run are estimated first: above either, nothing runs.
"""

from __future__ import annotations

import argparse
import json
import sys

from dpviz.cli.progress import Progress as _Progress  # one progress printer for every command

_collect = None


def _number(text):
    from dpviz.cli.commands import _number as num

    return num(text)


def _whole(text):
    from dpviz.cli.commands import _whole as whole

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
    p.add_argument("--trials", type=_whole, default=None,
                   help="trainings in all (half on D, half on D'), even (required unless --plan)")
    p.add_argument("--method", choices=("clopper-pearson", "gdp", "one-run"), default=None,
                   help="how the lower bound is certified (default clopper-pearson); see dpviz.labs.audit_methods.ASSUMPTIONS")
    p.add_argument("--plan", action="store_true",
                   help="do not audit: say how many trials certify --target with --method, and how long they take")
    p.add_argument("--target", type=_number, default=None, help="with --plan: the epsilon lower bound to certify")
    p.add_argument("--power", type=_number, default=None,
                   help="with --plan: the probability with which the planned audit reaches --target (default 0.8)")
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
    p.add_argument("--max-gb", type=_number, default=None,
                   help="memory guard: refuse a run estimated above this many GB (default 1)")


#: The keys of ``audit --json`` beyond the contract's: the other numbers the Audit page shows.
PAGE_KEYS = ("eps_accountant", "accountant_note", "sigma", "delta", "fpr_upper", "fnr_upper")


def _check_param_names(args) -> None:
    """Refuse a ``--param`` name neither the engine nor the algorithm's calibration takes (it would be ignored)."""
    from dpviz.engine import simulate as sim
    from dpviz.studies.sweep import _allowed_params

    given = [key for key, _ in getattr(args, "param", [])]
    if not given:
        return
    if args.algorithm not in sim.SPECS:
        raise ValueError(f"unknown algorithm {args.algorithm!r}; the engine runs: "
                         f"{', '.join(sim.supported_algorithms())}")
    accepted = _allowed_params([args.algorithm])
    unknown = [k for k in given if k not in accepted]
    if unknown:
        raise ValueError(f"unknown parameter(s) {', '.join(unknown)} for {args.command} of {args.algorithm}; it "
                         f"accepts: {', '.join(sorted(accepted, key=str.lower))}")


def run(args: argparse.Namespace) -> int | None:
    if args.command not in ("audit", "stability"):
        return None
    from dpviz.foundation import validate as v
    from dpviz.labs import canary_audit as aud
    from dpviz.engine import simulate as sim

    # every input is checked here, before any run (a bad value found after minutes of work wastes them)
    params = _collect(args)
    _check_param_names(args)
    if args.sigma is not None:
        if args.sigma < 0:
            raise ValueError(f"--sigma must be >= 0, got {v.shown(args.sigma)}.")
        params["sigma"] = v.check_param("sigma", args.sigma) if args.sigma > 0 else 0.0
    max_work = sim.DEFAULT_MAX_WORK if args.max_work is None else v.check_positive("--max-work", args.max_work)
    max_bytes = aud.DEFAULT_MAX_BYTES if args.max_gb is None else v.check_positive("--max-gb", args.max_gb) * 1e9
    over = getattr(args, "over", None)
    if args.command == "stability" and (over is None) != (getattr(args, "values", None) is None):
        raise ValueError("--over and --values go together (e.g. --over n --values 50,100,200).")
    n_data = None
    if args.command == "audit":
        aud._level(args.level)
        if args.plan:
            return _plan(args, params, v)
        if args.trials is None:
            raise ValueError("--trials is required (an even whole number >= 8), unless --plan.")
        if args.target is not None:
            raise ValueError("--target goes with --plan (the audit itself certifies what its trials allow).")
        if args.power is not None:
            raise ValueError("--power goes with --plan (the probability with which the planned audit reaches "
                             "--target).")
        if args.trials < 8 or args.trials % 2:
            raise ValueError(f"--trials must be an even whole number >= 8 (half on D, half on D'), got "
                             f"{v.shown(args.trials)}.")
    else:
        v.check_int("--reps", args.reps, minimum=2)
        v.check_open_unit("--gamma", args.gamma)
        if over is not None:
            from dpviz.labs import stability as stab

            values = stab._check_values(over, args.values)
            n_data = max(values) if over == "n" else None
    ds, loss, params = aud.default_setting(args.algorithm, params, dataset=args.dataset, loss=args.loss,
                                           n_data=n_data)
    if args.command == "audit":
        aud.check_memory(args.algorithm, ds, loss, chains=args.trials, max_bytes=max_bytes,
                         what=f"{v.shown(args.trials)} trials", reduce="--trials")
        with _Progress("audit") as bar:
            res = aud.audit(args.algorithm, ds, loss, params=params, trials=args.trials, seed=args.seed,
                            level=args.level, progress=bar, max_work=max_work, max_bytes=max_bytes)
        out = res.to_dict(contract_only=args.json)
        if args.json:  # the page's other numbers (its exported command ends with --json)
            full = res.to_dict()
            out.update({k: full.get(k) for k in PAGE_KEYS})
        if args.method is not None:
            out.update(_method_result(args, res))
    else:
        from dpviz.labs import stability as stab

        # the single run and the sweep: inputs, the theorem's conditions at every value, memory and work
        stab.precheck(args.algorithm, ds, loss, params=params, reps=args.reps, seed=args.seed,
                      neighbour=args.neighbour, gamma=args.gamma, over=over, values=args.values, max_work=max_work,
                      max_bytes=max_bytes)
        with _Progress("stability") as bar:
            res = stab.stability(args.algorithm, ds, loss, params=params, reps=args.reps, seed=args.seed,
                                 neighbour=args.neighbour, gamma=args.gamma, progress=bar, max_work=max_work,
                                 max_bytes=max_bytes)
        out = res.to_dict()
        if args.json:
            out = {k: out[k] for k in ("algorithm", "theorem", "bound", "empirical", "neighbour", "seconds")}
        if over is not None:
            with _Progress("sweep") as bar:
                sw = stab.stability_sweep(args.algorithm, ds, loss, over=over, values=args.values, params=params,
                                          reps=args.reps, seed=args.seed, neighbour=args.neighbour, gamma=args.gamma,
                                          progress=bar, max_work=max_work, max_bytes=max_bytes)
            out["sweep"] = sw.to_list()
    return _print(out, args.json)


def _method_result(args, res) -> dict:
    """The ``--method`` fields: ``eps_lower`` by that method on the audit's chosen statistic, its assumption, and
    the Clopper-Pearson bound of the same trials for comparison (dpviz.labs.audit_methods)."""
    from dpviz.labs import canary_audit as aud
    from dpviz.labs import audit_methods as am

    neg, pos = res.samples[res.statistic]
    out = {"method": args.method, "assumption": am.ASSUMPTIONS[args.method], "citation": am.CITATIONS[args.method],
           "eps_lower_clopper_pearson": res.eps_lower}
    if args.method == "gdp":
        g = am.gdp_audit(neg, pos, delta=res.delta, level=args.level)
        out.update(eps_lower=g.eps_lower, mu_lower=g.mu_lower, mu_fit=g.mu_fit, mu_fit_interval=list(g.mu_fit_interval),
                   fpr=g.fpr, fnr=g.fnr, fpr_upper=g.fpr_upper, fnr_upper=g.fnr_upper)
    elif args.method == "one-run":
        r = am.one_run_from_trials(neg, pos, delta=res.delta, level=args.level, seed=args.seed)
        out.update(eps_lower=r.eps_lower, canaries=r.m, guesses=r.guesses, correct=r.correct,
                   note=("dpviz's engine trains one canary per run: every evaluation trial can serve as one canary, "
                         "whose inclusion is a fair coin taking the next unused trial of D' (in) or D (out) "
                         "(Steinke, Nasr & Jagielski's analysis), so this spends the audit's trials; a training run "
                         "carrying all canaries at once would need one run."))
    return aud._finite(out)


def _plan(args, params, v) -> int:
    """``audit --plan``: the trials at which an audit of the mechanism reaches ``--target`` with probability
    ``--power`` (default 0.8; :func:`dpviz.labs.audit_planner.plan_audit`), said in words (``plan``), and their time here
    by the audit's cost model (dpviz.labs.canary_audit.audit_seconds)."""
    from dpviz.labs import canary_audit as aud
    from dpviz.labs import audit_planner as planner

    method = args.method or "clopper-pearson"
    if args.target is None:
        raise ValueError("--plan needs --target (the epsilon lower bound to certify, > 0).")
    target = v.check_positive("--target", args.target)
    power = planner.POWER if args.power is None else args.power
    ds, loss, params = aud.default_setting(args.algorithm, params, dataset=args.dataset, loss=args.loss)
    eps_true, source, delta, per_trial = planner.mechanism_for_plan(args.algorithm, ds, loss, params)
    plan = planner.plan_audit(target=target, eps_true=eps_true, delta=delta, method=method, level=args.level,
                         seconds_per_trial=per_trial, power=power)
    out = {"algorithm": args.algorithm, **plan.to_dict(), "eps_source": source, "plan": plan.statement}
    out.pop("curve")
    out = aud._finite(out)
    return _print(out, args.json)


def _print(out: dict, as_json: bool) -> int:
    """Print a result as one JSON line or as ``key: value`` lines; exit code 0."""
    if as_json:
        print(json.dumps(out))
    else:
        for k, val in out.items():
            print(f"{k}: {val}")
    return 0
