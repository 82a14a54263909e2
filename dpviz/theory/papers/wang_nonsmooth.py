"""Wang, Lei, Ying & Zhang — differentially private SGD with non-smooth (α-Hölder smooth) losses.

Paper: Wang, Lei, Ying & Zhang (wang-nonsmooth); full reference in docs/papers.md.  The loss is convex, non-negative and α-Hölder smooth with parameter ``L``:
``||∂ℓ(w, z) - ∂ℓ(w', z)|| <= L ||w - w'||^α`` (α = 0: Lipschitz, α = 1: smooth); ``M = sup_z ||∂ℓ(0, z)||`` and
``M0 = sup_z ℓ(0; z)`` (the paper's ``M_0`` of Lemma 1, which enters the constant ``C_α`` of Lemma 20).

What this module provides

* the constants ``c_{α,1}``, ``c_{α,2}``, ``C_α`` (eq. (2), Lemma 20) and ``c_{γ,T}`` (Theorem 7);
* :func:`sgd_sensitivity` — the high-probability uniform-argument-stability bound of SGD, Theorem 7 (a)/(b),
  which Algorithm 1 uses as its ℓ2-sensitivity;
* the catalogue algorithm ``dpsgd-output`` (Algorithm 1, DP-SGD-Output) and its calibration
  :func:`calibrate_dpsgd_output`;
* the theorems ``wang-nonsmooth-thm7`` (stability), ``-thm9`` / ``-thm10`` (utility of Algorithm 1, unbounded /
  bounded domain), ``-thm12`` (utility of Algorithm 2, DP-SGD-Gradient = the catalogue algorithm ``dpsgd-rdp``
  of :mod:`dpviz.theory.papers.wang_lownoise`) and ``-lemma13`` (a sufficient ε for the RDP conditions of Theorem 11);
* :func:`lemma13_eps_threshold` — the ε boundary of Lemma 13 / Fig. 1;
* Table 1 as ``wang-nonsmooth-table1``.

Theorem 11 (privacy of Algorithm 2) has *the same* conditions as Theorem 2 of Wang, Lei, Ying & Zhou (wang-lownoise)
once the Lipschitz constant there is read as ``G = M + L R^α`` (the gradient bound on ``W ⊆ B(0, R)``):
``σ² = 14 G² T / (β n² ε) (log(1/δ)/((1-β)ε) + 1)``, ``σ²/(4G²) >= 0.67`` (i.e. ``σ² >= 2.68 G²``) and
``λ - 1 <= σ²/(6G²) log(n / (λ (1 + σ²/(4G²))))`` with ``λ = log(1/δ)/((1-β)ε) + 1``.  The only differences are the
hypotheses: Hölder smoothness on a bounded domain here, Lipschitz continuity there.
"""

from __future__ import annotations

import importlib.util
import math

from dpviz.foundation import validate as v
from dpviz.theory import gaussian as _gauss
from dpviz.theory.catalog import Algorithm, BoundResult, Calibration, ComparisonRow, ComparisonTable, Paper, Risk, Term, Theorem
from dpviz.theory.papers._common import (
    ceil_pow,
    check_gamma as _gamma,
    cite_entries,
    exact_fraction,
    exp_or_inf as _exp,
    gamma_from as _gamma_from,
    gaussian_exact_delta as _gaussian_exact_delta,
    log_inv as _ld,
    name_citations,
    rate_opt as _rate_opt,
)

__all__ = [
    "PAPER",
    "ALGORITHMS",
    "THEOREMS",
    "TABLES",
    "c_alpha_1",
    "c_alpha_2",
    "C_alpha",
    "c_gamma_T",
    "sgd_sensitivity",
    "calibrate_dpsgd_output",
    "lemma13_eps_threshold",
    "LEMMA13_VALID_FROM",
    "bound_thm7",
    "explicit_bound_thm7",
    "bound_thm9",
    "bound_thm10",
    "bound_thm12",
    "bound_lemma13",
]

PAPER = Paper(
    key="wang-nonsmooth",
    authors="Puyu Wang, Yunwen Lei, Yiming Ying, Hai Zhang",
    short="Wang, Lei, Ying & Zhang",
    title="Differentially Private SGD with Non-Smooth Losses",
    venue="Applied and Computational Harmonic Analysis",
    year=2022,
)

#: Thm 9's switch point of T: (√73 − 7)/4 ≈ 0.386 (wang-nonsmooth, Theorem 9).
ALPHA_THM9 = (math.sqrt(73.0) - 7.0) / 4.0

#: Smallest n for which Lemma 13's ε threshold really makes the conditions of Theorem 11 satisfiable (checked by a
#: dense β-search for every n in [18, 3000) and at 300 log-spaced n up to 1e12; see :func:`lemma13_eps_threshold`).
LEMMA13_VALID_FROM = 44


# ----------------------------------------------------------------------------------------------------------------
# input checks


def _alpha(alpha) -> float:
    return v.check_unit("alpha (the Hölder exponent)", alpha)


def _eta_limit(L: float) -> float:
    return min(1.0, 1.0 / L)


def _check_eta(eta: float, L: float) -> None:
    lim = _eta_limit(L)
    if not eta < lim:
        raise ValueError(
            f"Theorem 7 of Wang, Lei, Ying & Zhang needs a step size eta < min{{1, 1/L}} = {lim:g}, got eta = {eta:g}; "
            "choose a smaller eta."
        )


def _log_pow(base: float, exponent: float) -> float:
    """log(base**exponent) for base > 0 (base 0 gives -inf)."""
    if base == 0.0:
        return -math.inf
    return exponent * math.log(base)


# ----------------------------------------------------------------------------------------------------------------
# constants of §2.2.1


def c_alpha_1(*, L, M, alpha) -> float:
    r"""Self-bounding constant :math:`c_{\alpha,1}` (Wang, Lei, Ying & Zhang (wang-nonsmooth), eq. (2); Lemma 19).

    .. math:: c_{\alpha,1} = (1 + 1/\alpha)^{\frac{\alpha}{1+\alpha}} L^{\frac{1}{1+\alpha}} \ (\alpha\in(0,1]),
              \qquad c_{0,1} = M + L.

    Parameters
    ----------
    L : float
        Hölder constant (> 0).
    M : float
        ``sup_z ||∂ℓ(0, z)||`` (>= 0).
    alpha : float
        Hölder exponent in [0, 1].
    """
    L = v.check_positive("L", L)
    M = v.check_nonnegative("M", M)
    alpha = _alpha(alpha)
    if alpha == 0.0:
        return M + L
    return (1.0 + 1.0 / alpha) ** (alpha / (1.0 + alpha)) * L ** (1.0 / (1.0 + alpha))


def c_alpha_2(*, L, alpha) -> float:
    r"""Non-expansiveness constant :math:`c_{\alpha,2}` (Wang, Lei, Ying & Zhang (wang-nonsmooth), §2.2.1 after eq. (2); Lemma 21).

    .. math:: c_{\alpha,2} = \sqrt{\tfrac{1-\alpha}{1+\alpha}}\,(2^{-\alpha}L)^{\frac{1}{1-\alpha}}.

    At α = 1 the formula is 0·∞; the term it multiplies, :math:`c_{\alpha,2}^2 T\eta^{2/(1-\alpha)}
    = T\frac{1-\alpha}{1+\alpha}(2^{-\alpha}L\eta)^{2/(1-\alpha)}`, tends to 0 for η < 2/L (the smooth case of
    Lemma 21, Hardt et al.; Remark 1), so 0 is returned.  Returns ``inf`` when the power overflows (α near 1, L > 2).
    """
    L = v.check_positive("L", L)
    alpha = _alpha(alpha)
    if alpha == 1.0:
        return 0.0
    log_c = 0.5 * math.log((1.0 - alpha) / (1.0 + alpha)) + _log_pow(2.0 ** (-alpha) * L, 1.0 / (1.0 - alpha))
    return _exp(log_c)


