"""Yang, Lei, Lyu & Ying (yang-pairwise): input checks, Theorem 1's stability / sensitivity, the output perturbation of
Algorithm 2 (Theorem 4) and the constants of Theorems 2, 3 and 5.
"""

from __future__ import annotations

import math

from dpviz.foundation import validate as v
from dpviz.theory import gaussian as _gauss
from dpviz.theory.catalog import BoundResult, Calibration
from dpviz.theory.papers._common import check_gamma as _gamma, gaussian_exact_delta as _exact_delta


_ASSUME = ("convex", "lipschitz", "nonnegative", "pairwise")
_ASSUME_BOUNDED = _ASSUME + ("bounded-domain",)

# ----------------------------------------------------------------------------------------------------------------
# input checks and small helpers


def _grad_complexity(T: int) -> float:
    """Pairwise subgradients used by T steps of Algorithm 1: step t averages t of them, sum = T(T+1)/2."""
    return T * (T + 1) / 2.0


def _result(theorem, terms, *, eta=None, T=None, notes=(), extras=None, explicit=False, total=None):
    return BoundResult.of(theorem, terms, eta=eta, T=T, gradient_complexity=None if T is None else _grad_complexity(T),
                          notes=notes, extras=extras, explicit=explicit, total=total)


def _sqrt_sum_bound(T: int) -> float:
    """Upper bound sum_{t=1}^T t^{-1/2} <= 2 sqrt(T) - 1 (integral comparison), used for (1/T) sum_t R_t."""
    return 2.0 * math.sqrt(T) - 1.0


def _gaussian_exact_delta(eps: float, s: float) -> float:
    """Exact δ(ε) of the Gaussian mechanism with σ = s·Δ (Balle & Wang 2018, Theorem 8):
    Φ(1/(2s) − εs) − e^ε Φ(−1/(2s) − εs); flags ε where Lemma 2 (proved for ε < 1) under-noises (ε > 700: 1)."""
    if eps > 700.0:
        return 1.0
    return _exact_delta(eps, s)


# ----------------------------------------------------------------------------------------------------------------
# Theorem 1: stability / sensitivity


def stability_eq3(*, n, t, eta, G, gamma) -> float:
    r"""Right-hand side of eq. (3) (squared distance of the (t+1)-th iterates), Yang, Lei, Lyu & Ying (yang-pairwise), Theorem 1.

    .. math:: \|w_{t+1}-w'_{t+1}\|_2^2 \le 4e\eta^2G^2\Big[t+\ln^2(et)\Big(\frac tn+\ln(1/\gamma)
              +\sqrt{\frac{t\ln(1/\gamma)}{n}}\Big)^2\Big].

    Returns the squared bound, as printed.
    """
    n = v.check_n(n)
    t = v.check_int("t", t)
    eta = v.check_positive("eta", eta)
    G = v.check_positive("G", G)
    gamma = _gamma(gamma)
    a = math.log(1.0 / gamma)
    c = math.log(math.e * t) * (t / n + a + math.sqrt(t * a / n))
    return 4.0 * math.e * eta**2 * G**2 * (t + c**2)


def _eq9_sq(n, T, eta, G, a):
    """4e η² G² (T + 3T² ln²(eT) a²/n²), eq. (9) with a = ln(1/γ)."""
    return 4.0 * math.e * eta**2 * G**2 * (T + 3.0 * T**2 * math.log(math.e * T) ** 2 * a**2 / n**2)


def _corrected_sq(n, T, eta, G, a):
    """Sensitivity² re-derived from the proof of (3): ln(e²T) for the harmonic sum, the Chernoff deviation
    sqrt(2 μ ln(1/γ)) with μ = (T+1)/n; valid for every T >= 1."""
    mu = (T + 1.0) / n
    c = math.log(math.e**2 * T) * (mu + a + math.sqrt(2.0 * mu * a))
    return 4.0 * math.e * eta**2 * G**2 * (T + c**2)


