"""Wang, Lei, Ying & Zhou — differentially private SGD with low noise (pointwise and pairwise learning).

Paper: Wang, Lei, Ying & Zhou (wang-lownoise); full reference in docs/papers.md.  Losses are non-negative, convex and G-Lipschitz (Assumptions 1–2), and
either L-smooth or α-Hölder smooth with parameter L (Definition 3, α ∈ [0, 1)).  The "low-noise" case is
F(w*) = 0 (realizable setting).

What this module provides

* the catalogue algorithms ``dpsgd-rdp`` (Algorithm 1, DP-SGD for pointwise learning) and ``dpsgd-rdp-pairwise``
  (Algorithm 2, DP-SGD-pairwise) with their calibrations :func:`calibrate_dpsgd_rdp` and
  :func:`calibrate_dpsgd_rdp_pairwise` (the privacy theorems, Theorem 2 and Theorem 5);
* :func:`sigma_of_beta` (σ as a function of the free constant β), :func:`conditions_at_beta` (the two conditions
  of Theorems 2 / 5 at one β), :func:`feasible_beta_intervals` (where they hold) and :func:`accountant_sigma` (the
  σ a numerical RDP accountant gives for the same mechanism);
* the utility theorems, ids ``wang-lownoise-thm<k><part>`` with part ``a`` = general case and ``b`` = low-noise
  case F(w*) = 0 — every one of the four utility theorems has exactly these two parts:

  ====================  ============================  ==============  ===========================================
  id                    paper                         algorithm       loss
  ====================  ============================  ==============  ===========================================
  wang-lownoise-thm3a   Theorem 3 (a)                 Algorithm 1     L-smooth, general
  wang-lownoise-thm3b   Theorem 3 (b)                 Algorithm 1     L-smooth, F(w*) = 0
  wang-lownoise-thm4a   Theorem 4 (a)                 Algorithm 1     α-Hölder smooth, general
  wang-lownoise-thm4b   Theorem 4 (b)                 Algorithm 1     α-Hölder smooth, F(w*) = 0
  wang-lownoise-thm6a   Theorem 6 (a)                 Algorithm 2     L-smooth pairwise, general
  wang-lownoise-thm6b   Theorem 6 (b)                 Algorithm 2     L-smooth pairwise, F̄(w*) = 0
  wang-lownoise-thm7a   Theorem 7 (a)                 Algorithm 2     α-Hölder smooth pairwise, general
  wang-lownoise-thm7b   Theorem 7 (b)                 Algorithm 2     α-Hölder smooth pairwise, F̄(w*) = 0
  ====================  ============================  ==============  ===========================================

* explicit-constant versions of all eight utility theorems (``explicit_bound_thm3a`` ... ``explicit_bound_thm7b``),
  from the appendix: M_{α,1/2/3} (eq. (4), (5), Lemma 14 (b)), Theorems 15 and 16, Lemmas 17, 19 and 20; for the
  α-Hölder Theorems 4 and 7 the proof's fixed point ("the solution of the above inequality is O(·)") is solved
  explicitly (:func:`young_constant`, :func:`explicit_holder_risk`);
* Tables 1 and 2 as ``wang-lownoise-table1`` (pointwise) and ``wang-lownoise-table2`` (pairwise).

Privacy analysis (proof of Theorem 2, §4.1).  Adjacency is *replace-one* (Definition 1: S and S̃ differ in one
datum), so the ℓ2-sensitivity of one example's gradient is 2G.  Lemma 8 (Liang et al.; subsampling without
replacement of k of n examples, rate γ = k/n) with Δ = 2G and γ = 1/n gives per-step RDP
(λ, 3.5γ²λΔ²/σ²) = (λ, 14λG²/(n²σ²)) provided σ² >= 0.67Δ² = 2.68G² and
λ − 1 <= σ²/(6G²) log(n/(λ(1 + σ²/(4G²)))).  With σ² = 14G²T λ/(βn²ε) and λ = log(1/δ)/((1−β)ε) + 1 the T-fold
composition is (λ, βε)-RDP, and Lemma 10 turns it into (βε + (1−β)ε, δ) = (ε, δ)-DP.  Algorithm 2 samples a pair
(γ = 2/n): σ² = 56G²Tλ/(βn²ε) and the log argument is n/(2λ(1 + σ²/(4G²))).

Both conditions depend on σ²/G² only, so feasibility does not depend on G.  Theorem 11 of Wang, Lei, Ying & Zhang
(wang-nonsmooth) is the same statement with G = M + L R^α; :func:`calibrate_dpsgd_rdp` accepts (M, L, R, α) instead of G.
"""

from __future__ import annotations

import functools
import math

import numpy as np

from dpviz import _validate as v
from dpviz.catalog import Algorithm, BoundResult, Calibration, ComparisonRow, ComparisonTable, Paper, Risk, Term, Theorem
from dpviz.papers._common import log_inv as _ld, rate_opt as _rate_opt

__all__ = [
    "m_alpha_1",
    "m_alpha_2",
    "m_alpha_3",
    "generalization_thm15",
    "optimization_thm16",
    "explicit_smooth_risk",
    "explicit_bound_thm3a",
    "explicit_bound_thm3b",
    "explicit_bound_thm6a",
    "explicit_bound_thm6b",
    "m_bar_alpha_3",
    "young_constant",
    "largest_root",
    "explicit_holder_risk",
    "explicit_bound_thm4a",
    "explicit_bound_thm4b",
    "explicit_bound_thm7a",
    "explicit_bound_thm7b",
    "PAPER",
    "ALGORITHMS",
    "THEOREMS",
    "TABLES",
    "sigma_of_beta",
    "conditions_at_beta",
    "feasible_beta_intervals",
    "sigma_minimising_beta",
    "min_feasible_eps",
    "accountant_sigma",
    "calibrate_dpsgd_rdp",
    "calibrate_dpsgd_rdp_pairwise",
    "bound_thm3a",
    "bound_thm3b",
    "bound_thm4a",
    "bound_thm4b",
    "bound_thm6a",
    "bound_thm6b",
    "bound_thm7a",
    "bound_thm7b",
]

PAPER = Paper(
    key="wang-lownoise",
    authors="Puyu Wang, Yunwen Lei, Yiming Ying, Ding-Xuan Zhou",
    short="Wang, Lei, Ying & Zhou",
    title="Differentially private stochastic gradient descent with low-noise",
    venue="Neurocomputing",
    year=2024,
)

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
# Explicit constants of the appendix: M_{alpha,1/2/3} (eq. (4), (5), Lemma 14), Theorems 15 and 16


def _alpha_open(alpha) -> float:
    alpha = v.check_real("alpha (Hölder exponent)", alpha)
    if not 0.0 <= alpha < 1.0:
        raise ValueError(f"alpha must lie in [0, 1) for these alpha-Hölder constants, got {alpha:g} "
                         "(use the smooth case, part (a), for alpha = 1).")
    return alpha


def m_alpha_1(*, alpha, L, M=None) -> float:
    r"""M_{α,1} of Wang, Lei, Ying & Zhou (wang-lownoise), eq. (4) (self-bounding constant of Lemma 12):

    .. math:: M_{\alpha,1} = (1+1/\alpha)^{\frac{\alpha}{1+\alpha}}L^{\frac1{1+\alpha}}\ (\alpha>0),\qquad
              M_{0,1} = M + L\ (\alpha = 0),

    so that ‖∂f(w; z)‖ <= M_{α,1} f^{α/(1+α)}(w; z) for a non-negative α-Hölder smooth f.  (Lemma 12 prints the smooth
    case as ‖∂f‖ <= √(2L) f; the self-bounding property is ‖∂f‖ <= √(2L f).)
    """
    alpha = _alpha_open(alpha)
    L = v.check_positive("L", L)
    if alpha == 0.0:
        if M is None:
            raise ValueError("M_{0,1} = M + L needs M (the bound on ||grad f(0; z)||).")
        return v.check_nonnegative("M", M) + L
    return (1.0 + 1.0 / alpha) ** (alpha / (1.0 + alpha)) * L ** (1.0 / (1.0 + alpha))


def m_alpha_2(*, alpha, L, M=None) -> float:
    r"""M_{α,2} of Wang, Lei, Ying & Zhou (wang-lownoise), eq. (5):
    :math:`\frac{1-\alpha}{1+\alpha}(2\alpha/(1+\alpha))^{\frac{2\alpha}{1-\alpha}}M_{\alpha,1}^{\frac{2+2\alpha}{1-\alpha}}`
    for α > 0 and M_{0,1}² for α = 0."""
    alpha = _alpha_open(alpha)
    m1 = m_alpha_1(alpha=alpha, L=L, M=M)
    if alpha == 0.0:
        return m1**2
    return ((1 - alpha) / (1 + alpha) * (2 * alpha / (1 + alpha)) ** (2 * alpha / (1 - alpha))
            * m1 ** ((2 + 2 * alpha) / (1 - alpha)))


def m_alpha_3(*, alpha, L) -> float:
    r"""M_{α,3} = √((1−α)/(1+α)) (2^{−α}L)^{1/(1−α)}, Wang, Lei, Ying & Zhou (wang-lownoise), Lemma 14 (b)."""
    alpha = _alpha_open(alpha)
    L = v.check_positive("L", L)
    return math.sqrt((1 - alpha) / (1 + alpha)) * (2.0**-alpha * L) ** (1.0 / (1.0 - alpha))


