"""Kang, Li, Liu & Wang (kang-pidp): the utility bounds -- Theorems 1, 2, 3, 4, 6, 7 and Remarks 3, 4.

Excess empirical risk (Theorem 1), excess population risk with τ (Theorems 2, 3), Theorem 4's influence-function
error, PIDP-SGD's bounds (Theorems 6, 7, Remarks 3, 4), their explicit-constant versions, and the time complexity.
"""

from __future__ import annotations

import math

from dpviz.foundation import validate as v
from dpviz.theory.catalog import BoundResult, Term
from dpviz.theory.papers._common import log_inv as _ld
from dpviz.theory.papers.kang_pidp.calibration import (_check_L_mu, _consistent_c, _CONSISTENT_NOTE,
                                                       calibrate_dpsgd_pl, schedule_T)


# ----------------------------------------------------------------------------------------------------------------
# bounds


def _result(theorem, terms, *, eta=None, T=None, notes=(), extras=None, explicit=False, complexity=None):
    return BoundResult.of(theorem, terms, eta=eta, T=T, gradient_complexity=complexity, notes=notes, extras=extras,
                          explicit=explicit)


def _common(n, d, eps, delta=None):
    n = v.check_n(n)
    d = v.check_int("d (model dimension, the paper's m)", d)
    eps = v.check_eps(eps)
    delta = None if delta is None else v.check_delta(delta)
    return n, d, eps, delta


def _eta_of(L):
    return None if L is None else 1.0 / v.check_positive("L (smoothness constant)", L)


def _emp_rate(n, d, eps, delta, G, c):
    """c m G² log(1/δ) log n / (n² ε²): the rate of Theorem 1."""
    return c * d * G**2 * _ld(delta) * math.log(n) / (n**2 * eps**2)


def bound_thm1(*, n, d, eps, delta, G=1.0, L=None, mu=None, c=1.0, consistent_constants=False) -> BoundResult:
    r"""Excess empirical risk of DP-SGD under the PL condition (Kang, Li, Liu & Wang (kang-pidp), Theorem 1).

    .. math:: \mathbb E[L(\theta_{priv};D) - L^*] \le O\Big(\frac{mG^2\log(1/\delta)\log n}{n^2\epsilon^2}\Big),
              \quad \eta = 1/L,\ T = O(\log n),

    one term ``privacy`` with the constant set to ``c``; T from :func:`schedule_T`.  ``consistent_constants=True``
    replaces c by c_implied² (:func:`implied_c`, the constant of eq. (2) that dpviz's calibration implies; σ² ∝ c²).
    """
    n, d, eps, delta = _common(n, d, eps, delta)
    G = v.check_positive("G", G)
    c = v.check_positive("c", c)
    T = schedule_T(n=n, L=L, mu=mu)
    c, extras = _consistent_c(c, consistent_constants, n, eps, delta, G, T)
    term = Term("privacy", _emp_rate(n, d, eps, delta, G, c), -2.0, -2.0,
                r"\frac{mG^2\log(1/\delta)\log n}{n^2\epsilon^2}")
    notes = ["Excess empirical risk; m is the model dimension d.", _schedule_note_thm1(n, L, mu, T)]
    if extras:
        notes.append(_CONSISTENT_NOTE.format(c2=c, ci=extras["c_implied"]))
    return _result("kang-pidp-thm1", [term], eta=_eta_of(L), T=T, notes=notes, extras=extras)


def _schedule_note_thm1(n, L, mu, T) -> str:
    """What Theorem 1's schedule T (:func:`schedule_T`) leaves of the optimisation term (dpviz's reading)."""
    if L is None or mu is None or mu >= L:
        return ("Schedule (dpviz's reading): T = O(log n) is taken so that (1 - mu/L)^T <= 1/n, which leaves an "
                "optimisation term Delta0/n above the claimed n^-2 rate; (1 - mu/L)^T <= 1/n^2 (twice the T, still "
                "O(log n)) would be needed for the rate. Give L and mu for the numbers.")
    q = 1.0 - mu / L
    T2 = max(1, math.ceil(2.0 * math.log(n) / -math.log1p(-mu / L)))
    return (f"Schedule (dpviz's reading): T = {T} makes (1 - mu/L)^T = {q**T:.3g} <= 1/n = {1.0 / n:.3g}, which leaves "
            f"an optimisation term (1 - mu/L)^T Delta0 of order Delta0/n, above the claimed n^-2 rate; the rate needs "
            f"(1 - mu/L)^T <= 1/n^2, i.e. T = {T2} (still O(log n)).")


