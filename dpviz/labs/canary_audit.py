"""Empirical privacy audit: a statistical lower bound on ε by a distinguishing test on D and D' = D with a canary.

Method (Jagielski, Ullman & Oprea 2020, "Auditing differentially private machine learning: how private is private
SGD?"; Nasr, Song, Thakurta, Papernot & Carlini 2021, "Adversary instantiation: lower bounds for differentially
private machine learning"): if a mechanism is (ε, δ)-DP, every test that tells its output on D from its output on a
neighbour D' has false-positive rate FPR and false-negative rate FNR with

.. math:: \\mathrm{FPR} + e^{\\varepsilon}\\,\\mathrm{FNR} \\ge 1 - \\delta \\quad\\text{and}\\quad
          \\mathrm{FNR} + e^{\\varepsilon}\\,\\mathrm{FPR} \\ge 1 - \\delta,

so ε >= log((1 − δ − FNR)/FPR) and ε >= log((1 − δ − FPR)/FNR).  With finitely many trials the rates are replaced by
their Clopper–Pearson upper confidence bounds, which makes ε_lower a lower bound holding with probability >= 95 %:

    ε_lower = max over the two error orders of log((1 − δ − FNR_upper) / FPR_upper)   (0 if negative).

Here D is the first n training rows and D' replaces the last of them by a canary (the papers' replace-one
neighbouring relation); the canary's feature vector points along the direction the data constrains least (the
right singular vector of X with the smallest singular value, scaled to the data's largest norm) and, for regression,
its label is the largest the loss's constants allow (|y| = 1), so it is the strongest example the guarantee covers.
Each trial trains once (half the trials on D, half on D', independent random streams, all trials in one vectorised
batch via :func:`dpviz.engine.simulate.run_chains`).  The candidate test statistics (:data:`STATISTICS`) are functions of
what the privacy guarantee covers: the released output, and where the guarantee covers the whole trajectory
(gradient perturbation, or no noise) also the last iterate, the average and -- for one example or pair per step --
the whole trajectory's score (:class:`_TrajectoryScore`: a log-likelihood ratio of each released noisy gradient,
canary against the example it replaces, with the known σ; the white-box threat model of Nasr, Song, Thakurta,
Papernot & Carlini 2021 and Nasr et al. 2023); each output is projected on the canary direction and on the
direction learned on the selection half (:func:`_learned_direction`).  The statistic, the direction, the threshold
and the side of the test are chosen on the first half of the trials of each side and the error rates are counted
on the other half, so the bound is honest whatever the statistic.

With m evaluation trials per side and no error at all, FPR_upper = FNR_upper = 1 − (α/2)^{1/m} (α = 0.05): that is
the largest ε the audit can certify (:func:`max_certifiable`).

The GDP-based and one-run bounds on the same scores are in :mod:`dpviz.labs.audit_methods`, the planner of how many
trials an audit needs in :mod:`dpviz.labs.audit_planner`.
"""

from __future__ import annotations

import math
import time
from dataclasses import asdict, dataclass, field
from typing import Any, Callable

import numpy as np

from dpviz.foundation import validate as v
from dpviz.engine import simulate as sim

__all__ = ["monitor_units", "clopper_pearson", "eps_from_rates", "evaluation_trials_per_side", "max_certifiable",
           "distinguish", "canary", "audit", "preview", "AuditResult",
           "default_setting", "STATISTICS",
           "LEVEL", "CITATION"]

#: Confidence level of the Clopper–Pearson intervals.
LEVEL = 0.95
CITATION = ("Jagielski, Ullman & Oprea 2020 (auditing DP-SGD by poisoning / canaries); Nasr, Song, Thakurta, "
            "Papernot & Carlini 2021 (adversary instantiation)")


#: Memory cap of one audit or stability run (bytes of :func:`estimate_bytes`): above it the run is refused before
#: anything is allocated (``sim.CostTooHigh``); the CLI's ``--max-gb`` raises it.  Issue 22's targets: no single run
#: takes more than 1 GB of a shared server's memory without an explicit user action.
DEFAULT_MAX_BYTES = 1.0e9
#: float64 arrays of one chain's parameter size held at once (iterate, running sum, noise and gradient buffers,
#: released output and its noiseless copy, last iterate and average): measured 4.7 for ``audit --algorithm sgd
#: --trials 2000000 --T 1`` and ``stability --algorithm sgd --reps 1000000`` (745 MB above the interpreter for 2e6
#: chains of d = 10; tests/test_cli_hostile.py checks the estimate against a measured run), rounded up.
_ARRAYS_PER_CHAIN = 6


#: measured CPU seconds / engine estimate of the Audit page's jobs (benchmarks/bench_hostile.py, ``audit_estimate``):
#: the audit's two blocks of chains draw independent noise and indices (stability's are coupled: drawn once), which
#: doubles the cost of a pointwise step; the engine's per-kind factors fit stability's coupled runs within 20-40 %.
#: Keyed by (mode, pairwise).
ESTIMATE_FACTOR = {("audit", False): 1.7, ("audit", True): 0.85, ("stability", False): 0.8,
                   ("stability", True): 0.8}
#: CPU seconds per audit trial outside the chains (the test statistics, thresholds and Clopper-Pearson bounds)
SECONDS_PER_TRIAL = 5e-6


def monitor_units(algorithm_id: str, spec, reps: int, T: int, n: int, dim: int) -> float:
    """Work units (:data:`dpviz.engine.simulate.SECONDS_PER_UNIT` each) of the audit's trajectory statistics over both blocks
    of ``reps`` chains: per step and chain the gradients of the canary's and the replaced example's items (1 each,
    or up to 2(n − 1) pairs) of ``dim`` numbers; 0 where the audit scores no trajectory."""
    rule = sim.RULES.get(algorithm_id)
    if spec.noise not in ("gradient", "none") or not isinstance(rule, (sim.SGDRule, sim.HistoryRule)):
        return 0.0
    K = 1 if not spec.pairs else 2 * max(1, n - 1)
    return float(2 * reps) * float(T) * 2.0 * K * float(dim)


