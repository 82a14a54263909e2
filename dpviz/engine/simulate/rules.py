"""The update rules: one :class:`UpdateRule` per algorithm id (:data:`RULES`) -- ``init`` (its state), ``step``
(one iteration of every chain) and ``output`` -- and :class:`_Chains`, everything a rule sees.

The generic loop that drives a rule (random streams, blocks of indices and noise, progress, cancel) is in
:mod:`dpviz.engine.simulate.run`; the kernels the rules share are in :mod:`dpviz.engine.simulate.kernels`.
"""

from __future__ import annotations

import math

import numpy as np

from dpviz.engine.simulate.kernels import (_bcast, _full_grad, _hessian, _history_grad, _pidp_noise_needed, _project,
                                    _regularised_hessian, _solve_erm)
from dpviz.engine.simulate.spec import _epoch_sizes


class _Chains:
    """Everything an update rule sees: the chains' settings, the training data, the random streams and buffers.

    ``X, y`` are the training rows shared by every grid point, or one set per grid point (``X`` of shape
    (G, n, d)), which is how neighbouring data sets S and S' run side by side (:func:`run_chains`).  ``rngs[g]`` are
    the grid point's (indices, per-step noise, output noise) streams.  ``ibuf / jbuf / nbuf`` are the blocks of
    indices and noise drawn by the loop for the current block of steps (``s`` indexes them).
    """

    def __init__(self, *, lossobj, spec, X, y, plans, reps, pshape, R, rngs, noise=None, indices=None,
                 output_noise=None, track_average=False):
        self.lossobj, self.spec, self.X, self.y, self.plans, self.reps = lossobj, spec, X, y, plans, reps
        self.pshape, self.R, self.rngs = pshape, R, rngs
        self.noise, self.indices, self.output_noise = noise, indices, output_noise
        self.G = len(plans)
        self.nparam = len(pshape)
        self.constraint = plans[0].get("constraint") if plans else None
        self.shape = (self.G, reps) + pshape
        self.ndim = len(self.shape)
        self.active = np.array([p["run"] for p in plans])
        self.Tg = np.array([p["T"] if p["run"] else 0 for p in plans])
        self.Tmax = int(self.Tg.max()) if self.G else 0
        self.ng = np.array([p["n"] for p in plans])
        self.eta = _bcast([p["eta"] for p in plans], self.ndim)
        self.sig = _bcast([p["sigma"] for p in plans], self.ndim)
        self.grad_noise = spec.noise == "gradient" and bool(np.any(self.sig > 0))
        self.sig_scalar = float(self.sig.ravel()[0]) if np.all(self.sig == self.sig.ravel()[0]) else None
        self.eta_scalar = float(self.eta.ravel()[0]) if np.all(self.eta == self.eta.ravel()[0]) else None
        self.uniform_T = bool(np.all(self.Tg == self.Tmax))
        self.track_average = track_average
        self.extra: dict[str, np.ndarray] = {}  # per-chain by-products (G, reps), e.g. PIDP-SGD's noisy fraction
        self.keep_step = False  # _GradientRule keeps w_t and the noisy gradient of the step in state["prev"], ["g"]
        self.ibuf = self.jbuf = self.nbuf = None

    def rows(self, I):
        """Training rows X[I], y[I] for an index array I of shape (G, reps, ...)."""
        if self.X.ndim == 2:
            return self.X[I], self.y[I]
        g = np.arange(self.G).reshape((self.G,) + (1,) * (np.ndim(I) - 1))
        return self.X[g, I], self.y[g, I]

    def data(self, g):
        """Grid point g's training rows (the first n of them)."""
        n = self.ng[g]
        if self.X.ndim == 2:
            return self.X[:n], self.y[:n]
        return self.X[g, :n], self.y[g, :n]


class UpdateRule:
    """One algorithm's update rule: ``init`` (state), ``step`` (one iteration of every chain), ``output``.

    Rules with ``per_grid = False`` advance all grid points and repetitions together, one step at a time, with the
    indices and noise the generic loop draws in blocks (``ctx.ibuf``, ``ctx.jbuf``, ``ctx.nbuf``); rules with
    ``per_grid = True`` (rounds or epochs of their own) run one grid point at a time, all repetitions together, and
    draw from the grid point's streams themselves.  ``sampling`` says which indices the loop draws: ``"one"``,
    ``"pair"`` (i != j) or ``None``.
    """

    per_grid = False
    sampling: str | None = None
    extras: tuple[str, ...] = ()  # per-chain by-products the rule records in ctx.extra (columns of the frame)

    def init(self, ctx): ...

    def step(self, ctx, state, t, s): ...

    def output(self, ctx, state): ...


