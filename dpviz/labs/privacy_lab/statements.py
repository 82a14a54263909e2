"""What a privacy guarantee means, in words and numbers: the general DP-SGD calculator (:func:`calculator`, ε by RDP
and PLD for a batch size, epochs and noise multiplier), when a guarantee is no privacy at all (:func:`meaningful`,
:func:`meaningless_eps`), and the plain-language statements of a calculation (:func:`statement`) and of an
algorithm's paper σ (:func:`guarantee`, :func:`algorithm_statement`), each ending with the command that recomputes
it.  Built on :mod:`dpviz.labs.privacy_lab.mechanisms`.
"""

from __future__ import annotations

import math
import time

from dpviz.foundation import validate as v
from dpviz.foundation.rounding import fmt_bound
from dpviz.labs.privacy_lab.mechanisms import (METHOD, _analytic_eps, _num, accountants, epsilon_bracket,
                                               mechanism, tradeoff_curve)
from dpviz.theory import accounting, catalog

__all__ = [
    "NOISE_MULTIPLIER_RANGE",
    "calculator",
    "NO_PRIVACY_ALPHA",
    "NO_PRIVACY_BETA",
    "meaningless_eps",
    "meaningful",
    "statement",
    "STATEMENT_ALPHAS",
    "guarantee",
    "algorithm_statement",
]


#: Noise multipliers the calculator accepts (beyond, 1/z^2 overflows or underflows); the PLD accountant measures its
#: grid before building it and says how large it would be where it does not fit (:func:`dpviz.theory.accounting.pld_bracket`).
NOISE_MULTIPLIER_RANGE = (1e-12, 1e12)


def calculator(*, n, noise_multiplier, delta, batch_size=None, sampling_rate=None, epochs=None, steps=None,
               sampling="poisson", neighbouring="add-remove") -> dict:
    r"""A general DP-SGD privacy calculator in the style of TF Privacy's ``compute_dp_sgd_privacy`` and Opacus.

    Inputs: data set size n, batch size m (or sampling rate q = m/n), epochs (steps = ⌈epochs·n/m⌉) or steps,
    noise multiplier σ/C (C = the clipping norm, i.e. the gradient bound G), δ, sampling scheme and neighbouring
    relation.  Under add/remove the sensitivity of the clipped gradient sum is C, under replace-one 2C, so the
    accountants get z = (σ/C) resp. (σ/C)/2.

    Returns ``{"steps", "sampling_prob", "rows": [{"accountant", "eps", "seconds", "note"}]}``: ε by RDP and by PLD
    where dp_accounting supports the combination (without replacement: RDP only; Poisson with replace-one: PLD only).
    """
    n = v.check_n(n)
    nm = v.check_positive("noise_multiplier (sigma / clipping norm)", noise_multiplier)
    if not NOISE_MULTIPLIER_RANGE[0] <= nm <= NOISE_MULTIPLIER_RANGE[1]:
        raise ValueError(f"noise_multiplier (sigma / clipping norm) must be a number from "
                         f"{NOISE_MULTIPLIER_RANGE[0]:g} to {NOISE_MULTIPLIER_RANGE[1]:g}, got {v.shown(noise_multiplier)}.")
    delta = v.check_delta(delta)
    # a fixed batch (without replacement) has a whole number of examples
    m, q = v.check_batch(n, batch_size, sampling_rate, fixed=sampling == "without-replacement")
    if (epochs is None) == (steps is None):
        raise ValueError("give exactly one of epochs and steps.")
    if steps is not None:
        T = v.check_int("steps", steps)
    else:
        ep = v.check_positive("epochs", epochs)
        T = max(1, math.ceil(ep / q))
    if T > 10**7:
        raise ValueError(f"{T} steps is more than the calculator handles (10^7).")
    if sampling not in accounting.SAMPLINGS:
        raise ValueError(f"sampling must be 'poisson' or 'without-replacement', got {sampling!r}.")
    if neighbouring not in accounting.NEIGHBOURINGS:
        raise ValueError(f"neighbouring must be 'add-remove' or 'replace-one', got {neighbouring!r}.")
    if sampling == "without-replacement" and q < 1.0 and neighbouring != "replace-one":
        raise ValueError("sampling without replacement (a fixed-size batch) is analysed under replace-one neighbours "
                         "(the data set size n is public): choose neighbouring 'replace-one', or Poisson sampling for "
                         "add/remove.")
    z = nm if neighbouring == "add-remove" else nm / 2.0
    rows = []
    for name in ("rdp", "pld"):
        t0 = time.perf_counter()
        row = {"accountant": name, "eps": None, "eps_upper": None, "eps_lower": None, "eps_estimate": None,
               "method": METHOD[name], "grid": None, "converged": None, "note": ""}
        try:
            if name == "pld":
                if sampling == "without-replacement" and q < 1.0:
                    raise ValueError("dp_accounting has no PLD accountant for sampling without replacement; the RDP "
                                     "row (Wang, Balle & Kasiviswanathan 2019) is the one for it.")
                br = accounting.pld_epsilon_bracket(noise_multiplier=z, delta=delta, steps=T, sampling_prob=q,
                                                    neighbouring=neighbouring)
                row.update({k: _num(br[k]) for k in ("eps_upper", "eps_lower", "eps_estimate", "grid")})
                row["converged"], row["note"] = br["converged"], br["note"]
                if br["eps_upper"] is None or not math.isfinite(br["eps_upper"]):
                    row["note"] = (f"PLD certifies no finite ε at δ = {delta:.3g}: δ is below the probability mass "
                                   "its grid truncates (about 1e-15 per composition), so use the RDP row.")
                    row["eps_lower"] = row["eps_estimate"] = None
            else:
                row["eps_upper"] = row["eps_estimate"] = _num(accounting.epsilon_general(
                    noise_multiplier=z, delta=delta, steps=T, sampling_prob=q, sampling=sampling,
                    neighbouring=neighbouring, accountant=name))
                if row["eps_upper"] is None:
                    row["note"] = f"RDP certifies no finite ε at δ = {delta:.3g} with this noise."
        except ValueError as exc:
            row["note"] = str(exc)
        row["eps"] = row["eps_upper"]
        row["seconds"] = time.perf_counter() - t0
        rows.append(row)
    return {"n": n, "steps": T, "sampling_prob": q, "noise_multiplier": nm, "sensitivity_factor":
            1.0 if neighbouring == "add-remove" else 2.0, "delta": delta, "sampling": sampling,
            "neighbouring": neighbouring, "rows": rows}


