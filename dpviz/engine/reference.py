"""The reference risk of an excess risk: the smallest mean loss over the constraint set W on an evaluation sample.

``constrained_minimum(loss, X, y, X2=None, y2=None, *, pshape, R=None, kind="l2", x0=None)``
    -> :class:`Reference` (``value``, ``w``, ``how``, ``inside``): min over w in W of the mean loss on the sample
    (pairs (X, y, X2, y2) for a pairwise loss).

The papers bound an excess risk against the best parameter of the same domain W: Wang, Lei, Ying & Zhou
(wang-lownoise) and Wang, Lei, Ying & Zhang (wang-nonsmooth) against inf over W of the population risk, Xue, Yang,
Huai & Wang (xue-pairwise), Definition 2, against min over C, Yang, Lei, Lyu & Ying (yang-pairwise) against the
minimiser over W.  An unconstrained fit can be far below every point of W (on separable data the logistic risk goes
to 0 as ||w|| grows), which turns the "excess risk" into the plain risk.  So:

* no set (``R=None``): L-BFGS on the unconstrained problem;
* the unconstrained L-BFGS solution already in W (convex loss: then it is also the constrained minimiser);
* otherwise SLSQP with the constraint ||w||² <= R² (vector ball / Frobenius ball), and in every case a projected
  gradient descent with backtracking (Armijo on the projection arc), then, for non-smooth losses (α < 1), a
  projected subgradient phase (steps 0.1 R/√k along the normalised subgradient), each from the best point so far;
  the value is the smallest mean loss seen at a point of W.

The result is an upper bound on the true minimum (every candidate is a point of W), accurate to the solvers'
tolerance; a private run can therefore land slightly below it (a small negative excess risk is then sampling and
solver error, not a bug).  Results are cached by the loss, the set and the bytes of the sample.
"""

from __future__ import annotations

import hashlib
import math
from collections import OrderedDict
from dataclasses import dataclass

import numpy as np

from dpviz.foundation import validate as v
from dpviz.engine import projections

__all__ = ["Reference", "constrained_minimum", "clear_cache"]

_CACHE: "OrderedDict[tuple, Reference]" = OrderedDict()
_CACHE_SIZE = 64


@dataclass(frozen=True)
class Reference:
    """min over W of the mean loss on a sample: ``value``, the minimiser ``w``, ``how`` it was found, and
    ``inside`` (the unconstrained minimiser lies in W)."""

    value: float
    w: np.ndarray
    how: str
    inside: bool


def clear_cache() -> None:
    """Forget the cached reference risks."""
    _CACHE.clear()


def _key(lossobj, arrays, pshape, R, kind, x0):
    h = hashlib.sha1()
    for a in arrays:
        if a is not None:
            a = np.ascontiguousarray(a, dtype=float)
            h.update(str(a.shape).encode())
            h.update(a.tobytes())
        else:
            h.update(b"-")
    if x0 is not None:
        h.update(np.ascontiguousarray(x0, dtype=float).tobytes())
    return (repr(lossobj), type(lossobj).__name__, tuple(pshape), R, kind, h.hexdigest())