def generalization_thm15(*, n, T, eta, L, FS, alpha=1.0, M=None, kappa=None) -> BoundResult:
    r"""Generalization gap E[F(w_priv) − F_S(w_priv)], Wang, Lei, Ying & Zhou (wang-lownoise), Theorem 15, with a
    constant step size η and explicit constants.

    (a) α = 1 (L-smooth, η <= 2/L), with E[F_S(w_priv)] <= FS and E[F_S(w_t)] <= FS for all t:

    .. math:: \frac{L}{\kappa}FS + \frac{4e(L+\kappa)(1+T/n)L}{n}T\eta^2 FS.

    (b) α ∈ [0, 1) with FS bounding E[F_S^{2α/(1+α)}] at w_priv and every w_t:

    .. math:: \frac{M_{\alpha,1}^2}{2\kappa}FS + \frac\kappa2\Big(M_{\alpha,3}^2 e T\eta^{\frac{2}{1-\alpha}}
              + \frac{4eM_{\alpha,1}^2(1+T/n)}{n}T\eta^2 FS\Big).

    ``kappa=None`` takes the minimising κ > 0.  Terms: ``statistical`` (the 1/κ part) and ``stability``.
    """
    n = v.check_n(n)
    T = v.check_int("T", T)
    eta = v.check_positive("eta", eta)
    L = v.check_positive("L", L)
    FS = v.check_nonnegative("FS (bound on the expected empirical risk)", FS)
    alpha = v.check_unit("alpha", alpha)
    if kappa is not None:
        kappa = v.check_positive("kappa", kappa)
    if alpha == 1.0:
        if eta > 2.0 / L:
            raise ValueError(f"Theorem 15 (a) needs eta <= 2/L = {2.0 / L:.4g}, got eta = {eta:g}.")
        a = L * FS
        b = 4.0 * math.e * (1.0 + T / n) * L / n * T * eta**2 * FS
        if kappa is None:
            kappa = math.sqrt(a / b) if a > 0 and b > 0 else 1.0
        terms = [Term("statistical", a / kappa, -1.0, 0.0, r"\frac{L}{\kappa}\mathbb E[F_S(w_{priv})]"),
                 Term("stability", (L + kappa) * b, -1.0, 0.0,
                      r"\frac{4e(L+\kappa)(1+T/n)L}{n}\sum_t\eta_t^2\mathbb E[F_S(w_t)]")]
        extras = {"kappa": kappa}
    else:
        m1 = m_alpha_1(alpha=alpha, L=L, M=M)
        m3 = m_alpha_3(alpha=alpha, L=L)
        a = m1**2 * FS / 2.0
        inner = m3**2 * math.e * T * eta ** (2.0 / (1.0 - alpha)) + 4.0 * math.e * m1**2 * (1.0 + T / n) / n * T * eta**2 * FS
        if kappa is None:
            kappa = math.sqrt(2.0 * a / inner) if a > 0 and inner > 0 else 1.0
        terms = [Term("statistical", a / kappa, -1.0, 0.0, r"\frac{M_{\alpha,1}^2}{2\kappa}\mathbb E[F_S^{2\alpha/(1+\alpha)}]"),
                 Term("stability", kappa / 2.0 * inner, -1.0, 0.0, r"\frac\kappa2(\dots)")]
        extras = {"kappa": kappa, "M_alpha_1": m1, "M_alpha_3": m3}
    return BoundResult.of("wang-lownoise-thm15", terms, eta=eta, T=T, extras=extras, explicit=True,
                          notes=["Generalization gap E[F(w_priv) - F_S(w_priv)] with a constant step size."])


def optimization_thm16(*, T, eta, d, sigma, R, Fstar, L, alpha=1.0, M=None) -> BoundResult:
    r"""Optimization error Σ_j η_j E[F_S(w_j) − F_S(w*)], Wang, Lei, Ying & Zhou (wang-lownoise), Theorem 16, with a
    constant step size η, t = T, ‖w*‖ <= R and F(w*) = ``Fstar``.

    (a) α = 1: :math:`(\tfrac12 + 3L\eta)R^2 + 3LT(3\eta^3\sigma^2d + 2\eta^2F^*) + 3T\eta^2\sigma^2d`.

    (b) α ∈ [0, 1): :math:`\tfrac34M_{\alpha,1}^2(T\eta^2)^{\frac{1-\alpha}{1+\alpha}}[2\eta R^2
    + T(6\eta^3\sigma^2d + 4\eta^2F^* + 3M_{\alpha,2}\eta^{\frac{3-\alpha}{1-\alpha}})]^{\frac{2\alpha}{1+\alpha}}
    + \tfrac12R^2 + 3T\eta^2\sigma^2d`.

    ``total`` is the printed sum; ``extras['average']`` = total/(ηT) bounds the average E[F_S(w̄) − F_S(w*)] by
    convexity.
    """
    T = v.check_int("T", T)
    eta = v.check_positive("eta", eta)
    d = v.check_int("d", d)
    sigma = v.check_nonnegative("sigma", sigma)
    R = v.check_nonnegative("R", R)
    Fstar = v.check_nonnegative("Fstar (population risk at w*)", Fstar)
    L = v.check_positive("L", L)
    alpha = v.check_unit("alpha", alpha)
    noise = 3.0 * T * eta**2 * sigma**2 * d
    if alpha == 1.0:
        terms = [Term("initial", (0.5 + 3.0 * L * eta) * R**2, 0.0, 0.0, r"(\tfrac12+3L\eta_1)\|w^*\|^2"),
                 Term("smoothness", 3.0 * L * T * (3.0 * eta**3 * sigma**2 * d + 2.0 * eta**2 * Fstar), 0.0, -2.0,
                      r"3L\sum_j(3\eta_j^3\sigma^2d+2\eta_j^2F(w^*))"),
                 Term("noise", noise, 0.0, -2.0, r"\sum_j3\eta_j^2\sigma^2d")]
        extras = {}
    else:
        m1 = m_alpha_1(alpha=alpha, L=L, M=M)
        m2 = m_alpha_2(alpha=alpha, L=L, M=M)
        inner = 2.0 * eta * R**2 + T * (6.0 * eta**3 * sigma**2 * d + 4.0 * eta**2 * Fstar
                                        + 3.0 * m2 * eta ** ((3.0 - alpha) / (1.0 - alpha)))
        holder = 0.75 * m1**2 * (T * eta**2) ** ((1 - alpha) / (1 + alpha)) * inner ** (2 * alpha / (1 + alpha))
        terms = [Term("holder", holder, 0.0, 0.0, r"\tfrac34M_{\alpha,1}^2(\sum_j\eta_j^2)^{\frac{1-\alpha}{1+\alpha}}[\dots]^{\frac{2\alpha}{1+\alpha}}"),
                 Term("initial", 0.5 * R**2, 0.0, 0.0, r"\tfrac12\|w^*\|^2"),
                 Term("noise", noise, 0.0, -2.0, r"\sum_j3\eta_j^2\sigma^2d")]
        extras = {"M_alpha_1": m1, "M_alpha_2": m2}
    res = BoundResult.of("wang-lownoise-thm16", terms, eta=eta, T=T, extras=extras, explicit=True,
                         notes=["Sum over j of eta_j E[F_S(w_j) - F_S(w*)], constant step size."])
    res.extras["average"] = res.total / (eta * T)
    return res


def explicit_smooth_risk(*, n, T, eta, d, sigma, L, R, Fstar, kappa=None, pairwise=False) -> dict:
    r"""The explicit inequality of the proof of Theorem 3 (a) of Wang, Lei, Ying & Zhou (wang-lownoise), before the
    O(·) step, with a constant step size η and t = T (eq. (12) combined with Theorem 16 (a)):

    .. math:: \sum_{t=1}^T\eta\,\mathbb E[F(w_t)] \le \Big(1+\frac L\kappa\Big)\Big(T\eta F^* + (\tfrac12+3L\eta)R^2
              + 3T(3L\eta+1)\eta^2\sigma^2d + 6LT\eta^2F^*\Big)
              + \frac{8e(L+\kappa)(1+T/n)L}{n}\,\eta\Big(T\eta R^2 + \frac{T(T+1)}2(3\eta^3\sigma^2d+2\eta^2F^*)\Big),

    and by Jensen E[F(w_priv)] − F* <= (that sum)/(Tη) − F*.  ‖w*‖ <= R, F* = F(w*).  ``kappa=None`` takes the
    minimiser κ* = √(L A/B) of (1 + L/κ)A + (L + κ)B.  Returns the three parts (optimisation: the R² terms; privacy:
    the σ² terms; statistical: the F* terms minus F*) and κ.

    The proof prints the F* term of Theorem 16 (a) as 6Σ η_j² F(w*); Theorem 16 (a) itself gives 3L·2η_j²F(w*) =
    6Lη_j²F(w*) (the L is lost in print; the σ² term keeps it), which dpviz uses.

    ``pairwise=True``: the proof of Theorem 6 (a) (Lemmas 17 (a), 19 (a), 20): B uses 2(L + κ)ν with
    ν <= 16L(1 + 2T/n)e/n Σ η_j² E[F̄_S(w_j)] and Σ_j η_j² E[F̄_S(w_j)] <= 2ηR² + t(6η³σ²d + 4η²F̄*), i.e.
    32e(L + κ)(1 + 2T/n)L/n · η(2TηR² + T(T+1)/2 (6η³σ²d + 4η²F̄*)); A is as above.  The proof's display prints
    4Σ η_j² F̄(w*) in A where (21) (Lemma 20 at α = 1) gives 6L, and closes the bracket of (1 + L/κ) after the
    stability term, unlike its eq. (20); dpviz follows (20) and (21).
    """
    A = {"optimisation": (0.5 + 3.0 * L * eta) * R**2,
         "privacy": 3.0 * T * (3.0 * L * eta + 1.0) * eta**2 * sigma**2 * d,
         "statistical": T * eta * Fstar + 6.0 * L * T * eta**2 * Fstar}
    # pairwise: 32e(1 + 2T/n)L/n times an inner sum twice the pointwise one (2ηR² + t(6η³σ²d + 4η²F*))
    cB = (64.0 * math.e * (1.0 + 2.0 * T / n) * L / n) if pairwise else (8.0 * math.e * (1.0 + T / n) * L / n)
    half = T * (T + 1) / 2.0
    B = {"optimisation": cB * eta * T * eta * R**2,
         "privacy": cB * eta * half * 3.0 * eta**3 * sigma**2 * d,
         "statistical": cB * eta * half * 2.0 * eta**2 * Fstar}
    a, b = sum(A.values()), sum(B.values())
    if kappa is None:
        kappa = math.sqrt(L * a / b) if a > 0 and b > 0 else 1.0
    parts = {k: ((1.0 + L / kappa) * A[k] + (L + kappa) * B[k]) / (T * eta) for k in A}
    parts["statistical"] -= Fstar
    return {"parts": parts, "kappa": kappa}


def _explicit_sigma(sigma, G, *, n, eps, delta, T, d, eta, pairwise, extras) -> float:
    """σ of an explicit bound: ``sigma`` if given, else calibrated by ``dpsgd-rdp`` (``dpsgd-rdp-pairwise``) from the
    Lipschitz constant G, recording the β of the calibration in ``extras['beta']``."""
    if sigma is None:
        if G is None:
            raise ValueError("the explicit bound needs the noise sigma: give sigma, or G (Lipschitz constant) so that "
                             f"dpviz calibrates it ({'dpsgd-rdp-pairwise' if pairwise else 'dpsgd-rdp'}).")
        calib = calibrate_dpsgd_rdp_pairwise if pairwise else calibrate_dpsgd_rdp
        cal = calib(n=n, eps=eps, delta=delta, T=T, G=G, d=d, eta=eta, accountant_extra=False)
        if not cal.feasible or cal.sigma is None:
            raise ValueError(f"Algorithm {'2' if pairwise else '1'} cannot be calibrated at these values: "
                             f"{cal.reason}; {cal.fix}.")
        sigma = cal.sigma
        extras["beta"] = cal.beta
    return v.check_nonnegative("sigma", sigma)


