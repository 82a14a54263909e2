r"""Privacy accounting lab: each paper's noise σ beside tight accountants of the *same* mechanism, both directions.

For every private algorithm of the catalogue this module describes the mechanism the paper analyses (how data are
sampled, which neighbouring relation, which sensitivity, how many releases compose) and computes, clearly labelled:

**matched** accountants — the paper's own sampling and neighbouring relation:

* DP-SGD of Wang, Lei, Ying & Zhou (wang-lownoise, Algorithms 1–2, Theorems 2 and 5) and DP-SGD / PIDP-SGD of Kang,
  Li, Liu & Wang (kang-pidp, eq. (1)–(2), Algorithm 1): T steps, each using one example (one pair) drawn uniformly
  *without replacement within the step*, replace-one neighbours (wang-lownoise Definition 1 and the proof of
  Theorem 2 via Lemma 8; kang-pidp Remark 6), so the ℓ2-sensitivity of one step's gradient is 2G.  Accounted with
  dp_accounting's RDP accountant for ``SampledWithoutReplacementDpEvent`` under ``NeighboringRelation.REPLACE_ONE``
  (Wang, Balle & Kasiviswanathan 2019, Theorem 27), with noise multiplier z = σ/(2G) and sampling rate m/n
  (m = 1 example; m = 2 for a pair: a replaced example lies in the sampled pair with probability
  (n − 1)/(n(n − 1)/2) = 2/n, the rate γ = 2/n of wang-lownoise Theorem 5);
* DPGDC2 of Xue, Yang, Huai & Wang (xue-pairwise, Algorithm 2): T full-batch steps, sensitivity 4G/n of the full
  pairwise gradient (proof of Lemma 1), T composed Gaussian mechanisms — exact by the analytic Gaussian mechanism
  (Balle & Wang 2018) applied to their Gaussian-DP composition (μ = √T Δ/σ, Dong, Roth & Su 2019), also by RDP and PLD;
* output perturbation (yang-pairwise Algorithm 2 / Theorem 4; wang-nonsmooth Algorithm 1 / Theorem 8; xue-pairwise
  Algorithm 1): one Gaussian release with the paper's sensitivity Δ, exact by the analytic Gaussian mechanism of
  Balle & Wang (2018, Theorem 8).  Where the sensitivity holds only with probability 1 − δ/2 (yang-pairwise eq. (9),
  wang-nonsmooth Theorem 7) the Gaussian part gets δ/2, as in the papers' proofs;
* DPEGD (xue-pairwise Algorithm 3, proof of Theorem 3 in App. C.5): one Gaussian release per epoch on disjoint
  blocks, so the epochs compose in parallel; every epoch has the same ratio σ_i/Δ_i = σ_1/(4Gη_1), and the whole
  algorithm is exactly as private as one epoch's release.

**Poisson, add/remove** — what Opacus and TF Privacy assume: each example enters a step independently with
probability q = m/n, neighbours differ by adding or removing one example, sensitivity G, z = σ/G; RDP and PLD.
It is *not* the paper's mechanism (``matches_paper`` is False).

**The paper's closed form** — the σ the paper prints, and its inverse (the ε at which the closed form would give
the σ you type).

Both directions are offered: ε → σ (the σ each accountant needs for the target, and its ratio to the paper's σ) and
σ → ε (the ε the paper's σ, or any σ, really buys).

The package, by concern (each module under 1 000 lines; every name is importable from ``dpviz.labs.privacy_lab``
as before the split of issue 34):

* :mod:`~dpviz.labs.privacy_lab.mechanisms` -- the mechanisms, the accountants, both directions, the curves and
  :func:`evaluate`;
* :mod:`~dpviz.labs.privacy_lab.statements` -- the general DP-SGD calculator, when a guarantee means nothing,
  and the plain-language statements.
"""

from __future__ import annotations

from dpviz.foundation.rounding import fmt_bound  # noqa: F401  (privacy_lab.fmt_bound, used by the statements)
from dpviz.labs.privacy_lab.mechanisms import *  # noqa: F401,F403
from dpviz.labs.privacy_lab.mechanisms import (METHOD, _analytic_eps, _check_alg, _num,  # noqa: F401
                                               _paper_sigma)
from dpviz.labs.privacy_lab.statements import *  # noqa: F401,F403
from dpviz.labs.privacy_lab.statements import (NO_PRIVACY_ALPHA, NO_PRIVACY_BETA,  # noqa: F401
                                               NOISE_MULTIPLIER_RANGE, STATEMENT_ALPHAS, meaningful,
                                               meaningless_eps)
from dpviz.labs.privacy_lab import mechanisms as _mechanisms, statements as _statements

__all__ = [*_mechanisms.__all__, *_statements.__all__]
