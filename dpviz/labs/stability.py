"""Measured stability / sensitivity on neighbouring data sets, beside the papers' bounds.

Coupled chains run on S (the first n training rows) and S' (S with one example replaced) with the same indices and
the same noise (:func:`dpviz.engine.simulate.run_chains` with ``coupled=True``); over ``reps`` repetitions we record the
distance between the two runs' outputs -- exactly the quantity the papers bound:

* ``pairwise-sgd``, ``pairwise-sgd-output`` -- Yang, Lei, Lyu & Ying (yang-pairwise), Theorem 1: eq. (9) bounds the
  ℓ2-distance of the averaged outputs w̄_T, w̄'_T with probability 1 − γ (T >= n; for T < n the bound re-derived from
  the proof of eq. (3), see :func:`dpviz.theory.papers.yang_pairwise.sensitivity`), and eq. (3) the distance of the
  iterates ‖w_{t+1} − w'_{t+1}‖ (shown along t);
* ``sgd``, ``dpsgd-output`` -- Wang, Lei, Ying & Zhang (wang-nonsmooth), Theorem 7: the uniform argument stability
  of projected SGD with α-Hölder smooth losses, with probability 1 − γ (bounded domain, Theorem 7 (b), needs R);
* ``dpsgd-rdp``, ``dpsgd-pl`` -- the gradient sensitivity 2G of Wang, Lei, Ying & Zhou (wang-lownoise), proof of
  Theorem 2 (and of Kang, Li, Liu & Wang's DP-SGD): sup_w ‖∇f(w; z) − ∇f(w; z')‖ <= 2G for a G-Lipschitz loss.  It is
  deterministic; we measure ‖∇f(w_t; z) − ∇f(w_t; z')‖ at every iterate w_t of the chain on S (z, z' the replaced and
  the replacing example).  The distance of the outputs is shown too (no paper bounds it).

* ``dpgd-sc`` -- Xue, Yang, Huai & Wang (xue-pairwise), Lemma 1: the last PGD iterate moves by at most 8G/(μn)
  (eq. (3)); along t the sharper bound of its proof, eq. (4) unrolled (:func:`dpviz.theory.papers.xue_pairwise.stability_lemma1`);
* ``dpgdc`` -- the same paper, Lemma 7, eq. (7): ‖w_t − w'_t‖ <= 4ηGt/n, so the average of w_1..w_T released by
  Algorithm 4 moves by at most 4ηGT/n;
* ``dp-epoch-gd`` -- Lemma 7 with T_i = n_i (proof of Theorem 3): the epoch holding the replaced example moves its
  average by at most 4Gη_i, and the later epochs (same data, same noise) are non-expansive
  (:func:`dpviz.theory.papers.xue_pairwise.epoch_stability`);
* ``dpgd-c`` -- the same paper, proof of Lemma 1: the full pairwise gradient changes by at most 4G/n
  (Algorithm 2 adds its Gaussian noise to it); measured at every iterate of the chain on S.

All four Xue et al. bounds are deterministic and need a convex, L-smooth, G-Lipschitz loss (μ-strongly convex for
Lemma 1) and η <= 2/L (2/(L + μ) for Lemma 1); the lab runs them with the smooth AUC square loss.

Neighbours: ``"random"`` replaces a uniformly chosen example by a fresh example of the data set's evaluation sample;
``"adversarial"`` replaces the example of largest norm by its reflection x' = −x (same label), far away.

Because output perturbation calibrates σ linearly in the sensitivity bound Δ (σ = c Δ), the σ that the *measured*
sensitivity would justify is σ_calibrated × measured / Δ.  This is NOT a privacy guarantee: a measurement on one
pair of data sets is not a supremum over all neighbouring pairs.
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass, field
from typing import Any, Callable

import numpy as np

from dpviz.foundation import validate as v
from dpviz.engine import simulate as sim

__all__ = ["stability", "StabilityResult", "SUPPORTED", "neighbour_pair", "stability_sweep", "SweepResult", "OVER",
           "alpha_loss", "precheck"]

#: algorithm id -> (what is bounded, theorem label)
SUPPORTED: dict[str, tuple[str, str]] = {
    "pairwise-sgd": ("average", "Yang, Lei, Lyu & Ying (yang-pairwise), Theorem 1, eq. (9)"),
    "pairwise-sgd-output": ("average", "Yang, Lei, Lyu & Ying (yang-pairwise), Theorem 1, eq. (9)"),
    "sgd": ("average", "Wang, Lei, Ying & Zhang (wang-nonsmooth), Theorem 7 (b)"),
    "dpsgd-output": ("average", "Wang, Lei, Ying & Zhang (wang-nonsmooth), Theorem 7 (b)"),
    "dpsgd-rdp": ("gradient", "Wang, Lei, Ying & Zhou (wang-lownoise), gradient sensitivity 2G (proof of Theorem 2)"),
    "dpsgd-pl": ("gradient", "Wang, Lei, Ying & Zhou (wang-lownoise), gradient sensitivity 2G (as in Kang, Li, Liu "
                             "& Wang's DP-SGD)"),
    "dpgd-sc": ("last", "Xue, Yang, Huai & Wang (xue-pairwise), Lemma 1, eq. (3): 8G/(μn)"),
    "dpgdc": ("average", "Xue, Yang, Huai & Wang (xue-pairwise), Lemma 7, eq. (7): 4ηGT/n for the average of "
                         "w_1..w_T (Algorithm 4)"),
    "dp-epoch-gd": ("output", "Xue, Yang, Huai & Wang (xue-pairwise), Lemma 7 with T_i = n_i (proof of Theorem 3): "
                              "4Gη_i for the epoch holding the replaced example"),
    "dpgd-c": ("gradient", "Xue, Yang, Huai & Wang (xue-pairwise), proof of Lemma 1: full pairwise gradient "
                           "sensitivity 4G/n (Algorithm 2)"),
}
#: algorithms whose gradient path is deterministic (output perturbation of full-batch PGD): every repetition of the
#: coupled pair gives the same distance, so two are run whatever ``reps`` says
DETERMINISTIC_PATH = ("dpgd-sc", "dpgdc")
#: the bound drawn along t (``StabilityResult.trace_bound``), by algorithm
TRACE_LABEL = {"pairwise-sgd": "Yang et al. Theorem 1, eq. (3)", "pairwise-sgd-output": "Yang et al. Theorem 1, eq. (3)",
               "dpgd-sc": "Xue et al. Lemma 1, eq. (4) unrolled", "dpgdc": "Xue et al. Lemma 7, eq. (7)"}


@dataclass
class StabilityResult:
    """Outcome of :func:`stability`; ``to_dict()`` starts with the CLI's JSON contract."""

    algorithm: str
    theorem: str
    bound: float
    empirical: dict[str, float]
    neighbour: str
    seconds: float
    quantity: str = ""
    deterministic: bool = False
    gamma: float = 0.05
    empirical_level: float = float("nan")  # the empirical (1 - gamma) quantile
    exceed_fraction: float = 0.0  # fraction of repetitions above the bound
    ratio: float = float("nan")  # bound / measured max
    sigma_calibrated: float | None = None
    sigma_justified: float | None = None
    distances: dict[str, np.ndarray] = field(default_factory=dict)  # per repetition: output / last / average
    trace_t: np.ndarray | None = None  # t = 1..T
    trace_max: np.ndarray | None = None  # max over reps of ||w_t - w'_t||
    trace_q50: np.ndarray | None = None
    trace_bound: np.ndarray | None = None  # eq. (3) of yang-pairwise along t, if it applies
    reps: int = 0
    index: int = 0
    notes: list[str] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        def f(x):
            return None if x is None or (isinstance(x, float) and not math.isfinite(x)) else x

        out = {"algorithm": self.algorithm, "theorem": self.theorem, "bound": f(self.bound),
               "empirical": {k: f(float(x)) for k, x in self.empirical.items()}, "neighbour": self.neighbour,
               "seconds": self.seconds}
        out.update({"quantity": self.quantity, "deterministic": self.deterministic, "gamma": self.gamma,
                    "empirical_level": f(self.empirical_level), "exceed_fraction": self.exceed_fraction,
                    "ratio": f(self.ratio), "sigma_calibrated": f(self.sigma_calibrated),
                    "sigma_justified": f(self.sigma_justified), "reps": self.reps, "index": self.index,
                    "max_by_output": {k: float(np.max(x)) for k, x in self.distances.items()},
                    "notes": list(self.notes)})
        return out


