"""Trade-off curves (f-DP) and audits that certify more per trial: GDP-based and one-run audits, and a planner.

* **Trade-off curves** (Dong, Roth & Su 2022, "Gaussian differential privacy", J. R. Stat. Soc. B): a mechanism is
  f-DP when every test of D against D' has type II error β >= f(α) at type I error α.  (ε, δ)-DP is f_{ε,δ}-DP with
  f_{ε,δ}(α) = max(0, 1 − δ − e^ε α, e^{−ε}(1 − δ − α)) (their eq. (5), Proposition 2.5); μ-GDP is
  G_μ(α) = Φ(Φ⁻¹(1 − α) − μ) (Definition 2.7), the curve of telling N(0, 1) from N(μ, 1); T Gaussian releases of
  noise multipliers z_t compose to μ = sqrt(Σ 1/z_t²) (Corollary 3.3); and the tight curve of a mechanism is the upper
  envelope of the lines f_{ε, δ(ε)} of its privacy profile δ(ε) (Proposition 2.12), here from dp_accounting's PLD.
  Where no PLD exists (sampling without replacement, replace-one: dp_accounting has RDP only), the curve comes from
  the Rényi-DP curve ρ(λ) directly (:func:`tradeoff_rdp`): a valid, conservative lower bound on the true curve.
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
* **Planner**: the trials (or canaries) an audit needs to certify a target x, for a mechanism whose true curve is
  G_μ (the idealised audit: observed rates equal to their expectation), and the time that takes.

Strategies are frozen, validated dataclasses (after jax_privacy's ``auditing`` module).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any, Sequence

import numpy as np
from scipy import optimize, stats

from dpviz.foundation import validate as v

__all__ = ["tradeoff_eps_delta", "tradeoff_gdp", "gdp_mu_of_gaussians", "gdp_delta", "gdp_epsilon", "gdp_mu_for",
           "tradeoff_from_profile", "tradeoff_pld", "tradeoff_rdp", "tradeoff_rdp_gaussian_wor",
           "RDP_TRADEOFF_CITATION", "mu_from_rates", "GdpAudit", "gdp_audit", "OneRunAudit",
           "one_run_audit", "one_run_from_trials", "one_run_canaries", "one_run_scores", "mechanism_for_plan",
           "AuditPlan", "plan_audit", "POWER", "METHODS", "ASSUMPTIONS", "CITATIONS"]

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


# the trade-off curves and the helpers the audits share live in dpviz.labs.tradeoff (issue 34: one direction of
# import between the curves, the privacy lab and the audits); re-exported here, where they were
from dpviz.labs.tradeoff import (RDP_TRADEOFF_CITATION, _alphas, _level, _out, gdp_delta,  # noqa: F401
                                 gdp_epsilon, gdp_mu_for, gdp_mu_of_gaussians, tradeoff_eps_delta,
                                 tradeoff_from_profile, tradeoff_gdp, tradeoff_pld, tradeoff_rdp,
                                 tradeoff_rdp_gaussian_wor)


# --- GDP-based audit -------------------------------------------------------------------------------------------


def mu_from_rates(fpr, fnr):
    """μ >= Φ⁻¹(1 − FPR) − Φ⁻¹(FNR): the least μ whose G_μ lies at or below the point (FPR, FNR), clipped at 0 (Nasr
    et al. 2023; rates of 0 give ``inf``)."""
    fpr, fnr = np.asarray(fpr, float), np.asarray(fnr, float)
    with np.errstate(divide="ignore", invalid="ignore"):
        out = np.maximum(stats.norm.isf(fpr) - stats.norm.ppf(fnr), 0.0)
    return _out(out)


def _cp_upper(k, m, level):
    from dpviz.labs.audit import clopper_pearson

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
    2023).  As in :func:`dpviz.labs.audit.distinguish`, the threshold and direction are chosen on the first half of each
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


# --- planner ---------------------------------------------------------------------------------------------------


#: Default probability with which a planned audit reaches its target (:func:`plan_audit`).
POWER = 0.8


def _ideal_bound(method: str, trials: int, mu: float, delta: float, level: float, power: float | None = None) -> float:
    """The ε lower bound an audit with ``trials`` (all trainings; canaries for one-run) certifies on a mechanism whose
    curve is G_μ, with the test's threshold on the true curve.  ``power`` None: every error count equals its
    expectation (a typical run, reached about half the time).  ``power`` p: every count at its binomial p-quantile
    instead — for the two-sided tests each of the two counts at its √p-quantile, so both are at most that with
    probability >= √p·√p = p (they are independent) and, the certified ε falling as either count grows, the audit
    certifies at least this bound with probability >= p; for one-run the right guesses at their (1 − p)-quantile."""
    from dpviz.labs.audit import eps_from_rates, evaluation_trials_per_side

    if method == "one-run":
        m = trials
        best = 0.0
        for f in (0.01, 0.02, 0.05, 0.1, 0.2, 0.5):
            k = max(1, int(f * m))
            if 2 * k > m:
                continue
            # guess "in" for the top k of m scores (half N(μ,1), half N(0,1)): the threshold t with
            # (m/2)(Q(t − μ) + Q(t)) = k; precision Q(t − μ)/(Q(t − μ) + Q(t)); "out" symmetric
            t = optimize.brentq(lambda t: (m / 2) * (stats.norm.sf(t - mu) + stats.norm.sf(t)) - k, -50,
                              mu + 50)
            prec = stats.norm.sf(t - mu) / (stats.norm.sf(t - mu) + stats.norm.sf(t))
            correct = (int(math.floor(2 * k * prec)) if power is None
                       else int(stats.binom.ppf(1.0 - power, 2 * k, prec)))
            lev = 1.0 - (1.0 - level) / len(_one_run_grid(m, delta, level))  # one_run_audit's confidence split
            best = max(best, one_run_epsilon(m, 2 * k, correct, delta, lev))
        return best
    m = evaluation_trials_per_side(trials)  # as the audit splits them: half of each side's trials choose the test
    if m < 2:
        return 0.0
    a = np.geomspace(1.0 / m, 0.5, 200)
    if power is None:
        fp = np.ceil(a * m)
        fn = np.ceil(tradeoff_gdp(a, mu) * m)
    else:
        fp = stats.binom.ppf(math.sqrt(power), m, a)
        fn = stats.binom.ppf(math.sqrt(power), m, tradeoff_gdp(a, mu))
    fpr_u, fnr_u = _cp_upper(fp, m, level), _cp_upper(fn, m, level)
    if method == "clopper-pearson":
        return float(np.max(eps_from_rates(fpr_u, fnr_u, delta)))
    mu_lo = float(np.max(mu_from_rates(fpr_u, fnr_u)))
    return gdp_epsilon(mu_lo, delta)


#: Simulated audits per trial count in :func:`_success_rate` (seeded: the plan is reproducible).
PLAN_SIMULATIONS = 400


def _cp_upper_table(m: int, level: float) -> np.ndarray:
    """The two-sided Clopper–Pearson upper bounds of :func:`dpviz.labs.audit.clopper_pearson` for every count
    0 … m: exact up to 1 000 and at the last 1 000 counts, between them at 2 000 counts spaced geometrically and
    interpolated on the logit scale (the bound is smooth there; relative error below 10⁻⁵), so a table costs at most
    4 000 quantiles of the beta distribution whatever m is."""
    from scipy.special import expit, logit

    a = 1.0 - level
    k = np.arange(m + 1)

    def exact(kk):
        kk = np.asarray(kk)
        return np.where(kk < m, stats.beta.ppf(1 - a / 2, kk + 1, np.maximum(m - kk, 1)), 1.0)

    if m <= 3000:
        return exact(k)
    out = np.empty(m + 1)
    out[:1001] = exact(k[:1001])
    out[m - 1000:] = exact(k[m - 1000:])
    knots = np.unique(np.round(np.geomspace(1000, m - 1000, 2000)).astype(int))
    vals = logit(np.clip(exact(knots), 1e-300, 1 - 1e-16))
    mid = k[1001:m - 1000]
    out[1001:m - 1000] = expit(np.interp(mid, knots, vals))
    return out


def _success_rate(method: str, trials: int, mu: float, delta: float, level: float, target: float,
                  sims: int = PLAN_SIMULATIONS, seed: int = 0) -> float:
    """The fraction of ``sims`` simulated two-sided audits (``gdp``: :func:`gdp_audit`; ``clopper-pearson``:
    :func:`dpviz.labs.audit.distinguish`) of ``trials`` trials on exact Gaussian scores (N(0, 1) on D, N(μ, 1) on D')
    that certify ``target``, simulated as those audits run: the test (threshold and direction) is the best of their
    candidate thresholds (quantiles of the pooled scores; here those of the pooled distribution) on the selection half,
    its errors counted on the evaluation half, Clopper–Pearson at ``level``.  The counts are drawn directly
    (multinomial over the candidates' bins for the selection half, binomial for the evaluation half), so a simulated
    audit costs microseconds instead of the real one's tenth of a second; choosing the test on a noisy half is what
    makes the real audit need about twice the trials of the best test's (issue 31)."""
    from dpviz.labs.audit import evaluation_trials_per_side

    rng = np.random.default_rng(seed)
    per_side = trials // 2
    m = evaluation_trials_per_side(trials)
    hn = per_side - m
    if hn < 2 or m < 2:
        return 0.0
    cap = 2000 if method == "gdp" else 4000
    K = max(2, min(cap, 2 * hn))
    u = np.linspace(0.5 / K, 1.0 - 0.5 / K, K)
    from scipy.special import ndtr as _ndtr, ndtri as _ndtri

    # quantiles of the pooled distribution ½N(0, 1) + ½N(μ, 1) by bisection: F(t) = ½(Φ(t) + Φ(t − μ)) lies between
    # Φ(t) and Φ(t − μ), so the u-quantile lies between Φ⁻¹(u) and Φ⁻¹(u) + μ.  (Newton's step divided by densities
    # that underflow to 0 when μ is large, e.g. ε = 1197, and returned NaN.)
    z0 = _ndtri(u)
    lo, hi = np.minimum(z0, z0 + mu), np.maximum(z0, z0 + mu)
    for _ in range(80):
        taus = 0.5 * (lo + hi)
        above = 0.5 * (_ndtr(taus) + _ndtr(taus - mu)) >= u
        hi, lo = np.where(above, taus, hi), np.where(above, lo, taus)
    taus = 0.5 * (lo + hi)
    edges_neg = np.diff(np.concatenate(([0.0], _ndtr(taus), [1.0])))
    edges_pos = np.diff(np.concatenate(([0.0], _ndtr(taus - mu), [1.0])))
    below_neg = np.cumsum(rng.multinomial(hn, np.maximum(edges_neg, 0) / edges_neg.sum(), size=sims), axis=1)[:, :K]
    below_pos = np.cumsum(rng.multinomial(hn, np.maximum(edges_pos, 0) / edges_pos.sum(), size=sims), axis=1)[:, :K]
    # direction +1 ("D' when s > τ"): fp = #neg > τ, fn = #pos <= τ; direction −1 the mirror
    up_sel = _cp_upper_table(hn, level)
    up_eval = _cp_upper_table(m, level)

    from scipy.special import ndtr, ndtri

    def lookups(table):
        """Per-count terms of the bound, so that a bound is two look-ups and a subtraction: gdp's
        μ = Φ⁻¹(1 − x) − Φ⁻¹(y) (:func:`mu_from_rates`), Clopper–Pearson's ε = max(log(1 − δ − y) − log x,
        log(1 − δ − x) − log y) (:func:`dpviz.labs.audit.eps_from_rates`), x, y the upper rates of the counts."""
        with np.errstate(divide="ignore", invalid="ignore"):
            if method == "gdp":
                return -ndtri(table), ndtri(table)
            return np.log(np.maximum(1.0 - delta - table, 1e-300)), np.log(table)

    def score(fp, fn, terms):
        a, b = terms
        if method == "gdp":
            return a[fp] - b[fn]
        return np.maximum(a[fn] - b[fp], a[fp] - b[fn])

    t_sel, t_eval = lookups(up_sel), lookups(up_eval)
    s_plus = score(hn - below_neg, below_pos, t_sel)
    s_minus = score(below_neg, hn - below_pos, t_sel)
    best_plus = s_plus.max(axis=1) >= s_minus.max(axis=1)
    k = np.where(best_plus, s_plus.argmax(axis=1), s_minus.argmax(axis=1))
    t = taus[k]
    p_fp = np.where(best_plus, ndtr(-t), ndtr(t))
    p_fn = np.where(best_plus, ndtr(t - mu), ndtr(mu - t))
    fp = rng.binomial(m, p_fp)
    fn = rng.binomial(m, p_fn)
    if method == "gdp":  # gdp_epsilon(μ, δ) increases with μ: compare μ with the μ of the target
        ok = score(fp, fn, t_eval) >= gdp_mu_for(target, delta)
    else:
        ok = score(fp, fn, t_eval) >= target
    return float(np.mean(ok))


@dataclass(frozen=True)
class AuditPlan:
    """Outcome of :func:`plan_audit`: ``trials`` needed (all trainings; canaries for ``one-run``) or ``None`` when
    none up to ``max_trials`` suffice; ``certified`` at that size; ``runs``, the trainings dpviz's engine needs
    (one-run: about 2 per canary, :func:`one_run_from_trials`); ``seconds`` they take here."""

    method: str
    target: float
    eps_true: float
    mu: float
    delta: float
    trials: int | None
    certified: float
    seconds: float | None
    runs: int | None
    reason: str = ""
    curve: list[tuple[int, float]] = field(default_factory=list)  # (trials, ε certified with probability power)
    assumption: str = ""
    #: the probability with which an audit of ``trials`` reaches ``target`` (at least; see :func:`plan_audit`)
    power: float = POWER
    #: the fraction of :data:`PLAN_SIMULATIONS` simulated audits of ``trials`` that reach ``target`` (two-sided
    #: methods; None for one-run, planned from its binomial quantile alone)
    simulated: float | None = None

    @property
    def statement(self) -> str:
        """One sentence for the command line and the Audit page: what the planned count means."""
        if self.trials is None:
            return self.reason
        sim = ("" if self.simulated is None else
               f"; {self.simulated:.0%} of {PLAN_SIMULATIONS} simulated audits of this size on exact Gaussian scores "
               "reached it")
        return (f"{self.trials:,} trials ({self.method}) reach the target eps >= {self.target:g} with probability "
                f"about {self.power:.0%} or more, when the mechanism's true eps is {self.eps_true:.4g} (a Gaussian "
                f"trade-off curve, mu = {self.mu:.4g}) and the attack's scores are that sharp{sim}; with fewer "
                "trials the audit more often falls short.")

    def __post_init__(self):
        if self.method not in METHODS:
            raise ValueError(f"method must be one of {', '.join(METHODS)}, got {self.method!r}.")

    def to_dict(self) -> dict[str, Any]:
        from dataclasses import asdict

        d = asdict(self)
        d["curve"] = [list(x) for x in self.curve]
        return d


def plan_audit(*, target: float, eps_true: float, delta: float, method: str = "gdp", level: float = 0.95,
               seconds_per_trial: float | None = None, max_trials: int = 10**8, power: float = POWER) -> AuditPlan:
    """Trials at which an audit with ``method`` certifies ``target`` with probability at least ``power`` (default
    80 %) on a mechanism whose true guarantee is ``eps_true`` at ``delta``, taken to be μ-GDP with μ =
    :func:`gdp_mu_for` (eps_true, δ) (exact for Gaussian releases); the audit of :func:`_ideal_bound` at that power
    (its error counts at their binomial quantiles, the test's threshold the best one on the true curve).

    Issue 31: the former plan (counts equal to their expectations) was a median at best — for a true ε of 1.0 and a
    target of 0.5 (gdp), 40 simulated audits at its 4 896 trials reached the target in 30 % of runs.  A test
    simulates audits on exact Gaussian scores at the planned count and checks that at least 70 % reach the target.
    Time: ``runs`` × ``seconds_per_trial``.  The search doubles the trials, then bisects to 1 %."""
    if method not in METHODS:
        raise ValueError(f"--method must be one of {', '.join(METHODS)}, got {method!r}.")
    power = v.check_real("power (probability that the planned audit reaches the target)", power)
    if not 0.5 <= power < 1.0:
        raise ValueError(f"power (the probability that the planned audit reaches the target) must lie in [0.5, 1), "
                         f"got {power:g}; 0.8 is usual.")
    target = v.check_positive("target (epsilon to certify)", target)
    eps_true = v.check_positive("eps (the mechanism's true epsilon)", eps_true)
    delta = v.check_open_unit("delta", delta)
    level = _level(level)
    mu = gdp_mu_for(eps_true, delta)
    kw = dict(method=method, target=target, eps_true=eps_true, mu=mu, delta=delta, assumption=ASSUMPTIONS[method],
              power=power)
    if target >= eps_true:
        return AuditPlan(trials=None, certified=0.0, seconds=None, runs=None, reason=(
            f"the target {target:g} is not below {eps_true:.4g}, the epsilon the plan takes as the mechanism's true "
            f"one (the accountant's epsilon, an upper bound: the true epsilon may be smaller still): no audit can "
            f"certify it (a sound lower bound stays below the truth)."), **kw)

    def bound(n):
        return _ideal_bound(method, n, mu, delta, level, power)

    n, curve = 8, []
    while True:
        b = bound(n)
        curve.append((n, b))
        if b >= target:
            break
        if n >= max_trials:
            return AuditPlan(trials=None, certified=b, seconds=None, runs=None, curve=curve, reason=(
                f"more than {max_trials:.3g} trials: {method} certifies only {b:.3g} there" + (
                    " (with δ > 0 the one-run bound's term 2mδ grows with the canaries m, so it levels off)"
                    if method == "one-run" else "") + "."), **kw)
        n = min(2 * n, max_trials)
    lo, hi = n // 2, n
    while hi - lo > max(2, hi // 100):  # to 1 %
        mid = (lo + hi) // 2
        mid += mid % 2
        if bound(mid) >= target:
            hi = mid
        else:
            lo = mid
    simulated = None
    if method != "one-run":
        # the best test's count is not enough: the audit chooses its test on a noisy half (issue 31: 30 % of audits
        # at the former plan reached the target); grow the count until simulated audits reach it with the power
        lo_s, rate = None, _success_rate(method, hi, mu, delta, level, target)
        while rate < power:
            if hi >= max_trials:
                return AuditPlan(trials=None, certified=bound(hi), seconds=None, runs=None, curve=curve, reason=(
                    f"more than {max_trials:.3g} trials: at {hi:,} trials only {rate:.0%} of simulated {method} "
                    f"audits reach {target:g} (wanted: {power:.0%})."), **kw)
            lo_s, hi = hi, min(max_trials, int(hi * 1.25) + 2)
            rate = _success_rate(method, hi, mu, delta, level, target)
        while lo_s is not None and hi - lo_s > max(4, hi // 50):  # to 2 %
            mid = (lo_s + hi) // 2
            mid += mid % 2
            r_mid = _success_rate(method, mid, mu, delta, level, target)
            if r_mid >= power:
                hi, rate = mid, r_mid
            else:
                lo_s = mid
        simulated = rate
    if method == "one-run":  # 4 m trainings give one_run_canaries(m, m) canaries (m evaluation trials per side)
        m = max(2, hi // 2)
        while one_run_canaries(m, m) < hi:
            m += max(1, m // 100)
        runs = 4 * m
    else:
        runs = hi
    secs = None if seconds_per_trial is None else float(seconds_per_trial) * runs
    return AuditPlan(trials=hi, certified=bound(hi), seconds=secs, runs=runs, curve=curve, simulated=simulated, **kw)


def mechanism_for_plan(algorithm_id: str, data, loss, params) -> tuple[float, str, float, float | None]:
    """(ε of the mechanism, where it comes from, δ, CPU seconds per audit trial here) for :func:`plan_audit`: the
    matched accountant's ε of the noise the audit would use (:func:`dpviz.labs.audit._accountant`), and the audit's cost
    model (:func:`dpviz.labs.audit.audit_seconds`, at 1000 trials; ``None`` where it cannot be estimated).
    Raises ValueError where the setting does not run or no accountant gives an ε (Laplace noise, no noise)."""
    from dpviz.labs import audit as aud
    from dpviz.engine import simulate as sim

    params = dict(params)
    *_, plans, _ = sim._plan(algorithm_id, data, loss, None, 1, params)
    plan = plans[0]
    if not plan["run"]:
        raise ValueError(f"the calibration is infeasible, nothing to audit: {plan['cal'].reason}")
    eps, note = aud._accountant(algorithm_id, plan, sim.SPECS[algorithm_id])
    if eps is None or not eps > 0:
        raise ValueError(f"no epsilon to plan against: {note}")
    n = int(plan["n"])
    delta = float(plan["delta"]) if plan["delta"] else 1.0 / n**2
    try:
        per = aud.audit_seconds(algorithm_id, data, loss, params, 1000) / 1000.0
    except (ValueError, KeyError):
        per = None
    return float(eps), note, delta, per
