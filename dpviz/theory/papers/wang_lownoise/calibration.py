"""Wang, Lei, Ying & Zhou (wang-lownoise): the privacy of Algorithms 1 and 2 and their noise calibration.

Theorem 2 (Algorithm 1, pointwise) and Theorem 5 (Algorithm 2, pairwise), proof in §4.1: the two conditions on
σ at a split β of ε (:func:`conditions_at_beta`, :func:`sigma_of_beta`), where they hold
(:func:`feasible_beta_intervals`), the smallest feasible ε (:func:`min_feasible_eps`), the σ of a numerical RDP
accountant for the same mechanism (:func:`accountant_sigma`), and the catalogue calibrations
:func:`calibrate_dpsgd_rdp` and :func:`calibrate_dpsgd_rdp_pairwise`.  The privacy analysis is summarised in the
package docstring (:mod:`dpviz.theory.papers.wang_lownoise`).
"""

from __future__ import annotations

import functools
import math

import numpy as np

from dpviz.foundation import validate as v
from dpviz.theory.catalog import Calibration


#: σ²/G² >= this (Lemma 8's σ² >= 0.67 Δ² with Δ = 2G).
SIGMA2_MIN = 2.68
#: β search range: logit grid from (at most) 1e-12 to 1 − 1e-12.
BETA_EDGE = 1e-12
_GRID = 2001
_EPS_MAX = 1e6


# ----------------------------------------------------------------------------------------------------------------
# the privacy conditions of Theorems 2 and 5


def _const(pairwise: bool) -> float:
    return 56.0 if pairwise else 14.0


def _m(n: int, pairwise: bool) -> float:
    """The numerator of the log in the second condition: n (Theorem 2) or n/2 (Theorem 5)."""
    return n / 2.0 if pairwise else float(n)


def _s_lam(beta, n, eps, delta, T, pairwise):
    """σ²/G² and λ at β (numpy-vectorised)."""
    lam = math.log(1.0 / delta) / ((1.0 - beta) * eps) + 1.0
    s = _const(pairwise) * T / (beta * float(n) ** 2 * eps) * lam
    return s, lam


def _margins(beta, n, eps, delta, T, pairwise):
    """Relative slacks of the two conditions (>= 0 iff the condition holds), vectorised over β."""
    s, lam = _s_lam(beta, n, eps, delta, T, pairwise)
    m1 = s / SIGMA2_MIN - 1.0
    rhs = s / 6.0 * np.log(_m(n, pairwise) / (lam * (1.0 + s / 4.0)))
    m2 = (rhs - (lam - 1.0)) / (lam - 1.0)
    return m1, m2


def _check_common(n, eps, delta, T):
    n = v.check_n(n)
    eps = v.check_eps(eps)
    if not isinstance(delta, bool) and isinstance(delta, (int, float)) and delta == 0:
        raise ValueError(
            "delta = 0 is not possible for this algorithm: its privacy proof goes through Rényi DP, and converting "
            "Rényi DP to (eps, delta)-DP (Lemma 10) needs delta > 0; use e.g. delta = 1/n^2."
        )
    delta = v.check_delta(delta)
    T = v.check_int("T", T)
    return n, eps, delta, T


def _check_beta(beta) -> float:
    return v.check_open_unit("beta (the split of the privacy budget between the RDP and the conversion)", beta)


def _check_pairwise(pairwise) -> bool:
    if not isinstance(pairwise, bool):
        raise ValueError(f"pairwise must be True (Algorithm 2) or False (Algorithm 1), got {pairwise!r}.")
    return pairwise


def sigma_of_beta(*, n, eps, delta, T, G, beta, pairwise=False) -> float:
    r"""Noise standard deviation of Algorithm 1 / 2 at a given β (Wang, Lei, Ying & Zhou (wang-lownoise), Algorithm 1 line 5,
    Algorithm 2 line 5).

    .. math:: \sigma^2 = \frac{cG^2T}{\beta n^2\epsilon}\Big(\frac{\log(1/\delta)}{(1-\beta)\epsilon}+1\Big),
              \qquad c = 14\ \text{(Algorithm 1)},\ c = 56\ \text{(Algorithm 2, pairwise)}.

    This is the formula only: whether β satisfies the conditions of Theorem 2 / 5 is :func:`conditions_at_beta`.

    Parameters
    ----------
    n, eps, delta, T : int, float, float, int
        Sample size (>= 2), privacy budget (> 0), δ ∈ (0, 1), number of iterations (>= 1).
    G : float
        Lipschitz constant of the loss (> 0).
    beta : float
        The constant β ∈ (0, 1).
    pairwise : bool
        False: Algorithm 1 (constant 14); True: Algorithm 2 (constant 56).
    """
    n, eps, delta, T = _check_common(n, eps, delta, T)
    G = v.check_positive("G (the Lipschitz constant)", G)
    beta = _check_beta(beta)
    pairwise = _check_pairwise(pairwise)
    s, _ = _s_lam(beta, n, eps, delta, T, pairwise)
    return G * math.sqrt(s)