def neighbour_pair(data, n: int, kind: str, seed: int):
    """(X, y), (X', y') and the replaced index: S = the data set's rows, S' with row i replaced (see module doc)."""
    if kind not in ("random", "adversarial"):
        raise ValueError(f"neighbour must be 'random' or 'adversarial', got {kind!r}.")
    X, y = np.asarray(data.X, float).copy(), np.asarray(data.y, float).copy()
    X2, y2 = X.copy(), y.copy()
    if kind == "random":
        rng = np.random.Generator(np.random.PCG64(np.random.SeedSequence([seed, 7])))
        i = int(rng.integers(0, n))
        j = int(rng.integers(0, len(data.y_test)))
        X2[i], y2[i] = np.asarray(data.X_test, float)[j], float(np.asarray(data.y_test, float)[j])
    else:
        i = int(np.argmax(np.linalg.norm(X[:n], axis=1)))
        X2[i] = -X[i]
    return (X, y), (X2, y2), i


def _need(p, *names):
    for k in names:
        if p.get(k) is None:
            raise ValueError(f"the bound needs the loss constant {k} (give R so the loss reports it, or give {k}).")


def _bound(algorithm_id, p, gamma, T, index=0):
    """(bound, deterministic?, note) from the theorem parameters p of the plan (``index``: the replaced example)."""
    from dpviz.theory.papers import wang_nonsmooth, xue_pairwise, yang_pairwise

    n, eta = p["n"], p["eta"]
    if algorithm_id == "dpgd-sc":
        _need(p, "G", "mu")
        return xue_pairwise.stability_lemma1_printed(n=n, G=p["G"], mu=p["mu"]), True, ""
    if algorithm_id == "dpgdc":
        _need(p, "G")
        return xue_pairwise.stability_lemma7(n=n, t=T, eta=eta, G=p["G"], L=p.get("L")), True, ""
    if algorithm_id == "dp-epoch-gd":
        _need(p, "G")
        b, i = xue_pairwise.epoch_stability(n=n, eta=eta, G=p["G"], index=index, L=p.get("L"))
        return b, True, f"the replaced example lies in block D_{i} (epoch {i}, eta_{i} = eta 4^-{i} = {eta * 4.0**-i:.4g})"
    if algorithm_id == "dpgd-c":
        _need(p, "G")
        return xue_pairwise.pairwise_gradient_sensitivity(n=n, G=p["G"]), True, ""
    if algorithm_id in ("pairwise-sgd", "pairwise-sgd-output"):
        if p.get("G") is None:
            raise ValueError("the bound needs the Lipschitz constant G (give R, or G).")
        corrected = T < n
        b = yang_pairwise.sensitivity(n=n, T=T, eta=eta, G=p["G"], gamma=gamma, corrected=corrected)
        note = ("T < n: eq. (9) assumes T >= n, the bound re-derived from the proof of eq. (3) is used"
                if corrected else "")
        return b, False, note
    if algorithm_id in ("sgd", "dpsgd-output"):
        if p.get("R") is None:
            raise ValueError("Theorem 7 (b) bounds projected SGD on a ball: give the domain radius R.")
        for k in ("L", "M", "alpha"):
            if p.get(k) is None:
                raise ValueError(f"Theorem 7 needs the loss constant {k}.")
        b = wang_nonsmooth.sgd_sensitivity(n=n, T=T, eta=eta, L=p["L"], M=p["M"], alpha=p["alpha"], gamma=gamma,
                                           R=p["R"], bounded_domain=True)
        return b, False, ""
    if p.get("G") is None:
        raise ValueError("the gradient sensitivity 2G needs the Lipschitz constant G (give R, or G).")
    return 2.0 * float(p["G"]), True, ""


