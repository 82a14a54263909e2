r"""The lessons themselves (:data:`LESSONS`, plain data), looking one up, checking them (:func:`validate_lesson`,
:func:`validate_all`, as the presets are checked) and :func:`precompute`, which computes every quick step's numbers
once so that the first class finds them in the library's caches.

Imports :mod:`.model`, :mod:`.curves`, :mod:`.views` and :mod:`.solvers`.
"""

from __future__ import annotations

from dpviz_ui.lessons.curves import _CURVES
from dpviz_ui.lessons.model import (_ANIM, HEAVY, LESSON_INPUTS, VIEWS, Lesson, Question, Step, _validate_entry,
                                    step_state)
from dpviz_ui.lessons.solvers import SOLVERS
from dpviz_ui.lessons.views import live


_D5 = {"delta_auto": False, "log10_delta": -5.0}
#: the exact calibration is the question of step 4 of the first lesson: the steps before it show the classical σ only
_EXACT = ("exact σ", "exact / classical")
#: the RDP accountant's σ is the question of the last step of the DP-SGD lesson (and line 5's σ at β = ½ the one of
#: its second step, which the calibration's first note gives)
_RDP = ("RDP accountant's σ",)
_G1 = {"algorithm": "dpsgd-rdp", "n": 1000, "T": 1000, "eps": 1.0, "delta_auto": False, "log10_delta": -6.0,
       "G": 1.0}