def audit_seconds(algorithm_id: str, data, loss, params, trials: int) -> float:
    """CPU seconds an audit of ``trials`` trials (``trials // 2`` trainings on D and on D') takes here, estimated
    without running it: the engine's cost model (:func:`dpviz.engine.simulate.estimate_cost`'s units) weighted by
    :data:`ESTIMATE_FACTOR`.  Raises ValueError when the setting does not run."""
    trials = v.check_int("trials", trials, minimum=2)
    reps = trials // 2
    _, spec, _, _, reps, _, _, pshape, _, plans, _ = sim._plan(algorithm_id, data, loss, None, reps, dict(params))
    if not all(p["run"] for p in plans):
        bad = next(p for p in plans if not p["run"])
        raise ValueError(f"this setting does not run: {bad['cal'].reason}")
    units = 2 * sim._time_units(algorithm_id, spec, reps, pshape, plans, (), sim._EVAL_ROWS, data)
    extra = monitor_units(algorithm_id, spec, reps, int(plans[0]["T"]), int(plans[0]["n"]), int(np.prod(pshape)))
    return (units * sim.SECONDS_PER_UNIT * ESTIMATE_FACTOR["audit", bool(spec.pairs)]
            + extra * sim.SECONDS_PER_UNIT + SECONDS_PER_TRIAL * 2 * reps)


def estimate_bytes(algorithm_id: str, data, loss, *, chains, per_chain_floats: float = 0.0) -> float:
    """Estimated peak memory (bytes) of ``chains`` vectorised chains of ``algorithm_id`` on ``data`` with ``loss``.

    ``_ARRAYS_PER_CHAIN`` arrays of the parameter's size per chain (d, or d² for a matrix parameter), PIDP-SGD's
    two d×d Hessian buffers per chain, plus ``per_chain_floats`` further numbers per chain (e.g. a per-step trace).
    """
    if algorithm_id not in sim.SPECS:
        raise ValueError(f"unknown algorithm {algorithm_id!r}; the engine runs: {', '.join(sim.supported_algorithms())}")
    lossobj, _ = sim._resolve_loss(loss)
    d = int(data.d)
    dim = d * d if getattr(lossobj, "param", "vector") == "matrix" else d
    per = 8.0 * (dim * _ARRAYS_PER_CHAIN + float(per_chain_floats))
    if sim.SPECS[algorithm_id].kind == "pidp":
        per += 8.0 * 2 * dim * dim
    return float(chains) * per


def check_memory(algorithm_id: str, data, loss, *, chains, max_bytes, what: str, reduce: str,
                 per_chain_floats: float = 0.0) -> float:
    """Raise ``sim.CostTooHigh`` (one line: the figures, the cap, what to reduce) when :func:`estimate_bytes` is
    above ``max_bytes`` (``None``: no cap); else return the estimate."""
    est = estimate_bytes(algorithm_id, data, loss, chains=chains, per_chain_floats=per_chain_floats)
    if max_bytes is None:
        return est
    cap = v.check_positive("max_bytes (memory cap)", max_bytes)
    if not est <= cap:
        need = f"about {est / 1e9:.3g} GB of memory" if math.isfinite(est) else "more memory than any machine has"
        raise sim.CostTooHigh(f"{what} need {need} ({v.shown(chains)} chains at once), above the cap of "
                              f"{cap / 1e9:g} GB; reduce {reduce} (the command line's --max-gb raises the cap).")
    return est


def _level(level) -> float:
    return v.check_level(level, "the Clopper-Pearson confidence level")


def _audit_inputs(algorithm_id: str, data, params) -> tuple[dict, int]:
    """(a copy of ``params``, n) for an audit of ``algorithm_id`` on ``data``, checked as :func:`audit` and
    :func:`preview` both need: an engine algorithm, and n no larger than the data set."""
    params = dict(params or {})
    if algorithm_id not in sim.SPECS:
        raise ValueError(f"the audit runs the engine's algorithms: {', '.join(sim.supported_algorithms())}; got "
                         f"{algorithm_id!r}.")
    n = v.check_n(params.get("n", data.n))
    if n > data.n:
        raise ValueError(f"n = {n} exceeds the {data.n} training examples of the data set.")
    return params, n


def clopper_pearson(k, m, level: float = LEVEL):
    """Two-sided Clopper–Pearson interval (lo, hi) for a binomial rate with ``k`` successes in ``m`` trials.

    lo = Beta(α/2; k, m − k + 1), hi = Beta(1 − α/2; k + 1, m − k), α = 1 − level (lo = 0 at k = 0, hi = 1 at
    k = m).  ``k`` may be an array.
    """
    from scipy.stats import beta

    level = _level(level)
    m = v.check_int("m (number of trials)", m)
    k = np.asarray(k, dtype=float)
    if np.any(k < 0) or np.any(k > m) or np.any(k != np.round(k)):
        raise ValueError(f"the number of errors must be a whole number between 0 and m = {m}.")
    a = 1.0 - level
    with np.errstate(invalid="ignore"):
        lo = np.where(k > 0, beta.ppf(a / 2, k, m - k + 1), 0.0)
        hi = np.where(k < m, beta.ppf(1 - a / 2, k + 1, m - k), 1.0)
    if lo.ndim == 0:
        return float(lo), float(hi)
    return lo, hi


def eps_from_rates(fpr, fnr, delta: float) -> np.ndarray | float:
    """max(log((1 − δ − fnr)/fpr), log((1 − δ − fpr)/fnr), 0): the ε that error rates (fpr, fnr) force.

    Arrays broadcast; a zero rate in a denominator gives ``inf`` only if the numerator is positive.
    """
    delta = v.check_delta(delta, allow_zero=True)
    fpr, fnr = np.asarray(fpr, float), np.asarray(fnr, float)
    with np.errstate(divide="ignore", invalid="ignore"):
        a = np.where(1 - delta - fnr > 0, np.log(np.maximum(1 - delta - fnr, 1e-300)) - np.log(fpr), -np.inf)
        b = np.where(1 - delta - fpr > 0, np.log(np.maximum(1 - delta - fpr, 1e-300)) - np.log(fnr), -np.inf)
    out = np.maximum(np.maximum(a, b), 0.0)
    return float(out) if out.ndim == 0 else out


def evaluation_trials_per_side(trials: int) -> int:
    """Evaluation trials per side of an audit of ``trials`` trials: :func:`audit` trains ``trials // 2`` times on D
    and as often on D', and :func:`distinguish` chooses the test on the first half of each side and counts its errors
    on the rest, ``trials // 2 - trials // 4`` (500 of 2000 trials).  This ``m`` is what :func:`max_certifiable`
    takes."""
    trials = v.check_int("trials", trials, minimum=8)
    per_side = trials // 2
    return per_side - per_side // 2