def _gradient_gap(algorithm_id, lossobj, w, X, y, X2, y2, i, n):
    """‖g(w; S) − g(w; S')‖ per chain for the gradient an update uses at w (shape (..., reps, d)).

    Pointwise DP-SGD: the gradient of the replaced example, ∇f(w; z_i) − ∇f(w; z'_i).  DPGDC2 (``dpgd-c``, Xue et al.
    Algorithm 2): the full pairwise gradient, of which only the 2(n − 1) ordered pairs holding example i change:
    (1/(n(n−1))) Σ_{j≠i} [∇ℓ(w; z_j, z_i) + ∇ℓ(w; z_i, z_j) − ∇ℓ(w; z_j, z'_i) − ∇ℓ(w; z'_i, z_j)].
    ``X, y`` (and the primed ones) are (..., n_rows, d) / (..., n_rows) with the example at row i; ``w`` is
    (..., reps, d); returns (..., reps).
    """
    if algorithm_id != "dpgd-c":
        g = lossobj.grad(w, X[..., i:i + 1, :], y[..., i:i + 1]) - lossobj.grad(w, X2[..., i:i + 1, :],
                                                                                y2[..., i:i + 1])
        return np.linalg.norm(g.reshape(g.shape[:-1] + (-1,)), axis=-1) if g.ndim > 1 else np.abs(g)
    others = [j for j in range(n) if j != i]
    Xo, yo = X[..., others, :], y[..., others]  # (..., n - 1, d)
    we = w[..., :, None, :]  # (..., reps, 1, d)
    Xo_, yo_ = Xo[..., None, :, :], yo[..., None, :]
    xi, yi = X[..., None, i:i + 1, :], y[..., None, i:i + 1]
    xi2, yi2 = X2[..., None, i:i + 1, :], y2[..., None, i:i + 1]
    diff = (lossobj.grad(we, Xo_, yo_, xi, yi) + lossobj.grad(we, xi, yi, Xo_, yo_)
            - lossobj.grad(we, Xo_, yo_, xi2, yi2) - lossobj.grad(we, xi2, yi2, Xo_, yo_)).sum(axis=-2)
    return np.linalg.norm(diff / (n * (n - 1)), axis=-1)


