"""Benchmark of `python -m dpviz sweep` (dpviz.studies.sweep on Dask distributed).

Prints:
1. the per-cell cost of a ~1-2 s cell run directly (no Dask), and the engine's seconds per work unit;
2. the wall time of the same 8 cells on a local Dask cluster with 1 and with 2 worker processes (cluster start-up
   excluded: the cluster is started first, then the sweep is timed), the speed-up 1 -> 2 workers, and the
   scheduling overhead per cell = (wall on 1 worker - sum of the direct cell times) / cells, as a share of a cell;
3. an estimate, from the measured seconds per work unit, of the wall time of a rate study up to n = 10^6 on a
   64-core cluster.

Run: .venv/bin/python benchmarks/bench_sweep.py
"""

from __future__ import annotations

import math
import tempfile
import time

from dpviz.engine import simulate as sim
from dpviz.studies import sweep

SPEC = """
name = "bench"
algorithms = ["dpsgd-rdp"]
dataset = "wang-least-squares"
loss = "least-squares"
reps = 500
seed = 0
n_test = 2000
eval_rows = 500
[grid]
eps = [1.0, 1.5, 2.0, 2.5, 3.0, 3.5, 4.0, 4.5]
[params]
n = 5000
T = 16000
eta = 0.01
R = 1.0
"""


def _work(cell) -> float:
    data, lossobj, params = sweep._cell_inputs(cell)
    return sim.estimate_cost(cell.algorithm, data, lossobj, reps=cell.spec.reps, params=params,
                             eval_rows=cell.spec.eval_rows)["work"]


def main() -> None:
    from dask.distributed import Client, LocalCluster

    spec = sweep.load_spec(SPEC)
    cells = spec.cells()
    sweep.run_cell(cells[0])  # warm-up (imports, caches)
    direct = []
    for c in cells:
        t = time.perf_counter()
        sweep.run_cell(c)
        direct.append(time.perf_counter() - t)
    work = _work(cells[0])
    per_unit = sum(direct) / (work * len(cells))
    print(f"cells: {len(cells)} x (DP-SGD, n = 5000, T = 16000, reps = 500, d = 10)")
    print(f"direct (no Dask): {sum(direct):.2f} s in all, {sum(direct) / len(cells):.2f} s per cell "
          f"(min {min(direct):.2f}, max {max(direct):.2f}); {per_unit:.3g} s per work unit "
          f"(engine constant SECONDS_PER_UNIT = {sim.SECONDS_PER_UNIT:.3g})")
    walls = {}
    for k in (1, 2):
        with LocalCluster(n_workers=k, threads_per_worker=1, processes=True, dashboard_address=":0",
                          silence_logs=40) as cluster, Client(cluster) as client:
            client.submit(sweep.run_cell, cells[0], pure=False).result()  # warm every worker's imports
            if k == 2:
                client.run(lambda: None)
            with tempfile.TemporaryDirectory() as out:
                t = time.perf_counter()
                res = sweep.run_sweep(spec, out, client=client, progress=False, log=lambda m: None)
                walls[k] = time.perf_counter() - t
                assert res["ran"] == len(cells)
        print(f"Dask, {k} worker process{'es' if k > 1 else ''}: {walls[k]:.2f} s wall")
    # scheduling overhead measured on its own: 40 tiny cells (~ms of engine work each) through the whole path
    # (submit, run, return the rows, write one Parquet file) on 1 worker, minus the same cells run directly
    tiny = sweep.load_spec(SPEC.replace("reps = 500", "reps = 2").replace("T = 16000", "T = 10")
                           .replace("n = 5000", "n = 200").replace(
                               "eps = [1.0, 1.5, 2.0, 2.5, 3.0, 3.5, 4.0, 4.5]",
                               "eps = [" + ", ".join(str(1 + i / 10) for i in range(40)) + "]"))
    t = time.perf_counter()
    for c in tiny.cells():
        sweep.run_cell(c)
    tiny_direct = time.perf_counter() - t
    with LocalCluster(n_workers=1, threads_per_worker=1, processes=True, dashboard_address=":0",
                      silence_logs=40) as cluster, Client(cluster) as client:
        client.submit(sweep.run_cell, tiny.cells()[0], pure=False).result()
        with tempfile.TemporaryDirectory() as out:
            t = time.perf_counter()
            sweep.run_sweep(tiny, out, client=client, progress=False, log=lambda m: None)
            tiny_wall = time.perf_counter() - t
    per_cell = (tiny_wall - tiny_direct) / len(tiny.cells())
    print(f"tiny cells: {len(tiny.cells())} cells, direct {tiny_direct:.2f} s, Dask (1 worker) {tiny_wall:.2f} s -> "
          f"scheduling + Parquet overhead {per_cell * 1e3:.0f} ms per cell = {100 * per_cell:.1f} % of a 1 s cell")
    overhead = (walls[1] - sum(direct)) / len(cells)
    print(f"speed-up 1 -> 2 workers: {walls[1] / walls[2]:.2f}x")
    print(f"overhead per cell from the big cells (1 worker vs direct; noisy under load): {overhead * 1e3:.0f} ms = "
          f"{100 * overhead / (sum(direct) / len(cells)):.1f} % of a {sum(direct) / len(cells):.2f} s cell")

    # estimate: a rate study up to n = 10^6 -- DP-SGD and SGD, n in 10^3 .. 10^6 (7 values, half-decades),
    # 5 eps values, 100 repetitions, one pass T = n, d = 10: work of a cell = reps * T * d (+ evaluation)
    ns = [int(round(10 ** (3 + i / 2))) for i in range(7)]
    n_eps, n_alg, reps, d = 5, 2, 100, 10
    cell_s = [reps * n * d * per_unit for n in ns]
    total = n_alg * n_eps * sum(cell_s)
    cores = 64
    wall = max(total / cores, max(cell_s))
    print(f"estimate, 10^6-example rate study ({n_alg} algorithms x {n_eps} eps x n in {ns[0]}..{ns[-1]} "
          f"({len(ns)} values) x {reps} reps, T = n, d = {d}; {n_alg * n_eps * len(ns)} cells): "
          f"{total:.0f} core-seconds in all, largest cell {max(cell_s):.0f} s; on {cores} cores "
          f"~{wall:.0f} s = {wall / 60:.1f} min (max of total/{cores} and the largest cell, which is one task)")
    print(f"  (cells are independent; {math.ceil(n_alg * n_eps / cores * 100) / 100:.2f} n = 10^6 cells per core "
          "set the critical path)")


if __name__ == "__main__":
    main()
