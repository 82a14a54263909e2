"""dpviz.engine.losses: values and gradients at points computed by hand, finite differences, broadcasting, the constants
G, L, M checked empirically, and input validation."""
import math

import numpy as np
import pytest

from dpviz.engine import losses as Ls
from dpviz.engine.losses import get_loss


def sig(t):
    return 1.0 / (1.0 + math.exp(-t))


# common hand points: w = [1, 2], x = [0.3, 0.1] -> <w, x> = 0.3 + 0.2 = 0.5
W = np.array([1.0, 2.0])
X = np.array([0.3, 0.1])
# pairs: x' = [-0.2, 0.4] -> u = x - x' = [0.5, -0.3], <w, u> = 0.5 - 0.6 = -0.1
X2 = np.array([-0.2, 0.4])
U = np.array([0.5, -0.3])
# metric: W_m = [[1, 0.5], [0, 2]]: u^T W_m u = 0.5*(0.5 - 0.15) + (-0.3)*(0 - 0.6) = 0.175 + 0.18 = 0.355
WM = np.array([[1.0, 0.5], [0.0, 2.0]])
UU = np.outer(U, U)  # [[0.25, -0.15], [-0.15, 0.09]]


def close(a, b):
    np.testing.assert_allclose(np.asarray(a, float), np.asarray(b, float), rtol=1e-12, atol=1e-14)


# ---------------------------------------------------------------------------------------------------------------
# registry and metadata


def test_registry_and_metadata():
    ids = Ls.loss_ids()
    assert set(ids) == {"least-squares", "logistic", "hinge", "q-norm-hinge", "absolute", "q-regression", "huber",
                        "auc-square", "auc-hinge", "auc-logistic", "q-norm-auc-hinge", "metric-hinge",
                        "metric-logistic"}
    assert set(Ls.LOSSES) == set(ids)
    assert Ls.loss_ids(setting="pairwise") == ["auc-square", "auc-hinge", "auc-logistic", "q-norm-auc-hinge",
                                               "metric-hinge", "metric-logistic"]
    assert Ls.loss_ids(task="metric") == ["metric-hinge", "metric-logistic"]
    for lid in ids:
        loss = get_loss(lid)
        assert loss.id == lid
        assert loss.setting in ("pointwise", "pairwise")
        assert loss.param in ("vector", "matrix")
        assert loss.task in ("regression", "classification", "metric")
        assert 0.0 <= loss.alpha <= 1.0
        assert loss.name and loss.description and loss.latex and loss.source
        keys = ("wang-lownoise", "kang-pidp", "yang-pairwise", "wang-nonsmooth", "xue-pairwise")
        assert any(f"({k})" in type(loss).__doc__ for k in keys), "docstring cites a paper by its key"
        assert ".txt" not in loss.description and ".txt" not in loss.source  # users see authors
        c = loss.constants(kappa=1.0, R=1.0)
        assert set(c) == {"G", "L", "M", "alpha", "mu"} and c["alpha"] == loss.alpha
        assert c["mu"] == 0.0  # no plain loss is strongly convex for every data set
        assert (loss.q is not None) == lid.startswith("q-")
    assert get_loss("metric-hinge").param == "matrix"
    assert get_loss("q-norm-hinge", q=1.25).alpha == pytest.approx(0.25)
    assert get_loss("q-regression", q=2).alpha == 1.0
    assert get_loss("huber", delta_h=0.5).delta_h == 0.5


def test_errors():
    with pytest.raises(ValueError, match="unknown loss 'nope'.*least-squares"):
        get_loss("nope")
    for bad in (1, 1.0, 0.5, 2.5, float("nan"), "a"):
        with pytest.raises(ValueError, match="q"):
            get_loss("q-norm-hinge", q=bad)
    with pytest.raises(ValueError, match="q"):
        get_loss("q-regression", q=3)
    with pytest.raises(ValueError, match="q"):
        get_loss("q-norm-auc-hinge", q=0.9)
    with pytest.raises(ValueError, match="delta_h"):
        get_loss("huber", delta_h=0)
    with pytest.raises(ValueError, match="no parameters"):
        get_loss("hinge", q=1.5)
    with pytest.raises(ValueError, match="only the parameter q"):
        get_loss("q-norm-hinge", delta_h=1)
    with pytest.raises(ValueError, match="setting"):
        Ls.loss_ids(setting="triplet")
    ls = get_loss("least-squares")
    with pytest.raises(ValueError, match="kappa"):
        ls.constants(kappa=-1, R=1)
    with pytest.raises(ValueError, match="R"):
        ls.constants(kappa=1, R=float("inf"))
    with pytest.raises(ValueError, match="dimension"):
        ls.grad(np.zeros(3), np.zeros(2), 0.0)
    with pytest.raises(ValueError, match="pairwise"):
        get_loss("auc-hinge").value(W, X, 1.0)
    with pytest.raises(ValueError, match="d x d"):
        get_loss("metric-hinge").value(np.zeros((3, 3)), X, 1.0, X2, 1.0)