def conditions_at_beta(*, n, eps, delta, T, beta, pairwise=False) -> dict:
    r"""The two conditions of Theorem 2 (Algorithm 1) or Theorem 5 (Algorithm 2) at one β
    (Wang, Lei, Ying & Zhou (wang-lownoise), Theorems 2 and 5; Lemma 8 with Δ = 2G and γ = 1/n resp. 2/n).

    .. math:: \text{(i)}\ \sigma^2 \ge 2.68G^2, \qquad
              \text{(ii)}\ \lambda - 1 \le \frac{\sigma^2}{6G^2}\log\frac{n}{k\lambda(1+\sigma^2/(4G^2))},
              \quad \lambda = \frac{\log(1/\delta)}{(1-\beta)\epsilon}+1,

    with k = 1 (Theorem 2) or k = 2 (Theorem 5).  Both depend on σ²/G² only, so G is not needed.

    Returns
    -------
    dict
        ``sigma2_over_G2`` (σ²/G²), ``lambda`` (the Rényi order), ``cond1`` / ``cond2`` (bool),
        ``cond1_lhs`` = σ²/G², ``cond1_rhs`` = 2.68, ``cond2_lhs`` = λ − 1, ``cond2_rhs`` = the right-hand side,
        ``feasible`` = both hold.
    """
    n, eps, delta, T = _check_common(n, eps, delta, T)
    beta = _check_beta(beta)
    pairwise = _check_pairwise(pairwise)
    s, lam = _s_lam(beta, n, eps, delta, T, pairwise)
    rhs = s / 6.0 * math.log(_m(n, pairwise) / (lam * (1.0 + s / 4.0)))
    c1 = s >= SIGMA2_MIN
    c2 = lam - 1.0 <= rhs
    return {
        "beta": beta,
        "sigma2_over_G2": s,
        "lambda": lam,
        "cond1": bool(c1),
        "cond1_lhs": s,
        "cond1_rhs": SIGMA2_MIN,
        "cond2": bool(c2),
        "cond2_lhs": lam - 1.0,
        "cond2_rhs": rhs,
        "feasible": bool(c1 and c2),
    }


def _logit(p: float) -> float:
    return math.log(p) - math.log1p(-p)


def _expit(u):
    return 1.0 / (1.0 + np.exp(-u))


def _beta_grid_bounds(n, eps, delta, T, pairwise):
    """Lower / upper end of the β search in logit coordinates.  Below β_lo = 1e-3 K λ0 / 2.68 condition (ii) only
    gets worse (σ grows like 1/β), so the grid reaches below 1e-12 when that is where the feasible β live."""
    K = _const(pairwise) * T / (float(n) ** 2 * eps)
    lam0 = math.log(1.0 / delta) / eps + 1.0
    lo = min(BETA_EDGE, 1e-3 * K * lam0 / SIGMA2_MIN)
    lo = max(lo, 1e-300)
    return _logit(lo), _logit(1.0 - BETA_EDGE)


def _h(u: float, args) -> float:
    """min of the two relative slacks at β = expit(u) (scalar)."""
    beta = float(_expit(u))
    if not 0.0 < beta < 1.0:
        return -math.inf
    m1, m2 = _margins(beta, *args)
    return float(min(m1, m2))


def _edge(u_in: float, u_out: float, args, iters: int = 80) -> float:
    """Bisection between a feasible u_in and an infeasible u_out; returns a feasible point next to the edge."""
    for _ in range(iters):
        mid = 0.5 * (u_in + u_out)
        if _h(mid, args) >= 0.0:
            u_in = mid
        else:
            u_out = mid
        if abs(u_in - u_out) < 1e-13 * max(1.0, abs(u_in)):
            break
    return u_in


def _golden_max(f, a: float, b: float, iters: int = 80) -> tuple[float, float]:
    g = (math.sqrt(5.0) - 1.0) / 2.0
    c, d = b - g * (b - a), a + g * (b - a)
    fc, fd = f(c), f(d)
    for _ in range(iters):
        if fc >= fd:
            b, d, fd = d, c, fc
            c = b - g * (b - a)
            fc = f(c)
        else:
            a, c, fc = c, d, fd
            d = a + g * (b - a)
            fd = f(d)
    return (c, fc) if fc >= fd else (d, fd)


