"""What the engine runs: the update-rule spec of every algorithm id, the engine's constants and exceptions.

:data:`SPECS` maps each algorithm id to its :class:`Spec` (one example / pair per step or full gradient, where the
noise goes, which iterate is released); the update rule that executes it is in :mod:`dpviz.engine.simulate.rules`.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from dpviz.theory import catalog


#: Default cap on work units (chain-steps x parameter dimension x gradients per step).
DEFAULT_MAX_WORK = 2.0e10
#: Measured wall time per work unit on the 2-core reference machine (see benchmarks/RESULTS.md).
SECONDS_PER_UNIT = 1.5e-8
_EVAL_ROWS = 2000  # rows (or pairs) of the evaluation samples used for risks
_BUF_FLOATS = 2_000_000  # size of the per-block random-number buffers
#: ``params`` entries that steer the engine only (not calibration or theorem parameters).
_ENGINE_SWITCHES = ("run_infeasible", "noise_rule", "constraint", "allow_nonprivate", "pidp_start", "epoch_average")
#: Default constraint set W of a matrix parameter (metric learning) per algorithm: the set of the paper
#: (Xue, Yang, Huai & Wang, Example 1: PSD with ||W||_F <= R; Yang, Lei, Lyu & Ying, Lemma 5: nuclear-norm ball);
#: other algorithms project onto the Frobenius ball.  Vector parameters always use the Euclidean ball.
_MATRIX_SETS = {"dpgd-sc": "psd-frobenius", "dpgd-c": "psd-frobenius", "dp-epoch-gd": "psd-frobenius",
                "pairwise-sgd": "nuclear", "pairwise-sgd-output": "nuclear"}


class CostTooHigh(ValueError):
    """The requested simulation exceeds the work cap."""


class Cancelled(RuntimeError):
    """The simulation was cancelled by the caller."""


@dataclass(frozen=True)
class Spec:
    kind: str  # "sgd" (one example / pair per step) or "full" (full empirical gradient)
    pairs: bool  # pairwise sampling
    noise: str  # "gradient", "output" or "none"
    output: str  # "average" (w_1..w_T, w_1 the start), "average0" (w_0..w_T), "average1" (w_1..w_T after w_0) or "last"
    place: str = ""
    project_output: bool = False  # project the noisy output back onto W (yang-pairwise Algorithm 2: Pi_W(w_bar + u))


SPECS: dict[str, Spec] = {
    "sgd": Spec("sgd", False, "none", "average", "projected SGD"),
    "gd": Spec("full", False, "none", "average0", "projected GD"),
    "dpsgd-rdp": Spec("sgd", False, "gradient", "average", "wang-lownoise Algorithm 1"),
    "dpsgd-rdp-pairwise": Spec("sgd", True, "gradient", "average", "wang-lownoise Algorithm 2"),
    "dpsgd-output": Spec("sgd", False, "output", "average", "wang-nonsmooth Algorithm 1"),
    "pairwise-sgd": Spec("history", True, "none", "average", "yang-pairwise Algorithm 1"),
    "pairwise-sgd-output": Spec("history", True, "output", "average", "yang-pairwise Algorithm 2", project_output=True),
    "dpsgd-pl": Spec("sgd", False, "gradient", "last", "kang-pidp"),
    "dpgd-sc": Spec("full", True, "output", "last", "xue-pairwise Algorithm 1"),
    "dpgd-c": Spec("full", True, "gradient", "average0", "xue-pairwise Algorithm 2"),
    "dpgdc": Spec("full", True, "output", "average1", "xue-pairwise Algorithm 4"),
    "dp-epoch-gd": Spec("epoch", True, "output", "last", "xue-pairwise Algorithm 3"),
    "pidp-sgd": Spec("pidp", False, "gradient", "last", "kang-pidp Algorithm 1"),
}


def supported_algorithms() -> list[str]:
    """Algorithm ids the engine can run now (in :data:`SPECS` and present in the catalogue)."""
    have = {a.id for a in catalog.algorithms()}
    return [a for a in SPECS if a in have]


def _epoch_sizes(n: int) -> list[int]:
    """Block sizes of Algorithm 3 of Xue, Yang, Huai & Wang (xue-pairwise): n_i = floor(n/2^i) for i < k = floor(log2 n), D_k the rest."""
    k = max(1, int(math.floor(math.log2(n))))
    sizes = [n // 2**i for i in range(1, k)]
    sizes.append(n - sum(sizes))
    return sizes