def explicit_bound_thm1(*, n, d, eps, delta, G, L, mu, T=None, Delta0=1.0, sigma=None, c=None,
                        neighbouring="replace-one") -> BoundResult:
    r"""Theorem 1's recursion with explicit constants (Kang, Li, Liu & Wang (kang-pidp), proof of Theorem 1).

    .. math:: \mathbb E[L(\theta_T;D) - L^*] \le \Big(1-\frac{\mu}{L}\Big)^T \Delta_0 + \frac{m\sigma^2}{2\mu},

    with Δ₀ = L(θ₀; D) − L* (default 1) and σ the calibrated noise of ``dpsgd-pl`` (accountant; eq. (2) with ``c``
    if given) unless ``sigma`` is given.  Terms ``optimisation`` and ``privacy``.
    """
    n, d, eps, delta = _common(n, d, eps, delta)
    G = v.check_positive("G", G)
    L, mu = _check_L_mu(L, mu)
    Delta0 = v.check_nonnegative("Delta0 (initial excess empirical risk)", Delta0)
    scheduled = T is None
    T = schedule_T(n=n, L=L, mu=mu) if scheduled else v.check_int("T", T)
    extras = {}
    if sigma is None:
        cal = calibrate_dpsgd_pl(n=n, eps=eps, delta=delta, G=G, T=T, L=L, mu=mu, c=c, neighbouring=neighbouring)
        sigma = cal.sigma
        extras["c"] = cal.extras["c"]
    sigma = v.check_nonnegative("sigma", sigma)
    extras["sigma"] = sigma
    q = 1.0 - mu / L
    terms = [
        Term("optimisation", q**T * Delta0, -1.0 if scheduled else 0.0, 0.0, r"(1-\mu/L)^T\Delta_0"),
        Term("privacy", d * sigma**2 / (2.0 * mu), -2.0, -2.0, r"\frac{m\sigma^2}{2\mu}"),
    ]
    notes = ["The proof's sum (m sigma^2/(2L)) sum_{i<T} (1-mu/L)^i is bounded by m sigma^2/(2 mu), as printed."]
    return _result("kang-pidp-thm1", terms, eta=1.0 / L, T=T, notes=notes, extras=extras, explicit=True)


def _thm3_terms(e, n, G, L, mu, tau, Lstar):
    b = 16.0 * G**2 / (n**2 * mu**2)
    if tau is None:
        tau = math.sqrt(L * (e + Lstar) / (8.0 * e / mu + b))
    else:
        tau = v.check_positive("tau", tau)
    return tau, [
        Term("optimisation", (tau + L) * (8.0 * tau + mu) / (mu * tau) * e, -2.0, -2.0,
             r"(\tau+L)\frac{8\tau+\mu}{\mu\tau}\mathbb E[L(\theta_{priv};D)-L^*]"),
        Term("stability", (tau + L) * b, -2.0, 0.0, r"(\tau+L)\frac{16G^2}{n^2\mu^2}"),
        Term("statistical", L * Lstar / tau, -1.0, 0.0, r"\frac{L}{\tau}\mathbb E[L^*]"),
    ]


_TAU_NOTE = ("tau = argmin of the bound, sqrt(L (e + E[L*]) / (8 e/mu + 16 G^2/(n^2 mu^2))) with e the excess "
             "empirical risk (the bound is tau (8e/mu + b) + L (e + E[L*])/tau + const).")