class _GradientRule(UpdateRule):
    """w <- Proj_W(w - eta (direction + sigma b)); the running sum of the iterates gives the averaged output."""

    def __init__(self, output="average"):
        self.out_kind = output

    def init(self, ctx):
        acc = np.zeros(ctx.shape) if (self.out_kind != "last" or ctx.track_average) else None
        return {"w": np.zeros(ctx.shape), "acc": acc}

    def direction(self, ctx, state, t, s):
        raise NotImplementedError

    def step(self, ctx, state, t, s):
        w, acc = state["w"], state["acc"]
        grad = self.direction(ctx, state, t, s)
        grad = np.array(grad, dtype=float, copy=True) if not isinstance(grad, np.ndarray) else grad
        if ctx.grad_noise:
            b = ctx.noise(t) if ctx.noise is not None else ctx.nbuf[:, s]
            grad = grad + (ctx.sig_scalar * b if ctx.sig_scalar is not None else ctx.sig * b)
        if ctx.keep_step:  # the released noisy gradient at w_t, for a monitor (the audit's trajectory score)
            state["prev"], state["g"] = w, np.array(grad, dtype=float, copy=True)
        if acc is not None:
            if ctx.uniform_T:
                acc += w
            else:
                acc += w * _bcast(t < ctx.Tg, ctx.ndim)
        grad *= ctx.eta_scalar if ctx.eta_scalar is not None else ctx.eta
        if ctx.uniform_T:
            state["w"] = _project(w - grad, ctx.R, ctx.nparam, ctx.constraint)
        else:
            state["w"] = np.where(_bcast(t < ctx.Tg, ctx.ndim) > 0,
                                  _project(w - grad, ctx.R, ctx.nparam, ctx.constraint), w)

    def average(self, ctx, state, kind=None):
        kind = kind or self.out_kind
        T_b = _bcast(np.maximum(ctx.Tg, 1), ctx.ndim)
        if kind == "average0":
            return (state["acc"] + state["w"]) / (T_b + 1)
        if kind == "average1":  # w_1..w_T after T steps from w_0 = 0 (init): (acc - w_0 + w_T)/T
            return (state["acc"] + state["w"]) / T_b
        return state["acc"] / T_b

    def output(self, ctx, state):
        return state["w"] if self.out_kind == "last" else self.average(ctx, state)


class SGDRule(_GradientRule):
    """One uniformly drawn example (or pair i != j) per step: wang-lownoise Algorithms 1-2, wang-nonsmooth Algorithm 1, kang-pidp eq. (1)."""

    def __init__(self, output="average", pairs=False):
        super().__init__(output)
        self.pairs = pairs
        self.sampling = "pair" if pairs else "one"

    def direction(self, ctx, state, t, s):
        if ctx.indices is not None:
            I = ctx.indices(t)
            if self.pairs:
                I, J = (np.asarray(a, dtype=np.intp) for a in I)
            else:
                I = np.asarray(I, dtype=np.intp)
        else:
            I = ctx.ibuf[:, s]
            J = ctx.jbuf[:, s] if self.pairs else None
        xi, yi = ctx.rows(I)
        if self.pairs:
            xj, yj = ctx.rows(J)
            return ctx.lossobj.grad(state["w"], xi, yi, xj, yj)
        return ctx.lossobj.grad(state["w"], xi, yi)


class HistoryRule(_GradientRule):
    """Pairwise SGD averaging over all previously drawn examples (yang-pairwise Algorithm 1); keeps the index history."""

    sampling = "one"

    def init(self, ctx):
        state = super().init(ctx)
        hist = np.zeros((ctx.G, ctx.reps, ctx.Tmax + 1), dtype=np.intp)
        for g in range(ctx.G):
            hist[g, :, 0] = (np.asarray(ctx.indices(0), dtype=np.intp)[g] if ctx.indices is not None
                             else ctx.rngs[g][0].integers(0, ctx.ng[g], size=ctx.reps))
        state["hist"] = hist
        return state

    def direction(self, ctx, state, t, s):
        new = np.asarray(ctx.indices(t + 1), dtype=np.intp) if ctx.indices is not None else ctx.ibuf[:, s]
        hist = state["hist"]
        hist[:, :, t + 1] = new
        return _history_grad(ctx, state["w"], new, hist[:, :, :t + 1])