def precheck(algorithm_id: str, data, loss, *, params=None, reps: int = 200, seed: int = 0,
             neighbour: str = "random", gamma: float = 0.05, over: str | None = None, values=None,
             max_work: float | None = sim.DEFAULT_MAX_WORK, max_bytes: float | None = None, base: bool = True) -> None:
    """Check everything :func:`stability` (and, with ``over`` / ``values``, :func:`stability_sweep`) would refuse,
    without running a chain: the inputs, the theorem's conditions at every setting (its bound is evaluated at the
    calibrated n, T and eta of each value), the memory (``max_bytes``, :func:`dpviz.labs.canary_audit.check_memory`) and the
    work (``max_work``); ``base=False`` skips the single run at ``params`` (a sweep alone).  Raises ValueError
    (``sim.CostTooHigh`` for the cost) naming the input."""
    from dpviz.labs import canary_audit as aud

    if algorithm_id not in SUPPORTED:
        raise ValueError(f"stability is measured for {', '.join(SUPPORTED)}; got {algorithm_id!r}.")
    reps = v.check_int("reps", reps, minimum=2)
    seed = v.check_int("seed", seed, minimum=0)
    gamma = v.check_open_unit("gamma", gamma)
    if neighbour not in ("random", "adversarial"):
        raise ValueError(f"neighbour must be 'random' or 'adversarial', got {str(neighbour)[:40]!r}.")
    params = dict(params or {})
    if algorithm_id in DETERMINISTIC_PATH:
        reps = 2
    quantity = SUPPORTED[algorithm_id][0]
    settings = [(loss, None, None)] if base or over is None else []  # (loss, grid, label) of each run
    if over is not None:
        vals = _check_values(over, values)
        if over == "alpha":
            from dpviz.engine.losses import get_loss

            family = alpha_loss(loss, data.task)
            settings += [(get_loss(family, q=1.0 + a), None, f"alpha = {a:g}") for a in vals]
        else:
            if over == "n" and max(vals) > data.n:
                raise ValueError(f"n = {max(vals)} exceeds the {data.n} training examples of the data set.")
            settings.append((loss, {over: vals}, None))
    for lossobj, grid, label in settings:
        _, spec, _, _, _, _, gvals, pshape, R, plans, _ = sim._plan(algorithm_id, data, lossobj, grid, reps, params)
        blocks = 2 * len(plans)
        T = max(int(pl["T"]) for pl in plans if pl["run"]) if any(pl["run"] for pl in plans) else 1
        per_chain = T / 2 if quantity == "gradient" and grid is None else 0.0  # the per-step gradient gaps
        what = f"{v.shown(reps)} repetitions" + (f" at {len(plans)} values of {over}" if grid else "")
        aud.check_memory(algorithm_id, data, lossobj, chains=blocks * reps, max_bytes=max_bytes, what=what,
                         reduce="the repetitions" + (" or the values" if grid else ""), per_chain_floats=per_chain)
        work = blocks * sim._work(algorithm_id, spec, reps, pshape, plans, evaluate=())
        if max_work is not None and work > max_work:
            raise sim.CostTooHigh(
                f"{what} need about {work:.3g} work units (~{work * sim.SECONDS_PER_UNIT:.0f} s), above the cap of "
                f"{max_work:.3g} (~{max_work * sim.SECONDS_PER_UNIT:.0f} s); reduce repetitions, grid values, T or n.")
        for k, pl in enumerate(plans):
            at = label or (f"{over} = {v.shown(gvals[k])}" if grid else "")
            if not pl["run"]:
                raise ValueError(f"the calibration is infeasible{' at ' + at if at else ''}, nothing to run: "
                                 f"{pl['cal'].reason}")
            _, _, i = neighbour_pair(data, pl["n"], neighbour, seed)
            p = {**pl["cal"].extras.get("_params", {}), "n": pl["n"], "eta": pl["eta"], "R": params.get("R", R)}
            try:
                _bound(algorithm_id, p, gamma, int(pl["T"]), index=i)
            except ValueError as exc:
                raise ValueError(f"{at}: {exc}" if at else str(exc)) from None


