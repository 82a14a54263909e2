"""Yang, Lei, Lyu & Ying (yang-pairwise): the bounds -- Theorem 1's entries, Theorems 2, 3 and 5 (schedules and terms)
and Corollaries 1-4 (§4: AUC maximisation and similarity metric learning).
"""

from __future__ import annotations

import math
from fractions import Fraction

from dpviz.foundation import validate as v
from dpviz.theory.catalog import Term
from dpviz.theory.papers._common import ceil_pow, check_gamma as _gamma, gamma_from as _gamma_from
from dpviz.theory.papers.yang_pairwise.calibration import (_check_bool, _result, _sqrt_sum_bound, c1_constant,
                                                           c2_constant, c3_constant, c4_constant, c5_constant,
                                                           calibrate_pairwise_sgd_output, sensitivity, stability_eq3)


# Theorem 1 entries


def bound_thm1(*, n, T, eta, gamma=None, delta=None, c=1.0):
    r"""Rate form of the stability of Algorithm 1, Yang, Lei, Lyu & Ying (yang-pairwise), Theorem 1 (the ε_stab statement, T >= n).

    .. math:: \epsilon_{stab} = \tilde O\Big(\eta\sqrt T + \frac{\eta T\ln T}{n}\Big),

    each term multiplied by ``c``.  ``gamma`` defaults to δ/2 (the choice of Theorem 4); it only enters the explicit
    form.  Exponents are those of n and ε at fixed T and η.
    """
    n = v.check_n(n)
    T = v.check_int("T", T)
    eta = v.check_positive("eta", eta)
    c = v.check_positive("c", c)
    gamma = None if gamma is None and delta is None else _gamma_from(gamma, delta)
    terms = [
        Term("iteration", c * eta * math.sqrt(T), 0.0, 0.0, r"\eta\sqrt T"),
        Term("sampling", c * eta * T * math.log(T) / n, -1.0, 0.0, r"\frac{\eta T\ln T}{n}"),
    ]
    notes = ["Uniform argument stability of the averaged output, up to constants and log(1/gamma) factors."]
    if T < n:
        notes.append(f"T = {T} < n = {n}: the epsilon_stab statement assumes T >= n.")
    return _result("yang-pairwise-thm1", terms, eta=eta, T=T, notes=notes, extras={"gamma": gamma})


def explicit_bound_thm1(*, n, T, eta, G, gamma=None, delta=None, corrected=False):
    r"""Explicit stability of the averaged output, Yang, Lei, Lyu & Ying (yang-pairwise), Theorem 1, eq. (9) (proof in §3.1).

    .. math:: \|\bar w_T-\bar w'_T\|_2 \le \Delta_T = 2\sqrt e\,\eta G\Big(T+\frac{3T^2\ln^2(eT)\ln^2(1/\gamma)}{n^2}
              \Big)^{1/2}\quad\text{w.p. } 1-\gamma,\ T\ge n.

    Terms: ``iteration`` = :math:`2\sqrt{e}\eta G\sqrt T`, ``sampling`` = :math:`2\sqrt{3e}\eta G T\ln(eT)\ln(1/\gamma)/n`;
    ``total`` is Δ_T itself (<= their sum).  ``extras['eq3']`` is the square root of eq. (3) at t = T.  γ defaults to
    δ/2.  ``corrected=True``: the bound re-derived from the proof (see :func:`sensitivity`), any T.
    """
    n = v.check_n(n)
    T = v.check_int("T", T)
    eta = v.check_positive("eta", eta)
    G = v.check_positive("G", G)
    gamma = _gamma_from(gamma, delta)
    corrected = _check_bool("corrected", corrected)
    a = math.log(1.0 / gamma)
    Delta = sensitivity(n=n, T=T, eta=eta, G=G, gamma=gamma, corrected=corrected)
    first = 2.0 * math.sqrt(math.e) * eta * G * math.sqrt(T)
    second = math.sqrt(max(0.0, Delta**2 - first**2))
    terms = [
        Term("iteration", first, 0.0, 0.0, r"2\sqrt e\,\eta G\sqrt T"),
        Term("sampling", second, -1.0, 0.0,
             r"2\sqrt{3e}\,\eta G\frac{T\ln(eT)\ln(1/\gamma)}{n}" if not corrected else r"2\sqrt e\,\eta G c"),
    ]
    eq3 = math.sqrt(stability_eq3(n=n, t=T, eta=eta, G=G, gamma=gamma))
    notes = ["total = Delta_T = sqrt(iteration^2 + sampling^2)."]
    if not corrected and Delta < eq3:
        notes.append(f"Eq. (9) ({Delta:.4g}) is below eq. (3) at t = T ({eq3:.4g}): the step (3) -> (9) fails for T near n.")
    return _result("yang-pairwise-thm1", terms, eta=eta, T=T, notes=notes, explicit=True, total=Delta,
                   extras={"gamma": gamma, "eq3": eq3, "log_inv_gamma": a})