def _explicit_thm3(thm_id, *, n, d, eps, delta, L, R, Fstar, G=None, sigma=None, T=None, eta=None, c=1.0,
                   kappa=None, lownoise=False, pairwise=False) -> BoundResult:
    n = v.check_n(n)
    d = v.check_int("d", d)
    eps = v.check_eps(eps)
    delta = v.check_delta(delta)
    L = v.check_positive("L", L)
    R = v.check_nonnegative("R (bound on ||w*||)", R)
    Fstar = v.check_nonnegative("Fstar (population risk at w*, F(w*))", Fstar)
    c = v.check_positive("c", c)
    T = n if T is None else v.check_int("T", T)
    if eta is None:
        base = eps / math.sqrt(d * math.log(1.0 / delta))
        eta = c * (base if lownoise else min(1.0 / math.sqrt(n), base))
    eta = v.check_positive("eta", eta)
    if kappa is not None:
        kappa = v.check_positive("kappa", kappa)
    notes = []
    extras = {}
    sigma = _explicit_sigma(sigma, G, n=n, eps=eps, delta=delta, T=T, d=d, eta=eta, pairwise=pairwise, extras=extras)
    if eta > min(2.0 / L, 1.0):
        notes.append(f"eta = {eta:.4g} > min{{2/L, 1}} = {min(2.0 / L, 1.0):.4g}: the proof assumes eta <= min{{2/L, 1}}.")
    if eta > 1.0 / (2.0 * L):
        notes.append(
            f"Reading of the proof (dpviz): eta = {eta:.4g} > 1/(2L) = {1.0 / (2.0 * L):.4g}. The Young step behind "
            f"eq. ({'11' if pairwise else '8'}) and Theorem 16 (a) at alpha = 1 needs eta <= 1/(2L), which "
            f"Theorem {'6' if pairwise else '3'} does not state (it states eta <= min{{2/L, 1}}): this explicit bound "
            "is not backed by its proof here; lower c (or eta) to eta <= 1/(2L)."
        )
        extras["eta_above_1_over_2L"] = True
    if T < n:
        notes.append(f"T = {T} < n = {n}: the proof assumes T >= n.")
    out = explicit_smooth_risk(n=n, T=T, eta=eta, d=d, sigma=sigma, L=L, R=R, Fstar=Fstar, kappa=kappa,
                               pairwise=pairwise)
    p = out["parts"]
    terms = [Term("optimisation", p["optimisation"], -0.5, 0.0, r"\frac{(1+L/\kappa)(\frac12+3L\eta)R^2+\dots}{T\eta}"),
             Term("privacy", p["privacy"], -1.0, -1.0, r"\frac{(1+L/\kappa)3T(3L\eta+1)\eta^2\sigma^2d+\dots}{T\eta}")]
    if not lownoise:
        terms.append(Term("statistical", max(0.0, p["statistical"]), -0.5, 0.0, r"(\dots)F(w^*)/(T\eta)-F(w^*)"))
    extras.update({"kappa": out["kappa"], "sigma": sigma, "Fstar": Fstar})
    notes.append("Explicit constants of the proof (" + ("eq. (20), (21): Lemmas 17 (a), 19 (a), 20" if pairwise else
                 "eq. (12) + Theorem 16 (a)") + "), before the O(.) step; ||w*|| <= R.")
    return BoundResult.of(thm_id, terms, eta=eta, T=T, notes=notes, extras=extras, explicit=True)


def explicit_bound_thm3a(*, n, d, eps, delta, L, R, Fstar, G=None, sigma=None, T=None, eta=None, c=1.0,
                         kappa_gen=None) -> BoundResult:
    r"""Theorem 3 (a) of Wang, Lei, Ying & Zhou (wang-lownoise) with the proof's explicit constants
    (:func:`explicit_smooth_risk`): schedule T = n, η = c min{1/√n, ε/√(d log(1/δ))} unless given; σ calibrated by
    ``dpsgd-rdp`` from G unless given; F* = F(w*) = ``Fstar``.
    """
    return _explicit_thm3("wang-lownoise-thm3a", n=n, d=d, eps=eps, delta=delta, L=L, R=R, Fstar=Fstar, G=G,
                          sigma=sigma, T=T, eta=eta, c=c, kappa=kappa_gen)


def explicit_bound_thm3b(*, n, d, eps, delta, L, R, G=None, sigma=None, T=None, eta=None, c=1.0,
                         kappa_gen=None) -> BoundResult:
    r"""Theorem 3 (b) (low noise, F(w*) = 0) of Wang, Lei, Ying & Zhou (wang-lownoise) with the proof's explicit
    constants (:func:`explicit_smooth_risk` at F* = 0): T = n, η = c ε/√(d log(1/δ)) unless given.
    """
    return _explicit_thm3("wang-lownoise-thm3b", n=n, d=d, eps=eps, delta=delta, L=L, R=R, Fstar=0.0, G=G,
                          sigma=sigma, T=T, eta=eta, c=c, kappa=kappa_gen, lownoise=True)


def explicit_bound_thm6a(*, n, d, eps, delta, L, R, Fstar, G=None, sigma=None, T=None, eta=None, c=1.0,
                         kappa_gen=None) -> BoundResult:
    r"""Theorem 6 (a) (pairwise, Algorithm 2) of Wang, Lei, Ying & Zhou (wang-lownoise) with the proof's explicit
    constants (:func:`explicit_smooth_risk` with ``pairwise=True``); T = n, η = c min{1/√n, ε/√(d log(1/δ))} unless
    given; σ from ``dpsgd-rdp-pairwise`` unless given.
    """
    return _explicit_thm3("wang-lownoise-thm6a", n=n, d=d, eps=eps, delta=delta, L=L, R=R, Fstar=Fstar, G=G,
                          sigma=sigma, T=T, eta=eta, c=c, kappa=kappa_gen, pairwise=True)


def explicit_bound_thm6b(*, n, d, eps, delta, L, R, G=None, sigma=None, T=None, eta=None, c=1.0,
                         kappa_gen=None) -> BoundResult:
    r"""Theorem 6 (b) (pairwise, low noise F̄(w*) = 0) of Wang, Lei, Ying & Zhou (wang-lownoise), explicit constants
    of the proof (:func:`explicit_smooth_risk`, ``pairwise=True``, F* = 0); η = c ε/√(d log(1/δ)) unless given.
    """
    return _explicit_thm3("wang-lownoise-thm6b", n=n, d=d, eps=eps, delta=delta, L=L, R=R, Fstar=0.0, G=G,
                          sigma=sigma, T=T, eta=eta, c=c, kappa=kappa_gen, lownoise=True, pairwise=True)


# ----------------------------------------------------------------------------------------------------------------
# Explicit constants for the α-Hölder smooth Theorems 4 and 7 (proofs of Theorems 4 and 7, eqs. (14)-(18), (23)-(25))


def m_bar_alpha_3(*, alpha, L) -> float:
    r"""\bar M_{α,3} = √(e(1−α)/(1+α)) (2−α) L^{1/(1−α)}, Wang, Lei, Ying & Zhou (wang-lownoise), Lemma 19 (b) (the
    constant of Lemma 18, used by the pairwise stability bound), as printed.

    Lemma 18 is cited from the same source as Lemma 14 (b), whose constant is M_{α,3} = √((1−α)/(1+α))
    (2^{−α}L)^{1/(1−α)} (:func:`m_alpha_3`); the printed \bar M_{α,3} is never smaller (√e >= 1, 2 − α >= 1 >=
    2^{−α/(1−α)}), so a bound that uses it stays valid under either reading.  dpviz uses the printed constant.
    """
    alpha = _alpha_open(alpha)
    L = v.check_positive("L", L)
    return math.sqrt(math.e * (1 - alpha) / (1 + alpha)) * (2.0 - alpha) * L ** (1.0 / (1.0 - alpha))


def young_constant(alpha) -> float:
    r"""K_α = 2\frac{1-\alpha}{1+\alpha}\big(\frac{4\alpha}{1+\alpha}\big)^{\frac{2\alpha}{1-\alpha}} (α ∈ (0, 1)): the
    constant of the explicit solution of the inequality the proof of Theorem 4 of Wang, Lei, Ying & Zhou
    (wang-lownoise) solves only up to O(·) ("The solution of the above inequality is O(κ^{(1+α)/(α−1)} + ...)").

    With p = 2α/(1+α) ∈ (0, 1), a > 0, B >= 0: if ξ <= aξ^p + B then, by Young's inequality
    aξ^p <= ξ/2 + (1−p)(2p)^{p/(1−p)} a^{1/(1−p)}, ξ <= 2B + K_α a^{(1+α)/(1−α)} with
    K_α = 2(1−p)(2p)^{p/(1−p)}; 1 − p = (1−α)/(1+α), 2p = 4α/(1+α), p/(1−p) = 2α/(1−α).
    """
    alpha = _alpha_open(alpha)
    if alpha == 0.0:
        raise ValueError("K_alpha is only needed for alpha > 0 (at alpha = 0, F^0 = 1 and no fixed point is solved).")
    return 2.0 * (1 - alpha) / (1 + alpha) * (4.0 * alpha / (1 + alpha)) ** (2.0 * alpha / (1 - alpha))


def _golden_min_log(f, u0: float, width: float = 60.0, iters: int = 200) -> float:
    """argmin over u in [u0 - width, u0 + width] of a convex f(u) (golden section); returns exp(u*)."""
    u, _ = _golden_max(lambda x: -f(math.exp(x)), u0 - width, u0 + width, iters=iters)
    return math.exp(u)