def _search(n, eps, delta, T, pairwise, refine: bool = True):
    """Feasible β intervals (list of (lo, hi), each end feasible), plus the grid and its slacks.

    A logit-spaced grid of 2001 β covers (β_lo, 1 − 1e-12); each run of feasible grid points is widened to its true
    edges by bisection.  When no grid point is feasible, the best grid point is refined by golden-section search, so
    that narrow feasible windows (near the smallest feasible ε) are not missed.
    """
    args = (n, eps, delta, T, pairwise)
    u_lo, u_hi = _beta_grid_bounds(n, eps, delta, T, pairwise)
    u = np.linspace(u_lo, u_hi, _GRID)
    beta = _expit(u)
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        m1, m2 = _margins(beta, *args)
    h = np.minimum(m1, m2)
    h = np.where(np.isnan(h), -np.inf, h)
    ok = h >= 0.0
    intervals = []
    if not ok.any():
        k = int(np.argmax(h))
        a, b = u[max(k - 1, 0)], u[min(k + 1, _GRID - 1)]
        ub, hb = _golden_max(lambda x: _h(x, args), a, b)
        if hb >= 0.0:
            lo = _edge(ub, a, args) if refine and _h(a, args) < 0 else ub
            hi = _edge(ub, b, args) if refine and _h(b, args) < 0 else ub
            intervals.append((float(_expit(lo)), float(_expit(hi))))
        return intervals, (beta, m1, m2)
    idx = np.flatnonzero(ok)
    runs = np.split(idx, np.flatnonzero(np.diff(idx) > 1) + 1)
    for run in runs:
        i, j = int(run[0]), int(run[-1])
        lo_u = _edge(u[i], u[i - 1], args) if (refine and i > 0) else u[i]
        hi_u = _edge(u[j], u[j + 1], args) if (refine and j < _GRID - 1) else u[j]
        intervals.append((float(_expit(lo_u)), float(_expit(hi_u))))
    return intervals, (beta, m1, m2)


def feasible_beta_intervals(*, n, eps, delta, T, pairwise=False) -> list[tuple[float, float]]:
    r"""The β ∈ (0, 1) satisfying both conditions of Theorem 2 / Theorem 5 (Wang, Lei, Ying & Zhou (wang-lownoise)), as a list of
    closed intervals (usually one; empty when no β works).

    The search covers (β_lo, 1 − 10⁻¹²) on a logit grid, β_lo <= 10⁻¹² (lower still when n ε is so large that the
    feasible β are tiny), and locates each edge by bisection; every returned end point satisfies both conditions.
    """
    n, eps, delta, T = _check_common(n, eps, delta, T)
    pairwise = _check_pairwise(pairwise)
    return _search(n, eps, delta, T, pairwise)[0]


def sigma_minimising_beta(*, eps, delta) -> float:
    r"""The β minimising σ²(β) over all of (0, 1), ignoring the conditions (Wang, Lei, Ying & Zhou (wang-lownoise), Algorithm 1).

    σ² ∝ (a + 1 − β)/(β(1 − β)) with a = log(1/δ)/ε; setting the derivative to zero gives
    β² − 2bβ + b = 0 with b = a + 1, i.e.

    .. math:: \beta^\star = b - \sqrt{b^2 - b} = \frac{1}{1+\sqrt{1-1/b}} \in (1/2, 1).

    σ² decreases on (0, β*) and increases on (β*, 1), so the σ-minimising *feasible* β (the rule of §5: "choose
    the β with the smallest variance") is β* clipped to the feasible interval.  For large log(1/δ)/ε, β* ≈ 1/2,
    which is why Wang, Lei, Ying & Zhang (Remark 4) choose the feasible β closest to 1/2.
    """
    eps = v.check_eps(eps)
    delta = v.check_delta(delta)
    b = math.log(1.0 / delta) / eps + 1.0
    return 1.0 / (1.0 + math.sqrt(1.0 - 1.0 / b))


def _exists(n, eps, delta, T, pairwise) -> bool:
    return bool(_search(n, eps, delta, T, pairwise, refine=False)[0])