def C_alpha(*, L, M, alpha, M0=1.0) -> float:
    r"""Iterate-growth constant :math:`C_\alpha` of Lemma 20 (Wang, Lei, Ying & Zhang (wang-nonsmooth), §2.2.1 and Lemma 20).

    .. math:: C_\alpha = \frac{1-\alpha}{1+\alpha}\,c_{\alpha,1}^{\frac{2(1+\alpha)}{1-\alpha}}
              \Big(\frac{\alpha}{1+\alpha}\Big)^{\frac{2\alpha}{1-\alpha}} + 2\sup_z \ell(0;z),

    so that SGD on :math:`W=\mathbb R^d` with η < min{1, 1/L} keeps :math:`\|w_{t+1}\|^2 \le C_\alpha t\eta`.
    The cases of the proof: α = 0 gives :math:`(M+L)^2 + 2M_0` (eq. (6)), α = 1 gives :math:`2M_0` (eq. (7)).
    For α ∈ (0, 1) the first summand simplifies to :math:`\frac{1-\alpha}{1+\alpha}L^{2/(1-\alpha)}` (the powers of
    :math:`1+1/\alpha` cancel); it blows up as α → 1 when L > 1 although the α = 1 case is 2M_0 — the Young-inequality
    step of eq. (8) is loose there.  Returns ``inf`` on overflow.

    Parameters
    ----------
    M0 : float
        ``sup_z ℓ(0; z)`` (>= 0), default 1 (hinge loss: ℓ(0; z) = 1; logistic: log 2).
    """
    L = v.check_positive("L", L)
    M = v.check_nonnegative("M", M)
    alpha = _alpha(alpha)
    M0 = v.check_nonnegative("M0 (sup_z loss(0; z))", M0)
    if alpha == 1.0:
        return 2.0 * M0
    if alpha == 0.0:
        return (M + L) ** 2 + 2.0 * M0
    c1 = c_alpha_1(L=L, M=M, alpha=alpha)
    log_first = (
        math.log((1.0 - alpha) / (1.0 + alpha))
        + 2.0 * (1.0 + alpha) / (1.0 - alpha) * math.log(c1)
        + 2.0 * alpha / (1.0 - alpha) * math.log(alpha / (1.0 + alpha))
    )
    return _exp(log_first) + 2.0 * M0


def c_gamma_T(*, n, T, gamma) -> float:
    r""":math:`c_{\gamma,T}` of Theorem 7 (Wang, Lei, Ying & Zhang (wang-nonsmooth), Theorem 7; Chernoff step of its proof).

    .. math:: c_{\gamma,T} = \max\Big\{\big(3n\log(n/\gamma)/T\big)^{1/2},\ 3n\log(n/\gamma)/T\Big\}.
    """
    n = v.check_n(n)
    T = v.check_int("T", T)
    gamma = _gamma(gamma)
    x = 3.0 * n * math.log(n / gamma) / T
    return max(math.sqrt(x), x)


def _nonsmooth_term(T: int, eta: float, L: float, alpha: float) -> float:
    """c_{α,2}² T η^{2/(1−α)} = T (1−α)/(1+α) (2^{−α} L η)^{2/(1−α)}, 0 at α = 1 (see :func:`c_alpha_2`)."""
    if alpha == 1.0:
        return 0.0
    log_t = (
        math.log(T)
        + math.log((1.0 - alpha) / (1.0 + alpha))
        + _log_pow(2.0 ** (-alpha) * L * eta, 2.0 / (1.0 - alpha))
    )
    return _exp(log_t)


def _sensitivity_parts(n, T, eta, L, M, alpha, gamma, R, bounded_domain, M0):
    """Validated pieces of Theorem 7: returns dict with A, B, Delta, grad_bound, c_gamma_T, k, C_alpha."""
    cg = c_gamma_T(n=n, T=T, gamma=gamma)
    k = T / n * (1.0 + cg)
    out = {"c_gamma_T": cg, "gamma": gamma}
    if bounded_domain:
        grad_bound = M + L * R**alpha
    else:
        Ca = C_alpha(L=L, M=M, alpha=alpha, M0=M0)
        out["C_alpha"] = Ca
        grad_bound = M + L * (Ca * T * eta) ** (alpha / 2.0) if math.isfinite(Ca) else math.inf
    A = _nonsmooth_term(T, eta, L, alpha)
    try:
        B = 4.0 * grad_bound**2 * eta**2 * (1.0 + k) * k
    except OverflowError:
        B = math.inf
    out.update(
        {
            "c_alpha_2_sq_T_eta_pow": A,
            "sampling_term": B,
            "grad_bound": grad_bound,
            "k": k,
            "Delta": math.sqrt(math.e * (A + B)),
        }
    )
    return out


def _check_domain(R, bounded_domain):
    if not isinstance(bounded_domain, bool):
        raise ValueError(
            f"bounded_domain must be True (W inside the ball B(0, R)) or False (W = R^d), got {bounded_domain!r}."
        )
    if bounded_domain:
        if R is None:
            raise ValueError(
                "R (the radius of the domain W ⊆ B(0, R)) is needed when bounded_domain=True; "
                "pass R, or bounded_domain=False for the unbounded domain W = R^d."
            )
        return v.check_positive("R", R)
    return None if R is None else v.check_positive("R", R)


def _sgd_inputs(T, eta, L, M, alpha, M0, R, bounded_domain):
    """The checked inputs of SGD in Theorem 7 (T, η, L, M, α, M0 and the domain), in this order."""
    T = v.check_int("T", T)
    eta = v.check_positive("eta", eta)
    L = v.check_positive("L", L)
    M = v.check_nonnegative("M", M)
    alpha = _alpha(alpha)
    M0 = v.check_nonnegative("M0 (sup_z loss(0; z))", M0)
    R = _check_domain(R, bounded_domain)
    return T, eta, L, M, alpha, M0, R