class FullGradientRule(_GradientRule):
    """Full-batch (pairwise) empirical gradient per step: GD, xue-pairwise Algorithms 1, 2 and 4."""

    def __init__(self, output="average0", pairs=False):
        super().__init__(output)
        self.pairs = pairs

    def direction(self, ctx, state, t, s):
        w = state["w"]
        out = []
        for g in range(ctx.G):
            if t < ctx.Tg[g]:
                Xg, yg = ctx.data(g)
                out.append(_full_grad(ctx.lossobj, w[g], Xg, yg, self.pairs, ctx.nparam))
            else:
                out.append(np.zeros(w.shape[1:]))
        return np.stack(out)


class EpochRule(UpdateRule):
    """Algorithm 3 (DPEGD) of Xue, Yang, Huai & Wang (xue-pairwise), one grid point at a time (its epochs have their own data,
    step sizes and output noise).  The plan's ``schedule`` holds the per-epoch Gaussian standard deviations sigma_i,
    or with ``epoch_laplace`` the per-epoch Laplace scales (the delta = 0 variant: coordinate-wise Lap(scale_i)).

    Each epoch's average w_bar_i: with the plan's ``epoch_average = "proof"`` (default) the average of
    w_0, ..., w_{n_i} over n_i + 1 points, w_0 = w_{i-1} the epoch's (already private) start, as in Lemma 9 of Xue,
    Yang, Huai & Wang, used in the proof of Theorem 3; with ``"printed"`` the average of w_1..w_{n_i} (Algorithm 3,
    line 4, "the average parameter after n_i iterations").  Both have sensitivity <= 4 G eta_i (Lemma 7: iterate t
    moves by at most 4 t eta_i G / n_i; w_0 does not depend on D_i), so the calibrated noise is private for both."""

    per_grid = True
    own_output_noise = True

    def steps(self, ctx, g):
        return sum(_epoch_sizes(ctx.plans[g]["n"]))

    def init(self, ctx, g):
        return {"w": np.zeros(ctx.shape[1:]), "sizes": _epoch_sizes(ctx.plans[g]["n"]), "epoch": 0, "pos": 0,
                "start": 0}

    def step(self, ctx, st, g, t):
        pl = ctx.plans[g]
        i, m = st["epoch"] + 1, st["sizes"][st["epoch"]]
        if st["pos"] == 0:
            Xg, yg = ctx.data(g)
            st["Xi"], st["yi"] = Xg[st["start"]:st["start"] + m], yg[st["start"]:st["start"] + m]
            st["start"] += m
            proof = pl.get("epoch_average", "proof") == "proof"
            st["acc"] = st["w"].copy() if proof else np.zeros_like(st["w"])  # w_0 counts in Lemma 9's average
            st["navg"] = m + 1 if proof else m
        eta_i = pl["eta"] * 4.0 ** (-i)
        st["w"] = _project(st["w"] - eta_i * _full_grad(ctx.lossobj, st["w"], st["Xi"], st["yi"], True, ctx.nparam),
                           ctx.R, ctx.nparam, ctx.constraint)
        st["acc"] += st["w"]
        st["pos"] += 1
        if st["pos"] == m:
            if ctx.output_noise is not None:
                z = np.asarray(ctx.output_noise, float)[g][i - 1]
            elif pl["epoch_laplace"]:
                z = ctx.rngs[g][2].laplace(0.0, 1.0, size=st["w"].shape)
            else:
                z = ctx.rngs[g][2].standard_normal(size=st["w"].shape)
            st["w"] = st["acc"] / st["navg"] + pl["schedule"][i - 1] * z
            st["epoch"] += 1
            st["pos"] = 0

    def output(self, ctx, st, g):
        return st["w"]


