"""The run plan: validate a request and compute every grid point's settings before anything runs.

:func:`_plan` turns (algorithm id, data set, loss, grid, repetitions, params) into one plan per grid point -- n, T,
eta, the noise (sigma, a Laplace scale or a per-epoch schedule) and which rule produced it (the theorem's calibration
through :func:`dpviz.theory.catalog.calibrate`, the papers' experimental rule, the caller), whether the release is private
per the theorem, whether the point runs at all, and PIDP-SGD's extra settings.  :func:`dpviz.engine.simulate.simulate`,
:func:`dpviz.engine.simulate.run_chains` and :func:`dpviz.engine.simulate.estimate_cost` all start here.
"""

from __future__ import annotations

import math

import numpy as np

from dpviz.foundation import validate as v
from dpviz.theory import catalog
from dpviz.engine.simulate.spec import _ENGINE_SWITCHES, _MATRIX_SETS, SPECS, _epoch_sizes, supported_algorithms


class _LinearLoss:
    """Fallback least-squares / logistic losses, used only if ``dpviz.engine.losses`` is not importable.

    least squares: f(w; x, y) = (<w, x> - y)^2 / 2;  logistic: f(w; x, y) = log(1 + exp(-y <w, x>)).
    """

    setting = "pointwise"
    param = "vector"

    def __init__(self, kind: str):
        self.kind = kind
        self.alpha = 1.0

    def value(self, w, x, y, x2=None, y2=None):
        m = np.einsum("...i,...i->...", w, x)
        if self.kind == "least-squares":
            return 0.5 * (m - y) ** 2
        return np.logaddexp(0.0, -y * m)

    def grad(self, w, x, y, x2=None, y2=None):
        m = np.einsum("...i,...i->...", w, x)
        if self.kind == "least-squares":
            return (m - y)[..., None] * x
        return (-y * 0.5 * (1.0 - np.tanh(0.5 * y * m)))[..., None] * x

    def constants(self, kappa, R):
        if self.kind == "least-squares":
            return {"G": kappa * (kappa * R + 1.0), "L": kappa**2, "M": kappa, "alpha": 1.0}
        return {"G": kappa, "L": kappa**2 / 4, "M": kappa / 2, "alpha": 1.0}


def _resolve_loss(loss):
    if not isinstance(loss, str):
        for attr in ("grad", "value"):
            if not hasattr(loss, attr):
                raise ValueError(f"the loss object needs a .{attr}(w, x, y, ...) method.")
        return loss, getattr(loss, "id", type(loss).__name__)
    try:
        from dpviz.engine.losses import get_loss  # type: ignore
    except ImportError:
        if loss in ("least-squares", "logistic"):
            return _LinearLoss(loss), loss
        raise ValueError(f"loss {loss!r} is not available (dpviz.engine.losses is missing).") from None
    return get_loss(loss), loss


def _setting(loss) -> str:
    return getattr(loss, "setting", "pointwise")


def _grid(grid):
    if grid is None or grid == {}:
        return None, [None]
    if not isinstance(grid, dict) or len(grid) != 1:
        raise ValueError('grid must be a dict with one parameter, e.g. {"eps": [0.5, 1, 2]} or {"n": [500, 1000]}.')
    (name, values), = grid.items()
    values = list(np.atleast_1d(np.asarray(values, dtype=float)))
    if not values:
        raise ValueError(f"the grid over {name} is empty.")
    if len(values) > 200:
        raise ValueError(f"at most 200 grid points, got {len(values)}.")
    return str(name), [float(x) for x in values]