def sgd_sensitivity(*, n, T, eta, L, M, alpha, gamma, R=None, bounded_domain=True, M0=1.0) -> float:
    r"""Uniform argument stability of SGD with probability 1 − γ: Δ_SGD(γ) or Δ̃_SGD(γ).

    Wang, Lei, Ying & Zhang (wang-nonsmooth), Theorem 7 (a) (``bounded_domain=False``, W = R^d, non-negative loss) and (b)
    (``bounded_domain=True``, W ⊆ B(0, R)).  With :math:`k = \frac{T}{n}(1+c_{\gamma,T})`,

    .. math:: \Delta = \Big(e\big(c_{\alpha,2}^2 T\eta^{\frac{2}{1-\alpha}} + 4 g^2\eta^2 (1+k)k\big)\Big)^{1/2},
              \quad g = M + LR^\alpha \ \text{(b)},\quad g = M + L(C_\alpha T\eta)^{\alpha/2} \ \text{(a)}.

    This is the ℓ2-sensitivity of the averaged SGD output used by Algorithm 1 with γ = δ/2.

    Parameters
    ----------
    n, T : int
        Sample size (>= 2) and number of iterations (>= 1).
    eta : float
        Constant step size, 0 < η < min{1, 1/L} (hypothesis of Theorem 7).
    L, M, alpha : float
        Hölder constant, ``sup_z ||∂ℓ(0, z)||``, Hölder exponent in [0, 1].
    gamma : float
        Failure probability in (0, 1).
    R : float, optional
        Radius of the domain (required when ``bounded_domain``).
    bounded_domain : bool
        True: W ⊆ B(0, R), part (b); False: W = R^d, part (a).
    M0 : float
        ``sup_z ℓ(0; z)``, used by part (a) through :func:`C_alpha`; default 1.

    Raises
    ------
    ValueError
        For invalid inputs or η >= min{1, 1/L}.
    """
    n = v.check_n(n)
    T, eta, L, M, alpha, M0, R = _sgd_inputs(T, eta, L, M, alpha, M0, R, bounded_domain)
    gamma = _gamma(gamma)
    _check_eta(eta, L)
    return _sensitivity_parts(n, T, eta, L, M, alpha, gamma, R, bounded_domain, M0)["Delta"]


# ----------------------------------------------------------------------------------------------------------------
# Algorithm 1: DP-SGD-Output


_OUTPUT_FORMULA = (
    r"\sigma^2=\frac{2\log(2.5/\delta)\Delta^2}{\epsilon^2},\quad "
    r"\Delta=\Big(e\big(c_{\alpha,2}^2T\eta^{\frac{2}{1-\alpha}}+4g^2\eta^2\big(1+\tfrac{T}{n}(1+c_{\gamma,T})\big)"
    r"\tfrac{T}{n}(1+c_{\gamma,T})\big)\Big)^{1/2},\ \gamma=\delta/2,\ "
    r"c_{\gamma,T}=\max\{(3n\log(n/\gamma)/T)^{1/2},3n\log(n/\gamma)/T\}"
)


def calibrate_dpsgd_output(*, n, eps, delta, T, eta, L, M, alpha, R=None, bounded_domain=True, M0=1.0,
                           sigma_rule="private") -> Calibration:
    r"""Noise of DP-SGD-Output: Gaussian noise added once to the averaged SGD iterate.

    Wang, Lei, Ying & Zhang (wang-nonsmooth), Algorithm 1 (lines 7–12) with Theorem 7 and Theorem 8:

    .. math:: \sigma^2 = \frac{2\log(2.5/\delta)\,\Delta^2}{\epsilon^2},\qquad
              \Delta = \tilde\Delta_{SGD}(\delta/2)\ (W\subseteq B(0,R)),\quad \Delta = \Delta_{SGD}(\delta/2)\ (W=\mathbb R^d),

    with Δ from :func:`sgd_sensitivity` (γ = δ/2).

    Parameters
    ----------
    n, eps, delta, T, eta, L, M, alpha
        Sample size, privacy budget, δ ∈ (0, 1), iterations, step size, Hölder constant, ``sup_z ||∂ℓ(0, z)||``,
        Hölder exponent in [0, 1].
    R : float, optional
        Radius of the domain; required when ``bounded_domain`` is True.
    bounded_domain : bool, default True
        True: W ⊆ B(0, R), Δ = Δ̃_SGD(δ/2) (Theorem 7 (b)); False: W = R^d, Δ = Δ_SGD(δ/2) (Theorem 7 (a)),
        which needs a non-negative loss and uses ``M0``.
    M0 : float, default 1
        ``sup_z ℓ(0; z)`` (only for ``bounded_domain=False``).

    Returns
    -------
    Calibration
        ``sigma`` is the output-noise standard deviation; ``extras['Delta']`` the sensitivity.  Infeasible (not an
        error) when η >= min{1, 1/L}, the step-size hypothesis of Theorem 7.
    """
    n = v.check_n(n)
    eps = v.check_eps(eps)
    delta = v.check_delta(delta)
    T, eta, L, M, alpha, M0, R = _sgd_inputs(T, eta, L, M, alpha, M0, R, bounded_domain)
    sigma_rule = _gauss.check_sigma_rule(sigma_rule)
    lim = _eta_limit(L)
    notes = []
    domain = f"W ⊆ B(0, {R:g})" if bounded_domain else "W = R^d"
    if not eta < lim:
        return Calibration(
            id="dpsgd-output",
            feasible=False,
            T=T,
            eta=eta,
            reason=(
                f"the sensitivity bound (Wang, Lei, Ying & Zhang, Theorem 7) needs a step size eta < min{{1, 1/L}} "
                f"= {lim:g}, got eta = {eta:g}"
            ),
            fix=f"use a step size eta < {lim:g}, e.g. eta = {0.9 * lim:.3g}",
            formula=_OUTPUT_FORMULA,
            extras={"domain": domain, "eta_max": lim},
        )
    gamma = delta / 2.0
    parts = _sensitivity_parts(n, T, eta, L, M, alpha, gamma, R, bounded_domain, M0)
    Delta = parts["Delta"]
    if not math.isfinite(Delta):
        return Calibration(
            id="dpsgd-output",
            feasible=False,
            T=T,
            eta=eta,
            reason=(
                "the sensitivity bound of Theorem 7 overflows (the constant C_alpha of the unbounded-domain case is "
                "astronomically large for alpha close to 1 with L > 1)"
            ),
            fix="use the bounded-domain variant (bounded_domain=True with a radius R), a smaller L, or alpha = 1",
            formula=_OUTPUT_FORMULA,
            extras={"domain": domain, **parts},
        )
    sigma_paper = math.sqrt(2.0 * math.log(2.5 / delta)) * Delta / eps
    exact = _gaussian_exact_delta(eps, sigma_paper / Delta) if Delta > 0 else 0.0
    parts["gaussian_exact_delta"] = exact
    pick = {"sigma": sigma_paper, "feasible": True, "reason": "", "fix": ""}
    if Delta > 0:
        # the sensitivity holds with probability 1 - delta/2: the Gaussian step must be (eps, delta/2)-DP
        cmp = _gauss.compare_with_paper(eps=eps, delta=delta / 2.0, sensitivity=Delta, sigma_paper=sigma_paper,
                                        check="exact Gaussian mechanism at delta/2 (the other delta/2 is the failure "
                                              "probability of the sensitivity bound)")
        pick = _gauss.choose_sigma(cmp, sigma_rule, eps=eps, delta=delta / 2.0, what="DP-SGD-Output (Lemma 2)")
        notes += pick["notes"]
        parts.update(cmp)
    parts["sigma_rule"] = sigma_rule
    sigma = pick["sigma"]
    if eta <= 1.0 / T:
        notes.append(
            f"eta = {eta:g} <= 1/T = {1.0 / T:g}: the paper assumes eta > 1/T in its utility analysis "
            "(not needed for privacy)."
        )
    if not bounded_domain:
        notes.append(
            f"Unbounded domain: the loss must be non-negative; uses sup_z loss(0; z) = M0 = {M0:g} through "
            f"C_alpha = {parts['C_alpha']:.4g} (Lemma 20)."
        )
    g_tex = r"M+LR^\alpha" if bounded_domain else r"M+L(C_\alpha T\eta)^{\alpha/2}"
    formula = _OUTPUT_FORMULA.replace("4g^2", f"4({g_tex})^2")
    # the formula that produced the released number: under sigma_rule="private" (with Delta > 0) the smallest sigma
    # passing the exact Gaussian check at delta/2, not the printed Lemma 2 sigma shown before it
    released_private = sigma_rule == "private" and Delta > 0
    if released_private:
        formula += (r";\quad\text{released}:\ \sigma_{\rm private}=\min\{\sigma:\delta_{\rm exact}"
                    r"(\epsilon;\Delta,\sigma)\le\delta/2\}")
    formula_numbers = (
        rf"\gamma={gamma:.3g},\ c_{{\gamma,T}}={parts['c_gamma_T']:.4g},\ g={parts['grad_bound']:.4g},\ "
        rf"\Delta=\sqrt{{e({parts['c_alpha_2_sq_T_eta_pow']:.4g}+{parts['sampling_term']:.4g})}}={Delta:.4g},\ "
        rf"\sigma_{{\rm paper}}=\frac{{\sqrt{{2\log(2.5/{delta:.3g})}}\cdot{Delta:.4g}}}{{{eps:g}}}={sigma_paper:.4g},\ "
        + (rf"\sigma_{{\rm private}}={sigma:.4g}\ (\text{{released}})" if released_private
           else rf"\sigma={sigma:.4g}")
    )
    return Calibration(
        id="dpsgd-output",
        feasible=pick["feasible"],
        sigma=sigma,
        T=T,
        eta=eta,
        reason=pick["reason"] or (
            f"Gaussian mechanism on the averaged SGD iterate with sensitivity Delta = {Delta:.4g} ({domain}); sigma "
            + ("from the exact (analytic) Gaussian mechanism" if sigma_rule == "private" else "from Lemma 2 as printed")),
        fix=pick["fix"],
        formula=formula,
        formula_numbers=formula_numbers,
        notes=notes,
        extras={"domain": domain, "eta_max": lim, **parts},
    )


