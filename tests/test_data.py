"""Tests of dpviz.engine.data: the synthetic designs of Wang, Lei, Ying & Zhou, bundled real data, CSV validation."""

import numpy as np
import pytest

from dpviz.engine import data as D


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


# ---------------------------------------------------------------------------------------------------------------
# chi of Yang, Lei, Lyu & Ying, Lemma 5 / Remark 1


def test_metric_chi_by_hand():
    # x1 = [1, 0], x2 = [0, 1]: u = +-[1, -1], ||u||^2 = 2, u u^T = [[1, -1], [-1, 1]]
    # E ||u||^2 u u^T = [[2, -2], [-2, 2]], eigenvalues 4 and 0 -> chi = 4
    X = np.array([[1.0, 0.0], [0.0, 1.0]])
    assert D.metric_chi(X) == pytest.approx(4.0)
    # feature reading: E ||x||^2 x x^T = (diag(1, 0) + diag(0, 1))/2 = I/2 -> 0.5
    assert D.metric_chi(X, of="feature") == pytest.approx(0.5)
    # add x3 = 0: u12 = [1, -1] (||u||^2 = 2), u13 = [1, 0] (1), u23 = [0, 1] (1); mean over the 3 pairs of
    # ||u||^2 u u^T = (2 [[1, -1], [-1, 1]] + diag(1, 0) + diag(0, 1)) / 3 = [[1, -2/3], [-2/3, 1]]
    # -> eigenvalues 1 +- 2/3, chi = 5/3; feature: I/3 -> 1/3
    X3 = np.array([[1.0, 0.0], [0.0, 1.0], [0.0, 0.0]])
    assert D.metric_chi(X3) == pytest.approx(5.0 / 3.0)
    assert D.metric_chi(X3, of="feature") == pytest.approx(1.0 / 3.0)
    # d = 1, x = 0, 1, 3: differences 1, 3, 2 -> u^4 = 1, 81, 16, mean (1 + 81 + 16)/3 = 98/3; feature 82/3
    X1 = np.array([[0.0], [1.0], [3.0]])
    assert D.metric_chi(X1) == pytest.approx(98.0 / 3.0)
    assert D.metric_chi(X1, of="feature") == pytest.approx(82.0 / 3.0)


def test_metric_chi_matches_all_pairs_and_remark1():
    rng = np.random.default_rng(0)
    X = rng.standard_normal((40, 3)) + np.array([0.5, -0.2, 0.1])
    U = (X[:, None, :] - X[None, :, :]).reshape(-1, 3)
    U = U[np.any(U != 0, axis=1)]  # the 40 * 39 ordered pairs i != j
    M = (U * np.sum(U * U, axis=1)[:, None]).T @ U / len(U)
    assert D.metric_chi(X) == pytest.approx(np.linalg.eigvalsh(M)[-1], rel=1e-10)
    r = D.metric_chi_remark1(X)
    assert r["lower_bound"] == pytest.approx(np.mean(np.sum(U * U, axis=1) ** 2) / 3)
    assert r["sup_sq"] == pytest.approx(np.max(np.sum(U * U, axis=1)))
    # Remark 1: chi >= E||X||^4 / d; and sqrt(chi) <= sup ||X||^2 (E[||X||^2 X X^T] <= sup||X||^4 I)
    assert r["chi"] >= r["lower_bound"] and r["sqrt_chi"] <= r["sup_sq"]
    # the two-point example: chi = 4, sup ||u||^2 = 2, E||u||^4 / d = 4 / 2 = 2
    r2 = D.metric_chi_remark1(np.array([[1.0, 0.0], [0.0, 1.0]]))
    assert (r2["chi"], r2["sup_sq"], r2["lower_bound"], r2["ratio"]) == pytest.approx((4.0, 2.0, 2.0, 1.0))


def test_metric_chi_of_a_dataset_uses_the_population_sample():
    ds = D.load_dataset("clusters", n=100, n_test=300)
    assert D.metric_chi(ds) == pytest.approx(D.metric_chi(ds.X_test))
    # ||x|| <= 1 so ||x - x'|| <= 2 and chi <= 16
    assert 0 < D.metric_chi(ds) <= 16.0


def test_metric_chi_errors():
    with pytest.raises(ValueError, match="of must be"):
        D.metric_chi(np.eye(2), of="pairs")
    with pytest.raises(ValueError, match="at least 2 rows"):
        D.metric_chi(np.ones((1, 3)))
    with pytest.raises(ValueError, match="at least 2 rows"):
        D.metric_chi(np.ones(3))
    with pytest.raises(ValueError, match="NaN"):
        D.metric_chi(np.array([[1.0, np.nan], [0.0, 1.0]]))


