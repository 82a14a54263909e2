"""Xue, Yang, Huai & Wang — differentially private pairwise learning revisited.

Paper: Xue, Yang, Huai & Wang (xue-pairwise); full reference in docs/papers.md.  Full-gradient projected gradient descent (PGD) on the pairwise empirical
risk ``L(w; D) = 1/(n(n-1)) sum_{i != j} l(w; z_i, z_j)`` (eq. (1)) over a convex, closed, bounded set ``C``; the loss
is G-Lipschitz and L-smooth, and μ-strongly convex in §3 (the paper calls the strong-convexity constant α; in dpviz α
is the Hölder exponent, so it is ``mu`` here).

What this package provides

* :func:`pairwise_gradient_sensitivity` — the replace-one ℓ2-sensitivity 4G/n of the full pairwise gradient
  (proof of Lemma 1, Appendix C.1);
* :func:`epoch_sizes` — the blocks of Algorithm 3, identical to ``dpviz.engine.simulate._epoch_sizes``;
* the catalogue algorithms ``dpgd-sc`` (Algorithm 1, DPGDSC, output perturbation), ``dpgd-c`` (Algorithm 2, DPGDC2,
  gradient perturbation) and ``dp-epoch-gd`` (Algorithm 3, DPEGD, per-epoch output perturbation) with calibrations
  :func:`calibrate_dpgd_sc`, :func:`calibrate_dpgd_c`, :func:`calibrate_dp_epoch_gd`;
* the theorems ``xue-pairwise-thm1`` (with explicit constants from the proof in Appendix C.2), ``-thm2``, ``-thm3``,
  each with its δ = 0 (pure ε-DP, Laplace) variant where the paper states one.

Units.  The paper's ``‖C‖₂`` is the *diameter* of the constraint set.  dpviz's ``R`` is the radius of the domain
(``C = B(0, R)`` in the simulations), so ``‖C‖₂ = 2R`` throughout this module.

Where it is (one package, split where the paper splits)

* :mod:`~dpviz.theory.papers.xue_pairwise.calibration` -- shared pieces, schedules, Algorithms 1-3 and their noise;
* :mod:`~dpviz.theory.papers.xue_pairwise.theorems` -- Theorems 1-3, and Algorithm 4 with Theorem 4 (Appendix C.3);
* :mod:`~dpviz.theory.papers.xue_pairwise.catalogue` -- ``PAPER``, ``ALGORITHMS``, ``THEOREMS``, ``TABLES``.

Every public name is importable from this package.
"""

from dpviz.theory.papers.xue_pairwise.calibration import (calibrate_dp_epoch_gd, calibrate_dpgd_c, calibrate_dpgd_sc,
                                                          epoch_sizes, epoch_stability, gaussian_exact_delta,
                                                          gaussian_mu_for, pairwise_gradient_sensitivity,
                                                          schedule_thm1, schedule_thm2, schedule_thm3,
                                                          stability_lemma1, stability_lemma1_printed, stability_lemma7)
from dpviz.theory.papers.xue_pairwise.theorems import (bound_thm1, bound_thm2, bound_thm3, bound_thm4, calibrate_dpgdc,
                                                       explicit_bound_thm1)
from dpviz.theory.papers.xue_pairwise.catalogue import (ALGORITHMS, PAPER, TABLES, THEOREMS)

__all__ = [
    "PAPER",
    "ALGORITHMS",
    "THEOREMS",
    "TABLES",
    "pairwise_gradient_sensitivity",
    "stability_lemma1",
    "stability_lemma1_printed",
    "stability_lemma7",
    "epoch_stability",
    "epoch_sizes",
    "gaussian_exact_delta",
    "gaussian_mu_for",
    "calibrate_dpgd_sc",
    "calibrate_dpgd_c",
    "calibrate_dp_epoch_gd",
    "calibrate_dpgdc",
    "bound_thm4",
    "schedule_thm1",
    "schedule_thm2",
    "schedule_thm3",
    "bound_thm1",
    "explicit_bound_thm1",
    "bound_thm2",
    "bound_thm3",
]
