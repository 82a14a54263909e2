"""Numerical kernels the update rules share: projections onto W, full and history-averaged (pairwise) gradients,
Hessians by finite differences and their Remark 5 regularisation, PIDP-SGD's noise decision.
"""

from __future__ import annotations

import numpy as np

from dpviz.engine.simulate.spec import _BUF_FLOATS


def _history_grad(ctx, w, new, hist):
    """(1/t) sum_{k<=t} grad f(w; z_new, z_{i_k}) for every chain (Yang, Lei, Lyu & Ying (yang-pairwise), Algorithm 1)."""
    t = hist.shape[-1]
    xn, yn = ctx.rows(new)
    xn, yn = xn[:, :, None], yn[:, :, None]
    we = w[:, :, None]
    c = max(1, _BUF_FLOATS // max(1, w.size))
    out = np.zeros_like(w)
    for s in range(0, t, c):
        xh, yh = ctx.rows(hist[:, :, s:s + c])
        out += ctx.lossobj.grad(we, xn, yn, xh, yh).sum(axis=2)
    return out / t


def _hessian(lossobj, w, X, y, h=1e-5):
    """Hessian of the empirical risk at each row of w (reps, d) by central differences of the mean gradient."""
    reps, d = w.shape
    H = np.empty((reps, d, d))
    for j in range(d):
        e = np.zeros(d)
        e[j] = h
        H[:, :, j] = (_full_grad(lossobj, w + e, X, y, False, 1) - _full_grad(lossobj, w - e, X, y, False, 1)) / (2 * h)
    return 0.5 * (H + np.swapaxes(H, 1, 2))


def _solve_erm(lossobj, X, y, d):
    from scipy.optimize import minimize

    def fun(w):
        return float(np.mean(lossobj.value(w[None], X, y))), np.mean(lossobj.grad(w[None], X, y), axis=0)

    return minimize(fun, np.zeros(d), jac=True, method="L-BFGS-B", options={"maxiter": 500, "gtol": 1e-10}).x


def _bcast(vals, ndim):
    return np.asarray(vals, dtype=float).reshape((-1,) + (1,) * (ndim - 1))


def _pidp_noise_needed(abs_c: np.ndarray, *, A: float, ke: float, eps1: float) -> np.ndarray:
    r"""Lines 9-10 of Algorithm 1 (Kang, Li, Liu & Wang (kang-pidp)): whether each row of ``abs_c`` (the absolute
    released contributions :math:`|[c_t]_i|`, shape (rows, d)) sends its step to the noisy branch.

    Noise if some :math:`|[c_t]_i| \ge A/(e^{\epsilon_1}-1)` (line 9) or some
    :math:`\ln\big(A/(A-(e^{\epsilon_1}-1)|[c_t]_i|)\big) > 2\epsilon_1` (line 10), with
    :math:`A = 2re^{\epsilon_1}\delta_1` and ``ke`` :math:`= e^{\epsilon_1}-1`.  The engine's PIDP-SGD and the
    Section 7 study (:mod:`dpviz.studies.kang`) both decide with this rule.
    """
    big = np.any(abs_c >= A / ke, axis=1)
    with np.errstate(divide="ignore", invalid="ignore"):
        small_ok = np.all(np.log(A / (A - ke * abs_c)) <= 2.0 * eps1, axis=1)
    return big | ~small_ok


def _project(w, R, nparam, kind=None):
    """Proj_W(w) for every chain: the ball of radius R (Euclidean / Frobenius; ``kind`` None, "l2", "frobenius"), or
    the PSD / nuclear-norm sets of :mod:`dpviz.engine.projections` (``kind`` "psd-frobenius" / "nuclear")."""
    if R is None:
        return w
    if kind in ("psd-frobenius", "nuclear"):
        from dpviz.engine import projections

        return projections.project(w, kind, R)
    if nparam == 1:
        sq = np.einsum("...i,...i->...", w, w)[..., None]
    else:
        sq = np.einsum("...ij,...ij->...", w, w)[..., None, None]
    if sq.max() <= R * R:
        return w
    w *= np.minimum(1.0, R / np.sqrt(np.maximum(sq, 1e-300)))
    return w


def _full_grad(lossobj, wg, X, y, pairs, nparam):
    """Mean (sub)gradient of the empirical risk over all n examples (or all n(n-1) ordered pairs i != j)."""
    reps = wg.shape[0]
    D = int(np.prod(wg.shape[1:]))
    n = X.shape[0]
    out = np.zeros_like(wg)
    if not pairs:
        b = max(1, _BUF_FLOATS // max(1, reps * D))
        we = wg[:, None]
        for s in range(0, n, b):
            out += lossobj.grad(we, X[None, s:s + b], y[None, s:s + b]).sum(axis=1)
        return out / n
    b = max(1, _BUF_FLOATS // max(1, reps * D * n))
    we = wg[:, None, None]
    for s in range(0, n, b):
        Xi, yi = X[s:s + b], y[s:s + b]
        g = lossobj.grad(we, Xi[None, :, None], yi[None, :, None], X[None, None, :], y[None, None, :])
        out += g.sum(axis=(1, 2))
        out -= lossobj.grad(wg[:, None], Xi[None], yi[None], Xi[None], yi[None]).sum(axis=1)  # remove i == j
    return out / (n * (n - 1))


def _regularised_hessian(H, zeta):
    """Kang, Li, Liu & Wang (kang-pidp), Remark 5: where the Hessian's smallest eigenvalue is below zeta, use
    H + zeta I instead of H.  Returns (H_used, regularised, ok): per chain whether zeta I was added and whether
    lambda_min(H_used) >= zeta holds, the premise of the contribution's sensitivity 2G/(n zeta) (Theorem 5's proof:
    ||H^{-1} grad l|| <= G / lambda_min(H)).  For a convex loss H is positive semi-definite, so H + zeta I always
    passes (up to the finite-difference error, hence the small tolerance)."""
    lam = np.linalg.eigvalsh(H)[:, 0]
    reg = lam < zeta
    Hu = np.where(reg[:, None, None], H + zeta * np.eye(H.shape[-1]), H)
    lam_u = np.where(reg, lam + zeta, lam)
    ok = lam_u >= zeta * (1.0 - 1e-6) - 1e-9
    return Hu, reg, ok
