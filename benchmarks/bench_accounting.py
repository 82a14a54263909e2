"""Timings of the privacy accounting lab: `.venv/bin/python benchmarks/bench_accounting.py [--naive]`.

* RDP inversions (ε → noise multiplier): the matched accountant (sampling without replacement, replace-one) and
  Poisson add/remove, cold caches;
* PLD inversions (Poisson add/remove) at n = T = 1000 and n = T = 50 000, cold caches (warm start from RDP,
  coarse-to-fine discretisation); ``--naive`` also times the plain bracketing + Brent search at the fine grid;
* the Accounting page's main table (``privacy_lab.evaluate`` without PLD, as the page computes it first) for every
  algorithm, cold;
* AppTest reruns of the Accounting page with a widget edit each time (new inputs: nothing cached).
"""

import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from dpviz import accounting, privacy_lab  # noqa: E402

CASES = {
    "dpsgd-rdp": dict(n=1000, eps=1.0, delta=1e-6, T=1000, G=1.0),
    "dpsgd-rdp-pairwise": dict(n=300, eps=2.0, delta=1e-5, T=600, G=1.0),
    "dpsgd-pl": dict(n=200, eps=4.0, delta=2.5e-5, G=1.0, L=1.0, mu=0.1),
    "pidp-sgd": dict(n=200, eps=4.0, delta=2.5e-5, G=1.0, L=1.0, mu=0.1),
    "pairwise-sgd-output": dict(n=100, eps=1.0, delta=1e-5, T=10000, eta=0.01, G=1.0),
    "dpsgd-output": dict(n=1000, eps=1.0, delta=1e-6, T=1000, eta=0.1, L=1.0, M=1.0, alpha=0.5, R=1.0),
    "dpgd-sc": dict(n=1000, eps=1.0, delta=1e-6, G=1.0, mu=0.5),
    "dpgd-c": dict(n=1000, eps=1.0, delta=1e-6, G=1.0, T=1000),
    "dp-epoch-gd": dict(n=1024, eps=1.0, delta=1e-6, G=1.0, eta=0.5),
}


def _clear():
    for f in (accounting._eps, accounting._solve, accounting._rdp_eps_idx, accounting._wor_eps_opt,
              accounting._solve_wor, accounting._pld_eps_cached, accounting._solve_pld_fast,
              accounting._pld_replace_eps):
        f.cache_clear()


def _time(fn):
    _clear()
    t0 = time.perf_counter()
    out = fn()
    return time.perf_counter() - t0, out


def main(naive: bool = False) -> None:
    accounting.epsilon_general(noise_multiplier=1.0, delta=1e-5, steps=10, sampling_prob=0.1)  # imports
    print("RDP inversions (cold cache): n = T, delta = 1e-6")
    for n, eps in ((1000, 1.0), (1000, 0.1), (100, 8.0), (50_000, 1.0), (50_000, 0.2)):
        for sampling, rel in (("without-replacement", "replace-one"), ("poisson", "add-remove")):
            dt, z = _time(lambda: accounting.noise_multiplier_general(
                eps=eps, delta=1e-6, steps=n, sampling_prob=1 / n, sampling=sampling, neighbouring=rel))
            print(f"  n = T = {n:>6}, eps = {eps:<4g} {sampling:>19}, {rel:<11}: z = {z:.5g}  {dt:.3f} s")
    print("PLD inversions (Poisson add/remove, cold cache), delta = 1e-6")
    for n, eps in ((1000, 1.0), (50_000, 1.0), (50_000, 0.3)):
        dt, z = _time(lambda: accounting.noise_multiplier_general(eps=eps, delta=1e-6, steps=n, sampling_prob=1 / n,
                                                                  accountant="pld"))
        check = accounting._pld_eps_at(z, 1e-6, n, 1 / n, accounting._pld_interval(eps))
        print(f"  n = T = {n:>6}, eps = {eps:g}: z = {z:.5g} (eps at z = {check:.5g})  {dt:.2f} s")
        if naive:
            _clear()
            t0 = time.perf_counter()
            z0 = accounting._root(lambda x: accounting._pld_eps_at(x, 1e-6, n, 1 / n, 1e-3) - eps,
                                  max(1 / n * (n * 13.8) ** 0.5 / eps, 0.5), 1e-4, "naive")
            print(f"     naive bracketing + Brent at discretisation 1e-3: z = {z0:.5g}  "
                  f"{time.perf_counter() - t0:.1f} s")
    print("Accounting page main table (no PLD), cold cache")
    for alg, params in CASES.items():
        dt, _ = _time(lambda: privacy_lab.evaluate(alg, names=("rdp", "analytic-gaussian"), closed_inverse=False,
                                                   **params))
        dt2, _ = _time(lambda: privacy_lab.evaluate(alg, names=("pld",), **params))
        print(f"  {alg:<20} main table {dt:.3f} s, PLD rows {dt2:.2f} s")

    from streamlit.testing.v1 import AppTest

    app = str(Path(__file__).resolve().parent.parent / "app.py")
    at = AppTest.from_file(app, default_timeout=120).run()
    at.query_params["acc_algorithm"] = "dpsgd-rdp"
    t0 = time.perf_counter()
    at.switch_page("pages/accounting.py").run()
    first = time.perf_counter() - t0
    times = []
    for k, eps in enumerate((0.9, 1.1, 1.2, 1.3, 1.4)):
        t0 = time.perf_counter()
        at.number_input(key="acc_eps").set_value(eps).run()
        times.append(time.perf_counter() - t0)
    print(f"Accounting page (AppTest, DP-SGD of Wang et al.), whole rerun after an edit of eps (nothing cached: "
          f"table, PLD, plots): first {first:.2f} s, median {statistics.median(times):.2f} s, "
          f"max {max(times):.2f} s over {len(times)}")


if __name__ == "__main__":
    main(naive="--naive" in sys.argv)
