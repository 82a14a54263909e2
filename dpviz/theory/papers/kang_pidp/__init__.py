"""Kang, Li, Liu & Wang — data-heterogeneity differential privacy: DP-SGD under the PL condition and PIDP-SGD.

Paper: Kang, Li, Liu & Wang (kang-pidp); full reference in docs/papers.md.  The loss is G-Lipschitz and L-smooth and the empirical risk satisfies the
Polyak–Łojasiewicz (PL) condition with constant μ (``mu``); the model dimension (the paper's ``m``) is ``d`` here.

Symbols.  The paper's ``R`` in Algorithm 1 / Theorem 5 is the number of *global rounds*; in dpviz it is ``rounds``
(as in :mod:`dpviz.engine.simulate`), because ``R`` is dpviz's domain radius — which is the paper's ``r`` (radius of the
bounded parameter space, §3.1), stored in the calibration's ``extras["r"]``.  ``zeta`` is the lower bound ζ on the
Hessian (Theorem 4), ``C_hess`` the Hessian-Lipschitz constant C (Definition 3), ``k`` the number of data instances
that "affect the model significantly" (§5.4–5.5).

What this package provides

* ``dpsgd-pl`` — DP-SGD of eq. (1) with the noise of eq. (2), σ >= c G sqrt(T log(1/δ))/(nε) with c unspecified:
  :func:`calibrate_dpsgd_pl` calibrates σ numerically with :mod:`dpviz.theory.accounting` and reports the implied c;
* ``pidp-sgd`` — Algorithm 1 (PIDP-SGD) with Theorem 5's two noises: :func:`calibrate_pidp_sgd`;
* :func:`if_error_bound` — Theorem 4's bound E on the influence-function approximation error;
* theorems ``kang-pidp-thm1`` (excess empirical risk), ``-thm3`` (excess population risk, with τ), ``-remark4``,
  ``-thm6``, ``-thm7`` (PIDP-SGD), and Table 1 as ``kang-pidp-table1``.

Privacy convention.  Adjacent data sets differ in one element and the paper counts *replacement* (Remark 6; the
coefficient 2 of line 9, c_t = 2c_t^(o) + b^(c)).  A replaced example changes one gradient by up to
2G, so dpviz uses sensitivity 2G for the training noise by default (``neighbouring="replace-one"``) and G with
``neighbouring="add-remove"`` (the convention of the moments accountant of Abadi et al. that eq. (2) quotes).

Where it is (one package, split where the paper splits)

* :mod:`~dpviz.theory.papers.kang_pidp.calibration` -- privacy and noise calibration: DP-SGD (eq. (1), (2)) and
  PIDP-SGD (Algorithm 1, Theorem 5);
* :mod:`~dpviz.theory.papers.kang_pidp.bounds` -- the utility theorems and remarks (Theorems 1-4, 6, 7, Remarks 3, 4);
* :mod:`~dpviz.theory.papers.kang_pidp.catalogue` -- ``PAPER``, ``ALGORITHMS``, ``THEOREMS``, ``TABLES``.

Every public name is importable from this package (``from dpviz.theory.papers.kang_pidp import calibrate_pidp_sgd``).
"""

from dpviz.theory.papers.kang_pidp.calibration import (C_PRIME, calibrate_dpsgd_pl, calibrate_pidp_sgd, if_error_bound,
                                                       implied_c, moments_accountant_condition, PIDP_NOT_CERTIFIED,
                                                       rounds_and_local_steps, schedule_T)
from dpviz.theory.papers.kang_pidp.bounds import (bound_remark3, bound_remark4, bound_thm1, bound_thm2, bound_thm3,
                                                  bound_thm4, bound_thm6, bound_thm7, explicit_bound_thm1,
                                                  explicit_bound_thm3, time_complexity)
from dpviz.theory.papers.kang_pidp.catalogue import (ALGORITHMS, PAPER, TABLES, THEOREMS)

__all__ = [
    "rounds_and_local_steps",
    "PAPER",
    "ALGORITHMS",
    "THEOREMS",
    "TABLES",
    "C_PRIME",
    "schedule_T",
    "if_error_bound",
    "calibrate_dpsgd_pl",
    "implied_c",
    "bound_thm2",
    "bound_thm4",
    "bound_remark3",
    "time_complexity",
    "moments_accountant_condition",
    "calibrate_pidp_sgd",
    "bound_thm1",
    "explicit_bound_thm1",
    "bound_thm3",
    "explicit_bound_thm3",
    "bound_remark4",
    "bound_thm6",
    "bound_thm7",
]
