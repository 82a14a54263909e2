"""Cost of issue 9's engine additions: the constrained reference risk (dpviz.engine.reference, once per data set / loss /
set, then cached) and the projections onto the metric-learning sets (every step of a metric run).

Run: .venv/bin/python benchmarks/bench_reference.py
"""
import time

import numpy as np

from dpviz.engine import data as D
from dpviz.engine import projections as P
from dpviz.engine import reference
from dpviz.engine import simulate as S
from dpviz.engine.losses import get_loss


def _time(f, repeat=1):
    t = time.perf_counter()
    for _ in range(repeat):
        out = f()
    return (time.perf_counter() - t) / repeat, out


def main():
    print("| reference risk | cold | cached | value | how |")
    print("|---|---|---|---|---|")
    cases = [("breast-cancer", "logistic", None, "l2", False), ("breast-cancer", "hinge", None, "l2", False),
             ("two-class", "auc-logistic", None, "l2", True), ("two-class", "auc-hinge", None, "l2", True),
             ("clusters", "metric-logistic", None, "psd-frobenius", True),
             ("clusters", "metric-hinge", None, "nuclear", True)]
    for name, lid, _, kind, pairs in cases:
        ds = D.load_dataset(name, n=500, n_test=4000) if name != "breast-cancer" else D.load_dataset(name)
        loss = get_loss(lid)
        Xs, ys, X2, y2 = S._eval_sample(ds, pairs, "test", 2000)
        pshape = (ds.d, ds.d) if loss.param == "matrix" else (ds.d,)
        reference.clear_cache()
        cold, ref = _time(lambda: reference.constrained_minimum(loss, Xs, ys, X2, y2, pshape=pshape, R=1.0,
                                                                 kind=kind))
        warm, _ = _time(lambda: reference.constrained_minimum(loss, Xs, ys, X2, y2, pshape=pshape, R=1.0,
                                                               kind=kind), 20)
        print(f"| {name} / {lid} / {kind} | {cold:.2f} s | {warm * 1e3:.1f} ms | {ref.value:.4g} | {ref.how} |")
    print()
    # the cache's speed-up on tests/test_reference.py's problem (that test checks the cached object is returned; the
    # speed, once asserted there as cached < cold / 5, is measured here)
    rng = np.random.default_rng(0)
    X = rng.standard_normal((500, 5)) / 3
    y = np.where(X[:, 0] > 0, 1.0, -1.0)
    lg = get_loss("logistic")
    reference.clear_cache()
    cold, _ = _time(lambda: reference.constrained_minimum(lg, X, y, pshape=(5,), R=0.5))
    warm, _ = _time(lambda: reference.constrained_minimum(lg, X, y, pshape=(5,), R=0.5), 20)
    print(f"cache of a 500 x 5 logistic problem (R = 0.5): cold {cold * 1e3:.1f} ms, cached {warm * 1e3:.3f} ms, "
          f"{cold / warm:.0f}x faster (want > 5x)")
    print()
    print("| projection of a (G=5, reps=100, d, d) batch | d = 4 | d = 10 | d = 30 |")
    print("|---|---|---|---|")
    rng = np.random.default_rng(0)
    rows = {}
    for d in (4, 10, 30):
        W = rng.standard_normal((5, 100, d, d))
        for kind in ("frobenius", "psd-frobenius", "nuclear"):
            t, _ = _time(lambda: P.project(W, kind, 1.0), 5)
            rows.setdefault(kind, []).append(f"{t * 1e3:.2f} ms")
    for kind, cells in rows.items():
        print(f"| {kind} | " + " | ".join(cells) + " |")


if __name__ == "__main__":
    main()