def stability(algorithm_id: str, data, loss, *, params=None, reps: int = 200, seed: int = 0,
              neighbour: str = "random", gamma: float = 0.05, progress: Callable[[float], None] | None = None,
              cancel=None, max_work: float | None = sim.DEFAULT_MAX_WORK,
              max_bytes: float | None = None) -> StabilityResult:
    """Coupled runs on S and S' (same indices, same noise): distance distribution beside the paper's bound.

    ``params`` as for :func:`dpviz.engine.simulate.simulate`; ``gamma`` the failure probability of high-probability
    bounds (the empirical 1 − γ quantile is compared with them).  ``max_bytes``: memory cap (default
    :data:`dpviz.labs.canary_audit.DEFAULT_MAX_BYTES`), checked with every input before anything runs (:func:`precheck`).
    """
    from dpviz.labs import canary_audit as aud

    t0 = time.perf_counter()
    if algorithm_id not in SUPPORTED:
        raise ValueError(f"stability is measured for {', '.join(SUPPORTED)}; got {algorithm_id!r}.")
    reps = v.check_int("reps", reps, minimum=2)
    seed = v.check_int("seed", seed, minimum=0)
    gamma = v.check_open_unit("gamma", gamma)
    params = dict(params or {})
    n = v.check_n(params.get("n", data.n))
    if n > data.n:
        raise ValueError(f"n = {n} exceeds the {data.n} training examples of the data set.")
    quantity, theorem = SUPPORTED[algorithm_id]
    T_mem = int(params.get("T") or n) if quantity == "gradient" else 0
    aud.check_memory(algorithm_id, data, loss, chains=2 * (2 if algorithm_id in DETERMINISTIC_PATH else reps),
                     max_bytes=aud.DEFAULT_MAX_BYTES if max_bytes is None else max_bytes,
                     what=f"{v.shown(reps)} repetitions", reduce="the repetitions", per_chain_floats=T_mem / 2)
    S, S2, i = neighbour_pair(data, n, neighbour, seed)
    lossobj, _ = sim._resolve_loss(loss)
    z, z2 = (S[0][i], S[1][i]), (S2[0][i], S2[1][i])
    grad_gap: list[np.ndarray] = []
    trace_max, trace_q50 = [], []

    S_rows = (np.asarray(S[0][:n]), np.asarray(S[1][:n]), np.asarray(S2[0][:n]), np.asarray(S2[1][:n]))

    def monitor(t, state, ctx):
        w = state["w"]
        gap = np.linalg.norm((w[0] - w[1]).reshape(ctx.reps, -1), axis=1)
        trace_max.append(float(gap.max()))
        trace_q50.append(float(np.median(gap)))
        if quantity == "gradient":
            grad_gap.append(_gradient_gap(algorithm_id, lossobj, w[0], *S_rows, i, n))

    notes0 = []
    if algorithm_id in DETERMINISTIC_PATH and reps > 2:
        notes0.append(f"the PGD path of {algorithm_id} is deterministic (its only noise is added to the output, the same "
                      f"on both sides): every repetition gives the same distance, so 2 were run instead of {reps}.")
        reps = 2
    run = sim.run_chains(algorithm_id, data, loss, datasets=[S, S2], reps=reps, seed=seed, params=params,
                         coupled=True, progress=progress, cancel=cancel, max_work=max_work, monitor=monitor)
    plan = run.plan
    if not plan["run"]:
        raise ValueError(f"the calibration is infeasible, nothing to run: {plan['cal'].reason}")
    p = plan["cal"].extras.get("_params", {})
    p = {**p, "n": plan["n"], "eta": plan["eta"], "R": plan["R"]}
    T = int(plan["T"])
    bound, deterministic, note = _bound(algorithm_id, p, gamma, T, index=i)

    def dist(a):
        return np.linalg.norm((a[0] - a[1]).reshape(reps, -1), axis=1)

    distances = {"output": dist(run.noiseless)}
    if run.last is not None:
        distances.update({"last": dist(run.last), "average": dist(run.average)})
    if quantity == "gradient":
        distances["gradient"] = np.max(np.stack(grad_gap), axis=0) if grad_gap else np.zeros(reps)
    m = distances[quantity]
    emp = {"max": float(m.max()), "q50": float(np.quantile(m, 0.5)), "q95": float(np.quantile(m, 0.95)),
           "q99": float(np.quantile(m, 0.99))}
    sig_cal = float(plan["sigma"]) if algorithm_id not in ("sgd", "pairwise-sgd") and plan["sigma"] else None
    if algorithm_id == "dp-epoch-gd" and sig_cal is not None and plan["cal"].sigma_schedule:
        from dpviz.theory.papers import xue_pairwise

        # epoch i's noise sigma_i is calibrated to its own sensitivity 4 G eta_i
        sig_cal = float(plan["cal"].sigma_schedule[xue_pairwise.epoch_stability(n=n, eta=plan["eta"], G=p["G"],
                                                                                index=i)[1] - 1])
    sig_just = sig_cal * emp["max"] / bound if (sig_cal is not None and bound > 0) else None
    notes = [f"S' replaces example {i + 1} ({neighbour}); coupled chains: same indices, same noise, {reps} "
             f"repetitions, seed {seed}."]
    notes += notes0
    if note:
        notes.append(note)
    if sig_just is not None:
        notes.append("sigma_justified = sigma_calibrated x measured / bound: NOT a privacy guarantee (one pair of "
                     "neighbouring data sets, not the supremum over all of them).")
    trace_bound = None
    ts = range(1, len(trace_max) + 1)
    if algorithm_id == "dpgd-sc" and p.get("L") and p.get("mu"):
        from dpviz.theory.papers import xue_pairwise

        # the state after step t is w_t (w_0 = 0): eq. (4) unrolled at t
        trace_bound = np.array([xue_pairwise.stability_lemma1(n=plan["n"], t=t, eta=plan["eta"], G=p["G"],
                                                              L=p["L"], mu=p["mu"]) for t in ts])
    elif algorithm_id == "dpgdc":
        from dpviz.theory.papers import xue_pairwise

        trace_bound = np.array([xue_pairwise.stability_lemma7(n=plan["n"], t=t, eta=plan["eta"], G=p["G"])
                                for t in ts])
    elif algorithm_id in ("pairwise-sgd", "pairwise-sgd-output") and p.get("G"):
        from dpviz.theory.papers import yang_pairwise

        # the state after step t is w_{t+1} (w_1 = 0): eq. (3) at t
        trace_bound = np.array([math.sqrt(yang_pairwise.stability_eq3(n=plan["n"], t=t, eta=plan["eta"], G=p["G"],
                                                                      gamma=gamma)) for t in range(1, T + 1)])
    return StabilityResult(
        algorithm=algorithm_id, theorem=theorem, bound=float(bound), empirical=emp, neighbour=neighbour,
        seconds=time.perf_counter() - t0, quantity=quantity, deterministic=deterministic, gamma=gamma,
        empirical_level=float(np.quantile(m, 1 - gamma)), exceed_fraction=float(np.mean(m > bound)),
        ratio=bound / emp["max"] if emp["max"] > 0 else float("inf"), sigma_calibrated=sig_cal,
        sigma_justified=sig_just, distances=distances, trace_t=np.arange(1, len(trace_max) + 1),
        trace_max=np.array(trace_max), trace_q50=np.array(trace_q50), trace_bound=trace_bound, reps=reps, index=i,
        notes=notes)