# ---------------------------------------------------------------------------------------------------------------
# issue 22, item 1: hostile CSV shapes are refused from the header and the line count, in linear time, in one line


def _cpu(fn, max_bytes: int = 20_000_000):
    """CPU seconds and message of ``fn``'s ValueError; its Python allocations stay under ``max_bytes`` (the file
    itself is not copied into a frame)."""
    import time
    import tracemalloc

    import pandas  # noqa: F401 -- imported before the measurement

    tracemalloc.start()
    t0 = time.process_time()
    try:
        fn()
    except ValueError as exc:
        cpu = time.process_time() - t0
        peak = tracemalloc.get_traced_memory()[1]
        tracemalloc.stop()
        assert peak < max_bytes, peak
        return cpu, str(exc)
    tracemalloc.stop()
    raise AssertionError("no ValueError")


def test_csv_repeated_header_is_refused_at_once():
    # the issue's 320 KB file: 80 000 x "x" in the header (pandas' renaming took 77 s and the error listed them all)
    content = ",".join(["x"] * 80_000) + "\n" + ",".join(["1"] * 80_000) + "\n"
    cpu, msg = _cpu(lambda: D.from_csv(content, "x"), max_bytes=5_000_000)
    assert cpu < 0.5 and len(msg) < 200 and "\n" not in msg and "80,000" in msg and "limit is 1,000" in msg
    # below the column cap, a repeated name is named once with its count
    content = ",".join(["x"] * 500) + "\n" + (",".join(["1"] * 500) + "\n") * 20
    cpu, msg = _cpu(lambda: D.from_csv(content, "x"))
    assert cpu < 0.5 and msg == "column names must be distinct: 'x' appears 500 times."


@pytest.mark.parametrize("content, words", [
    (",".join(f"c{i}" for i in range(D.MAX_CSV_COLUMNS + 1)) + "\n" + "1," * D.MAX_CSV_COLUMNS + "1\n",
     "1,001 columns; the limit is 1,000"),
    ("a,y\n" + "1,2\n" * (D.MAX_CSV_ROWS + 1), "1,000,001 rows; the limit is 1,000,000"),
    (",".join(f"c{i}" for i in range(10)) + "\n" + ("0," * 9 + "0\n") * 100_001, "cells; the limit is 1,000,000"),
])
def test_csv_shape_caps(content, words):
    cpu, msg = _cpu(lambda: D.from_csv(content, "y"))
    assert words in msg and len(msg) < 200 and cpu < 0.5


def test_csv_messages_list_few_columns():
    names = [f"feature_{i}" for i in range(900)]
    content = ",".join(names) + "\n" + (",".join(["1"] * 900) + "\n") * 12
    cpu, msg = _cpu(lambda: D.from_csv(content, "[label](http://ev.il)" * 10))
    assert "and 892 more" in msg and len(msg) < 300
    content = ",".join(names) + "\n" + (",".join(["x"] * 900) + "\n") * 12
    cpu, msg = _cpu(lambda: D.from_csv(content, "feature_0"))
    assert "not numeric" in msg and "and 892 more" in msg and len(msg) < 300


def test_cpu_time_limit_stops_pandas_renaming_and_the_pool_job():
    """The worker job's CPU-time limit stops even code that never reports progress: pandas' renaming of 20 000
    repeated names (about 2 s at 10 000 columns, quadratic) under a 0.3 s limit, here in this process's main thread
    as in a pool worker; and workers.load_csv in a real worker process."""
    import io
    import time

    import pandas as pd

    from dpviz_ui import workers

    content = (",".join(["x"] * 20_000) + "\n" + ",".join(["1"] * 20_000) + "\n").encode()
    t0 = time.process_time()
    with pytest.raises(workers.TimeLimit, match="more than 0.3 s of CPU time"):
        with workers.cpu_time_limit(0.3, "reading the CSV"):
            pd.read_csv(io.BytesIO(content))
    assert time.process_time() - t0 < 1.5
    pool = workers.WorkerPool(1, nice=0)
    try:
        ok = "a,y\n" + "".join(f"{i},{i % 2}\n" for i in range(50))
        assert pool.submit("me", workers.load_csv, ok.encode(), "y").result(60).n == 35
        big = "".join(f"{i},{i % 7},{i % 2}\n" for i in range(200_000))
        with pytest.raises(workers.TimeLimit):
            pool.submit("me", workers.load_csv, ("a,b,y\n" + big).encode(), "y", time_limit=0.01).result(60)
    finally:
        pool.shutdown()