# ----------------------------------------------------------------------------------------------------------------
# Theorems

_ASSUME = ("convex", "nonnegative", "holder", "bounded-gradient-at-zero")


def _result(theorem, terms, *, eta=None, T=None, notes=(), extras=None, explicit=False, total=None):
    return BoundResult.of(theorem, terms, eta=eta, T=T, notes=notes, extras=extras, explicit=explicit, total=total)


def _thm7_inputs(n, T, eta, L, M, alpha, R, bounded_domain, M0, gamma, delta):
    n = v.check_n(n)
    T, eta, L, M, alpha, M0, R = _sgd_inputs(T, eta, L, M, alpha, M0, R, bounded_domain)
    gamma = _gamma_from(gamma, delta)
    _check_eta(eta, L)
    return n, T, eta, L, M, alpha, R, M0, gamma


def bound_thm7(*, n, T, eta, L, M, alpha, R=None, bounded_domain=True, M0=1.0, gamma=None, delta=None, c=1.0):
    r"""Rate form of the stability bound, Wang, Lei, Ying & Zhang (wang-nonsmooth), Theorem 7 as simplified in Remark 1 (T >= n).

    .. math:: \Delta_{SGD}(\gamma)=O\Big(\sqrt T\eta^{\frac1{1-\alpha}}+\frac{(T\eta)^{1+\alpha/2}\log(n/\gamma)}{n}\Big),
              \qquad \tilde\Delta_{SGD}(\gamma)=O\Big(\sqrt T\eta^{\frac1{1-\alpha}}+\frac{T\eta\log(n/\gamma)}{n}\Big),

    each term multiplied by ``c``.  The first term is 0 at α = 1 (η < 1).  ``gamma`` defaults to δ/2 (Algorithm 1).
    Exponents are those of n and ε at fixed T and η.
    """
    n, T, eta, L, M, alpha, R, M0, gamma = _thm7_inputs(n, T, eta, L, M, alpha, R, bounded_domain, M0, gamma, delta)
    c = v.check_positive("c", c)
    first = 0.0 if alpha == 1.0 else _exp(0.5 * math.log(T) + math.log(eta) / (1.0 - alpha))
    if bounded_domain:
        second = T * eta * math.log(n / gamma) / n
        tex2 = r"\frac{T\eta\log(n/\gamma)}{n}"
    else:
        second = (T * eta) ** (1.0 + alpha / 2.0) * math.log(n / gamma) / n
        tex2 = r"\frac{(T\eta)^{1+\alpha/2}\log(n/\gamma)}{n}"
    terms = [
        Term("non-smoothness", c * first, 0.0, 0.0, r"\sqrt{T}\eta^{\frac{1}{1-\alpha}}"),
        Term("sampling", c * second, -1.0, 0.0, tex2),
    ]
    notes = ["Rate form of Remark 1 (assumes T >= n); the explicit constants are in the explicit version."]
    if T < n:
        notes.append(f"T = {T} < n = {n}: Remark 1's simplification c_(gamma,T) = O(log(n/gamma)) assumes T >= n.")
    return _result("wang-nonsmooth-thm7", terms, eta=eta, T=T, notes=notes, extras={"gamma": gamma})


def explicit_bound_thm7(*, n, T, eta, L, M, alpha, R=None, bounded_domain=True, M0=1.0, gamma=None, delta=None):
    r"""Explicit stability bound, Wang, Lei, Ying & Zhang (wang-nonsmooth), Theorem 7 (a)/(b) with the constants of eq. (2) and Lemma 20.

    .. math:: \Delta^2 = e\Big(c_{\alpha,2}^2T\eta^{\frac{2}{1-\alpha}} + 4g^2\eta^2(1+k)k\Big),\quad
              k=\tfrac{T}{n}(1+c_{\gamma,T}).

    Terms: ``non-smoothness`` = :math:`\sqrt{e\,c_{\alpha,2}^2T\eta^{2/(1-\alpha)}}`, ``sampling`` =
    :math:`\sqrt{4e g^2\eta^2(1+k)k}`; ``total`` is Δ itself (<= the sum of the two).
    """
    n, T, eta, L, M, alpha, R, M0, gamma = _thm7_inputs(n, T, eta, L, M, alpha, R, bounded_domain, M0, gamma, delta)
    p = _sensitivity_parts(n, T, eta, L, M, alpha, gamma, R, bounded_domain, M0)
    terms = [
        Term("non-smoothness", math.sqrt(math.e * p["c_alpha_2_sq_T_eta_pow"]), 0.0, 0.0,
             r"\sqrt{e\,c_{\alpha,2}^2T\eta^{2/(1-\alpha)}}"),
        Term("sampling", math.sqrt(math.e * p["sampling_term"]), -1.0, 0.0,
             r"\sqrt{4e\,g^2\eta^2(1+k)k}"),
    ]
    return _result("wang-nonsmooth-thm7", terms, eta=eta, T=T, explicit=True, total=p["Delta"], extras=p,
                   notes=["total = Delta = sqrt(e (A + B)); the terms are sqrt(e A) and sqrt(e B)."])


def _utility_inputs(n, d, eps, delta, alpha, gamma, R, c):
    n = v.check_n(n)
    d = v.check_int("d", d)
    eps = v.check_eps(eps)
    delta = v.check_delta(delta)
    alpha = _alpha(alpha)
    gamma = _gamma(gamma)
    R = v.check_positive("R", R)
    c = v.check_positive("c", c)
    return n, d, eps, delta, alpha, gamma, R, c