# ---------------------------------------------------------------------------------------------------------------
# stability as a function of n, eta or alpha

#: Parameters a stability sweep can vary.  ``alpha`` is the Hölder exponent of the loss's gradient: the sweep uses the
#: q-norm member (q = 1 + alpha, Wang, Lei, Ying & Zhang (wang-nonsmooth), Section 1) of the loss's family.
OVER = ("n", "eta", "alpha")
#: loss family with a Hölder exponent, by setting / task: the q-norm losses (alpha = q - 1)
_ALPHA_FAMILY = {("pointwise", "regression"): "q-regression", ("pointwise", "classification"): "q-norm-hinge",
                 ("pairwise", "classification"): "q-norm-auc-hinge"}


@dataclass
class SweepResult:
    """Outcome of :func:`stability_sweep`: one row per grid value (``rows``), and the distances per grid value."""

    algorithm: str
    theorem: str
    over: str
    values: list[float]
    rows: list[dict[str, Any]]
    neighbour: str
    quantity: str
    deterministic: bool
    gamma: float
    reps: int
    seed: int
    seconds: float
    loss: str = ""
    distances: list[np.ndarray] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)

    def to_list(self) -> list[dict[str, Any]]:
        """The rows as JSON-ready dicts (non-finite numbers as None)."""
        def f(x):
            return None if isinstance(x, float) and not math.isfinite(x) else x

        return [{k: f(x) for k, x in r.items()} for r in self.rows]


def alpha_loss(loss, task: str):
    """The q-norm loss id with a Hölder exponent alpha of ``loss``'s family (``loss`` an id or a loss object)."""
    lossobj, loss_id = sim._resolve_loss(loss)
    if loss_id in _ALPHA_FAMILY.values():
        return loss_id
    key = (getattr(lossobj, "setting", "pointwise"), task)
    if getattr(lossobj, "param", "vector") == "matrix" or key not in _ALPHA_FAMILY:
        raise ValueError(f"the loss {loss_id!r} has no family with a Hölder exponent alpha; sweeps over alpha use "
                         "the q-norm losses (q-regression, q-norm-hinge, q-norm-auc-hinge).")
    return _ALPHA_FAMILY[key]


def _check_values(over, values):
    if over not in OVER:
        raise ValueError(f"a stability sweep varies one of {', '.join(OVER)}; got {over!r}.")
    try:
        vals = [float(x) for x in np.atleast_1d(np.asarray(values, dtype=float))]
    except (TypeError, ValueError):
        raise ValueError(f"the values of {over} must be numbers.") from None
    if not vals:
        raise ValueError(f"give at least one value of {over}.")
    if len(vals) > 12:
        raise ValueError(f"at most 12 values of {over}, got {len(vals)}.")
    if not all(math.isfinite(x) for x in vals):
        raise ValueError(f"the values of {over} must be finite numbers.")
    if over == "n":
        if any(x != int(x) or x < 10 for x in vals):
            raise ValueError("the values of n must be whole numbers >= 10.")
        vals = [int(x) for x in vals]
    elif over == "eta":
        if any(x <= 0 for x in vals):
            raise ValueError("the step sizes eta must be positive.")
    elif any(not 0.0 < x <= 1.0 for x in vals):
        raise ValueError("the Hölder exponents alpha must lie in (0, 1] (q = 1 + alpha of the q-norm losses).")
    if len(set(vals)) != len(vals):
        raise ValueError(f"the values of {over} must be distinct.")
    return sorted(vals)