def explicit_holder_risk(*, n, T, eta, d, sigma, L, R, Fstar, alpha, M=None, kappa=None, pairwise=False) -> dict:
    r"""The explicit inequality behind Theorem 4 (pointwise) or Theorem 7 (pairwise) of Wang, Lei, Ying & Zhou
    (wang-lownoise) for α ∈ [0, 1), constant step size η, T steps, ‖w*‖ <= R, F* = F(w*) (F̄(w*) pairwise).

    Eq. (14) (Jensen): E[F(w_priv)] − F* <= (Tη)^{-1}Σ_t η E[F(w_t) − F_S(w_t)] + (Tη)^{-1}Σ_t η E[F_S(w_t) − F*].

    *Optimisation part* — Theorem 16 (b) (Lemma 20 for Algorithm 2) divided by Tη:

    .. math:: \frac{\tfrac34M_{\alpha,1}^2P + \tfrac12R^2 + 3T\eta^2\sigma^2d}{T\eta},\quad
              P = (T\eta^2)^{\frac{1-\alpha}{1+\alpha}}Q^{\frac{2\alpha}{1+\alpha}},\quad
              Q = 2\eta R^2 + T\big(6\eta^3\sigma^2d + 4\eta^2F^* + 3M_{\alpha,2}\eta^{\frac{3-\alpha}{1-\alpha}}\big),

    where Q bounds Σ_t η² E[F_S(w_t)] (eq. (8) in expectation; Lemma 20's second display) and P bounds
    Σ_t η² (E[F_S(w_t)])^{2α/(1+α)} by Jensen (the display after (15)).

    *Generalization part* — Lemma 13 (b) with Lemma 14 (b) (pairwise: Lemma 17 (b) with Lemma 19 (b)), applied to
    w_{t+1} as the output of t steps.  The proof of Theorem 4 bounds E[F^p(w_{t+1})], p = 2α/(1+α), by
    ξ_{t+1}^p + (E[F_S(w_{t+1})])^p with ξ_{t+1} = max{E[F(w_{t+1})] − E[F_S(w_{t+1})], 0}, and "solves" the
    resulting inequality ξ <= aξ^p + B, a = M_{α,1}²/(2κ), only up to O(·); dpviz solves it explicitly with
    :func:`young_constant` (ξ <= 2B + K_α a^{(1+α)/(1−α)}).  Averaging over t (ξ_1 = 0 since w_1 = 0, t <= T,
    (T−1)/T <= 1) gives, for α > 0,

    .. math:: \frac{M_{\alpha,1}^2P}{\kappa T\eta^2} + c_1\kappa M_{\alpha,1}^2P + c_2\kappa T\eta^{\frac{2}{1-\alpha}}
              + K_\alpha\Big(\frac{M_{\alpha,1}^2}{2\kappa}\Big)^{\frac{1+\alpha}{1-\alpha}},

    pointwise c₁ = 4e(1+T/n)/n, c₂ = eM_{α,3}² (2 · κ/2 · Lemma 14 (b)); pairwise c₁ = 32e(1+2T/n)/n,
    c₂ = 4e\bar M_{α,3}² (2 · 2κ · Lemma 19 (b)).  At α = 0, F^0 = 1, so no fixed point is needed and the
    generalization part is M_{0,1}²/(2κ) + (c₁κM_{0,1}²P + c₂κTη²)/2 with P = Tη².

    ``kappa=None`` takes the κ > 0 minimising the generalization part (the bound holds for every κ > 0; the part
    is convex in log κ).  Returns ``parts`` (``optimisation``, ``privacy`` = 3ησ²d, ``generalization``) and the
    constants used (``kappa``, ``P``, ``Q``, ``M_alpha_1``, ``M_alpha_2``, ``M_alpha_3``, ``K_alpha``).

    Readings recorded (see the theorem's discrepancy): Lemma 13 (b) prints E[F_S^p]; the proof uses E[F^p] (as Lemma
    17 (b) does for pairs), which dpviz follows (its bound also dominates the F_S^p reading); eq. (15) prints
    κTn^{-2}Σ_t η_t(E F_S)^p where eq. (16) uses Σ_t η² (...)^p; the display after (15) prints the exponent of
    η in the M_{α,2} term as (3−α)/(1+α), Theorem 16 (b) as (3−α)/(1−α) (used).
    """
    n = v.check_n(n)
    T = v.check_int("T", T)
    eta = v.check_positive("eta", eta)
    d = v.check_int("d", d)
    sigma = v.check_nonnegative("sigma", sigma)
    L = v.check_positive("L", L)
    R = v.check_nonnegative("R (bound on ||w*||)", R)
    Fstar = v.check_nonnegative("Fstar (population risk at w*)", Fstar)
    alpha = _alpha_open(alpha)
    if kappa is not None:
        kappa = v.check_positive("kappa_gen (the free kappa of Lemma 13 / 17)", kappa)
    m1 = m_alpha_1(alpha=alpha, L=L, M=M)
    m2 = m_alpha_2(alpha=alpha, L=L, M=M)
    m3 = m_bar_alpha_3(alpha=alpha, L=L) if pairwise else m_alpha_3(alpha=alpha, L=L)
    p = 2.0 * alpha / (1.0 + alpha)
    Q = 2.0 * eta * R**2 + T * (6.0 * eta**3 * sigma**2 * d + 4.0 * eta**2 * Fstar
                                 + 3.0 * m2 * eta ** ((3.0 - alpha) / (1.0 - alpha)))
    P = (T * eta**2) ** ((1.0 - alpha) / (1.0 + alpha)) * Q**p
    opt = (0.75 * m1**2 * P + 0.5 * R**2) / (T * eta)
    priv = 3.0 * eta * sigma**2 * d
    if pairwise:
        c1, c2 = 32.0 * math.e * (1.0 + 2.0 * T / n) / n, 4.0 * math.e * m3**2
    else:
        c1, c2 = 4.0 * math.e * (1.0 + T / n) / n, math.e * m3**2
    drift = T * eta ** (2.0 / (1.0 - alpha))
    if alpha == 0.0:
        A, B, C, r, K = m1**2 / 2.0, (c1 * m1**2 * P + c2 * drift) / 2.0, 0.0, 1.0, 0.0
    else:
        K = young_constant(alpha)
        r = (1.0 + alpha) / (1.0 - alpha)
        A, B, C = m1**2 * P / (T * eta**2), c1 * m1**2 * P + c2 * drift, K * (m1**2 / 2.0) ** r

    def gen(k: float) -> float:
        try:
            return A / k + B * k + (C * k ** (-r) if C else 0.0)
        except OverflowError:  # far from the minimiser (tiny kappa, large r): the part is huge there
            return math.inf

    kappa_given = kappa is not None
    if kappa is None:
        k0 = math.sqrt(A / B) if A > 0 and B > 0 else 1.0
        kappa = k0 if C == 0.0 else _golden_min_log(gen, math.log(k0))
    out = {"parts": {"optimisation": opt, "privacy": priv, "generalization": gen(kappa)}, "kappa": kappa,
           "P": P, "Q": Q, "M_alpha_1": m1, "M_alpha_2": m2, "M_alpha_3": m3, "K_alpha": K}
    if alpha > 0.0:
        # the tightest valid form: the largest root of the same inequality xi <= a xi^p + Bbar, a = M1^2/(2 kappa),
        # Bbar = (A/kappa + B kappa)/2 (the average over t of the B_t that Young's step doubles)
        def gen_root(k: float) -> float:
            try:
                return largest_root(M1sq_half / k, p, (A / k + B * k) / 2.0)
            except OverflowError:
                return math.inf

        M1sq_half = m1**2 / 2.0
        k_root = kappa if kappa_given else _golden_min_log(gen_root, math.log(kappa))
        out.update({"generalization_root": gen_root(k_root), "kappa_root": k_root})
    return out


def largest_root(a: float, p: float, B: float) -> float:
    r"""The largest ξ >= 0 with ξ <= aξ^p + B (a >= 0, p ∈ (0, 1), B >= 0): the unique root ξ* of
    ξ = aξ^p + B on ξ > 0 (g(ξ) = ξ − aξ^p − B is convex with g(0) = −B <= 0, so {g <= 0} = [0, ξ*]).

    This is the tightest bound the inequality of the proof of Theorem 4 of Wang, Lei, Ying & Zhou (wang-lownoise)
    gives; the proof's Young step gives ξ <= 2B + K_α a^{1/(1−p)} (:func:`young_constant`), always >= ξ*.  ξ* is
    concave and increasing in B (the inverse of the convex increasing ξ − aξ^p on [ξ*(0), ∞)), so a bound on the
    average of the B_t over t bounds the average of the ξ_t (Jensen).
    """
    if a <= 0.0:
        return B
    if B <= 0.0:
        return a ** (1.0 / (1.0 - p))
    lo, hi = B, 2.0 * B + 2.0 * (1 - p) * (2.0 * p) ** (p / (1.0 - p)) * a ** (1.0 / (1.0 - p))
    for _ in range(200):
        mid = 0.5 * (lo + hi)
        if mid - a * mid**p - B > 0.0:
            hi = mid
        else:
            lo = mid
        if hi - lo <= 1e-15 * hi:
            break
    return hi


def _explicit_holder(thm_id, *, n, d, eps, delta, alpha, L, R, Fstar, G=None, M=None, sigma=None, T=None, eta=None,
                     c=1.0, kappa=None, lownoise=False, pairwise=False) -> BoundResult:
    n = v.check_n(n)
    d = v.check_int("d", d)
    eps = v.check_eps(eps)
    delta = v.check_delta(delta)
    alpha = _holder_alpha(alpha)
    L = v.check_positive("L", L)
    R = v.check_nonnegative("R (bound on ||w*||)", R)
    Fstar = v.check_nonnegative("Fstar (population risk at w*, F(w*))", Fstar)
    c = v.check_positive("c", c)
    root = math.sqrt(d * math.log(1.0 / delta))
    # the theorem's schedule (as in the rate functions _holder_general / _holder_lownoise)
    if lownoise:
        T = _ceil(n ** (2.0 / (1.0 + alpha))) if T is None else v.check_int("T", T)
        if eta is None:
            eta = c * min(n ** ((alpha**2 + 2.0 * alpha - 3.0) / (2.0 * (1.0 + alpha))), n * eps / (T * root))
        n_exp = -(1.0 + alpha) / 2.0
    else:
        if T is None:
            T = n if alpha >= 0.5 else _ceil(n ** ((2.0 - alpha) / (1.0 + alpha)))
        T = v.check_int("T", T)
        if eta is None:
            first = 1.0 / math.sqrt(n) if alpha >= 0.5 else n ** (3.0 * (alpha - 1.0) / (2.0 * (1.0 + alpha)))
            eta = c * min(first, eps / root)
        n_exp = -0.5
    eta = v.check_positive("eta", eta)
    notes = []
    extras: dict = {}
    sigma = _explicit_sigma(sigma, G, n=n, eps=eps, delta=delta, T=T, d=d, eta=eta, pairwise=pairwise, extras=extras)
    if eta > min(2.0 / L, 1.0):
        notes.append(f"eta = {eta:.4g} > min{{2/L, 1}} = {min(2.0 / L, 1.0):.4g}: the theorem assumes eta <= "
                     "min{2/L, 1}.")
    out = explicit_holder_risk(n=n, T=T, eta=eta, d=d, sigma=sigma, L=L, R=R, Fstar=Fstar, alpha=alpha, M=M,
                               kappa=kappa, pairwise=pairwise)
    p = out["parts"]
    terms = [
        Term("optimisation", p["optimisation"], n_exp, 0.0,
             r"\frac{\frac34M_{\alpha,1}^2(T\eta^2)^{\frac{1-\alpha}{1+\alpha}}Q^{\frac{2\alpha}{1+\alpha}}+\frac12R^2}{T\eta}"),
        Term("privacy", p["privacy"], -1.0, -1.0, r"3\eta\sigma^2d"),
        Term("generalization", p["generalization"], n_exp, 0.0,
             r"\frac{M_{\alpha,1}^2P}{\kappa T\eta^2}+c_1\kappa M_{\alpha,1}^2P+c_2\kappa T\eta^{\frac{2}{1-\alpha}}"
             r"+K_\alpha\big(\frac{M_{\alpha,1}^2}{2\kappa}\big)^{\frac{1+\alpha}{1-\alpha}}"),
    ]
    extras.update({k: out[k] for k in ("kappa", "P", "Q", "M_alpha_1", "M_alpha_2", "M_alpha_3", "K_alpha")})
    extras.update({"sigma": sigma, "Fstar": Fstar})
    src = ("Lemmas 17 (b), 19 (b), 20 (proof of Theorem 7, 'similar to Theorem 4')" if pairwise
           else "eq. (14), Lemmas 13 (b), 14 (b), Theorem 16 (b)")
    notes.append(f"Explicit constants of the proof ({src}) with the fixed point of the proof of Theorem 4 solved "
                 f"explicitly by Young's inequality, the proof's literal form (K_alpha = {out['K_alpha']:.4g}); "
                 f"kappa = {out['kappa']:.4g} minimises the generalization part; ||w*|| <= R.")
    if "generalization_root" in out:
        total_root = p["optimisation"] + p["privacy"] + out["generalization_root"]
        extras.update({"generalization_root": out["generalization_root"], "kappa_root": out["kappa_root"],
                       "total_root": total_root})
        notes.append(
            f"Tightest valid form (dpviz's reading, beside the proof's literal Young form above): the largest root of "
            f"the same inequality xi = a xi^p + B (p = 2alpha/(1+alpha)) bounds the generalization part by "
            f"{out['generalization_root']:.4g} (kappa = {out['kappa_root']:.4g}) instead of "
            f"{p['generalization']:.4g}: total {total_root:.4g} instead of {sum(p.values()):.4g}."
        )
    return BoundResult.of(thm_id, terms, eta=eta, T=T, notes=notes, extras=extras, explicit=True)


