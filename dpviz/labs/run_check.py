r"""Check a DP-SGD run: "is my run private enough?" — one direct answer for the settings practitioners use.

Inputs as practitioners state them: data set size n, batch size b (or sampling rate q = b/n), epochs (steps =
⌈epochs·n/b⌉) or steps, noise multiplier z = σ/C (or σ with the clipping norm C), δ, a target ε, the batch sampling
and the neighbouring relation.  :func:`check` returns the verdict under the tightest accountant dpviz has for that
sampling, the ε bracket, the RDP ε, the smallest noise multiplier meeting the target (a bracket), the most epochs the
target allows at this noise, the ε-against-epochs data and a plain-language sentence.

Samplings and their accountants (z = σ/C; the clipped gradient sum moves by C under add/remove, 2C under
replace-one, so the accountants get z or z/2):

* ``poisson`` — each example joins each step independently with probability q (what Opacus and TF Privacy
  account for).  Add/remove: the two-sided PLD bracket of :func:`dpviz.theory.accounting.pld_epsilon_bracket` (upper:
  connect-the-dots, safe to claim; lower: certified) and the RDP ε beside it.  If the PLD lower end exceeds the RDP ε
  (the two contradict: RDP's ε is an upper bound on the exact ε) the RDP ε is taken as the upper bound, the lower
  end dropped, and a note says so.  Replace-one: PLD only (dp_accounting has no Poisson RDP for it).
* ``shuffle`` — every epoch a fresh random permutation cut into ⌊n/b⌋ batches of b (a data loader with shuffle=True
  and drop_last=True).  No tight accountant exists.  Certified upper bound: each example is used at most once per
  epoch, so the run is at most as leaky as ⌈T/k⌉ Gaussian mechanisms without any amplification (exact, analytic
  Gaussian composition, Dong, Roth & Su 2019; Balle & Wang 2018).  Certified lower bound:
  :func:`dpviz.theory.shuffle_lower.epsilon_lower` (Chua, Ghazi, Kamath, Kumar, Manurangsi, Sinha & Zhang, ICML 2024
  and NeurIPS 2024).  The Poisson numbers of the same b, n, steps are reported beside them, as what people usually
  (wrongly) report for this loader; where the lower bound exceeds the Poisson upper bound, the Poisson number cannot
  be reported for this loader.  Add/remove is read as zero-out (the example's slot is kept with gradient 0), as
  in Chua et al.
* ``fixed-size`` — each step a uniformly random batch of exactly b examples, drawn afresh (sampling without
  replacement within the step): RDP of Wang, Balle & Kasiviswanathan (2019), replace-one only.
* ``full-batch`` — every step uses all n examples: T Gaussian mechanisms, exact by the analytic Gaussian mechanism
  of their composition (μ = √T/z).

Verdict (``meets_target``): True when the certified upper bound is at most the target; False otherwise — when the
target lies inside the bracket the run is *not proven* to meet it (``verdict`` = "unproven"), and a pipeline that
gates on it should treat it as missed.  None without a target.
"""

from __future__ import annotations

import ast
import json
import math
import time

from dpviz.foundation import validate as v
from dpviz.theory import accounting, gaussian, shuffle_lower

__all__ = ["SAMPLINGS", "NEIGHBOURINGS", "CITATIONS", "Run", "resolve", "epsilon_at", "check", "noise_for_target",
           "max_epochs", "eps_vs_epochs", "gaussian_eps", "plain_sentence", "parse_pasted", "command",
           "utility", "MAX_PASTE"]

SAMPLINGS = ("poisson", "shuffle", "fixed-size", "full-batch")
NEIGHBOURINGS = ("add-remove", "replace-one")
MAX_STEPS = 10**7
#: the papers the shuffled-batch lower bound comes from, as shown on screen
CITATIONS = ("Chua, Ghazi, Kamath, Kumar, Manurangsi, Sinha & Zhang, \"How Private are DP-SGD Implementations?\", "
             "ICML 2024 (one epoch)",
             "Chua, Ghazi, Kamath, Kumar, Manurangsi, Sinha & Zhang, \"Scalable DP-SGD: Shuffling vs. Poisson "
             "Subsampling\", NeurIPS 2024 (several epochs)")
SAMPLING_TEXT = {
    "poisson": "Poisson sampling: each example joins each step independently with probability q",
    "shuffle": "shuffled batches: each epoch a fresh random order, cut into batches of b (what most data loaders do)",
    "fixed-size": "fixed-size batches: each step a uniformly random batch of exactly b examples, drawn afresh",
    "full-batch": "full batch: every step uses all n examples",
}


class Run:
    """A validated run: n, b, q, steps, z (σ/C), δ, target, sampling, neighbouring, steps per epoch."""

    def __init__(self, **kw):
        self.__dict__.update(kw)

    def as_dict(self) -> dict:
        return dict(self.__dict__)


