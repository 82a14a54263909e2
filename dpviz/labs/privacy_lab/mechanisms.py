"""The privacy lab's mechanisms and accountants: each paper's mechanism (:func:`mechanism`), the accountants of
the same mechanism (:func:`accountants`), both directions ε -> σ and σ -> ε with brackets, the paper's closed form,
the curves (σ against ε, ε against steps, trade-off curves) and :func:`evaluate`, the whole comparison for one
algorithm.  What each mechanism is and which accountant matches it: :mod:`dpviz.labs.privacy_lab`.
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass, field
from typing import Any, Callable

from dpviz.foundation import validate as v
from dpviz.theory import accounting, catalog, gaussian

__all__ = [
    "ALGORITHMS",
    "EXPLANATION",
    "Mechanism",
    "Accountant",
    "mechanism",
    "accountants",
    "epsilon",
    "epsilon_bracket",
    "sigma_for",
    "sigma_bracket",
    "closed_form_sigma",
    "closed_form_epsilon",
    "evaluate",
    "sigma_eps_curve",
    "closed_form_curve",
    "eps_vs_steps",
    "tradeoff_curve",
]

#: The catalogue's algorithms with Gaussian noise that the lab covers, in catalogue order.
ALGORITHMS = ("dpsgd-rdp", "dpsgd-rdp-pairwise", "dpsgd-pl", "pidp-sgd", "pairwise-sgd-output", "dpsgd-output",
              "dpgd-sc", "dpgd-c", "dpgdc", "dp-epoch-gd")

#: Why accountants disagree, in plain words (shown on the Accounting page).
EXPLANATION = (
    "- **RDP → (ε, δ) conversion loses something.** The Rényi accountant tracks a whole curve of Rényi divergences "
    "and converts it to (ε, δ) at the end; the conversion is an inequality, so RDP's ε is an upper bound that is "
    "typically 10–30 % above the true ε.\n"
    "- **PLD is (nearly) exact, up to its grid — and dpviz shows how near.** The privacy-loss-distribution "
    "accountant composes the distribution of the privacy loss numerically on a grid of step Δ. Connect-the-dots "
    "(Doroshenko et al. 2022) gives an upper bound on ε (safe to claim). For the lower bound dpviz groups the "
    "mechanism's outputs into intervals whose likelihood ratio is exactly e^(kΔ) — a post-processing, so its ε can "
    "only be smaller — and composes that exactly. Both err by about Δ² per step, so at a grid of about ε/(16√T) the "
    "exact ε is pinned within 1 %: ε ∈ [lower, upper]. (The classical optimistic PLD, which rounds every loss down, "
    "loses up to T·Δ: at n = T = 50 000 it certified ε ≥ 0 where ε ≈ 0.0192.) A PLD on too coarse a grid can even "
    "be looser than RDP — the page says so when it happens.\n"
    "- **The analytic Gaussian mechanism is exact.** For one Gaussian release (or T full-batch releases) the "
    "condition of Balle & Wang (2018) is an *if and only if*; the classical σ = Δ√(2 ln(1.25/δ))/ε is loose for "
    "ε < 1 and not valid at all for large ε.\n"
    "- **Sampling conventions differ.** The papers use exactly one example (or one pair) per step, drawn without "
    "replacement; Opacus and TF Privacy assume Poisson sampling (each example joins a step independently). These are "
    "different mechanisms with different accountants.\n"
    "- **Neighbouring relations differ, and so do sensitivities.** The papers call data sets neighbours when one "
    "example is *replaced*: a gradient bounded by G can then change by 2G. Under add/remove (Opacus, TF Privacy) "
    "one example is added or removed and the gradient sum changes by at most G. The same σ therefore buys a smaller "
    "ε under add/remove — but that ε is about a different guarantee.\n"
    "- **Closed forms carry slack.** The papers' formulas come from general lemmas (a subsampling bound with "
    "constant 3.5, a split β of the budget, the classical Gaussian mechanism), so they usually ask for more noise "
    "than a tight accountant of the same mechanism — and occasionally less, where a lemma is used outside its range."
)


@dataclass
class Accountant:
    """One accountant of a mechanism: ``name`` ("rdp", "pld", "analytic-gaussian"), ``sampling``
    ("without-replacement", "poisson", "full-batch", "single-release"), ``neighbouring`` ("replace-one",
    "add-remove") and whether this is the paper's own mechanism."""

    name: str
    sampling: str
    neighbouring: str
    matches_paper: bool
    label: str
    sensitivity: float  # Δ under this relation: z = σ / sensitivity


@dataclass
class Mechanism:
    """The mechanism an algorithm's paper analyses, with what the accountants need."""

    algorithm: str
    title: str
    paper: str
    kind: str  # "sgd", "full-batch", "single-release", "per-epoch"
    description: str
    n: int
    steps: int  # compositions the accountant counts
    sample_size: int  # examples per step (sgd), else 0
    sensitivity: float  # replace-one sensitivity of one release (2G for sgd)
    G: float | None  # gradient bound (sgd): add/remove sensitivity
    eps: float  # the (ε, δ) the Gaussian part must meet
    delta: float
    eps_total: float
    delta_total: float
    paper_sigma: float | None
    paper_feasible: bool
    closed_form: str  # plain-text formula with its place in the paper
    notes: list[str] = field(default_factory=list)
    extras: dict[str, Any] = field(default_factory=dict)
    _closed: Callable[[float], float | None] | None = None  # ε ↦ σ of the closed form (None: infeasible)
    _closed_inv: Callable[[float], float | None] | None = None  # σ ↦ ε (None: no ε works)

    @property
    def sampling_prob(self) -> float:
        return self.sample_size / self.n if self.kind == "sgd" else 1.0



