"""Xue, Yang, Huai & Wang — differentially private pairwise learning revisited.

Paper: Xue, Yang, Huai & Wang (xue-pairwise); full reference in docs/papers.md.  Full-gradient projected gradient descent (PGD) on the pairwise empirical
risk ``L(w; D) = 1/(n(n-1)) sum_{i != j} l(w; z_i, z_j)`` (eq. (1)) over a convex, closed, bounded set ``C``; the loss
is G-Lipschitz and L-smooth, and μ-strongly convex in §3 (the paper calls the strong-convexity constant α; in dpviz α
is the Hölder exponent, so it is ``mu`` here).

What this module provides

* :func:`pairwise_gradient_sensitivity` — the replace-one ℓ2-sensitivity 4G/n of the full pairwise gradient
  (proof of Lemma 1, Appendix C.1);
* :func:`epoch_sizes` — the blocks of Algorithm 3, identical to ``dpviz.simulate._epoch_sizes``;
* the catalogue algorithms ``dpgd-sc`` (Algorithm 1, DPGDSC, output perturbation), ``dpgd-c`` (Algorithm 2, DPGDC2,
  gradient perturbation) and ``dp-epoch-gd`` (Algorithm 3, DPEGD, per-epoch output perturbation) with calibrations
  :func:`calibrate_dpgd_sc`, :func:`calibrate_dpgd_c`, :func:`calibrate_dp_epoch_gd`;
* the theorems ``xue-pairwise-thm1`` (with explicit constants from the proof in Appendix C.2), ``-thm2``, ``-thm3``,
  each with its δ = 0 (pure ε-DP, Laplace) variant where the paper states one.

Units.  The paper's ``‖C‖₂`` is the *diameter* of the constraint set.  dpviz's ``R`` is the radius of the domain
(``C = B(0, R)`` in the simulations), so ``‖C‖₂ = 2R`` throughout this module.
"""

from __future__ import annotations

import math

from dpviz import _validate as v
from dpviz import gaussian as _gauss
from dpviz.catalog import Algorithm, BoundResult, Calibration, ComparisonRow, ComparisonTable, Paper, Risk, Term, Theorem
from dpviz.papers._common import normal_cdf as _Phi

__all__ = [
    "PAPER",
    "ALGORITHMS",
    "THEOREMS",
    "TABLES",
    "pairwise_gradient_sensitivity",
    "stability_lemma1",
    "stability_lemma1_printed",
    "stability_lemma7",
    "epoch_stability",
    "epoch_sizes",
    "gaussian_exact_delta",
    "gaussian_mu_for",
    "calibrate_dpgd_sc",
    "calibrate_dpgd_c",
    "calibrate_dp_epoch_gd",
    "calibrate_dpgdc",
    "bound_thm4",
    "schedule_thm1",
    "schedule_thm2",
    "schedule_thm3",
    "bound_thm1",
    "explicit_bound_thm1",
    "bound_thm2",
    "bound_thm3",
]

PAPER = Paper(
    key="xue-pairwise",
    authors="Zhiyu Xue, Shaoyang Yang, Mengdi Huai, Di Wang",
    short="Xue, Yang, Huai & Wang",
    title="Differentially Private Pairwise Learning Revisited",
    venue="IJCAI",
    year=2021,
)

_WHO = "Xue, Yang, Huai & Wang"


# ----------------------------------------------------------------------------------------------------------------
# shared pieces


def _diameter(R: float) -> float:
    """‖C‖₂ = 2R for the ball C = B(0, R)."""
    return 2.0 * R


def _check_mu_L(mu: float, L: float | None) -> None:
    if L is not None and mu > L:
        raise ValueError(
            f"the strong-convexity constant mu = {mu:g} cannot exceed the smoothness constant L = {L:g} "
            "(an L-smooth, mu-strongly convex loss has mu <= L); check the two constants."
        )


def _delta_any(delta) -> float:
    """δ in [0, 1): δ = 0 selects the ε-DP (Laplace) variant."""
    return v.check_delta(delta, allow_zero=True)


def _delta_positive(delta, what: str) -> float:
    value = v.check_real("delta", delta)
    if value == 0.0:
        raise ValueError(
            f"{what} of {_WHO} is (eps, delta)-DP only: the paper gives no pure eps-DP (delta = 0) version. "
            "Use a delta in (0, 1), e.g. 1/n^2, or DP epoch GD (dp-epoch-gd), which has a delta = 0 variant."
        )
    return v.check_delta(value)


def _need_d(d, why: str) -> int:
    if d is None:
        raise ValueError(f"the dimension d is needed {why}; pass d (the number of model parameters).")
    return v.check_int("d", d)


def _laplace_d(d, delta: float, why: str) -> int | None:
    """The dimension d, checked if given and required (``why``) for the δ = 0 (Laplace) variant, whose noise scale
    grows with √d."""
    if d is not None:
        d = v.check_int("d", d)
    if delta == 0.0:
        d = _need_d(d, why)
    return d


def pairwise_gradient_sensitivity(*, n, G) -> float:
    r"""Replace-one ℓ2-sensitivity of the full pairwise gradient, Xue, Yang, Huai & Wang (xue-pairwise), proof of Lemma 1 (App. C.1).

    Changing one example z_k changes the 2(n−1) ordered pairs that contain it, each gradient by at most 2G, so

    .. math:: \sup_{D\sim D'}\|\nabla L(w;D)-\nabla L(w;D')\|_2 \le \frac{2(n-1)\cdot 2G}{n(n-1)} = \frac{4G}{n}.

    Parameters
    ----------
    n : int
        Sample size (>= 2).
    G : float
        Lipschitz constant of the pairwise loss (> 0).
    """
    n = v.check_n(n)
    G = v.check_positive("G", G)
    return 4.0 * G / n


def stability_lemma1(*, n, t, eta, G, L, mu) -> float:
    r"""Distance of the t-th PGD iterates on neighbouring data sets, Xue, Yang, Huai & Wang (xue-pairwise), Lemma 1,
    from its proof (App. C.1, eq. (4) unrolled from w_0 = w'_0):

    .. math:: \|w_t-w'_t\|_2 \le \frac{4G\eta}{n}\sum_{i=0}^{t-1}\rho^i,\qquad \rho = 1-\frac{L\mu\eta}{L+\mu},

    valid for a μ-strongly convex, L-smooth, G-Lipschitz pairwise loss and η <= 2/(L + μ) (Lemma 2's contraction
    needs it).  It increases in t towards 4G/(nρ') with ρ' = Lμη/(L+μ) and never exceeds the printed eq. (3),
    8G/(μn) (:func:`stability_lemma1_printed`).
    """
    n = v.check_n(n)
    t = v.check_int("t", t, minimum=0)
    eta = v.check_positive("eta", eta)
    G = v.check_positive("G", G)
    L = v.check_positive("L", L)
    mu = v.check_positive("mu", mu)
    _check_mu_L(mu, L)
    if eta > 2.0 / (L + mu) * (1 + 1e-12):
        raise ValueError(f"Lemma 1 needs a step size eta <= 2/(L + mu) = {2.0 / (L + mu):.4g}, got eta = {eta:g}.")
    rho = 1.0 - L * mu * eta / (L + mu)
    geometric = t if rho == 1.0 else (1.0 - rho**t) / (1.0 - rho)
    return 4.0 * G * eta / n * geometric


def stability_lemma1_printed(*, n, G, mu) -> float:
    r"""Xue, Yang, Huai & Wang (xue-pairwise), Lemma 1, eq. (3): ‖w_t − w'_t‖₂ <= 8G/(μn) for every t (η <= 2/(L+μ));
    the ℓ2-sensitivity of DPGDSC's released last iterate (Algorithm 1)."""
    n = v.check_n(n)
    G = v.check_positive("G", G)
    mu = v.check_positive("mu", mu)
    return 8.0 * G / (mu * n)


def stability_lemma7(*, n, t, eta, G, L=None) -> float:
    r"""Xue, Yang, Huai & Wang (xue-pairwise), Lemma 7, eq. (7): ‖w_t − w'_t‖₂ <= 4ηGt/n for PGD on a convex,
    L-smooth, G-Lipschitz pairwise loss with η <= 2/L (Algorithm 4, DPGDC); hence the average of w_1..w_T moves by at
    most 4ηGT/n, the sensitivity of DPGDC's release.  With ``L`` the step-size condition is checked."""
    n = v.check_n(n)
    t = v.check_int("t", t, minimum=0)
    eta = v.check_positive("eta", eta)
    G = v.check_positive("G", G)
    if L is not None:
        L = v.check_positive("L", L)
        if eta > 2.0 / L * (1 + 1e-12):
            raise ValueError(f"Lemma 7 needs a step size eta <= 2/L = {2.0 / L:.4g}, got eta = {eta:g}.")
    return 4.0 * eta * G * t / n