def bound_thm3(*, n, d, eps, delta, L, mu, G=1.0, tau=None, Lstar=None, c=1.0,
               consistent_constants=False) -> BoundResult:
    r"""Excess population risk of DP-SGD under the PL condition (Kang, Li, Liu & Wang (kang-pidp), Theorem 3, Theorem 2).

    .. math:: \mathbb E[L_P(\theta_{priv}) - \min L_P] \le (\tau+L)\Big(\frac{8\tau+\mu}{\mu\tau}\,e
              + \frac{16G^2}{n^2\mu^2}\Big) + \frac{L}{\tau}\mathbb E[L^*],

    with e the excess empirical risk at the rate of Theorem 1 (constant ``c``), E[L*] = ``Lstar`` (default 1/n, the
    assumption of Remark 4) and τ > 0 free; ``tau=None`` takes the minimising τ (Theorem 2's inf over τ).
    Terms ``optimisation``, ``stability``, ``statistical`` (exponents for fixed τ).
    """
    n, d, eps, delta = _common(n, d, eps, delta)
    G = v.check_positive("G", G)
    L, mu = _check_L_mu(L, mu)
    c = v.check_positive("c", c)
    Lstar = 1.0 / n if Lstar is None else v.check_nonnegative("Lstar (expected minimal empirical risk)", Lstar)
    T = schedule_T(n=n, L=L, mu=mu)
    c, cextras = _consistent_c(c, consistent_constants, n, eps, delta, G, T)
    e = _emp_rate(n, d, eps, delta, G, c)
    tau_given = tau is not None
    tau, terms = _thm3_terms(e, n, G, L, mu, tau, Lstar)
    notes = [] if tau_given else [_TAU_NOTE]
    if cextras:
        notes.append(_CONSISTENT_NOTE.format(c2=c, ci=cextras["c_implied"]))
    return _result("kang-pidp-thm3", terms, eta=1.0 / L, T=T, notes=notes,
                   extras={"tau": tau, "Lstar": Lstar, "excess_empirical": e, **cextras})


def explicit_bound_thm3(*, n, d, eps, delta, L, mu, G=1.0, tau=None, Lstar=None, T=None, Delta0=1.0,
                        sigma=None, c=None) -> BoundResult:
    r"""Theorem 3 with the explicit excess empirical risk of Theorem 1's recursion (Kang, Li, Liu & Wang (kang-pidp),
    Theorem 3 and proof of Theorem 1).

    e = (1 − μ/L)^T Δ₀ + mσ²/(2μ) (:func:`explicit_bound_thm1`) in
    :math:`(\tau+L)\big(\frac{8\tau+\mu}{\mu\tau}e + \frac{16G^2}{n^2\mu^2}\big) + \frac{L}{\tau}\mathbb E[L^*]`.
    """
    n, d, eps, delta = _common(n, d, eps, delta)
    G = v.check_positive("G", G)
    L, mu = _check_L_mu(L, mu)
    Lstar = 1.0 / n if Lstar is None else v.check_nonnegative("Lstar (expected minimal empirical risk)", Lstar)
    emp = explicit_bound_thm1(n=n, d=d, eps=eps, delta=delta, G=G, L=L, mu=mu, T=T, Delta0=Delta0, sigma=sigma, c=c)
    e = emp.total
    tau_given = tau is not None
    tau, terms = _thm3_terms(e, n, G, L, mu, tau, Lstar)
    notes = [] if tau_given else [_TAU_NOTE]
    return _result("kang-pidp-thm3", terms, eta=1.0 / L, T=emp.T, notes=notes, explicit=True,
                   extras={"tau": tau, "Lstar": Lstar, "excess_empirical": e, **emp.extras})


def _branches(n, d, eps, k, c, which):
    """Rate branches (term lists) of Remark 4 (k = None) or Theorem 7; k = None means k = n in Theorem 7."""
    def term(name, coef, a, b, e, latex):
        # coef * k^a n^b eps^e; with k defaulting to n the n-exponent is b + a
        kk = n if k is None else k
        return Term(name, c * coef * kk**a * n**b * eps**e, b + (a if k is None else 0.0), e, latex)

    if which == "remark4":
        return [
            [Term("privacy", c * d / (n**2 * eps**2), -2.0, -2.0, r"\frac{m}{n^2\epsilon^2}"),
             Term("statistical", c / n, -1.0, 0.0, r"\frac1n")],
            [Term("privacy", c * math.sqrt(d) / (n**1.5 * eps), -1.5, -1.0, r"\frac{\sqrt m}{n^{1.5}\epsilon}"),
             Term("privacy-cubic", c * d**1.5 / (n**2.5 * eps**3), -2.5, -3.0, r"\frac{m^{1.5}}{n^{2.5}\epsilon^3}")],
        ]
    return [
        [term("privacy", d, 1.0, -3.0, -2.0, r"\frac{km}{n^3\epsilon^2}"),
         Term("statistical", c / n, -1.0, 0.0, r"\frac1n")],
        [term("privacy", d, 1.0, -2.5, -2.0, r"\frac{km}{n^{2.5}\epsilon^2}"),
         Term("statistical", c / n**1.5, -1.5, 0.0, r"\frac1{n^{1.5}}")],
        [term("privacy", math.sqrt(d), 0.5, -2.0, -1.0, r"\frac{\sqrt{km}}{n^2\epsilon}"),
         term("privacy-cubic", d**1.5, 1.5, -4.0, -3.0, r"\frac{(km)^{1.5}}{n^4\epsilon^3}")],
    ]