def resolve(*, n, delta, noise_multiplier=None, sigma=None, clip_norm=None, batch_size=None, sampling_rate=None,
            epochs=None, steps=None, target_eps=None, sampling="poisson", neighbouring="add-remove") -> Run:
    """Validate the inputs (``ValueError`` with a message a student understands) and derive the run."""
    n = v.check_n(n)
    if sampling not in SAMPLINGS:
        raise ValueError(f"sampling must be one of {', '.join(SAMPLINGS)}, got {v.shown(sampling)}.")
    if neighbouring not in NEIGHBOURINGS:
        raise ValueError(f"neighbouring must be one of {', '.join(NEIGHBOURINGS)}, got {v.shown(neighbouring)}.")
    delta = v.check_delta(delta)
    if noise_multiplier is not None and sigma is not None:
        raise ValueError("give the noise multiplier, or σ with the clipping norm C — not both.")
    if noise_multiplier is None:
        if sigma is None or clip_norm is None:
            raise ValueError("give the noise multiplier σ/C, or both σ (the noise standard deviation) and the "
                             "clipping norm C.")
        z = v.check_positive("sigma", sigma) / v.check_positive("clipping norm C", clip_norm)
    else:
        z = v.check_positive("noise multiplier (sigma / clipping norm)", noise_multiplier)
    if not 1e-3 <= z <= 1e4:
        raise ValueError(f"the noise multiplier σ/C must lie between 0.001 and 10000, got {z:.4g}.")
    if sampling == "full-batch":
        if batch_size is not None and int(batch_size) != n or sampling_rate not in (None, 1, 1.0):
            raise ValueError("full-batch uses all n examples in every step: leave the batch size at n (or the "
                             "sampling rate at 1).")
        b, q = n, 1.0
    else:  # a fixed batch (shuffled, fixed-size) holds a whole number of examples
        b, q = v.check_batch(n, batch_size, sampling_rate, fixed=sampling in ("shuffle", "fixed-size"),
                             batch="the batch size", rate="the sampling rate")
    if (epochs is None) == (steps is None):
        raise ValueError("give exactly one of epochs and steps.")
    if steps is not None:
        T = v.check_int("steps", steps)
    else:
        ep = v.check_positive("epochs", epochs)
        T = max(1, math.ceil(ep / q - 1e-9))
    if T > MAX_STEPS:
        raise ValueError(f"{T} steps is more than dpviz checks (at most {MAX_STEPS:.0e}); use fewer epochs or a "
                         "larger batch.")
    if sampling == "fixed-size" and neighbouring != "replace-one" and q < 1.0:
        raise ValueError("fixed-size batches (sampling without replacement) are analysed under replace-one "
                         "neighbours (the data set size n is public): choose replace-one, or Poisson sampling for "
                         "add/remove.")
    target = None
    if target_eps is not None and float(target_eps) != 0.0:
        target = v.check_eps(target_eps, "target eps")
    per_epoch = n // b if sampling == "shuffle" else max(1, round(1.0 / q))
    return Run(n=n, b=b, q=q, steps=T, z=z, delta=delta, target=target, sampling=sampling,
               neighbouring=neighbouring, steps_per_epoch=per_epoch, epochs=T * q,
               factor=1.0 if neighbouring == "add-remove" else 2.0)


def gaussian_eps(z: float, compositions: int, delta: float) -> float:
    """Exact ε of ``compositions`` Gaussian mechanisms of noise multiplier z (sensitivity 1): one Gaussian
    mechanism of sensitivity √k (Dong, Roth & Su 2019, Cor. 3.3), its ε by the analytic Gaussian mechanism
    (Balle & Wang 2018, Theorem 8); the smallest ε with δ(ε) <= δ, by bisection (returned rounded up)."""
    sens = math.sqrt(compositions)
    if gaussian.delta_of(z, sens, 1e-12) <= delta:
        return 0.0
    lo, hi = 0.0, 1.0
    while gaussian.delta_of(z, sens, hi) > delta:
        lo, hi = hi, hi * 2.0
        if hi > 1e7:
            return math.inf
    for _ in range(80):
        mid = 0.5 * (lo + hi)
        if gaussian.delta_of(z, sens, mid) > delta:
            lo = mid
        else:
            hi = mid
        if hi - lo <= 1e-10 * hi:
            break
    return hi


def _num(x):
    return None if x is None or not math.isfinite(float(x)) else float(x)


def _poisson(run: Run, steps: int, z: float | None = None) -> dict:
    """Poisson accountants at ``steps``: {"eps_upper", "eps_lower", "eps_rdp", "accountant", "notes"}."""
    z = (run.z if z is None else z) / run.factor
    notes = []
    rdp = None
    if run.neighbouring == "add-remove":
        rdp = _num(accounting.epsilon_general(noise_multiplier=z, delta=run.delta, steps=steps,
                                              sampling_prob=run.q, accountant="rdp"))
    up = lo = None
    try:
        br = accounting.pld_epsilon_bracket(noise_multiplier=z, delta=run.delta, steps=steps, sampling_prob=run.q,
                                            neighbouring=run.neighbouring)
        up, lo = _num(br["eps_upper"]), _num(br["eps_lower"])
        if br.get("note"):
            notes.append("PLD: " + br["note"])
    except ValueError as exc:
        notes.append(f"PLD not computed: {exc}")
    accountant = "pld"
    if rdp is not None and lo is not None and lo > rdp:
        notes.append(f"The PLD bracket contradicts RDP (its lower end {lo:.6g} exceeds the RDP upper bound "
                     f"{rdp:.6g}); the RDP ε is taken as the upper bound and no lower bound is claimed.")
        up, lo, accountant = rdp, None, "rdp"
    elif up is None or (rdp is not None and rdp < up):
        if rdp is not None:
            up, accountant = rdp, "rdp"
            if lo is not None and lo > up:
                lo = None
    if up is None:
        raise ValueError("no accountant certifies a finite ε at this noise and δ: the noise is too small.")
    return {"eps_upper": up, "eps_lower": lo, "eps_rdp": rdp, "accountant": accountant, "notes": notes}