# ----------------------------------------------------------------------------------------------------------------
# Theorems 2, 3, 5: schedules and terms


def _sched_bounded(n, T, eta, c_eta):
    """T = n², η = c_eta n^{-3/2} (Theorems 2, 5 and Corollaries 1–4) unless given."""
    T = n * n if T is None else v.check_int("T", T)
    eta = c_eta * n**-1.5 if eta is None else v.check_positive("eta", eta)
    return T, eta


def _common_inputs(n, gamma, c, c_eta):
    n = v.check_n(n)
    gamma = _gamma(gamma)
    c = v.check_positive("c", c)
    c_eta = v.check_positive("c_eta (the constant of the step size)", c_eta)
    return n, gamma, c, c_eta


def _stab_terms(n, T, eta, second_log, c1, *, tex_second, tex_first=r"c_1\eta\lceil\ln n\rceil\sqrt T"):
    """c1 η ⌈ln n⌉ √T and c1 η ⌈ln n⌉ √3 T ln(eT) second_log / n (Theorem 1's eq. (9) reading)."""
    cl = math.ceil(math.log(n))
    return [
        Term("stability", c1 * eta * cl * math.sqrt(T), 0.0, 0.0, tex_first),
        Term("stability-sampling", c1 * eta * cl * math.sqrt(3.0) * T * math.log(math.e * T) * second_log / n,
             -1.0, 0.0, tex_second),
    ]


def _sampling_readings(n, T, eta, second_log, c1, *, theorem, printed_tex, printed_value):
    """Both readings of the last term of Theorems 2 and 5 (Yang, Lei, Lyu & Ying (yang-pairwise)): the one dpviz uses
    (Theorem 1's eq. (9)) and the one the statement prints; returns (extras entry, note)."""
    cl = math.ceil(math.log(n))
    used = c1 * eta * cl * math.sqrt(3.0) * T * math.log(math.e * T) * second_log / n
    printed = c1 * eta * cl * printed_value
    log_tex = "ln(6/gamma)" if theorem == "Theorem 2" else "ln(2/delta)"
    readings = [
        {"label": "from the proof, eq. (9) (used)", "value": used,
         "formula": f"c1 eta ceil(ln n) sqrt(3) T ln(eT) {log_tex} / n"},
        {"label": "as printed in " + theorem, "value": printed, "formula": printed_tex},
    ]
    note = (
        f"The stability-sampling term uses the reading of Yang, Lei, Lyu & Ying's Theorem 1, eq. (9): "
        f"c1 eta ceil(ln n) sqrt(3) T ln(eT) {log_tex} / n = {used:.4g}. {theorem} prints {printed_tex} = "
        f"{printed:.4g}. dpviz uses the first because eq. (9), the sensitivity its proof uses, is "
        "Delta_T^2 <= 4e eta^2 G^2 (T + 3 T^2 ln^2(eT) ln^2(1/gamma)/n^2), whose square root is at most "
        "2 sqrt(e) eta G (sqrt(T) + sqrt(3) T ln(eT) ln(1/gamma)/n), linear in T as Theorem 1's rate eta T ln(T)/n; "
        "only this reading gives Theorem 2's stated rate ln^2(n)/sqrt(n) at T = n^2 (Theorem 5 repeats the term)."
    )
    return readings, note


def _thm2_terms(n, T, eta, gamma, G, D, M0, rad, *, explicit, c=1.0):
    """Terms of Theorem 2 (and the non-private part of Theorem 5)."""
    if explicit:
        c1 = c1_constant(G=G, gamma=gamma)
        c2 = c2_constant(G=G, M0=M0, D=D)
        gen = 4.0 * rad * _sqrt_sum_bound(T) / T
        opt = D**2 / (2.0 * T * eta) + eta * G**2 / 2.0
    else:
        c1 = c * math.log(6.0 * math.e / gamma)
        c2 = c
        gen = c / math.sqrt(T)
        opt = c * (1.0 / (T * eta) + eta)
    stat = c2 * math.sqrt(math.log(6.0 * T / gamma) / n)
    if explicit:
        tex = (r"\frac4T\sum_{t=1}^T\mathcal R_t(\ell\circ\mathcal W)", r"\frac{D^2}{2T\eta}+\frac{\eta G^2}{2}",
               r"c_2\sqrt{\frac{\ln(6T/\gamma)}{n}}")
    else:  # the rate form's values: G = D = M = 1, every absolute constant (and c_2) replaced by c
        tex = (r"\frac{1}{\sqrt T}", r"\frac{1}{T\eta}+\eta", r"\sqrt{\frac{\ln(6T/\gamma)}{n}}")
    return c1, [
        Term("generalisation", gen, 0.0, 0.0, tex[0]),
        Term("optimisation", opt, 0.0, 0.0, tex[1]),
        Term("statistical", stat, -0.5, 0.0, tex[2]),
    ]


def _with_schedule_exponents(terms, exps):
    """Replace the exponents by those of the prescribed schedule (rate forms)."""
    return [Term(t.name, t.value, exps.get(t.name, (t.n_exp, t.eps_exp))[0], exps.get(t.name, (t.n_exp, t.eps_exp))[1],
                 t.latex) for t in terms]