def explicit_bound_thm4a(*, n, d, eps, delta, alpha, L, R, Fstar, G=None, M=None, sigma=None, T=None, eta=None,
                         c=1.0, kappa_gen=None) -> BoundResult:
    r"""Theorem 4 (a) of Wang, Lei, Ying & Zhou (wang-lownoise) with the explicit constants of its proof
    (:func:`explicit_holder_risk`, pointwise): schedule of the statement unless T / η are given (α >= 1/2: T = n,
    η = c min{n^{-1/2}, ε/√(d log(1/δ))}; α < 1/2: T = ⌈n^{(2−α)/(1+α)}⌉, η = c min{n^{3(α−1)/(2(1+α))},
    ε/√(d log(1/δ))}); σ calibrated by ``dpsgd-rdp`` from G unless given; F* = F(w*) = ``Fstar``; ``M`` (bound on
    ‖∂f(0; z)‖) is needed at α = 0 only (M_{0,1} = M + L, eq. (4)); ``kappa_gen`` = κ of Lemma 13 (default: the
    minimiser).
    """
    return _explicit_holder("wang-lownoise-thm4a", n=n, d=d, eps=eps, delta=delta, alpha=alpha, L=L, R=R,
                            Fstar=Fstar, G=G, M=M, sigma=sigma, T=T, eta=eta, c=c, kappa=kappa_gen)


def explicit_bound_thm4b(*, n, d, eps, delta, alpha, L, R, G=None, M=None, sigma=None, T=None, eta=None, c=1.0,
                         kappa_gen=None) -> BoundResult:
    r"""Theorem 4 (b) (low noise, F(w*) = 0) of Wang, Lei, Ying & Zhou (wang-lownoise) with the explicit constants of
    its proof (:func:`explicit_holder_risk` at F* = 0): T = ⌈n^{2/(1+α)}⌉,
    η = c min{n^{(α²+2α−3)/(2(1+α))}, nε/(T√(d log(1/δ)))} unless given.
    """
    return _explicit_holder("wang-lownoise-thm4b", n=n, d=d, eps=eps, delta=delta, alpha=alpha, L=L, R=R, Fstar=0.0,
                            G=G, M=M, sigma=sigma, T=T, eta=eta, c=c, kappa=kappa_gen, lownoise=True)


def explicit_bound_thm7a(*, n, d, eps, delta, alpha, L, R, Fstar, G=None, M=None, sigma=None, T=None, eta=None,
                         c=1.0, kappa_gen=None) -> BoundResult:
    r"""Theorem 7 (a) (pairwise, Algorithm 2) of Wang, Lei, Ying & Zhou (wang-lownoise) with explicit constants
    (:func:`explicit_holder_risk` with ``pairwise=True``: Lemmas 17 (b), 19 (b), 20); schedule as Theorem 4 (a); σ
    from ``dpsgd-rdp-pairwise`` unless given.
    """
    return _explicit_holder("wang-lownoise-thm7a", n=n, d=d, eps=eps, delta=delta, alpha=alpha, L=L, R=R,
                            Fstar=Fstar, G=G, M=M, sigma=sigma, T=T, eta=eta, c=c, kappa=kappa_gen, pairwise=True)


def explicit_bound_thm7b(*, n, d, eps, delta, alpha, L, R, G=None, M=None, sigma=None, T=None, eta=None, c=1.0,
                         kappa_gen=None) -> BoundResult:
    r"""Theorem 7 (b) (pairwise, low noise F̄(w*) = 0) of Wang, Lei, Ying & Zhou (wang-lownoise) with explicit
    constants (:func:`explicit_holder_risk`, ``pairwise=True``, F* = 0); schedule as Theorem 4 (b).
    """
    return _explicit_holder("wang-lownoise-thm7b", n=n, d=d, eps=eps, delta=delta, alpha=alpha, L=L, R=R, Fstar=0.0,
                            G=G, M=M, sigma=sigma, T=T, eta=eta, c=c, kappa=kappa_gen, lownoise=True, pairwise=True)

# ----------------------------------------------------------------------------------------------------------------
# numerical accountant


ACCOUNTANT_NOTE = (
    "The accountant's sigma = 2G z, where z is the smallest noise multiplier for which T steps of the paper's own "
    "mechanism are (eps, delta)-DP: each step adds Gaussian noise to the gradient of one example (or one pair) drawn "
    "uniformly without replacement, neighbouring data sets differ in one replaced example (so the sensitivity is "
    "2G), accounted by the RDP accountant of dp_accounting for sampling without replacement under replace-one "
    "neighbours (SampledWithoutReplacementDpEvent, Wang, Balle & Kasiviswanathan 2019; sampling rate 1/n, or 2/n "
    "for a pair). Mechanism: without-replacement, replace-one, RDP. The gap between the accountant's sigma and the "
    "paper's sigma is the price of the closed-form Lemma 8 bound and of the beta split; the Accounting page "
    "compares more accountants (Poisson add/remove by RDP and PLD)."
)

#: The mechanism the accountant σ is computed for (shown beside the number).
ACCOUNTANT_MECHANISM = "sampling without replacement, replace-one neighbours (sensitivity 2G), RDP"


@functools.lru_cache(maxsize=4096)
def _acc_z(q: float, T: int, eps: float, delta: float) -> float:
    """Smallest noise multiplier (relative precision 1e-6) of T Gaussian steps on a sample drawn without replacement
    at rate q, replace-one neighbours, for (ε, δ) by RDP.  The same call and precision as the matched RDP row of
    :func:`dpviz.privacy_lab.sigma_for`, so Calibrate and Accounting show one number for the same setting."""
    from dpviz.accounting import noise_multiplier_general

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
        f"{'>=' if at['cond1'] else '<'} 2.68 and lambda - 1 = {at['cond2_lhs']:.4g} "
        f"{'<=' if at['cond2'] else '>'} {at['cond2_rhs']:.4g}",
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
            extras["accountant_note"] = ACCOUNTANT_NOTE
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
                failing.append(f"(ii) lambda - 1 = {cond['cond2_lhs']:.4g} > {cond['cond2_rhs']:.4g}")
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


# ----------------------------------------------------------------------------------------------------------------
# utility theorems


def _result(theorem, terms, *, eta, T, notes=(), extras=None) -> BoundResult:
    return BoundResult.of(theorem, terms, eta=eta, T=T, notes=notes, extras=extras)


def _utility_inputs(n, d, eps, delta, c, L):
    n = v.check_n(n)
    d = v.check_int("d", d)
    eps = v.check_eps(eps)
    delta = v.check_delta(delta)
    c = v.check_positive("c", c)
    if L is not None:
        L = v.check_positive("L", L)
    return n, d, eps, delta, c, L


def _ceil(x: float) -> int:
    """ceil that ignores floating-point noise (1000 ** (4/3) = 10000.000000000002 -> 10000)."""
    return max(1, math.ceil(x * (1.0 - 1e-12)))


def _holder_alpha(alpha) -> float:
    alpha = v.check_unit("alpha (the Hölder exponent)", alpha)
    if alpha >= 1.0:
        raise ValueError(
            "alpha must lie in [0, 1) for the α-Hölder smooth theorems (Definition 3); alpha = 1 is the smooth case: "
            "use Theorem 3 (pointwise) or Theorem 6 (pairwise)."
        )
    return alpha


def _eta_notes(eta: float, L, smooth: bool = False) -> list[str]:
    lim = 1.0 if L is None else min(2.0 / L, 1.0)
    if eta > lim:
        what = "min{2/L, 1}" if L is not None else "1"
        return [f"The schedule's eta = {eta:.4g} exceeds {what} = {lim:g}, which the theorem requires: lower c."]
    if smooth and L is not None and eta > 1.0 / (2.0 * L):
        return [f"Reading of the proof (dpviz): the schedule's eta = {eta:.4g} > 1/(2L) = {1.0 / (2.0 * L):.4g}; the "
                "Young step behind eq. (8)/(11) and Theorem 16 (a) at alpha = 1 needs eta <= 1/(2L), which the "
                "theorem does not state (it states eta <= min{2/L, 1}): lower c."]
    return []


def _priv(n, d, eps, delta) -> float:
    return math.sqrt(d * math.log(1.0 / delta)) / (n * eps)


_PRIV_TEX = r"\frac{\sqrt{d\log(1/\delta)}}{n\epsilon}"