def epsilon_at(run: Run, steps: int | None = None, *, shuffle_bound: bool = True) -> dict:
    """The ε of ``run`` after ``steps`` steps (default: the run's) under the tightest accountant for its sampling:
    ``{"eps_upper", "eps_lower", "eps_rdp", "accountant", "notes"}`` plus, with shuffled batches,
    ``"eps_lower_shuffle"`` and the Poisson numbers ``"eps_poisson_upper"``, ``"eps_poisson_lower"``."""
    T = run.steps if steps is None else int(steps)
    zf = run.z / run.factor
    if run.sampling == "poisson":
        return _poisson(run, T)
    if run.sampling == "full-batch":
        exact = gaussian_eps(zf, T, run.delta)
        rdp = _num(accounting.epsilon_general(noise_multiplier=zf, delta=run.delta, steps=T, sampling_prob=1.0))
        return {"eps_upper": exact, "eps_lower": exact, "eps_rdp": rdp, "accountant": "analytic-gaussian",
                "notes": ["Full batch: T Gaussian mechanisms compose exactly into one of sensitivity √T (the analytic "
                          "Gaussian mechanism is an if-and-only-if), so ε is exact."]}
    if run.sampling == "fixed-size":
        rdp = _num(accounting.epsilon_general(noise_multiplier=zf, delta=run.delta, steps=T, sampling_prob=run.q,
                                              sampling="without-replacement", neighbouring="replace-one"))
        if rdp is None:
            raise ValueError("the RDP accountant certifies no finite ε at this noise and δ: the noise is too small.")
        return {"eps_upper": rdp, "eps_lower": None, "eps_rdp": rdp, "accountant": "rdp",
                "notes": ["Fixed-size batches: dp_accounting has no PLD for sampling without replacement, so the "
                          "RDP accountant (Wang, Balle & Kasiviswanathan 2019) is the tightest dpviz has; it gives "
                          "no lower bound."]}
    # shuffle
    k = run.steps_per_epoch
    uses = math.ceil(T / k)
    upper = gaussian_eps(zf, uses, run.delta)
    out = {"eps_upper": upper, "eps_lower": None, "eps_rdp": None, "accountant": "no-amplification",
           "uses": uses, "notes": []}
    if shuffle_bound:
        lb = shuffle_lower.epsilon_lower(noise_multiplier=run.z, delta=run.delta, n=run.n, batch_size=run.b,
                                         steps=T, neighbouring=run.neighbouring)
        out["eps_lower_shuffle"] = min(lb["eps_lower"], upper)
        out["eps_lower"] = out["eps_lower_shuffle"]
        out["shuffle"] = lb
    try:
        pois = _poisson(run, T)
        out["eps_poisson_upper"], out["eps_poisson_lower"] = pois["eps_upper"], pois["eps_lower"]
        out["eps_rdp"] = pois["eps_rdp"]
    except ValueError:
        out["eps_poisson_upper"] = out["eps_poisson_lower"] = None
    return out


def _verdict(eps: dict, target: float | None) -> tuple[bool | None, str]:
    if target is None:
        return None, "no-target"
    if eps["eps_upper"] is not None and eps["eps_upper"] <= target * (1 + 1e-12):
        return True, "meets"
    if eps["eps_lower"] is not None and eps["eps_lower"] > target:
        return False, "does-not-meet"
    return False, "unproven"


def _no_tick() -> None:
    return None


def noise_for_target(run: Run, tick=None) -> dict:
    """The smallest noise multiplier σ/C that meets the target, as a bracket ``{"lower", "upper", "rdp",
    "method"}``: ``upper`` certainly suffices (its certified upper ε meets the target); ``lower`` certainly does
    not (its certified lower ε exceeds the target) where dpviz has a certified lower bound, else None.

    ``tick`` (no arguments), if given, is called before each evaluation of the shuffled-batch search; the dashboard
    passes an interrupt point, so that a page run replaced by a newer one stops there (it may raise)."""
    tick = tick or _no_tick
    if run.target is None:
        return {"lower": None, "upper": None, "rdp": None, "method": "no target"}
    eps, d, T, f = run.target, run.delta, run.steps, run.factor
    if run.sampling == "full-batch":
        z = gaussian.sigma_for(eps, d, math.sqrt(T), rtol=1e-9) * f
        return {"lower": z, "upper": z, "rdp": None, "method": "exact (analytic Gaussian composition)"}
    if run.sampling == "fixed-size":
        z = accounting.noise_multiplier_general(eps=eps, delta=d, steps=T, sampling_prob=run.q,
                                                sampling="without-replacement", neighbouring="replace-one") * f
        return {"lower": None, "upper": z, "rdp": z, "method": "RDP (without replacement), upper only"}
    if run.sampling == "poisson":
        tick()
        rdp = None
        if run.neighbouring == "add-remove":
            rdp = accounting.noise_multiplier_general(eps=eps, delta=d, steps=T, sampling_prob=run.q) * f
        try:
            br = accounting.pld_sigma_bracket(eps=eps, delta=d, steps=T, sampling_prob=run.q,
                                              neighbouring=run.neighbouring)
            up = br["z_upper"] * f
            lo = None if br.get("z_lower") is None else br["z_lower"] * f
            if rdp is not None and rdp < up:
                up = rdp
            if run.neighbouring != "add-remove":
                lo = None  # pld_sigma_bracket certifies its lower end for Poisson add/remove only
            if lo is not None and lo > up:
                lo = None
            return {"lower": lo, "upper": up, "rdp": rdp, "method": "PLD bracket"}
        except ValueError:
            if rdp is None:
                raise
            return {"lower": None, "upper": rdp, "rdp": rdp, "method": "RDP (PLD did not fit), upper only"}
    # shuffle: upper from no amplification (exact), lower from the certified lower bound (bisection on log z)
    uses = math.ceil(T / run.steps_per_epoch)
    up = gaussian.sigma_for(eps, d, math.sqrt(uses), rtol=1e-9) * f

    def too_little(z):
        tick()
        return shuffle_lower.epsilon_lower(noise_multiplier=z, delta=d, n=run.n, batch_size=run.b, steps=T,
                                           neighbouring=run.neighbouring)["eps_lower"] > eps

    lo = None
    hi_z, lo_z = up, up / 2.0
    while not too_little(lo_z):
        hi_z, lo_z = lo_z, lo_z / 2.0
        if lo_z < 1e-3:
            lo_z = None
            break
    if lo_z is not None:
        for _ in range(12):  # the largest z certified too small, to about 2 % (0.03 in log z)
            if math.log(hi_z / lo_z) < 0.02:
                break
            mid = math.sqrt(hi_z * lo_z)
            if too_little(mid):
                lo_z = mid
            else:
                hi_z = mid
        lo = lo_z
    return {"lower": lo, "upper": up, "rdp": None,
            "method": "upper: no amplification (exact); lower: certified shuffled-batch lower bound"}