LESSONS: tuple[Lesson, ...] = (
    Lesson(
        "gaussian", "What (ε, δ) buys: the Gaussian mechanism", ("wang-lownoise", "xue-pairwise"),
        ("state what (ε, δ)-differential privacy promises and what the sensitivity Δ is",
         "compute the classical Gaussian σ and say how it scales with ε and δ",
         "explain why dpviz checks every σ with the exact (analytic) calibration"),
        (
            Step("A query and its sensitivity",
                 "A mechanism $M$ is **(ε, δ)-DP** if for all neighbouring data sets $S, S'$ (one example replaced) "
                 "and every event $E$: $\\Pr[M(S)\\in E] \\le e^{\\epsilon}\\Pr[M(S')\\in E] + \\delta$. "
                 "The Gaussian mechanism releases $M(S) = f(S) + \\mathcal N(0, \\sigma^2 I)$; how much noise it "
                 "needs depends on the **sensitivity** $\\Delta = \\sup_{S\\sim S'}\\|f(S)-f(S')\\|_2$ (here the "
                 "input *G*, read as Δ). Smaller ε means more privacy and more noise.",
                 "gaussian", {**_D5, "eps": 1.0}, inputs=("eps", "log10_delta", "G"), hide=_EXACT),
            Step("The classical calibration",
                 "Dwork & Roth (Theorem A.1): $\\sigma = \\Delta\\sqrt{2\\ln(1.25/\\delta)}/\\epsilon$ is "
                 "(ε, δ)-DP **for ε < 1**. The formula is on screen with the numbers plugged in.",
                 "gaussian", {**_D5, "eps": 0.8}, inputs=("eps",),
                 hide=_EXACT,
                 question=Question("ε is halved (from this step's ε to ε/2). By what factor does the classical σ "
                                   "change?", "classical_eps_halves", rtol=0.05,
                                   shown=("classical σ", "true δ of the classical σ", "formula", "status", "chart"))),
            Step("δ enters only through a logarithm",
                 "δ is the probability with which the guarantee may fail; it must be much smaller than 1/n. "
                 "Because σ depends on δ through $\\sqrt{\\ln(1.25/\\delta)}$, even many more zeros in δ cost "
                 "little noise.", "gaussian", {**_D5, "eps": 0.8}, inputs=("log10_delta",),
                 hide=_EXACT,
                 question=Question("δ is squared (10⁻⁵ → 10⁻¹⁰). By what factor does the classical σ grow?",
                                   "classical_delta", rtol=0.05,
                                   shown=("classical σ", "true δ of the classical σ", "formula", "status", "chart"))),
            Step("The exact calibration",
                 "Balle & Wang (2018, Theorem 8): the Gaussian mechanism is (ε, δ)-DP **if and only if** "
                 "$\\Phi(\\tfrac{\\Delta}{2\\sigma}-\\tfrac{\\epsilon\\sigma}{\\Delta}) - e^{\\epsilon}"
                 "\\Phi(-\\tfrac{\\Delta}{2\\sigma}-\\tfrac{\\epsilon\\sigma}{\\Delta}) \\le \\delta$. "
                 "Its smallest σ is the least noise with which the Gaussian mechanism is (ε, δ)-DP, at every ε > 0.",
                 "gaussian", {**_D5, "eps": 1.0}, inputs=("eps", "log10_delta"),
                 question=Question("At this ε and δ, what fraction of the classical σ does the exact calibration "
                                   "need (σ_exact / σ_classical)?", "exact_ratio", rtol=0.1,
                                   shown=("classical σ", "true δ of the classical σ", "formula", "status"))),
            Step("Play ε from 0.1 to 10",
                 "Press **Play**: both curves fall like 1/ε, but the exact σ falls faster at large ε. At small ε "
                 "the two nearly agree; the gap is what a loose proof costs.",
                 "gaussian", {**_D5}, animate="eps"),
            Step("Is the classical σ private at ε = 5?",
                 "The classical proof needs ε < 1. Outside that range the formula may be too small. The exact "
                 "check answers the question for any σ: compute the true δ of the classical σ.",
                 "gaussian", {**_D5, "eps": 5.0}, inputs=("eps",),
                 question=Question("Is the classical σ (ε, δ)-DP at ε = 5, δ = 10⁻⁵?", "classical_private",
                                   kind="choice", options=("yes", "no"), shown=("classical σ", "formula"))),
            Step("Why 'private' needs the tightest check",
                 "Xue, Yang, Huai & Wang's DPGDSC (Algorithm 1) releases its output with the classical σ "
                 "$8G\\sqrt{2\\ln(1.25/\\delta)}/(\\mu n\\epsilon)$ (sensitivity 8G/(μn), Lemma 1). dpviz "
                 "releases the smallest σ that passes the exact check and shows the paper's σ beside it — and "
                 "says when the printed σ is not private at all.",
                 "calibrate", {"algorithm": "dpgd-sc", "n": 1000, "mu": 0.5, "delta_auto": False,
                               "log10_delta": -6.0, "sweep": "eps", "eta": 0.1, "T": 100}, inputs=("eps", "n"),
                 question=Question("What σ does the paper print for DPGDSC here?", "paper_sigma", rtol=0.05,
                                   shown=("σ", "T", "η", "status", "chart"))),
        )),
    Lesson(
        "dpsgd", "Calibrating DP-SGD (Wang, Lei, Ying & Zhou)", ("wang-lownoise",),
        ("read Algorithm 1's noise formula and name what σ grows and shrinks with",
         "explain the β search of Theorem 2 and when no β is feasible",
         "compare the closed-form σ with a numerical (RDP) accountant of the same mechanism"),
        (
            Step("Algorithm 1 and its noise",
                 "DP-SGD samples one example per step, clips nothing (the loss is G-Lipschitz) and adds "
                 "$\\mathcal N(0,\\sigma^2 I)$ to the gradient: $w_{t+1} = \\Pi_W(w_t - \\eta(\\nabla f(w_t; z_{i_t})"
                 " + b_t))$. Line 5: $\\sigma^2 = \\frac{14G^2T}{\\beta n^2\\epsilon}\\big(\\frac{\\log(1/\\delta)}"
                 "{(1-\\beta)\\epsilon}+1\\big)$ for a β ∈ (0, 1).",
                 "calibrate", {**_G1, "sweep": "eps"}, inputs=("eps", "n", "T"), hide=_RDP + ("notes",)),
            Step("The β search of Theorem 2",
                 "Theorem 2 proves privacy only for β meeting two conditions (σ² ≥ 2.68G² and a bound on the "
                 "Rényi order λ). The chart shows σ(β); dpviz searches the feasible β and takes the one with the "
                 "least noise (Wang, Lei, Ying & Zhang's Remark 4 suggests the one closest to ½).",
                 "beta", {**_G1, "sweep": "eps"}, inputs=("eps", "n", "T"),
                 hide=_RDP,
                 question=Question("What σ does line 5 give at β = ½ for this step's n, T, ε, δ (G = 1)? Is it "
                                   "private?", "sigma_half_beta", rtol=0.05,
                                   shown=("σ", "β", "T", "η", "formula", "status"))),
            Step("σ against n",
                 "Each example is used about T/n times, so the noise per step falls with n: at a **fixed β**, line 5 "
                 "gives $\\sigma \\propto \\sqrt T/n$. The chart is the calibrated σ, for which dpviz searches β "
                 "again at every n (Theorem 2's conditions move with n), so it falls more slowly than 1/n. Play n "
                 "over decades (T fixed).",
                 "calibrate", {**_G1, "sweep": "n"}, inputs=("n",), animate="n", hide=_RDP,
                 question=Question("Keep this step's β (and T, ε, δ): n doubles. By what factor does line 5's σ "
                                   "change? Is that σ still private?", "sigma_n_doubles", rtol=0.1,
                                   shown=("σ", "β", "T", "η", "formula", "status", "chart"))),
            Step("σ against T",
                 "More iterations mean more releases to protect: at a **fixed β**, line 5's σ² is linear in T. The "
                 "chart is the calibrated σ, whose β dpviz searches again at every T.",
                 "calibrate", {**_G1, "sweep": "T"}, inputs=("T",), animate="T", hide=_RDP,
                 question=Question("Keep this step's β (and n, ε, δ): T is multiplied by 4. By what factor does "
                                   "line 5's σ change? Is that σ still private?", "sigma_T_quadruples", rtol=0.1,
                                   shown=("σ", "β", "T", "η", "formula", "status", "chart"))),
            Step("When no β works",
                 "At small n and small ε no β meets both conditions: the calibration is infeasible and dpviz "
                 "says which condition fails and the smallest ε that fixes it.",
                 "calibrate", {**_G1, "n": 100, "T": 100, "eps": 0.3, "sweep": "eps"}, inputs=("eps", "n"),
                 hide=_RDP,
                 question=Question("From which ε on is the calibration feasible at n = T = 100?", "smallest_eps",
                                   rtol=0.1, shown=("σ", "T", "η", "formula"))),
            Step("How far from a numerical accountant?",
                 "The Accounting page computes the σ a numerical Rényi (RDP) accountant of the **same** mechanism "
                 "(sampling without replacement, replace-one neighbours) needs for the same (ε, δ). It is not "
                 "tight either (converting Rényi DP to (ε, δ) loses a little), so the closed form's true excess is at "
                 "least the ratio it shows.",
                 "accounting", {**_G1}, inputs=("eps", "n", "T"),
                 question=Question("How many times larger is the paper's σ than the RDP accountant's?",
                                   "paper_over_tight", rtol=0.1, shown=("the paper's σ", "notes"))),
        )),
    Lesson(
        "rates", "The privacy–utility trade-off and rates", ("wang-lownoise",),
        ("name the statistical and privacy terms of an excess-risk bound and their exponents of n and ε",
         "say which term dominates at given n and ε",
         "compare a simulation's fitted slope with the theory's and explain the difference"),
        (
            Step("The named terms of a bound",
                 "Wang, Lei, Ying & Zhou, Theorem 3 (a): with the theorem's T and η, DP-SGD's excess risk is "
                 "$O\\big(\\frac{1}{\\sqrt n} + \\frac{\\sqrt{d\\log(1/\\delta)}}{n\\epsilon}\\big)$: a "
                 "**statistical** term (also without privacy) and a **privacy** term.",
                 "bound", {"theorems": ["wang-lownoise-thm3a"], "n": 1000, "sweep": "n", "delta_auto": False,
                           "log10_delta": -8.0}, inputs=("n", "eps", "d")),
            Step("Which term dominates?",
                 "Evaluate both terms at n = 10⁴, d = 10, ε = 1, δ = 10⁻⁸.",
                 "bound", {"theorems": ["wang-lownoise-thm3a"], "n": 10_000, "sweep": "n", "delta_auto": False,
                           "log10_delta": -8.0}, inputs=("n", "eps"),
                 question=Question("Which term of the bound dominates at n = 10⁴?", "dominant", kind="choice",
                                   options=("statistical", "privacy"), shown=("T", "η", "formula", "notes"))),
            Step("n over decades",
                 "Press **Play**: on log-log axes each term is a line of slope equal to its n exponent "
                 "(−½ and −1). The total follows the flatter one for large n.",
                 "bound", {"theorems": ["wang-lownoise-thm3a"], "n": 10_000, "sweep": "n", "delta_auto": False,
                           "log10_delta": -8.0}, animate="n",
                 question=Question("n grows tenfold from 10⁴ to 10⁵. By what factor does the total bound change "
                                   "(bound(10n)/bound(n))?", "total_n_times_10", rtol=0.1,
                                   shown=("statistical term", "privacy term", "total", "T", "η", "formula", "notes",
                                          "chart"))),
            Step("ε over decades",
                 "Against ε only the privacy term moves (exponent −1): below some ε privacy is the price.",
                 "bound", {"theorems": ["wang-lownoise-thm3a"], "sweep": "eps", "delta_auto": False,
                           "log10_delta": -8.0}, animate="eps"),
            Step("Low noise: Theorem 3 (b)",
                 "When the best model has zero population risk (the **low-noise** case F(w*) = 0), Theorem 3 (b) "
                 "removes the statistical term: only the privacy term $\\frac{\\sqrt{d\\log(1/\\delta)}}{n\\epsilon}$ "
                 "remains, a faster rate in n.",
                 "bound", {"theorems": ["wang-lownoise-thm3b"], "sweep": "n", "delta_auto": False,
                           "log10_delta": -8.0}, inputs=("n", "eps")),
            Step("A simulation's slope",
                 "Run DP-SGD on the paper's synthetic least squares (§5, κ = 0.1, its own noise rule) over "
                 "ε ∈ {0.5, …, 8} and fit log risk = a + b log ε. The theory's privacy term has b = −1.",
                 "simulate", {"n": 500, "T": 500, "eta": 0.01, "reps": 20, "seed": 0}, inputs=("reps",),
                 question=Question("Will the empirical slope be steeper or flatter than the privacy term's −1?",
                                   "slope_vs_theory", kind="choice", options=("steeper", "flatter"),
                                   shown=("privacy term's ε exponent", "formula"))),
            Step("Why the slope differs",
                 "The simulated risk keeps an optimisation and statistical part that no ε removes; at large ε it "
                 "dominates and the curve flattens. The rate describes the worst case up to constants: compare "
                 "slopes, not values.",
                 "bound", {"theorems": ["wang-lownoise-thm3a"], "n": 500, "sweep": "eps", "delta_auto": True},
                 inputs=("n",)),
        )),
    Lesson(
        "nonsmooth", "Non-smooth losses (Wang, Lei, Ying & Zhang)", ("wang-nonsmooth",),
        ("define α-Hölder smoothness and place the hinge, q-norm and smooth losses on it",
         "read how α changes the iteration count T, the step η and the rate",
         "locate Lemma 13's feasibility region and where it fails"),
        (
            Step("α-Hölder smooth gradients",
                 "A loss has an **α-Hölder** gradient if $\\|\\partial f(w)-\\partial f(w')\\| \\le "
                 "L\\|w-w'\\|^{\\alpha}$: α = 1 is smooth (least squares, logistic), α = 0 only Lipschitz "
                 "(hinge), q-norm losses have α = q − 1. Theorem 9 bounds DP-SGD-Output's excess risk.",
                 "bound", {"theorems": ["wang-nonsmooth-thm9"], "n": 10_000, "alpha": 0.5, "sweep": "n",
                           "delta_auto": False, "log10_delta": -8.0}, inputs=("alpha", "n")),
            Step("α changes the rate",
                 "Play α from 0 to 1: the privacy term's n exponent is −2/(3+α).",
                 "bound", {"theorems": ["wang-nonsmooth-thm9"], "n": 10_000, "alpha": 0.5, "sweep": "n",
                           "delta_auto": False, "log10_delta": -8.0}, animate="alpha",
                 question=Question("What is the n exponent of the privacy term at α = ½?", "privacy_n_exponent",
                                   rtol=0.02, shown=("privacy term", "statistical term", "total", "T", "η", "formula",
                                                     "notes", "chart"))),
            Step("α changes T and η",
                 "The schedule of Theorem 9 sets T and η from n and α: $T = n^{(6-3\\alpha-\\alpha^2)/((1+\\alpha)"
                 "(3+\\alpha))}$ for α below (√73 − 7)/4 ≈ 0.386 and T = n above it (the O(·) constant taken as 1). A "
                 "rough gradient needs many more, smaller steps.",
                 "bound", {"theorems": ["wang-nonsmooth-thm9"], "n": 10_000, "alpha": 0.0, "sweep": "n",
                           "delta_auto": False, "log10_delta": -8.0}, inputs=("alpha",),
                 question=Question("By what factor does T grow from α = 1 to α = 0 at n = 10⁴?", "T_alpha",
                                   rtol=0.1, shown=("privacy term", "statistical term", "total", "formula", "notes",
                                                    "chart"))),
            Step("DP-SGD-Output",
                 "Output perturbation adds Gaussian noise once, to the averaged iterate, with the sensitivity "
                 "from the stability of SGD (Theorem 7).",
                 "calibrate", {"algorithm": "dpsgd-output", "n": 1000, "T": 1000, "eta": 0.01, "alpha": 0.5,
                               "sweep": "eps", "delta_auto": False, "log10_delta": -6.0}, inputs=("eps", "alpha")),
            Step("Gradient perturbation and Lemma 13",
                 "Theorem 12 runs DP-SGD (gradient noise); its privacy needs a β meeting Theorem 11's conditions. "
                 "Lemma 13 states a threshold on ε (with T = n, δ = 1/n²) above which such a β exists.",
                 "threshold", {"n": 1000}, inputs=("n",),
                 question=Question("From which ε on does dpviz's β search find a feasible calibration at "
                                   "n = T = 1000, δ = 1/n²?", "smallest_eps_T_n", rtol=0.1,
                                   shown=("Lemma 13's ε threshold", "formula"))),
            Step("Where Lemma 13 fails",
                 "Compare the printed threshold with the ε the β search needs on the chart: where the curves "
                 "differ, the lemma's region is not the set of feasible settings. Change n to see it move.",
                 "calibrate", {"algorithm": "dpsgd-rdp", "n": 1000, "T": 1000, "sweep": "eps", "delta_auto": True},
                 inputs=("n",)),
        )),
    Lesson(
        "stability", "Stability (Yang, Lei, Lyu & Ying; Wang, Lei, Ying & Zhang)", ("yang-pairwise", "wang-nonsmooth"),
        ("define uniform argument stability and read a stability bound",
         "turn a stability bound into the σ of output perturbation",
         "measure the stability of coupled runs and compare it with the bound"),
        (
            Step("Uniform argument stability",
                 "An algorithm is **Δ-uniformly argument stable** if $\\|A(S)-A(S')\\| \\le \\Delta$ for all "
                 "neighbouring S, S'. Yang, Lei, Lyu & Ying, Theorem 1 bounds it for pairwise SGD by "
                 "$\\eta\\sqrt T + \\eta T\\ln T/n$ (up to constants).",
                 "bound", {"theorems": ["yang-pairwise-thm1"], "n": 100, "T": 100, "eta": 0.1, "sweep": "n"},
                 inputs=("T", "eta", "n"),
                 question=Question("T is multiplied by 4. By what factor does the iteration term change?",
                                   "iteration_T4", rtol=0.05, shown=("iteration term", "sampling term", "total", "T",
                                                                     "η", "formula", "notes", "chart"))),
            Step("From stability to privacy",
                 "A stable algorithm becomes private by adding Gaussian noise to its output with sensitivity "
                 "Δ = the stability bound (Theorem 5): the Gaussian mechanism of lesson 1.",
                 "calibrate", {"algorithm": "pairwise-sgd-output", "n": 100, "T": 100, "eta": 0.1, "sweep": "eps",
                               "delta_auto": False, "log10_delta": -4.0}, inputs=("eps", "n")),
            Step("Measure it: coupled runs",
                 "Train on S and S' (one example replaced) with the same indices and noise and record the "
                 "distance of the outputs, over repetitions (the Audit page's stability mode).",
                 "stability", {"aud_alg": "pairwise-sgd", "aud_reps": 200, "aud_n": 100, "aud_T": 100},
                 inputs=("aud_reps",),
                 question=Question("Will the measured maximum distance be below or above the bound?",
                                   "below_bound", kind="choice", options=("below", "above"),
                                   shown=("bound", "notes"))),
            Step("An adversarial neighbour",
                 "Replace the example that moves the output most (adversarial neighbour) instead of a random one.",
                 "stability", {"aud_alg": "pairwise-sgd", "aud_reps": 200, "aud_n": 100, "aud_T": 100,
                               "aud_nb": "adversarial"}, inputs=("aud_reps",)),
            Step("Hölder-smooth SGD (Wang, Lei, Ying & Zhang, Theorem 7)",
                 "For an α-Hölder smooth loss Theorem 7 bounds SGD's argument stability; measure it on least "
                 "squares.",
                 "stability", {"aud_alg": "sgd", "aud_reps": 200, "aud_n": 100, "aud_T": 100}, inputs=("aud_reps",),
                 question=Question("Will the measured maximum distance be below or above Theorem 7's bound?",
                                   "below_bound", kind="choice", options=("below", "above"),
                                   shown=("bound", "notes"))),
            Step("How loose is the bound?",
                 "DP-SGD-Output is SGD plus noise on the output: coupled runs share that noise, so they measure "
                 "SGD's stability. The ratio bound / measured max says how much noise output perturbation pays for "
                 "the worst case of the proof rather than the measured behaviour — the measured distance is **not** "
                 "a privacy guarantee (it is one data set, not the supremum).",
                 "stability", {"aud_alg": "dpsgd-output", "aud_reps": 200, "aud_n": 100, "aud_T": 100},
                 inputs=("aud_reps",)),
        )),
    Lesson(
        "pairwise", "Pairwise learning (Xue, Yang, Huai & Wang)", ("xue-pairwise",),
        ("describe DPGDSC, DPGDC and DPEGD and their noise",
         "compare the printed σ with the exact one",
         "say what the §5 experiments claim and what dpviz can reproduce"),
        (
            Step("Pairwise losses",
                 "Pairwise learning (AUC maximisation, metric learning) has losses $f(w; z, z')$ on pairs of "
                 "examples: the empirical risk averages over the n(n − 1) pairs, and one example touches n − 1 "
                 "of them.",
                 "calibrate", {"algorithm": "dpgd-sc", "n": 1000, "mu": 0.5, "eta": 0.1, "T": 100, "sweep": "n",
                               "delta_auto": False, "log10_delta": -6.0}, inputs=("n", "eps", "mu"),
                 question=Question("What σ does the paper print for DPGDSC at these settings?", "paper_sigma",
                                   rtol=0.05, shown=("σ", "T", "η", "status", "chart"))),
            Step("DPGDSC against n",
                 "DPGDSC (Algorithm 1, strongly convex) runs full gradient descent and perturbs the output once: "
                 "the sensitivity 8G/(μn) falls like 1/n, and dpviz releases the exact (analytic) Gaussian σ of that "
                 "sensitivity, which is proportional to it.",
                 "calibrate", {"algorithm": "dpgd-sc", "n": 1000, "mu": 0.5, "eta": 0.1, "T": 100, "sweep": "n",
                               "delta_auto": False, "log10_delta": -6.0}, inputs=("n",), animate="n",
                 question=Question("n doubles. By what factor does the released σ change?",
                                   "private_sigma_n_doubles", rtol=0.05,
                                   shown=("σ", "the paper's σ", "T", "η", "formula", "status", "notes", "chart"))),
            Step("DPGDC: noise on every gradient",
                 "DPGDC (Algorithm 2, convex) adds noise to each of the T full pairwise gradients (sensitivity "
                 "4G/n each) and composes the T releases.",
                 "calibrate", {"algorithm": "dpgd-c", "n": 1000, "T": 100, "eta": 0.1, "sweep": "eps",
                               "delta_auto": False, "log10_delta": -6.0}, inputs=("eps",)),
            Step("DPEGD: epochs",
                 "DPEGD (Algorithm 3) perturbs the average of each epoch; the epochs use disjoint blocks of "
                 "data, so their noise levels differ (the per-epoch schedule).",
                 "calibrate", {"algorithm": "dp-epoch-gd", "n": 1000, "eta": 0.1, "sweep": "eps",
                               "delta_auto": False, "log10_delta": -6.0}, inputs=("eps", "n")),
            Step("The accountants' view of DPGDC",
                 "The T Gaussian releases of DPGDC compose exactly like one Gaussian mechanism with sensitivity "
                 "√T·Δ, so the exact analytic-Gaussian accountant is tight here; compare the paper's σ with it.",
                 "accounting", {"algorithm": "dpgd-c", "n": 1000, "T": 100, "eta": 0.1, "delta_auto": False,
                                "log10_delta": -6.0}, inputs=("eps",)),
            Step("What §5 claims and what can be reproduced",
                 "Xue et al.'s §5 compares the test AUC of DPGDSC, DPGDC2 and DPEGD with their non-private versions "
                 "and claims (a) the private algorithms approach the baseline as n grows and (b) DPEGD beats DPGDC2 "
                 "(Remark 2). Their Diabetes data and several details are not given in full: dpviz runs the same "
                 "algorithms on a stated substitute and says, from the numbers, whether each claim shows — and the "
                 "likely reason when it does not. This step runs the small grid (n = 32, 64, 128); the full study "
                 "is `python -m dpviz reproduce xue-pairwise-auc` (about a minute).",
                 "experiment", {"reps": 3, "seed": 0},
                 question=Question("Will this run show claim (b), DPEGD ahead of DPGDC2?", "claim_b_shown",
                                   kind="choice", options=("yes", "no"), shown=("claims of §5 checked",))),
        )),
    Lesson(
        "heterogeneity", "Data heterogeneity (Kang, Li, Liu & Wang)", ("kang-pidp",),
        ("explain the influence function of an example and why examples differ",
         "read PIDP-SGD's decision rule and its contribution noise σ_c",
         "explain why the rule rarely escapes the noise at usual settings"),
        (
            Step("DP-SGD under the PL condition",
                 "Kang, Li, Liu & Wang start from DP-SGD for losses satisfying the Polyak–Łojasiewicz condition "
                 "$\\|\\nabla F(w)\\|^2 \\ge 2\\mu(F(w)-F^*)$, with σ from the moments accountant (eq. (2)).",
                 "calibrate", {"algorithm": "dpsgd-pl", "n": 1000, "T": 1000, "mu": 0.1, "sweep": "eps",
                               "delta_auto": False, "log10_delta": -6.0}, inputs=("eps", "n")),
            Step("Influence functions",
                 "The **influence** of example z on the model is $I(z) = -H^{-1}\\nabla \\ell(z; \\hat w)$ "
                 "(H the Hessian): examples far from the others move the model more. PIDP-SGD releases a noisy "
                 "**contribution** $c_t$ of the examples (noise σ_c, Theorem 5) and adds gradient noise only when "
                 "needed.",
                 "calibrate", {"algorithm": "pidp-sgd", "n": 1000, "T": 1000, "mu": 0.1, "sweep": "eps",
                               "delta_auto": False, "log10_delta": -6.0}, inputs=("eps",), hide=("σ_c released",)),
            Step("Is the printed σ_c private?",
                 "dpviz checks Theorem 5's σ_c by the exact composition of the R Gaussian releases of the "
                 "contribution (sensitivity 2G/(nζ) each).",
                 "calibrate", {"algorithm": "pidp-sgd", "n": 1000, "T": 1000, "mu": 0.1, "sweep": "eps",
                               "delta_auto": False, "log10_delta": -6.0}, inputs=("eps",),
                 question=Question("Is Theorem 5's printed σ_c (ε₂, δ₂)-DP at these settings?", "sigma_c_private",
                                   kind="choice", options=("yes", "no"),
                                   shown=("σ", "σ_c of Theorem 5 as printed", "T", "η", "formula", "chart"))),
            Step("The decision rule",
                 "Algorithm 1, lines 9–10: with $A = 2re^{\\epsilon_1}\\delta_1$, a step escapes the gradient "
                 "noise only if every $|[c_t]_i| < A/(e^{\\epsilon_1}-1)$ and "
                 "$\\ln\\big(A/(A-(e^{\\epsilon_1}-1)|[c_t]_i|)\\big) \\le 2\\epsilon_1$. With δ₁ tiny, A is tiny: "
                 "the released contribution, carrying noise σ_c, is almost never that small.",
                 "calibrate", {"algorithm": "pidp-sgd", "n": 1000, "T": 1000, "mu": 0.1, "sweep": "n",
                               "delta_auto": False, "log10_delta": -6.0}, inputs=("n",)),
            Step("The bound of PIDP-SGD",
                 "Theorem 4 bounds PIDP-SGD's excess risk; compare its terms with DP-SGD's (Theorem 1) on the "
                 "Bounds page.",
                 "bound", {"theorems": ["kang-pidp-thm1"], "n": 1000, "mu": 0.1, "sweep": "n",
                           "delta_auto": False, "log10_delta": -6.0}, inputs=("n", "eps")),
            Step("Audit PIDP-SGD",
                 "An audit trains on D and on D' with a canary and tests whether the outputs can be told apart.",
                 "audit", {"aud_alg": "pidp-sgd", "aud_trials": 400, "aud_n": 100, "aud_T": 100,
                           "aud_noise": "calibrated"}, inputs=("aud_trials",)),
        )),
    Lesson(
        "audit", "Auditing a claim", ("wang-lownoise",),
        ("explain what an empirical ε lower bound says beside a claimed ε",
         "compute the most ε a number of trials can certify",
         "catch a broken claim with an audit"),
        (
            Step("A lower bound, not a guarantee",
                 "Train as often on D as on D' = D + canary; half of each side's runs choose a test, and on the "
                 "other m runs per side a test with false-positive rate fpr and "
                 "false-negative rate fnr forces $\\epsilon \\ge \\log\\frac{1-\\delta-\\rm fnr}{\\rm fpr}$ "
                 "(Jagielski, Ullman & Oprea 2020; Nasr et al. 2021), with Clopper–Pearson 95 % bounds on the "
                 "rates.", "certifiable", {"aud_trials": 2000}, inputs=("aud_trials",),
                 question=Question("With 2000 trials (1000 per side: 500 choose the test, 500 evaluate it) and "
                                   "no error at all, what is the most ε the audit can certify (δ = 10⁻⁵)?",
                                   "max_certifiable", rtol=0.05, shown=("evaluation trials per side",))),
            Step("More trials",
                 "Play the number of trials: the most the audit can ever certify grows only like log m.",
                 "certifiable", {"aud_trials": 2000}, animate="aud_trials",
                 question=Question("Ten times more trials: by how much does the most certifiable ε grow "
                                   "(difference)?", "certifiable_times_10", rtol=0.1,
                                   shown=("evaluation trials per side", "most ε they can certify", "formula",
                                          "chart"))),
            Step("Audit DP-SGD",
                 "Audit DP-SGD at the noise of the paper's experiments (claimed ε = 1).",
                 "audit", {"aud_alg": "dpsgd-rdp", "aud_trials": 2000, "aud_noise": "experiment"},
                 inputs=("aud_trials",),
                 question=Question("Will the audit's lower bound exceed the claimed ε = 1?", "audit_exceeds",
                                   kind="choice", options=("yes", "no"),
                                   shown=("ε claimed", "most these trials can certify", "σ used"))),
            Step("A broken claim",
                 "Now the noise is far too small for the claim (σ = 0.05, still claiming ε = 1): the audit "
                 "should catch it.",
                 "audit", {"aud_alg": "dpsgd-rdp", "aud_trials": 2000, "aud_noise": "custom", "aud_sigma": 0.05},
                 inputs=("aud_trials",),
                 question=Question("Will the audit's lower bound exceed the claimed ε = 1 now?", "audit_exceeds",
                                   kind="choice", options=("yes", "no"),
                                   shown=("ε claimed", "most these trials can certify", "σ used"))),
            Step("The accountant's ε beside it",
                 "For the calibrated σ the accountant's ε is what the mechanism provably gives; the audit's "
                 "lower bound sits below it. A gap says the test (or the trials) is weak, not that privacy is "
                 "better than proved.",
                 "audit", {"aud_alg": "dpsgd-rdp", "aud_trials": 2000, "aud_noise": "calibrated", "aud_n": 1000},
                 inputs=("aud_trials",)),
            Step("What an audit cannot say",
                 "A lower bound below the claim does not confirm the claim; and no audit with m trials can "
                 "certify more than the maximum on the left, however broken the mechanism.",
                 "certifiable", {"aud_trials": 20_000}, inputs=("aud_trials",)),
        )),
)