def _one_release(alg, paper, cal, ex, n, eps, delta, notes, desc_of, closed_text) -> "Mechanism":
    """The mechanism of an algorithm that adds N(0, σ²I) once to an output of replace-one sensitivity
    ``ex["sensitivity"]`` at (ε, δ) (Xue et al.'s DP-GD-SC and DPGDC): refused where the calibration is infeasible;
    ``desc_of(Δ)`` says what is released."""
    if not cal.feasible:
        raise ValueError(f"{cal.reason}; {cal.fix}")
    Delta = float(ex["sensitivity"])
    closed, closed_inv = _classical(Delta, math.sqrt(2.0 * math.log(1.25 / delta)))
    return Mechanism(alg.id, alg.name, paper, "single-release", desc_of(Delta), n, 1, 0, Delta, None, eps, delta, eps,
                     delta, _paper_sigma(cal), True, closed_text, notes, {}, closed, closed_inv)


def _paper_sigma(cal) -> float | None:
    """The σ the paper's formula prints (``extras["sigma_paper"]``); since dpviz releases the analytic-Gaussian σ by
    default (``cal.sigma``), the paper's own σ is kept beside it by the calibration."""
    paper = (cal.extras or {}).get("sigma_paper")
    return float(paper) if paper is not None else cal.sigma

def _check_alg(algorithm_id: str) -> catalog.Algorithm:
    alg = catalog.get_algorithm(algorithm_id)
    if alg.id not in ALGORITHMS:
        raise ValueError(
            f"{alg.id!r} adds no Gaussian noise to account for; the accounting lab covers: {', '.join(ALGORITHMS)}.")
    return alg


def _invert_decreasing(f: Callable[[float], float | None], sigma: float, lo: float = 1e-4, hi: float = 1e4,
                       rtol: float = 1e-4) -> float | None:
    """Smallest ε in [lo, hi] with f(ε) <= σ, for f non-increasing where defined (None = infeasible, treated as
    +∞); bisection on log ε.  None when even ε = hi does not work."""

    def ok(e):
        s = f(e)
        return s is not None and s <= sigma

    if not ok(hi):
        return None
    if ok(lo):
        return lo
    return accounting.log_bisect(ok, lo, hi, rtol)


def _classical(sens: float, factor: float):
    """σ = sens · factor / ε and its inverse (classical Gaussian-type closed forms)."""
    return (lambda e: sens * factor / e), (lambda s: sens * factor / s)


def mechanism(algorithm_id: str, **params) -> Mechanism:
    """The mechanism of ``algorithm_id`` (see :func:`_mechanism`), with the calibration's verdict on the paper's
    printed σ applied as in ``calibrate``: where the exact check (analytic Gaussian mechanism) finds that σ is not
    (ε, δ)-DP for the mechanism, ``paper_feasible`` is False and a note gives the ε it really buys (issue 21)."""
    mech = _mechanism(algorithm_id, **params)
    ex = {}
    if mech.kind != "sgd":  # closed-form calibrations: cheap to ask again for the verdict on the printed σ
        ex = catalog.calibrate(mech.algorithm, **{k: val for k, val in params.items() if val is not None}).extras or {}
    if ex.get("paper_sigma_private") is False and mech.paper_sigma is not None:
        mech.paper_feasible = False
        k = mech.steps
        buys = _analytic_eps(mech.paper_sigma, math.sqrt(k) * mech.sensitivity, mech.delta)
        mech.notes.append(
            f"The paper's σ = {mech.paper_sigma:.4g} as printed is not (ε, δ)-DP for this mechanism: by the exact "
            f"analytic Gaussian mechanism it buys ε = {buys:.4g} at δ = {mech.delta:.3g} (target ε = {mech.eps:g}); "
            f"calibrate reports the same (paper_sigma_private = false) and releases σ = "
            f"{float(ex.get('sigma_private', mech.paper_sigma)):.4g}.")
    return mech