def sensitivity(*, n, T, eta, G, gamma, corrected=False) -> float:
    r"""ℓ2-sensitivity of the averaged output w̄_T with probability 1 − γ, Yang, Lei, Lyu & Ying (yang-pairwise), Theorem 1, eq. (9).

    .. math:: \Delta_T^2 = 4e\eta^2G^2\Big(T+\frac{3T^2\ln^2(eT)\ln^2(1/\gamma)}{n^2}\Big)\quad(T\ge n).

    With ``corrected=True`` the bound re-derived from the proof of eq. (3) at t = T, valid for every T:

    .. math:: \Delta_T^2 = 4e\eta^2G^2\big(T+c^2\big),\quad c=\ln(e^2T)\Big(\frac{T+1}n+\ln\frac1\gamma
              +\sqrt{\frac{2(T+1)\ln(1/\gamma)}n}\Big)

    (the harmonic sum Σ_{l≤t} 1/l is at most 1 + ln t, not ln t, and Lemma 1 gives the deviation
    sqrt(2μ ln(1/γ)), not sqrt(μ ln(1/γ)), when μ = (T+1)/n > ln(1/γ)).

    Raises
    ------
    ValueError
        For invalid inputs, or T < n with ``corrected=False`` (eq. (9) uses T >= n).
    """
    n = v.check_n(n)
    T = v.check_int("T", T)
    eta = v.check_positive("eta", eta)
    G = v.check_positive("G", G)
    gamma = _gamma(gamma)
    corrected = _check_bool("corrected", corrected)
    a = math.log(1.0 / gamma)
    if corrected:
        return math.sqrt(_corrected_sq(n, T, eta, G, a))
    if T < n:
        raise ValueError(
            f"eq. (9) of Yang, Lei, Lyu & Ying assumes T >= n, got T = {T} < n = {n}; use T >= n or corrected=True."
        )
    return math.sqrt(_eq9_sq(n, T, eta, G, a))


def _check_bool(name, value) -> bool:
    if not isinstance(value, bool):
        raise ValueError(f"{name} must be True or False, got {value!r}.")
    return value


# ----------------------------------------------------------------------------------------------------------------
# Algorithm 2: output perturbation (Theorem 4)

_OUTPUT_FORMULA = (
    r"\sigma^2=\frac{8e\,\eta^2G^2\ln(2.5/\delta)}{\epsilon^2}"
    r"\Big(T+\frac{3T^2\ln^2(eT)\ln^2(2/\delta)}{n^2}\Big)"
)
_OUTPUT_FORMULA_CORRECTED = (
    r"\sigma^2=\frac{8e\,\eta^2G^2\ln(2.5/\delta)}{\epsilon^2}\big(T+c^2\big),\ "
    r"c=\ln(e^2T)\Big(\frac{T+1}{n}+\ln\frac2\delta+\sqrt{\frac{2(T+1)\ln(2/\delta)}{n}}\Big)"
)

_OUTPUT_FORMULA_PRINTED = (  # eq. (5) as printed: no factor e
    r"\sigma^2=\frac{8\,\eta^2G^2\ln(2.5/\delta)}{\epsilon^2}"
    r"\Big(T+\frac{3T^2\ln^2(eT)\ln^2(2/\delta)}{n^2}\Big)"
)
_DELTA_EQ9 = r"\Delta_T^2=4e\,\eta^2G^2\Big(T+\frac{3T^2\ln^2(eT)\ln^2(2/\delta)}{n^2}\Big)"
_DELTA_CORRECTED = (r"\Delta_T^2=4e\,\eta^2G^2\big(T+c^2\big),\ "
                    r"c=\ln(e^2T)\Big(\frac{T+1}{n}+\ln\frac2\delta+\sqrt{\frac{2(T+1)\ln(2/\delta)}{n}}\Big)")