def _gamma_note(gamma, d, delta):
    lo = max(4.0 * delta, math.exp(-d / 8.0))
    if gamma <= lo:
        return [f"Theorem 5 holds for gamma in (max(4 delta, exp(-d/8)), 1) = ({lo:.3g}, 1); gamma = {gamma:g} is "
                "outside: the bound is evaluated formally."]
    return []


#: The rate forms keep c_1's factor ln(6e/gamma) (Theorems 2 and 5): c_1 = c ln(6e/gamma).
_TEX_RATE_L6 = r"\ln\frac{6e}{\gamma}\,"
_TEX_RATE_STAB = _TEX_RATE_L6 + r"\eta\lceil\ln n\rceil\sqrt T"
_RATE_NOTE = ("Rate form: G = D = M = 1 and every absolute constant set to c; c_1 = c ln(6e/gamma) keeps its factor "
              "ln(6e/gamma), c_2 = c")

_EXP_T2 = {  # n, eps exponents under T = n^2, eta ∝ n^{-3/2}
    "generalisation": (-1.0, 0.0),
    "optimisation": (-0.5, 0.0),
    "statistical": (-0.5, 0.0),
    "stability": (-0.5, 0.0),
    "stability-sampling": (-0.5, 0.0),
    "privacy": (-0.5, -1.0),
}


def bound_thm2(*, n, gamma=0.05, c=1.0, c_eta=1.0):
    r"""Excess risk of Algorithm 1 on a bounded domain, rate form, Yang, Lei, Lyu & Ying (yang-pairwise), Theorem 2.

    Schedule: T = n², η = c_η n^{-3/2}, with :math:`\mathcal R_t(\ell\circ\mathcal W)=O(1/\sqrt t)`.  Terms (the
    structure of Theorem 2 with G = D = M = 1 and every absolute constant replaced by ``c``):

    .. math:: \underbrace{\frac{1}{\sqrt T}}_{\rm generalisation}+\underbrace{\frac{1}{T\eta}+\eta}_{\rm optimisation}
              +\underbrace{\sqrt{\frac{\ln(6T/\gamma)}{n}}}_{\rm statistical}
              +\underbrace{\eta\lceil\ln n\rceil\ln\frac{6e}{\gamma}\Big(\sqrt T+\frac{\sqrt3T\ln(eT)\ln(6/\gamma)}{n}
              \Big)}_{\rm stability}
              = \tilde O\Big(\frac{\ln^2 n}{\sqrt n}\Big).

    Exponents are those of n under the schedule.  Gradient complexity T(T+1)/2 = O(n⁴).
    """
    n, gamma, c, c_eta = _common_inputs(n, gamma, c, c_eta)
    T, eta = _sched_bounded(n, None, None, c_eta)
    c1, terms = _thm2_terms(n, T, eta, gamma, 1.0, 1.0, 1.0, 1.0, explicit=False, c=c)
    terms += _stab_terms(n, T, eta, math.log(6.0 / gamma), c1, tex_first=_TEX_RATE_STAB,
                         tex_second=_TEX_RATE_L6 + r"\eta\lceil\ln n\rceil\frac{\sqrt3T\ln(eT)\ln(6/\gamma)}{n}")
    terms = _with_schedule_exponents(terms, _EXP_T2)
    return _result("yang-pairwise-thm2", terms, eta=eta, T=T, extras={"gamma": gamma},
                   notes=[_RATE_NOTE + "; with probability 1 - gamma."])


def _T_thm3(n: int) -> int:
    """T = ⌈n^{4/3}⌉ (Theorem 3), exactly (floating point gives 1000^{4/3} = 9999.999999999995)."""
    return ceil_pow(n, Fraction(4, 3))


def _explicit_inputs(n, T, eta, G, R, M0, gamma, kappa, rademacher, c_eta):
    n = v.check_n(n)
    gamma = _gamma(gamma)
    G = v.check_positive("G", G)
    R = v.check_positive("R", R)
    M0 = v.check_nonnegative("M0 (sup of the loss at w = 0)", M0)
    kappa = v.check_positive("kappa (sup of ||x||)", kappa)
    c_eta = v.check_positive("c_eta (the constant of the step size)", c_eta)
    T, eta = _sched_bounded(n, T, eta, c_eta)
    if rademacher is None:
        rad = 4.0 * G * R * kappa
    else:
        rad = v.check_nonnegative("rademacher (B in R_t <= B/sqrt(t))", rademacher)
    return n, T, eta, G, R, M0, gamma, rad