def max_epochs(run: Run, tick=None) -> dict:
    """The most steps (and epochs) for which the certified upper ε stays at most the target at this noise:
    ``{"steps", "epochs"}`` (None without a target; 0 steps when even one step exceeds it).  ``tick``: as in
    :func:`noise_for_target`, called before each evaluation of ε at a number of steps."""
    tick = tick or _no_tick
    if run.target is None:
        return {"steps": None, "epochs": None, "steps_exceeding": None}
    eps = run.target
    f = run.factor
    if run.sampling in ("full-batch", "shuffle"):
        mu_needed = 1.0 / gaussian.sigma_for(eps, run.delta, 1.0, rtol=1e-12)  # μ with ε(μ) = target
        k = math.floor((run.z / f * mu_needed) ** 2 * (1 + 1e-12))
        while k >= 1 and gaussian_eps(run.z / f, k, run.delta) > eps:
            k -= 1
        while gaussian_eps(run.z / f, k + 1, run.delta) <= eps:
            k += 1
        if run.sampling == "full-batch":
            return {"steps": k, "epochs": float(k), "steps_exceeding": k + 1}
        return {"steps": k * run.steps_per_epoch, "epochs": float(k),
                "steps_exceeding": k * run.steps_per_epoch + 1}

    def f(T):
        tick()
        return epsilon_at(run, T, shuffle_bound=False)["eps_upper"]

    lo, hi = _largest_ok(f, eps, run.steps)
    out = {"steps": lo, "epochs": lo * run.q, "steps_exceeding": hi}
    return out


def _largest_ok(f, target: float, T0: int, max_evals: int = 8) -> tuple[int, int | None]:
    """(lo, hi): the largest whole T with f(T) <= target lies in [lo, hi) — f(lo) <= target (or lo = 0) and
    f(hi) > target were evaluated — for f increasing in T, by secant steps on (log T, log f) (ε grows like a power
    of T), at most ``max_evals`` evaluations; stops when hi − lo is within 1 % of lo."""
    lo, hi = 0, None
    flo = fhi = None
    T, fT = T0, f(T0)
    slope = 0.5
    for _ in range(max_evals):
        if fT <= target:
            lo, flo = T, fT
        else:
            hi, fhi = T, fT
        if hi is not None and hi - lo <= max(1, 0.01 * lo):
            break
        if lo and hi is not None and flo > 0 and fhi > flo:
            slope = max(math.log(fhi / flo) / math.log(hi / lo), 0.05)
            guess = lo * (target / flo) ** (1.0 / slope)
            guess = min(max(guess, lo + 1), hi - 1)
        elif lo:  # only points below the target so far: step up
            guess = lo * max((target / flo) ** (1.0 / slope) if flo > 0 else 4.0, 1.02) * 1.005
        else:  # only points above: step down
            guess = hi * min((target / fhi) ** (1.0 / slope), 0.98) * 0.995
        if not lo and guess < 1:
            guess = 1
            if hi == 1:
                return 0, 1
        guess = int(min(max(round(guess), 1), MAX_STEPS))
        if guess in (lo, hi):
            break
        T, fT = guess, f(guess)
    return lo, hi