def _with_stability(n, c, totals, taus):
    """Branch values with Theorem 3's stability term (tau + L) 16 G^2/(n^2 mu^2), which Remark 4's template drops,
    kept at the rate level (constants dropped as in the template: (tau + 1)/n^2).  Returns (values, index of min)."""
    vals = [t + c * (tau + 1.0) / n**2 for t, tau in zip(totals, taus)]
    return vals, min(range(len(vals)), key=vals.__getitem__)


def _stability_note(which, i, totals, vals, j, taus):
    shown = ", ".join(f"branch {b + 1} (tau = {taus[b]:.4g}): {vals[b]:.3g}" for b in range(len(vals)))
    return (f"Keeping Theorem 3's stability term (tau + L) 16G^2/(n^2 mu^2), which {which} drops (dpviz's "
            f"correction; constants dropped as in the template: (tau + 1)/n^2): {shown}. The minimum is then branch "
            f"{j + 1} at {vals[j]:.3g}, beside the template's branch {i + 1} at {totals[i]:.3g}.")


def _log_T_note(n, T, which) -> str:
    """Why Remark 4 and Theorem 7 (rate forms without L, mu) run T = ceil(ln n) while Theorem 1 may show another T."""
    T1 = schedule_T(n=n, L=1.0, mu=0.1)
    return (f"T = ceil(ln n) = {T}: {which} takes T = O(log(n)), as Kang, Li, Liu & Wang's Theorem 1 does, here with "
            f"constant 1 (this rate form has no L or mu). dpviz's Theorem 1 schedule with L and mu is the smallest T "
            f"with (1 - mu/L)^T <= 1/n (e.g. {T1} at n = {n}, mu/L = 0.1): both are O(log n), and the rate does not "
            "depend on the constant (logs and constants are dropped).")


def bound_remark4(*, n, d, eps, c=1.0) -> BoundResult:
    r"""Excess population risk rate of DP-SGD (Kang, Li, Liu & Wang (kang-pidp), Remark 4), with E[L*] = O(1/n):

    .. math:: O\Big(\min\Big\{\frac{m}{n^2\epsilon^2}+\frac1n,\ \frac{\sqrt m}{n^{1.5}\epsilon}
              + \frac{m^{1.5}}{n^{2.5}\epsilon^3}\Big\}\Big)

    (τ = O(1) and τ = √n ε/√m in m/(τn²ε²) + τm/(n²ε²) + 1/(τn); logs and constants dropped, constant ``c``).
    Returns the terms of the smaller branch; ``extras`` has both branch values.
    """
    n, d, eps, _ = _common(n, d, eps)
    c = v.check_positive("c", c)
    branches = _branches(n, d, eps, None, c, "remark4")
    totals = [sum(t.value for t in b) for b in branches]
    i = min(range(2), key=totals.__getitem__)
    taus = [1.0, math.sqrt(n) * eps / math.sqrt(d)]
    vals, j = _with_stability(n, c, totals, taus)
    T = max(1, math.ceil(math.log(n)))
    return _result("kang-pidp-remark4", branches[i], T=T,
                   notes=[f"branch {i + 1} (tau = {taus[i]:.4g}) is the smaller one; logs and constants dropped.",
                          _stability_note("Remark 4's template", i, totals, vals, j, taus),
                          _log_T_note(n, T, "Remark 4 (which combines Theorem 1 with Theorem 3)")],
                   extras={"branch": i + 1, "branch_values": totals, "tau": taus[i],
                           "corrected_branch_values": vals, "corrected_branch": j + 1, "corrected_total": vals[j]})


def _k(k, n):
    if k is None:
        return None
    k = v.check_int("k (number of data instances that affect the model significantly)", k)
    if k > n:
        raise ValueError(f"k (instances that affect the model significantly) cannot exceed n = {n}, got k = {k}.")
    return k