def explicit_bound_thm2(*, n, G, R, T=None, eta=None, M0=1.0, gamma=0.05, kappa=1.0, rademacher=None, c_eta=1.0):
    r"""Excess risk of Algorithm 1 with the explicit constants, Yang, Lei, Lyu & Ying (yang-pairwise), Theorem 2 (W ⊆ B(0, R),
    diameter D = 2R, T >= n).  With probability 1 − γ,

    .. math:: \epsilon_{risk}(\bar w_T)\le\frac4T\sum_{t=1}^T\mathcal R_t(\ell\circ\mathcal W)+\frac{D^2}{2T\eta}
              +\frac{\eta G^2}{2}+c_2\sqrt{\frac{\ln(6T/\gamma)}{n}}
              +c_1\eta\lceil\ln n\rceil\Big(\sqrt T+\frac{\sqrt3\,T\ln(eT)\ln(6/\gamma)}{n}\Big),

    :math:`c_1=100\sqrt6e^{3/2}G\max\{1,G\}\ln(6e/\gamma)`, :math:`c_2=(6+19e)(M+GD)`.  The last term is printed as
    :math:`\sqrt{3T\ln(eT)\ln(6/\gamma)}/n`; dpviz uses :math:`\sqrt3T\ln(eT)\ln(6/\gamma)/n` (see the theorem's
    discrepancy).  The Rademacher complexity is :math:`\mathcal R_t\le B/\sqrt t` with B = ``rademacher``, by default
    the AUC value :math:`B=4GR\kappa` of Lemma 4 (Ledoux–Talagrand), and :math:`\sum_t t^{-1/2}\le2\sqrt T-1`.
    ``T``/``eta`` default to the schedule T = n², η = c_η n^{-3/2}.  ``M0`` is the paper's M = sup ℓ(0, z, z').
    """
    n, T, eta, G, R, M0, gamma, rad = _explicit_inputs(n, T, eta, G, R, M0, gamma, kappa, rademacher, c_eta)
    D = 2.0 * R
    c1, terms = _thm2_terms(n, T, eta, gamma, G, D, M0, rad, explicit=True)
    terms += _stab_terms(n, T, eta, math.log(6.0 / gamma), c1,
                         tex_second=r"c_1\eta\lceil\ln n\rceil\frac{\sqrt3T\ln(eT)\ln(6/\gamma)}{n}")
    readings, note = _sampling_readings(
        n, T, eta, math.log(6.0 / gamma), c1, theorem="Theorem 2",
        printed_tex="c1 eta ceil(ln n) sqrt(3 T ln(eT) ln(6/gamma)) / n",
        printed_value=math.sqrt(3.0 * T * math.log(math.e * T) * math.log(6.0 / gamma)) / n)
    notes = [note]
    if T < n:
        notes.append(f"T = {T} < n = {n}: Theorem 2 assumes T >= n; evaluated formally.")
    return _result("yang-pairwise-thm2", terms, eta=eta, T=T, explicit=True, notes=notes,
                   extras={"gamma": gamma, "c1": c1, "c2": c2_constant(G=G, M0=M0, D=D), "D": D, "rademacher_B": rad,
                           "sampling_readings": readings})


def bound_thm3(*, n, gamma=0.05, c=1.0, c_eta=1.0):
    r"""Excess risk of Algorithm 1 on an unbounded domain, rate form, Yang, Lei, Lyu & Ying (yang-pairwise), Theorem 3.

    Schedule: T = ⌈n^{4/3}⌉, η = c_η n^{-1}, with :math:`\mathcal R_t(\ell\circ\mathcal W_t)=O(\eta\sqrt t)`,
    :math:`\mathcal R_t(\ell\circ\mathcal W_D)=O(1/\sqrt t)`.  Terms (constants G, D, M, c₁…c₅ set to ``c``):

    .. math:: \underbrace{\eta\sqrt T+\frac1{\sqrt T}}_{\rm generalisation}+\underbrace{\frac1{T\eta}+\eta}_{\rm optimisation}
              +\underbrace{\sqrt{\eta\ln(6T/\gamma)}+\sqrt{\frac{\eta T\ln(6e/\gamma)}n}}_{\rm unbounded\text{-}domain}
              +\underbrace{\sqrt{\frac{\ln(6T/\gamma)}n}}_{\rm statistical}
              +\underbrace{\eta\lceil\ln n\rceil\ln\frac{6e}\gamma\Big(\sqrt T+\frac{4T\ln(eT)\sqrt{\ln(6n/\gamma)}}n\Big)}
              _{\rm stability} = \tilde O\Big(\frac{\ln^2n}{n^{1/3}}\Big).
    """
    n, gamma, c, c_eta = _common_inputs(n, gamma, c, c_eta)
    T = _T_thm3(n)
    eta = c_eta / n
    cl = math.ceil(math.log(n))
    l6 = math.log(6.0 * math.e / gamma)
    terms = [
        Term("generalisation", c * (eta * math.sqrt(T) + 1.0 / math.sqrt(T)), -1.0 / 3.0, 0.0,
             r"\eta\sqrt T+\frac1{\sqrt T}"),
        Term("optimisation", c * (1.0 / (T * eta) + eta), -1.0 / 3.0, 0.0, r"\frac1{T\eta}+\eta"),
        Term("unbounded-domain", c * (math.sqrt(eta * math.log(6.0 * T / gamma)) + math.sqrt(eta * T * l6 / n)),
             -1.0 / 3.0, 0.0, r"\sqrt{\eta\ln(6T/\gamma)}+\sqrt{\frac{\eta T\ln(6e/\gamma)}{n}}"),
        Term("statistical", c * math.sqrt(math.log(6.0 * T / gamma) / n), -0.5, 0.0, r"\sqrt{\frac{\ln(6T/\gamma)}{n}}"),
        Term("stability", c * l6 * eta * cl * math.sqrt(T), -1.0 / 3.0, 0.0, r"\eta\lceil\ln n\rceil\sqrt T"),
        Term("stability-sampling", c * l6 * eta * cl * 4.0 * T * math.log(math.e * T) * math.sqrt(
            math.log(6.0 * n / gamma)) / n, -2.0 / 3.0, 0.0, r"\eta\lceil\ln n\rceil\frac{4T\ln(eT)\sqrt{\ln(6n/\gamma)}}{n}"),
    ]
    return _result("yang-pairwise-thm3", terms, eta=eta, T=T, extras={"gamma": gamma},
                   notes=["Rate form: constants set to c; R stands for ||w*|| (unbounded domain)."])