def max_certifiable(m: int, delta: float, level: float = LEVEL) -> float:
    """The largest ε an audit with ``m`` evaluation trials per side can certify (no error on either side)."""
    m = v.check_int("m (evaluation trials per side)", m)
    _, hi = clopper_pearson(0, m, level)
    return eps_from_rates(hi, hi, delta)


def _select(neg, pos, delta, level, max_candidates=4000):
    """Best (eps bound, threshold, direction) on one half: the test "predict D' when direction * s > tau" whose
    Clopper–Pearson ε bound is largest there (thresholds at up to ``max_candidates`` quantiles)."""
    best = (-1.0, 0.0, 1)
    for direction in (1, -1):
        nn, pp = np.sort(direction * neg), np.sort(direction * pos)
        allv = np.concatenate([nn, pp])
        taus = np.unique(np.quantile(allv, np.linspace(0, 1, min(max_candidates, allv.size))))
        fp = nn.size - np.searchsorted(nn, taus, side="right")  # trials on D with s > tau
        fn = np.searchsorted(pp, taus, side="right")  # trials on D' with s <= tau
        _, fpr_u = clopper_pearson(fp, nn.size, level)
        _, fnr_u = clopper_pearson(fn, pp.size, level)
        e = eps_from_rates(fpr_u, fnr_u, delta)
        k = int(np.argmax(e))
        if e[k] > best[0]:
            best = (float(e[k]), float(taus[k]), direction)
    return best


def distinguish(neg, pos, *, delta: float, level: float = LEVEL) -> dict[str, Any]:
    """ε lower bound from test statistics ``neg`` (trials on D) and ``pos`` (trials on D').

    The threshold and the direction ("predict D' when s > τ", or "< τ") are chosen on the first half of each
    sample, the rates counted on the second half; returns ``eps_lower``, ``fpr``, ``fnr`` (empirical, evaluation
    half), ``fpr_upper``, ``fnr_upper``, ``threshold``, ``direction``, ``m`` (evaluation trials per side),
    ``max_certifiable``.
    """
    neg, pos = np.asarray(neg, float).ravel(), np.asarray(pos, float).ravel()
    delta = v.check_delta(delta, allow_zero=True)
    level = _level(level)
    if neg.size < 4 or pos.size < 4:
        raise ValueError("an audit needs at least 4 trials on each data set (half choose the test, half evaluate it).")
    if not (np.all(np.isfinite(neg)) and np.all(np.isfinite(pos))):
        raise ValueError("some trials produced no finite output (diverged or not run); lower the step size or noise.")
    hn, hp = neg.size // 2, pos.size // 2
    _, tau, direction = _select(neg[:hn], pos[:hp], delta, level)
    en, ep = neg[hn:], pos[hp:]
    fp, fn = int(np.sum(direction * en > tau)), int(np.sum(direction * ep <= tau))
    _, fpr_u = clopper_pearson(fp, en.size, level)
    _, fnr_u = clopper_pearson(fn, ep.size, level)
    return {"eps_lower": eps_from_rates(fpr_u, fnr_u, delta), "fpr": fp / en.size, "fnr": fn / ep.size,
            "fpr_upper": fpr_u, "fnr_upper": fnr_u, "threshold": direction * tau,
            "direction": ">" if direction == 1 else "<",
            "m": int(min(en.size, ep.size)), "max_certifiable": max_certifiable(int(min(en.size, ep.size)), delta,
                                                                                level)}


def canary(X: np.ndarray, y: np.ndarray, task: str) -> tuple[np.ndarray, float, np.ndarray]:
    """Canary example (x_c, y_c) and the unit direction u of x_c: the strongest example the privacy guarantee covers.

    u = right singular vector of X with the smallest singular value (the direction the data constrains least, so
    the canary's push along u is the least drowned by the other examples'), x_c = max_i ||x_i|| u (the largest norm
    the loss's constants allow: they are computed for ||x|| <= max_i ||x_i||), y_c = max(1, max |y|) for regression
    (every regression loss's constants assume |y| <= 1, so a label of 1 is inside the guarantee and gives the
    largest gradient) and +1 for classification.
    """
    X = np.asarray(X, float)
    _, _, Vt = np.linalg.svd(X - 0.0, full_matrices=True)
    u = Vt[-1]
    if u[np.argmax(np.abs(u))] < 0:
        u = -u  # a fixed sign
    scale = float(np.max(np.linalg.norm(X, axis=1))) or 1.0
    yc = max(1.0, float(np.max(np.abs(y)))) if task == "regression" else 1.0
    return scale * u, yc, u


#: per-step cap of the trajectory score: a step whose noisy gradient matches the canary (or the example it replaces)
#: adds about ``_MATCH + D/2`` (D the parameter's dimension), a step that matches neither adds about 0
_MATCH = 5.0