def bound_thm6(*, n, d, eps, delta, G=1.0, L=None, k=None, eps1=None, delta1=None, c=1.0,
               consistent_constants=False) -> BoundResult:
    r"""Excess empirical risk of PIDP-SGD (Kang, Li, Liu & Wang (kang-pidp), Theorem 6).

    .. math:: \mathbb E[L(\theta_{priv};D) - L^*] \le O\Big(\frac{kmG^2\log(1/\delta_1)\log n}{n^3\epsilon_1^2}\Big),
              \quad \eta = 1/L,\ T = O\Big(\log\frac{n^3\epsilon_1^2}{kmG^2}\Big),

    with k the number of significant instances (default k = n, which recovers Theorem 1's rate but not its value,
    since ε₁ = 3ε/4) and (ε₁, δ₁) the training budget (default 3ε/4, 3δ/4 as in ``pidp-sgd``).  One term ``privacy``; T = max(1, ⌈log(n³ε₁²/(kmG²))⌉).
    """
    n, d, eps, delta = _common(n, d, eps, delta)
    G = v.check_positive("G", G)
    c = v.check_positive("c", c)
    k_in = _k(k, n)
    k = n if k_in is None else k_in
    eps1 = 0.75 * eps if eps1 is None else v.check_eps(eps1, "eps1")
    delta1 = 0.75 * delta if delta1 is None else v.check_delta(delta1, "delta1")
    T = max(1, math.ceil(math.log(n**3 * eps1**2 / (k * d * G**2)))) if n**3 * eps1**2 > k * d * G**2 else 1
    c, cextras = _consistent_c(c, consistent_constants, n, eps1, delta1, G, T)
    val = c * k * d * G**2 * _ld(delta1) * math.log(n) / (n**3 * eps1**2)
    term = Term("privacy", val, -3.0 if k_in is not None else -2.0, -2.0,
                r"\frac{kmG^2\log(1/\delta_1)\log n}{n^3\epsilon_1^2}")
    if k_in is None:
        thm1 = c * d * G**2 * _ld(delta) * math.log(n) / (n**2 * eps**2)
        first = (f"k = n (every instance significant) recovers Theorem 1's rate m G^2 log(1/delta) log(n)/(n^2 eps^2), "
                 f"not its value: PIDP-SGD trains with (eps1, delta1) = ({eps1:.4g}, {delta1:.3g}), not (eps, delta) "
                 f"(pidp-sgd's 3:1 budget split), so this bound is {val:.4g} where Kang, Li, Liu & Wang's Theorem 1 "
                 f"gives {thm1:.4g} (a factor (eps/eps1)^2 log(1/delta1)/log(1/delta) = {val / thm1:.3g}).")
    else:
        first = f"k = {k} of n = {n} instances get noise (probability k/n per step)."
    notes = [first,
             f"Schedule (dpviz's reading): T = ceil(log(n^3 eps1^2/(k m G^2))) = {T} uses the proof's constant 1 and "
             f"ignores mu/L, so (1 - mu/L)^T need not be small; at k = n it is not Theorem 1's T (dpviz: the "
             f"smallest T with (1 - mu/L)^T <= 1/n)."]
    if cextras:
        notes.append(_CONSISTENT_NOTE.format(c2=c, ci=cextras["c_implied"]))
    return _result("kang-pidp-thm6", [term], eta=_eta_of(L), T=T, notes=notes,
                   extras={"k": k, "eps1": eps1, "delta1": delta1, **cextras})