def min_feasible_eps(*, n, delta, T, pairwise=False, start=None) -> float:
    r"""Smallest ε at which some β ∈ (0, 1) satisfies Theorem 2's (or Theorem 5's) conditions, other settings fixed
    (Wang, Lei, Ying & Zhou (wang-lownoise), Theorems 2 and 5).

    Feasibility is monotone in ε (a larger ε moves the curve β ↦ (λ, σ²/G²) down and extends it to smaller λ, and
    the feasible region in the (λ, σ²/G²) plane shrinks as λ grows), so the boundary is found by bracketing (doubling
    ε) and bisection.  Returns ``inf`` if no ε <= 10⁶ works: with λ → 1 condition (ii) needs
    n/k > 1.67 (k = 1 pointwise, 2 pairwise), so Algorithm 2 with n <= 3 is never feasible.
    The returned ε is itself feasible (it is the upper end of the final bisection bracket).
    """
    n = v.check_n(n)
    delta = v.check_delta(delta)
    T = v.check_int("T", T)
    pairwise = _check_pairwise(pairwise)
    hi = 1.0 if start is None else v.check_eps(start, "start")
    lo = 0.0
    if not math.isfinite(hi):  # finite start: the halving / doubling below must terminate
        raise ValueError(f"start must be a finite eps, got {hi!r}.")
    if _exists(n, hi, delta, T, pairwise):
        for _ in range(2000):  # halvings until 1e-8 (at most ~1060 from the largest float)
            if not hi > 1e-8:
                return hi
            trial = hi / 2.0
            if not _exists(n, trial, delta, T, pairwise):
                lo = trial
                break
            hi = trial
        else:
            return hi
    else:
        lo = hi
        for _ in range(2000):  # doublings until _EPS_MAX (finite start, so this cap is never reached)
            if _exists(n, hi, delta, T, pairwise):
                break
            lo = hi
            hi *= 2.0
            if hi > _EPS_MAX:
                return math.inf
    for _ in range(60):
        mid = 0.5 * (lo + hi)
        if _exists(n, mid, delta, T, pairwise):
            hi = mid
        else:
            lo = mid
        if hi - lo <= 1e-7 * hi:
            break
    return hi




# ----------------------------------------------------------------------------------------------------------------
# numerical accountant


ACCOUNTANT_NOTE = (
    "The accountant's sigma = 2G z, where z is the smallest noise multiplier for which T steps of the paper's own "
    "mechanism are (eps, delta)-DP: each step adds Gaussian noise to the gradient of one example (or one pair) drawn "
    "uniformly without replacement, neighbouring data sets differ in one replaced example (so the sensitivity is "
    "2G), accounted by the RDP accountant of dp_accounting for sampling without replacement under replace-one "
    "neighbours (SampledWithoutReplacementDpEvent, Wang, Balle & Kasiviswanathan 2019; sampling rate 1/n, or 2/n "
    "for a pair). Mechanism: without-replacement, replace-one, RDP. The gap between the accountant's sigma and the "
    "paper's sigma is the price of Wang, Lei, Ying & Zhou's closed-form Lemma 8 bound and of the beta split; the "
    "Accounting page compares more accountants (Poisson add/remove by RDP and PLD)."
)

#: The mechanism the accountant σ is computed for (shown beside the number).
ACCOUNTANT_MECHANISM = "sampling without replacement, replace-one neighbours (sensitivity 2G), RDP"


@functools.lru_cache(maxsize=4096)
def _acc_z(q: float, T: int, eps: float, delta: float) -> float:
    """Smallest noise multiplier (relative precision 1e-6) of T Gaussian steps on a sample drawn without replacement
    at rate q, replace-one neighbours, for (ε, δ) by RDP.  The same call and precision as the matched RDP row of
    :func:`dpviz.labs.privacy_lab.sigma_for`, so Calibrate and Accounting show one number for the same setting."""
    from dpviz.theory.accounting import noise_multiplier_general

    return noise_multiplier_general(eps=eps, delta=delta, steps=T, sampling_prob=q, sampling="without-replacement",
                                    neighbouring="replace-one", rtol=1e-6)


def accountant_sigma(*, n, eps, delta, T, G, pairwise=False) -> float:
    r"""σ from a tight numerical RDP accountant for the mechanism of Algorithm 1 / 2 (Wang, Lei, Ying & Zhou (wang-lownoise),
    Algorithm 1 and Theorem 2's proof: one example per step, gradient sensitivity 2G under replace-one adjacency).

    Returns :math:`2G\,z`, with z the smallest noise multiplier (relative precision about 1e-6, rounded up) for which
    T Gaussian mechanisms on a sample of one example (a pair: rate 2/n) drawn without replacement are (ε, δ)-DP under
    replace-one neighbours by :class:`dp_accounting.rdp.RdpAccountant` (``SampledWithoutReplacementDpEvent``); see
    :data:`ACCOUNTANT_NOTE`.
    Cached; about 0.1–0.3 s per new setting.
    """
    n, eps, delta, T = _check_common(n, eps, delta, T)
    G = v.check_positive("G (the Lipschitz constant)", G)
    pairwise = _check_pairwise(pairwise)
    q = min(1.0, (2.0 if pairwise else 1.0) / n)
    return 2.0 * G * _acc_z(q, T, eps, delta)