def eps_vs_epochs(run: Run, points: int = 9, shuffle_points: int = 6, tick=None) -> dict:
    """ε against epochs on a grid up to about twice the larger of this run's epochs and the most allowed:
    ``{"epochs": [...], "eps_upper": [...], "eps_lower": [...], "eps_rdp": [...], "eps_lower_shuffle": [...] or
    None, "eps_poisson_upper": [...] or None}``.  ``tick``: as in :func:`noise_for_target`, called before each
    point."""
    import numpy as np

    tick = tick or _no_tick
    top = 2.0 * run.epochs
    grid = sorted({max(1, int(round(float(t) / run.q))) for t in np.linspace(top / points, top, points)}
                  | {run.steps})
    out = {"epochs": [], "eps_upper": [], "eps_lower": [], "eps_rdp": [], "eps_lower_shuffle": None,
           "eps_poisson_upper": None}
    if run.sampling == "shuffle":
        out["eps_lower_shuffle"], out["eps_poisson_upper"] = [], []
        idx = set(np.linspace(0, len(grid) - 1, min(shuffle_points, len(grid))).round().astype(int).tolist())
        idx.add(grid.index(run.steps))
    for i, T in enumerate(grid):
        want = run.sampling == "shuffle" and i in idx
        tick()
        e = epsilon_at(run, T, shuffle_bound=want)
        out["epochs"].append(T * run.q)
        out["eps_upper"].append(e["eps_upper"])
        out["eps_lower"].append(e["eps_lower"])
        out["eps_rdp"].append(e["eps_rdp"])
        if run.sampling == "shuffle":
            out["eps_lower_shuffle"].append(e.get("eps_lower_shuffle"))
            out["eps_poisson_upper"].append(e.get("eps_poisson_upper"))
    return out


def plain_sentence(eps: float, delta: float, neighbouring: str) -> str:
    """What (ε, δ) means, in one plain sentence."""
    who = ("whether any one person's example was in the training data" if neighbouring == "add-remove"
           else "which of two values any one person's example had")
    odds = f"e^ε ≈ {math.exp(eps):.3g}" if eps < 700 else "an astronomically large factor"
    from dpviz.labs import privacy_lab

    weak = ("" if privacy_lab.meaningful(eps, delta) else
            " At this ε the guarantee rules out almost no membership test: no meaningful privacy is certified.")
    return (f"Whatever else is in the data, anyone who sees the trained model (and every intermediate step) can "
            f"raise their odds of guessing {who} by at most a factor {odds} (ε = {eps:.3g}), except with a "
            f"probability of at most δ = {delta:.3g}." + weak)


def command(args: dict) -> str:
    """The ``python -m dpviz check …`` command that reproduces ``check(**args)``."""
    parts = ["python -m dpviz check", f"--n {int(args['n'])}"]
    if args.get("batch_size") is not None or args.get("sampling") == "full-batch":
        parts.append(f"--batch-size {int(args.get('batch_size') or args['n'])}")
    elif args.get("sampling_rate") is not None:
        parts.append(f"--sampling-rate {float(args['sampling_rate'])!r}")
    if args.get("steps") is not None:
        parts.append(f"--steps {int(args['steps'])}")
    else:
        parts.append(f"--epochs {float(args['epochs'])!r}")
    if args.get("noise_multiplier") is not None:
        parts.append(f"--noise-multiplier {float(args['noise_multiplier'])!r}")
    else:
        parts.append(f"--sigma {float(args['sigma'])!r} --clip-norm {float(args['clip_norm'])!r}")
    parts.append(f"--delta {float(args['delta'])!r}")
    if args.get("target_eps"):
        parts.append(f"--target-eps {float(args['target_eps'])!r}")
    parts.append(f"--sampling {args.get('sampling', 'poisson')}")
    parts.append(f"--neighbouring {args.get('neighbouring', 'add-remove')}")
    return " ".join(parts) + " --json"


def check(*, curve: bool = False, search: bool = True, tick=None, **kwargs) -> dict:
    """Everything the page and ``python -m dpviz check --json`` show (keyword arguments as :func:`resolve`).

    ``{"meets_target", "verdict", "target_eps", "eps_upper", "eps_lower", "eps_rdp", "accountant",
    "noise_multiplier_for_target": {"lower", "upper", "rdp", "method"}, "max_epochs_at_target",
    "max_steps_at_target", "steps", "sampling_prob", "epochs", "noise_multiplier", "delta", "sampling",
    "neighbouring", "notes", "sentence", "delta_warning", "seconds"}`` and, with shuffled batches,
    ``"eps_lower_shuffle"``, ``"eps_poisson_upper"``, ``"eps_poisson_lower"``, ``"poisson_reportable"``,
    ``"citations"``; with ``curve=True`` also ``"curve"`` (:func:`eps_vs_epochs`).  ``search=False`` skips the
    noise search and the most epochs (the quick verdict).  ``tick`` (no arguments), if given, is called between the
    search's and the curve's evaluations (see :func:`noise_for_target`); it changes no number."""
    t0 = time.perf_counter()
    run = resolve(**kwargs)
    eps = epsilon_at(run)
    meets, verdict = _verdict(eps, run.target)
    out = {
        "meets_target": meets, "verdict": verdict, "target_eps": run.target,
        "eps_upper": eps["eps_upper"], "eps_lower": eps["eps_lower"], "eps_rdp": eps["eps_rdp"],
        "accountant": eps["accountant"], "steps": run.steps, "sampling_prob": run.q, "batch_size": run.b,
        "epochs": run.epochs, "n": run.n, "noise_multiplier": run.z, "delta": run.delta,
        "sampling": run.sampling, "neighbouring": run.neighbouring, "notes": list(eps["notes"]),
        "delta_warning": (f"δ = {run.delta:.3g} is not much smaller than 1/n = {1.0 / run.n:.3g}: a mechanism "
                          "that publishes one random example outright satisfies (0, 1/n)-DP, so δ ≥ 1/n allows "
                          "leaking whole examples. Use δ well below 1/n (1/n² or smaller is usual)."
                          if run.delta >= 1.0 / run.n else None),
    }
    if run.sampling == "shuffle":
        out["eps_lower_shuffle"] = eps.get("eps_lower_shuffle")
        out["eps_poisson_upper"] = eps.get("eps_poisson_upper")
        out["eps_poisson_lower"] = eps.get("eps_poisson_lower")
        out["uses_per_example"] = eps["uses"]
        pu = out["eps_poisson_upper"]
        out["poisson_reportable"] = not (pu is not None and out["eps_lower_shuffle"] is not None
                                         and out["eps_lower_shuffle"] > pu)
        out["citations"] = list(CITATIONS)
        out["notes"].insert(0, (
            "Shuffled batches: the Poisson ε is not a proven guarantee for this loader. The certified upper bound "
            f"counts each example's {eps['uses']} uses (once per epoch) as Gaussian mechanisms without any "
            "amplification by sampling; the certified lower bound comes from a specific pair of neighbouring data "
            "sets (" + "; ".join(CITATIONS) + ")."))
        if not out["poisson_reportable"]:
            out["notes"].insert(1, (
                f"The shuffled run's ε is at least {out['eps_lower_shuffle']:.4g}, above the Poisson upper bound "
                f"{pu:.4g}: the Poisson number cannot be reported for this loader."))
    if search:
        out["noise_multiplier_for_target"] = noise_for_target(run, tick)
        me = max_epochs(run, tick)
        out["max_epochs_at_target"], out["max_steps_at_target"] = me["epochs"], me["steps"]
        out["steps_exceeding_target"] = me["steps_exceeding"]
    else:
        out["noise_multiplier_for_target"] = {"lower": None, "upper": None, "rdp": None, "method": "not searched"}
        out["max_epochs_at_target"] = out["max_steps_at_target"] = out["steps_exceeding_target"] = None
    out["sentence"] = plain_sentence(out["eps_upper"], run.delta, run.neighbouring) if out["eps_upper"] is not None \
        else None
    if curve:
        out["curve"] = eps_vs_epochs(run, tick=tick)
    out["seconds"] = time.perf_counter() - t0
    return out