def _privacy_term(n, d, eps, delta) -> Term:
    return Term("privacy", _priv(n, d, eps, delta), -1.0, -1.0, _PRIV_TEX)


def _smooth_general(thm_id, *, n, d, eps, delta, c, L) -> BoundResult:
    n, d, eps, delta, c, L = _utility_inputs(n, d, eps, delta, c, L)
    T = n
    eta = c * min(1.0 / math.sqrt(n), eps / math.sqrt(d * math.log(1.0 / delta)))
    terms = [Term("statistical", 1.0 / math.sqrt(n), -0.5, 0.0, r"\frac{1}{\sqrt n}"), _privacy_term(n, d, eps, delta)]
    notes = _eta_notes(eta, L, smooth=True) + ["T ≍ n is taken as T = n; the O(·) constant is 1."]
    return _result(thm_id, terms, eta=eta, T=T, notes=notes)


def _smooth_lownoise(thm_id, *, n, d, eps, delta, c, L) -> BoundResult:
    n, d, eps, delta, c, L = _utility_inputs(n, d, eps, delta, c, L)
    T = n
    eta = c * eps / math.sqrt(d * math.log(1.0 / delta))
    notes = _eta_notes(eta, L, smooth=True) + [
        "Low-noise case F(w*) = 0: the 1/sqrt(n) term disappears. T ≍ n is taken as T = n; the O(·) constant is 1."
    ]
    return _result(thm_id, [_privacy_term(n, d, eps, delta)], eta=eta, T=T, notes=notes)


def _holder_general(thm_id, *, n, d, eps, delta, alpha, c, L) -> BoundResult:
    n, d, eps, delta, c, L = _utility_inputs(n, d, eps, delta, c, L)
    alpha = _holder_alpha(alpha)
    root = math.sqrt(d * math.log(1.0 / delta))
    if alpha >= 0.5:
        T = n
        eta = c * min(1.0 / math.sqrt(n), eps / root)
    else:
        T = _ceil(n ** ((2.0 - alpha) / (1.0 + alpha)))
        eta = c * min(n ** (3.0 * (alpha - 1.0) / (2.0 * (1.0 + alpha))), eps / root)
    terms = [Term("statistical", 1.0 / math.sqrt(n), -0.5, 0.0, r"\frac{1}{\sqrt n}"), _privacy_term(n, d, eps, delta)]
    notes = _eta_notes(eta, L) + [
        "T ≍ n (alpha >= 1/2) or T ≍ n^((2-alpha)/(1+alpha)) (alpha < 1/2), taken with constant 1 (rounded up)."
    ]
    return _result(thm_id, terms, eta=eta, T=T, notes=notes)


def _holder_lownoise(thm_id, *, n, d, eps, delta, alpha, c, L) -> BoundResult:
    n, d, eps, delta, c, L = _utility_inputs(n, d, eps, delta, c, L)
    alpha = _holder_alpha(alpha)
    root = math.sqrt(d * math.log(1.0 / delta))
    T = _ceil(n ** (2.0 / (1.0 + alpha)))
    eta = c * min(n ** ((alpha**2 + 2.0 * alpha - 3.0) / (2.0 * (1.0 + alpha))), n * eps / (T * root))
    terms = [
        Term("statistical", n ** (-(1.0 + alpha) / 2.0), -(1.0 + alpha) / 2.0, 0.0, r"n^{-\frac{1+\alpha}{2}}"),
        _privacy_term(n, d, eps, delta),
    ]
    notes = _eta_notes(eta, L) + [
        "Low-noise case F(w*) = 0. T ≍ n^(2/(1+alpha)) taken with constant 1 (rounded up); the O(·) constant is 1."
    ]
    return _result(thm_id, terms, eta=eta, T=T, notes=notes)


def bound_thm3a(*, n, d, eps, delta, c=1.0, L=None) -> BoundResult:
    r"""Utility of Algorithm 1 for L-smooth losses, general case (Wang, Lei, Ying & Zhou (wang-lownoise), Theorem 3 (a); proof
    eq. (13) with T ≍ n, κ = √n).

    Schedule :math:`\eta = c\min\{1/\sqrt n,\ \epsilon/\sqrt{d\log(1/\delta)}\}`, T = n;

    .. math:: \mathbb E[F(w_{priv})]-F(w^*) = O\Big(\frac{1}{\sqrt n}+\frac{\sqrt{d\log(1/\delta)}}{n\epsilon}\Big).

    Terms ``statistical`` (n^{-1/2}) and ``privacy`` (n^{-1} ε^{-1}).  ``L`` (optional) checks η <= min{2/L, 1}.
    """
    return _smooth_general("wang-lownoise-thm3a", n=n, d=d, eps=eps, delta=delta, c=c, L=L)


def bound_thm3b(*, n, d, eps, delta, c=1.0, L=None) -> BoundResult:
    r"""Utility of Algorithm 1 for L-smooth losses in the low-noise case F(w*) = 0 (Wang, Lei, Ying & Zhou (wang-lownoise),
    Theorem 3 (b); proof eq. (13) with κ = 1).

    Schedule :math:`\eta = c\epsilon/\sqrt{d\log(1/\delta)}`, T = n;

    .. math:: \mathbb E[F(w_{priv})]-F(w^*) = O\Big(\frac{\sqrt{d\log(1/\delta)}}{n\epsilon}\Big).
    """
    return _smooth_lownoise("wang-lownoise-thm3b", n=n, d=d, eps=eps, delta=delta, c=c, L=L)


def bound_thm4a(*, n, d, eps, delta, alpha, c=1.0, L=None) -> BoundResult:
    r"""Utility of Algorithm 1 for α-Hölder smooth losses, general case (Wang, Lei, Ying & Zhou (wang-lownoise), Theorem 4 (a);
    proof eq. (18) with κ = √n).

    α >= 1/2: :math:`\eta = c\min\{n^{-1/2}, \epsilon/\sqrt{d\log(1/\delta)}\}`, T = n;
    α < 1/2: :math:`\eta = c\min\{n^{\frac{3(\alpha-1)}{2(1+\alpha)}}, \epsilon/\sqrt{d\log(1/\delta)}\}`,
    :math:`T = \lceil n^{\frac{2-\alpha}{1+\alpha}}\rceil`;

    .. math:: \mathbb E[F(w_{priv})]-F(w^*) = O\Big(\frac{1}{\sqrt n}+\frac{\sqrt{d\log(1/\delta)}}{n\epsilon}\Big).
    """
    return _holder_general("wang-lownoise-thm4a", n=n, d=d, eps=eps, delta=delta, alpha=alpha, c=c, L=L)


def bound_thm4b(*, n, d, eps, delta, alpha, c=1.0, L=None) -> BoundResult:
    r"""Utility of Algorithm 1 for α-Hölder smooth losses, low-noise case F(w*) = 0 (Wang, Lei, Ying & Zhou (wang-lownoise),
    Theorem 4 (b); end of the proof of Theorem 4).

    :math:`T = \lceil n^{\frac{2}{1+\alpha}}\rceil`,
    :math:`\eta = c\min\{n^{\frac{\alpha^2+2\alpha-3}{2(1+\alpha)}},\ \frac{n\epsilon}{T\sqrt{d\log(1/\delta)}}\}`;

    .. math:: \mathbb E[F(w_{priv})]-F(w^*) = O\Big(n^{-\frac{1+\alpha}{2}}+\frac{\sqrt{d\log(1/\delta)}}{n\epsilon}\Big).

    Terms ``statistical`` (n exponent −(1+α)/2) and ``privacy``.  See the theorem's discrepancy note for η.
    """
    return _holder_lownoise("wang-lownoise-thm4b", n=n, d=d, eps=eps, delta=delta, alpha=alpha, c=c, L=L)


def bound_thm6a(*, n, d, eps, delta, c=1.0, L=None) -> BoundResult:
    r"""Utility of Algorithm 2 (pairwise) for L-smooth losses, general case (Wang, Lei, Ying & Zhou (wang-lownoise), Theorem 6 (a);
    proof eq. (22) with κ = √n).

    Schedule :math:`\eta = c\min\{1/\sqrt n,\ \epsilon/\sqrt{d\log(1/\delta)}\}`, T = n;

    .. math:: \mathbb E[\bar F(w_{priv})]-\bar F(w^*) = O\Big(\frac{1}{\sqrt n}+\frac{\sqrt{d\log(1/\delta)}}{n\epsilon}\Big).
    """
    return _smooth_general("wang-lownoise-thm6a", n=n, d=d, eps=eps, delta=delta, c=c, L=L)


def bound_thm6b(*, n, d, eps, delta, c=1.0, L=None) -> BoundResult:
    r"""Utility of Algorithm 2 (pairwise) for L-smooth losses, low-noise case F̄(w*) = 0 (Wang, Lei, Ying & Zhou (wang-lownoise),
    Theorem 6 (b)).

    Schedule :math:`\eta = c\epsilon/\sqrt{d\log(1/\delta)}`, T = n;

    .. math:: \mathbb E[\bar F(w_{priv})]-\bar F(w^*) = O\Big(\frac{\sqrt{d\log(1/\delta)}}{n\epsilon}\Big).
    """
    return _smooth_lownoise("wang-lownoise-thm6b", n=n, d=d, eps=eps, delta=delta, c=c, L=L)


def bound_thm7a(*, n, d, eps, delta, alpha, c=1.0, L=None) -> BoundResult:
    r"""Utility of Algorithm 2 (pairwise) for α-Hölder smooth losses, general case (Wang, Lei, Ying & Zhou (wang-lownoise),
    Theorem 7 (a); proof eq. (25), "similar to Theorem 4").

    Same schedule as Theorem 4 (a): α >= 1/2: η = c min{n^{-1/2}, ε/√(d log(1/δ))}, T = n; α < 1/2:
    η = c min{n^{3(α−1)/(2(1+α))}, ε/√(d log(1/δ))}, T = ⌈n^{(2−α)/(1+α)}⌉;

    .. math:: \mathbb E[\bar F(w_{priv})]-\bar F(w^*) = O\Big(\frac{1}{\sqrt n}+\frac{\sqrt{d\log(1/\delta)}}{n\epsilon}\Big).
    """
    return _holder_general("wang-lownoise-thm7a", n=n, d=d, eps=eps, delta=delta, alpha=alpha, c=c, L=L)