def epoch_stability(*, n, eta, G, index, L=None) -> tuple[float, int]:
    r"""(bound, epoch i) for DPEGD (Xue, Yang, Huai & Wang (xue-pairwise), Algorithm 3) when example ``index``
    (0-based) is replaced.

    The example lies in one block D_i (sizes :func:`epoch_sizes`, in order).  Epochs before i see the same data;
    epoch i runs n_i PGD steps with η_i = η 4^{−i}, so by Lemma 7 (T_i = n_i) its average moves by at most
    4Gη_i T_i/n_i = 4Gη_i (proof of Theorem 3, App. C.5).  With the same output noise on both sides and η_j <= 2/L,
    every later epoch is non-expansive (the first display in the proof of Lemma 7, and Lemma 3 for the projection),
    so the final output moves by at most 4Gη_i too.  Returns the bound and i (1-based).
    """
    n = v.check_n(n)
    eta = v.check_positive("eta", eta)
    G = v.check_positive("G", G)
    index = v.check_int("index", index, minimum=0)
    if index >= n:
        raise ValueError(f"the replaced example's index must be below n = {n}, got {index}.")
    if L is not None:
        L = v.check_positive("L", L)
        if eta / 4.0 > 2.0 / L * (1 + 1e-12):
            raise ValueError(f"Lemma 7 needs step sizes eta_i = eta 4^-i <= 2/L = {2.0 / L:.4g}.")
    start = 0
    for i, m in enumerate(epoch_sizes(n), start=1):
        if index < start + m:
            return 4.0 * G * eta * 4.0 ** (-i), i
        start += m
    raise AssertionError("unreachable: the blocks cover 0..n-1")


