"""Tests of dpviz.data: the synthetic designs of Wang, Lei, Ying & Zhou, bundled real data, CSV validation."""

import numpy as np
import pytest

from dpviz import data as D


def test_wang_least_squares_design():
    ds = D.load_dataset("wang-least-squares", n=500, kappa=0.1, n_test=1000, seed=1)
    assert ds.X.shape == (500, 10) and ds.X_test.shape == (1000, 10)
    np.testing.assert_allclose(np.linalg.norm(ds.X, axis=1), 1.0)  # ||x|| = 1
    assert np.abs(ds.y).max() <= 0.5  # |y| <= 0.5 (rejection sampling)
    assert not ds.realizable
    # ||w*||^2 = 0.25+0.09+0.01+0.04+0.01 = 0.40
    assert float(ds.w_star @ ds.w_star) == pytest.approx(0.40)


def test_low_noise_is_realizable():
    ds = D.load_dataset("wang-least-squares", n=200, kappa=0.0, n_test=100)
    assert ds.realizable
    np.testing.assert_allclose(ds.y, ds.X @ ds.w_star)


def test_wang_logistic_labels():
    ds = D.load_dataset("wang-logistic", n=300, kappa=0.0, n_test=100)
    assert set(np.unique(ds.y)) == {-1.0, 1.0}
    np.testing.assert_array_equal(ds.y, np.where(ds.X @ ds.w_star > 0, 1.0, -1.0))  # kappa = 0: separable
    # w* = [5, 3, 0, 0.1, 0.2, 0, 0, 0, 0, 0.1]
    assert ds.w_star[0] == 5 and ds.w_star[1] == 3


def test_same_seed_same_data():
    a = D.load_dataset("two-class", n=50, n_test=20, seed=3)
    b = D.load_dataset("two-class", n=50, n_test=20, seed=3)
    np.testing.assert_array_equal(a.X, b.X)
    c = D.load_dataset("clusters", n=50, n_test=20)
    assert c.task == "multiclass"


@pytest.mark.parametrize("name,task,d", [("breast-cancer", "classification", 30), ("diabetes", "regression", 10)])
def test_real_data(name, task, d):
    ds = D.load_dataset(name)
    assert ds.task == task and ds.d == d
    assert np.linalg.norm(ds.X, axis=1).max() <= 1 + 1e-12
    assert np.linalg.norm(ds.X_test, axis=1).max() <= 1 + 1e-12
    assert np.abs(ds.y).max() <= 1 + 1e-12
    # fixed 70/30 split: breast cancer has 569 rows -> 171 held out; diabetes 442 -> 133
    assert len(ds.y_test) == {"breast-cancer": 171, "diabetes": 133}[name]


def test_csv_ok():
    rows = "\n".join(f"{i},{i % 3},{1 if i % 2 else 0}" for i in range(20))
    ds = D.from_csv("a,b,label\n" + rows, "label")
    assert ds.task == "classification"
    assert set(np.unique(ds.y)) == {-1.0, 1.0}
    assert ds.n + len(ds.y_test) == 20 and len(ds.y_test) == 6  # round(0.3 * 20)
    assert np.linalg.norm(ds.X, axis=1).max() <= 1 + 1e-12


@pytest.mark.parametrize("content,label,match", [
    (b"", "y", "empty"),
    ("a,y\n" + "1,2\n" * 20, "z", "not found"),
    ("a,y\n" + "x,2\n" * 20, "y", "not numeric"),
    ("a,y\n1,\n" + "1,2\n" * 20, "y", "missing"),
    ("a,y\ninf,1\n" + "1,2\n" * 20, "y", "infinite"),
    ("a,y\n1,2\n", "y", "at least 10"),
    ("y\n" + "1\n" * 20, "y", "feature"),
])
def test_csv_errors(content, label, match):
    with pytest.raises(ValueError, match=match):
        D.from_csv(content, label)


def test_csv_size_cap_and_bad_names():
    with pytest.raises(ValueError, match="limit"):
        D.from_csv("a,y\n" + "1,2\n" * 100, "y", max_bytes=50)
    with pytest.raises(ValueError, match="unknown data set"):
        D.load_dataset("nope")
    with pytest.raises(ValueError, match="kappa"):
        D.load_dataset("wang-logistic", kappa=-1)
