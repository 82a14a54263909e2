"""Batched simulation engine for the catalogue's private (and non-private) SGD / GD algorithms.

Public API
----------
``simulate(algorithm_id, data, loss, *, grid=None, reps=100, seed=0, params=None, progress=None, cancel=None,
max_work=DEFAULT_MAX_WORK, evaluate=("risk", "metric"), noise=None, indices=None, output_noise=None)``
    -> :class:`SimulationResult` with ``.frame`` (tidy DataFrame, one row per repetition x grid point),
    ``.summary(value)``, ``.slope(value)``, ``.bounds(theorem_id)``, ``.calibrations``, ``.notes``.
``estimate_cost(algorithm_id, data, loss, *, grid=None, reps=100, params=None, evaluate=("risk", "metric"))``
    -> ``{"work": units, "seconds": estimated wall time, "chains": ..., "steps": ...}`` without running anything.
``CostTooHigh``
    ``ValueError`` raised by :func:`simulate` when the estimated work exceeds ``max_work`` (the message gives the
    estimate in seconds and what to reduce).
``Cancelled``
    raised when ``cancel()`` (or ``cancel.is_set()``) becomes true between blocks of steps.
``supported_algorithms()``
    the algorithm ids the engine runs (those of :data:`SPECS` present in the catalogue).

How it runs
-----------
All repetitions and all grid points advance together: the parameter state has shape ``(G, reps, d)`` (``(G, reps,
d, d)`` for matrix parameters, e.g. metric learning), where G is the number of grid points (e.g. eps values).  Each
step samples one index (or one pair i != j) per chain, computes every chain's (sub)gradient with one vectorised call
of the loss, adds each chain's own Gaussian noise ``sigma_g * b`` (sigma from ``dpviz.theory.catalog.calibrate`` at that
chain's grid point), projects onto the constraint set W of radius ``R`` (if ``R`` is given) and adds the iterate to a
running sum for the averaged output.  Only the current iterate and the running sum are stored.

The set W (``params["constraint"]``, names of :data:`dpviz.engine.projections.KINDS`): the Euclidean ball ||w|| <= R for
vector parameters; for matrix parameters (metric learning) the set of the algorithm's paper by default -- positive
semi-definite W with ||W||_F <= R for Xue, Yang, Huai & Wang (xue-pairwise), Example 1 (``dpgd-sc``, ``dpgd-c``,
``dp-epoch-gd``), the nuclear-norm ball ||W||_{S1} <= R for Yang, Lei, Lyu & Ying (yang-pairwise), Lemma 5
(``pairwise-sgd``, ``pairwise-sgd-output``), the Frobenius ball otherwise.  Every set lies in the Frobenius ball of
radius R, so the losses' constants G, L, M (computed for ||W||_F <= R) stay valid, and projections onto convex sets are
non-expansive, which is all the papers' sensitivity arguments use.

Engine shape: each algorithm id has one :class:`UpdateRule` in :data:`RULES` -- ``init`` (its state), ``step`` (one
iteration of every chain) and ``output`` -- and one generic loop (``_loop``) owns the batching of indices and noise,
the random streams, progress, cancel; :func:`simulate` and :func:`run_chains` own the cost guard.  Rules that move all
grid points together (SGD, pairwise SGD with history, full-gradient GD) share the projected noisy gradient step; rules
with rounds or epochs of their own (PIDP-SGD, DPEGD) run one grid point at a time.  :func:`run_chains` runs the same
rule on several training sets side by side (neighbouring S and S' with shared indices and noise, or independent
trials on D and D'), which is what ``dpviz.labs.stability`` and ``dpviz.labs.canary_audit`` build on.

Random numbers: each grid point gets ``SeedSequence(seed, spawn_key=key)`` with a key made from the swept parameter's
name and the point's own value (``run._point_key``; a run without a grid: ``SeedSequence(seed).spawn(1)``), and from
it three independent streams (indices, per-step noise, output noise) of the fast ``SFC64`` bit generator.  Same seed
-> identical results; a grid point's streams depend only on (seed, its value), not on its position or the other grid
values (issue 33: adding or removing grid values changes no other point); algorithms run with the same seed
share their index sequences (common random numbers, so DP-SGD and SGD differ only by the noise).  SFC64 is used
because it draws normals about 1.4x faster than numpy's default PCG64 (the noise is the engine's floor; see
benchmarks/RESULTS.md).  Noise and indices can be injected (``noise``, ``indices``, ``output_noise``) to check an
update by hand.

Update rules (``SPECS``)
------------------------
* ``sgd`` — projected SGD, output (1/T) sum_{t=1}^T w_t (w_1 = 0); noise-free limit of DP-SGD.
* ``gd`` — projected full-batch GD, output the average of w_0..w_T (noise-free limit of DPGD-C).
* ``dpsgd-rdp`` — Wang, Lei, Ying & Zhou (wang-lownoise), Algorithm 1: w_{t+1} = Proj_W(w_t - eta (grad f(w_t; z_{i_t}) + b_t)),
  i_t ~ Unif[n], b_t ~ N(0, sigma^2 I_d), output (1/T) sum_{t=1}^T w_t.
* ``dpsgd-rdp-pairwise`` — same paper, Algorithm 2: as above with a uniform pair (i_t, j_t), i_t != j_t.
* ``dpsgd-output`` — Wang, Lei, Ying & Zhang (wang-nonsmooth), Algorithm 1: non-private projected SGD, averaged iterate, then one
  Gaussian output noise N(0, sigma^2 I_d).
* ``pairwise-sgd`` — Yang, Lei, Lyu & Ying (yang-pairwise), Algorithm 1: w_1 = 0, i_1 ~ Unif[n]; at step t draw i_{t+1} and
  w_{t+1} = Proj_W(w_t - (eta/t) sum_{k=1}^t grad f(w_t; z_{i_{t+1}}, z_{i_k})), output (1/T) sum_{t=1}^T w_t.  The
  average runs over all previously drawn examples; for a general (non-smooth) loss it cannot be kept as a running sum,
  so step t costs t gradient evaluations and a run costs T(T+1)/2 per chain (the cost guard counts this).
* ``pairwise-sgd-output`` — the same paper, Algorithm 2: Algorithm 1, then Gaussian output noise, and the output
  projected back onto W: w_priv = Proj_W(w_bar_T + u), u ~ N(0, sigma^2 I).
* ``dpsgd-pl`` — Kang, Li, Liu & Wang (kang-pidp), eq. (1) and Theorem 1 (DP-SGD under the PL condition):
  theta_{t+1} = theta_t - eta (grad l(theta_t; z_t) + b), **last iterate** theta_T, eta = 1/L by default; eq. (1)
  has no projection, so leave ``R`` unset to follow the paper.
* ``dpgd-sc`` — Xue, Yang, Huai & Wang (xue-pairwise), Algorithm 1: full-gradient projected GD on the pairwise empirical risk,
  last iterate w_T plus Gaussian (delta > 0) or Laplace (delta = 0) output noise.
* ``dpgd-c`` — Xue, Yang, Huai & Wang (xue-pairwise), Algorithm 2: full gradient + N(0, sigma^2 I) per step, output the average of
  w_0..w_T (the printed ``sum_{i=0}^T (w_0+...+w_T)/(T+1)`` has a spurious outer sum; we follow the plain average).
* ``pidp-sgd`` — Kang, Li, Liu & Wang (kang-pidp), Algorithm 1 (Performance Improving DP-SGD): ``rounds`` global rounds of
  ``T_local`` local steps (T = rounds * T_local).  Each round computes the Hessian H of the empirical risk at the
  round's global model theta^(g) (central finite differences of the loss gradient) and its inverse; each local step
  draws z_t, its influence-function contribution c = H^{-1} grad l(theta^(g); z_t) / n (eq. (11)), enlarges it by the
  approximation error E (Theorem 4) coordinate-wise in magnitude, c_t = 2(c + E sign c) + b^(c), b^(c) ~ N(0,
  sigma_c^2 I), and takes a noisy step w - eta (grad + b), b ~ N(0, sigma^2 I), if some |c_t,i| >= A/(e^{eps1} - 1)
  or ln(A / (A - (e^{eps1} - 1)|c_t,i|)) > 2 eps1 for some i, A = 2 r e^{eps1} delta1 (lines 9-10), else a plain
  step.  Output: the last global model.  Line 2 initialises at theta~ = 0 (like DP-SGD-PL;
  ``params["pidp_start"] = "zero"``); ``pidp_start="erm"`` starts at the non-private empirical risk minimiser, which
  leaks the training data, so such runs are marked not private; ``params["theta0"]`` gives a start.  Each round's
  Hessian is regularised as in Remark 5 (H + zeta I where lambda_min(H) < zeta) instead of pseudo-inverted, and
  lambda_min >= zeta -- the premise of the contribution's sensitivity 2G/(n zeta) -- is checked (a failure marks the
  grid point not private).  zeta comes from ``params``, the calibration, or the loss's mu (L2 regulariser); without
  it the engine refuses.  ``eps1, delta1, sigma_c, r, E`` come from ``params`` or the calibration's ``extras``; r
  defaults to the domain radius R, E to 0.  The fraction of noisy steps and of regularised Hessians are recorded per
  chain (``noisy_fraction``, ``hessian_regularised``); when every step got noise the notes say so (PIDP-SGD then is
  DP-SGD with extra work).
* ``dpgdc`` — Xue, Yang, Huai & Wang (xue-pairwise), Algorithm 4 (Appendix C.3): full-gradient projected GD on the
  pairwise empirical risk, output the average of w_1..w_T plus Gaussian (delta > 0) or Laplace (delta = 0) noise.
* ``dp-epoch-gd`` — Xue, Yang, Huai & Wang (xue-pairwise), Algorithm 3: k = floor(log2 n) epochs on disjoint consecutive blocks
  D_i of the training data with n_i = floor(n / 2^i) examples (i < k; D_k the rest); epoch i runs n_i full-gradient
  projected GD steps on the pairwise empirical risk of D_i with eta_i = 4^{-i} eta from w_{i-1}, averages its iterates
  and adds N(0, sigma_i^2 I) with sigma_i from the calibration's ``sigma_schedule``; output w_k.  The average runs
  over w_0..w_{n_i} (n_i + 1 points) as in Lemma 9 of the proof of Theorem 3 (``params["epoch_average"] = "proof"``,
  the default) or over w_1..w_{n_i} as printed in Algorithm 3 (``"printed"``); both are private with the same noise.

DPGDSC (``dpgd-sc``) needs a mu-strongly convex loss (Xue et al., Assumption 1; its noise uses Lemma 1's sensitivity
8G/(mu n)).  mu comes from the loss (an L2 regulariser lambda ||w||^2, ``get_loss(id, l2=lambda)``, gives mu =
2 lambda; Xue et al., Section 5, use lambda = 1e-3 for AUC and 1e-2 for metric learning).  On a loss with mu = 0 the
engine refuses to calibrate; a caller's mu above the loss's is accepted only with ``allow_nonprivate=True`` and the
run is marked not private.  Only a positive mu of the loss is passed to calibrations (a PL constant is never set to
0 because a plain loss reports mu = 0).

Full-gradient pairwise algorithms cost n(n-1) gradient evaluations per chain-step; the cost guard accounts for it.

Results
-------
Per chain: ``emp_risk`` (training objective at the output; for pairwise losses on a fixed sample of pairs),
``pop_risk`` (on the data set's fresh / held-out sample), ``excess_risk`` = pop_risk - F_ref, where F_ref is
the best risk over the same constraint set W on the evaluation sample, as in the papers' excess risks: F(w*) if the
data set is realizable with a known w* in W, otherwise the constrained minimum of
:func:`dpviz.engine.reference.constrained_minimum` (cached; unconstrained L-BFGS only when no R is given); and a task metric
(``mse``, ``error`` = misclassification rate, ``auc`` for pairwise losses on two-class data; none for metric
learning). Risks use (at most) ``eval_rows`` = 2000 rows / pairs per sample; the MSE and misclassification rate use
the whole fresh / held-out sample. Columns: algorithm, loss, dataset, kappa, grid_name, grid, rep, n, eps, delta, T,
eta, sigma (NaN at grid points that did not run), feasible (the release is private per the theorem; False for the
papers' experimental noise rule when its sigma is below the private one, for acknowledged non-private settings, and
for infeasible calibrations run anyway), emp_risk, pop_risk, excess_risk, metric_name, metric (+ noisy_fraction,
hessian_regularised for PIDP-SGD).

Notes (``SimulationResult.notes``): the reference of the excess risk, the set W, and per grid point which rule
produced the noise (the theorem's calibration, the papers' experimental rule, the caller) and whether that noise is
private per the theorem; for points that did not run, why.

Where things are
----------------
One file per concept, each readable in one sitting (this package's ``__init__`` only re-exports):

* :mod:`dpviz.engine.simulate.spec` -- what the engine runs: :data:`SPECS` (one :class:`Spec` per algorithm id), the
  constants (``DEFAULT_MAX_WORK``, ``SECONDS_PER_UNIT``), :class:`CostTooHigh`, :class:`Cancelled`.
* :mod:`dpviz.engine.simulate.plan` -- the run plan: inputs checked, per grid point n, T, eta and the noise with the rule
  that produced it (calibration, the papers' experimental rule, the caller) and whether it is private.
* :mod:`dpviz.engine.simulate.rules` -- the update rules (:data:`RULES`), one class per family; the numerical kernels they
  share (projections, full / history gradients, Hessians) are in :mod:`dpviz.engine.simulate.kernels`.
* :mod:`dpviz.engine.simulate.run` -- the random streams, the generic loop, output perturbation, :func:`simulate` and
  :func:`run_chains`.
* :mod:`dpviz.engine.simulate.evaluate` -- risks, excess risk against the best risk over W, task metrics.
* :mod:`dpviz.engine.simulate.result` -- :class:`SimulationResult` and the run notes.
* :mod:`dpviz.engine.simulate.cost` -- the cost estimate (:func:`estimate_cost`, :func:`gradient_evaluations`) that the
  cost guard uses.

A request flows plan -> rule (driven by the loop in ``run``) -> release -> evaluation -> result.
"""