def explicit_bound_thm3(*, n, G, R, T=None, eta=None, M0=1.0, gamma=0.05, kappa=1.0, c_eta=1.0):
    r"""Excess risk of Algorithm 1 on W = R^d with the explicit constants, Yang, Lei, Lyu & Ying (yang-pairwise), Theorem 3
    (D = ||w*|| taken as ``R``, T >= n).  With probability 1 − γ,

    .. math:: \epsilon_{risk}(\bar w_T)\le\frac2T\sum_{t=1}^T\big(\mathcal R_t(\ell\circ\mathcal W_t)
              +\mathcal R_t(\ell\circ\mathcal W_D)\big)+\frac{D^2}{2T\eta}+\frac{\eta G^2}{2}
              +c_4\sqrt{\eta\ln(6T/\gamma)}+c_5\sqrt{\frac{\eta T\ln(6e/\gamma)}{n}}+c_3\sqrt{\frac{\ln(6T/\gamma)}{n}}
              +c_1\eta\lceil\ln n\rceil\Big(\sqrt T+\frac{4T\ln(eT)\sqrt{\ln(6n/\gamma)}}{n}\Big),

    :math:`c_3=(7+12\sqrt2e)M+4GD+16eG`, :math:`c_4=3G\sqrt{G^2+2M}`, :math:`c_5=12\sqrt2eG\sqrt{G^2+2M}`.
    The Rademacher terms are evaluated for AUC maximisation (Lemma 4 with Ledoux–Talagrand: a ball of radius r gives
    :math:`4Gr\kappa/\sqrt t`): :math:`\mathcal W_D` has r = D and :math:`\mathcal W_t` has
    :math:`r=\sqrt{(G^2+2M)\eta t}` (the iterate bound; the text prints G² + M, the constants c₄, c₅ use G² + 2M),
    so the first sum is at most :math:`8G\kappa\big(\sqrt{(G^2+2M)\eta}+D(2\sqrt T-1)/T\big)`.
    ``T``/``eta`` default to T = ⌈n^{4/3}⌉, η = c_η/n.
    """
    n = v.check_n(n)
    gamma = _gamma(gamma)
    G = v.check_positive("G", G)
    D = v.check_positive("R", R)
    M0 = v.check_nonnegative("M0 (sup of the loss at w = 0)", M0)
    kappa = v.check_positive("kappa (sup of ||x||)", kappa)
    c_eta = v.check_positive("c_eta (the constant of the step size)", c_eta)
    T = _T_thm3(n) if T is None else v.check_int("T", T)
    eta = c_eta / n if eta is None else v.check_positive("eta", eta)
    c1 = c1_constant(G=G, gamma=gamma)
    c3 = c3_constant(G=G, M0=M0, D=D)
    c4 = c4_constant(G=G, M0=M0)
    c5 = c5_constant(G=G, M0=M0)
    cl = math.ceil(math.log(n))
    gen = 8.0 * G * kappa * (math.sqrt((G**2 + 2.0 * M0) * eta) + D * _sqrt_sum_bound(T) / T)
    terms = [
        Term("generalisation", gen, 0.0, 0.0,
             r"\frac2T\sum_t\big(\mathcal R_t(\ell\circ\mathcal W_t)+\mathcal R_t(\ell\circ\mathcal W_D)\big)"),
        Term("optimisation", D**2 / (2.0 * T * eta) + eta * G**2 / 2.0, 0.0, 0.0, r"\frac{D^2}{2T\eta}+\frac{\eta G^2}{2}"),
        Term("unbounded-domain", c4 * math.sqrt(eta * math.log(6.0 * T / gamma))
             + c5 * math.sqrt(eta * T * math.log(6.0 * math.e / gamma) / n), -0.5, 0.0,
             r"c_4\sqrt{\eta\ln(6T/\gamma)}+c_5\sqrt{\frac{\eta T\ln(6e/\gamma)}{n}}"),
        Term("statistical", c3 * math.sqrt(math.log(6.0 * T / gamma) / n), -0.5, 0.0, r"c_3\sqrt{\frac{\ln(6T/\gamma)}{n}}"),
        Term("stability", c1 * eta * cl * math.sqrt(T), 0.0, 0.0, r"c_1\eta\lceil\ln n\rceil\sqrt T"),
        Term("stability-sampling", c1 * eta * cl * 4.0 * T * math.log(math.e * T) * math.sqrt(math.log(6.0 * n / gamma))
             / n, -1.0, 0.0, r"c_1\eta\lceil\ln n\rceil\frac{4T\ln(eT)\sqrt{\ln(6n/\gamma)}}{n}"),
    ]
    notes = ["AUC maximisation Rademacher bounds (Lemma 4); R stands for ||w*||."]
    if T < n:
        notes.append(f"T = {T} < n = {n}: Theorem 3 assumes T >= n; evaluated formally.")
    return _result("yang-pairwise-thm3", terms, eta=eta, T=T, explicit=True, notes=notes,
                   extras={"gamma": gamma, "c1": c1, "c3": c3, "c4": c4, "c5": c5})