#: The type I error at which a privacy statement tests whether its guarantee still means anything, and the type II
#: error below which it does not (:func:`meaningful`).
NO_PRIVACY_ALPHA = 0.01
NO_PRIVACY_BETA = 1e-6


def meaningless_eps(delta: float) -> float:
    r"""The ε above which an (ε, δ) guarantee alone is no meaningful privacy (:func:`meaningful`):
    ε* = ln((1 − δ − α₀)/β₀) with α₀ = :data:`NO_PRIVACY_ALPHA` = 0.01 and β₀ = :data:`NO_PRIVACY_BETA` = 10⁻⁶,
    about 13.8 for any δ ≤ 10⁻³.

    Derivation: an (ε, δ)-DP mechanism allows, at type I error α, any type II error down to
    f(α) = max(0, 1 − δ − e^ε α, e^{−ε}(1 − δ − α)) (Dong, Roth & Su 2022, eq. (5); Kairouz, Oh & Viswanath
    2015).  Once e^ε α₀ ≥ 1 − δ (ε ≥ ln 99 ≈ 4.6 at α₀ = 0.01) the middle term is 0 but the last one is not, so
    f(α₀) = e^{−ε}(1 − δ − α₀), which is below β₀ exactly when ε > ε*."""
    return math.log((1.0 - float(delta) - NO_PRIVACY_ALPHA) / NO_PRIVACY_BETA)


def meaningful(eps: float, delta: float, beta: float | None = None) -> bool:
    """Whether a certified guarantee still says something: the least type II error it allows at type I error
    α₀ = 0.01 is at least β₀ = 10⁻⁶ (:data:`NO_PRIVACY_ALPHA`, :data:`NO_PRIVACY_BETA`).

    That least type II error is the larger of two valid lower bounds on every membership test: the (ε, δ)
    trade-off f(α₀) (:func:`meaningless_eps`) and ``beta``, the mechanism's own trade-off curve at α₀ where one is
    known (exact for Gaussian releases, from the RDP curve otherwise; :func:`tradeoff_curve`), which can be far
    tighter (a Gaussian release at ε = 14, δ = 10⁻⁶ still has type II error about 0.5 at α₀).  Below β₀ the guarantee
    does not rule out a test that, wrong on one data set 1 % of the time, is wrong on the other less than once in a
    million: no meaningful privacy."""
    from dpviz.labs import tradeoff as au

    b = float(au.tradeoff_eps_delta(NO_PRIVACY_ALPHA, min(float(eps), 1e300), float(delta)))
    if beta is not None:
        b = max(b, float(beta))
    return b >= NO_PRIVACY_BETA