# ---------------------------------------------------------------------------------------------------------------
# hand-computed values and gradients (at <w, x> = 0.5 and other points)


def test_least_squares_by_hand():
    ls = get_loss("least-squares")
    # y = 2: (0.5 - 2)^2 / 2 = 1.125; grad (0.5 - 2) x = -1.5 * [0.3, 0.1]
    close(ls.value(W, X, 2.0), 1.125)
    close(ls.grad(W, X, 2.0), [-0.45, -0.15])
    # w = 0, x = e1, y = 1: 1/2, grad -e1
    close(ls.value(np.zeros(2), np.array([1.0, 0]), 1.0), 0.5)
    close(ls.grad(np.zeros(2), np.array([1.0, 0]), 1.0), [-1.0, 0.0])


def test_logistic_by_hand():
    lg = get_loss("logistic")
    # y = 1: log(1 + e^-0.5) = 0.474077, grad -sigma(-0.5) x
    close(lg.value(W, X, 1.0), math.log(1 + math.exp(-0.5)))
    close(lg.grad(W, X, 1.0), -sig(-0.5) * X)
    # y = -1: log(1 + e^0.5) = 0.974077, grad +sigma(0.5) x
    close(lg.value(W, X, -1.0), math.log(1 + math.exp(0.5)))
    close(lg.grad(W, X, -1.0), sig(0.5) * X)
    assert lg.value(W, X, 1.0) == pytest.approx(0.474077, abs=1e-6)


def test_hinge_by_hand():
    h = get_loss("hinge")
    # y = 1: 1 - 0.5 = 0.5, grad -x; y = -1: 1 + 0.5 = 1.5, grad +x
    close(h.value(W, X, 1.0), 0.5)
    close(h.grad(W, X, 1.0), -X)
    close(h.value(W, X, -1.0), 1.5)
    close(h.grad(W, X, -1.0), X)
    # w = [4, 0]: <w, x> = 1.2, y = 1: margin met, 0 and 0
    close(h.value(np.array([4.0, 0]), X, 1.0), 0.0)
    close(h.grad(np.array([4.0, 0]), X, 1.0), [0.0, 0.0])


def test_q_norm_hinge_by_hand():
    h = get_loss("q-norm-hinge", q=1.5)
    # y = 1: 0.5^1.5 = 0.353553, grad -1.5 * 0.5^0.5 x
    close(h.value(W, X, 1.0), 0.5**1.5)
    close(h.grad(W, X, 1.0), -1.5 * 0.5**0.5 * X)
    assert h.value(W, X, 1.0) == pytest.approx(0.353553, abs=1e-6)
    # y = -1: 1.5^1.5 = 1.837117, grad +1.5 * 1.5^0.5 x
    close(h.value(W, X, -1.0), 1.5**1.5)
    close(h.grad(W, X, -1.0), 1.5 * 1.5**0.5 * X)
    # q = 2, y = 1: (1 - 0.5)^2 = 0.25, grad -2 * 0.5 x = -x
    h2 = get_loss("q-norm-hinge", q=2)
    close(h2.value(W, X, 1.0), 0.25)
    close(h2.grad(W, X, 1.0), -X)


def test_absolute_and_q_regression_by_hand():
    a = get_loss("absolute")
    # y = 2: |2 - 0.5| = 1.5, grad sgn(0.5 - 2) x = -x; y = 0: 0.5, grad +x
    close(a.value(W, X, 2.0), 1.5)
    close(a.grad(W, X, 2.0), -X)
    close(a.value(W, X, 0.0), 0.5)
    close(a.grad(W, X, 0.0), X)
    qr = get_loss("q-regression", q=1.5)
    # y = 2: 1.5^1.5 = 1.837117, grad 1.5 * 1.5^0.5 * (-1) x; y = 0: 0.5^1.5, grad 1.5 * 0.5^0.5 x
    close(qr.value(W, X, 2.0), 1.5**1.5)
    close(qr.grad(W, X, 2.0), -1.5 * 1.5**0.5 * X)
    close(qr.value(W, X, 0.0), 0.5**1.5)
    close(qr.grad(W, X, 0.0), 1.5 * 0.5**0.5 * X)