# ----------------------------------------------------------------------------------------------------------------
# calibrations


def _formula(pairwise: bool) -> str:
    c, k = ("56", "2") if pairwise else ("14", "")
    return (
        rf"\sigma^2=\frac{{{c}G^2T}}{{\beta n^2\epsilon}}\Big(\frac{{\log(1/\delta)}}{{(1-\beta)\epsilon}}+1\Big)"
        rf"\ \text{{with}}\ \sigma^2\ge2.68G^2,\ "
        rf"\lambda-1\le\frac{{\sigma^2}}{{6G^2}}\log\frac{{n}}{{{k}\lambda(1+\sigma^2/(4G^2))}},\ "
        r"\lambda=\frac{\log(1/\delta)}{(1-\beta)\epsilon}+1"
    )


def _formula_numbers(n, eps, delta, T, G, beta, s, lam, pairwise) -> str:
    c = "56" if pairwise else "14"
    return (
        rf"\beta={beta:.4g},\ \lambda=\frac{{\log(1/{delta:.3g})}}{{(1-{beta:.4g})\cdot{eps:g}}}+1={lam:.4g},\ "
        rf"\sigma^2=\frac{{{c}\cdot{G:.4g}^2\cdot{T}}}{{{beta:.4g}\cdot{n}^2\cdot{eps:g}}}\cdot{lam:.4g}"
        rf"={G * G * s:.4g},\ \sigma={G * math.sqrt(s):.4g}"
    )


def _resolve_G(G, M, L, R, alpha):
    if G is not None:
        return v.check_positive("G (the Lipschitz constant)", G), None
    missing = [name for name, val in (("M", M), ("L", L), ("R", R), ("alpha", alpha)) if val is None]
    if missing:
        raise ValueError(
            "give the Lipschitz constant G, or M, L, R and alpha to derive the gradient bound G = M + L R^alpha "
            f"(Wang, Lei, Ying & Zhang, Theorem 11); missing: {', '.join(missing)}."
        )
    M = v.check_nonnegative("M", M)
    L = v.check_positive("L", L)
    R = v.check_positive("R", R)
    alpha = v.check_unit("alpha (the Hölder exponent)", alpha)
    G = M + L * R**alpha
    return G, (f"G = M + L R^alpha = {M:g} + {L:g} * {R:g}^{alpha:g} = {G:.4g} (gradient bound on the ball of radius "
               "R; M read as sup_z ||df(0; z)||, as in Remark 2).")


def _fmt_up(x: float) -> str:
    """x rounded *up* to 4 significant digits (so that the printed value is still feasible)."""
    if not math.isfinite(x) or x <= 0:
        return f"{x:g}"
    e = math.floor(math.log10(x)) - 3
    return f"{math.ceil(x / 10.0**e - 1e-9) * 10.0**e:.4g}"


def _cond2_text(n, at, pairwise) -> str:
    """Condition (ii) at one β in words: its two sides, and why it cannot hold when the right-hand side is negative."""
    k = 2 if pairwise else 1
    s, lam, lhs, rhs = at["sigma2_over_G2"], at["lambda"], at["cond2_lhs"], at["cond2_rhs"]
    text = f"lambda - 1 = {lhs:.4g} {'<=' if at['cond2'] else '>'} {rhs:.4g}"
    if rhs < 0:
        inside = k * lam * (1.0 + s / 4.0)
        text += (f" (the right-hand side sigma^2/(6G^2) log(n/({k if k > 1 else ''}lambda(1 + sigma^2/(4G^2)))) is "
                 f"negative because n = {n} is smaller than {k if k > 1 else ''}lambda (1 + sigma^2/(4G^2)) = "
                 f"{inside:.4g}, so condition (ii) cannot hold at this beta)")
    return text


