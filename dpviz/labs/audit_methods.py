"""Audit methods that certify more per trial than Clopper–Pearson's (ε, δ) line: the GDP-based and the one-run audit.

Both read the scores of trainings on D and D' (or of canaries) and return a certified lower bound on ε; the audits
that produce the scores by training on the engine are in :mod:`dpviz.labs.canary_audit` (whose Clopper–Pearson
bound is the third method of :data:`METHODS`), the trade-off curves in :mod:`dpviz.labs.tradeoff`, and the planner
that prices an audit of each method in :mod:`dpviz.labs.audit_planner`.

* **GDP-based audit** (Nasr, Hayes, Steinke, Balle, Tramèr, Jagielski, Carlini & Terzis 2023, "Tight auditing of
  differentially private machine learning", USENIX Security): *assuming the mechanism's trade-off curve is a Gaussian
  one G_μ*, a test's error rates (FPR, FNR) force μ >= Φ⁻¹(1 − FPR) − Φ⁻¹(FNR); with the rates replaced by their
  Clopper–Pearson upper bounds this μ_lower holds with the stated confidence, and ε_lower = ε(μ_lower, δ) of the
  μ-GDP privacy profile δ(ε) = Φ(−ε/μ + μ/2) − e^ε Φ(−ε/μ − μ/2) (Dong, Roth & Su, Corollary 2.13).  One test point
  then certifies the whole curve, so far fewer trials are needed than for Clopper–Pearson's (ε, δ) line.
* **One-run audit** (Steinke, Nasr & Jagielski 2023, "Privacy auditing with one (1) training run", NeurIPS): m
  canaries, each included independently with probability 1/2; the auditor guesses "in" for the k₊ highest scores and
  "out" for the k₋ lowest.  If the mechanism is ε-DP in each canary, the number W of correct guesses among the
  r = k₊ + k₋ made is stochastically dominated by Binomial(r, e^ε/(1 + e^ε)) (their Theorem 3.1); with δ > 0 the tail
  gains at most 2mδ·max_{1<=i<=m}(f(v − i) − f(v))/i, f(v) = P[Binomial(r, p) >= v] (Section 5, Theorem 5.2).
  ε_lower is the largest ε at which the observed W is still too many with probability below 1 − level.

Results are frozen, validated dataclasses (after jax_privacy's ``auditing`` module).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from scipy import optimize, stats

from dpviz.foundation import validate as v
from dpviz.labs.tradeoff import _level, _out, gdp_epsilon

__all__ = ["mu_from_rates", "GdpAudit", "gdp_audit", "OneRunAudit", "one_run_p_value", "one_run_epsilon",
           "one_run_audit", "one_run_from_trials", "one_run_canaries", "one_run_scores", "METHODS", "ASSUMPTIONS",
           "CITATIONS"]

METHODS = ("clopper-pearson", "gdp", "one-run")
#: what each method assumes, in one sentence each (the CLI's JSON and the page state it)
ASSUMPTIONS = {
    "clopper-pearson": "none beyond independent trials: the trade-off line of (epsilon, delta)-DP must lie below the "
                       "Clopper-Pearson upper bounds of the measured error rates (any (epsilon, delta)-DP mechanism).",
    "gdp": "the mechanism's trade-off curve is a Gaussian one G_mu (true for Gaussian releases and their "
           "compositions, approximately for subsampled ones by the central limit theorem of Dong, Roth & Su); "
           "for other curves (e.g. randomised response) its epsilon can exceed the truth.",
    "one-run": "canaries included independently with probability 1/2 and the mechanism (epsilon, delta)-DP in each "
               "canary (then one training run carrying all m canaries suffices; dpviz's engine trains one canary "
               "per run, so here each canary costs trainings).",
}
CITATIONS = {
    "clopper-pearson": "Jagielski, Ullman & Oprea 2020; Nasr, Song, Thakurta, Papernot & Carlini 2021",
    "gdp": "Nasr, Hayes, Steinke, Balle, Tramer, Jagielski, Carlini & Terzis 2023 (tight auditing); Dong, Roth & Su "
           "2022, Definition 2.7 and Corollary 2.13",
    "one-run": "Steinke, Nasr & Jagielski 2023 (privacy auditing with one training run), Theorem 3.1 and Theorem 5.2",
}


# --- GDP-based audit -------------------------------------------------------------------------------------------


def mu_from_rates(fpr, fnr):
    """μ >= Φ⁻¹(1 − FPR) − Φ⁻¹(FNR): the least μ whose G_μ lies at or below the point (FPR, FNR), clipped at 0 (Nasr
    et al. 2023; rates of 0 give ``inf``)."""
    fpr, fnr = np.asarray(fpr, float), np.asarray(fnr, float)
    with np.errstate(divide="ignore", invalid="ignore"):
        out = np.maximum(stats.norm.isf(fpr) - stats.norm.ppf(fnr), 0.0)
    return _out(out)


def _cp_upper(k, m, level):
    from dpviz.labs.canary_audit import clopper_pearson

    return clopper_pearson(k, m, level)[1]


def _best_mu(neg, pos, level, max_candidates=2000):
    """(μ bound, threshold, direction) maximising the Clopper–Pearson μ bound on one sample."""
    best = (-1.0, 0.0, 1)
    for direction in (1, -1):
        nn, pp = np.sort(direction * neg), np.sort(direction * pos)
        allv = np.concatenate([nn, pp])
        taus = np.unique(np.quantile(allv, np.linspace(0, 1, min(max_candidates, allv.size))))
        fp = nn.size - np.searchsorted(nn, taus, side="right")
        fn = np.searchsorted(pp, taus, side="right")
        mu = mu_from_rates(_cp_upper(fp, nn.size, level), _cp_upper(fn, pp.size, level))
        k = int(np.argmax(mu))
        if mu[k] > best[0]:
            best = (float(mu[k]), float(taus[k]), direction)
    return best


@dataclass(frozen=True)
class GdpAudit:
    """Outcome of :func:`gdp_audit`: ``mu_lower`` (confidence ``level``) and ``eps_lower = ε(mu_lower, δ)``; the
    evaluation half's rates and their Clopper–Pearson upper bounds; ``mu_fit`` (|mean difference| / pooled standard
    deviation of the scores, all trials) with its ``mu_fit_interval`` (normal approximation at ``level``), shown
    for information: the certified number is ``eps_lower``."""

    eps_lower: float
    mu_lower: float
    fpr: float
    fnr: float
    fpr_upper: float
    fnr_upper: float
    threshold: float
    direction: str
    m: int
    delta: float
    level: float
    mu_fit: float
    mu_fit_interval: tuple[float, float]
    method: str = "gdp"
    assumption: str = ASSUMPTIONS["gdp"]

    def __post_init__(self):
        if not (0 <= self.mu_lower and 0 <= self.eps_lower and self.m >= 2):
            raise ValueError("GdpAudit: mu_lower and eps_lower must be >= 0 and m >= 2.")


def _scores(neg, pos):
    neg, pos = np.asarray(neg, float).ravel(), np.asarray(pos, float).ravel()
    if neg.size < 4 or pos.size < 4:
        raise ValueError("an audit needs at least 4 trials on each data set (half choose the test, half evaluate it).")
    if not (np.all(np.isfinite(neg)) and np.all(np.isfinite(pos))):
        raise ValueError("some trials produced no finite output (diverged or not run); lower the step size or noise.")
    return neg, pos


def gdp_audit(neg, pos, *, delta: float, level: float = 0.95) -> GdpAudit:
    """GDP-based ε lower bound from test statistics ``neg`` (trials on D) and ``pos`` (trials on D') (Nasr et al.
    2023).  As in :func:`dpviz.labs.canary_audit.distinguish`, the threshold and direction are chosen on the first half of each
    sample and the rates counted on the second half; μ_lower = Φ⁻¹(1 − FPR_upper) − Φ⁻¹(FNR_upper) (two-sided
    Clopper–Pearson at ``level``), ε_lower = :func:`gdp_epsilon` (μ_lower, δ).  Valid under ``ASSUMPTIONS['gdp']``."""
    neg, pos = _scores(neg, pos)
    delta = v.check_open_unit("delta", delta)
    level = _level(level)
    hn, hp = neg.size // 2, pos.size // 2
    _, tau, direction = _best_mu(neg[:hn], pos[:hp], level)
    en, ep = neg[hn:], pos[hp:]
    fp, fn = int(np.sum(direction * en > tau)), int(np.sum(direction * ep <= tau))
    fpr_u, fnr_u = _cp_upper(fp, en.size, level), _cp_upper(fn, ep.size, level)
    mu_lo = float(mu_from_rates(fpr_u, fnr_u))
    eps_lo = gdp_epsilon(mu_lo, delta) if math.isfinite(mu_lo) else math.inf
    s = math.sqrt((np.var(neg, ddof=1) + np.var(pos, ddof=1)) / 2) or 1e-300
    mu_fit = abs(float(np.mean(pos) - np.mean(neg))) / s
    # standard error of a standardised mean difference (Hedges & Olkin 1985): sqrt(1/n1 + 1/n2 + d²/(2(n1 + n2)))
    se = math.sqrt(1 / neg.size + 1 / pos.size + mu_fit**2 / (2 * (neg.size + pos.size)))
    zq = float(stats.norm.ppf(0.5 + level / 2))
    return GdpAudit(eps_lower=float(eps_lo), mu_lower=mu_lo, fpr=fp / en.size, fnr=fn / ep.size, fpr_upper=float(fpr_u),
                    fnr_upper=float(fnr_u), threshold=direction * tau, direction=">" if direction == 1 else "<",
                    m=int(min(en.size, ep.size)), delta=delta, level=level, mu_fit=mu_fit,
                    mu_fit_interval=(max(0.0, mu_fit - zq * se), mu_fit + zq * se))


# --- one-run audit ---------------------------------------------------------------------------------------------


def _tail(r: int, p: float, v_: np.ndarray) -> np.ndarray:
    """f(v) = P[Binomial(r, p) >= v] (1 for v <= 0)."""
    return np.where(v_ <= 0, 1.0, stats.binom.sf(v_ - 1, r, p))


def one_run_p_value(eps: float, delta: float, m: int, r: int, correct: int) -> float:
    """Upper bound on P[W >= correct] for an (ε, δ)-DP mechanism (Steinke, Nasr & Jagielski 2023, Theorem 3.1 for
    δ = 0, Theorem 5.2's additive term 2mδ·max_i (f(v − i) − f(v))/i for δ > 0)."""
    p = 1.0 / (1.0 + math.exp(-eps))
    fv = float(_tail(r, p, np.asarray(correct)))
    if delta > 0:
        # i > correct: f(v − i) = 1, so (1 − f(v))/i is largest at i = correct; larger i add nothing.  Every i up
        # to 64 exactly; beyond, segments [a, b] of ratio 1.05 bounded above by (f(v − b) − f(v))/a (f(v − i) grows
        # with i), so the term is an upper bound (at most 5 % above the exact maximum)
        top = max(1, min(m, correct))
        small = np.arange(1, min(top, 64) + 1)
        terms = (_tail(r, p, correct - small) - fv) / small
        if top > 64:
            a = np.unique(np.round(np.geomspace(65, top, max(2, int(math.log(top / 65) / math.log(1.05)) + 2))))
            b = np.minimum(np.append(a[1:] - 1, top), top)
            terms = np.concatenate([terms, (_tail(r, p, correct - b) - fv) / a])
        fv += 2 * m * delta * float(np.max(terms))
    return min(fv, 1.0)


@dataclass(frozen=True)
class OneRunAudit:
    """Outcome of :func:`one_run_audit`: ``eps_lower`` (confidence ``level``), ``m`` canaries, ``guesses`` r made
    (k₊ "in" and k₋ "out"), ``correct`` W among them."""

    eps_lower: float
    m: int
    guesses: int
    correct: int
    k_plus: int
    k_minus: int
    delta: float
    level: float
    method: str = "one-run"
    assumption: str = ASSUMPTIONS["one-run"]

    def __post_init__(self):
        if not (0 <= self.correct <= self.guesses <= self.m and self.eps_lower >= 0):
            raise ValueError("OneRunAudit: need 0 <= correct <= guesses <= m and eps_lower >= 0.")


def one_run_epsilon(m: int, r: int, correct: int, delta: float, level: float = 0.95) -> float:
    """The largest ε whose :func:`one_run_p_value` of ``correct`` right guesses out of ``r`` is >= 1 − level (0 when
    even ε = 0 explains them)."""
    beta = 1.0 - level
    if r == 0 or one_run_p_value(0.0, delta, m, r, correct) >= beta:
        return 0.0
    hi = 1.0
    while one_run_p_value(hi, delta, m, r, correct) < beta:
        hi *= 2.0
        if hi > 1e3:
            return math.inf
    return float(optimize.brentq(lambda e: one_run_p_value(e, delta, m, r, correct) - beta, 0.0, hi, xtol=1e-9))


def _one_run_grid(m: int, delta: float, level: float) -> list[tuple[int, int]]:
    """The (k₊, k₋) that :func:`one_run_audit` tries on m canaries: k₊ = k₋ = 1 %, 2 %, 5 %, 10 %, 20 % and 50 % of m
    (at least 1, k₊ + k₋ <= m); where δ's term of Theorem 5.2 is small (2mδ at most (1 − level)/18, one entry's
    share of the confidence in the larger grid: the term is 2mδ times a factor below 1) also the
    one-sided guesses (k, 0) and (0, k) of the same sizes, for canaries that leave a trace on one side only (a
    larger grid splits the confidence further, which a non-negligible δ-term cannot afford).  The grid depends on
    m, δ and the level only, never on the scores."""
    fracs = (0.01, 0.02, 0.05, 0.1, 0.2, 0.5)
    sizes = sorted({max(1, int(f * m)) for f in fracs})
    ks = [(k, k) for k in sizes if 2 * k <= m]
    if 2 * m * delta <= (1.0 - level) / 18:
        ks += [(k, 0) for k in sizes if k <= m] + [(0, k) for k in sizes if k <= m]
    return ks


def one_run_audit(scores, included, *, delta: float, level: float = 0.95, k_plus: int | None = None,
                  k_minus: int | None = None) -> OneRunAudit:
    """One-run audit from the ``scores`` of m canaries and whether each was ``included`` (Steinke, Nasr & Jagielski
    2023, Algorithm 1): guess "in" for the ``k_plus`` highest scores, "out" for the ``k_minus`` lowest.  Without
    k₊/k₋ the counts are chosen on a fixed grid (:func:`_one_run_grid`: 1 %, 2 %, 5 %, 10 %, 20 %, 50 % of m each
    side, and one-sided where δ is negligible) and the best is kept, with the confidence split evenly over the grid
    (a union bound) so the result stays valid."""
    s = np.asarray(scores, float).ravel()
    inc = np.asarray(included).ravel()
    m = s.size
    if m < 2 or inc.shape != s.shape:
        raise ValueError("one-run audit: scores and included must have the same length, at least 2 canaries.")
    if not np.all(np.isfinite(s)):
        raise ValueError("some canary scores are not finite (diverged run); lower the step size or noise.")
    if not np.all((inc == 0) | (inc == 1)):
        raise ValueError("included must hold 0/1 (or False/True) for each canary.")
    delta = v.check_delta(delta, allow_zero=True)
    level = _level(level)
    order = np.argsort(-s, kind="stable")
    inc_sorted = inc[order].astype(int)
    if k_plus is not None or k_minus is not None:
        ks = [(v.check_int("k_plus", k_plus if k_plus is not None else 0, minimum=0),
               v.check_int("k_minus", k_minus if k_minus is not None else 0, minimum=0))]
        if ks[0][0] + ks[0][1] > m:
            raise ValueError(f"k_plus + k_minus must be at most m = {m}.")
        lev = level
    else:
        # every (k+, k-) of a fixed grid (0, 1 %, 2 %, 5 %, 10 %, 20 %, 50 % of m each side, not both 0): the
        # guesses may be one-sided, e.g. where only the canaries' presence leaves a trace
        ks = _one_run_grid(m, delta, level)
        lev = 1.0 - (1.0 - level) / len(ks)
    best = None
    for kp, km in ks:
        correct = int(inc_sorted[:kp].sum() + (km - inc_sorted[m - km:].sum() if km else 0))
        e = one_run_epsilon(m, kp + km, correct, delta, lev)
        if best is None or e > best[0]:
            best = (e, kp, km, correct)
    e, kp, km, correct = best
    return OneRunAudit(eps_lower=float(e), m=m, guesses=kp + km, correct=correct, k_plus=kp, k_minus=km, delta=delta,
                       level=level)


def one_run_canaries(a: int, b: int) -> int:
    """Canaries :func:`one_run_from_trials` makes of ``a`` evaluation trials on D and ``b`` on D':
    a + b − ⌈3 √(a + b)⌉ (at least 2), so that their fair coins rarely ask one side for more trials than it has."""
    return max(2, a + b - int(math.ceil(3 * math.sqrt(a + b))))


def one_run_from_trials(neg, pos, *, delta: float, level: float = 0.95, seed: int = 0) -> OneRunAudit:
    """One-run statistics on independent trials (dpviz's engine trains one canary per run): the direction "in =
    higher" or "lower" is chosen on the first halves (means); then M = :func:`one_run_canaries` canaries each get a
    fair coin (seeded) and the next unused trial of the second halves of D' (coin 1, included) or of D (coin 0).
    Given the coins the scores are independent draws of the mechanism on D or D', which is Steinke, Nasr &
    Jagielski's model (one canary per run), and every evaluation trial can serve: about twice the canaries of one
    coin per (D, D') pair.  If the coins ask one side for more trials than it has (probability about 0.3 %), the
    audit certifies nothing (ε_lower = 0, never above the truth), so the bound keeps its confidence."""
    neg, pos = _scores(neg, pos)
    hn, hp = neg.size // 2, pos.size // 2
    direction = 1.0 if np.mean(pos[:hp]) >= np.mean(neg[:hn]) else -1.0
    en, ep = neg[hn:], pos[hp:]
    m = one_run_canaries(en.size, ep.size)
    inc = np.random.default_rng(v.check_int("seed", seed, minimum=0)).integers(0, 2, size=m)
    k1 = int(inc.sum())
    if k1 > ep.size or m - k1 > en.size:
        delta = v.check_delta(delta, allow_zero=True)
        return OneRunAudit(eps_lower=0.0, m=m, guesses=0, correct=0, k_plus=0, k_minus=0, delta=delta,
                           level=_level(level))
    s = np.empty(m)
    s[inc == 1] = ep[:k1]
    s[inc == 0] = en[:m - k1]
    return one_run_audit(direction * s, inc, delta=delta, level=level)


def one_run_scores(m: int, mu: float, seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    """Idealised one-run canary scores: canary i included with probability 1/2, score N(μ·[included], 1) (each
    canary's score is then a μ-GDP release of its inclusion bit)."""
    rng = np.random.default_rng(v.check_int("seed", seed, minimum=0))
    m = v.check_int("m (canaries)", m, minimum=2)
    inc = rng.integers(0, 2, size=m)
    return rng.normal(size=m) + mu * inc, inc