def _gamma_range_note(gamma, d, delta):
    lo = 4.0 * max(math.exp(-d / 8.0), delta)
    if gamma <= lo:
        return [
            f"The theorem holds for gamma in (4 max(exp(-d/8), delta), 1) = ({lo:.3g}, 1); gamma = {gamma:g} is outside "
            "(for d <= 11 the range is empty): the bound is evaluated formally."
        ]
    return []


def _T_thm10(n: int, alpha: float) -> int:
    if alpha >= 0.5:
        return n
    a = exact_fraction(alpha)
    return ceil_pow(n, (2 - a) / (1 + a))  # exact: n = 1000, alpha = 0 gives 10^6


def bound_thm9(*, n, d, eps, delta, alpha, gamma=0.05, R=1.0, c=1.0, L=None):
    r"""Utility of DP-SGD-Output on W = R^d, Wang, Lei, Ying & Zhang (wang-nonsmooth), Theorem 9 (proof in §3.2, eq. (30)).

    Schedule: :math:`\eta = n^{\frac1{3+\alpha}}/(T\log(1/\gamma)^{\frac1{3+\alpha}})`,
    :math:`T \asymp n^{\frac{-\alpha^2-3\alpha+6}{(1+\alpha)(3+\alpha)}}` if :math:`\alpha < (\sqrt{73}-7)/4`, else
    :math:`T\asymp n` (taken with constant 1).  With probability 1 − γ,

    .. math:: \mathcal R(w_{priv})-\mathcal R(w^*) = \|w^*\|^2\,O\Big(
              \frac{\sqrt{d\log(1/\delta)}\log(n/\delta)}{\log(1/\gamma)^{\frac{1+\alpha}{4(3+\alpha)}}n^{\frac2{3+\alpha}}\epsilon}
              + \frac{\log n\,\log(1/\gamma)^{\frac2{3+\alpha}}\log(n/\delta)}{n^{\frac1{3+\alpha}}}\Big).

    ``R`` stands for :math:`\|w^*\|_2` here (the paper assumes it is >= 1); the O(·) constant is ``c``.
    ``L`` (optional) only serves to check η < min{1, 1/L}.
    """
    n, d, eps, delta, alpha, gamma, R, c = _utility_inputs(n, d, eps, delta, alpha, gamma, R, c)
    a = exact_fraction(alpha)
    T = ceil_pow(n, (-a * a - 3 * a + 6) / ((1 + a) * (3 + a))) if alpha < ALPHA_THM9 else n  # exact rounding up
    lg = math.log(1.0 / gamma)
    eta = n ** (1.0 / (3 + alpha)) / (T * lg ** (1.0 / (3 + alpha)))
    w2 = R**2
    priv = c * w2 * math.sqrt(d * math.log(1 / delta)) * math.log(n / delta) / (
        lg ** ((1 + alpha) / (4 * (3 + alpha))) * n ** (2 / (3 + alpha)) * eps)
    stat = c * w2 * math.log(n) * lg ** (2 / (3 + alpha)) * math.log(n / delta) / n ** (1 / (3 + alpha))
    terms = [
        Term("privacy", priv, -2 / (3 + alpha), -1.0,
             r"\frac{\sqrt{d\log(1/\delta)}\log(n/\delta)}{\log(1/\gamma)^{\frac{1+\alpha}{4(3+\alpha)}}n^{\frac{2}{3+\alpha}}\epsilon}"),
        Term("statistical", stat, -1 / (3 + alpha), 0.0,
             r"\frac{\log n\log(1/\gamma)^{\frac{2}{3+\alpha}}\log(n/\delta)}{n^{\frac{1}{3+\alpha}}}"),
    ]
    notes = _gamma_range_note(gamma, d, delta) + _eta_notes(eta, T, L)
    notes.append("Excess risk with probability 1 - gamma; R plays the role of ||w*|| (unbounded domain).")
    return _result("wang-nonsmooth-thm9", terms, eta=eta, T=T, notes=notes, extras={"gamma": gamma})


def _eta_notes(eta, T, L):
    out = []
    lim = 1.0 if L is None else _eta_limit(v.check_positive("L", L))
    if eta >= lim:
        out.append(f"The schedule's eta = {eta:.3g} violates eta < min(1, 1/L) = {lim:g} of Theorem 7 at these values.")
    if eta * T <= 1.0:
        out.append(f"The schedule's eta = {eta:.3g} is <= 1/T; the paper assumes eta > 1/T.")
    return out


def bound_thm10(*, n, d, eps, delta, alpha, gamma=0.05, R=1.0, c=1.0, L=None):
    r"""Utility of DP-SGD-Output on W ⊆ B(0, R), Wang, Lei, Ying & Zhang (wang-nonsmooth), Theorem 10 (proof in §3.2).

    Schedule: :math:`T\asymp n^{\frac{2-\alpha}{1+\alpha}}` if α < 1/2, else T ≍ n (constant 1), and

    .. math:: \eta = 1\Big/\Big(T\max\Big\{\frac{\sqrt{\log(n/\delta)\log n\log(1/\gamma)}}{\sqrt n},
              \frac{(d\log(1/\delta))^{1/4}\sqrt{\log(n/\delta)}\log(1/\gamma)^{1/8}}{\sqrt{n\epsilon}}\Big\}\Big).

    With probability 1 − γ,

    .. math:: \mathcal R(w_{priv})-\mathcal R(w^*)=\|w^*\|^2 O\Big(\frac{(d\log(1/\delta))^{1/4}\log(1/\gamma)^{1/8}
              \sqrt{\log(n/\delta)}}{\sqrt{n\epsilon}}+\frac{\sqrt{\log n\log(1/\gamma)\log(n/\delta)}}{\sqrt n}\Big),

    with :math:`\|w^*\|\le R`, so the factor is taken as R²; the O(·) constant is ``c``.
    """
    n, d, eps, delta, alpha, gamma, R, c = _utility_inputs(n, d, eps, delta, alpha, gamma, R, c)
    T = _T_thm10(n, alpha)
    lg = math.log(1.0 / gamma)
    a = math.sqrt(math.log(n / delta) * math.log(n) * lg / n)
    b = (d * math.log(1 / delta)) ** 0.25 * math.sqrt(math.log(n / delta)) * lg**0.125 / math.sqrt(n * eps)
    eta = 1.0 / (T * max(a, b))
    w2 = R**2
    terms = [
        Term("privacy", c * w2 * b, -0.5, -0.5,
             r"\frac{(d\log(1/\delta))^{1/4}\log(1/\gamma)^{1/8}\sqrt{\log(n/\delta)}}{\sqrt{n\epsilon}}"),
        Term("statistical", c * w2 * a, -0.5, 0.0, r"\frac{\sqrt{\log n\log(1/\gamma)\log(n/\delta)}}{\sqrt n}"),
    ]
    notes = _gamma_range_note(gamma, d, delta) + _eta_notes(eta, T, L)
    notes.append("Excess risk with probability 1 - gamma; ||w*|| <= R.")
    return _result("wang-nonsmooth-thm10", terms, eta=eta, T=T, notes=notes, extras={"gamma": gamma})