def _privacy_rate(n, d, eps, delta, T, eta):
    """√d σ up to constants: √d η sqrt(ln(2.5/δ)) (√T + T ln(eT) ln(2/δ)/n)/ε."""
    return math.sqrt(d) * eta * math.sqrt(math.log(2.5 / delta)) * (
        math.sqrt(T) + T * math.log(math.e * T) * math.log(2.0 / delta) / n) / eps


def bound_thm5(*, n, d, eps, delta, gamma=0.05, c=1.0, c_eta=1.0):
    r"""Utility of Algorithm 2 (output perturbation), rate form, Yang, Lei, Lyu & Ying (yang-pairwise), Theorem 5.

    Schedule T = n², η = c_η n^{-3/2}, σ from eq. (5).  Terms: those of :func:`bound_thm2` (the stability-sampling
    term with ln(2/δ) in place of ln(6/γ)) plus

    .. math:: \underbrace{\sqrt d\,\eta\sqrt{\ln(2.5/\delta)}\Big(\sqrt T+\frac{T\ln(eT)\ln(2/\delta)}{n}\Big)\Big/
              \epsilon}_{\rm privacy\ \propto\ G\sigma\sqrt d}
              = \tilde O\Big(\frac{\sqrt d}{\sqrt n\,\epsilon}\Big),

    every constant set to ``c``.  The statement prints :math:`\tilde O(\sqrt d/\sqrt{n\epsilon})`; σ ∝ 1/ε in eq. (5)
    gives the ε exponent −1 used here (see the theorem's discrepancy).
    """
    n, gamma, c, c_eta = _common_inputs(n, gamma, c, c_eta)
    d = v.check_int("d", d)
    eps = v.check_eps(eps)
    delta = v.check_delta(delta)
    T, eta = _sched_bounded(n, None, None, c_eta)
    c1, terms = _thm2_terms(n, T, eta, gamma, 1.0, 1.0, 1.0, 1.0, explicit=False, c=c)
    terms += _stab_terms(n, T, eta, math.log(2.0 / delta), c1, tex_first=_TEX_RATE_STAB,
                         tex_second=_TEX_RATE_L6 + r"\eta\lceil\ln n\rceil\frac{\sqrt3T\ln(eT)\ln(2/\delta)}{n}")
    terms.append(Term("privacy", c * _privacy_rate(n, d, eps, delta, T, eta), -0.5, -1.0,
                      r"\frac{\sqrt d\,\eta\sqrt{\ln(2.5/\delta)}}{\epsilon}\Big(\sqrt T+\frac{T\ln(eT)\ln(2/\delta)}{n}\Big)"))
    terms = _with_schedule_exponents(terms, _EXP_T2)
    notes = _gamma_note(gamma, d, delta) + [_RATE_NOTE + "."]
    return _result("yang-pairwise-thm5", terms, eta=eta, T=T, notes=notes, extras={"gamma": gamma})