_PRIVATE_RULE = (r"\sigma=\min\{\sigma:\delta_{\rm exact}(\epsilon;\Delta_T,\sigma)\le\delta/2\}"
                 r"\ \text{(analytic Gaussian mechanism)},\ ")


def _output_formula(sigma_rule: str, corrected: bool) -> str:
    """The formula that produces the released σ of :func:`calibrate_pairwise_sgd_output` under ``sigma_rule``."""
    if sigma_rule == "private":
        return _PRIVATE_RULE + (_DELTA_CORRECTED if corrected else _DELTA_EQ9)
    if sigma_rule == "printed":
        return _OUTPUT_FORMULA_PRINTED
    return _OUTPUT_FORMULA_CORRECTED if corrected else _OUTPUT_FORMULA


#: The σ rules of :func:`calibrate_pairwise_sgd_output`: dpviz's private σ, eq. (5) as its proof requires (with the
#: factor e) and eq. (5) as printed (without it).
SIGMA_RULES = ("private", "proof", "printed")
SIGMA_PRINTED_LABEL = "as printed"
SIGMA_PROOF_LABEL = "as the proof requires"

_E_FACTOR_NOTE = (
    "Eq. (5) is printed as sigma^2 = 8 eta^2 G^2 ln(2.5/delta)/eps^2 (T + ...), but its proof sets "
    "sigma = sqrt(2 ln(2.5/delta)) Delta_T/eps with Delta_T^2 = 4e eta^2 G^2 (T + ...), i.e. a factor e larger; "
    "dpviz labels both readings: 'as printed' (not private) and 'as the proof requires' (sigma_rule = 'printed' / "
    "'proof'); by default it releases the smallest private sigma."
)


