"""Benchmark of the audit lab (run: ``.venv/bin/python benchmarks/bench_audit.py``).

Prints the wall time of 20 000 audit trials of DP-SGD (Wang, Lei, Ying & Zhou, Algorithm 1) at n = T = 100, d = 10
(10 000 trainings on D, 10 000 on D' = D with a canary, one vectorised batch; target < 20 s on the 2-core machine),
with the paper's experimental noise rule at eps = 1, then with a small sigma (so the test has power), and 2 000
coupled stability repetitions of the same setting.  Then (issue 11 items 1-3, ``python benchmarks/bench_audit.py
new`` runs only these): a stability sweep over 4 values of eta in one vectorised batch against 4 separate runs, a
sweep over 4 values of alpha, the stability of Xue et al.'s DPGDC2 (full-batch pairwise, 4G/n), and audits of
metric learning (matrix parameter) and of PIDP-SGD.
"""

from __future__ import annotations

import sys
import time

from dpviz.labs import canary_audit as A
from dpviz.labs import stability as St


def main() -> None:
    rows = []
    for label, extra in (("noise rule of the paper's experiments, eps = 1", {"noise_rule": "experiment"}),
                         ("sigma = 0.05", {"sigma": 0.05})):
        ds, loss, p = A.default_setting("dpsgd-rdp", {"n": 100, "T": 100, **extra})
        t = time.perf_counter()
        r = A.audit("dpsgd-rdp", ds, loss, params=p, trials=20_000, seed=0)
        dt = time.perf_counter() - t
        rows.append((label, dt, r))
        print(f"audit DP-SGD, 20 000 trials, n = T = 100, d = {ds.d}, {label}: {dt:.2f} s "
              f"(eps_lower = {r.eps_lower:.3f}, eps_claimed = {r.eps_claimed}, accountant eps = "
              f"{r.eps_accountant:.4g}, max certifiable = {r.max_certifiable:.3f}, sigma = {r.sigma:.4g})")
    ds, loss, p = A.default_setting("dpsgd-rdp", {"n": 100, "T": 100, "noise_rule": "experiment"})
    t = time.perf_counter()
    s = St.stability("dpsgd-rdp", ds, loss, params=p, reps=2000, seed=0)
    print(f"stability DP-SGD, 2 000 coupled pairs, n = T = 100: {time.perf_counter() - t:.2f} s "
          f"(max gradient gap {s.empirical['max']:.4f} vs 2G = {s.bound:.4f})")



def new_paths() -> None:
    ds, loss, p = A.default_setting("dpsgd-rdp", {"n": 100, "T": 100, "noise_rule": "experiment"})
    etas = [0.02, 0.05, 0.1, 0.2]
    St.stability("dpsgd-rdp", ds, loss, params=p, reps=10, seed=0)  # warm-up (imports, first calibration)

    def best(f, k=3):
        out = []
        for _ in range(k):
            t = time.perf_counter()
            f()
            out.append(time.perf_counter() - t)
        return min(out)

    for reps in (50, 500):
        dv = best(lambda: St.stability_sweep("dpsgd-rdp", ds, loss, over="eta", values=etas, params=p, reps=reps,
                                             seed=0))
        dl = best(lambda: [St.stability("dpsgd-rdp", ds, loss, params={**p, "eta": e}, reps=reps, seed=0)
                           for e in etas])
        print(f"stability sweep over 4 values of eta, DP-SGD, {reps} coupled pairs each, n = T = 100 (best of 3): "
              f"one vectorised batch {dv:.3f} s, 4 separate runs {dl:.3f} s")
    t = time.perf_counter()
    sw = St.stability_sweep("dpsgd-output", *A.default_setting("dpsgd-output", {"n": 100, "T": 100})[:2],
                            over="alpha", values=[0.25, 0.5, 0.75, 1.0],
                            params=A.default_setting("dpsgd-output", {"n": 100, "T": 100})[2], reps=500, seed=0)
    print(f"stability sweep over 4 values of alpha, DP-SGD-Output, 500 pairs each, n = T = 100: "
          f"{time.perf_counter() - t:.2f} s")
    ds, loss, p = A.default_setting("dpgd-c", {"n": 50, "T": 50})
    t = time.perf_counter()
    s = St.stability("dpgd-c", ds, loss, params=p, reps=50, seed=0)
    print(f"stability DPGDC2 (Xue et al. Algorithm 2), 50 coupled pairs, n = T = 50: {time.perf_counter() - t:.2f} s "
          f"(max full-gradient gap {s.empirical['max']:.4g} vs 4G/n = {s.bound:.4g})")
    for alg, n, kw in (("dpsgd-rdp-pairwise", 100, {"noise_rule": "experiment"}), ("dpgd-c", 30, {})):
        ds, loss, p = A.default_setting(alg, {"n": n, "T": n, **kw}, matrix=True)
        t = time.perf_counter()
        r = A.audit(alg, ds, loss, params=p, trials=2000, seed=0)
        print(f"audit {alg} on metric learning (d x d = {ds.d}x{ds.d}), 2 000 trials, n = T = {n}: "
              f"{time.perf_counter() - t:.2f} s (eps_lower {r.eps_lower:.3f}, accountant eps {r.eps_accountant:.4g})")
    ds, loss, p = A.default_setting("pidp-sgd", {"n": 100, "T": 100})
    t = time.perf_counter()
    r = A.audit("pidp-sgd", ds, loss, params=p, trials=2000, seed=0)
    print(f"audit PIDP-SGD, 2 000 trials, n = T = 100: {time.perf_counter() - t:.2f} s (eps_lower {r.eps_lower:.3f}, "
          f"accountant eps {r.eps_accountant:.4g} incl. the contribution)")


if __name__ == "__main__":
    if sys.argv[1:] != ["new"]:
        main()
    new_paths()