def test_huber_by_hand():
    hb = get_loss("huber")  # delta_h = 1
    # y = 2: r = -1.5, |r| > 1: 1 * (1.5 - 0.5) = 1.0, grad clip(-1.5) x = -x
    close(hb.value(W, X, 2.0), 1.0)
    close(hb.grad(W, X, 2.0), -X)
    # y = 0: r = 0.5: 0.5^2 / 2 = 0.125, grad 0.5 x
    close(hb.value(W, X, 0.0), 0.125)
    close(hb.grad(W, X, 0.0), 0.5 * X)
    # delta_h = 0.2, y = 0: r = 0.5 > 0.2: 0.2 * (0.5 - 0.1) = 0.08, grad 0.2 x
    hb2 = get_loss("huber", delta_h=0.2)
    close(hb2.value(W, X, 0.0), 0.08)
    close(hb2.grad(W, X, 0.0), 0.2 * X)


def test_auc_square_and_hinge_by_hand():
    sq = get_loss("auc-square")
    # (y, y') = (1, -1): (1 - (-0.1))^2 = 1.21, grad -2 * 1.1 * u = [-1.1, 0.66]
    close(sq.value(W, X, 1.0, X2, -1.0), 1.21)
    close(sq.grad(W, X, 1.0, X2, -1.0), [-1.1, 0.66])
    # equal labels or reversed order: loss 0, gradient 0 (indicator I[y = 1, y' = -1])
    for y, y2 in ((1.0, 1.0), (-1.0, -1.0), (-1.0, 1.0)):
        close(sq.value(W, X, y, X2, y2), 0.0)
        close(sq.grad(W, X, y, X2, y2), [0.0, 0.0])
    # labels 0/1: 1 is positive, 0 negative
    close(sq.value(W, X, 1.0, X2, 0.0), 1.21)
    hg = get_loss("auc-hinge")
    # (1, -1): (1 + 0.1)_+ = 1.1, grad -u
    close(hg.value(W, X, 1.0, X2, -1.0), 1.1)
    close(hg.grad(W, X, 1.0, X2, -1.0), -U)
    # w = [4, 0]: <w, u> = 2 >= 1: 0, 0
    close(hg.value(np.array([4.0, 0]), X, 1.0, X2, -1.0), 0.0)
    close(hg.grad(np.array([4.0, 0]), X, 1.0, X2, -1.0), [0.0, 0.0])
    close(hg.value(W, X, 1.0, X2, 1.0), 0.0)
    qh = get_loss("q-norm-auc-hinge", q=1.5)
    # 1.1^1.5 = 1.153689, grad -1.5 * 1.1^0.5 u
    close(qh.value(W, X, 1.0, X2, -1.0), 1.1**1.5)
    close(qh.grad(W, X, 1.0, X2, -1.0), -1.5 * 1.1**0.5 * U)
    close(qh.value(W, X, -1.0, X2, -1.0), 0.0)


def test_auc_logistic_by_hand():
    al = get_loss("auc-logistic")
    # (1, -1): s = 2: log(1 + exp(-2 * -0.1)) = log(1 + e^0.2) = 0.798139, grad -2 sigma(0.2) u
    close(al.value(W, X, 1.0, X2, -1.0), math.log(1 + math.exp(0.2)))
    close(al.grad(W, X, 1.0, X2, -1.0), -2 * sig(0.2) * U)
    assert al.value(W, X, 1.0, X2, -1.0) == pytest.approx(0.798139, abs=1e-6)
    # (-1, 1): s = -2: log(1 + e^-0.2) = 0.598139, grad +2 sigma(-0.2) u
    close(al.value(W, X, -1.0, X2, 1.0), math.log(1 + math.exp(-0.2)))
    close(al.grad(W, X, -1.0, X2, 1.0), 2 * sig(-0.2) * U)
    # equal labels: s = 0, phi(0) = log 2 (as printed in xue-pairwise), gradient 0
    close(al.value(W, X, 1.0, X2, 1.0), math.log(2))
    close(al.grad(W, X, -1.0, X2, -1.0), [0.0, 0.0])


