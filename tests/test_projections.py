"""dpviz.engine.projections: projections onto the papers' constraint sets, checked on matrices projected by hand, against
the variational characterisation of a projection, and vectorised over the engine's (G, reps, d, d) batches."""
import math

import numpy as np
import pytest

from dpviz.engine import projections as P


def close(a, b, tol=1e-12):
    np.testing.assert_allclose(np.asarray(a, float), np.asarray(b, float), rtol=tol, atol=tol)


def test_l2_and_frobenius_balls_by_hand():
    # ||[3, 4]|| = 5 -> R = 1: [0.6, 0.8]; inside the ball: unchanged
    close(P.project_l2_ball([3.0, 4.0], 1.0), [0.6, 0.8])
    close(P.project_l2_ball([0.3, 0.4], 1.0), [0.3, 0.4])
    # ||[[1, 2], [2, 4]]||_F = sqrt(1 + 4 + 4 + 16) = 5 -> R = 2.5: halved
    close(P.project_frobenius_ball([[1.0, 2.0], [2.0, 4.0]], 2.5), [[0.5, 1.0], [1.0, 2.0]])


def test_psd_frobenius_by_hand():
    # diag(3, -4): clip -> diag(3, 0), ||.||_F = 3 > 1 -> diag(1, 0)
    close(P.project_psd_frobenius_ball(np.diag([3.0, -4.0]), 1.0), np.diag([1.0, 0.0]))
    # diag(0.3, -0.2): clip -> diag(0.3, 0), inside the unit ball
    close(P.project_psd_frobenius_ball(np.diag([0.3, -0.2])), np.diag([0.3, 0.0]))
    # [[1, 2], [0, 1]]: symmetric part [[1, 1], [1, 1]] = 2 v v^T with v = [1, 1]/sqrt2 (eigenvalues 2, 0), PSD;
    # ||.||_F = 2 -> rescale by 1/2: [[0.5, 0.5], [0.5, 0.5]]
    close(P.project_psd_frobenius_ball([[1.0, 2.0], [0.0, 1.0]], 1.0), [[0.5, 0.5], [0.5, 0.5]])
    # [[0, 1], [1, 0]]: eigenvalues +1 (v = [1, 1]/sqrt2) and -1 -> clip: 1 * v v^T = [[0.5, 0.5], [0.5, 0.5]],
    # ||.||_F = 1: inside the unit ball
    close(P.project_psd_frobenius_ball([[0.0, 1.0], [1.0, 0.0]]), [[0.5, 0.5], [0.5, 0.5]])
    # a PSD matrix inside the ball is unchanged: [[0.5, 0.1], [0.1, 0.2]] (det 0.09 > 0, ||.||_F = 0.5568)
    A = np.array([[0.5, 0.1], [0.1, 0.2]])
    close(P.project_psd_frobenius_ball(A), A)


def test_l1_ball_by_hand():
    # [3, 1], D = 2: theta = 1 (3 - 1 + max(1 - 1, 0) = 2) -> [2, 0]
    close(P.project_l1_ball([3.0, 1.0], 2.0), [2.0, 0.0])
    # [3, 2], D = 2: both stay positive, 5 - 2 theta = 2 -> theta = 1.5 -> [1.5, 0.5]
    close(P.project_l1_ball([3.0, 2.0], 2.0), [1.5, 0.5])
    # signs kept: [-3, 2, 0.5], D = 2: theta = 1.5 (1.5 + 0.5 + 0 = 2) -> [-1.5, 0.5, 0]
    close(P.project_l1_ball([-3.0, 2.0, 0.5], 2.0), [-1.5, 0.5, 0.0])
    close(P.project_l1_ball([0.5, -0.5], 2.0), [0.5, -0.5])


def test_nuclear_ball_by_hand():
    # diag(3, 1), D = 2: singular values [3, 1] -> [2, 0]
    close(P.project_nuclear_ball(np.diag([3.0, 1.0]), 2.0), np.diag([2.0, 0.0]))
    # diag(3, 2), D = 2 -> [1.5, 0.5]
    close(P.project_nuclear_ball(np.diag([3.0, 2.0]), 2.0), np.diag([1.5, 0.5]))
    # [[0, 3], [1, 0]] = 3 e1 e2^T + 1 e2 e1^T (singular values 3, 1) -> 2 e1 e2^T = [[0, 2], [0, 0]]
    close(P.project_nuclear_ball([[0.0, 3.0], [1.0, 0.0]], 2.0), [[0.0, 2.0], [0.0, 0.0]])
    # a negative eigenvalue is a singular value with a sign in U: diag(-3, 1), D = 2 -> diag(-2, 0)
    close(P.project_nuclear_ball(np.diag([-3.0, 1.0]), 2.0), np.diag([-2.0, 0.0]))
    # inside (nuclear norm 0.7 <= 1): unchanged
    A = np.array([[0.2, -0.1], [0.3, 0.4]])
    assert np.linalg.svd(A, compute_uv=False).sum() <= 1.0
    close(P.project_nuclear_ball(A, 1.0), A)


