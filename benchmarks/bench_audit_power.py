"""Power of the audit on deliberately broken runs (issue 21, "Power where it is weak today").

Run: ``.venv/bin/python benchmarks/bench_audit_power.py [trials] [algorithm ...]``.  For every algorithm the audit
runs, a run with sigma = 1e-3 (or no noise for the non-private ones) at the lab's defaults (smaller n and T for the
full-batch pairwise algorithms, whose n(n - 1) pair gradients per step make n = 100 slow; delta = 1e-6), audited with ``trials``
trainings (default 1000); prints the certified lower bound of each method (Clopper-Pearson, GDP, one-run) against
``max_certifiable`` (the most Clopper-Pearson can certify with that many trials), the statistic chosen and the time.
"""

from __future__ import annotations

import sys
import time

from dpviz.labs import canary_audit as A
from dpviz.labs import audit_methods as am
from dpviz.engine import simulate as sim

#: n (= T) of each algorithm's broken run: the full-batch pairwise algorithms cost n^2 per step and chain
SIZES = {"dpgd-sc": 30, "dpgd-c": 30, "dpgdc": 30, "dp-epoch-gd": 64, "pidp-sgd": 50}
#: the audit's delta: 1e-6 (with the lab's 1/n^2 = 1e-4, or 1.1e-3 at n = 30, the one-run bound's additive term
#: 2 m delta of Steinke, Nasr & Jagielski's Theorem 5.2 caps it whatever the separation)
DELTA = 1e-6


def broken(alg: str, trials: int, seed: int = 0):
    n = SIZES.get(alg, 100)
    p = {"n": n, "T": n, "delta": DELTA}
    if sim.SPECS[alg].noise != "none":
        p["sigma"] = 1e-3
    ds, loss, p = A.default_setting(alg, p)
    t = time.perf_counter()
    r = A.audit(alg, ds, loss, params=p, trials=trials, seed=seed)
    neg, pos = r.samples[r.statistic]
    g = am.gdp_audit(neg, pos, delta=r.delta).eps_lower
    o = am.one_run_from_trials(neg, pos, delta=r.delta, seed=seed).eps_lower
    return r, g, o, time.perf_counter() - t


def main() -> None:
    trials = int(sys.argv[1]) if len(sys.argv) > 1 else 1000
    algs = sys.argv[2:] or sim.supported_algorithms()
    print(f"| algorithm | n = T | statistic | Clopper-Pearson | GDP | one-run | max_certifiable | seconds |")
    print("|---|---|---|---|---|---|---|---|")
    for alg in algs:
        r, g, o, dt = broken(alg, trials)
        print(f"| {alg} | {SIZES.get(alg, 100)} | {r.statistic} | {r.eps_lower:.2f} | {g:.2f} | {o:.2f} | "
              f"{r.max_certifiable:.2f} | {dt:.1f} |", flush=True)


if __name__ == "__main__":
    main()