def calibrate_pairwise_sgd_output(*, n, eps, delta, T, eta, G, corrected=False, sigma_rule="private") -> Calibration:
    r"""Noise of private pairwise SGD with output perturbation, Yang, Lei, Lyu & Ying (yang-pairwise), Algorithm 2, Theorem 4, eq. (5).

    Gaussian noise N(0, σ² I_d) is added once to the averaged iterate w̄_T of Algorithm 1.  The high-probability
    sensitivity of Theorem 1 (eq. (9) with γ = δ/2) and the Gaussian mechanism (Lemma 2 at δ/2) give, following the
    proof of Theorem 4,

    .. math:: \sigma^2 = \frac{2\ln(2.5/\delta)\Delta_T^2}{\epsilon^2}
              = \frac{8e\,\eta^2G^2\ln(2.5/\delta)}{\epsilon^2}\Big(T+\frac{3T^2\ln^2(eT)\ln^2(2/\delta)}{n^2}\Big).

    The printed eq. (5) lacks the factor e (see ``notes``).  ``corrected=True`` uses the sensitivity re-derived from
    the proof of eq. (3) (:func:`sensitivity`), which holds for every T.

    Parameters
    ----------
    n, eps, delta : sample size (>= 2), privacy budget (> 0), δ ∈ (0, 1).
    T : int
        Iterations of Algorithm 1.  Eq. (9) assumes T >= n: smaller T is reported infeasible (use ``corrected``).
    eta : float
        Constant step size (> 0).
    G : float
        Lipschitz constant of the pairwise loss.
    corrected : bool, default False
    sigma_rule : {"private", "proof", "printed"}, default "private"
        Which σ is released: the smallest σ passing the exact Gaussian check at δ/2 (``"private"``); eq. (5) as the
        proof of Theorem 4 requires, σ = √(2 ln(2.5/δ))·Δ_T/ε with the factor e in Δ_T² (``"proof"``, kept in
        ``extras['sigma_paper']``); or eq. (5) as printed, without the factor e (``"printed"``, kept in
        ``extras['sigma_as_printed']``; not private: at n = 100, T = 10⁴, η = 10⁻³, ε = 1, δ = 10⁻⁴ its exact δ is
        about 5.7·10⁻⁴ + δ/2).  Both paper readings are labelled in ``extras['sigma_readings']``.

    Returns
    -------
    Calibration
        ``sigma`` (output-noise standard deviation), ``extras['Delta']`` (the sensitivity), ``T`` and ``eta``.
    """
    n = v.check_n(n)
    eps = v.check_eps(eps)
    delta = v.check_delta(delta)
    T = v.check_int("T", T)
    eta = v.check_positive("eta", eta)
    G = v.check_positive("G", G)
    corrected = _check_bool("corrected", corrected)
    if sigma_rule not in SIGMA_RULES:
        raise ValueError(
            "sigma_rule must be 'private' (the smallest sigma that is (eps, delta)-DP by the exact Gaussian check), "
            "'proof' (eq. (5) as the proof of Theorem 4 requires, with the factor e) or 'printed' (eq. (5) as "
            f"printed, without the factor e: not private), got {sigma_rule!r}."
        )
    a = math.log(2.0 / delta)
    formula = _output_formula(sigma_rule, corrected)
    if not corrected and T < n:
        return Calibration(
            id="pairwise-sgd-output",
            feasible=False,
            T=T,
            eta=eta,
            reason=(
                f"the sensitivity bound (Yang, Lei, Lyu & Ying, Theorem 1, eq. (9)) assumes at least as many "
                f"iterations as examples, T >= n, got T = {T} < n = {n}"
            ),
            fix=f"run T >= {n} iterations (the paper uses T = n^2 = {float(n * n):.4g}); the sensitivity re-derived "
                "from the proof of eq. (3) holds for every T (the library's corrected=True, not offered on the pages)",
            formula=formula,
            extras={"T_min": n},
        )
    eq9 = _eq9_sq(n, T, eta, G, a)
    eq3 = stability_eq3(n=n, t=T, eta=eta, G=G, gamma=delta / 2.0)
    Delta2 = _corrected_sq(n, T, eta, G, a) if corrected else eq9
    Delta = math.sqrt(Delta2)
    ln25 = math.log(2.5 / delta)
    sigma_paper = math.sqrt(2.0 * ln25) * Delta / eps
    sigma_printed = math.sqrt(8.0 * eta**2 * G**2 * ln25 * eq9 / (4.0 * math.e * eta**2 * G**2)) / eps
    exact = _gaussian_exact_delta(eps, sigma_paper / Delta)
    notes = [_E_FACTOR_NOTE]
    # the sensitivity holds with probability 1 - delta/2, so the Gaussian step must be (eps, delta/2)-DP
    cmp = _gauss.compare_with_paper(eps=eps, delta=delta / 2.0, sensitivity=Delta, sigma_paper=sigma_paper,
                                    check="exact Gaussian mechanism at delta/2 (the other delta/2 is the failure "
                                          "probability of the sensitivity bound)")
    cmp_printed = _gauss.compare_with_paper(eps=eps, delta=delta / 2.0, sensitivity=Delta, sigma_paper=sigma_printed,
                                            check=cmp["privacy_check"])
    if sigma_rule == "printed":
        pick = _gauss.choose_sigma(cmp_printed, "printed", eps=eps, delta=delta / 2.0,
                                   what="Output perturbation, eq. (5) as printed")
    else:
        pick = _gauss.choose_sigma(cmp, "private" if sigma_rule == "private" else "printed", eps=eps,
                                   delta=delta / 2.0, what="Output perturbation (Lemma 2)")
    sigma = pick["sigma"]
    readings = [
        {"label": SIGMA_PRINTED_LABEL + ("" if cmp_printed["paper_sigma_private"] else " (not private)"),
         "sigma": sigma_printed, "exact_delta": cmp_printed["paper_exact_delta"],
         "private": cmp_printed["paper_sigma_private"]},
        {"label": SIGMA_PROOF_LABEL + ("" if cmp["paper_sigma_private"] else " (not private here)"),
         "sigma": sigma_paper, "exact_delta": cmp["paper_exact_delta"], "private": cmp["paper_sigma_private"]},
    ]
    for r, c_ in zip(readings, (cmp_printed, cmp)):
        verdict = ("private" if c_["paper_sigma_private"] else "not (ε, δ)-DP here")
        notes.append(
            f"Eq. (5) {r['label']}: sigma = {r['sigma']:.4g}; its exact delta (Balle & Wang 2018, Thm 8; "
            f"{cmp['privacy_check']}) is {r['exact_delta']:.3g} " + ("<=" if c_["paper_sigma_private"] else ">")
            + f" delta/2 = {delta / 2.0:.3g} at eps = {eps:g}: {verdict}."
        )
    notes.append(
        "dpviz releases "
        + {"private": f"the smallest private sigma = {cmp['sigma_private']:.4g} (sigma_rule='private'; the exact "
                      f"Gaussian mechanism at delta/2)",
           "proof": "sigma as the proof requires (sigma_rule='proof')",
           "printed": "sigma as printed (sigma_rule='printed')"}[sigma_rule] + "."
    )
    if not corrected and eq9 < eq3:
        notes.append(
            f"Here eq. (9) ({math.sqrt(eq9):.4g}) is smaller than Theorem 1's eq. (3) at t = T ({math.sqrt(eq3):.4g}): "
            "the simplification from (3) to (9) fails for T close to n; the bound re-derived from the proof (the "
            "library's corrected=True) holds."
        )
    tex_c = ""
    if corrected:
        tex_inner = rf"{T}+c^2"
        tex_c = (
            rf",\ c=\ln(e^2\cdot{T})\Big(\frac{{{T + 1}}}{{{n}}}+{a:.4g}+\sqrt{{\frac{{2\cdot{T + 1}\cdot{a:.4g}}}{{{n}}}}}\Big)"
        )
    else:
        tex_inner = rf"{T}+\frac{{3\cdot{T}^2\ln^2(e\cdot{T})\cdot{a:.4g}^2}}{{{n}^2}}"
    if sigma_rule == "printed":  # eq. (5) as printed: 8 (no e) and always eq. (9)'s bracket
        tex_inner = rf"{T}+\frac{{3\cdot{T}^2\ln^2(e\cdot{T})\cdot{a:.4g}^2}}{{{n}^2}}"
        formula_numbers = (
            rf"\sigma^2=\frac{{8\cdot{eta:g}^2\cdot{G:g}^2\cdot\ln(2.5/{delta:.3g})}}{{{eps:g}^2}}\big({tex_inner}\big)"
            rf",\ \sigma={sigma:.4g}"
        )
    elif sigma_rule == "private":
        formula_numbers = (
            rf"\Delta_T^2=4e\cdot{eta:g}^2\cdot{G:g}^2\big({tex_inner}\big){tex_c},\ \Delta_T={Delta:.4g},\ "
            rf"\delta_{{\rm exact}}({eps:g};{Delta:.4g},\sigma)\le{delta / 2.0:.3g}\Rightarrow\sigma={sigma:.4g}"
            rf"\ (\text{{eq. (5) as the proof requires: }}\sigma_{{\rm paper}}={sigma_paper:.4g})"
        )
    else:
        formula_numbers = (
            rf"\sigma^2=\frac{{8e\cdot{eta:g}^2\cdot{G:g}^2\cdot\ln(2.5/{delta:.3g})}}{{{eps:g}^2}}\big({tex_inner}\big)"
            rf"{tex_c},\ \Delta_T={Delta:.4g},\ \sigma={sigma:.4g}"
        )
    return Calibration(
        id="pairwise-sgd-output",
        feasible=pick["feasible"],
        sigma=sigma,
        T=T,
        eta=eta,
        reason=pick["reason"] or (
            f"Gaussian mechanism on the averaged pairwise-SGD iterate with high-probability sensitivity "
            f"Delta_T = {Delta:.4g} (probability 1 - delta/2); sigma "
            + {"private": "from the exact (analytic) Gaussian mechanism",
               "proof": "from eq. (5) as the proof requires (Lemma 2 with the factor e)",
               "printed": "from eq. (5) as printed"}[sigma_rule]
        ),
        fix=pick["fix"],
        formula=formula,
        formula_numbers=formula_numbers,
        notes=notes,
        extras={
            "Delta": Delta,
            "Delta_eq9": math.sqrt(eq9),
            "Delta_eq3": math.sqrt(eq3),
            "sigma_as_printed": sigma_printed,
            "sigma_as_printed_exact_delta": cmp_printed["paper_exact_delta"],
            "sigma_as_printed_private": cmp_printed["paper_sigma_private"],
            "sigma_readings": readings,
            "gaussian_exact_delta": exact,
            **cmp,
            "sigma_rule": sigma_rule,
            "gradient_complexity": _grad_complexity(T),
            "corrected": corrected,
        },
    )