class _TrajectoryScore:
    """Monitor of :func:`dpviz.engine.simulate.run_chains`: the whole trajectory's score of every chain.

    At each step the released noisy gradient g_t = ∇f(w_t; z_{i_t}) + σ b_t (a gradient-perturbation mechanism
    releases it; the iterates are its post-processing) is compared with the gradients at w_t of the items that
    involve the canary (the canary itself, or every pair it forms with the other examples) and of the items that
    involve the example it replaces: with a_k = −||g_t − ∇_k||² / (2σ²),

        s_t = log(e^F + Σ_{canary items} e^{a_k}) − log(e^F + Σ_{replaced items} e^{a_k}),  F = −D/2 − 5,

    the log-likelihood ratio of "a canary item was drawn" against "the replaced example's item was drawn" with the
    other examples' share of the mixture replaced by a constant e^F (the density of a typical match, e^{−D/2},
    times e^{−5}); the score is Σ_t s_t.  A step that draws neither adds about 0, one that draws the canary about
    +5 + D/2, one that draws the replaced example about −5 − D/2.  Items whose gradient is 0 (pairs that are not
    (positive, negative), margins met) are left out: a common item has the same gradient.  σ = 0 (no noise) is
    treated as a tiny σ.  Any function of the released trajectory is a valid test statistic, so this score only
    changes the test's power, never its soundness."""

    def __init__(self, lossobj, X_common, y_common, z_canary, z_replaced, pairs: bool, G: int, reps: int):
        self.loss, self.Xc, self.yc = lossobj, np.asarray(X_common, float), np.asarray(y_common, float)
        self.items = (z_canary, z_replaced)
        self.pairs = pairs
        self.score = np.zeros((G, reps))
        self.partners = None  # per item and order, the partners whose pair gradient is not always 0

    def _pair_grads(self, w, x, y, first: bool, rows=None):
        rows = slice(None) if rows is None else rows
        Xc, yc = self.Xc[rows], self.yc[rows]
        Xc = Xc.reshape((1, 1, -1) + Xc.shape[1:])
        yc = yc.reshape(1, 1, -1)
        xx = np.asarray(x, float).reshape((1, 1, 1) + np.shape(x))
        yy = np.full((1, 1, 1), float(y))
        we = w[:, :, None]
        g = self.loss.grad(we, xx, yy, Xc, yc) if first else self.loss.grad(we, Xc, yc, xx, yy)
        return np.broadcast_to(g, w.shape[:2] + (Xc.shape[2],) + w.shape[2:]).reshape(w.shape[:2] + (Xc.shape[2], -1))

    def _probe(self, pshape):
        """Partners j whose pair with the item has a non-zero gradient at w = 0 or at a few random w (pairs of the
        same class under an AUC loss never do: leaving them out changes nothing and saves their cost)."""
        rng = np.random.default_rng(0)
        ws = np.stack([np.zeros(pshape)] + [rng.standard_normal(pshape) / np.sqrt(np.prod(pshape)) for _ in range(3)])
        ws = ws.reshape((1, 4) + tuple(pshape))
        self.partners = [[np.flatnonzero(np.any(self._pair_grads(ws, x, y, first) != 0, axis=(0, 1, 3)))
                          for first in (True, False)] for x, y in self.items]

    def _grads(self, w, x, y, i=0):
        """(G, reps, K, D): the gradients at w of the K items involving example ``i`` of the items, (x, y)."""
        G, reps = w.shape[:2]
        if not self.pairs:
            g = self.loss.grad(w, x, np.asarray(y, float))
            return g.reshape(G, reps, 1, -1)
        if self.partners is None:
            self._probe(w.shape[2:])
        parts = [self._pair_grads(w, x, y, first, rows) for first, rows in zip((True, False), self.partners[i])
                 if rows.size]
        if not parts:
            return np.zeros((G, reps, 1, int(np.prod(w.shape[2:]))))
        return np.concatenate(parts, axis=2)

    def _chunks(self, w):
        """Slices of the chains such that a block of item gradients (chains x items x D) stays near 2e6 numbers."""
        G, reps = w.shape[:2]
        K = 1 if not self.pairs else max(1, 2 * self.Xc.shape[0])
        step = max(1, int(2_000_000 // max(1, G * K * int(np.prod(w.shape[2:])))))
        return [slice(a, min(reps, a + step)) for a in range(0, reps, step)]

    def __call__(self, t, state, ctx):
        sigma = float(ctx.sig_scalar) if (ctx.grad_noise and ctx.sig_scalar is not None) else 0.0
        for c in self._chunks(state["prev"]):
            self._score(state["prev"][:, c], state["g"][:, c], sigma, c)

    def _score(self, w, g, sigma, c):
        G, reps = w.shape[:2]
        g = g.reshape(G, reps, 1, -1)
        D = g.shape[-1]
        sigma = max(sigma, 1e-9 * max(1.0, float(np.max(np.abs(g)))))
        F = -D / 2.0 - _MATCH
        logs = []
        for i, (x, y) in enumerate(self.items):
            gk = self._grads(w, x, y, i)
            a = -np.sum((g - gk) ** 2, axis=-1) / (2.0 * sigma**2)
            a = np.where(np.max(np.abs(gk), axis=-1) > 0, a, -np.inf)
            top = np.max(a, axis=-1, keepdims=True)
            top = np.where(np.isfinite(top), top, F)
            lse = np.log(np.sum(np.exp(a - top), axis=-1)) + top[..., 0]
            logs.append(np.logaddexp(F, lse))
        self.score[:, c] += logs[0] - logs[1]


class _StepMatch(_TrajectoryScore):
    """Monitor for Yang, Lei, Lyu & Ying's pairwise SGD (Algorithm 1), whose step at t averages the pairs of the new
    example with the whole drawn history: the step the canary takes when it is drawn is close in direction to
    ĝ_c(w_t), the mean of its pair gradients (canary, x_j) over the other examples.  Records per chain the
    largest cosine max_t cos(g_t, ĝ_c(w_t)) and the same for the replaced example; the score is their difference.
    A function of the trajectory (no noise: nothing is hidden), so it only changes the test's power."""

    def __init__(self, lossobj, X_common, y_common, z_canary, z_replaced, G: int, reps: int):
        super().__init__(lossobj, X_common, y_common, z_canary, z_replaced, True, G, reps)
        self.best = [np.full((G, reps), -1.0), np.full((G, reps), -1.0)]

    def __call__(self, t, state, ctx):
        for c in self._chunks(state["prev"]):
            self._match(state["prev"][:, c], state["g"][:, c], c)

    def _match(self, w, g, sl):
        G, reps = w.shape[:2]
        g = g.reshape(G, reps, -1)
        if self.partners is None:
            self._probe(w.shape[2:])
        gn = np.linalg.norm(g, axis=-1)
        for i, (x, y) in enumerate(self.items):
            rows = self.partners[i][0]
            if not rows.size:
                continue
            m = self._pair_grads(w, x, y, True, rows).mean(axis=2)
            mn = np.linalg.norm(m, axis=-1)
            with np.errstate(invalid="ignore", divide="ignore"):
                c = np.where((gn > 0) & (mn > 0), np.einsum("srd,srd->sr", g, m) / (gn * mn), -1.0)
            self.best[i][:, sl] = np.maximum(self.best[i][:, sl], c)


def _learned_direction(a: np.ndarray, half: int) -> np.ndarray:
    """Project every trial's flattened output ``a`` (2, reps, D) on the direction that tells D from D' best on the
    first ``half`` trials of each side (the selection halves): Fisher's discriminant S⁻¹(m' − m), S the pooled
    covariance shrunk towards a multiple of the identity (weight D/(D + half), so that few trials or many
    dimensions stay well-posed), or m' − m where the outputs do not vary (a deterministic algorithm).  The
    evaluation halves are not looked at, so the test stays honest."""
    a = a.reshape(a.shape[0], a.shape[1], -1)
    neg, pos = a[0, :half], a[1, :half]
    diff = pos.mean(axis=0) - neg.mean(axis=0)
    D = a.shape[-1]
    v = diff
    if D <= 400 and half >= 2:
        S = (np.cov(neg, rowvar=False).reshape(D, D) + np.cov(pos, rowvar=False).reshape(D, D)) / 2.0
        tr = float(np.trace(S)) / D
        if tr > 0 and np.all(np.isfinite(S)):
            lam = D / (D + half)
            v = np.linalg.solve((1 - lam) * S + lam * tr * np.eye(D), diff)
    if not np.any(v):
        v = np.zeros(D)
        v[0] = 1.0
    return np.einsum("srd,d->sr", a, v)


#: plain-words description of each test statistic (the page and ``audit --json`` state the one chosen)
STATISTICS = {
    "output": "the released output projected on the canary direction u",
    "last": "the last iterate w_T projected on the canary direction u",
    "average": "the averaged iterate projected on the canary direction u",
    "output, learned direction": "the released output projected on the direction that told D from D' best on the "
                                 "first half of the trials (Fisher's discriminant)",
    "last, learned direction": "the last iterate projected on the direction that told D from D' best on the first "
                               "half of the trials (Fisher's discriminant)",
    "average, learned direction": "the averaged iterate projected on the direction that told D from D' best on the "
                                  "first half of the trials (Fisher's discriminant)",
    "step match": "the trajectory's step closest in direction to the canary's mean pair gradient (largest cosine "
                  "over the steps) minus the same for the example it replaces",
    "canary step match": "the trajectory's step closest in direction to the canary's mean pair gradient (largest "
                         "cosine over the steps)",
    "trajectory": "the whole trajectory's score: at every step, how much better the released noisy gradient matches "
                  "a gradient of the canary than one of the example it replaces (a log-likelihood ratio with the "
                  "known sigma), summed over the steps",
}


@dataclass
class AuditResult:
    """Outcome of :func:`audit` (``to_dict()`` gives the CLI's JSON contract first, then the details)."""

    algorithm: str
    eps_claimed: float | None
    eps_lower: float
    trials: int
    statistic: str
    fpr: float
    fnr: float
    max_certifiable: float
    seconds: float
    eps_accountant: float | None = None
    accountant_note: str = ""
    delta: float = 0.0
    sigma: float = 0.0
    fpr_upper: float = 1.0
    fnr_upper: float = 1.0
    threshold: float = 0.0
    direction: str = ">"
    per_statistic: dict[str, float] = field(default_factory=dict)
    samples: dict[str, Any] = field(default_factory=dict)  # statistic -> (on D, on D') arrays, for plots
    notes: list[str] = field(default_factory=list)
    canary: str = ""  # the canary, in plain words
    statistic_detail: str = ""  # the chosen statistic, in plain words (STATISTICS)
    #: the matched mechanism's f-DP trade-off curve at the noise used, {"label", "how", "exact", "alpha", "beta"}
    #: (:func:`dpviz.labs.privacy_lab.tradeoff_curve`), empty where no accountant applies
    tradeoff: dict[str, Any] = field(default_factory=dict)

    def to_dict(self, contract_only: bool = False) -> dict[str, Any]:
        keys = ["algorithm", "eps_claimed", "eps_lower", "trials", "statistic", "fpr", "fnr", "max_certifiable",
                "seconds", "canary", "statistic_detail"]
        d = asdict(self)
        d.pop("samples")
        out = {k: d[k] for k in keys}
        if not contract_only:
            out.update({k: d[k] for k in d if k not in keys})
        return _finite(out)


def _finite(obj):
    if isinstance(obj, float) and not math.isfinite(obj):
        return None
    if isinstance(obj, dict):
        return {k: _finite(x) for k, x in obj.items()}
    if isinstance(obj, list):
        return [_finite(x) for x in obj]
    return obj


def _accountant(algorithm_id, plan, spec) -> tuple[float | None, str]:
    """The matched accountant's ε for the noise the chains used, with what it accounts; (None, why) where none.

    The mechanism and its matched accountant come from :mod:`dpviz.labs.privacy_lab` (the paper's own sampling and
    replace-one neighbouring relation: RDP for one example / pair per step drawn without replacement, the exact
    analytic Gaussian mechanism for full-batch steps and single releases).  DPGDC (Xue, Yang, Huai & Wang,
    Algorithm 4), not in the lab, is one Gaussian release of sensitivity 4ηGT/n (Lemma 7): analytic Gaussian.
    """
    from dpviz.labs import privacy_lab

    if spec.noise == "none":
        return None, "non-private (no noise): no accountant applies; its ε is infinite."
    cal, sigma, delta = plan["cal"], plan["sigma"], plan["delta"]
    if plan["laplace"] is not None or plan.get("epoch_laplace") or not delta:
        return None, ("Laplace noise (δ = 0, pure ε-DP): the accountants here are for Gaussian noise, so none is "
                      "shown.")
    if not sigma or sigma <= 0:
        return None, "σ = 0: no noise, so no finite ε."
    p = {k: x for k, x in cal.extras.get("_params", {}).items() if x is not None}
    try:
        if algorithm_id == "dpgdc":
            from dpviz.theory.papers import xue_pairwise

            sens = xue_pairwise.stability_lemma7(n=plan["n"], t=plan["T"], eta=plan["eta"], G=p["G"])
            eps = privacy_lab._analytic_eps(float(sigma), sens, float(delta))
            return eps, (f"matched, exact: analytic Gaussian mechanism (Balle & Wang 2018), one release of the average "
                         f"iterate with sensitivity 4ηGT/n = {sens:.4g} (Xue, Yang, Huai & Wang, Lemma 7), at δ = "
                         f"{delta:.3g}")
        if algorithm_id not in privacy_lab.ALGORITHMS:
            return None, f"no accountant of {algorithm_id}'s mechanism in dpviz."
        mech = privacy_lab.mechanism(algorithm_id, **p)
        acc = privacy_lab.accountants(mech)[0]  # the matched one
        if mech.kind == "per-epoch" and cal.sigma_schedule:
            sigma = float(cal.sigma_schedule[0])  # sigma_1 against the sensitivity 4 G eta_1 (every epoch: same ratio)
        eps = privacy_lab.epsilon(mech, acc, float(sigma))
        text = f"{acc.label}; z = σ/Δ = {float(sigma) / acc.sensitivity:.4g}, at δ = {mech.delta:.3g}"
        contribution = mech.extras.get("contribution")
        if mech.delta != mech.delta_total and not contribution:
            text += (f" (the Gaussian part; the sensitivity bound fails with probability δ/2, total δ = "
                     f"{mech.delta_total:.3g})")
        if contribution:
            text += " for the training noise (budget (ε₁, δ₁))"
            e2 = contribution["eps_of_paper_sigma_c"]
            eps = eps + e2
            text += (f"; plus ε = {e2:.4g} of the influence-function contribution's noise σ_c at δ₂ = "
                     f"{contribution['delta2']:.3g} (basic composition, total δ = {mech.delta + contribution['delta2']:.3g})")
        if not math.isfinite(eps):
            return None, (f"{text}: its ε is infinite or too large to compute at this noise (no finite guarantee)")
        return float(eps), text
    except (ValueError, KeyError) as exc:
        return None, f"no accountant's ε for this setting: {exc}"


def _accountant_tradeoff(algorithm_id, plan, spec, points: int = 201) -> dict[str, Any]:
    """The matched mechanism's trade-off curve at the noise the chains used (:func:`dpviz.labs.privacy_lab.tradeoff_curve`,
    the same mechanism as :func:`_accountant`), on ``points`` type I errors in [0, 1]; {} where none applies."""
    from dpviz.labs import privacy_lab

    cal, sigma, delta = plan["cal"], plan["sigma"], plan["delta"]
    if (spec.noise == "none" or plan["laplace"] is not None or plan.get("epoch_laplace") or not delta or not sigma
            or sigma <= 0 or algorithm_id not in privacy_lab.ALGORITHMS):
        return {}
    p = {k: x for k, x in cal.extras.get("_params", {}).items() if x is not None}
    alpha = np.linspace(0.0, 1.0, points)
    try:
        if algorithm_id == "dpgdc":  # as in _accountant: one release, sensitivity of Lemma 7 at the run's T and η
            from dpviz.labs import tradeoff as au
            from dpviz.theory.papers import xue_pairwise

            sens = xue_pairwise.stability_lemma7(n=plan["n"], t=plan["T"], eta=plan["eta"], G=p["G"])
            mu = sens / float(sigma)
            return {"label": f"exact: one Gaussian release, μ = {mu:.3g}-GDP", "exact": True,
                    "how": "the exact trade-off curve G_μ(α) = Φ(Φ⁻¹(1 − α) − μ) of one Gaussian release, μ = Δ/σ "
                           "(Dong, Roth & Su 2022, Theorem 2.7)",
                    "alpha": alpha.tolist(), "beta": np.asarray(au.tradeoff_gdp(alpha, mu), float).tolist()}
        mech = privacy_lab.mechanism(algorithm_id, **p)
        if mech.kind == "per-epoch" and cal.sigma_schedule:
            sigma = float(cal.sigma_schedule[0])
        out = privacy_lab.tradeoff_curve(mech, float(sigma), alpha, contribution=True)
    except (ValueError, KeyError, FloatingPointError):
        return {}
    return {"label": out["label"], "how": out["how"], "exact": out["exact"], "alpha": alpha.tolist(),
            "beta": np.asarray(out["beta"], float).tolist()}


def preview(algorithm_id: str, data, loss, *, params=None, trials: int = 2000, level: float = LEVEL) -> dict[str, Any]:
    """What :func:`audit` with these arguments will report before any trial runs: the same plan (the calibration
    of :func:`dpviz.engine.simulate.run_chains`, whose first step this is), so the same numbers.

    Returns ``eps_accountant`` and ``accountant_note`` (:func:`_accountant`), ``eps_claimed`` (None where no ε is
    claimed: no noise, or σ set by hand), ``nominal`` (the paper's experimental noise rule: the claim is nominal),
    ``sigma``, ``delta`` (1/n² where the plan has none), ``trials``, ``per_side`` (evaluation trials per side) and
    ``max_certifiable`` (the most ε these trials can certify, :func:`max_certifiable`).  Raises ValueError where
    :func:`audit` would refuse the settings (infeasible calibration, n above the data set's).
    """
    trials = v.check_int("trials", trials, minimum=8)
    if trials % 2:
        raise ValueError(f"trials must be even (half on D, half on D'), got {v.shown(trials)}.")
    level = _level(level)
    params, n = _audit_inputs(algorithm_id, data, params)
    spec = sim.SPECS[algorithm_id]
    _, _, _, _, _, _, _, _, _, plans, _ = sim._plan(algorithm_id, data, loss, None, trials // 2, dict(params))
    pl = plans[0]
    if not pl["run"]:  # the words of run_chains, which audit would raise
        raise ValueError(f"this setting does not run: {pl['cal'].reason} (give sigma, or run_infeasible=True).")
    # the keys run_chains hands to audit (ChainRun.plan), so that _accountant sees what it sees after a run
    plan = {k: pl[k] for k in ("n", "T", "eta", "sigma", "laplace", "feasible", "run", "eps", "delta", "cal")}
    delta = plan["delta"] if plan["delta"] else 1.0 / n**2
    private = spec.noise != "none"
    eps_claimed = plan["eps"] if private and params.get("sigma") is None else None
    nominal = bool(eps_claimed is not None and params.get("noise_rule") == "experiment"
                   and plan["cal"].extras.get("sigma_unconstrained") is not None)
    eps_acc, acc_note = _accountant(algorithm_id, plan, spec)
    m = evaluation_trials_per_side(trials)
    return {"eps_accountant": eps_acc, "accountant_note": acc_note,
            "eps_claimed": None if eps_claimed is None else float(eps_claimed), "nominal": nominal,
            "sigma": float(plan["sigma"]), "delta": float(delta), "trials": trials, "per_side": m,
            "max_certifiable": float(max_certifiable(m, delta, level))}


def audit(algorithm_id: str, data, loss, *, params=None, trials: int = 2000, seed: int = 0,
          level: float = LEVEL, progress: Callable[[float], None] | None = None, cancel=None,
          max_work: float | None = sim.DEFAULT_MAX_WORK, max_bytes: float | None = DEFAULT_MAX_BYTES) -> AuditResult:
    """Audit ``algorithm_id``: ``trials`` trainings (half on D, half on D'), the ε lower bound of the best test.

    ``params`` are those of :func:`dpviz.engine.simulate.simulate` (``eps, delta, T, eta, R, sigma, noise_rule, n`` ...);
    ``sigma`` replaces the calibrated noise.  ``trials`` counts all trainings (>= 8, even).  Raises ValueError for
    settings whose calibration is infeasible (run_infeasible to force).  Vector outputs w are tested by <w, u>;
    matrix outputs W (metric learning) by <W, u u^T> = u^T W u.  ``eps_accountant`` is the matched accountant's ε
    of the noise used (:func:`_accountant`), with ``accountant_note`` saying what it accounts or why there is none.
    Every input is checked, and the memory (``max_bytes``, :func:`check_memory`) and work (``max_work``) estimated,
    before anything runs.
    """
    t0 = time.perf_counter()
    trials = v.check_int("trials", trials, minimum=8)
    if trials % 2:
        raise ValueError(f"trials must be even (half on D, half on D'), got {v.shown(trials)}.")
    seed = v.check_int("seed", seed, minimum=0)
    level = _level(level)
    params, n = _audit_inputs(algorithm_id, data, params)
    check_memory(algorithm_id, data, loss, chains=trials, max_bytes=max_bytes, what=f"{v.shown(trials)} trials",
                 reduce="the trials")
    X, y = np.asarray(data.X, float).copy(), np.asarray(data.y, float).copy()
    xc, yc, u = canary(X[:n], y[:n], data.task)
    X2, y2 = X.copy(), y.copy()
    # the replaced example: the last one, except for DPEGD (Xue, Yang, Huai & Wang, Algorithm 3), whose epochs take
    # the rows in order with steps eta 4^-i: the first row lies in the first epoch, the largest block and step
    idx = 0 if algorithm_id == "dp-epoch-gd" else n - 1
    X2[idx], y2[idx] = xc, yc
    spec = sim.SPECS[algorithm_id]
    # where the guarantee covers the whole trajectory (gradient perturbation, or no noise) and every step draws one
    # example or pair, score the released noisy gradients (_TrajectoryScore)
    if max_work is not None:  # the trajectory statistics' work, which run_chains' guard does not see
        _, _, _, _, _, _, _, pshape, _, plans0, _ = sim._plan(algorithm_id, data, loss, None, trials // 2,
                                                              dict(params))
        extra = monitor_units(algorithm_id, spec, trials // 2, int(plans0[0]["T"]), n, int(np.prod(pshape)))
        if extra > max_work:
            raise sim.CostTooHigh(
                f"the audit's trajectory statistics need about {extra:.3g} work units (~"
                f"{extra * sim.SECONDS_PER_UNIT:.0f} s), above the cap of {max_work:.3g}; reduce the trials, T or n.")
    traj = None
    rule = sim.RULES.get(algorithm_id)
    if spec.noise in ("gradient", "none") and isinstance(rule, sim.SGDRule):
        lossobj, _ = sim._resolve_loss(loss)
        keep = np.arange(n) != idx
        traj = _TrajectoryScore(lossobj, X[:n][keep], y[:n][keep], (xc, yc), (X[idx], y[idx]), spec.pairs, 2,
                                trials // 2)
    elif spec.noise in ("gradient", "none") and isinstance(rule, sim.HistoryRule):
        lossobj, _ = sim._resolve_loss(loss)
        keep = np.arange(n) != idx
        traj = _StepMatch(lossobj, X[:n][keep], y[:n][keep], (xc, yc), (X[idx], y[idx]), 2, trials // 2)
    run = sim.run_chains(algorithm_id, data, loss, datasets=[(X, y), (X2, y2)], reps=trials // 2, seed=seed,
                         params=params, coupled=False, progress=progress, cancel=cancel, max_work=max_work,
                         monitor=traj, keep_step=traj is not None)
    plan = run.plan
    if not plan["run"]:
        raise ValueError(f"the calibration is infeasible, nothing to audit: {plan['cal'].reason}")
    matrix = run.outputs.ndim == 4
    delta = plan["delta"] if plan["delta"] else 1.0 / n**2
    stats = {"output": run.outputs}
    if spec.noise in ("gradient", "none") and run.last is not None:
        # the guarantee of gradient perturbation covers the whole trajectory, so any function of it may be tested
        if spec.output == "last":
            stats["average"] = run.average
        else:
            stats["last"] = run.last
    if matrix:
        # metric learning: <W, u u^T> = u^T W u, the metric's squared length of the canary direction
        projected = {k: np.einsum("srij,i,j->sr", a, u, u) for k, a in stats.items()}
    else:
        projected = {k: np.einsum("srd,d->sr", a, u) for k, a in stats.items()}
    level = _level(level)
    # choose the statistic on the selection halves, evaluate it on the other halves
    half = (trials // 2) // 2
    for k, a in stats.items():
        projected[f"{k}, learned direction"] = _learned_direction(a, half)
    if isinstance(traj, _StepMatch):
        projected["step match"] = traj.best[0] - traj.best[1]
        projected["canary step match"] = traj.best[0]
    elif isinstance(traj, _TrajectoryScore):
        projected["trajectory"] = traj.score
    sel = {k: _select(p[0][:half], p[1][:half], delta, level)[0] for k, p in projected.items()}
    best = max(sel, key=lambda k: sel[k])
    res = distinguish(projected[best][0], projected[best][1], delta=delta, level=level)
    private = spec.noise != "none"
    eps_claimed = None
    notes = [f"D' replaces example {idx + 1} of D by a canary along the least-constrained direction of the data; "
             f"delta = {delta:.3g}; {CITATION}."]
    label = f"label {yc:g}" + (" (the largest the loss's constants allow, |y| <= 1)" if data.task == "regression"
                               else "")
    canary_text = (f"example {idx + 1} of D replaced by x_c = {np.linalg.norm(xc):.3g} u ({label}): u is the direction the "
                   "data constrains least (smallest singular vector of X), and ||x_c|| the largest norm among the "
                   "data, which the loss's constants cover")
    if private and params.get("sigma") is None:
        eps_claimed = plan["eps"]
        if params.get("noise_rule") == "experiment" and plan["cal"].extras.get("sigma_unconstrained") is not None:
            notes.append("noise from the paper's experimental rule: the theorem's privacy conditions are not checked, "
                         "so eps_claimed is nominal.")
    elif private:
        notes.append("noise set by hand (sigma): no calibrated epsilon is claimed; see the accountant's epsilon.")
    if matrix:
        notes.append("matrix parameter (metric learning): the statistics along u are <W, u u^T> = u^T W u, the "
                     "released metric's squared length of the canary direction u (the canary's pairs x_c - x_j point "
                     "mostly along u, so their gradients (x_c - x_j)(x_c - x_j)^T push W along u u^T).")
    eps_acc, acc_note = _accountant(algorithm_id, plan, spec)
    return AuditResult(
        algorithm=algorithm_id, eps_claimed=None if eps_claimed is None else float(eps_claimed),
        eps_lower=float(res["eps_lower"]), trials=trials, statistic=best, fpr=res["fpr"], fnr=res["fnr"],
        max_certifiable=float(res["max_certifiable"]), seconds=time.perf_counter() - t0, eps_accountant=eps_acc,
        accountant_note=acc_note, delta=float(delta), sigma=float(plan["sigma"]), fpr_upper=res["fpr_upper"],
        fnr_upper=res["fnr_upper"], threshold=res["threshold"], direction=res["direction"],
        per_statistic={k: float(e) for k, e in sel.items()},
        samples={k: (p[0], p[1]) for k, p in projected.items()}, notes=notes, canary=canary_text,
        statistic_detail=STATISTICS.get(best, best), tradeoff=_accountant_tradeoff(algorithm_id, plan, spec))


#: Xue, Yang, Huai & Wang's full-batch algorithms (their lemmas need a smooth loss and a small step)
_XUE = ("dpgd-sc", "dpgd-c", "dpgdc", "dp-epoch-gd")


def default_setting(algorithm_id: str, params=None, *, dataset: str | None = None, loss: str | None = None,
                    data_seed: int = 0, n_data: int | None = None, matrix: bool = False):
    """The data set, loss and parameters the CLI and the Audit page use unless told otherwise.

    Pointwise algorithms: Wang, Lei, Ying & Zhou's synthetic least squares (wang-lownoise, Section 5.1; d = 10,
    label noise kappa = 0.1) with the least-squares loss; pairwise ones: two Gaussian classes with the AUC hinge loss.
    Defaults: n = 100, T = n, eta = 0.1, R = 1, eps = 1 (private algorithms; eps = 4 for DP-SGD of Wang, Lei, Ying &
    Zhou, whose Theorem 2 / 5 conditions have no feasible beta at n = 100, eps = 1).  Xue, Yang, Huai & Wang's
    full-batch algorithms (xue-pairwise: dpgd-sc, dpgd-c, dpgdc, dp-epoch-gd) use the smooth AUC square loss
    (L2-regularised with lambda = 1e-3 for DPGDSC, as in their Section 5) and, unless eta is given, the largest
    step their sensitivity lemmas allow (2/(L + mu) for Lemma 1, 2/L for Lemma 7).  ``n_data`` (>= n) generates more
    training rows than n (a stability sweep over n needs max(n) rows; the run uses the first n).  ``matrix=True``
    (pairwise algorithms): metric learning with the logistic metric loss of Xue, Yang, Huai & Wang's Example 1
    (L2-regularised with their lambda = 1e-2 for DPGDSC).
    """
    from dpviz.engine import data as dmod

    if algorithm_id not in sim.SPECS:
        raise ValueError(f"unknown algorithm {algorithm_id!r}; the engine runs: {', '.join(sim.supported_algorithms())}")
    p = dict(params or {})
    params_given = dict(p)
    pairs = sim.SPECS[algorithm_id].pairs
    n = v.check_n(p.get("n", 100))
    if n > 5000:
        raise ValueError(f"n = {n} is above the 5000 examples the lab generates; choose a smaller n.")
    p["n"] = n
    p.setdefault("T", n)
    p.setdefault("eta", 0.1)
    p.setdefault("R", 1.0)
    if sim.SPECS[algorithm_id].noise != "none":
        # Wang, Lei, Ying & Zhou's Theorem 2 / 5 conditions fail at n = 100, eps = 1 (no feasible beta); eps = 4 is
        # the smallest whole eps where they hold at n = 100, T = n, delta = 1/n^2 (issue 21)
        p.setdefault("eps", 4.0 if algorithm_id in ("dpsgd-rdp", "dpsgd-rdp-pairwise") else 1.0)
    dataset = dataset or ("two-class" if pairs else "wang-least-squares")
    xue = algorithm_id in _XUE
    if matrix:
        if not pairs:
            raise ValueError(f"{algorithm_id} is pointwise; metric learning (a matrix parameter) needs a pairwise "
                             "algorithm.")
        if loss is not None:
            raise ValueError("give either a loss or matrix=True (metric learning uses the metric-logistic loss).")
        from dpviz.engine.losses import L2_XUE, get_loss

        loss = get_loss("metric-logistic", l2=L2_XUE["metric"]) if algorithm_id == "dpgd-sc" else "metric-logistic"
    if loss is None and xue:
        # Xue, Yang, Huai & Wang's lemmas need a smooth convex loss (Lemma 1 also a strongly convex one): the AUC
        # square loss, L2-regularised for DPGDSC with the lambda of their experiments (Section 5)
        from dpviz.engine.losses import L2_XUE, get_loss

        loss = get_loss("auc-square", l2=L2_XUE["auc"]) if algorithm_id == "dpgd-sc" else "auc-square"
    if loss is None and algorithm_id == "pidp-sgd":
        # PIDP-SGD's contribution sensitivity 2G/(n zeta) needs a Hessian bounded below (Kang, Li, Liu & Wang,
        # Theorem 5 and Remark 5): an L2-regularised least squares, zeta = mu = 2 lambda = 0.1
        from dpviz.engine.losses import get_loss

        loss = get_loss("least-squares", l2=0.05)
    loss = loss or ("auc-hinge" if pairs else "least-squares")
    kw = {"kappa": 0.1} if dataset.startswith("wang-") else {}
    if dataset not in dmod.DATASETS:
        raise ValueError(f"unknown data set {dataset!r}; choose one of {', '.join(dmod.DATASETS)}.")
    rows = n if n_data is None else max(n, v.check_n(n_data))
    if rows > 5000:
        raise ValueError(f"n = {rows} is above the 5000 examples the lab generates; choose a smaller n.")
    ds = dmod.load_dataset(dataset, n=rows, n_test=500, seed=data_seed, **kw) if dataset in (
        "wang-least-squares", "wang-logistic", "two-class", "clusters") else dmod.load_dataset(dataset)
    if n > ds.n:
        raise ValueError(f"n = {n} exceeds the {ds.n} training examples of {dataset!r}.")
    if xue and "eta" not in params_given:
        # the largest step the sensitivity lemma allows: 2/(L + mu) (Lemma 1), 2/L (Lemma 7)
        lossobj, _ = sim._resolve_loss(loss)
        if hasattr(lossobj, "constants"):
            c = lossobj.constants(kappa=max(ds.x_bound, 1e-12), R=p["R"])
            if c.get("L"):
                p["eta"] = 2.0 / (c["L"] + (c.get("mu") or 0.0) if algorithm_id == "dpgd-sc" else c["L"])
    return ds, loss, p
