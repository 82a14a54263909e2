"""Wang, Lei, Ying & Zhou (wang-lownoise): the explicit constants of the appendix and the explicit-constant bounds.

M_{α,1/2/3} (eq. (4), (5), Lemma 14 (b)), the generalisation and optimisation bounds of Theorems 15 and 16
(Lemmas 17, 19 and 20), the explicit versions of the smooth Theorems 3 and 6 (``explicit_bound_thm3a`` ...
``explicit_bound_thm6b``) and of the α-Hölder Theorems 4 and 7, whose proofs' fixed point (eqs. (14)-(18),
(23)-(25): "the solution of the above inequality is O(·)") is solved explicitly (:func:`young_constant`,
:func:`largest_root`, :func:`explicit_holder_risk`, ``explicit_bound_thm4a`` ... ``explicit_bound_thm7b``).
"""

from __future__ import annotations

import math

from dpviz.foundation import validate as v
from dpviz.theory.catalog import BoundResult, Term
from dpviz.theory.papers.wang_lownoise.calibration import _golden_max, calibrate_dpsgd_rdp, calibrate_dpsgd_rdp_pairwise
from dpviz.theory.papers.wang_lownoise.rates import _T_general, _T_lownoise, _holder_alpha


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
        T = _T_lownoise(n, alpha) if T is None else v.check_int("T", T)
        if eta is None:
            eta = c * min(n ** ((alpha**2 + 2.0 * alpha - 3.0) / (2.0 * (1.0 + alpha))), n * eps / (T * root))
        n_exp = -(1.0 + alpha) / 2.0
    else:
        if T is None:
            T = n if alpha >= 0.5 else _T_general(n, alpha)
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
