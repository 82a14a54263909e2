"""Evaluation of the released outputs: empirical, population and excess risk (against the best risk over W), and
the task metric (MSE, misclassification rate, AUC), into the tidy frame of :class:`dpviz.engine.simulate.SimulationResult`.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from dpviz.engine.simulate.spec import _BUF_FLOATS, _EVAL_ROWS


def _eval_sample(data, pairs, which, rows, seed=12345):
    X = np.asarray(data.X if which == "train" else data.X_test, float)
    y = np.asarray(data.y if which == "train" else data.y_test, float)
    rng = np.random.Generator(np.random.PCG64(seed))
    m = min(rows, len(y))
    idx = rng.choice(len(y), size=m, replace=False) if m < len(y) else np.arange(len(y))
    if not pairs:
        return X[idx], y[idx], None, None
    j = rng.integers(0, len(y) - 1, size=m)
    j = j + (j >= idx)
    return X[idx], y[idx], X[j], y[j]


def _mean_loss(lossobj, W, Xs, ys, X2, y2):
    """Mean loss of each chain (W: (C, ...)) over the evaluation sample, in memory-bounded chunks."""
    C = W.shape[0]
    m, D = Xs.shape[0], int(np.prod(W.shape[1:]))
    c = max(1, _BUF_FLOATS // max(1, m * D))
    out = np.empty(C)
    for s in range(0, C, c):
        we = W[s:s + c, None]
        if X2 is None:
            val = lossobj.value(we, Xs[None], ys[None])
        else:
            val = lossobj.value(we, Xs[None], ys[None], X2[None], y2[None])
        out[s:s + c] = np.mean(val, axis=1)
    return out


def _reference(lossobj, data, Xs, ys, X2, y2, pshape, R=None, kind=None):
    """F_ref = min over the constraint set W of the evaluation objective (the papers' excess risks compare with the
    best parameter of W, not of the whole space): F(w*) when the data are realizable with a known w* in W, else the
    constrained minimum of :func:`dpviz.engine.reference.constrained_minimum` (cached per sample, loss and set)."""
    from dpviz.engine import projections, reference

    ws = data.w_star if data.w_star is not None and tuple(np.shape(data.w_star)) == pshape else None
    if kind is None:
        kind = "l2" if len(pshape) == 1 else "frobenius"
    in_W = ws is not None and (R is None or np.allclose(
        projections.project(np.asarray(ws, float), kind, R), ws, rtol=1e-12, atol=1e-12))
    if data.realizable and in_W:
        return float(_mean_loss(lossobj, np.asarray(ws, float)[None], Xs, ys, X2, y2)[0]), "F(w*) (w* lies in W)"
    ref = reference.constrained_minimum(lossobj, Xs, ys, X2, y2, pshape=pshape, R=R, kind=kind, x0=ws)
    if R is None:
        return ref.value, "the unconstrained minimum (no projection set W; non-private solver)"
    where = "its unconstrained minimiser lies in W" if ref.inside else ref.how
    return ref.value, f"the minimum over W ({projections.KINDS[kind]}, R = {R:g}; {where})"


def _auc(scores, y):
    """AUC of each row of ``scores`` (C, m) for labels y in {-1, +1} (ties count 1/2)."""
    from scipy.stats import rankdata

    pos = y > 0
    n1, n0 = int(pos.sum()), int((~pos).sum())
    if n1 == 0 or n0 == 0:
        return np.full(scores.shape[0], np.nan)
    r = rankdata(scores, axis=1)
    return (r[:, pos].sum(axis=1) - n1 * (n1 + 1) / 2) / (n1 * n0)


def _evaluate(out, data, lossobj, spec, plans, reps, evaluate, pshape, eval_rows=_EVAL_ROWS, R=None):
    import pandas as pd

    G = len(plans)
    W = out.reshape((G * reps,) + pshape)
    ok = np.all(np.isfinite(W.reshape(G * reps, -1)), axis=1)
    notes: list[str] = []
    cols: dict[str, Any] = {
        "grid": np.repeat([p["grid"] if p["grid"] is not None else np.nan for p in plans], reps),
        "rep": np.tile(np.arange(reps), G),
        "n": np.repeat([p["n"] for p in plans], reps),
        "eps": np.repeat([p["eps"] if p["eps"] is not None else np.nan for p in plans], reps),
        "delta": np.repeat([p["delta"] if p["delta"] is not None else np.nan for p in plans], reps),
        "T": np.repeat([p["T"] for p in plans], reps),
        "eta": np.repeat([p["eta"] for p in plans], reps),
        "sigma": np.repeat([p["sigma"] if p["run"] else np.nan for p in plans], reps),  # not run: no sigma
        "feasible": np.repeat([p["feasible"] for p in plans], reps),
    }
    Wok = W[ok]
    if "risk" in evaluate:
        emp = np.full(G * reps, np.nan)
        pop = np.full(G * reps, np.nan)
        Xs, ys, X2, y2 = _eval_sample(data, spec.pairs, "train", eval_rows)
        Xp, yp, Xp2, yp2 = _eval_sample(data, spec.pairs, "test", eval_rows)
        if Wok.shape[0]:
            emp[ok] = _mean_loss(lossobj, Wok, Xs, ys, X2, y2)
            pop[ok] = _mean_loss(lossobj, Wok, Xp, yp, Xp2, yp2)
        kind = plans[0].get("constraint") if plans else None
        ref, how = _reference(lossobj, data, Xp, yp, Xp2, yp2, pshape, R, kind)
        notes.append(f"excess risk measured against {how} = {ref:.4g} on the population sample")
        cols["emp_risk"] = emp
        cols["pop_risk"] = pop
        cols["excess_risk"] = pop - ref
    metric_ok = len(pshape) == 1 and (data.task == "classification" if spec.pairs else data.task != "multiclass")
    if "metric" in evaluate and metric_ok:
        Xt, yt = np.asarray(data.X_test, float), np.asarray(data.y_test, float)
        val = np.full(G * reps, np.nan)
        if data.task == "regression":
            # mean((X w - y)^2) = w'Aw - 2 b'w + c with A = X'X/m, b = X'y/m, c = mean(y^2): exact, O(d^2) per chain
            name = "mse"
            m = len(yt)
            A, bb, cc = Xt.T @ Xt / m, Xt.T @ yt / m, float(yt @ yt) / m
            val[ok] = np.einsum("ci,ij,cj->c", Wok, A, Wok) - 2 * Wok @ bb + cc
        elif spec.pairs:
            name = "auc"
            val[ok] = _auc(Wok @ Xt.T, yt) if Wok.shape[0] else []
        else:
            name = "error"
            c = max(1, _BUF_FLOATS // len(yt))
            sc = np.empty(Wok.shape[0])
            for s in range(0, Wok.shape[0], c):
                sc[s:s + c] = np.mean(np.where(Wok[s:s + c] @ Xt.T > 0, 1.0, -1.0) != yt, axis=1)
            val[ok] = sc
        cols["metric_name"] = name
        cols["metric"] = val
    return pd.DataFrame(cols), notes
