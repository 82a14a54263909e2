"""The Poisson (add/remove) RDP accountant over dp_accounting's default Rényi orders and over dpviz's
``accounting.RDP_ORDERS``: the noise multiplier z each certifies and the CPU time per call.

``.venv/bin/python benchmarks/bench_rdp_orders.py``

Prints, for q = 1/n and a few (n, T, δ, ε), the z of ``accounting.noise_multiplier_for`` with each set of orders
(caches cleared, best of 3, CPU seconds of this process) and the time of one ε(z) evaluation over all orders.  The
default orders jump from 63 to 128, 256, 512, 1024; at small ε the best order lies between them, and z(ε) has
plateaus and steps.
"""

import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from dp_accounting.rdp import rdp_privacy_accountant as rdp  # noqa: E402

from dpviz.theory import accounting  # noqa: E402
from dpviz.theory.accounting import rdp_poisson, search  # noqa: E402

DEFAULT = tuple(float(o) for o in rdp.DEFAULT_RDP_ORDERS)
#: (n, T, δ, ε): q = 1/n
CASES = [(1000, 1000, 1e-6, 1.0), (1000, 1000, 1e-6, 0.1), (50_000, 50_000, 1e-6, 1.0), (50_000, 50_000, 1e-6, 0.2),
         (20_000, 1000, 1 / 20_000**2, 0.2), (20_000, 1000, 1 / 20_000**2, 0.05), (20_000, 1000, 1 / 20_000**2, 0.02)]


def _clear():
    for f in (accounting._rdp_eps_idx, accounting._eps, accounting._solve, accounting._solve_rdp):
        f.cache_clear()


def main() -> None:
    original = rdp_poisson._orders
    try:
        for label, orders in (("dp_accounting default orders", DEFAULT), ("accounting.RDP_ORDERS", accounting.RDP_ORDERS)):
            for mod in (rdp_poisson, search):  # the modules that read the orders
                mod._orders = lambda o=orders: o
            print(f"{label} ({len(orders)} orders)")
            for n, T, delta, eps in CASES:
                times = []
                for _ in range(3):
                    _clear()
                    t = time.process_time()
                    z = accounting.noise_multiplier_for(eps=eps, delta=delta, steps=T, sampling_prob=1 / n)
                    times.append(time.process_time() - t)
                t = time.process_time()
                for _ in range(10):
                    _clear()
                    accounting.epsilon_for(noise_multiplier=z, delta=delta, steps=T, sampling_prob=1 / n)
                one = (time.process_time() - t) / 10
                print(f"  n = {n:6d}, T = {T:6d}, delta = {delta:.3g}, eps = {eps:<5g}: z = {z:.4f}   "
                      f"solve {min(times):.3f} s CPU, one eps(z) {one * 1000:.1f} ms")
    finally:
        rdp_poisson._orders = search._orders = original
        _clear()


if __name__ == "__main__":
    main()