def bound_thm12(*, n, d, eps, delta, alpha, gamma=0.05, R=1.0, c=1.0, L=None, M=None):
    r"""Utility of DP-SGD-Gradient (Algorithm 2), Wang, Lei, Ying & Zhang (wang-nonsmooth), Theorem 12 (derivation in §3.3).

    Schedule: T ≍ n^{(2−α)/(1+α)} if α < 1/2, else T ≍ n (constant 1), and, following the §3.3 derivation
    (minimise :math:`\frac{1}{T\eta} + \eta T(a^2+b^2)`),

    .. math:: \eta = 1\Big/\Big(T\max\Big\{\frac{\sqrt{\log n\log(n/\gamma)\log(1/\gamma)}}{\sqrt n},
              \frac{\sqrt{d\log(1/\delta)}\log(1/\gamma)^{1/4}}{n\epsilon}\Big\}\Big)

    (the statement prints :math:`\eta=\frac1T\max\{\dots\}`, see ``Theorem.discrepancy``).  With probability 1 − γ,

    .. math:: \mathcal R(w_{priv})-\mathcal R(w^*)=\|w^*\|^2O\Big(\frac{\sqrt{d\log(1/\delta)\log(1/\gamma)}}{n\epsilon}
              +\frac{\sqrt{\log n\log(n/\gamma)\log(1/\gamma)}}{\sqrt n}\Big).

    When ``L`` and ``M`` are given, ``extras['calibration']`` holds the noise of Algorithm 2 at this T (Theorem 11 =
    Theorem 2 of Wang, Lei, Ying & Zhou with G = M + L R^α), computed by :mod:`dpviz.theory.papers.wang_lownoise`.
    """
    n, d, eps, delta, alpha, gamma, R, c = _utility_inputs(n, d, eps, delta, alpha, gamma, R, c)
    T = _T_thm10(n, alpha)
    lg = math.log(1.0 / gamma)
    a = math.sqrt(math.log(n) * math.log(n / gamma) * lg / n)
    b = math.sqrt(d * math.log(1 / delta)) * lg**0.25 / (n * eps)
    eta = 1.0 / (T * max(a, b))
    w2 = R**2
    terms = [
        Term("privacy", c * w2 * math.sqrt(d * math.log(1 / delta) * lg) / (n * eps), -1.0, -1.0,
             r"\frac{\sqrt{d\log(1/\delta)\log(1/\gamma)}}{n\epsilon}"),
        Term("statistical", c * w2 * a, -0.5, 0.0, r"\frac{\sqrt{\log n\log(n/\gamma)\log(1/\gamma)}}{\sqrt n}"),
    ]
    notes = _eta_notes(eta, T, L)
    lo = 18.0 * math.exp(-T * d / 8.0)
    if gamma <= lo:
        notes.append(f"The theorem holds for gamma in (18 exp(-T d/8), 1) = ({lo:.3g}, 1); gamma = {gamma:g} is outside.")
    notes.append("Excess risk with probability 1 - gamma; ||w*|| <= R.")
    extras = {"gamma": gamma, "eta_as_printed": max(a, b) / T}
    if L is not None and M is not None:
        from dpviz.theory.papers.wang_lownoise import calibrate_dpsgd_rdp

        cal = calibrate_dpsgd_rdp(n=n, eps=eps, delta=delta, T=T, M=M, L=L, R=R, alpha=alpha)
        extras["calibration"] = cal.to_dict()
        if not cal.feasible:
            notes.append("Algorithm 2 is not private at these values (Theorem 11): "
                         + name_citations(cal.reason, "Wang, Lei, Ying & Zhou"))
    return _result("wang-nonsmooth-thm12", terms, eta=eta, T=T, notes=notes, extras=extras)


def lemma13_eps_threshold(n) -> float:
    r"""Sufficient privacy budget of Lemma 13 (Wang, Lei, Ying & Zhang (wang-nonsmooth), Lemma 13 and Fig. 1).

    For T = n and δ = 1/n², Lemma 13 states that a β ∈ (0, 1) satisfying the RDP conditions of Theorem 11 exists if

    .. math:: \epsilon \ge \frac{7(n^{1/3}-1) + 4n\log n + 7}{2n(n^{1/3}-1)}.

    This is the printed formula (the boundary of Fig. 1's shaded area), for n >= 18.  It is **not** sufficient for
    18 <= n < 44 (= :data:`LEMMA13_VALID_FROM`): there, at the threshold, no β satisfies Theorem 11's conditions
    (e.g. n = 18: threshold 3.881, smallest feasible ε ≈ 4.52).  The proof's final inequality
    max{…, log n(14 log n (n^{1/3}−1)+162n−63)/(9n(2 log n (n^{1/3}−1)−9))} <= threshold fails for small n (its
    second entry is 141 at n = 18); numerically the threshold is sufficient for every n >= 44 checked.
    """
    n = v.check_int("n", n, minimum=18)
    c = n ** (1.0 / 3.0) - 1.0
    return (7.0 * c + 4.0 * math.log(n) * n + 7.0) / (2.0 * n * c)


def bound_lemma13(*, n, eps=None):
    r"""Lemma 13 as a 'bound': the sufficient ε for Algorithm 2 with T = n, δ = 1/n² (Wang, Lei, Ying & Zhang (wang-nonsmooth), Lemma 13).

    .. math:: \epsilon_{13}(n) = \frac{7(n^{1/3}-1)+4n\log n+7}{2n(n^{1/3}-1)} \sim \frac{2\log n}{n^{1/3}}.

    One term ``eps-threshold`` (n exponent −1/3 up to the log).  With ``eps`` given, the notes say whether it meets
    the threshold.  Valid only for n >= 44 (see :func:`lemma13_eps_threshold`).
    """
    thr = lemma13_eps_threshold(n)
    n = int(n)
    notes = ["T = n and delta = 1/n^2 (Remark 4); the beta closest to 1/2 among the feasible ones is used in practice."]
    if n < LEMMA13_VALID_FROM:
        notes.append(
            f"For n = {n} < {LEMMA13_VALID_FROM} the printed threshold is not sufficient: Theorem 11's conditions have "
            "no solution beta at this eps (the proof's last inequality fails for small n)."
        )
    if eps is not None:
        eps = v.check_eps(eps)
        notes.append(f"eps = {eps:g} {'meets' if eps >= thr else 'is below'} the threshold {thr:.4g}.")
    term = Term("eps-threshold", thr, -1.0 / 3.0, 0.0, r"\frac{7(n^{1/3}-1)+4n\log n+7}{2n(n^{1/3}-1)}")
    return _result("wang-nonsmooth-lemma13", [term], T=n, notes=notes,
                   extras={"delta": 1.0 / n**2, "threshold": thr, "valid": n >= LEMMA13_VALID_FROM}, explicit=True)


# ----------------------------------------------------------------------------------------------------------------
# Catalogue entries

ALGORITHMS = [
    Algorithm(
        id="dpsgd-output",
        name="DP-SGD-Output (output perturbation)",
        paper=PAPER,
        place="Algorithm 1",
        setting="pointwise",
        perturbation="output",
        assumptions=_ASSUME,
        calibrate=calibrate_dpsgd_output,
        affects=("n", "eps", "delta", "T", "eta", "L", "M", "R", "alpha"),
        description=(
            "Run projected SGD (w_1 = 0, uniform sampling, constant step eta) for T steps, average the iterates and "
            "add Gaussian noise N(0, sigma^2 I) scaled to the high-probability stability bound of SGD (Theorem 7): "
            "Delta~_SGD(delta/2) on a ball of radius R, Delta_SGD(delta/2) on R^d."
        ),
        noise="gaussian",
        formula=_OUTPUT_FORMULA,
    ),
]