def _summary(m, bound, gamma):
    mx = float(m.max())
    return {"bound": float(bound), "max": mx, "q50": float(np.quantile(m, 0.5)), "q95": float(np.quantile(m, 0.95)),
            "q99": float(np.quantile(m, 0.99)), "level_quantile": float(np.quantile(m, 1 - gamma)),
            "ratio": float(bound) / mx if mx > 0 else float("inf"), "exceed_fraction": float(np.mean(m > bound))}


def _coupled_grid(algorithm_id, data, loss, *, over, values, params, reps, seed, neighbour, progress, cancel,
                  max_work, quantity):
    """Coupled chains on S and S' at every grid value of n or eta, all in one vectorised batch.

    Every block (grid value x {S, S'}) gets the same random streams, so S and S' at one grid value share indices and
    noise (the coupling), and all grid values share them too (common random numbers: the curve over the grid is not
    blurred by independent noise).  Grid value k's numbers are those of :func:`stability` at that value.
    """
    _, spec, lossobj, _, reps, _, _, pshape, R, plans, _ = sim._plan(algorithm_id, data, loss, {over: values}, reps,
                                                                     params)
    for pl in plans:
        if not pl["run"]:
            raise ValueError(f"at {over} = {pl['grid']:g} the calibration is infeasible, nothing to run: "
                             f"{pl['cal'].reason}")
    K = len(plans)
    pairs, index = [], []
    for pl in plans:
        S, S2, i = neighbour_pair(data, pl["n"], neighbour, seed)
        pairs += [S, S2]
        index.append(i)
    work = 2 * sim._work(algorithm_id, spec, reps, pshape, plans, evaluate=())
    if max_work is not None and work > max_work:
        raise sim.CostTooHigh(
            f"this sweep needs about {work:.3g} work units (~{work * sim.SECONDS_PER_UNIT:.0f} s), above the cap of "
            f"{max_work:.3g} (~{max_work * sim.SECONDS_PER_UNIT:.0f} s); reduce repetitions, grid values, T or n.")
    blocks = [pl for pl in plans for _ in range(2)]
    ctx = sim._Chains(lossobj=lossobj, spec=spec, X=np.stack([p[0] for p in pairs]),
                      y=np.stack([p[1] for p in pairs]), plans=blocks, reps=reps, pshape=pshape, R=R,
                      rngs=sim._streams(seed, 2 * K, coupled=True), track_average=True)
    rule = sim.RULES[algorithm_id]
    rows = [tuple(np.asarray(a)[:pl["n"]] for a in (*pairs[2 * k], *pairs[2 * k + 1]))
            for k, pl in enumerate(plans)]
    gap = np.zeros((K, reps))

    def monitor(t, state, c):
        if quantity == "gradient":
            for k, pl in enumerate(plans):
                if t < c.Tg[2 * k]:
                    g = _gradient_gap(algorithm_id, lossobj, state["w"][2 * k], *rows[k], index[k], pl["n"])
                    np.maximum(gap[k], g, out=gap[k])

    out, state = sim._loop(rule, ctx, progress, cancel, monitor)
    noiseless = out.copy()
    last = average = None
    if state is not None:
        last = state["w"]
        average = rule.average(ctx, state, rule.out_kind if rule.out_kind in ("average0", "average1") else "average")

    def dist(a):
        return np.linalg.norm((a[0::2] - a[1::2]).reshape(K, reps, -1), axis=2)

    dists = {"output": dist(noiseless)}
    if last is not None:
        dists["last"], dists["average"] = dist(last), dist(average)
    if quantity == "gradient":
        dists["gradient"] = gap
    return plans, dists, index