# ---------------------------------------------------------------------------------------------------------------
# Utility: the seed papers' excess-risk bounds where they cover the run

#: the theorem that covers a run with one example per step (convex Lipschitz losses on a ball of radius R)
UTILITY_THEOREM = "wang-nonsmooth-thm12"
UTILITY_ASSUMPTIONS = (
    "convex, non-negative loss that is G-Lipschitz (Hölder-smooth with α = 0: no smoothness needed); a minimiser "
    "w* with ‖w*‖ ≤ R; one example drawn uniformly per step, replace-one neighbours; the paper's own schedule "
    "(T = n² steps, its step size and its noise σ for (ε, δ)), not necessarily yours; a rate: the paper's O(·) with "
    "its unspecified constants set to 1; holds with probability 1 − γ, γ = 0.05")
#: where the nearest covered settings are (page, what to set), shown when no theorem covers the run
NEAREST = {
    "mini-batch": ("Bounds", "wang-nonsmooth-thm12",
                   "nearest covered setting: batch size 1 (one example per step) — Wang, Lei, Ying & Zhang "
                   "(wang-nonsmooth), Theorem 12, on the Bounds page; Simulate runs the same algorithm"),
    "full-batch": ("Bounds", "xue-pairwise-thm2",
                   "nearest covered setting: full-batch gradient descent for *pairwise* losses — Xue, Yang, Huai & "
                   "Wang (xue-pairwise), Theorem 2, on the Bounds page (no seed paper analyses full-batch DP-GD "
                   "for ordinary, pointwise losses)"),
}


def utility(*, n, d, eps, delta, G, R, batch_size, sampling) -> dict:
    """The excess-risk bound of the seed-paper theorem that covers this run, or why none does.

    Covered: one example per step drawn uniformly (``fixed-size`` sampling with batch size 1) — Wang, Lei, Ying &
    Zhang (wang-nonsmooth), Theorem 12 (DP-SGD, Algorithm 2, for convex non-negative α-Hölder-smooth losses; α = 0
    is the G-Lipschitz non-smooth case), evaluated by :func:`dpviz.theory.catalog.bound` at n, d, ε, δ and the
    radius R.  Mini-batches and the full batch are covered by no seed theorem for pointwise losses; the nearest
    covered setting is named (:data:`NEAREST`).  Returns ``{"covered", "theorem", "cite", "assumptions", "bound",
    "terms", "T", "reason", "nearest"}``."""
    from dpviz.theory import catalog

    n = v.check_n(n)
    G = v.check_positive("G (Lipschitz constant = clipping norm)", G)
    if sampling == "fixed-size" and int(batch_size) == 1:
        th = catalog.get_theorem(UTILITY_THEOREM)
        res = catalog.bound(UTILITY_THEOREM, n=n, d=d, eps=eps, delta=delta, alpha=0.0, R=R, L=G / 2.0, M=G / 2.0)
        return {"covered": True, "theorem": UTILITY_THEOREM, "cite": f"{th.paper.cite()}, {th.number}",
                "assumptions": UTILITY_ASSUMPTIONS, "bound": float(res.total),
                "terms": {t.name: float(t.value) for t in res.terms}, "T": res.T, "reason": None, "nearest": None}
    kind = "full-batch" if sampling == "full-batch" or int(batch_size) >= n else "mini-batch"
    if kind == "full-batch":
        reason = "No seed paper bounds the excess risk of full-batch DP gradient descent for pointwise losses."
    elif int(batch_size) == 1:
        reason = (f"One example per step is covered only with each step's example drawn uniformly afresh "
                  f"(fixed-size batches of 1); with {sampling.replace('-', ' ')} sampling no seed theorem applies.")
    else:
        reason = (f"No seed-paper theorem covers mini-batches of {int(batch_size)} examples: the five papers analyse "
                  "one example (or pair) per step, or the full batch.")
    page, tid, text = NEAREST[kind]
    return {"covered": False, "theorem": None, "cite": None, "assumptions": None, "bound": None, "terms": None,
            "T": None, "reason": reason, "nearest": {"page": page, "theorem": tid, "text": text}}