def bound_thm7b(*, n, d, eps, delta, alpha, c=1.0, L=None) -> BoundResult:
    r"""Utility of Algorithm 2 (pairwise) for α-Hölder smooth losses, low-noise case (Wang, Lei, Ying & Zhou (wang-lownoise),
    Theorem 7 (b)).

    T = ⌈n^{2/(1+α)}⌉, η = c min{n^{(α²+2α−3)/(2(1+α))}, nε/(T√(d log(1/δ)))};

    .. math:: \mathbb E[\bar F(w_{priv})]-\bar F(w^*) = O\Big(n^{-\frac{1+\alpha}{2}}+\frac{\sqrt{d\log(1/\delta)}}{n\epsilon}\Big).
    """
    return _holder_lownoise("wang-lownoise-thm7b", n=n, d=d, eps=eps, delta=delta, alpha=alpha, c=c, L=L)


# ----------------------------------------------------------------------------------------------------------------
# catalogue entries

_POINT = ("convex", "nonnegative", "lipschitz")

ALGORITHMS = [
    Algorithm(
        id="dpsgd-rdp",
        name="DP-SGD (gradient perturbation, Rényi accounting)",
        paper=PAPER,
        place="Algorithm 1",
        setting="pointwise",
        perturbation="gradient",
        assumptions=_POINT,
        calibrate=calibrate_dpsgd_rdp,
        affects=("n", "eps", "delta", "T", "G"),
        description=(
            "Projected SGD from w_1 = 0 with one uniformly sampled example per step and Gaussian noise N(0, sigma^2 I) "
            "added to each stochastic gradient; output the average iterate. sigma depends on a free constant beta in "
            "(0, 1) that must satisfy the two Rényi-DP conditions of Theorem 2."
        ),
        noise="gaussian",
        formula=_formula(False),
    ),
    Algorithm(
        id="dpsgd-rdp-pairwise",
        name="DP-SGD-pairwise (gradient perturbation, Rényi accounting)",
        paper=PAPER,
        place="Algorithm 2",
        setting="pairwise",
        perturbation="gradient",
        assumptions=_POINT + ("pairwise",),
        calibrate=calibrate_dpsgd_rdp_pairwise,
        affects=("n", "eps", "delta", "T", "G"),
        description=(
            "Projected SGD for pairwise losses: each step samples a pair (i, j), i != j, uniformly and adds Gaussian "
            "noise to the pair gradient; output the average iterate. Conditions of Theorem 5 (sampling rate 2/n)."
        ),
        noise="gaussian",
        formula=_formula(True),
    ),
]

_DISC_REMARK1 = (
    "Remark 1 prints the Lemma 13 threshold of Wang, Lei, Ying & Zhang without brackets, "
    "'7(n^(1/3) - 1) + 4 log(n) n + 7/(2n(n^(1/3) - 1))'; the intended formula is "
    "(7(n^(1/3) - 1) + 4 n log n + 7)/(2n(n^(1/3) - 1))."
)

_DISC_THM4B = (
    "The statement chooses eta = c min{n^((alpha^2+2alpha-3)/(2(1+alpha))), n eps/(T sqrt(d log(1/delta)))}; the proof "
    "prints eta = c min{n^((alpha+2alpha-3)/(2(1+alpha))), eps/(T sqrt(d log(1/delta)))} and calls kappa 'gamma'. The "
    "proof then uses T^2 eta^2 = O(n^2 eps^2/(d log(1/delta))), which is what the statement's n eps/(T sqrt(...)) "
    "gives, so dpviz follows the statement (alpha^2 in the exponent, n in the second entry)."
)

_DISC_THM3A = (
    "In the proof of Theorem 3 (a) the intermediate bound prints the privacy term as (eta + eta^3 sqrt(n)) "
    "d log(1/delta) eta/(n eps^2); eq. (13) with T = n, kappa = sqrt(n) gives (eta + eta^3 sqrt(n)) d log(1/delta)/"
    "(n eps^2) (one eta too many in print). The final rate is unaffected."
)

_DISC_REMARK5 = (
    "Remark 5 says that for alpha < 1/2 the optimal rate is reached with T ~ n^(2/(1+alpha)); the theorem's own "
    "schedule (part (a), alpha < 1/2, as in Theorem 7 (a) for the pairwise case) is T ~ n^((2-alpha)/(1+alpha)), "
    "which dpviz uses; n^(2/(1+alpha)) is the low-noise part (b)'s T."
)

_DISC_THM6A = (
    "The proof of Theorem 6 (a) prints eta = c/max{sqrt(n), sqrt(d log(1/delta))} (no eps); the statement's "
    "eta = c min{1/sqrt(n), eps/sqrt(d log(1/delta))} is what the rate needs, and dpviz uses it."
)

_DISC_HOLDER_EXPLICIT = (
    "Explicit constants (proof of Theorem 4): Lemma 13 (b) prints E[F_S^(2alpha/(1+alpha))], but the proof uses the "
    "population E[F^(2alpha/(1+alpha))] and solves the resulting xi <= a xi^p + B (p = 2alpha/(1+alpha), "
    "a = M_{alpha,1}^2/(2kappa)) only up to O(.); dpviz follows the proof and solves it explicitly by Young's "
    "inequality, xi <= 2B + K_alpha a^((1+alpha)/(1-alpha)) with K_alpha = 2(1-alpha)/(1+alpha) "
    "(4alpha/(1+alpha))^(2alpha/(1-alpha)) (this also dominates the F_S reading); beside this literal form dpviz "
    "shows the tightest valid one, the largest root of the same inequality (1.5-1.75x smaller on the "
    "generalization part; extras['total_root']). Eq. (15) prints kappa T n^-2 "
    "sum_t eta_t (E F_S(w_t))^p where eq. (16) uses sum_t eta^2 (E F_S(w_t))^p (dpviz: eta^2); the display after "
    "(15) prints the exponent of eta in the M_{alpha,2} term as (3-alpha)/(1+alpha), Theorem 16 (b) as "
    "(3-alpha)/(1-alpha) (dpviz: Theorem 16 (b)). At alpha = 0, F^0 = 1 and no fixed point is needed."
)

_DISC_M = (
    "M is defined before eq. (4) as M = sup_z f(0; z) (a bound on the loss at 0), but it enters M_{0,1} = M + L "
    "(eq. (4)) and the gradient bound ||df(w; z)|| <= M + L||w|| of Remark 2 (G = M + L R^alpha), which need a bound "
    "on the gradient at 0; dpviz reads M as sup_z ||df(0; z)|| (as Remark 2 writes it)."
)

_DISC_THM7_EXPLICIT = (
    "Proof of Theorem 7: its final display (25) repeats eq. (22) of the smooth Theorem 6 (no Hölder terms) and "
    "leaves the rest as 'similar to Theorem 4'; dpviz's explicit form follows the proof of Theorem 4 with Lemma "
    "17 (b) (generalization gap <= M_{alpha,1}^2/(2kappa) E[Fbar^p] + 2 kappa nu), Lemma 19 (b) and Lemma 20. "
    "Lemma 19 (b) uses Mbar_{alpha,3} = sqrt(e(1-alpha)/(1+alpha)) (2-alpha) L^(1/(1-alpha)) for Lemma 18, which "
    "is cited from the same source as Lemma 14 (b), whose constant is M_{alpha,3} = sqrt((1-alpha)/(1+alpha)) "
    "(2^-alpha L)^(1/(1-alpha)); the printed Mbar_{alpha,3} is never smaller, so dpviz uses it (the bound is valid "
    "under either reading). Lemma 19's proof prints eta^(2/(alpha-1)) where its statement has eta^(2/(1-alpha)) "
    "(used)."
)

_SMOOTH = ("convex", "nonnegative", "lipschitz", "smooth")
_HOLDER = ("convex", "nonnegative", "lipschitz", "holder")
_S_GEN = r"\eta=c\min\{\tfrac{1}{\sqrt n},\tfrac{\epsilon}{\sqrt{d\log(1/\delta)}}\},\ T\asymp n"
_S_LOW = r"\eta=\frac{c\epsilon}{\sqrt{d\log(1/\delta)}},\ T\asymp n"
_H_GEN = (
    r"\alpha\ge\tfrac12:\ \eta=c\min\{\tfrac{1}{\sqrt n},\tfrac{\epsilon}{\sqrt{d\log(1/\delta)}}\},\ T\asymp n;\ "
    r"\alpha<\tfrac12:\ \eta=c\min\{n^{\frac{3(\alpha-1)}{2(1+\alpha)}},\tfrac{\epsilon}{\sqrt{d\log(1/\delta)}}\},\ "
    r"T\asymp n^{\frac{2-\alpha}{1+\alpha}}"
)
_H_LOW = (
    r"\eta=c\min\{n^{\frac{\alpha^2+2\alpha-3}{2(1+\alpha)}},\tfrac{n\epsilon}{T\sqrt{d\log(1/\delta)}}\},\ "
    r"T\asymp n^{\frac{2}{1+\alpha}}"
)
_R_OPT = r"O\Big(\frac{1}{\sqrt n}+\frac{\sqrt{d\log(1/\delta)}}{n\epsilon}\Big)"
_R_LOW = r"O\Big(\frac{\sqrt{d\log(1/\delta)}}{n\epsilon}\Big)"
_R_HLOW = r"O\Big(n^{-\frac{1+\alpha}{2}}+\frac{\sqrt{d\log(1/\delta)}}{n\epsilon}\Big)"
_PAIR_RISK = Risk("excess population risk", "expectation", "pairwise loss: F̄(w) = E f(w; z, z')")
_LOWNOTE = ("Low-noise (realizable) case: the best model has zero population risk.",)


def _thm(id_, number, alg, assumptions, bound, statement, schedule, discrepancy="", notes=(), risk=None,
         explicit_bound=None, affects=None, schedule_affects=()):
    return Theorem(
        id=id_, paper=PAPER, number=number, algorithm=alg, assumptions=assumptions, bound=bound, statement=statement,
        schedule=schedule, discrepancy=discrepancy, notes=notes, explicit_bound=explicit_bound,
        risk=risk or Risk("excess population risk", "expectation"), affects=affects,
        schedule_affects=schedule_affects,
    )


