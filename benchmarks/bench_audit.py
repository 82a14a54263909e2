"""Benchmark of the audit lab (run: ``.venv/bin/python benchmarks/bench_audit.py``).

Prints the wall time of 20 000 audit trials of DP-SGD (Wang, Lei, Ying & Zhou, Algorithm 1) at n = T = 100, d = 10
(10 000 trainings on D, 10 000 on D' = D with a canary, one vectorised batch; target < 20 s on the 2-core machine),
with the paper's experimental noise rule at eps = 1, then with a small sigma (so the test has power), and 2 000
coupled stability repetitions of the same setting.
"""

from __future__ import annotations

import time

from dpviz import audit as A
from dpviz import stability as St


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


if __name__ == "__main__":
    main()
