"""Wang, Lei, Ying & Zhou — differentially private SGD with low noise (pointwise and pairwise learning).

Paper: Wang, Lei, Ying & Zhou (wang-lownoise); full reference in docs/papers.md.  Losses are non-negative, convex and G-Lipschitz (Assumptions 1–2), and
either L-smooth or α-Hölder smooth with parameter L (Definition 3, α ∈ [0, 1)).  The "low-noise" case is
F(w*) = 0 (realizable setting).

What this package provides

* the catalogue algorithms ``dpsgd-rdp`` (Algorithm 1, DP-SGD for pointwise learning) and ``dpsgd-rdp-pairwise``
  (Algorithm 2, DP-SGD-pairwise) with their calibrations :func:`calibrate_dpsgd_rdp` and
  :func:`calibrate_dpsgd_rdp_pairwise` (the privacy theorems, Theorem 2 and Theorem 5);
* :func:`sigma_of_beta` (σ as a function of the free constant β), :func:`conditions_at_beta` (the two conditions
  of Theorems 2 / 5 at one β), :func:`feasible_beta_intervals` (where they hold) and :func:`accountant_sigma` (the
  σ a numerical RDP accountant gives for the same mechanism);
* the utility theorems, ids ``wang-lownoise-thm<k><part>`` with part ``a`` = general case and ``b`` = low-noise
  case F(w*) = 0 — every one of the four utility theorems has exactly these two parts:

  ====================  ============================  ==============  ===========================================
  id                    paper                         algorithm       loss
  ====================  ============================  ==============  ===========================================
  wang-lownoise-thm3a   Theorem 3 (a)                 Algorithm 1     L-smooth, general
  wang-lownoise-thm3b   Theorem 3 (b)                 Algorithm 1     L-smooth, F(w*) = 0
  wang-lownoise-thm4a   Theorem 4 (a)                 Algorithm 1     α-Hölder smooth, general
  wang-lownoise-thm4b   Theorem 4 (b)                 Algorithm 1     α-Hölder smooth, F(w*) = 0
  wang-lownoise-thm6a   Theorem 6 (a)                 Algorithm 2     L-smooth pairwise, general
  wang-lownoise-thm6b   Theorem 6 (b)                 Algorithm 2     L-smooth pairwise, F̄(w*) = 0
  wang-lownoise-thm7a   Theorem 7 (a)                 Algorithm 2     α-Hölder smooth pairwise, general
  wang-lownoise-thm7b   Theorem 7 (b)                 Algorithm 2     α-Hölder smooth pairwise, F̄(w*) = 0
  ====================  ============================  ==============  ===========================================

* explicit-constant versions of all eight utility theorems (``explicit_bound_thm3a`` ... ``explicit_bound_thm7b``),
  from the appendix: M_{α,1/2/3} (eq. (4), (5), Lemma 14 (b)), Theorems 15 and 16, Lemmas 17, 19 and 20; for the
  α-Hölder Theorems 4 and 7 the proof's fixed point ("the solution of the above inequality is O(·)") is solved
  explicitly (:func:`young_constant`, :func:`explicit_holder_risk`);
* Tables 1 and 2 as ``wang-lownoise-table1`` (pointwise) and ``wang-lownoise-table2`` (pairwise).

Privacy analysis (proof of Theorem 2, §4.1).  Adjacency is *replace-one* (Definition 1: S and S̃ differ in one
datum), so the ℓ2-sensitivity of one example's gradient is 2G.  Lemma 8 (Liang et al.; subsampling without
replacement of k of n examples, rate γ = k/n) with Δ = 2G and γ = 1/n gives per-step RDP
(λ, 3.5γ²λΔ²/σ²) = (λ, 14λG²/(n²σ²)) provided σ² >= 0.67Δ² = 2.68G² and
λ − 1 <= σ²/(6G²) log(n/(λ(1 + σ²/(4G²)))).  With σ² = 14G²T λ/(βn²ε) and λ = log(1/δ)/((1−β)ε) + 1 the T-fold
composition is (λ, βε)-RDP, and Lemma 10 turns it into (βε + (1−β)ε, δ) = (ε, δ)-DP.  Algorithm 2 samples a pair
(γ = 2/n): σ² = 56G²Tλ/(βn²ε) and the log argument is n/(2λ(1 + σ²/(4G²))).

Both conditions depend on σ²/G² only, so feasibility does not depend on G.  Theorem 11 of Wang, Lei, Ying & Zhang
(wang-nonsmooth) is the same statement with G = M + L R^α; :func:`calibrate_dpsgd_rdp` accepts (M, L, R, α) instead of G.

Where it is (one package, split where the paper splits)

* :mod:`~dpviz.theory.papers.wang_lownoise.calibration` -- the privacy theorems (Theorem 2 / Algorithm 1, Theorem 5 /
  Algorithm 2): the conditions at β, the β search, the smallest feasible ε, the accountant's σ, the calibrations;
* :mod:`~dpviz.theory.papers.wang_lownoise.rates` -- the utility theorems as rates (Theorems 3, 4, 6, 7);
* :mod:`~dpviz.theory.papers.wang_lownoise.constants` -- the explicit constants of the appendix and the explicit-constant
  bounds (Theorems 15, 16, Lemmas 14, 17, 19, 20 and the proofs of Theorems 4 and 7);
* :mod:`~dpviz.theory.papers.wang_lownoise.catalogue` -- ``PAPER``, ``ALGORITHMS``, ``THEOREMS``, ``TABLES``.

Every public name is importable from this package (``from dpviz.theory.papers.wang_lownoise import calibrate_dpsgd_rdp``).
"""