def explicit_bound_thm5(*, n, d, eps, delta, G, R, T=None, eta=None, M0=1.0, gamma=0.05, kappa=1.0, rademacher=None,
                        c_eta=1.0, corrected=False):
    r"""Utility of Algorithm 2 with the explicit constants, Yang, Lei, Lyu & Ying (yang-pairwise), Theorem 5 (W ⊆ B(0, R),
    diameter D = 2R).  For γ ∈ (max{4δ, e^{−d/8}}, 1), with probability 1 − γ,

    .. math:: \epsilon_{risk}(w_{priv})\le\frac4T\sum_{t=1}^T\mathcal R_t(\ell\circ\mathcal W)+\frac{D^2}{2T\eta}
              +\frac{\eta G^2}{2}+c_2\sqrt{\frac{\ln(6T/\gamma)}{n}}+2G\sigma\sqrt d\ln^{1/4}(4/\gamma)
              +c_1\eta\lceil\ln n\rceil\Big(\sqrt T+\frac{\sqrt3\,T\ln(eT)\ln(2/\delta)}{n}\Big),

    with c₁, c₂ as in Theorem 2 and σ from :func:`calibrate_pairwise_sgd_output` (eq. (5) with the factor e of its
    proof; ``corrected`` as there).  The last term is printed :math:`\sqrt{3T}\ln(eT)\ln(2/\delta)/n`; dpviz uses
    :math:`\sqrt3T\ln(eT)\ln(2/\delta)/n`, matching Theorem 1 (see the discrepancy).  Rademacher complexity as in
    :func:`explicit_bound_thm2`.
    """
    eps = v.check_eps(eps)
    delta = v.check_delta(delta)
    d = v.check_int("d", d)
    n, T, eta, G, R, M0, gamma, rad = _explicit_inputs(n, T, eta, G, R, M0, gamma, kappa, rademacher, c_eta)
    D = 2.0 * R
    c1, terms = _thm2_terms(n, T, eta, gamma, G, D, M0, rad, explicit=True)
    terms += _stab_terms(n, T, eta, math.log(2.0 / delta), c1,
                         tex_second=r"c_1\eta\lceil\ln n\rceil\frac{\sqrt3T\ln(eT)\ln(2/\delta)}{n}")
    readings, note = _sampling_readings(
        n, T, eta, math.log(2.0 / delta), c1, theorem="Theorem 5",
        printed_tex="c1 eta ceil(ln n) sqrt(3T) ln(eT) ln(2/delta) / n",
        printed_value=math.sqrt(3.0 * T) * math.log(math.e * T) * math.log(2.0 / delta) / n)
    cal = calibrate_pairwise_sgd_output(n=n, eps=eps, delta=delta, T=T, eta=eta, G=G, corrected=corrected)
    notes = _gamma_note(gamma, d, delta) + [note]
    if not cal.feasible:
        raise ValueError(f"Algorithm 2 cannot be calibrated at these values: {cal.reason}; {cal.fix}.")
    sigma = cal.extras["sigma_paper"]  # the theorem is stated for the paper's (Lemma 2) sigma
    if not cal.extras["paper_sigma_private"]:
        cal.notes.append("Theorem 5 is evaluated with the paper's sigma, which is not (eps, delta)-DP here; the "
                         f"private sigma is {cal.extras['sigma_private']:.4g}.")
    terms.append(Term("privacy", 2.0 * G * sigma * math.sqrt(d) * math.log(4.0 / gamma) ** 0.25, 0.0, -1.0,
                      r"2G\sigma\sqrt d\ln^{1/4}(4/\gamma)"))
    return _result("yang-pairwise-thm5", terms, eta=eta, T=T, explicit=True, notes=notes + cal.notes,
                   extras={"gamma": gamma, "c1": c1, "sigma": sigma, "sigma_private": cal.extras["sigma_private"],
                           "D": D, "rademacher_B": rad, "sampling_readings": readings})


# ----------------------------------------------------------------------------------------------------------------
# Corollaries 1–4 (§4: AUC maximisation and similarity metric learning)


def _cor_inputs(n, c, c_eta):
    n = v.check_n(n)
    c = v.check_positive("c", c)
    c_eta = v.check_positive("c_eta (the constant of the step size)", c_eta)
    return n, c, n * n, c_eta * n**-1.5


def bound_cor1(*, n, kappa=1.0, c=1.0, c_eta=1.0):
    r"""AUC maximisation with Algorithm 1, Yang, Lei, Lyu & Ying (yang-pairwise), Corollary 1 (Theorem 2 + Lemma 4).

    Problem (10): hinge loss :math:`(1-w^\top(x-x'))_+\mathbb I[y=1,y'=-1]`, κ = sup ||x||.  Schedule T = n²,
    η = c_η n^{-3/2}.  With high probability

    .. math:: \epsilon_{risk}(\bar w_T)=\tilde O\Big(\sqrt{\frac\kappa n}\Big),

    one term ``statistical`` = c·sqrt(κ/n) (logarithmic factors hidden, as printed).
    """
    n, c, T, eta = _cor_inputs(n, c, c_eta)
    kappa = v.check_positive("kappa (sup of ||x||)", kappa)
    terms = [Term("statistical", c * math.sqrt(kappa / n), -0.5, 0.0, r"\sqrt{\frac{\kappa}{n}}")]
    return _result("yang-pairwise-cor1", terms, eta=eta, T=T, extras={"kappa": kappa},
                   notes=["AUC maximisation (problem (10)); logarithmic factors hidden (O-tilde)."])