# ---------------------------------------------------------------------------------------------------------------
# The paste box: an Opacus / TF Privacy call or JSON / YAML, read as data (never evaluated)

#: longest pasted text read (characters)
MAX_PASTE = 5000
#: pasted name -> form field
_NAMES = {
    "n": "n", "N": "n", "num_examples": "n", "dataset_size": "n", "n_samples": "n",
    "batch_size": "batch_size", "expected_batch_size": "batch_size",
    "sample_rate": "sampling_rate", "sampling_rate": "sampling_rate", "sampling_probability": "sampling_rate",
    "noise_multiplier": "noise_multiplier", "sigma": "sigma",
    "max_grad_norm": "clip_norm", "l2_norm_clip": "clip_norm", "clip_norm": "clip_norm", "clipping_norm": "clip_norm",
    "epochs": "epochs", "num_epochs": "epochs", "steps": "steps", "num_steps": "steps",
    "delta": "delta", "target_delta": "delta", "target_epsilon": "target_eps", "target_eps": "target_eps",
    "epsilon": "target_eps", "eps": "target_eps",
    "poisson_sampling": "poisson_sampling", "sampling": "sampling", "neighbouring": "neighbouring",
    "neighboring": "neighbouring", "used_microbatching": "ignored-known",
}
#: positional arguments of TF Privacy's compute_dp_sgd_privacy(n, batch_size, noise_multiplier, epochs, delta)
_POSITIONAL = {"compute_dp_sgd_privacy": ("n", "batch_size", "noise_multiplier", "epochs", "delta"),
               "compute_dp_sgd_privacy_statement": ("number_of_examples", "batch_size", "num_epochs",
                                                    "noise_multiplier", "delta")}
_FUNCTIONS = ("make_private", "make_private_with_epsilon", "compute_dp_sgd_privacy",
              "compute_dp_sgd_privacy_statement")
_NAMES.update({"number_of_examples": "n"})


def _call_of(text: str):
    """The ast.Call of a pasted ``f(...)``, ``x.f(...)`` or ``a, b = x.f(...)`` (None if it is not one)."""
    try:
        tree = ast.parse(text, mode="exec")
    except (SyntaxError, ValueError, MemoryError, RecursionError):
        return None
    if len(tree.body) != 1 or not isinstance(tree.body[0], (ast.Expr, ast.Assign)):
        return None
    node = tree.body[0].value
    return node if isinstance(node, ast.Call) else None


def _fname(call: ast.Call) -> str:
    f = call.func
    if isinstance(f, ast.Attribute):
        return f.attr
    if isinstance(f, ast.Name):
        return f.id
    return "?"


def parse_pasted(text: str) -> dict:
    """Read a pasted Opacus ``make_private(...)`` / ``make_private_with_epsilon(...)`` call, a TF Privacy
    ``compute_dp_sgd_privacy(...)`` call, or JSON / YAML with the same names.  Nothing is evaluated: a call is parsed
    with :mod:`ast` and only literal arguments (numbers, strings, booleans) are read, one by one, with
    :func:`ast.literal_eval`; JSON with :func:`json.loads`, YAML with ``yaml.safe_load``.

    Returns ``{"fields": {form field: value}, "ignored": [names that could not be used, with why], "source"}``;
    raises ``ValueError`` when the text is none of these."""
    if not isinstance(text, str):
        raise ValueError("paste text.")
    if len(text) > MAX_PASTE:
        raise ValueError(f"the pasted text is {len(text)} characters long; at most {MAX_PASTE} are read.")
    text = text.strip()
    if not text:
        raise ValueError("the paste box is empty.")
    pairs: list[tuple[str, object, bool]] = []  # (name, value, literal?)
    ignored: list[str] = []
    call = _call_of(text) if "(" in text else None
    if call is not None:
        fname = _fname(call)
        source = f"{fname}(...) call"
        if fname not in _FUNCTIONS:
            ignored.append(f"{fname}: not a call dpviz reads (it reads {', '.join(_FUNCTIONS)})")
        names = _POSITIONAL.get(fname, ())
        for i, arg in enumerate(call.args):
            if i < len(names):
                pairs.append((names[i], arg, True))
            else:
                ignored.append(f"positional argument {i + 1}: its name is unknown")
        for kw in call.keywords:
            if kw.arg is None:
                ignored.append("**kwargs: not read")
                continue
            pairs.append((kw.arg, kw.value, True))
    else:
        data = None
        source = None
        try:
            data = json.loads(text)
            source = "JSON"
        except (ValueError, RecursionError):
            try:
                import yaml

                data = yaml.safe_load(text)
                source = "YAML"
            except Exception:  # noqa: BLE001 (any YAML error: not YAML)
                data = None
        if not isinstance(data, dict):
            raise ValueError("this is not an Opacus make_private(...) / make_private_with_epsilon(...) call, a TF "
                             "Privacy compute_dp_sgd_privacy(...) call, or JSON / YAML with names such as n, "
                             "batch_size, noise_multiplier, epochs, delta.")
        pairs = [(str(k), val, False) for k, val in data.items()]
    fields: dict = {}
    for name, raw, is_node in pairs:
        shown_name = name[:40]
        if is_node:
            try:
                value = ast.literal_eval(raw)
            except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
                ignored.append(f"{shown_name}: not a literal value (a variable or an expression is not evaluated)")
                continue
        else:
            value = raw
        field = _NAMES.get(name)
        if field is None:
            ignored.append(f"{shown_name}: not a setting of the privacy check")
            continue
        if field == "ignored-known":
            ignored.append(f"{shown_name}: does not change the privacy accounting here")
            continue
        if field == "poisson_sampling":
            if isinstance(value, bool):
                fields["sampling"] = "poisson" if value else "shuffle"
            else:
                ignored.append(f"{shown_name}: expected True or False")
            continue
        if field in ("sampling", "neighbouring"):
            allowed = SAMPLINGS if field == "sampling" else NEIGHBOURINGS
            if isinstance(value, str) and value in allowed:
                fields[field] = value
            else:
                ignored.append(f"{shown_name}: expected one of {', '.join(allowed)}")
            continue
        if isinstance(value, bool) or not isinstance(value, (int, float, str)):
            ignored.append(f"{shown_name}: expected a number")
            continue
        try:
            from dpviz.foundation import urlstate

            num = urlstate.parse_number(value) if isinstance(value, str) else float(value)
        except ValueError:
            ignored.append(f"{shown_name}: expected a number")
            continue
        if not math.isfinite(num):
            ignored.append(f"{shown_name}: not a finite number")
            continue
        fields[field] = num
    if call is not None and _fname(call) in ("make_private", "make_private_with_epsilon") and "sampling" not in fields:
        fields["sampling"] = "poisson"  # Opacus' default poisson_sampling=True
    return {"fields": fields, "ignored": ignored, "source": source}