def _plan(algorithm_id, data, loss, grid, reps, params):
    """Validate inputs and compute per-grid-point settings (n, T, eta, sigma, ...)."""
    if algorithm_id not in SPECS:
        raise ValueError(
            f"the simulation engine does not run {algorithm_id!r}; it runs: {', '.join(supported_algorithms())}")
    spec = SPECS[algorithm_id]
    if not all(hasattr(data, a) for a in ("X", "y", "X_test", "y_test", "task")):
        raise ValueError("data must be a dpviz.engine.data.Dataset (use dpviz.engine.data.load_dataset or dpviz.engine.data.from_csv).")
    try:
        alg_name = catalog.get_algorithm(algorithm_id).name
    except ValueError:
        # the update rule is known but the paper's calibration is not in the catalogue: runnable only with an
        # explicit noise level (params["sigma"]) or as a noise-free run
        if spec.noise != "none" and (params or {}).get("sigma") is None and \
                (params or {}).get("sigma_schedule") is None:
            raise ValueError(f"the calibration of {algorithm_id!r} is not in the catalogue; give params['sigma'].") \
                from None
        alg_name = algorithm_id
    lossobj, loss_id = _resolve_loss(loss)
    reps = v.check_int("reps", reps)
    params = dict(params or {})
    gname, gvals = _grid(grid)
    setting = _setting(lossobj)
    if spec.pairs and setting != "pairwise":
        raise ValueError(f"{alg_name} is a pairwise algorithm; choose a pairwise loss (e.g. auc-square).")
    if not spec.pairs and setting == "pairwise":
        raise ValueError(f"{alg_name} is for pointwise losses; {loss_id!r} is pairwise.")
    matrix = getattr(lossobj, "param", "vector") == "matrix"
    d = data.d
    pshape = (d, d) if matrix else (d,)
    R = params.get("R")
    R = None if R is None else v.check_positive("R (domain radius)", R)
    constraint = _constraint(algorithm_id, matrix, params.get("constraint"))
    allow_np = params.get("allow_nonprivate", False)
    if not isinstance(allow_np, (bool, np.bool_)):
        raise ValueError(f"allow_nonprivate must be True or False, got {allow_np!r}.")
    loss_mu = _loss_mu(lossobj, data, R)
    chi = None
    if matrix and spec.pairs and "chi" not in params:
        from dpviz.engine.data import metric_chi

        try:
            chi = metric_chi(np.asarray(data.X_test, float))  # Yang et al. Lemma 5: X = x - x' (see metric_chi)
        except ValueError:
            chi = None
    plans = []
    sig_list = params.get("sigma")
    if sig_list is not None and np.ndim(sig_list) > 0:
        if len(sig_list) != len(gvals):
            raise ValueError(f"params['sigma'] lists {len(sig_list)} values for {len(gvals)} grid points.")
    per_point = {}  # T and eta given per grid point (a theorem's schedule at each point's own n or eps)
    for key in ("T", "eta"):
        val = params.get(key)
        if val is not None and np.ndim(val) > 0:
            if gname in (key, None) or len(val) != len(gvals):
                raise ValueError(f"params['{key}'] lists {len(val)} values: give one {key}, or one per grid point "
                                 f"({len(gvals)}) of a grid over another parameter.")
            per_point[key] = list(val)
    for gi, gv in enumerate(gvals):
        p = dict(params)
        for key, vals in per_point.items():
            p[key] = vals[gi]
        if gname is not None:
            p[gname] = int(gv) if gname in ("n", "T") else gv
        n = v.check_n(p.get("n", data.n))
        if n > data.n:
            raise ValueError(f"n = {n} exceeds the {data.n} training examples of the data set.")
        p["n"] = n
        p["d"] = int(np.prod(pshape))
        if hasattr(lossobj, "constants") and R is not None:
            try:
                const = lossobj.constants(kappa=max(data.x_bound, 1e-12), R=R)
            except (TypeError, ValueError):
                const = {}
            for k, val in const.items():
                if k != "mu":  # mu below: only a positive (guaranteed) strong-convexity constant is passed on
                    p.setdefault(k, val)
        if loss_mu > 0:
            p.setdefault("mu", loss_mu)
        if chi is not None:
            p.setdefault("chi", chi)
        nonprivate: list[str] = []  # why this grid point's release is not private although it runs
        if "delta" not in p and spec.noise != "none":
            p["delta"] = 1.0 / n**2
        if algorithm_id == "dpsgd-pl" and "eta" not in p and p.get("L"):
            p["eta"] = 1.0 / float(p["L"])
        sigma_override = p.pop("sigma", None)
        if sigma_override is not None and np.ndim(sigma_override) > 0:
            sigma_override = float(np.asarray(sigma_override, dtype=float)[gi])
        if algorithm_id == "dpgd-sc" and spec.noise != "none":
            nonprivate += _check_strong_convexity(alg_name, loss_id, params.get("mu"), loss_mu, allow_np,
                                                  calibrating=sigma_override is None)
        cal, sigma_rule = _point_noise(algorithm_id, spec, p, sigma_override, n)
        T = p.get("T", cal.T)
        eta = p.get("eta", cal.eta)
        if spec.kind == "epoch":
            T = sum(_epoch_sizes(n)) if T is None else T  # total number of GD steps over all epochs
        if algorithm_id == "pidp-sgd":
            if T is None and p.get("rounds") is not None and p.get("T_local") is not None:
                T = int(p["rounds"]) * int(p["T_local"])
        if T is None or eta is None:
            raise ValueError(f"{alg_name} needs the number of iterations T and the step size eta (set them in params).")
        T = v.check_int("T", T)
        eta = v.check_positive("eta", eta)
        sched = p.get("sigma_schedule", cal.sigma_schedule)
        epoch_laplace = False
        if spec.kind == "epoch" and sched is None and cal.extras.get("laplace_schedule") is not None:
            sched = [float(x) for x in cal.extras["laplace_schedule"]]  # delta = 0: Laplace noise per epoch
            epoch_laplace = True
        if spec.kind == "epoch":
            if sched is None:
                raise ValueError("DP epoch GD needs the per-epoch noise levels (the calibration's sigma_schedule).")
            if len(sched) != len(_epoch_sizes(n)):
                raise ValueError(f"sigma_schedule has {len(sched)} entries; n = {n} gives {len(_epoch_sizes(n))} epochs.")
            if cal.sigma is None and not epoch_laplace:
                cal.sigma = float(sched[0])
        rule = params.get("noise_rule", "calibrated")
        if rule not in ("calibrated", "experiment"):
            raise ValueError(f"noise_rule must be 'calibrated' or 'experiment', got {rule!r}.")
        if (sigma_override is None and cal.extras.get("sigma_unconstrained") is not None
                and (rule == "experiment" or (cal.sigma is None and params.get("run_infeasible")))):
            sigma_rule = _apply_experiment_rule(cal, rule)
        sigma = cal.sigma if cal.sigma is not None else 0.0
        lap = cal.laplace_scale if (cal.sigma is None and cal.laplace_scale is not None) else None
        run = cal.feasible or bool(params.get("run_infeasible") or rule == "experiment" or allow_np
                                   or params.get("sigma_rule") in ("printed", "proof")) and (
            cal.sigma is not None or lap is not None)
        if spec.noise != "none" and cal.sigma is None and lap is None and sched is None:
            run = False
        epoch_average = None
        if spec.kind == "epoch":
            epoch_average = params.get("epoch_average", "proof")
            if epoch_average not in ("proof", "printed"):
                raise ValueError("epoch_average must be 'proof' (the average of w_0..w_{n_i} over n_i + 1 points, "
                                 "Lemma 9 in the proof of Theorem 3) or 'printed' (w_1..w_{n_i}, Algorithm 3 as "
                                 f"printed), got {epoch_average!r}.")
        cal.extras = dict(cal.extras)
        # the parameters of this grid point, as the catalogue's theorems take them (engine switches left out)
        cal.extras["_params"] = {**{k: val for k, val in p.items() if k not in _ENGINE_SWITCHES}, "T": T, "eta": eta}
        pidp = None
        if spec.kind == "pidp":
            pidp, T = _pidp_plan(p, cal, params, R=R, T=T, loss_mu=loss_mu, d=d, nonprivate=nonprivate)
        if nonprivate:
            cal.feasible = False
            cal.reason = "; ".join(nonprivate)
            cal.notes = list(cal.notes) + nonprivate
        plans.append({"grid": gv, "n": n, "T": T, "eta": eta, "schedule": sched, "epoch_laplace": epoch_laplace,
                      "pidp": pidp, "sigma": float(sigma), "laplace": lap, "sigma_rule": sigma_rule,
                      "feasible": bool(cal.feasible), "run": bool(run), "cal": cal, "delta": p.get("delta"),
                      "eps": p.get("eps"), "constraint": constraint, "epoch_average": epoch_average,
                      "nonprivate": nonprivate})
    return alg_name, spec, lossobj, loss_id, reps, gname, gvals, pshape, R, plans, params