def _mechanism(algorithm_id: str, **params) -> Mechanism:
    """The mechanism of ``algorithm_id`` at the catalogue parameters ``params`` (as for :func:`catalog.calibrate`),
    with the paper's σ from the catalogue's calibration.

    Raises ``ValueError`` for algorithms without Gaussian noise, for δ = 0 (Laplace variants), and for invalid or
    missing parameters (message from the calibration)."""
    alg = _check_alg(algorithm_id)
    delta = params.get("delta")
    if delta is not None and float(delta) == 0.0:
        raise ValueError("delta = 0 selects the Laplace (pure eps-DP) variant; the accounting lab covers Gaussian "
                         "noise, which needs delta > 0.")
    params = {k: val for k, val in params.items() if val is not None}
    if alg.id in ("dpsgd-rdp", "dpsgd-rdp-pairwise"):
        params.setdefault("accountant_extra", False)
    cal = catalog.calibrate(alg.id, **params)
    eps = v.check_eps(params.get("eps"))
    delta = v.check_delta(params.get("delta"))
    n = v.check_n(params.get("n"))
    paper = alg.paper.cite()
    ex = cal.extras
    notes: list[str] = []
    if alg.id in ("dpsgd-rdp", "dpsgd-rdp-pairwise"):
        pairwise = alg.id.endswith("pairwise")
        G = float(ex["G"])
        m = 2 if pairwise else 1
        T = int(cal.T)
        cal_params = {k: val for k, val in params.items() if k not in ("eps", "beta")}
        cal_params["accountant_extra"] = False

        def closed(e, _p=cal_params, _id=alg.id):
            c = catalog.calibrate(_id, eps=e, **_p)
            return c.sigma if c.feasible else None

        what = "one pair" if pairwise else "one example"
        thm = "Theorem 5" if pairwise else "Theorem 2"
        desc = (f"{T} steps; each adds N(0, σ²I) to the gradient of {what} drawn uniformly at random (without "
                f"replacement within the step); neighbours differ in one replaced example, so one step's gradient "
                f"changes by at most 2G = {2 * G:.4g} (Wang, Lei, Ying & Zhou, Algorithm {2 if pairwise else 1}, "
                f"{thm} via Lemma 8).")
        if pairwise:
            desc += (" A replaced example is in the sampled pair with probability (n−1)/(n(n−1)/2) = 2/n, the "
                     "sampling rate γ = 2/n of Lemma 8 in Theorem 5; the matched accountant uses a sample of 2 of n "
                     "(rate 2/n) with replace-one sensitivity 2G.")
        closed_text = (("σ² = 56G²T/(βn²ε)·(log(1/δ)/((1−β)ε) + 1)" if pairwise
                        else "σ² = 14G²T/(βn²ε)·(log(1/δ)/((1−β)ε) + 1)")
                       + f", with the σ-minimising feasible β (Wang, Lei, Ying & Zhou, {thm})")
        mech = Mechanism(alg.id, alg.name, paper, "sgd", desc, n, T, m, 2.0 * G, G, eps, delta, eps, delta,
                         cal.sigma, cal.feasible, closed_text, notes, {}, closed,
                         lambda s, _c=closed: _invert_decreasing(_c, s, 1e-3, 1e3, 1e-3))
        if not cal.feasible:
            notes.append(f"The paper's conditions fail at this ε: {cal.reason}. {cal.fix}.")
        return mech
    if alg.id in ("dpsgd-pl", "pidp-sgd"):
        G = v.check_positive("G", params.get("G"))
        T = int(cal.T)
        e1 = float(ex.get("eps1", eps))
        d1 = float(ex.get("delta1", delta))
        c = params.get("c")
        if c is not None:
            base = G * math.sqrt(T * math.log(1.0 / d1)) / n
            closed, closed_inv = _classical(base, float(c))
            closed_text = f"σ = c·G√(T log(1/δ))/(nε) with c = {float(c):g} (Kang, Li, Liu & Wang, eq. (2))"
        else:
            closed = closed_inv = None
            closed_text = ("σ ≥ c·G√(T log(1/δ))/(nε) for an unspecified constant c (Kang, Li, Liu & Wang, eq. (2)); "
                           "the catalogue calibrates σ with the matched accountant (give c to use eq. (2))")
        desc = (f"{T} steps; each adds N(0, σ²I) to the gradient of one uniformly chosen example (eq. (1)); "
                f"neighbours differ in one replaced example (Remark 6), so a step's gradient changes by at most "
                f"2G = {2 * G:.4g} (Kang, Li, Liu & Wang, §4{', Algorithm 1 and Theorem 5' if alg.id == 'pidp-sgd' else ''}).")
        if alg.id == "pidp-sgd":
            desc += (f" PIDP-SGD splits the budget: the training noise below must meet (ε₁, δ₁) = ({e1:.4g}, "
                     f"{d1:.3g}); the influence-function contribution is released R times with its own noise σ_c at "
                     f"(ε₂, δ₂) (see the contribution check).")
            rounds = int(ex["rounds"])
            sens_c = float(ex["sensitivity_c"])
            # the paper's sigma_c is the printed one (Theorem 5); the calibration releases the private one by default
            sig_c = float(ex.get("sigma_c_paper", ex["sigma_c"]))
            released_c = float(ex["sigma_c"])
            e2, d2 = float(ex["eps2"]), float(ex["delta2"])
            need_c = gaussian.sigma_for(e2, d2, math.sqrt(rounds) * sens_c, rtol=1e-9)
            buys_c = _analytic_eps(sig_c, math.sqrt(rounds) * sens_c, d2)
            contribution = {"rounds": rounds, "sensitivity": sens_c, "paper_sigma_c": sig_c, "eps2": e2,
                            "delta2": d2, "sigma_c_for_eps2": need_c, "eps_of_paper_sigma_c": buys_c,
                            "released_sigma_c": released_c, "sigma_rule": ex.get("sigma_rule", "printed")}
            notes.append(
                f"Contribution noise: R = {rounds} Gaussian releases of c_t = 2c_t^(o) + b^(c), sensitivity 4G/(nζ) = "
                f"{sens_c:.4g} (dpviz's correction: the proof of Theorem 5 uses 2G/(nζ)), compose "
                f"exactly into one with sensitivity √R·Δ (analytic Gaussian mechanism): the paper's σ_c = "
                f"{sig_c:.4g} buys ε = {buys_c:.4g} at δ₂ = {d2:.3g} (target ε₂ = {e2:.4g}); σ_c = {need_c:.4g} "
                f"would suffice (the calibration releases σ_c = {released_c:.4g}, "
                + ("the private one)." if ex.get("sigma_rule", "private") == "private" else "as printed)."))
            from dpviz.theory.papers.kang_pidp import PIDP_NOT_CERTIFIED

            notes.append(PIDP_NOT_CERTIFIED)
        else:
            contribution = None
        mech = Mechanism(alg.id, alg.name, paper, "sgd", desc, n, T, 1, 2.0 * G, G, e1, d1, eps, delta,
                         cal.sigma, cal.feasible, closed_text, notes, {}, closed, closed_inv)
        if contribution:
            mech.extras["contribution"] = contribution
        if c is None:
            notes.append("The paper's σ here is the catalogue's calibration of eq. (2), which uses the matched "
                         "accountant (sampling without replacement, replace-one); so its ratio to the matched σ is 1.")
        return mech
    if alg.id in ("pairwise-sgd-output", "dpsgd-output"):
        if not cal.feasible:
            raise ValueError(f"{cal.reason}; {cal.fix}")
        Delta = float(ex["Delta"])
        dm = delta / 2.0
        closed, closed_inv = _classical(Delta, math.sqrt(2.0 * math.log(1.25 / dm)))
        who = ("Yang, Lei, Lyu & Ying, Algorithm 2, Theorem 4 (sensitivity eq. (9))" if alg.id == "pairwise-sgd-output"
               else "Wang, Lei, Ying & Zhang, Algorithm 1, Theorems 7–8")
        desc = (f"One release: N(0, σ²I) is added once to the averaged SGD iterate, whose replace-one sensitivity "
                f"is Δ = {Delta:.4g} with probability 1 − δ/2 ({who}). The Gaussian part must therefore meet "
                f"(ε, δ/2) = ({eps:g}, {dm:.3g}); the remaining δ/2 covers the failure of the sensitivity bound.")
        closed_text = f"σ = √(2 ln(2.5/δ))·Δ/ε — the classical Gaussian mechanism at δ/2 ({who})"
        return Mechanism(alg.id, alg.name, paper, "single-release", desc, n, 1, 0, Delta, None, eps, dm, eps, delta,
                         _paper_sigma(cal), True, closed_text, notes, {}, closed, closed_inv)
    if alg.id == "dpgd-sc":
        return _one_release(alg, paper, cal, ex, n, eps, delta, notes, lambda Delta: (
            f"One release: N(0, σ²I) is added to the last iterate of projected gradient descent, whose replace-one "
            f"sensitivity is 8G/(μn) = {Delta:.4g} (Xue, Yang, Huai & Wang, Algorithm 1, Lemma 1)."),
            "σ = 8√(2 ln(1.25/δ))·G/(μnε) (Xue, Yang, Huai & Wang, Algorithm 1)")
    if alg.id == "dpgd-c":
        Delta = float(ex["sensitivity"])
        T = int(cal.T)
        closed, closed_inv = _classical(Delta, math.sqrt(1.25 * T * math.log(1.0 / delta)))
        desc = (f"{T} full-batch steps; each adds N(0, σ²I) to the full pairwise gradient, whose replace-one "
                f"sensitivity is 4G/n = {Delta:.4g} (Xue, Yang, Huai & Wang, Algorithm 2 and Lemma 1's proof). No "
                "sampling: T Gaussian mechanisms compose, exactly like one with sensitivity √T·Δ.")
        closed_text = "σ = 4G√(1.25·T log(1/δ))/(nε) (Xue, Yang, Huai & Wang, Algorithm 2)"
        return Mechanism(alg.id, alg.name, paper, "full-batch", desc, n, T, 0, Delta, None, eps, delta, eps, delta,
                         _paper_sigma(cal), True, closed_text, notes, {}, closed, closed_inv)
    if alg.id == "dpgdc":
        return _one_release(alg, paper, cal, ex, n, eps, delta, notes, lambda Delta: (
            f"One release: N(0, σ²I) is added once to the average of the T = {int(cal.T)} projected gradient descent "
            f"iterates, whose replace-one sensitivity is 4ηGT/n = {Delta:.4g} (Xue, Yang, Huai & Wang, Algorithm 4, "
            "Lemma 7)."), "σ = 4√(2 ln(1.25/δ))·GTη/(nε) (Xue, Yang, Huai & Wang, Algorithm 4)")
    # dp-epoch-gd
    if not cal.feasible:
        raise ValueError(f"{cal.reason}; {cal.fix}")
    etas = ex["eta_schedule"]
    G = v.check_positive("G", params.get("G"))
    Delta = 4.0 * G * float(etas[0])
    closed, closed_inv = _classical(Delta, math.sqrt(2.0 * math.log(1.25 / delta)))
    k = int(ex["epochs"])
    desc = (f"{k} epochs on disjoint blocks of the data; epoch i releases its average iterate with N(0, σ_i²I), "
            f"sensitivity 4Gη_i (Xue, Yang, Huai & Wang, Algorithm 3; proof of Theorem 3). Every epoch has the same "
            f"ratio σ_i/(4Gη_i), and a replaced example lies in one block only, so the epochs compose in parallel: "
            f"the algorithm is exactly as private as epoch 1's release (σ below is σ₁, sensitivity 4Gη₁ = "
            f"{Delta:.4g}).")
    closed_text = "σ_i = 4√(2 ln(1.25/δ))·Gη_i/ε (Xue, Yang, Huai & Wang, Algorithm 3)"
    return Mechanism(alg.id, alg.name, paper, "per-epoch", desc, n, 1, 0, Delta, None, eps, delta, eps, delta,
                     _paper_sigma(cal), True, closed_text, notes, {"epochs": k}, closed, closed_inv)


