"""Accuracy of the simulation cost estimate (issue 13, item 9): run ``.venv/bin/python benchmarks/bench_cost_estimate.py``.

For every algorithm the engine runs, one simulation sized to take about a second, and the ratio
actual wall time / ``dpviz.engine.simulate.estimate_cost(...)["seconds"]`` (target: within [0.5, 2] for every algorithm
kind).  Also the cost of building a synthetic data set against ``dpviz.engine.data.estimate_dataset_cost`` (time and the
retained bytes), and the whole ``estimate_cost`` of a not-yet-built data set (a ``dpviz.engine.data.plan_dataset``).
Each figure is the median of 3 runs of the process CPU time (``time.process_time``): on the shared 2-core machine
the wall time of the same run varies by 3x with the other users' load, while the CPU time is what the estimate
models (the engine is single-threaded numpy; on an idle machine wall time = CPU time).  Record the figures in
benchmarks/RESULTS.md.
"""

from __future__ import annotations

import statistics
import time

from dpviz.engine import data as D
from dpviz.engine import simulate as S

POINT = D.load_dataset("wang-least-squares", n=2000, kappa=0.1)
PAIR = D.load_dataset("two-class", n=400)

#: algorithm -> (data, loss, params, reps, grid): each sized to a fraction of a second to a few seconds.
CASES = {
    "sgd": (POINT, "least-squares", {"T": 2000, "eta": 0.05, "R": 1.0}, 200, {"eps": [1, 2]}),
    "gd": (POINT, "least-squares", {"T": 400, "eta": 0.5, "R": 1.0}, 8, None),
    "dpsgd-rdp": (POINT, "least-squares", {"T": 2000, "eta": 0.05, "R": 1.0, "sigma": 1.0}, 200, {"eps": [1, 2]}),
    "dpsgd-rdp-pairwise": (PAIR, "auc-square", {"T": 2000, "eta": 0.05, "R": 1.0, "sigma": 1.0}, 200,
                           {"eps": [1, 2]}),
    "dpsgd-output": (POINT, "least-squares", {"T": 2000, "eta": 0.05, "R": 1.0, "sigma": 1.0}, 200, {"eps": [1, 2]}),
    "pairwise-sgd": (PAIR, "auc-square", {"T": 300, "eta": 0.05, "R": 1.0}, 40, None),
    "pairwise-sgd-output": (PAIR, "auc-square", {"T": 300, "eta": 0.05, "R": 1.0, "sigma": 1.0}, 40, None),
    "dpsgd-pl": (POINT, "least-squares", {"T": 2000, "eta": 0.05, "sigma": 1.0, "L": 1.0, "mu": 0.1}, 200,
                 {"eps": [1, 2]}),
    "dpgd-sc": (PAIR, "auc-square", {"T": 20, "eta": 0.05, "R": 1.0, "sigma": 1.0}, 2, None),
    "dpgd-c": (PAIR, "auc-square", {"T": 20, "eta": 0.05, "R": 1.0, "sigma": 1.0}, 2, None),
    "dp-epoch-gd": (D.load_dataset("two-class", n=200), "auc-square",
                    {"eta": 0.5, "R": 1.0, "sigma_schedule": [0.5] * 7}, 2, None),
    "pidp-sgd": (POINT, "least-squares", {"T": 2000, "eta": 0.05, "sigma": 1.0, "eps1": 0.5, "delta1": 1e-5,
                                          "sigma_c": 1.0, "rounds": 4, "r": 1.0, "R": 1.0}, 100,
                 {"eps": [1, 2]}),
}


def _median_time(fn, runs=3):
    out = []
    for _ in range(runs):
        t = time.process_time()
        fn()
        out.append(time.process_time() - t)
    return statistics.median(out)


def bench_algorithms() -> dict[str, tuple[float, float]]:
    rows = {}
    for alg, (ds, loss, params, reps, grid) in CASES.items():
        est = S.estimate_cost(alg, ds, loss, grid=grid, reps=reps, params=params)["seconds"]
        t = time.perf_counter()
        actual = _median_time(lambda: S.simulate(alg, ds, loss, grid=grid, reps=reps, params=params, max_work=None))
        wall = (time.perf_counter() - t) / 3
        rows[alg] = (actual, est)
        print(f"{alg:<22} CPU {actual:7.3f} s   estimate {est:7.3f} s   CPU/estimate {actual / est:5.2f}   "
              f"(wall {wall:6.3f} s, wall/estimate {wall / est:5.2f})", flush=True)
    return rows


def bench_data() -> None:
    for name in ("wang-least-squares", "wang-logistic", "two-class", "clusters"):
        n = 1_000_000
        cost = D.estimate_dataset_cost(name, n=n)
        actual = _median_time(lambda: D.load_dataset(name, n=n))
        ds = D.load_dataset(name, n=n)
        kept = ds.X.nbytes + ds.y.nbytes + ds.X_test.nbytes + ds.y_test.nbytes
        print(f"data {name:<20} n = {n:,}: actual {actual:6.2f} s, estimate {cost.seconds:6.2f} s "
              f"(ratio {actual / cost.seconds:4.2f}); kept {kept / 1e6:.0f} MB = estimate "
              f"{cost.bytes_retained / 1e6:.0f} MB; estimated peak {cost.bytes_peak / 1e6:.0f} MB", flush=True)
    plan = D.plan_dataset("wang-least-squares", n=3_000_000)
    est = S.estimate_cost("dpsgd-rdp", plan, "least-squares", reps=10, params={"T": 100, "eta": 0.05, "R": 1.0,
                                                                               "sigma": 1.0})
    print(f"estimate_cost of a 3e6-row plan (not built): {est['seconds']:.2f} s "
          f"(data {est['data_seconds']:.2f} s), peak memory {est['bytes'] / 1e6:.0f} MB")


if __name__ == "__main__":
    rows = bench_algorithms()
    ratios = [a / e for a, e in rows.values()]
    print(f"actual/estimate over {len(ratios)} algorithms: min {min(ratios):.2f}, max {max(ratios):.2f} "
          f"(target [0.5, 2])")
    bench_data()