def test_metric_losses_by_hand():
    mh = get_loss("metric-hinge")
    # same class (tau = +1): 1 + 0.355 = 1.355, grad u u^T
    close(mh.value(WM, X, 2.0, X2, 2.0), 1.355)
    close(mh.grad(WM, X, 2.0, X2, 2.0), [[0.25, -0.15], [-0.15, 0.09]])
    # different classes (tau = -1): 1 - 0.355 = 0.645, grad -u u^T
    close(mh.value(WM, X, 0.0, X2, 1.0), 0.645)
    close(mh.grad(WM, X, 0.0, X2, 1.0), -UU)
    # W = 4 I: h = 4 * (0.25 + 0.09) = 1.36 > 1, different classes: 0, 0
    close(mh.value(4 * np.eye(2), X, 0.0, X2, 1.0), 0.0)
    close(mh.grad(4 * np.eye(2), X, 0.0, X2, 1.0), np.zeros((2, 2)))
    ml = get_loss("metric-logistic")
    # same class: t = 1 - 0.355 = 0.645: log(1 + e^-0.645) = log(1.524648) = 0.421773, grad sigma(-0.645) u u^T
    close(ml.value(WM, X, 1.0, X2, 1.0), math.log(1 + math.exp(-0.645)))
    close(ml.grad(WM, X, 1.0, X2, 1.0), sig(-0.645) * UU)
    # labels +1, -1 (tau = y y' = -1): t = -0.645: log(1 + e^0.645) = log(2.906044) = 1.066773, grad -sigma(0.645) u u^T
    close(ml.value(WM, X, 1.0, X2, -1.0), math.log(1 + math.exp(0.645)))
    close(ml.grad(WM, X, 1.0, X2, -1.0), -sig(0.645) * UU)
    assert ml.value(WM, X, 1.0, X2, -1.0) == pytest.approx(1.066773, abs=1e-6)


# ---------------------------------------------------------------------------------------------------------------
# constants by hand


def test_constants_by_hand():
    c = get_loss("least-squares").constants(kappa=2, R=0.5)
    # G = k(kR + 1) = 2 * (1 + 1) = 4, L = k^2 = 4, M = k = 2 (matches the engine's fallback)
    assert (c["G"], c["L"], c["M"], c["alpha"]) == pytest.approx((4, 4, 2, 1))
    c = get_loss("logistic").constants(kappa=2, R=1)
    # G = 2 sigma(2) = 2 / (1 + e^-2) = 1.761594, L = 4/4 = 1, M = 1
    assert (c["G"], c["L"], c["M"]) == pytest.approx((2 / (1 + math.exp(-2)), 1.0, 1.0))
    c = get_loss("hinge").constants(kappa=0.5, R=10)
    assert (c["G"], c["L"], c["M"], c["alpha"]) == pytest.approx((0.5, 0.5, 0.5, 0))
    c = get_loss("q-norm-hinge", q=1.5).constants(kappa=2, R=1)
    # G = 1.5 * 2 * (1 + 2)^0.5 = 5.196152, L = 1.5 * 2^1.5 = 4.242641, M = 3
    assert (c["G"], c["L"], c["M"], c["alpha"]) == pytest.approx((3 * 3**0.5, 1.5 * 2**1.5, 3.0, 0.5))
    c = get_loss("absolute").constants(kappa=3, R=1)
    assert (c["G"], c["L"], c["M"]) == pytest.approx((3, 6, 3))
    c = get_loss("q-regression", q=1.5).constants(kappa=2, R=1)
    # G = 1.5 * 2 * (2 + 1)^0.5, L = 1.5 * 2^0.5 * 2^1.5 = 1.5 * 4 = 6, M = 3
    assert (c["G"], c["L"], c["M"]) == pytest.approx((3 * 3**0.5, 6.0, 3.0))
    c = get_loss("q-regression", q=2).constants(kappa=1, R=1)
    # q = 2: f = (<w,x> - y)^2 has gradient 2(<w,x> - y)x: G = 2 * 1 * 2 = 4, L = 2 * 1 * 1 = 2
    assert (c["G"], c["L"], c["M"]) == pytest.approx((4.0, 2.0, 2.0))
    c = get_loss("huber", delta_h=0.5).constants(kappa=2, R=1)
    # G = 2 * min(0.5, 3) = 1, L = 4, M = 2 * min(0.5, 1) = 1
    assert (c["G"], c["L"], c["M"]) == pytest.approx((1.0, 4.0, 1.0))
    c = get_loss("auc-square").constants(kappa=1, R=2)
    # G = 4 * 1 * (1 + 2*1*2) = 20, L = 8, M = 4
    assert (c["G"], c["L"], c["M"]) == pytest.approx((20, 8, 4))
    c = get_loss("auc-hinge").constants(kappa=1.5, R=2)
    assert (c["G"], c["L"], c["M"]) == pytest.approx((3, 3, 3))
    c = get_loss("auc-logistic").constants(kappa=0.5, R=1)
    # G = 4 * 0.5 * sigma(4 * 0.5 * 1) = 2 sigma(2), L = 4 * 0.25 = 1, M = 1
    assert (c["G"], c["L"], c["M"]) == pytest.approx((2 * sig(2), 1.0, 1.0))
    c = get_loss("q-norm-auc-hinge", q=1.5).constants(kappa=0.5, R=1)
    # G = 2 * 1.5 * 0.5 * (1 + 1)^0.5 = 1.5 * sqrt 2, L = 1.5 * 1^1.5 = 1.5, M = 1.5
    assert (c["G"], c["L"], c["M"]) == pytest.approx((1.5 * 2**0.5, 1.5, 1.5))
    c = get_loss("metric-hinge").constants(kappa=0.5, R=3)
    assert (c["G"], c["L"], c["M"]) == pytest.approx((1, 1, 1))
    c = get_loss("metric-logistic").constants(kappa=0.5, R=1)
    # 4k^2 = 1: G = sigma(1 + 1) = sigma(2), L = 4 * 0.5^4 = 0.25, M = sigma(1)
    assert (c["G"], c["L"], c["M"]) == pytest.approx((sig(2), 0.25, sig(1)))