def accountants(mech: Mechanism) -> list[Accountant]:
    """The accountants of ``mech``: the matched ones first, then Poisson add/remove (DP-SGD types only)."""
    if mech.kind == "sgd":
        what = "pair" if mech.sample_size == 2 else "example"
        return [
            Accountant("rdp", "without-replacement", "replace-one", True,
                       f"matched: RDP, one {what} per step without replacement, replace-one (Δ = 2G)",
                       mech.sensitivity),
            Accountant("rdp", "poisson", "add-remove", False,
                       f"Poisson q = {mech.sample_size}/n, add/remove (Δ = G), RDP", mech.G),
            Accountant("pld", "poisson", "add-remove", False,
                       f"Poisson q = {mech.sample_size}/n, add/remove (Δ = G), PLD", mech.G),
        ]
    sampling = "full-batch" if mech.kind == "full-batch" else "single-release"
    what = {"full-batch": f"{mech.steps} full-batch Gaussian steps", "single-release": "one Gaussian release",
            "per-epoch": "one Gaussian release per epoch (parallel over disjoint blocks)"}[mech.kind]
    return [
        Accountant("analytic-gaussian", sampling, "replace-one", True, f"matched, exact: analytic Gaussian, {what}",
                   mech.sensitivity),
        Accountant("rdp", sampling, "replace-one", True, f"matched: RDP, {what}", mech.sensitivity),
        Accountant("pld", sampling, "replace-one", True, f"matched: PLD, {what}", mech.sensitivity),
    ]