def epoch_sizes(n) -> list[int]:
    r"""Block sizes n_1, …, n_k of Algorithm 3 (DPEGD), Xue, Yang, Huai & Wang (xue-pairwise), Algorithm 3, line 1.

    The paper assumes n = 2^k and takes k = log₂ n blocks with n_i = 2^{−i} n for i < k, D_k the remaining examples.
    For general n, dpviz (like the simulation engine, ``dpviz.simulate._epoch_sizes``) takes k = max(1, ⌊log₂ n⌋),
    n_i = ⌊n / 2^i⌋ for i < k and n_k = n − Σ_{i<k} n_i; every block then has at least 2 examples, so each block's
    pairwise empirical risk is defined.
    """
    n = v.check_n(n)
    k = max(1, int(math.floor(math.log2(n))))
    sizes = [n // 2**i for i in range(1, k)]
    sizes.append(n - sum(sizes))
    return sizes


def gaussian_exact_delta(*, eps, mu) -> float:
    r"""Exact δ(ε) of a μ-Gaussian-DP mechanism (Balle & Wang 2018, Thm 8; Dong, Roth & Su 2019, Cor. 2.13).

    .. math:: \delta(\epsilon) = \Phi\Big(-\frac{\epsilon}{\mu}+\frac{\mu}{2}\Big)
              - e^{\epsilon}\,\Phi\Big(-\frac{\epsilon}{\mu}-\frac{\mu}{2}\Big).

    A Gaussian mechanism with sensitivity Δ and noise σ is μ-GDP with μ = Δ/σ; T of them composed (as in
    Algorithm 2 of Xue, Yang, Huai & Wang (xue-pairwise)) are exactly μ-GDP with μ = √T Δ/σ.  dpviz uses this only to check the
    paper's calibrations.
    """
    eps = v.check_eps(eps)
    mu = v.check_positive("mu (the GDP parameter)", mu)
    a = eps / mu
    if eps > 700.0:
        return max(0.0, _Phi(-a + mu / 2.0))
    return max(0.0, _Phi(-a + mu / 2.0) - math.exp(eps) * _Phi(-a - mu / 2.0))


def gaussian_mu_for(*, eps, delta) -> float:
    r"""The largest μ with :func:`gaussian_exact_delta` (ε, μ) <= δ (bisection; δ(ε, μ) increases with μ).

    Used by Algorithm 2's ``accountant="exact"`` (Xue, Yang, Huai & Wang (xue-pairwise), Algorithm 2): σ = √T Δ / μ.
    """
    eps = v.check_eps(eps)
    delta = v.check_delta(delta)
    lo, hi = 1e-6, 1.0
    for _ in range(64):  # doublings from 1 to 1e6: at most 20
        if not gaussian_exact_delta(eps=eps, mu=hi) <= delta:
            break
        lo, hi = hi, 2.0 * hi
        if hi > 1e6:
            return hi
    for _ in range(200):
        mid = 0.5 * (lo + hi)
        if gaussian_exact_delta(eps=eps, mu=mid) <= delta:
            lo = mid
        else:
            hi = mid
        if hi - lo <= 1e-13 * hi:
            break
    return lo


# ----------------------------------------------------------------------------------------------------------------
# schedules


def schedule_thm1(*, n, L, mu) -> tuple[float, int]:
    r"""(η, T) for Algorithm 1, Xue, Yang, Huai & Wang (xue-pairwise), Theorem 1 and its proof (App. C.2).

    η = 2/(L + μ), the largest step Lemma 1 allows, and T = ⌈2 (L/μ) ln n⌉ — a concrete choice of the theorem's
    T = Õ((L/μ) log n): then the optimisation error (L/2)‖C‖² exp(−2ημLT/(μ+L)) of the proof is at most
    (L/2)‖C‖² n^{−2}, because 2ημL/(μ+L) = 4μL/(L+μ)² >= μ/L.
    """
    n = v.check_n(n)
    L = v.check_positive("L", L)
    mu = v.check_positive("mu", mu)
    _check_mu_L(mu, L)
    return 2.0 / (L + mu), max(1, math.ceil(2.0 * L / mu * math.log(n)))


def schedule_thm2(*, n, d, eps, delta, G, R) -> tuple[float, int]:
    r"""(η, T) for Algorithm 2, Xue, Yang, Huai & Wang (xue-pairwise), Theorem 2 (T) and the optimisation of its proof (η).

    .. math:: T = \Big\lfloor\min\Big\{n, \frac{n^2\epsilon^2}{d\log(1/\delta)}\Big\}\Big\rfloor,\qquad
              \eta = \frac{\|C\|_2}{G\sqrt T},\quad \|C\|_2 = 2R.

    The statement prints η = G/(‖C‖₂√T) and the proof η = ‖C‖₂²/(G√T); minimising the proof's bound
    ‖C‖²/(ηT) + ηT G²(1/n + d log(1/δ)/(n²ε²)) gives ‖C‖₂/(G√T) (see ``Theorem.discrepancy``).
    """
    n = v.check_n(n)
    d = v.check_int("d", d)
    eps = v.check_eps(eps)
    delta = _delta_positive(delta, "Algorithm 2 (DPGDC2)")
    G = v.check_positive("G", G)
    R = v.check_positive("R", R)
    T = max(1, math.floor(min(float(n), n**2 * eps**2 / (d * math.log(1.0 / delta)))))
    return _diameter(R) / (G * math.sqrt(T)), T


def _thm3_min(n: int, d: int, eps: float, delta: float) -> float:
    if delta == 0.0:
        return min(4.0 / math.sqrt(n), eps / d)
    return min(4.0 / math.sqrt(n), eps / math.sqrt(d * math.log(1.0 / delta)))


def schedule_thm3(*, n, d, eps, delta, G, R) -> tuple[float, int]:
    r"""(η, T) for Algorithm 3, Xue, Yang, Huai & Wang (xue-pairwise), Theorem 3.

    .. math:: \eta = \frac{\|C\|_2}{G}\min\Big\{\frac{4}{\sqrt n}, \frac{\epsilon}{\sqrt{d\log(1/\delta)}}\Big\}
              \ (\delta>0),\qquad \eta = \frac{\|C\|_2}{G}\min\Big\{\frac{4}{\sqrt n}, \frac{\epsilon}{d}\Big\}
              \ (\delta=0),

    with ‖C‖₂ = 2R; epoch i uses η_i = 4^{−i}η for n_i steps, so T = Σ n_i = n steps in total.
    """
    n = v.check_n(n)
    d = v.check_int("d", d)
    eps = v.check_eps(eps)
    delta = _delta_any(delta)
    G = v.check_positive("G", G)
    R = v.check_positive("R", R)
    return _diameter(R) / G * _thm3_min(n, d, eps, delta), n


# ----------------------------------------------------------------------------------------------------------------
# Algorithm 1: DPGDSC (output perturbation, strongly convex)

_SC_FORMULA = (
    r"\sigma=\frac{8\sqrt{2\ln(1.25/\delta)}\,G}{\mu n\epsilon}\ (\delta>0),\qquad "
    r"\lambda=\frac{8G\sqrt d}{\mu n\epsilon}\ (\delta=0)"
)


def calibrate_dpgd_sc(*, n, eps, delta, G, mu, d=None, L=None, eta=None, T=None, sigma_rule="private") -> Calibration:
    r"""Output noise of DPGDSC, Xue, Yang, Huai & Wang (xue-pairwise), Algorithm 1 (lines 4–5) with Lemma 1 and Theorem 1.

    PGD with η <= 2/(L+μ) on a μ-strongly convex, L-smooth, G-Lipschitz pairwise loss has ℓ2-sensitivity 8G/(μn) at
    every iterate (Lemma 1, eq. (3)); the last iterate is released with

    .. math:: \sigma = \frac{8\sqrt{2\ln(1.25/\delta)}\,G}{\mu n\epsilon}\ (\delta>0,\ \text{Gaussian}),\qquad
              \lambda = \frac{8G\sqrt d}{\mu n\epsilon}\ (\delta = 0,\ \text{Laplace per coordinate}),

    (the Laplace scale uses ‖·‖₁ <= √d ‖·‖₂).

    The printed σ is the classical Gaussian mechanism, proved for ε < 1 only; at large ε (e.g. ε = 16) it
    under-noises.  dpviz releases by default (``sigma_rule="private"``) the analytic Gaussian σ of Balle & Wang (2018)
    for the sensitivity 8G/(μn) (:func:`dpviz.gaussian.sigma_for`), and reports the printed σ beside it
    (``extras['sigma_paper']``, ``extras['paper_sigma_private']``); ``sigma_rule="printed"`` releases the printed σ,
    feasible only when it passes the exact check.

    Parameters
    ----------
    n, eps, delta
        Sample size, privacy budget, δ ∈ [0, 1) (δ = 0: ε-DP with Laplace noise).
    G, mu
        Lipschitz and strong-convexity constants of the loss (the paper's α is ``mu``).
    d : int, optional
        Dimension; required when δ = 0.
    L : float, optional
        Smoothness constant.  With L, the step-size condition η <= 2/(L+μ) of Lemma 1 is checked and, when not
        given, η = 2/(L+μ) and T = ⌈2(L/μ) ln n⌉ (Theorem 1, :func:`schedule_thm1`) are returned.
    eta, T : optional
        Step size and number of iterations, if chosen by the user (σ does not depend on T).

    Returns
    -------
    Calibration
        ``sigma`` (δ > 0) or ``laplace_scale`` (δ = 0); ``extras['sensitivity']`` = 8G/(μn).  Infeasible (not an
        error) when η > 2/(L+μ), since Lemma 1's sensitivity bound then fails.
    """
    n = v.check_n(n)
    eps = v.check_eps(eps)
    delta = _delta_any(delta)
    G = v.check_positive("G", G)
    mu = v.check_positive("mu (strong-convexity constant)", mu)
    sigma_rule = _gauss.check_sigma_rule(sigma_rule)
    d = _laplace_d(d, delta, "for the delta = 0 (Laplace) variant of Algorithm 1, whose scale is 8 G sqrt(d)/(mu n eps)")
    if L is not None:
        L = v.check_positive("L", L)
        _check_mu_L(mu, L)
    if eta is not None:
        eta = v.check_positive("eta", eta)
    if T is not None:
        T = v.check_int("T", T)
    notes: list[str] = []
    eta_max = None if L is None else 2.0 / (L + mu)
    if L is not None:
        eta_s, T_s = schedule_thm1(n=n, L=L, mu=mu)
        eta = eta_s if eta is None else eta
        T = T_s if T is None else T
    elif eta is not None:
        notes.append("Lemma 1 needs eta <= 2/(L + mu); give L to check it.")
    if eta_max is not None and eta > eta_max * (1 + 1e-12):
        return Calibration(
            id="dpgd-sc",
            feasible=False,
            T=T,
            eta=eta,
            reason=(
                f"the sensitivity bound 8G/(mu n) ({_WHO}, Lemma 1) needs a step size eta <= 2/(L + mu) = "
                f"2/({L:g} + {mu:g}) = {eta_max:.4g}, got eta = {eta:g}"
            ),
            fix=f"use a step size eta <= {eta_max:.4g} (Theorem 1 uses eta = 2/(L + mu) = {eta_max:.4g})",
            formula=_SC_FORMULA,
            extras={"eta_max": eta_max},
        )
    sens = 8.0 * G / (mu * n)
    extras = {"sensitivity": sens, "eta_max": eta_max}
    if delta > 0.0:
        sigma_paper = math.sqrt(2.0 * math.log(1.25 / delta)) * sens / eps
        cmp = _gauss.compare_with_paper(eps=eps, delta=delta, sensitivity=sens, sigma_paper=sigma_paper,
                                        check="exact Gaussian mechanism on the last iterate, sensitivity 8G/(mu n)")
        pick = _gauss.choose_sigma(cmp, sigma_rule, eps=eps, delta=delta, what="Algorithm 1 (DPGDSC)")
        notes += pick["notes"]
        extras.update(cmp)
        extras["sigma_rule"] = sigma_rule
        nums = (
            rf"\sigma_{{\rm paper}}=\frac{{8\sqrt{{2\ln(1.25/{delta:.3g})}}\cdot{G:g}}}{{{mu:g}\cdot{n}\cdot{eps:g}}}"
            rf"={sigma_paper:.4g},\quad \sigma_{{\rm private}}={cmp['sigma_private']:.4g}"
        )
        return Calibration(
            id="dpgd-sc", feasible=pick["feasible"], sigma=pick["sigma"], T=T, eta=eta,
            reason=pick["reason"] or (
                f"Gaussian mechanism on the last PGD iterate, sensitivity 8G/(mu n) = {sens:.4g} (Lemma 1); sigma "
                + ("from the exact (analytic) Gaussian mechanism" if sigma_rule == "private" else "as printed")),
            fix=pick["fix"], formula=_SC_FORMULA, formula_numbers=nums, notes=notes, extras=extras,
        )
    lam = sens * math.sqrt(d) / eps
    nums = rf"\lambda=\frac{{8\cdot{G:g}\sqrt{{{d}}}}}{{{mu:g}\cdot{n}\cdot{eps:g}}}={lam:.4g}"
    extras["l1_sensitivity"] = sens * math.sqrt(d)
    return Calibration(
        id="dpgd-sc", feasible=True, laplace_scale=lam, T=T, eta=eta,
        reason=f"Laplace mechanism on the last PGD iterate, l1-sensitivity sqrt(d) 8G/(mu n) = {sens * math.sqrt(d):.4g}",
        formula=_SC_FORMULA, formula_numbers=nums, notes=notes, extras=extras,
    )


# ----------------------------------------------------------------------------------------------------------------
# Algorithm 2: DPGDC2 (gradient perturbation, convex)

_C_FORMULA = r"\sigma=\frac{4G\sqrt{1.25\,T\log(1/\delta)}}{n\epsilon}\ \text{(printed)},\quad \sigma_{\rm private}:\ \delta_{\rm exact}(\epsilon;\sqrt T\,4G/n,\sigma)=\delta"
_ACCOUNTANTS = ("paper", "exact")


def calibrate_dpgd_c(*, n, eps, delta, G, T=None, d=None, R=None, L=None, eta=None, sigma_rule="private",
                     accountant=None) -> Calibration:
    r"""Gradient noise of DPGDC2, Xue, Yang, Huai & Wang (xue-pairwise), Algorithm 2 (line 2) and Theorem 2.

    Each of the T full pairwise gradients (sensitivity 4G/n, :func:`pairwise_gradient_sensitivity`) gets
    N(0, σ² I_d).  Algorithm 2 prints

    .. math:: \sigma_{\rm paper} = \frac{4G\sqrt{1.25\,T\log(1/\delta)}}{n\epsilon}.

    The paper omits the privacy proof ("advanced composition and Gaussian mechanism").  dpviz checks it exactly:
    T composed Gaussian mechanisms with sensitivity Δ = 4G/n are exactly one Gaussian mechanism with sensitivity
    √T·Δ (Dong, Roth & Su 2019), whose δ(ε) is :func:`dpviz.gaussian.delta_of` (Balle & Wang 2018, Theorem 8).
    E.g. n = 1000, d = 10, ε = 5, δ = 1e-8 (T = 1000): the printed σ = 0.1214 has exact δ = 1.73e-6, and
    (ε, δ)-DP needs σ = 0.1441; ε = 1, δ = 1e-6: exact δ = 1.40e-6.

    ``sigma_rule="private"`` (default) releases the smallest σ that passes this exact check;
    ``sigma_rule="printed"`` releases the printed σ, and the calibration is then feasible only if the printed σ
    passes the check (else ``reason`` says "as printed — not (ε, δ)-DP here").  The printed σ, its exact δ and the
    verdict are always in ``extras`` (``sigma_paper``, ``paper_exact_delta``, ``paper_sigma_private``).  There is no
    δ = 0 version (the paper says so after Theorem 2).

    Parameters
    ----------
    n, eps, delta, G
        Sample size, privacy budget, δ ∈ (0, 1), Lipschitz constant.
    T : int, optional
        Number of iterations; default Theorem 2's T = ⌊min{n, n²ε²/(d log(1/δ))}⌋ (needs ``d``).
    d : int, optional
        Dimension (for the default T).
    R : float, optional
        Radius of the domain (‖C‖₂ = 2R); gives the default step η = ‖C‖₂/(G√T) (:func:`schedule_thm2`).
    L : float, optional
        Smoothness; the utility proof needs η <= 1/(2L) (a note if violated; privacy does not depend on η).
    eta : float, optional
        Step size chosen by the user.
    sigma_rule : {"private", "printed"}
        Which σ is released (see above).
    accountant : {"paper", "exact"}, optional
        Older name of ``sigma_rule`` ("paper" = "printed", "exact" = "private"); overrides it when given.
    """
    n = v.check_n(n)
    eps = v.check_eps(eps)
    delta = _delta_positive(delta, "Algorithm 2 (DPGDC2)")
    G = v.check_positive("G", G)
    if accountant is not None:
        if accountant not in _ACCOUNTANTS:
            raise ValueError(f"accountant must be one of {', '.join(_ACCOUNTANTS)}, got {accountant!r}.")
        sigma_rule = "printed" if accountant == "paper" else "private"
    sigma_rule = _gauss.check_sigma_rule(sigma_rule)
    if d is not None:
        d = v.check_int("d", d)
    if R is not None:
        R = v.check_positive("R", R)
    if L is not None:
        L = v.check_positive("L", L)
    if eta is not None:
        eta = v.check_positive("eta", eta)
    notes: list[str] = []
    if T is None:
        d = _need_d(d, "for Theorem 2's number of iterations T = min{n, n^2 eps^2/(d log(1/delta))} (or pass T)")
        T = max(1, math.floor(min(float(n), n**2 * eps**2 / (d * math.log(1.0 / delta)))))
        notes.append(f"T = {T} from Theorem 2: min{{n, n^2 eps^2/(d log(1/delta))}}.")
    T = v.check_int("T", T)
    if eta is None and R is not None:
        eta = _diameter(R) / (G * math.sqrt(T))
        notes.append(f"eta = ||C|| / (G sqrt(T)) = 2R/(G sqrt(T)) = {eta:.4g} (the step the proof of Theorem 2 optimises).")
    if L is not None and eta is not None and eta > 1.0 / (2.0 * L):
        notes.append(
            f"eta = {eta:.4g} > 1/(2L) = {1.0 / (2.0 * L):.4g}: the utility proof of Theorem 2 assumes eta <= 1/(2L) "
            "(privacy is unaffected)."
        )
    sens = 4.0 * G / n
    sigma_paper = sens * math.sqrt(1.25 * T * math.log(1.0 / delta)) / eps
    mu_paper = math.sqrt(T) * sens / sigma_paper
    cmp = _gauss.compare_with_paper(
        eps=eps, delta=delta, sensitivity=math.sqrt(T) * sens, sigma_paper=sigma_paper,
        check=f"exact composition of T = {T} Gaussian steps = one Gaussian with sensitivity sqrt(T) 4G/n",
    )
    pick = _gauss.choose_sigma(cmp, sigma_rule, eps=eps, delta=delta, what="Algorithm 2 (DPGDC2)")
    notes += pick["notes"]
    sigma = pick["sigma"]
    nums = (rf"\sigma_{{\rm paper}}=\frac{{4\cdot{G:g}\sqrt{{1.25\cdot{T}\log(1/{delta:.3g})}}}}{{{n}\cdot{eps:g}}}"
            rf"={sigma_paper:.4g},\quad \sigma_{{\rm private}}={cmp['sigma_private']:.4g}")
    return Calibration(
        id="dpgd-c",
        feasible=pick["feasible"],
        sigma=sigma,
        T=T,
        eta=eta,
        reason=pick["reason"] or (
            f"Gaussian noise on each of T = {T} full pairwise gradients (sensitivity 4G/n = {sens:.4g}); sigma "
            + ("is the smallest that is (eps, delta)-DP by exact Gaussian composition" if sigma_rule == "private"
               else "as printed in Algorithm 2 (private by exact Gaussian composition)")
        ),
        fix=pick["fix"],
        formula=_C_FORMULA,
        formula_numbers=nums,
        notes=notes,
        extras={
            "sensitivity": sens,
            "sigma_rule": sigma_rule,
            "accountant": "paper" if sigma_rule == "printed" else "exact",
            **cmp,
            "sigma_exact": cmp["sigma_private"],
            "gdp_mu": mu_paper,
            "exact_delta": cmp["paper_exact_delta"],
        },
    )


# ----------------------------------------------------------------------------------------------------------------
# Algorithm 3: DPEGD (epoch GD with per-epoch output perturbation)

_EPOCH_FORMULA = (
    r"\eta_i=4^{-i}\eta,\ n_i=\lfloor n/2^i\rfloor,\ "
    r"\sigma_i=\frac{4\sqrt{2\ln(1.25/\delta)}\,G\eta_i}{\epsilon}\ (\delta>0),\ "
    r"\lambda_i=\frac{4G\eta_i\sqrt d}{\epsilon}\ (\delta=0),\ i=1,\dots,\lfloor\log_2 n\rfloor"
)


def calibrate_dp_epoch_gd(*, n, eps, delta, G, eta=None, d=None, R=None, L=None, sigma_rule="private") -> Calibration:
    r"""Per-epoch noise of DPEGD, Xue, Yang, Huai & Wang (xue-pairwise), Algorithm 3 (lines 1–6) and Theorem 3 (proof in C.5).

    Epoch i = 1, …, k (k = ⌊log₂ n⌋, :func:`epoch_sizes`) runs n_i PGD steps with η_i = 4^{−i}η on its own block
    D_i and releases the average iterate, whose sensitivity is 4Gη_i (Lemma 7 with T_i = n_i, needs η <= 2/L); the
    blocks are disjoint, so the epochs compose in parallel:

    .. math:: \sigma_i = \frac{4\sqrt{2\ln(1.25/\delta)}\,G\eta_i}{\epsilon}\ (\delta>0),\qquad
              \lambda_i = \frac{4G\eta_i\sqrt d}{\epsilon}\ (\delta=0).

    The printed σ_i is the classical Gaussian mechanism (proved for ε < 1); by default (``sigma_rule="private"``)
    dpviz releases the analytic Gaussian σ_i of Balle & Wang (2018) for sensitivity 4Gη_i, and reports the printed
    schedule in ``extras['sigma_schedule_paper']`` (``extras['sigma_paper']`` = its first entry).

    Parameters
    ----------
    n, eps, delta, G
        Sample size, privacy budget, δ ∈ [0, 1) (δ = 0: Laplace), Lipschitz constant.
    eta : float, optional
        Base step size η; default Theorem 3's :func:`schedule_thm3` (needs ``d`` and ``R``).
    d : int, optional
        Dimension (δ = 0 and the default η).
    R : float, optional
        Radius of the domain, ‖C‖₂ = 2R (for the default η).
    L : float, optional
        Smoothness; η > 2/L makes the calibration infeasible (Lemma 7's sensitivity bound fails).

    Returns
    -------
    Calibration
        δ > 0: ``sigma_schedule`` = [σ_1, …, σ_k] and ``sigma`` = σ_1 (the largest).  δ = 0: ``laplace_scale`` = λ_1
        and ``extras['laplace_schedule']`` = [λ_1, …, λ_k].  ``T`` = n (total PGD steps), ``eta`` = η;
        ``extras`` holds ``epoch_sizes`` and ``eta_schedule``.
    """
    n = v.check_n(n)
    eps = v.check_eps(eps)
    delta = _delta_any(delta)
    G = v.check_positive("G", G)
    sigma_rule = _gauss.check_sigma_rule(sigma_rule)
    d = _laplace_d(d, delta, "for the delta = 0 (Laplace) variant of Algorithm 3, whose scales are 4 G eta_i sqrt(d)/eps")
    if R is not None:
        R = v.check_positive("R", R)
    if L is not None:
        L = v.check_positive("L", L)
    notes: list[str] = []
    if eta is None:
        if R is None or d is None:
            raise ValueError(
                "Algorithm 3 needs a base step size: pass eta, or R (domain radius) and d (dimension) to use "
                "Theorem 3's eta = (2R/G) min{4/sqrt(n), eps/sqrt(d log(1/delta))}."
            )
        eta, _ = schedule_thm3(n=n, d=d, eps=eps, delta=delta, G=G, R=R)
        notes.append(f"eta = {eta:.4g} from Theorem 3 (||C|| = 2R).")
    else:
        eta = v.check_positive("eta", eta)
    sizes = epoch_sizes(n)
    k = len(sizes)
    etas = [eta * 4.0 ** (-i) for i in range(1, k + 1)]
    extras = {"epoch_sizes": sizes, "eta_schedule": etas, "epochs": k}
    if L is not None and eta > 2.0 / L * (1 + 1e-12):
        return Calibration(
            id="dp-epoch-gd", feasible=False, T=n, eta=eta,
            reason=(
                f"the sensitivity 4 G eta_i of each epoch ({_WHO}, Lemma 7 / Theorem 3) needs eta <= 2/L = "
                f"{2.0 / L:.4g}, got eta = {eta:.4g}"
            ),
            fix=f"use a base step size eta <= 2/L = {2.0 / L:.4g}",
            formula=_EPOCH_FORMULA, notes=notes, extras=extras,
        )
    if n & (n - 1):
        notes.append(
            f"n = {n} is not a power of 2 (the paper assumes n = 2^k): k = floor(log2 n) = {k} blocks of sizes "
            f"floor(n/2^i), the last block D_k takes the remaining {sizes[-1]} examples."
        )
    if delta > 0.0:
        c = 4.0 * math.sqrt(2.0 * math.log(1.25 / delta)) * G / eps
        sched_paper = [c * e for e in etas]
        # sigma_i / (4 G eta_i) is the same for every epoch, so one exact check covers all of them
        cmp = _gauss.compare_with_paper(eps=eps, delta=delta, sensitivity=4.0 * G * etas[0], sigma_paper=sched_paper[0],
                                        check="exact Gaussian mechanism per epoch average, sensitivity 4 G eta_i "
                                              "(disjoint blocks: parallel composition)")
        pick = _gauss.choose_sigma(cmp, sigma_rule, eps=eps, delta=delta, what="Algorithm 3 (DPEGD)")
        notes += pick["notes"]
        ratio = cmp["sigma_private"] / sched_paper[0]
        sched_private = [s_ * ratio for s_ in sched_paper]
        sched = sched_private if sigma_rule == "private" else sched_paper
        extras.update(cmp)
        extras.update({"sigma_rule": sigma_rule, "sigma_schedule_paper": sched_paper,
                       "sigma_schedule_private": sched_private})
        nums = (
            rf"\sigma_1^{{\rm paper}}=\frac{{4\sqrt{{2\ln(1.25/{delta:.3g})}}\cdot{G:g}\cdot{etas[0]:.4g}}}{{{eps:g}}}"
            rf"={sched_paper[0]:.4g},\ \sigma_1^{{\rm private}}={sched_private[0]:.4g},"
            rf"\ \dots,\ \sigma_{{{k}}}={sched[-1]:.4g}"
        )
        return Calibration(
            id="dp-epoch-gd", feasible=pick["feasible"], sigma=sched[0], sigma_schedule=sched, T=n, eta=eta,
            reason=pick["reason"] or (
                f"Gaussian noise on each of k = {k} epoch averages (sensitivity 4 G eta_i, disjoint blocks); sigma_i "
                + ("from the exact (analytic) Gaussian mechanism" if sigma_rule == "private" else "as printed")),
            fix=pick["fix"], formula=_EPOCH_FORMULA, formula_numbers=nums, notes=notes, extras=extras,
        )
    lap = [4.0 * G * e * math.sqrt(d) / eps for e in etas]
    extras["laplace_schedule"] = lap
    nums = (
        rf"\lambda_1=\frac{{4\cdot{G:g}\cdot{etas[0]:.4g}\sqrt{{{d}}}}}{{{eps:g}}}={lap[0]:.4g},"
        rf"\ \dots,\ \lambda_{{{k}}}={lap[-1]:.4g}"
    )
    return Calibration(
        id="dp-epoch-gd", feasible=True, laplace_scale=lap[0], T=n, eta=eta,
        reason=f"Laplace noise on each of k = {k} epoch averages (l1-sensitivity 4 G eta_i sqrt(d), disjoint blocks)",
        formula=_EPOCH_FORMULA, formula_numbers=nums, notes=notes, extras=extras,
    )


# ----------------------------------------------------------------------------------------------------------------
# Theorems


def _result(theorem, terms, *, eta, T, complexity, notes=(), extras=None, explicit=False):
    return BoundResult.of(theorem, terms, eta=eta, T=T, gradient_complexity=complexity, notes=notes, extras=extras,
                          explicit=explicit)


_COMPLEXITY_NOTE = "Gradient complexity counts pairwise-loss gradients: each full-gradient step costs n(n-1)."


def _thm1_inputs(n, d, eps, delta, G, L, mu, R):
    n = v.check_n(n)
    d = v.check_int("d", d)
    eps = v.check_eps(eps)
    delta = _delta_any(delta)
    G = v.check_positive("G", G)
    L = v.check_positive("L", L)
    mu = v.check_positive("mu (strong-convexity constant)", mu)
    R = v.check_positive("R", R)
    _check_mu_L(mu, L)
    return n, d, eps, delta, G, L, mu, R


def bound_thm1(*, n, d, eps, delta, G, L, mu, R, c=1.0):
    r"""Excess population risk of DPGDSC, Xue, Yang, Huai & Wang (xue-pairwise), Theorem 1 (proof in Appendix C.2).

    Schedule (:func:`schedule_thm1`): η = 2/(L+μ), T = ⌈2(L/μ) ln n⌉.  Following the proof (see
    ``Theorem.discrepancy``), with the O(·) constant ``c``:

    .. math:: \mathbb E\,\mathrm{Err}_P(\tilde w_T) \le c\Big(\frac{LG^2d\log(1/\delta)}{\mu^2n^2\epsilon^2}
              + \frac{G^2}{\mu n} + L\|C\|_2^2e^{-\frac{2\eta\mu LT}{\mu+L}}\Big)\quad(\delta>0),

    and with :math:`d^2` in place of :math:`d\log(1/\delta)` for δ = 0 (Laplace).  ‖C‖₂ = 2R.  Terms: ``privacy``
    (n^{−2} ε^{−2}), ``statistical`` (the stability / generalisation term, n^{−1}), ``optimisation`` (<= c L ‖C‖² n^{−2}
    at this T).
    """
    n, d, eps, delta, G, L, mu, R = _thm1_inputs(n, d, eps, delta, G, L, mu, R)
    c = v.check_positive("c", c)
    eta, T = schedule_thm1(n=n, L=L, mu=mu)
    D = _diameter(R)
    if delta > 0.0:
        priv = L * G**2 * d * math.log(1.0 / delta) / (mu**2 * n**2 * eps**2)
        tex = r"\frac{LG^2d\log(1/\delta)}{\mu^2n^2\epsilon^2}"
    else:
        priv = L * G**2 * d**2 / (mu**2 * n**2 * eps**2)
        tex = r"\frac{LG^2d^2}{\mu^2n^2\epsilon^2}"
    opt = L * D**2 * math.exp(-2.0 * eta * mu * L * T / (mu + L))
    terms = [
        Term("privacy", c * priv, -2.0, -2.0, tex),
        Term("statistical", c * G**2 / (mu * n), -1.0, 0.0, r"\frac{G^2}{\mu n}"),
        Term("optimisation", c * opt, -2.0, 0.0, r"L\|C\|_2^2e^{-2\eta\mu LT/(\mu+L)}"),
    ]
    notes = [
        "Expected excess population risk; ||C|| = 2R is the diameter of the domain.",
        "delta = 0: the eps-DP (Laplace) variant." if delta == 0.0 else "delta > 0: the Gaussian variant.",
        _COMPLEXITY_NOTE,
    ]
    return _result("xue-pairwise-thm1", terms, eta=eta, T=T, complexity=T * n * (n - 1), notes=notes)


def explicit_bound_thm1(*, n, d, eps, delta, G, L, mu, R):
    r"""Explicit-constant version of Theorem 1 from its proof, Xue, Yang, Huai & Wang (xue-pairwise), Appendix C.2 (Lemmas 4–6).

    .. math:: \mathbb E\,\mathrm{Err}_P(\tilde w_T) \le \frac L2\|C\|_2^2e^{-\frac{2\eta\mu LT}{\mu+L}}
              + \frac L2\mathbb E\|\zeta\|_2^2 + \frac{16G^2}{\mu n},

    with :math:`\mathbb E\|\zeta\|^2 = d\sigma^2 = 128\,d\ln(1.25/\delta)G^2/(\mu n\epsilon)^2` (Gaussian) or
    :math:`2d\lambda^2 = 128\,d^2G^2/(\mu n\epsilon)^2` (Laplace), η = 2/(L+μ), T = ⌈2(L/μ) ln n⌉, ‖C‖₂ = 2R.
    The last term is 2β with the uniform stability β = 8G²/(μn) of Lemma 4.
    """
    n, d, eps, delta, G, L, mu, R = _thm1_inputs(n, d, eps, delta, G, L, mu, R)
    eta, T = schedule_thm1(n=n, L=L, mu=mu)
    D = _diameter(R)
    sens = 8.0 * G / (mu * n)
    if delta > 0.0:
        noise2 = d * (math.sqrt(2.0 * math.log(1.25 / delta)) * sens / eps) ** 2
        tex = r"\frac L2 d\sigma^2"
    else:
        noise2 = 2.0 * d * (sens * math.sqrt(d) / eps) ** 2
        tex = r"\frac L2\cdot 2d\lambda^2"
    terms = [
        Term("privacy", 0.5 * L * noise2, -2.0, -2.0, tex),
        Term("statistical", 16.0 * G**2 / (mu * n), -1.0, 0.0, r"\frac{16G^2}{\mu n}"),
        Term("optimisation", 0.5 * L * D**2 * math.exp(-2.0 * eta * mu * L * T / (mu + L)), -2.0, 0.0,
             r"\frac L2\|C\|_2^2e^{-2\eta\mu LT/(\mu+L)}"),
    ]
    return _result("xue-pairwise-thm1", terms, eta=eta, T=T, complexity=T * n * (n - 1), explicit=True,
                   notes=["Constants from the proof of Theorem 1; ||C|| = 2R.", _COMPLEXITY_NOTE],
                   extras={"E_noise_sq": noise2})


def _convex_inputs(n, d, eps, G, R, c):
    return (v.check_n(n), v.check_int("d", d), v.check_eps(eps), v.check_positive("G", G), v.check_positive("R", R),
            v.check_positive("c", c))


def bound_thm2(*, n, d, eps, delta, G, R, L=None, c=1.0):
    r"""Excess population risk of DPGDC2, Xue, Yang, Huai & Wang (xue-pairwise), Theorem 2 (proof in Appendix C.4).

    Schedule (:func:`schedule_thm2`): T = ⌊min{n, n²ε²/(d log(1/δ))}⌋, η = ‖C‖₂/(G√T) (‖C‖₂ = 2R; the proof's
    optimal step, see ``Theorem.discrepancy``).  With the O(·) constant ``c``,

    .. math:: \mathbb E\,\mathrm{Err}_P(\bar w_T) \le c\,G\|C\|_2\Big(\frac1{\sqrt n}
              + \frac{\sqrt{d\log(1/\delta)}}{n\epsilon}\Big).

    (ε, δ)-DP only.  With ``L``, a note flags η > 1/(2L) (the proof's step-size condition).
    """
    n, d, eps, G, R, c = _convex_inputs(n, d, eps, G, R, c)
    delta = _delta_positive(delta, "Theorem 2 (DPGDC2)")
    eta, T = schedule_thm2(n=n, d=d, eps=eps, delta=delta, G=G, R=R)
    D = _diameter(R)
    terms = [
        Term("privacy", c * G * D * math.sqrt(d * math.log(1.0 / delta)) / (n * eps), -1.0, -1.0,
             r"\frac{G\|C\|_2\sqrt{d\log(1/\delta)}}{n\epsilon}"),
        Term("statistical", c * G * D / math.sqrt(n), -0.5, 0.0, r"\frac{G\|C\|_2}{\sqrt n}"),
    ]
    notes = ["Expected excess population risk; ||C|| = 2R is the diameter of the domain.", _COMPLEXITY_NOTE]
    if L is not None:
        L = v.check_positive("L", L)
        if eta > 1.0 / (2.0 * L):
            notes.append(
                f"eta = {eta:.4g} > 1/(2L) = {1.0 / (2.0 * L):.4g}: the proof needs L <= G sqrt(T)/(2||C||) = "
                f"{G * math.sqrt(T) / (2.0 * D):.4g}; the bound is evaluated formally."
            )
    return _result("xue-pairwise-thm2", terms, eta=eta, T=T, complexity=T * n * (n - 1), notes=notes)


def bound_thm3(*, n, d, eps, delta, G, R, L=None, c=1.0):
    r"""Excess population risk of DPEGD, Xue, Yang, Huai & Wang (xue-pairwise), Theorem 3 (proof in Appendix C.5).

    Schedule (:func:`schedule_thm3`): η = (‖C‖₂/G) min{4/√n, ε/√(d log(1/δ))} (δ > 0) or
    (‖C‖₂/G) min{4/√n, ε/d} (δ = 0), η_i = 4^{−i}η, n_i steps in epoch i (T = n in total).  With the O(·)
    constant ``c``,

    .. math:: \mathbb E\,\mathrm{Err}_P(w_k) \le c\,G\|C\|_2\Big(\frac1{\sqrt n}
              + \frac{\sqrt{d\log(1/\delta)}}{n\epsilon}\Big)\ (\delta>0),\qquad
              c\,G\|C\|_2\Big(\frac1{\sqrt n} + \frac{d}{n\epsilon}\Big)\ (\delta=0).

    Gradient complexity Σ_i n_i · n_i(n_i − 1) (n_i PGD steps on the pairs of block D_i).  With ``L``, a note flags
    η > 2/L (Theorem 3's hypothesis).
    """
    n, d, eps, G, R, c = _convex_inputs(n, d, eps, G, R, c)
    delta = _delta_any(delta)
    eta, T = schedule_thm3(n=n, d=d, eps=eps, delta=delta, G=G, R=R)
    D = _diameter(R)
    if delta > 0.0:
        priv = Term("privacy", c * G * D * math.sqrt(d * math.log(1.0 / delta)) / (n * eps), -1.0, -1.0,
                    r"\frac{G\|C\|_2\sqrt{d\log(1/\delta)}}{n\epsilon}")
    else:
        priv = Term("privacy", c * G * D * d / (n * eps), -1.0, -1.0, r"\frac{G\|C\|_2d}{n\epsilon}")
    terms = [priv, Term("statistical", c * G * D / math.sqrt(n), -0.5, 0.0, r"\frac{G\|C\|_2}{\sqrt n}")]
    sizes = epoch_sizes(n)
    notes = [
        "Expected excess population risk; ||C|| = 2R is the diameter of the domain.",
        "delta = 0: the eps-DP (Laplace) variant." if delta == 0.0 else "delta > 0: the Gaussian variant.",
        "Gradient complexity counts pairwise-loss gradients: epoch i runs n_i steps of n_i(n_i - 1) pairs.",
    ]
    if L is not None:
        L = v.check_positive("L", L)
        if eta > 2.0 / L:
            notes.append(f"eta = {eta:.4g} > 2/L = {2.0 / L:.4g}: Theorem 3 (and its privacy proof) needs eta <= 2/L.")
    return _result("xue-pairwise-thm3", terms, eta=eta, T=T, complexity=sum(m * m * (m - 1) for m in sizes),
                   notes=notes, extras={"epoch_sizes": sizes, "eta_schedule": [eta * 4.0 ** (-i) for i in
                                                                                range(1, len(sizes) + 1)]})



# ----------------------------------------------------------------------------------------------------------------
# Algorithm 4: DPGDC (output perturbation, general convex; Appendix C.3) and Theorem 4

_C4_FORMULA = (
    r"\sigma=\frac{4\sqrt{2\ln(1.25/\delta)}\,GT\eta}{n\epsilon}\ (\delta>0),\qquad "
    r"\lambda=\frac{4G\eta T\sqrt d}{n\epsilon}\ (\delta=0)"
)


def calibrate_dpgdc(*, n, eps, delta, G, T, eta, d=None, L=None, sigma_rule="private") -> Calibration:
    r"""Output noise of DPGDC, Xue, Yang, Huai & Wang (xue-pairwise), Algorithm 4 with Lemma 7 (Appendix C.3).

    T projected full-gradient steps with η <= 2/L on a convex, G-Lipschitz, L-smooth pairwise loss; the average
    w_avg = (w_1 + … + w_T)/T has ℓ2-sensitivity 4ηGT/n (Lemma 7, eq. (7): ‖w_t − w'_t‖ <= 4ηGt/n) and is released
    with

    .. math:: \sigma = \frac{4\sqrt{2\ln(1.25/\delta)}\,GT\eta}{n\epsilon}\ (\delta>0),\qquad
              \lambda = \frac{4G\eta T\sqrt d}{n\epsilon}\ (\delta = 0,\ \text{Laplace per coordinate}).

    Line 6 of Algorithm 4 prints "return w̃_T = w_avg^T" for δ = 0, dropping the "+ ζ" it then defines; dpviz reads it
    as w_avg^T + ζ (the only reading under which Theorem 4 claims ε-DP).  The printed σ is the classical Gaussian
    mechanism (ε < 1); by default (``sigma_rule="private"``) dpviz releases the analytic Gaussian σ of Balle & Wang
    (2018) for the sensitivity 4ηGT/n and reports the printed σ in ``extras['sigma_paper']``.

    Parameters
    ----------
    n, eps, delta, G
        Sample size, privacy budget, δ ∈ [0, 1) (δ = 0: Laplace), Lipschitz constant.
    T, eta
        Number of PGD steps and step size (the paper gives no schedule for Algorithm 4).
    d : int, optional
        Dimension (required for δ = 0).
    L : float, optional
        Smoothness; η > 2/L makes the calibration infeasible (Lemma 7 needs η <= 2/L).
    sigma_rule : {"private", "printed"}
    """
    n = v.check_n(n)
    eps = v.check_eps(eps)
    delta = _delta_any(delta)
    G = v.check_positive("G", G)
    T = v.check_int("T", T)
    eta = v.check_positive("eta", eta)
    sigma_rule = _gauss.check_sigma_rule(sigma_rule)
    d = _laplace_d(d, delta, "for the delta = 0 (Laplace) variant of Algorithm 4, whose scale is 4 G eta T sqrt(d)/(n eps)")
    if L is not None:
        L = v.check_positive("L", L)
    sens = 4.0 * eta * G * T / n
    extras = {"sensitivity": sens}
    if L is not None and eta > 2.0 / L * (1 + 1e-12):
        return Calibration(
            id="dpgdc", feasible=False, T=T, eta=eta,
            reason=f"the sensitivity 4 eta G T/n ({_WHO}, Lemma 7) needs eta <= 2/L = {2.0 / L:.4g}, got eta = {eta:g}",
            fix=f"use a step size eta <= {2.0 / L:.4g}", formula=_C4_FORMULA, extras=extras,
        )
    notes: list[str] = []
    if delta > 0.0:
        sigma_paper = 4.0 * math.sqrt(2.0 * math.log(1.25 / delta)) * G * T * eta / (n * eps)
        cmp = _gauss.compare_with_paper(eps=eps, delta=delta, sensitivity=sens, sigma_paper=sigma_paper,
                                        check="exact Gaussian mechanism on the average iterate, sensitivity 4 eta G T/n")
        pick = _gauss.choose_sigma(cmp, sigma_rule, eps=eps, delta=delta, what="Algorithm 4 (DPGDC)")
        notes += pick["notes"]
        extras.update(cmp)
        extras["sigma_rule"] = sigma_rule
        nums = (rf"\sigma_{{\rm paper}}=\frac{{4\sqrt{{2\ln(1.25/{delta:.3g})}}\cdot{G:g}\cdot{T}\cdot{eta:g}}}"
                rf"{{{n}\cdot{eps:g}}}={sigma_paper:.4g},\quad \sigma_{{\rm private}}={cmp['sigma_private']:.4g}")
        return Calibration(
            id="dpgdc", feasible=pick["feasible"], sigma=pick["sigma"], T=T, eta=eta,
            reason=pick["reason"] or (
                f"Gaussian mechanism on the average of T = {T} PGD iterates, sensitivity 4 eta G T/n = {sens:.4g} "
                "(Lemma 7); sigma " + ("from the exact (analytic) Gaussian mechanism" if sigma_rule == "private"
                                       else "as printed")),
            fix=pick["fix"], formula=_C4_FORMULA, formula_numbers=nums, notes=notes, extras=extras,
        )
    lam = sens * math.sqrt(d) / eps
    extras["l1_sensitivity"] = sens * math.sqrt(d)
    notes.append("Algorithm 4, line 6 omits '+ zeta' for delta = 0; dpviz adds the Laplace noise it defines.")
    nums = rf"\lambda=\frac{{4\cdot{G:g}\cdot{eta:g}\cdot{T}\sqrt{{{d}}}}}{{{n}\cdot{eps:g}}}={lam:.4g}"
    return Calibration(
        id="dpgdc", feasible=True, laplace_scale=lam, T=T, eta=eta,
        reason=f"Laplace mechanism on the average iterate, l1-sensitivity sqrt(d) 4 eta G T/n = {sens * math.sqrt(d):.4g}",
        formula=_C4_FORMULA, formula_numbers=nums, notes=notes, extras=extras,
    )


def bound_thm4(*, n, d, eps, delta, G, R, T, eta, L=None, c=1.0):
    r"""Excess population risk of DPGDC, Xue, Yang, Huai & Wang (xue-pairwise), Theorem 4 (Appendix C.3), rate form.

    .. math:: \mathbb E\,\mathrm{Err}_P(\tilde w_T) \le c\Big(\frac{\|w_0-w^*\|_2^2}{\eta T}
              + \frac{\eta G^2T^2\,d\log(1/\delta)}{n^2\epsilon^2} + \frac{G^2\eta T}{n}\Big)\ (\delta>0),

    with d² in place of d log(1/δ) for δ = 0.  ‖w_0 − w*‖ <= ‖C‖₂ = 2R (both lie in C).  The theorem's statement
    says "Algorithm 1"; its proof is about Algorithm 4 (Lemma 7, "Algorithm 4 is uniform stability with 4GηT/n"), the
    reading dpviz follows.  The proof's noise term is (L/2)E‖ζ‖² = 16 L G²η²T² d ln(1.25/δ)/(n²ε²), which the printed
    ηG²T²d log(1/δ)/(n²ε²) bounds up to a constant because Lη <= 2.  The paper notes after the theorem that this bound
    is sub-optimal: it cannot reach O(1/√n + √d/(nε)) (Theorem 3 / Algorithm 3 does).
    """
    n, d, eps, G, R, c = _convex_inputs(n, d, eps, G, R, c)
    delta = _delta_any(delta)
    T = v.check_int("T", T)
    eta = v.check_positive("eta", eta)
    D = _diameter(R)
    priv = d * math.log(1.0 / delta) if delta > 0 else float(d * d)
    priv_tex = r"d\log(1/\delta)" if delta > 0 else r"d^2"
    terms = [
        Term("optimisation", c * D**2 / (eta * T), 0.0, 0.0, r"\frac{\|w_0-w^*\|_2^2}{\eta T}"),
        Term("privacy", c * eta * G**2 * T**2 * priv / (n * eps) ** 2, -2.0, -2.0,
             rf"\frac{{\eta G^2T^2{priv_tex}}}{{n^2\epsilon^2}}"),
        Term("stability", c * G**2 * eta * T / n, -1.0, 0.0, r"\frac{G^2\eta T}{n}"),
    ]
    notes = ["Expected excess population risk; ||w_0 - w*|| <= ||C|| = 2R.",
             "Sub-optimal (the paper, after Theorem 4): no eta, T reach O(1/sqrt(n) + sqrt(d)/(n eps)); see Theorem 3."]
    if L is not None:
        L = v.check_positive("L", L)
        if eta > 2.0 / L:
            notes.append(f"eta = {eta:g} > 2/L = {2.0 / L:.4g}: Lemma 7 (and hence privacy and the bound) needs eta <= 2/L.")
    return _result("xue-pairwise-thm4", terms, eta=eta, T=T, complexity=T * n * (n - 1), notes=notes)


# ----------------------------------------------------------------------------------------------------------------
# Table 1: upper and lower bounds on the population error (constants and log factors omitted)


def _t1(rate_tex, rate, method, reference, assumptions, privacy, kind, note=None):
    extra = {"privacy": privacy, "bound": kind}
    if note:
        extra["note"] = note
    return ComparisonRow(method=method, reference=reference, assumptions=assumptions, rate_latex=rate_tex, rate=rate,
                         extra=extra)


#: The "Huai et al.; Yang et al." row of Table 1 against dpviz's own reading of Yang, Lei, Lyu & Ying.
_T1_YANG_NOTE = (
    "Evaluated as printed, sqrt(d)/sqrt(n eps). dpviz's Yang, Lei, Lyu & Ying Corollary 2 (yang-pairwise-cor2) gives "
    "sqrt(d)/(sqrt(n) eps) at the same point (Theorem 5's privacy term is proportional to sigma, which eq. (5) makes "
    "proportional to 1/eps): the two differ by a factor sqrt(eps) (mismatch between this row and dpviz's Yang et al.)."
)


def _table1_rows() -> tuple[ComparisonRow, ...]:
    sc, cv = "Lipschitz, smooth, strongly convex", "Lipschitz, smooth, convex"
    huai = "Huai, Wang, Miao, Xu & Zhang (2020)"
    bassily = "Bassily, Feldman, Talwar & Thakurta (2019) (pointwise lower bounds, valid for pairwise)"
    ed, e0 = "(eps, delta)-DP", "eps-DP"
    return (
        _t1(r"O\Big(\frac{\sqrt d}{\sqrt{n\epsilon}}\Big)", lambda *, n, d, eps: math.sqrt(d / (n * eps)),
            "Huai et al.", huai, sc, ed, "upper"),
        _t1(r"O\Big(\frac1n+\frac{d}{n^2\epsilon^2}\Big)", lambda *, n, d, eps: 1 / n + d / (n * eps) ** 2,
            "This paper (Algorithm 1, Theorem 1)", "Xue, Yang, Huai & Wang (2021)", sc, ed, "upper"),
        _t1(r"\Omega\Big(\frac1n+\frac{d}{n^2\epsilon^2}\Big)", lambda *, n, d, eps: 1 / n + d / (n * eps) ** 2,
            "Lower bound", bassily, sc, ed, "lower"),
        _t1(r"O\Big(\frac1n+\frac{d^2}{n^2\epsilon^2}\Big)", lambda *, n, d, eps: 1 / n + d**2 / (n * eps) ** 2,
            "This paper (Algorithm 1, Theorem 1)", "Xue, Yang, Huai & Wang (2021)", sc, e0, "upper"),
        _t1(r"\Omega\Big(\frac1n+\frac{d^2}{n^2\epsilon^2}\Big)", lambda *, n, d, eps: 1 / n + d**2 / (n * eps) ** 2,
            "Lower bound", bassily, sc, e0, "lower"),
        _t1(r"O\Big(\frac{\sqrt d}{\sqrt{n\epsilon}}\Big)", lambda *, n, d, eps: math.sqrt(d / (n * eps)),
            "Huai et al.; Yang et al.", huai + "; Yang, Lei, Lyu & Ying (2021)", cv, ed, "upper", _T1_YANG_NOTE),
        _t1(r"O\Big(\frac1{\sqrt n}+\frac{\sqrt d}{n\epsilon}\Big)", lambda *, n, d, eps: 1 / math.sqrt(n) + math.sqrt(d) / (n * eps),
            "This paper (Algorithm 3, Theorem 3)", "Xue, Yang, Huai & Wang (2021)", cv, ed, "upper"),
        _t1(r"\Omega\Big(\frac1{\sqrt n}+\frac{\sqrt d}{n\epsilon}\Big)", lambda *, n, d, eps: 1 / math.sqrt(n) + math.sqrt(d) / (n * eps),
            "Lower bound", bassily, cv, ed, "lower"),
        _t1(r"O\Big(\frac1{\sqrt n}+\frac{d}{n\epsilon}\Big)", lambda *, n, d, eps: 1 / math.sqrt(n) + d / (n * eps),
            "This paper (Algorithm 3, Theorem 3)", "Xue, Yang, Huai & Wang (2021)", cv, e0, "upper"),
        _t1(r"\Omega\Big(\frac1{\sqrt n}+\frac{d}{n\epsilon}\Big)", lambda *, n, d, eps: 1 / math.sqrt(n) + d / (n * eps),
            "Lower bound", bassily, cv, e0, "lower"),
    )

# ----------------------------------------------------------------------------------------------------------------
# Catalogue entries

_SC = ("pairwise", "strongly-convex", "lipschitz", "smooth", "bounded-domain")
_CVX = ("pairwise", "convex", "lipschitz", "smooth", "bounded-domain")

ALGORITHMS = [
    Algorithm(
        id="dpgd-sc",
        name="DPGDSC (DP gradient descent, strongly convex; output perturbation)",
        paper=PAPER,
        place="Algorithm 1",
        setting="pairwise",
        perturbation="output",
        assumptions=_SC,
        calibrate=calibrate_dpgd_sc,
        affects=("n", "eps", "delta", "T", "G", "mu"),
        description=(
            "Projected full-gradient descent on the pairwise empirical risk with eta <= 2/(L + mu) for T steps; "
            "the last iterate (sensitivity 8G/(mu n), Lemma 1) is released with Gaussian (delta > 0) or Laplace "
            "(delta = 0) noise."
        ),
        noise="gaussian-or-laplace",
        formula=_SC_FORMULA,
    ),
    Algorithm(
        id="dpgd-c",
        name="DPGDC2 (DP gradient descent, convex; gradient perturbation)",
        paper=PAPER,
        place="Algorithm 2",
        setting="pairwise",
        perturbation="gradient",
        assumptions=_CVX,
        calibrate=calibrate_dpgd_c,
        affects=("n", "eps", "delta", "T", "G"),
        description=(
            "Projected full-gradient descent on the pairwise empirical risk, N(0, sigma^2 I) added to each full "
            "gradient (sensitivity 4G/n); output the average of w_0, ..., w_T. (eps, delta)-DP only."
        ),
        noise="gaussian",
        formula=_C_FORMULA,
    ),
    Algorithm(
        id="dpgdc",
        name="DPGDC (DP gradient descent, convex; output perturbation)",
        paper=PAPER,
        place="Algorithm 4 (Appendix C.3)",
        setting="pairwise",
        perturbation="output",
        assumptions=_CVX,
        calibrate=calibrate_dpgdc,
        affects=("n", "eps", "delta", "T", "eta", "G"),
        description=(
            "Projected full-gradient descent with eta <= 2/L for T steps; the average of w_1..w_T (sensitivity "
            "4 eta G T/n, Lemma 7) is released with Gaussian (delta > 0) or Laplace (delta = 0) noise. Sub-optimal "
            "(Theorem 4); the paper's motivation for Algorithm 3."
        ),
        noise="gaussian-or-laplace",
        formula=_C4_FORMULA,
    ),
    Algorithm(
        id="dp-epoch-gd",
        name="DPEGD (DP epoch gradient descent)",
        paper=PAPER,
        place="Algorithm 3",
        setting="pairwise",
        perturbation="output",
        assumptions=_CVX,
        calibrate=calibrate_dp_epoch_gd,
        affects=("n", "eps", "delta", "eta", "G"),
        description=(
            "k = floor(log2 n) epochs on disjoint blocks D_i (n_i = floor(n/2^i)); epoch i runs n_i projected "
            "full-gradient steps with eta_i = 4^-i eta from the previous output, averages its iterates and adds "
            "Gaussian (delta > 0) or Laplace (delta = 0) noise scaled to the sensitivity 4 G eta_i."
        ),
        noise="gaussian-or-laplace",
        formula=_EPOCH_FORMULA,
    ),
]

_DISCREPANCY_THM1 = (
    "The statement's privacy term carries a factor ||C||^2 (diameter squared), but the proof gives "
    "(L/2) E||zeta||^2 = 64 L G^2 d ln(1.25/delta)/(mu^2 n^2 eps^2) with no diameter (the printed term is off by a "
    "squared length); dpviz follows the proof. The proof's convergence bound "
    "(L/2) exp(-2 eta alpha G T/(L + alpha)) ||w_0 - w*||^2 has G where the PGD rate for strongly convex smooth "
    "functions (Nesterov, Thm 2.1.15) has L: dpviz uses exp(-2 eta mu L T/(mu + L)). T = O~((L/mu) log n) is made "
    "concrete as T = ceil(2 (L/mu) ln n) with eta = 2/(L + mu)."
)

_DISCREPANCY_THM2 = (
    "Step size: the statement sets eta = G/(||C|| sqrt(T)), the proof eta = ||C||^2/(G sqrt(T)); minimising the "
    "proof's bound ||C||^2/(eta T) + eta T G^2 (1/n + d log(1/delta)/(n^2 eps^2)) gives eta = ||C||/(G sqrt(T)) "
    "(the only dimensionally consistent choice; all three agree when ||C|| = G = 1), which dpviz uses. The proof "
    "needs eta <= 1/(2L) (the algorithm box says eta <= 2/L), i.e. L <= G sqrt(T)/(2||C||) = "
    "(G/(2||C||)) min{sqrt(n), n eps/sqrt(d log(1/delta))}; the statement prints (||C||/(2G)) min{n, ...}. "
    "Privacy: the proof is omitted; the printed sigma = 4G sqrt(1.25 T log(1/delta))/(n eps) does not follow from "
    "advanced composition, and by exact Gaussian composition it under-noises slightly for larger eps or smaller "
    "delta (eps = 1, delta = 1e-6: true delta 1.4e-6). dpviz shows the printed sigma and reports the exact one "
    "(accountant='exact'). The output line prints sum_{i=0}^T (w_0 + ... + w_T)/(T + 1); the plain average is meant."
)

_DISCREPANCY_THM3 = (
    "The statement sets eta = (||C||/G) min{4/sqrt(n), ...}, the proof (eq. (15)) min{1/sqrt(n), ...}; both give "
    "the same rate and dpviz uses the statement's. The paper assumes n = 2^k; dpviz uses k = floor(log2 n) blocks "
    "with the remainder in D_k. In term B of the proof the noise of the previous epoch, zeta_(i-1), is written "
    "zeta_i (a constant factor 16, same rate)."
)

THEOREMS = [
    Theorem(
        id="xue-pairwise-thm1",
        paper=PAPER,
        number="Theorem 1",
        algorithm="dpgd-sc",
        assumptions=_SC,
        bound=bound_thm1,
        explicit_bound=explicit_bound_thm1,
        statement=(
            r"O\Big(\frac{LG^2d\log(1/\delta)}{\mu^2n^2\epsilon^2}+\frac{G^2}{\mu n}\Big)\ (\delta>0),\quad "
            r"O\Big(\frac{LG^2d^2}{\mu^2n^2\epsilon^2}+\frac{G^2}{\mu n}\Big)\ (\delta=0)"
        ),
        schedule=r"\eta=\frac{2}{L+\mu},\ T=\lceil 2(L/\mu)\ln n\rceil\ \big(=\tilde O(\tfrac{L}{\mu}\log n)\big)",
        discrepancy=_DISCREPANCY_THM1,
        notes=("The paper's strong-convexity constant alpha is mu in dpviz.",),
        risk=Risk("excess population risk", "expectation"),
        schedule_affects=("n", "L", "mu"),
    ),
    Theorem(
        id="xue-pairwise-thm2",
        paper=PAPER,
        number="Theorem 2",
        algorithm="dpgd-c",
        assumptions=_CVX,
        bound=bound_thm2,
        statement=r"O\Big(G\|C\|_2\Big(\frac{1}{\sqrt n}+\frac{\sqrt{d\log(1/\delta)}}{n\epsilon}\Big)\Big)",
        schedule=r"T=\min\{n,\frac{n^2\epsilon^2}{d\log(1/\delta)}\},\ \eta=\frac{\|C\|_2}{G\sqrt T}",
        discrepancy=_DISCREPANCY_THM2,
        notes=("(eps, delta)-DP only: the paper gives no delta = 0 version of Algorithm 2.",),
        risk=Risk("excess population risk", "expectation"),
        affects=("n", "d", "eps", "delta", "G", "R", "c"),
        schedule_affects=("n", "d", "eps", "delta", "G", "R"),
    ),
    Theorem(
        id="xue-pairwise-thm3",
        paper=PAPER,
        number="Theorem 3",
        algorithm="dp-epoch-gd",
        assumptions=_CVX,
        bound=bound_thm3,
        statement=(
            r"O\Big(G\|C\|_2\Big(\frac{1}{\sqrt n}+\frac{\sqrt{d\log(1/\delta)}}{n\epsilon}\Big)\Big)\ (\delta>0),\quad "
            r"O\Big(G\|C\|_2\Big(\frac{1}{\sqrt n}+\frac{d}{n\epsilon}\Big)\Big)\ (\delta=0)"
        ),
        schedule=(
            r"\eta=\frac{\|C\|_2}{G}\min\Big\{\frac{4}{\sqrt n},\frac{\epsilon}{\sqrt{d\log(1/\delta)}}\Big\}"
            r"\ (\delta=0:\ \tfrac{\epsilon}{d}),\ \eta_i=4^{-i}\eta,\ n_i\text{ steps per epoch}"
        ),
        discrepancy=_DISCREPANCY_THM3,
        risk=Risk("excess population risk", "expectation"),
        affects=("n", "d", "eps", "delta", "G", "R", "c"),
        schedule_affects=("n", "d", "eps", "delta", "G", "R"),
    ),
    Theorem(
        id="xue-pairwise-thm4",
        paper=PAPER,
        number="Theorem 4 (Appendix C.3)",
        algorithm="dpgdc",
        assumptions=_CVX,
        bound=bound_thm4,
        statement=(
            r"O\Big(\frac{\|w_0-w^*\|_2^2}{\eta T}+\frac{\eta G^2T^2d\log(1/\delta)}{n^2\epsilon^2}"
            r"+\frac{G^2\eta T}{n}\Big)\ (\delta>0;\ d^2\ \text{for}\ \delta=0)"
        ),
        schedule=r"\eta\le 2/L,\ T\ \text{free (no schedule given)}",
        discrepancy=(
            "The statement says 'Algorithm 1'; the proof is about Algorithm 4 (Lemma 7), which dpviz follows. "
            "Algorithm 4 line 6 (delta = 0) omits '+ zeta'; dpviz adds the Laplace noise."
        ),
        risk=Risk("excess population risk", "expectation"),
        affects=("n", "d", "eps", "delta", "T", "eta", "G", "R", "c"),
        schedule_affects=("n", "T", "eta"),
    ),
]

TABLES: list = [
    ComparisonTable(
        id="xue-pairwise-table1",
        paper=PAPER,
        number="Table 1",
        caption=(
            "Upper and lower bounds on the population error of DP pairwise learning with Lipschitz and smooth losses "
            "(constants, log factors and the diameter of C omitted), for (ε, δ)-DP and ε-DP; the lower bounds are "
            "Bassily et al.'s for pointwise losses, which are a special case."
        ),
        rows=_table1_rows(),
    ),
]