# ---------------------------------------------------------------------------------------------------------------
# random points: finite differences, broadcasting, empirical constants

ALL = [(lid, {}) for lid in Ls.loss_ids()] + [("q-norm-hinge", {"q": 1.2}), ("q-regression", {"q": 1.8}),
                                             ("q-norm-auc-hinge", {"q": 2.0}), ("huber", {"delta_h": 0.3})]
# L2-regularised losses (f + lam ||w||^2) go through the same finite-difference, broadcasting and constants checks
ALL += [("least-squares", {"l2": 0.1}), ("hinge", {"l2": 0.5}), ("q-norm-hinge", {"q": 1.5, "l2": 0.3}),
        ("auc-logistic", {"l2": 1e-3}), ("auc-hinge", {"l2": 0.2}), ("metric-logistic", {"l2": 1e-2}),
        ("metric-hinge", {"l2": 0.1})]
IDS = [lid + "".join(f"-{k}{val}" for k, val in p.items()) for lid, p in ALL]


def sample(loss, rng, shape, d, kappa=1.0, R=1.0):
    """w in the ball of radius R, x (and x2) in the ball of radius kappa, labels as the loss expects."""
    pshape = (d, d) if loss.param == "matrix" else (d,)
    w = rng.standard_normal(shape + pshape)
    axes = tuple(range(-len(pshape), 0))
    w *= (R * rng.random(shape) ** 0.5 / np.sqrt(np.sum(w * w, axis=axes))).reshape(shape + (1,) * len(pshape))

    def xs():
        x = rng.standard_normal(shape + (d,))
        return x * (kappa * rng.random(shape + (1,)) ** 0.3 / np.linalg.norm(x, axis=-1, keepdims=True))

    def ys():
        if loss.task == "regression":
            return rng.uniform(-1, 1, shape)
        if loss.task == "metric":
            return rng.integers(0, 3, shape).astype(float)
        return rng.choice([-1.0, 1.0], shape)

    x, y = xs(), ys()
    if loss.setting == "pairwise":
        return w, (x, y, xs(), ys())
    return w, (x, y)