def _point_noise(algorithm_id, spec, p, sigma_override, n):
    """The calibration of one grid point and the rule that produced its noise: none (a noise-free algorithm), the
    caller's sigma (``"caller"``) or per-epoch schedule (``"caller-schedule"``), or the theorem's calibration
    through :func:`dpviz.theory.catalog.calibrate` (``"calibrated"``)."""
    if spec.noise == "none":
        cal = catalog.Calibration(id=algorithm_id, feasible=True, sigma=0.0, reason="non-private: no noise")
    elif sigma_override is not None:
        cal = catalog.Calibration(id=algorithm_id, feasible=True, sigma=v.check_nonnegative("sigma", sigma_override),
                                  reason="noise standard deviation set by the caller")
        base = None
        if spec.kind in ("epoch", "pidp"):
            # the caller's sigma replaces the training noise only: DPEGD's per-epoch ratios (sigma_i / eta_i
            # constant, sigma_1 = sigma) and PIDP-SGD's budget split and contribution noise still come from the
            # calibration (issue 21) -- when the parameters allow one; otherwise (e.g. no eps) they come from
            # params, as before
            try:
                base = catalog.calibrate(algorithm_id,
                                         **{k: val for k, val in p.items() if k not in _ENGINE_SWITCHES})
            except ValueError:
                base = None
        if base is not None:
            cal.extras = dict(base.extras or {})
            if spec.kind == "epoch":
                s0 = float(base.sigma_schedule[0]) if base.sigma_schedule else 0.0
                cal.sigma_schedule = ([cal.sigma * float(x) / s0 for x in base.sigma_schedule] if s0 > 0
                                      else [cal.sigma] * len(_epoch_sizes(n)))
    elif p.get("sigma_schedule") is not None:
        sched_in = [v.check_nonnegative("sigma_schedule entry", x) for x in p["sigma_schedule"]]
        cal = catalog.Calibration(id=algorithm_id, feasible=True, sigma_schedule=sched_in,
                                  reason="per-epoch noise set by the caller")
    else:
        cal = catalog.calibrate(algorithm_id, **{k: val for k, val in p.items() if k not in _ENGINE_SWITCHES})
    sigma_rule = ("none" if spec.noise == "none" else "caller" if sigma_override is not None
                  else "caller-schedule" if p.get("sigma_schedule") is not None else "calibrated")
    return cal, sigma_rule


