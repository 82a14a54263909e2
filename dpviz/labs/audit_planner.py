"""The audit planner: how many trials (or canaries) an audit needs to certify a target ε, and the time that takes.

For a mechanism whose true trade-off curve is G_μ (the μ-GDP curve of Dong, Roth & Su 2022, Definition 2.7; exact
for Gaussian releases), :func:`plan_audit` finds the trials at which an audit with each method of
:data:`dpviz.labs.audit_methods.METHODS` -- Clopper–Pearson (:mod:`dpviz.labs.canary_audit`), GDP-based or one-run
(:mod:`dpviz.labs.audit_methods`) -- certifies the target with a given probability (its power), checked by
simulated audits on exact Gaussian scores; :func:`mechanism_for_plan` reads the mechanism's ε and the cost of one
trial from a dashboard or command-line setting.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from scipy import optimize, stats

from dpviz.foundation import validate as v
from dpviz.labs.audit_methods import (ASSUMPTIONS, METHODS, _cp_upper, _one_run_grid, mu_from_rates,
                                      one_run_canaries, one_run_epsilon)
from dpviz.labs.tradeoff import _level, gdp_epsilon, gdp_mu_for, tradeoff_gdp

__all__ = ["POWER", "PLAN_SIMULATIONS", "AuditPlan", "plan_audit", "mechanism_for_plan"]

#: Default probability with which a planned audit reaches its target (:func:`plan_audit`).
POWER = 0.8


def _ideal_bound(method: str, trials: int, mu: float, delta: float, level: float, power: float | None = None) -> float:
    """The ε lower bound an audit with ``trials`` (all trainings; canaries for one-run) certifies on a mechanism whose
    curve is G_μ, with the test's threshold on the true curve.  ``power`` None: every error count equals its
    expectation (a typical run, reached about half the time).  ``power`` p: every count at its binomial p-quantile
    instead — for the two-sided tests each of the two counts at its √p-quantile, so both are at most that with
    probability >= √p·√p = p (they are independent) and, the certified ε falling as either count grows, the audit
    certifies at least this bound with probability >= p; for one-run the right guesses at their (1 − p)-quantile."""
    from dpviz.labs.canary_audit import eps_from_rates, evaluation_trials_per_side

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
    """The two-sided Clopper–Pearson upper bounds of :func:`dpviz.labs.canary_audit.clopper_pearson` for every count
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
    :func:`dpviz.labs.canary_audit.distinguish`) of ``trials`` trials on exact Gaussian scores (N(0, 1) on D, N(μ, 1) on D')
    that certify ``target``, simulated as those audits run: the test (threshold and direction) is the best of their
    candidate thresholds (quantiles of the pooled scores; here those of the pooled distribution) on the selection half,
    its errors counted on the evaluation half, Clopper–Pearson at ``level``.  The counts are drawn directly
    (multinomial over the candidates' bins for the selection half, binomial for the evaluation half), so a simulated
    audit costs microseconds instead of the real one's tenth of a second; choosing the test on a noisy half is what
    makes the real audit need about twice the trials of the best test's (issue 31)."""
    from dpviz.labs.canary_audit import evaluation_trials_per_side

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
        log(1 − δ − x) − log y) (:func:`dpviz.labs.canary_audit.eps_from_rates`), x, y the upper rates of the counts."""
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
    matched accountant's ε of the noise the audit would use (:func:`dpviz.labs.canary_audit._accountant`), and the audit's cost
    model (:func:`dpviz.labs.canary_audit.audit_seconds`, at 1000 trials; ``None`` where it cannot be estimated).
    Raises ValueError where the setting does not run or no accountant gives an ε (Laplace noise, no noise)."""
    from dpviz.labs import canary_audit as aud
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
