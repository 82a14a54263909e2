"""CLI sub-commands of the privacy accounting lab (registered in :data:`dpviz.cli.commands.EXTENSIONS`).

``python -m dpviz account --algorithm ID [the calibrate options] [--sigma S] --json`` →
``{"algorithm", "eps", "delta", "paper_sigma", "accountants": [{"name", "sampling", "neighbouring", "matches_paper",
"sigma_for_eps", "eps_of_paper_sigma", "eps_of_sigma" (with --sigma), "eps_upper", "eps_lower", "method", "grid",
"seconds", ...}], ...}`` — ``eps_upper`` / ``eps_lower`` bracket the row's main ε (of --sigma if given, else of the
paper's σ): RDP gives an upper bound only, PLD both ends, the analytic Gaussian mechanism the exact value
(see :func:`dpviz.labs.privacy_lab.evaluate`).

``python -m dpviz account --algorithm ID [options] [--sigma S] --statement`` prints the plain-language privacy
statement of the paper's σ (or S) by the matched accountant (:func:`dpviz.labs.privacy_lab.guarantee`,
:func:`dpviz.labs.privacy_lab.algorithm_statement`), ending with this command.

``python -m dpviz privacy --n N (--batch-size B | --sampling-rate Q) (--epochs E | --steps T) --noise-multiplier Z
--delta D [--sampling poisson|without-replacement] [--neighbouring add-remove|replace-one] --json`` → ε by RDP and
PLD (see :func:`dpviz.labs.privacy_lab.calculator`); ``--statement`` instead prints a plain-language privacy statement
ending with the command that recomputes it (:func:`dpviz.labs.privacy_lab.statement`).

Bad input exits with code 2 and one line on stderr (``ValueError`` is turned into that by :func:`dpviz.cli.commands.main`).
"""

from __future__ import annotations

import argparse
import json
import math

__all__ = ["add_parser", "run", "account_command", "privacy_command"]