def _which_fails(n, eps, delta, T, pairwise, grid) -> str:
    beta, m1, m2 = grid
    c1, c2 = m1 >= 0, m2 >= 0

    def where(mask):
        if not mask.any():
            return "for no beta in (0, 1)"
        if mask.all():
            return "for every beta in (0, 1)"
        idx = np.flatnonzero(mask)
        return f"only for beta in [{beta[idx[0]]:.3g}, {beta[idx[-1]]:.3g}]"

    h = np.minimum(m1, m2)
    h = np.where(np.isnan(h), -np.inf, h)
    b_best = float(beta[int(np.argmax(h))])
    at = conditions_at_beta(n=n, eps=eps, delta=delta, T=T, beta=b_best, pairwise=pairwise)
    k = "2" if pairwise else ""
    parts = [
        f"no beta in (0, 1) satisfies both privacy conditions of {'Theorem 5' if pairwise else 'Theorem 2'}: "
        f"(i) sigma^2 >= 2.68 G^2 holds {where(c1)}, "
        f"(ii) lambda - 1 <= sigma^2/(6G^2) log(n/({k}lambda(1 + sigma^2/(4G^2)))) holds {where(c2)}",
        f"at the closest beta = {b_best:.3g}: sigma^2/G^2 = {at['sigma2_over_G2']:.4g} "
        f"{'>=' if at['cond1'] else '<'} 2.68 and {_cond2_text(n, at, pairwise)}",
    ]
    return "; ".join(parts)