from dpviz.theory.papers.wang_lownoise.calibration import (ACCOUNTANT_MECHANISM, ACCOUNTANT_NOTE, accountant_sigma,
                                                    BETA_EDGE, calibrate_dpsgd_rdp, calibrate_dpsgd_rdp_pairwise,
                                                    conditions_at_beta, feasible_beta_intervals, min_feasible_eps,
                                                    SIGMA2_MIN, sigma_minimising_beta, sigma_of_beta)
from dpviz.theory.papers.wang_lownoise.rates import (bound_thm3a, bound_thm3b, bound_thm4a, bound_thm4b, bound_thm6a,
                                              bound_thm6b, bound_thm7a, bound_thm7b)
from dpviz.theory.papers.wang_lownoise.constants import (explicit_bound_thm3a, explicit_bound_thm3b, explicit_bound_thm4a,
                                                  explicit_bound_thm4b, explicit_bound_thm6a, explicit_bound_thm6b,
                                                  explicit_bound_thm7a, explicit_bound_thm7b, explicit_holder_risk,
                                                  explicit_smooth_risk, generalization_thm15, largest_root, m_alpha_1,
                                                  m_alpha_2, m_alpha_3, m_bar_alpha_3, optimization_thm16,
                                                  young_constant)
from dpviz.theory.papers.wang_lownoise.catalogue import (ALGORITHMS, PAPER, TABLES, THEOREMS)

__all__ = [
    "m_alpha_1",
    "m_alpha_2",
    "m_alpha_3",
    "generalization_thm15",
    "optimization_thm16",
    "explicit_smooth_risk",
    "explicit_bound_thm3a",
    "explicit_bound_thm3b",
    "explicit_bound_thm6a",
    "explicit_bound_thm6b",
    "m_bar_alpha_3",
    "young_constant",
    "largest_root",
    "explicit_holder_risk",
    "explicit_bound_thm4a",
    "explicit_bound_thm4b",
    "explicit_bound_thm7a",
    "explicit_bound_thm7b",
    "PAPER",
    "ALGORITHMS",
    "THEOREMS",
    "TABLES",
    "sigma_of_beta",
    "conditions_at_beta",
    "feasible_beta_intervals",
    "sigma_minimising_beta",
    "min_feasible_eps",
    "accountant_sigma",
    "calibrate_dpsgd_rdp",
    "calibrate_dpsgd_rdp_pairwise",
    "bound_thm3a",
    "bound_thm3b",
    "bound_thm4a",
    "bound_thm4b",
    "bound_thm6a",
    "bound_thm6b",
    "bound_thm7a",
    "bound_thm7b",
]