_DISCREPANCY_THM12 = (
    "The statement prints eta = (1/T) max{sqrt(log n log(n/gamma) log(1/gamma))/sqrt(n), "
    "sqrt(d log(1/delta)) log(1/gamma)^(1/4)/(n eps)}, but the derivation in the proof (minimising "
    "1/(T eta) + eta T (a^2 + b^2) over eta) gives eta = 1/(T max{...}); with the printed eta the optimisation term "
    "1/(T eta) would grow like sqrt(n). dpviz follows the derivation."
)

_DISCREPANCY_LEMMA13 = (
    "Lemma 13 claims the threshold suffices for every n >= 18, but for 18 <= n <= 43 no beta in (0, 1) satisfies "
    "Theorem 11's conditions at the threshold (n = 18: threshold 3.88, smallest feasible eps about 4.52). The proof's "
    "last step, max{7/(2n(n^(1/3)-1)) + 2 sqrt(7 log n/(n(n^(1/3)-1))), log n (14 log n (n^(1/3)-1) + 162 n - 63)/"
    "(9 n (2 log n (n^(1/3)-1) - 9))} <= threshold, is false for small n (the second entry is 141 at n = 18). dpviz "
    "shows the printed boundary and flags n < 44, from where it is numerically sufficient."
)

_THEOREMS = [
    Theorem(
        id="wang-nonsmooth-thm7",
        paper=PAPER,
        number="Theorem 7",
        algorithm="dpsgd-output",
        assumptions=("convex", "holder", "bounded-gradient-at-zero"),
        bound=bound_thm7,
        explicit_bound=explicit_bound_thm7,
        statement=(
            r"\mathbb P\big(\sup_{S\simeq S'}\|\bar w-\bar w'\|\ge\Delta\big)\le\gamma,\ "
            r"\Delta^2=e\big(c_{\alpha,2}^2T\eta^{\frac{2}{1-\alpha}}+4g^2\eta^2(1+k)k\big),\ k=\tfrac{T}{n}(1+c_{\gamma,T})"
        ),
        schedule=r"\eta<\min\{1,1/L\}\ \text{(any } T)",
        notes=(
            "Part (a), W = R^d, needs a non-negative loss: g = M + L (C_alpha T eta)^(alpha/2).",
            "Part (b), W in B(0, R): g = M + L R^alpha.",
        ),
        risk=Risk("uniform argument stability", "high-probability",
                  "ℓ2-sensitivity of averaged SGD; part (a): P(sup ||w - w'|| >= Delta) <= gamma"),
        schedule_affects=("T", "eta"),
    ),
    Theorem(
        id="wang-nonsmooth-thm9",
        paper=PAPER,
        number="Theorem 9",
        algorithm="dpsgd-output",
        assumptions=_ASSUME,
        bound=bound_thm9,
        statement=(
            r"\|w^*\|^2O\Big(\frac{\sqrt{d\log(1/\delta)}\log(n/\delta)}{\log(1/\gamma)^{\frac{1+\alpha}{4(3+\alpha)}}"
            r"n^{\frac{2}{3+\alpha}}\epsilon}+\frac{\log n\log(1/\gamma)^{\frac{2}{3+\alpha}}\log(n/\delta)}"
            r"{n^{\frac{1}{3+\alpha}}}\Big)"
        ),
        schedule=(
            r"\eta=\frac{n^{1/(3+\alpha)}}{T\log(1/\gamma)^{1/(3+\alpha)}},\ T\asymp n^{\frac{-\alpha^2-3\alpha+6}"
            r"{(1+\alpha)(3+\alpha)}}\ (\alpha<\frac{\sqrt{73}-7}{4}),\ T\asymp n\ \text{else}"
        ),
        notes=("Unbounded domain W = R^d; R stands for ||w*||.",),
        risk=Risk("excess population risk", "high-probability"),
        affects=("n", "d", "eps", "delta", "R", "alpha", "c"),
        schedule_affects=("n", "alpha"),
    ),
    Theorem(
        id="wang-nonsmooth-thm10",
        paper=PAPER,
        number="Theorem 10",
        algorithm="dpsgd-output",
        assumptions=_ASSUME + ("bounded-domain",),
        bound=bound_thm10,
        statement=(
            r"\|w^*\|^2O\Big(\frac{(d\log(1/\delta))^{1/4}\log(1/\gamma)^{1/8}\sqrt{\log(n/\delta)}}{\sqrt{n\epsilon}}"
            r"+\frac{\sqrt{\log n\log(1/\gamma)\log(n/\delta)}}{\sqrt n}\Big)"
        ),
        schedule=(
            r"T\asymp n^{\frac{2-\alpha}{1+\alpha}}\ (\alpha<\tfrac12),\ T\asymp n\ \text{else};\ "
            r"\eta=1/\big(T\max\{\frac{\sqrt{\log(n/\delta)\log n\log(1/\gamma)}}{\sqrt n},"
            r"\frac{(d\log(1/\delta))^{1/4}\sqrt{\log(n/\delta)}\log(1/\gamma)^{1/8}}{\sqrt{n\epsilon}}\}\big)"
        ),
        risk=Risk("excess population risk", "high-probability"),
        affects=("n", "d", "eps", "delta", "R", "alpha", "c"),
        schedule_affects=("n", "d", "eps", "delta", "alpha"),
    ),
    Theorem(
        id="wang-nonsmooth-thm12",
        paper=PAPER,
        number="Theorem 12",
        algorithm="dpsgd-rdp",
        assumptions=_ASSUME + ("bounded-domain",),
        bound=bound_thm12,
        statement=(
            r"\|w^*\|^2O\Big(\frac{\sqrt{d\log(1/\delta)\log(1/\gamma)}}{n\epsilon}"
            r"+\frac{\sqrt{\log n\log(n/\gamma)\log(1/\gamma)}}{\sqrt n}\Big)"
        ),
        schedule=(
            r"T\asymp n^{\frac{2-\alpha}{1+\alpha}}\ (\alpha<\tfrac12),\ T\asymp n\ \text{else};\ "
            r"\eta=1/\big(T\max\{\frac{\sqrt{\log n\log(n/\gamma)\log(1/\gamma)}}{\sqrt n},"
            r"\frac{\sqrt{d\log(1/\delta)}\log(1/\gamma)^{1/4}}{n\epsilon}\}\big)"
        ),
        discrepancy=_DISCREPANCY_THM12,
        notes=("Algorithm 2 (DP-SGD-Gradient) is the catalogue's dpsgd-rdp with G = M + L R^alpha.",),
        risk=Risk("excess population risk", "high-probability"),
        affects=("n", "d", "eps", "delta", "R", "alpha", "c"),
        schedule_affects=("n", "alpha"),
    ),
    Theorem(
        id="wang-nonsmooth-lemma13",
        paper=PAPER,
        number="Lemma 13",
        algorithm="dpsgd-rdp",
        assumptions=_ASSUME + ("bounded-domain",),
        bound=bound_lemma13,
        statement=r"\epsilon\ge\frac{7(n^{1/3}-1)+4n\log n+7}{2n(n^{1/3}-1)}\Rightarrow\exists\beta\in(0,1)",
        schedule=r"T=n,\ \delta=1/n^2,\ n\ge18",
        discrepancy=_DISCREPANCY_LEMMA13,
        risk=Risk("sufficient privacy budget ε", "deterministic", "for Theorem 11's conditions; not a risk"), form="explicit",
        affects=("n",),
        schedule_affects=("n",),
    ),
]