from __future__ import annotations

# re-exports: every name other modules, the tests and the benchmarks use (the private ones included)

from dpviz.engine.simulate.cost import (_AUC_UNITS_PER_ROW, _EVAL_FACTOR, _KIND_FACTOR, _metric_units, _time_units, _work,
                                 estimate_cost, gradient_evaluations)
from dpviz.engine.simulate.evaluate import _auc, _eval_sample, _evaluate, _mean_loss, _reference
from dpviz.engine.simulate.kernels import (_bcast, _full_grad, _hessian, _history_grad, _pidp_noise_needed, _project,
                                    _regularised_hessian, _solve_erm)
from dpviz.engine.simulate.plan import (_check_strong_convexity, _constraint, _grid, _LinearLoss, _loss_mu, _plan,
                                 _resolve_loss, _setting)
from dpviz.engine.simulate.result import SimulationResult, _noise_text, _run_notes
from dpviz.engine.simulate.rules import (RULES, EpochRule, FullGradientRule, HistoryRule, PIDPRule, SGDRule, UpdateRule,
                                  _Chains, _GradientRule)
from dpviz.engine.simulate.run import ChainRun, _check_cancel, _loop, _release, _streams, run_chains, simulate
from dpviz.engine.simulate.spec import (_BUF_FLOATS, _ENGINE_SWITCHES, _EVAL_ROWS, _MATRIX_SETS, DEFAULT_MAX_WORK,
                                 SECONDS_PER_UNIT, SPECS, Cancelled, CostTooHigh, Spec, _epoch_sizes,
                                 supported_algorithms)

__all__ = [
    "simulate",
    "run_chains",
    "ChainRun",
    "RULES",
    "UpdateRule",
    "gradient_evaluations",
    "estimate_cost",
    "supported_algorithms",
    "SimulationResult",
    "CostTooHigh",
    "Cancelled",
    "SPECS",
    "DEFAULT_MAX_WORK",
    "SECONDS_PER_UNIT",
]
