"""Xue, Yang, Huai & Wang (xue-pairwise): the utility theorems (Theorems 1-3) and Algorithm 4 (DPGDC, Appendix C.3)
with its Theorem 4.
"""

from __future__ import annotations

import math

from dpviz.foundation import validate as v
from dpviz.theory import gaussian as _gauss
from dpviz.theory.catalog import BoundResult, Calibration, Term
from dpviz.theory.papers.xue_pairwise.calibration import (_check_mu_L, _delta_any, _delta_positive, _diameter,
                                                          _laplace_d, _WHO, epoch_sizes, released_formula,
                                                          schedule_thm1, schedule_thm2, schedule_thm3)


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
            fix=pick["fix"], formula=released_formula(_C4_FORMULA, sigma_rule, r"4\eta GT/n"),
            formula_numbers=nums, notes=notes, extras=extras,
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