def _odds(eps: float) -> str:
    """e^ε in words, rounded up: ``"e^ε ≈ 2.2e+04"``, or ``"e^ε ≈ 10^(1.738e+09)"`` when it overflows a float."""
    if eps <= 700.0:
        return f"e^ε ≈ {fmt_bound(math.exp(eps), up=True, digits=3)}"
    return f"e^ε ≈ 10^({fmt_bound(eps / math.log(10.0), up=True, digits=4)})"


def _no_privacy(eps: float, delta: float) -> str:
    """What an ε that says nothing means, in plain words (the statements' "no meaningful privacy" sentence)."""
    return (f"an observer's odds of telling the two data sets apart may grow by a factor up to {_odds(eps)} (beyond "
            f"the slack δ), and the guarantee does not rule out a membership test that is wrong on one data set "
            f"with probability {NO_PRIVACY_ALPHA:g} and on the other with probability below 10⁻⁶ — one that tells "
            f"them apart almost surely. (dpviz calls a guarantee meaningless when the type II error it guarantees "
            f"at type I error {NO_PRIVACY_ALPHA:g} is below 10⁻⁶; for (ε, δ) alone that is ε > "
            f"ln((1 − δ − {NO_PRIVACY_ALPHA:g})·10⁶) = {meaningless_eps(delta):.3g} at this δ.)")


def _zero_note(eps: float) -> str:
    """Why an ε of exactly 0 is a true claim (the accountants return 0 only when they certify it)."""
    return (" (ε = 0 is certified, not rounded: the output distributions on any two neighbouring data sets differ by "
            "at most δ in total variation.)" if eps == 0.0 else "")


def statement(out: dict, command: str) -> str:
    """A short plain-language privacy statement for a :func:`calculator` result ``out`` — what is protected, the
    neighbouring relation, the sampling, the accountant, ε with its bracket, δ, what is not covered — ending with the
    ``python -m dpviz …`` command that recomputes it.  The ε claimed is the smallest *upper bound* (safe to claim)."""
    rows = {r["accountant"]: r for r in out["rows"]}
    ups = [(r["eps_upper"], name) for name, r in rows.items() if r.get("eps_upper") is not None]
    if not ups:
        raise ValueError("no accountant certified a finite ε for these settings, so there is no statement to make.")
    eps, by = min(ups)
    rel = out["neighbouring"]
    who = ("one example is added to or removed from the training data" if rel == "add-remove"
           else "one example of the training data is replaced by another (the data set size n is public)")
    sampling = (f"each example joins each step independently with probability q = {out['sampling_prob']:.4g} "
                "(Poisson sampling)" if out["sampling"] == "poisson"
                else f"each step uses a uniformly random batch of {round(out['sampling_prob'] * out['n'])} of the "
                     f"{out['n']} examples (sampling without replacement)")
    e_up, d_up = fmt_bound(eps, up=True), fmt_bound(out["delta"], up=True, digits=3)
    if meaningful(eps, out["delta"]):
        guarantee_line = (f"Guarantee: the training run is (ε, δ)-differentially private with ε = {e_up} and "
                          f"δ = {d_up}." + _zero_note(eps))
        protected = (f"What is protected: any single training example. Whatever the rest of the data, an observer of "
                     f"the trained model cannot tell whether {who}, beyond what (ε, δ) allows.")
    else:
        guarantee_line = (f"Guarantee: NO meaningful privacy. The accountants certify only that the training run is "
                          f"(ε, δ)-differentially private with ε = {e_up} and δ = {d_up}: "
                          + _no_privacy(eps, out["delta"])
                          + " (The calculator computes no trade-off curve of the mechanism, so this rests on its "
                            "(ε, δ) alone.)")
        protected = (f"What is protected, in principle: any single training example — an observer of the trained "
                     f"model cannot tell whether {who} beyond what (ε, δ) allows, which at this ε is essentially "
                     "nothing.")
    lines = [
        "Privacy statement (DP-SGD, computed by dpviz)",
        "",
        guarantee_line,
        protected,
        f"Mechanism: {out['steps']} steps of gradient descent with per-example gradients clipped to norm C and "
        f"Gaussian noise of standard deviation {out['noise_multiplier']:g}·C added to their sum; {sampling}.",
        f"Accountant: ε = {e_up} is an upper bound (safe to claim) from the {by.upper()} accountant "
        + ("(the connect-the-dots privacy-loss distribution of dp_accounting, on a grid refined until it agrees "
           "with a certified lower bound to about 1 %)." if by == "pld" else "(dp_accounting)."),
    ]
    pld = rows.get("pld")
    if pld and pld.get("eps_upper") is not None and pld.get("eps_lower") is not None:
        lines.append(f"Error bar: the exact ε of this mechanism lies in [{fmt_bound(pld['eps_lower'], up=False)}, "
                     f"{fmt_bound(pld['eps_upper'], up=True)}] (certified lower and upper bounds; PLD grid "
                     f"{pld['grid']:.3g}).")
    rdp = rows.get("rdp")
    if rdp and rdp.get("eps_upper") is not None and by != "rdp":
        lines.append(f"The RDP accountant's (looser) upper bound is ε = {fmt_bound(rdp['eps_upper'], up=True)}.")
    lines += [
        "Covered: the final model and every intermediate iterate of these steps. Not covered: hyper-parameter "
        "tuning and any other use of the data outside these steps; a batch sampler that differs from the one stated; "
        "implementation flaws such as floating-point attacks on the noise.",
        "",
        f"Recompute: {command}",
    ]
    return "\n".join(lines) + "\n"


