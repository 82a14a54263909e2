"""Xue, Yang, Huai & Wang (xue-pairwise): the shared pieces, the schedules and the calibrations of Algorithms 1-3.

DPGDSC (Algorithm 1, output perturbation, strongly convex), DPGDC2 (Algorithm 2, gradient perturbation, convex) and
DPEGD (Algorithm 3, epoch GD with per-epoch output perturbation), with Gaussian and Laplace noise.
"""

from __future__ import annotations

import math

from dpviz.foundation import validate as v
from dpviz.theory import gaussian as _gauss
from dpviz.theory.catalog import Calibration
from dpviz.theory.papers._common import normal_cdf as _Phi


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
    For general n, dpviz (like the simulation engine, ``dpviz.engine.simulate._epoch_sizes``) takes k = max(1, ⌊log₂ n⌋),
    n_i = ⌊n / 2^i⌋ for i < k and n_k = n − Σ_{i<k} n_i; every block then has at least 2 examples, so each block's
    pairwise empirical risk is defined.
    """
    n = v.check_n(n)
    k = max(1, n.bit_length() - 1)  # floor(log2 n), exactly (math.log2(2**53 - 1) rounds up to 53.0)
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

def released_formula(formula: str, sigma_rule: str, sensitivity_tex: str) -> str:
    """``formula`` (the paper's σ) followed, under ``sigma_rule="private"``, by the rule that produced the released σ:
    the smallest σ passing the exact Gaussian check (Balle & Wang 2018, Theorem 8) for ``sensitivity_tex``."""
    if sigma_rule != "private":
        return formula
    return (formula + r";\quad\text{released }(\delta>0):\ \sigma_{\rm private}=\min\{\sigma:\delta_{\rm exact}"
            + r"(\epsilon;" + sensitivity_tex + r",\sigma)\le\delta\}")


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
    for the sensitivity 8G/(μn) (:func:`dpviz.theory.gaussian.sigma_for`), and reports the printed σ beside it
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
            fix=pick["fix"], formula=released_formula(_SC_FORMULA, sigma_rule, r"8G/(\mu n)"),
            formula_numbers=nums, notes=notes, extras=extras,
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
    √T·Δ (Dong, Roth & Su 2019), whose δ(ε) is :func:`dpviz.theory.gaussian.delta_of` (Balle & Wang 2018, Theorem 8).
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
            fix=pick["fix"], formula=released_formula(_EPOCH_FORMULA, sigma_rule, r"4G\eta_i"),
            formula_numbers=nums, notes=notes, extras=extras,
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
