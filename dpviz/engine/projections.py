"""Euclidean (Frobenius) projections onto the constraint sets W of the papers, vectorised over leading axes.

Every function takes a stack of parameters, e.g. the simulation engine's state of shape ``(G, reps, d)`` or
``(G, reps, d, d)``, and projects each one independently; the input is not modified.

``project_l2_ball(w, R)``
    onto {w : ||w||_2 <= R} (last axis), the ball of the vector-parameter algorithms.
``project_frobenius_ball(W, R)``
    onto {W : ||W||_F <= R} (last two axes): a rescale.
``project_psd_frobenius_ball(W, R=1)``
    onto {W symmetric positive semi-definite, ||W||_F <= R}: the metric-learning set of Xue, Yang, Huai & Wang
    (xue-pairwise), Section 2, Example 1 (C = {W ∈ S^d : ||W||_F <= 1}, S^d the positive semi-definite matrices).
``project_nuclear_ball(W, D)``
    onto {W ∈ R^{d×d} : ||W||_{S1} <= D} (nuclear norm = sum of singular values): the set of Yang, Lei, Lyu & Ying
    (yang-pairwise), Lemma 5 and Corollaries 3–4.
``project_l1_ball(v, D)``
    onto {v : ||v||_1 <= D} (last axis); used for the singular values.
``project(w, kind, R)``
    dispatch by name (``"l2"``, ``"frobenius"``, ``"psd-frobenius"``, ``"nuclear"``), see :data:`KINDS`.

Why these formulas are the exact projections (Frobenius inner product <A, B> = tr(AᵀB)):

* The symmetric matrices S are a subspace, so projecting onto a subset of S first projects onto S:
  sym(W) = (W + Wᵀ)/2, and ||W − Z||_F² = ||W − sym(W)||_F² + ||sym(W) − Z||_F² for every symmetric Z.
* For a symmetric A = V diag(λ) Vᵀ the nearest positive semi-definite matrix is p = V diag(max(λ, 0)) Vᵀ
  (eigenvalue clip).  For a closed convex cone K (here the PSD cone) the projection onto K ∩ {||·|| <= R} is p
  rescaled onto the ball: for z in K, <A − p, p> = 0 and <A − p, z> <= 0, so ||A − z||² = ||A − p||² + ||p − z||²
  + 2<A − p, p − z> >= ||A − p||² + ||p − z||², and the nearest point of the ball to p, p min(1, R/||p||), lies in
  K.  So: eigenvalue clip, then Frobenius rescale.
* Unitarily invariant norms: the nearest matrix to U diag(s) Vᵀ in a set defined by its singular values is
  U diag(s') Vᵀ with s' the projection of s onto the corresponding vector set (von Neumann's trace inequality), so
  the nuclear-norm ball needs the projection of s >= 0 onto the ℓ1 ball: s' = max(s − θ, 0) with θ >= 0 the
  smallest value giving sum(s') <= D (Duchi, Shalev-Shwartz, Singer & Chandra, ICML 2008, Figure 1).
"""

from __future__ import annotations

import numpy as np

from dpviz.foundation import validate as v

__all__ = [
    "KINDS",
    "project",
    "project_l2_ball",
    "project_frobenius_ball",
    "project_psd_frobenius_ball",
    "project_nuclear_ball",
    "project_l1_ball",
]

#: The constraint sets by name, with a one-line description shown to users.
KINDS: dict[str, str] = {
    "l2": "Euclidean ball ||w||₂ ≤ R (vector parameters)",
    "frobenius": "Frobenius ball ||W||_F ≤ R (rescale only)",
    "psd-frobenius": "positive semi-definite W with ||W||_F ≤ R (Xue, Yang, Huai & Wang, Example 1; R = 1 there)",
    "nuclear": "nuclear-norm ball ||W||_{S1} ≤ R (Yang, Lei, Lyu & Ying, Lemma 5, Corollaries 3–4)",
}


def _array(w, name: str, *, matrix: bool) -> np.ndarray:
    a = np.asarray(w, dtype=float)
    if matrix:
        if a.ndim < 2 or a.shape[-1] != a.shape[-2]:
            raise ValueError(f"{name} must be a square matrix (or a stack of them, shape (..., d, d)), got shape "
                             f"{a.shape}.")
    elif a.ndim < 1:
        raise ValueError(f"{name} must be a vector (or a stack of them, shape (..., d)), got a scalar.")
    if not np.all(np.isfinite(a)):
        raise ValueError(f"{name} contains NaN or infinite entries; a projection needs finite numbers.")
    return a


def _radius(R, name: str = "R (radius of the constraint set)") -> float:
    return v.check_positive(name, R)


def project_l2_ball(w, R) -> np.ndarray:
    """Project each vector of ``w`` (..., d) onto the Euclidean ball of radius ``R``: w min(1, R/||w||)."""
    a = _array(w, "w", matrix=False)
    R = _radius(R)
    nrm = np.sqrt(np.einsum("...i,...i->...", a, a))[..., None]
    return a * np.minimum(1.0, R / np.maximum(nrm, 1e-300))