def _calibrate(alg_id, *, n, eps, delta, T, G, M, L, R, alpha, d, eta, beta, pairwise, accountant_extra=True) -> Calibration:
    n, eps, delta, T = _check_common(n, eps, delta, T)
    G, G_note = _resolve_G(G, M, L, R, alpha)
    if d is not None:
        d = v.check_int("d", d)
    if eta is not None:
        eta = v.check_positive("eta", eta)
    if beta is not None:
        beta = _check_beta(beta)
    thm = "Theorem 5" if pairwise else "Theorem 2"
    notes = [] if G_note is None else [G_note]
    formula = _formula(pairwise)
    intervals, grid = _search(n, eps, delta, T, pairwise)
    b_star = sigma_minimising_beta(eps=eps, delta=delta)
    extras: dict = {
        "G": G,
        "sensitivity": 2.0 * G,
        "adjacency": "replace-one",
        "sampling_rate": (2.0 if pairwise else 1.0) / n,
        "feasible_intervals": [list(iv) for iv in intervals],
        "beta_unconstrained_opt": b_star,
    }
    if pairwise:
        notes.append(
            "Theorem 5's proof ends with log(n/(lambda(1 + sigma^2/(4G^2)))) while its statement (and Lemma 8 with "
            "sampling rate 2/n) has log(n/(2 lambda(...))); dpviz uses the statement's stricter condition."
        )
    if accountant_extra:
        try:
            acc = accountant_sigma(n=n, eps=eps, delta=delta, T=T, G=G, pairwise=pairwise)
            extras["accountant_sigma"] = acc
            from dpviz.theory import accounting

            floor = accounting.wor_floor_note(eps, delta, T, min(1.0, (2.0 if pairwise else 1.0) / n))
            extras["accountant_note"] = ACCOUNTANT_NOTE
            if floor is not None:  # its σ is certified only through ε = 0 (accounting.wor_rdp_floor)
                extras["accountant_caveat"] = floor
            extras["accountant_mechanism"] = ACCOUNTANT_MECHANISM
        except Exception as exc:  # noqa: BLE001 - the accountant is an optional extra
            extras["accountant_note"] = f"numerical accountant unavailable: {exc}"

    # pick beta: the feasible beta with the smallest sigma (rule of wang-lownoise §5) = beta* clipped to an interval
    best = None
    half = None
    for lo, hi in intervals:
        cand = min(max(b_star, lo), hi)
        s_c, _ = _s_lam(cand, n, eps, delta, T, pairwise)
        if best is None or s_c < best[1]:
            best = (cand, s_c, (lo, hi))
        ch = min(max(0.5, lo), hi)
        if half is None or abs(ch - 0.5) < abs(half - 0.5):
            half = ch

    if beta is not None:
        cond = conditions_at_beta(n=n, eps=eps, delta=delta, T=T, beta=beta, pairwise=pairwise)
        s, lam = cond["sigma2_over_G2"], cond["lambda"]
        extras.update({"lambda": lam, "conditions": cond, "beta_given": True})
        interval = None
        for lo, hi in intervals:
            if lo <= beta <= hi:
                interval = (lo, hi)
        if interval is None and best is not None:
            interval = best[2]
        if half is not None:
            extras["beta_half_sigma"] = G * math.sqrt(_s_lam(half, n, eps, delta, T, pairwise)[0])
        if best is not None:
            extras["beta_best"] = best[0]
            extras["sigma_best"] = G * math.sqrt(best[1])
        cal = Calibration(
            id=alg_id, feasible=cond["feasible"], sigma=G * math.sqrt(s), beta=beta, beta_interval=interval,
            beta_half=half, T=T, eta=eta, formula=formula,
            formula_numbers=_formula_numbers(n, eps, delta, T, G, beta, s, lam, pairwise), notes=notes, extras=extras,
        )
        if not cond["feasible"]:
            failing = []
            if not cond["cond1"]:
                failing.append(f"(i) sigma^2/G^2 = {s:.4g} < 2.68")
            if not cond["cond2"]:
                failing.append(f"(ii) {_cond2_text(n, cond, pairwise)}")
            cal.reason = f"at the given beta = {beta:g} the condition(s) of {thm} fail: " + " and ".join(failing)
            if best is not None:
                cal.fix = (
                    f"use a beta in [{best[2][0]:.4g}, {best[2][1]:.4g}], e.g. the sigma-minimising beta = "
                    f"{best[0]:.4g} (sigma = {G * math.sqrt(best[1]):.4g}); or leave beta unset to choose it"
                )
            else:
                e_min = min_feasible_eps(n=n, delta=delta, T=T, pairwise=pairwise, start=eps)
                extras["eps_min"] = e_min
                cal.fix = _eps_fix(e_min, n, pairwise)
        else:
            cal.reason = f"beta = {beta:g} satisfies both conditions of {thm}"
        return cal

    if best is None:
        e_min = min_feasible_eps(n=n, delta=delta, T=T, pairwise=pairwise, start=eps)
        extras["eps_min"] = e_min
        s_u, lam_u = _s_lam(b_star, n, eps, delta, T, pairwise)
        extras["sigma_unconstrained"] = G * math.sqrt(s_u)
        extras["lambda"] = lam_u
        return Calibration(
            id=alg_id, feasible=False, sigma=None, T=T, eta=eta,
            reason=_which_fails(n, eps, delta, T, pairwise, grid),
            fix=_eps_fix(e_min, n, pairwise), formula=formula, notes=notes, extras=extras,
        )

    beta_c, s, interval = best
    lam = _s_lam(beta_c, n, eps, delta, T, pairwise)[1]
    s_u = _s_lam(b_star, n, eps, delta, T, pairwise)[0]
    extras["sigma_unconstrained"] = G * math.sqrt(s_u)
    if s > s_u * (1.0 + 1e-9):
        notes.append(
            f"Without the privacy conditions the smallest sigma would be {G * math.sqrt(s_u):.4g} at beta = "
            f"{b_star:.4g} (the paper's §5 experiments search beta in [0.0001, 0.9999] for the smallest variance); "
            f"{thm}'s conditions exclude it, and condition (i) alone forces sigma >= sqrt(2.68) G = "
            f"{math.sqrt(SIGMA2_MIN) * G:.4g}."
        )
    extras["lambda"] = lam
    extras["conditions"] = conditions_at_beta(n=n, eps=eps, delta=delta, T=T, beta=beta_c, pairwise=pairwise)
    extras["beta_half_sigma"] = G * math.sqrt(_s_lam(half, n, eps, delta, T, pairwise)[0])
    if len(intervals) > 1:
        notes.append(f"The feasible beta form {len(intervals)} separate intervals: {intervals}.")
    if interval[1] < 1e-4:
        notes.append(
            f"Only tiny beta are feasible (beta <= {interval[1]:.3g}): at large n eps the noise needed is so small "
            "that condition (i) sigma^2 >= 2.68 G^2 forces beta far below the 1e-4 grid of the paper's §5."
        )
    return Calibration(
        id=alg_id, feasible=True, sigma=G * math.sqrt(s), beta=beta_c, beta_interval=interval, beta_half=half,
        T=T, eta=eta,
        reason=(
            f"beta = {beta_c:.4g} minimises sigma over the feasible beta [{interval[0]:.4g}, {interval[1]:.4g}] "
            f"of {thm} (Rényi order lambda = {lam:.4g})"
        ),
        formula=formula, formula_numbers=_formula_numbers(n, eps, delta, T, G, beta_c, s, lam, pairwise),
        notes=notes, extras=extras,
    )