def bound_thm7(*, n, d, eps, k=None, c=1.0) -> BoundResult:
    r"""Excess population risk of PIDP-SGD (Kang, Li, Liu & Wang (kang-pidp), Theorem 7; Remark 4's τ-template).

    Printed: :math:`O(\min\{\frac{km}{n^3\epsilon^2}+\frac1n, \frac{km}{n^{2.5}\epsilon^2}+\frac1{n^{1.5}},
    \frac{(km)^{1.5}}{n^2\epsilon^3}+\frac{\epsilon}{\sqrt{kmn}}\})` from τ = O(1), O(√n), O(nε/√(km)).  The third
    branch does not follow from its τ: with e = km/(n³ε²), e/τ + τe + 1/(τn) at τ = nε/√(km) is
    :math:`\frac{(km)^{1.5}}{n^4\epsilon^3} + \frac{2\sqrt{km}}{n^2\epsilon}`; dpviz uses that (constants dropped,
    see the theorem's discrepancy).  k defaults to n.  Returns the smallest branch's terms.
    """
    n, d, eps, _ = _common(n, d, eps)
    c = v.check_positive("c", c)
    k_in = _k(k, n)
    kk = n if k_in is None else k_in
    branches = _branches(n, d, eps, k_in, c, "thm7")
    totals = [sum(t.value for t in b) for b in branches]
    i = min(range(3), key=totals.__getitem__)
    taus = [1.0, math.sqrt(n), n * eps / math.sqrt(kk * d)]
    printed3 = c * ((kk * d) ** 1.5 / (n**2 * eps**3) + eps / math.sqrt(kk * d * n))
    vals, j = _with_stability(n, c, totals, taus)
    notes = [f"branch {i + 1} (tau = {taus[i]:.4g}) is the smallest; logs and constants dropped.",
             f"Third branch: printed (km)^1.5/(n^2 eps^3) + eps/sqrt(kmn) = {printed3:.3g}; derived from its tau "
             f"(dpviz's correction) (km)^1.5/(n^4 eps^3) + sqrt(km)/(n^2 eps) (constant 2 dropped) = {totals[2]:.3g}; "
             f"with the "
             f"stability term {vals[2]:.3g}.",
             _stability_note("Remark 4's template (used by Theorem 7)", i, totals, vals, j, taus)]
    T = max(1, math.ceil(math.log(n)))
    notes.append(_log_T_note(n, T, "Theorem 7"))
    return _result("kang-pidp-thm7", branches[i], T=T, notes=notes,
                   extras={"branch": i + 1, "branch_values": totals, "tau": taus[i], "k": kk,
                           "printed_branch3": printed3, "corrected_branch_values": vals,
                           "corrected_branch": j + 1, "corrected_total": vals[j]})


def bound_thm2(*, n, L, mu, G=1.0, excess_empirical=None, Lstar=None, tau=None, d=None, eps=None, delta=None,
               T=None, Delta0=1.0) -> BoundResult:
    r"""Generalization error of DP-SGD under the PL condition, Kang, Li, Liu & Wang (kang-pidp), Theorem 2, eq. (5).

    .. math:: \mathbb E[L_P(\theta_{priv}) - L(\theta_{priv};D)] \le \inf_{\tau>0}\Big\{\frac{8(\tau+L)}{\mu}e
              + \frac{16G^2(\tau+L)}{n^2\mu^2} + \frac{L\,\mathbb E[L(\theta_{priv};D)]}{\tau}\Big\},

    with e = E[L(θ_priv; D) − L*] and E[L(θ_priv; D)] = e + E[L*].  Explicit constants as printed.  ``e`` is
    ``excess_empirical`` if given, else Theorem 1's explicit bound (:func:`explicit_bound_thm1`, needs d, eps, delta);
    E[L*] = ``Lstar`` (default 1/n).  ``tau=None`` takes the minimiser τ* = √(L(e + E[L*])/(8e/μ + 16G²/(n²μ²))) of
    the τ-dependent part.  Bounds the generalization gap, not an excess risk.
    """
    n = v.check_n(n)
    G = v.check_positive("G", G)
    L, mu = _check_L_mu(L, mu)
    Lstar = 1.0 / n if Lstar is None else v.check_nonnegative("Lstar (expected minimal empirical risk)", Lstar)
    extras = {}
    if excess_empirical is None:
        if d is None or eps is None or delta is None:
            raise ValueError("Theorem 2 needs the excess empirical risk: give excess_empirical, or d, eps and delta "
                             "to take Theorem 1's explicit bound.")
        emp = explicit_bound_thm1(n=n, d=d, eps=eps, delta=delta, G=G, L=L, mu=mu, T=T, Delta0=Delta0)
        e = emp.total
        extras.update(emp.extras)
    else:
        e = v.check_nonnegative("excess_empirical", excess_empirical)
    b = 16.0 * G**2 / (n**2 * mu**2)
    if tau is None:
        A = 8.0 * e / mu + b
        tau = math.sqrt(L * (e + Lstar) / A) if A > 0 and e + Lstar > 0 else 1.0
    else:
        tau = v.check_positive("tau", tau)
    terms = [
        Term("optimisation", 8.0 * (tau + L) / mu * e, -2.0, -2.0, r"\frac{8(\tau+L)}{\mu}\mathbb E[L(\theta_{priv};D)-L^*]"),
        Term("stability", b * (tau + L), -2.0, 0.0, r"\frac{16G^2(\tau+L)}{n^2\mu^2}"),
        Term("statistical", L * (e + Lstar) / tau, -1.0, 0.0, r"\frac{L\,\mathbb E[L(\theta_{priv};D)]}{\tau}"),
    ]
    extras.update({"tau": tau, "Lstar": Lstar, "excess_empirical": e})
    return _result("kang-pidp-thm2", terms, eta=1.0 / L, notes=["Generalization gap E[L_P - L_D], eq. (5)."],
                   extras=extras, explicit=True)


