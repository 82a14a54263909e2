"""Timings of the privacy accounting lab: `.venv/bin/python benchmarks/bench_accounting.py [--naive]`.

* RDP inversions (ε → noise multiplier): the matched accountant (sampling without replacement, replace-one) and
  Poisson add/remove, cold caches;
* PLD inversions (Poisson add/remove) at n = T = 1000 and n = T = 50 000, cold caches (warm start from RDP,
  coarse-to-fine discretisation); ``--naive`` also times the plain bracketing + Brent search at the fine grid;
* issue 21's targets: ε of a given σ with its bracket (connect-the-dots upper bound, merged-interval lower bound;
  target: narrower than 1 % of ε in < 2 s) and σ for a target ε (< 3 s), at n = T = 50 000 and at n = 60 000, batch 256, 60 epochs;
* the Accounting page's main table (``privacy_lab.evaluate`` without PLD, as the page computes it first) for every
  algorithm, cold;
* AppTest reruns of the Accounting page with a widget edit each time (new inputs: nothing cached).
"""

import math
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from dpviz.theory import accounting  # noqa: E402
from dpviz.labs import privacy_lab  # noqa: E402

CASES = {
    "dpsgd-rdp": dict(n=1000, eps=1.0, delta=1e-6, T=1000, G=1.0),
    "dpsgd-rdp-pairwise": dict(n=300, eps=2.0, delta=1e-5, T=600, G=1.0),
    "dpsgd-pl": dict(n=200, eps=4.0, delta=2.5e-5, G=1.0, L=1.0, mu=0.1),
    "pidp-sgd": dict(n=200, eps=4.0, delta=2.5e-5, G=1.0, L=1.0, mu=0.1),
    "pairwise-sgd-output": dict(n=100, eps=1.0, delta=1e-5, T=10000, eta=0.01, G=1.0),
    "dpsgd-output": dict(n=1000, eps=1.0, delta=1e-6, T=1000, eta=0.1, L=1.0, M=1.0, alpha=0.5, R=1.0),
    "dpgd-sc": dict(n=1000, eps=1.0, delta=1e-6, G=1.0, mu=0.5),
    "dpgd-c": dict(n=1000, eps=1.0, delta=1e-6, G=1.0, T=1000),
    "dpgdc": dict(n=1000, eps=1.0, delta=1e-6, G=1.0, T=1000, eta=0.01),
    "dp-epoch-gd": dict(n=1024, eps=1.0, delta=1e-6, G=1.0, eta=0.5),
}


def _clear():
    for f in (accounting._eps, accounting._solve, accounting._solve_rdp, accounting._rdp_eps_idx,
              accounting._wor_eps_opt, accounting._solve_wor, accounting._pld_eval, accounting._pld_support,
              accounting._pld_bracket_cached, accounting._pld_sigma, accounting._checked_sigma, accounting._prv,
              accounting._tight_eval):
        f.cache_clear()


def _time(fn):
    _clear()
    t0 = time.perf_counter()
    out = fn()
    return time.perf_counter() - t0, out


def _time_cpu(fn):
    """(wall seconds, CPU seconds of this process, result), cold caches: CPU time is the figure to compare while
    the machine is shared."""
    _clear()
    t0, c0 = time.perf_counter(), time.process_time()
    out = fn()
    return time.perf_counter() - t0, time.process_time() - c0, out


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
        dt, cpu, z = _time_cpu(lambda: accounting.noise_multiplier_general(eps=eps, delta=1e-6, steps=n,
                                                                           sampling_prob=1 / n, accountant="pld"))
        br = accounting.pld_sigma_bracket(eps=eps, delta=1e-6, steps=n, sampling_prob=1 / n)
        print(f"  n = T = {n:>6}, eps = {eps:g}: z = {z:.5g} in [{br['z_lower'] or float('nan'):.5g}, "
              f"{br['z_upper']:.5g}] (grid {br['grid']:.3g})  {dt:.2f} s wall, {cpu:.2f} s CPU")
        if naive:
            _clear()
            t0 = time.perf_counter()
            z0 = accounting._root(lambda x: accounting._pld_eval(x, 1e-6, n, 1 / n, False, 1e-3, True)[0] - eps,
                                  max(1 / n * (n * 13.8) ** 0.5 / eps, 0.5), 1e-4, "naive")
            print(f"     naive bracketing + Brent at discretisation 1e-3: z = {z0:.5g}  "
                  f"{time.perf_counter() - t0:.1f} s")
    print("Issue 21 targets (cold cache): eps of a given sigma with its bracket, sigma for a target eps")
    for label, q, T, z, delta, eps in (("n = T = 50 000", 1 / 50_000, 50_000, 1.0, 1e-6, 1.0),
                                       ("n = 60 000, batch 256, 60 epochs", 256 / 60_000,
                                        math.ceil(60 * 60_000 / 256), 1.1, 1e-5, 3.0)):
        dt, cpu, br = _time_cpu(lambda: accounting.pld_epsilon_bracket(noise_multiplier=z, delta=delta, steps=T,
                                                                       sampling_prob=q))
        width = (br["eps_upper"] - br["eps_lower"]) / br["eps_upper"] if br["eps_lower"] is not None else math.nan
        print(f"  {label}: eps(z = {z:g}) in [{br['eps_lower']:.5g}, {br['eps_upper']:.5g}] (width "
              f"{100 * width:.2f} % of eps; lower from {br['lower_from']}; grid {br['grid']:.3g}, converged "
              f"{br['converged']})  {dt:.2f} s wall, {cpu:.2f} s CPU  [target: width < 1 %, < 2 s]")
        dt, cpu, sb = _time_cpu(lambda: accounting.pld_sigma_bracket(eps=eps, delta=delta, steps=T, sampling_prob=q))
        print(f"  {label}: z for eps = {eps:g} in [{sb['z_lower'] or float('nan'):.5g}, {sb['z_upper']:.5g}] "
              f"(grid {sb['grid']:.3g})  {dt:.2f} s wall, {cpu:.2f} s CPU  [target: < 3 s]")
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
        at.text_input(key="w_eps").set_value(str(eps)).run()
        times.append(time.perf_counter() - t0)
    print(f"Accounting page (AppTest, DP-SGD of Wang et al.), whole rerun after an edit of eps (nothing cached: "
          f"table, PLD, plots): first {first:.2f} s, median {statistics.median(times):.2f} s, "
          f"max {max(times):.2f} s over {len(times)}")


if __name__ == "__main__":
    main(naive="--naive" in sys.argv)
