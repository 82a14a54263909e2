"""Measured stability / sensitivity on neighbouring data sets, beside the papers' bounds.

Coupled chains run on S (the first n training rows) and S' (S with one example replaced) with the same indices and
the same noise (:func:`dpviz.simulate.run_chains` with ``coupled=True``); over ``reps`` repetitions we record the
distance between the two runs' outputs -- exactly the quantity the papers bound:

* ``pairwise-sgd``, ``pairwise-sgd-output`` -- Yang, Lei, Lyu & Ying (yang-pairwise), Theorem 1: eq. (9) bounds the
  ℓ2-distance of the averaged outputs w̄_T, w̄'_T with probability 1 − γ (T >= n; for T < n the bound re-derived from
  the proof of eq. (3), see :func:`dpviz.papers.yang_pairwise.sensitivity`), and eq. (3) the distance of the
  iterates ‖w_{t+1} − w'_{t+1}‖ (shown along t);
* ``sgd``, ``dpsgd-output`` -- Wang, Lei, Ying & Zhang (wang-nonsmooth), Theorem 7: the uniform argument stability
  of projected SGD with α-Hölder smooth losses, with probability 1 − γ (bounded domain, Theorem 7 (b), needs R);
* ``dpsgd-rdp``, ``dpsgd-pl`` -- the gradient sensitivity 2G of Wang, Lei, Ying & Zhou (wang-lownoise), proof of
  Theorem 2 (and of Kang, Li, Liu & Wang's DP-SGD): sup_w ‖∇f(w; z) − ∇f(w; z')‖ <= 2G for a G-Lipschitz loss.  It is
  deterministic; we measure ‖∇f(w_t; z) − ∇f(w_t; z')‖ at every iterate w_t of the chain on S (z, z' the replaced and
  the replacing example).  The distance of the outputs is shown too (no paper bounds it).

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

from dpviz import _validate as v
from dpviz import simulate as sim

__all__ = ["stability", "StabilityResult", "SUPPORTED", "neighbour_pair"]

#: algorithm id -> (what is bounded, theorem label)
SUPPORTED: dict[str, tuple[str, str]] = {
    "pairwise-sgd": ("average", "Yang, Lei, Lyu & Ying (yang-pairwise), Theorem 1, eq. (9)"),
    "pairwise-sgd-output": ("average", "Yang, Lei, Lyu & Ying (yang-pairwise), Theorem 1, eq. (9)"),
    "sgd": ("average", "Wang, Lei, Ying & Zhang (wang-nonsmooth), Theorem 7 (b)"),
    "dpsgd-output": ("average", "Wang, Lei, Ying & Zhang (wang-nonsmooth), Theorem 7 (b)"),
    "dpsgd-rdp": ("gradient", "Wang, Lei, Ying & Zhou (wang-lownoise), gradient sensitivity 2G (proof of Theorem 2)"),
    "dpsgd-pl": ("gradient", "Wang, Lei, Ying & Zhou (wang-lownoise), gradient sensitivity 2G (as in Kang, Li, Liu "
                             "& Wang's DP-SGD)"),
}


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


def _bound(algorithm_id, p, gamma, T):
    """(bound, deterministic?, note) from the theorem parameters p of the plan."""
    from dpviz.papers import wang_nonsmooth, yang_pairwise

    n, eta = p["n"], p["eta"]
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


def stability(algorithm_id: str, data, loss, *, params=None, reps: int = 200, seed: int = 0,
              neighbour: str = "random", gamma: float = 0.05, progress: Callable[[float], None] | None = None,
              cancel=None, max_work: float | None = sim.DEFAULT_MAX_WORK) -> StabilityResult:
    """Coupled runs on S and S' (same indices, same noise): distance distribution beside the paper's bound.

    ``params`` as for :func:`dpviz.simulate.simulate`; ``gamma`` the failure probability of high-probability
    bounds (the empirical 1 − γ quantile is compared with them).
    """
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
    S, S2, i = neighbour_pair(data, n, neighbour, seed)
    quantity, theorem = SUPPORTED[algorithm_id]
    lossobj, _ = sim._resolve_loss(loss)
    z, z2 = (S[0][i], S[1][i]), (S2[0][i], S2[1][i])
    grad_gap: list[np.ndarray] = []
    trace_max, trace_q50 = [], []

    def monitor(t, state, ctx):
        w = state["w"]
        gap = np.linalg.norm((w[0] - w[1]).reshape(ctx.reps, -1), axis=1)
        trace_max.append(float(gap.max()))
        trace_q50.append(float(np.median(gap)))
        if quantity == "gradient":
            g1 = lossobj.grad(w[0], z[0][None], np.atleast_1d(z[1]))
            g2 = lossobj.grad(w[0], z2[0][None], np.atleast_1d(z2[1]))
            grad_gap.append(np.linalg.norm((g1 - g2).reshape(ctx.reps, -1), axis=1))

    run = sim.run_chains(algorithm_id, data, loss, datasets=[S, S2], reps=reps, seed=seed, params=params,
                         coupled=True, progress=progress, cancel=cancel, max_work=max_work, monitor=monitor)
    plan = run.plan
    if not plan["run"]:
        raise ValueError(f"the calibration is infeasible, nothing to run: {plan['cal'].reason}")
    p = plan["cal"].extras.get("_params", {})
    p = {**p, "n": plan["n"], "eta": plan["eta"], "R": plan["R"]}
    T = int(plan["T"])
    bound, deterministic, note = _bound(algorithm_id, p, gamma, T)

    def dist(a):
        return np.linalg.norm((a[0] - a[1]).reshape(reps, -1), axis=1)

    distances = {"output": dist(run.noiseless), "last": dist(run.last), "average": dist(run.average)}
    if quantity == "gradient":
        distances["gradient"] = np.max(np.stack(grad_gap), axis=0) if grad_gap else np.zeros(reps)
    m = distances[quantity]
    emp = {"max": float(m.max()), "q50": float(np.quantile(m, 0.5)), "q95": float(np.quantile(m, 0.95)),
           "q99": float(np.quantile(m, 0.99))}
    sig_cal = float(plan["sigma"]) if algorithm_id not in ("sgd", "pairwise-sgd") and plan["sigma"] else None
    sig_just = sig_cal * emp["max"] / bound if (sig_cal is not None and bound > 0) else None
    notes = [f"S' replaces example {i + 1} ({neighbour}); coupled chains: same indices, same noise, {reps} "
             f"repetitions, seed {seed}."]
    if note:
        notes.append(note)
    if sig_just is not None:
        notes.append("sigma_justified = sigma_calibrated x measured / bound: NOT a privacy guarantee (one pair of "
                     "neighbouring data sets, not the supremum over all of them).")
    trace_bound = None
    if algorithm_id in ("pairwise-sgd", "pairwise-sgd-output") and p.get("G"):
        from dpviz.papers import yang_pairwise

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