#: the type I errors at which a privacy statement quotes the trade-off curve
STATEMENT_ALPHAS = (0.01, 0.05)


def guarantee(algorithm_id: str, *, sigma=None, **params) -> dict:
    """The (ε, δ) guarantee of ``algorithm_id`` at noise ``sigma`` (default: the paper's σ) by its **matched**
    accountant — what a privacy statement claims (:func:`algorithm_statement`):

    ``{"algorithm", "name", "paper", "sigma", "eps", "eps_lower", "exact", "delta", "accountant", "method",
    "eps_target", "delta_target", "meets_target", "mechanism", "kind", "sampling", "n", "steps", "sampling_prob",
    "sensitivity", "contribution", "tradeoff": [[α, β], ...], "tradeoff_label", "notes", "meaningful"}``.

    DP-SGD types (one example / pair per step drawn without replacement, replace-one): the RDP accountant of
    Wang, Balle & Kasiviswanathan (2019), an upper bound (``eps_lower`` None: RDP gives no lower bound); Gaussian
    releases: the exact analytic Gaussian mechanism (Balle & Wang 2018), ``eps_lower`` = ``eps``.  These are the
    first rows of the Accounting page's table and of ``python -m dpviz account``, so the numbers agree.  PIDP-SGD
    adds the ε of the contribution's released σ_c at δ₂ (basic composition, as the Audit page's accountant).
    ``tradeoff``: β of the mechanism's trade-off curve at :data:`STATEMENT_ALPHAS` (:func:`tradeoff_curve`).
    ``meaningful``: :func:`meaningful` of (ε, δ) and that curve at type I error 0.01 — False when neither rules out a
    test with type II error below 10⁻⁶ there (the statement then says there is no meaningful privacy).

    Raises ``ValueError`` (saying what happened) where the accountant certifies no finite ε: never an inf or nan."""
    mech = mechanism(algorithm_id, **params)
    alg = catalog.get_algorithm(mech.algorithm)
    s = mech.paper_sigma if sigma is None else v.check_positive("sigma (noise standard deviation)", sigma)
    if s is None:
        raise ValueError("the paper's conditions fail at these settings, so it gives no σ to make a statement about; "
                         "give a noise level (your σ on the Accounting page, --sigma on the command line).")
    s = float(s)
    acc = accountants(mech)[0]  # the matched one: RDP without replacement (sgd) or the analytic Gaussian mechanism
    br = epsilon_bracket(mech, acc, s)
    eps = br["eps_upper"]
    if eps is None:
        raise ValueError(f"the matched accountant ({acc.name}) finds no finite ε it can certify for σ = {s:.4g} at "
                         f"δ = {mech.delta:.3g}"
                         + (f" ({br['note']})" if br["note"] else
                            f": the noise is so small against the sensitivity (σ/Δ = {s / acc.sensitivity:.3g}) that "
                            "the privacy loss exceeds what the accountant can compute")
                         + ". No privacy can be certified at this noise level, so there is no guarantee to state.")
    eps_lower = br["eps_lower"]
    delta = mech.delta_total
    contribution = None
    c = mech.extras.get("contribution")
    if c:
        sens = math.sqrt(int(c["rounds"])) * float(c["sensitivity"])
        e2 = _analytic_eps(float(c["released_sigma_c"]), sens, float(c["delta2"]))
        if not math.isfinite(e2):
            raise ValueError(f"the analytic Gaussian accountant finds no finite ε it can certify for the "
                             f"contribution's σ_c = {float(c['released_sigma_c']):.4g} at δ₂ = {float(c['delta2']):.3g}"
                             ". No privacy can be certified for PIDP-SGD here, so there is no guarantee to state.")
        contribution = {"sigma_c": float(c["released_sigma_c"]), "rounds": int(c["rounds"]), "eps": e2,
                        "delta": float(c["delta2"]), "eps_training": eps, "delta_training": mech.delta}
        eps = eps + e2
        eps_lower = None if eps_lower is None else eps_lower + e2
        delta = mech.delta + float(c["delta2"])
    alphas = list(STATEMENT_ALPHAS)
    tc = tradeoff_curve(mech, s, alphas, contribution=True)
    sampling = {"sgd": (f"each of the {mech.steps} steps uses {'one pair' if mech.sample_size == 2 else 'one example'}"
                        f" drawn uniformly at random from the n = {mech.n} examples (sampling without replacement "
                        f"within the step, rate {mech.sampling_prob:.4g})"),
                "full-batch": f"no sampling: each of the {mech.steps} steps uses the whole data set",
                "single-release": "no sampling: the noise is added once, to the final output",
                "per-epoch": ("each epoch uses its own disjoint block of the data, in order; no random sampling")}[
        mech.kind]
    tradeoff = [[a_, float(b_)] for a_, b_ in zip(alphas, tc["beta"])]
    beta0 = dict((a_, b_) for a_, b_ in tradeoff).get(NO_PRIVACY_ALPHA)
    return catalog._json_safe({
        "meaningful": meaningful(eps, delta, beta0),
        "algorithm": mech.algorithm, "name": alg.name, "paper": mech.paper, "sigma": s, "eps": eps,
        "eps_lower": eps_lower, "exact": acc.name == "analytic-gaussian" and not contribution, "delta": delta,
        "accountant": acc.name, "accountant_label": acc.label, "method": METHOD[acc.name],
        "eps_target": mech.eps_total, "delta_target": mech.delta_total, "meets_target": bool(  # the tolerance of fmt_bound's rounding: "meets" never beside a printed ε above it
            eps <= mech.eps_total * (1 + 1e-12) and delta <= mech.delta_total * (1 + 1e-12)),
        "mechanism": mech.description, "kind": mech.kind, "sampling": sampling, "n": mech.n, "steps": mech.steps,
        "sampling_prob": mech.sampling_prob, "sensitivity": acc.sensitivity, "contribution": contribution,
        "tradeoff": tradeoff, "tradeoff_label": tc["label"],
        "tradeoff_exact": tc["exact"], "notes": list(mech.notes)})