def _apply_experiment_rule(cal, rule: str) -> str:
    """Replace the calibrated sigma by the noise rule of the papers' experiments (in place); returns the rule's
    name ("experiment", or "experiment-fallback" when it stands in for an infeasible calibration)."""
    # the noise formula at the beta that minimises it over all of (0, 1), ignoring the sufficient privacy
    # conditions -- the rule of the papers' own experiments (Wang, Lei, Ying & Zhou, Section 5.1).  It is
    # private per the theorem exactly when it is at least the calibrated (private) sigma: more Gaussian noise
    # per step is a post-processing of the calibrated mechanism.  Since the calibration minimises sigma over
    # the feasible beta only, that happens when the unconstrained minimiser is itself feasible.
    sig_cal, feas_cal = cal.sigma, cal.feasible
    sig_exp = float(cal.extras["sigma_unconstrained"])
    exp_private = bool(feas_cal and sig_cal is not None and sig_exp >= sig_cal * (1.0 - 1e-12))
    cal.sigma = sig_exp
    cal.feasible = exp_private
    sigma_rule = "experiment" if rule == "experiment" else "experiment-fallback"
    cal.notes = list(cal.notes) + ["sigma from the paper's formula at the sigma-minimising beta, without "
                                   "the theorem's privacy conditions (as in the paper's experiments)"]
    if exp_private:
        cal.reason = (f"noise rule of the paper's experiments (beta minimising sigma over (0, 1)); here it "
                      f"equals the calibrated sigma = {sig_cal:.4g}, which meets the theorem's conditions")
    elif feas_cal and sig_cal is not None:
        cal.reason = (f"noise rule of the paper's experiments (beta minimising sigma over (0, 1)) gives "
                      f"sigma = {sig_exp:.4g}, below the private sigma = {sig_cal:.4g} of the theorem's "
                      "calibration at this point: not private per the theorem")
    else:
        cal.reason = ("noise rule of the paper's experiments (beta minimising sigma over (0, 1)); the "
                      f"theorem's calibration has no private sigma here ({cal.reason})")
    return sigma_rule