def get_lesson(lesson_id: str) -> Lesson:
    for lesson in LESSONS:
        if lesson.id == lesson_id:
            return lesson
    raise ValueError(f"unknown lesson {lesson_id!r}; choose one of {', '.join(l.id for l in LESSONS)}")


def validate_lesson(lesson: Lesson) -> list[str]:
    """Every problem of a lesson (empty: valid): 6–12 steps, each view known, every state entry valid on the URL
    schema, inputs and the animated parameter allowed, the algorithm / theorem known, the solver known."""
    from dpviz.theory import catalog

    probs = []
    if not 6 <= len(lesson.steps) <= 12:
        probs.append(f"{lesson.id}: {len(lesson.steps)} steps (6 to 12 wanted)")
    for i, s in enumerate(lesson.steps, 1):
        where = f"{lesson.id} step {i}"
        if s.view not in VIEWS:
            probs.append(f"{where}: unknown view {s.view!r}")
        for k, v in s.state.items():
            try:
                _validate_entry(k, v)
            except ValueError as exc:
                probs.append(f"{where}: {exc}")
        for k in s.inputs:
            if k not in LESSON_INPUTS:
                probs.append(f"{where}: input {k!r} is not one a lesson can show")
        if s.animate is not None and (s.animate not in _ANIM or s.view not in _CURVES):
            probs.append(f"{where}: cannot animate {s.animate!r} on a {s.view!r} view")
        if s.view in ("calibrate", "beta", "accounting"):
            try:
                catalog.get_algorithm(s.state.get("algorithm", ""))
            except ValueError as exc:
                probs.append(f"{where}: {exc}")
        if s.view == "bound":
            th = s.state.get("theorems") or []
            if len(th) != 1:
                probs.append(f"{where}: a bound view needs exactly one theorem")
            for t in th:
                try:
                    catalog.get_theorem(t)
                except ValueError as exc:
                    probs.append(f"{where}: {exc}")
        q = s.question
        if q is not None:
            if q.solver not in SOLVERS:
                probs.append(f"{where}: unknown solver {q.solver!r}")
            if q.kind not in ("number", "choice") or (q.kind == "choice" and len(q.options) < 2):
                probs.append(f"{where}: a question is a number or a choice between at least two options")
    return probs


def validate_all() -> list[str]:
    ids = [lesson.id for lesson in LESSONS]
    probs = [f"duplicate lesson id {i!r}" for i in set(ids) if ids.count(i) > 1]
    for lesson in LESSONS:
        probs += validate_lesson(lesson)
    return probs


def precompute(lesson_ids=None) -> float:
    """Compute the main numbers of every quick step (not :data:`HEAVY`) at its own settings once, so that the first
    class to open a lesson finds them in the library's caches (the accountants' noise inversions, the feasibility
    searches) instead of waiting for them; ``serve.py`` runs it in the background once the server answers.
    Returns the seconds it took.  A step whose settings are refused is skipped (the page reports it)."""
    import time

    t0 = time.perf_counter()
    for lesson in LESSONS:
        if lesson_ids is not None and lesson.id not in lesson_ids:
            continue
        for step in lesson.steps:
            if step.view in HEAVY:
                continue
            try:
                live(step.view, step_state(step), figure=False)
            except ValueError:
                pass
    return time.perf_counter() - t0