def _in_psd_ball(Z, R):
    return np.linalg.eigvalsh(0.5 * (Z + Z.T)).min() >= -1e-10 and np.allclose(Z, Z.T) and \
        np.linalg.norm(Z) <= R + 1e-10


@pytest.mark.parametrize("kind", ["psd-frobenius", "nuclear"])
def test_variational_inequality(kind):
    # p = Proj_C(A) iff p in C and <A - p, z - p> <= 0 for every z in C: checked against random points of C
    rng = np.random.default_rng(0)
    R = 1.0
    for _ in range(20):
        A = 2.0 * rng.standard_normal((4, 4))
        p = P.project(A, kind, R)
        if kind == "psd-frobenius":
            assert _in_psd_ball(p, R)
        else:
            assert np.linalg.svd(p, compute_uv=False).sum() <= R * (1 + 1e-10)
        Z = rng.standard_normal((200, 4, 4))
        if kind == "psd-frobenius":
            Z = Z @ np.swapaxes(Z, 1, 2)  # PSD
            Z /= np.maximum(1.0, np.linalg.norm(Z, axis=(1, 2)) / (R * rng.random(200)))[:, None, None]
        else:
            Z /= (np.linalg.svd(Z, compute_uv=False).sum(axis=1) / (R * rng.random(200)))[:, None, None]
        assert np.all(np.einsum("ij,kij->k", A - p, Z - p) <= 1e-9)
        # and p is nearer to A than every sampled z
        assert np.all(np.linalg.norm(Z - A, axis=(1, 2)) >= np.linalg.norm(p - A) - 1e-12)


@pytest.mark.parametrize("kind", ["l2", "frobenius", "psd-frobenius", "nuclear"])
def test_batched_equals_one_by_one(kind):
    rng = np.random.default_rng(1)
    shape = (3, 5, 4) if kind == "l2" else (3, 5, 4, 4)
    W = 1.5 * rng.standard_normal(shape)
    W[0, 0] *= 0.01  # one inside the set
    W_in = W.copy()
    out = P.project(W, kind, 1.0)
    assert out.shape == W.shape
    np.testing.assert_array_equal(W, W_in)  # input not modified
    for g in range(3):
        for r in range(5):
            close(out[g, r], P.project(W[g, r], kind, 1.0), 1e-10)
    # idempotent
    close(P.project(out, kind, 1.0), out, 1e-9)


def test_errors():
    with pytest.raises(ValueError, match="square"):
        P.project_psd_frobenius_ball(np.zeros((2, 3)))
    with pytest.raises(ValueError, match="square"):
        P.project_nuclear_ball(np.zeros(3), 1.0)
    with pytest.raises(ValueError, match="R"):
        P.project_l2_ball([1.0, 2.0], 0.0)
    with pytest.raises(ValueError, match="D"):
        P.project_nuclear_ball(np.eye(2), -1.0)
    with pytest.raises(ValueError, match="NaN"):
        P.project_psd_frobenius_ball(np.array([[math.nan, 0.0], [0.0, 1.0]]))
    with pytest.raises(ValueError, match="unknown constraint set 'box'"):
        P.project(np.eye(2), "box", 1.0)
    assert set(P.KINDS) == {"l2", "frobenius", "psd-frobenius", "nuclear"}


def test_psd_projection_equals_the_eigenvalue_clip():
    # the implementation goes through the SVD ((S + |S|)/2); it must equal V diag(max(lambda, 0)) V^T rescaled
    rng = np.random.default_rng(3)
    W = rng.standard_normal((6, 5, 5))
    S = 0.5 * (W + np.swapaxes(W, 1, 2))
    lam, V = np.linalg.eigh(S)
    lam = np.maximum(lam, 0.0)
    lam *= np.minimum(1.0, 0.7 / np.linalg.norm(lam, axis=1))[:, None]
    close(P.project_psd_frobenius_ball(W, 0.7), (V * lam[:, None, :]) @ np.swapaxes(V, 1, 2), 1e-12)