def statement(args: dict) -> str:
    """The plain-language privacy statement of the run ``args`` (keyword arguments of :func:`check`), ending with
    the ``python -m dpviz check … --statement`` command that recomputes it.  Poisson, fixed-size and full-batch
    runs: :func:`dpviz.labs.privacy_lab.statement` of the same mechanism; shuffled batches: the certified upper
    bound without amplification, the certified lower bound, and why the Poisson ε is not a guarantee for it."""
    from dpviz.foundation.rounding import fmt_bound
    from dpviz.labs import privacy_lab

    run = resolve(**{k: val for k, val in args.items() if k not in ("curve", "search")})
    cmd = command(args).removesuffix(" --json") + " --statement"
    if run.sampling != "shuffle":
        out = privacy_lab.calculator(n=run.n, noise_multiplier=run.z, delta=run.delta,
                                     batch_size=run.n if run.sampling == "full-batch" else run.b, steps=run.steps,
                                     sampling="without-replacement" if run.sampling == "fixed-size" else "poisson",
                                     neighbouring=run.neighbouring)
        return privacy_lab.statement(out, cmd)
    e = epsilon_at(run)
    who = ("one example is added to or removed from the training data (its slot kept with a zero gradient: the "
           "zero-out relation)" if run.neighbouring == "add-remove"
           else "one example of the training data is replaced by another")
    weak = "" if privacy_lab.meaningful(e["eps_upper"], run.delta) else (
        "NO meaningful privacy is certified (at this ε the guarantee rules out almost no membership test). ")
    lines = [
        "Privacy statement (DP-SGD with shuffled batches, computed by dpviz)",
        "",
        f"Guarantee: {weak}the training run is (ε, δ)-differentially private with ε = {fmt_bound(e['eps_upper'], up=True)} "
        f"and δ = {fmt_bound(run.delta, up=True, digits=3)} — the certified upper bound: each example is used "
        f"{e['uses']} times (once per epoch), counted as that many Gaussian mechanisms without any amplification by "
        "sampling.",
        f"What is protected: any single training example; an observer of the trained model cannot tell whether {who}, "
        "beyond what (ε, δ) allows.",
        f"Mechanism: {run.steps} steps; each epoch a fresh random order of the n = {run.n} examples cut into "
        f"{run.steps_per_epoch} batches of {run.b}; per-example gradients clipped to norm C, Gaussian noise of "
        f"standard deviation {run.z:g}·C added to each batch's sum.",
        f"Not better than: ε ≥ {fmt_bound(e['eps_lower_shuffle'], up=False)} — a certified lower bound from a "
        "specific pair of neighbouring data sets (" + "; ".join(CITATIONS) + ").",
    ]
    pu = e.get("eps_poisson_upper")
    if pu is not None:
        lines.append(f"The ε of Poisson sampling at the same batch size and steps, ε = {fmt_bound(pu, up=True)}, is "
                     "NOT a guarantee for this loader" + (
                         f": the shuffled run's ε is at least {fmt_bound(e['eps_lower_shuffle'], up=False)}, above it."
                         if e["eps_lower_shuffle"] > pu else "."))
    lines += ["Covered: the final model and every intermediate iterate. Not covered: hyper-parameter tuning and any "
              "other use of the data; implementation flaws such as floating-point attacks on the noise.",
              "", f"Recompute: {cmd}"]
    return "\n".join(lines) + "\n"
