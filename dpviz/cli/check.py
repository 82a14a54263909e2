"""CLI sub-command ``check``: is a DP-SGD run private enough? (registered in :data:`dpviz.cli.commands.EXTENSIONS`).

``python -m dpviz check --n N (--batch-size B | --sampling-rate Q) (--epochs E | --steps T)
(--noise-multiplier Z | --sigma S --clip-norm C) --delta D [--target-eps EPS]
[--sampling poisson|shuffle|fixed-size|full-batch] [--neighbouring add-remove|replace-one] [--fail-if-not-met]
[--quick] --json`` → ``{"meets_target" (true / false / null without a target), "verdict" ("meets",
"does-not-meet", "unproven", "no-target"), "eps_upper", "eps_lower", "eps_rdp", "accountant",
"noise_multiplier_for_target": {"lower", "upper", "rdp", "method"}, "max_epochs_at_target", "max_steps_at_target",
"steps", "sampling_prob", ...}`` and with ``--sampling shuffle`` also ``"eps_lower_shuffle"``,
``"eps_poisson_upper"``, ``"poisson_reportable"``, ``"citations"`` (:func:`dpviz.labs.run_check.check`).

``--statement`` prints the plain-language privacy statement instead (:func:`dpviz.labs.run_check.statement`).
``--fail-if-not-met`` makes the exit status 3 when the target is not certified to be met (``meets_target`` false),
so that a training pipeline can gate on it.  ``--quick`` skips the noise search and the most epochs.  Bad input
exits with code 2 and one line on stderr.
"""

from __future__ import annotations

import json

__all__ = ["add_parser", "run", "EXIT_NOT_MET"]

#: exit status of ``--fail-if-not-met`` when the target is missed
EXIT_NOT_MET = 3


def add_parser(sub, add_param_options, collect_params) -> None:
    from dpviz.cli.commands import _number, _whole
    from dpviz.labs import run_check

    p = sub.add_parser("check", help="is a DP-SGD run private enough? verdict against a target epsilon")
    p.add_argument("--n", type=_whole, required=True, help="data set size n")
    g = p.add_mutually_exclusive_group()  # required except with --sampling full-batch (checked by run_check)
    g.add_argument("--batch-size", type=_whole, default=None, help="examples per step b")
    g.add_argument("--sampling-rate", type=_number, default=None, help="sampling rate q = b/n in (0, 1]")
    g = p.add_mutually_exclusive_group(required=True)
    g.add_argument("--epochs", type=_number, default=None, help="epochs (steps = ceil(epochs * n / b))")
    g.add_argument("--steps", type=_whole, default=None, help="number of steps T")
    p.add_argument("--noise-multiplier", type=_number, default=None, help="sigma / C (C: the clipping norm)")
    p.add_argument("--sigma", type=_number, default=None, help="noise standard deviation (with --clip-norm)")
    p.add_argument("--clip-norm", type=_number, default=None, help="clipping norm C (with --sigma)")
    p.add_argument("--delta", type=_number, required=True, help="delta in (0, 1)")
    p.add_argument("--target-eps", type=_number, default=None, help="the epsilon the run must meet")
    p.add_argument("--sampling", choices=run_check.SAMPLINGS, default="poisson",
                   help="how batches are formed (shuffle: what most data loaders do)")
    p.add_argument("--neighbouring", choices=run_check.NEIGHBOURINGS, default="add-remove")
    p.add_argument("--fail-if-not-met", action="store_true",
                   help=f"exit with status {EXIT_NOT_MET} when the target is not certified to be met")
    p.add_argument("--quick", action="store_true", help="the verdict only: skip the noise search and the most epochs")
    p.add_argument("--statement", action="store_true",
                   help="print a plain-language privacy statement (with the command that recomputes it)")
    p.add_argument("--json", action="store_true", help="print JSON")


def _f(x) -> str:
    return "—" if x is None else f"{x:.5g}"


def run(args) -> int | None:
    if args.command != "check":
        return None
    from dpviz.labs import run_check

    if args.noise_multiplier is None and args.sigma is None:
        raise ValueError("give --noise-multiplier, or --sigma with --clip-norm.")
    kwargs = dict(n=args.n, batch_size=args.batch_size, sampling_rate=args.sampling_rate,
                  epochs=args.epochs, steps=args.steps, noise_multiplier=args.noise_multiplier,
                  sigma=args.sigma, clip_norm=args.clip_norm, delta=args.delta, target_eps=args.target_eps,
                  sampling=args.sampling, neighbouring=args.neighbouring)
    if args.statement:
        print(run_check.statement(kwargs), end="")
        return 0
    out = run_check.check(n=args.n, batch_size=args.batch_size, sampling_rate=args.sampling_rate,
                          epochs=args.epochs, steps=args.steps, noise_multiplier=args.noise_multiplier,
                          sigma=args.sigma, clip_norm=args.clip_norm, delta=args.delta, target_eps=args.target_eps,
                          sampling=args.sampling, neighbouring=args.neighbouring, search=not args.quick)
    if args.json:
        print(json.dumps(out, indent=2))
    else:
        t = out["target_eps"]
        head = ("no target given" if t is None else
                {"meets": f"MEETS eps = {t:g}", "does-not-meet": f"DOES NOT MEET eps = {t:g}",
                 "unproven": f"NOT PROVEN to meet eps = {t:g} (the target lies inside the bracket)"}[out["verdict"]])
        print(f"{head} — {out['sampling']}, {out['neighbouring']}, {out['steps']} steps at q = "
              f"{out['sampling_prob']:.4g}, noise multiplier {out['noise_multiplier']:.4g}, delta = {out['delta']:g}")
        print(f"  eps in [{_f(out['eps_lower'])}, {_f(out['eps_upper'])}] ({out['accountant']}); RDP eps "
              f"{_f(out['eps_rdp'])}")
        if out["sampling"] == "shuffle":
            print(f"  shuffled batches: eps >= {_f(out['eps_lower_shuffle'])} (certified lower bound, Chua et al. "
                  f"2024); the Poisson eps would be {_f(out['eps_poisson_upper'])}")
        nm = out["noise_multiplier_for_target"]
        if nm["upper"] is not None:
            print(f"  noise multiplier for the target: in ({_f(nm['lower'])}, {_f(nm['upper'])}] ({nm['method']})")
        if out["max_epochs_at_target"] is not None:
            print(f"  most epochs at this noise: {_f(out['max_epochs_at_target'])}")
        for note in out["notes"]:
            print(f"  note: {note}")
        if out["delta_warning"]:
            print(f"  warning: {out['delta_warning']}")
    if args.fail_if_not_met and out["meets_target"] is False:
        return EXIT_NOT_MET
    return 0