def _analytic_eps(sigma: float, sensitivity: float, delta: float) -> float:
    """Smallest ε >= 0 with the exact δ(ε) of the Gaussian mechanism (Balle & Wang 2018, Theorem 8) <= δ
    (bisection; δ(ε) decreases in ε)."""
    target = math.log(delta)
    if gaussian.log_delta_of(sigma, sensitivity, 0.0) <= target:
        return 0.0
    lo, hi = 0.0, 1.0
    while gaussian.log_delta_of(sigma, sensitivity, hi) > target:
        lo, hi = hi, 2.0 * hi
        if hi > 1e8:
            return math.inf
    for _ in range(200):
        mid = 0.5 * (lo + hi)
        if gaussian.log_delta_of(sigma, sensitivity, mid) <= target:
            hi = mid
        else:
            lo = mid
        if hi - lo <= 1e-12 * hi:
            break
    return hi


def _kw(mech: Mechanism, acc: Accountant, steps: int | None = None) -> dict:
    sampling = acc.sampling if acc.sampling in ("poisson", "without-replacement") else "poisson"
    return dict(delta=mech.delta, steps=mech.steps if steps is None else steps, sampling_prob=mech.sampling_prob,
                sampling=sampling, neighbouring=acc.neighbouring if mech.kind == "sgd" else "add-remove",
                accountant=acc.name)


def epsilon(mech: Mechanism, acc: Accountant, sigma, *, steps: int | None = None) -> float:
    """σ → ε: the ε that noise σ buys for ``mech`` at its δ under ``acc`` (``steps`` overrides the number of
    compositions, for ε-vs-steps curves).  ``inf`` when the accountant certifies no finite ε."""
    sigma = v.check_positive("sigma (noise standard deviation)", sigma)
    if steps is not None:
        steps = v.check_int("steps", steps)
    k = mech.steps if steps is None else steps
    if acc.name == "analytic-gaussian":
        return _analytic_eps(sigma, math.sqrt(k) * acc.sensitivity, mech.delta)
    return accounting.epsilon_general(noise_multiplier=sigma / acc.sensitivity, **_kw(mech, acc, steps))


