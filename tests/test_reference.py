"""dpviz.engine.reference: the best risk over the constraint set W, checked on problems minimised by hand."""
import math

import numpy as np
import pytest

from dpviz.engine import reference as Rf
from dpviz.engine.losses import get_loss


def test_least_squares_ball_by_hand():
    # X = I_2, y = [2, 0]: F(w) = ((w1 - 2)^2 + w2^2) / 4, unconstrained minimum 0 at (2, 0)
    X, y = np.eye(2), np.array([2.0, 0.0])
    ls = get_loss("least-squares")
    r = Rf.constrained_minimum(ls, X, y, pshape=(2,), R=1.0)
    # over ||w|| <= 1 the minimiser is (1, 0): F = (1 + 0) / 4 = 0.25
    assert r.value == pytest.approx(0.25, abs=1e-9) and not r.inside
    np.testing.assert_allclose(r.w, [1.0, 0.0], atol=1e-6)
    # R = 3 contains (2, 0): F = 0, flagged as inside
    r3 = Rf.constrained_minimum(ls, X, y, pshape=(2,), R=3.0)
    assert r3.value == pytest.approx(0.0, abs=1e-12) and r3.inside
    assert Rf.constrained_minimum(ls, X, y, pshape=(2,)).value == pytest.approx(0.0, abs=1e-12)


def test_hinge_ball_by_hand():
    # one example x = e1, y = 1: F(w) = max(0, 1 - w1); over ||w|| <= 0.5 the minimum is 1 - 0.5 = 0.5 (non-smooth)
    r = Rf.constrained_minimum(get_loss("hinge"), np.array([[1.0, 0.0]]), np.array([1.0]), pshape=(2,), R=0.5)
    assert r.value == pytest.approx(0.5, abs=1e-6)


def test_logistic_separable_is_not_zero():
    # separable data: x = +-e1 with y = +-1; F(w) = log(1 + e^{-w1}) -> 0 unconstrained, but over ||w|| <= 1 the
    # minimum is log(1 + e^{-1}) = 0.313262 (the "4.2e-9 on breast-cancer" was the unconstrained value)
    X = np.array([[1.0, 0.0], [-1.0, 0.0]])
    y = np.array([1.0, -1.0])
    lg = get_loss("logistic")
    assert Rf.constrained_minimum(lg, X, y, pshape=(2,)).value < 1e-6
    r = Rf.constrained_minimum(lg, X, y, pshape=(2,), R=1.0)
    assert r.value == pytest.approx(math.log(1 + math.exp(-1)), abs=1e-7)


def test_metric_sets_by_hand():
    mh = get_loss("metric-hinge")
    # one same-class pair with u = x - x' = e1: loss 1 + W11. PSD (W11 >= 0): minimum 1 at W11 = 0;
    # the Frobenius ball allows W11 = -0.5 (R = 0.5): minimum 0.5
    X, X2 = np.array([[1.0, 0.0]]), np.array([[0.0, 0.0]])
    y, y2 = np.array([1.0]), np.array([1.0])
    psd = Rf.constrained_minimum(mh, X, y, X2, y2, pshape=(2, 2), R=0.5, kind="psd-frobenius")
    fro = Rf.constrained_minimum(mh, X, y, X2, y2, pshape=(2, 2), R=0.5, kind="frobenius")
    assert psd.value == pytest.approx(1.0, abs=1e-6)
    assert fro.value == pytest.approx(0.5, abs=1e-6)
    # two different-class pairs u = e1, u = e2: mean of (1 - W11)_+ and (1 - W22)_+.
    # nuclear ball D = 1: |W11| + |W22| <= ||W||_S1 <= 1 -> minimum (2 - 1)/2 = 0.5;
    # Frobenius ball R = 1: W = diag(1, 1)/sqrt2 -> 1 - 1/sqrt2 = 0.292893
    X, X2 = np.array([[1.0, 0.0], [0.0, 1.0]]), np.zeros((2, 2))
    y, y2 = np.array([1.0, 1.0]), np.array([-1.0, -1.0])
    nuc = Rf.constrained_minimum(mh, X, y, X2, y2, pshape=(2, 2), R=1.0, kind="nuclear")
    fro = Rf.constrained_minimum(mh, X, y, X2, y2, pshape=(2, 2), R=1.0, kind="frobenius")
    assert nuc.value == pytest.approx(0.5, abs=1e-5)
    assert fro.value == pytest.approx(1 - 1 / math.sqrt(2), abs=1e-5)


def test_cache_and_errors():
    Rf.clear_cache()
    rng = np.random.default_rng(0)
    X = rng.standard_normal((500, 5)) / 3
    y = np.where(X[:, 0] > 0, 1.0, -1.0)
    lg = get_loss("logistic")
    a = Rf.constrained_minimum(lg, X, y, pshape=(5,), R=0.5)
    b = Rf.constrained_minimum(lg, X, y, pshape=(5,), R=0.5)
    assert b is a  # the cached result itself (cold vs cached time: benchmarks/bench_reference.py)
    assert np.linalg.norm(a.w) <= 0.5 + 1e-9
    # the minimiser over the ball beats random points of the ball
    W = rng.standard_normal((200, 5))
    W *= 0.5 * rng.random((200, 1)) / np.linalg.norm(W, axis=1, keepdims=True)
    assert np.all(np.mean(lg.value(W[:, None], X[None], y[None]), axis=1) >= a.value - 1e-9)
    with pytest.raises(ValueError, match="R"):
        Rf.constrained_minimum(lg, X, y, pshape=(5,), R=0.0)
    with pytest.raises(ValueError, match="does not fit"):
        Rf.constrained_minimum(lg, X, y, pshape=(5,), R=1.0, kind="nuclear")
    with pytest.raises(ValueError, match="unknown constraint set"):
        Rf.constrained_minimum(lg, X, y, pshape=(5,), R=1.0, kind="box")
    with pytest.raises(ValueError, match="x0"):
        Rf.constrained_minimum(lg, X, y, pshape=(5,), R=1.0, x0=np.zeros(3))