class PIDPRule(UpdateRule):
    """Algorithm 1 (PIDP-SGD) of Kang, Li, Liu & Wang (kang-pidp), one grid point at a time (rounds with a Hessian
    at the round's global model).

    Start (line 2's theta~): 0 by default, like DP-SGD-PL (``pidp_start="zero"``); ``pidp_start="erm"`` starts at
    the non-private empirical risk minimiser (leaks the data: the run is marked not private); ``theta0`` gives a
    start.  Each round's Hessian is regularised as in Remark 5 (H + zeta I where lambda_min(H) < zeta) instead of
    pseudo-inverted, and lambda_min >= zeta is checked (the sensitivity 2G/(n zeta) assumes it; a failure marks the
    grid point not private).  Records per chain the fraction of noisy steps (``noisy_fraction``) and of rounds whose
    Hessian needed zeta I (``hessian_regularised``)."""

    per_grid = True
    extras = ("noisy_fraction", "hessian_regularised")

    def steps(self, ctx, g):
        q = ctx.plans[g]["pidp"]
        return q["rounds"] * q["T_local"]

    def init(self, ctx, g):
        if ctx.nparam != 1:
            raise ValueError("PIDP-SGD is implemented for vector parameters only.")
        q = ctx.plans[g]["pidp"]
        Xn, yn = ctx.data(g)
        d = Xn.shape[1]
        start = q.get("start", "zero")
        if start == "erm":
            theta0 = _solve_erm(ctx.lossobj, Xn, yn, d)
        elif start == "given":
            theta0 = np.asarray(q["theta0"], dtype=float).reshape(d)
        else:
            theta0 = np.zeros(d)
        return {"w": np.tile(theta0, (ctx.reps, 1)), "noisy": np.zeros(ctx.reps), "t": 0,
                "reg": np.zeros(ctx.reps), "rounds": 0, "bad": 0,
                "ke": math.expm1(q["eps1"]), "A": 2.0 * q["r"] * math.exp(q["eps1"]) * q["delta1"]}

    def step(self, ctx, st, g, t):
        pl = ctx.plans[g]
        q, n, eta, sigma = pl["pidp"], pl["n"], pl["eta"], pl["sigma"]
        Xn, yn = ctx.data(g)
        if t % q["T_local"] == 0:  # a new round: global model theta^(g), its Hessian (Remark 5) and inverse
            st["wg"] = st["w"].copy()
            Hu, reg, ok = _regularised_hessian(_hessian(ctx.lossobj, st["wg"], Xn, yn), q["zeta"])
            st["Hinv"] = np.linalg.pinv(Hu)  # lambda_min(Hu) >= zeta > 0: this is the inverse
            st["reg"] += reg
            st["rounds"] += 1
            st["bad"] += int(np.sum(~ok))
        w, wg, ke, A = st["w"], st["wg"], st["ke"], st["A"]
        i = (np.asarray(ctx.indices(t), dtype=np.intp)[g] if ctx.indices is not None
             else ctx.rngs[g][0].integers(0, n, ctx.reps))
        c = np.einsum("rij,rj->ri", st["Hinv"], ctx.lossobj.grad(wg, Xn[i], yn[i])) / n
        c = 2.0 * (c + q["E"] * np.sign(c))
        if q["sigma_c"] > 0:
            c = c + q["sigma_c"] * ctx.rngs[g][1].standard_normal(c.shape)
        use_noise = _pidp_noise_needed(np.abs(c), A=A, ke=ke, eps1=q["eps1"])
        b = (np.asarray(ctx.noise(t), dtype=float)[g] if ctx.noise is not None
             else ctx.rngs[g][1].standard_normal(w.shape))
        grad = ctx.lossobj.grad(w, Xn[i], yn[i]) + (sigma * use_noise)[:, None] * b
        st["w"] = _project(w - eta * grad, ctx.R, 1)
        st["noisy"] += use_noise
        st["t"] += 1

    def output(self, ctx, st, g):
        ctx.extra["noisy_fraction"][g] = st["noisy"] / max(st["t"], 1)
        ctx.extra["hessian_regularised"][g] = st["reg"] / max(st["rounds"], 1)
        if st["bad"]:
            pl = ctx.plans[g]
            why = (f"in {st['bad']} of {st['rounds'] * ctx.reps} (round, chain) Hessians lambda_min(H + zeta I) < "
                   f"zeta = {pl['pidp']['zeta']:g} (the Hessian is not positive semi-definite: is the loss convex?), "
                   "so the contribution's sensitivity 2G/(n zeta) does not hold: not private")
            pl["feasible"] = False
            pl["nonprivate"] = list(pl.get("nonprivate", [])) + [why]
        return st["w"]


#: The update rule of each algorithm id in :data:`SPECS`.
RULES: dict[str, UpdateRule] = {
    "sgd": SGDRule("average"),
    "gd": FullGradientRule("average0", pairs=False),
    "dpsgd-rdp": SGDRule("average"),
    "dpsgd-rdp-pairwise": SGDRule("average", pairs=True),
    "dpsgd-output": SGDRule("average"),
    "pairwise-sgd": HistoryRule("average"),
    "pairwise-sgd-output": HistoryRule("average"),
    "dpsgd-pl": SGDRule("last"),
    "dpgd-sc": FullGradientRule("last", pairs=True),
    "dpgd-c": FullGradientRule("average0", pairs=True),
    "dpgdc": FullGradientRule("average1", pairs=True),
    "dp-epoch-gd": EpochRule(),
    "pidp-sgd": PIDPRule(),
}