def epsilon_bracket(mech: Mechanism, acc: Accountant, sigma) -> dict:
    """σ → ε with its error bar: ``{"eps_upper", "eps_lower", "eps_estimate", "method", "grid", "converged",
    "seconds", "note"}``.

    * ``rdp``: ``eps_upper`` is the RDP bound (safe to claim); no lower bound (``eps_lower`` None);
    * ``pld``: the connect-the-dots PLD (``eps_upper``, safe to claim) and a certified lower bound (``eps_lower``:
      the exact ε is at least this; for Poisson add/remove the merged-interval PLD of :mod:`dpviz.theory.pld_lower`,
      otherwise the rounded-down PLD) on a grid refined until they agree to 1 %, and their midpoint
      (``eps_estimate``); :func:`dpviz.theory.accounting.pld_bracket`.  When the PLD would not fit in memory
      (tiny σ) ``eps_upper`` is None and ``note`` says why and how large it would be;
    * ``analytic-gaussian``: exact (``eps_upper`` = ``eps_lower``)."""
    import time as _time

    sigma = v.check_positive("sigma (noise standard deviation)", sigma)
    t0 = _time.perf_counter()
    out = {"eps_upper": None, "eps_lower": None, "eps_estimate": None, "method": acc.name, "grid": None,
           "converged": None, "seconds": 0.0, "note": ""}
    if acc.name == "pld":
        kw = _kw(mech, acc)
        try:
            br = accounting.pld_epsilon_bracket(noise_multiplier=sigma / acc.sensitivity, delta=kw["delta"],
                                                steps=kw["steps"], sampling_prob=kw["sampling_prob"],
                                                neighbouring=kw["neighbouring"])
        except accounting.PldTooLarge as exc:
            out["note"] = str(exc)
        else:
            out.update({k: br[k] for k in ("eps_upper", "eps_lower", "eps_estimate", "grid", "converged", "note")})
    else:
        e = _num(epsilon(mech, acc, sigma))
        out["eps_upper"] = out["eps_estimate"] = e
        if acc.name == "analytic-gaussian":
            out["eps_lower"] = e
            out["converged"] = True
    for k in ("eps_upper", "eps_lower", "eps_estimate"):
        out[k] = _num(out[k])
    out["seconds"] = _time.perf_counter() - t0
    return out


def sigma_bracket(mech: Mechanism, acc: Accountant, eps) -> dict:
    """ε → σ with its error bar: ``{"sigma_upper", "sigma_lower", "method", "grid", "converged", "seconds",
    "note"}``.  ``sigma_upper`` certainly suffices (RDP, pessimistic PLD, exact analytic Gaussian); PLD's
    ``sigma_lower`` certainly does not for Poisson add/remove (a lower bound on its ε exceeds the target,
    :func:`dpviz.theory.accounting.pld_sigma_bracket`), and is an estimate otherwise (where the rounded-down PLD would meet
    ε)."""
    import time as _time

    eps = v.check_eps(eps)
    t0 = _time.perf_counter()
    out = {"sigma_upper": None, "sigma_lower": None, "method": acc.name, "grid": None, "converged": None,
           "seconds": 0.0, "note": ""}
    if acc.name == "pld":
        kw = _kw(mech, acc)
        res = accounting.pld_sigma_bracket(eps=eps, delta=kw["delta"], steps=kw["steps"],
                                           sampling_prob=kw["sampling_prob"], neighbouring=kw["neighbouring"])
        out["sigma_upper"] = res["z_upper"] * acc.sensitivity
        out["sigma_lower"] = None if res["z_lower"] is None else res["z_lower"] * acc.sensitivity
        out["grid"], out["converged"] = res["grid"], res["converged"]
        out["note"] = res.get("note") or ""  # e.g. the PLD did not settle and RDP's σ is shown (accounting)
    else:
        out["sigma_upper"] = sigma_for(mech, acc, eps)
        if acc.name == "analytic-gaussian":
            out["sigma_lower"] = out["sigma_upper"]
            out["converged"] = True
    out["seconds"] = _time.perf_counter() - t0
    return out


def sigma_for(mech: Mechanism, acc: Accountant, eps) -> float:
    """ε → σ: the smallest σ for which ``acc`` certifies (ε, δ) for ``mech`` (relative precision 1e-6 for RDP and
    the analytic Gaussian mechanism, 1e-4 for PLD).  Raises ``ValueError`` when the accountant cannot reach ε."""
    eps = v.check_eps(eps)
    if acc.name == "analytic-gaussian":
        return gaussian.sigma_for(eps, mech.delta, math.sqrt(mech.steps) * acc.sensitivity, rtol=1e-9)
    z = accounting.noise_multiplier_general(eps=eps, rtol=1e-6, **_kw(mech, acc))
    return z * acc.sensitivity


def closed_form_sigma(mech: Mechanism, eps) -> float | None:
    """The paper's closed-form σ at ε for this mechanism (None: the paper's conditions fail, or no closed form)."""
    eps = v.check_eps(eps)
    return None if mech._closed is None else mech._closed(eps)


def closed_form_epsilon(mech: Mechanism, sigma) -> float | None:
    """The smallest ε at which the paper's closed form gives at most ``sigma`` (None: no closed form, or no ε in
    [10⁻³, 10³] for the DP-SGD calibrations of Wang, Lei, Ying & Zhou)."""
    sigma = v.check_positive("sigma (noise standard deviation)", sigma)
    return None if mech._closed_inv is None else mech._closed_inv(sigma)


