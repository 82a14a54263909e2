"""Wang, Lei, Ying & Zhou (wang-lownoise): the catalogue entries -- the paper, its algorithms, theorems and tables.

``PAPER``; ``ALGORITHMS`` (Algorithm 1 ``dpsgd-rdp`` and Algorithm 2 ``dpsgd-rdp-pairwise``); ``THEOREMS`` (the
eight utility theorems ``wang-lownoise-thm3a`` ... ``wang-lownoise-thm7b``, with their explicit-constant
versions); ``TABLES`` (Tables 1 and 2, ``wang-lownoise-table1`` / ``wang-lownoise-table2``).
"""

from __future__ import annotations

import math

from dpviz.theory.catalog import Algorithm, ComparisonRow, ComparisonTable, Paper, Risk, Theorem
from dpviz.theory.papers._common import cite_entries
from dpviz.theory.papers._common import log_inv as _ld, rate_opt as _rate_opt
from dpviz.theory.papers.wang_lownoise.calibration import _formula, calibrate_dpsgd_rdp, calibrate_dpsgd_rdp_pairwise
from dpviz.theory.papers.wang_lownoise.constants import (explicit_bound_thm3a, explicit_bound_thm3b, explicit_bound_thm4a,
                                                  explicit_bound_thm4b, explicit_bound_thm6a, explicit_bound_thm6b,
                                                  explicit_bound_thm7a, explicit_bound_thm7b)
from dpviz.theory.papers.wang_lownoise.rates import (bound_thm3a, bound_thm3b, bound_thm4a, bound_thm4b, bound_thm6a,
                                              bound_thm6b, bound_thm7a, bound_thm7b)


PAPER = Paper(
    key="wang-lownoise",
    authors="Puyu Wang, Yunwen Lei, Yiming Ying, Ding-Xuan Zhou",
    short="Wang, Lei, Ying & Zhou",
    title="Differentially private stochastic gradient descent with low-noise",
    venue="Neurocomputing",
    year=2024,
)


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

#: Every calibration and bound names its paper with the theorems, lemmas, remarks and equations it cites.
ALGORITHMS = cite_entries(ALGORITHMS, PAPER.short)
THEOREMS = cite_entries(THEOREMS, PAPER.short)