def bound_cor2(*, n, d, eps, kappa=1.0, c=1.0, c_eta=1.0):
    r"""AUC maximisation with Algorithm 2, Yang, Lei, Lyu & Ying (yang-pairwise), Corollary 2 (Theorem 5 + Lemma 4).

    Schedule T = n², η = c_η n^{-3/2}, σ from eq. (5).  Printed: :math:`\tilde O(\sqrt{\kappa d}/\sqrt{n\epsilon})`.
    dpviz returns the terms Theorem 5 supports: ``privacy`` = c·sqrt(κd)/(√n ε) (σ ∝ 1/ε in eq. (5), so the ε exponent
    is −1, as in the paper's conclusion) and the non-private ``statistical`` = c·sqrt(κ/n) of Corollary 1.
    """
    n, c, T, eta = _cor_inputs(n, c, c_eta)
    d = v.check_int("d", d)
    eps = v.check_eps(eps)
    kappa = v.check_positive("kappa (sup of ||x||)", kappa)
    terms = [
        Term("statistical", c * math.sqrt(kappa / n), -0.5, 0.0, r"\sqrt{\frac{\kappa}{n}}"),
        Term("privacy", c * math.sqrt(kappa * d) / (math.sqrt(n) * eps), -0.5, -1.0,
             r"\frac{\sqrt{\kappa d}}{\sqrt n\,\epsilon}"),
    ]
    return _result("yang-pairwise-cor2", terms, eta=eta, T=T,
                   extras={"kappa": kappa, "privacy_as_printed": c * math.sqrt(kappa * d / (n * eps))},
                   notes=["AUC maximisation (problem (10)); logarithmic factors hidden (O-tilde)."])


def bound_cor3(*, n, d, chi=1.0, c=1.0, c_eta=1.0):
    r"""Similarity metric learning with Algorithm 1, Yang, Lei, Lyu & Ying (yang-pairwise), Corollary 3 (Theorem 2 + Lemma 5).

    Problem (11): hinge loss :math:`(1+\tau(y,y')(x-x')^\top w(x-x'))_+`, w ∈ R^{d×d} in a nuclear-norm ball,
    :math:`\chi=\|\mathbb E[\|X\|_2^2XX^\top]\|_{S_\infty}`.  Schedule T = n², η = c_η n^{-3/2}.  Printed:

    .. math:: \epsilon_{risk}(\bar w_T)=\tilde O\Big(\frac{\sqrt{\chi\log d}}{n}\Big),

    which is only the Rademacher term (4/T)Σ_t R_t of Theorem 2 with Lemma 5 (O(√(χ log d)/√T) = O(√(χ log d)/n)).
    The other terms of Theorem 2 at this schedule are of order ln²n/√n (Theorem 2's own rate), so dpviz returns
    ``generalisation`` = c·sqrt(χ log d)/n and ``optimisation`` = c·ln²(n)/√n (see the discrepancy).
    """
    n, c, T, eta = _cor_inputs(n, c, c_eta)
    d = v.check_int("d", d)
    chi = v.check_positive("chi", chi)
    terms = [
        Term("generalisation", c * math.sqrt(chi * math.log(d)) / n, -1.0, 0.0, r"\frac{\sqrt{\chi\log d}}{n}"),
        Term("optimisation", c * math.log(n) ** 2 / math.sqrt(n), -0.5, 0.0, r"\frac{\ln^2n}{\sqrt n}"),
    ]
    return _result("yang-pairwise-cor3", terms, eta=eta, T=T, extras={"chi": chi},
                   notes=["Similarity metric learning (problem (11)), nuclear-norm ball; O-tilde hides logarithms."])


def bound_cor4(*, n, d, eps, chi=1.0, c=1.0, c_eta=1.0):
    r"""Similarity metric learning with Algorithm 2, Yang, Lei, Lyu & Ying (yang-pairwise), Corollary 4 (Theorem 5 + Lemma 5).

    Schedule T = n², η = c_η n^{-3/2}, σ from eq. (5).  Printed: :math:`\tilde O(\sqrt{\chi d\log d}/\sqrt{n\epsilon})`.
    dpviz returns the terms of :func:`bound_cor3` plus ``privacy`` = c·sqrt(χ d log d)/(√n ε) (ε exponent −1: σ ∝ 1/ε
    in eq. (5)).
    """
    n, c, T, eta = _cor_inputs(n, c, c_eta)
    d = v.check_int("d", d)
    eps = v.check_eps(eps)
    chi = v.check_positive("chi", chi)
    base = bound_cor3(n=n, d=d, chi=chi, c=c, c_eta=c_eta)
    terms = base.terms + [
        Term("privacy", c * math.sqrt(chi * d * math.log(d)) / (math.sqrt(n) * eps), -0.5, -1.0,
             r"\frac{\sqrt{\chi d\log d}}{\sqrt n\,\epsilon}"),
    ]
    return _result("yang-pairwise-cor4", terms, eta=eta, T=T,
                   extras={"chi": chi, "privacy_as_printed": c * math.sqrt(chi * d * math.log(d) / (n * eps))},
                   notes=["Similarity metric learning (problem (11)); the noise lives in R^(d x d), see the notes."])


# ----------------------------------------------------------------------------------------------------------------