# ----------------------------------------------------------------------------------------------------------------
# constants of Theorems 2, 3, 5


def c1_constant(*, G, gamma) -> float:
    r""":math:`c_1 = 100\sqrt6 e^{3/2} G\max\{1,G\}\ln(6e/\gamma)` (Yang, Lei, Lyu & Ying (yang-pairwise), Theorems 2, 3, 5)."""
    G = v.check_positive("G", G)
    gamma = _gamma(gamma)
    return 100.0 * math.sqrt(6.0) * math.e**1.5 * G * max(1.0, G) * math.log(6.0 * math.e / gamma)


def c2_constant(*, G, M0, D) -> float:
    r""":math:`c_2 = (6+19e)(M + GD)` (Yang, Lei, Lyu & Ying (yang-pairwise), Theorems 2 and 5; M = sup ℓ(0,z,z') = ``M0``,
    D the diameter of W)."""
    G = v.check_positive("G", G)
    M0 = v.check_nonnegative("M0 (sup of the loss at w = 0)", M0)
    D = v.check_positive("D (diameter of W)", D)
    return (6.0 + 19.0 * math.e) * (M0 + G * D)


def c3_constant(*, G, M0, D) -> float:
    r""":math:`c_3 = (7+12\sqrt2e)M + 4GD + 16eG` (Yang, Lei, Lyu & Ying (yang-pairwise), Theorem 3; D = ||w*||)."""
    G = v.check_positive("G", G)
    M0 = v.check_nonnegative("M0 (sup of the loss at w = 0)", M0)
    D = v.check_positive("D (norm of w*)", D)
    return (7.0 + 12.0 * math.sqrt(2.0) * math.e) * M0 + 4.0 * G * D + 16.0 * math.e * G


def c4_constant(*, G, M0) -> float:
    r""":math:`c_4 = 3G\sqrt{G^2+2M}` (Yang, Lei, Lyu & Ying (yang-pairwise), Theorem 3)."""
    G = v.check_positive("G", G)
    M0 = v.check_nonnegative("M0 (sup of the loss at w = 0)", M0)
    return 3.0 * G * math.sqrt(G**2 + 2.0 * M0)


def c5_constant(*, G, M0) -> float:
    r""":math:`c_5 = 12\sqrt2 e G\sqrt{G^2+2M}` (Yang, Lei, Lyu & Ying (yang-pairwise), Theorem 3)."""
    G = v.check_positive("G", G)
    M0 = v.check_nonnegative("M0 (sup of the loss at w = 0)", M0)
    return 12.0 * math.sqrt(2.0) * math.e * G * math.sqrt(G**2 + 2.0 * M0)


# ----------------------------------------------------------------------------------------------------------------