def _eps_fix(e_min: float, n: int, pairwise: bool) -> str:
    if not math.isfinite(e_min):
        if pairwise and n <= 3:
            return ("no privacy budget works: with n <= 3 condition (ii) of Theorem 5 can never hold "
                    "(it needs n/2 > 1.67); use n >= 4")
        return f"no eps <= {_EPS_MAX:g} makes the conditions hold at these n, T, delta; use more data or fewer steps"
    return f"increase eps to at least {_fmt_up(e_min)} (other settings fixed), or use more data n"


def calibrate_dpsgd_rdp(*, n, eps, delta, T, G=None, M=None, L=None, R=None, alpha=None, d=None, eta=None,
                        beta=None, accountant_extra=True) -> Calibration:
    r"""Noise of DP-SGD (gradient perturbation, Rényi accounting) for pointwise learning.

    Wang, Lei, Ying & Zhou (wang-lownoise), Algorithm 1 (line 5) and Theorem 2 (privacy); the same as Algorithm 2 / Theorem 11 of
    Wang, Lei, Ying & Zhang (wang-nonsmooth) with G = M + L R^α:

    .. math:: \sigma^2 = \frac{14G^2T}{\beta n^2\epsilon}\Big(\frac{\log(1/\delta)}{(1-\beta)\epsilon}+1\Big),

    (ε, δ)-DP if σ² >= 2.68G² and λ − 1 <= σ²/(6G²) log(n/(λ(1 + σ²/(4G²)))) with
    λ = log(1/δ)/((1−β)ε) + 1.

    β: if not given, all of (0, 1) is searched (:func:`feasible_beta_intervals`) and the feasible β with the smallest
    σ is returned (the rule of §5; = :func:`sigma_minimising_beta` clipped to the feasible interval).  ``beta_half``
    is the feasible β closest to 1/2 (wang-nonsmooth, Remark 4), with its σ in ``extras['beta_half_sigma']``.

    Parameters
    ----------
    n, eps, delta, T
        Sample size (>= 2), privacy budget (> 0), δ ∈ (0, 1) (δ > 0 is required by the RDP → DP conversion,
        Lemma 10), number of iterations.
    G : float, optional
        Lipschitz constant.  If omitted, G = M + L R^α from ``M, L, R, alpha`` (wang-nonsmooth, Theorem 11).
    d, eta : optional
        Dimension (validated, unused by the noise) and step size (echoed in the result).
    beta : float, optional
        Use this β instead of searching; the result says whether it satisfies the conditions.

    Returns
    -------
    Calibration
        ``sigma``, ``beta``, ``beta_interval``, ``beta_half``; ``extras``: ``lambda`` (the Rényi order), ``G``,
        ``sensitivity`` (2G), ``accountant_sigma`` / ``accountant_note`` (numerical RDP accountant), ...  When no β
        is feasible: ``feasible=False``, ``reason`` says which condition fails with numbers, ``fix`` gives the
        smallest feasible ε (also ``extras['eps_min']``).  ``accountant_extra=False`` skips the (slower) numerical
        accountant, e.g. for feasibility maps.
    """
    return _calibrate("dpsgd-rdp", n=n, eps=eps, delta=delta, T=T, G=G, M=M, L=L, R=R, alpha=alpha, d=d, eta=eta,
                      beta=beta, pairwise=False, accountant_extra=accountant_extra)


def calibrate_dpsgd_rdp_pairwise(*, n, eps, delta, T, G=None, M=None, L=None, R=None, alpha=None, d=None, eta=None,
                                 beta=None, accountant_extra=True) -> Calibration:
    r"""Noise of DP-SGD for pairwise learning (DP-SGD-pairwise).

    Wang, Lei, Ying & Zhou (wang-lownoise), Algorithm 2 (line 5) and Theorem 5 (privacy; Lemma 8 with sampling rate 2/n):

    .. math:: \sigma^2 = \frac{56G^2T}{\beta n^2\epsilon}\Big(\frac{\log(1/\delta)}{(1-\beta)\epsilon}+1\Big),

    (ε, δ)-DP if σ² >= 2.68G² and λ − 1 <= σ²/(6G²) log(n/(2λ(1 + σ²/(4G²)))), λ = log(1/δ)/((1−β)ε) + 1.
    The last line of the proof of Theorem 5 drops the factor 2 in the log; dpviz uses the statement (see notes).

    Parameters and result as in :func:`calibrate_dpsgd_rdp`.
    """
    return _calibrate("dpsgd-rdp-pairwise", n=n, eps=eps, delta=delta, T=T, G=G, M=M, L=L, R=R, alpha=alpha, d=d,
                      eta=eta, beta=beta, pairwise=True, accountant_extra=accountant_extra)