def _pidp_plan(p, cal, params, *, R, T, loss_mu, d, nonprivate):
    """PIDP-SGD's settings of one grid point (Kang, Li, Liu & Wang (kang-pidp), Algorithm 1): eps1, delta1,
    sigma_c, r, E, rounds x T_local, zeta (Remark 5) and the start; returns (settings, T = rounds * T_local) and
    appends to ``nonprivate`` why the run is not private (a start at the non-private minimiser)."""
    pidp = {}
    for key in ("eps1", "delta1", "sigma_c", "r", "E"):
        val = p.get(key, cal.extras.get(key))
        if key == "r" and val is None:
            val = R
        if key == "E" and val is None:
            val = 0.0
        if val is None:
            raise ValueError(f"PIDP-SGD needs {key} (give it in params).")
        pidp[key] = v.check_nonnegative(key, val)
    for key in ("eps1", "delta1", "r"):
        v.check_positive(key, pidp[key])
    from dpviz.theory.papers.kang_pidp import rounds_and_local_steps

    rounds, T_local = rounds_and_local_steps(T, p.get("rounds"), p.get("T_local"))
    pidp["rounds"], pidp["T_local"] = rounds, T_local
    T = rounds * T_local
    zeta = p.get("zeta", cal.extras.get("zeta"))
    if zeta is None and loss_mu > 0:
        zeta = loss_mu
    if zeta is None:
        raise ValueError("PIDP-SGD needs zeta, the lower bound on the Hessian's eigenvalues that the "
                         "contribution's sensitivity 2G/(n zeta) assumes (Kang, Li, Liu & Wang, Theorem 5 "
                         "and Remark 5); give params['zeta'] (or mu, or an L2-regularised loss).")
    pidp["zeta"] = v.check_positive("zeta (Hessian lower bound)", zeta)
    start = params.get("pidp_start", "zero")
    if start not in ("zero", "erm"):
        raise ValueError(f"pidp_start must be 'zero' (theta~ = 0, like DP-SGD-PL) or 'erm' (the non-private "
                         f"empirical risk minimiser, which leaks the data), got {start!r}.")
    theta0 = p.get("theta0")
    if theta0 is not None:
        theta0 = np.asarray(theta0, dtype=float)
        if theta0.shape != (d,) or not np.all(np.isfinite(theta0)):
            raise ValueError(f"theta0 must be {d} finite numbers (the starting model), got shape "
                             f"{theta0.shape}.")
        start = "given"
    if start == "erm":
        nonprivate.append("PIDP-SGD starts at the non-private empirical risk minimiser of the training data "
                          "(pidp_start='erm'): the starting point leaks the data, so the output is not "
                          "(eps, delta)-DP")
    pidp["theta0"], pidp["start"] = theta0, start
    return pidp, T


