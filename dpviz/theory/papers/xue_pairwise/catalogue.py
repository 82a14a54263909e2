"""Xue, Yang, Huai & Wang (xue-pairwise): the catalogue entries -- the paper, its algorithms, theorems and Table 1
(upper and lower bounds on the population error).
"""

from __future__ import annotations

import math

from dpviz.theory.catalog import Algorithm, ComparisonRow, ComparisonTable, Paper, Risk, Theorem
from dpviz.theory.papers._common import cite_entries
from dpviz.theory.papers.xue_pairwise.calibration import (_C_FORMULA, _EPOCH_FORMULA, _SC_FORMULA,
                                                          calibrate_dp_epoch_gd, calibrate_dpgd_c, calibrate_dpgd_sc)
from dpviz.theory.papers.xue_pairwise.theorems import (_C4_FORMULA, bound_thm1, bound_thm2, bound_thm3, bound_thm4,
                                                       calibrate_dpgdc, explicit_bound_thm1)


PAPER = Paper(
    key="xue-pairwise",
    authors="Zhiyu Xue, Shaoyang Yang, Mengdi Huai, Di Wang",
    short="Xue, Yang, Huai & Wang",
    title="Differentially Private Pairwise Learning Revisited",
    venue="IJCAI",
    year=2021,
)

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

#: Every calibration and bound names its paper with the theorems, lemmas, remarks and equations it cites.
ALGORITHMS = cite_entries(ALGORITHMS, PAPER.short)
THEOREMS = cite_entries(THEOREMS, PAPER.short)