def project_frobenius_ball(W, R) -> np.ndarray:
    """Project each matrix of ``W`` (..., d, d) onto the Frobenius ball of radius ``R``: W min(1, R/||W||_F)."""
    a = _array(W, "W", matrix=True)
    R = _radius(R)
    nrm = np.sqrt(np.einsum("...ij,...ij->...", a, a))[..., None, None]
    return a * np.minimum(1.0, R / np.maximum(nrm, 1e-300))


def project_psd_frobenius_ball(W, R=1.0) -> np.ndarray:
    """Project each matrix of ``W`` (..., d, d) onto {W symmetric positive semi-definite, ||W||_F <= R}.

    Symmetrise S = (W + Wᵀ)/2, clip the eigenvalues at 0 (P = V diag(max(λ, 0)) Vᵀ), then rescale by
    min(1, R/||P||_F) (||P||_F is the ℓ2 norm of the clipped eigenvalues).  This is the set C of Xue, Yang, Huai &
    Wang (xue-pairwise), Example 1, with R = 1 there.  Why it is the exact projection: see the module docstring.
    """
    a = _array(W, "W", matrix=True)
    R = _radius(R)
    sym = 0.5 * (a + np.swapaxes(a, -1, -2))
    # V diag(max(lambda, 0)) V^T = (S + |S|)/2 with |S| = V_svd diag(s) V_svd^T (for a symmetric S the singular
    # values are |lambda| and the right singular vectors its eigenvectors).  The SVD route is used because numpy's
    # batched eigh with eigenvectors is pathologically slow with a multi-threaded OpenBLAS on a loaded machine
    # (benchmarks/RESULTS.md); the two agree to rounding (tests/test_projections.py).
    _, sv, Vh = np.linalg.svd(sym)
    psd = 0.5 * (sym + (np.swapaxes(Vh, -1, -2) * sv[..., None, :]) @ Vh)
    nrm = np.sqrt(np.einsum("...ij,...ij->...", psd, psd))[..., None, None]
    out = psd * np.minimum(1.0, R / np.maximum(nrm, 1e-300))
    return 0.5 * (out + np.swapaxes(out, -1, -2))  # exactly symmetric despite rounding


def project_l1_ball(vec, D) -> np.ndarray:
    """Project each vector of ``vec`` (..., m) onto the ℓ1 ball {||v||_1 <= D}.

    Vectors inside stay unchanged; otherwise v' = sgn(v) max(|v| − θ, 0) with θ > 0 such that ||v'||_1 = D, found
    from the sorted magnitudes (Duchi et al., ICML 2008): with u sorted decreasingly and S_j = u_1 + ... + u_j,
    ρ = max{j : u_j > (S_j − D)/j} and θ = (S_ρ − D)/ρ.
    """
    a = _array(vec, "v", matrix=False)
    D = _radius(D, "D (radius of the l1 / nuclear-norm ball)")
    mag = np.abs(a)
    inside = np.sum(mag, axis=-1, keepdims=True) <= D
    u = -np.sort(-mag, axis=-1)
    S = np.cumsum(u, axis=-1)
    j = np.arange(1, a.shape[-1] + 1, dtype=float)
    cond = u - (S - D) / j > 0
    rho = a.shape[-1] - np.argmax(cond[..., ::-1], axis=-1)  # the last j with cond true (cond[0] always holds)
    theta = (np.take_along_axis(S, (rho - 1)[..., None], axis=-1) - D) / rho[..., None]
    out = np.sign(a) * np.maximum(mag - np.maximum(theta, 0.0), 0.0)
    return np.where(inside, a, out)


def project_nuclear_ball(W, D) -> np.ndarray:
    """Project each matrix of ``W`` (..., d, d) onto the nuclear-norm ball {||W||_{S1} <= D}.

    W = U diag(s) Vᵀ (SVD), s projected onto the ℓ1 ball of radius D (:func:`project_l1_ball`; s >= 0 so this is
    max(s − θ, 0)), W' = U diag(s') Vᵀ.  The set of Yang, Lei, Lyu & Ying (yang-pairwise), Lemma 5 and
    Corollaries 3–4 (their D).  Matrices already inside are returned unchanged.
    """
    a = _array(W, "W", matrix=True)
    D = _radius(D, "D (radius of the nuclear-norm ball)")
    U, s, Vh = np.linalg.svd(a)
    inside = np.sum(s, axis=-1) <= D
    if np.all(inside):
        return a.copy()
    s2 = project_l1_ball(s, D)
    out = (U * s2[..., None, :]) @ Vh
    return np.where(inside[..., None, None], a, out)


def project(w, kind: str, R) -> np.ndarray:
    """Project ``w`` onto the set ``kind`` (one of :data:`KINDS`) of radius ``R``."""
    funcs = {"l2": project_l2_ball, "frobenius": project_frobenius_ball,
             "psd-frobenius": project_psd_frobenius_ball, "nuclear": project_nuclear_ball}
    if kind not in funcs:
        raise ValueError(f"unknown constraint set {kind!r}; choose one of: {', '.join(funcs)}.")
    return funcs[kind](w, R)