def bound_thm4(*, n, G, L, zeta=None, mu=None, C_hess=0.0) -> BoundResult:
    r"""Influence-function approximation error, Kang, Li, Liu & Wang (kang-pidp), Theorem 4.

    .. math:: E = \|(\theta^*_{-z}-\theta^*) - c_z\|_2 \le \frac{1}{\zeta^2 n^2}\Big(2LG + \frac{CG^2}{\zeta}\Big)

    (:func:`if_error_bound`), as two terms ``smoothness`` 2LG/(ζ²n²) and ``hessian-lipschitz`` CG²/(ζ³n²).  Not a
    risk: how far the one-step influence estimate c_z of eq. (11) is from the true leave-one-out change.  ζ defaults
    to μ (as in ``pidp-sgd``).
    """
    n = v.check_n(n)
    G = v.check_positive("G", G)
    L = v.check_positive("L", L)
    if zeta is None:
        if mu is None:
            raise ValueError("Theorem 4 needs zeta, the lower bound on the Hessian (or mu, then zeta = mu).")
        zeta = mu
    zeta = v.check_positive("zeta (Hessian lower bound)", zeta)
    C_hess = v.check_nonnegative("C_hess (Hessian-Lipschitz constant)", C_hess)
    terms = [
        Term("smoothness", 2.0 * L * G / (zeta**2 * n**2), -2.0, 0.0, r"\frac{2LG}{\zeta^2n^2}"),
        Term("hessian-lipschitz", C_hess * G**2 / (zeta**3 * n**2), -2.0, 0.0, r"\frac{CG^2}{\zeta^3n^2}"),
    ]
    return _result("kang-pidp-thm4", terms, notes=["O(1/n^2): the influence estimate c_z is precise (Section 5.3)."],
                   explicit=True)


def bound_remark3(*, n, d, eps, delta, G=1.0, c=1.0) -> BoundResult:
    r"""The earlier excess empirical risk bound that Remark 3 of Kang, Li, Liu & Wang (kang-pidp) improves on.

    .. math:: O\Big(\frac{mG^2\log(1/\delta)\log^2 n}{n^2\epsilon^2}\Big)\quad\text{(their reference [43])},

    one factor log n above Theorem 1's :math:`O(mG^2\log(1/\delta)\log n/(n^2\epsilon^2))` ("T multiplied rudely to the
    noise term" vs a geometric sum).  ``extras['theorem1']`` is Theorem 1's rate at the same constant c and
    ``extras['factor']`` = log n.
    """
    n, d, eps, delta = _common(n, d, eps, delta)
    G = v.check_positive("G", G)
    c = v.check_positive("c", c)
    val = c * d * G**2 * _ld(delta) * math.log(n) ** 2 / (n**2 * eps**2)
    term = Term("privacy", val, -2.0, -2.0, r"\frac{mG^2\log(1/\delta)\log^2n}{n^2\epsilon^2}")
    return _result("kang-pidp-remark3", [term], notes=["Rate of reference [43] quoted in Remark 3; constants dropped."],
                   extras={"theorem1": _emp_rate(n, d, eps, delta, G, c), "factor": math.log(n)})


def time_complexity(*, n, d, rounds, T_local, efficient=False) -> float:
    r"""Time complexity of PIDP-SGD, Kang, Li, Liu & Wang (kang-pidp), Remark 8 (operations, constants dropped).

    :math:`R n m^2 + R T_{local} m` (the Hessian of each round costs n m²), or :math:`R n m + R T_{local} m` with the
    efficient influence-function computation Remark 8 cites (``efficient=True``).  m = d.
    """
    n = v.check_n(n)
    d = v.check_int("d (model dimension, the paper's m)", d)
    rounds = v.check_int("rounds (the paper's R)", rounds)
    T_local = v.check_int("T_local", T_local)
    per = n * d if efficient else n * d * d
    return float(rounds * per + rounds * T_local * d)