def _constraint(algorithm_id, matrix, kind):
    """The constraint set W (a name of :data:`dpviz.engine.projections.KINDS`) of a run."""
    from dpviz.engine import projections

    if kind is None:
        return _MATRIX_SETS.get(algorithm_id, "frobenius") if matrix else "l2"
    if kind not in projections.KINDS:
        raise ValueError(f"unknown constraint set {kind!r}; choose one of: {', '.join(projections.KINDS)}.")
    if (kind == "l2") == matrix:
        what = "a matrix parameter (metric learning)" if matrix else "a vector parameter"
        raise ValueError(f"the constraint set {kind!r} does not fit {what}; use "
                         + ("'frobenius', 'psd-frobenius' or 'nuclear'." if matrix else "'l2'."))
    return kind


def _loss_mu(lossobj, data, R) -> float:
    """The strong-convexity constant the loss guarantees for every data set (2 lambda of an L2 regulariser; 0 if
    the loss reports none)."""
    if not hasattr(lossobj, "constants"):
        return 0.0
    try:
        mu = lossobj.constants(kappa=max(float(data.x_bound), 1e-12), R=1.0 if R is None else R).get("mu", 0.0)
    except (TypeError, ValueError, AttributeError):
        return 0.0
    return float(mu) if mu is not None and math.isfinite(float(mu)) and float(mu) > 0 else 0.0


def _check_strong_convexity(alg_name, loss_id, mu_given, loss_mu, allow_np, calibrating):
    """DPGDSC (Xue, Yang, Huai & Wang, Algorithm 1) needs a mu-strongly convex loss (Assumption 1): its output noise
    uses the sensitivity 8G/(mu n) of Lemma 1.  Returns the reasons the run is not private (empty if it is); raises
    ``ValueError`` when the caller has not acknowledged them."""
    regularise = ("choose an L2-regularised loss, e.g. get_loss('auc-logistic', l2=1e-3) (mu = 2 lambda; Xue, Yang, "
                  "Huai & Wang, Section 5, use lambda = 1e-3 for AUC and 1e-2 for metric learning)")
    if mu_given is None:
        if loss_mu > 0:
            return []
        if calibrating:
            raise ValueError(f"{alg_name} needs a strongly convex loss (Xue, Yang, Huai & Wang, Assumption 1 and "
                             f"Lemma 1: sensitivity 8G/(mu n)), but {loss_id!r} has mu = 0; {regularise}; or give "
                             "params mu together with allow_nonprivate=True (the run is then marked not private).")
        return [f"{loss_id!r} is not strongly convex (mu = 0), so Lemma 1's sensitivity 8G/(mu n) of {alg_name} "
                "does not hold and the noise set by the caller carries no privacy guarantee"]
    mu_given = v.check_positive("mu (strong-convexity constant)", mu_given)
    if mu_given <= loss_mu * (1.0 + 1e-12):
        return []
    why = (f"mu = {mu_given:g} is given, but {loss_id!r} guarantees only mu = {loss_mu:g}"
           + (" (an L2 regulariser lambda ||w||^2 gives mu = 2 lambda)" if loss_mu > 0 else " (not strongly convex)"))
    if not allow_np:
        raise ValueError(f"{alg_name}: {why}; Lemma 1 of Xue, Yang, Huai & Wang then does not bound the "
                         f"sensitivity, so the output would not be private. {regularise[0].upper()}{regularise[1:]}, "
                         "or pass allow_nonprivate=True to run it marked not private.")
    return [f"{why}: Lemma 1's sensitivity 8G/(mu n) is not guaranteed, so the output is not (eps, delta)-DP "
            "(run with allow_nonprivate=True)"]