def stability_sweep(algorithm_id: str, data, loss, *, over: str, values, params=None, reps: int = 200,
                    seed: int = 0, neighbour: str = "random", gamma: float = 0.05,
                    progress: Callable[[float], None] | None = None, cancel=None,
                    max_work: float | None = sim.DEFAULT_MAX_WORK, max_bytes: float | None = None) -> SweepResult:
    """Measured stability at every value of ``over`` ("n", "eta" or "alpha"), beside the theorem's bound there.

    ``data`` must hold at least max(values) training rows for a sweep over n (T stays at ``params['T']``).  Over n
    and eta all grid values run in one vectorised batch (:func:`_coupled_grid`); over alpha the loss changes with
    the grid value (the q-norm member of ``loss``'s family, q = 1 + alpha, :func:`alpha_loss`), so the values run one
    after another, each exactly as :func:`stability`.  Same seed, same numbers.  Each row: the grid value, n, T,
    eta, alpha, the bound, the measured max / q50 / q95 / q99 / (1 - gamma) quantile, bound / max, the fraction of
    repetitions above the bound, and the largest distance of the last iterate and of the average.  Every value is
    checked (the theorem's conditions included) and the memory (``max_bytes``, default
    :data:`dpviz.labs.canary_audit.DEFAULT_MAX_BYTES`) and work estimated before anything runs (:func:`precheck`).
    """
    from dpviz.labs import canary_audit as aud

    t0 = time.perf_counter()
    if max_bytes is None:
        max_bytes = aud.DEFAULT_MAX_BYTES
    if algorithm_id not in SUPPORTED:
        raise ValueError(f"stability is measured for {', '.join(SUPPORTED)}; got {algorithm_id!r}.")
    vals = _check_values(over, values)
    reps = v.check_int("reps", reps, minimum=2)
    seed = v.check_int("seed", seed, minimum=0)
    gamma = v.check_open_unit("gamma", gamma)
    if neighbour not in ("random", "adversarial"):
        raise ValueError(f"neighbour must be 'random' or 'adversarial', got {neighbour!r}.")
    params = dict(params or {})
    precheck(algorithm_id, data, loss, params=params, reps=reps, seed=seed, neighbour=neighbour, gamma=gamma,
             over=over, values=vals, max_work=max_work, max_bytes=max_bytes, base=False)
    quantity, theorem = SUPPORTED[algorithm_id]
    rows, per_value = [], []
    if algorithm_id in DETERMINISTIC_PATH:
        reps = 2  # every repetition is the same (see DETERMINISTIC_PATH)
    notes = [f"coupled chains on S and S' ({neighbour} neighbour) at every value of {over}: same indices, same noise, "
             f"{reps} repetitions, seed {seed}."]
    loss_name = sim._resolve_loss(loss)[1]
    if over == "alpha":
        if algorithm_id in ("dpgd-sc", "dpgdc", "dp-epoch-gd", "dpgd-c"):
            raise ValueError("Xue, Yang, Huai & Wang's sensitivity lemmas need an L-smooth loss (alpha = 1), so a "
                             "sweep over alpha does not apply to their algorithms; sweep n or eta.")
        family = alpha_loss(loss, data.task)
        from dpviz.engine.losses import get_loss

        loss_name = family
        notes.append(f"over alpha: the loss {family} with q = 1 + alpha (its gradient is alpha-Hölder).")
        for k, a in enumerate(vals):
            sub = None if progress is None else (lambda f, _k=k: progress((_k + f) / len(vals)))
            r = stability(algorithm_id, data, get_loss(family, q=1.0 + a), params=params, reps=reps, seed=seed,
                          neighbour=neighbour, gamma=gamma, progress=sub, cancel=cancel, max_work=max_work,
                          max_bytes=max_bytes)
            m = r.distances[quantity]
            row = {"value": a, "n": int(params.get("n", data.n)), "T": int(r.trace_t[-1]) if r.trace_t is not None
                   and len(r.trace_t) else None, "eta": params.get("eta"), "alpha": a, **_summary(m, r.bound, gamma),
                   "deterministic": r.deterministic}
            row["last_max"] = float(np.max(r.distances["last"])) if "last" in r.distances else None
            row["average_max"] = float(np.max(r.distances["average"])) if "average" in r.distances else None
            rows.append(row)
            per_value.append(m)
            notes += [s for s in r.notes[1:] if s not in notes]
        deterministic = rows[0]["deterministic"]
    else:
        if over == "n" and max(vals) > data.n:
            raise ValueError(f"n = {max(vals)} exceeds the {data.n} training examples of the data set.")
        plans, dists, index = _coupled_grid(algorithm_id, data, loss, over=over, values=vals, params=params,
                                            reps=reps, seed=seed, neighbour=neighbour, progress=progress,
                                            cancel=cancel, max_work=max_work, quantity=quantity)
        deterministic = False
        for k, pl in enumerate(plans):
            p = {**pl["cal"].extras.get("_params", {}), "n": pl["n"], "eta": pl["eta"], "R": params.get("R")}
            bound, deterministic, note = _bound(algorithm_id, p, gamma, int(pl["T"]), index=index[k])
            if note and note not in notes:
                notes.append(note)
            m = dists[quantity][k]
            row = {"value": vals[k], "n": int(pl["n"]), "T": int(pl["T"]), "eta": float(pl["eta"]),
                   "alpha": p.get("alpha"), **_summary(m, bound, gamma), "deterministic": deterministic,
                   "last_max": float(dists["last"][k].max()) if "last" in dists else None,
                   "average_max": float(dists["average"][k].max()) if "average" in dists else None}
            rows.append(row)
            per_value.append(m)
    if progress is not None:
        progress(1.0)
    return SweepResult(algorithm=algorithm_id, theorem=theorem, over=over, values=list(vals), rows=rows,
                       neighbour=neighbour, quantity=quantity, deterministic=bool(deterministic), gamma=gamma,
                       reps=reps, seed=seed, seconds=time.perf_counter() - t0, loss=loss_name, distances=per_value,
                       notes=notes)
