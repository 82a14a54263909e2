"""Yang, Lei, Lyu & Ying — stability and differential privacy of SGD for pairwise learning with non-smooth losses.

Paper: Yang, Lei, Lyu & Ying (yang-pairwise); full reference in docs/papers.md.  The pairwise loss ℓ(w, z, z') is non-negative, convex and G-Lipschitz in w
(no smoothness).  Algorithm 1 (pairwise SGD) samples i_{t+1} uniformly and steps with the average subgradient over the
pairs (z_{i_{t+1}}, z_{i_k}), k = 1..t, so step t costs t pairwise subgradients: T steps cost T(T+1)/2.

Notation mapped to dpviz's conventions

* ``G`` — the Lipschitz constant G;
* ``M0`` — the paper's ``M = sup_{z,z'} ℓ(0, z, z')`` (a bound on the loss at 0; dpviz's ``M`` is a gradient bound,
  hence the different name), default 1 (hinge loss: ℓ(0, z, z') = 1);
* ``R`` — the radius of the domain: the paper's diameter is D = 2R in Theorems 2 and 5 (W ⊆ B(0, R)); in Theorem 3
  the paper's D = ||w*||, taken as R; Lemma 4 (AUC) uses the ball of radius R;
* ``kappa`` — κ = sup_x ||x|| (AUC maximisation, Lemma 4); ``chi`` — χ = ||E[||X||² X Xᵀ]||_{S∞} (metric learning,
  Lemma 5);
* ``gamma`` — the failure probability of the high-probability bounds (default 0.05).

What this package provides

* :func:`sensitivity` — the high-probability ℓ2-sensitivity of the averaged output (Theorem 1, eq. (9)), and a
  corrected version (``corrected=True``) re-derived from the proof of eq. (3) (see the discrepancy of ``yang-pairwise-thm1``);
* algorithms ``pairwise-sgd`` (Algorithm 1) and ``pairwise-sgd-output`` (Algorithm 2, output perturbation) with
  :func:`calibrate_pairwise_sgd_output` (Theorem 4, eq. (5));
* theorems ``yang-pairwise-thm1`` (stability), ``-thm2`` / ``-thm3`` (excess risk of Algorithm 1 on a bounded /
  unbounded domain), ``-thm5`` (utility of Algorithm 2) — each with the paper's explicit constants c₁…c₅ as
  ``explicit_bound`` — and the application corollaries ``-cor1`` … ``-cor4`` (AUC maximisation and similarity metric
  learning, §4).

The appendix with the proofs of Theorems 2, 3 and 5 is not in the seed text; their explicit forms are implemented as
printed, except where the printed form contradicts Theorem 1 and the theorem's own rate (recorded in ``discrepancy``).

Where it is (one package, split where the paper splits)

* :mod:`~dpviz.theory.papers.yang_pairwise.calibration` -- stability / sensitivity (Theorem 1), Algorithm 2's output
  perturbation (Theorem 4), the constants of Theorems 2, 3, 5;
* :mod:`~dpviz.theory.papers.yang_pairwise.bounds` -- Theorems 1, 2, 3, 5 and Corollaries 1-4;
* :mod:`~dpviz.theory.papers.yang_pairwise.catalogue` -- ``PAPER``, ``ALGORITHMS``, ``THEOREMS``, ``TABLES``.

Every public name is importable from this package.
"""

from dpviz.theory.papers.yang_pairwise.calibration import (c1_constant, c2_constant, c3_constant, c4_constant,
                                                           c5_constant, calibrate_pairwise_sgd_output, sensitivity,
                                                           SIGMA_PRINTED_LABEL, SIGMA_PROOF_LABEL, SIGMA_RULES,
                                                           stability_eq3)
from dpviz.theory.papers.yang_pairwise.bounds import (bound_cor1, bound_cor2, bound_cor3, bound_cor4, bound_thm1,
                                                      bound_thm2, bound_thm3, bound_thm5, explicit_bound_thm1,
                                                      explicit_bound_thm2, explicit_bound_thm3, explicit_bound_thm5)
from dpviz.theory.papers.yang_pairwise.catalogue import (ALGORITHMS, PAPER, TABLES, THEOREMS)

__all__ = [
    "PAPER",
    "ALGORITHMS",
    "THEOREMS",
    "TABLES",
    "sensitivity",
    "stability_eq3",
    "c1_constant",
    "c2_constant",
    "c3_constant",
    "c4_constant",
    "c5_constant",
    "calibrate_pairwise_sgd_output",
    "bound_thm1",
    "explicit_bound_thm1",
    "bound_thm2",
    "explicit_bound_thm2",
    "bound_thm3",
    "explicit_bound_thm3",
    "bound_thm5",
    "explicit_bound_thm5",
    "bound_cor1",
    "bound_cor2",
    "bound_cor3",
    "bound_cor4",
]