def constrained_minimum(lossobj, X, y, X2=None, y2=None, *, pshape, R=None, kind: str = "l2", x0=None,
                        maxiter: int = 2000) -> Reference:
    """min over W of the mean loss of ``lossobj`` on the sample (X, y) (pairs with (X2, y2) for a pairwise loss).

    Parameters
    ----------
    lossobj
        A loss of :mod:`dpviz.engine.losses` (``value`` and ``grad``, broadcasting over leading axes).
    X, y, X2, y2 : arrays
        The evaluation sample (rows, or the two sides of the pairs).
    pshape : tuple
        Parameter shape, ``(d,)`` or ``(d, d)``.
    R : float, optional
        Radius of W; ``None``: W is the whole space.
    kind : str
        The set of :data:`dpviz.engine.projections.KINDS` (``"l2"`` for vectors; ``"frobenius"``, ``"psd-frobenius"`` or
        ``"nuclear"`` for matrices).
    x0 : array, optional
        Starting point (e.g. the true parameter w*).
    maxiter : int
        Iterations of each solver phase.

    Returns
    -------
    Reference
    """
    from scipy.optimize import minimize

    pshape = tuple(int(s) for s in pshape)
    if len(pshape) not in (1, 2):
        raise ValueError(f"pshape must be (d,) or (d, d), got {pshape}.")
    if R is not None:
        R = v.check_positive("R (radius of the constraint set)", R)
        if kind not in projections.KINDS:
            raise ValueError(f"unknown constraint set {kind!r}; choose one of: {', '.join(projections.KINDS)}.")
        if (kind == "l2") != (len(pshape) == 1):
            raise ValueError(f"the constraint set {kind!r} does not fit a parameter of shape {pshape}.")
    maxiter = v.check_int("maxiter", maxiter)
    key = _key(lossobj, (X, y, X2, y2), pshape, R, kind, x0)
    if key in _CACHE:
        _CACHE.move_to_end(key)
        return _CACHE[key]
    X = np.asarray(X, dtype=float)
    y = np.asarray(y, dtype=float)
    pair = X2 is not None
    if pair:
        X2 = np.asarray(X2, dtype=float)
        y2 = np.asarray(y2, dtype=float)
    D = int(np.prod(pshape))

    def f(flat):
        w = np.asarray(flat, dtype=float).reshape(pshape)[None]
        val = lossobj.value(w, X, y, X2, y2) if pair else lossobj.value(w, X, y)
        return float(np.mean(val))

    def g(flat):
        w = np.asarray(flat, dtype=float).reshape(pshape)[None]
        gr = lossobj.grad(w, X, y, X2, y2) if pair else lossobj.grad(w, X, y)
        return np.mean(gr, axis=0).ravel()

    def fg(flat):
        return f(flat), g(flat)

    def proj(flat):
        if R is None:
            return np.asarray(flat, dtype=float)
        return projections.project(np.asarray(flat, dtype=float).reshape(pshape), kind, R).ravel()

    start = np.zeros(D) if x0 is None else np.asarray(x0, dtype=float).ravel()
    if start.size != D:
        raise ValueError(f"x0 has {start.size} entries; the parameter has {D}.")
    res = minimize(fg, start, jac=True, method="L-BFGS-B", options={"maxiter": 500, "gtol": 1e-10})
    wu = np.asarray(res.x, dtype=float)
    if R is None:
        out = Reference(float(f(wu)), wu.reshape(pshape), "unconstrained minimum (L-BFGS)", True)
        return _store(key, out)
    pu = proj(wu)
    if np.linalg.norm(pu - wu) <= 1e-9 * max(1.0, np.linalg.norm(wu)):
        out = Reference(float(f(pu)), pu.reshape(pshape), "unconstrained minimum (L-BFGS), which lies in W", True)
        return _store(key, out)

    best_w, best_f = pu, f(pu)
    how = "projected gradient"
    s0 = proj(start)
    if f(s0) < best_f:
        best_w, best_f = s0, f(s0)
    if kind in ("l2", "frobenius"):
        cons = {"type": "ineq", "fun": lambda w: R * R - float(w @ w), "jac": lambda w: -2.0 * w}
        try:
            r2 = minimize(fg, best_w, jac=True, method="SLSQP", constraints=[cons],
                          options={"maxiter": maxiter, "ftol": 1e-14})
            w2 = proj(r2.x)
            f2 = f(w2)
            if f2 < best_f:
                best_w, best_f, how = w2, f2, "SLSQP with ||w|| <= R, then projected gradient"
        except (ValueError, np.linalg.LinAlgError):  # pragma: no cover - SLSQP numerical failure: PG below
            pass

    # projected gradient with backtracking: accept w+ = P(w - s g) when
    # f(w+) <= f(w) + <g, w+ - w> + ||w+ - w||^2 / (2 s); for non-smooth losses (alpha < 1), where it stalls at
    # kinks, a quarter of the iterations, then the subgradient phase below
    nonsmooth = float(getattr(lossobj, "alpha", 0.0)) < 1.0
    w, fw, s = best_w.copy(), best_f, 1.0
    for _ in range(maxiter // 4 if nonsmooth else maxiter):
        gw = g(w)
        while True:
            wn = proj(w - s * gw)
            stepv = wn - w
            fn = f(wn)
            if fn <= fw + float(gw @ stepv) + float(stepv @ stepv) / (2 * s) + 1e-15 or s < 1e-12:
                break
            s *= 0.5
        if fn < best_f:
            best_w, best_f = wn, fn
        if math.sqrt(float(stepv @ stepv)) / s <= 1e-9 or (fw - fn <= 1e-15 * max(1.0, abs(fw)) and s < 1e-10):
            w, fw = wn, fn
            break  # the gradient mapping ||w - P(w - s g)|| / s vanishes: a stationary point of the convex problem
        w, fw = wn, fn
        s *= 2.0
    # projected subgradient, normalised steps R / sqrt(k) (convergent for Lipschitz losses), best iterate; only for
    # non-smooth losses; stops after maxiter / 5 steps without a new best value
    w = best_w.copy()
    last_gain = 0
    for k in range(1, (maxiter if nonsmooth else 0) + 1):
        gw = g(w)
        nrm = float(np.linalg.norm(gw))
        if nrm == 0.0:
            break
        w = proj(w - (R / math.sqrt(k)) * 0.1 * gw / nrm)
        fk = f(w)
        if fk < best_f:
            if fk < best_f - 1e-13 * max(1.0, abs(best_f)):
                last_gain = k
            best_w, best_f = w, fk
        if k - last_gain > maxiter // 5:
            break
    how += ", then projected subgradient" if nonsmooth else ""
    out = Reference(float(best_f), best_w.reshape(pshape), how, False)
    return _store(key, out)


def _store(key, ref: Reference) -> Reference:
    _CACHE[key] = ref
    while len(_CACHE) > _CACHE_SIZE:
        _CACHE.popitem(last=False)
    return ref