#: What each accountant's number is (shown beside it).
METHOD = {
    "rdp": "RDP: upper bound (safe to claim), no lower bound",
    "pld": "PLD: connect-the-dots = upper bound (safe to claim); lower bound from a post-processing of the mechanism "
           "whose privacy losses lie on the same grid, the grid refined until the two agree to 1 % (Poisson "
           "add/remove); replace-one: the lower bound of an explicit pair of neighbouring data sets (the replaced "
           "example's gradient +C against -C, every other one 0) on a grid refined until the two agree to 1 %; "
           "otherwise the rounded-down PLD, loose over many steps (the grid refined until the upper bound changes by "
           "< 1 %)",
    "analytic-gaussian": "analytic Gaussian: exact",
}


def _num(x):
    if x is None:
        return None
    x = float(x)
    return x if math.isfinite(x) else None


def evaluate(algorithm_id: str, *, sigma=None, names: tuple[str, ...] | None = None, closed_inverse: bool = True,
             skip: int = 0, limit: int | None = None, **params) -> dict:
    """Everything the CLI ``account`` command prints, as a JSON-ready dict (the contract of issue 10):

    ``{"algorithm", "eps", "delta", "paper_sigma", "accountants": [{"name", "sampling", "neighbouring",
    "matches_paper", "sigma_for_eps", "eps_of_paper_sigma", "eps_of_sigma" (when ``sigma``), "seconds", ...}],
    ...}``.  ``names`` restricts the accountants (e.g. ``("rdp", "analytic-gaussian")`` for a fast first pass);
    ``skip`` leaves out the first ``skip`` of them and ``limit`` keeps at most ``limit`` of the rest (the Accounting
    page computes the matched accountant alone with ``limit=1`` for its summary line, then the others with
    ``skip=1``; every row is computed exactly as without them); an accountant that cannot reach the target reports
    ``None`` with an ``error`` message."""
    if sigma is not None:
        sigma = v.check_positive("sigma (noise standard deviation)", sigma)
    skip = v.check_int("skip", skip, minimum=0)
    if limit is not None:
        limit = v.check_int("limit", limit)
    mech = mechanism(algorithm_id, **params)
    rows = []
    for acc in accountants(mech):
        if names is not None and acc.name not in names:
            continue
        if skip:
            skip -= 1
            continue
        if limit is not None and len(rows) >= limit:
            break
        t0 = time.perf_counter()
        row: dict[str, Any] = {"name": acc.name, "sampling": acc.sampling, "neighbouring": acc.neighbouring,
                               "matches_paper": acc.matches_paper, "label": acc.label,
                               "sensitivity": acc.sensitivity, "sigma_for_eps": None, "eps_of_paper_sigma": None}
        errors = []
        row["method"] = METHOD[acc.name]
        try:
            sb = sigma_bracket(mech, acc, mech.eps)
            row["sigma_for_eps"] = _num(sb["sigma_upper"])
            row["sigma_for_eps_lower"] = _num(sb["sigma_lower"])
            if sb["note"]:
                errors.append(sb["note"])
        except ValueError as exc:
            errors.append(str(exc))
        main = None
        if mech.paper_sigma is not None:
            try:
                main = epsilon_bracket(mech, acc, mech.paper_sigma)
            except ValueError as exc:
                main = {"eps_upper": None, "eps_lower": None, "eps_estimate": None, "grid": None,
                        "converged": None, "note": str(exc)}
            row["eps_of_paper_sigma"] = main["eps_upper"]
            row["eps_of_paper_sigma_lower"] = main["eps_lower"]
            row["eps_of_paper_sigma_estimate"] = main["eps_estimate"]
            if main["note"]:
                errors.append(main["note"])
        if sigma is not None:
            try:
                main = epsilon_bracket(mech, acc, sigma)
            except ValueError as exc:
                main = {"eps_upper": None, "eps_lower": None, "eps_estimate": None, "grid": None,
                        "converged": None, "note": str(exc)}
            row["eps_of_sigma"] = main["eps_upper"]
            row["eps_of_sigma_lower"] = main["eps_lower"]
            row["eps_of_sigma_estimate"] = main["eps_estimate"]
            if main["note"] and main["note"] not in errors:
                errors.append(main["note"])
        # the error bar of the row's main ε (of your σ if given, else of the paper's σ)
        row["eps_upper"] = main["eps_upper"] if main else None
        row["eps_lower"] = main["eps_lower"] if main else None
        row["grid"] = main["grid"] if main else None
        row["converged"] = main["converged"] if main else None
        row["sigma_ratio_to_paper"] = (row["sigma_for_eps"] / mech.paper_sigma
                                       if row["sigma_for_eps"] and mech.paper_sigma else None)
        if errors:
            row["error"] = "; ".join(errors)
        if acc.name == "rdp" and acc.sampling == "without-replacement" and row["sigma_for_eps"] is not None:
            floor = accounting.wor_floor_note(mech.eps, mech.delta, mech.steps, mech.sampling_prob)
            if floor:
                row["caveat"] = floor  # its σ for ε is certified only through ε = 0 (accounting.wor_rdp_floor)
        row["seconds"] = time.perf_counter() - t0
        rows.append(row)
    closed = {"formula": mech.closed_form, "sigma_for_eps": _num(mech.paper_sigma),
              "feasible": mech.paper_feasible}
    if sigma is not None and closed_inverse:
        closed["eps_of_sigma"] = _num(closed_form_epsilon(mech, sigma))
    out = {
        "algorithm": mech.algorithm,
        "eps": mech.eps_total,
        "delta": mech.delta_total,
        "paper_sigma": _num(mech.paper_sigma),
        "accountants": rows,
        "mechanism": mech.description,
        "eps_mechanism": mech.eps,
        "delta_mechanism": mech.delta,
        "steps": mech.steps,
        "sampling_prob": mech.sampling_prob,
        "closed_form": closed,
        "notes": list(mech.notes),
    }
    if sigma is not None:
        out["sigma"] = sigma
    if "contribution" in mech.extras:
        out["contribution"] = catalog._json_safe(mech.extras["contribution"])
    return catalog._json_safe(out)