def _positive(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number") from None
    if not math.isfinite(value) or value <= 0:
        raise argparse.ArgumentTypeError(f"{text!r} is not a positive finite number")
    return value


def _whole(text: str) -> int:
    value = _positive(text)
    if value != int(value):
        raise argparse.ArgumentTypeError(f"{text!r} is not a whole number")
    return int(value)


def add_parser(sub, add_param_options, collect_params) -> None:
    p = sub.add_parser("account", help="the paper's sigma against tight accountants of the same mechanism")
    p.add_argument("--algorithm", required=True, help="algorithm id (see `algorithms`)")
    p.add_argument("--sigma", type=_positive, default=None, help="a noise level: report the eps it buys")
    p.add_argument("--fast", action="store_true", help="skip the (slower) PLD accountant")
    p.add_argument("--statement", action="store_true",
                   help="print a plain-language privacy statement of the paper's sigma (or --sigma) by the matched "
                        "accountant, with the command that recomputes it")
    add_param_options(p)

    p = sub.add_parser("privacy", help="general DP-SGD privacy calculator: eps by RDP and PLD")
    p.add_argument("--n", type=_whole, required=True, help="data set size n")
    g = p.add_mutually_exclusive_group(required=True)
    g.add_argument("--batch-size", type=_whole, default=None, help="examples per step m")
    g.add_argument("--sampling-rate", type=_positive, default=None, help="sampling rate q = m/n in (0, 1]")
    g = p.add_mutually_exclusive_group(required=True)
    g.add_argument("--epochs", type=_positive, default=None, help="epochs (steps = ceil(epochs / q))")
    g.add_argument("--steps", type=_whole, default=None, help="number of steps T")
    p.add_argument("--noise-multiplier", type=_positive, required=True,
                   help="sigma / C, C the clipping norm (gradient bound)")
    p.add_argument("--delta", type=_positive, required=True, help="delta in (0, 1)")
    p.add_argument("--sampling", choices=("poisson", "without-replacement"), default="poisson")
    p.add_argument("--neighbouring", choices=("add-remove", "replace-one"), default="add-remove")
    p.add_argument("--statement", action="store_true",
                   help="print a plain-language privacy statement (with the command that recomputes it)")
    p.add_argument("--json", action="store_true", help="print JSON")


def _f(x) -> str:
    return "—" if x is None else f"{x:.5g}"


def privacy_command(args) -> str:
    """The ``python -m dpviz privacy …`` command of parsed ``args`` (what a privacy statement ends with)."""
    parts = ["python -m dpviz privacy", f"--n {args.n}"]
    parts.append(f"--batch-size {args.batch_size}" if args.batch_size is not None
                 else f"--sampling-rate {args.sampling_rate:g}")
    parts.append(f"--epochs {args.epochs:g}" if args.epochs is not None else f"--steps {args.steps}")
    parts += [f"--noise-multiplier {args.noise_multiplier:g}", f"--delta {args.delta:g}",
              f"--sampling {args.sampling}", f"--neighbouring {args.neighbouring}", "--statement"]
    return " ".join(parts)


def account_command(algorithm: str, params: dict, sigma=None) -> str:
    """The ``python -m dpviz account … --statement`` command of a privacy statement (what it ends with): the
    calibration's ``params`` as options (known names as flags, the rest as ``--param NAME=VALUE``, floats exactly),
    sorted, as the dashboard's commands (``dpviz_ui.helpers.cli_options``)."""
    from dpviz.cli import commands as cli

    parts = ["python -m dpviz account", "--algorithm", algorithm]
    for k, val in sorted(params.items()):
        if val is None or isinstance(val, (list, dict, tuple)):
            continue
        text = repr(val) if isinstance(val, float) else str(val)
        parts.append(f"--{k} {text}" if k in cli._PARAMS else f"--param {k}={text}")
    if sigma is not None:
        parts.append(f"--sigma {float(sigma)!r}")
    return " ".join(parts + ["--statement"])


def _what(r: dict, up: str, lo: str, who: str) -> str:
    """'eps(paper) exact' / 'eps(paper) <= x (upper bound)' / 'eps(paper) in [lo, up]'."""
    if r.get(up) is None:
        return f"eps({who}) —"
    if r["name"] == "analytic-gaussian":
        return f"eps({who}) = {_f(r[up])} exact"
    if r["name"] == "pld" and r.get(lo) is not None:
        return f"eps({who}) in [{_f(r[lo])}, {_f(r[up])}] (PLD lower/upper bound)"
    return f"eps({who}) <= {_f(r[up])} (upper bound)"


def run(args) -> int | None:
    from dpviz.cli import commands as cli
    from dpviz.labs import privacy_lab

    from dpviz.theory import accounting

    if args.command == "account":
        params = cli._collect_params(args)
        if params.get("delta") is not None:
            accounting.check_accounting_delta(params["delta"])  # delta > 0.1 refused at once, as on the pages
        from dpviz.theory import catalog

        alg = catalog.get_algorithm(args.algorithm)  # a misspelt --param name is refused, not ignored
        cli._check_param_names(args, [alg.calibrate] if alg.calibrate else [], f"algorithm {alg.id}")
        if args.statement:
            g = privacy_lab.guarantee(args.algorithm, sigma=args.sigma, **params)
            text = privacy_lab.algorithm_statement(g, account_command(args.algorithm, params, args.sigma))
            if getattr(args, "json", False):  # --json --statement: the guarantee's numbers and the statement, as JSON
                print(json.dumps({**g, "statement": text}, indent=2, default=str))
            else:
                print(text, end="")
            return 0
        names = ("rdp", "analytic-gaussian") if args.fast else None
        out = privacy_lab.evaluate(args.algorithm, sigma=args.sigma, names=names, **params)
        if args.json:
            print(json.dumps(out, indent=2))
            return 0
        print(f"algorithm: {out['algorithm']}   eps = {out['eps']:g}, delta = {out['delta']:g}")
        print(f"mechanism: {out['mechanism']}")
        print(f"paper's sigma: {_f(out['paper_sigma'])}   ({out['closed_form']['formula']})")
        print(f"{'accountant':<62} {'sigma for eps':>13} {'ratio':>7} {'eps(paper)':>10}"
              + (f" {'eps(sigma)':>10}" if args.sigma else ""))
        for r in out["accountants"]:
            line = (f"{r['label'][:62]:<62} {_f(r['sigma_for_eps']):>13} {_f(r['sigma_ratio_to_paper']):>7} "
                    f"{_f(r['eps_of_paper_sigma']):>10}")
            if args.sigma:
                line += f" {_f(r.get('eps_of_sigma')):>10}"
            print(line)
            print(f"  {_what(r, 'eps_of_paper_sigma', 'eps_of_paper_sigma_lower', 'paper')}"
                  + (f"; {_what(r, 'eps_of_sigma', 'eps_of_sigma_lower', 'sigma')}" if args.sigma else "")
                  + (f"; sigma for eps in [{_f(r.get('sigma_for_eps_lower'))}, {_f(r['sigma_for_eps'])}]"
                     if r.get("sigma_for_eps_lower") is not None and r["name"] == "pld" else ""))
            if r.get("error"):
                print(f"  note: {r['error']}")
            if r.get("caveat"):
                print(f"  caveat: {r['caveat']}")
        if args.sigma and out["closed_form"].get("eps_of_sigma") is not None:
            print(f"closed form: the smallest eps at which the paper's closed form (with its conditions) gives "
                  f"sigma <= {args.sigma:g} is {out['closed_form']['eps_of_sigma']:.5g} (its conditions can bound "
                  f"eps from below whatever sigma is; the accountants above give the eps this sigma buys)")
        for note in out["notes"]:
            print(f"note: {note}")
        return 0
    if args.command == "privacy":
        accounting.check_accounting_delta(args.delta)  # delta > 0.1 refused at once, as on the pages
        out = privacy_lab.calculator(n=args.n, noise_multiplier=args.noise_multiplier, delta=args.delta,
                                     batch_size=args.batch_size, sampling_rate=args.sampling_rate,
                                     epochs=args.epochs, steps=args.steps, sampling=args.sampling,
                                     neighbouring=args.neighbouring)
        if args.statement:
            text = privacy_lab.statement(out, privacy_command(args))
            if args.json:  # --json --statement: the calculator's numbers and the statement, as JSON
                print(json.dumps({**out, "statement": text}, indent=2, default=str))
            else:
                print(text, end="")
            return 0
        if args.json:
            print(json.dumps(out, indent=2))
            return 0
        print(f"{out['steps']} steps at sampling rate {out['sampling_prob']:.4g} ({out['sampling']}, "
              f"{out['neighbouring']}), noise multiplier {out['noise_multiplier']:g}, delta = {out['delta']:g}")
        for r in out["rows"]:
            bracket = (f" in [{_f(r['eps_lower'])}, {_f(r['eps_upper'])}] (grid {r['grid']:.3g})"
                       if r["accountant"] == "pld" and r["eps_lower"] is not None else
                       " (upper bound)" if r["eps"] is not None else "")
            print(f"  {r['accountant'].upper():<4} eps = {_f(r['eps'])}{bracket}"
                  + (f"   ({r['note']})" if r["note"] else ""))
        return 0
    return None