@pytest.mark.parametrize("lid,params", ALL, ids=IDS)
def test_gradient_matches_central_differences(lid, params):
    loss = get_loss(lid, **params)
    rng = np.random.default_rng(1)
    d, n, h = 3, 200, 1e-6
    w, z = sample(loss, rng, (n,), d, kappa=1.0, R=2.0)
    if loss.setting == "pairwise" and loss.task != "metric":
        z = (z[0], np.ones(n), z[2], -np.ones(n))  # (positive, negative) pairs, where the loss is not identically 0
    g = loss.grad(w, *z).reshape(n, -1)
    flat = w.reshape(n, -1)
    fd = np.empty_like(flat)
    smooth = np.ones(n, bool)
    f0 = loss.value(w, *z)
    for j in range(flat.shape[1]):
        e = np.zeros_like(flat)
        e[:, j] = h
        fp = loss.value((flat + e).reshape(w.shape), *z)
        fm = loss.value((flat - e).reshape(w.shape), *z)
        fd[:, j] = (fp - fm) / (2 * h)
        # away from kinks the two one-sided differences agree
        smooth &= np.abs((fp - f0) - (f0 - fm)) / h < 1e-4
    assert smooth.mean() > 0.9
    np.testing.assert_allclose(g[smooth], fd[smooth], rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("lid,params", ALL, ids=IDS)
def test_broadcasting(lid, params):
    loss = get_loss(lid, **params)
    rng = np.random.default_rng(2)
    G, reps, d, n = 2, 3, 4, 5
    w, z = sample(loss, rng, (G, reps), d)
    val = loss.value(w, *z)
    gr = loss.grad(w, *z)
    assert val.shape == (G, reps) and gr.shape == w.shape
    for a in range(G):
        for b in range(reps):
            zz = tuple(t[a, b] for t in z)
            assert loss.value(w[a, b], *zz) == pytest.approx(val[a, b], rel=1e-12, abs=1e-14)
            np.testing.assert_allclose(loss.grad(w[a, b], *zz), gr[a, b], rtol=1e-12, atol=1e-14)
    # one parameter against n examples
    w1, _ = sample(loss, rng, (1,), d)
    _, z = sample(loss, rng, (n,), d)
    val = loss.value(w1, *z)
    gr = loss.grad(w1, *z)
    assert val.shape == (n,) and gr.shape == (n,) + w1.shape[1:]
    for i in range(n):
        assert loss.value(w1[0], *(t[i] for t in z)) == pytest.approx(val[i], rel=1e-12, abs=1e-14)
    # the engine's all-pairs layout: w (reps, 1, 1, ...), x (1, b, 1, d), x2 (1, 1, n, d)
    if loss.setting == "pairwise":
        wr, _ = sample(loss, rng, (reps,), d)
        _, (x, y, _, _) = sample(loss, rng, (n,), d)
        g = loss.grad(wr[:, None, None], x[None, :, None], y[None, :, None], x[None, None, :], y[None, None, :])
        assert g.shape == (reps, n, n) + wr.shape[1:]
        np.testing.assert_allclose(g[1, 2, 3], loss.grad(wr[1], x[2], y[2], x[3], y[3]), rtol=1e-12, atol=1e-14)


@pytest.mark.parametrize("kappa,R", [(1.0, 1.0), (0.5, 3.0), (2.0, 0.7)])
@pytest.mark.parametrize("lid,params", ALL, ids=IDS)
def test_constants_hold_empirically(lid, params, kappa, R):
    loss = get_loss(lid, **params)
    c = loss.constants(kappa=kappa, R=R)
    rng = np.random.default_rng(3)
    n, d = 4000, 3
    w, z = sample(loss, rng, (n,), d, kappa=kappa, R=R)
    # G bounds the gradient norm on the ball ||w|| <= R
    norms = np.linalg.norm(loss.grad(w, *z).reshape(n, -1), axis=1)
    assert norms.max() <= c["G"] * (1 + 1e-9)
    # M = sup ||grad f(0; z)||
    g0 = loss.grad(np.zeros_like(w), *z).reshape(n, -1)
    assert np.linalg.norm(g0, axis=1).max() <= c["M"] * (1 + 1e-9)
    # Hölder: ||grad f(w) - grad f(w')|| <= L ||w - w'||^alpha, at distances from 1e-4 to ~R
    step = rng.standard_normal(w.shape)
    step *= (10.0 ** rng.uniform(-4, 0, n)).reshape((n,) + (1,) * (w.ndim - 1)) * R / np.linalg.norm(
        step.reshape(n, -1), axis=1).reshape((n,) + (1,) * (w.ndim - 1))
    w2 = w + step
    lhs = np.linalg.norm((loss.grad(w, *z) - loss.grad(w2, *z)).reshape(n, -1), axis=1)
    dist = np.linalg.norm(step.reshape(n, -1), axis=1)
    assert np.all(lhs <= c["L"] * dist ** c["alpha"] * (1 + 1e-9) + 1e-12)
    # the bounds are not wildly loose: the worst sampled gradient reaches a fair share of G
    assert norms.max() >= 0.2 * c["G"]


def test_holder_constant_is_attained_for_q_regression():
    # opposite-sign residuals r = +t, r' = -t with x = e1 (kappa = 1): |grad diff| = 2 q t^(q-1),
    # |w - w'| = 2t -> ratio 2 q t^(q-1) / (2t)^(q-1) = q 2^(2-q) = L (the (H2) constant is sharp)
    q, t = 1.5, 0.3
    loss = get_loss("q-regression", q=q)
    x = np.array([1.0, 0.0])
    g1 = loss.grad(np.array([t, 0.0]), x, 0.0)
    g2 = loss.grad(np.array([-t, 0.0]), x, 0.0)
    ratio = np.linalg.norm(g1 - g2) / (2 * t) ** (q - 1)
    assert ratio == pytest.approx(q * 2 ** (2 - q))
    assert loss.constants(kappa=1, R=1)["L"] == pytest.approx(ratio)


def test_engine_uses_this_module():
    from dpviz.engine import simulate as S

    loss, lid = S._resolve_loss("q-norm-hinge")
    assert isinstance(loss, Ls.Loss) and lid == "q-norm-hinge"


# ---------------------------------------------------------------------------------------------------------------
# L2 regulariser lam ||w||^2 (Xue, Yang, Huai & Wang, Section 5: lam = 1e-3 for AUC, 1e-2 for metric learning)


def test_l2_least_squares_by_hand():
    ls = get_loss("least-squares", l2=0.1)
    # ||w||^2 = 1 + 4 = 5; value 1.125 + 0.1 * 5 = 1.625; grad [-0.45, -0.15] + 2 * 0.1 * [1, 2] = [-0.25, 0.25]
    close(ls.value(W, X, 2.0), 1.625)
    close(ls.grad(W, X, 2.0), [-0.25, 0.25])
    # kappa = 1, R = 2: G = 1 * (1 * 2 + 1) + 2 * 0.1 * 2 = 3.4; L = 1 + 0.2 = 1.2; M = 1; mu = 2 * 0.1 = 0.2
    c = ls.constants(kappa=1.0, R=2.0)
    assert c == pytest.approx({"G": 3.4, "L": 1.2, "M": 1.0, "alpha": 1.0, "mu": 0.2})


def test_l2_pairwise_auc_by_hand():
    auc = get_loss("auc-square", l2=1e-3)
    # (positive, negative) pair, <w, u> = -0.1: (1.1)^2 + 1e-3 * 5 = 1.21 + 0.005 = 1.215
    close(auc.value(W, X, 1.0, X2, -1.0), 1.215)
    # grad -2 * 1.1 * [0.5, -0.3] + 2e-3 * [1, 2] = [-1.1, 0.66] + [0.002, 0.004] = [-1.098, 0.664]
    close(auc.grad(W, X, 1.0, X2, -1.0), [-1.098, 0.664])
    # an equal-label pair has plain loss 0: only the regulariser, 0.005 and gradient [0.002, 0.004]
    close(auc.value(W, X, 1.0, X2, 1.0), 0.005)
    close(auc.grad(W, X, 1.0, X2, 1.0), [0.002, 0.004])
    # AUC logistic, kappa = 1, R = 1: G = 4 sig(4) + 2e-3, L = 4 + 2e-3, M = 2, mu = 2e-3
    c = get_loss("auc-logistic", l2=1e-3).constants(kappa=1.0, R=1.0)
    assert c == pytest.approx({"G": 4 * sig(4) + 2e-3, "L": 4.002, "M": 2.0, "alpha": 1.0, "mu": 2e-3})


def test_l2_metric_by_hand():
    ml = get_loss("metric-logistic", l2=1e-2)
    # ||W_m||_F^2 = 1 + 0.25 + 0 + 4 = 5.25; same class: t = 1 - 0.355 = 0.645
    # value log(1 + e^-0.645) + 0.01 * 5.25 = 0.421773 + 0.0525; grad sig(-0.645) u u^T + 0.02 W_m
    close(ml.value(WM, X, 1.0, X2, 1.0), math.log(1 + math.exp(-0.645)) + 0.0525)
    close(ml.grad(WM, X, 1.0, X2, 1.0), sig(-0.645) * UU + 0.02 * WM)
    # kappa = 1, R = 1: G = 4 sig(5) + 0.02, L = 4 + 0.02, M = 4 sig(1), mu = 0.02
    c = ml.constants(kappa=1.0, R=1.0)
    assert c == pytest.approx({"G": 4 * sig(5) + 0.02, "L": 4.02, "M": 4 * sig(1), "alpha": 1.0, "mu": 0.02})


def test_l2_holder_constants_by_hand():
    # hinge (alpha = 0), kappa = 1, R = 2, lam = 0.1: G = 1 + 2 * 0.1 * 2 = 1.4; L = 1 + 2 * 0.1 * (2 * 2)^1 = 1.8
    c = get_loss("hinge", l2=0.1).constants(kappa=1.0, R=2.0)
    assert c == pytest.approx({"G": 1.4, "L": 1.8, "M": 1.0, "alpha": 0.0, "mu": 0.2})
    # q-norm hinge q = 1.5 (alpha = 0.5), kappa = 1, R = 2, lam = 0.1:
    # G = 1.5 * 1 * 3^0.5 + 0.4 = 2.998...; L = 1.5 * 1 + 2 * 0.1 * 4^0.5 = 1.9; M = 1.5
    c = get_loss("q-norm-hinge", q=1.5, l2=0.1).constants(kappa=1.0, R=2.0)
    assert c == pytest.approx({"G": 1.5 * math.sqrt(3) + 0.4, "L": 1.9, "M": 1.5, "alpha": 0.5, "mu": 0.2})


@pytest.mark.parametrize("lid", ["hinge", "auc-hinge", "metric-logistic", "least-squares"])
def test_l2_strong_convexity_holds(lid):
    # <grad f(w) - grad f(w'), w - w'> >= mu ||w - w'||^2 for a convex f plus lam ||w||^2, mu = 2 lam
    loss = get_loss(lid, l2=0.05)
    mu = loss.constants(kappa=1.0, R=1.0)["mu"]
    assert mu == pytest.approx(0.1)
    rng = np.random.default_rng(7)
    w, z = sample(loss, rng, (2000,), 3)
    w2, _ = sample(loss, rng, (2000,), 3)
    diff = (loss.grad(w, *z) - loss.grad(w2, *z)).reshape(2000, -1)
    step = (w - w2).reshape(2000, -1)
    assert np.all(np.sum(diff * step, axis=1) >= mu * np.sum(step * step, axis=1) * (1 - 1e-9))


def test_l2_metadata_and_errors():
    plain = get_loss("q-norm-hinge", q=1.2)
    reg = get_loss("q-norm-hinge", q=1.2, l2=0.01)
    assert isinstance(reg, Ls.L2Regularised) and isinstance(reg, Ls.Loss)
    assert (reg.id, reg.setting, reg.param, reg.task, reg.alpha, reg.q) == (
        plain.id, plain.setting, plain.param, plain.task, plain.alpha, plain.q)
    assert reg.params == {"q": 1.2, "l2": 0.01}
    assert repr(reg) == "get_loss('q-norm-hinge', q=1.2, l2=0.01)"
    assert "λ = 0.01" in reg.description
    # l2 = 0 or None: the plain loss, mu = 0
    assert get_loss("hinge", l2=0) is get_loss("hinge") is get_loss("hinge", l2=None)
    assert get_loss("auc-square", l2=0.0).constants(kappa=1, R=1)["mu"] == 0.0
    for bad in (-1e-3, float("nan"), float("inf"), "x"):
        with pytest.raises(ValueError, match="l2"):
            get_loss("hinge", l2=bad)
    with pytest.raises(ValueError, match="only the parameter q"):
        get_loss("q-norm-hinge", l2=0.1, delta_h=1)
    with pytest.raises(ValueError, match="already regularised"):
        Ls.L2Regularised(reg, 0.1)


def test_l2_of_xue_section5():
    # Xue et al. Section 5: lambda = 1e-3 (AUC) -> mu = 2e-3; lambda = 1e-2 (metric learning) -> mu = 2e-2
    assert Ls.L2_XUE == {"auc": 1e-3, "metric": 1e-2}
    assert get_loss("auc-logistic", l2=Ls.L2_XUE["auc"]).constants(kappa=1, R=1)["mu"] == pytest.approx(2e-3)
    assert get_loss("metric-logistic", l2=Ls.L2_XUE["metric"]).constants(kappa=1, R=1)["mu"] == pytest.approx(2e-2)