def sigma_eps_curve(mech: Mechanism, acc: Accountant, sigmas) -> list[float]:
    """ε bought by each σ in ``sigmas`` under ``acc`` (``inf`` where none)."""
    return [epsilon(mech, acc, s) for s in sigmas]


def closed_form_curve(mech: Mechanism, epss) -> list[float | None]:
    """The paper's σ at each ε in ``epss`` (None where its conditions fail)."""
    return [closed_form_sigma(mech, e) for e in epss]


def eps_vs_steps(mech: Mechanism, acc: Accountant, sigma, steps_grid) -> list[float]:
    """ε of ``sigma`` after each number of compositions in ``steps_grid`` (ε grows with the number of steps)."""
    return [epsilon(mech, acc, sigma, steps=int(t)) for t in steps_grid]


def tradeoff_curve(mech: Mechanism, sigma, alpha, *, contribution: bool = False) -> dict:
    """The f-DP trade-off curve (type II error β against type I error α; Dong, Roth & Su 2022) of ``mech``'s matched
    mechanism at noise ``sigma``: ``{"label", "how", "exact", "beta", "mu"}``.

    * DP-SGD types (one example / pair per step drawn without replacement, replace-one; dp_accounting has no PLD
      for it): the curve implied by the matched RDP accountant's Rényi curve, ``exact`` False —
      :func:`dpviz.labs.tradeoff.tradeoff_rdp_gaussian_wor`, a **valid lower bound** on the true curve (Zhu, Dong & Wang
      2022; see :data:`dpviz.labs.tradeoff.RDP_TRADEOFF_CITATION`).  With ``contribution`` (PIDP-SGD) the R
      Gaussian releases of the influence-function contribution at its released σ_c are composed in by adding their
      RDP λR·Δ_c²/(2σ_c²) (RDP composes additively; Mironov 2017, Proposition 1);
    * Gaussian releases (full-batch steps, one release, parallel epochs): the exact curve G_μ with μ = √T·Δ/σ (the
      Gaussian mechanism is Δ/σ-GDP and T of them compose to √T·Δ/σ-GDP: Dong, Roth & Su 2022, Theorem 2.7 and
      Corollary 3.3), ``exact`` True (for output perturbation: of the Gaussian part, given the sensitivity bound)."""
    from dpviz.labs import tradeoff as au

    sigma = v.check_positive("sigma (noise standard deviation)", sigma)
    if mech.kind == "sgd":
        import numpy as np

        z = sigma / mech.sensitivity
        orders = np.asarray([o for o in accounting.WOR_ORDERS if o > 1.0])
        rdp = mech.steps * np.asarray(accounting._rdp_wor_gaussian(mech.sampling_prob, z, orders), float)
        what = "pair" if mech.sample_size == 2 else "example"
        label = f"from RDP, one {what} per step without replacement, replace-one, z = {z:.3g}"
        c = mech.extras.get("contribution")
        if contribution and c:
            zc = float(c["released_sigma_c"]) / (math.sqrt(int(c["rounds"])) * float(c["sensitivity"]))
            rdp = rdp + orders / (2.0 * zc * zc)
            label += f", with the contribution's releases (z_c = {zc:.3g})"
        beta = au.tradeoff_rdp(alpha, orders, rdp)
        return {"label": label, "how": au.RDP_TRADEOFF_CITATION, "exact": False, "beta": beta, "mu": None}
    mu = math.sqrt(mech.steps) * mech.sensitivity / sigma
    part = " (the Gaussian part)" if mech.delta != mech.delta_total else ""
    return {"label": f"exact: {mech.steps} Gaussian release{'s' if mech.steps > 1 else ''}{part}, μ = {mu:.3g}-GDP",
            "how": ("the exact trade-off curve G_μ(α) = Φ(Φ⁻¹(1 − α) − μ) of the Gaussian releases, μ = √T·Δ/σ (Dong, "
                    "Roth & Su 2022, Theorem 2.7 and Corollary 3.3); the PLD accountant computes the same curve"),
            "exact": True, "beta": au.tradeoff_gdp(alpha, mu), "mu": mu}
