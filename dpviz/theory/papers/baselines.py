"""Non-private baselines: plain projected SGD and full-batch gradient descent.

These carry no privacy calibration (``calibrate=None``); the simulation engine runs them as the noise-free limits of
the private algorithms (DP-SGD with sigma = 0 is SGD; DPGD with sigma = 0 is GD).
"""

from __future__ import annotations

from dpviz.theory.catalog import Algorithm, Paper

PAPER = None

_NONE = Paper(
    key="baseline",
    authors="textbook baseline",
    short="non-private baseline",
    title="Projected stochastic / full-batch gradient descent",
    venue="",
    year=0,
)

ALGORITHMS = [
    Algorithm(
        id="sgd",
        name="SGD (non-private)",
        paper=_NONE,
        place="baseline",
        setting="pointwise",
        perturbation="none",
        assumptions=("convex", "lipschitz"),
        calibrate=None,
        description="Projected SGD, w_{t+1} = Proj_W(w_t - eta grad f(w_t; z_{i_t})), output the average iterate.",
        noise="none",
    ),
    Algorithm(
        id="gd",
        name="GD (non-private)",
        paper=_NONE,
        place="baseline",
        setting="pointwise",
        perturbation="none",
        assumptions=("convex", "lipschitz"),
        calibrate=None,
        description="Projected full-batch gradient descent on the empirical risk.",
        noise="none",
    ),
]

THEOREMS: list = []
TABLES: list = []