THEOREMS = [
    _thm("wang-lownoise-thm3a", "Theorem 3 (a)", "dpsgd-rdp", _SMOOTH, bound_thm3a, _R_OPT, _S_GEN,
         discrepancy=_DISC_THM3A, notes=(_DISC_REMARK1,), explicit_bound=explicit_bound_thm3a,
         schedule_affects=("n", "d", "eps", "delta", "c")),
    _thm("wang-lownoise-thm3b", "Theorem 3 (b)", "dpsgd-rdp", _SMOOTH + ("low-noise",), bound_thm3b, _R_LOW, _S_LOW,
         notes=_LOWNOTE + (_DISC_REMARK1,), explicit_bound=explicit_bound_thm3b,
         schedule_affects=("n", "d", "eps", "delta", "c")),
    _thm("wang-lownoise-thm4a", "Theorem 4 (a)", "dpsgd-rdp", _HOLDER, bound_thm4a, _R_OPT, _H_GEN,
         discrepancy=_DISC_REMARK5 + " " + _DISC_HOLDER_EXPLICIT + " " + _DISC_M, notes=(_DISC_REMARK1,),
         explicit_bound=explicit_bound_thm4a,
         affects=("n", "d", "eps", "delta", "G", "L", "R", "alpha", "c"), schedule_affects=("n", "alpha", "c")),
    _thm("wang-lownoise-thm4b", "Theorem 4 (b)", "dpsgd-rdp", _HOLDER + ("low-noise",), bound_thm4b, _R_HLOW, _H_LOW,
         discrepancy=_DISC_THM4B + " " + _DISC_HOLDER_EXPLICIT + " " + _DISC_M,
         notes=_LOWNOTE + (_DISC_REMARK1,),
         explicit_bound=explicit_bound_thm4b,
         affects=("n", "d", "eps", "delta", "G", "L", "R", "alpha", "c"),
         schedule_affects=("n", "d", "eps", "delta", "alpha", "c")),
    _thm("wang-lownoise-thm6a", "Theorem 6 (a)", "dpsgd-rdp-pairwise", _SMOOTH + ("pairwise",), bound_thm6a, _R_OPT,
         _S_GEN, discrepancy=_DISC_THM6A, risk=_PAIR_RISK,
         explicit_bound=explicit_bound_thm6a,
         schedule_affects=("n", "d", "eps", "delta", "c")),
    _thm("wang-lownoise-thm6b", "Theorem 6 (b)", "dpsgd-rdp-pairwise", _SMOOTH + ("pairwise", "low-noise"),
         bound_thm6b, _R_LOW, _S_LOW, notes=_LOWNOTE, risk=_PAIR_RISK,
         explicit_bound=explicit_bound_thm6b,
         schedule_affects=("n", "d", "eps", "delta", "c")),
    _thm("wang-lownoise-thm7a", "Theorem 7 (a)", "dpsgd-rdp-pairwise", _HOLDER + ("pairwise",), bound_thm7a, _R_OPT,
         _H_GEN, discrepancy=_DISC_THM7_EXPLICIT + " " + _DISC_HOLDER_EXPLICIT + " " + _DISC_M,
         risk=_PAIR_RISK, explicit_bound=explicit_bound_thm7a,
         affects=("n", "d", "eps", "delta", "G", "L", "R", "alpha", "c"), schedule_affects=("n", "alpha", "c")),
    _thm("wang-lownoise-thm7b", "Theorem 7 (b)", "dpsgd-rdp-pairwise", _HOLDER + ("pairwise", "low-noise"),
         bound_thm7b, _R_HLOW, _H_LOW,
         discrepancy=(_DISC_THM4B.replace("The statement", "As in Theorem 4 (b), the statement") + " "
                      + _DISC_THM7_EXPLICIT + " " + _DISC_HOLDER_EXPLICIT + " " + _DISC_M),
         notes=_LOWNOTE, risk=_PAIR_RISK, explicit_bound=explicit_bound_thm7b,
         affects=("n", "d", "eps", "delta", "G", "L", "R", "alpha", "c"),
         schedule_affects=("n", "d", "eps", "delta", "alpha", "c")),
]


# ----------------------------------------------------------------------------------------------------------------
# Tables 1 and 2


def _rate_low(*, n, d, eps, delta):
    return math.sqrt(d * _ld(delta)) / (n * eps)


def _rate_hlow(*, n, d, eps, delta, alpha):
    return n ** (-(1.0 + alpha) / 2.0) + math.sqrt(d * _ld(delta)) / (n * eps)


def _cx_n(*, n):
    return float(n)


def _cx_holder(*, n, alpha):
    return n ** ((2.0 - alpha) / (1.0 + alpha)) + n


def _cx_holder_low(*, n, alpha):
    return n ** (2.0 / (1.0 + alpha))


_CX_N = r"O(n)"
_CX_H = r"O\big(n^{\frac{2-\alpha}{1+\alpha}}+n\big)"
_CX_HL = r"O\big(n^{\frac{2}{1+\alpha}}\big)"
_OURS = "Wang, Lei, Ying & Zhou"


def _flags(lip, smooth, low):
    return {"Lipschitz": lip, "smooth": smooth, "low-noise": low}


def _ours_rows(kind: str) -> tuple[ComparisonRow, ...]:
    thm = {"point": ("Theorem 3", "Theorem 4"), "pair": ("Theorem 6", "Theorem 7")}[kind]
    method = "DP-SGD (this paper" if kind == "point" else "Gradient SGD (this paper"
    return (
        ComparisonRow(f"{method}, {thm[0]} (a))", _OURS, "Lipschitz & smooth", _R_OPT, _rate_opt, _CX_N, _cx_n,
                      _flags("✓", "✓", "×")),
        ComparisonRow(f"{method}, {thm[0]} (b))", _OURS, "Lipschitz & smooth, low noise", _R_LOW, _rate_low, _CX_N,
                      _cx_n, _flags("✓", "✓", "✓")),
        ComparisonRow(f"{method}, {thm[1]} (a))", _OURS, "Lipschitz & α-Hölder smooth", _R_OPT, _rate_opt, _CX_H,
                      _cx_holder, _flags("✓", "α-Hölder", "×")),
        ComparisonRow(f"{method}, {thm[1]} (b))", _OURS, "Lipschitz & α-Hölder smooth, low noise", _R_HLOW,
                      _rate_hlow, _CX_HL, _cx_holder_low, _flags("✓", "α-Hölder", "✓")),
    )


def _table1_rows() -> tuple[ComparisonRow, ...]:
    bftt = "Bassily, Feldman, Talwar & Thakurta (2019)"
    return (
        ComparisonRow(
            "Gradient perturbation (smooth)", bftt, "Lipschitz & smooth", _R_OPT, _rate_opt,
            r"O\Big(n^{1.5}\sqrt\epsilon+\frac{(n\epsilon)^{2.5}}{d\log(1/\delta)}\Big)",
            lambda *, n, d, eps, delta: n**1.5 * math.sqrt(eps) + (n * eps) ** 2.5 / (d * _ld(delta)),
            _flags("✓", "✓", "×"),
        ),
        ComparisonRow(
            "Gradient perturbation (Moreau smoothing)", bftt, "Lipschitz", _R_OPT, _rate_opt,
            r"O\Big(n^{4.5}\sqrt\epsilon+\frac{n^{6.5}\epsilon^{4.5}}{(d\log(1/\delta))^2}\Big)",
            lambda *, n, d, eps, delta: n**4.5 * math.sqrt(eps) + n**6.5 * eps**4.5 / (d * _ld(delta)) ** 2,
            {**_flags("✓", "×", "×"),
             "note": "misprint: §1.1 of the paper gives this complexity as n^4.5 sqrt(eps) + (n eps)^6.5 eps^4.5 "
                     "(d log(1/delta))^-2; Table 1 (used here) has n^6.5."},
        ),
        ComparisonRow(
            "Noisy projected SGD", "Bassily, Feldman, Guzmán & Talwar (2020)", "Lipschitz", _R_OPT, _rate_opt,
            r"O(n^2)", lambda *, n: float(n) ** 2, _flags("✓", "×", "×"),
        ),
        ComparisonRow(
            "DP-SGD-Gradient (smooth)", "Wang, Lei, Ying & Zhang (2022)", "smooth, bounded domain", _R_OPT, _rate_opt,
            _CX_N, _cx_n, _flags("×", "✓", "×"),
        ),
        ComparisonRow(
            "DP-SGD-Gradient (α-Hölder)", "Wang, Lei, Ying & Zhang (2022)", "α-Hölder smooth, bounded domain", _R_OPT,
            _rate_opt, _CX_H, _cx_holder, _flags("×", "α-Hölder", "×"),
        ),
    ) + _ours_rows("point")


def _table2_rows() -> tuple[ComparisonRow, ...]:
    yang = "Yang, Lei, Wang, Yang & Ying (2021)"
    return (
        ComparisonRow(
            "Output GD", "Huai, Wang, Miao, Xu & Zhang (2020)", "Lipschitz & smooth",
            r"O\Big(\frac{\sqrt{d\log(1/\delta)}}{\sqrt{n\epsilon}}\Big)",
            lambda *, n, d, eps, delta: math.sqrt(d * _ld(delta)) / math.sqrt(n * eps),
            r"O(n^2)", lambda *, n: float(n) ** 2,
            {**_flags("✓", "✓", "×"),
             "note": "misprint: Remark 4 gives this rate as O(sqrt(d log(1/delta))/sqrt(n)) (eps missing); Table 2 "
                     "(used here) has sqrt(n eps)."},
        ),
        ComparisonRow(
            "Localized GD", "Xue, Yang, Huai & Wang (2021)", "Lipschitz & smooth", _R_OPT, _rate_opt,
            r"O(n^3\log(1/\delta))", lambda *, n, delta: float(n) ** 3 * _ld(delta),
            _flags("✓", "✓", "×"),
        ),
        ComparisonRow(
            "Localized SGD (smooth)", yang, "Lipschitz & smooth",
            r"O\Big(\frac{1}{\sqrt n}+\frac{\sqrt{d\log^{3/2}(1/\delta)}}{n\epsilon}\Big)",
            lambda *, n, d, eps, delta: 1.0 / math.sqrt(n) + math.sqrt(d * _ld(delta) ** 1.5) / (n * eps),
            r"O(n\log(1/\delta))", lambda *, n, delta: n * _ld(delta),
            _flags("✓", "✓", "×"),
        ),
        ComparisonRow(
            "Localized SGD (non-smooth)", yang, "Lipschitz", _R_OPT, _rate_opt,
            r"O(n^2\log(1/\delta))", lambda *, n, delta: float(n) ** 2 * _ld(delta),
            _flags("✓", "×", "×"),
        ),
    ) + _ours_rows("pair")


TABLES = [
    ComparisonTable(
        id="wang-lownoise-table1",
        paper=PAPER,
        number="Table 1",
        caption=(
            "(ε, δ)-DP algorithms for pointwise learning: assumptions (Lipschitz, smooth, low noise), gradient "
            "complexity and utility (excess population risk)."
        ),
        rows=_table1_rows(),
    ),
    ComparisonTable(
        id="wang-lownoise-table2",
        paper=PAPER,
        number="Table 2",
        caption=(
            "(ε, δ)-DP algorithms for pairwise learning: output-perturbed GD, localized GD / SGD and SGD with "
            "gradient perturbation (this paper)."
        ),
        rows=_table2_rows(),
    ),
]