def algorithm_statement(g: dict, command: str) -> str:
    """A short plain-language privacy statement of a :func:`guarantee` ``g`` — what is protected, the neighbouring
    relation, the sampling, the accountant, ε with its bracket, δ, what is not covered — ending with the
    ``python -m dpviz account … --statement`` command that recomputes it.

    Every number stays true: a claimed ε or δ and every upper bound is rounded up, a lower bound (ε's, or a type II
    error's) down (:func:`fmt_bound`).  Where the guarantee says nothing (``g["meaningful"]`` False: the type II
    error it guarantees at type I error 0.01 is below 10⁻⁶, :func:`meaningful`) the statement says so in plain words
    instead of reading as a guarantee."""
    eps, delta = g["eps"], g["delta"]
    ok = g.get("meaningful", True)
    e_up, d_up = fmt_bound(eps, up=True), fmt_bound(delta, up=True, digits=3)
    if g["exact"]:
        bar = (f"exact (the analytic Gaussian mechanism is an if-and-only-if): ε ∈ [{fmt_bound(eps, up=False)}, "
               f"{e_up}]")
    elif g["eps_lower"] is not None:
        bar = f"ε ∈ [{fmt_bound(g['eps_lower'], up=False)}, {e_up}] (certified lower and upper bounds)"
    else:
        bar = (f"ε ≤ {e_up} is an upper bound (safe to claim); the RDP accountant gives no lower bound (its ε "
               "is typically 10–30 % above the exact one)")
    target = (f"This σ meets the target (ε, δ) = ({g['eps_target']:.4g}, {g['delta_target']:.3g})."
              if g["meets_target"] else
              f"This σ does NOT meet the target (ε, δ) = ({g['eps_target']:.4g}, {g['delta_target']:.3g}): it buys "
              f"the larger ε above.")
    curve = "; ".join(f"at type I error {a:g} the type II error is at least {fmt_bound(b, up=False)}"
                      for a, b in g["tradeoff"])
    source = ("the mechanism's exact trade-off curve" if g["tradeoff_exact"] else
              "a valid lower bound from the Rényi-DP curve: Zhu, Dong & Wang 2022")
    if ok:
        head = (f"Guarantee: with Gaussian noise of standard deviation σ = {g['sigma']:.6g}, the released output is "
                f"(ε, δ)-differentially private with ε = {e_up} and δ = {d_up}." + _zero_note(eps))
        protected = (f"What is protected: any single training example. Neighbouring data sets differ in one example "
                     f"replaced by another (replace-one; the data set size n = {g['n']} is public): whatever the rest "
                     "of the data, an observer of the output cannot tell which of the two data sets was used beyond "
                     "what (ε, δ) allows.")
        test = f"As a hypothesis test (f-DP, Dong, Roth & Su 2022): for any membership test, {curve} ({source})."
    else:
        head = (f"Guarantee: NO meaningful privacy. With Gaussian noise of standard deviation σ = {g['sigma']:.6g}, "
                f"the accountant certifies only that the released output is (ε, δ)-differentially private with "
                f"ε = {e_up} and δ = {d_up}: " + _no_privacy(eps, delta))
        protected = (f"What is protected, in principle: any single training example. Neighbouring data sets differ in "
                     f"one example replaced by another (replace-one; the data set size n = {g['n']} is public), and "
                     "an observer of the output cannot tell which was used beyond what (ε, δ) allows — which at this "
                     "ε is essentially nothing.")
        test = (f"As a hypothesis test (f-DP, Dong, Roth & Su 2022): the type II error bound is essentially 0 — {curve} "
                f"({source}); the (ε, δ) above guarantees no more than 10⁻⁶ at type I error {NO_PRIVACY_ALPHA:g} either: "
                "in practice no membership test is ruled out.")
    lines = [
        f"Privacy statement: {g['name']} ({g['algorithm']}) of {g['paper']}, computed by dpviz",
        "",
        head,
        protected,
        f"Mechanism: {g['mechanism']}",
        f"Sampling: {g['sampling']}.",
        f"Accountant: {g['accountant_label']}; sensitivity Δ = {g['sensitivity']:.4g}, noise multiplier σ/Δ = "
        f"{g['sigma'] / g['sensitivity']:.4g}. {g['method']}.",
        f"Error bar: {bar}.",
    ]
    if g["contribution"]:
        c = g["contribution"]
        lines.append(f"Composition: training noise ε = {fmt_bound(c['eps_training'], up=True)} at δ₁ = "
                     f"{fmt_bound(c['delta_training'], up=True, digits=3)}, plus the {c['rounds']} releases of the "
                     f"influence-function contribution with σ_c = {c['sigma_c']:.4g}: ε = "
                     f"{fmt_bound(c['eps'], up=True)} at δ₂ = {fmt_bound(c['delta'], up=True, digits=3)} (exact, "
                     "analytic Gaussian), added (basic composition).")
    lines += [
        target,
        test,
        "Not covered: hyper-parameter tuning and any other use of the data outside this run; the paper's "
        "assumptions (every example's gradient bounded by G, the loss and domain as stated) — if they fail, the "
        "sensitivity and the guarantee fail; a sampler or noise generator other than the one stated; "
        "implementation flaws such as floating-point attacks on the noise.",
    ]
    for note in g["notes"]:
        lines.append(f"Note: {note}")
    lines += ["", f"Recompute: {command}"]
    return "\n".join(lines) + "\n"