#: Theorem 12 and Lemma 13 analyse Algorithm 2 (= ``dpsgd-rdp``, defined in :mod:`dpviz.theory.papers.wang_lownoise`);
#: they are listed only when that module is installed, so that every theorem names a catalogue algorithm.
THEOREMS = [
    t for t in _THEOREMS
    if t.algorithm != "dpsgd-rdp" or importlib.util.find_spec("dpviz.theory.papers.wang_lownoise") is not None
]

#: Every calibration and bound names its paper with the theorems, lemmas, remarks and equations it cites.
ALGORITHMS = cite_entries(ALGORITHMS, PAPER.short)
THEOREMS = cite_entries(THEOREMS, PAPER.short)


# ----------------------------------------------------------------------------------------------------------------
# Table 1


def _table_rows() -> tuple[ComparisonRow, ...]:
    opt_tex = r"O\Big(\frac{\sqrt{d\log(1/\delta)}}{n\epsilon}+\frac{1}{\sqrt n}\Big)"
    return (
        ComparisonRow(
            method="Output perturbation",
            reference="Wu, Li, Kumar, Chaudhuri, Jha & Naughton (2017)",
            assumptions="Lipschitz & smooth",
            rate_latex=r"O\Big(\frac{(d\log(1/\delta))^{1/4}}{\sqrt{n\epsilon}}\Big)",
            rate=lambda *, n, d, eps, delta: (d * _ld(delta)) ** 0.25 / math.sqrt(n * eps),
            complexity_latex=r"O(n)",
            complexity=lambda *, n: float(n),
            extra={"domain": "bounded"},
        ),
        ComparisonRow(
            method="Gradient perturbation",
            reference="Bassily, Feldman, Talwar & Thakurta (2019)",
            assumptions="Lipschitz & smooth",
            rate_latex=opt_tex,
            rate=_rate_opt,
            complexity_latex=r"O\Big(n^{1.5}\sqrt\epsilon+\frac{(n\epsilon)^{2.5}}{d\log(1/\delta)}\Big)",
            complexity=lambda *, n, d, eps, delta: n**1.5 * math.sqrt(eps) + (n * eps) ** 2.5 / (d * _ld(delta)),
            extra={"domain": "bounded"},
        ),
        ComparisonRow(
            method="Gradient perturbation (Moreau smoothing)",
            reference="Bassily, Feldman, Talwar & Thakurta (2019)",
            assumptions="Lipschitz",
            rate_latex=opt_tex,
            rate=_rate_opt,
            complexity_latex=r"O\Big(n^{4.5}\sqrt\epsilon+\frac{n^{6.5}\epsilon^{4.5}}{(d\log(1/\delta))^2}\Big)",
            complexity=lambda *, n, d, eps, delta: n**4.5 * math.sqrt(eps) + n**6.5 * eps**4.5 / (d * _ld(delta)) ** 2,
            extra={"domain": "bounded"},
        ),
        ComparisonRow(
            method="Phased output perturbation",
            reference="Feldman, Koren & Talwar (2020)",
            assumptions="Lipschitz & smooth",
            rate_latex=opt_tex,
            rate=_rate_opt,
            complexity_latex=r"O(n)",
            complexity=lambda *, n: float(n),
            extra={"domain": "bounded"},
        ),
        ComparisonRow(
            method="Phased ERM",
            reference="Feldman, Koren & Talwar (2020)",
            assumptions="Lipschitz",
            rate_latex=opt_tex,
            rate=_rate_opt,
            complexity_latex=r"O(n^2\log(1/\delta))",
            complexity=lambda *, n, delta: n**2 * _ld(delta),
            extra={"domain": "bounded"},
        ),
        ComparisonRow(
            method="Gradient perturbation (noisy projected SGD)",
            reference="Bassily, Feldman, Guzmán & Talwar (2020)",
            assumptions="Lipschitz",
            rate_latex=opt_tex,
            rate=_rate_opt,
            complexity_latex=r"O(n^2)",
            complexity=lambda *, n: float(n) ** 2,
            extra={"domain": "bounded"},
        ),
        ComparisonRow(
            method="DP-SGD-Output (this paper, Theorem 10)",
            reference="Wang, Lei, Ying & Zhang",
            assumptions="α-Hölder smooth",
            rate_latex=r"O\Big(\frac{(d\log(1/\delta))^{1/4}\sqrt{\log(n/\delta)}}{\sqrt{n\epsilon}}\Big)",
            rate=lambda *, n, d, eps, delta: (d * _ld(delta)) ** 0.25 * math.sqrt(math.log(n / delta))
            / math.sqrt(n * eps),
            complexity_latex=r"O\big(n^{\frac{2-\alpha}{1+\alpha}}+n\big)",
            complexity=lambda *, n, alpha: n ** ((2 - alpha) / (1 + alpha)) + n,
            extra={"domain": "bounded"},
        ),
        ComparisonRow(
            method="DP-SGD-Output (this paper, Theorem 9)",
            reference="Wang, Lei, Ying & Zhang",
            assumptions="α-Hölder smooth",
            rate_latex=(
                r"O\Big(\frac{\sqrt{d\log(1/\delta)}\log(n/\delta)}{n^{\frac{2}{3+\alpha}}\epsilon}"
                r"+\frac{\log(n/\delta)}{n^{\frac{1}{3+\alpha}}}\Big)"
            ),
            rate=lambda *, n, d, eps, delta, alpha: math.sqrt(d * _ld(delta)) * math.log(n / delta)
            / (n ** (2 / (3 + alpha)) * eps) + math.log(n / delta) / n ** (1 / (3 + alpha)),
            complexity_latex=r"O\big(n^{\frac{-\alpha^2-3\alpha+6}{(1+\alpha)(3+\alpha)}}+n\big)",
            complexity=lambda *, n, alpha: n ** ((-alpha**2 - 3 * alpha + 6) / ((1 + alpha) * (3 + alpha))) + n,
            extra={"domain": "unbounded"},
        ),
        ComparisonRow(
            method="DP-SGD-Gradient (this paper, Theorem 12)",
            reference="Wang, Lei, Ying & Zhang",
            assumptions="α-Hölder smooth",
            rate_latex=opt_tex,
            rate=_rate_opt,
            complexity_latex=r"O\big(n^{\frac{2-\alpha}{1+\alpha}}+n\big)",
            complexity=lambda *, n, alpha: n ** ((2 - alpha) / (1 + alpha)) + n,
            extra={"domain": "bounded"},
        ),
    )


TABLES = [
    ComparisonTable(
        id="wang-nonsmooth-table1",
        paper=PAPER,
        number="Table 1",
        caption=(
            "(ε, δ)-DP algorithms for stochastic convex optimisation: utility (excess population risk) bound, gradient "
            "complexity and parameter domain, for Lipschitz, Lipschitz and smooth, and α-Hölder smooth losses."
        ),
        rows=_table_rows(),
    ),
]
